"""Tests of skfair.metrics.hfm and hfm_details against the paper's equations written out."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.preprocessing import MinMaxScaler

from skfair.metrics import hfm, hfm_details


def delta_oracle(Z, s):
    D = cdist(Z, Z)
    D[s[:, None] == s[None, :]] = np.inf
    return D.min(axis=1)


def hfm_oracle(X, y, y_pred, S):
    """The paper's Eqs. (4)-(8) written out with cdist on min-max scaled features."""
    X = np.asarray(X, dtype=float)
    span = X.max(0) - X.min(0)
    Xs = (X - X.min(0)) / np.where(span > 0, span, 1)
    classes = np.unique(np.concatenate([y, y_pred]))
    Zy = np.column_stack([np.searchsorted(classes, y), Xs])
    Zf = np.column_stack([np.searchsorted(classes, y_pred), Xs])
    dy = [delta_oracle(Zy, S[:, j]) for j in range(S.shape[1])]
    df = [delta_oracle(Zf, S[:, j]) for j in range(S.shape[1])]
    hfm_max = np.log10(max(d.max() for d in df) / max(d.max() for d in dy))
    hfm_avg = np.log10(np.mean([d.mean() for d in df]) / np.mean([d.mean() for d in dy]))
    return hfm_max, hfm_avg


def make_data(seed, n=200, p=4, n_classes=2, flip=0.2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * [1, 10, 0.1, 3][:p]
    y = rng.integers(0, n_classes, n)
    y_pred = np.where(rng.random(n) < flip, rng.integers(0, n_classes, n), y)
    S = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 4, n)])
    return X, y, y_pred, S


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["exact", "bruteforce"])
def test_matches_equations_oracle(seed, method):
    X, y, y_pred, S = make_data(seed, n_classes=2 + seed % 2)
    expected_max, expected_avg = hfm_oracle(X, y, y_pred, S)
    kwargs = {"sensitive_features": S, "method": method}
    assert hfm(X, y, y_pred, **kwargs) == pytest.approx(expected_max, abs=1e-12)
    assert hfm(X, y, y_pred, version="avg", **kwargs) == pytest.approx(expected_avg, abs=1e-12)


def test_details_are_consistent():
    X, y, y_pred, S = make_data(5)
    d = hfm_details(X, y, y_pred, sensitive_features=S)
    by = d.by_attribute
    assert d.D_max == by["D_max"].max() and d.D_f_max == by["D_f_max"].max()
    assert d.D_avg == pytest.approx(by["D_avg"].mean()) and d.D_f_avg == pytest.approx(
        by["D_f_avg"].mean()
    )
    assert d.hfm_max == pytest.approx(np.log10(d.D_f_max / d.D_max), abs=1e-15)
    # df = log10(1 + df_prev), df_prev = ratio - 1 (Table III's columns)
    assert np.log10(1 + (d.ratio_max - 1)) == pytest.approx(d.hfm_max, abs=1e-12)
    assert d.D_max >= d.D_avg >= 0
    assert by["D_max"].max() >= by["D_avg"].mean()
    np.testing.assert_allclose(d.delta_true.max(axis=0), by["D_max"])
    np.testing.assert_array_equal(by["n_groups"], [2, 4])
    natural = hfm(X, y, y_pred, sensitive_features=S, base=np.e)
    assert natural == pytest.approx(np.log(d.D_f_max / d.D_max), abs=1e-12)


def test_overall_avg_is_log_of_ratio_of_means():
    X, y, y_pred, S = make_data(6)
    d = hfm_details(X, y, y_pred, sensitive_features=S)
    ratio_of_means = np.log10(d.by_attribute["D_f_avg"].mean() / d.by_attribute["D_avg"].mean())
    mean_of_logs = d.by_attribute["hfm_avg"].mean()
    assert abs(ratio_of_means - mean_of_logs) > 1e-6  # the case distinguishes them
    assert d.hfm_avg == pytest.approx(ratio_of_means, abs=1e-14)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["exact", "approx", "bruteforce"]))
