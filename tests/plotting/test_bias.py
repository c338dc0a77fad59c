"""Smoke tests of BiasExplanationDisplay (matplotlib Agg backend)."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from skfair.explain import BiasExplainer  # noqa: E402
from skfair.plotting import BiasExplanationDisplay  # noqa: E402


@pytest.fixture(scope="module")
def fitted():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    group = rng.integers(0, 2, 300)
    X = np.column_stack(
        [
            rng.normal(group, 1.0),
            rng.normal(size=300),
            rng.normal(size=300),
            rng.normal(-0.5 * group, 1.0),
        ]
    )
    model = LogisticRegression().fit(X, X[:, 0] - X[:, 3] + rng.normal(size=300) > 0)
    return model, X, group


def test_bar_plot(fitted):
    model, X, group = fitted
    explainer = BiasExplainer(model, random_state=0, n_background=30).fit(
        X, sensitive_features=group
    )
    display = BiasExplanationDisplay.from_explainer(explainer, max_display=3)
    assert len(display.bars_) == 4 and display.names_[-1] == "1 other"
    ex = explainer.explanations_
    # Each bar group holds the explanations of the shown players, the rest summed.
    order = np.argsort(-ex.total)
    heights = [patch.get_width() for patch in display.bars_[0].patches]
    np.testing.assert_allclose(heights, np.append(ex.total[order[:3]], ex.total[order[3:]].sum()))
    assert display.figure_ is display.ax_.figure
    shapley = BiasExplanationDisplay.from_explainer(explainer, quantity="shapley", sort_by="net")
    assert shapley.ax_.get_xlabel() == "Shapley-bias value"
    # The legend says which group each part favours: positive, the first of the pair.
    labels = [text.get_text() for text in display.ax_.get_legend().get_texts()]
    first, second = explainer.privileged_group_, explainer.protected_group_
    assert labels == [
        "total",
        f"positive (favours {first})",
        f"negative (favours {second})",
        f"net (> 0: favours {first})",
    ]


@pytest.mark.parametrize("part", ["total", "positive", "negative", "net"])
def test_waterfall_ends_at_model_bias(fitted, part):
    model, X, group = fitted
    display = BiasExplanationDisplay.from_estimator(
        model,
        X,
        sensitive_features=group,
        kind="waterfall",
        part=part,
        random_state=0,
        n_background=30,
    )
    last = display.bars_[0].patches[-1]
    bias = (
        BiasExplainer(model, random_state=0, n_background=30)
        .fit(X, sensitive_features=group)
        .bias_[part]
    )
    assert last.get_x() + last.get_width() == pytest.approx(bias, abs=1e-10)


def test_waterfall_needs_shapley_values(fitted):
    model, X, group = fitted
    explainer = BiasExplainer(model, method="pdp", n_background=30).fit(X, sensitive_features=group)
    with pytest.raises(ValueError, match="no Shapley-bias"):
        BiasExplanationDisplay.from_explainer(explainer, kind="waterfall")


def test_long_feature_names_are_not_cut_at_the_figure_edge(fitted):
    """The tick labels of long feature names lie inside the figure once it is drawn."""
    model, X, group = fitted
    explainer = BiasExplainer(model, method="pdp", random_state=0, n_background=30).fit(
        X, sensitive_features=group
    )
    names = [f"a rather long feature name number {k} (with units)" for k in range(4)]
    display = BiasExplanationDisplay(
        names=names, values=explainer.explanations_, bias=explainer.bias_
    ).plot()
    figure = display.figure_
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    left = min(label.get_window_extent(renderer).x0 for label in display.ax_.get_yticklabels())
    assert left >= 0
    matplotlib.pyplot.close(figure)
