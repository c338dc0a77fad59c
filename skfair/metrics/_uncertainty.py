"""Stability and uncertainty of an ensemble's predictions, per sample and across groups.

The definitions are Virny's ("Disparity Performance Dimensions" in the documentation of the
Virny library, version 0.6.0). For an ensemble of B members and a sample x, with p_b the class
probabilities of member b and H the Shannon entropy in bits:

- label stability  LS(x)    = (K f_mode(x) - 1) / (K - 1), where f_mode is the largest fraction
  of members agreeing on one label; for K = 2 this is Virny's |#pos - #neg| / B;
- total            U_tot(x) = H(mean_b p_b)                  (entropy of the mean);
- aleatoric        U_ale(x) = mean_b H(p_b)                  (mean entropy);
- epistemic        U_epi(x) = U_tot(x) - U_ale(x)            (>= 0, H is concave).

Member outputs are laid out with the member axis first, exactly as
:meth:`skfair.ensemble.BootstrapEnsemble.predict_proba_members` returns them:

- member labels ``y_pred``: shape (n_estimators, n_samples);
- member probabilities ``y_proba``: shape (n_estimators, n_samples, n_classes), or
  (n_estimators, n_samples) holding the positive-class probability of a binary problem.

The group disparities average the per-sample values within groups (weighted) and compare the
groups: ``dis - priv`` with ``privileged_group=`` (Virny's ``*_Difference``), otherwise the
largest gap between any two groups.
"""

from __future__ import annotations

import numpy as np

from skfair._dask import (
    align,
    check_block,
    check_block_lengths,
    dask_dispatch,
    map_row_blocks,
    reduce_blocks,
    refuse,
)
from skfair._dask._columns import as_numpy, split_argument
from skfair._stats._aggregate import group_mean_difference, rate_difference
from skfair._stats._votes import GroupMeans, entropy, label_stability_from_codes, member_votes
from skfair._utils._compat import SENSITIVE_FEATURES_CONSTRAINT, validate_params
from skfair._utils._groups import factorize_groups, rows_from
from skfair._utils._validation import check_groups, check_label_values, check_lengths, check_weights
from skfair.metrics._docs import PARAMETERS, numpydoc, shared

# Tolerance on the sum of a member's class probabilities.
_PROBA_SUM_TOL = 1e-6

_MEMBER_HINT = (
    "pass per-member predictions of shape (n_estimators, n_samples) (labels) or "
    "(n_estimators, n_samples[, n_classes]) (probabilities); see "
    "skfair.ensemble.BootstrapEnsemble.predict_members / predict_proba_members"
)


_VALIDATE = {"prefer_skip_nested_validation": True}
# The type of ``y_proba``, as the per-sample uncertainties and their differences document it.
_MEMBER_PROBABILITIES = (
    "array-like of shape (n_estimators, n_samples, n_classes) or (n_estimators, n_samples)"
)
_DIFFERENCE_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    "privileged_group": "no_validation",
    "sample_weight": ["array-like", None],
}


# --------------------------------------------------------------------------------------------
# per-sample measures


_PER_SAMPLE_DOC = (
    "A dask array of member outputs gives a lazy dask array, computed block of samples by "
    "block (each block's members whole), exactly the in-memory values. "
)
_DIFFERENCE_DOC = (
    "Dask collections are read partition by partition: each partition computes its rows' "
    "measure and sends its sum and weight per group (one row per group, whatever its "
    "length; label stability also sends the distinct member labels it saw, for the number "
    "of classes), and the group means of the sums give exactly the in-memory result."
)


def _label_stability_on_dask(func, bound):
    if bound.arguments.get("labels") is None:
        return _NEEDS_LABELS(func, bound)
    return _per_sample_on_dask(bound, "y_pred", "label_stability")


_NEEDS_LABELS = refuse(
    "with labels=None the number of classes K is that of every member label of all rows, "
    "which a block of rows does not know.",
    "Pass labels= (the classes); each block's stability is then computed lazily.",
)


