"""Metrics on dask collections equal the in-memory metrics (exact counts, floats to 1e-12)."""

import inspect
import warnings

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skfair import metrics
from skfair._stats._table import DistinctRows

LABEL_METRICS = [
    metrics.average_odds_difference,
    metrics.average_abs_odds_difference,
    metrics.true_negative_rate_difference,
    metrics.true_positive_rate_ratio,
    metrics.false_positive_rate_ratio,
    metrics.error_rate_ratio,
    metrics.equalized_odds_ratio,
    metrics.positive_predictive_value_difference,
    metrics.false_discovery_rate_difference,
    metrics.negative_predictive_value_difference,
    metrics.false_omission_rate_difference,
    metrics.between_group_generalized_entropy_index,
    metrics.between_group_theil_index,
    metrics.between_group_coefficient_of_variation,
    metrics.conditional_demographic_disparity,
    metrics.statistical_parity_difference,
    metrics.disparate_impact_ratio,
    metrics.true_positive_rate_difference,
    metrics.false_negative_rate_difference,
    metrics.false_positive_rate_difference,
    metrics.equalized_odds_difference,
    metrics.accuracy_difference,
    metrics.demographic_parity_unfairness,
    metrics.equalized_odds_unfairness,
]
SCORE_METRICS = [
    metrics.wasserstein_bias,
    metrics.ks_bias,
    metrics.quantile_bias,
    metrics.classifier_bias,
]


def _chunks(draw, n):
    """Random chunk sizes summing to n, empty chunks included; sometimes chunks of one row."""
    if draw(st.integers(0, 4)) == 0:
        return (1,) * n
    cuts = sorted(draw(st.lists(st.integers(0, n), min_size=0, max_size=6)))
    bounds = [0, *cuts, n]
    return tuple(int(b - a) for a, b in zip(bounds[:-1], bounds[1:]))


@st.composite
def labelled_data(draw):
    n = draw(st.integers(4, 200))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # Groups sorted by position so that some partitions miss some groups.
    group_pool = draw(st.sampled_from([["a", "b"], ["x", "y", "z"], [0, 1, 2, 3]]))
    groups = np.sort(rng.choice(np.asarray(group_pool), n))
    groups[0], groups[-1] = group_pool[0], group_pool[-1]
    y_true = rng.integers(0, 2, n)
    y_true[:2] = [0, 1]
    y_pred = rng.integers(0, 2, n)
    if draw(st.booleans()):  # string labels
        y_true, y_pred = np.array(["no", "yes"])[y_true], np.array(["no", "yes"])[y_pred]
    weights = rng.random(n) + 0.1 if draw(st.booleans()) else None
    chunks = _chunks(draw, n)
    if draw(st.booleans()):
        chunks = Unknown(chunks)  # lengths known only once computed, as after a filter
    return y_true, y_pred, groups, weights, chunks


class Unknown(tuple):
    """Chunk sizes that the dask arrays built on them do not know."""


def _dask(array, chunks):
    array = da.from_array(array, chunks=(tuple(chunks), *array.shape[1:]))
    if isinstance(chunks, Unknown):
        keep = da.ones(array.shape[0], dtype=bool, chunks=(tuple(chunks),))
        array = array[keep]
        assert np.isnan(array.chunks[0]).all()
    return array


def _close(a, b):
    with np.errstate(invalid="ignore"):
        return (np.isnan(a) and np.isnan(b)) or abs(a - b) <= 1e-12


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=labelled_data())
def test_label_metrics_equal_in_memory_over_chunkings(data):
    y_true, y_pred, groups, weights, chunks = data
    dask_weights = None if weights is None else _dask(weights, chunks)
    pos_label = "yes" if y_true.dtype.kind == "U" else None
    for metric in LABEL_METRICS:
        kwargs = {}
        if "pos_label" in inspect.signature(metric).parameters:
            kwargs["pos_label"] = pos_label
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = metric(
                y_true, y_pred, sensitive_features=groups, sample_weight=weights, **kwargs
            )
            got = metric(
                _dask(y_true, chunks),
                _dask(y_pred, chunks),
                sensitive_features=_dask(groups, chunks),
                sample_weight=dask_weights,
                **kwargs,
            )
        assert isinstance(got, float)
        assert _close(got, expected), (metric.__name__, got, expected)
    n_boot = 0 if weights is not None else 30
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = metrics.group_summary(
            y_true,
            y_pred,
            sensitive_features=groups,
            metric="fpr",
            pos_label=pos_label,
            sample_weight=weights,
            n_boot=n_boot,
            random_state=1,
        )
        got = metrics.group_summary(
            _dask(y_true, chunks),
            _dask(y_pred, chunks),
            sensitive_features=_dask(groups, chunks),
            metric="fpr",
            pos_label=pos_label,
            sample_weight=dask_weights,
            n_boot=n_boot,
            random_state=1,
        )
    assert got.groups == expected.groups
    np.testing.assert_array_equal(got.count, expected.count)  # counts: exact
    for field in ("value", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[field], expected[field], rtol=0, atol=1e-12)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(data=labelled_data(), resolution=st.sampled_from([1e-3, 0.05, 0.25]))
