"""Dask reductions behind the public metrics: tables in, the in-memory formula out.

Each reduction computes one mergeable table over the partitions (:mod:`skfair._dask._tables`),
rebuilds the per-sample arguments from its distinct rows with ``sample_weight`` = the rows'
counts (or summed weights), and calls the in-memory function on that small weighted input.
Where the in-memory function needs more than weights can express (unweighted quantile
cut-offs, a bootstrap over samples, MADD's unweighted histograms), the reduction computes that
part from the table itself, exactly.
"""

from __future__ import annotations

import hashlib
import warnings
from itertools import combinations
from types import SimpleNamespace

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils.multiclass import type_of_target

from skfair._dask._columns import aligned_partitions, as_numpy, split_argument
from skfair._dask._tables import (
    histogram_table_of,
    merge_histogram_tables,
    reduce_partitions,
    table_of,
)

_PER_SAMPLE = ("y_true", "y_pred", "y_score", "y_proba", "sensitive_features")


# --------------------------------------------------------------------------------------------
# the count table, fed to the in-memory function as weights


def table_reduction(func, bound):
    """The in-memory ``func`` on the distinct rows of its per-sample inputs, weighted."""
    _reduce_arguments(bound)
    return func(*bound.args, **bound.kwargs)


def members_reduction(func, bound):
    """Stability / uncertainty disparities: member outputs have their samples on axis 1."""
    _reduce_arguments(bound, members=("y_pred", "y_proba"))
    return func(*bound.args, **bound.kwargs)


def _reduce_arguments(bound, *, members=()):
    """Replace the per-sample arguments of ``bound`` by the rows of their table, in place."""
    return reduce_arguments(bound.arguments, _PER_SAMPLE, members=members)


def reduce_arguments(arguments, names, *, members=()):
    """Replace the per-sample ``arguments[name]`` (``names``; ``sample_weight`` too) by the
    distinct rows of their joint table, in place; return the table.

    ``arguments["sample_weight"]`` becomes the rows' counts, or their summed weights.
    """
    split = {
        name: split_argument(arguments[name], members=name in members)
        for name in names
        if arguments.get(name) is not None
    }
    weights = arguments.get("sample_weight")
    columns = [column for argument in split.values() for column in argument.columns]
    n_keys = len(columns)
    if weights is not None:
        columns.append(weights)
    table = reduce_partitions(_block_table, aligned_partitions(columns), n_keys=n_keys)
    position = 0
    for name, argument in split.items():
        arguments[name] = argument.rebuild(table.keys[position : position + argument.n_columns])
        position += argument.n_columns
    arguments["sample_weight"] = table.sample_weight()
    return table


def _block_table(*parts, n_keys):
    keys = [as_numpy(part) for part in parts[:n_keys]]
    weights = as_numpy(parts[n_keys]).astype(np.float64) if len(parts) > n_keys else None
    _check_block_lengths([*keys, *([] if weights is None else [weights])])
    if weights is not None and (weights < 0).any():
        raise ValueError("sample_weight has negative values.")
    return table_of(keys, weights)


def _check_block_lengths(arrays):
    lengths = sorted({a.shape[0] for a in arrays})
    if len(lengths) > 1:
        raise ValueError(
            f"Inconsistent numbers of samples within a partition: {lengths}. Pass one value per "
            "sample to each input, partitioned alike (columns of one dask DataFrame, or dask "
            "arrays with the same chunks)."
        )


# --------------------------------------------------------------------------------------------
# binned continuous outputs: the quantile cut-offs are unweighted, so they come from counts


def binned_reduction(func, bound):
    """``U_DP`` / ``U_EO``: the table, with integer ``bins`` turned into exact cut-offs."""
    table = _reduce_arguments(bound)
    arguments = bound.arguments
    bins = arguments.get("bins", 5)
    y_true, y_pred = arguments.get("y_true"), arguments["y_pred"]
    present = [np.asarray(y) for y in (y_true, y_pred) if y is not None]
    continuous = any(
        y.dtype.kind in "biuf" and type_of_target(y) in ("continuous", "continuous-multioutput")
        for y in present
    )
    if continuous and isinstance(bins, (int, np.integer)) and bins >= 2:
        reference = present[0]
        cutoffs = _weighted_linear_quantiles(
            reference.astype(np.float64), table.count, np.linspace(0, 1, bins + 1)
        )
        distinct = np.unique(cutoffs)
        if distinct.size < cutoffs.size:
            warnings.warn(
                f"Quantile cut-offs {cutoffs.tolist()} repeat (ties in the data); the repeated "
                f"ones are merged, leaving {max(distinct.size - 1, 1)} bins instead of {bins}.",
                UserWarning,
                stacklevel=3,
            )
        if distinct.size == 1:  # one value only: a single bin either way
            distinct = np.array([distinct[0], np.nextafter(distinct[0], np.inf)])
        arguments["bins"] = distinct
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # already warned above
            return func(*bound.args, **bound.kwargs)
    return func(*bound.args, **bound.kwargs)


