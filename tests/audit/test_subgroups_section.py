"""The ``subgroups`` section of ``python -m skfair audit`` ("Which subgroups fare worst").

A csv file with a planted subgroup (``region = east & job = clerk``, whose labels are coin
flips, so that any model errs on about half of its rows): the audit must put it first, with
the error rates, p-value and q-value that an independent computation on the saved predictions
gives (pandas masks, scipy's normal tail), in the text, JSON and HTML reports and in the
summary's findings.
"""

import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from skfair.__main__ import main
from skfair._audit import AuditContext, compute_sections
from skfair._audit._sections import SECTIONS
from skfair._audit._text import render_text

PLANTED = "region = east & job = clerk"


def write_planted_csv(path, n=4000, seed=0):
    rng = np.random.default_rng(seed)
    income = rng.normal(50, 10, n)
    region = rng.choice(["north", "south", "east"], n)
    job = rng.choice(["clerk", "driver", "nurse", "cook"], n)
    sex = rng.choice(["female", "male"], n)
    planted = (region == "east") & (job == "clerk")
    approved = np.where(planted, rng.random(n) < 0.5, income + rng.normal(0, 2, n) > 52)
    frame = pd.DataFrame(
        {
            "income": income.round(2),
            "region": region,
            "job": job,
            "sex": sex,
            "approved": np.where(approved, "yes", "no"),
        }
    )
    frame.to_csv(path, index=False)
    return frame


ARGS = ["--target", "approved", "--positive-label", "yes", "--sensitive", "sex", "--quiet"]


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    """The JSON report, the HTML page and the saved predictions of one audit run."""
    folder = tmp_path_factory.mktemp("subgroups")
    write_planted_csv(folder / "loans.csv")
    out = folder / "out.json"
    import contextlib
    import io

    stream = io.StringIO()
    with contextlib.redirect_stdout(stream):
        status = main(
            ["audit", "--data", str(folder / "loans.csv"), *ARGS]
            + ["--sections", "summary", "subgroups", "--subgroups-level", "2"]
            + ["--format", "json", "--html", str(folder / "report.html")]
            + ["--save-predictions", str(folder / "predictions.csv")]
        )
    assert status == 0
    out.write_text(stream.getvalue())
    data = pd.read_csv(folder / "loans.csv")
    predictions = pd.read_csv(folder / "predictions.csv")
    rows = data.iloc[predictions["row"].to_numpy()].reset_index(drop=True)
    return {
        "json": json.loads(stream.getvalue()),
        "html": (folder / "report.html").read_text(encoding="utf-8"),
        "rows": rows,
        "predictions": predictions,
    }


def section(document, name):
    return next(s for s in document["sections"] if s["name"] == name)


def expected(audit, description):
    """Error rate in the subgroup and in the rest, and the one-sided pooled z-test's p-value,
    from the saved predictions (the oracle)."""
    rows, predictions = audit["rows"], audit["predictions"]
    inside = np.ones(len(rows), dtype=bool)
    for condition in description.split(" & "):
        column, _, value = condition.partition(" = ")
        inside &= rows[column].astype(str).to_numpy() == value
    errors = (predictions["y_true"] != predictions["y_pred"]).to_numpy()
    n1, n2 = inside.sum(), (~inside).sum()
    p1, p2 = errors[inside].mean(), errors[~inside].mean()
    pooled = errors.mean()
    z = (p1 - p2) / np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return n1, p1, p2, norm.sf(z)


def test_json_lists_the_planted_subgroup_first_with_its_rates_and_q_value(audit):
    found = section(audit["json"], "subgroups")
    assert "error" not in found, found.get("error")
    (table,) = found["tables"]
    header = table["header"]
    assert header[:4] == ["subgroup", "rows", "error rate", "rest"]
    assert header[5:] == ["p-value", "q-value"]
    top = dict(zip(header, table["rows"][0], strict=True))
    assert top["subgroup"] == PLANTED
    n, inside, rest, p_value = expected(audit, PLANTED)
    assert top["rows"] == n
    assert top["error rate"] == pytest.approx(inside, abs=1e-9)
    assert top["rest"] == pytest.approx(rest, abs=1e-9)
    gap = top[header[4]]
    assert gap["value"] == pytest.approx(inside - rest, abs=1e-9)
    assert gap["low"] < gap["value"] < gap["high"]
    assert top["p-value"] == pytest.approx(p_value, rel=1e-3)
    # BH: p <= q <= p * (number of tests), read from the caption.
    n_tests = int(re.search(r"of ([\d,]+) tested", table["caption"]).group(1).replace(",", ""))
    assert top["p-value"] <= top["q-value"] <= top["p-value"] * n_tests * (1 + 1e-3)
    assert top["q-value"] < 0.05
    # Every q-value is a number in [0, 1] (not text), non-decreasing with p.
    q_values = [dict(zip(header, row))["q-value"] for row in table["rows"]]
    assert all(isinstance(q, float) and 0 <= q <= 1 for q in q_values)


