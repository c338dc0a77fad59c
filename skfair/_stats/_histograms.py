"""Per-group histograms on equal bins of [0, 1], and the bandwidth helpers of MADD.

Statistic: the bin counts of every group, shape (n_groups, n_bins), with the semantics of
``np.histogram(p, bins=m, range=(0, 1))`` (bin k is ``[e_k, e_{k+1})`` with
``e = np.linspace(0, 1, m + 1)``, the last bin closed). For a sweep over many bin counts,
the number of scores below every edge of every bin count (cumulative counts).

Merging: counts are sums over samples, so the histograms (and the cumulative counts at fixed
edges) of the whole data are the sums of those of its chunks.

References
----------
Verger, Lallé, Bouchet and Luengo, "Evaluating and Mitigating Algorithmic Unfairness with the
MADD Metric", Journal of Educational Data Mining, 2024 (Section 3.1 for the bins, Theorem 2
for the order of the optimal bandwidth).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

import numpy as np

from skfair._stats._table import (
    DistinctRows,
    FrequencyTable,
    _dense_joint_codes,
    _from_offsets,
)

# Relative slack of bin_rule="exact": floor((1/h)(1 + 1e-12)) gives m back for every h = 1/m
# with m <= 1e6, where float floor(1/h) loses one bin for 70 of the m <= 999.
EXACT_BIN_SLACK = 1e-12


def bins_from_bandwidths(bandwidths, bin_rule="exact"):
    """Number of bins ``floor(1 / h)`` of each bandwidth, under ``bin_rule``."""
    inverse = 1.0 / np.asarray(bandwidths, dtype=np.float64)
    if bin_rule == "exact":
        inverse = inverse * (1.0 + EXACT_BIN_SLACK)
    return np.maximum(np.floor(inverse), 1).astype(np.intp)


def group_histograms(scores, codes, n_groups, n_bins, sample_weight=None):
    """Bin counts of each group, shape (n_groups, n_bins), with ``np.histogram`` semantics.

    With ``sample_weight``, the weight of the samples in each bin.

    Like ``np.histogram`` with equal bins: ``floor(p * m)``, then corrected against the float
    edges ``np.linspace(0, 1, m + 1)`` so that p is in bin k iff ``e_k <= p < e_{k+1}``, and
    p = 1.0 closes the last bin.
    """
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bin_index = np.minimum((scores * n_bins).astype(np.intp), n_bins - 1)
    bin_index -= scores < edges[bin_index]
    bin_index += (scores >= edges[bin_index + 1]) & (bin_index != n_bins - 1)
    counts = np.bincount(
        codes * n_bins + bin_index, weights=sample_weight, minlength=n_groups * n_bins
    )
    return counts.reshape(n_groups, n_bins)


def h_sup(n0, n1):
    """Order of the optimal bandwidth for groups of sizes n0 and n1 (Theorem 2).

    ``((sqrt(n0) + sqrt(n1)) / sqrt(n0 * n1)) ** (2/3)``, evaluated exactly as maddlib does so
    that interval eligibility matches it bit for bit.
    """
    n0, n1 = _exact_size(n0), _exact_size(n1)
    return ((n0**0.5 + n1**0.5) / (n0 * n1) ** 0.5) ** (2 / 3)


def stacked_edges(bins):
    """The edges ``np.linspace(0, 1, m + 1)`` of every bin count, concatenated.

    Returns the edges and the offset of each bin count's first edge. ``k * (1/m)`` with the last
    edge set to 1.0 is exactly what ``np.linspace`` computes.
    """
    lengths = bins + 1
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    per_edge_bins = np.repeat(bins, lengths)
    k = np.arange(lengths.sum()) - np.repeat(offsets, lengths)
    edges = k * (1.0 / per_edge_bins)
    edges[offsets + bins] = 1.0
    return edges, offsets


class SweptHistograms:
    """Histogram proportions of a group for every bin count of a sweep, from edge positions.

    The edges of all bin counts are stacked (:func:`stacked_edges`) and sorted once. The
    statistic of a group is the number (or weight) of its scores at each *position* among the
    sorted edges (how many edges are at or below the score): a score lies below every edge
    from its position on, so cumulative counts of the positions give the number of scores
    below each edge, and first differences the bin counts, identical to ``np.histogram``. No
    pass over the data per bin count.

    Two phases: :meth:`grouped_counts` per chunk of scores (counts add up over chunks), then
    :meth:`shares` on a group's summed counts. The count at the last edge of each bin count
    is the group size (last bin closed); the difference that straddles two bin counts is set
    to 0 so that ``np.add.reduceat`` at ``offsets`` sums one histogram.

    Parameters
    ----------
    bins : ndarray of int
        The bin counts.

    Notes
    -----
    Without weights a group's counts come from its sorted scores: the number of scores below
    each sorted edge is one ``searchsorted`` of the edges into them, so the work per score is
    a share of one sort (vectorised) instead of a search among the ~500,000 edges of the
    default sweep in random order. With weights, each score's position is searched and the
    weights are summed per position in row order.
    """

    @classmethod
    def of(cls, bins):
        """The sweep of ``bins``, built once per process for the last few bin sets (its sort
        of the stacked edges costs more than a chunk's counting)."""
        return _sweep_of(tuple(int(m) for m in bins))

    def __init__(self, bins):
        edges, self.offsets = stacked_edges(np.asarray(bins))
        self.n_edges = edges.shape[0]
        edge_order = np.argsort(edges)  # ties (equal edges of different m) get equal counts
        self.sorted_edges = edges[edge_order]
        self._last_edges = self.offsets + bins
        self._rank = np.empty_like(edge_order)
        self._rank[edge_order] = np.arange(self.n_edges)

    def positions(self, scores):
        """Position of each score in [0, 1] among the sorted edges."""
        return edge_positions(scores, self.sorted_edges)

    def counts(self, scores, sample_weight=None, *, presorted=False):
        """Number (or weight) of ``scores`` at each position among the sorted edges, shape
        (n_edges + 1,). ``presorted``: the scores are sorted already (no weights)."""
        n_cells = self.n_edges + 1
        if sample_weight is not None:
            return np.bincount(self.positions(scores), weights=sample_weight, minlength=n_cells)
        if scores.shape[0] < self.n_edges:
            # Fewer scores than edges: search each score among the edges.
            return np.bincount(
                np.searchsorted(self.sorted_edges, scores, side="right"), minlength=n_cells
            )
        if not presorted:
            scores = np.sort(scores)
        # Scores at position p lie in [e_{p-1}, e_p): counts are the differences of the
        # number of scores below each edge.
        below = np.searchsorted(scores, self.sorted_edges, side="left")
        counts = np.empty(n_cells, dtype=np.int64)
        counts[0] = below[0]
        np.subtract(below[1:], below[:-1], out=counts[1:-1])
        counts[-1] = scores.shape[0] - below[-1]
        return counts

    def grouped_counts(self, scores, codes, n_codes, sample_weight=None):
        """:meth:`counts` of the scores of each code, shape (n_codes, n_edges + 1); counts of
        chunks add up (chunk phase)."""
        table = np.zeros((n_codes, self.n_edges + 1))
        groups = split_by_code(codes, n_codes, scores, sample_weight)
        for code, (values, weights) in enumerate(groups):
            if values.shape[0]:
                table[code] = self.counts(values, weights, presorted=weights is None)
        return table

    def shares(self, counts, size):
        """Proportions of one group in every bin of every bin count, stacked, from its
        position counts ``counts`` (shape (n_edges + 1,)) and its size (formula phase)."""
        below = np.cumsum(counts)[self._rank].astype(np.float64)
        below[self._last_edges] = size
        share = np.diff(below)
        share /= size
        share[self.offsets[1:] - 1] = 0.0
        return share


@functools.lru_cache(maxsize=4)
def _sweep_of(bins):
    return SweptHistograms(bins)


def split_by_code(codes, n_codes, scores, sample_weight=None):
    """The scores (and weights) of each code, as ``(scores, weights)`` pairs; without weights
    each group's scores come sorted (weights is then None), with weights in row order.

    One stable counting sort of the codes (a radix sort on the smallest unsigned type that
    holds them), one gather, and a sort of each group's share.
    """
    if n_codes == 1:
        values = np.sort(scores) if sample_weight is None else scores
        return [(values, sample_weight)]
    small = np.min_scalar_type(max(n_codes - 1, 0))
    order = np.argsort(codes.astype(small, copy=False), kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=n_codes))))
    values = scores[order]
    weights = None if sample_weight is None else sample_weight[order]
    pairs = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        segment = values[start:stop]
        if weights is None:
            segment.sort()
            pairs.append((segment, None))
        else:
            pairs.append((segment, weights[start:stop]))
    return pairs


