"""The README keeps the two commands that .ci/run reproduces, and one copy of each section."""

import re
from collections import Counter
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_two_commands_are_there_verbatim():
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert "python -m pip install . && python -m skfair audit\n" in blocks
    assert 'python -m pip install ".[test]" && pytest\n' in blocks


def test_headings_are_unique():
    headings = re.findall(r"^#+ .*$", README.read_text(encoding="utf-8"), flags=re.M)
    repeated = [heading for heading, count in Counter(headings).items() if count > 1]
    assert not repeated
