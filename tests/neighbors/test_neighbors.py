"""Tests of skfair.neighbors against independent oracles (scipy, brute force, invariances)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist, directed_hausdorff

from skfair.neighbors import draw_projections, nearest_other_group, other_group_distance
from skfair.neighbors._kernel import project
from skfair.neighbors._projections import default_m2

EXACT = [{"algorithm": "kd_tree"}, {"algorithm": "block_tree"}, {"algorithm": "projection"}]


def double_loop_delta(X, s):
    """Plain definition with scipy's cdist (an independent distance computation)."""
    X = np.asarray(X, dtype=float)
    s = np.asarray(s)
    D = cdist(X, X)
    D[s[:, None] == s[None, :]] = np.inf
    return D.min(axis=1)


@st.composite
def datasets(draw, max_attributes=3):
    n = draw(st.integers(2, 60))
    d = draw(st.integers(1, 6))
    integer = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, (n, d)).astype(float) if integer else rng.normal(size=(n, d))
    n_attributes = draw(st.integers(1, max_attributes))
    values = [draw(st.integers(1, 4)) for _ in range(n_attributes)]
    S = np.column_stack([rng.integers(0, v, n) for v in values])
    return X, S


def random_case(rng, n, d, n_values=3, integer=False):
    X = rng.integers(0, 3, (n, d)).astype(float) if integer else rng.normal(size=(n, d))
    s = rng.integers(0, n_values, n)
    s[: min(n, n_values)] = np.arange(min(n, n_values))  # every value present
    return X, s


# --------------------------------------------------------------------------------------------
# exact == brute force, bitwise


@pytest.mark.slow
@settings(max_examples=75, deadline=None)
@given(datasets())
def test_exact_engines_equal_bruteforce_bitwise(data):
    X, S = data
    ref, ref_index = nearest_other_group(
        X, sensitive_features=S, method="bruteforce", return_index=True
    )
    for kwargs in EXACT:
        got, index = nearest_other_group(X, sensitive_features=S, return_index=True, **kwargs)
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_array_equal(index, ref_index)
        got_max, got_avg = other_group_distance(X, sensitive_features=S, **kwargs)
        ref_max, ref_avg = other_group_distance(X, sensitive_features=S, method="bruteforce")
        np.testing.assert_array_equal(got_max, ref_max)
        np.testing.assert_array_equal(got_avg, ref_avg)


@pytest.mark.parametrize("d", [1, 2, 5, 10, 20, 50])
@pytest.mark.parametrize("integer", [False, True])
def test_exact_equals_bruteforce_dimensions(d, integer):
    rng = np.random.default_rng(d)
    X, s = random_case(rng, 300, d, n_values=4, integer=integer)
    ref, ref_index = nearest_other_group(
        X, sensitive_features=s, method="bruteforce", chunk_size=7, return_index=True
    )
    np.testing.assert_allclose(ref, double_loop_delta(X, s), rtol=1e-12, atol=1e-12)
    for kwargs in EXACT:
        got, index = nearest_other_group(X, sensitive_features=s, return_index=True, **kwargs)
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_array_equal(index, ref_index)


@pytest.mark.parametrize("d", [1, 2, 10, 50])
def test_block_tree_many_leaves_equals_bruteforce(d):
    # Several attributes at once, exact duplicates across groups, a singleton group, and an
    # attribute whose groups are spatially separated (a leaf's nearest boxes hold no other
    # group, so its search widens before it has a bound).
    rng = np.random.default_rng(d)
    n = 700
    X = rng.integers(0, 3, (n, d)).astype(float)
    X[: n // 2] += rng.normal(scale=1e-3, size=(n // 2, d))
    X[600:650] = X[:50]
    S = np.column_stack(
        [
            rng.integers(0, 2, n),
            np.where(np.arange(n) == 123, 5, rng.integers(0, 5, n)),
            (X[:, 0] > 1.5).astype(int),
        ]
    )
    ref = nearest_other_group(X, sensitive_features=S, method="bruteforce", return_index=True)
    for n_jobs in (None, 2):
        got = nearest_other_group(
            X, sensitive_features=S, algorithm="block_tree", n_jobs=n_jobs, return_index=True
        )
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])


