"""Rows identified by content: codes against a brute-force comparison of every pair of rows."""

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from skfair._rows import row_codes


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