@dask_dispatch(_label_stability_on_dask, doc=_PER_SAMPLE_DOC + _NEEDS_LABELS.doc)
@validate_params({"y_pred": ["array-like"], "labels": ["array-like", None]}, **_VALIDATE)
@shared
def label_stability(y_pred, *, labels=None):
    """Label stability of each sample across the members of an ensemble.

    ``LS(x) = (K f_mode(x) - 1) / (K - 1)``, where ``f_mode(x)`` is the largest fraction of
    members predicting the same label for ``x`` and K the number of classes. For K = 2 this is
    Virny's ``|#{b: y_b = 1} - #{b: y_b = 0}| / B``. It is 1 when all members agree and 0 when
    the votes are spread evenly over the K classes.

    Parameters
    ----------
    y_pred : array-like of shape (n_estimators, n_samples)
        Label predicted by each member (row) for each sample (column). To follow Virny, a
        binary member's label is ``1{p_1 > 0.5}``: a probability of exactly 0.5 counts as
        the negative class.
    labels : array-like of shape (n_classes,), default=None
        The classes. Default: the distinct values of ``y_pred``, with K floored at 2 so that
        unanimous binary predictions keep the binary formula.

    Returns
    -------
    ndarray of shape (n_samples,)
        Values in [0, 1].

    See Also
    --------
    label_stability_difference : Its group means compared.
    epistemic_uncertainty : The model's share of the uncertainty.
    skfair.ensemble.BootstrapEnsemble : An ensemble whose members' outputs this takes.

    {references_virny}

    Examples
    --------
    >>> from skfair.metrics import label_stability
    >>> # 4 members (rows) vote on 3 samples (columns)
    >>> label_stability([[1, 0, 1], [1, 1, 0], [1, 0, 1], [1, 1, 1]])
    array([1. , 0. , 0.5])
    """
    return _per_sample_values(y_pred, "label_stability", labels)


def _uncertainty(kind, *, summary, description, returns, other, example):
    """The public per-sample ``kind`` uncertainty (:func:`_per_sample_values`): a function
    with its own name, docstring, validation and dask plan."""

    def metric(y_proba):
        return _per_sample_values(y_proba, kind, None)

    name = f"{kind}_uncertainty"
    metric.__name__ = metric.__qualname__ = name
    metric.__doc__ = numpydoc(
        name,
        summary=summary,
        description=description,
        parameters=[
            (
                "y_proba",
                _MEMBER_PROBABILITIES,
                "Class probabilities of each member, or a binary problem's positive-class "
                "probabilities.",
            )
        ],
        returned="ndarray of shape (n_samples,)",
        returns=returns,
        see_also=(
            (f"{name}_difference", "Its group means compared."),
            other,
            ("skfair.ensemble.BootstrapEnsemble", "An ensemble whose members' outputs this takes."),
        ),
        references=("virny", "hullermeier"),
        example=example,
    )
    validated = validate_params({"y_proba": ["array-like"]}, **_VALIDATE)(metric)
    return dask_dispatch(
        lambda func, bound: _per_sample_on_dask(bound, "y_proba", kind), doc=_PER_SAMPLE_DOC
    )(validated)


aleatoric_uncertainty = _uncertainty(
    "aleatoric",
    summary="Aleatoric (data) uncertainty of each sample: the members' mean entropy, in bits.",
    description="``U_ale(x) = (1/B) sum_b H(p_b(x))`` with ``H(p) = -sum_k p_k log2 p_k`` and "
    "``0 log 0 = 0``.",
    returns="Values in [0, log2(n_classes)].",
    other=("epistemic_uncertainty", "The model's share of the uncertainty."),
    example=">>> aleatoric_uncertainty([[0.5, 1.0], [0.5, 0.0]])\narray([1., 0.])",
)
epistemic_uncertainty = _uncertainty(
    "epistemic",
    summary="Epistemic (model) uncertainty of each sample, in bits.",
    description="The entropy of the members' mean prediction minus the members' mean entropy, "
    "``U_epi(x) = H((1/B) sum_b p_b(x)) - (1/B) sum_b H(p_b(x))``: the mutual information "
    "between the prediction and the choice of member. It is 0 when all members agree.",
    returns="Non-negative values (up to rounding, about 1e-15).",
    other=("aleatoric_uncertainty", "The data's share of the uncertainty."),
    example=">>> epistemic_uncertainty([[0.0, 0.3], [1.0, 0.3]])\narray([1., 0.])",
)


