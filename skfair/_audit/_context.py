"""The audit context: the data, the fitted model, its predictions and scores, the groups.

:func:`adult_context` builds it on the bundled Adult data and :func:`csv_context` on a user's
csv file; both train a plain model (:func:`plain_model`) unless a fitted one is given.
The audit runs with the required dependencies only (numpy, scipy, scikit-learn, joblib): data
are numpy arrays and csv files are parsed without pandas, unless a ``--model`` was fitted on a
DataFrame.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field

import numpy as np
from sklearn.compose import make_column_transformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils import Bunch

from skfair._audit._csv import column_rows, feature_rows
from skfair._audit._subsample import (
    DEFAULT_MAX_TRAIN_ROWS,
    describe_subsample,
    stratified_split,
    stratified_subsample,
)
from skfair._utils._groups import factorize_groups
from skfair._utils._response import DECISION_METHODS, ScoreReader
from skfair.datasets import load_adult
from skfair.datasets._csv import TextCategories, read_csv_file


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
        Score of the favourable class (``predict_proba`` column, else ``decision_function``,
        read by :func:`score_reader` with scikit-learn's rules); None when the model gives no
        such score, the reason then being ``description["scores"]``.
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
    row_ids : ndarray of shape (n_test,) or None
        Position of each evaluation row among the data rows of its file (0 for the first row
        after the header); None means ``0, 1, ...``.
    model_positive_label : object or None
        The model's class for the favourable outcome when it is not ``positive_label`` (the
        plain model trained on a csv file predicts 0/1); None means ``positive_label``.
    shown_sections : tuple of str
        Names of the sections of this report (set when they are computed), so that a note
        refers only to sections that are shown.
    subgroup_options : dict
        Settings of the subgroup search (``columns``, ``max_level``, ``metric``), from the
        ``--subgroups-*`` options; empty for the defaults.
    shared : dict
        Results computed once and used by several sections (the subgroup search feeds its
        section and the summary's findings).
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
    row_ids: np.ndarray | None = None
    model_positive_label: object = None
    shown_sections: tuple = ()
    subgroup_options: dict = field(default_factory=dict)
    shared: dict = field(default_factory=dict, repr=False)

    def favourable_class(self):
        """The model's class for the favourable outcome (1 in ``y_test``)."""
        return (
            self.positive_label if self.model_positive_label is None else self.model_positive_label
        )


# --------------------------------------------------------------------------------------------
# building the context


def plain_model(categorical, numeric):
    """One-hot encoded categorical columns, imputed and scaled numeric ones, logistic regression.

    ``categorical`` and ``numeric`` are column indices (or names, for a DataFrame). The
    indicators are float32 when there are numeric columns (0 and 1 exactly, half the
    memory): stacked with the float64 numeric columns they become float64, so the model sees
    the same numbers.
    """
    indicators = np.float32 if len(numeric) else np.float64
    return make_pipeline(
        make_column_transformer(
            (OneHotEncoder(handle_unknown="ignore", dtype=indicators), categorical),
            (make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), numeric),
        ),
        LogisticRegression(max_iter=1000),
    )


