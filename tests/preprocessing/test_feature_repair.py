"""FeatureRepair: the distribution of every repaired column is the same in every group (KS by
scipy), the geodesic shrinks Wasserstein distances by (1 - amount), the maps agree with a
quantile oracle and are the score repair's own."""

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp, wasserstein_distance
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair.postprocessing import BarycenterRepair
from skfair.preprocessing import FeatureRepair

METHODS = pytest.mark.parametrize("method", ["barycenter", "median"])


def make_data(n, seed=0, shares=(0.5, 0.3, 0.2)):
    """Three groups; a continuous, a skewed and an integer column, all depending on the group."""
    rng = np.random.default_rng(seed)
    groups = rng.choice(len(shares), n, p=shares)
    X = np.c_[
        rng.normal(size=n) * (1 + 0.5 * groups) + groups,
        rng.exponential(1 + groups, n),
        rng.poisson(2 + 2 * groups),
    ]
    return X, groups


def max_ks(X, groups, *, strict_bound=False):
    worst = 0.0
    labels = np.unique(groups)
    for j in range(X.shape[1]):
        for i, a in enumerate(labels):
            for b in labels[i + 1 :]:
                x, y = X[groups == a, j], X[groups == b, j]
                ks = ks_2samp(x, y).statistic
                if strict_bound:
                    assert ks < 1 / min(len(x), len(y)), (j, a, b, ks)
                worst = max(worst, ks)
    return worst


