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
    output = " ".join(capsys.readouterr().out.split())
    assert "the summary gives" not in output
    assert "dis - priv" not in output  # no --privileged: no such row
    assert "difference: largest gap between any two groups" in output
    assert run(tmp_path / "loans.csv", "--sections", "summary", "disparities") == 0
    assert "the summary gives each group's gap" in " ".join(capsys.readouterr().out.split())


def test_bias_sources_say_how_the_pair_is_chosen_and_show_the_sizes(tmp_path, capsys, loans_csv):
    frame = loans_csv(tmp_path / "loans.csv", n=800, income_gap=6)
    assert (
        run(
            tmp_path / "loans.csv",
            "--sections",
            "bias_sources",
            "--save-predictions",
            str(tmp_path / "p.csv"),
        )
        == 0
    )
    output = capsys.readouterr().out
    assert "the reference group (the privileged one from --privileged, else the largest)" in (
        " ".join(output.split())
    )
    predictions = pd.read_csv(tmp_path / "p.csv")
    region = predictions["region"].to_numpy()
    names, counts = np.unique(region, return_counts=True)
    largest = names[np.argmax(counts)]
    caption = next(line for line in output.splitlines() if line.startswith("region: "))
    # The largest group against another, with the rows explained of each (all, < 1000).
    assert caption.startswith(f"region: {largest} (the largest group; {counts.max()} of its ")
    other = re.search(r"\) vs (\w+) \((\d+) of (\d+) rows\)", caption)
    assert other[1] in names and other[1] != largest
    assert int(other[2]) == int(other[3]) == (region == other[1]).sum()
    assert len(frame) == 800


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
