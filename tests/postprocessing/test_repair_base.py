"""What the two repairs share through their base: randomness, fitted group attributes, unseen
groups, weights and the names of the sensitive attributes."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from skfair.postprocessing import BarycenterRepair, MADDRepair, RepairedClassifier

pytestmark = pytest.mark.filterwarnings(
    "ignore:Groups .* have fewer than 10 calibration rows:UserWarning"
)

REPAIRS = [
    pytest.param(lambda **kw: BarycenterRepair(**kw), id="barycenter"),
    pytest.param(lambda **kw: BarycenterRepair(mode="random", epsilon=0.5, **kw), id="random"),
    pytest.param(lambda **kw: BarycenterRepair(ties="jitter", **kw), id="jitter"),
    pytest.param(lambda **kw: MADDRepair(lam=0.6, **kw), id="madd"),
]


def tied_scores(n, seed):
    """Scores on a coarse grid (many ties, the case where random numbers are used)."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 3, n)
    scores = np.round(np.clip(rng.beta(2, 3, n) + 0.1 * group, 0, 1), 1)
    return scores[:, None], group


@pytest.mark.parametrize("make_repair", REPAIRS)
@pytest.mark.parametrize(
    "random_state",
    [None, 7, np.random.RandomState(3), np.random.default_rng(3)],
    ids=["None", "int", "RandomState", "Generator"],
)
def test_repeated_transform_calls_agree_for_any_random_state(make_repair, random_state):
    # MADDRepair drew fresh numbers at every transform for None and RandomState (and refused
    # a Generator); BarycenterRepair repeated exactly.
    scores, group = tied_scores(600, 0)
    queries, query_group = tied_scores(300, 1)
    repair = make_repair(random_state=random_state).fit(scores, sensitive_features=group)
    first = repair.transform(queries, sensitive_features=query_group)
    second = repair.transform(queries, sensitive_features=query_group)
    np.testing.assert_array_equal(first, second)
    assert not np.array_equal(first, queries)  # the repair did something


@pytest.mark.parametrize("make_repair", REPAIRS)
def test_a_row_output_does_not_depend_on_the_batch(make_repair):
    scores, group = tied_scores(600, 2)
    repair = make_repair(random_state=0).fit(scores, sensitive_features=group)
    queries, query_group = tied_scores(400, 3)
    whole = repair.transform(queries, sensitive_features=query_group)
    # blocks of the same data at their global positions give the rows of the whole
    blocks = [
        repair._transform(queries[a:b], query_group[a:b], row_offset=a)
        for a, b in ((0, 1), (1, 150), (150, 400))
    ]
    np.testing.assert_array_equal(np.concatenate(blocks), whole)
    # and the in-sample path does not depend on the row order within tie blocks' draws:
    # two fits of the same data agree
    np.testing.assert_array_equal(
        clone(repair).fit_transform(scores, sensitive_features=group),
        clone(repair).fit_transform(scores, sensitive_features=group),
    )


@pytest.mark.parametrize("repair", [BarycenterRepair(), MADDRepair(lam=0.5)])
def test_fitted_group_attributes_have_one_naming_scheme(repair):
    scores, _ = tied_scores(500, 4)
    rng = np.random.default_rng(4)
    sensitive = pd.DataFrame(
        {"sex": rng.choice(["F", "M"], 500), "race": rng.choice(["a", "b", "c"], 500)}
    )
    repair.fit(scores, sensitive_features=sensitive)
    oracle = sensitive.value_counts(sort=False).sort_index()
    assert repair.groups_ == list(oracle.index)
    np.testing.assert_array_equal(repair.group_counts_, oracle.to_numpy())
    assert repair.n_groups_ == len(oracle)
    assert [list(c) for c in repair.categories_] == [["F", "M"], ["a", "b", "c"]]
    assert list(repair.sensitive_feature_names_in_) == ["sex", "race"]
    with pytest.warns(UserWarning, match="without sensitive features"):
        clone(repair).fit(scores)
    unfitted_groups = clone(repair)
    with pytest.warns(UserWarning):
        unfitted_groups.fit(scores)
    assert unfitted_groups.groups_ == [None] and unfitted_groups.n_groups_ == 1
    assert not hasattr(
        clone(repair).fit(scores, sensitive_features=sensitive.to_numpy()),
        "sensitive_feature_names_in_",
    )