def oracle(X, groups, method):
    """Row of rank k (1-based) in group a -> center_b Q_b(k / n_a), with the step quantile
    Q_b(k / n_a) = (ceil(k n_b / n_a))-th smallest value of group b in integer arithmetic
    (numpy's ``inverted_cdf`` computes n_b * (k / n_a) in floats, which can round above an
    integer and pick the next value)."""
    labels, counts = np.unique(groups, return_counts=True)
    out = np.empty_like(X, dtype=float)
    for j in range(X.shape[1]):
        for a, n_a in zip(labels, counts):
            rows = np.flatnonzero(groups == a)
            rows = rows[np.argsort(X[rows, j], kind="stable")]
            k = np.arange(1, n_a + 1)
            quantiles = np.array(
                [
                    np.sort(X[groups == b, j])[-(-k * n_b // n_a) - 1]
                    for b, n_b in zip(labels, counts)
                ]
            )
            center = (
                np.median(quantiles, axis=0)
                if method == "median"
                else (counts / counts.sum()) @ quantiles
            )
            out[rows, j] = center
    return out


@parametrize_with_checks([FeatureRepair(), FeatureRepair(0.5, method="median")])
@pytest.mark.filterwarnings("ignore:FeatureRepair was fitted without sensitive features")
@pytest.mark.filterwarnings("ignore:Columns .* are categorical")
def test_scikit_learn_checks(estimator, check):
    check(estimator)


@METHODS
def test_total_repair_equalises_every_column_on_the_fitting_rows(method):
    X, groups = make_data(3000)
    assert max_ks(X, groups) > 0.3
    repaired = FeatureRepair(method=method, random_state=0).fit_transform(
        X, sensitive_features=groups
    )
    max_ks(repaired, groups, strict_bound=True)  # ties of the integer column included


def test_maps_equal_the_quantile_oracle_on_continuous_columns():
    X, groups = make_data(900, seed=3)
    X = X[:, :2]  # no ties: the oracle's rank order is the repair's
    for method in ("barycenter", "median"):
        repaired = FeatureRepair(method=method).fit_transform(X, sensitive_features=groups)
        np.testing.assert_allclose(repaired, oracle(X, groups, method), rtol=1e-12, atol=1e-12)


def test_median_of_an_even_number_of_groups_is_the_mean_of_the_middle_two():
    rng = np.random.default_rng(5)
    groups = np.repeat([0, 1, 2, 3], 50)
    X = (rng.normal(size=200) + 3 * groups)[:, None]
    repaired = FeatureRepair(method="median").fit_transform(X, sensitive_features=groups)
    np.testing.assert_allclose(repaired, oracle(X, groups, "median"), rtol=1e-12)
    sorted_by_group = np.sort(X[:, 0].reshape(4, 50), axis=1)
    np.testing.assert_allclose(
        np.sort(repaired[groups == 0, 0]), sorted_by_group[1:3].mean(axis=0), rtol=1e-12
    )


def test_held_out_rows_are_equalised_up_to_the_sampling_error():
    previous = None
    for n in (2000, 20000, 200000):
        X_fit, g_fit = make_data(n, seed=1)
        X_new, g_new = make_data(n, seed=2)
        repair = FeatureRepair(random_state=0).fit(X_fit, sensitive_features=g_fit)
        ks = max_ks(repair.transform(X_new, sensitive_features=g_new)[:, :2], g_new)
        counts = np.bincount(g_fit)
        sampling_error = np.sqrt(1 / counts.min() + 1 / np.sort(counts)[1])
        assert ks < 3 * sampling_error, (n, ks, sampling_error)
        if previous is not None:
            assert ks < previous / 2  # shrinks like 1 / sqrt(n): by sqrt(10) per step
        previous = ks


@METHODS
@pytest.mark.parametrize("amount", [0.0, 0.25, 0.6, 1.0])
def test_amount_shrinks_the_wasserstein_distance_between_groups_by_one_minus_amount(method, amount):
    rng = np.random.default_rng(6)
    groups = np.repeat([0, 1, 2], 400)  # equal sizes: ranks match across groups exactly
    X = np.c_[rng.normal(size=1200) * (1 + groups) + groups, rng.gamma(2 + groups, size=1200)]
    repaired = FeatureRepair(amount, method=method, random_state=0).fit_transform(
        X, sensitive_features=groups
    )
    for j in range(2):
        for a, b in ((0, 1), (0, 2), (1, 2)):
            before = wasserstein_distance(X[groups == a, j], X[groups == b, j])
            after = wasserstein_distance(repaired[groups == a, j], repaired[groups == b, j])
            assert after == pytest.approx((1 - amount) * before, rel=1e-9, abs=1e-12)


def test_partial_repair_out_of_sample_follows_the_geodesic():
    X, groups = make_data(50000, seed=7)
    X_new, g_new = make_data(50000, seed=8)
    full = FeatureRepair(random_state=0).fit(X, sensitive_features=groups)
    half = FeatureRepair(0.4, random_state=0).fit(X, sensitive_features=groups)
    np.testing.assert_allclose(
        half.transform(X_new, sensitive_features=g_new),
        0.6 * X_new + 0.4 * full.transform(X_new, sensitive_features=g_new),
        rtol=1e-12,
    )
    before = wasserstein_distance(X_new[g_new == 0, 0], X_new[g_new == 2, 0])
    repaired = half.transform(X_new, sensitive_features=g_new)
    after = wasserstein_distance(repaired[g_new == 0, 0], repaired[g_new == 2, 0])
    assert after == pytest.approx(0.6 * before, rel=0.05)


def test_the_maps_are_the_score_repair_maps():
    X, groups = make_data(2000, seed=9)
    for amount in (1.0, 0.3):
        features = FeatureRepair(amount, random_state=4).fit(X, sensitive_features=groups)
        scores = BarycenterRepair(1 - amount, random_state=4).fit(X, sensitive_features=groups)
        np.testing.assert_array_equal(
            features.transform(X, sensitive_features=groups),
            scores.transform(X, sensitive_features=groups),
        )
        np.testing.assert_array_equal(features.w2_dispersion_, scores.w2_dispersion_)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(-3, 3), st.floats(-1e3, 1e3)), min_size=4),
    st.sampled_from(["barycenter", "median"]),
)
def test_any_data_is_equalised_within_its_range(rows, method):
    groups, discrete, continuous = (np.array(column) for column in zip(*rows))
    X = np.c_[discrete, continuous].astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # small groups
        repaired = FeatureRepair(method=method, random_state=0).fit_transform(
            X, sensitive_features=groups
        )
    assert (repaired >= X.min(axis=0)).all() and (repaired <= X.max(axis=0)).all()
    if len(np.unique(groups)) > 1:
        max_ks(repaired, groups, strict_bound=True)


