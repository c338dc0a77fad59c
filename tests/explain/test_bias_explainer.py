"""Tests of BiasExplainer: identities, the targets of Miroshnikov et al. (2022) and
scikit-learn conventions."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import NotFittedError, UndefinedMetricWarning
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfair._utils._response import ScoreReader
from skfair.datasets import make_bias_example
from skfair.explain import BiasExplainer, explain_bias
from skfair.explain._games import MarginalGame, RowPool
from skfair.metrics import wasserstein_bias

PARTS = ("total", "positive", "negative", "net")
SHAPLEY_METHODS = ("shapley", "marginal")


class ScoreStub(ClassifierMixin, BaseEstimator):
    """A 'fitted' classifier whose P(Y=1 | x) is a given function; fitting it is an error."""

    def __init__(self, score_function=None):
        self.score_function = score_function

    def fit(self, X, y=None):
        raise AssertionError("BiasExplainer must never fit the wrapped model.")

    def __sklearn_is_fitted__(self):
        return True

    @property
    def classes_(self):
        return np.array([0, 1])

    def predict_proba(self, X):
        p = self.score_function(np.asarray(X, dtype=float))
        return np.column_stack([1 - p, p])

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] > 0.5).astype(int)


def _sigmoid_of_weighted_sum(X):
    return 1 / (1 + np.exp(-(X @ np.array([1.0, -0.5, 0.8, 0.0]) + 0.3 * X[:, 0] * X[:, 1])))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 300
    group = rng.integers(0, 2, n)
    X = np.column_stack(
        [
            rng.normal(0.6 * group, 1.0),
            rng.normal(size=n),
            rng.normal(-0.4 * group, 1.0 + 0.5 * group),
            rng.normal(size=n),
        ]
    )
    return X, group


def _explain(data, **params):
    X, group = data
    params = {
        "estimator": ScoreStub(_sigmoid_of_weighted_sum),
        "n_background": 30,
        "random_state": 0,
        **params,
    }
    return BiasExplainer(**params).fit(X, sensitive_features=group)


def _assert_additive(explainer, atol=1e-10):
    for part in PARTS:
        assert explainer.explanations_[f"shapley_{part}"].sum() == pytest.approx(
            explainer.bias_[part], abs=atol
        )


@pytest.mark.parametrize("method", SHAPLEY_METHODS)
def test_exact_shapley_bias_is_additive(data, method):
    explainer = _explain(data, method=method)
    assert explainer.shapley_method_ == "exact"
    _assert_additive(explainer)
    assert explainer.bias_game_.total[0] == 0.0  # v^bias(empty) = 0 exactly
    for part in PARTS:
        assert explainer.bias_game_[part][-1] == explainer.bias_[part]
    ex = explainer.explanations_
    np.testing.assert_allclose(ex.positive + ex.negative, ex.total, rtol=1e-12)
    np.testing.assert_allclose(ex.positive - ex.negative, ex.net, atol=1e-15)
    # The model bias is the metric on the same rows.
    X, group = data
    score = _sigmoid_of_weighted_sum(X)
    assert explainer.bias_.total == wasserstein_bias(None, score, sensitive_features=group)


def test_permutation_shapley_bias_is_additive(data):
    for method in SHAPLEY_METHODS:
        explainer = _explain(data, method=method, n_permutations=7)
        assert explainer.shapley_method_ == "permutation"
        assert explainer.n_permutations_ == 7
        _assert_additive(explainer, atol=1e-12)
        # Per-row Shapley values also telescope: sum_j phi_j(x) = f(x) - v({}).
        if method == "shapley":
            X, _ = data
            rows = X[explainer.eval_index_]
            offset = _sigmoid_of_weighted_sum(explainer.background_).mean()
            np.testing.assert_allclose(
                explainer.attributions_.sum(axis=1),
                _sigmoid_of_weighted_sum(rows) - offset,
                atol=1e-12,
            )


def test_net_identities(data):
    shapley = _explain(data, method="shapley")
    marginal = _explain(data, method="marginal")
    ex = shapley.explanations_
    # Choice (b): the net bias game is additive, so its Shapley values are beta^net.
    np.testing.assert_allclose(ex.shapley_net, ex.net, atol=1e-10)
    # Choice (a): the net game is linear in the model game: same values as choice (b).
    np.testing.assert_allclose(marginal.explanations_.shapley_net, ex.net, atol=1e-10)
    assert ex.net.sum() == pytest.approx(shapley.bias_.net, abs=1e-10)
    # Lemma 4.3: beta^net is the signed mean difference of the attributions.
    X, group = data
    in_group = group[shapley.eval_index_]
    mean_gap = shapley.attributions_[in_group == shapley.privileged_group_].mean(
        axis=0
    ) - shapley.attributions_[in_group == shapley.protected_group_].mean(axis=0)
    np.testing.assert_allclose(ex.net, shapley.sign_ * mean_gap, atol=1e-12)


@pytest.mark.parametrize("method", ["shapley", "marginal", "pdp"])
def test_identical_groups_have_zero_bias(method):
    rng = np.random.default_rng(1)
    X0 = rng.normal(size=(40, 3))
    X = np.vstack([X0, X0])
    group = np.repeat([0, 1], 40)
    model = ScoreStub(lambda Z: 1 / (1 + np.exp(-Z.sum(axis=1))))
    explainer = BiasExplainer(model, method=method, n_background=10, random_state=0).fit(
        X, sensitive_features=group
    )
    assert all(explainer.bias_[part] == 0.0 for part in PARTS)
    for key, values in explainer.explanations_.items():
        if key != "names":
            np.testing.assert_allclose(values, 0.0, atol=1e-15)


@pytest.mark.parametrize("method", ["shapley", "marginal", "pdp"])
def test_ignored_feature_gets_zero_explanation(data, method):
    explainer = _explain(data, method=method)  # the model ignores x3
    ex = explainer.explanations_
    for part in PARTS:
        assert ex[part][3] == pytest.approx(0.0, abs=1e-12)
        if method != "pdp":
            assert ex[f"shapley_{part}"][3] == pytest.approx(0.0, abs=1e-12)
    assert ex.total[:3].min() > 1e-3


def test_model_independent_of_group_has_zero_bias(data):
    X, group = data
    model = ScoreStub(lambda Z: 1 / (1 + np.exp(-(Z[:, 1] + Z[:, 3]))))  # x1, x3 only
    explainer = BiasExplainer(model, n_background=20, random_state=0).fit(
        X[:, :4], sensitive_features=group
    )
    # x1 and x3 are independent of the group: the bias is sampling noise only.
    assert explainer.bias_.total < 0.05
    explainer = BiasExplainer(model, n_background=20, random_state=0).fit(
        np.column_stack([X[:, 0], np.zeros(len(X)), X[:, 2], np.zeros(len(X))]),
        sensitive_features=group,
    )
    assert all(explainer.bias_[part] == 0.0 for part in PARTS)
    np.testing.assert_array_equal(explainer.explanations_.shapley_total, 0.0)


@pytest.mark.parametrize("method", ["shapley", "marginal", "pdp"])
def test_favorable_flip_swaps_parts(data, method):
    higher = _explain(data, method=method, privileged_group=0)
    lower = _explain(data, method=method, privileged_group=0, favorable="lower")
    prefixes = ("", "shapley_") if method != "pdp" else ("",)
    for prefix in prefixes:
        for a, b in (("positive", "negative"), ("negative", "positive")):
            np.testing.assert_allclose(
                lower.explanations_[prefix + a], higher.explanations_[prefix + b], atol=1e-14
            )
        np.testing.assert_allclose(
            lower.explanations_[prefix + "net"], -higher.explanations_[prefix + "net"], atol=1e-14
        )
    assert lower.bias_.positive == pytest.approx(higher.bias_.negative, abs=1e-15)


def test_additive_model_lemma_4_5():
    """f = sum f_i(x_i) with dependent features: PDP and Shapley betas coincide."""
    rng = np.random.default_rng(2)
    n = 200
    group = rng.integers(0, 2, n)
    x1 = rng.normal(group, 1.0)
    X = np.column_stack([x1, 0.8 * x1 + rng.normal(size=n), rng.normal(size=n)])
    model = LinearRegression().fit(X, X @ np.array([1.0, -2.0, 0.5]))
    pdp = BiasExplainer(model, method="pdp", n_background=40, random_state=0).fit(
        X, sensitive_features=group
    )
    shapley = BiasExplainer(model, n_background=40, random_state=0).fit(X, sensitive_features=group)
    for part in PARTS:
        np.testing.assert_allclose(pdp.explanations_[part], shapley.explanations_[part], atol=1e-10)
    assert shapley.explanations_.net.sum() == pytest.approx(shapley.bias_.net, abs=1e-10)
    terms = X * model.coef_
    expected = terms[shapley.eval_index_] - (shapley.background_ * model.coef_).mean(axis=0)
    np.testing.assert_allclose(shapley.attributions_, expected, atol=1e-10)


def test_shapley_beta_can_exceed_one():
    """Shapley explainer betas are bounded by 2, not by 1 as the paper's Lemma 4.4 states:
    a Shapley value of a [0, 1] score lies in [-1, 1]."""
    table = {(0, 0): 0, (1, 0): 1, (1, 1): 1, (0, 1): 0, (2, 0): 0, (2, 2): 0, (0, 2): 1}

    def lookup(Z):
        return np.array([table[tuple(int(v) for v in row)] for row in Z], dtype=float)

    explainer = BiasExplainer(ScoreStub(lookup), background=[[0, 0]], n_background=None).fit(
        np.array([[1, 1], [2, 2]]), sensitive_features=[0, 1]
    )
    np.testing.assert_allclose(explainer.attributions_[:, 0], [1.0, -0.5])
    assert explainer.explanations_.total[0] == pytest.approx(1.5)


def test_feature_groups(data):
    singletons = _explain(data, feature_groups=[[0], [1], [2], [3]])
    plain = _explain(data)
    for key in PARTS:
        np.testing.assert_array_equal(
            singletons.explanations_[f"shapley_{key}"], plain.explanations_[f"shapley_{key}"]
        )
    everything = _explain(data, method="marginal", feature_groups=[[0, 1, 2, 3]])
    for part in PARTS:
        assert everything.explanations_[f"shapley_{part}"][0] == pytest.approx(
            everything.bias_[part], abs=1e-14
        )
    partial = _explain(data, method="marginal", feature_groups={"first": [0, 2]})
    assert partial.explanations_.names.tolist() == ["first", "x1", "x3"]
    _assert_additive(partial)
    conditional = _explain(data, method="conditional", feature_groups={"first": [0, 2]})
    for part in PARTS:
        np.testing.assert_allclose(
            conditional.explanations_[f"shapley_{part}"],
            partial.explanations_[f"shapley_{part}"],
            atol=1e-15,
        )
    with pytest.raises(ValueError, match="more than one feature group"):
        _explain(data, feature_groups=[[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="needs feature_groups"):
        _explain(data, method="conditional")
    X, group = data
    correlated = np.column_stack([X[:, 0], X[:, 0] + 0.1 * X[:, 1], X[:, 2], X[:, 3]])
    with pytest.warns(UserWarning, match="Spearman"):
        BiasExplainer(
            ScoreStub(_sigmoid_of_weighted_sum),
            method="conditional",
            feature_groups=[[0], [1]],
            n_background=10,
        ).fit(correlated, sensitive_features=group)


def test_dedup_is_exact():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(60, 3)).astype(float)
    model = ScoreStub(lambda Z: 1 / (1 + np.exp(-(Z[:, 0] - Z[:, 1] * Z[:, 2]))))
    response = ScoreReader.from_estimator(model, "auto", None)
    pool = RowPool(X, X[:15])
    masks = np.array([[True, False, False], [False, True, True], [True, False, True]])
    games = [
        MarginalGame(
            model, response, pool, [np.array([j]) for j in range(3)], 0.0, np.zeros(60), dedup=dedup
        )
        for dedup in (True, False)
    ]
    np.testing.assert_allclose(games[0].values(masks), games[1].values(masks), atol=1e-12)


@pytest.mark.slow
def test_permutation_sampling_converges_at_root_n_rate(data):
    # A simulation: 30 sampled explanations against the exact one. A fixed background, so
    # that the seed only changes the permutations.
    fixed = dict(method="marginal", background=data[0][:30], n_background=None)
    explainer = _explain(data, **fixed)
    exact = np.column_stack(
        [explainer.explanations_.shapley_positive, explainer.explanations_.shapley_negative]
    )
    counts = (8, 32, 128)
    rmse, covered = [], []
    for n_permutations in counts:
        errors = []
        for seed in range(10):
            sampled = _explain(data, n_permutations=n_permutations, random_state=seed, **fixed)
            ex = sampled.explanations_
            error = np.column_stack([ex.shapley_positive, ex.shapley_negative]) - exact
            errors.append(error)
            if n_permutations >= 32:
                stderr = np.column_stack([ex.shapley_positive_stderr, ex.shapley_negative_stderr])
                covered.append(np.abs(error) <= 3 * stderr + 1e-15)
        rmse.append(np.sqrt(np.mean(np.square(errors))))
    slope = np.polyfit(np.log(counts), np.log(rmse), 1)[0]
    assert -0.75 <= slope <= -0.3, (rmse, slope)
    assert np.mean(covered) >= 0.85


@pytest.mark.parametrize("n_permutations", ["exact", 12])
@pytest.mark.parametrize("method", SHAPLEY_METHODS)
def test_results_are_bit_identical_for_any_n_jobs(method, n_permutations):
    # Regression: the exact reduction summed per-task partial sums whose split depended on
    # n_jobs, so n_jobs=1 and n_jobs=2 differed by 3e-16.
    rng = np.random.default_rng(5)
    group = rng.integers(0, 2, 120)
    X = rng.normal(group[:, None] * np.linspace(0.2, 1.0, 8), 1.0)
    model = LogisticRegression().fit(X, X @ np.linspace(-1, 1, 8) > 0)
    params = dict(method=method, n_permutations=n_permutations, n_background=25, random_state=0)
    serial = BiasExplainer(model, n_jobs=1, **params).fit(X, sensitive_features=group)
    parallel = BiasExplainer(model, n_jobs=2, **params).fit(X, sensitive_features=group)
    np.testing.assert_array_equal(parallel.attributions_, serial.attributions_)
    for key, values in serial.explanations_.items():
        np.testing.assert_array_equal(parallel.explanations_[key], values, err_msg=key)


def test_paper_m1_fitted_logistic_regression():
    data = make_bias_example("M1", 20000, random_state=0)
    model = LogisticRegression().fit(data.data, data.target)
    bias = (
        BiasExplainer(
            model,
            method="pdp",
            favorable="lower",
            privileged_group=0,
            n_background=10,
            random_state=0,
        )
        .fit(data.data, sensitive_features=data.sensitive)
        .bias_
    )
    assert bias.total == pytest.approx(0.1383, abs=0.01)  # paper's M1; 5 seeds: 0.131-0.143
    assert bias.positive == pytest.approx(bias.total) and bias.negative < 0.002


def test_paper_m3_pdp_explanations():
    data = make_bias_example("M3", 20000, random_state=0)
    model = LogisticRegression().fit(data.data, data.target)
    explainer = BiasExplainer(
        model,
        method="pdp",
        favorable="lower",
        privileged_group=0,
        n_background=1000,
        random_state=0,
    ).fit(data.data, sensitive_features=data.sensitive)
    ex = explainer.explanations_
    np.testing.assert_allclose(ex.total, 0.1751, atol=0.015)
    # The definitions give beta_1 = beta_1^- and beta_2 = beta_2^+ (the paper's text on M3
    # labels them the other way round; its magnitude 0.175 is unaffected).
    assert ex.positive[0] < 0.002 and ex.negative[1] < 0.002
    assert explainer.bias_.total < 0.01


def test_paper_m6_true_model_fast_tier():
    """The paper's model M6 (population values) at N_e = 4000, K = 200, tolerance 0.035."""
    data = make_bias_example("M6", 4000, random_state=0)
    model = ScoreStub(data.score_function)
    common = dict(favorable="lower", privileged_group=0, n_background=200, random_state=0)
    shapley = BiasExplainer(model, **common).fit(data.data, sensitive_features=data.sensitive)
    pdp = BiasExplainer(model, method="pdp", **common).fit(
        data.data, sensitive_features=data.sensitive
    )
    marginal = BiasExplainer(model, method="marginal", **common).fit(
        data.data, sensitive_features=data.sensitive
    )
    grouped = BiasExplainer(
        model, method="marginal", feature_groups=[[0, 1], [2], [3, 4]], **common
    ).fit(data.data, sensitive_features=data.sensitive)
    tolerance = 0.035
    model_bias = np.array([shapley.bias_[part] for part in PARTS])
    np.testing.assert_allclose(model_bias, [0.1465, 0.1465, 0, 0.1465], atol=tolerance)
    beta_shapley = np.array(
        [
            [0.0879, 0.0804, 0.0075, 0.0730],
            [0.0289, 0.0000, 0.0289, -0.0289],
            [0.1166, 0.1166, 0.0000, 0.1166],
            [0.0343, 0.0210, 0.0132, 0.0078],
            [0.0586, 0.0184, 0.0402, -0.0218],
        ]
    )
    beta_pdp = np.array(
        [
            [0.0845, 0.0788, 0.0056, 0.0732],
            [0.0287, 0.0, 0.0287, -0.0287],
            [0.1168, 0.1168, 0.0, 0.1168],
            [0.0327, 0.0203, 0.0124, 0.0079],
            [0.0580, 0.0181, 0.0399, -0.0218],
        ]
    )
    for explainer, expected in ((shapley, beta_shapley), (pdp, beta_pdp), (marginal, beta_pdp)):
        got = np.column_stack([explainer.explanations_[part] for part in PARTS])
        np.testing.assert_allclose(got, expected, atol=tolerance)
    ex = shapley.explanations_
    np.testing.assert_allclose(
        ex.shapley_total, [0.0558, -0.0135, 0.0928, 0.0110, 0.0005], atol=tolerance
    )
    np.testing.assert_allclose(
        ex.shapley_positive, [0.0644, -0.0212, 0.1047, 0.0094, -0.0107], atol=tolerance
    )
    np.testing.assert_allclose(
        ex.shapley_negative, [-0.0086, 0.0077, -0.0119, 0.0016, 0.0111], atol=tolerance
    )
    np.testing.assert_allclose(
        marginal.explanations_.shapley_total,
        [0.0551, -0.0146, 0.0955, 0.0109, -0.0003],
        atol=tolerance,
    )
    np.testing.assert_allclose(
        grouped.explanations_.shapley_total, [0.0340, 0.1037, 0.0090], atol=tolerance
    )
    # Sign pattern: X2 strictly favours G=1, X3 strictly favours G=0; Fig. 10.
    assert ex.positive[1] < 0.002 and ex.negative[2] < 0.002
    assert ex.shapley_positive[2] > 0 > ex.shapley_negative[2]
    assert ex.shapley_negative.sum() == pytest.approx(shapley.bias_.negative, abs=1e-10)