def _data_kind(kind, n, d, rng):
    """The benchmark's kinds of data, rounded so that exact ties and duplicates occur."""
    if kind == "latent":
        X = rng.normal(size=(n, 3)) @ rng.normal(size=(3, d)) + 0.05 * rng.normal(size=(n, d))
    elif kind == "tabular":
        # Three numeric columns, then one-hot blocks of 4 levels (a constant column to pad).
        n_blocks = (d - 3) // 4
        one_hot = np.eye(4)[rng.integers(0, 4, (n, n_blocks))].reshape(n, -1)
        X = np.hstack([rng.random((n, 3)), one_hot, np.zeros((n, d - 3 - 4 * n_blocks))])
    else:
        X = rng.random((n, d))
    X = np.round(X, 1)  # a coarse grid: many exact ties
    X[n // 2 : n // 2 + 40] = X[:40]  # duplicate rows, in other groups or the same
    return X


def _spy_engine_runs(monkeypatch):
    """Record the name of every exact engine whose ``run`` is called."""
    from skfair.neighbors import _block_tree, _kd_tree

    calls = []
    for engine in (_block_tree.BlockTreeSearch, _kd_tree.KDTreeSearch):
        run = engine.run

        def spy(self, *args, run=run, **kwargs):
            calls.append(self.name)
            return run(self, *args, **kwargs)

        monkeypatch.setattr(engine, "run", spy)
    return calls


def _fake_pilots(monkeypatch, original, rotated, block, build=1.0):
    """Replace the measured pilot costs by fixed estimates (seconds); record which ran."""
    from skfair.neighbors import _block_tree, _kd_tree

    measured = []

    def kd_pilot(self, budget=np.inf, every_group=False):
        measured.append(self.name + (", every group" if every_group else ""))
        self.pilot_build_seconds = build
        return original if self.name == "kd_tree" else rotated

    def block_pilot(self, n_leaves, random_state=0):
        measured.append(self.name)
        return block

    monkeypatch.setattr(_kd_tree.KDTreeSearch, "pilot", kd_pilot)
    monkeypatch.setattr(_block_tree.BlockTreeSearch, "pilot", block_pilot)
    return measured


@pytest.mark.parametrize("d", [16, 17, 31, 32])
def test_auto_on_small_data_chooses_by_dimension(d, monkeypatch):
    calls = _spy_engine_runs(monkeypatch)
    rng = np.random.default_rng(0)
    X, s = random_case(rng, 200, d, n_values=3, integer=True)
    auto = nearest_other_group(X, sensitive_features=s, return_index=True)
    ref = nearest_other_group(X, sensitive_features=s, method="bruteforce", return_index=True)
    assert calls == ["block_tree" if d >= 32 else "kd_tree"]
    np.testing.assert_array_equal(auto[0], ref[0])
    np.testing.assert_array_equal(auto[1], ref[1])


@pytest.mark.parametrize("kind", ["latent", "tabular", "uniform"])
@pytest.mark.parametrize("d", [10, 20])
def test_auto_with_its_pilot_equals_bruteforce_on_each_kind_of_data(kind, d, monkeypatch):
    # The real pilot, on rows enough for it to run, whatever engine it picks; and each engine
    # it can pick, forced, on the same data: all bit-identical to brute force, ties included.
    from skfair.neighbors import _other_group

    monkeypatch.setattr(_other_group, "_PILOT_MIN_SAMPLES", 500)
    rng = np.random.default_rng(d)
    n = 1500
    X = _data_kind(kind, n, d, rng)
    S = np.column_stack([rng.choice(3, n, p=[0.5, 0.3, 0.2]), rng.integers(0, 2, n)])
    ref = nearest_other_group(X, sensitive_features=S, method="bruteforce", return_index=True)
    calls = _spy_engine_runs(monkeypatch)
    got = nearest_other_group(X, sensitive_features=S, return_index=True)
    assert len(calls) == 1
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])
    for estimates, engine in [
        ((1.0, 2.0, 3.0), "kd_tree"),
        ((2.0, 1.0, 3.0), "kd_tree in principal coordinates"),
        ((100.0, 100.0, 3.0), "block_tree"),
    ]:
        calls.clear()
        _fake_pilots(monkeypatch, *estimates, build=1.0)
        got = nearest_other_group(X, sensitive_features=S, return_index=True)
        assert calls == [engine if d > 16 else engine.replace("block_tree", "kd_tree")]
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])


