"""The stability section of ``python -m skfair audit``."""

import math
import re

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression, Perceptron

from skfair._audit import AuditContext
from skfair._audit._sections import _N_REPLICAS, stability_section
from skfair._audit._text import section_body_text
from skfair.ensemble import BootstrapEnsemble

X, Y = make_classification(n_samples=300, n_features=4, random_state=0)
SEX = np.where(np.arange(300) % 3 == 0, "F", "M")


def _context(model, *, privileged=None, with_training_data=True):
    model.fit(X[:200], Y[:200])
    return AuditContext(
        model=model,
        X_test=X[200:],
        y_test=Y[200:],
        y_pred=model.predict(X[200:]),
        y_score=None,
        sensitive={"sex": SEX[200:]},
        privileged={} if privileged is None else {"sex": privileged},
        X_train=X[:200] if with_training_data else None,
        y_train=Y[:200] if with_training_data else None,
        random_state=3,
    )


def _table(text):
    """{row label: [cells]} of the printed table."""
    lines = text.splitlines()
    rows = {}
    for line in lines[2:]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells[1:]
    return lines[0].split(), rows


def _oracle(proba):
    """Per-sample Virny measures from the members' positive-class probabilities, by loops."""

    def entropy(p):
        return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)

    stability, epistemic, aleatoric = [], [], []
    for member_p in proba.T:
        n_pos = sum(p > 0.5 for p in member_p)
        stability.append(abs(2 * n_pos - len(member_p)) / len(member_p))
        mean_entropy = sum(entropy(p) for p in member_p) / len(member_p)
        aleatoric.append(mean_entropy)
        epistemic.append(entropy(sum(member_p) / len(member_p)) - mean_entropy)
    return np.array(stability), np.array(epistemic), np.array(aleatoric)


def test_numbers_match_an_independent_computation():
    context = _context(LogisticRegression(C=0.01), privileged="M")
    header, rows = _table(section_body_text(stability_section(context)))
    assert header[:2] == ["sex", "n"]
    members = BootstrapEnsemble(
        LogisticRegression(C=0.01), n_estimators=_N_REPLICAS, random_state=3
    )
    proba = members.fit(X[:200], Y[:200]).predict_proba_members(X[200:])[:, :, 1]
    per_sample = _oracle(proba)
    sex = SEX[200:]
    for group in ("F", "M"):
        mask = sex == group
        assert rows[group][0] == f"{mask.sum():,}"
        expected = [f"{values[mask].mean():.4f}" for values in per_sample]
        assert rows[group][1:] == expected
    dis, priv = sex == "F", sex == "M"
    expected = [f"{values[dis].mean() - values[priv].mean():.4f}" for values in per_sample]
    assert rows["dis - priv"] == expected


def test_without_privileged_group_the_gap_is_unsigned():
    _, rows = _table(section_body_text(stability_section(_context(LogisticRegression(C=0.01)))))
    for j in range(3):
        gap = abs(float(rows["F"][j + 1]) - float(rows["M"][j + 1]))
        assert float(rows["difference"][j]) == pytest.approx(gap, abs=1.5e-4)


def test_model_without_predict_proba_shows_label_stability_only():
    text = section_body_text(stability_section(_context(Perceptron(random_state=0))))
    header, rows = _table(text)
    assert header == ["sex", "n", "label", "stability"]
    assert "only label stability" in text.replace("\n", " ")


def test_model_without_training_data_is_not_available():
    text = section_body_text(
        stability_section(_context(LogisticRegression(), with_training_data=False))
    )
    assert text.startswith("n/a: ")
