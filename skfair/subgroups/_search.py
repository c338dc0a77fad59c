"""The level-by-level search of subgroups on count tables ("gap" and "sliceline").

A subgroup is a conjunction of conditions ``column = value`` on distinct columns: a cell of
the count table of its columns. Level ``l`` counts the combinations of ``l`` columns; a cell
of level ``l`` is evaluated when each of its ``l`` parents (the cell without one of its
conditions) is *alive*:

- it holds at least ``min_support`` rows of the metric's denominator (a child holds no more
  rows than its parents, so the cells of a parent below it are below it too);
- it has more rows than each of its own parents: a cell with the rows of a parent is the
  parent under a longer description, and so are all its children (a child of such a cell
  has the rows of the child of the parent that lacks the same condition), so neither it nor
  its children are evaluated again;
- for the SliceLine score, errors in the cell, and an upper bound of its children's scores
  above the k-th best score so far (Sagadeeva & Boehm 2021, section 3.2): a child has no
  more rows, no more errors and no more error per row than its parents, and the score of a
  slice of size ``s`` and error sum ``e <= min(s, e_max)`` is largest at one of ``s = min_support``,
  ``s = e_max`` or ``s = size bound``.

A combination of columns none of whose cells can be evaluated is not counted. Subgroups with
the same rows under different descriptions (``A = a`` and ``B = b`` when one implies the
other) have the same counts; the counts are split by a hash of each row's values, so that
cells with the same counts hold the same rows almost surely, and ties left are settled by a
fingerprint of the rows (:func:`skfair._stats._combinations.row_fingerprints`). Each set of
rows is kept once, under its shortest description (the first one counted among those).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, fields

import numpy as np

from skfair._stats._counts import FN, FP, RATE_CELLS, TN, TP
from skfair._utils._random import mix64
from skfair.metrics._intervals import (
    difference_interval,
    effective_counts,
    proportion_interval,
)
from skfair.subgroups._testing import (
    adjusted_pvalues,
    two_proportion_pvalues,
)

# The rates a subgroup is compared on: name -> (numerator cells, denominator cells) of the
# confusion table.
METRIC_CELLS = {"error_rate": ((FP, FN), (TN, FP, FN, TP)), **RATE_CELLS}
# Rows are split into this many classes by a hash of their values (see the module's doc).
HASH_BUCKETS = 4
# Largest number of candidate cells listed to decide whether a combination is counted.
_MAX_CANDIDATES = 1 << 21
_ALTERNATIVE = {"higher": "greater", "lower": "less", "both": "two-sided"}


@dataclass
class Search:
    """What is searched: the objective and its settings."""

    metric: str
    objective: str
    direction: str
    max_level: int
    min_support: int
    k: int
    alpha: float
    correction: str
    sliceline_alpha: float
    weighted: bool
    # Smallest weighted size of a subgroup of min_support rows (SliceLine's bound).
    smallest_size: float = 0.0

    @property
    def weight_sum(self):
        """Position of the (weighted) sums in a table's counts."""
        return 1 if self.weighted else 0


@dataclass
class _Node:
    """The count table of one combination of columns and what is known of its cells."""

    table: object
    num: np.ndarray
    den: np.ndarray
    den_rows: np.ndarray
    rows: np.ndarray
    den_squares: np.ndarray | None
    alive: np.ndarray = field(default=None)
    evaluated: np.ndarray = field(default=None)
    score: np.ndarray = field(default=None)

    hash: np.ndarray = field(default=None)

    def hashes(self, cells):
        """A hash of the counts of the ``cells`` (indices): equal counts, equal hashes."""
        if self.hash is None:
            counts = self.table.counts
            self.hash = _row_hashes(counts.reshape(counts.shape[0], math.prod(counts.shape[1:])))
        return self.hash[cells]


@dataclass(frozen=True)
class Found:
    """The subgroups kept, best first, and what the search did."""

    records: list
    n_evaluated: int
    n_tests: int
    overall_value: float
    n_rows: int


