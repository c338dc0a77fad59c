"""Property tests of BarycenterRepair, including the defects of equipy (the reference
implementation of Chzhen et al. 2020) that it fixes. KS is computed by scipy on the floats;
barycenters by an independent
quantile-grid oracle; no expected value comes from the code under test."""

import pickle
import tracemalloc

import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair._transport import _barycenter as barycenter_module
from skfair.postprocessing import BarycenterRepair

pytestmark = pytest.mark.filterwarnings(
    "ignore:Groups .* have fewer than 10 calibration rows:UserWarning"
)


# --------------------------------------------------------------------------------------------
# simulated data and independent oracles


def simulated_scores(n, seed):
    """Scores of two attributes: A1 ~ B(0.4), A2 | A1 categorical, s = sigmoid(z)."""
    rng = np.random.default_rng(seed)
    a1 = (rng.random(n) < 0.4).astype(int)
    u = rng.random(n)
    a2 = np.where(
        a1 == 1,
        np.searchsorted([0.40, 0.70], u, side="right"),
        np.searchsorted([0.55, 0.85], u, side="right"),
    )
    z = rng.normal(size=n) + 0.8 * a1 - 0.5 * (a2 == 1) + 0.6 * (a2 == 2)
    return 1 / (1 + np.exp(-z)), a1, a2


def pairwise_ks(values, codes, *, strict=True):
    """Largest KS between two groups; asserts KS < 1/min(n_a, n_b) for every pair, or with
    ``strict=False`` the project bound KS <= 1/n_min + 1/n_max."""
    labels = np.unique(codes)
    worst = 0.0
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            x, y = values[codes == a], values[codes == b]
            ks = ks_2samp(x, y).statistic
            worst = max(worst, ks)
            n_small, n_large = sorted((len(x), len(y)))
            bound = 1 / n_small if strict else 1 / n_small + 1 / n_large
            assert ks < bound if strict else ks <= bound, (a, b, ks, bound)
    return worst


def w2_dispersion_oracle(values, codes, grid=20_000):
    """Σ_a p_a W2²(ν_a, ν̄) by averaging step quantiles on a fine grid of levels."""
    u = (np.arange(grid) + 0.5) / grid
    labels, counts = np.unique(codes, return_counts=True)
    p = counts / counts.sum()
    quantiles = np.array(
        [np.quantile(values[codes == a], u, method="inverted_cdf") for a in labels]
    )
    center = p @ quantiles
    return float(p @ ((quantiles - center) ** 2).mean(axis=1))


def repair(S, s, **params):
    params.setdefault("random_state", 0)
    return BarycenterRepair(**params).fit_transform(
        np.asarray(S, float).reshape(len(s), -1), sensitive_features=s
    )


# --------------------------------------------------------------------------------------------
# exactness and fairness


@pytest.mark.parametrize("kind", ["continuous", "three_values", "hundred_values"])
def test_in_sample_ks_below_one_atom(kind):
    rng = np.random.default_rng(1)
    codes = rng.choice(3, size=3000, p=[0.5, 0.3, 0.2])
    y = rng.normal(codes * 0.7, 1)
    if kind == "three_values":
        y = np.digitize(y, [0, 1]).astype(float)
    elif kind == "hundred_values":
        y = np.round(1 / (1 + np.exp(-y)), 2)
    out = repair(y, codes)[:, 0]
    counts = np.bincount(codes)
    ks = pairwise_ks(out, codes)  # asserts < 1/min(n_a, n_b) for every pair
    assert ks <= 1 / counts.min() + 1 / counts.max()
    assert max_ks(y, codes) > 0.2  # the data were unfair


@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 40), min_size=2, max_size=4),
    n_values=st.sampled_from([2, 3, 7, 0]),
    seed=st.integers(0, 2**16),
)
def test_in_sample_ks_any_group_sizes(sizes, n_values, seed):
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.normal(codes, 1) if n_values == 0 else rng.integers(0, n_values, codes.size) + codes
    out = repair(y, codes, random_state=seed)[:, 0]
    pairwise_ks(out, codes)


def test_out_of_sample_ks_bound():
    s, a1, _ = simulated_scores(20_000, 1)
    s_test, a1_test, _ = simulated_scores(20_000, 2)
    fitted = BarycenterRepair(random_state=0).fit(s[:, None], sensitive_features=a1)
    out = fitted.transform(s_test[:, None], sensitive_features=a1_test)[:, 0]
    n0, n1 = np.bincount(a1_test)
    bound = 1.5 * np.sqrt(np.log(2 * 2 / 1e-3) * (1 / n0 + 1 / n1))
    assert ks_2samp(out[a1_test == 0], out[a1_test == 1]).statistic <= bound


