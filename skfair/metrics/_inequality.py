"""Inequality indices over individual benefits and their between-group parts.

Speicher et al. (2018) measure unfairness as inequality of the benefit ``b_i = y_pred_i -
y_true_i + 1`` (in {0, 1, 2} for binary labels: 0 for a false negative, 1 for a correct
prediction, 2 for a false positive) with the generalized entropy index ``GE(alpha)``. The
benefit takes three values, so every index is a formula on the weighted count table
``[tn, fp, fn, tp]`` (per group for the between-group part): no pass over the samples after
the one ``np.bincount``.
"""

from __future__ import annotations

import inspect
import numbers
import warnings
from types import SimpleNamespace

import numpy as np

from skfair._dask import dask_dispatch
from skfair._stats._aggregate import warn_single_group
from skfair._stats._counts import FN, FP, TN, TP, confusion_table
from skfair._utils._compat import SENSITIVE_FEATURES_CONSTRAINT, Real, validate_params
from skfair._utils._groups import privileged_mask
from skfair._utils._validation import binarize, check_labels, check_lengths, check_weights
from skfair.metrics._docs import PARAMETERS, REFERENCES, documented, numpydoc
from skfair.metrics._rates import LABEL_TABLE, binary_confusion


def _entropy_terms(ratio, alpha):
    """Terms ``f(r)``, ``r = b / mu``, whose weighted mean is ``GE(alpha)``.

    ``f(r) = (r^alpha - 1 - alpha (r - 1)) / (alpha (alpha - 1))``: the mean of ``r - 1`` is
    0, so the added ``alpha (r - 1)`` leaves the mean unchanged, and every term is
    non-negative and continuous in ``alpha``, with the limits ``r - 1 - ln r`` at
    ``alpha = 0`` (mean log deviation) and ``r ln r - r + 1`` at ``alpha = 1`` (Theil;
    ``0 ln 0 = 0``). ``r^alpha - 1`` computed directly is 0 for ``alpha = 1e-17`` and loses
    digits near ``alpha = 1``; ``expm1`` keeps them.
    """
    positive = ratio > 0
    log_ratio = np.log(np.where(positive, ratio, 1.0))
    with np.errstate(over="ignore", invalid="ignore"):
        if abs(alpha - 1) >= 0.5:
            terms = (_expm1_over(alpha, log_ratio) - (ratio - 1)) / (alpha - 1)
        else:
            terms = (ratio * _expm1_over(alpha - 1, log_ratio) - (ratio - 1)) / alpha
    # f(0) = (0^alpha - 1 + alpha) / (alpha (alpha - 1)): 1 / alpha, infinite for alpha <= 0.
    return np.where(positive, terms, 1 / alpha if alpha > 0 else np.inf)


def _expm1_over(t, x):
    """``(exp(t x) - 1) / t``, with its limit ``x`` at ``t = 0``."""
    return x if t == 0 else np.expm1(t * x) / t


def _generalized_entropy(values, masses, alpha):
    """``GE(alpha)`` of a population where value ``values[k]`` has total weight ``masses[k]``."""
    total = masses.sum()
    mean = (masses * values).sum() / total
    if mean == 0:
        warnings.warn(
            "Every benefit is 0 (every positive is missed and nothing else is present); the "
            "index is undefined and NaN is returned.",
            UserWarning,
        )
        return float("nan")
    present = masses > 0
    terms = _entropy_terms(values[present] / mean, alpha)
    return float((masses[present] * terms).sum() / total)


def _benefit_masses(table):
    """Weights of the benefits (0, 1, 2) in each row of a ``[tn, fp, fn, tp]`` table."""
    return np.stack([table[..., FN], table[..., TN] + table[..., TP], table[..., FP]], axis=-1)


