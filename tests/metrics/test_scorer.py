import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, cross_validate
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from skfair.metrics import (
    conditional_demographic_disparity,
    disparate_impact_ratio,
    get_fairness_scorer,
    make_fairness_scorer,
    most_accurate_within,
    statistical_parity_difference,
)


def _selection_rate_gap(y_pred, groups):
    """Independent oracle: max - min selection rate over groups."""
    rates = [np.mean(y_pred[groups == g]) for g in np.unique(groups)]
    return max(rates) - min(rates)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 300
    sex = rng.choice(["female", "male"], size=n)
    x1 = rng.normal(size=n) + (sex == "male")
    x2 = rng.normal(size=n)
    y = (x1 + 0.5 * x2 + rng.normal(scale=0.5, size=n) > 0.5).astype(int)
    X = pd.DataFrame({"x1": x1, "x2": x2, "sex": sex})
    return X, y, sex


def _model_without(column):
    drop = ColumnTransformer([("drop", "drop", [column])], remainder="passthrough")
    return Pipeline([("drop", drop), ("clf", LogisticRegression())])


def test_column_mode_cross_validate_matches_oracle(data):
    X, y, sex = data
    scorer = get_fairness_scorer("statistical_parity_difference", sensitive_column="sex")
    cv = KFold(3, shuffle=True, random_state=0)
    result = cross_validate(
        _model_without("sex"),
        X,
        y,
        scoring=scorer,
        cv=cv,
        return_estimator=True,
        return_indices=True,
        error_score="raise",
    )
    for estimator, test, score in zip(
        result["estimator"], result["indices"]["test"], result["test_score"]
    ):
        expected = _selection_rate_gap(estimator.predict(X.iloc[test]), sex[test])
        assert score == pytest.approx(-expected, abs=1e-12)
    assert (result["test_score"] < 0).all()


def test_column_mode_grid_search_multimetric(data):
    X, y, sex = data
    scoring = {
        "acc": "accuracy",
        "spd": get_fairness_scorer("statistical_parity_difference", sensitive_column="sex"),
        "di": get_fairness_scorer("disparate_impact_ratio", sensitive_column="sex"),
    }
    search = GridSearchCV(
        _model_without("sex"),
        {"clf__C": [0.01, 1.0]},
        scoring=scoring,
        refit="acc",
        cv=3,
        error_score="raise",
    ).fit(X, y)
    assert np.all(search.cv_results_["mean_test_spd"] <= 0)
    assert np.all(search.cv_results_["mean_test_di"] <= 0)
    assert np.all(search.cv_results_["mean_test_di"] >= -1)


def test_routing_mode_grid_search_and_cross_validate(data):
    X, y, sex = data
    X_num = X[["x1", "x2"]].to_numpy()
    scorer = get_fairness_scorer("statistical_parity_difference")
    cv = KFold(3, shuffle=True, random_state=1)
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(
            LogisticRegression(),
            X_num,
            y,
            scoring=scorer,
            cv=cv,
            params={"sensitive_features": sex},
            return_estimator=True,
            return_indices=True,
        )
        for sensitive in (sex, pd.DataFrame({"sex": sex})):
            search = GridSearchCV(
                LogisticRegression(), {"C": [0.1, 1.0]}, scoring=scorer, cv=cv
            ).fit(X_num, y, sensitive_features=sensitive)
            assert search.best_index_ in (0, 1)
    for estimator, test, score in zip(
        result["estimator"], result["indices"]["test"], result["test_score"]
    ):
        expected = _selection_rate_gap(estimator.predict(X_num[test]), sex[test])
        assert score == pytest.approx(-expected, abs=1e-12)


def test_routing_and_column_modes_agree(data):
    X, y, sex = data
    cv = KFold(3, shuffle=True, random_state=2)
    column = cross_validate(
        _model_without("sex"),
        X,
        y,
        cv=cv,
        scoring=get_fairness_scorer("statistical_parity_difference", sensitive_column="sex"),
    )
    with sklearn.config_context(enable_metadata_routing=True):
        routed = cross_validate(
            LogisticRegression(),
            X[["x1", "x2"]],
            y,
            cv=cv,
            scoring=get_fairness_scorer("statistical_parity_difference"),
            params={"sensitive_features": sex},
        )
    np.testing.assert_allclose(column["test_score"], routed["test_score"], atol=1e-12)


