"""One install instruction everywhere: from a checkout, in the docs and in error messages."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
# The distribution is not published: these would fail with "No matching distribution".
UNPUBLISHED = re.compile(r"pip install\s+[\"']?scikit-fairkit|scikit-fairkit\[")


def test_no_instruction_installs_from_the_package_index():
    files = [ROOT / "README.md", *ROOT.glob("doc/**/*.rst"), *ROOT.glob("skfair/**/*.py")]
    files += [*ROOT.glob("examples/*.py"), *ROOT.glob("doc/conf.py")]
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in files
        for match in UNPUBLISHED.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not offenders


class _NoPandas:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "pandas":
            raise ImportError("pandas is not installed")


@pytest.fixture
def without_pandas(monkeypatch):
    monkeypatch.delitem(sys.modules, "pandas", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoPandas(), *sys.meta_path])


def test_metric_table_defaults_work_without_pandas(without_pandas):
    from skfair.metrics import MetricTable

    table = MetricTable(
        ["selection_rate", "tpr"],
        [1, 0, 1, 1],
        [1, 0, 0, 1],
        sensitive_features=["a", "a", "b", "b"],
        n_boot=20,
        random_state=0,
    )
    np.testing.assert_allclose(table.by_group, [[0.5, 1.0], [0.5, 0.5]])
    assert table.confidence_interval()[0].shape == (2, 2)
    with pytest.raises(ImportError, match=re.escape('python -m pip install ".[pandas]"')):
        _ = MetricTable(
            "tpr", [1, 0], [1, 1], sensitive_features=["a", "b"], as_frame=True
        ).by_group
