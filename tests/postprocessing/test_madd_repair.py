"""MADDRepair: the MADD post-processing of Verger et al. (JEDM 2024, Section 6) with exact
CDFs; properties against madd(), closed forms and materialised outputs."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import config_context
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair.datasets import make_madd_simulation
from skfair.metrics import madd
from skfair.postprocessing import MADDRepair

# The papers' small fixtures have small groups and bins finer than the data: expected warnings.
pytestmark = [
    pytest.mark.filterwarnings("ignore:The smallest group has"),
    pytest.mark.filterwarnings("ignore:MADD with .* bins exceeds"),
]


@pytest.fixture(scope="module")
def simulation():
    scores, groups, y = make_madd_simulation(10_000, random_state=0)
    return scores[:, None], groups, y


@pytest.fixture(scope="module")
def atoms():
    """Three-atom scores: a decision tree's kind of output."""
    rng = np.random.default_rng(2024)
    values = np.array([0.2, 0.5, 0.8])
    group0 = rng.choice(values, 5000, p=[0.5, 0.3, 0.2])
    group1 = rng.choice(values, 5000, p=[0.25, 0.3, 0.45])
    scores = np.concatenate([group0, group1])
    groups = np.repeat([0, 1], 5000)
    y = (rng.random(10_000) < scores).astype(int)
    return scores[:, None], groups, y


def accuracy_loss(y, scores, threshold=0.5):
    return np.mean(y != (scores >= threshold))


# --- scikit-learn conventions ---------------------------------------------------------------


