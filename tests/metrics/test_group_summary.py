"""Tests of group_summary: per-group values and their intervals."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta, binomtest
from sklearn.metrics import accuracy_score, recall_score

from skfair._utils._groups import factorize_groups
from skfair.metrics import group_summary
from skfair.metrics._metric_table import _StratifiedResampler


def make_data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.8, y_true, 1 - y_true)
    return y_true, y_pred, groups


def oracle(y_true, y_pred, groups, weights):
    frame = pd.DataFrame({"g": groups, "t": y_true == 1, "p": y_pred == 1, "w": weights})
    frame["tp"] = frame.t & frame.p
    frame["fp"] = ~frame.t & frame.p
    frame["ok"] = frame.t == frame.p
    out = {}
    for name, num, den in [
        ("selection_rate", "p", None),
        ("true_positive_rate", "tp", "t"),
        ("false_positive_rate", "fp", "neg"),
        ("accuracy", "ok", None),
    ]:
        frame["neg"] = ~frame.t
        numerator = (frame[num] * frame.w).groupby(frame.g).sum()
        denominator = (
            frame.w.groupby(frame.g).sum()
            if den is None
            else (frame[den] * frame.w).groupby(frame.g).sum()
        )
        out[name] = (numerator / denominator).to_numpy()
    out["false_negative_rate"] = 1 - out["true_positive_rate"]
    out["true_negative_rate"] = 1 - out["false_positive_rate"]
    return out


def expected_counts(y_true, y_pred, groups, weights, name):
    """Per group: the weighted numerator and denominator of the rate ``name``, and the sum of
    squared weights of the denominator's rows (pandas groupby)."""
    t, p = y_true == 1, y_pred == 1
    rows = {
        "selection_rate": (p, np.ones_like(t)),
        "true_positive_rate": (t & p, t),
        "false_negative_rate": (t & ~p, t),
        "false_positive_rate": (~t & p, ~t),
        "true_negative_rate": (~t & ~p, ~t),
        "accuracy": (t == p, np.ones_like(t)),
    }[name]
    frame = pd.DataFrame(
        {"g": groups, "x": rows[0] * weights, "n": rows[1] * weights, "s": rows[1] * weights**2}
    )
    sums = frame.groupby("g").sum()
    return sums.x.to_numpy(), sums.n.to_numpy(), sums.s.to_numpy()


