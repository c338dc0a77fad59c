"""End-to-end tests of ``python -m skfair audit``.

The printed per-group numbers are checked against an independent groupby (numpy masks, one
group at a time) of the true labels and sensitive attributes read with the loaders, and of the
predictions the audit saved (or that the test's own model makes).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import skfair
from skfair.__main__ import main
from skfair.datasets import load_adult

RACES = ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"]


def group_table(output, attribute):
    """Rows of the per-group table of ``attribute``: {group: {column: text}}."""
    lines = output.splitlines()
    start = next(
        i for i, line in enumerate(lines) if re.match(rf"{re.escape(attribute)}\s{{2,}}n\s", line)
    )
    header = re.split(r"\s{2,}", lines[start].strip())
    rows = {}
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
    return rows


def expected_rates(y_true, y_pred, groups):
    """Per-group rates, one boolean mask per group (the oracle)."""
    rates = {}
    for label in np.unique(groups):
        member = groups == label
        positive, negative = member & (y_true == 1), member & (y_true == 0)
        rates[str(label)] = {
            "n": member.sum(),
            "share": member.mean(),
            "base rate": y_true[member].mean(),
            "selection rate": y_pred[member].mean(),
            "TPR": y_pred[positive].mean() if positive.any() else np.nan,
            "FPR": y_pred[negative].mean() if negative.any() else np.nan,
            "accuracy": (y_pred[member] == y_true[member]).mean(),
        }
    return rates


def assert_table_matches(table, rates):
    assert sorted(table) == sorted(rates)
    for group, expected in rates.items():
        printed = table[group]
        assert int(printed["n"].replace(",", "")) == expected["n"]
        for column in ["share", "base rate", "selection rate", "TPR", "FPR", "accuracy"]:
            value = expected[column]
            assert printed[column] == ("n/a" if np.isnan(value) else f"{value:.3f}"), column


# Runs ``python -m skfair`` with pandas made unimportable: `pip install .` (the README's
# first command) does not install it, so the default audit must not need it.
WITHOUT_PANDAS = """
import runpy, sys

class NoPandas:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "pandas":
            raise ImportError("pandas is not installed")

sys.meta_path.insert(0, NoPandas())
runpy.run_module("skfair", run_name="__main__", alter_sys=True)
"""


AUDITED_SECTIONS = ["summary", "groups", "disparities", "scores"]


@pytest.fixture(scope="module")
def adult_audit(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("audit")
    env = dict(os.environ, PYTHONPATH=str(Path(skfair.__file__).resolve().parents[1]))
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_PANDAS, "audit", "--save-predictions", "predictions.csv"]
        # The sections these tests read; the slow ones (MADD, HFM, repair, bias sources,
        # stability) have their own tests, and CI runs the full audit after the tests.
        + ["--sections", *AUDITED_SECTIONS],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    predictions = pd.read_csv(cwd / "predictions.csv", keep_default_na=False)
    return result.stdout, predictions


def test_default_audit_prints_every_group(adult_audit):
    output, _ = adult_audit
    assert "UCI Adult" in output
    assert sorted(group_table(output, "sex")) == ["Female", "Male"]
    assert sorted(group_table(output, "race")) == RACES


def test_default_audit_fits_in_100_columns_without_negative_zeros(adult_audit):
    output, _ = adult_audit
    assert max(len(line) for line in output.splitlines()) <= 100
    assert "-0.0000" not in output


def test_default_audit_numbers_match_an_independent_groupby(adult_audit):
    output, predictions = adult_audit
    test = load_adult(split="test")
    # The saved rows are the test split in file order.
    np.testing.assert_array_equal(predictions["y_true"], test.target)
    np.testing.assert_array_equal(predictions["sex"], test.sensitive_features[:, 0])
    np.testing.assert_array_equal(predictions["race"], test.sensitive_features[:, 1])
    y_pred = predictions["y_pred"].to_numpy()
    y_score = predictions["y_score"].to_numpy()
    # A logistic regression predicts the favourable class when its probability exceeds 1/2.
    np.testing.assert_array_equal(y_pred, (y_score > 0.5).astype(int))
    # A plain model on Adult is far better than the 76 % of always predicting "<=50K".
    accuracy = (y_pred == test.target).mean()
    assert accuracy > 0.83
    assert f"accuracy {accuracy:.3f}" in output
    for j, attribute in enumerate(["sex", "race"]):
        rates = expected_rates(test.target, y_pred, test.sensitive_features[:, j])
        assert_table_matches(group_table(output, attribute), rates)


def disparity_table(output):
    """The disparity table: {metric: {column: text}}."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"metric\s{2,}", line))
    header = re.split(r"\s{2,}", lines[start].strip())
    rows = {}
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
    return rows


