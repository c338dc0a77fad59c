"""Tests of the bundled data set loaders.

The oracle is an independent read of the same files with pandas (and, for the German credit
codes, a parse of the UCI codebook text), plus the row and label counts published with the data.
"""

import functools
import re
import socket
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import skfair
from skfair.datasets import load_adult, load_bank_marketing, load_german_credit
from skfair.datasets._base import _parsed_columns

LOADERS = [load_adult, load_german_credit, load_bank_marketing]
DATA = resources.files("skfair.datasets") / "data"


@functools.cache
def _read(loader, as_frame, options):
    return loader(as_frame=as_frame, **dict(options))


def read(loader, *, as_frame=False, **options):
    """The loader's bunch, read once per test process (parsing Adult takes about a second).

    The tests that use it only read the bunch; those about how the loader reads (network,
    package files, pandas missing) call it themselves.
    """
    return _read(loader, as_frame, tuple(sorted(options.items())))


def raw(filename):
    """The file as pandas reads it, every value a string."""
    return pd.read_csv(DATA / filename, dtype=str, keep_default_na=False)


SHAPES = [
    (load_adult, {}, (32_561, 14), 7_841, 2),
    (load_adult, {"split": "train"}, (32_561, 14), 7_841, 2),
    (load_adult, {"split": "test"}, (16_281, 14), 3_846, 2),
    (load_adult, {"split": "all"}, (48_842, 14), 7_841 + 3_846, 2),
    (load_german_credit, {}, (1_000, 20), 700, 3),
    (load_bank_marketing, {}, (45_203, 16), 5_287, 2),
]


# Every configuration as arrays; as frames, one per loader (the frame is built from the same
# columns whatever the split: test_as_frame_dtypes_and_agreement_with_arrays compares them).
@pytest.mark.parametrize(
    ("loader", "kwargs", "shape", "n_positive", "n_sensitive", "as_frame"),
    [(*case, False) for case in SHAPES] + [(*SHAPES[k], True) for k in (2, 4, 5)],
)
def test_shapes_and_target_balance(loader, kwargs, shape, n_positive, n_sensitive, as_frame):
    bunch = read(loader, as_frame=as_frame, **kwargs)
    assert bunch.data.shape == shape
    assert bunch.target.shape == (shape[0],)
    assert bunch.sensitive_features.shape == (shape[0], n_sensitive)
    assert len(bunch.feature_names) == shape[1]
    assert len(bunch.sensitive_feature_names) == n_sensitive
    target = np.asarray(bunch.target)
    assert target.dtype == np.int64
    assert set(np.unique(target).tolist()) == {0, 1}
    assert int(target.sum()) == n_positive
    assert len(bunch.target_names) == 2
    assert ("frame" in bunch) is as_frame


def test_adult_positive_rate_is_the_published_one():
    assert read(load_adult).target.mean() == pytest.approx(7_841 / 32_561, abs=0)


@pytest.mark.parametrize(
    ("loader", "files", "target", "positive"),
    [
        (load_adult, ["adult.csv.gz"], "income-per-year", ">50K"),
        (
            lambda **kw: load_adult(split="test", **kw),
            ["adult_test.csv.gz"],
            "income-per-year",
            ">50K",
        ),
        (
            lambda **kw: load_adult(split="all", **kw),
            ["adult.csv.gz", "adult_test.csv.gz"],
            "income-per-year",
            ">50K",
        ),
        (load_bank_marketing, ["bank_marketing.csv.gz"], "subscription", "yes"),
    ],
)
def test_values_match_an_independent_read(loader, files, target, positive):
    expected = pd.concat([raw(name) for name in files], ignore_index=True)
    bunch = read(loader)
    assert bunch.feature_names.tolist() == [c for c in expected.columns if c != target]
    np.testing.assert_array_equal(bunch.target, (expected[target] == positive).astype(int))
    assert bunch.target_names[1] == positive
    labels = bunch.target_names[bunch.target]
    np.testing.assert_array_equal(labels, expected[target].to_numpy())
    for j, name in enumerate(bunch.feature_names):
        column = bunch.data[:, j]
        if name in bunch.categorical_features:
            missing = expected[name] == "?"
            assert all(isinstance(v, float) and np.isnan(v) for v in column[missing.to_numpy()])
            np.testing.assert_array_equal(
                column[~missing.to_numpy()], expected[name][~missing].to_numpy(dtype=object)
            )
        else:
            np.testing.assert_array_equal(column.astype(np.int64), expected[name].astype(int))


