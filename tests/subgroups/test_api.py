"""find_subgroups' input checks, the report's forms, and its use as sensitive features."""

import json
import pickle

import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from skfair.metrics import MetricTable
from skfair.postprocessing import GroupThresholdClassifier
from skfair.subgroups import SubgroupReport, find_subgroups


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 2000
    frame = pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "age": rng.integers(18, 80, n),
            "region": rng.choice(["n", "s", "e"], n),
        }
    )
    y_true = rng.integers(0, 2, n)
    worse = (frame.sex == "F") & (frame.region == "e")
    y_pred = np.where(rng.random(n) < np.where(worse, 0.4, 0.1), 1 - y_true, y_true)
    return frame, y_true, y_pred


def test_report_forms(data):
    frame, y_true, y_pred = data
    report = find_subgroups(y_true, y_pred, features=frame, k=4)
    assert isinstance(report, SubgroupReport)
    assert len(report) == 4
    table = report.to_frame()
    assert list(table.columns) == [
        "description",
        "conditions",
        "level",
        "n",
        "n_rated",
        "value",
        "rest_value",
        "gap",
        "gap_low",
        "gap_high",
        "score",
        "p_value",
        "q_value",
        "significant",
    ]
    plain = report.to_dict()
    assert json.loads(json.dumps(plain)) == plain
    assert set(plain) >= {
        "objective",
        "metric",
        "direction",
        "alpha",
        "correction",
        "n_tests",
        "n_samples",
        "overall_value",
        "columns",
        "subgroups",
    }
    top = plain["subgroups"][0]
    assert top["conditions"] == [
        {"column": "sex", "value": "F"},
        {"column": "region", "value": "e"},
    ]
    assert top["q_value"] <= top["p_value"] * report.n_tests
    assert top["gap_low"] < top["gap"] < top["gap_high"]
    assert plain["columns"][1] == {
        "name": "age",
        "kind": "binned",
        "n_values": 10,
        "missing": False,
    }
    assert "sex = F & region = e" in repr(report)
    restored = pickle.loads(pickle.dumps(report))
    np.testing.assert_array_equal(restored.mask(0), report.mask(0))


def test_mask_and_membership_on_other_rows(data):
    frame, y_true, y_pred = data
    report = find_subgroups(y_true[:1500], y_pred[:1500], features=frame.iloc[:1500], k=3)
    held_out = frame.iloc[1500:]
    mask = report.mask(0, held_out)
    np.testing.assert_array_equal(mask, ((held_out.sex == "F") & (held_out.region == "e")))
    # columns are matched by name, in any order
    np.testing.assert_array_equal(report.mask(0, held_out[["region", "age", "sex"]]), mask)
    labels = report.membership(0, held_out)
    assert set(labels) == {"sex = F & region = e", "rest"}


def test_membership_is_a_sensitive_feature(data):
    frame, y_true, y_pred = data
    report = find_subgroups(y_true, y_pred, features=frame, k=1)
    groups = report.membership(0)
    table = MetricTable(["error_rate"], y_true, y_pred, sensitive_features=groups)
    by_group = dict(zip(table.groups, np.asarray(table.by_group)[:, 0]))
    top = report.subgroups[0]
    np.testing.assert_allclose(by_group[top["description"]], top["value"])
    np.testing.assert_allclose(by_group["rest"], top["rest_value"])
    X = np.column_stack([frame.age, (frame.sex == "F").astype(int)])
    model = FrozenEstimator(LogisticRegression().fit(X, y_true))
    fitted = GroupThresholdClassifier(model, random_state=0).fit(
        X, y_true, sensitive_features=groups
    )
    assert fitted.predict(X, sensitive_features=groups).shape == (len(frame),)


def test_same_result_for_any_n_jobs_and_frame_library(data):
    frame, y_true, y_pred = data
    expected = find_subgroups(y_true, y_pred, features=frame, k=6).to_dict()
    assert find_subgroups(y_true, y_pred, features=frame, k=6, n_jobs=2).to_dict() == expected
    polars = pl.from_pandas(frame)
    assert find_subgroups(y_true, y_pred, features=polars, k=6).to_dict() == expected
    as_dict = {name: frame[name].to_numpy() for name in frame}
    assert find_subgroups(y_true, y_pred, features=as_dict, k=6).to_dict() == expected


def test_sliceline_alpha_one_ranks_by_error_rate(data):
    frame, y_true, y_pred = data
    report = find_subgroups(
        y_true, y_pred, features=frame, objective="sliceline", sliceline_alpha=1.0, k=5
    )
    values = [r["value"] for r in report.subgroups]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"features": {"c": np.ones(100)}}, "single value"),
        ({"features": {"c": np.full(100, np.nan), "d": np.arange(100) % 3}}, "only missing"),
        ({"features": {"c": np.arange(100).astype(str)}}, "100 distinct values"),
        ({"max_level": 3}, "max_level=3 is more than the 2 column"),
        ({"y_true": np.where(np.arange(100) == 7, np.nan, 1.0)}, "NaN"),
        ({"objective": "sliceline", "direction": "both"}, "one direction"),
        ({"objective": "mdss"}, "y_score"),
        ({"y_pred": None}, "needs y_pred"),
        ({"features": np.arange(100)}, "2-D"),
    ],
)
def test_bad_input_gets_a_clear_error(change, message):
    rng = np.random.default_rng(0)
    arguments = {
        "y_true": rng.integers(0, 2, 100),
        "y_pred": rng.integers(0, 2, 100),
        "features": {"a": rng.choice(["x", "y"], 100), "b": rng.choice(["u", "v"], 100)},
        "max_level": 2,
    }
    arguments.update(change)
    if message == "100 distinct values":
        import skfair.subgroups._encode as encode

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(encode, "MAX_VALUES", 50)
            with pytest.raises(ValueError, match=message):
                find_subgroups(**arguments)
        return
    with pytest.raises(ValueError, match=message):
        find_subgroups(**arguments)


def test_many_distinct_values_are_refused_with_the_count():
    n = 100_000
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"100,000 distinct values.*Group rare values"):
        find_subgroups(
            rng.integers(0, 2, n),
            rng.integers(0, 2, n),
            features={"id": np.char.add("id", np.arange(n).astype(str))},
            max_level=1,
        )


@pytest.mark.parametrize(
    "parameter",
    [{"min_support": 0}, {"min_support": -3}, {"k": 0}, {"metric": "accuracy"}, {"alpha": 1.5}],
)
def test_parameters_are_validated(parameter):
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidParameterError):
        find_subgroups(
            rng.integers(0, 2, 50),
            rng.integers(0, 2, 50),
            features={"a": rng.choice(["x", "y"], 50)},
            max_level=1,
            **parameter,
        )


def test_no_errors_makes_sliceline_undefined():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 100)
    with pytest.raises(ValueError, match="no errors"):
        find_subgroups(
            y, y, features={"a": rng.choice(["x", "y"], 100)}, objective="sliceline", max_level=1
        )


def test_a_report_is_not_an_estimator():
    with pytest.raises(TypeError):
        clone(find_subgroups)