@pytest.mark.parametrize("make_repair", REPAIRS)
def test_renamed_sensitive_columns_are_refused(make_repair):
    # Swapped and renamed attributes were matched by position: the mean gap went from 0 to
    # 0.25 (barycenter) and 0.5 (MADD) without a word.
    rng = np.random.default_rng(5)
    sensitive = pd.DataFrame(
        {"female": rng.integers(0, 2, 800), "minority": rng.integers(0, 2, 800)}
    )
    scores = np.clip(rng.beta(2, 3, 800) + 0.2 * sensitive["female"], 0, 1).to_numpy()[:, None]
    repair = make_repair(random_state=0).fit(scores, sensitive_features=sensitive)
    renamed = sensitive[["minority", "female"]].rename(columns={"female": "is_female"})
    with pytest.raises(ValueError, match="never by position"):
        repair.transform(scores, sensitive_features=renamed)
    # the same names in another order are matched by name
    np.testing.assert_array_equal(
        repair.transform(scores, sensitive_features=sensitive[["minority", "female"]]),
        repair.transform(scores, sensitive_features=sensitive),
    )


def test_renamed_sensitive_columns_are_refused_by_the_wrapper():
    rng = np.random.default_rng(6)
    X = pd.DataFrame({"x": rng.normal(size=600)})
    sensitive = pd.DataFrame(
        {"female": rng.integers(0, 2, 600), "minority": rng.integers(0, 2, 600)}
    )
    y = (X["x"] + sensitive["female"] > 0.5).astype(int)
    clf = RepairedClassifier(LogisticRegression(), BarycenterRepair(random_state=0))
    clf.fit(X, y, sensitive_features=sensitive)
    renamed = sensitive[["minority", "female"]].rename(columns={"female": "is_female"})
    with pytest.raises(ValueError, match="never by position"):
        clf.predict(X, sensitive_features=renamed)


@pytest.mark.parametrize("repair", [BarycenterRepair(), MADDRepair(lam=0.5)])
def test_unseen_groups_raise_or_pass_through_unchanged(repair):
    scores, group = tied_scores(600, 7)
    queries = np.array([[0.2], [0.4], [0.7]])
    fitted = repair.set_params(random_state=0).fit(scores, sensitive_features=group)
    with pytest.raises(ValueError, match="Group 9 .* was not seen at fit"):
        fitted.transform(queries, sensitive_features=[0, 9, 1])
    lenient = clone(fitted).set_params(handle_unknown="identity")
    lenient.fit(scores, sensitive_features=group)
    with pytest.warns(UserWarning, match="groups not seen at fit"):
        out = lenient.transform(queries, sensitive_features=[0, 9, 1])
    assert out[1, 0] == queries[1, 0]
    np.testing.assert_array_equal(
        out[[0, 2]], lenient.transform(queries[[0, 2]], sensitive_features=[0, 1])
    )


@pytest.mark.parametrize("repair", [BarycenterRepair(), MADDRepair(lam=0.5)])
def test_a_group_of_zero_total_weight_is_refused(repair):
    scores, group = tied_scores(300, 8)
    weights = np.where(group == 2, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"Groups \[2\] have a total sample_weight of zero"):
        repair.fit(scores, sensitive_features=group, sample_weight=weights)


def test_constructors_take_the_main_parameters_by_position_only():
    assert BarycenterRepair(0.3).epsilon == 0.3
    repair = MADDRepair(0.4, 0.2)
    assert (repair.lam, repair.theta) == (0.4, 0.2)
    with pytest.raises(TypeError):
        MADDRepair(0.4, 0.2, 0.5)
    with pytest.raises(TypeError):
        BarycenterRepair(0.3, "random")
