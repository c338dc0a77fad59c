"""The paper's AcceleDist / ApproxDist in searchsorted form (Algorithms 2 and 3).

For one projection direction, the rows are sorted by their projection; each anchor compares
itself with at most ``m2`` other-group points on each side in that order (same-group points are
skipped and do not count). The reference implementation finds them with an unbounded scan,
O(n) per anchor in the worst case; here one ``searchsorted`` into the sorted positions of the
anchor's complement finds them in O(log n), with the same candidate set (spec §3.3).

The candidates of consecutive anchors overlap: the anchors whose windows start in the same
stretch of ``2 m2`` complement positions are compared with the ``4 m2`` positions that cover
all their windows in one BLAS matrix product (Gram form), the stretches being overlapping
views of one sorted copy of the complement. The Gram values only select; the kernel
re-evaluates each anchor's best candidate (and any near-tie), so the distances are those of the
kernel, bit for bit.
"""

import numpy as np
from joblib import Parallel, delayed
from numpy.lib.stride_tricks import as_strided
from threadpoolctl import threadpool_limits

from skfair.neighbors._kernel import gram_tolerance, merge_best, paired_sqdist, project

# Gram entries (anchor x complement row) computed per batch of matrix products: bounds the
# working memory and keeps a batch in cache.
_PAIR_BUDGET = 2**17
# Complement positions (in units of m2) at which consecutive blocks of anchors start.
_BLOCK_WIDTH = 2


def approx_other_group(ZT, attribute_codes, n_groups, projections, m2, *, n_jobs=None):
    """Run AcceleDist for every projection and attribute, reducing as the results arrive.

    Parameters
    ----------
    ZT : ndarray of shape (n_features, n_samples)
    attribute_codes : ndarray of shape (n_samples, n_attributes)
    n_groups : sequence of int, one per attribute
    projections : ndarray of shape (m1, n_e, n_features), unit rows
    m2 : int

    Returns
    -------
    paper_max, paper_sum : ndarray of shape (n_attributes,)
        ``min`` over all projections of ``max_p d_min(p)`` and of ``sum_p d_min(p)`` (Algorithm
        2, lines 6-8: the minimum of whole sums, not of per-point values).
    pointwise_sqdist, pointwise_index : ndarray of shape (n_samples, n_attributes)
        Per point, the smallest squared candidate distance over all projections and its row.
    """
    n = ZT.shape[1]
    n_attributes = attribute_codes.shape[1]
    centred = _CentredRows.from_transposed(ZT)
    paper_max = np.full(n_attributes, np.inf)
    paper_sum = np.full(n_attributes, np.inf)
    pointwise_sqdist = np.full((n, n_attributes), np.inf)
    pointwise_index = np.full((n, n_attributes), -1, dtype=np.intp)
    jobs = (
        delayed(_one_repetition)(ZT, centred, attribute_codes, n_groups, directions, m2)
        for directions in projections
    )
    # Many small products: BLAS threads would only contend (and stall under load).
    with threadpool_limits(limits=1, user_api="blas"):
        repetitions = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(jobs)
        for repetition in repetitions:
            for sqdist, index in repetition:  # one (n, n_attributes) pair per direction
                distance = np.sqrt(sqdist)
                paper_max = np.minimum(paper_max, distance.max(axis=0))
                paper_sum = np.minimum(paper_sum, distance.sum(axis=0))
                for a in range(n_attributes):
                    merge_best(
                        pointwise_sqdist[:, a], pointwise_index[:, a], sqdist[:, a], index[:, a]
                    )
    return paper_max, paper_sum, pointwise_sqdist, pointwise_index


class _CentredRows:
    """Centred rows and their squared norms, for Gram-form squared distances
    ``|a|^2 + |c|^2 - 2 a.c``, with the tolerance of that form (the mean does not change any
    distance and keeps the rounding small)."""

    def __init__(self, points, sqnorm, tolerance):
        self.points = points
        self.sqnorm = sqnorm
        self.tolerance = tolerance

    @classmethod
    def from_transposed(cls, ZT):
        centred = ZT.T - ZT.mean(axis=1)
        sqnorm = np.einsum("ij,ij->i", centred, centred)
        return cls(centred, sqnorm, gram_tolerance(ZT.shape[0], sqnorm.max()))

    def take(self, order):
        return _CentredRows(self.points[order], self.sqnorm[order], self.tolerance)


def _one_repetition(ZT, centred, attribute_codes, n_groups, directions, m2):
    """AcceleDist (Algorithm 3) for each of the ``n_e`` orthonormal directions of one draw.

    The sort serves every attribute (spec §8.2, lever 1).
    """
    n, n_attributes = attribute_codes.shape
    results = []
    for w in directions:
        order = np.argsort(project(ZT, w), kind="stable")
        # One sorted copy of the centred rows serves every attribute and group.
        sorted_rows = centred.take(order)
        # The kernel reads the sorted coordinates: nearby positions, cache-friendly gathers.
        ZT_sorted = np.take(ZT, order, axis=1)
        sqdist = np.full((n, n_attributes), np.inf)
        index = np.full((n, n_attributes), -1, dtype=np.intp)
        for a in range(n_attributes):
            codes_sorted = attribute_codes[order, a]
            for group in range(n_groups[a]):
                in_group = codes_sorted == group
                anchors = np.flatnonzero(in_group)
                others = np.flatnonzero(~in_group)
                if anchors.size == 0 or others.size == 0:
                    continue
                rows = order[anchors]
                sqdist[rows, a], index[rows, a] = _accele_group(
                    ZT_sorted, sorted_rows, order, anchors, others, m2
                )
        results.append((sqdist, index))
    return results


