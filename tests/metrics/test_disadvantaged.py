"""One rule for more than two groups with a privileged group: pooled (default) or each."""

import numpy as np
import pytest

from skfair.metrics import (
    MetricTable,
    accuracy_difference,
    average_abs_odds_difference,
    average_odds_difference,
    conditional_demographic_disparity,
    disparate_impact_ratio,
    equalized_odds_difference,
    equalized_odds_ratio,
    error_rate_ratio,
    false_discovery_rate_difference,
    false_negative_rate_difference,
    false_omission_rate_difference,
    false_positive_rate_difference,
    false_positive_rate_ratio,
    label_stability_difference,
    negative_predictive_value_difference,
    positive_predictive_value_difference,
    statistical_parity_difference,
    true_negative_rate_difference,
    true_positive_rate_difference,
    true_positive_rate_ratio,
)

DIFFERENCES = [
    statistical_parity_difference,
    true_positive_rate_difference,
    false_positive_rate_difference,
    false_negative_rate_difference,
    true_negative_rate_difference,
    accuracy_difference,
    positive_predictive_value_difference,
    false_discovery_rate_difference,
    negative_predictive_value_difference,
    false_omission_rate_difference,
    average_odds_difference,
    average_abs_odds_difference,
    equalized_odds_difference,
    lambda *a, **k: equalized_odds_difference(*a, agg="mean", **k),
]
RATIOS = [
    disparate_impact_ratio,
    true_positive_rate_ratio,
    false_positive_rate_ratio,
    error_rate_ratio,
    equalized_odds_ratio,
    lambda *a, **k: equalized_odds_ratio(*a, agg="mean", **k),
]


def make_data(seed=0):
    # A large group treated like the privileged one and a small one treated much worse:
    # pooling dilutes the small group's disparity.
    rng = np.random.default_rng(seed)
    sizes = {"p": 800, "big": 1500, "mid": 500, "small": 120}
    groups = np.repeat(list(sizes), list(sizes.values()))
    n = groups.size
    y_true = rng.integers(0, 2, n)
    error = np.select([groups == "small", groups == "mid"], [0.45, 0.25], default=0.1)
    favour = np.where(groups == "small", -0.3, 0.0)
    flip = rng.random(n) < error
    y_pred = np.where(flip, 1 - y_true, y_true)
    y_pred = np.where(rng.random(n) < -favour, 0, y_pred)
    return y_true, y_pred, groups


def furthest(values, ratio=False):
    values = np.asarray(values, dtype=float)
    distance = np.abs(np.log(values)) if ratio else np.abs(values)
    return values[np.argmax(distance)]


@pytest.mark.parametrize("metric", DIFFERENCES + RATIOS)
def test_pooled_equals_the_others_merged_and_each_equals_the_furthest_pair(metric):
    y_true, y_pred, groups = make_data()
    merged = np.where(groups == "p", "p", "rest")
    pooled = metric(y_true, y_pred, sensitive_features=groups, privileged_group="p")
    assert pooled == pytest.approx(
        metric(y_true, y_pred, sensitive_features=merged, privileged_group="p"), abs=1e-12
    )
    pairwise = []
    for other in ("big", "mid", "small"):
        keep = np.isin(groups, ["p", other])
        pairwise.append(
            metric(
                y_true[keep], y_pred[keep], sensitive_features=groups[keep], privileged_group="p"
            )
        )
    each = metric(
        y_true, y_pred, sensitive_features=groups, privileged_group="p", disadvantaged="each"
    )
    assert each == pytest.approx(furthest(pairwise, ratio=metric in RATIOS), abs=1e-12)


def test_the_small_group_is_hidden_by_pooling():
    y_true, y_pred, groups = make_data()
    kwargs = {"sensitive_features": groups, "privileged_group": "p"}
    pooled = statistical_parity_difference(y_true, y_pred, **kwargs)
    each = statistical_parity_difference(y_true, y_pred, disadvantaged="each", **kwargs)
    assert abs(each) > 2 * abs(pooled)


