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
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d

from skfair._base import _RepairInputMixin, _SkfairEstimatorMixin, warn_no_sensitive_features
from skfair._compat import Interval, StrOptions, _fit_context
from skfair._stats._histograms import group_histograms as _group_histograms
from skfair._stats._histograms import h_sup as _h_sup
from skfair._validation import check_groups

# bins="auto" is floor(1 / (0.1 h_sup)) per pair of groups: 135 bins for 10^4 / 10^4 and 40
# for 217 / 313, the paper's two settings (Sections 6.3.1 and 6.3.2).
_AUTO_BINS_FRACTION = 0.1


class MADDRepair(_SkfairEstimatorMixin, _RepairInputMixin, TransformerMixin, BaseEstimator):
    """Partial repair of score distributions towards the population (MADD post-processing).

    Each group's CDF of scores is moved towards the population CDF,
    ``C_g = (1 - lam) F_g + lam F`` with ``F = sum_g (n_g / n) F_g``, and a score ``p`` of
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
    random_state : int, RandomState instance or None, default=None
        Used for tied scores only: the order of tied calibration scores, and the level drawn
        across an atom for a new score equal to a tied calibration value. One draw per row, in
        row order.
    sensitive_column : str, int or list, default=None
        Column(s) of ``S`` holding the sensitive attribute(s) instead of passing
        ``sensitive_features=``: they are read and removed, so the output (and
        ``get_feature_names_out``) has the other columns only. Giving both raises.

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
    groups_ : list
        Group labels seen at fit (one unnamed group without sensitive features).
    group_sizes_ : dict
        Number of calibration rows of each group.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when the input has string column names.

    See Also
    --------
    skfair.metrics.madd : the metric this repair reduces.
    skfair.postprocessing.BarycenterRepair : repair towards the Wasserstein barycenter.

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

    Without sensitive features all rows form one group and the repair is the identity (with a
    warning); scores are then not required to lie in [0, 1].

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
        "lam": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="both")],
        "theta": [Interval(Real, 0, 1, closed="both")],
        "threshold": [Interval(Real, 0, 1, closed="both")],
        "n_lambdas": [Interval(Integral, 2, None, closed="left")],
        "bins": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "agg": [StrOptions({"worst_case", "mean"})],
        "random_state": ["random_state"],
        "sensitive_column": [str, Integral, list, tuple, None],
    }
    __metadata_request__fit = {"sensitive_features": True}
    __metadata_request__transform = {"sensitive_features": True}

    def __init__(
        self,
        lam="auto",
        theta=0.5,
        threshold=0.5,
        n_lambdas=1000,
        bins="auto",
        agg="worst_case",
        random_state=None,
        sensitive_column=None,
    ):
        self.lam = lam
        self.theta = theta
        self.threshold = threshold
        self.n_lambdas = n_lambdas
        self.bins = bins
        self.agg = agg
        self.random_state = random_state
        self.sensitive_column = sensitive_column

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, S, y=None, *, sensitive_features=None):
        """Fit the per-group CDFs of each column and, with ``lam="auto"``, choose ``lam``.

        Parameters
        ----------
        S : array-like of shape (n_samples, n_features)
            Calibration scores in [0, 1], e.g. ``predict_proba(X)[:, [1]]``.
        y : array-like of shape (n_samples,), default=None
            Binary labels (0/1 or bool), needed by ``lam="auto"``; ignored otherwise.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
            Group membership (2-D: intersectional groups). None: one group, the identity.

        Returns
        -------
        self : MADDRepair
        """
        self._fit(S, y, sensitive_features)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, S, y=None, *, sensitive_features=None):
        """Fit, then repair the calibration rows themselves (the in-sample path).

        Row ``i`` of group g takes the level ``r_i / (n_g + 1)`` of its rank ``r_i`` in the
        group (ties ordered at random); on tie-free data this equals
        ``fit(S, ...).transform(S, ...)``, and with ties it splits each atom in the mixture
        proportions exactly. The ``lam="auto"`` curves are computed on these outputs.

        Parameters
        ----------
        S : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), default=None
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)

        Returns
        -------
        S_repaired : ndarray of shape (n_samples, n_features)
        """
        scores, codes, ranks = self._fit(S, y, sensitive_features)
        repaired = scores.copy()
        if codes is None:
            return repaired
        sizes = np.bincount(codes, minlength=len(self.groups_))
        levels = [ranks[:, column] / (sizes[codes] + 1) for column in range(scores.shape[1])]
        for column, lam in enumerate(self.lambda_):
            if lam > 0:
                repaired[:, column] = _repair_column(self._cdfs[column], lam, levels[column], codes)
        return repaired

    def _fit(self, S, y, sensitive_features):
        """Fit; return the scores, group codes and in-group ranks (ties ordered at random)."""
        scores, sensitive_features = self._split_input(S, sensitive_features, reset=True)
        n_samples, n_columns = scores.shape
        self.lambdas_ = np.linspace(0.0, 1.0, self.n_lambdas)
        if sensitive_features is None:
            warn_no_sensitive_features(self)
        groups = None if sensitive_features is None else check_groups(sensitive_features, n_samples)
        self._groups = groups
        if groups is None or groups.n_groups < 2:
            self.groups_ = [None] if groups is None else groups.labels
            self.group_sizes_ = dict(zip(self.groups_, [n_samples], strict=True))
            self.bins_ = np.empty(0, dtype=np.intp)
            self.lambda_ = np.full(n_columns, 0.0 if self.lam == "auto" else float(self.lam))
            self._cdfs = None
            return scores, None, None
        codes = groups.codes
        sizes = groups.counts()
        self.groups_ = groups.labels
        self.group_sizes_ = {label: int(n) for label, n in zip(self.groups_, sizes, strict=True)}
        _check_calibration(scores, sizes, self.groups_)
        self.bins_ = self._pair_bins(sizes)
        orders, ranks = _in_group_ranks(scores, codes, sizes, _generator(self.random_state))
        self._cdfs = [_fit_cdfs(scores[:, column], codes, sizes) for column in range(n_columns)]
        if self.lam == "auto":
            self._search_lambda(scores, codes, sizes, orders, _check_binary_labels(y, n_samples))
        else:
            self.lambda_ = np.full(n_columns, float(self.lam))
        return scores, codes, ranks

    def _search_lambda(self, scores, codes, sizes, orders, labels):
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
            )
            for column in range(scores.shape[1])
        ]
        self.accuracy_loss_ = np.column_stack([accuracy for accuracy, _ in terms])
        self.fairness_loss_ = np.column_stack([fairness for _, fairness in terms])
        self.objective_ = (1 - self.theta) * self.accuracy_loss_ + self.theta * self.fairness_loss_
        best = np.argmin(self.objective_, axis=0)  # first minimum: the smallest lam
        self.objective_min_ = self.objective_[best, np.arange(scores.shape[1])]
        self.lambda_ = self.lambdas_[best]

    def transform(self, S, *, sensitive_features=None):
        """Repair new scores with the CDFs fitted on the calibration data.

        Parameters
        ----------
        S : array-like of shape (n_samples, n_features)
            Scores in [0, 1].
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
            Group of each row; every group must have been seen at fit.

        Returns
        -------
        S_repaired : ndarray of shape (n_samples, n_features)
            Same shape and row order as ``S``. Columns with ``lambda_ == 0`` are returned
            unchanged, bit for bit.
        """
        check_is_fitted(self)
        scores, sensitive_features = self._split_input(S, sensitive_features, reset=False)
        repaired = scores.copy()
        if self._cdfs is None:
            if self._groups is not None and sensitive_features is not None:
                self._groups.encode(sensitive_features, n_samples=scores.shape[0])
            return repaired
        if sensitive_features is None:
            raise ValueError(
                f"{type(self).__name__} was fitted on groups {self.groups_}; pass "
                "sensitive_features= to transform (or set sensitive_column=), or fit without "
                "sensitive features for the identity."
            )
        codes = self._groups.encode(sensitive_features, n_samples=scores.shape[0])
        _check_unit_interval(scores)
        rng = _generator(self.random_state)
        for column, lam in enumerate(self.lambda_):
            noise = rng.random(scores.shape[0])
            if lam > 0:
                cdfs = self._cdfs[column]
                levels = _transform_levels(cdfs, scores[:, column], codes, noise)
                repaired[:, column] = _repair_column(cdfs, lam, levels, codes)
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


def _in_group_ranks(scores, codes, sizes, rng):
    """Per column: the row order by (group, score) and each row's rank (1..n_g) in its group.

    Ties are ordered by a random key drawn per row, in row order.
    """
    n_samples = scores.shape[0]
    group_start = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    ranks = np.empty(scores.shape, dtype=np.intp)
    orders = []
    for column in range(scores.shape[1]):
        order = np.lexsort((rng.random(n_samples), scores[:, column], codes))
        ranks[order, column] = np.arange(n_samples) - group_start[codes[order]] + 1
        orders.append(order)
    return orders, ranks


@dataclass(frozen=True)
class _GroupCDFs:
    """Interpolated empirical CDFs of one score column, per group.

    ``knots[g]`` is ``[0, sorted scores of g, 1]``; the CDF of g takes level ``k / (n_g + 1)``
    at knot k and is linear in between (right-continuous: the last level at tied knots).
    ``grid`` holds 0, 1 and every calibration score; all CDFs are linear between consecutive
    grid points, so their values and left limits there describe the mixtures completely.
    """

    knots: tuple
    weights: np.ndarray
    grid: np.ndarray
    cdf: np.ndarray
    cdf_left: np.ndarray
    population: np.ndarray
    population_left: np.ndarray


def _fit_cdfs(scores, codes, sizes):
    """The per-group CDFs of one column, and their values on the merged grid."""
    order = np.lexsort((scores, codes))
    per_group = np.split(scores[order], np.cumsum(sizes)[:-1])
    knots = tuple(np.concatenate(([0.0], x, [1.0])) for x in per_group)
    weights = sizes / sizes.sum()
    grid = np.unique(np.concatenate(([0.0, 1.0], scores)))
    cdf = np.stack([_cdf_levels(k, grid, "right") for k in knots])
    cdf_left = np.stack([_cdf_levels(k, grid, "left") for k in knots])
    return _GroupCDFs(
        knots=knots,
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


def _cdf_levels(knots, points, side):
    """The interpolated CDF at ``points`` (``side="left"``: its left limits)."""
    n_levels = knots.shape[0] - 1
    below = np.searchsorted(knots, points, side="left")  # first knot >= point
    upto = np.searchsorted(knots, points, side="right") - 1  # last knot <= point
    on_knot = below <= upto
    lower = np.minimum(upto, n_levels - 1)
    span = knots[lower + 1] - knots[lower]
    fraction = np.divide(points - knots[lower], span, out=np.zeros_like(points), where=~on_knot)
    level_on_knot = upto if side == "right" else below
    return np.where(on_knot, level_on_knot, lower + fraction) / n_levels


def _transform_levels(cdfs, scores, codes, noise):
    """Levels ``U`` of new scores (randomised probability integral transform).

    A score equal to a single calibration value of rank k takes ``k / (n_g + 1)``, as in the
    in-sample path; on an atom of c >= 2 tied calibration values, a level uniform across the
    atom's c ranks; elsewhere the interpolated CDF.
    """
    levels = np.empty_like(scores)
    for group, knots in enumerate(cdfs.knots):
        rows = np.flatnonzero(codes == group)
        calibration = knots[1:-1]
        n_levels = knots.shape[0] - 1
        p = scores[rows]
        lo = np.searchsorted(calibration, p, side="left")
        hi = np.searchsorted(calibration, p, side="right")
        tied = hi - lo
        level = _cdf_levels(knots, p, "right")
        level = np.where(tied == 1, hi / n_levels, level)
        atom = tied >= 2
        level[atom] = (lo[atom] + 1) / n_levels + noise[rows[atom]] * (tied[atom] - 1) / n_levels
        levels[rows] = level
    return levels


def _repair_column(cdfs, lam, levels, codes):
    """Scores ``C_g^{-1}(U)`` of the mixture CDF of each row's group (eq. 8)."""
    repaired = np.empty_like(levels)
    for group in range(len(cdfs.knots)):
        rows = np.flatnonzero(codes == group)
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


