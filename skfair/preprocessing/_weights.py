"""The reweighing factors of each (group, class) cell, in memory and on dask collections.

The factors ``P(a) P(y) / P(a, y)`` depend on the data only through the weighted count table
of (sensitive values, label). On dask collections that table is the sum of the partitions'
tables: it is reduced first (one small object), :func:`reweighing_factors` applied to it, and
each partition then looks its samples up in the factors, lazily; the weights are exactly the
in-memory ones.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from skfair._dask import map_row_blocks, reduce_arguments
from skfair._stats._counts import class_table
from skfair._utils._groups import factorize_groups
from skfair._utils._validation import check_labels, check_weights


def reweighing_factors(groups, y_codes, classes, sample_weight=None):
    """The factor ``P(a) P(y) / P(a, y)`` of every cell: an array (n_groups, n_classes).

    ``sample_weight`` comes from :func:`~skfair._utils._validation.check_weights` (None for equal
    weights, rescaled when their sum would overflow). Cells without samples get 0 (they weigh
    nothing); a group that lacks a class present elsewhere is named in a warning.
    """
    table = class_table(groups, y_codes, len(classes), sample_weight)
    total = table.sum()
    group_totals, class_totals = table.sum(axis=1), table.sum(axis=0)
    expected = np.outer(group_totals / total, class_totals)  # n P(a) P(y), without overflow
    factors = np.divide(expected, table, out=np.zeros_like(table), where=table > 0)
    missing = (table <= 0) & (expected > 0)
    if missing.any():
        labels = groups.labels
        cells = [(labels[g], classes[k].item()) for g, k in zip(*np.nonzero(missing))]
        warnings.warn(
            f"(group, class) {cells[:10]} have no sample (of positive weight): reweighing cannot "
            "give these groups the label distribution of the others, and the weighted labels "
            "stay dependent on the groups. Merge small groups, or collect samples of these "
            "cells.",
            UserWarning,
            stacklevel=3,
        )
    return factors


def reweighing_weights_on_dask(y, sensitive_features, sample_weight):
    """Lazy weights (a 1-D dask array) of dask ``y`` / ``sensitive_features`` / weights."""
    arguments = {"y": y, "sensitive_features": sensitive_features, "sample_weight": sample_weight}
    reduce_arguments(arguments, ("y", "sensitive_features", "sample_weight"))
    labels = check_labels(arguments["y"], "y")
    groups = factorize_groups(arguments["sensitive_features"], n_samples=labels.shape[0])
    classes, y_codes = np.unique(labels, return_inverse=True)
    # The table's rows weigh their summed weights, checked as the in-memory path checks them.
    table_weights = check_weights(arguments["sample_weight"], labels.shape[0])
    factors = reweighing_factors(groups, y_codes.reshape(-1), classes, table_weights)
    # The encoding without the table's codes: each block encodes its own rows with it.
    encoding = dataclasses.replace(groups, codes=groups.codes[:0])
    return map_row_blocks(
        _block_weights,
        [y, sensitive_features, sample_weight],
        factors=factors,
        encoding=encoding,
        classes=classes,
    )


def _block_weights(y, sensitive_features, sample_weight, *, row_offset, factors, encoding, classes):
    y_values = np.asarray(y).reshape(-1)
    codes = encoding.encode(sensitive_features, n_samples=y_values.shape[0])
    # every label is one of ``classes``: they are the labels of these very partitions
    weights = factors[codes, np.searchsorted(classes, y_values)]
    if sample_weight is not None:
        weights = weights * np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    return weights
