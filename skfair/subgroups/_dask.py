"""``find_subgroups`` on dask collections: the same count tables, partition by partition.

A first pass reads what the columns hold (:class:`~skfair._stats._values.DistinctValues`:
the categories, which numeric columns are binned, the labels, the rows); the bin edges of
binned columns are exact quantiles found over the partitions
(:class:`~skfair._stats._sorted.RankSelection`, a few passes, 2**16 counters per edge).
Then each level of the search is one pass: every partition codes its rows with the codes
made on the client and counts its cells
(:class:`~skfair._stats._combinations.CombinationCounts`), the tables are added up on the
workers, and only the summed tables (at most the number of value combinations x 16 counts
each) reach the client. The result is exactly the in-memory one, however the data are
chunked.
"""

from __future__ import annotations

import numpy as np

from skfair._dask import align, check_block, reduce_blocks, refuse
from skfair._dask._columns import as_numpy, split_argument
from skfair._stats._combinations import CombinationCounts
from skfair._stats._sorted import RankSelection, linear_quantiles
from skfair._stats._values import DistinctValues
from skfair._utils._validation import (
    binarize,
    check_label_pair,
    check_label_values,
    check_labels,
)
from skfair.subgroups._counting import row_classes
from skfair.subgroups._encode import MAX_VALUES, ColumnCodes, check_column
from skfair.subgroups._report import build_report
from skfair.subgroups._search import HASH_BUCKETS, check_settings, make_search, search_tables

MDSS_REFUSAL = refuse(
    "objective='mdss' reads every row once per step of its coordinate ascent (hundreds of passes),",
    "Compute it on an in-memory sample (e.g. ddf.sample(frac=0.01).compute()), or use "
    "objective='gap' or 'sliceline', which run on dask collections.",
)


def find_on_dask(**arguments):
    """:func:`~skfair.subgroups.find_subgroups` on dask input (its arguments)."""
    if arguments["objective"] == "mdss":
        raise MDSS_REFUSAL.error("find_subgroups")
    features = split_argument(arguments["features"])
    if features.kind not in ("frame", "matrix", "dict"):
        raise ValueError("features must be 2-D (one column per attribute searched).")
    names = [str(name) for name in features.names] or [
        f"features[:, {j}]" for j in range(features.n_columns)
    ]
    weights = arguments["sample_weight"]
    labels = [arguments["y_true"], arguments["y_pred"]]
    if labels[1] is None:
        raise ValueError(f"objective={arguments['objective']!r} needs y_pred.")
    columns = [*labels, *features.columns] + ([weights] if weights is not None else [])
    blocks = align(columns)
    n_bins, min_support = arguments["n_bins"], arguments["min_support"]
    summary = DistinctValues(
        names=("y_true", "y_pred", *names) + (("sample_weight",) if weights is not None else ()),
        caps=(MAX_VALUES, MAX_VALUES)
        + tuple(max(MAX_VALUES, n_bins) + 1 for _ in names)
        + ((0,) if weights is not None else ()),
        n_smallest=min_support if weights is not None else 0,
    )
    summaries, smallest = reduce_blocks(
        summary, blocks, _summary_chunk, n_labels=2, weighted=weights is not None
    )
    y_true_values, y_pred_values = summaries[0].values, summaries[1].values
    if y_true_values is None or y_pred_values is None:
        raise ValueError(
            "y_true and y_pred must be class labels; they have more than "
            f"{MAX_VALUES} distinct values."
        )
    check_labels(y_true_values, "y_true")
    check_labels(y_pred_values, "y_pred")
    check_label_pair(y_true_values, y_pred_values)
    # The checks of the in-memory call, on the distinct labels; binarize infers a missing
    # pos_label as 1 (or raises), so that the partitions compare with the resolved label.
    binarize(y_true_values, y_pred_values, arguments["pos_label"])
    pos_label = 1 if arguments["pos_label"] is None else arguments["pos_label"]
    encoders = _encoders(features, names, summaries[2 : 2 + len(names)], blocks, n_bins)
    check_settings(
        arguments["objective"],
        arguments["direction"],
        arguments["max_level"],
        len(encoders),
        arguments["y_pred"],
        None,
    )
    weighted = weights is not None and not _equal_weights(blocks, len(names))
    search = make_search({**arguments, "min_support": min_support}, smallest if weighted else None)
    counter = DaskCounter(blocks, encoders, pos_label, weighted)
    found = search_tables(counter, counter.dims, search)
    settings = {
        key: arguments[key]
        for key in (
            "objective",
            "metric",
            "direction",
            "alpha",
            "correction",
            "max_level",
            "min_support",
        )
    }
    return build_report(found, encoders, settings, codes=None)


