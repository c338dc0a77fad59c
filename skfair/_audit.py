"""The fairness audit behind ``python -m skfair audit``.

An audit is an :class:`AuditContext` (a fitted model, its predictions on evaluation data, the
sensitive attributes of those rows) and an ordered list of sections. A section is a function
``section(context) -> str`` returning plain text; :data:`SECTIONS` maps its command-line name
to a title and the function. To add a section, write one function and add one entry to
:data:`SECTIONS`; use :func:`format_table` for aligned columns. A section that cannot run in a
given context (no scores, no training data) returns a one-line note saying why.

The audit runs with the required dependencies only (numpy, scipy, scikit-learn, joblib): data
are numpy arrays and csv files are parsed without pandas, unless a ``--model`` was fitted on a
DataFrame.
"""

from __future__ import annotations

import csv
import textwrap
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone
from sklearn.compose import make_column_transformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from skfair._groups import factorize_groups
from skfair.datasets import load_adult
from skfair.datasets._base import parse_csv
from skfair.ensemble import BootstrapEnsemble
from skfair.metrics import (
    accuracy_difference,
    aleatoric_uncertainty,
    aleatoric_uncertainty_difference,
    disparate_impact_ratio,
    epistemic_uncertainty,
    epistemic_uncertainty_difference,
    equalized_odds_difference,
    false_negative_rate_difference,
    false_positive_rate_difference,
    group_summary,
    label_stability,
    label_stability_difference,
    statistical_parity_difference,
    true_positive_rate_difference,
)

NOT_AVAILABLE = "n/a"
_WIDTH = 96


@dataclass
class AuditContext:
    """Everything a section may use.

    Labels are binary: 1 is the favourable outcome (``positive_label`` of the original target),
    0 the other one.

    Attributes
    ----------
    model : estimator
        The fitted model that is audited.
    X_test : ndarray or DataFrame
        Evaluation features, as the model takes them.
    y_test : ndarray of shape (n_test,), dtype int
        True labels of the evaluation rows, 0/1.
    y_pred : ndarray of shape (n_test,), dtype int
        The model's predictions, 0/1.
    y_score : ndarray of shape (n_test,) or None
        Score of the favourable class (``predict_proba`` column, else ``decision_function``);
        None when the model has neither.
    sensitive : dict of str to ndarray of shape (n_test,)
        Group label of each evaluation row, per sensitive attribute, in command-line order.
    privileged : dict of str to str
        Privileged group of the attributes for which one was named (``--privileged``);
        disparities of the other attributes are the largest gap between any two groups.
    positive_label : object
        The original target value mapped to 1.
    description : dict of str to str
        Lines of the summary section ("data", "model", "target").
    X_train, y_train, sensitive_train : optional
        The training split the model was fitted on, in the same forms; None when the model came
        from ``--model`` (then the whole file is evaluation data).
    random_state : int
        Seed for sections that draw random numbers.
    """

    model: object
    X_test: object
    y_test: np.ndarray
    y_pred: np.ndarray
    y_score: np.ndarray | None
    sensitive: dict
    privileged: dict = field(default_factory=dict)
    positive_label: object = 1
    description: dict = field(default_factory=dict)
    X_train: object = None
    y_train: np.ndarray | None = None
    sensitive_train: dict | None = None
    random_state: int = 0

    @property
    def attribute_names(self):
        return list(self.sensitive)


# --------------------------------------------------------------------------------------------
# building the context


def plain_model(categorical, numeric):
    """One-hot encoded categorical columns, imputed and scaled numeric ones, logistic regression.

    ``categorical`` and ``numeric`` are column indices (or names, for a DataFrame).
    """
    return make_pipeline(
        make_column_transformer(
            (OneHotEncoder(handle_unknown="ignore"), categorical),
            (make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), numeric),
        ),
        LogisticRegression(max_iter=1000),
    )


