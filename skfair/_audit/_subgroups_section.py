"""The audit section "which subgroups fare worst": subgroups found in the data, not named.

The other sections compare the groups of the sensitive attributes given on the command line.
This one searches every conjunction of up to ``max_level`` conditions on the evaluation rows'
features ("sex = Female & age in (37, 41]") for those in which a rate of the model is highest
compared with the rest of the rows (:func:`~skfair.subgroups.find_subgroups`, objective
``"gap"``), with Benjamini-Hochberg q-values over every subgroup evaluated. The search runs
once per audit (:func:`subgroup_search`); the section and the summary's findings
(:func:`subgroup_findings`) share it.

The features are turned into plain numpy columns the same way with and without pandas
(numbers as int64 or float64, other values as text, missing values None), so that the report
does not depend on the extras installed.
"""

from __future__ import annotations

import numpy as np

from skfair._audit._report import Estimate, Figure, PValue, Section, Table
from skfair.subgroups import find_subgroups
from skfair.subgroups._search import METRIC_CELLS

# The settings of the search; --subgroups-level, --subgroups-metric and --subgroups-columns
# change the first three.
DEFAULT_METRIC = "error_rate"
SUBGROUP_METRICS = tuple(METRIC_CELLS)
DEFAULT_LEVEL = 3
MIN_SUPPORT = 30
TOP = 10
ALPHA = 0.05
N_BINS = 10
# Subgroups listed in the summary's findings.
FINDINGS_TOP = 3
# A text column with more distinct values than this is left out when the columns are not
# named (an identifier or free text: each value a subgroup of a few rows).
MAX_VALUES = 100
_SEARCH = "subgroup_search"


def subgroup_search(context):
    """The report of :func:`~skfair.subgroups.find_subgroups` on the evaluation rows, computed
    once per audit, and the columns left out (name -> why).

    The settings come from ``context.subgroup_options`` (``columns``, ``max_level``,
    ``metric``; defaults :data:`DEFAULT_LEVEL`, :data:`DEFAULT_METRIC`, every feature).
    """
    if _SEARCH not in context.shared:
        options = context.subgroup_options
        features, left_out = _features(context, options.get("columns"))
        report = find_subgroups(
            context.y_test,
            context.y_pred,
            features=features,
            metric=options.get("metric", DEFAULT_METRIC),
            max_level=min(options.get("max_level", DEFAULT_LEVEL), len(features)),
            min_support=MIN_SUPPORT,
            k=TOP,
            alpha=ALPHA,
            n_bins=N_BINS,
            pos_label=1,
        )
        context.shared[_SEARCH] = (report, left_out)
    return context.shared[_SEARCH]


def subgroups_section(context):
    """Which subgroups fare worst? The conjunctions of feature values (e.g. "sex = Female & age in
    (37, 41]") in which the model's rate is furthest above the rest of the rows, found by an exact
    search and tested with control of the false discovery rate.
    """
    report, left_out = subgroup_search(context)
    metric = _metric_text(report.metric)
    rows = [
        [
            record["description"],
            int(record["n"]),
            float(record["value"]),
            float(record["rest_value"]),
            Estimate(
                float(record["gap"]),
                float(record["gap_low"]),
                float(record["gap_high"]),
                signed=True,
            ),
            PValue(record["p_value"]),
            PValue(record["q_value"]),
        ]
        for record in report.subgroups
    ]
    confidence = f"{1 - report.alpha:.0%}"
    significant = sum(record["significant"] for record in report.subgroups)
    table = Table(
        ["subgroup", "rows", metric, "rest", f"gap [{confidence} CI]", "p-value", "q-value"],
        rows,
        digits=3,
        caption=(
            f"The {len(rows)} subgroups with the highest {metric} compared with the rest of "
            f"the rows (overall {report.overall_value:.3f}), of {report.n_tests:,} tested; "
            f"{significant} with q <= {report.alpha:g}"
        ),
        group_rows=True,
    )
    columns = ", ".join(
        column.name if column.edges is None else f"{column.name} ({column.n_values} bins)"
        for column in report.columns
        if column.n_values > 1
    )
    notes = [
        f"Searched: every conjunction of up to {report.max_level} conditions on distinct "
        f"columns among {columns}; numeric columns with more than {N_BINS} values are cut "
        f"into {N_BINS} quantile bins (the bin edges are in the conditions), missing values "
        f"are a value of their own. rows: the subgroup's evaluation rows, at least "
        f"{MIN_SUPPORT} of them behind the rate (e.g. rows with y=1 for a true or false "
        "negative rate); rest: the rate on all other evaluation rows.",
        f"Ranked by the lower end of the gap's one-sided {confidence} confidence bound, so "
        "that a large gap on few rows does not outrank a slightly smaller one on many. "
        "p-value: the gap tested against the rest of the rows (pooled two-proportion z-test, "
        "Fisher's exact test for small counts); q-value: Benjamini-Hochberg adjusted over "
        f"all {report.n_tests:,} subgroups evaluated (each set of rows once), so that at "
        f"most {report.alpha:g} of the subgroups with q <= {report.alpha:g} are expected "
        "to be false discoveries. Overlapping subgroups (e.g. a value and its refinements) "
        "are listed separately. The gap's interval is Newcombe's hybrid score interval "
        "(Wilson's limits of the subgroup's and the rest's rates).",
        "Options: --subgroups-columns COL ..., --subgroups-level N, --subgroups-metric "
        "NAME (e.g. false_negative_rate: the favourable outcome missed among rows with y=1).",
    ]
    for name, why in left_out.items():
        notes.append(f"Column {name} left out: {why}.")
    collapsed = [c.name for c in report.columns if c.edges is not None and c.n_values == 1]
    if collapsed:
        notes.append(
            f"{', '.join(collapsed)}: no subgroup, as the quantiles coincide (one value holds "
            "most rows), which leaves a single bin."
        )
    figures = []
    if rows:
        figures.append(
            Figure(
                f"The gaps of the {len(rows)} subgroups ({metric} in the subgroup minus the "
                f"rest) with their {confidence} intervals; filled: q <= {report.alpha:g}",
                lambda: _display(report),
            )
        )
    return Section(blocks=[table], notes=notes, figures=figures, data={"report": report})


