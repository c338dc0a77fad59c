"""Group thresholds: each group's ROC curve, its upper hull and the chosen operating point."""

from __future__ import annotations

import numpy as np

from skfair._stats._roc import score_blocks
from skfair._utils._groups import factorize_groups, group_text
from skfair._utils._validation import (
    check_weights,
)
from skfair.plotting._display import axes, documented, drawn, keep_arguments
from skfair.plotting._given_scores import binary_rule, binary_scores
from skfair.postprocessing._rules._roc_hull import roc_points, upper_hull


@documented
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

    {references hardt}

    Examples
    --------
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
        keep_arguments(self, locals())

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
        {samples_of_estimator}
        y : array-like of shape (n_samples,)
            True labels.
        {sensitive_features_of_estimator}
        {ax}

        {returns_display}
        """
        scores, codes, _ = estimator._scores_and_codes(X, sensitive_features)
        positive = np.asarray(y) == estimator.pos_label_
        n_groups = len(estimator.groups_)
        curves, hulls = _curves_and_hulls(scores, positive, None, codes, n_groups)
        # the rules' expected rates: their probability of a positive decision, averaged over
        # each group's negatives and positives
        probability = estimator.decision_probability(X, sensitive_features=sensitive_features)
        points = np.full((n_groups, 2), np.nan)
        for column, members in enumerate((~positive, positive)):
            count = np.bincount(codes[members], minlength=n_groups)
            total = np.bincount(codes[members], probability[members], minlength=n_groups)
            with np.errstate(invalid="ignore", divide="ignore"):
                points[:, column] = np.where(count > 0, total / count, np.nan)
        display = cls(
            roc_curves=curves,
            hulls=hulls,
            operating_points=points,
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
        {sensitive_features_given}
        constraint : str, default="demographic_parity"
            What is made equal across groups, as in
            :class:`~skfair.postprocessing.GroupThresholdClassifier`.
        objective : str, default="accuracy"
            What is maximised (``"cost"``: minimised), as in
            :class:`~skfair.postprocessing.GroupThresholdClassifier`.
        tolerance : float, default=0.0
            Largest allowed difference of the constrained rate(s) between any two groups
            (0 is exact parity).
        {cost}
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights; None weighs every sample equally.
        pos_label : int, float, bool or str, default=None
            The positive class; inferred for labels in {0, 1}, {-1, 1} or {False, True}.
        {ax}

        {returns_display}
        """
        y_score, positive = binary_scores(y_true, y_score, pos_label)
        rule = binary_rule(
            positive,
            y_score,
            sensitive_features,
            sample_weight,
            constraint=constraint,
            objective=objective,
            tolerance=tolerance,
            cost=cost,
        )
        groups = factorize_groups(sensitive_features, n_samples=y_score.shape[0])
        weights = check_weights(sample_weight, y_score.shape[0])
        curves, _ = _curves_and_hulls(y_score, positive, weights, groups.codes, groups.n_groups)
        display = cls(
            roc_curves=curves,
            hulls=[None if hull is None else hull[:2] for hull in rule.hulls_],
            operating_points=np.c_[
                rule.rates_["false_positive_rate"], rule.rates_["true_positive_rate"]
            ],
            group_labels=list(rule.groups_),
        )
        return display.plot(ax=ax)

    def plot(self, ax=None):
        """Draw the curves, hulls and points.

        {plot_ax}
        """
        ax = axes(self, ax, figsize=(5.5, 5))
        import matplotlib.pyplot as plt

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
        return drawn(self, ax)


def _curves_and_hulls(scores, positive, weights, codes, n_groups):
    """Per group, its weighted ROC curve ``(fpr, tpr)`` and its upper hull's vertices (None
    for a group with one class)."""
    weights = np.ones(scores.shape[0]) if weights is None else weights
    blocks = score_blocks(scores, positive, weights, codes, n_groups)
    curves, hulls = [], []
    for g in range(n_groups):
        group_scores, group_positive, group_negative = blocks.group(g)
        if group_positive.sum() > 0 and group_negative.sum() > 0:
            curves.append(roc_points(group_positive, group_negative))
            hulls.append(upper_hull(group_scores, group_positive, group_negative)[:2])
        else:
            curves.append(None)
            hulls.append(None)
    return curves, hulls
