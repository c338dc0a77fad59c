"""Multi-dimensional subset scanning (MDSS) with the Bernoulli scan statistic.

Zhang & Neill (2016), "Identifying significant predictive bias in classifiers": for a subset
``S`` of rows with outcomes ``y_i`` and predicted probabilities ``p_i``, the log-likelihood
ratio of multiplying the odds of every ``p_i`` by ``q``,

    F(S, q) = sum_S y_i log q - sum_S log(1 - p_i + q p_i),

maximised over ``q`` (``q > 1``: the outcomes are more often positive than predicted,
``q < 1``: less often), minus a penalty per value included. Subsets are conjunctions over
attributes of *sets* of values; the search optimises one attribute at a time, the others
fixed, exactly: with ``c_v(q) = F(rows of value v, q) - penalty`` concave in ``log q``, the
best set of values for a given ``q`` is ``{v : c_v(q) > 0}``, which changes only where some
``c_v`` crosses 0, so the best set is among the sets of the intervals between those roots
(penalised fast subset scanning, Speakman et al. 2016); the attribute may also be left
unconstrained (every value, no penalty for it). Steps go over the attributes in random order
until none improves the score, from the whole population first and then from random subsets
(``n_restarts`` in all).

The conventions are those of aif360's ``bias_scan`` (``aif360.detectors.mdss``): ``q`` in
``[1e-3, 1e3]`` and clipped to 1 on the wrong side of the direction, the penalty times the
number of values in the constrained attributes, random starting subsets that keep each
value of each attribute (in random order) with one random probability and drop an attribute
that would leave too few rows. Where aif360 stops its bisections at a width of 1e-3 in
``q``, the roots and maxima here are solved to machine precision (Newton's method on the
concave functions of ``log q``, safeguarded by bisection), and a candidate set is scored
only when the sum of its values' own maxima could beat the best one so far.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_LOG_Q_RANGE = (np.log(1e-3), np.log(1e3))
_TOLERANCE = 1e-12
_MAX_ITERATIONS = 200
# aif360: a step that does not raise the score by more than this leaves the flags as they are.
_IMPROVEMENT = 1e-6


@dataclass
class _Rows:
    """The rows of a subset: outcomes (weighted), probabilities and weights."""

    y: np.ndarray
    p: np.ndarray
    w: np.ndarray


def _log_terms(log_q, p):
    """``log(1 - p + q p)``, stable for q near 1."""
    return np.log1p(np.expm1(log_q) * p)


def _share(q_minus_one, p):
    """``q p / (1 - p + q p)`` from ``q - 1`` (one per row)."""
    return (q_minus_one + 1) * p / (1 + q_minus_one * p)


def solve_mle(observed, p, w, groups, n_groups, positive):
    """Maximiser in ``log q`` of ``F`` for each group of rows (``groups`` the group of each
    row), within aif360's range and clipped to ``log q = 0`` on the wrong side.

    The slope of ``F`` in ``log q`` decreases; at ``q = 1`` it is ``sum y - sum p``, whose
    sign says on which side of 1 the maximiser lies: a group on the wrong side is clipped to
    ``q = 1`` without a search."""

    def slope(t):
        share = _share(np.expm1(t)[groups], p)
        weighted = w * share
        return (
            observed - np.bincount(groups, weights=weighted, minlength=n_groups),
            -np.bincount(groups, weights=weighted * (1 - share), minlength=n_groups),
        )

    at_one, derivative = slope(np.zeros(n_groups))
    searched = at_one > 0 if positive else at_one < 0
    t = np.zeros(n_groups)
    if searched.any():
        ends = np.full(n_groups, _LOG_Q_RANGE[1] if positive else _LOG_Q_RANGE[0])
        low, high = (np.zeros(n_groups), ends) if positive else (ends, np.zeros(n_groups))
        t = _newton(
            slope, low, high, increasing=False, start=t, first=(at_one, derivative), active=searched
        )
    return t


def _newton(function, low, high, *, increasing, start, first=None, active=None):
    """Zeros of the monotone ``function(t) -> (value, derivative)`` (one per entry) within
    ``[low, high]``, from ``start``: safeguarded Newton steps (bisection when a step leaves
    the bracket known to hold the zero). An entry whose zero lies beyond an end gets that
    end, found by stepping onto it. ``first`` is the function at ``start`` when known;
    entries not ``active`` keep their start."""
    range_low, range_high = low, high
    low, high = low.copy(), high.copy()
    t = np.array(start, dtype=np.float64)
    active = np.ones(t.shape, dtype=bool) if active is None else active.copy()
    for iteration in range(_MAX_ITERATIONS):
        if not active.any():
            break
        value, derivative = first if iteration == 0 and first is not None else function(t)
        above = value > 0 if increasing else value < 0  # the zero is below t
        below = ~above
        beyond = (above & (t <= range_low)) | (below & (t >= range_high)) | (value == 0)
        high = np.where(active & above, t, high)
        low = np.where(active & below, t, low)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = t - value / derivative
            # min/max rather than np.clip: the same numbers, without clip's Python wrapper.
            step = np.where(
                np.isfinite(step), np.minimum(np.maximum(step, range_low), range_high), np.nan
            )
        inside = (
            (step >= low)
            & (step <= high)
            & ((step > low) | (low == range_low))
            & ((step < high) | (high == range_high))
        )
        new = np.where(inside, step, (low + high) / 2)
        converged = (
            beyond
            | (np.abs(new - t) <= _TOLERANCE * np.maximum(1.0, np.abs(t)))
            | (high - low <= _TOLERANCE)
        )
        t = np.where(active & ~beyond, new, t)
        active &= ~converged
    return t


def bernoulli_score(observed, p, w, log_q):
    """``F(S, q)`` of one set of rows."""
    return observed * log_q - np.sum(w * _log_terms(log_q, p))


def score_rows(rows, positive, n_values, penalty):
    """Penalised score of a set of rows at its direction-clipped maximising ``q``."""
    return _unpenalised_score(rows, positive) - penalty * n_values


def _unpenalised_score(rows, positive):
    """``F(S, q)`` of a set of rows at its direction-clipped maximising ``q`` (0 if empty)."""
    if rows.y.shape[0] == 0:
        return 0.0
    observed = float((rows.w * rows.y).sum())
    log_q = _scalar_mle(observed, rows.p, rows.w, positive)
    return bernoulli_score(observed, rows.p, rows.w, log_q)


def _scalar_mle(observed, p, w, positive):
    """:func:`solve_mle` of one set of rows: the same safeguarded Newton steps on Python
    floats (elementwise sums, not ``np.dot``: a BLAS call that waits for its threads on a
    busy machine)."""

    def slope(t):
        share = _share(np.expm1(t), p)
        weighted = w * share
        return observed - weighted.sum(), -(weighted * (1 - share)).sum()

    value = observed - (w * p).sum()
    if (value <= 0) if positive else (value >= 0):
        return 0.0  # the maximiser is on the other side of q = 1
    end = _LOG_Q_RANGE[1] if positive else _LOG_Q_RANGE[0]
    low, high = (0.0, end) if positive else (end, 0.0)
    t = 0.0
    value, derivative = slope(t)
    for _ in range(_MAX_ITERATIONS):
        if value > 0:  # the slope decreases: the zero is above t
            low = t
            if t >= _LOG_Q_RANGE[1]:
                return t
        else:
            high = t
            if t <= _LOG_Q_RANGE[0] or value == 0:
                return t
        step = t - value / derivative if derivative < 0 else np.nan
        if not np.isfinite(step):
            step = (low + high) / 2
        step = min(max(step, _LOG_Q_RANGE[0]), _LOG_Q_RANGE[1])
        if not low <= step <= high or (step in (low, high) and step not in _LOG_Q_RANGE):
            step = (low + high) / 2
        if abs(step - t) <= _TOLERANCE * max(1.0, abs(t)) or high - low <= _TOLERANCE:
            return step
        t = step
        value, derivative = slope(t)
    return t


def best_values(rows, codes, n_values, positive, penalty):
    """The best set of values of one attribute for the rows matching the others: ``(values,
    score, fit)`` with ``values`` None for "every value" (the attribute unconstrained),
    ``score`` penalised for this attribute's values only and ``fit`` the unpenalised ``F``
    of the rows kept (so that the caller penalises the whole subset without scoring the same
    rows again)."""
    observed = np.bincount(codes, weights=rows.w * rows.y, minlength=n_values)
    t_mle = solve_mle(observed, rows.p, rows.w, codes, n_values, positive)
    peak, _ = _penalised(t_mle, codes, rows.p, rows.w, observed, penalty)
    present = np.bincount(codes, minlength=n_values) > 0
    exists = present & (peak > 0)
    candidates = []
    if exists.any():
        values = np.flatnonzero(exists)
        # The roots of the values that can score, on their rows only.
        renumber = np.full(n_values, -1)
        renumber[values] = np.arange(values.shape[0])
        kept = renumber[codes] >= 0
        sub_codes, sub_p, sub_w = renumber[codes[kept]], rows.p[kept], rows.w[kept]

        # Both roots of every value in one solve: entries ``m + v`` are the right roots, on a
        # second copy of the rows, and their function is ``-c_v`` (increasing like the left
        # ones'), so that one array Newton serves all of them.
        m = values.shape[0]
        both_codes = np.concatenate([sub_codes, sub_codes + m])
        both_p, both_w = np.tile(sub_p, 2), np.tile(sub_w, 2)
        both_observed = np.tile(observed[values], 2)
        sign = np.repeat([1.0, -1.0], m)

        # An entry that has converged keeps its ``t``: only the rows of the entries whose
        # ``t`` moved are evaluated again (the sums of a value's rows are the same ones).
        last = {"t": np.full(2 * m, np.nan), "value": np.zeros(2 * m), "slope": np.zeros(2 * m)}

        def value_at(t):
            moved = t != last["t"]
            rows_moved = moved[both_codes]
            value, slope = _penalised(
                t,
                both_codes[rows_moved],
                both_p[rows_moved],
                both_w[rows_moved],
                both_observed,
                penalty,
            )
            last["t"] = t.copy()
            last["value"] = np.where(moved, sign * value, last["value"])
            last["slope"] = np.where(moved, sign * slope, last["slope"])
            return last["value"], last["slope"]

        # c_v is concave in log q: Newton's steps from the outer end approach each root from
        # outside, without overshooting it. On the searched side of q = 1 the inner root lies
        # between q = 1 and the maximiser (c_v(1) = -penalty <= 0 and the maximiser is on
        # that side), so its steps start at q = 1, next to it when the penalty is small.
        outer_low = np.full(m, _LOG_Q_RANGE[0])
        outer_high = np.full(m, _LOG_Q_RANGE[1])
        at_one = np.zeros(m)
        inner_low, inner_high = (at_one, outer_high) if positive else (outer_low, at_one)
        roots = _newton(
            value_at,
            np.concatenate([inner_low, t_mle[values]]),
            np.concatenate([t_mle[values], inner_high]),
            increasing=True,
            start=np.concatenate([inner_low, inner_high]),
        )
        left, right = roots[:m], roots[m:]
        q_min, q_max = np.exp(left), np.exp(right)
        # aif360's direction_assertions: only the side of q = 1 that is searched.
        if positive:
            keep = q_max >= 1
            q_min = np.maximum(q_min, 1.0)
        else:
            keep = q_min <= 1
            q_max = np.minimum(q_max, 1.0)
        values, q_min, q_max = values[keep], q_min[keep], q_max[keep]
        thresholds = np.unique(np.concatenate([q_min, q_max]))
        middles = (thresholds[:-1] + thresholds[1:]) / 2
        seen = set()
        for middle in middles:
            members = values[(q_min < middle) & (middle < q_max)]
            if members.shape[0] and members.tobytes() not in seen:
                seen.add(members.tobytes())
                candidates.append(members)
    best_score, best, best_fit = 0.0, None, 0.0
    if candidates:
        bounds = np.array([peak[members].sum() for members in candidates])
        for index in np.argsort(-bounds, kind="stable"):
            if bounds[index] <= best_score:
                break
            members = candidates[index]
            lookup = np.zeros(n_values, dtype=bool)
            lookup[members] = True
            inside = lookup[codes]
            subset = _Rows(rows.y[inside], rows.p[inside], rows.w[inside])
            fit = _unpenalised_score(subset, positive)
            score = fit - penalty * members.shape[0]
            if score > best_score:
                best_score, best, best_fit = score, members, fit
    # Every value, unconstrained (no penalty), wins ties: it keeps the same rows or more
    # under a shorter description.
    every = _unpenalised_score(rows, positive)
    if every >= best_score:
        return None, every, every
    return best, best_score, best_fit


def _penalised(t, codes, p, w, observed, penalty):
    """``c_v(q) = F(rows of value v, q) - penalty`` and its slope in ``log q``, per value."""
    q_minus_one = np.expm1(t)[codes]
    n = observed.shape[0]
    log_terms = np.bincount(codes, weights=w * np.log1p(q_minus_one * p), minlength=n)
    slope = observed - np.bincount(codes, weights=w * _share(q_minus_one, p), minlength=n)
    return observed * t - log_terms - penalty, slope


@dataclass
class _Subset:
    """Values kept per attribute (None: unconstrained), and the rows they keep."""

    values: list
    satisfied: np.ndarray
    n_constrained: int = 0

    def inside(self, codes, j, values):
        size = max(int(codes[j].max(initial=0)), int(np.max(values, initial=0))) + 1
        lookup = np.zeros(size, dtype=bool)
        lookup[values] = True
        return lookup[codes[j]]

    def set(self, codes, j, values):
        if self.values[j] is not None:
            self.satisfied -= self.inside(codes, j, self.values[j])
            self.n_constrained -= 1
        self.values[j] = None if values is None else np.sort(np.asarray(values))
        if values is not None:
            self.satisfied += self.inside(codes, j, self.values[j])
            self.n_constrained += 1

    def rows(self):
        return self.satisfied == self.n_constrained

    def n_values(self):
        return sum(len(v) for v in self.values if v is not None)


def mdss_scan(codes, dims, y, p, w, *, positive, penalty, n_restarts, rng, min_rows):
    """The subset found by each restart: a list of ``(values per attribute, score)``."""
    n_columns = len(dims)
    found = []
    for restart in range(n_restarts):
        subset = _Subset([None] * n_columns, np.zeros(y.shape[0], dtype=np.int32))
        if restart:
            _random_start(subset, codes, dims, rng, min_rows)
        rows = subset.rows()
        score = score_rows(_Rows(y[rows], p[rows], w[rows]), positive, subset.n_values(), penalty)
        flags = np.zeros(n_columns, dtype=bool)
        while not flags.all():
            j = int(rng.choice(np.flatnonzero(~flags)))
            subset.set(codes, j, None)
            others = subset.rows()
            matching = _Rows(y[others], p[others], w[others])
            values, _, fit = best_values(matching, codes[j][others], dims[j], positive, penalty)
            subset.set(codes, j, values)
            # The rows kept are those best_values scored (in the same order): the same F.
            new_score = fit - penalty * subset.n_values()
            if new_score > score + _IMPROVEMENT:
                flags[:] = False
            flags[j] = True
            score = new_score
        found.append(([None if v is None else v.copy() for v in subset.values], float(score)))
    return found


def _random_start(subset, codes, dims, rng, min_rows):
    """aif360's random starting subset: one probability of keeping a value, the attributes
    in random order, an attribute dropped when it would keep fewer than ``min_rows`` rows."""
    keep_probability = rng.random()
    for j in rng.permutation(len(dims)):
        kept = np.flatnonzero(rng.random(dims[j]) < keep_probability)
        if kept.shape[0] < dims[j]:
            subset.set(codes, int(j), kept)
            if subset.rows().sum() < min_rows:
                subset.set(codes, int(j), None)
