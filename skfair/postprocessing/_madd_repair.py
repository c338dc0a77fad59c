"""MADD post-processing: move each group's score CDF towards the population CDF.

Verger, Lallé, Bouchet and Luengo, *Evaluating and Mitigating Algorithmic Unfairness with the
MADD Metric*, JEDM 2024, Section 6. Group g's target CDF is the mixture
``C_g = (1 - lam) F_g + lam F`` (eqs. 2-3 written for CDFs, F the population CDF), and a score
``p`` of group g becomes ``C_g^{-1}(F_g(p))`` (eqs. 7-8, with the generalised inverse).

The CDFs here are exact: piecewise-linear interpolations of each group's empirical CDF through
the knots ``(0, 0), (x_(k), k / (n_g + 1)), (1, 1)``, not maddlib's binned estimate. Scores
tied on a calibration atom get a uniform level across the atom (randomised probability
integral transform), so that discrete scores (trees, k-NN) can reach the mixture law.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from numbers import Integral, Real

import numpy as np
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import column_or_1d

from skfair._stats._histograms import h_sup as _h_sup
from skfair._stats._sorted import rows_by_code, sort_by_code
from skfair._transport._repair import _BaseRepair
from skfair._utils._compat import Interval, StrOptions
from skfair.postprocessing._docs import documented

# bins="auto" is floor(1 / (0.1 h_sup)) per pair of groups: 135 bins for 10^4 / 10^4 and 40
# for 217 / 313, the paper's two settings (Sections 6.3.1 and 6.3.2).
_AUTO_BINS_FRACTION = 0.1

# The uses of random numbers, each its own stream of the fitted seed (with the column): the
# order of tied calibration rows, and the level of a new score across an atom.
_TIE_ORDER, _ATOM_LEVEL = range(2)


@documented
class MADDRepair(_BaseRepair):
    """Partial repair of score distributions towards the population (MADD post-processing).

    Each group's CDF of scores is moved towards the population CDF,
    ``C_g = (1 - lam) F_g + lam F`` with ``F = sum_g (W_g / W) F_g`` (``W_g`` the number, or
    total weight, of group g's calibration rows), and a score ``p`` of
    group g is mapped to ``C_g^{-1}(F_g(p))`` through the generalised inverse (Verger et al.,
    JEDM 2024, eqs. 7-8). Since ``C_g - C_h = (1 - lam) (F_g - F_h)``, every pairwise MADD
    shrinks by the factor ``1 - lam`` as n grows (Section 6.4). ``lam = 0`` is exactly the
    identity, ``lam = 1`` gives every group the population distribution. Each column of the
    score array is repaired on its own; any number of groups is supported.

    The maps are fitted on calibration scores and applied to new scores by ``transform``;
    ``fit_transform`` is the in-sample path (each calibration row takes the level
    ``rank / (n_g + 1)`` of its rank within its group). On tie-free data both agree.

    Parameters
    ----------
    lam : "auto" or float in [0, 1], default="auto"
        Strength of the repair. ``"auto"`` picks it on the calibration data (``y`` needed) by
        minimising ``(1 - theta) AccuracyLoss + theta MADD / 2`` over ``n_lambdas`` equally
        spaced values (Section 6.1.4, eqs. 9-10); ties go to the smallest value.
    theta : float in [0, 1], default=0.5
        Weight of fairness against accuracy in the objective.
    threshold : float in [0, 1], default=0.5
        Decision threshold of the accuracy loss: ``y_pred = 1[p >= threshold]``.
    n_lambdas : int, default=1000
        Size of the grid ``np.linspace(0, 1, n_lambdas)`` searched by ``lam="auto"`` (the
        paper's step of 1/999).
    bins : "auto" or int, default="auto"
        Bins of the MADD in the objective. ``"auto"`` is ``floor(1 / (0.1 h_sup))`` for each
        pair of groups (:func:`~skfair.metrics.madd_bandwidth_search` defines ``h_sup``), which
        gives the paper's 135 bins for two groups of 10,000.
    agg : {"worst_case", "mean"}, default="worst_case"
        Aggregation of the pairwise MADDs in the objective when there are more than two groups.
    {handle_unknown_repair}
    random_state : int, RandomState instance, Generator or None, default=None
        Used for tied scores only: the order of tied calibration scores, and the level drawn
        across an atom for a new score equal to a tied calibration value. One seed is drawn
        from it at fit, and every random number is a function of that seed and the row's
        position, so repeated ``transform`` calls give identical output for any
        ``random_state`` (None included).
    {sensitive_column_read}

    Attributes
    ----------
    lambda_ : ndarray of shape (n_features,)
        Repair strength of each column (the chosen one when ``lam="auto"``).
    lambdas_ : ndarray of shape (n_lambdas,)
        The grid searched by ``lam="auto"``.
    objective_, accuracy_loss_, fairness_loss_ : ndarray of shape (n_lambdas, n_features)
        The objective, the error rate and half the MADD of the in-sample repaired scores at
        each grid value (``lam="auto"`` with at least two groups only, as
        ``objective_min_``).
    objective_min_ : ndarray of shape (n_features,)
        Objective at ``lambda_``.
    bins_ : ndarray of shape (n_pairs,)
        Bins of the objective's MADD for each pair of groups (pairs in ``groups_`` order).
    {score_repair_attributes}

    See Also
    --------
    skfair.metrics.madd : The metric this repair reduces.
    skfair.postprocessing.BarycenterRepair : Repair towards the Wasserstein barycenter.

    Notes
    -----
    **Exact CDFs instead of histograms.** Each group's CDF interpolates its empirical CDF
    linearly between calibration scores and is anchored at (0, 0) and (1, 1), so the map is
    continuous in ``lam``, non-decreasing within a group and exactly the identity at
    ``lam = 0`` (maddlib's binned CDF moves scores by up to 0.07 at ``lam = 0``). New scores are
    mapped with the stored CDFs alone; a group unseen at fit raises a ValueError. Tied
    calibration scores form atoms of the CDF; a score on an atom gets a level drawn uniformly
    across it, which splits the atom in the mixture proportions instead of moving it as a
    block (which raises MADD on discrete scores).

    **lam="auto" is in-sample and prefers lam near 1.** The search scores the repaired
    calibration rows, as the paper's validation-set workflow does. It reads every grid value
    from CDF values at the bin edges (an output is below an edge ``e`` iff its level is below
    ``C_g(e-)``), without materialising the repaired scores. With exact maps the in-sample MADD
    at ``lam = 1`` is about 0 (exactly 0 for equal group sizes), and MADD decreases steadily in
    ``lam``; so ``lambda_`` sits at or near 1 whenever the accuracy cost is small. On the
    paper's simulation (10,000 per group, 135 bins, theta = 0.5) the search returns
    ``lambda_ = 1.0`` with objective 0.195, whereas the paper reports ``lam* = 0.970`` with
    objective 0.226. That value is an artefact of binned CDFs: maddlib's estimator leads the
    empirical CDF by one bin, so its repaired MADD never reaches 0; it bottoms out at 0.063 near
    ``lam = 0.975`` and rises again, which moves the minimum of the objective below 1. On new
    data MADD levels off at the sampling-noise floor of the bins, so in-sample optimism should
    be kept in mind when reading ``fairness_loss_``.

    **Sample weights.** With ``sample_weight`` each group's CDF steps by the row's weight
    instead of 1: weights are scaled to mean 1 within the group, so the level of the k-th
    smallest score is (its cumulative scaled weight) ``/ (n_g + 1)``, the group shares of the
    population CDF are the groups' total weights, and the ``lam="auto"`` objective counts
    rows by weight. Unit weights give the unweighted repair exactly, and the result does not
    depend on the scale of the weights. Integer weights are close to, not exactly, repeated
    rows: the CDF's anchors at 0 and 1 count as one row of average weight. Rows of weight 0
    do not enter the fit; ``fit_transform`` repairs them like new scores.

    Without sensitive features all rows form one group and the repair is the identity (with a
    warning); scores are then not required to lie in [0, 1].

    **Dask input.** ``fit`` refuses dask collections with a TypeError (the maps rank the
    calibration rows within their groups): fit on an in-memory sample. ``transform`` returns
    a lazy dask array, block by block at each block's row offset, exactly the in-memory
    output.

    References
    ----------
    Verger, M., Lallé, S., Bouchet, F. and Luengo, V. (2024). Evaluating and Mitigating
    Algorithmic Unfairness with the MADD Metric. Journal of Educational Data Mining, Section 6.

    Examples
    --------
    >>> from skfair.datasets import make_madd_simulation
    >>> from skfair.metrics import madd
    >>> from skfair.postprocessing import MADDRepair
    >>> y_score, group, y = make_madd_simulation(2000, random_state=0)
    >>> repair = MADDRepair(lam=0.5, random_state=0)
    >>> repaired = repair.fit_transform(y_score[:, None], sensitive_features=group)
    >>> before = madd(y, y_score, sensitive_features=group, bins=50)
    >>> after = madd(y, repaired, sensitive_features=group, bins=50)
    >>> round(before, 2), round(after / before, 2)
    (1.18, 0.5)
    """

    _parameter_constraints: dict = {
        **_BaseRepair._parameter_constraints,
        "lam": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="both")],
        "theta": [Interval(Real, 0, 1, closed="both")],
        "threshold": [Interval(Real, 0, 1, closed="both")],
        "n_lambdas": [Interval(Integral, 2, None, closed="left")],
        "bins": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "agg": [StrOptions({"worst_case", "mean"})],
    }

    def __init__(
        self,
        lam="auto",
        theta=0.5,
        *,
        threshold=0.5,
        n_lambdas=1000,
        bins="auto",
        agg="worst_case",
        handle_unknown="error",
        random_state=None,
        sensitive_column=None,
    ):
        self.lam = lam
        self.theta = theta
        self.threshold = threshold
        self.n_lambdas = n_lambdas
        self.bins = bins
        self.agg = agg
        self.handle_unknown = handle_unknown
        self.random_state = random_state
        self.sensitive_column = sensitive_column

    def _fit_identity(self, X, y):
        self.lambdas_ = np.linspace(0.0, 1.0, self.n_lambdas)
        self.bins_ = np.empty(0, dtype=np.intp)
        self.lambda_ = np.full(X.shape[1], 0.0 if self.lam == "auto" else float(self.lam))
        self._cdfs = None

    def _fit_maps(self, X, y, groups, sample_weight, draws, *, in_sample):
        """Fit the CDFs and, with ``lam="auto"``, choose ``lam``; the in-sample path gives
        row i of group g the level of its rank in the group (ties ordered at random).

        Rows of weight 0 do not enter the CDFs nor the objective; in the in-sample path they
        are repaired like new scores.
        """
        if groups.n_groups < 2:
            # one group is its own population: the repair is the identity
            self._fit_identity(X, y)
            return X.copy() if in_sample else None
        labels = _check_binary_labels(y, X.shape[0]) if self.lam == "auto" else None
        fitted = None
        if sample_weight is not None and not (sample_weight > 0).all():
            fitted = np.flatnonzero(sample_weight > 0)
            _check_unit_interval(X)
        scores, codes, weights, fitted_draws = (
            (X, groups.codes, sample_weight, draws)
            if fitted is None
            else (X[fitted], groups.codes[fitted], sample_weight[fitted], draws[fitted])
        )
        sizes = np.bincount(codes, minlength=groups.n_groups)
        _check_calibration(scores, sizes, self.groups_)
        self.lambdas_ = np.linspace(0.0, 1.0, self.n_lambdas)
        self.bins_ = self._pair_bins(sizes)
        # per column, the rows by (group, score), tied rows in random order: the in-sample ranks
        orders = [
            sort_by_code(
                scores[:, c], codes, sizes.shape[0], ties=fitted_draws.uniform(_TIE_ORDER, c)
            )[0]
            for c in range(scores.shape[1])
        ]
        self._cdfs = [
            _fit_cdfs(scores[:, column], codes, sizes, weights, orders[column])
            for column in range(scores.shape[1])
        ]
        if self.lam == "auto":
            labels = labels if fitted is None else labels[fitted]
            self._search_lambda(scores, codes, sizes, orders, labels, weights)
        else:
            self.lambda_ = np.full(scores.shape[1], float(self.lam))
        if not in_sample:
            return None
        repaired = scores.copy()
        group_rows = rows_by_code(codes, groups.n_groups)
        for column, lam in enumerate(self.lambda_):
            if lam > 0:
                cdfs = self._cdfs[column]
                levels = np.empty(scores.shape[0])
                levels[orders[column]] = np.concatenate(cdfs.ranked_level)  # level of each rank
                repaired[:, column] = _repair_column(cdfs, lam, levels, group_rows)
        if fitted is None:
            return repaired
        out = self._apply_maps(X, groups.codes, draws)  # zero-weight rows: as new scores
        out[fitted] = repaired
        return out

    def _search_lambda(self, scores, codes, sizes, orders, labels, sample_weight):
        """Set ``lambda_`` and the curves of the objective (eqs. 9-10) on the grid."""
        terms = [
            _objective_terms(
                self._cdfs[column],
                scores[:, column],
                codes,
                labels,
                orders[column],
                sizes,
                self.lambdas_,
                self.bins_,
                self.threshold,
                self.agg,
                sample_weight,
            )
            for column in range(scores.shape[1])
        ]
        self.accuracy_loss_ = np.column_stack([accuracy for accuracy, _ in terms])
        self.fairness_loss_ = np.column_stack([fairness for _, fairness in terms])
        self.objective_ = (1 - self.theta) * self.accuracy_loss_ + self.theta * self.fairness_loss_
        best = np.argmin(self.objective_, axis=0)  # first minimum: the smallest lam
        self.objective_min_ = self.objective_[best, np.arange(scores.shape[1])]
        self.lambda_ = self.lambdas_[best]

    def _apply_maps(self, X, codes, draws):
        """Repair new scores with the stored CDFs; columns with ``lambda_ == 0`` are returned
        unchanged, bit for bit."""
        repaired = X.copy()
        if self._cdfs is None:
            return repaired
        _check_unit_interval(X)
        group_rows = rows_by_code(codes, len(self.groups_))
        for column, lam in enumerate(self.lambda_):
            if lam > 0:
                cdfs = self._cdfs[column]
                noise = draws.uniform(_ATOM_LEVEL, column)
                levels = _transform_levels(cdfs, X[:, column], group_rows, noise)
                repaired[:, column] = _repair_column(cdfs, lam, levels, group_rows)
        return repaired

    def _pair_bins(self, sizes):
        pairs = combinations(range(sizes.shape[0]), 2)
        if self.bins != "auto":
            return np.full(sizes.shape[0] * (sizes.shape[0] - 1) // 2, self.bins, dtype=np.intp)
        return np.array(
            [int(1 / (_AUTO_BINS_FRACTION * _h_sup(sizes[g], sizes[k]))) for g, k in pairs],
            dtype=np.intp,
        )


# --------------------------------------------------------------------------------------------
# private helpers


@dataclass(frozen=True)
class _GroupCDFs:
    """Interpolated empirical CDFs of one score column, per group.

    ``knots[g]`` is ``[0, sorted scores of g, 1]``; the CDF of g takes level ``k / (n_g + 1)``
    at knot k (with weights, ``levels[g][k]``: the cumulative weight scaled to mean 1, over
    ``n_g + 1``) and is linear in between (right-continuous: the last level at tied knots).
    ``ranked_weight[g]`` is the cumulative weight of g's rows in rank order (0 first), and
    ``ranked_level[g]`` the in-sample level of each rank.
    ``grid`` holds 0, 1 and every calibration score; all CDFs are linear between consecutive
    grid points, so their values and left limits there describe the mixtures completely.
    """

    knots: tuple
    levels: tuple
    ranked_weight: tuple
    ranked_level: tuple
    weights: np.ndarray
    grid: np.ndarray
    cdf: np.ndarray
    cdf_left: np.ndarray
    population: np.ndarray
    population_left: np.ndarray


def _fit_cdfs(scores, codes, sizes, sample_weight, ranked_order):
    """The per-group CDFs of one column, and their values on the merged grid.

    ``ranked_order`` sorts the rows by (group, score, random tie key): the in-sample order.
    The CDF itself takes tied rows in row order, so that it does not depend on the draws.
    """
    order, bounds = sort_by_code(scores, codes, sizes.shape[0], ties="rows")
    bounds = bounds[1:-1]
    per_group = np.split(scores[order], bounds)
    knots = tuple(np.concatenate(([0.0], x, [1.0])) for x in per_group)
    if sample_weight is None:
        totals = sizes.astype(np.float64)
        levels = (None,) * sizes.shape[0]
        ranked_weight = tuple(np.arange(n + 1, dtype=np.float64) for n in sizes)
        ranked_level = tuple(np.arange(1, n + 1) / (n + 1) for n in sizes)
    else:
        totals = np.bincount(codes, weights=sample_weight, minlength=sizes.shape[0])
        scaled = sample_weight * (sizes / totals)[codes]  # mean 1 within each group
        levels = tuple(
            np.concatenate(([0.0], np.cumsum(w) / (n + 1), [1.0]))
            for w, n in zip(np.split(scaled[order], bounds), sizes, strict=True)
        )
        ranked_weight = tuple(
            np.concatenate(([0.0], np.cumsum(w)))
            for w in np.split(sample_weight[ranked_order], bounds)
        )
        ranked_level = tuple(
            np.cumsum(w) / (n + 1)
            for w, n in zip(np.split(scaled[ranked_order], bounds), sizes, strict=True)
        )
    weights = totals / totals.sum()
    grid = np.unique(np.concatenate(([0.0, 1.0], scores)))
    cdf = np.stack([_cdf_levels(k, grid, "right", v) for k, v in zip(knots, levels, strict=True)])
    cdf_left = np.stack(
        [_cdf_levels(k, grid, "left", v) for k, v in zip(knots, levels, strict=True)]
    )
    return _GroupCDFs(
        knots=knots,
        levels=levels,
        ranked_weight=ranked_weight,
        ranked_level=ranked_level,
        weights=weights,
        grid=grid,
        cdf=cdf,
        cdf_left=cdf_left,
        population=_population(weights, cdf),
        population_left=_population(weights, cdf_left),
    )


def _population(weights, group_levels):
    """``sum_g w_g F_g``, summed group by group so every caller rounds identically."""
    total = weights[0] * group_levels[0]
    for weight, levels in zip(weights[1:], group_levels[1:], strict=True):
        total = total + weight * levels
    return total


def _cdf_levels(knots, points, side, levels=None):
    """The interpolated CDF at ``points`` (``side="left"``: its left limits).

    ``levels`` are the CDF's values at the knots; None means ``k / (len(knots) - 1)``.
    """
    n_levels = knots.shape[0] - 1
    below = np.searchsorted(knots, points, side="left")  # first knot >= point
    upto = np.searchsorted(knots, points, side="right") - 1  # last knot <= point
    on_knot = below <= upto
    lower = np.minimum(upto, n_levels - 1)
    span = knots[lower + 1] - knots[lower]
    fraction = np.divide(points - knots[lower], span, out=np.zeros_like(points), where=~on_knot)
    level_on_knot = upto if side == "right" else below
    if levels is None:
        return np.where(on_knot, level_on_knot, lower + fraction) / n_levels
    between = levels[lower] + fraction * (levels[lower + 1] - levels[lower])
    return np.where(on_knot, levels[level_on_knot], between)


def _transform_levels(cdfs, scores, group_rows, noise):
    """Levels ``U`` of new scores (randomised probability integral transform).

    A score equal to a single calibration value of rank k takes ``k / (n_g + 1)``, as in the
    in-sample path; on an atom of c >= 2 tied calibration values, a level uniform across the
    atom's c ranks; elsewhere the interpolated CDF.
    """
    levels = np.empty_like(scores)
    for rows, knots, knot_levels in zip(group_rows, cdfs.knots, cdfs.levels, strict=True):
        calibration = knots[1:-1]
        n_levels = knots.shape[0] - 1
        p = scores[rows]
        lo = np.searchsorted(calibration, p, side="left")
        hi = np.searchsorted(calibration, p, side="right")
        tied = hi - lo
        level = _cdf_levels(knots, p, "right", knot_levels)
        atom = tied >= 2
        if knot_levels is None:
            level = np.where(tied == 1, hi / n_levels, level)
            level[atom] = (lo[atom] + 1) / n_levels + noise[rows[atom]] * (
                tied[atom] - 1
            ) / n_levels
        else:
            # uniform between the levels of the atom's first and last calibration rows
            first, last = knot_levels[lo[atom] + 1], knot_levels[hi[atom]]
            level[atom] = first + noise[rows[atom]] * (last - first)
        levels[rows] = level
    return levels


def _repair_column(cdfs, lam, levels, group_rows):
    """Scores ``C_g^{-1}(U)`` of the mixture CDF of each row's group (eq. 8); ``group_rows``
    holds the rows of each group."""
    repaired = np.empty_like(levels)
    for group, rows in enumerate(group_rows):
        repaired[rows] = _mixture_quantile(cdfs, group, lam, levels[rows])
    return repaired


def _mixture_quantile(cdfs, group, lam, levels):
    """Generalised inverse ``inf{x : C(x) >= U}`` of ``C = (1 - lam) F_g + lam F``.

    ``C`` is linear between grid points and may jump at them (atoms). On the interleaved
    levels ``[C(z_0-), C(z_0), C(z_1-), C(z_1), ...]``, a level in ``(C(z_j-), C(z_j)]`` falls
    on the atom ``z_j``; one in ``(C(z_{j-1}), C(z_j-)]`` is interpolated from the right-hand
    grid point, so that ``U = C(z_j-)`` returns ``z_j`` exactly.
    """
    left = (1 - lam) * cdfs.cdf_left[group] + lam * cdfs.population_left
    right = (1 - lam) * cdfs.cdf[group] + lam * cdfs.population
    steps = np.maximum.accumulate(np.column_stack((left, right)).ravel())  # absorbs rounding
    position = np.minimum(np.searchsorted(steps, levels, side="left"), steps.shape[0] - 1)
    point = position // 2
    on_atom = (position % 2 == 1) | (position == 0)
    previous = np.maximum(position - 1, 0)
    grid = cdfs.grid
    distance = np.divide(
        steps[position] - levels,
        steps[position] - steps[previous],
        out=np.zeros_like(levels),
        where=~on_atom,
    )
    interpolated = grid[point] - distance * (grid[point] - grid[np.maximum(point - 1, 0)])
    return np.clip(np.where(on_atom, grid[point], interpolated), 0.0, 1.0)


def _objective_terms(
    cdfs, scores, codes, labels, order, sizes, lambdas, pair_bins, threshold, agg, sample_weight
):
    """Accuracy loss and MADD / 2 of the in-sample repaired scores at every ``lam``.

    Group g's in-sample outputs are ``C_g^{-1}(L_k)`` for the levels ``L_k`` of its ranks
    (``k / (n_g + 1)`` unweighted), and ``C_g`` is strictly increasing, so the number of
    outputs below an edge ``e`` is the number of levels below ``C_g(e-)``: one vectorised count
    gives every histogram and every count of predicted negatives, for all ``lam`` and groups
    at once. ``order`` sorts the rows by group, then rank (the in-sample order, ties at
    random); rows count by their weight. Row ``lam = 0`` is computed from the raw scores.

    The histograms of a group depend on the pair only through its number of bins, so they are
    computed once per distinct number of bins (few, as bins="auto" varies slowly with the group
    sizes), and each pair only adds up an absolute difference: O(G n_lambdas bins) per distinct
    number of bins plus O(G² n_lambdas bins) for the pairs, instead of O(G³ ...).
    """
    n_groups = sizes.shape[0]
    weight = lambdas[:, None]

    def outputs_below(points):
        """Count of each group's in-sample outputs below each point, (n_groups, n_lam, n_pts)."""
        group_left = [
            _cdf_levels(knots, points, "left", levels)
            for knots, levels in zip(cdfs.knots, cdfs.levels, strict=True)
        ]
        population_left = _population(cdfs.weights, group_left)
        targets = np.stack(
            [(1 - weight) * group_left[g] + weight * population_left for g in range(n_groups)]
        )
        if sample_weight is None:
            return _levels_below(targets, sizes)
        return np.stack(
            [np.searchsorted(cdfs.ranked_level[g], targets[g]) for g in range(n_groups)]
        )

    # Accuracy: the first c_g rows of group g (in rank order) are predicted negative.
    row_weight = np.ones(labels.shape[0]) if sample_weight is None else sample_weight
    ranked_positive = (row_weight * labels)[order]
    group_start = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    negatives = outputs_below(np.array([float(threshold)]))
    errors = np.zeros(lambdas.shape[0])
    for g in range(n_groups):
        positive = ranked_positive[group_start[g] : group_start[g] + sizes[g]]
        positives_before = np.concatenate(([0.0], np.cumsum(positive)))
        weight_before = cdfs.ranked_weight[g]
        c = negatives[g, :, 0]
        errors += (
            positives_before[c]
            + (weight_before[-1] - weight_before[c])
            - (positives_before[-1] - positives_before[c])
        )
    accuracy_loss = errors / row_weight.sum()
    accuracy_loss[0] = np.average(labels != (scores >= threshold), weights=sample_weight)

    totals = np.array([w[-1] for w in cdfs.ranked_weight])
    pairs = np.array(list(combinations(range(n_groups), 2)), dtype=np.intp).reshape(-1, 2)
    pair_losses = np.empty((lambdas.shape[0], pairs.shape[0]))
    for n_bins in np.unique(pair_bins):
        edges = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
        below = outputs_below(edges)
        shares = []
        raw = []
        for g in range(n_groups):
            weight_before = cdfs.ranked_weight[g]
            cumulative = np.concatenate(
                (
                    np.zeros((lambdas.shape[0], 1)),
                    weight_before[below[g]],
                    np.full((lambdas.shape[0], 1), totals[g]),
                ),
                axis=1,
            )
            shares.append(np.diff(cumulative, axis=1) / totals[g])
            # the raw scores: as np.histogram, a score is in bin k iff e_k <= p < e_{k+1}
            raw_below = np.searchsorted(cdfs.knots[g][1:-1], edges, side="left")
            raw.append(
                np.diff(np.concatenate(([0.0], weight_before[raw_below], [totals[g]]))) / totals[g]
            )
        for p in np.flatnonzero(pair_bins == n_bins):
            g, k = pairs[p]
            distance = np.abs(shares[g] - shares[k]).sum(axis=1)
            distance[0] = np.abs(raw[g] - raw[k]).sum()
            pair_losses[:, p] = distance / 2
    fairness_loss = pair_losses.max(axis=1) if agg == "worst_case" else pair_losses.mean(axis=1)
    return accuracy_loss, fairness_loss


def _levels_below(targets, sizes):
    """``#{k in 1..n_g : k / (n_g + 1) < t}`` for every target ``t`` of group g (axis 0).

    The same count as ``searchsorted(np.arange(1, n_g + 1) / (n_g + 1), t)``, in O(1) per
    target: the estimate ``ceil(t (n_g + 1)) - 1`` is off by at most one from rounding, and
    one comparison with the rounded levels on either side corrects it.
    """
    shape = (-1,) + (1,) * (targets.ndim - 1)
    n = sizes.reshape(shape).astype(np.float64)
    denominator = n + 1
    count = np.clip(np.ceil(targets * denominator) - 1, 0, n)
    count += (count < n) & ((count + 1) / denominator < targets)
    count -= (count > 0) & (count / denominator >= targets)
    return count.astype(np.intp)


def _check_calibration(scores, sizes, labels):
    small = sizes < 2
    if small.any():
        label = labels[int(np.flatnonzero(small)[0])]
        raise ValueError(
            f"Group {label!r} has {sizes[small][0]} calibration row(s); MADDRepair needs at "
            "least 2 per group to estimate its score distribution."
        )
    _check_unit_interval(scores)


def _check_unit_interval(scores):
    outside = (scores < 0) | (scores > 1)
    if outside.any():
        raise ValueError(
            f"MADDRepair repairs probabilities in [0, 1]; {int(outside.sum())} score(s) lie "
            f"outside (range [{scores.min():.6g}, {scores.max():.6g}]). Pass predict_proba "
            "output."
        )


def _check_binary_labels(y, n_samples):
    if y is None:
        raise ValueError(
            "MADDRepair(lam='auto') chooses lam from the accuracy of the repaired scores and "
            "needs the labels: call fit(X, y, sensitive_features=...), or set lam to a float."
        )
    y = column_or_1d(y)
    if y.shape[0] != n_samples:
        raise ValueError(f"Inconsistent numbers of samples: X has {n_samples}, y has {y.shape[0]}.")
    if type_of_target(y, input_name="y") not in ("binary",) or not set(np.unique(y).tolist()) <= {
        0,
        1,
    }:
        raise ValueError(
            f"MADDRepair(lam='auto') needs binary labels in {{0, 1}} or bool; got values "
            f"{np.unique(y)[:5].tolist()}. Encode the positive class as 1."
        )
    return y.astype(np.int64)
