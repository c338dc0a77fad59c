"""Conditional demographic disparity (Wachter, Mittelstadt and Russell 2021)."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np

from skfair._dask import dask_dispatch
from skfair._stats._aggregate import (
    disadvantaged_sides,
    furthest_from_parity,
    warn_single_group,
)
from skfair._stats._counts import FP, TN, confusion_table
from skfair._utils._compat import SENSITIVE_FEATURES_CONSTRAINT, validate_params
from skfair._utils._groups import factorize_groups
from skfair._utils._validation import binarize
from skfair.metrics._docs import shared
from skfair.metrics._rates import BINARY_CONSTRAINTS, PREDICTION_TABLE, check_inputs


@dask_dispatch(PREDICTION_TABLE)
@validate_params(
    {
        **BINARY_CONSTRAINTS,
        "control_features": [*SENSITIVE_FEATURES_CONSTRAINT, None],
    },
    prefer_skip_nested_validation=True,
)
@shared
def conditional_demographic_disparity(
    y_true,
    y_pred,
    *,
    sensitive_features,
    control_features=None,
    privileged_group=None,
    disadvantaged="pooled",
    pos_label=None,
    sample_weight=None,
):
    """Conditional demographic disparity: over-representation among the rejected, per stratum.

    The demographic disparity of group ``g`` in stratum ``s`` is its share among the rejected
    minus its share among the accepted, ``DD_{g,s} = P(A = g | y_pred = -, s) - P(A = g |
    y_pred = +, s)``; the conditional demographic disparity averages it over the strata of
    ``control_features`` weighted by their sizes, ``CDD_g = sum_s (n_s / n) DD_{g,s}``
    (without control features, one stratum: ``CDD_g = DD_g``). Positive: the group makes up
    more of the rejected than of the accepted.

    With ``privileged_group``, returns ``CDD`` of the other samples pooled (the shares of
    their groups add up), or with ``disadvantaged="each"`` the ``CDD_g`` of the other group
    furthest from 0; otherwise ``max_g |CDD_g|``. Strata without accepted or without
    rejected samples have no demographic disparity: they are left out (with a warning) and the
    weights of the others renormalised.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Ignored (accepted for a uniform signature); may be None.
    y_pred : array-like of shape (n_samples,)
        Predicted labels; ``pos_label`` is acceptance.
    {sensitive_features}
    control_features : array-like of shape (n_samples,) or (n_samples, n_attributes), dict \
or None, default=None
        The conditioning attribute(s) (e.g. the department applied to). Its scorer
        (``get_fairness_scorer("conditional_demographic_disparity")``) receives them per test
        fold as metadata, or reads them from X with ``control_column=``.
    privileged_group : label, tuple of labels, or list of them, default=None
        Group(s) whose samples form the privileged side, compared with the other samples (see
        ``disadvantaged``) for a signed result. None returns the largest ``|CDD_g|`` over the
        groups. A tuple gives one value per attribute for 2-D input.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and several other groups: compare them pooled with the
        privileged group(s), or each on its own and keep the comparison furthest from parity
        (see :mod:`skfair.metrics`).
    {pos_label}
    {sample_weight}

    Returns
    -------
    float
        In [-1, 1] with ``privileged_group``, else in [0, 1].

    See Also
    --------
    statistical_parity_difference : The unconditional gap in selection rates.

    Notes
    -----
    aif360's ``conditional_demographic_disparity`` computes a different quantity: the average,
    weighted by group size, of the demographic disparity of every group of ``prot_attr``
    against the population totals; it has no separate conditioning attribute and no target
    group. The definition here is the paper's (also that of Amazon SageMaker Clarify).

    References
    ----------
    .. [1] S. Wachter, B. Mittelstadt and C. Russell, "Why Fairness Cannot Be Automated:
       Bridging the Gap Between EU Non-Discrimination Law and AI", Computer Law & Security
       Review 41, 2021, Section VI.

    Examples
    --------
    >>> from skfair.metrics import conditional_demographic_disparity
    >>> y_pred = [1, 0, 0, 0, 1, 1, 1, 0]
    >>> sex = ["F", "F", "F", "F", "M", "M", "M", "M"]
    >>> conditional_demographic_disparity(None, y_pred, sensitive_features=sex,
    ...                                   privileged_group="M")
    0.5
    """
    _, y_pred, groups, weights = check_inputs(
        y_true, y_pred, sensitive_features, sample_weight, needs_y_true=False
    )
    (accepted,) = binarize(None, y_pred, pos_label)[1:]
    n_groups = groups.n_groups
    if control_features is None:
        n_strata, codes = 1, groups.codes
    else:
        strata = factorize_groups(
            control_features, n_samples=y_pred.shape[0], argument="control_features"
        )
        n_strata, codes = strata.n_groups, strata.codes * n_groups + groups.codes
    cells = SimpleNamespace(codes=codes, n_groups=n_strata * n_groups)
    table = confusion_table(cells, None, accepted, weights).reshape(n_strata, n_groups, 4)
    rejected, accepted_counts = table[..., TN], table[..., FP]
    total_rejected = table[..., TN].sum(axis=1)
    total_accepted = table[..., FP].sum(axis=1)
    defined = (total_rejected > 0) & (total_accepted > 0)
    if not defined.all():
        if not defined.any():
            warnings.warn(
                "Every prediction is the same (or every stratum has only one prediction); the "
                "demographic disparity is undefined and NaN is returned.",
                UserWarning,
            )
            return float("nan")
        warnings.warn(
            f"{int((~defined).sum())} stratum(s) of control_features have no accepted or no "
            "rejected samples; they are left out.",
            UserWarning,
        )
    disparity = (
        rejected[defined] / total_rejected[defined, None]
        - accepted_counts[defined] / total_accepted[defined, None]
    )
    stratum_sizes = table.sum(axis=(1, 2))[defined]
    conditional = stratum_sizes @ disparity / stratum_sizes.sum()
    if privileged_group is None:
        if n_groups < 2:
            # A group's share of the rejected and of the accepted are both 1.
            warn_single_group(groups, reported="0.0", stacklevel=5)
        return float(np.abs(conditional).max())
    # Shares of groups add up, so a pooled side's disparity is the sum of its groups'.
    _, compared = disadvantaged_sides(groups, privileged_group, disadvantaged)
    return float(furthest_from_parity([conditional[side].sum() for side in compared]))
