"""The exact threshold of a best response's score.

A best response should minimise the weighted error of its reduced problem (the cost of the
Lagrangian at the multipliers asked). Most learners (logistic regression, boosting) minimise
a surrogate instead, and their own threshold (a probability of 1/2, a decision of 0) is not
the one of least weighted error. So the fit's score is cut where the cost is least, exactly,
among the thresholds of a fixed grid: the statistic of that choice is the weight of each
(group, class) cell in each interval of the grid, which adds up over partitions, so a fit on
dask collections chooses the same threshold as in memory.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import FixedThresholdClassifier

# Intervals of the grid of thresholds: probabilities j / _GRID for j = 1 .. _GRID - 1 (for a
# decision function their logits). A power of two, so that the thresholds are exact floats.
_GRID = 1024
_THRESHOLDS = {
    "predict_proba": np.arange(1, _GRID) / _GRID,
    "decision_function": logit(np.arange(1, _GRID) / _GRID),
}
# The learner's own threshold (1/2, or a decision of 0): the cut kept on ties.
_OWN_CUT = _GRID // 2


def score_method(learner):
    """The response method whose score is cut (``predict_proba`` first, as scikit-learn's
    ``response_method="auto"``), or None when the fitted ``learner`` has neither or was not
    fitted on two classes."""
    if len(getattr(learner, "classes_", ())) != 2:
        return None
    for method in _THRESHOLDS:
        if hasattr(learner, method):
            return method
    return None


def score_bins(learner, X, method):
    """Interval of the grid of each row's score: the number of thresholds at or below it
    (a row is decided positive at cut ``k`` when its interval is at least ``k``)."""
    score = np.asarray(getattr(learner, method)(X), dtype=np.float64)
    if score.ndim == 2:
        score = score[:, 1]
    # uint16: the 1,024 intervals, a quarter of the memory of intp per kept response
    return np.searchsorted(_THRESHOLDS[method], score, side="right").astype(np.uint16)


def cell_histogram(cells, bins, sample_weight, n_cells):
    """Weight of each (cell, interval), shape (n_cells, _GRID)."""
    return np.bincount(
        cells * _GRID + bins, weights=sample_weight, minlength=n_cells * _GRID
    ).reshape(n_cells, _GRID)


def interval_counts(bins):
    """Number of rows in each interval of the grid."""
    return np.bincount(bins, minlength=_GRID)


def best_cut(histogram, cost):
    """The cut of least cost: ``k`` in ``0 .. _GRID`` (0 decides every row positive,
    ``_GRID`` none), the nearest to the learner's own threshold among ties.

    ``cost`` is the cost table of the Lagrangian, shape (n_groups, 2, 2): a positive
    decision costs ``cost[g, y, 1] - cost[g, y, 0]`` more than a negative one in cell
    ``(g, y)``.
    """
    extra = (cost[..., 1] - cost[..., 0]).ravel()
    values = extra @ _positives(histogram)
    scale = np.abs(extra) @ histogram.sum(axis=1)
    ties = np.flatnonzero(values <= values.min() + 1e-12 * max(scale, 1e-300))
    return int(ties[np.argmin(np.abs(ties - _OWN_CUT))])


def cut_response(response, histogram, cost, classes, shape):
    """The fit of ``response`` cut where ``cost`` is least: ``(cut, k, member, table)``.

    ``k`` is the class every row then gets (:func:`constant_class`; ``member`` and ``table``
    are then None), else None, with ``member`` the thresholded fit and ``table`` its
    (group, class, decision) table of shape ``shape``, read off ``histogram``.
    """
    cut = best_cut(histogram, cost)
    k = constant_class(cut)
    if k is not None:
        return cut, k, None, None
    member = thresholded(response.predictor, response.method, cut, classes)
    return cut, None, member, cut_table(histogram, cut, shape)


def constant_class(cut):
    """The class index every row gets at ``cut`` (1 at cut 0, 0 at the last), or None when
    the cut separates the rows."""
    return {0: 1, _GRID: 0}.get(cut)


def cut_table(histogram, cut, shape):
    """The (group, class, decision) table of the decisions at ``cut``."""
    positive = _positives(histogram)[:, cut]
    return np.stack([histogram.sum(axis=1) - positive, positive], axis=-1).reshape(shape)


def thresholded(predictor, method, cut, classes):
    """``predictor`` deciding the positive class when its score is at least the threshold
    of ``cut`` (a scikit-learn ``FixedThresholdClassifier`` around it, frozen)."""
    threshold = float(_THRESHOLDS[method][cut - 1])
    model = FixedThresholdClassifier(
        FrozenEstimator(predictor), threshold=threshold, response_method=method
    )
    return model.fit(None, classes)  # a frozen estimator is not refitted


def _positives(histogram):
    """Weight decided positive in each cell at each cut 0 .. _GRID, shape (n_cells, _GRID + 1)."""
    tail = np.cumsum(histogram[:, ::-1], axis=1)[:, ::-1]
    return np.hstack([tail, np.zeros((histogram.shape[0], 1))])