def expected_disparities(y_true, y_pred, groups, privileged=None):
    """The disparity rows from per-group rates (oracle: masks, max - min, dis - priv)."""

    def rates(member):
        positive, negative = member & (y_true == 1), member & (y_true == 0)
        return {
            "selection": y_pred[member].mean(),
            "tpr": y_pred[positive].mean(),
            "fpr": y_pred[negative].mean(),
            "fnr": 1 - y_pred[positive].mean(),
            "accuracy": (y_pred[member] == y_true[member]).mean(),
        }

    if privileged is None:
        per_group = [rates(groups == label) for label in np.unique(groups)]

        def gap(key):
            values = [r[key] for r in per_group]
            return max(values) - min(values)

        selection = [r["selection"] for r in per_group]
        return {
            "statistical_parity_difference": gap("selection"),
            "disparate_impact_ratio": min(selection) / max(selection),
            "true_positive_rate_difference": gap("tpr"),
            "false_positive_rate_difference": gap("fpr"),
            "equalized odds: TPR component": gap("fnr"),
            "equalized odds: FPR component": gap("fpr"),
            "equalized odds: max |component|": max(gap("tpr"), gap("fpr")),
            "accuracy_difference": gap("accuracy"),
        }
    dis, priv = rates(groups != privileged), rates(groups == privileged)
    return {
        "statistical_parity_difference": dis["selection"] - priv["selection"],
        "disparate_impact_ratio": dis["selection"] / priv["selection"],
        "true_positive_rate_difference": dis["tpr"] - priv["tpr"],
        "false_positive_rate_difference": dis["fpr"] - priv["fpr"],
        "equalized odds: TPR component": priv["tpr"] - dis["tpr"],
        "equalized odds: FPR component": priv["fpr"] - dis["fpr"],
        "equalized odds: max |component|": max(
            abs(priv["tpr"] - dis["tpr"]), abs(priv["fpr"] - dis["fpr"])
        ),
        "accuracy_difference": dis["accuracy"] - priv["accuracy"],
    }


def assert_disparities_match(table, column, expected):
    for metric, value in expected.items():
        # Printed with four decimals.
        assert abs(float(table[metric][column]) - value) <= 5e-5 + 1e-12, (metric, column)


def test_default_audit_disparities_match_an_independent_computation(adult_audit):
    output, predictions = adult_audit
    y_true = predictions["y_true"].to_numpy()
    y_pred = predictions["y_pred"].to_numpy()
    sex, race = predictions["sex"].to_numpy(), predictions["race"].to_numpy()
    table = disparity_table(output)
    assert_disparities_match(table, "sex", expected_disparities(y_true, y_pred, sex))
    assert_disparities_match(table, "race", expected_disparities(y_true, y_pred, race))
    # The intersection: one group per (sex, race) pair present.
    pairs = np.array([f"{a}|{b}" for a, b in zip(sex, race, strict=True)])
    assert_disparities_match(table, "sex & race", expected_disparities(y_true, y_pred, pairs))
    assert table["groups (smallest n)"]["sex"] == "2 (5,421)"
    assert table["groups (smallest n)"]["race"] == "5 (135)"


def summary_table(output, attribute):
    """The summary's table of ``attribute``: (reference, {group: {rate: cells}}).

    The cells of a rate are (rows, value, low, high, gap or None, verdict); the gap is
    (value, low, high).
    """
    lines = output.split("\nPer-group rates\n")[0].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{attribute}: reference"))
    reference = re.match(rf"{re.escape(attribute)}: reference group (.+?) \(", lines[start])[1]
    rows, group = {}, None
    for line in lines[start + 3 :]:
        if not line.strip():
            break
        if not line.startswith("  "):
            group = line.strip()
            rows[group] = {}
            continue
        rate, n, rest = re.match(r"  (selection rate|TPR|FPR)\s+([\d,]+)\s+(.*)", line).groups()
        numbers = [float(x) for x in re.findall(r"[-+]?\d+\.\d+", rest)]
        verdict = re.search(r"[a-z][a-z ]*$", rest)[0]
        gap = tuple(numbers[3:]) if len(numbers) == 6 else None
        rows[group][rate] = (int(n.replace(",", "")), *numbers[:3], gap, verdict)
    return reference, rows