def test_alias_through_set_score_request(data):
    X, y, sex = data
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = get_fairness_scorer("statistical_parity_difference").set_score_request(
            sensitive_features="race"
        )
        search = GridSearchCV(LogisticRegression(), {"C": [1.0]}, scoring=scorer, cv=3)
        search.fit(X[["x1", "x2"]], y, race=sex)
        assert search.cv_results_["mean_test_score"][0] <= 0


class _NeedsGroupsAtPredict(ClassifierMixin, BaseEstimator):
    """A consumer that predicts the group membership: SPD is then 1 exactly."""

    __metadata_request__predict = {"sensitive_features": True}

    def fit(self, X, y, sensitive_features=None):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X, sensitive_features=None):
        if sensitive_features is None:
            raise ValueError("sensitive_features were not forwarded")
        return (np.asarray(sensitive_features) == "male").astype(int)


def test_forwarding_to_consumers_bare_and_in_pipeline(data):
    X, y, sex = data
    X_num = X[["x1", "x2"]].to_numpy()
    scorer = get_fairness_scorer("statistical_parity_difference")
    accuracy = make_fairness_scorer(accuracy_score, greater_is_better=True)
    with sklearn.config_context(enable_metadata_routing=True):
        for estimator in (
            _NeedsGroupsAtPredict(),
            make_pipeline(StandardScaler(), _NeedsGroupsAtPredict()),
        ):
            estimator.fit(X_num, y)
            assert scorer(estimator, X_num, y, sensitive_features=sex) == -1.0
            expected = accuracy_score(y, (sex == "male").astype(int))
            assert accuracy(estimator, X_num, y, sensitive_features=sex) == expected
        plain = LogisticRegression().fit(X_num, y)  # gets nothing forwarded
        expected = _selection_rate_gap(plain.predict(X_num), sex)
        assert scorer(plain, X_num, y, sensitive_features=sex) == pytest.approx(-expected)


def test_multimetric_with_sample_weight_routing_off(data):
    X, y, sex = data
    weights = np.random.default_rng(3).uniform(0.5, 2, size=len(y))
    scoring = {
        "acc": "accuracy",
        "spd": get_fairness_scorer("statistical_parity_difference", sensitive_column="sex"),
    }
    search = GridSearchCV(
        _model_without("sex"), {"clf__C": [1.0]}, scoring=scoring, refit="acc", cv=3
    )
    search.fit(X, y, clf__sample_weight=weights)
    assert np.isfinite(search.cv_results_["mean_test_spd"]).all()
    assert get_fairness_scorer("statistical_parity_difference")._accept_sample_weight()
    assert not make_fairness_scorer(lambda_free_metric)._accept_sample_weight()


def lambda_free_metric(y_true, y_pred):
    return float(np.mean(y_pred))


def test_missing_and_duplicate_sensitive_features(data):
    X, y, sex = data
    model = LogisticRegression().fit(X[["x1", "x2"]], y)
    scorer = get_fairness_scorer("statistical_parity_difference")
    with pytest.raises(ValueError, match="enable metadata routing"):
        scorer(model, X[["x1", "x2"]], y)
    column_scorer = get_fairness_scorer("statistical_parity_difference", sensitive_column="sex")
    with pytest.raises(ValueError, match="one or the other"):
        column_scorer(_model_without("sex").fit(X, y), X, y, sensitive_features=sex)
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        scorer(model, X[["x1", "x2"]], y, sensitive_features=sex[:-1])


def test_signs_and_parity_losses(data):
    X, y, sex = data
    model = _model_without("sex").fit(X, y)
    y_pred = model.predict(X)
    signed = statistical_parity_difference(
        y, y_pred, sensitive_features=sex, privileged_group="male"
    )
    assert signed < 0  # the model selects men more often
    scorer = get_fairness_scorer(
        "statistical_parity_difference", sensitive_column="sex", privileged_group="male"
    )
    assert scorer(model, X, y) == pytest.approx(-abs(signed))
    ratio = disparate_impact_ratio(y, y_pred, sensitive_features=sex, privileged_group="male")
    ratio_scorer = get_fairness_scorer(
        "disparate_impact_ratio", sensitive_column="sex", privileged_group="male"
    )
    assert ratio_scorer(model, X, y) == pytest.approx(-(1 - min(ratio, 1 / ratio)))
    inverse = get_fairness_scorer(
        "disparate_impact_ratio", sensitive_column="sex", privileged_group="female"
    )
    assert inverse(model, X, y) == pytest.approx(ratio_scorer(model, X, y))
    positive = get_fairness_scorer(
        "statistical_parity_difference", sensitive_column="sex", greater_is_better=True
    )
    assert positive(model, X, y) == pytest.approx(abs(signed))


