"""The rate comparisons generated from the table of rates: signatures, docstrings, pickling,
scorers, and the signed components of equalized odds against a pandas oracle."""

import inspect
import pickle
import pydoc
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpydoc.docscrape import FunctionDoc
from sklearn.linear_model import LogisticRegression

import skfair.metrics
from skfair.metrics import get_fairness_scorer
from skfair.metrics._rates import COMPARISONS, RATES

# The signatures before the functions were generated (written out by hand from the released
# functions): the same parameters, order, kinds and defaults.
BINARY = (
    "(y_true, y_pred, *, sensitive_features, privileged_group=None, disadvantaged='pooled', "
    "pos_label=None, sample_weight=None)"
)
SIGNATURES = {
    **dict.fromkeys(
        [
            "average_abs_odds_difference",
            "average_odds_difference",
            "disparate_impact_ratio",
            "error_rate_ratio",
            "false_discovery_rate_difference",
            "false_negative_rate_difference",
            "false_omission_rate_difference",
            "false_positive_rate_difference",
            "false_positive_rate_ratio",
            "negative_predictive_value_difference",
            "positive_predictive_value_difference",
            "statistical_parity_difference",
            "true_negative_rate_difference",
            "true_positive_rate_difference",
            "true_positive_rate_ratio",
        ],
        BINARY,
    ),
    "accuracy_difference": (
        "(y_true, y_pred, *, sensitive_features, privileged_group=None, "
        "disadvantaged='pooled', sample_weight=None)"
    ),
    "equalized_odds_difference": BINARY[:-1] + ", agg='worst_case')",
    "equalized_odds_ratio": BINARY[:-1] + ", agg='worst_case')",
}


INEQUALITY = {
    "theil_index": "(y_true, y_pred, *, pos_label=None, sample_weight=None)",
    "coefficient_of_variation": "(y_true, y_pred, *, pos_label=None, sample_weight=None)",
    **dict.fromkeys(
        ["between_group_theil_index", "between_group_coefficient_of_variation"],
        "(y_true, y_pred, *, sensitive_features, privileged_group=None, pos_label=None, "
        "sample_weight=None)",
    ),
}


@pytest.mark.parametrize("name", sorted(INEQUALITY))
def test_fixed_alpha_indices_are_ordinary_public_functions(name):
    function = getattr(skfair.metrics, name)
    assert str(inspect.signature(function)) == INEQUALITY[name]
    assert function.__module__ == "skfair.metrics" and function.__qualname__ == name
    assert pickle.loads(pickle.dumps(function)) is function
    doc = FunctionDoc(function)
    assert [p.name for p in doc["Parameters"]] == list(inspect.signature(function).parameters)
    with pytest.raises(ValueError, match=f"The 'sample_weight' parameter of {name}"):
        function(
            [1, 0],
            [1, 0],
            sample_weight="heavy",
            **({"sensitive_features": ["a", "b"]} if "between" in name else {}),
        )


def test_every_comparison_is_generated_and_exported():
    assert set(COMPARISONS) == set(SIGNATURES)
    assert set(COMPARISONS) <= set(skfair.metrics.__all__)


@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_generated_function_is_an_ordinary_public_function(name):
    function = getattr(skfair.metrics, name)
    assert str(inspect.signature(function)) == SIGNATURES[name]
    assert function.__name__ == function.__qualname__ == name
    assert function.__module__ == "skfair.metrics"
    assert pickle.loads(pickle.dumps(function)) is function
    # help() shows the real signature and the docstring
    text = pydoc.render_doc(function, renderer=pydoc.plaintext)
    assert f"{name}{SIGNATURES[name]}" in text and "Parameters" in text
    # the docstring documents exactly the parameters, in order, with the sections of numpydoc
    doc = FunctionDoc(function)
    assert [p.name for p in doc["Parameters"]] == list(inspect.signature(function).parameters)
    for section in ("Returns", "See Also", "References", "Examples", "Notes"):
        assert doc[section], section
    see_also = [name for entries, _ in doc["See Also"] for name, _ in entries]
    assert all(hasattr(skfair.metrics, other) for other in see_also)


@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_generated_function_validates_and_scores(name):
    function = getattr(skfair.metrics, name)
    y = [1, 0, 1, 0]
    with pytest.raises(ValueError, match=f"The 'disadvantaged' parameter of {name}"):
        function(y, y, sensitive_features=["a", "a", "b", "b"], disadvantaged="all")
    with pytest.raises(TypeError):
        function(y, y, ["a", "a", "b", "b"])  # sensitive_features is keyword-only
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y_true = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    groups = rng.choice(["a", "b"], 200)
    model = LogisticRegression().fit(X, y_true)
    scorer = get_fairness_scorer(name)
    value = function(y_true, model.predict(X), sensitive_features=groups)
    kind = COMPARISONS[name].kind
    expected = -abs(value) if kind == "difference" else -(1 - min(value, 1 / value))
    assert scorer(model, X, y_true, sensitive_features=groups) == pytest.approx(expected)


