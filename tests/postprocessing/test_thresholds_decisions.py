"""GroupThresholdClassifier judged on the decisions it makes: repeated rows, the batch mode's
bound, cuts that generalise, and decisions that depend on the rows' values only."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import polars
import pytest
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from test_thresholds import ScoreColumn, make_scores, on_scores
from threadpoolctl import threadpool_limits

import skfair
from skfair.postprocessing import GroupThresholdClassifier
from skfair.postprocessing._rules._threshold_lp import _vertex_pairs


def repeated_rows(n_distinct=60, copies=25, seed=0):
    """Two groups of distinct rows (a score with few values and a second column), each row
    repeated ``copies`` times, as in data sets of a few categorical features."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(2), n_distinct // 2)
    scores = rng.integers(0, 4, n_distinct) + 0.5 * groups
    X = np.c_[scores, rng.normal(size=n_distinct), groups]
    y = (rng.random(n_distinct) < 0.2 + 0.15 * scores).astype(int)
    rows = np.repeat(np.arange(n_distinct), copies)
    y_rows = y[rows]
    y_rows[rng.random(rows.size) < 0.25] ^= 1  # copies of a row do not share a label
    return X[rows], y_rows, groups[rows]


def fit_on(X, y, groups, **params):
    model = FrozenEstimator(ScoreColumn().fit(X, y))
    return GroupThresholdClassifier(model, **params).fit(X, y, sensitive_features=groups)


def selection_rates(predicted, groups):
    return np.array([predicted[groups == g].mean() for g in (0, 1)])


# --------------------------------------------------------------------------------------------
# sampling="row": identical rows draw independently