def test_binned_dp_bounded_by_twice_ks():
    s, a1, a2 = simulated_scores(6000, 3)
    codes = a1 * 3 + a2
    out = repair(s, codes)[:, 0]
    ks = pairwise_ks(out, codes)
    for k in range(2, 21):
        cutoffs = np.quantile(s, np.linspace(0, 1, k + 1))
        classes = np.searchsorted(cutoffs[1:k], out, side="left")
        overall = np.bincount(classes, minlength=k) / out.size
        for g in np.unique(codes):
            in_group = np.bincount(classes[codes == g], minlength=k) / (codes == g).sum()
            assert np.abs(in_group - overall).max() <= 2 * ks + 1e-12


# --------------------------------------------------------------------------------------------
# two attributes


def test_two_attributes_joint_exact_and_order_invariant():
    s, a1, a2 = simulated_scores(8000, 4)
    both = np.c_[a1, a2]
    out = repair(s, both)[:, 0]
    cell = a1 * 3 + a2
    pairwise_ks(out, cell)
    scale = np.ptp(s)
    joint = repair(s, cell)[:, 0]
    np.testing.assert_allclose(out, joint, rtol=0, atol=1e-12 * scale)
    swapped = repair(s, both[:, ::-1])[:, 0]
    np.testing.assert_allclose(out, swapped, rtol=0, atol=1e-12 * scale)
    chain = BarycenterRepair([1e-9, 1e-9], random_state=0)
    chained = chain.fit_transform(s[:, None], sensitive_features=both)[:, 0]
    assert chain.sequential_
    n_min = np.bincount(cell).min()
    assert abs(max_ks(chained, cell) - max_ks(out, cell)) <= 2 / n_min
    assert np.abs(chained - out).mean() <= 1e-3 * scale


def max_ks(values, codes):
    labels = np.unique(codes)
    return max(
        ks_2samp(values[codes == a], values[codes == b]).statistic
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
    )


# --------------------------------------------------------------------------------------------
# identity, range, partial repair


@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0])
def test_identity_on_fair_data(epsilon):
    # equipy's type-1 ECDF with a type-7 quantile moves N(0, 1) tails by up to 0.66.
    values = np.random.default_rng(5).normal(size=500)
    y = np.concatenate([values, values[::-1], np.roll(values, 7)])
    codes = np.repeat([0, 1, 2], 500)
    tolerance = 1e-9 * np.ptp(y)
    out = repair(y, codes, epsilon=epsilon)[:, 0]
    np.testing.assert_allclose(out, y, rtol=0, atol=tolerance)
    fitted = BarycenterRepair(epsilon, random_state=0).fit(y[:, None], sensitive_features=codes)
    again = fitted.transform(y[:, None], sensitive_features=codes)[:, 0]
    np.testing.assert_allclose(again, y, rtol=0, atol=tolerance)


def test_outputs_stay_in_calibration_range():
    rng = np.random.default_rng(6)
    sizes = rng.integers(1, 80, size=25)
    codes = np.repeat(np.arange(25), sizes)
    y = np.clip(rng.beta(0.3, 0.3, codes.size) + 0.02 * codes - 0.2, 0, 1)
    y[:2] = [0.0, 1.0]
    fitted = BarycenterRepair(random_state=0)
    out = fitted.fit_transform(y[:, None], sensitive_features=codes)
    assert out.min() >= y.min() and out.max() <= y.max()
    queries = rng.uniform(-0.5, 1.5, codes.size)
    new = fitted.transform(queries[:, None], sensitive_features=codes)
    assert new.min() >= 0.0 and new.max() <= 1.0


@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.float32, np.float64])
def test_epsilon_one_is_bitwise_identity(dtype):
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 3, 300)
    y = (rng.integers(0, 10, 300) + codes).astype(dtype)
    for method in ("fit_transform", "transform"):
        fitted = BarycenterRepair(1.0, random_state=0)
        out = (
            fitted.fit_transform(y[:, None], sensitive_features=codes)
            if method == "fit_transform"
            else fitted.fit(y[:, None], sensitive_features=codes).transform(
                y[:, None], sensitive_features=codes
            )
        )
        assert out.dtype == np.float64
        assert np.array_equal(out[:, 0], y.astype(np.float64))


