"""The exact marginal game of tree-ensemble scores and its Shapley values, without hybrid rows.

The marginal game over a background, ``v(S; x) = (1/K) sum_k f(x_S, b^(k)_{-S})``, of a score
read from trees, ``f = link(baseline + sum of weighted leaf values)``, is computed from the
trees. For a leaf reached through conditions on a set of players, a pair ``(x, b)`` splits
those players into ``A`` (only ``x`` satisfies the player's conditions), ``B`` (only ``b``
does) and the rest (both do); if neither satisfies some player's conditions, the leaf is
never reached. The hybrid row ``(x_S, b_{-S})`` reaches the leaf exactly when
``A ⊆ S`` and ``B ∩ S = {}``.

* **Additive scores** (no link: raw scores of gradient boosting, probabilities of random
  forests). The game is a sum over trees, leaves and background rows of leaf games
  ``value * 1[A ⊆ S, B ∩ S = {}]``, whose Shapley values have the closed form
  ``value (|A|-1)! |B|! / (|A|+|B|)!`` for players in ``A`` and
  ``-value |A|! (|B|-1)! / (|A|+|B|)!`` for players in ``B`` (interventional TreeSHAP,
  Lundberg et al. 2020). Patterns of ``x`` and of ``b`` are enumerated per leaf, so the cost
  is about (leaves x evaluation rows x path length).
* **Scores behind a link** (probabilities of gradient boosting: a sigmoid of the sum). The
  link does not split over trees, so the raw score of every hybrid is needed:
  ``g(S) = sum over reached leaves of value * 1[A ⊆ S] * 1[B ∩ S = {}]`` for every pair and
  every coalition. Each reached leaf enters through its Möbius coefficients,
  ``1[A ⊆ S] 1[B ∩ S = {}] = sum_{C ⊆ B} (-1)^{|C|} 1[A ∪ C ⊆ S]``, and one subset-sum
  (zeta) transform per pair gives ``g`` on all ``2**p`` coalitions at once. The cost is about
  (reached leaves x 2^|B| + p 2^p) per pair instead of ``2**p`` model evaluations of every
  tree, and the result is the same game as the generic path's, to rounding. The same tables
  give the whole game ``v(S; x)``, which the choice-(a) methods (``"marginal"``,
  ``"conditional"``) need on every coalition, for additive scores too.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from math import factorial

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import is_classifier

from skfair.explain import _tree_adapters as adapters
from skfair.explain._shapley import shapley_weight_matrix

# Above this many players on one leaf's path, x patterns are found with np.unique instead of a
# table over all 2^m patterns.
_MAX_PATTERN_TABLE = 12
# Coalition tables (scores behind a link, and the choice-(a) methods): the largest number of
# players (a table of 2**p raw scores per pair of an evaluation and a background row), and the
# cells held at once (pairs x coalitions, and pairs x leaves) in one block.
MAX_TABLE_PLAYERS = 14
_TABLE_BLOCK_CELLS = 2**21
_TABLE_LEAF_CELLS = 2**22
# Largest full game table (evaluation rows x coalitions) held for the choice-(a) methods.
_MAX_TABLE_CELLS = 2**26


@dataclass(frozen=True)
class _Tree:
    """One tree in flat arrays, with the weight of its output in the model's score."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    is_leaf: np.ndarray
    missing_go_to_left: np.ndarray
    value: np.ndarray  # the score contribution of each leaf
    weight: float
    dtype: type  # the type the model compares features in
    # Categorical splits (HistGradientBoosting): the nodes, and for each a table over the
    # category codes 0-255 of whether the code goes left.
    categorical_nodes: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.intp))
    category_goes_left: np.ndarray = field(default_factory=lambda: np.empty((0, 256), dtype=bool))


