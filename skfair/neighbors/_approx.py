"""The paper's AcceleDist / ApproxDist in searchsorted form (Algorithms 2 and 3).

For one projection direction, the rows are sorted by their projection; each anchor compares
itself with at most ``m2`` other-group points on each side in that order (same-group points are
skipped and do not count). The reference implementation finds them with an unbounded scan,
O(n) per anchor in the worst case; here one ``searchsorted`` into the sorted positions of the
anchor's complement finds them in O(log n), with the same candidate set (spec §3.3).
"""

import numpy as np
from joblib import Parallel, delayed

from skfair.neighbors._kernel import argmin_smallest_row, merge_best, paired_sqdist, project

# Anchor-candidate pairs evaluated per block, which bounds the working memory.
_PAIR_BUDGET = 2**20


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
    slack = _slack(ZT)
    paper_max = np.full(n_attributes, np.inf)
    paper_sum = np.full(n_attributes, np.inf)
    pointwise_sqdist = np.full((n, n_attributes), np.inf)
    pointwise_index = np.full((n, n_attributes), -1, dtype=np.intp)
    jobs = (
        delayed(_one_repetition)(ZT, attribute_codes, n_groups, directions, m2, slack)
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


def _one_repetition(ZT, attribute_codes, n_groups, directions, m2, slack):
    """AcceleDist (Algorithm 3) for each of the ``n_e`` orthonormal directions of one draw."""
    projected = np.stack([project(ZT, w) for w in directions])
    results = []
    for g in projected:
        order = np.argsort(g, kind="stable")
        ZT_sorted = ZT[:, order]
        projected_sorted = projected[:, order]
        n, n_attributes = attribute_codes.shape
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
                    ZT_sorted, projected_sorted, order, anchors, others, m2, slack
                )
        results.append((sqdist, index))
    return results


def _accele_group(ZT_sorted, projected_sorted, order, anchors, others, m2, slack):
    """Best of the ``m2`` nearest complement positions on each side of every anchor.

    Works on sorted positions and returns the squared distance and the row of the best
    candidate (the smallest row among exact ties, whatever the sorted order). The two adjacent
    candidates are evaluated first; the others only when the lower bound
    ``sqrt(sum_k (g_k(p) - g_k(q))**2)`` over the repetition's orthonormal directions (which
    never exceeds the distance) does not already rule them out. Skipped candidates are
    strictly farther than the best one, so the result is unchanged (spec §3.3, §8.2 lever 2).
    """
    offsets = np.concatenate([-1 - np.arange(m2), np.arange(m2)])  # nearest first per side
    adjacent = np.array([0, m2])
    rest = np.setdiff1d(np.arange(2 * m2), adjacent)
    best = np.empty(anchors.size)
    best_row = np.empty(anchors.size, dtype=np.intp)
    step = max(1, _PAIR_BUDGET // (2 * m2))
    for start in range(0, anchors.size, step):
        chunk = anchors[start : start + step]
        slots = np.searchsorted(others, chunk)[:, None] + offsets
        inside = (slots >= 0) & (slots < others.size)
        candidates = others[np.clip(slots, 0, others.size - 1)]
        block = np.full(slots.shape, np.inf)
        near = inside[:, adjacent]
        owner, column = np.nonzero(near)
        block[owner, adjacent[column]] = paired_sqdist(
            ZT_sorted, chunk[owner], candidates[owner, adjacent[column]]
        )
        bound = np.sqrt(block[:, adjacent].min(axis=1)) + slack
        lower = _lower_bound(projected_sorted, chunk, candidates[:, rest])
        owner, column = np.nonzero(inside[:, rest] & (lower <= bound[:, None]))
        block[owner, rest[column]] = paired_sqdist(
            ZT_sorted, chunk[owner], candidates[owner, rest[column]]
        )
        best[start : start + step], best_row[start : start + step] = argmin_smallest_row(
            block, order[candidates]
        )
    return best, best_row


def _lower_bound(projected_sorted, anchors, candidates):
    acc = None
    for g in projected_sorted:
        diff = g[anchors][:, None] - g[candidates]
        np.multiply(diff, diff, out=diff)
        acc = diff if acc is None else acc + diff
    return np.sqrt(acc)


def _slack(ZT):
    # Projections carry a rounding error of a few ulps of the largest norm (spec §3.6 a).
    n_features = ZT.shape[0]
    radius = np.sqrt(np.max(np.sum(ZT * ZT, axis=0)))
    return 8 * (n_features + 2) * np.finfo(np.float64).eps * radius