class GroupRows:
    """In memory, the proportions of each group on demand: :meth:`row` counts one group's
    scores (the one-chunk case of :class:`SweptHistograms`) in O(n_edges + n_g), so that a
    caller holds as many rows as it needs (two for a pair), not one per group."""

    def __init__(self, sweep, scores, codes, sizes, sample_weight=None):
        self.sweep = sweep
        self.sizes = sizes
        self._groups = split_by_code(codes, sizes.shape[0], scores, sample_weight)

    def row(self, g):
        values, weights = self._groups[g]
        counts = self.sweep.counts(values, weights, presorted=weights is None)
        return self.sweep.shares(counts, self.sizes[g])


@dataclass(frozen=True)
class KeyedHistograms:
    """Histogram counts of scores per distinct row of key columns (the groups' own values),
    computed in two phases.

    With ``n_bins`` the histograms of :func:`group_histograms`; with ``bins`` (a sweep) the
    position counts of :class:`SweptHistograms`. :meth:`chunk` gives a
    :class:`~skfair._stats._table.FrequencyTable` whose ``sums`` are each row's counts;
    :meth:`merge` adds tables up by the rows' values, so chunks need no shared group codes.

    Parameters
    ----------
    names : tuple of str
        Names of the key columns.
    n_bins : int, default=0
        Number of equal bins of [0, 1] (0 for a sweep).
    bins : tuple of int, default=()
        Bin counts of a sweep.
    """

    names: tuple
    n_bins: int = 0
    bins: tuple = ()

    def chunk(self, keys, scores, sample_weight=None):
        if keys[0].shape[0] == 0:
            return FrequencyTable(
                keys=tuple(keys),
                count=np.zeros(0, dtype=np.int64),
                sums=np.zeros((0, self._n_cells())),
            )
        inverse, distinct = _key_codes(self.names, keys)
        n_rows = distinct[0].shape[0]
        if self.bins:
            counts = SweptHistograms.of(self.bins).grouped_counts(
                scores, inverse, n_rows, sample_weight
            )
        else:
            counts = group_histograms(scores, inverse, n_rows, self.n_bins, sample_weight)
        return FrequencyTable(
            keys=distinct,
            count=np.bincount(inverse, minlength=n_rows).astype(np.int64),
            weight=None
            if sample_weight is None
            else np.bincount(inverse, weights=sample_weight, minlength=n_rows),
            sums=counts.astype(np.float64, copy=False),
        )

    def merge(self, tables):
        tables = [table for table in tables if table.n_rows] or list(tables[:1])
        first = tables[0]
        if len(tables) > 1 and all(_same_keys(table.keys, first.keys) for table in tables[1:]):
            # The same groups in every chunk (the usual case): add the tables up row by row,
            # in chunk order, as the general merge does, without matching rows.
            sums = first.sums.copy()
            for table in tables[1:]:
                sums += table.sums
            return FrequencyTable(
                keys=first.keys,
                count=np.sum([table.count for table in tables], axis=0),
                weight=None
                if first.weight is None
                else _sum_in_order([table.weight for table in tables]),
                sums=sums,
            )
        return DistinctRows(self.names).merge(tables)

    def formula(self, table):
        return table

    def _n_cells(self):
        if self.bins:
            return int(np.sum(np.asarray(self.bins) + 1)) + 1
        return self.n_bins


