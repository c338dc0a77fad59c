"""Error-rate parity: average odds, true-negative-rate difference and the ratio family.

Every function reads the per-group count table ``[tn, fp, fn, tp]`` once and applies the
library's disparity rules (:mod:`skfair.metrics`): signed ``disadvantaged - privileged`` (or
``disadvantaged / privileged``) with ``privileged_group``, otherwise the largest gap
``max - min`` (or ``min / max``) over the groups.
"""

from __future__ import annotations

import numpy as np

from skfair._dask import dask_dispatch
from skfair._stats._aggregate import (
    furthest_from_parity,
    rate_difference,
    rate_ratio,
    signed_gaps,
)
from skfair._stats._counts import FN, FP, rate_parts
from skfair._utils._compat import StrOptions, validate_params
from skfair.metrics._classification import (
    _BINARY_CONSTRAINTS,
    LABEL_TABLE,
    _binary_confusion,
)

_AGGREGATIONS = ("worst_case", "mean")


def _error(table):
    return table[:, FP] + table[:, FN], table.sum(axis=1)


def _fpr_tpr_gaps(
    y_true, y_pred, sensitive_features, privileged_group, disadvantaged, pos_label, w, *, ratio
):
    """FPR and TPR disparities, as arrays over the compared sides (one entry when unsigned)."""
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, w)
    gaps = []
    for rate in ("false_positive_rate", "true_positive_rate"):
        measure = rate.replace("_", " ")
        if privileged_group is None:
            unsigned = rate_ratio if ratio else rate_difference
            gaps.append(np.atleast_1d(unsigned(*rate_parts(table, rate), groups, measure=measure)))
        else:
            gaps.append(
                signed_gaps(
                    *rate_parts(table, rate),
                    groups,
                    privileged_group,
                    measure=measure,
                    disadvantaged=disadvantaged,
                    ratio=ratio,
                )
            )
    return gaps


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def average_odds_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """Average odds difference: the mean of the FPR and TPR disparities, signed as aif360.

    With ``privileged_group``, returns ``((FPR(dis) - FPR(priv)) + (TPR(dis) - TPR(priv))) / 2``,
    aif360's ``average_odds_difference``: the two parts can cancel (a group with more false
    positives and more true positives gets 0). Without, returns ``(D_FPR + D_TPR) / 2`` with
    ``D_X = max_g X_g - min_g X_g``, which is fairlearn's ``equalized_odds_difference(
    agg="mean")``.

    Not the same as :func:`equalized_odds_difference` with ``agg="mean"`` and
    ``privileged_group``, which averages the error rates ``(ΔFPR + ΔFNR) / 2``: its TPR part
    has the opposite sign (``ΔFNR = -ΔTPR``), so that a positive value there means the
    disadvantaged samples suffer more errors of both kinds.

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
        In [-1, 1] with ``privileged_group``, else in [0, 1]; NaN when a rate is undefined
        on one side (no positives or no negatives).

    See Also
    --------
    average_abs_odds_difference : The same with the absolute value of each part.
    equalized_odds_difference : The worst case (or mean) of the error-rate disparities.

    References
    ----------
    .. [1] M. Hardt, E. Price and N. Srebro, "Equality of Opportunity in Supervised Learning",
       NeurIPS 2016.
    .. [2] R. K. E. Bellamy et al., "AI Fairness 360: An Extensible Toolkit for Detecting and
       Mitigating Algorithmic Bias", IBM Journal of Research and Development, 2019.

    Examples
    --------
    >>> from skfair.metrics import average_odds_difference
    >>> y_true = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> g = ["d", "d", "d", "d", "p", "p", "p", "p"]
    >>> average_odds_difference(y_true, y_pred, sensitive_features=g, privileged_group="p")
    0.5
    """
    fpr, tpr = _fpr_tpr_gaps(
        y_true,
        y_pred,
        sensitive_features,
        privileged_group,
        disadvantaged,
        pos_label,
        sample_weight,
        ratio=False,
    )
    return float(furthest_from_parity((fpr + tpr) / 2))


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def average_abs_odds_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """Average absolute odds difference: the mean of the absolute FPR and TPR disparities.

    With ``privileged_group``, returns ``(|FPR(dis) - FPR(priv)| + |TPR(dis) - TPR(priv)|) /
    2``, aif360's ``average_abs_odds_difference`` (``average_odds_error`` in its scikit-learn
    API); the parts cannot cancel. Without, returns ``(D_FPR + D_TPR) / 2`` as
    :func:`average_odds_difference`.

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
        In [0, 1]; NaN when a rate is undefined on one side.

    See Also
    --------
    average_odds_difference : The signed version.

    References
    ----------
    .. [1] R. K. E. Bellamy et al., "AI Fairness 360: An Extensible Toolkit for Detecting and
       Mitigating Algorithmic Bias", IBM Journal of Research and Development, 2019.

    Examples
    --------
    >>> from skfair.metrics import average_abs_odds_difference
    >>> y_true = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> y_pred = [1, 1, 0, 0, 1, 0, 1, 0]
    >>> g = ["d", "d", "d", "d", "p", "p", "p", "p"]
    >>> average_abs_odds_difference(y_true, y_pred, sensitive_features=g, privileged_group="p")
    0.5
    """
    fpr, tpr = _fpr_tpr_gaps(
        y_true,
        y_pred,
        sensitive_features,
        privileged_group,
        disadvantaged,
        pos_label,
        sample_weight,
        ratio=False,
    )
    return float(furthest_from_parity((abs(fpr) + abs(tpr)) / 2))


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def true_negative_rate_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """True-negative-rate (specificity) disparity between groups.

    ``TNR(S) = P(y_pred != + | y_true != +, S) = 1 - FPR(S)``. With ``privileged_group``,
    returns ``TNR(dis) - TNR(priv)``, the negative of :func:`false_positive_rate_difference`;
    otherwise ``max - min`` over the groups. A group without negatives is left out, with a
    warning.

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
        Signed difference in [-1, 1] with ``privileged_group``, else in [0, 1]. NaN, with an
        :class:`~sklearn.exceptions.UndefinedMetricWarning`, where fewer than two groups have
        a defined rate (or a compared side has none).

    See Also
    --------
    false_positive_rate_difference : The complementary rate.

    References
    ----------
    .. [1] M. Hardt, E. Price and N. Srebro, "Equality of Opportunity in Supervised Learning",
       NeurIPS 2016.
    .. [2] A. Chouldechova, "Fair Prediction with Disparate Impact: A Study of Bias in
       Recidivism Prediction Instruments", Big Data 5(2), 2017.

    Examples
    --------
    >>> from skfair.metrics import true_negative_rate_difference
    >>> y_true = [0, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 0, 1, 0, 0, 1]
    >>> g = ["a", "a", "a", "b", "b", "b"]
    >>> true_negative_rate_difference(y_true, y_pred, sensitive_features=g, privileged_group="b")
    -0.5
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_difference(
        *rate_parts(table, "true_negative_rate"),
        groups,
        privileged_group,
        measure="true negative rate",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def true_positive_rate_ratio(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """True-positive-rate ratio between groups.

    With ``privileged_group``, returns ``TPR(dis) / TPR(priv)``; otherwise
    ``min_g TPR_g / max_g TPR_g`` (fairlearn's ``true_positive_rate_ratio``). A zero
    denominator gives NaN with a warning; groups without positives are left out.

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
        1.0 means parity.

    See Also
    --------
    true_positive_rate_difference : The difference of the same rates.

    References
    ----------
    .. [1] M. Hardt, E. Price and N. Srebro, "Equality of Opportunity in Supervised Learning",
       NeurIPS 2016.
    .. [2] R. K. E. Bellamy et al., "AI Fairness 360: An Extensible Toolkit for Detecting and
       Mitigating Algorithmic Bias", IBM Journal of Research and Development 63(4/5), 2019.

    Examples
    --------
    >>> from skfair.metrics import true_positive_rate_ratio
    >>> y_true = [1, 1, 0, 1, 1, 0]
    >>> y_pred = [1, 1, 0, 1, 0, 0]
    >>> true_positive_rate_ratio(y_true, y_pred, sensitive_features=list("aaabbb"))
    0.5
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_ratio(
        *rate_parts(table, "true_positive_rate"),
        groups,
        privileged_group,
        measure="true positive rate",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def false_positive_rate_ratio(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """False-positive-rate ratio between groups.

    With ``privileged_group``, returns ``FPR(dis) / FPR(priv)``; otherwise
    ``min_g FPR_g / max_g FPR_g`` (fairlearn's ``false_positive_rate_ratio``). A zero
    denominator gives NaN with a warning; groups without negatives are left out.

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
        1.0 means parity.

    See Also
    --------
    false_positive_rate_difference : The difference of the same rates.

    References
    ----------
    .. [1] R. K. E. Bellamy et al., "AI Fairness 360: An Extensible Toolkit for Detecting and
       Mitigating Algorithmic Bias", IBM Journal of Research and Development 63(4/5), 2019.
    .. [2] H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn:
       Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023.

    Examples
    --------
    >>> from skfair.metrics import false_positive_rate_ratio
    >>> y_true = [0, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 0, 1, 1, 1, 1]
    >>> false_positive_rate_ratio(y_true, y_pred, sensitive_features=list("aaabbb"))
    0.5
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_ratio(
        *rate_parts(table, "false_positive_rate"),
        groups,
        privileged_group,
        measure="false positive rate",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, prefer_skip_nested_validation=True)
def error_rate_ratio(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """Error-rate ratio between groups.

    ``ERR(S) = P(y_pred != y_true | S)``. With ``privileged_group``, returns
    ``ERR(dis) / ERR(priv)`` (aif360's ``error_rate_ratio``); otherwise ``min_g ERR_g /
    max_g ERR_g`` (fairlearn's ``error_rate_ratio``). A zero denominator gives NaN with a
    warning.

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
        1.0 means parity.

    See Also
    --------
    accuracy_difference : The difference of the complementary rate.

    References
    ----------
    .. [1] R. K. E. Bellamy et al., "AI Fairness 360: An Extensible Toolkit for Detecting and
       Mitigating Algorithmic Bias", IBM Journal of Research and Development 63(4/5), 2019.

    Examples
    --------
    >>> from skfair.metrics import error_rate_ratio
    >>> y_true = [0, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 0, 1, 1, 1, 1]
    >>> error_rate_ratio(y_true, y_pred, sensitive_features=list("aaabbb"), privileged_group="a")
    2.0
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_ratio(
        *_error(table), groups, privileged_group, measure="error rate", disadvantaged=disadvantaged
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(
    {**_BINARY_CONSTRAINTS, "agg": [StrOptions(set(_AGGREGATIONS))]},
    prefer_skip_nested_validation=True,
)
def equalized_odds_ratio(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
    agg="worst_case",
):
    """Ratio form of equalized odds: the TPR and FPR ratios combined.

    Unsigned (``privileged_group=None``), with ``R_X = min_g X_g / max_g X_g``:
    ``agg="worst_case"`` gives ``min(R_TPR, R_FPR)`` and ``agg="mean"`` gives
    ``(R_TPR + R_FPR) / 2``, as fairlearn's ``equalized_odds_ratio``.

    With ``privileged_group``, ``r_X = X(dis) / X(priv)``: ``agg="worst_case"`` gives
    whichever of ``r_TPR`` and ``r_FPR`` is further from parity (the smaller
    ``min(r, 1 / r)``; ``r_FPR`` on ties), and ``agg="mean"`` gives ``(r_TPR + r_FPR) / 2``.
    An undefined component is left out of the worst case and makes the mean NaN.

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
    agg : {"worst_case", "mean"}, default="worst_case"
        Combine the two rates' ratios: the one further from parity, or their mean.

    Returns
    -------
    float
        1.0 means parity.

    See Also
    --------
    equalized_odds_difference : The same comparison as a difference.

    References
    ----------
    .. [1] M. Hardt, E. Price and N. Srebro, "Equality of Opportunity in Supervised Learning",
       NeurIPS 2016.
    .. [2] H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn:
       Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023.

    Examples
    --------
    >>> from skfair.metrics import equalized_odds_ratio
    >>> y_true = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> y_pred = [1, 1, 1, 0, 1, 0, 1, 0]
    >>> equalized_odds_ratio(y_true, y_pred, sensitive_features=list("aaaabbbb"))
    0.5
    """
    if agg not in _AGGREGATIONS:
        raise ValueError(f"agg must be 'worst_case' or 'mean', got {agg!r}.")
    fpr, tpr = _fpr_tpr_gaps(
        y_true,
        y_pred,
        sensitive_features,
        privileged_group,
        disadvantaged,
        pos_label,
        sample_weight,
        ratio=True,
    )
    if agg == "mean":
        combined = (fpr + tpr) / 2
    else:
        # Per side, the component further from parity (the FPR on ties); NaN left out.
        with np.errstate(divide="ignore"):
            fpr_distance, tpr_distance = np.abs(np.log(fpr)), np.abs(np.log(tpr))
        combined = np.where(np.isnan(tpr) | (fpr_distance >= tpr_distance), fpr, tpr)
    return float(furthest_from_parity(combined, ratio=True))
