"""GroupRatesDisplay, ScoreDistributionDisplay and StabilityDisplay draw what they compute.

The drawn coordinates are checked against independent per-group computations (boolean
masks, numpy histograms, the sample standard error).
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from skfair.ensemble import BootstrapEnsemble  # noqa: E402
from skfair.plotting import (  # noqa: E402
    GroupRatesDisplay,
    ScoreDistributionDisplay,
    StabilityDisplay,
)

RNG = np.random.default_rng(0)
N = 600
groups = RNG.choice(["a", "b", "c"], N, p=[0.2, 0.3, 0.5])
y_true = RNG.integers(0, 2, N)
y_pred = (RNG.random(N) < np.select([groups == "a", groups == "b"], [0.2, 0.5], 0.7)).astype(int)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def errorbar_points(container):
    """(x, y) of the dots and the (left, right) ends of the horizontal bars."""
    line, _, (bars,) = container.lines
    x, y = line.get_data()
    ends = np.array([segment[:, 0] for segment in bars.get_segments()])
    return np.asarray(x), np.asarray(y), ends


def test_group_rates_are_the_masked_rates_and_their_intervals():
    display = GroupRatesDisplay.from_predictions(
        y_true, y_pred, sensitive_features=groups, n_boot=300, random_state=0
    )
    labels = ["a", "b", "c"]
    oracle = {
        "selection_rate": [y_pred[groups == g].mean() for g in labels],
        "true_positive_rate": [y_pred[(groups == g) & (y_true == 1)].mean() for g in labels],
        "false_positive_rate": [y_pred[(groups == g) & (y_true == 0)].mean() for g in labels],
    }
    for container, summary in zip(display.errorbars_, display.summaries, strict=True):
        x, y, ends = errorbar_points(container)
        np.testing.assert_allclose(x, oracle[summary.metric])
        np.testing.assert_array_equal(y, [2, 1, 0])  # first group on top
        np.testing.assert_allclose(ends[:, 0], summary.ci_low)
        np.testing.assert_allclose(ends[:, 1], summary.ci_high)
        assert (ends[:, 0] <= x).all() and (x <= ends[:, 1]).all()
    labels_shown = [t.get_text() for t in display.ax_[0].get_yticklabels()]
    assert labels_shown == [
        f"a (n={(groups == 'a').sum()})",
        f"b (n={(groups == 'b').sum()})",
        f"c (n={(groups == 'c').sum()})",
    ]


def test_score_distributions_are_numpy_histograms_before_and_after():
    y_score = RNG.beta(2, 5, N) + 0.2 * (groups == "c")
    repaired = np.sort(y_score)[np.argsort(np.argsort(RNG.random(N)))]  # any other scores
    display = ScoreDistributionDisplay.from_predictions(
        y_score, sensitive_features=groups, repaired=repaired, n_bins=12
    )
    assert len(display.ax_) == 2
    edges = np.linspace(min(y_score.min(), repaired.min()), max(y_score.max(), repaired.max()), 13)
    for lines, scores in zip(display.lines_, (y_score, repaired), strict=True):
        for line, label in zip(lines, ["a", "b", "c"], strict=True):
            density, _ = np.histogram(scores[groups == label], bins=edges, density=True)
            x, heights = line.get_data()
            np.testing.assert_allclose(x, edges)
            np.testing.assert_allclose(heights[:-1], density)
            # A density integrates to one over the bins.
            assert np.sum(heights[:-1] * np.diff(edges)) == pytest.approx(1.0)


def test_cumulative_score_distributions_are_the_ecdfs_and_titles_pair_before_with_after():
    y_score = RNG.beta(0.3, 5, N) + 0.2 * (groups == "c")  # most scores near 0: a spike
    display = ScoreDistributionDisplay.from_predictions(
        y_score, sensitive_features=groups, kind="cdf"
    )
    assert display.ax_[0].get_title() == ""  # no "before" without an "after"
    for line, label in zip(display.lines_[0], ["a", "b", "c"], strict=True):
        member = y_score[groups == label]
        x, heights = line.get_data()
        # The step at each sorted score reaches the share of the group's scores at or below it.
        np.testing.assert_allclose(x[1:], np.sort(member))
        np.testing.assert_allclose(heights[1:], [np.mean(member <= v) for v in np.sort(member)])
    repaired = ScoreDistributionDisplay.from_predictions(
        y_score, sensitive_features=groups, repaired=y_score, kind="cdf"
    )
    titles = [panel.get_title() for panel in repaired.ax_]
    assert titles == ["before the repair", "after the repair"]
    with pytest.raises(ValueError, match="kind must be"):
        ScoreDistributionDisplay.from_predictions(y_score, sensitive_features=groups, kind="kde")


def test_score_distributions_refuse_mismatched_lengths():
    with pytest.raises(ValueError, match="repaired must have the shape of y_score"):
        ScoreDistributionDisplay.from_predictions(
            np.zeros(N), sensitive_features=groups, repaired=np.zeros(N - 1)
        )


def test_stability_means_and_standard_errors():
    X = RNG.normal(size=(N, 2)) + (groups == "c")[:, None]
    ensemble = BootstrapEnsemble(LogisticRegression(), n_estimators=5, random_state=0).fit(
        X, y_true
    )
    display = StabilityDisplay.from_ensemble(ensemble, X, sensitive_features=groups)
    assert list(display.measures) == ["label stability", "epistemic", "aleatoric"]
    for container, values in zip(display.errorbars_, display.measures.values(), strict=True):
        x, _, ends = errorbar_points(container)
        for k, label in enumerate(["a", "b", "c"]):
            member = values[groups == label]
            half = 1.96 * member.std(ddof=1) / np.sqrt(member.size)
            assert x[k] == pytest.approx(member.mean())
            assert ends[k] == pytest.approx([member.mean() - half, member.mean() + half])