def adult_context(*, model=None, privileged=None, random_state=0):
    """Audit context on the bundled Adult data, sensitive attributes ``sex`` and ``race``.

    Without ``model``, :func:`plain_model` is trained on the train split; the evaluation rows
    are the test split in both cases.
    """
    test = load_adult(split="test")
    privileged = check_privileged(privileged, _attributes(test))
    description = {
        "data": "UCI Adult (bundled with skfair; Becker & Kohavi 1996, CC BY 4.0), test split "
        f"({test.data.shape[0]:,} rows)",
        "target": "income-per-year; favourable outcome '>50K' = 1",
    }
    train = None
    if model is None:
        train = load_adult(split="train")
        names = train.feature_names.tolist()
        categorical = [names.index(name) for name in train.categorical_features]
        numeric = [j for j in range(len(names)) if j not in categorical]
        model = plain_model(categorical, numeric).fit(train.data, train.target)
        description["model"] = (
            "logistic regression on one-hot encoded categorical and scaled numeric features "
            f"(all 14 columns, sex and race included), trained on the train split "
            f"({train.data.shape[0]:,} rows)"
        )
    else:
        description["model"] = f"{_model_name(model)} from --model"
    context = AuditContext(
        model=model,
        X_test=test.data,
        y_test=test.target,
        y_pred=None,
        y_score=None,
        sensitive=_attributes(test),
        privileged=privileged,
        positive_label=1,
        description=description,
        random_state=random_state,
    )
    if train is not None:
        context.X_train, context.y_train = train.data, train.target
        context.sensitive_train = _attributes(train)
    return _predict(context, classes_to_labels=None)


def csv_context(
    path,
    *,
    target,
    sensitive,
    model=None,
    positive_label=None,
    privileged=None,
    test_size=0.3,
    random_state=0,
):
    """Audit context on a user's csv file.

    Without ``model``, :func:`plain_model` is trained on a stratified split of the file (all
    columns but the target are features) and evaluated on the rest. With a fitted ``model``, all
    rows are evaluation rows; a model fitted on a DataFrame receives the columns named in its
    ``feature_names_in_``, any other model all columns but the target, in file order.
    """
    with open(path, encoding="utf-8", newline="") as text:
        names, columns = parse_csv(text, source=str(path))
    for name in [target, *sensitive]:
        if name not in columns:
            raise ValueError(f"Column {name!r} is not in {path}; its columns are {names}.")
    labels = columns[target]
    if np.any(labels != labels):  # NaN: an empty field
        raise ValueError(
            f"The target column {target!r} has empty values (first at data line "
            f"{int(np.argmax(labels != labels)) + 1})."
        )
    positive_label = _positive_label(labels, positive_label, target)
    y = (labels == positive_label).astype(np.int64)
    attributes = {name: columns[name] for name in sensitive}
    # Missing values raise here, naming the column, whichever split their rows fall in.
    factorize_groups(attributes)
    privileged = check_privileged(privileged, attributes)
    feature_names = [name for name in names if name != target]
    description = {
        "data": f"{path} ({labels.shape[0]:,} rows)",
        "target": f"{target}; favourable outcome {positive_label!r} = 1",
    }
    if model is not None:
        X = _model_input(model, columns, feature_names)
        description["model"] = f"{_model_name(model)} from --model, evaluated on all rows"
        context = AuditContext(
            model=model,
            X_test=X,
            y_test=y,
            y_pred=None,
            y_score=None,
            sensitive=attributes,
            privileged=privileged,
            positive_label=positive_label,
            description=description,
            random_state=random_state,
        )
        return _predict(context, classes_to_labels=positive_label)
    X = np.empty((y.shape[0], len(feature_names)), dtype=object)
    for j, name in enumerate(feature_names):
        X[:, j] = columns[name]
    categorical = [j for j, name in enumerate(feature_names) if columns[name].dtype == object]
    numeric = [j for j in range(len(feature_names)) if j not in categorical]
    rows = np.arange(y.shape[0])
    train_rows, test_rows = train_test_split(
        rows, test_size=test_size, random_state=random_state, stratify=y
    )
    model = plain_model(categorical, numeric).fit(X[train_rows], y[train_rows])
    description["data"] += (
        f", split at random (random_state={random_state}) into {train_rows.size:,} training and "
        f"{test_rows.size:,} evaluation rows"
    )
    description["model"] = (
        "logistic regression on one-hot encoded categorical and scaled numeric features "
        f"(all {len(feature_names)} columns but the target), trained on the training rows"
    )
    context = AuditContext(
        model=model,
        X_test=X[test_rows],
        y_test=y[test_rows],
        y_pred=None,
        y_score=None,
        sensitive={name: values[test_rows] for name, values in attributes.items()},
        privileged=privileged,
        positive_label=positive_label,
        description=description,
        X_train=X[train_rows],
        y_train=y[train_rows],
        sensitive_train={name: values[train_rows] for name, values in attributes.items()},
        random_state=random_state,
    )
    return _predict(context, classes_to_labels=None)


