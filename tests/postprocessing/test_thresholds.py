"""GroupThresholdClassifier: optimality against a brute-force oracle, exact constraints,
randomisation, and the scikit-learn contract."""

import inspect

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_predict
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair.postprocessing import GroupThresholdClassifier

CONSTRAINTS = [
    "demographic_parity",
    "equalized_odds",
    "true_positive_rate_parity",
    "false_positive_rate_parity",
    "true_negative_rate_parity",
    "false_negative_rate_parity",
    "predictive_parity",
]
OBJECTIVES = ["accuracy", "balanced_accuracy", "true_positive_rate", "true_negative_rate"]


class ScoreColumn(ClassifierMixin, BaseEstimator):
    """A 'model' whose decision function is the first column of X."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=float)[:, 0]


def on_scores(scores, y, groups, sample_weight=None, **params):
    """GroupThresholdClassifier fitted directly on given scores."""
    X = np.asarray(scores, dtype=float)[:, None]
    model = FrozenEstimator(ScoreColumn().fit(X, y))
    clf = GroupThresholdClassifier(model, random_state=0, **params)
    return clf.fit(X, y, sample_weight=sample_weight, sensitive_features=groups), X


def expected_rates(probability, y, groups, weights=None):
    """Per-group expected rates of decisions with P(positive) = probability (a groupby)."""
    weights = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    out = {"sel": [], "tpr": [], "fpr": [], "ppv": [], "pos": [], "neg": []}
    for g in np.unique(groups, axis=0):
        in_g = (groups == g) if np.ndim(groups) == 1 else (groups == g).all(axis=1)
        w, p, yy = weights[in_g], probability[in_g], y[in_g]
        out["sel"].append((w * p).sum() / w.sum())
        pos, neg = (w * yy).sum(), (w * (1 - yy)).sum()
        out["tpr"].append((w * p * yy).sum() / pos if pos > 0 else np.nan)
        out["fpr"].append((w * p * (1 - yy)).sum() / neg if neg > 0 else np.nan)
        selected = (w * p).sum()
        out["ppv"].append((w * p * yy).sum() / selected if selected > 1e-12 else np.nan)
        out["pos"].append(pos)
        out["neg"].append(neg)
    return {key: np.array(value) for key, value in out.items()}


def gap_of(constraint, rates):
    keys = {
        "demographic_parity": ["sel"],
        "equalized_odds": ["tpr", "fpr"],
        "true_positive_rate_parity": ["tpr"],
        "false_negative_rate_parity": ["tpr"],
        "false_positive_rate_parity": ["fpr"],
        "true_negative_rate_parity": ["fpr"],
        "predictive_parity": ["ppv"],
    }[constraint]
    return max(
        np.nanmax(rates[k]) - np.nanmin(rates[k]) if not np.isnan(rates[k]).all() else 0.0
        for k in keys
    )


def objective_of(objective, rates):
    tp = np.nansum(rates["tpr"] * rates["pos"])
    tn = np.nansum((1 - rates["fpr"]) * rates["neg"])
    P, N = rates["pos"].sum(), rates["neg"].sum()
    return {
        "accuracy": (tp + tn) / (P + N),
        "balanced_accuracy": (tp / P + tn / N) / 2,
        "true_positive_rate": tp / P,
        "true_negative_rate": tn / N,
    }[objective]


def make_scores(n, n_groups, seed, n_distinct=None):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    shift = rng.normal(size=n_groups)[groups]
    y = (rng.random(n) < 1 / (1 + np.exp(-(shift + rng.normal(size=n))))).astype(int)
    scores = y * 1.2 + shift * 0.7 + rng.normal(size=n)
    if n_distinct is not None:
        scores = np.round(scores * n_distinct / 6) / n_distinct
    return scores, y, groups


# --------------------------------------------------------------------------------------------
# optimality and exactness


def _oracle_candidates(scores, y, weights, lattice):
    """(fpr, tpr) of every mixture of two threshold rules with a weight on a lattice."""
    thresholds = np.r_[np.inf, np.unique(scores)]
    pos, neg = (weights * y).sum(), (weights * (1 - y)).sum()
    fpr = np.array([(weights * (1 - y) * (scores >= t)).sum() for t in thresholds]) / neg
    tpr = np.array([(weights * y * (scores >= t)).sum() for t in thresholds]) / pos
    i, j = np.triu_indices(len(thresholds))
    m = np.linspace(0, 1, lattice + 1)[:, None]
    x, y = (m * fpr[i] + (1 - m) * fpr[j]).ravel(), (m * tpr[i] + (1 - m) * tpr[j]).ravel()
    # The rules offered are monotone in the score and on or above the diagonal; for the rate
    # parities this loses nothing, and for predictive parity it is the family searched.
    above = y >= x - 1e-12
    return x[above], y[above]


@pytest.mark.parametrize("constraint", CONSTRAINTS)
@pytest.mark.parametrize("objective", ["accuracy", "balanced_accuracy"])
@pytest.mark.parametrize("seed", [0, 1])
def test_at_least_as_good_as_a_brute_force_oracle(constraint, objective, seed):
    tolerance = 0.03  # a lattice rarely meets exact parity; both sides get the same slack
    scores, y, groups = make_scores(60, 2, seed, n_distinct=8)
    for g in (0, 1):  # both classes in each group, so that every rate is defined
        y[np.flatnonzero(groups == g)[:2]] = [0, 1]
    weights = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
    clf, X = on_scores(
        scores, y, groups, weights, constraint=constraint, objective=objective, tolerance=tolerance
    )
    ours = expected_rates(
        clf.decision_probability(X, sensitive_features=groups), y, groups, weights
    )
    assert gap_of(constraint, ours) <= tolerance + 1e-9
    assert objective_of(objective, ours) == pytest.approx(clf.objective_value_, abs=1e-12)

    # Oracle: every pair of candidate points of the two groups.
    cand = [
        _oracle_candidates(scores[groups == g], y[groups == g], weights[groups == g], 40)
        for g in (0, 1)
    ]
    base = expected_rates(np.zeros(len(y)), y, groups, weights)
    P, N = base["pos"], base["neg"]
    x0, y0 = cand[0][0][:, None], cand[0][1][:, None]
    x1, y1 = cand[1][0][None, :], cand[1][1][None, :]
    sel0, sel1 = (P[0] * y0 + N[0] * x0) / (P[0] + N[0]), (P[1] * y1 + N[1] * x1) / (P[1] + N[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        ppv0, ppv1 = P[0] * y0 / (P[0] * y0 + N[0] * x0), P[1] * y1 / (P[1] * y1 + N[1] * x1)
    # a group that selects nobody has no precision: it constrains nothing
    ppv_gap = np.where(np.isnan(ppv0) | np.isnan(ppv1), 0.0, np.abs(ppv0 - ppv1))
    gaps = {
        "predictive_parity": ppv_gap,
        "demographic_parity": np.abs(sel0 - sel1),
        "equalized_odds": np.maximum(np.abs(x0 - x1), np.abs(y0 - y1)),
        "true_positive_rate_parity": np.abs(y0 - y1) + 0 * x1,
        "false_negative_rate_parity": np.abs(y0 - y1) + 0 * x1,
        "false_positive_rate_parity": np.abs(x0 - x1) + 0 * y1,
        "true_negative_rate_parity": np.abs(x0 - x1) + 0 * y1,
    }[constraint]
    tp, tn = P[0] * y0 + P[1] * y1, N[0] * (1 - x0) + N[1] * (1 - x1)
    value = (
        (tp + tn) / (P.sum() + N.sum())
        if objective == "accuracy"
        else (tp / P.sum() + tn / N.sum()) / 2
    )
    oracle = value[gaps <= tolerance].max()
    assert clf.objective_value_ >= oracle - 1e-12
    # ... and not more than what a finer search could reach: the lattice is 1/40.
    assert clf.objective_value_ <= oracle + 0.03


@pytest.mark.parametrize("constraint", CONSTRAINTS)
@pytest.mark.parametrize("n_groups", [2, 5, 20])
@pytest.mark.parametrize("n_distinct", [None, 12])
def test_constraint_holds_exactly_in_expectation(constraint, n_groups, n_distinct):
    scores, y, groups = make_scores(3000, n_groups, n_groups, n_distinct=n_distinct)
    weights = np.random.default_rng(1).exponential(size=len(y))
    clf, X = on_scores(scores, y, groups, weights, constraint=constraint)
    rates = expected_rates(
        clf.decision_probability(X, sensitive_features=groups), y, groups, weights
    )
    assert gap_of(constraint, rates) <= 1e-9
    assert clf.constraint_gap_ <= 1e-9
    np.testing.assert_allclose(clf.rates_["selection_rate"], rates["sel"], atol=1e-12)
    np.testing.assert_allclose(clf.rates_["true_positive_rate"], rates["tpr"], atol=1e-12)
    np.testing.assert_allclose(clf.rates_["false_positive_rate"], rates["fpr"], atol=1e-12)
    np.testing.assert_allclose(clf.rates_["false_negative_rate"], 1 - rates["tpr"], atol=1e-12)
    # Rules are monotone in the score: P(positive) non-increasing from high to low scores.
    assert (np.diff(clf.decision_probabilities_, axis=1) <= 1e-12).all()
    assert (clf.thresholds_[:, 0] >= clf.thresholds_[:, 1]).all()


def test_equalized_odds_matches_the_two_group_closed_form():
    # tolerance 0, two groups: the common point maximises accuracy over the minimum of the
    # two upper hulls, whose optimum is at a vertex of that minimum (hull vertices or
    # crossings); enumerate those candidate x and take the best.
    scores, y, groups = make_scores(400, 2, 3, n_distinct=20)
    clf, _ = on_scores(scores, y, groups, constraint="equalized_odds")
    hulls = clf.hulls_
    xs = np.unique(np.r_[hulls[0][0], hulls[1][0], np.linspace(0, 1, 20001)])
    upper = np.minimum(
        np.interp(xs, hulls[0][0], hulls[0][1]), np.interp(xs, hulls[1][0], hulls[1][1])
    )
    P = np.array([y[groups == g].sum() for g in (0, 1)])
    N = np.array([(1 - y[groups == g]).sum() for g in (0, 1)])
    accuracy = (P.sum() * upper + N.sum() * (1 - xs)) / len(y)
    assert clf.objective_value_ >= accuracy.max() - 1e-12
    assert clf.objective_value_ <= accuracy.max() + 1e-4


@pytest.mark.parametrize("constraint", CONSTRAINTS)
def test_invariant_to_renaming_the_groups(constraint):
    scores, y, groups = make_scores(800, 4, 9, n_distinct=15)
    names = np.array(["d", "b", "c", "a"])
    clf, _ = on_scores(scores, y, groups, constraint=constraint)
    renamed, _ = on_scores(scores, y, names[groups], constraint=constraint)
    # The optimum's value is unique (the optimal rules need not be when the program is
    # degenerate).
    assert renamed.objective_value_ == pytest.approx(clf.objective_value_, abs=1e-12)
    assert renamed.groups_ == ["a", "b", "c", "d"]
    assert renamed.constraint_gap_ <= 1e-9


def test_one_class_group_leaves_the_undefined_rate_out():
    scores, y, groups = make_scores(500, 3, 4)
    y[groups == 2] = 0  # no positives: its TPR is undefined
    clf, X = on_scores(scores, y, groups, constraint="equalized_odds")
    assert np.isnan(clf.rates_["true_positive_rate"][2])
    assert clf.hulls_[2] is None
    rates = expected_rates(clf.decision_probability(X, sensitive_features=groups), y, groups)
    assert gap_of("equalized_odds", rates) <= 1e-9


def test_without_sensitive_features_one_optimal_threshold():
    scores, y, _ = make_scores(300, 1, 5)
    clf, X = on_scores(scores, y, None)
    best = max(((scores >= t) == y).mean() for t in np.r_[np.unique(scores), np.inf])
    assert clf.objective_value_ == pytest.approx(best, abs=1e-12)
    assert clf.groups_ == ["all"]
    with pytest.raises(ValueError, match="fitted without sensitive features"):
        clf.predict(X, sensitive_features=np.zeros(len(y)))


# --------------------------------------------------------------------------------------------
# properties (hypothesis)

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def small_problems(draw):
    n = draw(st.integers(8, 50))
    n_groups = draw(st.integers(1, 3))
    groups = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    scores = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=float)
    scores += draw(st.sampled_from([0.0, 1e-3])) * np.arange(n)  # ties or none
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0]
    return scores, y, groups


SETTINGS = settings(max_examples=25, deadline=None)


@SETTINGS
@given(small_problems(), st.sampled_from(CONSTRAINTS), st.sampled_from(OBJECTIVES))
def test_objective_non_decreasing_in_tolerance(problem, constraint, objective):
    scores, y, groups = problem
    values = [
        on_scores(scores, y, groups, constraint=constraint, objective=objective, tolerance=t)[
            0
        ].objective_value_
        for t in (0.0, 0.05, 0.2, 0.5, 1.0)
    ]
    assert all(b >= a - 1e-9 for a, b in zip(values, values[1:]))


@SETTINGS
@given(small_problems(), st.sampled_from(CONSTRAINTS))
def test_tolerance_at_the_unconstrained_gap_gives_the_unconstrained_optimum(problem, constraint):
    scores, y, groups = problem
    # Unconstrained accuracy decomposes over groups: best threshold of each group on its own.
    best = 0.0
    for g in np.unique(groups):
        s, yy = scores[groups == g], y[groups == g]
        best += max(((s >= t) == yy).sum() for t in np.r_[np.unique(s), np.inf])
    free = on_scores(scores, y, groups, constraint=constraint, tolerance=1.0)[0]
    assert free.objective_value_ == pytest.approx(best / len(y), abs=1e-9)
    at_gap = on_scores(scores, y, groups, constraint=constraint, tolerance=free.constraint_gap_)
    assert at_gap[0].objective_value_ == pytest.approx(best / len(y), abs=1e-9)


@SETTINGS
@given(small_problems(), st.sampled_from(CONSTRAINTS))
def test_invariant_to_monotone_transforms_of_the_score(problem, constraint):
    scores, y, groups = problem
    clf, X = on_scores(scores, y, groups, constraint=constraint)
    moved, X_moved = on_scores(np.exp(scores / 3) - 5, y, groups, constraint=constraint)
    assert moved.objective_value_ == pytest.approx(clf.objective_value_, abs=1e-9)
    np.testing.assert_allclose(
        moved.decision_probability(X_moved, sensitive_features=groups),
        clf.decision_probability(X, sensitive_features=groups),
        atol=1e-9,
    )


@SETTINGS
@given(small_problems(), st.sampled_from(CONSTRAINTS), st.data())
def test_integer_weights_equal_repeated_rows(problem, constraint, data):
    scores, y, groups = problem
    weights = np.array(data.draw(st.lists(st.integers(1, 3), min_size=len(y), max_size=len(y))))
    weighted, X = on_scores(scores, y, groups, weights.astype(float), constraint=constraint)
    rows = np.repeat(np.arange(len(y)), weights)
    repeated, _ = on_scores(scores[rows], y[rows], groups[rows], constraint=constraint)
    assert weighted.objective_value_ == pytest.approx(repeated.objective_value_, abs=1e-9)
    for name, values in weighted.rates_.items():
        np.testing.assert_allclose(values, repeated.rates_[name], atol=1e-9, err_msg=name)


def test_predictive_parity_breaks_a_tie_alike_for_weights_and_repeated_rows():
    # Found by the property above: one group, selecting the two top rows (one positive, one
    # negative, weight 1 each) gains exactly nothing under accuracy; the weighted sums rounded
    # that gain to a hair above 0 and selected them, the repeated rows did not.
    scores = np.r_[np.arange(26) / 1000, 1.026, 0.027, 0.028, 0.029, 1.030]
    y = (np.arange(31) == 26).astype(int)
    groups = np.zeros(31, dtype=int)
    weights = np.ones(31, dtype=int)
    weights[[21, 22, 28]], weights[29] = 2, 3
    weighted, _ = on_scores(
        scores, y, groups, weights.astype(float), constraint="predictive_parity"
    )
    rows = np.repeat(np.arange(31), weights)
    repeated, _ = on_scores(scores[rows], y[rows], groups[rows], constraint="predictive_parity")
    for fitted in (weighted, repeated):
        np.testing.assert_array_equal(fitted.rates_["selection_rate"], [0.0])


# --------------------------------------------------------------------------------------------
# randomised decisions


def test_decisions_do_not_depend_on_batching_and_follow_random_state():
    scores, y, groups = make_scores(2000, 3, 6)
    clf, X = on_scores(scores, y, groups, constraint="equalized_odds")
    assert ((clf.decision_probabilities_ > 0) & (clf.decision_probabilities_ < 1)).any()
    whole = clf.predict(X, sensitive_features=groups)
    one_by_one = np.array(
        [clf.predict(X[i : i + 1], sensitive_features=groups[i : i + 1])[0] for i in range(200)]
    )
    np.testing.assert_array_equal(one_by_one, whole[:200])
    order = np.random.default_rng(0).permutation(len(y))
    np.testing.assert_array_equal(
        clf.predict(X[order], sensitive_features=groups[order]), whole[order]
    )
    again = clone(clf).fit(X, y, sensitive_features=groups)
    np.testing.assert_array_equal(again.predict(X, sensitive_features=groups), whole)
    other = clone(clf).set_params(random_state=1).fit(X, y, sensitive_features=groups)
    assert (other.predict(X, sensitive_features=groups) != whole).any()


def test_empirical_rates_approach_the_expected_ones():
    scores, y, groups = make_scores(200_000, 2, 7)
    clf, X = on_scores(scores, y, groups, constraint="demographic_parity")
    predicted = clf.predict(X, sensitive_features=groups)
    for g in (0, 1):
        n_g = (groups == g).sum()
        expected = clf.rates_["selection_rate"][g]
        assert abs(predicted[groups == g].mean() - expected) < 4 * np.sqrt(0.25 / n_g)


def test_tied_scores_of_different_rows_get_independent_draws():
    # Three distinct scores: the optimum randomises within a whole tie block. Rows differ in a
    # second column the model ignores, so the block does not fall one way.
    rng = np.random.default_rng(8)
    n = 40_000
    groups = rng.integers(0, 2, n)
    y = (rng.random(n) < np.where(groups == 1, 0.6, 0.3)).astype(int)
    scores = np.clip(y + groups + rng.integers(-1, 2, n), 0, 2).astype(float)
    X = np.c_[scores, rng.normal(size=n)]
    model = FrozenEstimator(ScoreColumn().fit(X, y))
    clf = GroupThresholdClassifier(model, constraint="demographic_parity", random_state=0)
    clf.fit(X, y, sensitive_features=groups)
    middle = clf.decision_probabilities_[:, 1]
    assert ((middle > 0.05) & (middle < 0.95)).any()
    predicted = clf.predict(X, sensitive_features=groups)
    for g in (0, 1):
        rate, n_g = predicted[groups == g].mean(), (groups == g).sum()
        assert abs(rate - clf.rates_["selection_rate"][g]) < 4 * np.sqrt(0.25 / n_g)
    # The same rows in a DataFrame: keyed by pandas' row hash, also batch-independent.
    import pandas as pd

    frame = pd.DataFrame(X, columns=["score", "noise"])
    clf_frame = clone(clf).fit(frame, y, sensitive_features=groups)
    whole = clf_frame.predict(frame, sensitive_features=groups)
    parts = np.concatenate(
        [
            clf_frame.predict(frame[i : i + 7], sensitive_features=groups[i : i + 7])
            for i in range(0, 700, 7)
        ]
    )
    np.testing.assert_array_equal(parts, whole[:700])


# --------------------------------------------------------------------------------------------
# scikit-learn contract


@parametrize_with_checks(
    [
        GroupThresholdClassifier(LogisticRegression(), cv=3, random_state=0),
        GroupThresholdClassifier(
            LogisticRegression(),
            constraint="predictive_parity",
            response_method="predict",
            sampling="batch",
            cv=3,
            random_state=0,
        ),
    ]
)
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def make_data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=n) + group, rng.normal(size=n)]
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0.5).astype(int)
    return X, y, group


def test_thresholds_are_chosen_on_out_of_fold_scores_and_the_model_refitted():
    X, y, group = make_data()
    cv = KFold(3, shuffle=True, random_state=0)
    clf = GroupThresholdClassifier(LogisticRegression(), cv=cv, random_state=0)
    clf.fit(X, y, sensitive_features=group)
    oof = cross_val_predict(LogisticRegression(), X, y, cv=cv, method="predict_proba")[:, 1]
    reference, _ = on_scores(oof, y, group)
    np.testing.assert_allclose(clf.thresholds_, reference.thresholds_)
    np.testing.assert_allclose(clf.decision_probabilities_, reference.decision_probabilities_)
    np.testing.assert_allclose(clf.estimator_.coef_, LogisticRegression().fit(X, y).coef_)


def test_frozen_model_is_not_refitted():
    X, y, group = make_data()
    fitted = LogisticRegression().fit(X[:300], y[:300])
    clf = GroupThresholdClassifier(FrozenEstimator(fitted), random_state=0)
    clf.fit(X[300:], y[300:], sensitive_features=group[300:])
    assert clf.estimator_.estimator is fitted
    np.testing.assert_array_equal(clf.estimator_.estimator.coef_, fitted.coef_)
    reference, _ = on_scores(fitted.predict_proba(X[300:])[:, 1], y[300:], group[300:])
    np.testing.assert_allclose(clf.thresholds_, reference.thresholds_)


def test_string_labels_and_pos_label():
    X, y, group = make_data()
    labels = np.where(y == 1, "yes", "no")
    clf = GroupThresholdClassifier(LogisticRegression(), pos_label="no", random_state=0)
    clf.fit(X, labels, sensitive_features=group)
    assert clf.pos_label_ == "no"
    pred = clf.predict(X, sensitive_features=group)
    assert set(pred) <= {"yes", "no"}
    prob = clf.decision_probability(X, sensitive_features=group)
    assert np.corrcoef(prob, X[:, 0])[0, 1] < 0  # "no" is predicted for low scores of "yes"
    with pytest.raises(ValueError, match="pos_label='maybe'"):
        clone(clf).set_params(pos_label="maybe").fit(X, labels, sensitive_features=group)


def test_intersectional_groups_from_two_columns():
    import pandas as pd

    X, y, group = make_data(1200)
    other = np.random.default_rng(1).choice(["a", "b"], len(y))
    sensitive = pd.DataFrame({"g": group, "h": other})
    clf = GroupThresholdClassifier(
        LogisticRegression(), constraint="equalized_odds", random_state=0
    )
    clf.fit(X, y, sensitive_features=sensitive)
    assert clf.groups_ == [(0, "a"), (0, "b"), (1, "a"), (1, "b")]
    assert clf.thresholds_.shape == (4, 2)
    assert clf.constraint_gap_ <= 1e-9


def test_grid_search_in_sensitive_column_mode_with_a_string_column():
    import pandas as pd

    X, y, group = make_data()
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "sex": np.where(group, "f", "m")})
    search = GridSearchCV(
        GroupThresholdClassifier(LogisticRegression(), sensitive_column="sex", random_state=0),
        {"tolerance": [0.0, 0.1, 1.0]},
        cv=3,
        error_score="raise",
    ).fit(frame, y)
    assert search.best_estimator_.n_features_in_ == 3
    assert search.predict(frame).shape == (len(y),)


def test_grid_search_with_metadata_routing():
    X, y, group = make_data()
    with sklearn.config_context(enable_metadata_routing=True):
        clf = (
            GroupThresholdClassifier(
                LogisticRegression().set_fit_request(sample_weight=True), random_state=0
            )
            .set_fit_request(sample_weight=True)
            .set_score_request(sample_weight=True)
        )
        search = GridSearchCV(clf, {"constraint": CONSTRAINTS[:2]}, cv=3, error_score="raise")
        search.fit(X, y, sensitive_features=group, sample_weight=np.ones(len(y)))
        pred = search.best_estimator_.predict(X, sensitive_features=group)
    assert pred.shape == (len(y),)
    # The weights reach the model as well: doubling a half of them changes its coefficients.
    weights = np.where(group == 1, 2.0, 1.0)
    with sklearn.config_context(enable_metadata_routing=True):
        weighted = clone(clf).fit(X, y, sensitive_features=group, sample_weight=weights)
    np.testing.assert_allclose(
        weighted.estimator_.coef_,
        LogisticRegression().fit(X, y, sample_weight=weights).coef_,
    )


def test_clear_errors():
    X, y, group = make_data()
    clf = GroupThresholdClassifier(LogisticRegression(), random_state=0)
    with pytest.raises(ValueError, match="Only binary classification"):
        clf.fit(X, np.arange(len(y)) % 3, sensitive_features=group)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        clf.fit(X[:-1], y, sensitive_features=group)
    clf.fit(X, y, sensitive_features=group)
    with pytest.raises(ValueError, match="pass sensitive_features"):
        clf.predict(X)
    with pytest.raises(ValueError, match="not seen at fit"):
        clf.predict(X, sensitive_features=group + 5)
    with pytest.raises(ValueError, match="zero total sample weight"):
        clone(clf).fit(X, y, sample_weight=(group == 0).astype(float), sensitive_features=group)
    with pytest.raises(ValueError, match="positive class has zero total sample weight"):
        clone(clf).fit(X, y, sample_weight=(y == 0).astype(float), sensitive_features=group)
    assert not hasattr(clf, "predict_proba")


# --------------------------------------------------------------------------------------------
# heavy weights: an exact oracle in rational arithmetic


def _upper_hull_exact(points):
    """Upper concave hull of points (x, y) given as Fractions, by Andrew's monotone chain."""
    hull = []
    for p in sorted(set(points)):
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) >= 0:
                hull.pop()  # hull[-1] is on or under the chord: not a vertex
            else:
                break
        hull.append(p)
    return hull