@pytest.mark.filterwarnings("ignore:X column:UserWarning")
def test_perfect_classifier_scores_exactly_zero(seed, method):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    X = rng.integers(0, 3, (n, 3)).astype(float)
    y = rng.integers(0, 3, n)
    S = np.column_stack([rng.integers(0, 2, n), np.arange(n) % 3])
    for version in ("max", "avg"):
        value = hfm(
            X,
            y,
            y.copy(),
            sensitive_features=S,
            version=version,
            method=method,
            random_state=None,
            m1=3,
        )
        assert value == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_approx_distances_bound_exact(seed):
    X, y, y_pred, S = make_data(seed, n=300)
    exact = hfm_details(X, y, y_pred, sensitive_features=S)
    approx = hfm_details(
        X, y, y_pred, sensitive_features=S, method="approx", m1=3, random_state=seed
    )
    for key in ("D_max", "D_f_max"):
        assert approx[key] >= exact[key]
    for key in ("D_avg", "D_f_avg"):
        assert approx[key] >= exact[key] * (1 - 1e-12)
    assert approx.m2 == 5 and approx.n_e == 2 and approx.m1 == 3
    full = hfm_details(X, y, y_pred, sensitive_features=S, method="approx", m1=1, m2=300)
    assert (full.hfm_max, full.hfm_avg) == (exact.hfm_max, exact.hfm_avg)


def test_row_order_and_group_relabelling():
    X, y, y_pred, S = make_data(7)
    value = hfm(X, y, y_pred, sensitive_features=S, version="avg")
    perm = np.random.default_rng(0).permutation(len(y))
    assert hfm(X[perm], y[perm], y_pred[perm], sensitive_features=S[perm], version="avg") == (
        pytest.approx(value, abs=1e-13)
    )
    relabelled = pd.DataFrame({"a": np.array(["x", "y"])[S[:, 0]], "b": 10 - S[:, 1]})
    assert hfm(X, y, y_pred, sensitive_features=relabelled, version="avg") == value


def test_string_labels_equal_integer_codes():
    X, y, y_pred, S = make_data(8, n_classes=3)
    names = np.array(["bad", "good", "ok"])
    assert hfm(X, names[y], names[y_pred], sensitive_features=S) == hfm(
        X, y, y_pred, sensitive_features=S
    )


def test_class_only_in_predictions_gets_a_code():
    X, y, _, S = make_data(9)
    y_pred = y.copy()
    y_pred[:5] = 2  # class 2 never appears in y_true
    expected, _ = hfm_oracle(X, y, y_pred, S)
    assert hfm(X, y, y_pred, sensitive_features=S) == pytest.approx(expected, abs=1e-12)


def test_onehot_label_encoding():
    X, y, y_pred, S = make_data(10, n_classes=2)
    assert hfm(X, y, y_pred, sensitive_features=S, label_encoding="onehot") == hfm(
        X, y, y_pred, sensitive_features=S
    )
    X, y, y_pred, S = make_data(10, n_classes=3)
    # With indicators / sqrt(2), a label mismatch costs exactly 1 whatever the classes.
    d = hfm_details(X, y, y_pred, sensitive_features=S[:, 0], label_encoding="onehot")
    Xs = MinMaxScaler().fit_transform(X)
    Zy = np.column_stack([np.eye(3)[y] / np.sqrt(2), Xs])
    assert d.D_max == pytest.approx(delta_oracle(Zy, S[:, 0]).max(), rel=1e-12)


def test_scaling_options():
    X, y, y_pred, S = make_data(11)
    scaled = MinMaxScaler().fit_transform(X)
    value = hfm(X, y, y_pred, sensitive_features=S)
    assert hfm(scaled, y, y_pred, sensitive_features=S, scale=None) == pytest.approx(
        value, abs=1e-12
    )
    assert hfm(X, y, y_pred, sensitive_features=S, scale=MinMaxScaler().fit(X)) == (
        pytest.approx(value, abs=1e-12)
    )
    with_constant = np.column_stack([X, np.full(len(y), 7.0)])
    assert hfm(with_constant, y, y_pred, sensitive_features=S) == pytest.approx(value, abs=1e-12)


def test_categorical_dataframe_is_one_hot_encoded():
    X, y, y_pred, S = make_data(12, p=2)
    colour = np.random.default_rng(0).choice(["red", "green", "blue"], len(y))
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "colour": colour, "flag": X[:, 0] > 0})
    numeric = np.column_stack(
        [X, (colour[:, None] == np.array(["blue", "green", "red"])).astype(float), X[:, 0] > 0]
    )
    assert hfm(frame, y, y_pred, sensitive_features=S) == pytest.approx(
        hfm(numeric, y, y_pred, sensitive_features=S), abs=1e-12
    )
    with pytest.raises(ValueError, match="non-numeric"):
        hfm(frame, y, y_pred, sensitive_features=S, scale=None)


