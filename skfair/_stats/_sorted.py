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

from dataclasses import dataclass

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


def w1_named_parts(positive, negative):
    """The four parts of the W1 bias by name from its positive and negative parts:
    ``total = positive + negative`` and ``net = positive - negative`` (Def. 3.2)."""
    return {
        "total": positive + negative,
        "positive": positive,
        "negative": negative,
        "net": positive - negative,
    }


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


# Up to this many codes, each code's rows are sorted on their own (one pass over the rows per
# code, cheaper than a global sort); beyond, one sort by value and a stable radix sort by code
# keep the cost independent of the number of codes.
FEW_CODES = 16


def small_codes(codes, n_codes):
    """Codes in the narrowest integer type: numpy's stable sort is a radix sort up to 16 bits."""
    if n_codes <= np.iinfo(np.int8).max:
        return codes.astype(np.int8)
    if n_codes <= np.iinfo(np.int16).max:
        return codes.astype(np.int16)
    return codes


def code_bounds(codes, n_codes):
    """Bounds of each code's segment in rows sorted by code: code c is ``[b[c], b[c + 1])``."""
    return np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_codes))])


def code_order(codes, n_codes):
    """Rows sorted by code, in row order within each code (a stable radix sort)."""
    return np.argsort(small_codes(codes, n_codes), kind="stable")


def rows_by_code(codes, n_codes):
    """The rows of each code, in increasing order: a list of ``n_codes`` index arrays."""
    return np.split(code_order(codes, n_codes), code_bounds(codes, n_codes)[1:-1])


def sort_by_code(
    values, codes, n_codes, *, ties="any", few_codes=FEW_CODES, code_rows=None, bounds=None
):
    """Order of the rows by ``(code, value)``, and the bounds of each code's segment in it.

    ``ties`` orders rows of equal code and value: ``"any"`` leaves them in any order (the
    fastest sort), ``"rows"`` keeps them in row order (a stable sort), and an array of keys
    orders them by key (then by row). With ``"any"``, up to ``few_codes`` codes are sorted
    one by one (``code_rows``: :func:`rows_by_code` of ``codes``, when the caller has it),
    more by one global sort; the order of tied rows (and so the rounding of sums over them)
    depends on that choice. O(n log n) whatever the number of codes. ``bounds`` are
    :func:`code_bounds` of ``codes``, when the caller has them.
    """
    if bounds is None:
        bounds = code_bounds(codes, n_codes)
    if not isinstance(ties, str):
        return np.lexsort((ties, values, codes)), bounds
    if ties == "rows":
        return np.lexsort((values, codes)), bounds
    if n_codes == 1:
        return np.argsort(values), bounds
    if n_codes <= few_codes:
        if code_rows is None:
            code_rows = rows_by_code(codes, n_codes)
        order = np.empty(values.shape[0], dtype=np.intp)
        for code, rows in enumerate(code_rows):
            order[bounds[code] : bounds[code + 1]] = rows[np.argsort(values[rows])]
        return order, bounds
    order = np.argsort(values)
    return order[code_order(codes[order], n_codes)], bounds


def sorted_segments(
    values, codes, n_codes, weights=None, *, few_codes=FEW_CODES, code_rows=None, bounds=None
):
    """Values (and weights) sorted by ``(code, value)``: each code's values sorted, in one
    contiguous segment; ties in any order (see w1_parts and :func:`sort_by_code`).

    Returns
    -------
    sorted_values : ndarray of shape (n_rows,)
    sorted_weights : ndarray of shape (n_rows,), or None without ``weights``
    bounds : ndarray of shape (n_codes + 1,)
        Segment ``c`` is ``[bounds[c], bounds[c + 1])``.
    """
    if bounds is None:
        bounds = code_bounds(codes, n_codes)
    if weights is None and n_codes <= few_codes:  # sorting values beats sorting indices
        if n_codes == 1:
            return np.sort(values), None, bounds
        if code_rows is None:
            code_rows = rows_by_code(codes, n_codes)
        return np.concatenate([np.sort(values[rows]) for rows in code_rows]), None, bounds
    order, bounds = sort_by_code(
        values, codes, n_codes, few_codes=few_codes, code_rows=code_rows, bounds=bounds
    )
    return values[order], None if weights is None else weights[order], bounds


def merge_sorted(values0, weights0, values1, weights1):
    """Merge two sorted weighted samples into ``(values, weights0, weights1)`` aligned rows.

    Each row carries its weight in sample 0 or 1 and zero in the other, as
    :func:`w1_parts_sorted` and :func:`ks_parts_sorted` expect. The stable sort of two sorted
    runs is a linear merge.
    """
    values = np.concatenate([values0, values1])
    order = np.argsort(values, kind="stable")
    zeros0, zeros1 = np.zeros_like(weights1), np.zeros_like(weights0)
    return (
        values[order],
        np.concatenate([weights0, zeros0])[order],
        np.concatenate([zeros1, weights1])[order],
    )


