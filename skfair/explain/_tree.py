"""Exact marginal Shapley values of tree-ensemble scores, without hybrid rows.

When a model's score is a weighted sum of tree leaf values (see :func:`additive_trees`: raw
scores of gradient boosting, probabilities of random forests), its marginal game over a
background, ``v(S; x) = (1/K) sum_k f(x_S, b^(k)_{-S})``, is a sum over trees, leaves and
background rows of leaf games. For a leaf reached through conditions on a set of players, a
pair ``(x, b)`` splits those players into ``A`` (only ``x`` satisfies the player's
conditions), ``B`` (only ``b`` does) and the rest (both do); if neither satisfies some
player's conditions, the leaf is never reached. The leaf's game
``value * 1[A ⊆ S, B ∩ S = {}]`` has the closed-form Shapley values
``value (|A|-1)! |B|! / (|A|+|B|)!`` for players in ``A`` and
``-value |A|! (|B|-1)! / (|A|+|B|)!`` for players in ``B`` (interventional TreeSHAP,
Lundberg et al. 2020). Patterns of ``x`` and of ``b`` are enumerated per leaf, so the cost is
about (leaves x evaluation rows x path length), instead of 2^p x evaluation rows x background
rows model evaluations.

Probabilities of gradient boosting (a sigmoid of a sum over trees) are not sums over trees, so
they take the generic path.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np

# Above this many players on one leaf's path, x patterns are found with np.unique instead of a
# table over all 2^m patterns.
_MAX_PATTERN_TABLE = 12


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


def additive_trees(estimator, response):
    """The trees whose weighted leaf values add up to the score ``response`` reads, else None.

    Supported: the raw score of HistGradientBoosting (``decision_function`` of a binary
    classifier, ``predict`` of an identity-link regressor) and of GradientBoosting
    (binary ``decision_function``, regressor ``predict``); ``predict_proba`` of a
    single-output decision tree, random forest or extra-trees classifier (a mean of per-tree
    class fractions); ``predict`` of those regressors.
    """
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

    method = response.method
    if isinstance(estimator, (HistGradientBoostingClassifier, HistGradientBoostingRegressor)):
        if isinstance(estimator, HistGradientBoostingClassifier):
            supported = method == "decision_function" and len(estimator.classes_) == 2
        else:
            supported = method == "predict" and (
                type(estimator._loss.link).__name__ == "IdentityLink"
            )
        nodes = [predictors[0].nodes for predictors in estimator._predictors]
        if not supported or any(tree["is_categorical"].any() for tree in nodes):
            return None
        return [_hist_tree(tree) for tree in nodes]
    if isinstance(estimator, GradientBoostingClassifier):
        if method != "decision_function" or len(estimator.classes_) != 2:
            return None
        return [
            _sklearn_tree(tree.tree_, None, estimator.learning_rate)
            for tree in estimator.estimators_[:, 0]
        ]
    if isinstance(estimator, GradientBoostingRegressor):
        if method != "predict":
            return None
        return [
            _sklearn_tree(tree.tree_, None, estimator.learning_rate)
            for tree in estimator.estimators_[:, 0]
        ]
    classifiers = (DecisionTreeClassifier, RandomForestClassifier, ExtraTreesClassifier)
    regressors = (DecisionTreeRegressor, RandomForestRegressor, ExtraTreesRegressor)
    if isinstance(estimator, classifiers):
        if method != "predict_proba" or estimator.n_outputs_ != 1:
            return None
        column = response.column
    elif isinstance(estimator, regressors):
        if method != "predict" or estimator.n_outputs_ != 1:
            return None
        column = None
    else:
        return None
    members = getattr(estimator, "estimators_", [estimator])
    return [_sklearn_tree(member.tree_, column, 1.0 / len(members)) for member in members]


def _hist_tree(nodes):
    return _Tree(
        feature=nodes["feature_idx"].astype(np.intp),
        threshold=nodes["num_threshold"],
        left=nodes["left"].astype(np.intp),
        right=nodes["right"].astype(np.intp),
        is_leaf=nodes["is_leaf"].astype(bool),
        missing_go_to_left=nodes["missing_go_to_left"].astype(bool),
        value=nodes["value"],
        weight=1.0,
        dtype=np.float64,
    )


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


def tree_shapley_values(estimator, response, X_eval, background, players):
    """Per-row marginal Shapley values (n_eval, n_players) of the score, or None.

    None when the model or the response is not supported (see :func:`additive_trees`), or
    when the inputs are not numeric.
    """
    trees = additive_trees(estimator, response)
    if trees is None:
        return None
    try:
        X = np.asarray(X_eval, dtype=np.float64)
        B = np.asarray(background, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    player_of = np.empty(X.shape[1], dtype=np.intp)
    for k, columns in enumerate(players):
        player_of[columns] = k
    n_players = len(players)
    factorials = np.array([float(factorial(k)) for k in range(n_players + 2)])
    phi = np.zeros((X.shape[0], n_players))
    for tree in trees:
        _add_tree(phi, tree, X.astype(tree.dtype), B.astype(tree.dtype), player_of, factorials)
    return -phi if response.negate else phi


def _goes_left(tree, X):
    """(n_rows, n_nodes) bool: whether a row goes left at each node (the models' rule)."""
    values = X[:, tree.feature]
    return np.where(np.isnan(values), tree.missing_go_to_left, values <= tree.threshold)


def _leaf_paths(tree):
    """Yield ``(leaf, path nodes, went left at each)`` for every leaf of a tree."""
    stack = [(0, [], [])]
    while stack:
        node, path, directions = stack.pop()
        if tree.is_leaf[node]:
            yield node, np.array(path, dtype=np.intp), np.array(directions, dtype=bool)
            continue
        stack.append((tree.right[node], [*path, node], [*directions, False]))
        stack.append((tree.left[node], [*path, node], [*directions, True]))


def _add_tree(phi, tree, X, B, player_of, factorials):
    left_x = _goes_left(tree, X)
    left_b = _goes_left(tree, B)
    n_background = B.shape[0]
    for leaf, path, went_left in _leaf_paths(tree):
        value = tree.weight * tree.value[leaf]
        if value == 0.0 or path.size == 0:
            continue  # a root leaf is a constant: no player moves it
        path_players = player_of[tree.feature[path]]
        order = np.argsort(path_players, kind="stable")
        leaf_players, starts = np.unique(path_players[order], return_index=True)
        # A player satisfies the leaf when all its conditions on the path hold.
        satisfied_x = np.logical_and.reduceat(
            left_x[:, path[order]] == went_left[order], starts, axis=1
        )
        satisfied_b = np.logical_and.reduceat(
            left_b[:, path[order]] == went_left[order], starts, axis=1
        )
        n_leaf_players = leaf_players.size
        powers = 1 << np.arange(n_leaf_players)
        b_codes, b_counts = np.unique(satisfied_b @ powers, return_counts=True)
        b_patterns = (b_codes[:, None] & powers) > 0  # (n_b, m)
        x_codes = satisfied_x @ powers
        if n_leaf_players <= _MAX_PATTERN_TABLE:
            x_patterns = (np.arange(2**n_leaf_players)[:, None] & powers) > 0
            x_index = x_codes
        else:
            present, x_index = np.unique(x_codes, return_inverse=True)
            x_patterns = (present[:, None] & powers) > 0
        table = _leaf_shapley(x_patterns, b_patterns, b_counts / n_background, factorials)
        phi[:, leaf_players] += value * table[x_index]


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
