"""Recognise dask collections without importing dask for everyone else.

A numpy or pandas user never pays for dask: a value can only be a dask collection if the module
that defines it has been imported, so ``dask`` is looked up in ``sys.modules`` and imported
from there only.
"""

from __future__ import annotations

import sys


def is_dask_collection(value):
    """Whether ``value`` (or a value of a dict) is a dask collection; never imports dask."""
    dask = sys.modules.get("dask")
    if dask is None:
        return False
    if isinstance(value, dict):
        return any(dask.is_dask_collection(item) for item in value.values())
    return dask.is_dask_collection(value)


def import_dask():
    """``dask`` itself, or an ImportError naming the ``dask`` extra."""
    try:
        import dask
        import dask.array  # noqa: F401
    except ImportError as error:  # pragma: no cover - dask is in the test extra
        from skfair._compat import install_hint

        raise ImportError(
            f"This input is a dask collection, which needs dask: {install_hint('dask')}."
        ) from error
    return dask


def check_in_memory(what, *values, hint):
    """Raise a TypeError when one of ``values`` is a dask collection: ``what`` needs all rows
    in memory; ``hint`` says what to do instead."""
    if any(is_dask_collection(value) for value in values):
        raise TypeError(f"{what} stays in memory and does not accept dask collections. {hint}")
