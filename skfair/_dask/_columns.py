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

    kind: str  # "vector", "matrix", "members", "series", "frame", "dict"
    columns: list
    names: list = field(default_factory=list)
    categories: list = field(default_factory=list)
    member_shape: tuple = ()
    scale: float | None = None  # grid scores: the keys are indices, the values index * scale

    @property
    def n_columns(self):
        return len(self.columns)

    def rebuild(self, keys):
        if self.scale is not None:
            keys = [k.astype(np.float64) * self.scale for k in keys]
        keys = [_restore_categorical(k, c) for k, c in zip(keys, self.categories, strict=True)]
        if self.kind == "vector":
            return keys[0]
        if self.kind == "matrix":
            return np.column_stack(keys)
        if self.kind == "members":
            # back to (n_members, n_rows, ...) from one column per member (and class)
            stacked = np.stack(keys, axis=-1)
            return np.moveaxis(stacked.reshape(-1, *self.member_shape), 0, 1)
        if self.kind == "dict":
            return dict(zip(self.names, keys, strict=True))
        import pandas as pd

        if self.kind == "series":
            return pd.Series(keys[0], name=self.names[0])
        return pd.DataFrame(dict(zip(self.names, keys, strict=True)), columns=self.names)


@dataclass(frozen=True)
class GridScores:
    """Scores held as integer indices on the grid ``k * resolution``."""

    index: object
    resolution: float


def split_argument(value, *, column=None, members=False):
    """An :class:`Argument` for ``value``; ``column`` picks one column of a 2-D array first.

    ``members=True`` reads ensemble member outputs of shape ``(n_members, n_samples, ...)``:
    samples on axis 1, one column per member (and class).
    """
    if isinstance(value, GridScores):
        argument = split_argument(value.index, column=column)
        return dataclasses.replace(argument, scale=value.resolution)
    if members:
        if not hasattr(value, "ndim"):
            value = np.asarray(value)
        if value.ndim < 2:
            raise ValueError(
                f"Member outputs must have shape (n_members, n_samples, ...), got {value.shape}."
            )
        samples_first = value.reshape(value.shape[0], value.shape[1], -1).transpose(1, 0, 2)
        n_columns = samples_first.shape[1] * samples_first.shape[2]
        flat = samples_first.reshape(value.shape[1], n_columns)
        columns = [flat[:, j] for j in range(n_columns)]
        member_shape = (value.shape[0], *value.shape[2:])
        return Argument(
            "members", columns, categories=[None] * n_columns, member_shape=member_shape
        )
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


def aligned_partitions(columns):
    """One list of delayed partitions per column, all aligned (same rows in each position).

    Columns of dask DataFrames with the same number of partitions are zipped as they are;
    anything else (dask arrays, in-memory arrays next to dask ones) goes through dask arrays
    rechunked to the chunks of the first dask array.
    """
    import_dask()
    import dask.array as da

    if all(_is_series(c) and is_dask_collection(c) for c in columns):
        n_partitions = {c.npartitions for c in columns}
        if len(n_partitions) == 1:
            return [list(c.to_delayed()) for c in columns]
    arrays = []
    for c in columns:
        if _is_series(c) and is_dask_collection(c):
            c = series_to_dask_array(c)
        arrays.append(c)
    reference = next(a for a in arrays if is_dask_collection(a))
    if any(np.isnan(size) for size in reference.chunks[0]):
        reference = reference.compute_chunk_sizes()
    lengths = {}
    aligned = []
    for index, a in enumerate(arrays):
        if is_dask_collection(a):
            if any(np.isnan(size) for size in a.chunks[0]):
                a = a.compute_chunk_sizes()
        else:
            a = da.from_array(_in_memory_column(a), chunks=(reference.chunks[0],))
        lengths[index] = a.shape[0]
        aligned.append(a)
    if len(set(lengths.values())) > 1:
        raise ValueError(
            f"Inconsistent numbers of samples across the inputs: {sorted(set(lengths.values()))}."
            " Pass one value per sample to each."
        )
    return [list(a.rechunk((reference.chunks[0],)).to_delayed().ravel()) for a in aligned]


def series_to_dask_array(series, lengths=True):
    """A dask Series as a dask array with known chunks (string columns become object);
    ``lengths`` are the partition lengths when known, else True to compute them."""
    with warnings.catch_warnings():
        # Dask warns that it converts pandas string dtypes to object: so does .to_numpy().
        warnings.filterwarnings("ignore", message="Dask currently has limited support")
        return series.to_dask_array(lengths=lengths)


def as_numpy(part):
    """A partition (numpy block or pandas Series) as a 1-D numpy array."""
    if hasattr(part, "to_numpy"):
        return part.to_numpy()
    return np.asarray(part)


def _in_memory_column(value):
    if hasattr(value, "to_numpy"):
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
