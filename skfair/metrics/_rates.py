"""Rate comparisons: one table of the rates of the binary confusion table, and the metrics
that compare them between groups, generated from it.

Every metric here reads one weighted count table per group, ``[tn, fp, fn, tp]`` (one
``np.bincount`` over the joint group codes), takes a rate as a ratio of sums of its cells
(:data:`~skfair._stats._counts.RATE_CELLS`) and compares it between groups with the
library's rules (:mod:`skfair._stats._aggregate`):

- ``privileged_group`` given: signed ``rate(dis) - rate(priv)`` (ratios ``dis / priv``),
  where priv pools the samples of the named group(s) and dis pools all the others, or each
  other group on its own (``disadvantaged="each"``);
- ``privileged_group=None``: the largest gap between any two groups, ``max - min`` (ratios
  ``min / max``).

The public functions are built from :data:`RATES` (what each rate is) and
:data:`COMPARISONS` (how each metric compares it, its peers' names, references and
example) by :func:`_comparison`, as scikit-learn builds its scorers from a table: each gets
its own signature, parameter validation, dask plan and complete numpydoc docstring, and is
importable and picklable as ``skfair.metrics.<name>``. :class:`~skfair.metrics.MetricTable`
reads its named rates from the same table.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field

import numpy as np

from skfair._dask import dask_dispatch, table_plan
from skfair._stats._aggregate import (
    DISADVANTAGED,
    furthest_from_parity,
    rate_difference,
    rate_ratio,
    signed_gaps,
)
from skfair._stats._counts import FN, FP, RATE_CELLS, TN, TP, confusion_table
from skfair._utils._compat import (
    SENSITIVE_FEATURES_CONSTRAINT,
    Real,
    StrOptions,
    validate_params,
)
from skfair._utils._validation import (
    binarize,
    check_groups,
    check_label_pair,
    check_labels,
    check_lengths,
    check_weights,
)
from skfair.metrics._docs import PARAMETERS, example, numpydoc

# ----------------------------------------------------------------------------------------------
# the rates


@dataclass(frozen=True)
class Rate:
    """A rate of the count table: what it is, for docstrings, warnings and the table's columns.

    ``cells`` are the numerator and denominator cells of ``[tn, fp, fn, tp]``; None for the
    rates that compare ``y_pred`` with ``y_true`` label by label (any discrete labels).
    """

    symbol: str
    measure: str
    title: str
    definition: str
    cells: tuple | None
    undefined: str = ""


RATES = {
    "selection_rate": Rate(
        "SR",
        "selection rate",
        "Selection-rate",
        "``SR(S) = P(y_pred = pos_label | S)``",
        RATE_CELLS["selection_rate"],
    ),
    "base_rate": Rate(
        "BR",
        "base rate",
        "Base-rate",
        "``BR(S) = P(y_true = pos_label | S)``",
        RATE_CELLS["base_rate"],
    ),
    "true_positive_rate": Rate(
        "TPR",
        "true positive rate",
        "True-positive-rate (recall, equal opportunity)",
        "``TPR(S) = P(y_pred = + | y_true = +, S)``",
        RATE_CELLS["true_positive_rate"],
        "positives",
    ),
    "false_negative_rate": Rate(
        "FNR",
        "false negative rate",
        "False-negative-rate",
        "``FNR(S) = P(y_pred != + | y_true = +, S) = 1 - TPR(S)``",
        RATE_CELLS["false_negative_rate"],
        "positives",
    ),
    "false_positive_rate": Rate(
        "FPR",
        "false positive rate",
        "False-positive-rate",
        "``FPR(S) = P(y_pred = + | y_true != +, S)``",
        RATE_CELLS["false_positive_rate"],
        "negatives",
    ),
    "true_negative_rate": Rate(
        "TNR",
        "true negative rate",
        "True-negative-rate (specificity)",
        "``TNR(S) = P(y_pred != + | y_true != +, S) = 1 - FPR(S)``",
        RATE_CELLS["true_negative_rate"],
        "negatives",
    ),
    "positive_predictive_value": Rate(
        "PPV",
        "positive predictive value",
        "Positive-predictive-value (precision)",
        "``PPV(S) = P(y_true = + | y_pred = +, S)``",
        RATE_CELLS["positive_predictive_value"],
        "positive predictions",
    ),
    "false_discovery_rate": Rate(
        "FDR",
        "false discovery rate",
        "False-discovery-rate",
        "``FDR(S) = P(y_true != + | y_pred = +, S) = 1 - PPV(S)``",
        RATE_CELLS["false_discovery_rate"],
        "positive predictions",
    ),
    "negative_predictive_value": Rate(
        "NPV",
        "negative predictive value",
        "Negative-predictive-value",
        "``NPV(S) = P(y_true != + | y_pred != +, S)``",
        RATE_CELLS["negative_predictive_value"],
        "negative predictions",
    ),
    "false_omission_rate": Rate(
        "FOR",
        "false omission rate",
        "False-omission-rate",
        "``FOR(S) = P(y_true = + | y_pred != +, S) = 1 - NPV(S)``",
        RATE_CELLS["false_omission_rate"],
        "negative predictions",
    ),
    "error_rate": Rate(
        "ERR",
        "error rate",
        "Error-rate",
        "``ERR(S) = P(y_pred != y_true | S)``",
        ((FP, FN), (TN, FP, FN, TP)),
    ),
    "accuracy": Rate("ACC", "accuracy", "Accuracy", "``ACC(S) = P(y_pred = y_true | S)``", None),
}
"""Every rate of skfair, by name: the metric functions compare them, MetricTable tabulates them."""

# ----------------------------------------------------------------------------------------------
# input checks shared by the count-table metrics


BINARY_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_pred": ["array-like"],
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    "privileged_group": "no_validation",
    "disadvantaged": [StrOptions(set(DISADVANTAGED))],
    "pos_label": [Real, str, "boolean", None],
    "sample_weight": ["array-like", None],
}

# On dask input: the frequency table of (y_true, y_pred, sensitive values, weights), summed
# over the partitions, is the count table's sufficient statistic (at most n_groups x
# n_labels**2 rows, whatever n).
LABEL_TABLE = table_plan()
# The same, for metrics of y_pred alone (y_true is only checked for its length).
PREDICTION_TABLE = table_plan(ignored=lambda arguments: {"y_true"})


def check_inputs(y_true, y_pred, sensitive_features, sample_weight, *, needs_y_true=True):
    """Checked label arrays (y_true may stay None), group encoding and weights."""
    if y_true is None and needs_y_true:
        raise ValueError("y_true is None; this metric compares predictions with true labels.")
    n_samples = check_lengths(
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    y_pred = check_labels(y_pred, "y_pred")
    # Metrics of y_pred alone ignore y_true beyond its length.
    y_true = check_labels(y_true, "y_true") if needs_y_true else None
    if y_true is not None:
        check_label_pair(y_true, y_pred)
    groups = check_groups(sensitive_features, n_samples)
    return y_true, y_pred, groups, check_weights(sample_weight, n_samples)


def binary_confusion(
    y_true, y_pred, sensitive_features, pos_label, sample_weight, *, needs_y_true=True
):
    """Checked inputs -> ``(groups, [tn, fp, fn, tp] table per group)``."""
    y_true, y_pred, groups, sample_weight = check_inputs(
        y_true, y_pred, sensitive_features, sample_weight, needs_y_true=needs_y_true
    )
    y_true_positive, y_pred_positive = binarize(y_true, y_pred, pos_label)
    return groups, confusion_table(groups, y_true_positive, y_pred_positive, sample_weight)


def _parts(table, rate):
    """Per-group ``(numerator, denominator)`` of ``rate`` from a ``[tn, fp, fn, tp]`` table."""
    numerator, denominator = RATES[rate].cells
    return table[:, list(numerator)].sum(axis=1), table[:, list(denominator)].sum(axis=1)


# ----------------------------------------------------------------------------------------------
# the computations: (checked table, comparison rules) -> one number


def _compare_rate(rate, kind, y_true, y_pred, sensitive_features, pos_label, sample_weight, sides):
    """One rate compared between groups: the body of every single-rate metric."""
    compare = rate_difference if kind == "difference" else rate_ratio
    if RATES[rate].cells is None:
        # Accuracy, for any discrete labels: a two-cell table per group, wrong and right.
        y_true, y_pred, groups, weights = check_inputs(
            y_true, y_pred, sensitive_features, sample_weight
        )
        correct = np.asarray(y_true == y_pred, dtype=bool)
        table = np.bincount(
            groups.codes * 2 + correct, weights=weights, minlength=2 * groups.n_groups
        ).reshape(groups.n_groups, 2)
        parts = table[:, 1], table.sum(axis=1)
    else:
        groups, table = binary_confusion(
            y_true,
            y_pred,
            sensitive_features,
            pos_label,
            sample_weight,
            needs_y_true=rate != "selection_rate",
        )
        parts = _parts(table, rate)
    return compare(*parts, groups, measure=RATES[rate].measure, **sides)


def _gaps(table, groups, rates, sides, *, ratio=False):
    """Per rate, its disparities as arrays over the compared sides (one entry when unsigned)."""
    gaps = []
    for rate in rates:
        measure = RATES[rate].measure
        if sides["privileged_group"] is None:
            unsigned = rate_ratio if ratio else rate_difference
            gaps.append(np.atleast_1d(unsigned(*_parts(table, rate), groups, measure=measure)))
        else:
            gaps.append(
                signed_gaps(*_parts(table, rate), groups, measure=measure, ratio=ratio, **sides)
            )
    return gaps


def equalized_odds_components(fpr_difference, fnr_difference, *, signed):
    """The two components of equalized odds, ``(TPR component, FPR component)``, from the
    false positive and false negative rate differences (arrays over the compared sides).

    Signed, both are oriented by the favourable label: positive when the disadvantaged side
    gets the favourable prediction less often than the privileged side among the rows of the
    same true label, ``TPR(priv) - TPR(dis) = ΔFNR`` and ``FPR(priv) - FPR(dis) = -ΔFPR =
    ΔTNR``. Unsigned, the largest gaps ``D_TPR = D_FNR`` and ``D_FPR`` (both >= 0).
    """
    return fnr_difference, (0.0 - fpr_difference) if signed else fpr_difference


def _equalized_odds_difference(groups, table, sides, agg):
    fpr_gap, fnr_gap = _gaps(table, groups, ["false_positive_rate", "false_negative_rate"], sides)
    tpr_part, fpr_part = equalized_odds_components(
        fpr_gap, fnr_gap, signed=sides["privileged_group"] is not None
    )
    if agg == "mean":
        combined = (fpr_part + tpr_part) / 2
    else:
        # The component larger in size, sign kept (the FPR component on ties); NaN left out.
        larger = np.isnan(tpr_part) | (abs(fpr_part) >= abs(tpr_part))
        combined = np.where(larger, fpr_part, tpr_part)
    return float(furthest_from_parity(combined))


def _equalized_odds_ratio(groups, table, sides, agg):
    fpr, tpr = _gaps(
        table, groups, ["false_positive_rate", "true_positive_rate"], sides, ratio=True
    )
    if agg == "mean":
        combined = (fpr + tpr) / 2
    else:
        # Per side, the component further from parity (the FPR on ties); NaN left out.
        with np.errstate(divide="ignore"):
            fpr_distance, tpr_distance = np.abs(np.log(fpr)), np.abs(np.log(tpr))
        combined = np.where(np.isnan(tpr) | (fpr_distance >= tpr_distance), fpr, tpr)
    return float(furthest_from_parity(combined, ratio=True))


def _average_odds_difference(groups, table, sides, absolute):
    fpr, tpr = _gaps(table, groups, ["false_positive_rate", "true_positive_rate"], sides)
    if absolute:
        fpr, tpr = abs(fpr), abs(tpr)
    return float(furthest_from_parity((fpr + tpr) / 2))


def _compare_odds(combine, y_true, y_pred, sensitive_features, pos_label, sample_weight, sides):
    """The body of the metrics that combine the error rates: ``combine(groups, table, sides)``."""
    groups, table = binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    return combine(groups, table, sides)


# ----------------------------------------------------------------------------------------------
# the comparisons: one entry per public function


@dataclass(frozen=True)
class Comparison:
    """A public metric that compares rates between groups: how, and how it is documented.

    ``rate`` and ``kind`` name a single-rate comparison, described from :data:`RATES` with
    ``signed_note`` and ``unsigned_note`` (the peers' names, relations to other metrics);
    ``combine`` instead names a function ``combine(groups, table, sides, **options)`` of the
    error-rate combinations, described by ``summary``, ``description`` and ``returns``.
    ``options`` holds their extra keyword arguments, ``name: (default, constraints, type,
    description)``. ``example`` is ``(y_true, y_pred, groups, calls)`` for
    :func:`~skfair.metrics._docs.example`.
    """

    references: tuple
    see_also: tuple
    example: tuple
    rate: str = ""
    kind: str = "difference"
    signed_note: str = ""
    unsigned_note: str = ""
    combine: object = None
    options: dict = field(default_factory=dict)
    summary: str = ""
    description: str = ""
    returns: str = ""


_AGG = {
    "agg": (
        "worst_case",
        [StrOptions({"worst_case", "mean"})],
        '{"worst_case", "mean"}, default="worst_case"',
        "Combine the two rates' comparisons: the one further from parity, or their mean.",
    )
}
_AIF360_SIGN = "(the sign convention of aif360's ``ClassificationMetric.difference``)"
_HALVES = ("a", "a", "a", "b", "b", "b")

COMPARISONS = {
    "statistical_parity_difference": Comparison(
        rate="selection_rate",
        signed_note="(Virny's ``Statistical_Parity_Difference``)",
        unsigned_note="(fairlearn's ``demographic_parity_difference``)",
        see_also=(
            ("disparate_impact_ratio", "The same rates compared as a ratio."),
            ("demographic_parity_unfairness", "The multi-class version."),
            ("conditional_demographic_disparity", "The disparity within strata."),
        ),
        references=("calders", "fairlearn"),
        example=(
            None,
            [1, 1, 0, 1, 0, 0],
            _HALVES,
            (("", "0.3333"), ('privileged_group="a"', "-0.3333")),
        ),
    ),
    "disparate_impact_ratio": Comparison(
        rate="selection_rate",
        kind="ratio",
        signed_note="(Virny's ``Disparate_Impact``, aif360's ``disparate_impact_ratio``)",
        unsigned_note="(fairlearn's ``demographic_parity_ratio``)",
        see_also=(("statistical_parity_difference", "The same rates compared as a difference."),),
        references=("feldman", "aif360"),
        example=(None, [1, 1, 0, 1, 0, 0], _HALVES, (('privileged_group="a"', "0.5"),)),
    ),
    "true_positive_rate_difference": Comparison(
        rate="true_positive_rate",
        signed_note="(Virny's ``Equalized_Odds_TPR``)",
        unsigned_note="(fairlearn's ``true_positive_rate_difference``)",
        see_also=(
            ("true_positive_rate_ratio", "The same rates compared as a ratio."),
            ("false_negative_rate_difference", "The complementary rate, ``FNR = 1 - TPR``."),
            ("equalized_odds_difference", "True- and false-positive rates together."),
        ),
        references=("hardt", "fairlearn"),
        example=(
            [1, 1, 0, 1, 1, 0],
            [1, 1, 0, 1, 0, 0],
            _HALVES,
            (('privileged_group="a"', "-0.5"),),
        ),
    ),
    "false_negative_rate_difference": Comparison(
        rate="false_negative_rate",
        signed_note="(Virny's ``Equalized_Odds_FNR``), the negative of "
        ":func:`true_positive_rate_difference`",
        see_also=(
            ("true_positive_rate_difference", "The complementary rate, ``TPR = 1 - FNR``."),
            ("equalized_odds_difference", "Its TPR component is this difference."),
        ),
        references=("hardt", "chouldechova"),
        example=(
            [1, 1, 0, 1, 1, 0],
            [1, 1, 0, 1, 0, 0],
            _HALVES,
            (('privileged_group="a"', "0.5"),),
        ),
    ),
    "false_positive_rate_difference": Comparison(
        rate="false_positive_rate",
        signed_note="(Virny's ``Equalized_Odds_FPR``)",
        unsigned_note="(fairlearn's ``false_positive_rate_difference``)",
        see_also=(
            ("false_positive_rate_ratio", "The same rates compared as a ratio."),
            ("true_negative_rate_difference", "The complementary rate, ``TNR = 1 - FPR``."),
            ("equalized_odds_difference", "True- and false-positive rates together."),
        ),
        references=("hardt", "chouldechova"),
        example=([0, 0, 1, 0, 0, 1], [1, 0, 1, 0, 0, 1], _HALVES, (("", "0.5"),)),
    ),
    "true_negative_rate_difference": Comparison(
        rate="true_negative_rate",
        signed_note="the negative of :func:`false_positive_rate_difference`",
        see_also=(
            ("false_positive_rate_difference", "The complementary rate."),
            ("equalized_odds_difference", "Its FPR component is this difference."),
        ),
        references=("hardt", "chouldechova"),
        example=(
            [0, 0, 1, 0, 0, 1],
            [1, 0, 1, 0, 0, 1],
            _HALVES,
            (('privileged_group="b"', "-0.5"),),
        ),
    ),
    "true_positive_rate_ratio": Comparison(
        rate="true_positive_rate",
        kind="ratio",
        unsigned_note="(fairlearn's ``true_positive_rate_ratio``)",
        see_also=(("true_positive_rate_difference", "The difference of the same rates."),),
        references=("hardt", "aif360"),
        example=([1, 1, 0, 1, 1, 0], [1, 1, 0, 1, 0, 0], _HALVES, (("", "0.5"),)),
    ),
    "false_positive_rate_ratio": Comparison(
        rate="false_positive_rate",
        kind="ratio",
        unsigned_note="(fairlearn's ``false_positive_rate_ratio``)",
        see_also=(("false_positive_rate_difference", "The difference of the same rates."),),
        references=("aif360", "fairlearn"),
        example=([0, 0, 1, 0, 0, 1], [1, 0, 1, 1, 1, 1], _HALVES, (("", "0.5"),)),
    ),
    "error_rate_ratio": Comparison(
        rate="error_rate",
        kind="ratio",
        signed_note="(aif360's ``error_rate_ratio``)",
        unsigned_note="(fairlearn's ``error_rate_ratio``)",
        see_also=(("accuracy_difference", "The difference of the complementary rate."),),
        references=("aif360",),
        example=(
            [0, 0, 1, 0, 0, 1],
            [1, 0, 1, 1, 1, 1],
            _HALVES,
            (('privileged_group="a"', "2.0"),),
        ),
    ),
    "accuracy_difference": Comparison(
        rate="accuracy",
        signed_note="(Virny's ``Accuracy_Difference``)",
        unsigned_note="(fairlearn's ``accuracy_score_difference``); for any discrete labels",
        see_also=(
            ("error_rate_ratio", "The complementary rate compared as a ratio."),
            ("equalized_odds_difference", "The two kinds of error separately."),
        ),
        references=("fairlearn", "virny"),
        example=(list("xyzxyz"), list("xyxxyz"), _HALVES, (('privileged_group="b"', "-0.3333"),)),
    ),
    "positive_predictive_value_difference": Comparison(
        rate="positive_predictive_value",
        signed_note=_AIF360_SIGN,
        see_also=(
            ("false_discovery_rate_difference", "The complementary rate, ``FDR = 1 - PPV``."),
        ),
        references=("chouldechova",),
        example=(
            [1, 0, 1, 1, 1, 0],
            [1, 1, 1, 1, 1, 0],
            _HALVES,
            (('privileged_group="b"', "-0.3333"),),
        ),
    ),
    "false_discovery_rate_difference": Comparison(
        rate="false_discovery_rate",
        signed_note=_AIF360_SIGN,
        see_also=(("positive_predictive_value_difference", "The complementary rate."),),
        references=("chouldechova",),
        example=(
            [1, 0, 1, 1, 1, 0],
            [1, 1, 1, 1, 1, 0],
            _HALVES,
            (('privileged_group="b"', "0.3333"),),
        ),
    ),
    "negative_predictive_value_difference": Comparison(
        rate="negative_predictive_value",
        signed_note=_AIF360_SIGN,
        see_also=(
            ("false_omission_rate_difference", "The complementary rate, ``FOR = 1 - NPV``."),
        ),
        references=("chouldechova",),
        example=(
            [1, 0, 0, 1, 0, 0],
            [0, 0, 1, 0, 0, 0],
            _HALVES,
            (('privileged_group="b"', "-0.1667"),),
        ),
    ),
    "false_omission_rate_difference": Comparison(
        rate="false_omission_rate",
        signed_note=_AIF360_SIGN,
        see_also=(("negative_predictive_value_difference", "The complementary rate."),),
        references=("chouldechova",),
        example=(
            [1, 0, 0, 1, 0, 0],
            [0, 0, 1, 0, 0, 0],
            _HALVES,
            (('privileged_group="b"', "0.1667"),),
        ),
    ),
    "equalized_odds_difference": Comparison(
        combine=_equalized_odds_difference,
        options=_AGG,
        summary="Disparity of equalized odds: the TPR and FPR disparities combined.",
        description="""\
Unsigned (``privileged_group=None``), with ``D_X = max_g X_g - min_g X_g``:
``agg="worst_case"`` gives ``max(D_TPR, D_FPR)`` and ``agg="mean"`` gives
``(D_TPR + D_FPR) / 2``, as fairlearn's ``equalized_odds_difference``.

Signed (``privileged_group`` given), the two components are oriented by the favourable
label, ``pos_label``: each is positive when the disadvantaged samples get the favourable
prediction less often than the privileged ones among the samples of the same true label,

- TPR component ``TPR(priv) - TPR(dis)``, which is :func:`false_negative_rate_difference`;
- FPR component ``FPR(priv) - FPR(dis)``, which is :func:`true_negative_rate_difference`
  (the negative of :func:`false_positive_rate_difference`).

``agg="worst_case"`` gives the component larger in size, sign kept (the FPR component on
ties), so the sign says which way the worse gap goes and does not change with which
component is larger: a disadvantaged side that gets the favourable prediction less often in
both components gives a positive value either way. Its size, ``max(|TPR component|, |FPR
component|)``, is the unsigned equalized-odds gap between the two sides. ``agg="mean"``
gives the mean of the two components, the negative of aif360's average odds difference
(:func:`average_odds_difference`, ``(ΔFPR + ΔTPR) / 2`` with ``ΔX = X(dis) - X(priv)``).

An undefined component (no positives or no negatives) is left out of the worst case and
makes the mean NaN.""",
        returns="""\
Signed in [-1, 1] with ``privileged_group`` (positive: the disadvantaged samples get the
favourable prediction less often), else in [0, 1]; NaN when no component is defined (or,
with ``agg="mean"``, one is not).""",
        see_also=(
            ("equalized_odds_ratio", "The same rates compared as ratios."),
            (
                "average_odds_difference",
                "The signed mean of the FPR and TPR disparities, as aif360.",
            ),
            ("false_negative_rate_difference", "The signed TPR component."),
            ("true_negative_rate_difference", "The signed FPR component."),
            ("equalized_odds_unfairness", "The multi-class version."),
        ),
        references=("hardt", "fairlearn"),
        example=(
            [1, 0, 1, 0, 1, 0],
            [1, 0, 0, 0, 1, 0],
            _HALVES,
            (
                ('privileged_group="b"', "0.5"),
                ('agg="mean"', "0.25"),
            ),
        ),
    ),
    "equalized_odds_ratio": Comparison(
        combine=_equalized_odds_ratio,
        kind="ratio",
        options=_AGG,
        summary="Ratio form of equalized odds: the TPR and FPR ratios combined.",
        description="""\
Unsigned (``privileged_group=None``), with ``R_X = min_g X_g / max_g X_g``:
``agg="worst_case"`` gives ``min(R_TPR, R_FPR)`` and ``agg="mean"`` gives
``(R_TPR + R_FPR) / 2``, as fairlearn's ``equalized_odds_ratio``.

With ``privileged_group``, ``r_X = X(dis) / X(priv)``: ``agg="worst_case"`` gives
whichever of ``r_TPR`` and ``r_FPR`` is further from parity (the smaller
``min(r, 1 / r)``; ``r_FPR`` on ties), and ``agg="mean"`` gives ``(r_TPR + r_FPR) / 2``.
An undefined component is left out of the worst case and makes the mean NaN.""",
        returns="1.0 means parity.",
        see_also=(("equalized_odds_difference", "The same comparison as a difference."),),
        references=("hardt", "fairlearn"),
        example=([1, 1, 0, 0, 1, 1, 0, 0], [1, 1, 1, 0, 1, 0, 1, 0], "aaaabbbb", (("", "0.5"),)),
    ),
    "average_odds_difference": Comparison(
        combine=functools.partial(_average_odds_difference, absolute=False),
        summary="Average odds difference: the mean of the FPR and TPR disparities, signed as "
        "aif360.",
        description="""\
With ``privileged_group``, returns ``((FPR(dis) - FPR(priv)) + (TPR(dis) - TPR(priv))) / 2``,
aif360's ``average_odds_difference``: the two parts can cancel (a group with more false
positives and more true positives gets 0). Without, returns ``(D_FPR + D_TPR) / 2`` with
``D_X = max_g X_g - min_g X_g``, which is fairlearn's ``equalized_odds_difference(
agg="mean")``.