def test_sensitive_column_in_X_warns():
    X, y, y_pred, S = make_data(13)
    leaked = np.column_stack([X, 5 - 3 * S[:, 1]])
    with pytest.warns(UserWarning, match=r"X\[:, 4\].*sensitive_features\[:, 1\]"):
        hfm(leaked, y, y_pred, sensitive_features=S)


# --------------------------------------------------------------------------------------------
# zero distances and single-valued attributes


def test_zero_distance_cases():
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    s = np.array([0, 1, 0, 1])
    y = np.array([0, 0, 1, 1])
    assert hfm(X, y, y, sensitive_features=s) == 0.0  # (0, 0)
    flipped = np.array([1, 0, 1, 1])  # D = 0 < D_f
    with pytest.warns(UndefinedMetricWarning):
        assert hfm(X, y, flipped, sensitive_features=s) == np.inf
    d = hfm_details(X, y, flipped, sensitive_features=s, eps=1e-13)
    assert d.hfm_max == pytest.approx(np.log10(d.D_f_max / 1e-13))
    # D_f = 0 < D: the predictions erase the label difference between the groups.
    y2, pred2 = np.array([0, 1, 0, 1]), np.array([0, 0, 0, 0])
    X2 = np.zeros((4, 1))
    with pytest.warns(UndefinedMetricWarning):
        assert hfm(X2, y2, pred2, sensitive_features=s) == -np.inf
    assert hfm(X2, y2, pred2, sensitive_features=s, eps=1e-13) == pytest.approx(-13)


def test_single_valued_attribute_is_skipped():
    X, y, y_pred, S = make_data(14)
    S = S.copy()
    S[:, 0] = 1
    for version in ("max", "avg"):
        with pytest.warns(UserWarning, match="sensitive_features\\[:, 0\\]"):
            d = hfm_details(X, y, y_pred, sensitive_features=S)
        assert np.isnan(d.by_attribute["D_max"][0]) and np.isnan(d.by_attribute["hfm_avg"][0])
        assert d[f"hfm_{version}"] == hfm(X, y, y_pred, sensitive_features=S[:, 1], version=version)
    with pytest.raises(ValueError, match="at least 2 groups"):
        hfm(X, y, y_pred, sensitive_features=np.ones(len(y)))


def test_no_sentinel_leaks():
    X, y, y_pred, S = make_data(15)
    S = S.copy()
    S[:, 1] = 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        d = hfm_details(X, y, y_pred, sensitive_features=S, method="approx", random_state=0)
    values = np.array([d.D_max, d.D_avg, d.D_f_max, d.D_f_avg])
    assert np.all(values < 1e30)


# --------------------------------------------------------------------------------------------
# paper sanity (Table III: df = log10(1 + df_prev multival), base 10)


@pytest.mark.parametrize(
    ("df_prev", "df", "tolerance"),
    [
        (-0.0059, -0.0026, 1.4e-4),
        (-0.0414, -0.0185, 1.4e-4),
        (-0.0114, -0.0050, 1.4e-4),
        (-0.0027, -0.0013, 1.4e-4),
        (-0.0107, -0.0054, 7.4e-4),
    ],
)
def test_table_iii_log10_relation(df_prev, df, tolerance):
    # The paper's printed pairs follow log10 and not ln; hfm's ratio - 1 is df_prev.
    assert abs(np.log10(1 + df_prev) - df) <= tolerance
    assert abs(np.log(1 + df_prev) - df) > tolerance or df_prev == -0.0027


# --------------------------------------------------------------------------------------------
# validation


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"version": "mean"}, "'version' parameter of hfm must be"),
        ({"method": "fast"}, "'method' parameter of hfm must be"),
        ({"label_encoding": "binary"}, "'label_encoding' parameter of hfm must be"),
        ({"scale": "standard"}, "'scale' parameter of hfm must be"),
        ({"method": "approx", "m1": 0}, "'m1' parameter of hfm must be"),
        ({"method": "approx", "m2": 0}, "'m2' parameter of hfm must be"),
        ({"eps": 0.0}, "'eps' parameter of hfm must be"),
        ({"base": -2}, "'base' parameter of hfm must be"),
    ],
)
def test_parameter_errors(kwargs, match):
    X, y, y_pred, S = make_data(16, n=20)
    with pytest.raises(ValueError, match=match):
        hfm(X, y, y_pred, sensitive_features=S, **kwargs)


