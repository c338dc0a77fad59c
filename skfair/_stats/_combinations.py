"""Count tables over combinations of columns: every combination of values, counted by class.

Statistic: columns of small integer codes (column ``j`` in ``range(dims[j])``), one class per
row (e.g. the cell ``2 * (y_true == pos) + (y_pred == pos)`` of the confusion table) and
optional weights. For each requested combination of columns (a tuple of column positions),
the table of the cells present (a cell is a combination of one value per column, numbered
by ``np.ravel_multi_index`` over the combination's numbers of values) with, for each class,
the number of rows and, with weights, their sum of weights and of squared weights.

One ``np.bincount`` per combination over the joint code of the cell and the class: the
combinations that share all their columns but the last share the code of those columns,
computed once, so a combination costs one addition and one bincount over the rows. Cells
that would not fit a dense count are counted on sorted keys instead.

Merging: sums over rows, so the tables of the whole data are the sums of those of its chunks,
cells matched by their number (chunks need no common set of cells).

:func:`row_fingerprints` gives each row a pseudo-random number that depends only on its codes;
summed per cell (as weights) it tells two cells holding the same rows apart from two that
merely have equal counts: the same rows give bit for bit the same sum (added in the same
order), different rows a different sum but with negligible probability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from skfair._utils._random import mix64, to_unit_interval

# Largest number of (class, cell) counters a combination is counted on with one dense
# bincount; beyond it the joint codes are sorted instead.
_DENSE_COUNTERS = 1 << 24
# Rows counted at once: their codes (8 bytes each) stay in the processor's cache while every
# combination of a head adds its column and counts.
_BLOCK_ROWS = 1 << 18


@dataclass(frozen=True)
class CellTable:
    """The cells present of one combination of columns, with their counts.

    Attributes
    ----------
    columns : tuple of int
        Positions of the combination's columns.
    dims : tuple of int
        Number of values of each of those columns.
    keys : ndarray of int64, sorted
        Number of each cell present (``np.ravel_multi_index`` of its values over ``dims``).
    counts : ndarray of float64 of shape (n_cells, n_classes, n_sums)
        For each cell and class: the number of rows, then (with weights) the sum of their
        weights and of their squared weights.
    """

    columns: tuple
    dims: tuple
    keys: np.ndarray
    counts: np.ndarray

    @property
    def n_cells(self):
        return self.keys.shape[0]

    def values(self):
        """The value codes of each cell present, shape (n_cells, len(columns))."""
        if not self.columns:
            return np.zeros((self.n_cells, 0), dtype=np.intp)
        return np.stack(np.unravel_index(self.keys, self.dims), axis=1)


@dataclass(frozen=True)
class CombinationCounts:
    """Count tables of ``combinations`` of columns whose codes are in ``range(dims[j])``.

    Parameters
    ----------
    dims : tuple of int
        Number of values of every column.
    n_classes : int
        Number of classes of the rows.
    combinations : tuple of tuple of int
        The combinations to count; ``()`` counts all rows as one cell.
    weighted : bool, default=False
        Whether weights come with the rows (adds the sums of weights and squared weights).
    squares : bool, default=True
        With weights, whether the sums of squared weights are kept too.
    """

    dims: tuple
    n_classes: int
    combinations: tuple
    weighted: bool = False
    squares: bool = True

    @property
    def n_sums(self):
        return 1 + self.weighted * (1 + self.squares)

    def chunk(self, codes, classes=None, sample_weight=None):
        """The tables of one chunk of rows, in the order of ``combinations``.

        ``codes`` holds one 1-D array of codes per column (a 2-D array of shape (n_columns,
        n_rows), or a list); ``classes`` the class of each row (None: every row in class 0);
        ``sample_weight`` the weights (required when ``weighted``).
        """
        n = _n_rows(codes, classes, sample_weight)
        if classes is None:
            classes = np.zeros(n, dtype=np.intp)
        weights = None
        if self.weighted:
            weights = np.asarray(sample_weight, dtype=np.float64)
        tables = [None] * len(self.combinations)
        # Combinations sharing their leading columns (their "head") are counted together, on
        # one code of those columns to which each adds its last column; block by block of
        # rows, so that the codes being counted stay in the processor's cache.
        groups = {}
        for i in sorted(range(len(self.combinations)), key=lambda i: self.combinations[i]):
            combination = tuple(self.combinations[i])
            groups.setdefault(combination[:-1] if combination else None, []).append(i)
        for head, members in groups.items():
            for i in members:
                combination = tuple(self.combinations[i])
                if n == 0:
                    tables[i] = self._empty(combination, tuple(self.dims[j] for j in combination))
                elif not combination:
                    tables[i] = self._count_all(classes, weights)
            if n == 0 or head is None:
                continue
            self._count_group(codes, classes, weights, head, members, tables, n)
        return tuple(tables)

    def _count_group(self, codes, classes, weights, head, members, tables, n):
        """The tables of the combinations ``members`` (indices) that share ``head``."""
        stride = max(self.dims[self.combinations[i][-1]] for i in members)
        head_cells = math.prod(self.dims[j] for j in head)
        n_counters = self.n_classes * head_cells * stride
        if n_counters > np.iinfo(np.int64).max // 2:
            raise ValueError(
                f"The columns {head} have {head_cells:,} combinations of values, too many to "
                "number."
            )
        if n_counters > max(_DENSE_COUNTERS, 2 * n):
            # Too many possible cells for dense counts: sort the joint codes present.
            base = self._base(codes, head, classes, stride, 0, n)
            for i in members:
                combination = tuple(self.combinations[i])
                joint = base + codes[combination[-1]]
                tables[i] = self._sparse_table(joint, combination, stride, weights)
            return
        sums = {i: None for i in members}
        buffer = np.empty(min(n, _BLOCK_ROWS), dtype=np.intp)
        for start in range(0, n, _BLOCK_ROWS):
            stop = min(n, start + _BLOCK_ROWS)
            base = self._base(codes, head, classes, stride, start, stop)
            joint = buffer[: stop - start]
            block_weights = None if weights is None else weights[start:stop]
            for i in members:
                np.add(
                    base, codes[self.combinations[i][-1]][start:stop], out=joint, casting="unsafe"
                )
                block = [
                    np.bincount(joint, weights=w, minlength=n_counters)
                    for w in self._weight_columns(block_weights)
                ]
                if sums[i] is None:
                    sums[i] = block
                else:
                    for total, part in zip(sums[i], block):
                        total += part
        for i in members:
            tables[i] = self._dense_table(tuple(self.combinations[i]), stride, sums[i])

    def merge(self, parts):
        """The tables of several chunks added up, cell by cell."""
        parts = list(parts)
        merged = []
        for index in range(len(self.combinations)):
            tables = [part[index] for part in parts if part[index].n_cells]
            if not tables:
                merged.append(parts[0][index])
                continue
            if len(tables) == 1:
                merged.append(tables[0])
                continue
            keys = np.concatenate([t.keys for t in tables])
            counts = np.concatenate([t.counts for t in tables])
            present, inverse = np.unique(keys, return_inverse=True)
            sums = np.zeros((present.shape[0], *counts.shape[1:]))
            np.add.at(sums, inverse.reshape(-1), counts)
            merged.append(CellTable(tables[0].columns, tables[0].dims, present, sums))
        return tuple(merged)

    def formula(self, merged):
        """The merged tables themselves."""
        return merged

    # ----------------------------------------------------------------------------------------

    def _empty(self, combination, dims):
        return CellTable(
            combination,
            dims,
            np.zeros(0, dtype=np.int64),
            np.zeros((0, self.n_classes, self.n_sums)),
        )

    def _count_all(self, classes, weights):
        sums = [
            np.bincount(classes, weights=w, minlength=self.n_classes).astype(np.float64)
            for w in self._weight_columns(weights)
        ]
        return CellTable((), (), np.zeros(1, dtype=np.int64), np.stack(sums, axis=-1)[None])

    def _weight_columns(self, weights):
        """What is summed per cell and class: rows, then weights and squared weights."""
        if weights is None:
            return [None]
        return [None, weights] + ([weights * weights] if self.squares else [])

    def _base(self, codes, head, classes, stride, start, stop):
        """``(class * cells of head + cell of head) * stride`` of rows ``start:stop``."""
        base = np.array(classes[start:stop], dtype=np.intp)
        for j in head:
            base *= self.dims[j]
            base += codes[j][start:stop]
        base *= stride
        return base

    def _dense_table(self, combination, stride, sums):
        """The cells present, from the dense sums over (class, head cell, last value)."""
        dims = tuple(self.dims[j] for j in combination)
        head_cells, last = math.prod(dims[:-1]), dims[-1]
        # (class, head cell, last value) -> (cell, class), cell = head cell * last + value
        counts = np.stack(
            [
                flat.astype(np.float64, copy=False)
                .reshape(self.n_classes, head_cells, stride)[:, :, :last]
                .reshape(self.n_classes, head_cells * last)
                .T
                for flat in sums
            ],
            axis=-1,
        )
        present = np.flatnonzero(counts[:, :, 0].sum(axis=1) > 0)
        return CellTable(combination, dims, present.astype(np.int64), counts[present])

    def _sparse_table(self, joint, combination, stride, weights):
        """The cells present, from the sorted joint codes of the rows."""
        dims = tuple(self.dims[j] for j in combination)
        head_cells, last = math.prod(dims[:-1]), dims[-1]
        weight_columns = self._weight_columns(weights)
        codes_present, inverse = np.unique(joint, return_inverse=True)
        inverse = inverse.reshape(-1)
        per_code = [
            np.bincount(inverse, weights=w, minlength=codes_present.shape[0]).astype(np.float64)
            for w in weight_columns
        ]
        class_of, rest = np.divmod(codes_present, head_cells * stride)
        cell = (rest // stride) * last + rest % stride
        keys, cell_index = np.unique(cell, return_inverse=True)
        counts = np.zeros((keys.shape[0], self.n_classes, len(weight_columns)))
        for s, values in enumerate(per_code):
            np.add.at(counts[:, :, s], (cell_index.reshape(-1), class_of), values)
        return CellTable(combination, dims, keys.astype(np.int64), counts)


def row_fingerprints(codes):
    """A pseudo-random number in [0, 1) for each row, a hash of its codes in every column.

    Rows with the same codes in every column get the same number. A set of rows made of
    whole cells of the columns (a subgroup defined by conditions on them) is then told apart
    from another by the sum of its rows' numbers; the same rows added in the same order give
    bit for bit the same sum. The hash is the codes times fixed odd 64-bit multipliers,
    summed modulo 2**64 and mixed (one multiplication per code).
    """
    columns = list(codes)
    n = np.shape(columns[0])[0] if columns else 0
    state, term = np.zeros(n, dtype=np.uint64), np.empty(n, dtype=np.uint64)
    multipliers = mix64(np.arange(len(columns), dtype=np.uint64)) | np.uint64(1)
    with np.errstate(over="ignore"):
        for column, multiplier in zip(columns, multipliers):
            np.multiply(np.asarray(column), multiplier, out=term, dtype=np.uint64, casting="unsafe")
            state += term
    return to_unit_interval(mix64(state))


def _n_rows(codes, classes, sample_weight):
    for value in (classes, sample_weight):
        if value is not None:
            return np.shape(value)[0]
    return np.shape(codes[0])[0] if len(codes) else 0
