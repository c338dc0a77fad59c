"""Group disparities from per-group sufficient statistics.

Every group metric of skfair is built in two steps (DESIGN.md, "Metrics"): (1) per-group sums
obtained with one ``np.bincount`` over the joint group codes, (2) a small formula on those sums.
This module holds both steps for base measures that are a ratio of two weighted sums per group
(a selection rate, a true-positive rate, a mean of a per-sample value):

- :func:`_confusion_table` and :func:`_group_sums` compute the sums;
- :func:`_rate_difference` and :func:`_rate_ratio` turn the per-group numerators and
  denominators into the signed (``privileged_group`` given: disadvantaged minus privileged,
  the disadvantaged samples pooled) or unsigned (largest gap between groups) disparity;
- :func:`_group_mean_difference` chains both for "weighted mean of a per-sample vector per
  group, then the gap" (stability and uncertainty disparities).

Sums add up over chunks of data, so the same formulas serve streamed data.
"""

from __future__ import annotations

import warnings

import numpy as np

from skfair._groups import privileged_mask

# Cells of the binary confusion table, in the order of `_confusion_table`'s columns: the cell
# of a sample is 2 * (y_true == pos_label) + (y_pred == pos_label).
TN, FP, FN, TP = range(4)


def _confusion_table(groups, y_true_positive, y_pred_positive, sample_weight=None):
    """Weighted counts ``[tn, fp, fn, tp]`` of each group, from one bincount.

    Parameters
    ----------
    groups : GroupEncoding
    y_true_positive : ndarray of bool of shape (n_samples,) or None
        ``y_true == pos_label``; None counts every sample as a true negative (for metrics that
        ignore ``y_true``).
    y_pred_positive : ndarray of bool of shape (n_samples,)
    sample_weight : ndarray of shape (n_samples,), default=None

    Returns
    -------
    table : ndarray of shape (n_groups, 4)
    """
    cells = groups.codes * 4 + y_pred_positive
    if y_true_positive is not None:
        cells = cells + 2 * y_true_positive
    counts = np.bincount(cells, weights=sample_weight, minlength=4 * groups.n_groups)
    return counts.reshape(groups.n_groups, 4).astype(np.float64, copy=False)


def _group_sums(values, groups, sample_weight=None):
    """Per-group ``(sum of w * values, sum of w)``: numerators and denominators of means."""
    weighted = values if sample_weight is None else sample_weight * values
    numerator = np.bincount(groups.codes, weights=weighted, minlength=groups.n_groups)
    denominator = groups.counts(sample_weight).astype(np.float64, copy=False)
    return numerator, denominator


def _rate_difference(numerator, denominator, groups, privileged_group=None, *, measure):
    """Disparity of the per-group rates ``numerator / denominator``.

    With ``privileged_group``: ``rate(dis) - rate(priv)`` where priv pools the groups named by
    ``privileged_group`` and dis pools all the others. Without: ``max - min`` over the groups
    whose rate is defined (non-zero denominator). Undefined rates are left out with a
    UserWarning naming the groups; fewer than two defined rates give NaN. A single group gives
    0.0 with a warning (unsigned) or raises (signed).

    Parameters
    ----------
    numerator, denominator : ndarray of shape (n_groups,)
        Per-group weighted sums, e.g. from :func:`_confusion_table` or :func:`_group_sums`.
    groups : GroupEncoding
    privileged_group : label, tuple or list of them, default=None
    measure : str
        Name of the rate, used in warnings ("true positive rate").

    Returns
    -------
    float
    """
    if privileged_group is not None:
        dis, priv = _pooled_rates(numerator, denominator, groups, privileged_group, measure)
        return float(dis - priv)
    rates = _defined_rates(numerator, denominator, groups, measure)
    if rates is None:
        return 0.0
    if rates.size < 2:
        return float("nan")
    return float(rates.max() - rates.min())


def _rate_ratio(numerator, denominator, groups, privileged_group=None, *, measure):
    """Ratio of the per-group rates: ``dis / priv`` (signed) or ``min / max`` (unsigned).

    Same conventions as :func:`_rate_difference`; a zero denominator of the ratio gives NaN
    with a warning, and a single group gives 1.0 with a warning.
    """
    if privileged_group is not None:
        dis, priv = _pooled_rates(numerator, denominator, groups, privileged_group, measure)
        if priv == 0:
            warnings.warn(
                f"The {measure} of the privileged group(s) {privileged_group!r} is 0; the ratio "
                "is undefined and NaN is returned.",
                UserWarning,
            )
            return float("nan")
        return float(dis / priv)
    rates = _defined_rates(numerator, denominator, groups, measure)
    if rates is None:
        return 1.0
    if rates.size < 2:
        return float("nan")
    if rates.max() == 0:
        warnings.warn(
            f"The {measure} is 0 in every group; the ratio is undefined and NaN is returned.",
            UserWarning,
        )
        return float("nan")
    return float(rates.min() / rates.max())


def _group_mean_difference(
    values, groups, privileged_group=None, *, sample_weight=None, measure="mean"
):
    """Gap between the per-group weighted means of a per-sample vector ``values``.

    The signed/unsigned rules are those of :func:`_rate_difference`. This is the group step of
    the stability and uncertainty disparities (spec §5.4/§5.6).
    """
    numerator, denominator = _group_sums(values, groups, sample_weight)
    return _rate_difference(numerator, denominator, groups, privileged_group, measure=measure)


def _pooled_rates(numerator, denominator, groups, privileged_group, measure):
    """``(rate(dis), rate(priv))`` with the rows of each side pooled (NaN when undefined)."""
    is_privileged = privileged_mask(groups, privileged_group)
    rates = []
    for side, mask in (("disadvantaged", ~is_privileged), ("privileged", is_privileged)):
        total = denominator[mask].sum()
        if total == 0:
            members = [label for label, m in zip(groups.labels, mask, strict=True) if m]
            warnings.warn(
                f"The {measure} is undefined for the {side} samples (groups {members}): they "
                "have no (weight in the) samples it is computed on. NaN is returned.",
                UserWarning,
            )
            rates.append(float("nan"))
        else:
            rates.append(numerator[mask].sum() / total)
    return rates


def _defined_rates(numerator, denominator, groups, measure):
    """Rates of the groups with a non-zero denominator; None when only one group exists."""
    if groups.n_groups < 2:
        warnings.warn(
            f"Only one group ({groups.labels}) is present in the sensitive features; the "
            "disparity between groups is reported as no disparity.",
            UserWarning,
        )
        return None
    defined = denominator > 0
    if not defined.all():
        undefined = [label for label, d in zip(groups.labels, defined, strict=True) if not d]
        warnings.warn(
            f"The {measure} is undefined for group(s) {undefined}: they have no (weight in the) "
            "samples it is computed on. They are left out of the comparison.",
            UserWarning,
        )
    return numerator[defined] / denominator[defined]