def _key_codes(names, keys):
    """Code of each row among the distinct rows of the key columns, and those rows' keys.

    Small integer keys (the usual sensitive codes) are counted densely: one bincount over
    the combinations of values, no factorisation; other keys go through
    :meth:`DistinctRows.index`. Both give the rows in the same (sorted) order.
    """
    keys = [np.asarray(column) for column in keys]
    if len(keys) == 1 and keys[0].dtype.kind in "iu" and keys[0].dtype.itemsize == 1:
        # One column of bytes (the usual sensitive codes): its values are the codes, offset
        # by the smallest, in one byte each (no 8-byte joint code).
        (column,) = keys
        low = int(column.min())
        if low == 0:
            joint = column.view(np.uint8)
        else:
            joint = (column.astype(np.int16) - low).astype(np.uint8)
        dims, lows = (int(joint.max()) + 1,), [low]
    else:
        dense = _dense_joint_codes(keys)
        if dense is None:
            return DistinctRows(names).index(keys)
        joint, dims, lows = dense
    present_mask = np.bincount(joint, minlength=int(np.prod(dims))) > 0
    present = np.flatnonzero(present_mask)
    if present.shape[0] < present_mask.shape[0]:
        joint = (np.cumsum(present_mask) - 1).astype(joint.dtype)[joint]
    distinct = tuple(
        _from_offsets(index, low, column.dtype)
        for index, low, column in zip(np.unravel_index(present, dims), lows, keys)
    )
    return joint, distinct


