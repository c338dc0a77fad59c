"""Exact nearest other-group neighbour with one KD-tree per group complement."""

import time

import numpy as np
from scipy.spatial import cKDTree

from skfair.neighbors._kernel import paired_sqdist

# scipy's distances may differ from the kernel's by a few ulps; any candidate within this
# relative band of the tree's nearest distance is re-evaluated with the kernel.
_TIE_BAND = 1e-9
# Sliding-midpoint trees with 32 points per leaf: cheaper to build than median-balanced ones
# and faster to query for two neighbours (measured at n = 10^5, 10 features: 1.3x on latent,
# 1.6x on uniform and 2x to 3x on tabular data with many one-hot columns).
_TREE_OPTIONS = {"leafsize": 32, "balanced_tree": False}
# Where each query visits many leaves (data of high intrinsic dimension, a pilot's query
# estimate more than ``_LARGE_LEAF_RATIO`` times its construction), leaves of 64 points halve
# the nodes a query walks through: 1.1x faster queries on uniform data, p = 10 (ratio 40),
# but 1.05x to 1.15x slower on latent and one-hot tabular data (ratio 4 to 7).
_LARGE_LEAF_RATIO = 16
_LARGE_LEAFSIZE = 64
# Pilot: runs of consecutive anchors (in the spatial order of the queries), in the middle of
# equal shares of the anchors, so that the sample sees both the data's regions and the cache
# reuse of consecutive queries; the first anchors of each run warm the cache and are not
# timed (without, up to 5x too high). ``_PILOT_MIN_RUNS`` runs per group to compare frames,
# ``_PILOT_RUNS`` per group to face the block tree, out of ``_PILOT_MAX_RUNS`` positions.
_PILOT_MIN_RUNS = 8
_PILOT_RUNS = 16
_PILOT_MAX_RUNS = 64
_PILOT_WARM = 64
_PILOT_RUN_LENGTH = 64


def kd_tree_other_group(Z, ZT, attribute_codes, n_groups, *, frame=None, n_jobs=None):
    """Squared distance to, and row of, the nearest point of another group, per attribute.

    ``frame`` (a :class:`~skfair.neighbors._principal.PrincipalFrame`) builds the trees in the
    principal coordinates; None, in the coordinates of ``Z``. See :class:`KDTreeSearch`.
    """
    return KDTreeSearch(Z, ZT, attribute_codes, n_groups, frame=frame).run(n_jobs)