def test_wrapped_model_is_untouched(data):
    X, group = data
    model = LogisticRegression().fit(X, (X[:, 0] > 0).astype(int))
    params, coef, before = model.get_params(), model.coef_.copy(), model.predict_proba(X)
    BiasExplainer(model, n_background=20, random_state=0).fit(X, sensitive_features=group)
    assert model.get_params() == params
    np.testing.assert_array_equal(model.coef_, coef)
    np.testing.assert_array_equal(model.predict_proba(X), before)
    # A model whose fit raises is fine: it is never refitted.
    _explain(data)


def test_unfitted_model_raises(data):
    X, group = data
    with pytest.raises(NotFittedError, match="FrozenEstimator"):
        BiasExplainer(LogisticRegression()).fit(X, sensitive_features=group)


def test_frozen_estimator_survives_clone(data):
    X, group = data
    model = FrozenEstimator(LogisticRegression().fit(X, (X[:, 0] > 0).astype(int)))
    explainer = clone(BiasExplainer(model, n_background=20, random_state=0))
    explainer.fit(X, sensitive_features=group)
    _assert_additive(explainer)
    direct = BiasExplainer(model.estimator, n_background=20, random_state=0).fit(
        X, sensitive_features=group
    )
    np.testing.assert_allclose(
        explainer.explanations_.shapley_total, direct.explanations_.shapley_total, atol=1e-14
    )


