"""Per-group values of one metric, with confidence intervals."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils import Bunch

from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    SENSITIVE_FEATURES_CONSTRAINT,
    Interval,
    StrOptions,
    validate_params,
)
from skfair.metrics._docs import shared
from skfair.metrics._intervals import CI_METHODS
from skfair.metrics._metric_table import MetricTable, _canonical_name, _import_pandas


@validate_params(
    {
        "y_true": ["array-like", None],
        "y_pred": ["array-like"],
        "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
        "metric": [str, callable],
        "n_boot": [Interval(Integral, 0, None, closed="left")],
        "ci": [Interval(Real, 0, 1, closed="neither")],
        "ci_method": [StrOptions(set(CI_METHODS))],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "sample_weight": ["array-like", None],
        "pos_label": [Real, str, "boolean", None],
        "as_frame": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@shared
def group_summary(
    y_true,
    y_pred,
    *,
    sensitive_features,
    metric="selection_rate",
    n_boot=0,
    ci=0.95,
    ci_method="clopper-pearson",
    random_state=None,
    sample_weight=None,
    pos_label=None,
    as_frame=False,
    **metric_kwargs,
):
    """Per-group values of one metric, with confidence intervals.

    The one-metric view of :class:`MetricTable`, which computes it (use the table for several
    metrics, control features and aggregates). A named rate's interval is, by default,
    Clopper and Pearson's exact interval of the group's proportion, with coverage at least
    ``ci`` whatever the group's size (see :class:`MetricTable`); ``ci_method="bootstrap"``
    and callables get bootstrap percentile intervals. The bootstrap is stratified by group:
    each replicate resamples every group with replacement at its own size, so a group's
    interval reflects its own sample size. For the named rates the replicates are drawn from
    the per-group count tables (a multinomial draw per group, no pass over the samples); with
    weights, from the per-group counts of each distinct (cell, weight) class, which gives the
    same distribution as resampling the rows. Callables are evaluated on resampled rows.
    Replicates in which a value is undefined are left out of its interval.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        True labels (or targets for a callable ``metric``); may be None for
        ``"selection_rate"`` and for callables that ignore it.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted labels for the named rates; whatever ``metric`` takes as its second
        argument for a callable (scores, probabilities, regression outputs).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes give intersectional groups.
    metric : str or callable, default="selection_rate"
        A named rate of :class:`MetricTable` -- ``"selection_rate"``, ``"true_positive_rate"``
        (``"tpr"``), ``"false_positive_rate"`` (``"fpr"``), ``"positive_predictive_value"``
        (``"ppv"``), ``"accuracy"``, ... -- or any callable
        ``metric(y_true, y_pred, **metric_kwargs)`` such as :func:`sklearn.metrics.recall_score`,
        :func:`~sklearn.metrics.roc_auc_score` (scores) or
        :func:`~sklearn.metrics.mean_absolute_error` (regression), called once per group (and
        per group and replicate) on the rows of ``y_true`` and ``y_pred``. It receives
        ``sample_weight=`` when weights are given. A replicate on which it raises a
        ValueError (e.g. a single class drawn) is left out of the interval.
    n_boot : int, default=0
        Number of bootstrap replicates, for a callable ``metric`` or
        ``ci_method="bootstrap"``; without replicates their intervals are NaN.
    ci : float, default=0.95
        Coverage of the intervals (percentiles ``[(1 - ci) / 2, (1 + ci) / 2]`` of the
        bootstrap).
    ci_method : {"clopper-pearson", "wilson", "bootstrap"}, default="clopper-pearson"
        Interval of a named rate: exact (Clopper-Pearson), Wilson's score interval, or the
        bootstrap's percentiles, as in :class:`MetricTable`.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the bootstrap; an int gives reproducible intervals.
    {sample_weight}
    pos_label : int, float, bool or str, default=None
        Positive label of the named binary rates (inferred for {0, 1}-like labels); forwarded
        to a callable ``metric`` when given.
    as_frame : bool, default=False
        Return a pandas DataFrame indexed by group (needs pandas) instead of a Bunch.
    **metric_kwargs
        Passed to a callable ``metric``.

    Returns
    -------
    summary : Bunch or pandas.DataFrame
        Bunch with ``groups`` (list of group labels); ``count`` (samples per group),
        ``denominator`` (the samples a group's value is computed on, summed weights with
        ``sample_weight``: for ``"true_positive_rate"`` the group's samples with the positive
        label, for ``"selection_rate"`` and callables all of them), ``value``, ``ci_low``,
        ``ci_high`` (arrays over the groups); ``overall`` (the metric on all samples) and
        ``metric`` (its name). The DataFrame is indexed by group and has the columns
        ``count``, ``denominator``, ``value``, ``ci_low``, ``ci_high``.

    See Also
    --------
    MetricTable : Several metrics per group, with differences, ratios and control features.

    Notes
    -----
    **Dask input.** As :class:`MetricTable`: each partition sends the frequency table of its
    distinct (sensitive, y_true, y_pred) rows, at most n_groups x n_labels**2 rows whatever
    its length (with weights and ``n_boot``, one row per distinct weight as well), and the
    values and intervals are exactly the in-memory ones. A callable ``metric`` is refused
    with a TypeError.

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
       illustrated in the case of the binomial", Biometrika 26(4), 1934.
    .. [2] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall,
       1993, Chapter 13 (percentile intervals).
    .. [3] H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn:
       Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023.

    Examples
    --------
    >>> from skfair.metrics import group_summary
    >>> y_pred = [1, 1, 0, 1, 0, 0, 0, 1]
    >>> sex = ["F", "F", "F", "F", "M", "M", "M", "M"]
    >>> summary = group_summary(None, y_pred, sensitive_features=sex)
    >>> summary.groups, summary.value.tolist()
    (['F', 'M'], [0.75, 0.25])
    >>> summary.ci_low.round(3).tolist(), summary.ci_high.round(3).tolist()
    ([0.194, 0.006], [0.994, 0.806])
    """
    if metric_kwargs and not callable(metric):
        raise TypeError(
            f"Named rates take no metric keyword arguments, got {sorted(metric_kwargs)}."
        )
    name = getattr(metric, "__name__", repr(metric)) if callable(metric) else metric
    table = MetricTable(
        {name: (metric, metric_kwargs) if callable(metric) else metric},
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
        pos_label=pos_label,
        n_boot=n_boot,
        ci=ci,
        ci_method=ci_method,
        random_state=random_state,
        as_frame=False,
    )
    if n_boot or (ci_method != "bootstrap" and not callable(metric)):
        ci_low, ci_high = (bound[:, 0] for bound in table.confidence_interval("by_group"))
    else:
        ci_low = ci_high = np.full(len(table.groups), np.nan)
    # The samples (weights) behind each group's value: those the named rate divides by (a
    # TPR's samples with the positive label), all the group's samples for a callable.
    denominator = (
        table.counts.astype(np.float64)
        if callable(metric)
        else table._sums[_canonical_name(metric)][1][0]
    )
    summary = Bunch(
        groups=table.groups,
        count=table.counts,
        denominator=denominator,
        value=table.by_group[:, 0],
        ci_low=ci_low,
        ci_high=ci_high,
        overall=float(table.overall[0]),
        metric=name if callable(metric) else _canonical_name(metric),
    )
    return _as_frame(summary, table) if as_frame else summary


def _as_frame(summary, table):
    pd = _import_pandas()
    return pd.DataFrame(
        {
            "count": summary.count,
            "denominator": summary.denominator,
            "value": summary.value,
            "ci_low": summary.ci_low,
            "ci_high": summary.ci_high,
        },
        index=table._frame_index(pd, rows=True),
    )
