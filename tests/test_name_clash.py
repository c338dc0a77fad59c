"""Another distribution installing a top-level ``skfair`` is named in a warning at import."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import skfair
from skfair._utils._name_clash import other_providers

CHECKOUT = str(Path(skfair.__file__).resolve().parents[1])


def install(folder, distribution, files, *, record=True):
    """Lay out what pip leaves: the files, and ``<distribution>.dist-info/RECORD`` listing them."""
    for path in files:
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text("")
    metadata = folder / f"{distribution}.dist-info"
    metadata.mkdir(parents=True)
    if record:
        lines = [f"{path},sha256=x,0" for path in files]
        lines.append(f"{distribution}.dist-info/RECORD,,")
        (metadata / "RECORD").write_text("\n".join(lines) + "\n")


def test_another_copy_on_the_path_is_named(tmp_path):
    install(tmp_path, "scikit_fair-0.3", ["skfair/__init__.py", "skfair/fair.py"])
    found = other_providers(skfair.__path__[0], [CHECKOUT, str(tmp_path)])
    assert found == [("scikit-fair 0.3", os.path.normcase(str(tmp_path)))]


def test_files_of_two_distributions_mixed_in_one_folder(tmp_path):
    ours = ["skfair/__init__.py", "skfair/metrics/__init__.py"]
    install(tmp_path, "scikit_fairkit-0.1.0", ours)
    # The provenance tool "skfair" installed into the same folder adds a module of its own
    # (its __init__.py was overwritten by ours).
    install(tmp_path, "skfair-2.1", ["skfair/__init__.py", "skfair/provenance.py"])
    found = other_providers(str(tmp_path / "skfair"), [str(tmp_path)])
    assert found == [("skfair 2.1", os.path.normcase(str(tmp_path)))]


def test_a_clean_install_and_a_second_copy_of_this_distribution_are_fine(tmp_path):
    install(tmp_path / "site", "scikit_fairkit-0.1.0", ["skfair/__init__.py", "skfair/_x.py"])
    (tmp_path / "site" / "other_package").mkdir()
    install(tmp_path / "site", "numpy-2.0", ["numpy/__init__.py"])
    assert other_providers(str(tmp_path / "site" / "skfair"), [str(tmp_path / "site")]) == []
    # A checkout on the path in front of an installed copy of this same distribution.
    assert other_providers(skfair.__path__[0], [CHECKOUT, str(tmp_path / "site")]) == []


def test_a_copy_without_any_record_is_still_reported(tmp_path):
    install(tmp_path, "mystery-1.0", ["skfair/__init__.py"], record=False)
    found = other_providers(skfair.__path__[0], [CHECKOUT, str(tmp_path)])
    assert found == [("an unknown distribution", os.path.normcase(str(tmp_path)))]


def run_import(pythonpath):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(pythonpath))
    return subprocess.run(
        [sys.executable, "-W", "always", "-c", "import skfair, skfair.metrics, skfair._utils"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_import_warns_once_naming_the_other_distribution(tmp_path):
    install(tmp_path, "scikit_fair-0.3", ["skfair/__init__.py"])
    result = run_import([CHECKOUT, str(tmp_path)])
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("Another installed distribution also provides") == 1
    assert "scikit-fair 0.3" in result.stderr
    assert "separate virtual environments" in result.stderr
    assert run_import([CHECKOUT]).stderr == ""
