"""The Lagrangian game restricted to the hypotheses found so far.

The game of Agarwal et al. (2018) is ``min_Q max_lambda L(Q, lambda)`` with
``L(Q, lambda) = error(Q) + sum_j lambda_j gamma_j(Q)``, ``lambda >= 0`` and
``||lambda||_1 <= B``. Over the mixtures of a finite set of hypotheses it is a small linear
program (their Section 3 and Algorithm 1): the mixture weights ``q``, and one variable for
the largest constraint violation, which the multiplier player puts all its mass ``B`` on.
Its value is an upper bound on the value of the full game; each best response gives a lower
bound (see :func:`certified_gap`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from skfair._linprog import UnsolvedProgram, solve_lp


class Hypotheses:
    """The hypotheses found so far, each reduced to its table, error and constraint values.

    Two hypotheses with the same table are the same point of the game: the second one is not
    added (:meth:`add` returns the index of the first).
    """

    def __init__(self, moments):
        self.moments = moments
        self.predictors = []
        self.outputs = []
        self.tables = []
        self._errors = []
        self._gammas = []

    def __len__(self):
        return len(self.predictors)

    def add(self, predictor, table, outputs):
        """Index of the hypothesis with this table, adding it (with its training outputs)
        when it is new."""
        for index, known in enumerate(self.tables):
            if np.array_equal(known, table):
                return index
        self.predictors.append(predictor)
        self.outputs.append(outputs)
        self.tables.append(table)
        self._errors.append(self.moments.error(table))
        self._gammas.append(self.moments.gamma(table))
        return len(self.predictors) - 1

    @property
    def errors(self):
        return np.asarray(self._errors)

    @property
    def gammas(self):
        """Constraint values, shape (n_hypotheses, n_constraints)."""
        return np.asarray(self._gammas).reshape(len(self._gammas), self.moments.n_constraints)

    def lagrangian(self, multipliers):
        """``L(h, lambda)`` of every hypothesis for each row of ``multipliers``.

        ``multipliers`` has shape (n_constraints,) or (n_lambdas, n_constraints); the result
        (n_hypotheses,) or (n_hypotheses, n_lambdas).
        """
        multipliers = np.asarray(multipliers, dtype=np.float64)
        values = self.gammas @ multipliers.T
        return self.errors[:, None] + values if values.ndim == 2 else self.errors + values

    def mixture_table(self, weights):
        return np.tensordot(weights, np.asarray(self.tables), axes=1)


@dataclass
class GameData:
    """What the game plays on, in memory (:class:`~skfair.reductions._base.Problem`) or on
    dask collections (:class:`~skfair.reductions._on_dask.DaskProblem`): the moments, the
    oracle of best responses, the hypotheses found so far and the hypothesis index of each
    constant class. A subclass adds a response (``add_response``) from its own data."""

    moments: object
    oracle: object
    hypotheses: Hypotheses = field(init=False)
    constants: dict = field(init=False, default_factory=dict)

    def __post_init__(self):
        self.hypotheses = Hypotheses(self.moments)

    def respond(self, multipliers):
        """Index among the hypotheses of the best response to ``multipliers``."""
        cost = self.moments.cost(multipliers)
        return self.add_response(self.oracle(cost), cost)


def restricted_game(errors, gammas, multiplier_bound):
    """Saddle point of the game over mixtures of the given hypotheses.

    Solves ``min_q error . q + B * max(0, max_j gammas[:, j] . q)`` over the simplex, whose
    dual gives the multiplier player's best mixed answer.

    Returns
    -------
    weights : ndarray of shape (n_hypotheses,)
    value : float
        The restricted game's value, ``max_lambda L(q, lambda)``.
    multipliers : ndarray of shape (n_constraints,)
    """
    n_hypotheses, n_constraints = gammas.shape
    if n_constraints == 0:
        weights = np.zeros(n_hypotheses)
        weights[np.argmin(errors)] = 1.0
        return weights, float(errors.min()), np.zeros(0)
    objective = np.append(errors, multiplier_bound)
    upper = np.hstack([gammas.T, -np.ones((n_constraints, 1))])
    equality = np.append(np.ones(n_hypotheses), 0.0)[None]
    result = solve_lp(
        objective,
        A_ub=upper,
        b_ub=np.zeros(n_constraints),
        A_eq=equality,
        b_eq=[1.0],
        what="The restricted game's linear program",
    )
    return _simplex(result.x[:-1]), float(result.fun), -result.ineqlin.marginals


def constrained_mixture(errors, gammas):
    """The most accurate mixture that meets every constraint, or None when none does."""
    n_hypotheses, n_constraints = gammas.shape
    if n_constraints == 0:
        return restricted_game(errors, gammas, 0.0)[0]
    try:
        result = solve_lp(
            errors,
            A_ub=gammas.T,
            b_ub=np.zeros(n_constraints),
            A_eq=np.ones((1, n_hypotheses)),
            b_eq=[1.0],
            what="The constrained mixture's linear program",
        )
    except UnsolvedProgram:  # no mixture of these hypotheses meets the bound
        return None
    return _simplex(result.x)


def certified_gap(hypotheses, queried, upper_value):
    """Duality gap from the multipliers asked, without any further fit.

    For each queried ``lambda_s``, the best of the hypotheses found at ``lambda_s`` (the
    learner's answer to it, or one found since that does better there) stands in for the
    minimum of ``L(., lambda_s)`` over the whole class (the oracle assumption of the paper,
    with the hypotheses found as part of the oracle, as in fairlearn's ``best_h``), so
    ``max_s min_h L(h, lambda_s)`` is a lower bound of the game's value ``V``, and the
    restricted game's value an upper bound. Their difference bounds how far the restricted
    saddle point is from the game's: it is a ``gap``-approximate saddle point.
    """
    if not queried:
        return np.inf
    best = hypotheses.lagrangian(np.asarray(queried)).min(axis=0)
    return max(float(upper_value - best.max()), 0.0)


def _simplex(weights):
    """LP weights as a probability vector (solver round-off removed)."""
    weights = np.clip(weights, 0.0, None)
    weights[weights < 1e-12] = 0.0
    return weights / weights.sum()
