"""The audit's sections: each takes the context and returns a :class:`Section` of data.

A section is a function ``section(context) -> Section``; :data:`SECTIONS` maps its
command-line name to a title and the function. To add one, write the function and add one
entry to :data:`SECTIONS`: the renderers show its ``lead`` (one sentence on what it answers;
by default the first paragraph of the function's docstring), tables, notes and figures
(:class:`~skfair._audit._report.Figure`) in every format. A section that cannot run in a given
context (no scores, no training data) returns ``Section(message=...)`` saying why. Keep
sections fast (the whole audit should run in well under a minute on two cores) and seed every
random choice with ``context.random_state``. Sections that need the training data
(``context.X_train`` ...) must handle None: with ``--model`` the whole file is evaluation data.
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
from sklearn.base import clone
from sklearn.utils import Bunch

from skfair._audit._context import in_row_blocks, score_reader
from skfair._audit._data_repair_section import data_repair_section
from skfair._audit._report import Figure, GroupSizes, Interval, IntRange, Section, Table
from skfair._audit._subgroups_section import subgroups_section
from skfair._audit._summary import CI, compared_columns, summary_section
from skfair._audit._training_section import training_section
from skfair._stats._aggregate import group_mean_difference
from skfair._utils._groups import factorize_groups, group_text
from skfair._utils._random import check_generator
from skfair._utils._response import auto_threshold
from skfair.ensemble import BootstrapEnsemble
from skfair.metrics import (
    MetricTable,
    equalized_odds_difference,
    hfm_details,
    ks_bias,
    label_stability,
    madd_bandwidth_search,
    statistical_parity_difference,
    wasserstein_bias,
)
from skfair.metrics._rates import equalized_odds_components

NO_SCORES = "n/a: the model gives no scores (neither predict_proba nor decision_function)."


# (MetricTable named rate, column title)
_GROUP_RATES = [
    ("base_rate", "base rate"),
    ("selection_rate", "selection rate"),
    ("true_positive_rate", "TPR"),
    ("false_positive_rate", "FPR"),
    ("accuracy", "accuracy"),
]


def groups_section(context):
    """How often does each group have the favourable outcome, in the data (base rate) and from the
    model (selection rate), and how accurate is the model for it?

    Per-group table of counts and rates, one table per sensitive attribute and jointly, and
    figures of the selection rate, TPR and FPR with their Clopper-Pearson intervals.
    """
    tables, figures = [], []
    for name, values, _ in compared_columns(context):
        table = MetricTable(
            [rate for rate, _ in _GROUP_RATES],
            context.y_test,
            context.y_pred,
            sensitive_features=values,
            pos_label=1,
            ci=CI,
        )
        counts, by_group = table.counts, table.by_group
        rows = [
            [group_text(label), int(counts[g]), float(counts[g] / counts.sum())]
            + [float(value) for value in by_group[g]]
            for g, label in enumerate(table.groups)
        ]
        header = [name, "n", "share"] + [title for _, title in _GROUP_RATES]
        tables.append(Table(header, rows, digits=3, name=name))
        figures.append(
            Figure(
                f"{name}: each group's selection rate, TPR and FPR with {CI:.0%} "
                "Clopper-Pearson intervals (the summary's intervals; dotted: all rows)",
                partial(_rates_display, table),
            )
        )
    note = (
        "base rate = P(y=1), selection rate = P(y_pred=1), TPR = P(y_pred=1 | y=1), "
        "FPR = P(y_pred=1 | y=0); 1 is the favourable outcome; n/a: no row to divide by."
    )
    return Section(
        blocks=tables,
        notes=[note],
        figures=figures,
    )


def _rates_display(table):
    """The GroupRatesDisplay of one MetricTable: each group's rates with their intervals."""
    from skfair.plotting import GroupRatesDisplay

    low, high = table.confidence_interval("by_group")
    counts = np.asarray(table.counts)
    summaries = [
        Bunch(
            metric=rate,
            groups=[group_text(label) for label in table.groups],
            value=table.by_group[:, k],
            ci_low=low[:, k],
            ci_high=high[:, k],
            count=counts,
            overall=table.overall[k],
        )
        for k, (rate, _) in enumerate(_GROUP_RATES)
        if rate in ("selection_rate", "true_positive_rate", "false_positive_rate")
    ]
    return GroupRatesDisplay(summaries=summaries).plot()


# The disparity rows, read off one MetricTable of these rates per column.
_DISPARITY_RATES = [
    "selection_rate",
    "true_positive_rate",
    "false_positive_rate",
    "false_negative_rate",
    "accuracy",
]
# (row, the skfair.metrics function it equals; the last equalized-odds row is its size)
_DISPARITY_METRICS = [
    ("statistical_parity_difference", "statistical_parity_difference"),
    ("disparate_impact_ratio", "disparate_impact_ratio"),
    ("true_positive_rate_difference", "true_positive_rate_difference"),
    ("false_positive_rate_difference", "false_positive_rate_difference"),
    ("equalized odds: TPR component", "false_negative_rate_difference"),
    ("equalized odds: FPR component", "true_negative_rate_difference"),
    ("equalized odds: max |component|", "equalized_odds_difference"),
    ("accuracy_difference", "accuracy_difference"),
]


