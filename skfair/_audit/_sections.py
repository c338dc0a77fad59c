"""The audit's sections: each takes the context and returns a :class:`Section` of data.

A section is a function ``section(context) -> Section``; :data:`SECTIONS` maps its
command-line name to a title and the function. To add one, write the function and add one
entry to :data:`SECTIONS`. A section that cannot run in a given context (no scores, no
training data) returns ``Section(message=...)`` saying why. Keep sections fast (the whole audit
should run in well under a minute on two cores) and seed every random choice with
``context.random_state``. Sections that need the training data (``context.X_train`` ...) must
handle None: with ``--model`` the whole file is evaluation data.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import clone

from skfair._audit._context import score_reader
from skfair._audit._data_repair_section import data_repair_section
from skfair._audit._report import (
    Estimate,
    Fields,
    GroupSizes,
    Interval,
    IntRange,
    Section,
    Table,
)
from skfair._groups import factorize_groups
from skfair._response import auto_threshold
from skfair.ensemble import BootstrapEnsemble
from skfair.metrics import (
    MetricTable,
    aleatoric_uncertainty,
    aleatoric_uncertainty_difference,
    epistemic_uncertainty,
    epistemic_uncertainty_difference,
    equalized_odds_difference,
    group_summary,
    hfm_details,
    ks_bias,
    label_stability,
    label_stability_difference,
    madd_bandwidth_search,
    statistical_parity_difference,
    wasserstein_bias,
)

NO_SCORES = "n/a: the model gives no scores (neither predict_proba nor decision_function)."


def summary_section(context):
    """What was audited: data, model, target, and the overall rates."""
    y, y_pred = context.y_test, context.y_pred
    entries = dict(context.description)
    entries["overall"] = (
        f"{y.shape[0]:,} evaluation rows, accuracy {np.mean(y == y_pred):.3f}, "
        f"base rate {y.mean():.3f}, selection rate {y_pred.mean():.3f}"
    )
    if context.y_score is None and "scores" not in entries:
        entries["scores"] = "none: the model has neither predict_proba nor decision_function"
    return Section(
        blocks=[Fields(entries)],
        data={
            "n_rows": int(y.shape[0]),
            "accuracy": float(np.mean(y == y_pred)),
            "base_rate": float(y.mean()),
            "selection_rate": float(y_pred.mean()),
        },
    )


# (MetricTable named rate, column title)
_GROUP_RATES = [
    ("base_rate", "base rate"),
    ("selection_rate", "selection rate"),
    ("true_positive_rate", "TPR"),
    ("false_positive_rate", "FPR"),
    ("accuracy", "accuracy"),
]


def groups_section(context):
    """Per-group table of counts and rates, one table per sensitive attribute."""
    tables = []
    for name, values in context.sensitive.items():
        table = MetricTable(
            [rate for rate, _ in _GROUP_RATES],
            context.y_test,
            context.y_pred,
            sensitive_features=values,
            pos_label=1,
            as_frame=False,
        )
        counts, by_group = table.counts, table.by_group
        rows = [
            [str(label), int(counts[g]), float(counts[g] / counts.sum())]
            + [float(value) for value in by_group[g]]
            for g, label in enumerate(table.groups)
        ]
        header = [name, "n", "share"] + [title for _, title in _GROUP_RATES]
        tables.append(Table(header, rows, digits=3, name=name))
    note = (
        "base rate = P(y=1), selection rate = P(y_pred=1), TPR = P(y_pred=1 | y=1), "
        "FPR = P(y_pred=1 | y=0); 1 is the favourable outcome; n/a: no sample to divide by."
    )
    return Section(blocks=tables, notes=[note])


_N_BOOT = 1000
_CI = 0.95
_INTERVAL_RATES = [
    ("selection_rate", "selection rate"),
    ("true_positive_rate", "TPR"),
    ("false_positive_rate", "FPR"),
]


def intervals_section(context):
    """Bootstrap confidence intervals of the per-group rates (small groups are uncertain)."""
    tables, summaries = [], {}
    for name, values in context.sensitive.items():
        columns = [
            group_summary(
                context.y_test,
                context.y_pred,
                sensitive_features=values,
                metric=metric,
                n_boot=_N_BOOT,
                ci=_CI,
                random_state=context.random_state,
            )
            for metric, _ in _INTERVAL_RATES
        ]
        rows = [
            [str(label)]
            + [
                Estimate(float(column.value[g]), float(column.ci_low[g]), float(column.ci_high[g]))
                for column in columns
            ]
            for g, label in enumerate(columns[0].groups)
        ]
        header = [name] + [title for _, title in _INTERVAL_RATES]
        tables.append(Table(header, rows, digits=3, name=name))
        summaries[name] = columns
    note = (
        f"value [{_CI:.0%} percentile interval] from {_N_BOOT} bootstrap replicates that "
        f"resample each group at its own size (random_state={context.random_state})."
    )
    return Section(blocks=tables, notes=[note], data={"summaries": summaries})


# The disparity rows, read off one MetricTable of these rates per column.
_DISPARITY_RATES = [
    "selection_rate",
    "true_positive_rate",
    "false_positive_rate",
    "false_negative_rate",
    "accuracy",
]
_DISPARITY_METRICS = [
    "statistical_parity_difference",
    "disparate_impact_ratio",
    "true_positive_rate_difference",
    "false_positive_rate_difference",
    "false_negative_rate_difference",
    "equalized_odds_difference",
    "accuracy_difference",
]


def _disparities(y_true, y_pred, values, privileged):
    """The values of :data:`_DISPARITY_METRICS` for one column, from one count table.

    Each equals the :mod:`skfair.metrics` function of that name (signed with a privileged
    group, else the largest gap between two groups); ``equalized_odds_difference`` keeps
    that function's rule: the larger in magnitude of the FPR and FNR differences, sign kept.
    """
    table = MetricTable(
        _DISPARITY_RATES,
        y_true,
        y_pred,
        sensitive_features=values,
        privileged_group=privileged,
        pos_label=1,
        as_frame=False,
    )
    selection, tpr, fpr, fnr, accuracy = table.difference()
    odds = fpr if np.isnan(fnr) or abs(fpr) >= abs(fnr) else fnr
    return [selection, table.ratio()[0], tpr, fpr, fnr, odds, accuracy]


def disparities_section(context):
    """Disparity metrics of the predictions, one column per attribute and their intersection.

    Attributes with a privileged group get signed values (disadvantaged minus privileged, or
    their ratio); the others, and the intersection, the largest gap between any two groups.
    """
    columns = _compared_columns(context)
    values_by_column = [
        _disparities(context.y_test, context.y_pred, values, privileged)
        for _, values, privileged in columns
    ]
    rows = [
        [metric] + [float(values[k]) for values in values_by_column]
        for k, metric in enumerate(_DISPARITY_METRICS)
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
        "Parity is 0 for differences and 1 for the ratio. equalized_odds_difference is the "
        "larger of the TPR and FPR differences. Small groups make the gaps noisy"
        + (" (see the intervals)." if "intervals" in context.shown_sections else ".")
    )
    table = Table(["metric"] + [name for name, _, _ in columns], rows)
    verdicts = [
        [row[0], name, value, *_verdict(row[0], value, privileged)]
        for row in rows[:-1]
        for (name, _, privileged), value in zip(columns, row[1:], strict=True)
    ]
    verdict_table = Table(["metric", "attribute", "value", "verdict", "convention"], verdicts)
    return Section(blocks=[table], notes=notes, data={"verdicts": verdict_table})


def _verdict(metric, value, privileged):
    """A plain-language reading of a disparity value and the convention it follows.

    Differences: below 0.02 in magnitude about equal, 0.05 small, 0.1 moderate, else large
    (rules of thumb, not tests); the ratio against the four-fifths rule (0.8).
    """
    if metric == "disparate_impact_ratio":
        convention = (
            "smallest over largest selection rate"
            if privileged is None
            else f"disadvantaged over privileged ({privileged!r}) selection rate"
        )
        if np.isnan(value):
            return "undefined", convention
        if privileged is not None and value > 1:
            return "the disadvantaged groups are selected more often", convention
        if value >= 0.8:
            return "passes the four-fifths rule (at least 0.8)", convention
        return "fails the four-fifths rule (below 0.8)", convention
    convention = (
        "largest gap between two groups, unsigned"
        if privileged is None
        else f"disadvantaged minus privileged ({privileged!r}), signed"
    )
    if np.isnan(value):
        return "undefined", convention
    size = abs(value)
    verdict = (
        "about equal"
        if size < 0.02
        else "small gap"
        if size < 0.05
        else "moderate gap"
        if size < 0.1
        else "large gap"
    )
    if privileged is not None and size >= 0.02 and metric != "equalized_odds_difference":
        verdict += "; the disadvantaged groups' rate is " + ("lower" if value < 0 else "higher")
    return verdict, convention


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
    """Distribution-level bias of the scores (Wasserstein-1 and Kolmogorov-Smirnov)."""
    if context.y_score is None:
        return Section(message=NO_SCORES)
    columns = _compared_columns(context)
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
    return Section(
        blocks=[table],
        notes=[note],
        data={"scores": context.y_score, "sensitive": context.sensitive},
    )


def _convention_note(context):
    """How the differences of :func:`_compared_columns` are signed, naming only those shown."""
    columns = _compared_columns(context)
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


def _compared_columns(context):
    """(title, sensitive features, privileged group or None): each attribute, then all jointly."""
    columns = [
        (name, values, context.privileged.get(name)) for name, values in context.sensitive.items()
    ]
    if len(columns) > 1:
        columns.append((" & ".join(context.sensitive), dict(context.sensitive), None))
    return columns


# Most groups per column the MADD section compares (1,225 pairs).
_MAX_MADD_GROUPS = 50


def madd_section(context):
    """MADD of the score distributions at the optimal bandwidth (Verger et al., JEDM 2024).

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
        pairs.append([name, " vs ".join(_group_text(label) for label in result.worst_pair)])
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
    return Section(
        blocks=blocks,
        notes=[note],
        data={"results": results, "scores": scores, "sensitive": dict(columns)},
    )


