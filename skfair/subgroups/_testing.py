"""Tests of a subgroup's rate against the rest of the population, and multiple testing.

Two proportions ``x1 / n1`` (the subgroup) and ``x2 / n2`` (the rest): the pooled z-test
(Agresti 2013, section 3.1.3) when every expected count ``n_i * p_pooled`` and ``n_i * (1 -
p_pooled)`` is at least 5 (Cochran's rule), else the exact conditional test of Fisher (the
hypergeometric law of ``x1`` given the margins). "both" doubles the smaller one-sided exact
p-value (capped at 1). With weights, ``n_i`` is Kish's effective sample size ``(sum w)^2 /
sum w^2`` of the side's rows and ``x_i`` the weighted proportion times it (rounded for the
exact test).

Multiple testing: Benjamini-Hochberg (1995) step-up q-values, valid under positive
regression dependence (Benjamini & Yekutieli 2001, Theorem 1.2), or Benjamini-Yekutieli's,
multiplied by ``sum_{i <= m} 1 / i``, valid under any dependence (their Theorem 1.3).
"""

from __future__ import annotations

import numpy as np
from scipy import special

# Cochran's rule: the normal approximation when every expected count is at least this.
_MIN_EXPECTED = 5.0


def two_proportion_pvalues(x1, n1, x2, n2, alternative):
    """p-values of ``x1 / n1`` against ``x2 / n2``: ``alternative`` "greater" (the first is
    higher), "less" or "two-sided". Sides without rows give p-value 1."""
    x1, n1, x2, n2 = (np.asarray(a, dtype=np.float64) for a in (x1, n1, x2, n2))
    p_values = np.ones(np.broadcast(x1, n1, x2, n2).shape)
    defined = (n1 > 0) & (n2 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (x1 + x2) / (n1 + n2)
        expected = np.minimum.reduce(
            [n1 * pooled, n1 * (1 - pooled), n2 * pooled, n2 * (1 - pooled)]
        )
        spread = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        z = (x1 / n1 - x2 / n2) / spread
    normal = defined & (expected >= _MIN_EXPECTED) & (spread > 0)
    exact = defined & ~normal & (spread > 0)
    if alternative == "greater":
        p_values[normal] = special.ndtr(-z[normal])
    elif alternative == "less":
        p_values[normal] = special.ndtr(z[normal])
    else:
        p_values[normal] = 2 * special.ndtr(-np.abs(z[normal]))
    if exact.any():
        p_values[exact] = _exact_pvalues(x1[exact], n1[exact], x2[exact], n2[exact], alternative)
    return np.clip(p_values, 0.0, 1.0)


def _exact_pvalues(x1, n1, x2, n2, alternative):
    """Fisher's exact test: ``x1`` against the hypergeometric law given the margins.

    The probabilities of the whole support of every test are summed at once (the supports
    are short: an expected count below 5 bounds them by about ``sqrt(10 n)``)."""
    x1, n1, x2, n2 = (np.rint(a).astype(np.int64) for a in (x1, n1, x2, n2))
    x1, x2 = np.minimum(x1, n1), np.minimum(x2, n2)
    total, positives = n1 + n2, x1 + x2
    low = np.maximum(0, n1 - (total - positives))
    sizes = np.minimum(n1, positives) - low + 1
    upper, lower = np.zeros(x1.shape[0]), np.zeros(x1.shape[0])
    ends = np.cumsum(sizes)
    start = 0
    while start < x1.shape[0]:
        before = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, before + _GRID, side="right")))
        _tails(np.arange(start, stop), x1, n1, total, positives, low, sizes, upper, lower)
        start = stop
    if alternative == "greater":
        return upper
    if alternative == "less":
        return lower
    return np.minimum(1.0, 2 * np.minimum(upper, lower))


# Largest number of support points of the exact tests handled at once.
_GRID = 1 << 20


def _tails(tests, x1, n1, total, positives, low, sizes, upper, lower):
    """``P(X >= x1)`` and ``P(X <= x1)`` of the hypergeometric laws of ``tests``."""
    counts = sizes[tests]
    owner = np.repeat(np.arange(tests.shape[0]), counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    k = low[tests][owner] + np.arange(owner.shape[0]) - starts[owner]
    t = tests[owner]
    log_pmf = (
        _log_choose(positives[t], k)
        + _log_choose(total[t] - positives[t], n1[t] - k)
        - _log_choose(total[t], n1[t])
    )
    pmf = np.exp(log_pmf)
    upper[tests] = np.bincount(owner, weights=pmf * (k >= x1[t]), minlength=tests.shape[0])
    lower[tests] = np.bincount(owner, weights=pmf * (k <= x1[t]), minlength=tests.shape[0])


def _log_choose(n, k):
    return special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)


def adjusted_pvalues(p_values, correction, n_tests=None):
    """Step-up q-values of ``p_values`` among ``n_tests`` tests (default: as many as the
    p-values; the tests not given count with p-value 1): "bh" or "by"."""
    p_values = np.asarray(p_values, dtype=np.float64)
    m = p_values.shape[0] if n_tests is None else int(n_tests)
    if p_values.shape[0] == 0:
        return p_values.copy()
    order = np.argsort(p_values, kind="stable")
    ranked = p_values[order] * m / np.arange(1, p_values.shape[0] + 1)
    if correction == "by":
        ranked *= np.sum(1.0 / np.arange(1, m + 1))
    q_sorted = np.minimum.accumulate(ranked[::-1])[::-1]
    q_values = np.empty_like(q_sorted)
    q_values[order] = np.minimum(q_sorted, 1.0)
    return q_values