def _mean_feature_gap(X, y_true, y_pred, *, sensitive_features):
    """A metric that needs X: the gap of the mean first feature between groups."""
    X = np.asarray(X, dtype=float)
    assert X.shape[1] == 2  # the sensitive column never reaches the metric
    groups = np.asarray(sensitive_features)
    means = [X[groups == g, 0].mean() for g in np.unique(groups)]
    return max(means) - min(means)


def test_needs_X_without_sensitive_columns_in_both_modes(data):
    X, y, sex = data
    cv = KFold(3, shuffle=True, random_state=4)
    column = cross_validate(
        _model_without("sex"),
        X,
        y,
        cv=cv,
        scoring=make_fairness_scorer(_mean_feature_gap, needs_X=True, sensitive_column="sex"),
    )
    with sklearn.config_context(enable_metadata_routing=True):
        routed = cross_validate(
            LogisticRegression(),
            X[["x1", "x2"]],
            y,
            cv=cv,
            scoring=make_fairness_scorer(_mean_feature_gap, needs_X=True),
            params={"sensitive_features": sex},
        )
    np.testing.assert_allclose(column["test_score"], routed["test_score"], atol=1e-12)
    for (_, test), score in zip(cv.split(X), column["test_score"]):
        assert score == pytest.approx(
            -_mean_feature_gap(X[["x1", "x2"]].iloc[test], None, None, sensitive_features=sex[test])
        )


def test_most_accurate_within():
    cv_results = {
        "mean_test_acc": np.array([0.90, 0.85, 0.80, 0.70]),
        "mean_test_spd": np.array([-0.20, -0.04, np.nan, -0.01]),
    }
    assert most_accurate_within(0.05, fairness="spd", performance="acc")(cv_results) == 1
    assert most_accurate_within(0.02, fairness="spd", performance="acc")(cv_results) == 3
    # nothing within the bound: the fairest candidate, with a warning saying so
    with pytest.warns(UserWarning, match=r"no candidate .* at most 0.001.* candidate 3"):
        assert most_accurate_within(0.001, fairness="spd", performance="acc")(cv_results) == 3


def test_most_accurate_within_when_every_fairness_score_is_nan():
    # Regression: np.nanargmin raised "All-NaN slice encountered" inside GridSearchCV.fit.
    cv_results = {
        "mean_test_acc": np.array([0.80, 0.90, 0.85]),
        "mean_test_spd": np.full(3, np.nan),
        "params": [{"C": 0.1}, {"C": 1.0}, {"C": 10.0}],
    }
    refit = most_accurate_within(0.05, fairness="spd", performance="acc")
    with pytest.warns(UserWarning, match=r"is NaN.*best performer.*candidate 1 \{'C': 1.0\}"):
        assert refit(cv_results) == 1
    cv_results["mean_test_acc"][:] = np.nan
    with pytest.raises(ValueError, match="cannot choose"):
        refit(cv_results)


def test_most_accurate_within_skips_admissible_candidates_without_performance():
    cv_results = {
        "mean_test_acc": np.array([np.nan, 0.70, 0.95]),
        "mean_test_spd": np.array([-0.01, -0.02, -0.30]),
    }
    assert most_accurate_within(0.05, fairness="spd", performance="acc")(cv_results) == 1


def test_a_misspelled_metric_keyword_fails_when_the_scorer_is_built():
    with pytest.raises(TypeError, match=r"privilegd_group.*Did you mean 'privileged_group'"):
        get_fairness_scorer("statistical_parity_difference", privilegd_group="M")
    with pytest.raises(TypeError, match="unexpected keyword"):
        make_fairness_scorer(accuracy_score, sensitive_column="sex", normalise=False)
    # Valid keywords of the metric and of make_fairness_scorer are accepted.
    make_fairness_scorer(accuracy_score, sensitive_column="sex", normalize=False)
    get_fairness_scorer("wasserstein_bias", part="net", favorable="lower")


