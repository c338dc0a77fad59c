"""Disparities between the score distributions of groups: Wasserstein-1, KS, quantile, threshold.

Miroshnikov et al., "Wasserstein-based fairness interpretability framework for machine learning
models" (arXiv:2011.03156). The Wasserstein-1 model bias of Def. 3.2 splits into a *positive*
part (quantile levels where the privileged group G=0 sits on the favourable side) and a
*negative* part (the other group favoured). Theorem 3.2 writes both as integrals of the
threshold (statistical-parity) bias ``sign * (F_1(t) - F_0(t))``, which is a finite sum for
empirical distributions, so every value here is exact (no grid).

Each metric is built in two steps (DESIGN.md): the sufficient statistics of a compared pair are
its rows sorted by score with their weights (one global sort, then a mask per pair), and a small
formula turns them into the statistic.

Orientation (decision D1 of the spec, a deliberate exception to "disadvantaged minus
privileged"): with ``privileged_group`` the results are signed and *positive means the
privileged group is favoured*, so ``net`` has the opposite sign of the statistical parity
difference. Without ``privileged_group`` the results are unsigned: each pair is oriented so that
its net part is >= 0 (D2).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from sklearn.utils.multiclass import type_of_target

from skfair._compat import Interval, Real, StrOptions, validate_params
from skfair._stats._aggregate import DISADVANTAGED, aggregate, disadvantaged_sides
from skfair._stats._sorted import (
    FAVORABLE_SIGN,
    cdf_at,
    ks_parts_sorted,
    quantile_at,
    w1_parts_sorted,
)
from skfair._validation import check_groups, check_lengths, check_scores, check_weights

_AGGREGATIONS = {"worst_case", "mean", "weighted"}


# --------------------------------------------------------------------------------------------
# Kernels on one compared pair (spec §5.1, §5.3)


# --------------------------------------------------------------------------------------------
# Compared pairs: sufficient statistics


@dataclass(frozen=True)
class _Pair:
    """Rows of two compared groups within one cell, sorted by score."""

    values: np.ndarray  # sorted scores
    weights0: np.ndarray  # weight of each row in the group playing G=0, else 0
    weights1: np.ndarray  # weight of each row in the group playing G=1, else 0
    size: float  # combined weight, for agg="weighted"


def _compared_pairs(
    y_true,
    y_score,
    sensitive_features,
    privileged_group,
    condition_on_y,
    sample_weight,
    sign,
    disadvantaged="pooled",
):
    """Build the compared pairs (spec D2-D4) and tell whether results are signed."""
    y_score = check_scores(y_score)
    n_samples = check_lengths(
        y_score=y_score, y_true=y_true if condition_on_y else None, sample_weight=sample_weight
    )
    groups = check_groups(sensitive_features, n_samples)
    weights = check_weights(sample_weight, n_samples)
    weights = np.ones(n_samples) if weights is None else weights
    signed = privileged_group is not None

    if signed:
        privileged, compared = disadvantaged_sides(groups, privileged_group, disadvantaged)
        sides = [(privileged, side) for side in compared]
    else:
        one_hot = np.eye(groups.n_groups, dtype=bool)
        sides = [(one_hot[a], one_hot[b]) for a, b in combinations(range(groups.n_groups), 2)]

    order = np.argsort(y_score)  # ties in any order: see _w1_parts
    sorted_scores = y_score[order]
    sorted_codes = groups.codes[order]
    sorted_weights = weights[order]
    labels = groups.labels
    pairs = []
    for cell_name, cell in _cells(y_true, condition_on_y, order):
        for side0, side1 in sides:
            in0 = side0[sorted_codes] & cell
            in1 = side1[sorted_codes] & cell
            weight0 = sorted_weights[in0].sum()
            weight1 = sorted_weights[in1].sum()
            if not (in0.any() and in1.any()):
                missing = [labels[g] for g in np.flatnonzero(side0 if not in0.any() else side1)]
                warnings.warn(
                    f"Group {missing} has no rows with y_true == {cell_name!r}; that cell is "
                    "skipped.",
                    UserWarning,
                    stacklevel=4,
                )
                continue
            if weight0 == 0 or weight1 == 0:
                raise ValueError(
                    "A compared group has zero total sample_weight; its score distribution is "
                    "undefined. Give each group positive weight."
                )
            keep = in0 | in1
            weights0 = np.where(in0, sorted_weights, 0.0)
            weights1 = np.where(in1, sorted_weights, 0.0)
            values = sorted_scores
            if not keep.all():
                weights0, weights1, values = weights0[keep], weights1[keep], values[keep]
            if not signed:
                # D2: the group favoured on average plays G=0, so the net part is >= 0.
                mean_gap = values @ weights0 / weight0 - values @ weights1 / weight1
                if sign * mean_gap < 0:
                    weights0, weights1 = weights1, weights0
            pairs.append(_Pair(values, weights0, weights1, weight0 + weight1))
    return pairs, signed, groups.n_groups


def _cells(y_true, condition_on_y, order):
    """Yield ``(class, mask over the sorted rows)``: one cell, or one per class of y_true."""
    if not condition_on_y:
        yield None, np.ones(order.shape[0], dtype=bool)
        return
    if y_true is None:
        raise ValueError("condition_on_y=True needs y_true (the class labels to condition on).")
    y_true = np.asarray(y_true)
    if y_true.ndim != 1:
        raise ValueError(f"y_true must be 1-D, got shape {y_true.shape}.")
    target_type = type_of_target(y_true, input_name="y_true")
    if target_type not in ("binary", "multiclass"):
        raise ValueError(
            f"condition_on_y=True needs class labels in y_true, got type_of_target="
            f"{target_type!r}. Bin a continuous target first (e.g. with np.digitize)."
        )
    classes, codes = np.unique(y_true, return_inverse=True)
    sorted_codes = codes.reshape(-1)[order]
    for k, label in enumerate(classes.tolist()):
        yield label, sorted_codes == k


def _scalar_or_array(result, like):
    """A float for a scalar ``p`` / ``threshold``, the 1-D array otherwise."""
    return float(result[0]) if np.ndim(like) == 0 else result


_COMMON_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_score": ["array-like"],
    "sensitive_features": ["array-like", dict],
    "favorable": [StrOptions({"higher", "lower"})],
    "privileged_group": "no_validation",
    "disadvantaged": [StrOptions(set(DISADVANTAGED))],
    "condition_on_y": ["boolean"],
    "agg": [StrOptions(_AGGREGATIONS)],
    "sample_weight": ["array-like", None],
}


# --------------------------------------------------------------------------------------------
# Public metrics


@validate_params(
    {**_COMMON_CONSTRAINTS, "part": [StrOptions({"total", "positive", "negative", "net"})]},
    prefer_skip_nested_validation=True,
)
def wasserstein_bias(
    y_true,
    y_score,
    *,
    sensitive_features,
    favorable="higher",
    part="total",
    privileged_group=None,
    disadvantaged="pooled",
    condition_on_y=False,
    agg="worst_case",
    sample_weight=None,
):
    """Wasserstein-1 distance between the groups' score distributions, and its parts.

    The model bias of Miroshnikov et al. (Def. 3.2): ``total = W1(f|G=0, f|G=1)`` splits into
    ``positive`` (transport at the quantile levels where the privileged group G=0 is on the
    favourable side, i.e. the model favours it), ``negative`` (the other group favoured), with
    ``total = positive + negative`` and ``net = positive - negative
    = sign * (E[f|privileged] - E[f|other])``. Computed exactly from the empirical CDFs
    (Theorem 3.2), with weights and ties, in O(n log n).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Class labels; used only when ``condition_on_y=True``.
    y_score : array-like of shape (n_samples,)
        Scores (probabilities, decision values or regression outputs).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Group of each sample; several attributes form intersectional groups.
    favorable : {"higher", "lower"}, default="higher"
        Whether higher or lower scores are favourable to the individual.
    part : {"total", "positive", "negative", "net"}, default="total"
        Which part of the bias to return.
    privileged_group : label or tuple of labels, default=None
        The paper's G=0. When given, results are signed (positive = privileged favoured) and
        the other groups are compared with it (see ``disadvantaged``). When None, all pairs
        of groups are compared and each pair is oriented so that its net part is >= 0 (the
        favoured group plays G=0).
        Note the sign: on two groups, ``net`` has the opposite sign of
        ``statistical_parity_difference`` (which is disadvantaged minus privileged).
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare their samples pooled with
        the privileged group(s), or each other group on its own, the pairs then combined by
        ``agg`` (see :mod:`skfair.metrics`).
    condition_on_y : bool, default=False
        Compare the groups within each class of ``y_true`` (the equalized-odds type, Def. 3.3).
    agg : {"worst_case", "mean", "weighted"}, default="worst_case"
        How to combine several compared pairs or cells: the one whose requested part is largest
        in magnitude, the plain mean, or the mean weighted by the two groups' combined weight.
        Irrelevant for two groups without conditioning.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in each group's ECDF.

    Returns
    -------
    float
        The requested part; 0.0 when there is a single group.

    Examples
    --------
    >>> from skfair.metrics import wasserstein_bias
    >>> scores = [0.2, 0.4, 0.6, 0.3, 0.5, 0.9]
    >>> groups = ["a", "a", "a", "b", "b", "b"]
    >>> round(wasserstein_bias(None, scores, sensitive_features=groups), 4)
    0.1667
    >>> round(wasserstein_bias(None, scores, sensitive_features=groups, part="net",
    ...                        privileged_group="a"), 4)
    -0.1667
    """
    sign = FAVORABLE_SIGN[favorable]
    pairs, signed, n_groups = _compared_pairs(
        y_true,
        y_score,
        sensitive_features,
        privileged_group,
        condition_on_y,
        sample_weight,
        sign,
        disadvantaged,
    )
    if n_groups < 2:
        return 0.0
    parts = np.array([w1_parts_sorted(p.values, p.weights0, p.weights1, sign) for p in pairs])
    parts = parts.reshape(-1, 2)
    positive, negative = parts[:, 0], parts[:, 1]
    per_pair = {
        "total": positive + negative,
        "positive": positive,
        "negative": negative,
        "net": positive - negative,
    }[part]
    sizes = np.array([p.size for p in pairs])
    return float(aggregate(per_pair, agg, sizes=sizes, signed=signed and part == "net"))


@validate_params(
    {**_COMMON_CONSTRAINTS, "part": [StrOptions({"total", "positive", "negative", "net"})]},
    prefer_skip_nested_validation=True,
)
def ks_bias(
    y_true,
    y_score,
    *,
    sensitive_features,
    favorable="higher",
    part="total",
    privileged_group=None,
    disadvantaged="pooled",
    condition_on_y=False,
    agg="worst_case",
    sample_weight=None,
):
    """Kolmogorov-Smirnov distance between the groups' score distributions.

    ``total = sup_t |F_1(t) - F_0(t)|`` is the largest statistical-parity gap over all
    thresholds (``max_t |classifier_bias(t)|``). ``positive = max(0, sup_t sign (F_1 - F_0))``
    is the largest gap at a threshold where the privileged group G=0 is favoured, ``negative``
    the largest where the other group is. KS is invariant under increasing maps of the scores
    and jumps under tiny shifts of point masses, which is why the paper prefers W1 (Sect. 3.5).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Class labels; used only when ``condition_on_y=True``.
    y_score : array-like of shape (n_samples,)
        Scores.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Group of each sample.
    favorable : {"higher", "lower"}, default="higher"
        Whether higher scores are favourable.
    part : {"total", "positive", "negative"}, default="total"
        KS has no net part; ``"net"`` raises.
    privileged_group : label or tuple of labels, default=None
        The paper's G=0; see :func:`wasserstein_bias` for the orientation rules.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare their samples pooled with
        the privileged group(s), or each other group on its own, the pairs then combined by
        ``agg`` (see :mod:`skfair.metrics`).
    condition_on_y : bool, default=False
        Compare the groups within each class of ``y_true``.
    agg : {"worst_case", "mean", "weighted"}, default="worst_case"
        How to combine several pairs or cells.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples.

    Returns
    -------
    float

    Examples
    --------
    >>> from skfair.metrics import ks_bias
    >>> ks_bias(None, [0.1, 0.2, 0.3, 0.4], sensitive_features=[0, 0, 1, 1])
    1.0
    """
    if part == "net":
        raise ValueError(
            "ks_bias has no 'net' part (a supremum does not split additively); use part="
            "'total', 'positive' or 'negative', or wasserstein_bias(part='net')."
        )
    sign = FAVORABLE_SIGN[favorable]
    pairs, _, n_groups = _compared_pairs(
        y_true,
        y_score,
        sensitive_features,
        privileged_group,
        condition_on_y,
        sample_weight,
        sign,
        disadvantaged,
    )
    if n_groups < 2:
        return 0.0
    parts = np.array([ks_parts_sorted(p.values, p.weights0, p.weights1, sign) for p in pairs])
    parts = parts.reshape(-1, 2)
    per_pair = {
        "total": parts.max(axis=1),
        "positive": parts[:, 0],
        "negative": parts[:, 1],
    }[part]
    sizes = np.array([p.size for p in pairs])
    return float(aggregate(per_pair, agg, sizes=sizes, signed=False))


@validate_params(
    {**_COMMON_CONSTRAINTS, "p": [Interval(Real, 0, 1, closed="right"), "array-like"]},
    prefer_skip_nested_validation=True,
)
def quantile_bias(
    y_true,
    y_score,
    *,
    sensitive_features,
    p=0.5,
    favorable="higher",
    privileged_group=None,
    disadvantaged="pooled",
    condition_on_y=False,
    agg="worst_case",
    sample_weight=None,
):
    """Gap between the groups' score quantiles at level ``p`` (Def. 2.3).

    ``sign * (Q_0(p) - Q_1(p))`` with ``Q_k(p) = inf{x : F_k(x) >= p}``, the lower quantile
    (``numpy.quantile(method="inverted_cdf")``, weighted). Positive means the privileged group
    G=0 is favoured at that level. Integrated over ``p`` in (0, 1] it gives the net W1 bias
    (Theorem 3.2).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Class labels; used only when ``condition_on_y=True``.
    y_score : array-like of shape (n_samples,)
        Scores.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Group of each sample.
    p : float or array-like of floats in (0, 1], default=0.5
        Quantile level(s). ``p <= 0`` raises (``Q(0) = -inf``).
    favorable : {"higher", "lower"}, default="higher"
        Whether higher scores are favourable.
    privileged_group : label or tuple of labels, default=None
        The paper's G=0. Without it the result is unsigned: the largest absolute gap (or the
        mean absolute gap) over pairs of groups.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare their samples pooled with
        the privileged group(s), or each other group on its own, the pairs then combined by
        ``agg`` (see :mod:`skfair.metrics`).
    condition_on_y : bool, default=False
        Compare the groups within each class of ``y_true``.
    agg : {"worst_case", "mean", "weighted"}, default="worst_case"
        How to combine several pairs or cells; elementwise for an array ``p``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples.

    Returns
    -------
    float or ndarray of shape (n_levels,)

    Examples
    --------
    >>> from skfair.metrics import quantile_bias
    >>> quantile_bias(None, [1.0, 2.0, 3.0, 5.0], sensitive_features=[0, 0, 1, 1],
    ...               privileged_group=1)
    2.0
    """
    levels = _check_levels(p)
    sign = FAVORABLE_SIGN[favorable]
    pairs, signed, n_groups = _compared_pairs(
        y_true,
        y_score,
        sensitive_features,
        privileged_group,
        condition_on_y,
        sample_weight,
        sign,
        disadvantaged,
    )
    if n_groups < 2:
        return _scalar_or_array(np.zeros_like(levels), p)
    per_pair = np.array(
        [
            sign
            * (
                quantile_at(pr.values[pr.weights0 > 0], pr.weights0[pr.weights0 > 0], levels)
                - quantile_at(pr.values[pr.weights1 > 0], pr.weights1[pr.weights1 > 0], levels)
            )
            for pr in pairs
        ]
    ).reshape(-1, levels.shape[0])
    if not signed:
        per_pair = np.abs(per_pair)
    sizes = np.array([pr.size for pr in pairs])
    return _scalar_or_array(aggregate(per_pair, agg, sizes=sizes, signed=signed), p)


@validate_params(
    {**_COMMON_CONSTRAINTS, "threshold": [Real, "array-like"]},
    prefer_skip_nested_validation=True,
)
def classifier_bias(
    y_true,
    y_score,
    *,
    sensitive_features,
    threshold=0.5,
    favorable="higher",
    privileged_group=None,
    disadvantaged="pooled",
    condition_on_y=False,
    agg="worst_case",
    sample_weight=None,
):
    """Statistical-parity bias of the classifier ``1{score > threshold}`` (Def. 2.2).

    ``sign * (F_1(t) - F_0(t))``: with ``favorable="higher"`` this is the selection rate of the
    privileged group G=0 minus that of the other group, i.e. ``-statistical_parity_difference``
    (positive = privileged favoured, spec D1). Integrated over all thresholds it gives the net
    W1 bias, and its positive and negative parts integrate to the positive and negative W1 bias
    (Theorem 3.2).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Class labels; used only when ``condition_on_y=True``.
    y_score : array-like of shape (n_samples,)
        Scores.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Group of each sample.
    threshold : float or array-like of floats, default=0.5
        Decision threshold(s) t; the classifier predicts the positive class when score > t.
    favorable : {"higher", "lower"}, default="higher"
        Whether higher scores are favourable.
    privileged_group : label or tuple of labels, default=None
        The paper's G=0. Without it the result is unsigned (absolute gaps over pairs).
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare their samples pooled with
        the privileged group(s), or each other group on its own, the pairs then combined by
        ``agg`` (see :mod:`skfair.metrics`).
    condition_on_y : bool, default=False
        Compare the groups within each class of ``y_true`` (equalized odds at t).
    agg : {"worst_case", "mean", "weighted"}, default="worst_case"
        How to combine several pairs or cells; elementwise for an array ``threshold``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples.

    Returns
    -------
    float or ndarray of shape (n_thresholds,)

    Examples
    --------
    >>> from skfair.metrics import classifier_bias
    >>> classifier_bias(None, [0.2, 0.7, 0.6, 0.9], sensitive_features=["m", "m", "f", "f"],
    ...                 privileged_group="m")
    -0.5
    """
    thresholds = np.atleast_1d(np.asarray(threshold, dtype=np.float64))
    if thresholds.ndim != 1 or not np.isfinite(thresholds).all():
        raise ValueError("threshold must be a finite float or a 1-D array of finite floats.")
    sign = FAVORABLE_SIGN[favorable]
    pairs, signed, n_groups = _compared_pairs(
        y_true,
        y_score,
        sensitive_features,
        privileged_group,
        condition_on_y,
        sample_weight,
        sign,
        disadvantaged,
    )
    if n_groups < 2:
        return _scalar_or_array(np.zeros_like(thresholds), threshold)
    per_pair = np.array(
        [
            sign
            * (
                cdf_at(pr.values, pr.weights1, thresholds)
                - cdf_at(pr.values, pr.weights0, thresholds)
            )
            for pr in pairs
        ]
    ).reshape(-1, thresholds.shape[0])
    if not signed:
        per_pair = np.abs(per_pair)
    sizes = np.array([pr.size for pr in pairs])
    return _scalar_or_array(aggregate(per_pair, agg, sizes=sizes, signed=signed), threshold)


def _check_levels(p):
    levels = np.atleast_1d(np.asarray(p, dtype=np.float64))
    if levels.ndim != 1 or not np.isfinite(levels).all():
        raise ValueError("p must be a float or a 1-D array of floats in (0, 1].")
    if (levels <= 0).any() or (levels > 1).any():
        raise ValueError(
            f"p must lie in (0, 1], got {levels.tolist()}: the quantile at p = 0 is -inf."
        )
    return levels
