"""The features of the audit's csv file, in the form the plain model is trained on.

The file is read by :mod:`skfair.datasets._csv` into typed columns (int64, float64, text as
categories, or objects with equal strings shared when a column has too many distinct strings).
:func:`feature_rows` takes rows of them without turning numbers into Python objects when pandas
is installed: a DataFrame keeps 8 bytes a number and text as pandas categoricals (1 or 2 bytes
a value), where a 2-D object array (the form without pandas, an optional extra) holds a
pointer and a boxed number for each, four times as much.
"""

from __future__ import annotations

import numpy as np

from skfair.datasets._csv import TextCategories


def column_rows(column, rows):
    """Rows ``rows`` of a column as a 1-D array; categories as an object array of strings."""
    if isinstance(column, TextCategories):
        return column.objects(rows)
    return column[rows]


def feature_rows(columns, names, rows):
    """Rows ``rows`` of the columns ``names``: a typed DataFrame, or an object array.

    Parameters
    ----------
    columns : dict of str to ndarray or TextCategories
        The file's columns.
    names : list of str
        The feature columns, in order.
    rows : ndarray of int
        The rows to take.

    Returns
    -------
    DataFrame or ndarray of shape (len(rows), len(names))
        A DataFrame (numbers keep their dtypes, categories become pandas categoricals,
        other text stays object) when pandas is installed, else an object array.
    """
    try:
        import pandas as pd
    except ImportError:
        X = np.empty((len(rows), len(names)), dtype=object)
        for j, name in enumerate(names):
            X[:, j] = column_rows(columns[name], rows)
        return X

    def series(column):
        if isinstance(column, TextCategories):
            return pd.Categorical.from_codes(column.codes[rows], categories=column.labels)
        return pd.Series(column[rows], dtype=column.dtype)

    return pd.DataFrame({name: series(columns[name]) for name in names})
