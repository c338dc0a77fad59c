"""Per-group and per-pair values turned into one score: differences, ratios, worst case, mean.

Statistic consumed: per-group numerators and denominators of a rate (from the count tables of
:mod:`skfair._stats._counts`), or one value per compared pair of groups (from
:mod:`skfair._stats._sorted` or :mod:`skfair._stats._histograms`). These are small tables
(groups or pairs, not samples); merge the sufficient statistics before aggregating, never
the aggregated scores.

Rules, the same for every skfair group metric:

- :func:`rate_difference` and :func:`rate_ratio`: with ``privileged_group``, the signed
  ``rate(dis) - rate(priv)`` (ratio ``dis / priv``), where priv pools the samples of the
  named group(s) and dis pools all the others (``disadvantaged="pooled"``), or each other
  group compared on its own and the comparison furthest from parity kept
  (``disadvantaged="each"``); without it, the largest gap between any two groups,
  ``max - min`` (ratio ``min / max``);
- :func:`group_mean_difference`: the same rules on the per-group weighted mean of a
  per-sample value (stability and uncertainty disparities);
- :func:`aggregate`: several compared pairs or conditioning cells combined by their worst
  case, their mean, or their weighted mean.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from skfair._stats._counts import group_sums
from skfair._utils._groups import privileged_mask


def rate_difference(
    numerator, denominator, groups, privileged_group=None, *, measure, disadvantaged="pooled"
):
    """Disparity of the per-group rates ``numerator / denominator``.

    With ``privileged_group``: ``rate(dis) - rate(priv)`` where priv pools the groups named by
    ``privileged_group`` and dis pools all the others (``disadvantaged="pooled"``) or is each
    other group in turn, keeping the largest ``|rate(dis) - rate(priv)|`` with its sign
    (``disadvantaged="each"``). Without: ``max - min`` over the groups
    whose rate is defined (non-zero denominator). Undefined rates are left out with an
    UndefinedMetricWarning naming the groups; fewer than two defined rates give NaN. A single
    group gives 0.0 with a warning (unsigned) or raises (signed).

    Parameters
    ----------
    numerator, denominator : ndarray of shape (n_groups,)
        Per-group weighted sums, e.g. from :func:`~skfair._stats._counts.confusion_table` or
        :func:`~skfair._stats._counts.group_sums`.
    groups : GroupEncoding
    privileged_group : label, tuple or list of them, default=None
    measure : str
        Name of the rate, used in warnings ("true positive rate").
    disadvantaged : {"pooled", "each"}, default="pooled"

    Returns
    -------
    float
    """
    return _rate_comparison(
        numerator, denominator, groups, privileged_group, measure, disadvantaged, ratio=False
    )


def rate_ratio(
    numerator, denominator, groups, privileged_group=None, *, measure, disadvantaged="pooled"
):
    """Ratio of the per-group rates: ``dis / priv`` (signed) or ``min / max`` (unsigned).

    Same conventions as :func:`rate_difference` (with ``disadvantaged="each"`` the ratio
    furthest from 1, i.e. with the smallest ``min(r, 1 / r)``, is kept); a zero denominator of
    the ratio gives NaN with a warning, and a single group gives 1.0 with a warning.
    """
    return _rate_comparison(
        numerator, denominator, groups, privileged_group, measure, disadvantaged, ratio=True
    )


def _rate_comparison(
    numerator, denominator, groups, privileged_group, measure, disadvantaged, *, ratio
):
    """:func:`rate_difference`, or :func:`rate_ratio` with ``ratio``: one set of rules."""
    if privileged_group is not None:
        gaps = signed_gaps(
            numerator,
            denominator,
            groups,
            privileged_group,
            measure=measure,
            disadvantaged=disadvantaged,
            ratio=ratio,
        )
        return float(furthest_from_parity(gaps, ratio=ratio))
    rates = _defined_rates(numerator, denominator, groups, measure)
    if rates is None:
        return 1.0 if ratio else 0.0
    if rates.size < 2:
        return float("nan")
    if not ratio:
        return float(rates.max() - rates.min())
    if rates.max() == 0:
        warnings.warn(
            f"The {measure} is 0 in every group; the ratio is undefined and NaN is returned.",
            UndefinedMetricWarning,
        )
        return float("nan")
    return float(rates.min() / rates.max())


def group_mean_difference(
    values,
    groups,
    privileged_group=None,
    *,
    sample_weight=None,
    measure="mean",
    disadvantaged="pooled",
):
    """Gap between the per-group weighted means of a per-sample vector ``values``.

    The signed/unsigned rules are those of :func:`rate_difference`. This is the group step of
    the stability and uncertainty disparities.
    """
    numerator, denominator = group_sums(values, groups, sample_weight)
    return rate_difference(
        numerator,
        denominator,
        groups,
        privileged_group,
        measure=measure,
        disadvantaged=disadvantaged,
    )


DISADVANTAGED = ("pooled", "each")


def disadvantaged_sides(groups, privileged_group, disadvantaged):
    """``(privileged, [compared side, ...])`` as boolean masks over the groups.

    ``disadvantaged="pooled"`` gives one compared side, every group not named by
    ``privileged_group``; ``"each"`` gives one side per such group.
    """
    if disadvantaged not in DISADVANTAGED:
        raise ValueError(
            f"disadvantaged must be one of {DISADVANTAGED}, got {disadvantaged!r}: 'pooled' "
            "compares the other groups together with the privileged group(s), 'each' compares "
            "every other group on its own and keeps the comparison furthest from parity."
        )
    is_privileged = privileged_mask(groups, privileged_group)
    if disadvantaged == "pooled":
        return is_privileged, [~is_privileged]
    one_hot = np.eye(groups.n_groups, dtype=bool)
    return is_privileged, [one_hot[g] for g in np.flatnonzero(~is_privileged)]


def furthest_from_parity(values, *, ratio=False):
    """The entry of ``values`` furthest from parity (0, or 1 for ratios) along the last axis.

    The sign is kept; NaN entries are skipped (all NaN gives NaN); ties keep the first entry.
    Leading axes (e.g. bootstrap replicates) are kept.
    """
    values = np.asarray(values, dtype=np.float64)
    defined = ~np.isnan(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        distance = np.abs(np.log(values) if ratio else values)
    distance = np.where(defined, distance, -1.0)
    pick = np.argmax(distance, axis=-1)[..., None]
    furthest = np.take_along_axis(values, pick, axis=-1)[..., 0]
    return np.where(defined.any(axis=-1), furthest, np.nan)


def signed_gaps(
    numerator,
    denominator,
    groups,
    privileged_group,
    *,
    measure,
    disadvantaged="pooled",
    ratio=False,
):
    """``rate(dis) - rate(priv)`` (or ``/`` with ``ratio``) for every compared side.

    One entry with ``disadvantaged="pooled"``, one per non-privileged group with ``"each"``;
    NaN where a side's rate is undefined, and (with a warning) every ratio when the
    privileged rate is 0. Metrics that combine several rates combine these arrays side by
    side, then keep the side furthest from parity (:func:`furthest_from_parity`).
    """
    dis, priv = _side_rates(
        numerator, denominator, groups, privileged_group, measure, disadvantaged
    )
    if not ratio:
        return dis - priv
    if priv == 0:
        warnings.warn(
            f"The {measure} of the privileged group(s) {privileged_group!r} is 0; the ratio "
            "is undefined and NaN is returned.",
            UndefinedMetricWarning,
        )
        return np.full(dis.shape, np.nan)
    return dis / priv


def _side_rates(numerator, denominator, groups, privileged_group, measure, disadvantaged):
    """``(rates of the compared sides, rate of the privileged side)``, NaN when undefined."""
    is_privileged, compared = disadvantaged_sides(groups, privileged_group, disadvantaged)
    names = ["disadvantaged"] * len(compared) + ["privileged"]
    rates = []
    for side, mask in zip(names, [*compared, is_privileged], strict=True):
        total = denominator[mask].sum()
        if total == 0:
            members = [label for label, m in zip(groups.labels, mask, strict=True) if m]
            warnings.warn(
                f"The {measure} is undefined for the {side} samples (groups {members}): they "
                "have no (weight in the) samples it is computed on. NaN is returned.",
                UndefinedMetricWarning,
            )
            rates.append(float("nan"))
        else:
            rates.append(numerator[mask].sum() / total)
    return np.array(rates[:-1]), rates[-1]


def _defined_rates(numerator, denominator, groups, measure):
    """Rates of the groups with a non-zero denominator; None when only one group exists."""
    if groups.n_groups < 2:
        warn_single_group(groups)
        return None
    defined = denominator > 0
    if not defined.all():
        undefined = [label for label, d in zip(groups.labels, defined, strict=True) if not d]
        warnings.warn(
            f"The {measure} is undefined for group(s) {undefined}: they have no (weight in the) "
            "samples it is computed on. They are left out of the comparison.",
            UndefinedMetricWarning,
        )
    return numerator[defined] / denominator[defined]


def aggregate(values, agg, *, sizes=None, signed=False):
    """Combine per-pair (or per-cell) values, shape (n_pairs, ...), into one value per column.

    Parameters
    ----------
    values : array-like of shape (n_pairs,) or (n_pairs, n_columns)
        One row per compared pair of groups (or per pair and conditioning cell).
    agg : {"worst_case", "mean", "weighted"}
        ``"worst_case"``: the row whose value is largest (largest in magnitude when
        ``signed``, sign kept); ``"mean"``: the plain mean over rows; ``"weighted"``: the mean
        weighted by ``sizes``.
    sizes : array-like of shape (n_pairs,), default=None
        Weight of each row for ``agg="weighted"`` (the compared groups' combined weight).
    signed : bool, default=False
        Whether the values carry a sign that the worst case must keep.

    Returns
    -------
    ndarray of shape values.shape[1:]
        NaN, with a warning, when there is no row.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.shape[0] == 0:
        warnings.warn(
            "No cell has rows of both compared groups; returning nan.", UserWarning, stacklevel=3
        )
        return np.full(values.shape[1:], np.nan)
    if agg == "mean":
        return values.mean(axis=0)
    if agg == "weighted":
        return np.average(values, axis=0, weights=sizes)
    magnitude = np.abs(values) if signed else values
    worst = np.argmax(magnitude, axis=0)
    return np.take_along_axis(values, np.expand_dims(worst, 0), axis=0)[0]


def warn_single_group(groups, reported="no disparity", *, stacklevel=3):
    """Warn that a disparity over a single group is reported as ``reported``.

    The rule of every skfair group metric: with one group there is nothing to compare, the
    metric returns its "no disparity" value (0.0, or 1.0 for ratios) and says so with an
    :class:`~sklearn.exceptions.UndefinedMetricWarning`, so that, e.g., a cross-validation fold
    holding a single group is not silently scored as perfectly fair.
    """
    warnings.warn(
        f"Only one group ({groups.labels}) is present in the sensitive features: the "
        f"disparity between groups is undefined and is reported as {reported}. Check that "
        "the sensitive features vary in the data passed (a cross-validation fold sorted by "
        "group may hold a single group).",
        UndefinedMetricWarning,
        stacklevel=stacklevel,
    )