With ``privileged_group`` it is the negative of :func:`equalized_odds_difference` with
``agg="mean"``, whose components are oriented by the favourable label (positive: the
disadvantaged samples get the favourable prediction less often).""",
        returns="""\
In [-1, 1] with ``privileged_group``, else in [0, 1]; NaN when a rate is undefined
on one side (no positives or no negatives).""",
        see_also=(
            ("average_abs_odds_difference", "The same with the absolute value of each part."),
            (
                "equalized_odds_difference",
                "The worst case (or mean) of the error-rate disparities.",
            ),
        ),
        references=("hardt", "aif360"),
        example=(
            [1, 1, 0, 0, 1, 1, 0, 0],
            [1, 1, 1, 0, 1, 0, 0, 0],
            "aaaabbbb",
            (('privileged_group="b"', "0.5"),),
        ),
    ),
    "average_abs_odds_difference": Comparison(
        combine=functools.partial(_average_odds_difference, absolute=True),
        summary="Average absolute odds difference: the mean of the absolute FPR and TPR "
        "disparities.",
        description="""\
With ``privileged_group``, returns ``(|FPR(dis) - FPR(priv)| + |TPR(dis) - TPR(priv)|) /
2``, aif360's ``average_abs_odds_difference`` (``average_odds_error`` in its scikit-learn
API); the parts cannot cancel. Without, returns ``(D_FPR + D_TPR) / 2`` as
:func:`average_odds_difference`.""",
        returns="In [0, 1]; NaN when a rate is undefined on one side.",
        see_also=(("average_odds_difference", "The signed version."),),
        references=("aif360",),
        example=(
            [1, 1, 0, 0, 1, 1, 0, 0],
            [1, 1, 0, 0, 1, 0, 1, 0],
            "aaaabbbb",
            (('privileged_group="b"', "0.5"),),
        ),
    ),
}
"""Every public rate comparison, by name; :func:`_comparison` builds each one."""

# ----------------------------------------------------------------------------------------------
# the factory


_PARAMETERS = {
    "y_true": ("array-like of shape (n_samples,)", "True class labels."),
    "y_pred": ("array-like of shape (n_samples,)", "Predicted class labels."),
    **PARAMETERS,
}
_IGNORED_Y_TRUE = ("array-like of shape (n_samples,) or None", "Ignored; may be None.")
_RETURNS = {
    "difference": "Signed difference in [-1, 1] with ``privileged_group``, else in [0, 1]. NaN, "
    "with an :class:`~sklearn.exceptions.UndefinedMetricWarning`, where fewer than two groups "
    "have a defined rate (or a compared side has none).",
    "ratio": "1.0 means parity. NaN, with an :class:`~sklearn.exceptions.UndefinedMetricWarning`, "
    "where fewer than two groups have a defined rate, a compared side has none, or the "
    "denominator is 0.",
}


def _signature(comparison):
    """The public signature: every rate comparison's, less ``pos_label`` for label-by-label
    rates, plus the comparison's options."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        inspect.Parameter("y_true", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("y_pred", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("sensitive_features", keyword),
        inspect.Parameter("privileged_group", keyword, default=None),
        inspect.Parameter("disadvantaged", keyword, default="pooled"),
        inspect.Parameter("pos_label", keyword, default=None),
        inspect.Parameter("sample_weight", keyword, default=None),
    ]
    if comparison.rate and RATES[comparison.rate].cells is None:
        parameters = [p for p in parameters if p.name != "pos_label"]
    parameters += [
        inspect.Parameter(name, keyword, default=option[0])
        for name, option in comparison.options.items()
    ]
    return inspect.Signature(parameters)


