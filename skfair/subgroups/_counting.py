"""Count tables of in-memory rows, the combinations spread over joblib workers.

The rows are coded once (:mod:`skfair.subgroups._encode`); each worker runs the chunk phase
of :class:`~skfair._stats._combinations.CombinationCounts` on all rows for its share of the
combinations (joblib hands the code arrays to process workers as shared memory maps). The
tables do not depend on how the combinations are shared out.
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from skfair._stats._combinations import CombinationCounts, row_fingerprints
from skfair.subgroups._search import HASH_BUCKETS


def row_classes(y_true_positive, y_pred_positive, codes):
    """The class of each row: its cell of the confusion table and a hash bucket of its
    values (see :mod:`skfair.subgroups._search`), and the rows' fingerprints."""
    fingerprints = row_fingerprints(codes)
    bucket = np.minimum((fingerprints * HASH_BUCKETS).astype(np.intp), HASH_BUCKETS - 1)
    cell = 2 * np.asarray(y_true_positive, dtype=np.intp) + np.asarray(y_pred_positive)
    return (cell * HASH_BUCKETS + bucket).astype(np.uint8), fingerprints


class MemoryCounter:
    """``counter(combinations)``: the count tables of in-memory coded rows."""

    def __init__(self, codes, dims, classes, weights, fingerprints, n_jobs=None):
        self.codes = codes
        self.dims = tuple(int(d) for d in dims)
        self.classes = classes
        self.weights = weights
        self.fingerprint_values = fingerprints
        self.n_jobs = n_jobs

    def __call__(self, combinations):
        return self._count(
            combinations, 4 * HASH_BUCKETS, self.classes, self.weights, self.weights is not None
        )

    def fingerprints(self, combinations):
        """Tables whose ``counts[:, 0, 1]`` is the sum of the cells' row fingerprints."""
        return self._count(combinations, 1, None, self.fingerprint_values, True, False)

    def _count(self, combinations, n_classes, classes, weights, weighted, squares=True):
        combinations = [tuple(c) for c in combinations]
        n_workers = min(effective_n_jobs(self.n_jobs), len(combinations))
        settings = (self.dims, n_classes, weighted, squares)
        if n_workers <= 1:
            return _count(settings, combinations, self.codes, classes, weights)
        batches = _batches(combinations, n_workers)
        results = Parallel(n_jobs=n_workers)(
            delayed(_count)(settings, batch, self.codes, classes, weights) for batch in batches
        )
        tables = {}
        for batch, batch_tables in zip(batches, results, strict=True):
            tables.update(zip(batch, batch_tables, strict=True))
        return tuple(tables[c] for c in combinations)


def _count(settings, combinations, codes, classes, weights):
    dims, n_classes, weighted, squares = settings
    statistic = CombinationCounts(dims, n_classes, tuple(combinations), weighted, squares)
    return statistic.chunk(codes, classes, weights)


def _batches(combinations, n_workers):
    """About two batches per worker; combinations that share their leading columns stay in
    one batch (they share the code of those columns)."""
    groups = {}
    for combination in combinations:
        groups.setdefault(combination[:-1], []).append(combination)
    n_batches = min(2 * n_workers, len(groups)) if len(groups) > 1 else 1
    if n_batches == 1:
        # One group of leading columns: split it instead.
        size = -(-len(combinations) // (2 * n_workers))
        return [combinations[i : i + size] for i in range(0, len(combinations), size)]
    batches = [[] for _ in range(n_batches)]
    loads = np.zeros(n_batches)
    for group in sorted(groups.values(), key=len, reverse=True):
        target = int(np.argmin(loads))
        batches[target].extend(group)
        loads[target] += len(group)
    return [batch for batch in batches if batch]
