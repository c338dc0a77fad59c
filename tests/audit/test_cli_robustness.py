"""Hostile and unusual inputs to ``python -m skfair audit``: a clear error or a usable report.

Each test is the regression test of one finding: before the fix the CLI printed a traceback,
audited something it should have refused, or lost the whole report to one failing section.
"""

import re
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression

from skfair.__main__ import main
from skfair._audit import SECTIONS, AuditContext
from skfair._audit._sections import hfm_section

TITLES = [title for title, _ in SECTIONS.values()]


def loans(n=600, seed=0):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["female", "male"], size=n)
    income = rng.normal(50, 10, size=n) + 5 * (sex == "male")
    return pd.DataFrame(
        {
            "income": income,
            "age": rng.integers(18, 80, size=n),
            "sex": sex,
            "approved": np.where(income + rng.normal(0, 5, size=n) > 52, "yes", "no"),
        }
    )


def audit(path, *args, sensitive=("sex",)):
    return main(
        ["audit", "--data", str(path), "--target", "approved", "--positive-label", "yes"]
        + ["--sensitive", *sensitive, *args]
    )


def section_text(output, title):
    """The body of the section under ``title``, up to the next underlined title."""
    lines = output.splitlines()
    start = lines.index(title) + 2
    end = next(
        (i - 1 for i in range(start, len(lines)) if re.fullmatch(r"=+", lines[i])), len(lines)
    )
    return "\n".join(lines[start:end]).strip()


def test_a_regressor_is_refused(tmp_path, capsys):
    frame = loans()
    joblib.dump(
        LinearRegression().fit(frame[["income"]], frame["approved"] == "yes"),
        tmp_path / "model.joblib",
    )
    frame.to_csv(tmp_path / "loans.csv", index=False)
    assert audit(tmp_path / "loans.csv", "--model", str(tmp_path / "model.joblib")) == 1
    assert "holds a LinearRegression, which is not a classifier" in capsys.readouterr().err


def test_a_pickled_class_is_refused(tmp_path, capsys):
    loans().to_csv(tmp_path / "loans.csv", index=False)
    joblib.dump(LogisticRegression, tmp_path / "model.joblib")
    assert audit(tmp_path / "loans.csv", "--model", str(tmp_path / "model.joblib")) == 1
    err = capsys.readouterr().err
    assert "holds the class LogisticRegression, not a fitted model" in err
    assert "Traceback" not in err


def test_an_integer_beyond_int64_is_read_as_a_number(tmp_path, capsys):
    frame = loans().astype({"age": object})
    frame.loc[5, "age"] = "12345678901234567890123"
    frame.to_csv(tmp_path / "loans.csv", index=False)
    assert audit(tmp_path / "loans.csv", "--sections", "groups") == 0
    assert "female" in capsys.readouterr().out


def test_a_field_over_the_csv_limit_names_the_file_and_line(tmp_path, capsys):
    frame = loans().astype({"sex": object})
    frame.loc[3, "sex"] = "x" * 140_000
    frame.to_csv(tmp_path / "loans.csv", index=False)
    assert audit(tmp_path / "loans.csv") == 1
    err = capsys.readouterr().err
    assert "loans.csv: line 5: field larger than field limit" in err


def test_a_binary_file_is_named(tmp_path, capsys):
    (tmp_path / "data.bin").write_bytes(bytes(range(256)) * 4)
    assert audit(tmp_path / "data.bin") == 1
    assert "data.bin is not a text csv file in UTF-8" in capsys.readouterr().err


def test_a_byte_order_mark_is_not_part_of_the_first_name(tmp_path, capsys):
    frame = loans()[["sex", "income", "approved"]]
    (tmp_path / "loans.csv").write_text(frame.to_csv(index=False), encoding="utf-8-sig")
    assert audit(tmp_path / "loans.csv", "--sections", "groups") == 0
    assert re.search(r"^sex\s+n\s", capsys.readouterr().out, flags=re.MULTILINE)


def test_hundreds_of_groups_skip_the_pairwise_madd_and_hint_at_bins(tmp_path, capsys):
    frame = loans(n=1504)
    frame["zip"] = np.arange(1504) % 752
    frame.to_csv(tmp_path / "loans.csv", index=False)
    assert audit(tmp_path / "loans.csv", "--sections", "summary", "madd", sensitive=["zip"]) == 0
    output = capsys.readouterr().out
    # The evaluation rows (30 %) hold several hundred of the 752 groups.
    madd = section_text(output, "Score distributions: MADD")
    assert re.search(r"\b[2-7]\d\d groups \(over 50\)", madd)
    assert "'zip' has 752 groups" in output
    assert "--bins COL=K" in output


