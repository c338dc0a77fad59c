"""Optimal group thresholds under predictive parity (equal precision), exactly (pure functions).

A group's precision at the operating point ``(FP, TP)`` (weights of false and true positives)
is ``TP / (TP + FP)``: a ratio, so "every group has precision ``c``" is linear only once ``c``
is fixed, and the program is solved as a search over the common precision ``c``. For a fixed
window ``[c, c + tolerance]`` of allowed precisions the groups no longer interact: each takes
the best point of its reachable region (under its upper ROC hull, above the diagonal) whose
precision lies in the window, or selects nobody (its precision is then undefined and
constrains nothing). Every supported objective is a gain ``alpha * TP - beta * FP`` with the
same ``alpha, beta >= 0`` for every group, and along the hull, from its steepest vertex to
``(N, P)``, the precision decreases while the gain is unimodal; so a group's best point is the
hull point whose precision is the group's unconstrained best precision clipped to the window.

Why the breakpoints suffice. Write ``p0 = beta / (alpha + beta)``: a selection of precision
``p`` and weight ``S`` gains ``(alpha + beta) (p - p0) S``. On a hull segment of marginal
precision ``r`` (the precision of the rows it adds), the point of precision ``p`` selects
``S = b / ((1 + s) (p - r))`` (``s``, ``b``: the segment's slope and intercept), so its gain is
``K (p - p0) / (p - r)`` with ``K >= 0``, of derivative ``K (p0 - r) / (p - r)^2``. Between two
consecutive breakpoints (the hull vertices' precisions, the groups' best precisions and
``p0``, each also shifted by ``-tolerance``) each group's gain is a constant or one such
function of ``c`` (at ``p = c`` when the window's lower end binds, at ``p = c + tolerance``
when its upper end does). A group held at ``p = c`` would gain by selecting more, so its
segment has ``r > p0`` (a decreasing term), and it selects at all only if ``c > p0``; a group
held at ``c + tolerance`` has ``r < p0`` (an increasing term). Multiplied by ``(c - p0)^2``,
each decreasing term's derivative becomes ``-K (r - p0) ((c - p0) / (c - r))^2``, increasing
in ``c`` since ``(c - p0) / (c - r)`` decreases for ``c > r > p0``, and each increasing term's
``K (p0 - r) ((c - p0) / (c + tolerance - r))^2``, increasing too. So the total's derivative
changes sign at most once on the interval, from negative to positive: the total has no
interior maximum, and its maximum over ``c`` is at a breakpoint. Evaluating the total at every
breakpoint gives the exact optimum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# How far outside the window of precisions a group may land, for rounding (as the linear
# programs' feasibility tolerance).
_SLACK = 1e-12


@dataclass(frozen=True)
class _GroupCurve:
    """A group's hull vertices in weights (without the origin), by decreasing precision."""

    fp: np.ndarray
    tp: np.ndarray
    precision: np.ndarray
    gain: np.ndarray
    best: float  # the precision of the best vertex
    positive: float
    negative: float


def _curve(geometry, alpha, beta):
    fpr, tpr, _ = geometry.hull
    fp, tp = fpr[1:] * geometry.negative, tpr[1:] * geometry.positive
    gain = alpha * tp - beta * fp
    precision = tp / (tp + fp)
    return _GroupCurve(
        fp,
        tp,
        precision,
        gain,
        float(precision[np.argmax(gain)]),
        geometry.positive,
        geometry.negative,
    )


def _segment(curve, p):
    """Index ``k >= 1`` of the segment (vertices ``k - 1``, ``k``) holding precision ``p``,
    or 0 where ``p`` is the first vertex's precision (or above)."""
    return np.searchsorted(-curve.precision, -p, side="left")


