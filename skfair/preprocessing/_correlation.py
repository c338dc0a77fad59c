"""Linear decorrelation of the features from the groups (fairlearn's ``CorrelationRemover``).

Regressing a column on the centred one-hot indicators of the groups by least squares gives,
as fitted values, the group means minus the overall mean (the indicators span the group
means). The residual is therefore the column shifted by its group's offset from the overall
mean: two weighted sums per group and column, no matrix to factorise. On dask collections
the sums are those of the frequency table of the distinct sensitive values
(:class:`~skfair._stats._table.DistinctRows` with the features as value columns), computed
per partition and added up on the workers.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils.validation import check_array

from skfair._base import resolve_sensitive
from skfair._dask import align, check_block, check_block_lengths, reduce_blocks
from skfair._dask._columns import as_numpy, split_argument
from skfair._stats._table import DistinctRows
from skfair._transport._repair import _BaseRepair, _check_finite
from skfair._utils._compat import Interval, validate_data
from skfair._utils._groups import factorize_groups
from skfair._utils._validation import check_group_weights
from skfair.preprocessing._docs import documented


@documented
class CorrelationRemover(_BaseRepair):
    """Remove the linear dependence of the features on the sensitive groups.

    Each column ``z`` is regressed by least squares on the centred one-hot indicators ``S_c``
    of the groups, and replaced by ``z - alpha * S_c beta``: at ``alpha=1`` the residual, which
    is uncorrelated with every group indicator (every group has the same mean). This is
    fairlearn's ``CorrelationRemover`` with the sensitive columns one-hot encoded; the
    sensitive columns are not in the output.

    Parameters
    ----------
    alpha : float in [0, 1], default=1.0
        How much of the linear dependence is removed: 0 is the identity, 1 the full
        decorrelation; the output is linear in ``alpha``.
    handle_unknown : {"error", "identity"}, default="error"
        A group not seen at fit raises a ValueError naming it, or with ``"identity"`` its
        rows are returned unchanged with a warning.
    {sensitive_column_removed}

    Attributes
    ----------
    {repair_columns_in}
    groups_ : list
        Label of each group (a tuple of values for several attributes).
    categories_ : list of ndarray
        Sorted values of each sensitive attribute.
    n_groups_ : int
        Number of groups.
    group_counts_ : ndarray of shape (n_groups,)
        Training rows per group.
    sensitive_feature_names_in_ : ndarray of str
        Names of the sensitive attributes seen at fit, when they had names.
    group_means_ : ndarray of shape (n_groups, n_features_out)
        Weighted mean of each column in each group.
    mean_ : ndarray of shape (n_features_out,)
        Weighted mean of each column.

    See Also
    --------
    FeatureRepair : Equalises the whole distribution of each column, not only its mean.

    Notes
    -----
    With one-hot group indicators the least-squares fit ``S_c beta`` of a column is its group
    mean minus its overall mean (the column space of the centred indicators is that of the
    group indicators minus the constant), so the output is
    ``X - alpha * (group_means_[group] - mean_)``; new rows are shifted by the offsets of
    their group. Several attributes are one-hot encoded jointly (each observed combination is
    a group), which removes the linear dependence on every attribute and on their
    interactions. A numeric attribute is a group per value: bin it first. Decorrelation is
    not independence; the spread and shape of each column can still differ between groups
    (see :class:`FeatureRepair`). It suits linear models most.

    **Dask input.** ``fit`` reads dask arrays and DataFrames partition by partition: each
    partition sends the sums of ``w x`` and of ``w`` per distinct sensitive value (one row per
    group, whatever its length), the sums are added up on the workers, and the means come
    from the total: the fitted state equals the in-memory one to rounding, whatever the
    chunking. ``transform`` returns a lazy dask array, block by block.

    References
    ----------
    fairlearn's ``fairlearn.preprocessing.CorrelationRemover`` (Bird et al., "Fairlearn: A
    toolkit for assessing and improving fairness in AI", Microsoft, 2020).

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.preprocessing import CorrelationRemover
    >>> X = np.array([[1.0, 0], [3.0, 0], [5.0, 1], [7.0, 1]])
    >>> CorrelationRemover(sensitive_column=1).fit_transform(X)
    array([[3.],
           [5.],
           [3.],
           [5.]])
    """

    # This repair uses no random numbers: it has no random_state and draws no seed.
    _uses_random_numbers = False

    _parameter_constraints: dict = {
        **_BaseRepair._parameter_constraints,
        "alpha": [Interval(Real, 0, 1, closed="both")],
    }

    def __init__(self, alpha=1.0, *, handle_unknown="error", sensitive_column=None):
        self.alpha = alpha
        self.handle_unknown = handle_unknown
        self.sensitive_column = sensitive_column

    def fit(self, X, y=None, *, sensitive_features=None, sample_weight=None):
        """Fit the group means of each column.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features (also a dask array or DataFrame); with ``sensitive_column`` they
            hold the sensitive column(s).
        {fit_y_sensitive_features}
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows (weighted least squares).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        return super().fit(X, y, sensitive_features=sensitive_features, sample_weight=sample_weight)

    def _fit_identity(self, X, y):
        self.mean_ = X.mean(axis=0)
        self.group_means_ = self.mean_[None, :]

    def _fit_maps(self, X, y, groups, sample_weight, draws, *, in_sample):
        sums = _sum_by_group(groups.codes, X, sample_weight)
        self._fit_means(sums, groups.counts(sample_weight))
        return self._apply_maps(X, groups.codes, draws) if in_sample else None

    def _fit_means(self, sums, weights):
        """The group means and the overall mean from per-group sums of ``w x`` and of ``w``."""
        weights = weights.astype(np.float64, copy=False)
        self.group_means_ = sums / weights[:, None]
        self.mean_ = weights @ self.group_means_ / weights.sum()

    def _fit_on_dask(self, X, y, sensitive_features, sample_weight):
        """Fit on dask collections: the per-group sums of ``w x`` and ``w`` of each partition
        (one row per distinct sensitive value, whatever its length), added up on the
        workers; nothing of the size of the data reaches the client."""
        # n_features_in_ and feature_names_in_: a dask DataFrame's are its empty pandas meta's
        validate_data(
            self, getattr(X, "_meta", X) if hasattr(X, "columns") else X, skip_check_array=True
        )
        sensitive, rest = resolve_sensitive(X, sensitive_features, self.sensitive_column)
        if rest.shape[1] == 0:
            raise ValueError(
                f"sensitive_column={self.sensitive_column!r} leaves no column to repair; the "
                "input needs at least one output column besides the sensitive ones."
            )
        keys = None if sensitive is None else split_argument(sensitive)
        features = split_argument(rest).columns
        key_columns = [] if keys is None else keys.columns
        names = tuple(f"sensitive_features[{j}]" for j in range(len(key_columns)))
        if len(names) == 1:
            names = ("sensitive_features",)
        weights = [] if sample_weight is None else [sample_weight]
        table = reduce_blocks(
            DistinctRows(names),
            align([*key_columns, *features, *weights]),
            _sums_chunk,
            n_keys=len(key_columns),
            n_features=len(features),
        )
        sums = table.sums.reshape(table.n_rows, len(features))
        if keys is None:  # one group: the identity
            self._record_groups(None, table.count)
            self.mean_ = sums[0] / table.count[0]
            self.group_means_ = self.mean_[None, :]
            return self
        groups = factorize_groups(keys.rebuild(table.keys))
        weight = None if sample_weight is None else table.weight
        check_group_weights(groups, weight)
        self._record_groups(groups, groups.counts(table.count).astype(np.int64))
        self._fit_means(_sum_by_group(groups.codes, sums), groups.counts(table.sample_weight()))
        return self

    def _apply_maps(self, X, codes, draws):
        shift = self.alpha * (self.group_means_ - self.mean_)
        # The offsets of the rows are gathered into a new array and subtracted in place: a
        # second array of the size of X (fresh pages to fault in) would cost more than the
        # subtraction itself.
        if X.flags.f_contiguous and not X.flags.c_contiguous:
            # columns contiguous (a DataFrame's layout): the offsets gathered column-major too
            # (np.take along the rows' axis is about twice as fast as fancy indexing there)
            out = np.take(shift.T, codes, axis=1)
            return np.subtract(X.T, out, out=out).T
        out = shift[codes]
        return np.subtract(X, out, out=out)


