"""Tests of MetricTable against pandas groupby, closed forms and invariants."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import accuracy_score, fbeta_score, precision_score, recall_score

from skfair.metrics import (
    MetricTable,
    disparate_impact_ratio,
    statistical_parity_difference,
    true_positive_rate_difference,
)

RATES = {
    # name: (numerator indicator, denominator indicator) on columns of the oracle frame
    "selection_rate": ("p", "all"),
    "true_positive_rate": ("tp", "t"),
    "false_negative_rate": ("fn", "t"),
    "false_positive_rate": ("fp", "n"),
    "true_negative_rate": ("tn", "n"),
    "positive_predictive_value": ("tp", "p"),
    "false_discovery_rate": ("fp", "p"),
    "negative_predictive_value": ("tn", "q"),
    "false_omission_rate": ("fn", "q"),
    "base_rate": ("t", "all"),
    "accuracy": ("ok", "all"),
    "error_rate": ("wrong", "all"),
}


def make_data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    strata = rng.choice(["x", "y"], size=n)
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.75 + 0.1 * (groups == "a"), y_true, 1 - y_true)
    return y_true, y_pred, groups, strata


def oracle_frame(y_true, y_pred, keys, weights):
    frame = pd.DataFrame(keys)
    t, p = y_true == 1, y_pred == 1
    columns = {
        "all": np.ones_like(t),
        "t": t,
        "n": ~t,
        "p": p,
        "q": ~p,
        "tp": t & p,
        "fp": ~t & p,
        "fn": t & ~p,
        "tn": ~t & ~p,
        "ok": y_true == y_pred,
        "wrong": y_true != y_pred,
    }
    for name, column in columns.items():
        frame[name] = column * weights
    return frame.groupby(list(keys)).sum()


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("controlled", [False, True])
def test_by_group_and_overall_match_pandas_groupby(weighted, controlled):
    y_true, y_pred, groups, strata = make_data(800)
    weights = np.random.default_rng(1).integers(1, 5, 800).astype(float)
    w = weights if weighted else np.ones(800)
    keys = {"s": strata, "g": groups} if controlled else {"g": groups}
    sums = oracle_frame(y_true, y_pred, keys, w)
    table = MetricTable(
        list(RATES),
        y_true,
        y_pred,
        sensitive_features=pd.Series(groups, name="g"),
        control_features=pd.Series(strata, name="s") if controlled else None,
        sample_weight=weights if weighted else None,
        as_frame=True,
    )
    for name, (num, den) in RATES.items():
        expected = sums[num] / sums[den]
        np.testing.assert_allclose(table.by_group[name].to_numpy(), expected.to_numpy(), atol=1e-12)
        assert list(table.by_group.index) == list(expected.index)
        overall = sums.groupby(level="s").sum() if controlled else sums.sum()
        np.testing.assert_allclose(
            np.asarray(table.overall[name]), np.asarray(overall[num] / overall[den]), atol=1e-12
        )
    assert table.counts.sum() == 800


def test_numpy_output_without_pandas_objects():
    y_true, y_pred, groups, _ = make_data(300)
    table = MetricTable(["tpr", "fpr"], y_true, y_pred, sensitive_features=groups, as_frame=False)
    assert isinstance(table.by_group, np.ndarray) and table.by_group.shape == (3, 2)
    assert table.groups == ["a", "b", "c"]
    assert table.metric_names == ["true_positive_rate", "false_positive_rate"]
    assert table.difference().shape == (2,) and table.overall.shape == (2,)
    np.testing.assert_allclose(table.difference(), np.ptp(table.by_group, axis=0))


def test_signed_aggregates_match_the_metric_functions():
    y_true, y_pred, groups, _ = make_data(1000)
    for privileged in ["a", ["a", "c"]]:
        table = MetricTable(
            ["selection_rate", "tpr"],
            y_true,
            y_pred,
            sensitive_features=groups,
            privileged_group=privileged,
            as_frame=False,
        )
        kwargs = {"sensitive_features": groups, "privileged_group": privileged}
        assert table.difference()[0] == pytest.approx(
            statistical_parity_difference(y_true, y_pred, **kwargs), abs=1e-12
        )
        assert table.difference()[1] == pytest.approx(
            true_positive_rate_difference(y_true, y_pred, **kwargs), abs=1e-12
        )
        assert table.ratio()[0] == pytest.approx(
            disparate_impact_ratio(y_true, y_pred, **kwargs), abs=1e-12
        )


def test_disadvantaged_each_reports_the_group_furthest_from_parity():
    # Privileged "p" selects 0.5; "big" 0.5 (parity) and "small" 0.0. Pooled, the gap is
    # diluted by the big group; compared one by one, the small group is the worst.
    groups = np.array(["p"] * 10 + ["big"] * 80 + ["small"] * 10)
    y_pred = np.concatenate([np.arange(10) % 2, np.arange(80) % 2, np.zeros(10, int)])
    pooled = MetricTable(
        "selection_rate",
        None,
        y_pred,
        sensitive_features=groups,
        privileged_group="p",
        as_frame=False,
    )
    each = MetricTable(
        "selection_rate",
        None,
        y_pred,
        sensitive_features=groups,
        privileged_group="p",
        disadvantaged="each",
        as_frame=False,
    )
    assert pooled.difference()[0] == pytest.approx(40 / 90 - 0.5)
    assert each.difference()[0] == pytest.approx(-0.5)
    assert each.ratio()[0] == pytest.approx(0.0)
    assert pooled.ratio()[0] == pytest.approx((40 / 90) / 0.5)


def test_control_features_give_aggregates_per_stratum():
    y_true, y_pred, groups, strata = make_data(1500)
    table = MetricTable(
        {"tpr": "tpr", "sr": "selection_rate"},
        y_true,
        y_pred,
        sensitive_features=groups,
        control_features=strata,
        as_frame=True,
    )
    difference = table.difference()
    assert list(difference.index) == ["x", "y"] and table.difference().index.name == (
        "control_features"
    )
    for stratum in ["x", "y"]:
        inside = strata == stratum
        expected = MetricTable(
            {"tpr": "tpr", "sr": "selection_rate"},
            y_true[inside],
            y_pred[inside],
            sensitive_features=groups[inside],
            as_frame=True,
        )
        pd.testing.assert_series_equal(
            difference.loc[stratum], expected.difference(), check_names=False
        )
        pd.testing.assert_series_equal(
            table.group_max().loc[stratum], expected.group_max(), check_names=False
        )
        pd.testing.assert_series_equal(
            table.ratio("to_overall").loc[stratum], expected.ratio("to_overall"), check_names=False
        )


def test_empty_intersections_are_absent():
    groups = np.array(["a", "a", "b", "b"])
    strata = np.array(["x", "y", "x", "x"])
    table = MetricTable(
        "selection_rate",
        None,
        [1, 0, 1, 0],
        sensitive_features=groups,
        control_features=strata,
        as_frame=True,
    )
    assert list(table.by_group.index) == [("x", "a"), ("x", "b"), ("y", "a")]
    with pytest.warns(UndefinedMetricWarning, match=r"single group in strata \['y'\]"):
        difference = table.difference()
    assert difference.loc["x"].iloc[0] == pytest.approx(0.5)
    assert difference.loc["y"].iloc[0] == 0.0


def test_callables_with_kwargs_agree_with_named_rates_and_sklearn():
    y_true, y_pred, groups, _ = make_data(600)
    weights = np.random.default_rng(3).random(600)
    table = MetricTable(
        {
            "recall": recall_score,
            "tpr": "tpr",
            "precision": precision_score,
            "ppv": "precision",
            "f2": (fbeta_score, {"beta": 2}),
            "acc": accuracy_score,
        },
        y_true,
        y_pred,
        sensitive_features=groups,
        sample_weight=weights,
        as_frame=False,
    )
    by_group = table.by_group
    np.testing.assert_allclose(by_group[:, 0], by_group[:, 1], atol=1e-12)
    np.testing.assert_allclose(by_group[:, 2], by_group[:, 3], atol=1e-12)
    for g, label in enumerate("abc"):
        rows = groups == label
        expected = fbeta_score(y_true[rows], y_pred[rows], beta=2, sample_weight=weights[rows])
        assert by_group[g, 4] == pytest.approx(expected, abs=1e-12)
    assert table.overall[5] == pytest.approx(accuracy_score(y_true, y_pred, sample_weight=weights))


def test_accuracy_for_multiclass_labels():
    y_true = np.array(["x", "y", "z", "x", "y", "z"])
    y_pred = np.array(["x", "y", "x", "x", "z", "z"])
    table = MetricTable(
        ["accuracy", "error_rate"],
        y_true,
        y_pred,
        sensitive_features=list("aaabbb"),
        as_frame=False,
    )
    np.testing.assert_allclose(table.by_group, [[2 / 3, 1 / 3], [2 / 3, 1 / 3]])
    # With pos_label, the one-vs-rest rates and the exact accuracy live in one table.
    table = MetricTable(
        ["accuracy", "tpr"],
        y_true,
        y_pred,
        sensitive_features=list("aaabbb"),
        pos_label="x",
        as_frame=False,
    )
    np.testing.assert_allclose(table.by_group, [[2 / 3, 1.0], [2 / 3, 1.0]])


def test_undefined_rates_are_nan_and_left_out_of_aggregates():
    y_true = [1, 0, 1, 0, 0, 0, 1, 1, 0]
    y_pred = [1, 0, 0, 0, 1, 0, 1, 1, 1]
    table = MetricTable("tpr", y_true, y_pred, sensitive_features=list("aaabbbccc"), as_frame=False)
    assert np.isnan(table.by_group[1, 0])
    assert table.difference()[0] == pytest.approx(0.5)
    assert table.ratio()[0] == pytest.approx(0.5)
    assert table.group_min()[0] == pytest.approx(0.5)


def test_a_comparison_with_an_undefined_group_is_nan_with_a_warning():
    # group "b" has no positives: its true positive rate is undefined. MetricTable reported
    # difference 0.0 and ratio 1.0 silently; the metric function gives NaN with a warning.
    y_true = [1, 0, 1, 0, 0, 0, 0, 0]
    y_pred = [1, 0, 0, 1, 1, 0, 1, 0]
    sex = list("aaaabbbb")
    with pytest.warns(UndefinedMetricWarning, match="left out"):
        assert np.isnan(true_positive_rate_difference(y_true, y_pred, sensitive_features=sex))
    table = MetricTable(
        ["tpr", "selection_rate"], y_true, y_pred, sensitive_features=sex, as_frame=False
    )
    for method in ["between_groups", "to_overall"]:
        for aggregate in [table.difference, table.ratio]:
            undefined = r"'true_positive_rate' is undefined for group\(s\) \['b'\]"
            with pytest.warns(UndefinedMetricWarning, match=undefined):
                value = aggregate(method)
            assert np.isnan(value[0])
            assert value[1] == (0.0 if aggregate == table.difference else 1.0)
    # signed: the disadvantaged side has no value
    signed = MetricTable(
        "tpr", y_true, y_pred, sensitive_features=sex, privileged_group="a", as_frame=False
    )
    with pytest.warns(UndefinedMetricWarning, match="NaN is returned"):
        assert np.isnan(signed.difference()[0])
    # a bootstrap replicate where a group loses its value is left out of the interval, not 0
    rng = np.random.default_rng(0)
    y_true = np.r_[np.ones(2), np.zeros(38), rng.integers(0, 2, 40)]
    y_pred = rng.integers(0, 2, 80)
    groups = np.repeat(["a", "b"], 40)
    boot = MetricTable(
        "tpr",
        y_true,
        y_pred,
        sensitive_features=groups,
        n_boot=200,
        random_state=0,
        ci_method="bootstrap",
        as_frame=False,
    )
    # the oracle: the same multinomial draws of each group's cells, group after group
    stream = np.random.RandomState(0)
    rates = []
    for group in ["a", "b"]:
        inside = groups == group
        cells = np.bincount((2 * y_true[inside] + y_pred[inside]).astype(int), minlength=4).astype(
            float
        )
        draws = stream.multinomial(inside.sum(), cells / cells.sum(), size=200)
        with np.errstate(invalid="ignore"):
            rates.append(draws[:, 3] / draws[:, 2:].sum(1))
    gaps = np.abs(rates[0] - rates[1])
    lost = np.isnan(rates[0])
    assert lost.any()
    low, high = boot.confidence_interval("difference")
    np.testing.assert_allclose(
        [low[0], high[0]], np.quantile(gaps[~lost], [0.025, 0.975]), rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("n_boot", [0, 20])
def test_a_single_group_warns_in_every_comparison(n_boot):
    y_true, y_pred = [1, 0, 1, 0], [1, 1, 0, 0]
    table = MetricTable(
        ["tpr", "accuracy"],
        y_true,
        y_pred,
        sensitive_features=["a"] * 4,
        n_boot=n_boot,
        random_state=0,
        as_frame=False,
    )
    for method in ["between_groups", "to_overall"]:
        with pytest.warns(UndefinedMetricWarning, match="Only one group"):
            np.testing.assert_array_equal(table.difference(method), [0.0, 0.0])
        with pytest.warns(UndefinedMetricWarning, match="Only one group"):
            np.testing.assert_array_equal(table.ratio(method), [1.0, 1.0])


@settings(max_examples=40, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 3), st.integers(1, 4)),
        min_size=8,
        max_size=60,
    )
)
def test_aggregate_invariants_and_weights_equal_repeated_rows(data):
    y_true, y_pred, groups, weights = (np.array(column) for column in zip(*data))
    names = ["selection_rate", "accuracy", "tpr", "fpr"]
    weighted = MetricTable(
        names, y_true, y_pred, sensitive_features=groups, sample_weight=weights, as_frame=False
    )
    repeated = MetricTable(
        names,
        np.repeat(y_true, weights),
        np.repeat(y_pred, weights),
        sensitive_features=np.repeat(groups, weights),
        as_frame=False,
    )
    np.testing.assert_allclose(weighted.by_group, repeated.by_group, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(weighted.overall, repeated.overall, atol=1e-12, equal_nan=True)
    by_group = weighted.by_group
    defined = ~np.isnan(by_group).all(axis=0)
    maxima, minima = np.nanmax(by_group[:, defined], 0), np.nanmin(by_group[:, defined], 0)
    # a comparison needs two groups with a defined value (one group: nothing to compare)
    compared = (~np.isnan(by_group)).sum(axis=0) >= 2 if by_group.shape[0] > 1 else defined
    expected = np.where(compared[defined], maxima - minima, np.nan)
    np.testing.assert_allclose(weighted.difference()[defined], expected, atol=1e-12)
    np.testing.assert_allclose(weighted.group_max()[defined], maxima)
    ratio = weighted.ratio()[defined]
    finite = ~np.isnan(ratio)
    assert ((ratio[finite] >= 0) & (ratio[finite] <= 1 + 1e-12)).all()
    to_overall = weighted.ratio("to_overall")
    assert (
        (to_overall[~np.isnan(to_overall)] >= 0) & (to_overall[~np.isnan(to_overall)] <= 1 + 1e-12)
    ).all()
    # to_overall against the population value: the largest |group - overall|.
    gaps = np.abs(by_group - weighted.overall)
    expected = np.array([np.nanmax(c) if not np.isnan(c).all() else np.nan for c in gaps.T])
    expected[~compared] = np.nan
    np.testing.assert_allclose(weighted.difference("to_overall"), expected, atol=1e-12)
    # The selection rate is defined everywhere: the overall lies between the group extremes.
    assert minima[0] - 1e-12 <= weighted.overall[0] <= maxima[0] + 1e-12


def test_bootstrap_intervals_bracket_values_and_are_reproducible():
    y_true, y_pred, groups, _ = make_data(2000)
    kwargs = {
        "sensitive_features": groups,
        "n_boot": 300,
        "random_state": 0,
        "ci_method": "bootstrap",
        "as_frame": False,
    }
    table = MetricTable(["tpr", "selection_rate"], y_true, y_pred, **kwargs)
    again = MetricTable(["tpr", "selection_rate"], y_true, y_pred, **kwargs)
    for what in ["by_group", "overall", "difference", "ratio", "group_min", "group_max"]:
        low, high = table.confidence_interval(what)
        np.testing.assert_array_equal(low, again.confidence_interval(what)[0])
        assert (low <= high).all()
    low, high = table.confidence_interval("by_group")
    assert ((low <= table.by_group) & (table.by_group <= high)).all()
    # Normal approximation of a proportion's 95% interval, group by group.
    p, n = table.by_group[:, 1], table.counts
    np.testing.assert_allclose(
        high[:, 1] - low[:, 1], 2 * 1.96 * np.sqrt(p * (1 - p) / n), rtol=0.2
    )
    low, high = table.confidence_interval("difference")
    assert low[1] <= table.difference()[1] <= high[1]


@pytest.mark.parametrize("weighted", [False, True])
def test_accuracy_interval_redraws_whole_groups(weighted):
    # Accuracy splits each group's cells by correctness; the bootstrap must redraw the
    # group as a whole (the split is a cell, not a stratum), or the interval collapses.
    y_true, y_pred, groups, _ = make_data(4000, seed=5)
    weights = np.full(4000, 2.0) if weighted else None
    table = MetricTable(
        ["accuracy", "tpr"],
        y_true,
        y_pred,
        sensitive_features=groups,
        sample_weight=weights,
        n_boot=1000,
        random_state=0,
        ci_method="bootstrap",
        as_frame=False,
    )
    low, high = table.confidence_interval("by_group")
    p, n = table.by_group[:, 0], table.counts
    np.testing.assert_allclose(
        high[:, 0] - low[:, 0], 2 * 1.96 * np.sqrt(p * (1 - p) / n), rtol=0.2
    )


def test_bootstrap_of_rates_does_not_depend_on_row_order():
    # Draws come from the count table, so any partitioning or order of rows gives the same.
    y_true, y_pred, groups, _ = make_data(1000)
    order = np.random.default_rng(5).permutation(1000)
    kwargs = {"n_boot": 50, "random_state": 0, "ci_method": "bootstrap", "as_frame": False}
    first = MetricTable(["tpr", "accuracy"], y_true, y_pred, sensitive_features=groups, **kwargs)
    shuffled = MetricTable(
        ["tpr", "accuracy"],
        y_true[order],
        y_pred[order],
        sensitive_features=groups[order],
        **kwargs,
    )
    for what in ["by_group", "difference"]:
        np.testing.assert_array_equal(
            first.confidence_interval(what)[0], shuffled.confidence_interval(what)[0]
        )


def test_repr_and_html_show_groups_and_overall():
    y_true, y_pred, groups, _ = make_data(200)
    table = MetricTable(["tpr", "fpr"], y_true, y_pred, sensitive_features=groups)
    text = repr(table)
    assert "true_positive_rate" in text and "overall" in text and "\nb " in text
    html = table._repr_html_()
    assert html.count("<tr>") == 5 and "<th>false_positive_rate</th>" in html


def test_bad_arguments_raise_clear_errors():
    y = [1, 0, 1, 0]
    groups = ["a", "a", "b", "b"]
    with pytest.raises(ValueError, match="not a named rate"):
        MetricTable("f1", y, y, sensitive_features=groups)
    with pytest.raises(ValueError, match="repeat"):
        MetricTable(["tpr", "recall"], y, y, sensitive_features=groups)
    with pytest.raises(TypeError, match="no keyword"):
        MetricTable({"x": ("tpr", {"a": 1})}, y, y, sensitive_features=groups)
    with pytest.raises(ValueError, match="n_boot"):
        MetricTable("tpr", y, y, sensitive_features=groups, n_boot=-1)
    with pytest.raises(ValueError, match="disadvantaged"):
        MetricTable("tpr", y, y, sensitive_features=groups, disadvantaged="all")
    with pytest.raises(ValueError, match="y_true is None"):
        MetricTable("tpr", None, y, sensitive_features=groups)
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        MetricTable("tpr", y, y, sensitive_features=groups, control_features=[1, 2])
    table = MetricTable("tpr", y, y, sensitive_features=groups, ci_method="bootstrap")
    with pytest.raises(ValueError, match="n_boot > 0"):
        table.confidence_interval()
    with pytest.raises(ValueError, match="no closed form here.*n_boot > 0"):
        MetricTable("tpr", y, y, sensitive_features=groups).confidence_interval("difference")
    with pytest.raises(ValueError, match="ci_method"):
        MetricTable("tpr", y, y, sensitive_features=groups, ci_method="normal")
    with pytest.raises(ValueError, match="method must be"):
        table.difference("pairwise")


def _bootstrap_peak(n_groups, n_boot, seed=0):
    """Peak traced memory of a bootstrap MetricTable of two rates (bytes), and the table."""
    import tracemalloc

    rng = np.random.default_rng(seed)
    n = 20_000
    groups = rng.integers(0, n_groups, n)
    y_true, y_pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    tracemalloc.start()
    try:
        table = MetricTable(
            ["tpr", "accuracy"],
            y_true,
            y_pred,
            sensitive_features=groups,
            n_boot=n_boot,
            random_state=0,
            ci_method="bootstrap",
            as_frame=False,
        )
        for what in ["by_group", "difference", "group_max"]:
            table.confidence_interval(what)
        table.confidence_interval("difference", method="to_overall")
        table.confidence_interval("difference_to", reference=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, table, (groups, y_true, y_pred)


@pytest.mark.slow
def test_bootstrap_memory_does_not_grow_with_the_groups():
    # Regression: the bootstrap kept every replicate value of every group and rate (n_boot x
    # n_groups floats per rate): n_boot=400_000 over 400 groups died in a raw MemoryError
    # under a 3 GiB limit. Replicates are now reduced group by group, and drawn again from the
    # stratum's saved random state for the aggregates that need every group with the overall
    # or a reference value.
    n_boot = 4_000
    peak, table, (groups, y_true, y_pred) = _bootstrap_peak(400, n_boot)
    held_before = 2 * n_boot * 400 * 8  # one float per replicate, group and rate
    assert peak < held_before / 4, (peak / 2**20, held_before / 2**20)
    small_peak, *_ = _bootstrap_peak(25, n_boot)
    assert peak < 1.5 * small_peak, (peak / 2**20, small_peak / 2**20)
    # the same numbers as drawing every table at once, by an independent draw: each group in
    # turn, its cells [tn, fp, fn, tp] split by correctness, n_boot multinomials
    stream = np.random.RandomState(0)
    positive_rate = np.full((n_boot, 400), np.nan)
    for g in range(400):
        inside = groups == g
        cell = y_pred[inside] + 2 * y_true[inside] + 4 * (y_true[inside] == y_pred[inside])
        counts = np.bincount(cell, minlength=8).astype(float)
        draws = stream.multinomial(inside.sum(), counts / counts.sum(), size=n_boot)
        tp, fn = draws[:, [3, 7]].sum(1), draws[:, [2, 6]].sum(1)
        with np.errstate(invalid="ignore"):
            positive_rate[:, g] = tp / (tp + fn)
    close = {"rtol": 0, "atol": 1e-12}
    low, high = table.confidence_interval("by_group")
    np.testing.assert_allclose(low[:, 0], np.quantile(positive_rate, 0.025, axis=0), **close)
    np.testing.assert_allclose(high[:, 0], np.quantile(positive_rate, 0.975, axis=0), **close)
    gap = positive_rate.max(1) - positive_rate.min(1)
    np.testing.assert_allclose(
        np.array(table.confidence_interval("difference"))[:, 0],
        np.quantile(gap, [0.025, 0.975]),
        **close,
    )
    np.testing.assert_allclose(
        np.array(table.confidence_interval("difference_to", reference=0))[:, 5, 0],
        np.quantile(positive_rate[:, 5] - positive_rate[:, 0], [0.025, 0.975]),
        **close,
    )


def test_a_bootstrap_too_large_for_memory_says_its_size():
    with pytest.raises(MemoryError, match=r"n_boot=1000000000000 replicates .* GiB"):
        MetricTable(
            "selection_rate",
            None,
            [0, 1, 1, 0],
            sensitive_features=[0, 0, 1, 1],
            n_boot=10**12,
            random_state=0,
        )


def test_difference_to_a_reference_group_matches_groupby_and_the_signed_difference():
    y_true, y_pred, groups, _ = make_data(1200)
    sums = oracle_frame(y_true, y_pred, {"g": groups}, np.ones(1200))
    expected = (sums["p"] / sums["all"]).to_numpy()
    table = MetricTable(
        ["selection_rate", "tpr"],
        y_true,
        y_pred,
        sensitive_features=groups,
        n_boot=200,
        random_state=0,
    )
    gaps = table.difference_to("b")
    np.testing.assert_allclose(gaps[:, 0], expected - expected[1], atol=1e-12)
    assert np.all(gaps[1] == 0)
    # Two groups: the gap to the privileged group is the signed difference, with the same
    # interval (the same replicates, through an independent formula).
    two = groups != "c"
    args = (["selection_rate", "tpr"], y_true[two], y_pred[two])
    kwargs = {"sensitive_features": groups[two], "n_boot": 200, "random_state": 0}
    plain, signed = MetricTable(*args, **kwargs), MetricTable(*args, privileged_group="a", **kwargs)
    np.testing.assert_allclose(plain.difference_to("a")[1], signed.difference(), atol=1e-12)
    low, high = plain.confidence_interval("difference_to", reference="a")
    signed_low, signed_high = signed.confidence_interval("difference")
    np.testing.assert_allclose(low[1], signed_low, atol=1e-12)
    np.testing.assert_allclose(high[1], signed_high, atol=1e-12)
    np.testing.assert_array_equal(low[0], [0, 0])
    assert np.all(low[1] <= plain.difference_to("a")[1]) and np.all(
        plain.difference_to("a")[1] <= high[1]
    )


def test_difference_to_an_intersectional_group_and_bad_references():
    y_true, y_pred, groups, strata = make_data(600)
    table = MetricTable(
        "selection_rate",
        y_true,
        y_pred,
        sensitive_features={"g": groups, "s": strata},
        as_frame=True,
    )
    gaps = table.difference_to(("a", "x"))
    by_group = table.by_group["selection_rate"]
    np.testing.assert_allclose(
        gaps["selection_rate"], by_group - by_group.loc[("a", "x")], atol=1e-12
    )
    with pytest.raises(ValueError, match="must name one group present"):
        table.difference_to(("a", "z"))
    with pytest.raises(ValueError, match="must name one group, not 2"):
        table.difference_to([("a", "x"), ("b", "x")])
    with pytest.raises(ValueError, match="needs the reference group"):
        MetricTable(
            "tpr", y_true, y_pred, sensitive_features=groups, n_boot=5, random_state=0
        ).confidence_interval("difference_to")