class KDTreeSearch:
    """One KD-tree per group complement, queried for two neighbours, checked by the kernel.

    The tree only *selects* candidates; the reported value is the kernel's, so the result is
    bit-identical to brute force. When the two nearest tree distances are within a relative
    1e-9 of each other (plus, in principal coordinates, twice the frame's rounding margin),
    every complement point in that ball is evaluated with the kernel and the smallest row wins
    among exact ties.

    In principal coordinates the tree's splits follow the directions in which the data spread,
    so points on a few latent factors get tight boxes whatever the number of features (at
    n = 8*10^4 with 20 to 50 features on 3 factors, 3x to 8x faster queries); on data whose
    structure follows the axes (one-hot columns, a uniform cube) the original coordinates are
    better. :meth:`pilot` measures one or the other.

    Parameters
    ----------
    Z, ZT, attribute_codes, n_groups
        The rows, their groups and the number of groups of each attribute, as in
        :func:`~skfair.neighbors._block_tree.block_tree_other_group`.
    frame : PrincipalFrame or None
        Build the trees in its principal coordinates.
    order : ndarray of int, default=None
        Every row, in a spatial order (consecutive rows close together), for the trees and the
        queries; None: the leaf order of a tree on all rows.
    """

    def __init__(self, Z, ZT, attribute_codes, n_groups, *, frame=None, order=None):
        self.ZT = ZT
        self.codes = attribute_codes
        self.n_groups = list(n_groups)
        self.name = "kd_tree" if frame is None else "kd_tree in principal coordinates"
        self.coords = Z if frame is None else frame.coordinates()
        # Distances between rotated rows are off by up to twice a row's rounding.
        self.slack = 0.0 if frame is None else 2 * frame.row_error
        self.order = order
        self._order_given = order is not None
        # Set by :meth:`pilot`: its estimate of the time spent building trees.
        self.pilot_build_seconds = 0.0
        self._trees = {}
        self._leafsize = _TREE_OPTIONS["leafsize"]
        self._rows_built = 0
        # The pilot's measurements: seconds spent building, and per anchor in each run of each
        # group.
        self._pilot_build = 0.0
        self._pilot_runs = {}
        self._sizes = [
            np.bincount(attribute_codes[:, a], minlength=k) for a, k in enumerate(self.n_groups)
        ]

    def _searched(self, a, group):
        """Whether ``group`` of attribute ``a`` has rows, and so does its complement."""
        size = self._sizes[a][group]
        return 0 < size < self.codes.shape[0]

    def _spatial_order(self):
        """Every row, in the leaf order of a tree on all rows (built once)."""
        if self.order is None:
            # Only the leaves' partition of the rows is used, not the nodes' bounding boxes,
            # which take a third of the construction (0.018 s -> 0.012 s at n = 8*10^4).
            tree = cKDTree(self.coords, **_TREE_OPTIONS, compact_nodes=False)
            self.order = tree.indices
            self._rows_built += self.order.size
        return self.order

    def _tree(self, a, group):
        """The tree of the complement of ``group`` (built once) and its rows.

        The rows are taken in the spatial order, so that the points of a leaf lie together in
        memory (scipy reads them through its index array): queries 1.2x to 1.6x faster at
        n = 8*10^4.
        """
        key = (a, group)
        if key not in self._trees:
            order = self._spatial_order()
            others = order[self.codes[order, a] != group]
            options = {**_TREE_OPTIONS, "leafsize": self._leafsize}
            self._trees[key] = (cKDTree(self.coords[others], **options), others)
            self._rows_built += others.size
        return self._trees[key]

    def _anchors(self, a, group):
        """The rows of ``group`` in the spatial order: consecutive queries then walk the same
        branches, which stay in cache (measured 1.1x to 1.4x faster at n = 10^5)."""
        order = self._spatial_order()
        return order[self.codes[order, a] == group]

    def _search(self, a, group, anchors, workers):
        """Kernel squared distance to, and row of, the nearest complement row of each anchor."""
        tree, others = self._tree(a, group)
        query = self.coords[anchors]
        # With a one-point complement the second distance is inf: unambiguous.
        dist, position = tree.query(query, k=2, workers=workers)
        nearest = others[position[:, 0]]
        reach = dist[:, 0] * (1 + _TIE_BAND) + self.slack
        ambiguous = ~(dist[:, 1] > reach)
        sqdist = paired_sqdist(self.ZT, anchors, nearest)
        index = nearest
        if ambiguous.any():
            tied = np.flatnonzero(ambiguous)
            balls = tree.query_ball_point(query[tied], reach[tied], workers=workers)
            sizes = np.fromiter(map(len, balls), dtype=np.intp, count=tied.size)
            members = others[np.concatenate(balls).astype(np.intp)]
            owners = np.repeat(np.arange(tied.size), sizes)
            pair_sqdist = paired_sqdist(self.ZT, anchors[tied][owners], members)
            # Smallest distance first, then smallest row: the first entry of each anchor wins.
            order = np.lexsort((members, pair_sqdist, owners))
            first = order[np.searchsorted(owners[order], np.arange(tied.size))]
            sqdist[tied] = pair_sqdist[first]
            index[tied] = members[first]
        return sqdist, index

    def fit_leaves(self, estimate):
        """Take large leaves for the trees of :meth:`run` when the pilot's ``estimate`` (of
        this search) shows queries that visit many leaves (see ``_LARGE_LEAF_RATIO``); the
        pilot's trees are then built again."""
        if estimate > _LARGE_LEAF_RATIO * self.pilot_build_seconds:
            self._leafsize = _LARGE_LEAFSIZE
            self._trees = {}

    def run(self, n_jobs=None):
        """Search every attribute; return ``sqdist, index`` of shape (n, n_attributes)."""
        n, n_attributes = self.codes.shape
        workers = -1 if n_jobs == -1 else (n_jobs or 1)
        sqdist = np.full((n, n_attributes), np.inf)
        index = np.full((n, n_attributes), -1, dtype=np.intp)
        for a, n_groups in enumerate(self.n_groups):
            for group in range(n_groups):
                if self._searched(a, group):
                    anchors = self._anchors(a, group)
                    sqdist[anchors, a], index[anchors, a] = self._search(a, group, anchors, workers)
            # This attribute's trees are no longer needed.
            self._trees = {key: tree for key, tree in self._trees.items() if key[0] != a}
        return sqdist, index

    def pilot(self, budget=np.inf, every_group=False):
        """Estimated seconds of :meth:`run` in one thread, measured on a sample.

        For the largest group of the first searched attribute, the complement tree is built
        (and kept for :meth:`run`) and ``_PILOT_MIN_RUNS`` runs of consecutive anchors are
        searched; with ``every_group``, ``_PILOT_RUNS`` runs for each of its groups (a second
        call measures only what the first did not). The build time is scaled by the rows
        of every tree to build, each group's search time per anchor by its anchors (a group
        not measured takes the mean of those measured). The pilot stops once its estimate
        exceeds ``budget`` after ``_PILOT_MIN_RUNS`` runs of a group.

        The runs are the same for every frame, so that two frames are compared on the same
        anchors: the cost of a query is heavy-tailed and varies by region (on one-hot data one
        run may cost 100 times another), which makes a single estimate uncertain (within about
        2x on such data, measured at n = 8*10^4) but a comparison on the same sample sound.
        The largest group's complement is the sparsest, so its queries reach farthest:
        measured alone, it overestimates, alike in every frame.
        """
        n_runs = _PILOT_RUNS if every_group else _PILOT_MIN_RUNS
        n = self.codes.shape[0]
        searched = [a for a, k in enumerate(self.n_groups) if k >= 2 and self._sizes[a].max() < n]
        if not searched:
            return 0.0
        a = searched[0]
        sizes = self._sizes[a]
        groups = np.flatnonzero((sizes > 0) & (sizes < n)) if every_group else [np.argmax(sizes)]
        # Every complement tree (an attribute of k groups: (k - 1) n rows), and the order tree.
        rows_to_build = sum(n * (self.n_groups[b] - 1) for b in searched)
        rows_to_build += 0 if self._order_given else n
        estimate = self._estimate(a, rows_to_build, len(searched))
        for group in (int(g) for g in groups):
            run_costs = self._pilot_runs.setdefault(group, [])
            if len(run_costs) >= n_runs:
                continue
            start = time.thread_time()
            anchors = self._anchors(a, group)
            self._tree(a, group)
            self._pilot_build += time.thread_time() - start
            # The fixed cost of a call, which the run pays once per group, not once per few
            # anchors, is measured on no anchor and left out of the estimate (the smaller of
            # two calls: the first call on a new tree also pays one-time costs).
            call_seconds = np.inf
            for _ in range(2):
                start = time.thread_time()
                self._search(a, group, anchors[:0], 1)
                call_seconds = min(call_seconds, time.thread_time() - start)
            length = min(_PILOT_WARM + _PILOT_RUN_LENGTH, anchors.size)
            warm = min(_PILOT_WARM, length // 2)
            firsts = _pilot_runs(anchors.size, length)
            for first in firsts[len(run_costs) : n_runs]:
                # The first anchors of a run bring its region of the tree into the cache,
                # where the sequential run finds it: only the rest are timed.
                if warm:
                    self._search(a, group, anchors[first : first + warm], 1)
                start = time.thread_time()
                self._search(a, group, anchors[first + warm : first + length], 1)
                seconds = time.thread_time() - start - call_seconds
                run_costs.append(max(seconds, 0.0) / (length - warm))
                estimate = self._estimate(a, rows_to_build, len(searched))
                if estimate > budget and len(run_costs) >= _PILOT_MIN_RUNS:
                    return estimate
        return estimate

    def _estimate(self, a, rows_to_build, n_attributes):
        """The pilot's extrapolation to the whole run (see :meth:`pilot`)."""
        build = self._pilot_build * rows_to_build / max(self._rows_built, 1)
        self.pilot_build_seconds = build
        sizes = self._sizes[a]
        measured = {group: np.mean(costs) for group, costs in self._pilot_runs.items() if costs}
        if not measured:
            return build
        per_anchor = np.full(sizes.size, np.mean(list(measured.values())))
        for group, seconds in measured.items():
            per_anchor[group] = seconds
        return build + per_anchor @ sizes * n_attributes


def _pilot_runs(n_anchors, length):
    """First anchors of the pilot's runs: the middles of ``_PILOT_MAX_RUNS`` equal shares, in
    an order whose every prefix of ``2**k`` runs is spread evenly (bit reversal)."""
    bits = int(np.log2(_PILOT_MAX_RUNS))
    shares = np.arange(_PILOT_MAX_RUNS)
    reversed_bits = sum(((shares >> bit) & 1) << (bits - 1 - bit) for bit in range(bits))
    middles = (reversed_bits + 0.5) * n_anchors / _PILOT_MAX_RUNS
    firsts = np.clip(middles - length / 2, 0, n_anchors - length).astype(np.intp)
    # Small groups: fewer distinct runs.
    _, first_seen = np.unique(firsts, return_index=True)
    return firsts[np.sort(first_seen)]
