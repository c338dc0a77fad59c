"""Per-group label stability and uncertainty of a bootstrap ensemble."""

from __future__ import annotations

import numpy as np

from skfair._utils._groups import factorize_groups, group_text
from skfair.metrics import aleatoric_uncertainty, epistemic_uncertainty, label_stability
from skfair.plotting._display import documented, drawn, group_panel_axes, keep_arguments


@documented
class StabilityDisplay:
    """Per-group means of per-sample stability and uncertainty measures, with error bars.

    One panel per measure (label stability, and with probabilities epistemic and aleatoric
    uncertainty, Virny's definitions): each group's mean over its samples as a dot with an
    approximate 95 % interval (mean ± 1.96 standard errors) as an error bar.

    Create it with :meth:`from_ensemble`, or from per-sample values.

    Parameters
    ----------
    measures : dict of str to ndarray of shape (n_samples,)
        Per-sample values, one entry per panel.
    groups : ndarray of shape (n_samples,)
        Group code of each sample.
    group_labels : list
        Label of each group code.

    Attributes
    ----------
    ax_ : ndarray of matplotlib Axes
    figure_ : matplotlib Figure
    errorbars_ : list of matplotlib ErrorbarContainer
        One per measure.

    See Also
    --------
    skfair.ensemble.BootstrapEnsemble : The replicas.
    skfair.metrics.label_stability : Per-sample label stability.

    References
    ----------
    Herasymuk, D., Arif Khan, F. and Stoyanovich, J. (2024). Responsible Model Selection with
    Virny and VirnyView. Companion of the 2024 International Conference on Management of Data
    (SIGMOD-Companion '24).

    Hüllermeier, E. and Waegeman, W. (2021). Aleatoric and epistemic uncertainty in machine
    learning: an introduction to concepts and methods. Machine Learning 110, 457-506.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.ensemble import BootstrapEnsemble
    >>> ensemble = BootstrapEnsemble(LogisticRegression(), n_estimators=5, random_state=0)
    >>> from skfair.datasets import make_bias_example
    >>> credit = make_bias_example("M3", n_samples=300, random_state=0)
    >>> X, y, group = credit.data, credit.target, credit.sensitive
    >>> from skfair.plotting import StabilityDisplay
    >>> display = StabilityDisplay.from_ensemble(ensemble.fit(X, y), X, sensitive_features=group)
    >>> list(display.measures)
    ['label stability', 'epistemic', 'aleatoric']
    """

    def __init__(self, *, measures, groups, group_labels):
        keep_arguments(self, locals())

    @classmethod
    def from_ensemble(cls, ensemble, X, *, sensitive_features, ax=None):
        """Compute the measures of a fitted ensemble's members on ``X`` and plot.

        Parameters
        ----------
        ensemble : BootstrapEnsemble
            A fitted :class:`~skfair.ensemble.BootstrapEnsemble`.
        X : array-like of shape (n_samples, n_features)
            Samples on which the members predict.
        {sensitive_features}
        ax : sequence of matplotlib Axes, default=None
            One per measure; a new figure with the panels side by side when None.

        {returns_display}
        """
        measures = {
            "label stability": label_stability(
                ensemble.predict_members(X), labels=ensemble.classes_
            )
        }
        if hasattr(ensemble, "predict_proba_members"):
            member_proba = ensemble.predict_proba_members(X)
            measures["epistemic"] = epistemic_uncertainty(member_proba)
            measures["aleatoric"] = aleatoric_uncertainty(member_proba)
        encoding = factorize_groups(sensitive_features)
        return cls(
            measures=measures, groups=encoding.codes, group_labels=list(encoding.labels)
        ).plot(ax=ax)

    def plot(self, ax=None):
        """Draw one panel per measure.

        {plot_panels measure}
        """
        n_groups = len(self.group_labels)
        ax = group_panel_axes(self, ax, len(self.measures), n_groups)
        from matplotlib.ticker import MaxNLocator

        counts = np.bincount(self.groups, minlength=n_groups).astype(np.float64)
        positions = np.arange(n_groups)[::-1]
        self.errorbars_ = []
        for panel, (title, values) in zip(ax, self.measures.items(), strict=True):
            values = np.asarray(values, dtype=np.float64)
            sums = np.bincount(self.groups, weights=values, minlength=n_groups)
            squares = np.bincount(self.groups, weights=values**2, minlength=n_groups)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = sums / counts
                variance = np.maximum(squares / counts - mean**2, 0) * counts / (counts - 1)
                half_width = 1.96 * np.sqrt(variance / counts)
            self.errorbars_.append(
                panel.errorbar(
                    mean,
                    positions,
                    xerr=np.nan_to_num(half_width),
                    fmt="o",
                    capsize=3,
                    color="C2",
                )
            )
            panel.set(
                yticks=positions,
                yticklabels=[
                    f"{group_text(label)} (n={int(n):,})"
                    for label, n in zip(self.group_labels, counts, strict=True)
                ],
                xlabel=f"{title} (mean)",
                ylim=(-0.6, n_groups - 0.4),
            )
            panel.xaxis.set_major_locator(MaxNLocator(nbins=5))
            panel.grid(axis="x", alpha=0.3)
        return drawn(self, ax, tight_layout=True)