def subgroup_findings(context):
    """The summary's line on the worst subgroups (``{title: sentence}``), when the subgroups
    section is part of the report; ``{}`` otherwise."""
    if "subgroups" not in context.shown_sections:
        return {}
    try:
        report, _ = subgroup_search(context)
    except (ValueError, MemoryError) as error:  # reported in full by the section itself
        return {"subgroups": f"the search failed ({error})."}
    metric = _metric_text(report.metric)
    title = f"subgroups ({metric})"
    significant = [record for record in report.subgroups if record["significant"]]
    if not significant:
        return {
            title: f"no subgroup of up to {report.max_level} conditions has a {metric} "
            f"significantly above the rest (q <= {report.alpha:g} over {report.n_tests:,} "
            "subgroups tested)."
        }
    listed = "; ".join(
        f"{record['description']}: {record['value']:.3f} vs {record['rest_value']:.3f} "
        f"(rows {record['n']:,}, q = {_q_text(record['q_value'])})"
        for record in significant[:FINDINGS_TOP]
    )
    return {
        title: f"highest above the rest ({report.overall_value:.3f} overall), of "
        f"{report.n_tests:,} subgroups tested: {listed}; {len(significant)} of the "
        f"{len(report.subgroups)} listed have q <= {report.alpha:g}."
    }


def _q_text(value):
    return "< 1e-300" if value == 0 else f"{value:.2g}"


def _metric_text(metric):
    return str(metric).replace("_", " ")


def _display(report):
    from skfair.plotting import SubgroupDisplay

    return SubgroupDisplay.from_report(report)


def _features(context, names):
    """The columns searched, as a dict of plain numpy columns, and those left out.

    ``names`` (None: every feature, and the sensitive attributes that are no feature) are
    looked up among the features, then the sensitive attributes. Unless named, a column
    with a single value, or text with more than :data:`MAX_VALUES` values, is left out.
    """
    available = _feature_columns(context)
    for name, values in context.sensitive.items():
        available.setdefault(name, np.asarray(values, dtype=object))
    if names is not None:
        unknown = [name for name in names if name not in available]
        if unknown:
            raise ValueError(
                f"--subgroups-columns names {unknown}, which are not columns of the evaluation "
                f"data; its columns are {list(available)}."
            )
        return {name: _plain_column(available[name]) for name in names}, {}
    features, left_out = {}, {}
    for name, values in available.items():
        column = _plain_column(values)
        distinct = len(set(column.tolist()))
        if distinct < 2:
            left_out[name] = "a single value"
        elif column.dtype == object and distinct > MAX_VALUES:
            left_out[name] = (
                f"{distinct:,} distinct values (more than {MAX_VALUES}), each a subgroup of few "
                "rows; name it with --subgroups-columns to search it anyway"
            )
        else:
            features[name] = column
    if not features:
        raise ValueError(
            "no feature column has at least two values to define subgroups; name columns with "
            "--subgroups-columns."
        )
    return features, left_out


def _feature_columns(context):
    """The evaluation features by name (a DataFrame's columns or the named array columns)."""
    X = context.X_test
    if hasattr(X, "columns"):
        return {str(name): X[name].to_numpy() for name in X.columns}
    names = context.feature_names
    if names is None:
        return {}
    X = np.asarray(X, dtype=object)
    return {name: X[:, j] for j, name in enumerate(names)}


def _plain_column(values):
    """A column as int64 (integral numbers, none missing), float64 (numbers, NaN for missing)
    or text (None for missing): the same whether it came from pandas or an object array."""
    values = np.asarray(values)
    items = values.tolist()
    if values.dtype.kind in "iuf" or all(
        isinstance(item, (int, float, np.number)) and not isinstance(item, (bool, np.bool_))
        for item in items
    ):
        numbers = np.asarray(items, dtype=np.float64)
        if not np.isnan(numbers).any() and np.array_equal(numbers, np.round(numbers)):
            return numbers.astype(np.int64)
        return numbers
    return np.array(
        [None if item is None or item != item else str(item) for item in items], dtype=object
    )
