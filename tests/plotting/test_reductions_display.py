"""ReductionTradeoffDisplay: the plotted points are the fits' accuracy and disparity, checked
against skfair's metric functions on the fits' own predictions."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402

from skfair.metrics import equalized_odds_difference  # noqa: E402
from skfair.plotting import ReductionTradeoffDisplay  # noqa: E402
from skfair.reductions import ExponentiatedGradient, GridSearch  # noqa: E402


def make_data(n=1600, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=n) + 0.6 * group, rng.normal(size=n)]
    y = (X.sum(axis=1) + rng.normal(size=n) > 0.5).astype(int)
    return X, y, group


def test_grid_points_on_held_out_data_are_the_fits_metrics():
    X, y, group = make_data()
    train, test = slice(0, 1000), slice(1000, None)
    search = GridSearch(LogisticRegression(), constraint="equalized_odds", eps=0.05, grid_size=5)
    search.fit(X[train], y[train], sensitive_features=group[train])
    display = ReductionTradeoffDisplay.from_estimator(
        search, X[test], y[test], sensitive_features=group[test]
    )
    for index, member in enumerate(search.predictors_):
        predicted = member.predict(X[test])
        assert display.scores[index] == pytest.approx(np.mean(predicted == y[test]))
        assert display.disparities[index] == pytest.approx(
            equalized_odds_difference(y[test], predicted, sensitive_features=group[test])
        )
    chosen = search.best_index_
    assert display.result == pytest.approx((display.disparities[chosen], display.scores[chosen]))
    assert display.ax_.get_xlabel() == "disparity"
    assert len(display.fits_.get_offsets()) == len(search.predictors_)
    plt.close("all")


def test_mixture_star_is_the_expected_accuracy_and_the_training_values_by_default():
    X, y, group = make_data()
    model = ExponentiatedGradient(LogisticRegression(), eps=0.02).fit(
        X, y, sensitive_features=group
    )
    display = ReductionTradeoffDisplay.from_estimator(model)
    assert display.result == pytest.approx((model.mixture_gap_, 1 - model.mixture_objective_))
    assert display.weights is not None and not display.connect  # a mixture, not a grid
    np.testing.assert_allclose(display.scores, 1 - model.objectives_)
    expected = sum(
        w * (m.predict(X) == y) for w, m in zip(model.weights_, model.predictors_)
    ).mean()
    assert display.result[1] == pytest.approx(expected)
    facecolors = display.fits_.get_facecolors()
    assert (facecolors[:, 3] > 0).sum() == (model.weights_ > 0).sum()  # filled: in the mixture
    plt.close("all")


def test_regression_shows_the_mean_loss():
    X, _, group = make_data()
    target = X[:, 0] + (1 + group) * np.random.default_rng(0).normal(size=len(group))
    model = ExponentiatedGradient(LinearRegression(), constraint="bounded_group_loss", eps=3.927)
    model.fit(X, target, sensitive_features=group)
    display = ReductionTradeoffDisplay.from_estimator(model, X, target, sensitive_features=group)
    assert display.ax_.get_ylabel() == "mean squared_error"
    expected = sum(
        w * np.mean((m.predict(X) - target) ** 2) for w, m in zip(model.weights_, model.predictors_)
    )
    assert display.result[1] == pytest.approx(expected)
    plt.close("all")