@pytest.mark.parametrize("mode", ["geometric", "random"])
def test_epsilon_zero_is_the_full_repair_bit_for_bit(mode):
    s, a1, _ = simulated_scores(2000, 7)
    full = repair(s, a1)
    assert np.array_equal(repair(s, a1, epsilon=0.0, mode=mode), full)
    # the full repair of discrete scores: equal barycenter values, never y + (fair - y)
    discrete = np.round(s, 1)
    out = repair(discrete, a1)[:, 0]
    pairwise_ks(out, a1)


def test_geodesic_algebra():
    s, a1, _ = simulated_scores(5000, 8)
    full = repair(s, a1)[:, 0]
    for epsilon in (0.25, 0.5, 0.75):
        partial = repair(s, a1, epsilon=epsilon)[:, 0]
        np.testing.assert_allclose(partial - s, (1 - epsilon) * (full - s), rtol=0, atol=1e-12)
        np.testing.assert_allclose(
            np.mean((partial - s) ** 2), (1 - epsilon) ** 2 * np.mean((full - s) ** 2), rtol=1e-9
        )
        # W2(ν_a^ε, ν̄) = ε W2(ν_a, ν̄): the dispersion scales as ε².
        np.testing.assert_allclose(
            w2_dispersion_oracle(partial, a1), epsilon**2 * w2_dispersion_oracle(s, a1), rtol=0.02
        )


def test_random_mode():
    s, a1, _ = simulated_scores(20_000, 9)
    epsilon = 0.4
    full = repair(s, a1)[:, 0]
    out = repair(s, a1, epsilon=epsilon, mode="random")[:, 0]
    changed = out != s
    n = s.size
    assert abs(changed.mean() - (1 - epsilon)) <= 4 * np.sqrt(epsilon * (1 - epsilon) / n)
    # unchanged rows are bit-identical to y, changed rows to the full repair
    assert np.array_equal(out[~changed], s[~changed])
    assert np.array_equal(out[changed], full[changed])
    # group CDF gaps to the overall law shrink to ε times the original gaps
    n_min = np.bincount(a1).min()
    for t in np.quantile(s, [0.2, 0.4, 0.6, 0.8]):
        for g in (0, 1):
            before = (s[a1 == g] <= t).mean() - (s <= t).mean()
            after = (out[a1 == g] <= t).mean() - (out <= t).mean()
            assert abs(after - epsilon * before) <= 3 * 2 * np.sqrt(0.25 / n_min)


# --------------------------------------------------------------------------------------------
# per-attribute epsilon, dispersion


@pytest.mark.parametrize(
    ("epsilon_first", "reference"), [(0.5, 0.0088), (0.75, 0.0075), (1.0, 0.0067)]
)
def test_sequential_last_attribute_exact(epsilon_first, reference):
    # equipy fits the chain on ε = 0 outputs: KS_A2 0.0092 / 0.0163 / 0.0231 where the
    # ε-aware fit reaches 0.0088 / 0.0075 / 0.0067 (fitting each step on the partially
    # repaired outputs of the step before).
    s, a1, a2 = simulated_scores(100_000, 1)
    s_test, b1, b2 = simulated_scores(100_000, 2)
    fitted = BarycenterRepair([epsilon_first, 0.0], random_state=0)
    in_sample = fitted.fit_transform(s[:, None], sensitive_features=np.c_[a1, a2])[:, 0]
    pairwise_ks(in_sample, a2)
    out = fitted.transform(s_test[:, None], sensitive_features=np.c_[b1, b2])[:, 0]
    assert max_ks(out, b2) <= reference + 0.002


def test_sequential_first_attribute_exact_within_strata():
    s, a1, a2 = simulated_scores(6000, 10)
    out = repair(s, np.c_[a1, a2], epsilon=[0.0, 0.6])[:, 0]
    for stratum in range(3):
        # The later step ranks ties between A1 groups at random, so the sharper
        # 1/min(n_a, n_b) is not guaranteed here, only the project bound.
        rows = a2 == stratum
        pairwise_ks(out[rows], a1[rows], strict=False)


@pytest.mark.parametrize("epsilon", [[0.5], [0.1, 0.2, 0.3], [True, 0.0], [0.5, 1.5], [-0.1, 0]])
def test_invalid_epsilon(epsilon):
    s, a1, a2 = simulated_scores(100, 0)
    with pytest.raises(ValueError, match="epsilon"):
        BarycenterRepair(epsilon).fit(s[:, None], sensitive_features=np.c_[a1, a2])
    with pytest.raises(ValueError, match="epsilon"):
        BarycenterRepair(epsilon=True).fit(s[:, None], sensitive_features=a1)


