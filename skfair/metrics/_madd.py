"""MADD: the histogram L1 distance between groups' score distributions, and its bandwidth.

Verger, Lallé, Bouchet and Luengo, *Evaluating and Mitigating Algorithmic Unfairness with the
MADD Metric*, JEDM 2024. MADD (eqs. 1-3) compares the normalised histograms of the predicted
probabilities of two groups on ``m`` equal bins of [0, 1]; the bandwidth ``h`` sets
``m = floor(1 / h)``. Algorithm 1 (Section 4.3) picks an interval of bandwidths on which MADD
is most stable and reports its mean there, the "stable MADD".

Binning follows Section 3.1 and ``np.histogram(p, bins=m, range=(0, 1))``: bin k is
``[e_k, e_{k+1})`` with ``e = np.linspace(0, 1, m + 1)`` and the last bin closed.
"""

from __future__ import annotations

import warnings
from itertools import combinations
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils import Bunch

from skfair._dask import align, check_block, check_block_lengths, dask_dispatch, reduce_blocks
from skfair._dask._columns import as_numpy, split_argument
from skfair._stats._aggregate import aggregate, warn_single_group
from skfair._stats._histograms import (
    GroupRows,
    KeyedHistograms,
    SweptHistograms,
    bins_from_bandwidths,
    group_histograms,
    h_sup,
)
from skfair._utils._compat import (
    SENSITIVE_FEATURES_CONSTRAINT,
    Interval,
    StrOptions,
    validate_params,
)
from skfair._utils._groups import check_n_groups, factorize_groups
from skfair._utils._validation import check_groups, check_lengths, check_scores, check_weights
from skfair.metrics._docs import shared

# Below this group size MADD is dominated by sampling noise (Section 4.4: the error is still
# about 0.08 at n = 403).
_SMALL_GROUP = 50
# Largest histogram table MADD allocates: 2**27 float64 cells, 1 GiB (groups x bins for a
# fixed bin count; one group's row of the sweep, the bin counts of the grid summed, for
# bandwidth="auto"). Beyond it a parameter (bins, bandwidth, bandwidths) is refused.
_MAX_TABLE_CELLS = 1 << 27
# The sweep keeps every group's row when they fit in 2**25 cells (256 MiB), else builds the
# rows pair by pair.
_CACHED_SWEEP_CELLS = 1 << 25
# More pairs of groups than this make the per-pair bandwidth search slow enough to warn about.
_MANY_PAIRS = 190  # 20 groups
# Rows of the (start, end) variance triangle evaluated at once by the interval search.
_SEARCH_BLOCK_ROWS = 32

_DASK_DOC = (
    "Dask collections are read partition by partition: each partition sends, per group, the "
    "histogram counts of its scores, on the fixed bins (bins= or a float bandwidth: n_bins "
    "counters per group) or at the stacked edges of every bandwidth of the search (about "
    "N (N + 3) / 2 counters per group for bandwidths=N, 500,000 for the default 1000), "
    "whatever its length; the summed counts are the in-memory histograms, so the result is "
    "exactly the in-memory one."
)

_COMMON_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_score": ["array-like"],
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    "agg": [StrOptions({"worst_case", "mean"})],
    "bandwidths": [Interval(Integral, 1, None, closed="left"), "array-like"],
    "percent": [Interval(Real, 0, None, closed="neither")],
    "min_points": [Interval(Integral, 1, None, closed="left")],
    "min_interval_length": [Interval(Real, 0, None, closed="neither"), None],
    "bin_rule": [StrOptions({"exact", "floor"})],
    "n_jobs": [Integral, None],
    "sample_weight": ["array-like", None],
    "verbose": ["verbose"],
}


