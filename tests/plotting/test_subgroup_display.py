"""SubgroupDisplay draws the report's gaps and intervals, best first from the top."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from skfair.plotting import SubgroupDisplay  # noqa: E402
from skfair.subgroups import find_subgroups  # noqa: E402


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 3000
    features = {
        "a": rng.choice(["x", "y"], n),
        "b": rng.choice(["u", "v", "w"], n),
        "c": rng.choice(["p", "q"], n),
    }
    y_true = rng.integers(0, 2, n)
    worse = (features["a"] == "x") & (features["b"] == "u")
    y_pred = np.where(rng.random(n) < np.where(worse, 0.4, 0.1), 1 - y_true, y_true)
    return features, y_true, y_pred


def test_gaps_and_intervals_are_the_report_s(data):
    features, y_true, y_pred = data
    report = find_subgroups(y_true, y_pred, features=features, k=6)
    display = SubgroupDisplay.from_report(report, n_subgroups=5)
    records = report.subgroups[:5]
    points = np.concatenate([m.get_xydata() for m in display.markers_])
    order = np.argsort(-points[:, 1])  # top row first
    np.testing.assert_allclose(points[order, 0], [r["gap"] for r in records])
    filled = display.markers_[0].get_xydata()
    assert len(filled) == sum(r["significant"] for r in records)
    segments = display.errorbar_.lines[2][0].get_segments()
    ends = sorted(((s[0][0], s[1][0]) for s in segments), key=lambda e: -e[0])
    expected = sorted(((r["gap_low"], r["gap_high"]) for r in records), key=lambda e: -e[0])
    np.testing.assert_allclose(ends, expected)
    labels = [t.get_text() for t in display.ax_.get_yticklabels()]
    assert labels[0] == f"{records[0]['description']} (n={records[0]['n']:,})"
    plt.close("all")


def test_from_predictions_passes_the_search_settings(data):
    features, y_true, y_pred = data
    display = SubgroupDisplay.from_predictions(
        y_true,
        y_pred,
        features=features,
        metric="false_positive_rate",
        max_level=2,
        n_subgroups=4,
    )
    assert display.report.metric == "false_positive_rate"
    assert len(display.ax_.get_yticks()) == 4
    assert "false positive rate" in display.ax_.get_xlabel()
    plt.close("all")


def test_mdss_reports_draw_points_without_bars(data):
    features, y_true, _ = data
    score = np.full(len(y_true), 0.5)
    report = find_subgroups(
        y_true,
        None,
        features=features,
        objective="mdss",
        y_score=score,
        direction="both",
        random_state=0,
        k=3,
    )
    display = SubgroupDisplay.from_report(report)
    segments = display.errorbar_.lines[2][0].get_segments()
    assert all(len(s) == 0 or np.allclose(s[0], s[1]) for s in segments)
    assert len(display.markers_[1].get_xydata()) == len(report.subgroups)
    plt.close("all")
