"""Dataframes of any library (polars, pyarrow, modin, cuDF, ...) through narwhals.

skfair's in-memory code reads pandas DataFrames and Series (column names, categoricals) and
numpy arrays. :func:`as_supported_frame` converts any other eager dataframe or series that
narwhals knows to pandas (or, without pandas, to a dict of numpy columns / a numpy array), so
that a polars or pyarrow input works wherever a pandas one does. numpy arrays, lists, pandas
objects and dask collections are returned unchanged, without importing narwhals.
"""

from __future__ import annotations

# Top-level packages whose objects skfair reads natively.
_NATIVE = {"numpy", "pandas", "builtins", "dask", "scipy"}


def as_supported_frame(data):
    """``data`` as pandas (or numpy/dict) when it is another library's dataframe or series."""
    if type(data).__module__.partition(".")[0] in _NATIVE:
        return data
    import narwhals as nw

    converted = nw.from_native(data, eager_only=True, allow_series=True, pass_through=True)
    if converted is data:  # not a dataframe narwhals knows
        return data
    try:
        return converted.to_pandas()
    except ImportError:  # pragma: no cover - pandas is in the test extra
        if isinstance(converted, nw.Series):
            return converted.to_numpy()
        return {name: converted[name].to_numpy() for name in converted.columns}