@parametrize_with_checks([MADDRepair(), MADDRepair(lam=0.5, bins=20)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="MADDRepair was fitted without")
        check(estimator)


def test_no_sensitive_features_is_identity_and_warns(simulation):
    scores, _, y = simulation
    with pytest.warns(UserWarning, match="without sensitive features"):
        repair = MADDRepair(lam=0.8).fit(scores, y)
    np.testing.assert_array_equal(repair.transform(scores), scores)


def test_clone_pickle_set_output(simulation):
    scores, groups, y = simulation
    repair = MADDRepair(lam="auto", n_lambdas=50, random_state=0)
    assert clone(repair).get_params() == repair.get_params()
    repair.fit(scores[:2000], y[:2000], sensitive_features=groups[:2000])
    restored = pickle.loads(pickle.dumps(repair))
    new = scores[5000:5400], groups[5000:5400]
    np.testing.assert_array_equal(
        restored.transform(new[0], sensitive_features=new[1]),
        repair.transform(new[0], sensitive_features=new[1]),
    )
    calibration = pd.DataFrame({"proba": scores[:2000, 0]})
    repair.set_output(transform="pandas").fit(
        calibration, y[:2000], sensitive_features=groups[:2000]
    )
    frame = pd.DataFrame({"proba": new[0][:, 0]}, index=np.arange(400)[::-1] + 77)
    out = repair.transform(frame, sensitive_features=pd.Series(new[1], index=frame.index))
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["proba"] and (out.index == frame.index).all()


def test_metadata_routing_and_two_d_column(simulation):
    # RepairedClassifier calls fit(S, y, sensitive_features=s) / transform(S, ...) on (n, 1).
    scores, groups, y = simulation
    assert MADDRepair().get_metadata_routing().fit.requests["sensitive_features"] is True
    assert MADDRepair().get_metadata_routing().transform.requests["sensitive_features"] is True
    with config_context(enable_metadata_routing=True):
        out = MADDRepair(lam=0.5).fit_transform(scores, y, sensitive_features=groups)
    assert out.shape == scores.shape


# --- identity, continuity, order ------------------------------------------------------------


def test_identity_at_zero_bit_for_bit(simulation, atoms):
    scores, groups, y = simulation
    new = np.array([[0.0], [1.0], [0.5], [1e-9], [0.999999], [0.3], [0.3]])
    new_groups = np.array([0, 1, 0, 1, 0, 0, 1])
    for data in (simulation, atoms):
        repair = MADDRepair(lam=0.0).fit(data[0], sensitive_features=data[1])
        np.testing.assert_array_equal(
            repair.transform(data[0], sensitive_features=data[1]), data[0]
        )
        np.testing.assert_array_equal(repair.transform(new, sensitive_features=new_groups), new)
        np.testing.assert_array_equal(
            MADDRepair(lam=0.0).fit_transform(data[0], sensitive_features=data[1]), data[0]
        )


def test_continuity_in_lambda(simulation):
    scores, groups, _ = simulation
    new, new_groups, _ = make_madd_simulation(1000, random_state=5)
    repair = MADDRepair(lam=1e-9).fit(scores, sensitive_features=groups)
    assert np.abs(repair.transform(scores, sensitive_features=groups) - scores).max() <= 1e-6
    moved = repair.transform(new[:, None], sensitive_features=new_groups)[:, 0]
    assert np.abs(moved - new).max() <= 1e-6


def test_shape_order_range_and_monotonicity(simulation):
    scores, groups, _ = simulation
    rng = np.random.default_rng(1)
    order = rng.permutation(scores.shape[0])[:3000]
    two_columns = np.column_stack([scores[:, 0], scores[::-1, 0]])
    repair = MADDRepair(lam=0.7).fit(two_columns, sensitive_features=groups)
    out = repair.transform(two_columns[order], sensitive_features=groups[order])
    assert out.shape == (3000, 2) and np.isfinite(out).all()
    assert out.min() >= 0 and out.max() <= 1
    # row order: transforming rows one by one gives the same values
    for row in order[:5]:
        single = repair.transform(two_columns[[row]], sensitive_features=groups[[row]])
        np.testing.assert_array_equal(single[0], out[np.flatnonzero(order == row)[0]])
    # within-group monotonicity, out of sample and in sample
    new, new_groups, _ = make_madd_simulation(2000, random_state=9)
    mapped = repair.transform(np.column_stack([new, new]), sensitive_features=new_groups)
    in_sample = MADDRepair(lam=0.7).fit_transform(scores, sensitive_features=groups)[:, 0]
    for g in (0, 1):
        rows = new_groups == g
        by_score = np.argsort(new[rows])
        assert (np.diff(mapped[rows][by_score, 0]) >= 0).all()
        rows = groups == g
        by_score = np.argsort(scores[rows, 0])
        assert (np.diff(in_sample[rows][by_score]) >= 0).all()


def test_transform_consistent_with_fit_transform_and_batches(simulation):
    scores, groups, _ = simulation
    repair = MADDRepair(lam=0.4, random_state=3)
    in_sample = repair.fit_transform(scores, sensitive_features=groups)
    np.testing.assert_array_equal(repair.transform(scores, sensitive_features=groups), in_sample)
    a, b = slice(0, 7000), slice(7000, None)
    np.testing.assert_array_equal(
        np.concatenate(
            [
                repair.transform(scores[a], sensitive_features=groups[a]),
                repair.transform(scores[b], sensitive_features=groups[b]),
            ]
        ),
        in_sample,
    )


def test_determinism_and_label_invariance_with_ties(atoms):
    scores, groups, _ = atoms
    out = MADDRepair(lam=0.5, random_state=7).fit_transform(scores, sensitive_features=groups)
    again = MADDRepair(lam=0.5, random_state=7).fit_transform(scores, sensitive_features=groups)
    np.testing.assert_array_equal(out, again)
    relabelled = np.where(groups == 0, "z", "a")
    other = MADDRepair(lam=0.5, random_state=7).fit_transform(scores, sensitive_features=relabelled)
    np.testing.assert_array_equal(out, other)
    repair = MADDRepair(lam=0.5, random_state=7).fit(scores, sensitive_features=groups)
    np.testing.assert_array_equal(
        repair.transform(scores, sensitive_features=groups),
        MADDRepair(lam=0.5, random_state=7)
        .fit(scores, sensitive_features=relabelled)
        .transform(scores, sensitive_features=relabelled),
    )


def test_random_state_irrelevant_without_ties(simulation):
    scores, groups, _ = simulation
    outs = [
        MADDRepair(lam=0.6, random_state=seed).fit_transform(scores, sensitive_features=groups)
        for seed in (0, 1)
    ]
    np.testing.assert_array_equal(*outs)


# --- contraction (Section 6.4) --------------------------------------------------------------


def test_contraction_in_sample(simulation):
    scores, groups, _ = simulation
    before = madd(None, scores, sensitive_features=groups, bins=135)
    previous = np.inf
    for lam in np.linspace(0, 1, 11):
        out = MADDRepair(lam=lam).fit_transform(scores, sensitive_features=groups)
        after = madd(None, out, sensitive_features=groups, bins=135)
        assert abs(after - (1 - lam) * before) <= 0.01
        assert after <= previous + 1e-12
        previous = after


def test_contraction_three_groups():
    rng = np.random.default_rng(2)
    parts = [rng.beta(2, 5, 6000), rng.beta(4, 4, 4000), rng.beta(5, 2, 5000)]
    scores = np.concatenate(parts)[:, None]
    groups = np.repeat(["a", "b", "c"], [6000, 4000, 5000])
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]

    def pairwise(values):
        return [
            madd(
                None,
                values[np.isin(groups, p)],
                sensitive_features=groups[np.isin(groups, p)],
                bins=100,
            )
            for p in pairs
        ]

    before = np.array(pairwise(scores))
    for lam in np.linspace(0, 1, 6):
        out = MADDRepair(lam=lam).fit_transform(scores, sensitive_features=groups)
        assert np.abs(np.array(pairwise(out)) - (1 - lam) * before).max() <= 0.02