@pytest.mark.slow
def test_dispersion_scales_as_epsilon_squared():
    s, a1, _ = simulated_scores(100_000, 1)
    n_min = np.bincount(a1).min()
    scale = np.ptp(s) ** 2
    before = w2_dispersion_oracle(s, a1)
    for epsilon in (0.25, 0.5, 0.75):
        partial = repair(s, a1, epsilon=epsilon)[:, 0]
        assert abs(w2_dispersion_oracle(partial, a1) - epsilon**2 * before) <= 4 * scale / n_min
    fitted = BarycenterRepair(random_state=0)
    full = fitted.fit_transform(s[:, None], sensitive_features=a1)[:, 0]
    cost = np.mean((full - s) ** 2)
    assert abs(fitted.w2_dispersion_[0] - cost) <= 2 * scale / n_min
    # the reference value of this simulation
    assert fitted.w2_dispersion_[0] == pytest.approx(0.007875, rel=0.02)
    assert fitted.w2_dispersion_[0] == pytest.approx(before, rel=1e-3)


# --------------------------------------------------------------------------------------------
# ranking, determinism, batches, labels


@pytest.mark.parametrize("mode", ["geometric", "random"])
@pytest.mark.parametrize("epsilon", [0.0, 0.5])
def test_within_group_order_preserved(mode, epsilon):
    rng = np.random.default_rng(12)
    codes = rng.integers(0, 3, 2000)
    y = np.round(rng.normal(codes, 1), 2)
    fitted = BarycenterRepair(epsilon, mode=mode, random_state=0)
    in_sample = fitted.fit_transform(y[:, None], sensitive_features=codes)[:, 0]
    queries = rng.normal(codes, 1)
    out = fitted.transform(queries[:, None], sensitive_features=codes)[:, 0]
    for values, result in ((y, in_sample), (queries, out)):
        for g in range(3):
            v, r = values[codes == g], result[codes == g]
            if mode == "random":
                repaired = r != v
                for mask in (repaired, ~repaired):
                    order = np.argsort(v[mask], kind="stable")
                    strictly = np.diff(v[mask][order]) > 0
                    assert (np.diff(r[mask][order])[strictly] >= 0).all()
            else:
                order = np.argsort(v, kind="stable")
                strictly = np.diff(v[order]) > 0
                assert (np.diff(r[order])[strictly] >= 0).all()


def test_repeated_transform_is_deterministic():
    # equipy continues its RNG stream: two transform calls differ by up to 0.017.
    rng = np.random.default_rng(13)
    codes = rng.integers(0, 2, 1000)
    y = np.round(rng.normal(codes, 1), 1)[:, None]
    fitted = BarycenterRepair(random_state=3).fit(y, sensitive_features=codes)
    first = fitted.transform(y, sensitive_features=codes)
    assert np.array_equal(first, fitted.transform(y, sensitive_features=codes))
    refit = clone(fitted).fit(y, sensitive_features=codes)
    assert np.array_equal(first, refit.transform(y, sensitive_features=codes))
    restored = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(first, restored.transform(y, sensitive_features=codes))
    assert np.array_equal(
        fitted.fit_transform(y, sensitive_features=codes),
        clone(fitted).fit_transform(y, sensitive_features=codes),
    )
    # without ties, no random number is used at all
    continuous = rng.normal(codes, 1)[:, None]
    queries = rng.normal(codes, 1)[:, None]
    outputs = [
        BarycenterRepair(random_state=seed)
        .fit(continuous, sensitive_features=codes)
        .transform(queries, sensitive_features=codes)
        for seed in (0, 1, None)
    ]
    assert np.array_equal(outputs[0], outputs[1]) and np.array_equal(outputs[0], outputs[2])


def test_batch_independence():
    # equipy sums over the groups present in the batch: 0.473 becomes 0.226.
    rng = np.random.default_rng(14)
    codes = rng.integers(0, 3, 3000)
    fitted = BarycenterRepair(random_state=0).fit(
        rng.normal(codes, 1)[:, None], sensitive_features=codes
    )
    test_codes = rng.integers(0, 3, 400)
    queries = rng.normal(test_codes, 1)[:, None]
    full = fitted.transform(queries, sensitive_features=test_codes)
    halves = np.concatenate(
        [
            fitted.transform(queries[:150], sensitive_features=test_codes[:150]),
            fitted.transform(queries[150:], sensitive_features=test_codes[150:]),
        ]
    )
    assert np.array_equal(full, halves)
    one_group = test_codes == 2
    assert np.array_equal(
        fitted.transform(queries[one_group], sensitive_features=test_codes[one_group]),
        full[one_group],
    )
    for row in (0, 17, 399):
        single = fitted.transform(
            queries[row : row + 1], sensitive_features=test_codes[row : row + 1]
        )
        assert np.array_equal(single, full[row : row + 1])


