"""Distribution repair of input features: the score repair's barycenter maps on each column.

Each numeric column is mapped, within the row's group, by the monotone transport map to the
groups' common distribution (the W2 barycenter, or Feldman et al.'s median distribution),
partially along the geodesic with ``amount``. The maps are those of
:class:`~skfair.postprocessing.BarycenterRepair`: one implementation, fitted on training rows
and applied to new rows.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np

from skfair._base import resolve_sensitive
from skfair._dask import check_in_memory, uses_dask
from skfair._transport._barycenter import BarycenterMaps, check_shares
from skfair._transport._repair import _BaseRepair, _check_finite, as_floats, validate_floats
from skfair._utils._compat import (
    Interval,
    StrOptions,
    _fit_context,
    _get_output_config,
    validate_data,
)
from skfair._utils._frames import as_supported_frame
from skfair.preprocessing._docs import documented

_ON_DASK = (
    "Fit it on an in-memory sample of the rows (e.g. ddf.sample(frac=...).compute()): the maps "
    "need the sorted values of every group. transform then accepts dask collections."
)


@documented
class FeatureRepair(BarycenterMaps):
    """Repair input features so that each has the same distribution in every group.

    Each numeric column ``x`` of a row of group ``a`` is replaced by
    ``(1 - amount) * x + amount * T_a(x)``, where ``T_a = Q(F_a(x))`` maps the group's
    distribution of the column onto a common one: the W2 barycenter of the groups'
    distributions, with quantile function ``Q = Σ_b p_b Q_b`` (Gordaliza et al. 2019), or the
    median distribution ``Q = median_b Q_b`` (Feldman et al. 2015). ``amount=1`` is the total
    repair; smaller values move along the Wasserstein geodesic. The maps are fitted on the
    training rows and repair new rows of known groups (out of sample), with the machinery of
    :class:`~skfair.postprocessing.BarycenterRepair`.

    Parameters
    ----------
    amount : float or array-like of float in [0, 1], default=1.0
        How far each value moves towards its repaired value: 0 is the identity, 1 the total
        repair. Between groups, the Wasserstein-1 distance of every column shrinks by the
        factor ``1 - amount``. A sequence gives one amount per sensitive attribute, repaired
        one after the other in the column order of ``sensitive_features``.
    method : {"barycenter", "median"}, default="barycenter"
        The common distribution: ``"barycenter"``, the W2 barycenter (the group quantile
        functions averaged with the group shares, the least total squared change), or
        ``"median"``, the median of the group quantile functions, every group counting the
        same (Feldman et al.'s "total repair"; with an even number of groups, the mean of the
        two middle ones).
    handle_unknown : {"error", "identity"}, default="error"
        A group not seen at fit raises a ValueError naming it, or with ``"identity"`` its
        rows are returned unchanged with a warning.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the order of tied training values and the level drawn for a value equal to a
        training value of its group. Every random number is keyed on the fitted seed and the
        row's position, so repeated ``transform`` calls give identical output.
    {sensitive_column_removed}

    Attributes
    ----------
    {repair_columns_in}
    categorical_features_ : ndarray of bool of shape (n_features_out,)
        Which output columns are categorical (not numeric) and passed through unchanged.
    groups_ : list
        Label of each group (a tuple of values for several attributes).
    categories_ : list of ndarray
        Sorted values of each sensitive attribute.
    n_groups_ : int
        Number of groups (observed combinations of attribute values).
    group_counts_ : ndarray of shape (n_groups,)
        Training rows per group.
    sensitive_feature_names_in_ : ndarray of str
        Names of the sensitive attributes seen at fit, when they had names.
    w2_dispersion_ : ndarray of shape (n_numeric_features,)
        With ``method="barycenter"``: ``Σ_a p_a W2²(ν_a, ν̄)`` of each numeric column, the
        mean squared change of the total repair.
    sequential_ : bool
        Whether the attributes are repaired one after the other (several attributes and some
        ``amount < 1``) rather than as joint groups.

    See Also
    --------
    skfair.postprocessing.BarycenterRepair : The same maps applied to model scores.
    CorrelationRemover : Removes only the linear dependence (group means).
    ReweighingClassifier : Reweighs the training rows instead of changing them.

    Notes
    -----
    **What is repaired.** Each column's distribution becomes the same in every group
    (marginal independence of each column from the attribute); the dependence between columns
    and the joint distribution are not equalised, so a model combining several repaired
    columns can still recover some group information.

    **Ties and discrete columns.** ``fit_transform`` repairs the training rows by their rank
    in their group, tied values in random order: on the training rows, the Kolmogorov-Smirnov
    distance between any two groups' repaired columns is below ``1 / min(n_a, n_b)``, also
    for integer columns. ``transform`` gives a new value equal to a training value of its
    group a level drawn uniformly across that value's step (the randomised probability
    integral transform); ``fit(X).transform(X)`` therefore differs from ``fit_transform(X)``
    on tied values, on purpose. A repaired discrete column takes values of the common
    distribution, which need not be integers.

    **Categorical columns** (non-numeric: strings, categories, booleans) have no order to
    transport along; they are passed through unchanged, with a warning at fit naming them,
    and may still carry information on the groups. One-hot encode them first to have their
    indicator columns repaired as numbers in [0, 1], or drop them.

    **Several attributes.** With every ``amount`` 1 the groups are the joint cells. Otherwise
    the attributes are repaired one after the other (each within the strata of the later
    attributes); only the attribute repaired last is marginally exact.

    **Out of sample.** The group shares and quantile functions come from the training rows;
    on new rows drawn from the same distribution, the remaining distance between groups is
    of the order of the sampling error ``sqrt(1/n_a + 1/n_b)`` of the training groups.

    References
    ----------
    M. Feldman, S. A. Friedler, J. Moeller, C. Scheidegger and S. Venkatasubramanian,
    "Certifying and removing disparate impact", KDD 2015. P. Gordaliza, E. del Barrio,
    F. Gamboa and J.-M. Loubes, "Obtaining fairness using optimal transport theory", ICML 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.preprocessing import FeatureRepair
    >>> income = np.r_[np.arange(10, 20), np.arange(30, 40)][:, None]
    >>> group = np.repeat(["a", "b"], 10)
    >>> repair = FeatureRepair(random_state=0).fit(income, sensitive_features=group)
    >>> repair.transform([[12], [32]], sensitive_features=["a", "b"])
    array([[22.],
           [22.]])
    >>> FeatureRepair(0.5).fit(income, sensitive_features=group).transform(
    ...     [[12.5], [32.5]], sensitive_features=["a", "b"])
    array([[17.25],
           [27.25]])
    """

    # The score repair's settings that FeatureRepair fixes: geodesic partial repair, and the
    # randomised rule for ties.
    mode = "geometric"
    ties = "randomized"
    jitter = 0.0

    _parameter_constraints: dict = {
        **_BaseRepair._parameter_constraints,
        "amount": [Interval(Real, 0, 1, closed="both"), "array-like"],
        "method": [StrOptions({"barycenter", "median"})],
    }

    def __init__(
        self,
        amount=1.0,
        *,
        method="barycenter",
        handle_unknown="error",
        random_state=None,
        sensitive_column=None,
    ):
        self.amount = amount
        self.method = method
        self.handle_unknown = handle_unknown
        self.random_state = random_state
        self.sensitive_column = sensitive_column

    @property
    def epsilon(self):
        """The share of the original kept, per attribute: the score repair's parameter."""
        if np.ndim(self.amount) == 0:
            return 1.0 - self.amount
        return [1.0 - amount for amount in self.amount]

    @property
    def _center(self):
        return "median" if self.method == "median" else "mean"

    def fit(self, X, y=None, *, sensitive_features=None, sample_weight=None):
        """Fit the maps of each group on training rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features; with ``sensitive_column`` they hold the sensitive column(s).
        {fit_y_sensitive_features}
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the training rows.

        Returns
        -------
        self : object
            The fitted repair.
        """
        check_in_memory("FeatureRepair.fit", X, sensitive_features, hint=_ON_DASK)
        return super().fit(X, y, sensitive_features=sensitive_features, sample_weight=sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None, *, sensitive_features=None, sample_weight=None):
        """Fit, and repair the training rows themselves (by their ranks in their group).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features.
        y : None
            Ignored.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the training rows.

        Returns
        -------
        X_repaired : ndarray of shape (n_samples, n_features_out)
            The columns of ``X`` without the sensitive ones; float64 unless categorical
            columns are passed through (an object array then; ``set_output(transform="pandas")``
            or ``"polars"`` gives a DataFrame that keeps their dtypes, without boxing the
            numbers).
        """
        check_in_memory("FeatureRepair.fit_transform", X, sensitive_features, hint=_ON_DASK)
        repaired = self._fit(X, y, sensitive_features, sample_weight, in_sample=True)
        return self._with_passthrough(X, repaired)

    def transform(self, X, *, sensitive_features=None):
        """Repair new rows with the maps fitted on the training rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows with the columns seen at fit.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s) of the rows; required when fitted with them.

        Returns
        -------
        X_repaired : ndarray of shape (n_samples, n_features_out)
            Same rows, in the same order. On dask input, a lazy dask array: each block is
            repaired at its global row positions, so the result is exactly the in-memory one.
        """
        if uses_dask(X, sensitive_features):
            if self.categorical_features_.any():
                raise TypeError(
                    "FeatureRepair.transform of dask collections returns the repaired numeric "
                    "columns only: select them (without the categorical columns "
                    f"{self.get_feature_names_out()[self.categorical_features_].tolist()}) "
                    "when fitting, or transform in memory."
                )
            return super().transform(X, sensitive_features=sensitive_features)
        repaired = self._transform(X, sensitive_features, row_offset=0)
        return self._with_passthrough(X, repaired)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True  # categorical columns are passed through
        tags.input_tags.categorical = True
        return tags

    # ----------------------------------------------------------------------------------------
    # the score repair, on the numeric columns

    def _fit_identity(self, X, y):
        check_shares(self.amount, None, "amount")
        super()._fit_identity(X, y)

    def _fit_maps(self, X, y, groups, sample_weight, draws, *, in_sample):
        check_shares(self.amount, groups.n_attributes, "amount")
        repaired = super()._fit_maps(X, y, groups, sample_weight, draws, in_sample=in_sample)
        if self.method == "median":
            del self.w2_dispersion_  # the dispersion around the barycenter, not the median
        return repaired

    def _split_input(self, X, sensitive_features, *, reset):
        """``(numeric columns as a finite float array, sensitive values)``; categorical
        columns are set aside (and found again by :meth:`_with_passthrough`)."""
        sensitive_features, rest = self._sensitive_and_rest(X, sensitive_features, reset=reset)
        if reset:
            self.categorical_features_ = _categorical_mask(rest)
            if self.categorical_features_.all():
                raise ValueError(
                    "FeatureRepair repairs numeric columns, and X has none (besides the "
                    "sensitive ones): its columns are all categorical."
                )
            if self.categorical_features_.any():
                names = self.get_feature_names_out()[self.categorical_features_].tolist()
                warnings.warn(
                    f"Columns {names} are categorical (not numeric): FeatureRepair passes them "
                    "through unchanged, so they may still carry information on the groups. "
                    "One-hot encode them first to repair their indicators, or drop them.",
                    UserWarning,
                    stacklevel=4,
                )
        categorical = self.categorical_features_
        numeric = as_floats(_columns(rest, ~categorical) if categorical.any() else rest)
        _check_finite(numeric)
        return numeric, sensitive_features

    def _sensitive_and_rest(self, X, sensitive_features, *, reset):
        X = as_supported_frame(X)  # polars, pyarrow, lazy frames: as pandas
        if hasattr(X, "iloc"):
            validate_data(self, X, skip_check_array=True, reset=reset)
        else:
            # Numbers without a sensitive column among them are converted once, here.
            kind = np.dtype(getattr(X, "dtype", object)).kind
            if self.sensitive_column is None and kind in "biuf":
                X = validate_floats(self, X, reset=reset)
            else:
                X = validate_data(self, X, dtype=None, ensure_all_finite=False, reset=reset)
        sensitive_features, rest = resolve_sensitive(X, sensitive_features, self.sensitive_column)
        if rest.shape[1] == 0:
            raise ValueError(
                f"sensitive_column={self.sensitive_column!r} leaves no column to repair; X "
                "needs at least one feature besides the sensitive ones."
            )
        return sensitive_features, rest

    def _with_passthrough(self, X, repaired):
        """The repaired numeric columns with the categorical ones put back in place."""
        categorical = self.categorical_features_
        if not categorical.any():
            return repaired
        _, rest = self._sensitive_and_rest(X, None, reset=False)
        output = _get_output_config("transform", self)["dense"]
        if output in ("pandas", "polars"):
            import pandas as pd

            columns, numeric = {}, iter(range(repaired.shape[1]))
            for j, name in enumerate(self.get_feature_names_out()):
                columns[name] = _column(rest, j) if categorical[j] else repaired[:, next(numeric)]
            frame = pd.DataFrame(columns, index=getattr(rest, "index", None))
            if output == "pandas":
                return frame
            import polars as pl

            return pl.from_pandas(frame)
        out = np.empty((repaired.shape[0], categorical.shape[0]), dtype=object)
        out[:, ~categorical] = repaired
        out[:, categorical] = np.asarray(_columns(rest, categorical), dtype=object)
        return out


# --------------------------------------------------------------------------------------------
# small pure helpers


def _categorical_mask(X):
    """Which columns of ``X`` are not numeric (strings, categories, booleans)."""
    if hasattr(X, "dtypes"):
        return np.array([dtype.kind not in "iuf" for dtype in X.dtypes], dtype=bool)
    if X.dtype.kind != "O":
        return np.full(X.shape[1], X.dtype.kind not in "iuf")
    return np.array([not _is_numeric(X[:, j]) for j in range(X.shape[1])], dtype=bool)


def _is_numeric(column):
    try:
        column.astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _columns(X, mask):
    return X.loc[:, mask] if hasattr(X, "iloc") else X[:, mask]


def _column(X, j):
    return X.iloc[:, j] if hasattr(X, "iloc") else X[:, j]