# The parameters and references that madd and madd_bandwidth_search describe alike.
_PARTS = {
    "interval_search": """\
bandwidths : int or array-like of float, default=1000
    An int ``N`` gives the grid ``h = 1/m`` for the bin counts ``m = N, ..., 1`` (``N``
    distinct values, ascending). An array is used as given: strictly increasing values in
    (0, 1], turned into bin counts with ``bin_rule``.
percent : float, default=0.45
    ``L = percent * h_sup`` (the paper's ``(1 - 0.1) / 2``).
min_points : int, default=50
    The paper's nbPointsMin: eligible intervals hold at least ``min_points + 1`` points.
min_interval_length : float, default=None
    ``L`` given directly instead of ``percent * h_sup`` (the authors used 0.05 for their
    OULAD tables).""",
    "pairs_in_parallel": """\
n_jobs : int, default=None
    Pairs of groups searched in parallel with joblib (only useful for many groups). Each
    pair has its own search, so the time grows with the square of the number of groups;
    above 20 groups a UserWarning says so before the search starts.""",
    "progress": """\
verbose : int, default=0
    Progress: ``verbose > 0`` prints the size of the search (pairs of groups, bandwidths)
    before it starts and passes ``verbose`` to joblib, which reports the pairs as they end.""",
    "references_verger": """\
References
----------
.. [1] M. Verger, S. Lallé, F. Bouchet and V. Luengo, "Is Your Model 'MADD'? A Novel
   Metric to Evaluate Algorithmic Fairness for Predictive Student Models", EDM 2023.
.. [2] M. Verger, S. Lallé, F. Bouchet and V. Luengo, "Evaluating and Mitigating
   Algorithmic Unfairness with the MADD Metric", Journal of Educational Data Mining, 2024.""",
}


