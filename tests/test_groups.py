import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skfair._base import resolve_sensitive
from skfair._utils._groups import (
    check_n_groups,
    factorize_groups,
    privileged_mask,
    split_sensitive_column,
)


def _oracle_codes(columns):
    """Independent oracle: sort the distinct tuples and index them."""
    rows = list(zip(*columns))
    distinct = sorted(set(rows))
    lookup = {row: i for i, row in enumerate(distinct)}
    return np.array([lookup[row] for row in rows]), distinct


@pytest.mark.parametrize(
    "values",
    [
        [3, 1, 3, 7, 1],
        [10**12, -5, 10**12, 7, -5],  # wide integer range: the sort path
        [True, False, True, True, False],
        [0.5, -1.0, 0.5, 2.0, 2.0],
        ["b", "a", "b", "c", "a"],
    ],
)
def test_one_attribute_matches_oracle(values):
    groups = factorize_groups(np.array(values))
    codes, distinct = _oracle_codes([values])
    np.testing.assert_array_equal(groups.codes, codes)
    assert groups.labels == [row[0] for row in distinct]
    assert groups.one_dimensional


def test_input_containers_give_the_same_codes():
    sex = ["F", "M", "F", "M"]
    race = [1, 1, 2, 2]
    expected, distinct = _oracle_codes([sex, race])
    inputs = [
        np.array([sex, race], dtype=object).T,
        pd.DataFrame({"sex": sex, "race": race}),
        pd.DataFrame({"sex": pd.Categorical(sex), "race": race}),
        {"sex": np.array(sex), "race": np.array(race)},
    ]
    for sensitive in inputs:
        groups = factorize_groups(sensitive)
        np.testing.assert_array_equal(groups.codes, expected)
        assert [tuple(map(str, label)) for label in groups.labels] == [
            tuple(map(str, row)) for row in distinct
        ]
    assert factorize_groups(inputs[1]).names == ("sex", "race")


def test_joint_codes_never_concatenate_strings():
    groups = factorize_groups({"a": ["a|b", "a"], "b": ["c", "b|c"]})
    assert groups.n_groups == 2
    assert groups.labels == [("a", "b|c"), ("a|b", "c")]


def test_categorical_keeps_only_present_categories():
    column = pd.Series(pd.Categorical(["x", "z"], categories=["x", "y", "z"]), name="c")
    groups = factorize_groups(column)
    assert groups.labels == ["x", "z"]
    assert groups.names == ("c",)


@pytest.mark.parametrize(
    "column",
    [
        pd.Series(["a", None, "b"], name="race"),
        pd.Series([1.0, np.nan, 2.0], name="race"),
        pd.Series([1, None, 2], dtype="Int64", name="race"),
        pd.Series(["a", None], dtype="string", name="race"),
        pd.Series(pd.Categorical(["a", None]), name="race"),
    ],
)
def test_missing_values_raise_naming_the_column(column):
    with pytest.raises(ValueError, match="'race' has missing values"):
        factorize_groups(column)
    with pytest.raises(ValueError, match="'race' has missing values"):
        factorize_groups(pd.DataFrame({"sex": ["F"] * len(column), "race": column}))


def test_mixed_types_and_lengths_raise():
    with pytest.raises(ValueError, match="mixes value types"):
        factorize_groups(np.array([1, "1"], dtype=object))
    with pytest.raises(ValueError, match="3 samples but the data has 4"):
        factorize_groups(["a", "b", "a"], n_samples=4)
    with pytest.raises(ValueError, match="different lengths"):
        factorize_groups({"a": [1, 2], "b": [1]})


def test_encode_new_data_and_unseen_groups():
    fitted = factorize_groups(pd.DataFrame({"sex": ["F", "M", "M"], "race": [1, 1, 2]}))
    new = pd.DataFrame({"sex": ["M", "F", "M"], "race": [2, 1, 1]})
    np.testing.assert_array_equal(fitted.encode(new), [2, 0, 1])
    with pytest.raises(ValueError, match=r"Group \('F', 2\).*not seen at fit"):
        fitted.encode(pd.DataFrame({"sex": ["F"], "race": [2]}))
    with pytest.raises(ValueError, match="Group 'X' of sensitive feature 'sex'"):
        fitted.encode(pd.DataFrame({"sex": ["X"], "race": [1]}))
    one = factorize_groups(np.array([1, 11, 1]))
    with pytest.raises(ValueError, match="Group 111"):
        one.encode(np.array([111]))


