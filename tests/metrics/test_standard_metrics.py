"""The standard metric set against closed forms, brute force and scikit-learn."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import confusion_matrix
from sklearn.model_selection import cross_val_score

from skfair.metrics import (
    average_abs_odds_difference,
    average_odds_difference,
    between_group_coefficient_of_variation,
    between_group_generalized_entropy_index,
    between_group_theil_index,
    coefficient_of_variation,
    conditional_demographic_disparity,
    consistency_score,
    equalized_odds_difference,
    equalized_odds_ratio,
    error_rate_ratio,
    false_discovery_rate_difference,
    false_omission_rate_difference,
    false_positive_rate_ratio,
    generalized_entropy_index,
    get_fairness_scorer,
    negative_predictive_value_difference,
    positive_predictive_value_difference,
    theil_index,
    true_negative_rate_difference,
    true_positive_rate_ratio,
)


def make_data(n=2000, seed=0, n_groups=3):
    rng = np.random.default_rng(seed)
    groups = rng.choice(np.array(list("abcd"))[:n_groups], size=n)
    y_true = rng.integers(0, 2, n)
    flip = rng.random(n) < 0.15 + 0.1 * (groups == "a")
    y_pred = np.where(flip, 1 - y_true, y_true)
    return y_true, y_pred, groups


def rates(y_true, y_pred, weights=None):
    """Rates of one set of samples from scikit-learn's confusion matrix."""
    tn, fp, fn, tp = confusion_matrix(y_true, y_pred, labels=[0, 1], sample_weight=weights).ravel()
    return {
        "tpr": tp / (tp + fn),
        "fpr": fp / (fp + tn),
        "tnr": tn / (tn + fp),
        "ppv": tp / (tp + fp),
        "fdr": fp / (tp + fp),
        "npv": tn / (tn + fn),
        "for": fn / (tn + fn),
        "err": (fp + fn) / (tn + fp + fn + tp),
    }


DIFFERENCES = {
    "tnr": true_negative_rate_difference,
    "ppv": positive_predictive_value_difference,
    "fdr": false_discovery_rate_difference,
    "npv": negative_predictive_value_difference,
    "for": false_omission_rate_difference,
}
RATIOS = {
    "tpr": true_positive_rate_ratio,
    "fpr": false_positive_rate_ratio,
    "err": error_rate_ratio,
}


@pytest.mark.parametrize("weighted", [False, True])
def test_rate_disparities_match_confusion_matrix_oracle(weighted):
    y_true, y_pred, groups = make_data()
    weights = np.random.default_rng(2).random(y_true.size) if weighted else None
    kwargs = {"sensitive_features": groups, "sample_weight": weights}
    per_group = {
        g: rates(
            y_true[groups == g],
            y_pred[groups == g],
            None if weights is None else weights[groups == g],
        )
        for g in "abc"
    }
    dis = groups != "a"
    dis_rates = rates(y_true[dis], y_pred[dis], None if weights is None else weights[dis])
    priv_rates = per_group["a"]
    for name, function in DIFFERENCES.items():
        values = [per_group[g][name] for g in "abc"]
        assert function(y_true, y_pred, **kwargs) == pytest.approx(np.ptp(values), abs=1e-12)
        signed = function(y_true, y_pred, privileged_group="a", **kwargs)
        assert signed == pytest.approx(dis_rates[name] - priv_rates[name], abs=1e-12)
    for name, function in RATIOS.items():
        values = [per_group[g][name] for g in "abc"]
        assert function(y_true, y_pred, **kwargs) == pytest.approx(
            min(values) / max(values), abs=1e-12
        )
        signed = function(y_true, y_pred, privileged_group="a", **kwargs)
        assert signed == pytest.approx(dis_rates[name] / priv_rates[name], abs=1e-12)


def test_average_odds_definitions_and_sign_against_equalized_odds():
    y_true, y_pred, groups = make_data(n_groups=2)
    dis, priv = (
        rates(y_true[groups == "b"], y_pred[groups == "b"]),
        rates(y_true[groups == "a"], y_pred[groups == "a"]),
    )
    d_fpr, d_tpr = dis["fpr"] - priv["fpr"], dis["tpr"] - priv["tpr"]
    kwargs = {"sensitive_features": groups, "privileged_group": "a"}
    assert average_odds_difference(y_true, y_pred, **kwargs) == pytest.approx((d_fpr + d_tpr) / 2)
    assert average_abs_odds_difference(y_true, y_pred, **kwargs) == pytest.approx(
        (abs(d_fpr) + abs(d_tpr)) / 2
    )
    # equalized_odds_difference(agg="mean") averages the components oriented by the
    # favourable label, FPR(priv) - FPR(dis) and TPR(priv) - TPR(dis): aif360's, negated.
    assert equalized_odds_difference(y_true, y_pred, agg="mean", **kwargs) == pytest.approx(
        -(d_fpr + d_tpr) / 2
    )
    unsigned = average_odds_difference(y_true, y_pred, sensitive_features=groups)
    assert unsigned == pytest.approx((abs(d_fpr) + abs(d_tpr)) / 2)
    assert unsigned == pytest.approx(
        equalized_odds_difference(y_true, y_pred, sensitive_features=groups, agg="mean")
    )