def _disparities(y_true, y_pred, values, privileged):
    """The values of :data:`_DISPARITY_METRICS` for one column, from one count table.

    Each equals the :mod:`skfair.metrics` function of its row (signed with a privileged
    group, else the largest gap between two groups); the components of equalized odds are
    oriented by :func:`~skfair.metrics._rates.equalized_odds_components`, and the last
    equalized-odds row is the size of ``equalized_odds_difference``, the larger component.
    """
    table = MetricTable(
        _DISPARITY_RATES,
        y_true,
        y_pred,
        sensitive_features=values,
        privileged_group=privileged,
        pos_label=1,
    )
    selection, tpr, fpr, fnr, accuracy = table.difference()
    tpr_part, fpr_part = equalized_odds_components(fpr, fnr, signed=privileged is not None)
    sizes = np.abs([tpr_part, fpr_part])
    size = np.nan if np.isnan(sizes).all() else float(np.nanmax(sizes))
    return [selection, table.ratio()[0], tpr, fpr, tpr_part, fpr_part, size, accuracy]


def disparities_section(context):
    """How large are the usual disparity metrics of the decisions (fairlearn's and aif360's
    definitions), per attribute and for the intersection?

    Disparity metrics of the predictions, one column per attribute and their intersection.

    Attributes with a privileged group get signed values (disadvantaged minus privileged, or
    their ratio); the others, and the intersection, the largest gap between any two groups.
    """
    columns = compared_columns(context)
    values_by_column = [
        _disparities(context.y_test, context.y_pred, values, privileged)
        for _, values, privileged in columns
    ]
    rows = [
        [row] + [float(values[k]) for values in values_by_column]
        for k, (row, _) in enumerate(_DISPARITY_METRICS)
    ]
    sizes = ["groups (smallest n)"]
    for _, values, _ in columns:
        counts = factorize_groups(values).counts()
        sizes.append(GroupSizes(int(counts.size), int(counts.min())))
    rows.append(sizes)
    unsigned = [name for name, _, privileged in columns if privileged is None]
    notes = []
    if unsigned:
        notes.append(
            f"{', '.join(unsigned)}: largest gap between any two groups, unsigned; ratio = "
            "smallest over largest selection rate. --privileged COL=VALUE gives signed values."
        )
    notes.extend(
        f"{name}: disadvantaged (all groups but {privileged!r}) minus privileged "
        f"({privileged!r}); ratio = disadvantaged over privileged selection rate."
        for name, _, privileged in columns
        if privileged is not None
    )
    notes.append(
        "Parity is 0 for differences and 1 for the ratio (the four-fifths rule asks for a "
        "ratio of at least 0.8). Equalized odds: its TPR component (false_negative_rate_"
        "difference, TPR(priv) - TPR(dis)) and FPR component (true_negative_rate_difference, "
        "FPR(priv) - FPR(dis)) are positive when the disadvantaged groups get the favourable "
        "outcome less often among the rows of the same true label (unsigned: the largest gaps); "
        "max |component| is the size of equalized_odds_difference, which keeps the larger "
        "component's sign. A largest gap between any two groups is driven by the smallest groups, "
        "whose rates are the least certain"
        + (
            ": the summary gives each group's gap to one reference group with its interval."
            if "summary" in context.shown_sections
            else "."
        )
    )
    table = Table(["metric"] + [name for name, _, _ in columns], rows)
    return Section(
        blocks=[table],
        notes=notes,
    )


# (row label, metric, keyword arguments)
_SCORE_METRICS = [
    ("wasserstein_bias (total)", wasserstein_bias, {"part": "total"}),
    ("wasserstein_bias (positive)", wasserstein_bias, {"part": "positive"}),
    ("wasserstein_bias (negative)", wasserstein_bias, {"part": "negative"}),
    ("wasserstein_bias (net)", wasserstein_bias, {"part": "net"}),
    ("wasserstein_bias (total | y)", wasserstein_bias, {"condition_on_y": True}),
    ("ks_bias (total)", ks_bias, {"part": "total"}),
]


def scores_section(context):
    """Do the groups' score distributions differ, beyond the decisions at the threshold?

    Distribution-level bias of the scores (Wasserstein-1 and Kolmogorov-Smirnov).
    """
    if context.y_score is None:
        return Section(message=NO_SCORES)
    columns = compared_columns(context)
    rows = []
    for label, metric, kwargs in _SCORE_METRICS:
        row = [label]
        for _, values, privileged in columns:
            extra = {} if privileged is None else {"privileged_group": privileged}
            value = metric(
                context.y_test, context.y_score, sensitive_features=values, **kwargs, **extra
            )
            row.append(float(value))
        rows.append(row)
    note = (
        "Distances between the groups' distributions of the favourable-class score, not of "
        "the thresholded predictions. total = positive + negative: positive is the transport "
        "where the privileged group (else, for each pair, the group with the higher mean "
        "score) gets the higher score, negative where the other group does; net = positive - "
        "negative. '| y' compares the groups within each true class (equalized-odds type). "
        "With more than two groups each row is its largest value over pairs of groups, so the "
        "parts can come from different pairs."
    )
    table = Table(["metric"] + [name for name, _, _ in columns], rows)
    figures = [
        Figure(
            f"{name}: cumulative distribution of each group's scores (W1 is the area between "
            "two curves, KS their largest vertical gap)",
            partial(_score_display, context.y_score, values),
        )
        for name, values in context.sensitive.items()
    ]
    return Section(
        blocks=[table],
        notes=[note],
        figures=figures,
    )