def test_atoms_no_harm(atoms):
    scores, groups, _ = atoms
    before = madd(None, scores, sensitive_features=groups, bins=10)
    repair = MADDRepair(random_state=0)
    for lam in (0.25, 0.5, 0.75, 1.0):
        repair.set_params(lam=lam)
        in_sample = repair.fit_transform(scores, sensitive_features=groups)
        after = madd(None, in_sample, sensitive_features=groups, bins=10)
        assert after <= before + 1e-12
        assert abs(after - (1 - lam) * before) <= 0.01
        out = repair.transform(scores, sensitive_features=groups)
        transformed = madd(None, out, sensitive_features=groups, bins=10)
        assert transformed <= {0.25: 0.45, 0.5: 0.30, 0.75: 0.2, 1.0: 0.08}[lam]


def test_full_repair_equal_and_unequal_sizes(simulation):
    scores, groups, _ = simulation
    out = MADDRepair(lam=1.0).fit_transform(scores, sensitive_features=groups)[:, 0]
    np.testing.assert_array_equal(np.sort(out[groups == 0]), np.sort(out[groups == 1]))
    assert madd(None, out, sensitive_features=groups, bins=135) == 0.0
    keep = np.concatenate([np.arange(3000), 10_000 + np.arange(7000)])
    scores, groups = scores[keep], groups[keep]
    out = MADDRepair(lam=1.0).fit_transform(scores, sensitive_features=groups)[:, 0]
    edges = np.linspace(0, 1, 104)
    pooled = np.searchsorted(np.sort(scores[:, 0]), edges, side="left") / scores.shape[0]
    for g, n in ((0, 3000), (1, 7000)):
        below = np.searchsorted(np.sort(out[groups == g]), edges, side="left") / n
        assert np.abs(below - pooled).max() <= 2 / 3000
    assert madd(None, out, sensitive_features=groups, bins=103) < 0.03
    assert madd(None, scores, sensitive_features=groups, bins=103) > 1.1