def test_pipeline_with_column_transformer_and_sensitive_column():
    import pandas as pd
    rng = np.random.default_rng(4)
    n = 240
    sex = rng.choice(["F", "M"], n)
    frame = pd.DataFrame(
        {
            "sex": sex,
            "job": pd.Categorical(rng.choice(["a", "b", "c"], n)),
            "hours": rng.normal(40 + 5 * (sex == "M"), 5),
            "age": rng.integers(18, 70, n),
        }
    )
    y = ((frame["hours"] > 42) ^ (frame["job"] == "c")).astype(int)
    features = frame.drop(columns="sex")
    pipeline = make_pipeline(
        ColumnTransformer(
            [("job", OneHotEncoder(), ["job"]), ("num", StandardScaler(), ["hours", "age"])]
        ),
        LogisticRegression(),
    ).fit(features, y)
    explainer = BiasExplainer(
        pipeline, sensitive_column="sex", privileged_group="M", n_background=25, random_state=0
    ).fit(frame)
    assert explainer.feature_names_in_.tolist() == ["sex", "job", "hours", "age"]
    assert explainer.explanations_.names.tolist() == ["job", "hours", "age"]
    assert explainer.background_["job"].dtype == frame["job"].dtype
    _assert_additive(explainer)
    expected = wasserstein_bias(
        None,
        pipeline.predict_proba(features)[:, 1],
        sensitive_features=sex,
        privileged_group="M",
        part="net",
    )
    assert explainer.bias_.net == pytest.approx(expected, abs=1e-14)
    with pytest.raises(ValueError, match="Both sensitive_column"):
        BiasExplainer(pipeline, sensitive_column="sex").fit(frame, sensitive_features=sex)