@pytest.mark.parametrize(
    "d, estimates, build, measured, chosen",
    [
        # The block tree loses its pilot: the scipy-backed KD-tree runs (in the better frame,
        # measured again on every group).
        (
            20,
            (30.0, 40.0, 50.0),
            1.0,
            ["kd_tree", "kd_tree in principal coordinates", "block_tree", "kd_tree, every group"],
            "kd_tree",
        ),
        (
            20,
            (40.0, 30.0, 50.0),
            1.0,
            [
                "kd_tree",
                "kd_tree in principal coordinates",
                "block_tree",
                "kd_tree in principal coordinates, every group",
            ],
            "kd_tree in principal coordinates",
        ),
        # The block tree wins its pilot.
        (
            20,
            (30.0, 40.0, 20.0),
            1.0,
            ["kd_tree", "kd_tree in principal coordinates", "block_tree", "kd_tree, every group"],
            "block_tree",
        ),
        # The KD-tree's queries cost less than 8 times its construction: no block-tree pilot.
        (20, (7.0, 9.0, 1.0), 1.0, ["kd_tree", "kd_tree in principal coordinates"], "kd_tree"),
        # Up to 16 coordinates the block tree is not measured.
        (16, (300.0, 400.0, 1.0), 1.0, ["kd_tree", "kd_tree in principal coordinates"], "kd_tree"),
    ],
)
def test_auto_rule_measures_and_picks(d, estimates, build, measured, chosen, monkeypatch):
    from skfair.neighbors import _other_group

    monkeypatch.setattr(_other_group, "_PILOT_MIN_SAMPLES", 100)
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, (900, d)).astype(float)
    s = rng.integers(0, 3, 900)
    calls = _spy_engine_runs(monkeypatch)
    pilots = _fake_pilots(monkeypatch, *estimates, build=build)
    got = nearest_other_group(X, sensitive_features=s, return_index=True)
    assert pilots == measured
    assert calls == [chosen]
    ref = nearest_other_group(X, sensitive_features=s, method="bruteforce", return_index=True)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])


def test_explicit_kd_tree_never_measures_the_block_tree(monkeypatch):
    from skfair.neighbors import _other_group

    monkeypatch.setattr(_other_group, "_PILOT_MIN_SAMPLES", 100)
    rng = np.random.default_rng(2)
    X = rng.random((600, 40))
    s = rng.integers(0, 2, 600)
    pilots = _fake_pilots(monkeypatch, 300.0, 400.0, 1.0)
    calls = _spy_engine_runs(monkeypatch)
    nearest_other_group(X, sensitive_features=s, algorithm="kd_tree")
    assert pilots == ["kd_tree", "kd_tree in principal coordinates"]
    assert calls == ["kd_tree"]


def _pilot_calls(searched):
    """Split the recorded pilot calls into groups: two empty calls (the cost of a call), then
    runs of a warm-up call and a timed call; return the number of runs of each group."""
    from skfair.neighbors import _kd_tree

    runs, position = [], 0
    while position < len(searched):
        assert searched[position : position + 2] == [(0, 0), (0, 0)]
        position += 2
        count = 0
        while searched[position : position + 2] == [
            (0, _kd_tree._PILOT_WARM),
            (0, _kd_tree._PILOT_RUN_LENGTH),
        ]:
            position += 2
            count += 1
        runs.append(count)
    return runs


def test_kd_tree_pilot_samples_runs_and_stops_at_the_budget(monkeypatch):
    from skfair.neighbors import _kd_tree

    searched = []
    search = _kd_tree.KDTreeSearch._search

    def spy(self, a, group, anchors, workers):
        searched.append((a, anchors.size))
        return search(self, a, group, anchors, workers)

    monkeypatch.setattr(_kd_tree.KDTreeSearch, "_search", spy)
    rng = np.random.default_rng(0)
    Z = rng.random((30_000, 5))
    codes = np.column_stack([rng.integers(0, 3, 30_000), rng.integers(0, 2, 30_000)])
    ZT = np.ascontiguousarray(Z.T)
    engine = _kd_tree.KDTreeSearch(Z, ZT, codes, [3, 2])
    assert engine.pilot() > engine.pilot_build_seconds > 0
    # The first attribute's largest group only, in runs of a warm-up and a timed call.
    assert _pilot_calls(searched) == [_kd_tree._PILOT_MIN_RUNS]
    # Then more runs of that group, and those of the two others.
    searched.clear()
    assert engine.pilot(every_group=True) > engine.pilot_build_seconds
    runs = _kd_tree._PILOT_RUNS
    assert sorted(_pilot_calls(searched)) == [runs - _kd_tree._PILOT_MIN_RUNS, runs, runs]
    searched.clear()
    engine = _kd_tree.KDTreeSearch(Z, ZT, codes, [3, 2])
    assert engine.pilot(budget=0.0) > 0
    assert _pilot_calls(searched) == [_kd_tree._PILOT_MIN_RUNS]


