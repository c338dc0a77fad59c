"""The distinct values of columns, and the smallest values of one column, in two phases.

Statistic: for each column, its distinct present values (up to a cap: a column with more is
only known to have more), its number of present and of missing values (None, NaN, NaT,
``pd.NA``); and, for one numeric column, its ``n_smallest`` smallest values. What the
count tables of :mod:`skfair._stats._combinations` need to know of the columns before their
codes are made: the categories, which numeric columns have too many values to be categories,
how many rows there are.

Merging: distinct values are the union of the chunks' (matched by value, through the one
factoriser of skfair), counts add up, the smallest values of the union are the smallest of
the chunks' smallest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skfair._utils._groups import factorize_column


@dataclass(frozen=True)
class ColumnValues:
    """What one column holds: distinct present values (None when more than the cap)."""

    values: np.ndarray | None
    n_present: int
    n_missing: int


@dataclass(frozen=True)
class DistinctValues:
    """Distinct values of ``names`` (one column each), at most ``caps[j]`` kept per column.

    Parameters
    ----------
    names : tuple of str
        Name of each column, for error messages.
    caps : tuple of int
        Largest number of distinct values kept for each column; beyond it the column is
        known to have more (its ``values`` is None).
    n_smallest : int, default=0
        Number of smallest values of the last column also kept (0: none).
    """

    names: tuple
    caps: tuple
    n_smallest: int = 0

    def chunk(self, *columns):
        """``(ColumnValues per column, smallest values of the last column)`` of one chunk."""
        summaries = []
        for column, name, cap in zip(columns, self.names, self.caps, strict=True):
            values, codes = _factorize(column, name)
            n_missing = int(np.sum(codes == len(values)))
            kept = values if len(values) <= cap else None
            summaries.append(ColumnValues(kept, int(codes.shape[0]) - n_missing, n_missing))
        smallest = None
        if self.n_smallest:
            last = np.asarray(columns[-1], dtype=np.float64)
            count = min(self.n_smallest, last.shape[0])
            smallest = np.sort(np.partition(last, count - 1)[:count]) if count else last[:0]
        return tuple(summaries), smallest

    def merge(self, parts):
        merged = []
        for j, (name, cap) in enumerate(zip(self.names, self.caps, strict=True)):
            summaries = [part[0][j] for part in parts]
            n_present = sum(s.n_present for s in summaries)
            n_missing = sum(s.n_missing for s in summaries)
            values = None
            if all(s.values is not None for s in summaries):
                kept = [s.values for s in summaries if len(s.values)]
                if kept:
                    union, _ = _factorize(_concatenate(kept), name)
                    values = union if len(union) <= cap else None
                else:
                    values = summaries[0].values
            merged.append(ColumnValues(values, n_present, n_missing))
        smallest = None
        if self.n_smallest:
            joined = np.sort(np.concatenate([part[1] for part in parts]))
            smallest = joined[: self.n_smallest]
        return tuple(merged), smallest

    def formula(self, merged):
        return merged


def _factorize(column, name):
    """Sorted distinct present values and codes (missing values coded last)."""
    if np.shape(column)[0] == 0:
        return np.asarray(column)[:0], np.zeros(0, dtype=np.intp)
    return factorize_column(column, name, what="feature", missing="last")


def _concatenate(arrays):
    kinds = {np.asarray(a).dtype.kind for a in arrays}
    if len(kinds) > 1 and ("O" in kinds or {"U", "S"} & kinds):
        return np.concatenate([np.asarray(a).astype(object) for a in arrays])
    return np.concatenate([np.asarray(a) for a in arrays])
