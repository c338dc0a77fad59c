"""The optimal group-specific randomised thresholds as a linear program (pure functions).

Every group's operating point ``(FPR, TPR)`` ranges over the convex region under the upper hull
of its ROC curve and above the diagonal; every supported objective and every parity constraint
is linear in these points (Hardt, Price & Srebro 2016, Section 4). The region is the convex hull
of the upper hull's vertices, so the program has one variable per vertex (the point's mixing
weights), one equality per group and two rows per group and constrained rate; HiGHS solves it
exactly (up to its feasibility tolerance, set to 1e-10).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from skfair._linprog import Coordinates, solve_lp
from skfair.postprocessing._rules._predictive_parity import solve_predictive_parity
from skfair.postprocessing._rules._roc_hull import (
    point_on_hull,
    rate_rule,
    roc_points,
    upper_hull,
)

CONSTRAINTS = (
    "demographic_parity",
    "equalized_odds",
    "true_positive_rate_parity",
    "false_positive_rate_parity",
    "true_negative_rate_parity",
    "false_negative_rate_parity",
    "predictive_parity",
)
OBJECTIVES = (
    "accuracy",
    "balanced_accuracy",
    "true_positive_rate",
    "true_negative_rate",
    "cost",
)

# Which rates each constraint equalises: "selection" (selection rate), "tpr" or "fpr". Parity of
# FNR = 1 - TPR is parity of TPR, and TNR = 1 - FPR likewise, with the same gap.
_CONSTRAINED = {
    "demographic_parity": ("selection",),
    "equalized_odds": ("tpr", "fpr"),
    "true_positive_rate_parity": ("tpr",),
    "false_negative_rate_parity": ("tpr",),
    "false_positive_rate_parity": ("fpr",),
    "true_negative_rate_parity": ("fpr",),
    "predictive_parity": ("ppv",),
}


@dataclass(frozen=True)
class GroupRule:
    """A monotone randomised threshold rule: P(positive) is ``probabilities[0]`` for scores
    ``>= upper``, ``probabilities[1]`` in ``[lower, upper)`` and ``probabilities[2]`` below."""

    upper: float
    lower: float
    probabilities: tuple


@dataclass(frozen=True)
class GroupGeometry:
    """What the program needs of one group: its weights and its hull (None for one class)."""

    positive: float
    negative: float
    hull: tuple | None
    blocks: tuple

    @functools.cached_property
    def cumulative(self):
        """The weight of positives and of negatives in the blocks before each block (and in
        all), made once: every rule read on the group counts its three runs from them."""
        return tuple(np.concatenate([[0.0], np.cumsum(weights)]) for weights in self.blocks[1:])


def group_geometry(blocks, g):
    """The weights and hull vertices of group ``g`` of a :class:`ScoreBlocks`."""
    scores, positive, negative = blocks.group(g)
    weight_pos, weight_neg = float(positive.sum()), float(negative.sum())
    hull = upper_hull(scores, positive, negative) if weight_pos > 0 and weight_neg > 0 else None
    return GroupGeometry(weight_pos, weight_neg, hull, (scores, positive, negative))


def gain_weights(objective, positive, negative, cost=None):
    """``(alpha, beta)``: the objective is ``alpha * TP - beta * FP`` plus a constant.

    ``TP`` and ``FP`` are total weights of true and false positives, ``positive`` and
    ``negative`` the total weights of the classes. With ``objective="cost"``, ``cost`` is
    ``(false_positive_cost, false_negative_cost)`` and the objective is minus the expected cost
    per unit weight: ``-(c_FP * FP + c_FN * (positive - TP)) / total``.
    """
    total = positive + negative
    if objective == "accuracy":
        return 1.0 / total, 1.0 / total
    if objective == "balanced_accuracy":
        return 0.5 / positive, 0.5 / negative
    if objective == "true_positive_rate":
        return 1.0 / positive, 0.0
    if objective == "true_negative_rate":
        return 0.0, 1.0 / negative
    false_positive_cost, false_negative_cost = cost
    return false_negative_cost / total, false_positive_cost / total


def solve_thresholds(geometries, constraint, objective, tolerance, *, cost=None):
    """Optimal operating points ``(fpr, tpr)`` per group (arrays of shape (n_groups,)).

    A rate of a group with no sample of the class it conditions on is undefined: it is left
    out of the constraint and free in the program (reported as NaN). ``cost`` is
    ``(false_positive_cost, false_negative_cost)`` for ``objective="cost"``.

    Each group's operating point is a convex combination of its hull's vertices (its reachable
    region is their convex hull: the region under the upper hull and above the diagonal, both
    ends of which are vertices), one variable per vertex. Whatever the solver's tolerances,
    the point is then inside the region: a group whose hull has features far below the
    solver's feasibility tolerance (a few rows weighing 10^12 times the others) is not
    moved off its hull by them, as it would be by a row per hull segment ``a x + b y <= c``.
    """
    n_groups = len(geometries)
    pos = np.array([geo.positive for geo in geometries])
    neg = np.array([geo.negative for geo in geometries])
    alpha, beta = gain_weights(objective, pos.sum(), neg.sum(), cost)
    if constraint == "predictive_parity":
        return solve_predictive_parity(geometries, alpha, beta, tolerance)
    vertices = [_region_vertices(geo) for geo in geometries]
    sizes = np.array([fpr.size for fpr, _ in vertices])
    group_of = np.repeat(np.arange(n_groups), sizes)
    fpr = np.concatenate([fpr for fpr, _ in vertices])
    tpr = np.concatenate([tpr for _, tpr in vertices])
    n_mix = fpr.size
    rates = _CONSTRAINED[constraint]
    n_variables = n_mix + 2 * len(rates)  # the mixing weights, then (lo, hi) per rate
    objective_cost = np.zeros(n_variables)  # minimised: minus the objective's linear part
    objective_cost[:n_mix] = beta * neg[group_of] * fpr - alpha * pos[group_of] * tpr
    mixing = np.arange(n_mix)
    # each group's weights sum to one
    A_eq = _matrix(np.ones(n_mix), group_of, mixing, (n_groups, n_variables))

    rows, cols, values, bounds = [], [], [], []
    n_rows = 0
    for pair, rate in enumerate(rates):
        lo, hi = n_mix + 2 * pair, n_mix + 2 * pair + 1
        coefficient = _rate_coefficients(rate, fpr, tpr, pos[group_of], neg[group_of])
        defined = np.flatnonzero(_rate_defined(rate, pos, neg))
        row_of = np.full(n_groups, -1)
        row_of[defined] = n_rows + 2 * np.arange(defined.size)
        terms = np.flatnonzero(row_of[group_of] >= 0)
        # rate_a - hi <= 0 and lo - rate_a <= 0 for every group whose rate is defined
        rows += [row_of[group_of[terms]], row_of[group_of[terms]] + 1]
        cols += [terms, terms]
        values += [coefficient[terms], -coefficient[terms]]
        rows += [row_of[defined], row_of[defined] + 1]
        cols += [np.full(defined.size, hi), np.full(defined.size, lo)]
        values += [-np.ones(defined.size), np.ones(defined.size)]
        bounds.append(np.zeros(2 * defined.size))
        n_rows += 2 * defined.size
        rows.append([n_rows, n_rows])  # hi - lo <= tolerance
        cols.append([hi, lo])
        values.append([1.0, -1.0])
        bounds.append([float(tolerance)])
        n_rows += 1
    matrix = _matrix(
        np.concatenate(values), np.concatenate(rows), np.concatenate(cols), (n_rows, n_variables)
    )
    result = solve_lp(
        objective_cost,
        A_ub=matrix,
        b_ub=np.concatenate(bounds),
        A_eq=A_eq,
        b_eq=np.ones(n_groups),
        bounds=(0.0, 1.0),
        what="The threshold linear program",
    )
    weights = result.x[:n_mix].clip(0.0)
    total = np.bincount(group_of, weights, minlength=n_groups)
    return (
        np.bincount(group_of, weights * fpr, minlength=n_groups) / total,
        np.bincount(group_of, weights * tpr, minlength=n_groups) / total,
    )


def _matrix(values, rows, cols, shape):
    """The matrix with ``values`` at ``(rows, cols)`` (distinct), its zeros left out."""
    values, rows, cols = (np.asarray(part) for part in (values, rows, cols))
    given = values != 0
    return Coordinates(values[given], rows[given], cols[given], shape)


def _region_vertices(geometry):
    """``(fpr, tpr)`` of the vertices whose convex hull is the group's reachable region.

    The upper hull's vertices (from ``(0, 0)`` to ``(1, 1)``); for a group with one class,
    whose one defined rate ranges over [0, 1], the two ends ``(0, 0)`` and ``(1, 1)``.
    """
    if geometry.hull is None:
        return np.array([0.0, 1.0]), np.array([0.0, 1.0])
    return geometry.hull[0], geometry.hull[1]


def _rate_defined(rate, pos, neg):
    """Whether each group's ``rate`` is defined (it has samples of the class it needs)."""
    if rate == "tpr":
        return pos > 0
    if rate == "fpr":
        return neg > 0
    return np.ones(pos.shape, dtype=bool)