def test_equalized_odds_ratio_aggregations():
    y_true, y_pred, groups = make_data()
    tpr = true_positive_rate_ratio(y_true, y_pred, sensitive_features=groups)
    fpr = false_positive_rate_ratio(y_true, y_pred, sensitive_features=groups)
    assert equalized_odds_ratio(y_true, y_pred, sensitive_features=groups) == min(tpr, fpr)
    assert equalized_odds_ratio(
        y_true, y_pred, sensitive_features=groups, agg="mean"
    ) == pytest.approx((tpr + fpr) / 2)
    # Signed: the component further from parity, whichever side of 1 it is on.
    y_true = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    y_pred = np.array([1, 1, 1, 1, 1, 0, 1, 0])
    g = np.array(list("ddddpppp"))
    assert equalized_odds_ratio(y_true, y_pred, sensitive_features=g, privileged_group="p") == 2.0
    with pytest.raises(ValueError, match="agg"):
        equalized_odds_ratio(y_true, y_pred, sensitive_features=g, agg="max")


def brute_generalized_entropy(b, alpha, w=None):
    w = np.ones_like(b, dtype=float) if w is None else w
    mu = np.average(b, weights=w)
    x = b / mu
    with np.errstate(divide="ignore"):
        return _brute_terms(x, alpha, w)


def _brute_terms(x, alpha, w):
    if alpha == 0:
        terms = -np.log(x)
    elif alpha == 1:
        terms = np.array([xi * np.log(xi) if xi > 0 else 0.0 for xi in x])
    else:
        terms = (x**alpha - 1) / (alpha * (alpha - 1))
    return np.average(terms, weights=w)


@pytest.mark.parametrize("alpha", [0.5, 1, 2, 3, -1])
def test_generalized_entropy_matches_brute_force(alpha):
    y_true, y_pred, groups = make_data(500)
    weights = np.random.default_rng(4).random(500)
    benefit = (y_pred - y_true + 1).astype(float)
    for w in (None, weights):
        expected = brute_generalized_entropy(benefit, alpha, w)
        if alpha <= 0:
            assert expected == np.inf  # false negatives have benefit 0
        value = generalized_entropy_index(y_true, y_pred, alpha=alpha, sample_weight=w)
        assert value == pytest.approx(expected, rel=1e-12)
        means = {
            g: np.average(benefit[groups == g], weights=None if w is None else w[groups == g])
            for g in "abc"
        }
        between = np.array([means[g] for g in groups])
        value = between_group_generalized_entropy_index(
            y_true, y_pred, sensitive_features=groups, alpha=alpha, sample_weight=w
        )
        assert value == pytest.approx(brute_generalized_entropy(between, alpha, w), rel=1e-12)
    assert theil_index(y_true, y_pred) == pytest.approx(brute_generalized_entropy(benefit, 1))
    assert coefficient_of_variation(y_true, y_pred) == pytest.approx(benefit.std() / benefit.mean())
    between = np.array([benefit[groups == g].mean() for g in groups])
    assert between_group_theil_index(y_true, y_pred, sensitive_features=groups) == pytest.approx(
        brute_generalized_entropy(between, 1)
    )
    assert between_group_coefficient_of_variation(
        y_true, y_pred, sensitive_features=groups
    ) == pytest.approx(between.std() / between.mean())


def test_between_group_index_with_privileged_group_pools_the_others():
    y_true, y_pred, groups = make_data(600)
    two = np.where(groups == "a", "a", "rest")
    assert between_group_generalized_entropy_index(
        y_true, y_pred, sensitive_features=groups, privileged_group="a"
    ) == pytest.approx(
        between_group_generalized_entropy_index(y_true, y_pred, sensitive_features=two)
    )


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 2)), min_size=4, max_size=40
    ),
    st.sampled_from([0.5, 2.0, 3.0]),
)
def test_between_group_part_never_exceeds_the_total(rows, alpha):
    y_true, y_pred, groups = (np.array(c) for c in zip(*rows))
    if np.all(y_pred - y_true + 1 == 0):
        return
    total = generalized_entropy_index(y_true, y_pred, alpha=alpha)
    between = between_group_generalized_entropy_index(
        y_true, y_pred, sensitive_features=groups, alpha=alpha
    )
    assert 0 <= between <= total + 1e-12


