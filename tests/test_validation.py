"""The shared label checks: labels that cannot be compared are refused with a clear error."""

import numpy as np
import pandas as pd
import pytest

from skfair._validation import check_label_pair, check_label_values, check_labels
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