def _at_exact(hull, x):
    """The hull's value at x (within its range), exactly."""
    for (x1, y1), (x2, y2) in zip(hull, hull[1:]):
        if x1 <= x <= x2:
            return y1 if x2 == x1 else y1 + (y2 - y1) * (x - x1) / (x2 - x1)
    raise AssertionError("x outside the hull")


def _demographic_parity_optimum(scores, y, groups, weights):
    """Exact optimal accuracy at demographic parity, tolerance 0, for integer weights.

    Per group, the randomised rules reach exactly the concave envelope of the points
    (selected weight, true positive weight) of the rules "score >= t"; at a common selection
    rate r each group's best accuracy gain is 2 TP(r) - r W, concave and piecewise linear
    in r, so the optimum is at one of the groups' envelope vertices.
    """
    from fractions import Fraction

    envelopes, totals = [], []
    for g in np.unique(groups):
        s, yy = scores[groups == g], y[groups == g]
        w = [int(v) for v in weights[groups == g]]
        W = sum(w)
        points = [(Fraction(0), Fraction(0))]
        for t in np.unique(s)[::-1]:
            chosen = np.flatnonzero(s >= t)
            selected = sum(w[i] for i in chosen)
            positive = sum(w[i] for i in chosen if yy[i] == 1)
            points.append((Fraction(selected, W), Fraction(positive)))
        envelopes.append(_upper_hull_exact(points))
        totals.append((W, sum(w[i] for i in range(len(w)) if yy[i] == 0)))
    total = sum(W for W, _ in totals)
    best = None
    for r in sorted({x for hull in envelopes for x, _ in hull}):
        correct = sum(
            2 * _at_exact(hull, r) - r * W + N for hull, (W, N) in zip(envelopes, totals)
        )
        best = correct if best is None else max(best, correct)
    return float(best / total)


