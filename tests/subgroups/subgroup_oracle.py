"""Brute-force oracles of find_subgroups, written independently of skfair.subgroups.

Every conjunction of up to ``max_level`` conditions on distinct columns is listed with an
explicit boolean mask (column by column, values in sorted order), its confusion counts are
summed with numpy, the tests come from scipy.stats (``fisher_exact``, ``norm``), the
multiple-testing adjustment is computed by hand from its definition, and subgroups holding
the same rows are recognised by comparing their masks.
"""

import itertools

import numpy as np
from scipy import stats

# numerator and denominator of each metric, as functions of (y_true, y_pred) booleans
METRICS = {
    "error_rate": (lambda t, p: t != p, lambda t, p: np.ones_like(t)),
    "selection_rate": (lambda t, p: p, lambda t, p: np.ones_like(t)),
    "true_positive_rate": (lambda t, p: t & p, lambda t, p: t),
    "false_positive_rate": (lambda t, p: ~t & p, lambda t, p: ~t),
    "false_negative_rate": (lambda t, p: t & ~p, lambda t, p: t),
    "positive_predictive_value": (lambda t, p: t & p, lambda t, p: p),
}


def conjunctions(columns, max_level):
    """``(conditions, mask)`` of every non-empty conjunction, in the order of levels, column
    combinations and sorted values. ``columns`` is a dict name -> 1-D array."""
    names = list(columns)
    for level in range(1, max_level + 1):
        for combination in itertools.combinations(names, level):
            choices = [sorted(set(columns[name].tolist())) for name in combination]
            for values in itertools.product(*choices):
                mask = np.ones(len(columns[names[0]]), dtype=bool)
                for name, value in zip(combination, values):
                    mask &= columns[name] == value
                if mask.any():
                    yield tuple(zip(combination, values)), mask


def _distinct(candidates):
    """Candidates whose mask no earlier candidate has."""
    seen, kept = set(), []
    for candidate in candidates:
        key = np.packbits(candidate["mask"]).tobytes()
        if key not in seen:
            seen.add(key)
            kept.append(candidate)
    return kept


def _kish(w):
    return w.sum() ** 2 / (w**2).sum() if (w**2).sum() > 0 else 0.0


def _wilson(p_hat, n, z):
    """Wilson's limits: the roots in p of ``(p_hat - p)**2 = z**2 p (1 - p) / n``."""
    a = 1 + z * z / n
    roots = np.roots([a, -(2 * p_hat + z * z / n), p_hat * p_hat]).real
    return max(roots.min(), 0.0), min(roots.max(), 1.0)


def _newcombe(c, ci):
    """Newcombe's (1998) method 10: the gap's bounds from each side's Wilson limits."""
    z = stats.norm.ppf(1 - (1 - ci) / 2)
    p1, p2 = c["value"], c["rest_value"]
    l1, u1 = _wilson(p1, c["n1"], z)
    l2, u2 = _wilson(p2, c["n2"], z)
    gap = p1 - p2
    return gap - np.hypot(p1 - l1, u2 - p2), gap + np.hypot(u1 - p1, p2 - l2)


def _pvalue(x1, n1, x2, n2, alternative):
    pooled = (x1 + x2) / (n1 + n2)
    expected = min(n1 * pooled, n1 * (1 - pooled), n2 * pooled, n2 * (1 - pooled))
    spread = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if spread == 0:
        return 1.0
    if expected >= 5:
        z = (x1 / n1 - x2 / n2) / spread
        if alternative == "greater":
            return stats.norm.sf(z)
        if alternative == "less":
            return stats.norm.cdf(z)
        return 2 * stats.norm.sf(abs(z))
    x1, n1, x2, n2 = (int(round(v)) for v in (x1, n1, x2, n2))
    table = [[x1, n1 - x1], [x2, n2 - x2]]
    greater = stats.fisher_exact(table, alternative="greater").pvalue
    less = stats.fisher_exact(table, alternative="less").pvalue
    if alternative == "greater":
        return greater
    if alternative == "less":
        return less
    return min(1.0, 2 * min(greater, less))


