"""Per-sample arguments split into 1-D columns, aligned by partition, and rebuilt in memory.

A metric's per-sample arguments (labels, scores, sensitive features, weights) arrive as dask
arrays, dask Series or DataFrames, dicts of them, or in-memory arrays next to dask ones. Each is
split into 1-D columns; all columns are aligned partition by partition; after the reduction,
:class:`Argument.rebuild` turns the key columns of the table back into the argument's original
form (a named Series or DataFrame keeps its names, a categorical its categories), so that the
in-memory function reports groups exactly as it would on the whole data.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field

import numpy as np

from skfair._dask._detect import import_dask, is_dask_collection

_UNKNOWN_CATEGORIES = "__UNKNOWN_CATEGORIES__"


@dataclass
class Argument:
    """How one argument was split into columns, and how to rebuild it from table keys."""

    kind: str  # "vector", "matrix", "series", "frame", "dict"
    columns: list
    names: list = field(default_factory=list)
    categories: list = field(default_factory=list)
    # How the values were encoded per partition: None, ("grid", resolution) (the keys are
    # grid indices, the values index * resolution) or ("binned", inner cut-offs) (the keys
    # are representatives of the bins).
    encoding: tuple | None = None

    @property
    def n_columns(self):
        return len(self.columns)

    def rebuild(self, keys):
        if self.encoding is not None and self.encoding[0] == "grid":
            keys = [k.astype(np.float64) * self.encoding[1] for k in keys]
        keys = [_restore_categorical(k, c) for k, c in zip(keys, self.categories, strict=True)]
        if self.kind == "vector":
            return keys[0]
        if self.kind == "matrix":
            return np.column_stack(keys)
        if self.kind == "dict":
            return dict(zip(self.names, keys, strict=True))
        import pandas as pd

        if self.kind == "series":
            return pd.Series(keys[0], name=self.names[0])
        return pd.DataFrame(dict(zip(self.names, keys, strict=True)), columns=self.names)


@dataclass(frozen=True)
class GridScores:
    """Scores to be counted as integer indices on the grid ``k * resolution``."""

    scores: object
    resolution: float


@dataclass(frozen=True)
class BinnedScores:
    """Outputs to be replaced, per partition, by a representative of their bin ``(c_{k-1},
    c_k]`` at the inner cut-offs ``inner``: ``c_k`` itself, or just above the last one."""

    scores: object
    inner: np.ndarray


def split_argument(value, *, column=None):
    """An :class:`Argument` for ``value``; ``column`` picks one column of a 2-D array first."""
    if isinstance(value, GridScores):
        argument = split_argument(value.scores, column=column)
        return dataclasses.replace(argument, encoding=("grid", value.resolution))
    if isinstance(value, BinnedScores):
        argument = split_argument(value.scores, column=column)
        return dataclasses.replace(argument, encoding=("binned", value.inner))
    if isinstance(value, dict):
        names = list(value)
        columns = [_one_column(v) for v in value.values()]
        return Argument("dict", columns, names, [_categories(c) for c in columns])
    if _is_frame(value):
        names = list(value.columns)
        columns = [value[name] for name in names]
        return Argument("frame", columns, names, [_categories(c) for c in columns])
    if _is_series(value):
        return Argument("series", [value], [value.name], [_categories(value)])
    if not hasattr(value, "ndim"):
        value = np.asarray(value)
    if value.ndim == 2 and column is not None:
        value = value[:, column]
    if value.ndim == 2:
        columns = [value[:, j] for j in range(value.shape[1])]
        return Argument("matrix", columns, categories=[None] * len(columns))
    if value.ndim != 1:
        raise ValueError(f"Expected a 1-D or 2-D per-sample input, got {value.ndim} dimensions.")
    return Argument("vector", [value], categories=[None])


@dataclass
class Blocks:
    """Row blocks of several per-sample columns, aligned: block ``i`` of every column holds the
    same rows.

    Attributes
    ----------
    parts : list of list of Delayed
        One list of delayed in-memory blocks per column.
    chunks : tuple of int or None
        Rows of each block when known; None when some block's length is only known after it
        is computed (dask DataFrames, filtered arrays).
    axes : list of int
        The axis of each column that holds the samples.
    """

    parts: list
    chunks: tuple | None
    axes: list

    @property
    def n_blocks(self):
        return len(self.parts[0])

    def rows(self):
        """The parts of each block, one tuple per block."""
        return list(zip(*self.parts, strict=True))

    def offsets(self):
        """First row of each block, or None for every block when the lengths are unknown."""
        if self.chunks is None:
            return [None] * self.n_blocks
        return np.concatenate([[0], np.cumsum(self.chunks)[:-1]]).astype(int).tolist()

    def offset_of(self, index):
        """First row of block ``index``; unknown lengths are computed for the blocks before it
        only (one pass over them, to name a row in an error)."""
        if self.chunks is not None:
            return int(np.sum(self.chunks[:index]))
        dask = import_dask()
        lengths = dask.compute(
            *[dask.delayed(_n_rows)(part, self.axes[0]) for part in self.parts[0][:index]]
        )
        return int(sum(lengths))


def align(columns, axes=None):
    """:class:`Blocks` of per-sample ``columns`` (dask collections or in-memory arrays).

    Columns with the same number of row blocks are zipped as they are (lengths that disagree
    are caught in each block); otherwise dask arrays are rechunked to the row chunks of the
    first one with known chunks. In-memory columns are cut to those chunks. Lengths are
    computed (one pass, one integer per block) only when nothing else aligns the columns:
    blocks of unknown length next to in-memory columns, or different numbers of blocks.
    Other axes of a column (features, members, classes) are taken whole in each block.
    """
    import_dask()
    import dask.array as da

    axes = [0] * len(columns) if axes is None else list(axes)
    columns = [
        _whole_other_axes(c, axis) if is_dask_collection(c) and not _is_series(c) else c
        for c, axis in zip(columns, axes, strict=True)
    ]
    lazy = [(c, axis) for c, axis in zip(columns, axes) if is_dask_collection(c)]
    known = [_row_chunks(c, axis) for c, axis in lazy if _known(_row_chunks(c, axis))]
    n_blocks = {_n_blocks(c, axis) for c, axis in lazy}
    all_lazy = len(lazy) == len(columns)
    # Frame columns next to arrays: the frame's partition lengths are unknown, so nothing says
    # that its partitions hold the rows of the arrays' chunks.
    frames_and_arrays = len({_is_series(c) or _is_frame(c) for c, _ in lazy}) > 1
    if (
        len(n_blocks) == 1
        and len({tuple(k) for k in known}) <= 1
        and (all_lazy or known)
        and not frames_and_arrays
    ):
        # Zipped as they are: unknown lengths are checked block by block.
        return _blocks(columns, axes, known[0] if known else None, da)
    reference = None
    for c, axis in lazy:
        row_chunks = _row_chunks(c, axis)
        if _known(row_chunks):
            reference = row_chunks
            break
    aligned = []
    for c, axis in zip(columns, axes, strict=True):
        if is_dask_collection(c):
            c = _with_known_chunks(c, axis)
            if reference is None:
                reference = c.chunks[axis]
        aligned.append(c)
    lengths = {_length(c, axis) for c, axis in zip(aligned, axes, strict=True)}
    if len(lengths) > 1:
        raise ValueError(
            f"Inconsistent numbers of samples across the inputs: {sorted(lengths)}. Pass one "
            "value per sample to each."
        )
    aligned = [
        c.rechunk({axis: reference}) if is_dask_collection(c) else c
        for c, axis in zip(aligned, axes, strict=True)
    ]
    return _blocks(aligned, axes, reference, da)


def _blocks(columns, axes, chunks, da):
    dask = import_dask()
    arrays = [c for c in columns if is_dask_collection(c) and not (_is_series(c) or _is_frame(c))]
    # Arrays are optimised together, so that what they share (the data they are computed
    # from) stays one task. A frame's columns are optimised one by one: each reads its own
    # column (projection), and dask.optimize does not keep a frame column's partitions.
    optimized = dict(zip(map(id, arrays), dask.optimize(*arrays), strict=True))
    parts = []
    for c, axis in zip(columns, axes, strict=True):
        if id(c) in optimized:
            delayed = optimized[id(c)].to_delayed(optimize_graph=False)
            parts.append(list(np.asarray(delayed, dtype=object).ravel()))
        elif is_dask_collection(c):
            parts.append(list(c.to_delayed()))
        else:
            array = _in_memory_column(c)
            pieces = np.split(array, np.cumsum(chunks)[:-1], axis=axis) if chunks else [array]
            parts.append([dask.delayed(piece) for piece in pieces])
    return Blocks(parts, tuple(int(n) for n in chunks) if chunks is not None else None, axes)


def _whole_other_axes(array, axis):
    """A dask array with one chunk along every axis but the sample axis."""
    if getattr(array, "ndim", 1) < 2 or not hasattr(array, "rechunk"):
        return array
    return array.rechunk({a: -1 for a in range(array.ndim) if a != axis})


def _n_blocks(c, axis):
    return c.npartitions if _is_series(c) or _is_frame(c) else c.numblocks[axis]


def _row_chunks(c, axis):
    if _is_series(c) or _is_frame(c):
        return None
    return c.chunks[axis]


def _known(chunks):
    return chunks is not None and not any(np.isnan(size) for size in chunks)


def _with_known_chunks(c, axis):
    """A dask array of ``c`` whose row chunks are known (computed when they are not)."""
    if _is_series(c) or _is_frame(c):
        c = c.to_dask_array(lengths=True) if _is_frame(c) else series_to_dask_array(c)
    if not _known(c.chunks[axis]):
        c = c.compute_chunk_sizes()
    return c


def _length(c, axis):
    return int(c.shape[axis]) if hasattr(c, "shape") else len(c)


def _n_rows(part, axis):
    return np.shape(part)[axis] if not hasattr(part, "iloc") else len(part)


def series_to_dask_array(series):
    """A dask Series as a dask array with known chunks (one small pass for the partition
    lengths; string columns become object)."""
    with warnings.catch_warnings():
        # Dask warns that it converts pandas string dtypes to object: so does .to_numpy().
        warnings.filterwarnings("ignore", message="Dask currently has limited support")
        return series.to_dask_array(lengths=True)


def as_numpy(part):
    """A partition (numpy block or pandas Series) as a 1-D numpy array."""
    if hasattr(part, "to_numpy"):
        return part.to_numpy()
    return np.asarray(part)


def _in_memory_column(value):
    if hasattr(value, "to_numpy") and getattr(value, "ndim", 1) == 1:
        return value.to_numpy()
    return np.asarray(value)


def _one_column(value):
    if not (hasattr(value, "ndim") or _is_series(value)):
        value = np.asarray(value)
    return value


def _is_frame(value):
    return hasattr(value, "columns") and getattr(value, "ndim", None) == 2


def _is_series(value):
    return (
        hasattr(value, "dtype")
        and hasattr(value, "name")
        and hasattr(value, "index")
        and getattr(value, "ndim", None) == 1
    )


def _categories(column):
    dtype = getattr(column, "dtype", None)
    if getattr(dtype, "name", None) != "category":
        return None
    categories = dtype.categories
    if len(categories) == 1 and categories[0] == _UNKNOWN_CATEGORIES:
        return None  # unknown categories: the values themselves decide the order
    return dtype


def _restore_categorical(values, dtype):
    if dtype is None:
        return values
    import pandas as pd

    return pd.Series(pd.Categorical(values, dtype=dtype))
