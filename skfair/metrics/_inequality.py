"""Inequality indices over individual benefits and their between-group parts.

Speicher et al. (2018) measure unfairness as inequality of the benefit ``b_i = y_pred_i -
y_true_i + 1`` (in {0, 1, 2} for binary labels: 0 for a false negative, 1 for a correct
prediction, 2 for a false positive) with the generalized entropy index ``GE(alpha)``. The
benefit takes three values, so every index is a formula on the weighted count table
``[tn, fp, fn, tp]`` (per group for the between-group part): no pass over the samples after
the one ``np.bincount``.
"""

from __future__ import annotations

import numbers
import warnings
from types import SimpleNamespace

import numpy as np

from skfair._compat import SENSITIVE_FEATURES_CONSTRAINT, Real, validate_params
from skfair._dask import dask_dispatch
from skfair._groups import privileged_mask
from skfair._stats._counts import FN, FP, TN, TP, confusion_table
from skfair._validation import binarize, check_labels, check_lengths, check_weights
from skfair.metrics._classification import LABEL_TABLE, _binary_confusion


def _entropy_terms(ratio, alpha):
    """``f(x)`` of ``GE(alpha) = mean f(b_i / mu)``, with ``0 ln 0 = 0`` for ``alpha = 1``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if alpha == 0:
            return -np.log(ratio)
        if alpha == 1:
            return np.where(ratio > 0, ratio * np.log(np.where(ratio > 0, ratio, 1.0)), 0.0)
        return (ratio**alpha - 1) / (alpha * (alpha - 1))


def _generalized_entropy(values, masses, alpha):
    """``GE(alpha)`` of a population where value ``values[k]`` has total weight ``masses[k]``."""
    total = masses.sum()
    mean = (masses * values).sum() / total
    if mean == 0:
        warnings.warn(
            "Every benefit is 0 (every positive is missed and nothing else is present); the "
            "index is undefined and NaN is returned.",
            UserWarning,
        )
        return float("nan")
    present = masses > 0
    terms = _entropy_terms(values[present] / mean, alpha)
    return float((masses[present] * terms).sum() / total)


def _benefit_masses(table):
    """Weights of the benefits (0, 1, 2) in each row of a ``[tn, fp, fn, tp]`` table."""
    return np.stack([table[..., FN], table[..., TN] + table[..., TP], table[..., FP]], axis=-1)


_BENEFITS = np.array([0.0, 1.0, 2.0])
_INDIVIDUAL_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "alpha": [Real],
    "pos_label": [Real, str, "boolean", None],
    "sample_weight": ["array-like", None],
}
_BETWEEN_CONSTRAINTS = {
    **_INDIVIDUAL_CONSTRAINTS,
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    "privileged_group": "no_validation",
}
_VALIDATE = {"prefer_skip_nested_validation": True}


def _check_alpha(alpha):
    if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool) or not np.isfinite(alpha):
        raise ValueError(f"alpha must be a finite real number, got {alpha!r}.")
    return float(alpha)


def _population_table(y_true, y_pred, pos_label, sample_weight):
    """The ``[tn, fp, fn, tp]`` counts of all samples (one group)."""
    if y_true is None:
        raise ValueError("y_true is None; the benefit y_pred - y_true + 1 needs true labels.")
    n_samples = check_lengths(y_true=y_true, y_pred=y_pred, sample_weight=sample_weight)
    y_true = check_labels(y_true, "y_true")
    y_pred = check_labels(y_pred, "y_pred")
    y_true_positive, y_pred_positive = binarize(y_true, y_pred, pos_label)
    one_group = SimpleNamespace(codes=np.zeros(n_samples, dtype=np.intp), n_groups=1)
    weights = check_weights(sample_weight, n_samples)
    return confusion_table(one_group, y_true_positive, y_pred_positive, weights)[0]


@dask_dispatch(LABEL_TABLE)
@validate_params(_INDIVIDUAL_CONSTRAINTS, **_VALIDATE)
def generalized_entropy_index(y_true, y_pred, *, alpha=2, pos_label=None, sample_weight=None):
    """Generalized entropy index of the individual benefits ``y_pred - y_true + 1``.

    ``GE(alpha) = 1 / (n alpha (alpha - 1)) sum_i [(b_i / mu)^alpha - 1]`` for ``alpha`` not
    in {0, 1}, ``(1/n) sum_i (b_i / mu) ln(b_i / mu)`` for ``alpha = 1`` (the Theil index,
    ``0 ln 0 = 0``) and ``-(1/n) sum_i ln(b_i / mu)`` for ``alpha = 0`` (the mean log
    deviation), with ``mu`` the mean benefit; weights replace the means by weighted means.
    0 means every sample gets the same benefit. For ``alpha <= 0`` a false negative (benefit
    0) makes the index infinite.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_pred : array-like of shape (n_samples,)
    alpha : float, default=2
        Sensitivity to the top (large ``alpha``) or bottom (small ``alpha``) of the benefit
        distribution.
    pos_label : int, float, bool or str, default=None
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    float
        Non-negative; NaN (with a warning) when every benefit is 0.

    See Also
    --------
    theil_index : ``alpha = 1``.
    coefficient_of_variation : ``sqrt(2 GE(2))``.
    between_group_generalized_entropy_index : The part due to differences between groups.

    Notes
    -----
    aif360's ``generalized_entropy_index`` agrees for ``alpha`` not 0; for ``alpha = 0`` it
    divides each term by ``mu`` as well.

    References
    ----------
    .. [1] T. Speicher, H. Heidari, N. Grgic-Hlaca, K. P. Gummadi, A. Singla, A. Weller and
       M. B. Zafar, "A Unified Approach to Quantifying Algorithmic Unfairness: Measuring
       Individual & Group Unfairness via Inequality Indices", KDD 2018, Eq. (4).

    Examples
    --------
    >>> from skfair.metrics import generalized_entropy_index
    >>> y_true = [1, 0, 1, 0]
    >>> y_pred = [1, 1, 1, 0]
    >>> round(generalized_entropy_index(y_true, y_pred), 4)
    0.06
    """
    alpha = _check_alpha(alpha)
    table = _population_table(y_true, y_pred, pos_label, sample_weight)
    return _generalized_entropy(_BENEFITS, _benefit_masses(table), alpha)


@dask_dispatch(LABEL_TABLE)
@validate_params(_INDIVIDUAL_CONSTRAINTS, **_VALIDATE)
def theil_index(y_true, y_pred, *, pos_label=None, sample_weight=None):
    """Theil index of the individual benefits: :func:`generalized_entropy_index` at ``alpha = 1``.

    ``T = (1/n) sum_i (b_i / mu) ln(b_i / mu)`` with ``b_i = y_pred_i - y_true_i + 1`` and
    ``0 ln 0 = 0``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_pred : array-like of shape (n_samples,)
    pos_label : int, float, bool or str, default=None
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    float

    See Also
    --------
    generalized_entropy_index : The family.
    between_group_theil_index : The part due to differences between groups.

    References
    ----------
    .. [1] T. Speicher et al., "A Unified Approach to Quantifying Algorithmic Unfairness:
       Measuring Individual & Group Unfairness via Inequality Indices", KDD 2018.

    Examples
    --------
    >>> from skfair.metrics import theil_index
    >>> round(theil_index([1, 0, 1, 0], [1, 1, 1, 0]), 4)
    0.0541
    """
    return generalized_entropy_index(
        y_true, y_pred, alpha=1, pos_label=pos_label, sample_weight=sample_weight
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_INDIVIDUAL_CONSTRAINTS, **_VALIDATE)
def coefficient_of_variation(y_true, y_pred, *, pos_label=None, sample_weight=None):
    """Coefficient of variation of the individual benefits, ``sqrt(2 GE(2)) = std / mean``.

    ``b_i = y_pred_i - y_true_i + 1``; the standard deviation is the population one (divided
    by ``n``, or by the total weight).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_pred : array-like of shape (n_samples,)
    pos_label : int, float, bool or str, default=None
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    float

    See Also
    --------
    generalized_entropy_index : The family (``GE(2) = CV^2 / 2``).
    between_group_coefficient_of_variation : The part due to differences between groups.

    References
    ----------
    .. [1] T. Speicher et al., "A Unified Approach to Quantifying Algorithmic Unfairness:
       Measuring Individual & Group Unfairness via Inequality Indices", KDD 2018.

    Examples
    --------
    >>> from skfair.metrics import coefficient_of_variation
    >>> round(coefficient_of_variation([1, 0, 1, 0], [1, 1, 1, 0]), 4)
    0.3464
    """
    return float(
        np.sqrt(
            2
            * generalized_entropy_index(
                y_true, y_pred, alpha=2, pos_label=pos_label, sample_weight=sample_weight
            )
        )
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BETWEEN_CONSTRAINTS, **_VALIDATE)
def between_group_generalized_entropy_index(
    y_true,
    y_pred,
    *,
    sensitive_features,
    alpha=2,
    privileged_group=None,
    pos_label=None,
    sample_weight=None,
):
    """Between-group part of the generalized entropy index.

    ``GE(alpha)`` of the benefits after replacing each sample's benefit by the mean benefit of
    its group (Speicher et al. 2018, Eq. 6): the inequality that differences between groups
    alone would produce. For ``alpha`` not in {0, 1} it is at most the total
    :func:`generalized_entropy_index` (the within-group part is non-negative). The groups are
    those of ``sensitive_features``; with ``privileged_group`` there are two, the privileged
    group(s) and every other sample pooled (aif360's ``priv_group``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_pred : array-like of shape (n_samples,)
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
    alpha : float, default=2
    privileged_group : label, tuple of labels, or list of them, default=None
    pos_label : int, float, bool or str, default=None
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    float
        Non-negative; 0 when every group has the same mean benefit.

    See Also
    --------
    generalized_entropy_index : The index over individuals.

    References
    ----------
    .. [1] T. Speicher et al., "A Unified Approach to Quantifying Algorithmic Unfairness:
       Measuring Individual & Group Unfairness via Inequality Indices", KDD 2018, Eq. (6).

    Examples
    --------
    >>> from skfair.metrics import between_group_generalized_entropy_index
    >>> y_true = [1, 0, 1, 0]
    >>> y_pred = [1, 1, 1, 0]
    >>> round(between_group_generalized_entropy_index(
    ...     y_true, y_pred, sensitive_features=["a", "a", "b", "b"]), 4)
    0.02
    """
    alpha = _check_alpha(alpha)
    groups, table = _binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    if privileged_group is not None:
        is_privileged = privileged_mask(groups, privileged_group)
        table = np.stack([table[~is_privileged].sum(axis=0), table[is_privileged].sum(axis=0)])
    masses = _benefit_masses(table)
    weights = masses.sum(axis=1)
    present = weights > 0
    group_means = (masses[present] @ _BENEFITS) / weights[present]
    return _generalized_entropy(group_means, weights[present], alpha)


@dask_dispatch(LABEL_TABLE)
@validate_params(_BETWEEN_CONSTRAINTS, **_VALIDATE)
def between_group_theil_index(
    y_true, y_pred, *, sensitive_features, privileged_group=None, pos_label=None, sample_weight=None
):
    """Between-group part of the Theil index (:func:`between_group_generalized_entropy_index`
    at ``alpha = 1``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_pred : array-like of shape (n_samples,)
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
    privileged_group : label, tuple of labels, or list of them, default=None
    pos_label : int, float, bool or str, default=None
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    float

    See Also
    --------
    theil_index : The index over individuals.

    References
    ----------
    .. [1] T. Speicher et al., "A Unified Approach to Quantifying Algorithmic Unfairness:
       Measuring Individual & Group Unfairness via Inequality Indices", KDD 2018.

    Examples
    --------
    >>> from skfair.metrics import between_group_theil_index
    >>> round(between_group_theil_index(
    ...     [1, 0, 1, 0], [1, 1, 1, 0], sensitive_features=["a", "a", "b", "b"]), 4)
    0.0201
    """
    return between_group_generalized_entropy_index(
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        alpha=1,
        privileged_group=privileged_group,
        pos_label=pos_label,
        sample_weight=sample_weight,
    )


@dask_dispatch(LABEL_TABLE)
@validate_params(_BETWEEN_CONSTRAINTS, **_VALIDATE)
def between_group_coefficient_of_variation(
    y_true, y_pred, *, sensitive_features, privileged_group=None, pos_label=None, sample_weight=None
):
    """Between-group coefficient of variation: ``sqrt(2 GE_between(2))``.

    The weighted standard deviation of the group mean benefits (weights: group sizes) over the
    mean benefit.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_pred : array-like of shape (n_samples,)
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
    privileged_group : label, tuple of labels, or list of them, default=None
    pos_label : int, float, bool or str, default=None
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    float

    See Also
    --------
    coefficient_of_variation : The index over individuals.

    References
    ----------
    .. [1] T. Speicher et al., "A Unified Approach to Quantifying Algorithmic Unfairness:
       Measuring Individual & Group Unfairness via Inequality Indices", KDD 2018.

    Examples
    --------
    >>> from skfair.metrics import between_group_coefficient_of_variation
    >>> round(between_group_coefficient_of_variation(
    ...     [1, 0, 1, 0], [1, 1, 1, 0], sensitive_features=["a", "a", "b", "b"]), 4)
    0.2
    """
    return float(
        np.sqrt(
            2
            * between_group_generalized_entropy_index(
                y_true,
                y_pred,
                sensitive_features=sensitive_features,
                alpha=2,
                privileged_group=privileged_group,
                pos_label=pos_label,
                sample_weight=sample_weight,
            )
        )
    )