# --------------------------------------------------------------------------------------------
# group disparities


@dask_dispatch(
    lambda func, bound: _difference_on_dask(bound, "y_pred", "label_stability"),
    doc=_DIFFERENCE_DOC,
)
@validate_params(
    {**_DIFFERENCE_CONSTRAINTS, "y_pred": ["array-like"], "labels": ["array-like", None]},
    **_VALIDATE,
)
@shared
def label_stability_difference(
    y_true,
    y_pred,
    *,
    sensitive_features,
    privileged_group=None,
    disadvantaged="pooled",
    labels=None,
    sample_weight=None,
):
    """Difference in mean label stability between groups (Virny's Label_Stability_Difference).

    The label stability of each sample (:func:`label_stability`) is averaged within each group,
    weighted by ``sample_weight``. With ``privileged_group`` the result is the signed
    ``mean(dis) - mean(priv)``, where dis pools every sample outside the privileged group(s);
    a negative value means the disadvantaged group's predictions are less stable. Without it,
    the result is the largest gap between any two groups (unsigned).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored (label stability does not depend on the truth); checked for length if given,
        so that the function works as a scorer's metric.
    y_pred : array-like of shape (n_estimators, n_samples)
        Label predicted by each member for each sample, as returned by
        :meth:`skfair.ensemble.BootstrapEnsemble.predict_members`.
    {sensitive_features}
    privileged_group : value, tuple or list of them, default=None
        The privileged group(s). None compares every pair of groups.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare them pooled with the
        privileged group(s), or each on its own and keep the comparison furthest from parity
        (see :mod:`skfair.metrics`).
    labels : array-like of shape (n_classes,), default=None
        The classes, see :func:`label_stability`.
    {sample_weight}

    Returns
    -------
    float
        In [-1, 1] with ``privileged_group`` (negative: the disadvantaged samples' predictions are
        less stable), else in [0, 1].

    See Also
    --------
    label_stability : The per-sample label stability.
    skfair.plotting.StabilityDisplay : The group means with error bars.

    {references_virny}

    Examples
    --------
    >>> from skfair.metrics import label_stability_difference
    >>> y_pred = [[1, 1, 1, 1], [1, 0, 1, 1], [1, 1, 1, 1]]   # 3 members, 4 samples
    >>> value = label_stability_difference(
    ...     None, y_pred, sensitive_features=["a", "a", "b", "b"], privileged_group="b")
    >>> round(value, 6)
    -0.333333
    """
    return _group_mean_gap(
        _per_sample_values(y_pred, "label_stability", labels),
        y_true,
        sensitive_features,
        privileged_group,
        disadvantaged,
        sample_weight,
        measure=_MEASURES["label_stability"],
    )


