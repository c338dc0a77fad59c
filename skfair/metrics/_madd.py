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

from skfair._compat import Interval, StrOptions, validate_params
from skfair._groups import check_n_groups
from skfair._stats._aggregate import aggregate
from skfair._stats._histograms import (
    bins_from_bandwidths,
    group_histograms,
    h_sup,
    swept_proportions,
)
from skfair._validation import check_groups, check_lengths, check_scores

# Below this group size MADD is dominated by sampling noise (Section 4.4: the error is still
# about 0.08 at n = 403).
_SMALL_GROUP = 50
# Rows of the (start, end) variance triangle evaluated at once by the interval search.
_SEARCH_CHUNK_ELEMENTS = 1 << 20

_COMMON_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_score": ["array-like"],
    "sensitive_features": ["array-like", dict],
    "agg": [StrOptions({"worst_case", "mean"})],
    "bandwidths": [Interval(Integral, 1, None, closed="left"), "array-like"],
    "percent": [Interval(Real, 0, None, closed="neither")],
    "min_points": [Interval(Integral, 1, None, closed="left")],
    "min_interval_length": [Interval(Real, 0, None, closed="neither"), None],
    "bin_rule": [StrOptions({"exact", "floor"})],
    "n_jobs": [Integral, None],
}


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "bandwidth": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="right")],
        "bins": [Interval(Integral, 1, None, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
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
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Group membership; 2-D input forms intersectional groups.
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
    bandwidths, percent, min_points, min_interval_length, n_jobs
        Parameters of the optimal-bandwidth search, used when ``bandwidth="auto"``; see
        :func:`madd_bandwidth_search`.
    bin_rule : {"exact", "floor"}, default="exact"
        How a float bandwidth becomes a bin count. ``"exact"`` is ``floor(1 / h)`` computed
        with a 1e-12 relative slack, so ``h = 1 / m`` gives ``m`` bins; ``"floor"`` is the float
        ``floor(1 / h)`` of maddlib, which gives ``m - 1`` bins for ``h = 1/93``, ``1/99``, ...
        (70 of the ``m <= 999``), for bit parity with it.

    Returns
    -------
    float
        MADD, in [0, 2], aggregated over pairs of groups with ``agg``.

    See Also
    --------
    madd_bandwidth_search : the stable interval, the MADD curve and h_sup.
    skfair.postprocessing.MADDRepair : post-processing that contracts MADD by ``1 - lam``.

    Notes
    -----
    Two MADD values are comparable only at bandwidths adapted to their own group sizes
    (Theorem 2: the optimal ``h`` shrinks like ``n ** (-1/3)``), hence the default
    ``bandwidth="auto"``. A UserWarning is raised when the smallest group has fewer than 50
    samples, and when a fixed bin count exceeds its size.

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
    scores, groups = _check_inputs(y_true, y_score, sensitive_features)
    sizes = groups.counts()
    _warn_small_groups(sizes)
    if bins is None and bandwidth == "auto":
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
        )
        return result.value
    if bins is not None and bandwidth != "auto":
        raise ValueError(
            f"Pass either bandwidth={bandwidth!r} or bins={bins!r}, not both: the bandwidth "
            "already fixes the number of bins."
        )
    if isinstance(bandwidth, (bool, np.bool_)):
        raise ValueError("bandwidth must be 'auto' or a real number in (0, 1], got a bool.")
    n_bins = int(bins) if bins is not None else int(bins_from_bandwidths(bandwidth, bin_rule))
    if n_bins > sizes.min():
        warnings.warn(
            f"MADD with {n_bins} bins exceeds the size of the smallest group ({sizes.min()}): "
            "most bins hold at most one sample, so the value mostly reflects sampling noise. "
            "Use bandwidth='auto' or fewer bins.",
            UserWarning,
            stacklevel=2,
        )
    proportions = group_histograms(scores, groups.codes, groups.n_groups, n_bins)
    proportions = proportions / sizes[:, None]
    pair_values = [
        float(np.abs(proportions[g] - proportions[k]).sum())
        for g, k in combinations(range(groups.n_groups), 2)
    ]
    return float(aggregate(pair_values, agg))


@validate_params(_COMMON_CONSTRAINTS, prefer_skip_nested_validation=True)
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
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Group membership; 2-D input forms intersectional groups.
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
        OULAD tables).
    agg : {"worst_case", "mean"}, default="worst_case"
        With more than two groups, each pair is searched on its own (``h_sup`` depends on the
        pair's sizes); ``value`` is the largest pairwise stable MADD, or their mean.
    bin_rule : {"exact", "floor"}, default="exact"
        Bin counts of an explicit ``bandwidths`` array; see :func:`madd`. An int grid carries
        its integer bin counts and ignores this.
    n_jobs : int, default=None
        Pairs of groups searched in parallel with joblib (only useful for many groups).

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
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
    _warn_small_groups(groups.counts())
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
    )


