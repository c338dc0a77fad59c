"""Linear decorrelation of the features from the groups (fairlearn's ``CorrelationRemover``).

Regressing a column on the centred one-hot indicators of the groups by least squares gives,
as fitted values, the group means minus the overall mean (the indicators span the group
means). The residual is therefore the column shifted by its group's offset from the overall
mean: two weighted sums per group and column (:func:`~skfair._stats._counts.group_sums`), no
matrix to factorise.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from skfair._dask import check_in_memory
from skfair._stats._counts import group_sums
from skfair._transport._repair import _BaseRepair
from skfair._utils._compat import Interval


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
    sensitive_column : str, int or list, default=None
        Column(s) of ``X`` holding the sensitive attribute(s) instead of passing
        ``sensitive_features=``; they are removed from the output.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns of ``X``, the sensitive column(s) included.
    feature_names_in_ : ndarray of str
        Column names of ``X``, when it has string column names.
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

    # The base draws a seed at fit; this repair uses no random numbers.
    random_state = None

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
            Numeric features; with ``sensitive_column`` they hold the sensitive column(s).
        y : None
            Ignored.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), \
                dict or DataFrame, default=None
            Sensitive attribute(s). None (and no ``sensitive_column``) means one group: the
            transform is the identity.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows (weighted least squares).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        check_in_memory(
            "CorrelationRemover.fit",
            X,
            sensitive_features,
            sample_weight,
            hint="Fit it on an in-memory sample (the group means converge fast); transform "
            "accepts dask collections.",
        )
        return super().fit(X, y, sensitive_features=sensitive_features, sample_weight=sample_weight)

    def _fit_identity(self, X, y):
        self.mean_ = X.mean(axis=0)
        self.group_means_ = self.mean_[None, :]

    def _fit_maps(self, X, y, groups, sample_weight, draws, *, in_sample):
        sums = np.empty((groups.n_groups, X.shape[1]))
        for column in range(X.shape[1]):
            sums[:, column], counts = group_sums(X[:, column], groups, sample_weight)
        self.group_means_ = sums / counts[:, None]
        self.mean_ = counts @ self.group_means_ / counts.sum()
        return self._apply_maps(X, groups.codes, draws) if in_sample else None

    def _apply_maps(self, X, codes, draws):
        return X - self.alpha * (self.group_means_ - self.mean_)[codes]
