"""Where a model's Wasserstein bias comes from: bias explanations and Shapley-bias values.

Miroshnikov et al. (2022), "Wasserstein-based fairness interpretability framework for machine
learning models" (arXiv:2011.03156), Sections 4.1-4.4. Three misprints of the paper are read
as the definitions around them require: ``beta^±`` of Def. 4.1 carry the ``±`` of Def. 3.2
(as printed, ``beta^-`` would be negative, contradicting ``beta = beta^+ + beta^-``); the net
bias game of Def. 4.3 is ``v^{bias+} - v^{bias-}`` (printed ``v^{bias+} - v^{bias+}``); the
quotient game of Def. 4.4 indexes by the coalition ``A`` of groups (printed ``U``). Positive
parts mean the privileged group is favoured.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, MetaEstimatorMixin
from sklearn.exceptions import NotFittedError, UndefinedMetricWarning
from sklearn.utils import Bunch, check_array
from sklearn.utils.validation import check_is_fitted

from skfair._base import _model_allows_nan, meta_model_input
from skfair._dask import refuse, uses_dask
from skfair._stats._sorted import FAVORABLE_SIGN as _FAVORABLE_SIGN
from skfair._stats._sorted import w1_named_parts
from skfair._stats._sorted import w1_parts as _w1_parts
from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    SENSITIVE_COLUMN_CONSTRAINT,
    SENSITIVE_FEATURES_CONSTRAINT,
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
    validate_params,
)
from skfair._utils._groups import privileged_mask, split_sensitive_column
from skfair._utils._random import check_random_state
from skfair._utils._response import ScoreReader
from skfair._utils._validation import check_group_weights, check_groups, check_weights
from skfair.explain._games import MarginalGame, RowPool
from skfair.explain._shapley import (
    MAX_EXACT_PLAYERS,
    coalition_membership,
    permutation_contributions,
    sample_permutations,
    shapley_weight_matrix,
    unit_standard_error,
)
from skfair.explain._tree import TreeGame
from skfair.metrics._docs import shared

# "auto": exact enumeration up to this many players (2**10 coalitions), then permutations.
_AUTO_EXACT_PLAYERS = 10
_AUTO_PERMUTATIONS = 128
# Warn up front above this many hybrid rows to evaluate with the model: a scikit-learn
# pipeline scores roughly 10**5 to 10**6 rows a second, so this is tens of seconds or more.
_WARN_HYBRID_ROWS = 10**7
# Work per joblib task: fixed sizes, so that the tasks, and the order in which their partial
# sums are added, do not depend on n_jobs (results are bit-identical for any n_jobs).
_COALITIONS_PER_TASK = 64
_PERMUTATIONS_PER_TASK = 8
_PLAYERS_PER_TASK = 8
# "conditional" assumes feature groups independent (Lemma 4.7): warn above this |Spearman rho|
# between features of different groups.
_CROSS_GROUP_RHO = 0.5
_BIAS_GAME_CHUNK = 256  # coalitions per vectorised W1 evaluation of the choice-(b) bias game
_COALITIONS_PER_CHUNK = 64  # model-game columns held at once in exact mode
_PARTS = ("total", "positive", "negative", "net")


@dataclass(frozen=True)
class _ComparedPair:
    """Evaluation rows of the two compared groups, and the W1 parts of any score columns."""

    in1: np.ndarray | None  # True for the protected group (the paper's G=1); None: one group
    weights: np.ndarray
    sign: float

    def parts(self, values):
        """Positive and negative W1 parts of each column of ``values`` (n_eval, n_columns)."""
        if self.in1 is None:
            zeros = np.zeros(values.shape[1:])
            return zeros, zeros
        return _w1_parts(values, self.in1, self.weights, self.sign)


def _exact_batch(game, player_masks, weight_rows, pair, with_bias_game, singleton_positions):
    """Partial Shapley sums (and bias-game parts) of a batch of coalitions.

    The game table is streamed: ``phi = sum_c v_c ⊗ W[c]`` over chunks of coalitions, so at
    most ``_COALITIONS_PER_CHUNK`` columns of the (n_eval, 2**p) table exist at a time.
    """
    partial_phi = np.zeros((game.pool.n_eval, weight_rows.shape[1]))
    bias_parts = np.zeros((len(player_masks), 2))
    singletons = {}
    singleton_of = dict(singleton_positions)
    for start in range(0, len(player_masks), _COALITIONS_PER_CHUNK):
        chunk = slice(start, start + _COALITIONS_PER_CHUNK)
        values = game.values(player_masks[chunk])  # (n_chunk, n_eval)
        partial_phi += values.T @ weight_rows[chunk]
        if with_bias_game:
            bias_parts[chunk] = np.column_stack(pair.parts(values.T))
        for k, row in enumerate(values, start=start):
            if k in singleton_of:
                singletons[singleton_of[k]] = row
    return partial_phi, bias_parts, singletons


def _permutation_chunk(game, orders, pair, bias_of_model, with_bias_game):
    """Per-row Shapley sums and bias-game contributions along a chunk of antithetic orders."""
    n_players = orders.shape[1]
    phi_sum = np.zeros((game.pool.n_eval, n_players))
    bias_contributions = np.zeros((orders.shape[0], n_players, 2))
    for m, order in enumerate(orders):
        masks = np.zeros((n_players - 1, n_players), dtype=bool)
        for k in range(n_players - 1):
            masks[k, order[: k + 1]] = True
        inner = game.values(masks)
        # v(S_0) = v({}) and v(S_p) = f(x) are shared by every chain, so each telescopes exactly.
        prefix = np.vstack(
            [np.full((1, game.pool.n_eval), game.empty_value), inner, game.full_value[None]]
        )
        phi_sum[:, order] += np.diff(prefix, axis=0).T
        if with_bias_game:
            positive, negative = pair.parts(inner.T)
            prefix_parts = np.vstack(
                [[0.0, 0.0], np.column_stack([positive, negative]), bias_of_model]
            )
            bias_contributions[m] = permutation_contributions(prefix_parts[None], order[None])[0]
    return phi_sum, bias_contributions


@shared
class BiasExplainer(MetaEstimatorMixin, BaseEstimator):
    """Explain the Wasserstein bias of a fitted model feature by feature.

    Wraps a **fitted** model (never refitted or modified) and computes on ``fit``:

    - ``bias_``: the model's W1 bias between the privileged group and the compared group, with
      its positive part (privileged group favoured), negative part and net part (Def. 3.2);
    - ``explanations_``: per feature (or feature group) the bias explanations ``beta`` and
      ``beta^±`` (Def. 4.1, the W1 bias of the feature's explainer values; these are **not**
      additive) and, except for ``method="pdp"``, the Shapley-bias values (Defs. 4.3-4.4,
      signed, unbounded apart from efficiency, which **add up** to ``bias_`` part by part).

    Explainers use the marginal (interventional) game over a background drawn from the pooled
    population (paper eq. 4.3). Under dependent features this queries the model off the data
    manifold: it explains the bias "through the model structure". The paper's remedy is to
    group dependent features (``feature_groups``); ``method="conditional"`` makes that
    assumption explicit (Lemma 4.7). The model bias and every explanation are computed on the
    same evaluation rows (the rows of the two compared groups).

    Parameters
    ----------
    estimator : estimator object
        A fitted classifier or regressor (a Pipeline, a ``FrozenEstimator``...). Wrap it in
        :class:`sklearn.frozen.FrozenEstimator` if the explainer itself will be cloned.
    method : {"shapley", "marginal", "pdp", "conditional"}, default="shapley"
        - ``"shapley"``: explainer values are marginal Shapley values; the bias game uses their
          coalition sums (choice (b) of eq. 4.9).
        - ``"marginal"``: explainer values are the PDP ``v({j})``; the bias game uses the
          marginal game ``v(S)`` itself (choice (a)).
        - ``"pdp"``: the PDP explainer only, no Shapley-bias (cheapest).
        - ``"conditional"``: as ``"marginal"`` over ``feature_groups`` assumed independent
          (Lemma 4.7); requires ``feature_groups``.
    favorable : {"higher", "lower"}, default="higher"
        Whether higher scores are favourable to the individual.
    response_method : "auto", str or list of str, default="auto"
        Scoring method; "auto" tries ``predict_proba``, ``decision_function``, ``predict``.
    pos_label : label, default=None
        Class whose score is explained (default ``classes_[1]`` for binary models).
    privileged_group : label or tuple, default=None
        The paper's G=0. When None the group the model favours on average plays it.
    protected_group : label or tuple, default=None
        The compared group when there are more than two; default the group with the largest W1
        against the privileged one.
    feature_groups : list of lists, or dict of lists, default=None
        Column names or positions making up each player (quotient game, Def. 4.4). Unlisted
        columns become players of their own.
    background : array-like, default=None
        Rows to draw the background from (default: X).
    n_background : int or None, default=100
        Number of background rows drawn without replacement; None uses them all.
    n_permutations : "auto", "exact" or int, default="auto"
        "auto": exact enumeration of the 2**p coalitions for at most 10 players, otherwise 128
        antithetic permutations; an int forces permutation sampling.
    random_state : int, RandomState instance, Generator or None, default=None
        Background draw and permutations.
    n_jobs : int, default=None
        Parallel evaluation of coalitions or permutations with joblib. The work is split into
        tasks of a fixed size whose results are added in a fixed order, so the results are
        the same, bit for bit, for every ``n_jobs``.
    verbose : int, default=0
        0 is silent; 1 prints the planned work (players, coalitions, hybrid rows) before it
        starts; higher values also report joblib's progress over the tasks.
    sensitive_column : str, int or list, default=None
        Columns of X holding the sensitive features.
    drop_sensitive : bool, default=True
        Drop ``sensitive_column`` from X before the model sees it.

    Attributes
    ----------
    bias_ : Bunch
        ``total``, ``positive``, ``negative``, ``net`` of the model on the evaluation rows.
    explanations_ : Bunch
        Arrays with one entry per player: ``names``, ``total``, ``positive``, ``negative``,
        ``net`` (beta) and ``shapley_total`` ... ``shapley_net`` (plus ``shapley_*_stderr`` in
        permutation mode). ``pandas.DataFrame(explanations_)`` works.
    attributions_ : ndarray of shape (n_eval, n_players)
        Explainer values per evaluation row.
    bias_game_ : Bunch or None
        Exact mode: the bias games over all coalitions (bitmask order).
    eval_index_ : ndarray
        Positions in X of the evaluation rows.
    background_ : ndarray or DataFrame
        The background rows used.
    groups_ : list
        Group labels seen in ``sensitive_features``.
    privileged_group_, protected_group_ : label
        The compared pair.
    sign_ : float
        +1 for ``favorable="higher"``, -1 otherwise.
    shapley_method_ : {"exact", "permutation"} or None
    n_permutations_ : int or None
    n_coalitions_ : int
        Number of coalitions evaluated with the model; 0 when the Shapley values came from the
        trees (see Notes).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when X has string column names.

    See Also
    --------
    explain_bias : The same as a function, returning a Bunch.
    skfair.metrics.wasserstein_bias : The model bias that is explained.
    skfair.plotting.BiasExplanationDisplay : Bar and waterfall plots of the explanations.

    Notes
    -----
    Cost: the model is evaluated on up to (2**p - 2) x n_eval x n_background hybrid
    rows in exact mode, n_permutations x (p - 1) x n_eval x n_background in permutation mode
    (fewer on discrete features: each coalition is evaluated on the distinct rows of X_S only).
    Scores read from trees get their exact game from the trees instead, without hybrid rows
    (``n_coalitions_ == 0``), equal to the generic path's to rounding. ``method="shapley"``
    needs only the per-row Shapley values; ``"marginal"`` and ``"conditional"`` (exact mode, at
    most 14 players) need the game on every coalition, from the coalition tables below.

    - weighted sums of leaf values (interventional TreeSHAP, about leaves x rows x path
      length): ``predict_proba`` of decision trees, random forests and extra trees,
      ``decision_function`` of binary (Hist)GradientBoosting classifiers, ``predict`` of the
      matching regressors;
    - a link of such a sum, with at most 14 players: ``predict_proba`` of binary
      (Hist)GradientBoosting classifiers and ``predict`` of HistGradientBoosting regressors
      with a log link. The raw score of every pair of an evaluation and a background row is
      tabulated over all ``2**p`` coalitions from the leaves the pair can reach, then passed
      through the link (coalition tables).

    GradientBoosting needs its default ``init``; HistGradientBoosting's native categorical
    splits are supported.

    Other models (and multi-class probabilities) take the generic path. A warning is raised
    before the generic path starts when it would score more than ``10**7`` hybrid rows.

    Without ``privileged_group`` the results are unsigned: the group the model favours on
    average plays the paper's G=0, so the net bias is non-negative and relabelling the groups
    changes nothing. The background is drawn from the pooled population (never per group),
    and the model bias and every explanation use the same evaluation rows, which additivity
    requires. For Shapley explainers a bias explanation can reach 2, not 1 as Lemma 4.4
    states: a Shapley value of a score in [0, 1] lies in [-1, 1].

    **Dask input.** ``fit`` refuses dask collections with a TypeError (the coalitions compare
    the groups' rows as a whole): explain an in-memory sample.

    {references_miroshnikov}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> X = np.column_stack([rng.normal(group, 1.0), rng.normal(size=400)])
    >>> y = (X[:, 0] + rng.normal(size=400) > 0.5).astype(int)
    >>> from sklearn.linear_model import LogisticRegression
    >>> model = LogisticRegression().fit(X, y)
    >>> from skfair.explain import BiasExplainer
    >>> explainer = BiasExplainer(model, random_state=0).fit(X, sensitive_features=group)
    >>> total = explainer.explanations_.shapley_total.sum()
    >>> bool(np.isclose(total, explainer.bias_.total))
    True
    """

    __metadata_request__fit = {"sensitive_features": True, "sample_weight": True}

    _parameter_constraints = {
        "estimator": [HasMethods(["predict"])],
        "method": [StrOptions({"shapley", "marginal", "pdp", "conditional"})],
        "favorable": [StrOptions({"higher", "lower"})],
        "response_method": [str, list, tuple],
        "pos_label": "no_validation",
        "privileged_group": "no_validation",
        "protected_group": "no_validation",
        "feature_groups": [list, dict, None],
        "background": ["array-like", None],
        "n_background": [Interval(Integral, 1, None, closed="left"), None],
        "n_permutations": [
            StrOptions({"auto", "exact"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "sensitive_column": SENSITIVE_COLUMN_CONSTRAINT,
        "drop_sensitive": ["boolean"],
    }

    def __init__(
        self,
        estimator,
        *,
        method="shapley",
        favorable="higher",
        response_method="auto",
        pos_label=None,
        privileged_group=None,
        protected_group=None,
        feature_groups=None,
        background=None,
        n_background=100,
        n_permutations="auto",
        random_state=None,
        n_jobs=None,
        verbose=0,
        sensitive_column=None,
        drop_sensitive=True,
    ):
        self.estimator = estimator
        self.method = method
        self.favorable = favorable
        self.response_method = response_method
        self.pos_label = pos_label
        self.privileged_group = privileged_group
        self.protected_group = protected_group
        self.feature_groups = feature_groups
        self.background = background
        self.n_background = n_background
        self.n_permutations = n_permutations
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = _model_allows_nan(self.estimator)
        tags.input_tags.string = True
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, sensitive_features=None, sample_weight=None):
        """Compute the model bias and its explanations on X.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows to explain, in the container the model expects.
        y : None
            Ignored.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes)
            Group of each row. None (and no ``sensitive_column``) means one group: the bias and
            every explanation are then 0.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the evaluation rows in every ECDF (the background is unweighted).

        Returns
        -------
        self : object
            Fitted explainer.
        """
        if uses_dask(X, y, sensitive_features, sample_weight):
            raise _IN_MEMORY.error(f"{type(self).__name__}.fit")
        self._check_estimator_fitted()
        sensitive, X_model = meta_model_input(self, X, sensitive_features, reset=True)
        n_samples = X_model.shape[0]
        # Equal weights come back as None: the unweighted result, whatever their scale.
        weights = check_weights(sample_weight, n_samples)
        weights = np.ones(n_samples) if weights is None else weights
        response = ScoreReader.from_estimator(self.estimator, self.response_method, self.pos_label)
        self.sign_ = _FAVORABLE_SIGN[self.favorable]
        scores = response(self.estimator, X_model)

        self.eval_index_, pair = self._compared_pair(sensitive, scores, weights, n_samples)
        X_eval = _take_rows(X_model, self.eval_index_)
        eval_scores = scores[self.eval_index_]
        positive, negative = pair.parts(eval_scores[:, None])
        model_parts = np.array([positive[0], negative[0]])
        self.bias_ = _parts_bunch(positive[0], negative[0])

        rng = check_random_state(self.random_state)
        self.background_ = self._draw_background(X_model, rng)
        players, names = self._players(X_model)
        pool = RowPool(X_eval, self.background_)
        game = MarginalGame(
            self.estimator,
            response,
            pool,
            players,
            empty_value=float(response(self.estimator, self.background_).mean()),
            full_value=eval_scores,
        )
        # Scores read from trees: the exact game from the trees, without hybrid rows.
        trees = TreeGame.from_model(
            self.estimator,
            response,
            X_eval,
            self.background_,
            players,
            ends=(game.empty_value, game.full_value),
            n_jobs=self.n_jobs,
        )
        explanations = self._explain(game, pair, model_parts, rng, trees)
        self.explanations_ = Bunch(names=np.asarray(names, dtype=object), **explanations)
        return self

    # ----------------------------------------------------------------------------------------
    # set-up

    def _check_estimator_fitted(self):
        try:
            check_is_fitted(self.estimator)
        except NotFittedError as error:
            raise NotFittedError(
                f"BiasExplainer explains a fitted model, but {type(self.estimator).__name__} is "
                "not fitted. Fit it first; if the explainer is cloned (e.g. in cross-validation),"
                " wrap the fitted model in sklearn.frozen.FrozenEstimator, since clone unfits "
                "plain estimators."
            ) from error

    def _compared_pair(self, sensitive, scores, weights, n_samples):
        """Choose the compared pair; return the evaluation rows and the pair.

        With more than two groups one pair is explained: the privileged group against the
        group farthest from it in W1 (``protected_group=None``), or the farthest pair of all.
        """
        if sensitive is None:
            warnings.warn(
                "BiasExplainer was fitted without sensitive features (neither "
                "sensitive_features= nor sensitive_column=): all rows form one group, so the "
                "bias and every explanation are 0.",
                UserWarning,
                stacklevel=3,
            )
            self.groups_ = [None]
            self.privileged_group_ = self.protected_group_ = None
            return np.arange(n_samples), _ComparedPair(None, weights, self.sign_)
        groups = check_groups(sensitive, n_samples)
        check_group_weights(groups, weights)
        labels = groups.labels
        self.groups_ = labels
        if groups.n_groups == 1:
            warnings.warn(
                f"sensitive_features hold a single group ({labels[0]!r}): there is no second "
                "group to compare with, so the bias and every explanation are reported as 0.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            self.privileged_group_, self.protected_group_ = labels[0], None
            return np.arange(n_samples), _ComparedPair(None, weights, self.sign_)

        def pair_parts(g0, g1):
            rows = np.flatnonzero((groups.codes == g0) | (groups.codes == g1))
            in1 = groups.codes[rows] == g1
            positive, negative = _w1_parts(scores[rows], in1, weights[rows], self.sign_)
            return positive + negative, positive - negative

        if self.privileged_group is not None:
            privileged = np.flatnonzero(privileged_mask(groups, self.privileged_group))
            if len(privileged) > 1:
                raise ValueError(
                    "BiasExplainer compares exactly two groups; privileged_group names "
                    f"{[labels[g] for g in privileged]}. Name one group."
                )
            g0 = int(privileged[0])
            if self.protected_group is not None:
                g1 = int(np.flatnonzero(privileged_mask(groups, self.protected_group))[0])
                if g1 == g0:
                    raise ValueError("protected_group must differ from privileged_group.")
            else:
                others = [g for g in range(groups.n_groups) if g != g0]
                g1 = max(others, key=lambda g: pair_parts(g0, g)[0])
        else:
            candidates = [
                (g0, g1) for g0 in range(groups.n_groups) for g1 in range(g0 + 1, groups.n_groups)
            ]
            if self.protected_group is not None:
                g_prot = int(np.flatnonzero(privileged_mask(groups, self.protected_group))[0])
                candidates = [(a, b) for a, b in candidates if g_prot in (a, b)]
            totals = [pair_parts(a, b) for a, b in candidates]
            g0, g1 = candidates[int(np.argmax([total for total, _ in totals]))]
            # Unsigned: the group favoured on average plays G=0 (ties: the first label).
            if pair_parts(g0, g1)[1] < 0:
                g0, g1 = g1, g0
        self.privileged_group_, self.protected_group_ = labels[g0], labels[g1]
        rows = np.flatnonzero((groups.codes == g0) | (groups.codes == g1))
        return rows, _ComparedPair(groups.codes[rows] == g1, weights[rows], self.sign_)

    def _draw_background(self, X_model, rng):
        source = X_model
        if self.background is not None:
            source = self.background
            if self.sensitive_column is not None and self.drop_sensitive:
                source = split_sensitive_column(source, self.sensitive_column)[1]
            if not hasattr(source, "iloc"):
                source = check_array(
                    source, dtype=None, ensure_all_finite=False, input_name="background"
                )
            if source.shape[1] != X_model.shape[1]:
                raise ValueError(
                    f"background has {source.shape[1]} columns but the model input has "
                    f"{X_model.shape[1]}."
                )
        n_rows = source.shape[0]
        if self.n_background is None or self.n_background >= n_rows:
            return _take_rows(source, np.arange(n_rows))
        # Uniform without replacement from the pooled population, never per group: the
        # marginal game averages over P_X (paper eq. 4.3).
        return _take_rows(source, np.sort(rng.choice(n_rows, self.n_background, replace=False)))

    def _players(self, X_model):
        """Columns of each player and its name; feature groups make one player each."""
        if hasattr(X_model, "columns"):
            column_names = [str(name) for name in X_model.columns]
        else:
            column_names = [f"x{j}" for j in range(X_model.shape[1])]
        if self.method == "conditional" and self.feature_groups is None:
            raise ValueError(
                "method='conditional' needs feature_groups: conditional explanations are "
                "computed by marginal averaging over groups assumed independent (Lemma 4.7 of "
                "the paper). Group dependent features together, or use method='shapley'."
            )
        if self.feature_groups is None:
            return [np.array([j]) for j in range(len(column_names))], column_names
        if isinstance(self.feature_groups, dict):
            listed = list(self.feature_groups.items())
        else:
            listed = [(None, members) for members in self.feature_groups]
        owner = np.full(len(column_names), -1)
        players, names = [], []
        for name, members in listed:
            members = [members] if isinstance(members, (str, Integral)) else list(members)
            positions = np.array([_column_position(m, column_names) for m in members], dtype=int)
            if len(positions) == 0:
                raise ValueError("feature_groups contains an empty group.")
            taken = owner[positions] >= 0
            if taken.any():
                raise ValueError(
                    f"Column {column_names[positions[taken][0]]!r} is in more than one feature "
                    "group; groups must not overlap."
                )
            owner[positions] = len(players)
            players.append(positions)
            names.append(name if name is not None else "+".join(column_names[p] for p in positions))
        for j in np.flatnonzero(owner < 0):
            players.append(np.array([j]))
            names.append(column_names[j])
        if self.method == "conditional":
            self._warn_dependent_groups(X_model, players)
        return players, names

    def _warn_dependent_groups(self, X_model, players):
        from skfair.explain._games import factorize_columns

        codes, _ = factorize_columns(RowPool(X_model, X_model))
        ranks = rankdata(codes, axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            rho = np.corrcoef(ranks, rowvar=False)
        rho = np.atleast_2d(np.nan_to_num(rho))
        owner = np.empty(codes.shape[1], dtype=int)
        for k, columns in enumerate(players):
            owner[columns] = k
        cross = owner[:, None] != owner[None, :]
        if (np.abs(rho[cross]) > _CROSS_GROUP_RHO).any():
            warnings.warn(
                f"Features in different feature_groups have |Spearman rho| > "
                f"{_CROSS_GROUP_RHO}; method='conditional' assumes the groups are independent "
                "(Lemma 4.7). Consider merging dependent features into one group.",
                UserWarning,
                stacklevel=4,
            )

    # ----------------------------------------------------------------------------------------
    # games

    def _explain(self, game, pair, model_parts, rng, trees):
        n_players = len(game.players)
        if self.method == "pdp":
            self.shapley_method_, self.n_permutations_, self.bias_game_ = None, None, None
            attributions = self._singletons(game)
            self.n_coalitions_ = n_players
            return self._finish(attributions, pair, None)
        if self.n_permutations == "exact" or (
            self.n_permutations == "auto" and n_players <= _AUTO_EXACT_PLAYERS
        ):
            if n_players > MAX_EXACT_PLAYERS:
                raise ValueError(
                    f"Exact enumeration of 2**{n_players} coalitions is not feasible; use "
                    "n_permutations='auto' or an int, or group features with feature_groups."
                )
            self._announce_cost(game, trees, 2**n_players - 2, "exact enumeration")
            return self._explain_exact(game, pair, model_parts, trees)
        n_permutations = (
            _AUTO_PERMUTATIONS if self.n_permutations == "auto" else self.n_permutations
        )
        self._announce_cost(
            game, trees, n_permutations * (n_players - 1), f"{n_permutations} permutations"
        )
        return self._explain_permutation(game, pair, model_parts, n_permutations, rng, trees)

    def _announce_cost(self, game, trees, n_coalitions, mode):
        """Report the planned work (``verbose``); warn up front when it is large.

        The model sees at most ``n_coalitions x n_eval x n_background`` hybrid rows (fewer
        on discrete features, whose coalitions are evaluated on distinct rows only); scores
        read from the trees need none.
        """
        n_players = len(game.players)
        if trees is not None and self.method == "shapley":
            if self.verbose:
                print(f"BiasExplainer: {n_players} players, Shapley values read from the trees.")
            return
        n_rows = n_coalitions * game.pool.n_eval * game.pool.n_background
        plan = (
            f"{n_players} players, {mode}: {n_coalitions} coalitions x {game.pool.n_eval} "
            f"rows x {game.pool.n_background} background rows = up to {n_rows:.3g} hybrid rows "
            "scored by the model"
        )
        if self.verbose:
            print(f"BiasExplainer: {plan}.")
        if n_rows > _WARN_HYBRID_ROWS:
            warnings.warn(
                f"BiasExplainer will evaluate {plan}; this can take minutes. To make it "
                "cheaper, lower n_background, explain fewer rows, group features "
                "(feature_groups), use n_permutations=<int> or method='pdp'.",
                UserWarning,
                stacklevel=5,
            )

    def _singletons(self, game):
        n_players = len(game.players)
        masks = np.eye(n_players, dtype=bool)
        values = self._parallel(
            delayed(game.values)(masks[chunk])
            for chunk in _fixed_chunks(np.arange(n_players), _PLAYERS_PER_TASK)
        )
        return np.vstack(values).T

    def _parallel(self, tasks):
        return Parallel(n_jobs=self.n_jobs, verbose=self.verbose)(tasks)

    def _exact_model_game(self, game, pair, membership, weights, middle, choice_a):
        """Evaluate the model game on every coalition; batches run in parallel.

        Returns the per-row Shapley values, the singleton games (choice (a)) and the bias-game
        parts of the middle coalitions (choice (a)).
        """
        n_players = membership.shape[1]
        singleton_of = {1 << j: j for j in range(n_players)}
        batches = _fixed_chunks(middle, _COALITIONS_PER_TASK)
        results = self._parallel(
            delayed(_exact_batch)(
                game,
                membership[batch],
                weights[batch],
                pair,
                choice_a,
                [(k, singleton_of[c]) for k, c in enumerate(batch) if c in singleton_of]
                if choice_a
                else [],
            )
            for batch in batches
        )
        # phi = V @ W over all coalitions; v({}) and v(N) = f(x) are known without model calls.
        phi = game.empty_value * weights[0] + np.outer(game.full_value, weights[-1])
        singletons = {n_players - 1: game.full_value} if n_players == 1 else {}
        bias_game = np.zeros((len(middle), 2))
        offset = 0
        for batch, (partial_phi, parts, batch_singletons) in zip(batches, results, strict=True):
            phi += partial_phi
            singletons.update(batch_singletons)
            bias_game[offset : offset + len(batch)] = parts
            offset += len(batch)
        return phi, singletons, bias_game

    def _explain_exact(self, game, pair, model_parts, trees):
        n_players = len(game.players)
        membership = coalition_membership(n_players)
        weights = shapley_weight_matrix(n_players)
        n_coalitions = 2**n_players
        middle = np.arange(1, n_coalitions - 1)
        choice_a = self.method != "shapley"
        bias_game = np.zeros((n_coalitions, 2))
        bias_game[-1] = model_parts
        table = trees.table() if trees is not None and choice_a else None
        phi = trees.shapley_values() if trees is not None and not choice_a else None
        if table is not None:
            # The whole game from the trees: singletons and bias games without model calls.
            singletons = {j: table[:, 1 << j] for j in range(n_players)}
            for start in range(1, n_coalitions - 1, _BIAS_GAME_CHUNK):
                chunk = np.arange(start, min(start + _BIAS_GAME_CHUNK, n_coalitions - 1))
                bias_game[chunk] = np.column_stack(pair.parts(table[:, chunk]))
            self.n_coalitions_ = 0
        elif phi is not None:
            self.n_coalitions_ = 0
        else:
            phi, singletons, model_bias_game = self._exact_model_game(
                game, pair, membership, weights, middle, choice_a
            )
            if choice_a:
                bias_game[middle] = model_bias_game
            self.n_coalitions_ = len(middle)
        if choice_a:
            attributions = np.column_stack([singletons[j] for j in range(n_players)])
        else:
            attributions = phi
            # Choice (b): E(S) = sum_{j in S} phi_j; no further model calls.
            for start in range(1, n_coalitions - 1, _BIAS_GAME_CHUNK):
                chunk = np.arange(start, min(start + _BIAS_GAME_CHUNK, n_coalitions - 1))
                positive, negative = pair.parts(phi @ membership[chunk].T)
                bias_game[chunk] = np.column_stack([positive, negative])
        self.shapley_method_, self.n_permutations_ = "exact", None
        self.bias_game_ = Bunch(
            coalitions=np.arange(n_coalitions), **w1_named_parts(bias_game[:, 0], bias_game[:, 1])
        )
        shapley = bias_game.T @ weights  # (2, n_players): phi[v^{bias+}], phi[v^{bias-}]
        return self._finish(attributions, pair, shapley)

    def _explain_permutation(self, game, pair, model_parts, n_permutations, rng, trees):
        n_players = len(game.players)
        orders, units = sample_permutations(n_players, n_permutations, rng)
        choice_a = self.method != "shapley"
        phi = trees.shapley_values() if trees is not None and not choice_a else None
        if phi is None:
            chunks = _fixed_chunks(np.arange(n_permutations), _PERMUTATIONS_PER_TASK)
            results = self._parallel(
                delayed(_permutation_chunk)(game, orders[chunk], pair, model_parts, choice_a)
                for chunk in chunks
            )
            phi_sum = np.zeros_like(results[0][0])
            for chunk_sum, _ in results:  # in chunk order, whatever n_jobs
                phi_sum += chunk_sum
            phi = phi_sum / n_permutations
            self.n_coalitions_ = n_permutations * (n_players - 1)
        else:
            self.n_coalitions_ = 0
        if choice_a:
            contributions = np.concatenate([c for _, c in results])
            attributions = self._singletons(game)
        else:
            attributions = phi
            contributions = np.empty((n_permutations, n_players, 2))
            for m, order in enumerate(orders):
                # E(S_k) = sum of the first k players' phi, sampled along the same orders.
                prefix_sums = np.cumsum(phi[:, order], axis=1)[:, :-1]
                positive, negative = pair.parts(prefix_sums)
                prefix_parts = np.vstack(
                    [[0.0, 0.0], np.column_stack([positive, negative]), model_parts]
                )
                contributions[m] = permutation_contributions(prefix_parts[None], order[None])[0]
        self.shapley_method_, self.n_permutations_ = "permutation", n_permutations
        self.bias_game_ = None
        shapley = contributions.mean(axis=0).T
        stderr = unit_standard_error(contributions, units)  # (n_players, 2)
        explanations = self._finish(attributions, pair, shapley)
        total_contributions = contributions.sum(axis=2)
        net_contributions = contributions[:, :, 0] - contributions[:, :, 1]
        explanations.update(
            shapley_total_stderr=unit_standard_error(total_contributions, units),
            shapley_positive_stderr=stderr[:, 0],
            shapley_negative_stderr=stderr[:, 1],
            shapley_net_stderr=unit_standard_error(net_contributions, units),
        )
        return explanations

    def _finish(self, attributions, pair, shapley):
        self.attributions_ = attributions
        positive, negative = pair.parts(attributions)
        explanations = w1_named_parts(positive, negative)
        if shapley is not None:
            for part, values in w1_named_parts(shapley[0], shapley[1]).items():
                explanations[f"shapley_{part}"] = values
        return explanations


_IN_MEMORY = refuse(
    "the explanations evaluate the model on coalitions of features of the rows, which are "
    "compared across groups as a whole.",
    "Explain an in-memory sample of rows (e.g. ddf.sample(frac=0.01).compute()); the "
    "coalitions can run on a cluster through joblib's dask backend "
    "(with joblib.parallel_backend('dask')).",
)


@validate_params(
    {
        "estimator": BiasExplainer._parameter_constraints["estimator"],
        "X": ["array-like"],
        "y": ["array-like", None],
        "sensitive_features": [*SENSITIVE_FEATURES_CONSTRAINT, None],
        "sample_weight": ["array-like", None],
    },
    # False: the BiasExplainer built from **params must still validate them.
    prefer_skip_nested_validation=False,
)
@shared
def explain_bias(estimator, X, y=None, *, sensitive_features=None, sample_weight=None, **params):
    """Functional form of :class:`BiasExplainer`.

    Fits ``BiasExplainer(estimator, **params)`` on ``X`` and returns its results in a Bunch.

    Parameters
    ----------
    estimator : estimator object
        A fitted model.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Rows to explain.
    y : None
        Ignored.
    sensitive_features : array-like of shape (n_samples,), default=None
        Group of each row (two groups), when ``sensitive_column`` is not among ``params``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the evaluation rows.
    **params : dict
        Parameters of :class:`BiasExplainer`.

    Returns
    -------
    Bunch
        ``bias``, ``explanations``, ``attributions``, ``names``, ``privileged_group``,
        ``protected_group``, ``sign``, ``method``, ``shapley_method``, ``n_permutations``,
        ``eval_index``, ``background`` and the fitted ``explainer``.

    See Also
    --------
    BiasExplainer : The estimator form, to reuse the fitted explainer.
    skfair.plotting.BiasExplanationDisplay : Bar and waterfall plots of the explanations.

    {references_miroshnikov}

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression
    >>> from skfair.explain import explain_bias
    >>> X = [[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]]
    >>> model = LinearRegression().fit(X, [0.0, 1.0, 2.0, 3.0])
    >>> result = explain_bias(model, X, sensitive_features=[0, 0, 1, 1], privileged_group=1)
    >>> float(round(result.bias.net, 6)), result.names.tolist()
    (2.0, ['x0', 'x1'])
    """
    explainer = BiasExplainer(estimator, **params).fit(
        X, y, sensitive_features=sensitive_features, sample_weight=sample_weight
    )
    return Bunch(
        bias=explainer.bias_,
        explanations=explainer.explanations_,
        attributions=explainer.attributions_,
        names=explainer.explanations_.names,
        privileged_group=explainer.privileged_group_,
        protected_group=explainer.protected_group_,
        sign=explainer.sign_,
        method=explainer.method,
        shapley_method=explainer.shapley_method_,
        n_permutations=explainer.n_permutations_,
        eval_index=explainer.eval_index_,
        background=explainer.background_,
        explainer=explainer,
    )


def _fixed_chunks(items, size):
    """``items`` in consecutive chunks of ``size`` (the last one shorter)."""
    return [items[start : start + size] for start in range(0, len(items), size)]


def _parts_bunch(positive, negative):
    return Bunch(
        **{part: float(value) for part, value in w1_named_parts(positive, negative).items()}
    )


def _take_rows(X, rows):
    if hasattr(X, "iloc"):
        return X.iloc[rows].reset_index(drop=True)
    return X[rows]


def _column_position(member, column_names):
    if isinstance(member, str):
        if member not in column_names:
            raise ValueError(
                f"feature_groups names column {member!r}, which is not a model input column "
                f"{column_names}."
            )
        return column_names.index(member)
    position = int(member)
    if not -len(column_names) <= position < len(column_names):
        raise ValueError(
            f"feature_groups position {position} is out of range for {len(column_names)} columns."
        )
    return position % len(column_names)
