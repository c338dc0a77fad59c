"""The gaps of the subgroups that fare worst, with their confidence intervals."""

from __future__ import annotations

import numpy as np

from skfair.plotting._display import axes, documented, drawn
from skfair.subgroups import find_subgroups


@documented
class SubgroupDisplay:
    """The gap of each of the top subgroups to the rest of the rows, with its interval.

    One row per subgroup, best first from the top: its gap (the metric in the subgroup minus
    in the rest) as a dot, filled when the gap is significant after the multiple-testing
    correction, hollow otherwise, with its ``1 - alpha`` confidence interval as an error bar,
    and the subgroup's description and number of rows as its label. A vertical line marks no
    gap.

    Create it with :meth:`from_report` or :meth:`from_predictions`.

    Parameters
    ----------
    report : SubgroupReport
        What :func:`~skfair.subgroups.find_subgroups` found.
    n_subgroups : int, default=10
        Number of subgroups shown (the first of the report).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    errorbar_ : matplotlib ErrorbarContainer
        The intervals (NaN intervals, as for ``objective="mdss"``, draw no bar).
    markers_ : list of matplotlib Line2D
        The significant and the other gaps.

    See Also
    --------
    skfair.subgroups.find_subgroups : Finds the subgroups and tests their gaps.
    GroupRatesDisplay : The rates of named groups with bootstrap intervals.

    References
    ----------
    Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate. Journal of
    the Royal Statistical Society B 57(1), 289-300.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.plotting import SubgroupDisplay
    >>> rng = np.random.default_rng(0)
    >>> features = {"a": rng.choice(["x", "y"], 1000), "b": rng.choice(["u", "v", "w"], 1000)}
    >>> y_true = rng.integers(0, 2, 1000)
    >>> worse = (features["a"] == "x") & (features["b"] == "u")
    >>> y_pred = np.where(rng.random(1000) < np.where(worse, 0.4, 0.1), 1 - y_true, y_true)
    >>> display = SubgroupDisplay.from_predictions(
    ...     y_true, y_pred, features=features, max_level=2, n_subgroups=3
    ... )
    >>> [label.get_text() for label in display.ax_.get_yticklabels()][0]
    'a = x & b = u (n=146)'
    """

    def __init__(self, *, report, n_subgroups=10):
        self.report = report
        self.n_subgroups = n_subgroups

    @classmethod
    def from_report(cls, report, *, n_subgroups=10, ax=None):
        """Plot the top subgroups of a report.

        Parameters
        ----------
        report : SubgroupReport
            What :func:`~skfair.subgroups.find_subgroups` found.
        n_subgroups : int, default=10
            Number of subgroups shown.
        {ax_where}

        {returns_display}
        """
        return cls(report=report, n_subgroups=n_subgroups).plot(ax=ax)

    @classmethod
    def from_predictions(cls, y_true, y_pred, *, features, n_subgroups=10, ax=None, **kwargs):
        """Find the subgroups that fare worst and plot their gaps.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_pred : array-like of shape (n_samples,)
            Predicted labels.
        features : DataFrame, 2-D array-like or dict
            The columns that define the subgroups.
        n_subgroups : int, default=10
            Number of subgroups found and shown.
        {ax_where}
        **kwargs
            Passed to :func:`~skfair.subgroups.find_subgroups` (``metric``, ``max_level``,
            ``min_support``, ...).

        {returns_display}
        """
        kwargs.setdefault("k", n_subgroups)
        report = find_subgroups(y_true, y_pred, features=features, **kwargs)
        return cls.from_report(report, n_subgroups=n_subgroups, ax=ax)

    def plot(self, ax=None):
        """Draw the gaps and their intervals.

        {plot_ax_where}
        """
        records = self.report.subgroups[: self.n_subgroups]
        ax = axes(self, ax, figsize=(7.5, 1.0 + 0.45 * max(len(records), 1)))
        positions = np.arange(len(records))[::-1]
        gap = np.array([r["gap"] for r in records], dtype=float)
        low = np.array([r["gap_low"] for r in records], dtype=float)
        high = np.array([r["gap_high"] for r in records], dtype=float)
        significant = np.array([r["significant"] for r in records], dtype=bool)
        errors = np.nan_to_num(np.vstack([gap - low, high - gap]), nan=0.0)
        self.errorbar_ = ax.errorbar(
            gap, positions, xerr=np.maximum(errors, 0), fmt="none", ecolor="C0", capsize=3
        )
        self.markers_ = [
            ax.plot(
                gap[significant],
                positions[significant],
                "o",
                color="C3",
                label=f"significant (q <= {self.report.alpha:g})",
            )[0],
            ax.plot(
                gap[~significant],
                positions[~significant],
                "o",
                mfc="white",
                color="C0",
                label="not significant",
            )[0],
        ]
        ax.axvline(0.0, color="gray", ls=":", lw=1)
        metric = str(self.report.metric).replace("_", " ")
        ax.set(
            yticks=positions,
            yticklabels=[f"{r['description']} (n={r['n']:,})" for r in records],
            xlabel=f"{metric}: subgroup minus rest",
            ylim=(-0.6, max(len(records), 1) - 0.4),
        )
        ax.grid(axis="x", alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        return drawn(self, ax, tight_layout=True)
