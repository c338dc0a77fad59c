"""``GridSearch``: best responses on a grid of Lagrange multipliers (Agarwal et al. 2018, §3.4),
placed by a bracketing search where each compared group's constraint binds."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from skfair._utils._compat import Interval, _fit_context
from skfair.reductions._base import _BaseReduction, fairlearn_names
from skfair.reductions._docs import documented


@fairlearn_names
@documented
class GridSearch(_BaseReduction):
    """Train any estimator under a fairness constraint: the best fit of a grid of multipliers.

    The grid-search reduction of Agarwal, Beygelzimer, Dudík, Langford & Wallach (2018),
    Section 3.4: the base learner's best response (a fit on reweighted, relabelled data) to
    points of a grid of Lagrange multipliers, and the most accurate of these fits that meets
    the constraint on the training data. The points are not laid out in advance: each one
    moves every group's multiplier towards the value where that group's constraint binds
    (a bracketing root search, see Notes), so that few fits reach the bound. The result is
    one deterministic model of the base learner's kind; ``predict`` never needs the
    sensitive attribute.

    Parameters
    ----------
    estimator : estimator
        The base learner: a classifier, or a regressor for ``constraint="bounded_group_loss"``;
        fitted with ``sample_weight`` (a pipeline's last step gets it), or on a weighted
        resample of the rows when its ``fit`` has no ``sample_weight``.
    constraint : str, default="demographic_parity"
        As in :class:`ExponentiatedGradient`.
    eps : float, default=0.01
        The bound, as in :class:`ExponentiatedGradient`; it decides which grid points are
        admissible.
    {compared_groups}
    grid_size : int, default=10
        Largest number of grid points (fits of the base learner), the unconstrained fit
        included; the search usually stops earlier (see Notes).
    grid_limit : float, default=8.0
        Largest size of each coordinate of a grid point, in the units described in Notes
        (at 1 the labels of the smaller of the two compared sides start to flip; a learner
        that sees little of the groups in X may need several times that pull).
    warm_start : "auto" or bool, default="auto"
        Start every fit from the unconstrained fit (the grid's centre): ``"auto"`` for the
        linear models whose warm start is the initial point of a convex solver; True for any
        estimator with a ``warm_start`` parameter (a boosting ensemble grows by a quarter of
        its own number of stages on top of the centre's; a bagging ensemble is refused with
        a ``ValueError``), False never. Every point starts from the same fit, so the result
        does not depend on the order of the points.
    {response_threshold}
    sensitive_column : str, int or list of them, default=None
        Column(s) of X holding the sensitive features, removed before the base learner sees X
        (unless ``drop_sensitive=False``).
    drop_sensitive : bool, default=True
        Whether to remove ``sensitive_column`` from X before the base learner.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the weighted resamples of a base learner without ``sample_weight``.

    Attributes
    ----------
    predictors_ : list of estimators
        The best response at each grid point, in the order fitted (a constant classifier
        where every sample is better off with one class: no fit is needed there). With two
        classes, a fit away from the centre whose score is cut at its threshold of least
        cost (see ``response_threshold``) is a ``FixedThresholdClassifier`` around a
        ``FrozenEstimator`` of it (see :class:`ExponentiatedGradient`'s Notes).
    grid_ : ndarray of shape (n_points, n_coordinates)
        The grid points, in coordinates of ``lambda`` (see Notes); the first is the centre.
    lambda_vecs_ : ndarray of shape (n_points, n_constraints)
        The multipliers of each grid point.
    constraint_names_ : list of str
        What each constraint (each column of ``lambda_vecs_``) compares.
    objectives_ : ndarray of shape (n_points,)
        Training error (0-1 loss; mean ``loss`` for regression) of each grid point's fit.
    constraint_gaps_ : ndarray of shape (n_points,)
        Training disparity of each grid point's fit, in the units of ``eps``.
    best_index_ : int
        The chosen grid point.
    objective_, constraint_gap_ : float
        Training error and disparity of the chosen fit: those of the decisions ``predict``
        makes.
    weights_ : ndarray of shape (n_points,)
        1 for the chosen grid point, 0 elsewhere.
    n_oracle_calls_ : int
        Grid points (best responses asked for).
    n_fits_ : int
        Fits of the base learner run (grid points with the same weighted problem and
        constant answers need none).
    classes_ : ndarray of shape (n_classes,)
        Class labels (classifiers).
    groups_ : list
        Group labels of the training data.
    {columns_in}

    See Also
    --------
    ExponentiatedGradient : A mixture of fits with the game's guarantees, usually fewer fits.
    skfair.metrics.most_accurate_within : The same selection rule for ``GridSearchCV``.
    skfair.plotting.ReductionTradeoffDisplay : Error against disparity of the grid's fits.

    Notes
    -----
    **Selection rule.** When the fit without multipliers (the unconstrained fit, the grid's
    centre) meets the bound on the training data it is the answer and the rest of the grid
    is not fitted. Otherwise the chosen grid point is the one with the smallest training
    objective among those whose training disparity is at most ``eps``, the rule of
    :func:`~skfair.metrics.most_accurate_within` (the earliest point on ties); when no point
    meets the bound the fairest one is chosen, with a warning naming its disparity.

    **The grid.** A coordinate is one compared side against the reference side (the heaviest
    group, the privileged side, or the whole population for more than two classes), per
    rate: a positive value ``z`` puts the multiplier ``z * u`` on "side minus reference",
    a negative one ``|z| * u`` on "reference minus side", where
    ``u = min(weight of the two sides in the rate's event) / total weight``: at ``|z| = 1``
    the constraint's pull on the samples of the smaller side equals the error's, and their
    labels start to flip. fairlearn also puts one coordinate per group and rate (each group
    against the population), and lays ``grid_size`` points out evenly in all of them at
    once, so that with several groups the points are far apart and may all miss the bound.

    **The search.** Every coordinate has a target: the centre's disparities of the sides
    against the reference are moved into a window of width ``eps`` that holds the
    reference, each side to the nearest point of the window (the least pull, hence the least
    accuracy lost; for bounded group loss, each group's loss to ``eps``). Each new point
    moves every coordinate towards its target at once: a first step as large as the
    distance to the target, then the secant through the two last points, and once a
    coordinate's target is bracketed (a point short of it, a point beyond it), regula falsi
    inside the bracket with the Illinois safeguard, which is never slower than bisection
    between the last point that violates and the first that meets the bound. The search
    stops when a fit meets the bound with a disparity of at least three quarters of
    ``eps`` (close to the bound, where the least accuracy is lost), when the points stop
    moving, or after ``grid_size`` fits. On Adult this takes 3 to 6 fits where fairlearn
    fits its 10 points (``benchmarks/RESULTS.md``). The points are fitted one after the
    other: each one depends on the previous ones.

    **Dask input.** As :class:`ExponentiatedGradient`: ``fit`` takes dask collections (two
    classes) when the base learner's class sets ``__skfair_fits_dask__ = True`` (its ``fit``
    takes dask collections and ``sample_weight``, its ``predict`` in-memory blocks); each grid
    point fits it on the dask collections with lazy labels and weights, and one pass reduces
    the fit to its (group, class, prediction) table. Any other learner is refused at once
    with a TypeError naming it. The result equals the in-memory fit's up to the order of the
    sums.

    References
    ----------
    Agarwal, A., Beygelzimer, A., Dudík, M., Langford, J. and Wallach, H. (2018). A Reductions
    Approach to Fair Classification. ICML.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.reductions import GridSearch
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 2000)
    >>> X = np.c_[rng.normal(size=2000) + 0.5 * group, rng.normal(size=2000), group]
    >>> y = (X[:, 0] + X[:, 1] + rng.normal(size=2000) > 0.5).astype(int)
    >>> search = GridSearch(LogisticRegression(), eps=0.05, sensitive_column=2).fit(X, y)
    >>> bool(search.constraint_gaps_[0] > 0.05)  # the unconstrained fit, the grid's centre
    True
    >>> bool(search.constraint_gap_ <= 0.05)
    True
    """

    _parameter_constraints: dict = {
        **_BaseReduction._parameter_constraints,
        "grid_size": [Interval(Integral, 1, None, closed="left")],
        "grid_limit": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        estimator,
        *,
        constraint="demographic_parity",
        eps=0.01,
        disparity="difference",
        privileged_group=None,
        disadvantaged="pooled",
        pos_label=None,
        loss="squared_error",
        grid_size=10,
        grid_limit=8.0,
        warm_start="auto",
        response_threshold="auto",
        sensitive_column=None,
        drop_sensitive=True,
        random_state=None,
    ):
        self.estimator = estimator
        self.constraint = constraint
        self.eps = eps
        self.disparity = disparity
        self.privileged_group = privileged_group
        self.disadvantaged = disadvantaged
        self.pos_label = pos_label
        self.loss = loss
        self.grid_size = grid_size
        self.grid_limit = grid_limit
        self.warm_start = warm_start
        self.response_threshold = response_threshold
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the base learner validates itself
    def fit(self, X, y, sample_weight=None, *, sensitive_features=None, **fit_params):
        """Search the grid of multipliers for fits that meet the bound, and choose one.

        {parameters_fit}
        """
        problem = self._problem(X, y, sample_weight, sensitive_features, fit_params)
        search = _Search(problem, self.grid_limit)
        search.run(self.eps, self.grid_size)
        problem.oracle.n_calls = len(search.indices)
        problem.oracle.n_fits = len(search.responses)
        hypotheses, moments = problem.hypotheses, problem.moments
        tables = [hypotheses.tables[i] for i in search.indices]
        objectives = np.array([moments.error(table) for table in tables])
        gaps = np.array([moments.disparity(table) for table in tables])
        best = self._choose(objectives, gaps)
        weights = np.zeros(len(hypotheses))
        weights[search.indices[best]] = 1.0
        self._set_members(problem, weights, best_index=search.indices[best])
        self._warn_if_collapsed(problem)
        # One predictor per grid point; the chosen one carries the weight.
        self.grid_ = np.asarray(search.points).reshape(len(search.points), len(search.axes))
        self.lambda_vecs_ = np.asarray(search.multipliers)
        self.best_index_ = best
        self.objectives_, self.constraint_gaps_ = objectives, gaps
        self.objective_, self.constraint_gap_ = float(objectives[best]), float(gaps[best])
        self.predictors_ = [hypotheses.predictors[i] for i in search.indices]
        self.weights_ = np.zeros(len(search.indices))
        self.weights_[best] = 1.0
        return self

    def _choose(self, objectives, gaps):
        """The selection rule (see Notes)."""
        admissible = gaps <= self.eps
        if admissible.any():
            return int(np.argmin(np.where(admissible, objectives, np.inf)))
        chosen = int(np.argmin(gaps))
        self._warn_bound_not_met(gaps[chosen], "the grid point of the smallest disparity")
        return chosen

    def predict(self, X):
        """Predict with the chosen fit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (with the sensitive column(s) in ``sensitive_column`` mode; they are
            dropped before the fit sees X). No sensitive feature is needed.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels (or values for a regressor).
        """
        return self._predict(X)


# A search stops at a fit that meets the bound with a disparity of at least this share of eps.
_CLOSE_ENOUGH = 0.75
# The targets stay this share of eps inside the bound (the fits' disparities scatter).
_MARGIN = 0.125
# The first step of a line search, in units of the largest coordinate's move (at 1 the
# labels of the smaller side of that coordinate start to flip).
_FIRST_STEP = 0.5
# Regula falsi's Illinois safeguard: the end kept twice in a row has its value halved.
_ILLINOIS = 0.5
# A line search stops when its bracket is shorter than this share of the grid's limit.
_RESOLUTION = 1 / 64


class _Search:
    """The grid points of one fit: each moves every coordinate towards its target.

    A coordinate's *offset* is its disparity minus its target (see :func:`_targets`); it
    decreases as the coordinate grows, and the search looks for its zero.
    """

    def __init__(self, problem, grid_limit):
        self.problem = problem
        self.moments = problem.moments
        self.oracle = problem.oracle
        self.axes = _grid_axes(self.moments)
        self.limit = grid_limit
        self.points, self.multipliers, self.indices = [], [], []
        self.responses = {}
        self.warm = None

    def fit(self, point):
        """Index among the hypotheses of the best response at ``point``."""
        multipliers = _multipliers(self.axes, point, self.moments.n_constraints)
        cost = self.moments.cost(multipliers)
        reduced = self.oracle.problem(cost)
        if isinstance(reduced, int):
            index = self.problem.constants[reduced]
        else:
            response = self.responses.get(reduced.key)
            if response is None:
                response = self.oracle.fit(reduced, self.warm)
                self.responses[reduced.key] = response
            if self.warm is None and not self.points:
                # every later fit warm-starts from the centre's (when warm starts apply)
                self.warm = response.learner
            # the centre is the learner as it is (returned alone when it meets the bound)
            index = self.problem.add_response(response, cost, own_threshold=not self.points)
        self.points.append(np.asarray(point, dtype=np.float64))
        self.multipliers.append(multipliers)
        self.indices.append(index)
        return index

    def run(self, eps, budget):
        hypotheses = self.problem.hypotheses
        n_axes = len(self.axes)
        centre = self.fit(np.zeros(n_axes))
        if not n_axes or (hypotheses.gammas[centre] <= 0).all():
            return  # the unconstrained fit meets the bound: no grid is needed
        disparity, width = _signed(self.moments, self.axes, hypotheses.gammas[centre])
        target = _targets(disparity, width, self.moments)
        lower = -self.limit if hasattr(self.moments, "measures") else 0.0
        base, offset = np.zeros(n_axes), disparity - target
        single = False  # the line: along all the offsets, or the largest one alone
        while len(self.indices) < budget:
            # A line search from the best point so far.
            direction = offset / np.abs(offset).max()
            if single:
                direction = np.where(np.arange(n_axes) == np.argmax(np.abs(offset)), direction, 0)
            found = self._line_search(base, direction, offset, target, eps, budget, lower)
            if found is None:
                return
            point, point_offset = found
            if np.abs(point_offset).max() < np.abs(offset).max() - 1e-12:
                base, offset, single = point, point_offset, False
            elif single or n_axes == 1:
                return  # no progress along either line: the search has converged
            else:
                single = True

    def _line_search(self, base, direction, offset, target, eps, budget, lower):
        """Bracket and refine the step ``t`` along ``base + t * direction`` where the offsets'
        projection on the direction changes sign (regula falsi with the Illinois safeguard).

        Returns the point of smallest largest offset and its offsets, or None when a fit met
        the bound close to it (the search is over).
        """
        hypotheses = self.problem.hypotheses
        norm = direction @ direction
        short_t, short_f = 0.0, offset @ direction / norm
        beyond_t, beyond_f = None, None
        kept = 0  # +1: the short end was replaced last, -1: the beyond end
        t = _FIRST_STEP
        best = (base, offset)
        largest = self.limit / np.abs(direction).max()
        while len(self.indices) < budget:
            point = np.clip(base + t * direction, lower, self.limit)
            if any(np.allclose(point, known, rtol=0, atol=1e-9) for known in self.points):
                break  # a point already fitted: the line has nothing new to offer
            index = self.fit(point)
            gammas = hypotheses.gammas[index]
            disparity = self.moments.disparity(hypotheses.tables[index])
            if (gammas <= 0).all() and disparity >= _CLOSE_ENOUGH * eps:
                return None
            point_offset = _signed(self.moments, self.axes, gammas)[0] - target
            if np.abs(point_offset).max() < np.abs(best[1]).max():
                best = (point, point_offset)
            f = point_offset @ direction / norm
            if abs(f) <= _MARGIN * eps:
                break  # the offsets along the line are as small as the margin: its root
            if f > 0:
                if kept == 1 and beyond_f is not None:
                    beyond_f *= _ILLINOIS
                short_t, short_f, kept = t, f, 1
            else:
                if kept == -1:
                    short_f *= _ILLINOIS
                beyond_t, beyond_f, kept = t, f, -1
            if beyond_t is None:
                if t >= largest:
                    break  # no sign change within the grid's limit
                t = min(2 * t, largest)
            else:
                if abs(beyond_t - short_t) <= _RESOLUTION * largest:
                    break
                t = short_t - short_f * (beyond_t - short_t) / (beyond_f - short_f)
        return best


def _signed(moments, axes, gammas):
    """Per coordinate: the signed disparity of the side against the reference (positive:
    the coordinate's positive direction reduces it) and half the width of its feasible
    interval; for bounded group loss, the group's constraint value and 0."""
    positive = np.array([p for p, _, _ in axes], dtype=np.intp)
    negative = np.array([n for _, n, _ in axes], dtype=np.intp)
    if not hasattr(moments, "measures"):
        return gammas[positive], np.zeros(len(axes))
    up, down = gammas[positive], gammas[negative]
    # difference form: up = d - eps, down = -d - eps
    return (up - down) / 2, -(up + down) / 2


def _targets(disparity, width, moments):
    """Where each coordinate's disparity should go: into a window of width ``eps`` (the
    narrowest feasible width) that holds the reference (0), each to its nearest point,
    the window placed where the total move is least (centred on ties); for bounded group
    loss, every violated group's constraint to 0 (the others stay)."""
    if not hasattr(moments, "measures"):
        return np.minimum(disparity, 0.0)
    # Two sides whose disparities to the reference differ by at most the half-width of a
    # pair's feasible interval (eps for a difference) meet their own constraint too.
    size = float(np.min(width)) * (1 - _MARGIN)
    candidates = np.concatenate([[-size, 0.0, -size / 2], disparity - size, disparity])
    candidates = candidates[(candidates >= -size) & (candidates <= 0.0)]
    moves = [np.abs(disparity - np.clip(disparity, a, a + size)).sum() for a in candidates]
    least = min(moves)
    ties = candidates[np.isclose(moves, least, rtol=0, atol=1e-12)]
    start = ties[np.argmin(np.abs(ties + size / 2))]
    return np.clip(disparity, start, start + size)


def _multipliers(axes, point, n_constraints):
    """The multipliers of a grid point."""
    multipliers = np.zeros(n_constraints)
    for (positive, negative, unit), z in zip(axes, point):
        if z > 0:
            multipliers[positive] += z * unit
        elif z < 0:
            multipliers[negative] += -z * unit
    return multipliers


def _grid_axes(moments):
    """Per coordinate: the constraint of "side minus reference", of "reference minus side",
    and the multiplier unit."""
    if not hasattr(moments, "measures"):  # bounded group loss: one multiplier per group
        if moments.n_groups < 2:
            return []
        unit = moments.group_weight[moments.order] / moments.total  # in constraint order
        return [(j, j, unit[j]) for j in range(moments.n_constraints)]
    index = {
        (u, v, m): j
        for j, (u, v, m) in enumerate(zip(moments.upper, moments.lower, moments.measure))
    }
    n_sides, reference = moments.membership.shape[0], moments.reference
    axes = []
    for m in range(moments.measures.shape[0]):
        for side in range(n_sides):
            pair = ((side, reference, m), (reference, side, m))
            if side == reference or pair[0] not in index or pair[1] not in index:
                continue
            denominators = moments.denominators[[side, reference], m]
            axes.append((index[pair[0]], index[pair[1]], denominators.min() / moments.total))
    return axes