def _score_display(scores, values, repaired=None):
    """The groups' cumulative score distributions (a density is a spike near 0 or 1)."""
    from skfair.plotting import ScoreDistributionDisplay

    return ScoreDistributionDisplay.from_predictions(
        scores, sensitive_features=values, repaired=repaired, kind="cdf"
    )


def _convention_note(context):
    """How the differences of :func:`compared_columns` are signed, naming only those shown."""
    columns = compared_columns(context)
    unsigned = [name for name, _, privileged in columns if privileged is None]
    signed = [name for name, _, privileged in columns if privileged is not None]
    parts = []
    if unsigned:
        parts.append(f"{', '.join(unsigned)}: the largest gap between any two groups, unsigned.")
    if signed:
        parts.append(
            f"{', '.join(signed)}: disadvantaged minus privileged groups, signed as in the "
            "disparity metrics."
        )
    return " ".join(parts)


# Most groups per column the MADD section compares (1,225 pairs).
_MAX_MADD_GROUPS = 50


def madd_section(context):
    """How far apart are the groups' distributions of predicted probabilities, measured so that the
    result does not hinge on a histogram bandwidth (MADD)?

    MADD of the score distributions at the optimal bandwidth (Verger et al., JEDM 2024).

    One row per attribute and their intersection: the stable MADD of the worst pair of groups,
    the mean stable MADD over all pairs, the stable bandwidth interval and its bin counts,
    h_sup; a second table names the worst pairs.
    """
    if context.y_score is None:
        return Section(message=NO_SCORES)
    scores = np.asarray(context.y_score, dtype=np.float64)
    if scores.min() < 0 or scores.max() > 1:
        return Section(
            message="n/a: MADD compares probabilities in [0, 1]; the model only gives "
            "decision_function."
        )
    columns = list(context.sensitive.items())
    if len(columns) > 1:
        columns.append((" & ".join(context.sensitive), dict(context.sensitive)))
    rows, pairs, results = [], [], {}
    for name, values in columns:
        n_groups = factorize_groups(values).counts().size
        if n_groups > _MAX_MADD_GROUPS:
            # Every pair of groups gets a histogram per bandwidth: memory grows with groups².
            rows.append([name] + [np.nan] * 5)
            pairs.append([name, f"not compared: {n_groups} groups (over {_MAX_MADD_GROUPS})"])
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # small groups: noted below
                result = madd_bandwidth_search(None, scores, sensitive_features=values)
        except ValueError as error:  # no eligible interval for a pair of tiny groups
            rows.append([name] + [np.nan] * 5)
            pairs.append([name, str(error).split(":")[0]])
            continue
        results[name] = result
        low, high = result.interval
        rows.append(
            [
                name,
                float(result.value),
                float(np.mean([p.value for p in result.pairs])),
                Interval(float(low), float(high)),
                IntRange(int(result.bins_interval[0]), int(result.bins_interval[1])),
                float(result.h_sup),
            ]
        )
        pairs.append([name, " vs ".join(group_text(label) for label in result.worst_pair)])
    note = (
        "MADD is the L1 distance between two groups' histograms of predicted probabilities "
        "(0: same distribution, 2: disjoint), averaged over the bandwidth interval where it is "
        "most stable (Algorithm 1; the interval shrinks with the group sizes, like h_sup). "
        "Pairs with fewer than 50 rows in a group are dominated by sampling noise. "
        "skfair.postprocessing.MADDRepair(lam=...) shrinks every pairwise MADD by (1 - lam)."
    )
    if any(factorize_groups(v).counts().size > _MAX_MADD_GROUPS for _, v in columns):
        note += (
            f" Columns with more than {_MAX_MADD_GROUPS} groups are not compared (the pairs "
            "grow with the square of the groups); group such a column first (--bins COL=K)."
        )
    header = ["attribute", "MADD (worst pair)", "MADD (mean of pairs)"]
    header += ["stable interval h", "bins", "h_sup"]
    blocks = [Table(header, rows), Table(["attribute", "worst pair"], pairs)]
    figures = [
        Figure(
            f"{name}: histograms of the worst pair and MADD against the bandwidth "
            "(shaded: the stable interval)",
            partial(_madd_display, scores, dict(columns)[name]),
        )
        for name in results
    ]
    return Section(
        blocks=blocks,
        notes=[note],
        figures=figures,
    )