def _rate_coefficients(rate, fpr, tpr, pos, neg):
    """Each vertex's value of ``rate`` (``pos``, ``neg``: its group's class weights)."""
    if rate == "tpr":
        return tpr
    if rate == "fpr":
        return fpr
    share = pos / (pos + neg)
    return share * tpr + (1.0 - share) * fpr


def group_rule(geometry, fpr, tpr):
    """The monotone randomised rule reaching ``(fpr, tpr)`` for one group.

    A point on the hull is reached by one randomised threshold. A point above the diagonal
    and under the hull has many representations as a monotone rule of two cuts and three
    levels: the hull point at the same FPR mixed with a score-blind coin of bias ``fpr``,
    and the mixtures of two hull vertices with the rule "nobody" or the rule "everybody"
    (the triangles ``(0, V_i, V_j)`` and ``(V_i, V_j, 1)`` that hold the point). All reach the
    point in expectation; the one kept makes the realised rates vary least: the smallest
    ``Var(TPR) + Var(FPR)`` of independent decisions, ``sum p (1 - p)`` over each class's rows
    divided by the class weight squared. The coin alone randomises every row of the group.
    """
    scores, positive, negative = geometry.blocks
    if geometry.hull is None:
        # One class only: its rate is reached by a randomised threshold on its own scores.
        defined_rate, weights = (tpr, positive) if geometry.positive > 0 else (fpr, negative)
        upper, lower, weight = rate_rule(scores, weights, float(np.clip(defined_rate, 0, 1)))
        return _normal_rule(upper, lower, (1.0, _snap(weight), 0.0))
    x = float(np.clip(fpr, 0.0, 1.0))
    upper, lower, weight, y_hull = point_on_hull(*geometry.hull, x)
    y = float(np.clip(tpr, x, y_hull))
    mix = _snap((y - x) / (y_hull - x)) if y_hull > x else 1.0
    coin = _snap((1.0 - mix) * x)
    rule = _normal_rule(upper, lower, (mix + coin, mix * _snap(weight) + coin, coin))
    if mix < 1.0:  # under the hull: a representation that randomises fewer rows
        mixture, spread = _least_spread_mixture(geometry, x, y)
        if mixture is not None and spread < _spread(geometry, rule):
            rule = mixture
    return rule