def expected_verdict(gap, low, high, rows, reference_rows):
    """The verdict rules as the report prints them, written out independently."""
    if rows < 30 or reference_rows < 30:
        return "too few rows"
    if abs(gap) >= 0.10 and (low > 0.05 or high < -0.05):
        return "large gap"
    if abs(gap) >= 0.05 and (low > 0 or high < 0):
        return "moderate gap"
    if low > 0 or high < 0:
        return "small gap"
    if low > -0.05 and high < 0.05:
        return "about equal"
    return "unclear"


def near_a_cut_off(*values):
    """True when rounding to three decimals may have moved a value across a cut-off."""
    return any(abs(abs(v) - cut) <= 5e-4 for v in values for cut in (0.0, 0.05, 0.10))


@pytest.mark.parametrize("attribute", ["sex", "race", "sex & race"])
def test_summary_rates_gaps_and_verdicts_follow_the_stated_rules(adult_audit, attribute):
    output, predictions = adult_audit
    y_true = predictions["y_true"].to_numpy()
    y_pred = predictions["y_pred"].to_numpy()
    columns = [predictions[name].to_numpy() for name in attribute.split(" & ")]
    groups = np.array([" & ".join(values) for values in zip(*columns, strict=True)])
    reference, table = summary_table(output, attribute)
    labels, counts = np.unique(groups, return_counts=True)
    # Every group is there (the ten intersections too), against the largest group.
    assert sorted(table) == sorted(labels)
    assert reference == labels[np.argmax(counts)] and list(table)[0] == reference
    oracle = {}
    for label in labels:
        member = groups == label
        positive, negative = member & (y_true == 1), member & (y_true == 0)
        oracle[label] = {
            "selection rate": (member.sum(), y_pred[member].mean()),
            "TPR": (positive.sum(), y_pred[positive].mean()),
            "FPR": (negative.sum(), y_pred[negative].mean()),
        }
    for label, rates in table.items():
        for rate, (rows, value, low, high, gap, verdict) in rates.items():
            expected_rows, expected_value = oracle[label][rate]
            assert rows == expected_rows
            assert value == pytest.approx(expected_value, abs=5e-4 + 1e-9)
            assert low <= value <= high
            if label == reference:
                assert gap is None and verdict == "reference"
                continue
            reference_rows, reference_value = oracle[reference][rate]
            assert gap[0] == pytest.approx(expected_value - reference_value, abs=5e-4 + 1e-9)
            assert gap[1] <= gap[0] <= gap[2]
            if not near_a_cut_off(*gap):
                assert verdict == expected_verdict(*gap, rows, reference_rows), (label, rate)
    # The rules are printed with the verdicts.
    for line in ["too few rows  fewer than 30 rows behind the rate", "large gap     |gap| >= 0.10"]:
        assert line in output


def test_summary_intervals_widen_for_small_groups(adult_audit):
    output, _ = adult_audit
    _, table = summary_table(output, "race")
    width = {race: rates["TPR"][3] - rates["TPR"][2] for race, rates in table.items()}
    # 19 and 25 people with y=1 against 3,490: the small groups' TPR is far less certain, and
    # their TPR gets no verdict.
    assert width["Other"] > 5 * width["White"]
    assert width["Amer-Indian-Eskimo"] > 5 * width["White"]
    assert table["Other"]["TPR"][-1] == table["Amer-Indian-Eskimo"]["TPR"][-1] == "too few rows"
    findings = output[output.index("Findings:") : output.index("What was audited:")]
    assert "race      : vs White: large gap in" in findings


