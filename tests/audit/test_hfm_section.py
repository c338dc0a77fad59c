"""The HFM section of ``python -m skfair audit``."""

import re

import numpy as np
import pandas as pd

from skfair._audit import SECTIONS, AuditContext
from skfair._audit._sections import hfm_section
from skfair._audit._text import section_body_text
from skfair.metrics import hfm_details


def test_hfm_section_matches_the_metric():
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "job": rng.choice(["a", "b", None], n),
            "sex": rng.choice(["F", "M"], n),
            "race": rng.choice(["x", "y", "z"], n),
        }
    )
    y_test = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.2, 1 - y_test, y_test)
    sensitive = {"sex": frame["sex"].to_numpy(), "race": frame["race"].to_numpy()}
    context = AuditContext(
        model=None,
        X_test=frame,
        y_test=y_test,
        y_pred=y_pred,
        y_score=None,
        sensitive=sensitive,
    )
    text = section_body_text(hfm_section(context))
    features = frame[["age", "job"]].fillna("(missing)")
    expected = hfm_details(features, y_test, y_pred, sensitive_features=sensitive)
    rows = {
        line.split("  ")[0]: re.split(r"\s{2,}", line.strip())[1:]
        for line in text.splitlines()[2:8]
    }
    assert float(rows["hfm (avg)"][-1]) == round(expected.hfm_avg, 4)
    assert float(rows["D max (data)"][0]) == round(expected.by_attribute["D_max"][0], 4)
    assert "hfm" in SECTIONS
