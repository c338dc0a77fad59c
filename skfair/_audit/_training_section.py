"""The audit section "trained under a constraint": the model retrained by the reductions."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from skfair._audit._context import in_row_blocks
from skfair._audit._report import Section, Table
from skfair._utils._random import check_generator
from skfair.metrics import equalized_odds_difference, statistical_parity_difference

# The constraint and bound the model is retrained under.
TRAINING_CONSTRAINT = "equalized_odds"
TRAINING_EPS = 0.02
# Kept small so that the whole audit stays fast: training rows used, best responses at most.
_TRAINING_ROWS = 5000
_TRAINING_MAX_ITER = 10
_ROWS = ("accuracy", "equalized_odds_difference", "statistical_parity_difference")


def training_section(context):
    """Accuracy and gaps of the model and of the model retrained under a fairness constraint.

    :class:`~skfair.reductions.ExponentiatedGradient` retrains a clone of the model under
    :data:`TRAINING_CONSTRAINT` with the bound :data:`TRAINING_EPS` (Agarwal et al. 2018),
    one retrained model per sensitive attribute, on at most ``_TRAINING_ROWS`` training rows
    drawn at random and with at most ``_TRAINING_MAX_ITER`` best responses (to keep the audit
    fast). Unlike the group thresholds, the retrained model does not use the sensitive
    attribute to decide. Both are compared on the evaluation rows: the deterministic
    ``predict`` and the randomised mixture the guarantee is about.
    """
    if context.X_train is None:
        return Section(
            message="n/a: retraining the model under a constraint needs its training data, "
            "which a --model does not come with."
        )
    from skfair.reductions import ExponentiatedGradient

    rng = check_generator(context.random_state)
    n_train = len(context.y_train)
    rows = np.sort(rng.choice(n_train, size=min(n_train, _TRAINING_ROWS), replace=False))
    X_train = _take(context.X_train, rows)
    favourable = context.favourable_class()
    y_train = np.asarray(context.y_train)[rows]
    table_rows, fitted, failures, gap_notes = [], {}, [], []
    for name, values in context.sensitive.items():
        privileged = context.privileged.get(name)
        groups_train = np.asarray(context.sensitive_train[name])[rows]
        model = ExponentiatedGradient(
            clone(context.model),
            constraint=TRAINING_CONSTRAINT,
            eps=TRAINING_EPS,
            privileged_group=privileged,
            max_iter=_TRAINING_MAX_ITER,
            random_state=context.random_state,
        )
        try:
            model.fit(X_train, y_train, sensitive_features=groups_train)
        except ValueError as error:  # e.g. a group absent from the subsample
            failures.append(f"{name}: {error}")
            continue
        fitted[name] = model
        model.set_params(predict_method="deterministic")
        # the deterministic rule a block of rows at a time (the same labels, less memory)
        decisions = {"predict": in_row_blocks(model.predict, context.X_test) == favourable}
        model.set_params(predict_method="randomized")
        decisions["randomised"] = model.predict(context.X_test) == favourable
        kwargs = {} if privileged is None else {"privileged_group": privileged}
        for metric_name in _ROWS:
            cells = [metric_name, name]
            for y_pred in (context.y_pred, decisions["predict"], decisions["randomised"]):
                y_pred = np.asarray(y_pred, dtype=np.int64)
                if metric_name == "accuracy":
                    cells.append(float(np.mean(y_pred == context.y_test)))
                else:
                    metric = (
                        equalized_odds_difference
                        if metric_name == "equalized_odds_difference"
                        else statistical_parity_difference
                    )
                    cells.append(
                        float(metric(context.y_test, y_pred, sensitive_features=values, **kwargs))
                    )
            table_rows.append(cells)
            if metric_name == TRAINING_CONSTRAINT + "_difference":
                gap_notes.append(
                    _training_gap_note(name, model, cells[-1], groups_train, y_train == favourable)
                )
    if not fitted:
        return Section(message="n/a: " + "; ".join(failures))
    notes = [
        f"constrained = ExponentiatedGradient(constraint={TRAINING_CONSTRAINT!r}, "
        f"eps={TRAINING_EPS}): the model retrained so that its true and false positive rates "
        f"differ by at most {TRAINING_EPS} between groups on its training rows (one retrained "
        "model per attribute; it decides without the sensitive attribute). To keep the audit "
        f"fast it is trained on {len(rows):,} of the {n_train:,} training rows (drawn with "
        f"random_state={context.random_state}) with at most {_TRAINING_MAX_ITER} rounds of "
        "the game after the unconstrained fit; the "
        "gaps on the evaluation rows include sampling noise. constrained: the retrained "
        "model's deterministic rule (its most accurate single fit within the bound); "
        "randomised: its default, randomised decisions. Gaps: the largest gap between any "
        "two groups, or the disadvantaged minus the privileged groups (signed) for an "
        "attribute with a privileged group."
    ]
    notes += gap_notes
    notes += [f"not computed for {failure}" for failure in failures]
    table = Table(["metric", "attribute", "unconstrained", "constrained", "randomised"], table_rows)
    return Section(blocks=[table], notes=notes, data={"models": fitted})


def _training_gap_note(name, model, evaluation_gap, groups, positive):
    """The mixture's gap on its training rows next to its gap on the evaluation rows, and,
    when the two differ, the smallest group behind the difference (the bound is a guarantee
    on the training rows; the rates of a small group are noisy on other rows)."""
    note = (
        f"{name}: the randomised decisions' gap is {model.constraint_gap_:.4f} on the "
        f"{len(positive):,} training rows (bound {TRAINING_EPS}, after {model.n_fits_} fits) and "
        f"{evaluation_gap:.4f} on the evaluation rows"
    )
    if evaluation_gap <= model.constraint_gap_ + TRAINING_EPS:
        return note + "."
    values, positives = np.unique(groups[positive], return_counts=True)
    smallest = int(np.argmin(positives))
    return note + (
        f": the bound holds on the rows the model was retrained on, and the rates of small "
        f"groups vary from sample to sample (smallest: {values[smallest]!s}, "
        f"{positives[smallest]} positive training rows); retrain on all training rows "
        "before reading the evaluation gap."
    )


def _take(values, rows):
    """The rows of an array or a DataFrame."""
    return values.iloc[rows] if hasattr(values, "iloc") else np.asarray(values)[rows]
