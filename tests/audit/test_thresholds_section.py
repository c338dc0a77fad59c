"""The ``thresholds`` section of ``python -m skfair audit``, on synthetic audit contexts.

Gaps and accuracies are checked against an independent groupby (one numpy mask per group) of
the decisions the section returns.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from skfair._audit import AuditContext
from skfair._audit._context import _predict
from skfair._audit._json import section_json
from skfair._audit._sections import thresholds_section
from skfair.postprocessing import GroupThresholdClassifier


def make_context(n=6000, seed=0, model_class=LogisticRegression, frame=False, labels=(0, 1)):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n, p=[0.4, 0.6])
    region = rng.choice(["north", "south", "east"], n)
    X = np.c_[rng.normal(size=n) + (sex == "M"), rng.normal(size=n)]
    y = np.asarray(labels)[(X[:, 0] + rng.normal(size=n) > 0.8).astype(int)]
    if frame:
        X = pd.DataFrame(X, columns=["income", "noise"])
    model = model_class().fit(X, y)
    y_pred, y_score, _ = _predict(model, X, positive_label=labels[1])
    return AuditContext(
        model=model,
        X_test=X,
        y_test=(y == labels[1]).astype(np.int64),
        y_pred=y_pred,
        y_score=y_score,
        sensitive={"sex": sex, "region": region},
        positive_label=labels[1],
    )


def largest_gap(y_true, y_pred, groups, rates):
    """max over rates of (largest - smallest per-group rate), one mask per group."""
    gaps = []
    for rate in rates:
        values = []
        for group in np.unique(groups):
            member = groups == group
            if rate == "tpr":
                values.append(y_pred[member & (y_true == 1)].mean())
            elif rate == "fpr":
                values.append(y_pred[member & (y_true == 0)].mean())
            else:
                values.append(y_pred[member].mean())
        gaps.append(max(values) - min(values))
    return max(gaps)


def rows_of(section):
    return {(row[0], row[1]): (row[2], row[3]) for row in section.blocks[0].rows}


@pytest.mark.parametrize(
    "model_class, frame, labels",
    [
        (LogisticRegression, False, (0, 1)),
        (LogisticRegression, True, ("no", "yes")),
        (LinearSVC, False, ("yes", "no")),  # favourable class first: negated decision values
    ],
)
def test_gaps_and_accuracy_match_an_independent_groupby(model_class, frame, labels):
    context = make_context(model_class=model_class, frame=frame, labels=labels)
    section = thresholds_section(context)
    rows = rows_of(section)
    y = context.y_test
    for name in ("sex", "region"):
        groups = context.sensitive[name]
        after = section.data["decisions"][name]
        assert set(np.unique(after)) <= {0, 1}
        for metric, rates in (
            ("equalized_odds_difference", ("tpr", "fpr")),
            ("statistical_parity_difference", ("selection",)),
        ):
            before_value, after_value = rows[(metric, name)]
            assert before_value == pytest.approx(largest_gap(y, context.y_pred, groups, rates))
            assert after_value == pytest.approx(largest_gap(y, after, groups, rates))
        assert rows[("accuracy", name)] == pytest.approx(
            (np.mean(context.y_pred == y), np.mean(after == y))
        )


def test_equalized_odds_gap_shrinks_out_of_sample():
    # sex shifts the feature the model relies on, so the model's TPR and FPR differ a lot by
    # sex; out-of-sample thresholds (halves of 3,000 rows) bring them within sampling noise.
    context = make_context(n=12000, seed=1)
    before, after = rows_of(thresholds_section(context))[("equalized_odds_difference", "sex")]
    assert before > 0.15
    assert after < 0.05


def test_each_half_is_decided_by_thresholds_chosen_on_the_other_half():
    context = make_context(n=3000)
    section = thresholds_section(context)
    classifier, fit_rows = section.data["classifiers"]["sex"]
    assert 0.45 < fit_rows.mean() < 0.55
    sex = context.sensitive["sex"]
    # The classifier's thresholds are those chosen on its fit rows alone...
    alone = GroupThresholdClassifier(
        FrozenEstimator(context.model), constraint="equalized_odds", random_state=0
    ).fit(context.X_test[fit_rows], context.y_test[fit_rows], sensitive_features=sex[fit_rows])
    np.testing.assert_array_equal(classifier.thresholds_, alone.thresholds_)
    assert classifier.constraint_gap_ < 1e-9
    # ... and it decides exactly the other rows.
    decided = ~fit_rows
    np.testing.assert_array_equal(
        section.data["decisions"]["sex"][decided],
        classifier.predict(context.X_test[decided], sensitive_features=sex[decided]),
    )


def test_figure_shows_equal_operating_points_for_equalized_odds():
    context = make_context(n=2000)
    section = thresholds_section(context)
    figures = section.figures
    assert [figure.caption.split(":")[0] for figure in figures] == ["sex", "region"]
    import matplotlib

    matplotlib.use("Agg")
    display = figures[0].draw()
    # Equalized odds on the rows the thresholds were chosen on: one common (FPR, TPR).
    assert np.ptp(display.operating_points, axis=0).max() < 1e-9
    header = section_json(section)["tables"][0]["header"]
    assert header == ["metric", "attribute", "before", "after"]


def test_without_scores_or_with_more_classes():
    context = make_context(n=300)
    context.y_score = None
    assert thresholds_section(context).message.startswith("n/a")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = rng.choice(["a", "b", "c"], 300)
    model = LogisticRegression().fit(X, y)
    y_pred, y_score, _ = _predict(model, X, positive_label="a")
    context = AuditContext(
        model=model,
        X_test=X,
        y_test=(y == "a").astype(int),
        y_pred=y_pred,
        y_score=y_score,
        sensitive={"g": rng.choice(["u", "v"], 300)},
        positive_label="a",
    )
    message = thresholds_section(context).message
    assert message.startswith("n/a") and "3" in message