def _uncertainty_difference(kind, *, measure, description, example):
    """The public group difference of the per-sample ``measure`` (its function): a function
    with its own name, docstring, validation and dask plan."""

    def metric(
        y_true,
        y_proba,
        *,
        sensitive_features,
        privileged_group=None,
        disadvantaged="pooled",
        sample_weight=None,
    ):
        return _group_mean_gap(
            _per_sample_values(y_proba, kind, None),
            y_true,
            sensitive_features,
            privileged_group,
            disadvantaged,
            sample_weight,
            measure=_MEASURES[kind],
        )

    name = f"{kind}_uncertainty_difference"
    metric.__name__ = metric.__qualname__ = name
    metric.__module__ = "skfair.metrics"
    metric.__doc__ = numpydoc(
        name,
        summary=f"Difference in mean {kind} uncertainty between groups (Virny's definition).",
        description=f"The {kind} uncertainty of each sample (:func:`{measure.__name__}`), "
        f"{description}, is averaged within each group, weighted by ``sample_weight``. With "
        "``privileged_group`` the result is the signed ``mean(dis) - mean(priv)``: a positive "
        "value means the ensemble is less sure about the disadvantaged group. Without it, the "
        "largest gap between any two groups.",
        parameters=[
            (
                "y_true",
                "array-like of shape (n_samples,) or None",
                "Ignored; checked for length if given.",
            ),
            (
                "y_proba",
                _MEMBER_PROBABILITIES,
                "Member probabilities, as returned by "
                ":meth:`skfair.ensemble.BootstrapEnsemble.predict_proba_members`, or a binary "
                "problem's positive-class probabilities.",
            ),
            *(
                (parameter, *PARAMETERS[parameter])
                for parameter in (
                    "sensitive_features",
                    "privileged_group",
                    "disadvantaged",
                    "sample_weight",
                )
            ),
        ],
        returns="In bits: signed ``mean(dis) - mean(priv)`` with ``privileged_group`` "
        "(positive: the disadvantaged samples are more uncertain), else the largest gap between "
        "two groups.",
        see_also=(
            (measure.__name__, f"The per-sample {kind} uncertainty."),
            ("skfair.plotting.StabilityDisplay", "The group means with error bars."),
        ),
        references=("virny", "hullermeier"),
        example=example,
    )
    constraints = {**_DIFFERENCE_CONSTRAINTS, "y_proba": ["array-like"]}
    validated = validate_params(constraints, **_VALIDATE)(metric)
    return dask_dispatch(
        lambda func, bound: _difference_on_dask(bound, "y_proba", kind), doc=_DIFFERENCE_DOC
    )(validated)


epistemic_uncertainty_difference = _uncertainty_difference(
    "epistemic",
    measure=epistemic_uncertainty,
    description="the members' disagreement, which more training data like the group's reduces",
    example=">>> y_proba = [[0.0, 0.3, 0.9, 0.9], [1.0, 0.3, 0.9, 0.9]]   # 2 members, 4 samples\n"
    ">>> epistemic_uncertainty_difference(\n"
    '...     None, y_proba, sensitive_features=["a", "a", "b", "b"], privileged_group="b")\n'
    "0.5",
)
aleatoric_uncertainty_difference = _uncertainty_difference(
    "aleatoric",
    measure=aleatoric_uncertainty,
    description="the uncertainty each member expresses itself (noise in the labels), which more "
    "data does not reduce",
    example=">>> y_proba = [[0.5, 0.5, 1.0, 1.0], [0.5, 0.5, 1.0, 1.0]]   # 2 members, 4 samples\n"
    ">>> aleatoric_uncertainty_difference(\n"
    '...     None, y_proba, sensitive_features=["a", "a", "b", "b"], privileged_group="b")\n'
    "1.0",
)


# --------------------------------------------------------------------------------------------
# private helpers


def _check_members(array, name):
    array = np.asarray(array)
    if array.ndim < 2:
        raise ValueError(f"{name} has shape {array.shape}: {_MEMBER_HINT}.")
    if array.shape[0] < 2:
        raise ValueError(
            f"{name} holds the outputs of {array.shape[0]} member(s); stability and "
            "uncertainty need an ensemble of at least 2 members (axis 0)."
        )
    if array.shape[1] == 0:
        raise ValueError(f"{name} has no samples (shape {array.shape}).")
    return array


