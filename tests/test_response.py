"""The one way skfair reads a model's scores, against the model's own outputs."""

import functools
import re

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import cross_val_predict
from sklearn.svm import LinearSVC

from skfair._utils._response import (
    ScoreReader,
    auto_threshold,
    get_response_values,
    response_from_output,
)

X, y01 = make_classification(n_samples=200, n_features=4, random_state=0)
Y_WORDS = np.array(["no", "yes"])[y01]
X3, Y3 = make_classification(
    n_samples=300, n_features=6, n_informative=4, n_classes=3, random_state=0
)


@pytest.mark.parametrize("pos_label", [None, "yes", "no"])
def test_binary_probabilities_and_decision_values_follow_pos_label(pos_label):
    proba_model = LogisticRegression().fit(X, Y_WORDS)
    svc = LinearSVC().fit(X, Y_WORDS)
    column = 0 if pos_label == "no" else 1
    sign = -1.0 if pos_label == "no" else 1.0
    expected_proba = proba_model.predict_proba(X)[:, column]
    expected_decision = sign * svc.decision_function(X)
    scores, used_label, method = get_response_values(
        proba_model, X, ["predict_proba", "decision_function"], pos_label=pos_label
    )
    assert method == "predict_proba" and used_label == (pos_label or "yes")
    np.testing.assert_array_equal(scores, expected_proba)
    scores, _, method = get_response_values(
        svc, X, ["predict_proba", "decision_function"], pos_label=pos_label
    )
    assert method == "decision_function"
    np.testing.assert_array_equal(scores, expected_decision)
    for model, expected in ((proba_model, expected_proba), (svc, expected_decision)):
        reader = ScoreReader.from_estimator(model, "auto", pos_label)
        np.testing.assert_array_equal(reader(model, X), expected)


def test_multi_class_probabilities_need_a_pos_label():
    model = LogisticRegression().fit(X3, Y3)
    scores, _, _ = get_response_values(model, X3, "predict_proba")
    np.testing.assert_array_equal(scores, model.predict_proba(X3))  # 2-D, as scikit-learn
    with pytest.raises(ValueError, match="pass pos_label"):
        ScoreReader.from_estimator(model, "auto")
    reader = ScoreReader.from_estimator(model, "auto", pos_label=2)
    np.testing.assert_array_equal(reader(model, X3), model.predict_proba(X3)[:, 2])
    with pytest.raises(ValueError, match="not among the classes"):
        ScoreReader.from_estimator(model, "auto", pos_label=7)


def test_regressor_outputs_pass_unchanged():
    model = LinearRegression().fit(X, y01)
    reader = ScoreReader.from_estimator(model, "auto")
    assert reader.method == "predict"
    np.testing.assert_array_equal(reader(model, X), model.predict(X))


def test_outputs_computed_elsewhere_are_read_like_the_models_own():
    for method in ("predict_proba", "decision_function"):
        output = cross_val_predict(LogisticRegression(), X, Y_WORDS, cv=3, method=method)
        expected = output[:, 1] if method == "predict_proba" else output
        read = response_from_output(output, method, np.array(["no", "yes"]))
        np.testing.assert_array_equal(read, expected)
        negated = response_from_output(output, method, np.array(["no", "yes"]), pos_label="no")
        expected = output[:, 0] if method == "predict_proba" else -output
        np.testing.assert_array_equal(negated, expected)


def test_method_params_reach_the_method_used():
    class NeedsGroups(LogisticRegression):
        def predict_proba(self, X, *, groups):
            return super().predict_proba(X) * 0 + np.c_[1 - groups, groups]

    model = NeedsGroups().fit(X, y01)
    groups = np.linspace(0, 1, len(X))
    scores, _, _ = get_response_values(
        model, X, "predict_proba", method_params={"predict_proba": {"groups": groups}}
    )
    np.testing.assert_allclose(scores, groups)


def test_auto_threshold_is_scikit_learns():
    assert auto_threshold("predict_proba") == 0.5
    assert auto_threshold("decision_function") == 0.0


@functools.lru_cache
def _fitted_logistic(classes):
    return LogisticRegression().fit(X, np.asarray(classes)[y01])


@pytest.mark.parametrize(
    "labels", [np.array([0, 1]), np.array([True, False]), np.array(["no", "yes"]), [2.0, 7.0]]
)
@pytest.mark.parametrize("pos_label", [None, "first", "last", "absent"])
@pytest.mark.parametrize(
    "response_method",
    ["predict_proba", "decision_function", "predict_log_proba", "predict",
     ["decision_function", "predict_proba"]],
)
def test_binary_classifiers_are_read_exactly_as_scikit_learn_reads_them(
    labels, pos_label, response_method
):
    """The shortcut for binary classifiers (no type_of_target of the classes) returns what
    scikit-learn's _get_response_values returns, or raises what it raises."""
    from sklearn.frozen import FrozenEstimator
    from sklearn.utils._response import _get_response_values

    y = np.asarray(labels)[y01]
    classes = np.unique(y)
    label = {"first": classes[0], "last": classes[-1], "absent": "other", None: None}[pos_label]
    fitted = _fitted_logistic(tuple(classes.tolist()))
    for model in (fitted, FrozenEstimator(fitted)):
        try:
            expected = _get_response_values(
                model, X, response_method, pos_label=label, return_response_method_used=True
            )
        except ValueError as error:
            with pytest.raises(ValueError, match=re.escape(str(error))):
                get_response_values(model, X, response_method, pos_label=label)
            continue
        scores, used_label, method = get_response_values(
            model, X, response_method, pos_label=label
        )
        np.testing.assert_array_equal(scores, expected[0])
        assert used_label == expected[1] and type(used_label) is type(expected[1])
        assert method == expected[2]