def test_score_metrics_equal_in_memory_on_rounded_scores(data, resolution):
    y_true, _, groups, weights, chunks = data
    scores = np.random.default_rng(len(groups)).normal(size=len(groups))
    for metric in SCORE_METRICS:
        for condition_on_y in (False, True):
            kwargs = dict(
                sensitive_features=groups,
                sample_weight=weights,
                condition_on_y=condition_on_y,
                resolution=resolution,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = metric(y_true, scores, **kwargs)
                kwargs["sensitive_features"] = _dask(groups, chunks)
                kwargs["sample_weight"] = None if weights is None else _dask(weights, chunks)
                got = metric(_dask(y_true, chunks), _dask(scores, chunks), **kwargs)
            assert type(got) is type(expected)
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    resolution=st.floats(1e-4, 0.5),
    part=st.sampled_from(["total", "positive", "negative", "net"]),
)
def test_resolution_bounds(seed, resolution, part):
    """|dW1| <= resolution on every part, quantile gaps too; KS within one cell's mass."""
    rng = np.random.default_rng(seed)
    n = 300
    groups = rng.integers(0, 2, n)
    scores = rng.normal(size=n) + groups * rng.random()
    exact = metrics.wasserstein_bias(None, scores, sensitive_features=groups, part=part)
    rounded = metrics.wasserstein_bias(
        None, scores, sensitive_features=groups, part=part, resolution=resolution
    )
    assert abs(exact - rounded) <= resolution * (1 + 1e-9)
    levels = np.linspace(0.05, 1, 20)
    exact_q = metrics.quantile_bias(None, scores, sensitive_features=groups, p=levels)
    rounded_q = metrics.quantile_bias(
        None, scores, sensitive_features=groups, p=levels, resolution=resolution
    )
    assert np.abs(exact_q - rounded_q).max() <= resolution * (1 + 1e-9)
    # KS: the rounded statistic is a sup over fewer points, and it misses at most the mass
    # of both groups inside one grid cell.
    exact_ks = metrics.ks_bias(None, scores, sensitive_features=groups)
    rounded_ks = metrics.ks_bias(None, scores, sensitive_features=groups, resolution=resolution)
    cells = np.floor(scores / resolution + 0.5)
    cell_mass = max(
        np.unique(cells[groups == g], return_counts=True)[1].max() / (groups == g).sum()
        for g in (0, 1)
    )
    assert rounded_ks <= exact_ks + 1e-12
    assert exact_ks - rounded_ks <= 2 * cell_mass + 1e-12


def test_group_summary_bootstrap_does_not_depend_on_partitioning():
    rng = np.random.default_rng(0)
    n = 3000
    y_true, y_pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    groups = rng.choice(["f", "m", "x"], n)
    expected = metrics.group_summary(
        y_true,
        y_pred,
        sensitive_features=groups,
        metric="tpr",
        n_boot=200,
        random_state=3,
        ci_method="bootstrap",
    )
    for chunks in [(n,), (1000, 0, 2000), (7,) * 428 + (4,)]:
        got = metrics.group_summary(
            _dask(y_true, chunks),
            _dask(y_pred, chunks),
            sensitive_features=_dask(groups, chunks),
            metric="tpr",
            n_boot=200,
            random_state=3,
            ci_method="bootstrap",
        )
        assert got.groups == expected.groups
        np.testing.assert_array_equal(got.count, expected.count)
        np.testing.assert_allclose(got.value, expected.value, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.ci_low, expected.ci_low, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.ci_high, expected.ci_high, rtol=0, atol=1e-12)
        assert got.overall == pytest.approx(expected.overall, abs=1e-12)