def test_multi_group_pair_selection():
    rng = np.random.default_rng(5)
    n = 300
    group = rng.choice(["a", "b", "c"], n)
    shift = np.select([group == "b", group == "c"], [0.3, -1.0], 0.0)
    X = np.column_stack([rng.normal(shift, 1.0), rng.normal(size=n)])
    model = ScoreStub(lambda Z: 1 / (1 + np.exp(-Z[:, 0])))
    explainer = BiasExplainer(model, privileged_group="a", n_background=20, random_state=0)
    explainer.fit(X, sensitive_features=group)
    assert explainer.protected_group_ == "c"  # the largest W1 against "a"
    assert set(group[explainer.eval_index_]) == {"a", "c"}
    explainer.set_params(protected_group="b").fit(X, sensitive_features=group)
    assert explainer.protected_group_ == "b"
    unsigned = BiasExplainer(model, n_background=20, random_state=0).fit(
        X, sensitive_features=group
    )
    assert (unsigned.privileged_group_, unsigned.protected_group_) == ("b", "c")
    assert unsigned.bias_.net > 0


def test_response_methods(data):
    X, group = data
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    decision = BiasExplainer(
        model,
        response_method="decision_function",
        n_background=20,
        random_state=0,
        privileged_group=0,
    ).fit(X, sensitive_features=group)
    flipped = BiasExplainer(
        model,
        response_method="decision_function",
        pos_label=0,
        n_background=20,
        random_state=0,
        privileged_group=0,
    ).fit(X, sensitive_features=group)
    assert flipped.bias_.positive == pytest.approx(decision.bias_.negative, abs=1e-12)
    regression = BiasExplainer(LinearRegression().fit(X, X[:, 0]), n_background=20).fit(
        X, sensitive_features=group
    )
    assert regression.bias_.total == pytest.approx(
        wasserstein_bias(None, X[:, 0], sensitive_features=group), abs=1e-12
    )
    multiclass = LogisticRegression().fit(X, rng_labels(len(X)))
    with pytest.raises(ValueError, match="pos_label"):
        BiasExplainer(multiclass).fit(X, sensitive_features=group)


