"""MADD and its optimal-bandwidth search: oracles (np.histogram, brute force) and properties."""

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from sklearn.exceptions import UndefinedMetricWarning

from skfair._stats._histograms import h_sup
from skfair.datasets import make_madd_simulation
from skfair.metrics import madd, madd_bandwidth_search
from skfair.metrics._madd import _stable_interval

# True L1 distance between the simulation's two densities (numerical quadrature).
TRUE_DISTANCE = 1.1953


# The papers' small fixtures have small groups and bins finer than the data: expected warnings.
pytestmark = [
    pytest.mark.filterwarnings("ignore:The smallest group has"),
    pytest.mark.filterwarnings("ignore:MADD with .* bins exceeds"),
]


@pytest.fixture(scope="module")
def simulation():
    return make_madd_simulation(10_000, random_state=0)


def histogram_madd(x0, x1, m):
    """Oracle: eqs. 1-3 with np.histogram."""
    d0 = np.histogram(x0, bins=m, range=(0, 1))[0] / len(x0)
    d1 = np.histogram(x1, bins=m, range=(0, 1))[0] / len(x1)
    return np.abs(d0 - d1).sum()


def two_groups(x0, x1):
    scores = np.concatenate([x0, x1])
    return scores, np.repeat([0, 1], [len(x0), len(x1)])


# --- metric ---------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    x0=st.lists(st.floats(0, 1), min_size=1, max_size=60),
    x1=st.lists(st.floats(0, 1), min_size=1, max_size=60),
    m=st.integers(1, 300),
)
def test_bounds_and_histogram_oracle(x0, x1, m):
    scores, groups = two_groups(x0, x1)
    value = madd(None, scores, sensitive_features=groups, bins=m)
    assert -1e-12 <= value <= 2 + 1e-12
    assert value == pytest.approx(histogram_madd(x0, x1, m), abs=1e-12)


def test_bounds_heavy_imbalance():
    rng = np.random.default_rng(0)
    scores, groups = two_groups(rng.random(1), rng.random(100_000))
    for m in (1, 10, 1000):
        assert 0 <= madd(None, scores, sensitive_features=groups, bins=m) <= 2 + 1e-12


def test_identity_cases():
    x = np.random.default_rng(1).random(500)
    for other in (x, np.random.default_rng(2).permutation(x), np.concatenate([x, x])):
        scores, groups = two_groups(x, other)
        assert madd(None, scores, sensitive_features=groups, bandwidth=0.01) == 0.0


def test_disjoint_supports_give_two():
    rng = np.random.default_rng(3)
    scores, groups = two_groups(rng.uniform(0, 0.5, 300), rng.uniform(0.5, 1, 200))
    for m in (2, 10, 100, 1000):
        assert madd(None, scores, sensitive_features=groups, bins=m) == pytest.approx(2, abs=1e-12)


def test_invariances():
    rng = np.random.default_rng(4)
    scores, groups = two_groups(rng.beta(2, 5, 400), rng.beta(3, 3, 300))
    reference = madd(None, scores, sensitive_features=groups, bins=37)
    swapped = madd(None, scores, sensitive_features=1 - groups, bins=37)
    assert swapped == reference
    relabelled = [
        np.where(groups == 0, "a", "b"),
        groups + 1,
        groups.astype(bool),
        pd.Categorical(np.where(groups == 0, "x", "y")),
    ]
    for labels in relabelled:
        assert madd(None, scores, sensitive_features=labels, bins=37) == reference
    order = rng.permutation(len(scores))
    shuffled = madd(None, scores[order], sensitive_features=groups[order], bins=37)
    assert shuffled == pytest.approx(reference, abs=1e-15)
    index = rng.permutation(len(scores)) + 1000
    frame = pd.DataFrame({"p": scores, "s": groups}, index=index)
    positional = madd(frame["s"], frame["p"], sensitive_features=frame["s"], bins=37)
    assert positional == reference