def _member_label_codes(y_pred, labels):
    """Integer codes of member labels and the number of classes K (floored at 2)."""
    y_pred = _check_members(y_pred, "y_pred")
    if y_pred.ndim != 2:
        raise ValueError(
            f"y_pred has shape {y_pred.shape}; label stability needs member labels of shape "
            "(n_estimators, n_samples). For probabilities take each member's argmax, or use "
            "BootstrapEnsemble.predict_members."
        )
    check_label_values(y_pred, "y_pred", sample_axis=1)
    if y_pred.dtype.kind == "f" and not np.array_equal(y_pred, np.round(y_pred)):
        raise ValueError(
            "y_pred holds non-integer floats (probabilities?); label stability needs the class "
            "label of each member, e.g. BootstrapEnsemble.predict_members, or (y_proba > 0.5) "
            "for positive-class probabilities."
        )
    if labels is None:
        classes, codes = np.unique(y_pred, return_inverse=True)
        return codes.reshape(y_pred.shape), max(len(classes), 2)
    classes = np.unique(np.asarray(labels))
    if len(classes) < 2:
        raise ValueError(f"labels must hold at least 2 classes, got {classes.tolist()}.")
    codes = np.searchsorted(classes, y_pred)
    unknown = classes[np.minimum(codes, len(classes) - 1)] != y_pred
    if unknown.any():
        raise ValueError(
            f"y_pred has label {y_pred[unknown][0]!r}, which is not in labels={classes.tolist()}."
        )
    return codes, len(classes)


def _check_member_proba(y_proba):
    """Member probabilities as float array (n_estimators, n_samples, n_classes)."""
    proba = _check_members(y_proba, "y_proba")
    if proba.ndim > 3:
        raise ValueError(f"y_proba has shape {proba.shape}: {_MEMBER_HINT}.")
    if proba.dtype.kind not in "biuf":
        raise ValueError(f"y_proba must be numeric probabilities, got dtype {proba.dtype}.")
    proba = proba.astype(np.float64, copy=False)
    if not np.isfinite(proba).all():
        raise ValueError("y_proba has NaN or infinite values.")
    if proba.min() < 0 or proba.max() > 1:
        raise ValueError(
            f"y_proba must lie in [0, 1] (probabilities), got values in "
            f"[{proba.min():.6g}, {proba.max():.6g}]."
        )
    if proba.ndim == 2:  # positive-class probabilities of a binary problem
        return np.stack([1.0 - proba, proba], axis=-1)
    if proba.shape[2] < 2:
        raise ValueError(
            f"y_proba has {proba.shape[2]} class column(s); pass every class's probability, or "
            "the positive-class probabilities as a 2-D array."
        )
    deviation = np.abs(proba.sum(axis=-1) - 1.0)
    if deviation.max() > _PROBA_SUM_TOL:
        raise ValueError(
            "Each member's class probabilities must sum to 1 (within 1e-6); the largest "
            f"deviation is {deviation.max():.3g}."
        )
    return proba


def _group_mean_gap(
    values, y_true, sensitive_features, privileged_group, disadvantaged, sample_weight, *, measure
):
    """The disparity between the groups' weighted means of the per-sample ``values``
    (:func:`~skfair._stats._aggregate.group_mean_difference`), after checking the lengths
    agree: the group step of every stability and uncertainty difference."""
    n_samples = values.shape[0]
    check_lengths(
        **{"y_true": y_true, "the member outputs (axis 1)": values, "sample_weight": sample_weight}
    )
    weights = check_weights(sample_weight, n_samples)
    groups = check_groups(sensitive_features, n_samples)
    return group_mean_difference(
        values,
        groups,
        privileged_group,
        sample_weight=weights,
        measure=measure,
        disadvantaged=disadvantaged,
    )


# --------------------------------------------------------------------------------------------
# dask input


def _per_sample_values(members, measure, labels):
    """The per-sample ``measure`` (a key of ``_MEASURES``) of member outputs ``members``
    (samples on axis 1): the one implementation of each measure, in memory and on dask."""
    if measure == "label_stability":
        codes, n_classes = _member_label_codes(members, labels)
        return label_stability_from_codes(codes, n_classes)
    proba = _check_member_proba(members)
    if measure == "aleatoric":
        return entropy(proba).mean(axis=0)
    return entropy(proba.mean(axis=0)) - entropy(proba).mean(axis=0)