@pytest.mark.parametrize("power", [40, 54, 200, 1000])
def test_heavy_weights_give_the_exact_optimum(power):
    # Ten rows of groups 0 and 1 weigh 2**power (2**40 is about 1e12) and the rest 1; group 2
    # has light rows only. Until the program moved to the hulls' vertices, rows weighing 1e12
    # let the solver put a group's point 1e-12 off its hull (within its tolerance) at a far
    # higher TPR than reachable: the fitted rule met the constraint but reached 0.5 where the
    # optimum is above 0.8; from 1e16 the program had NaN rows.
    scores, y, groups = make_scores(600, 3, 12, n_distinct=40)
    weights = np.ones(len(y))
    heavy = np.r_[np.flatnonzero(groups == 0)[:5], np.flatnonzero(groups == 1)[:5]]
    weights[heavy] = 2.0**power
    clf, X = on_scores(scores, y, groups, weights, constraint="demographic_parity")
    rates = expected_rates(
        clf.decision_probability(X, sensitive_features=groups), y, groups, weights
    )
    assert gap_of("demographic_parity", rates) <= 1e-9
    assert clf.constraint_gap_ <= 1e-9
    assert objective_of("accuracy", rates) == pytest.approx(clf.objective_value_, abs=1e-12)
    exact_weights = np.ones(len(y), dtype=object)  # Python integers: exact sums
    exact_weights[heavy] = 2**power
    exact = _demographic_parity_optimum(scores, y, groups, exact_weights)
    assert clf.objective_value_ == pytest.approx(exact, abs=1e-9)


