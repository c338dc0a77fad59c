"""The ``repair`` section of ``python -m skfair audit``, on a synthetic audit context."""

import re

import numpy as np
from sklearn.linear_model import LogisticRegression

from skfair._audit import AuditContext
from skfair._audit._sections import repair_section
from skfair._audit._text import section_body_text
from skfair.metrics import ks_bias, statistical_parity_difference


def table(text):
    rows = {}
    for line in text.splitlines()[2:]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[(cells[0], cells[1])] = (float(cells[2]), float(cells[3]))
    return rows


def test_repair_section_reports_before_and_after():
    rng = np.random.default_rng(0)
    n = 4000
    sex = rng.choice(["F", "M"], n)
    X = np.c_[rng.normal(size=n) + (sex == "M"), rng.normal(size=n)]
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    model = LogisticRegression().fit(X, y)
    context = AuditContext(
        model=model,
        X_test=X,
        y_test=y,
        y_pred=model.predict(X),
        y_score=model.predict_proba(X)[:, 1],
        sensitive={"sex": sex},
    )
    rows = table(section_body_text(repair_section(context)))
    ks_before, ks_after = rows[("ks_bias", "sex")]
    assert ks_before == round(ks_bias(y, context.y_score, sensitive_features=sex), 4)
    spd_before, spd_after = rows[("statistical_parity_difference", "sex")]
    assert spd_before == round(
        statistical_parity_difference(y, context.y_pred, sensitive_features=sex), 4
    )
    # two-sample Dvoretzky-Kiefer-Wolfowitz bound on the out-of-sample KS distance, halves of
    # ~1000 rows per group
    counts = np.unique(sex, return_counts=True)[1] / 2
    assert ks_after <= 1.5 * np.sqrt(np.log(4 / 1e-3) * (1 / counts[0] + 1 / counts[1]))
    assert ks_before > 0.3 and spd_after < spd_before
    assert rows[("accuracy", "(all rows)")][0] == round(np.mean(context.y_pred == y), 4)


def test_repair_section_without_scores():
    context = AuditContext(
        model=None, X_test=None, y_test=None, y_pred=None, y_score=None, sensitive={}
    )
    assert "no scores to repair" in section_body_text(repair_section(context))
