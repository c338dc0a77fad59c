"""The repair transformers read the sensitive attribute from a column of their input."""

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from skfair.postprocessing import BarycenterRepair, MADDRepair


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(0)
    sex = rng.choice(["female", "male"], 300)
    score = np.clip(rng.beta(2, 5, 300) + 0.2 * (sex == "male"), 0, 1)
    return pd.DataFrame({"score": score, "sex": sex})


REPAIRS = pytest.mark.parametrize(
    "make_repair",
    [
        lambda **kw: BarycenterRepair(random_state=0, **kw),
        lambda **kw: MADDRepair(lam=0.7, random_state=0, **kw),
    ],
    ids=["barycenter", "madd"],
)


@REPAIRS
def test_column_mode_equals_keyword_mode(scores, make_repair):
    keyword = make_repair()
    expected = keyword.fit_transform(scores[["score"]], sensitive_features=scores["sex"])
    expected_new = keyword.transform(scores[["score"]][:50], sensitive_features=scores["sex"][:50])

    column = make_repair(sensitive_column="sex")
    np.testing.assert_array_equal(column.fit_transform(scores), expected)
    np.testing.assert_array_equal(column.transform(scores[:50]), expected_new)
    assert column.n_features_in_ == 2
    assert list(column.feature_names_in_) == ["score", "sex"]
    assert list(column.get_feature_names_out()) == ["score"]

    # set_output and a Pipeline need no metadata routing in this mode.
    frame = make_pipeline(make_repair(sensitive_column="sex")).set_output(transform="pandas")
    out = frame.fit(scores).transform(scores)
    assert list(out.columns) == ["score"]
    np.testing.assert_array_equal(out.to_numpy(), column.transform(scores))


@REPAIRS
def test_integer_column_of_an_array(scores, make_repair):
    codes = (scores["sex"] == "male").to_numpy().astype(float)
    S = np.column_stack([codes, scores["score"]])
    by_index = make_repair(sensitive_column=0).fit(S)
    by_keyword = make_repair().fit(S[:, [1]], sensitive_features=codes)
    np.testing.assert_array_equal(
        by_index.transform(S), by_keyword.transform(S[:, [1]], sensitive_features=codes)
    )
    np.testing.assert_array_equal(by_index.get_feature_names_out(), ["x1"])


@REPAIRS
def test_column_mode_errors(scores, make_repair):
    with pytest.raises(ValueError, match="Both sensitive_column"):
        make_repair(sensitive_column="sex").fit(scores, sensitive_features=scores["sex"])
    with pytest.raises(ValueError, match="leaves no column to repair"):
        make_repair(sensitive_column="sex").fit(scores[["sex"]])
    with pytest.raises(ValueError, match="not a column of X"):
        make_repair(sensitive_column="race").fit(scores)
    fitted = make_repair(sensitive_column="sex").fit(scores)
    with pytest.raises(ValueError, match="sex"):
        fitted.transform(scores[["score"]])  # the sensitive column is missing at transform
    unseen = scores[:5].assign(sex="other")
    with pytest.raises(ValueError, match="other"):
        fitted.transform(unseen)