def test_input_errors():
    X, y, y_pred, S = make_data(17, n=20)
    bad = X.copy()
    bad[4, 2] = np.nan
    with pytest.raises(ValueError, match=r"X\[:, 2\]"):
        hfm(bad, y, y_pred, sensitive_features=S)
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        hfm(X, y[:-1], y_pred, sensitive_features=S)
    with pytest.raises(ValueError, match="continuous"):
        hfm(X, y + 0.5 * np.arange(20), y_pred, sensitive_features=S)
    with pytest.raises(ValueError, match="19 samples but the data has 20"):
        hfm(X, y, y_pred, sensitive_features=S[:-1])
    with pytest.raises(ValueError, match="at least 2 samples"):
        hfm(X[:1], y[:1], y_pred[:1], sensitive_features=S[:1])


def test_object_array_with_numeric_columns():
    X, y, y_pred, S = make_data(18, p=2)
    colour = np.random.default_rng(1).choice(["red", "blue"], len(y))
    mixed = np.empty((len(y), 3), dtype=object)
    mixed[:, 0] = X[:, 0].tolist()
    mixed[:, 1] = np.round(X[:, 1]).astype(int).tolist()
    mixed[:, 2] = colour
    numeric = np.column_stack(
        [X[:, 0], np.round(X[:, 1]), (colour[:, None] == np.array(["blue", "red"])).astype(float)]
    )
    assert hfm(mixed, y, y_pred, sensitive_features=S) == pytest.approx(
        hfm(numeric, y, y_pred, sensitive_features=S), abs=1e-12
    )


# --------------------------------------------------------------------------------------------
# scorer


def _scorer_data():
    rng = np.random.default_rng(19)
    n = 240
    X = rng.normal(size=(n, 3))
    sex = rng.integers(0, 2, n)
    y = (X[:, 0] + 0.5 * sex + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y, sex


def test_scorer_is_minus_abs_hfm():
    from sklearn.tree import DecisionTreeClassifier

    from skfair.metrics import get_fairness_scorer

    X, y, sex = _scorer_data()
    model = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    scorer = get_fairness_scorer("hfm")
    expected = -abs(hfm(X, y, model.predict(X), sensitive_features=sex))
    assert expected != 0.0
    assert scorer(model, X, y, sensitive_features=sex) == expected
    # Column mode: the sensitive column is read from X and dropped before hfm.
    X_with = np.column_stack([X, sex])
    model_with = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X_with, y)
    column_scorer = get_fairness_scorer("hfm", sensitive_column=3)
    assert column_scorer(model_with, X_with, y) == -abs(
        hfm(X, y, model_with.predict(X_with), sensitive_features=sex)
    )


def test_scorer_in_grid_search_both_modes():
    import sklearn
    from sklearn.model_selection import GridSearchCV, cross_validate
    from sklearn.tree import DecisionTreeClassifier

    from skfair.metrics import get_fairness_scorer

    X, y, sex = _scorer_data()
    X_with = np.column_stack([X, sex])
    scoring = {"acc": "accuracy", "hfm": get_fairness_scorer("hfm", sensitive_column=3)}
    search = GridSearchCV(
        DecisionTreeClassifier(random_state=0),
        {"max_depth": [1, 3]},
        scoring=scoring,
        refit="acc",
        cv=3,
    ).fit(X_with, y)
    assert np.all(search.cv_results_["mean_test_hfm"] <= 0)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = {"acc": "accuracy", "hfm": get_fairness_scorer("hfm")}
        search = GridSearchCV(
            DecisionTreeClassifier(random_state=0),
            {"max_depth": [1, 3]},
            scoring=routed,
            refit="acc",
            cv=3,
        ).fit(X, y, sensitive_features=sex)
        assert np.all(np.isfinite(search.cv_results_["mean_test_hfm"]))
        result = cross_validate(
            DecisionTreeClassifier(max_depth=2, random_state=0),
            X,
            y,
            cv=3,
            scoring={"hfm": get_fairness_scorer("hfm")},
            params={"sensitive_features": sex},
        )
        assert np.all(result["test_hfm"] <= 0)


# --------------------------------------------------------------------------------------------
# hfm_details / hfm split, sample_weight, verbose


