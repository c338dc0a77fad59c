"""The groups' score distributions, before and (optionally) after a repair."""

from __future__ import annotations

import numpy as np

from skfair._utils._groups import factorize_groups, group_text
from skfair.plotting._display import documented, drawn, keep_arguments, panel_axes


@documented
class ScoreDistributionDisplay:
    """Each group's score distribution (density or cumulative), before and after a repair.

    One panel shows each group's score density as an outline on common bins, or with
    ``kind="cdf"`` its empirical cumulative distribution; with ``repaired`` scores a second
    panel shows the same after the repair, on the same axes, so that the groups'
    distributions can be seen to move together. Distribution-level measures are distances
    between these curves: :func:`~skfair.metrics.madd` between the densities,
    :func:`~skfair.metrics.wasserstein_bias` (the area between two cumulative curves) and
    :func:`~skfair.metrics.ks_bias` (their largest vertical gap) between the cumulative ones.
    The cumulative curves stay readable when most scores pile up near 0 or 1, where a
    density is one tall spike.

    Create it with :meth:`from_predictions`.

    Parameters
    ----------
    y_score : ndarray of shape (n_samples,)
        Scores (before a repair).
    groups : ndarray of shape (n_samples,)
        Group code of each sample, ``0 .. len(group_labels) - 1``.
    group_labels : list
        Label of each group code.
    repaired : ndarray of shape (n_samples,) or None, default=None
        Scores after a repair, for the second panel.
    n_bins : int, default=30
        Number of common bins (``kind="density"``).
    kind : {"density", "cdf"}, default="density"
        Histogram densities, or empirical cumulative distribution functions.

    Attributes
    ----------
    ax_ : ndarray of matplotlib Axes
        One or two panels.
    figure_ : matplotlib Figure
    lines_ : list of list of matplotlib artists
        Per panel, one outline per group.

    See Also
    --------
    RepairDisplay : Densities before and after a repair, and the risk-unfairness curve.
    MADDDisplay : The histograms of the pair of groups MADD compares.

    {references verger miroshnikov}

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.plotting import ScoreDistributionDisplay
    >>> rng = np.random.default_rng(0)
    >>> group = rng.choice(["a", "b"], 1000)
    >>> y_score = 1 / (1 + np.exp(-rng.normal(group == "b", 1)))
    >>> display = ScoreDistributionDisplay.from_predictions(y_score, sensitive_features=group)
    >>> len(display.lines_[0])
    2
    """

    def __init__(self, *, y_score, groups, group_labels, repaired=None, n_bins=30, kind="density"):
        keep_arguments(self, locals())

    @classmethod
    def from_predictions(
        cls, y_score, *, sensitive_features, repaired=None, n_bins=30, kind="density", ax=None
    ):
        """Plot the groups' score distributions (and those of ``repaired`` scores).

        Parameters
        ----------
        y_score : array-like of shape (n_samples,)
            Scores (before a repair).
        {repair_groups}
        repaired : array-like of shape (n_samples,), default=None
            Scores of the same samples after a repair, drawn in a second panel; None draws
            one panel.
        n_bins : int, default=30
            Number of common bins (``kind="density"``).
        kind : {"density", "cdf"}, default="density"
            Histogram densities, or empirical cumulative distribution functions.
        ax : matplotlib Axes or sequence of two, default=None
            One Axes per panel; a new figure when None.

        {returns_display}
        """
        y_score = np.asarray(y_score, dtype=np.float64).ravel()
        encoding = factorize_groups(sensitive_features)
        if encoding.codes.shape[0] != y_score.shape[0]:
            raise ValueError(
                f"y_score has {y_score.shape[0]} samples, sensitive_features "
                f"{encoding.codes.shape[0]}."
            )
        if repaired is not None:
            repaired = np.asarray(repaired, dtype=np.float64).ravel()
            if repaired.shape != y_score.shape:
                raise ValueError("repaired must have the shape of y_score.")
        return cls(
            y_score=y_score,
            groups=encoding.codes,
            group_labels=list(encoding.labels),
            repaired=repaired,
            n_bins=n_bins,
            kind=kind,
        ).plot(ax=ax)

    def plot(self, ax=None):
        """Draw the panel(s).

        Parameters
        ----------
        ax : matplotlib Axes or sequence of them, default=None
            One Axes per panel; a new figure when None.

        {returns_self}
        """
        if self.kind not in ("density", "cdf"):
            raise ValueError(f"kind must be 'density' or 'cdf', got {self.kind!r}.")
        # "before" only when there is an "after".
        panels = [("" if self.repaired is None else "before the repair", self.y_score)]
        if self.repaired is not None:
            panels.append(("after the repair", self.repaired))
        ax = panel_axes(self, ax, len(panels), (5.5 * len(panels), 3.4))
        values = np.concatenate([scores for _, scores in panels])
        edges = np.linspace(values.min(), values.max(), self.n_bins + 1)
        if edges[0] == edges[-1]:
            edges = np.linspace(edges[0] - 0.5, edges[0] + 0.5, self.n_bins + 1)
        self.lines_ = []
        for panel, (title, scores) in zip(ax, panels, strict=True):
            lines = []
            for code, label in enumerate(self.group_labels):
                member = scores[self.groups == code]
                if member.size == 0:
                    continue
                if self.kind == "cdf":
                    x = np.r_[edges[0], np.sort(member)]
                    y = np.arange(member.size + 1) / member.size
                else:
                    density, _ = np.histogram(member, bins=edges, density=True)
                    x, y = edges, np.r_[density, density[-1]]
                (line,) = panel.step(x, y, where="post", label=group_text(label))
                lines.append(line)
            self.lines_.append(lines)
            panel.set(xlabel="score", title=title)
        ax[0].set_ylabel(
            "share of the group's rows at or below" if self.kind == "cdf" else "density"
        )
        ax[-1].legend(title="group", fontsize="small")
        return drawn(self, ax, tight_layout=True)