def test_a_single_group_in_the_scored_data_warns(data):
    X, y, sex = data
    model = _model_without("sex").fit(X, y)
    scorer = get_fairness_scorer("statistical_parity_difference", sensitive_column="sex")
    only_female = sex == "female"
    with pytest.warns(UndefinedMetricWarning, match="single group") as record:
        scorer(model, X[only_female], y[only_female])
    # One warning of that class per scoring call: the metric's own is not repeated.
    assert sum(issubclass(w.category, UndefinedMetricWarning) for w in record) == 1
    # Folds of rows sorted by group hold one group each: every fold warns.
    order = np.argsort(sex, kind="stable")
    with pytest.warns(UndefinedMetricWarning, match="sorted by group"):
        cross_validate(_model_without("sex"), X.iloc[order], y[order], scoring=scorer, cv=KFold(2))


def test_refit_helper_in_grid_search(data):
    X, y, sex = data
    scoring = {
        "acc": "accuracy",
        "spd": get_fairness_scorer("statistical_parity_difference", sensitive_column="sex"),
    }
    refit = most_accurate_within(0.5, fairness="spd", performance="acc")
    search = GridSearchCV(
        _model_without("sex"), {"clf__C": [1e-4, 1.0]}, scoring=scoring, refit=refit, cv=3
    ).fit(X, y)
    results = search.cv_results_
    admissible = -results["mean_test_spd"] <= 0.5
    best = np.flatnonzero(admissible)[np.argmax(results["mean_test_acc"][admissible])]
    assert search.best_index_ == best
    pickle.loads(pickle.dumps(search))


def test_pickle_repr_and_set_score_request_without_routing():
    scorer = get_fairness_scorer(
        "statistical_parity_difference", sensitive_column="sex", privileged_group="M"
    )
    assert repr(scorer) == (
        "make_fairness_scorer(statistical_parity_difference, response_method='predict', "
        "sensitive_column='sex', privileged_group='M')"
    )
    assert repr(pickle.loads(pickle.dumps(scorer))) == repr(scorer)
    with pytest.raises(RuntimeError, match="metadata routing"):
        scorer.set_score_request(sensitive_features=True)
    with pytest.raises(ValueError, match="'name' parameter of get_fairness_scorer must be"):
        get_fairness_scorer("nope")


def test_score_response_of_binary_classifier_is_positive_column(data):
    X, y, sex = data
    model = _model_without("sex").fit(X, y)
    seen = {}

    def record(y_true, y_score, *, sensitive_features):
        seen["scores"] = y_score
        return 0.0

    make_fairness_scorer(
        record, response_method=("predict_proba", "decision_function"), sensitive_column="sex"
    )(model, X, y)
    np.testing.assert_array_equal(seen["scores"], model.predict_proba(X)[:, 1])


