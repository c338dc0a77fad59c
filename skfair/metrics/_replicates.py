"""Aggregates over groups, for a table's values and for its bootstrap replicates alike.

A source yields, stratum by stratum, the groups one at a time with each metric's values: one
value per group (the table itself, a "replicate" of length 1), the stored replicates of the
callable metrics, or the replicates of the named rates drawn from the count tables one group
at a time (:class:`RateReplicates`). :class:`Aggregates` reduces them with the aggregates'
formulas written once: a first pass over a stratum's groups gives the running minimum,
maximum and number of defined values, and the overall and side values (summed numerators and
denominators for rates); aggregates that combine every group with the overall value, a side
value or a reference group pass over the stratum again. Memory holds a few vectors of the
source's length per metric, whatever the number of groups and strata: the bootstrap of a
table with many groups and replicates no longer holds ``n_boot x n_groups`` values.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np

from skfair.metrics._intervals import ratio

# Aggregates of the first pass over a stratum; the others ("to_overall_*", "each_*",
# "difference_to") pass over it again.
FIRST = (
    "overall",
    "group_min",
    "group_max",
    "between_difference",
    "between_ratio",
    "pooled_difference",
    "pooled_ratio",
)


def nan_reduce(function, values):
    """``function`` (``np.nanmin``, ``np.nanmax``) over the groups, quietly NaN where every
    value is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return function(values, axis=1)


