"""Predictive parity: disparities of the predictive values and their complements.

Sufficiency-type metrics condition on the prediction: the positive and negative predictive
values ``PPV = P(y = + | y_pred = +)`` and ``NPV = P(y != + | y_pred != +)`` and their
complements, the false discovery rate ``FDR = 1 - PPV`` and the false omission rate
``FOR = 1 - NPV``. Each is read off the per-group count table ``[tn, fp, fn, tp]`` and compared
with the library's disparity rules (:mod:`skfair.metrics`).
"""

from __future__ import annotations

from skfair._dask import dask_dispatch
from skfair._stats._aggregate import rate_difference
from skfair._stats._counts import rate_parts
from skfair._utils._compat import validate_params
from skfair.metrics._classification import _BINARY_CONSTRAINTS, LABEL_TABLE, _binary_confusion


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def positive_predictive_value_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """Positive predictive value disparity between groups (the precision).

    ``PPV(S) = P(y_true = + | y_pred = +, S)``. With ``privileged_group``, returns ``PPV(dis) -
    PPV(priv)`` (the sign convention of aif360's ``ClassificationMetric.difference``); otherwise
    ``max - min`` over the groups. A group without positive predictions has an undefined PPV: it
    is left out, with a warning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    y_pred : array-like of shape (n_samples,)
        Predicted class labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes define intersectional groups.
    privileged_group : label, tuple of labels, or list of them, default=None
        Group(s) whose samples form the privileged side, compared with the other samples (see
        ``disadvantaged``) for a signed result. None compares every pair of groups. A tuple
        gives one value per attribute for 2-D input.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare them pooled with the
        privileged group(s), or each on its own and keep the comparison furthest from parity
        (see :mod:`skfair.metrics`).
    pos_label : int, float, bool or str, default=None
        The favourable label. Inferred as 1 (or True) only for labels within {0, 1}, {-1, 1} or
        {False, True}.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample equally.

    Returns
    -------
    float
        In [-1, 1] with ``privileged_group``, else in [0, 1].

    See Also
    --------
    false_discovery_rate_difference : The complementary rate, ``FDR = 1 - PPV``.

    References
    ----------
    .. [1] A. Chouldechova, "Fair Prediction with Disparate Impact: A Study of Bias in
       Recidivism Prediction Instruments", Big Data 5(2), 2017.

    Examples
    --------
    >>> from skfair.metrics import positive_predictive_value_difference
    >>> y_true = [1, 0, 1, 1, 1, 0]
    >>> y_pred = [1, 1, 1, 1, 1, 0]
    >>> g = ["a", "a", "a", "b", "b", "b"]
    >>> positive_predictive_value_difference(
    ...     y_true, y_pred, sensitive_features=g, privileged_group="b"
    ... )
    -0.33333333333333337
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_difference(
        *rate_parts(table, "positive_predictive_value"),
        groups,
        privileged_group,
        measure="positive predictive value",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def false_discovery_rate_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """False discovery rate disparity between groups.

    ``FDR(S) = P(y_true != + | y_pred = +, S) = 1 - PPV(S)``. With ``privileged_group``, returns
    ``FDR(dis) - FDR(priv)`` (the sign convention of aif360's
    ``ClassificationMetric.difference``); otherwise ``max - min`` over the groups. A group
    without positive predictions has an undefined FDR: it is left out, with a warning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    y_pred : array-like of shape (n_samples,)
        Predicted class labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes define intersectional groups.
    privileged_group : label, tuple of labels, or list of them, default=None
        Group(s) whose samples form the privileged side, compared with the other samples (see
        ``disadvantaged``) for a signed result. None compares every pair of groups. A tuple
        gives one value per attribute for 2-D input.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare them pooled with the
        privileged group(s), or each on its own and keep the comparison furthest from parity
        (see :mod:`skfair.metrics`).
    pos_label : int, float, bool or str, default=None
        The favourable label. Inferred as 1 (or True) only for labels within {0, 1}, {-1, 1} or
        {False, True}.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample equally.

    Returns
    -------
    float
        In [-1, 1] with ``privileged_group``, else in [0, 1].

    See Also
    --------
    positive_predictive_value_difference : The complementary rate.

    References
    ----------
    .. [1] A. Chouldechova, "Fair Prediction with Disparate Impact: A Study of Bias in
       Recidivism Prediction Instruments", Big Data 5(2), 2017.

    Examples
    --------
    >>> from skfair.metrics import false_discovery_rate_difference
    >>> y_true = [1, 0, 1, 1, 1, 0]
    >>> y_pred = [1, 1, 1, 1, 1, 0]
    >>> g = ["a", "a", "a", "b", "b", "b"]
    >>> false_discovery_rate_difference(
    ...     y_true, y_pred, sensitive_features=g, privileged_group="b"
    ... )
    0.3333333333333333
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_difference(
        *rate_parts(table, "false_discovery_rate"),
        groups,
        privileged_group,
        measure="false discovery rate",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def negative_predictive_value_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """Negative predictive value disparity between groups.

    ``NPV(S) = P(y_true != + | y_pred != +, S)``. With ``privileged_group``, returns ``NPV(dis)
    - NPV(priv)`` (the sign convention of aif360's ``ClassificationMetric.difference``);
    otherwise ``max - min`` over the groups. A group without negative predictions has an
    undefined NPV: it is left out, with a warning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    y_pred : array-like of shape (n_samples,)
        Predicted class labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes define intersectional groups.
    privileged_group : label, tuple of labels, or list of them, default=None
        Group(s) whose samples form the privileged side, compared with the other samples (see
        ``disadvantaged``) for a signed result. None compares every pair of groups. A tuple
        gives one value per attribute for 2-D input.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare them pooled with the
        privileged group(s), or each on its own and keep the comparison furthest from parity
        (see :mod:`skfair.metrics`).
    pos_label : int, float, bool or str, default=None
        The favourable label. Inferred as 1 (or True) only for labels within {0, 1}, {-1, 1} or
        {False, True}.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample equally.

    Returns
    -------
    float
        In [-1, 1] with ``privileged_group``, else in [0, 1].

    See Also
    --------
    false_omission_rate_difference : The complementary rate, ``FOR = 1 - NPV``.

    References
    ----------
    .. [1] A. Chouldechova, "Fair Prediction with Disparate Impact: A Study of Bias in
       Recidivism Prediction Instruments", Big Data 5(2), 2017.

    Examples
    --------
    >>> from skfair.metrics import negative_predictive_value_difference
    >>> y_true = [1, 0, 0, 1, 0, 0]
    >>> y_pred = [0, 0, 1, 0, 0, 0]
    >>> g = ["a", "a", "a", "b", "b", "b"]
    >>> negative_predictive_value_difference(
    ...     y_true, y_pred, sensitive_features=g, privileged_group="b"
    ... )
    -0.16666666666666663
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_difference(
        *rate_parts(table, "negative_predictive_value"),
        groups,
        privileged_group,
        measure="negative predictive value",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def false_omission_rate_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """False omission rate disparity between groups.

    ``FOR(S) = P(y_true = + | y_pred != +, S) = 1 - NPV(S)``. With ``privileged_group``, returns
    ``FOR(dis) - FOR(priv)`` (the sign convention of aif360's
    ``ClassificationMetric.difference``); otherwise ``max - min`` over the groups. A group
    without negative predictions has an undefined FOR: it is left out, with a warning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    y_pred : array-like of shape (n_samples,)
        Predicted class labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes define intersectional groups.
    privileged_group : label, tuple of labels, or list of them, default=None
        Group(s) whose samples form the privileged side, compared with the other samples (see
        ``disadvantaged``) for a signed result. None compares every pair of groups. A tuple
        gives one value per attribute for 2-D input.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare them pooled with the
        privileged group(s), or each on its own and keep the comparison furthest from parity
        (see :mod:`skfair.metrics`).
    pos_label : int, float, bool or str, default=None
        The favourable label. Inferred as 1 (or True) only for labels within {0, 1}, {-1, 1} or
        {False, True}.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample equally.

    Returns
    -------
    float
        In [-1, 1] with ``privileged_group``, else in [0, 1].

    See Also
    --------
    negative_predictive_value_difference : The complementary rate.

    References
    ----------
    .. [1] A. Chouldechova, "Fair Prediction with Disparate Impact: A Study of Bias in
       Recidivism Prediction Instruments", Big Data 5(2), 2017.

    Examples
    --------
    >>> from skfair.metrics import false_omission_rate_difference
    >>> y_true = [1, 0, 0, 1, 0, 0]
    >>> y_pred = [0, 0, 1, 0, 0, 0]
    >>> g = ["a", "a", "a", "b", "b", "b"]
    >>> false_omission_rate_difference(
    ...     y_true, y_pred, sensitive_features=g, privileged_group="b"
    ... )
    0.16666666666666669
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_difference(
        *rate_parts(table, "false_omission_rate"),
        groups,
        privileged_group,
        measure="false omission rate",
        disadvantaged=disadvantaged,
    )
