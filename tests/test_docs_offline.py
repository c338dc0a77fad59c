"""The documentation works offline: formulas typeset, nothing loaded from the network.

A small site is built with the real ``doc/conf.py`` (theme, extensions, static files; the
gallery pointed at an empty folder) from a page with formulas, then checked with the same
function as the full site in .ci/run, and rendered by headless Chromium, which must typeset
the formulas without any network access (MathJax from the CDN would leave LaTeX source).
"""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# The docs extra (sphinx, sphinx-mathjax-offline) comes with the test extra: missing, the
# imports fail rather than skip.
import sphinx  # noqa: E402, F401

importlib.import_module("sphinx-mathjax-offline")

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

CHECKER = ROOT / ".ci" / "check_offline_docs.py"
spec = importlib.util.spec_from_file_location("check_offline_docs", CHECKER)
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

# A long API name as the title and in the page's contents, as on the API pages.
PAGE = """skfair.metrics.between_group_generalized_entropy_index
======================================================

Formulas
--------

The selection rate is :math:`P(\\hat Y = 1 \\mid A = a)`; MADD is

.. math::

   \\mathrm{MADD}(h) = \\sum_{k} \\left| \\frac{n_0(k)}{n_0} - \\frac{n_1(k)}{n_1} \\right|.

``between_group_generalized_entropy_index_of_the_benefits``
-----------------------------------------------------------

A section whose title is one long name.
"""

PROBE = """<script>
window.addEventListener("load", () => setTimeout(() => {
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify({
    typeset: document.querySelectorAll("mjx-container").length,
    raw: document.body.innerText.includes("\\\\frac"),
    // Headings and contents entries whose text is cut off (wider than their box).
    clipped: [...document.querySelectorAll(
        "h1, h2, .bd-sidebar-secondary a, .bd-sidebar-secondary code")]
      .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right >
                     window.innerWidth)
      .map((e) => e.textContent.trim()),
    contents: document.querySelectorAll(".bd-sidebar-secondary .toc-entry a").length,
  });
  document.body.appendChild(out);
}, 2000));
</script>"""


# Building the site takes a few seconds, the browser a few more: the checks of the built site
# run with the slow tests (`pytest -m slow`, which CI runs, as it builds and checks the full
# documentation).
@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs")
    (folder / "src").mkdir()
    (folder / "src" / "index.rst").write_text(PAGE, encoding="utf-8")
    (folder / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "GALLERY_HEADER.rst", folder / "examples")
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", str(ROOT / "doc")]
        + ["-D", f"sphinx_gallery_conf.examples_dirs={folder / 'examples'}"]
        + [str(folder / "src"), str(folder / "html")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return folder / "html"


@pytest.mark.slow
def test_the_site_loads_nothing_from_the_network(site):
    assert check.remote_resources(site) == []
    assert check.local_mathjax(site, "index.html")


def test_the_checker_finds_remote_resources(tmp_path):
    (tmp_path / "a.html").write_text(
        '<script src="https://cdn.example/x.js"></script><a href="https://doi.org/1">paper</a>'
        "<link rel='stylesheet' href='//fonts.example/f.css'>"
    )
    (tmp_path / "b.css").write_text("@font-face{src:url(https://fonts.example/f.woff)}")
    assert len(check.remote_resources(tmp_path)) == 3  # not the link to the paper


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is installed by .ci/run (apt-get)")
def test_formulas_are_typeset_without_the_network(site):
    page = site / "index.html"
    probed = site / "probed.html"
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"))
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
            + ["--window-size=1280,900", f"--user-data-dir={profile}"]
            # No network at all: a formula typeset here came from the site.
            + ["--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]
            + ["--virtual-time-budget=15000", "--dump-dom", probed.as_uri()],
            capture_output=True,
            text=True,
            timeout=180,
        )
    match = re.search(r'<pre id="probe">(.*?)</pre>', result.stdout, flags=re.DOTALL)
    assert match, result.stderr[-2000:]
    measured = json.loads(match.group(1))
    assert measured["typeset"] == 2 and not measured["raw"]
    # Long names wrap: neither the title nor the "On this page" entries are cut off.
    assert measured["contents"] >= 2
    assert measured["clipped"] == []