@dataclass(frozen=True)
class TreeScore:
    """A score read from trees: ``link(baseline + sum of weighted leaf values)``."""

    trees: list
    link: Callable | None = None  # None: the score is the sum of the leaf values itself
    baseline: float = 0.0
    # The model's own input preparation (X -> float array of the columns the trees split on)
    # and the input column of each of those columns (None: the same columns).
    prepare: Callable = partial(np.asarray, dtype=np.float64)
    input_column: np.ndarray | None = None


def tree_score(estimator, response):
    """How the score ``response`` reads from the model's trees, or None when it does not.

    Supported, as sums of leaf values: the raw score of HistGradientBoosting
    (``decision_function`` of a binary classifier, ``predict`` of an identity-link regressor)
    and of GradientBoosting (binary ``decision_function``, regressor ``predict``);
    ``predict_proba`` of a single-output decision tree, random forest or extra-trees
    classifier (a mean of per-tree class fractions); ``predict`` of those regressors.
    Behind a link: ``predict_proba`` of binary (Hist)GradientBoosting classifiers,
    ``predict`` of HistGradientBoosting regressors with a non-identity link (Poisson, gamma).
    GradientBoosting needs its default ``init`` (an init estimator adds a raw score that
    depends on x outside the trees). HistGradientBoosting's categorical splits are read
    with the model's own rule, after the model's own encoding of pandas categoricals.

    Each model family has one adapter; the private attributes they need are read through
    :mod:`skfair.explain._tree_adapters`. If scikit-learn has changed one of them, a warning
    says so and None is returned: the explainer then takes its generic path (the same values,
    from model evaluations on hybrid rows, only slower).
    """
    adapter = _adapter(estimator)
    if adapter is None:
        return None
    try:
        return adapter(estimator, response.method, response.column)
    except adapters.INTERNALS_CHANGED as exc:
        warnings.warn(
            f"The trees of {type(estimator).__name__} could not be read (scikit-learn's "
            f"internal attributes have changed: {exc!r}); the explanation is computed from "
            "model evaluations instead, with the same values but more slowly.",
            UserWarning,
            stacklevel=2,
        )
        return None


def _adapter(estimator):
    """The reader of ``estimator``'s model family, or None for an unsupported model."""
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        ExtraTreesRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        HistGradientBoostingClassifier,
        HistGradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    families = (
        ((HistGradientBoostingClassifier, HistGradientBoostingRegressor), _hist_gradient_boosting),
        ((GradientBoostingClassifier, GradientBoostingRegressor), _gradient_boosting),
        ((DecisionTreeClassifier, RandomForestClassifier, ExtraTreesClassifier), _forest),
        ((DecisionTreeRegressor, RandomForestRegressor, ExtraTreesRegressor), _forest),
    )
    for classes, adapter in families:
        if isinstance(estimator, classes):
            return adapter
    return None


def _boosting_explains(estimator, method):
    """Whether a boosted model's raw score gives ``method``: ``predict`` of a regressor,
    ``decision_function`` or ``predict_proba`` of a binary classifier."""
    classifier = is_classifier(estimator)
    if classifier and len(estimator.classes_) != 2:
        return False
    return method in (("decision_function", "predict_proba") if classifier else ("predict",))


def _hist_gradient_boosting(estimator, method, column):
    if not _boosting_explains(estimator, method):
        return None
    classifier = is_classifier(estimator)
    trees = _hist_trees(estimator)
    baseline = adapters.hist_baseline(estimator)
    inputs = _hist_inputs(estimator)
    if method == "predict_proba":
        link = _class_probability(adapters.loss_inverse_link(estimator), column)
        return TreeScore(trees, link, baseline, **inputs)
    if classifier or adapters.loss_link_is_identity(estimator):
        return TreeScore(trees, baseline=baseline, **inputs)
    return TreeScore(trees, adapters.loss_inverse_link(estimator), baseline, **inputs)


