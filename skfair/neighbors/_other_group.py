"""Distance from every point to its nearest neighbour in a different group."""

import time
from dataclasses import dataclass

import numpy as np

from skfair._dask import dask_dispatch, refuse
from skfair._utils._compat import (
    SENSITIVE_FEATURES_CONSTRAINT,
    Integral,
    Interval,
    StrOptions,
    validate_params,
)
from skfair._utils._docstrings import with_parts
from skfair._utils._groups import factorize_groups
from skfair.neighbors._approx import approx_other_group
from skfair.neighbors._block_tree import BlockTreeSearch
from skfair.neighbors._bruteforce import bruteforce_other_group
from skfair.neighbors._kd_tree import KDTreeSearch
from skfair.neighbors._principal import PrincipalFrame
from skfair.neighbors._projection_sort import projection_sort_other_group
from skfair.neighbors._projections import default_m2, draw_projections

_METHODS = ("exact", "approx", "bruteforce", "exact_bruteforce")
_ALGORITHMS = ("auto", "kd_tree", "block_tree", "projection")
_POSITIVE_INT = Interval(Integral, 1, None, closed="left")
_SEARCH_CONSTRAINTS = {
    "X": ["array-like"],
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    "method": [StrOptions(set(_METHODS))],
    "algorithm": [StrOptions(set(_ALGORITHMS))],
    "m1": [_POSITIVE_INT],
    "m2": [_POSITIVE_INT, None],
    "n_e": [_POSITIVE_INT],
    "projections": ["array-like", None],
    "random_state": ["random_state"],
    "chunk_size": [_POSITIVE_INT, None],
    "n_jobs": [Integral, None],
    "verbose": ["verbose"],
}
# The engine of ``algorithm="auto"`` (see ``_choose_exact_engine``). Up to this many
# coordinates the KD-tree won on every kind of data measured (latent, one-hot tabular and
# uniform, n = 3*10^4 to 10^5), so the block tree is not measured.
_KD_TREE_MAX_FEATURES = 16
# Below this many rows every engine takes well under a second: a dimension rule decides.
_PILOT_MIN_SAMPLES = 20_000
_BLOCK_TREE_MIN_FEATURES = 32
# The block tree is measured only when the KD-tree's estimate exceeds this many times the
# construction of its trees.
_BLOCK_TREE_PILOT_RATIO = 8
# Leaves (of about 40 rows) searched by the block tree's pilot.
_PILOT_LEAVES = 8
# On dask input: every row's neighbour is searched among all rows of the other groups.
_IN_MEMORY = refuse(
    "the nearest row of another group is searched among all rows, across partitions.",
    'Search an in-memory sample (e.g. ddf.sample(frac=0.01).compute()) with method="approx".',
)


# The parameters that the two public searches document alike.
_documented = with_parts(
    {
        "points": """\
X : array-like of shape (n_samples, n_features)
    The point vectors, used as given (no scaling, no label column added).
sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
    Group of each point; 2-D input is handled one attribute at a time.""",
        "algorithm": """\
algorithm : {"auto", "kd_tree", "block_tree", "projection"}, default="auto"
    Engine of ``method="exact"``: one KD-tree (scipy's ``cKDTree``) per group complement, in
    the original or the principal coordinates; a principal-axis tree whose leaves are
    compared in blocks with BLAS matrix products, then re-evaluated with the exact kernel
    (``"block_tree"``, for many features); or a projection sort that stops each scan with
    the projection-gap bound. ``"auto"`` takes the engine a short pilot measures as cheapest
    (see the Notes of :func:`nearest_other_group`).""",
        "search_parameters": """\
m1 : int, default=25
    Number of projection repetitions (``method="approx"``).
m2 : int, default=None
    Other-group candidates per side and projection; None means ``ceil(2 * log10(n))``.
n_e : int, default=2
    Orthonormal directions per repetition, clamped to ``n_features``.
projections : array-like of shape (m1, n_e, n_features), default=None
    Projection directions to use instead of drawing them (rows are normalised); overrides
    ``m1``, ``n_e`` and ``random_state``.
random_state : int, RandomState instance or None, default=None
    Seed of the projections.
chunk_size : int, default=None
    Anchors per tile of ``method="bruteforce"`` (tiles hold 4096 candidates); None means
    32, which keeps a tile in a 2 MiB cache.
n_jobs : int, default=None
    Threads for the KD-tree queries, the block tree and the projections.
verbose : int, default=0
    With a value above 0, print the engine used (and, for ``algorithm="auto"`` on large
    data, the pilot's cost estimates) and the time taken.""",
    }
)


