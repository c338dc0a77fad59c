"""Pieces shared by skfair's estimators.

On dask input, a fitted estimator is small: its prediction methods apply it to each block of
rows in memory and return a lazy dask array (:func:`lazy_method`, the shape of dask-ml's
``ParallelPostFit``); nothing is computed until the result is. An estimator whose output
depends on the row's position in the data (row-keyed random numbers) provides
``_at_row_offset(row_offset)``, a copy of itself for rows that start at that position, so
that every block is treated exactly as inside the whole data.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from skfair._dask import align, map_row_blocks, reduce_blocks, refuse
from skfair._dask._columns import as_numpy
from skfair._stats._table import DistinctRows
from skfair._utils._compat import validate_data
from skfair._utils._frames import as_supported_frame, refuse_dask
from skfair._utils._groups import rows_from, split_sensitive_column


def _model_allows_nan(model):
    """Whether X may hold NaN for the wrapped ``model``.

    A Pipeline's own tag says nothing about its steps (an imputer or a column transformer may
    handle NaN), so a pipeline is trusted to check X itself.
    """
    return hasattr(model, "steps") or get_tags(model).input_tags.allow_nan


def check_meta_input(meta, X, model, *, reset):
    """Validate X for a meta-estimator ``meta`` that passes it on to a wrapped ``model``.

    The single input check of skfair's meta-estimators. A DataFrame goes to the model as it is
    (its columns may hold strings or categories that the model, often a pipeline, encodes): it
    must be 2-D and non-empty, and its column names are recorded at fit (``reset=True``) and
    checked afterwards, like ``feature_names_in_`` everywhere in scikit-learn. Anything else
    becomes a 2-D, non-empty array (or CSR/CSC matrix, when ``meta``'s ``sparse`` tag allows
    it) with its values unconverted (``dtype=None``), holding no NaN or infinity unless the
    model accepts NaN. The number of columns is recorded and checked in both cases.

    Dataframes of other libraries (polars, pyarrow, a polars LazyFrame, which is collected)
    become pandas first (:func:`skfair._utils._frames.as_supported_frame`), so that their column
    names serve ``sensitive_column`` and ``feature_names_in_`` as a pandas DataFrame's do.

    Returns X, validated.
    """
    refuse_dask(X=X)
    X = as_supported_frame(X)
    if hasattr(X, "iloc"):
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(
                f"X must be a non-empty 2-D DataFrame, got shape {X.shape}; "
                f"{type(meta).__name__} needs at least one row and one column."
            )
        validate_data(meta, X, reset=reset, skip_check_array=True)
        return X
    return validate_data(
        meta,
        X,
        reset=reset,
        accept_sparse=["csr", "csc"] if get_tags(meta).input_tags.sparse else False,
        dtype=None,
        ensure_all_finite=not _model_allows_nan(model),
    )


def resolve_sensitive(X, sensitive_features, sensitive_column, *, drop=True):
    """Return ``(sensitive_features, X_for_the_model)`` in either of the two modes.

    With ``sensitive_column`` set the sensitive values are read from X (and removed from the
    returned X when ``drop``); passing ``sensitive_features`` as well is ambiguous and raises.
    """
    if sensitive_column is None:
        return sensitive_features, X
    if sensitive_features is not None:
        raise ValueError(
            f"Both sensitive_column={sensitive_column!r} and sensitive_features were given; "
            "pass one or the other."
        )
    sensitive, rest = split_sensitive_column(X, sensitive_column)
    return sensitive, (rest if drop else X)


def warn_no_sensitive_features(owner):
    """Warn that fitting without sensitive features makes a repair the identity."""
    warnings.warn(
        f"{type(owner).__name__} was fitted without sensitive features (neither "
        "sensitive_features= nor sensitive_column=): all samples form one group and the repair "
        "is the identity.",
        UserWarning,
        stacklevel=3,
    )


# The fit of a meta-estimator trains its model on all rows.
FIT_IN_MEMORY = refuse(
    "the model is trained on all rows (a scikit-learn estimator fits in memory).",
    "Fit it on an in-memory sample (e.g. ddf.sample(frac=0.1).compute()), or wrap a model "
    "fitted elsewhere in FrozenEstimator and fit on in-memory calibration rows; the "
    "prediction methods and score then accept dask input, block by block.",
)


def lazy_method(estimator, method, X, sensitive_features, *, trailing_shape=(), dtype):
    """Lazy ``estimator.method(X, sensitive_features=...)`` of dask input, block by block."""
    check_is_fitted(estimator)
    return map_row_blocks(
        _method_block,
        [X, sensitive_features],
        trailing_shape=trailing_shape,
        dtype=dtype,
        estimator=estimator,
        method=method,
    )


def _method_block(X, sensitive_features, *, row_offset, estimator, method):
    at_offset = getattr(estimator, "_at_row_offset", None)
    if at_offset is not None:
        estimator = at_offset(row_offset)
    # Models that predict without the sensitive attribute take X alone.
    kwargs = {} if sensitive_features is None else {"sensitive_features": sensitive_features}
    with rows_from(row_offset):
        return getattr(estimator, method)(X, **kwargs)


def accuracy_on_dask(y, y_pred, sample_weight=None):
    """Accuracy of lazy predictions: the weight of the right and of the wrong predictions,
    summed over the partitions (a table of two rows)."""
    columns = [y, y_pred] + ([] if sample_weight is None else [sample_weight])
    table = reduce_blocks(DistinctRows(("correct",)), align(columns), _correct_chunk)
    weights = table.sample_weight()
    return float(weights[table.keys[0]].sum() / weights.sum())


def _correct_chunk(statistic, y, y_pred, sample_weight=None):
    y, y_pred = as_numpy(y), as_numpy(y_pred)
    weights = None if sample_weight is None else as_numpy(sample_weight).astype(np.float64)
    return statistic.chunk([np.asarray(y == y_pred, dtype=bool)], weights)
