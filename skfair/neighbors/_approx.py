"""The paper's AcceleDist / ApproxDist in searchsorted form (Algorithms 2 and 3).

For one projection direction, the rows are sorted by their projection; each anchor compares
itself with at most ``m2`` other-group points on each side in that order (same-group points are
skipped and do not count). The reference implementation finds them with an unbounded scan,
O(n) per anchor in the worst case; here one ``searchsorted`` into the sorted positions of the
anchor's complement finds them in O(log n), with the same candidate set (spec §3.3).
"""

import numpy as np
from joblib import Parallel, delayed
from numpy.lib.stride_tricks import sliding_window_view

from skfair.neighbors._kernel import argmin_smallest_row, merge_best, project

# Anchor-candidate pairs evaluated per block, which bounds the working memory.
_PAIR_BUDGET = 2**16


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
    paper_max = np.full(n_attributes, np.inf)
    paper_sum = np.full(n_attributes, np.inf)
    pointwise_sqdist = np.full((n, n_attributes), np.inf)
    pointwise_index = np.full((n, n_attributes), -1, dtype=np.intp)
    jobs = (
        delayed(_one_repetition)(ZT, attribute_codes, n_groups, directions, m2)
        for directions in projections
    )
    for repetition in Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(jobs):
        for sqdist, index in repetition:  # one (n, n_attributes) pair per direction
            distance = np.sqrt(sqdist)
            paper_max = np.minimum(paper_max, distance.max(axis=0))
            paper_sum = np.minimum(paper_sum, distance.sum(axis=0))
            for a in range(n_attributes):
                merge_best(pointwise_sqdist[:, a], pointwise_index[:, a], sqdist[:, a], index[:, a])
    return paper_max, paper_sum, pointwise_sqdist, pointwise_index


def _one_repetition(ZT, attribute_codes, n_groups, directions, m2):
    """AcceleDist (Algorithm 3) for each of the ``n_e`` orthonormal directions of one draw.

    The sort and the sorted copy of the data serve every attribute (spec §8.2, lever 1).
    """
    n, n_attributes = attribute_codes.shape
    results = []
    for w in directions:
        order = np.argsort(project(ZT, w), kind="stable")
        ZT_sorted = ZT[:, order]
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
                    ZT_sorted, order, anchors, others, m2
                )
        results.append((sqdist, index))
    return results


def _accele_group(ZT_sorted, order, anchors, others, m2):
    """Best of the ``m2`` nearest complement positions on each side of every anchor.

    ``anchors`` and ``others`` are ascending sorted positions. The candidates of an anchor
    with ``k`` complement positions to its left are ``others[k - m2 : k + m2]``: a window of
    fixed width, read for each coordinate from a copy of that coordinate padded with ``inf``
    on both ends, so that missing candidates come out at distance ``inf`` with no masking.
    Returns the squared distance and the row of the best candidate (the smallest row among
    exact ties, whatever the sorted order).
    """
    width = 2 * m2
    split = np.searchsorted(others, anchors)
    best = np.empty(anchors.size)
    best_row = np.empty(anchors.size, dtype=np.intp)
    step = max(1, _PAIR_BUDGET // width)
    padding = np.full(m2, np.inf)
    windows = [
        sliding_window_view(np.concatenate([padding, column[others], padding]), width)
        for column in ZT_sorted
    ]
    for start in range(0, anchors.size, step):
        chunk = slice(start, start + step)
        block = None
        for column, window in zip(ZT_sorted, windows, strict=True):
            # Same operation order as the kernel (spec §3.1), so m2 >= n gives exact values.
            diff = window[split[chunk]] - column[anchors[chunk], None]
            np.multiply(diff, diff, out=diff)
            if block is None:
                block = diff
            else:
                block += diff
        slot = np.argmin(block, axis=1)
        local = np.arange(slot.size)
        best[chunk] = block[local, slot]
        row = order[others[np.clip(split[chunk] + slot - m2, 0, others.size - 1)]]
        # Several candidates at exactly the best distance: take the smallest row.
        tied = np.flatnonzero(np.count_nonzero(block == best[chunk, None], axis=1) > 1)
        if tied.size:
            slots = split[chunk][tied, None] + np.arange(-m2, m2)
            rows = order[others[np.clip(slots, 0, others.size - 1)]]
            _, row[tied] = argmin_smallest_row(block[tied], rows)
        best_row[chunk] = np.where(np.isinf(best[chunk]), -1, row)
    return best, best_row
