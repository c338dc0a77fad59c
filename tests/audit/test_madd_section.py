"""The MADD section of ``python -m skfair audit``."""

import re
import warnings

import numpy as np
import pandas as pd

from skfair.__main__ import main
from skfair.metrics import madd_bandwidth_search


def test_madd_section_matches_the_metric(tmp_path, capsys):
    path = tmp_path / "predictions.csv"
    assert main(["audit", "--sections", "madd", "--save-predictions", str(path)]) == 0
    output = capsys.readouterr().out
    assert "Score distributions: MADD" in output
    predictions = pd.read_csv(path, keep_default_na=False)
    scores = predictions["y_score"].to_numpy()
    lines = output.splitlines()
    for attribute in ("sex", "race"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            expected = madd_bandwidth_search(
                None, scores, sensitive_features=predictions[attribute].to_numpy()
            )
        row = next(line for line in lines if line.startswith(f"{attribute}  "))
        value = float(re.split(r"\s{2,}", row.strip())[1])
        assert abs(value - expected.value) <= 5e-5
        pair = " vs ".join(str(label) for label in expected.worst_pair)
        assert pair in output
    assert np.isfinite(value)
