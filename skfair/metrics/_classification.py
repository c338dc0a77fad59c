"""Group disparities of hard predictions (binary and multi-class).

Binary-label metrics compare a base measure -- selection rate, true/false
positive/negative rate, accuracy -- between groups. They share one count table per group,
``[tn, fp, fn, tp]`` from one ``np.bincount`` over the joint group codes, and a formula from
:mod:`skfair._stats._aggregate`:

- ``privileged_group`` given: signed ``measure(dis) - measure(priv)``, where priv pools the
  samples of the named group(s) and dis pools all the others (ratios: ``dis / priv``);
- ``privileged_group=None``: the largest gap between any two groups, ``max - min`` (ratios:
  ``min / max``).

Multi-class metrics compare each group with the whole population, class by class: ``U_DP``
and ``U_EO``, the multi-class demographic parity (Calders, Kamiran and Pechenizkiy, 2009) and
equalized odds (Hardt, Price and Srebro, 2016) unfairness in the form of Denis, Elie, Hebiri
and Hu, "Fairness guarantee in multi-class classification" (arXiv:2109.13642, 2021).
Continuous outputs are binned at quantile cut-offs of ``y_true``.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.utils.multiclass import type_of_target

from skfair._dask import align, dask_dispatch, reduce_blocks, table_plan
from skfair._dask._columns import BinnedScores
from skfair._stats._aggregate import (
    DISADVANTAGED,
    furthest_from_parity,
    rate_difference,
    rate_ratio,
    signed_gaps,
    warn_single_group,
)
from skfair._stats._counts import ValueCount, confusion_table, rate_parts
from skfair._stats._sorted import RankSelection, linear_quantiles
from skfair._utils._compat import (
    SENSITIVE_FEATURES_CONSTRAINT,
    Integral,
    Real,
    StrOptions,
    validate_params,
)
from skfair._utils._groups import factorize_groups
from skfair._utils._validation import (
    binarize,
    check_groups,
    check_label_pair,
    check_labels,
    check_lengths,
    check_scores,
    check_weights,
)

_BINARY_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_pred": ["array-like"],
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    "privileged_group": "no_validation",
    "disadvantaged": [StrOptions(set(DISADVANTAGED))],
    "pos_label": [Real, str, "boolean", None],
    "sample_weight": ["array-like", None],
}
_MULTICLASS_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_pred": ["array-like"],
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    # Values below 2 get their own message in _bin_outputs.
    "bins": [Integral, "array-like"],
    "labels": ["array-like", None],
    "sample_weight": ["array-like", None],
}
_VALIDATE = {"prefer_skip_nested_validation": True}

# On dask input: the frequency table of (y_true, y_pred, sensitive values, weights), summed
# over the partitions, is the count table's sufficient statistic (at most n_groups x
# n_labels**2 rows, whatever n).
LABEL_TABLE = table_plan()
# The same, for metrics of y_pred alone (y_true is only checked for its length).
PREDICTION_TABLE = table_plan(ignored=lambda arguments: {"y_true"})

# ----------------------------------------------------------------------------------------------
# binary-label metrics


@dask_dispatch(PREDICTION_TABLE)
@validate_params(_BINARY_CONSTRAINTS, **_VALIDATE)
def statistical_parity_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """Selection-rate disparity between groups.

    ``SR(S) = P(y_pred = pos_label | S)``. With ``privileged_group``, returns
    ``SR(dis) - SR(priv)`` (Virny's ``Statistical_Parity_Difference``); otherwise the largest
    gap ``max_g SR_g - min_g SR_g`` (fairlearn's ``demographic_parity_difference``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored (accepted for a uniform signature); may be None.
    y_pred : array-like of shape (n_samples,)
        Predicted class labels. Continuous scores or probabilities raise a ValueError.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes define intersectional groups.
    privileged_group : label, tuple of labels, or list of them, default=None
        Group(s) whose samples form the privileged side; every other sample is pooled into the
        disadvantaged side. A tuple gives one value per attribute for 2-D input.
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
    disparate_impact_ratio : The same rates compared as a ratio.
    demographic_parity_unfairness : The multi-class version.
    conditional_demographic_disparity : The disparity within strata of control features.

    References
    ----------
    .. [1] T. Calders and S. Verwer, "Three naive Bayes approaches for discrimination-free
       classification", Data Mining and Knowledge Discovery 21(2), 2010.
    .. [2] H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn:
       Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023.

    Examples
    --------
    >>> from skfair.metrics import statistical_parity_difference
    >>> y_pred = [1, 1, 0, 1, 0, 0]
    >>> sex = ["F", "F", "F", "M", "M", "M"]
    >>> round(statistical_parity_difference(None, y_pred, sensitive_features=sex), 3)
    0.333
    >>> spd = statistical_parity_difference(
    ...     None, y_pred, sensitive_features=sex, privileged_group="F"
    ... )
    >>> round(spd, 3)
    -0.333
    """
    groups, table = _binary_confusion(
        y_true, y_pred, sensitive_features, pos_label, sample_weight, needs_y_true=False
    )
    return rate_difference(
        *rate_parts(table, "selection_rate"),
        groups,
        privileged_group,
        measure="selection rate",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(PREDICTION_TABLE)
@validate_params(_BINARY_CONSTRAINTS, **_VALIDATE)
def disparate_impact_ratio(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """Selection-rate ratio between groups.

    With ``privileged_group``, returns ``SR(dis) / SR(priv)`` (Virny's ``Disparate_Impact``,
    aif360's ``disparate_impact_ratio``); otherwise ``min_g SR_g / max_g SR_g`` (fairlearn's
    ``demographic_parity_ratio``). A zero denominator gives NaN with a warning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored; may be None.
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
    statistical_parity_difference : The same rates compared as a difference.

    References
    ----------
    .. [1] M. Feldman, S. A. Friedler, J. Moeller, C. Scheidegger and S. Venkatasubramanian,
       "Certifying and removing disparate impact", KDD 2015.
    .. [2] R. K. E. Bellamy et al., "AI Fairness 360: An Extensible Toolkit for Detecting and
       Mitigating Algorithmic Bias", IBM Journal of Research and Development 63(4/5), 2019.

    Examples
    --------
    >>> from skfair.metrics import disparate_impact_ratio
    >>> y_pred = [1, 1, 0, 1, 0, 0]
    >>> sex = ["F", "F", "F", "M", "M", "M"]
    >>> disparate_impact_ratio(None, y_pred, sensitive_features=sex, privileged_group="F")
    0.5
    """
    groups, table = _binary_confusion(
        y_true, y_pred, sensitive_features, pos_label, sample_weight, needs_y_true=False
    )
    return rate_ratio(
        *rate_parts(table, "selection_rate"),
        groups,
        privileged_group,
        measure="selection rate",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, **_VALIDATE)
def true_positive_rate_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """True-positive-rate (recall, equal opportunity) disparity between groups.

    ``TPR(S) = P(y_pred = + | y_true = +, S)``. With ``privileged_group``, returns
    ``TPR(dis) - TPR(priv)`` (Virny's ``Equalized_Odds_TPR``); otherwise ``max - min`` over the
    groups (fairlearn's ``true_positive_rate_difference``). A group without positives has an
    undefined TPR: it is left out, with a warning.

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
    true_positive_rate_ratio : The same rates compared as a ratio.
    false_negative_rate_difference : The complementary rate, ``FNR = 1 - TPR``.
    equalized_odds_difference : True- and false-positive rates together.

    References
    ----------
    .. [1] M. Hardt, E. Price and N. Srebro, "Equality of Opportunity in Supervised Learning",
       NeurIPS 2016.
    .. [2] H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn:
       Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023.

    Examples
    --------
    >>> from skfair.metrics import true_positive_rate_difference
    >>> y_true = [1, 1, 0, 1, 1, 0]
    >>> y_pred = [1, 1, 0, 1, 0, 0]
    >>> g = ["a", "a", "a", "b", "b", "b"]
    >>> true_positive_rate_difference(y_true, y_pred, sensitive_features=g, privileged_group="a")
    -0.5
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_difference(
        *rate_parts(table, "true_positive_rate"),
        groups,
        privileged_group,
        measure="true positive rate",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, **_VALIDATE)
def false_negative_rate_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """False-negative-rate disparity between groups.

    ``FNR(S) = P(y_pred != + | y_true = +, S) = 1 - TPR(S)``. With ``privileged_group``,
    returns ``FNR(dis) - FNR(priv)`` (Virny's ``Equalized_Odds_FNR``), the negative of
    :func:`true_positive_rate_difference`; otherwise ``max - min`` over the groups.

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
    true_positive_rate_difference : The complementary rate, ``TPR = 1 - FNR``.
    equalized_odds_difference : The false-positive and false-negative rates together.

    References
    ----------
    .. [1] M. Hardt, E. Price and N. Srebro, "Equality of Opportunity in Supervised Learning",
       NeurIPS 2016.
    .. [2] A. Chouldechova, "Fair Prediction with Disparate Impact: A Study of Bias in
       Recidivism Prediction Instruments", Big Data 5(2), 2017.

    Examples
    --------
    >>> from skfair.metrics import false_negative_rate_difference
    >>> y_true = [1, 1, 0, 1, 1, 0]
    >>> y_pred = [1, 1, 0, 1, 0, 0]
    >>> g = ["a", "a", "a", "b", "b", "b"]
    >>> false_negative_rate_difference(y_true, y_pred, sensitive_features=g, privileged_group="a")
    0.5
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_difference(
        *rate_parts(table, "false_negative_rate"),
        groups,
        privileged_group,
        measure="false negative rate",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BINARY_CONSTRAINTS, **_VALIDATE)
def false_positive_rate_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """False-positive-rate disparity between groups.

    ``FPR(S) = P(y_pred = + | y_true != +, S)``. With ``privileged_group``, returns
    ``FPR(dis) - FPR(priv)`` (Virny's ``Equalized_Odds_FPR``); otherwise ``max - min`` over the
    groups (fairlearn's ``false_positive_rate_difference``). A group without negatives is left
    out, with a warning.

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
    false_positive_rate_ratio : The same rates compared as a ratio.
    true_negative_rate_difference : The complementary rate, ``TNR = 1 - FPR``.
    equalized_odds_difference : True- and false-positive rates together.

    References
    ----------
    .. [1] M. Hardt, E. Price and N. Srebro, "Equality of Opportunity in Supervised Learning",
       NeurIPS 2016.
    .. [2] A. Chouldechova, "Fair Prediction with Disparate Impact: A Study of Bias in
       Recidivism Prediction Instruments", Big Data 5(2), 2017.

    Examples
    --------
    >>> from skfair.metrics import false_positive_rate_difference
    >>> y_true = [0, 0, 1, 0, 0, 1]
    >>> y_pred = [1, 0, 1, 0, 0, 1]
    >>> g = ["a", "a", "a", "b", "b", "b"]
    >>> false_positive_rate_difference(y_true, y_pred, sensitive_features=g)
    0.5
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return rate_difference(
        *rate_parts(table, "false_positive_rate"),
        groups,
        privileged_group,
        measure="false positive rate",
        disadvantaged=disadvantaged,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params({**_BINARY_CONSTRAINTS, "agg": [StrOptions({"worst_case", "mean"})]}, **_VALIDATE)
def equalized_odds_difference(
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
    """Disparity of equalized odds: the FPR and FNR (or TPR) disparities combined.

    Unsigned (``privileged_group=None``), with ``D_X = max_g X_g - min_g X_g``:
    ``agg="worst_case"`` gives ``max(D_TPR, D_FPR)`` and ``agg="mean"`` gives
    ``(D_TPR + D_FPR) / 2``, as fairlearn's ``equalized_odds_difference``.

    Signed (``privileged_group`` given), with ``ΔX = X(dis) - X(priv)`` on the two error rates
    so that a positive value means that the disadvantaged samples suffer more errors:
    ``agg="worst_case"`` gives whichever of ``ΔFPR`` and ``ΔFNR`` has the larger absolute
    value, sign kept (``ΔFPR`` on ties), and ``agg="mean"`` gives ``(ΔFPR + ΔFNR) / 2``.

    An undefined component (no positives or no negatives) is left out of the worst case and
    makes the mean NaN.

    The signed mean is not aif360's average odds difference: ``(ΔFPR + ΔFNR) / 2 = (ΔFPR -
    ΔTPR) / 2`` here, ``(ΔFPR + ΔTPR) / 2`` in aif360 (:func:`average_odds_difference`), so
    the TPR part enters with opposite signs; the unsigned means agree.

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
        Combine the two rates' disparities: the larger one, or their mean.

    Returns
    -------
    float
        Signed in [-1, 1] with ``privileged_group`` (positive: the disadvantaged samples suffer more
        errors), else in [0, 1]; NaN when no component is defined (or, with ``agg="mean"``, one
        is not).

    See Also
    --------
    equalized_odds_ratio : The same rates compared as ratios.
    average_odds_difference : The signed mean of the FPR and TPR disparities, as aif360.
    equalized_odds_unfairness : The multi-class version.

    References
    ----------
    .. [1] M. Hardt, E. Price and N. Srebro, "Equality of Opportunity in Supervised Learning",
       NeurIPS 2016.
    .. [2] H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn:
       Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023.

    Examples
    --------
    >>> from skfair.metrics import equalized_odds_difference
    >>> y_true = [1, 0, 1, 0, 1, 0]
    >>> y_pred = [1, 0, 0, 0, 1, 0]
    >>> g = ["d", "d", "d", "p", "p", "p"]
    >>> equalized_odds_difference(y_true, y_pred, sensitive_features=g, privileged_group="p")
    0.5
    >>> equalized_odds_difference(y_true, y_pred, sensitive_features=g, agg="mean")
    0.25
    """
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    if privileged_group is None:
        # Unsigned, D_FNR == D_TPR, so the FNR serves both forms.
        fpr_gap = np.atleast_1d(
            rate_difference(
                *rate_parts(table, "false_positive_rate"), groups, measure="false positive rate"
            )
        )
        fnr_gap = np.atleast_1d(
            rate_difference(
                *rate_parts(table, "false_negative_rate"), groups, measure="false negative rate"
            )
        )
    else:
        # One entry per compared side: the two gaps are combined side by side.
        sides = {"privileged_group": privileged_group, "disadvantaged": disadvantaged}
        fpr_gap = signed_gaps(
            *rate_parts(table, "false_positive_rate"),
            groups,
            measure="false positive rate",
            **sides,
        )
        fnr_gap = signed_gaps(
            *rate_parts(table, "false_negative_rate"),
            groups,
            measure="false negative rate",
            **sides,
        )
    if agg == "mean":
        combined = (fpr_gap + fnr_gap) / 2
    else:
        combined = np.where(np.isnan(fnr_gap) | (abs(fpr_gap) >= abs(fnr_gap)), fpr_gap, fnr_gap)
    return float(furthest_from_parity(combined))


@dask_dispatch(LABEL_TABLE)
@validate_params({k: v for k, v in _BINARY_CONSTRAINTS.items() if k != "pos_label"}, **_VALIDATE)
def accuracy_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    sample_weight=None,
):
    """Accuracy disparity between groups, for any discrete labels.

    ``ACC(S) = P(y_pred = y_true | S)``. With ``privileged_group``, returns
    ``ACC(dis) - ACC(priv)`` (Virny's ``Accuracy_Difference``); otherwise ``max - min`` over the
    groups (fairlearn's ``accuracy_score_difference``).

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
    error_rate_ratio : The complementary rate compared as a ratio.
    equalized_odds_difference : The two kinds of error separately.

    References
    ----------
    .. [1] H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn:
       Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023.
    .. [2] D. Herasymuk, F. Arif Khan and J. Stoyanovich, "Responsible Model Selection with
       Virny and VirnyView", SIGMOD-Companion 2024.

    Examples
    --------
    >>> from skfair.metrics import accuracy_difference
    >>> y_true = ["x", "y", "z", "x", "y", "z"]
    >>> y_pred = ["x", "y", "x", "x", "y", "z"]
    >>> g = ["d", "d", "d", "p", "p", "p"]
    >>> acc = accuracy_difference(y_true, y_pred, sensitive_features=g, privileged_group="p")
    >>> round(acc, 3)
    -0.333
    """
    y_true, y_pred, groups, sample_weight = _check_inputs(
        y_true, y_pred, sensitive_features, sample_weight
    )
    correct = np.asarray(y_true == y_pred, dtype=bool)
    # A two-cell table per group: the samples predicted wrongly and rightly.
    table = np.bincount(
        groups.codes * 2 + correct, weights=sample_weight, minlength=2 * groups.n_groups
    ).reshape(groups.n_groups, 2)
    return rate_difference(
        table[:, 1],
        table.sum(axis=1),
        groups,
        privileged_group,
        measure="accuracy",
        disadvantaged=disadvantaged,
    )


# Base measures as (numerator, denominator) over the columns [tn, fp, fn, tp] of the table.


def _check_inputs(y_true, y_pred, sensitive_features, sample_weight, *, needs_y_true=True):
    """Checked label arrays (y_true may stay None), group encoding and weights."""
    if y_true is None and needs_y_true:
        raise ValueError("y_true is None; this metric compares predictions with true labels.")
    n_samples = check_lengths(
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    y_pred = check_labels(y_pred, "y_pred")
    # Metrics of y_pred alone ignore y_true beyond its length.
    y_true = check_labels(y_true, "y_true") if needs_y_true else None
    if y_true is not None:
        check_label_pair(y_true, y_pred)
    groups = check_groups(sensitive_features, n_samples)
    return y_true, y_pred, groups, check_weights(sample_weight, n_samples)


def _binary_confusion(
    y_true, y_pred, sensitive_features, pos_label, sample_weight, *, needs_y_true=True
):
    """Checked inputs -> ``(groups, [tn, fp, fn, tp] table per group)``."""
    y_true, y_pred, groups, sample_weight = _check_inputs(
        y_true, y_pred, sensitive_features, sample_weight, needs_y_true=needs_y_true
    )
    y_true_positive, y_pred_positive = binarize(y_true, y_pred, pos_label)
    return groups, confusion_table(groups, y_true_positive, y_pred_positive, sample_weight)


# ----------------------------------------------------------------------------------------------
# multi-class and binned continuous outputs


_BINNED_DOC = (
    "Dask collections are read partition by partition. Class labels: each partition sends "
    "the frequency table of its distinct (y_true, y_pred, sensitive values) rows, at most "
    "n_groups x n_classes**2 rows. Continuous outputs: the quantile cut-offs are found "
    "first, exactly, from per-partition counts of the leading bits of the values (2**16 "
    "counters per cut-off and pass, two to four passes), then each partition bins its "
    "outputs and sends the table of (groups, bins), at most n_groups x n_bins**2 rows. The "
    "result is exactly the in-memory one."
)


def _binned_on_dask(func, bound):
    """``U_DP`` / ``U_EO`` on dask input: class labels through the frequency table; continuous
    outputs binned per partition at cut-offs found first.

    The quantile cut-offs of integer ``bins`` are order statistics of the reference column,
    found exactly over the partitions (:class:`~skfair._stats._sorted.RankSelection`, two
    to four passes, 2**16 counts per wanted rank and partition) and interpolated as numpy
    does. Each partition then replaces every output by a representative of its bin, and the
    frequency table of (groups, binned outputs) goes to the in-memory formula with the
    cut-offs as explicit ``bins``: at most n_groups x n_bins**2 rows.
    """
    arguments = bound.arguments
    bins = arguments.get("bins", 5)
    outputs = {
        name: arguments[name] for name in ("y_true", "y_pred") if arguments.get(name) is not None
    }
    explicit = not isinstance(bins, numbers.Integral)
    if not explicit:
        n, whole = reduce_blocks(ValueCount(), align(list(outputs.values())))
        if all(whole):
            return LABEL_TABLE(func, bound)
        _check_n_bins(bins)
        source = "y_true" if "y_true" in outputs else "y_pred"

        def order_statistics(ranks):
            selection = RankSelection.start(ranks)
            while not selection.done:
                selection = reduce_blocks(
                    selection, align([outputs[source]]), _finite_chunk, name=source
                )
            return selection.values(ranks)

        cutoffs = linear_quantiles(order_statistics, n, np.linspace(0, 1, bins + 1))
        cutoffs = _distinct_cutoffs(cutoffs, bins, source)
    else:
        cutoffs = _explicit_cutoffs(bins)
    for name, y in outputs.items():
        arguments[name] = BinnedScores(y, cutoffs[1:-1])
    arguments["bins"] = cutoffs
    return LABEL_TABLE(func, bound)


def _finite_chunk(statistic, values, name):
    return statistic.chunk(check_scores(np.asarray(values), name))


@dask_dispatch(_binned_on_dask, doc=_BINNED_DOC)
@validate_params(_MULTICLASS_CONSTRAINTS, **_VALIDATE)
def demographic_parity_unfairness(
    y_true, y_pred, *, sensitive_features, bins=5, labels=None, sample_weight=None
):
    """Multi-class demographic-parity unfairness ``U_DP``.

    ``U_DP = max_{a, k} |P(y_pred = k | A = a) - P(y_pred = k)|``: each group is compared with
    the whole population, class by class. The value is in [0, 1]; 0 means exactly fair.

    Continuous outputs (``type_of_target`` continuous for ``y_pred`` or ``y_true``) are binned
    into classes at quantile cut-offs of ``y_true`` (of ``y_pred`` when ``y_true`` is None); see
    ``bins``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Only used for the cut-offs of continuous outputs (and the class set); may be None.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, or continuous outputs.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes define intersectional groups.
    bins : int or array-like, default=5
        For continuous outputs: ``int K`` gives the cut-offs ``quantile(y_true, [0, 1/K, ...,
        1])`` (linear interpolation, R's type 7); an array gives the cut-offs ``c_0 < ... <
        c_K`` explicitly, and also bins discrete outputs. Bins are right-closed ``(c_{k-1},
        c_k]``; the outer bins extend to -inf and +inf so that every value gets a bin.
        Repeated quantile cut-offs (ties in ``y_true``) are merged with a warning. The
        cut-offs are unweighted, even with ``sample_weight``. They depend on the sample: to
        compare models on fixed classes, compute them once and pass an array.
    labels : array-like, default=None
        Class labels for discrete outputs; default: the sorted union of ``y_true`` and
        ``y_pred``. A value outside ``labels`` raises.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample equally.

    Returns
    -------
    float
        ``U_DP``, in [0, 1]; 0 means exactly fair.

    See Also
    --------
    statistical_parity_difference : The binary disparity of selection rates.
    equalized_odds_unfairness : The multi-class equalized-odds unfairness.

    References
    ----------
    .. [1] C. Denis, R. Elie, M. Hebiri and F. Hu, "Fairness guarantee in multi-class
       classification", arXiv:2109.13642, 2021.
    .. [2] M. Hardt, E. Price and N. Srebro, "Equality of opportunity in supervised
       learning", NeurIPS 2016.

    Examples
    --------
    >>> from skfair.metrics import demographic_parity_unfairness
    >>> y_pred = [0, 1, 1, 1, 2, 0, 0, 0, 1, 1, 2, 2]
    >>> g = ["a"] * 6 + ["b"] * 6
    >>> round(demographic_parity_unfairness(None, y_pred, sensitive_features=g), 4)
    0.0833
    """
    y_true_class, y_pred_class, classes, groups, sample_weight = _check_multiclass_inputs(
        y_true, y_pred, sensitive_features, bins, labels, sample_weight, needs_y_true=False
    )
    n_classes = len(classes)
    counts = np.bincount(
        groups.codes * n_classes + y_pred_class,
        weights=sample_weight,
        minlength=groups.n_groups * n_classes,
    ).reshape(groups.n_groups, n_classes)
    return _max_gap_to_population(counts[:, None, :], groups, strata=None)


@dask_dispatch(_binned_on_dask, doc=_BINNED_DOC)
@validate_params(_MULTICLASS_CONSTRAINTS, **_VALIDATE)
def equalized_odds_unfairness(
    y_true, y_pred, *, sensitive_features, bins=5, labels=None, sample_weight=None
):
    """Multi-class equalized-odds unfairness ``U_EO``.

    ``U_EO = max_{a, k, k'} |P(y_pred = k | y_true = k', A = a) - P(y_pred = k | y_true = k')|``
    with conditional frequencies (joint frequencies ``P(y_pred = k, y_true = k' | A = a)``
    would not vanish for a perfect predictor when the groups' label distributions differ).
    Cells where group ``a`` has no sample with ``y_true = k'`` are undefined and skipped with
    a warning; NaN if all are. The value is in [0, 1]; 0 means exactly fair.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels, or continuous targets (then binned, see ``bins``).
    y_pred : array-like of shape (n_samples,)
        Predicted labels, or continuous outputs.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes define intersectional groups.
    bins : int or array-like, default=5
        Binning of continuous outputs, as in :func:`demographic_parity_unfairness`: quantile
        cut-offs of ``y_true``, the same for ``y_true`` and ``y_pred``.
    labels : array-like, default=None
        Class labels for discrete outputs; default: the sorted union of ``y_true`` and
        ``y_pred``.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample equally.

    Returns
    -------
    float
        ``U_EO``, in [0, 1]; 0 means exactly fair, NaN when every cell is undefined.

    See Also
    --------
    equalized_odds_difference : The binary disparity of error rates.
    demographic_parity_unfairness : The multi-class demographic-parity unfairness.

    References
    ----------
    .. [1] C. Denis, R. Elie, M. Hebiri and F. Hu, "Fairness guarantee in multi-class
       classification", arXiv:2109.13642, 2021.
    .. [2] M. Hardt, E. Price and N. Srebro, "Equality of opportunity in supervised
       learning", NeurIPS 2016.

    Examples
    --------
    >>> from skfair.metrics import equalized_odds_unfairness
    >>> y_true = [0, 0, 1, 1, 2, 2, 0, 0, 0, 1, 1, 2]
    >>> y_pred = [0, 1, 1, 1, 2, 0, 0, 0, 1, 1, 2, 2]
    >>> g = ["a"] * 6 + ["b"] * 6
    >>> round(equalized_odds_unfairness(y_true, y_pred, sensitive_features=g), 4)
    0.3333
    """
    if y_true is None:
        raise ValueError("y_true is None; equalized_odds_unfairness conditions on true labels.")
    y_true_class, y_pred_class, classes, groups, sample_weight = _check_multiclass_inputs(
        y_true, y_pred, sensitive_features, bins, labels, sample_weight, needs_y_true=True
    )
    n_classes = len(classes)
    counts = np.bincount(
        (groups.codes * n_classes + y_true_class) * n_classes + y_pred_class,
        weights=sample_weight,
        minlength=groups.n_groups * n_classes * n_classes,
    ).reshape(groups.n_groups, n_classes, n_classes)
    return _max_gap_to_population(counts, groups, strata=classes)


def _max_gap_to_population(counts, groups, *, strata):
    """``max |N[a, k', k] / N[a, k', :] - M[k', k] / M[k', :]|`` with ``M = sum_a N``.

    ``counts`` has shape (n_groups, n_strata, n_classes): the strata are the true classes k'
    named by ``strata`` (U_EO) or a single stratum, ``strata=None`` (U_DP). Strata of a group
    with no weight are skipped, with a warning when the population has weight there.
    """
    if groups.n_groups < 2:
        warn_single_group(groups, reported="no unfairness (0.0): the group is the population")
        return 0.0
    population = counts.sum(axis=0)
    group_totals = counts.sum(axis=2)
    population_totals = population.sum(axis=1)
    defined = group_totals > 0
    skipped = ~defined & (population_totals > 0)
    if skipped.any():
        if strata is None:
            cells = [groups.labels[a] for a in np.flatnonzero(skipped[:, 0])]
            detail = f"Groups {cells} have no weight"
        else:
            cells = [
                (groups.labels[a], strata[k]) for a, k in zip(*np.nonzero(skipped), strict=True)
            ]
            detail = f"Cells {cells} (group, y_true class) are undefined: the group has no weight"
            detail += " in that class"
        warnings.warn(f"{detail}; they are skipped.", UserWarning)
    if not defined.any():
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        group_rates = counts / group_totals[:, :, None]
        population_rates = population / population_totals[:, None]
    gaps = np.abs(group_rates - population_rates[None])[defined]
    return float(gaps.max())


def _check_multiclass_inputs(
    y_true, y_pred, sensitive_features, bins, labels, sample_weight, *, needs_y_true
):
    """Checked inputs -> ``(y_true classes or None, y_pred classes, class names, groups,
    weights)``."""
    n_samples = check_lengths(
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    groups = check_groups(sensitive_features, n_samples)
    sample_weight = check_weights(sample_weight, n_samples)
    arrays = [np.asarray(y) for y in (y_true, y_pred) if y is not None]
    continuous = any(
        y.dtype.kind in "biuf" and type_of_target(y) in ("continuous", "continuous-multioutput")
        for y in arrays
    )
    explicit_bins = not isinstance(bins, numbers.Integral)
    if continuous or explicit_bins:
        y_true_class, y_pred_class, classes = _bin_outputs(y_true, y_pred, bins)
    else:
        y_true_class, y_pred_class, classes = _class_indices(y_true, y_pred, labels)
    return y_true_class, y_pred_class, classes, groups, sample_weight


def _class_indices(y_true, y_pred, labels):
    """Index of each label in the class set, for y_true (or None) and y_pred; the classes."""
    y_pred = check_labels(y_pred, "y_pred")
    present = [y_pred] if y_true is None else [check_labels(y_true, "y_true"), y_pred]
    # Factorise both arrays at once so that their class indices agree.
    encoding = factorize_groups(np.concatenate(present), n_samples=None)
    codes = encoding.codes
    classes = encoding.labels
    if labels is not None:
        labels = list(np.asarray(labels).tolist())
        if len(set(labels)) != len(labels):
            raise ValueError(f"labels has repeated values: {labels}.")
        position = {label: k for k, label in enumerate(labels)}
        missing = [label for label in encoding.labels if label not in position]
        if missing:
            raise ValueError(
                f"Label(s) {missing} are not in labels={labels}; pass every class label."
            )
        codes = np.asarray([position[label] for label in encoding.labels], dtype=np.intp)[codes]
        classes = labels
    n = y_pred.shape[0]
    y_true_class = None if y_true is None else codes[:n]
    return y_true_class, codes[-n:], classes


def _bin_outputs(y_true, y_pred, bins):
    """Bin indices of y_true (or None) and y_pred at cut-offs of y_true; the bins."""
    y_pred = check_scores(y_pred, "y_pred")
    y_true = None if y_true is None else check_scores(y_true, "y_true")
    if isinstance(bins, numbers.Integral):
        _check_n_bins(bins)
        reference = y_pred if y_true is None else y_true
        cutoffs = linear_quantiles(
            lambda ranks: np.partition(reference, ranks)[ranks],
            reference.shape[0],
            np.linspace(0, 1, bins + 1),
        )
        cutoffs = _distinct_cutoffs(cutoffs, bins, "y_pred" if y_true is None else "y_true")
    else:
        cutoffs = _explicit_cutoffs(bins)
    # Right-closed bins (c_{k-1}, c_k] as in R's cut(); the first bin holds c_0 and everything
    # below, the last everything above c_K, so every value gets a bin (R's cut() would give NA
    # to the minimum c_0 and to values outside (c_0, c_K], and drop them cell by cell).
    inner = cutoffs[1:-1]
    edges = [-np.inf, *inner.tolist(), np.inf]
    classes = [f"({low:.6g}, {high:.6g}]" for low, high in zip(edges[:-1], edges[1:], strict=True)]
    y_pred_class = np.searchsorted(inner, y_pred, side="left")
    y_true_class = None if y_true is None else np.searchsorted(inner, y_true, side="left")
    return y_true_class, y_pred_class, classes


def _check_n_bins(bins):
    if bins < 2:
        raise ValueError(f"bins must be at least 2, got {bins}.")


def _distinct_cutoffs(cutoffs, bins, source):
    """The distinct quantile cut-offs (linear interpolation: numpy's default and R's
    quantile() type 7), with a warning when ties merge some and an error when one bin is
    left."""
    distinct = np.unique(cutoffs)
    if distinct.size < 3:
        # One bin would put every output in the same class: "fair" by construction.
        raise ValueError(
            f"The quantile cut-offs of {source} collapse to {distinct.tolist()}, a single "
            f"bin: {source} takes too few distinct values, so every output would fall in one "
            "class and the unfairness would be 0 whatever the scores. For class labels in "
            "y_true and scores in y_pred, threshold the scores into labels first (e.g. "
            "y_pred > 0.5); otherwise pass explicit cut-offs with bins=[c_0, ..., c_K]."
        )
    if distinct.size < cutoffs.size:
        warnings.warn(
            f"Quantile cut-offs {cutoffs.tolist()} repeat (ties in the data); the repeated "
            f"ones are merged, leaving {max(distinct.size - 1, 1)} bins instead of {bins}.",
            UserWarning,
            stacklevel=4,
        )
    return distinct


def _explicit_cutoffs(bins):
    cutoffs = check_scores(bins, "bins")
    if cutoffs.size < 2 or np.any(np.diff(cutoffs) <= 0):
        raise ValueError(
            f"bins must be at least two strictly increasing cut-offs, got {cutoffs.tolist()}."
        )
    return cutoffs
