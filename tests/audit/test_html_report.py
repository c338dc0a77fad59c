"""The HTML report, rendered by a real browser (headless Chromium), and the JSON output."""

import json
import re
import shutil
import subprocess
import tempfile

import numpy as np
import pandas as pd
import pytest

from skfair.__main__ import main
from skfair._audit import SECTIONS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Appended to a copy of the page (the report itself has no script): measures what the
# browser rendered and writes it into the DOM, which --dump-dom prints.
PROBE = """
<script>
window.addEventListener("load", () => {
  const result = {
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    sections: [...document.querySelectorAll("section")].map((s) => s.id),
    headings: [...document.querySelectorAll("section > h2")].map((h) => h.textContent),
    images: [...document.images].map((i) => [i.complete, i.naturalWidth, i.naturalHeight,
                                             i.getBoundingClientRect().width]),
    // Where the summary's findings end, in the first screen (no scrolling has happened).
    findingsBottom: document.querySelector("#section-summary dl").getBoundingClientRect().bottom,
    firstTable: document.querySelector("#section-summary table").getBoundingClientRect().top,
    // Tables whose columns do not all fit (hidden behind a scrollbar, or cut on paper).
    clipped: [...document.querySelectorAll(".table-wrap")]
      .filter((w) => w.scrollWidth > w.clientWidth + 1)
      .map((w) => w.querySelector("th").textContent),
    pageHeight: document.documentElement.scrollHeight,
  };
  const out = document.createElement("pre");
  out.id = "probe";
  out.style.display = "none";
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>
"""


EXPECTED_SECTIONS = [
    "summary",
    "groups",
    "disparities",
    "subgroups",
    "scores",
    "madd",
    "hfm",
    "repair",
    "data_repair",
    "thresholds",
    "training",
    "bias_sources",
    "stability",
]


ARGS = ["--target", "approved", "--positive-label", "yes", "--sensitive", "sex", "region"]


def chromium(*args, size=(1280, 900)):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [CHROMIUM, *FLAGS, f"--window-size={size[0]},{size[1]}", f"--user-data-dir={profile}"]
            + list(args),
            capture_output=True,
            text=True,
            timeout=180,
        )


# The full report (every section, 17 figures) takes about 10 s to make and the browser a few
# more: these checks of it run with the slow tests (`pytest -m slow`, which CI runs).
@pytest.fixture(scope="module")
def report(tmp_path_factory, loans_csv):
    folder = tmp_path_factory.mktemp("html")
    loans_csv(folder / "loans.csv", n=700, income_gap=6)
    status = main(
        ["audit", "--data", str(folder / "loans.csv"), *ARGS, "--quiet"]
        + ["--html", str(folder / "report.html"), "--format", "json"]
    )
    assert status == 0
    return folder / "report.html"


@pytest.mark.slow
def test_the_page_is_self_contained(report):
    page = report.read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    # No network: every image is inline, no stylesheet or font is fetched.
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    assert "<link" not in page.lower()
    assert page.count('src="data:image/png;base64,') == 17


def probe(report, tmp_path, size):
    """What Chromium rendered of the report in a window of ``size`` (see PROBE)."""
    probed = tmp_path / "probed.html"
    probed.write_text(report.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"))
    result = chromium("--virtual-time-budget=10000", "--dump-dom", probed.as_uri(), size=size)
    match = re.search(r'<pre id="probe"[^>]*>(.*?)</pre>', result.stdout, flags=re.DOTALL)
    assert match, result.stderr[-2000:]
    return json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is installed by .ci/run (apt-get)")
def test_chromium_renders_every_section_and_figure_within_1280_px(report, tmp_path):
    measured = probe(report, tmp_path, (1280, 900))
    assert measured["sections"] == [f"section-{name}" for name in EXPECTED_SECTIONS]
    assert measured["headings"] == [SECTIONS[name][0] for name in EXPECTED_SECTIONS]
    # Per attribute (sex, region) and jointly: the rates with intervals (3); per attribute:
    # scores, repair, thresholds, bias sources, stability (10); MADD per column (3); the
    # gaps of the subgroups found (1).
    assert len(measured["images"]) == 17
    for complete, width, height, shown_width in measured["images"]:
        assert complete and width > 0 and height > 0 and shown_width > 0
    assert measured["scrollWidth"] <= measured["clientWidth"] <= 1280
    assert measured["clipped"] == []
    # The summary's findings are read first: in the first screen, before any table.
    assert measured["findingsBottom"] < 900
    assert measured["findingsBottom"] < measured["firstTable"]
    screenshot = tmp_path / "report.png"
    chromium(f"--screenshot={screenshot}", report.as_uri())
    assert screenshot.stat().st_size > 10_000
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is installed by .ci/run (apt-get)")
def test_printed_report_hides_no_column(report, tmp_path):
    # A printed A4 or Letter page is about 720 CSS pixels wide; at this width the page uses its
    # print layout (the same CSS rules), where tables wrap instead of scrolling.
    measured = probe(report, tmp_path, (720, 1000))
    assert measured["clipped"] == []
    assert measured["scrollWidth"] <= measured["clientWidth"]
    pdf = tmp_path / "report.pdf"
    chromium("--no-pdf-header-footer", f"--print-to-pdf={pdf}", report.as_uri())
    document = pdf.read_bytes()
    assert document.startswith(b"%PDF")
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", document))
    assert 3 <= pages <= 40


def test_json_is_machine_readable_and_repeats_exactly(tmp_path, capsys, loans_csv):
    frame = loans_csv(tmp_path / "loans.csv", n=700, income_gap=6)
    args = ["audit", "--data", str(tmp_path / "loans.csv"), *ARGS, "--format", "json"]
    args += ["--sections", "groups", "disparities", "--save-predictions"]
    assert main([*args, str(tmp_path / "p.csv")]) == 0
    first = capsys.readouterr().out
    assert main([*args, str(tmp_path / "p.csv")]) == 0
    assert capsys.readouterr().out == first
    document = json.loads(first)
    assert [section["name"] for section in document["sections"]] == ["groups", "disparities"]
    groups = document["sections"][0]["tables"][0]
    assert groups["attribute"] == "sex"
    predictions = pd.read_csv(tmp_path / "p.csv")
    sex = frame["sex"].to_numpy()[predictions["row"]]
    for row in groups["rows"]:
        member = sex == row[0]
        assert row[1] == member.sum()  # n, an integer
        # selection rate, full precision (the text shows three decimals)
        assert row[4] == pytest.approx(predictions["y_pred"][member].mean(), abs=1e-9)
    disparities = document["sections"][1]["tables"][0]
    assert disparities["header"] == ["metric", "sex", "region", "sex & region"]
    sizes = disparities["rows"][-1]
    assert sizes[0] == "groups (smallest n)"
    counts = np.unique(sex, return_counts=True)[1]
    assert sizes[1] == {"n_groups": 2, "smallest": int(counts.min())}


def test_markdown_has_a_table_per_attribute(tmp_path, capsys, loans_csv):
    loans_csv(tmp_path / "loans.csv", n=700, income_gap=6)
    args = ["audit", "--data", str(tmp_path / "loans.csv"), *ARGS, "--format", "markdown"]
    assert main([*args, "--sections", "groups"]) == 0
    output = capsys.readouterr().out
    assert "## Per-group rates" in output
    assert "| sex | n | share |" in output and "| region | n | share |" in output
