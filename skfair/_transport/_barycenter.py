"""Wasserstein-barycenter repair of scores and regression outputs.

The optimal demographic-parity-fair predictor in squared loss maps each group's output law to
the W2 barycenter of the group laws (Chzhen et al. 2020, Le Gouic et al. 2020):
``fair(y) = Q̄(F_a(y))`` with ``Q̄ = Σ_b p_b Q_b``. Everything here is a sort, a cumulative
sum and a ``searchsorted``:

- fit: one sort of the calibration values by (cell, value); the barycenter quantile function
  Q̄ is built on the merged grid of all cells' quantile levels, whatever the number of cells;
- transform: one ``searchsorted`` of each query in its own cell (the randomised probability
  integral transform for values that hit an atom) and one lookup in Q̄, so the cost does not
  depend on the number of groups;
- ``fit_transform``: the exact in-sample path, ranks with random order inside tie blocks, so
  repaired groups differ by less than one atom even for discrete scores.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Real

import numpy as np

from skfair._stats._sorted import (
    FEW_CODES,
    code_bounds,
    code_order,
    rows_by_code,
    small_codes,
    sort_by_code,
    sorted_segments,
)
from skfair._transport._repair import _BaseRepair

# Cells with fewer calibration rows than this get a warning: their maps are noisy.
_SMALL_CELL = 10

_TINY = np.finfo(np.float64).tiny

# The uses of random numbers, each its own stream of the fitted seed (with the column and the
# step of the chain): the order of tied calibration rows and the random partial repair of the
# in-sample path, the calibration jitter, and at transform the level across an atom, the
# random partial repair and the query jitter.
_TIE_ORDER, _IN_SAMPLE_MIX, _FIT_JITTER, _ATOM_LEVEL, _MIX, _JITTER = range(6)


class _Barycenter:
    """Barycenter map of the cells of one stratum, for one column.

    Attributes
    ----------
    values : ndarray of shape (n,)
        Calibration values sorted by (cell, value); cell b holds ``starts[b]:starts[b + 1]``.
    cumulative : ndarray of shape (n + n_cells,)
        For cell b, ``cumulative[starts[b] + b + c]`` is the weight share of its c smallest
        values (0 for c = 0, 1 for c = n_b): the ECDF at every step.
    levels, quantiles : ndarray
        The merged grid: ``Q̄(u) = quantiles[searchsorted(levels, u, "left")]``.
    fair : ndarray of shape (n + n_cells,)
        ``Q̄(cumulative)``: the repaired value at every step of every cell.
    keys : ndarray of shape (n,), int64, or None
        With many cells, ``cell * width + 2 * rank + 1`` of each sorted value (``rank`` its
        dense rank among the distinct values ``grid``): increasing, so one ``searchsorted``
        locates every query inside its own cell, with no loop over cells.
    """

    def __init__(self, values, cells, weights, *, keep_order, center="mean"):
        n_cells = cells.n_cells
        self.keys = None
        # Few cells are searched cell by cell at transform; many through integer keys.
        if n_cells > FEW_CODES:
            order, _, rank, _, self.grid = _rank_by_cell(values, cells, n_cells)
            self.values = values[order]
        elif keep_order or weights is not None:
            order, _ = sort_by_code(
                values, cells.codes, n_cells, code_rows=cells.rows, bounds=cells.starts
            )
            self.values = values[order]
        else:  # fit alone, unweighted: no row order needed
            order = None
            self.values = sorted_segments(
                values, cells.codes, n_cells, code_rows=cells.rows, bounds=cells.starts
            )[0]
        starts = self.starts = cells.starts
        if n_cells > FEW_CODES:
            self.width = 2 * self.grid.shape[0] + 1
            self.keys = cells.sorted_cells.astype(np.int64) * self.width + 2 * rank + 1
            del rank
        if weights is None:
            grid = cells.grid
        else:
            running = np.cumsum(weights[order])
            offset = np.concatenate([[0.0], running])[starts[:-1]]
            totals = running[starts[1:] - 1] - offset
            grid = _MergedGrid(
                (running - offset[cells.sorted_cells]) / totals[cells.sorted_cells], totals, cells
            )
        self.cumulative = grid.cumulative
        self.slot = cells.slot if keep_order else None  # for the in-sample path only
        self.order = order

        # Q̄ on the merged grid: every step of a cell's quantile function is an event at its
        # level, raising Q̄ by p_b * (jump); cumulating the events in level order gives Q̄.
        # The jump from a cell's last value to the next cell's first is not a step: it gets
        # the increment 0 (its level, 1.0, is never below a query level anyway).
        event_step = np.diff(self.values)
        event_step *= np.repeat(grid.share, np.diff(starts))[1:]
        event_step[starts[1:-1] - 1] = 0.0
        self.levels = grid.levels
        first, last = self.values[starts[:-1]], self.values[starts[1:] - 1]
        self.quantiles = np.empty(self.levels.shape[0] + 1)
        self.quantiles[0] = grid.share @ first
        np.cumsum(event_step[grid.event_order], out=self.quantiles[1:])
        del event_step
        self.quantiles[1:] += self.quantiles[0]
        # Σ p_b can differ from 1 by an ulp: keep Q̄ inside the calibration range.
        np.clip(self.quantiles, first.min(), last.max(), out=self.quantiles)
        if center == "median":  # the cumulative sum above is O(n), the median O(n x n_cells)
            level = self.cumulative[cells.slot]
            self.quantiles = _median_quantiles(self.values, level, starts, self.levels)
        # Q̄ at every step of every cell (Q̄(cumulative)): transform of non-tied queries and
        # the in-sample path are then a gather, with no search in the merged grid.
        self.fair = np.empty(self.cumulative.shape[0])
        # sorted row i < n - 1 carries the event at its own level; the last row is at level 1
        self.fair[cells.slot[:-1]] = self.quantiles[grid.below]
        self.fair[cells.slot[-1]] = self.barycenter_quantile(1.0)
        self.fair[starts[:-1] + np.arange(n_cells)] = self.quantiles[0]  # Q̄(0)

    def compact(self):
        """Keep what :meth:`transform` reads: one step per distinct value of each cell, and the
        levels where Q̄ changes. Called after :meth:`in_sample` and :meth:`dispersion`.

        A query is located by the first value >= it and the first value > it in its cell;
        both are the first of a run of tied values (or the end of the cell), so the steps
        inside a run are never read, and dropping them leaves every output bit for bit the
        same. Likewise ``Q̄(u) = quantiles[#{levels < u}]`` is unchanged when a level whose
        crossing leaves Q̄ equal is dropped. A column of k distinct values then holds
        O(k x n_cells) numbers instead of O(n): integers, rounded or coded columns shrink to
        their distinct values; a continuous column keeps every training value.
        """
        n, n_cells = self.values.shape[0], self.starts.shape[0] - 1
        first = np.ones(n, dtype=bool)  # first of a run of equal values of a cell
        np.not_equal(self.values[1:], self.values[:-1], out=first[1:])
        if not first.all():  # else every value is the first of its run: nothing to drop
            counts = np.diff(self.starts)
            sorted_cells = np.repeat(np.arange(n_cells), counts)
            first[self.starts[:-1][counts > 0]] = True
            steps = np.zeros(n + n_cells, dtype=bool)
            steps[np.flatnonzero(first) + sorted_cells[first]] = True
            steps[self.starts[1:] + np.arange(n_cells)] = True  # the end of each cell: level 1
            self.values = self.values[first]
            self.starts = np.concatenate(
                [[0], np.cumsum(np.bincount(sorted_cells[first], minlength=n_cells))]
            )
            self.cumulative, self.fair = self.cumulative[steps], self.fair[steps]
            if self.keys is not None:
                self.keys = self.keys[first]
        changes = self.quantiles[1:] != self.quantiles[:-1]
        if not changes.all():
            self.levels = self.levels[changes]
            self.quantiles = np.concatenate([self.quantiles[:1], self.quantiles[1:][changes]])

    def barycenter_quantile(self, u):
        """Q̄(u) for levels ``u`` in [0, 1]."""
        return self.quantiles[np.searchsorted(self.levels, u, side="left")]

    def in_sample(self, draws, stream):
        """Repaired calibration values, rows in input order; the draws of ``stream`` (a
        :class:`RowRandom` of the calibration rows of the map) order rows inside tie blocks."""
        fair = self.fair[self.slot]
        rows = self.order
        tied = self.values[1:] == self.values[:-1]
        tied &= self.slot[1:] == self.slot[:-1] + 1  # same cell
        if tied.any():
            # Uniformly random order inside each tie block of a cell. The draws belong to
            # rows, not to sorted positions, so the result does not depend on how the sort
            # ordered the tied rows.
            block = np.cumsum(np.concatenate([[True], ~tied]))
            rows = rows[np.lexsort((draws.uniform(*stream)[rows], block))]
        out = np.empty_like(fair)
        out[rows] = fair
        return out

    def transform(self, values, cells, *, draws=None, stream=()):
        """Repaired values of queries ``values`` in cells ``cells`` (their :class:`_Cells`).

        A query equal to a calibration value of its cell takes a level drawn uniformly inside
        that value's step when ``draws`` (a :class:`RowRandom` of the queries) is given, and
        the top of the step otherwise.
        """
        query_cells = cells.sorted_cells  # the cell of each query sorted by (cell, value)
        if self.keys is None:
            order, bounds = sort_by_code(
                values, cells.codes, cells.n_cells, code_rows=cells.rows, bounds=cells.starts
            )
            slot, hit, upper = self._locate_per_cell(values[order], bounds)
        else:
            order, _, rank, on_grid, _ = _rank_by_cell(values, cells, cells.n_cells, self.grid)
            slot, hit, upper = self._locate_by_keys(query_cells, rank, on_grid)
        slot += query_cells  # position in ``cumulative`` and ``fair``
        out = np.empty(values.shape[0])
        if not hit.any():
            out[order] = self.fair[slot]
            return out
        upper += query_cells[hit]
        if draws is not None:
            lower = self.cumulative[slot[hit]]
            # each row's own draw, whatever its position in the sorted order
            level = draws[order[hit]].uniform(*stream)
            fair = self.fair[slot]
            fair[hit] = self.barycenter_quantile(lower + level * (self.cumulative[upper] - lower))
        else:
            slot[hit] = upper
            fair = self.fair[slot]
        out[order] = fair
        return out

    def _locate_per_cell(self, queries, bounds):
        """For queries sorted by (cell, value), ``bounds`` delimiting the cells: the position in
        ``values`` of the first value >= each query within its cell, whether the query equals
        a value of its cell, and for those hits the position of the first value > it."""
        below = np.empty(queries.shape[0], dtype=np.intp)
        above = np.empty(queries.shape[0], dtype=np.intp)
        for cell in range(bounds.shape[0] - 1):
            start, stop = self.starts[cell], self.starts[cell + 1]
            segment = slice(bounds[cell], bounds[cell + 1])
            cell_values, cell_queries = self.values[start:stop], queries[segment]
            below[segment] = np.searchsorted(cell_values, cell_queries, side="left")
            above[segment] = np.searchsorted(cell_values, cell_queries, side="right")
            below[segment] += start
            above[segment] += start
        # a query equals a value of its cell exactly when values lie between the two sides
        hit = above > below
        return below, hit, above[hit]

    def _locate_by_keys(self, query_cells, rank, on_grid):
        """The same as :meth:`_locate_per_cell` in one search over the integer keys, from each
        query's rank in ``grid`` and whether it is on the grid."""
        keys = query_cells.astype(np.int64) * self.width + 2 * rank + on_grid
        below = np.searchsorted(self.keys, keys, side="left")
        hit = on_grid
        hit[hit] = self.keys[np.minimum(below[hit], self.keys.shape[0] - 1)] == keys[hit]
        return below, hit, np.searchsorted(self.keys, keys[hit], side="right")

    def dispersion(self, weights):
        """U_W2 = Σ_b p_b W2²(ν_b, ν̄) = Σ_b p_b ∫Q_b² − ∫Q̄², in O(n).

        Computed on values centred and divided by their largest deviation, so that squares
        of outputs of any finite magnitude neither overflow nor lose the difference; the
        result is scaled back, and is inf (with a warning) only when it exceeds the float
        range itself.
        """
        sorted_weights = None if weights is None else weights[self.order]
        # the mean of values halved cannot overflow; doubled back it is the mean
        half = self.values / 2.0
        center = 2.0 * _mean(half, sorted_weights)
        deviation = half - center / 2.0
        scale = max(np.max(np.abs(deviation)), _TINY)
        mean_square = _mean((deviation / scale) ** 2, sorted_weights)
        widths = np.diff(np.concatenate([[0.0], self.levels, [1.0]]))
        # elementwise products and numpy sums, not BLAS (threaded, slow on a loaded machine)
        barycenter_square = np.sum(widths * ((self.quantiles / 2.0 - center / 2.0) / scale) ** 2)
        scaled = max(mean_square - barycenter_square, 0.0)
        with np.errstate(over="ignore"):
            dispersion = scaled * (2.0 * scale) * (2.0 * scale)
        if np.isinf(dispersion):
            warnings.warn(
                "The barycentric dispersion of outputs of this magnitude exceeds the float64 "
                "range; w2_dispersion_ is inf. Rescale the outputs (e.g. divide by 1e100) to "
                "get a finite value; the repair itself is not affected.",
                RuntimeWarning,
                stacklevel=2,
            )
        return dispersion


class _Cells:
    """The cells of a set of rows, shared by every column: each row's cell, each cell's rows
    (few cells, when several columns share them: ``share_rows``) and segment in rows sorted
    by (cell, value). For calibration rows
    (``calibration=True``), also the step of each sorted row in the ECDF table, and for
    unweighted ones (``merged_grid=True``) their :class:`_MergedGrid`, which depends only on
    the cells' sizes (the values differ between columns, the levels (k+1)/n_b do not)."""

    def __init__(self, codes, n_cells, *, share_rows=True, calibration=False, merged_grid=False):
        self.codes, self.n_cells = codes, n_cells
        share_rows = share_rows and n_cells <= FEW_CODES
        self.rows = rows_by_code(codes, n_cells) if share_rows else None
        self.starts = code_bounds(codes, n_cells)
        counts = np.diff(self.starts)
        self.sorted_cells = np.repeat(small_codes(np.arange(n_cells), n_cells), counts)
        if not calibration:
            return
        n = codes.shape[0]
        self.slot = np.arange(1, n + 1) + self.sorted_cells
        if merged_grid:
            # Levels (k+1)/n_b by division: equal rationals of different cells give equal
            # doubles, which the in-sample KS bound needs.
            if n_cells <= FEW_CODES:
                level = np.concatenate([np.arange(1, count + 1) / count for count in counts])
            else:
                level = (np.arange(1, n + 1) - self.starts[self.sorted_cells]) / counts[
                    self.sorted_cells
                ]
            self.grid = _MergedGrid(level, counts.astype(np.float64), self)


class _MergedGrid:
    """The levels of every step of every cell merged into one sorted grid.

    ``level`` holds the ECDF of each calibration row sorted by (cell, value) (its cumulative
    weight share in its cell; ``cumulative[slot]``) and ``totals`` each cell's weight. Every
    step of a cell's quantile function is an event at its level; ``levels`` are the events in
    level order (``event_order``, a stable merge of the cells' sorted runs), and ``below[i]``
    is ``#{levels < level[i]}``, where the run of events at that level starts in the merged
    order (read from the merge permutation instead of a search).
    """

    def __init__(self, level, totals, cells):
        n = level.shape[0]
        self.cumulative = np.zeros(n + cells.n_cells)
        self.cumulative[cells.slot] = level
        self.share = totals / totals.sum()
        event_level = level[:-1]
        self.event_order = np.argsort(event_level, kind="stable")  # merges n_cells sorted runs
        self.levels = event_level[self.event_order]
        n_events = self.levels.shape[0]
        run_start = np.zeros(n_events, dtype=np.intp)
        run_start[1:] = np.where(self.levels[1:] != self.levels[:-1], np.arange(1, n_events), 0)
        np.maximum.accumulate(run_start, out=run_start)
        merged_position = np.empty(n_events, dtype=np.intp)
        merged_position[self.event_order] = np.arange(n_events)
        self.below = run_start[merged_position]


class _Step:
    """One step of the conditional chain: the cells of attribute j within the strata of the
    attributes after it; the joint shortcut is one step with one stratum."""

    def __init__(self, group_attribute_codes, attribute, epsilon):
        self.epsilon = epsilon
        n_groups = group_attribute_codes.shape[0]
        if attribute is None:
            self.stratum_of_group = np.zeros(n_groups, dtype=np.intp)
            self.cell_of_group = small_codes(np.arange(n_groups), n_groups)
            self.n_cells = [n_groups]
            return
        later = group_attribute_codes[:, attribute + 1 :]
        if later.shape[1]:
            _, stratum = np.unique(later, axis=0, return_inverse=True)
            stratum = stratum.reshape(-1)
        else:
            stratum = np.zeros(n_groups, dtype=np.intp)
        n_values = group_attribute_codes[:, attribute].max() + 1
        pairs, pair_of_group = np.unique(
            stratum * n_values + group_attribute_codes[:, attribute], return_inverse=True
        )
        pair_stratum = pairs // n_values
        first_pair = np.searchsorted(pair_stratum, pair_stratum, side="left")
        self.stratum_of_group = stratum
        cell_of_group = (np.arange(pairs.shape[0]) - first_pair)[pair_of_group.reshape(-1)]
        self.cell_of_group = small_codes(cell_of_group, cell_of_group.max() + 1)
        self.n_cells = np.bincount(pair_stratum).tolist()


class BarycenterMaps(_BaseRepair):
    """The barycenter maps of a repair, per column and group, without public parameters.

    :class:`~skfair.postprocessing.BarycenterRepair` (scores) and
    :class:`~skfair.preprocessing.FeatureRepair` (input columns) are this one
    implementation with their own parameters: a subclass defines ``epsilon``, ``mode``,
    ``ties``, ``jitter`` and ``_center``.
    """

    def _table_fit_refusal(self):
        # The maps depend on the calibration rows through the groups' weighted ECDFs, which
        # the frequency table of distinct (group, output) rows holds exactly.
        if self.ties == "jitter":
            return 'ties="jitter" draws noise for every calibration row; use ties="randomized".'
        return None

    def _fit_identity(self, X, y):
        check_shares(self.epsilon, None)
        self.w2_dispersion_ = np.zeros(X.shape[1])
        self.sequential_ = False

    def _fit_maps(self, X, y, groups, sample_weight, draws, *, in_sample):
        epsilons = check_shares(self.epsilon, groups.n_attributes)
        positive = None if sample_weight is None else sample_weight > 0
        _warn_small_groups(groups)
        self.sequential_ = groups.n_attributes > 1 and any(e > 0 for e in epsilons)
        if self.sequential_:
            self._steps = [
                _Step(groups.group_attribute_codes, j, e) for j, e in enumerate(epsilons)
            ]
        else:
            self._steps = [_Step(groups.group_attribute_codes, None, epsilons[-1])]

        if self.ties == "none":
            _warn_ties(X, groups.codes)
        # The strata and cells of every step: the same for every column.
        unweighted = sample_weight is None
        plans = [_fit_plan(step, groups.codes, positive, unweighted) for step in self._steps]
        joint = None
        if self.sequential_:
            fitted = slice(None) if positive is None else positive
            joint = _Cells(
                groups.codes[fitted], self.n_groups_, calibration=True, merged_grid=unweighted
            )
        self._maps = []
        self.w2_dispersion_ = np.empty(X.shape[1])
        out = np.empty_like(X) if in_sample else None
        for column in range(X.shape[1]):
            maps, repaired, dispersion = self._fit_column(
                X[:, column], plans, joint, sample_weight, positive, column, draws, in_sample
            )
            self._maps.append(maps)
            self.w2_dispersion_[column] = dispersion
            if in_sample:
                out[:, column] = repaired
        return out

    def _apply_maps(self, X, codes, draws):
        plans = [_transform_plan(step, codes, X.shape[1] > 1) for step in self._steps]
        out = np.empty_like(X)
        for column in range(X.shape[1]):
            out[:, column] = self._transform_column(X[:, column], plans, column, draws)
        return out

    def _fit_column(self, values, plans, joint, weights, positive, column, draws, in_sample):
        """Fit one column through the steps; return the maps, the in-sample output, U_W2.

        ``plans`` hold the strata and cells of each step (:func:`_fit_plan`), ``joint`` the
        joint cells of a sequential repair, ``draws`` the random numbers of the calibration
        rows.
        """
        if self.sequential_:
            # U_W2 of the joint cells on the original column: the price of full fairness.
            fitted = slice(None) if positive is None else positive
            joint_weights = _subset(weights, fitted)
            barycenter = _Barycenter(values[fitted], joint, joint_weights, keep_order=False)
            dispersion = barycenter.dispersion(joint_weights)
        column_maps = []
        for position, (step, plan) in enumerate(zip(self._steps, plans, strict=True)):
            keep = in_sample or position < len(self._steps) - 1
            repaired = np.empty_like(values) if keep else None
            step_maps = []
            for stratum in plan:
                stratum_values = values[stratum.fitted]
                if self.ties == "jitter":
                    noise = draws[stratum.fitted].uniform(_FIT_JITTER, column, position)
                    stratum_values = stratum_values + self.jitter * (2.0 * noise - 1.0)
                stratum_weights = _subset(weights, stratum.fitted)
                barycenter = _Barycenter(
                    stratum_values,
                    stratum.cells,
                    stratum_weights,
                    keep_order=keep,
                    center=self._center,
                )
                if not self.sequential_:
                    dispersion = barycenter.dispersion(stratum_weights)
                if keep:
                    repaired[stratum.fitted] = barycenter.in_sample(
                        draws[stratum.fitted], (_TIE_ORDER, column, position)
                    )
                del barycenter.slot, barycenter.order
                barycenter.compact()
                step_maps.append(barycenter)
                if keep and stratum.other is not None:
                    # Zero-weight rows are not in the map; they follow the transform path.
                    repaired[stratum.other] = self._apply(
                        barycenter,
                        values[stratum.other],
                        stratum.other_cells,
                        draws[stratum.other],
                        (column, position),
                    )
            column_maps.append(step_maps)
            if keep:
                # The next step is fitted on these partially repaired outputs.
                values = _mix(
                    values,
                    repaired,
                    step.epsilon,
                    self.mode,
                    draws,
                    (_IN_SAMPLE_MIX, column, position),
                )
        return column_maps, (values if in_sample else None), dispersion

    def _apply(self, barycenter, values, cells, draws, key):
        """The map of one step applied to queries in ``cells`` (their :class:`_Cells`);
        ``key`` is ``(column, step)``."""
        if self.ties == "jitter":
            values = values + self.jitter * (2.0 * draws.uniform(_JITTER, *key) - 1.0)
        randomized = self.ties == "randomized"
        return barycenter.transform(
            values, cells, draws=draws if randomized else None, stream=(_ATOM_LEVEL, *key)
        )

    def _transform_column(self, values, plans, column, draws):
        for position, (step, plan) in enumerate(zip(self._steps, plans, strict=True)):
            step_maps = self._maps[column][position]
            repaired = None
            for stratum, rows, cells in plan:
                fair = self._apply(
                    step_maps[stratum], values[rows], cells, draws[rows], (column, position)
                )
                if isinstance(rows, slice):
                    repaired = fair
                    break
                if repaired is None:
                    repaired = np.empty_like(values)
                repaired[rows] = fair
            values = _mix(
                values, repaired, step.epsilon, self.mode, draws, (_MIX, column, position)
            )
        return values


# --------------------------------------------------------------------------------------------
# small pure helpers


def _strata(step, codes):
    """``(stratum, rows)`` for each stratum of ``step`` present in ``codes``."""
    n_strata = len(step.n_cells)
    if n_strata == 1:
        yield 0, slice(None)
        return
    for s, rows in enumerate(rows_by_code(step.stratum_of_group[codes], n_strata)):
        if rows.size:
            yield s, rows


@dataclass(frozen=True)
class _FitStratum:
    """The calibration rows of one stratum of a step: those that fit its map (positive
    weight) with their :class:`_Cells`, and the zero-weight ones (None when there are none),
    which follow the transform path."""

    fitted: object
    cells: _Cells
    other: object = None
    other_cells: _Cells = None


def _fit_plan(step, codes, positive, unweighted):
    """The :class:`_FitStratum` of every stratum of ``step`` present in ``codes``."""
    plan = []
    for stratum, rows in _strata(step, codes):
        fitted = _positive_rows(rows, positive)
        n_cells = step.n_cells[stratum]
        cells = _Cells(
            step.cell_of_group[codes[fitted]], n_cells, calibration=True, merged_grid=unweighted
        )
        other = other_cells = None
        if positive is not None and not positive[rows].all():
            other = _positive_rows(rows, ~positive)
            other_cells = _Cells(step.cell_of_group[codes[other]], n_cells)
        plan.append(_FitStratum(fitted, cells, other, other_cells))
    return plan


def _transform_plan(step, codes, share_rows):
    """``(stratum, rows, their _Cells)`` of every stratum of ``step`` present in ``codes``."""
    return [
        (stratum, rows, _Cells(step.cell_of_group[codes[rows]], n_cells, share_rows=share_rows))
        for stratum, rows in _strata(step, codes)
        for n_cells in (step.n_cells[stratum],)
    ]


def _positive_rows(rows, positive):
    """The rows of ``rows`` (a slice of all rows or an index array) where ``positive``."""
    if positive is None:
        return rows
    if isinstance(rows, slice):
        return np.flatnonzero(positive)
    return rows[positive[rows]]


def _subset(weights, rows):
    return None if weights is None else weights[rows]


def _mix(original, fair, epsilon, mode, draws, stream):
    """Partial repair: exact at both ends, never outside [y, fair]. In random mode each row
    is repaired when its draw of ``stream`` is below ``1 - epsilon``."""
    if epsilon == 0:
        return fair
    if epsilon == 1:
        return original
    if mode == "random":
        return np.where(draws.uniform(*stream) < 1 - epsilon, fair, original)
    out = (1 - epsilon) * fair + epsilon * original
    # (1-ε)·fair + ε·y can overshoot [y, fair] by an ulp; a probability must stay <= 1.
    return np.clip(out, np.minimum(original, fair), np.maximum(original, fair), out=out)


def _mean(values, weights):
    """``np.average(values, weights=weights)``; without weights, the plain mean (the same
    number, without np.average's checks, which cost more than a small column's mean)."""
    return values.mean() if weights is None else np.average(values, weights=weights)


def _median_quantiles(values, level, starts, levels):
    """The median of the cells' quantile functions on the merged grid ``levels`` (and at 1).

    ``values`` holds each cell's sorted values (cell b at ``starts[b]:starts[b + 1]``) and
    ``level`` their cumulative weight shares. Between two merged levels every cell's quantile
    function is constant, so the median at each level is the median over the cells of
    ``Q_b(level)``; O(n_levels x n_cells), in blocks of levels to bound the memory.
    """
    n_cells = starts.shape[0] - 1
    grid = np.append(levels, 1.0)
    out = np.empty(grid.shape[0])
    block = max(1, (1 << 22) // n_cells)
    for start in range(0, grid.shape[0], block):
        part = grid[start : start + block]
        at_level = np.empty((n_cells, part.shape[0]))
        for cell in range(n_cells):
            low, high = starts[cell], starts[cell + 1]
            index = np.searchsorted(level[low:high], part, side="left")
            at_level[cell] = values[low + np.minimum(index, high - low - 1)]
        out[start : start + block] = _median_of_rows(at_level)
    return out


def _median_of_rows(rows):
    """``np.median(rows, axis=0)``; for up to four rows by comparisons of the rows (the
    same middle values, averaged the same way), which costs a fraction of np.median's
    partition over the few cells of a repair."""
    if rows.shape[0] == 2:
        return (rows[0] + rows[1]) / 2
    if rows.shape[0] == 3:
        a, b, c = rows
        return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
    if rows.shape[0] == 4:
        a, b, c, d = rows
        second = np.maximum(np.minimum(a, b), np.minimum(c, d))
        third = np.minimum(np.maximum(a, b), np.maximum(c, d))
        return (second + third) / 2
    return np.median(rows, axis=0)


def _rank_by_cell(values, cells, n_cells, grid=None):
    """Order of the rows by (cell, value) (``cells``: their :class:`_Cells`), cell bounds, and
    each row's rank in ``grid`` (the distinct values, computed when None) with whether it is
    on the grid. The ranks are found on the values sorted once globally, where searching is
    cheap, and then reordered."""
    value_order = np.argsort(values)
    sorted_values = values[value_order]
    if grid is None:
        new_value = np.empty(values.shape[0], dtype=bool)
        new_value[0] = True
        np.not_equal(sorted_values[1:], sorted_values[:-1], out=new_value[1:])
        grid = sorted_values[new_value]
        rank, on_grid = np.cumsum(new_value) - 1, None
    else:
        rank = np.searchsorted(grid, sorted_values, side="left")
        on_grid = rank < grid.shape[0]
        on_grid[on_grid] = grid[rank[on_grid]] == sorted_values[on_grid]
    by_cell = code_order(cells.codes[value_order], n_cells)
    on_grid = None if on_grid is None else on_grid[by_cell]
    return value_order[by_cell], cells.starts, rank[by_cell], on_grid, grid


def check_shares(shares, n_attributes, name="epsilon"):
    """One share in [0, 1] per attribute (a number, not a bool), for the parameter ``name``:
    a single number serves every attribute."""
    values = np.atleast_1d(np.asarray(shares, dtype=object))
    valid = values.ndim == 1 and values.shape[0] > 0
    for value in values.ravel() if valid else ():
        numeric = isinstance(value, (Real, np.number)) and not isinstance(value, (bool, np.bool_))
        valid = valid and numeric and 0 <= value <= 1
    if not valid:
        raise ValueError(
            f"{name} must be a number in [0, 1] or a sequence of them (one per sensitive "
            f"attribute), got {shares!r}."
        )
    values = values.astype(np.float64)
    if n_attributes is None:
        return values.tolist()
    if np.ndim(shares) == 0:
        return [float(values[0])] * n_attributes
    if values.shape[0] != n_attributes:
        raise ValueError(
            f"{name} has {values.shape[0]} value(s) but sensitive_features has {n_attributes} "
            "attribute(s); give one value per attribute, in column order, or a single number."
        )
    return values.tolist()


def _warn_small_groups(groups):
    """Warn for groups with fewer than ``_SMALL_CELL`` calibration rows."""
    small = np.flatnonzero(groups.counts() < _SMALL_CELL)
    if small.size:
        labels = [groups.labels[g] for g in small[:10]]
        warnings.warn(
            f"Groups {labels} have fewer than {_SMALL_CELL} calibration rows: maps estimated "
            "from fewer than 10 rows are noisy.",
            UserWarning,
            stacklevel=5,
        )


def _warn_ties(X, codes):
    for column in range(X.shape[1]):
        order = np.lexsort((X[:, column], codes))
        values, sorted_codes = X[order, column], codes[order]
        if ((values[1:] == values[:-1]) & (sorted_codes[1:] == sorted_codes[:-1])).any():
            warnings.warn(
                f"Column {column} has ties within a group: with ties='none' tied rows share one "
                "output and the repair is not exact; use ties='randomized'.",
                UserWarning,
                stacklevel=5,
            )
            return
