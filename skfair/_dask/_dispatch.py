"""``dask_dispatch``: one decorator line says what a public function does with dask input.

The decorated function is unchanged for in-memory input (one ``sys.modules`` lookup per
call). When a per-sample argument is a dask collection, the call goes to the function's
*plan*, ``plan(func, bound)``, given by the layer that owns the function (metrics, repairs):

- :func:`table_plan`: the per-sample arguments are reduced to their frequency table
  (:class:`~skfair._stats._table.DistinctRows`, computed per partition and merged), and the
  in-memory function runs on the table's rows with ``sample_weight=`` their weights. Exact
  for every statistic that depends on the data through weighted counts;
- :func:`refuse`: a ``TypeError`` at once, naming why the rows are needed together and what
  to do instead;
- a plan of the function's own module, built from :func:`reduce_blocks` and the two-phase
  statistics of :mod:`skfair._stats`.

``resolution=`` (score metrics) rounds the scores to the grid ``k * resolution`` before
anything else, in memory and on dask alike, so a distributed result equals the in-memory
result on the rounded scores exactly, and the rounded table stays small.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import textwrap
from dataclasses import dataclass

import numpy as np

from skfair._dask._columns import GridScores, align, as_numpy, split_argument
from skfair._dask._detect import is_dask_collection
from skfair._dask._executor import reduce_blocks
from skfair._stats._table import DistinctRows
from skfair._utils._frames import collect_lazy
from skfair._utils._groups import data_row
from skfair._utils._validation import check_label_values, check_scores

# The per-sample arguments of skfair's public functions.
PER_SAMPLE = (
    "X",
    "y",
    "y_true",
    "y_pred",
    "y_score",
    "y_proba",
    "sensitive_features",
    "control_features",
    "sample_weight",
)
# Arguments read as class labels: their missing values are refused per partition.
_LABELS = ("y_true", "y_pred", "y")
# Largest frequency table collected on the client: 2**21 rows (tens of MB). A table that
# outgrows it holds about one row per sample (continuous values), and an error says so.
MAX_TABLE_ROWS = 1 << 21
# Largest grid index: beyond 2**53 consecutive integers are no longer all float64 values.
_GRID_LIMIT = 2.0**53

_RESOLUTION_DOC = """\
    resolution : float, default=None
        Round the scores to the grid ``k * resolution`` (half up) first. The result is exactly
        this function's value on the rounded scores; each score moves by at most
        ``resolution / 2``, so the Wasserstein parts and the quantile gaps move by at most
        ``resolution``, and ``ks_bias`` / ``classifier_bias`` by at most the largest mass of
        a group within one grid cell. On a dask input this keeps the per-partition tables
        small for continuous scores (at most ``(max - min) / resolution + 1`` rows per group
        and class). The grid must be representable: ``|score| / resolution`` below
        ``2**53``, else a ValueError names the finest usable resolution.
