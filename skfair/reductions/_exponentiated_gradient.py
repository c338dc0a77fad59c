"""``ExponentiatedGradient``: the reductions approach of Agarwal et al. (2018), Algorithm 1."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import Bunch

from skfair._utils._compat import Interval, StrOptions, _fit_context
from skfair.reductions._base import _BaseReduction, fairlearn_names
from skfair.reductions._docs import documented
from skfair.reductions._game import certified_gap, constrained_mixture, restricted_game


@fairlearn_names
@documented
class ExponentiatedGradient(_BaseReduction):
    """Train any estimator under a fairness constraint: a randomised mixture of its fits.

    The reductions approach of Agarwal, Beygelzimer, Dudík, Langford & Wallach (2018): the
    constrained problem is a game between the base learner, which answers Lagrange
    multipliers with a fit on reweighted and relabelled data (its best response), and the
    multiplier player, which follows exponentiated gradient. The result is a mixture of the
    fits, the most accurate one on the training data that meets the constraint among the
    mixtures of the fits found. ``predict`` never needs the sensitive attribute.

    Parameters
    ----------
    estimator : estimator
        The base learner: a classifier, or a regressor for ``constraint="bounded_group_loss"``.
        It is fitted with ``sample_weight`` (a pipeline's last step gets it); a learner whose
        ``fit`` has no ``sample_weight`` is fitted on a weighted resample of the rows.
    constraint : str, default="demographic_parity"
        ``"demographic_parity"`` (selection rate), ``"equalized_odds"`` (true and false
        positive rates), ``"true_positive_rate_parity"``, ``"false_positive_rate_parity"``,
        ``"error_rate_parity"``; for regressors ``"bounded_group_loss"`` (every group's mean
        ``loss`` at most ``eps``, Agarwal, Dudík & Wu 2019). With more than two classes,
        ``"demographic_parity"`` and ``"equalized_odds"`` bound U_DP and U_EO
        (:func:`~skfair.metrics.demographic_parity_unfairness`,
        :func:`~skfair.metrics.equalized_odds_unfairness`).
    eps : float, default=0.01
        The bound. With ``disparity="difference"`` the largest difference of the constrained
        rate(s) between the compared groups, exactly as :mod:`skfair.metrics` measures it
        (e.g. :func:`~skfair.metrics.statistical_parity_difference`, in absolute value with
        ``privileged_group``); with ``"ratio"``, one minus the smallest ratio (``eps=0.2`` is
        the four-fifths rule); for bounded group loss, the largest group mean loss.
    {compared_groups}
    max_iter : int, default=50
        Largest number of iterations (best responses).
    nu : float, default=None
        The duality gap at which the game stops. None: half the standard error of the mean
        loss of the unconstrained fit (the statistical resolution of the objective), at most
        0.002 for a classifier (an error rate). When
        the default moves stop at ``max_iter`` with a larger gap, a ``ConvergenceWarning``
        says so.
    eta0 : float, default=2.0
        With ``multiplier_update="exponentiated_gradient"``, the learning rate of the
        multipliers is ``eta0 / multiplier_bound`` (as in fairlearn).
    multiplier_bound : float, default=None
        ``B``, the bound on the sum of the multipliers (the paper's ``B``): a violation of
        one unit costs at most ``B`` in the game. None: ``1 / eps`` for the rate constraints
        (an ``eps`` violation may cost the whole error range), 100 for ``eps=0`` and for
        bounded group loss (a group's weight may grow about ``100 / its share`` times).
    multiplier_update : {"linprog", "exponentiated_gradient"}, default="linprog"
        How the multiplier player moves between best responses: to the multipliers of the
        saddle point of the game restricted to the fits found (a small linear program, the
        paper's Section 3.3 step), which asks the base learner for the fit the mixtures lack;
        or by one step of exponentiated gradient (Algorithm 1), which usually needs several
        times more fits. See Notes.
    predict_method : {"auto", "randomized", "deterministic"}, default="auto"
        How :meth:`predict` decides; both rules keep the bound on the training rows (see
        Notes). ``"randomized"``: each row's decision is drawn from the mixture (the
        randomised classifier of the paper, whose rates are those the constraint bounds),
        with a draw keyed on the row's values and the fit's seed: reproducible, the same for
        a row alone or in any batch (the copies of a row within one batch share out their
        draws: they take each class the expected number of times, rounded).
        ``"deterministic"``: for a classifier, the single fit found that is the most
        accurate among those that meet the bound (``best_index_``);
        for a regressor, the members' weighted mean (its group losses are at most the
        mixture's, the losses being convex). ``"auto"``: randomised for a classifier,
        deterministic for a regressor. ``objective_`` and ``constraint_gap_`` describe the
        rule in use.
    warm_start : "auto" or bool, default="auto"
        Start each fit from the previous best response. ``"auto"``: only for the linear
        models whose warm start is the initial point of a convex solver (e.g.
        ``LogisticRegression``, also as a pipeline's last step); their fits reach the same
        solution. True: also for the other estimators with a ``warm_start`` parameter; a
        boosting ensemble (``(Hist)GradientBoosting*``) then grows by a quarter of its own
        number of stages (``max_iter`` or ``n_estimators``, at least one) on top of the
        previous response instead of being refitted, and a bagging ensemble (random forests,
        extra trees, bagging), whose earlier trees would keep answering the earlier problems,
        is refused with a ``ValueError``. False: every fit from scratch.
    {response_threshold}
    sensitive_column : str, int or list of them, default=None
        Column(s) of X holding the sensitive features; removed before the base learner sees
        X (unless ``drop_sensitive=False``). Works inside ``GridSearchCV`` without metadata
        routing.
    drop_sensitive : bool, default=True
        Whether to remove ``sensitive_column`` from X before the base learner.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the randomised predictions and the weighted resamples.

    Attributes
    ----------
    predictors_ : list of estimators
        The hypotheses found: one constant classifier per class first (free, never
        fitted), then the distinct best responses: with two classes, a fit whose score the
        game cut at its threshold of least cost is a ``FixedThresholdClassifier`` around a
        ``FrozenEstimator`` of it (see ``response_threshold`` and Notes); the unconstrained
        fit comes as it is.
    weights_ : ndarray of shape (n_predictors,)
        Mixture weight of each predictor (sum 1).
    lambda_vecs_ : ndarray of shape (n_queries, n_constraints)
        The multipliers the base learner was asked to answer, in order (the first is 0).
    constraint_names_ : list of str
        What each constraint (each column of ``lambda_vecs_``) compares.
    best_gap_ : float
        The duality gap of the game at the end, from the best responses found (see Notes).
    gaps_ : ndarray of shape (``n_iter_ - 1``,)
        That gap after each iteration of the game.
    nu_ : float
        The gap at which the game may stop.
    n_iter_ : int
        Best responses asked for: the unconstrained fit, then one per iteration of the game.
    n_oracle_calls_ : int
        Best responses asked for.
    n_fits_ : int
        Fits of the base learner actually run (answers from the cache and constant answers
        need none).
    objective_ : float
        Training error (0-1 loss; mean ``loss`` for regression) of the decisions
        :meth:`predict` makes on the training rows with the current ``predict_method``: the
        realised error of the drawn decisions (randomised), or that of the deterministic
        rule.
    constraint_gap_ : float
        Training disparity of those decisions, in the units of ``eps`` (what an independent
        groupby of ``predict(X)`` on the training rows gives): at most ``eps`` unless a
        warning said that the bound could not be met.
    mixture_objective_, mixture_gap_ : float
        Expected training error and disparity of the randomised mixture (the group means of
        :meth:`predict_proba`); the other rule's are ``objectives_[best_index_]`` and
        ``constraint_gaps_[best_index_]``.
    best_index_ : int
        The predictor of the deterministic rule of a classifier: the most accurate of
        ``predictors_`` whose training disparity is at most ``eps`` (a constant one exists
        for every rate parity).
    objectives_, constraint_gaps_ : ndarray of shape (n_predictors,)
        Training error and disparity of each predictor.
    classes_ : ndarray of shape (n_classes,)
        Class labels (classifiers).
    groups_ : list
        Group labels of the training data.
    {columns_in}

    See Also
    --------
    GridSearch : One fit per point of a grid of multipliers; a single predictor.
    skfair.postprocessing.GroupThresholdClassifier : Group thresholds after training (needs
        the sensitive attribute at decision time).
    skfair.plotting.ReductionTradeoffDisplay : Error against disparity of the fits.

    Notes
    -----
    **Moments.** Every quantity of the game (the error and each constraint) is read off the
    weighted table group x true class x prediction of a hypothesis (one bincount): the
    constraints compare rates between sides of groups, ``rho * rate(a) - rate(b) <= bound``,
    with one constraint per ordered pair of compared sides (``n_groups * (n_groups - 1)`` per
    rate without ``privileged_group``). The Lagrangian's weight of "sample i predicted k"
    depends on the sample only through its (group, class) cell, so a best response needs a
    small cost table, never an n x (events x groups) matrix.

    **Best responses.** The cost-sensitive problem is solved exactly as weighted
    classification: each sample once per class ``k``, weighted by how much cheaper ``k`` is
    than its costliest class; with two classes this is the relabelling ``1[C_1 < C_0]`` with
    weight ``|C_1 - C_0|`` of the paper, and with K classes it keeps the best response exact
    (K - 1 copies per sample at most). Responses are cached on the normalised cell weights, so
    the base learner is never refitted on weights it has already seen.

    **The threshold of a best response.** A learner that minimises a surrogate (the log-loss
    of a logistic regression, boosting's) decides at its own threshold (a probability of
    1/2), which is rarely the one of least weighted error: its answer is then not the best
    response of its own class. So with two classes, when the fit has ``predict_proba`` (or
    ``decision_function``), its score is cut where the Lagrangian's cost on the training
    rows is least, exactly, among the thresholds ``j / 1024`` of the probability (their
    logits for a decision function), the one nearest 1/2 on ties: the member is the fit in
    a scikit-learn ``FixedThresholdClassifier`` (around a ``FrozenEstimator``), and
    ``member.estimator.estimator`` is the fit itself. The unconstrained fit is also kept as
    it is, and is the result alone when it meets the bound. On German credit with a
    logistic regression (both constraints, three attributes, ``eps`` 0.01 to 0.05, 3 splits)
    the mixture's expected training accuracy then reached fairlearn's minus 0.002 in 53 of
    54 runs (40 before), with 38 % fewer fits. The choice needs the weight of each (group,
    class) cell in each interval of the thresholds, which adds up over partitions: a fit on
    dask collections chooses the same thresholds. This is the default for a linear
    classifier only (``response_threshold="auto"``): a flexible learner's training scores
    are fitted to the training rows, and thresholds chosen on them carry the rows' chance
    into the mixture. On eight splits of Bank marketing (three age groups,
    HistGradientBoosting, demographic parity at ``eps=0.02``), the mixtures of cut fits had a
    test gap of 0.042 on average (over 100 draws of the decisions) against 0.034 with the
    fits' own thresholds and 0.034 for fairlearn's, and a lower test accuracy (0.8913 against
    0.8921); their expected training accuracy was higher (by 0.0009 on average), which is
    the training rows' chance too.

    **The multiplier player.** Algorithm 1 moves the multipliers by exponentiated gradient and
    averages the plays; fairlearn adds the linear program over the fits found at every
    iteration, and up to four further fits to evaluate its gap. Here the certified gap below
    costs no fit, and by default the multipliers move straight to the linear program's
    (``multiplier_update="linprog"``): the best response to them is the fit that the
    restricted game misses, or, when it is already among the fits, a proof that the
    restricted saddle point is the game's. On Adult with a logistic regression at
    ``eps=0.02`` this took 7 fits by sex under demographic parity and 12 under equalized
    odds (21 and 31 with five race groups) where fairlearn took 20 and 20 (47 and 86), the
    candidates before stopping included.

    **Stopping.** Each queried ``lambda_s`` bounds the game's value from below by
    ``min_h L(h, lambda_s)`` over the hypotheses found (the paper's oracle assumption: the
    best of the learner's answer and the fits found before stands in for the best of the
    class, as in fairlearn's ``best_h``). The linear program over the mixtures of the
    hypotheses found (their saddle point, Section 3.3) bounds it from above. Their
    difference, ``best_gap_``, costs no fit (fairlearn refits the base learner up to four
    more times per iteration for its gap). With an exact weighted-error minimiser as base
    learner (the paper's oracle) it is a certificate: the restricted saddle point is then a
    ``best_gap_``-approximate saddle point, so by Theorem 1 its error is within
    ``2 * best_gap_`` of the best mixture's. Logistic regression, boosting and most learners
    minimise a surrogate instead, and an answer that does not improve the game proves
    nothing about the learner's class. So the game stops only when the gap is at most
    ``nu``, the last best response improved the returned mixture's error by at most
    ``nu / 10``, *and* multipliers the player did not ask for do not improve it either:
    half of its last move, then a bisection between its last two moves. A surrogate learner
    may answer these smaller pulls with fits the saddle points miss. As long as new fits
    make the mixture more accurate, the game keeps asking for them (or until ``max_iter``).
    (Before the fits' scores were cut, three more candidates were tried: a quarter of the
    last move, the average of the later half of the moves and half of it. With the cut,
    54 runs on German credit needed 25 % fewer fits without them, and were behind
    fairlearn's accuracy in as many runs: one.)

    **The returned mixture.** The most accurate mixture of the hypotheses found that meets
    every constraint exactly on the training data (a second small linear program). The
    constant classifiers are among the hypotheses at no cost, and a coin flip between them
    meets every rate parity exactly, so for classification such a mixture always exists
    (when it holds constants only, a warning says so); for bounded group loss it may not,
    and the saddle point is returned with a warning. When the unconstrained fit already
    meets the bound it is returned alone.

    **Decisions.** The bound holds for the randomised mixture: its expected rates on the
    training rows are within ``eps``, and so are the group means of :meth:`predict_proba`,
    the probability of each decision. The default ``predict`` draws from it, row by row
    (fairlearn's ``predict`` is randomised too, but changes between calls unless it is given
    a ``random_state``); the realised disparity of a draw differs from the expected one by
    the chance of the draws, of the order of ``sqrt(share of mixed rows / group size)``. So
    at fit the decisions are drawn on the training rows, exactly as ``predict`` draws them,
    with up to 32 seeds derived from ``random_state`` (up to 4,096 on small data: at most
    2^21 row draws in all), and the first seed whose decisions meet the bound is kept
    (randomised rounding with retries, Raghavan & Thompson 1987): ``constraint_gap_`` is
    then the realised training gap of ``predict``, within ``eps`` whenever one of the seeds
    meets it. New rows get draws of the same law. The
    deterministic rule keeps the bound exactly, with one fit: usually a little less
    accurate than the mixture. Thresholding the mixture's probabilities would give neither
    guarantee (its disparity can be many times ``eps``), so it is not offered; the members'
    own probabilities, averaged, are :meth:`predict_member_proba` (scores, not decisions).
    Check the decisions on held-out data: the guarantee is for the training rows.

    **Dask input.** ``fit`` takes dask collections (two classes) when the base learner says
    that its ``fit`` takes them, with ``sample_weight``, through the class attribute
    ``__skfair_fits_dask__ = True`` (its ``predict`` must take in-memory blocks); any other
    learner is refused at once with a TypeError naming it, as are regressors. The game then
    reads the data through small tables: one pass gives the weight of each (group, class)
    cell, each best response fits the learner on the dask collections with lazy labels and
    weights (those of the row's cell, block by block), one pass per fit gives its (group,
    class, prediction) table, and a last pass draws the decisions of the first candidate seed
    on each partition, as :meth:`predict` draws them on a dask collection (one more pass for
    the other seeds when they miss the bound). Nothing of the length
    of the data reaches the client; ``objective_`` and ``constraint_gap_`` equal the
    in-memory fit's up to the order of the sums (the drawn decisions too, when no row appears
    twice: the copies of a row share out their draws within a partition, not the whole data).
    ``predict`` and ``predict_proba`` of dask collections run block by block.

    References
    ----------
    Agarwal, A., Beygelzimer, A., Dudík, M., Langford, J. and Wallach, H. (2018). A Reductions
    Approach to Fair Classification. ICML.

    Agarwal, A., Dudík, M. and Wu, Z. S. (2019). Fair Regression: Quantitative Definitions and
    Reduction-based Algorithms. ICML.

    Raghavan, P. and Thompson, C. D. (1987). Randomized rounding: a technique for provably
    good algorithms and algorithmic proofs. Combinatorica 7(4).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.metrics import statistical_parity_difference
    >>> from skfair.reductions import ExponentiatedGradient
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 2000)
    >>> X = np.c_[rng.normal(size=2000) + group, rng.normal(size=2000)]
    >>> y = (X[:, 0] + rng.normal(size=2000) > 0.5).astype(int)
    >>> model = ExponentiatedGradient(LogisticRegression(), eps=0.02, random_state=0)
    >>> model = model.fit(X, y, sensitive_features=group)
    >>> y_pred = model.predict(X)  # drawn, reproducible; no sensitive attribute needed
    >>> realised = statistical_parity_difference(y, y_pred, sensitive_features=group)
    >>> bool(abs(realised - model.constraint_gap_) < 1e-12)  # the gap fit reports
    True
    >>> bool(realised <= 0.02)
    True
    """

    _parameter_constraints: dict = {
        **_BaseReduction._parameter_constraints,
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "nu": [Interval(Real, 0, None, closed="neither"), None],
        "eta0": [Interval(Real, 0, None, closed="neither")],
        "multiplier_bound": [Interval(Real, 0, None, closed="neither"), None],
        "multiplier_update": [StrOptions({"linprog", "exponentiated_gradient"})],
        "predict_method": [StrOptions({"auto", "randomized", "deterministic"})],
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
        max_iter=50,
        nu=None,
        eta0=2.0,
        multiplier_bound=None,
        multiplier_update="linprog",
        predict_method="auto",
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
        self.max_iter = max_iter
        self.nu = nu
        self.eta0 = eta0
        self.multiplier_bound = multiplier_bound
        self.multiplier_update = multiplier_update
        self.predict_method = predict_method
        self.warm_start = warm_start
        self.response_threshold = response_threshold
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the base learner validates itself
    def fit(self, X, y, sample_weight=None, *, sensitive_features=None, **fit_params):
        """Play the game and keep the most accurate mixture that meets the constraint.

        {parameters_fit}
        """
        problem = self._problem(X, y, sample_weight, sensitive_features, fit_params)
        bound = self.multiplier_bound
        if bound is None:
            regression = self.constraint == "bounded_group_loss"
            bound = 1.0 / self.eps if self.eps > 0 and not regression else 100.0
        result = _play(
            problem,
            multiplier_bound=bound,
            nu=self.nu,
            eta0=self.eta0,
            max_iter=self.max_iter,
            update=self.multiplier_update,
        )
        self.lambda_vecs_ = result.lambdas
        self.gaps_ = result.gaps
        self.best_gap_ = result.gap
        self.nu_ = result.nu
        self.n_iter_ = len(result.lambdas)
        self._set_members(problem, result.weights)
        self.mixture_objective_, self.mixture_gap_ = self._summaries["randomized"]
        self._choose_draws(problem)
        if not result.met:
            self._warn_bound_not_met(
                self.constraint_gap_,
                "the saddle point of the game (error plus the penalty of the violation)",
            )
        self._warn_if_collapsed(problem)
        # The advice concerns the default moves; exponentiated-gradient moves answered by an
        # inexact learner rarely close the certificate, and their mixture is what they advise.
        if not result.converged and self.multiplier_update == "linprog":
            warnings.warn(
                f"The game stopped after max_iter={self.max_iter} iterations with a duality "
                f"gap of {result.gap:.3g}, above nu={result.nu:.3g}: what the mixture reports "
                "is exact, but a more accurate mixture may exist. A larger max_iter, or "
                "multiplier_update='exponentiated_gradient' with a smaller step (eta0=0.5), "
                "may find it, at the cost of more fits.",
                ConvergenceWarning,
                stacklevel=3,
            )
        return self

    def predict(self, X):
        """Decide with the mixture, as ``predict_method`` says.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (with the sensitive column(s) in ``sensitive_column`` mode; they are
            dropped before the members see X). No sensitive feature is needed.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels (or values for a regressor): drawn from the mixture, row by
            row and reproducibly (randomised rule), or those of the deterministic rule.
        """
        return self._predict(X)

    def _decision_rule(self):
        if self.predict_method == "auto":
            return "deterministic" if self._regression else "randomized"
        return self.predict_method

    @property
    def objective_(self):
        return self._summaries[self._decision_rule()][0]

    @property
    def constraint_gap_(self):
        return self._summaries[self._decision_rule()][1]


def _play(problem, *, multiplier_bound, nu, eta0, max_iter, update):
    """The game: best responses of the base learner against the multiplier player's moves.

    The first move is ``lambda = 0`` (the unconstrained fit). Then, each iteration, the
    multiplier player moves -- to the multipliers of the restricted game's saddle point
    (``update="linprog"``; after a move answered with a hypothesis already found, by
    exponentiated-gradient steps until a new fit appears) or by one exponentiated-gradient step
    (Algorithm 1) -- and the base learner answers. When the gap is at most ``nu`` and the answer
    improved the returned mixture's error by at most ``nu * _IMPROVEMENT`` (or the gap is that
    small), candidates the player did not ask for are tried (:func:`_candidates`, then a
    bisection between its last two moves until the learner answers with a new fit, at most
    ``_PROBES``); the game stops when they do not improve it either, or after ``max_iter``
    iterations.
    """
    hypotheses, moments = problem.hypotheses, problem.moments
    n_constraints = moments.n_constraints
    zero = np.zeros(n_constraints)
    cost = moments.cost(zero)
    response = problem.oracle(cost)
    first = problem.add_response(response, cost, own_threshold=True)
    if nu is None:
        nu = problem.default_nu()
        if not problem.is_regression:
            nu = min(nu, _LARGEST_DEFAULT_NU)
    queried, answers, gaps = [zero], [first], []
    if n_constraints == 0 or (hypotheses.gammas[first] <= 0).all():
        # The unconstrained fit meets the bound: it is the solution, the learner as it is.
        weights = np.zeros(len(hypotheses))
        weights[first] = 1.0
        return Bunch(
            weights=weights,
            gaps=np.zeros(0),
            lambdas=np.asarray(queried),
            nu=nu,
            gap=0.0,
            met=True,
            converged=True,
        )
    # The best response to lambda = 0: the same fit, its score cut where the error is least.
    answers[0] = problem.add_response(response, cost)
    theta = np.zeros(n_constraints)
    eta = eta0 / multiplier_bound
    gap = np.inf
    objective = _returned_objective(hypotheses, multiplier_bound)
    probe = None  # while probing: the interval of multipliers and the answers at its ends
    stalled = False  # the restricted game's move was answered with a hypothesis already found
    for _ in range(max_iter):
        candidate = probe is not None and bool(probe.candidates)
        if candidate:
            # A smaller pull than the player's last move: a learner that does not minimise
            # the weighted error exactly may answer it with a fit the saddle points miss.
            multipliers = probe.candidates.pop(0)
        elif probe is not None:
            # A candidate the multiplier player did not ask for, between its last two moves
            # (bisection towards where the learner's answer changes).
            multipliers = (probe.low + probe.high) / 2
        elif update == "linprog" and not stalled:
            multipliers = restricted_game(hypotheses.errors, hypotheses.gammas, multiplier_bound)[2]
        else:
            # lambda = B exp(theta) / (1 + sum exp(theta)), computed stably.
            multipliers = multiplier_bound * np.exp(theta - logsumexp(np.append(theta, 0.0)))
        size = len(hypotheses)
        answer = problem.respond(multipliers)
        answers.append(answer)
        queried.append(multipliers)
        value = restricted_game(hypotheses.errors, hypotheses.gammas, multiplier_bound)[1]
        gap = certified_gap(hypotheses, queried, value)
        gaps.append(gap)
        previous, objective = objective, _returned_objective(hypotheses, multiplier_bound)
        settled = gap <= nu and min(gap, previous - objective) <= nu * _IMPROVEMENT
        # Answered with a hypothesis already found, the restricted game is unchanged and its
        # saddle point would be played again, answered again the same way (a learner that does
        # not minimise the weighted error exactly): the player then takes exponentiated-gradient
        # steps (Algorithm 1), which move while the gap is open, until a new fit appears.
        stalled = len(hypotheses) == size
        if not settled:
            probe = None
        elif probe is None:
            probe = Bunch(
                low=queried[-2],
                low_answer=answers[-2],
                high=multipliers,
                n=0,
                candidates=_candidates(queried),
            )
        elif candidate:
            pass  # the next candidate, then the bisection
        elif len(hypotheses) > size or probe.n + 1 >= _PROBES:
            break  # a new fit that improves nothing, or no new fit in the interval
        else:
            # The answer equals one end's: the learner's answer changes on the other side.
            if answer == probe.low_answer:
                probe.low = multipliers
            else:
                probe.high = multipliers
            probe.n += 1
        # The gradient of the best hypothesis found against the multipliers just played.
        best = int(np.argmin(hypotheses.lagrangian(multipliers)))
        theta = theta + eta * hypotheses.gammas[best]
    weights = constrained_mixture(hypotheses.errors, hypotheses.gammas)
    met = weights is not None
    if not met:
        weights = restricted_game(hypotheses.errors, hypotheses.gammas, multiplier_bound)[0]
    return Bunch(
        weights=weights,
        gaps=np.asarray(gaps),
        lambdas=np.asarray(queried),
        nu=nu,
        gap=gap,
        met=met,
        converged=gap <= nu,
    )


# The default nu of a classifier at most: the error the mixture may leave to a longer game
# (half the standard error of the loss is 0.0077 on 700 rows of German credit, where 22 more
# fits gained 0.008 in accuracy over four groups under equalized odds; on 3 x 10^4 rows of
# Adult it is about 0.0012).
_LARGEST_DEFAULT_NU = 0.002
# The game goes on while a best response improves the returned mixture's error by more than
# this fraction of nu (a tenth of the objective's resolution).
_IMPROVEMENT = 0.1
# Candidates tried, by bisection between the last two moves, before the game stops.
_PROBES = 6


def _candidates(queried):
    """Multipliers the player did not ask for, tried before the game stops (then the
    bisection): half of its last move."""
    return [0.5 * queried[-1]]


def _returned_objective(hypotheses, multiplier_bound):
    """Error of the mixture the game would return now: the most accurate one that meets
    the constraints, or, when none does, the restricted game's value (error plus penalty)."""
    weights = constrained_mixture(hypotheses.errors, hypotheses.gammas)
    if weights is None:
        return restricted_game(hypotheses.errors, hypotheses.gammas, multiplier_bound)[1]
    return float(weights @ hypotheses.errors)