@dask_dispatch(_IN_MEMORY)
@validate_params(
    {**_SEARCH_CONSTRAINTS, "return_index": ["boolean"]},
    prefer_skip_nested_validation=True,
)
@_documented
def nearest_other_group(
    X,
    *,
    sensitive_features,
    method="exact",
    algorithm="auto",
    m1=25,
    m2=None,
    n_e=2,
    projections=None,
    random_state=None,
    chunk_size=None,
    n_jobs=None,
    verbose=0,
    return_index=False,
):
    """Distance from each point to its nearest neighbour in a different group.

    For one sensitive attribute with groups ``g``, this is
    ``delta(p) = min {|x_p - x_q| : g(q) != g(p)}`` (Euclidean), the primitive behind the
    HFM distances (Bian, Luo & Xu 2024, Eqs. 4-5). Several attributes are treated one by one
    (marginally): column ``j`` of the result uses attribute ``j`` alone.

    Parameters
    ----------
    {points}
    method : {"exact", "approx", "bruteforce"}, default="exact"
        ``"exact"`` gives distances bit-identical to ``"bruteforce"``; its cost approaches
        brute force for data of high intrinsic dimension, where ``"approx"`` stays
        O(n log n). ``"approx"`` gives, per point, the smallest distance among the paper's
        AcceleDist candidates over all projections: an upper bound of the exact distance (this
        per-point minimum is tighter than the paper's aggregate, see
        :func:`other_group_distance`). ``"bruteforce"`` (alias ``"exact_bruteforce"``) is the
        O(n^2) definition, evaluated in cache-sized tiles of anchors and candidates.
    {algorithm}
    {search_parameters}
    return_index : bool, default=False
        Also return the row of the neighbour (the smallest row among exact ties; -1 if none).

    Returns
    -------
    dist : ndarray of shape (n_samples,) or (n_samples, n_attributes)
        ``inf`` for points whose attribute has a single observed value.
    index : ndarray of int, same shape
        Only with ``return_index=True``.

    See Also
    --------
    other_group_distance : The group distances ``D_max`` and ``D_avg`` built from these.
    skfair.metrics.hfm : The fairness measure that compares these distances on true and
        predicted labels.

    Notes
    -----
    Every exact engine only *selects* candidates; the reported distance is recomputed with one
    kernel (coordinates accumulated left to right), and among exactly tied candidates the
    smallest row wins, so all exact engines and brute force agree bit for bit.

    A KD-tree's query cost grows quickly with the intrinsic dimension of the data, which the
    number of coordinates does not reveal: 50 features spanned by 3 latent factors are easy,
    20 uniform ones are not; and it depends on how the data lie against the axes: latent
    factors are best split in principal coordinates, one-hot columns and a uniform cube in the
    original ones. On 20,000 points or more, the KD-tree is timed in both frames on the same
    sample of queries (runs of consecutive queries in the order the full search makes them),
    and, with ``algorithm="auto"`` on more than 16 coordinates when the KD-tree's queries cost
    many times its construction, against the block tree (a few random leaves, whose work is
    kept); the cheapest runs. Below 20,000 points: the KD-tree in the original coordinates,
    or with ``"auto"`` from 32 coordinates on, the block tree. The pilots are timed in CPU
    time of the calling thread, so that the load of a shared machine does not sway them; the
    choice only affects the time, never the result.

    Coordinates must stay below about ``1e150 / sqrt(n_features)`` in absolute value, so that
    squared distances cannot overflow; rescale larger data first (every distance scales with
    it).

    References
    ----------
    Y. Bian, Y. Luo and P. Xu, "Approximating Discrimination Within Models When Faced With
    Several Non-Binary Sensitive Attributes", arXiv:2408.06099, 2024 (Eqs. 4-5; Algorithms 1-3
    for ``method="approx"``).

    Examples
    --------
    >>> from skfair.neighbors import nearest_other_group
    >>> X = [[0.0], [1.0], [3.0], [7.0]]
    >>> nearest_other_group(X, sensitive_features=["a", "b", "a", "b"])
    array([1., 1., 2., 4.])
    """
    search = OtherGroupSearch(
        method, algorithm, m1, m2, n_e, projections, random_state, chunk_size, n_jobs, verbose
    )
    result = _other_group(X, sensitive_features, search)
    dist, index = np.sqrt(result.sqdist), result.index
    if result.one_dimensional:
        dist, index = dist[:, 0], index[:, 0]
    return (dist, index) if return_index else dist


