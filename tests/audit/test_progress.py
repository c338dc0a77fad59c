"""The audit streams each section as soon as it is computed and reports progress on stderr."""

import sys

import numpy as np
import pandas as pd

from skfair.__main__ import main
from skfair._audit import SECTIONS
from skfair._audit._report import Section


def write_csv(path, n=300):
    rng = np.random.default_rng(0)
    sex = rng.choice(["f", "m"], size=n)
    x = rng.normal(size=n) + (sex == "m")
    frame = pd.DataFrame({"x": x, "sex": sex, "y": (x + rng.normal(size=n) > 0.5).astype(int)})
    frame.to_csv(path, index=False)


def audit(path, *args):
    return main(["audit", "--data", str(path), "--target", "y", "--sensitive", "sex", *args])


def test_each_section_is_written_before_the_next_is_computed(tmp_path, capsys, monkeypatch):
    write_csv(tmp_path / "data.csv")
    seen = []

    def probe(context):
        # What was already written to stdout when this section starts.
        seen.append(sys.stdout.getvalue())
        return Section(message="probe")

    monkeypatch.setitem(SECTIONS, "scores", ("Probe", probe))
    assert audit(tmp_path / "data.csv", "--sections", "groups", "scores") == 0
    assert "Per-group rates" in seen[0]
    assert capsys.readouterr().out.endswith("Probe\n=====\nprobe\n")


def test_progress_on_a_terminal_and_quiet(tmp_path, capsys, monkeypatch):
    write_csv(tmp_path / "data.csv")
    args = ["--sections", "groups", "disparities"]
    assert audit(tmp_path / "data.csv", *args) == 0
    assert capsys.readouterr().err == ""  # stderr is not a terminal here
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert audit(tmp_path / "data.csv", *args) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("skfair audit: reading ")
    assert err[1:] == [
        "skfair audit: [1/2] Per-group rates",
        "skfair audit: [2/2] Disparity metrics",
    ]
    assert audit(tmp_path / "data.csv", *args, "--quiet") == 0
    assert capsys.readouterr().err == ""