def w1_upper_bounds(low, high, first, second):
    """Upper bounds of W1 between the samples ``first[i]`` and ``second[i]``.

    ``W1 = integral over (0, 1] of |Q_a(u) - Q_b(u)| du``; on each of ``n_levels`` equal
    slices of (0, 1], where every lower quantile function ``Q`` lies between ``low`` and
    ``high``, the integrand is at most ``max(high_a - low_b, high_b - low_a)``.

    Parameters
    ----------
    low, high : ndarray of shape (n_samples, n_levels)
        Envelopes of every sample.
    first, second : ndarray of int of shape (n_pairs,)

    Returns
    -------
    ndarray of shape (n_pairs,)
    """
    gap = np.maximum(high[first] - low[second], high[second] - low[first])
    return gap.mean(axis=1)


def ks_upper_bounds(cdf_at_grid, first, second):
    """Upper bounds of the KS distance between ``first[i]`` and ``second[i]``.

    ``cdf_at_grid`` holds each sample's ECDF at a grid ``t_0 < ... < t_L`` running from the
    smallest to the largest value of all samples. For ``t`` in ``[t_k, t_{k+1})`` the ECDFs are
    non-decreasing, so ``F_a(t) - F_b(t) <= F_a(t_{k+1}) - F_b(t_k)``; outside the grid both
    ECDFs are 0 (below) or 1 (above).
    """
    a, b = cdf_at_grid[first], cdf_at_grid[second]
    gap = np.maximum(a[:, 1:] - b[:, :-1], b[:, 1:] - a[:, :-1])
    return np.maximum(gap.max(axis=1), 0.0)


def power_of_two_scale(values):
    """A power of two ``s`` such that ``s * values`` lies in [-1, 1], or 1.0 for moderate values.

    Scaling by a power of two is exact in floating point (barring underflow), so sums and
    differences of scores of magnitude near the float64 limit (1.8e308) can be formed on the
    scaled values without overflow and scaled back. Values below 2**500 are left unscaled, so
    the results on ordinary data are bit for bit those of the unscaled formulas.
    """
    peak = float(np.max(np.abs(values))) if values.size else 0.0
    if peak < 2.0**500:
        return 1.0
    return float(2.0 ** -np.frexp(peak)[1])


def unscale(result, scale, what):
    """``result / scale``, refusing results beyond the float64 range with a clear error."""
    with np.errstate(over="ignore"):
        result = np.asarray(result, dtype=np.float64) / scale
    if not np.isfinite(result).all():
        raise ValueError(
            f"The {what} exceeds the largest float64 value (about 1.8e308) and cannot be "
            "represented; divide the scores by a constant first (the statistic scales with it)."
        )
    return result


# --------------------------------------------------------------------------------------------
# quantiles of numpy's default method (linear interpolation, R's type 7)


def linear_quantiles(order_statistics, n, levels):
    """``np.quantile(x, levels)`` (method ``"linear"``) of ``n`` values, computed from
    ``order_statistics(ranks)``, the values of 0-based ranks of the sorted ``x``.

    numpy's virtual index ``(n - 1) * p`` and its interpolation ``_lerp`` (which interpolates
    from the upper neighbour for ``gamma >= 0.5``), so the cut-offs are bit for bit numpy's
    whether the order statistics come from a sort in memory or from
    :class:`RankSelection` over chunks.
    """
    levels = np.asarray(levels, dtype=np.float64)
    virtual = (n - 1) * levels
    previous = np.floor(virtual)
    gamma = virtual - previous
    previous = np.clip(previous, 0, n - 1).astype(np.int64)
    following = np.minimum(previous + 1, n - 1)
    ranks = np.unique(np.concatenate([previous, following]))
    values = dict(zip(ranks.tolist(), np.asarray(order_statistics(ranks), np.float64).tolist()))
    a = np.array([values[r] for r in previous.tolist()])
    b = np.array([values[r] for r in following.tolist()])
    difference = b - a
    return np.where(gamma >= 0.5, b - difference * (1 - gamma), a + difference * gamma)


def sortable_keys(values):
    """uint64 keys of float64 values in the same order (``-0.0`` as ``0.0``; no NaN)."""
    bits = (np.asarray(values, dtype=np.float64) + 0.0).view(np.uint64)
    negative = bits >> np.uint64(63) == 1
    return np.where(negative, ~bits, bits | np.uint64(1 << 63))