def adult_context(
    *, model=None, privileged=None, random_state=0, max_train_rows=DEFAULT_MAX_TRAIN_ROWS
):
    """Audit context on the bundled Adult data, sensitive attributes ``sex`` and ``race``.

    Without ``model``, :func:`plain_model` is trained on the train split (on a stratified
    sample of ``max_train_rows`` of its 32,561 rows when it is smaller,
    :func:`~skfair._audit._subsample.stratified_subsample`); the evaluation rows are the test
    split in both cases. A given ``model`` must predict the 0/1 target of
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
        sensitive_train = _attributes(bunch)
        n_train = bunch.target.shape[0]
        kept = _training_sample(
            bunch.target,
            [factorize_groups(values).codes for values in sensitive_train.values()],
            max_train_rows,
            random_state,
        )
        if kept.size < n_train:
            description["training sample"] = describe_subsample(
                kept.size, n_train, test.target.shape[0], max_train_rows, random_state
            )
        train = {
            "X_train": bunch.data[kept],
            "y_train": bunch.target[kept],
            "sensitive_train": {name: values[kept] for name, values in sensitive_train.items()},
        }
        model = plain_model(categorical, numeric).fit(train["X_train"], train["y_train"])
        description["model"] = (
            "logistic regression on one-hot encoded categorical and scaled numeric features "
            f"(all 14 columns, sex and race included), trained on the train split "
            f"({n_train:,} rows)"
        ) + ("" if kept.size == n_train else f", {kept.size:,} of them sampled")
        X_test = test.data
    else:
        description["model"] = (
            f"{_model_name(model)} from --model, evaluated on the bundled Adult test split "
            "(no --data given)"
        )
        _check_classes(model, 1)
        names = test.feature_names.tolist()
        X_test = _model_input(model, {name: test.data[:, j] for j, name in enumerate(names)}, names)
    return _evaluated(
        model,
        X_test,
        y_test=test.target,
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
    bins=None,
    test_size=0.3,
    random_state=0,
    eval_rows=None,
    max_train_rows=DEFAULT_MAX_TRAIN_ROWS,
):
    """Audit context on a user's csv file.

    ``bins`` maps numeric sensitive columns to a number of quantile bins their values are
    grouped into (:func:`quantile_bins`); the model still sees the original column.

    ``eval_rows`` names the evaluation rows (:func:`evaluation_rows`): ``("column", COL,
    VALUE)``, the rows whose column COL holds VALUE (COL is then no feature), or ``("range",
    start, stop)``, data rows ``start`` (from 0) to ``stop`` (excluded; None: to the end).

    Without ``model``, :func:`plain_model` is trained on the other rows (all columns but the
    target are features), or, without ``eval_rows``, on a stratified split of the file, and
    evaluated on the rest. When there are more than ``max_train_rows`` training rows, it (and
    every section that retrains it) is trained on a random sample of that many, stratified by
    the target and the sensitive attributes; the description says so. The evaluation rows are
    all kept. Text columns with few distinct values are kept as categories (codes into their
    strings, :class:`~skfair.datasets._csv.TextCategories`), and the plain model's features
    are pandas categoricals when pandas is installed.

    A fitted ``model`` is evaluated on the ``eval_rows``, or on all rows (the description
    then cautions that rows the model was fitted on make the results in-sample); a model
    fitted on a DataFrame receives the columns named in its ``feature_names_in_``, any other
    model all columns but the target (and the split column), in file order, text as strings.
    The model predicts the target's own values, ``positive_label`` among them.
    """
    table = read_csv_file(path, categories=True)
    names, columns = table.names, table.columns
    for name in [target, *sensitive]:
        if name not in columns:
            raise ValueError(f"Column {name!r} is not in {path}; its columns are {names}.")
    labels = columns[target]
    missing = _missing(labels)
    if missing.any():
        raise ValueError(
            f"The target column {target!r} has empty values (first at line "
            f"{table.line(np.argmax(missing))} of {path}, the header being line 1)."
        )
    positive_label = _positive_label(labels, positive_label, target)
    y = _match_column(labels, positive_label).astype(np.int64)
    if target in sensitive:
        raise ValueError(
            f"The target {target!r} cannot also be a sensitive attribute: each group would "
            "hold a single class. Name the attributes the groups are defined by."
        )
    for name in sensitive:
        missing = _missing(columns[name])
        if missing.any():
            raise ValueError(
                f"The sensitive column {name!r} has missing values (first at line "
                f"{table.line(np.argmax(missing))} of {path}, the header being line 1); fill them "
                "or drop those rows."
            )
    bins = dict(bins or {})
    unknown = sorted(set(bins) - set(sensitive))
    if unknown:
        raise ValueError(f"--bins names {unknown}, which are not --sensitive columns {sensitive}.")
    attributes = {
        name: quantile_bins(columns[name], bins[name], name=name) if name in bins else columns[name]
        for name in sensitive
    }
    encodings = {name: _encode(values) for name, values in attributes.items()}
    single = {name: enc.labels[0] for name, enc in encodings.items() if len(enc.labels) == 1}
    if single:
        raise ValueError(
            "; ".join(
                f"{name!r} holds a single value ({label!r})" for name, label in single.items()
            )
            + f" in {path}: there are no groups to compare. Name sensitive columns with two "
            "groups or more."
        )
    privileged = check_privileged(
        privileged, {name: encoding.labels for name, encoding in encodings.items()}
    )
    held_out = None if eval_rows is None else evaluation_rows(eval_rows, columns, y.shape[0], path)
    split_column = eval_rows[1] if eval_rows is not None and eval_rows[0] == "column" else None
    feature_names = [name for name in names if name not in (target, split_column)]
    description = {
        "data": f"{path} ({labels.shape[0]:,} rows)",
        "target": f"{target}; favourable outcome {positive_label!r} = 1",
    }
    many = {
        name: len(encoding.labels)
        for name, encoding in encodings.items()
        if len(encoding.labels) > MANY_GROUPS
    }
    if many:
        description["hint"] = "; ".join(
            f"{name!r} has {count} groups" for name, count in many.items()
        ) + (
            ": small groups make every comparison noisy and pairwise ones slow. Group a "
            "numeric column into K quantile bins with --bins COL=K."
        )
    # per-row arrays no longer needed: not kept while the model trains
    del labels, missing
    if model is not None:
        _check_classes(model, positive_label)
        X = _model_input(model, columns, feature_names)
        rows = np.arange(y.shape[0]) if held_out is None else np.flatnonzero(held_out)
        if held_out is None:
            description["model"] = f"{_model_name(model)} from --model, evaluated on all rows"
            description["caution"] = IN_SAMPLE_CAUTION
        else:
            X = _take_rows(X, rows)
            description["model"] = (
                f"{_model_name(model)} from --model, evaluated on the {rows.size:,} rows named "
                f"by --eval-rows ({_describe_eval_rows(eval_rows)})"
            )
        X_test, test_rows = X, rows
        fields = {
            "feature_names": _column_names(X, feature_names),
            "row_ids": None if held_out is None else rows,
        }
    else:
        categorical = [j for j, name in enumerate(feature_names) if _is_text(columns[name])]
        numeric = [j for j in range(len(feature_names)) if j not in categorical]
        if held_out is None:
            train_rows, test_rows = stratified_split(y, test_size, random_state)
            split = f"split at random (random_state={random_state})"
        else:
            if held_out.all():
                raise ValueError(
                    f"--eval-rows {_describe_eval_rows(eval_rows)} names every row of {path}, "
                    "which leaves no row to train a model on; name the held-out rows only, or "
                    "pass the fitted model with --model."
                )
            train_rows, test_rows = np.flatnonzero(~held_out), np.flatnonzero(held_out)
            split = f"split by --eval-rows ({_describe_eval_rows(eval_rows)})"
        n_train = train_rows.size
        train_rows = train_rows[
            _training_sample(
                y[train_rows],
                [encodings[name].codes[train_rows] for name in attributes],
                max_train_rows,
                random_state,
            )
        ]
        del encodings
        # Each value once, in its training or its evaluation rows; the file's columns go.
        X_train, X_test = (
            feature_rows(columns, feature_names, rows) for rows in (train_rows, test_rows)
        )
        del table, columns, held_out
        model = plain_model(categorical, numeric).fit(X_train, y[train_rows])
        description["data"] += (
            f", {split} into {n_train:,} training and {test_rows.size:,} evaluation rows"
        )
        description["model"] = (
            "logistic regression on one-hot encoded categorical and scaled numeric features "
            f"(all {len(feature_names)} columns but the target), trained on the training rows"
        ) + ("" if train_rows.size == n_train else f" ({train_rows.size:,} of them sampled)")
        if train_rows.size < n_train:
            description["training sample"] = describe_subsample(
                train_rows.size, n_train, test_rows.size, max_train_rows, random_state
            )
        fields = {
            "X_train": X_train,
            "y_train": y[train_rows],
            "sensitive_train": {
                name: column_rows(values, train_rows) for name, values in attributes.items()
            },
            "feature_names": feature_names,
            "row_ids": test_rows,
            "model_positive_label": 1,
        }
    # One evaluation whichever way the model came: its rows' target and groups, and the fields
    # of that way (the training rows of a trained model).
    return _evaluated(
        model,
        X_test,
        y_test=y[test_rows],
        sensitive={name: column_rows(values, test_rows) for name, values in attributes.items()},
        privileged=privileged,
        positive_label=positive_label,
        description=description,
        random_state=random_state,
        **fields,
    )


# More groups than this in a sensitive column get a hint in the summary.
MANY_GROUPS = 20

IN_SAMPLE_CAUTION = (
    "the model is evaluated on every row of --data; if some of them were used to fit it, the "
    "results are in-sample (accuracy too high, gaps misstated). Name the rows it was not "
    "fitted on with --eval-rows COL=VALUE (a split column) or --eval-rows START:STOP."
)


def evaluation_rows(eval_rows, columns, n_rows, path):
    """Boolean mask of the rows named by ``eval_rows`` (see :func:`csv_context`)."""
    kind, first, second = eval_rows
    if kind == "column":
        if first not in columns:
            raise ValueError(
                f"--eval-rows {first}={second}: column {first!r} is not in {path}; its columns "
                f"are {list(columns)}."
            )
        values = columns[first]
        mask = _match_column(values, second)
        if not _is_text(values) and values.dtype.kind in "iuf" and not mask.any():
            # "2020" names the value 2020.0 of a numeric column too.
            mask = values == _as_number(second)
        if not mask.any():
            present = [str(value) for value in _distinct_text(values)[:10]]
            raise ValueError(
                f"--eval-rows {first}={second}: no row of {path} has {first} = {second!r}; its "
                f"values include {present}."
            )
        return mask
    start, stop = first, n_rows if second is None else second
    if not 0 <= start < min(stop, n_rows):
        raise ValueError(
            f"--eval-rows {_describe_eval_rows(eval_rows)} names no data row of {path}, which "
            f"has {n_rows:,} (numbered from 0)."
        )
    if stop > n_rows:
        raise ValueError(
            f"--eval-rows {_describe_eval_rows(eval_rows)} goes past the last data row of "
            f"{path}, which has {n_rows:,} (numbered from 0)."
        )
    mask = np.zeros(n_rows, dtype=bool)
    mask[start:stop] = True
    return mask


def _as_number(text):
    try:
        return float(text)
    except ValueError:
        return np.nan


def _describe_eval_rows(eval_rows):
    kind, first, second = eval_rows
    if kind == "column":
        return f"{first}={second}"
    return f"{first}:{'' if second is None else second}"


def _take_rows(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def quantile_bins(values, n_bins, *, name):
    """Group a numeric column into at most ``n_bins`` bins of about equal counts.

    The bin edges are quantiles of ``values`` (repeated edges merged); each value gets the
    label ``"[low, high)"`` of its bin (the last bin is closed). Labels are padded so that
    their text order is the order of the bins (``q1``, ``q2``, ...). Returns the bins as
    categories (:class:`~skfair.datasets._csv.TextCategories`), the empty ones left out.
    """
    if _is_text(values) or values.dtype.kind not in "iuf":
        raise ValueError(
            f"--bins {name}={n_bins}: {name!r} is not numeric; --bins groups numeric columns."
        )
    if np.isnan(values.astype(np.float64)).any():
        raise ValueError(f"--bins {name}={n_bins}: {name!r} has missing values.")
    edges = np.unique(np.quantile(values, np.linspace(0, 1, n_bins + 1)))
    if edges.size < 2:
        edges = np.array([values.min(), values.max()])
    codes = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, edges.size - 2)
    width = len(str(edges.size - 1))
    labels = np.array(
        [
            f"q{k + 1:0{width}d} [{low:g}, {high:g}" + ("]" if k == edges.size - 2 else ")")
            for k, (low, high) in enumerate(zip(edges[:-1], edges[1:], strict=True))
        ],
        dtype=object,
    )
    used = np.flatnonzero(np.bincount(codes, minlength=labels.size))
    recode = np.zeros(labels.size, dtype=np.int16)
    recode[used] = np.arange(used.size)
    return TextCategories(codes=recode[codes], labels=labels[used])


def check_privileged(privileged, attributes):
    """``privileged`` maps attribute names to a group label, which must occur in the data.

    ``attributes`` maps the names to their values (or to their distinct values).
    """
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
    if isinstance(labels, TextCategories):
        present = labels.labels.astype(str)
    else:
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
    n_features = getattr(model, "n_features_in_", None)
    if expected is None and n_features is not None and n_features != len(feature_names):
        raise ValueError(
            f"The model was fitted on {n_features} unnamed columns (a numpy array), but the "
            f"data have {len(feature_names)} columns besides the target: {feature_names}. A "
            "model fitted on an array gets every column but the target, in file order; fit it "
            "on a DataFrame to have its columns picked by name."
        )
    # A fitted model gets text as strings, the form it was fitted on (a model may select or
    # encode its columns by dtype).
    if expected is None:
        X = np.empty((columns[feature_names[0]].shape[0], len(feature_names)), dtype=object)
        for j, name in enumerate(feature_names):
            X[:, j] = _as_objects(columns[name])
        return X
    missing = [name for name in expected if name not in columns]
    if missing:
        raise ValueError(f"The model was fitted on columns that the data lack: {missing}.")
    try:
        import pandas as pd
    except ImportError as exc:
        from skfair._utils._compat import install_hint

        raise ImportError(
            "The model was fitted on a pandas DataFrame, so the audit needs pandas to pass it "
            f"one: {install_hint('pandas')}."
        ) from exc
    return pd.DataFrame({name: _as_objects(columns[name]) for name in expected})


def _check_classes(model, positive_label):
    """The model must know the favourable label as one of its classes."""
    classes = getattr(model, "classes_", None)
    if classes is not None and not _match(np.asarray(classes), positive_label).any():
        raise ValueError(
            f"The model's classes are {np.asarray(classes).tolist()}; the favourable label "
            f"{positive_label!r} is not among them. Fit the model on the target's own values."
        )


def _predict(model, X, *, positive_label):
    """0/1 predictions (1 = ``positive_label``), the score of that class, and why not.

    The score is read by :class:`~skfair._utils._response.ScoreReader` (``predict_proba``, else
    ``decision_function``, with scikit-learn's rules); it is None, with the reason as the
    third value, when the model gives no score of the favourable class (no such method, a
    multi-class ``decision_function``, scores that are not finite numbers).
    """
    _check_classes(model, positive_label)
    try:
        predictions = in_row_blocks(model.predict, X)
    except ValueError as exc:
        kind = "a DataFrame" if hasattr(X, "columns") else "an object array, in file order"
        raise ValueError(
            f"The model cannot predict on the data's columns (passed as {kind}): {exc}"
        ) from exc
    y_pred = _match(predictions, positive_label).astype(np.int64)
    try:
        reader = score_reader(model, positive_label)
        output = in_row_blocks(getattr(model, reader.method), X)
        return y_pred, reader.scores_of(model, output), None
    except ValueError as exc:
        return y_pred, None, str(exc)


# Rows a model predicts at a time in the audit: memory holds the model's intermediate arrays
# (a pipeline's transformed features) for this many rows, not for every evaluation row.
ROW_BLOCK = 1 << 16


def in_row_blocks(method, X):
    """``method(X)`` computed on blocks of :data:`ROW_BLOCK` rows of ``X``, stacked.

    For a method that computes each row's output from that row alone (``predict``,
    ``predict_proba``, ``decision_function`` of a fitted model, by scikit-learn's contract),
    the result is ``np.asarray(method(X))``. A method returning a
    :class:`~sklearn.utils.Bunch` of per-row arrays gets each of them stacked.
    """
    n_rows = X.shape[0]
    if n_rows <= ROW_BLOCK:
        output = method(X)
        return output if isinstance(output, Bunch) else np.asarray(output)
    blocks = [
        method(_take_rows(X, slice(start, start + ROW_BLOCK)))
        for start in range(0, n_rows, ROW_BLOCK)
    ]
    if isinstance(blocks[0], Bunch):
        return Bunch(**{key: np.concatenate([block[key] for block in blocks]) for key in blocks[0]})
    return np.concatenate([np.asarray(block) for block in blocks])


def _evaluated(model, X_test, *, positive_label, description, model_positive_label=None, **fields):
    """The context of ``model`` evaluated on ``X_test``: its predictions and scores of the
    favourable class, the reason for no scores in ``description``, and the other ``fields``."""
    y_pred, y_score, no_scores = _predict(
        model,
        X_test,
        positive_label=positive_label if model_positive_label is None else model_positive_label,
    )
    if no_scores is not None:
        description["scores"] = f"none: {no_scores}"
    return AuditContext(
        model=model,
        X_test=X_test,
        y_pred=y_pred,
        y_score=y_score,
        positive_label=positive_label,
        description=description,
        model_positive_label=model_positive_label,
        **fields,
    )


def score_reader(model, positive_label):
    """The :class:`~skfair._utils._response.ScoreReader` of the favourable class's score.

    ``positive_label`` is matched to the model's classes as text when the types differ (csv
    labels are text). Raises ValueError when the model gives no such score (no classes, no
    ``predict_proba`` or ``decision_function``, multi-class ``decision_function``).
    """
    classes = getattr(model, "classes_", None)
    if classes is None:
        raise ValueError("the model has no classes_, so no class to read a score of")
    classes = np.asarray(classes)
    pos_label = classes[np.flatnonzero(_match(classes, positive_label))[0]]
    return ScoreReader.from_estimator(model, DECISION_METHODS, pos_label=pos_label)


def _match(values, label):
    """``values == label``, comparing as text when the types differ (csv labels are text)."""
    if values.dtype.kind in "iufb" and isinstance(label, (int, float, np.number)):
        return values == label
    return values.astype(str) == str(label)


# --------------------------------------------------------------------------------------------
# the file's columns: numeric arrays, text as categories (or strings, when they are many)


def _is_text(column):
    return isinstance(column, TextCategories) or column.dtype == object


def _as_objects(column):
    """The column as an array; categories as an object array of their strings."""
    return column.objects() if isinstance(column, TextCategories) else column


def _missing(column):
    """Mask of the empty fields."""
    return column.missing() if isinstance(column, TextCategories) else column != column


def _match_column(column, label):
    """``column == label`` (see :func:`_match`); on categories, one comparison per category."""
    if isinstance(column, TextCategories):
        return np.append(_match(column.labels, label), False)[column.codes]
    return _match(column, label)


def _distinct_text(column):
    if isinstance(column, TextCategories):
        return column.labels.astype(str)
    return np.unique(column.astype(str))


class _Groups:
    """The groups of a sensitive column: its distinct values and each row's code."""

    def __init__(self, labels, codes):
        self.labels, self.codes = labels, codes


