"""The scikit-learn contract of the reductions: common checks, routing and column mode in
GridSearchCV, n_jobs, randomised predictions, the oracle's exactness and cache, errors."""

import inspect
import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, clone
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import FixedThresholdClassifier, GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair.metrics import (
    equalized_odds_difference,
    get_fairness_scorer,
    statistical_parity_difference,
)
from skfair.reductions import ExponentiatedGradient, GridSearch
from skfair.reductions._oracle import BestResponse


@parametrize_with_checks(
    [
        ExponentiatedGradient(LogisticRegression(), random_state=0),
        ExponentiatedGradient(LogisticRegression(), predict_method="deterministic"),
        GridSearch(LogisticRegression(), grid_size=3),
        ExponentiatedGradient(Ridge(), constraint="bounded_group_loss", eps=1.0),
        GridSearch(Ridge(), constraint="bounded_group_loss", eps=1.0, grid_size=3),
    ]
)
def test_scikit_learn_checks(estimator, check):
    with warnings.catch_warnings():
        # the checks fit without sensitive features: one group, no constraint
        warnings.filterwarnings("ignore", "was fitted without sensitive features")
        check(estimator)


# --------------------------------------------------------------------------------------------
# sensitive features: column mode and metadata routing


def test_column_mode_drops_the_sensitive_column(two_groups):
    X, y, group = two_groups
    by_column = ExponentiatedGradient(LogisticRegression(), eps=0.03, sensitive_column=2)
    by_column.fit(X, y)
    by_argument = ExponentiatedGradient(LogisticRegression(), eps=0.03)
    by_argument.fit(X[:, :2], y, sensitive_features=group)
    for member in by_column.predictors_[2:]:
        assert member.n_features_in_ == 2
    np.testing.assert_allclose(by_column.predict_proba(X), by_argument.predict_proba(X[:, :2]))
    assert by_column.n_features_in_ == 3


def test_grid_search_cv_over_eps_in_column_mode(two_groups):
    X, y, _ = two_groups
    scoring = {
        "accuracy": "accuracy",
        "spd": get_fairness_scorer("statistical_parity_difference", sensitive_column=2),
    }
    search = GridSearchCV(
        ExponentiatedGradient(LogisticRegression(), sensitive_column=2),
        {"eps": [0.02, 0.2]},
        scoring=scoring,
        refit="accuracy",
        cv=KFold(3, shuffle=True, random_state=0),
    ).fit(X, y)
    spd = -search.cv_results_["mean_test_spd"]
    assert spd[0] < spd[1]  # the tighter bound gives the smaller test disparity
    assert search.best_params_ == {"eps": 0.2}


def test_grid_search_cv_over_eps_with_metadata_routing(two_groups):
    X, y, group = two_groups
    with sklearn.config_context(enable_metadata_routing=True):
        scoring = {
            "accuracy": "accuracy",
            "spd": get_fairness_scorer("statistical_parity_difference"),
        }
        search = GridSearchCV(
            GridSearch(LogisticRegression()),
            {"eps": [0.02, 0.2]},
            scoring=scoring,
            refit="accuracy",
            cv=KFold(3, shuffle=True, random_state=0),
        ).fit(X[:, :2], y, sensitive_features=group)
    spd = -search.cv_results_["mean_test_spd"]
    assert spd[0] < spd[1]
    assert search.best_estimator_.groups_ == [0, 1]


def test_clone_and_pickle_a_fitted_model(two_groups):
    X, y, group = two_groups
    model = ExponentiatedGradient(
        LogisticRegression(), eps=0.03, predict_method="randomized", random_state=0
    ).fit(X[:, :2], y, sensitive_features=group)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X[:, :2]), model.predict(X[:, :2]))
    assert repr(clone(model)) == repr(model)