def test_total_variation_form_and_theorem_1():
    rng = np.random.default_rng(5)
    x0, x1 = rng.beta(2, 5, 700), rng.beta(5, 2, 500)
    scores, groups = two_groups(x0, x1)
    m = 23
    value = madd(None, scores, sensitive_features=groups, bandwidth=1 / m)
    d0 = np.histogram(x0, bins=m, range=(0, 1))[0] / len(x0)
    d1 = np.histogram(x1, bins=m, range=(0, 1))[0] / len(x1)
    assert value == pytest.approx(2 * np.clip(d0 - d1, 0, None).sum(), abs=1e-12)
    # Theorem 1: MADD is the L1 distance of the step densities of width 1/m.
    step = (d0 - d1) * m
    integral = sum(
        integrate.quad(lambda x, k=k: abs(step[k]), k / m, (k + 1) / m)[0] for k in range(m)
    )
    assert value == pytest.approx(integral, abs=1e-10)


def test_triangle_inequality_and_multigroup_aggregation():
    rng = np.random.default_rng(6)
    parts = [rng.beta(2, 5, 300), rng.beta(3, 3, 400), rng.beta(5, 2, 200)]
    scores = np.concatenate(parts)
    groups = np.repeat(["u", "v", "w"], [len(p) for p in parts])
    m = 20
    pairwise = {(a, b): histogram_madd(parts[a], parts[b], m) for a, b in combinations(range(3), 2)}
    d = lambda a, b: pairwise[tuple(sorted((a, b)))]  # noqa: E731
    assert d(0, 2) <= d(0, 1) + d(1, 2) + 1e-12
    worst = madd(None, scores, sensitive_features=groups, bins=m)
    mean = madd(None, scores, sensitive_features=groups, bins=m, agg="mean")
    assert worst == pytest.approx(max(pairwise.values()), abs=1e-12)
    assert mean == pytest.approx(np.mean(list(pairwise.values())), abs=1e-12)
    two = scores[groups != "w"], groups[groups != "w"]
    assert madd(None, two[0], sensitive_features=two[1], bins=m, agg="mean") == madd(
        None, two[0], sensitive_features=two[1], bins=m
    )


def test_refinement_and_single_bin():
    rng = np.random.default_rng(7)
    scores, groups = two_groups(rng.beta(2, 4, 1000) * 0.999 + 1e-7, rng.beta(3, 3, 800))
    for m in (3, 7, 10):
        coarse = madd(None, scores, sensitive_features=groups, bins=m)
        for q in (2, 3, 5):
            assert coarse <= madd(None, scores, sensitive_features=groups, bins=q * m) + 1e-12
    assert madd(None, scores, sensitive_features=groups, bandwidth=0.7) == 0.0


def test_bin_semantics():
    # 1.0 is in the last bin, 0.0 in the first; 0.3 with m = 10 lands in bin index 2 because
    # the edge linspace(0, 1, 11)[3] is 0.30000000000000004 (np.histogram semantics).
    scores, groups = two_groups([0.0, 0.3], [1.0, 0.25])
    assert madd(None, scores, sensitive_features=groups, bins=10) == pytest.approx(1.0)
    values = np.concatenate([np.arange(11) / 10, np.random.default_rng(8).random(300)])
    other = np.random.default_rng(9).random(200)
    scores, groups = two_groups(values, other)
    for m in (5, 10, 20, 93):
        expected = histogram_madd(values, other, m)
        assert madd(None, scores, sensitive_features=groups, bins=m) == pytest.approx(
            expected, abs=1e-13
        )
    h = 1 / 93
    exact = madd(None, scores, sensitive_features=groups, bandwidth=h)
    floor = madd(None, scores, sensitive_features=groups, bandwidth=h, bin_rule="floor")
    assert exact == pytest.approx(histogram_madd(values, other, 93), abs=1e-13)
    assert floor == pytest.approx(histogram_madd(values, other, 92), abs=1e-13)