def _madd_display(scores, values):
    """MADDDisplay without the small-group warning that the MADD section's note gives."""
    from skfair.plotting import MADDDisplay

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return MADDDisplay.from_predictions(None, scores, sensitive_features=values)


def _alternating_halves(cells, random_state):
    """A random half of the rows (a boolean mask), alternating inside each cell.

    The rows of each cell take turns in random order, so both halves hold every cell of two
    rows or more, in about equal parts.
    """
    rng = check_generator(random_state)
    order = np.lexsort((rng.random(cells.size), cells))
    starts = np.searchsorted(cells[order], cells[order], side="left")
    half = np.empty(cells.size, dtype=bool)
    half[order] = (np.arange(cells.size) - starts) % 2 == 1
    return half


def repair_section(context):
    """How much of the gaps would a repair of the scores (every group moved to a common score
    distribution) remove, and at what cost in accuracy?

    Disparities before and after a Wasserstein-barycenter repair of the model's scores.

    The repair (:class:`~skfair.postprocessing.BarycenterRepair`, groups = the joint cells of
    all sensitive attributes) is cross-fitted on the evaluation rows: each half is repaired
    with the map fitted on the other half, so every repaired score is out of sample.
    """
    if context.y_score is None:
        return Section(message="n/a: the model gives no scores to repair.")
    from skfair.postprocessing import BarycenterRepair

    threshold = auto_threshold(score_reader(context.model, context.favourable_class()).method)
    cells = factorize_groups(dict(context.sensitive)).codes
    half = _alternating_halves(cells, context.random_state)
    if half.all() or not half.any():
        return Section(
            message=f"n/a: cross-fitting the repair needs a group with two evaluation rows or "
            f"more; the {cells.size} evaluation rows are too few."
        )
    scores = np.asarray(context.y_score, dtype=np.float64)
    repaired = scores.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # small cells; one-row cells stay as is
        for fit_rows in (half, ~half):
            repair = BarycenterRepair(handle_unknown="identity", random_state=context.random_state)
            repair.fit(scores[fit_rows, None], sensitive_features=cells[fit_rows])
            repaired[~fit_rows] = repair.transform(
                scores[~fit_rows, None], sensitive_features=cells[~fit_rows]
            )[:, 0]
    y_repaired = (repaired >= threshold).astype(np.int64)
    rows = []
    for name, values, privileged in compared_columns(context):
        # Signed as in the disparities section when the attribute has a privileged group.
        kwargs = {} if privileged is None else {"privileged_group": privileged}
        for metric, before, after in (
            (ks_bias, scores, repaired),
            (statistical_parity_difference, context.y_pred, y_repaired),
            (equalized_odds_difference, context.y_pred, y_repaired),
        ):
            rows.append(
                [
                    metric.__name__,
                    name,
                    float(metric(context.y_test, before, sensitive_features=values, **kwargs)),
                    float(metric(context.y_test, after, sensitive_features=values, **kwargs)),
                ]
            )
    rows.append(
        [
            "accuracy",
            "(all rows)",
            float(np.mean(context.y_pred == context.y_test)),
            float(np.mean(y_repaired == context.y_test)),
        ]
    )
    note = (
        f"after = BarycenterRepair (epsilon=0) of the scores over the joint groups, "
        f"cross-fitted on two halves of the evaluation rows, thresholded at {threshold}. "
        + _convention_note(context)
        + " ks_bias compares the score distributions. The repair equalises the score "
        "distributions of the joint groups (demographic parity); it does not target equalized "
        "odds."
    )
    table = Table(["metric", "attribute", "before", "after"], rows)
    figures = [
        Figure(
            f"{name}: cumulative score distributions before and after the cross-fitted "
            "barycenter repair",
            partial(_score_display, scores, values, repaired=repaired),
        )
        for name, values in context.sensitive.items()
    ]
    return Section(
        blocks=[table],
        notes=[note],
        figures=figures,
    )


# The constraint of the thresholds section: equal true and false positive rates.
THRESHOLD_CONSTRAINT = "equalized_odds"