@dask_dispatch(_IN_MEMORY)
@validate_params(_SEARCH_CONSTRAINTS, prefer_skip_nested_validation=True)
@_documented
def other_group_distance(
    X,
    *,
    sensitive_features,
    method="exact",
    algorithm="auto",
    m1=25,
    m2=None,
    n_e=2,
    projections=None,
    random_state=None,
    chunk_size=None,
    n_jobs=None,
    verbose=0,
):
    """Maximal and average distance between the groups of each sensitive attribute.

    ``d_max = max_p delta(p)`` (Eq. 4; for two groups, the Hausdorff distance) and
    ``d_avg = sum_p delta(p) / n`` (Eq. 5), with ``delta`` from :func:`nearest_other_group`.
    With ``method="approx"`` these are the paper's ApproxDist (Algorithm 2): the minimum over
    the ``m1 * n_e`` projections of ``max_p`` and of ``sum_p / n`` of the AcceleDist candidate
    distances, never below the exact values.

    Parameters
    ----------
    {points}
    method : {"exact", "approx", "bruteforce"}, default="exact"
        ``"exact"`` gives the values of ``"bruteforce"`` bit for bit; ``"approx"`` is the
        paper's ApproxDist (Algorithm 2, see above), never below the exact values;
        ``"bruteforce"`` (alias ``"exact_bruteforce"``) is the O(n^2) definition. See
        :func:`nearest_other_group` for the costs.
    {algorithm}
    {search_parameters}

    Returns
    -------
    d_max, d_avg : float, or ndarray of shape (n_attributes,) for 2-D sensitive features
        NaN for an attribute with a single observed value.

    See Also
    --------
    nearest_other_group : The per-point distances behind these.
    skfair.metrics.hfm : The fairness measure built on these distances.

    References
    ----------
    Y. Bian, Y. Luo and P. Xu, "Approximating Discrimination Within Models When Faced With
    Several Non-Binary Sensitive Attributes", arXiv:2408.06099, 2024, Eqs. 4-5 and Algorithm 2.

    Examples
    --------
    >>> from skfair.neighbors import other_group_distance
    >>> X = [[0.0], [1.0], [3.0], [7.0]]
    >>> d_max, d_avg = other_group_distance(X, sensitive_features=["a", "b", "a", "b"])
    >>> float(d_max), float(d_avg)
    (4.0, 2.0)
    """
    search = OtherGroupSearch(
        method, algorithm, m1, m2, n_e, projections, random_state, chunk_size, n_jobs, verbose
    )
    result = _other_group(X, sensitive_features, search)
    d_max, d_avg = result.d_max, result.d_avg
    if result.one_dimensional:
        return float(d_max[0]), float(d_avg[0])
    return d_max, d_avg