def test_kd_tree_pilot_runs_spread_over_the_anchors():
    from skfair.neighbors._kd_tree import _PILOT_MAX_RUNS, _pilot_runs

    firsts = _pilot_runs(64_000, 128)
    assert firsts.size == _PILOT_MAX_RUNS and np.unique(firsts).size == _PILOT_MAX_RUNS
    # Every prefix of 2^k runs has one run in each of 2^k equal shares.
    for k in range(1, 7):
        shares = (firsts[: 2**k] + 64) * 2**k // 64_000
        assert sorted(shares) == list(range(2**k))
    assert np.unique(_pilot_runs(300, 128)).size == _pilot_runs(300, 128).size


def test_one_blas_thread_limits_blas_and_restores_it():
    # The engines' products run in one BLAS thread, with the controller cached across calls.
    from threadpoolctl import threadpool_info, threadpool_limits

    from skfair._utils._compat import one_blas_thread

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        for _ in range(2):
            with one_blas_thread():
                assert set(blas_threads()) <= {1}
            assert blas_threads() == before


@pytest.mark.parametrize("ratio, leafsize", [(15.0, 32), (17.0, 64)])
def test_kd_tree_takes_large_leaves_when_its_queries_struggle(ratio, leafsize, monkeypatch):
    # A pilot estimate above 16 times the trees' construction: every tree of the run, the
    # pilot's built again, has 64-point leaves; exact either way, ties and duplicates included.
    from skfair.neighbors import _kd_tree

    leafsizes = []
    build = _kd_tree.cKDTree

    def spy(data, **options):
        leafsizes.append(options["leafsize"])
        return build(data, **options)

    monkeypatch.setattr(_kd_tree, "cKDTree", spy)
    rng = np.random.default_rng(5)
    n = 3000
    X = _data_kind("uniform", n, 6, rng)
    s = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    Z = np.ascontiguousarray(X)
    engine = _kd_tree.KDTreeSearch(Z, np.ascontiguousarray(Z.T), s[:, None], [3])
    engine.pilot()
    engine.fit_leaves(ratio * engine.pilot_build_seconds)
    leafsizes.clear()
    sqdist, index = engine.run()
    assert leafsizes == [leafsize] * (3 if leafsize == 64 else 2)
    ref = nearest_other_group(X, sensitive_features=s, method="bruteforce", return_index=True)
    np.testing.assert_array_equal(np.sqrt(sqdist[:, 0]), ref[0])
    np.testing.assert_array_equal(index[:, 0], ref[1])


@pytest.mark.parametrize("estimate, leafsize", [(15.0, 32), (17.0, 64)])
def test_auto_gives_the_kd_tree_large_leaves_after_its_pilot(estimate, leafsize, monkeypatch):
    from skfair.neighbors import _kd_tree, _other_group

    monkeypatch.setattr(_other_group, "_PILOT_MIN_SAMPLES", 100)
    fit_leaves = _kd_tree.KDTreeSearch.fit_leaves
    chosen = []

    def spy(self, estimate):
        fit_leaves(self, estimate)
        chosen.append((self.name, self._leafsize))

    monkeypatch.setattr(_kd_tree.KDTreeSearch, "fit_leaves", spy)
    _fake_pilots(monkeypatch, estimate, 2 * estimate, 1.0, build=1.0)
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (900, 10)).astype(float)
    s = rng.integers(0, 3, 900)
    got = nearest_other_group(X, sensitive_features=s, return_index=True)
    assert chosen == [("kd_tree", leafsize)]
    ref = nearest_other_group(X, sensitive_features=s, method="bruteforce", return_index=True)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])


@settings(max_examples=50, deadline=None)
@given(datasets())
def test_kd_tree_in_principal_coordinates_equals_bruteforce_bitwise(data):
    # Near-ties after the rotation's rounding are resolved by the kernel, within its margin.
    from skfair.neighbors._kd_tree import kd_tree_other_group
    from skfair.neighbors._principal import PrincipalFrame

    X, S = data
    ref, ref_index = nearest_other_group(
        X, sensitive_features=S, method="bruteforce", return_index=True
    )
    ref, ref_index = ref.reshape(len(X), -1), ref_index.reshape(len(X), -1)
    Z = np.ascontiguousarray(X, dtype=float)
    codes = np.column_stack([np.unique(c, return_inverse=True)[1] for c in S.T])
    n_groups = [int(c.max()) + 1 for c in codes.T]
    sqdist, index = kd_tree_other_group(
        Z, np.ascontiguousarray(Z.T), codes, n_groups, frame=PrincipalFrame(Z)
    )
    np.testing.assert_array_equal(np.sqrt(sqdist), ref)
    np.testing.assert_array_equal(index, ref_index)