def rng_labels(n):
    return np.arange(n) % 3


def test_a_single_group_warns_that_the_bias_is_undefined(data):
    X, _ = data
    with pytest.warns(UndefinedMetricWarning, match="single group"):
        explainer = _explain((X, np.zeros(len(X), dtype=int)))
    assert explainer.bias_.total == 0.0


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_model_outputs_are_refused(data, bad):
    X, group = data

    def broken(Z):
        p = _sigmoid_of_weighted_sum(Z)
        p[::7] = bad
        return p

    with pytest.raises(ValueError, match="NaN or infinite score"):
        BiasExplainer(ScoreStub(broken), n_background=10).fit(X, sensitive_features=group)


def test_a_model_predicting_strings_is_refused_with_a_clear_error(data):
    X, group = data
    words = np.array(["no", "yes"])
    model = FrozenEstimator(DummyClassifier(strategy="most_frequent").fit(X, words[group]))

    class LabelsOnly(BaseEstimator):
        def __init__(self, model=None):
            self.model = model

        def fit(self, X, y=None):
            return self

        def __sklearn_is_fitted__(self):
            return True

        def predict(self, X):
            return self.model.predict(X)

    with pytest.raises(ValueError, match="labels, not scores"):
        BiasExplainer(LabelsOnly(model), n_background=10).fit(X, sensitive_features=group)


