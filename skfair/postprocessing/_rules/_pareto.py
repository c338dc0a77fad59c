"""The trade-off between the objective and fairness of optimal group thresholds, over a range
of tolerances, from one fit's statistics."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted

from skfair._dask import check_in_memory, round_to_grid
from skfair._stats._roc import score_blocks
from skfair._utils._compat import validate_params
from skfair._utils._validation import check_weights
from skfair.postprocessing._rules._multiclass_lp import FairArgmaxProgram
from skfair.postprocessing._rules._multiclass_thresholds import (
    MulticlassGroupThresholdClassifier,
    decision_summary,
)
from skfair.postprocessing._rules._threshold_lp import (
    constraint_gap,
    group_geometry,
    group_rule,
    rule_rates,
    solve_thresholds,
)
from skfair.postprocessing._rules._thresholds import (
    GroupThresholdClassifier,
    _objective_value,
    _rates_table,
    relative_weights,
)

#: Number of tolerances of the default range, from 0 to the unconstrained rule's gap.
_DEFAULT_POINTS = 21


@validate_params(
    {
        "estimator": [GroupThresholdClassifier, MulticlassGroupThresholdClassifier],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like", None],
        "sensitive_features": ["array-like", dict, None],
        "sample_weight": ["array-like", None],
        "tolerances": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def threshold_pareto_front(
    estimator, X, y=None, *, sensitive_features=None, sample_weight=None, tolerances=None
):
    """The objective of optimal group thresholds against their fairness gap, over tolerances.

    For each tolerance, the rule a fitted :class:`GroupThresholdClassifier` or
    :class:`MulticlassGroupThresholdClassifier` would choose on ``(X, y)`` with its constraint
    and objective: its expected objective and its constraint gap there. The model is not
    refitted: its scores on X are computed once, and so is what the linear program is built
    from (the groups' ROC hulls; the multi-class program, whose partition of the rows carries
    over from one tolerance to the next). Each tolerance then costs one solve.

    Parameters
    ----------
    estimator : GroupThresholdClassifier or MulticlassGroupThresholdClassifier
        Fitted; its model (``estimator_``) gives the scores.
        Its ``constraint`` and ``objective`` are used.
    X : array-like of shape (n_samples, n_features)
        Samples to choose the rules on (with the sensitive column(s) in ``sensitive_column``
        mode): held-out data, or the data the estimator was fitted on when its model came in
        through :class:`~sklearn.frozen.FrozenEstimator`.
    y : array-like of shape (n_samples,), default=None
        True labels; required for :class:`GroupThresholdClassifier` (its rates are observed
        ones), unused by the multi-class rule (its rates follow the model's probabilities).
    sensitive_features : array-like, dict or DataFrame, default=None
        Sensitive attribute(s), when the estimator has no ``sensitive_column``.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample equally.
    tolerances : array-like of float, default=None
        Tolerances to solve for. None: 21 evenly spaced values from 0 to the gap of the
        unconstrained optimum.

    Returns
    -------
    front : Bunch
        ``tolerances``, ``objective_values`` and ``constraint_gaps`` (ndarrays of the same
        length, tolerances increasing), and ``constraint``, ``objective`` (the estimator's).
        ``objective_values[i]`` is the estimator's ``objective_value_`` at ``tolerances[i]``:
        non-decreasing in the tolerance for the objectives that are maximised, and
        non-increasing for ``objective="cost"`` (the expected cost, minimised); each gap is
        at most its tolerance. The gap is the largest difference of the constrained rates
        between two groups for :class:`GroupThresholdClassifier`, ``U_DP`` or ``U_EO`` for the
        multi-class rule.

    See Also
    --------
    skfair.plotting.ParetoFrontDisplay : Plots the front.

    Notes
    -----
    The optimal objective is a concave, piecewise-linear function of the tolerance (the
    value of a linear program whose right-hand side moves linearly; a cost is convex), so
    the straight lines between the points are on the feasible side of the front.

    References
    ----------
    Hardt, M., Price, E. and Srebro, N. (2016). Equality of Opportunity in Supervised Learning.
    Advances in Neural Information Processing Systems 29.

    Denis, C., Elie, R., Hebiri, M. and Hu, F. (2021). Fairness guarantee in multi-class
    classification. arXiv:2109.13642.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.postprocessing import GroupThresholdClassifier, threshold_pareto_front
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 2000)
    >>> X = np.c_[rng.normal(size=2000) + group, group]
    >>> y = (X[:, 0] + rng.normal(size=2000) > 0.5).astype(int)
    >>> clf = GroupThresholdClassifier(LogisticRegression(), sensitive_column=1,
    ...                                random_state=0).fit(X, y)
    >>> front = threshold_pareto_front(clf, X, y, tolerances=[0.0, 0.1, 0.2])
    >>> bool(np.all(np.diff(front.objective_values) >= 0))
    True
    >>> bool(np.all(front.constraint_gaps <= front.tolerances + 1e-9))
    True
    """
    check_is_fitted(estimator)
    check_in_memory(
        "threshold_pareto_front",
        X,
        y,
        sensitive_features,
        sample_weight,
        hint="Compute a sample of the rows into memory first (.compute()).",
    )
    tolerances = _check_tolerances(tolerances)
    scores, codes, _ = estimator._scores_and_codes(X, sensitive_features)
    weights = check_weights(sample_weight, scores.shape[0])
    weights = np.ones(scores.shape[0]) if weights is None else weights
    n_groups = len(estimator.groups_)
    constraint, objective = estimator.constraint, estimator.objective
    if isinstance(estimator, MulticlassGroupThresholdClassifier):
        front = multiclass_front(
            scores,
            weights,
            codes,
            estimator.groups_,
            estimator.classes_,
            constraint,
            objective,
            tolerances,
        )
    else:
        if y is None:
            raise ValueError(
                "y is required for a GroupThresholdClassifier: its rates are computed from "
                "the observed labels."
            )
        positive = np.asarray(y) == estimator.pos_label_
        if estimator.resolution is not None:
            scores = round_to_grid(scores, estimator.resolution)
        front = binary_front(
            scores,
            positive,
            relative_weights(weights),
            codes,
            n_groups,
            constraint,
            objective,
            tolerances,
            cost=estimator._cost,
        )
    return Bunch(**front, constraint=constraint, objective=objective)


def _check_tolerances(tolerances):
    if tolerances is None:
        return None
    tolerances = np.asarray(tolerances, dtype=np.float64).ravel()
    if tolerances.size == 0 or not np.isfinite(tolerances).all() or (tolerances < 0).any():
        raise ValueError(
            f"tolerances must be a non-empty list of finite non-negative numbers, got "
            f"{tolerances.tolist()[:10]}."
        )
    return np.sort(tolerances)


def _front(solve, tolerances):
    """Solve at each tolerance (by default 0 to the unconstrained gap); the arrays."""
    if tolerances is None:
        _, unconstrained_gap = solve(1.0)
        tolerances = np.linspace(0.0, unconstrained_gap, _DEFAULT_POINTS)
    points = [solve(float(tolerance)) for tolerance in tolerances]
    return {
        "tolerances": np.asarray(tolerances, dtype=np.float64),
        "objective_values": np.array([value for value, _ in points]),
        "constraint_gaps": np.array([gap for _, gap in points]),
    }


def binary_front(
    scores, positive, weights, codes, n_groups, constraint, objective, tolerances, *, cost=None
):
    """The front of :class:`GroupThresholdClassifier`'s program, on its groups' ROC hulls."""
    blocks = score_blocks(scores, positive, weights, codes, n_groups)
    geometries = [group_geometry(blocks, g) for g in range(n_groups)]
    pos = np.array([geo.positive for geo in geometries])
    neg = np.array([geo.negative for geo in geometries])

    def solve(tolerance):
        fpr, tpr = solve_thresholds(geometries, constraint, objective, tolerance, cost=cost)
        rules = [group_rule(geo, x, t) for geo, x, t in zip(geometries, fpr, tpr)]
        achieved = np.array([rule_rates(geo, rule) for geo, rule in zip(geometries, rules)])
        rates = _rates_table(achieved[:, 0], achieved[:, 1], pos, neg)
        value = _objective_value(objective, rates, pos, neg, cost)
        return value, constraint_gap(constraint, rates)

    return _front(solve, tolerances)


def multiclass_front(
    probabilities, weights, codes, group_labels, classes, constraint, objective, tolerances
):
    """The front of :class:`MulticlassGroupThresholdClassifier`'s program."""
    program = FairArgmaxProgram(
        probabilities, weights, codes, len(group_labels), constraint, objective
    )

    def solve(tolerance):
        solution = program.solve(tolerance)
        _, value, gap = decision_summary(
            program.probabilities,
            solution.mixture,
            program.weights,
            program.codes,
            group_labels,
            constraint,
            objective,
            classes,
            tolerance,
        )
        return value, gap

    return _front(solve, tolerances)