def _objective_terms(cdfs, scores, codes, labels, order, sizes, lambdas, pair_bins, threshold, agg):
    """Accuracy loss and MADD / 2 of the in-sample repaired scores at every ``lam``.

    Group g's in-sample outputs are ``C_g^{-1}(k / (n_g + 1))``, k = 1..n_g, and ``C_g`` is
    strictly increasing, so the number of outputs below an edge ``e`` is the number of levels
    below ``C_g(e-)``: one ``searchsorted`` per group gives every histogram and every count of
    predicted negatives, for all ``lam`` at once. ``order`` sorts the rows by group, then rank
    (the in-sample order, ties at random). Row ``lam = 0`` is computed from the raw scores.
    """
    n_groups = sizes.shape[0]
    levels = [np.arange(1, n + 1) / (n + 1) for n in sizes]
    weight = lambdas[:, None]

    def outputs_below(points):
        """Count of each group's in-sample outputs below each point, (n_groups, n_lam, n_pts)."""
        group_left = [_cdf_levels(knots, points, "left") for knots in cdfs.knots]
        population_left = _population(cdfs.weights, group_left)
        return [
            np.searchsorted(levels[g], (1 - weight) * group_left[g] + weight * population_left)
            for g in range(n_groups)
        ]

    # Accuracy: the first c_g rows of group g (in rank order) are predicted negative.
    ranked_labels = labels[order]
    group_start = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    negatives = outputs_below(np.array([float(threshold)]))
    errors = np.zeros(lambdas.shape[0])
    for g in range(n_groups):
        group_labels = ranked_labels[group_start[g] : group_start[g] + sizes[g]]
        positives_before = np.concatenate(([0], np.cumsum(group_labels)))
        c = negatives[g][:, 0]
        errors += (
            positives_before[c] + (sizes[g] - c) - (positives_before[-1] - positives_before[c])
        )
    accuracy_loss = errors / sizes.sum()
    accuracy_loss[0] = np.mean(labels != (scores >= threshold))

    n_lambdas = lambdas.shape[0]
    pair_losses = []
    for (g, k), n_bins in zip(combinations(range(n_groups), 2), pair_bins, strict=True):
        below = outputs_below(np.linspace(0.0, 1.0, n_bins + 1)[1:-1])
        shares = [
            np.diff(
                np.column_stack(
                    (np.zeros(n_lambdas, dtype=np.intp), below[h], np.full(n_lambdas, sizes[h]))
                ),
                axis=1,
            )
            / sizes[h]
            for h in (g, k)
        ]
        distance = np.abs(shares[0] - shares[1]).sum(axis=1)
        raw = _group_histograms(scores, codes, n_groups, int(n_bins))
        distance[0] = np.abs(raw[g] / sizes[g] - raw[k] / sizes[k]).sum()
        pair_losses.append(distance / 2)
    pair_losses = np.column_stack(pair_losses)
    fairness_loss = pair_losses.max(axis=1) if agg == "worst_case" else pair_losses.mean(axis=1)
    return accuracy_loss, fairness_loss


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
            "needs the labels: call fit(S, y, sensitive_features=...), or set lam to a float."
        )
    y = column_or_1d(y)
    if y.shape[0] != n_samples:
        raise ValueError(f"Inconsistent numbers of samples: S has {n_samples}, y has {y.shape[0]}.")
    if type_of_target(y, input_name="y") not in ("binary",) or not set(np.unique(y).tolist()) <= {
        0,
        1,
    }:
        raise ValueError(
            f"MADDRepair(lam='auto') needs binary labels in {{0, 1}} or bool; got values "
            f"{np.unique(y)[:5].tolist()}. Encode the positive class as 1."
        )
    return y.astype(np.int64)


def _generator(random_state):
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    return np.random.default_rng(random_state)
