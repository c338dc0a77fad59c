"""Dataframes of any library (polars, pyarrow, modin, cuDF, ...) through narwhals, and dask.

skfair's in-memory code reads pandas DataFrames and Series (column names, categoricals) and
numpy arrays. :func:`as_supported_frame` converts any other dataframe or series that narwhals
knows to pandas (or, without pandas, to a dict of numpy columns / a numpy array), so that a
polars or pyarrow input works wherever a pandas one does. The rule:

- eager dataframes and series (polars ``DataFrame`` / ``Series``, pyarrow ``Table`` /
  ``ChunkedArray``, ...) are converted, names and values kept;
- a lazy query (polars ``LazyFrame``, and the lazy frames of the other libraries narwhals
  reads) is collected first: it is the user's query, and its result is what they passed.
  Dask collections are not collected: skfair reads them partition by partition;
- numpy arrays, lists, pandas objects and dask collections are returned unchanged, without
  importing narwhals.

:func:`is_dask_collection` recognises dask collections without importing dask.
"""

from __future__ import annotations

import sys

# Top-level packages whose objects skfair reads natively (skfair's own included).
_NATIVE = {"numpy", "pandas", "builtins", "dask", "scipy", "skfair"}


def is_dask_collection(value):
    """Whether ``value`` (or a value of a dict) is a dask collection; never imports dask.

    A value can only be a dask collection if dask has been imported, so ``dask`` is looked up
    in ``sys.modules``: a numpy or pandas user never pays for dask.
    """
    dask = sys.modules.get("dask")
    if dask is None:
        return False
    if isinstance(value, dict):
        return any(dask.is_dask_collection(item) for item in value.values())
    return dask.is_dask_collection(value)


def as_supported_frame(data):
    """``data`` as pandas (or numpy/dict) when it is another library's dataframe or series."""
    if type(data).__module__.partition(".")[0] in _NATIVE:
        return data
    import narwhals as nw

    converted = nw.from_native(data, allow_series=True, pass_through=True)
    if converted is data:  # not a dataframe narwhals knows
        return data
    if isinstance(converted, nw.LazyFrame):
        converted = converted.collect()
    try:
        return converted.to_pandas()
    except ImportError:  # pragma: no cover - pandas is in the test extra
        if isinstance(converted, nw.Series):
            return converted.to_numpy()
        return {name: converted[name].to_numpy() for name in converted.columns}


def collect_lazy(data):
    """``data`` collected (and converted) when it is a lazy frame of another library than
    dask (a polars LazyFrame, ...); anything else unchanged."""
    if is_dask_collection(data) or not hasattr(data, "collect") or isinstance(data, dict):
        return data
    return as_supported_frame(data)


def refuse_dask(**values):
    """Raise a TypeError naming the first of ``values`` that is a dask collection.

    The safety net of every in-memory check: a function that has not said what it does with
    dask input (``skfair._dask.dask_dispatch``) must not turn a collection larger than memory
    into an array silently.
    """
    for name, value in values.items():
        if is_dask_collection(value):
            raise TypeError(
                f"{name} is a dask collection, but this function reads its rows in memory and "
                "does not accept dask input. Compute it on an in-memory sample (e.g. "
                "ddf.sample(frac=0.01).compute()); the functions that take dask collections "
                "say so in their documentation."
            )