def test_a_large_generic_computation_warns_up_front(data, monkeypatch):
    from skfair.explain import _bias_explainer

    monkeypatch.setattr(_bias_explainer, "_WARN_HYBRID_ROWS", 1000)
    with pytest.warns(UserWarning, match="hybrid rows"):
        _explain(data)


def test_verbose_reports_the_plan(data, capsys):
    _explain(data, verbose=1)
    out = capsys.readouterr().out
    assert "coalitions" in out and "hybrid rows" in out


def test_no_sensitive_features_means_zero_bias(data):
    X, _ = data
    with pytest.warns(UserWarning, match="one group"):
        explainer = _explain((X, None))
    assert explainer.bias_.total == 0.0
    assert explainer.attributions_.shape == (len(X), 4)


def test_explain_bias_function(data):
    X, group = data
    result = explain_bias(
        ScoreStub(_sigmoid_of_weighted_sum),
        X,
        sensitive_features=group,
        n_background=20,
        random_state=0,
    )
    assert result.names.tolist() == ["x0", "x1", "x2", "x3"]
    assert result.shapley_method == "exact"
    assert result.bias is result.explainer.bias_
    assert sum(result.explanations.shapley_net) == pytest.approx(result.bias.net, abs=1e-10)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sensitive_features": 3.0}, "'sensitive_features' parameter of explain_bias"),
        ({"sample_weight": 1.0}, "'sample_weight' parameter of explain_bias"),
        # The BiasExplainer built from **params still validates them.
        ({"method": "lime"}, "'method' parameter of explain_bias"),
        ({"sensitive_column": 1.5}, "'sensitive_column' parameter of explain_bias"),
    ],
)
def test_explain_bias_parameter_errors_name_the_parameter(data, kwargs, match):
    X, group = data
    kwargs = {"sensitive_features": group, **kwargs}
    with pytest.raises(ValueError, match=match):
        explain_bias(ScoreStub(_sigmoid_of_weighted_sum), X, **kwargs)


