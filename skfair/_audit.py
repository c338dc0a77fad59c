"""The fairness audit behind ``python -m skfair audit``.

An audit is an :class:`AuditContext` (a fitted model, its predictions on evaluation data, the
sensitive attributes of those rows) and an ordered list of sections. A section is a function
``section(context) -> str`` returning plain text; :data:`SECTIONS` maps its command-line name
to a title and the function. To add a section, write one function and add one entry to
:data:`SECTIONS`; use :func:`format_table` for aligned columns. A section that cannot run in a
given context (no scores, no training data) returns a one-line note saying why.

A section looks like this (the title is printed by :func:`run_audit`)::

    def madd_section(context):
        # MADD between the groups' score distributions.
        if context.y_score is None:
            return "Skipped: the model has neither predict_proba nor decision_function."
        rows = [[name, format_number(madd(context.y_test, context.y_score,
                                          sensitive_features=values))]
                for name, values in context.sensitive.items()]
        return format_table(["attribute", "MADD"], rows)

    SECTIONS = {..., "madd": ("MADD", madd_section)}

Sections that need the training data (``context.X_train`` ...) must handle None: with
``--model`` the whole file is evaluation data. Keep sections fast (the whole audit should run
in well under a minute on two cores) and seed every random choice with
``context.random_state``.

The audit runs with the required dependencies only (numpy, scipy, scikit-learn, joblib): data
are numpy arrays and csv files are parsed without pandas, unless a ``--model`` was fitted on a
DataFrame.
"""

from __future__ import annotations

import csv
import textwrap
import warnings
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
    hfm,
    ks_bias,
    label_stability,
    label_stability_difference,
    madd_bandwidth_search,
    statistical_parity_difference,
    true_positive_rate_difference,
    wasserstein_bias,
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
    feature_names : list of str or None
        Names of the columns of ``X_test`` when it is an ndarray (a DataFrame has its own).
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
    feature_names: list | None = None


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
    are the test split in both cases. A given ``model`` must predict the 0/1 target of
    :func:`~skfair.datasets.load_adult`.
    """
    test = load_adult(split="test")
    sensitive = _attributes(test)
    privileged = check_privileged(privileged, sensitive)
    description = {
        "data": "UCI Adult (bundled with skfair; Becker & Kohavi 1996, CC BY 4.0), test split "
        f"({test.data.shape[0]:,} rows)",
        "target": "income-per-year; favourable outcome '>50K' = 1",
    }
    train = {}
    if model is None:
        bunch = load_adult(split="train")
        names = bunch.feature_names.tolist()
        categorical = [names.index(name) for name in bunch.categorical_features]
        numeric = [j for j in range(len(names)) if j not in categorical]
        model = plain_model(categorical, numeric).fit(bunch.data, bunch.target)
        description["model"] = (
            "logistic regression on one-hot encoded categorical and scaled numeric features "
            f"(all 14 columns, sex and race included), trained on the train split "
            f"({bunch.data.shape[0]:,} rows)"
        )
        train = {
            "X_train": bunch.data,
            "y_train": bunch.target,
            "sensitive_train": _attributes(bunch),
        }
        X_test = test.data
    else:
        description["model"] = f"{_model_name(model)} from --model"
        names = test.feature_names.tolist()
        X_test = _model_input(model, {name: test.data[:, j] for j, name in enumerate(names)}, names)
    y_pred, y_score = _predict(model, X_test, positive_label=1)
    return AuditContext(
        model=model,
        X_test=X_test,
        y_test=test.target,
        y_pred=y_pred,
        y_score=y_score,
        sensitive=sensitive,
        privileged=privileged,
        positive_label=1,
        description=description,
        random_state=random_state,
        **train,
        feature_names=_column_names(X_test, test.feature_names.tolist()),
    )


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
    ``feature_names_in_``, any other model all columns but the target, in file order. The
    model predicts the target's own values, ``positive_label`` among them.
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
    y = _match(labels, positive_label).astype(np.int64)
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
        y_pred, y_score = _predict(model, X, positive_label=positive_label)
        return AuditContext(
            model=model,
            X_test=X,
            y_test=y,
            y_pred=y_pred,
            y_score=y_score,
            sensitive=attributes,
            privileged=privileged,
            positive_label=positive_label,
            description=description,
            random_state=random_state,
            feature_names=_column_names(X, feature_names),
        )
    X = _model_input(None, columns, feature_names)
    categorical = [j for j, name in enumerate(feature_names) if columns[name].dtype == object]
    numeric = [j for j in range(len(feature_names)) if j not in categorical]
    train_rows, test_rows = train_test_split(
        np.arange(y.shape[0]), test_size=test_size, random_state=random_state, stratify=y
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
    y_pred, y_score = _predict(model, X[test_rows], positive_label=1)
    return AuditContext(
        model=model,
        X_test=X[test_rows],
        y_test=y[test_rows],
        y_pred=y_pred,
        y_score=y_score,
        sensitive={name: values[test_rows] for name, values in attributes.items()},
        privileged=privileged,
        positive_label=positive_label,
        description=description,
        X_train=X[train_rows],
        y_train=y[train_rows],
        sensitive_train={name: values[train_rows] for name, values in attributes.items()},
        random_state=random_state,
        feature_names=feature_names,
    )


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


def _column_names(X, names):
    """Names of the columns of X: a DataFrame's own (maybe a subset of ``names``), else names."""
    return [str(name) for name in X.columns] if hasattr(X, "columns") else names


