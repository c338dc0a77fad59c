"""polars and pyarrow inputs work wherever pandas ones do (through narwhals)."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from skfair import metrics
from skfair._utils._frames import as_supported_frame


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    n = 400
    return pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "race": rng.choice(["a", "b", "c"], n),
            "x": rng.normal(size=n),
            "y": rng.integers(0, 2, n),
            "pred": rng.integers(0, 2, n),
        }
    )


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_sensitive_features_from_other_libraries(frame, library):
    convert = pl.from_pandas if library == "polars" else pa.Table.from_pandas
    other = convert(frame[["sex", "race"]])
    expected = metrics.group_summary(
        frame.y, frame.pred, sensitive_features=frame[["sex", "race"]], as_frame=True
    )
    got = metrics.group_summary(frame.y, frame.pred, sensitive_features=other, as_frame=True)
    pd.testing.assert_frame_equal(got, expected)
    series = pl.from_pandas(frame.sex) if library == "polars" else pa.chunked_array([frame.sex])
    assert metrics.statistical_parity_difference(
        None, frame.pred, sensitive_features=series, privileged_group="F"
    ) == metrics.statistical_parity_difference(
        None, frame.pred, sensitive_features=frame.sex, privileged_group="F"
    )


def test_polars_series_keeps_its_name(frame):
    summary = metrics.group_summary(
        None, frame.pred, sensitive_features=pl.from_pandas(frame.sex), as_frame=True
    )
    assert summary.index.name == "sex"


def test_sensitive_column_of_a_polars_frame(frame):
    from skfair._utils._groups import split_sensitive_column

    sensitive, rest = split_sensitive_column(pl.from_pandas(frame[["x", "sex"]]), "sex")
    expected_sensitive, expected_rest = split_sensitive_column(frame[["x", "sex"]], "sex")
    pd.testing.assert_series_equal(sensitive, expected_sensitive)
    pd.testing.assert_frame_equal(rest, expected_rest)


def test_native_inputs_pass_through_unchanged(frame):
    array = np.arange(3)
    assert as_supported_frame(array) is array
    assert as_supported_frame(frame) is frame
    values = [1, 2]
    assert as_supported_frame(values) is values