def _per_sample_on_dask(bound, name, measure):
    """A per-sample measure of dask member outputs: lazy, block of samples by block."""
    members = bound.arguments[name]
    if getattr(members, "ndim", 0) < 2:
        _check_members(members, name)
    samples_first = members.transpose(1, 0, *range(2, members.ndim))
    return map_row_blocks(
        _per_sample_block, [samples_first], measure=measure, labels=bound.arguments.get("labels")
    )


def _per_sample_block(block, *, row_offset, measure, labels):
    with rows_from(row_offset):
        members = np.moveaxis(np.asarray(block), 0, 1)
        if members.shape[1] == 0:
            return np.zeros(0)
        return _per_sample_values(members, measure, labels)


_MEASURES = {
    "label_stability": "mean label stability",
    "epistemic": "mean epistemic uncertainty",
    "aleatoric": "mean aleatoric uncertainty",
}


def _difference_on_dask(bound, name, measure):
    """A stability or uncertainty disparity of dask inputs: each partition computes its rows'
    measure and sums it by group (:class:`~skfair._stats._votes.GroupMeans`: one row per group,
    whatever n); the group means of the summed table go to the in-memory formula.

    Label stability ``(K f - 1) / (K - 1)`` is linear in the mode share ``f`` of a row, so the
    partitions sum ``f`` and the class count ``K`` (from every member label, as in memory)
    enters after the merge.
    """
    arguments = bound.arguments
    members = arguments[name]
    labels = arguments.get("labels")
    sensitive = split_argument(arguments["sensitive_features"])
    columns, axes = [members, *sensitive.columns], [1] + [0] * sensitive.n_columns
    for extra in ("sample_weight", "y_true"):
        if arguments.get(extra) is not None:
            columns.append(arguments[extra])
            axes.append(0)
    statistic = GroupMeans(tuple(f"sensitive_features[{j}]" for j in range(sensitive.n_columns)))
    table, seen = reduce_blocks(
        statistic,
        align(columns, axes),
        _difference_chunk,
        measure=measure,
        labels=labels,
        n_keys=sensitive.n_columns,
        weighted=arguments.get("sample_weight") is not None,
    )
    groups = factorize_groups(sensitive.rebuild(table.keys))
    numerator = np.bincount(groups.codes, weights=table.sums[:, 0], minlength=groups.n_groups)
    denominator = groups.counts(table.sample_weight())
    if measure == "label_stability":
        n_classes = max(len(seen), 2) if labels is None else len(np.unique(np.asarray(labels)))
        numerator = (n_classes * numerator - denominator) / (n_classes - 1)
    return rate_difference(
        numerator,
        denominator,
        groups,
        arguments.get("privileged_group"),
        measure=_MEASURES[measure],
        disadvantaged=arguments.get("disadvantaged", "pooled"),
    )


def _difference_chunk(statistic, members, *parts, measure, labels, n_keys, weighted):
    """One partition: each row's measure (label stability: its mode share), summed by group."""
    members = np.asarray(members)
    arrays = [as_numpy(part) for part in parts]
    check_block_lengths([members[0], *arrays] if members.shape[0] else arrays)
    keys = arrays[:n_keys]
    weights = check_block(arrays[n_keys], "weight", "sample_weight") if weighted else None
    if members.shape[1] == 0:
        return statistic.chunk(keys, np.zeros(0), weights)
    if measure != "label_stability":
        return statistic.chunk(keys, _per_sample_values(members, measure, None), weights)
    codes, n_classes = _member_label_codes(members, labels)
    mode_share = member_votes(codes, n_classes).max(axis=1) / codes.shape[0]
    seen = np.unique(members).tolist() if labels is None else ()
    return statistic.chunk(keys, mode_share, weights, seen)
