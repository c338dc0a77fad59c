"""GroupThresholdClassifier beyond rate parities and accuracy: predictive parity against a
linear program at each common precision, the cost objective, and label-only models against
the derived predictor's own linear program (Hardt et al. 2016; aif360's formulation)."""

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from test_thresholds import (
    expected_rates,
    gap_of,
    make_scores,
    on_scores,
)

from skfair.postprocessing import GroupThresholdClassifier

# --------------------------------------------------------------------------------------------
# predictive parity


def _roc_points(scores, y, weights):
    thresholds = np.r_[np.inf, np.unique(scores)[::-1]]
    pos, neg = (weights * y).sum(), (weights * (1 - y)).sum()
    fpr = np.array([(weights * (1 - y) * (scores >= t)).sum() for t in thresholds]) / neg
    tpr = np.array([(weights * y * (scores >= t)).sum() for t in thresholds]) / pos
    return fpr, tpr, pos, neg


def _lp_at_precision(points, c, tolerance, alpha, beta):
    """max sum_a alpha TP_a - beta FP_a with every selecting group's precision in
    [c, c + tolerance], each group's point a convex combination of its raw ROC points on or
    above the diagonal (scipy, from the points themselves: no hull, no breakpoints)."""
    n_points = [len(fpr) for fpr, _, _, _ in points]
    offsets = np.r_[0, np.cumsum(n_points)]
    cost = np.zeros(offsets[-1])
    A_ub, b_ub, A_eq, b_eq = [], [], [], []
    for a, (fpr, tpr, pos, neg) in enumerate(points):
        part = slice(offsets[a], offsets[a + 1])
        cost[part] = -(alpha * pos * tpr - beta * neg * fpr)
        row = np.zeros(offsets[-1])
        row[part] = 1.0
        A_eq.append(row)
        b_eq.append(1.0)
        for coefficients in (
            fpr - tpr,  # above the diagonal: x - y <= 0
            c * neg * fpr - (1 - c) * pos * tpr,  # precision >= c
            (1 - c - tolerance) * pos * tpr - (c + tolerance) * neg * fpr,  # <= c + tol
        ):
            row = np.zeros(offsets[-1])
            row[part] = coefficients
            A_ub.append(row)
            b_ub.append(0.0)
    result = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, None))
    assert result.status == 0
    return -result.fun


@pytest.mark.parametrize("objective", ["accuracy", "balanced_accuracy", "true_positive_rate"])
@pytest.mark.parametrize("tolerance", [0.0, 0.04])
@pytest.mark.parametrize("seed", [0, 1])
def test_predictive_parity_against_a_linear_program_at_each_precision(objective, tolerance, seed):
    scores, y, groups = make_scores(240, 3, seed + 10, n_distinct=7)
    weights = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
    clf, X = on_scores(
        scores,
        y,
        groups,
        weights,
        constraint="predictive_parity",
        objective=objective,
        tolerance=tolerance,
    )
    rates = expected_rates(
        clf.decision_probability(X, sensitive_features=groups), y, groups, weights
    )
    assert gap_of("predictive_parity", rates) <= tolerance + 1e-9
    points = [
        _roc_points(scores[groups == g], y[groups == g], weights[groups == g]) for g in range(3)
    ]
    P, N = sum(p[2] for p in points), sum(p[3] for p in points)
    alpha, beta = {
        "accuracy": (1 / (P + N), 1 / (P + N)),
        "balanced_accuracy": (0.5 / P, 0.5 / N),
        "true_positive_rate": (1 / P, 0.0),
    }[objective]
    constant = {"accuracy": N / (P + N), "balanced_accuracy": 0.5, "true_positive_rate": 0.0}
    ours = clf.objective_value_ - constant[objective]
    grid = np.linspace(0, 1 - tolerance, 121)
    best_on_grid = max(_lp_at_precision(points, c, tolerance, alpha, beta) for c in grid)
    assert ours >= best_on_grid - 1e-9  # no precision on the grid does better...
    selecting = ~np.isnan(rates["ppv"])
    if selecting.any():  # ... and ours is the program's value at our common precision
        c = np.nanmin(rates["ppv"])
        assert ours == pytest.approx(
            _lp_at_precision(points, c - 1e-12, tolerance + 2e-12, alpha, beta), abs=1e-9
        )