@pytest.mark.parametrize("copies", [1, 25])
def test_realised_rates_over_200_seeds_against_independent_draws(copies):
    # Distinct rows draw like independent coins; the copies of a repeated row hold the
    # expected number of positives rounded, so they vary less (sharing one draw, they would
    # vary about sqrt(copies) = 5 times more).
    X, y, groups = repeated_rows(n_distinct=60 * 25 // copies, copies=copies)
    clf = fit_on(X, y, groups, constraint="demographic_parity")
    probability = clf.decision_probability(X, sensitive_features=groups)
    coin = (probability > 0.05) & (probability < 0.95)
    randomised = [g for g in (0, 1) if coin[groups == g].mean() > 0.1]
    assert randomised
    ours, independent = [], []
    rng = np.random.default_rng(0)
    for seed in range(200):
        clf._seed = seed  # the seed drawn from random_state at fit; the rules stay the same
        ours.append(selection_rates(clf.predict(X, sensitive_features=groups), groups))
        independent.append(selection_rates(rng.random(len(y)) < probability, groups))
    ours, independent = np.array(ours), np.array(independent)
    np.testing.assert_allclose(ours.mean(axis=0), independent.mean(axis=0), atol=0.01)
    ratio = ours.std(axis=0)[randomised] / independent.std(axis=0)[randomised]
    if copies == 1:
        # 200 draws: the ratio of two standard deviations is within 0.8-1.25 with ~99.8%
        assert ((ratio > 0.75) & (ratio < 1.33)).all(), ratio
    else:
        assert (ratio < 0.5).all(), ratio
    gap = np.abs(ours[:, 0] - ours[:, 1]).mean()
    assert gap <= np.abs(independent[:, 0] - independent[:, 1]).mean() * 1.1


def test_a_batch_in_any_order_gives_each_row_the_same_decisions():
    X, y, groups = repeated_rows(copies=10)
    for sampling in ("row", "batch"):
        clf = fit_on(X, y, groups, constraint="equalized_odds", sampling=sampling, random_state=0)
        predicted = clf.predict(X, sensitive_features=groups)
        order = np.random.default_rng(1).permutation(len(y))
        shuffled = np.empty_like(predicted)
        shuffled[order] = clf.predict(X[order], sensitive_features=groups[order])
        # per distinct row, the same number of positive decisions among its copies
        _, row_id = np.unique(X, axis=0, return_inverse=True)
        np.testing.assert_array_equal(
            np.bincount(row_id, weights=shuffled), np.bincount(row_id, weights=predicted)
        )
        if sampling == "row":  # a row alone: the decision of its first copy in any batch
            alone = clf.predict(X[:1], sensitive_features=groups[:1])
            assert alone[0] == predicted[0]


# --------------------------------------------------------------------------------------------
# sampling="batch": the realised rates within one row of the expected ones


@pytest.mark.parametrize("tolerance", [0.0, 0.03])
def test_batch_mode_bounds_the_realised_selection_gap(tolerance):
    X, y, groups = repeated_rows(n_distinct=80, copies=7, seed=2)
    clf = fit_on(
        X, y, groups, constraint="demographic_parity", tolerance=tolerance, sampling="batch"
    )
    smallest = np.bincount(groups).min()
    rng = np.random.default_rng(0)
    for seed in range(200):
        clf._seed = seed
        rates = selection_rates(clf.predict(X, sensitive_features=groups), groups)
        assert abs(rates[0] - rates[1]) <= tolerance + 1 / smallest + 1e-12
        # any sub-batch: each group's count is its expected count rounded
        part = rng.random(len(y)) < 0.3
        predicted = clf.predict(X[part], sensitive_features=groups[part])
        probability = clf.decision_probability(X[part], sensitive_features=groups[part])
        for g in (0, 1):
            expected = probability[groups[part] == g].sum()
            assert expected - 1 < predicted[groups[part] == g].sum() < expected + 1


def test_batch_mode_keeps_each_rows_probability():
    X, y, groups = repeated_rows(n_distinct=40, copies=3, seed=3)
    generator = np.random.default_rng(0)  # a Generator seeds the decisions too
    clf = fit_on(
        X, y, groups, constraint="equalized_odds", sampling="batch", random_state=generator
    )
    probability = clf.decision_probability(X, sensitive_features=groups)
    frequency = np.zeros(len(y))
    n_seeds = 400
    for seed in range(n_seeds):
        clf._seed = seed
        frequency += clf.predict(X, sensitive_features=groups)
    frequency /= n_seeds
    # per row, 400 draws: 5 standard errors
    assert (np.abs(frequency - probability) <= 5 * np.sqrt(0.25 / n_seeds)).all()


def test_batch_mode_spreads_equalized_odds_less_than_independent_draws():
    X, y, groups = repeated_rows(n_distinct=80, copies=10, seed=4)
    row = fit_on(X, y, groups, constraint="equalized_odds", sampling="row")
    batch = clone(row).set_params(sampling="batch").fit(X, y, sensitive_features=groups)

    def mean_gap(clf):
        gaps = []
        for seed in range(100):
            clf._seed = seed
            predicted = clf.predict(X, sensitive_features=groups)
            gaps.append(
                max(
                    abs(
                        predicted[(groups == 0) & (y == c)].mean()
                        - predicted[(groups == 1) & (y == c)].mean()
                    )
                    for c in (0, 1)
                )
            )
        return np.mean(gaps)

    assert mean_gap(batch) < mean_gap(row)


def _spread_of(probability, y):
    """Var(TPR) + Var(FPR) of independent decisions with these probabilities."""
    variance = probability * (1 - probability)
    return (
        variance[y == 1].sum() / (y == 1).sum() ** 2 + variance[y == 0].sum() / (y == 0).sum() ** 2
    )


@pytest.mark.parametrize("seed", range(3))
def test_points_under_the_hull_take_the_rule_of_least_spread(seed):
    # Equalized odds puts every group at one point, strictly under the hulls of all but one
    # group. Oracle: every mixture of two hull vertices with "nobody" or "everybody" holding
    # the point (barycentric coordinates by numpy), and the hull point mixed with a coin.
    scores, y, groups = make_scores(3000, 3, seed + 20, n_distinct=40)
    clf, X = on_scores(scores, y, groups, constraint="equalized_odds")
    probability = clf.decision_probability(X, sensitive_features=groups)
    under = 0
    for g in range(3):
        s, yy, p = scores[groups == g], y[groups == g], probability[groups == g]
        fpr, tpr, cuts = clf.hulls_[g]
        point = np.array(
            [clf.rates_["false_positive_rate"][g], clf.rates_["true_positive_rate"][g]]
        )
        y_hull = np.interp(point[0], fpr, tpr)
        if point[1] >= y_hull - 1e-9:
            continue
        under += 1
        candidates = []
        vertices = list(zip(fpr, tpr, cuts))
        for a in range(len(vertices)):
            for b in range(a + 1, len(vertices)):
                for third in ((0.0, 0.0, np.inf), (1.0, 1.0, -np.inf)):
                    triangle = [third, vertices[a], vertices[b]]
                    matrix = np.array(
                        [[v[0] for v in triangle], [v[1] for v in triangle], [1, 1, 1]]
                    )
                    if abs(np.linalg.det(matrix)) < 1e-12:
                        continue
                    weights = np.linalg.solve(matrix, [point[0], point[1], 1.0])
                    if (weights >= -1e-12).all():
                        candidates.append(sum(w * (s >= v[2]) for w, v in zip(weights, triangle)))
        mix = (point[1] - point[0]) / (y_hull - point[0])
        k = min(max(np.searchsorted(fpr, point[0], side="right"), 1), len(fpr) - 1)
        w = (point[0] - fpr[k - 1]) / (fpr[k] - fpr[k - 1])
        hull_rule = np.where(s >= cuts[k - 1], 1.0, np.where(s >= cuts[k], w, 0.0))
        candidates.append(mix * hull_rule + (1 - mix) * point[0])  # the coin
        for candidate in candidates:  # each reaches the point
            np.testing.assert_allclose(
                [candidate[yy == 0].mean(), candidate[yy == 1].mean()], point, atol=1e-9
            )
        np.testing.assert_allclose([p[yy == 0].mean(), p[yy == 1].mean()], point, atol=1e-9)
        oracle = min(_spread_of(candidate, yy) for candidate in candidates)
        assert _spread_of(p, yy) <= oracle + 1e-12
        assert _spread_of(p, yy) < _spread_of(candidates[-1], yy)  # less than the coin's
    assert under >= 1


# --------------------------------------------------------------------------------------------
# cuts


def test_thresholds_lie_midway_between_adjacent_scores_of_the_group():
    scores, y, groups = make_scores(2000, 3, 11, n_distinct=25)
    for constraint in ("demographic_parity", "equalized_odds", "predictive_parity"):
        clf, _ = on_scores(scores, y, groups, constraint=constraint)
        for g in range(3):
            distinct = np.unique(scores[groups == g])
            middles = (distinct[1:] + distinct[:-1]) / 2
            for threshold in clf.thresholds_[g]:
                assert (
                    np.isinf(threshold) or np.isclose(middles, threshold, rtol=0, atol=1e-12).any()
                )


def test_a_group_decided_alike_for_every_score_gets_infinite_thresholds():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=600)
    groups = np.repeat([0, 1, 2], 200)
    y = (rng.random(600) < 0.5).astype(int)
    y[groups == 1] = 1  # everyone positive: the best rule selects everyone
    y[groups == 2] = 0  # everyone negative
    clf, X = on_scores(scores, y, groups, constraint="demographic_parity", tolerance=1.0)
    np.testing.assert_array_equal(clf.thresholds_[1], [-np.inf, -np.inf])
    np.testing.assert_array_equal(clf.thresholds_[2], [np.inf, np.inf])
    beyond = np.array([[scores.min() - 10.0], [scores.max() + 10.0]])
    for g, expected in ((1, 1.0), (2, 0.0)):
        probability = clf.decision_probability(beyond, sensitive_features=[g, g])
        np.testing.assert_array_equal(probability, [expected, expected])
    assert clf.rates_["selection_rate"][1] == 1.0