def check_privileged(privileged, attributes):
    """``privileged`` maps attribute names to a group label, which must occur in the data."""
    privileged = dict(privileged or {})
    unknown = sorted(set(privileged) - set(attributes))
    if unknown:
        raise ValueError(
            f"--privileged names {unknown}, which are not sensitive attributes of this audit "
            f"({list(attributes)})."
        )
    for name, label in privileged.items():
        groups = [str(group) for group in factorize_groups(attributes[name]).labels]
        if str(label) not in groups:
            raise ValueError(
                f"--privileged {name}={label}: {label!r} is not a group of {name!r}; its groups "
                f"are {groups}."
            )
    return privileged


def _attributes(bunch):
    return {
        name: bunch.sensitive_features[:, j] for j, name in enumerate(bunch.sensitive_feature_names)
    }


def _model_name(model):
    steps = getattr(model, "steps", None)
    if steps:
        return "Pipeline(" + ", ".join(type(step).__name__ for _, step in steps) + ")"
    return type(model).__name__


def _positive_label(labels, positive_label, target):
    """The target value that is the favourable outcome, matched as text for numeric targets."""
    present = np.unique(labels.astype(str) if labels.dtype == object else labels)
    if present.shape[0] != 2:
        raise ValueError(
            f"The target column {target!r} must hold exactly two classes, found "
            f"{present.shape[0]}: {present.tolist()[:10]}."
        )
    if positive_label is None:
        if set(present.tolist()) <= {0, 1} or set(present.tolist()) == {-1, 1}:
            return present.dtype.type(1)
        raise ValueError(
            f"Name the favourable class of {target!r} with --positive-label; the classes are "
            f"{present.tolist()}."
        )
    matches = [value for value in present.tolist() if str(value) == str(positive_label)]
    if not matches and present.dtype.kind in "iuf":
        try:
            matches = [value for value in present.tolist() if value == float(positive_label)]
        except ValueError:
            matches = []
    if not matches:
        raise ValueError(
            f"--positive-label {positive_label!r} is not a class of {target!r}; the classes are "
            f"{present.tolist()}."
        )
    return matches[0]


def _model_input(model, columns, feature_names):
    expected = getattr(model, "feature_names_in_", None)
    if expected is None:
        X = np.empty((next(iter(columns.values())).shape[0], len(feature_names)), dtype=object)
        for j, name in enumerate(feature_names):
            X[:, j] = columns[name]
        return X
    missing = [name for name in expected if name not in columns]
    if missing:
        raise ValueError(f"The model was fitted on columns that the csv file lacks: {missing}.")
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError(
            "The model was fitted on a pandas DataFrame, so the audit needs pandas to pass it "
            'one: pip install "scikit-fairkit[pandas]".'
        ) from exc
    return pd.DataFrame({name: columns[name] for name in expected})


def _predict(context, *, classes_to_labels):
    """Fill ``y_pred`` and ``y_score`` (0/1 labels; score of the favourable class).

    ``classes_to_labels`` is the favourable label in the model's own classes (a user's model
    predicts the original target values); None when the model was trained on 0/1 labels.
    """
    model = context.model
    positive = 1 if classes_to_labels is None else classes_to_labels
    predictions = np.asarray(model.predict(context.X_test))
    context.y_pred = _match(predictions, positive).astype(np.int64)
    classes = getattr(model, "classes_", None)
    if classes is None or not _match(np.asarray(classes), positive).any():
        return context
    column = int(np.flatnonzero(_match(np.asarray(classes), positive))[0])
    if hasattr(model, "predict_proba"):
        context.y_score = np.asarray(model.predict_proba(context.X_test))[:, column]
    elif hasattr(model, "decision_function") and len(classes) == 2:
        decision = np.asarray(model.decision_function(context.X_test), dtype=np.float64)
        # decision_function scores classes_[1]; flip it when that is not the favourable class.
        context.y_score = decision if column == 1 else -decision
    return context


