"""The audit's "Where does the bias come from" section."""

import numpy as np
from sklearn.linear_model import LogisticRegression

from skfair._audit import AuditContext
from skfair._audit._context import _predict
from skfair._audit._sections import bias_sources_section
from skfair._audit._text import section_body_text
from skfair.metrics import wasserstein_bias


def _context():
    rng = np.random.default_rng(0)
    n = 600
    group = rng.choice(["f", "m"], n)
    X = np.column_stack(
        [rng.normal(size=n), rng.normal(0.8 * (group == "m"), 1.0), rng.normal(size=n)]
    )
    y = (X[:, 0] + X[:, 1] + rng.normal(size=n) > 0.5).astype(int)
    model = LogisticRegression().fit(X, y)
    y_pred, y_score, _ = _predict(model, X, positive_label=1)
    return AuditContext(
        model=model,
        X_test=X,
        y_test=y,
        y_pred=y_pred,
        y_score=y_score,
        sensitive={"sex": group},
        privileged={"sex": "m"},
        feature_names=["noise", "hours", "other"],
    )


def test_bias_sources_section_names_the_driver():
    context = _context()
    text = section_body_text(bias_sources_section(context))
    lines = text.splitlines()
    assert lines[0].startswith("sex: 'm' vs 'f'")
    model_row = lines[2].split()
    expected = wasserstein_bias(
        None, context.y_score, sensitive_features=context.sensitive["sex"], privileged_group="m"
    )
    assert float(model_row[-4]) == round(expected, 4)  # all 600 rows are used (< 2000)
    assert lines[3].split()[0] == "hours"  # the feature shifted by group ranks first


def test_bias_sources_section_without_scores():
    context = _context()
    context.y_score = None
    assert section_body_text(bias_sources_section(context)).startswith("n/a")