def test_single_rate_docstrings_are_built_from_the_table_of_rates():
    for name, comparison in COMPARISONS.items():
        if not comparison.rate:
            continue
        doc = getattr(skfair.metrics, name).__doc__
        rate = RATES[comparison.rate]
        assert doc.startswith(
            f"{rate.title} {'disparity' if comparison.kind == 'difference' else 'ratio'}"
        )
        assert rate.definition in " ".join(doc.split())


# ----------------------------------------------------------------------------------------------
# signed equalized odds


def components_oracle(y_true, y_pred, groups, weights, privileged):
    """``(TPR(priv) - TPR(dis), FPR(priv) - FPR(dis))`` by pandas groupby over the two sides."""
    frame = pd.DataFrame(
        {
            "side": np.where(groups == privileged, "priv", "dis"),
            "y": y_true,
            "selected": (y_pred == 1) * weights,
            "w": weights,
        }
    )
    rates = frame.groupby(["side", "y"])[["selected", "w"]].sum()
    rate = (rates["selected"] / rates["w"]).to_dict()

    def gap(label):
        if ("priv", label) not in rate or ("dis", label) not in rate:
            return np.nan
        return rate[("priv", label)] - rate[("dis", label)]

    return gap(1), gap(0)


@st.composite
def labelled(draw):
    n = draw(st.integers(6, 60))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    groups = rng.choice(["p", "d1", "d2"], n)
    groups[:2] = ["p", "d1"]
    y_true = rng.integers(0, 2, n)
    y_pred = rng.integers(0, 2, n)
    weights = rng.integers(1, 4, n).astype(float) if draw(st.booleans()) else np.ones(n)
    return y_true, y_pred, groups, weights


@settings(max_examples=60, deadline=None)
@given(labelled())
def test_signed_equalized_odds_components_match_pandas(data):
    y_true, y_pred, groups, weights = data
    tpr_part, fpr_part = components_oracle(y_true, y_pred, groups, weights, "p")
    kw = {"sensitive_features": groups, "privileged_group": "p", "sample_weight": weights}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        worst = skfair.metrics.equalized_odds_difference(y_true, y_pred, **kw)
        mean = skfair.metrics.equalized_odds_difference(y_true, y_pred, agg="mean", **kw)
        fnr = skfair.metrics.false_negative_rate_difference(y_true, y_pred, **kw)
        tnr = skfair.metrics.true_negative_rate_difference(y_true, y_pred, **kw)
        average_odds = skfair.metrics.average_odds_difference(y_true, y_pred, **kw)
    # the two components are the FNR and TNR differences, as documented
    np.testing.assert_allclose([fnr, tnr], [tpr_part, fpr_part], atol=1e-12)
    defined = [v for v in (fpr_part, tpr_part) if not np.isnan(v)]
    if not defined:
        assert np.isnan(worst)
    else:
        # the component larger in size, sign kept (FPR on ties); its size is the unsigned max
        expected = max(defined, key=abs)
        assert worst == pytest.approx(expected, abs=1e-12)
        assert abs(worst) == pytest.approx(max(abs(v) for v in defined), abs=1e-12)
    np.testing.assert_allclose(mean, (tpr_part + fpr_part) / 2, atol=1e-12)
    np.testing.assert_allclose(mean, -average_odds, atol=1e-12)


def test_sign_does_not_flip_with_the_larger_component():
    # The disadvantaged group gets the favourable prediction less often among the positives
    # (TPR 0.5 vs 0.9) and among the negatives (FPR 0.1 vs 0.4). Whichever gap is larger, the
    # sign is the same: positive. The former signed value (the larger of ΔFPR and ΔFNR, "errors
    # suffered") was +0.4 when the TPR gap was the larger and -0.3 when the FPR gap was.
    def sample(tpr_dis, fpr_dis, tpr_priv, fpr_priv, n=1000):
        y_true, y_pred, groups = [], [], []
        for group, tpr, fpr in (("d", tpr_dis, fpr_dis), ("p", tpr_priv, fpr_priv)):
            k_pos, k_neg = round(tpr * n), round(fpr * n)
            y_true += [1] * n + [0] * n
            y_pred += [1] * k_pos + [0] * (n - k_pos) + [1] * k_neg + [0] * (n - k_neg)
            groups += [group] * (2 * n)
        return np.array(y_true), np.array(y_pred), np.array(groups)

    tpr_larger = sample(0.5, 0.1, 0.9, 0.3)
    fpr_larger = sample(0.7, 0.1, 0.9, 0.5)
    for (y_true, y_pred, groups), expected in ((tpr_larger, 0.4), (fpr_larger, 0.4)):
        value = skfair.metrics.equalized_odds_difference(
            y_true, y_pred, sensitive_features=groups, privileged_group="p"
        )
        assert value == pytest.approx(expected)
        # unsigned, the same size
        assert skfair.metrics.equalized_odds_difference(
            y_true, y_pred, sensitive_features=groups
        ) == pytest.approx(expected)
