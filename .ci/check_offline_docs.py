"""Check that a built documentation site works offline.

No page or stylesheet loads anything from the network (scripts, stylesheets, images, fonts);
links to papers and projects are fine, they are not loaded. The pages with formulas load the
MathJax copied into the site. Used by .ci/run on the full site and by the tests on a small one.

Usage: python .ci/check_offline_docs.py BUILT_HTML_DIR
"""

import pathlib
import re
import sys

# A resource the browser fetches by itself: src=, <link href=>, CSS url() and @import.
REMOTE = re.compile(
    r"""(?:\bsrc\s*=\s*|<link\b[^>]*?\bhref\s*=\s*|url\(\s*|@import\s+)["']?\s*(?:https?:)?//""",
    re.IGNORECASE,
)
MATHJAX = "_static/mathjax/tex-chtml.js"


def remote_resources(site):
    """``path: match`` of every resource of the site loaded from another host."""
    site = pathlib.Path(site)
    return [
        f"{path.relative_to(site)}: {match.group(0)}"
        for path in sorted(site.rglob("*"))
        if path.suffix in {".html", ".css"} and "_static/mathjax" not in path.as_posix()
        for match in REMOTE.finditer(path.read_text(encoding="utf-8", errors="replace"))
    ]


def local_mathjax(site, page):
    """True when ``page`` (relative to the site) loads MathJax from the site itself."""
    site = pathlib.Path(site)
    text = (site / page).read_text(encoding="utf-8")
    return (site / MATHJAX).is_file() and re.search(
        r'<script[^>]*src="(?:\.\./)*' + re.escape(MATHJAX), text
    ) is not None


if __name__ == "__main__":
    site = pathlib.Path(sys.argv[1])
    found = remote_resources(site)
    if found:
        sys.exit("The built documentation loads from the network:\n" + "\n".join(found[:20]))
    if not local_mathjax(site, "user_guide/measures.html"):
        sys.exit(f"The measures page does not load MathJax from the site ({MATHJAX}).")
    print("CI: the documentation works offline (no remote resource, MathJax from the site).")