def keys_to_values(keys):
    """The float64 values of :func:`sortable_keys`."""
    keys = np.asarray(keys, dtype=np.uint64)
    negative = keys >> np.uint64(63) == 0
    return np.where(negative, ~keys, keys & ~np.uint64(1 << 63)).view(np.float64)


# Bits of the key resolved per pass, and bucket sizes small enough to collect outright.
_DIGIT_BITS = 16
_COLLECT = 1 << 16


@dataclass(frozen=True)
class RankSelection:
    """The values at given ranks of the sorted data, found over chunks by digits of their keys.

    One round narrows every open rank to the values whose :func:`sortable_keys` start with a
    known prefix: :meth:`chunk` counts, per open prefix, the next 16-bit digit of the keys
    under it (``2**16`` counts per prefix, whatever the chunk's size), or collects the keys
    under a prefix already known to hold at most ``2**16`` values; :meth:`merge` adds the
    counts and joins the collected keys; :meth:`formula` returns the next round, or the values
    once every rank is resolved (:attr:`done`). Exact, in at most four rounds (64 bits),
    usually two or three.

    Parameters
    ----------
    ranks : tuple of int
        The open 0-based ranks.
    prefixes, below : tuple of int
        For each open rank, the known leading ``bits`` bits of its key, and the number of
        values whose key is below that prefix.
    collect : tuple of bool
        For each open rank, whether the keys under its prefix are collected this round.
    bits : int
        Number of leading bits known.
    found : tuple of (int, int)
        ``(rank, key)`` of the ranks already resolved.
    """

    ranks: tuple
    prefixes: tuple
    below: tuple
    collect: tuple
    bits: int = 0
    found: tuple = ()

    @classmethod
    def start(cls, ranks):
        ranks = tuple(sorted({int(r) for r in ranks}))
        n = len(ranks)
        return cls(ranks, (0,) * n, (0,) * n, (False,) * n)

    @property
    def done(self):
        return not self.ranks

    def values(self, ranks):
        """The values of the resolved ``ranks``."""
        keys = dict(self.found)
        return keys_to_values(np.array([keys[int(r)] for r in ranks], dtype=np.uint64))

    def chunk(self, values):
        keys = sortable_keys(values)
        digits, top = self._split(keys)
        counts, collected = {}, {}
        for prefix, collecting in set(zip(self.prefixes, self.collect)):
            under = top == prefix
            if collecting:
                collected[prefix] = keys[under]
            else:
                counts[prefix] = np.bincount(digits[under], minlength=1 << _DIGIT_BITS)
        return counts, collected

    def merge(self, partials):
        counts, collected = {}, {}
        for part_counts, part_collected in partials:
            for prefix, count in part_counts.items():
                counts[prefix] = counts[prefix] + count if prefix in counts else count
            for prefix, keys in part_collected.items():
                collected.setdefault(prefix, []).append(keys)
        return counts, {p: np.concatenate(k) for p, k in collected.items()}

    def formula(self, merged):
        """The next round; :attr:`done` when every rank is resolved."""
        counts, collected = merged
        found = dict(self.found)
        open_ranks, prefixes, below, collect = [], [], [], []
        for rank, prefix, start, collecting in zip(
            self.ranks, self.prefixes, self.below, self.collect, strict=True
        ):
            if collecting:
                found[rank] = int(np.sort(collected[prefix])[rank - start])
                continue
            cumulative = np.cumsum(counts[prefix])
            digit = int(np.searchsorted(cumulative, rank - start, side="right"))
            new_prefix = (prefix << _DIGIT_BITS) | digit
            if self.bits + _DIGIT_BITS == 64:
                found[rank] = new_prefix
                continue
            open_ranks.append(rank)
            prefixes.append(new_prefix)
            below.append(start + (int(cumulative[digit - 1]) if digit else 0))
            collect.append(int(counts[prefix][digit]) <= _COLLECT)
        return RankSelection(
            tuple(open_ranks),
            tuple(prefixes),
            tuple(below),
            tuple(collect),
            self.bits + _DIGIT_BITS,
            tuple(sorted(found.items())),
        )

    def _split(self, keys):
        """(next digit, leading ``bits`` bits) of each key."""
        shift = np.uint64(64 - self.bits - _DIGIT_BITS)
        digits = ((keys >> shift) & np.uint64((1 << _DIGIT_BITS) - 1)).astype(np.intp)
        top = (keys >> np.uint64(64 - self.bits)) if self.bits else np.zeros_like(keys)
        return digits, top
