"""Weighted count tables: group x y_true x y_pred, group x class, and per-group sums.

Statistic: for binary labels, the weighted counts ``[tn, fp, fn, tp]`` of every group (one
``np.bincount`` over the joint code ``4 * group + 2 * (y_true == pos) + (y_pred == pos)``);
for labels of any number of classes, the weighted count of each class in each group; for a
per-sample value, the per-group ``(sum of w * value, sum of w)``.

Merging: all are sums over samples, so the table of the whole data is the sum of the tables
of its chunks (for the same group encoding).

The bootstrap of a count table (:class:`GroupTableBootstrap`) draws its replicates from the
table itself (a multinomial per group, one group at a time), so it needs no pass over the
samples either.
"""

from __future__ import annotations

from dataclasses import dataclass

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


class GroupTableBootstrap:
    """Replicate count tables ``(n_boot, n_cells)`` of a bootstrap stratified by group, drawn
    one group at a time.

    ``table`` (n_groups, n_cells) holds the weighted counts, ``cell`` the cell of each row,
    ``sample_weight`` the weight of each of its samples and ``frequency`` its number of
    samples (None: one), so that the distinct rows of a frequency table and the samples
    themselves give the same draws. :meth:`draw` gives one group's replicates from ``rng``:
    drawing the groups in order gives the stream of drawing every table at once, and a caller
    can reduce a group's tables before the next is drawn (memory: ``n_boot x n_cells``, not
    ``n_boot x n_groups x n_cells``), or draw a group again from a saved state of ``rng``.

    Resampling the ``n_g`` rows of a group with replacement draws its cell counts from a
    multinomial with the group's cell frequencies: no pass over the samples is needed. With
    weights, rows only matter through how many times each (weight, cell) class is drawn (rows
    of one class are exchangeable), so each group draws one multinomial over its distinct
    weights x the cells, and a class drawn k times adds k times its weight to its cell: the
    same distribution as resampling the rows.
    """

    def __init__(self, table, groups, cell, sample_weight, frequency):
        self.table = table
        self.weighted = sample_weight is not None
        if not self.weighted:
            return
        n_cells = table.shape[1]
        weight_values, weight_codes = np.unique(sample_weight, return_inverse=True)
        n_weights = weight_values.size
        keys, inverse = np.unique(
            (groups.codes.astype(np.int64) * n_weights + weight_codes) * n_cells + cell,
            return_inverse=True,
        )
        class_sizes = np.rint(np.bincount(inverse.reshape(-1), weights=frequency)).astype(np.int64)
        # One row per (group, distinct weight) present, one column per cell.
        group_weight, row = np.unique(keys // n_cells, return_inverse=True)
        self.sizes = np.zeros((group_weight.size, n_cells), dtype=np.int64)
        self.sizes[row, keys % n_cells] = class_sizes
        self.row_weight = weight_values[group_weight % n_weights]
        self.bounds = np.searchsorted(group_weight // n_weights, np.arange(groups.n_groups + 1))

    def draw(self, g, n_boot, rng):
        """The replicate tables of group ``g`` (None, drawing nothing, when it is empty)."""
        if not self.weighted:
            row = self.table[g]
            if not row.sum() > 0:
                return None
            draws = rng.multinomial(int(round(row.sum())), row / row.sum(), size=n_boot)
            return draws.astype(np.float64)
        group_sizes = self.sizes[self.bounds[g] : self.bounds[g + 1]]
        if not group_sizes.size:
            return None
        weights = self.row_weight[self.bounds[g] : self.bounds[g + 1]]
        n_rows = int(group_sizes.sum())
        tables = np.empty((n_boot, self.table.shape[1]))
        # Replicates per call, so that a block of draws holds about 2**22 numbers (legacy
        # multinomial draws replicate after replicate: the blocks do not change the stream).
        block = max(1, (1 << 22) // group_sizes.size)
        for low in range(0, n_boot, block):
            draws = rng.multinomial(
                n_rows, group_sizes.ravel() / n_rows, size=min(block, n_boot - low)
            )
            draws = draws.reshape(draws.shape[0], *group_sizes.shape)
            tables[low : low + draws.shape[0]] = np.einsum("bkc,k->bc", draws, weights)
        return tables


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


@dataclass(frozen=True)
class ValueCount:
    """Number of rows, and for each column whether all its values are whole numbers (class
    labels stored as floats, as opposed to continuous outputs), in two phases."""

    def chunk(self, *columns):
        whole = tuple(
            np.asarray(c).dtype.kind != "f" or bool(np.all(np.mod(c, 1) == 0)) for c in columns
        )
        return np.shape(columns[0])[0], whole

    def merge(self, parts):
        return (
            sum(n for n, _ in parts),
            tuple(all(flags) for flags in zip(*(whole for _, whole in parts), strict=True)),
        )

    def formula(self, merged):
        return merged


@dataclass(frozen=True)
class ArraySums:
    """Arrays of fixed shapes (count tables) that chunks add up, in two phases: ``chunk``
    returns a chunk's arrays, ``merge`` adds them element by element."""

    def chunk(self, *arrays):
        return arrays

    def merge(self, parts):
        return tuple(sum(arrays[1:], arrays[0]) for arrays in zip(*parts, strict=True))

    def formula(self, merged):
        return merged