def _encode(column):
    """The :class:`_Groups` of a sensitive column without missing values."""
    if isinstance(column, TextCategories):
        return _Groups(column.labels, column.codes)
    encoding = factorize_groups(column)
    return _Groups(encoding.labels, encoding.codes)


def _training_sample(y, group_codes, max_train_rows, random_state):
    """Positions of the training rows the models are trained on (all, up to the cap).

    The strata are the cells of the 0/1 target and the groups (``group_codes``, one array of
    codes from 0 per attribute), coded in the smallest integer type that holds them.
    """
    if y.shape[0] <= max_train_rows:
        return np.arange(y.shape[0])
    strata, n_strata = y, 2
    for codes in group_codes:
        n_codes = int(codes.max()) + 1
        if n_strata * n_codes > y.shape[0]:  # more cells than rows: number the present ones
            _, strata = np.unique(strata, return_inverse=True)
            n_strata = int(strata.max()) + 1
        dtype = np.min_scalar_type(n_strata * n_codes - 1)
        strata = strata.astype(dtype) * dtype.type(n_codes) + codes.astype(dtype)
        n_strata *= n_codes
    return stratified_subsample(strata, max_train_rows, random_state)


def write_predictions(context, path):
    """Write the evaluation rows' position, sensitive attributes, y_true, y_pred, y_score.

    The first column, ``row`` (``input_row`` if an attribute has that name), is the position
    of the row among the data rows of the input (0 for the first row after the header), to join
    the predictions back to the input.
    """
    n_rows = context.y_test.shape[0]
    row_column = "row" if "row" not in context.sensitive else "input_row"
    columns = {row_column: np.arange(n_rows) if context.row_ids is None else context.row_ids}
    columns.update(context.sensitive)
    columns.update(y_true=context.y_test, y_pred=context.y_pred)
    if context.y_score is not None:
        columns["y_score"] = context.y_score
    with open(path, "w", encoding="utf-8", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(list(columns))
        writer.writerows(zip(*(values.tolist() for values in columns.values()), strict=True))
