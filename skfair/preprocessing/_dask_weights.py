"""Reweighing weights of dask collections, exactly, from the partitions' count tables.

The factors ``P(a) P(y) / P(a, y)`` depend on the data only through the weighted count table
of (sensitive values, label), which is the sum of the partitions' tables: the table is reduced
first (one small object), the in-memory :func:`reweighing_factors` applied to it, and each
partition then looks its samples up in the factors, lazily.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from skfair._dask._columns import aligned_partitions, as_numpy, split_argument
from skfair._dask._detect import import_dask
from skfair._dask._reductions import reduce_arguments
from skfair._groups import factorize_groups
from skfair._validation import check_labels


def reweighing_weights_on_dask(y, sensitive_features, sample_weight):
    """Lazy weights (a 1-D dask array) of dask ``y`` / ``sensitive_features`` / weights."""
    from skfair.preprocessing._reweighing import reweighing_factors

    dask = import_dask()
    import dask.array as da

    arguments = {"y": y, "sensitive_features": sensitive_features, "sample_weight": sample_weight}
    reduce_arguments(arguments, ("y", "sensitive_features"))
    labels = check_labels(arguments["y"], "y")
    groups = factorize_groups(arguments["sensitive_features"], n_samples=labels.shape[0])
    classes, y_codes = np.unique(labels, return_inverse=True)
    factors = reweighing_factors(groups, y_codes.reshape(-1), classes, arguments["sample_weight"])

    sensitive = split_argument(sensitive_features)
    columns = [y, *sensitive.columns]
    if sample_weight is not None:
        columns.append(sample_weight)
    recipe = dataclasses.replace(sensitive, columns=[None] * sensitive.n_columns)
    encoding = dataclasses.replace(groups, codes=groups.codes[:0])
    shared = dask.delayed((factors, encoding, classes, recipe))
    blocks = [
        da.from_delayed(
            dask.delayed(_block_weights, pure=True)(shared, *parts),
            shape=(np.nan,),
            dtype=np.float64,
        )
        for parts in zip(*aligned_partitions(columns))
    ]
    return da.concatenate(blocks)


def _block_weights(shared, y_part, *parts):
    factors, encoding, classes, recipe = shared
    y_values = as_numpy(y_part)
    sensitive = recipe.rebuild([as_numpy(part) for part in parts[: recipe.n_columns]])
    codes = encoding.encode(sensitive, n_samples=y_values.shape[0])
    # every label is one of ``classes``: they are the labels of these very partitions
    weights = factors[codes, np.searchsorted(classes, y_values)]
    if len(parts) > recipe.n_columns:
        weights = weights * as_numpy(parts[-1]).astype(np.float64)
    return weights