"""
_TABLE_HINT = (
    "Round the continuous column(s) first (e.g. .round(4)), pass resolution= where the "
    "function takes it, or compute on an in-memory sample (e.g. ddf.sample(frac=0.01)"
    ".compute())."
)


def dask_dispatch(plan=None, *, resolution=False, doc=None):
    """Decorate a public function: dask inputs go to ``plan(func, bound)``.

    Parameters
    ----------
    plan : callable, default=None
        ``plan(func, bound)`` with the bound arguments of the call (``bound.arguments`` may
        be changed in place); returns what ``func`` returns. None: :func:`table_plan`, for
        a function that depends on its per-sample inputs through weighted counts only.
    resolution : bool, default=False
        Whether the function takes the keyword ``resolution=`` (score metrics).
    doc : str, default=None
        What the function does with dask input, and the bound on what a partition sends
        (default: the plan's ``doc``); added to the docstring's Notes.
    """
    plan = table_plan() if plan is None else plan
    doc = getattr(plan, "doc", None) if doc is None else doc
    if not doc:
        raise ValueError("dask_dispatch needs a doc: say what a partition computes, and its size.")

    def decorate(func):
        signature = inspect.signature(func)
        sample_names = [name for name in PER_SAMPLE if name in signature.parameters]

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            grid = kwargs.pop("resolution", None) if resolution else None
            bound = signature.bind(*args, **kwargs)
            for name in sample_names:
                if name in bound.arguments:
                    bound.arguments[name] = collect_lazy(bound.arguments[name])
            on_dask = any(is_dask_collection(bound.arguments.get(n)) for n in sample_names)
            if grid is not None:
                check_resolution(grid)
                score = bound.arguments["y_score"]
                bound.arguments["y_score"] = (
                    GridScores(score, grid) if on_dask else round_to_grid(score, grid)
                )
            if not on_dask:
                return func(*bound.args, **bound.kwargs)
            return plan(func, bound)

        if resolution:
            _add_resolution_parameter(wrapper, signature)
        _add_note(wrapper, doc)
        wrapper.__skfair_dask_plan__ = plan
        return wrapper

    return decorate


@dataclass(frozen=True)
class refuse:  # noqa: N801 - a plan, used like the functions next to it
    """A plan that raises a ``TypeError`` at once: ``reason`` says why the function needs the
    rows together, ``alternative`` what to do instead."""

    reason: str
    alternative: str

    def __call__(self, func, bound):
        raise self.error(func.__name__)

    @property
    def doc(self):
        return (
            f"Dask collections are refused with a TypeError at once: {self.reason} "
            f"{self.alternative}"
        )

    def error(self, name):
        """The ``TypeError`` for the function or method ``name``."""
        return TypeError(
            f"{name} does not accept dask collections: {self.reason} {self.alternative}"
        )

    def check(self, name, *values):
        """Raise :meth:`error` when one of ``values`` is a dask collection."""
        if any(is_dask_collection(value) for value in values):
            raise self.error(name)


def check_in_memory(what, *values, hint):
    """Raise a TypeError when one of ``values`` is a dask collection: ``what`` needs all rows
    in memory; ``hint`` says what to do instead (the refusal of :class:`refuse`, worded the
    same)."""
    refuse("it needs all rows in memory.", hint).check(what, *values)


TABLE_DOC = (
    "Dask collections (arrays, Series, DataFrames, one per argument or mixed with in-memory "
    "arrays) are read partition by partition: each partition is reduced to the frequency "
    "table of its distinct (labels, sensitive values) rows with their summed weights, at "
    "most n_groups x n_labels**2 rows whatever its length, the tables are added up on the "
    "workers, and this function runs on the sum: the result is exactly the in-memory one."
)


def table_plan(ignored=None, hint=_TABLE_HINT, doc=TABLE_DOC):
    """The plan of functions that depend on the data through weighted counts only.

    The per-sample arguments are reduced to the frequency table of their distinct rows
    (computed per partition, merged on the workers), which replaces them in the call with
    ``sample_weight=`` the rows' weights. ``ignored(arguments)`` names the per-sample
    arguments the call does not use (left out of the table, their length still checked).
    A table that grows past ``MAX_TABLE_ROWS`` (continuous values) raises, naming its size
    and ``hint``, before it reaches the client.
    """

    def plan(func, bound):
        reduce_arguments(
            bound.arguments,
            ignored=() if ignored is None else ignored(bound.arguments),
            hint=hint,
        )
        return func(*bound.args, **bound.kwargs)

    plan.doc = doc
    return plan


def reduce_arguments(
    arguments,
    names=PER_SAMPLE,
    *,
    ignored=(),
    hint=_TABLE_HINT,
    weight_as_key=False,
    weight_squares=False,
):
    """Replace the per-sample ``arguments[name]`` by the distinct rows of their joint table,
    in place; return the table (:class:`~skfair._stats._table.FrequencyTable`).

    ``arguments["sample_weight"]`` becomes the rows' summed weights (or counts). Ignored
    arguments become None. With ``weight_as_key`` the weight is a key column instead (each
    row then has one weight value, for a bootstrap over weighted rows): ``sample_weight``
    becomes the weight of each row's samples and the table's ``count`` their number. With
    ``weight_squares`` (summed weights only) the table's ``sums`` hold each row's sum of
    squared weights, for an effective sample size.
    """
    present = [n for n in names if n != "sample_weight" and arguments.get(n) is not None]
    split = {name: split_argument(arguments[name]) for name in present}
    weights = arguments.get("sample_weight")
    columns, roles, key_names = [], [], []
    for name, argument in split.items():
        for j, column in enumerate(argument.columns):
            columns.append(column)
            role = name
            if name in ignored:
                role = "ignored"
            elif argument.encoding is not None:
                role = argument.encoding[0]
            roles.append((role, name, argument.encoding))
            if role != "ignored":
                key_names.append(name if argument.n_columns == 1 else f"{name}[{j}]")
    if weights is not None:
        columns.append(weights)
        roles.append(("weight_key" if weight_as_key else "weight", "sample_weight", None))
        if weight_as_key:
            key_names.append("sample_weight")
    statistic = DistinctRows(tuple(key_names), max_rows=MAX_TABLE_ROWS, hint=hint)
    squares = weight_squares and weights is not None and not weight_as_key
    table = reduce_blocks(
        statistic, align(columns), _table_chunk, roles=tuple(roles), squares=squares
    )
    position = 0
    for name, argument in split.items():
        if name in ignored:
            arguments[name] = None
            continue
        arguments[name] = argument.rebuild(table.keys[position : position + argument.n_columns])
        position += argument.n_columns
    if weights is not None and weight_as_key:
        arguments["sample_weight"] = table.keys[position]
    else:
        arguments["sample_weight"] = table.sample_weight()
    return table


def _table_chunk(statistic, *parts, roles, squares=False):
    """The frequency table of one partition, its rows checked (see :func:`check_block`); with
    ``squares``, the sums of squared weights as its value column."""
    keys, weights = [], None
    for part, (role, name, encoding) in zip(parts, roles, strict=True):
        values = check_block(as_numpy(part), role, name, encoding)
        if role == "weight":
            weights = values
        elif role != "ignored":
            keys.append(values)
    check_block_lengths([as_numpy(part) for part in parts])
    return statistic.chunk(keys, weights, values=weights if squares else None)


def check_block(values, role, name, encoding=None):
    """One column of a partition, checked as the in-memory function checks it (row numbers
    count from the partition's first row), and encoded (grid indices, bin representatives)."""
    if role == "grid":
        return grid_index(values, encoding[1])
    if role == "binned":
        inner = encoding[1]
        values = check_scores(values, name)
        representatives = np.append(inner, np.nextafter(inner[-1], np.inf))
        return representatives[np.searchsorted(inner, values, side="left")]
    if role in ("weight", "weight_key"):
        values = values.astype(np.float64)
        bad = ~np.isfinite(values) | (values < 0)
        if bad.any():
            raise ValueError(
                f"sample_weight has negative or non-finite values (first at row "
                f"{data_row(np.argmax(bad))})."
            )
        return values
    if role in _LABELS:
        check_label_values(values, name)
    elif role == "y_score" and values.dtype.kind == "f":
        check_scores(values, name)
    return values


def check_block_lengths(arrays):
    lengths = sorted({a.shape[0] for a in arrays})
    if len(lengths) > 1:
        raise ValueError(
            f"Inconsistent numbers of samples within a partition: {lengths}. Pass one value per "
            "sample to each input, partitioned alike (columns of one dask DataFrame, or dask "
            "arrays with the same chunks)."
        )


def check_fit_block(X, y, sample_weight):
    """The labels and weights of one partition of a fit, checked as the in-memory fit checks
    them (row numbers count from the partition's first row), with the partition's length of
    ``X``: ``(y, weights)``, ``weights`` None without ``sample_weight``."""
    y = as_numpy(y).reshape(-1)
    check_block(y, "y", "y")
    weights = None
    if sample_weight is not None:
        weights = check_block(as_numpy(sample_weight), "weight", "sample_weight")
        check_block_lengths([y, weights])
    check_block_lengths([y, np.empty(X.shape[0])])
    return y, weights


def round_to_grid(y_score, resolution):
    """``floor(y_score / resolution + 0.5) * resolution``, elementwise (in memory)."""
    check_resolution(resolution)
    if not hasattr(y_score, "to_numpy"):
        y_score = np.asarray(y_score)
    if getattr(y_score, "dtype", np.dtype(float)).kind not in "biuf":
        raise ValueError(f"y_score must be numeric scores, got dtype {y_score.dtype}.")
    index = np.floor(y_score / resolution + 0.5)
    _check_grid_range(np.asarray(index), np.asarray(y_score), resolution)
    return index * resolution


def grid_index(y_score, resolution):
    """Integer grid indices ``floor(y_score / resolution + 0.5)`` of one partition's scores.

    The tables then count small integers (one bincount per partition) and the rows are
    rebuilt as ``index * resolution``: bit for bit the values :func:`round_to_grid` gives.
    """
    if y_score.dtype.kind not in "biuf":
        raise ValueError(f"y_score must be numeric scores, got dtype {y_score.dtype}.")
    finite = np.isfinite(y_score)
    if not finite.all():
        raise ValueError(
            f"y_score has NaN or infinite values (first at row {data_row(np.argmin(finite))})."
        )
    index = np.floor(y_score / resolution + 0.5)
    _check_grid_range(index, y_score, resolution)
    return index.astype(np.int64)


def _check_grid_range(index, y_score, resolution):
    """Refuse grid indices that float64 (and int64) cannot count exactly."""
    if index.size == 0:
        return
    finite = np.isfinite(index)
    too_far = finite & (np.abs(index) >= _GRID_LIMIT)
    if too_far.any():
        row = int(np.argmax(too_far))
        largest = float(np.max(np.abs(y_score[finite])))
        raise ValueError(
            f"resolution={resolution!r} is too fine for these scores: y_score[{data_row(row)}]"
            f" = {float(y_score[row])!r} is {abs(float(y_score[row])) / resolution:.3g} grid "
            f"steps from 0, beyond the 2**53 that float64 counts exactly. The finest usable "
            f"resolution for scores up to {largest:.6g} in magnitude is "
            f"{largest / (_GRID_LIMIT / 2):.3g}."
        )


def check_resolution(resolution):
    if (
        isinstance(resolution, bool)
        or not isinstance(resolution, numbers.Real)
        or not np.isfinite(resolution)
        or resolution <= 0
    ):
        raise ValueError(f"resolution must be a positive finite float, got {resolution!r}.")


def _add_note(wrapper, text):
    """Add ``text`` as a paragraph of the docstring's Notes (made before References or
    Examples when there is none)."""
    doc = wrapper.__doc__
    if not doc:
        return
    paragraph = "\n".join(
        textwrap.wrap(
            "**Dask input.** " + text,
            width=88,
            initial_indent="    ",
            subsequent_indent="    ",
            break_on_hyphens=False,
        )
    )
    lines = doc.split("\n")
    headings = {
        lines[i].strip(): i
        for i in range(len(lines) - 1)
        if lines[i + 1].strip() and set(lines[i + 1].strip()) == {"-"}
    }
    if "Notes" in headings:
        following = [i for h, i in headings.items() if i > headings["Notes"]]
        end = min(following) if following else len(lines)
        while end > 0 and not lines[end - 1].strip():
            end -= 1
        lines[end:end] = ["", paragraph]
    else:
        position = min(
            [headings[h] for h in ("References", "Examples") if h in headings],
            default=len(lines),
        )
        lines[position:position] = ["    Notes", "    -----", paragraph, ""]
    wrapper.__doc__ = "\n".join(lines)


def _add_resolution_parameter(wrapper, signature):
    parameters = list(signature.parameters.values())
    parameters.append(inspect.Parameter("resolution", inspect.Parameter.KEYWORD_ONLY, default=None))
    wrapper.__signature__ = signature.replace(parameters=parameters)
    doc = wrapper.__doc__ or ""
    marker = "\n    Returns\n    -------"
    if marker in doc:
        wrapper.__doc__ = doc.replace(marker, _RESOLUTION_DOC + marker, 1)
