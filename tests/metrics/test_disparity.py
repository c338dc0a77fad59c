"""Tests of the shared group-gap helpers (per-group sums, then signed / unsigned gap)."""

import numpy as np
import pytest

from skfair._stats._aggregate import group_mean_difference, rate_difference, rate_ratio
from skfair._stats._counts import confusion_table
from skfair._utils._groups import factorize_groups

# Hand-computed example R1: per-sample label stability and aleatoric uncertainty, dis =
# samples 0-2.
R1_GROUPS = factorize_groups(["d", "d", "d", "p", "p", "p"])
R1_STABILITY = np.array([1, 0, 0.5, 1, 1, 1])
R1_ALEATORIC = np.array([0.760791, 0.926121, 0.795925, 0, 0.209046, 0.899397])


def test_group_mean_difference_reproduces_r1():
    assert group_mean_difference(
        R1_STABILITY, R1_GROUPS, "p", measure="label stability"
    ) == pytest.approx(-0.5)
    assert group_mean_difference(R1_ALEATORIC, R1_GROUPS, "p") == pytest.approx(0.458131, abs=1e-6)
    assert group_mean_difference(R1_ALEATORIC, R1_GROUPS) == pytest.approx(0.458131, abs=1e-6)


def test_group_mean_difference_weights_pool_the_disadvantaged_side():
    groups = factorize_groups(["a", "b", "b", "c"])
    values = np.array([1.0, 0.0, 2.0, 4.0])
    weights = np.array([1.0, 3.0, 1.0, 2.0])
    # dis = a and b pooled: (1 + 0 + 2) / 5; priv = c: 4.
    assert group_mean_difference(values, groups, "c", sample_weight=weights) == pytest.approx(
        3 / 5 - 4
    )
    # unsigned: means a = 1, b = 0.5, c = 4.
    assert group_mean_difference(values, groups, sample_weight=weights) == pytest.approx(3.5)


def test_confusion_table_counts_cells():
    groups = factorize_groups([0, 0, 1, 1, 1])
    y_true = np.array([1, 0, 1, 1, 0], dtype=bool)
    y_pred = np.array([1, 1, 0, 1, 0], dtype=bool)
    table = confusion_table(groups, y_true, y_pred)
    np.testing.assert_array_equal(table, [[0, 1, 0, 1], [1, 0, 1, 1]])
    np.testing.assert_array_equal(
        confusion_table(groups, None, y_pred), [[0, 2, 0, 0], [2, 1, 0, 0]]
    )


def test_rate_helpers_on_per_group_sums():
    groups = factorize_groups(["x", "y", "z"])
    numerator, denominator = np.array([1.0, 3.0, 0.0]), np.array([2.0, 4.0, 0.0])
    with pytest.warns(UserWarning, match=r"undefined for group\(s\) \['z'\]"):
        assert rate_difference(numerator, denominator, groups, measure="rate") == 0.25
    with pytest.warns(UserWarning, match="undefined"):
        assert rate_ratio(numerator, denominator, groups, measure="rate") == pytest.approx(2 / 3)
    assert rate_ratio(numerator, denominator, groups, "y", measure="rate") == pytest.approx(
        (1 / 2) / (3 / 4)
    )
