"""skfair's floor plan: every module imports only its own floor and the floors beneath it.

Bottom to top:

0. ``_utils``: input handling (frames, group codes, validation, random numbers, the
   scikit-learn shim); imports nothing else of skfair.
1. ``_stats``: sufficient statistics (chunk -> merge -> formula on plain arrays).
2. ``_dask``: the executor that maps the statistics over partitions.
3. ``_transport`` (one-dimensional optimal transport and the repair transformer) and the
   estimator plumbing at the package root (``_base``, ``_linprog``).
4. Measurement: ``metrics``, ``neighbors``, ``datasets``.
5. The mitigation and explanation siblings, which never import each other:
   ``preprocessing``, ``postprocessing``, ``reductions``, ``explain``, ``ensemble``,
   ``subgroups``.
6. The face: ``plotting``, ``_audit``, ``__main__``.

Imports are read from the source (``ast``), so a lazy import inside a function counts as much
as one at the top of a module; the import graph between modules has no circle.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "skfair"

FLOORS = {
    "_utils": 0,
    "_stats": 1,
    "_dask": 2,
    "_transport": 3,
    "_base": 3,
    "_linprog": 3,
    "metrics": 4,
    "neighbors": 4,
    "datasets": 4,
    "preprocessing": 5,
    "postprocessing": 5,
    "reductions": 5,
    "explain": 5,
    "ensemble": 5,
    "subgroups": 5,
    "plotting": 6,
    "_audit": 6,
    "__main__": 6,
    "__init__": 6,
}
SIBLINGS = frozenset(room for room, floor in FLOORS.items() if floor == 5)
# The private modules allowed at the package root (besides __init__ and __main__).
ROOT_MODULES = {"_base.py", "_linprog.py"}


def _room(module):
    """The top-level room of a dotted module name inside skfair (``skfair.x.y`` -> ``x``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _module_name(path):
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _skfair_imports(path):
    """The skfair modules ``path`` imports, absolute or relative, at any depth of the code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "skfair":
                continue
            yield module
            # ``from skfair.x import y`` may import the submodule skfair.x.y
            for alias in node.names:
                candidate = f"{module}.{alias.name}"
                if _module_path(candidate) is not None:
                    yield candidate
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.split(".")[0] == "skfair")


def _module_path(module):
    parts = module.split(".")[1:]
    if not parts:
        return PACKAGE / "__init__.py"
    module_file = PACKAGE.joinpath(*parts).with_suffix(".py")
    for candidate in (module_file, PACKAGE.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "data" not in p.relative_to(PACKAGE).parts)


def _violations(path):
    relative = path.relative_to(PACKAGE)
    here = relative.parts[0] if len(relative.parts) > 1 else relative.stem
    floor = FLOORS[here]
    for module in _skfair_imports(path):
        there = _room(module)
        if there == here or module == "skfair":
            continue
        if there not in FLOORS:
            yield f"{module} is in no floor of the plan"
        elif FLOORS[there] > floor:
            yield f"imports {module}, a floor above"
        elif there in SIBLINGS and here in SIBLINGS:
            yield f"imports {module}, a sibling"


def test_every_room_has_a_floor():
    rooms = {
        p.relative_to(PACKAGE).parts[0] if p.parent != PACKAGE else p.stem for p in _modules()
    }
    assert rooms <= set(FLOORS), sorted(rooms - set(FLOORS))


def test_at_most_two_private_modules_at_the_root():
    private = {p.name for p in PACKAGE.glob("_*.py")} - {"__init__.py", "__main__.py"}
    assert private <= ROOT_MODULES, sorted(private - ROOT_MODULES)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_imports_go_down_the_floors(path):
    assert not list(_violations(path))


def test_no_import_circles():
    graph = {}
    for path in _modules():
        name = _module_name(path)
        graph[name] = {m for m in _skfair_imports(path) if _module_path(m) is not None}
    # skfair/__init__ and every package's __init__ re-export their modules: a module that
    # imports a name through its own package's face is an edge to that face, so the faces
    # are kept, and only an edge back into the importing module's own descendants is a circle.
    state, stack, circles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if node.startswith(target + ".") and target != "skfair":
                continue  # a module imports its own package's face: Python allows it
            if state.get(target) == "open":
                circles.append(stack[stack.index(target) :] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not circles, circles


def test_random_generators_are_made_only_in_utils():
    """One way to make random numbers: ``skfair._utils._random``."""
    makers = ("default_rng(", "RandomState(", "np.random.Generator(", "Philox(")
    offenders = [
        f"{path.relative_to(PACKAGE)}: {line.strip()}"
        for path in _modules()
        if path.relative_to(PACKAGE).parts[0] != "_utils"
        for line in path.read_text(encoding="utf-8").splitlines()
        if any(maker in line for maker in makers)
        and not line.strip().startswith(("#", ">>>", "..."))
    ]
    assert not offenders, offenders


def _uses_linprog(path):
    """Whether ``path`` imports scipy's ``linprog`` or calls it through ``scipy.optimize``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("scipy")
            and any(alias.name == "linprog" for alias in node.names)
        ):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "linprog":
            return True
    return False


def test_one_module_calls_linprog():
    callers = [str(p.relative_to(PACKAGE)) for p in _modules() if _uses_linprog(p)]
    assert callers == ["_linprog.py"]


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    """The check is not vacuous: a statistic importing a metric, or a sibling another, is seen."""
    stats = PACKAGE / "_stats" / "_bad_example.py"
    monkeypatch.setattr(Path, "read_text", _fake_read(stats, "from skfair.metrics import madd\n"))
    assert list(_violations(stats)) == ["imports skfair.metrics, a floor above"]
    sibling = PACKAGE / "reductions" / "_bad_example.py"
    monkeypatch.setattr(
        Path, "read_text", _fake_read(sibling, "def f():\n    from skfair.explain import x\n")
    )
    assert list(_violations(sibling)) == ["imports skfair.explain, a sibling"]


def _fake_read(target, text):
    real = Path.read_text

    def read_text(self, *args, **kwargs):
        return text if self == target else real(self, *args, **kwargs)

    return read_text


def test_measuring_and_mitigating_load_neither_matplotlib_nor_dask():
    # Both are imported lazily, where a figure is drawn or a dask collection is met: a user
    # who only measures and mitigates in memory does not pay their import.
    code = (
        "import sys, skfair.metrics, skfair.postprocessing; "
        "print(sorted({'matplotlib', 'dask'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