def search_tables(counter, dims, search):
    """Run the search; ``counter(combinations)`` returns the count tables (cells x 4 * HASH
    classes), ``counter.fingerprints(combinations)`` the fingerprint sums of the cells."""
    (total,) = counter([()])
    root = _node(total, search)
    _check_root(root, search)
    n_rows = int(root.rows[0])
    nodes = {(): root}
    root.alive = np.ones(1, dtype=bool)
    root.evaluated = np.zeros(1, dtype=bool)
    root.score = np.full(1, -np.inf)
    threshold = -np.inf
    for level in range(1, search.max_level + 1):
        combinations = [
            c
            for c in itertools.combinations(range(len(dims)), level)
            if _may_hold_candidates(c, nodes, dims, search, threshold, root, n_rows)
        ]
        if not combinations:
            break
        for combination, table in zip(combinations, counter(combinations), strict=True):
            node = _node(table, search)
            _evaluate(node, combination, nodes, dims, search, threshold, root)
            nodes[combination] = node
        if search.objective == "sliceline":
            threshold = _kth_distinct_score(nodes, search.k)
    cells = _Cells.collect(nodes)
    if search.objective == "sliceline":
        return _sliceline_results(cells, nodes, counter, dims, root, search)
    return _gap_results(cells, nodes, counter, root, search)


# --------------------------------------------------------------------------------------------
# tables to the quantities of the objective


def _node(table, search):
    numerator, denominator = METRIC_CELLS[search.metric]
    counts = table.counts.reshape(table.n_cells, 4, HASH_BUCKETS, table.counts.shape[-1])
    per_cell = counts.sum(axis=2)  # (cells, confusion cell, sums)
    w = search.weight_sum
    num = per_cell[:, list(numerator), w].sum(axis=1)
    den = per_cell[:, list(denominator), w].sum(axis=1)
    if search.objective == "sliceline" and search.direction == "lower":
        num = den - num
    return _Node(
        table=table,
        num=num,
        den=den,
        den_rows=per_cell[:, list(denominator), 0].sum(axis=1),
        rows=per_cell[:, :, 0].sum(axis=1),
        den_squares=per_cell[:, list(denominator), 2].sum(axis=1) if search.weighted else None,
    )


def _check_root(root, search):
    if root.den_rows[0] == 0:
        raise ValueError(
            f"The {search.metric.replace('_', ' ')} is undefined: no row is in its "
            "denominator (e.g. no negative for the false positive rate)."
        )
    if search.objective == "sliceline":
        rate = root.num[0] / root.den[0]
        if rate == 0:
            what = "errors" if search.direction == "higher" else "correct rows"
            raise ValueError(
                f"The SliceLine score is undefined: there are no {what} for the "
                f"{search.metric.replace('_', ' ')} (its average is {rate:g})."
            )