def _match(values, label):
    """``values == label``, comparing as text when the types differ (csv labels are text)."""
    if values.dtype.kind in "iufb" and isinstance(label, (int, float, np.number)):
        return values == label
    return values.astype(str) == str(label)


# --------------------------------------------------------------------------------------------
# sections


def summary_section(context):
    """What was audited: data, model, target, and the overall rates."""
    y, y_pred = context.y_test, context.y_pred
    entries = dict(context.description)
    entries["overall"] = (
        f"{y.shape[0]:,} evaluation rows, accuracy {np.mean(y == y_pred):.3f}, "
        f"base rate {y.mean():.3f}, selection rate {y_pred.mean():.3f}"
    )
    if context.y_score is None:
        entries["scores"] = "none: the model has neither predict_proba nor decision_function"
    return "\n".join(
        textwrap.fill(f"{key:<7}: {value}", width=_WIDTH, subsequent_indent=" " * 9)
        for key, value in entries.items()
    )


# (group_summary metric, column title, whether it is a rate of y_true instead of y_pred)
_GROUP_RATES = [
    ("selection_rate", "base rate", True),
    ("selection_rate", "selection rate", False),
    ("true_positive_rate", "TPR", False),
    ("false_positive_rate", "FPR", False),
    ("accuracy", "accuracy", False),
]


def groups_section(context):
    """Per-group table of counts and rates, one table per sensitive attribute."""
    blocks = []
    for name, values in context.sensitive.items():
        columns = [
            group_summary(
                None if of_y_true else context.y_test,
                context.y_test if of_y_true else context.y_pred,
                sensitive_features=values,
                metric=metric,
            )
            for metric, _, of_y_true in _GROUP_RATES
        ]
        counts = columns[0].count
        rows = [
            [str(label), f"{counts[g]:,}", format_number(counts[g] / counts.sum(), 3)]
            + [format_number(column.value[g], 3) for column in columns]
            for g, label in enumerate(columns[0].groups)
        ]
        header = [name, "n", "share"] + [title for _, title, _ in _GROUP_RATES]
        blocks.append(format_table(header, rows))
    note = (
        "base rate = P(y=1), selection rate = P(y_pred=1), TPR = P(y_pred=1 | y=1), "
        "FPR = P(y_pred=1 | y=0); 1 is the favourable outcome; n/a: no sample to divide by."
    )
    return "\n\n".join(blocks) + "\n\n" + textwrap.fill(note, width=_WIDTH)


_N_BOOT = 1000
_CI = 0.95
_INTERVAL_RATES = [
    ("selection_rate", "selection rate"),
    ("true_positive_rate", "TPR"),
    ("false_positive_rate", "FPR"),
]


def intervals_section(context):
    """Bootstrap confidence intervals of the per-group rates (small groups are uncertain)."""
    blocks = []
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
                f"{format_number(column.value[g], 3)} "
                f"[{format_number(column.ci_low[g], 3)}, {format_number(column.ci_high[g], 3)}]"
                for column in columns
            ]
            for g, label in enumerate(columns[0].groups)
        ]
        blocks.append(format_table([name] + [title for _, title in _INTERVAL_RATES], rows))
    note = (
        f"value [{_CI:.0%} percentile interval] from {_N_BOOT} bootstrap replicates that "
        f"resample each group at its own size (random_state={context.random_state})."
    )
    return "\n\n".join(blocks) + "\n\n" + textwrap.fill(note, width=_WIDTH)


_DISPARITY_METRICS = [
    statistical_parity_difference,
    disparate_impact_ratio,
    true_positive_rate_difference,
    false_positive_rate_difference,
    false_negative_rate_difference,
    equalized_odds_difference,
    accuracy_difference,
]


