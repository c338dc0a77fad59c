"""The ``training`` section of ``python -m skfair audit``: the model retrained under a
constraint, its accuracy and gaps checked against an independent groupby of its decisions."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfair._audit import AuditContext
from skfair._audit._context import _predict
from skfair._audit._json import section_json
from skfair._audit._training_section import TRAINING_EPS, training_section


def make_context(n=4000, seed=0, with_training=True):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n, p=[0.4, 0.6])
    X = np.c_[rng.normal(size=n) + (sex == "M"), rng.normal(size=n)]
    y = (X[:, 0] + X[:, 1] + rng.normal(size=n) > 0.8).astype(int)
    train, test = slice(0, n // 2), slice(n // 2, None)
    model = LogisticRegression().fit(X[train], y[train])
    y_pred, y_score, _ = _predict(model, X[test], positive_label=1)
    extra = (
        {"X_train": X[train], "y_train": y[train], "sensitive_train": {"sex": sex[train]}}
        if with_training
        else {}
    )
    return AuditContext(
        model=model,
        X_test=X[test],
        y_test=y[test],
        y_pred=y_pred,
        y_score=y_score,
        sensitive={"sex": sex[test]},
        positive_label=1,
        **extra,
    )


def largest_gaps(y_true, y_pred, groups):
    """(equalized odds difference, selection-rate difference), one mask per group."""
    tpr, fpr, sel = [], [], []
    for group in np.unique(groups):
        member = groups == group
        tpr.append(y_pred[member & (y_true == 1)].mean())
        fpr.append(y_pred[member & (y_true == 0)].mean())
        sel.append(y_pred[member].mean())
    return max(np.ptp(tpr), np.ptp(fpr)), np.ptp(sel)


def test_rows_are_the_retrained_models_metrics_by_groupby():
    context = make_context()
    section = training_section(context)
    rows = {row[0]: row[2:] for row in section.blocks[0].rows}
    model = section.data["models"]["sex"]
    assert model.mixture_gap_ <= TRAINING_EPS + 1e-7  # on its training rows
    model.set_params(predict_method="deterministic")
    deterministic = model.predict(context.X_test)
    model.set_params(predict_method="randomized")
    randomised = model.predict(context.X_test)
    columns = (context.y_pred, deterministic, randomised)
    for k, y_pred in enumerate(columns):
        eo, spd = largest_gaps(context.y_test, y_pred, context.sensitive["sex"])
        assert rows["accuracy"][k] == pytest.approx(np.mean(y_pred == context.y_test))
        assert rows["equalized_odds_difference"][k] == pytest.approx(eo)
        assert rows["statistical_parity_difference"][k] == pytest.approx(spd)
    # the retrained model narrows the gap the constraint is about
    assert rows["equalized_odds_difference"][2] < rows["equalized_odds_difference"][0]
    rendered = section_json(section)["tables"][0]
    assert rendered["header"][2:] == ["unconstrained", "constrained", "randomised"]
    assert len(rendered["rows"]) == 3


def test_without_training_data_the_section_says_why():
    section = training_section(make_context(with_training=False))
    assert section.message.startswith("n/a: retraining the model")


def test_notes_give_the_training_gap_next_to_the_evaluation_gap():
    context = make_context()
    section = training_section(context)
    model = section.data["models"]["sex"]
    evaluation_gap = {row[0]: row[4] for row in section.blocks[0].rows}["equalized_odds_difference"]
    note = next(note for note in section.notes if note.startswith("sex: "))
    assert f"{model.constraint_gap_:.4f} on the 2,000 training rows" in note
    assert f"{evaluation_gap:.4f} on the evaluation rows" in note


def test_an_evaluation_gap_far_above_the_bound_names_the_smallest_group():
    # A third group with four positive training rows: its rates on other rows are noise.
    context = make_context()
    sex = context.sensitive_train["sex"].astype(object)
    small = np.flatnonzero(context.y_train == 1)[:4]
    sex[small] = "X"
    context.sensitive_train["sex"] = sex
    test_sex = context.sensitive["sex"].astype(object)
    test_sex[np.flatnonzero(context.y_test == 1)[:3]] = "X"
    test_sex[np.flatnonzero(context.y_test == 0)[:3]] = "X"
    context.sensitive["sex"] = test_sex
    section = training_section(context)
    model = section.data["models"]["sex"]
    evaluation_gap = {row[0]: row[4] for row in section.blocks[0].rows}["equalized_odds_difference"]
    note = next(note for note in section.notes if note.startswith("sex: "))
    assert evaluation_gap > model.constraint_gap_ + TRAINING_EPS
    assert "smallest: X, 4 positive training rows" in note


@pytest.mark.parametrize("n_categories", [3, 60])  # dense and sparse stacked features
def test_plain_model_float32_indicators_fit_the_float64_model(n_categories):
    """The plain model's one-hot indicators are float32 to halve their memory; the model it
    fits is bit for bit the one fitted on float64 indicators."""
    from sklearn.base import clone

    from skfair._audit._context import plain_model

    rng = np.random.default_rng(0)
    n = 3000
    X = np.empty((n, 3), dtype=object)
    X[:, 0] = rng.choice([f"c{k}" for k in range(n_categories)], n)
    X[:, 1] = rng.normal(size=n)
    X[:, 2] = rng.integers(0, 50, n)
    y = (X[:, 1].astype(float) + rng.normal(size=n) > 0).astype(int)
    model = plain_model([0], [1, 2])
    reference = clone(model).set_params(columntransformer__onehotencoder__dtype=np.float64)
    model.fit(X, y)
    reference.fit(X, y)
    assert model[0].named_transformers_["onehotencoder"].dtype == np.float32
    np.testing.assert_array_equal(model[-1].coef_, reference[-1].coef_)
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))
