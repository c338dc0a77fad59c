"""Tests of the distribution-level bias metrics against scipy and closed forms."""

import numpy as np
import pytest
from scipy.stats import ks_2samp, wasserstein_distance
from sklearn.exceptions import UndefinedMetricWarning

from skfair.metrics import classifier_bias, ks_bias, quantile_bias, wasserstein_bias

PARTS = ("total", "positive", "negative", "net")


def _two_groups(seed, n0=37, n1=55, ties=True, weighted=True):
    rng = np.random.default_rng(seed)
    s0 = rng.normal(0.0, 1.0, n0)
    s1 = rng.normal(0.3, 1.5, n1)
    if ties:
        s0, s1 = np.round(s0, 1), np.round(s1, 1)
    scores = np.concatenate([s0, s1])
    groups = np.array(["priv"] * n0 + ["prot"] * n1)
    weights = rng.uniform(0.1, 2.0, n0 + n1) if weighted else np.ones(n0 + n1)
    perm = rng.permutation(n0 + n1)
    return scores[perm], groups[perm], weights[perm]


def _parts(scores, groups, weights=None, **kwargs):
    return {
        part: wasserstein_bias(
            None, scores, sensitive_features=groups, part=part, sample_weight=weights, **kwargs
        )
        for part in PARTS
    }


def _classifier_integrals(scores, groups, weights, privileged, favorable="higher"):
    """Exact integrals of classifier_bias over thresholds: it is constant between pooled scores."""
    grid = np.unique(scores)
    gap = classifier_bias(
        None,
        scores,
        sensitive_features=groups,
        threshold=grid[:-1],
        privileged_group=privileged,
        favorable=favorable,
        sample_weight=weights,
    )
    step = np.diff(grid)
    return np.sum(gap * step), np.sum(np.maximum(gap, 0) * step), np.sum(np.maximum(-gap, 0) * step)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weighted", [False, True])
def test_total_equals_scipy_wasserstein(seed, weighted):
    scores, groups, weights = _two_groups(seed, weighted=weighted)
    priv = groups == "priv"
    expected = wasserstein_distance(scores[priv], scores[~priv], weights[priv], weights[~priv])
    got = wasserstein_bias(None, scores, sensitive_features=groups, sample_weight=weights)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("favorable", ["higher", "lower"])
def test_parts_add_up_and_net_is_mean_difference(seed, favorable):
    scores, groups, weights = _two_groups(seed)
    parts = _parts(scores, groups, weights, privileged_group="priv", favorable=favorable)
    assert parts["positive"] + parts["negative"] == pytest.approx(parts["total"], rel=1e-12)
    assert parts["positive"] - parts["negative"] == pytest.approx(parts["net"], abs=1e-12)
    priv = groups == "priv"
    sign = 1.0 if favorable == "higher" else -1.0
    mean_gap = np.average(scores[priv], weights=weights[priv]) - np.average(
        scores[~priv], weights=weights[~priv]
    )
    assert parts["net"] == pytest.approx(sign * mean_gap, abs=1e-12 * np.abs(scores).max())
    assert min(parts["positive"], parts["negative"]) > 0  # both parts present in these data