def test_bruteforce_tiles_keep_the_smallest_row_among_ties():
    # Complements of more than one 4096-candidate tile, with exact ties across tiles: the
    # oracle must still report the smallest row, as the KD-tree (an independent engine) does.
    rng = np.random.default_rng(0)
    X = rng.integers(0, 6, (9000, 2)).astype(float)
    s = rng.integers(0, 2, 9000)
    ref = nearest_other_group(X, sensitive_features=s, method="bruteforce", return_index=True)
    got = nearest_other_group(X, sensitive_features=s, algorithm="kd_tree", return_index=True)
    np.testing.assert_array_equal(ref[0], got[0])
    np.testing.assert_array_equal(ref[1], got[1])
    assert (ref[0] == 0).all()  # every point has a duplicate in the other group


def test_duplicates_ties_and_index_rule():
    # Rows 0 and 2 duplicate each other in different groups; row 1 is tied between 3 and 4.
    X = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 0.0], [5.0, 6.0], [5.0, 4.0]])
    s = np.array([0, 0, 1, 1, 1])
    for kwargs in [*EXACT, {"method": "bruteforce"}]:
        dist, index = nearest_other_group(X, sensitive_features=s, return_index=True, **kwargs)
        np.testing.assert_array_equal(dist, [0.0, 1.0, 0.0, 1.0, 1.0])
        np.testing.assert_array_equal(index, [2, 3, 0, 1, 1])


def test_singleton_group():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    s = np.zeros(40, dtype=int)
    s[17] = 1
    expected = np.linalg.norm(X - X[17], axis=1)
    expected[17] = np.delete(expected, 17).min()
    for kwargs in [*EXACT, {"method": "bruteforce"}]:
        dist = nearest_other_group(X, sensitive_features=s, **kwargs)
        np.testing.assert_allclose(dist, expected, rtol=1e-13)
        assert np.isfinite(dist).all()


@pytest.mark.parametrize("method", ["exact", "approx", "bruteforce"])
def test_single_valued_attribute_gives_inf_and_nan(method):
    X = np.arange(10.0).reshape(5, 2)
    dist, index = nearest_other_group(
        X, sensitive_features=np.ones(5), method=method, return_index=True, random_state=0
    )
    assert np.isinf(dist).all() and (index == -1).all()
    d_max, d_avg = other_group_distance(
        X, sensitive_features=np.ones(5), method=method, random_state=0
    )
    assert np.isnan(d_max) and np.isnan(d_avg)


# --------------------------------------------------------------------------------------------
# aggregates


@pytest.mark.parametrize("seed", range(5))
def test_binary_max_is_hausdorff(seed):
    rng = np.random.default_rng(seed)
    X, s = random_case(rng, 200, 4, n_values=2)
    hausdorff = max(
        directed_hausdorff(X[s == 0], X[s == 1])[0], directed_hausdorff(X[s == 1], X[s == 0])[0]
    )
    for method in ("exact", "bruteforce"):
        d_max, _ = other_group_distance(X, sensitive_features=s, method=method)
        assert d_max == pytest.approx(hausdorff, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(datasets())
def test_aggregates_are_max_and_mean_of_double_loop(data):
    X, S = data
    d_max, d_avg = other_group_distance(X, sensitive_features=S)
    for j in range(S.shape[1]):
        delta = double_loop_delta(X, S[:, j])
        if np.isinf(delta).any():
            assert np.isnan(d_max[j]) and np.isnan(d_avg[j])
            continue
        assert d_max[j] == pytest.approx(delta.max(), rel=1e-12, abs=1e-12)
        assert d_avg[j] == pytest.approx(delta.mean(), rel=1e-12, abs=1e-12)
        assert d_max[j] >= d_avg[j] >= 0


def test_identical_groups_give_zero():
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(10, 3))
    X = np.vstack([rows, rows, rows])
    s = np.repeat([0, 1, 2], 10)
    for method in ("exact", "approx", "bruteforce"):
        assert other_group_distance(X, sensitive_features=s, method=method) == (0.0, 0.0)


# --------------------------------------------------------------------------------------------
# invariances


def test_row_permutation_and_relabelling():
    rng = np.random.default_rng(2)
    X, s = random_case(rng, 250, 5, n_values=4, integer=True)
    dist = nearest_other_group(X, sensitive_features=s)
    perm = rng.permutation(250)
    permuted = nearest_other_group(X[perm], sensitive_features=s[perm])
    np.testing.assert_array_equal(permuted, dist[perm])
    relabelled = np.array(["d", "a", "c", "b"])[s]
    np.testing.assert_array_equal(nearest_other_group(X, sensitive_features=relabelled), dist)
    d_max, d_avg = other_group_distance(X, sensitive_features=s)
    p_max, p_avg = other_group_distance(X[perm], sensitive_features=s[perm])
    assert p_max == d_max and p_avg == pytest.approx(d_avg, rel=1e-12)


