"""BootstrapEnsemble: construction, determinism, member outputs, scikit-learn conventions."""

import math
import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression, Perceptron
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair.ensemble import BootstrapEnsemble
from skfair.ensemble._bootstrap import _BootstrapDraw
from skfair.metrics import (
    aleatoric_uncertainty,
    epistemic_uncertainty,
    label_stability,
    label_stability_difference,
)

X, Y = make_classification(n_samples=120, n_features=5, random_state=0)


# The draw size is a number of rows, so that the weights' scale does not matter: integer
# weights are then not repeated rows (a row of weight 2 is drawn twice as often, but the
# sample does not grow), as for scikit-learn's own BaggingClassifier.
_NOT_FREQUENCY_WEIGHTS = "sample_weight are sampling weights: the draw size does not grow with them"


@parametrize_with_checks(
    [BootstrapEnsemble(LogisticRegression(), n_estimators=3)],
    expected_failed_checks=lambda estimator: {
        "check_sample_weight_equivalence_on_dense_data": _NOT_FREQUENCY_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _NOT_FREQUENCY_WEIGHTS,
    },
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_member_outputs_shapes_and_mean():
    ensemble = BootstrapEnsemble(LogisticRegression(), n_estimators=7, random_state=0).fit(X, Y)
    proba = ensemble.predict_proba_members(X)
    assert proba.shape == (7, 120, 2)
    np.testing.assert_allclose(ensemble.predict_proba(X), proba.mean(axis=0))
    for member, member_proba in zip(ensemble.estimators_, proba, strict=True):
        np.testing.assert_array_equal(member_proba, member.predict_proba(X))
    assert ensemble.predict_members(X).shape == (7, 120)
    assert [len(rows) for rows in ensemble.estimators_samples_] == [int(0.8 * 120)] * 7
    # Drawn with replacement (Virny): some row repeats within a member's sample.
    assert any(len(np.unique(rows)) < len(rows) for rows in ensemble.estimators_samples_)


def test_members_are_fitted_unweighted_on_rows_drawn_by_weight():
    weights = np.random.default_rng(0).uniform(0.5, 2, size=120)
    ensemble = BootstrapEnsemble(LogisticRegression(), n_estimators=4, random_state=3)
    ensemble.fit(X, Y, sample_weight=weights)
    n_drawn = int(0.8 * 120)  # rows, not weight
    for member, rows in zip(ensemble.estimators_, ensemble.estimators_samples_, strict=True):
        assert len(rows) == n_drawn
        expected = LogisticRegression().fit(X[rows], Y[rows])
        np.testing.assert_allclose(member.coef_, expected.coef_, rtol=1e-6)


@pytest.mark.parametrize("container", ["array", "frame"])
def test_a_row_of_weight_k_weighs_as_k_copies_in_the_draw(container):
    # Rows are drawn by content: with the same number of rows drawn, weights and repeated
    # rows (in any order) give the same members for a seed, not only in distribution.
    rng = np.random.default_rng(1)
    weights = rng.integers(0, 4, size=120)
    repeated = np.repeat(np.arange(120), weights)
    order = rng.permutation(len(repeated))  # and in another order
    X_in = X if container == "array" else pd.DataFrame(X, columns=list("abcde"))
    params = dict(estimator=LogisticRegression(), n_estimators=5, random_state=0)
    weighted = BootstrapEnsemble(**params).fit(X_in, Y, sample_weight=weights)
    n_drawn = int(0.8 * np.count_nonzero(weights))  # rows of positive weight
    copied = BootstrapEnsemble(**params, bootstrap_fraction=(n_drawn + 0.5) / len(repeated)).fit(
        _safe_indexing(X_in, repeated[order]), Y[repeated[order]]
    )
    np.testing.assert_array_equal(
        weighted.predict_proba_members(X_in), copied.predict_proba_members(X_in)
    )
    for rows, copied_rows in zip(
        weighted.estimators_samples_, copied.estimators_samples_, strict=True
    ):
        assert len(rows) == n_drawn
        assert weights[rows].min() > 0
        np.testing.assert_array_equal(X[rows], X[repeated[order]][copied_rows])


@pytest.mark.parametrize("scale", [500.0, 1 / 3, 1e-300, 1e300])
def test_the_draw_does_not_depend_on_the_weights_scale(scale):
    # Regression: the draw size was 0.8 * sum(sample_weight): survey weights of about 500 per
    # row fitted each member on 400 times the data, weights summing to 1 failed with a message
    # blaming the data size, and weights of 1e300 raised OverflowError.
    weights = np.random.default_rng(2).uniform(0.5, 2, size=120)
    params = dict(estimator=LogisticRegression(), n_estimators=3, random_state=0)
    reference = BootstrapEnsemble(**params).fit(X, Y, sample_weight=weights)
    for scaled in (weights * scale, weights / weights.sum()):
        ensemble = BootstrapEnsemble(**params).fit(X, Y, sample_weight=scaled)
        for rows, reference_rows in zip(
            ensemble.estimators_samples_, reference.estimators_samples_, strict=True
        ):
            np.testing.assert_array_equal(rows, reference_rows)
            assert len(rows) == int(0.8 * 120)
    # uniform weights of any scale are no weights
    unweighted = BootstrapEnsemble(**params).fit(X, Y)
    uniform = BootstrapEnsemble(**params).fit(X, Y, sample_weight=np.full(120, scale))
    np.testing.assert_array_equal(
        uniform.predict_proba_members(X), unweighted.predict_proba_members(X)
    )


def test_unweighted_draw_is_the_uniform_bootstrap():
    # Each row is drawn n_drawn / n times on average, a row present twice twice as often.
    y_small = Y[:30]
    X_small = np.vstack([X[:30], X[:1]])  # row 0 twice
    y_small = np.append(y_small, y_small[0])
    draw = _BootstrapDraw.from_data(X_small, y_small, None, 0.8)
    assert draw.n_drawn == int(0.8 * 31)
    n_members = 2000
    counts = np.mean([np.bincount(draw(seed), minlength=31) for seed in range(n_members)], axis=0)
    expected = np.full(31, draw.n_drawn / 31)
    expected[0], expected[30] = 2 * expected[0], 0.0  # row 30 is represented by row 0
    # Standard error of a mean over n_members draws (counts are binomial), 5 sigma.
    margin = 5 * np.sqrt(expected / n_members) + 1e-12
    assert np.all(np.abs(counts - expected) <= margin)


def test_a_single_class_draw_is_redrawn():
    # Regression: with one row of class 1 in 10, a draw of 8 rows misses it with probability
    # 0.9**8 = 0.43, and LogisticRegression cannot be fitted on a single class.
    X_small = np.arange(10.0)[:, None]
    y_small = (np.arange(10) == 9).astype(int)
    ensemble = BootstrapEnsemble(LogisticRegression(), n_estimators=20, random_state=0)
    ensemble.fit(X_small, y_small)
    assert all(9 in rows for rows in ensemble.estimators_samples_)
    assert all(len(member.classes_) == 2 for member in ensemble.estimators_)


def test_weights_on_a_single_class_are_refused():
    weights = (Y == 1).astype(float)
    with pytest.raises(ValueError, match="Only one class has a positive sample_weight"):
        BootstrapEnsemble(LogisticRegression(), n_estimators=2).fit(X, Y, sample_weight=weights)


def test_sample_weight_routing():
    weights = np.random.default_rng(0).uniform(0.5, 2, size=120)
    legacy = BootstrapEnsemble(LogisticRegression(), n_estimators=3, random_state=0)
    legacy.fit(X, Y, sample_weight=weights)
    with sklearn.config_context(enable_metadata_routing=True):
        # The ensemble consumes sample_weight itself (its draw); the members are not weighted.
        routed = BootstrapEnsemble(LogisticRegression(), n_estimators=3, random_state=0)
        routed.fit(X, Y, sample_weight=weights)
        np.testing.assert_allclose(routed.predict_proba(X), legacy.predict_proba(X))


def test_verbose_reports_progress(capsys):
    BootstrapEnsemble(LogisticRegression(), n_estimators=3, verbose=10).fit(X, Y)
    assert "Done" in capsys.readouterr().err


def test_deterministic_under_random_state_and_n_jobs():
    def members(random_state, n_jobs=None):
        estimator = DecisionTreeClassifier(max_features=2)  # random itself
        ensemble = BootstrapEnsemble(
            estimator, n_estimators=6, random_state=random_state, n_jobs=n_jobs
        )
        return ensemble.fit(X, Y).predict_proba_members(X)

    reference = members(42)
    np.testing.assert_array_equal(members(42), reference)
    np.testing.assert_array_equal(members(42, n_jobs=2), reference)
    np.testing.assert_array_equal(members(np.random.RandomState(42)), reference)
    assert not np.array_equal(members(43), reference)


def test_members_get_distinct_seeds():
    ensemble = BootstrapEnsemble(DecisionTreeClassifier(), n_estimators=5, random_state=0)
    seeds = [member.random_state for member in ensemble.fit(X, Y).estimators_]
    assert all(isinstance(seed, int) for seed in seeds)
    assert len(set(seeds)) == 5


def test_bootstrap_missing_a_class():
    # Class 2 has a single training row, so most bootstrap samples miss it.
    y = np.where(np.arange(120) == 5, 2, Y)
    ensemble = BootstrapEnsemble(DecisionTreeClassifier(), n_estimators=8, random_state=0)
    proba = ensemble.fit(X, y).predict_proba_members(X)
    np.testing.assert_array_equal(ensemble.classes_, [0, 1, 2])
    assert proba.shape == (8, 120, 3)
    np.testing.assert_allclose(proba.sum(axis=2), 1)
    missed = [5 not in rows for rows in ensemble.estimators_samples_]
    assert any(missed) and not all(missed)
    for member, member_proba, miss in zip(ensemble.estimators_, proba, missed, strict=True):
        assert miss == (len(member.classes_) == 2)
        if miss:
            np.testing.assert_array_equal(member_proba[:, 2], 0)
    assert set(ensemble.predict_members(X).ravel()) <= {0, 1, 2}
    # Three classes: K = 3 in label stability, entropies up to log2(3).
    result = ensemble.uncertainty(X)
    np.testing.assert_allclose(
        result.label_stability, label_stability(ensemble.predict_members(X), labels=[0, 1, 2])
    )
    assert np.all(result.aleatoric + result.epistemic <= math.log2(3) + 1e-12)


def test_uncertainty_matches_the_metric_functions():
    ensemble = BootstrapEnsemble(LogisticRegression(C=0.05), n_estimators=9, random_state=1)
    result = ensemble.fit(X, Y).uncertainty(X[:50])
    proba = ensemble.predict_proba_members(X[:50])
    np.testing.assert_allclose(result.aleatoric, aleatoric_uncertainty(proba))
    np.testing.assert_allclose(result.epistemic, epistemic_uncertainty(proba))
    # Member labels from the binary positive-class probability with Virny's rule p > 0.5.
    virny_labels = (proba[:, :, 1] > 0.5).astype(int)
    np.testing.assert_array_equal(ensemble.predict_members(X[:50]), virny_labels)
    np.testing.assert_allclose(result.label_stability, label_stability(virny_labels))
    assert result.label_stability.min() < 1  # the data has unstable samples
    assert (
        label_stability_difference(
            Y[:50], ensemble.predict_members(X[:50]), sensitive_features=X[:50, 0] > 0
        )
        >= 0
    )


def test_identical_members_are_stable_with_no_epistemic_uncertainty():
    # A frozen model ignores fit, so every bootstrap replica is the same model.
    fitted = LogisticRegression().fit(X, Y)
    ensemble = BootstrapEnsemble(FrozenEstimator(fitted), n_estimators=5).fit(X, Y)
    result = ensemble.uncertainty(X)
    np.testing.assert_array_equal(result.label_stability, 1.0)
    np.testing.assert_allclose(result.epistemic, 0.0, atol=1e-12)
    p = fitted.predict_proba(X)[:, 1]
    expected = [-q * math.log2(q) - (1 - q) * math.log2(1 - q) for q in p]
    np.testing.assert_allclose(result.aleatoric, expected)
    np.testing.assert_array_equal(ensemble.predict(X), fitted.predict(X))


def test_ties_go_to_the_first_class():
    # A prior of exactly 1/2: each member and the mean are tied, as in Virny's p = 0.5 rule.
    y = np.array(["yes", "no"] * 60)
    dummy = FrozenEstimator(DummyClassifier(strategy="prior").fit(X, y))
    ensemble = BootstrapEnsemble(dummy, n_estimators=3).fit(X, y)
    np.testing.assert_array_equal(ensemble.predict_proba(X), 0.5)
    np.testing.assert_array_equal(ensemble.predict(X), "no")
    np.testing.assert_array_equal(ensemble.predict_members(X), "no")


def test_estimator_without_predict_proba_votes():
    ensemble = BootstrapEnsemble(Perceptron(), n_estimators=5, random_state=0).fit(X, Y)
    assert not hasattr(ensemble, "predict_proba")
    assert not hasattr(ensemble, "uncertainty")
    labels = ensemble.predict_members(X)
    np.testing.assert_array_equal(labels, [m.predict(X) for m in ensemble.estimators_])
    majority = [np.bincount(column, minlength=2).argmax() for column in labels.T]
    np.testing.assert_array_equal(ensemble.predict(X), majority)


def test_dataframe_reaches_a_pipeline_with_named_columns():
    import pandas as pd
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    frame = pd.DataFrame({"x": X[:, 0], "colour": np.where(X[:, 1] > 0, "red", "blue")})
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["colour"]), remainder="passthrough"),
        LogisticRegression(),
    )
    ensemble = BootstrapEnsemble(model, n_estimators=3, random_state=0).fit(frame, Y)
    np.testing.assert_array_equal(ensemble.feature_names_in_, ["x", "colour"])
    assert ensemble.predict_proba_members(frame).shape == (3, 120, 2)


