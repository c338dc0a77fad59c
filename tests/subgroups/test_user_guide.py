"""The code of the subgroups page of the user guide runs and finds what it says."""

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "doc" / "user_guide" / "subgroups.rst"


def test_the_user_guide_example_runs(capsys):
    text = PAGE.read_text(encoding="utf-8")
    (block,) = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", text)
    namespace = {}
    exec("\n".join(line[3:] for line in block.splitlines()), namespace)  # noqa: S102
    report = namespace["report"]
    assert len(report) == 10
    assert report.metric == "false_negative_rate"
    assert report.subgroups[0]["significant"]
    assert "description" in capsys.readouterr().out