def test_score_section_matches_scipy(adult_audit):
    from itertools import combinations

    from scipy.stats import ks_2samp, wasserstein_distance

    output, predictions = adult_audit
    section = output.split("Bias of the score distributions")[1]
    table = disparity_table(section)
    y_score = predictions["y_score"].to_numpy()
    for attribute in ["sex", "race"]:
        groups = predictions[attribute].to_numpy()
        pairs = list(combinations(np.unique(groups), 2))
        w1 = max(wasserstein_distance(y_score[groups == a], y_score[groups == b]) for a, b in pairs)
        ks = max(ks_2samp(y_score[groups == a], y_score[groups == b]).statistic for a, b in pairs)
        assert abs(float(table["wasserstein_bias (total)"][attribute]) - w1) <= 5e-5 + 1e-12
        assert abs(float(table["ks_bias (total)"][attribute]) - ks) <= 5e-5 + 1e-12
    # Two groups: the parts add up to the total, and net is the gap of the mean scores.
    sex = predictions["sex"].to_numpy()
    parts = {p: float(table[f"wasserstein_bias ({p})"]["sex"]) for p in ["positive", "negative"]}
    assert parts["positive"] + parts["negative"] == pytest.approx(
        float(table["wasserstein_bias (total)"]["sex"]), abs=1e-4
    )
    gap = y_score[sex == "Male"].mean() - y_score[sex == "Female"].mean()
    assert float(table["wasserstein_bias (net)"]["sex"]) == pytest.approx(abs(gap), abs=5e-5)


def test_privileged_group_gives_signed_disparities(tmp_path, capsys):
    status = main(
        [
            "audit",
            "--privileged",
            "sex=Male",
            "--sections",
            "summary",
            "disparities",
            "--save-predictions",
            str(tmp_path / "predictions.csv"),
        ]
    )
    assert status == 0
    output = capsys.readouterr().out
    predictions = pd.read_csv(tmp_path / "predictions.csv", keep_default_na=False)
    y_true = predictions["y_true"].to_numpy()
    y_pred = predictions["y_pred"].to_numpy()
    table = disparity_table(output)
    signed = expected_disparities(y_true, y_pred, predictions["sex"].to_numpy(), "Male")
    # Women are selected less often than men by a plain model on Adult.
    assert signed["statistical_parity_difference"] < 0
    assert_disparities_match(table, "sex", signed)
    unsigned = expected_disparities(y_true, y_pred, predictions["race"].to_numpy())
    assert_disparities_match(table, "race", unsigned)
    assert "disadvantaged (all groups but 'Male') minus privileged ('Male')" in output
    # The summary compares each group with the privileged one, and says why it is the reference.
    assert "sex: reference group Male (the privileged group, from --privileged)" in output
    assert "race: reference group White (the largest group;" in output
    _, table = summary_table(output, "sex")
    female = predictions["sex"].to_numpy() == "Female"
    gap = y_pred[female].mean() - y_pred[~female].mean()
    assert table["Female"]["selection rate"][4][0] == pytest.approx(gap, abs=5e-4)


def test_adult_with_a_model_fitted_on_a_dataframe(tmp_path, capsys):
    train = load_adult(as_frame=True)
    test = load_adult(split="test", as_frame=True)
    columns = ["age", "education-num", "hours-per-week", "occupation"]  # no sex, no race
    model = make_pipeline(
        make_column_transformer(
            (OneHotEncoder(handle_unknown="ignore"), ["occupation"]),
            (StandardScaler(), ["age", "education-num", "hours-per-week"]),
        ),
        LogisticRegression(),
    ).fit(train.data[columns].iloc[:5000], train.target.iloc[:5000])
    joblib.dump(model, tmp_path / "model.joblib")
    args = ["audit", "--model", str(tmp_path / "model.joblib"), "--sections", "summary", "groups"]
    assert main(args) == 0
    output = capsys.readouterr().out
    assert "from --model, evaluated on the bundled Adult test split (no --data given)" in (
        re.sub(r"\s+", " ", output)
    )
    y_pred = model.predict(test.data[columns])
    for attribute in ["sex", "race"]:
        groups = test.sensitive_features[attribute].astype(str).to_numpy()
        rates = expected_rates(test.target.to_numpy(), y_pred, groups)
        assert_table_matches(group_table(output, attribute), rates)


def test_model_with_other_classes_is_refused(tmp_path, capsys):
    bunch = load_adult(split="test")
    numeric = [0, 4, 12]  # age, education-num, hours-per-week
    labels = bunch.target_names[bunch.target]  # "<=50K" / ">50K"
    model = LogisticRegression().fit(bunch.data[:, numeric].astype(float), labels)
    joblib.dump(model, tmp_path / "model.joblib")
    assert main(["audit", "--model", str(tmp_path / "model.joblib")]) == 1
    assert "the favourable label 1 is not among them" in capsys.readouterr().err