class Identity(TransformerMixin, BaseEstimator):
    """A transformer skfair cannot know to ignore the labels."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X


def fit_of(member):
    """The base learner's fit inside a member (a fit whose score the game cut is kept in a
    FixedThresholdClassifier around a FrozenEstimator)."""
    if isinstance(member, FixedThresholdClassifier):
        return member.estimator.estimator
    return member


def string_data():
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame(
        {"colour": rng.choice(["red", "blue", "green"], n), "x": rng.normal(size=n)}
    )
    sex = rng.choice(["F", "M"], n)
    y = ((frame.x + (frame.colour == "red") + (sex == "M")) > 0.8).astype(int)
    frame["sex"] = sex
    return frame, y


def encoded(*, extra=None):
    steps = [make_column_transformer((OneHotEncoder(), ["colour"]), (StandardScaler(), ["x"]))]
    return make_pipeline(*steps, *([extra] if extra is not None else []), LogisticRegression())


def test_pipeline_preprocessing_is_fitted_once_and_shared():
    frame, y = string_data()
    model = ExponentiatedGradient(encoded(), eps=0.02, sensitive_column="sex").fit(frame, y)
    members = [fit_of(p) for p in model.predictors_ if hasattr(fit_of(p), "steps")]
    assert len(members) >= 2 and model.mixture_gap_ <= 0.02 + 1e-7
    assert all(member[0] is members[0][0] for member in members)  # one fitted preprocessing
    # the same model as refitting the whole pipeline each time (its preprocessing is label-free)
    refitted = ExponentiatedGradient(
        encoded(extra=Identity()), eps=0.02, sensitive_column="sex"
    ).fit(frame, y)
    fits = [fit_of(member) for member in refitted.predictors_[2:]]
    assert not all(fit[0] is fits[-1][0] for fit in fits)
    np.testing.assert_allclose(refitted.predict_proba(frame), model.predict_proba(frame))
    # with metadata routing the final step needs no request: skfair calls it directly
    with sklearn.config_context(enable_metadata_routing=True):
        routed = ExponentiatedGradient(encoded(), eps=0.02, sensitive_column="sex").fit(frame, y)
    np.testing.assert_allclose(routed.predict_proba(frame), model.predict_proba(frame))


def test_pipeline_weights_reach_the_last_step_or_a_request_is_asked_for():
    frame, y = string_data()
    pipeline = encoded(extra=Identity())
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match="set_fit_request"):
            ExponentiatedGradient(clone(pipeline), sensitive_column="sex").fit(frame, y)
        requested = clone(pipeline)
        requested.steps[-1][1].set_fit_request(sample_weight=True)
        requested.steps[0][1].transformers[1][1].set_fit_request(sample_weight=False)
        routed = ExponentiatedGradient(requested, eps=0.02, sensitive_column="sex").fit(frame, y)
    plain = ExponentiatedGradient(pipeline, eps=0.02, sensitive_column="sex").fit(frame, y)
    assert plain.mixture_gap_ <= 0.02 + 1e-7
    np.testing.assert_allclose(routed.predict_proba(frame), plain.predict_proba(frame))


# --------------------------------------------------------------------------------------------
# grid search


@pytest.mark.parametrize("constraint, eps", [("demographic_parity", 0.05), ("equalized_odds", 0.1)])
def test_grid_search_reaches_the_bound_in_fewer_fits_than_a_fixed_grid(two_groups, constraint, eps):
    """The search moves towards the multiplier where the constraint binds: a fit within the
    bound (by an independent computation of the chosen fit's disparity) before the grid's
    budget is spent, close to the bound where the least accuracy is lost."""
    X, y, group = two_groups
    search = GridSearch(LogisticRegression(), constraint=constraint, eps=eps)
    search.fit(X[:, :2], y, sensitive_features=group)
    predicted = search.predict(X[:, :2])
    metric = (
        statistical_parity_difference
        if constraint == "demographic_parity"
        else (equalized_odds_difference)
    )
    realised = metric(y, predicted, sensitive_features=group)
    assert realised <= eps
    assert realised == pytest.approx(search.constraint_gap_)
    assert realised >= 0.5 * eps  # near the bound, not a needlessly fair (less accurate) fit
    assert search.n_fits_ < 10  # fairlearn's grid fits its 10 points
    assert search.grid_.shape == (len(search.predictors_), 1 if eps == 0.05 else 2)
    np.testing.assert_array_equal(search.grid_[0], 0.0)  # the unconstrained fit first


def test_grid_search_selection_rule(two_groups):
    X, y, group = two_groups
    search = GridSearch(LogisticRegression(), eps=0.2).fit(X[:, :2], y, sensitive_features=group)
    admissible = np.flatnonzero(search.constraint_gaps_ <= 0.2)
    assert 0 < admissible.size < len(search.constraint_gaps_)
    assert search.best_index_ == admissible[np.argmin(search.objectives_[admissible])]
    # the recorded values are those of the fits, by an independent computation
    for index in (0, search.best_index_):
        predicted = search.predictors_[index].predict(X[:, :2])
        assert search.objectives_[index] == pytest.approx(np.mean(predicted != y))
        assert search.constraint_gaps_[index] == pytest.approx(
            statistical_parity_difference(None, predicted, sensitive_features=group)
        )
    np.testing.assert_array_equal(
        search.predict(X[:, :2]), search.predictors_[search.best_index_].predict(X[:, :2])
    )


def test_grid_search_warns_when_no_point_meets_the_bound(two_groups):
    X, y, group = two_groups
    with pytest.warns(UserWarning, match="No fit found meets the bound eps=0.0"):
        search = GridSearch(LogisticRegression(), eps=0.0, grid_size=3)
        search.fit(X[:, :2], y, sensitive_features=group)
    assert search.best_index_ == int(np.argmin(search.constraint_gaps_))


@pytest.mark.parametrize("constraint", ["equalized_odds", "demographic_parity"])
def test_grid_search_with_a_fair_unconstrained_fit_has_a_finite_grid(two_groups, constraint):
    """Regression: when the unconstrained fit meets the bound the grid is its centre only,
    and with two coordinates (equalized odds) that centre was 0 / 0: a NaN grid point and a
    RuntimeWarning about a division."""
    X, y, group = two_groups
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        search = GridSearch(LogisticRegression(), constraint=constraint, eps=1.0)
        search.fit(X[:, :2], y, sensitive_features=group)
    n_coordinates = 2 if constraint == "equalized_odds" else 1
    np.testing.assert_array_equal(search.grid_, np.zeros((1, n_coordinates)))
    np.testing.assert_array_equal(search.lambda_vecs_, 0.0)
    assert search.n_fits_ == 1


# --------------------------------------------------------------------------------------------
# prediction


def test_predict_proba_is_the_probability_of_the_decisions(two_groups):
    X, y, group = two_groups
    model = ExponentiatedGradient(LogisticRegression(), eps=0.01)
    model.fit(X[:, :2], y, sensitive_features=group)
    assert (model.weights_ > 0).sum() >= 2
    members = [(w, m) for w, m in zip(model.weights_, model.predictors_) if w > 0]
    # randomised (the default): the weighted share of the members that decide each class
    decided = sum(w * (m.predict(X[:, :2])[:, None] == model.classes_) for w, m in members)
    np.testing.assert_allclose(model.predict_proba(X[:, :2]), decided)
    # ... whose group means are the rates the constraint bounds (an independent groupby)
    rates = pd.Series(decided[:, 1]).groupby(group).mean()
    assert rates.max() - rates.min() == pytest.approx(model.mixture_gap_, abs=1e-9)
    assert model.mixture_gap_ <= 0.01 + 1e-9
    # the soft mixture has its own name
    soft = sum(w * m.predict_proba(X[:, :2]) for w, m in members)
    np.testing.assert_allclose(model.predict_member_proba(X[:, :2]), soft)
    # the deterministic rule: its single fit's decisions, probability 0 or 1
    model.set_params(predict_method="deterministic")
    best = model.predictors_[model.best_index_]
    np.testing.assert_array_equal(model.predict(X[:, :2]), best.predict(X[:, :2]))
    np.testing.assert_array_equal(
        model.predict_proba(X[:, :2]), best.predict(X[:, :2])[:, None] == model.classes_
    )
    np.testing.assert_allclose(model.predict_member_proba(X[:, :2]), best.predict_proba(X[:, :2]))


def test_deterministic_rule_is_the_most_accurate_fit_within_the_bound(three_groups):
    """best_index_ by brute force over the predictors, each graded by skfair's metric."""
    X, y, group, _ = three_groups
    model = ExponentiatedGradient(
        LogisticRegression(), constraint="equalized_odds", eps=0.05, predict_method="deterministic"
    ).fit(X[:, :2], y, sensitive_features=group)
    errors, gaps = [], []
    for member in model.predictors_:
        predicted = member.predict(X[:, :2])
        errors.append(np.mean(predicted != y))
        gaps.append(equalized_odds_difference(y, predicted, sensitive_features=group))
    errors, gaps = np.array(errors), np.array(gaps)
    feasible = np.flatnonzero(gaps <= 0.05 + 1e-12)
    assert model.best_index_ == feasible[np.argmin(errors[feasible])]
    assert model.objective_ == pytest.approx(errors[model.best_index_])
    assert model.constraint_gap_ == pytest.approx(gaps[model.best_index_])
    # the other rule's numbers stay available
    assert model.mixture_objective_ <= model.objective_ + 1e-12
    model.set_params(predict_method="randomized")
    decided = model.predict(X[:, :2])
    assert model.objective_ == pytest.approx(np.mean(decided != y))
    assert model.constraint_gap_ == pytest.approx(
        equalized_odds_difference(y, decided, sensitive_features=group)
    )


def test_default_rules():
    assert ExponentiatedGradient(LogisticRegression()).predict_method == "auto"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    group = rng.integers(0, 2, 300)
    y = (X[:, 0] + group > 0.5).astype(int)
    classifier = ExponentiatedGradient(LogisticRegression(), eps=0.02, random_state=0)
    classifier.fit(X, y, sensitive_features=group)
    # randomised: what it reports is what predict decides on the fitting rows
    decided = classifier.predict(X)
    assert classifier.objective_ == pytest.approx(np.mean(decided != y))
    assert classifier.constraint_gap_ == pytest.approx(
        statistical_parity_difference(y, decided, sensitive_features=group)
    )
    regressor = ExponentiatedGradient(Ridge(), constraint="bounded_group_loss", eps=2.0)
    regressor.fit(X, X[:, 0] + group, sensitive_features=group)
    mean = sum(w * m.predict(X) for w, m in zip(regressor.weights_, regressor.predictors_))
    np.testing.assert_allclose(regressor.predict(X), mean)  # deterministic: the weighted mean


@pytest.mark.slow
def test_randomized_predictions_are_reproducible_and_batch_independent(two_groups):
    X, y, group = two_groups
    rng = np.random.default_rng(5)
    train, held_out = np.arange(1000), np.arange(1000, 1500)
    decisions, copies, probabilities = [], [], None
    for seed in range(20):
        model = ExponentiatedGradient(
            LogisticRegression(), eps=0.01, predict_method="randomized", random_state=seed
        ).fit(X[train, :2], y[train], sensitive_features=group[train])
        X_new = X[held_out, :2]
        once = model.predict(X_new)
        np.testing.assert_array_equal(model.predict(X_new), once)  # reproducible
        order = rng.permutation(len(held_out))
        np.testing.assert_array_equal(model.predict(X_new[order]), once[order])  # batch
        one_by_one = np.concatenate([model.predict(X_new[i : i + 1]) for i in range(20)])
        np.testing.assert_array_equal(one_by_one, once[:20])
        # repeated rows: the first copy decides as the row alone, the copies independently
        repeated = model.predict(np.repeat(X_new, 3, axis=0)).reshape(-1, 3)
        np.testing.assert_array_equal(repeated[:, 0], once)
        copies.append(repeated)
        decisions.append(once)
        if seed == 0:
            members = [
                (w, m.predict(X_new)) for w, m in zip(model.weights_, model.predictors_) if w > 0
            ]
            probabilities = sum(w * (p == 1) for w, p in members)
    # held-out rows: the decisions follow the mixture's probabilities (the fits are the same
    # for every seed; only the draws change)
    mean_decision = np.mean(decisions, axis=0)
    mixed = (probabilities > 0) & (probabilities < 1)
    assert mixed.sum() > 20
    assert abs(mean_decision[mixed].mean() - probabilities[mixed].mean()) < 0.05
    np.testing.assert_array_equal(mean_decision[~mixed], probabilities[~mixed])
    # and the held-out selection rates follow the mixture's
    rates = [np.mean(d) for d in decisions]
    assert abs(np.mean(rates) - probabilities.mean()) < 0.01
    # the copies of a row are decided apart: on mixed rows they often disagree, and their
    # share of positive decisions follows the row's probability
    copies = np.concatenate(copies)
    mixed_copies = copies[np.tile(mixed, 20)]
    disagree = (mixed_copies.min(axis=1) != mixed_copies.max(axis=1)).mean()
    assert disagree > 0.1
    assert abs(mixed_copies.mean() - probabilities[mixed].mean()) < 0.05


def test_regression_predictions_are_the_members_mean(two_groups):
    X, _, group = two_groups
    rng = np.random.default_rng(0)
    target = X[:, 0] + (1 + group) * rng.normal(size=len(group))
    model = ExponentiatedGradient(LinearRegression(), constraint="bounded_group_loss", eps=2.2).fit(
        X[:, :2], target, sensitive_features=group
    )
    expected = sum(w * m.predict(X[:, :2]) for w, m in zip(model.weights_, model.predictors_))
    np.testing.assert_allclose(model.predict(X[:, :2]), expected)
    assert not hasattr(model, "predict_proba")


# --------------------------------------------------------------------------------------------
# the oracle


def test_replicated_rows_solve_the_cost_sensitive_problem_exactly():
    """For any cost table, the weighted 0-1 loss of the reduced problem is an increasing affine
    function of the cost-sensitive loss: both have the same minimisers."""
    rng = np.random.default_rng(0)
    n, n_groups, n_classes = 60, 2, 3
    codes = rng.integers(0, n_groups, n)
    target = rng.integers(0, n_classes, n)
    weights = rng.uniform(0.5, 2.0, n)
    oracle = BestResponse(
        LogisticRegression(),
        np.zeros((n, 1)),
        target,
        codes,
        weights,
        classes=np.arange(n_classes),
        fit_params={},
        warm_start=False,
        seed=0,
    )
    cost = rng.normal(size=(n_groups, n_classes, n_classes))
    problem = oracle.problem(cost)
    assert len(problem.rows) == (n_classes - 1) * n  # one copy per class but the costliest
    losses = []
    for _ in range(6):
        h = rng.integers(0, n_classes, n)
        cost_sensitive = np.sum(weights * cost[codes, target, h])
        weighted = np.sum(problem.weights * (h[problem.rows] != problem.labels))
        losses.append((cost_sensitive, weighted))
    losses = np.array(losses)
    slopes = np.diff(losses[:, 1]) / np.diff(losses[:, 0])
    assert (slopes > 0).all()
    np.testing.assert_allclose(slopes, slopes[0])


class CountingClassifier(ClassifierMixin, BaseEstimator):
    """Logistic regression that counts its fits (class-level, across clones)."""

    fits = 0

    def fit(self, X, y, sample_weight=None):
        type(self).fits += 1
        self.model_ = LogisticRegression().fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def predict_proba(self, X):
        return self.model_.predict_proba(X)


def test_the_cache_never_refits_on_weights_already_seen(two_groups):
    X, y, group = two_groups
    CountingClassifier.fits = 0
    model = ExponentiatedGradient(CountingClassifier(), eps=0.01)
    model.fit(X[:, :2], y, sensitive_features=group)
    assert CountingClassifier.fits == model.n_fits_ <= model.n_oracle_calls_
    # the same cost table twice (the second scaled: the same weighted problem): one fit
    oracle = BestResponse(
        CountingClassifier(),
        X[:, :2],
        y,
        group,
        None,
        classes=np.array([0, 1]),
        fit_params={},
        warm_start=False,
        seed=0,
    )
    cost = np.random.default_rng(0).normal(size=(2, 2, 2))
    first, second = oracle(cost), oracle(3.0 * cost)
    assert oracle.n_fits == 1 and oracle.n_calls == 2
    assert first.predictor is second.predictor


def test_warm_start_reaches_the_cold_solution(two_groups):
    X, y, group = two_groups
    warm = ExponentiatedGradient(LogisticRegression(tol=1e-10), eps=0.02, warm_start=True)
    cold = ExponentiatedGradient(LogisticRegression(tol=1e-10), eps=0.02, warm_start=False)
    warm.fit(X[:, :2], y, sensitive_features=group)
    cold.fit(X[:, :2], y, sensitive_features=group)
    assert warm.mixture_objective_ == pytest.approx(cold.mixture_objective_, abs=2e-3)
    # the base learner's own setting is what the members keep
    assert fit_of(warm.predictors_[-1]).get_params()["warm_start"] is False


class NoWeights(ClassifierMixin, BaseEstimator):
    """A classifier whose fit takes no sample_weight."""

    def fit(self, X, y):
        self.model_ = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)


