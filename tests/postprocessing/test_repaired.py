"""RepairedClassifier / RepairedRegressor: scikit-learn contract, the two sensitive-feature
modes, FrozenEstimator, out-of-fold repair, multi-class renormalisation."""

import pickle
import warnings

import numpy as np
import pytest
import sklearn
from scipy.stats import ks_2samp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_predict
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair.postprocessing import (
    BarycenterRepair,
    MADDRepair,
    RepairedClassifier,
    RepairedRegressor,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore:Groups .* have fewer than 10 calibration rows:UserWarning"
)


def make_data(n=600, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=n) + group, rng.normal(size=n)]
    latent = X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n)
    if n_classes == 2:
        y = (latent > 0.5).astype(int)
    else:
        y = np.digitize(latent, np.quantile(latent, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y, group


@parametrize_with_checks(
    [
        RepairedClassifier(LogisticRegression(), BarycenterRepair()),
        RepairedRegressor(LinearRegression(), BarycenterRepair()),
    ]
)
@pytest.mark.filterwarnings("ignore:Repaired.* was fitted without sensitive features")
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_binary_classifier_repairs_positive_probability():
    X, y, group = make_data()
    clf = RepairedClassifier(LogisticRegression(), BarycenterRepair(random_state=0))
    clf.fit(X, y, sensitive_features=group)
    proba = clf.predict_proba(X, sensitive_features=group)
    raw = LogisticRegression().fit(X, y).predict_proba(X)[:, 1]
    # the repair is the in-sample map of an independent LogisticRegression's scores
    expected = BarycenterRepair(random_state=0).fit(raw[:, None], sensitive_features=group)
    np.testing.assert_allclose(
        proba[:, 1], expected.transform(raw[:, None], sensitive_features=group)[:, 0]
    )
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert ks_2samp(proba[group == 0, 1], proba[group == 1, 1]).statistic < 0.05
    assert ks_2samp(raw[group == 0], raw[group == 1]).statistic > 0.3
    assert np.array_equal(
        clf.predict(X, sensitive_features=group), (proba[:, 1] >= 0.5).astype(int)
    )
    assert not hasattr(clf, "decision_function")  # it would not be repaired
    by_decision = RepairedClassifier(
        LogisticRegression(),
        BarycenterRepair(random_state=0),
        response_method="decision_function",
        threshold=0.0,
    ).fit(X, y, sensitive_features=group)
    assert not hasattr(by_decision, "predict_proba")
    decision = by_decision.decision_function(X, sensitive_features=group)
    assert decision.shape == (600,)
    assert ks_2samp(decision[group == 0], decision[group == 1]).statistic < 0.05
    assert clf.score(X, y, sensitive_features=group) == pytest.approx(
        np.mean(clf.predict(X, sensitive_features=group) == y)
    )


def test_multiclass_columns_repaired_then_renormalised():
    X, y, group = make_data(n_classes=3)
    clf = RepairedClassifier(LogisticRegression(), BarycenterRepair(random_state=0))
    clf.fit(X, y, sensitive_features=group)
    proba = clf.predict_proba(X, sensitive_features=group)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    raw = LogisticRegression().fit(X, y).predict_proba(X)
    columns = BarycenterRepair(random_state=0).fit(raw, sensitive_features=group)
    repaired = columns.transform(raw, sensitive_features=group)
    np.testing.assert_allclose(proba, repaired / repaired.sum(axis=1, keepdims=True))
    assert np.array_equal(clf.predict(X, sensitive_features=group), np.argmax(proba, axis=1))


def test_decision_function_only_model_uses_threshold_on_repaired_decision():
    X, y, group = make_data()
    clf = RepairedClassifier(LinearSVC(), BarycenterRepair(), threshold=0.0)
    clf.fit(X, y, sensitive_features=group)
    assert not hasattr(clf, "predict_proba")
    decision = clf.decision_function(X, sensitive_features=group)
    assert np.array_equal(clf.predict(X, sensitive_features=group), (decision >= 0).astype(int))
    auto = RepairedClassifier(LogisticRegression(), BarycenterRepair())
    assert hasattr(auto, "predict_proba") and not hasattr(auto, "decision_function")


def test_auto_threshold_on_decision_values_agrees_with_the_models_own_predict():
    # Regression: threshold=0.5 was applied to decision_function scores, so a LinearSVC
    # behind the identity repair (epsilon=1 keeps the scores) disagreed with its own predict.
    X, y, group = make_data(n=2000)
    svc = LinearSVC().fit(X, y)
    identity = RepairedClassifier(FrozenEstimator(svc), BarycenterRepair(epsilon=1.0))
    identity.fit(X, y, sensitive_features=group)
    np.testing.assert_allclose(
        identity.decision_function(X, sensitive_features=group), svc.decision_function(X)
    )
    assert np.array_equal(identity.predict(X, sensitive_features=group), svc.predict(X))
    proba = RepairedClassifier(
        FrozenEstimator(LogisticRegression().fit(X, y)), BarycenterRepair(1.0)
    )
    proba.fit(X, y, sensitive_features=group)
    assert np.array_equal(proba.predict(X, sensitive_features=group), proba.estimator_.predict(X))


def test_regressor_repair_equalises_group_laws():
    rng = np.random.default_rng(1)
    group = rng.integers(0, 2, 800)
    X = np.c_[rng.normal(size=800) + 2 * group]
    y = X[:, 0] + rng.normal(size=800)
    reg = RepairedRegressor(LinearRegression(), BarycenterRepair(random_state=0))
    pred = reg.fit(X, y, sensitive_features=group).predict(X, sensitive_features=group)
    assert pred.shape == (800,)
    assert ks_2samp(pred[group == 0], pred[group == 1]).statistic < 0.03
    two = np.c_[y, -2 * y]
    multi = clone(reg).fit(X, two, sensitive_features=group).predict(X, sensitive_features=group)
    assert multi.shape == (800, 2)
    np.testing.assert_allclose(multi[:, 0], pred)


def test_frozen_estimator_keeps_inner_coefficients():
    X, y, group = make_data()
    fitted = LogisticRegression().fit(X[:300], y[:300])
    coef = fitted.coef_.copy()
    clf = RepairedClassifier(FrozenEstimator(fitted), BarycenterRepair())
    clf.fit(X[300:], y[300:], sensitive_features=group[300:])
    assert clf.estimator_ is clf.estimator
    assert np.array_equal(fitted.coef_, coef)
    assert clone(clf).estimator is clf.estimator  # FrozenEstimator survives clone


def test_cv_fits_repair_out_of_fold_and_refits_estimator():
    X, y, group = make_data()
    cv = KFold(5)
    clf = RepairedClassifier(
        LogisticRegression(),
        BarycenterRepair(random_state=0),
        cv=cv,
        response_method="predict_proba",
    )
    clf.fit(X, y, sensitive_features=group)
    oof = cross_val_predict(LogisticRegression(), X, y, cv=cv, method="predict_proba")[:, 1:]
    expected = BarycenterRepair(random_state=0).fit(oof, sensitive_features=group)
    queries = LogisticRegression().fit(X, y).predict_proba(X)[:, 1:]
    np.testing.assert_allclose(
        clf.predict_proba(X, sensitive_features=group)[:, 1],
        expected.transform(queries, sensitive_features=group)[:, 0],
    )
    np.testing.assert_allclose(clf.estimator_.coef_, LogisticRegression().fit(X, y).coef_)


class RecordingRepair(TransformerMixin, BaseEstimator):
    """A repair that records what reaches its fit (the MADDRepair interface needs y)."""

    def fit(self, S, y=None, *, sensitive_features=None, sample_weight=None):
        self.seen_y_ = y
        self.seen_weight_ = sample_weight
        self.n_features_in_ = S.shape[1]
        return self

    def transform(self, S, *, sensitive_features=None):
        return S


def test_repair_receives_targets_and_weights():
    X, y, group = make_data()
    weights = np.arange(600) % 3 + 1.0
    clf = RepairedClassifier(LogisticRegression(), RecordingRepair())
    clf.fit(X, y, sample_weight=weights, sensitive_features=group)
    assert np.array_equal(clf.repair_.seen_y_, y)
    assert np.array_equal(clf.repair_.seen_weight_, weights)


def test_grid_search_in_sensitive_column_mode_with_string_column():
    import pandas as pd
    X, y, group = make_data()
    frame = pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "sex": np.where(group == 1, "M", "F")})
    clf = RepairedClassifier(
        LogisticRegression(), BarycenterRepair(random_state=0), sensitive_column="sex"
    )
    search = GridSearchCV(
        clf, {"repair__epsilon": [0.0, 1.0], "estimator__C": [0.01, 1.0]}, cv=3, error_score="raise"
    )
    search.fit(frame, y)
    assert set(search.best_params_) == {"repair__epsilon", "estimator__C"}
    assert search.predict(frame).shape == (600,)
    assert list(search.best_estimator_.feature_names_in_) == ["x1", "x2", "sex"]
    assert list(search.best_estimator_.estimator_.feature_names_in_) == ["x1", "x2"]
    fair = clone(clf).fit(frame, y)
    rates = [fair.predict(frame)[group == g].mean() for g in (0, 1)]
    assert abs(rates[0] - rates[1]) < 0.05
    with pytest.raises(ValueError, match="pass one or the other"):
        fair.predict(frame, sensitive_features=group)


