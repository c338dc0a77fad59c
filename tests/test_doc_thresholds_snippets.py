"""The thresholds page of the user guide: its code blocks, in order, form a script that runs."""

import ast
import builtins
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import skfair

PAGE = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "thresholds.rst"


def page_script():
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", text)
    return "\n".join("\n".join(line[3:] for line in block.splitlines()) for block in blocks)


def test_every_name_is_defined_before_it_is_used():
    # Regression: the snippets used X_calibration and model without defining them.
    defined, undefined = set(dir(builtins)), []
    for statement in ast.parse(page_script()).body:
        for node in ast.walk(statement):
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)
                and node.id not in defined
            ):
                undefined.append(node.id)
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                defined.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                defined.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    # Names bound inside a statement and read by it (loop and comprehension variables).
    bound_inside = {
        node.id
        for node in ast.walk(ast.parse(page_script()))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    assert [name for name in undefined if name not in bound_inside] == []


@pytest.mark.slow
def test_the_page_runs_as_a_script_and_prints_labelled_values(tmp_path):
    script = tmp_path / "thresholds.py"
    script.write_text("import matplotlib\nmatplotlib.use('Agg')\n" + page_script())
    env = dict(os.environ, PYTHONPATH=str(Path(skfair.__file__).resolve().parents[1]))
    result = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    # The fitted arrays are printed with the group they belong to.
    assert any(line.startswith("Female: thresholds [") for line in lines)
    assert any(line.startswith("group a: multipliers of the classes [") for line in lines)
    model_gap, fair_gap = (
        float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith("equalized odds")
    )
    assert fair_gap < model_gap
    assert (tmp_path / "pareto_front.png").exists()