def test_the_exact_oracle_agrees_with_the_program_on_ordinary_weights():
    scores, y, groups = make_scores(300, 3, 7, n_distinct=25)
    weights = np.random.default_rng(0).integers(1, 4, len(y))
    clf, _ = on_scores(scores, y, groups, weights.astype(float))
    assert clf.objective_value_ == pytest.approx(
        _demographic_parity_optimum(scores, y, groups, weights), abs=1e-12
    )


def test_a_weight_range_float64_cannot_sum_is_refused():
    scores, y, groups = make_scores(200, 2, 3)
    weights = np.ones(len(y))
    weights[0], weights[1] = 1e-200, 1e200  # 1e400 times the smallest
    with pytest.raises(ValueError, match=r"sample_weight ranges from 1e-200 to 1e\+200"):
        on_scores(scores, y, groups, weights)


def test_fairlearn_habits_get_messages_that_name_our_parameters():
    """ThresholdOptimizer's names (constraints=, prefit=, predict_method=, positional
    arguments, predict(random_state=), _pmf_predict) are met with our parameter's name."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression()
    habits = [
        (lambda: GroupThresholdClassifier(model, "demographic_parity"), "constraint="),
        (lambda: GroupThresholdClassifier(model, constraints="equalized_odds"), "constraint="),
        (lambda: GroupThresholdClassifier(model, prefit=True), "FrozenEstimator"),
        (lambda: GroupThresholdClassifier(model, predict_method="auto"), "response_method="),
        (lambda: GroupThresholdClassifier(model, grid_size=1000), "exact"),
        (lambda: GroupThresholdClassifier(model, flip=True), "upper convex hull"),
    ]
    for make, named in habits:
        with pytest.raises(TypeError, match=named):
            make()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    group = np.arange(200) % 2
    fitted = GroupThresholdClassifier(model, random_state=0).fit(X, y, sensitive_features=group)
    with pytest.raises(TypeError, match="random_state given at construction"):
        fitted.predict(X, sensitive_features=group, random_state=0)
    with pytest.raises(AttributeError, match="decision_probability"):
        fitted._pmf_predict(X, sensitive_features=group)
    # The wrappers change nothing else: same signature, parameters and decisions.
    assert "random_state" not in inspect.signature(GroupThresholdClassifier.predict).parameters
    assert "constraint" in GroupThresholdClassifier(model).get_params()
    np.testing.assert_array_equal(
        fitted.predict(X, sensitive_features=group),
        clone(fitted).fit(X, y, sensitive_features=group).predict(X, sensitive_features=group),
    )