def test_privileged_mask_and_group_count():
    groups = factorize_groups(np.array(["w", "b", "h", "w"]))
    np.testing.assert_array_equal(privileged_mask(groups, "w"), [False, False, True])
    np.testing.assert_array_equal(privileged_mask(groups, ["b", "h"]), [True, True, False])
    with pytest.raises(ValueError, match="not present"):
        privileged_mask(groups, "x")
    with pytest.raises(ValueError, match="covers every group"):
        privileged_mask(groups, ["w", "b", "h"])
    two = factorize_groups({"sex": ["F", "M"], "race": ["a", "b"]})
    np.testing.assert_array_equal(privileged_mask(two, ("M", "b")), [False, True])
    np.testing.assert_array_equal(privileged_mask(two, [("M", "b")]), [False, True])
    with pytest.raises(ValueError, match="at least 2 groups"):
        check_n_groups(factorize_groups(["a", "a"]))


def test_split_sensitive_column_by_name_and_index():
    X = pd.DataFrame({"a": [1, 2], "sex": ["M", "F"], "b": [3, 4]})
    sensitive, rest = split_sensitive_column(X, "sex")
    assert sensitive.tolist() == ["M", "F"]
    assert list(rest.columns) == ["a", "b"]
    sensitive, rest = split_sensitive_column(X, ["sex", "a"])
    assert list(sensitive.columns) == ["sex", "a"]
    assert list(rest.columns) == ["b"]
    array = np.array([[1, 0, 3], [2, 1, 4]])
    sensitive, rest = split_sensitive_column(array, 1)
    np.testing.assert_array_equal(sensitive, [0, 1])
    np.testing.assert_array_equal(rest, [[1, 3], [2, 4]])
    with pytest.raises(ValueError, match="needs X to be a pandas DataFrame"):
        split_sensitive_column(array, "sex")
    with pytest.raises(ValueError, match="not a column of X"):
        split_sensitive_column(X, "race")
    s, kept = resolve_sensitive(X, None, "sex", drop=False)
    assert kept is X


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 3)), min_size=1, max_size=40
    )
)
def test_joint_codes_property(rows):
    first, second = zip(*rows)
    groups = factorize_groups({"s": np.array(first), "t": np.array(second)})
    codes, distinct = _oracle_codes([list(first), list(second)])
    np.testing.assert_array_equal(groups.codes, codes)
    permutation = np.random.default_rng(len(rows)).permutation(len(rows))
    permuted = factorize_groups(
        {"s": np.array(first)[permutation], "t": np.array(second)[permutation]}
    )
    np.testing.assert_array_equal(permuted.codes, groups.codes[permutation])


def test_encode_matches_attributes_by_name_and_refuses_renamed_ones():
    fitted = factorize_groups(pd.DataFrame({"female": [0, 1, 0, 1], "minority": [0, 0, 1, 1]}))
    # the same names in another order: matched by name
    swapped = pd.DataFrame({"minority": [1, 0], "female": [0, 1]})
    np.testing.assert_array_equal(
        fitted.encode(swapped), fitted.encode(pd.DataFrame({"female": [0, 1], "minority": [1, 0]}))
    )
    # renamed attributes were matched by position before (a silent swap of the two attributes)
    renamed = pd.DataFrame({"minority": [1, 0], "is_female": [0, 1]})
    with pytest.raises(ValueError, match=r"attribute names \['minority', 'is_female'\].*"):
        fitted.encode(renamed)
    with pytest.raises(ValueError, match="never by position"):
        fitted.encode({"a": [0], "b": [1]})
    one = factorize_groups(pd.Series(["F", "M"], name="sex"))
    with pytest.raises(ValueError, match=r"\['race'\].*\['sex'\]"):
        one.encode(pd.Series(["F"], name="race"))
    # unnamed input is matched by position; with several fitted names that deserves a warning
    np.testing.assert_array_equal(one.encode(np.array(["M"])), [1])
    with pytest.warns(UserWarning, match="no attribute names"):
        codes = fitted.encode(np.array([[0, 1]]))
    np.testing.assert_array_equal(
        codes, fitted.encode(pd.DataFrame({"female": [0], "minority": [1]}))
    )
    assert fitted.named and not factorize_groups(np.array([[0, 1]])).named


