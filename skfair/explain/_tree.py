"""Exact marginal Shapley values of a HistGradientBoosting raw score, without hybrid rows.

The raw score (``decision_function`` of a binary classifier, ``predict`` of a regressor with
the identity link) is a sum of tree leaf values, so its marginal game over a background,
``v(S; x) = (1/K) sum_k f(x_S, b^(k)_{-S})``, is a sum over trees, leaves and background rows
of leaf games. For a leaf reached through conditions on a set of players, a pair ``(x, b)``
splits those players into ``A`` (only ``x`` satisfies the player's conditions), ``B`` (only
``b`` does) and the rest (both do); if neither satisfies some player's conditions, the leaf is
never reached. The leaf's game ``value * 1[A ⊆ S, B ∩ S = {}]`` has the closed-form Shapley
values ``value (|A|-1)! |B|! / (|A|+|B|)!`` for players in ``A`` and
``-value |A|! (|B|-1)! / (|A|+|B|)!`` for players in ``B`` (interventional TreeSHAP,
Lundberg et al. 2020). Patterns of ``x`` and of ``b`` are enumerated per leaf, so the cost is
about (leaves x evaluation rows x path length), instead of 2^p x evaluation rows x background
rows model evaluations.

Probability scores (``predict_proba``) are not sums over trees, so they take the generic path.
"""

from __future__ import annotations

from math import factorial

import numpy as np

# Above this many players on one leaf's path, x patterns are found with np.unique instead of a
# table over all 2^m patterns.
_MAX_PATTERN_TABLE = 12


def hist_gradient_boosting_raw(estimator, response):
    """The fitted HistGradientBoosting model whose raw score ``response`` reads, else None."""
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    if isinstance(estimator, HistGradientBoostingClassifier):
        if response.method != "decision_function" or len(estimator.classes_) != 2:
            return None
    elif isinstance(estimator, HistGradientBoostingRegressor):
        if response.method != "predict" or type(estimator._loss.link).__name__ != "IdentityLink":
            return None
    else:
        return None
    nodes = [predictors[0].nodes for predictors in estimator._predictors]
    if any(tree["is_categorical"].any() for tree in nodes):
        return None
    return estimator


def tree_shapley_values(estimator, response, X_eval, background, players):
    """Per-row marginal Shapley values (n_eval, n_players) of the raw score, or None.

    None when the model or the response is not supported (see the module docstring), or when
    the inputs are not numeric.
    """
    model = hist_gradient_boosting_raw(estimator, response)
    if model is None:
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
    for predictors in model._predictors:
        _add_tree(phi, predictors[0].nodes, X, B, player_of, factorials)
    return -phi if response.negate else phi


def _goes_left(nodes, X):
    """(n_rows, n_nodes) bool: whether a row goes left at each node (HGB's predict rule)."""
    values = X[:, nodes["feature_idx"]]
    missing = np.isnan(values)
    return np.where(
        missing, nodes["missing_go_to_left"].astype(bool), values <= nodes["num_threshold"]
    )


def _leaf_paths(nodes):
    """Yield ``(leaf, path nodes, went left at each)`` for every leaf of a tree."""
    stack = [(0, [], [])]
    while stack:
        node, path, directions = stack.pop()
        if nodes["is_leaf"][node]:
            yield node, np.array(path, dtype=np.intp), np.array(directions, dtype=bool)
            continue
        stack.append((nodes["right"][node], [*path, node], [*directions, False]))
        stack.append((nodes["left"][node], [*path, node], [*directions, True]))


def _add_tree(phi, nodes, X, B, player_of, factorials):
    left_x = _goes_left(nodes, X)
    left_b = _goes_left(nodes, B)
    n_background = B.shape[0]
    for leaf, path, went_left in _leaf_paths(nodes):
        value = nodes["value"][leaf]
        if value == 0.0 or path.size == 0:
            continue  # a root leaf is a constant: no player moves it
        path_players = player_of[nodes["feature_idx"][path]]
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