def test_discrete_scores_same_for_every_m():
    rng = np.random.default_rng(10)
    scores = rng.choice([0.0, 0.5, 1.0], size=600, p=[0.3, 0.3, 0.4])
    groups = rng.integers(0, 2, 600)
    values = {madd(None, scores, sensitive_features=groups, bins=m) for m in range(3, 60)}
    values |= {madd(None, scores, sensitive_features=groups)}
    assert max(values) - min(values) < 1e-12


def test_containers_and_dtypes():
    rng = np.random.default_rng(11)
    scores, groups = two_groups(rng.random(300), rng.random(200) ** 2)
    reference = madd(None, scores, sensitive_features=groups, bins=17)
    proba = np.column_stack([1 - scores, scores])
    inputs = [
        scores.tolist(),
        pd.Series(scores, index=np.arange(500)[::-1]),
        pd.DataFrame({"p": scores})[["p"]],
        scores[:, None],
        proba,
    ]
    for y_score in inputs:
        assert madd(None, y_score, sensitive_features=groups, bins=17) == pytest.approx(
            reference, abs=1e-15
        )
    # float32 rounding can move values across edges; these scores are not near an edge.
    assert madd(
        None, scores.astype(np.float32), sensitive_features=groups, bins=17
    ) == pytest.approx(reference, abs=0.02)
    assert madd(None, scores, sensitive_features=groups, bins=np.int64(17)) == reference


@pytest.mark.parametrize(
    "kwargs, y_score, match",
    [
        ({}, [0.1, np.nan, 0.3, 0.4], "NaN or infinite"),
        ({}, [0.1, np.inf, 0.3, 0.4], "NaN or infinite"),
        ({}, [0.1, 1.5, 0.3, 0.4], r"\[0, 1\]"),
        ({}, [-0.2, 0.5, 0.3, 0.4], r"\[0, 1\]"),
        ({}, np.ones((4, 3)) / 3, "shape"),
        ({"bandwidth": 0.0}, [0.1, 0.2, 0.3, 0.4], "bandwidth"),
        ({"bandwidth": 1.5}, [0.1, 0.2, 0.3, 0.4], "bandwidth"),
        ({"bandwidth": "fast"}, [0.1, 0.2, 0.3, 0.4], "bandwidth"),
        ({"bandwidth": True}, [0.1, 0.2, 0.3, 0.4], "bool"),
        ({"bins": 0}, [0.1, 0.2, 0.3, 0.4], "bins"),
        ({"bins": 5, "bandwidth": 0.1}, [0.1, 0.2, 0.3, 0.4], "not both"),
    ],
)
def test_validation(kwargs, y_score, match):
    with pytest.raises(ValueError, match=match):
        madd(None, y_score, sensitive_features=[0, 0, 1, 1], **kwargs)


def test_validation_groups_and_lengths():
    # One group is no disparity, with the library-wide warning (madd_bandwidth_search, which
    # describes pairs of groups, still refuses it).
    for kwargs in ({"bins": 3}, {}):
        with pytest.warns(UndefinedMetricWarning, match="Only one group"):
            assert madd(None, [0.1, 0.2, 0.3], sensitive_features=["a", "a", "a"], **kwargs) == 0
    with pytest.raises(ValueError, match="at least 2 groups"):
        madd_bandwidth_search(None, [0.1, 0.2, 0.3], sensitive_features=["a", "a", "a"])
    with pytest.raises(ValueError, match="missing|NaN|None"):
        madd(None, [0.1, 0.2, 0.3], sensitive_features=["a", None, "b"], bins=3)
    with pytest.raises(ValueError, match="Inconsistent"):
        madd([0, 1], [0.1, 0.2, 0.3], sensitive_features=[0, 1, 1], bins=3)
    with pytest.raises(ValueError, match="empty"):
        madd(None, [], sensitive_features=[], bins=3)


def test_small_group_and_many_bins_warn():
    scores, groups = two_groups([0.1, 0.2, 0.3], [0.5, 0.6, 0.7])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        madd(None, scores, sensitive_features=groups, bins=10)
    messages = " ".join(str(w.message) for w in caught)
    assert "smallest group has 3" in messages
    assert "exceeds the size of the smallest group" in messages


