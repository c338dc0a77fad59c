"""The points of HFM: encoded, scaled non-sensitive features and the label coordinate.

Bian, Luo & Xu (2024, Section 4.1) one-hot encode categorical features and min-max scale every
feature to [0, 1]; the label enters unscaled as its class code. This module turns the user's
``X``, ``y_true`` and ``y_pred`` into those coordinates, and nothing else.
"""

import warnings

import numpy as np

from skfair._utils._groups import missing_mask
from skfair._utils._validation import check_labels

# Encoded features beyond this size are refused before anything is allocated: one-hot
# encoding an identifier-like column (tens of thousands of values) would otherwise take
# gigabytes, and a distance over thousands of indicator columns is rarely what is meant.
_MAX_ENCODED_BYTES = 2**30


def encode_features(X, scale, fit_rows=None):
    """Numeric, scaled non-sensitive features and the name of each original column.

    ``scale="minmax"`` one-hot encodes non-numeric columns (indicators are already in
    [0, 1]), casts bool columns to 0/1 and min-max scales numeric columns on the data passed
    (on the rows ``fit_rows`` only, if given: the rows of positive weight); ``scale=None``
    takes numeric ``X`` as given; a fitted transformer is applied with ``transform``.
    """
    names = _column_names(X)
    if scale is not None and not isinstance(scale, str):
        if not hasattr(scale, "transform"):
            raise ValueError(
                f"scale must be 'minmax', None or a fitted transformer, got {scale!r}."
            )
        return _numeric(scale.transform(X), names), names
    if isinstance(scale, str) and scale != "minmax":
        raise ValueError(f"scale must be 'minmax', None or a fitted transformer, got {scale!r}.")
    if scale is None:
        return _numeric(X, names), names
    if hasattr(X, "columns") and hasattr(X, "iloc"):
        columns = [_column_values(X.iloc[:, j], name) for j, name in enumerate(names)]
    else:
        array = np.asarray(X)
        if array.ndim != 2:
            raise ValueError(f"Expected 2D array for X, got {array.ndim}D. Reshape your data.")
        if array.dtype.kind in "biuf":
            return _min_max(_numeric(array, names), fit_rows), names
        columns = [_column_values(array[:, j], name) for j, name in enumerate(names)]
    n = _n_rows(X)
    if not columns:
        return np.empty((n, 0)), names
    _check_encoded_size(columns, names, n)
    blocks = [
        _min_max(values[:, None], fit_rows) if codes is None else _one_hot(codes, values.size)
        for values, codes in columns
    ]
    return np.hstack(blocks), names


def label_coordinates(y_true, y_pred, label_encoding):
    """Label columns of the data's and the model's points, from one code table.

    The code is the position in the sorted union of the classes of ``y_true`` and ``y_pred``,
    so one table serves both and a binary task gets the paper's 0/1.
    """
    y_true = check_labels(y_true, "y_true")
    y_pred = check_labels(y_pred, "y_pred")
    try:
        classes = np.unique(np.concatenate([y_true, y_pred]))
    except TypeError as exc:
        raise ValueError(
            f"y_true and y_pred mix label types ({y_true.dtype}, {y_pred.dtype}); pass labels "
            "of one type."
        ) from exc
    codes = [np.searchsorted(classes, y) for y in (y_true, y_pred)]
    if label_encoding == "ordinal" or classes.size <= 2:
        return [c[:, None].astype(np.float64) for c in codes]
    eye = np.eye(classes.size) / np.sqrt(2.0)
    return [eye[c] for c in codes]


def warn_sensitive_columns(X, names, groups):
    """Warn when a column of ``X`` is a relabelling of a sensitive attribute (it would leak)."""
    is_frame = hasattr(X, "columns") and hasattr(X, "iloc")
    array = None if is_frame else np.asarray(X)
    for j in range(groups.n_attributes):
        codes = groups.attribute_codes[:, j]
        n_values = len(groups.attribute_labels[j])
        if n_values < 2:
            continue
        order = np.argsort(codes, kind="stable")
        first = order[np.searchsorted(codes[order], np.arange(n_values))]  # first row per value
        for k, name in enumerate(names):
            column = X.iloc[:, k].to_numpy() if is_frame else array[:, k]
            representatives = column[first]
            try:
                same = bool(np.all(column == representatives[codes]))
            except TypeError:  # values without a truth value (pd.NA); refused later
                continue
            if same and len(set(representatives.tolist())) == n_values:
                warnings.warn(
                    f"X column {name!r} equals sensitive attribute {groups.names[j]!r} up to "
                    "relabelling; pass only the non-sensitive features to hfm.",
                    UserWarning,
                    stacklevel=6,
                )