def test_predictive_parity_makes_precisions_equal_on_real_sized_data():
    scores, y, groups = make_scores(20_000, 4, 3)
    clf, X = on_scores(scores, y, groups, constraint="predictive_parity")
    precision = clf.rates_["positive_predictive_value"]
    assert np.ptp(precision[~np.isnan(precision)]) <= 1e-9
    assert clf.constraint_gap_ <= 1e-9
    free, _ = on_scores(scores, y, groups, constraint="predictive_parity", tolerance=1.0)
    assert free.objective_value_ >= clf.objective_value_
    # precision of the unconstrained rules differs across groups here, so the constraint binds
    assert free.constraint_gap_ > 0.01


# --------------------------------------------------------------------------------------------
# cost


@pytest.mark.parametrize("constraint", ["equalized_odds", "true_positive_rate_parity"])
def test_cost_equals_accuracy_with_class_weights(constraint):
    # With rates conditioned on the label, pricing false negatives c_fn and false positives
    # c_fp is accuracy with weight c_fn on positives and c_fp on negatives.
    scores, y, groups = make_scores(1500, 3, 4, n_distinct=30)
    cost = {"false_positive": 1.0, "false_negative": 4.0}
    priced, _ = on_scores(scores, y, groups, constraint=constraint, objective="cost", cost=cost)
    weights = np.where(y == 1, 4.0, 1.0)
    weighted, _ = on_scores(scores, y, groups, weights, constraint=constraint)
    np.testing.assert_allclose(
        priced.rates_["true_positive_rate"], weighted.rates_["true_positive_rate"], atol=1e-9
    )
    np.testing.assert_allclose(
        priced.rates_["false_positive_rate"], weighted.rates_["false_positive_rate"], atol=1e-9
    )
    fp = sum(
        priced.rates_["false_positive_rate"][g] * ((groups == g) & (y == 0)).sum() for g in range(3)
    )
    fn = sum(
        priced.rates_["false_negative_rate"][g] * ((groups == g) & (y == 1)).sum() for g in range(3)
    )
    assert priced.objective_value_ == pytest.approx((1.0 * fp + 4.0 * fn) / len(y), abs=1e-12)


def test_cost_without_constraint_is_the_cheapest_threshold_of_each_group():
    scores, y, groups = make_scores(600, 2, 5, n_distinct=25)
    clf, _ = on_scores(
        scores,
        y,
        groups,
        constraint="demographic_parity",
        tolerance=1.0,
        objective="cost",
        cost={"false_positive": 3.0, "false_negative": 1.0},
    )
    cheapest = 0.0
    for g in (0, 1):
        s, yy = scores[groups == g], y[groups == g]
        cheapest += min(
            3.0 * ((s >= t) & (yy == 0)).sum() + ((s < t) & (yy == 1)).sum()
            for t in np.r_[np.unique(s), np.inf]
        )
    assert clf.objective_value_ == pytest.approx(cheapest / len(y), abs=1e-12)
    equal, _ = on_scores(
        scores,
        y,
        groups,
        constraint="demographic_parity",
        objective="cost",
        cost={"false_positive": 2.0, "false_negative": 2.0},
    )
    accuracy, _ = on_scores(scores, y, groups, constraint="demographic_parity")
    assert equal.objective_value_ == pytest.approx(2 * (1 - accuracy.objective_value_), abs=1e-12)


def test_cost_needs_objective_cost_and_valid_prices():
    scores, y, groups = make_scores(200, 2, 6)
    with pytest.raises(ValueError, match="only used with objective='cost'"):
        on_scores(scores, y, groups, cost={"false_positive": 1, "false_negative": 2})
    with pytest.raises(ValueError, match="needs cost="):
        on_scores(scores, y, groups, objective="cost")
    with pytest.raises(ValueError, match="exactly the keys"):
        on_scores(scores, y, groups, objective="cost", cost={"fp": 1, "fn": 2})
    with pytest.raises(ValueError, match="non-negative, not both zero"):
        on_scores(
            scores, y, groups, objective="cost", cost={"false_positive": -1, "false_negative": 2}
        )


# --------------------------------------------------------------------------------------------
# label-only models


