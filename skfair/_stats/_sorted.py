"""Per-group values sorted by score: Wasserstein-1 and KS parts, weighted CDF and quantiles.

Statistic: the scores of the compared groups sorted once, with each row's weight in each group
(zero for rows of the other groups). From it, the exact Wasserstein-1 distance between two
weighted empirical distributions (as an integral of the CDF gap between consecutive scores),
the one-sided Kolmogorov-Smirnov statistics, and the weighted ECDF and lower quantile at given
points.

Merging: sorted chunks merge by a merge sort; equivalently, on a common set of distinct
values, the per-group weight of each value adds up over chunks, and every statistic here is
the same on the (value, weight) table as on the rows.

References
----------
Miroshnikov, Kotsiopoulos, Franks and Ravi Kannan, "Wasserstein-based fairness
interpretability framework for machine learning models", Machine Learning 111, 2022
(arXiv:2011.03156): Definition 3.2 (positive and negative model bias) and Theorem 3.2 (their
expression as integrals of the threshold bias).
"""

from __future__ import annotations

import numpy as np

# Sign of "favourable" for the two orientations of the scores.
FAVORABLE_SIGN = {"higher": 1.0, "lower": -1.0}
# Relative tolerance on cumulative weights when locating a quantile, so that p = i / n_k hits
# the breakpoint exactly despite rounding.
QUANTILE_RTOL = 1e-12


def w1_parts_sorted(sorted_values, weights0, weights1, sign):
    """Positive and negative W1 parts from scores sorted along axis 0 (CDF form, Thm. 3.2).

    ``weights0`` / ``weights1`` hold each row's weight in group 0 / 1 (zero for rows of the
    other group), aligned with ``sorted_values``. Inside a tie block the partial cumulative sums
    are not ECDF values, but the block's score increments are zero there, so they add nothing.
    """
    cdf0 = np.cumsum(weights0, axis=0)[:-1] / weights0.sum(axis=0)
    cdf1 = np.cumsum(weights1, axis=0)[:-1] / weights1.sum(axis=0)
    gap = sign * (cdf1 - cdf0)  # the threshold bias of Def. 2.2 between consecutive scores
    step = np.diff(sorted_values, axis=0)
    positive = np.sum(np.maximum(gap, 0.0) * step, axis=0)
    negative = np.sum(np.maximum(-gap, 0.0) * step, axis=0)
    return positive, negative


def w1_parts(values, in1, weights, sign):
    """Positive and negative W1 parts of every column of ``values`` (Def. 3.2).

    Parameters
    ----------
    values : ndarray of shape (n_rows,) or (n_rows, n_columns)
        Scores of the rows of the two compared groups; each column is one score.
    in1 : ndarray of bool, shape (n_rows,)
        True for rows of the compared group (the paper's G=1), False for the privileged one.
    weights : ndarray of shape (n_rows,)
        Non-negative row weights.
    sign : {1.0, -1.0}
        The favourable direction.

    Returns
    -------
    positive, negative : float or ndarray of shape (n_columns,)
    """
    # Any sort order works: inside a tie block the score increments are zero (introsort is
    # several times faster than a stable sort).
    order = np.argsort(values, axis=0)
    sorted_values = np.take_along_axis(values, order, axis=0)
    weights0 = np.where(in1, 0.0, weights)[order]
    weights1 = np.where(in1, weights, 0.0)[order]
    return w1_parts_sorted(sorted_values, weights0, weights1, sign)


def ks_parts_sorted(sorted_values, weights0, weights1, sign):
    """One-sided KS statistics ``max(0, sup_t ±sign (F_1 - F_0))`` from sorted 1-D scores."""
    cdf0 = np.cumsum(weights0) / weights0.sum()
    cdf1 = np.cumsum(weights1) / weights1.sum()
    # Only the last row of a tie block carries the ECDF value at that score.
    block_end = np.append(sorted_values[1:] > sorted_values[:-1], True)
    gap = sign * (cdf1[block_end] - cdf0[block_end])
    return max(0.0, gap.max()), max(0.0, -gap.min())


def cdf_at(sorted_values, weights, thresholds):
    """Right-continuous weighted ECDF ``P(s <= t)`` of sorted scores at ``thresholds``."""
    cumulative = np.concatenate([[0.0], np.cumsum(weights)])
    return cumulative[np.searchsorted(sorted_values, thresholds, side="right")] / cumulative[-1]


def quantile_at(sorted_values, weights, levels):
    """Lower generalised inverse ``inf{x : F(x) >= p}`` of a weighted ECDF (``inverted_cdf``)."""
    cumulative = np.cumsum(weights)
    total = cumulative[-1]
    index = np.searchsorted(cumulative, levels * total - QUANTILE_RTOL * total, side="left")
    return sorted_values[np.minimum(index, len(sorted_values) - 1)]