def percentiles(values, levels):
    """``np.nanquantile(values, levels, axis=0)``, quietly NaN where every value is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanquantile(values, levels, axis=0)


def compared(n_defined, n_present, value, parity):
    """``value`` where at least two groups have a defined value, else NaN.

    A comparison of one defined value with nothing is undefined, as in the metric functions
    (a bootstrap replicate where a group lost its value is then left out of the interval). A
    stratum holding a single group (``n_present``: how many groups have samples in it) has
    nothing to compare: the ``parity`` value, as a table of that stratum alone gives.
    """
    single = (n_present == 1) & (n_defined == 1)
    return np.where(n_defined >= 2, value, np.where(single, parity, np.nan))


class _Furthest:
    """The value furthest from parity among values seen a block of groups at a time, as
    :func:`~skfair._stats._aggregate.furthest_from_parity` over all of them at once: ties go to
    the first, a NaN distance (a ratio of negative values) counts as the largest, as in
    ``np.argmax``, and NaN values are skipped."""

    def __init__(self, size, is_ratio):
        self.is_ratio = is_ratio
        self.best = np.full(size, -np.inf)
        self.value = np.full(size, np.nan)
        self.defined = np.zeros(size, dtype=bool)

    def add(self, values):
        """``values`` of shape (size, n_groups in the block)."""
        defined = ~np.isnan(values)
        with np.errstate(divide="ignore", invalid="ignore"):
            distance = np.abs(np.log(values) if self.is_ratio else values)
        distance = np.where(defined, distance, -1.0)
        pick = np.argmax(distance, axis=1)[:, None]
        distance = np.take_along_axis(distance, pick, axis=1)[:, 0]
        values = np.take_along_axis(values, pick, axis=1)[:, 0]
        better = (distance > self.best) | (np.isnan(distance) & ~np.isnan(self.best))
        self.best = np.where(better, distance, self.best)
        self.value = np.where(better, values, self.value)
        self.defined |= defined.any(axis=1)

    def result(self):
        return np.where(self.defined, self.value, np.nan)


# ----------------------------------------------------------------------------------------------
# sources


class StoredValues:
    """Values already at hand: ``{key: (per group, overall, sides)}`` of shapes (size, n_strata,
    n_groups), (size, n_strata) and (size, n_strata, 2) or None; ``size`` is 1 for a table's
    own values, ``n_boot`` for the replicates of the callable metrics. A stratum's groups come
    as one block."""

    def __init__(self, values):
        self.values = values
        self.size = next(iter(values.values()))[0].shape[0]

    def groups(self, stratum):
        n_groups = next(iter(self.values.values()))[0].shape[2]
        yield np.arange(n_groups), {k: v[0][:, stratum] for k, v in self.values.items()}, {}

    def totals(self, key, stratum, parts):
        _, overall, sides = self.values[key]
        return overall[:, stratum], None if sides is None else sides[:, stratum]


class RateReplicates:
    """Bootstrap replicates of the named rates, drawn from the count tables group by group.

    ``bootstrap`` (:class:`~skfair._stats._counts.GroupTableBootstrap`) draws a group's
    replicate tables and ``masks`` maps each rate to its numerator and denominator cells. The
    first pass over a stratum draws from ``rng`` (strata in order, so the stream is the one of
    drawing every table at once) and keeps a copy of the generator at the stratum's start, so
    that a later pass draws the same replicates again.
    """

    def __init__(self, bootstrap, masks, n_groups, n_boot, rng):
        self.bootstrap = bootstrap
        self.masks = {
            name: (m.astype(np.float64), d.astype(np.float64)) for name, (m, d) in masks.items()
        }
        self.n_groups, self.size, self.rng = n_groups, n_boot, rng
        self.starts = {}

    def groups(self, stratum):
        if stratum in self.starts:
            rng = copy.deepcopy(self.starts[stratum])
        else:
            rng = self.rng
            self.starts[stratum] = copy.deepcopy(rng)
        for group in range(self.n_groups):
            draws = self.bootstrap.draw(stratum * self.n_groups + group, self.size, rng)
            if draws is None:
                continue
            parts = {name: (draws @ m, draws @ d) for name, (m, d) in self.masks.items()}
            yield (
                np.array([group]),
                {name: ratio(*part)[:, None] for name, part in parts.items()},
                parts,
            )

    def totals(self, key, stratum, parts):
        """Overall and side values from the numerators and denominators summed in the pass."""
        ratios = ratio(parts[0], parts[1])
        return ratios[..., 0], ratios[..., 1:] if ratios.shape[-1] > 1 else None


# ----------------------------------------------------------------------------------------------
# the aggregates


class Aggregates:
    """Each metric's aggregates over the groups of each stratum, from a source.

    Parameters
    ----------
    source : StoredValues or RateReplicates
    present : ndarray of bool of shape (n_strata, n_groups)
        Groups with samples in each stratum.
    privileged : ndarray of bool of shape (n_groups,) or None
        The privileged groups (their samples form the privileged side).
    levels : sequence of float or None
        Percentile levels: with levels, every first-pass aggregate is reduced to its
        percentiles as each stratum is passed over (nothing of the length of the source is
        kept); without, they are kept whole (a table's own values).
    """

    def __init__(self, source, present, privileged, levels=None):
        self.source, self.present, self.privileged, self.levels = (
            source,
            present,
            privileged,
            levels,
        )
        n_strata, n_groups = present.shape
        self.first = []
        for stratum in range(n_strata):
            passed = self._first_pass(stratum)
            kept = {}
            for key, state in passed.items():
                found = {"by_group": state["by_group"]}
                for what in FIRST:
                    if what.startswith("pooled") and privileged is None:
                        continue
                    found[what] = self._reduce(self._first_value(state, what, stratum))
                kept[key] = found
            self.first.append(kept)

    def _reduce(self, values):
        return values if self.levels is None else percentiles(values, self.levels)

    def value(self, key, what, reference=None):
        """``what`` for the metric ``key``, stacked over the strata: shape (size or 2,
        n_strata[, n_groups])."""
        n_strata = self.present.shape[0]
        if what in ("by_group", *FIRST):
            found = [self.first[stratum][key][what] for stratum in range(n_strata)]
        elif what == "difference_to":
            found = [self._difference_to(key, stratum, reference) for stratum in range(n_strata)]
        else:
            found = [self._second_pass(key, what, stratum) for stratum in range(n_strata)]
        return np.stack(found, axis=1)

    def _first_pass(self, stratum):
        size, n_groups = self.source.size, self.present.shape[1]
        n_sides = 1 if self.privileged is None else 3
        state = {}
        for groups, values, parts in self.source.groups(stratum):
            for key, value in values.items():
                if key not in state:
                    state[key] = {
                        "by_group": np.full((2 if self.levels else size, n_groups), np.nan),
                        "low": np.full(size, np.nan),
                        "high": np.full(size, np.nan),
                        "n_defined": np.zeros(size, dtype=np.int64),
                        # numerators and denominators of [overall, dis side, priv side]
                        "parts": np.zeros((2, size, n_sides)),
                    }
                found = state[key]
                found["by_group"][:, groups] = self._reduce(value)
                found["low"] = np.fmin(found["low"], nan_reduce(np.nanmin, value))
                found["high"] = np.fmax(found["high"], nan_reduce(np.nanmax, value))
                found["n_defined"] += np.count_nonzero(~np.isnan(value), axis=1)
                if key in parts:
                    # one group per block: its numerator and denominator, for the sums
                    (group,) = groups
                    columns = [0] if n_sides == 1 else [0, 2 if self.privileged[group] else 1]
                    for column in columns:
                        found["parts"][0, :, column] += parts[key][0]
                        found["parts"][1, :, column] += parts[key][1]
        for key, found in state.items():
            found["overall"], found["sides"] = self.source.totals(key, stratum, found.pop("parts"))
        return state

    def _first_value(self, state, what, stratum):
        n_present = np.count_nonzero(self.present[stratum])
        low, high, n_defined = state["low"], state["high"], state["n_defined"]
        if what == "overall":
            return state["overall"]
        if what == "group_min":
            return low
        if what == "group_max":
            return high
        if what == "between_difference":
            return compared(n_defined, n_present, high - low, 0.0)
        if what == "between_ratio":
            return compared(n_defined, n_present, ratio(low, high), 1.0)
        sides = state["sides"]
        if what == "pooled_difference":
            return sides[..., 0] - sides[..., 1]
        return ratio(sides[..., 0], sides[..., 1])

    def _difference_to(self, key, stratum, reference):
        """Each group's value minus the reference group's, in one stratum."""
        base = None
        for groups, values, _ in self.source.groups(stratum):
            if reference in groups:
                base = values[key][:, np.flatnonzero(groups == reference)]
                break
        n_groups = self.present.shape[1]
        found = np.full((2 if self.levels else self.source.size, n_groups), np.nan)
        if base is not None:
            for groups, values, _ in self.source.groups(stratum):
                found[:, groups] = self._reduce(values[key] - base)
        return found

    def _second_pass(self, key, what, stratum):
        """An aggregate of every group with the overall or the privileged value."""
        first = self._first_pass(stratum)[key]
        n_present = np.count_nonzero(self.present[stratum])
        size = self.source.size
        if what.startswith("to_overall"):
            overall = first["overall"][:, None]
            running = np.full(size, np.nan)
            for _, values, _ in self.source.groups(stratum):
                value = values[key]
                if what == "to_overall_difference":
                    running = np.fmax(running, nan_reduce(np.nanmax, np.abs(value - overall)))
                else:
                    closeness = np.fmin(ratio(value, overall), ratio(overall, value))
                    running = np.fmin(running, nan_reduce(np.nanmin, closeness))
            parity = 0.0 if what == "to_overall_difference" else 1.0
            return self._reduce(compared(first["n_defined"], n_present, running, parity))
        privileged_value = first["sides"][..., 1:]
        is_ratio = what == "each_ratio"
        furthest = _Furthest(size, is_ratio)
        for groups, values, _ in self.source.groups(stratum):
            compared_groups = ~self.privileged[groups]
            if compared_groups.any():
                value = values[key][:, compared_groups]
                furthest.add(
                    ratio(value, privileged_value) if is_ratio else value - privileged_value
                )
        return self._reduce(furthest.result())
