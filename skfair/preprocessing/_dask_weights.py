"""Reweighing weights of dask collections, exactly, from the partitions' count tables.

The factors ``P(a) P(y) / P(a, y)`` depend on the data only through the weighted count table
of (sensitive values, label), which is the sum of the partitions' tables: the table is reduced
first (one small object), the in-memory :func:`reweighing_factors` applied to it, and each
partition then looks its samples up in the factors, lazily.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from skfair._dask import map_row_blocks, reduce_arguments
from skfair._groups import factorize_groups
from skfair._validation import check_labels


def reweighing_weights_on_dask(y, sensitive_features, sample_weight):
    """Lazy weights (a 1-D dask array) of dask ``y`` / ``sensitive_features`` / weights."""
    from skfair.preprocessing._reweighing import reweighing_factors

    arguments = {"y": y, "sensitive_features": sensitive_features, "sample_weight": sample_weight}
    reduce_arguments(arguments, ("y", "sensitive_features", "sample_weight"))
    labels = check_labels(arguments["y"], "y")
    groups = factorize_groups(arguments["sensitive_features"], n_samples=labels.shape[0])
    classes, y_codes = np.unique(labels, return_inverse=True)
    factors = reweighing_factors(groups, y_codes.reshape(-1), classes, arguments["sample_weight"])
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