_BENEFITS = np.array([0.0, 1.0, 2.0])
_INDIVIDUAL_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "alpha": [Real],
    "pos_label": [Real, str, "boolean", None],
    "sample_weight": ["array-like", None],
}
_BETWEEN_CONSTRAINTS = {
    **_INDIVIDUAL_CONSTRAINTS,
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    "privileged_group": "no_validation",
}
_VALIDATE = {"prefer_skip_nested_validation": True}
_PARAMETERS = {
    "y_true": (
        "array-like of shape (n_samples,)",
        "True binary labels; the benefit of a sample is ``y_pred - y_true + 1`` on the labels "
        "coded 1 for ``pos_label`` and 0 otherwise.",
    ),
    "y_pred": ("array-like of shape (n_samples,)", "Predicted binary labels."),
    "sensitive_features": PARAMETERS["sensitive_features"],
    "privileged_group": (
        "label, tuple of labels, or list of them, default=None",
        "Group(s) whose samples form one group and every other sample the other (aif360's "
        "``priv_group``). None keeps the groups of ``sensitive_features``. A tuple gives one "
        "value per attribute for 2-D input.",
    ),
    "alpha": (
        "float, default=2",
        "Sensitivity to the top (large ``alpha``) or bottom (small ``alpha``) of the benefit "
        "distribution.",
    ),
    "pos_label": PARAMETERS["pos_label"],
    "sample_weight": PARAMETERS["sample_weight"],
}


def _documented_parameters(*names):
    return [(name, *_PARAMETERS[name]) for name in names]


def _check_alpha(alpha):
    if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool) or not np.isfinite(alpha):
        raise ValueError(f"alpha must be a finite real number, got {alpha!r}.")
    return float(alpha)


def _population_table(y_true, y_pred, pos_label, sample_weight):
    """The ``[tn, fp, fn, tp]`` counts of all samples (one group)."""
    if y_true is None:
        raise ValueError("y_true is None; the benefit y_pred - y_true + 1 needs true labels.")
    n_samples = check_lengths(y_true=y_true, y_pred=y_pred, sample_weight=sample_weight)
    y_true = check_labels(y_true, "y_true")
    y_pred = check_labels(y_pred, "y_pred")
    y_true_positive, y_pred_positive = binarize(y_true, y_pred, pos_label)
    one_group = SimpleNamespace(codes=np.zeros(n_samples, dtype=np.intp), n_groups=1)
    weights = check_weights(sample_weight, n_samples)
    return confusion_table(one_group, y_true_positive, y_pred_positive, weights)[0]


@dask_dispatch(LABEL_TABLE)
@validate_params(_INDIVIDUAL_CONSTRAINTS, **_VALIDATE)
@documented(
    summary="Generalized entropy index of the individual benefits ``y_pred - y_true + 1``.",
    description="""\
``GE(alpha) = 1 / (n alpha (alpha - 1)) sum_i [(b_i / mu)^alpha - 1]`` for ``alpha`` not
in {0, 1}, ``(1/n) sum_i (b_i / mu) ln(b_i / mu)`` for ``alpha = 1`` (the Theil index,
``0 ln 0 = 0``) and ``-(1/n) sum_i ln(b_i / mu)`` for ``alpha = 0`` (the mean log
deviation), with ``mu`` the mean benefit; weights replace the means by weighted means.
0 means every sample gets the same benefit. For ``alpha <= 0`` a false negative (benefit
0) makes the index infinite.""",
    parameters=_documented_parameters("y_true", "y_pred", "alpha", "pos_label", "sample_weight"),
    returns="Non-negative; NaN (with a warning) when every benefit is 0.",
    see_also=(
        ("theil_index", "``alpha = 1``."),
        ("coefficient_of_variation", "``sqrt(2 GE(2))``."),
        (
            "between_group_generalized_entropy_index",
            "The part due to differences between groups.",
        ),
    ),
    notes="""\
``alpha = 0`` is the limit of the general formula as ``alpha -> 0``, the mean log
deviation of Speicher et al. (2018, Eq. 4), as in the inequality literature (Shorrocks
1980):

``GE(0) = -(1/n) sum_i ln(b_i / mu)``.

aif360 (``ClassificationMetric.generalized_entropy_index`` and
``aif360.sklearn.metrics.generalized_entropy_error``) and holisticai, which follows it,
compute ``-(1/n) sum_i ln(b_i / mu) / mu`` at ``alpha = 0``: the mean log deviation
divided by the mean benefit, which is not the limit of their own formula for other
``alpha``. Multiply the value here by ``1 / mu`` to reproduce theirs; the two agree when
the mean benefit is 1 (as many false positives as false negatives). For every other
``alpha`` the definitions agree.

The index is continuous in ``alpha``: each sample contributes
``(r^alpha - 1 - alpha (r - 1)) / (alpha (alpha - 1))`` with ``r = b / mu`` (the added
term has mean 0), evaluated with ``expm1`` so that ``alpha`` near 0 or 1 gives the
limits, not 0 from cancellation.""",
    references=(
        REFERENCES["speicher"][:-1] + ", Eq. (4).",
        'A. F. Shorrocks, "The Class of Additively Decomposable Inequality Measures", '
        "Econometrica 48(3), 1980, pp. 613-625.",
    ),
    example=">>> round(generalized_entropy_index([1, 0, 1, 0], [1, 1, 1, 0]), 4)\n0.06",
)
def generalized_entropy_index(y_true, y_pred, *, alpha=2, pos_label=None, sample_weight=None):
    alpha = _check_alpha(alpha)
    table = _population_table(y_true, y_pred, pos_label, sample_weight)
    return _generalized_entropy(_BENEFITS, _benefit_masses(table), alpha)