def test_clone_and_pickle():
    ensemble = BootstrapEnsemble(LogisticRegression(C=0.5), n_estimators=4, random_state=0)
    cloned = clone(ensemble)
    assert cloned.get_params()["estimator__C"] == 0.5
    assert not hasattr(cloned, "estimators_")
    ensemble.fit(X, Y)
    restored = pickle.loads(pickle.dumps(ensemble))
    np.testing.assert_array_equal(
        restored.predict_proba_members(X), ensemble.predict_proba_members(X)
    )


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_estimators": 1}, "n_estimators"),
        ({"bootstrap_fraction": 0.0}, "bootstrap_fraction"),
        ({"bootstrap_fraction": 1.5}, "bootstrap_fraction"),
        ({"n_jobs": 1.5}, "n_jobs"),
    ],
)
def test_parameter_constraints(params, match):
    with pytest.raises(InvalidParameterError, match=match):
        BootstrapEnsemble(LogisticRegression(), **params).fit(X, Y)


def test_missing_values_are_checked_on_all_rows():
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    # Row 0 is in no bootstrap sample of this size, yet the NaN is reported.
    small = BootstrapEnsemble(LogisticRegression(), n_estimators=2, bootstrap_fraction=0.02)
    with pytest.raises(ValueError, match="NaN"):
        small.fit(X_nan, Y)
    # A pipeline that imputes first accepts NaN (a Pipeline's own tag says it does not).
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline

    imputing = make_pipeline(SimpleImputer(), LogisticRegression())
    ensemble = BootstrapEnsemble(imputing, n_estimators=2, random_state=0).fit(X_nan, Y)
    assert ensemble.predict(X_nan).shape == (120,)


