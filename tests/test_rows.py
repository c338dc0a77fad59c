"""Rows identified by content: codes against a brute-force comparison of every pair of rows."""

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from skfair._utils._rows import row_codes


def _same_rows_by_brute_force(rows):
    n = len(rows)
    return np.array([[rows[i] == rows[j] for j in range(n)] for i in range(n)], dtype=bool)


def _as_tuples(matrix):
    # NaN compares equal to NaN here, as the codes do.
    return [tuple("nan" if v != v else v for v in row) for row in matrix.tolist()]


@pytest.mark.parametrize("seed", range(3))
def test_equal_codes_exactly_for_equal_rows(seed):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 3, size=(40, 3)).astype(float)
    base[rng.random((40, 3)) < 0.1] = np.nan
    codes = row_codes(base)
    same = _same_rows_by_brute_force(_as_tuples(base))
    np.testing.assert_array_equal(codes[:, None] == codes[None, :], same)
    # Sparse and DataFrame inputs (with a string column) give the same partition.
    dense = np.nan_to_num(base, nan=7.0)
    sparse_codes, dense_codes = row_codes(sparse.csr_array(dense)), row_codes(dense)
    np.testing.assert_array_equal(
        sparse_codes[:, None] == sparse_codes[None, :], dense_codes[:, None] == dense_codes[None, :]
    )
    frame = pd.DataFrame(
        {"a": dense[:, 0], "b": np.array(["x", "y", "z"])[dense[:, 1].astype(int) % 3]}
    )
    frame_same = _same_rows_by_brute_force(_as_tuples(frame.to_numpy(dtype=object)))
    frame_codes = row_codes(frame)
    np.testing.assert_array_equal(frame_codes[:, None] == frame_codes[None, :], frame_same)


def test_codes_do_not_depend_on_row_order():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(50, 2)).astype(object)
    X[::5, 1] = "s"
    order = rng.permutation(50)
    np.testing.assert_array_equal(row_codes(X)[order], row_codes(X[order]))


class _NoPandas:
    """A meta path finder for which pandas is not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "pandas":
            raise ImportError("pandas is not installed")


def _without_pandas(monkeypatch):
    """``import pandas`` raises ImportError, as on a base install."""
    import sys

    monkeypatch.delitem(sys.modules, "pandas", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoPandas(), *sys.meta_path])


@pytest.mark.parametrize("pandas_installed", [True, False])
def test_column_codes_follow_the_order_of_values_without_pandas(monkeypatch, pandas_installed):
    from skfair._utils._rows import column_codes

    if not pandas_installed:
        _without_pandas(monkeypatch)
    # Numbers in an object column (a csv read without pandas) sort by value, not as text
    # ("100" < "9"); 1.0 and True equal 1; missing values are one value, coded last.
    numbers = np.array([10, 9, 100, np.nan, 9.0, None, 1, True], dtype=object)
    assert column_codes(numbers) == (5, pytest.approx([2, 1, 3, 4, 1, 4, 0, 0]))
    words = np.array(["b", pd.NA, "a", "b", np.nan], dtype=object)
    n_values, codes = column_codes(words)
    assert n_values == 3
    np.testing.assert_array_equal(codes, [1, 2, 0, 1, 2])
    # Types that do not compare stay distinct: 1 and "1".
    n_values, codes = column_codes(np.array([1, "1", 1, "a"], dtype=object))
    assert n_values == 3 and codes[0] == codes[2] != codes[1]


def test_bootstrap_draws_do_not_depend_on_pandas(monkeypatch):
    """The members' rows are drawn over row codes: the same draws on a base install."""
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from skfair.ensemble import BootstrapEnsemble

    rng = np.random.default_rng(0)
    X = np.empty((300, 2), dtype=object)
    X[:, 0] = rng.integers(0, 120, size=300).tolist()  # ints as Python objects
    X[:, 1] = rng.choice(["a", "b", "c"], size=300)
    X_numeric = np.column_stack([X[:, 0].astype(float), X[:, 1] == "a"])
    y = (X_numeric[:, 0] + 30 * X_numeric[:, 1] > 70).astype(int)

    def samples():
        ensemble = BootstrapEnsemble(
            make_pipeline(
                make_column_transformer((OneHotEncoder(), [1]), remainder="passthrough"),
                LogisticRegression(),
            ),
            n_estimators=5,
            random_state=0,
        ).fit(X, y)
        return np.array(ensemble.estimators_samples_)

    with_pandas = samples()
    _without_pandas(monkeypatch)
    np.testing.assert_array_equal(samples(), with_pandas)