def test_group_summary_callable_metric_raises_and_weighted_bootstrap_is_exact():
    y = da.from_array(np.array([0, 1, 1, 0]), chunks=2)
    g = da.from_array(np.array(["a", "a", "b", "b"]), chunks=2)
    with pytest.raises(TypeError, match="callable metric.*in-memory sample"):
        metrics.group_summary(y, y, sensitive_features=g, metric=lambda a, b: 0.0)
    # Weights take few values: the bootstrap over (group, weight, cell) classes is exact.
    rng = np.random.default_rng(3)
    n = 2000
    y_true, y_pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    groups, weights = rng.choice(["f", "m"], n), rng.choice([0.5, 1.0, 3.0], n)
    expected = metrics.group_summary(
        y_true,
        y_pred,
        sensitive_features=groups,
        sample_weight=weights,
        n_boot=50,
        random_state=0,
        metric="tpr",
        ci_method="bootstrap",
    )
    got = metrics.group_summary(
        _dask(y_true, (700, 0, 1300)),
        _dask(y_pred, (700, 0, 1300)),
        sensitive_features=_dask(groups, (700, 0, 1300)),
        sample_weight=_dask(weights, (700, 0, 1300)),
        n_boot=50,
        random_state=0,
        metric="tpr",
        ci_method="bootstrap",
    )
    np.testing.assert_array_equal(got.count, expected.count)
    for field in ("value", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[field], expected[field], rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_boot", [0, 40])
@pytest.mark.parametrize(
    "weights",
    [
        # Rows (a, 1) x1 of weight 2 and (a, 0) x2 of weight 1 (likewise for b): every
        # distinct row's summed weight is 2, which are not equal sample weights.
        np.array([2.0, 1.0, 1.0, 1.0, 1.0, 2.0] * 50),
        # Equal weights of any scale are no weights, on dask as in memory (the rows' sums
        # stay finite: a partition's table adds its rows' weights up).
        np.full(300, 1e300),
    ],
    ids=["equal-row-sums", "equal-1e300"],
)
def test_metric_table_on_dask_checks_the_sample_weights_not_the_row_sums(weights, n_boot):
    # Regression (merge of the shared weight check into the frequency-table path): equal
    # summed weights made the rows weigh their frequencies (selection rates 1/3 and 2/3
    # instead of 1/2).
    y_pred = np.array([1, 0, 0, 1, 1, 0] * 50)
    groups = np.array(["a", "a", "a", "b", "b", "b"] * 50)
    kwargs = {"n_boot": n_boot, "random_state": 0}
    expected = metrics.MetricTable(
        "selection_rate", None, y_pred, sensitive_features=groups, sample_weight=weights, **kwargs
    )
    chunks = (100, 0, 200)
    got = metrics.MetricTable(
        "selection_rate",
        None,
        _dask(y_pred, chunks),
        sensitive_features=_dask(groups, chunks),
        sample_weight=_dask(weights, chunks),
        **kwargs,
    )
    # the oracle: weighted shares by group, computed directly
    for k, group in enumerate(["a", "b"]):
        inside = groups == group
        share = weights[inside] / weights[inside].max()
        rate = share[y_pred[inside] == 1].sum() / share.sum()
        assert got.by_group[k, 0] == pytest.approx(rate, rel=1e-12)
    np.testing.assert_allclose(got.by_group, expected.by_group, rtol=0, atol=1e-12)
    if n_boot:
        for what in ("by_group", "difference"):
            for bound_got, bound_expected in zip(
                got.confidence_interval(what), expected.confidence_interval(what), strict=True
            ):
                np.testing.assert_allclose(bound_got, bound_expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("bins", [None, 7, 60])
def test_madd_from_summed_histograms(bins):
    from skfair.datasets import make_madd_simulation

    scores, groups, y = make_madd_simulation(6000, random_state=1)
    chunks = (5000, 0, 6000, 1000)
    dask_scores, dask_groups = _dask(scores, chunks), _dask(groups, chunks)
    if bins is None:
        expected = metrics.madd_bandwidth_search(None, scores, sensitive_features=groups)
        got = metrics.madd_bandwidth_search(None, dask_scores, sensitive_features=dask_groups)
        assert got.interval == expected.interval
        assert got.indices == expected.indices
        assert got.value == pytest.approx(expected.value, abs=1e-12)
        np.testing.assert_allclose(got.madd_curve, expected.madd_curve, rtol=0, atol=1e-12)
        assert got.group_sizes == expected.group_sizes
        expected_value = metrics.madd(y, scores, sensitive_features=groups)
        got_value = metrics.madd(_dask(y, chunks), dask_scores, sensitive_features=dask_groups)
    else:
        expected_value = metrics.madd(y, scores, sensitive_features=groups, bins=bins)
        got_value = metrics.madd(y, dask_scores, sensitive_features=dask_groups, bins=bins)
    assert got_value == pytest.approx(expected_value, abs=1e-12)


@pytest.mark.parametrize(
    "chunks",
    [
        (700, 700, 600),  # every group in every partition: the tables are added row by row
        (1000, 0, 1000),
        (150, 1850),  # the first partition holds the two first groups only: rows matched
    ],
)
@pytest.mark.parametrize("labels", ["int8", "str"])
def test_weighted_bandwidth_search_equals_in_memory_over_chunkings(chunks, labels):
    """The sweep's summed counts (weighted, small-integer and string groups) give the
    in-memory search: same interval, curve and sizes, to rounding of the summed weights."""
    rng = np.random.default_rng(3)
    n = 2000
    codes = np.concatenate([[0, 1] * 75, rng.integers(0, 3, n - 150)]).astype(np.int8)
    groups = codes if labels == "int8" else np.array(["a", "b", "c"])[codes]
    scores = np.clip(rng.normal(0.4 + 0.1 * codes, 0.15), 0, 1)
    weights = rng.uniform(0.5, 2.0, n)
    kwargs = dict(bandwidths=200, min_points=10)
    expected = metrics.madd_bandwidth_search(
        None, scores, sensitive_features=groups, sample_weight=weights, **kwargs
    )
    got = metrics.madd_bandwidth_search(
        None,
        _dask(scores, chunks),
        sensitive_features=_dask(groups, chunks),
        sample_weight=_dask(weights, chunks),
        **kwargs,
    )
    assert got.indices == expected.indices
    assert got.worst_pair == expected.worst_pair
    np.testing.assert_allclose(got.madd_curve, expected.madd_curve, rtol=0, atol=1e-12)
    assert got.value == pytest.approx(expected.value, abs=1e-12)
    for label, size in expected.group_sizes.items():
        assert got.group_sizes[label] == pytest.approx(size, rel=1e-12)


def test_binned_continuous_outputs_use_exact_unweighted_cutoffs():
    rng = np.random.default_rng(5)
    n = 2000
    y_true = np.round(rng.normal(size=n), 2)  # ties, so quantiles interpolate between repeats
    y_pred = y_true + rng.normal(scale=0.5, size=n)
    groups = rng.integers(0, 3, n)
    weights = rng.random(n)
    chunks = (300, 700, 0, 1000)
    for metric in (metrics.demographic_parity_unfairness, metrics.equalized_odds_unfairness):
        for bins in (2, 5, 9):
            expected = metric(
                y_true, y_pred, sensitive_features=groups, bins=bins, sample_weight=weights
            )
            got = metric(
                _dask(y_true, chunks),
                _dask(y_pred, chunks),
                sensitive_features=_dask(groups, chunks),
                bins=bins,
                sample_weight=_dask(weights, chunks),
            )
            assert got == pytest.approx(expected, abs=1e-12)


def test_dask_dataframe_columns_categorical_and_intersectional_groups():
    rng = np.random.default_rng(2)
    n = 1500
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "pred": rng.integers(0, 2, n),
            # Category order differs from sorted order; a category is never used.
            "race": pd.Categorical(
                rng.choice(["w", "b", "a"], n), categories=["w", "b", "a", "unused"]
            ),
            "sex": rng.choice(["F", "M"], n),
            "score": rng.random(n),
        }
    ).sort_values("race")  # partitions miss races
    ddf = dd.from_pandas(frame, npartitions=5, sort=False)
    sensitive = ["race", "sex"]
    expected = metrics.group_summary(
        frame.y, frame.pred, sensitive_features=frame[sensitive], as_frame=True
    )
    got = metrics.group_summary(ddf.y, ddf.pred, sensitive_features=ddf[sensitive], as_frame=True)
    pd.testing.assert_frame_equal(got, expected, check_exact=False, atol=1e-12, rtol=0)
    assert metrics.equalized_odds_difference(
        ddf.y, ddf.pred, sensitive_features=ddf.race, privileged_group="w"
    ) == pytest.approx(
        metrics.equalized_odds_difference(
            frame.y, frame.pred, sensitive_features=frame.race, privileged_group="w"
        ),
        abs=1e-12,
    )
    assert metrics.wasserstein_bias(
        None, ddf.score, sensitive_features=ddf.sex, resolution=1e-3
    ) == pytest.approx(
        metrics.wasserstein_bias(None, frame.score, sensitive_features=frame.sex, resolution=1e-3),
        abs=1e-12,
    )