def test_swap_binary_groups_and_encodings():
    rng = np.random.default_rng(3)
    X, s = random_case(rng, 120, 3, n_values=2)
    dist = nearest_other_group(X, sensitive_features=s)
    for encoded in (1 - s, s.astype(bool), np.array(["no", "yes"])[s]):
        np.testing.assert_array_equal(nearest_other_group(X, sensitive_features=encoded), dist)


def test_rotation_translation_scaling():
    rng = np.random.default_rng(4)
    X, s = random_case(rng, 150, 4, n_values=3)
    q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    d_max, d_avg = other_group_distance(X, sensitive_features=s)
    r_max, r_avg = other_group_distance(X @ q + 3.0, sensitive_features=s)
    assert (r_max, r_avg) == pytest.approx((d_max, d_avg), rel=1e-12)
    s_max, s_avg = other_group_distance(2.5 * X, sensitive_features=s)
    assert (s_max, s_avg) == pytest.approx((2.5 * d_max, 2.5 * d_avg), rel=1e-12)


def test_two_dimensional_is_marginal():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 3))
    S = np.column_stack([rng.integers(0, 2, 80), rng.integers(0, 3, 80)])
    both = nearest_other_group(X, sensitive_features=S)
    for j in range(2):
        np.testing.assert_array_equal(
            both[:, j], nearest_other_group(X, sensitive_features=S[:, j])
        )


# --------------------------------------------------------------------------------------------
# approximation


def naive_accele(Z, s, w, m2):
    """Literal port of the paper's Algorithm 3 scan (stable sort, positions as sides)."""
    g = project(np.ascontiguousarray(Z.T), w)
    order = np.argsort(g, kind="stable")
    n = len(Z)
    d_min = np.full(n, np.inf)
    for i in range(n):
        p = order[i]
        for direction in (-1, 1):
            j, found = i + direction, 0
            while 0 <= j < n and found < m2:
                q = order[j]
                if s[q] != s[p]:
                    diff = Z[p] - Z[q]
                    acc = 0.0
                    for t in diff:
                        acc = acc + t * t
                    d_min[p] = min(d_min[p], np.sqrt(acc))
                    found += 1
                j += direction
    return d_min


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("m2", [1, 3, 8])
def test_approx_equals_naive_scan(seed, m2):
    rng = np.random.default_rng(seed)
    X, s = random_case(rng, 90, 4, n_values=3, integer=seed % 2 == 1)
    W = draw_projections(4, m1=1, n_e=1, random_state=seed)
    got = nearest_other_group(X, sensitive_features=s, method="approx", m2=m2, projections=W)
    np.testing.assert_array_equal(got, naive_accele(X, s, W[0, 0], m2))


@pytest.mark.parametrize("m2", [1, 4])
def test_approx_many_blocks_equals_naive_scan(m2):
    # Enough rows for many blocks of the batched Gram products, a rare group (sparse anchors,
    # wide gaps), integer coordinates (exact ties in Gram form, decided by the kernel) and
    # exact duplicates across groups.
    rng = np.random.default_rng(m2)
    n = 1200
    X = rng.integers(0, 4, (n, 5)).astype(float)
    X[1000:1100] = X[:100]
    s = rng.choice(4, size=n, p=[0.6, 0.25, 0.13, 0.02])
    W = draw_projections(5, m1=1, n_e=1, random_state=m2)
    got = nearest_other_group(X, sensitive_features=s, method="approx", m2=m2, projections=W)
    np.testing.assert_array_equal(got, naive_accele(X, s, W[0, 0], m2))


@pytest.mark.parametrize("m2", [1, 3])
def test_approx_far_candidates_equal_naive_scan(m2):
    # Projected on the axis that separates the groups, a group's rows form long runs: their
    # other-group candidates lie far away in sorted order (the gathered, not the blocked, path).
    rng = np.random.default_rng(m2)
    X = rng.normal(size=(600, 3))
    s = np.where(X[:, 0] > 0.4, 2, (X[:, 1] > 0).astype(int))
    W = np.array([[[1.0, 0.0, 0.0]]])
    got = nearest_other_group(X, sensitive_features=s, method="approx", m2=m2, projections=W)
    np.testing.assert_array_equal(got, naive_accele(X, s, W[0, 0], m2))
    # Windows covering every complement: the exact distances and rows, bit for bit.
    covering = nearest_other_group(
        X, sensitive_features=s, method="approx", m2=len(X), projections=W, return_index=True
    )
    exact = nearest_other_group(X, sensitive_features=s, return_index=True)
    np.testing.assert_array_equal(covering[0], exact[0])
    np.testing.assert_array_equal(covering[1], exact[1])