def test_hfm_is_the_chosen_version_of_hfm_details():
    X, y, y_pred, S = make_data(30)
    details = hfm_details(X, y, y_pred, sensitive_features=S)
    expected_max, expected_avg = hfm_oracle(X, y, y_pred, S)
    assert details.hfm_max == pytest.approx(expected_max, abs=1e-12)
    assert details.hfm_avg == pytest.approx(expected_avg, abs=1e-12)
    assert hfm(X, y, y_pred, sensitive_features=S) == details.hfm_max
    assert hfm(X, y, y_pred, sensitive_features=S, version="avg") == details.hfm_avg
    assert isinstance(hfm(X, y, y_pred, sensitive_features=S), float)


def test_integer_weights_equal_repeated_rows():
    X, y, y_pred, S = make_data(31, n=80)
    weights = np.random.default_rng(0).integers(0, 4, 80)
    assert (weights == 0).any() and (weights > 1).any()
    repeated = np.repeat(np.arange(80), weights)
    for method in ("exact", "bruteforce"):
        weighted = hfm_details(
            X, y, y_pred, sensitive_features=S, sample_weight=weights, method=method
        )
        plain = hfm_details(
            X[repeated],
            y[repeated],
            y_pred[repeated],
            sensitive_features=S[repeated],
            method=method,
        )
        for key in ("D_max", "D_avg", "D_f_max", "D_f_avg", "hfm_max", "hfm_avg"):
            assert weighted[key] == pytest.approx(plain[key], rel=1e-12, abs=1e-15)
        assert np.isnan(weighted.delta_true[weights == 0]).all()


def test_weighted_average_against_an_oracle():
    X, y, y_pred, S = make_data(32, n=60)
    weights = np.random.default_rng(1).random(60)
    details = hfm_details(X, y, y_pred, sensitive_features=S, sample_weight=weights)
    span = X.max(0) - X.min(0)
    Zy = np.column_stack([y, (X - X.min(0)) / span])
    expected = np.mean([np.average(delta_oracle(Zy, S[:, j]), weights=weights) for j in (0, 1)])
    assert details.D_avg == pytest.approx(expected, rel=1e-12)
    unit = hfm_details(X, y, y_pred, sensitive_features=S, sample_weight=np.ones(60))
    plain = hfm_details(X, y, y_pred, sensitive_features=S)
    assert (unit.D_avg, unit.D_f_avg, unit.hfm_avg) == (plain.D_avg, plain.D_f_avg, plain.hfm_avg)


def test_weighted_approx_is_an_upper_bound_and_ones_change_nothing():
    X, y, y_pred, S = make_data(33, n=120)
    weights = np.random.default_rng(2).random(120)
    approx = hfm_details(
        X,
        y,
        y_pred,
        sensitive_features=S,
        sample_weight=weights,
        method="approx",
        random_state=0,
    )
    exact = hfm_details(X, y, y_pred, sensitive_features=S, sample_weight=weights)
    assert approx.D_avg >= exact.D_avg * (1 - 1e-12)
    kwargs = {"sensitive_features": S, "method": "approx", "random_state": 0}
    assert hfm_details(X, y, y_pred, sample_weight=np.ones(120), **kwargs).D_avg == (
        hfm_details(X, y, y_pred, **kwargs).D_avg
    )


def test_sample_weight_errors():
    X, y, y_pred, S = make_data(34, n=20)
    with pytest.raises(ValueError, match="negative"):
        hfm(X, y, y_pred, sensitive_features=S, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="positive sample_weight"):
        hfm(X, y, y_pred, sensitive_features=S, sample_weight=np.r_[1.0, np.zeros(19)])


def test_verbose_prints_the_engine(capsys):
    X, y, y_pred, S = make_data(35, n=50)
    hfm(X, y, y_pred, sensitive_features=S, verbose=1)
    assert "exact (kd_tree)" in capsys.readouterr().out
    hfm(X, y, y_pred, sensitive_features=S)
    assert capsys.readouterr().out == ""


# --------------------------------------------------------------------------------------------
# hostile input


@pytest.mark.parametrize(
    "column",
    [
        pd.array([True, False, None, True] * 10, dtype="boolean"),
        pd.array(["a", "b", None, "a"] * 10, dtype="string"),
        pd.array([1, 2, None, 4] * 10, dtype="Int64"),
    ],
)
def test_nullable_columns_with_na_raise_naming_the_column(column):
    frame = pd.DataFrame({"x": np.arange(40.0), "nullable": column})
    y = np.arange(40) % 2
    with pytest.raises(ValueError, match="'nullable' has missing values"):
        hfm(frame, y, y, sensitive_features=np.arange(40) % 3)