def test_row_permutation_equivariance():
    rng = np.random.default_rng(15)
    codes = rng.integers(0, 3, 2000)
    y = rng.normal(codes, 1)[:, None]
    perm = rng.permutation(2000)
    out = repair(y, codes)
    np.testing.assert_allclose(repair(y[perm], codes[perm]), out[perm], rtol=0, atol=1e-12)
    fitted = BarycenterRepair().fit(y, sensitive_features=codes)
    permuted = BarycenterRepair().fit(y[perm], sensitive_features=codes[perm])
    queries = rng.normal(codes, 1)[:, None]
    np.testing.assert_allclose(
        permuted.transform(queries[perm], sensitive_features=codes[perm]),
        fitted.transform(queries, sensitive_features=codes)[perm],
        rtol=0,
        atol=1e-12,
    )


def test_relabelling_invariance_and_label_collisions():
    # equipy concatenates labels: (1, 11) and (11, 1) collide, KS 0.907 instead of 0.008.
    import pandas as pd
    rng = np.random.default_rng(16)
    n = 4000
    a, b, c = rng.integers(0, 2, n), rng.choice([1, 11], n), rng.choice([1, 11], n)
    y = rng.normal(0, 0.1, n) + 0.3 * ((a == 1) & (b == 1)) - 0.3 * ((a == 1) & (b == 11))
    y = y + 0.2 * (c == 11)
    reference = repair(y, np.c_[a, b, c])[:, 0]
    cells = a * 4 + (b == 11) * 2 + (c == 11)
    pairwise_ks(reference, cells)
    scale = np.ptp(y)
    relabelled = {
        "strings": np.c_[np.where(a == 1, "x", "y"), np.where(b == 1, "p", "q"), c.astype(str)],
        "shifted_ints": np.c_[a + 111, b * 10, c - 1],
        "frame": pd.DataFrame(
            {
                "a": pd.Categorical(np.where(a == 1, "yes", "no")),
                "b": b.astype(bool) & (b == 11),
                "c": np.where(c == 1, "one", "eleven"),
            }
        ),
    }
    for name, labels in relabelled.items():
        out = repair(y, labels)[:, 0]
        # relabelling can reverse the order of groups, which only reorders float sums
        np.testing.assert_allclose(out, reference, rtol=0, atol=1e-12 * scale, err_msg=name)


# --------------------------------------------------------------------------------------------
# validation


def test_unseen_group_raises_naming_it():
    rng = np.random.default_rng(17)
    a, b = rng.integers(0, 2, 300), rng.integers(0, 3, 300)
    y = rng.normal(size=(300, 1))
    fitted = BarycenterRepair().fit(y, sensitive_features=a)
    with pytest.raises(ValueError, match="Group 7 of sensitive feature 'sensitive_features'"):
        fitted.transform(y[:3], sensitive_features=[0, 7, 1])
    two = BarycenterRepair().fit(y[a + b > 0], sensitive_features=np.c_[a, b][a + b > 0])
    with pytest.raises(ValueError, match=r"Group \(0, 0\)"):
        two.transform(y[:2], sensitive_features=np.array([[0, 0], [1, 2]]))
    identity = BarycenterRepair(handle_unknown="identity").fit(y, sensitive_features=a)
    queries = np.array([[0.3], [0.4], [5.0]])
    with pytest.warns(UserWarning, match=r"1 row\(s\) belong to groups not seen at fit \[7\]"):
        out = identity.transform(queries, sensitive_features=[0, 7, 1])
    assert out[1, 0] == 0.4
    expected = identity.transform(queries[[0, 2]], sensitive_features=[0, 1])
    assert np.array_equal(out[[0, 2]], expected)


def test_tiny_and_constant_groups():
    y = np.array([[0.2], [0.5], [0.5], [0.5], [0.9], [0.1]])
    codes = np.array([0, 1, 1, 1, 2, 2])  # group 1 constant, group 0 a single row
    with pytest.warns(UserWarning, match="fewer than 10 calibration rows"):
        fitted = BarycenterRepair(random_state=0).fit(y, sensitive_features=codes)
    out = fitted.transform(np.array([[-1.0], [0.5], [3.0]]), sensitive_features=[0, 1, 2])
    assert (out >= 0.1).all() and (out <= 0.9).all()
    in_sample = BarycenterRepair(random_state=0).fit_transform(y, sensitive_features=codes)
    assert (in_sample >= 0.1).all() and (in_sample <= 0.9).all()
    single = BarycenterRepair().fit([[0.3]], sensitive_features=["a"])
    assert single.transform([[0.7]], sensitive_features=["a"])[0, 0] == 0.3
    one_group = BarycenterRepair().fit_transform(y, sensitive_features=np.zeros(6))
    np.testing.assert_array_equal(one_group, y)