def test_scorers_need_member_outputs_and_work_in_cross_validation():
    from sklearn.model_selection import KFold, cross_validate

    from skfair.metrics import epistemic_uncertainty_difference, get_fairness_scorer

    with pytest.raises(ValueError, match="'predict_proba_members'"):
        get_fairness_scorer("epistemic_uncertainty_difference")
    with pytest.raises(ValueError, match="'predict_members'"):
        get_fairness_scorer("label_stability_difference")
    X_s = np.column_stack([X[:, 0] > 0, X[:, 1:]]).astype(float)
    scoring = {
        "stability": get_fairness_scorer(
            "label_stability_difference", response_method="predict_members", sensitive_column=0
        ),
        "epistemic": get_fairness_scorer(
            "epistemic_uncertainty_difference",
            response_method="predict_proba_members",
            sensitive_column=0,
        ),
    }
    ensemble = BootstrapEnsemble(LogisticRegression(), n_estimators=4, random_state=0)
    cv = KFold(3)
    scores = cross_validate(ensemble, X_s, Y, scoring=scoring, cv=cv, error_score="raise")
    for k, (train, test) in enumerate(cv.split(X_s)):
        fitted = clone(ensemble).fit(X_s[train], Y[train])
        groups = X_s[test, 0]
        stability = label_stability_difference(
            Y[test], fitted.predict_members(X_s[test]), sensitive_features=groups
        )
        epistemic = epistemic_uncertainty_difference(
            Y[test], fitted.predict_proba_members(X_s[test]), sensitive_features=groups
        )
        assert scores["test_stability"][k] == pytest.approx(-stability)
        assert scores["test_epistemic"][k] == pytest.approx(-epistemic)