def test_bins_group_a_numeric_attribute_into_quantiles(tmp_path, capsys):
    frame = loans()
    frame.to_csv(tmp_path / "loans.csv", index=False)
    args = ["--bins", "age=4", "--sections", "groups", "--test-size", "0.5"]
    assert audit(tmp_path / "loans.csv", *args, sensitive=["age"]) == 0
    rows = re.findall(r"^(q\d \[\S+, \S+[)\]])\s+(\d+)", capsys.readouterr().out, re.MULTILINE)
    assert [label[:2] for label, _ in rows] == ["q1", "q2", "q3", "q4"]
    # Quartiles of 300 evaluation rows: about 75 rows each.
    counts = np.array([int(n) for _, n in rows])
    assert counts.sum() == 300 and counts.min() > 40
    assert rows[-1][0].endswith("]")


def test_bins_refuse_a_text_column(tmp_path, capsys):
    loans().to_csv(tmp_path / "loans.csv", index=False)
    assert audit(tmp_path / "loans.csv", "--bins", "sex=3") == 1
    assert "'sex' is not numeric" in capsys.readouterr().err


def test_the_target_is_refused_as_a_sensitive_attribute(tmp_path, capsys):
    loans().to_csv(tmp_path / "loans.csv", index=False)
    assert audit(tmp_path / "loans.csv", sensitive=["sex", "approved"]) == 1
    assert "target 'approved' cannot also be a sensitive attribute" in capsys.readouterr().err


def test_a_tiny_csv_keeps_every_section(tmp_path, capsys):
    loans().head(6).to_csv(tmp_path / "loans.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a section's warnings are lines of the report
        assert audit(tmp_path / "loans.csv") == 0
    captured = capsys.readouterr()
    for title in TITLES:
        assert title in captured.out
    repair = section_text(captured.out, "Barycenter repair of the scores")
    # The question the section answers, then why it does not apply here.
    lead, reason = repair.split("\n\n")
    assert lead.startswith("How much of the gaps would a repair")
    assert reason.startswith("n/a: cross-fitting the repair needs a group with two")
    assert "warning: UserWarning" in captured.out
    assert captured.err == ""


def test_a_single_valued_sensitive_column_is_refused(tmp_path, capsys):
    frame = loans()
    frame["country"] = "here"
    frame.to_csv(tmp_path / "loans.csv", index=False)
    assert audit(tmp_path / "loans.csv", sensitive=["sex", "country"]) == 1
    err = capsys.readouterr().err
    assert "'country' holds a single value ('here')" in err
    assert "no groups to compare" in err


def test_hfm_section_with_single_group_evaluation_rows_says_why():
    rng = np.random.default_rng(0)
    context = AuditContext(
        model=None,
        X_test=rng.normal(size=(40, 2)),
        y_test=rng.integers(0, 2, 40),
        y_pred=rng.integers(0, 2, 40),
        y_score=None,
        sensitive={"country": np.array(["here"] * 40, dtype=object)},
        feature_names=["a", "b"],
    )
    section = hfm_section(context)
    assert section.message.startswith("n/a: every sensitive attribute has a single group")


def test_a_failing_section_is_an_error_line_and_the_others_run(tmp_path, capsys, monkeypatch):
    def broken(context):
        raise ZeroDivisionError("something went wrong")

    monkeypatch.setitem(SECTIONS, "scores", ("Bias of the score distributions", broken))
    loans().to_csv(tmp_path / "loans.csv", index=False)
    assert audit(tmp_path / "loans.csv", "--sections", "groups", "scores", "disparities") == 0
    output = capsys.readouterr().out
    assert section_text(output, "Bias of the score distributions") == (
        "error: this section failed: something went wrong"
    )
    assert "Disparity metrics" in output and "Per-group rates" in output


def test_a_numpy_model_with_another_column_count_says_so(tmp_path, capsys):
    frame = loans()
    frame.to_csv(tmp_path / "loans.csv", index=False)
    model = LogisticRegression().fit(frame[["income"]].to_numpy(), frame["approved"])
    joblib.dump(model, tmp_path / "model.joblib")
    assert audit(tmp_path / "loans.csv", "--model", str(tmp_path / "model.joblib")) == 1
    err = capsys.readouterr().err
    assert "fitted on 1 unnamed columns (a numpy array)" in err
    assert "3 columns besides the target: ['income', 'age', 'sex']" in err


@pytest.mark.parametrize("column", ["sex", "approved"])
def test_missing_values_are_reported_by_file_line(tmp_path, capsys, column):
    frame = loans(n=50)
    frame.loc[7, column] = None
    frame.to_csv(tmp_path / "loans.csv", index=False)
    assert audit(tmp_path / "loans.csv") == 1
    # Row 7 of the frame is line 9 of the file: the header is line 1.
    assert "first at line 9 of" in capsys.readouterr().err
