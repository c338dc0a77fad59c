"""Shapley values of cooperative games: the exact weight matrix and permutation sampling.

A game on ``p`` players is a table of values over coalitions. Coalitions are indexed by a
bitmask ``c`` in ``range(2**p)`` (bit ``i`` set when player ``i`` is in the coalition) in exact
mode; the same order is used everywhere in :mod:`skfair.explain`.

References
----------
L. S. Shapley, "A value for n-person games", Contributions to the Theory of Games II (1953)
(the weights of the exact formula); R. Mitchell, J. Cooper, E. Frank and G. Holmes, "Sampling
permutations for Shapley value estimation", JMLR 23 (2022) (antithetic permutation pairs).
"""

from __future__ import annotations

import numpy as np
from scipy.special import comb

from skfair._utils._random import check_random_state

# Above this many players the 2**p coalition table is not enumerated (2**20 coalitions).
MAX_EXACT_PLAYERS = 20


def coalition_membership(n_players):
    """Boolean matrix ``M[c, i]``: whether player ``i`` belongs to coalition ``c``."""
    coalitions = np.arange(2**n_players)
    return ((coalitions[:, None] >> np.arange(n_players)) & 1).astype(bool)


def shapley_weight_matrix(n_players):
    """Matrix ``W`` such that ``phi = V @ W`` for any game table ``V`` (rows x 2**p).

    ``W[c, i] = (s-1)! (p-s)! / p!`` when ``i`` is in ``c`` (``s = |c|``) and
    ``-s! (p-s-1)! / p!`` otherwise: each marginal contribution ``v(S + i) - v(S)`` of the
    Shapley formula split over its two coalitions.
    """
    membership = coalition_membership(n_players)
    size = membership.sum(axis=1, keepdims=True)
    p = n_players
    # (s-1)!(p-s)!/p! = 1 / (p * C(p-1, s-1)) and s!(p-s-1)!/p! = 1 / (p * C(p-1, s)).
    with np.errstate(divide="ignore"):
        inside = 1.0 / (p * comb(p - 1, size - 1))
        outside = -1.0 / (p * comb(p - 1, size))
    return np.where(membership, inside, outside)


def sample_permutations(n_players, n_permutations, random_state):
    """``n_permutations`` orders of the players, as antithetic pairs.

    Rows ``2k`` and ``2k + 1`` are an order and its reverse; an odd count adds one unpaired
    order at the end. Returns the orders and the sampling unit of each (a pair shares a unit).
    """
    rng = check_random_state(random_state)
    n_pairs, odd = divmod(n_permutations, 2)
    forward = np.array([rng.permutation(n_players) for _ in range(n_pairs + odd)])
    orders = np.empty((n_permutations, n_players), dtype=np.intp)
    orders[0 : 2 * n_pairs : 2] = forward[:n_pairs]
    orders[1 : 2 * n_pairs : 2] = forward[:n_pairs, ::-1]
    if odd:
        orders[-1] = forward[-1]
    return orders, np.arange(n_permutations) // 2


def permutation_contributions(prefix_values, orders):
    """Marginal contributions of each player along each order.

    Parameters
    ----------
    prefix_values : ndarray of shape (n_permutations, n_players + 1, ...)
        Game value of the prefix coalitions ``S_0 = {} ⊂ S_1 ⊂ ... ⊂ S_p = N`` of each order.
    orders : ndarray of shape (n_permutations, n_players)

    Returns
    -------
    ndarray of shape (n_permutations, n_players, ...)
        ``out[m, orders[m, k]] = v(S_{k+1}) - v(S_k)``; each row sums to ``v(N) - v({})``.
    """
    steps = np.diff(prefix_values, axis=1)
    contributions = np.empty_like(steps)
    rows = np.arange(orders.shape[0])[:, None]
    contributions[rows, orders] = steps
    return contributions


def unit_standard_error(contributions, units):
    """Standard error of the mean over independent sampling units (antithetic pairs averaged)."""
    n_units = units[-1] + 1
    counts = np.bincount(units, minlength=n_units).astype(float)
    flat = contributions.reshape(contributions.shape[0], -1)
    unit_means = np.zeros((n_units, flat.shape[1]))
    np.add.at(unit_means, units, flat)
    unit_means /= counts[:, None]
    if n_units < 2:
        return np.full(contributions.shape[1:], np.nan)
    stderr = unit_means.std(axis=0, ddof=1) / np.sqrt(n_units)
    return stderr.reshape(contributions.shape[1:])
