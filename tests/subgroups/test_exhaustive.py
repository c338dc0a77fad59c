"""find_subgroups agrees with a brute-force search over every conjunction (explicit masks)."""

import numpy as np
import pandas as pd
import pytest
from subgroup_oracle import METRICS, gap_oracle, sliceline_oracle, step_up

from skfair.subgroups import find_subgroups


def _data(seed, n=600, weights=False):
    rng = np.random.default_rng(seed)
    columns = {
        "a": rng.choice(["x", "y", "z"], n, p=[0.5, 0.3, 0.2]),
        "b": rng.choice([0, 1], n),
        "c": rng.choice(["p", "q", "r", "s"], n),
        "d": rng.choice(["u", "v"], n, p=[0.8, 0.2]),
    }
    y_true = rng.integers(0, 2, n)
    bad = (columns["a"] == "y") & (columns["c"] == "q")
    flip = rng.random(n) < np.where(bad, 0.5, 0.15)
    y_pred = np.where(flip, 1 - y_true, y_true)
    w = rng.choice([0.5, 1.0, 3.0], n) if weights else None
    return columns, y_true, y_pred, w


def _as_tuples(conditions):
    return tuple((name, value) for name, value in conditions)


@pytest.mark.parametrize("metric", sorted(METRICS))
@pytest.mark.parametrize("direction", ["higher", "lower", "both"])
def test_gap_equals_brute_force(metric, direction):
    columns, y_true, y_pred, _ = _data(0)
    report = find_subgroups(
        y_true,
        y_pred,
        features=columns,
        metric=metric,
        direction=direction,
        max_level=3,
        min_support=8,
        k=25,
    )
    expected, n_tests = gap_oracle(
        y_true,
        y_pred,
        columns,
        metric=metric,
        direction=direction,
        max_level=3,
        min_support=8,
    )
    assert report.n_tests == n_tests
    assert len(report.subgroups) == min(25, n_tests)
    for got, want in zip(report.subgroups, expected):
        assert _as_tuples(got["conditions"]) == want["conditions"]
        assert got["n"] == want["n"]
        assert got["n_rated"] == want["n_rated"]
        for key in (
            "value",
            "rest_value",
            "gap",
            "gap_low",
            "gap_high",
            "score",
            "p_value",
            "q_value",
        ):
            np.testing.assert_allclose(got[key], want[key], rtol=1e-9, atol=1e-12, err_msg=key)
        assert got["significant"] == want["significant"]


@pytest.mark.parametrize("correction", ["bh", "by"])
def test_weighted_gap_equals_brute_force(correction):
    columns, y_true, y_pred, w = _data(1, weights=True)
    report = find_subgroups(
        y_true,
        y_pred,
        features=columns,
        max_level=2,
        min_support=10,
        k=15,
        sample_weight=w,
        correction=correction,
        metric="false_positive_rate",
    )
    expected, n_tests = gap_oracle(
        y_true,
        y_pred,
        columns,
        metric="false_positive_rate",
        max_level=2,
        min_support=10,
        weights=w,
        correction=correction,
    )
    assert report.n_tests == n_tests
    for got, want in zip(report.subgroups, expected):
        assert _as_tuples(got["conditions"]) == want["conditions"]
        for key in (
            "value",
            "rest_value",
            "gap",
            "gap_low",
            "gap_high",
            "score",
            "p_value",
            "q_value",
        ):
            np.testing.assert_allclose(got[key], want[key], rtol=1e-9, atol=1e-12, err_msg=key)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alpha", [0.95, 0.6])
@pytest.mark.parametrize("max_level", [2, 3])
def test_sliceline_top_k_equals_brute_force(seed, alpha, max_level):
    columns, y_true, y_pred, _ = _data(seed)
    errors = (y_true != y_pred).astype(float)
    report = find_subgroups(
        y_true,
        y_pred,
        features=columns,
        objective="sliceline",
        sliceline_alpha=alpha,
        max_level=max_level,
        min_support=12,
        k=8,
    )
    expected = sliceline_oracle(
        errors, columns, alpha=alpha, max_level=max_level, min_support=12, k=8
    )
    got_scores = [record["score"] for record in report.subgroups]
    np.testing.assert_allclose(got_scores, [e["score"] for e in expected], rtol=1e-12)
    assert [_as_tuples(r["conditions"]) for r in report.subgroups] == [
        e["conditions"] for e in expected
    ]
    assert [r["n"] for r in report.subgroups] == [e["n"] for e in expected]