def test_estimator_without_sample_weight_gets_a_seeded_weighted_resample(two_groups):
    X, y, group = two_groups
    fits = [
        ExponentiatedGradient(NoWeights(), eps=0.05, random_state=seed).fit(
            X[:, :2], y, sensitive_features=group
        )
        for seed in (0, 0, 1)
    ]
    np.testing.assert_array_equal(fits[0].predict(X[:, :2]), fits[1].predict(X[:, :2]))
    assert fits[0].mixture_gap_ <= 0.05 + 1e-7
    assert fits[0].n_fits_ >= 2


# --------------------------------------------------------------------------------------------
# warnings and errors


def test_collapse_to_a_constant_is_announced():
    rng = np.random.default_rng(0)
    n = 600
    group = rng.integers(0, 2, n)
    X = (group + 0.01 * rng.normal(size=n))[:, None]  # X is the group, nothing else
    y = group.copy()
    with pytest.warns(UserWarning, match="collapses to"):
        ExponentiatedGradient(LogisticRegression(), eps=0.0).fit(X, y, sensitive_features=group)


def test_bound_that_cannot_be_met_is_announced():
    rng = np.random.default_rng(0)
    n = 600
    group = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 1))
    y = X[:, 0] + (1 + 3 * group) * rng.normal(size=n)
    with pytest.warns(UserWarning, match="No fit found meets the bound"):
        model = ExponentiatedGradient(LinearRegression(), constraint="bounded_group_loss", eps=1.0)
        model.fit(X, y, sensitive_features=group)
    assert model.constraint_gap_ > 1.0


