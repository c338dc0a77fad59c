import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from skfair.datasets import make_madd_simulation  # noqa: E402
from skfair.metrics import madd  # noqa: E402
from skfair.plotting import MADDDisplay  # noqa: E402


@pytest.fixture(scope="module")
def simulation():
    return make_madd_simulation(5000, random_state=0)


def test_from_predictions_artists(simulation):
    y_score, groups, y = simulation
    display = MADDDisplay.from_predictions(y, y_score, sensitive_features=groups, bandwidths=400)
    search = display.search
    i, j = search.indices
    n_bins = search.bins[(i + j) // 2]
    assert len(display.bars_) == 2
    assert all(len(bars) == n_bins for bars in display.bars_)
    heights = np.array([[bar.get_height() for bar in bars] for bars in display.bars_])
    counts = [np.histogram(y_score[groups == g], bins=n_bins, range=(0, 1))[0] for g in (0, 1)]
    np.testing.assert_allclose(heights, [c / c.sum() for c in counts])
    np.testing.assert_array_equal(display.curve_line_.get_xdata(), search.bandwidths)
    np.testing.assert_array_equal(display.curve_line_.get_ydata(), search.madd_curve)
    span = display.interval_span_  # a Rectangle in data x coordinates (matplotlib >= 3.9)
    low = span.get_x()
    assert (low, low + span.get_width()) == pytest.approx(search.interval)
    assert display.value_line_.get_ydata()[0] == search.value
    assert display.ax_.shape == (2,) and display.figure_ is display.ax_[0].figure
    assert "MADD = " in display.ax_[0].get_title()
    value = madd(None, y_score, sensitive_features=groups, bins=int(n_bins))
    assert f"{value:.3f}" in display.ax_[0].get_title()
    plt.close("all")


def test_from_estimator_fixed_bandwidth_and_axes(simulation):
    y_score, groups, y = simulation
    X = y_score[:, None]
    clf = LogisticRegression().fit(X, y)
    fig, axes = plt.subplots(1, 2)
    display = MADDDisplay.from_estimator(
        clf, X, y, sensitive_features=groups, bandwidth=0.05, ax=axes, bandwidths=300
    )
    assert display.figure_ is fig
    assert all(len(bars) == 20 for bars in display.bars_)
    assert display.ax_[1].get_xscale() == "log"
    plt.close("all")