# --- lambda search --------------------------------------------------------------------------


def test_lambda_search_reproduces_paper_simulation(simulation):
    # Section 6.3.1: accuracy loss 0.361 -> 0.390, fairness loss 0.598 at lam = 0, 135 bins.
    # The sampling std of an accuracy loss at n = 20,000 is 0.0034.
    scores, groups, y = simulation
    repair = MADDRepair(random_state=0).fit(scores, y, sensitive_features=groups)
    np.testing.assert_array_equal(repair.bins_, [135])
    assert repair.accuracy_loss_[0, 0] == pytest.approx(0.361, abs=0.01)
    assert repair.accuracy_loss_[-1, 0] == pytest.approx(0.390, abs=0.01)
    assert repair.fairness_loss_[0, 0] == pytest.approx(0.598, abs=0.01)
    # Exact maps: in-sample MADD reaches 0 at lam = 1, so lam* = 1 and the
    # objective minimum is 0.195 (maddlib's binned CDFs stop at 0.063: lam* 0.970, 0.226).
    assert repair.fairness_loss_[-1, 0] == 0.0
    assert repair.lambda_[0] == 1.0
    assert repair.objective_min_[0] == pytest.approx(0.1952, abs=0.006)
    assert (np.diff(repair.fairness_loss_[:, 0]) <= 1e-12).all()


def test_lambda_curves_match_materialised_outputs(simulation, atoms):
    for scores, groups, y in (simulation, atoms):
        repair = MADDRepair(n_lambdas=101, bins=40, random_state=4)
        repair.fit(scores, y, sensitive_features=groups)
        np.testing.assert_allclose(
            repair.objective_,
            0.5 * repair.accuracy_loss_ + 0.5 * repair.fairness_loss_,
            rtol=0,
            atol=1e-15,
        )
        # the lam = 0 row is the raw scores
        assert repair.accuracy_loss_[0, 0] == accuracy_loss(y, scores[:, 0])
        raw = madd(None, scores, sensitive_features=groups, bins=40) / 2
        assert repair.fairness_loss_[0, 0] == pytest.approx(raw, abs=1e-15)
        for index in (3, 37, 64, 90, 100):
            lam = repair.lambdas_[index]
            out = MADDRepair(lam=lam, random_state=4).fit_transform(
                scores, sensitive_features=groups
            )[:, 0]
            assert repair.accuracy_loss_[index, 0] == accuracy_loss(y, out)
            fairness = madd(None, out, sensitive_features=groups, bins=40) / 2
            assert repair.fairness_loss_[index, 0] == pytest.approx(fairness, abs=1e-12)


def test_theta_extremes_pick_first_argmins(simulation):
    scores, groups, y = simulation
    for theta, curve in ((0.0, "accuracy_loss_"), (1.0, "fairness_loss_")):
        repair = MADDRepair(theta=theta, n_lambdas=200).fit(scores, y, sensitive_features=groups)
        values = getattr(repair, curve)[:, 0]
        assert repair.lambda_[0] == repair.lambdas_[np.argmin(values)]


def test_many_groups_lambda_search():
    rng = np.random.default_rng(5)
    scores = np.concatenate([rng.beta(2, 5, 800), rng.beta(4, 4, 600), rng.beta(5, 2, 700)])
    groups = np.repeat([1, 2, 3], [800, 600, 700])
    y = (rng.random(scores.shape[0]) < scores).astype(int)
    worst = MADDRepair(n_lambdas=50).fit(scores[:, None], y, sensitive_features=groups)
    mean = MADDRepair(n_lambdas=50, agg="mean").fit(scores[:, None], y, sensitive_features=groups)
    assert worst.bins_.shape == (3,)
    assert (worst.fairness_loss_ >= mean.fairness_loss_ - 1e-15).all()
    pairwise = [
        madd(
            None,
            scores[np.isin(groups, p)],
            sensitive_features=groups[np.isin(groups, p)],
            bins=int(b),
        )
        / 2
        for p, b in zip(((1, 2), (1, 3), (2, 3)), worst.bins_, strict=True)
    ]
    assert worst.fairness_loss_[0, 0] == pytest.approx(max(pairwise), abs=1e-15)
    assert mean.fairness_loss_[0, 0] == pytest.approx(np.mean(pairwise), abs=1e-15)


