"""The executive summary: who is treated differently, by how much, and how sure we are.

For each sensitive attribute and for their intersection, one :class:`~skfair.metrics.MetricTable`
with exact intervals gives every group's selection rate, true positive rate and false
positive rate, and the gap of each to a reference group (the privileged group named with
``--privileged``, else the largest group); each gap gets a verdict by :func:`verdict`, whose
rules (:data:`VERDICT_RULES`) are printed with the tables.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from skfair._audit._report import Estimate, Fields, Section, Table, Verdict
from skfair._audit._subgroups_section import subgroup_findings
from skfair._utils._groups import group_text
from skfair.metrics import MetricTable

# (MetricTable named rate, label in the tables, the rows it is computed on)
RATES = [
    ("selection_rate", "selection rate", "all rows"),
    ("true_positive_rate", "TPR", "rows with y=1"),
    ("false_positive_rate", "FPR", "rows with y=0"),
]
CI = 0.95
# The intervals: MetricTable's default, named in the report.
CI_METHOD = (
    "Clopper-Pearson (exact) intervals of the rates; a gap's interval combines the group's "
    "and the reference group's by Newcombe's MOVER (hybrid score) method"
)
# Cut-offs of the verdicts: rules of thumb for a gap between two rates, not tests.
SMALL_GAP = 0.05
LARGE_GAP = 0.10
# Below this many rows behind a rate (in the group or the reference group), the cut-offs (rules
# of thumb for a gap) are not meant to be read, so no verdict is given.
MIN_ROWS = 30

VERDICT_RULES = [
    (
        "too few rows",
        f"fewer than {MIN_ROWS} rows behind the rate, in the group or in the reference group",
    ),
    (
        "large gap",
        f"|gap| >= {LARGE_GAP:.2f} and the whole interval beyond {SMALL_GAP:.2f} on one side",
    ),
    ("moderate gap", f"|gap| >= {SMALL_GAP:.2f} and the interval excludes 0"),
    ("small gap", f"|gap| < {SMALL_GAP:.2f} and the interval excludes 0"),
    ("about equal", f"the interval lies within -{SMALL_GAP:.2f} .. +{SMALL_GAP:.2f}"),
    ("unclear", f"the interval holds 0 and reaches beyond {SMALL_GAP:.2f}: more rows needed"),
]
"""(verdict, rule): the first rule that holds gives the verdict."""
VERDICTS = [name for name, _ in VERDICT_RULES]


def verdict(gap, low, high, rows, reference_rows):
    """The verdict on one gap, by the first rule of :data:`VERDICT_RULES` that holds.

    Parameters
    ----------
    gap, low, high : float
        The gap (group minus reference) and its confidence interval.
    rows, reference_rows : int
        The rows the rate is computed on in the group and in the reference group.
    """
    if min(rows, reference_rows) < MIN_ROWS or np.isnan([gap, low, high]).any():
        return "too few rows"
    excludes_zero = low > 0 or high < 0
    if abs(gap) >= LARGE_GAP and (low > SMALL_GAP or high < -SMALL_GAP):
        return "large gap"
    if abs(gap) >= SMALL_GAP and excludes_zero:
        return "moderate gap"
    if excludes_zero:
        return "small gap"
    if low > -SMALL_GAP and high < SMALL_GAP:
        return "about equal"
    return "unclear"


def compared_columns(context):
    """(title, sensitive features, privileged group or None): each attribute, then all jointly.

    The joint column (several attributes) has the tuples of their values as groups.
    """
    columns = [
        (name, values, context.privileged.get(name)) for name, values in context.sensitive.items()
    ]
    if len(columns) > 1:
        columns.append((" & ".join(context.sensitive), dict(context.sensitive), None))
    return columns


def summary_section(context):
    """Who is treated differently, by how much, and how sure are we? Each group's rates, their gap
    to a reference group, and a verdict that takes the uncertainty into account.

    The first section of the report (see the module's docstring).
    """
    y, y_pred = context.y_test, context.y_pred
    audited = dict(context.description)
    audited["overall"] = (
        f"{y.shape[0]:,} evaluation rows, accuracy {np.mean(y == y_pred):.3f}, "
        f"base rate {y.mean():.3f}, selection rate {y_pred.mean():.3f}"
    )
    if context.y_score is None and "scores" not in audited:
        audited["scores"] = "none: the model has neither predict_proba nor decision_function"
    findings, tables = {}, []
    for title, values, reference_label, why in _references(context):
        result = _compare(context, values, reference_label)
        reference = group_text(result.reference)
        findings[title] = _finding(result, reference)
        tables.append(
            Table(
                [
                    "group",
                    "rate",
                    "rows",
                    f"value [{CI:.0%} CI]",
                    f"gap to {reference} [{CI:.0%} CI]",
                    "verdict",
                ],
                result.rows,
                digits=3,
                name=title,
                caption=f"{title}: reference group {reference} ({why})",
                group_rows=True,
            )
        )
    findings.update(subgroup_findings(context))
    rules = Table(
        ["verdict", "rule (the first that holds)"],
        [[Verdict(name), rule] for name, rule in VERDICT_RULES],
        caption=(
            "How a gap (a group's rate minus the reference group's) is read, with its "
            f"{CI:.0%} interval ({CI_METHOD})"
        ),
    )
    notes = [
        "selection rate = P(y_pred=1), TPR = P(y_pred=1 | y=1), FPR = P(y_pred=1 | y=0); 1 is "
        "the favourable outcome. rows: the rows a rate is computed on (all the group's rows, "
        "its rows with y=1, its rows with y=0).",
        f"Intervals: {CI:.0%} {CI_METHOD}: a rate's interval holds its true value in at least "
        f"{CI:.0%} of samples whatever the group's size, and the gap's interval holds the "
        "uncertainty of both groups. The cut-offs are rules of thumb, not statistical tests; "
        "with many groups some gaps pass by chance.",
        "The sections below answer narrower questions, each opening with the one it answers; "
        "the per-group rates show these intervals as figures.",
    ]
    return Section(
        blocks=[
            Fields(findings, caption="Findings"),
            Fields(audited, caption="What was audited"),
            rules,
            *tables,
        ],
        notes=notes,
    )


def _references(context):
    """(title, sensitive features, reference label or None, why it is the reference)."""
    for title, values, privileged in compared_columns(context):
        if privileged is not None:
            yield title, values, privileged, "the privileged group, from --privileged"
        elif isinstance(values, dict) and _privileged_rows(context).any():
            yield (
                title,
                values,
                tuple(context.privileged[name] for name in values),
                "the privileged groups of the attributes, from --privileged",
            )
        else:
            option = "" if isinstance(values, dict) else f"; --privileged {title}=VALUE names one"
            yield title, values, None, f"the largest group{option}"


def _privileged_rows(context):
    """The rows in the privileged group of every attribute (none unless each has one)."""
    if set(context.privileged) != set(context.sensitive):
        return np.zeros(0, dtype=bool)
    return np.logical_and.reduce(
        [
            np.asarray(values).astype(str) == str(context.privileged[name])
            for name, values in context.sensitive.items()
        ]
    )


def _compare(context, values, reference):
    """Rates, gaps and verdicts of one column, from one MetricTable with intervals."""
    table = MetricTable(
        ["base_rate"] + [rate for rate, _, _ in RATES],
        context.y_test,
        context.y_pred,
        sensitive_features=values,
        pos_label=1,
        ci=CI,
    )
    counts = np.asarray(table.counts)
    labels = [group_text(label) for label in table.groups]
    # The largest group (the first of them), or the one named (as text: csv values are text).
    reference_index = (
        int(np.argmax(counts)) if reference is None else labels.index(group_text(reference))
    )
    reference = table.groups[reference_index]
    gaps = table.difference_to(reference)
    values_, (low, high) = table.by_group, table.confidence_interval("by_group")
    gap_low, gap_high = table.confidence_interval("difference_to", reference=reference)
    positives = np.rint(values_[:, 0] * counts).astype(np.int64)
    rows_behind = np.column_stack([counts, positives, counts - positives])
    order = [reference_index] + [g for g in range(len(counts)) if g != reference_index]
    rows, verdicts = [], []
    for g in order:
        label = labels[g]
        for k, (_, rate_title, _) in enumerate(RATES):
            j = k + 1  # column in the table (after base_rate)
            rate = Estimate(float(values_[g, j]), float(low[g, j]), float(high[g, j]))
            if g == reference_index:
                rows.append(
                    [label, rate_title, int(rows_behind[g, k]), rate, None, Verdict("reference")]
                )
                continue
            gap = Estimate(
                float(gaps[g, j]), float(gap_low[g, j]), float(gap_high[g, j]), signed=True
            )
            decision = verdict(
                gap.value,
                gap.low,
                gap.high,
                rows_behind[g, k],
                rows_behind[reference_index, k],
            )
            rows.append([label, rate_title, int(rows_behind[g, k]), rate, gap, Verdict(decision)])
            verdicts.append((decision, label, rate_title, gap))
    return Bunch(
        reference=table.groups[reference_index],
        rows=rows,
        verdicts=verdicts,
    )


def _finding(result, reference):
    """One sentence: the large gaps (the largest first), then how many of each other verdict."""
    counts = {name: 0 for name in VERDICTS}
    for decision, *_ in result.verdicts:
        counts[decision] += 1
    total = len(result.verdicts)
    worst = next((name for name in ("large gap", "moderate gap") if counts[name]), None)
    if worst is None:
        sentence = f"vs {reference}: no large or moderate gap in {total} rates"
    else:
        listed = sorted(
            (item for item in result.verdicts if item[0] == worst),
            key=lambda item: -abs(item[3].value),
        )
        shown = ", ".join(
            f"{label} {rate} {_signed(gap.value)} [{_signed(gap.low)}, {_signed(gap.high)}]"
            for _, label, rate, gap in listed[:3]
        )
        more = f" and {len(listed) - 3} more" if len(listed) > 3 else ""
        sentence = f"vs {reference}: {worst} in {len(listed)} of {total} rates: {shown}{more}"
    others = [f"{name}: {counts[name]}" for name in VERDICTS if counts[name] and name != worst]
    return sentence + ("; other rates: " + ", ".join(others) if others else "") + "."


def _signed(value):
    return f"{value:+.3f}"