def _weighted_linear_quantiles(values, counts, levels):
    """``np.quantile(x, levels)`` (linear, R type 7) of the sample that repeats ``values[i]``
    ``counts[i]`` times, computed like numpy without materialising the sample."""
    distinct, inverse = np.unique(values, return_inverse=True)
    per_value = np.bincount(inverse.reshape(-1), weights=counts, minlength=distinct.shape[0])
    cumulative = np.cumsum(per_value)
    n = cumulative[-1]
    # numpy's virtual index for alpha = beta = 1, then its _lerp.
    virtual = n * levels + (1 + levels * (1 - 1 - 1)) - 1
    previous = np.clip(np.floor(virtual), 0, n - 1)
    following = np.clip(previous + 1, 0, n - 1)
    gamma = virtual - np.floor(virtual)

    def order_statistic(rank):
        return distinct[np.searchsorted(cumulative, rank, side="right")]

    a, b = order_statistic(previous), order_statistic(following)
    difference = b - a
    result = a + difference * gamma
    return np.where(gamma >= 0.5, b - difference * (1 - gamma), result)


# --------------------------------------------------------------------------------------------
# group_summary: the multinomial bootstrap drawn from the summed table


def summary_reduction(func, bound):
    """``group_summary`` on the table; its bootstrap drawn as multinomials from the counts.

    The draws are :class:`~skfair.metrics.MetricTable`'s own (the same cells, the same
    multinomial per group, the same percentile rule), made from the summed counts: the
    interval equals the in-memory one for any partitioning.
    """
    from skfair._stats._counts import confusion_table
    from skfair._validation import binarize, check_groups, check_random_state
    from skfair.metrics._group_summary import _as_frame
    from skfair.metrics._metric_table import (
        _CORRECTNESS_RATES,
        _NAMED_RATES,
        NAMED_METRICS,
        _bootstrap_tables,
        _canonical_name,
        _rate_masks,
    )

    arguments = bound.arguments
    metric = arguments.get("metric", "selection_rate")
    n_boot = arguments.get("n_boot", 0)
    if callable(metric):
        raise ValueError(
            "group_summary with a callable metric needs the samples themselves, which a dask "
            f"input does not bring into memory. Use a named rate ({NAMED_METRICS}), or "
            "compute the callable on a sample (e.g. ddf.sample(frac=...).compute())."
        )
    if arguments.get("sample_weight") is not None and n_boot:
        raise ValueError(
            "group_summary on a dask input bootstraps from the count table, which weights "
            "cannot be resampled from. Pass n_boot=0 with sample_weight, or drop sample_weight."
        )
    as_frame = arguments.get("as_frame", False)
    arguments["as_frame"] = False
    arguments["n_boot"] = 0
    table = _reduce_arguments(bound)
    summary = func(*bound.args, **bound.kwargs)
    groups = check_groups(arguments["sensitive_features"], table.n_rows)
    summary.count = np.bincount(
        groups.codes, weights=table.count, minlength=groups.n_groups
    ).astype(np.int64)
    if n_boot:
        name = _canonical_name(metric)
        y_true, y_pred = arguments.get("y_true"), np.asarray(arguments["y_pred"])
        # The cells of MetricTable._named_rates for this one rate.
        if name in _NAMED_RATES:
            needs_y_true = _NAMED_RATES[name][0]
            y_true_positive, y_pred_positive = binarize(
                y_true if needs_y_true else None, y_pred, arguments.get("pos_label")
            )
        else:
            y_true_positive, y_pred_positive = None, np.zeros(y_pred.shape[0], dtype=bool)
        n_correctness = 2 if name in _CORRECTNESS_RATES else 1
        cell = y_pred_positive.astype(np.intp)
        if y_true_positive is not None:
            cell += 2 * y_true_positive
        split = groups
        if n_correctness == 2:
            correct = np.asarray(np.asarray(y_true) == y_pred, dtype=np.intp)
            cell += 4 * correct
            split = SimpleNamespace(codes=groups.codes * 2 + correct, n_groups=groups.n_groups * 2)
        counts = confusion_table(split, y_true_positive, y_pred_positive, table.count)
        counts = counts.reshape(groups.n_groups, n_correctness * 4)
        rng = check_random_state(arguments.get("random_state"))
        replicates = _bootstrap_tables(counts, groups, cell, None, n_boot, rng)
        numerator, denominator = _rate_masks(name, n_correctness)
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = (replicates @ numerator.astype(np.float64)) / (
                replicates @ denominator.astype(np.float64)
            )
        ci = arguments.get("ci", 0.95)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            summary.ci_low, summary.ci_high = np.nanquantile(
                rates, [(1 - ci) / 2, (1 + ci) / 2], axis=0
            )
    return _as_frame(summary, _SummaryLabels(groups)) if as_frame else summary


