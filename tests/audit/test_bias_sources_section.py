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
    # The pair, why the first is the reference, and how many of their rows were explained.
    assert lines[0] == "sex: m (the privileged group; 322 of its 322 rows) vs f (278 of 278 rows)"
    assert (context.sensitive["sex"] == "m").sum() == 322
    assert lines[1].split() == ["feature", "beta", "beta+", "(m)", "beta-", "(f)", "net"]
    model_row = lines[3].split()
    expected = wasserstein_bias(
        None, context.y_score, sensitive_features=context.sensitive["sex"], privileged_group="m"
    )
    assert float(model_row[-4]) == round(expected, 4)  # all 600 rows are used (< 1000 a group)
    assert lines[4].split()[0] == "hours"  # the feature shifted by group ranks first


def test_bias_sources_section_without_scores():
    context = _context()
    context.y_score = None
    assert section_body_text(bias_sources_section(context)).startswith("n/a")


def test_bias_sources_explain_the_favourable_class_when_it_is_zero():
    # A model of a 0/1 target whose favourable outcome is 0 (--positive-label 0): the
    # explanations are of the score of class 0, whose W1 bias is that of 1 - P(y=1).
    context = _context()
    model = context.model
    context.positive_label = 0
    context.y_test = 1 - context.y_test
    context.y_pred, context.y_score, _ = _predict(model, context.X_test, positive_label=0)
    np.testing.assert_allclose(context.y_score, model.predict_proba(context.X_test)[:, 0])
    section = bias_sources_section(context)
    explainer = section.data["explainers"]["sex"]
    assert explainer.pos_label == 0