def _model_input(model, columns, feature_names):
    """The evaluation features in the form ``model`` was fitted on.

    A model with ``feature_names_in_`` (fitted on a DataFrame) gets a DataFrame of those
    columns; any other model (or None) an object array of ``feature_names`` in order.
    """
    expected = getattr(model, "feature_names_in_", None)
    if expected is None:
        X = np.empty((columns[feature_names[0]].shape[0], len(feature_names)), dtype=object)
        for j, name in enumerate(feature_names):
            X[:, j] = columns[name]
        return X
    missing = [name for name in expected if name not in columns]
    if missing:
        raise ValueError(f"The model was fitted on columns that the data lack: {missing}.")
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError(
            "The model was fitted on a pandas DataFrame, so the audit needs pandas to pass it "
            'one: pip install "scikit-fairkit[pandas]".'
        ) from exc
    return pd.DataFrame({name: columns[name] for name in expected})


def _predict(model, X, *, positive_label):
    """0/1 predictions (1 = ``positive_label``) and the score of that class (or None)."""
    classes = getattr(model, "classes_", None)
    if classes is not None and not _match(np.asarray(classes), positive_label).any():
        raise ValueError(
            f"The model's classes are {np.asarray(classes).tolist()}; the favourable label "
            f"{positive_label!r} is not among them. Fit the model on the target's own values."
        )
    y_pred = _match(np.asarray(model.predict(X)), positive_label).astype(np.int64)
    if classes is None:
        return y_pred, None
    column = int(np.flatnonzero(_match(np.asarray(classes), positive_label))[0])
    if hasattr(model, "predict_proba"):
        return y_pred, np.asarray(model.predict_proba(X))[:, column]
    if hasattr(model, "decision_function") and len(classes) == 2:
        decision = np.asarray(model.decision_function(X), dtype=np.float64)
        # decision_function scores classes_[1]; flip it when that is not the favourable class.
        return y_pred, (decision if column == 1 else -decision)
    return y_pred, None


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
    columns = _compared_columns(context)
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
        return "Skipped: the model has neither predict_proba nor decision_function."
    columns = _compared_columns(context)
    rows = []
    for label, metric, kwargs in _SCORE_METRICS:
        row = [label]
        for _, values, privileged in columns:
            extra = {} if privileged is None else {"privileged_group": privileged}
            value = metric(
                context.y_test, context.y_score, sensitive_features=values, **kwargs, **extra
            )
            row.append(format_number(value))
        rows.append(row)
    notes = [
        "Distances between the groups' distributions of the favourable-class score, not of "
        "the thresholded predictions. total = positive + negative: positive is the transport "
        "where the privileged group (else, for each pair, the group with the higher mean "
        "score) gets the higher score, negative where the other group does; net = positive - "
        "negative. '| y' compares the groups within each true class (equalized-odds type). "
        "With more than two groups each row is its largest value over pairs of groups, so the "
        "parts can come from different pairs."
    ]
    table = format_table(["metric"] + [name for name, _, _ in columns], rows)
    return table + "\n\n" + "\n".join(textwrap.fill(note, width=_WIDTH) for note in notes)