def thresholds_section(context):
    """How far would group-specific decision thresholds on the same model close the gaps in true and
    false positive rates, and at what cost in accuracy?

    Disparities and accuracy before and after group-specific decision thresholds.

    :class:`~skfair.postprocessing.GroupThresholdClassifier` keeps the model (through
    :class:`~sklearn.frozen.FrozenEstimator`) and chooses a randomised threshold per group so
    that :data:`THRESHOLD_CONSTRAINT` holds exactly with the highest accuracy (Hardt, Price &
    Srebro 2016), one classifier per attribute and one for the joint groups. It is
    cross-fitted on the evaluation rows: each half is decided by the thresholds chosen on the
    other half (halves alternating inside each joint group and label), so every decision is
    out of sample.
    """
    if context.y_score is None:
        return Section(message="n/a: the model gives no scores to threshold.")
    from sklearn.frozen import FrozenEstimator

    from skfair.postprocessing import GroupThresholdClassifier

    classes = np.asarray(context.model.classes_)
    if classes.size != 2:
        return Section(
            message=f"n/a: group thresholds decide between two classes; the model has "
            f"{classes.size}."
        )
    positive = score_reader(context.model, context.favourable_class()).pos_label
    y_model = np.where(context.y_test == 1, positive, classes[classes != positive][0])
    cells = factorize_groups(dict(context.sensitive)).codes
    half = _alternating_halves(2 * cells + context.y_test, context.random_state)
    if half.all() or not half.any():
        return Section(
            message=f"n/a: cross-fitting the thresholds needs a group with two evaluation rows "
            f"or more; the {cells.size} evaluation rows are too few."
        )
    rows, fitted, decisions, failures, fit_gaps = [], {}, {}, [], []
    accuracy_before = float(np.mean(context.y_pred == context.y_test))
    for name, values, privileged in compared_columns(context):
        y_after = np.empty_like(context.y_pred)
        try:
            for fit_rows in (half, ~half):
                classifier = GroupThresholdClassifier(
                    FrozenEstimator(context.model),
                    constraint=THRESHOLD_CONSTRAINT,
                    pos_label=positive,
                    random_state=context.random_state,
                ).fit(
                    _take(context.X_test, fit_rows),
                    y_model[fit_rows],
                    sensitive_features=_take(values, fit_rows),
                )
                predicted = classifier.predict(
                    _take(context.X_test, ~fit_rows), sensitive_features=_take(values, ~fit_rows)
                )
                y_after[~fit_rows] = predicted == positive
                fit_gaps.append(classifier.constraint_gap_)
        except ValueError as error:  # a group with one row, in one half only
            failures.append(f"{name}: {error}")
            rows += [[metric, name, np.nan, np.nan] for metric in _THRESHOLD_ROWS]
            continue
        if not isinstance(values, dict):  # the figure: one attribute's groups
            fitted[name] = (classifier, fit_rows)
        decisions[name] = y_after
        kwargs = {} if privileged is None else {"privileged_group": privileged}
        for metric in (equalized_odds_difference, statistical_parity_difference):
            before = metric(context.y_test, context.y_pred, sensitive_features=values, **kwargs)
            after = metric(context.y_test, y_after, sensitive_features=values, **kwargs)
            rows.append([metric.__name__, name, float(before), float(after)])
        rows.append(["accuracy", name, accuracy_before, float(np.mean(y_after == context.y_test))])
    notes = [
        f"after = GroupThresholdClassifier(constraint={THRESHOLD_CONSTRAINT!r}): the model "
        "(frozen, not refitted) with a randomised threshold per group chosen so that the "
        "groups' true and false positive rates are equal, at the highest accuracy; one "
        "classifier per attribute and one for the joint groups. Cross-fitted: each half of the "
        "evaluation rows is decided by the thresholds chosen on the other half, so the gaps "
        "after are out of sample; on the rows the thresholds were chosen on they are at most "
        f"{max(fit_gaps, default=np.nan):.1e} (in expectation), and the rest is sampling noise, "
        "large for small groups. "
        f"Decisions seeded with random_state={context.random_state}. "
        + _convention_note(context)
        + " constraint='demographic_parity' would equalise the selection rates instead."
    ]
    notes += [f"not computed for {failure}" for failure in failures]
    table = Table(["metric", "attribute", "before", "after"], rows)
    common = ""
    if THRESHOLD_CONSTRAINT == "equalized_odds":
        common = " (one point, common to every group)"
    figures = [
        Figure(
            f"{name}: ROC curve of each group on the half of the evaluation rows its thresholds "
            "were chosen on, upper hulls (dashed) and the operating points chosen for "
            f"{THRESHOLD_CONSTRAINT}{common}",
            partial(
                _threshold_display,
                classifier,
                _take(context.X_test, fit_rows),
                y_model[fit_rows],
                context.sensitive[name][fit_rows],
            ),
        )
        for name, (classifier, fit_rows) in fitted.items()
    ]
    return Section(
        blocks=[table],
        notes=notes,
        figures=figures,
        data={"classifiers": fitted, "decisions": decisions},
    )


def _threshold_display(classifier, X, y, sensitive_features):
    from skfair.plotting import GroupThresholdDisplay

    return GroupThresholdDisplay.from_estimator(
        classifier, X, y, sensitive_features=sensitive_features
    )


_THRESHOLD_ROWS = ("equalized_odds_difference", "statistical_parity_difference", "accuracy")


def _take(values, rows):
    """The rows of an array, a DataFrame or a dict of arrays (joint sensitive features)."""
    if isinstance(values, dict):
        return {name: column[rows] for name, column in values.items()}
    return values.iloc[rows] if hasattr(values, "iloc") else values[rows]


# Each of the two groups compared is explained on at most this many of its evaluation rows.
_BIAS_SOURCE_ROWS = 1000
_BIAS_SOURCE_BACKGROUND = 100
_BIAS_SOURCE_TOP = 5
# A group is compared with the reference group only when it has at least this many evaluation
# rows: the W1 distance of a small group's scores is dominated by sampling noise (it is biased
# upwards), so the "farthest" group would otherwise be the smallest.
_BIAS_SOURCE_MIN_ROWS = 100