def test_several_attributes_joint_cells_and_chain():
    rng = np.random.default_rng(10)
    a1, a2 = rng.integers(0, 2, 4000), rng.integers(0, 3, 4000)
    X = (rng.normal(size=4000) + a1 * a2 - a2)[:, None]
    both = np.c_[a1, a2]
    joint = FeatureRepair(random_state=0).fit(X, sensitive_features=both)
    assert not joint.sequential_ and joint.n_groups_ == 6
    max_ks(joint.fit_transform(X, sensitive_features=both), a1 * 3 + a2, strict_bound=True)
    chain = FeatureRepair([0.5, 1.0], random_state=0)
    repaired = chain.fit_transform(X, sensitive_features=both)
    assert chain.sequential_
    max_ks(repaired, a2, strict_bound=True)  # repaired last, fully: exact
    with pytest.raises(ValueError, match="amount has 3 value"):
        FeatureRepair([1.0, 1.0, 0.5]).fit(X, sensitive_features=both)
    with pytest.raises(ValueError, match="amount must be"):
        FeatureRepair([1.0, 2.0]).fit(X, sensitive_features=both)


def test_categorical_columns_pass_through_unchanged_with_a_warning():
    X, groups = make_data(500)
    frame = pd.DataFrame(
        {
            "x": X[:, 0],
            "city": pd.Categorical(np.where(groups == 0, "Paris", "Lyon")),
            "count": X[:, 2].astype(int),
            "owner": groups > 0,
            "group": groups.astype(str),
        }
    )
    repair = FeatureRepair(random_state=0, sensitive_column="group")
    with pytest.warns(UserWarning, match=r"\['city', 'owner'\] are categorical"):
        out = repair.fit_transform(frame)
    assert out.dtype == object and out.shape == (500, 4)
    np.testing.assert_array_equal(out[:, 1], frame.city.to_numpy())
    np.testing.assert_array_equal(out[:, 3], frame.owner.to_numpy())
    numeric = FeatureRepair(random_state=0).fit_transform(
        frame[["x", "count"]], sensitive_features=groups
    )
    np.testing.assert_array_equal(out[:, [0, 2]].astype(float), numeric)
    np.testing.assert_array_equal(repair.categorical_features_, [False, True, False, True])

    repair.set_output(transform="pandas")
    with pytest.warns(UserWarning, match="categorical"):
        framed = repair.fit(frame).transform(frame.iloc[:100])
    assert list(framed.columns) == ["x", "city", "count", "owner"]
    assert framed.city.dtype == "category" and framed.x.dtype == np.float64
    assert list(framed.index) == list(range(100))
    with pytest.raises(ValueError, match="all categorical"):
        FeatureRepair().fit(frame[["city", "group"]], sensitive_features=groups)


@pytest.mark.parametrize("library", ["polars", "polars-lazy", "pyarrow"])
def test_sensitive_column_of_polars_and_pyarrow_frames(library):
    """A polars (eager or lazy) or pyarrow frame is read as the same pandas frame would be:
    its column names select the sensitive column, and set_output keeps working."""
    X, groups = make_data(400, seed=5)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(
        group=np.array(["u", "v", "w"])[groups], kind=np.where(X[:, 2] > 3, "hi", "lo")
    )
    convert = {
        "polars": pl.from_pandas,
        "polars-lazy": lambda f: pl.from_pandas(f).lazy(),
        "pyarrow": lambda f: pl.from_pandas(f).to_arrow(),
    }[library]
    expected = FeatureRepair(random_state=0, sensitive_column="group")
    with pytest.warns(UserWarning, match=r"\['kind'\] are categorical"):
        in_sample = expected.fit_transform(frame)
    repair = FeatureRepair(random_state=0, sensitive_column="group")
    with pytest.warns(UserWarning, match=r"\['kind'\] are categorical"):
        np.testing.assert_array_equal(repair.fit_transform(convert(frame)), in_sample)
    np.testing.assert_array_equal(repair.feature_names_in_, frame.columns)
    np.testing.assert_array_equal(
        repair.transform(convert(frame.iloc[:50])), expected.transform(frame.iloc[:50])
    )
    max_ks(in_sample[:, :3].astype(float), groups, strict_bound=True)

    for output in ("pandas", "polars"):
        repair.set_output(transform=output)
        out = repair.transform(convert(frame.iloc[:50]))
        assert list(out.columns) == ["a", "b", "c", "kind"]
        numbers = out[["a", "b", "c"]].to_numpy()
        assert numbers.dtype == np.float64  # the numbers are not boxed as objects
        np.testing.assert_array_equal(
            numbers, expected.transform(frame.iloc[:50])[:, :3].astype(float)
        )
        assert list(out["kind"]) == list(frame["kind"].iloc[:50])