class LabelsOnly(ClassifierMixin, BaseEstimator):
    """A fitted 'model' with ``predict`` only: positive when the first column exceeds 0."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return self.classes_[(np.asarray(X, dtype=float)[:, 0] > 0).astype(int)]


def _derived_predictor_lp(y, y_hat, groups, objective):
    """Hardt et al.'s derived predictor from labels, two groups, in aif360's variables: per
    group the probabilities of a positive decision for a predicted positive and a predicted
    negative; equal true and false positive rates; solved by scipy."""
    rates = []
    for g in (0, 1):
        yy, hh = y[groups == g], y_hat[groups == g]
        rates.append((hh[yy == 1].mean(), hh[yy == 0].mean(), (yy == 1).sum(), (yy == 0).sum()))
    # TPR'_g = p1 * tpr + p0 * (1 - tpr); FPR'_g = p1 * fpr + p0 * (1 - fpr)
    tpr_row = [[t, 1 - t] for t, _, _, _ in rates]
    fpr_row = [[f, 1 - f] for _, f, _, _ in rates]
    A_eq = [tpr_row[0] + [-v for v in tpr_row[1]], fpr_row[0] + [-v for v in fpr_row[1]]]
    P, N = sum(r[2] for r in rates), sum(r[3] for r in rates)
    if objective == "balanced_accuracy":  # aif360's: minimise sum_g FPR'_g - TPR'_g
        c = np.concatenate([np.array(fpr_row[g]) - np.array(tpr_row[g]) for g in (0, 1)])
    else:  # accuracy: minimise FP - TP
        c = np.concatenate(
            [
                rates[g][3] * np.array(fpr_row[g]) - rates[g][2] * np.array(tpr_row[g])
                for g in (0, 1)
            ]
        )
    result = linprog(c, A_eq=A_eq, b_eq=[0, 0], bounds=[(0, 1)] * 4)
    assert result.status == 0
    p = result.x
    tpr = p[0] * rates[0][0] + p[1] * (1 - rates[0][0])
    fpr = p[0] * rates[0][1] + p[1] * (1 - rates[0][1])
    if objective == "balanced_accuracy":
        return (tpr + 1 - fpr) / 2, tpr, fpr
    return (P * tpr + N * (1 - fpr)) / (P + N), tpr, fpr


@pytest.mark.parametrize("objective", ["balanced_accuracy", "accuracy"])
@pytest.mark.parametrize("seed", range(4))
def test_label_only_model_is_the_derived_predictor(objective, seed):
    rng = np.random.default_rng(seed)
    n = 3000
    groups = rng.integers(0, 2, n)
    y = (rng.random(n) < np.where(groups == 1, 0.3, 0.5)).astype(int)
    noise = rng.normal(size=n) * np.where(groups == 1, 1.5, 0.8)
    X = np.c_[y - 0.5 + 0.4 * groups + noise, rng.normal(size=n)]
    model = FrozenEstimator(LabelsOnly().fit(X, y))
    clf = GroupThresholdClassifier(model, constraint="equalized_odds", objective=objective)
    clf.fit(X, y, sensitive_features=groups)
    value, tpr, fpr = _derived_predictor_lp(y, X[:, 0] > 0, groups, objective)
    assert clf.objective_value_ == pytest.approx(value, abs=1e-9)
    assert clf.constraint_gap_ <= 1e-9
    # The rule reads the labels only: a decision probability per group and predicted label,
    # with the cut between the labels' scores 1 and 0.
    probability = clf.decision_probability(X, sensitive_features=groups)
    for g in (0, 1):
        for label in (True, False):
            cell = (groups == g) & ((X[:, 0] > 0) == label)
            assert np.ptp(probability[cell]) == 0
    assert set(np.ravel(clf.thresholds_)) <= {0.5, -np.inf, np.inf}


def test_label_only_through_response_method_predict():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 2))
    groups = rng.integers(0, 2, 800)
    y = (X[:, 0] + 0.5 * groups + rng.normal(size=800) > 0).astype(int)
    fitted = LogisticRegression().fit(X, y)
    by_labels = GroupThresholdClassifier(
        FrozenEstimator(fitted), response_method="predict", constraint="equalized_odds"
    ).fit(X, y, sensitive_features=groups)
    hard = np.c_[fitted.predict(X) - 0.5, X[:, 1]]  # the same labels as a "score" column
    reference, _ = on_scores(hard[:, 0], y, groups, constraint="equalized_odds")
    assert by_labels.objective_value_ == pytest.approx(reference.objective_value_, abs=1e-12)
    # a model without scores is read through its labels with the default "auto"
    auto = GroupThresholdClassifier(
        FrozenEstimator(LabelsOnly().fit(hard, y)), constraint="equalized_odds"
    ).fit(hard, y, sensitive_features=groups)
    assert auto.objective_value_ == pytest.approx(reference.objective_value_, abs=1e-12)
    assert clone(auto).fit(hard, y, sensitive_features=groups).constraint_gap_ <= 1e-9
