"""The shared label checks: labels that cannot be compared are refused with a clear error."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.validation import column_or_1d

from skfair._utils._compat import validate_data
from skfair._utils._validation import (
    check_label_pair,
    check_label_values,
    check_labels,
    plain_array_checked,
    vector_1d,
)
from skfair.metrics import accuracy_difference, group_summary, label_stability

Y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
GROUP = np.array([0, 0, 0, 0, 1, 1, 1, 1])


def test_accuracy_with_string_and_integer_labels_is_refused():
    # perfect predictions scored 0.0 accuracy before: "1" != 1 everywhere
    with pytest.raises(ValueError, match="y_true holds string labels but y_pred holds numeric"):
        accuracy_difference(Y.astype(str), Y, sensitive_features=GROUP)
    with pytest.raises(ValueError, match="string labels"):
        group_summary(Y.astype(str), Y, sensitive_features=GROUP, metric="accuracy")
    # the same labels encoded alike are fine, and give the oracle's per-group accuracy
    summary = group_summary(
        Y.astype(str), Y.astype(str), sensitive_features=GROUP, metric="accuracy"
    )
    np.testing.assert_array_equal(summary["value"], [1.0, 1.0])


def test_disjoint_label_sets_are_refused_but_a_constant_prediction_is_not():
    with pytest.raises(ValueError, match="no label in common"):
        accuracy_difference(Y + 1, Y + 3, sensitive_features=GROUP)
    with pytest.raises(ValueError, match="no label in common"):
        check_label_pair(np.array(["no", "yes"]), np.array(["n", "y"]))
    # a classifier predicting 1 everywhere on a fold where y_true is all 0 is legitimate
    y_true = np.zeros(8, dtype=int)
    assert accuracy_difference(y_true, y_true + 1, sensitive_features=GROUP) == 0.0
    check_label_pair(np.array([True, False]), np.array([1, 0]))  # bool and int compare equal


def test_mixed_type_labels_are_refused():
    mixed = np.array([0, 1, "1", 0, 1, 0, 1, 0], dtype=object)
    # scored 0.5 before: "1" was a third class
    with pytest.raises(ValueError, match="y_true mixes string and numeric labels"):
        accuracy_difference(mixed, Y, sensitive_features=GROUP)
    with pytest.raises(ValueError, match="mixes string and numeric"):
        check_labels(pd.Series(mixed), "y_pred")
    check_labels(np.array(["a", "b"], dtype=object), "y")  # one type: fine


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_missing_member_labels_are_refused(missing):
    members = np.array([[0, 1, 1], [1, missing, 0]], dtype=object)
    # a TypeError from the sort ("'<' not supported") before
    with pytest.raises(ValueError, match=r"y_pred has missing values.*index \(1, 1\)"):
        label_stability(members)
    with pytest.raises(ValueError, match="row 2"):
        check_label_values(np.array([0, 1, missing], dtype=object), "y")


def test_object_dtype_booleans_are_binary_labels():
    # pandas keeps booleans as dtype object after, e.g., a column held None once; the second
    # definition of _distinct (which shadowed the first) returned [False, True] as objects and
    # binarize refused them: "pos_label must be given for labels [False, True]".
    y_true = pd.Series([True, False, True, True, False, True, False, False], dtype=object)
    y_pred = np.array([1, 0, 0, 1, 1, 1, 0, 0])
    expected = accuracy_difference(y_true.astype(bool).to_numpy(), y_pred, sensitive_features=GROUP)
    assert accuracy_difference(y_true, y_pred, sensitive_features=GROUP) == expected
    summary = group_summary(y_true, y_pred, sensitive_features=GROUP, metric="true_positive_rate")
    # oracle: group 0 has positives at rows 0, 2, 3 (predicted 1, 0, 1); group 1 at row 5 (1)
    np.testing.assert_allclose(summary["value"], [2 / 3, 1.0])


def test_one_weight_check_makes_the_scale_irrelevant():
    from skfair._utils._groups import factorize_groups
    from skfair._utils._validation import check_group_weights, check_weights

    # equal positive weights are no weights, at any scale
    for scale in (1e-300, 1.0, 3.0, 1e308):
        assert check_weights(np.full(5, scale), 5) is None
    with pytest.raises(ValueError, match="non-zero"):
        check_weights(np.zeros(5), 5)
    # weights whose sum overflows are divided by a power of two: same ratios, finite sum
    weights = np.array([1e308, 5e307, 1e308, 2.5e307])
    checked = check_weights(weights, 4)
    assert np.isfinite(checked.sum())
    np.testing.assert_array_equal(checked / checked[0], weights / weights[0])
    for bad, message in [([1.0, -1.0], "negative values"), ([1.0, np.inf], "infinity")]:
        with pytest.raises(ValueError, match=message):
            check_weights(np.array(bad), 2)
        with pytest.raises(ValueError, match=message):
            check_weights(np.array(bad), 2, keep_scale=True)
    # keep_scale: checked, but as given (callers whose output carries the weights)
    np.testing.assert_array_equal(check_weights(np.full(3, 50.0), 3, keep_scale=True), 50.0)
    np.testing.assert_array_equal(check_weights(weights, 4, keep_scale=True), weights)
    groups = factorize_groups(["a", "a", "b"])
    with pytest.raises(ValueError, match=r"Groups \['b'\] have a total sample_weight of zero"):
        check_group_weights(groups, np.array([1.0, 2.0, 0.0]))
    check_group_weights(groups, None)


@pytest.mark.parametrize(
    "y",
    [
        np.arange(5),
        np.array(["a", "b", "a"]),
        np.arange(10)[::2],  # not contiguous: copied as scikit-learn copies it
        np.arange(4.0).reshape(-1, 1),  # a column: flattened with scikit-learn's warning
        [0, 1, 1],
    ],
)
def test_vector_1d_is_scikit_learns_column_or_1d(y):
    with warnings.catch_warnings(record=True) as expected_warnings:
        warnings.simplefilter("always")
        expected = column_or_1d(y, warn=True)
    with warnings.catch_warnings(record=True) as got_warnings:
        warnings.simplefilter("always")
        got = vector_1d(y)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype and got.flags.c_contiguous
    assert [type(w.message) for w in got_warnings] == [type(w.message) for w in expected_warnings]


def test_a_plain_array_gets_validate_datas_checks():
    """plain_array_checked: the same feature-name and column-count checks as validate_data
    on a numeric numpy array, None (validate_data's turn) for anything else."""
    X = np.arange(12.0).reshape(4, 3)
    ours, theirs = BaseEstimator(), BaseEstimator()
    assert plain_array_checked(ours, X, reset=True) is X
    validate_data(theirs, X, reset=True)
    assert ours.n_features_in_ == theirs.n_features_in_ == 3
    with pytest.raises(ValueError, match="X has 2 features, but BaseEstimator is expecting 3"):
        plain_array_checked(ours, X[:, :2], reset=False)
    # fitted with names: an array then warns, as scikit-learn warns
    validate_data(ours, pd.DataFrame(X, columns=list("abc")), reset=True)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        plain_array_checked(ours, X, reset=False)
    for other in (X.astype(object), X[:0], X.ravel(), pd.DataFrame(X), X.astype(complex)):
        assert plain_array_checked(BaseEstimator(), other, reset=True) is None
