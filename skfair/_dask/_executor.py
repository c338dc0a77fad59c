"""The executor: a two-phase statistic of :mod:`skfair._stats` computed over the partitions.

A statistic has three methods: ``chunk`` (what one chunk of rows produces: a small table
whose size does not grow with the chunk), ``merge`` (how the results of several chunks add
up) and ``formula`` (what the merged result gives). :func:`reduce_blocks` maps the chunk
phase over aligned partitions, merges the results in a tree of ``_MERGE_FAN_IN``-way merges
on the workers, and returns ``formula`` of the one merged result: only that small result
ever reaches the client. The executor knows nothing of the metrics or repairs that use it.

Errors raised while a partition is checked name the row of the whole data: the partition's
first row is known from its chunk sizes, or, for partitions of unknown length, the partition
that failed is found, the rows before it counted, and its check run again at that offset.
"""

from __future__ import annotations

from dataclasses import dataclass

from skfair._dask._detect import import_dask, is_dask_collection
from skfair._utils._groups import rows_from

# Results merged at once in each node of the reduction tree.
_MERGE_FAN_IN = 8


def reduce_blocks(statistic, blocks, chunk=None, **kwargs):
    """``statistic.formula`` of the merged ``chunk(statistic, *parts, **kwargs)`` of every block.

    Parameters
    ----------
    statistic : object with ``chunk``, ``merge`` and ``formula``
    blocks : Blocks
        The aligned partitions (:func:`skfair._dask._columns.align`).
    chunk : callable, default=None
        ``chunk(statistic, *parts, **kwargs)`` turns the in-memory parts of one partition
        (numpy arrays or pandas objects, one per column) into the statistic's chunk result;
        it checks the rows (row numbers count from the partition's first row). Default:
        ``statistic.chunk(*parts)``.
    **kwargs
        Passed to ``chunk``; large arrays among them are sent once, as their own task (so
        is a value passed already as a delayed object).

    Returns
    -------
    What ``statistic.formula`` returns.
    """
    dask = import_dask()
    delayed = dask.delayed
    chunk = _default_chunk if chunk is None else chunk
    kwargs = {
        name: value
        if is_dask_collection(value) or getattr(value, "nbytes", 0) <= 1 << 16
        else delayed(value)
        for name, value in kwargs.items()
    }
    # Impure tasks (fresh keys per call): a call never picks up a result left in a cluster's
    # memory by an earlier one.
    results = [
        delayed(_chunk_task, pure=False)(statistic, chunk, index, offset, *parts, **kwargs)
        for index, (offset, parts) in enumerate(zip(blocks.offsets(), blocks.rows(), strict=True))
    ]
    while len(results) > 1:
        results = [
            delayed(_merge_task, pure=False)(statistic, *results[i : i + _MERGE_FAN_IN])
            for i in range(0, len(results), _MERGE_FAN_IN)
        ]
    (merged,) = dask.compute(results[0])
    if isinstance(merged, _Failure):
        _raise_at_data_row(merged, statistic, chunk, blocks, kwargs)
    return statistic.formula(merged)


@dataclass(frozen=True)
class _Failure:
    """A chunk whose rows failed a check, in a partition of unknown offset."""

    index: int
    error: Exception


def _default_chunk(statistic, *parts):
    return statistic.chunk(*parts)


def _chunk_task(statistic, chunk, index, offset, *parts, **kwargs):
    with rows_from(offset or 0):
        try:
            return chunk(statistic, *parts, **kwargs)
        except ValueError as error:
            if offset is None:
                return _Failure(index, error)
            raise


def _merge_task(statistic, *results):
    failures = [result for result in results if isinstance(result, _Failure)]
    if failures:
        return min(failures, key=lambda failure: failure.index)  # the first in data order
    return statistic.merge(list(results))


def _raise_at_data_row(failure, statistic, chunk, blocks, kwargs):
    """Check the failed partition again, its rows numbered from its place in the data."""
    dask = import_dask()
    offset = blocks.offset_of(failure.index)
    parts, kwargs = dask.compute(blocks.rows()[failure.index], kwargs)
    with rows_from(offset):
        chunk(statistic, *parts, **kwargs)
    raise failure.error