def _compared_columns(context):
    """(title, sensitive features, privileged group or None): each attribute, then all jointly."""
    columns = [
        (name, values, context.privileged.get(name)) for name, values in context.sensitive.items()
    ]
    if len(columns) > 1:
        columns.append((" & ".join(context.sensitive), dict(context.sensitive), None))
    return columns


def madd_section(context):
    """MADD of the score distributions at the optimal bandwidth (Verger et al., JEDM 2024).

    One column per attribute and their intersection: the stable MADD of the worst pair of
    groups, that pair, the stable bandwidth interval and its bin counts, h_sup, and the mean
    stable MADD over all pairs.
    """
    if context.y_score is None:
        return "MADD needs scores; the model has neither predict_proba nor decision_function."
    scores = np.asarray(context.y_score, dtype=np.float64)
    if scores.min() < 0 or scores.max() > 1:
        return "MADD compares probabilities in [0, 1]; the model only gives decision_function."
    columns = list(context.sensitive.items())
    if len(columns) > 1:
        columns.append((" & ".join(context.sensitive), dict(context.sensitive)))
    rows = [
        ["stable MADD (worst pair)"],
        ["worst pair"],
        ["stable interval h"],
        ["bins"],
        ["h_sup"],
        ["stable MADD (mean of pairs)"],
    ]
    for _, values in columns:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # small groups: noted below
                result = madd_bandwidth_search(None, scores, sensitive_features=values)
        except ValueError as error:  # no eligible interval for a pair of tiny groups
            for row in rows:
                row.append(NOT_AVAILABLE)
            rows[1][-1] = str(error).split(":")[0]
            continue
        low, high = result.interval
        pair = " vs ".join(str(label) for label in result.worst_pair)
        rows[0].append(format_number(result.value))
        rows[1].append(pair)
        rows[2].append(f"[{low:.4f}, {high:.4f}]")
        rows[3].append(f"{result.bins_interval[0]}-{result.bins_interval[1]}")
        rows[4].append(format_number(result.h_sup))
        rows[5].append(format_number(np.mean([p.value for p in result.pairs])))
    note = (
        "MADD is the L1 distance between two groups' histograms of predicted probabilities "
        "(0: same distribution, 2: disjoint), averaged over the bandwidth interval where it is "
        "most stable (Algorithm 1; the interval shrinks with the group sizes, like h_sup). "
        "Pairs with fewer than 50 rows in a group are dominated by sampling noise. "
        "skfair.postprocessing.MADDRepair(lam=...) shrinks every pairwise MADD by (1 - lam)."
    )
    table = format_table(["MADD"] + [name for name, _ in columns], rows)
    return table + "\n\n" + textwrap.fill(note, width=_WIDTH)