def _least_spread_mixture(geometry, x, y):
    """Among the rules mixing two hull vertices with "nobody" or "everybody" that reach
    ``(x, y)``, the one of least :func:`_spread`, and its spread (None when there is none).

    A rule with cuts at vertices ``i < j`` and levels ``(top, middle, bottom)`` randomises the
    shares ``V_i``, ``V_j - V_i`` and ``1 - V_j`` of each class (the vertices are the shares
    of positives and negatives above each cut), so every candidate's spread is computed at
    once from the vertices.
    """
    fpr, tpr, thresholds = geometry.hull
    pairs = _vertex_pairs(len(fpr))
    best, best_spread = None, np.inf
    # By blocks of pairs, so that memory stays bounded for hulls of thousands of vertices.
    for start in range(0, pairs[0].size, _PAIRS_PER_BLOCK):
        i, j = (part[start : start + _PAIRS_PER_BLOCK] for part in pairs)
        rule, spread = _least_spread_of(geometry, x, y, i, j)
        if spread < best_spread:
            best, best_spread = rule, spread
    return best, best_spread


@functools.lru_cache(maxsize=64)
def _vertex_pairs(n):
    """``np.triu_indices(n, k=1)``: the pairs ``i < j`` in row order, without its n x n mask
    (read-only: hulls of the same size share them)."""
    counts = np.arange(n - 1, -1, -1)
    first = np.repeat(np.arange(n), counts)
    starts = np.cumsum(counts) - counts  # position of each row's first pair
    second = np.arange(first.size) - starts[first] + first + 1
    first.flags.writeable = second.flags.writeable = False
    return first, second


# Vertex pairs examined at once by _least_spread_mixture.
_PAIRS_PER_BLOCK = 1 << 18


