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

import numpy as np

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
    """Histogram proportions of each group for every bin count of a sweep, one group at a time.

    The stacked edges of all bin counts and the scores are each sorted once; one
    ``searchsorted`` of the sorted scores into the sorted edges (cache-friendly: consecutive
    keys land close) gives each score's position, and a score lies below every edge from its
    position on, so cumulative counts of the positions give the number (or weight) of scores
    below each edge. No pass over the data per bin count. The count at the last edge of each
    bin count is the group size (last bin closed), and first differences are the bin counts,
    identical to ``np.histogram``. The difference that straddles two bin counts is set to 0 so
    that ``np.add.reduceat`` at ``offsets`` sums one histogram.

    :meth:`row` builds one group's proportions, shape (n_edges - 1,), in O(n_edges + n_g):
    the caller holds as many rows as it needs (two for a pair), not one per group.

    Parameters
    ----------
    scores, codes : ndarray of shape (n_samples,)
    sizes : ndarray of shape (n_groups,)
        Number (or total weight) of the samples of each group.
    bins : ndarray of int
        The bin counts.
    sample_weight : ndarray of shape (n_samples,), default=None
    """

    def __init__(self, scores, codes, sizes, bins, sample_weight=None):
        edges, self.offsets = stacked_edges(bins)
        self.n_edges = edges.shape[0]
        self.sizes = sizes
        self._last_edges = self.offsets + bins
        edge_order = np.argsort(edges)  # ties (equal edges of different m) get equal counts
        score_order = np.argsort(scores)
        score_order = score_order[np.argsort(codes[score_order], kind="stable")]  # by group
        self._position = np.searchsorted(edges[edge_order], scores[score_order], side="right")
        self._weights = None if sample_weight is None else sample_weight[score_order]
        self._rank = np.empty_like(edge_order)
        self._rank[edge_order] = np.arange(self.n_edges)
        self._starts = np.concatenate(
            [[0], np.cumsum(np.bincount(codes, minlength=sizes.shape[0]))]
        )

    def row(self, g):
        """Proportions of group ``g`` in every bin of every bin count, stacked."""
        rows = slice(self._starts[g], self._starts[g + 1])
        below_sorted = np.cumsum(
            np.bincount(
                self._position[rows],
                weights=None if self._weights is None else self._weights[rows],
                minlength=self.n_edges + 1,
            )
        )
        below = below_sorted[self._rank].astype(np.float64)
        below[self._last_edges] = self.sizes[g]
        share = np.diff(below)
        share /= self.sizes[g]
        share[self.offsets[1:] - 1] = 0.0
        return share


def _exact_size(size):
    """An int for integral sizes (bit parity with maddlib), else the float total weight."""
    size = float(size)
    return int(size) if size.is_integer() else size
