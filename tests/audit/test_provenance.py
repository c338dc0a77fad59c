"""What the audit ran on and how: options, version, fingerprints, row counts, date, command."""

import hashlib
import json
import os
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import joblib
import pytest
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

import skfair
from skfair.__main__ import main

# A fast audit: two sections that need no retraining.
SECTIONS = ["--sections", "summary", "groups"]


def audited(document):
    """The "What was audited" fields of a JSON report."""
    summary = next(section for section in document["sections"] if section["name"] == "summary")
    return next(
        block["items"]
        for block in summary["fields"]
        if block["caption"] == "What was audited"
    )


@pytest.fixture
def files(tmp_path, loans_csv):
    frame = loans_csv(tmp_path / "loans.csv", n=400)
    features = frame[["income", "region"]]
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["region"]), remainder="passthrough"),
        LogisticRegression(),
    ).fit(features, frame["approved"])
    joblib.dump(model, tmp_path / "model.joblib")
    return tmp_path / "loans.csv", tmp_path / "model.joblib"


def data_options(path):
    return ["--data", str(path), "--target", "approved", "--positive-label", "yes"]


def test_json_names_options_version_fingerprints_and_rows_and_is_identical_between_runs(
    files, capsys
):
    data, model = files
    args = ["audit", *data_options(data), "--sensitive", "sex", "--model", str(model)]
    outputs = []
    for _ in range(2):
        assert main([*args, *SECTIONS, "--format", "json"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    items = audited(json.loads(outputs[0]))
    # Fingerprints of the files' bytes, computed here from the files.
    assert hashlib.sha256(data.read_bytes()).hexdigest() in items["data"]
    assert f"{model}, sha256 {hashlib.sha256(model.read_bytes()).hexdigest()}" in items["model"]
    assert "(400 rows" in items["data"]
    assert items["skfair"] == skfair.__version__
    assert items["options"] == (
        "--target approved --sensitive sex --positive-label yes --sections summary groups "
        "--random-state 0"
    )
    # No date in the JSON: nothing that looks like one.
    assert not re.search(r"\d{4}-\d{2}-\d{2}", outputs[0])


def test_options_include_the_defaults_the_audit_ran_with(files, capsys):
    data, _ = files
    args = ["audit", *data_options(data), "--sensitive", "sex", "region", "--format", "json"]
    assert main([*args, "--sections", "groups", "--privileged", "sex=male"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert main([*args, "--sections", "summary"]) == 0
    items = audited(json.loads(capsys.readouterr().out))
    assert items["options"] == (
        "--target approved --sensitive sex region --positive-label yes --sections summary "
        "--test-size 0.3 --max-train-rows 200000 --random-state 0"
    )
    assert "split at random (random_state=0) into 280 training and 120 evaluation rows" in (
        items["data"]
    )
    assert document["skfair_version"] == skfair.__version__


def run_module(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(Path(skfair.__file__).resolve().parents[1]))
    return subprocess.run(
        [sys.executable, "-m", "skfair", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_text_and_html_name_the_command_as_run_and_the_date(files, capsys):
    data, _ = files
    html = data.parent / "report.html"
    args = ["audit", *data_options(data), "--sensitive", "sex", *SECTIONS, "--html", str(html)]
    before = datetime.now(timezone.utc).replace(second=0, microsecond=0)
    # As the console script runs it.
    assert main(args) == 0
    after = datetime.now(timezone.utc)
    heading = capsys.readouterr().out.split("\n\n")[0].splitlines()
    date = re.search(r"on (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC$", heading[0]).group(1)
    assert before <= datetime.strptime(date, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc)
    assert datetime.strptime(date, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc) <= after
    assert heading[0].startswith(f"Fairness audit, made by skfair {skfair.__version__} on ")
    # The command in lines of at most 100 columns, continued with backslashes (as a shell
    # reads it again).
    assert all(len(line) <= 100 for line in heading)
    assert all(line.endswith(" \\") for line in heading[2:-1])
    command = " ".join(line.removesuffix(" \\").strip() for line in heading[2:])
    assert command == f"command: skfair audit --data {data} " + " ".join(args[3:])
    page = html.read_text()
    assert f"on {date} UTC with <code>skfair audit --data {data}" in page
    assert "python -m skfair" not in page
    # As a module: the heading says so.
    result = run_module(*args[:-1], str(data.parent / "module.html"), cwd=data.parent)
    assert result.returncode == 0, result.stderr
    assert "command: python -m skfair audit --data " in result.stdout.splitlines()[2]
    assert "<code>python -m skfair audit --data " in (data.parent / "module.html").read_text()