def test_score_metric_scorer_uses_probabilities(data):
    from scipy.stats import wasserstein_distance

    X, y, sex = data
    model = _model_without("sex").fit(X, y)
    scorer = get_fairness_scorer("wasserstein_bias", sensitive_column="sex")
    scores = model.predict_proba(X)[:, 1]
    expected = wasserstein_distance(scores[sex == "female"], scores[sex == "male"])
    assert scorer(model, X, y) == pytest.approx(-expected, rel=1e-12)


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: make_fairness_scorer("accuracy"), "'metric' parameter of make_fairness_scorer"),
        (
            lambda: make_fairness_scorer(accuracy_score, sensitive_column=1.5),
            "'sensitive_column' parameter of make_fairness_scorer",
        ),
        (
            lambda: make_fairness_scorer(accuracy_score, greater_is_better="yes"),
            "'greater_is_better' parameter of make_fairness_scorer",
        ),
        (
            lambda: get_fairness_scorer("statistical_parity_difference", sensitive_column=1.5),
            "'sensitive_column' parameter of get_fairness_scorer",
        ),
        (
            lambda: most_accurate_within(-0.1, fairness="spd", performance="acc"),
            "'bound' parameter of most_accurate_within",
        ),
        (
            lambda: most_accurate_within(0.1, fairness=["spd"], performance="acc"),
            "'fairness' parameter of most_accurate_within",
        ),
    ],
)
def test_builder_parameter_errors_name_the_parameter(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def _cdd_data():
    rng = np.random.default_rng(3)
    n = 400
    sex = rng.choice(["female", "male"], size=n)
    dept = rng.choice(["a", "b", "c"], size=n)
    x1 = rng.normal(size=n) + (dept == "a") + 0.5 * (sex == "male")
    y = (x1 + rng.normal(scale=0.5, size=n) > 0.7).astype(int)
    X = pd.DataFrame({"x1": x1, "x2": rng.normal(size=n), "sex": sex, "dept": dept})
    return X, y, sex, dept


def _cdd_oracle(estimator, X_fold, sex, dept):
    return conditional_demographic_disparity(
        None, estimator.predict(X_fold), sensitive_features=sex, control_features=dept
    )


def test_conditional_demographic_disparity_scorer_conditions_within_each_fold():
    # The scorer could not take control_features in cross-validation: a fixed array is not
    # sliced per fold, so every fold failed and cross_val_score returned NaN.
    X, y, sex, dept = _cdd_data()
    X_num = X[["x1", "x2"]].to_numpy()
    cv = KFold(3, shuffle=True, random_state=0)
    scorer = get_fairness_scorer("conditional_demographic_disparity")
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(
            LogisticRegression(),
            X_num,
            y,
            scoring=scorer,
            cv=cv,
            params={"sensitive_features": sex, "control_features": dept},
            return_estimator=True,
            return_indices=True,
            error_score="raise",
        )
        scores = cross_val_score(
            LogisticRegression(),
            X_num,
            y,
            scoring=scorer,
            cv=cv,
            params={"sensitive_features": sex, "control_features": dept},
        )
        search = GridSearchCV(
            LogisticRegression(), {"C": [0.01, 1.0]}, scoring=scorer, cv=cv, error_score="raise"
        ).fit(X_num, y, sensitive_features=sex, control_features=dept)
    np.testing.assert_array_equal(scores, result["test_score"])
    for estimator, test, score in zip(
        result["estimator"], result["indices"]["test"], result["test_score"], strict=True
    ):
        assert score == pytest.approx(
            -abs(_cdd_oracle(estimator, X_num[test], sex[test], dept[test])), abs=1e-12
        )
        # the conditioning matters on these data: the unconditioned value differs
        unconditioned = conditional_demographic_disparity(
            None, estimator.predict(X_num[test]), sensitive_features=sex[test]
        )
        assert abs(abs(unconditioned) + score) > 1e-3
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()

    # column mode: both attributes read from X, the model drops them
    model = Pipeline(
        [
            (
                "drop",
                ColumnTransformer([("drop", "drop", ["sex", "dept"])], remainder="passthrough"),
            ),
            ("clf", LogisticRegression()),
        ]
    )
    column_scorer = get_fairness_scorer(
        "conditional_demographic_disparity", sensitive_column="sex", control_column="dept"
    )
    assert "control_column='dept'" in repr(column_scorer)
    result = cross_validate(
        model,
        X,
        y,
        scoring=column_scorer,
        cv=cv,
        return_estimator=True,
        return_indices=True,
        error_score="raise",
    )
    for estimator, test, score in zip(
        result["estimator"], result["indices"]["test"], result["test_score"], strict=True
    ):
        expected = _cdd_oracle(estimator, X.iloc[test], sex[test], dept[test])
        assert score == pytest.approx(-abs(expected), abs=1e-12)
    search = GridSearchCV(
        model, {"clf__C": [0.01, 1.0]}, scoring=column_scorer, cv=cv, error_score="raise"
    ).fit(X, y)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_a_fixed_control_features_array_is_refused_when_the_scorer_is_built():
    _, _, _, dept = _cdd_data()
    with pytest.raises(TypeError, match="control_column="):
        get_fairness_scorer("conditional_demographic_disparity", control_features=dept)
    with pytest.raises(TypeError, match="has none"):
        get_fairness_scorer("statistical_parity_difference", control_column="dept")