def repair_section(context):
    """Disparities before and after a Wasserstein-barycenter repair of the model's scores.

    The repair (:class:`~skfair.postprocessing.BarycenterRepair`, groups = the joint cells of
    all sensitive attributes) is cross-fitted on the evaluation rows: each half is repaired
    with the map fitted on the other half, so every repaired score is out of sample.
    """
    if context.y_score is None:
        return "The model has neither predict_proba nor decision_function: no scores to repair."
    from skfair.postprocessing import BarycenterRepair

    threshold = 0.5 if hasattr(context.model, "predict_proba") else 0.0
    cells = factorize_groups(dict(context.sensitive)).codes
    rng = np.random.default_rng(context.random_state)
    # Alternate the two halves inside each cell (in random order), so both halves hold every
    # cell of two rows or more.
    order = np.lexsort((rng.random(cells.size), cells))
    starts = np.searchsorted(cells[order], cells[order], side="left")
    half = np.empty(cells.size, dtype=bool)
    half[order] = (np.arange(cells.size) - starts) % 2 == 1
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
    columns = list(context.sensitive.items())
    if len(columns) > 1:
        columns.append((" & ".join(context.sensitive), dict(context.sensitive)))
    rows = []
    for name, values in columns:
        for metric, before, after in (
            (ks_bias, scores, repaired),
            (statistical_parity_difference, context.y_pred, y_repaired),
            (equalized_odds_difference, context.y_pred, y_repaired),
        ):
            rows.append(
                [
                    metric.__name__,
                    name,
                    format_number(metric(context.y_test, before, sensitive_features=values)),
                    format_number(metric(context.y_test, after, sensitive_features=values)),
                ]
            )
    rows.append(
        [
            "accuracy",
            "(all rows)",
            format_number(np.mean(context.y_pred == context.y_test)),
            format_number(np.mean(y_repaired == context.y_test)),
        ]
    )
    note = (
        f"after = BarycenterRepair (epsilon=0) of the scores over the joint groups, "
        f"cross-fitted on two halves of the evaluation rows, thresholded at {threshold}. "
        "Differences are the largest gap between any two groups, unsigned; ks_bias compares "
        "the score distributions. The repair equalises the score distributions of the joint "
        "groups (demographic parity); it does not target equalized odds."
    )
    table = format_table(["metric", "attribute", "before", "after"], rows)
    return table + "\n\n" + textwrap.fill(note, width=_WIDTH)


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
        return "n/a: the model gives no scores (neither predict_proba nor decision_function)."
    from skfair.explain import BiasExplainer

    rng = np.random.default_rng(context.random_state)
    n_rows = context.y_test.shape[0]
    rows = np.sort(rng.choice(n_rows, min(n_rows, _BIAS_SOURCE_ROWS), replace=False))
    X = context.X_test.iloc[rows] if hasattr(context.X_test, "iloc") else context.X_test[rows]
    classes = np.asarray(getattr(context.model, "classes_", []))
    positive = 1 if classes.size and _match(classes, 1).any() else context.positive_label
    blocks = []
    for name, values in context.sensitive.items():
        explainer = BiasExplainer(
            context.model,
            method="pdp",
            pos_label=positive if classes.size else None,
            privileged_group=context.privileged.get(name),
            n_background=_BIAS_SOURCE_BACKGROUND,
            random_state=context.random_state,
        ).fit(X, sensitive_features=values[rows])
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
        model_row = ["model (W1 bias)"] + [
            format_number(bias[part]) for part in ("total", "positive", "negative", "net")
        ]
        feature_rows = [
            [str(names[j])]
            + [format_number(ex[part][j]) for part in ("total", "positive", "negative", "net")]
            for j in top
        ]
        blocks.append(format_table(header, [model_row, *feature_rows]))
    note = (
        f"Scores of the favourable class on {rows.size:,} random evaluation rows (random_state="
        f"{context.random_state}), background {_BIAS_SOURCE_BACKGROUND} rows. beta = W1 distance "
        "between the groups' distributions of a feature's partial-dependence explainer; beta+ "
        "= part where the first-named (privileged) group is favoured, beta- = the other group "
        "favoured, net = beta+ - beta-. Top features by beta+. Explanations are not additive "
        "(features offset and amplify each other); BiasExplainer(method='shapley') gives "
        "additive Shapley-bias values. Without --privileged the group favoured on average is "
        "named first."
    )
    return "\n\n".join(blocks) + "\n\n" + textwrap.fill(note, width=_WIDTH)


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
        return "HFM needs the evaluation features with column names; none were given."
    n = X.shape[0]
    rows = np.arange(n)
    if n > _HFM_ROWS:
        rng = np.random.default_rng(context.random_state)
        rows = np.sort(rng.choice(n, size=_HFM_ROWS, replace=False))
    sensitive = {name: np.asarray(values)[rows] for name, values in context.sensitive.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a single-valued attribute shows as n/a
        details = hfm(
            X[rows],
            np.asarray(context.y_test)[rows],
            np.asarray(context.y_pred)[rows],
            sensitive_features=sensitive,
            return_details=True,
        )
    by = details.by_attribute
    columns = list(details.attributes)
    table_rows = [
        ["hfm (max)"]
        + [format_number(v) for v in by["hfm_max"]]
        + [format_number(details.hfm_max)],
        ["hfm (avg)"]
        + [format_number(v) for v in by["hfm_avg"]]
        + [format_number(details.hfm_avg)],
        ["D max (data)"] + [format_number(v) for v in by["D_max"]] + [format_number(details.D_max)],
        ["D_f max (model)"]
        + [format_number(v) for v in by["D_f_max"]]
        + [format_number(details.D_f_max)],
        ["D avg (data)"] + [format_number(v) for v in by["D_avg"]] + [format_number(details.D_avg)],
        ["D_f avg (model)"]
        + [format_number(v) for v in by["D_f_avg"]]
        + [format_number(details.D_f_avg)],
    ]
    header = ["HFM"] + columns + ["all (max / mean)"]
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
    return format_table(header, table_rows) + "\n\n" + textwrap.fill(note, width=_WIDTH)


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
    "bias_sources": ("Where does the bias come from", bias_sources_section),
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