def _description(name, comparison):
    """Summary line and extended summary of a single-rate comparison, from its rate."""
    rate = RATES[comparison.rate]
    symbol = rate.symbol
    if comparison.kind == "difference":
        summary = f"{rate.title} disparity between groups."
        signed = f"``{symbol}(dis) - {symbol}(priv)``"
        unsigned = f"the largest gap ``max_g {symbol}_g - min_g {symbol}_g``"
    else:
        summary = f"{rate.title} ratio between groups."
        signed = f"``{symbol}(dis) / {symbol}(priv)``"
        unsigned = f"``min_g {symbol}_g / max_g {symbol}_g``"
    text = (
        f"{rate.definition}. With ``privileged_group``, returns {signed} "
        f"{comparison.signed_note}".rstrip()
        + f"; otherwise {unsigned} {comparison.unsigned_note}".rstrip()
        + "."
    )
    if rate.undefined:
        text += (
            f" A group without {rate.undefined} has an undefined {symbol}: it is left out, with "
            "a warning."
        )
    if comparison.kind == "ratio":
        text += " A zero denominator gives NaN with a warning."
    return summary, text


def _docstring(name, comparison, signature):
    """The numpydoc docstring of a generated comparison."""
    if comparison.rate:
        summary, description = _description(name, comparison)
        returns = _RETURNS[comparison.kind]
    else:
        summary, description = comparison.summary, comparison.description
        returns = comparison.returns
    parameters = []
    for parameter in signature.parameters:
        if parameter in comparison.options:
            kind, text = comparison.options[parameter][2:]
        elif parameter == "y_true" and comparison.rate == "selection_rate":
            kind, text = _IGNORED_Y_TRUE
        else:
            kind, text = _PARAMETERS[parameter]
        parameters.append((parameter, kind, text))
    return numpydoc(
        name,
        summary=summary,
        description=description,
        parameters=parameters,
        returns=returns,
        see_also=comparison.see_also,
        references=comparison.references,
        example=example(name, *comparison.example),
    )