def _least_spread_of(geometry, x, y, i, j):
    """:func:`_least_spread_mixture` over the vertex pairs ``(i, j)``.

    Both third points at once (row 0: "nobody" ``(0, 0)``, row 1: "everybody" ``(1, 1)``);
    the first candidate of least spread wins, "nobody" before "everybody", pairs in order.
    """
    fpr, tpr, thresholds = geometry.hull
    anchor = np.array([[0.0], [1.0]])
    # (x, y) - anchor = a (V_i - anchor) + c (V_j - anchor), by Cramer's rule
    xi, yi, xj, yj = fpr[i] - anchor, tpr[i] - anchor, fpr[j] - anchor, tpr[j] - anchor
    px, py = x - anchor, y - anchor
    det = xi * yj - xj * yi
    with np.errstate(divide="ignore", invalid="ignore"):  # det 0: not a triangle
        a = (px * yj - xj * py) / det
        c = (xi * py - px * yi) / det
        inside = (np.abs(det) > 1e-12) & (a >= -1e-12) & (c >= -1e-12) & (a + c <= 1 + 1e-12)
    everybody, pair = np.nonzero(inside)
    if pair.size == 0:
        return None, np.inf
    a, c = np.clip(a[inside], 0, 1), np.clip(c[inside], 0, 1)
    vi, vj = i[pair], j[pair]
    # Scores above V_i's cut pass both vertex rules, those between the cuts V_j's only.
    levels = np.where(
        everybody == 0,
        np.stack([a + c, c, np.zeros_like(a)]),
        np.stack([np.ones_like(a), 1 - a, np.clip(1 - a - c, 0, 1)]),
    )
    variance = levels * (1 - levels)
    spread = [
        (
            variance[0] * share[vi]
            + variance[1] * (share[vj] - share[vi])
            + variance[2] * (1 - share[vj])
        )
        / total
        for share, total in ((tpr, geometry.positive), (fpr, geometry.negative))
    ]
    spread = spread[0] + spread[1]
    k = int(np.argmin(spread))
    probabilities = tuple(_snap(float(level)) for level in levels[:, k])
    return _normal_rule(thresholds[vi[k]], thresholds[vj[k]], probabilities), float(spread[k])


def _spread(geometry, rule):
    """``Var(TPR) + Var(FPR)`` of the rule's independent decisions on the group's rows (rows
    of weight ``w`` counted as ``w`` rows)."""
    levels = np.asarray(rule.probabilities)
    variance = levels * (1 - levels)
    spread = 0.0
    for runs, total in zip(_level_runs(geometry, rule), (geometry.positive, geometry.negative)):
        spread += float(variance @ (runs / total)) / total
    return spread


def _level_runs(geometry, rule):
    """The weight of positives and of negatives at each of the rule's three levels."""
    scores = geometry.blocks[0]
    # Scores decrease: the rule's three levels cover three consecutive runs of blocks.
    cuts = np.searchsorted(-scores, [-rule.upper, -rule.lower], side="right")
    return [
        np.diff(np.concatenate([[0.0], cumulative[cuts], cumulative[-1:]]))
        for cumulative in geometry.cumulative
    ]


def _normal_rule(upper, lower, probabilities):
    """The rule with its thresholds at the cuts that matter.

    A level that no finite score reaches takes its neighbour's probability, and two adjacent
    levels with one probability merge (the band between them is empty). A rule of one
    probability for every score has both thresholds at ``-inf`` when it is "everyone
    positive" and at ``+inf`` otherwise, so that new scores beyond the fitting range get the
    group's decision.
    """
    top, middle, bottom = (float(p) for p in probabilities)
    if upper == np.inf:
        top = middle
    if lower == -np.inf:
        bottom = middle
    if top == middle == bottom:
        cut = -np.inf if top == 1.0 else np.inf
        return GroupRule(cut, cut, (top, top, top))
    if top == middle:
        upper = lower
    elif middle == bottom:
        lower = upper
    return GroupRule(float(upper), float(lower), (top, middle, bottom))


def _snap(probability):
    """A probability within 1e-12 of 0 or 1 (solver round-off) is taken as exactly that."""
    if probability < 1e-12:
        return 0.0
    return 1.0 if probability > 1.0 - 1e-12 else probability


def rule_rates(geometry, rule):
    """Expected (FPR, TPR) of ``rule`` on a group's blocks (NaN where undefined)."""
    levels = np.asarray(rule.probabilities)
    positive_runs, negative_runs = _level_runs(geometry, rule)

    def expected(runs, total):
        return np.nan if total <= 0 else float(levels @ runs / total)

    return expected(negative_runs, geometry.negative), expected(positive_runs, geometry.positive)


def full_roc(geometry):
    """The group's full weighted ROC curve (``fpr``, ``tpr``), for display."""
    _, positive, negative = geometry.blocks
    return roc_points(positive, negative)


def constraint_gap(constraint, rates):
    """Largest difference of the constrained rate(s) between two groups (NaN rates ignored)."""
    names = {
        "selection": "selection_rate",
        "tpr": "true_positive_rate",
        "fpr": "false_positive_rate",
        "ppv": "positive_predictive_value",
    }
    gaps = [0.0]
    for rate in _CONSTRAINED[constraint]:
        values = rates[names[rate]]
        values = values[~np.isnan(values)]
        if values.size:
            gaps.append(float(values.max() - values.min()))
    return max(gaps)
