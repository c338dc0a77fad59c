"""The README keeps the two commands that .ci/run reproduces, and one copy of each section."""

import ast
import contextlib
import io
import re
from collections import Counter
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_two_commands_are_there_verbatim():
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert "python -m pip install . && python -m skfair audit\n" in blocks
    assert 'python -m pip install ".[test]" && pytest\n' in blocks


def test_headings_are_unique():
    headings = re.findall(r"^#+ .*$", README.read_text(encoding="utf-8"), flags=re.M)
    repeated = [heading for heading, count in Counter(headings).items() if count > 1]
    assert not repeated


def tour_source():
    return "\n".join(
        re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    )


def test_tour_as_a_script_prints_what_it_shows():
    # Regression: bare expressions (a value shown in a notebook) print nothing in a script.
    # Every expression statement of the tour is a print or a fit (kept for its side effect).
    tree = ast.parse(tour_source())
    bare = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and not (
            isinstance(node.value, ast.Call)
            and (
                (isinstance(node.value.func, ast.Name) and node.value.func.id == "print")
                or (isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "fit")
            )
        )
    ]
    assert not bare


@pytest.mark.slow
def test_tour_runs_and_its_statements_hold():
    """The tour's snippets run in order, and the numbers they produce mean what the text says."""
    namespace, printed = {}, io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(tour_source(), "README.md", "exec"), namespace)  # noqa: S102
    output = printed.getvalue()
    for label in (
        "statistical parity difference (Female - Male): ",
        "equalized odds difference (sex x race): ",
        "Wasserstein bias favouring Male: ",
        "chosen: {'logisticregression__C': ",
        "statistical parity difference after the repair: ",
        "statistical parity difference, constrained: ",
    ):
        assert label in output, label
    bias = namespace["explainer"].bias_
    assert abs(bias["positive"] + bias["negative"] - bias["total"]) < 1e-12
    before = namespace["statistical_parity_difference"](
        namespace["test"].target,
        namespace["y_pred"],
        sensitive_features=namespace["sex"],
        privileged_group="Male",
    )
    after = namespace["statistical_parity_difference"](
        namespace["test"].target,
        namespace["y_repaired"],
        sensitive_features=namespace["sex"],
        privileged_group="Male",
    )
    assert abs(after) < abs(before)  # the repair narrows the selection-rate gap
    # the data fix and the constrained training narrow it too, the latter to about its bound
    for name, bound in (("y_reweighed", abs(before)), ("y_constrained", 0.03)):
        gap = namespace["statistical_parity_difference"](
            namespace["test"].target, namespace[name], sensitive_features=namespace["sex"]
        )
        assert abs(gap) < bound, name
    # constraint_gap_ is the training gap of the decisions predict makes ("within 0.02 on the
    # training rows"), checked by an independent computation of that gap
    constrained, train = namespace["constrained"], namespace["train"]
    realised = namespace["statistical_parity_difference"](
        train.target, constrained.predict(train.data), sensitive_features=train.data["sex"]
    )
    assert abs(realised) == pytest.approx(constrained.constraint_gap_, abs=1e-12)
    assert constrained.constraint_gap_ <= 0.02 + 1e-9
    assert constrained.n_fits_ <= 15  # "15 fits of the logistic regression here"