def test_uncertainty_disparities_from_member_outputs():
    rng = np.random.default_rng(4)
    n, members = 800, 5
    votes = rng.integers(0, 3, (members, n))
    positive = np.round(rng.random((members, n)), 1)
    proba = np.stack([1 - positive, positive], axis=-1)
    groups = rng.choice(["a", "b"], n)
    y = rng.integers(0, 2, n)
    dask_groups = da.from_array(groups, chunks=150)
    got = metrics.label_stability_difference(
        da.from_array(y, chunks=150),
        da.from_array(votes, chunks=(members, 150)),
        sensitive_features=dask_groups,
        privileged_group="a",
    )
    expected = metrics.label_stability_difference(
        y, votes, sensitive_features=groups, privileged_group="a"
    )
    assert got == pytest.approx(expected, abs=1e-12)
    for metric in (
        metrics.epistemic_uncertainty_difference,
        metrics.aleatoric_uncertainty_difference,
    ):
        for member_proba in (proba, positive):
            chunks = (members, 150, 2)[: member_proba.ndim]
            got = metric(
                None, da.from_array(member_proba, chunks=chunks), sensitive_features=dask_groups
            )
            expected = metric(None, member_proba, sensitive_features=groups)
            assert got == pytest.approx(expected, abs=1e-12)