def test_sliceline_lower_direction_scores_the_complement():
    columns, y_true, y_pred, _ = _data(3)
    correct = (y_true == y_pred).astype(float)
    report = find_subgroups(
        y_true,
        y_pred,
        features=columns,
        objective="sliceline",
        direction="lower",
        max_level=2,
        min_support=12,
        k=5,
    )
    expected = sliceline_oracle(correct, columns, alpha=0.95, max_level=2, min_support=12, k=5)
    np.testing.assert_allclose(
        [r["score"] for r in report.subgroups], [e["score"] for e in expected], rtol=1e-12
    )
    # the reported value is the error rate itself, lower than the rest's
    assert all(r["value"] < r["rest_value"] for r in report.subgroups)


def test_sliceline_q_values_count_every_conjunction():
    columns, y_true, y_pred, _ = _data(2)
    report = find_subgroups(
        y_true, y_pred, features=columns, objective="sliceline", max_level=2, k=5
    )
    sizes = [3, 2, 4, 2]
    m = sum(sizes) + sum(a * b for i, a in enumerate(sizes) for b in sizes[i + 1 :])
    assert report.n_tests == m
    p_values = [r["p_value"] for r in report.subgroups]
    np.testing.assert_allclose(
        [r["q_value"] for r in report.subgroups], step_up(p_values, m, "bh"), rtol=1e-12
    )


def test_numeric_columns_are_cut_at_numpy_quantiles():
    rng = np.random.default_rng(5)
    age = rng.normal(40, 12, 800).round(1)
    frame = pd.DataFrame({"age": age, "g": rng.choice(["a", "b"], 800)})
    y_true = rng.integers(0, 2, 800)
    report = find_subgroups(
        y_true,
        y_true,
        features=frame,
        n_bins=4,
        max_level=1,
        k=100,
        min_support=1,
        direction="both",
    )
    edges = np.quantile(age, [0, 0.25, 0.5, 0.75, 1])
    expected = {
        f"[{edges[0]:.6g}, {edges[1]:.6g}]",
        *(f"({lo:.6g}, {hi:.6g}]" for lo, hi in zip(edges[1:-1], edges[2:])),
    }
    bins = {
        value
        for record in report.subgroups
        for name, value in record["conditions"]
        if name == "age"
    }
    assert bins == expected
    # each bin holds the rows pandas' qcut puts in it
    counts = pd.qcut(age, 4).value_counts().sort_index().to_numpy()
    sizes = sorted(r["n"] for r in report.subgroups if r["conditions"][0][0] == "age")
    assert sizes == sorted(counts.tolist())


def test_missing_values_are_a_category_of_their_own():
    rng = np.random.default_rng(6)
    n = 500
    region = rng.choice(["n", "s", None], n).astype(object)
    income = rng.normal(size=n)
    income[rng.random(n) < 0.1] = np.nan
    y_true = rng.integers(0, 2, n)
    y_pred = np.where((region == None) & (rng.random(n) < 0.5), 1 - y_true, y_true)  # noqa: E711
    frame = pd.DataFrame({"region": region, "income": income})
    report = find_subgroups(y_true, y_pred, features=frame, max_level=2, min_support=5, k=200)
    top = report.subgroups[0]
    assert top["conditions"] == (("region", None),)
    assert top["description"] == "region is missing"
    assert top["n"] == int(pd.isna(region).sum())
    missing_income = [r for r in report.subgroups if r["conditions"] == (("income", None),)]
    assert missing_income and missing_income[0]["n"] == int(np.isnan(income).sum())
    np.testing.assert_array_equal(report.mask(0), pd.isna(region))


def test_fpr_top_subgroup_equals_exhaustive_search():
    columns, y_true, y_pred, _ = _data(7, n=1500)
    report = find_subgroups(
        y_true,
        y_pred,
        features=columns,
        metric="false_positive_rate",
        max_level=3,
        min_support=20,
        k=1,
    )
    expected, _ = gap_oracle(
        y_true, y_pred, columns, metric="false_positive_rate", max_level=3, min_support=20
    )
    assert _as_tuples(report.subgroups[0]["conditions"]) == expected[0]["conditions"]