@settings(max_examples=50, deadline=None)
@given(datasets(), st.integers(1, 5), st.integers(1, 3), st.integers(1, 3))
def test_approx_is_upper_bound(data, m2, m1, n_e):
    X, S = data
    exact = nearest_other_group(X, sensitive_features=S)
    approx = nearest_other_group(
        X, sensitive_features=S, method="approx", m1=m1, m2=m2, n_e=n_e, random_state=0
    )
    assert np.all(approx >= exact)
    e_max, e_avg = other_group_distance(X, sensitive_features=S)
    a_max, a_avg = other_group_distance(
        X, sensitive_features=S, method="approx", m1=m1, m2=m2, n_e=n_e, random_state=0
    )
    valid = ~np.isnan(e_max)
    assert np.all(a_max[valid] >= e_max[valid])
    assert np.all(a_avg[valid] >= e_avg[valid] * (1 - 1e-12))
    # The per-point minimum over projections is tighter than the paper's aggregate.
    assert np.all(approx.max(axis=0)[valid] <= a_max[valid])
    assert np.all(approx.mean(axis=0)[valid] <= a_avg[valid] * (1 + 1e-12))


@settings(max_examples=60, deadline=None)
@given(datasets())
def test_approx_exact_when_m2_covers_all(data):
    X, S = data
    exact = nearest_other_group(X, sensitive_features=S, return_index=True)
    approx = nearest_other_group(
        X,
        sensitive_features=S,
        method="approx",
        m1=2,
        m2=len(X),
        random_state=1,
        return_index=True,
    )
    np.testing.assert_array_equal(approx[0], exact[0])
    np.testing.assert_array_equal(approx[1], exact[1])
    a = other_group_distance(X, sensitive_features=S, method="approx", m1=2, m2=len(X))
    e = other_group_distance(X, sensitive_features=S)
    np.testing.assert_array_equal(a[0], e[0])
    np.testing.assert_array_equal(a[1], e[1])


def test_approx_monotone_in_m1_and_m2():
    rng = np.random.default_rng(6)
    X, s = random_case(rng, 400, 6, n_values=3)
    W = draw_projections(6, m1=5, random_state=3)
    values = [
        other_group_distance(X, sensitive_features=s, method="approx", m2=m2, projections=W)
        for m2 in (1, 2, 4, 8)
    ]
    assert all(b[0] <= a[0] and b[1] <= a[1] for a, b in zip(values, values[1:], strict=False))
    by_m1 = [
        other_group_distance(X, sensitive_features=s, method="approx", m1=m1, random_state=3)
        for m1 in (1, 3, 5)
    ]
    assert by_m1[2] == other_group_distance(X, sensitive_features=s, method="approx", projections=W)
    assert all(b[0] <= a[0] and b[1] <= a[1] for a, b in zip(by_m1, by_m1[1:], strict=False))


def test_approx_determinism_and_n_jobs():
    rng = np.random.default_rng(7)
    X, s = random_case(rng, 300, 4)
    kwargs = {"sensitive_features": s, "method": "approx", "m1": 6, "random_state": 11}
    first = other_group_distance(X, **kwargs)
    assert other_group_distance(X, **kwargs) == first
    assert other_group_distance(X, n_jobs=2, **kwargs) == first


def test_draw_projections_orthonormal_and_prefix():
    W = draw_projections(7, m1=20, n_e=3, random_state=0)
    for block in W:
        np.testing.assert_allclose(block @ block.T, np.eye(3), atol=1e-12)
    np.testing.assert_array_equal(draw_projections(7, m1=10, n_e=3, random_state=0), W[:10])
    assert draw_projections(2, m1=1, n_e=5, random_state=0).shape == (1, 2, 2)
    # Haar directions are not confined to the positive orthant (unlike the reference's).
    signs = np.sign(draw_projections(3, m1=200, n_e=1, random_state=1)[:, 0, :])
    assert (signs < 0).any(axis=1).mean() > 0.5


def test_default_m2_matches_paper():
    assert [default_m2(n) for n in (118, 1000, 30162, 6167, 4010)] == [5, 6, 9, 8, 8]
    assert [default_m2(n) for n in (10**4, 10**5, 10**6)] == [8, 10, 12]
    ns = np.arange(2, 200_000)
    assert all(default_m2(n) == int(np.ceil(2 * np.log10(n))) for n in ns[::997])


