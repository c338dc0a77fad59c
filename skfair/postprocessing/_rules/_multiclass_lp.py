"""The optimal fair randomised multi-class rule as a linear program (pure functions).

A randomised rule gives each row ``i`` (group ``a_i``, class probabilities ``p_i``) a
distribution ``q_i`` over the K classes. Under the model's law of the label (``Y`` given the
row drawn from ``p_i``; Denis, Elie, Hebiri & Hu 2021), the expected accuracy and every rate
that the multi-class unfairness measures ``U_DP`` and ``U_EO`` compare are linear in the
``q_i``:

- the objective ``sum_i w_i sum_k o_k p_ik q_ik`` (``o_k = 1`` for accuracy,
  ``1 / (K P(Y = k))`` for balanced accuracy);
- group statistics ``S_a[d, k] = sum_{i in a} w_i f_id q_ik`` over strata ``d``: one stratum
  with ``f_i = 1`` for demographic parity (the share of group ``a`` predicted ``k``), one
  stratum per true class with ``f_id = p_id`` for equalized odds (the mass of rows of true
  class ``d`` predicted ``k``);
- the constraints ``|S_a[d, k] / M_a[d] - sum_b S_b[d, k] / M[d]| <= tolerance``, with
  ``M_a[d] = sum_{i in a} w_i f_id`` and ``M = sum_a M_a``: each group against the whole
  population, as :func:`~skfair.metrics.demographic_parity_unfairness` and
  :func:`~skfair.metrics.equalized_odds_unfairness` measure it.

Written per row, the program has ``n_samples * K`` variables. Its Lagrangian separates over
the rows: with multipliers ``Pi_a[d, k]`` (one per group, stratum and class) on the group
statistics, each row's best response is the argmax over ``k`` of
``o_k p_ik + sum_d f_id Pi_a[d, k]``: for demographic parity the probabilities shifted by
per-group, per-class multipliers (Denis et al. 2021), for equalized odds a per-group linear
map of them. :class:`FairArgmaxProgram` solves the program on blocks of rows refined until
the per-row optimality conditions hold, and certifies the optimum by the Lagrangian bound.

Where the multipliers tie classes, the optimum may need rows of one group to be split
between the tied classes in a way that depends on the row (with equalized odds the
multipliers can tie the classes of a whole group, as Hardt, Price & Srebro's (2016)
equalized-odds thresholds mix two thresholds and a coin). The fitted rule therefore breaks
ties by a second argmax, drawn per row from a few tie-breaking rules: the mixture is found by
Wolfe's (1976) minimum-norm-point algorithm over the vertices of the tied rows' reachable
statistics, each the argmax of linear scores among the tied classes.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

from skfair._linprog import Coordinates, UnsolvedProgram, solve_lp
from skfair._utils._compat import one_blas_thread
from skfair._utils._groups import _compact as compact_codes

CONSTRAINTS = ("demographic_parity", "equalized_odds")
OBJECTIVES = ("accuracy", "balanced_accuracy")

# Optimality certificate: the Lagrangian bound exceeds the value by at most this (relative).
_CERTIFICATE = 1e-12
_MAX_ROUNDS = 1000
# Rows whose best class leads by more than this, in blocks given that class only, are merged
# into one block per group and class.
_SETTLED_MARGIN = 1e-3
# A row is tied between classes whose scores are within this of its maximum (scores are in
# probability units); widened if the optimum needs it (the solver's multipliers are exact to
# about its 1e-10 tolerance, divided by the group's weight).
_TIE_TOLERANCES = (1e-9, 1e-8, 1e-7, 1e-6, 1e-5)
# Programs with at most this many nonzeros are solved per row at once (measured: faster than
# the refinement's rounds below about 10^5 nonzeros for equalized odds, 2 x 10^4 for
# demographic parity: 1,000 rows of 5 classes).
_PER_ROW_SIZE = {"demographic_parity": 20_000, "equalized_odds": 100_000}
# At tolerance 0 the program has no rate variables (see _restricted): n_samples K (D + 1)
# nonzeros. Up to this many, equalized odds starts from the per-row program, without trying
# the smoothing (whose partition leaves most rows open there or takes many rounds): with 5
# classes and 10 groups it took 0.16 s, 0.52 s, 0.87 s and 1.75 s at 1,000, 2,000, 3,000 and
# 4,000 rows, against 0.2 s, 0.9 s, 1.3 s and 3.5 s from the smoothing's start (17-20 rounds
# from 2,000 rows), and 2.1 s against 1.9 s at 5,000. Demographic parity always tries the
# smoothing first (one round at tolerance 0: 0.014 s against 0.024 s per row at 1,000 rows).
_PER_ROW_FIRST_AT_ZERO = {"demographic_parity": 0, "equalized_odds": 120_000}
# The first partition comes from the multipliers of the Lagrangian bound with each row's
# maximum smoothed at this temperature (probability units), found in at most this many
# L-BFGS-B steps; rows whose best class then leads by more than _SETTLED_START start in one
# block per group and class, the others alone. Measured on 10^3-10^4 rows of 5 classes and
# 10 groups: one or two restricted solves for demographic parity (and for equalized odds at
# tolerance 0.02 from 3,000 rows) instead of the per-row program or 15-20 rounds.
_TEMPERATURE = 2e-3
_SMOOTHED_ITERATIONS = 100
_SETTLED_START = 0.01
_OPEN_SHARE = 0.25
# It is not tried where fewer than this share of the rows open would already exceed
# _PER_ROW_SIZE (at 10^5 and 10^6 rows it cost 0.5 s and 3.6 s for a partition not used).
_FEWEST_OPEN = 0.1
# HiGHS's presolve took 0.29 s of a 0.32 s solve of the demographic-parity program at 1,000
# rows (8 s of 8.2 s at 3,000) and helps the equalized-odds program: it runs for the latter
# only, and not on its per-row program at tolerance 0, which took 0.52 s without it and
# 0.71 s with it at 2,000 rows (0.16 s and 0.25 s at 1,000; the refinement's rounds at
# 3 x 10^4 rows took 7.7 s without it, 6.2 s with it).
_PRESOLVE = {"demographic_parity": False, "equalized_odds": True}
# ... and not on programs of at most this many equality nonzeros, where it cost more than it
# saved: the 86 rounds of 14-21 blocks of a front of 21 tolerances (1,500 rows, 3 classes)
# took 0.27 s with it, 0.23 s without.
_PRESOLVE_NONZEROS = 20_000
# HiGHS's scaling of the matrix (shares and rates, all in [0, 1]) made the dual simplex 2-5x
# slower on the equalized-odds program (0.14 s against 0.03 s for 150 blocks of 1,000 rows;
# 10.5 s against 15.5 s for the whole fit at 3 x 10^4 rows): it is off there up to this many
# rows. At 10^5 rows the unscaled optimum's multipliers tied classes that the tie-breaking
# could not mix to the optimum's rates (a fit of 50 s, not 29 s, with a warning), and
# demographic parity's program at 10^6 rows took twice as long unscaled and stopped 1e-9 short
# of its certificate: both keep the scaling.
_UNSCALED_ROWS = {"demographic_parity": 0, "equalized_odds": 30_000}
# Shares (of a group's weight in a stratum, or of the population's) below this are left out
# of the program, and the others rescaled: the solver drops matrix entries that small.
_SMALLEST_SHARE = 1.5e-12
# The tie-breaking mixture reproduces the tied rows' statistics to this, in rate units.
_MIXTURE_TOLERANCE = 1e-11


@dataclass(frozen=True)
class FairRule:
    """A fitted randomised rule: argmax of per-group linear scores, ties broken at random.

    A row of group ``a`` scores ``p @ coef[a] + intercept[a]`` and gets its highest class.
    Where classes are within ``tie_tolerance`` of the highest score, the row draws one of
    its group's tie-breaking rules (rule ``r``, with ``tie_groups[r] == a``, has probability
    ``tie_weights[r]``), which picks the tied class of highest score
    ``p @ tie_coef[r] + tie_intercept[r]`` (the first such class on a tie).
    """

    coef: np.ndarray
    intercept: np.ndarray
    tie_tolerance: float
    tie_groups: np.ndarray
    tie_weights: np.ndarray
    tie_coef: np.ndarray
    tie_intercept: np.ndarray

    def probabilities(self, probabilities, codes):
        """Probability of each class for each row: ndarray of shape (n_samples, K)."""
        out, tied, tied_rows = self._untied(probabilities, codes)
        for rows in tied_rows:
            out[rows] = 0.0
        for r, g in enumerate(self.tie_groups):
            mine = tied_rows[g]
            out[mine, self._break(r, probabilities[mine], tied[mine])] += self.tie_weights[r]
        return np.minimum(out, 1.0, out=out)  # weights summing to 1 + round-off

    def decide(self, probabilities, codes, choose):
        """Class index of each row. ``choose(rows, shares)`` draws the tie-breaking rule of
        each row of ``rows`` (those with tied classes): the index of its option, option
        ``r`` with probability ``shares[i, r]``, the weight of its group's ``r``-th rule."""
        out, tied, tied_rows = self._untied(probabilities, codes)
        classes = out.argmax(axis=1)
        rows = np.concatenate(tied_rows)
        if rows.size == 0 or self.tie_groups.size == 0:
            return classes
        n_groups = self.coef.shape[0]
        rank = np.zeros_like(self.tie_groups)  # each rule's place among its group's rules
        for g in np.unique(self.tie_groups):
            mine = np.flatnonzero(self.tie_groups == g)
            rank[mine] = np.arange(mine.size)
        rules = np.full((n_groups, rank.max() + 1), -1)  # group, place -> rule (-1: none)
        rules[self.tie_groups, rank] = np.arange(self.tie_groups.size)
        shares = np.zeros(rules.shape)
        shares[self.tie_groups, rank] = self.tie_weights
        # a group's first rule takes what round-off leaves
        shares[:, 0] += np.where(rules[:, 0] >= 0, 1.0 - shares.sum(axis=1), 0.0)
        row_group = codes[rows]
        drawn = rules[row_group, choose(rows, shares[row_group])]
        for r in range(self.tie_groups.size):
            mine = rows[drawn == r]
            classes[mine] = self._break(r, probabilities[mine], tied[mine])
        return classes

    def _untied(self, probabilities, codes):
        """One-hot highest classes, the tied classes of each row, and per group the rows
        with tied classes."""
        n_groups = self.coef.shape[0]
        order = np.argsort(codes, kind="stable")
        starts = np.searchsorted(codes[order], np.arange(n_groups + 1))
        scores = np.empty_like(probabilities, dtype=np.float64)
        for g in range(n_groups):
            rows = order[starts[g] : starts[g + 1]]
            scores[rows] = linear_scores(probabilities[rows], self.coef[g], self.intercept[g])
        out = np.zeros_like(scores)
        out[np.arange(scores.shape[0]), scores.argmax(axis=1)] = 1.0
        tied = tie_masks(scores, self.tie_tolerance)
        several = tied.sum(axis=1) > 1
        tied_rows = [
            order[starts[g] : starts[g + 1]][several[order[starts[g] : starts[g + 1]]]]
            for g in range(n_groups)
        ]
        return out, tied, tied_rows

    def _break(self, r, probabilities, tied):
        scores = linear_scores(probabilities, self.tie_coef[r], self.tie_intercept[r])
        return np.where(tied, scores, -np.inf).argmax(axis=1)


