"""The README's "Scale out" snippet runs on a LocalCluster and gives the in-memory values."""

import re
from pathlib import Path

import numpy as np
import pytest

from skfair.metrics import equalized_odds_difference, group_summary, wasserstein_bias

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.slow
def test_scale_out_snippet_runs_and_equals_in_memory():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Scale out\n", 1)[1].split("\n## ", 1)[0]
    (source,) = re.findall(r"```py\n(.*?)```", section, flags=re.S)
    namespace = {"__name__": "__main__"}  # the snippet is a guarded script
    exec(compile(source, "README.md", "exec"), namespace)  # noqa: S102
    import dask

    with dask.config.set(scheduler="synchronous"):
        group, y_true, y_pred, score = dask.compute(
            namespace["group"], namespace["y_true"], namespace["y_pred"], namespace["score"]
        )
    assert (
        namespace["eod"] == equalized_odds_difference(y_true, y_pred, sensitive_features=group)
        or abs(
            namespace["eod"] - equalized_odds_difference(y_true, y_pred, sensitive_features=group)
        )
        < 1e-12
    )
    expected = group_summary(y_true, y_pred, sensitive_features=group, n_boot=1000, random_state=0)
    np.testing.assert_array_equal(namespace["summary"].count, expected.count)
    np.testing.assert_allclose(namespace["summary"].ci_low, expected.ci_low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(namespace["summary"].ci_high, expected.ci_high, rtol=0, atol=1e-12)
    rounded = wasserstein_bias(None, score, sensitive_features=group, resolution=1e-4)
    assert abs(namespace["w1"] - rounded) < 1e-12
    assert abs(namespace["w1"] - wasserstein_bias(None, score, sensitive_features=group)) <= 1e-4