def test_all_zero_benefits_are_undefined():
    with pytest.warns(UserWarning, match="undefined"):
        assert np.isnan(generalized_entropy_index([1, 1], [0, 0]))
    with pytest.raises(ValueError, match="alpha"):
        generalized_entropy_index([1, 0], [1, 0], alpha="2")


def test_consistency_matches_brute_force_neighbours():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y_pred = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    distances = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    neighbours = np.argsort(distances, axis=1, kind="stable")[:, :5]
    expected = 1 - np.abs(y_pred - y_pred[neighbours].mean(axis=1)).mean()
    assert consistency_score(X, None, y_pred) == pytest.approx(expected, abs=1e-12)
    # The sample is its own first neighbour (aif360's convention).
    assert (neighbours[:, 0] == np.arange(300)).all()
    assert consistency_score(X, None, np.ones(300, int)) == 1.0
    w = rng.random(300)
    gaps = np.abs(y_pred - y_pred[neighbours].mean(axis=1))
    assert consistency_score(X, None, y_pred, sample_weight=w) == pytest.approx(
        1 - np.average(gaps, weights=w)
    )
    with pytest.raises(ValueError, match="n_neighbors"):
        consistency_score(X[:3], None, y_pred[:3], n_neighbors=4)


def brute_cdd(y_pred, groups, strata, target):
    """sum_s n_s/n [share of target among rejected in s - share among accepted in s]."""
    total = 0.0
    for s in np.unique(strata):
        inside = strata == s
        rejected, accepted = inside & (y_pred == 0), inside & (y_pred == 1)
        in_target = np.isin(groups, target)
        dd = (in_target & rejected).sum() / rejected.sum() - (
            in_target & accepted
        ).sum() / accepted.sum()
        total += inside.sum() / len(y_pred) * dd
    return total