def step_up(p_values, m, correction):
    """Benjamini-Hochberg (or -Yekutieli) q-values by their definition, ``m`` tests."""
    p_values = np.asarray(p_values, dtype=float)
    c = sum(1 / i for i in range(1, m + 1)) if correction == "by" else 1.0
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    q = np.empty(len(p_values))
    for position, i in enumerate(order):
        q[i] = min(
            1.0,
            min(
                p_values[j] * m * c / (rank + 1) for rank, j in enumerate(order) if rank >= position
            ),
        )
    return q


def evaluate(y_true, y_pred, columns, *, metric, max_level, min_support, weights=None):
    """Every conjunction with its counts (at least ``min_support`` denominator rows)."""
    t, p = np.asarray(y_true) == 1, np.asarray(y_pred) == 1
    numerator, denominator = (f(t, p) for f in METRICS[metric])
    numerator, denominator = numerator.astype(bool), denominator.astype(bool)
    w = np.ones(len(t)) if weights is None else np.asarray(weights, dtype=float)
    total_num, total_den = (w * numerator).sum(), (w * denominator).sum()
    found = []
    for conditions, mask in conjunctions(columns, max_level):
        den_mask = mask & denominator
        if den_mask.sum() < min_support:
            continue
        rest_mask = ~mask & denominator
        num, den = (w * (mask & numerator)).sum(), (w * den_mask).sum()
        value = num / den
        rest = (total_num - num) / (total_den - den) if total_den > den else np.nan
        found.append(
            {
                "conditions": conditions,
                "mask": mask,
                "level": len(conditions),
                "n": int(mask.sum()),
                "n_rated": int(den_mask.sum()),
                "num": num,
                "den": den,
                "value": value,
                "rest_value": rest,
                "gap": value - rest,
                "n1": den_mask.sum() if weights is None else _kish(w[den_mask]),
                "n2": rest_mask.sum() if weights is None else _kish(w[rest_mask]),
                "total_num": total_num,
                "total_den": total_den,
            }
        )
    return found


def gap_oracle(
    y_true,
    y_pred,
    columns,
    *,
    metric="error_rate",
    direction="higher",
    max_level=2,
    min_support=1,
    alpha=0.05,
    correction="bh",
    weights=None,
):
    """The ranked, tested subgroups of objective="gap" (all of them)."""
    found = _distinct(
        evaluate(
            y_true,
            y_pred,
            columns,
            metric=metric,
            max_level=max_level,
            min_support=min_support,
            weights=weights,
        )
    )
    alternative = {"higher": "greater", "lower": "less", "both": "two-sided"}[direction]
    for c in found:
        c["p_value"] = (
            _pvalue(c["value"] * c["n1"], c["n1"], c["rest_value"] * c["n2"], c["n2"], alternative)
            if c["n2"] > 0
            else 1.0
        )
        if direction == "both":
            low, high = _newcombe(c, 1 - alpha)
            c["score"] = max(low, -high)
        else:
            low, high = _newcombe(c, 1 - 2 * alpha)
            c["score"] = low if direction == "higher" else -high
        c["gap_low"], c["gap_high"] = _newcombe(c, 1 - alpha)
    q = step_up([c["p_value"] for c in found], len(found), correction)
    for c, q_value in zip(found, q):
        c["q_value"] = q_value
        c["significant"] = q_value <= alpha
    order = sorted(
        range(len(found)),
        key=lambda i: (not found[i]["significant"], -found[i]["score"], found[i]["level"], i),
    )
    return [found[i] for i in order], len(found)


def sliceline_oracle(errors, columns, *, alpha, max_level, min_support, k):
    """The top k distinct slices by SliceLine's score: ``[(score, conditions, size)]``."""
    errors = np.asarray(errors, dtype=float)
    n, mean = errors.shape[0], errors.mean()
    candidates = []
    for conditions, mask in conjunctions(columns, max_level):
        size = mask.sum()
        if size < min_support:
            continue
        score = alpha * (errors[mask].sum() / size / mean - 1) - (1 - alpha) * (n / size - 1)
        if score > 0:
            candidates.append(
                {
                    "score": score,
                    "conditions": conditions,
                    "mask": mask,
                    "level": len(conditions),
                    "n": int(size),
                }
            )
    order = sorted(
        range(len(candidates)), key=lambda i: (-candidates[i]["score"], candidates[i]["level"], i)
    )
    return _distinct([candidates[i] for i in order])[:k]