def test_nan_in_calibration_is_an_error():
    # equipy: one NaN in the calibration turns clean test rows into NaN.
    rng = np.random.default_rng(19)
    y = rng.normal(size=(400, 2))
    codes = rng.integers(0, 2, 400)
    y[5, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or inf: 1 value\\(s\\) in column 1"):
        BarycenterRepair().fit(y, sensitive_features=codes)
    y[5, 1] = 0.0
    fitted = BarycenterRepair().fit(y, sensitive_features=codes)
    queries = rng.normal(size=(4000, 2))
    assert np.isfinite(fitted.transform(queries, sensitive_features=rng.integers(0, 2, 4000))).all()
    queries[3, 0] = np.inf
    with pytest.raises(ValueError, match="column 0"):
        fitted.transform(queries, sensitive_features=rng.integers(0, 2, 4000))
    labels = codes.astype(object)
    labels[8] = None
    with pytest.raises(ValueError, match="'sensitive_features' has missing values"):
        BarycenterRepair().fit(y, sensitive_features=labels)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_, np.float32])
def test_integer_and_other_dtypes(dtype):
    # equipy crashes on integer scores (UFuncTypeError).
    rng = np.random.default_rng(20)
    codes = rng.integers(0, 2, 500)
    y = (rng.integers(0, 10, 500) + 3 * codes).astype(dtype)[:, None]
    out = BarycenterRepair(random_state=0).fit_transform(y, sensitive_features=codes)
    assert out.dtype == np.float64
    pairwise_ks(out[:, 0], codes)


def test_containers_and_names():
    import pandas as pd
    rng = np.random.default_rng(21)
    n = 300
    frame = pd.DataFrame({"score": rng.random(n)}, index=np.arange(n) + 1000)
    sensitive = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "age": rng.integers(0, 2, n)})
    fitted = (
        BarycenterRepair().set_output(transform="pandas").fit(frame, sensitive_features=sensitive)
    )
    out = fitted.transform(frame, sensitive_features=sensitive[["age", "sex"]])
    assert list(out.index) == list(frame.index) and list(out.columns) == ["score"]
    expected = fitted.transform(frame, sensitive_features=sensitive)
    pd.testing.assert_frame_equal(out, expected)
    as_dict = fitted.transform(
        frame, sensitive_features={"sex": sensitive.sex, "age": sensitive.age}
    )
    pd.testing.assert_frame_equal(as_dict, expected)
    as_list = BarycenterRepair().fit(
        frame["score"].to_frame().values.tolist(), sensitive_features=sensitive["sex"].tolist()
    )
    assert as_list.transform([[0.5]], sensitive_features=["F"]).dtype == np.float64


def test_shape_errors():
    y = np.random.default_rng(0).random((20, 2))
    codes = np.arange(20) % 2
    with pytest.raises(ValueError, match="Reshape your data"):
        BarycenterRepair().fit(y[:, 0], sensitive_features=codes)
    with pytest.raises(ValueError, match="sensitive_features has 19 samples"):
        BarycenterRepair().fit(y, sensitive_features=codes[:19])
    with pytest.raises(ValueError, match="0 sample"):
        BarycenterRepair().fit(y[:0], sensitive_features=codes[:0])
    fitted = BarycenterRepair().fit(y, sensitive_features=codes)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(y[:, :1], sensitive_features=codes)
    with pytest.raises(ValueError, match="transform needs them"):
        fitted.transform(y)
    assert fitted.transform(y[:1], sensitive_features=codes[:1]).shape == (1, 2)


# --------------------------------------------------------------------------------------------
# scikit-learn contract, memory


@parametrize_with_checks([BarycenterRepair()])
@pytest.mark.filterwarnings("ignore:BarycenterRepair was fitted without sensitive features")
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_scikit_learn_contract():
    rng = np.random.default_rng(22)
    y = rng.normal(size=(200, 1))
    codes = rng.integers(0, 2, 200)
    repair_ = BarycenterRepair(0.3, random_state=1)
    assert clone(repair_).get_params() == repair_.get_params()
    with pytest.raises(NotFittedError):
        repair_.transform(y, sensitive_features=codes)
    kept = y.copy(), codes.copy()
    assert repair_.fit(y, sensitive_features=codes) is repair_
    assert np.array_equal(kept[0], y) and np.array_equal(kept[1], codes)
    assert repair_.n_groups_ == 2 and repair_.group_counts_.sum() == 200
    assert repair_._get_doc_link() == ""  # no online API reference to link to
    with pytest.warns(UserWarning, match="fitted without sensitive features"):
        identity = BarycenterRepair().fit_transform(y)
    assert np.array_equal(identity, y)