def test_mismatched_lengths_raise():
    a = da.from_array(np.zeros(10, dtype=int), chunks=5)
    b = da.from_array(np.array(["a", "b"] * 6), chunks=5)
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        metrics.statistical_parity_difference(None, a, sensitive_features=b)


def test_bad_resolution_raises():
    with pytest.raises(ValueError, match="resolution must be a positive"):
        metrics.ks_bias(None, [0.1, 0.2], sensitive_features=["a", "b"], resolution=0)


def test_tables_merge_by_value_not_by_partition_codes():
    """Strings seen in one partition only, and numbers, merge into one row per value."""
    rows = DistinctRows(("group", "label"))
    first = rows.chunk([np.array(["b", "a", "b"]), np.array([1, 1, 0])])
    second = rows.chunk([np.array(["c", "b"], dtype=object), np.array([0, 0])])
    empty = rows.chunk([np.array([], dtype="<U1"), np.array([])])
    merged = rows.merge([first, second, empty])
    rows = {(str(k0), int(k1)): int(c) for k0, k1, c in zip(*merged.keys, merged.count)}
    assert rows == {("a", 1): 1, ("b", 1): 1, ("b", 0): 2, ("c", 0): 1}


def test_hfm_rejects_dask_input_and_points_to_a_sample():
    X = da.from_array(np.random.default_rng(0).random((20, 2)), chunks=10)
    y = np.arange(20) % 2
    with pytest.raises(TypeError, match=r"does not accept dask.*method=\"approx\""):
        metrics.hfm(X, y, y, sensitive_features=y)


@settings(max_examples=20, deadline=None)
@given(
    n_max=st.integers(1, 300),
    decimals=st.integers(1, 7),
    seed=st.integers(0, 2**32 - 1),
)
def test_edge_lookup_equals_searchsorted(n_max, decimals, seed):
    """Scores on and next to the MADD edges get the position a plain search gives."""
    from skfair._stats._histograms import edge_positions, stacked_edges

    edges = np.sort(stacked_edges(np.arange(n_max, 0, -1))[0])
    rng = np.random.default_rng(seed)
    scores = np.concatenate(
        [
            rng.random(500),
            np.round(rng.random(500), decimals),
            edges,
            np.nextafter(edges, -np.inf).clip(0, 1),
            np.nextafter(edges, np.inf).clip(0, 1),
            [0.0, 1.0],
        ]
    )
    np.testing.assert_array_equal(
        edge_positions(scores, edges), np.searchsorted(edges, scores, side="right")
    )