def _group_text(label):
    """A group label as text; a joint group (a tuple of labels) as ``a & b``."""
    return " & ".join(map(str, label)) if isinstance(label, tuple) else str(label)


def _alternating_halves(cells, random_state):
    """A random half of the rows (a boolean mask), alternating inside each cell.

    The rows of each cell take turns in random order, so both halves hold every cell of two
    rows or more, in about equal parts.
    """
    rng = np.random.default_rng(random_state)
    order = np.lexsort((rng.random(cells.size), cells))
    starts = np.searchsorted(cells[order], cells[order], side="left")
    half = np.empty(cells.size, dtype=bool)
    half[order] = (np.arange(cells.size) - starts) % 2 == 1
    return half


def repair_section(context):
    """Disparities before and after a Wasserstein-barycenter repair of the model's scores.

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
    for name, values, privileged in _compared_columns(context):
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
    return Section(
        blocks=[table],
        notes=[note],
        data={"scores": scores, "repaired_scores": repaired, "sensitive": context.sensitive},
    )


# The constraint of the thresholds section: equal true and false positive rates.
THRESHOLD_CONSTRAINT = "equalized_odds"


def thresholds_section(context):
    """Disparities and accuracy before and after group-specific decision thresholds.

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
    for name, values, privileged in _compared_columns(context):
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
    return Section(
        blocks=[table],
        notes=notes,
        data={
            "constraint": THRESHOLD_CONSTRAINT,
            "classifiers": fitted,
            "decisions": decisions,
            "X": context.X_test,
            "y": y_model,
            "sensitive": context.sensitive,
        },
    )


