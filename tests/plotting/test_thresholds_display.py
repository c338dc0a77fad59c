import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from skfair.plotting import GroupThresholdDisplay  # noqa: E402
from skfair.postprocessing import GroupThresholdClassifier  # noqa: E402


def make_scores(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 3, n)
    y = (rng.random(n) < 0.3 + 0.15 * group).astype(int)
    score = y + 0.4 * group + rng.normal(size=n)
    return y, score, group


def roc_by_brute_force(y, score):
    """(FPR, TPR) of "score >= t" at every distinct t, from (0, 0) up."""
    thresholds = np.r_[np.inf, np.unique(score)[::-1]]
    fpr = [(score[y == 0] >= t).mean() for t in thresholds]
    tpr = [(score[y == 1] >= t).mean() for t in thresholds]
    return np.array(fpr), np.array(tpr)


def test_from_predictions_draws_curves_hulls_and_common_point():
    y, score, group = make_scores()
    display = GroupThresholdDisplay.from_predictions(
        y, score, sensitive_features=group, constraint="equalized_odds"
    )
    assert len(display.curve_lines_) == len(display.hull_lines_) == len(display.point_markers_) == 3
    for g in range(3):
        fpr, tpr = roc_by_brute_force(y[group == g], score[group == g])
        np.testing.assert_allclose(display.curve_lines_[g].get_xdata(), fpr)
        np.testing.assert_allclose(display.curve_lines_[g].get_ydata(), tpr)
        hull_x, hull_y = display.hull_lines_[g].get_xdata(), display.hull_lines_[g].get_ydata()
        # The hull passes through ROC points, lies on or above every ROC point and is concave.
        assert (np.abs(hull_x[:, None] - fpr[None, :]).min(axis=1) < 1e-12).all()
        assert (np.interp(fpr, hull_x, hull_y) >= tpr - 1e-12).all()
        slopes = np.diff(hull_y) / np.maximum(np.diff(hull_x), 1e-300)
        assert (np.diff(slopes) <= 1e-9).all()
    points = np.array([marker.get_xydata()[0] for marker in display.point_markers_])
    assert np.ptp(points, axis=0).max() < 1e-9  # equalized odds: one common point
    assert display.figure_ is display.ax_.figure
    assert [t.get_text() for t in display.ax_.get_legend().get_texts()] == ["0", "1", "2"]
    plt.close("all")


def test_from_estimator_points_are_the_rules_expected_rates():
    y, score, group = make_scores(seed=1)
    X = np.c_[score, group]
    clf = GroupThresholdClassifier(
        LogisticRegression(),
        constraint="true_positive_rate_parity",
        sensitive_column=1,
        random_state=0,
    ).fit(X, y)
    display = GroupThresholdDisplay.from_estimator(clf, X, y)
    # On other data than the thresholds were chosen on, the points are the rules' expected
    # rates there; check them against the decision probabilities.
    probability = clf.decision_probability(X)
    for g in range(3):
        in_g = group == g
        expected = [probability[in_g & (y == 0)].mean(), probability[in_g & (y == 1)].mean()]
        np.testing.assert_allclose(display.operating_points[g], expected, atol=1e-12)
    _, ax = plt.subplots()
    assert GroupThresholdDisplay.from_estimator(clf, X, y, ax=ax).ax_ is ax
    plt.close("all")


def test_from_predictions_with_string_labels_needs_and_uses_pos_label():
    y, score, group = make_scores(seed=2)
    labels = np.where(y == 1, "good", "bad")
    with pytest.raises(ValueError, match="pos_label must be given"):
        GroupThresholdDisplay.from_predictions(labels, score, sensitive_features=group)
    named = GroupThresholdDisplay.from_predictions(
        labels, score, sensitive_features=group, pos_label="good"
    )
    coded = GroupThresholdDisplay.from_predictions(y, score, sensitive_features=group)
    np.testing.assert_allclose(named.operating_points, coded.operating_points)
    plt.close("all")


def test_from_predictions_with_predictive_parity_and_cost():
    rng = np.random.default_rng(1)
    group = rng.integers(0, 2, 1500)
    y = (rng.random(1500) < 0.3 + 0.2 * group).astype(int)
    y_score = y + 0.5 * group + rng.normal(size=1500)
    display = GroupThresholdDisplay.from_predictions(
        y,
        y_score,
        sensitive_features=group,
        constraint="predictive_parity",
        objective="cost",
        cost={"false_positive": 1.0, "false_negative": 2.0},
    )
    fpr, tpr = display.operating_points.T
    P = np.array([y[group == g].sum() for g in (0, 1)])
    N = np.array([(1 - y[group == g]).sum() for g in (0, 1)])
    precision = P * tpr / (P * tpr + N * fpr)
    assert abs(precision[0] - precision[1]) < 1e-9
    with pytest.raises(ValueError, match="constraint='parity' is not one of"):
        GroupThresholdDisplay.from_predictions(
            y, y_score, sensitive_features=group, constraint="parity"
        )


def test_displays_read_the_estimators_results_instead_of_solving():
    """The Displays fit (or take) the estimators and read their results: no plotting module
    imports the linear programs, so a Display and an estimator cannot choose differently."""
    import ast
    from pathlib import Path

    import skfair.plotting

    solvers = ("_threshold_lp", "_multiclass_lp", "_rules._pareto", "_predictive_parity",
               "skfair._linprog")
    for path in Path(skfair.plotting.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.endswith(solvers), (path.name, node.module)