def test_integer_weights_equal_replication():
    rng = np.random.default_rng(23)
    y = rng.normal(size=(300, 1))
    codes = rng.integers(0, 3, 300)
    weights = rng.integers(0, 4, 300)
    weighted = BarycenterRepair().fit(y, sensitive_features=codes, sample_weight=weights)
    repeated = BarycenterRepair().fit(
        np.repeat(y, weights, axis=0), sensitive_features=np.repeat(codes, weights)
    )
    queries = rng.normal(size=(500, 1))
    query_codes = rng.integers(0, 3, 500)
    np.testing.assert_allclose(
        weighted.transform(queries, sensitive_features=query_codes),
        repeated.transform(queries, sensitive_features=query_codes),
        rtol=0,
        atol=1e-12,
    )
    np.testing.assert_allclose(weighted.w2_dispersion_, repeated.w2_dispersion_, rtol=1e-9)


def test_metadata_routing():
    rng = np.random.default_rng(24)
    y = rng.normal(size=(200, 1))
    codes = rng.integers(0, 2, 200)
    direct = BarycenterRepair(random_state=0).fit_transform(y, sensitive_features=codes)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = Pipeline([("repair", BarycenterRepair(random_state=0))])
        routed = pipe.fit_transform(y, sensitive_features=codes)
        assert np.array_equal(routed, direct)
        pipe.fit(y, sensitive_features=codes)
        assert np.array_equal(
            pipe.transform(y, sensitive_features=codes),
            BarycenterRepair(random_state=0)
            .fit(y, sensitive_features=codes)
            .transform(y, sensitive_features=codes),
        )