def test_user_csv_and_model(tmp_path, loans_csv, monkeypatch, capsys):
    frame = loans_csv(tmp_path / "loans.csv")
    # The model never sees `sex`; the audit passes it the columns it was fitted on.
    features = frame[["income", "region"]]
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["region"]), remainder="passthrough"),
        LogisticRegression(),
    ).fit(features, frame["approved"])
    joblib.dump(model, tmp_path / "model.joblib")
    # Relative paths, as a user types them in the folder of their files.
    monkeypatch.chdir(tmp_path)
    args = ["--data", "loans.csv", "--target", "approved", "--positive-label", "yes"]
    sections = ["--sections", "summary", "groups"]
    assert main(["audit", *args, "--sensitive", "sex", "--model", "model.joblib", *sections]) == 0
    stdout = capsys.readouterr().out
    y_true = (frame["approved"] == "yes").to_numpy().astype(int)
    y_pred = (model.predict(features) == "yes").astype(int)
    assert 0.2 < y_pred.mean() < 0.8
    rates = expected_rates(y_true, y_pred, frame["sex"].to_numpy())
    assert_table_matches(group_table(stdout, "sex"), rates)
    assert "from --model, evaluated on all rows" in stdout


def test_user_csv_without_model_trains_on_a_split(tmp_path, capsys, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=1000)
    status = main(
        [
            "audit",
            "--data",
            str(tmp_path / "loans.csv"),
            "--target",
            "approved",
            "--positive-label",
            "yes",
            "--sensitive",
            "sex",
            "region",
            "--test-size",
            "0.25",
            "--sections",
            "groups",
            "--save-predictions",
            str(tmp_path / "predictions.csv"),
        ]
    )
    output = capsys.readouterr().out
    assert status == 0
    assert "Audit summary" not in output
    predictions = pd.read_csv(tmp_path / "predictions.csv")
    assert len(predictions) == 250
    for attribute in ["sex", "region"]:
        rates = expected_rates(
            predictions["y_true"].to_numpy(),
            predictions["y_pred"].to_numpy(),
            predictions[attribute].to_numpy(),
        )
        assert_table_matches(group_table(output, attribute), rates)


def test_numeric_target_and_a_numpy_fitted_model(tmp_path, capsys):
    rng = np.random.default_rng(1)
    n = 300
    group = rng.integers(0, 3, size=n)
    x = rng.normal(size=(n, 2)) + group[:, None]
    y = (x[:, 0] + rng.normal(size=n) > 1).astype(int)
    frame = pd.DataFrame({"x0": x[:, 0], "x1": x[:, 1], "group": group, "label": y})
    frame.to_csv(tmp_path / "data.csv", index=False)
    # A model without feature_names_in_ gets every column but the target, in file order.
    X = frame[["x0", "x1", "group"]].to_numpy()
    model = LogisticRegression().fit(X, y)
    joblib.dump(model, tmp_path / "model.joblib")
    status = main(
        [
            "audit",
            "--data",
            str(tmp_path / "data.csv"),
            "--target",
            "label",
            "--sensitive",
            "group",
            "--model",
            str(tmp_path / "model.joblib"),
            "--sections",
            "groups",
        ]
    )
    assert status == 0
    rates = expected_rates(y, model.predict(X), group)
    assert_table_matches(group_table(capsys.readouterr().out, "group"), rates)


def test_bad_arguments_exit_non_zero_with_a_clear_message(tmp_path, capsys, monkeypatch, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=50)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", "--data", "loans.csv"])
    assert exit_info.value.code == 2
    assert "--data needs --target and --sensitive" in capsys.readouterr().err
    args = ["audit", "--data", "loans.csv", "--target", "approved", "--sensitive", "gender"]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "Column 'gender' is not in loans.csv" in captured.err
    assert "'sex'" in captured.err
    assert captured.out == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sections", "nonsense"], "invalid choice: 'nonsense'"),
        (["--privileged", "sex"], "--privileged takes COL=VALUE"),
        (["--target", "approved"], "--target and --sensitive need --data"),
        (["--test-size", "1.5"], "--test-size must lie strictly between 0 and 1"),
    ],
)
def test_usage_errors(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", *args])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--target", "approved", "--sensitive", "sex"], "Name the favourable class of 'approved'"),
        (
            ["--target", "approved", "--sensitive", "sex", "--positive-label", "maybe"],
            "--positive-label 'maybe' is not a class of 'approved'",
        ),
        (["--target", "region", "--sensitive", "sex"], "must hold exactly two classes, found 3"),
        (
            ["--target", "approved", "--positive-label", "yes", "--sensitive", "sex"]
            + ["--privileged", "race=White"],
            "--privileged names ['race']",
        ),
        (
            ["--target", "approved", "--positive-label", "yes", "--sensitive", "sex"]
            + ["--privileged", "sex=Male"],
            "'Male' is not a group of 'sex'; its groups are ['female', 'male']",
        ),
        (
            ["--target", "approved", "--positive-label", "yes", "--sensitive", "sex"]
            + ["--model", "missing.joblib"],
            "missing.joblib",
        ),
    ],
)
def test_data_errors(args, message, tmp_path, capsys, monkeypatch, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=50)
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "--data", "loans.csv", *args]) == 1
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.err.startswith("skfair audit: error:")