class _SummaryLabels:
    """The labels ``group_summary``'s frame needs, from the group encoding of the table."""

    def __init__(self, groups):
        self.groups, self._names = groups.labels, list(groups.names)

    def _frame_index(self, pd, rows):
        if len(self._names) == 1:
            return pd.Index(self.groups, name=self._names[0])
        return pd.MultiIndex.from_tuples(self.groups, names=self._names)


# --------------------------------------------------------------------------------------------
# MADD: per-group counts of the scores between consecutive histogram edges of every bin count


def madd_reduction(func, bound):
    """``madd`` / ``madd_bandwidth_search`` from summed per-partition edge counts (exact)."""
    from skfair._groups import check_n_groups
    from skfair._stats._aggregate import aggregate
    from skfair._stats._histograms import bins_from_bandwidths, stacked_edges
    from skfair._validation import check_groups
    from skfair.metrics import _madd

    arguments = bound.arguments
    if arguments.get("sample_weight") is not None:
        raise ValueError(
            f"{func.__name__} on dask input counts samples per histogram bin; sample_weight is "
            "not supported there yet. Drop it, or compute on an in-memory sample."
        )
    search = func.__name__ == "madd_bandwidth_search"
    bandwidth = arguments.get("bandwidth", "auto")
    bins_given = arguments.get("bins")
    bandwidths = arguments.get("bandwidths", 1000)
    bin_rule = arguments.get("bin_rule", "exact")
    agg = arguments.get("agg", "worst_case")
    auto = search or (bins_given is None and bandwidth == "auto")
    if auto:
        # The groups are not known before the pass; the grid's checks do not depend on them.
        h, bins = _madd._bandwidth_grid(bandwidths, bin_rule, 1)
    elif bins_given is not None and bandwidth != "auto":
        raise ValueError(
            f"Pass either bandwidth={bandwidth!r} or bins={bins_given!r}, not both: the "
            "bandwidth already fixes the number of bins."
        )
    else:
        n_bins = (
            int(bins_given)
            if bins_given is not None
            else int(bins_from_bandwidths(bandwidth, bin_rule))
        )
        h, bins = None, np.array([n_bins])
    edges, offsets = stacked_edges(bins)
    edge_order = np.argsort(edges)
    sorted_edges = edges[edge_order]

    sensitive = split_argument(arguments["sensitive_features"])
    score = split_argument(arguments["y_score"], column=_score_column(arguments["y_score"]))
    columns = [*sensitive.columns, *score.columns]
    if arguments.get("y_true") is not None:
        columns.append(split_argument(arguments["y_true"]).columns[0])
    table = reduce_partitions(
        _block_edge_positions,
        aligned_partitions(columns),
        merge=merge_histogram_tables,
        n_groups=sensitive.n_columns,
        sorted_edges=sorted_edges,
    )
    groups = check_groups(sensitive.rebuild(table.keys), table.n_rows)
    check_n_groups(groups, what="MADD")
    n_edges, n_groups = edges.shape[0], groups.n_groups
    # Rows of the table are the distinct groups: sum them by group code (a no-op reorder).
    positions = np.zeros((n_groups, n_edges + 1), dtype=np.int64)
    np.add.at(positions, groups.codes, table.counts)
    sizes = positions.sum(axis=1)
    _madd._warn_small_groups(sizes)
    # From here as in _stats._histograms.swept_proportions: counts below each edge, then the
    # histograms.
    rank = np.empty_like(edge_order)
    rank[edge_order] = np.arange(n_edges)
    below = np.take(np.cumsum(positions, axis=1), rank, axis=1)
    below[:, offsets + bins] = sizes[:, None]
    share = np.diff(below, axis=1) / sizes[:, None]
    share[:, offsets[1:] - 1] = 0.0
    labels = groups.labels
    if not auto:
        n_bins = int(bins[0])
        if n_bins > sizes.min():
            warnings.warn(
                f"MADD with {n_bins} bins exceeds the size of the smallest group "
                f"({sizes.min()}): most bins hold at most one sample, so the value mostly "
                "reflects sampling noise. Use bandwidth='auto' or fewer bins.",
                UserWarning,
                stacklevel=3,
            )
        pair_values = [
            float(np.abs(share[g, :n_bins] - share[k, :n_bins]).sum())
            for g, k in combinations(range(n_groups), 2)
        ]
        return float(aggregate(pair_values, agg))
    pair_results = [
        _madd._pair_search(
            h,
            bins,
            (share[g], share[k]),
            offsets,
            (sizes[g], sizes[k]),
            (labels[g], labels[k]),
            arguments.get("min_interval_length"),
            arguments.get("percent", 0.45),
            arguments.get("min_points", 50),
            bin_rule,
        )
        for g, k in combinations(range(n_groups), 2)
    ]
    values = [pair.value for pair in pair_results]
    worst = pair_results[int(np.argmax(values))]
    result = Bunch(**worst)
    del result["groups"]
    result.value = float(aggregate(values, agg))
    result.group_sizes = dict(zip(labels, (int(n) for n in sizes), strict=True))
    result.pairs = pair_results
    result.worst_pair = worst.groups
    return result if search else result.value


