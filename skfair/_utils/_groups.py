"""Sensitive features to integer group codes.

Every skfair function and estimator receives ``sensitive_features`` through
:func:`factorize_groups` (metrics, fit) or :meth:`GroupEncoding.encode` (transform and
predict time, against the groups seen at fit). The result is a compact integer code per
sample plus the labels needed to report groups back to the user.

Several attributes are combined with ``np.ravel_multi_index`` on per-attribute codes and then
compacted to the combinations present: strings are never concatenated, so ``("a|b", "c")``
and ``("a", "b|c")`` stay distinct groups.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from skfair._utils._frames import as_supported_frame, refuse_dask


def group_text(label):
    """A group's label as people read it: an intersection (a tuple of labels) as ``a & b``."""
    return " & ".join(map(str, label)) if isinstance(label, tuple) else str(label)


# Integer columns whose range is at most this many times the sample count are factorised with
# a lookup table (one bincount) instead of a sort.
_LOOKUP_RANGE_FACTOR = 4

# Position of the first row of the rows being checked within the whole data: 0 in memory, the
# partition's offset when a partition of a larger collection is checked on its own.
_ROW_OFFSET = ContextVar("skfair_row_offset", default=0)


@contextmanager
def rows_from(offset):
    """Within this context, row numbers in error messages count from ``offset``: the rows
    checked are a block of a larger collection that starts at that row."""
    token = _ROW_OFFSET.set(int(offset))
    try:
        yield
    finally:
        _ROW_OFFSET.reset(token)


def data_row(position):
    """The row of the whole data at ``position`` of the rows being checked."""
    return int(position) + _ROW_OFFSET.get()


