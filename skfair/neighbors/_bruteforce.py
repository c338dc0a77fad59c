"""Chunked brute-force nearest other-group neighbour: the definition, used as the oracle."""

import numpy as np
from sklearn import get_config

from skfair.neighbors._kernel import block_sqdist


def bruteforce_other_group(ZT, codes, n_groups, *, chunk_size=None):
    """Squared distance to, and row of, the nearest point of another group (exact, O(n^2)).

    For each group, chunks of its rows are compared with every row of the complement. Memory is
    O(chunk_size * n); the default chunk follows ``sklearn.get_config()["working_memory"]``.
    """
    n = codes.shape[0]
    sqdist = np.full(n, np.inf)
    index = np.full(n, -1, dtype=np.intp)
    for group in range(n_groups):
        anchors = np.flatnonzero(codes == group)
        others = np.flatnonzero(codes != group)
        if anchors.size == 0 or others.size == 0:
            continue
        ZT_others = ZT[:, others]
        step = chunk_size or _default_chunk(others.size)
        for start in range(0, anchors.size, step):
            rows = anchors[start : start + step]
            block = block_sqdist(ZT[:, rows], ZT_others)
            # ``others`` is ascending, so the first column attaining the minimum is the
            # smallest row index among ties.
            position = np.argmin(block, axis=1)
            sqdist[rows] = block[np.arange(rows.size), position]
            index[rows] = others[position]
    return sqdist, index


def _default_chunk(n_candidates):
    # Two (chunk, n_candidates) float64 arrays live at once (accumulator and difference).
    budget = get_config()["working_memory"] * 2**20
    return max(1, int(budget // (16 * n_candidates)))