def _dummy_explainer():
    model = DummyClassifier().fit(np.zeros((4, 2)), [0, 1, 0, 1])
    return BiasExplainer(FrozenEstimator(model), n_background=5, n_permutations=4)


@parametrize_with_checks([_dummy_explainer()])
def test_sklearn_compatible(estimator, check):
    # The wrapped DummyClassifier accepts any number of columns, so the common checks (which
    # feed random widths) exercise the explainer's own conventions.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


def test_integer_weights_equal_repeated_rows(data):
    X, group = data
    counts = np.arange(len(X)) % 3 + 1
    common = dict(
        estimator=ScoreStub(_sigmoid_of_weighted_sum),
        background=X[:25],
        n_background=None,
        privileged_group=0,
    )
    weighted = BiasExplainer(**common).fit(X, sensitive_features=group, sample_weight=counts)
    repeated = BiasExplainer(**common).fit(
        np.repeat(X, counts, axis=0), sensitive_features=np.repeat(group, counts)
    )
    for part in PARTS:
        assert weighted.bias_[part] == pytest.approx(repeated.bias_[part], abs=1e-14)
        for prefix in ("", "shapley_"):
            np.testing.assert_allclose(
                weighted.explanations_[prefix + part],
                repeated.explanations_[prefix + part],
                atol=1e-12,
            )


