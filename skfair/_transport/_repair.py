"""The base of the repair transformers: everything but the maps.

A repair maps each column of model outputs, within each group of the sensitive features, by
a map fitted on calibration outputs. :class:`_BaseRepair` owns what every repair shares --
input validation in both sensitive-feature modes, the no-group path, unseen groups, sample
weights, random numbers and the fitted group attributes -- and a subclass implements only its
maps, in the shape of imbalanced-learn's ``SamplerMixin`` (the public method validates, the
private one works):

- ``_fit_maps(X, y, groups, sample_weight, draws, *, in_sample)`` fits the maps from the
  validated float outputs ``X``, the :class:`~skfair._utils._groups.GroupEncoding` of the
  calibration rows, the checked weights (or None) and the calibration rows' random draws;
  with ``in_sample`` it returns the repaired calibration outputs;
- ``_fit_identity(X, y)`` sets the subclass's fitted attributes when there is no group to
  repair (fitted without sensitive features);
- ``_apply_maps(X, codes, draws)`` repairs new outputs of known groups.

``transform`` is a pure function of the fitted object, the rows and their global positions
(``_transform(X, sensitive_features, row_offset)``), so that a block of a larger array is
repaired exactly as inside the whole array.

On dask input, ``transform`` maps ``_transform`` over the row blocks lazily, each block at its
row offset; ``fit`` reads the calibration rows as their frequency table (distinct rows with
counts) when the repair says it can be fitted from one (:meth:`_BaseRepair._table_fit_refusal`
returns None): maps that depend on the calibration data through weighted ECDFs are then
exactly those of the in-memory fit.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted

from skfair._base import resolve_sensitive, warn_no_sensitive_features
from skfair._dask import check_in_memory, map_row_blocks, reduce_arguments, uses_dask
from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    SENSITIVE_COLUMN_CONSTRAINT,
    StrOptions,
    _check_feature_names_in,
    _fit_context,
    validate_data,
)
from skfair._utils._frames import as_supported_frame
from skfair._utils._groups import (
    factorize_groups,
    sensitive_column_positions,
    split_numeric_frame,
    split_sensitive_column,
)
from skfair._utils._random import RowRandom, draw_seed
from skfair._utils._validation import check_group_weights, check_weights, plain_array_checked

# The hint of the error raised by fit_transform (the in-sample path) on dask input.
IN_SAMPLE_ON_DASK = (
    "It ranks all calibration rows together. Use fit(S).transform(S), which reads the "
    "calibration data as a table and repairs block by block."
)


class _BaseRepair(TransformerMixin, BaseEstimator):
    """Fit, transform and fit_transform of a repair; subclasses implement the maps.

    **Sensitive features.** They come as ``sensitive_features=`` or, with
    ``sensitive_column`` set, as columns of the input, which are read and removed before
    validation (they may be strings): the output and ``get_feature_names_out`` then have the
    remaining columns only, while ``n_features_in_`` and ``feature_names_in_`` describe the
    input as given. Named sensitive features (DataFrame columns, dict keys, a named Series)
    are matched by name at transform, and renamed ones are refused. Without sensitive
    features every row is in one group and the repair is the identity (with a warning).

    **Randomness.** One seed is drawn from ``random_state`` at fit; every random number
    (the order of tied calibration outputs, a level drawn across an atom, the random partial
    repair, jitter) is then a function of that seed and the row's position only
    (:class:`RowRandom`). Repeated ``transform`` calls thus return the same output for any
    ``random_state``, None and RandomState instances included, and a row's output does not
    depend on the other rows of the batch.
    """

    __metadata_request__fit = {"sensitive_features": True}
    __metadata_request__transform = {"sensitive_features": True}

    # Whether the maps use the row-keyed random numbers (else no seed is drawn at fit).
    _uses_random_numbers = True

    _parameter_constraints: dict = {
        "handle_unknown": [StrOptions({"error", "identity"})],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "sensitive_column": SENSITIVE_COLUMN_CONSTRAINT,
    }

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, sensitive_features=None, sample_weight=None):
        """Fit the maps of each group on calibration outputs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outputs)
            Calibration outputs (scores, probabilities, regression outputs); each column is
            repaired on its own. With ``sensitive_column`` it holds the sensitive column(s).
        y : array-like of shape (n_samples,), default=None
            Labels, used by repairs that choose their strength from accuracy; else ignored.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), \
                dict or DataFrame, default=None
            Sensitive attribute(s); several attributes give intersectional groups. None (and
            no ``sensitive_column``) means one group: the repair is the identity.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the calibration rows.

        Returns
        -------
        self : object
            The fitted repair.
        """
        if uses_dask(X, y, sensitive_features, sample_weight):
            return self._fit_on_dask(X, y, sensitive_features, sample_weight)
        self._fit(X, y, sensitive_features, sample_weight, in_sample=False)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None, *, sensitive_features=None, sample_weight=None):
        """Fit, and repair the calibration rows themselves (the in-sample path).

        Calibration rows are repaired by their rank in their group (tied rows in random
        order), which can differ on purpose from ``fit(X).transform(X)`` where a row equal
        to a calibration value gets a level drawn across its atom, like new data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outputs)
            Calibration outputs.
        y : array-like of shape (n_samples,), default=None
            Labels, used by repairs that choose their strength from accuracy; else ignored.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s). None means one group: the repair is the identity.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the calibration rows.

        Returns
        -------
        X_repaired : ndarray of shape (n_samples, n_outputs)
            The repaired calibration outputs, in the row order of ``X``.
        """
        check_in_memory("fit_transform", X, sensitive_features, hint=IN_SAMPLE_ON_DASK)
        return self._fit(X, y, sensitive_features, sample_weight, in_sample=True)

    def transform(self, X, *, sensitive_features=None):
        """Repair new outputs with the fitted maps.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outputs)
            Outputs with the columns seen at fit.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s) of the rows; named ones are matched by name. Required when
            the repair was fitted with sensitive features.

        Returns
        -------
        X_repaired : ndarray of shape (n_samples, n_outputs)
            Same shape and row order as ``X``.
        """
        if uses_dask(X, sensitive_features):
            n_outputs = len(self.get_feature_names_out())
            return map_row_blocks(
                _transform_block, [X, sensitive_features], trailing_shape=(n_outputs,), repair=self
            )
        return self._transform(X, sensitive_features, row_offset=0)

    def get_feature_names_out(self, input_features=None):
        """Get the names of the output columns: the input's, without the sensitive columns.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; defaults to ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str
            One name per output column, in order.
        """
        check_is_fitted(self, "n_features_in_")
        names = _check_feature_names_in(self, input_features)
        if self.sensitive_column is None:
            return names
        known = getattr(self, "feature_names_in_", None)
        positions = sensitive_column_positions(
            self.sensitive_column, len(names), None if known is None else list(known)
        )
        return np.delete(names, positions)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    # ----------------------------------------------------------------------------------------
    # the shared work

    def _table_fit_refusal(self):
        """None when the maps can be fitted from the frequency table of the calibration rows
        (dask input); otherwise why they need the rows themselves."""
        return (
            "its maps rank the calibration rows within their groups, which a table of "
            "distinct rows does not do."
        )

    def _fit_on_dask(self, X, y, sensitive_features, sample_weight):
        """Fit on dask calibration data: by default on the frequency table of its distinct
        rows (exact for table fits)."""
        reason = self._table_fit_refusal()
        if reason is not None:
            raise TypeError(
                f"{type(self).__name__}.fit does not accept dask collections: {reason} Fit it "
                "on an in-memory calibration sample (e.g. ddf.sample(frac=0.1).compute()); "
                "transform then accepts dask input."
            )
        arguments = {
            "X": X,
            "y": y,
            "sensitive_features": sensitive_features,
            "sample_weight": sample_weight,
        }
        table = reduce_arguments(
            arguments,
            ("X", "y", "sensitive_features", "sample_weight"),
            hint="Round the outputs first (e.g. S.round(4)): the fit is then exactly the "
            "in-memory fit on the rounded outputs.",
        )
        X, sensitive = arguments["X"], arguments["sensitive_features"]
        if self.sensitive_column is not None:
            sensitive, _ = split_sensitive_column(X, self.sensitive_column)
        groups = None if sensitive is None else factorize_groups(sensitive)
        if groups is not None and groups.n_attributes > 1 and np.any(np.asarray(self.epsilon) > 0):
            raise TypeError(
                f"{type(self).__name__}.fit does not accept dask collections for a sequential "
                "repair (several attributes with epsilon > 0): each step is fitted on the "
                "in-sample repaired rows of the step before. Fit it in memory, or repair the "
                "joint groups (epsilon=0) on dask input."
            )
        self._fit(
            X,
            arguments["y"],
            arguments["sensitive_features"],
            arguments["sample_weight"],
            in_sample=False,
        )
        # Calibration rows per group: the table's frequencies, not its number of rows.
        if groups is None:
            self.group_counts_ = np.array([int(table.count.sum())])
        else:
            self.group_counts_ = groups.counts(table.count).astype(np.int64)
        return self

    def _fit(self, X, y, sensitive_features, sample_weight, *, in_sample):
        X, sensitive_features = self._split_input(X, sensitive_features, reset=True)
        n_samples = X.shape[0]
        # Equal weights come back as None: the unweighted path gives the same maps, bit for bit.
        weights = check_weights(sample_weight, n_samples)
        if sensitive_features is None:
            self._record_groups(None, np.array([n_samples]))
            self._fit_identity(X, y)
            return X.copy() if in_sample else None
        groups = factorize_groups(sensitive_features, n_samples=n_samples)
        check_group_weights(groups, weights)
        self._record_groups(groups, groups.counts())
        draws = RowRandom(self._seed, np.arange(n_samples))
        return self._fit_maps(X, y, groups, weights, draws, in_sample=in_sample)

    def _record_groups(self, groups, counts):
        """Draw the seed and set the fitted group attributes from the calibration rows'
        :class:`GroupEncoding` (None: no sensitive features) and rows per group."""
        # A repair without random numbers takes none from random_state (None: numpy's global
        # generator, whose state a deterministic fit should leave alone).
        self._seed = draw_seed(self.random_state) if self._uses_random_numbers else 0
        self.group_counts_ = counts
        if groups is None:
            warn_no_sensitive_features(self)
            self._groups, self.groups_, self.categories_, self.n_groups_ = None, [None], [], 1
            return
        # The per-sample codes are not needed after fit; transform encodes new samples.
        self._groups = replace(
            groups, codes=groups.codes[:0], attribute_codes=groups.attribute_codes[:0]
        )
        self.groups_ = groups.labels
        self.categories_ = list(groups.attribute_labels)
        self.n_groups_ = groups.n_groups
        if groups.named:
            self.sensitive_feature_names_in_ = np.asarray(groups.names, dtype=object)
        elif hasattr(self, "sensitive_feature_names_in_"):
            del self.sensitive_feature_names_in_

    def _transform(self, X, sensitive_features, *, row_offset):
        """Repair ``X``, whose first row is at position ``row_offset`` of the whole data."""
        check_is_fitted(self, "n_groups_")
        X, sensitive_features = self._split_input(X, sensitive_features, reset=False)
        if self._groups is None:
            return X.copy()
        if sensitive_features is None:
            raise ValueError(
                f"{type(self).__name__} was fitted with sensitive features {self.groups_}, so "
                "transform needs them: pass sensitive_features=, or set sensitive_column= (here "
                "or on the RepairedClassifier / RepairedRegressor wrappers)."
            )
        codes = self._groups.encode(
            sensitive_features,
            n_samples=X.shape[0],
            handle_unknown="error" if self.handle_unknown == "error" else "ignore",
        )
        draws = RowRandom(self._seed, np.arange(row_offset, row_offset + X.shape[0]))
        known = codes >= 0
        if known.all():
            return self._apply_maps(X, codes, draws)
        # rows of groups unseen at fit are returned unchanged
        _warn_unknown(sensitive_features, ~known, type(self).__name__)
        out = X.copy()
        if known.any():
            out[known] = self._apply_maps(X[known], codes[known], draws[known])
        return out

    def _split_input(self, X, sensitive_features, *, reset):
        """``(X as finite float array without the sensitive columns, sensitive values)``."""
        X = as_supported_frame(X)
        if self.sensitive_column is None:
            X = validate_floats(self, X, reset=reset)
        else:
            columns = check_columns(self, X, reset=reset)
            split = None
            if sensitive_features is None:  # else resolve_sensitive refuses both
                split = split_numeric_frame(X, self.sensitive_column, columns=columns)
            if split is not None:
                sensitive_features, X = split
            else:
                sensitive_features, rest = resolve_sensitive(
                    X, sensitive_features, self.sensitive_column
                )
                if rest.shape[1] == 0:
                    raise ValueError(
                        f"sensitive_column={self.sensitive_column!r} leaves no column to "
                        "repair; the input needs at least one output column besides the "
                        "sensitive ones."
                    )
                X = as_floats(rest)
        _check_finite(X)
        return X, sensitive_features

    # ----------------------------------------------------------------------------------------
    # what a repair implements

    def _fit_maps(self, X, y, groups, sample_weight, draws, *, in_sample):
        raise NotImplementedError

    def _fit_identity(self, X, y):
        raise NotImplementedError

    def _apply_maps(self, X, codes, draws):
        raise NotImplementedError


def _transform_block(X, sensitive_features, *, row_offset, repair):
    return repair._transform(X, sensitive_features, row_offset=row_offset)


def repair_at_offset(repair, row_offset):
    """``repair`` as a transformer of rows that start at ``row_offset`` of the whole data:
    the row-keyed random numbers of skfair's repairs then match the whole data's; any other
    transformer is returned as it is."""
    if not isinstance(repair, _BaseRepair) or row_offset == 0:
        return repair
    return _AtOffset(repair, row_offset)


class _AtOffset:
    """A fitted repair whose ``transform`` repairs rows starting at ``row_offset``."""

    def __init__(self, repair, row_offset):
        self.repair = repair
        self.row_offset = row_offset

    def transform(self, X, *, sensitive_features=None):
        return self.repair._transform(X, sensitive_features, row_offset=self.row_offset)


def validate_floats(estimator, X, *, reset):
    """``validate_data(estimator, X, dtype=float64)`` without the finiteness check.

    A 2-D float64 numpy array is returned as it is after the checks of its feature names and
    number of features, without scikit-learn's search for a dataframe library behind it,
    which costs more than a small repair itself.
    """
    if type(X) is np.ndarray and X.dtype == np.float64:
        checked = plain_array_checked(estimator, X, reset=reset)
        if checked is not None:
            return checked
    return validate_data(estimator, X, dtype=np.float64, reset=reset, ensure_all_finite=False)


def check_columns(estimator, X, *, reset):
    """``validate_data(estimator, X, skip_check_array=True, reset=reset)``, the checks of the
    feature names and number of columns, without scikit-learn's search for a dataframe library
    when ``X`` is a pandas DataFrame with string column names.

    The names are read as scikit-learn reads them (``np.asarray(X.columns, dtype=object)``,
    all ``str``); every other case, and any mismatch with the fitted names or number of
    columns, goes through scikit-learn's check, which warns or raises as it always does.
    Returns the column names as a list when they were read here (for the caller to reuse),
    else None.
    """
    if type(X).__module__.partition(".")[0] == "pandas" and getattr(X, "ndim", 0) == 2:
        names = np.asarray(X.columns, dtype=object)
        columns = names.tolist()
        if columns and all(type(name) is str for name in columns):
            if reset:
                estimator.feature_names_in_ = names
                estimator.n_features_in_ = names.shape[0]
                return columns
            fitted = getattr(estimator, "feature_names_in_", None)
            if (
                fitted is not None
                and fitted.shape == names.shape
                and getattr(estimator, "n_features_in_", None) == names.shape[0]
                and (fitted == names).all()
            ):
                return columns
    validate_data(estimator, X, skip_check_array=True, reset=reset)
    return None


def as_floats(X):
    """``check_array(X, dtype=float64)`` without the finiteness check, for input already
    validated: a float64 numpy array is returned as it is, a pandas DataFrame of numpy
    numeric columns converted directly."""
    if type(X) is np.ndarray and X.ndim == 2 and X.dtype == np.float64:
        return X
    if (
        hasattr(X, "iloc")
        and getattr(X, "ndim", 0) == 2
        and 0 not in X.shape
        and all(isinstance(dtype, np.dtype) and dtype.kind in "biuf" for dtype in X.dtypes)
    ):
        return X.to_numpy(dtype=np.float64)
    return check_array(X, dtype=np.float64, ensure_all_finite=False)


def _check_finite(X):
    finite = np.isfinite(X)
    if not finite.all():
        bad = (~finite).sum(axis=0)
        column = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"Input contains NaN or inf: {int(bad[column])} value(s) in column {column}. "
            "Outputs must be finite; nothing is dropped silently."
        )


def _warn_unknown(sensitive_features, unknown, owner):
    groups = factorize_groups(sensitive_features)
    labels = np.unique(groups.codes[unknown])
    names = [groups.labels[g] for g in labels[:10]]
    warnings.warn(
        f"{int(unknown.sum())} row(s) belong to groups not seen at fit {names} "
        f"(of {groups.names}); {owner} returns them unchanged (handle_unknown='identity').",
        UserWarning,
        stacklevel=4,
    )
