"""Features to small integer codes: one code per value of a categorical column, per quantile
bin of a numeric one, and one for its missing values.

Every column goes through skfair's one factoriser (:mod:`skfair._utils._groups`). A numeric
column (integers or floats, not booleans) with more than ``n_bins`` distinct values is cut at
its quantiles ``k / n_bins`` (numpy's default linear quantiles of its present values); bins
whose edges coincide are merged, the first bin is closed ``[e0, e1]``, the others ``(e_k,
e_k+1]``. Missing values (None, NaN, NaT, ``pd.NA``) are a category of their own, the last
code of the column, shown as the value ``None`` in conditions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skfair._stats._sorted import linear_quantiles
from skfair._utils._groups import (
    _as_columns,
    _match_labels,
    _python_scalar,
    factorize_column,
    missing_mask,
)

# A column with more distinct values than this is refused: each value would be a subgroup.
MAX_VALUES = 1000


@dataclass(frozen=True)
class ColumnCodes:
    """How one column of the features is coded.

    Attributes
    ----------
    name : str
    values : ndarray or None
        Sorted distinct values of a categorical column (None for a binned one).
    edges : ndarray or None
        Bin edges of a binned numeric column (None for a categorical one).
    missing : bool
        Whether the column has missing values, coded ``n_values - 1``.
    """

    name: str
    values: np.ndarray | None
    edges: np.ndarray | None
    missing: bool

    @property
    def n_values(self):
        present = len(self.values) if self.edges is None else len(self.edges) - 1
        return present + int(self.missing)

    @property
    def labels(self):
        """The value of each code as shown in conditions: the value itself, a bin such as
        ``"(25, 33]"``, or None for missing values."""
        if self.edges is None:
            labels = [_python_scalar(value) for value in self.values]
        else:
            labels = [
                f"{'[' if k == 0 else '('}{low:.6g}, {high:.6g}]"
                for k, (low, high) in enumerate(zip(self.edges[:-1], self.edges[1:]))
            ]
        return labels + [None] * int(self.missing)

    def encode(self, column):
        """Codes of the values of ``column`` (another sample of the same column): values not
        seen when the codes were made, and missing values of a column that had none, get -1.
        Binned values beyond the edges fall in the outer bins."""
        missing = missing_mask(column)
        codes = np.full(missing.shape[0], -1, dtype=np.intp)
        present = ~missing
        values = column[present] if hasattr(column, "iloc") else np.asarray(column)[present]
        if self.edges is None:
            if present.any():
                seen, seen_codes, _ = factorize(values, self.name)
                positions = _match_labels(seen, self.values, self.name, raise_unseen=False)
                codes[present] = positions[seen_codes]
        else:
            codes[present] = np.searchsorted(
                self.edges[1:-1], np.asarray(values, dtype=np.float64), side="left"
            )
        if self.missing:
            codes[missing] = self.n_values - 1
        return codes


def factorize(column, name):
    """``(sorted distinct present values, codes, missing mask)`` of one column, its missing
    values coded last (:func:`skfair._utils._groups.factorize_column`)."""
    if np.shape(column)[0] == 0:
        return np.asarray(column)[:0], np.zeros(0, dtype=np.intp), np.zeros(0, dtype=bool)
    values, codes = factorize_column(column, name, what="feature", missing="last")
    return values, codes, codes == len(values)


def feature_columns(features, n_samples=None):
    """``(list of 1-D columns, names)`` of the features (DataFrame of any library, 2-D array
    or dict of columns)."""
    columns, names, one_dimensional, _ = _as_columns(
        _strings_as_categories(features), n_samples, argument="features"
    )
    if one_dimensional:
        raise ValueError(
            "features must be 2-D (one column per attribute searched), got a 1-D array. "
            "Reshape it, e.g. features.reshape(-1, 1) or a one-column DataFrame."
        )
    return columns, names


def _strings_as_categories(features):
    """A pandas DataFrame's columns of a pandas string dtype as categoricals: factorised by
    pandas in place (a copy to Python string objects takes ten times as long). A 2-D array
    in column-major order, so that each column is read contiguously."""
    if isinstance(features, np.ndarray) and features.ndim == 2:
        return np.asfortranarray(features)
    if not (hasattr(features, "columns") and hasattr(features, "astype")):
        return features
    strings = [
        name
        for name, dtype in features.dtypes.items()
        if not isinstance(dtype, np.dtype) and "str" in str(dtype).lower()
    ]
    return features.astype(dict.fromkeys(strings, "category")) if strings else features


def encode_features(features, *, n_bins, n_samples=None):
    """``(codes of shape (n_columns, n_samples), list of ColumnCodes)`` of the features."""
    columns, names = feature_columns(features, n_samples)
    encoders, codes = [], None
    for j, (column, name) in enumerate(zip(columns, names)):
        encoder, column_codes = encode_column(column, name, n_bins)
        if codes is None:
            # uint8 codes for up to 256 values; wider when a column needs it
            codes = np.empty((len(columns), column_codes.shape[0]), dtype=np.uint8)
        if encoder.n_values > np.iinfo(codes.dtype).max + 1:
            codes = codes.astype(smallest_code_dtype(encoder.n_values))
        codes[j] = column_codes
        encoders.append(encoder)
    return codes, encoders


def encode_column(column, name, n_bins):
    """``(ColumnCodes, codes)`` of one column."""
    values, codes, missing = factorize(column, name)
    has_missing = bool(missing.any())
    numeric = _is_numeric(values)
    check_column(name, len(values), has_missing, numeric=numeric)
    if numeric and len(values) > n_bins:
        counts = np.bincount(codes[~missing], minlength=len(values))
        edges = bin_edges(np.asarray(values, dtype=np.float64), counts, n_bins)
        bins = np.searchsorted(edges[1:-1], np.asarray(values, dtype=np.float64), side="left")
        n_present = len(edges) - 1
        lookup = np.append(bins, n_present) if has_missing else bins
        return ColumnCodes(name, None, edges, has_missing), lookup[codes]
    return ColumnCodes(name, np.asarray(values), None, has_missing), codes


def bin_edges(values, counts, n_bins):
    """Distinct quantile edges ``k / n_bins`` of the rows, from their sorted distinct
    ``values`` and ``counts`` (numpy's default linear quantiles of the rows)."""
    cumulative = np.cumsum(counts)

    def order_statistics(ranks):
        return values[np.searchsorted(cumulative, np.asarray(ranks), side="right")]

    edges = linear_quantiles(order_statistics, int(cumulative[-1]), np.linspace(0, 1, n_bins + 1))
    return np.unique(edges)


def check_column(name, n_values, has_missing, *, numeric):
    """Refuse a column that defines no subgroup, or one subgroup per value (a categorical
    column of more than ``MAX_VALUES`` values; numeric columns are binned)."""
    if n_values == 0:
        raise ValueError(
            f"Feature '{name}' has only missing values: it defines no subgroup. Drop it."
        )
    if n_values == 1 and not has_missing:
        raise ValueError(
            f"Feature '{name}' has a single value in every row: it defines no subgroup (its "
            "one value is the whole population). Drop it."
        )
    if n_values > MAX_VALUES and not numeric:
        raise ValueError(
            f"Feature '{name}' has {n_values:,} distinct values (more than {MAX_VALUES:,}): "
            "each would be a subgroup of a few rows. Group rare values first (e.g. keep the "
            "most frequent ones and call the others 'other'), or pass it as a numeric column, "
            "which is cut into n_bins quantile bins."
        )


def _is_numeric(values):
    return np.asarray(values).dtype.kind in "iuf"


def smallest_code_dtype(n_values):
    for dtype in (np.uint8, np.uint16, np.uint32):
        if n_values <= np.iinfo(dtype).max + 1:
            return dtype
    return np.int64