def _sliceline_score(num, den, root, search):
    """``alpha (e / s / e_mean - 1) - (1 - alpha) (n / s - 1)`` (Sagadeeva & Boehm 2021, Eq. 1)."""
    a = search.sliceline_alpha
    mean = root.num[0] / root.den[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        score = a * (num / den / mean - 1) - (1 - a) * (root.den[0] / den - 1)
    return np.where(den > 0, score, -np.inf)


def _sliceline_bound(size, errors, root, search):
    """Largest SliceLine score of a slice of size at most ``size`` and error sum at most
    ``errors`` (each row's error at most its weight), at least the smallest size."""
    a = search.sliceline_alpha
    mean = root.num[0] / root.den[0]
    n = root.den[0]
    low = search.smallest_size

    def score(s):
        return a * (np.minimum(s, errors) / (s * mean) - 1) - (1 - a) * (n / s - 1)

    with np.errstate(divide="ignore", invalid="ignore"):
        middle = np.minimum(np.maximum(errors, low), np.maximum(size, low))
        bound = np.fmax(np.fmax(score(low), score(middle)), score(size))
    return np.where(size >= low, bound, -np.inf)


# --------------------------------------------------------------------------------------------
# level by level


def _parents(keys, combination, nodes, dims):
    """For each parent (the combination without its j-th column): its node, the index of
    each cell's parent cell in it, and whether that parent cell is present.

    A cell's number is ``sum_i v_i s_i`` with ``s_i`` the product of the numbers of values
    of the columns after ``i``; its parent without column ``j`` has the number ``(key //
    (s_j d_j)) s_j + key % s_j``."""
    sizes = [dims[c] for c in combination]
    parents = []
    for j in range(len(combination)):
        node = nodes[combination[:j] + combination[j + 1 :]]
        stride = math.prod(sizes[j + 1 :])
        parent_keys = (keys // (stride * sizes[j])) * stride + keys % stride
        if not node.table.n_cells:
            parents.append(
                (node, np.zeros(keys.shape[0], dtype=np.intp), np.zeros_like(keys, bool))
            )
            continue
        index = np.minimum(np.searchsorted(node.table.keys, parent_keys), node.table.n_cells - 1)
        parents.append((node, index, node.table.keys[index] == parent_keys))
    return parents


def _may_hold_candidates(combination, nodes, dims, search, threshold, root, n_rows):
    """Whether some cell of ``combination`` can be evaluated: every parent alive (and, for
    SliceLine, a score bound above the threshold). A combination that cannot is not
    counted; the cells are listed only when that is cheaper than counting the rows."""
    parents = [combination[:j] + combination[j + 1 :] for j in range(len(combination))]
    if any(p not in nodes or not nodes[p].alive.any() for p in parents):
        return False
    if len(combination) == 1 or search.objective != "sliceline":
        return True
    first = nodes[combination[:-1]]
    alive_keys = first.table.keys[first.alive]
    last = dims[combination[-1]]
    n_candidates = alive_keys.shape[0] * last
    if n_candidates > min(_MAX_CANDIDATES, n_rows // 4):
        return True
    keys = (alive_keys[:, None] * last + np.arange(last)).reshape(-1)
    keep = np.ones(n_candidates, dtype=bool)
    size = np.full(n_candidates, np.inf)
    errors = np.full(n_candidates, np.inf)
    for node, index, found in _parents(keys, combination, nodes, dims)[:-1]:
        keep &= found & node.alive[index]
        size = np.minimum(size, np.where(found, node.den[index], 0))
        errors = np.minimum(errors, np.where(found, node.num[index], 0))
    index = np.repeat(np.flatnonzero(first.alive), last)
    size = np.minimum(size, first.den[index])
    errors = np.minimum(errors, first.num[index])
    keep &= _sliceline_bound(size, errors, root, search) > max(threshold, 0.0)
    return bool(keep.any())


def _evaluate(node, combination, nodes, dims, search, threshold, root):
    """Mark the cells of ``node`` evaluated and alive, and score the evaluated ones."""
    n = node.table.n_cells
    candidate = np.ones(n, dtype=bool)
    repeats_parent = np.zeros(n, dtype=bool)
    size = np.full(n, np.inf)
    errors = np.full(n, np.inf)
    for parent, index, _ in _parents(node.table.keys, combination, nodes, dims):
        candidate &= parent.alive[index]
        repeats_parent |= node.rows == parent.rows[index]
        size = np.minimum(size, parent.den[index])
        errors = np.minimum(errors, parent.num[index])
    evaluated = candidate & ~repeats_parent & (node.den_rows >= search.min_support)
    if search.objective == "sliceline":
        evaluated &= _sliceline_bound(size, errors, root, search) > max(threshold, 0.0)
        node.score = np.where(
            evaluated, _sliceline_score(node.num, node.den, root, search), -np.inf
        )
        alive = (
            evaluated
            & (node.num > 0)
            & (_sliceline_bound(node.den, node.num, root, search) > max(threshold, 0.0))
        )
    else:
        node.score = np.where(evaluated, _gap_score(node, root, search), -np.inf)
        alive = evaluated
    node.evaluated, node.alive = evaluated, alive


def _gap_score(node, root, search):
    """The lower end of the one-sided (two-sided for "both") ``1 - alpha`` confidence bound
    of the gap in the direction searched: a large gap measured on few rows does not outrank
    a slightly smaller one measured on many."""
    if search.direction == "both":
        _, low, high = gap_interval(node.num, node.den, node.den_squares, root, 1 - search.alpha)
        return np.maximum(low, -high)
    _, low, high = gap_interval(node.num, node.den, node.den_squares, root, 1 - 2 * search.alpha)
    return low if search.direction == "higher" else -high


def gap_interval(num, den, den_squares, root, ci):
    """The gap of the rates (subgroup minus rest) and the bounds of its ``ci`` confidence
    interval: Newcombe's hybrid score interval (Wilson's limits of each side, combined by
    MOVER), each side's Kish effective size with weights. Unlike Wald's, it does not shrink to
    a point when a side's rate is 0 or 1, so a subgroup whose 40 rated rows are all errors
    does not outrank one with 90 % errors on 400."""
    value, rest, gap = _rates(num, den, root)
    (x1, n1), (x2, n2) = _binomial_sides(num, den, den_squares, root)
    low, high = difference_interval(
        (value, *proportion_interval(x1, n1, ci, "wilson")),
        (rest, *proportion_interval(x2, n2, ci, "wilson")),
    )
    return gap, low, high


def _binomial_sides(num, den, den_squares, root):
    """``(successes, trials)`` of the subgroups' rates and of the rest's: the counts, or with
    weights each side's Kish effective size and its rate times it."""
    rest_num, rest_den = root.num[0] - num, root.den[0] - den
    if den_squares is None:
        return (num, den), (rest_num, rest_den)
    rest_squares = root.den_squares[0] - den_squares
    return (
        effective_counts(num, den, den_squares),
        effective_counts(rest_num, rest_den, rest_squares),
    )


def _rates(num, den, root):
    total_num, total_den = root.num[0], root.den[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = num / den
        rest = (total_num - num) / (total_den - den)
    return value, rest, value - rest


def _kth_distinct_score(nodes, k):
    """The k-th best score of the cells evaluated so far with a positive score, cells with
    equal counts counted once (so that it is never above the k-th best distinct subgroup)."""
    scores, hashes = [], []
    for node in nodes.values():
        good = np.flatnonzero(node.evaluated & (node.score > 0))
        scores.append(node.score[good])
        hashes.append(node.hashes(good))
    scores = np.concatenate(scores)
    if scores.shape[0] < k:
        return -np.inf
    hashes = np.concatenate(hashes)
    order = np.argsort(-scores, kind="stable")
    seen = set()
    for i in order:
        seen.add(int(hashes[i]))
        if len(seen) == k:
            return float(scores[i])
    return -np.inf


# --------------------------------------------------------------------------------------------
# the evaluated cells, deduplicated, tested and ranked


@dataclass
class _Cells:
    """Every evaluated cell, in the order of evaluation (level, then combination)."""

    combinations: list
    combination_id: np.ndarray
    key: np.ndarray
    level: np.ndarray
    num: np.ndarray
    den: np.ndarray
    den_rows: np.ndarray
    rows: np.ndarray
    den_squares: np.ndarray | None
    score: np.ndarray
    hash: np.ndarray

    @classmethod
    def collect(cls, nodes):
        parts = {name: [] for name in cls.__dataclass_fields__ if name != "combinations"}
        for position, (combination, node) in enumerate(nodes.items()):
            chosen = np.flatnonzero(node.evaluated)
            parts["combination_id"].append(np.full(chosen.shape[0], position))
            parts["key"].append(node.table.keys[chosen])
            parts["level"].append(np.full(chosen.shape[0], len(combination)))
            for name in ("num", "den", "den_rows", "rows", "score"):
                parts[name].append(getattr(node, name)[chosen])
            parts["den_squares"].append(
                None if node.den_squares is None else node.den_squares[chosen]
            )
            parts["hash"].append(node.hashes(chosen))
        fields = {"combinations": list(nodes)}
        squares = parts.pop("den_squares")
        fields["den_squares"] = None if squares[0] is None else np.concatenate(squares)
        fields.update({name: np.concatenate(values) for name, values in parts.items()})
        return cls(**fields)

    @property
    def size(self):
        return self.key.shape[0]

    def combination(self, i):
        return self.combinations[self.combination_id[i]]


def _distinct(cells, chosen, counter):
    """The cells of ``chosen`` (indices, in order of preference) whose rows no earlier one of
    them holds."""
    chosen = np.asarray(chosen, dtype=np.intp)
    if chosen.shape[0] < 2:
        return chosen
    hashes = cells.hash[chosen]
    _, inverse, counts = np.unique(hashes, return_inverse=True, return_counts=True)
    tied = np.flatnonzero(counts[inverse.reshape(-1)] > 1)
    if not tied.shape[0]:
        return chosen
    # Equal counts: the rows are the same when their fingerprints are equal too.
    tied_cells = chosen[tied]
    combinations = sorted({cells.combination(i) for i in tied_cells})
    tables = dict(zip(combinations, counter.fingerprints(combinations), strict=True))
    fingerprints = np.empty(tied.shape[0])
    by_combination = {}
    for position, i in enumerate(tied_cells):
        by_combination.setdefault(cells.combination(i), []).append(position)
    for combination, positions in by_combination.items():
        table = tables[combination]
        keys = cells.key[tied_cells[positions]]
        fingerprints[positions] = table.counts[np.searchsorted(table.keys, keys), 0, 1]
    keep = np.ones(chosen.shape[0], dtype=bool)
    seen = set()
    for position, identity in zip(tied, zip(hashes[tied].tolist(), fingerprints.tolist())):
        keep[position] = identity not in seen
        seen.add(identity)
    return chosen[keep]


def _row_hashes(rows):
    """A 64-bit hash of each row of a float array: equal rows, equal hashes (each value's
    bits mixed with its column's key, summed modulo 2**64, mixed again). Rows with equal
    hashes are compared again by their fingerprints."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    keys = mix64(np.arange(rows.shape[1], dtype=np.uint64))
    with np.errstate(over="ignore"):
        return mix64(mix64(rows.view(np.uint64) ^ keys).sum(axis=1, dtype=np.uint64))


def _tests(cells, chosen, root, search):
    """p-values of the gaps of the cells ``chosen`` against the rest of the rows."""
    squares = None if cells.den_squares is None else cells.den_squares[chosen]
    (x1, n1), (x2, n2) = _binomial_sides(cells.num[chosen], cells.den[chosen], squares, root)
    # SliceLine's errors are the metric's numerator, or with direction="lower" its
    # complement: in both cases a slice has more of them than the rest.
    alternative = "greater" if search.objective == "sliceline" else _ALTERNATIVE[search.direction]
    return two_proportion_pvalues(x1, n1, x2, n2, alternative)


def _gap_results(cells, nodes, counter, root, search):
    order = np.lexsort((np.arange(cells.size), cells.level))
    distinct = _distinct(cells, order, counter)
    p_values = _tests(cells, distinct, root, search)
    q_values = adjusted_pvalues(p_values, search.correction)
    significant = q_values <= search.alpha
    ranking = np.lexsort((cells.level[distinct], -cells.score[distinct], ~significant))
    top = ranking[: search.k]
    return _found(
        cells,
        distinct[top],
        p_values[top],
        q_values[top],
        root,
        search,
        n_evaluated=int(distinct.shape[0]),
        n_tests=int(distinct.shape[0]),
    )


def _sliceline_results(cells, nodes, counter, dims, root, search):
    positive = np.flatnonzero(cells.score > 0)
    order = positive[np.lexsort((positive, cells.level[positive], -cells.score[positive]))]
    chosen = np.zeros(0, dtype=np.intp)
    window = search.k
    while True:
        chosen = _distinct(cells, order[:window], counter)
        if chosen.shape[0] >= search.k or window >= order.shape[0]:
            break
        window *= 2
    chosen = chosen[: search.k]
    # Every conjunction of up to max_level conditions is a test; those not scored count with
    # p-value 1 (a valid p-value), which keeps the step-up procedure valid.
    n_tests = sum(
        math.prod(dims[c] for c in combination)
        for level in range(1, search.max_level + 1)
        for combination in itertools.combinations(range(len(dims)), level)
    )
    p_values = _tests(cells, chosen, root, search)
    q_values = adjusted_pvalues(p_values, search.correction, n_tests=n_tests)
    return _found(
        cells,
        chosen,
        p_values,
        q_values,
        root,
        search,
        n_evaluated=int(cells.size),
        n_tests=n_tests,
    )


def _found(cells, chosen, p_values, q_values, root, search, *, n_evaluated, n_tests):
    num, den = cells.num[chosen], cells.den[chosen]
    if search.objective == "sliceline" and search.direction == "lower":
        num = den - num  # back to the metric itself
        root_num = root.den[0] - root.num[0]
    else:
        root_num = root.num[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = num / den
        rest = (root_num - num) / (root.den[0] - den)
    squares = None if cells.den_squares is None else cells.den_squares[chosen]
    _, gap_low, gap_high = gap_interval(
        cells.num[chosen], cells.den[chosen], squares, root, 1 - search.alpha
    )
    records = [
        {
            "combination": cells.combination(i),
            "key": int(cells.key[i]),
            "n": int(cells.rows[i]),
            "n_rated": int(cells.den_rows[i]),
            "value": float(value[j]),
            "rest_value": float(rest[j]),
            "gap": float(value[j] - rest[j]),
            "gap_low": float(gap_low[j]),
            "gap_high": float(gap_high[j]),
            "score": float(cells.score[i]),
            "p_value": float(p_values[j]),
            "q_value": float(q_values[j]),
            "significant": bool(q_values[j] <= search.alpha),
        }
        for j, i in enumerate(chosen)
    ]
    return Found(
        records=records,
        n_evaluated=n_evaluated,
        n_tests=n_tests,
        overall_value=float(root_num / root.den[0]),
        n_rows=int(root.rows[0]),
    )


def check_settings(objective, direction, max_level, n_columns, y_pred, y_score):
    if max_level > n_columns and objective != "mdss":
        raise ValueError(
            f"max_level={max_level} is more than the {n_columns} column(s) of features: a "
            "subgroup has at most one condition per column. Pass max_level <= "
            f"{n_columns}."
        )
    if objective == "sliceline" and direction == "both":
        raise ValueError(
            "objective='sliceline' scores one direction: pass direction='higher' (slices "
            "with a higher metric) or 'lower'."
        )
    if objective == "mdss" and y_score is None:
        raise ValueError(
            "objective='mdss' compares the outcomes with predicted probabilities: pass "
            "y_score= (e.g. model.predict_proba(X)[:, 1])."
        )
    if objective != "mdss" and y_pred is None:
        raise ValueError(f"objective={objective!r} needs y_pred (the predicted labels).")


def make_search(arguments, smallest_weights):
    """The :class:`Search` of the settings in ``arguments`` (those of ``find_subgroups``:
    ``metric``, ``objective``, ...); ``smallest_weights`` the ``min_support`` smallest
    weights (None without weights): their sum is the least weight a subgroup can have."""
    min_support = arguments["min_support"]
    smallest = float(min_support if smallest_weights is None else np.sum(smallest_weights))
    settings = {
        setting.name: arguments[setting.name]
        for setting in fields(Search)
        if setting.name not in ("weighted", "smallest_size")
    }
    return Search(**settings, weighted=smallest_weights is not None, smallest_size=smallest)
