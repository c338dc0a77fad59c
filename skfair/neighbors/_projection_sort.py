"""Exact nearest other-group neighbour by projection sort with the gap stopping bound.

For a unit vector ``w``, ``|<w, u> - <w, v>| <= |u - v|`` (Cauchy-Schwarz). Scanning outward
from an anchor through the sorted positions of the other groups, a side can stop as soon as the
projection gap exceeds the best distance found so far. All anchors advance
together in windows of doubling width, so there is no Python loop over samples.
"""

import numpy as np

from skfair.neighbors._kernel import argmin_smallest_row, merge_best, paired_sqdist, project

_FIRST_WINDOW = 4
# Cap on anchors x window entries per round, so memory stays O(n) in high dimension.
_ROUND_BUDGET = 2**22


def projection_sort_other_group(Z, ZT, codes, n_groups):
    """Squared distance to, and row of, the nearest point of another group (exact)."""
    n, n_features = Z.shape
    centred_T = ZT - ZT.mean(axis=1, keepdims=True)
    direction = _leading_direction(centred_T)
    g = project(centred_T, direction)
    # Floating-point slack of the bound: the projection of centred rows is accurate to a few
    # ulps of the largest centred norm.
    radius = np.sqrt(np.max(np.sum(centred_T * centred_T, axis=0)))
    slack = 8 * (n_features + 2) * np.finfo(np.float64).eps * radius
    order = np.argsort(g, kind="stable")
    g_sorted = g[order]
    codes_sorted = codes[order]

    sqdist = np.full(n, np.inf)
    index = np.full(n, -1, dtype=np.intp)
    for group in range(n_groups):
        in_group = codes_sorted == group
        others = np.flatnonzero(~in_group)  # sorted positions of the complement
        anchors = np.flatnonzero(in_group)
        if anchors.size == 0 or others.size == 0:
            continue
        best, best_index = _scan(ZT, order, g_sorted, anchors, others, slack)
        sqdist[order[anchors]] = best
        index[order[anchors]] = best_index
    return sqdist, index


def _scan(ZT, order, g_sorted, anchors, others, slack):
    """Scan the complement outward from every anchor until both sides are cut off."""
    split = np.searchsorted(others, anchors)  # complement positions left of each anchor
    anchor_rows = order[anchors]
    anchor_g = g_sorted[anchors]
    best = np.full(anchors.size, np.inf)
    best_index = np.full(anchors.size, -1, dtype=np.intp)
    # Next offset to examine on each side; -1 once the side is closed.
    active = np.arange(anchors.size)
    start, width = 0, _FIRST_WINDOW
    while active.size:
        offsets = np.arange(start, start + width)
        left = split[active, None] - 1 - offsets
        right = split[active, None] + offsets
        candidates = np.concatenate([left, right], axis=1)
        inside = (candidates >= 0) & (candidates < others.size)
        positions = others[np.clip(candidates, 0, others.size - 1)]
        gap = np.abs(g_sorted[positions] - anchor_g[active, None])
        bound = np.sqrt(best[active]) + slack
        keep = inside & (gap <= bound[:, None])
        owner, column = np.nonzero(keep)
        rows = order[positions[owner, column]]
        block_sqdist = np.full(candidates.shape, np.inf)
        block_rows = np.zeros(candidates.shape, dtype=np.intp)
        block_sqdist[owner, column] = paired_sqdist(ZT, anchor_rows[active[owner]], rows)
        block_rows[owner, column] = rows
        new_best, new_index = argmin_smallest_row(block_sqdist, block_rows)
        current_best, current_index = best[active], best_index[active]
        merge_best(current_best, current_index, new_best, new_index)
        best[active], best_index[active] = current_best, current_index
        # A side stays open while its last examined candidate exists and is within the bound;
        # gaps only grow outward, so a closed side never reopens.
        bound = np.sqrt(current_best) + slack
        open_left = inside[:, width - 1] & (gap[:, width - 1] <= bound)
        open_right = inside[:, -1] & (gap[:, -1] <= bound)
        active = active[open_left | open_right]
        start += width
        width = max(1, min(2 * width, _ROUND_BUDGET // max(1, active.size)))
    return best, best_index


def _leading_direction(centred_T):
    """Unit direction of largest variance (any unit vector is exact; this one prunes well)."""
    covariance = centred_T @ centred_T.T
    _, vectors = np.linalg.eigh(covariance)
    direction = vectors[:, -1]
    return direction / np.sqrt(direction @ direction)