@pytest.mark.parametrize("weighted", [False, True])
def test_values_match_groupby_oracle(weighted):
    y_true, y_pred, groups = make_data(500)
    weights = np.random.default_rng(1).integers(1, 4, 500).astype(float)
    expected = oracle(y_true, y_pred, groups, weights if weighted else np.ones(500))
    weights_or_ones = weights if weighted else np.ones(500)
    for name, values in expected.items():
        summary = group_summary(
            y_true,
            y_pred,
            sensitive_features=groups,
            metric=name,
            sample_weight=weights if weighted else None,
        )
        assert summary.groups == ["a", "b", "c"]
        np.testing.assert_allclose(summary.value, values, atol=1e-12)
        np.testing.assert_array_equal(summary.count, [np.sum(groups == g) for g in "abc"])
        # Clopper-Pearson's interval of each group's proportion, by default; with weights,
        # at Kish's effective size (sum w)**2 / sum w**2 of the rate's rows
        numerator, denominator, squares = expected_counts(
            y_true, y_pred, groups, weights_or_ones, name
        )
        if not weighted:
            bounds = [
                binomtest(int(x), int(n)).proportion_ci(method="exact") if n else (np.nan,) * 2
                for x, n in zip(numerator, denominator)
            ]
            low, high = np.array(bounds, dtype=float).T
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                n_eff = denominator**2 / squares
                x_eff = numerator / denominator * n_eff
                low = np.where(x_eff > 0, beta.ppf(0.025, x_eff, n_eff - x_eff + 1), 0.0)
                high = np.where(x_eff < n_eff, beta.ppf(0.975, x_eff + 1, n_eff - x_eff), 1.0)
            low[denominator == 0] = high[denominator == 0] = np.nan
        np.testing.assert_allclose(summary.ci_low, low, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(summary.ci_high, high, rtol=1e-9, atol=1e-12)


def test_hand_computed_and_overall():
    summary = group_summary(
        [1, 0, 1, 1, 0, 0], [1, 1, 0, 1, 0, 0], sensitive_features=list("aaabbb"), metric="tpr"
    )
    np.testing.assert_allclose(summary.value, [0.5, 1.0])
    assert summary.overall == pytest.approx(2 / 3)
    assert summary.metric == "true_positive_rate"


def test_callables_agree_with_named_rates():
    y_true, y_pred, groups = make_data(400)
    weights = np.random.default_rng(2).random(400)
    for callable_metric, name in ((accuracy_score, "accuracy"), (recall_score, "tpr")):
        for w in (None, weights):
            by_callable = group_summary(
                y_true, y_pred, sensitive_features=groups, metric=callable_metric, sample_weight=w
            )
            by_name = group_summary(
                y_true, y_pred, sensitive_features=groups, metric=name, sample_weight=w
            )
            np.testing.assert_allclose(by_callable.value, by_name.value, atol=1e-12)
            assert by_callable.overall == pytest.approx(by_name.overall, abs=1e-12)


def test_callable_receives_metric_kwargs_and_pos_label():
    y_true = np.array(["no", "yes", "yes", "no", "yes", "yes"])
    y_pred = np.array(["yes", "yes", "no", "no", "yes", "yes"])
    summary = group_summary(
        y_true, y_pred, sensitive_features=list("aaabbb"), metric=recall_score, pos_label="yes"
    )
    np.testing.assert_allclose(summary.value, [0.5, 1.0])
    summary = group_summary(
        y_true,
        y_pred,
        sensitive_features=list("aaabbb"),
        metric=recall_score,
        pos_label="no",
        zero_division=0.0,
    )
    np.testing.assert_allclose(summary.value, [0.0, 1.0])


def test_bootstrap_is_deterministic_with_random_state():
    y_true, y_pred, groups = make_data(300)
    weights = np.ones(300)
    for kwargs in (
        {"ci_method": "bootstrap"},
        {"sample_weight": weights, "ci_method": "bootstrap"},
        {"metric": accuracy_score},
    ):
        first = group_summary(
            y_true, y_pred, sensitive_features=groups, n_boot=50, random_state=3, **kwargs
        )
        again = group_summary(
            y_true, y_pred, sensitive_features=groups, n_boot=50, random_state=3, **kwargs
        )
        other = group_summary(
            y_true, y_pred, sensitive_features=groups, n_boot=50, random_state=4, **kwargs
        )
        np.testing.assert_array_equal(first.ci_low, again.ci_low)
        np.testing.assert_array_equal(first.ci_high, again.ci_high)
        assert not np.array_equal(first.ci_low, other.ci_low)


@pytest.mark.parametrize("path", ["counts", "weighted", "callable"])
def test_interval_width_matches_normal_approximation(path):
    # Stratified bootstrap of a proportion: the 95% interval is close to
    # p +- 1.96 sqrt(p (1 - p) / n_g) for large groups.
    y_true, y_pred, groups = make_data(4000, seed=5)
    kwargs = {
        "counts": {"metric": "accuracy"},
        "weighted": {"metric": "accuracy", "sample_weight": np.ones(4000)},
        "callable": {"metric": accuracy_score},
    }[path]
    n_boot = 1000 if path != "callable" else 300
    summary = group_summary(
        y_true, y_pred, sensitive_features=groups, n_boot=n_boot, random_state=0, **kwargs
    )
    p, n_g = summary.value, summary.count
    half_width = 1.96 * np.sqrt(p * (1 - p) / n_g)
    np.testing.assert_allclose(summary.ci_high - summary.ci_low, 2 * half_width, rtol=0.2)
    assert (np.abs((summary.ci_high + summary.ci_low) / 2 - p) <= 0.3 * half_width).all()


def test_ci_level_orders_intervals():
    y_true, y_pred, groups = make_data(2000)
    wide = group_summary(
        y_true, y_pred, sensitive_features=groups, n_boot=400, ci=0.99, random_state=0
    )
    narrow = group_summary(
        y_true, y_pred, sensitive_features=groups, n_boot=400, ci=0.5, random_state=0
    )
    assert (wide.ci_low < narrow.ci_low).all() and (wide.ci_high > narrow.ci_high).all()


def test_stratified_resampler_keeps_groups_and_sizes():
    groups = factorize_groups(np.array(["b", "a", "c", "a", "b", "a", "c", "c", "c"]))
    resample = _StratifiedResampler(groups.codes, groups.n_groups)
    rng = np.random.RandomState(0)
    seen = set()
    for _ in range(50):
        index = resample(rng)
        for g, part in enumerate(resample.group_indices(index)):
            assert part.size == groups.counts()[g]
            assert (groups.codes[part] == g).all()
            seen.update(part.tolist())
    assert seen == set(range(9))  # every sample gets drawn at some point


def test_undefined_rate_is_nan():
    y_true = [1, 0, 1, 0, 0, 0]
    y_pred = [1, 0, 0, 0, 1, 0]
    summary = group_summary(
        y_true,
        y_pred,
        sensitive_features=list("aaabbb"),
        metric="tpr",
        n_boot=30,
        random_state=0,
    )
    assert summary.value[0] == 0.5 and np.isnan(summary.value[1])
    assert np.isnan(summary.ci_low[1]) and np.isnan(summary.ci_high[1])
    assert 0 <= summary.ci_low[0] <= summary.ci_high[0] <= 1


def test_as_frame_one_and_two_attributes():
    y_true, y_pred, groups = make_data(200)
    frame = group_summary(
        y_true, y_pred, sensitive_features=pd.Series(groups, name="race"), as_frame=True
    )
    assert list(frame.columns) == ["count", "denominator", "value", "ci_low", "ci_high"]
    assert frame.index.name == "race" and list(frame.index) == ["a", "b", "c"]
    sex = np.where(np.arange(200) % 2 == 0, "F", "M")
    frame = group_summary(
        y_true, y_pred, sensitive_features={"race": groups, "sex": sex}, as_frame=True
    )
    assert list(frame.index.names) == ["race", "sex"]
    assert frame["count"].sum() == 200
    expected = np.mean(y_pred[(groups == "a") & (sex == "M")])
    assert frame.loc[("a", "M"), "value"] == pytest.approx(expected)


def test_bad_arguments():
    y = [1, 0, 1, 0]
    groups = ["a", "a", "b", "b"]
    with pytest.raises(ValueError, match="not a named rate"):
        group_summary(y, y, sensitive_features=groups, metric="f1")
    with pytest.raises(ValueError, match="n_boot"):
        group_summary(y, y, sensitive_features=groups, n_boot=-1)
    with pytest.raises(ValueError, match="The .ci. parameter of group_summary must be"):
        group_summary(y, y, sensitive_features=groups, ci=95)
    with pytest.raises(TypeError, match="no metric keyword"):
        group_summary(y, y, sensitive_features=groups, zero_division=0)
    with pytest.raises(ValueError, match="y_true is None"):
        group_summary(None, y, sensitive_features=groups, metric="tpr")
    with pytest.raises(ValueError, match="continuous"):
        group_summary(None, [0.2, 0.3, 0.9, 0.1], sensitive_features=groups)


def test_callable_regression_and_score_metrics():
    from sklearn.metrics import mean_absolute_error, roc_auc_score

    rng = np.random.default_rng(7)
    groups = np.repeat(["a", "b"], 50)
    y_true = rng.normal(size=100)
    y_pred = y_true + np.where(groups == "a", 0.5, -1.0)
    summary = group_summary(
        y_true,
        y_pred,
        sensitive_features=groups,
        metric=mean_absolute_error,
        n_boot=20,
        random_state=0,
    )
    np.testing.assert_allclose(summary.value, [0.5, 1.0])
    np.testing.assert_allclose(summary.ci_low, [0.5, 1.0])
    labels = (y_true > 0).astype(int)
    scores = 1 / (1 + np.exp(-y_true - rng.normal(size=100)))
    summary = group_summary(
        labels,
        scores,
        sensitive_features=groups,
        metric=roc_auc_score,
        n_boot=20,
        random_state=0,
    )
    expected = [roc_auc_score(labels[groups == g], scores[groups == g]) for g in "ab"]
    np.testing.assert_allclose(summary.value, expected)
    assert (summary.ci_low <= summary.ci_high).all()


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_undefined_replicates_of_a_callable_are_left_out():
    from sklearn.metrics import roc_auc_score

    # Group b has a single positive: many replicates draw no positive, where ROC AUC is
    # undefined (NaN, or a ValueError in older scikit-learn).
    labels = np.array([0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1])
    scores = np.linspace(0, 1, 12)
    groups = np.array(["a"] * 6 + ["b"] * 6)
    summary = group_summary(
        labels,
        scores,
        sensitive_features=groups,
        metric=roc_auc_score,
        n_boot=50,
        random_state=0,
    )
    assert summary.value[1] == 1.0
    assert summary.ci_low[1] == 1.0 and summary.ci_high[1] == 1.0


@pytest.mark.parametrize("metric", ["selection_rate", "true_positive_rate", "accuracy"])
def test_unit_weights_give_the_unweighted_bootstrap(metric):
    # Rows of one (cell, weight) class are exchangeable: with unit weights the weighted
    # bootstrap draws the same multinomials as the unweighted one, so the intervals agree.
    y_true, y_pred, groups = make_data(600, seed=3)
    kwargs = dict(sensitive_features=groups, metric=metric, n_boot=200, random_state=7)
    plain = group_summary(y_true, y_pred, **kwargs)
    weighted = group_summary(y_true, y_pred, sample_weight=np.ones(600), **kwargs)
    np.testing.assert_allclose(weighted.ci_low, plain.ci_low, rtol=1e-12)
    np.testing.assert_allclose(weighted.ci_high, plain.ci_high, rtol=1e-12)


def test_integer_weights_bootstrap_matches_repeated_rows_in_distribution():
    # Weight 2 on a row is not a repeated row for the bootstrap (the row is drawn as one), but
    # the interval of a rate must still cover its value and shrink like the row count.
    y_true, y_pred, groups = make_data(3000, seed=4)
    weights = np.random.default_rng(0).integers(1, 4, 3000).astype(float)
    summary = group_summary(
        y_true,
        y_pred,
        sensitive_features=groups,
        metric="accuracy",
        n_boot=400,
        random_state=0,
        sample_weight=weights,
    )
    assert ((summary.ci_low <= summary.value) & (summary.value <= summary.ci_high)).all()
    p, n_g = summary.value, summary.count
    np.testing.assert_allclose(
        summary.ci_high - summary.ci_low, 2 * 1.96 * np.sqrt(p * (1 - p) / n_g), rtol=0.3
    )


@pytest.mark.parametrize(
    ("metric", "behind"),
    [
        ("selection_rate", lambda y_true, y_pred: np.ones_like(y_true, dtype=bool)),
        ("true_positive_rate", lambda y_true, y_pred: y_true == 1),
        ("fpr", lambda y_true, y_pred: y_true == 0),
        ("positive_predictive_value", lambda y_true, y_pred: y_pred == 1),
    ],
)
def test_denominator_is_the_rows_a_rate_is_computed_on(metric, behind):
    # Regression: a TPR of 590 positives out of 5,421 rows showed only count=5,421.
    rng = np.random.default_rng(0)
    groups = rng.choice(["a", "b", "c"], 500)
    y_true, y_pred = rng.integers(0, 2, 500), rng.integers(0, 2, 500)
    summary = group_summary(y_true, y_pred, sensitive_features=groups, metric=metric)
    # The oracle: per group, the rows of the rate's condition, and the rate on them.
    rows = behind(y_true, y_pred)
    for g, label in enumerate(summary.groups):
        member = (groups == label) & rows
        assert summary.denominator[g] == member.sum()
        assert summary.count[g] == (groups == label).sum()
        positive = y_pred if metric != "positive_predictive_value" else y_true
        assert summary.value[g] == pytest.approx(positive[member].mean())
    weights = rng.random(500)
    weighted = group_summary(
        y_true, y_pred, sensitive_features=groups, metric=metric, sample_weight=weights
    )
    for g, label in enumerate(weighted.groups):
        assert weighted.denominator[g] == pytest.approx(weights[(groups == label) & rows].sum())