# --- bandwidth search -----------------------------------------------------------------------


def test_grid_of_distinct_bin_counts(simulation):
    scores, groups, _ = simulation
    result = madd_bandwidth_search(None, scores, sensitive_features=groups, bandwidths=300)
    assert result.bandwidths.shape == (300,)
    assert (np.diff(result.bandwidths) > 0).all()
    np.testing.assert_array_equal(result.bins, np.arange(300, 0, -1))
    np.testing.assert_array_equal(result.bandwidths, 1 / np.arange(300, 0, -1))
    for k in (0, 57, 150, 299):
        m = result.bins[k]
        x0, x1 = scores[groups == 0], scores[groups == 1]
        assert result.madd_curve[k] == pytest.approx(histogram_madd(x0, x1, m), abs=1e-12)


@pytest.mark.parametrize("n_grid", [40, 300])
def test_sweep_equals_np_histogram_on_and_next_to_every_edge(n_grid):
    """Every bin count of the sweep equals np.histogram for every pair of groups, with scores
    on the edges and one ulp either side, whether the groups hold more scores than the sweep
    has edges (the edges are searched among each group's sorted scores: n_grid=40) or fewer
    (the scores are searched among the edges: n_grid=300)."""
    rng = np.random.default_rng(0)
    edges = np.unique(np.concatenate([np.linspace(0, 1, m + 1) for m in range(1, n_grid + 1)]))
    scores = np.concatenate(
        [
            edges,
            np.nextafter(edges, -np.inf).clip(0, 1),
            np.nextafter(edges, np.inf).clip(0, 1),
            rng.random(3000),
        ]
    )
    groups = rng.integers(0, 3, scores.size)
    result = madd_bandwidth_search(
        None, scores, sensitive_features=groups, bandwidths=n_grid, min_points=5
    )
    assert len(result.pairs) == 3
    for pair in result.pairs:
        g, k = pair.groups
        x0, x1 = scores[groups == g], scores[groups == k]
        expected = [histogram_madd(x0, x1, m) for m in pair.bins]
        np.testing.assert_allclose(pair.madd_curve, expected, rtol=0, atol=1e-12)


def test_h_sup():
    assert h_sup(10**4, 10**4) == pytest.approx(0.07368, abs=1e-5)
    assert h_sup(10**5, 10**5) == pytest.approx(0.03420, abs=1e-5)
    assert h_sup(217, 313) == pytest.approx(0.2492, abs=1e-4)
    assert h_sup(300, 7000) == h_sup(7000, 300)
    assert h_sup(np.int64(500), np.int32(800)) > h_sup(1000, 1600)


def brute_force_interval(h, v, length, points):
    """Oracle: Algorithm 1 with an explicit double loop and np.var."""
    best = (np.inf, None)
    for i in range(len(h)):
        if h[i] > h[-1] - length:
            break
        j0 = np.searchsorted(h, h[i] + length, side="right") - 1
        if j0 - i < points:
            continue
        for j in range(j0, len(h)):
            variance = np.var(v[i : j + 1])
            if variance < best[0] - 1e-15:
                best = (variance, (i, j))
    return best


@pytest.mark.parametrize("seed", range(5))
def test_interval_search_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 120
    h = np.sort(rng.uniform(0.001, 1, n))
    v = np.cumsum(rng.normal(size=n)) * 0.01 + 1
    length, points = rng.uniform(0.05, 0.3), int(rng.integers(3, 20))
    variance, (i, j) = brute_force_interval(h, v, length, points)
    found_i, found_j, found_variance = _stable_interval(h, v, length, points)
    assert (found_i, found_j) == (i, j)
    assert found_variance == pytest.approx(variance, rel=1e-9, abs=1e-15)
    # eligibility rules
    assert h[found_i] <= h[-1] - length
    assert found_j >= np.searchsorted(h, h[found_i] + length, side="right") - 1
    assert np.searchsorted(h, h[found_i] + length, side="right") - 1 - found_i >= points


