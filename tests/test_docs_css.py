"""The docs' stylesheet wraps code and printed output instead of cutting them off."""

import re
from pathlib import Path

CSS = Path(__file__).resolve().parents[1] / "doc" / "_static" / "skfair.css"


def rules():
    """{selector: declarations} of the stylesheet (comments removed)."""
    text = re.sub(r"/\*.*?\*/", "", CSS.read_text(encoding="utf-8"), flags=re.S)
    parsed = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", text):
        declarations = dict(
            (part.split(":", 1)[0].strip(), part.split(":", 1)[1].strip())
            for part in body.split(";")
            if ":" in part
        )
        for selector in selectors.split(","):
            parsed.setdefault(" ".join(selector.split()), {}).update(declarations)
    return parsed


def test_code_and_gallery_output_blocks_wrap():
    # Regression: at 1280 px, code and output blocks were cut off behind a scrollbar.
    parsed = rules()
    for selector in (
        ".bd-article div.highlight pre",  # code blocks
        ".bd-article div.sphx-glr-script-out pre",  # the gallery's printed output
    ):
        assert parsed[selector]["white-space"] == "pre-wrap", selector
        assert parsed[selector]["overflow-wrap"] == "anywhere", selector