def _same_keys(keys, other):
    return len(keys) == len(other) and all(
        a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
        for a, b in zip(keys, other)
    )


def _sum_in_order(arrays):
    total = arrays[0].copy()
    for array in arrays[1:]:
        total += array
    return total


# Cells of the uniform lookup grid on [0, 1] of edge_positions.
_LOOKUP_CELLS = 1 << 22
# Cells of the lookup computed at a time while it is built.
_LOOKUP_BLOCK = 1 << 18
_EDGE_LOOKUPS = {}


def edge_positions(scores, sorted_edges):
    """``np.searchsorted(sorted_edges, scores, side="right")`` for scores in [0, 1], through a
    lookup on a uniform grid of ``_LOOKUP_CELLS`` cells: a score whose cell holds no edge in
    its interior has the position of the cell's left end; the others are searched.

    ``floor(s * 2**22)`` and ``c / 2**22`` are exact in binary floating point, so the cell of
    each score, and the edges at or below its left end, are exact. O(n), no sort of the scores.
    """
    at_or_below, has_interior_edge = _edge_lookup(sorted_edges)
    cell = (scores * _LOOKUP_CELLS).astype(np.intp)
    position = at_or_below[cell].astype(np.intp)
    searched = has_interior_edge[cell]
    position[searched] = np.searchsorted(sorted_edges, scores[searched], side="right")
    return position


def _edge_lookup(sorted_edges):
    """Per grid cell: the number of edges at or below its left end, and whether an edge lies
    inside it. Built once per process and edge set (keyed by the edges' digest)."""
    key = hashlib.sha1(sorted_edges.tobytes()).hexdigest()
    lookup = _EDGE_LOOKUPS.get(key)
    if lookup is None:
        _EDGE_LOOKUPS.clear()  # one edge set at a time: bounded memory
        at_or_below = np.empty(_LOOKUP_CELLS + 2, dtype=np.int32)
        has_interior_edge = np.empty(_LOOKUP_CELLS + 1, dtype=bool)
        # A block of cells at a time: the 20 MB of the lookup itself, not the 100 MB of
        # float boundaries and intp positions of all cells at once.
        for start in range(0, _LOOKUP_CELLS + 2, _LOOKUP_BLOCK):
            boundaries = np.arange(start, min(start + _LOOKUP_BLOCK, _LOOKUP_CELLS + 2))
            boundaries = boundaries / _LOOKUP_CELLS
            at_or_below[start : start + boundaries.size] = np.searchsorted(
                sorted_edges, boundaries, side="right"
            )
            cells = slice(max(start - 1, 0), start - 1 + boundaries.size)  # of the right ends
            below_next = np.searchsorted(sorted_edges, boundaries[start == 0 :], side="left")
            has_interior_edge[cells] = below_next > at_or_below[cells]
        lookup = (at_or_below, has_interior_edge)
        _EDGE_LOOKUPS[key] = lookup
    return lookup


def _exact_size(size):
    """An int for integral sizes (bit parity with maddlib), else the float total weight."""
    size = float(size)
    return int(size) if size.is_integer() else size