@pytest.mark.parametrize("seed", range(3))
def test_favorable_and_privileged_swaps_exchange_parts(seed):
    scores, groups, weights = _two_groups(seed)
    base = _parts(scores, groups, weights, privileged_group="priv")
    for swapped in (
        _parts(scores, groups, weights, privileged_group="priv", favorable="lower"),
        _parts(scores, groups, weights, privileged_group="prot"),
    ):
        assert swapped["positive"] == pytest.approx(base["negative"], rel=1e-12)
        assert swapped["negative"] == pytest.approx(base["positive"], rel=1e-12)
        assert swapped["net"] == pytest.approx(-base["net"], rel=1e-12)
        assert swapped["total"] == pytest.approx(base["total"], rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("favorable", ["higher", "lower"])
def test_theorem_3_2_integrated_classifier_bias(seed, favorable):
    scores, groups, weights = _two_groups(seed)
    parts = _parts(scores, groups, weights, privileged_group="priv", favorable=favorable)
    net, positive, negative = _classifier_integrals(scores, groups, weights, "priv", favorable)
    assert parts["net"] == pytest.approx(net, abs=1e-12)
    assert parts["positive"] == pytest.approx(positive, abs=1e-12)
    assert parts["negative"] == pytest.approx(negative, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_theorem_3_2_integrated_quantile_bias(seed):
    """positive == ∫ max(0, quantile_bias(p)) dp on the merged breakpoints (unweighted)."""
    scores, groups, _ = _two_groups(seed, n0=12, n1=18, weighted=False)
    n0, n1 = (groups == "priv").sum(), (groups == "prot").sum()
    # Breakpoints i/n0 and j/n1 on the common integer grid n0*n1.
    grid = np.unique(np.concatenate([np.arange(n0 + 1) * n1, np.arange(n1 + 1) * n0]))
    levels = grid / (n0 * n1)
    gap = quantile_bias(
        None, scores, sensitive_features=groups, p=levels[1:], privileged_group="priv"
    )
    width = np.diff(levels)
    parts = _parts(scores, groups, privileged_group="priv")
    assert parts["positive"] == pytest.approx(np.sum(np.maximum(gap, 0) * width), abs=1e-12)
    assert parts["negative"] == pytest.approx(np.sum(np.maximum(-gap, 0) * width), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_ks_against_scipy_and_classifier_bias(seed):
    scores, groups, _ = _two_groups(seed, weighted=False)  # heavy ties from rounding
    priv, prot = scores[groups == "priv"], scores[groups == "prot"]
    kwargs = dict(sensitive_features=groups, privileged_group="priv")
    assert ks_bias(None, scores, **kwargs) == pytest.approx(
        ks_2samp(priv, prot).statistic, abs=1e-15
    )
    # favorable="higher": positive = sup (F_1 - F_0); scipy "greater" of (prot, priv) is
    # sup (F_prot - F_priv).
    greater = ks_2samp(prot, priv, alternative="greater").statistic
    less = ks_2samp(prot, priv, alternative="less").statistic
    assert ks_bias(None, scores, part="positive", **kwargs) == pytest.approx(greater, abs=1e-15)
    assert ks_bias(None, scores, part="negative", **kwargs) == pytest.approx(less, abs=1e-15)
    gap = classifier_bias(None, scores, threshold=np.unique(scores), **kwargs)
    assert ks_bias(None, scores, **kwargs) == pytest.approx(np.abs(gap).max(), abs=1e-15)


def test_weighted_ks_equals_max_classifier_bias():
    scores, groups, weights = _two_groups(7)
    gap = classifier_bias(
        None,
        scores,
        sensitive_features=groups,
        threshold=np.unique(scores),
        sample_weight=weights,
        privileged_group="priv",
    )
    got = ks_bias(
        None,
        scores,
        sensitive_features=groups,
        sample_weight=weights,
        privileged_group="priv",
        part="negative",
    )
    assert got == pytest.approx(max(0.0, -gap.min()), abs=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_quantile_bias_matches_numpy_inverted_cdf(seed):
    scores, groups, _ = _two_groups(seed, n0=20, n1=40, weighted=False)
    # Exact breakpoints of both groups (1/4, 1/2, 3/4, 1) and generic levels.
    levels = np.array([0.05, 0.25, 0.333, 0.5, 0.75, 0.9, 1.0])
    got = quantile_bias(
        None,
        scores,
        sensitive_features=groups,
        p=levels,
        privileged_group="priv",
        favorable="lower",
    )
    expected = -(
        np.quantile(scores[groups == "priv"], levels, method="inverted_cdf")
        - np.quantile(scores[groups == "prot"], levels, method="inverted_cdf")
    )
    np.testing.assert_array_equal(got, expected)
    assert isinstance(quantile_bias(None, scores, sensitive_features=groups, p=0.5), float)


def test_classifier_bias_is_minus_statistical_parity_difference():
    """classifier_bias is minus the statistical parity difference, computed independently."""
    scores, groups, _ = _two_groups(3, weighted=False)
    for threshold in (-0.5, 0.0, 0.2, 1.1):
        selected = scores > threshold
        spd = selected[groups == "prot"].mean() - selected[groups == "priv"].mean()
        got = classifier_bias(
            None, scores, sensitive_features=groups, threshold=threshold, privileged_group="priv"
        )
        assert got == pytest.approx(-spd, abs=1e-15)


def test_location_shift_and_point_masses():
    rng = np.random.default_rng(0)
    s0 = rng.normal(size=50)
    delta = 0.37
    scores = np.concatenate([s0, s0 + delta])
    groups = np.repeat([0, 1], 50)
    parts = _parts(scores, groups, privileged_group=0)
    assert parts["total"] == pytest.approx(delta, rel=1e-12)
    assert parts["negative"] == pytest.approx(delta, rel=1e-12)
    assert parts["positive"] == 0.0
    lower = _parts(scores, groups, privileged_group=0, favorable="lower")
    assert lower["positive"] == pytest.approx(delta, rel=1e-12) and lower["negative"] == 0.0
    # W1(δ_x, δ_{x+ε}) = ε while KS jumps to 1 (property P1).
    points = np.array([0.5, 0.5 + 1e-6])
    assert wasserstein_bias(None, points, sensitive_features=[0, 1]) == pytest.approx(1e-6)
    assert ks_bias(None, points, sensitive_features=[0, 1]) == 1.0


def test_affine_equivariance_and_monotone_maps():
    scores, groups, weights = _two_groups(2)
    base = _parts(scores, groups, weights, privileged_group="priv")
    scaled = _parts(2.5 * scores + 7.0, groups, weights, privileged_group="priv")
    flipped = _parts(-2.0 * scores, groups, weights, privileged_group="priv")
    for part in PARTS:
        assert scaled[part] == pytest.approx(2.5 * base[part], rel=1e-10)
    assert flipped["positive"] == pytest.approx(2.0 * base["negative"], rel=1e-12)
    assert flipped["negative"] == pytest.approx(2.0 * base["positive"], rel=1e-12)
    # An increasing non-affine map keeps KS but changes W1 (property P2).
    kwargs = dict(sensitive_features=groups, sample_weight=weights)
    assert ks_bias(None, np.exp(scores), **kwargs) == pytest.approx(ks_bias(None, scores, **kwargs))
    assert abs(wasserstein_bias(None, np.exp(scores), **kwargs) - base["total"]) > 0.05


def test_invariances():
    scores, groups, _ = _two_groups(4, weighted=False)
    base = _parts(scores, groups, privileged_group="priv")
    rng = np.random.default_rng(1)
    perm = rng.permutation(len(scores))
    shuffled = _parts(scores[perm], groups[perm], privileged_group="priv")
    # Replicating one group 3x leaves the parts unchanged: ECDFs are normalised per group.
    prot = groups == "prot"
    replicated = _parts(
        np.concatenate([scores, scores[prot], scores[prot]]),
        np.concatenate([groups, groups[prot], groups[prot]]),
        privileged_group="priv",
    )
    # Integer weights equal repeated rows.
    counts = rng.integers(1, 4, len(scores))
    repeated = _parts(np.repeat(scores, counts), np.repeat(groups, counts), privileged_group="priv")
    weighted = _parts(scores, groups, counts.astype(float), privileged_group="priv")
    for part in PARTS:
        assert shuffled[part] == pytest.approx(base[part], abs=1e-14)
        assert replicated[part] == pytest.approx(base[part], abs=1e-14)
        assert weighted[part] == pytest.approx(repeated[part], abs=1e-14)


def _three_groups(seed=0, n=300):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    shift = {"a": 0.0, "b": 0.4, "c": -0.3}
    scores = rng.normal(size=n) + np.array([shift[g] for g in groups])
    return scores, groups


def test_multi_group_with_privileged_group_pools_the_others_by_default():
    scores, groups = _three_groups()
    pooled = np.where(groups == "a", "a", "rest")
    for part in PARTS:
        kwargs = dict(privileged_group="a", part=part)
        assert wasserstein_bias(None, scores, sensitive_features=groups, **kwargs) == pytest.approx(
            wasserstein_bias(None, scores, sensitive_features=pooled, **kwargs), rel=1e-12
        )
    for metric in (ks_bias, quantile_bias, classifier_bias):
        assert metric(None, scores, sensitive_features=groups, privileged_group="a") == (
            pytest.approx(
                metric(None, scores, sensitive_features=pooled, privileged_group="a"), rel=1e-12
            )
        )


def test_multi_group_each_disadvantaged_matches_pairwise_calls():
    scores, groups = _three_groups()
    for part in PARTS:
        pairwise = []
        for other in ("b", "c"):
            keep = np.isin(groups, ["a", other])
            pairwise.append(
                wasserstein_bias(
                    None,
                    scores[keep],
                    sensitive_features=groups[keep],
                    privileged_group="a",
                    part=part,
                )
            )
        pairwise = np.array(pairwise)
        kwargs = dict(
            sensitive_features=groups, privileged_group="a", part=part, disadvantaged="each"
        )
        assert wasserstein_bias(None, scores, **kwargs) == pytest.approx(
            pairwise[np.argmax(np.abs(pairwise))], rel=1e-12
        )
        assert wasserstein_bias(None, scores, agg="mean", **kwargs) == pytest.approx(
            pairwise.mean(), rel=1e-12
        )
        sizes = np.array([np.isin(groups, ["a", o]).sum() for o in ("b", "c")])
        assert wasserstein_bias(None, scores, agg="weighted", **kwargs) == pytest.approx(
            np.average(pairwise, weights=sizes), rel=1e-12
        )
    # The identities hold for "mean".
    mean = _parts(scores, groups, privileged_group="a", agg="mean", disadvantaged="each")
    assert mean["positive"] + mean["negative"] == pytest.approx(mean["total"], rel=1e-12)
    assert mean["positive"] - mean["negative"] == pytest.approx(mean["net"], rel=1e-12)


def test_multi_group_without_privileged_group_is_unsigned_and_label_invariant():
    scores, groups = _three_groups(1)
    parts = _parts(scores, groups)
    relabelled = _parts(scores, np.char.add("z", groups))
    rename = {"a": "c", "b": "a", "c": "b"}
    permuted = _parts(scores, np.array([rename[g] for g in groups]))
    for part in PARTS:
        assert relabelled[part] == pytest.approx(parts[part], rel=1e-12)
        assert permuted[part] == pytest.approx(parts[part], rel=1e-12)
    assert parts["net"] >= 0
    for agg in ("mean", "weighted"):
        agg_parts = _parts(scores, groups, agg=agg)
        assert agg_parts["positive"] >= agg_parts["negative"]
    # The worst pair is b vs c, with c shifted down by 0.7.
    keep = groups != "a"
    assert parts["total"] == pytest.approx(
        wasserstein_distance(scores[keep & (groups == "b")], scores[keep & (groups == "c")]),
        rel=1e-12,
    )


def test_condition_on_y_matches_per_class_calls():
    rng = np.random.default_rng(3)
    n = 400
    groups = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    scores = rng.normal(size=n) + 0.5 * y + 0.2 * groups
    per_class = np.array(
        [
            wasserstein_bias(
                None,
                scores[y == c],
                sensitive_features=groups[y == c],
                privileged_group=0,
                part="net",
            )
            for c in (0, 1)
        ]
    )
    kwargs = dict(sensitive_features=groups, privileged_group=0, part="net", condition_on_y=True)
    assert wasserstein_bias(y, scores, **kwargs) == pytest.approx(
        per_class[np.argmax(np.abs(per_class))], rel=1e-12
    )
    assert wasserstein_bias(y, scores, agg="mean", **kwargs) == pytest.approx(
        per_class.mean(), rel=1e-12
    )
    # An empty cell warns and is skipped.
    y_empty = y.copy()
    y_empty[(groups == 1) & (y == 1)] = 0
    y_empty[(groups == 0) & (y == 1)] = 2
    with pytest.warns(UserWarning, match="no rows"):
        got = wasserstein_bias(y_empty, scores, **kwargs)
    keep = y_empty == 0
    assert got == pytest.approx(
        wasserstein_bias(
            None, scores[keep], part="net", sensitive_features=groups[keep], privileged_group=0
        ),
        rel=1e-12,
    )
    with pytest.raises(ValueError, match="class labels"):
        wasserstein_bias(scores, scores, sensitive_features=groups, condition_on_y=True)
    with pytest.raises(ValueError, match="needs y_true"):
        wasserstein_bias(None, scores, sensitive_features=groups, condition_on_y=True)


def test_intersectional_groups():
    scores = np.array([0.1, 0.2, 0.3, 0.9, 0.5, 0.6])
    sensitive = {"sex": ["F", "F", "M", "M", "F", "M"], "race": ["x", "x", "y", "y", "y", "x"]}
    got = wasserstein_bias(
        None,
        scores,
        sensitive_features=sensitive,
        privileged_group=("M", "y"),
        part="net",
        agg="mean",
        disadvantaged="each",
    )
    # Groups: (F,x) [0.1,0.2], (F,y) [0.5], (M,x) [0.6], (M,y) [0.3,0.9] mean 0.6.
    expected = np.mean([0.6 - 0.15, 0.6 - 0.5, 0.6 - 0.6])
    assert got == pytest.approx(expected, rel=1e-12)
    # Pooled (the default): the others [0.1, 0.2, 0.5, 0.6] have mean 0.35.
    pooled = wasserstein_bias(
        None, scores, sensitive_features=sensitive, privileged_group=("M", "y"), part="net"
    )
    assert pooled == pytest.approx(0.6 - 0.35, rel=1e-12)


def test_edge_cases():
    scores = np.array([0.1, 0.4, 0.2, 0.8])
    assert wasserstein_bias(None, scores, sensitive_features=["a"] * 4) == 0.0
    assert ks_bias(None, scores, sensitive_features=["a"] * 4) == 0.0
    np.testing.assert_array_equal(
        classifier_bias(None, scores, sensitive_features=["a"] * 4, threshold=[0.1, 0.5]),
        [0.0, 0.0],
    )
    assert wasserstein_bias(None, np.full(4, 0.3), sensitive_features=[0, 0, 1, 1]) == 0.0
    # A group with a single row.
    assert wasserstein_bias(None, scores, sensitive_features=[0, 0, 0, 1]) == pytest.approx(
        wasserstein_distance(scores[:3], scores[3:]), rel=1e-12
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: wasserstein_bias(None, [0.1, np.nan], sensitive_features=[0, 1]), "NaN"),
        (lambda: wasserstein_bias(None, [0.1, 0.2], sensitive_features=[0, 1, 1]), "samples"),
        (
            lambda: wasserstein_bias(None, [0.1, 0.2], sensitive_features=np.array([0.0, np.nan])),
            "missing",
        ),
        (
            lambda: wasserstein_bias(
                None, [0.1, 0.2], sensitive_features=[0, 1], privileged_group=5
            ),
            "privileged_group",
        ),
        (lambda: wasserstein_bias(None, np.ones((2, 2)), sensitive_features=[0, 1]), "1-D"),
        (lambda: wasserstein_bias(None, [0.1, 0.2], sensitive_features=[0, 1], part="all"), "part"),
        (
            lambda: wasserstein_bias(None, [0.1, 0.2], sensitive_features=[0, 1], favorable="up"),
            "favorable",
        ),
        (
            lambda: wasserstein_bias(
                None, [0.1, 0.2], sensitive_features=[0, 1], sample_weight=[1.0, -1.0]
            ),
            "negative",
        ),
        (
            lambda: wasserstein_bias(
                None, [0.1, 0.2], sensitive_features=[0, 1], sample_weight=[1.0, 0.0]
            ),
            "zero total",
        ),
        (lambda: ks_bias(None, [0.1, 0.2], sensitive_features=[0, 1], part="net"), "no 'net'"),
        (lambda: quantile_bias(None, [0.1, 0.2], sensitive_features=[0, 1], p=0.0), "p"),
        (
            lambda: quantile_bias(None, [0.1, 0.2], sensitive_features=[0, 1], p=[0.5, 0.0]),
            r"\(0, 1\]",
        ),
    ],
)
def test_bad_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------------------------
# Many groups: the worst pair found by bounds equals the brute-force maximum over all pairs


def _many_groups(seed, n_groups, weighted):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, 40 * n_groups)
    shift = rng.normal(0.0, 0.3, n_groups)
    scores = np.round(rng.normal(shift[groups], rng.uniform(0.5, 2.0, n_groups)[groups]), 2)
    weights = rng.uniform(0.1, 3.0, groups.size) if weighted else None
    return scores, groups, weights


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("metric", [wasserstein_bias, ks_bias])
def test_worst_pair_of_many_groups_equals_brute_force(seed, weighted, metric):
    scores, groups, weights = _many_groups(seed, 12, weighted)
    labels = np.unique(groups)
    for part in ("total", "positive", "negative") + (
        ("net",) if metric is wasserstein_bias else ()
    ):
        brute = max(
            metric(
                None,
                scores[np.isin(groups, [a, b])],
                sensitive_features=groups[np.isin(groups, [a, b])],
                part=part,
                sample_weight=None if weights is None else weights[np.isin(groups, [a, b])],
            )
            for i, a in enumerate(labels)
            for b in labels[i + 1 :]
        )
        got = metric(None, scores, sensitive_features=groups, part=part, sample_weight=weights)
        assert got == pytest.approx(brute, rel=1e-12, abs=1e-15)


def test_w1_of_every_pair_matches_scipy_with_many_groups():
    scores, groups, weights = _many_groups(7, 9, weighted=True)
    labels = np.unique(groups)
    expected = np.mean(
        [
            wasserstein_distance(
                scores[groups == a], scores[groups == b], weights[groups == a], weights[groups == b]
            )
            for i, a in enumerate(labels)
            for b in labels[i + 1 :]
        ]
    )
    got = wasserstein_bias(
        None, scores, sensitive_features=groups, sample_weight=weights, agg="mean"
    )
    assert got == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------------------------
# Extreme magnitudes and single groups


@pytest.mark.parametrize("magnitude", [1e200, 1e307, 1.7e308])
def test_w1_at_extreme_magnitudes_scales_exactly(magnitude):
    scores, groups, weights = _two_groups(0)
    scores = scores / np.abs(scores).max()  # in [-1, 1], so scores * magnitude is finite
    unit = wasserstein_bias(
        None, scores, sensitive_features=groups, part="net", sample_weight=weights
    )
    big = wasserstein_bias(
        None, scores * magnitude, sensitive_features=groups, part="net", sample_weight=weights
    )
    assert np.isfinite(big)
    assert big == pytest.approx(unit * magnitude, rel=1e-12)
    for part in ("total", "positive", "negative"):
        assert wasserstein_bias(
            None, scores * magnitude, sensitive_features=groups, part=part
        ) == pytest.approx(
            wasserstein_bias(None, scores, sensitive_features=groups, part=part) * magnitude,
            rel=1e-12,
        )


def test_w1_beyond_float64_range_raises():
    scores = np.array([-1.7e308, -1.6e308, 1.7e308, 1.6e308])
    with pytest.raises(ValueError, match="largest float64"):
        wasserstein_bias(None, scores, sensitive_features=[0, 0, 1, 1])
    with pytest.raises(ValueError, match="largest float64"):
        quantile_bias(None, scores, sensitive_features=[0, 0, 1, 1])


def test_huge_weights_give_the_unweighted_value():
    scores, groups, _ = _two_groups(3)
    weights = np.full(scores.size, 1e308)
    for metric in (wasserstein_bias, ks_bias, quantile_bias, classifier_bias):
        expected = metric(None, scores, sensitive_features=groups)
        got = metric(None, scores, sensitive_features=groups, sample_weight=weights)
        assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("metric", [wasserstein_bias, ks_bias, quantile_bias, classifier_bias])
def test_single_group_warns_undefined_metric(metric):
    from sklearn.exceptions import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning, match="Only one group"):
        assert metric(None, [0.1, 0.5, 0.3], sensitive_features=["a"] * 3) == 0.0


@pytest.mark.parametrize("metric", [wasserstein_bias, ks_bias])
def test_no_class_with_two_groups_is_the_single_group_rule(metric):
    """Regression: every class of y_true holding one group ended in a reshape error."""
    y_true = np.array([0, 1, 1, 1])
    y_score = np.array([0.1, 0.2, 0.3, 0.4])
    groups = np.array(["a", "b", "b", "b"])
    with pytest.warns(UndefinedMetricWarning, match="No class of y_true holds two"):
        value = metric(y_true, y_score, sensitive_features=groups, condition_on_y=True)
    assert value == 0.0
