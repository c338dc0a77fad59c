"""Lazy per-row outputs of dask inputs: a function applied block by block, nothing computed.

:func:`map_row_blocks` returns a dask array whose block ``i`` is ``function(*parts_i,
row_offset=offset_i)``: the parts are the in-memory blocks of the inputs (a dask DataFrame's
partitions stay pandas DataFrames, with their column names and categories), and ``offset_i``
is the position of the block's first row in the whole data. Offsets come from the known chunk
sizes, or, for blocks of unknown length, from a running sum of the blocks' lengths that is
part of the graph (block ``i`` waits for the lengths of the blocks before it only). Building
the array computes nothing; unknown lengths stay unknown (NaN chunks) in the result.
"""

from __future__ import annotations

import dataclasses
import operator

import numpy as np

from skfair._dask._columns import align, as_numpy, split_argument
from skfair._dask._detect import import_dask, is_dask_collection
from skfair._dask._executor import reduce_blocks


def map_row_blocks(function, inputs, *, trailing_shape=(), dtype=np.float64, **kwargs):
    """Lazy ``function(*blocks, row_offset=..., **kwargs)`` over the row blocks of ``inputs``.

    Parameters
    ----------
    function : callable
        Called on the in-memory blocks of ``inputs`` (None for a None input) and
        ``row_offset=``; returns the block's output rows.
    inputs : list
        Per-sample inputs, aligned row by row: dask or in-memory arrays, Series, DataFrames,
        dicts of columns, or None.
    trailing_shape : tuple of int, default=()
        Shape of one output row.
    dtype : numpy dtype, default=float64
    **kwargs
        Passed to ``function`` (the small fitted object, typically).

    Returns
    -------
    dask.array.Array of shape (n_samples, *trailing_shape)
    """
    dask = import_dask()
    import dask.array as da

    units, recipes = _units(inputs)
    blocks = align(units)
    offsets = blocks.offsets()
    if blocks.chunks is None:
        offsets = _running_offsets(dask, blocks)
    sizes = blocks.chunks or [np.nan] * blocks.n_blocks
    kwargs = {name: dask.delayed(value) for name, value in kwargs.items()}
    outputs = []
    for parts, offset, size in zip(blocks.rows(), offsets, sizes, strict=True):
        rebuilt, position = [], 0
        for recipe in recipes:
            if recipe is None:
                rebuilt.append(None)
            elif recipe is _WHOLE:
                rebuilt.append(parts[position])
                position += 1
            else:
                columns = parts[position : position + recipe.n_columns]
                rebuilt.append(dask.delayed(_rebuild)(recipe, *columns))
                position += recipe.n_columns
        task = dask.delayed(function, pure=True)(*rebuilt, row_offset=offset, **kwargs)
        outputs.append(da.from_delayed(task, shape=(size, *trailing_shape), dtype=dtype))
    return da.concatenate(outputs, axis=0)


def reduce_row_blocks(statistic, inputs, chunk, **kwargs):
    """``statistic.formula`` of the merged ``chunk(statistic, *blocks, **kwargs)`` over the
    row blocks of ``inputs`` (the reduction of :func:`map_row_blocks`' blocks).

    ``inputs`` are as for :func:`map_row_blocks`; ``chunk`` gets each block's inputs in
    memory (None for a None input, a dict of columns rebuilt) and returns the statistic's
    chunk result. See :func:`skfair._dask._executor.reduce_blocks`.
    """
    units, recipes = _units(inputs)
    return reduce_blocks(
        statistic, align(units), _rebuilt_chunk, recipes=tuple(recipes), inner=chunk, **kwargs
    )


def _rebuilt_chunk(statistic, *parts, recipes, inner, **kwargs):
    rebuilt, position = [], 0
    for recipe in recipes:
        if recipe is None:
            rebuilt.append(None)
        elif recipe == _WHOLE:
            rebuilt.append(parts[position])
            position += 1
        else:
            rebuilt.append(_rebuild(recipe, *parts[position : position + recipe.n_columns]))
            position += recipe.n_columns
    return inner(statistic, *rebuilt, **kwargs)


def _units(inputs):
    """The columns to align (a dict split into its columns) and how to rebuild each input."""
    units, recipes = [], []
    for value in inputs:
        if value is None:
            recipes.append(None)
        elif isinstance(value, dict):
            argument = split_argument(value)
            recipes.append(dataclasses.replace(argument, columns=[None] * argument.n_columns))
            units.extend(argument.columns)
        else:
            recipes.append(_WHOLE)
            units.append(value)
    return units, recipes


# Marks an input passed as its own blocks (not split into columns); a string, so that it
# is the same object after pickling to a worker.
_WHOLE = "whole"


def _running_offsets(dask, blocks):
    """Delayed first row of each block: 0, then the previous offset plus the previous
    block's length (a chain, so that block ``i`` needs the lengths before it only)."""
    offsets = [0]
    for part in blocks.parts[0][:-1]:
        length = dask.delayed(_length)(part)
        offsets.append(dask.delayed(operator.add)(offsets[-1], length))
    return offsets


def _length(part):
    return len(part) if hasattr(part, "iloc") else np.shape(part)[0]


def _rebuild(argument, *parts):
    return argument.rebuild([as_numpy(part) for part in parts])


def uses_dask(*values):
    """Whether any of ``values`` is a dask collection (never imports dask)."""
    return any(is_dask_collection(value) for value in values)
