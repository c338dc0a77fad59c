"""Weighted count tables: group x y_true x y_pred, group x class, and per-group sums.

Statistic: for binary labels, the weighted counts ``[tn, fp, fn, tp]`` of every group (one
``np.bincount`` over the joint code ``4 * group + 2 * (y_true == pos) + (y_pred == pos)``);
for labels of any number of classes, the weighted count of each class in each group; for a
per-sample value, the per-group ``(sum of w * value, sum of w)``.

Merging: all are sums over samples, so the table of the whole data is the sum of the tables
of its chunks (for the same group encoding).
"""

from __future__ import annotations

import numpy as np

# Cells of the binary confusion table, in the order of `confusion_table`'s columns: the cell
# of a sample is 2 * (y_true == pos_label) + (y_pred == pos_label).
TN, FP, FN, TP = range(4)
_ALL = (TN, FP, FN, TP)

# Every named rate of binary predictions is a ratio of two sums of cells of that table:
# name -> (numerator cells, denominator cells).
RATE_CELLS = {
    "selection_rate": ((FP, TP), _ALL),
    "true_positive_rate": ((TP,), (FN, TP)),
    "false_negative_rate": ((FN,), (FN, TP)),
    "false_positive_rate": ((FP,), (TN, FP)),
    "true_negative_rate": ((TN,), (TN, FP)),
    "positive_predictive_value": ((TP,), (FP, TP)),
    "false_discovery_rate": ((FP,), (FP, TP)),
    "negative_predictive_value": ((TN,), (TN, FN)),
    "false_omission_rate": ((FN,), (TN, FN)),
    "base_rate": ((FN, TP), _ALL),
}


def rate_parts(table, name):
    """Per-group ``(numerator, denominator)`` of the named rate from a ``confusion_table``."""
    numerator, denominator = RATE_CELLS[name]
    return table[:, list(numerator)].sum(axis=1), table[:, list(denominator)].sum(axis=1)


def confusion_table(groups, y_true_positive, y_pred_positive, sample_weight=None):
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


def group_sums(values, groups, sample_weight=None):
    """Per-group ``(sum of w * values, sum of w)``: numerators and denominators of means."""
    weighted = values if sample_weight is None else sample_weight * values
    numerator = np.bincount(groups.codes, weights=weighted, minlength=groups.n_groups)
    denominator = groups.counts(sample_weight).astype(np.float64, copy=False)
    return numerator, denominator


def rescale_weights(sample_weight):
    """Weights divided by a power of two when their sum would overflow float64, else as given.

    Every statistic built on the count tables is a ratio of weighted sums, invariant under a
    common factor of the weights; weights near the float64 limit (1e308) would otherwise
    make the sums infinite and the ratios NaN. Division by a power of two is exact.
    """
    if sample_weight is None or sample_weight.size == 0:
        return sample_weight
    with np.errstate(over="ignore"):
        total = np.sum(sample_weight)
    if np.isfinite(total):
        return sample_weight
    exponent = np.frexp(np.max(sample_weight))[1] + int(np.ceil(np.log2(sample_weight.size)))
    # Two factors, each a normal float64, so that the scaling stays exact.
    half = exponent // 2
    return sample_weight * 2.0**-half * 2.0 ** -(exponent - half)


def class_table(groups, y_codes, n_classes, sample_weight=None):
    """Weighted counts of each class in each group, from one bincount.

    Parameters
    ----------
    groups : GroupEncoding
    y_codes : ndarray of int of shape (n_samples,)
        Class of each sample, in ``range(n_classes)``.
    n_classes : int
    sample_weight : ndarray of shape (n_samples,), default=None

    Returns
    -------
    table : ndarray of shape (n_groups, n_classes)
    """
    counts = np.bincount(
        groups.codes * n_classes + y_codes,
        weights=sample_weight,
        minlength=groups.n_groups * n_classes,
    )
    return counts.reshape(groups.n_groups, n_classes).astype(np.float64, copy=False)
