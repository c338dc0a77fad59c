"""Repairs at scale: fit from the summed table, transform block by block on fixed row blocks.

``fit`` on dask input reduces the calibration data to its distinct rows of (sensitive values,
scores) with their counts (or summed weights) and fits the in-memory repair on that weighted
table: a barycenter map depends on the data only through the groups' weighted ECDFs, which
the table holds exactly. Continuous scores have about as many distinct values as rows; round
them first (e.g. ``S.round(4)``), which gives exactly the in-memory fit on the rounded scores.

``transform`` on dask input returns a lazy dask array: the rows are cut into blocks of
``_BLOCK_ROWS`` rows, and each block is repaired by the small fitted object at its global row
offset (``_transform(..., row_offset=)``), whose random numbers are keyed on the seed and each
row's global position. The output is therefore exactly the in-memory ``transform`` of the whole
data, whatever the chunking or partitioning.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np

from skfair._dask._columns import series_to_dask_array, split_argument
from skfair._dask._detect import import_dask, is_dask_collection

# The hint of the error raised by fit_transform (the in-sample path) on dask input.
IN_SAMPLE_ON_DASK = (
    "It ranks all calibration rows together. Use fit(S).transform(S), which reads the "
    "calibration data as a table and repairs block by block."
)
# Rows per block of a distributed transform.
_BLOCK_ROWS = 1 << 20


def uses_dask(*values):
    """Whether any of ``values`` is a dask collection (never imports dask)."""
    return any(is_dask_collection(value) for value in values)


def fit_from_table(estimator, X, y, sensitive_features, sample_weight):
    """Fit ``estimator`` (a BarycenterRepair) on the table of its dask inputs."""
    from skfair._dask._reductions import reduce_arguments
    from skfair._groups import factorize_groups, split_sensitive_column
    from skfair.postprocessing._barycenter import BarycenterRepair

    if not isinstance(estimator, BarycenterRepair):
        raise TypeError(
            f"{type(estimator).__name__}.fit ranks the calibration rows within groups, which "
            "a table of distinct rows cannot do: fit it on an in-memory calibration sample "
            "(e.g. ddf.sample(frac=...).compute()); transform then accepts dask input."
        )
    if estimator.ties == "jitter":
        raise ValueError(
            'ties="jitter" draws noise for every calibration row; on dask input use '
            'ties="randomized" (the default) or "none", or fit in memory.'
        )
    arguments = {
        "X": X,
        "y": y,
        "sensitive_features": sensitive_features,
        "sample_weight": sample_weight,
    }
    table = reduce_arguments(arguments, ("X", "y", "sensitive_features"))
    sensitive = arguments["sensitive_features"]
    if estimator.sensitive_column is not None:
        sensitive, _ = split_sensitive_column(arguments["X"], estimator.sensitive_column)
    n_attributes = (
        0 if sensitive is None else np.shape(sensitive)[1] if np.ndim(sensitive) > 1 else 1
    )
    if n_attributes > 1 and np.any(np.asarray(estimator.epsilon) > 0):
        raise ValueError(
            "A sequential repair (several attributes with epsilon > 0) fits each step on the "
            "in-sample repaired rows of the step before, which needs the rows themselves: fit "
            "it in memory, or repair the joint groups (epsilon=0) on dask input."
        )
    estimator.fit(
        arguments["X"],
        arguments["y"],
        sensitive_features=arguments["sensitive_features"],
        sample_weight=arguments["sample_weight"],
    )
    if sensitive is not None:
        # Calibration rows per group: the table's counts, not its number of distinct rows.
        groups = factorize_groups(sensitive, n_samples=table.n_rows)
        estimator.group_counts_ = np.rint(groups.counts(table.count)).astype(np.int64)
    else:
        estimator.group_counts_ = np.array([int(table.count.sum())])
    return estimator


def transform_blocks(estimator, S, sensitive_features):
    """Lazy repaired outputs of a dask ``S``, block by block at the blocks' row offsets."""
    dask = import_dask()
    import dask.array as da

    n_rows = _n_rows(S, da)
    block_rows = tuple(
        min(_BLOCK_ROWS, n_rows - start) for start in range(0, n_rows, _BLOCK_ROWS)
    ) or (0,)
    S_blocks = _row_blocks(S, block_rows, dask, da)
    sensitive_blocks = (
        [None] * len(block_rows)
        if sensitive_features is None
        else _row_blocks(sensitive_features, block_rows, dask, da)
    )
    n_outputs = _n_outputs(estimator, _n_columns(S))
    offsets = np.concatenate([[0], np.cumsum(block_rows)[:-1]]).tolist()
    blocks = [
        da.from_delayed(
            dask.delayed(_transform_block, pure=True)(estimator, block, sensitive, offset),
            shape=(size, n_outputs),
            dtype=np.float64,
        )
        for block, sensitive, offset, size in zip(
            S_blocks, sensitive_blocks, offsets, block_rows, strict=True
        )
    ]
    return da.concatenate(blocks, axis=0)