def bias_sources_section(context):
    """Which features drive the gap between the score distributions of two groups?

    Where the score bias comes from: W1 model bias and per-feature bias explanations.

    Miroshnikov et al. (arXiv:2011.03156): the Wasserstein-1 distance between two groups' score
    distributions splits into a positive part (the reference group favoured) and a negative
    part; each feature's bias explanation is the same split of its partial-dependence explainer
    (``BiasExplainer(method="pdp")``). The pair is chosen by :func:`_bias_source_pair`; each
    group is explained on a random sample of at most ``_BIAS_SOURCE_ROWS`` of its rows.
    """
    if context.y_score is None:
        return Section(message=NO_SCORES)
    from skfair.explain import BiasExplainer

    classes = np.asarray(getattr(context.model, "classes_", []))
    positive = context.favourable_class()
    tables, figures, explainers, names = [], [], {}, []
    for name, values in context.sensitive.items():
        groups = factorize_groups(values)
        counts = groups.counts()
        reference, other, why = _bias_source_pair(context, name, groups)
        rng = check_generator(context.random_state)
        sampled = {
            g: rng.choice(
                np.flatnonzero(groups.codes == g), min(counts[g], _BIAS_SOURCE_ROWS), replace=False
            )
            for g in (reference, other)
        }
        rows = np.sort(np.concatenate(list(sampled.values())))
        X = _take(context.X_test, rows)
        labels = groups.labels
        explainer = BiasExplainer(
            context.model,
            method="pdp",
            pos_label=positive if classes.size else None,
            privileged_group=labels[reference],
            protected_group=labels[other],
            n_background=_BIAS_SOURCE_BACKGROUND,
            random_state=context.random_state,
        ).fit(X, sensitive_features=np.asarray(values)[rows])
        explainers[name] = explainer
        bias, ex = explainer.bias_, explainer.explanations_
        names = (
            ex.names
            if hasattr(X, "iloc") or context.feature_names is None
            else np.asarray(context.feature_names, dtype=object)
        )
        # The features that favour either group most: the top by beta+ and the top by
        # beta-, in the order of beta (as the figure's bars).
        top = np.union1d(
            np.argsort(-ex.positive, kind="stable")[:_BIAS_SOURCE_TOP],
            np.argsort(-ex.negative, kind="stable")[:_BIAS_SOURCE_TOP],
        )
        top = top[np.argsort(-ex.total[top], kind="stable")]
        ref_text, other_text = str(labels[reference]), str(labels[other])
        header = ["feature", "beta", f"beta+ ({ref_text})", f"beta- ({other_text})", "net"]
        parts = ("total", "positive", "negative", "net")
        model_row = ["model (W1 bias)"] + [float(bias[part]) for part in parts]
        feature_rows = [[str(names[j])] + [float(ex[part][j]) for part in parts] for j in top]
        caption = (
            f"{name}: {ref_text} ({why}; {sampled[reference].size:,} of its "
            f"{counts[reference]:,} rows) vs {other_text} ({sampled[other].size:,} of "
            f"{counts[other]:,} rows)"
        )
        tables.append(Table(header, [model_row, *feature_rows], name=name, caption=caption))
        figures.append(
            Figure(
                f"{name}: bias explanations of the features ({ref_text} vs {other_text}; "
                f"positive: {ref_text} favoured)",
                partial(_bias_display, explainer, [str(n) for n in names]),
            )
        )
    note = (
        f"The pair compared, for each attribute: the reference group (the privileged one from "
        f"--privileged, else the largest) and, among the other groups with at least "
        f"{_BIAS_SOURCE_MIN_ROWS} evaluation rows (all other groups if none has), the one whose "
        "scores are farthest from the reference group's (largest W1 distance); each group is "
        f"explained on at most {_BIAS_SOURCE_ROWS:,} of its rows drawn at random (random_state="
        f"{context.random_state}), background {_BIAS_SOURCE_BACKGROUND} rows. beta = W1 "
        "distance between the two groups' distributions of a feature's partial-dependence "
        "explainer; beta+ = the part where the reference group is favoured (higher score of "
        "the favourable class), beta- = the part where the other group is, net = beta+ - beta-. "
        f"Features: the {_BIAS_SOURCE_TOP} largest by beta+ and the {_BIAS_SOURCE_TOP} "
        "largest by beta- (both directions), ordered by beta. Explanations are not additive "
        "(features offset and amplify each other); BiasExplainer(method='shapley') gives "
        "additive Shapley-bias values."
    )
    return Section(
        blocks=tables,
        notes=[note],
        figures=figures,
        data={"explainers": explainers},
    )