# --- validation -----------------------------------------------------------------------------


def test_validation(simulation):
    scores, groups, y = simulation
    with pytest.raises(ValueError, match="needs the labels"):
        MADDRepair().fit(scores, sensitive_features=groups)
    with pytest.raises(ValueError, match="binary labels"):
        MADDRepair().fit(scores, y + 1, sensitive_features=groups)
    with pytest.raises(ValueError, match="binary labels"):
        MADDRepair().fit(scores, scores[:, 0], sensitive_features=groups)
    for params in ({"lam": 1.5}, {"theta": -0.1}, {"n_lambdas": 1}, {"lam": "best"}):
        with pytest.raises(ValueError):
            MADDRepair(**params).fit(scores, y, sensitive_features=groups)
    bad = scores.copy()
    bad[3] = 1.2
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        MADDRepair(lam=0.5).fit(bad, sensitive_features=groups)
    bad[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MADDRepair(lam=0.5).fit(bad, sensitive_features=groups)
    lonely = groups.copy()
    lonely[0] = 7
    with pytest.raises(ValueError, match="Group 7 has 1 calibration row"):
        MADDRepair(lam=0.5).fit(scores, sensitive_features=lonely)
    with pytest.raises(ValueError, match="Reshape your data"):
        MADDRepair(lam=0.5).fit(scores[:, 0], sensitive_features=groups)
    repair = MADDRepair(lam=0.5).fit(scores, sensitive_features=groups)
    with pytest.raises(ValueError, match="Group 2 .* not seen at fit"):
        repair.transform(scores[:3], sensitive_features=[0, 1, 2])
    with pytest.raises(ValueError, match="pass sensitive_features"):
        repair.transform(scores[:3])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        repair.transform(np.array([[1.5]]), sensitive_features=[0])


def test_inside_repaired_classifier():
    from sklearn.linear_model import LogisticRegression

    from skfair.postprocessing import RepairedClassifier

    rng = np.random.default_rng(0)
    group = rng.integers(0, 2, 4000)
    X = np.c_[rng.normal(size=4000) + group, group]
    y = (X[:, 0] + rng.normal(size=4000) > 0.5).astype(int)
    clf = RepairedClassifier(
        LogisticRegression(),
        MADDRepair(lam=0.5, random_state=0),
        sensitive_column=1,
        response_method="predict_proba",
    ).fit(X, y)
    repaired = clf.predict_proba(X)[:, 1]
    raw = clf.estimator_.predict_proba(X[:, :1])[:, 1]
    # RepairedClassifier fits the repair on the (n, 1) positive-class scores
    expected = MADDRepair(lam=0.5, random_state=0).fit(raw[:, None], sensitive_features=group)
    np.testing.assert_allclose(
        repaired, expected.transform(raw[:, None], sensitive_features=group)[:, 0]
    )
    before = madd(None, raw, sensitive_features=group, bins=50)
    after = madd(None, repaired, sensitive_features=group, bins=50)
    assert abs(after - 0.5 * before) < 0.03


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    n0=st.integers(2, 40),
    n1=st.integers(2, 40),
    decimals=st.integers(0, 3),
    lam=st.floats(0, 1),
)
def test_random_inputs_with_ties_and_bounds(data, n0, n1, decimals, lam):
    # Rounded scores give atoms, including at exactly 0 and 1.
    values = st.floats(0, 1, allow_nan=False)
    scores = np.round(
        np.array(data.draw(st.lists(values, min_size=n0 + n1, max_size=n0 + n1))), decimals
    )
    groups = np.repeat(["a", "b"], [n0, n1])
    new = np.round(np.array(data.draw(st.lists(values, min_size=1, max_size=30))), decimals)
    new_groups = np.array(
        data.draw(st.lists(st.sampled_from(["a", "b"]), min_size=len(new), max_size=len(new)))
    )
    repair = MADDRepair(lam=lam, random_state=0)
    in_sample = repair.fit_transform(scores[:, None], sensitive_features=groups)[:, 0]
    out = repair.transform(new[:, None], sensitive_features=new_groups)[:, 0]
    for mapped, source, labels in ((in_sample, scores, groups), (out, new, new_groups)):
        assert np.isfinite(mapped).all() and mapped.min() >= 0 and mapped.max() <= 1
        for g in ("a", "b"):
            rows = labels == g
            order = np.argsort(source[rows], kind="stable")
            strictly_above = np.diff(source[rows][order]) > 0
            # strict inputs never swap (tied inputs may split)
            assert (np.diff(mapped[rows][order])[strictly_above] >= -1e-12).all()
    if lam == 0:
        np.testing.assert_array_equal(in_sample, scores)
        np.testing.assert_array_equal(out, new)
    # the in-sample MADD contracts (up to one row per group of rounding in each bin)
    before = madd(None, scores, sensitive_features=groups, bins=5)
    after = madd(None, in_sample, sensitive_features=groups, bins=5)
    assert after <= before + 5 * (1 / n0 + 1 / n1) + 1e-12


