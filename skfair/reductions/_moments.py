"""The objective and the constraints of the reductions, as linear functions of count tables.

A classifier ``h`` enters every quantity of the game only through its table
``T[g, y, k] = sum of w_i over the samples of group g with true class y that h predicts as k``
(:func:`~skfair._stats._counts.class_table` of the joint class ``y * K + k``, one bincount).
Every rate that a fairness constraint compares is a ratio ``sum of some cells of T / sum of w
over a fixed set of (group, y) cells``: its denominator does not depend on ``h``. So the
error, every constraint ``gamma_j(h)`` and the Lagrangian are affine in ``T``, a mixture's
table is the weighted mean of its members' tables, and the gradient of the Lagrangian with
respect to "sample i is predicted k" depends on the sample only through its cell
``(g_i, y_i)``: a ``(n_groups, n_classes, n_classes)`` cost table. No per-sample matrix is
ever formed.

A constraint compares a *rate* (a measure: an event on the true class and an outcome of the
prediction, e.g. "prediction positive among true positives") between two *sides* (a side is a
set of groups whose samples are pooled, the whole population included):
``rho * rate(upper side) - rate(lower side) - bound <= 0``; ``rho = 1, bound = eps`` bounds a
difference, ``rho = 1 - eps, bound = 0`` a ratio (``rate(lower) >= (1 - eps) rate(upper)``).
Regression's bounded group loss is the separate, simpler :class:`GroupLossMoments`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from skfair._stats._aggregate import disadvantaged_sides
from skfair._stats._counts import class_table, group_sums

BINARY_CONSTRAINTS = (
    "demographic_parity",
    "equalized_odds",
    "true_positive_rate_parity",
    "false_positive_rate_parity",
    "error_rate_parity",
)
MULTICLASS_CONSTRAINTS = ("demographic_parity", "equalized_odds")
REGRESSION_CONSTRAINTS = ("bounded_group_loss",)
CONSTRAINTS = BINARY_CONSTRAINTS + REGRESSION_CONSTRAINTS


@dataclass(frozen=True)
class ClassificationMoments:
    """Error and constraints of classifiers, read off their ``(group, y, prediction)`` tables.

    Attributes
    ----------
    cell_weight : ndarray of shape (n_groups, n_classes)
        Total sample weight of each (group, true class) cell.
    measures : ndarray of shape (n_measures, n_classes, n_classes)
        ``measures[m, y, k]`` is 1 when a sample of true class ``y`` predicted ``k`` counts in
        the numerator of rate ``m`` (the event ``y`` and the outcome ``k``), else 0.
    events : ndarray of shape (n_measures, n_classes)
        ``events[m, y]`` is 1 when true class ``y`` is in the event (denominator) of rate m.
    membership : ndarray of shape (n_sides, n_groups)
        1 where a group belongs to a side.
    upper, lower, measure : ndarray of int of shape (n_constraints,)
        The two sides and the rate of each constraint.
    rho, bound : ndarray of shape (n_constraints,)
        ``gamma_j = rho_j * rate(upper_j) - rate(lower_j) - bound_j``.
    denominators : ndarray of shape (n_sides, n_measures)
        Weight of each side in each rate's event (fixed by the data).
    reference : int
        The side the others are compared with (the heaviest group, the privileged side or
        the population); the axes of :class:`GridSearch`'s grid.
    names : list of str
        A readable description of each constraint.
    form : {"difference", "ratio"}
    eps : float
    """

    cell_weight: np.ndarray
    measures: np.ndarray
    events: np.ndarray
    membership: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    measure: np.ndarray
    rho: np.ndarray
    bound: np.ndarray
    denominators: np.ndarray
    reference: int
    names: list
    form: str
    eps: float

    @property
    def n_groups(self):
        return self.cell_weight.shape[0]

    @property
    def n_classes(self):
        return self.cell_weight.shape[1]

    @property
    def n_constraints(self):
        return self.upper.shape[0]

    @property
    def total(self):
        return float(self.cell_weight.sum())

    def table(self, codes, y_class, pred_class, sample_weight):
        """The ``(group, y, prediction)`` table of predictions ``pred_class``: the group x class
        counts of the joint class ``y * K + prediction``. With ``pred_class`` of shape
        (n_draws, n_samples), the tables of every draw, of shape (n_draws, G, K, K), from one
        bincount (each equal to the table of that draw alone)."""
        n_classes = self.n_classes
        joint = np.atleast_2d(y_class * n_classes + pred_class)
        n_draws = joint.shape[0]
        # draw d's rows are counted in the groups d * G + g
        codes = codes + self.n_groups * np.arange(n_draws)[:, None]
        if sample_weight is not None:
            sample_weight = np.broadcast_to(sample_weight, joint.shape).ravel()
        counts = class_table(
            _Codes(codes.ravel(), n_draws * self.n_groups),
            joint.ravel(),
            n_classes**2,
            sample_weight,
        ).reshape(n_draws, self.n_groups, n_classes, n_classes)
        return counts if np.ndim(pred_class) == 2 else counts[0]

    def constant_table(self, k):
        """The table of the classifier that predicts class ``k`` for everyone."""
        table = np.zeros((self.n_groups, self.n_classes, self.n_classes))
        table[:, :, k] = self.cell_weight
        return table

    def rates(self, table):
        """Rate of each side in each measure, shape (n_sides, n_measures) (with leading axes
        for a stack of tables)."""
        per_group = np.einsum("...gyk,myk->...gm", table, self.measures)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.membership @ per_group) / self.denominators

    def error(self, table):
        """Weighted error rate (0-1 loss)."""
        total = table.sum()
        correct = np.einsum("gkk->", table)
        return float((total - correct) / total)

    def gamma(self, table):
        """``gamma_j`` of every constraint; the constraint holds when it is <= 0."""
        rates = self.rates(table)
        return (
            self.rho * rates[..., self.upper, self.measure]
            - rates[..., self.lower, self.measure]
            - self.bound
        )

    def disparity(self, table):
        """The disparity the constraints bound, in the units of ``eps``.

        ``"difference"``: the largest difference of a rate between two compared sides (what
        the metric of the same name reports); ``"ratio"``: one minus the smallest ratio. The
        constraints hold exactly when it is at most ``eps``; 0 without constraints.
        """
        if self.n_constraints == 0:
            return 0.0
        rates = self.rates(table)
        upper = rates[self.upper, self.measure]
        lower = rates[self.lower, self.measure]
        if self.form == "difference":
            return float(np.max(upper - lower))
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(upper > 0, lower / np.where(upper > 0, upper, 1.0), 1.0)
        return float(1.0 - np.min(ratio))

    def cost(self, multipliers):
        """Cost table of the Lagrangian ``error + sum_j lambda_j gamma_j`` for ``lambda``.

        Returns ``C`` of shape (n_groups, n_classes, n_classes): up to a constant, the
        Lagrangian of a classifier is ``sum_i w_i C[g_i, y_i, h(x_i)]``.
        """
        n_sides, n_measures = self.denominators.shape
        coefficient = np.zeros((n_sides, n_measures))
        with np.errstate(invalid="ignore", divide="ignore"):
            np.add.at(
                coefficient,
                (self.upper, self.measure),
                multipliers * self.rho / self.denominators[self.upper, self.measure],
            )
            np.add.at(
                coefficient,
                (self.lower, self.measure),
                -multipliers / self.denominators[self.lower, self.measure],
            )
        per_group = self.membership.T @ coefficient
        error = 1.0 - np.eye(self.n_classes)
        return error[None] / self.total + np.einsum("gm,myk->gyk", per_group, self.measures)


@dataclass(frozen=True)
class GroupLossMoments:
    """Mean loss and bounded group loss of regressors, from per-group loss sums.

    A regressor enters through the per-group weighted sums of its losses (``group_sums``);
    the constraint of group ``g`` is ``mean loss in g - eps <= 0`` (Agarwal, Dudík & Wu 2019).
    """

    group_weight: np.ndarray
    order: np.ndarray
    loss: str
    eps: float
    names: list

    @property
    def n_groups(self):
        return self.group_weight.shape[0]

    @property
    def n_constraints(self):
        return self.n_groups

    @property
    def total(self):
        return float(self.group_weight.sum())

    @property
    def bound(self):
        return np.full(self.n_groups, self.eps)

    def losses(self, y, y_pred):
        return loss_values(self.loss, y, y_pred)

    def table(self, codes, y, y_pred, sample_weight):
        """Per-group weighted loss sums of predictions ``y_pred``."""
        groups = _Codes(codes, self.n_groups)
        return group_sums(self.losses(y, y_pred), groups, sample_weight)[0]

    def error(self, table):
        return float(table.sum() / self.total)

    def gamma(self, table):
        """Per group, in the order of the constraints: mean loss minus ``eps``."""
        return (table / self.group_weight)[..., self.order] - self.eps

    def disparity(self, table):
        """The largest group mean loss (the constraints hold when it is at most ``eps``)."""
        return float(np.max(table / self.group_weight))

    def cost(self, multipliers):
        """Per-group weight of the loss in the Lagrangian, shape (n_groups,)."""
        per_group = np.zeros(self.n_groups)
        per_group[self.order] = multipliers
        return 1.0 / self.total + per_group / self.group_weight


@dataclass(frozen=True)
class _Codes:
    """The two fields of a GroupEncoding that ``group_sums`` reads."""

    codes: np.ndarray
    n_groups: int

    def counts(self, sample_weight=None):
        return np.bincount(self.codes, weights=sample_weight, minlength=self.n_groups)


def loss_values(loss, y, y_pred):
    """Per-sample regression loss."""
    residual = np.asarray(y_pred, dtype=np.float64) - y
    return residual**2 if loss == "squared_error" else np.abs(residual)


# --------------------------------------------------------------------------------------------
# building the moments


def classification_moments(
    constraint,
    *,
    codes,
    group_labels,
    groups,
    y_class,
    classes,
    pos_index,
    sample_weight,
    eps,
    form,
    privileged_group,
    disadvantaged,
):
    """The moments of ``constraint`` on the fitting data.

    ``groups`` is the :class:`~skfair._utils._groups.GroupEncoding` (None: one group, no
    constraint). Binary constraints compare every pair of groups, or the disadvantaged with
    the privileged side(s); multi-class demographic parity and equalized odds compare every
    group with the whole population, class by class (U_DP and U_EO of Denis et al. 2021).
    """
    n_classes = len(classes)
    n_groups = len(group_labels)
    cell_weight = np.bincount(
        codes * n_classes + y_class, weights=sample_weight, minlength=n_groups * n_classes
    ).reshape(n_groups, n_classes)
    measures, events, measure_names = _measures(constraint, n_classes, pos_index, classes)
    order = canonical_order(cell_weight)
    if groups is None or n_groups < 2:
        membership, side_names, pairs = np.ones((1, n_groups)), ["all"], []
    elif n_classes > 2:
        membership, side_names, pairs = _population_sides(group_labels, order)
    else:
        membership, side_names, pairs = _binary_sides(
            groups, group_labels, privileged_group, disadvantaged, order
        )
    denominators = membership @ (cell_weight @ events.T)
    upper, lower, measure = _defined_pairs(
        pairs, len(measures), denominators, side_names, measure_names
    )
    if form == "difference":
        rho, bound = np.ones(upper.shape[0]), np.full(upper.shape[0], float(eps))
        relation = f"<= {eps:g}"
        names = [
            f"{measure_names[m]}: {side_names[u]} - {side_names[v]} {relation}"
            for u, v, m in zip(upper, lower, measure)
        ]
    else:
        rho, bound = np.full(upper.shape[0], 1.0 - eps), np.zeros(upper.shape[0])
        names = [
            f"{measure_names[m]}: {side_names[v]} / {side_names[u]} >= {1 - eps:g}"
            for u, v, m in zip(upper, lower, measure)
        ]
    return ClassificationMoments(
        cell_weight=cell_weight,
        measures=measures,
        events=events,
        membership=membership,
        upper=upper,
        lower=lower,
        measure=measure,
        rho=rho,
        bound=bound,
        denominators=denominators,
        reference=_reference_side(denominators, privileged_group, n_classes),
        names=names,
        form=form,
        eps=float(eps),
    )


def group_loss_moments(*, codes, group_labels, sample_weight, eps, loss):
    """Bounded group loss: the mean ``loss`` of every group at most ``eps``."""
    n_groups = len(group_labels)
    group_weight = np.bincount(codes, weights=sample_weight, minlength=n_groups).astype(np.float64)
    order = canonical_order(group_weight)
    names = [f"mean {loss} of {group_labels[g]!r} <= {eps:g}" for g in order]
    return GroupLossMoments(
        group_weight=group_weight, order=order, loss=loss, eps=float(eps), names=names
    )


def _measures(constraint, n_classes, pos_index, classes):
    """``(measures, events, names)`` of a constraint (see ClassificationMoments)."""
    every = np.ones(n_classes)
    if n_classes > 2:
        # U_DP: P(pred = k | A) for each k; U_EO: P(pred = k | y = k', A) for each (k', k).
        one_hot = np.eye(n_classes)
        if constraint == "demographic_parity":
            events = np.tile(every, (n_classes, 1))
            outcomes = [np.tile(one_hot[k], (n_classes, 1)) for k in range(n_classes)]
            names = [f"P(pred={classes[k]!r})" for k in range(n_classes)]
        else:
            events = np.repeat(one_hot, n_classes, axis=0)
            outcomes = [
                np.tile(one_hot[k], (n_classes, 1))
                for _ in range(n_classes)
                for k in range(n_classes)
            ]
            names = [
                f"P(pred={classes[k]!r} | y={classes[j]!r})"
                for j in range(n_classes)
                for k in range(n_classes)
            ]
        outcomes = np.array(outcomes)
        return events[:, :, None] * outcomes, events, names
    positive = np.zeros((n_classes, n_classes))
    positive[:, pos_index] = 1.0
    is_positive = np.eye(n_classes)[pos_index]
    is_negative = 1.0 - is_positive
    wrong = 1.0 - np.eye(n_classes)
    definitions = {
        "demographic_parity": [("selection_rate", every, positive)],
        "true_positive_rate_parity": [("true_positive_rate", is_positive, positive)],
        "false_positive_rate_parity": [("false_positive_rate", is_negative, positive)],
        "equalized_odds": [
            ("true_positive_rate", is_positive, positive),
            ("false_positive_rate", is_negative, positive),
        ],
        "error_rate_parity": [("error_rate", every, wrong)],
    }[constraint]
    names = [name for name, _, _ in definitions]
    events = np.array([event for _, event, _ in definitions])
    outcomes = np.array([outcome for _, _, outcome in definitions])
    return events[:, :, None] * outcomes, events, names


def _reference_side(denominators, privileged_group, n_classes):
    """The side the grid's axes compare the others with: the privileged side or the
    population (the last side), else the heaviest group (the first in the canonical order
    on ties, so the choice does not depend on the labels).

    The heaviest group because a multiplier on "side minus reference" pulls each sample of a
    side in inverse proportion to the side's weight, and the grid scales it to flip the
    labels of the lighter of the two: against a small reference the other groups, however
    far their rates are apart, are hardly pulled at all.
    """
    if privileged_group is not None or n_classes > 2:
        return denominators.shape[0] - 1
    return int(np.argmax(denominators.sum(axis=1)))


def canonical_order(group_table):
    """An order of the groups that does not depend on their labels: by their rows of
    ``group_table`` (weights per class, or per group), the label order breaking ties.

    The constraints follow it, so that renaming the groups changes nothing in the game
    (linear programs with several optima return the same one).
    """
    table = np.asarray(group_table, dtype=np.float64).reshape(len(group_table), -1)
    return np.lexsort((np.arange(table.shape[0]), *table.T[::-1]))


def _binary_sides(groups, group_labels, privileged_group, disadvantaged, order):
    """Sides and compared pairs of a binary constraint, as skfair's metrics compare groups."""
    n_groups = len(group_labels)
    if privileged_group is None:
        membership = np.eye(n_groups)[order]
        names = [repr(group_labels[g]) for g in order]
        upper, lower = np.nonzero(~np.eye(n_groups, dtype=bool))
        return membership, names, list(zip(upper.tolist(), lower.tolist()))
    is_privileged, compared = disadvantaged_sides(groups, privileged_group, disadvantaged)
    rank = np.argsort(order)
    compared = sorted(compared, key=lambda side: rank[side].min())
    privileged_names = [repr(label) for label, m in zip(group_labels, is_privileged) if m]
    if disadvantaged == "pooled":
        names = ["disadvantaged", "privileged (" + ", ".join(privileged_names) + ")"]
    else:
        names = [repr(group_labels[int(np.flatnonzero(side)[0])]) for side in compared]
        names.append("privileged (" + ", ".join(privileged_names) + ")")
    membership = np.array([*compared, is_privileged], dtype=np.float64)
    reference = len(compared)
    pairs = [(s, reference) for s in range(reference)] + [(reference, s) for s in range(reference)]
    return membership, names, pairs


