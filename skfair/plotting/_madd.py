"""MADD diagnostics: the groups' score histograms and MADD against the bandwidth."""

from __future__ import annotations

import numpy as np

from skfair._stats._histograms import bins_from_bandwidths as _bins_from_bandwidths
from skfair._stats._histograms import group_histograms as _group_histograms
from skfair._utils._groups import group_text
from skfair._utils._response import ScoreReader
from skfair.metrics._madd import _check_inputs, madd_bandwidth_search
from skfair.plotting._display import axes, documented, drawn, keep_arguments


@documented
class MADDDisplay:
    """Score histograms of two groups and the MADD-vs-bandwidth curve.

    The left panel shows the normalised histograms whose L1 distance is MADD, on the same bins
    as :func:`~skfair.metrics.madd`; the right panel shows MADD over the bandwidth grid, the
    stable interval of Algorithm 1 (shaded), the stable MADD (dashed) and ``h_sup`` (dotted).
    With more than two groups, the pair with the largest stable MADD is shown.

    Create it with :meth:`from_predictions` or :meth:`from_estimator`.

    Parameters
    ----------
    search : Bunch
        Result of :func:`~skfair.metrics.madd_bandwidth_search`.
    proportions : ndarray of shape (2, n_bins)
        Histogram proportions of the two groups shown.
    group_labels : tuple
        Labels of the two groups.

    Attributes
    ----------
    ax_ : ndarray of two matplotlib Axes
        Histogram axes and curve axes.
    figure_ : matplotlib Figure
    bars_ : list of matplotlib BarContainer
        One per group.
    curve_line_ : matplotlib Line2D
        MADD against the bandwidth.
    interval_span_ : matplotlib Polygon or Rectangle
        The stable interval.
    value_line_, h_sup_line_ : matplotlib Line2D
        The stable MADD and ``h_sup``.

    See Also
    --------
    skfair.metrics.madd : The MADD of the groups' scores.
    skfair.metrics.madd_bandwidth_search : The bandwidth search drawn on the right.
    ScoreDistributionDisplay : Every group's score distribution.

    {references verger}

    Examples
    --------
    >>> from skfair.datasets import make_madd_simulation
    >>> from skfair.plotting import MADDDisplay
    >>> y_score, group, y = make_madd_simulation(5000, random_state=0)
    >>> display = MADDDisplay.from_predictions(y, y_score, sensitive_features=group)
    >>> len(display.bars_)
    2
    """

    def __init__(self, *, search, proportions, group_labels):
        keep_arguments(self, locals())

    @classmethod
    def from_predictions(
        cls, y_true, y_score, *, sensitive_features, bandwidth="auto", ax=None, **search_params
    ):
        """Search the bandwidth on predicted probabilities and plot.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or None
            Ignored; only its length is checked.
        y_score : array-like of shape (n_samples,) or (n_samples, 2)
            Predicted probabilities of the positive class.
        {sensitive_features}
        bandwidth : "auto" or float, default="auto"
            Bandwidth of the histograms. ``"auto"``: the middle grid point of the stable
            interval.
        ax : sequence of two matplotlib Axes, default=None
            Axes for the histograms and the curve; a new figure when None.
        **search_params : dict
            Passed to :func:`~skfair.metrics.madd_bandwidth_search` (``bandwidths``,
            ``percent``, ``bin_rule``, ...).

        {returns_display}
        """
        search = madd_bandwidth_search(
            y_true, y_score, sensitive_features=sensitive_features, **search_params
        )
        scores, groups = _check_inputs(y_true, y_score, sensitive_features)
        if bandwidth == "auto":
            i, j = search.indices
            n_bins = int(search.bins[(i + j) // 2])
        else:
            n_bins = int(_bins_from_bandwidths(bandwidth, search.bin_rule))
        labels = search.worst_pair
        pair = [groups.labels.index(label) for label in labels]
        counts = _group_histograms(scores, groups.codes, groups.n_groups, n_bins)[pair]
        proportions = counts / counts.sum(axis=1, keepdims=True)
        return cls(search=search, proportions=proportions, group_labels=labels).plot(ax=ax)

    @classmethod
    def from_estimator(
        cls, estimator, X, y=None, *, sensitive_features, pos_label=None, ax=None, **kwargs
    ):
        """Plot for a fitted classifier's probability of ``pos_label`` on X.

        Parameters
        ----------
        estimator : classifier
            A fitted classifier with ``predict_proba``.
        X : array-like of shape (n_samples, n_features)
            Samples to score.
        y : array-like of shape (n_samples,), default=None
            Ignored; only its length is checked.
        {sensitive_features}
        pos_label : label, default=None
            The class whose probability is shown; ``classes_[-1]`` by default (as in
            scikit-learn's displays); required with more than two classes.
        ax : sequence of two matplotlib Axes, default=None
            Axes for the histograms and the curve; a new figure when None.
        **kwargs : dict
            Passed to :meth:`from_predictions`.

        {returns_display}
        """
        y_score = ScoreReader.from_estimator(estimator, "predict_proba", pos_label)(estimator, X)
        return cls.from_predictions(
            y, y_score, sensitive_features=sensitive_features, ax=ax, **kwargs
        )

    def plot(self, ax=None):
        """Draw both panels.

        {plot_two_axes}
        """
        ax = axes(self, ax, 1, 2, figsize=(11, 4))
        hist_ax, curve_ax = ax
        n_bins = self.proportions.shape[1]
        edges = np.linspace(0.0, 1.0, n_bins + 1)
        self.bars_ = [
            hist_ax.bar(
                edges[:-1],
                share,
                width=1.0 / n_bins,
                align="edge",
                alpha=0.5,
                label=group_text(label),
            )
            for share, label in zip(self.proportions, self.group_labels, strict=True)
        ]
        value = np.abs(self.proportions[0] - self.proportions[1]).sum()
        hist_ax.set(
            xlim=(0, 1),
            xlabel="predicted probability",
            ylabel="proportion of the group",
            # The stable MADD is the number tables report; the histograms' own MADD is at
            # one bandwidth of the interval it averages.
            title=f"stable MADD = {self.search.value:.3f} ({n_bins} bins shown: {value:.3f})",
        )
        hist_ax.legend(title="group")

        search = self.search
        (self.curve_line_,) = curve_ax.plot(search.bandwidths, search.madd_curve, lw=1)
        low, high = search.interval
        self.interval_span_ = curve_ax.axvspan(
            low,
            high,
            alpha=0.2,
            color="tab:green",
            label=f"stable interval [{low:.4g}, {high:.4g}]",
        )
        self.value_line_ = curve_ax.axhline(
            search.value, ls="--", color="tab:green", label=f"stable MADD = {search.value:.3f}"
        )
        self.h_sup_line_ = curve_ax.axvline(
            search.h_sup, ls=":", color="gray", label=f"h_sup = {search.h_sup:.3g}"
        )
        curve_ax.set(xscale="log", xlabel="bandwidth h", ylabel="MADD", ylim=(0, 2.05))
        curve_ax.legend(loc="lower right")
        return drawn(self, np.asarray(ax, dtype=object))
