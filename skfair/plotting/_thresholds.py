"""Group thresholds: each group's ROC curve, its upper hull and the chosen operating point."""

from __future__ import annotations

import numpy as np

from skfair._utils._compat import check_matplotlib_support
from skfair._utils._groups import factorize_groups, group_text
from skfair._utils._validation import (
    binarize,
    check_labels,
    check_lengths,
    check_scores,
    check_weights,
)
from skfair.postprocessing._roc_hull import score_blocks
from skfair.postprocessing._threshold_lp import (
    CONSTRAINTS,
    OBJECTIVES,
    GroupRule,
    full_roc,
    group_geometry,
    group_rule,
    rule_rates,
    solve_thresholds,
)
from skfair.postprocessing._thresholds import _check_cost


class GroupThresholdDisplay:
    """The groups' ROC curves, their upper convex hulls and the chosen operating points.

    Each group's randomised threshold rules reach exactly the points under its hull (and above
    the diagonal); a fairness constraint picks one point per group: for equalized odds the same
    point for every group, for a rate parity points on one vertical (FPR) or horizontal (TPR)
    line.

    Create it with :meth:`from_estimator` (a fitted
    :class:`~skfair.postprocessing.GroupThresholdClassifier` on data) or
    :meth:`from_predictions` (chooses the thresholds on the scores given).

    Parameters
    ----------
    roc_curves : list of tuple of ndarray
        Per group, the weighted ROC curve ``(fpr, tpr)`` (None for a group with one class).
    hulls : list of tuple of ndarray
        Per group, the vertices ``(fpr, tpr)`` of the upper hull (None for one class).
    operating_points : ndarray of shape (n_groups, 2)
        Expected ``(fpr, tpr)`` of each group's rule (NaN where undefined).
    group_labels : list
        Label of each group.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    curve_lines_, hull_lines_ : list of matplotlib Line2D
        One per group with two classes.
    point_markers_ : list of matplotlib Line2D
        One per group with a defined operating point.

    See Also
    --------
    skfair.postprocessing.GroupThresholdClassifier : Chooses the thresholds.

    References
    ----------
    Hardt, M., Price, E. and Srebro, N. (2016). Equality of Opportunity in Supervised Learning.
    Advances in Neural Information Processing Systems 29.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skfair.plotting import GroupThresholdDisplay
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 1000)
    >>> y = rng.integers(0, 2, 1000)
    >>> y_score = y + group + rng.normal(size=1000)
    >>> display = GroupThresholdDisplay.from_predictions(
    ...     y, y_score, sensitive_features=group, constraint="equalized_odds")
    >>> bool(np.ptp(display.operating_points, axis=0).max() < 1e-9)
    True
    """

    def __init__(self, *, roc_curves, hulls, operating_points, group_labels):
        self.roc_curves = roc_curves
        self.hulls = hulls
        self.operating_points = operating_points
        self.group_labels = group_labels

    @classmethod
    def from_estimator(cls, estimator, X, y, *, sensitive_features=None, ax=None):
        """Plot a fitted classifier's rules on data ``(X, y)``.

        The curves and hulls are those of the model's scores on these data; the points are the
        expected operating points of the fitted rules on them (on the data the thresholds were
        chosen on they meet the constraint exactly).

        Parameters
        ----------
        estimator : GroupThresholdClassifier
            Fitted.
        X : array-like of shape (n_samples, n_features)
            Samples (with the sensitive column(s) in ``sensitive_column`` mode).
        y : array-like of shape (n_samples,)
            True labels.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when the estimator has no ``sensitive_column``.
        ax : matplotlib Axes, default=None
            A new figure when None.

        Returns
        -------
        display : GroupThresholdDisplay
            The display, plotted; its figure, axes and artists are stored as attributes.
        """
        scores, codes, _ = estimator._scores_and_codes(X, sensitive_features)
        positive = np.asarray(y) == estimator.pos_label_
        rules = [
            GroupRule(upper, lower, tuple(probabilities))
            for (upper, lower), probabilities in zip(
                estimator.thresholds_, estimator.decision_probabilities_
            )
        ]
        geometries = _geometries(scores, positive, None, codes, len(rules))
        display = cls(
            roc_curves=[_curve(geo) for geo in geometries],
            hulls=[None if geo.hull is None else geo.hull[:2] for geo in geometries],
            operating_points=_points(geometries, rules),
            group_labels=list(estimator.groups_),
        )
        return display.plot(ax=ax)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        sensitive_features,
        constraint="demographic_parity",
        objective="accuracy",
        tolerance=0.0,
        cost=None,
        sample_weight=None,
        pos_label=None,
        ax=None,
    ):
        """Choose the optimal group thresholds on scores and plot them.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary labels.
        y_score : array-like of shape (n_samples,)
            Scores, higher meaning more likely positive.
        sensitive_features : array-like, dict or DataFrame
            Sensitive attribute(s); 2-D input gives intersectional groups.
        constraint : str, default="demographic_parity"
            What is made equal across groups, as in
            :class:`~skfair.postprocessing.GroupThresholdClassifier`.
        objective : str, default="accuracy"
            What is maximised (``"cost"``: minimised), as in
            :class:`~skfair.postprocessing.GroupThresholdClassifier`.
        tolerance : float, default=0.0
            Largest allowed difference of the constrained rate(s) between any two groups
            (0 is exact parity).
        cost : dict, default=None
            With ``objective="cost"``, the price of an error:
            ``{"false_positive": c_fp, "false_negative": c_fn}``.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights; None weighs every sample equally.
        pos_label : int, float, bool or str, default=None
            The positive class; inferred for labels in {0, 1}, {-1, 1} or {False, True}.
        ax : matplotlib Axes, default=None
            A new figure when None.

        Returns
        -------
        display : GroupThresholdDisplay
            The display, plotted; its figure, axes and artists are stored as attributes.
        """
        y_score = check_scores(y_score)
        check_lengths(y_true=y_true, y_score=y_score)
        positive = binarize(check_labels(y_true, "y_true"), None, pos_label)[0]
        groups = factorize_groups(sensitive_features, n_samples=y_score.shape[0])
        weights = check_weights(sample_weight, y_score.shape[0])
        geometries = _geometries(y_score, positive, weights, groups.codes, groups.n_groups)
        for name, value, options in (
            ("constraint", constraint, CONSTRAINTS),
            ("objective", objective, OBJECTIVES),
        ):
            if value not in options:
                raise ValueError(f"{name}={value!r} is not one of {list(options)}.")
        prices = _check_cost(objective, cost)
        fpr, tpr = solve_thresholds(geometries, constraint, objective, tolerance, cost=prices)
        rules = [group_rule(geo, x, t) for geo, x, t in zip(geometries, fpr, tpr)]
        display = cls(
            roc_curves=[_curve(geo) for geo in geometries],
            hulls=[None if geo.hull is None else geo.hull[:2] for geo in geometries],
            operating_points=_points(geometries, rules),
            group_labels=groups.labels,
        )
        return display.plot(ax=ax)

    def plot(self, ax=None):
        """Draw the curves, hulls and points.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            A new figure when None.

        Returns
        -------
        self : GroupThresholdDisplay
            The display; its figure, axes and artists are stored as attributes.
        """
        check_matplotlib_support(f"{type(self).__name__}.plot")
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 5))
        ax.plot([0, 1], [0, 1], color="0.7", linestyle=":", linewidth=1)
        self.curve_lines_, self.hull_lines_, self.point_markers_ = [], [], []
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for g, label in enumerate(self.group_labels):
            color = colors[g % len(colors)]
            if self.roc_curves[g] is not None:
                (line,) = ax.plot(*self.roc_curves[g], color=color, linewidth=0.8, alpha=0.6)
                self.curve_lines_.append(line)
                (hull,) = ax.plot(
                    *self.hulls[g], color=color, linestyle="--", marker=".", label=group_text(label)
                )
                self.hull_lines_.append(hull)
            if not np.isnan(self.operating_points[g]).any():
                (point,) = ax.plot(
                    *self.operating_points[g],
                    color=color,
                    marker="o",
                    markersize=9,
                    markeredgecolor="black",
                    linestyle="none",
                )
                self.point_markers_.append(point)
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        ax.set_title("ROC curves, hulls (dashed) and chosen points")
        ax.legend(loc="lower right", fontsize="small", title="group")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self


def _geometries(scores, positive, weights, codes, n_groups):
    weights = np.ones(scores.shape[0]) if weights is None else weights
    blocks = score_blocks(scores, positive, weights, codes, n_groups)
    return [group_geometry(blocks, g) for g in range(n_groups)]


def _curve(geometry):
    return None if geometry.hull is None else full_roc(geometry)


def _points(geometries, rules):
    return np.array([rule_rates(geo, rule) for geo, rule in zip(geometries, rules)])
