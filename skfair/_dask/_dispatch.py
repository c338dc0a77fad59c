"""``dask_dispatch``: one decorator line makes a public metric accept dask collections.

The decorated function is unchanged for in-memory input (one ``sys.modules`` lookup per
call). When a per-sample argument is a dask collection, the call goes to a reduction of
:mod:`skfair._dask._reductions`, which returns what the in-memory function returns.

``resolution=`` (score metrics) rounds the scores to the grid ``k * resolution`` before
anything else, in memory and on dask alike, so a distributed result equals the in-memory
result on the rounded scores exactly, and the rounded table stays small.
"""

from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from skfair._dask._columns import GridScores
from skfair._dask._detect import is_dask_collection
from skfair._dask._reductions import (
    binned_reduction,
    madd_reduction,
    members_reduction,
    summary_reduction,
    table_reduction,
)

_REDUCTIONS = {
    "table": table_reduction,
    "binned": binned_reduction,
    "summary": summary_reduction,
    "madd": madd_reduction,
    "members": members_reduction,
}
_PER_SAMPLE = ("y_true", "y_pred", "y_score", "y_proba", "sensitive_features", "sample_weight")

_RESOLUTION_DOC = """\
    resolution : float, default=None
        Round the scores to the grid ``k * resolution`` (half up) first. The result is exactly
        this function's value on the rounded scores; each score moves by at most
        ``resolution / 2``, so the Wasserstein parts and the quantile gaps move by at most
        ``resolution``, and ``ks_bias`` / ``classifier_bias`` by at most the largest mass of
        a group within one grid cell. On a dask input this keeps the per-partition tables
        small for continuous scores (at most ``1 / resolution`` rows per group on [0, 1]).
"""


def dask_dispatch(reduction="table", *, resolution=False):
    """Decorate a public metric so that dask inputs are reduced to tables first.

    Parameters
    ----------
    reduction : {"table", "binned", "summary", "madd", "members"}, default="table"
        How dask inputs are reduced (see :mod:`skfair._dask._reductions`).
    resolution : bool, default=False
        Whether the metric takes the keyword ``resolution=`` (score metrics).
    """
    reduce = _REDUCTIONS[reduction]

    def decorate(func):
        signature = inspect.signature(func)
        sample_names = [name for name in _PER_SAMPLE if name in signature.parameters]

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            grid = kwargs.pop("resolution", None) if resolution else None
            bound = signature.bind(*args, **kwargs)
            on_dask = any(is_dask_collection(bound.arguments.get(n)) for n in sample_names)
            if grid is not None:
                rounded = grid_indices if on_dask else round_to_grid
                bound.arguments["y_score"] = rounded(bound.arguments["y_score"], grid)
            if not on_dask:
                return func(*bound.args, **bound.kwargs)
            return reduce(func, bound)

        if resolution:
            _add_resolution_parameter(wrapper, signature)
        return wrapper

    return decorate


def round_to_grid(y_score, resolution):
    """``floor(y_score / resolution + 0.5) * resolution``, elementwise."""
    _check_resolution(resolution)
    if not (is_dask_collection(y_score) or hasattr(y_score, "to_numpy")):
        y_score = np.asarray(y_score)
    if getattr(y_score, "dtype", np.dtype(float)).kind not in "biuf":
        raise ValueError(f"y_score must be numeric scores, got dtype {y_score.dtype}.")
    return np.floor(y_score / resolution + 0.5) * resolution


def grid_indices(y_score, resolution):
    """Lazy integer grid indices ``floor(y_score / resolution + 0.5)`` of dask scores.

    The tables then count small integers (one bincount per partition) and the rows are
    rebuilt as ``index * resolution``: bit for bit the values :func:`round_to_grid` gives.
    """
    _check_resolution(resolution)
    index = np.floor(y_score / resolution + 0.5)
    if hasattr(index, "map_partitions"):
        index = index.map_partitions(_finite_indices, meta=(index.name, np.int64))
    else:
        index = index.map_blocks(_finite_indices, dtype=np.int64)
    return GridScores(index, resolution)


def _finite_indices(index):
    values = np.asarray(index)
    finite = np.isfinite(values)
    if not finite.all():
        raise ValueError(
            f"y_score has NaN or infinite values (first at row {np.argmin(finite)} of a partition)."
        )
    out = values.astype(np.int64)
    return (
        index.__class__(out, index=index.index, name=index.name) if hasattr(index, "index") else out
    )


def _check_resolution(resolution):
    if (
        isinstance(resolution, bool)
        or not isinstance(resolution, numbers.Real)
        or not np.isfinite(resolution)
        or resolution <= 0
    ):
        raise ValueError(f"resolution must be a positive finite float, got {resolution!r}.")


def _add_resolution_parameter(wrapper, signature):
    parameters = list(signature.parameters.values())
    parameters.append(inspect.Parameter("resolution", inspect.Parameter.KEYWORD_ONLY, default=None))
    wrapper.__signature__ = signature.replace(parameters=parameters)
    doc = wrapper.__doc__ or ""
    marker = "\n    Returns\n    -------"
    if marker in doc:
        wrapper.__doc__ = doc.replace(marker, _RESOLUTION_DOC + marker, 1)