def test_overfit_scores_are_cut_in_the_middle_of_the_gap():
    # A gradient-boosting model that separates the classes of its training rows, whose
    # thresholds are chosen on those rows (as a user post-processing the model's own training
    # data does): each group's cut lies midway between its highest negative and its lowest
    # positive training score, and on held-out rows the accuracy is that of this cut.
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import train_test_split

    from skfair.datasets import load_german_credit

    data = load_german_credit(as_frame=True)
    sex = data.sensitive_features["sex"].to_numpy()
    X_train, X_test, y_train, y_test, s_train, s_test = train_test_split(
        data.data,
        data.target.to_numpy(),
        sex,
        test_size=0.5,
        random_state=0,
        stratify=data.target,
    )
    model = HistGradientBoostingClassifier(
        categorical_features="from_dtype",
        max_iter=60,
        learning_rate=0.5,
        early_stopping=False,
        random_state=0,
    )
    with threadpool_limits(1):  # 500 rows: threads only contend
        model.fit(X_train, y_train)
        assert (model.predict(X_train) == y_train).mean() >= 0.99
        clf = GroupThresholdClassifier(
            FrozenEstimator(model), constraint="equalized_odds", random_state=0
        ).fit(X_train, y_train, sensitive_features=s_train)
        train_scores = model.predict_proba(X_train)[:, 1]
        for g, label in enumerate(clf.groups_):
            in_group = s_train == label
            highest_negative = train_scores[in_group & (y_train == 0)].max()
            lowest_positive = train_scores[in_group & (y_train == 1)].min()
            assert highest_negative < lowest_positive  # separated
            np.testing.assert_allclose(
                clf.thresholds_[g], (highest_negative + lowest_positive) / 2, rtol=0, atol=1e-12
            )
        test_scores = model.predict_proba(X_test)[:, 1]
        probability = clf.decision_probability(X_test, sensitive_features=s_test)
        cut = clf.thresholds_[np.searchsorted(clf.groups_, s_test), 0]
        np.testing.assert_array_equal(probability, test_scores >= cut)
        # a cut at the lowest positive training score (about 0.99 here) rejected most positives
        assert np.mean(probability == y_test) > 0.7


