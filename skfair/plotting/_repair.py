"""Repair diagnostics: group score densities before and after, risk against unfairness."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from skfair._utils._groups import factorize_groups, group_text
from skfair._utils._response import ScoreReader
from skfair.metrics import ks_bias
from skfair.plotting._display import axes, documented, drawn, keep_arguments


@documented
class RepairDisplay:
    """Group score densities before and after a repair, and the risk-unfairness curve.

    The left panel shows the score histogram (density) of every group before the repair
    (dashed) and after the full repair (solid); the right panel traces the risk against the
    unfairness for each ``epsilon`` of the repair (share of the original kept: 0 is the full
    repair, 1 the original scores). Risk is the mean squared error to ``y_true`` (the Brier
    score for probabilities), or the mean squared change of the scores when ``y_true`` is None;
    unfairness is the largest Kolmogorov-Smirnov distance between two groups.

    Repairs use ``fit_transform`` (the exact in-sample path of :class:`BarycenterRepair`):
    pass held-out scores to see what a repair fitted on them does.

    Create it with :meth:`from_predictions` or :meth:`from_estimator`.

    Parameters
    ----------
    y_score : ndarray of shape (n_samples,)
        Scores before the repair.
    repaired : ndarray of shape (n_samples,)
        Scores after the full repair (``epsilon=0``).
    groups : ndarray of shape (n_samples,)
        Group code of each sample.
    group_labels : list
        Label of each group code.
    epsilons, risks, unfairness : ndarray of shape (n_epsilons,)
        The curve.
    risk_name : str
        What the risk is.

    Attributes
    ----------
    ax_ : ndarray of two matplotlib Axes
        Density axes and curve axes.
    figure_ : matplotlib Figure
    before_lines_, after_lines_ : list of matplotlib artists
        One histogram outline per group.
    curve_line_ : matplotlib Line2D
        Risk against unfairness.

    See Also
    --------
    skfair.postprocessing.BarycenterRepair : The default repair.
    ScoreDistributionDisplay : Every group's score distribution, before and after a repair.

    References
    ----------
    Chzhen, E., Denis, C., Hebiri, M., Oneto, L. and Pontil, M. (2020). Fair regression with
    Wasserstein barycenters. Advances in Neural Information Processing Systems 33.

    Chzhen, E. and Schreuder, N. (2022). A minimax framework for quantifying risk-fairness
    trade-off in regression. The Annals of Statistics 50(4), 2416-2442.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.plotting import RepairDisplay
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 1000)
    >>> y_score = 1 / (1 + np.exp(-rng.normal(group, 1)))
    >>> y = (rng.random(1000) < y_score).astype(int)
    >>> display = RepairDisplay.from_predictions(y, y_score, sensitive_features=group)
    >>> bool(display.unfairness[0] < display.unfairness[-1])
    True
    """

    def __init__(
        self, *, y_score, repaired, groups, group_labels, epsilons, risks, unfairness, risk_name
    ):
        keep_arguments(self, locals())

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        sensitive_features,
        repair=None,
        epsilons=(0.0, 0.25, 0.5, 0.75, 1.0),
        ax=None,
    ):
        """Repair the scores at each ``epsilon`` and plot.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or None
            Targets for the risk; None uses the mean squared change of the scores.
        y_score : array-like of shape (n_samples,)
            Scores, probabilities or regression outputs.
        {repair_groups}
        repair : transformer with an ``epsilon`` parameter, default=None
            The repair; :class:`~skfair.postprocessing.BarycenterRepair` (random_state=0) when
            None.
        epsilons : sequence of float, default=(0, 0.25, 0.5, 0.75, 1)
            Points of the curve; must contain 0 (the repaired densities shown on the left).
        {two_axes}

        {returns_display}
        """
        from skfair.postprocessing import BarycenterRepair

        y_score = np.asarray(y_score, dtype=np.float64).reshape(-1)
        epsilons = np.asarray(epsilons, dtype=np.float64)
        if not (epsilons == 0).any():
            raise ValueError(f"epsilons must contain 0 (the full repair), got {epsilons}.")
        groups = factorize_groups(sensitive_features, n_samples=y_score.shape[0])
        repair = BarycenterRepair(random_state=0) if repair is None else repair
        risks, unfairness, repaired = [], [], None
        for epsilon in epsilons:
            outputs = (
                clone(repair)
                .set_params(epsilon=float(epsilon))
                .fit_transform(y_score[:, None], sensitive_features=groups.codes)[:, 0]
            )
            if epsilon == 0:
                repaired = outputs
            reference = y_score if y_true is None else np.asarray(y_true, dtype=np.float64)
            risks.append(np.mean((outputs - reference) ** 2))
            unfairness.append(ks_bias(None, outputs, sensitive_features=groups.codes))
        display = cls(
            y_score=y_score,
            repaired=repaired,
            groups=groups.codes,
            group_labels=groups.labels,
            epsilons=epsilons,
            risks=np.asarray(risks),
            unfairness=np.asarray(unfairness),
            risk_name="mean squared change" if y_true is None else "mean squared error",
        )
        return display.plot(ax=ax)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y=None,
        *,
        sensitive_features,
        response_method="auto",
        pos_label=None,
        ax=None,
        **kwargs,
    ):
        """Plot for a fitted model's scores on ``X``.

        Parameters
        ----------
        estimator : estimator object
            A fitted classifier or regressor.
        X : array-like of shape (n_samples, n_features)
            Samples to score.
        y : array-like of shape (n_samples,), default=None
            Targets for the risk.
        {repair_groups}
        response_method : "auto", str or list of str, default="auto"
            Method giving the scores; ``"auto"`` tries ``predict_proba``,
            ``decision_function``, then ``predict`` (regressors).
        pos_label : label, default=None
            The class whose score is shown; ``classes_[-1]`` by default (as in scikit-learn's
            displays); required with more than two classes.
        {two_axes}
        **kwargs : dict
            Passed to :meth:`from_predictions`.

        {returns_display}
        """
        reader = ScoreReader.from_estimator(estimator, response_method, pos_label)
        y_score = reader(estimator, X)
        return cls.from_predictions(
            y, y_score, sensitive_features=sensitive_features, ax=ax, **kwargs
        )

    def plot(self, ax=None):
        """Draw both panels.

        {plot_two_axes}
        """
        ax = axes(self, ax, 1, 2, figsize=(11, 4))
        density_ax, curve_ax = ax
        edges = np.histogram_bin_edges(np.concatenate([self.y_score, self.repaired]), bins=30)
        self.before_lines_, self.after_lines_ = [], []
        for code, label in enumerate(self.group_labels):
            rows = self.groups == code
            color = f"C{code % 10}"
            for values, lines, style in (
                (self.y_score, self.before_lines_, "--"),
                (self.repaired, self.after_lines_, "-"),
            ):
                _, _, patches = density_ax.hist(
                    values[rows],
                    bins=edges,
                    density=True,
                    histtype="step",
                    linestyle=style,
                    color=color,
                    label=f"{group_text(label)} ({'before' if style == '--' else 'after'})",
                )
                lines.append(patches[0])
        density_ax.set(xlabel="score", ylabel="density", title="dashed: before, solid: after")
        density_ax.legend(title="group", fontsize="small")

        (self.curve_line_,) = curve_ax.plot(self.unfairness, self.risks, marker="o")
        for epsilon, x, y in zip(self.epsilons, self.unfairness, self.risks, strict=True):
            curve_ax.annotate(f"ε={epsilon:g}", (x, y), textcoords="offset points", xytext=(4, 4))
        curve_ax.set(
            xlabel="largest KS distance between groups",
            ylabel=self.risk_name,
            title="risk against unfairness over epsilon",
        )
        return drawn(self, np.asarray(ax, dtype=object))