def test_privileged_group_string_of_a_one_column_frame_is_one_value():
    groups = factorize_groups(pd.DataFrame({"sex": ["a", "b", "ab", "Male"]}))

    def named(privileged_group):
        mask = privileged_mask(groups, privileged_group)
        return [label for label, privileged in zip(groups.labels, mask) if privileged]

    # read character by character before: "ab" matched the groups a and b, "Male" raised
    assert named("ab") == [("ab",)]
    assert named("Male") == [("Male",)]
    assert named(["a", "b"]) == [("a",), ("b",)]
    assert named(("b",)) == [("b",)]
    assert named([("a",), "ab"]) == [("a",), ("ab",)]
    two = factorize_groups(pd.DataFrame({"sex": ["F", "M"], "race": ["a", "b"]}))
    np.testing.assert_array_equal(privileged_mask(two, [["M", "b"]]), [False, True])
    with pytest.raises(ValueError, match="one value per sensitive attribute"):
        privileged_mask(two, "M")
    with pytest.raises(ValueError, match="one value per sensitive attribute"):
        privileged_mask(two, ("M", "b", "x"))


def _without_pandas(monkeypatch):
    """``import pandas`` raises ImportError, as on a base install."""
    import sys

    class NoPandas:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] == "pandas":
                raise ImportError("pandas is not installed")

    monkeypatch.delitem(sys.modules, "pandas", raising=False)
    monkeypatch.setattr(sys, "meta_path", [NoPandas(), *sys.meta_path])


@pytest.mark.parametrize(
    "column",
    [
        np.array([10, 9, 100, 9.0, 1, True, 100], dtype=object),  # numbers: 1.0 and True are 1
        np.array(["b", "a", "B", "b", "a"], dtype=object),
        np.array([2.5, -0.0, 0.0, 2.5, 7.0]),
        np.array(["x", "y", "x"]),
    ],
)
def test_groups_are_the_same_with_and_without_pandas(monkeypatch, column):
    with_pandas = factorize_groups(column)
    _without_pandas(monkeypatch)
    without = factorize_groups(column)
    assert without.labels == with_pandas.labels
    np.testing.assert_array_equal(without.codes, with_pandas.codes)


def test_one_missing_value_test_sees_every_kind_of_missing():
    from skfair._utils._groups import is_missing_value, missing_mask

    column = np.array(
        [None, np.nan, pd.NA, pd.NaT, np.datetime64("NaT"), "nan", "", 0, 0.0, "a"], dtype=object
    )
    expected = [True] * 5 + [False] * 5
    assert missing_mask(column).tolist() == expected
    assert [is_missing_value(value) for value in column] == expected
    assert missing_mask(np.array([1.0, np.nan])).tolist() == [False, True]
    assert missing_mask(np.array(["2020-01-01", "NaT"], dtype="M8[D]")).tolist() == [False, True]
    assert not missing_mask(np.array([1, 2])).any()


def test_mixed_types_raise_or_stay_apart_in_the_one_factoriser():
    from skfair._utils._groups import factorize_column

    column = np.array([1, "1", 1, None], dtype=object)
    with pytest.raises(ValueError, match="missing values"):
        factorize_column(column, "c")
    with pytest.raises(ValueError, match="mixes value types"):
        factorize_column(column[:3], "c")
    values, codes = factorize_column(column, "c", missing="last", mixed="by_type")
    assert len(values) == 2 and codes[0] == codes[2] != codes[1] and codes[3] == 2


@pytest.mark.parametrize("storage", ["pyarrow", "python"])
def test_pandas_string_columns_give_the_codes_of_python_strings(storage):
    """pyarrow's dictionary encoding of a pandas string column (several chunks, non-ASCII and
    case-differing values) gives the values and codes of the same strings as objects, and
    with a missing value the same error."""
    import pyarrow as pa

    values = ["b", "é", "B", "a", "b", "a", "Z", "é"]
    column = pd.Series(values, dtype=pd.StringDtype(storage), name="race")
    if storage == "pyarrow":  # several chunks, as a concatenation leaves them
        column = pd.Series(
            pd.arrays.ArrowStringArray(pa.chunked_array([values[:3], values[3:]])), name="race"
        )
    groups = factorize_groups(column)
    expected = factorize_groups(pd.Series(np.array(values, dtype=object), name="race"))
    codes, distinct = _oracle_codes([values])
    np.testing.assert_array_equal(groups.codes, codes)
    assert groups.labels == expected.labels == [row[0] for row in distinct]
    assert all(type(label) is str for label in groups.labels)
    np.testing.assert_array_equal(
        groups.encode(column.iloc[::-1]), expected.encode(column.iloc[::-1])
    )
    with_missing = pd.Series(values + [None], dtype=pd.StringDtype(storage), name="race")
    with pytest.raises(ValueError, match="'race' has missing values .* first at row 8"):
        factorize_groups(with_missing)