@dataclass(frozen=True)
class GroupEncoding:
    """Groups found in ``sensitive_features``.

    Attributes
    ----------
    codes : ndarray of shape (n_samples,), dtype intp
        Joint group code of each sample, in ``range(n_groups)``. Groups are ordered
        lexicographically by their attribute values.
    attribute_codes : ndarray of shape (n_samples, n_attributes), dtype intp
        Code of each sample in each attribute, for callers that treat attributes one by one.
    attribute_labels : tuple of ndarray
        Sorted distinct values of each attribute; ``attribute_labels[j][attribute_codes[:, j]]``
        gives back the input column.
    group_attribute_codes : ndarray of shape (n_groups, n_attributes)
        Attribute codes of each joint group.
    names : tuple of str
        Name of each attribute (column names, dict keys, or ``"sensitive_features"``).
    one_dimensional : bool
        Whether the input was 1-D, in which case a group label is a scalar, not a tuple.
    named : bool
        Whether ``names`` came with the input (DataFrame columns, dict keys, a named Series)
        rather than being made up; :meth:`encode` then matches new input by name.
    """

    codes: np.ndarray
    attribute_codes: np.ndarray
    attribute_labels: tuple
    group_attribute_codes: np.ndarray
    names: tuple
    one_dimensional: bool
    named: bool = False

    @property
    def n_groups(self):
        return self.group_attribute_codes.shape[0]

    @property
    def n_attributes(self):
        return len(self.attribute_labels)

    @property
    def labels(self):
        """Label of each group: a value for 1-D input, a tuple of values otherwise."""
        per_attribute = [
            labels[self.group_attribute_codes[:, j]].tolist()
            for j, labels in enumerate(self.attribute_labels)
        ]
        if self.one_dimensional:
            return per_attribute[0]
        return list(zip(*per_attribute))

    def counts(self, sample_weight=None):
        """Number (or total weight) of samples in each group."""
        return np.bincount(self.codes, weights=sample_weight, minlength=self.n_groups)

    def attribute(self, j):
        """The encoding of attribute ``j`` alone (a 1-D :class:`GroupEncoding`)."""
        attribute_codes = self.attribute_codes[:, j]
        n_values = len(self.attribute_labels[j])
        return GroupEncoding(
            codes=attribute_codes,
            attribute_codes=attribute_codes[:, None],
            attribute_labels=(self.attribute_labels[j],),
            group_attribute_codes=np.arange(n_values)[:, None],
            names=(self.names[j],),
            one_dimensional=True,
            named=self.named,
        )

    def encode(self, sensitive_features, *, n_samples=None, handle_unknown="error"):
        """Codes of new samples in the groups of this encoding.

        Raises a ValueError naming the value when a sample belongs to an attribute value or a
        combination of values that was not seen when this encoding was made. With
        ``handle_unknown="ignore"`` such samples get the code -1 instead.

        Named input (DataFrame, dict, named Series) is matched by name when the encoding was
        made from named input too, like scikit-learn's ``feature_names_in_``: the same names
        in another order are reordered, other names raise a ValueError listing both, so
        renamed or swapped attributes are never matched by position. Unnamed input is matched
        by position (with a warning for several attributes fitted with names).
        """
        columns, names, one_dimensional, named = _as_columns(sensitive_features, n_samples)
        if len(columns) != self.n_attributes:
            raise ValueError(
                f"sensitive_features has {len(columns)} attribute(s) but {self.n_attributes} "
                f"were seen at fit ({list(self.names)})."
            )
        if self.named and named and names != list(self.names):
            if sorted(names) != sorted(self.names):
                raise ValueError(
                    f"sensitive_features has the attribute names {names}, but {list(self.names)} "
                    "were seen at fit. Attributes are matched by name, never by position: "
                    "rename the columns (or Series) to the fitted names."
                )
            columns = [columns[names.index(name)] for name in self.names]
            names = list(self.names)
        elif self.named and not named and self.n_attributes > 1:
            warnings.warn(
                f"sensitive_features has no attribute names, but was fitted with the names "
                f"{list(self.names)}; its columns are taken in that order. Pass a DataFrame or "
                "a dict with those names to have them matched by name.",
                UserWarning,
                stacklevel=3,
            )
        raise_unseen = handle_unknown == "error"
        attribute_codes = np.empty((columns[0].shape[0], len(columns)), dtype=np.intp)
        for j, (column, name) in enumerate(zip(columns, names)):
            fitted = self.attribute_labels[j]
            known = _fitted_string_codes(column, fitted)
            if known is not None:
                attribute_codes[:, j] = known
                continue
            values, codes = factorize_column(column, name)
            positions = _match_labels(values, fitted, name, raise_unseen=raise_unseen)
            attribute_codes[:, j] = positions[codes]
        if self.n_attributes == 1:
            # Every value of a single attribute is a group, numbered like the value (-1 unseen).
            return attribute_codes[:, 0]
        unseen = None if raise_unseen else (attribute_codes < 0).any(axis=1)
        if unseen is not None:
            attribute_codes[unseen] = 0
        joint = _ravel(attribute_codes, self._dims)
        fitted_joint = _ravel(self.group_attribute_codes, self._dims)
        index = np.searchsorted(fitted_joint, joint)
        index_clipped = np.minimum(index, len(fitted_joint) - 1)
        unseen_joint = fitted_joint[index_clipped] != joint
        if raise_unseen and unseen_joint.any():
            first = np.flatnonzero(unseen_joint)[0]
            value = tuple(
                _python_scalar(self.attribute_labels[j][attribute_codes[first, j]])
                for j in range(self.n_attributes)
            )
            value = value[0] if self.one_dimensional else value
            raise ValueError(
                f"Group {value!r} of {_describe(self.names)} was not seen at fit; the fitted "
                f"groups are {self.labels}. Fit on data that contains every group, or drop "
                "those samples explicitly."
            )
        if unseen is not None:
            index[unseen | unseen_joint] = -1
        return index

    @property
    def _dims(self):
        return tuple(len(labels) for labels in self.attribute_labels)


