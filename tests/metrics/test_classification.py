"""Tests of the group disparities of hard predictions against oracles and hand-computed examples."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skfair.metrics import (
    accuracy_difference,
    demographic_parity_unfairness,
    disparate_impact_ratio,
    equalized_odds_difference,
    equalized_odds_unfairness,
    false_negative_rate_difference,
    false_positive_rate_difference,
    statistical_parity_difference,
    true_positive_rate_difference,
)

BINARY_DIFFERENCES = [
    statistical_parity_difference,
    true_positive_rate_difference,
    false_negative_rate_difference,
    false_positive_rate_difference,
    accuracy_difference,
    equalized_odds_difference,
]

# ----------------------------------------------------------------------------------------------
# independent oracle: per-group rates with a pandas groupby, written from the definitions


def oracle_rates(y_true, y_pred, groups, weights):
    """DataFrame of per-group SR, TPR, FNR, FPR, ACC (NaN when the denominator is empty)."""
    frame = pd.DataFrame(
        {
            "g": list(groups),
            "yt": np.asarray(y_true) == 1,
            "yp": np.asarray(y_pred) == 1,
            "w": weights,
        }
    )

    def rates(part):
        w, yt, yp = part["w"], part["yt"], part["yp"]

        def ratio(num, den):
            return num / den if den > 0 else np.nan

        return pd.Series(
            {
                "sr": ratio((w * yp).sum(), w.sum()),
                "tpr": ratio((w * (yt & yp)).sum(), (w * yt).sum()),
                "fnr": ratio((w * (yt & ~yp)).sum(), (w * yt).sum()),
                "fpr": ratio((w * (~yt & yp)).sum(), (w * ~yt).sum()),
                "acc": ratio((w * (yt == yp)).sum(), w.sum()),
            }
        )

    return frame.groupby("g")[["w", "yt", "yp"]].apply(rates)


def oracle_unsigned(y_true, y_pred, groups, weights, measure):
    values = oracle_rates(y_true, y_pred, groups, weights)[measure].dropna()
    return values.max() - values.min() if len(values) >= 2 else np.nan


def oracle_signed(y_true, y_pred, groups, weights, measure, privileged):
    is_priv = np.isin(np.asarray(groups), privileged)
    side = np.where(is_priv, "priv", "dis")
    rates = oracle_rates(y_true, y_pred, side, weights)[measure]
    return rates.get("dis", np.nan) - rates.get("priv", np.nan)


MEASURE_OF = {
    statistical_parity_difference: "sr",
    true_positive_rate_difference: "tpr",
    false_negative_rate_difference: "fnr",
    false_positive_rate_difference: "fpr",
    accuracy_difference: "acc",
}


@st.composite
def binary_data(draw):
    n = draw(st.integers(min_value=6, max_value=40))
    group_values = draw(st.sampled_from(["ab", "abc", "abcd"]))
    groups = draw(st.lists(st.sampled_from(group_values), min_size=n, max_size=n))
    y_true = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    y_pred = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    weights = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    groups[:2] = ["a", "b"]  # at least two groups, among them "a"
    return np.array(y_true), np.array(y_pred), np.array(groups), np.array(weights, float)


def quiet(metric, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return metric(*args, **kwargs)


# ----------------------------------------------------------------------------------------------
# hand-computed reference examples: R1 (binary, two groups), R2 (three classes), R3 (continuous)

R1_Y_TRUE = [1, 0, 1, 0, 1, 0]
R1_Y_PRED = [1, 0, 0, 0, 1, 0]  # the soft vote of the R1 ensemble
R1_GROUPS = ["d", "d", "d", "p", "p", "p"]


@pytest.mark.parametrize(
    "metric, kwargs, expected",
    [
        (statistical_parity_difference, {}, 0.0),
        (disparate_impact_ratio, {}, 1.0),
        (false_positive_rate_difference, {}, 0.0),
        (false_negative_rate_difference, {}, 0.5),
        (true_positive_rate_difference, {}, -0.5),
        (accuracy_difference, {}, -1 / 3),
        (equalized_odds_difference, {"agg": "worst_case"}, 0.5),
        (equalized_odds_difference, {"agg": "mean"}, 0.25),
    ],
)
def test_signed_differences_of_the_binary_example(metric, kwargs, expected):
    value = metric(
        R1_Y_TRUE, R1_Y_PRED, sensitive_features=R1_GROUPS, privileged_group="p", **kwargs
    )
    assert isinstance(value, float)
    assert value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("agg, expected", [("worst_case", 0.5), ("mean", 0.25)])
def test_unsigned_equalized_odds_of_the_binary_example(agg, expected):
    value = equalized_odds_difference(R1_Y_TRUE, R1_Y_PRED, sensitive_features=R1_GROUPS, agg=agg)
    assert value == pytest.approx(expected, abs=1e-12)


R2_Y_TRUE = [0, 0, 1, 1, 2, 2, 0, 0, 0, 1, 1, 2]
R2_Y_PRED = [0, 1, 1, 1, 2, 0, 0, 0, 1, 1, 2, 2]
R2_GROUPS = ["a"] * 6 + ["b"] * 6


def test_multiclass_unfairness_of_the_three_class_example():
    assert demographic_parity_unfairness(
        R2_Y_TRUE, R2_Y_PRED, sensitive_features=R2_GROUPS
    ) == pytest.approx(1 / 12, abs=1e-12)
    assert demographic_parity_unfairness(
        None, R2_Y_PRED, sensitive_features=R2_GROUPS
    ) == pytest.approx(1 / 12, abs=1e-12)
    assert equalized_odds_unfairness(
        R2_Y_TRUE, R2_Y_PRED, sensitive_features=R2_GROUPS
    ) == pytest.approx(1 / 3, abs=1e-12)


def test_perfect_predictor_has_zero_multiclass_unfairness():
    # Joint frequencies P(y_pred = k, y_true = k' | a) instead of conditional ones would give
    # 1/12 for U_EO here.
    assert equalized_odds_unfairness(
        R2_Y_TRUE, R2_Y_TRUE, sensitive_features=R2_GROUPS
    ) == pytest.approx(0.0, abs=1e-12)
    assert demographic_parity_unfairness(
        R2_Y_TRUE, R2_Y_TRUE, sensitive_features=R2_GROUPS
    ) == pytest.approx(1 / 12, abs=1e-12)


def r3_data():
    y_true = np.arange(1, 11, dtype=float)
    groups = np.array(["a", "b"] * 5)
    y_pred = np.where(groups == "a", y_true + 1.5, y_true - 0.5)
    return y_true, y_pred, groups


def test_continuous_outputs_binned_at_quantiles_of_y_true():
    y_true, y_pred, groups = r3_data()
    np.testing.assert_allclose(
        np.quantile(y_true, np.linspace(0, 1, 6)), [1, 2.8, 4.6, 6.4, 8.2, 10]
    )
    assert demographic_parity_unfairness(
        y_true, y_pred, sensitive_features=groups
    ) == pytest.approx(0.1, abs=1e-12)
    assert equalized_odds_unfairness(y_true, y_pred, sensitive_features=groups) == pytest.approx(
        0.5, abs=1e-12
    )


def test_explicit_cutoffs_equal_the_quantile_cutoffs():
    y_true, y_pred, groups = r3_data()
    cutoffs = [1, 2.8, 4.6, 6.4, 8.2, 10]
    assert equalized_odds_unfairness(
        y_true, y_pred, sensitive_features=groups, bins=cutoffs
    ) == pytest.approx(0.5, abs=1e-12)
    # Explicit cut-offs also bin integer outputs: the predicted bins of R3.
    true_bins = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    pred_bins = [0, 0, 1, 1, 3, 2, 4, 3, 4, 4]
    assert equalized_odds_unfairness(
        true_bins, pred_bins, sensitive_features=groups
    ) == pytest.approx(0.5, abs=1e-12)
    assert equalized_odds_unfairness(
        y_true, y_pred, sensitive_features=groups, bins=np.array(cutoffs)
    ) == equalized_odds_unfairness(true_bins, pred_bins, sensitive_features=groups)


# ----------------------------------------------------------------------------------------------
# hand-computed cases


def test_hand_computed_three_groups_weighted():
    #            group a        | group b       | group c
    y_true = [1, 1, 0, 0, 1, 0, 1, 1, 0]
    y_pred = [1, 0, 1, 0, 1, 1, 0, 0, 0]
    groups = ["a", "a", "a", "a", "b", "b", "c", "c", "c"]
    weights = [1, 3, 1, 1, 2, 2, 1, 1, 2]
    # SR: a = (1 + 1) / 6, b = 4 / 4, c = 0 -> gap 1.
    # TPR: a = 1 / 4, b = 1, c = 0 -> gap 1. FPR: a = 1 / 2, b = 1, c = 0 -> gap 1.
    kw = {"sensitive_features": groups, "sample_weight": weights}
    assert statistical_parity_difference(y_true, y_pred, **kw) == pytest.approx(1.0)
    assert disparate_impact_ratio(y_true, y_pred, **kw) == pytest.approx(0.0)
    # Signed, privileged b: dis = a + c pooled. SR(dis) = 2 / 10, TPR(dis) = 1 / 6,
    # FPR(dis) = 1 / 4, ACC(dis) = (1 + 1 + 2) / 10; priv b: SR = TPR = FPR = 1, ACC = 1 / 2.
    kw["privileged_group"] = "b"
    assert statistical_parity_difference(y_true, y_pred, **kw) == pytest.approx(0.2 - 1)
    assert disparate_impact_ratio(y_true, y_pred, **kw) == pytest.approx(0.2)
    assert true_positive_rate_difference(y_true, y_pred, **kw) == pytest.approx(1 / 6 - 1)
    assert false_negative_rate_difference(y_true, y_pred, **kw) == pytest.approx(5 / 6)
    assert false_positive_rate_difference(y_true, y_pred, **kw) == pytest.approx(1 / 4 - 1)
    assert accuracy_difference(y_true, y_pred, **kw) == pytest.approx(0.4 - 0.5)
    # The components, positive when the disadvantaged side gets the favourable prediction
    # less often: TPR(priv) - TPR(dis) = 5/6 and FPR(priv) - FPR(dis) = 3/4. Worst case: the
    # larger, 5/6; the mean is their average.
    assert equalized_odds_difference(y_true, y_pred, **kw) == pytest.approx(5 / 6)
    assert equalized_odds_difference(y_true, y_pred, agg="mean", **kw) == pytest.approx(
        (5 / 6 + 0.75) / 2
    )


def test_string_labels_with_pos_label_equal_01_relabelling():
    y_true = np.array(["no", "yes", "yes", "no", "yes", "no"])
    y_pred = np.array(["yes", "yes", "no", "no", "yes", "yes"])
    groups = ["a", "a", "a", "b", "b", "b"]
    for metric in BINARY_DIFFERENCES:
        if metric is accuracy_difference:
            continue
        as_strings = metric(y_true, y_pred, sensitive_features=groups, pos_label="yes")
        as_ints = metric(
            (y_true == "yes").astype(int), (y_pred == "yes").astype(int), sensitive_features=groups
        )
        assert as_strings == as_ints


def test_labels_12_with_pos_label_is_one_vs_rest():
    y_pred = np.array([1, 2, 2, 1, 1, 1])
    groups = ["a", "a", "a", "b", "b", "b"]
    value = statistical_parity_difference(None, y_pred, sensitive_features=groups, pos_label=2)
    assert value == pytest.approx(2 / 3)
    multi = np.array([0, 2, 2, 1, 1, 0])
    value = statistical_parity_difference(None, multi, sensitive_features=groups, pos_label=2)
    assert value == pytest.approx(2 / 3)


def test_intersectional_groups_and_tuple_privileged_group():
    y_pred = [1, 1, 0, 0, 1, 0, 1, 1]
    sex = ["F", "F", "F", "F", "M", "M", "M", "M"]
    race = ["w", "w", "b", "b", "w", "w", "b", "b"]
    frame = pd.DataFrame({"sex": sex, "race": race})
    # Groups: (F, b) = 0, (F, w) = 1, (M, b) = 1, (M, w) = 0.5 -> gap 1.
    assert statistical_parity_difference(None, y_pred, sensitive_features=frame) == 1.0
    assert (
        statistical_parity_difference(None, y_pred, sensitive_features=np.column_stack([sex, race]))
        == 1.0
    )
    value = statistical_parity_difference(
        None, y_pred, sensitive_features={"sex": sex, "race": race}, privileged_group=("M", "w")
    )
    assert value == pytest.approx(4 / 6 - 0.5)
    value = statistical_parity_difference(
        None, y_pred, sensitive_features=frame, privileged_group=[("M", "w"), ("F", "w")]
    )
    assert value == pytest.approx(2 / 4 - 3 / 4)


def test_joint_codes_do_not_concatenate_strings():
    y_pred = [1, 1, 0, 0]
    sensitive = {"x": ["a|b", "a|b", "a", "a"], "y": ["c", "c", "b|c", "b|c"]}
    assert statistical_parity_difference(None, y_pred, sensitive_features=sensitive) == 1.0


def test_column_order_does_not_change_unsigned_values():
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 3, 200), rng.choice(["u", "v"], 200)
    y_true, y_pred = rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    for metric in BINARY_DIFFERENCES:
        assert metric(y_true, y_pred, sensitive_features={"a": a, "b": b}) == metric(
            y_true, y_pred, sensitive_features={"b": b, "a": a}
        )


def test_categorical_and_int_coded_groups_agree_with_strings():
    rng = np.random.default_rng(1)
    names = np.array(["black", "white", "asian", "other"])
    codes = rng.integers(0, 4, 500)
    y_true, y_pred = rng.integers(0, 2, 500), rng.integers(0, 2, 500)
    expected = equalized_odds_difference(y_true, y_pred, sensitive_features=names[codes])
    assert equalized_odds_difference(y_true, y_pred, sensitive_features=codes) == expected
    categorical = pd.Series(pd.Categorical(names[codes], categories=[*names, "unused"]))
    assert equalized_odds_difference(y_true, y_pred, sensitive_features=categorical) == expected


def test_float_01_predictions_accepted_and_bool_labels():
    groups = ["a", "a", "b", "b"]
    assert (
        statistical_parity_difference(None, [1.0, 0.0, 0.0, 0.0], sensitive_features=groups) == 0.5
    )
    assert (
        statistical_parity_difference(None, [True, False, False, False], sensitive_features=groups)
        == 0.5
    )
    assert statistical_parity_difference(None, [1, -1, -1, -1], sensitive_features=groups) == 0.5


# ----------------------------------------------------------------------------------------------
# agreement with the independent oracle


@settings(max_examples=25, deadline=None)
@given(binary_data(), st.booleans())
def test_unsigned_metrics_match_oracle(data, weighted):
    y_true, y_pred, groups, weights = data
    w = weights if weighted else np.ones_like(weights)
    kw = {"sensitive_features": groups, "sample_weight": w if weighted else None}
    for metric, measure in MEASURE_OF.items():
        expected = oracle_unsigned(y_true, y_pred, groups, w, measure)
        np.testing.assert_allclose(quiet(metric, y_true, y_pred, **kw), expected, atol=1e-12)
    rates = oracle_rates(y_true, y_pred, groups, w)
    d_tpr = oracle_unsigned(y_true, y_pred, groups, w, "tpr")
    d_fpr = oracle_unsigned(y_true, y_pred, groups, w, "fpr")
    np.testing.assert_allclose(
        quiet(equalized_odds_difference, y_true, y_pred, **kw), np.fmax(d_tpr, d_fpr), atol=1e-12
    )
    np.testing.assert_allclose(
        quiet(equalized_odds_difference, y_true, y_pred, agg="mean", **kw),
        (d_tpr + d_fpr) / 2,
        atol=1e-12,
    )
    sr = rates["sr"]
    expected_ratio = sr.min() / sr.max() if sr.max() > 0 else np.nan
    np.testing.assert_allclose(
        quiet(disparate_impact_ratio, y_true, y_pred, **kw), expected_ratio, atol=1e-12
    )


@settings(max_examples=25, deadline=None)
@given(binary_data(), st.booleans())
def test_signed_metrics_match_oracle(data, weighted):
    y_true, y_pred, groups, weights = data
    w = weights if weighted else np.ones_like(weights)
    privileged = sorted(set(groups.tolist()))[:1]
    kw = {"sensitive_features": groups, "sample_weight": w, "privileged_group": privileged[0]}
    for metric, measure in MEASURE_OF.items():
        expected = oracle_signed(y_true, y_pred, groups, w, measure, privileged)
        np.testing.assert_allclose(quiet(metric, y_true, y_pred, **kw), expected, atol=1e-12)
    d_fpr = oracle_signed(y_true, y_pred, groups, w, "fpr", privileged)
    d_fnr = oracle_signed(y_true, y_pred, groups, w, "fnr", privileged)
    # The components of equalized odds, oriented by the favourable label: TPR(priv) -
    # TPR(dis) = ΔFNR and FPR(priv) - FPR(dis) = -ΔFPR; the larger in size, FPR on ties.
    worst = quiet(equalized_odds_difference, y_true, y_pred, **kw)
    if np.isnan(d_fpr) and np.isnan(d_fnr):
        assert np.isnan(worst)
    else:
        assert worst == pytest.approx(
            max(-d_fpr, d_fnr, key=lambda v: np.nan_to_num(abs(v), nan=-1))
        )


def multiclass_oracle(y_true, y_pred, groups, weights):
    """U_DP and U_EO by brute force over groups and classes (their definitions)."""
    frame = pd.DataFrame({"a": groups, "y": y_true, "p": y_pred, "w": weights})
    classes = sorted(set(frame["y"]) | set(frame["p"]))
    u_dp, u_eo = 0.0, 0.0
    total = frame["w"].sum()
    for a in frame["a"].unique():
        in_a = frame[frame["a"] == a]
        for k in classes:
            p_ak = in_a["w"][in_a["p"] == k].sum() / in_a["w"].sum()
            p_k = frame["w"][frame["p"] == k].sum() / total
            u_dp = max(u_dp, abs(p_ak - p_k))
            for k_true in classes:
                stratum_a = in_a[in_a["y"] == k_true]
                stratum = frame[frame["y"] == k_true]
                if stratum_a["w"].sum() == 0:
                    continue
                cond_a = stratum_a["w"][stratum_a["p"] == k].sum() / stratum_a["w"].sum()
                cond = stratum["w"][stratum["p"] == k].sum() / stratum["w"].sum()
                u_eo = max(u_eo, abs(cond_a - cond))
    return u_dp, u_eo


@settings(max_examples=25, deadline=None)
@given(
    st.integers(8, 40).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 3), min_size=n, max_size=n),
            st.lists(st.integers(0, 3), min_size=n, max_size=n),
            st.lists(st.sampled_from("xyz"), min_size=n, max_size=n),
            st.lists(st.integers(1, 3), min_size=n, max_size=n),
        )
    )
)
def test_multiclass_match_oracle(data):
    y_true, y_pred, groups, weights = (np.array(v) for v in data)
    w = weights.astype(float)
    u_dp, u_eo = multiclass_oracle(y_true, y_pred, groups, w)
    kw = {"sensitive_features": groups, "sample_weight": w}
    assert quiet(demographic_parity_unfairness, y_true, y_pred, **kw) == pytest.approx(
        u_dp, abs=1e-12
    )
    assert quiet(equalized_odds_unfairness, y_true, y_pred, **kw) == pytest.approx(u_eo, abs=1e-12)


# ----------------------------------------------------------------------------------------------
# properties


@settings(max_examples=25, deadline=None)
@given(binary_data(), st.randoms(use_true_random=False))
def test_permutation_relabelling_duplication_invariance(data, random):
    y_true, y_pred, groups, weights = data
    order = np.arange(len(y_true))
    random.shuffle(order)
    renamed = np.char.add("group-", groups[::-1])[::-1]  # a one-to-one renaming
    for metric in [
        *BINARY_DIFFERENCES,
        disparate_impact_ratio,
        demographic_parity_unfairness,
        equalized_odds_unfairness,
    ]:
        base = quiet(metric, y_true, y_pred, sensitive_features=groups)
        permuted = quiet(metric, y_true[order], y_pred[order], sensitive_features=groups[order])
        relabelled = quiet(metric, y_true, y_pred, sensitive_features=renamed)
        doubled = quiet(
            metric, np.tile(y_true, 2), np.tile(y_pred, 2), sensitive_features=np.tile(groups, 2)
        )
        for other in (permuted, relabelled, doubled):
            np.testing.assert_allclose(other, base, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(binary_data())
def test_integer_weights_equal_repetition(data):
    y_true, y_pred, groups, weights = data
    repeats = weights.astype(int)
    for metric in [
        *BINARY_DIFFERENCES,
        disparate_impact_ratio,
        demographic_parity_unfairness,
        equalized_odds_unfairness,
    ]:
        weighted = quiet(metric, y_true, y_pred, sensitive_features=groups, sample_weight=weights)
        repeated = quiet(
            metric,
            np.repeat(y_true, repeats),
            np.repeat(y_pred, repeats),
            sensitive_features=np.repeat(groups, repeats),
        )
        np.testing.assert_allclose(weighted, repeated, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(binary_data())
def test_two_groups_swap_privileged_flips_sign(data):
    y_true, y_pred, groups, weights = data
    groups = np.where(groups == "a", "a", "b")
    for metric in BINARY_DIFFERENCES:
        a = quiet(metric, y_true, y_pred, sensitive_features=groups, privileged_group="a")
        b = quiet(metric, y_true, y_pred, sensitive_features=groups, privileged_group="b")
        unsigned = quiet(metric, y_true, y_pred, sensitive_features=groups)
        np.testing.assert_allclose(a, -b, atol=1e-12)
        np.testing.assert_allclose(abs(a), unsigned, atol=1e-12)
    a = quiet(disparate_impact_ratio, None, y_pred, sensitive_features=groups, privileged_group="a")
    b = quiet(disparate_impact_ratio, None, y_pred, sensitive_features=groups, privileged_group="b")
    if np.isfinite(a) and np.isfinite(b) and a > 0:
        assert b == pytest.approx(1 / a)


@settings(max_examples=25, deadline=None)
@given(binary_data())
def test_fnr_is_minus_tpr_and_worst_case_at_least_mean(data):
    y_true, y_pred, groups, _ = data
    kw = {"sensitive_features": groups, "privileged_group": "a"}
    fnr = quiet(false_negative_rate_difference, y_true, y_pred, **kw)
    tpr = quiet(true_positive_rate_difference, y_true, y_pred, **kw)
    np.testing.assert_allclose(fnr, -tpr, atol=1e-12)
    worst = quiet(equalized_odds_difference, y_true, y_pred, sensitive_features=groups)
    mean = quiet(equalized_odds_difference, y_true, y_pred, sensitive_features=groups, agg="mean")
    if np.isfinite(mean):
        assert worst >= mean - 1e-12


@settings(max_examples=30, deadline=None)
@given(binary_data(), st.integers(0, 1))
def test_constant_and_perfect_predictions(data, constant):
    y_true, _, groups, weights = data
    kw = {"sensitive_features": groups, "sample_weight": weights}
    y_const = np.full_like(y_true, constant)
    assert quiet(statistical_parity_difference, y_true, y_const, **kw) == 0.0
    assert quiet(demographic_parity_unfairness, None, y_const, **kw) == 0.0
    for metric in (
        false_positive_rate_difference,
        false_negative_rate_difference,
        equalized_odds_difference,
        equalized_odds_unfairness,
        accuracy_difference,
    ):
        value = quiet(metric, y_true, y_true, **kw)
        assert value == 0.0 or np.isnan(value)
    assert quiet(equalized_odds_unfairness, y_true, y_true, **kw) == 0.0


@settings(max_examples=25, deadline=None)
@given(binary_data())
def test_two_group_u_dp_closed_form(data):
    _, y_pred, groups, weights = data
    groups = np.where(groups == "a", "a", "b")
    shares = np.array([weights[groups == g].sum() for g in "ab"]) / weights.sum()
    rates = oracle_rates(y_pred, y_pred, groups, weights)["sr"]
    expected = shares.max() * abs(rates["a"] - rates["b"])
    value = demographic_parity_unfairness(
        None, y_pred, sensitive_features=groups, sample_weight=weights
    )
    assert value == pytest.approx(expected, abs=1e-12)
    # K = 2: U_EO is per stratum the group-share-weighted TPR / FPR gap.
    assert 0.0 <= value <= 1.0


@settings(max_examples=25, deadline=None)
@given(binary_data())
def test_bounds(data):
    y_true, y_pred, groups, weights = data
    kw = {"sensitive_features": groups, "sample_weight": weights}
    for metric in BINARY_DIFFERENCES:
        value = quiet(metric, y_true, y_pred, **kw)
        assert np.isnan(value) or 0.0 <= value <= 1.0
        signed = quiet(metric, y_true, y_pred, privileged_group="a", **kw)
        assert np.isnan(signed) or -1.0 <= signed <= 1.0
    ratio = quiet(disparate_impact_ratio, y_true, y_pred, **kw)
    assert np.isnan(ratio) or 0.0 <= ratio <= 1.0
    for metric in (demographic_parity_unfairness, equalized_odds_unfairness):
        value = quiet(metric, y_true, y_pred, **kw)
        assert np.isnan(value) or 0.0 <= value <= 1.0


def test_closed_form_data_generating_process():
    # Y ~ U{0..K-1} independent of A; Y_hat = Y w.p. 1 - eps_a, else U{0..K-1}.
    rng = np.random.default_rng(0)
    n, k = 400_000, 4
    eps, shares = np.array([0.1, 0.3, 0.6]), np.array([0.5, 0.3, 0.2])
    groups = rng.choice(3, size=n, p=shares)
    y_true = rng.integers(0, k, n)
    noisy = rng.random(n) < eps[groups]
    y_pred = np.where(noisy, rng.integers(0, k, n), y_true)
    theory = (k - 1) / k * np.max(np.abs(eps - shares @ eps))
    assert theory == pytest.approx(0.255)
    u_eo = equalized_odds_unfairness(y_true, y_pred, sensitive_features=groups)
    assert abs(u_eo - theory) < 0.01
    assert demographic_parity_unfairness(y_true, y_pred, sensitive_features=groups) < 0.01


def test_two_classes_multiclass_equals_share_weighted_binary_gaps():
    rng = np.random.default_rng(2)
    y_true, y_pred = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    groups = rng.choice(["a", "b"], 300)
    rates = oracle_rates(y_true, y_pred, groups, np.ones(300))
    gaps = []
    for stratum, measure in ((1, "tpr"), (0, "fpr")):
        shares = [np.mean(groups[y_true == stratum] == g) for g in "ab"]
        gaps.append(max(shares) * abs(rates[measure]["a"] - rates[measure]["b"]))
    assert equalized_odds_unfairness(y_true, y_pred, sensitive_features=groups) == pytest.approx(
        max(gaps), abs=1e-12
    )


# ----------------------------------------------------------------------------------------------
# undefined rates, single groups, privileged_group errors


def test_group_without_positives_is_left_out_with_warning():
    y_true = [1, 0, 1, 0, 0, 0]
    y_pred = [1, 0, 0, 0, 1, 0]
    groups = ["a", "a", "a", "b", "b", "c"]
    with pytest.warns(UserWarning, match=r"true positive rate is undefined.*\['b', 'c'\]"):
        value = true_positive_rate_difference(y_true, y_pred, sensitive_features=groups)
    # Only group a has a defined TPR: fewer than two groups -> NaN (fairlearn reports 0.5).
    assert np.isnan(value)
    groups = ["a", "a", "b", "b", "c", "c"]
    y_true = [1, 0, 1, 0, 0, 0]
    with pytest.warns(UserWarning, match=r"undefined for group\(s\) \['c'\]"):
        value = true_positive_rate_difference(y_true, y_pred, sensitive_features=groups)
    assert value == 1.0
    with pytest.warns(UserWarning, match="false negative rate is undefined"):
        worst = equalized_odds_difference(y_true, y_pred, sensitive_features=groups)
    assert worst == 1.0  # max(D_FNR = 1, D_FPR = 0.5)


def test_signed_undefined_side_gives_nan_with_warning():
    y_true = [0, 0, 1, 0]
    y_pred = [0, 1, 1, 0]
    groups = ["d", "d", "p", "p"]
    with pytest.warns(UserWarning, match="disadvantaged samples"):
        value = true_positive_rate_difference(
            y_true, y_pred, sensitive_features=groups, privileged_group="p"
        )
    assert np.isnan(value)
    with pytest.warns(UserWarning, match="disadvantaged samples"):
        worst = equalized_odds_difference(
            y_true, y_pred, sensitive_features=groups, privileged_group="p"
        )
    assert worst == pytest.approx(-0.5)  # the defined component, FPR(priv) - FPR(dis) = 0 - 1/2


def test_zero_ratio_denominator_gives_nan_with_warning():
    groups = ["d", "d", "p", "p"]
    with pytest.warns(UserWarning, match="privileged group.*is 0"):
        value = disparate_impact_ratio(
            None, [1, 0, 0, 0], sensitive_features=groups, privileged_group="p"
        )
    assert np.isnan(value)
    with pytest.warns(UserWarning, match="0 in every group"):
        assert np.isnan(disparate_impact_ratio(None, [0, 0, 0, 0], sensitive_features=groups))


def test_single_group():
    y = [1, 0, 1, 1]
    for metric in BINARY_DIFFERENCES:
        with pytest.warns(UserWarning, match="Only one group"):
            assert metric(y, y[::-1], sensitive_features=["a"] * 4) == 0.0
        with pytest.raises(ValueError, match="covers every group"):
            metric(y, y[::-1], sensitive_features=["a"] * 4, privileged_group="a")
    with pytest.warns(UserWarning, match="Only one group"):
        assert disparate_impact_ratio(y, y, sensitive_features=["a"] * 4) == 1.0
    for metric in (demographic_parity_unfairness, equalized_odds_unfairness):
        with pytest.warns(UserWarning, match="Only one group"):
            assert metric(y, y[::-1], sensitive_features=["a"] * 4) == 0.0


def test_privileged_group_absent_or_covering_all():
    y = [1, 0, 1, 1]
    groups = ["a", "a", "b", "b"]
    with pytest.raises(ValueError, match=r"'z' is not present.*\['a', 'b'\]"):
        statistical_parity_difference(y, y, sensitive_features=groups, privileged_group="z")
    with pytest.raises(ValueError, match="covers every group"):
        statistical_parity_difference(y, y, sensitive_features=groups, privileged_group=["a", "b"])


def test_multiclass_undefined_cells_warn():
    y_true = [0, 1, 2, 0, 1, 1]
    y_pred = [0, 1, 2, 0, 1, 2]
    groups = ["a", "a", "a", "b", "b", "b"]
    with pytest.warns(UserWarning, match=r"\('b', 2\)\] \(group, y_true class\) are undefined"):
        value = equalized_odds_unfairness(y_true, y_pred, sensitive_features=groups)
    # Stratum y=1: a predicts 1 always, b half 1 half 2; population 2/3 vs 1/3.
    assert value == pytest.approx(1 / 3)


# ----------------------------------------------------------------------------------------------
# bad inputs


@pytest.mark.parametrize("metric", [*BINARY_DIFFERENCES, disparate_impact_ratio])
def test_continuous_and_probability_predictions_raise(metric):
    groups = ["a", "a", "b", "b"]
    y_true = [1, 0, 1, 0]
    for y_pred in ([0.2, 0.9, 0.4, 0.7], [1.5, 2.5, 0.0, 1.0]):
        with pytest.raises(ValueError, match=r"y_pred is continuous.*Threshold the scores"):
            metric(y_true, y_pred, sensitive_features=groups)
    with pytest.raises(ValueError, match="y_pred"):
        metric(
            y_true,
            np.array([[0.1, 0.9], [0.5, 0.5], [0.2, 0.8], [1, 0]]),
            sensitive_features=groups,
        )


def test_multilabel_prediction_raises():
    with pytest.raises(ValueError, match="multilabel"):
        statistical_parity_difference(
            None, np.array([[1, 0], [0, 1], [1, 1]]), sensitive_features=["a", "b", "a"]
        )


@pytest.mark.parametrize(
    "y_pred, match",
    [
        (["no", "yes", "no", "yes"], r"pos_label must be given for labels \['no', 'yes'\]"),
        ([1, 2, 2, 1], r"pos_label must be given for labels \[1, 2\]"),
        ([0, 1, 2, 1], "demographic_parity_unfairness"),
    ],
)
def test_labels_needing_pos_label_raise(y_pred, match):
    with pytest.raises(ValueError, match=match):
        statistical_parity_difference(None, y_pred, sensitive_features=["a", "a", "b", "b"])


def test_pos_label_not_among_labels_raises():
    with pytest.raises(ValueError, match="pos_label='maybe' is not among"):
        statistical_parity_difference(
            None, ["no", "yes", "no", "no"], sensitive_features=[0, 0, 1, 1], pos_label="maybe"
        )


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_missing_sensitive_values_raise_naming_the_column(missing):
    sensitive = pd.DataFrame({"race": ["w", "b", missing, "w"]})
    with pytest.raises(ValueError, match="'race' has missing values"):
        statistical_parity_difference(None, [1, 0, 1, 0], sensitive_features=sensitive)


def test_length_mismatch_names_both_lengths():
    with pytest.raises(ValueError, match="y_pred has 4, sensitive_features has 3"):
        statistical_parity_difference(None, [1, 0, 1, 0], sensitive_features=["a", "b", "a"])
    with pytest.raises(ValueError, match="y_true has 3, y_pred has 4"):
        equalized_odds_unfairness([1, 0, 1], [1, 0, 1, 0], sensitive_features=["a"] * 4)
    with pytest.raises(ValueError, match="sample_weight has 3"):
        accuracy_difference([1, 0], [1, 0], sensitive_features=["a", "b"], sample_weight=[1, 1, 1])


def test_y_true_required_where_used():
    for metric in (
        true_positive_rate_difference,
        equalized_odds_difference,
        accuracy_difference,
        equalized_odds_unfairness,
    ):
        with pytest.raises(ValueError, match="y_true is None"):
            metric(None, [1, 0], sensitive_features=["a", "b"])


def test_bad_agg_raises():
    with pytest.raises(ValueError, match="The .agg. parameter of equalized_odds_difference"):
        equalized_odds_difference([1, 0], [1, 0], sensitive_features=["a", "b"], agg="max")


def test_negative_weights_raise():
    with pytest.raises(ValueError, match="negative"):
        statistical_parity_difference(
            None, [1, 0], sensitive_features=["a", "b"], sample_weight=[1, -1]
        )


def test_duplicate_cutoffs_warn_and_reduce_bins():
    y_true = np.array([1.0, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])  # c_0 = c_1 = 1
    y_pred = y_true + 0.25
    groups = np.array(["a", "b"] * 5)
    with pytest.warns(UserWarning, match=r"repeat.*leaving 4 bins instead of 5"):
        equalized_odds_unfairness(y_true, y_pred, sensitive_features=groups)


def test_prediction_above_max_lands_in_top_bin():
    y_true = np.array([1.0, 2.0, 3.0, 4.0, 1.5, 2.5, 3.5, 4.5])
    groups = np.array(["a"] * 4 + ["b"] * 4)
    # Predictions far outside the range of y_true fall into the outer bins: same classes as
    # predictions at the extremes of the range.
    y_out = np.array([-100.0, 2.0, 3.0, 100.0, 1.5, 2.5, 3.5, 1e9])
    y_in = np.array([1.0, 2.0, 3.0, 4.5, 1.5, 2.5, 3.5, 4.5])
    for metric in (demographic_parity_unfairness, equalized_odds_unfairness):
        assert metric(y_true, y_out, sensitive_features=groups, bins=4) == metric(
            y_true, y_in, sensitive_features=groups, bins=4
        )


def test_bins_validation():
    y = np.array([0.1, 0.5, 0.9, 0.3])
    groups = ["a", "a", "b", "b"]
    with pytest.raises(ValueError, match="strictly increasing"):
        demographic_parity_unfairness(y, y, sensitive_features=groups, bins=[0.5, 0.2, 0.9])
    with pytest.raises(ValueError, match="at least 2"):
        demographic_parity_unfairness(y, y, sensitive_features=groups, bins=1)


def test_labels_parameter():
    groups = ["a", "a", "b", "b"]
    y_pred = ["cat", "dog", "cat", "cat"]
    value = demographic_parity_unfairness(
        None, y_pred, sensitive_features=groups, labels=["bird", "cat", "dog"]
    )
    assert value == pytest.approx(0.25)
    with pytest.raises(ValueError, match=r"\['dog'\] are not in labels"):
        demographic_parity_unfairness(None, y_pred, sensitive_features=groups, labels=["cat"])


def test_string_multiclass_labels():
    y_true = np.array(["lo", "mid", "hi"] * 4)
    y_pred = np.array(["lo", "mid", "hi"] * 3 + ["lo", "lo", "lo"])
    groups = np.array(["a"] * 6 + ["b"] * 6)
    codes = {"lo": 0, "mid": 1, "hi": 2}
    as_ints = [np.vectorize(codes.get)(y) for y in (y_true, y_pred)]
    assert equalized_odds_unfairness(y_true, y_pred, sensitive_features=groups) == (
        equalized_odds_unfairness(*as_ints, sensitive_features=groups)
    )


def test_missing_labels_raise():
    with pytest.raises(ValueError, match="y_pred has NaN"):
        statistical_parity_difference(None, [1.0, np.nan, 0.0], sensitive_features=[0, 1, 1])
    with pytest.raises(ValueError, match="y_true has missing values"):
        equalized_odds_difference(
            np.array([1, None, 0], dtype=object), [1, 0, 0], sensitive_features=[0, 1, 1]
        )


def test_mixed_type_sensitive_values_raise():
    with pytest.raises(ValueError, match="mixes value types"):
        statistical_parity_difference(
            None, [1, 0, 1, 0], sensitive_features=np.array([1, "1", 2, "2"], dtype=object)
        )


def test_memory_is_linear_in_the_sample_size():
    # O(n) memory: the peak allocation stays a small multiple of the input size.
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 100_000
    y_true, y_pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    groups = rng.choice(np.array(["a", "b", "c", "d"], dtype=object), n)
    input_bytes = y_true.nbytes + y_pred.nbytes + groups.nbytes
    for metric in [
        *BINARY_DIFFERENCES,
        disparate_impact_ratio,
        demographic_parity_unfairness,
        equalized_odds_unfairness,
    ]:
        tracemalloc.start()
        metric(y_true, y_pred, sensitive_features=groups)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 50 * input_bytes, metric.__name__


def test_continuous_u_dp_without_y_true_uses_quantiles_of_y_pred():
    rng = np.random.default_rng(4)
    y_pred = rng.normal(size=200)
    groups = rng.choice(["a", "b", "c"], 200)
    cutoffs = np.quantile(y_pred, np.linspace(0, 1, 6))
    expected = demographic_parity_unfairness(None, y_pred, sensitive_features=groups, bins=cutoffs)
    assert demographic_parity_unfairness(None, y_pred, sensitive_features=groups) == expected
    # With y_true, the cut-offs come from y_true instead.
    y_true = y_pred * 3
    assert demographic_parity_unfairness(
        y_true, y_pred, sensitive_features=groups
    ) == demographic_parity_unfairness(
        None, y_pred, sensitive_features=groups, bins=np.quantile(y_true, np.linspace(0, 1, 6))
    )


@pytest.mark.parametrize("metric", [demographic_parity_unfairness, equalized_odds_unfairness])
def test_binary_y_true_with_continuous_scores_raises(metric):
    # Quantile cut-offs of a 0/1 y_true collapse to one bin: every score would land in the
    # same class and the metric would report 0.0 ("fair") for a 0.4 gap in scores.
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, 400)
    groups = np.repeat(["a", "b"], 200)
    scores = np.clip(rng.uniform(0, 0.6, 400) + 0.4 * (groups == "a"), 0, 1)
    with pytest.raises(ValueError, match="collapse.*threshold the scores"):
        metric(y_true, scores, sensitive_features=groups)
    # Thresholded scores or explicit cut-offs measure the gap.
    assert metric(y_true, (scores > 0.5).astype(int), sensitive_features=groups) > 0.2
    assert metric(y_true, scores, sensitive_features=groups, bins=[0, 0.5, 1]) > 0.2


def test_single_group_warns_with_the_library_wide_class():
    from sklearn.exceptions import UndefinedMetricWarning

    from skfair.metrics import label_stability_difference

    y = [1, 0, 1, 1]
    for metric in (*BINARY_DIFFERENCES, demographic_parity_unfairness, equalized_odds_unfairness):
        with pytest.warns(UndefinedMetricWarning, match="Only one group"):
            assert metric(y, y[::-1], sensitive_features=["a"] * 4) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="Only one group"):
        assert disparate_impact_ratio(y, y, sensitive_features=["a"] * 4) == 1.0
    with pytest.warns(UndefinedMetricWarning, match="Only one group"):
        assert label_stability_difference(None, [y, y], sensitive_features=["a"] * 4) == 0.0


def test_weights_near_the_float64_limit_give_the_unweighted_value():
    y_true = np.array([1, 0, 1, 1, 0, 1, 0, 0])
    y_pred = np.array([1, 1, 0, 1, 0, 1, 1, 0])
    groups = ["a"] * 4 + ["b"] * 4
    huge = np.full(8, 1e308)
    for metric in (*BINARY_DIFFERENCES, demographic_parity_unfairness, equalized_odds_unfairness):
        expected = metric(y_true, y_pred, sensitive_features=groups)
        got = metric(y_true, y_pred, sensitive_features=groups, sample_weight=huge)
        assert got == pytest.approx(expected, rel=1e-12)


def test_predictions_that_never_hit_pos_label_give_zero_rates_with_a_warning():
    # A model that predicts no row positive: a valid selection rate of 0 in every group
    # (found by the dask hypothesis test, where every y_pred of a small draw was "no").
    y_true = np.array(["no", "yes", "no", "yes"])
    y_pred = np.array(["no"] * 4)
    groups = np.array(["a", "a", "b", "b"])
    with pytest.warns(UserWarning, match="not among the predicted labels"):
        value = statistical_parity_difference(
            y_true, y_pred, sensitive_features=groups, pos_label="yes"
        )
    assert value == 0.0
    # With the true labels in play, a pos_label absent from both is a mistake.
    with pytest.raises(ValueError, match="is not among the labels"):
        equalized_odds_difference(y_true, y_pred, sensitive_features=groups, pos_label="Yes")