def _bias_source_pair(context, name, groups):
    """(reference code, other code, why the reference): the pair the bias sources compare."""
    counts = groups.counts()
    labels = [str(label) for label in groups.labels]
    privileged = context.privileged.get(name)
    if privileged is None:
        reference, why = int(np.argmax(counts)), "the largest group"
    else:
        reference, why = labels.index(str(privileged)), "the privileged group"
    others = [g for g in range(len(labels)) if g != reference]
    large = [g for g in others if counts[g] >= _BIAS_SOURCE_MIN_ROWS] or others
    scores = np.asarray(context.y_score, dtype=np.float64)

    def distance(g):
        pair = (groups.codes == reference) | (groups.codes == g)
        return wasserstein_bias(None, scores[pair], sensitive_features=groups.codes[pair])

    return reference, max(large, key=distance), why


def _bias_display(explainer, feature_names):
    import matplotlib.pyplot as plt

    from skfair.plotting import BiasExplanationDisplay

    parts = ("total", "positive", "negative", "net")
    # Two attributes' figures side by side on the page, text at its usual size.
    _, ax = plt.subplots(figsize=(5.4, 4.6), layout="constrained")
    return BiasExplanationDisplay(
        names=feature_names,
        values={part: explainer.explanations_[part] for part in parts},
        bias=explainer.bias_,
        max_display=8,
        groups=(explainer.privileged_group_, explainer.protected_group_),
    ).plot(ax=ax)


_N_REPLICAS = 10


def stability_section(context):
    """Would the model decide the same for each group's rows had it been trained on another sample
    of the data, and how uncertain is it?

    Label stability and uncertainty of the model across bootstrap replicas, per group.

    The model is refitted on ``_N_REPLICAS`` bootstrap samples (80 % of the training rows,
    with replacement) by :class:`~skfair.ensemble.BootstrapEnsemble`; each evaluation row gets
    Virny's label stability and, when the model has ``predict_proba``, its epistemic and
    aleatoric uncertainty, averaged per group. The last row compares the groups as the
    disparities section does.
    """
    if context.X_train is None:
        return Section(
            message="n/a: refitting bootstrap replicas of the model needs its training data, "
            "which a --model does not come with."
        )
    ensemble = BootstrapEnsemble(
        clone(context.model), n_estimators=_N_REPLICAS, random_state=context.random_state
    ).fit(context.X_train, context.y_train)
    # (column title, per-sample values, what their group means are)
    if hasattr(ensemble, "uncertainty"):
        # The members' outputs added up a few members at a time, not all held at once (the
        # same values as the metric functions give on predict_proba_members).
        per_sample = in_row_blocks(ensemble.uncertainty, context.X_test)
        measures = [
            ("label stability", per_sample.label_stability, "mean label stability"),
            ("epistemic", per_sample.epistemic, "mean epistemic uncertainty"),
            ("aleatoric", per_sample.aleatoric, "mean aleatoric uncertainty"),
        ]
    else:
        # the classes known: no np.unique over every member's label
        stability = label_stability(
            ensemble.predict_members(context.X_test), labels=ensemble.classes_
        )
        measures = [("label stability", stability, "mean label stability")]
    tables = []
    for name, values in context.sensitive.items():
        groups = factorize_groups(values)
        counts = groups.counts()
        means = [np.bincount(groups.codes, weights=v) / counts for _, v, _ in measures]
        rows = [
            [str(label), int(counts[g])] + [float(mean[g]) for mean in means]
            for g, label in enumerate(groups.labels)
        ]
        privileged = context.privileged.get(name)
        rows.append(
            ["difference" if privileged is None else "dis - priv", ""]
            + [
                # what label_stability_difference and the uncertainty differences compute
                # from the members' outputs, from the per-sample values
                float(group_mean_difference(v, groups, privileged, measure=measure))
                for _, v, measure in measures
            ]
        )
        header = [name, "n"] + [title for title, *_ in measures]
        tables.append(Table(header, rows, name=name))
    note = (
        f"Means over the evaluation rows of each group, from {_N_REPLICAS} replicas of the "
        "model refitted on bootstrap samples (80 % of the training rows, with replacement; "
        f"random_state={context.random_state}). Label stability is 1 when all replicas agree "
        "on a row and 0 when they split evenly; epistemic (model) and aleatoric (data) "
        "uncertainty are entropies in bits (Virny's definitions)."
    )
    if any(name not in context.privileged for name in context.sensitive):
        note += " difference: largest gap between any two groups."
    if any(name in context.privileged for name in context.sensitive):
        note += " dis - priv: all groups but the privileged one minus it."
    if len(measures) == 1:
        note += " The model has no predict_proba, so only label stability is shown."
    per_sample = {title: values for title, values, _ in measures}
    figures = [
        Figure(
            f"{name}: per-group means with 95 % intervals (mean ± 1.96 standard errors)",
            partial(_stability_display, per_sample, values),
        )
        for name, values in context.sensitive.items()
    ]
    return Section(
        blocks=tables,
        notes=[note],
        figures=figures,
    )


def _stability_display(per_sample, values):
    from skfair.plotting import StabilityDisplay

    encoding = factorize_groups(values)
    return StabilityDisplay(
        measures=per_sample, groups=encoding.codes, group_labels=list(encoding.labels)
    ).plot()