# --------------------------------------------------------------------------------------------
# private helpers


def _check_inputs(y_true, y_score, sensitive_features):
    """Positive-class scores as float64 in [0, 1] and the factorised groups (>= 2)."""
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
    check_n_groups(groups, what="MADD")
    return scores, groups


def _warn_small_groups(sizes):
    if sizes.min() < _SMALL_GROUP:
        warnings.warn(
            f"The smallest group has {sizes.min()} samples (< {_SMALL_GROUP}): MADD is then "
            "dominated by sampling noise.",
            UserWarning,
            stacklevel=3,
        )


def _bandwidth_grid(bandwidths, bin_rule):
    """The ascending bandwidth grid and its integer bin counts."""
    if isinstance(bandwidths, Integral):
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
    return grid, bins_from_bandwidths(grid, bin_rule)


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
    chunk = max(1, _SEARCH_CHUNK_ELEMENTS // n_points)
    best = (np.inf, -1, -1)
    for lo in range(0, starts.size, chunk):
        rows, row_first_end = starts[lo : lo + chunk], first_end[lo : lo + chunk]
        # Columns j >= rows[0] only; entries j < i are zeroed so that each row's cumulative
        # sums start at its own i.
        columns = np.arange(rows[0], n_points)
        length = columns[None, :] - rows[:, None] + 1
        shifted = v[None, rows[0] :] - v[rows, None]
        shifted[length < 1] = 0.0
        length = np.maximum(length, 1)
        mean = np.cumsum(shifted, axis=1) / length
        variance = np.cumsum(shifted * shifted, axis=1) / length - mean * mean
        np.maximum(variance, 0.0, out=variance)
        variance[columns[None, :] < row_first_end[:, None]] = np.inf
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
        group_sizes=dict(zip(labels, (int(n) for n in sizes), strict=True)),
        bin_rule=bin_rule,
        groups=tuple(labels),
    )


def _bandwidth_search(
    scores, groups, *, bandwidths, percent, min_points, min_interval_length, agg, bin_rule, n_jobs
):
    h, bins = _bandwidth_grid(bandwidths, bin_rule)
    sizes = groups.counts()
    proportions, offsets = swept_proportions(scores, groups.codes, sizes, bins)
    labels = groups.labels
    pairs = list(combinations(range(groups.n_groups), 2))
    pair_results = Parallel(n_jobs=n_jobs)(
        delayed(_pair_search)(
            h,
            bins,
            (proportions[g], proportions[k]),
            offsets,
            (sizes[g], sizes[k]),
            (labels[g], labels[k]),
            min_interval_length,
            percent,
            min_points,
            bin_rule,
        )
        for g, k in pairs
    )
    values = [pair.value for pair in pair_results]
    worst = pair_results[int(np.argmax(values))]
    result = Bunch(**worst)
    del result["groups"]
    result.value = float(aggregate(values, agg))
    result.group_sizes = dict(zip(labels, (int(n) for n in sizes), strict=True))
    result.pairs = pair_results
    result.worst_pair = worst.groups
    return result