# --------------------------------------------------------------------------------------------
# decisions depend on the rows' values


def test_decisions_do_not_depend_on_dtypes_or_the_frame_library():
    rng = np.random.default_rng(5)
    n = 2000
    frame = pd.DataFrame(
        {"a": rng.integers(0, 6, n), "b": rng.integers(0, 3, n), "g": rng.integers(0, 2, n)}
    )
    y = (rng.random(n) < 0.2 + 0.1 * frame["a"] - 0.1 * frame["g"]).astype(int)
    as_float = frame.astype(float)
    fitted = LogisticRegression().fit(frame[["a", "b"]].astype(float), y)
    clf = GroupThresholdClassifier(
        FrozenEstimator(fitted), constraint="equalized_odds", random_state=0
    )
    by_int = clone(clf).fit(frame[["a", "b"]], y, sensitive_features=frame["g"])
    assert ((by_int.decision_probabilities_ > 0) & (by_int.decision_probabilities_ < 1)).any()
    decisions = by_int.predict(frame[["a", "b"]], sensitive_features=frame["g"])
    np.testing.assert_array_equal(
        by_int.predict(as_float[["a", "b"]], sensitive_features=frame["g"]), decisions
    )
    # the sensitive column read from X by position: pandas and polars decide alike
    positional = clone(clf).set_params(sensitive_column=2)
    from_pandas = positional.fit(frame, y).predict(frame)
    from_polars = clone(positional).fit(polars.from_pandas(frame), y)
    np.testing.assert_array_equal(from_polars.predict(polars.from_pandas(frame)), from_pandas)
    np.testing.assert_array_equal(from_pandas, decisions)


# --------------------------------------------------------------------------------------------
# weights and private scikit-learn API


@pytest.mark.parametrize("scale", [1e-300, 1e308])
def test_uniform_weights_of_any_scale_give_the_unweighted_thresholds(scale):
    scores, y, groups = make_scores(500, 3, 12, n_distinct=20)
    plain, _ = on_scores(scores, y, groups, constraint="equalized_odds")
    scaled, _ = on_scores(scores, y, groups, np.full(len(y), scale), constraint="equalized_odds")
    np.testing.assert_array_equal(scaled.thresholds_, plain.thresholds_)
    np.testing.assert_array_equal(scaled.decision_probabilities_, plain.decision_probabilities_)
    for name, values in plain.rates_.items():
        np.testing.assert_array_equal(scaled.rates_[name], values, err_msg=name)


def test_postprocessing_reads_private_scikit_learn_api_through_compat_only():
    package = Path(skfair.__file__).parent / "postprocessing"
    offenders = []
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                private += ["." + part for part in node.module.split(".") if part.startswith("_")]
                if private:
                    offenders.append(f"{path.name}: from {node.module} import {private}")
    assert not offenders, offenders


@pytest.mark.parametrize("n_vertices", [0, 1, 2, 3, 7, 40])
def test_vertex_pairs_are_numpys_upper_triangle(n_vertices):
    """The least-spread search's pairs i < j, in numpy's order."""
    expected = np.triu_indices(n_vertices, k=1)
    for got, want in zip(_vertex_pairs(n_vertices), expected):
        np.testing.assert_array_equal(got, want)