def test_conditional_demographic_disparity_matches_brute_force():
    y_true, y_pred, groups = make_data(3000)
    strata = np.random.default_rng(9).choice(["u", "v", "w"], size=3000)
    value = conditional_demographic_disparity(
        y_true, y_pred, sensitive_features=groups, control_features=strata, privileged_group="a"
    )
    assert value == pytest.approx(brute_cdd(y_pred, groups, strata, ["b", "c"]), abs=1e-12)
    unsigned = conditional_demographic_disparity(
        None, y_pred, sensitive_features=groups, control_features=strata
    )
    assert unsigned == pytest.approx(
        max(abs(brute_cdd(y_pred, groups, strata, [g])) for g in "abc"), abs=1e-12
    )
    # Simpson's paradox: no disparity within either stratum, one overall.
    groups = np.array(["f"] * 6 + ["m"] * 3 + ["f"] * 3 + ["m"] * 6)
    strata = np.array(["hard"] * 9 + ["easy"] * 9)
    y_pred = np.array([0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0])
    kwargs = {"sensitive_features": groups, "privileged_group": "m"}
    assert conditional_demographic_disparity(None, y_pred, **kwargs) == pytest.approx(1 / 9)
    within = conditional_demographic_disparity(None, y_pred, control_features=strata, **kwargs)
    assert within == pytest.approx(0.0, abs=1e-15)
    # A stratum where everyone is accepted has no demographic disparity: left out.
    strata = np.concatenate([strata, ["all"] * 2])
    groups = np.concatenate([groups, ["f", "m"]])
    y_pred = np.concatenate([y_pred, [1, 1]])
    with pytest.warns(UserWarning, match="left out"):
        within = conditional_demographic_disparity(
            None,
            y_pred,
            sensitive_features=groups,
            control_features=strata,
            privileged_group="m",
        )
    assert within == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize(
    "name",
    [
        "average_odds_difference",
        "average_abs_odds_difference",
        "true_negative_rate_difference",
        "positive_predictive_value_difference",
        "false_discovery_rate_difference",
        "false_omission_rate_difference",
        "negative_predictive_value_difference",
        "equalized_odds_ratio",
        "true_positive_rate_ratio",
        "false_positive_rate_ratio",
        "error_rate_ratio",
        "generalized_entropy_index",
        "theil_index",
        "coefficient_of_variation",
        "between_group_generalized_entropy_index",
        "between_group_theil_index",
        "between_group_coefficient_of_variation",
        "conditional_demographic_disparity",
        "consistency_score",
    ],
)
def test_every_new_metric_is_a_scorer(name):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 2, 300), rng.normal(size=(300, 2))])
    y = (X[:, 1] + 0.5 * X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    scorer = get_fairness_scorer(name, sensitive_column=0)
    scores = cross_val_score(LogisticRegression(), X, y, scoring=scorer, cv=3)
    assert np.isfinite(scores).all() and (scores <= 0).all()


@pytest.mark.parametrize(
    "metric",
    [
        conditional_demographic_disparity,
        between_group_generalized_entropy_index,
        between_group_theil_index,
        between_group_coefficient_of_variation,
    ],
)
def test_a_single_group_warns(metric):
    # these returned 0.0 silently, against the rule of every group metric
    y_true, y_pred, _ = make_data(200)
    with pytest.warns(UndefinedMetricWarning, match="Only one group"):
        assert metric(y_true, y_pred, sensitive_features=["a"] * 200) == 0.0
    with pytest.raises(ValueError, match="covers every group"):
        metric(y_true, y_pred, sensitive_features=["a"] * 200, privileged_group="a")


def test_control_features_errors_name_control_features():
    # they were reported as problems of sensitive_features
    y_pred = np.array([1, 0, 0, 1, 1, 0, 1, 0])
    groups = np.array(list("aaaabbbb"))
    with pytest.raises(ValueError, match="control_features has 3 samples"):
        conditional_demographic_disparity(
            None, y_pred, sensitive_features=groups, control_features=[1, 2, 3]
        )
    for missing in (np.array([1, np.nan, 1, 1, 2, 2, 2, 2]), np.array(["u", None] * 4, object)):
        with pytest.raises(ValueError, match="control feature 'control_features' has missing"):
            conditional_demographic_disparity(
                None, y_pred, sensitive_features=groups, control_features=missing
            )
    with pytest.raises(ValueError, match="control feature 'dept' has missing"):
        conditional_demographic_disparity(
            None, y_pred, sensitive_features=groups, control_features={"dept": missing}
        )


def test_generalized_entropy_at_alpha_zero_is_the_mean_log_deviation():
    # Speicher et al. (2018), Eq. 4 at alpha = 0: GE(0) = -(1/n) sum ln(b_i / mu). Without
    # false negatives every benefit is positive and the value is finite.
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 2, 400)
    y_pred = np.where(y_true == 1, 1, rng.integers(0, 2, 400))
    weights = rng.random(400)
    benefit = (y_pred - y_true + 1).astype(float)
    mu = benefit.mean()
    mean_log_deviation = -np.mean(np.log(benefit / mu))
    assert generalized_entropy_index(y_true, y_pred, alpha=0) == pytest.approx(
        mean_log_deviation, rel=1e-13
    )
    mu_w = np.average(benefit, weights=weights)
    assert generalized_entropy_index(
        y_true, y_pred, alpha=0, sample_weight=weights
    ) == pytest.approx(-np.average(np.log(benefit / mu_w), weights=weights), rel=1e-13)
    # aif360 and holisticai compute -(1/n) sum ln(b_i / mu) / mu: ours divided by mu
    aif360_convention = -np.mean(np.log(benefit / mu) / mu)
    assert generalized_entropy_index(y_true, y_pred, alpha=0) / mu == pytest.approx(
        aif360_convention, rel=1e-13
    )
    # between groups: the same formula on the group means
    groups = rng.choice(["a", "b", "c"], 400)
    means = {g: benefit[groups == g].mean() for g in "abc"}
    between = np.array([means[g] for g in groups])
    assert between_group_generalized_entropy_index(
        y_true, y_pred, sensitive_features=groups, alpha=0
    ) == pytest.approx(-np.mean(np.log(between / between.mean())), rel=1e-12)


@pytest.mark.parametrize("limit", [0, 1])
def test_generalized_entropy_is_continuous_in_alpha(limit):
    # (r^alpha - 1) / (alpha (alpha - 1)) computed directly gave 0.0 at alpha = 1e-17 (and lost
    # digits near 1), where the index tends to the mean log deviation (the Theil index at 1)
    rng = np.random.default_rng(6)
    y_true = rng.integers(0, 2, 300)
    y_pred = np.where(y_true == 1, 1, rng.integers(0, 2, 300))
    benefit = (y_pred - y_true + 1).astype(float)
    r = benefit / benefit.mean()
    at_limit = -np.mean(np.log(r)) if limit == 0 else np.mean(r * np.log(r))
    for step in [1e-17, 1e-12, -1e-12, 1e-8, -1e-8]:
        value = generalized_entropy_index(y_true, y_pred, alpha=limit + step)
        # the first-order term of the expansion in alpha bounds the gap
        assert value == pytest.approx(at_limit, rel=1e-6, abs=0)