def test_unreadable_values_are_checked_on_all_rows():
    # A dict in a row that no member draws was passed over (the members never saw it), so
    # scikit-learn's check_dtype_object failed or passed depending on the draw.
    X_object = X.astype(object)
    small = BootstrapEnsemble(
        LogisticRegression(), n_estimators=2, bootstrap_fraction=0.1, random_state=0
    )
    drawn = np.concatenate(clone(small).fit(X_object, Y).estimators_samples_)
    undrawn = int(np.setdiff1d(np.arange(X.shape[0]), drawn)[0])
    X_object[undrawn, 3] = {"foo": "bar"}
    with pytest.raises(TypeError, match=rf"X\[{undrawn}, 3\] is of type 'dict'.*string.* number"):
        small.fit(X_object, Y)
    # Strings stay for a model that encodes them, as on a DataFrame.
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    X_strings = np.column_stack([X[:, 0], np.where(X[:, 1] > 0, "red", "blue")]).astype(object)
    X_strings[:, 0] = X[:, 0]
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), [1]), remainder="passthrough"),
        LogisticRegression(),
    )
    ensemble = BootstrapEnsemble(model, n_estimators=2, random_state=0).fit(X_strings, Y)
    assert ensemble.predict(X_strings).shape == (X.shape[0],)