# --- sample weights -------------------------------------------------------------------------


def test_unit_weights_are_the_unweighted_repair_bit_for_bit(atoms):
    scores, groups, y = atoms
    plain = MADDRepair(n_lambdas=60, random_state=1)
    weighted = clone(plain)
    np.testing.assert_array_equal(
        weighted.fit_transform(scores, y, sensitive_features=groups, sample_weight=np.ones(10_000)),
        plain.fit_transform(scores, y, sensitive_features=groups),
    )
    for curve in ("objective_", "accuracy_loss_", "fairness_loss_", "lambda_"):
        np.testing.assert_array_equal(getattr(weighted, curve), getattr(plain, curve))
    queries = np.array([[0.2], [0.35], [0.5], [0.8], [0.9]])
    query_groups = np.array([0, 1, 1, 0, 1])
    np.testing.assert_array_equal(
        weighted.transform(queries, sensitive_features=query_groups),
        plain.transform(queries, sensitive_features=query_groups),
    )


def test_weights_do_not_depend_on_their_scale():
    rng = np.random.default_rng(12)
    scores = rng.beta(2, 3, 3000)
    groups = rng.integers(0, 3, 3000)
    y = (rng.random(3000) < scores).astype(int)
    weights = rng.gamma(2.0, size=3000)
    fits = [
        MADDRepair(n_lambdas=80, random_state=0).fit(
            scores[:, None], y, sensitive_features=groups, sample_weight=scale * weights
        )
        for scale in (1.0, 1e-3, 250.0)
    ]
    queries = rng.random(500)[:, None]
    query_groups = rng.integers(0, 3, 500)
    reference = fits[0].transform(queries, sensitive_features=query_groups)
    for other in fits[1:]:
        np.testing.assert_allclose(other.objective_, fits[0].objective_, rtol=0, atol=1e-12)
        np.testing.assert_allclose(
            other.transform(queries, sensitive_features=query_groups), reference, atol=1e-12
        )