def _n_rows(S, da):
    if hasattr(S, "to_dask_array"):
        return int(S.shape[0].compute()) if is_dask_collection(S.shape[0]) else len(S)
    shape0 = S.shape[0]
    if isinstance(shape0, float) and np.isnan(shape0):
        return S.compute_chunk_sizes().shape[0]
    return int(shape0)


def _n_columns(S):
    return len(S.columns) if hasattr(S, "columns") else S.shape[1]


def _row_blocks(value, block_rows, dask, da):
    """Delayed in-memory blocks of ``value`` with ``block_rows`` rows each, in order.

    A dask (or numpy) array is rechunked as a whole; a DataFrame, Series or dict column by
    column, each block rebuilt with its names and categories.
    """
    if (
        not hasattr(value, "columns")
        and getattr(value, "ndim", 1) == 2
        and not isinstance(value, dict)
    ):
        array = value if is_dask_collection(value) else da.from_array(np.asarray(value))
        if any(np.isnan(size) for size in array.chunks[0]):
            array = array.compute_chunk_sizes()
        return list(array.rechunk((block_rows, -1)).to_delayed().ravel())
    argument = split_argument(value)
    lengths = None
    if hasattr(value, "map_partitions") and is_dask_collection(value):
        lengths = tuple(int(n) for n in value.map_partitions(len).compute())
    columns = []
    for column in argument.columns:
        if _is_dask_series(column):
            column = series_to_dask_array(column, lengths=lengths or True)
        elif not is_dask_collection(column):
            column = da.from_array(np.asarray(column), chunks=(block_rows,))
        columns.append(list(column.rechunk((block_rows,)).to_delayed().ravel()))
    # The rebuild recipe without the dask columns themselves, which the task must not carry.
    recipe = dataclasses.replace(argument, columns=[None] * argument.n_columns)
    return [dask.delayed(_rebuild)(recipe, *parts) for parts in zip(*columns, strict=True)]


def predict_blocks(wrapper, method, X, sensitive_features):
    """Lazy ``wrapper.method(X)`` of a RepairedClassifier / RepairedRegressor on dask ``X``.

    The model and its repair run block by block in memory (the shape of dask-ml's
    ``ParallelPostFit``), each block's repair at the block's global row offset, as in
    :func:`transform_blocks`.
    """
    dask = import_dask()
    import dask.array as da

    n_rows = _n_rows(X, da)
    block_rows = tuple(
        min(_BLOCK_ROWS, n_rows - start) for start in range(0, n_rows, _BLOCK_ROWS)
    ) or (0,)
    X_blocks = _row_blocks(X, block_rows, dask, da)
    sensitive_blocks = (
        [None] * len(block_rows)
        if sensitive_features is None
        else _row_blocks(sensitive_features, block_rows, dask, da)
    )
    # The first row, in memory, gives the output's trailing shape and dtype.
    sample = getattr(wrapper, method)(
        _first_row(X), sensitive_features=_first_row(sensitive_features)
    )
    offsets = np.concatenate([[0], np.cumsum(block_rows)[:-1]]).tolist()
    blocks = [
        da.from_delayed(
            dask.delayed(_predict_block, pure=True)(wrapper, method, block, sensitive, offset),
            shape=(size, *sample.shape[1:]),
            dtype=sample.dtype,
        )
        for block, sensitive, offset, size in zip(
            X_blocks, sensitive_blocks, offsets, block_rows, strict=True
        )
    ]
    return da.concatenate(blocks, axis=0)


def _predict_block(wrapper, method, X, sensitive_features, row_offset):
    wrapper = copy.copy(wrapper)
    wrapper.repair_ = _AtOffset(wrapper.repair_, row_offset)
    return getattr(wrapper, method)(X, sensitive_features=sensitive_features)


class _AtOffset:
    """A fitted repair whose ``transform`` repairs rows starting at ``row_offset``."""

    def __init__(self, repair, row_offset):
        self.repair = repair
        self.row_offset = row_offset

    def transform(self, X, *, sensitive_features=None):
        return self.repair._transform(X, sensitive_features, row_offset=self.row_offset)


def _first_row(value):
    if value is None:
        return None
    if isinstance(value, dict):
        return {name: _first_row(column) for name, column in value.items()}
    if hasattr(value, "head") and is_dask_collection(value):
        return value.head(1, npartitions=-1)
    if is_dask_collection(value):
        return value[:1].compute()
    return value.iloc[:1] if hasattr(value, "iloc") else np.asarray(value)[:1]


def _transform_block(estimator, block, sensitive_features, row_offset):
    return estimator._transform(block, sensitive_features, row_offset=row_offset)


def _n_outputs(estimator, n_columns):
    if estimator.sensitive_column is None:
        return n_columns
    selected = estimator.sensitive_column
    return n_columns - (len(selected) if isinstance(selected, (list, tuple)) else 1)


def _is_dask_series(value):
    return is_dask_collection(value) and hasattr(value, "to_dask_array") and value.ndim == 1


def _rebuild(argument, *parts):
    from skfair._dask._columns import as_numpy

    return argument.rebuild([as_numpy(part) for part in parts])
