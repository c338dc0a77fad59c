"""Per-group rates with bootstrap confidence intervals, as error bars."""

from __future__ import annotations

import numpy as np

from skfair._utils._groups import group_text
from skfair.metrics import group_summary
from skfair.plotting._display import documented, drawn, group_panel_axes

_TITLES = {
    "selection_rate": "selection rate",
    "true_positive_rate": "true positive rate",
    "false_positive_rate": "false positive rate",
    "false_negative_rate": "false negative rate",
    "true_negative_rate": "true negative rate",
    "accuracy": "accuracy",
}


@documented
class GroupRatesDisplay:
    """Per-group rates with their bootstrap confidence intervals, one panel per rate.

    Each panel shows every group's rate as a dot with its percentile interval as an error
    bar (the groups on the vertical axis, with their sizes), and the rate over all rows as
    a vertical line. Small groups get wide bars: a gap between two groups whose bars overlap
    may be sampling noise.

    Create it with :meth:`from_predictions`, or from :func:`~skfair.metrics.group_summary`
    results.

    Parameters
    ----------
    summaries : list of Bunch
        Results of :func:`~skfair.metrics.group_summary` on the same groups, one per rate
        (with ``n_boot > 0`` for intervals; NaN intervals draw no bar).

    Attributes
    ----------
    ax_ : ndarray of matplotlib Axes
        One per rate.
    figure_ : matplotlib Figure
    errorbars_ : list of matplotlib ErrorbarContainer
        One per rate.

    See Also
    --------
    skfair.metrics.group_summary : The per-group values and intervals.

    References
    ----------
    Efron, B. and Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall,
    chapter 13 (percentile intervals).

    Weerts, H., Dudík, M., Edgar, R., Jalali, A., Lutz, R. and Madaio, M. (2023). Fairlearn:
    Assessing and Improving Fairness of AI Systems. Journal of Machine Learning Research 24(257),
    1-8.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.plotting import GroupRatesDisplay
    >>> rng = np.random.default_rng(0)
    >>> group = rng.choice(["a", "b"], 500)
    >>> y = rng.integers(0, 2, 500)
    >>> y_pred = (rng.random(500) < np.where(group == "a", 0.3, 0.6)).astype(int)
    >>> display = GroupRatesDisplay.from_predictions(
    ...     y, y_pred, sensitive_features=group, n_boot=200, random_state=0
    ... )
    >>> len(display.errorbars_)
    3
    """

    def __init__(self, *, summaries):
        self.summaries = summaries

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_pred,
        *,
        sensitive_features,
        metrics=("selection_rate", "true_positive_rate", "false_positive_rate"),
        n_boot=1000,
        ci=0.95,
        random_state=None,
        ax=None,
    ):
        """Compute the per-group rates and their intervals, and plot.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or None
            True labels (None is enough for ``"selection_rate"`` alone).
        y_pred : array-like of shape (n_samples,)
            Predicted labels.
        {sensitive_features}
        metrics : sequence of str, default=("selection_rate", "true_positive_rate", \
"false_positive_rate")
            Named rates of :func:`~skfair.metrics.group_summary`.
        n_boot : int, default=1000
            Bootstrap replicates per rate.
        ci : float, default=0.95
            Coverage of the intervals.
        random_state : int, RandomState instance or None, default=None
            Seeds the bootstrap; an int gives reproducible intervals.
        ax : sequence of matplotlib Axes, default=None
            One per metric; a new figure when None.

        {returns_display}
        """
        summaries = [
            group_summary(
                y_true,
                y_pred,
                sensitive_features=sensitive_features,
                metric=metric,
                n_boot=n_boot,
                ci=ci,
                random_state=random_state,
            )
            for metric in metrics
        ]
        return cls(summaries=summaries).plot(ax=ax)

    def plot(self, ax=None):
        """Draw one panel per rate.

        {plot_panels rate}
        """
        ax = group_panel_axes(self, ax, len(self.summaries), len(self.summaries[0].groups))
        from matplotlib.ticker import MaxNLocator

        self.errorbars_ = []
        for panel, summary in zip(ax, self.summaries, strict=True):
            positions = np.arange(len(summary.groups))[::-1]
            value = np.asarray(summary.value, dtype=float)
            low = np.asarray(summary.ci_low, dtype=float)
            high = np.asarray(summary.ci_high, dtype=float)
            # An undefined interval (NaN) draws no bar.
            errors = np.nan_to_num(np.vstack([value - low, high - value]), nan=0.0)
            self.errorbars_.append(
                panel.errorbar(
                    value, positions, xerr=np.maximum(errors, 0), fmt="o", capsize=3, color="C0"
                )
            )
            overall = float(summary.overall)
            if np.isfinite(overall):
                panel.axvline(overall, color="gray", ls=":", lw=1, label="all rows")
            panel.set(
                yticks=positions,
                yticklabels=[
                    f"{group_text(label)} (n={count:,})"
                    for label, count in zip(summary.groups, summary.count, strict=True)
                ],
                xlabel=_TITLES.get(summary.metric, str(summary.metric)),
                ylim=(-0.6, len(summary.groups) - 0.4),
            )
            panel.xaxis.set_major_locator(MaxNLocator(nbins=5))
            panel.grid(axis="x", alpha=0.3)
        ax[0].legend(loc="best", fontsize="small")
        return drawn(self, ax, tight_layout=True)