def _gradient_boosting(estimator, method, column):
    if not (estimator.init is None or estimator.init == "zero"):
        return None  # an init estimator makes the baseline depend on x
    if not _boosting_explains(estimator, method):
        return None
    trees = [
        _sklearn_tree(tree.tree_, None, estimator.learning_rate)
        for tree in estimator.estimators_[:, 0]
    ]
    baseline = adapters.gradient_boosting_baseline(estimator)
    if method == "predict_proba":
        link = _class_probability(adapters.loss_inverse_link(estimator), column)
        return TreeScore(trees, link, baseline)
    return TreeScore(trees, baseline=baseline)


def _forest(estimator, method, column):
    """Single trees and bagged forests: the mean of the trees' leaf values (public
    attributes only)."""
    classifier = is_classifier(estimator)
    if method != ("predict_proba" if classifier else "predict") or estimator.n_outputs_ != 1:
        return None
    members = getattr(estimator, "estimators_", [estimator])
    column = column if classifier else None
    return TreeScore(
        [_sklearn_tree(member.tree_, column, 1.0 / len(members)) for member in members]
    )


def _positive_class(inverse_link, raw):
    return inverse_link(raw)


def _negative_class(inverse_link, raw):
    # scikit-learn's binary predict_proba: column 0 is 1 - column 1.
    return 1.0 - inverse_link(raw)


def _class_probability(inverse_link, column):
    return partial(_positive_class if column == 1 else _negative_class, inverse_link)


def _hist_trees(estimator):
    """The trees of a HistGradientBoosting model (one per iteration), categorical splits too."""
    known_bitsets, known_index = adapters.hist_known_category_bitsets(estimator)
    trees = []
    for predictor in adapters.hist_predictors(estimator):
        nodes = predictor.nodes
        feature = nodes["feature_idx"].astype(np.intp)
        missing_go_to_left = nodes["missing_go_to_left"].astype(bool)
        categorical = np.flatnonzero(nodes["is_categorical"] & ~nodes["is_leaf"].astype(bool))
        # scikit-learn's rule: categories in the node's bitset go left, other known
        # categories go right, and unknown ones follow missing values (_predictor.pyx).
        goes_left = _in_bitset(predictor.raw_left_cat_bitsets[nodes["bitset_idx"][categorical]])
        known = _in_bitset(known_bitsets[known_index[feature[categorical]]])
        category_goes_left = np.where(known, goes_left, missing_go_to_left[categorical, None])
        trees.append(
            _Tree(
                feature=feature,
                threshold=nodes["num_threshold"],
                left=nodes["left"].astype(np.intp),
                right=nodes["right"].astype(np.intp),
                is_leaf=nodes["is_leaf"].astype(bool),
                missing_go_to_left=missing_go_to_left,
                value=nodes["value"],
                weight=1.0,
                dtype=np.float64,
                categorical_nodes=categorical,
                category_goes_left=category_goes_left,
            )
        )
    return trees