def _population_sides(group_labels, order):
    """Each group against the whole population (the multi-class U_DP / U_EO)."""
    n_groups = len(group_labels)
    membership = np.vstack([np.eye(n_groups)[order], np.ones((1, n_groups))])
    names = [repr(group_labels[g]) for g in order] + ["population"]
    pairs = [(g, n_groups) for g in range(n_groups)] + [(n_groups, g) for g in range(n_groups)]
    return membership, names, pairs


def _defined_pairs(pairs, n_measures, denominators, side_names, measure_names):
    """Constraint index arrays for every pair and measure whose two rates are defined.

    A rate is undefined for a side with no weight in its event (a group without positives
    has no true positive rate); its constraints are left out with a warning, as skfair's
    metrics leave such groups out of the comparison.
    """
    upper, lower, measure = [], [], []
    undefined = set()
    for m in range(n_measures):
        for u, v in pairs:
            if denominators[u, m] > 0 and denominators[v, m] > 0:
                upper.append(u)
                lower.append(v)
                measure.append(m)
            else:
                undefined.update(
                    (side_names[s], measure_names[m]) for s in (u, v) if denominators[s, m] <= 0
                )
    if undefined:
        warnings.warn(
            f"The rates {sorted(undefined)} (side, rate) are undefined: those sides have no "
            "(weight in the) samples the rate is computed on. Their constraints are left out.",
            UserWarning,
            stacklevel=4,
        )
    return tuple(np.asarray(values, dtype=np.intp) for values in (upper, lower, measure))