def _sum_by_group(codes, values, sample_weight=None):
    """Sums of the rows of ``values`` (n, n_features), weighted by ``sample_weight`` when
    given, per group code.

    With few groups against the columns, one matrix product of the groups' (weighted)
    indicator rows with ``values``; otherwise one bincount over the (group, column) cells of
    every entry. The product costs ``n_groups`` passes over the codes and beats the bincount,
    which pays for every entry, up to about ``4 + n_features / 4`` groups (measured from 10^3
    to 10^5 rows and 1 to 50 columns). Both are exact to rounding, not to the bit.
    """
    n_groups, n_features = int(codes.max()) + 1, values.shape[1]
    if n_groups <= 4 + n_features // 4:
        indicators = codes == np.arange(n_groups)[:, None]
        if sample_weight is None:
            return indicators.astype(np.float64) @ values
        return np.where(indicators, sample_weight, 0.0) @ values
    if sample_weight is not None:
        values = sample_weight[:, None] * values
    starts = codes.astype(np.intp) * n_features
    if values.flags.f_contiguous and not values.flags.c_contiguous:
        # column by column (a DataFrame's layout), with no copy of the values
        cells, values = np.arange(n_features)[:, None] + starts, values.T
    else:
        cells = starts[:, None] + np.arange(n_features)
    sums = np.bincount(cells.ravel(), weights=values.ravel(), minlength=n_groups * n_features)
    return sums.reshape(n_groups, n_features)


def _sums_chunk(statistic, *parts, n_keys, n_features):
    """One partition: the sums of ``w x`` and ``w`` per distinct sensitive value, its rows
    checked as the in-memory fit checks them."""
    arrays = [as_numpy(part) for part in parts]
    check_block_lengths(arrays)
    features = check_array(
        np.column_stack(arrays[n_keys : n_keys + n_features]).reshape(-1, n_features),
        dtype=np.float64,
        ensure_all_finite=False,
        ensure_min_samples=0,
    )
    _check_finite(features)
    weights = None
    if len(arrays) > n_keys + n_features:
        weights = check_block(arrays[-1], "weight", "sample_weight")
    if not n_keys:  # one group, the identity: the plain means, as in memory
        return statistic.chunk([np.zeros(features.shape[0], dtype=np.int8)], values=features)
    return statistic.chunk(arrays[:n_keys], weights, values=features)
