"""RepairDisplay: the curve's end points are the original and the fully repaired scores."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.stats import ks_2samp  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from skfair.plotting import RepairDisplay  # noqa: E402


def test_repair_display_from_estimator():
    rng = np.random.default_rng(0)
    group = rng.integers(0, 2, 1500)
    X = np.c_[rng.normal(size=1500) + group]
    y = (X[:, 0] + rng.normal(size=1500) > 0.5).astype(int)
    model = LogisticRegression().fit(X, y)
    display = RepairDisplay.from_estimator(model, X, y, sensitive_features=group)
    scores = model.predict_proba(X)[:, 1]
    original = ks_2samp(scores[group == 0], scores[group == 1]).statistic
    # epsilon = 1 keeps the scores: risk is their Brier score, unfairness their KS
    assert display.unfairness[-1] == pytest.approx(original)
    assert display.risks[-1] == pytest.approx(np.mean((scores - y) ** 2))
    assert display.unfairness[0] < 1 / min(np.bincount(group))
    assert len(display.before_lines_) == len(display.after_lines_) == 2
    assert display.figure_ is display.ax_[0].figure
    matplotlib.pyplot.close(display.figure_)


def test_repair_display_without_targets_uses_the_change_of_the_scores():
    rng = np.random.default_rng(1)
    group = rng.integers(0, 3, 900)
    y_score = rng.normal(group, 1)
    display = RepairDisplay.from_predictions(
        None, y_score, sensitive_features=group, epsilons=[0.0, 1.0]
    )
    assert display.risks[-1] == 0.0
    assert display.risks[0] == pytest.approx(np.mean((display.repaired - y_score) ** 2))
    with pytest.raises(ValueError, match="must contain 0"):
        RepairDisplay.from_predictions(None, y_score, sensitive_features=group, epsilons=[0.5])
    matplotlib.pyplot.close("all")


def test_displays_read_the_same_score_column_of_a_multi_class_model():
    # Regression: RepairDisplay read predict_proba[:, -1] and MADDDisplay [:, 1], which
    # differ with three classes; both now read the column of pos_label, which is required.
    from skfair.plotting import MADDDisplay

    rng = np.random.default_rng(2)
    group = rng.integers(0, 2, 900)
    X = np.c_[rng.normal(size=900) + group, rng.normal(size=900)]
    y = np.digitize(X[:, 0] + rng.normal(size=900), [0.0, 1.0])
    model = LogisticRegression().fit(X, y)
    for display in (RepairDisplay, MADDDisplay):
        with pytest.raises(ValueError, match="pass pos_label"):
            display.from_estimator(model, X, y, sensitive_features=group)
    repair = RepairDisplay.from_estimator(model, X, y, sensitive_features=group, pos_label=1)
    np.testing.assert_array_equal(repair.y_score, model.predict_proba(X)[:, 1])
    madd = MADDDisplay.from_estimator(
        model, X, sensitive_features=group, pos_label=1, bandwidths=50, min_points=10
    )
    assert madd.search.value >= 0
    matplotlib.pyplot.close("all")