@pytest.mark.parametrize(
    "estimator, params, y_kind, message",
    [
        (LogisticRegression(), {"constraint": "bounded_group_loss"}, "binary", "needs a regressor"),
        (Ridge(), {"constraint": "demographic_parity"}, "continuous", "needs a classifier"),
        (
            LogisticRegression(),
            {"constraint": "true_positive_rate_parity"},
            "multiclass",
            "3 classes",
        ),
        (LogisticRegression(), {"privileged_group": 0}, "multiclass", "two classes only"),
        (LogisticRegression(), {"pos_label": 7}, "binary", "pos_label=7"),
    ],
)
def test_bad_settings_raise_clear_errors(two_groups, estimator, params, y_kind, message):
    X, y, group = two_groups
    target = {"binary": y, "continuous": X[:, 0], "multiclass": np.digitize(X[:, 0], [0, 1])}
    with pytest.raises(ValueError, match=message):
        ExponentiatedGradient(estimator, **params).fit(
            X[:, :2], target[y_kind], sensitive_features=group
        )


def test_dask_fit_raises_and_predict_runs_by_blocks(two_groups):
    import dask.array as da  # the test extra installs dask
    import dask.dataframe as dd

    X, y, group = two_groups
    model = ExponentiatedGradient(
        LogisticRegression(), eps=0.02, predict_method="randomized", random_state=0
    ).fit(X[:, :2], y, sensitive_features=group)
    X_dask = da.from_array(X[:, :2], chunks=(400, 2))
    # refused at once, naming the base learner that fits in memory, for both reductions and
    # whichever argument is the dask collection
    y_dask = da.from_array(y, chunks=400)
    for reduction, arguments in [
        (ExponentiatedGradient, (X_dask, y)),
        (GridSearch, (X[:, :2], y_dask)),
    ]:
        with pytest.raises(TypeError, match=r"base learner \(LogisticRegression\).*in-memory"):
            reduction(LogisticRegression()).fit(*arguments, sensitive_features=group)
    np.testing.assert_array_equal(model.predict(X_dask).compute(), model.predict(X[:, :2]))
    np.testing.assert_allclose(model.predict_proba(X_dask).compute(), model.predict_proba(X[:, :2]))
    # a dask DataFrame, partition by partition, the sensitive column dropped in each
    frame = pd.DataFrame(X, columns=["a", "b", "group"])
    by_column = ExponentiatedGradient(
        LogisticRegression(), eps=0.02, sensitive_column="group", predict_method="randomized"
    ).fit(frame, y)
    partitioned = dd.from_pandas(frame, npartitions=3)
    np.testing.assert_array_equal(
        by_column.predict(partitioned).compute(), by_column.predict(frame)
    )
    np.testing.assert_allclose(
        by_column.predict_proba(partitioned).compute(), by_column.predict_proba(frame)
    )
    np.testing.assert_allclose(
        by_column.predict_member_proba(partitioned).compute(),
        by_column.predict_member_proba(frame),
    )