def factorize_groups(sensitive_features, *, n_samples=None, argument="sensitive_features"):
    """Factorise sensitive features into joint integer group codes.

    Parameters
    ----------
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        One attribute (1-D) or several (2-D ndarray, DataFrame, or dict of 1-D arrays). Values
        may be int, bool, float, str or pandas categorical. Missing values raise.
    n_samples : int, default=None
        Expected number of samples; a different length raises a ValueError naming both.
    argument : str, default="sensitive_features"
        The parameter the values came in, named by the error messages and the default
        attribute names (``"control_features"`` for conditioning attributes).

    Returns
    -------
    GroupEncoding

    Examples
    --------
    >>> from skfair._utils._groups import factorize_groups
    >>> groups = factorize_groups([["F", 1], ["M", 0], ["F", 1]])
    >>> groups.codes.tolist(), groups.labels
    ([0, 1, 0], [('F', '1'), ('M', '0')])
    """
    columns, names, one_dimensional, named = _as_columns(sensitive_features, n_samples, argument)
    n = columns[0].shape[0]
    attribute_codes = np.empty((n, len(columns)), dtype=np.intp)
    attribute_labels = []
    what = argument.removesuffix("s").replace("_", " ")
    for j, (column, name) in enumerate(zip(columns, names)):
        values, codes = factorize_column(column, name, what)
        attribute_codes[:, j] = codes
        attribute_labels.append(values)
    dims = tuple(len(labels) for labels in attribute_labels)
    if len(columns) == 1:
        codes = attribute_codes[:, 0]
        group_attribute_codes = np.arange(dims[0])[:, None]
    else:
        joint = _ravel(attribute_codes, dims)
        present, codes = _compact(joint, int(np.prod(dims, dtype=np.float64)))
        group_attribute_codes = np.stack(np.unravel_index(present, dims), axis=1)
    return GroupEncoding(
        codes=codes.astype(np.intp, copy=False),
        attribute_codes=attribute_codes,
        attribute_labels=tuple(attribute_labels),
        group_attribute_codes=group_attribute_codes.astype(np.intp, copy=False),
        names=tuple(names),
        one_dimensional=one_dimensional,
        named=named,
    )


def check_n_groups(groups, *, minimum=2, what="this disparity"):
    """Raise when fewer than ``minimum`` groups are present."""
    if groups.n_groups < minimum:
        raise ValueError(
            f"{what} needs at least {minimum} groups in {_describe(groups.names)}, got "
            f"{groups.n_groups}: {groups.labels}. Check that the sensitive features vary in the "
            "data passed (a cross-validation fold may hold a single group)."
        )


def privileged_mask(groups, privileged_group):
    """Boolean array over groups: True for the groups named by ``privileged_group``.

    ``privileged_group`` is a group label (a value, or a tuple with one value per attribute for
    2-D input) or a list of such labels. Every named label must be present, and at least one
    group must be left out of it.
    """
    labels = groups.labels
    wanted = _privileged_labels(groups, privileged_group)
    # Labels are compared as strings too so that privileged_group=1 matches a group read as
    # "1" from a string column, and numpy scalars match Python ones.
    lookup = {_label_key(label): g for g, label in enumerate(labels)}
    mask = np.zeros(groups.n_groups, dtype=bool)
    for label in wanted:
        g = lookup.get(_label_key(label))
        if g is None:
            raise ValueError(
                f"privileged_group={privileged_group!r}: group {label!r} is not present in "
                f"{_describe(groups.names)}; the groups are {labels}."
            )
        mask[g] = True
    if mask.all():
        raise ValueError(
            f"privileged_group={privileged_group!r} covers every group {labels}; nothing is left "
            "to compare with. Name only the privileged group(s)."
        )
    return mask


def _privileged_labels(groups, privileged_group):
    """``privileged_group`` as a list of group labels comparable with ``groups.labels``.

    A string is always one value, never a sequence of characters: with a one-column DataFrame
    ``privileged_group="Male"`` names the group ``("Male",)``.
    """
    is_list = isinstance(privileged_group, (list, set, np.ndarray))
    if groups.one_dimensional:
        return list(privileged_group) if is_list else [privileged_group]
    entries = list(privileged_group) if is_list else [privileged_group]
    wanted = []
    for entry in entries:
        label = tuple(entry) if isinstance(entry, (tuple, list)) else (entry,)
        if len(label) != groups.n_attributes:
            raise ValueError(
                f"privileged_group={privileged_group!r}: {entry!r} does not name one value per "
                f"sensitive attribute {_describe(groups.names)}; pass a tuple of "
                f"{groups.n_attributes} values (or a list of such tuples), e.g. "
                f"{groups.labels[0]!r}."
            )
        wanted.append(label)
    return wanted