def test_nullable_columns_without_na_equal_their_numpy_versions():
    rng = np.random.default_rng(3)
    flags, words = rng.random(40) < 0.5, rng.choice(["a", "b", "c"], 40)
    y, y_pred, s = rng.integers(0, 2, 40), rng.integers(0, 2, 40), rng.integers(0, 2, 40)
    nullable = pd.DataFrame(
        {"flag": pd.array(flags, dtype="boolean"), "word": pd.array(words, dtype="string")}
    )
    plain = pd.DataFrame({"flag": flags, "word": words.astype(object)})
    assert hfm(nullable, y, y_pred, sensitive_features=s) == hfm(
        plain, y, y_pred, sensitive_features=s
    )


def test_identifier_like_column_is_refused_before_allocating(monkeypatch):
    from skfair.metrics import _hfm_features

    monkeypatch.setattr(_hfm_features, "_MAX_ENCODED_BYTES", 2**20)
    n = 3000
    frame = pd.DataFrame({"x": np.arange(n, dtype=float), "id": [f"id{i}" for i in range(n)]})
    y = np.arange(n) % 2
    with pytest.raises(ValueError, match="'id' alone has 3000 distinct values"):
        hfm(frame, y, y, sensitive_features=np.arange(n) % 3)


def test_one_hot_encoding_matches_indicators_of_many_levels():
    rng = np.random.default_rng(4)
    words = rng.choice([f"w{i}" for i in range(300)], 400)
    levels = np.unique(words)
    indicators = (words[:, None] == levels).astype(float)
    y, s = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    y_pred = np.where(rng.random(400) < 0.2, 1 - y, y)
    frame = pd.DataFrame({"word": words})
    assert hfm(frame, y, y_pred, sensitive_features=s) == hfm(
        indicators, y, y_pred, sensitive_features=s, scale=None
    )


@pytest.mark.parametrize("magnitude", [1e155, 1e300, 1.7e308])
def test_huge_coordinates_are_scaled_by_minmax(magnitude):
    X, y, y_pred, S = make_data(36, n=40)
    huge = X / np.abs(X).max() * magnitude
    assert hfm(huge, y, y_pred, sensitive_features=S) == pytest.approx(
        hfm(X, y, y_pred, sensitive_features=S), rel=1e-9
    )


def test_full_float_range_column_is_scaled_to_the_unit_interval():
    from skfair.metrics._hfm_features import encode_features

    X = np.array([[-1.7e308, 0.0], [0.0, 1.0], [1.7e308, 2.0]])
    encoded, _ = encode_features(X, "minmax")
    np.testing.assert_allclose(encoded, [[0, 0], [0.5, 0.5], [1, 1]], rtol=1e-15)


def test_huge_coordinates_without_scaling_raise_clearly():
    X, y, y_pred, S = make_data(37, n=40)
    with pytest.raises(ValueError, match="squared distances would overflow"):
        hfm(X * 1e160, y, y_pred, sensitive_features=S, scale=None)


def test_warnings_point_at_the_caller():
    # hfm and hfm_details are wrapped by validate_params: the warnings must still name the
    # line that called them, not a frame inside skfair or scikit-learn.
    X = np.array([[0.0], [0.2], [0.4], [0.6]])
    y = np.array([0, 0, 1, 1])
    single = np.column_stack([[0, 1, 0, 1], [5, 5, 5, 5]])
    with pytest.warns(UserWarning, match="single value") as record:
        hfm(X, y, y, sensitive_features=single)
    assert record[0].filename == __file__
    X_leak = np.column_stack([X[:, 0], [0.0, 1.0, 0.0, 1.0]])
    with pytest.warns(UserWarning) as record:
        hfm_details(X_leak, y, y, sensitive_features=np.array([0, 1, 0, 1]))
    assert {r.filename for r in record} == {__file__}
    with pytest.warns(UndefinedMetricWarning) as record:
        # Pairs of identical rows in different groups: only the true labels tell them apart.
        hfm(
            [[0.0], [0.0], [1.0], [1.0]],
            [0, 1, 0, 1],
            [0, 0, 0, 0],
            sensitive_features=[0, 1, 0, 1],
        )
    assert record[0].filename == __file__
