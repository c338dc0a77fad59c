"""The examples in the docstrings run, and print what they show (doctests of every module)."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import skfair

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(skfair.__path__, prefix="skfair.")
    if info.name != "skfair.__main__"
)
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
PUBLIC_PACKAGES = (
    "skfair.metrics",
    "skfair.postprocessing",
    "skfair.reductions",
    "skfair.preprocessing",
    "skfair.explain",
    "skfair.ensemble",
    "skfair.neighbors",
    "skfair.datasets",
    "skfair.plotting",
)


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_run(module_name):
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    # The finder keeps the objects defined in the module itself, not the names it imports.
    for test in finder.find(module, module_name):
        if test.examples:
            runner.run(test, clear_globs=True)
    failures, attempted = runner.summarize(verbose=False)
    assert failures == 0, f"{failures} of {attempted} docstring examples failed in {module_name}"


def test_every_public_module_has_examples():
    """Every public function and class of skfair has an Examples section that runs above."""
    missing = []
    for package in PUBLIC_PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            doc = getattr(module, name).__doc__ or ""
            if ">>>" not in doc:
                missing.append(f"{package}.{name}")
    assert not missing, f"public names without a docstring example: {missing}"


def test_api_reference_lists_every_public_name():
    """doc/api.rst documents exactly the names each subpackage exports."""
    api = (Path(__file__).resolve().parents[1] / "doc" / "api.rst").read_text()
    documented = {}
    package = None
    for line in api.splitlines():
        if line.startswith(".. currentmodule:: "):
            package = line.split()[-1]
            documented[package] = set()
        elif package and line.startswith("   ") and line.strip() and line.strip()[0] not in ":.":
            documented[package].add(line.strip())
    exported = {name: set(importlib.import_module(name).__all__) for name in documented}
    assert set(documented) == set(PUBLIC_PACKAGES)
    assert documented == exported
