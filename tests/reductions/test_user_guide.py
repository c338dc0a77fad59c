"""The snippets of the user guide page on the reductions run in order, and say what they do."""

import re
from pathlib import Path

import numpy as np
import pytest

PAGE = Path(__file__).resolve().parents[2] / "doc" / "user_guide" / "reductions.rst"


@pytest.mark.slow
def test_snippets_run_and_their_statements_hold():
    blocks = re.findall(
        r"\.\. code-block:: python\n\n((?:    .*\n|\n)+)", PAGE.read_text(encoding="utf-8")
    )
    source = "\n".join("\n".join(line[4:] for line in block.splitlines()) for block in blocks)
    namespace = {}
    exec(compile(source, str(PAGE), "exec"), namespace)  # noqa: S102
    model, sex, X, y = (namespace[name] for name in ("model", "sex", "X", "y"))
    assert model.constraint_gap_ <= 0.02 + 1e-7
    # "no sensitive attribute needed": predict took X alone, and used the members only
    assert np.array_equal(namespace["y_pred"], model.predict(X))
    search = namespace["search"]
    assert search.best_estimator_.sensitive_column == "sex"
    assert set(search.cv_results_["param_eps"]) == {0.01, 0.02, 0.05}
