"""The audit section "repairing the data": the model retrained on repaired training data.

The audited model is compared with copies of it retrained on the training rows (1) as they
are, (2) reweighed (Kamiran & Calders 2012, :func:`~skfair.preprocessing.reweighing_weights`)
and (3) with their numeric features repaired (:class:`~skfair.preprocessing.FeatureRepair`),
accuracy and disparities side by side on the evaluation rows. The groups are the joint cells
of all sensitive attributes.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import clone

from skfair._audit._context import in_row_blocks
from skfair._audit._report import Section, Table
from skfair._audit._summary import MIN_ROWS
from skfair._utils._groups import factorize_groups, group_text
from skfair.metrics import equalized_odds_difference, statistical_parity_difference


def data_repair_section(context):
    """Accuracy and disparities of the model retrained on reweighed or repaired training data.

    The retrained copies do not see the sensitive columns (set to one value), so that what is
    left of the disparities comes through the other features; the evaluation rows of the
    repaired-features model are repaired with the maps fitted on the training rows.
    """
    if context.X_train is None:
        return Section(
            message="n/a: retraining the model on repaired data needs its training data, "
            "which a --model does not come with."
        )
    from skfair.preprocessing import FeatureRepair, ReweighingClassifier

    X_train, X_test = (_blank_sensitive(context, X) for X in (context.X_train, context.X_test))
    s_train, s_test = dict(context.sensitive_train), dict(context.sensitive)
    y_train = context.y_train
    predictions = {"audited": context.y_pred}
    notes = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # small cells, categorical pass-through
        # Predictions a block of rows at a time (the same labels, a block's features in memory).
        unaware = clone(context.model).fit(X_train, y_train)
        predictions["unaware"] = in_row_blocks(unaware.predict, X_test)
        reweighed = ReweighingClassifier(clone(context.model), random_state=context.random_state)
        reweighed.fit(X_train, y_train, sensitive_features=s_train)
        predictions["reweighed"] = in_row_blocks(reweighed.predict, X_test)
        repair = FeatureRepair(handle_unknown="identity", random_state=context.random_state)
        if hasattr(X_train, "columns"):
            # Typed columns (float64 repaired, the others in their own dtypes) rather than an
            # object array boxing every number.
            repair.set_output(transform="pandas")
        try:
            repaired = repair.fit_transform(X_train, sensitive_features=s_train)
        except ValueError as error:  # e.g. missing values in a numeric column
            notes.append(f"repaired: FeatureRepair could not run: {error}")
        else:
            model = clone(context.model).fit(repaired, y_train)
            del repaired  # one repaired copy at a time: the evaluation rows' comes next
            predictions["repaired"] = in_row_blocks(
                model.predict, repair.transform(X_test, sensitive_features=s_test)
            )
    predictions = {name: np.asarray(y).astype(np.int64) for name, y in predictions.items()}
    attributes = [(name, values) for name, values in context.sensitive.items()]
    if len(attributes) > 1:
        attributes.append((" & ".join(context.sensitive), s_test))
    rows = [["accuracy", ""] + [float(np.mean(y == context.y_test)) for y in predictions.values()]]
    for title, metric in (
        ("DP", statistical_parity_difference),
        ("EO", equalized_odds_difference),
    ):
        for name, values in attributes:
            rows.append(
                [title, name]
                + [
                    float(metric(context.y_test, y, sensitive_features=values))
                    for y in predictions.values()
                ]
            )
    header = ["metric", "attribute", *predictions]
    notes.insert(
        0,
        "On the evaluation rows. audited: the model as given. The other columns retrain a "
        "copy of it with the sensitive columns set to one value: unaware, on the training rows "
        "as they are; reweighed, with the weights P(a)P(y)/P(a,y) of the joint groups "
        "(Kamiran & Calders 2012) as sample_weight or by resampling; repaired, on training "
        "rows whose numeric columns are mapped to the groups' barycenter distribution "
        "(FeatureRepair, amount=1; categorical columns unchanged, so they can still carry the "
        "attribute), evaluation rows repaired with the training maps. DP = "
        "statistical_parity_difference, EO = equalized_odds_difference (worst case), each the "
        "largest gap between any two groups.",
    )
    notes += _few_rows_notes(np.asarray(context.y_test), attributes)
    return Section(blocks=[Table(header, rows)], notes=notes)


def _few_rows_notes(y_true, attributes):
    """A caution for each DP or EO row whose rates include one computed on few rows.

    DP compares the groups' selection rates (all their rows), EO their TPR (rows with y=1) and
    FPR (rows with y=0); a rate on k rows moves by 1/k when one prediction changes, so a
    change between the columns can be a handful of rows.
    """
    notes = []
    for name, values in attributes:
        groups = factorize_groups(values)
        n = groups.n_groups
        behind = {
            "DP": [("rows", np.bincount(groups.codes, minlength=n))],
            "EO": [
                (f"rows with y={label}", np.bincount(groups.codes[y_true == label], minlength=n))
                for label in (1, 0)
            ],
        }
        for metric, parts in behind.items():
            # The smallest positive count (a group without rows has no rate and is left out).
            fewest, what, g = min(
                (int(counts[g]), what, g)
                for what, counts in parts
                for g in np.flatnonzero(counts > 0)
            )
            if fewest < MIN_ROWS:
                notes.append(
                    f"{metric} of {name}: small groups. {group_text(groups.labels[g])} has "
                    f"{fewest} {what}, so one changed prediction moves its rate by "
                    f"{1 / fewest:.2f}; below {MIN_ROWS} rows a change between the columns "
                    "can be noise (the summary gives each rate's rows and interval)."
                )
    return notes


def _blank_sensitive(context, X):
    """``X`` with its sensitive columns (those named like an attribute) set to one value, the
    first training row's, in training and evaluation rows alike."""
    names = list(context.sensitive)
    if hasattr(X, "columns"):
        present = [name for name in names if name in X.columns]
        first = context.X_train.iloc[0]
        return X.assign(**{name: first[name] for name in present}) if present else X
    columns = context.feature_names or []
    positions = [columns.index(name) for name in names if name in columns]
    if not positions:
        return X
    X = np.array(X, copy=True)
    X[:, positions] = np.asarray(context.X_train)[0, positions]
    return X