def test_weighted_lambda_curves_match_materialised_outputs():
    # oracle: weighted error rate and weighted np.histogram of the in-sample outputs
    rng = np.random.default_rng(13)
    scores = np.round(np.r_[rng.beta(2, 4, 1500), rng.beta(4, 2, 1000)], 3)
    groups = np.repeat([0, 1], [1500, 1000])
    y = (rng.random(2500) < scores).astype(int)
    weights = rng.integers(1, 5, 2500) * 0.5
    repair = MADDRepair(n_lambdas=11, bins=20, random_state=2).fit(
        scores[:, None], y, sensitive_features=groups, sample_weight=weights
    )

    def oracle(out):
        error = np.average(y != (out >= 0.5), weights=weights)
        shares = [
            np.histogram(out[groups == g], bins=20, range=(0, 1), weights=weights[groups == g])[0]
            / weights[groups == g].sum()
            for g in (0, 1)
        ]
        return error, np.abs(shares[0] - shares[1]).sum() / 2

    for index in (0, 3, 7, 10):
        lam = repair.lambdas_[index]
        out = MADDRepair(lam=lam, random_state=2).fit_transform(
            scores[:, None], sensitive_features=groups, sample_weight=weights
        )[:, 0]
        error, fairness = oracle(out)
        assert repair.accuracy_loss_[index, 0] == pytest.approx(error, abs=1e-12)
        assert repair.fairness_loss_[index, 0] == pytest.approx(fairness, abs=1e-12)


def test_full_weighted_repair_gives_every_group_the_weighted_population_law():
    rng = np.random.default_rng(14)
    scores = np.r_[rng.beta(2, 5, 4000), rng.beta(5, 2, 4000)]
    groups = np.repeat([0, 1], 4000)
    # group 1's rows weigh three times as much: the population leans towards its scores
    weights = np.where(groups == 1, 3.0, 1.0) * rng.uniform(0.5, 1.5, 8000)
    out = MADDRepair(lam=1.0).fit_transform(
        scores[:, None], sensitive_features=groups, sample_weight=weights
    )[:, 0]
    grid = np.linspace(0.05, 0.95, 19)

    def weighted_cdf(values, w):
        return np.array([w[values <= t].sum() for t in grid]) / w.sum()

    population = weighted_cdf(scores, weights)
    for g in (0, 1):
        rows = groups == g
        np.testing.assert_allclose(weighted_cdf(out[rows], weights[rows]), population, atol=0.01)


def test_zero_weight_rows_do_not_enter_the_fit():
    rng = np.random.default_rng(15)
    scores = rng.beta(2, 3, 3000)
    groups = rng.integers(0, 2, 3000)
    y = (rng.random(3000) < scores).astype(int)
    weights = rng.uniform(0.5, 2.0, 3000)
    weights[::7] = 0.0
    kept = weights > 0
    weighted = MADDRepair(n_lambdas=50, random_state=0).fit(
        scores[:, None], y, sensitive_features=groups, sample_weight=weights
    )
    dropped = MADDRepair(n_lambdas=50, random_state=0).fit(
        scores[kept, None], y[kept], sensitive_features=groups[kept], sample_weight=weights[kept]
    )
    np.testing.assert_allclose(weighted.objective_, dropped.objective_, rtol=0, atol=1e-12)
    queries = rng.random(200)[:, None]
    query_groups = rng.integers(0, 2, 200)
    np.testing.assert_allclose(
        weighted.transform(queries, sensitive_features=query_groups),
        dropped.transform(queries, sensitive_features=query_groups),
        rtol=0,
        atol=1e-12,
    )
    # in-sample, a zero-weight row is repaired like a new score
    in_sample = MADDRepair(lam=0.7, random_state=0).fit_transform(
        scores[:, None], sensitive_features=groups, sample_weight=weights
    )
    fitted = MADDRepair(lam=0.7, random_state=0).fit(
        scores[kept, None], sensitive_features=groups[kept], sample_weight=weights[kept]
    )
    np.testing.assert_allclose(
        in_sample[~kept],
        fitted.transform(scores[~kept, None], sensitive_features=groups[~kept]),
        rtol=0,
        atol=1e-12,
    )