def test_pipeline_column_transformer_and_grid_search():
    X, groups = make_data(900, seed=11)
    y = (X[:, 0] + X[:, 1] + np.random.default_rng(0).normal(size=900) > 2).astype(int)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(group=groups)
    columns = make_column_transformer(
        (FeatureRepair(random_state=0, sensitive_column="group"), ["a", "b", "group"]),
        ("passthrough", ["c"]),
        verbose_feature_names_out=False,
    ).set_output(transform="pandas")
    out = columns.fit_transform(frame)
    assert list(out.columns) == ["a", "b", "c"]
    max_ks(out[["a", "b"]].to_numpy(), groups, strict_bound=True)

    grid = {"featurerepair__amount": [0.0, 1.0]}
    pipe = make_pipeline(FeatureRepair(sensitive_column="group"), LogisticRegression())
    search = GridSearchCV(pipe, grid, cv=3).fit(frame, y)
    assert list(search.best_estimator_[0].get_feature_names_out()) == ["a", "b", "c"]
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(FeatureRepair(random_state=0), LogisticRegression())
        search = GridSearchCV(pipe, grid, cv=3).fit(X, y, sensitive_features=groups)
        assert search.best_estimator_[0].n_groups_ == 3


def test_transform_repeats_and_unknown_groups_follow_handle_unknown():
    X, groups = make_data(600)
    repair = FeatureRepair(random_state=None).fit(X, sensitive_features=groups)
    np.testing.assert_array_equal(
        repair.transform(X, sensitive_features=groups),
        repair.transform(X, sensitive_features=groups),
    )
    with pytest.raises(ValueError, match="not seen at fit"):
        repair.transform(X[:3], sensitive_features=[0, 1, 5])
    lenient = FeatureRepair(handle_unknown="identity").fit(X, sensitive_features=groups)
    with pytest.warns(UserWarning, match="not seen at fit"):
        out = lenient.transform(X[:3], sensitive_features=[0, 1, 5])
    np.testing.assert_array_equal(out[2], X[2])


def test_dask_fit_is_refused_and_transform_is_exact():
    import dask.array as da
    X, groups = make_data(3000)  # the integer column hits atoms: row-keyed draws
    with pytest.raises(TypeError, match="in-memory sample"):
        FeatureRepair().fit(da.from_array(X), sensitive_features=groups)
    repair = FeatureRepair(random_state=0).fit(X[:1000], sensitive_features=groups[:1000])
    lazy = repair.transform(da.from_array(X, chunks=(700, 3)), sensitive_features=groups)
    np.testing.assert_array_equal(lazy.compute(), repair.transform(X, sensitive_features=groups))
    frame = pd.DataFrame({"x": X[:, 0], "kind": np.where(groups > 0, "a", "b")})
    with pytest.warns(UserWarning, match="categorical"):
        mixed = FeatureRepair().fit(frame, sensitive_features=groups)
    with pytest.raises(TypeError, match="numeric columns only"):
        mixed.transform(da.from_array(X[:, :2]), sensitive_features=groups)


@pytest.mark.slow
def test_the_user_guide_snippet_runs_and_repairs_the_training_rows():
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "doc" / "user_guide" / "preprocessing.rst"
    text = page.read_text(encoding="utf-8")
    lines = text.split(".. code-block:: python\n\n", 1)[1].splitlines()
    block = [line[3:] for line in lines[: next(i for i, x in enumerate(lines) if x[:1].strip())]]
    source = "\n".join(block)
    namespace = {}
    exec(compile(source, str(page), "exec"), namespace)  # noqa: S102
    repair, X = namespace["model"][0], namespace["X"]
    assert namespace["y_pred"].shape == (1000,) and repair.n_groups_ == 2
    sex = X["sex"].to_numpy()
    max_ks(repair.fit_transform(X), sex, strict_bound=True)