@pytest.mark.parametrize("sensitive_column", ["sex", 1, ["sex", "b"], ["c", 1]])
def test_split_numeric_frame_is_the_split_then_floats(sensitive_column):
    from skfair._utils._groups import split_numeric_frame

    X = pd.DataFrame(
        {
            "a": [1.5, 2.0, 3.0],
            "sex": ["M", "F", "M"],
            "b": np.array([3, 4, 5], dtype=np.int32),
            "c": [True, False, True],
        }
    )
    sensitive, floats = split_numeric_frame(X, sensitive_column)
    expected_sensitive, rest = split_sensitive_column(X, sensitive_column)
    # the sensitive values read as those of the general path
    groups, expected = factorize_groups(sensitive), factorize_groups(expected_sensitive)
    np.testing.assert_array_equal(groups.codes, expected.codes)
    assert groups.labels == expected.labels
    assert (groups.names, groups.named, groups.one_dimensional) == (
        expected.names,
        expected.named,
        expected.one_dimensional,
    )
    np.testing.assert_array_equal(groups.encode(sensitive), expected.encode(expected_sensitive))
    assert floats.dtype == np.float64
    np.testing.assert_array_equal(floats, rest.to_numpy(dtype=np.float64))
    # other inputs take the general path
    assert split_numeric_frame(X.to_numpy(), 1) is None
    assert split_numeric_frame(X.astype({"a": object}), "sex") is None
    assert split_numeric_frame(X[["sex"]], "sex") is None


def test_repairs_read_a_frame_alike_with_and_without_pandas_column_arrays(monkeypatch):
    """Without pandas' private per-column accessor the repairs take the general path (the
    selected DataFrame converted to floats): the same output."""
    from skfair.preprocessing import CorrelationRemover

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(50, 3)), columns=["a", "b", "c"])
    X["group"] = rng.choice(["x", "y", "z"], 50)
    X["n"] = rng.integers(0, 5, 50)
    fast = CorrelationRemover(sensitive_column="group").fit(X).transform(X)
    monkeypatch.delattr(pd.DataFrame, "_get_column_array")
    from skfair._utils._groups import split_numeric_frame

    assert split_numeric_frame(X, "group") is None
    general = CorrelationRemover(sensitive_column="group").fit(X).transform(X)
    np.testing.assert_array_equal(fast, general)


@pytest.mark.parametrize("storage", ["pyarrow", "python"])
def test_encode_of_strings_matches_the_fitted_values_alike(storage):
    """New strings are coded by the fitted values (a pyarrow lookup for pyarrow strings) as
    the object path codes them; an unseen or missing value takes the general path: the same
    error, or the code -1."""
    fitted = factorize_groups(pd.Series(["b", "a", "cc", "a"], name="race"))
    new = pd.Series(["cc", "a", "b", "b", "a"], dtype=pd.StringDtype(storage), name="race")
    np.testing.assert_array_equal(fitted.encode(new), [2, 0, 1, 1, 0])
    np.testing.assert_array_equal(fitted.encode(new), fitted.encode(new.astype(object)))
    unseen = pd.Series(["cc", "zz"], dtype=pd.StringDtype(storage), name="race")
    with pytest.raises(ValueError, match="Group 'zz' of sensitive feature 'race' was not seen"):
        fitted.encode(unseen)
    np.testing.assert_array_equal(fitted.encode(unseen, handle_unknown="ignore"), [2, -1])
    missing = pd.Series(["cc", None], dtype=pd.StringDtype(storage), name="race")
    with pytest.raises(ValueError, match="missing values"):
        fitted.encode(missing)
    # fitted numbers are not looked up among strings: the general path matches them by text
    numbers = factorize_groups(pd.Series([1, 2, 1], name="race"))
    text = pd.Series(["2", "1"], dtype=pd.StringDtype(storage), name="race")
    np.testing.assert_array_equal(numbers.encode(text), numbers.encode(np.array(["2", "1"])))
