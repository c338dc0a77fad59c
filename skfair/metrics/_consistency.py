"""Consistency of predictions among nearest neighbours (individual fairness)."""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_array

from skfair._dask import dask_dispatch, refuse
from skfair._utils._compat import Integral, Interval, Real, validate_params
from skfair._utils._validation import binarize, check_labels, check_lengths, check_weights
from skfair.metrics._docs import shared


@dask_dispatch(
    refuse(
        "the neighbours of every row are searched among all rows of X, across partitions.",
        "Compute it on an in-memory sample of rows (e.g. ddf.sample(frac=0.01).compute()).",
    )
)
@validate_params(
    {
        "X": ["array-like"],
        "y_true": ["array-like", None],
        "y_pred": ["array-like"],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "pos_label": [Real, str, "boolean", None],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
@shared
def consistency_score(X, y_true, y_pred, *, n_neighbors=5, pos_label=None, sample_weight=None):
    """Consistency of the predictions of similar samples (Zemel et al. 2013).

    ``1 - (1/n) sum_i |y_pred_i - (1/k) sum_{j in kNN(x_i)} y_pred_j|`` with ``y_pred`` as
    0/1 indicators of ``pos_label`` and ``kNN(x_i)`` the ``k = n_neighbors`` nearest samples
    of ``x_i`` in ``X`` (Euclidean), the sample itself included as its own first neighbour --
    the convention of aif360's ``consistency_score``, which fits the neighbours on ``X`` and
    queries ``X``. 1 means that every sample's prediction equals that of its neighbours.
    With ``sample_weight`` the outer mean is weighted.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Features defining similarity (without the sensitive attributes, usually scaled).
    y_true : array-like of shape (n_samples,) or None
        Ignored (accepted for a uniform signature); may be None.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    n_neighbors : int, default=5
        Neighbours per sample, the sample itself included.
    {pos_label}
    {sample_weight}

    Returns
    -------
    float
        In [0, 1].

    See Also
    --------
    hfm : Harmonic Fairness via Manifolds, another individual-fairness measure on ``X``.

    Notes
    -----
    Neighbours come from :class:`sklearn.neighbors.NearestNeighbors`; samples at equal
    distance may be ordered differently than with aif360's ball tree, which changes the
    result only when such ties straddle the k-th neighbour.

    References
    ----------
    .. [1] R. Zemel, Y. Wu, K. Swersky, T. Pitassi and C. Dwork, "Learning Fair
       Representations", ICML 2013, Section 4 (yNN).

    Examples
    --------
    >>> from skfair.metrics import consistency_score
    >>> X = [[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]]
    >>> consistency_score(X, None, [1, 1, 0, 0, 0, 0], n_neighbors=3)
    0.7777777777777778
    """
    n_samples = check_lengths(X=X, y_true=y_true, y_pred=y_pred, sample_weight=sample_weight)
    X = check_array(X, input_name="X")
    if n_neighbors > n_samples:
        raise ValueError(
            f"n_neighbors={n_neighbors} is larger than the number of samples ({n_samples}); "
            "pass at most n_samples."
        )
    y_pred = check_labels(y_pred, "y_pred")
    (positive,) = binarize(None, y_pred, pos_label)[1:]
    positive = positive.astype(np.float64)
    neighbours = NearestNeighbors(n_neighbors=n_neighbors).fit(X).kneighbors(X)[1]
    gaps = np.abs(positive - positive[neighbours].mean(axis=1))
    weights = check_weights(sample_weight, n_samples)
    return float(1 - np.average(gaps, weights=weights))