class _OtherGroupResult:
    """Per-point squared distances and rows, and the per-attribute aggregates."""

    def __init__(self, sqdist, index, d_max, d_avg, one_dimensional, m2=None):
        self.sqdist = sqdist
        self.index = index
        self.d_max = d_max
        self.d_avg = d_avg
        self.one_dimensional = one_dimensional
        self.m2 = m2


@dataclass(frozen=True)
class OtherGroupSearch:
    """How nearest other-group neighbours are searched: the settings, as one object.

    The fields are the search parameters of :func:`nearest_other_group`; ``verbose > 0``
    prints the engine chosen and the time taken.
    """

    method: str = "exact"
    algorithm: str = "auto"
    m1: int = 25
    m2: int | None = None
    n_e: int = 2
    projections: object = None
    random_state: object = None
    chunk_size: int | None = None
    n_jobs: int | None = None
    verbose: int = 0


def _other_group(X, sensitive_features, search):
    Z = check_points(X)
    groups = factorize_groups(sensitive_features, n_samples=Z.shape[0])
    n_groups = [len(labels) for labels in groups.attribute_labels]
    result = other_group_codes(Z, groups.attribute_codes, n_groups, search)
    result.one_dimensional = groups.one_dimensional
    return result


def other_group_codes(Z, attribute_codes, n_groups, search=None, *, weights=None):
    """Core of the public functions on validated points and integer attribute codes.

    ``attribute_codes`` has shape (n_samples, n_attributes) with values in
    ``range(n_groups[j])``; ``search`` is an :class:`OtherGroupSearch` (None: the defaults).
    ``weights`` (positive, one per row) weight the average distance. Used by
    :func:`skfair.metrics.hfm` to share projections between its runs.
    """
    search = OtherGroupSearch() if search is None else search
    method, algorithm = _resolve_method(search.method, search.algorithm)
    n, n_features = Z.shape
    ZT = np.ascontiguousarray(Z.T)
    n_attributes = attribute_codes.shape[1]
    total_weight = n if weights is None else weights.sum()
    start = time.perf_counter()
    if method == "approx":
        m2 = default_m2(n) if search.m2 is None else search.m2
        projections = _check_projections(
            search.projections, n_features, search.m1, search.n_e, search.random_state
        )
        paper_max, paper_sum, sqdist, index = approx_other_group(
            ZT, attribute_codes, n_groups, projections, m2, weights=weights, n_jobs=search.n_jobs
        )
        d_max = np.where(np.isinf(paper_max), np.nan, paper_max)
        d_avg = np.where(np.isinf(paper_sum), np.nan, paper_sum / total_weight)
        _report(search, f"approx (m1={projections.shape[0]}, m2={m2})", n, n_features, start)
        return _OtherGroupResult(sqdist, index, d_max, d_avg, False, m2)
    if method == "exact" and algorithm != "projection":
        # One engine object serves every attribute (and keeps the pilot's work).
        engine = _exact_engine(Z, ZT, attribute_codes, n_groups, algorithm, search)
        algorithm = engine.name
        sqdist, index = engine.run(search.n_jobs)
    else:
        sqdist = np.empty((n, n_attributes))
        index = np.empty((n, n_attributes), dtype=np.intp)
        for a in range(n_attributes):
            codes = attribute_codes[:, a]
            if method == "bruteforce":
                found = bruteforce_other_group(ZT, codes, n_groups[a], chunk_size=search.chunk_size)
            else:
                found = projection_sort_other_group(Z, ZT, codes, n_groups[a])
            sqdist[:, a], index[:, a] = found
    delta = np.sqrt(sqdist)
    single = np.isinf(delta).any(axis=0)
    d_max = np.where(single, np.nan, delta.max(axis=0))
    # Sum in row order so the value does not depend on the engine.
    weighted = delta if weights is None else weights[:, None] * delta
    d_avg = np.where(single, np.nan, np.sum(weighted, axis=0) / total_weight)
    engine = "bruteforce" if method == "bruteforce" else f"exact ({algorithm})"
    _report(search, engine, n, n_features, start)
    return _OtherGroupResult(sqdist, index, d_max, d_avg, False)


