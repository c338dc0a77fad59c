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

from dataclasses import dataclass

import numpy as np
from sklearn.isotonic import isotonic_regression


@dataclass(frozen=True)
class ScoreBlocks:
    """Distinct (group, score) values with the weight of positives and negatives at each.

    Blocks are sorted by group, then by decreasing score; the blocks of group ``g`` are
    ``slice(group_starts[g], group_starts[g + 1])``.
    """

    scores: np.ndarray
    positive: np.ndarray
    negative: np.ndarray
    group_starts: np.ndarray

    def group(self, g):
        """``(scores, positive weights, negative weights)`` of group ``g``, scores decreasing."""
        part = slice(self.group_starts[g], self.group_starts[g + 1])
        return self.scores[part], self.positive[part], self.negative[part]


def score_blocks(scores, positive, weights, codes, n_groups):
    """Aggregate the weight of positives and negatives at each distinct score of each group.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        Finite scores; higher means more likely positive.
    positive : ndarray of bool of shape (n_samples,)
        Whether the sample is positive.
    weights : ndarray of shape (n_samples,)
        Non-negative sample weights. Rows of weight 0 are left out.
    codes : ndarray of int of shape (n_samples,)
        Group code of each sample, in ``range(n_groups)``.
    n_groups : int

    Returns
    -------
    ScoreBlocks
    """
    keep = weights > 0
    if not keep.all():
        scores, positive, weights, codes = scores[keep], positive[keep], weights[keep], codes[keep]
    order = np.argsort(-scores)  # ties need no order: they are pooled into one block
    # Then stably by group: a radix sort for small integer codes.
    narrow = next(
        t for t in (np.uint8, np.uint16, np.uint32, np.intp) if n_groups <= np.iinfo(t).max
    )
    order = order[np.argsort(codes[order].astype(narrow), kind="stable")]
    scores, codes = scores[order], codes[order]
    weights, positive = weights[order], positive[order]
    new_block = np.empty(scores.shape[0], dtype=bool)
    new_block[:1] = True
    np.not_equal(scores[1:], scores[:-1], out=new_block[1:])
    new_block[1:] |= codes[1:] != codes[:-1]
    starts = np.flatnonzero(new_block)
    positive_weight = np.add.reduceat(np.where(positive, weights, 0.0), starts)
    total_weight = np.add.reduceat(weights, starts)
    block_codes = codes[starts]
    return ScoreBlocks(
        scores=scores[starts],
        positive=positive_weight,
        negative=total_weight - positive_weight,
        group_starts=np.searchsorted(block_codes, np.arange(n_groups + 1)),
    )


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
    return np.r_[middle, -np.inf]


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
    fitted = isotonic_regression(
        (positive / total)[::-1], sample_weight=total[::-1], increasing=True
    )[::-1]
    ends = np.flatnonzero(np.r_[fitted[1:] != fitted[:-1], True])  # last block of each segment
    fpr, tpr = roc_points(positive, negative)
    vertices = np.r_[0, ends + 1]
    return fpr[vertices], tpr[vertices], np.r_[np.inf, cut_points(scores)[ends]]


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