def test_memory_is_linear():
    n = 100_000
    s, a1, _ = simulated_scores(n, 1)
    S = s[:, None]
    tracemalloc.start()
    fitted = BarycenterRepair().fit(S, sensitive_features=a1)
    fitted.transform(S, sensitive_features=a1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20 * n * 8


@pytest.mark.parametrize("n_groups", [3, 40])
def test_per_cell_loop_and_vectorised_key_search_agree(n_groups, monkeypatch):
    # Up to FEW_CODES cells the values are searched cell by cell, beyond with integer keys;
    # forcing the other path on the same data must give the same output.
    rng = np.random.default_rng(25)
    codes = rng.integers(0, n_groups, 4000)
    y = np.round(rng.normal(codes / n_groups, 1), 1)[:, None]
    queries = np.round(rng.normal(size=(3000, 1)), 1)
    query_codes = rng.integers(0, n_groups, 3000)

    def run():
        fitted = BarycenterRepair(random_state=0)
        in_sample = fitted.fit_transform(y, sensitive_features=codes)
        return in_sample, fitted.transform(queries, sensitive_features=query_codes)

    default = run()
    monkeypatch.setattr(barycenter_module, "FEW_CODES", 1000 if n_groups > 16 else 1)
    forced = run()
    assert np.array_equal(default[0], forced[0]) and np.array_equal(default[1], forced[1])
    pairwise_ks(default[0][:, 0], codes)


def test_ties_none_and_jitter_modes():
    rng = np.random.default_rng(26)
    codes = rng.integers(0, 2, 2000)
    y = np.round(rng.normal(codes, 1), 1)[:, None]
    with pytest.warns(UserWarning, match="ties within a group"):
        none = BarycenterRepair(ties="none").fit(y, sensitive_features=codes)
    out = none.transform(y, sensitive_features=codes)[:, 0]
    for g in (0, 1):  # tied rows share one output
        rows = codes == g
        assert len(np.unique(out[rows])) == len(np.unique(y[rows]))
    jitter = BarycenterRepair(ties="jitter", jitter=1e-3, random_state=0)
    jittered = jitter.fit_transform(y, sensitive_features=codes)[:, 0]
    assert max_ks(jittered, codes) < 0.02 < max_ks(y[:, 0], codes)


def test_dispersion_at_extreme_magnitudes_is_scale_equivariant():
    # Squares of outputs beyond 1.3e154 overflowed: w2_dispersion_ was NaN (inf - inf).
    rng = np.random.default_rng(31)
    codes = rng.integers(0, 2, 2000)
    unit = rng.normal(size=2000) + 1e-5 * codes  # a wide law, a small gap between groups
    reference = BarycenterRepair().fit(unit[:, None], sensitive_features=codes)
    scaled = BarycenterRepair().fit(1e154 * unit[:, None], sensitive_features=codes)
    assert np.isfinite(scaled.w2_dispersion_).all()
    np.testing.assert_allclose(
        scaled.w2_dispersion_, reference.w2_dispersion_ * 1e154 * 1e154, rtol=1e-6
    )
    # beyond the float range the dispersion is inf, said with a warning; the repair still works
    with pytest.warns(RuntimeWarning, match="exceeds the float64 range"):
        huge = BarycenterRepair().fit(1e200 * (unit + codes)[:, None], sensitive_features=codes)
    assert huge.w2_dispersion_[0] == np.inf
    out = huge.transform(1e200 * (unit + codes)[:, None], sensitive_features=codes)
    assert np.isfinite(out).all()


# --------------------------------------------------------------------------------------------
# compact maps: one step per distinct value, outputs unchanged


@pytest.mark.parametrize("n_groups", [3, 40])  # few cells (loop) and many (integer keys)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("method", ["barycenter", "median"])
@pytest.mark.parametrize("amount", [1.0, [0.6, 1.0]])
def test_compact_maps_give_the_same_outputs(monkeypatch, n_groups, weighted, method, amount):
    """Maps keeping only the distinct values of each cell repair every row exactly as the maps
    keeping every training value (the oracle: the same fit with the compaction disabled), in
    and out of sample, on columns with heavy ties, few ties and none."""
    from skfair.preprocessing import FeatureRepair

    rng = np.random.default_rng(n_groups)
    n = 3000
    X = np.column_stack(
        [
            rng.integers(0, 6, n),  # 6 distinct values: every cell is mostly ties
            np.round(rng.gamma(4, 10, n), 1),  # some ties
            rng.normal(size=n),  # none
        ]
    ).astype(float)
    groups = np.column_stack([rng.integers(0, n_groups, n), rng.integers(0, 2, n)])
    weights = rng.random(n) + 0.5 if weighted else None
    queries = np.vstack([X[rng.integers(0, n, 500)], rng.normal(20, 20, (500, 3))])
    query_groups = groups[rng.integers(0, n, 1000)]
    attributes = groups if np.ndim(amount) else groups[:, 0]
    query_attributes = query_groups if np.ndim(amount) else query_groups[:, 0]

    def fit(compact):
        if not compact:
            monkeypatch.setattr(barycenter_module._Barycenter, "compact", lambda self: None)
        repair = FeatureRepair(amount, method=method, random_state=0)
        in_sample = repair.fit_transform(X, sensitive_features=attributes, sample_weight=weights)
        monkeypatch.undo()
        out = repair.transform(queries, sensitive_features=query_attributes)
        return repair, in_sample, out

    compact, compact_in, compact_out = fit(True)
    full, full_in, full_out = fit(False)
    np.testing.assert_array_equal(compact_in, full_in)
    np.testing.assert_array_equal(compact_out, full_out)
    if method == "barycenter":
        np.testing.assert_array_equal(compact.w2_dispersion_, full.w2_dispersion_)
    # The tied column's maps (first step: the original values) hold its distinct values per
    # cell, not its rows.
    tied_map, full_map = compact._maps[0][0][0], full._maps[0][0][0]
    n_cells = tied_map.starts.shape[0] - 1
    assert tied_map.values.shape[0] <= 6 * n_cells < full_map.values.shape[0]
    assert (
        tied_map.fair.shape[0] == tied_map.cumulative.shape[0] == tied_map.values.shape[0] + n_cells
    )
    assert tied_map.levels.shape[0] < full_map.levels.shape[0]


@pytest.mark.parametrize("n_rows", [1, 2, 3, 4, 5, 8])
def test_median_of_few_rows_is_numpys_median(n_rows):
    """The median repair's comparisons for up to four cells give np.median's values exactly,
    ties, signs and extreme magnitudes included."""
    rng = np.random.default_rng(n_rows)
    for _ in range(50):
        scale = rng.choice([1.0, 0.1, 1e-300, 1e300], size=(n_rows, 40))
        rows = rng.integers(-3, 4, size=(n_rows, 40)) * scale
        np.testing.assert_array_equal(
            barycenter_module._median_of_rows(rows), np.median(rows, axis=0)
        )