def test_metadata_request_and_drop_sensitive(data):
    X, group = data
    request = BiasExplainer(ScoreStub()).get_metadata_routing().fit.requests
    assert request["sensitive_features"] is True and request["sample_weight"] is True
    with_group = np.column_stack([X, group])
    model = ScoreStub(lambda Z: 1 / (1 + np.exp(-(Z[:, 0] + Z[:, -1]))))
    kept = BiasExplainer(
        model, sensitive_column=-1, drop_sensitive=False, n_background=20, random_state=0
    ).fit(with_group)
    assert kept.explanations_.names.tolist() == ["x0", "x1", "x2", "x3", "x4"]
    assert kept.explanations_.total[-1] > 0.1  # the group column is a player
    dropped = BiasExplainer(
        ScoreStub(_sigmoid_of_weighted_sum), sensitive_column=-1, n_background=30, random_state=0
    ).fit(with_group)
    reference = _explain(data)
    np.testing.assert_allclose(
        dropped.explanations_.shapley_total,
        reference.explanations_.shapley_total,
        rtol=1e-12,
        atol=1e-15,
    )


def test_swapping_columns_swaps_explanations(data):
    X, group = data
    swapped_model = ScoreStub(lambda Z: _sigmoid_of_weighted_sum(Z[:, [2, 1, 0, 3]]))
    plain = _explain(data, method="marginal")
    swapped = BiasExplainer(swapped_model, method="marginal", n_background=30, random_state=0).fit(
        X[:, [2, 1, 0, 3]], sensitive_features=group
    )
    for key in ("total", "positive", "shapley_total", "shapley_negative"):
        np.testing.assert_allclose(
            swapped.explanations_[key], plain.explanations_[key][[2, 1, 0, 3]], atol=1e-12
        )


def test_bounds_for_probability_scores(data):
    for method, bound in (("pdp", 1.0), ("marginal", 1.0), ("shapley", 2.0)):
        explainer = _explain(data, method=method)
        assert 0.0 <= explainer.bias_.total <= 1.0
        assert (explainer.explanations_.total >= 0).all()
        assert (explainer.explanations_.total <= bound).all()


@pytest.mark.parametrize("scale", [1e308, 1e-300, 7.0])
def test_weights_of_any_scale(data, scale):
    # Regression: uniform weights of 1e308 gave NaN (their sums overflowed), with
    # RuntimeWarnings only; uniform weights must give the unweighted result.
    X, group = data
    common = dict(
        estimator=ScoreStub(_sigmoid_of_weighted_sum),
        background=X[:25],
        n_background=None,
        privileged_group=0,
    )
    unweighted = BiasExplainer(**common).fit(X, sensitive_features=group)
    uniform = BiasExplainer(**common).fit(
        X, sensitive_features=group, sample_weight=np.full(len(X), scale)
    )
    counts = np.arange(len(X)) % 3 + 1.0
    weighted = BiasExplainer(**common).fit(X, sensitive_features=group, sample_weight=counts)
    scaled = BiasExplainer(**common).fit(
        X, sensitive_features=group, sample_weight=counts * (scale / 3)
    )
    for part in PARTS:
        assert uniform.bias_[part] == unweighted.bias_[part]
        assert scaled.bias_[part] == pytest.approx(weighted.bias_[part], rel=1e-12, abs=1e-15)
        np.testing.assert_array_equal(uniform.explanations_[part], unweighted.explanations_[part])
        np.testing.assert_allclose(
            scaled.explanations_[part], weighted.explanations_[part], rtol=1e-10, atol=1e-15
        )


def test_a_group_of_zero_weight_is_refused(data):
    # it gave NaN, where the repairs raise a clear error
    X, group = data
    weights = np.where(group == group[0], 0.0, 1.0)
    explainer = BiasExplainer(ScoreStub(_sigmoid_of_weighted_sum), privileged_group=group[0])
    with pytest.raises(ValueError, match=r"total sample_weight of zero"):
        explainer.fit(X, sensitive_features=group, sample_weight=weights)
