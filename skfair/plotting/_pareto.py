"""The objective of optimal group thresholds against their fairness gap, over tolerances."""

from __future__ import annotations

import numpy as np

from skfair._utils._compat import check_matplotlib_support
from skfair.plotting._display import axes, documented, drawn, keep_arguments
from skfair.plotting._given_scores import binary_rule, binary_scores, multiclass_rule
from skfair.postprocessing import threshold_pareto_front

_GAP_LABELS = {
    "demographic_parity": "demographic-parity gap",
    "equalized_odds": "equalized-odds gap",
}


@documented
class ParetoFrontDisplay:
    """The objective of optimal group thresholds against their fairness gap.

    Each point is the optimal rule at one tolerance: its constraint gap (x) and its expected
    objective (y), on the data the rules are chosen on. Create it with :meth:`from_estimator`
    (a fitted :class:`~skfair.postprocessing.GroupThresholdClassifier` or
    :class:`~skfair.postprocessing.MulticlassGroupThresholdClassifier` on data) or
    :meth:`from_predictions` (scores for binary labels, or a matrix of class probabilities).

    Parameters
    ----------
    tolerances, objective_values, constraint_gaps : ndarray of shape (n_points,)
        The front, as :func:`~skfair.postprocessing.threshold_pareto_front` returns it.
    constraint : str
        The constraint (names the x axis).
    objective : str
        The objective (names the y axis).
    name : str, default=None
        Label of the curve in the legend.

    Attributes
    ----------
    line_ : matplotlib Line2D
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    See Also
    --------
    skfair.postprocessing.threshold_pareto_front : Computes the front.

    {references hardt denis}

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.plotting import ParetoFrontDisplay
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 1000)
    >>> logits = rng.normal(size=(1000, 3)) + np.array([[0, 1, 0], [1, 0, 0]])[group]
    >>> proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    >>> display = ParetoFrontDisplay.from_predictions(
    ...     None, proba, sensitive_features=group, tolerances=[0.0, 0.05, 0.1])
    >>> bool(np.all(np.diff(display.objective_values) >= 0))
    True
    """

    def __init__(
        self, *, tolerances, objective_values, constraint_gaps, constraint, objective, name=None
    ):
        keep_arguments(self, locals())

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y=None,
        *,
        sensitive_features=None,
        sample_weight=None,
        tolerances=None,
        name=None,
        ax=None,
    ):
        """Plot the front of a fitted estimator's rules on data ``(X, y)``.

        Parameters
        ----------
        estimator : GroupThresholdClassifier or MulticlassGroupThresholdClassifier
            Fitted.
        {samples_of_estimator}
        y : array-like of shape (n_samples,), default=None
            True labels (required for a :class:`GroupThresholdClassifier`).
        {sensitive_features_of_estimator}
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        tolerances : array-like of float, default=None
            As in :func:`~skfair.postprocessing.threshold_pareto_front`.
        name : str, default=None
            Legend label; the estimator's class name by default.
        {ax}

        {returns_display}
        """
        check_matplotlib_support(f"{cls.__name__}.from_estimator")
        front = threshold_pareto_front(
            estimator,
            X,
            y,
            sensitive_features=sensitive_features,
            sample_weight=sample_weight,
            tolerances=tolerances,
        )
        display = cls(**front, name=type(estimator).__name__ if name is None else name)
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
        cost=None,
        tolerances=None,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
    ):
        """Compute the front on scores and plot it.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or None
            Binary labels for 1-D ``y_score``; unused (may be None) for class probabilities.
        y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
            Scores of the positive class (the rules of
            :class:`~skfair.postprocessing.GroupThresholdClassifier`), or class
            probabilities (those of
            :class:`~skfair.postprocessing.MulticlassGroupThresholdClassifier`).
        {sensitive_features_given}
        constraint : str, default="demographic_parity"
            What is made equal across groups: for scores, any constraint of
            :class:`~skfair.postprocessing.GroupThresholdClassifier`; for class
            probabilities, ``"demographic_parity"`` or ``"equalized_odds"``.
        objective : str, default="accuracy"
            What is optimised, as in the estimator of the scores' kind; ``"cost"`` (scores
            only) minimises the expected cost priced by ``cost``.
        {cost}
        tolerances : array-like of float, default=None
            As in :func:`~skfair.postprocessing.threshold_pareto_front`.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        pos_label : int, float, bool or str, default=None
            The positive class of binary labels.
        name : str, default=None
            Legend label.
        {ax}

        {returns_display}
        """
        check_matplotlib_support(f"{cls.__name__}.from_predictions")
        y_score = np.asarray(y_score, dtype=np.float64)
        # The rule at tolerance 1 is the unconstrained one (every gap is at most 1): the
        # estimator is fitted to score the data, the front solves each tolerance.
        if y_score.ndim == 2:
            if not np.isfinite(y_score).all() or np.abs(y_score.sum(axis=1) - 1).max() > 1e-6:
                raise ValueError(
                    "A 2-D y_score must hold class probabilities: finite, rows summing to one."
                )
            if cost is not None:
                raise ValueError(
                    "cost is an objective of binary decisions; class probabilities take "
                    "objective='accuracy' or 'balanced_accuracy'."
                )
            rule = multiclass_rule(
                y_score,
                sensitive_features,
                sample_weight,
                constraint=constraint,
                objective=objective,
                tolerance=1.0,
            )
            labels = None
        else:
            y_score, labels = binary_scores(y_true, y_score, pos_label)
            rule = binary_rule(
                labels,
                y_score,
                sensitive_features,
                sample_weight,
                constraint=constraint,
                objective=objective,
                tolerance=1.0,
                cost=cost,
            )
        front = threshold_pareto_front(
            rule,
            y_score[:, None] if y_score.ndim == 1 else y_score,
            labels,
            sensitive_features=sensitive_features,
            sample_weight=sample_weight,
            tolerances=tolerances,
        )
        display = cls(**front, name=name)
        return display.plot(ax=ax)

    def plot(self, ax=None, **kwargs):
        """Draw the front.

        Parameters
        ----------
        {ax}
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        {returns_self}
        """
        ax = axes(self, ax, figsize=(5.5, 4))
        style = {"marker": "o", "markersize": 4, "label": self.name, **kwargs}
        (self.line_,) = ax.plot(self.constraint_gaps, self.objective_values, **style)
        ax.set_xlabel(_GAP_LABELS.get(self.constraint, self.constraint.replace("_", " ")))
        ax.set_ylabel(f"expected {self.objective.replace('_', ' ')}")
        ax.set_title("Objective against fairness gap over tolerances")
        if self.name is not None:
            ax.legend(loc="lower right", fontsize="small")
        return drawn(self, ax)