@pytest.mark.parametrize(
    "keys",
    [
        [np.array([-3, 5, 7, 5, -3], dtype=np.int8)],
        [np.array([0, 2, 2, 0], dtype=np.int8)],
        [np.array([1, 2, 1], dtype=np.uint8)],
        [np.array([4, 0, 9, 4])],
        [np.array([True, False, True])],
        [np.array([0, 1, 0, 2], dtype=np.int8), np.array([True, True, False, False])],
        [np.array(["b", "a", "b"])],
    ],
)
def test_partition_codes_of_the_madd_histograms_are_the_factorisers(keys):
    """A partition's group codes (bytes used as codes, dense counts of small integers) are
    those of the frequency tables' factorisation: same codes, same rows, same dtypes."""
    from skfair._stats._histograms import _key_codes
    from skfair._stats._table import DistinctRows

    names = tuple(f"k{j}" for j in range(len(keys)))
    codes, rows = _key_codes(names, keys)
    expected_codes, expected_rows = DistinctRows(names).index(keys)
    np.testing.assert_array_equal(codes, expected_codes)
    for got, expected in zip(rows, expected_rows, strict=True):
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == expected.dtype


def _same_outcome(in_memory, on_dask):
    """Both calls give the same value (1e-12), or raise the same ValueError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = in_memory()
        except ValueError as error:
            with pytest.raises(ValueError) as raised:
                on_dask()
            assert str(raised.value) == str(error)
            return
        got = on_dask()
    if isinstance(expected, float):
        assert _close(got, expected), (got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=labelled_data(), bins=st.integers(2, 6), decimals=st.sampled_from([1, 3]))
def test_binned_outputs_madd_and_uncertainty_equal_in_memory_over_chunkings(data, bins, decimals):
    """The other statistics over the same chunkings: exact quantile cut-offs (ties included),
    histogram counts, and per-partition uncertainty sums."""
    _, _, groups, weights, chunks = data
    n = len(groups)
    rng = np.random.default_rng(n)
    y_true = np.round(rng.normal(size=n), decimals)
    y_pred = y_true + np.round(rng.normal(scale=0.5, size=n), 2)
    dask_groups = _dask(groups, chunks)
    dask_weights = None if weights is None else _dask(weights, chunks)
    for metric in (metrics.demographic_parity_unfairness, metrics.equalized_odds_unfairness):
        _same_outcome(
            lambda metric=metric: metric(
                y_true, y_pred, sensitive_features=groups, bins=bins, sample_weight=weights
            ),
            lambda metric=metric: metric(
                _dask(y_true, chunks),
                _dask(y_pred, chunks),
                sensitive_features=dask_groups,
                bins=bins,
                sample_weight=dask_weights,
            ),
        )
    scores = rng.random(n)
    _same_outcome(
        lambda: metrics.madd(
            None, scores, sensitive_features=groups, bins=bins, sample_weight=weights
        ),
        lambda: metrics.madd(
            None,
            _dask(scores, chunks),
            sensitive_features=dask_groups,
            bins=bins,
            sample_weight=dask_weights,
        ),
    )
    members = rng.integers(0, 3, (4, n))
    proba = np.round(rng.random((4, n)), 2)
    member_chunks = (4, tuple(chunks))
    _same_outcome(
        lambda: metrics.label_stability_difference(
            None, members, sensitive_features=groups, sample_weight=weights
        ),
        lambda: metrics.label_stability_difference(
            None,
            da.from_array(members, chunks=member_chunks),
            sensitive_features=dask_groups,
            sample_weight=dask_weights,
        ),
    )
    _same_outcome(
        lambda: metrics.epistemic_uncertainty_difference(
            None, proba, sensitive_features=groups, sample_weight=weights
        ),
        lambda: metrics.epistemic_uncertainty_difference(
            None,
            da.from_array(proba, chunks=member_chunks),
            sensitive_features=dask_groups,
            sample_weight=dask_weights,
        ),
    )