def _accele_group(ZT_sorted, sorted_rows, order, anchors, others, m2):
    """Best of the ``m2`` nearest complement positions on each side of every anchor.

    ``anchors`` and ``others`` are ascending sorted positions. The candidates of an anchor
    with ``k`` complement positions to its left are ``others[k - m2 : k + m2]`` (those that
    exist). Returns the kernel's squared distance to, and the row of, the best candidate (the
    smallest row among exact ties, whatever the sorted order).
    """
    split = np.searchsorted(others, anchors)
    gram = _window_gram(sorted_rows, anchors, others, split, m2)
    local = np.arange(anchors.size)
    column = np.argmin(gram, axis=1)
    limit = gram[local, column] + sorted_rows.tolerance
    best_position = others[split + column - m2]
    best = paired_sqdist(ZT_sorted, anchors, best_position)
    best_row = order[best_position]
    # Near-ties in Gram form (rare): the kernel decides among every candidate within tolerance.
    gram[local, column] = np.inf
    tied = np.flatnonzero(gram.min(axis=1) <= limit)
    if tied.size:
        owner, slot = np.nonzero(gram[tied] <= limit[tied, None])
        owner = tied[owner]
        position = others[split[owner] + slot - m2]
        value = paired_sqdist(ZT_sorted, anchors[owner], position)
        candidate_row = order[position]
        # The best of each anchor's near-ties: smallest value, then smallest row.
        first = np.lexsort((candidate_row, value, owner))
        keep = first[np.r_[True, owner[first][1:] != owner[first][:-1]]]
        target = owner[keep]
        current_best, current_row = best[target], best_row[target]
        merge_best(current_best, current_row, value[keep], candidate_row[keep])
        best[target], best_row[target] = current_best, current_row
    return best, best_row


def _window_gram(sorted_rows, anchors, others, split, m2):
    """Gram-form squared distances of every anchor to its ``2 m2`` complement positions from
    ``split - m2``, shape (n_anchors, 2 m2), ``inf`` where a position falls outside the
    complement.

    Block ``b`` holds the anchors with ``split`` in ``[b T, (b + 1) T)``, ``T = 2 m2``; their
    windows lie in the ``2 T`` complement positions from ``b T - m2``: an overlapping view of
    the padded sorted complement, so the only copies are the complement and the anchors.
    """
    width = 2 * m2
    step_positions = _BLOCK_WIDTH * m2
    stretch = step_positions + width
    n_anchors, n_others = anchors.size, others.size
    n_blocks = n_others // step_positions + 1
    n_padded = n_blocks * step_positions + width
    padded = np.empty((n_padded, sorted_rows.points.shape[1]))
    padded_sqnorm = np.zeros(n_padded)
    padded[:m2] = 0
    padded[m2 + n_others :] = 0
    np.take(sorted_rows.points, others, axis=0, out=padded[m2 : m2 + n_others])
    np.take(sorted_rows.sqnorm, others, out=padded_sqnorm[m2 : m2 + n_others])
    row_step, column_step = padded.strides
    windows = as_strided(
        padded,
        shape=(n_blocks, stretch, padded.shape[1]),
        strides=(step_positions * row_step, row_step, column_step),
        writeable=False,
    )
    block = split // step_positions
    counts = np.bincount(block, minlength=n_blocks)
    starts = np.cumsum(counts) - counts
    rank = np.arange(n_anchors) - starts[block]
    offset = split - block * step_positions
    products_band = np.empty((n_anchors, width))
    # Batches of consecutive blocks, each padded to its largest block (by repeating a row).
    per_block = stretch * max(1.0, 2 * n_anchors / n_blocks)
    step = max(1, int(_PAIR_BUDGET // per_block))
    for first in range(0, n_blocks, step):
        last = min(first + step, n_blocks)
        mine = slice(starts[first], starts[last - 1] + counts[last - 1])
        if mine.start == mine.stop:
            continue
        chunk_counts = counts[first:last, None]
        member = starts[first:last, None] + np.minimum(
            np.arange(chunk_counts.max()), chunk_counts - 1
        )
        np.clip(member, 0, n_anchors - 1, out=member)
        anchor_rows = sorted_rows.points[anchors[member]]
        products = np.matmul(anchor_rows, windows[first:last].transpose(0, 2, 1))
        slot = ((block[mine] - first) * member.shape[1] + rank[mine]) * stretch + offset[mine]
        products_band[mine] = np.take(products, slot[:, None] + np.arange(width))
    # Gram form |a|^2 + |c|^2 - 2 a.c on the band only.
    gram = np.take(padded_sqnorm, split[:, None] + np.arange(width))
    gram += sorted_rows.sqnorm[anchors, None]
    products_band *= 2
    gram -= products_band
    # Only the first and last anchors can have windows reaching past the complement.
    edge = np.r_[
        : np.searchsorted(split, m2),
        np.searchsorted(split, n_others - m2, side="right") : n_anchors,
    ]
    position = split[edge, None] + np.arange(-m2, m2)
    gram[edge] = np.where((position < 0) | (position >= n_others), np.inf, gram[edge])
    return gram
