"""Frequency tables: the distinct rows of key columns, with how often and how heavily each occurs.

Statistic: for key columns (raw per-sample values: labels, sensitive values, rounded scores),
the distinct rows with their frequency (number of samples), their total ``sample_weight``,
and optionally the sum of ``weight * value`` of per-sample value columns. A table is a
weighted input: every group computation of skfair gives the same result on the table's rows
with ``sample_weight`` = the rows' weights as on the samples themselves, so the table is the
sufficient statistic of the count-table metrics, the score-distribution metrics (distinct
(group, score) rows) and the barycenter maps.

Two phases, so that a table can be computed per chunk of the data and the chunks merged:

- :meth:`DistinctRows.chunk`: the table of one chunk of rows;
- :meth:`DistinctRows.merge`: tables added up, rows matched by their values (never by
  per-chunk codes, so chunks need no shared label set: a value seen in one chunk only, or a
  group absent from some chunks, merges correctly);
- :meth:`DistinctRows.formula`: the merged table itself, handed to the in-memory formula of
  the consumer with ``sample_weight=`` its weights.

The in-memory path of a metric is the one-chunk case in which every sample is a row of
frequency 1; it skips building the table. Factorisation goes through
:mod:`skfair._utils._groups`, the one factorisation engine of skfair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skfair._utils._groups import _compact, factorize_column

# Largest number of value combinations counted densely (one bincount) by ``DistinctRows.chunk``.
_DENSE_CELLS = 1 << 22


@dataclass(frozen=True)
class FrequencyTable:
    """Distinct rows of the key columns, with how many samples and how much weight each holds.

    Attributes
    ----------
    keys : tuple of ndarray
        One 1-D array per key column; row ``i`` of the table is ``[k[i] for k in keys]``.
    count : ndarray of int64
        Frequency of each row: its number of samples.
    weight : ndarray of float64 or None
        Total ``sample_weight`` of each row, or None when no weights were given.
    sums : ndarray of float64 of shape (n_rows, n_values) or None
        Total ``weight * value`` (``value`` without weights) of each value column per row.
    """

    keys: tuple
    count: np.ndarray
    weight: np.ndarray | None = None
    sums: np.ndarray | None = None

    @property
    def n_rows(self):
        return self.count.shape[0]

    def sample_weight(self):
        """The weight that stands for the samples of each row in a weighted computation."""
        return self.count.astype(np.float64) if self.weight is None else self.weight


class TableTooLarge(ValueError):
    """A frequency table outgrew the bound that keeps it small (it grows with the data)."""


@dataclass(frozen=True)
class DistinctRows:
    """The frequency table of ``names`` (one key column each), computed in two phases.

    Parameters
    ----------
    names : tuple of str
        Name of each key column, for error messages.
    max_rows : int or None, default=None
        Largest table allowed after a merge (and in one chunk): beyond it the table grows
        with the data (continuous values), and :class:`TableTooLarge` is raised naming the
        size and ``hint``, instead of a table of about one row per sample.
    hint : str, default=""
        What to do instead, appended to the message of :class:`TableTooLarge`.
    """

    names: tuple
    max_rows: int | None = None
    hint: str = ""

    def chunk(self, keys, sample_weight=None, values=None):
        """The table of one chunk: 1-D key columns of one length, optional weights and values
        (shape (n_samples, n_values))."""
        keys = [np.asarray(column) for column in keys]
        n = keys[0].shape[0]
        weighted = None if values is None else _weighted(values, sample_weight)
        if n == 0:
            return FrequencyTable(
                keys=tuple(keys),
                count=np.zeros(0, dtype=np.int64),
                weight=None if sample_weight is None else np.zeros(0),
                sums=None if values is None else np.zeros((0, weighted.shape[1])),
            )
        dense = _dense_joint_codes(keys)
        if dense is not None:
            # Small integer keys: count every combination of values directly.
            joint, dims, lows = dense
            n_cells = int(np.prod(dims))
            count = np.bincount(joint, minlength=n_cells)
            present = np.flatnonzero(count)
            rows = tuple(
                _from_offsets(index, low, column.dtype)
                for index, low, column in zip(np.unravel_index(present, dims), lows, keys)
            )
            inverse, n_rows, count = None, present.shape[0], count[present]
            select = present
        else:
            inverse, rows = self.index(keys)
            n_rows = rows[0].shape[0]
            count = np.bincount(inverse, minlength=n_rows)
            joint, n_cells, select = inverse, n_rows, None
        table = FrequencyTable(
            keys=rows,
            count=count.astype(np.int64),
            weight=_sum_by(joint, sample_weight, n_cells, select),
            sums=None
            if values is None
            else np.column_stack(
                [_sum_by(joint, column, n_cells, select) for column in weighted.T]
            ).reshape(n_rows, weighted.shape[1]),
        )
        self._check_size(table.n_rows, "one chunk")
        return table

    def merge(self, tables):
        """Add tables up: rows with equal keys are merged, their frequencies, weights and
        sums added."""
        tables = [t for t in tables if t.n_rows] or list(tables[:1])
        if len(tables) == 1:
            return tables[0]
        keys = [_concatenate([t.keys[j] for t in tables]) for j in range(len(tables[0].keys))]
        inverse, rows = self.index(keys)
        n_rows = rows[0].shape[0]
        self._check_size(n_rows, f"{len(tables)} chunks merged")
        count = np.bincount(
            inverse, weights=np.concatenate([t.count for t in tables]), minlength=n_rows
        )
        weight = sums = None
        if tables[0].weight is not None:
            weight = _sum_by(inverse, np.concatenate([t.weight for t in tables]), n_rows)
        if tables[0].sums is not None:
            stacked = np.concatenate([t.sums for t in tables])
            sums = np.zeros((n_rows, stacked.shape[1]))
            np.add.at(sums, inverse, stacked)
        return FrequencyTable(
            keys=rows, count=np.rint(count).astype(np.int64), weight=weight, sums=sums
        )

    def formula(self, table):
        """The merged table: the consumer's in-memory formula takes it as a weighted input."""
        return table

    def index(self, keys):
        """Inverse index of each row into the distinct rows, and those rows' keys.

        Columns are factorised one by one (:mod:`skfair._utils._groups`) and combined two at a time,
        each combination compacted to the pairs present, so that codes never exceed the
        number of rows.
        """
        n = keys[0].shape[0]
        joint = np.zeros(n, dtype=np.int64)
        n_joint = 1
        for column, name in zip(keys, self.names):
            _, codes = factorize_column(column, name, what="column")
            n_values = int(codes.max()) + 1 if n else 0
            present, joint = _compact(joint * n_values + codes, n_joint * n_values)
            n_joint = present.shape[0]
        first = np.zeros(n_joint, dtype=np.intp)
        first[joint[::-1]] = np.arange(n)[::-1]
        return joint, tuple(column[first] for column in keys)

    def _check_size(self, n_rows, where):
        if self.max_rows is not None and n_rows > self.max_rows:
            raise TableTooLarge(
                f"The table of distinct ({', '.join(self.names)}) rows reached {n_rows:,} rows "
                f"({where}), more than the {self.max_rows:,} kept in memory: these values are "
                f"(nearly) all distinct, so the table grows with the data. {self.hint}".rstrip()
            )


def _weighted(values, sample_weight):
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    return values if sample_weight is None else values * sample_weight[:, None]


def _sum_by(codes, weights, n_codes, select=None):
    """``np.bincount(codes, weights)``, restricted to ``select`` (None when no weights)."""
    if weights is None:
        return None
    sums = np.bincount(codes, weights=weights, minlength=n_codes)
    return sums if select is None else sums[select]


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


def _concatenate(arrays):
    kinds = {a.dtype.kind for a in arrays}
    if len(kinds) > 1 and ("O" in kinds or {"U", "S"} & kinds):
        # A chunk read as object strings and another as fixed-width strings.
        return np.concatenate([a.astype(object) for a in arrays])
    return np.concatenate(arrays)
