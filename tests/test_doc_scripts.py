"""Every README and user-guide code block that starts a cluster runs as a script.

A user saves such a block as a file and runs ``python file.py``: the workers of a
``LocalCluster`` start in new processes that import that file again, so without an
``if __name__ == "__main__":`` guard the script fails ("Nanny failed to start"). Running the
block with ``exec`` in the test process hides this; here each one runs in a subprocess.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import skfair

ROOT = Path(__file__).resolve().parents[1]


def code_blocks():
    """(where, source) of the Python blocks of the README and of the user guide."""
    blocks = []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for k, source in enumerate(re.findall(r"```py(?:thon)?\n(.*?)```", readme, flags=re.S)):
        blocks.append((f"README.md block {k}", source))
    for page in sorted((ROOT / "doc" / "user_guide").glob("*.rst")):
        text = page.read_text(encoding="utf-8")
        pattern = r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)"
        for k, block in enumerate(re.findall(pattern, text)):
            source = "\n".join(line[3:] for line in block.splitlines())
            blocks.append((f"{page.name} block {k}", source))
    return blocks


CLUSTER_BLOCKS = [(where, source) for where, source in code_blocks() if "Cluster(" in source]


def test_the_blocks_that_start_a_cluster_are_found():
    assert [where.split()[0] for where, _ in CLUSTER_BLOCKS] == ["README.md", "scaling.rst"]


@pytest.mark.slow
@pytest.mark.parametrize(("where", "source"), CLUSTER_BLOCKS, ids=[w for w, _ in CLUSTER_BLOCKS])
def test_cluster_block_runs_as_a_script(where, source, tmp_path):
    import distributed  # noqa: F401  (the test extra installs it)

    assert 'if __name__ == "__main__":' in source, where
    script = tmp_path / "snippet.py"
    script.write_text(source, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(Path(skfair.__file__).resolve().parents[1]))
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert "already in use" not in result.stderr  # no fixed dashboard port
    # The cluster closes cleanly: its workers exit before the nanny's timeout.
    assert "still alive" not in result.stderr, result.stderr[-3000:]
    printed = [float(x) for x in re.findall(r"\d+\.\d+", result.stdout)]
    assert printed, result.stdout
    if where.startswith("scaling.rst"):
        # "The results are the same as in one process."
        from sklearn.datasets import make_classification
        from sklearn.linear_model import LogisticRegression

        from skfair.ensemble import BootstrapEnsemble

        X, y = make_classification(n_samples=5_000, random_state=0)
        ensemble = BootstrapEnsemble(LogisticRegression(), n_estimators=20, random_state=0)
        expected = ensemble.fit(X, y).uncertainty(X).label_stability.mean()
        assert printed[0] == pytest.approx(expected, rel=1e-12)
    else:
        assert all(np.isfinite(printed))