def test_constant_curve_has_zero_std_and_first_interval():
    h = np.linspace(0.01, 1, 200)
    i, j, variance = _stable_interval(h, np.full(200, 0.7), 0.1, 10)
    assert variance == 0.0
    j0 = np.searchsorted(h, h[0] + 0.1, side="right") - 1
    assert (i, j) == (0, j0)
    # the optimum may end at the last grid point (maddlib raises IndexError there)
    v = np.concatenate([np.linspace(0, 1, 150), np.full(50, 2.0)])
    i, j, variance = _stable_interval(h, v, h[-1] - h[150], 10)
    assert (i, j) == (150, 199) and variance == 0.0


def test_degenerate_searches_raise(simulation):
    scores, groups, _ = simulation
    with pytest.raises(ValueError, match="No eligible bandwidth interval"):
        madd_bandwidth_search(None, scores, sensitive_features=groups, bandwidths=40)
    for grid in ([0.1, 0.05, 0.2], [0.1, 0.1, 0.2], [0.0, 0.5], [0.5, 1.2]):
        with pytest.raises(ValueError, match="bandwidths"):
            madd_bandwidth_search(None, scores, sensitive_features=groups, bandwidths=grid)


def test_paper_simulation_stable_madd(simulation):
    # Paper Section 4.4: h_sup = 0.074, stable MADD 1.19 on "[0.007, 0.040]" (its printed upper
    # bound is the grid point after the interval).
    scores, groups, _ = simulation
    result = madd_bandwidth_search(None, scores, sensitive_features=groups)
    assert result.h_sup == pytest.approx(0.0737, abs=1e-4)
    assert result.min_interval_length == pytest.approx(0.45 * result.h_sup)
    assert result.value == pytest.approx(1.19, abs=0.01)
    low, high = result.interval
    assert low >= 0.007 and high <= 0.040 + 1e-12
    i, j = result.indices
    assert result.interval == (result.bandwidths[i], result.bandwidths[j])
    assert result.bins_interval == (result.bins[j], result.bins[i])
    assert result.value == pytest.approx(result.madd_curve[i : j + 1].mean(), abs=1e-15)
    assert result.std == pytest.approx(result.madd_curve[i : j + 1].std(), abs=1e-12)
    assert madd(None, scores, sensitive_features=groups) == result.value
    assert result.group_sizes == {0: 10_000, 1: 10_000}


def test_simulation_intervals_across_seeds():
    for seed in (1, 2):
        scores, groups, _ = make_madd_simulation(10_000, random_state=seed)
        result = madd_bandwidth_search(None, scores, sensitive_features=groups)
        low, high = result.interval
        assert 0.003 <= low <= 0.009 and 0.034 <= high <= 0.040 + 1e-12
        assert result.value == pytest.approx(TRUE_DISTANCE, abs=0.02)


def test_consistency_as_n_grows():
    errors = {}
    for n in (1_000, 100_000):
        errors[n] = []
        for seed in range(2):
            scores, groups, _ = make_madd_simulation(n, random_state=seed)
            result = madd_bandwidth_search(None, scores, sensitive_features=groups)
            errors[n].append(abs(result.value - TRUE_DISTANCE))
            if n == 100_000:
                h = np.mean(result.interval)
                value = madd(None, scores, sensitive_features=groups, bandwidth=h)
                assert abs(value - TRUE_DISTANCE) < 0.01
    assert np.mean(errors[100_000]) < np.mean(errors[1_000])


def test_search_invariant_to_group_labels(simulation):
    scores, groups, _ = simulation
    reference = madd_bandwidth_search(None, scores, sensitive_features=groups, bandwidths=500)
    for labels in (1 - groups, np.where(groups == 0, "b", "a")):
        other = madd_bandwidth_search(None, scores, sensitive_features=labels, bandwidths=500)
        assert other.indices == reference.indices
        assert other.value == reference.value


