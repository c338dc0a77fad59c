"""Recognise dask collections without importing dask for everyone else.

A numpy or pandas user never pays for dask: :func:`is_dask_collection` looks dask up in
``sys.modules`` (:mod:`skfair._utils._frames`), and :func:`import_dask` imports it only once a dask
collection has arrived.
"""

from __future__ import annotations

from skfair._utils._frames import is_dask_collection

__all__ = ["import_dask", "is_dask_collection"]


def import_dask():
    """``dask`` itself, or an ImportError naming the ``dask`` extra."""
    try:
        import dask
        import dask.array  # noqa: F401
    except ImportError as error:  # pragma: no cover - dask is in the test extra
        from skfair._utils._compat import install_hint

        raise ImportError(
            f"This input is a dask collection, which needs dask: {install_hint('dask')}."
        ) from error
    return dask