def _comparison(name):
    """The public function ``name`` of :data:`COMPARISONS`: its signature, docstring,
    validation and dask plan."""
    comparison = COMPARISONS[name]
    signature = _signature(comparison)

    def metric(*args, **kwargs):
        arguments = signature.bind(*args, **kwargs)
        arguments.apply_defaults()
        arguments = dict(arguments.arguments)
        data = [arguments.pop(key) for key in ("y_true", "y_pred", "sensitive_features")]
        sides = {key: arguments.pop(key) for key in ("privileged_group", "disadvantaged")}
        labels = [arguments.pop("pos_label", None), arguments.pop("sample_weight")]
        if comparison.combine is None:
            return _compare_rate(comparison.rate, comparison.kind, *data, *labels, sides)
        combine = functools.partial(comparison.combine, **arguments)
        return _compare_odds(combine, *data, *labels, sides)

    metric.__name__ = metric.__qualname__ = name
    metric.__module__ = "skfair.metrics"
    metric.__signature__ = signature
    metric.__doc__ = _docstring(name, comparison, signature)
    constraints = {
        key: value for key, value in BINARY_CONSTRAINTS.items() if key in signature.parameters
    }
    constraints.update({key: option[1] for key, option in comparison.options.items()})
    plan = PREDICTION_TABLE if comparison.rate == "selection_rate" else LABEL_TABLE
    validated = validate_params(constraints, prefer_skip_nested_validation=True)(metric)
    return dask_dispatch(plan)(validated)


statistical_parity_difference = _comparison("statistical_parity_difference")
disparate_impact_ratio = _comparison("disparate_impact_ratio")
true_positive_rate_difference = _comparison("true_positive_rate_difference")
true_positive_rate_ratio = _comparison("true_positive_rate_ratio")
false_negative_rate_difference = _comparison("false_negative_rate_difference")
false_positive_rate_difference = _comparison("false_positive_rate_difference")
false_positive_rate_ratio = _comparison("false_positive_rate_ratio")
true_negative_rate_difference = _comparison("true_negative_rate_difference")
positive_predictive_value_difference = _comparison("positive_predictive_value_difference")
false_discovery_rate_difference = _comparison("false_discovery_rate_difference")
negative_predictive_value_difference = _comparison("negative_predictive_value_difference")
false_omission_rate_difference = _comparison("false_omission_rate_difference")
error_rate_ratio = _comparison("error_rate_ratio")
accuracy_difference = _comparison("accuracy_difference")
equalized_odds_difference = _comparison("equalized_odds_difference")
equalized_odds_ratio = _comparison("equalized_odds_ratio")
average_odds_difference = _comparison("average_odds_difference")
average_abs_odds_difference = _comparison("average_abs_odds_difference")