def test_search_many_groups(simulation):
    scores, groups, _ = simulation
    rng = np.random.default_rng(12)
    three = np.where(groups == 1, 2, rng.integers(0, 2, groups.shape[0]))
    result = madd_bandwidth_search(None, scores, sensitive_features=three, bandwidths=400)
    assert len(result.pairs) == 3
    values = [pair.value for pair in result.pairs]
    assert result.value == max(values)
    assert result.worst_pair == result.pairs[int(np.argmax(values))].groups
    mean = madd_bandwidth_search(
        None, scores, sensitive_features=three, bandwidths=400, agg="mean", n_jobs=2
    )
    assert mean.value == pytest.approx(np.mean(values), abs=1e-15)
    assert madd(None, scores, sensitive_features=three, bandwidths=400, agg="mean") == mean.value
    for pair in result.pairs:
        g, k = pair.groups
        sub = (three == g) | (three == k)
        alone = madd_bandwidth_search(
            None, scores[sub], sensitive_features=three[sub], bandwidths=400
        )
        assert alone.indices == pair.indices and alone.value == pair.value


def test_explicit_min_interval_length(simulation):
    scores, groups, _ = simulation
    result = madd_bandwidth_search(
        None, scores, sensitive_features=groups, bandwidths=500, min_interval_length=0.05
    )
    assert result.min_interval_length == 0.05
    i, _ = result.indices
    j0 = np.searchsorted(result.bandwidths, result.bandwidths[i] + 0.05, side="right") - 1
    assert result.indices[1] >= j0


def test_scorer_in_cross_validate_and_grid_search(simulation):
    from sklearn import config_context
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, KFold, cross_validate

    from skfair.metrics import get_fairness_scorer

    scores, groups, y = simulation
    X = np.column_stack([scores, np.random.default_rng(13).normal(size=scores.shape[0])])
    scorer = get_fairness_scorer("madd")
    folds = KFold(3, shuffle=True, random_state=0)
    with config_context(enable_metadata_routing=True):
        result = cross_validate(
            LogisticRegression(),
            X,
            y,
            cv=folds,
            scoring=scorer,
            params={"sensitive_features": groups},
        )
        search = GridSearchCV(
            LogisticRegression(), {"C": [0.1, 1.0]}, cv=folds, scoring=scorer
        ).fit(X, y, sensitive_features=groups)
    # the scorer is MADD (bandwidth="auto") of predict_proba[:, 1] on each test fold, negated
    train, test = next(folds.split(X))
    model = LogisticRegression().fit(X[train], y[train])
    expected = madd(None, model.predict_proba(X[test])[:, 1], sensitive_features=groups[test])
    assert result["test_score"][0] == pytest.approx(-expected, abs=1e-12)
    assert np.isfinite(search.best_score_) and search.best_score_ < 0


# --------------------------------------------------------------------------------------------
# Parameters that would allocate huge tables are refused before allocating


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"bins": 10**9}, "bins asks for"),
        ({"bandwidth": 1e-12}, "bandwidth asks for"),
        ({"bandwidths": 10**5}, "bandwidths asks for"),
        ({"bandwidths": np.linspace(1e-9, 1e-6, 50)}, "bandwidths asks for"),
    ],
)
def test_huge_tables_are_refused(kwargs, match):
    scores, groups = two_groups([0.1, 0.2, 0.3], [0.5, 0.6, 0.7])
    with pytest.raises(ValueError, match=match):
        madd(None, scores, sensitive_features=groups, **kwargs)


# --------------------------------------------------------------------------------------------
# sample_weight: integer weights equal repeated rows


@pytest.mark.parametrize("kwargs", [{"bins": 7}, {"bandwidth": 0.05}, {}])
def test_integer_weights_equal_repeated_rows(simulation, kwargs):
    y_score, group, _ = simulation
    rng = np.random.default_rng(0)
    keep = rng.permutation(y_score.size)[:3000]  # both groups
    y_score, group = y_score[keep], group[keep]
    assert np.unique(group).size == 2
    weights = rng.integers(0, 4, y_score.size)
    weighted = madd(None, y_score, sensitive_features=group, sample_weight=weights, **kwargs)
    repeated = madd(
        None,
        np.repeat(y_score, weights),
        sensitive_features=np.repeat(group, weights),
        **kwargs,
    )
    assert weighted == pytest.approx(repeated, rel=1e-12, abs=1e-15)