# --------------------------------------------------------------------------------------------
# fairlearn habits


class DemographicParity:
    """Stands for fairlearn's moment of that name (the tests do not import fairlearn): its
    ``difference_bound`` is kept as ``eps``, its ``ratio_bound`` as ``ratio``."""

    def __init__(self, difference_bound=None, ratio_bound=None):
        self.eps = difference_bound if difference_bound is not None else 0.0
        self.ratio = ratio_bound if ratio_bound is not None else 1.0


@pytest.mark.parametrize("cls", [ExponentiatedGradient, GridSearch])
@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda cls: cls(LogisticRegression(), "demographic_parity"),
            "constraint='demographic_parity'",
        ),
        (
            lambda cls: cls(LogisticRegression(), DemographicParity(difference_bound=0.05)),
            "constraint='demographic_parity', eps=0.05",
        ),
        (
            lambda cls: cls(LogisticRegression(), constraints=DemographicParity(ratio_bound=0.8)),
            "disparity='ratio', eps=0.2",
        ),
        (lambda cls: cls(LogisticRegression(), prefit=True), "FrozenEstimator"),
        (lambda cls: cls(LogisticRegression(), sample_weight_name="w"), "sample_weight"),
        (lambda cls: cls(LogisticRegression(), grid=[[0.0]]), "grid_size"),
    ],
)
def test_fairlearn_arguments_are_met_with_our_parameters(cls, call, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        call(cls)


@pytest.mark.parametrize("cls", [ExponentiatedGradient, GridSearch])
def test_fairlearn_predict_habits_are_met_with_our_names(two_groups, cls):
    X, y, group = two_groups
    model = cls(LogisticRegression(), eps=0.05, random_state=0)
    model.fit(X[:, :2], y, sensitive_features=group)
    with pytest.raises(TypeError, match=r"random_state.*set it there"):
        model.predict(X[:, :2], random_state=0)
    with pytest.raises(TypeError, match="takes X only"):
        model.predict(X[:, :2], sensitive_features=group)
    with pytest.raises(AttributeError, match=r"predict_proba\(X\)"):
        model._pmf_predict(X[:, :2])
    assert not hasattr(model, "_pmf_predict")  # not accepted silently
    # the signature users and the documentation see is predict(X)
    assert list(inspect.signature(cls.predict).parameters) == ["self", "X"]
    # and the estimator still clones and pickles (its parameters are keyword arguments)
    np.testing.assert_array_equal(
        pickle.loads(pickle.dumps(model)).predict(X[:, :2]), model.predict(X[:, :2])
    )
    assert repr(clone(model)) == repr(model)


# --------------------------------------------------------------------------------------------
# warm starts


@pytest.mark.slow
def test_warm_started_boosting_grows_and_every_response_differs(two_groups):
    """warm_start=True adds a quarter of the stages to the previous response: no response
    is the unconstrained fit again (the previous warm start refitted the same number of
    stages, fitting nothing)."""
    X, y, group = two_groups
    learner = HistGradientBoostingClassifier(max_iter=20, early_stopping=False, random_state=0)
    # Every fit cut at its threshold of least cost, as before the default kept a flexible
    # learner's own: with two features the grid below reaches the bound only so.
    cut = {"warm_start": True, "response_threshold": "least_cost"}
    model = ExponentiatedGradient(learner, eps=0.02, random_state=0, **cut)
    model.fit(X[:, :2], y, sensitive_features=group)
    # distinct fits (the unconstrained fit is a member twice: as it is, and cut)
    fits = {id(fit_of(m)): fit_of(m) for m in model.predictors_}
    fitted = [m for m in fits.values() if hasattr(m, "n_iter_")]
    assert len(fitted) >= 3
    sizes = sorted(m.n_iter_ for m in fitted)
    assert sizes == list(range(20, 20 + 5 * len(fitted), 5))  # 20, 25, 30, ...
    outputs = {m.predict(X[:, :2]).tobytes() for m in fitted}
    assert len(outputs) == len(fitted)  # every response is a new model
    assert model.mixture_gap_ <= 0.02 + 1e-9
    # the same for GridSearch: every point grows from the centre's fit
    search = GridSearch(learner, eps=0.05, **cut).fit(
        X[:, :2], y, sensitive_features=group
    )
    grown = [fit_of(m).n_iter_ for m in search.predictors_[1:] if hasattr(fit_of(m), "n_iter_")]
    assert grown and set(grown) == {25}


@pytest.mark.parametrize("cls", [ExponentiatedGradient, GridSearch])
def test_warm_started_bagging_is_refused(two_groups, cls):
    X, y, group = two_groups
    model = cls(RandomForestClassifier(n_estimators=5, random_state=0), warm_start=True)
    with pytest.raises(ValueError, match="warm_start=True cannot work with RandomForestClassifier"):
        model.fit(X[:, :2], y, sensitive_features=group)
    # without warm starts, every response is fitted from scratch
    model.set_params(warm_start="auto").fit(X[:, :2], y, sensitive_features=group)
    assert model.n_fits_ >= 1