def _column_values(column, name):
    """``(values, None)`` for a numeric column, ``(levels, codes)`` for a categorical one."""
    dtype = getattr(column, "dtype", None)
    is_category = getattr(dtype, "name", "") == "category"
    missing = missing_mask(column.to_numpy() if hasattr(column, "to_numpy") else column)
    if missing.any():
        raise ValueError(
            f"X column {name!r} has missing values (first at row {np.argmax(missing)}). Impute "
            "them or drop those rows explicitly."
        )
    values = column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column)
    if not is_category and values.dtype.kind == "O":
        # An object column holding only numbers or bools (as parsed from csv without pandas,
        # or a nullable pandas dtype without missing values) is numeric.
        inferred = np.asarray(values.tolist())
        values = inferred if inferred.dtype.kind in "biuf" else values
    if not is_category and values.dtype.kind in "biuf":
        return _numeric(values[:, None], [name])[:, 0], None
    levels, codes = np.unique(values.astype(object).astype(str), return_inverse=True)
    return levels, codes


def _check_encoded_size(columns, names, n):
    widths = [1 if codes is None else values.size for values, codes in columns]
    n_bytes = 8 * n * sum(widths)
    if n_bytes > _MAX_ENCODED_BYTES:
        widest = int(np.argmax(widths))
        raise ValueError(
            f"One-hot encoding X would take {n_bytes / 2**30:.1f} GiB ({sum(widths)} columns "
            f"for {n} rows); column {names[widest]!r} alone has {widths[widest]} distinct "
            "values. Drop identifier-like columns, group rare values, or encode X yourself and "
            "pass it with scale=None."
        )


def _one_hot(codes, n_levels):
    # Filled in place: np.eye(n_levels)[codes] would first allocate n_levels^2 floats.
    encoded = np.zeros((codes.size, n_levels))
    encoded[np.arange(codes.size), codes] = 1.0
    return encoded


def _numeric(X, names):
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"Expected 2D array for X, got {array.ndim}D. Reshape your data.")
    if array.dtype.kind not in "biuf":
        raise ValueError(
            f"X has non-numeric values (dtype {array.dtype}); with scale=None pass numeric "
            "features, or use scale='minmax' to one-hot encode categorical columns."
        )
    array = array.astype(np.float64)
    finite = np.isfinite(array)
    if not finite.all():
        row, column = np.argwhere(~finite)[0]
        raise ValueError(
            f"X column {names[column]!r} has NaN or infinite values (first at row {row})."
        )
    return array


def _min_max(array, fit_rows=None):
    """Columns scaled to [0, 1] on the data passed (its ``fit_rows``); constant columns
    become 0."""
    fitted = array if fit_rows is None else array[fit_rows]
    low, high = fitted.min(axis=0), fitted.max(axis=0)
    with np.errstate(over="ignore"):
        span = high - low
    wide = np.isinf(span)
    if wide.any():
        # A range beyond the largest float (values near +-1.8e308): halving first is exact
        # and keeps every difference finite.
        half = array[:, wide] * 0.5 - low[wide] * 0.5
        array = array.copy()
        array[:, wide] = half / (high[wide] * 0.5 - low[wide] * 0.5)
        array[:, ~wide] = (array[:, ~wide] - low[~wide]) / np.where(
            span[~wide] > 0, span[~wide], 1.0
        )
        return array
    # Constant columns carry no information about distances: they become 0.
    return (array - low) / np.where(span > 0, span, 1.0)


def _column_names(X):
    if hasattr(X, "columns"):
        return [str(name) for name in X.columns]
    shape = np.shape(X)
    return [f"X[:, {j}]" for j in range(shape[1] if len(shape) == 2 else 0)]


def _n_rows(X):
    return np.shape(X)[0]
