"""Rows identified by their content, exactly: integer codes per column and per row.

Codes are canonical: they follow the sorted order of the values (and of the rows), not the
order in which rows come, so two inputs holding the same rows in any order get the same codes
for the same contents.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import sparse

from skfair._utils._groups import column_codes


def row_codes(X):
    """Integer code of each row of X: equal codes exactly when the rows are equal.

    X is a 2-D array, a pandas DataFrame or a scipy sparse matrix. Values are compared by value
    (0.0 equals -0.0, and every NaN is one value).
    """
    if sparse.issparse(X):
        matrix = _sparse_row_matrix(X)
    else:
        n_rows, n_columns = X.shape
        columns = [
            column_codes(X.iloc[:, j].to_numpy() if hasattr(X, "iloc") else np.asarray(X)[:, j])
            for j in range(n_columns)
        ]
        if math.prod(n_values for n_values, _ in columns) < 2**63:
            # One mixed-radix key per row (its rank is the row's rank in lexicographic order,
            # so the codes are those of the rows' unique below): one int64 array to sort,
            # not an n_rows x n_columns matrix.
            key = np.zeros(n_rows, dtype=np.int64)
            for n_values, codes in columns:
                key = key * n_values + codes
            _, codes = np.unique(key, return_inverse=True)
            return codes.reshape(-1)
        matrix = np.column_stack([codes for _, codes in columns]).astype(np.int64, copy=False)
    if matrix.shape[1] == 0:
        return np.zeros(matrix.shape[0], dtype=np.int64)
    _, codes = np.unique(matrix, axis=0, return_inverse=True)
    return codes.reshape(-1)


def _sparse_row_matrix(X):
    """Each row's stored entries (column indices, then value bits), padded to one width."""
    csr = sparse.csr_array(X, dtype=np.float64, copy=True)
    csr.sum_duplicates()  # also sorts the indices of every row
    csr.eliminate_zeros()
    n_rows = csr.shape[0]
    counts = np.diff(csr.indptr)
    width = int(counts.max()) if n_rows else 0
    indices = np.full((n_rows, width), -1, dtype=np.int64)
    bits = np.zeros((n_rows, width), dtype=np.int64)
    rows = np.repeat(np.arange(n_rows), counts)
    positions = np.arange(csr.nnz) - np.repeat(csr.indptr[:-1], counts)
    indices[rows, positions] = csr.indices
    # + 0.0 turns -0.0 into 0.0, so that values compare as in the dense case.
    bits[rows, positions] = (csr.data + 0.0).view(np.int64)
    return np.column_stack([indices, bits])
