"""The features of the audit's csv file, in the form the plain model is trained on.

The file is read by :mod:`skfair.datasets._csv` into typed columns (int64, float64, or objects with
equal strings shared). :func:`feature_rows` takes rows of them without turning numbers into
Python objects when pandas is installed: a DataFrame keeps 8 bytes a value, where a 2-D object
array (the form without pandas, an optional extra) holds a pointer and a boxed number for
each, four times as much.
"""

from __future__ import annotations

import numpy as np


def feature_rows(columns, names, rows):
    """Rows ``rows`` of the columns ``names``: a typed DataFrame, or an object array.

    Parameters
    ----------
    columns : dict of str to ndarray
        The file's columns.
    names : list of str
        The feature columns, in order.
    rows : ndarray of int
        The rows to take.

    Returns
    -------
    DataFrame or ndarray of shape (len(rows), len(names))
        A DataFrame (columns keep their dtypes; text stays object, not pandas' string dtype)
        when pandas is installed, else an object array.
    """
    try:
        import pandas as pd
    except ImportError:
        X = np.empty((len(rows), len(names)), dtype=object)
        for j, name in enumerate(names):
            X[:, j] = columns[name][rows]
        return X
    return pd.DataFrame(
        {name: pd.Series(columns[name][rows], dtype=columns[name].dtype) for name in names}
    )