def split_sensitive_column(X, sensitive_column):
    """Return ``(sensitive_features, X_without_them)`` read from columns of ``X``.

    ``sensitive_column`` is a column name (needs a DataFrame), an integer index, or a list of
    either. A list gives 2-D sensitive features (intersectional groups downstream).
    """
    X = as_supported_frame(X)
    is_frame = hasattr(X, "iloc") and hasattr(X, "columns")
    if not is_frame:
        X = np.asarray(X) if not hasattr(X, "shape") else X
        if getattr(X, "ndim", 2) != 2:
            raise ValueError(
                f"Expected 2D array for X, got {getattr(X, 'ndim', 1)}D. Reshape your data."
            )
    columns = list(X.columns) if is_frame else None
    positions = sensitive_column_positions(sensitive_column, X.shape[1], columns)
    is_list = isinstance(sensitive_column, (list, tuple, np.ndarray))
    dropped = set(positions)
    keep = [j for j in range(X.shape[1]) if j not in dropped]
    if is_frame:  # by position: X.drop would also drop other columns of the same name
        sensitive = _frame_columns(X, sensitive_column, positions, columns)
        # pandas' take is the cheaper selection; a dask DataFrame has only iloc[:, columns].
        return sensitive, X.take(keep, axis=1) if hasattr(X, "take") else X.iloc[:, keep]
    sensitive = X[:, positions] if is_list else X[:, positions[0]]
    return sensitive, X[:, keep]


def split_numeric_frame(X, sensitive_column, *, columns=None):
    """``(sensitive values, the other columns as a float64 array)`` of a pandas DataFrame
    whose other columns all hold numpy numbers, as :func:`split_sensitive_column` followed by
    the conversion to floats; None for any other input (the caller then takes that path).

    The other columns are read one by one as the arrays pandas holds: selecting them as a
    DataFrame (a new column index, pyarrow-backed for string labels) costs more than the
    small repairs that read them. pandas has no public accessor of a column's array that
    does not build a Series, hence its ``_get_column_array``; without it, None. ``columns``
    are ``X.columns`` as a list, when the caller has them.
    """
    column_array = getattr(X, "_get_column_array", None)
    if column_array is None or not hasattr(X, "columns") or getattr(X, "ndim", 0) != 2:
        return None
    if columns is None:
        columns = X.columns.tolist()
    positions = sensitive_column_positions(sensitive_column, len(columns), columns)
    dropped = set(positions)
    arrays = [column_array(j) for j in range(len(columns)) if j not in dropped]
    numeric = all(type(a) is np.ndarray and a.ndim == 1 and a.dtype.kind in "biuf" for a in arrays)
    if not arrays or not numeric or X.shape[0] == 0:
        return None
    floats = np.empty((X.shape[0], len(arrays)), order="F")  # a column at a time, as pandas
    for j, array in enumerate(arrays):
        floats[:, j] = array
    if not isinstance(sensitive_column, (list, tuple, np.ndarray)):
        values = column_array(positions[0])
        if type(values) is np.ndarray or _is_arrow_strings(values):  # the Series' values
            return NamedColumn(values, columns[positions[0]]), floats
    return _frame_columns(X, sensitive_column, positions, columns), floats


@dataclass(frozen=True)
class NamedColumn:
    """One column of a DataFrame and its label, read without building a pandas Series:
    :func:`factorize_groups` and :meth:`GroupEncoding.encode` read it as the Series."""

    values: object
    name: object


def _frame_columns(X, sensitive_column, positions, columns):
    """The sensitive column(s) of the DataFrame ``X``: a DataFrame for a list, else a Series."""
    if isinstance(sensitive_column, (list, tuple, np.ndarray)):
        return X.take(positions, axis=1)
    if isinstance(sensitive_column, str) and columns.count(sensitive_column) == 1:
        return X[sensitive_column]  # a column looked up by name, cheaper than by position
    return X.iloc[:, positions[0]]


def sensitive_column_positions(sensitive_column, n_columns, columns=None):
    """Positions of the ``sensitive_column`` entries among ``n_columns`` columns.

    ``columns`` are the column names (None for an array without names); integers that are not
    names are positions.
    """
    is_list = isinstance(sensitive_column, (list, tuple, np.ndarray))
    selected = list(sensitive_column) if is_list else [sensitive_column]
    if not selected:
        raise ValueError("sensitive_column is empty; name at least one column.")
    positions = []
    for column in selected:
        is_position = isinstance(column, (int, np.integer)) and not isinstance(column, bool)
        if columns is not None and (column in columns or not is_position):
            if column not in columns:
                raise ValueError(
                    f"sensitive_column={column!r} is not a column of X; the columns are {columns}."
                )
            positions.append(columns.index(column))
        elif not is_position:
            raise ValueError(
                f"sensitive_column={sensitive_column!r} names a column, which needs X to be a "
                "pandas DataFrame; X has no column names. Pass integer column indices instead."
            )
        elif not -n_columns <= column < n_columns:
            raise ValueError(
                f"sensitive_column={column} is out of range for X with {n_columns} columns."
            )
        else:
            positions.append(int(column) % n_columns)
    return positions


