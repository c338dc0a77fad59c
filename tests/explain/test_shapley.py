"""The Shapley core against known games and a brute-force average over all orders."""

from itertools import permutations
from math import factorial

import numpy as np
import pytest

from skfair.explain._shapley import (
    coalition_membership,
    permutation_contributions,
    sample_permutations,
    shapley_weight_matrix,
)


def _brute_force_shapley(game, n_players):
    """Average marginal contribution over all p! orders; ``game`` maps a bitmask to a value."""
    phi = np.zeros(n_players)
    for order in permutations(range(n_players)):
        mask = 0
        for player in order:
            phi[player] += game[mask | (1 << player)] - game[mask]
            mask |= 1 << player
    return phi / factorial(n_players)


@pytest.mark.parametrize("n_players", [1, 2, 3, 5])
def test_weight_matrix_matches_brute_force(n_players):
    rng = np.random.default_rng(n_players)
    games = rng.normal(size=(3, 2**n_players))
    phi = games @ shapley_weight_matrix(n_players)
    for game, values in zip(games, phi, strict=True):
        np.testing.assert_allclose(values, _brute_force_shapley(game, n_players), atol=1e-12)
        assert values.sum() == pytest.approx(game[-1] - game[0], abs=1e-12)  # efficiency


def test_known_games():
    n_players = 4
    membership = coalition_membership(n_players)
    weights = shapley_weight_matrix(n_players)
    # Unanimity game of T = {0, 2}: phi_i = 1/|T| on T, 0 elsewhere.
    unanimity = membership[:, [0, 2]].all(axis=1).astype(float)
    np.testing.assert_allclose(unanimity @ weights, [0.5, 0.0, 0.5, 0.0], atol=1e-15)
    # Additive game: phi_i = its own term.
    terms = np.array([1.5, -2.0, 0.25, 4.0])
    np.testing.assert_allclose((membership @ terms) @ weights, terms, atol=1e-12)
    # A constant game gives zero to every player.
    np.testing.assert_allclose(np.full(2**n_players, 3.0) @ weights, 0.0, atol=1e-15)


def test_permutations_are_antithetic_and_contributions_telescope():
    orders, units = sample_permutations(6, 7, random_state=0)
    assert orders.shape == (7, 6)
    np.testing.assert_array_equal(orders[1], orders[0][::-1])
    np.testing.assert_array_equal(orders[5], orders[4][::-1])
    np.testing.assert_array_equal(units, [0, 0, 1, 1, 2, 2, 3])
    assert all(sorted(order) == list(range(6)) for order in orders)
    again, _ = sample_permutations(6, 7, random_state=0)
    np.testing.assert_array_equal(orders, again)
    rng = np.random.default_rng(1)
    prefix_values = rng.normal(size=(7, 7))
    contributions = permutation_contributions(prefix_values, orders)
    np.testing.assert_allclose(
        contributions.sum(axis=1), prefix_values[:, -1] - prefix_values[:, 0], atol=1e-14
    )
    # The first player of each order gets v(S_1) - v(S_0).
    np.testing.assert_allclose(
        contributions[np.arange(7), orders[:, 0]], prefix_values[:, 1] - prefix_values[:, 0]
    )
