"""The audit's memory: predictions a block of rows at a time, sections released once rendered.

The peak itself (at most 8 times a 10^6-row file, net of the imports) is measured by
benchmarks/bench_cli_memory.py; these tests hold what keeps it down, on small data.
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.utils import Bunch

import skfair._audit
import skfair._audit._context as audit_context
from skfair.__main__ import main
from skfair._audit import csv_context
from skfair._audit._context import in_row_blocks


def _audit_json(path, capsys, *options):
    args = ["audit", "--data", str(path), "--target", "approved", "--positive-label", "yes"]
    assert main([*args, "--sensitive", "sex", "--format", "json", "--quiet", *options]) == 0
    return capsys.readouterr().out


def test_in_row_blocks_is_the_whole_call(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 3))
    model = LogisticRegression().fit(X, X[:, 0] + rng.normal(size=1000) > 0)
    monkeypatch.setattr(audit_context, "ROW_BLOCK", 97)  # 11 blocks, the last one short
    for method in (model.predict, model.predict_proba, model.decision_function):
        np.testing.assert_array_equal(in_row_blocks(method, X), method(X))

    def per_row(X):
        return Bunch(total=X.sum(axis=1), first=X[:, 0])

    stacked = in_row_blocks(per_row, X)
    np.testing.assert_array_equal(stacked.total, X.sum(axis=1))
    np.testing.assert_array_equal(stacked.first, X[:, 0])


def test_context_predictions_in_blocks_are_those_of_one_call(tmp_path, monkeypatch, loans_csv):
    path = tmp_path / "loans.csv"
    loans_csv(path, n=1500)
    options = {"target": "approved", "sensitive": ["sex"], "positive_label": "yes"}
    whole = csv_context(path, **options)  # 450 evaluation rows: one call
    monkeypatch.setattr(audit_context, "ROW_BLOCK", 64)
    blocks = csv_context(path, **options)
    np.testing.assert_array_equal(blocks.y_pred, whole.y_pred)
    np.testing.assert_array_equal(blocks.y_score, whole.y_score)
    # the scores are the model's own
    proba = whole.model.predict_proba(whole.X_test)[:, 1]
    np.testing.assert_array_equal(whole.y_score, proba)


def test_the_report_does_not_depend_on_the_block_size(tmp_path, capsys, monkeypatch, loans_csv):
    # Every section that predicts in blocks (the context, data_repair, training, stability)
    # gives the same report with blocks of 64 rows as with one call.
    path = tmp_path / "loans.csv"
    loans_csv(path, n=1500)
    sections = ["--sections", "summary", "data_repair", "training", "stability"]
    whole = _audit_json(path, capsys, *sections)
    monkeypatch.setattr(audit_context, "ROW_BLOCK", 64)
    assert _audit_json(path, capsys, *sections) == whole


@pytest.mark.parametrize("html", [False, True])
def test_the_cli_keeps_no_arrays_of_rendered_sections(
    tmp_path, capsys, monkeypatch, loans_csv, html
):
    # Raw results and figures hold arrays of the evaluation rows; kept for every section,
    # they added up to about 35 MB at 10^6 rows. Figures are kept for the HTML page only.
    path = tmp_path / "loans.csv"
    loans_csv(path)
    computed = []
    compute_sections = skfair._audit.compute_sections

    def recording(*args, **kwargs):
        for section in compute_sections(*args, **kwargs):
            computed.append(section)
            yield section

    monkeypatch.setattr(skfair._audit, "compute_sections", recording)
    options = ["--sections", "groups", "scores", "thresholds"]
    if html:
        options += ["--html", str(tmp_path / "report.html")]
    _audit_json(path, capsys, *options)
    assert [section.name for section in computed] == ["groups", "scores", "thresholds"]
    assert all(section.data == {} for section in computed)
    assert all(bool(section.figures) is html for section in computed)


def test_freed_arrays_are_returned_to_the_system_only_for_large_files(
    tmp_path, capsys, monkeypatch, loans_csv
):
    # The glibc setting costs time (pages zeroed anew), so the command makes it only for a
    # data file of _LARGE_FILE_BYTES or more; here the threshold is moved around a small file.
    import skfair.__main__ as command

    calls = []
    monkeypatch.setattr(command, "_return_freed_arrays", lambda: calls.append(True))
    loans_csv(tmp_path / "loans.csv", n=300)
    size = (tmp_path / "loans.csv").stat().st_size
    monkeypatch.setattr(command, "_LARGE_FILE_BYTES", size + 1)
    _audit_json(tmp_path / "loans.csv", capsys, "--sections", "groups")
    assert calls == []
    monkeypatch.setattr(command, "_LARGE_FILE_BYTES", size)
    _audit_json(tmp_path / "loans.csv", capsys, "--sections", "groups")
    assert calls == [True]
