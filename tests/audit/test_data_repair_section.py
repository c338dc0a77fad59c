"""The ``data_repair`` section of ``python -m skfair audit``, on a synthetic audit context."""

import re

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from skfair._audit import AuditContext
from skfair._audit._data_repair_section import data_repair_section
from skfair._audit._sections import SECTIONS
from skfair._audit._text import section_body_text
from skfair.metrics import statistical_parity_difference


def table(text):
    """{(metric, attribute): {column: value}} from the section's text table."""
    lines = text.splitlines()
    columns = re.split(r"\s{2,}", lines[0].strip())[2:]
    rows = {}
    for line in lines[2:]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == "accuracy":
            cells.insert(1, "")
        rows[(cells[0], cells[1])] = dict(zip(columns, map(float, cells[2:])))
    return rows


def make_context(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], 2 * n, p=[0.4, 0.6])
    income = rng.normal(size=2 * n) + 1.2 * (sex == "M")
    X = np.c_[income, rng.normal(size=2 * n), (sex == "M").astype(float)]
    y = (income + rng.normal(size=2 * n) > 0.8).astype(int)
    model = LogisticRegression().fit(X[:n], y[:n])
    return AuditContext(
        model=model,
        X_test=X[n:],
        y_test=y[n:],
        y_pred=model.predict(X[n:]),
        y_score=model.predict_proba(X[n:])[:, 1],
        sensitive={"sex": sex[n:]},
        X_train=X[:n],
        y_train=y[:n],
        sensitive_train={"sex": sex[:n]},
        feature_names=["income", "other", "sex"],
    )


def test_section_compares_the_audited_model_with_models_on_repaired_data():
    context = make_context()
    rows = table(section_body_text(data_repair_section(context)))
    accuracy, dp = rows[("accuracy", "")], rows[("DP", "sex")]
    assert accuracy["audited"] == round(np.mean(context.y_pred == context.y_test), 4)
    assert dp["audited"] == round(
        statistical_parity_difference(
            context.y_test, context.y_pred, sensitive_features=context.sensitive["sex"]
        ),
        4,
    )
    # the reweighed model: LogisticRegression with the closed-form weights, sex column blanked
    frame = pd.DataFrame({"a": context.sensitive_train["sex"], "y": context.y_train})
    p_a, p_y = frame.a.value_counts(normalize=True), frame.y.value_counts(normalize=True)
    p_ay = frame.value_counts(normalize=True)
    weights = [p_a[a] * p_y[y] / p_ay[(a, y)] for a, y in zip(frame.a, frame.y)]
    X_train, X_test = context.X_train.copy(), context.X_test.copy()
    X_train[:, 2] = X_test[:, 2] = X_train[0, 2]
    expected = LogisticRegression().fit(X_train, context.y_train, sample_weight=weights)
    y_pred = expected.predict(X_test)
    assert accuracy["reweighed"] == round(np.mean(y_pred == context.y_test), 4)
    assert dp["reweighed"] == round(
        statistical_parity_difference(
            context.y_test, y_pred, sensitive_features=context.sensitive["sex"]
        ),
        4,
    )
    # repairing the only informative feature removes most of the selection-rate gap
    assert dp["repaired"] < dp["audited"] / 3
    assert ("EO", "sex") in rows and "data_repair" in SECTIONS


def test_section_needs_the_training_data():
    context = make_context(n=200)
    context.X_train = None
    assert "needs its training data" in section_body_text(data_repair_section(context))


def test_section_on_a_dataframe_gives_the_numbers_of_the_object_array():
    """The csv audit's training rows are a typed DataFrame; the section repairs them into a
    typed DataFrame (no object array) and reports what the object-array path reports."""
    from skfair._audit._context import plain_model

    rng = np.random.default_rng(3)
    n = 4000
    sex = rng.choice(["F", "M"], n, p=[0.4, 0.6])
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "hours": np.round(rng.gamma(4, 10, n), 1),
            "city": rng.choice(["a", "b", "c"], n),
            "sex": sex,
        }
    )
    y = (frame.hours.to_numpy() / 40 + 0.5 * (sex == "M") + rng.normal(size=n) > 1.2).astype(int)

    def context(X):
        train, test = slice(0, 3000), slice(3000, None)
        take = (lambda rows: X.iloc[rows]) if hasattr(X, "iloc") else (lambda rows: X[rows])
        model = plain_model([2, 3], [0, 1]).fit(take(train), y[train])
        return AuditContext(
            model=model,
            X_test=take(test),
            y_test=y[test],
            y_pred=model.predict(take(test)),
            y_score=None,
            sensitive={"sex": sex[test]},
            X_train=take(train),
            y_train=y[train],
            sensitive_train={"sex": sex[train]},
            feature_names=list(frame.columns),
        )

    typed = section_body_text(data_repair_section(context(frame)))
    boxed = section_body_text(data_repair_section(context(frame.to_numpy(dtype=object))))
    assert typed == boxed
    assert "could not run" not in typed