def test_adult_missing_values_and_sensitive_columns():
    bunch = read(load_adult, split="all")
    names = bunch.feature_names.tolist()
    n_missing = {
        name: sum(1 for v in bunch.data[:, names.index(name)] if not isinstance(v, str))
        for name in bunch.categorical_features
    }
    # "?" counts of adult.data + adult.test.
    assert n_missing == {
        "workclass": 1_836 + 963,
        "education": 0,
        "marital-status": 0,
        "occupation": 1_843 + 966,
        "relationship": 0,
        "race": 0,
        "sex": 0,
        "native-country": 583 + 274,
    }
    assert bunch.sensitive_feature_names.tolist() == ["sex", "race"]
    for j, name in enumerate(["sex", "race"]):
        np.testing.assert_array_equal(
            bunch.sensitive_features[:, j], bunch.data[:, names.index(name)]
        )
    assert sorted(set(bunch.sensitive_features[:, 0])) == ["Female", "Male"]
    assert sorted(set(bunch.sensitive_features[:, 1])) == [
        "Amer-Indian-Eskimo",
        "Asian-Pac-Islander",
        "Black",
        "Other",
        "White",
    ]


def test_as_frame_dtypes_and_agreement_with_arrays():
    arrays = read(load_adult, split="test")
    frames = read(load_adult, split="test", as_frame=True)
    data = frames.data
    assert list(data.columns) == arrays.feature_names.tolist()
    for j, name in enumerate(data.columns):
        if name in arrays.categorical_features:
            assert isinstance(data[name].dtype, pd.CategoricalDtype)
            values = data[name].astype(object).where(data[name].notna(), np.nan).to_numpy()
            expected = arrays.data[:, j]
            missing = data[name].isna().to_numpy()
            assert all(v != v for v in expected[missing])
            np.testing.assert_array_equal(values[~missing], expected[~missing])
        else:
            assert data[name].dtype == np.int64
            np.testing.assert_array_equal(data[name].to_numpy(), arrays.data[:, j].astype(np.int64))
    assert frames.target.name == "income-per-year"
    assert list(frames.frame.columns) == [*arrays.feature_names, "income-per-year"]
    np.testing.assert_array_equal(frames.frame["income-per-year"], arrays.target)
    assert list(frames.sensitive_features.columns) == ["sex", "race"]
    np.testing.assert_array_equal(
        frames.sensitive_features.astype(object).to_numpy(), arrays.sensitive_features
    )


def _codebook():
    """Code -> label parsed from the UCI description file, whitespace collapsed."""
    text = (DATA / "german_credit_codebook.txt").read_text(encoding="utf-8")
    entries = re.findall(r"(A\d+)\s*:(.*?)(?=\n\s*A\d+\s*:|\n\s*\n|\nAtt)", text, flags=re.S)
    return {code: " ".join(label.split()) for code, label in entries}


def test_german_credit_codes_are_decoded_as_the_codebook_says():
    codebook = _codebook()
    expected = raw("german_credit.csv.gz")
    bunch = load_german_credit()
    names = bunch.feature_names.tolist()
    assert names == [c for c in expected.columns if c != "credit"]
    decoded_columns = [c for c in names if expected[c].str.startswith("A").all()]
    assert bunch.categorical_features.tolist() == decoded_columns
    assert len(decoded_columns) == 13
    for name in decoded_columns:
        labels = expected[name].map(codebook)
        assert labels.notna().all(), name
        np.testing.assert_array_equal(
            bunch.data[:, names.index(name)], labels.to_numpy(dtype=object)
        )
    np.testing.assert_array_equal(bunch.target, (expected["credit"] == "1").astype(int))
    assert bunch.target_names.tolist() == ["bad", "good"]


def test_german_credit_sensitive_features():
    expected = raw("german_credit.csv.gz")
    bunch = load_german_credit(as_frame=True)
    s = bunch.sensitive_features
    assert list(s.columns) == ["sex", "age_group", "foreign_worker"]
    # Attribute 9 of the codebook: A91, A93, A94 male; A92, A95 female.
    male = expected["personal_status"].isin(["A91", "A93", "A94"]).to_numpy()
    np.testing.assert_array_equal(s["sex"].astype(str).to_numpy() == "male", male)
    assert (s["sex"] == "male").sum() == 690
    age = expected["age"].astype(int).to_numpy()
    np.testing.assert_array_equal(s["age_group"].astype(str).to_numpy() == ">=25", age >= 25)
    assert (s["age_group"] == ">=25").sum() == 851
    np.testing.assert_array_equal(
        s["foreign_worker"].astype(str).to_numpy() == "yes",
        (expected["foreign_worker"] == "A201").to_numpy(),
    )
    # Codebook order is kept as category order.
    assert list(bunch.data["status"].cat.categories)[0] == "... < 0 DM"
    assert bunch.data["age"].dtype == np.int64