def _point(curve, p):
    """``(fp, tp, gain)`` of the hull point of precision ``p`` (within the curve's range)."""
    k = _segment(curve, p)
    first = k == 0
    k = np.clip(k, 1, max(len(curve.precision) - 1, 1))
    fp0, tp0 = curve.fp[k - 1], curve.tp[k - 1]
    if len(curve.precision) == 1:
        return fp0, tp0, curve.gain[0] + 0.0 * p
    dfp, dtp = curve.fp[k] - fp0, curve.tp[k] - tp0
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = (tp0 - p * (tp0 + fp0)) / (p * (dfp + dtp) - dtp)
    lam = np.where(first, 0.0, np.clip(np.nan_to_num(lam), 0.0, 1.0))
    gain0 = curve.gain[k - 1]
    return fp0 + lam * dfp, tp0 + lam * dtp, gain0 + lam * (curve.gain[k] - gain0)


def _choice(curve, c, tolerance, tie):
    """The precision each window ``[c, c + tolerance]`` picks and its gain (NaN: nobody).

    The window is widened by ``_SLACK`` on both sides, so that a breakpoint ``q - tolerance``
    still admits ``q`` after rounding. A gain of at most ``tie`` counts as none: selecting
    rows that gain nothing is not worth it, whatever the rounding of the weights' sums.
    """
    low = np.maximum(c - _SLACK, curve.precision[-1])
    high = np.minimum(c + tolerance + _SLACK, curve.precision[0])
    empty = low > high
    chosen = np.clip(curve.best, low, np.where(empty, low, high))
    gain = _point(curve, chosen)[2]
    nobody = empty | (gain <= tie)
    return chosen, np.where(nobody, np.nan, gain)


def solve_predictive_parity(geometries, alpha, beta, tolerance):
    """Optimal operating points ``(fpr, tpr)`` per group under predictive parity.

    Parameters
    ----------
    geometries : list of GroupGeometry
        The groups' weights and hulls.
    alpha, beta : float
        The objective is ``sum_a alpha * TP_a - beta * FP_a`` (plus a constant).
    tolerance : float
        Largest allowed difference between two groups' precisions (groups that select nobody
        have none).

    Returns
    -------
    fpr, tpr : ndarray of shape (n_groups,)
    """
    c_max = max(0.0, 1.0 - tolerance)
    curves = [_curve(geo, alpha, beta) if geo.hull is not None else None for geo in geometries]
    all_positive = [geo.hull is None and geo.positive > 0 for geo in geometries]
    breaks = [0.0, c_max]
    if alpha + beta > 0:
        breaks += [beta / (alpha + beta), beta / (alpha + beta) - tolerance]
    if any(all_positive):
        breaks.append(1.0 - tolerance)
    for curve in curves:
        if curve is not None:
            breaks += [*curve.precision, *(curve.precision - tolerance)]
            breaks += [curve.best, curve.best - tolerance]

    candidates = np.unique(np.clip(breaks, 0.0, c_max))
    # Gains that differ by less than this are ties, broken alike however the weights are
    # written (integer weights or repeated rows round their sums differently).
    tie = _SLACK * sum(alpha * geo.positive + beta * geo.negative for geo in geometries)

    total = np.zeros(candidates.size)
    for curve, positive_only, geo in zip(curves, all_positive, geometries):
        if curve is not None:
            total += np.nan_to_num(_choice(curve, candidates, tolerance, tie)[1])
        elif positive_only and alpha > 0:
            total += np.where(candidates + tolerance + _SLACK >= 1.0, alpha * geo.positive, 0.0)
    c = candidates[np.flatnonzero(total >= total.max() - tie)[0]]

    fpr, tpr = np.zeros(len(geometries)), np.zeros(len(geometries))
    for g, (curve, positive_only, geo) in enumerate(zip(curves, all_positive, geometries)):
        if curve is not None:
            chosen, gain = _choice(curve, np.array([c]), tolerance, tie)
            if not np.isnan(gain[0]):
                fp, tp, _ = _point(curve, chosen)
                fpr[g], tpr[g] = fp[0] / geo.negative, tp[0] / geo.positive
        elif positive_only:
            tpr[g] = 1.0 if (c + tolerance + _SLACK >= 1.0 and alpha > 0) else 0.0
    return fpr, tpr