def test_weighted_histogram_oracle():
    rng = np.random.default_rng(1)
    scores = rng.uniform(size=400)
    groups = rng.integers(0, 2, 400)
    weights = rng.uniform(0.1, 5.0, 400)
    expected = 0.0
    hist = [
        np.histogram(scores[groups == g], bins=9, range=(0, 1), weights=weights[groups == g])[0]
        for g in (0, 1)
    ]
    expected = np.abs(hist[0] / hist[0].sum() - hist[1] / hist[1].sum()).sum()
    got = madd(None, scores, sensitive_features=groups, bins=9, sample_weight=weights)
    assert got == pytest.approx(expected, rel=1e-12)
    search = madd_bandwidth_search(
        None,
        scores,
        sensitive_features=groups,
        sample_weight=weights,
        bandwidths=100,
        min_points=5,
    )
    curve_at_9 = search.madd_curve[search.bins == 9][0]
    assert curve_at_9 == pytest.approx(expected, rel=1e-12)
    assert search.h_sup == pytest.approx(
        h_sup(weights[groups == 0].sum(), weights[groups == 1].sum()), rel=1e-15
    )


def test_bandwidth_search_over_many_groups_warns_of_its_cost():
    """Every pair of groups has its own search: above 20 groups the quadratic cost is announced
    (and the search still runs and returns the worst pair)."""
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(21), 300)
    scores = rng.beta(2, 3, groups.size)
    with pytest.warns(UserWarning, match="21 groups make 210 pairs"):
        result = madd_bandwidth_search(None, scores, sensitive_features=groups, bandwidths=100)
    assert len(result.pairs) == 210
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        madd_bandwidth_search(
            None, scores[groups < 20], sensitive_features=groups[groups < 20], bandwidths=100
        )


def test_verbose_announces_the_search(capsys):
    scores, groups, _ = make_madd_simulation(2000, random_state=0)
    quiet = madd_bandwidth_search(None, scores, sensitive_features=groups, bandwidths=200)
    assert capsys.readouterr().out == ""
    loud = madd_bandwidth_search(None, scores, sensitive_features=groups, bandwidths=200, verbose=1)
    assert "1 pair(s) of groups x 200 bandwidths (4000 scores)" in capsys.readouterr().out
    assert loud.interval == quiet.interval
    madd(None, scores, sensitive_features=groups, bandwidths=200, verbose=1)
    assert "MADD bandwidth search" in capsys.readouterr().out


def test_the_edge_lookup_is_built_in_bounded_memory():
    # Regression (memory of the audit): the first bandwidth search of a process built its
    # lookup of 2**22 cells with every cell's float boundary and intp positions at once,
    # about 100 MB for a lookup of 20 MB; it is now built a block of cells at a time, to the
    # same lookup as one plain search of all boundaries.
    import tracemalloc

    import skfair._stats._histograms as histograms

    edges = np.sort(histograms.stacked_edges(np.arange(1000, 0, -1))[0])
    histograms._EDGE_LOOKUPS.clear()
    tracemalloc.start()
    try:
        at_or_below, has_interior_edge = histograms._edge_lookup(edges)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    lookup_bytes = at_or_below.nbytes + has_interior_edge.nbytes
    assert peak < lookup_bytes + 8 * 2**20
    boundaries = np.arange(histograms._LOOKUP_CELLS + 2) / histograms._LOOKUP_CELLS
    expected = np.searchsorted(edges, boundaries, side="right")
    np.testing.assert_array_equal(at_or_below, expected)
    below_next = np.searchsorted(edges, boundaries[1:], side="left")
    np.testing.assert_array_equal(has_interior_edge, below_next > expected[:-1])