def _score_column(y_score):
    shape = getattr(y_score, "shape", None)
    if shape is not None and len(shape) == 2:
        return 1 if shape[1] == 2 else 0
    return None


# Cells of the uniform lookup grid on [0, 1] of _edge_positions.
_LOOKUP_CELLS = 1 << 22


def _edge_positions(scores, sorted_edges):
    """``np.searchsorted(sorted_edges, scores, side="right")`` for scores in [0, 1], through a
    lookup on a uniform grid of ``_LOOKUP_CELLS`` cells: a score whose cell holds no edge in
    its interior has the position of the cell's left end; the others are searched.

    ``floor(s * 2**22)`` and ``c / 2**22`` are exact in binary floating point, so the cell of
    each score, and the edges at or below its left end, are exact.
    """
    at_or_below, has_interior_edge = _edge_lookup(sorted_edges)
    cell = (scores * _LOOKUP_CELLS).astype(np.intp)
    position = at_or_below[cell].astype(np.intp)
    searched = has_interior_edge[cell]
    position[searched] = np.searchsorted(sorted_edges, scores[searched], side="right")
    return position


_EDGE_LOOKUPS = {}


def _edge_lookup(sorted_edges):
    """Per grid cell: the number of edges at or below its left end, and whether an edge lies
    inside it. Built once per worker process and edge set (keyed by the edges' digest)."""
    key = hashlib.sha1(sorted_edges.tobytes()).hexdigest()
    lookup = _EDGE_LOOKUPS.get(key)
    if lookup is None:
        boundaries = np.arange(_LOOKUP_CELLS + 2) / _LOOKUP_CELLS
        at_or_below = np.searchsorted(sorted_edges, boundaries, side="right").astype(np.int32)
        below_next = np.searchsorted(sorted_edges, boundaries[1:], side="left")
        lookup = (at_or_below, below_next > at_or_below[:-1])
        _EDGE_LOOKUPS.clear()  # one edge set at a time: bounded memory
        _EDGE_LOOKUPS[key] = lookup
    return lookup


def _block_edge_positions(*parts, n_groups, sorted_edges):
    from skfair._validation import check_scores

    keys = [as_numpy(part) for part in parts]
    _check_block_lengths(keys)
    scores = check_scores(keys[n_groups], "y_score", unit_interval=True)
    position = _edge_positions(scores, sorted_edges)
    return histogram_table_of(keys[:n_groups], position, sorted_edges.shape[0] + 1)