_THRESHOLD_ROWS = ("equalized_odds_difference", "statistical_parity_difference", "accuracy")


def _take(values, rows):
    """The rows of an array, a DataFrame or a dict of arrays (joint sensitive features)."""
    if isinstance(values, dict):
        return {name: column[rows] for name, column in values.items()}
    return values.iloc[rows] if hasattr(values, "iloc") else values[rows]


_BIAS_SOURCE_ROWS = 2000
_BIAS_SOURCE_BACKGROUND = 100
_BIAS_SOURCE_TOP = 5


def bias_sources_section(context):
    """Where the score bias comes from: W1 model bias and per-feature bias explanations.

    Miroshnikov et al. (arXiv:2011.03156): the Wasserstein-1 distance between the groups' score
    distributions splits into a positive part (the privileged group favoured) and a negative
    part; each feature's bias explanation is the same split of its partial-dependence explainer
    (``BiasExplainer(method="pdp")``), computed on a random subsample of the evaluation rows.
    """
    if context.y_score is None:
        return Section(message=NO_SCORES)
    from skfair.explain import BiasExplainer

    rng = np.random.default_rng(context.random_state)
    n_rows = context.y_test.shape[0]
    rows = np.sort(rng.choice(n_rows, min(n_rows, _BIAS_SOURCE_ROWS), replace=False))
    X = context.X_test.iloc[rows] if hasattr(context.X_test, "iloc") else context.X_test[rows]
    classes = np.asarray(getattr(context.model, "classes_", []))
    positive = context.favourable_class()
    tables, explainers = [], {}
    for name, values in context.sensitive.items():
        explainer = BiasExplainer(
            context.model,
            method="pdp",
            pos_label=positive if classes.size else None,
            privileged_group=context.privileged.get(name),
            n_background=_BIAS_SOURCE_BACKGROUND,
            random_state=context.random_state,
        ).fit(X, sensitive_features=values[rows])
        explainers[name] = explainer
        bias, ex = explainer.bias_, explainer.explanations_
        names = (
            ex.names
            if hasattr(X, "iloc") or context.feature_names is None
            else np.asarray(context.feature_names, dtype=object)
        )
        top = np.argsort(-ex.positive, kind="stable")[:_BIAS_SOURCE_TOP]
        header = [
            f"{name}: {explainer.privileged_group_!r} vs {explainer.protected_group_!r}",
            "beta",
            "beta+",
            "beta-",
            "net",
        ]
        parts = ("total", "positive", "negative", "net")
        model_row = ["model (W1 bias)"] + [float(bias[part]) for part in parts]
        feature_rows = [[str(names[j])] + [float(ex[part][j]) for part in parts] for j in top]
        tables.append(Table(header, [model_row, *feature_rows], name=name))
    note = (
        f"Scores of the favourable class on {rows.size:,} random evaluation rows (random_state="
        f"{context.random_state}), background {_BIAS_SOURCE_BACKGROUND} rows. beta = W1 distance "
        "between the groups' distributions of a feature's partial-dependence explainer; beta+ "
        "= part where the first-named (privileged) group is favoured, beta- = the other group "
        "favoured, net = beta+ - beta-. Top features by beta+. Explanations are not additive "
        "(features offset and amplify each other); BiasExplainer(method='shapley') gives "
        "additive Shapley-bias values."
    )
    several = [
        name
        for name, values in context.sensitive.items()
        if factorize_groups(values).counts().size > 2
    ]
    if several:
        note += (
            f" {', '.join(several)}: of more than two groups, the pair compared is the one whose "
            "score distributions are farthest apart (largest W1), or with --privileged the "
            "group farthest from the privileged one."
        )
    if any(name not in context.privileged for name in context.sensitive):
        note += " Without --privileged the group favoured on average is named first."
    return Section(
        blocks=tables,
        notes=[note],
        data={"explainers": explainers, "feature_names": [str(name) for name in names]},
    )


