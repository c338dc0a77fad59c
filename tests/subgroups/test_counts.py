"""The count tables over combinations of columns (skfair._stats._combinations) against pandas
groupby, in one chunk or several, dense or sorted, block by block."""

import numpy as np
import pandas as pd
import pytest

from skfair._stats import _combinations
from skfair._stats._combinations import CombinationCounts, row_fingerprints

DIMS = (3, 4, 5, 2)
COMBINATIONS = ((), (0,), (1, 3), (0, 1, 2), (0, 2, 3), (2,))


def _data(n=5000, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, DIMS, (n, len(DIMS))).T.astype(np.uint8)
    codes[1, codes[0] == 2] = 0  # some combinations absent
    classes = rng.integers(0, 4, n)
    weights = rng.random(n)
    return codes, classes, weights


def _expected(codes, classes, weights, combination):
    frame = pd.DataFrame({f"c{j}": codes[j] for j in range(len(DIMS))})
    frame = frame.assign(k=classes, w=weights, w2=weights**2, one=1)
    frame["cell"] = (
        np.ravel_multi_index(tuple(codes[list(combination)]), [DIMS[j] for j in combination])
        if combination
        else 0
    )
    sums = frame.groupby(["cell", "k"])[["one", "w", "w2"]].sum()
    cells = np.unique(frame["cell"])
    table = np.zeros((cells.shape[0], 4, 3))
    for (cell, k), row in sums.iterrows():
        table[np.searchsorted(cells, cell), k] = row.to_numpy()
    return cells, table


@pytest.mark.parametrize("block_rows", [1 << 18, 777])
@pytest.mark.parametrize("dense_counters", [1 << 24, 1])
def test_tables_equal_groupby(monkeypatch, block_rows, dense_counters):
    monkeypatch.setattr(_combinations, "_BLOCK_ROWS", block_rows)
    monkeypatch.setattr(_combinations, "_DENSE_COUNTERS", dense_counters)
    codes, classes, weights = _data()
    if dense_counters == 1:  # the sorted path is taken beyond 2 counters per row too
        monkeypatch.setattr(_combinations, "_DENSE_COUNTERS", 0)
        codes, classes, weights = codes[:, :40], classes[:40], weights[:40]
    statistic = CombinationCounts(DIMS, 4, COMBINATIONS, weighted=True)
    for combination, table in zip(COMBINATIONS, statistic.chunk(codes, classes, weights)):
        cells, expected = _expected(codes, classes, weights, combination)
        np.testing.assert_array_equal(table.keys, cells)
        np.testing.assert_allclose(table.counts, expected, rtol=1e-12, atol=1e-12)


def test_chunks_merge_to_the_whole():
    codes, classes, weights = _data()
    statistic = CombinationCounts(DIMS, 4, COMBINATIONS, weighted=True, squares=False)
    whole = statistic.chunk(codes, classes, weights)
    bounds = [0, 0, 1, 1700, 3000, 5000]
    parts = [
        statistic.chunk(codes[:, a:b], classes[a:b], weights[a:b])
        for a, b in zip(bounds[:-1], bounds[1:])
    ]
    for got, expected in zip(statistic.merge(parts), whole):
        np.testing.assert_array_equal(got.keys, expected.keys)
        np.testing.assert_allclose(got.counts, expected.counts, rtol=1e-12)
        assert got.counts.shape[-1] == 2


def test_fingerprints_depend_on_the_codes_only():
    codes, _, _ = _data(200)
    prints = row_fingerprints(codes)
    for dtype in (np.int64, np.uint16, np.int32):
        np.testing.assert_array_equal(row_fingerprints(codes.astype(dtype)), prints)
    same = np.all(codes[:, :, None] == codes[:, None, :], axis=0)
    np.testing.assert_array_equal(prints[:, None] == prints[None, :], same)
    assert ((prints >= 0) & (prints < 1)).all()