# Rows HFM's exact neighbour search uses in the audit: a few seconds on two cores.
_HFM_ROWS = 3000


def hfm_section(context):
    """Does the model separate the groups more than the data do, among rows that are alike in their
    other features (HFM)?

    HFM, the Harmonic Fairness measure via Manifolds (Bian, Luo & Xu 2024).

    Per attribute and over all attributes (marginally): the distance between the groups on
    ``[y_true, x]`` (D) and on ``[y_pred, x]`` (D_f), ``x`` the non-sensitive features one-hot
    encoded and min-max scaled, and ``hfm = log10(D_f / D)`` for the maximal and the average
    version. Exact distances on a seeded random subsample of the evaluation rows.
    """
    X, names = _non_sensitive_features(context)
    if X is None:
        return Section(message="n/a: HFM needs the evaluation features with column names.")
    n = X.shape[0]
    rows = np.arange(n)
    if n > _HFM_ROWS:
        rng = check_generator(context.random_state)
        rows = np.sort(rng.choice(n, size=_HFM_ROWS, replace=False))
    sensitive = {name: np.asarray(values)[rows] for name, values in context.sensitive.items()}
    if all(factorize_groups(values).counts().size < 2 for values in sensitive.values()):
        return Section(
            message="n/a: every sensitive attribute has a single group in the evaluation rows; "
            "HFM measures the distance between groups."
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a single-valued attribute shows as n/a
        details = hfm_details(
            X[rows],
            np.asarray(context.y_test)[rows],
            np.asarray(context.y_pred)[rows],
            sensitive_features=sensitive,
        )
    by = details.by_attribute
    table_rows = [
        [label] + [float(v) for v in by[key]] + [float(getattr(details, key))]
        for label, key in [
            ("hfm (max)", "hfm_max"),
            ("hfm (avg)", "hfm_avg"),
            ("D max (data)", "D_max"),
            ("D_f max (model)", "D_f_max"),
            ("D avg (data)", "D_avg"),
            ("D_f avg (model)", "D_f_avg"),
        ]
    ]
    header = ["HFM"] + list(details.attributes) + ["all attributes"]
    note = (
        f"Distances between the groups of each attribute on [label, features] with the true "
        f"labels (D) and the predictions (D_f); {len(names)} non-sensitive columns, categorical "
        "ones one-hot encoded (a missing value is its own category), all min-max scaled. "
        "hfm = log10(D_f / D): 0 keeps the data's separation of the groups, > 0 means the model "
        "pushes them apart (extra bias), < 0 brings them closer; the paper's models score a few "
        "thousandths to hundredths. 'max' is decided by the worst-served row (noisy), 'avg' by "
        "all rows. 'all attributes' (Bian, Luo & Xu 2024, Eqs. 6-8): D and D_f are the largest "
        "(max rows) or the mean (avg rows) of the attributes' distances, and hfm is the log "
        "ratio of these combined distances, not the largest or the mean of the attributes' hfm "
        "(so it can lie below each of them)."
    )
    if n > _HFM_ROWS:
        note += (
            f" Exact distances on {_HFM_ROWS:,} of the {n:,} evaluation rows drawn at random "
            f"(random_state={context.random_state}); skfair.metrics.hfm(..., method='approx') "
            "handles all rows."
        )
    return Section(
        blocks=[Table(header, table_rows)],
        notes=[note],
    )


def _non_sensitive_features(context):
    """Evaluation features without the sensitive columns, missing categories made explicit."""
    X = context.X_test
    if hasattr(X, "columns"):
        names = [str(name) for name in X.columns]
        X = X.to_numpy(dtype=object)
    else:
        names = context.feature_names
        if names is None:
            return None, None
        X = np.asarray(X, dtype=object)
    keep = [j for j, name in enumerate(names) if name not in context.sensitive]
    X = X[:, keep].copy()
    for j in range(X.shape[1]):
        column = X[:, j]
        missing = np.array([value is None or value != value for value in column.tolist()])
        if missing.any():
            column[missing] = "(missing)"
    return X, [names[j] for j in keep]


SECTIONS = {
    "summary": ("Summary", summary_section),
    "groups": ("Per-group rates", groups_section),
    "disparities": ("Disparity metrics", disparities_section),
    "subgroups": ("Which subgroups fare worst", subgroups_section),
    "scores": ("Bias of the score distributions", scores_section),
    "madd": ("Score distributions: MADD", madd_section),
    "hfm": ("Group separation in the model's view: HFM", hfm_section),
    "repair": ("Barycenter repair of the scores", repair_section),
    "data_repair": ("Repairing the data", data_repair_section),
    "thresholds": ("Group-specific decision thresholds", thresholds_section),
    "training": ("Trained under a constraint", training_section),
    "bias_sources": ("Where does the bias come from", bias_sources_section),
    "stability": ("Stability and uncertainty across bootstrap replicas", stability_section),
}
"""Command-line name -> (title, section function), in the order the audit prints them."""