def test_summary_findings_name_the_worst_subgroups_with_q_values(audit):
    findings = section(audit["json"], "summary")["fields"][0]
    assert findings["caption"] == "Findings"
    line = findings["items"]["subgroups (error rate)"]
    assert line.startswith("highest above the rest")
    assert PLANTED in line
    assert re.search(rf"{re.escape(PLANTED)}: [\d.]+ vs [\d.]+ \(rows [\d,]+, q = ", line)


def test_findings_leave_subgroups_out_when_the_section_does_not_run(tmp_path, capsys):
    write_planted_csv(tmp_path / "loans.csv", n=600)
    args = ["audit", "--data", str(tmp_path / "loans.csv"), *ARGS, "--format", "json"]
    assert main([*args, "--sections", "summary"]) == 0
    summary = section(json.loads(capsys.readouterr().out), "summary")
    assert not any(key.startswith("subgroups") for key in summary["fields"][0]["items"])


class Page(HTMLParser):
    """The subgroups section of the HTML page: its table's cells and its images."""

    def __init__(self):
        super().__init__()
        self.inside, self.depth, self.cells, self.images, self.cell = False, 0, [], 0, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.inside = attrs.get("id") == "section-subgroups"
        if not self.inside:
            return
        if tag in ("td", "th"):
            self.cell = ""
        if tag == "img" and attrs.get("src", "").startswith("data:image/png;base64,"):
            self.images += 1

    def handle_endtag(self, tag):
        if self.inside and tag in ("td", "th") and self.cell is not None:
            self.cells.append(self.cell)
            self.cell = None
        if tag == "section":
            self.inside = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def test_html_section_shows_the_table_and_the_figure(audit):
    page = Page()
    page.feed(audit["html"])
    assert page.images == 1
    assert "q-value" in page.cells
    assert page.cells[page.cells.index("q-value") + 1] == PLANTED
    assert "Which subgroups fare worst" in audit["html"]


def make_context(X, feature_names=None, n=3000, seed=1):
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east"], n)
    job = rng.choice(["clerk", "driver"], n)
    y = rng.integers(0, 2, n)
    wrong = rng.random(n) < np.where((region == "east") & (job == "clerk"), 0.45, 0.1)
    y_pred = np.where(wrong, 1 - y, y)
    age = rng.integers(18, 70, n)
    columns = {"age": age, "region": region, "job": job}
    if X == "frame":
        X_test = pd.DataFrame(columns)
    else:
        X_test = np.empty((n, 3), dtype=object)
        for j, values in enumerate(columns.values()):
            X_test[:, j] = values.tolist()
    return AuditContext(
        model=None,
        X_test=X_test,
        y_test=y,
        y_pred=y_pred,
        y_score=None,
        sensitive={"sex": rng.choice(["f", "m"], n)},
        feature_names=list(columns),
    )


def test_same_report_from_a_frame_and_from_an_object_array():
    """The features reach the search in the same form with and without pandas."""
    texts = [
        render_text(compute_sections(make_context(kind), SECTIONS, ["subgroups"]))
        for kind in ("frame", "array")
    ]
    assert texts[0] == texts[1]
    assert "age in (" in texts[0]  # the integer column binned, its edges as integers
    assert "region = east & job = clerk" in texts[0]
    assert "sex" in texts[0]  # the sensitive attribute, no feature, is searched too


def test_options_select_columns_level_and_metric():
    context = make_context("frame")
    context.subgroup_options = {
        "columns": ["region", "job"],
        "max_level": 1,
        "metric": "false_positive_rate",
    }
    (result,) = compute_sections(context, SECTIONS, ["subgroups"])
    (table,) = result.blocks
    assert table.header[2] == "false positive rate"
    assert all(" & " not in row[0] for row in table.rows)
    named = {part.split(" = ")[0] for row in table.rows for part in row[0].split(" & ")}
    assert named <= {"region", "job"}
    # rows: all the subgroup's rows; the rate on its negatives only (pandas masks).
    X, negative = context.X_test, context.y_test == 0
    for description, rows, rate, rest, *_ in table.rows:
        column, value = description.split(" = ")
        inside = (X[column] == value).to_numpy()
        assert rows == inside.sum()
        assert rate == pytest.approx(context.y_pred[inside & negative].mean())
        assert rest == pytest.approx(context.y_pred[~inside & negative].mean())


def test_unknown_column_and_bad_level_are_clear_errors(tmp_path, capsys):
    context = make_context("frame")
    context.subgroup_options = {"columns": ["salary"]}
    (result,) = compute_sections(context, SECTIONS, ["subgroups"])
    assert "--subgroups-columns names ['salary']" in result.error
    assert "'region'" in result.error
    write_planted_csv(tmp_path / "loans.csv", n=300)
    with pytest.raises(SystemExit):
        main(["audit", "--data", str(tmp_path / "loans.csv"), *ARGS, "--subgroups-level", "0"])
    assert "--subgroups-level must be at least 1" in capsys.readouterr().err


def test_identifier_like_text_column_is_left_out_with_a_note():
    context = make_context("frame")
    context.X_test = context.X_test.assign(
        customer=[f"c{i}" for i in range(len(context.y_test))], constant="x"
    )
    (result,) = compute_sections(context, SECTIONS, ["subgroups"])
    notes = " ".join(result.notes)
    assert "Column customer left out: 3,000 distinct values" in notes
    assert "Column constant left out: a single value" in notes
