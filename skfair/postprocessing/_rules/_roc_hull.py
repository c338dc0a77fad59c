"""Weighted ROC curves of groups and their upper convex hulls (pure functions).

The rule "predict positive when the score is at least ``t``" gives one ROC point
``(FPR, TPR)`` per distinct score value ``t`` of a group. Randomising between such rules reaches
every point of the convex hull of these points (Hardt, Price & Srebro 2016, Section 4); the part
that matters for a classifier is the upper hull. Its vertices are found exactly, in linear
time after one sort, by pool-adjacent-violators: the isotonic regression of the labels on the
score pools exactly the score ranges that lie under one hull segment (Fawcett &
Niculescu-Mizil 2007).

References
----------
Hardt, M., Price, E. and Srebro, N. (2016). Equality of Opportunity in Supervised Learning.
NeurIPS.

Fawcett, T. and Niculescu-Mizil, A. (2007). PAV and the ROC convex hull. Machine Learning 68,
97-106.
"""

from __future__ import annotations

import numpy as np

from skfair._utils._compat import increasing_isotonic_fit


def cut_points(scores):
    """The cut of each rule "score >= scores[k]" placed midway to the next lower score.

    ``scores`` are a group's distinct scores in decreasing order. On these scores the rule
    "score >= c_k" with ``c_k`` the midpoint of ``scores[k]`` and ``scores[k + 1]`` decides
    exactly as "score >= scores[k]"; on new scores it splits the gap between the two evenly
    instead of putting all of it on the negative side, which matters when a group's classes
    are separated on the fitting rows (an overfit model). The lowest score's rule predicts
    everyone positive: its cut is ``-inf``.
    """
    upper, lower = scores[:-1], scores[1:]
    middle = upper / 2 + lower / 2  # halves first: no overflow near the float64 maximum
    # adjacent floats have no float strictly between them: keep the upper score itself
    middle = np.where((middle > lower) & (middle <= upper), middle, upper)
    return np.append(middle, -np.inf)


def roc_points(positive, negative):
    """Weighted ROC points of the rules "score >= t" for the blocks in decreasing score order.

    Returns ``(fpr, tpr)`` with a leading ``(0, 0)`` (no sample predicted positive); entry ``k``
    belongs to the threshold of block ``k - 1``.
    """
    fpr = np.concatenate([[0.0], np.cumsum(negative)])
    tpr = np.concatenate([[0.0], np.cumsum(positive)])
    return fpr / fpr[-1], tpr / tpr[-1]


def upper_hull(scores, positive, negative):
    """Vertices of the upper convex hull of a group's ROC curve.

    Parameters
    ----------
    scores, positive, negative : ndarray of shape (n_blocks,)
        Distinct scores in decreasing order with the weight of positives and negatives at each;
        both classes must have positive total weight.

    Returns
    -------
    fpr, tpr : ndarray of shape (n_vertices,)
        Vertices from ``(0, 0)`` to ``(1, 1)``, FPR non-decreasing, slopes decreasing.
    thresholds : ndarray of shape (n_vertices,)
        The rule "score >= thresholds[k]" reaches vertex ``k``; ``thresholds[0] = inf``, and
        the others are cuts midway between two adjacent scores (:func:`cut_points`), the
        last one ``-inf``.
    """
    total = positive + negative
    # Isotonic (increasing in the score) regression of the positive share: blocks pooled
    # together lie under one hull segment, and the segment's slope is their pooled share.
    fitted = increasing_isotonic_fit((positive / total)[::-1], total[::-1])[::-1]
    ends = np.flatnonzero(np.append(fitted[1:] != fitted[:-1], True))  # each segment's last block
    fpr, tpr = roc_points(positive, negative)
    vertices = np.concatenate([[0], ends + 1])
    return fpr[vertices], tpr[vertices], np.concatenate([[np.inf], cut_points(scores)[ends]])


def point_on_hull(fpr, tpr, thresholds, x):
    """The randomised threshold rule that reaches the upper hull at FPR ``x``.

    Returns ``(upper, lower, weight, y)``: predict positive for scores ``>= upper``, with
    probability ``weight`` for scores in ``[lower, upper)``, negative below ``lower``; ``y`` is
    the hull's TPR at ``x``. Where the hull rises vertically at ``x = 0`` the top of the rise
    is taken.
    """
    k = int(np.searchsorted(fpr, x, side="right"))
    k = min(max(k, 1), len(fpr) - 1)
    width = fpr[k] - fpr[k - 1]
    weight = 0.0 if width <= 0 else float(np.clip((x - fpr[k - 1]) / width, 0.0, 1.0))
    y = tpr[k - 1] + weight * (tpr[k] - tpr[k - 1])
    return thresholds[k - 1], thresholds[k], weight, float(y)


def rate_rule(scores, weights, rate):
    """The randomised threshold rule predicting a share ``rate`` of one class positive.

    Used for a group with a single class, whose ROC curve is one-dimensional. ``scores`` are
    decreasing, ``weights`` the weight at each; returns ``(upper, lower, weight)`` as
    :func:`point_on_hull`.
    """
    share = np.concatenate([[0.0], np.cumsum(weights)])
    share /= share[-1]
    thresholds = np.r_[np.inf, cut_points(scores)]
    upper, lower, weight, _ = point_on_hull(share, share, thresholds, rate)
    return upper, lower, weight