def test_several_privileged_groups_are_pooled_on_the_privileged_side():
    y_true, y_pred, groups = make_data()
    merged = np.where(np.isin(groups, ["p", "big"]), "priv", groups)
    for disadvantaged in ("pooled", "each"):
        kwargs = {"disadvantaged": disadvantaged}
        assert true_positive_rate_difference(
            y_true, y_pred, sensitive_features=groups, privileged_group=["p", "big"], **kwargs
        ) == pytest.approx(
            true_positive_rate_difference(
                y_true, y_pred, sensitive_features=merged, privileged_group="priv", **kwargs
            ),
            abs=1e-12,
        )


def test_conditional_demographic_disparity_each_is_the_furthest_group():
    y_true, y_pred, groups = make_data()
    rejected, accepted = y_pred == 0, y_pred == 1

    def disparity(members):
        inside = np.isin(groups, members)
        return (inside & rejected).sum() / rejected.sum() - (
            inside & accepted
        ).sum() / accepted.sum()

    kwargs = {"sensitive_features": groups, "privileged_group": "p"}
    assert conditional_demographic_disparity(None, y_pred, **kwargs) == pytest.approx(
        disparity(["big", "mid", "small"]), abs=1e-12
    )
    per_group = [disparity([g]) for g in ("big", "mid", "small")]
    assert conditional_demographic_disparity(
        None, y_pred, disadvantaged="each", **kwargs
    ) == pytest.approx(furthest(per_group), abs=1e-12)


def test_stability_disparity_follows_the_rule():
    rng = np.random.default_rng(3)
    groups = np.repeat(["p", "a", "b"], [50, 80, 10])
    members = rng.integers(0, 2, (5, groups.size))
    members[:, groups == "b"] = rng.integers(0, 2, (5, 10))
    members[:, groups != "b"] = members[0, groups != "b"]
    pairwise = []
    for other in ("a", "b"):
        keep = np.isin(groups, ["p", other])
        pairwise.append(
            label_stability_difference(
                None, members[:, keep], sensitive_features=groups[keep], privileged_group="p"
            )
        )
    each = label_stability_difference(
        None, members, sensitive_features=groups, privileged_group="p", disadvantaged="each"
    )
    assert each == pytest.approx(furthest(pairwise), abs=1e-12)


def test_metric_table_applies_the_same_rule():
    y_true, y_pred, groups = make_data()
    for disadvantaged in ("pooled", "each"):
        table = MetricTable(
            ["selection_rate", "tpr"],
            y_true,
            y_pred,
            sensitive_features=groups,
            privileged_group="p",
            disadvantaged=disadvantaged,
            as_frame=False,
        )
        kwargs = {
            "sensitive_features": groups,
            "privileged_group": "p",
            "disadvantaged": disadvantaged,
        }
        expected = [
            statistical_parity_difference(y_true, y_pred, **kwargs),
            true_positive_rate_difference(y_true, y_pred, **kwargs),
        ]
        np.testing.assert_allclose(table.difference(), expected, atol=1e-12)
        expected = [
            disparate_impact_ratio(y_true, y_pred, **kwargs),
            true_positive_rate_ratio(y_true, y_pred, **kwargs),
        ]
        np.testing.assert_allclose(table.ratio(), expected, atol=1e-12)


def test_unknown_rule_raises():
    y_true, y_pred, groups = make_data()
    for metric in (statistical_parity_difference, average_odds_difference):
        with pytest.raises(ValueError, match="disadvantaged"):
            metric(
                y_true, y_pred, sensitive_features=groups, privileged_group="p", disadvantaged="all"
            )
    with pytest.raises(ValueError, match="disadvantaged"):
        conditional_demographic_disparity(
            None, y_pred, sensitive_features=groups, privileged_group="p", disadvantaged="all"
        )