def _data_with_equivalent_descriptions(seed, n=800):
    """Columns that describe the same rows in several ways: ``e`` recodes ``a`` one to one
    (``e = A`` iff ``a = x``), ``f = 1`` exactly on ``a = y & b = 1``, and ``h`` is ``c``
    merged into two values."""
    columns, y_true, y_pred, w = _data(seed, n)
    columns["e"] = np.select([columns["a"] == "x", columns["a"] == "y"], ["A", "B"], "C")
    columns["f"] = ((columns["a"] == "y") & (columns["b"] == 1)).astype(int)
    columns["h"] = np.where(np.isin(columns["c"], ["p", "q"]), "pq", "rs")
    return columns, y_true, y_pred


@pytest.mark.parametrize("seed", range(3))
def test_equivalent_descriptions_are_one_subgroup_under_the_shortest(seed):
    columns, y_true, y_pred = _data_with_equivalent_descriptions(seed)
    report = find_subgroups(y_true, y_pred, features=columns, max_level=3, min_support=10, k=400)
    expected, n_tests = gap_oracle(y_true, y_pred, columns, max_level=3, min_support=10)
    assert report.n_tests == n_tests
    got = [_as_tuples(r["conditions"]) for r in report.subgroups]
    assert got == [e["conditions"] for e in expected][: len(got)]
    masks = {report.mask(i).tobytes() for i in range(len(report))}
    assert len(masks) == len(report)


@pytest.mark.parametrize("max_level", [2, 3])
def test_sliceline_reports_each_slice_once(max_level):
    columns, y_true, y_pred = _data_with_equivalent_descriptions(4)
    errors = (y_true != y_pred).astype(float)
    report = find_subgroups(
        y_true,
        y_pred,
        features=columns,
        objective="sliceline",
        max_level=max_level,
        min_support=10,
        k=10,
    )
    expected = sliceline_oracle(
        errors, columns, alpha=0.95, max_level=max_level, min_support=10, k=10
    )
    assert [_as_tuples(r["conditions"]) for r in report.subgroups] == [
        e["conditions"] for e in expected
    ]
    np.testing.assert_allclose(
        [r["score"] for r in report.subgroups], [e["score"] for e in expected], rtol=1e-12
    )


def test_a_rate_of_one_on_few_rated_rows_does_not_outrank_a_large_gap_on_many():
    # Regression: with Wald's interval a subgroup whose 40 rated rows are all errors had a
    # zero-width bound on its side and outranked a 0.9 rate on 400 rows; Newcombe's bound
    # (Wilson's limits) ranks the 400 rows first, and the 40 rows' bound is below its gap by
    # more than the rest's spread alone.
    rng = np.random.default_rng(0)
    n = 4000
    a = np.repeat(np.arange(4), n // 4)
    b = rng.permutation(np.repeat(np.arange(4), n // 4))
    y_true = np.ones(n, dtype=int)
    y_pred = (rng.random(n) < 0.8).astype(int)  # the false-negative rate is 0.2 outside
    small = np.flatnonzero((a == 0) & (b == 0))[:40]
    large = np.flatnonzero(a == 3)[:400]
    y_pred[small] = 0
    y_pred[large] = (rng.random(400) < 0.1).astype(int)
    group = np.where(
        np.isin(np.arange(n), small),
        "small",
        np.where(np.isin(np.arange(n), large), "large", "other"),
    )
    report = find_subgroups(
        y_true,
        y_pred,
        features={"g": group},
        metric="false_negative_rate",
        max_level=1,
        min_support=30,
    )
    top = {r["description"]: r for r in report.subgroups}
    assert report.subgroups[0]["description"] == "g = large"
    assert top["g = small"]["value"] == 1.0 and top["g = small"]["n_rated"] == 40
    wilson_low = 40 / (40 + 1.959963984540054**2)  # Wilson's lower limit at 40 of 40
    assert top["g = small"]["gap_low"] < wilson_low - top["g = small"]["rest_value"] + 1e-12
