"""The audit's models on large data: a bounded, stratified, stated training sample."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from skfair.__main__ import main
from skfair._audit import csv_context
from skfair._audit._subsample import (
    DEFAULT_MAX_TRAIN_ROWS,
    stratified_split,
    stratified_subsample,
)


@pytest.mark.parametrize("seed", range(40))
def test_the_split_is_train_test_splits(seed):
    # The audit's split without scikit-learn's Python lists of every row number (about 80 MB
    # while splitting 10^6 rows): the same rows in the same order, for any classes and sizes.
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(20, 5000)), int(rng.integers(2, 6))
    # class codes with gaps; rare classes too (a Dirichlet(0.3) share), so that some draws
    # are refused by both
    y = rng.choice(np.array([0, 2, 3, 7, 8])[:k], size=n, p=rng.dirichlet(np.full(k, 0.3)))
    test_size = float(rng.choice([0.1, 0.25, 0.3, 0.5, 0.77]))
    try:
        expected = train_test_split(
            np.arange(n), test_size=test_size, random_state=seed, stratify=y
        )
    except ValueError:
        with pytest.raises(ValueError, match="needs at least 2 rows of each class"):
            stratified_split(y, test_size, seed)
        return
    for rows, expected_rows in zip(stratified_split(y, test_size, seed), expected, strict=True):
        np.testing.assert_array_equal(rows, expected_rows)


def test_a_split_without_rows_of_a_class_on_one_side_is_refused():
    y = np.array([0] * 50 + [1])
    with pytest.raises(ValueError, match=r"the classes have \[50, 1\] rows"):
        stratified_split(y, 0.3, 0)


@pytest.mark.parametrize("seed", range(5))
def test_stratified_subsample_keeps_each_stratum_in_proportion(seed):
    rng = np.random.default_rng(seed)
    n, size = int(rng.integers(500, 3000)), int(rng.integers(50, 400))
    strata = rng.choice(12, size=n, p=rng.dirichlet(np.full(12, 0.5)))
    kept = stratified_subsample(strata, size, random_state=seed)
    assert kept.size == size
    assert np.array_equal(kept, np.unique(kept)) and kept[0] >= 0 and kept[-1] < n
    present, counts = np.unique(strata, return_counts=True)
    kept_counts = np.array([np.sum(strata[kept] == s) for s in present])
    # at least one row of each stratum, the rest in proportion (largest remainders: the
    # quota rounded down or up)
    assert kept_counts.min() >= 1
    quota = 1 + (counts - 1) * (size - present.size) / (n - present.size)
    assert np.all(kept_counts >= np.floor(quota)) and np.all(kept_counts <= np.ceil(quota))
    # seeded: the same rows for the same seed, others for another
    np.testing.assert_array_equal(stratified_subsample(strata, size, random_state=seed), kept)
    assert not np.array_equal(stratified_subsample(strata, size, random_state=seed + 10), kept)
    # no sampling when the rows fit
    np.testing.assert_array_equal(stratified_subsample(strata, n, random_state=0), np.arange(n))


def test_within_a_stratum_every_row_is_equally_likely():
    strata = np.repeat([0, 1], [30, 70])
    hits = np.zeros(100)
    for seed in range(2000):
        hits[stratified_subsample(strata, 10, random_state=seed)] += 1
    # 3 of 30 and 7 of 70 rows kept: each row with probability 0.1 (binomial, 5 sigma)
    margin = 5 * np.sqrt(2000 * 0.1 * 0.9)
    assert np.all(np.abs(hits - 200) < margin)


def test_default_cap_keeps_the_bundled_data_whole():
    # Adult's train split (32,561 rows), Bank Marketing (45,211): never sampled by default.
    assert DEFAULT_MAX_TRAIN_ROWS >= 45_211


def test_context_trains_on_a_stratified_sample_and_evaluates_every_row(tmp_path, loans_csv):
    frame = loans_csv(tmp_path / "loans.csv", n=1000)
    context = csv_context(
        tmp_path / "loans.csv",
        target="approved",
        sensitive=["sex", "region"],
        positive_label="yes",
        max_train_rows=100,
        random_state=3,
    )
    # the split an independent train_test_split makes
    y = (frame["approved"] == "yes").to_numpy().astype(int)
    train, test = train_test_split(np.arange(1000), test_size=0.3, random_state=3, stratify=y)
    np.testing.assert_array_equal(np.sort(context.row_ids), np.sort(test))  # every test row
    assert len(context.y_test) == 300 and len(context.y_pred) == 300
    assert len(context.y_train) == 100 and context.X_train.shape[0] == 100
    assert context.model[-1].n_features_in_ > 0
    np.testing.assert_array_equal(context.model[0].transform(context.X_train).shape[0], 100)
    # the sample is stratified by the target and both attributes: each cell's share of the
    # 100 rows is its share of the 700 training rows, up to rounding and one row per cell
    cells = pd.DataFrame({"y": y, "sex": frame["sex"], "region": frame["region"]})
    shares = cells.iloc[train].value_counts(normalize=True)
    sampled = pd.DataFrame(
        {
            "y": context.y_train,
            "sex": context.sensitive_train["sex"],
            "region": context.sensitive_train["region"],
        }
    ).value_counts()
    assert set(sampled.index) == set(shares.index)
    for cell, share in shares.items():
        assert abs(sampled[cell] - 100 * share) <= 2
    # the sampled training rows are rows of the training split, features and all
    X_file = frame.drop(columns="approved")
    sampled_rows = pd.DataFrame(context.X_train).astype(object)
    assert set(map(tuple, sampled_rows.to_numpy().tolist())) <= set(
        map(tuple, X_file.iloc[train].astype(object).to_numpy().tolist())
    )
    described = context.description["training sample"]
    assert "100 of the 700 training rows" in described
    assert "--max-train-rows 100" in described and "all 300 evaluation rows" in described
    assert "random_state=3" in described
    assert "100 of them sampled" in context.description["model"]


def test_no_sample_below_the_cap(tmp_path, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=400)
    context = csv_context(
        tmp_path / "loans.csv", target="approved", sensitive=["sex"], positive_label="yes"
    )
    assert len(context.y_train) == 280
    assert "training sample" not in context.description
    assert "sampled" not in context.description["model"]


def test_text_columns_are_categories_for_the_model(tmp_path, loans_csv):
    # Regression (memory): text columns reached the model as object arrays of Python strings.
    frame = loans_csv(tmp_path / "loans.csv", n=400)
    context = csv_context(
        tmp_path / "loans.csv", target="approved", sensitive=["sex"], positive_label="yes"
    )
    for X in (context.X_train, context.X_test):
        assert isinstance(X["region"].dtype, pd.CategoricalDtype)
        assert isinstance(X["sex"].dtype, pd.CategoricalDtype)
        assert X["income"].dtype == np.float64
        assert list(X["region"].cat.categories) == sorted(frame["region"].unique())
    np.testing.assert_array_equal(context.X_test["region"], frame["region"].iloc[context.row_ids])
    # the sensitive attributes of the rows stay plain arrays of the file's strings
    np.testing.assert_array_equal(context.sensitive["sex"], frame["sex"].iloc[context.row_ids])


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_the_report_says_it_sampled(tmp_path, capsys, loans_csv, fmt):
    loans_csv(tmp_path / "loans.csv", n=1000)
    args = ["audit", "--data", str(tmp_path / "loans.csv"), "--target", "approved"]
    args += ["--positive-label", "yes", "--sensitive", "sex", "region", "--quiet"]
    args += ["--sections", "summary", "stability", "--max-train-rows", "150"]
    args += ["--format", fmt, "--save-predictions", str(tmp_path / "predictions.csv")]
    assert main(args) == 0
    output = capsys.readouterr().out
    assert len(pd.read_csv(tmp_path / "predictions.csv")) == 300  # every evaluation row
    if fmt == "json":
        summary = json.loads(output)["sections"][0]
        audited = next(f for f in summary["fields"] if f["caption"] == "What was audited")
        text = audited["items"]["training sample"]
    else:
        text = " ".join(output.split())
    assert "trained on 150 of the 700 training rows" in text
    assert "--max-train-rows 150" in text and "all 300 evaluation rows" in text


def test_html_report_says_it_sampled(tmp_path, capsys, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=600)
    args = ["audit", "--data", str(tmp_path / "loans.csv"), "--target", "approved"]
    args += ["--positive-label", "yes", "--sensitive", "sex", "--quiet", "--sections", "summary"]
    args += ["--max-train-rows", "50", "--html", str(tmp_path / "report.html")]
    assert main(args) == 0
    page = " ".join((tmp_path / "report.html").read_text().split())
    assert "trained on 50 of the 420 training rows" in page


def test_the_cap_applies_to_the_bundled_data(capsys):
    assert main(["audit", "--sections", "summary", "--max-train-rows", "5000", "--quiet"]) == 0
    output = " ".join(capsys.readouterr().out.split())
    assert "trained on 5,000 of the 32,561 training rows" in output
    assert "all 16,281 evaluation rows" in output


def test_the_cap_must_be_a_count_of_rows(capsys):
    with pytest.raises(SystemExit):
        main(["audit", "--max-train-rows", "1"])
    assert "--max-train-rows must be at least 2" in capsys.readouterr().err
