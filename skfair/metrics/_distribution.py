"""Disparities between the score distributions of groups: Wasserstein-1, KS, quantile, threshold.

Miroshnikov et al., "Wasserstein-based fairness interpretability framework for machine learning
models" (arXiv:2011.03156). The Wasserstein-1 model bias of Def. 3.2 splits into a *positive*
part (quantile levels where the privileged group G=0 sits on the favourable side) and a
*negative* part (the other group favoured). Theorem 3.2 writes both as integrals of the
threshold (statistical-parity) bias ``sign * (F_1(t) - F_0(t))``, which is a finite sum for
empirical distributions, so every value here is exact (no grid).

Each metric is built in two steps: the sufficient statistics are the scores of every compared
side (a group, or the pooled privileged groups, within a class of y_true when conditioning)
sorted once with their weights (:mod:`skfair._stats._sorted`), and a small formula turns a pair
of sides into the statistic.

Orientation, a deliberate exception to the "disadvantaged minus privileged" rule of the label
metrics, so that the paper's G=0 keeps its role: with ``privileged_group`` the results are
signed and *positive means the privileged group is favoured*, so ``net`` has the opposite sign
of the statistical parity difference. Without ``privileged_group`` the results are unsigned:
each pair is oriented so that its net part is >= 0.

Cost: with ``privileged_group``, G - 1 pairs; without, G (G - 1) / 2 pairs. The worst case
visits them in decreasing order of an upper bound and stops when no pair can beat the best
found (usually a few exact pairs); ``agg="mean"`` and ``"weighted"`` evaluate every pair, each
in O(n_a + n_b) on the pre-sorted groups, O(G n) in all.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.multiclass import type_of_target

from skfair._dask import dask_dispatch, table_plan
from skfair._stats._aggregate import (
    DISADVANTAGED,
    aggregate,
    disadvantaged_sides,
    warn_single_group,
)
from skfair._stats._sorted import (
    FAVORABLE_SIGN,
    cdf_at,
    ks_parts_sorted,
    ks_upper_bounds,
    merge_sorted,
    power_of_two_scale,
    quantile_at,
    sorted_segments,
    unscale,
    w1_named_parts,
    w1_parts_sorted,
    w1_upper_bounds,
)
from skfair._utils._compat import (
    SENSITIVE_FEATURES_CONSTRAINT,
    Interval,
    Real,
    StrOptions,
    validate_params,
)
from skfair._utils._validation import check_groups, check_lengths, check_scores, check_weights
from skfair.metrics._docs import shared

_AGGREGATIONS = {"worst_case", "mean", "weighted"}

# On dask input: the frequency table of distinct (group, score[, class of y_true]) rows is the
# sufficient statistic of the sorted sides (the scores with their summed weights). Continuous
# scores make about one row per sample: resolution= counts them on a grid instead.
SCORE_TABLE = table_plan(
    ignored=lambda arguments: set() if arguments.get("condition_on_y") else {"y_true"},
    hint=(
        "Pass resolution= (e.g. resolution=1e-4) to count the scores on a grid: the result "
        "is then exact on the rounded scores, within resolution of this one for the "
        "Wasserstein parts and quantile gaps."
    ),
    doc=(
        "Dask collections are read partition by partition: each partition sends the "
        "frequency table of its distinct (sensitive values, score[, y_true]) rows with their "
        "summed weights, the tables are added up on the workers, and this function runs on "
        "the sum, exactly. The table has one row per distinct score of each group: with "
        "resolution= at most (max - min) / resolution + 1 per group (and class), without it "
        "as many as the distinct scores, refused with a ValueError past 2**21 rows (about "
        "one row per sample for continuous scores) before it reaches the client."
    ),
)


# --------------------------------------------------------------------------------------------
# Compared sides and pairs: sufficient statistics

# Slices of (0, 1] (W1) or thresholds (KS) of the bounds that prune the worst pair.
_BOUND_LEVELS = 32
# Pairs whose bounds are evaluated at once (memory: pairs x levels floats per array).
_BOUND_CHUNK = 1 << 15
# Relative slack on an upper bound before it rules a pair out (rounding of the bound).
_BOUND_RTOL = 1e-9


@dataclass(frozen=True)
class _Comparison:
    """Every compared side sorted by score once, and the compared pairs of sides.

    A side is one group, or the pooled privileged groups, within one cell (one class of
    ``y_true`` when conditioning). Its scores, multiplied by the power of two ``scale``, are
    the segment ``[bounds[s], bounds[s + 1])`` of ``values``. Pair ``i`` compares side
    ``first[i]`` (the paper's G=0) with side ``second[i]`` (G=1).
    """

    values: np.ndarray
    weights: np.ndarray
    bounds: np.ndarray
    totals: np.ndarray  # total weight of each side
    first: np.ndarray
    second: np.ndarray
    scale: float
    signed: bool

    def side(self, s):
        start, stop = self.bounds[s], self.bounds[s + 1]
        return self.values[start:stop], self.weights[start:stop]

    def pair(self, i):
        """Rows of pair ``i`` merged by score: ``(values, weights0, weights1)``."""
        return merge_sorted(*self.side(self.first[i]), *self.side(self.second[i]))

    @property
    def sizes(self):
        """Combined weight of each pair, for agg="weighted"."""
        return self.totals[self.first] + self.totals[self.second]


def _compared_pairs(
    y_true,
    y_score,
    sensitive_features,
    privileged_group,
    condition_on_y,
    sample_weight,
    sign,
    disadvantaged="pooled",
):
    """The sorted sides and compared pairs, or None for a single group (after a warning).

    With ``privileged_group`` the other groups, pooled or each on its own (``disadvantaged``),
    are compared with the pooled privileged groups (signed); without, every pair of groups
    (unsigned, the group favoured on average plays G=0 so that the net part is >= 0). With
    ``condition_on_y``, within each class of y_true.
    """
    y_score = check_scores(y_score)
    n_samples = check_lengths(
        y_score=y_score, y_true=y_true if condition_on_y else None, sample_weight=sample_weight
    )
    groups = check_groups(sensitive_features, n_samples)
    weights = check_weights(sample_weight, n_samples)
    weights = np.ones(n_samples) if weights is None else weights
    cell_names, cell_codes = _cells(y_true, condition_on_y, n_samples)
    signed = privileged_group is not None
    sides = disadvantaged_sides(groups, privileged_group, disadvantaged) if signed else None
    if groups.n_groups < 2:
        warn_single_group(groups)
        return None
    if signed:
        privileged, compared = sides
        # Unit 0 pools the privileged groups; each compared side (every other group pooled,
        # or each other group) is a unit of its own.
        unit_of_group = np.zeros(groups.n_groups, dtype=np.intp)
        for unit, side in enumerate(compared, start=1):
            unit_of_group[side] = unit
        members = [np.flatnonzero(privileged), *(np.flatnonzero(side) for side in compared)]
        first_unit = np.zeros(len(members) - 1, dtype=np.intp)
        second_unit = np.arange(1, len(members))
    else:
        unit_of_group = np.arange(groups.n_groups)
        members = [[g] for g in range(groups.n_groups)]
        first_unit, second_unit = np.triu_indices(groups.n_groups, k=1)
    n_units = len(members)
    scale = power_of_two_scale(y_score)
    side_codes = cell_codes * n_units + unit_of_group[groups.codes]
    n_sides = len(cell_names) * n_units
    # One global sort whatever the number of sides: the order of tied scores fixes the
    # rounding of the cumulative weights, and so the last bits of the results.
    values, sorted_weights, bounds = sorted_segments(
        y_score * scale, side_codes, n_sides, weights, few_codes=1
    )
    counts = np.diff(bounds)
    segment = np.repeat(np.arange(n_sides), counts)
    totals = np.bincount(segment, weights=sorted_weights, minlength=n_sides)
    sums = np.bincount(segment, weights=sorted_weights * values, minlength=n_sides)

    cell = np.repeat(np.arange(len(cell_names)), first_unit.size)
    first = cell * n_units + np.tile(first_unit, len(cell_names))
    second = cell * n_units + np.tile(second_unit, len(cell_names))
    present = (counts[first] > 0) & (counts[second] > 0)
    for i in np.flatnonzero(~present):
        empty_unit = (first[i] if counts[first[i]] == 0 else second[i]) % n_units
        missing = [groups.labels[g] for g in members[empty_unit]]
        warnings.warn(
            f"Group {missing} has no rows with y_true == {cell_names[cell[i]]!r}; that cell is "
            "skipped.",
            UserWarning,
            stacklevel=4,
        )
    first, second = first[present], second[present]
    if first.size == 0:
        # Every class of y_true holds a single compared group: the single-group rule, per class.
        warnings.warn(
            "No class of y_true holds two of the compared groups: the disparity within classes "
            "is undefined and is reported as no disparity. Check that each class of y_true "
            "holds rows of several groups.",
            UndefinedMetricWarning,
            stacklevel=4,
        )
        return None
    if ((totals[first] == 0) | (totals[second] == 0)).any():
        raise ValueError(
            "A compared group has zero total sample_weight; its score distribution is "
            "undefined. Give each group positive weight."
        )
    if not signed:
        # The group favoured on average plays G=0, so the net part is >= 0.
        means = np.divide(sums, totals, out=np.zeros(n_sides), where=totals > 0)
        swap = sign * (means[first] - means[second]) < 0
        first, second = np.where(swap, second, first), np.where(swap, first, second)
    return _Comparison(values, sorted_weights, bounds, totals, first, second, scale, signed)


def _cells(y_true, condition_on_y, n_samples):
    """Names of the cells and the cell of each sample: one cell, or one per class of y_true."""
    if not condition_on_y:
        return [None], np.zeros(n_samples, dtype=np.intp)
    if y_true is None:
        raise ValueError("condition_on_y=True needs y_true (the class labels to condition on).")
    y_true = np.asarray(y_true)
    if y_true.ndim != 1:
        raise ValueError(f"y_true must be 1-D, got shape {y_true.shape}.")
    target_type = type_of_target(y_true, input_name="y_true")
    if target_type not in ("binary", "multiclass"):
        raise ValueError(
            f"condition_on_y=True needs class labels in y_true, got type_of_target="
            f"{target_type!r}. Bin a continuous target first (e.g. with np.digitize)."
        )
    classes, codes = np.unique(y_true, return_inverse=True)
    return classes.tolist(), codes.reshape(-1).astype(np.intp, copy=False)


def _pair_values(comparison, evaluate, upper_bounds, agg):
    """Per-pair values of ``evaluate(i)`` (shape (n_pairs, ...)), or the worst one alone.

    For an unsigned worst case the pairs are visited in decreasing order of an upper bound of
    their value and the visit stops as soon as no remaining pair can beat the best value found:
    with G groups the G (G - 1) / 2 pairs usually cost a few exact evaluations. Otherwise every
    pair is evaluated, each in O(n_a + n_b) on the pre-sorted sides: O(G n) in all.
    """
    n_pairs = comparison.first.size
    if agg != "worst_case" or comparison.signed or n_pairs < 3:
        return np.array([evaluate(i) for i in range(n_pairs)]).reshape(n_pairs, -1)
    upper = np.concatenate(
        [
            upper_bounds(
                comparison.first[lo : lo + _BOUND_CHUNK], comparison.second[lo : lo + _BOUND_CHUNK]
            )
            for lo in range(0, n_pairs, _BOUND_CHUNK)
        ]
    )
    best = None
    for i in np.argsort(-upper, kind="stable"):
        if best is not None and upper[i] * (1 + _BOUND_RTOL) < best:
            break
        value = float(evaluate(i))
        best = value if best is None else max(best, value)
    return np.array([[best]])


def _w1_upper_bounds(comparison):
    """On the slice ``(k / L, (k + 1) / L]`` of (0, 1] a side's lower quantile function lies
    between ``Q(k / L)`` (its smallest value for k = 0) and ``Q((k + 1) / L)``."""
    high = _side_table(comparison, quantile_at, np.arange(1, _BOUND_LEVELS + 1) / _BOUND_LEVELS)
    low = np.zeros_like(high)
    low[:, 1:] = high[:, :-1]
    used = _used_sides(comparison)
    low[used, 0] = comparison.values[comparison.bounds[used]]
    return lambda first, second: w1_upper_bounds(low, high, first, second)


def _ks_upper_bounds(comparison):
    grid = np.quantile(comparison.values, np.linspace(0, 1, _BOUND_LEVELS + 1), method="lower")
    cdf = _side_table(comparison, cdf_at, grid)
    return lambda first, second: ks_upper_bounds(cdf, first, second)


def _used_sides(comparison):
    return np.unique(np.concatenate([comparison.first, comparison.second]))


def _side_table(comparison, function, points):
    """``function(values, weights, points)`` of every compared side, shape (n_sides,
    n_points); zeros for the sides no pair compares."""
    table = np.zeros((comparison.bounds.size - 1, points.size))
    for s in _used_sides(comparison):
        table[s] = function(*comparison.side(s), points)
    return table


def _aggregate_gaps(per_pair, comparison, agg):
    """Signed gaps of the compared pairs (shape (n_pairs, n_points)) aggregated over the
    pairs, in absolute value when the comparison is unsigned."""
    if not comparison.signed:
        per_pair = np.abs(per_pair)
    return aggregate(per_pair, agg, sizes=comparison.sizes, signed=comparison.signed)


def _scalar_or_array(result, like):
    """A float for a scalar ``p`` / ``threshold``, the 1-D array otherwise."""
    return float(result[0]) if np.ndim(like) == 0 else result


# The parameters that the four metrics describe alike.
_PARTS = {
    "y_score": """\
y_score : array-like of shape (n_samples,)
    Scores (probabilities, decision values or regression outputs).""",
    "favorable": """\
favorable : {"higher", "lower"}, default="higher"
    Whether higher or lower scores are favourable to the individual.""",
    "condition_on_y": """\
condition_on_y : bool, default=False
    Compare the groups within each class of ``y_true`` (the equalized-odds type, Def. 3.3).""",
}

_COMMON_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_score": ["array-like"],
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    "favorable": [StrOptions({"higher", "lower"})],
    "privileged_group": "no_validation",
    "disadvantaged": [StrOptions(set(DISADVANTAGED))],
    "condition_on_y": ["boolean"],
    "agg": [StrOptions(_AGGREGATIONS)],
    "sample_weight": ["array-like", None],
}


# --------------------------------------------------------------------------------------------
# Public metrics


@dask_dispatch(SCORE_TABLE, resolution=True)
@validate_params(
    {**_COMMON_CONSTRAINTS, "part": [StrOptions({"total", "positive", "negative", "net"})]},
    prefer_skip_nested_validation=True,
)
@shared(parts=_PARTS)
def wasserstein_bias(
    y_true,
    y_score,
    *,
    sensitive_features,
    favorable="higher",
    part="total",
    privileged_group=None,
    disadvantaged="pooled",
    condition_on_y=False,
    agg="worst_case",
    sample_weight=None,
):
    """Wasserstein-1 distance between the groups' score distributions, and its parts.

    The model bias of Miroshnikov et al. (Def. 3.2): ``total = W1(f|G=0, f|G=1)`` splits into
    ``positive`` (transport at the quantile levels where the privileged group G=0 is on the
    favourable side, i.e. the model favours it), ``negative`` (the other group favoured), with
    ``total = positive + negative`` and ``net = positive - negative
    = sign * (E[f|privileged] - E[f|other])``. Computed exactly from the empirical CDFs
    (Theorem 3.2), with weights and ties, in O(n log n).

    Parameters
    ----------
    {y_true_if_conditioning}
    {y_score}
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Group of each sample; several attributes form intersectional groups.
    {favorable}
    part : {"total", "positive", "negative", "net"}, default="total"
        Which part of the bias to return.
    privileged_group : label or tuple of labels, default=None
        The paper's G=0. When given, results are signed (positive = privileged favoured) and
        the other groups are compared with it (see ``disadvantaged``). When None, all pairs
        of groups are compared and each pair is oriented so that its net part is >= 0 (the
        favoured group plays G=0).
        Note the sign: on two groups, ``net`` has the opposite sign of
        ``statistical_parity_difference`` (which is disadvantaged minus privileged).
    {disadvantaged_pairs}
    {condition_on_y}
    agg : {"worst_case", "mean", "weighted"}, default="worst_case"
        How to combine several compared pairs or cells: the one whose requested part is largest
        in magnitude, the plain mean, or the mean weighted by the two groups' combined weight.
        Irrelevant for two groups without conditioning.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in each group's ECDF.

    Returns
    -------
    float
        The requested part; 0.0 when there is a single group.

    See Also
    --------
    ks_bias : The largest gap between the cumulative distributions.
    quantile_bias : The gap at one quantile level.
    classifier_bias : The gap in selection rates at one threshold.

    {references_miroshnikov}

    Examples
    --------
    >>> from skfair.metrics import wasserstein_bias
    >>> scores = [0.2, 0.4, 0.6, 0.3, 0.5, 0.9]
    >>> groups = ["a", "a", "a", "b", "b", "b"]
    >>> round(wasserstein_bias(None, scores, sensitive_features=groups), 4)
    0.1667
    >>> round(wasserstein_bias(None, scores, sensitive_features=groups, part="net",
    ...                        privileged_group="a"), 4)
    -0.1667
    """
    sign = FAVORABLE_SIGN[favorable]
    comparison = _compared_pairs(
        y_true,
        y_score,
        sensitive_features,
        privileged_group,
        condition_on_y,
        sample_weight,
        sign,
        disadvantaged,
    )
    if comparison is None:
        return 0.0

    def evaluate(i):
        return w1_named_parts(*w1_parts_sorted(*comparison.pair(i), sign))[part]

    per_pair = _pair_values(comparison, evaluate, _w1_upper_bounds(comparison), agg)
    result = aggregate(
        per_pair, agg, sizes=comparison.sizes, signed=comparison.signed and part == "net"
    )
    return float(unscale(result, comparison.scale, "Wasserstein-1 distance")[0])


@dask_dispatch(SCORE_TABLE, resolution=True)
@validate_params(
    {**_COMMON_CONSTRAINTS, "part": [StrOptions({"total", "positive", "negative", "net"})]},
    prefer_skip_nested_validation=True,
)
@shared(parts=_PARTS)
def ks_bias(
    y_true,
    y_score,
    *,
    sensitive_features,
    favorable="higher",
    part="total",
    privileged_group=None,
    disadvantaged="pooled",
    condition_on_y=False,
    agg="worst_case",
    sample_weight=None,
):
    """Kolmogorov-Smirnov distance between the groups' score distributions.

    ``total = sup_t |F_1(t) - F_0(t)|`` is the largest statistical-parity gap over all
    thresholds (``max_t |classifier_bias(t)|``). ``positive = max(0, sup_t sign (F_1 - F_0))``
    is the largest gap at a threshold where the privileged group G=0 is favoured, ``negative``
    the largest where the other group is. KS is invariant under increasing maps of the scores
    and jumps under tiny shifts of point masses, which is why the paper prefers W1 (Sect. 3.5).

    Parameters
    ----------
    {y_true_if_conditioning}
    {y_score}
    {sensitive_features}
    {favorable}
    part : {"total", "positive", "negative"}, default="total"
        KS has no net part; ``"net"`` raises.
    privileged_group : label or tuple of labels, default=None
        The paper's G=0; see :func:`wasserstein_bias` for the orientation rules.
    {disadvantaged_pairs}
    {condition_on_y}
    agg : {"worst_case", "mean", "weighted"}, default="worst_case"
        How to combine several pairs or cells.
    {sample_weight}

    Returns
    -------
    float
        The requested part, in [0, 1].

    See Also
    --------
    wasserstein_bias : The area between the cumulative distributions.
    classifier_bias : The gap in selection rates at one threshold.

    {references_miroshnikov}

    Examples
    --------
    >>> from skfair.metrics import ks_bias
    >>> ks_bias(None, [0.1, 0.2, 0.3, 0.4], sensitive_features=[0, 0, 1, 1])
    1.0
    """
    if part == "net":
        raise ValueError(
            "ks_bias has no 'net' part (a supremum does not split additively); use part="
            "'total', 'positive' or 'negative', or wasserstein_bias(part='net')."
        )
    sign = FAVORABLE_SIGN[favorable]
    comparison = _compared_pairs(
        y_true,
        y_score,
        sensitive_features,
        privileged_group,
        condition_on_y,
        sample_weight,
        sign,
        disadvantaged,
    )
    if comparison is None:
        return 0.0

    def evaluate(i):
        positive, negative = ks_parts_sorted(*comparison.pair(i), sign)
        return {"total": max(positive, negative), "positive": positive, "negative": negative}[part]

    per_pair = _pair_values(comparison, evaluate, _ks_upper_bounds(comparison), agg)
    return float(aggregate(per_pair, agg, sizes=comparison.sizes, signed=False)[0])


@dask_dispatch(SCORE_TABLE, resolution=True)
@validate_params(
    {**_COMMON_CONSTRAINTS, "p": [Interval(Real, 0, 1, closed="right"), "array-like"]},
    prefer_skip_nested_validation=True,
)
@shared(parts=_PARTS)
def quantile_bias(
    y_true,
    y_score,
    *,
    sensitive_features,
    p=0.5,
    favorable="higher",
    privileged_group=None,
    disadvantaged="pooled",
    condition_on_y=False,
    agg="worst_case",
    sample_weight=None,
):
    """Gap between the groups' score quantiles at level ``p`` (Def. 2.3).

    ``sign * (Q_0(p) - Q_1(p))`` with ``Q_k(p) = inf{x : F_k(x) >= p}``, the lower quantile
    (``numpy.quantile(method="inverted_cdf")``, weighted). Positive means the privileged group
    G=0 is favoured at that level. Integrated over ``p`` in (0, 1] it gives the net W1 bias
    (Theorem 3.2).

    Parameters
    ----------
    {y_true_if_conditioning}
    {y_score}
    {sensitive_features}
    p : float or array-like of floats in (0, 1], default=0.5
        Quantile level(s). ``p <= 0`` raises (``Q(0) = -inf``).
    {favorable}
    privileged_group : label or tuple of labels, default=None
        The paper's G=0. Without it the result is unsigned: the largest absolute gap (or the
        mean absolute gap) over pairs of groups.
    {disadvantaged_pairs}
    {condition_on_y}
    agg : {"worst_case", "mean", "weighted"}, default="worst_case"
        How to combine several pairs or cells; elementwise for an array ``p``.
    {sample_weight}

    Returns
    -------
    float or ndarray of shape (n_levels,)
        The gap at each level ``p``, in the units of the scores (an array for an array ``p``);
        positive means the privileged group is favoured, unsigned without ``privileged_group``.

    See Also
    --------
    wasserstein_bias : Its integral over the levels (the net part).
    classifier_bias : The gap in selection rates at one threshold.

    {references_miroshnikov}

    Examples
    --------
    >>> from skfair.metrics import quantile_bias
    >>> quantile_bias(None, [1.0, 2.0, 3.0, 5.0], sensitive_features=[0, 0, 1, 1],
    ...               privileged_group=1)
    2.0
    """
    levels = _check_levels(p)
    sign = FAVORABLE_SIGN[favorable]
    comparison = _compared_pairs(
        y_true,
        y_score,
        sensitive_features,
        privileged_group,
        condition_on_y,
        sample_weight,
        sign,
        disadvantaged,
    )
    if comparison is None:
        return _scalar_or_array(np.zeros_like(levels), p)
    quantiles = _side_table(comparison, _positive_weight_quantiles, levels)
    per_pair = sign * (quantiles[comparison.first] - quantiles[comparison.second])
    result = _aggregate_gaps(per_pair, comparison, agg)
    return _scalar_or_array(unscale(result, comparison.scale, "quantile gap"), p)


def _positive_weight_quantiles(values, weights, levels):
    keep = weights > 0
    return quantile_at(values[keep], weights[keep], levels)


@dask_dispatch(SCORE_TABLE, resolution=True)
@validate_params(
    {**_COMMON_CONSTRAINTS, "threshold": [Real, "array-like"]},
    prefer_skip_nested_validation=True,
)
@shared(parts=_PARTS)
def classifier_bias(
    y_true,
    y_score,
    *,
    sensitive_features,
    threshold=0.5,
    favorable="higher",
    privileged_group=None,
    disadvantaged="pooled",
    condition_on_y=False,
    agg="worst_case",
    sample_weight=None,
):
    """Statistical-parity bias of the classifier ``1{score > threshold}`` (Def. 2.2).

    ``sign * (F_1(t) - F_0(t))``: with ``favorable="higher"`` this is the selection rate of the
    privileged group G=0 minus that of the other group, i.e. ``-statistical_parity_difference``
    (positive = privileged favoured). Integrated over all thresholds it gives the net
    W1 bias, and its positive and negative parts integrate to the positive and negative W1 bias
    (Theorem 3.2).

    Parameters
    ----------
    {y_true_if_conditioning}
    {y_score}
    {sensitive_features}
    threshold : float or array-like of floats, default=0.5
        Decision threshold(s) t; the classifier predicts the positive class when score > t.
    {favorable}
    privileged_group : label or tuple of labels, default=None
        The paper's G=0. Without it the result is unsigned (absolute gaps over pairs).
    {disadvantaged_pairs}
    {condition_on_y}
    agg : {"worst_case", "mean", "weighted"}, default="worst_case"
        How to combine several pairs or cells; elementwise for an array ``threshold``.
    {sample_weight}

    Returns
    -------
    float or ndarray of shape (n_thresholds,)
        The gap at each threshold, in [-1, 1] (an array for an array ``threshold``); positive
        means the privileged group is favoured, unsigned without ``privileged_group``.

    See Also
    --------
    wasserstein_bias : Its integral over the thresholds (the net part).
    ks_bias : Its largest absolute value over the thresholds.
    statistical_parity_difference : The same gap for predicted labels.

    {references_miroshnikov}

    Examples
    --------
    >>> from skfair.metrics import classifier_bias
    >>> classifier_bias(None, [0.2, 0.7, 0.6, 0.9], sensitive_features=["m", "m", "f", "f"],
    ...                 privileged_group="m")
    -0.5
    """
    thresholds = np.atleast_1d(np.asarray(threshold, dtype=np.float64))
    if thresholds.ndim != 1 or not np.isfinite(thresholds).all():
        raise ValueError("threshold must be a finite float or a 1-D array of finite floats.")
    sign = FAVORABLE_SIGN[favorable]
    comparison = _compared_pairs(
        y_true,
        y_score,
        sensitive_features,
        privileged_group,
        condition_on_y,
        sample_weight,
        sign,
        disadvantaged,
    )
    if comparison is None:
        return _scalar_or_array(np.zeros_like(thresholds), threshold)
    # The scores were multiplied by a power of two; so are the thresholds (exactly).
    cdf = _side_table(comparison, cdf_at, thresholds * comparison.scale)
    per_pair = sign * (cdf[comparison.second] - cdf[comparison.first])
    return _scalar_or_array(_aggregate_gaps(per_pair, comparison, agg), threshold)


def _check_levels(p):
    levels = np.atleast_1d(np.asarray(p, dtype=np.float64))
    if levels.ndim != 1 or not np.isfinite(levels).all():
        raise ValueError("p must be a float or a 1-D array of floats in (0, 1].")
    if (levels <= 0).any() or (levels > 1).any():
        raise ValueError(
            f"p must lie in (0, 1], got {levels.tolist()}: the quantile at p = 0 is -inf."
        )
    return levels