def test_no_sentinel_values():
    rng = np.random.default_rng(8)
    X, s = random_case(rng, 50, 3, n_values=2)
    s[:] = 0
    s[0] = 1  # one huge group and a singleton complement
    for method in ("exact", "approx", "bruteforce"):
        dist = nearest_other_group(X, sensitive_features=s, method=method, m2=1, random_state=0)
        assert np.all(dist < 1e30)


# --------------------------------------------------------------------------------------------
# validation


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "fast"}, "'method' parameter of nearest_other_group must be"),
        ({"algorithm": "ball_tree"}, "'algorithm' parameter of nearest_other_group must be"),
        ({"method": "approx", "algorithm": "kd_tree"}, "selects an engine"),
        ({"method": "approx", "m1": 0}, "'m1' parameter of nearest_other_group must be"),
        ({"method": "approx", "m2": 0}, "'m2' parameter of nearest_other_group must be"),
        ({"chunk_size": 0}, "'chunk_size' parameter of nearest_other_group must be"),
        ({"method": "approx", "projections": np.ones((2, 2, 5))}, "projections must have"),
    ],
)
def test_parameter_errors(kwargs, match):
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ValueError, match=match):
        nearest_other_group(X, sensitive_features=[0, 1] * 3, **kwargs)


def test_input_errors():
    X = np.arange(12.0).reshape(6, 2)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="column 1"):
        nearest_other_group(bad, sensitive_features=[0, 1] * 3)
    with pytest.raises(ValueError, match="at least 2 samples"):
        nearest_other_group(X[:1], sensitive_features=[0])
    with pytest.raises(ValueError, match="5 samples but the data has 6"):
        nearest_other_group(X, sensitive_features=[0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match="missing"):
        nearest_other_group(X, sensitive_features=["a", None, "a", "b", "b", "a"])


@pytest.mark.parametrize("method", ["exact", "approx", "bruteforce"])
def test_coordinates_whose_squares_overflow_raise_clearly(method):
    rng = np.random.default_rng(5)
    X, s = random_case(rng, 50, 3)
    with pytest.raises(ValueError, match="squared distances would overflow"):
        nearest_other_group(X * 1e155, sensitive_features=s, method=method)


@pytest.mark.parametrize("engine", EXACT)
def test_coordinates_at_the_limit_stay_finite_and_exact(engine):
    from skfair.neighbors._other_group import max_coordinate

    rng = np.random.default_rng(6)
    X, s = random_case(rng, 300, 4)
    X = X / np.abs(X).max() * max_coordinate(4)
    got = nearest_other_group(X, sensitive_features=s, return_index=True, **engine)
    ref = nearest_other_group(X, sensitive_features=s, method="bruteforce", return_index=True)
    assert np.isfinite(got[0]).all()
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])
    d_max, d_avg = other_group_distance(X, sensitive_features=s, **engine)
    assert np.isfinite(d_max) and np.isfinite(d_avg)


def test_verbose_reports_the_pilot(monkeypatch, capsys):
    from skfair.neighbors import _other_group

    monkeypatch.setattr(_other_group, "_PILOT_MIN_SAMPLES", 100)
    rng = np.random.default_rng(7)
    X = rng.random((600, 20))
    s = rng.integers(0, 2, 600)
    nearest_other_group(X, sensitive_features=s, verbose=1)
    out = capsys.readouterr().out
    assert "pilot estimates" in out and "exact (" in out


@pytest.mark.parametrize("dense_share", [0.0, 1.0])
def test_block_tree_dense_pass_equals_bruteforce(dense_share, monkeypatch):
    # Every leaf in the dense pass (share 0), or only leaves without a bound (share 1); tiny
    # tiles so that ties fall across tiles and blocks; several attributes, duplicates.
    from skfair.neighbors import _block_tree

    monkeypatch.setattr(_block_tree, "_DENSE_SHARE", dense_share)
    monkeypatch.setattr(_block_tree, "_DENSE_ANCHORS", 5)
    monkeypatch.setattr(_block_tree, "_DENSE_CANDIDATES", 7)
    rng = np.random.default_rng(11)
    n = 600
    X = rng.integers(0, 3, (n, 12)).astype(float)
    X[500:560] = X[:60]
    S = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 2, n), rng.integers(0, 5, n)])
    ref = nearest_other_group(X, sensitive_features=S, method="bruteforce", return_index=True)
    for n_jobs in (None, 2):
        got = nearest_other_group(
            X, sensitive_features=S, algorithm="block_tree", n_jobs=n_jobs, return_index=True
        )
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])