@dask_dispatch(lambda func, bound: _madd_on_dask(bound, search=False), doc=_DASK_DOC)
@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "bandwidth": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="right")],
        "bins": [Interval(Integral, 1, None, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
@shared(parts=_PARTS)
def madd(
    y_true,
    y_score,
    *,
    sensitive_features,
    bandwidth="auto",
    bins=None,
    agg="worst_case",
    bandwidths=1000,
    percent=0.45,
    min_points=50,
    min_interval_length=None,
    bin_rule="exact",
    n_jobs=None,
    sample_weight=None,
    verbose=0,
):
    """Model Absolute Density Distance between the groups' score distributions.

    MADD (Verger et al., JEDM 2024, eqs. 1-3) is the L1 distance between the normalised
    histograms of the predicted probabilities of two groups on ``m`` equal bins of [0, 1]:
    ``sum_k |d_{0,k} - d_{1,k}|``. It lies in [0, 2]: 0 for identical histograms, 2 when no
    occupied bin is shared. It needs no labels (an independence criterion on the whole score
    distribution).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored; only its length is checked. Present for the scorer signature.
    y_score : array-like of shape (n_samples,), (n_samples, 1) or (n_samples, 2)
        Predicted probabilities of the positive class, in [0, 1]. An (n, 2) array is
        ``predict_proba`` output and its column 1 is used.
    {sensitive_features}
    bandwidth : "auto" or float in (0, 1], default="auto"
        ``"auto"`` returns the stable MADD of :func:`madd_bandwidth_search` (Algorithm 1 with
        ``bandwidths``, ``percent``, ``min_points``, ``min_interval_length``). A float ``h``
        gives ``m = floor(1 / h)`` bins of width ``1 / m`` (see ``bin_rule``).
    bins : int, default=None
        Number of bins, used directly instead of a bandwidth. Cannot be combined with a float
        ``bandwidth``.
    agg : {"worst_case", "mean"}, default="worst_case"
        Aggregation over the pairs of groups when there are more than two: the largest pairwise
        MADD, or their mean. Both equal the paper's MADD for two groups.
    {interval_search}
    bin_rule : {"exact", "floor"}, default="exact"
        How a float bandwidth becomes a bin count. ``"exact"`` is ``floor(1 / h)`` computed
        with a 1e-12 relative slack, so ``h = 1 / m`` gives ``m`` bins; ``"floor"`` is the float
        ``floor(1 / h)`` of maddlib, which gives ``m - 1`` bins for ``h = 1/93``, ``1/99``, ...
        (70 of the ``m <= 999``), for bit parity with it.
    {pairs_in_parallel}
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in their group's histogram; integer weights act as repeated
        rows (also in ``h_sup``, which then uses each group's total weight as its size).
    {progress}

    Returns
    -------
    float
        MADD, in [0, 2], aggregated over pairs of groups with ``agg``.

    See Also
    --------
    madd_bandwidth_search : The stable interval, the MADD curve and h_sup.
    skfair.postprocessing.MADDRepair : Post-processing that contracts MADD by ``1 - lam``.

    Notes
    -----
    Two MADD values are comparable only at bandwidths adapted to their own group sizes
    (Theorem 2: the optimal ``h`` shrinks like ``n ** (-1/3)``), hence the default
    ``bandwidth="auto"``. A UserWarning is raised when the smallest group has fewer than 50
    samples, and when a fixed bin count exceeds its size.

    {references_verger}

    Examples
    --------
    >>> from skfair.datasets import make_madd_simulation
    >>> from skfair.metrics import madd
    >>> y_score, group, y = make_madd_simulation(10_000, random_state=0)
    >>> round(madd(y, y_score, sensitive_features=group, bandwidth=0.5), 3)  # 2 bins
    1.018
    >>> round(madd(y, y_score, sensitive_features=group), 3)  # stable MADD, Algorithm 1
    1.196
    """
    scores, groups = _check_inputs(y_true, y_score, sensitive_features, min_groups=1)
    weights = _check_madd_weights(sample_weight, scores)
    if groups.n_groups < 2:
        warn_single_group(groups)
        return 0.0
    sizes = groups.counts(weights)
    _warn_small_groups(sizes)
    n_bins = _fixed_bins(bandwidth, bins, bin_rule)
    if n_bins is None:
        result = _bandwidth_search(
            scores,
            groups,
            bandwidths=bandwidths,
            percent=percent,
            min_points=min_points,
            min_interval_length=min_interval_length,
            agg=agg,
            bin_rule=bin_rule,
            n_jobs=n_jobs,
            sample_weight=weights,
            verbose=verbose,
        )
        return result.value
    _check_table_size(groups.n_groups, n_bins, "bins" if bins is not None else "bandwidth")
    histograms = group_histograms(scores, groups.codes, groups.n_groups, n_bins, weights)
    return _fixed_bins_value(histograms, sizes, agg)


@dask_dispatch(lambda func, bound: _madd_on_dask(bound, search=True), doc=_DASK_DOC)
@validate_params(_COMMON_CONSTRAINTS, prefer_skip_nested_validation=True)
@shared(parts=_PARTS)
def madd_bandwidth_search(
    y_true,
    y_score,
    *,
    sensitive_features,
    bandwidths=1000,
    percent=0.45,
    min_points=50,
    min_interval_length=None,
    agg="worst_case",
    bin_rule="exact",
    n_jobs=None,
    sample_weight=None,
    verbose=0,
):
    """Optimal-bandwidth interval of MADD (the paper's Algorithm 1) and the stable MADD.

    MADD is evaluated on a grid of bandwidths ``h`` (the sweep), then the interval of the grid
    on which MADD varies least is selected among the intervals long enough for Theorem 2:

    1. ``h_sup = ((sqrt(n0) + sqrt(n1)) / sqrt(n0 * n1)) ** (2/3)``, the order of the optimal
       bandwidth for group sizes ``n0``, ``n1``; intervals must span at least
       ``L = percent * h_sup`` (or ``min_interval_length``).
    2. A start index ``i`` is eligible when ``h[i] <= h[-1] - L`` and the last grid point
       ``j0`` with ``h[j0] <= h[i] + L`` satisfies ``j0 - i >= min_points``, i.e. the minimal
       interval holds ``min_points + 1`` points. Starts with fewer points are skipped (as in
       maddlib; the paper's text extends them).
    3. Among the intervals ``[i, j]`` with ``j >= j0``, the one with the smallest population
       variance of MADD is kept; ties go to the first in scan order (smallest ``i``, then
       smallest ``j``). The stable MADD is the plain mean of the curve over ``[i, j]``.

    The minimal interval ``[h[i], h[j0]]`` can be shorter than ``L`` by less than one grid
    step. The sweep sorts each group once and reads the histogram of every bin count from
    cumulative counts at the bin edges; the interval search uses shifted prefix sums, so a
    constant stretch of the curve has a variance of exactly 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored; only its length is checked.
    y_score : array-like of shape (n_samples,), (n_samples, 1) or (n_samples, 2)
        Predicted probabilities of the positive class in [0, 1] (column 1 of an (n, 2) array).
    {sensitive_features}
    {interval_search}
    agg : {"worst_case", "mean"}, default="worst_case"
        With more than two groups, each pair is searched on its own (``h_sup`` depends on the
        pair's sizes); ``value`` is the largest pairwise stable MADD, or their mean.
    bin_rule : {"exact", "floor"}, default="exact"
        Bin counts of an explicit ``bandwidths`` array; see :func:`madd`. An int grid carries
        its integer bin counts and ignores this.
    {pairs_in_parallel}
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in their group's histograms; integer weights act as repeated
        rows, and ``h_sup`` uses each group's total weight as its size.
    {progress}

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        interval : tuple of float
            ``(h[i], h[j])``, the first and last grid points of the stable interval.
        value : float
            Stable MADD: mean of the curve over ``[i, j]`` (aggregated over pairs).
        std : float
            Population standard deviation of the curve over ``[i, j]``.
        indices : tuple of int
            ``(i, j)``.
        bins_interval : tuple of int
            Bin counts at ``h[j]`` and ``h[i]``.
        bandwidths, bins, madd_curve : ndarray
            The ascending grid, its bin counts and MADD at each point.
        h_sup, min_interval_length : float
            ``h_sup`` of the group sizes and the interval length ``L`` used.
        group_sizes : dict
            Group label to number of samples.
        bin_rule : str
            The ``bin_rule`` used.
        pairs : list of Bunch
            One search per pair of groups, with the keys above and ``groups``.
        worst_pair : tuple
            Labels of the pair with the largest stable MADD; the interval, curve and
            ``h_sup`` fields at the top level are that pair's.

    Raises
    ------
    ValueError
        When no interval of the grid is eligible: use more bandwidths, a smaller ``percent``
        or ``min_interval_length``, or a smaller ``min_points``.

    See Also
    --------
    madd : MADD at one bandwidth, or the stable MADD of this search.
    skfair.plotting.MADDDisplay : The histograms and the MADD curve of this search.

    {references_verger}

    Examples
    --------
    >>> from skfair.datasets import make_madd_simulation
    >>> from skfair.metrics import madd_bandwidth_search
    >>> y_score, group, y = make_madd_simulation(10_000, random_state=0)
    >>> result = madd_bandwidth_search(None, y_score, sensitive_features=group)
    >>> round(result.h_sup, 4), round(result.value, 3), result.bins_interval
    (0.0737, 1.196, (25, 121))
    """
    scores, groups = _check_inputs(y_true, y_score, sensitive_features)
    weights = _check_madd_weights(sample_weight, scores)
    _warn_small_groups(groups.counts(weights))
    return _bandwidth_search(
        scores,
        groups,
        bandwidths=bandwidths,
        percent=percent,
        min_points=min_points,
        min_interval_length=min_interval_length,
        agg=agg,
        bin_rule=bin_rule,
        n_jobs=n_jobs,
        sample_weight=weights,
        verbose=verbose,
    )


# --------------------------------------------------------------------------------------------
# private helpers


def _check_inputs(y_true, y_score, sensitive_features, *, min_groups=2):
    """Positive-class scores as float64 in [0, 1] and the factorised groups."""
    array = np.asarray(y_score)
    if array.ndim == 2 and array.shape[1] == 2:
        array = array[:, 1]  # predict_proba output: the positive class
    elif array.ndim == 2 and array.shape[1] != 1:
        raise ValueError(
            f"y_score must be 1-D, (n_samples, 1) or predict_proba output (n_samples, 2); got "
            f"shape {array.shape}. MADD compares the positive-class probabilities."
        )
    scores = check_scores(array, "y_score", unit_interval=True)
    if scores.size == 0:
        raise ValueError("y_score is empty; MADD needs scores of at least two groups.")
    check_lengths(y_true=y_true, y_score=scores, sensitive_features=sensitive_features)
    groups = check_groups(sensitive_features, scores.shape[0])
    check_n_groups(groups, minimum=min_groups, what="MADD")
    return scores, groups


def _check_madd_weights(sample_weight, scores):
    """Checked weights (None stays None); every group's histogram is normalised by its own
    total weight, so only their ratios within a group matter."""
    if sample_weight is None:
        return None
    check_lengths(y_score=scores, sample_weight=sample_weight)
    return check_weights(sample_weight, scores.shape[0])


def _check_table_size(n_groups, cells_per_group, parameter):
    """Refuse bin counts whose per-group tables would exceed ``_MAX_TABLE_CELLS``."""
    cells = n_groups * cells_per_group
    if cells > _MAX_TABLE_CELLS:
        raise ValueError(
            f"{parameter} asks for {cells:.3g} histogram cells (groups x bins, or the bin "
            f"counts of the sweep summed), more than the {_MAX_TABLE_CELLS:.3g} (1 GiB) MADD "
            "allows. MADD with more bins than samples per group measures sampling noise: use "
            "fewer bins, a larger "
            "bandwidth, or fewer bandwidths (the default grid is 1000)."
        )


def _warn_small_groups(sizes):
    if sizes.min() < _SMALL_GROUP:
        warnings.warn(
            f"The smallest group has {sizes.min():g} samples (< {_SMALL_GROUP}): MADD is then "
            "dominated by sampling noise.",
            UserWarning,
            stacklevel=3,
        )


def _bandwidth_grid(bandwidths, bin_rule, n_groups):
    """The ascending bandwidth grid and its integer bin counts (of a bounded table size)."""
    if isinstance(bandwidths, Integral):
        n_max = int(bandwidths)
        _check_table_size(1, n_max * (n_max + 3) // 2, "bandwidths")
        bins = np.arange(int(bandwidths), 0, -1, dtype=np.intp)
        return 1.0 / bins, bins
    grid = np.asarray(bandwidths, dtype=np.float64)
    if grid.ndim != 1 or grid.size == 0:
        raise ValueError(f"bandwidths must be an int or a 1-D array, got shape {grid.shape}.")
    if not np.isfinite(grid).all() or grid.min() <= 0 or grid.max() > 1:
        raise ValueError("bandwidths must lie in (0, 1].")
    if (np.diff(grid) <= 0).any():
        raise ValueError(
            "bandwidths must be strictly increasing (ascending, no duplicates); sort the grid "
            "with np.unique first."
        )
    bins = bins_from_bandwidths(grid, bin_rule)
    _check_table_size(1, int(np.sum(bins + 1)), "bandwidths")
    return grid, bins


def _stable_interval(h, v, min_interval_length, min_points):
    """Algorithm 1's selection on a curve ``v`` over the ascending grid ``h``.

    Returns ``(i, j, variance)`` of the first interval in scan order with the smallest
    population variance among the eligible ones; raises ValueError when none is eligible.
    For each start ``i``, ``w = v[i:] - v[i]`` has prefix sums ``c1``, ``c2`` and the variance
    of ``v[i..j]`` is ``c2/k - (c1/k)**2`` with ``k = j - i + 1`` (exactly 0 on flat runs).
    """
    n_points = h.shape[0]
    n_starts = np.searchsorted(h, h[-1] - min_interval_length, side="right")
    starts = np.arange(n_starts)
    first_end = np.searchsorted(h, h[starts] + min_interval_length, side="right") - 1
    eligible = first_end - starts >= min_points
    starts, first_end = starts[eligible], first_end[eligible]
    if starts.size == 0:
        raise ValueError(
            f"No eligible bandwidth interval: the grid has {n_points} points up to "
            f"h = {h[-1]:.4g}, and intervals must span L = {min_interval_length:.4g} with at "
            f"least min_points + 1 = {min_points + 1} points. Use more bandwidths, a smaller "
            "percent or min_interval_length, or a smaller min_points."
        )
    best = (np.inf, -1, -1)
    # Blocks of consecutive starts: each block computes the columns j >= its first start, so
    # the work is about the triangle j >= i, not the square.
    for lo in range(0, starts.size, _SEARCH_BLOCK_ROWS):
        rows = starts[lo : lo + _SEARCH_BLOCK_ROWS]
        row_first_end = first_end[lo : lo + _SEARCH_BLOCK_ROWS]
        # Entries j < i are zeroed so that each row's cumulative sums start at its own i.
        columns = np.arange(rows[0], n_points)
        length = (columns[None, :] - rows[:, None] + 1).astype(np.float64)
        shifted = v[None, rows[0] :] - v[rows, None]
        np.copyto(shifted, 0.0, where=length < 1)
        np.maximum(length, 1.0, out=length)
        mean = np.cumsum(shifted, axis=1)
        np.divide(mean, length, out=mean)
        np.multiply(shifted, shifted, out=shifted)
        variance = np.cumsum(shifted, axis=1, out=shifted)
        np.divide(variance, length, out=variance)
        np.multiply(mean, mean, out=mean)
        np.subtract(variance, mean, out=variance)
        np.maximum(variance, 0.0, out=variance)
        np.copyto(variance, np.inf, where=columns[None, :] < row_first_end[:, None])
        flat = int(np.argmin(variance))  # row-major: first in scan order
        row, end = divmod(flat, columns.shape[0])
        if variance[row, end] < best[0]:
            best = (variance[row, end], int(rows[row]), int(columns[end]))
    variance, i, j = best
    return i, j, float(variance)


def _pair_search(
    h, bins, proportions, offsets, sizes, labels, min_interval_length, percent, min_points, bin_rule
):
    """Sweep and Algorithm 1 for one pair of groups."""
    curve = np.add.reduceat(np.abs(proportions[0] - proportions[1]), offsets)
    support = h_sup(*sizes)
    length = percent * support if min_interval_length is None else float(min_interval_length)
    i, j, variance = _stable_interval(h, curve, length, min_points)
    return Bunch(
        interval=(float(h[i]), float(h[j])),
        value=float(curve[i : j + 1].mean()),
        std=float(np.sqrt(variance)),
        indices=(i, j),
        bins_interval=(int(bins[j]), int(bins[i])),
        bandwidths=h,
        bins=bins,
        madd_curve=curve,
        h_sup=support,
        min_interval_length=length,
        group_sizes=dict(zip(labels, (_size(n) for n in sizes), strict=True)),
        bin_rule=bin_rule,
        groups=tuple(labels),
    )


def _fixed_bins(bandwidth, bins, bin_rule):
    """The fixed number of bins of ``bandwidth`` / ``bins``, or None for the search."""
    if bins is None and bandwidth == "auto":
        return None
    if bins is not None and bandwidth != "auto":
        raise ValueError(
            f"Pass either bandwidth={bandwidth!r} or bins={bins!r}, not both: the bandwidth "
            "already fixes the number of bins."
        )
    if isinstance(bandwidth, (bool, np.bool_)):
        raise ValueError("bandwidth must be 'auto' or a real number in (0, 1], got a bool.")
    return int(bins) if bins is not None else int(bins_from_bandwidths(bandwidth, bin_rule))


def _fixed_bins_value(histograms, sizes, agg):
    """MADD of the groups' histograms on fixed bins (counts, shape (n_groups, n_bins))."""
    n_bins = histograms.shape[1]
    if n_bins > sizes.min():
        warnings.warn(
            f"MADD with {n_bins} bins exceeds the size of the smallest group "
            f"({sizes.min():g}): most bins hold at most one sample, so the value mostly "
            "reflects sampling noise. Use bandwidth='auto' or fewer bins.",
            UserWarning,
            stacklevel=3,
        )
    proportions = histograms / sizes[:, None]
    pair_values = [
        float(np.abs(proportions[g] - proportions[k]).sum())
        for g, k in combinations(range(histograms.shape[0]), 2)
    ]
    return float(aggregate(pair_values, agg))


def _bandwidth_search(scores, groups, *, bandwidths, bin_rule, sample_weight=None, **params):
    """The search in memory: each group's swept proportions from its scores' edge positions
    (``params``: the remaining parameters of :func:`_search`)."""
    h, bins = _bandwidth_grid(bandwidths, bin_rule, groups.n_groups)
    sizes = groups.counts(sample_weight)
    sweep = SweptHistograms.of(bins)
    rows = GroupRows(sweep, scores, groups.codes, sizes, sample_weight)
    return _search(
        rows.row,
        h,
        bins,
        sweep,
        sizes,
        groups.labels,
        bin_rule=bin_rule,
        n_scores=scores.shape[0],
        **params,
    )


def _search(
    row_of,
    h,
    bins,
    sweep,
    sizes,
    labels,
    *,
    percent,
    min_points,
    min_interval_length,
    agg,
    bin_rule,
    n_jobs,
    verbose,
    n_scores,
):
    """Algorithm 1 for every pair of groups, from each group's swept proportions
    ``row_of(g)``; the result of :func:`madd_bandwidth_search`."""
    n_groups = len(labels)
    n_pairs = n_groups * (n_groups - 1) // 2
    if verbose:
        print(
            f"MADD bandwidth search: {n_pairs} pair(s) of groups x {h.size} bandwidths "
            f"({n_scores} scores)."
        )
    if n_pairs > _MANY_PAIRS:
        # Each pair has its own stable interval (h_sup depends on the pair's sizes), so the
        # search cannot be shared: say what it costs before spending it.
        warnings.warn(
            f"The bandwidth search runs once per pair of groups: {n_groups} groups make "
            f"{n_pairs} pairs, and the time grows with their number (100 groups at 20,000 rows "
            "take minutes). Pass a fixed bandwidth= (or bins=), fewer "
            "bandwidths, coarser groups, or n_jobs to run pairs in parallel.",
            UserWarning,
            stacklevel=4,
        )
    # Rows of all groups when they fit in _CACHED_SWEEP_CELLS, otherwise built per pair: the
    # memory stays bounded for any number of groups, at the cost of rebuilding the second
    # group's row for each pair (O(n_edges), small next to the interval search).
    cache_all = n_groups * sweep.n_edges <= _CACHED_SWEEP_CELLS
    cached = [row_of(g) for g in range(n_groups)] if cache_all else None

    def pair_tasks():
        for g in range(n_groups):
            row_g = cached[g] if cache_all else row_of(g)
            for k in range(g + 1, n_groups):
                row_k = cached[k] if cache_all else row_of(k)
                yield delayed(_pair_search)(
                    h,
                    bins,
                    (row_g, row_k),
                    sweep.offsets,
                    (sizes[g], sizes[k]),
                    (labels[g], labels[k]),
                    min_interval_length,
                    percent,
                    min_points,
                    bin_rule,
                )

    pair_results = Parallel(n_jobs=n_jobs, verbose=verbose)(pair_tasks())
    values = [pair.value for pair in pair_results]
    worst = pair_results[int(np.argmax(values))]
    result = Bunch(**worst)
    del result["groups"]
    result.value = float(aggregate(values, agg))
    result.group_sizes = dict(zip(labels, (_size(n) for n in sizes), strict=True))
    result.pairs = pair_results
    result.worst_pair = worst.groups
    return result


def _madd_on_dask(bound, *, search):
    """:func:`madd` / :func:`madd_bandwidth_search` on dask input: every partition sums the
    histogram counts of its groups' scores (:class:`~skfair._stats._histograms.KeyedHistograms`:
    per group, the fixed bins, or the positions among the stacked edges of the sweep, about
    500,000 counters per group for the default 1000 bandwidths, whatever n); the summed counts
    give the in-memory histograms exactly."""
    arguments = {
        "bandwidth": "auto",
        "bins": None,
        "agg": "worst_case",
        "bandwidths": 1000,
        "percent": 0.45,
        "min_points": 50,
        "min_interval_length": None,
        "bin_rule": "exact",
        "n_jobs": None,
        "verbose": 0,
        **bound.arguments,
    }
    n_bins = (
        None
        if search
        else _fixed_bins(arguments["bandwidth"], arguments["bins"], arguments["bin_rule"])
    )
    sensitive = split_argument(arguments["sensitive_features"])
    score = split_argument(arguments["y_score"], column=_score_column(arguments["y_score"]))
    if score.n_columns != 1:
        raise ValueError(
            "y_score must be 1-D, (n_samples, 1) or predict_proba output (n_samples, 2); got "
            f"{score.n_columns} columns. MADD compares the positive-class probabilities."
        )
    names = tuple(f"sensitive_features[{j}]" for j in range(sensitive.n_columns))
    if n_bins is None:
        h, bins = _bandwidth_grid(arguments["bandwidths"], arguments["bin_rule"], 1)
        statistic = KeyedHistograms(names, bins=tuple(bins.tolist()))
    else:
        statistic = KeyedHistograms(names, n_bins=n_bins)
    columns = [*sensitive.columns, *score.columns]
    weight = arguments.get("sample_weight")
    if weight is not None:
        columns.append(weight)
    table = reduce_blocks(
        statistic,
        align(columns),
        _madd_chunk,
        n_keys=sensitive.n_columns,
        weighted=weight is not None,
    )
    groups = factorize_groups(sensitive.rebuild(table.keys))
    check_n_groups(groups, minimum=2 if search else 1, what="MADD")
    if groups.n_groups < 2:
        warn_single_group(groups)
        return 0.0
    sizes = groups.counts(table.sample_weight())
    histograms = np.empty((groups.n_groups, table.sums.shape[1]))
    histograms[groups.codes] = table.sums
    _warn_small_groups(sizes)
    if n_bins is not None:
        _check_table_size(groups.n_groups, n_bins, "bins" if arguments["bins"] else "bandwidth")
        return _fixed_bins_value(histograms, sizes, arguments["agg"])
    sweep = SweptHistograms.of(bins)
    search_params = ("percent", "min_points", "min_interval_length", "agg", "n_jobs", "verbose")
    result = _search(
        lambda g: sweep.shares(histograms[g], sizes[g]),
        h,
        bins,
        sweep,
        sizes,
        groups.labels,
        bin_rule=arguments["bin_rule"],
        n_scores=int(table.count.sum()),
        **{name: arguments[name] for name in search_params},
    )
    return result if search else result.value


def _score_column(y_score):
    """The positive-class column of predict_proba output, 0 of a single column, else None."""
    shape = getattr(y_score, "shape", None)
    if shape is not None and len(shape) == 2:
        return 1 if shape[1] == 2 else (0 if shape[1] == 1 else None)
    return None


def _madd_chunk(statistic, *parts, n_keys, weighted):
    """The histogram table of one partition, its scores and weights checked."""
    arrays = [as_numpy(part) for part in parts]
    check_block_lengths(arrays)
    scores = check_scores(arrays[n_keys], "y_score", unit_interval=True)
    weights = check_block(arrays[n_keys + 1], "weight", "sample_weight") if weighted else None
    return statistic.chunk(arrays[:n_keys], scores, weights)


def _size(size):
    """A group size for the result: an int count, or the float total weight."""
    return int(size) if float(size).is_integer() else float(size)
