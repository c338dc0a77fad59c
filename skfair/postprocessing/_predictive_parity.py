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

On the hull segment between vertices ``u`` and ``v``, the point of precision ``p`` is
``u + lambda (v - u)`` with ``lambda`` a ratio of two linear functions of ``p``, so its gain
is a Moebius function ``(A p + B) / (C p + D)``: monotone. The total gain as a function of
``c`` is therefore, between consecutive breakpoints (the hull vertices' precisions, the groups'
best precisions and the gain's sign change, each also shifted by ``-tolerance``), a constant
plus a sum of Moebius functions of ``c``; its maxima are at the breakpoints or where its
derivative ``sum_i k_i / (C_i c + D_i)^2`` vanishes, which are roots of a polynomial of degree
``2 (n_terms - 1)``. Evaluating the total at every breakpoint and every such root gives the
exact optimum (up to the root finder's rounding, which costs a second-order amount of the
objective).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.polynomial import polynomial as P


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


def _choice(curve, c, tolerance):
    """The precision each window ``[c, c + tolerance]`` picks and its gain (NaN: nobody)."""
    low = np.maximum(c, curve.precision[-1])
    high = np.minimum(c + tolerance, curve.precision[0])
    empty = low > high
    chosen = np.clip(curve.best, low, np.where(empty, low, high))
    gain = _point(curve, chosen)[2]
    nobody = empty | (gain <= 0)
    return chosen, np.where(nobody, np.nan, gain)


def _moebius(curve, p):
    """``(A, B, C, D)`` with gain ``(A p + B) / (C p + D)`` on the segment holding ``p``."""
    k = int(_segment(curve, p))
    if k == 0 or len(curve.precision) == 1:
        return None
    fp0, tp0, gain0 = curve.fp[k - 1], curve.tp[k - 1], curve.gain[k - 1]
    dfp, dtp = curve.fp[k] - fp0, curve.tp[k] - tp0
    dgain = curve.gain[k] - gain0
    ds = dfp + dtp
    return gain0 * ds - dgain * (tp0 + fp0), dgain * tp0 - gain0 * dtp, ds, -dtp


def _stationary_points(terms, low, high):
    """Roots in ``(low, high)`` of ``sum_i k_i / (C_i c + D_i)^2`` for ``terms`` (k, C, D)."""
    width = high - low
    linear = [(k, np.array([C * low + D, C * width])) for k, C, D in terms]
    scale = max(abs(k) for k, _ in linear)
    # Each denominator is normalised at the interval's middle, for the conditioning.
    linear = [(k / scale, d / (d[0] + d[1] / 2)) for k, d in linear]
    squares = [P.polymul(d, d) for _, d in linear]
    numerator = np.zeros(1)
    for i, (k, _) in enumerate(linear):
        product = np.array([k])
        for j, square in enumerate(squares):
            if j != i:
                product = P.polymul(product, square)
        numerator = P.polyadd(numerator, product)
    roots = P.polyroots(P.polytrim(numerator, 1e-300)) if len(numerator) > 1 else []
    roots = np.real(np.asarray(roots)[np.abs(np.imag(roots)) < 1e-7])
    return low + width * roots[(roots > 0) & (roots < 1)]


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
    breaks = np.unique(np.clip(breaks, 0.0, c_max))

    candidates = [breaks]
    for low, high in zip(breaks[:-1], breaks[1:]):
        terms = _active_terms(curves, (low + high) / 2, tolerance)
        signs = {np.sign(k) for k, _, _ in terms if k != 0}
        if len(signs) == 2:
            candidates.append(_stationary_points(terms, low, high))
    candidates = np.concatenate(candidates)

    total = np.zeros(candidates.size)
    for curve, positive_only, geo in zip(curves, all_positive, geometries):
        if curve is not None:
            total += np.nan_to_num(_choice(curve, candidates, tolerance)[1])
        elif positive_only and alpha > 0:
            total += np.where(candidates + tolerance >= 1.0, alpha * geo.positive, 0.0)
    c = candidates[np.argmax(total)]

    fpr, tpr = np.zeros(len(geometries)), np.zeros(len(geometries))
    for g, (curve, positive_only, geo) in enumerate(zip(curves, all_positive, geometries)):
        if curve is not None:
            chosen, gain = _choice(curve, np.array([c]), tolerance)
            if not np.isnan(gain[0]):
                fp, tp, _ = _point(curve, chosen)
                fpr[g], tpr[g] = fp[0] / geo.negative, tp[0] / geo.positive
        elif positive_only:
            tpr[g] = 1.0 if (c + tolerance >= 1.0 and alpha > 0) else 0.0
    return fpr, tpr


def _active_terms(curves, c, tolerance):
    """The Moebius terms ``(k, C, D)`` of the total gain's derivative around ``c``."""
    terms = []
    for curve in curves:
        if curve is None:
            continue
        chosen, gain = _choice(curve, np.array([c]), tolerance)
        chosen = float(chosen[0])
        if np.isnan(gain[0]) or chosen == curve.best:
            continue
        shift = 0.0 if chosen == c else tolerance if chosen == c + tolerance else None
        if shift is None:  # pinned at an end of the group's range: constant
            continue
        coefficients = _moebius(curve, chosen)
        if coefficients is None:
            continue
        A, B, C, D = coefficients
        terms.append((A * D - B * C, C, C * shift + D))
    return terms