def test_files_that_are_not_models_are_refused(tmp_path, capsys, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=50)
    joblib.dump({"weights": [1, 2]}, tmp_path / "dict.joblib")
    args = ["audit", "--data", str(tmp_path / "loans.csv"), "--target", "approved"]
    args += ["--positive-label", "yes", "--sensitive", "sex", "--model"]
    assert main([*args, str(tmp_path / "loans.csv")]) == 1
    assert "loans.csv is not a model saved with joblib.dump" in capsys.readouterr().err
    assert main([*args, str(tmp_path / "dict.joblib")]) == 1
    assert "dict.joblib holds a dict, not a fitted model" in capsys.readouterr().err


def test_missing_sensitive_value_is_reported(tmp_path, capsys, loans_csv):
    frame = loans_csv(tmp_path / "loans.csv", n=50)
    frame.loc[7, "sex"] = None
    frame.to_csv(tmp_path / "loans.csv", index=False)
    args = ["--target", "approved", "--positive-label", "yes", "--sensitive", "sex"]
    assert main(["audit", "--data", str(tmp_path / "loans.csv"), *args]) == 1
    assert "'sex' has missing values" in capsys.readouterr().err


def test_every_section_runs_without_pandas(tmp_path, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=400)
    env = dict(os.environ, PYTHONPATH=str(Path(skfair.__file__).resolve().parents[1]))
    args = ["audit", "--data", "loans.csv", "--target", "approved", "--positive-label", "yes"]
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_PANDAS, *args, "--sensitive", "sex", "region"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "error:" not in result.stdout
    assert "Stability and uncertainty across bootstrap replicas" in result.stdout


@pytest.mark.slow
def test_json_is_identical_with_and_without_pandas(tmp_path):
    """Same data, same seed: the same numbers on a base install (no pandas) and with it.

    The bootstrap replicas of the stability section drew their rows from row codes that
    sorted numbers as text without pandas ("100" before "9"): label stability differed in the
    3rd decimal. Incomes here span several orders of magnitude, as Adult's fnlwgt does.
    """
    rng = np.random.default_rng(0)
    income = np.round(rng.lognormal(3.5, 1.2, 400), 1)
    pd.DataFrame(
        {
            "income": income,
            "region": rng.choice(["north", "south", "east"], 400),
            "sex": rng.choice(["female", "male"], 400),
            "approved": np.where(np.log(income) + rng.normal(0, 0.7, 400) > 3.5, "yes", "no"),
        }
    ).to_csv(tmp_path / "loans.csv", index=False)
    env = dict(os.environ, PYTHONPATH=str(Path(skfair.__file__).resolve().parents[1]))
    args = ["audit", "--data", "loans.csv", "--target", "approved", "--positive-label", "yes"]
    args += ["--sensitive", "sex", "region", "--format", "json", "--quiet"]
    args += ["--sections", "summary", "disparities", "subgroups", "stability", "bias_sources"]
    outputs = [
        subprocess.run(
            [sys.executable, *runner, *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        for runner in (["-c", WITHOUT_PANDAS], ["-m", "skfair"])
    ]
    for result in outputs:
        assert result.returncode == 0, result.stderr
    assert outputs[0].stdout == outputs[1].stdout
    assert '"label stability"' in outputs[0].stdout
    assert '"Which subgroups fare worst"' in outputs[0].stdout
    assert '"q-value"' in outputs[0].stdout