# --------------------------------------------------------------------------------------------
# private helpers


def _describe(names):
    if len(names) == 1:
        return f"'{names[0]}'"
    return "(" + ", ".join(f"'{name}'" for name in names) + ")"


def _python_scalar(value):
    return value.item() if isinstance(value, np.generic) else value


def _label_key(label):
    if isinstance(label, tuple):
        return tuple(_label_key(value) for value in label)
    if isinstance(label, np.generic):
        label = label.item()
    if isinstance(label, (bool, np.bool_)):
        return str(int(label))
    if isinstance(label, float) and label.is_integer():
        return str(int(label))
    return str(label)


def _as_columns(sensitive_features, n_samples, argument="sensitive_features"):
    """Split the input into 1-D columns, their names, whether it was 1-D and whether the
    names came with the input. Messages and default names use ``argument``, the name of the
    parameter the values came in (``"control_features"`` for conditioning attributes)."""
    refuse_dask(**{argument: sensitive_features})
    sensitive_features = as_supported_frame(sensitive_features)
    if sensitive_features is None:
        raise ValueError(
            f"{argument} is None. Pass the attribute(s) as a 1-D array, a 2-D "
            "array, a DataFrame or a dict of arrays."
        )
    if isinstance(sensitive_features, dict):
        if not sensitive_features:
            raise ValueError(f"{argument} is an empty dict.")
        names = [str(key) for key in sensitive_features]
        columns = [_column_values(value) for value in sensitive_features.values()]
        one_dimensional, named = False, True
    elif hasattr(sensitive_features, "columns") and hasattr(sensitive_features, "iloc"):
        names = [str(name) for name in sensitive_features.columns]
        if not names:
            raise ValueError(f"{argument} is a DataFrame with no columns.")
        columns = [_column_values(sensitive_features.iloc[:, j]) for j in range(len(names))]
        one_dimensional, named = False, True
    elif isinstance(sensitive_features, NamedColumn) or (
        hasattr(sensitive_features, "dtype")
        and hasattr(sensitive_features, "name")
        and (hasattr(sensitive_features, "iloc"))
    ):  # pandas Series
        name = sensitive_features.name
        names = [str(name) if name is not None else argument]
        if isinstance(sensitive_features, NamedColumn):
            sensitive_features = sensitive_features.values
        columns = [_column_values(sensitive_features)]
        one_dimensional, named = True, name is not None
    else:
        named = False
        array = np.asarray(sensitive_features)
        if array.ndim == 0:
            raise ValueError(
                f"{argument} must be 1-D or 2-D with one entry per sample, got a scalar."
            )
        if array.ndim == 1:
            names = [argument]
            columns = [array]
            one_dimensional = True
        elif array.ndim == 2:
            if array.shape[1] == 0:
                raise ValueError(f"{argument} has no columns.")
            names = [f"{argument}[:, {j}]" for j in range(array.shape[1])]
            columns = [array[:, j] for j in range(array.shape[1])]
            one_dimensional = False
        else:
            raise ValueError(
                f"{argument} must be 1-D or 2-D, got an array with {array.ndim} dimensions."
            )
    lengths = {column.shape[0] for column in columns}
    if len(lengths) > 1:
        detail = ", ".join(f"'{name}': {column.shape[0]}" for name, column in zip(names, columns))
        raise ValueError(f"{argument} columns have different lengths ({detail}).")
    length = columns[0].shape[0]
    if n_samples is not None and length != n_samples:
        raise ValueError(
            f"{argument} has {length} samples but the data has {n_samples}. Pass one "
            "value per sample (a common cause is a column captured from the "
            "full data set while scoring a cross-validation fold)."
        )
    if length == 0:
        raise ValueError(f"{argument} is empty (0 samples).")
    return columns, names, one_dimensional, named