_N_REPLICAS = 10


def stability_section(context):
    """Label stability and uncertainty of the model across bootstrap replicas, per group.

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
    member_labels = ensemble.predict_members(context.X_test)
    # (column title, per-sample values, difference metric, its member-output argument)
    measures = [
        (
            "label stability",
            label_stability(member_labels, labels=ensemble.classes_),
            label_stability_difference,
            member_labels,
        )
    ]
    if hasattr(ensemble, "predict_proba_members"):
        member_proba = ensemble.predict_proba_members(context.X_test)
        measures += [
            (
                "epistemic",
                epistemic_uncertainty(member_proba),
                epistemic_uncertainty_difference,
                member_proba,
            ),
            (
                "aleatoric",
                aleatoric_uncertainty(member_proba),
                aleatoric_uncertainty_difference,
                member_proba,
            ),
        ]
    tables = []
    for name, values in context.sensitive.items():
        groups = factorize_groups(values)
        counts = groups.counts()
        means = [np.bincount(groups.codes, weights=v) / counts for _, v, _, _ in measures]
        rows = [
            [str(label), int(counts[g])] + [float(mean[g]) for mean in means]
            for g, label in enumerate(groups.labels)
        ]
        privileged = context.privileged.get(name)
        kwargs = {} if privileged is None else {"privileged_group": privileged}
        rows.append(
            ["difference" if privileged is None else "dis - priv", ""]
            + [
                float(metric(None, outputs, sensitive_features=values, **kwargs))
                for _, _, metric, outputs in measures
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
    per_sample = {title: values for title, values, _, _ in measures}
    return Section(
        blocks=tables, notes=[note], data={"per_sample": per_sample, "sensitive": context.sensitive}
    )


# Rows HFM's exact neighbour search uses in the audit: a few seconds on two cores.
_HFM_ROWS = 3000


def hfm_section(context):
    """HFM, the Harmonic Fairness measure via Manifolds (Bian, Luo & Xu 2024).

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
        rng = np.random.default_rng(context.random_state)
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
    header = ["HFM"] + list(details.attributes) + ["all (max / mean)"]
    note = (
        f"Distances between the groups of each attribute on [label, features] with the true "
        f"labels (D) and the predictions (D_f); {len(names)} non-sensitive columns, categorical "
        "ones one-hot encoded (a missing value is its own category), all min-max scaled. "
        "hfm = log10(D_f / D): 0 keeps the data's separation of the groups, > 0 means the model "
        "pushes them apart (extra bias), < 0 brings them closer; the paper's models score a few "
        "thousandths to hundredths. 'max' is decided by the worst-served row (noisy), 'avg' by "
        "all rows."
    )
    if n > _HFM_ROWS:
        note += (
            f" Exact distances on {_HFM_ROWS:,} of the {n:,} evaluation rows drawn at random "
            f"(random_state={context.random_state}); skfair.metrics.hfm(..., method='approx') "
            "handles all rows."
        )
    return Section(blocks=[Table(header, table_rows)], notes=[note])


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
    "summary": ("Audit summary", summary_section),
    "groups": ("Per-group rates", groups_section),
    "intervals": ("Per-group rates with bootstrap intervals", intervals_section),
    "disparities": ("Disparity metrics", disparities_section),
    "scores": ("Bias of the score distributions", scores_section),
    "madd": ("Score distributions: MADD", madd_section),
    "hfm": ("Group separation in the model's view: HFM", hfm_section),
    "repair": ("Barycenter repair of the scores", repair_section),
    "data_repair": ("Repairing the data", data_repair_section),
    "thresholds": ("Group-specific decision thresholds", thresholds_section),
    "bias_sources": ("Where does the bias come from", bias_sources_section),
    "stability": ("Stability and uncertainty across bootstrap replicas", stability_section),
}
"""Command-line name -> (title, section function), in the order the audit prints them."""