def _traced_peak(function):
    """Peak of the memory traced by tracemalloc while ``function()`` runs, in bytes."""
    import tracemalloc

    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_fit_memory_does_not_grow_with_the_number_of_members():
    # Regression: every member's bootstrap rows were drawn before the first was fitted, and
    # kept in estimators_samples_: 4 bytes a drawn row per member (48 members of 16,000 rows
    # here: 3 MB more than 2 members). Each member now draws its rows when it is fitted.
    rng = np.random.default_rng(0)
    X_big = rng.normal(size=(20_000, 4))
    y_big = (X_big[:, 0] + rng.normal(size=20_000) > 0).astype(int)
    peaks = {
        n: _traced_peak(
            lambda n=n: BootstrapEnsemble(LogisticRegression(), n_estimators=n, random_state=0).fit(
                X_big, y_big
            )
        )
        for n in (2, 48)
    }
    one_sample = 16_000 * 4  # bytes of one member's row numbers
    assert peaks[48] - peaks[2] < 2 * one_sample


def test_samples_are_drawn_again_on_access_and_match_the_members():
    ensemble = BootstrapEnsemble(LogisticRegression(), n_estimators=4, random_state=0).fit(X, Y)
    assert "estimators_samples_" not in vars(ensemble)
    first, second = ensemble.estimators_samples_, ensemble.estimators_samples_
    for rows, again, member in zip(first, second, ensemble.estimators_, strict=True):
        np.testing.assert_array_equal(rows, again)
        np.testing.assert_array_equal(
            member.coef_, LogisticRegression().fit(X[rows], Y[rows]).coef_
        )
    assert not hasattr(BootstrapEnsemble(LogisticRegression()), "estimators_samples_")


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_uncertainty_memory_does_not_grow_with_the_number_of_members(n_jobs):
    # Regression: uncertainty and predict_proba held every member's probabilities at once
    # (n_estimators x n_samples x n_classes floats: 24 members of 20,000 rows, 7.7 MB); they
    # now add them up a few members at a time, to the same values bit for bit.
    rng = np.random.default_rng(1)
    X_big = rng.normal(size=(20_000, 3))
    y_big = (X_big[:, 0] + rng.normal(size=20_000) > 0).astype(int)
    peaks = {}
    for n in (2, 24):
        ensemble = BootstrapEnsemble(
            LogisticRegression(), n_estimators=n, random_state=0, n_jobs=n_jobs
        ).fit(X_big, y_big)
        peaks[n] = _traced_peak(lambda ensemble=ensemble: ensemble.uncertainty(X_big))
        peaks[n, "proba"] = _traced_peak(lambda ensemble=ensemble: ensemble.predict_proba(X_big))
    one_member = 20_000 * 2 * 8  # bytes of one member's probabilities
    # (a few members' worth of slack for joblib's own buffers with two jobs)
    assert peaks[24] - peaks[2] < 4 * one_member
    assert peaks[24, "proba"] - peaks[2, "proba"] < 4 * one_member
    proba = ensemble.predict_proba_members(X_big)
    result = ensemble.uncertainty(X_big)
    np.testing.assert_array_equal(ensemble.predict_proba(X_big), proba.mean(axis=0))
    np.testing.assert_array_equal(result.aleatoric, aleatoric_uncertainty(proba))
    np.testing.assert_array_equal(result.epistemic, epistemic_uncertainty(proba))
    np.testing.assert_array_equal(
        result.label_stability, label_stability(np.argmax(proba, axis=2), labels=[0, 1])
    )