@dask_dispatch(LABEL_TABLE)
@validate_params(_BETWEEN_CONSTRAINTS, **_VALIDATE)
@documented(
    summary="Between-group part of the generalized entropy index.",
    description="""\
``GE(alpha)`` of the benefits after replacing each sample's benefit by the mean benefit of
its group (Speicher et al. 2018, Eq. 6): the inequality that differences between groups
alone would produce. For ``alpha`` not in {0, 1} it is at most the total
:func:`generalized_entropy_index` (the within-group part is non-negative). The groups are
those of ``sensitive_features``; with ``privileged_group`` there are two, the privileged
group(s) and every other sample pooled (aif360's ``priv_group``).""",
    parameters=_documented_parameters(
        "y_true",
        "y_pred",
        "sensitive_features",
        "alpha",
        "privileged_group",
        "pos_label",
        "sample_weight",
    ),
    returns="Non-negative; 0 when every group has the same mean benefit.",
    see_also=(("generalized_entropy_index", "The index over individuals."),),
    references=(REFERENCES["speicher"][:-1] + ", Eq. (6).",),
    example=">>> round(between_group_generalized_entropy_index(\n"
    '...     [1, 0, 1, 0], [1, 1, 1, 0], sensitive_features=["a", "a", "b", "b"]), 4)\n0.02',
)
def between_group_generalized_entropy_index(
    y_true,
    y_pred,
    *,
    sensitive_features,
    alpha=2,
    privileged_group=None,
    pos_label=None,
    sample_weight=None,
):
    alpha = _check_alpha(alpha)
    groups, table = binary_confusion(y_true, y_pred, sensitive_features, pos_label, sample_weight)
    if privileged_group is not None:
        is_privileged = privileged_mask(groups, privileged_group)
        table = np.stack([table[~is_privileged].sum(axis=0), table[is_privileged].sum(axis=0)])
    elif groups.n_groups < 2:
        # One group mean: no inequality between groups to measure.
        warn_single_group(groups, reported="0.0", stacklevel=5)
    masses = _benefit_masses(table)
    weights = masses.sum(axis=1)
    present = weights > 0
    group_means = (masses[present] @ _BENEFITS) / weights[present]
    return _generalized_entropy(group_means, weights[present], alpha)


# ----------------------------------------------------------------------------------------------
# the indices at a fixed alpha, generated from the two above


_DATA = ("[1, 0, 1, 0], [1, 1, 1, 0]", 'sensitive_features=["a", "a", "b", "b"]')