def test_bank_marketing_sensitive_features_are_data_columns():
    bunch = read(load_bank_marketing)
    names = bunch.feature_names.tolist()
    assert bunch.sensitive_feature_names.tolist() == ["age_group", "marital"]
    for j, name in enumerate(bunch.sensitive_feature_names):
        np.testing.assert_array_equal(
            bunch.sensitive_features[:, j], bunch.data[:, names.index(name)]
        )
    values, counts = np.unique(bunch.sensitive_features[:, 0].astype(str), return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist(), strict=True)) == {
        "22-64": 44_225,
        "<=21": 168,
        ">=65": 810,
    }


@pytest.mark.parametrize("loader", LOADERS)
def test_descr_cites_the_source_and_license(loader):
    descr = read(loader).DESCR
    assert "https://doi.org/10.24432/" in descr
    assert "UCI Machine Learning Repository" in descr
    assert "CC BY 4.0" in descr
    assert "ATTRIBUTION.md" in descr


def test_descr_states_the_caveats():
    assert "Retiring Adult" in read(load_adult).DESCR
    german = read(load_german_credit).DESCR
    assert "Groemping (2019)" in german
    assert "personal_status" in german
    assert "duration" in read(load_bank_marketing).DESCR


@pytest.mark.parametrize("loader", LOADERS)
def test_no_network(loader, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the loaders must not open a network connection")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    _parsed_columns.cache_clear()  # the files are read again, not taken from this process
    assert loader().data.shape[0] > 0


def test_a_changed_bunch_does_not_change_the_next_load():
    # The files are parsed once per process; each load gets its own arrays.
    reference = load_german_credit()
    changed = load_german_credit()
    changed.data[:] = changed.data[::-1]
    changed.target[:] = 1 - changed.target
    changed.sensitive_features[:] = "x"
    again = load_german_credit()
    np.testing.assert_array_equal(again.data, reference.data)
    np.testing.assert_array_equal(again.target, reference.target)
    np.testing.assert_array_equal(again.sensitive_features, reference.sensitive_features)
    assert not np.array_equal(changed.target, again.target)


@pytest.mark.slow
def test_files_are_read_from_the_package_only(tmp_path):
    """Record every file opened while loading (audit hook) in a fresh interpreter."""
    script = textwrap.dedent(
        """
        import sys
        opened = []
        sys.addaudithook(lambda event, args: opened.append(args[0]) if event == "open" else None)
        from skfair.datasets import load_adult, load_bank_marketing, load_german_credit
        del opened[:]
        load_adult(split="all"); load_german_credit(); load_bank_marketing()
        print("\\n".join(str(p) for p in opened if isinstance(p, str) and "csv" in p))
        """
    )
    root = Path(skfair.__file__).resolve().parents[1]
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(root), "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    opened = result.stdout.split()
    data_dir = Path(skfair.__file__).resolve().parent / "datasets" / "data"
    assert sorted(Path(p).name for p in opened) == sorted(
        ["adult.csv.gz", "adult_test.csv.gz", "german_credit.csv.gz", "bank_marketing.csv.gz"]
    )
    assert all(Path(p).resolve().parent == data_dir for p in opened)
    assert not any("shared" in Path(p).resolve().parts for p in opened)


def test_as_frame_without_pandas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert load_german_credit().data.shape == (1_000, 20)
    with pytest.raises(ImportError, match=re.escape('python -m pip install ".[pandas]"')):
        load_german_credit(as_frame=True)


def test_invalid_split_raises():
    with pytest.raises(ValueError, match="split"):
        load_adult(split="validation")


def test_arrays_feed_a_scikit_learn_pipeline():
    """Without pandas, the object array with NaN works with column indices."""
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    bunch = load_german_credit()
    names = bunch.feature_names.tolist()
    categorical = [names.index(c) for c in bunch.categorical_features]
    numeric = [j for j in range(len(names)) if j not in categorical]
    model = make_pipeline(
        make_column_transformer(
            (OneHotEncoder(handle_unknown="ignore"), categorical), (StandardScaler(), numeric)
        ),
        LogisticRegression(max_iter=1000),
    )
    model.fit(bunch.data, bunch.target)
    # Better than always predicting "good" (70 %) on its own training data.
    assert model.score(bunch.data, bunch.target) > 0.75