def _column_values(column):
    """A 1-D column as a numpy array, keeping pandas categoricals as they are."""
    dtype = getattr(column, "dtype", None)
    if dtype is not None and getattr(dtype, "name", None) == "category":
        return column  # handled by factorize_column through .cat
    if _is_arrow_strings(column):
        return column  # factorised by pyarrow (factorize_column)
    if _is_arrow_strings(getattr(column, "array", None)):
        return column.array
    if hasattr(column, "to_numpy"):
        # Nullable pandas dtypes come out as object arrays holding pd.NA, which
        # _factorize_objects reports as missing.
        return column.to_numpy()
    array = np.asarray(column)
    if array.ndim != 1:
        raise ValueError(f"Each sensitive attribute must be 1-D, got shape {array.shape}.")
    return array


def is_missing_value(value):
    """Whether one value is missing: None, NaN, pandas' NA or NaT (by type name: pandas is
    optional, and the answer is the same with and without it)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(value, str):
        return False
    try:
        return bool(value != value)  # NaN, numpy's NaT
    except (TypeError, ValueError):  # an array-like value: compared elementwise
        return False


def missing_mask(values):
    """Elementwise :func:`is_missing_value` of an array of any dtype and shape, vectorised.

    The one test of missing values in skfair: None, NaN, pandas' NA and NaT, whichever
    optional packages are installed.
    """
    array = np.asarray(values)
    kind = array.dtype.kind
    if kind in "fc":
        return np.isnan(array)
    if kind in "mM":
        return np.isnat(array)
    if kind != "O":
        return np.zeros(array.shape, dtype=bool)
    try:
        return np.asarray(np.equal(array, None) | np.not_equal(array, array), dtype=bool)
    except (TypeError, ValueError):  # pd.NA, whose comparisons are neither True nor False
        return np.fromiter(
            (is_missing_value(value) for value in array.ravel().tolist()),
            dtype=bool,
            count=array.size,
        ).reshape(array.shape)


def _missing_error(name, position, what="sensitive feature"):
    return ValueError(
        f"{what} '{name}' has missing values (None/NaN), first at row {data_row(position)}. "
        "Missing values are never dropped silently: impute them, drop those rows, or encode "
        "'missing' as its own group before calling skfair."
    )


def factorize_column(column, name, what="sensitive feature", *, missing="raise", mixed="raise"):
    """Return ``(sorted distinct values, code of each sample)`` of one column.

    The one factoriser of skfair: group codes, the keys of frequency tables and the codes of
    rows all come from here. Codes follow the sorted order of the values (a categorical's
    categories keep their order), so they do not depend on the order of the rows.

    ``missing="raise"`` refuses a missing value (None, NaN, pd.NA, NaT) naming the column
    (``what`` ``name``) and its first row; ``missing="last"`` gives the rows with a missing
    value the code ``len(values)``. ``mixed="raise"`` refuses an object column mixing value
    types that would be ambiguous (1 and "1"); ``mixed="by_type"`` keeps them apart and sorts
    them by type and text.
    """
    if _is_arrow_strings(column):
        factorized = _factorize_arrow_strings(column)
        if factorized is not None:
            return factorized
        column = column.to_numpy()  # missing values: the general path below reports them
    if _is_categorical(column):
        absent = np.asarray(_categorical(column).codes) < 0
    else:
        column = np.asarray(column)
        if column.ndim != 1:
            raise ValueError(f"{what} '{name}' must be 1-D, got shape {column.shape}.")
        if column.dtype.kind == "O":
            # The hash table that finds the distinct values also finds pandas' missing ones
            # (code -1): without those, only the distinct values need the elementwise test.
            hashed = _hash_objects(column)
            if (
                hashed is not None
                and not (hashed[0] < 0).any()
                and not missing_mask(hashed[1]).any()
            ):
                return _factorize_objects(column, name, what, mixed, hashed=hashed)
        absent = missing_mask(column)
    if not absent.any():
        return _factorize_present(column, name, what, mixed)
    if missing == "raise":
        raise _missing_error(name, int(np.flatnonzero(absent)[0]), what)
    present = column.iloc[~absent] if hasattr(column, "iloc") else column[~absent]
    values, present_codes = _factorize_present(present, name, what, mixed)
    codes = np.full(absent.shape[0], len(values), dtype=np.intp)
    codes[~absent] = present_codes
    return values, codes


def column_codes(column):
    """``(n_values, codes)`` of one column, missing values (None, NaN, pd.NA) one value of
    their own, coded last; value types that do not compare (1 and "a") kept apart.

    The codes of the rows of X (:func:`skfair._utils._rows.row_codes`) and of the row keys of
    the random draws: the same whichever optional packages are installed.
    """
    if _is_categorical(column):  # by value, as any other column, not by category order
        column = np.asarray(column, dtype=object)
    values, codes = factorize_column(column, "column", "column", missing="last", mixed="by_type")
    return len(values) + int(codes.size > 0 and codes.max() == len(values)), codes


def _is_arrow_strings(column):
    """Whether ``column`` is a pandas string array stored by pyarrow (pandas' default string
    dtype when pyarrow is installed)."""
    dtype = getattr(column, "dtype", None)
    return (
        type(dtype).__name__ == "StringDtype"
        and getattr(dtype, "storage", None) == "pyarrow"
        and hasattr(column, "__arrow_array__")
    )


def _factorize_arrow_strings(column):
    """:func:`factorize_column` of a pyarrow-backed pandas string array without missing
    values, by pyarrow's dictionary encoding (no Python string per row): the values and
    codes of the object path, which sorts the distinct strings the same way. None when the
    column has missing values."""
    import pyarrow as pa

    strings = column.__arrow_array__()
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.chunk(0) if strings.num_chunks == 1 else strings.combine_chunks()
    if strings.null_count:
        return None
    encoded = strings.dictionary_encode()
    values = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    order = np.argsort(values.astype(str), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return values[order], rank[encoded.indices.to_numpy(zero_copy_only=False)]


def _fitted_string_codes(column, fitted):
    """Position in ``fitted`` (distinct strings) of each value of a pyarrow-backed pandas
    string column, by one pyarrow lookup (no factorisation of the column); None when the
    column is another kind, ``fitted`` holds anything but strings, or a value is missing or
    not in ``fitted`` (the general path then reports it or codes it as unseen)."""
    if not _is_arrow_strings(column) or not all(isinstance(label, str) for label in fitted):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    strings = column.__arrow_array__()
    if strings.null_count:
        return None
    positions = pc.index_in(strings, value_set=pa.array(fitted.tolist(), type=strings.type))
    if positions.null_count:
        return None
    return positions.to_numpy(zero_copy_only=False)


def _is_categorical(column):
    dtype = getattr(column, "dtype", None)
    return dtype is not None and getattr(dtype, "name", None) == "category"


def _categorical(column):
    """The pandas Categorical of a categorical Series, or the Categorical itself."""
    return column.cat if hasattr(column, "cat") else column


def _factorize_present(column, name, what, mixed):
    """:func:`factorize_column` of a column without missing values."""
    if _is_categorical(column):
        codes = np.asarray(_categorical(column).codes, dtype=np.intp)
        categories = np.asarray(_categorical(column).categories)
        used, codes = _compact(codes, len(categories))
        return categories[used], codes
    array = np.asarray(column)
    kind = array.dtype.kind
    if kind == "b":
        values, codes = _compact(array.astype(np.intp), 2)
        return values.astype(bool), codes
    if kind in "iu":
        return _factorize_integers(array)
    if kind == "f":
        return _factorize_floats(array)
    if kind == "O":
        return _factorize_objects(array, name, what, mixed)
    if kind in "USmMc":
        values, codes = np.unique(array, return_inverse=True)
        return values, codes.reshape(-1)
    raise TypeError(f"{what} '{name}' has unsupported dtype {array.dtype}.")


def _factorize_integers(array):
    low, high = int(array.min()), int(array.max())
    value_range = high - low + 1
    if value_range <= _LOOKUP_RANGE_FACTOR * array.shape[0] + 1024:
        # A lookup table over the value range: one bincount instead of a sort.
        present, codes = _compact(array - low, value_range)
        return (present + low).astype(array.dtype), codes
    values, codes = np.unique(array, return_inverse=True)
    return values, codes.reshape(-1)


def _factorize_floats(array):
    """Sorted distinct values and codes of a float array without NaN: a hash table (pandas)
    finds the distinct values, and only those are sorted (``np.unique`` sorts every value)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - exercised without pandas only
        values, codes = np.unique(array, return_inverse=True)
        return values, codes.reshape(-1)
    # + 0.0 turns -0.0 into 0.0: one value, as np.unique has it.
    codes, values = pd.factorize(array + 0.0, sort=False)
    order = np.argsort(values)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return values[order], rank[codes]


