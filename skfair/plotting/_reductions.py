"""Training under a constraint: the fits' accuracy (or loss) against their disparity."""

from __future__ import annotations

import numpy as np

from skfair.plotting._display import axes, documented, drawn, keep_arguments


@documented
class ReductionTradeoffDisplay:
    """Accuracy against disparity of the fits of a reduction, and the model it returns.

    Each fit of :class:`~skfair.reductions.GridSearch` (one per grid point, joined in grid
    order) or :class:`~skfair.reductions.ExponentiatedGradient` (one per hypothesis found)
    is a point; the returned model is a star (for exponentiated gradient the mixture's
    expected values, which no single fit reaches), the bound ``eps`` a dashed line. For
    regression the vertical axis is the mean loss.

    Create it with :meth:`from_estimator`.

    Parameters
    ----------
    disparities, scores : ndarray of shape (n_fits,)
        Disparity (in the units of ``eps``) and accuracy (or mean loss) of each fit.
    result : tuple of float
        ``(disparity, score)`` of the returned model.
    eps : float
        The bound.
    score_name : str
        ``"accuracy"`` or the regression loss.
    connect : bool
        Whether to join the fits in order (a grid).
    weights : ndarray of shape (n_fits,) or None
        Mixture weights; fits with positive weight are drawn filled.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    fits_ : matplotlib PathCollection
        The fits.
    result_ : matplotlib Line2D
        The returned model.

    See Also
    --------
    skfair.reductions.ExponentiatedGradient : The randomised mixture of fits.
    skfair.reductions.GridSearch : The fits on a grid of Lagrange multipliers.

    References
    ----------
    Agarwal, A., Beygelzimer, A., Dudík, M., Langford, J. and Wallach, H. (2018). A Reductions
    Approach to Fair Classification. Proceedings of the 35th International Conference on Machine
    Learning (ICML), PMLR 80, 60-69.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.datasets import make_bias_example
    >>> from skfair.plotting import ReductionTradeoffDisplay
    >>> from skfair.reductions import GridSearch
    >>> credit = make_bias_example(n_samples=1000, random_state=0)
    >>> search = GridSearch(LogisticRegression(), eps=0.05).fit(
    ...     credit.data, credit.target, sensitive_features=credit.sensitive)
    >>> display = ReductionTradeoffDisplay.from_estimator(search)
    >>> len(display.disparities) == len(search.predictors_)
    True
    """

    def __init__(self, *, disparities, scores, result, eps, score_name, connect, weights=None):
        keep_arguments(self, locals())
        self.disparities = np.asarray(disparities, dtype=np.float64)
        self.scores = np.asarray(scores, dtype=np.float64)

    @classmethod
    def from_estimator(
        cls, estimator, X=None, y=None, *, sensitive_features=None, sample_weight=None, ax=None
    ):
        """Plot a fitted reduction, on its training data or on data ``(X, y)``.

        Parameters
        ----------
        estimator : ExponentiatedGradient or GridSearch
            Fitted.
        X, y : array-like, default=None
            Evaluation data (held-out rows show how the trade-off generalises); None plots the
            values on the training data recorded at fit.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s) of ``X``, when the estimator has no ``sensitive_column``.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the evaluation rows.
        {ax}

        {returns_display}
        """
        grid = hasattr(estimator, "grid_")  # GridSearch: one fit per grid point
        if X is None:
            errors, disparities = estimator.objectives_, estimator.constraint_gaps_
            if grid:
                error, disparity = estimator.objective_, estimator.constraint_gap_
            else:  # the mixture's expected values (objective_ is that of predict's draws)
                error, disparity = estimator.mixture_objective_, estimator.mixture_gap_
        else:
            errors, disparities, error, disparity = estimator._evaluate(
                X, y, sensitive_features=sensitive_features, sample_weight=sample_weight
            )
        regression = estimator._regression
        to_score = (lambda value: value) if regression else (lambda value: 1.0 - value)
        display = cls(
            disparities=disparities,
            scores=to_score(np.asarray(errors)),
            result=(disparity, to_score(error)),
            eps=estimator.eps,
            score_name=f"mean {estimator.loss}" if regression else "accuracy",
            connect=grid,
            weights=None if grid else estimator.weights_,
        )
        return display.plot(ax=ax)

    def plot(self, ax=None):
        """Draw the fits, the returned model and the bound.

        {plot_ax}
        """
        ax = axes(self, ax, figsize=(5.5, 4.5))
        if self.connect:
            ax.plot(self.disparities, self.scores, color="0.6", linewidth=0.8, zorder=1)
        used = np.ones(len(self.scores), bool) if self.weights is None else self.weights > 0
        self.fits_ = ax.scatter(
            self.disparities,
            self.scores,
            facecolors=np.where(used, "tab:blue", "none"),
            edgecolors="tab:blue",
            label="fits" if self.weights is None else "fits (filled: in the mixture)",
            zorder=2,
        )
        (self.result_,) = ax.plot(
            *self.result,
            marker="*",
            markersize=14,
            color="tab:red",
            linestyle="none",
            label="returned model",
            zorder=3,
        )
        ax.axvline(self.eps, color="0.4", linestyle="--", linewidth=1, label=f"eps = {self.eps:g}")
        ax.set_xlabel("disparity")
        ax.set_ylabel(self.score_name)
        ax.set_title("Trade-off of the fits under the constraint")
        ax.legend(loc="best", fontsize="small")
        return drawn(self, ax)