def test_grid_search_in_routing_mode():
    X, y, group = make_data()
    with sklearn.config_context(enable_metadata_routing=True):
        clf = RepairedClassifier(LogisticRegression(), BarycenterRepair(random_state=0))
        search = GridSearchCV(clf, {"repair__epsilon": [0.0, 1.0]}, cv=3, error_score="raise")
        search.fit(X, y, sensitive_features=group)
        best = search.best_estimator_
        assert best.predict(X, sensitive_features=group).shape == (600,)
        # score() receives the routed sensitive features
        assert 0.5 < search.score(X, y, sensitive_features=group) <= 1.0
        routing = clf.get_metadata_routing()
        assert routing.consumes("fit", ["sensitive_features"]) == {"sensitive_features"}


def test_missing_sensitive_features_at_predict_is_a_clear_error():
    X, y, group = make_data()
    clf = RepairedClassifier(LogisticRegression(), BarycenterRepair()).fit(
        X, y, sensitive_features=group
    )
    with pytest.raises(ValueError, match="transform needs them"):
        clf.predict(X)
    with pytest.warns(
        UserWarning, match="RepairedClassifier was fitted without sensitive features"
    ):
        RepairedClassifier(LogisticRegression(), BarycenterRepair()).fit(X, y)


def test_clone_pickle_and_html_repr_without_a_dead_documentation_link():
    X, y, group = make_data()
    clf = RepairedRegressor(LinearRegression(), BarycenterRepair(0.5), sensitive_column=0)
    assert clone(clf).get_params()["repair__epsilon"] == 0.5
    fitted = clf.fit(X, y.astype(float))
    restored = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(restored.predict(X), fitted.predict(X))
    assert fitted.n_features_in_ == 2
    # skfair publishes no online API reference, so the HTML repr links to none.
    assert fitted._get_doc_link() == ""
    assert "RepairedRegressor" in fitted._repr_html_()


def test_madd_repair_in_column_mode():
    X, y, group = make_data(n=2000)
    data = np.c_[X, group]
    clf = RepairedClassifier(LogisticRegression(), MADDRepair(), sensitive_column=2).fit(data, y)
    proba = clf.predict_proba(data)[:, 1]
    raw = LogisticRegression().fit(X, y).predict_proba(X)[:, 1]
    gap = abs(proba[group == 0].mean() - proba[group == 1].mean())
    assert gap < abs(raw[group == 0].mean() - raw[group == 1].mean()) / 2
    # MADDRepair takes sample_weight: the wrapper passes it on without a warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        weighted = clone(clf).fit(data, y, sample_weight=np.ones(2000))
    assert not [w for w in caught if "sample_weight" in str(w.message)]
    np.testing.assert_allclose(weighted.predict_proba(data), clf.predict_proba(data), atol=1e-6)