def _report(search, engine, n, n_features, start):
    if search.verbose > 0:
        print(
            f"[nearest_other_group] {engine}: {n} points, {n_features} coordinates, "
            f"{time.perf_counter() - start:.2f} s",
            flush=True,
        )


def _exact_engine(Z, ZT, attribute_codes, n_groups, algorithm, search):
    """The engine of ``method="exact"`` for ``algorithm`` (not ``"projection"``).

    ``"block_tree"`` is the block tree. ``"kd_tree"`` is the KD-tree, in the original or the
    principal coordinates, whichever a pilot measures as cheaper. ``"auto"`` also measures the
    block tree when the data have more than 16 coordinates and the KD-tree's queries cost
    many times its trees' construction (see :func:`_choose_exact_engine`). Below 20,000
    points no pilot runs: the KD-tree in the original coordinates, or for ``"auto"`` from 32
    coordinates on, the block tree. The engines give bit-identical results, so the choice only
    affects the time.
    """
    n, n_features = Z.shape
    if algorithm == "block_tree" or (
        algorithm == "auto" and n < _PILOT_MIN_SAMPLES and n_features >= _BLOCK_TREE_MIN_FEATURES
    ):
        return BlockTreeSearch(Z, ZT, attribute_codes, n_groups)
    if n < _PILOT_MIN_SAMPLES:
        return KDTreeSearch(Z, ZT, attribute_codes, n_groups)
    return _choose_exact_engine(
        Z, ZT, attribute_codes, n_groups, with_block_tree=algorithm == "auto", search=search
    )


def _choose_exact_engine(Z, ZT, attribute_codes, n_groups, *, with_block_tree, search):
    """The exact engine with the smallest measured cost, with its pilot's work kept.

    A KD-tree's query cost grows quickly with the intrinsic dimension of the data, which the
    number of features does not reveal (50 features on 3 latent factors are easy, 20 uniform
    ones are not), and depends on how the data's structure lies against the axes: latent
    factors are best seen in principal coordinates, one-hot columns and a uniform cube in the
    original ones. The block tree's cost is closer to that of BLAS brute force. Each engine is
    measured on a pilot and extrapolated to all rows (:meth:`KDTreeSearch.pilot`,
    :meth:`BlockTreeSearch.pilot`): the KD-tree in both frames on one group, the second
    stopping once it exceeds the first. The block tree, whose construction costs a few
    KD-trees', is measured only when the better KD-tree's estimate is more than
    ``_BLOCK_TREE_PILOT_RATIO`` times its trees' construction, i.e. when its queries
    struggle; that KD-tree is then measured on every group, and the cheaper of the two runs.
    A KD-tree that runs takes larger leaves when its queries cost many times its
    construction (:meth:`KDTreeSearch.fit_leaves`).
    The pilots are timed in CPU time of the calling thread, so that the load of a shared
    machine does not sway them.
    Every engine is backed by the same kernel, so the choice never changes the result.
    """
    n_features = Z.shape[1]
    original = KDTreeSearch(Z, ZT, attribute_codes, n_groups)
    estimates = {original: original.pilot()}
    start = time.thread_time()
    frame = PrincipalFrame(Z)
    framed = time.thread_time() - start
    # The spatial order of the queries serves both frames.
    rotated = KDTreeSearch(Z, ZT, attribute_codes, n_groups, frame=frame, order=original.order)
    estimates[rotated] = framed + rotated.pilot(budget=estimates[original])
    kd_tree = engine = min(estimates, key=estimates.get)
    if (
        with_block_tree
        and n_features > _KD_TREE_MAX_FEATURES
        and estimates[kd_tree] > _BLOCK_TREE_PILOT_RATIO * kd_tree.pilot_build_seconds
    ):
        start = time.thread_time()
        block_tree = BlockTreeSearch(Z, ZT, attribute_codes, n_groups, frame=frame)
        built = time.thread_time() - start
        estimates[block_tree] = built + block_tree.pilot(_PILOT_LEAVES)
        # Measured on one group, the KD-tree's estimate is only good for comparing frames;
        # against the block tree, every group is measured (until it exceeds the block tree).
        extra = framed if kd_tree is rotated else 0.0
        estimates[kd_tree] = extra + kd_tree.pilot(
            budget=estimates[block_tree] - extra, every_group=True
        )
        if estimates[block_tree] < estimates[kd_tree]:
            engine = block_tree
    if engine is kd_tree:
        kd_tree.fit_leaves(estimates[kd_tree])
    if search.verbose > 0:
        costs = ", ".join(f"{e.name} {seconds:.2f} s" for e, seconds in estimates.items())
        print(f"[nearest_other_group] pilot estimates (one thread): {costs}", flush=True)
    return engine


