"""Confidence intervals of MetricTable: closed forms for rates, the bootstrap for the rest.

A rate ``x / n`` of a group is a binomial proportion. Its interval is Clopper and Pearson's
(1934) exact interval, or Wilson's (1927) score interval; a difference or ratio of the rates of
two disjoint sets of rows (a group and the reference group, the disadvantaged and the privileged
side) combines the two rates' intervals by the method of variance estimates recovery, MOVER:
Newcombe's (1998) hybrid score interval for differences (his method 10, with Wilson's limits)
and Donner and Zou's (2012) MOVER-R for ratios. With sample weights, a rate's ``n`` is Kish's
effective sample size ``(sum w)**2 / sum w**2`` of the rows it is computed on, and ``x`` the
rate times that size.

Aggregates that pick a value out of the groups (the largest gap between groups, a gap to the
overall value, the group furthest from parity) and callable metrics have no such form: their
intervals are percentiles of a bootstrap stratified by group
(:mod:`skfair.metrics._replicates`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv, ndtri

CI_METHODS = ("clopper-pearson", "wilson", "bootstrap")


# ----------------------------------------------------------------------------------------------
# closed forms


def ratio(numerator, denominator):
    """``numerator / denominator``, NaN where the denominator is 0."""
    numerator, denominator = np.asarray(numerator, float), np.asarray(denominator, float)
    defined = denominator != 0
    with np.errstate(invalid="ignore"):
        return np.where(defined, numerator / np.where(defined, denominator, 1.0), np.nan)


def effective_counts(numerator, denominator, squares=None, scale=1.0):
    """``(successes, trials)`` of the rates ``numerator / denominator``.

    Unweighted (``squares`` None): the counts themselves. Weighted: Kish's effective sample
    size ``(sum w)**2 / sum w**2`` of the denominator's rows, and the rate times it;
    ``squares`` holds the sums of ``(w / scale)**2`` (a power-of-two ``scale`` keeps the squares
    of very large or small weights finite and exact).
    """
    if squares is None:
        return np.asarray(numerator, float), np.asarray(denominator, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        trials = np.where(squares > 0, (denominator / scale / np.sqrt(squares)) ** 2, 0.0)
    return ratio(numerator, denominator) * trials, trials


def proportion_interval(successes, trials, ci, method):
    """Bounds ``(low, high)`` of the proportions ``successes / trials`` (NaN where no trial).

    ``"clopper-pearson"``: the ``(1 - ci) / 2`` quantile of ``Beta(x, n - x + 1)`` and the
    ``(1 + ci) / 2`` quantile of ``Beta(x + 1, n - x)`` (0 and 1 at ``x = 0`` and ``x = n``),
    whose coverage is at least ``ci`` for every true proportion and size. ``"wilson"``: the
    roots of ``|p_hat - p| = z sqrt(p (1 - p) / n)``.
    """
    x, n = np.asarray(successes, float), np.asarray(trials, float)
    defined = n > 0
    x, n = np.where(defined, np.clip(x, 0, n), 0.0), np.where(defined, n, 1.0)
    alpha = 1 - ci
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "clopper-pearson":
            low = np.where(x > 0, betaincinv(x, n - x + 1, alpha / 2), 0.0)
            high = np.where(x < n, betaincinv(x + 1, n - x, 1 - alpha / 2), 1.0)
        else:
            z = ndtri(1 - alpha / 2)
            p = x / n
            center = (p + z * z / (2 * n)) / (1 + z * z / n)
            half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
            low, high = np.maximum(center - half, 0.0), np.minimum(center + half, 1.0)
    return np.where(defined, low, np.nan), np.where(defined, high, np.nan)


def difference_interval(first, second):
    """MOVER bounds of ``p1 - p2`` from ``(p, low, high)`` of two independent proportions.

    ``p1 - p2 -/+ sqrt((p1 - l1)**2 + (u2 - p2)**2)`` and ``sqrt((u1 - p1)**2 + (p2 -
    l2)**2)``: Newcombe's method 10 with Wilson's limits, the same construction with exact ones.
    """
    (p1, l1, u1), (p2, l2, u2) = first, second
    difference = p1 - p2
    return (
        difference - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
        difference + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2),
    )


def ratio_interval(first, second):
    """MOVER-R bounds of ``p1 / p2`` from ``(p, low, high)`` of two independent proportions.

    The roots of ``p1 - r p2 = -/+ sqrt((p1 - l1)**2 + r**2 (u2 - p2)**2)`` (and the mirror
    for the upper bound), Donner and Zou (2012): with ``b = p1 p2``,
    ``L = l1 (2 p1 - l1) / (b + sqrt(b**2 - l1 (2 p1 - l1) u2 (2 p2 - u2)))`` and
    ``U = (b + sqrt(b**2 - u1 (2 p1 - u1) l2 (2 p2 - l2))) / (l2 (2 p2 - l2))``; NaN where
    ``p2 = 0``, ``L = 0`` where ``p1 = 0``.
    """
    (p1, l1, u1), (p2, l2, u2) = first, second
    product = p1 * p2
    with np.errstate(invalid="ignore", divide="ignore"):
        low_c, high_c = l1 * (2 * p1 - l1), u1 * (2 * p1 - u1)
        low = low_c / (product + np.sqrt(product**2 - low_c * u2 * (2 * p2 - u2)))
        high_a = l2 * (2 * p2 - l2)
        high = (product + np.sqrt(product**2 - high_c * high_a)) / high_a
    low = np.where(p1 == 0, 0.0, low)
    undefined = ~(np.asarray(p2) > 0)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)
