"""Mergeable per-partition tables: distinct rows of key columns with their count and weight.

Every distributed computation in skfair reduces each partition to such a table, adds the
tables up (a tree of merges), and hands the small result to the in-memory function with
``sample_weight=`` -- a count table is just a weighted input. Rows are matched by their values,
never by per-partition codes, so partitions need no shared label set: a group or a class that
is absent from some partitions, or a string label seen in one partition only, merges correctly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skfair._dask._detect import import_dask
from skfair._groups import _compact

# Largest number of value combinations counted densely (one bincount) by ``table_of``.
_DENSE_CELLS = 1 << 22
# Arguments of the block function larger than this are sent once, as their own task.
_SHARED_ARGUMENT_BYTES = 1 << 16
# Tables merged at once in each node of the reduction tree.
_MERGE_FAN_IN = 8


@dataclass(frozen=True)
class Table:
    """Distinct rows of the key columns, with how many samples and how much weight each holds.

    Attributes
    ----------
    keys : tuple of ndarray
        One 1-D array per key column; row ``i`` of the table is ``[k[i] for k in keys]``.
    count : ndarray of int64
        Number of samples of each row.
    weight : ndarray of float64 or None
        Total ``sample_weight`` of each row, or None when no weights were given.
    """

    keys: tuple
    count: np.ndarray
    weight: np.ndarray | None

    @property
    def n_rows(self):
        return self.count.shape[0]

    def sample_weight(self):
        """The weight that stands for the samples of each row in a weighted computation."""
        return self.count.astype(np.float64) if self.weight is None else self.weight


def distinct_rows(keys):
    """Inverse index of each sample into the distinct rows, and those rows' keys.

    Columns are factorised one by one and combined two at a time, each combination compacted
    to the pairs present, so that codes never exceed the number of samples.
    """
    n = keys[0].shape[0]
    joint = np.zeros(n, dtype=np.int64)
    n_joint = 1
    for column in keys:
        _, codes = _factorize(column)
        n_values = int(codes.max()) + 1 if n else 0
        present, joint = _compact(joint * n_values + codes, n_joint * n_values)
        n_joint = present.shape[0]
    first = np.zeros(n_joint, dtype=np.intp)
    first[joint[::-1]] = np.arange(n)[::-1]
    return joint, tuple(column[first] for column in keys)


def table_of(keys, sample_weight=None):
    """The table of one partition (1-D numpy key columns of one length, optional weights)."""
    if keys[0].shape[0] == 0:
        return Table(
            keys=tuple(keys), count=np.zeros(0, dtype=np.int64), weight=_empty_weight(sample_weight)
        )
    dense = _dense_joint_codes(keys)
    if dense is not None:
        # Small integer keys: count every combination of values directly, no factorisation.
        joint, dims, lows = dense
        count = np.bincount(joint, minlength=int(np.prod(dims)))
        present = np.flatnonzero(count)
        rows = tuple(
            _from_offsets(index, low, column.dtype)
            for index, low, column in zip(np.unravel_index(present, dims), lows, keys)
        )
        weight = None
        if sample_weight is not None:
            weight = np.bincount(joint, weights=sample_weight, minlength=count.shape[0])[present]
        return Table(keys=rows, count=count[present].astype(np.int64), weight=weight)
    inverse, rows = distinct_rows(keys)
    n_rows = rows[0].shape[0]
    count = np.bincount(inverse, minlength=n_rows).astype(np.int64)
    weight = None
    if sample_weight is not None:
        weight = np.bincount(inverse, weights=sample_weight, minlength=n_rows)
    return Table(keys=rows, count=count, weight=weight)


def _dense_joint_codes(keys):
    """``(joint code, dims, lows)`` when every key column holds integers (or booleans) whose
    ranges multiply to at most ``_DENSE_CELLS`` combinations; None otherwise."""
    if any(column.dtype.kind not in "biu" for column in keys):
        return None
    lows, dims = [], []
    for column in keys:
        values = column.view(np.uint8) if column.dtype.kind == "b" else column
        low, high = int(values.min()), int(values.max())
        lows.append(low)
        dims.append(high - low + 1)
    if np.prod(dims, dtype=np.float64) > _DENSE_CELLS:
        return None
    joint = np.zeros(keys[0].shape[0], dtype=np.int64)
    for column, low, dim in zip(keys, lows, dims):
        values = column.view(np.uint8) if column.dtype.kind == "b" else column
        joint *= dim
        joint += values
        if low:
            joint -= low
    return joint, tuple(dims), lows


def _from_offsets(index, low, dtype):
    values = index + low
    return values.astype(bool) if dtype.kind == "b" else values.astype(dtype)


def merge_tables(*tables):
    """Add tables up: rows with equal keys are merged and their counts and weights summed."""
    tables = [t for t in tables if t.n_rows] or list(tables[:1])
    if len(tables) == 1:
        return tables[0]
    keys = [_concatenate([t.keys[j] for t in tables]) for j in range(len(tables[0].keys))]
    count = np.concatenate([t.count for t in tables])
    inverse, rows = distinct_rows(keys)
    n_rows = rows[0].shape[0]
    summed_count = np.zeros(n_rows, dtype=np.int64)
    np.add.at(summed_count, inverse, count)
    weight = None
    if tables[0].weight is not None:
        weight = np.bincount(
            inverse, weights=np.concatenate([t.weight for t in tables]), minlength=n_rows
        )
    return Table(keys=rows, count=summed_count, weight=weight)


@dataclass(frozen=True)
class HistogramTable:
    """Distinct rows of the key columns, each with a histogram (a row of ``counts``)."""

    keys: tuple
    counts: np.ndarray  # shape (n_rows, n_bins), int64

    @property
    def n_rows(self):
        return self.counts.shape[0]


def histogram_table_of(keys, bin_index, n_bins):
    """Histograms of ``bin_index`` (in ``range(n_bins)``) per distinct row of ``keys``."""
    if keys[0].shape[0] == 0:
        return HistogramTable(keys=tuple(keys), counts=np.zeros((0, n_bins), dtype=np.int64))
    inverse, rows = distinct_rows(keys)
    n_rows = rows[0].shape[0]
    counts = np.bincount(inverse * n_bins + bin_index, minlength=n_rows * n_bins)
    return HistogramTable(keys=rows, counts=counts.reshape(n_rows, n_bins).astype(np.int64))


def merge_histogram_tables(*tables):
    """Add histogram tables up: rows with equal keys have their histograms summed."""
    tables = [t for t in tables if t.n_rows] or list(tables[:1])
    if len(tables) == 1:
        return tables[0]
    keys = [_concatenate([t.keys[j] for t in tables]) for j in range(len(tables[0].keys))]
    inverse, rows = distinct_rows(keys)
    summed = np.zeros((rows[0].shape[0], tables[0].counts.shape[1]), dtype=np.int64)
    np.add.at(summed, inverse, np.concatenate([t.counts for t in tables]))
    return HistogramTable(keys=rows, counts=summed)


def reduce_partitions(block_function, partitions, *, merge=merge_tables, **kwargs):
    """``merge`` over ``block_function(*parts, **kwargs)`` of every aligned partition.

    ``partitions`` holds one list of delayed partitions per input column, all aligned. The
    reduction is a tree of ``_MERGE_FAN_IN``-way merges computed on the active dask scheduler.
    The tasks are impure (fresh keys per call), so a call never picks up a table left in a
    cluster's memory by an earlier one.
    """
    dask = import_dask()
    delayed = dask.delayed
    # Large arguments (MADD's edges) become one shared task, not a copy in every task.
    kwargs = {
        name: delayed(value) if getattr(value, "nbytes", 0) > _SHARED_ARGUMENT_BYTES else value
        for name, value in kwargs.items()
    }
    tables = [delayed(block_function, pure=False)(*parts, **kwargs) for parts in zip(*partitions)]
    while len(tables) > 1:
        tables = [
            delayed(merge, pure=False)(*tables[i : i + _MERGE_FAN_IN])
            for i in range(0, len(tables), _MERGE_FAN_IN)
        ]
    return dask.compute(tables[0])[0]


def _empty_weight(sample_weight):
    return None if sample_weight is None else np.zeros(0)


def _factorize(column):
    """``(distinct values, code of each value)``; float and object columns through pandas
    hash table when pandas is present.

    Booleans and integers of a small range are factorised with one bincount, not a sort.
    """
    kind = column.dtype.kind
    if kind == "b":
        column = column.view(np.uint8)
    if kind in "biu" and column.shape[0]:
        low, high = int(column.min()), int(column.max())
        if high - low <= 4 * column.shape[0] + 1024:
            present, codes = _compact(column.astype(np.int64) - low, high - low + 1)
            values = (present + low).astype(column.dtype)
            return (values.astype(bool) if kind == "b" else values), codes
    if kind in "fO":
        # A hash table (pandas) instead of a sort: the codes need no order.
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - dask.dataframe needs pandas
            pd = None
        if pd is not None:
            codes, values = pd.factorize(column, use_na_sentinel=False)
            values = np.asarray(values, dtype=column.dtype)
            return values, codes.astype(np.int64, copy=False)
    values, codes = np.unique(column, return_inverse=True)
    return values, codes.reshape(-1).astype(np.int64, copy=False)


def _concatenate(arrays):
    kinds = {a.dtype.kind for a in arrays}
    if len(kinds) > 1 and ("O" in kinds or {"U", "S"} & kinds):
        # A partition read as object strings and another as fixed-width strings.
        return np.concatenate([a.astype(object) for a in arrays])
    return np.concatenate(arrays)
