"""Exact nearest other-group neighbour with one KD-tree per group complement (spec §3.6 b)."""

import numpy as np
from scipy.spatial import cKDTree

from skfair.neighbors._kernel import paired_sqdist

# scipy's distances may differ from the kernel's by a few ulps; any candidate within this
# relative band of the tree's nearest distance is re-evaluated with the kernel.
_TIE_BAND = 1e-9


def kd_tree_other_group(Z, ZT, codes, n_groups, *, n_jobs=None):
    """Squared distance to, and row of, the nearest point of another group.

    The tree only *selects* candidates; the reported value is the kernel's, so the result is
    bit-identical to brute force. When the two nearest tree distances are within a relative
    1e-9 of each other, every complement point in that ball is evaluated with the kernel and the
    smallest row index wins among exact ties.
    """
    n = codes.shape[0]
    workers = -1 if n_jobs == -1 else (n_jobs or 1)
    sqdist = np.full(n, np.inf)
    index = np.full(n, -1, dtype=np.intp)
    for group in range(n_groups):
        anchors = np.flatnonzero(codes == group)
        others = np.flatnonzero(codes != group)
        if anchors.size == 0 or others.size == 0:
            continue
        tree = cKDTree(Z[others])
        # With a one-point complement the second distance is inf: unambiguous.
        dist, pos = tree.query(Z[anchors], k=2, workers=workers)
        nearest = others[pos[:, 0]]
        ambiguous = ~(dist[:, 1] > dist[:, 0] * (1 + _TIE_BAND))
        clear = ~ambiguous
        sqdist[anchors[clear]] = paired_sqdist(ZT, anchors[clear], nearest[clear])
        index[anchors[clear]] = nearest[clear]
        if ambiguous.any():
            tied = anchors[ambiguous]
            balls = tree.query_ball_point(
                Z[tied], dist[ambiguous, 0] * (1 + _TIE_BAND), workers=workers
            )
            sizes = np.fromiter(map(len, balls), dtype=np.intp, count=tied.size)
            members = others[np.concatenate(balls).astype(np.intp)]
            owners = np.repeat(np.arange(tied.size), sizes)
            pair_sqdist = paired_sqdist(ZT, tied[owners], members)
            # Smallest distance first, then smallest row: the first entry of each anchor wins.
            order = np.lexsort((members, pair_sqdist, owners))
            first = order[np.searchsorted(owners[order], np.arange(tied.size))]
            sqdist[tied] = pair_sqdist[first]
            index[tied] = members[first]
    return sqdist, index