def disparities_section(context):
    """Disparity metrics of the predictions, one column per attribute and their intersection.

    Attributes with a privileged group get signed values (disadvantaged minus privileged, or
    their ratio); the others, and the intersection, the largest gap between any two groups.
    """
    columns = [
        (name, values, context.privileged.get(name)) for name, values in context.sensitive.items()
    ]
    if len(columns) > 1:
        columns.append((" & ".join(context.sensitive), dict(context.sensitive), None))
    rows = []
    for metric in _DISPARITY_METRICS:
        row = [metric.__name__]
        for _, values, privileged in columns:
            kwargs = {} if privileged is None else {"privileged_group": privileged}
            value = metric(context.y_test, context.y_pred, sensitive_features=values, **kwargs)
            row.append(format_number(value))
        rows.append(row)
    sizes = ["groups (smallest n)"]
    for _, values, _ in columns:
        counts = factorize_groups(values).counts()
        sizes.append(f"{counts.size} ({counts.min():,})")
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
        "larger of the TPR and FPR differences. Small groups make the gaps noisy (see the "
        "intervals)."
    )
    table = format_table(["metric"] + [name for name, _, _ in columns], rows)
    return (
        table
        + "\n\n"
        + "\n".join(textwrap.fill(note, width=_WIDTH, subsequent_indent="  ") for note in notes)
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
        return (
            "n/a: refitting bootstrap replicas of the model needs its training data, which a "
            "--model does not come with."
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
    blocks = []
    for name, values in context.sensitive.items():
        groups = factorize_groups(values)
        counts = groups.counts()
        means = [np.bincount(groups.codes, weights=v) / counts for _, v, _, _ in measures]
        rows = [
            [str(label), f"{counts[g]:,}"] + [format_number(mean[g]) for mean in means]
            for g, label in enumerate(groups.labels)
        ]
        privileged = context.privileged.get(name)
        kwargs = {} if privileged is None else {"privileged_group": privileged}
        rows.append(
            ["difference" if privileged is None else "dis - priv", ""]
            + [
                format_number(metric(None, outputs, sensitive_features=values, **kwargs))
                for _, _, metric, outputs in measures
            ]
        )
        blocks.append(format_table([name, "n"] + [title for title, *_ in measures], rows))
    note = (
        f"Means over the evaluation rows of each group, from {_N_REPLICAS} replicas of the "
        "model refitted on bootstrap samples (80 % of the training rows, with replacement; "
        f"random_state={context.random_state}). Label stability is 1 when all replicas agree "
        "on a row and 0 when they split evenly; epistemic (model) and aleatoric (data) "
        "uncertainty are entropies in bits (Virny's definitions). difference: largest gap "
        "between any two groups; dis - priv: all groups but the privileged one minus it."
    )
    if len(measures) == 1:
        note += " The model has no predict_proba, so only label stability is shown."
    return "\n\n".join(blocks) + "\n\n" + textwrap.fill(note, width=_WIDTH)


SECTIONS = {
    "summary": ("Audit summary", summary_section),
    "groups": ("Per-group rates", groups_section),
    "intervals": ("Per-group rates with bootstrap intervals", intervals_section),
    "disparities": ("Disparity metrics", disparities_section),
    "stability": ("Stability and uncertainty across bootstrap replicas", stability_section),
}
"""Command-line name -> (title, section function), in the order the audit prints them."""


# --------------------------------------------------------------------------------------------
# running and formatting


def run_audit(context, sections=None):
    """The report: each selected section under its title, in :data:`SECTIONS` order."""
    selected = list(SECTIONS) if sections is None else [s for s in SECTIONS if s in sections]
    parts = []
    for name in selected:
        title, section = SECTIONS[name]
        parts.append(f"{title}\n{'=' * len(title)}\n{section(context).rstrip()}")
    return "\n\n".join(parts) + "\n"


def format_number(value, digits=4):
    """Fixed-point text of a float, ``n/a`` for NaN (an undefined rate)."""
    value = float(value)
    return NOT_AVAILABLE if np.isnan(value) else f"{value:.{digits}f}"


def format_table(header, rows):
    """Plain-text table: the first column left-aligned, the others right-aligned."""
    table = [list(map(str, header))] + [list(map(str, row)) for row in rows]
    widths = [max(len(row[j]) for row in table) for j in range(len(header))]

    def line(row):
        cells = [row[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)
        ]
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(table[0]), rule] + [line(row) for row in table[1:]])


def write_predictions(context, path):
    """Write the evaluation rows' sensitive attributes, y_true, y_pred and y_score to csv."""
    columns = dict(context.sensitive)
    columns.update(y_true=context.y_test, y_pred=context.y_pred)
    if context.y_score is not None:
        columns["y_score"] = context.y_score
    with open(path, "w", encoding="utf-8", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(list(columns))
        writer.writerows(zip(*(values.tolist() for values in columns.values()), strict=True))
