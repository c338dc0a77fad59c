"""The layers of skfair import downwards only: the Dask executor sits beneath the metrics.

``skfair/_dask`` maps the statistics of ``skfair/_stats`` over partitions; it may import
``_stats``, ``_groups``, ``_validation`` (and ``_frames`` through them) and its own modules,
never the layers that use it. The statistics import nothing above themselves either. Read
from the source (``ast``), so a lazy import inside a function counts as much as one at the
top of a module.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "skfair"
ABOVE = ("metrics", "postprocessing", "explain", "ensemble", "reductions", "preprocessing")
# skfair._compat wraps scikit-learn's private API and imports nothing of skfair: it sits below
# every layer.
ALLOWED = {
    "_dask": (
        "skfair._dask",
        "skfair._compat",
        "skfair._stats",
        "skfair._groups",
        "skfair._validation",
        "skfair._frames",
    ),
    "_stats": (
        "skfair._stats",
        "skfair._compat",
        "skfair._groups",
        "skfair._validation",
        "skfair._frames",
    ),
}


def _skfair_imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        yield from (name for name in names if name.split(".")[0] == "skfair")


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_low_layers_import_nothing_above_them(layer):
    files = sorted((PACKAGE / layer).glob("*.py"))
    assert files, f"skfair/{layer} has no modules"
    wrong = {
        f"{path.name} imports {name}"
        for path in files
        for name in _skfair_imports(path)
        if not name.startswith(ALLOWED[layer])
    }
    assert not wrong, sorted(wrong)


def test_the_executor_is_imported_by_the_layers_above_not_the_reverse():
    """No module of _dask names a layer above it, even in a string or a lazy import."""
    offenders = [
        f"{path.name}: {line.strip()}"
        for path in sorted((PACKAGE / "_dask").glob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if any(f"skfair.{above}" in line for above in ABOVE)
    ]
    assert not offenders, offenders


def test_the_check_sees_an_upward_import(tmp_path):
    """The check is not vacuous: a module importing a metric is reported."""
    module = tmp_path / "bad.py"
    module.write_text("def f():\n    from skfair.metrics import madd\n", encoding="utf-8")
    assert list(_skfair_imports(module)) == ["skfair.metrics"]