def check_points(X):
    """Points as a C-contiguous float64 array; raise on NaN/inf naming the column, or n < 2."""
    Z = np.asarray(X)
    if Z.dtype.kind not in "biuf":
        raise ValueError(
            f"X must be numeric point coordinates, got dtype {Z.dtype}. Encode categorical "
            "columns first (skfair.metrics.hfm does it for you)."
        )
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    if Z.ndim != 2:
        raise ValueError(f"Expected 2D array for X, got {Z.ndim}D. Reshape your data.")
    if Z.shape[0] < 2:
        raise ValueError(f"X needs at least 2 samples, got {Z.shape[0]}.")
    if Z.shape[1] < 1:
        raise ValueError("X needs at least 1 feature, got 0.")
    finite = np.isfinite(Z)
    if not finite.all():
        row, column = np.argwhere(~finite)[0]
        raise ValueError(
            f"X has NaN or infinite values, first in column {column} (row {row}). Impute or "
            "drop them explicitly."
        )
    largest = np.abs(Z).max()
    limit = max_coordinate(Z.shape[1])
    if largest > limit:
        raise ValueError(
            f"X has coordinates up to {largest:.3g} in absolute value; squared distances "
            f"would overflow beyond {limit:.3g} with {Z.shape[1]} coordinates. Divide X by a "
            "common factor first (every distance scales with it)."
        )
    return Z


def max_coordinate(n_features):
    """Largest absolute coordinate for which no squared distance, Gram product or projection
    overflows: a squared difference is at most ``4 M^2`` per coordinate, summed over the
    coordinates, with a 64-fold margin for the Gram form's intermediate terms."""
    return float(np.sqrt(np.finfo(np.float64).max / (256.0 * n_features)))


def _resolve_method(method, algorithm):
    """The method behind an alias; raise when ``algorithm`` does not apply to ``method``."""
    method = "bruteforce" if method == "exact_bruteforce" else method
    if algorithm != "auto" and method != "exact":
        raise ValueError(
            f"algorithm={algorithm!r} selects an engine of method='exact'; it cannot be used "
            f"with method={method!r}."
        )
    return method, algorithm


def _check_projections(projections, n_features, m1, n_e, random_state):
    if projections is None:
        return draw_projections(n_features, m1=m1, n_e=n_e, random_state=random_state)
    projections = np.asarray(projections, dtype=np.float64)
    if projections.ndim == 2:
        projections = projections[:, None, :]
    if projections.ndim != 3 or projections.shape[2] != n_features or 0 in projections.shape:
        raise ValueError(
            f"projections must have shape (m1, n_e, {n_features}), got {projections.shape}."
        )
    norms = np.sqrt(np.sum(projections**2, axis=2, keepdims=True))
    if not np.all(np.isfinite(norms)) or np.any(norms == 0):
        raise ValueError("projections must be finite, non-zero vectors.")
    # Unit norm is what makes the projection gap a lower bound of the distance.
    return projections / norms