class DaskCounter:
    """``counter(combinations)``: count tables summed over the partitions."""

    def __init__(self, blocks, encoders, pos_label, weighted):
        self.blocks = blocks
        self.encoders = encoders
        self.dims = tuple(encoder.n_values for encoder in encoders)
        self.pos_label = pos_label
        self.weighted = weighted

    def __call__(self, combinations):
        statistic = CombinationCounts(
            self.dims, 4 * HASH_BUCKETS, tuple(map(tuple, combinations)), self.weighted
        )
        return self._reduce(statistic, fingerprints=False)

    def fingerprints(self, combinations):
        statistic = CombinationCounts(
            self.dims, 1, tuple(map(tuple, combinations)), weighted=True, squares=False
        )
        return self._reduce(statistic, fingerprints=True)

    def _reduce(self, statistic, *, fingerprints):
        """``statistic`` of every block of rows, merged."""
        return reduce_blocks(
            statistic,
            self.blocks,
            _count_chunk,
            encoders=tuple(self.encoders),
            pos_label=self.pos_label,
            fingerprints=fingerprints,
        )


def _summary_chunk(statistic, *parts, n_labels, weighted):
    parts = list(parts)
    for j, name in enumerate(("y_true", "y_pred")[:n_labels]):
        parts[j] = as_numpy(parts[j])
        check_label_values(parts[j], name)
    if weighted:
        parts[-1] = check_block(as_numpy(parts[-1]), "weight", "sample_weight")
    lengths = {len(part) if hasattr(part, "iloc") else np.shape(part)[0] for part in parts}
    if len(lengths) > 1:
        raise ValueError(
            f"Inconsistent numbers of samples within a partition: {sorted(lengths)}. Pass one "
            "value per sample to each input, partitioned alike."
        )
    return statistic.chunk(*parts)


def _count_chunk(statistic, y_true, y_pred, *rest, encoders, pos_label, fingerprints):
    feature_parts = rest[: len(encoders)]
    codes = np.stack([encoder.encode(part) for encoder, part in zip(encoders, feature_parts)])
    true_positive = as_numpy(y_true) == pos_label
    pred_positive = as_numpy(y_pred) == pos_label
    classes, row_prints = row_classes(true_positive, pred_positive, codes)
    if fingerprints:
        return statistic.chunk(codes, None, row_prints)
    weights = (
        check_block(as_numpy(rest[-1]), "weight", "sample_weight") if statistic.weighted else None
    )
    return statistic.chunk(codes, classes, weights)


def _encoders(features, names, summaries, blocks, n_bins):
    """The :class:`ColumnCodes` of every feature column, from the first pass."""
    encoders = []
    for j, (name, summary) in enumerate(zip(names, summaries)):
        column = features.columns[j]
        many = summary.values is None
        kind = _kind(column) if many else np.asarray(summary.values).dtype.kind
        numeric = kind in "iuf"
        has_missing = summary.n_missing > 0
        n_values = len(summary.values) if not many else MAX_VALUES + 1
        check_column(name, n_values, has_missing, numeric=numeric)
        if numeric and (many or len(summary.values) > n_bins):
            edges = _quantile_edges(blocks, 2 + j, name, summary.n_present, n_bins)
            encoders.append(ColumnCodes(name, None, edges, has_missing))
        else:
            values = _in_category_order(summary.values, column)
            encoders.append(ColumnCodes(name, values, None, has_missing))
    return encoders


def _quantile_edges(blocks, position, name, n_present, n_bins):
    """Exact quantile edges of the present values of one column, over the partitions."""
    column_blocks = type(blocks)([blocks.parts[position]], blocks.chunks, [blocks.axes[position]])

    def order_statistics(ranks):
        selection = RankSelection.start(ranks)
        while not selection.done:
            selection = reduce_blocks(selection, column_blocks, _present_chunk)
        return selection.values(ranks)

    edges = linear_quantiles(order_statistics, n_present, np.linspace(0, 1, n_bins + 1))
    return np.unique(edges)


def _present_chunk(statistic, part):
    values = np.asarray(as_numpy(part), dtype=np.float64)
    return statistic.chunk(values[~np.isnan(values)])


def _equal_weights(blocks, n_features):
    """Whether every weight is the same positive number (then the weights change nothing,
    as in memory)."""
    weights = type(blocks)([blocks.parts[-1]], blocks.chunks, [blocks.axes[-1]])
    low, high = reduce_blocks(_Extremes(), weights)
    return low == high and low > 0


class _Extremes:
    """Smallest and largest value of a column, in two phases."""

    def chunk(self, part):
        values = np.asarray(as_numpy(part), dtype=np.float64)
        if not values.size:
            return np.inf, -np.inf
        return float(values.min()), float(values.max())

    def merge(self, parts):
        return min(p[0] for p in parts), max(p[1] for p in parts)

    def formula(self, merged):
        return merged


def _kind(column):
    """The numpy kind of a column's dtype ("O" for categoricals and strings)."""
    dtype = getattr(column, "dtype", None)
    if getattr(dtype, "name", None) == "category":
        return "O"
    return getattr(dtype, "kind", "O")


def _in_category_order(values, column):
    """A categorical column's categories in their order (as in memory), else the values."""
    dtype = getattr(column, "dtype", None)
    if getattr(dtype, "name", None) != "category":
        return np.asarray(values)
    categories = np.asarray(dtype.categories)
    present = {str(v) for v in np.asarray(values).tolist()}
    return np.asarray([c for c in categories if str(c) in present], dtype=categories.dtype)
