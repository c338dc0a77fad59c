"""Invariants of find_subgroups (hypothesis): a duplicated column, a permutation of the rows
or an order-preserving renaming of the values changes nothing but names; integer weights
give the rates, gaps and SliceLine scores of repeated rows; a constant column is refused."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skfair.subgroups import find_subgroups

OBJECTIVES = ["gap", "sliceline"]


@st.composite
def datasets(draw):
    n = draw(st.integers(40, 160))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    features = {
        "a": rng.choice(["x", "y", "z"], n),
        "b": rng.choice([0, 1], n),
        "c": rng.choice(["p", "q"], n, p=[0.7, 0.3]),
    }
    # every column holds at least two values
    features["a"][:2], features["b"][:2], features["c"][:2] = ["x", "y"], [0, 1], ["p", "q"]
    y_true = rng.integers(0, 2, n)
    y_pred = rng.integers(0, 2, n)
    y_pred[0], y_true[0] = 1, 0  # an error for SliceLine
    y_pred[1], y_true[1] = 1, 1
    return features, y_true, y_pred


def _run(features, y_true, y_pred, objective, **kwargs):
    kwargs.setdefault("min_support", 3)
    kwargs.setdefault("k", 60)
    return find_subgroups(
        y_true, y_pred, features=features, objective=objective, max_level=3, **kwargs
    )


def _numbers(report):
    return [
        (r["n"], r["value"], r["rest_value"], r["gap"], r["score"], r["p_value"], r["q_value"])
        for r in report.subgroups
    ]


@settings(max_examples=25, deadline=None)
@given(datasets(), st.sampled_from(OBJECTIVES))
def test_a_duplicated_column_changes_nothing(data, objective):
    features, y_true, y_pred = data
    expected = _run(features, y_true, y_pred, objective)
    doubled = _run({**features, "a_copy": features["a"].copy()}, y_true, y_pred, objective)
    got, want = doubled.to_dict()["subgroups"], expected.to_dict()["subgroups"]
    if objective == "sliceline":
        # SliceLine's q-values count every description as a test (those not scored with
        # p-value 1): the copy's descriptions add tests, and nothing else changes.
        assert doubled.n_tests > expected.n_tests
        for records in (got, want):
            for record in records:
                del record["q_value"], record["significant"]
    else:
        assert doubled.n_tests == expected.n_tests
    assert got == want


@settings(max_examples=25, deadline=None)
@given(datasets(), st.sampled_from(OBJECTIVES), st.integers(0, 2**32 - 1))
def test_permuting_the_rows_changes_nothing(data, objective, seed):
    features, y_true, y_pred = data
    order = np.random.default_rng(seed).permutation(len(y_true))
    expected = _run(features, y_true, y_pred, objective)
    permuted = _run(
        {k: v[order] for k, v in features.items()}, y_true[order], y_pred[order], objective
    )
    assert permuted.to_dict() == expected.to_dict()


@settings(max_examples=25, deadline=None)
@given(datasets(), st.sampled_from(OBJECTIVES))
def test_renaming_values_changes_only_names(data, objective):
    features, y_true, y_pred = data
    renamed = {
        "a": np.char.add("v_", features["a"]),
        "b": features["b"] + 10,
        "c": np.char.upper(features["c"]),
    }
    expected = _run(features, y_true, y_pred, objective)
    got = _run(renamed, y_true, y_pred, objective)
    assert _numbers(got) == _numbers(expected)
    rename = {"a": lambda v: "v_" + v, "b": lambda v: v + 10, "c": str.upper}
    for g, e in zip(got.subgroups, expected.subgroups):
        assert g["conditions"] == tuple((c, rename[c](v)) for c, v in e["conditions"])


@settings(max_examples=25, deadline=None)
@given(datasets(), st.sampled_from(OBJECTIVES), st.integers(0, 2**32 - 1))
def test_integer_weights_are_repeated_rows(data, objective, seed):
    features, y_true, y_pred = data
    w = np.random.default_rng(seed).integers(1, 4, len(y_true))
    weighted = _run(features, y_true, y_pred, objective, sample_weight=w, min_support=1, k=500)
    repeated = _run(
        {k: np.repeat(v, w) for k, v in features.items()},
        np.repeat(y_true, w),
        np.repeat(y_pred, w),
        objective,
        min_support=1,
        k=500,
    )
    # The same subgroups with the same rates, gaps and SliceLine scores (the tests read the
    # weights as precision weights, so their p-values differ).
    key = "score" if objective == "sliceline" else "gap"
    by_description = {r["description"]: r for r in repeated.subgroups}
    assert {r["description"] for r in weighted.subgroups} == set(by_description)
    for record in weighted.subgroups:
        other = by_description[record["description"]]
        for name in ("value", "rest_value", key):
            np.testing.assert_allclose(record[name], other[name], rtol=1e-12, atol=1e-12)


def test_a_constant_column_is_refused_by_name():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="'always' has a single value"):
        find_subgroups(
            rng.integers(0, 2, 50),
            rng.integers(0, 2, 50),
            features={"a": rng.choice(["x", "y"], 50), "always": np.zeros(50)},
            max_level=2,
        )
