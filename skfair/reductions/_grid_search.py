"""``GridSearch``: best responses on a grid of Lagrange multipliers (Agarwal et al. 2018, §3.4)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed

from skfair._utils._compat import Interval, _fit_context
from skfair.reductions._base import _BaseReduction


class GridSearch(_BaseReduction):
    """Train any estimator under a fairness constraint: the best fit of a grid of multipliers.

    The grid-search reduction of Agarwal, Beygelzimer, Dudík, Langford & Wallach (2018),
    Section 3.4: the base learner's best response (a fit on reweighted, relabelled data) to
    each point of a grid of Lagrange multipliers, and the most accurate of these fits that
    meets the constraint on the training data. The result is one deterministic model of the
    base learner's kind; ``predict`` never needs the sensitive attribute.

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
    disparity : {"difference", "ratio"}, default="difference"
        How rates are compared (two classes only).
    privileged_group : label, tuple or list of them, default=None
        None compares every pair of groups; otherwise the disadvantaged and the privileged
        side(s), both ways.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group``: the other groups pooled, or each on its own.
    pos_label : int, float, bool or str, default=None
        The positive class of the rates (default: the greater class label).
    loss : {"squared_error", "absolute_error"}, default="squared_error"
        The loss of bounded group loss and of the regression objective.
    grid_size : int, default=11
        Number of grid points.
    grid_limit : float, default=2.0
        Largest L1 norm of a grid point, in the units described in Notes (at 1 the labels
        of the smaller side start to flip).
    warm_start : "auto" or bool, default="auto"
        Start every fit from the fit at the grid's centre (no multiplier), for the linear
        models whose warm start is the initial point of a convex solver (``"auto"``); True for
        any estimator with a ``warm_start`` parameter, False never. Every point starts from
        the same fit, so the result does not depend on ``n_jobs``.
    sensitive_column : str, int or list of them, default=None
        Column(s) of X holding the sensitive features, removed before the base learner sees X
        (unless ``drop_sensitive=False``).
    drop_sensitive : bool, default=True
        Whether to remove ``sensitive_column`` from X before the base learner.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the weighted resamples of a base learner without ``sample_weight``.
    n_jobs : int, default=None
        Grid points fitted in parallel (joblib).

    Attributes
    ----------
    predictors_ : list of estimators
        The best response at each grid point (a constant classifier where every sample is
        better off with one class: no fit is needed there).
    grid_ : ndarray of shape (n_points, n_coordinates)
        The grid points, in coordinates of ``lambda`` (see Notes).
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
        Training error and disparity of the chosen fit.
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
    n_features_in_ : int
        Number of columns of X, the sensitive column(s) included.
    feature_names_in_ : ndarray of str
        Column names of X, when it has string column names.

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
    labels start to flip. The fit without multipliers (the grid's centre) comes first; each
    coordinate then points the way that shrinks its disparity, and the points are the
    integer points of the simplex ``{z >= 0, sum |z| <= grid_limit}`` (scaled), nearest to
    the centre first; with one coordinate they are evenly spaced on ``[0, grid_limit]``.
    fairlearn's grid spans both directions, half of it the way that widens the disparity.
    The grid grows exponentially with the number of coordinates (``n_groups - 1`` per
    rate); beyond a few, prefer :class:`ExponentiatedGradient`.

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
        "n_jobs": [Integral, None],
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
        grid_size=11,
        grid_limit=2.0,
        warm_start="auto",
        sensitive_column=None,
        drop_sensitive=True,
        random_state=None,
        n_jobs=None,
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
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)  # the base learner validates itself
    def fit(self, X, y, sample_weight=None, *, sensitive_features=None, **fit_params):
        """Fit the base learner at every grid point and choose one fit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; with ``sensitive_column`` it holds the sensitive column(s) too.
        y : array-like of shape (n_samples,)
            Class labels, or targets for bounded group loss.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rates, of the objective and (multiplied in) of every fit.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s) when ``sensitive_column`` is not set. None means one
            group: no constraint, every grid point is the unconstrained fit.
        **fit_params : dict
            Other metadata for the base learner's ``fit`` (routed with metadata routing).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        problem = self._problem(X, y, sample_weight, sensitive_features, fit_params)
        moments, oracle = problem.moments, problem.oracle
        # The centre (no multiplier) is fitted first: the grid points away from its
        # disparity, and every other fit warm-starts from it.
        centre = oracle.problem(moments.cost(np.zeros(moments.n_constraints)))
        responses = {}
        if isinstance(centre, int):
            centre_gamma = problem.hypotheses.gammas[problem.constants[centre]]
            warm = None
        else:
            responses[centre.key] = response = oracle.fit(centre)
            centre_gamma = moments.gamma(
                moments.table(
                    problem.codes, problem.target, response.outputs, problem.sample_weight
                )
            )
            warm = response.learner
        if (centre_gamma <= 0).all():
            # The unconstrained fit meets the bound: it is the answer, no grid is needed.
            coordinates, multipliers = _grid(moments, 1, self.grid_limit, centre_gamma)
        else:
            coordinates, multipliers = _grid(moments, self.grid_size, self.grid_limit, centre_gamma)
        problems = [oracle.problem(moments.cost(lam)) for lam in multipliers]
        todo = {}
        for reduced in problems:
            if not isinstance(reduced, int) and reduced.key not in responses:
                todo.setdefault(reduced.key, reduced)
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(oracle.fit)(reduced, warm) for reduced in todo.values()
        )
        responses.update(zip(todo, fitted))
        oracle.n_calls = len(problems)
        oracle.n_fits = len(responses)
        indices = []
        for reduced in problems:
            if isinstance(reduced, int):
                indices.append(problem.constants[reduced])
            else:
                response = responses[reduced.key]
                indices.append(problem.add(response.predictor, response.outputs))
        hypotheses = problem.hypotheses
        tables = [hypotheses.tables[i] for i in indices]
        objectives = np.array([moments.error(table) for table in tables])
        gaps = np.array([moments.disparity(table) for table in tables])
        best = self._choose(objectives, gaps)
        weights = np.zeros(len(hypotheses))
        weights[indices[best]] = 1.0
        self._set_members(problem, weights)
        self._warn_if_collapsed(problem, weights)
        # One predictor per grid point; the chosen one carries the weight.
        self.grid_ = coordinates
        self.lambda_vecs_ = multipliers
        self.best_index_ = best
        self.objectives_, self.constraint_gaps_ = objectives, gaps
        self.predictors_ = [hypotheses.predictors[i] for i in indices]
        self.weights_ = np.zeros(len(indices))
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
        return self._predict(X, randomized=False)


def _grid(moments, grid_size, grid_limit, centre_gamma):
    """``(coordinates, multipliers)`` of the grid points, the centre first.

    Each coordinate points the way that reduces the disparity of the centre's fit (whose
    constraint values are ``centre_gamma``).
    """
    n_constraints = moments.n_constraints
    axes = _grid_axes(moments)
    if not axes:
        return np.zeros((1, 0)), np.zeros((1, n_constraints))
    signs = np.array(
        [
            1.0 if centre_gamma[positive] >= centre_gamma[negative] else -1.0
            for positive, negative, _ in axes
        ]
    )
    points = _lattice(len(axes), grid_size) * grid_limit * signs
    multipliers = np.zeros((points.shape[0], n_constraints))
    for axis, (positive, negative, unit) in enumerate(axes):
        z = points[:, axis]
        multipliers[z > 0, positive] = z[z > 0] * unit
        multipliers[z < 0, negative] = -z[z < 0] * unit
    return points, multipliers


def _grid_axes(moments):
    """Per coordinate: the constraint of "side minus reference", of "reference minus side",
    and the multiplier unit."""
    if not hasattr(moments, "measures"):  # bounded group loss: one multiplier per group
        unit = moments.group_weight / moments.total
        return [(g, g, unit[g]) for g in range(moments.n_constraints)] if len(unit) > 1 else []
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


def _lattice(n_dims, size):
    """``size`` points of the unit simplex ``{z >= 0, sum z <= 1}``: the integer points of the
    simplex of the smallest radius ``r`` holding ``size`` points, scaled by ``1 / r``, by
    shells of growing L1 norm (evenly spaced on [0, 1] for one coordinate)."""
    if n_dims == 1:
        return np.linspace(0.0, 1.0, size)[:, None] if size > 1 else np.zeros((1, 1))
    radius, points = 0, [(0,) * n_dims]
    while len(points) < size:
        radius += 1
        points = [point for norm in range(radius + 1) for point in _shell(n_dims, norm)]
    # radius 0: the centre alone (size 1), nothing to scale.
    return np.asarray(points[:size], dtype=np.float64) / max(radius, 1)


def _shell(n_dims, norm):
    """Non-negative integer points of L1 norm ``norm`` in ``n_dims`` dimensions, largest
    first coordinate first."""
    if n_dims == 1:
        return [(norm,)]
    return [
        (first, *rest) for first in range(norm, -1, -1) for rest in _shell(n_dims - 1, norm - first)
    ]