def _fixed_alpha(name, base, alpha, *, root, summary, description, see_also, output):
    """The index ``base`` at ``alpha`` (``sqrt(2 * index)`` with ``root``): a public function
    with its own signature (``base``'s less ``alpha``), docstring, validation and dask plan."""
    between = "sensitive_features" in inspect.signature(base).parameters
    signature = inspect.signature(base).replace(
        parameters=[p for p in inspect.signature(base).parameters.values() if p.name != "alpha"]
    )

    def metric(*args, **kwargs):
        arguments = signature.bind(*args, **kwargs)
        value = base(*arguments.args, alpha=alpha, **arguments.kwargs)
        return float(np.sqrt(2 * value)) if root else value

    metric.__name__ = metric.__qualname__ = name
    metric.__module__ = "skfair.metrics"
    metric.__signature__ = signature
    data = ", ".join(_DATA if between else _DATA[:1])
    metric.__doc__ = numpydoc(
        name,
        summary=summary,
        description=description,
        parameters=_documented_parameters(*signature.parameters),
        returns="Non-negative; 0 when every group has the same mean benefit."
        if between
        else "Non-negative; NaN (with a warning) when every benefit is 0.",
        see_also=see_also,
        references=("speicher",),
        example=f">>> round({name}(\n...     {data}), 4)\n{output}",
    )
    constraints = _BETWEEN_CONSTRAINTS if between else _INDIVIDUAL_CONSTRAINTS
    validated = validate_params(constraints, **_VALIDATE)(metric)
    return dask_dispatch(LABEL_TABLE)(validated)


theil_index = _fixed_alpha(
    "theil_index",
    generalized_entropy_index,
    1,
    root=False,
    summary="Theil index of the individual benefits: :func:`generalized_entropy_index` at "
    "``alpha = 1``.",
    description="``T = (1/n) sum_i (b_i / mu) ln(b_i / mu)`` with ``b_i = y_pred_i - y_true_i + "
    "1`` and ``0 ln 0 = 0``.",
    see_also=(
        ("generalized_entropy_index", "The family."),
        ("between_group_theil_index", "The part due to differences between groups."),
    ),
    output="0.0541",
)
coefficient_of_variation = _fixed_alpha(
    "coefficient_of_variation",
    generalized_entropy_index,
    2,
    root=True,
    summary="Coefficient of variation of the individual benefits, ``sqrt(2 GE(2)) = std / mean``.",
    description="``b_i = y_pred_i - y_true_i + 1``; the standard deviation is the population "
    "one (divided by ``n``, or by the total weight).",
    see_also=(
        ("generalized_entropy_index", "The family (``GE(2) = CV^2 / 2``)."),
        (
            "between_group_coefficient_of_variation",
            "The part due to differences between groups.",
        ),
    ),
    output="0.3464",
)
between_group_theil_index = _fixed_alpha(
    "between_group_theil_index",
    between_group_generalized_entropy_index,
    1,
    root=False,
    summary="Between-group part of the Theil index.",
    description=":func:`between_group_generalized_entropy_index` at ``alpha = 1``.",
    see_also=(("theil_index", "The index over individuals."),),
    output="0.0201",
)
between_group_coefficient_of_variation = _fixed_alpha(
    "between_group_coefficient_of_variation",
    between_group_generalized_entropy_index,
    2,
    root=True,
    summary="Between-group coefficient of variation: ``sqrt(2 GE_between(2))``.",
    description="The weighted standard deviation of the group mean benefits (weights: group "
    "sizes) over the mean benefit.",
    see_also=(("coefficient_of_variation", "The index over individuals."),),
    output="0.2",
)

# Every index of this module: a loss (0 when every benefit, or group mean benefit, is equal).
INDICES = (
    generalized_entropy_index,
    theil_index,
    coefficient_of_variation,
    between_group_generalized_entropy_index,
    between_group_theil_index,
    between_group_coefficient_of_variation,
)