@dataclass(frozen=True)
class Solution:
    """One optimum of the program.

    Attributes
    ----------
    objective : float
        The optimal value.
    prices : ndarray of shape (n_groups, n_strata, n_classes)
        The multipliers at the optimum.
    mixture : ndarray of shape (n_samples, n_classes)
        An optimal class distribution per row (rows in the program's order).
    bound_gap : float
        Lagrangian bound minus ``objective`` (the optimality certificate).
    tolerance : float
    """

    objective: float
    prices: np.ndarray
    mixture: np.ndarray
    bound_gap: float
    tolerance: float


class FairArgmaxProgram:
    """The program of one data set, solved for any number of tolerances.

    Parameters
    ----------
    probabilities : ndarray of shape (n_samples, n_classes)
        Class probabilities of the rows (non-negative, rows summing to one).
    weights : ndarray of shape (n_samples,)
        Non-negative row weights with a positive sum (normalised here to sum to one); rows
        of weight zero are left out.
    codes : ndarray of int of shape (n_samples,)
        Group of each row, in ``range(n_groups)``; every group has positive weight.
    n_groups : int
    constraint : {"demographic_parity", "equalized_odds"}
    objective : {"accuracy", "balanced_accuracy"}

    Notes
    -----
    The rows are partitioned into blocks, each given one class distribution (a restriction
    of the per-row program, so its value is a lower bound). The first partition comes from
    the multipliers of the smoothed Lagrangian bound (see ``_start_partition``). After each
    solve the multipliers score every row; a block whose rows do not all prefer the classes
    it was given is split by the set of classes its rows prefer, and blocks whose rows all
    prefer their one class are merged per group and class. Either keeps the previous
    solution feasible, so the value never decreases; the refinement stops when the per-row
    optimality conditions hold, that is when the Lagrangian bound at the multipliers equals
    the value. The partition is kept between tolerances. The restricted program has one
    variable per block and class, one row per block and ``2 n_groups D K + D K`` coupling
    rows (``D = 1`` for demographic parity, ``K`` for equalized odds; at tolerance 0,
    ``n_groups D K`` equalities). A small program (at most ``10^5`` nonzeros, about
    ``n_samples K (3 D + 1)``; ``2 x 10^4`` for demographic parity) whose refinement stalls
    without a certificate is solved per row; equalized odds at tolerance 0 starts per row up
    to ``1.2 x 10^5`` nonzeros of its smaller program (``n_samples K (D + 1)``).
    """

    def __init__(self, probabilities, weights, codes, n_groups, constraint, objective):
        weights = np.asarray(weights, dtype=np.float64)
        # rows of weight zero do not enter the program (whatever they get is optimal)
        order = np.flatnonzero(weights > 0)
        order = order[np.argsort(codes[order], kind="stable")]
        self.probabilities = np.ascontiguousarray(probabilities[order], dtype=np.float64)
        weights = weights[order]
        self.weights = weights / weights.sum()
        self.codes = np.asarray(codes)[order].astype(np.intp)
        self.n_groups = n_groups
        self.n_classes = self.probabilities.shape[1]
        self.constraint = constraint
        self.starts = np.searchsorted(self.codes, np.arange(n_groups + 1))
        weighted = self.weights[:, None] * self.probabilities  # w_i p_ik
        self.class_weights = objective_weights(objective, weighted.sum(axis=0))
        self.gains = weighted * self.class_weights  # w_i o_k p_ik
        # w_i f_id: the weight of row i in stratum d
        self.strata = self.weights[:, None] if constraint == "demographic_parity" else weighted
        self.group_mass = np.stack(
            [np.bincount(self.codes, column, minlength=n_groups) for column in self.strata.T],
            axis=1,
        )
        self.n_strata = self.group_mass.shape[1]
        self.population_mass = self.group_mass.sum(axis=0)
        self.defined = self.group_mass > 0  # a group's rates are defined where it has weight
        self.blocks = None  # chosen at the first tolerance solved
        self.partition_tolerance = None  # the last tolerance solved
        self.scaled = self.codes.shape[0] > _UNSCALED_ROWS[constraint]

    def coefficients(self, prices):
        """``(coef, intercept)`` of shape (n_groups, K, K) and (n_groups, K) at ``prices``."""
        G, K = self.n_groups, self.n_classes
        coef = np.broadcast_to(np.diag(self.class_weights), (G, K, K)).copy()
        if self.constraint == "demographic_parity":
            return coef, prices[:, 0, :].copy()
        return coef + prices, np.zeros((G, K))

    def row_scores(self, prices):
        """Scores of every row at ``prices`` (rows in the program's order)."""
        if self.constraint == "demographic_parity":  # linear_scores' operations, all groups
            return self.probabilities * self.class_weights + prices[self.codes, 0, :]
        coef, intercept = self.coefficients(prices)
        out = np.empty_like(self.probabilities)
        for g in range(self.n_groups):
            part = slice(self.starts[g], self.starts[g + 1])
            out[part] = linear_scores(self.probabilities[part], coef[g], intercept[g])
        return out

    def solve(self, tolerance):
        """The optimum at ``tolerance`` (a :class:`Solution`)."""
        with one_blas_thread():  # many small products (see one_blas_thread)
            return self._solve(tolerance)

    def _solve(self, tolerance):
        n_rows = self.codes.shape[0]
        # A per-row partition is not kept for another tolerance, which ties fewer rows (a
        # front of 21 tolerances from 0 on 1,500 rows took 0.55 s solving each per row, 0.3 s
        # without); it is for the same one (a fallback's, or a re-solve's).
        if self.blocks is None or (
            self.blocks.max() + 1 == n_rows and tolerance != self.partition_tolerance
        ):
            self.blocks = self._start_partition(tolerance)
        self.partition_tolerance = tolerance
        previous, best = -np.inf, None
        for _ in range(_MAX_ROUNDS):
            B = int(self.blocks.max()) + 1
            block_group = np.zeros(B, dtype=np.intp)
            block_group[self.blocks] = self.codes
            mass = np.stack(
                [np.bincount(self.blocks, c, minlength=B) for c in self.strata.T], axis=1
            )
            gain = np.stack(
                [np.bincount(self.blocks, c, minlength=B) for c in self.gains.T], axis=1
            )
            try:
                value, split, prices, offset = self._restricted(block_group, mass, gain, tolerance)
            except UnsolvedProgram:
                # HiGHS called a restricted program of a sharp model (probabilities down to
                # 1e-90) infeasible at tolerance 1e-9 (a constant rule meets it) where it
                # solved the per-row program: that one, if small
                if n_rows == B or not self._per_row_is_small():
                    raise
                self.blocks = np.arange(n_rows)
                continue
            scores = self.row_scores(prices)
            scale = max(1.0, abs(value))
            gap = offset + float(self.weights @ scores.max(axis=1)) - value
            # The best round: the highest value, and of equal values the best certificate (a
            # coarser partition's multipliers certify less).
            if (
                best is None
                or value > best[0] + 1e-14 * scale
                or (value >= best[0] - 1e-14 * scale and gap < best[3])
            ):
                best = (value, prices, split[self.blocks], gap)
            # One block per row is the program itself: its multipliers certify it, up to the
            # shares left out (see _restricted).
            if gap <= _CERTIFICATE * scale or n_rows == B:
                break
            # Merging is allowed only after progress, so that merges and splits cannot cycle.
            blocks = self._repartition(split, scores, merge=value > previous + 1e-14 * scale)
            if _same_partition(blocks, self.blocks):  # nothing left to split
                break
            self.blocks, previous = blocks, value
        value, prices, mixture, gap = best
        uncertified = gap > 1e-9 * max(1.0, abs(value))
        if uncertified and not self.scaled:
            # unscaled, HiGHS's multipliers can miss the certificate by its dual tolerance
            self.scaled = True
            try:
                return self._solve(tolerance)
            finally:
                self.scaled = False
        if uncertified and n_rows > B and self._per_row_is_small():
            # the refinement stalled (degenerate multipliers): the per-row program is exact
            self.blocks = np.arange(n_rows)
            return self._solve(tolerance)
        if uncertified:
            warnings.warn(
                f"The multi-class fairness program stopped {gap:.3g} below its Lagrangian "
                "bound; the rule found is feasible but may be slightly suboptimal.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return Solution(value, prices, mixture, float(gap), float(tolerance))

    def _start_partition(self, tolerance):
        """The first blocks.

        Rows whose best class at the smoothed optimum's multipliers lead by more than
        ``_SETTLED_START`` start in one block per group and class, the others in one block
        each. Where more than ``_OPEN_SHARE`` of the rows are open (the optimum ties the
        classes of many rows, as equalized odds at tolerance 0 does), or the open rows
        alone exceed ``_PER_ROW_SIZE`` nonzeros (or would at ``_FEWEST_OPEN`` of the rows),
        the start is the per-row program if it is small, else one block per group and
        unconstrained best class.
        """
        K = self.n_classes
        n_rows = self.codes.shape[0]
        if tolerance == 0 and (
            n_rows * K * (1 + self.n_strata) <= _PER_ROW_FIRST_AT_ZERO[self.constraint]
        ):
            return np.arange(n_rows)
        # the smoothing is tried only where the open rows could be few enough to be used
        if K > 1 and self._per_row_is_small(_FEWEST_OPEN * n_rows):
            scores = self.row_scores(self._smoothed_prices(tolerance))
            ordered = np.partition(scores, K - 2, axis=1)
            open_rows = np.flatnonzero(ordered[:, K - 1] - ordered[:, K - 2] <= _SETTLED_START)
            if open_rows.size <= _OPEN_SHARE * n_rows and self._per_row_is_small(open_rows.size):
                keys = self.codes * K + scores.argmax(axis=1)
                keys[open_rows] = self.n_groups * K + np.arange(open_rows.size)
                return _compact(keys)
        if self._per_row_is_small():
            return np.arange(n_rows)  # the per-row program in one solve
        return _compact(self.codes * K + self.gains.argmax(axis=1))

    def _per_row_is_small(self, n_rows=None):
        """Whether the program over ``n_rows`` rows (all by default), one block each, has at
        most ``_PER_ROW_SIZE`` nonzeros."""
        n_rows = self.codes.shape[0] if n_rows is None else n_rows
        return n_rows * self.n_classes * (1 + 3 * self.n_strata) <= _PER_ROW_SIZE[self.constraint]

    def _smoothed_prices(self, tolerance):
        """Multipliers minimising the Lagrangian bound with each row's maximum smoothed.

        The bound at multipliers ``nu[a, d, k]`` on the constraints (in rate units, of
        either sign) is ``sum_i w_i max_k score_ik + tolerance sum M_a[d] |nu[a, d, k]|``
        with the prices ``Pi_a = -nu_a + sum_b s[b, d] nu_b``; the maximum is replaced by
        ``_TEMPERATURE`` times the log-sum-exp of the scores over it, and the bound
        minimised by L-BFGS-B with ``nu`` split into its positive and negative parts.
        """
        G, D, K = self.n_groups, self.n_strata, self.n_classes
        mass = np.where(self.defined, self.group_mass, 0.0)
        share = mass / self.population_mass  # s[a, d]: group a's share of stratum d
        penalty = float(tolerance) * np.broadcast_to(mass[:, :, None], (G, D, K)).ravel()
        free = np.broadcast_to(self.defined[:, :, None], (G, D, K)).ravel()
        size = G * D * K
        first = self.starts[:-1]

        weights = self.weights[:, None]
        # the scores in units of the temperature (the bound needs no batch-independent
        # rounding): for demographic parity the weighted probabilities shifted per group
        if D == 1:
            shifted = self.probabilities * (self.class_weights / _TEMPERATURE)

        def prices(nu):
            return -nu + np.einsum("ad,adk->dk", share, nu)[None]

        def bound(x):
            nu = (x[:size] - x[size:]).reshape(G, D, K)
            if D == 1:
                scores = shifted + (prices(nu)[:, 0, :] / _TEMPERATURE)[self.codes]
            else:  # all groups at once
                coef, _ = self.coefficients(prices(nu))
                scores = np.einsum("id,idk->ik", self.probabilities, coef[self.codes])
                scores /= _TEMPERATURE
            top = scores.max(axis=1, keepdims=True)
            scores -= top
            np.exp(scores, out=scores)
            total = scores.sum(axis=1, keepdims=True)
            value = _TEMPERATURE * float(self.weights @ (np.log(total) + top).ravel())
            # each row's smoothed best response; each group's weight in stratum d of the
            # rows' responses k
            if D == 1:
                scores *= weights / total
                slope = np.add.reduceat(scores, first)[:, None, :]
            else:
                scores /= total
                slope = np.add.reduceat(self.strata[:, :, None] * scores[:, None, :], first)
            slope = (share[:, :, None] * slope.sum(axis=0) - slope).ravel()
            return value + penalty @ (x[:size] + x[size:]), np.concatenate(
                [slope + penalty, penalty - slope]
            )

        upper = np.where(np.r_[free, free], np.inf, 0.0)  # undefined rates: no multiplier
        result = minimize(
            bound,
            np.zeros(2 * size),
            jac=True,
            method="L-BFGS-B",
            bounds=list(zip(np.zeros(2 * size), upper)),
            options={"maxiter": _SMOOTHED_ITERATIONS},
        )
        return prices((result.x[:size] - result.x[size:]).reshape(G, D, K))

    def _repartition(self, split, scores, *, merge):
        """Split the blocks whose rows disagree with the multipliers; merge settled ones."""
        K = self.n_classes
        best = scores.argmax(axis=1)
        if K > 1:
            ordered = np.partition(scores, K - 2, axis=1)
            margin = ordered[:, K - 1] - ordered[:, K - 2]
        else:
            margin = np.full(scores.shape[0], np.inf)
        pure = split.max(axis=1) > 1.0 - 1e-12
        row_settled = pure[self.blocks] & (split.argmax(axis=1)[self.blocks] == best)
        row_settled &= margin > _SETTLED_MARGIN
        unsettled = np.bincount(self.blocks, ~row_settled, minlength=split.shape[0]) > 0
        core = ~unsettled[self.blocks] & merge
        # Rows tied at the multipliers stay together: splitting them would follow round-off.
        tied = _compact(_mask_codes(tie_masks(scores, _TIE_TOLERANCES[0])))
        n_core = self.n_groups * K
        return _compact(
            np.where(core, self.codes * K, n_core + self.blocks.astype(np.int64) * (tied.max() + 1))
            + np.where(core, best, tied)
        )

    def _restricted(self, block_group, mass, gain, tolerance):
        """Solve the program with one class distribution per block.

        Block ``b`` (of group ``block_group[b]``) has weight ``mass[b, d]`` in stratum ``d``
        and gains ``gain[b, k]`` when predicted ``k``. Returns ``(value, split, prices,
        offset)``: the blocks' class distributions ``split`` (B, K), the multipliers, and the
        Lagrangian bound's constant, the bound at ``prices`` being
        ``offset + sum_i w_i max_k score_ik``.

        Variables: the blocks' distributions ``x[b, k]``, each group's rates ``r[a, d, k]``
        (where the group has weight in stratum ``d``) and the population's rates
        ``u[d, k]``. Equalities: one distribution per block; ``r[a, d, k] = sum_b c[b, d]
        x[b, k]`` with ``c[b, d]`` block ``b``'s share of its group's weight in stratum ``d``;
        ``u[d, k] = sum_a s[a, d] r[a, d, k]`` with ``s[a, d]`` group ``a``'s share of the
        stratum. Inequalities: ``|r[a, d, k] - u[d, k]| <= tolerance``. At tolerance 0 the
        group rates equal the population's: the rows ``u[d, k] = sum_b c[b, d] x[b, k]`` take
        the place of the rates' definitions (same multipliers), without the variables ``r``,
        the population's definition (implied, the shares summing to one) and the
        inequalities. Shares below ``_SMALLEST_SHARE`` are left out and the others rescaled
        to sum to one, so that the solver, which drops smaller coefficients, sees shares
        that add up: every constant rule meets the constraints at any tolerance, 0 included.
        """
        G, D, K = self.n_groups, self.n_strata, self.n_classes
        B, S = mass.shape[0], D * K
        n_x = B * K
        defined = np.broadcast_to(self.defined[:, :, None], (G, D, K)).reshape(G, S)
        n_r = int(defined.sum())
        rate_of = np.full((G, S), -1)
        rate_of[defined] = np.arange(n_r)
        u_of_rate = np.broadcast_to(np.arange(S), (G, S))[defined]
        exact = tolerance == 0
        # columns: x, then r (not at tolerance 0), then u
        n_cols = n_x + (0 if exact else n_r) + S
        u_cols = n_cols - S + u_of_rate
        # the blocks' shares of their group's weight in each stratum
        share, group_total = _shares(mass, block_group, G)
        b, d = np.nonzero(share)
        k = np.broadcast_to(np.arange(K), (b.size, K)).ravel()
        b, d = np.repeat(b, K), np.repeat(d, K)
        # one distribution per block; each group's rates (r, or u at tolerance 0)
        values = [np.ones(n_x), -share[b, d], np.ones(n_r)]
        rows = [
            np.repeat(np.arange(B), K),
            B + rate_of[block_group[b], d * K + k],
            B + np.arange(n_r),
        ]
        cols = [np.arange(n_x), b * K + k, u_cols if exact else n_x + np.arange(n_r)]
        A_ub = b_ub = None
        if not exact:
            # the population's rates from the groups' shares of each stratum
            group_share, _ = _shares(
                np.where(self.defined, self.group_mass, 0.0), np.zeros(G, dtype=np.intp), 1
            )
            g, d_pop = np.nonzero(group_share)
            g, d_pop = np.repeat(g, K), np.repeat(d_pop, K)
            k_pop = np.tile(np.arange(K), g.size // K)
            values += [np.ones(S), -group_share[g, d_pop]]
            rows += [B + n_r + np.arange(S), B + n_r + d_pop * K + k_pop]
            cols += [n_x + n_r + np.arange(S), n_x + rate_of[g, d_pop * K + k_pop]]
            # |r[a, d, k] - u[d, k]| <= tolerance, where the group's rates are defined
            r_cols = n_x + np.arange(n_r)
            A_ub = Coordinates(
                np.concatenate([np.ones(n_r), -np.ones(n_r), -np.ones(n_r), np.ones(n_r)]),
                np.concatenate([np.arange(n_r)] * 2 + [n_r + np.arange(n_r)] * 2),
                np.concatenate([r_cols, u_cols, r_cols, u_cols]),
                (2 * n_r, n_cols),
            )
            b_ub = np.full(2 * n_r, float(tolerance))
        A_eq = Coordinates(
            np.concatenate(values),
            np.concatenate(rows),
            np.concatenate(cols),
            (B + n_r + (0 if exact else S), n_cols),
        )
        b_eq = np.zeros(A_eq.shape[0])
        b_eq[:B] = 1.0
        bounds = np.tile([[-np.inf, np.inf]], (n_cols, 1))
        bounds[:n_x, 0] = 0.0
        result = solve_lp(
            np.r_[-gain.ravel(), np.zeros(n_cols - n_x)],
            A_ub=A_ub,
            b_ub=b_ub,
            A_eq=A_eq,
            b_eq=b_eq,
            bounds=bounds,
            what="The multi-class fairness program",
            presolve=_PRESOLVE[self.constraint]
            and A_eq.nnz > _PRESOLVE_NONZEROS
            and not (exact and self.codes.shape[0] == B),
            scale=self.scaled,
        )
        # A block's reduced gain for class k is gain[b, k] - sum_d y[a, d, k] c[b, d], with
        # y the multipliers of its group's rate rows: per unit of weight in stratum d,
        # -y[a, d, k] / (the group's weight in d), the prices.
        y_rate = np.zeros((G, S))
        y_rate[defined] = result.eqlin.marginals[B : B + n_r]
        prices = -y_rate.reshape(G, D, K) / group_total[:, :, None]
        offset = 0.0 if exact else -float(tolerance) * float(result.ineqlin.marginals.sum())
        split = result.x[:n_x].clip(0.0).reshape(B, K)
        return -result.fun, split / split.sum(axis=1, keepdims=True), prices, offset

    def rule(self, solution):
        """The fitted :class:`FairRule` at ``solution``."""
        coef, intercept = self.coefficients(solution.prices)
        mixture = solution.mixture
        scores = self.row_scores(solution.prices)
        support = mixture > 1e-12
        for tie_tolerance in _TIE_TOLERANCES:
            tied = tie_masks(scores, tie_tolerance)
            if not (support & ~tied).any():  # the optimum randomises only among tied classes
                break
        else:  # pragma: no cover - solver multipliers off by more than 1e-5
            warnings.warn(
                "The optimal rule randomises between classes whose scores differ by more "
                "than 1e-5; the fitted rule may miss the constraint by a small amount.",
                ConvergenceWarning,
                stacklevel=2,
            )
        several = tied.sum(axis=1) > 1
        parts = []
        for g in range(self.n_groups):
            part = slice(self.starts[g], self.starts[g + 1])
            rows = np.flatnonzero(several[part]) + self.starts[g]
            parts.append(self._tie_breaking(g, rows, tied[rows], mixture[rows]))
        K = self.n_classes
        return FairRule(
            coef=coef,
            intercept=intercept,
            tie_tolerance=tie_tolerance,
            tie_groups=np.concatenate([np.full(len(w), g) for g, (w, _, _) in enumerate(parts)]),
            tie_weights=np.concatenate([w for w, _, _ in parts]),
            tie_coef=np.concatenate([c for _, c, _ in parts]).reshape(-1, K, K),
            tie_intercept=np.concatenate([b for _, _, b in parts]).reshape(-1, K),
        )

    def _tie_breaking(self, g, rows, tied, mixture):
        """A mixture of tie-breaking rules giving the tied rows of group ``g`` the statistics
        of ``mixture``: ``(weights, coef, intercept)`` of the rules.

        The statistics the tied rows can reach form a polytope whose vertices are argmax
        rules of linear scores among the tied classes (scores ``sum_d f_id Y[d, k]``);
        Wolfe's (1976) minimum-norm-point algorithm finds vertices whose mixture is the
        target (the optimum's statistics lie in the polytope).
        """
        K, D = self.n_classes, self.n_strata
        if rows.size == 0:
            return np.zeros(0), np.zeros((0, K, K)), np.zeros((0, K))
        strata = self.strata[rows]
        scale = np.where(self.defined[g], self.group_mass[g], 1.0)
        target = (np.stack([strata[:, d] @ mixture for d in range(D)]) / scale[:, None]).ravel()
        probabilities = self.probabilities[rows]

        # the statistics of a choice: row i's weight in stratum d at cell d * K + chosen[i]
        cells = np.arange(D) * K
        weights = strata.ravel()

        def vertex(coef, intercept):
            # a rule without coefficients scores every row by its intercept alone
            scores = linear_scores(probabilities, coef, intercept) if coef.any() else intercept
            chosen = np.where(tied, scores, -np.inf).argmax(axis=1)
            stats = np.bincount((chosen[:, None] + cells).ravel(), weights, minlength=D * K)
            return (stats.reshape(D, K) / scale[:, None]).ravel() - target, (coef, intercept)

        def oracle(direction):  # the vertex minimising <direction, vertex>
            y = -direction.reshape(D, K) / scale[:, None]
            if self.constraint == "demographic_parity":
                return vertex(np.zeros((K, K)), y[0])
            return vertex(y, np.zeros(K))

        # start from the priority rules "class k first" (then the first tied class)
        starts = [vertex(np.zeros((K, K)), np.eye(K)[k]) for k in range(K)]
        weights, rules, distance = min_norm_mixture(oracle, starts, _MIXTURE_TOLERANCE)
        if distance > 1e-9:
            warnings.warn(
                f"The tie-breaking mixture of group {g} misses its target by {distance:.3g}; "
                "the fitted rule may miss the constraint by that much.",
                ConvergenceWarning,
                stacklevel=3,
            )
        return (
            weights,
            np.asarray([coef for coef, _ in rules]),
            np.asarray([intercept for _, intercept in rules]),
        )


def min_norm_mixture(oracle, starts, tolerance, max_iter=10_000):
    """Wolfe's (1976) minimum-norm point of a polytope given by a linear oracle.

    ``oracle(direction)`` returns ``(point, payload)`` for a vertex minimising
    ``<direction, point>``; ``starts`` are ``(point, payload)`` pairs of known vertices.
    Returns ``(weights, payloads, distance)``: convex weights of vertices whose mixture is the
    point nearest the origin, and its norm (below ``tolerance`` when the origin is inside).
    """
    nearest = min(range(len(starts)), key=lambda j: starts[j][0] @ starts[j][0])
    points, payloads = starts[nearest][0][None, :], [starts[nearest][1]]
    squares = np.array([points[0] @ points[0]])  # the points' squared norms
    weights = np.ones(1)
    x = points[0]
    for _ in range(max_iter):
        if np.sqrt(x @ x) <= tolerance:
            break
        point, payload = oracle(x)
        # No vertex is nearer the origin's side than x (to rounding: the product's error is
        # about 1e-16 |x| |point|): x is the nearest point. The test is relative to |x|, not
        # |x|^2, so that it does not stop the descent at a distance of about 1e-7.
        reach = np.sqrt(max(1.0, squares.max(), point @ point))
        if x @ x - x @ point <= 1e-14 * np.sqrt(x @ x) * reach:
            break
        points = np.vstack([points, point])
        payloads.append(payload)
        squares = np.append(squares, point @ point)
        weights = np.append(weights, 0.0)
        while True:  # minor cycle: the nearest point of the affine hull, kept convex
            affine = _affine_hull_weights(points)
            if (affine > 1e-15).all():
                weights = affine
                break
            falling = (affine <= 1e-15) & (weights - affine > 0)
            if falling.any():
                step = np.min(weights[falling] / (weights[falling] - affine[falling]))
                weights = weights + step * (affine - weights)
            else:  # the points leaving already have no weight (to rounding): drop them
                weights = affine
            keep = weights > 1e-15
            points, squares = points[keep], squares[keep]
            payloads = [p for p, k in zip(payloads, keep) if k]
            weights = weights[keep] / weights[keep].sum()
        x = weights @ points
    return weights, payloads, float(np.sqrt(x @ x))


def _affine_hull_weights(points):
    """Weights summing to one of the point of the points' affine hull nearest the origin:
    the solution of ``[[P P^T, 1], [1^T, 0]] (a, mu) = (0, 1)``, by an LU solve where the
    system is well conditioned, else by least squares (points nearly affinely dependent)."""
    m = points.shape[0]
    system = np.ones((m + 1, m + 1))
    system[:m, :m] = points @ points.T
    system[m, m] = 0.0
    unit = np.zeros(m + 1)
    unit[m] = 1.0
    try:
        solution = np.linalg.solve(system, unit)
    except np.linalg.LinAlgError:
        solution = None
    if solution is None or not (
        np.isfinite(solution).all()
        and np.abs(solution[:m]).max() <= 1e6
        and np.abs(system @ solution - unit).max() <= 1e-12 * max(1.0, np.abs(system).max())
    ):
        solution = np.linalg.lstsq(system, unit, rcond=None)[0]
    return solution[:m]


def objective_weights(objective, class_mass):
    """``o_k``: 1 for accuracy; ``1 / (K' P(Y = k))`` for balanced accuracy (K' classes of
    positive mass)."""
    if objective == "accuracy":
        return np.ones_like(class_mass)
    present = class_mass > 0
    return np.where(present, 1.0 / (present.sum() * np.where(present, class_mass, 1.0)), 0.0)


def linear_scores(probabilities, coef, intercept):
    """``p @ coef + intercept`` by an explicit sum over the rows of ``coef``: the same
    floating-point operations for a row whatever batch it is in."""
    diagonal = np.diagonal(coef)
    if not np.any(coef - np.diag(diagonal)):  # shifts of weighted probabilities
        return probabilities * diagonal + intercept
    scores = np.broadcast_to(intercept, (probabilities.shape[0], coef.shape[1])).copy()
    for d in range(coef.shape[0]):
        if np.any(coef[d]):
            scores += probabilities[:, d, None] * coef[d]
    return scores


def tie_masks(scores, tie_tolerance):
    """Classes whose score is within ``tie_tolerance`` of the row's maximum."""
    return scores >= scores.max(axis=1, keepdims=True) - tie_tolerance


def _mask_codes(masks):
    """A small integer code per distinct row of a boolean matrix."""
    if masks.shape[1] <= 63:
        packed = np.packbits(masks, axis=1, bitorder="little")
        wide = np.zeros((masks.shape[0], 8), dtype=np.uint8)
        wide[:, : packed.shape[1]] = packed
        return wide.view("<u8")[:, 0].astype(np.int64)
    return np.unique(masks, axis=0, return_inverse=True)[1].ravel()


def _same_partition(a, b):
    """Whether two labelings of the rows define the same partition."""
    n_a, n_b = int(a.max()) + 1, int(b.max()) + 1
    if n_a != n_b:
        return False
    return np.unique(a.astype(np.int64) * n_b + b).size == n_a


def _shares(mass, owner, n_owners):
    """Each row's share of its owner's total in each column, and the totals kept.

    ``mass`` is (n_rows, n_columns), ``owner`` the owner of each row. Shares below
    ``_SMALLEST_SHARE`` are set to zero and the others rescaled to sum to one (per owner and
    column); the totals returned are those of the shares kept (1 where an owner has none).
    """
    total = np.stack([np.bincount(owner, column, minlength=n_owners) for column in mass.T], axis=1)
    safe = np.where(total > 0, total, 1.0)
    share = mass / safe[owner]
    small = share < _SMALLEST_SHARE
    if small.any():
        mass = np.where(small, 0.0, mass)
        total = np.stack(
            [np.bincount(owner, column, minlength=n_owners) for column in mass.T], axis=1
        )
        safe = np.where(total > 0, total, 1.0)
        share = mass / safe[owner]
    return share, safe


def _compact(keys):
    """Consecutive integer ids of non-negative integer ``keys``, in the keys' order."""
    return compact_codes(keys, int(keys.max()) + 1 if keys.size else 0)[1]
