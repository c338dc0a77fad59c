"""Details of the printed report: signs, notes that refer only to what is shown, widths."""

import re

import numpy as np
import pandas as pd

from skfair.__main__ import main
from skfair._audit._text import format_number


def run(path, *args):
    return main(
        ["audit", "--data", str(path), "--target", "approved", "--positive-label", "yes"]
        + ["--sensitive", "sex", "region", *args]
    )


def cells(output, start, label):
    """The cells after ``label`` on the first line starting with it after ``start``."""
    text = output[output.index(start) :]
    line = next(line for line in text.splitlines() if line.startswith(label))
    return re.split(r"\s{2,}", line.strip())[1:]


def test_negative_zero_is_printed_as_zero():
    assert format_number(-1e-9) == "0.0000"
    assert format_number(-0.0) == "0.0000"
    assert format_number(-0.00006) == "-0.0001"
    assert format_number(float("nan")) == "n/a"


def test_repair_before_column_has_the_sign_of_the_disparity_table(tmp_path, capsys, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=800, income_gap=6)
    args = ["--privileged", "sex=male", "--sections", "disparities", "repair"]
    assert run(tmp_path / "loans.csv", *args) == 0
    output = capsys.readouterr().out
    disparity = float(cells(output, "Disparity metrics", "statistical_parity_difference")[0])
    repair_rows = [
        re.split(r"\s{2,}", line.strip())
        for line in output[output.index("Barycenter repair") :].splitlines()
        if line.startswith("statistical_parity_difference")
    ]
    before = {row[1]: float(row[2]) for row in repair_rows}
    # Women are selected less often: signed (female minus male) and negative in both places.
    assert disparity < 0
    assert before["sex"] == disparity
    assert before["region"] >= 0  # no privileged group: the unsigned largest gap
    assert "sex: disadvantaged minus privileged groups, signed" in output.replace("\n", " ")


def test_notes_refer_only_to_what_is_shown(tmp_path, capsys, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=800, income_gap=6)
    assert run(tmp_path / "loans.csv", "--sections", "disparities", "stability") == 0
    output = capsys.readouterr().out.replace("\n", " ")
    assert "see the intervals" not in output
    assert "dis - priv" not in output  # no --privileged: no such row
    assert "difference: largest gap between any two groups" in output
    assert run(tmp_path / "loans.csv", "--sections", "intervals", "disparities") == 0
    assert "(see the intervals)" in capsys.readouterr().out


def test_bias_sources_say_how_the_pair_is_chosen(tmp_path, capsys, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=800, income_gap=6)
    assert run(tmp_path / "loans.csv", "--sections", "bias_sources") == 0
    output = capsys.readouterr().out.replace("\n", " ")
    assert "region: of more than two groups, the pair compared is the one whose" in output


def test_every_line_fits_in_100_columns(tmp_path, capsys, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=800, income_gap=6)
    assert run(tmp_path / "loans.csv") == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 100


def test_saved_predictions_join_back_to_the_input(tmp_path, capsys, loans_csv):
    frame = loans_csv(tmp_path / "loans.csv", n=800, income_gap=6)
    path = tmp_path / "predictions.csv"
    assert run(tmp_path / "loans.csv", "--sections", "groups", "--save-predictions", str(path)) == 0
    predictions = pd.read_csv(path)
    assert predictions.columns[0] == "row"
    assert len(predictions) == 240  # the 30 % evaluation rows, in shuffled order
    rows = frame.iloc[predictions["row"]]
    np.testing.assert_array_equal(rows["sex"], predictions["sex"])
    np.testing.assert_array_equal(rows["region"], predictions["region"])
    np.testing.assert_array_equal((rows["approved"] == "yes").astype(int), predictions["y_true"])
