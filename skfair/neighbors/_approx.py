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
    gram_rows = _GramRows(ZT)
    paper_max = np.full(n_attributes, np.inf)
    paper_sum = np.full(n_attributes, np.inf)
    pointwise_sqdist = np.full((n, n_attributes), np.inf)
    pointwise_index = np.full((n, n_attributes), -1, dtype=np.intp)
    jobs = (
        delayed(_one_repetition)(ZT, gram_rows, attribute_codes, n_groups, directions, m2)
        for directions in projections
    )
    # Many small products: BLAS threads would only contend (and stall under load).
    with threadpool_limits(limits=1, user_api="blas"):
        repetitions = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(jobs)
        repetitions = list(repetitions)
    for repetition in repetitions:
        for sqdist, index in repetition:  # one (n, n_attributes) pair per direction
            distance = np.sqrt(sqdist)
            paper_max = np.minimum(paper_max, distance.max(axis=0))
            paper_sum = np.minimum(paper_sum, distance.sum(axis=0))
            for a in range(n_attributes):
                merge_best(pointwise_sqdist[:, a], pointwise_index[:, a], sqdist[:, a], index[:, a])
    return paper_max, paper_sum, pointwise_sqdist, pointwise_index


class _GramRows:
    """Centred rows augmented so that one product gives Gram-form squared distances.

    ``anchor[i] . candidate[j] = |c_i|^2 + |c_j|^2 - 2 c_i . c_j`` for the centred rows ``c``:
    ``anchor = [-2 c, 1, |c|^2]`` and ``candidate = [c, |c|^2, 1]``.
    """

    def __init__(self, ZT):
        centred = ZT.T - ZT.mean(axis=1)
        sqnorm = np.einsum("ij,ij->i", centred, centred)
        ones = np.ones_like(sqnorm)
        self.anchor = np.column_stack([-2 * centred, ones, sqnorm])
        self.candidate = np.column_stack([centred, sqnorm, ones])
        self.tolerance = gram_tolerance(ZT.shape[0], sqnorm.max())


def _one_repetition(ZT, gram_rows, attribute_codes, n_groups, directions, m2):
    """AcceleDist (Algorithm 3) for each of the ``n_e`` orthonormal directions of one draw.

    The sort serves every attribute (spec §8.2, lever 1).
    """
    n, n_attributes = attribute_codes.shape
    results = []
    for w in directions:
        order = np.argsort(project(ZT, w), kind="stable")
        # One sorted copy of the augmented rows serves every attribute and group.
        sorted_rows = _GramRows.__new__(_GramRows)
        sorted_rows.anchor = gram_rows.anchor[order]
        sorted_rows.candidate = gram_rows.candidate[order]
        sorted_rows.tolerance = gram_rows.tolerance
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
    """Gram values of every anchor against its ``2 m2`` complement positions from
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
    padded = np.zeros((n_blocks * step_positions + width, sorted_rows.candidate.shape[1]))
    np.take(sorted_rows.candidate, others, axis=0, out=padded[m2 : m2 + n_others])
    row_step, column_step = padded.strides
    windows = as_strided(
        padded,
        shape=(n_blocks, stretch, padded.shape[1]),
        strides=(step_positions * row_step, row_step, column_step),
        writeable=False,
    )
    block = split // step_positions
    counts = np.bincount(block, minlength=n_blocks)
    ends = np.cumsum(counts)
    rank = np.arange(n_anchors) - (ends - counts)[block]
    band = (split - block * step_positions)[:, None] + np.arange(width)
    gram = np.empty((n_anchors, width))
    # Batches of consecutive blocks, each padded to its largest block.
    per_block = stretch * max(1.0, 2 * n_anchors / n_blocks)
    step = max(1, int(_PAIR_BUDGET // per_block))
    for first in range(0, n_blocks, step):
        last = min(first + step, n_blocks)
        mine = slice(ends[first] - counts[first], ends[last - 1])
        if mine.start == mine.stop:
            continue
        local_block = block[mine] - first
        anchor_rows = np.zeros((last - first, counts[first:last].max(), padded.shape[1]))
        anchor_rows[local_block, rank[mine]] = sorted_rows.anchor[anchors[mine]]
        products = np.matmul(anchor_rows, windows[first:last].transpose(0, 2, 1))
        slot = (local_block * products.shape[1] + rank[mine]) * stretch
        gram[mine] = np.take(products, slot[:, None] + band[mine])
    position = split[:, None] + np.arange(-m2, m2)
    gram[(position < 0) | (position >= n_others)] = np.inf
    return gram