def _in_bitset(bitsets):
    """(n, 256) bool from (n, 8) uint32 bitsets: whether each code 0-255 is in the set."""
    codes = np.arange(256)
    return ((bitsets[:, codes // 32] >> (codes % 32).astype(np.uint32)) & 1).astype(bool)


def _hist_inputs(estimator):
    """The model's input preparation, for models that encode pandas categoricals themselves."""
    prepare = adapters.hist_input_preparation(estimator)
    if prepare is None:
        return {}
    # The model's ColumnTransformer puts the encoded categorical columns first.
    is_categorical = np.asarray(estimator.is_categorical_, dtype=bool)
    input_column = np.concatenate([np.flatnonzero(is_categorical), np.flatnonzero(~is_categorical)])
    return {"prepare": prepare, "input_column": input_column}


def _sklearn_tree(tree, column, weight):
    value = tree.value[:, 0, :]
    # A classifier leaf predicts its class fractions (predict_proba normalises them).
    value = value[:, 0] if column is None else value[:, column] / value.sum(axis=1)
    is_leaf = tree.children_left < 0
    return _Tree(
        feature=np.where(is_leaf, 0, tree.feature).astype(np.intp),
        threshold=tree.threshold,
        left=tree.children_left.astype(np.intp),
        right=tree.children_right.astype(np.intp),
        is_leaf=is_leaf,
        missing_go_to_left=np.asarray(
            getattr(tree, "missing_go_to_left", np.zeros(tree.node_count)), dtype=bool
        ),
        value=value,
        weight=weight,
        dtype=np.float32,  # sklearn's trees compare float32 features
    )


class TreeGame:
    """The marginal game of a score read from trees, computed from the trees.

    Build it with :meth:`from_model`, which returns None when the model or the response is not
    supported (see :func:`tree_score`) or the inputs are not numeric. ``ends = (v(empty),
    v(N; x))`` are the game's end values as the generic path computes them, used as given by
    the coalition tables so that Shapley values add up to them exactly.
    """

    def __init__(self, score, player_of, X, B, n_players, *, negate, ends, n_jobs):
        self.score = score
        self.player_of = player_of  # the player of each column the trees split on
        self.X, self.B = X, B
        self.n_players = n_players
        self.negate = negate
        self.ends = ends
        self.n_jobs = n_jobs

    @classmethod
    def from_model(cls, estimator, response, X_eval, background, players, *, ends, n_jobs=None):
        score = tree_score(estimator, response)
        if score is None:
            return None
        try:
            X = np.asarray(score.prepare(X_eval), dtype=np.float64)
            B = np.asarray(score.prepare(background), dtype=np.float64)
        except (TypeError, ValueError):
            return None
        player_of = np.empty(np.shape(X_eval)[1], dtype=np.intp)
        for k, columns in enumerate(players):
            player_of[columns] = k
        if score.input_column is not None:
            player_of = player_of[score.input_column]
        return cls(
            score, player_of, X, B, len(players), negate=response.negate, ends=ends, n_jobs=n_jobs
        )

    @cached_property
    def conditions(self):
        """The leaf conditions of every tree; enumerated only when a game is computed (a
        ``method="pdp"`` explainer never needs them)."""
        return [list(_leaf_conditions(tree, self.player_of)) for tree in self.score.trees]

    def shapley_values(self):
        """Per-row Shapley values (n_eval, n_players), or None when not tabulable."""
        if self.score.link is None:
            factorials = np.array([float(factorial(k)) for k in range(self.n_players + 2)])
            phi = np.zeros((self.X.shape[0], self.n_players))
            for tree, tree_conditions in zip(self.score.trees, self.conditions, strict=True):
                _add_tree(phi, tree, tree_conditions, self.X, self.B, factorials)
            return -phi if self.negate else phi
        if self.n_players > MAX_TABLE_PLAYERS:
            return None
        return self._coalition_tables(shapley_weight_matrix(self.n_players))

    def table(self):
        """The game ``v(S; x)`` on every coalition (n_eval, 2**p), or None when too large."""
        if (
            self.n_players > MAX_TABLE_PLAYERS
            or self.X.shape[0] * 2**self.n_players > _MAX_TABLE_CELLS
        ):
            return None
        return self._coalition_tables(None)

    def _coalition_tables(self, weights):
        """Game tables over coalitions, by blocks of rows; ``@ weights`` when given."""
        leaves = [
            (tree_index, leaf)
            for tree_index, tree_conditions in enumerate(self.conditions)
            for leaf in tree_conditions
            if leaf.players.size
        ]
        # Root leaves reach every hybrid: constants of the raw score.
        raw_constant = self.score.baseline + sum(
            leaf.value
            for tree_conditions in self.conditions
            for leaf in tree_conditions
            if not leaf.players.size
        )
        codes_b = _player_codes(self.score.trees, leaves, self.B)
        empty_value, full_value = self.ends
        n_eval = self.X.shape[0]
        # Each task computes the player codes of its rows (n_rows x leaves), so tasks are sized
        # to bound that memory as well as to spread the work.
        rows_per_task = max(1, _TABLE_LEAF_CELLS // max(len(leaves), 1))
        n_tasks = min(max(-(-n_eval // rows_per_task), 4 * effective_n_jobs(self.n_jobs)), n_eval)
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(_table_task)(
                self.score,
                leaves,
                self.X[rows],
                codes_b,
                raw_constant,
                self.n_players,
                self.negate,
                (empty_value, full_value[rows]),
                weights,
            )
            for rows in np.array_split(np.arange(n_eval), n_tasks)
        )
        return np.vstack(results)


def _goes_left(tree, X):
    """(n_rows, n_nodes) bool: whether a row goes left at each node (the models' rule)."""
    values = X.astype(tree.dtype, copy=False)[:, tree.feature]
    with np.errstate(invalid="ignore"):
        goes_left = np.where(np.isnan(values), tree.missing_go_to_left, values <= tree.threshold)
    if tree.categorical_nodes.size:
        categories = values[:, tree.categorical_nodes]
        # Negative and missing codes follow missing values; codes are truncated to integers.
        valid = (categories >= 0) & (categories < 256)
        codes = np.where(valid, categories, 0).astype(np.intp)
        by_code = np.take_along_axis(tree.category_goes_left.T, codes, axis=0)
        goes_left[:, tree.categorical_nodes] = np.where(
            valid, by_code, tree.missing_go_to_left[tree.categorical_nodes]
        )
    return goes_left


@dataclass(frozen=True)
class _LeafCondition:
    """The path to one leaf, its nodes sorted by player, and the leaf's weighted value."""

    value: float
    nodes: np.ndarray
    went_left: np.ndarray
    starts: np.ndarray  # where each player's nodes start in ``nodes``
    players: np.ndarray  # the players on the path, sorted

    def satisfied(self, goes_left):
        """(n_rows, n_path_players) bool: a player is satisfied when all its conditions hold."""
        return np.logical_and.reduceat(
            goes_left[:, self.nodes] == self.went_left, self.starts, axis=1
        )


def _leaf_conditions(tree, player_of):
    """Yield a :class:`_LeafCondition` for every leaf of a tree with a non-zero value."""
    stack = [(0, [], [])]
    while stack:
        node, path, directions = stack.pop()
        if not tree.is_leaf[node]:
            stack.append((tree.right[node], [*path, node], [*directions, False]))
            stack.append((tree.left[node], [*path, node], [*directions, True]))
            continue
        value = tree.weight * tree.value[node]
        if value == 0.0:
            continue
        path = np.array(path, dtype=np.intp)
        path_players = player_of[tree.feature[path]]
        order = np.argsort(path_players, kind="stable")
        players, starts = np.unique(path_players[order], return_index=True)
        yield _LeafCondition(
            value, path[order], np.array(directions, dtype=bool)[order], starts, players
        )


def _add_tree(phi, tree, conditions, X, B, factorials):
    left_x = _goes_left(tree, X)
    left_b = _goes_left(tree, B)
    n_background = B.shape[0]
    for leaf in conditions:
        if leaf.players.size == 0:
            continue  # a root leaf is a constant: no player moves it
        n_leaf_players = leaf.players.size
        powers = 1 << np.arange(n_leaf_players)
        b_codes, b_counts = np.unique(leaf.satisfied(left_b) @ powers, return_counts=True)
        b_patterns = (b_codes[:, None] & powers) > 0  # (n_b, m)
        x_codes = leaf.satisfied(left_x) @ powers
        if n_leaf_players <= _MAX_PATTERN_TABLE:
            x_patterns = (np.arange(2**n_leaf_players)[:, None] & powers) > 0
            x_index = x_codes
        else:
            present, x_index = np.unique(x_codes, return_inverse=True)
            x_patterns = (present[:, None] & powers) > 0
        table = _leaf_shapley(x_patterns, b_patterns, b_counts / n_background, factorials)
        phi[:, leaf.players] += leaf.value * table[x_index]


def _leaf_shapley(x_patterns, b_patterns, b_shares, factorials):
    """Shapley values (n_x, m) of the leaf game, averaged over background patterns."""
    x = x_patterns[:, None, :]
    b = b_patterns[None, :, :]
    reachable = (x | b).all(axis=2)  # (n_x, n_b)
    only_x = x & ~b
    only_b = ~x & b
    a = only_x.sum(axis=2)
    c = only_b.sum(axis=2)
    # (|A|-1)! |B|! / (|A|+|B|)! and |A|! (|B|-1)! / (|A|+|B|)!, used only where A resp. B is
    # not empty (the index is clipped elsewhere).
    weight_x = factorials[np.maximum(a - 1, 0)] * factorials[c] / factorials[a + c]
    weight_b = factorials[a] * factorials[np.maximum(c - 1, 0)] / factorials[a + c]
    share = reachable * b_shares[None, :]
    values = only_x * (share * weight_x)[:, :, None] - only_b * (share * weight_b)[:, :, None]
    return values.sum(axis=1)


# ---------------------------------------------------------------------------------------------
# Coalition tables: the raw score of every hybrid, as a table over coalitions per pair.


def _player_codes(trees, leaves, X):
    """(n_rows, n_leaves) int16: bitmask of the players whose conditions a row satisfies."""
    codes = np.empty((X.shape[0], len(leaves)), dtype=np.int16)
    current_tree = None
    for k, (tree_index, leaf) in enumerate(leaves):
        if tree_index != current_tree:  # leaves come tree by tree
            current_tree, goes_left = tree_index, _goes_left(trees[tree_index], X)
        codes[:, k] = leaf.satisfied(goes_left) @ (1 << leaf.players)
    return codes


def _table_task(score, leaves, X, codes_b, raw_constant, n_players, negate, ends, weights):
    """Game tables over coalitions for the rows of X; ``@ weights`` when given."""
    codes_x = _player_codes(score.trees, leaves, X)
    path_players = np.array([(1 << leaf.players).sum() for _, leaf in leaves], dtype=np.int16)
    values = np.array([leaf.value for _, leaf in leaves])
    game = _coalition_games(
        codes_x, codes_b, path_players, values, raw_constant, score.link, n_players
    )
    if negate:
        game = -game
    game[:, 0], game[:, -1] = ends  # v(empty) and v(N) as the generic path defines them
    return game if weights is None else game @ weights


def _coalition_games(codes_x, codes_b, path_players, values, raw_constant, link, n_players):
    """``v(S; x) = mean_b link(g(x_S, b_{-S}))`` for every row of ``codes_x`` and coalition.

    The raw score ``g`` of the pair ``(x, b)`` on every coalition is the subset sum of its
    Möbius coefficients: a reached leaf with players ``A`` (only x satisfies) and ``B`` (only
    b does) adds ``(-1)^{|C|} value`` at ``A ∪ C`` for every ``C ⊆ B``.
    """
    n_rows, n_background = codes_x.shape[0], codes_b.shape[0]
    n_coalitions = 2**n_players
    subsets = _subset_table(n_players)
    low_bits = n_players // 2
    zeta_low = _zeta_matrix(low_bits)
    zeta_high_t = _zeta_matrix(n_players - low_bits).T
    background_chunk = max(1, min(n_background, _TABLE_BLOCK_CELLS // n_coalitions))
    rows_per_block = max(1, _TABLE_BLOCK_CELLS // (background_chunk * n_coalitions))
    leaves_per_block = max(1, _TABLE_LEAF_CELLS // (rows_per_block * background_chunk))
    games = np.zeros((n_rows, n_coalitions))
    for row_start in range(0, n_rows, rows_per_block):
        x_block = codes_x[row_start : row_start + rows_per_block]
        for b_start in range(0, n_background, background_chunk):
            b_block = codes_b[b_start : b_start + background_chunk]
            n_pairs = x_block.shape[0] * b_block.shape[0]
            mobius = np.zeros(n_pairs * n_coalitions)
            for leaf_start in range(0, len(values), leaves_per_block):
                leaf_block = slice(leaf_start, leaf_start + leaves_per_block)
                mobius += _leaf_mobius(
                    x_block[:, leaf_block],
                    b_block[:, leaf_block],
                    path_players[leaf_block],
                    values[leaf_block],
                    subsets,
                    n_pairs * n_coalitions,
                )
            raw = mobius.reshape(n_pairs, 2 ** (n_players - low_bits), 2**low_bits)
            # Subset sums over the low and the high bits of the coalition index.
            raw = np.matmul(zeta_high_t, raw @ zeta_low).reshape(n_pairs, n_coalitions)
            raw += raw_constant
            scores = raw if link is None else link(raw)
            scores = scores.reshape(x_block.shape[0], b_block.shape[0], n_coalitions)
            games[row_start : row_start + x_block.shape[0]] += scores.sum(axis=1)
    return games / n_background


def _leaf_mobius(codes_x, codes_b, path_players, values, subsets, size):
    """Möbius coefficients (flattened pairs x coalitions) of the leaves reached by each pair."""
    n_background = codes_b.shape[0]
    reached = (codes_x[:, None, :] | codes_b[None, :, :]) == path_players
    x_index, b_index, leaf_index = np.nonzero(reached)
    code_x = codes_x[x_index, leaf_index]
    code_b = codes_b[b_index, leaf_index]
    only_x = code_x & ~code_b
    only_b = code_b & ~code_x
    offset = (x_index * n_background + b_index) * subsets.n_coalitions + only_x
    value = values[leaf_index]
    size_b = subsets.popcount[only_b]
    indices, weights = [], []
    for k in range(int(size_b.max(initial=-1)) + 1):
        selected = np.flatnonzero(size_b == k)
        if selected.size:
            members = subsets.members[k][subsets.rank[only_b[selected]]]  # (n, 2^k)
            indices.append((offset[selected, None] + members).ravel())
            weights.append((value[selected, None] * subsets.signs[k]).ravel())
    if not indices:
        return np.zeros(size)
    return np.bincount(np.concatenate(indices), np.concatenate(weights), minlength=size)


@dataclass(frozen=True)
class _SubsetTable:
    """For every coalition mask: its popcount, its rank among masks of that popcount, and
    (per popcount k) the 2^k subsets of each mask with the Möbius signs (-1)^|subset|."""

    n_coalitions: int
    popcount: np.ndarray
    rank: np.ndarray
    members: list
    signs: list


def _subset_table(n_players):
    masks = np.arange(2**n_players)
    bits = (masks[:, None] >> np.arange(n_players)) & 1
    popcount = bits.sum(axis=1)
    rank = np.empty_like(masks)
    members, signs = [], []
    for k in range(n_players + 1):
        of_size = np.flatnonzero(popcount == k)
        rank[of_size] = np.arange(of_size.size)
        # The k set bits of each mask, and subset j picks those where j has a bit.
        positions = np.nonzero(bits[of_size])[1].reshape(of_size.size, k)
        picks = (np.arange(2**k)[:, None] >> np.arange(k)) & 1  # (2^k, k)
        members.append((1 << positions) @ picks.T)  # (n_masks, 2^k)
        signs.append(np.where(picks.sum(axis=1) % 2, -1.0, 1.0))
    return _SubsetTable(2**n_players, popcount, rank, members, signs)


def _zeta_matrix(n_bits):
    """``Z[R, S] = 1`` when ``R ⊆ S``: ``table @ Z`` sums each coalition's subsets."""
    masks = np.arange(2**n_bits)
    return ((masks[:, None] & masks[None, :]) == masks[:, None]).astype(np.float64)