def _hash_objects(array):
    """``(codes, distinct values)`` of an object array by pandas' hash table (missing values
    coded -1), or None without pandas."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - exercised without pandas only
        return None
    codes, values = pd.factorize(array, sort=False, use_na_sentinel=True)
    return codes, np.asarray(values, dtype=object)


def _factorize_objects(array, name, what, mixed, hashed=None):
    """Values equal under ``==`` are one value (1, 1.0 and True, as for pandas); a hash table
    (pandas, when installed) finds them in linear time, a sort otherwise: the same values and
    codes either way. ``hashed`` is :func:`_hash_objects` of ``array`` when already made."""
    if hashed is None:
        hashed = _hash_objects(array)
    if hashed is not None:
        codes, values = hashed
    else:  # pragma: no cover - exercised without pandas only
        try:
            values, codes = np.unique(array, return_inverse=True)
        except TypeError:  # values that do not compare: the type check below names them
            values, codes = np.unique(_typed_text(array), return_inverse=True)
            first = np.zeros(len(values), dtype=np.intp)
            first[codes[::-1]] = np.arange(array.shape[0])[::-1]
            values = array[first]
        codes = codes.reshape(-1)
    types = {type(_python_scalar(value)) for value in values}
    if types <= {int, float, bool}:
        order = np.argsort(np.asarray(values.tolist()), kind="stable")
    elif len(types) == 1:
        order = np.argsort(values.astype(str), kind="stable")
    elif mixed == "raise":
        raise ValueError(
            f"{what} '{name}' mixes value types {sorted(t.__name__ for t in types)}; "
            "values such as 1 and '1' would be ambiguous. Convert the column to one type."
        )
    else:
        order = np.argsort(_typed_text(values), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    sorted_values = values[order]
    if types <= {int, float, bool}:
        sorted_values = np.asarray(sorted_values.tolist())
    return sorted_values, rank[codes]


def _typed_text(values):
    """``type:text`` of each value: values of different types never equal."""
    return np.array([f"{type(value).__name__}:{value}" for value in values.tolist()])


def _compact(codes, n_possible):
    """Renumber non-negative ``codes`` < n_possible to the values present, keeping order."""
    if n_possible <= 4 * codes.shape[0] + 1024:
        present_mask = np.bincount(codes, minlength=n_possible) > 0
        present = np.flatnonzero(present_mask)
        lookup = np.cumsum(present_mask) - 1
        return present, lookup[codes]
    present, inverse = np.unique(codes, return_inverse=True)
    return present, inverse.reshape(-1)


def _ravel(attribute_codes, dims):
    if len(dims) == 1:
        return attribute_codes[:, 0].astype(np.int64)
    if np.prod(dims, dtype=np.float64) >= np.iinfo(np.int64).max:
        raise ValueError(
            f"Too many combinations of sensitive values ({' x '.join(map(str, dims))})."
        )
    return np.ravel_multi_index(tuple(attribute_codes.T), dims).astype(np.int64)


def _match_labels(values, fitted, name, *, raise_unseen=True):
    """Position in ``fitted`` of each of ``values``; unseen values raise naming the value.

    With ``raise_unseen=False`` unseen values get the position -1 instead.
    """
    fitted_keys = [_label_key(v) for v in fitted.tolist()]
    value_keys = [_label_key(v) for v in values.tolist()]
    if value_keys == fitted_keys and len(set(fitted_keys)) == len(fitted_keys):
        return np.arange(len(fitted_keys))  # the values seen at fit, in the same order
    fitted_keys = np.array(fitted_keys, dtype=object)
    value_keys = np.array(value_keys, dtype=object)
    order = np.argsort(fitted_keys.astype(str), kind="stable")
    sorted_keys = fitted_keys[order].astype(str)
    position = np.searchsorted(sorted_keys, value_keys.astype(str))
    position_clipped = np.minimum(position, len(sorted_keys) - 1)
    unseen = sorted_keys[position_clipped] != value_keys.astype(str)
    if unseen.any() and not raise_unseen:
        return np.where(unseen, -1, order[position_clipped])
    if unseen.any():
        value = _python_scalar(values[np.flatnonzero(unseen)[0]])
        raise ValueError(
            f"Group {value!r} of sensitive feature '{name}' was not seen at fit; the fitted "
            f"values are {fitted.tolist()}. Fit on data that contains every group."
        )
    return order[position_clipped]
