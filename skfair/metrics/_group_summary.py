"""Per-group values of a metric, with bootstrap confidence intervals."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch, check_random_state

from skfair._compat import (
    SENSITIVE_FEATURES_CONSTRAINT,
    Integral,
    Interval,
    Real,
    validate_params,
)
from skfair._dask import dask_dispatch
from skfair._stats._counts import FN, FP, TN, TP
from skfair._validation import binarize, check_groups, check_lengths, check_weights
from skfair.metrics._classification import _check_inputs

# Rates computed from per-group count tables: (needs y_true, numerator cells, denominator
# cells) over the cells [tn, fp, fn, tp] of `confusion_table`. Accuracy has its own two cells
# [wrong, right] so that it works for any discrete labels.
_RATES = {
    "selection_rate": (False, (FP, TP), (TN, FP, FN, TP)),
    "true_positive_rate": (True, (TP,), (FN, TP)),
    "false_negative_rate": (True, (FN,), (FN, TP)),
    "false_positive_rate": (True, (FP,), (TN, FP)),
    "true_negative_rate": (True, (TN,), (TN, FP)),
    "accuracy": (True, (1,), (0, 1)),
}
_ALIASES = {
    "tpr": "true_positive_rate",
    "fnr": "false_negative_rate",
    "fpr": "false_positive_rate",
    "tnr": "true_negative_rate",
}


@dask_dispatch("summary")
@validate_params(
    {
        "y_true": ["array-like", None],
        "y_pred": ["array-like"],
        "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
        "metric": [str, callable],
        "n_boot": [Interval(Integral, 0, None, closed="left")],
        "ci": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "sample_weight": ["array-like", None],
        "pos_label": [Real, str, "boolean", None],
        "as_frame": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def group_summary(
    y_true,
    y_pred,
    *,
    sensitive_features,
    metric="selection_rate",
    n_boot=0,
    ci=0.95,
    random_state=None,
    sample_weight=None,
    pos_label=None,
    as_frame=False,
    **metric_kwargs,
):
    """Per-group values of a metric, with bootstrap percentile confidence intervals.

    The bootstrap is stratified by group: each replicate resamples every group with
    replacement at its own size, so a group's interval reflects its own sample size. For the
    named rates the replicates are drawn from the per-group count tables (a multinomial draw
    per group, no pass over the samples); with weights, from the per-group counts of each
    distinct (cell, weight) class, which gives the same distribution as resampling the rows.
    For callables the samples are resampled (one vectorised draw per replicate). Replicates in
    which a rate is undefined (empty denominator) are left out of its interval.

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
        A named rate -- ``"selection_rate"``, ``"true_positive_rate"`` (``"tpr"``),
        ``"false_positive_rate"`` (``"fpr"``), ``"false_negative_rate"`` (``"fnr"``),
        ``"true_negative_rate"`` (``"tnr"``), ``"accuracy"`` -- or any callable
        ``metric(y_true, y_pred, **metric_kwargs)`` such as :func:`sklearn.metrics.recall_score`,
        :func:`~sklearn.metrics.roc_auc_score` (scores) or
        :func:`~sklearn.metrics.mean_absolute_error` (regression), called once per group (and
        per group and replicate) on the rows of ``y_true`` and ``y_pred``. It receives
        ``sample_weight=`` when weights are given. A replicate on which it raises a
        ValueError (e.g. a single class drawn) is left out of the interval.
    n_boot : int, default=0
        Number of bootstrap replicates; 0 computes no intervals (they are NaN).
    ci : float, default=0.95
        Coverage of the percentile interval ``[(1 - ci) / 2, (1 + ci) / 2]``.
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap; an int gives reproducible intervals.
    sample_weight : array-like of shape (n_samples,), default=None
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
        ``value``, ``ci_low``, ``ci_high`` (arrays over the groups); ``overall`` (the metric
        on all samples) and ``metric`` (its name). The DataFrame is indexed by group and has
        the columns ``count``, ``value``, ``ci_low``, ``ci_high``.

    Examples
    --------
    >>> from skfair.metrics import group_summary
    >>> y_pred = [1, 1, 0, 1, 0, 0, 0, 1]
    >>> sex = ["F", "F", "F", "F", "M", "M", "M", "M"]
    >>> summary = group_summary(None, y_pred, sensitive_features=sex, n_boot=200, random_state=0)
    >>> summary.groups, summary.value.tolist()
    (['F', 'M'], [0.75, 0.25])
    >>> bool((summary.ci_low <= summary.value).all())
    True
    """
    if callable(metric):
        name = getattr(metric, "__name__", repr(metric))
    else:
        name = _ALIASES.get(metric, metric)
        if name not in _RATES:
            raise ValueError(
                f"metric={metric!r} is not a named rate ({sorted([*_RATES, *_ALIASES])}); pass "
                "one of them or a callable metric(y_true, y_pred)."
            )
        if metric_kwargs:
            raise TypeError(
                f"Named rates take no metric keyword arguments, got {sorted(metric_kwargs)}."
            )
    rng = check_random_state(random_state)
    if callable(metric):
        # Any metric: labels, scores, probabilities or regression outputs, checked by metric.
        n_samples = check_lengths(
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            sample_weight=sample_weight,
        )
        groups = check_groups(sensitive_features, n_samples)
        sample_weight = check_weights(sample_weight, n_samples)
        if pos_label is not None:
            metric_kwargs["pos_label"] = pos_label
        values, replicates, overall = _callable_summary(
            metric,
            None if y_true is None else np.asarray(y_true),
            np.asarray(y_pred),
            groups,
            sample_weight,
            n_boot,
            rng,
            metric_kwargs,
        )
    else:
        y_true, y_pred, groups, sample_weight = _check_inputs(
            y_true, y_pred, sensitive_features, sample_weight, needs_y_true=_RATES[name][0]
        )
        values, replicates, overall = _rate_summary(
            name, y_true, y_pred, groups, sample_weight, pos_label, n_boot, rng
        )
    ci_low = np.full(groups.n_groups, np.nan)
    ci_high = np.full(groups.n_groups, np.nan)
    if n_boot:
        defined = ~np.isnan(replicates)
        for g in np.flatnonzero(defined.any(axis=0)):
            ci_low[g], ci_high[g] = np.quantile(
                replicates[defined[:, g], g], [(1 - ci) / 2, (1 + ci) / 2]
            )
    summary = Bunch(
        groups=groups.labels,
        count=groups.counts(),
        value=values,
        ci_low=ci_low,
        ci_high=ci_high,
        overall=overall,
        metric=name,
    )
    return _as_frame(summary, groups) if as_frame else summary


def _rate_summary(name, y_true, y_pred, groups, sample_weight, pos_label, n_boot, rng):
    """Values, replicates (n_boot, n_groups) and overall value of a named rate."""
    if name == "accuracy":
        cells, n_cells = np.asarray(y_true == y_pred, dtype=np.intp), 2
    else:
        y_true_positive, y_pred_positive = binarize(y_true, y_pred, pos_label)
        cells, n_cells = y_pred_positive.astype(np.intp), 4
        if y_true_positive is not None:
            cells += 2 * y_true_positive
    _, numerator_cells, denominator_cells = _RATES[name]
    numerator_mask = np.isin(np.arange(n_cells), numerator_cells)
    denominator_mask = np.isin(np.arange(n_cells), denominator_cells)

    def rates(tables):
        with np.errstate(invalid="ignore", divide="ignore"):
            return (tables @ numerator_mask) / (tables @ denominator_mask)

    def tables_of(codes, weights):
        counts = np.bincount(
            codes * n_cells + cells, weights=weights, minlength=groups.n_groups * n_cells
        )
        return counts.reshape(groups.n_groups, n_cells)

    table = tables_of(groups.codes, sample_weight)
    values = rates(table)
    overall = float(rates(table.sum(axis=0)))
    if not n_boot:
        return values, None, overall
    if sample_weight is None:
        # Resampling n_g samples of a group with replacement draws its cell counts from a
        # multinomial with the group's cell frequencies: no pass over the samples is needed.
        replicates = np.empty((n_boot, groups.n_groups, n_cells))
        for g, row in enumerate(table):
            replicates[:, g] = rng.multinomial(int(row.sum()), row / row.sum(), size=n_boot)
        return values, rates(replicates), overall
    return (
        values,
        rates(_weighted_replicate_tables(groups, cells, n_cells, sample_weight, n_boot, rng)),
        overall,
    )


def _weighted_replicate_tables(groups, cells, n_cells, sample_weight, n_boot, rng):
    """Count tables (n_boot, n_groups, n_cells) of a stratified bootstrap with weights.

    Resampling the n_g rows of a group with replacement only matters through how many times
    each (weight, cell) class is drawn: rows of one class are exchangeable. So each group
    draws one multinomial over its distinct weights x the cells, with the row frequencies,
    and a class drawn k times adds k times its weight to its cell. With one distinct weight
    (e.g. all ones) this is exactly the unweighted bootstrap's draw; with n distinct weights,
    O(n) per replicate like a draw of rows.
    """
    weight_values, weight_codes = np.unique(sample_weight, return_inverse=True)
    n_weights = weight_values.size
    keys, class_sizes = np.unique(
        (groups.codes.astype(np.int64) * n_weights + weight_codes) * n_cells + cells,
        return_counts=True,
    )
    # One row per (group, distinct weight) present, one column per cell.
    group_weight, row = np.unique(keys // n_cells, return_inverse=True)
    sizes = np.zeros((group_weight.size, n_cells), dtype=np.int64)
    sizes[row, keys % n_cells] = class_sizes
    row_weight = weight_values[group_weight % n_weights]
    bounds = np.searchsorted(group_weight // n_weights, np.arange(groups.n_groups + 1))
    tables = np.empty((n_boot, groups.n_groups, n_cells))
    for g in range(groups.n_groups):
        group_sizes = sizes[bounds[g] : bounds[g + 1]]
        weights = row_weight[bounds[g] : bounds[g + 1]]
        n_rows = int(group_sizes.sum())
        # Replicates per call, so that a block of draws holds about 2**22 numbers.
        block = max(1, (1 << 22) // group_sizes.size)
        for lo in range(0, n_boot, block):
            draws = rng.multinomial(
                n_rows, group_sizes.ravel() / n_rows, size=min(block, n_boot - lo)
            )
            draws = draws.reshape(draws.shape[0], *group_sizes.shape)
            tables[lo : lo + draws.shape[0], g] = np.einsum("bkc,k->bc", draws, weights)
    return tables


def _callable_summary(metric, y_true, y_pred, groups, sample_weight, n_boot, rng, kwargs):
    """Values, replicates (n_boot, n_groups) and overall value of a callable metric."""

    def evaluate(index):
        weights = {} if sample_weight is None else {"sample_weight": sample_weight[index]}
        y_true_part = None if y_true is None else y_true[index]
        return float(metric(y_true_part, y_pred[index], **weights, **kwargs))

    def evaluate_replicate(index):
        # A resample can make the metric undefined (e.g. ROC AUC with one class drawn): the
        # replicate is then left out of the interval, like an undefined rate.
        try:
            return evaluate(index)
        except ValueError:
            return np.nan

    resample = _StratifiedResampler(groups)
    values = np.array([evaluate(index) for index in resample.group_indices()])
    overall = evaluate(slice(None))
    if not n_boot:
        return values, None, overall
    replicates = np.empty((n_boot, groups.n_groups))
    for b in range(n_boot):
        replicates[b] = [
            evaluate_replicate(index) for index in resample.group_indices(resample(rng))
        ]
    return values, replicates, overall


class _StratifiedResampler:
    """Bootstrap indices that resample every group with replacement at its own size."""

    def __init__(self, groups):
        self.order = np.argsort(groups.codes, kind="stable")
        sizes = groups.counts()
        self.bounds = np.concatenate([[0], np.cumsum(sizes)])
        # For each position of the group-sorted order: where its group starts, and its size.
        sorted_codes = groups.codes[self.order]
        self.starts = self.bounds[:-1][sorted_codes]
        self.sizes = sizes[sorted_codes]

    def __call__(self, rng):
        """Sample indices, grouped like ``self.order``, drawn within each group."""
        offsets = np.floor(rng.random_sample(self.order.size) * self.sizes).astype(np.intp)
        return self.order[self.starts + offsets]

    def group_indices(self, index=None):
        """Indices of each group's samples (in ``index``, grouped by the sorted order)."""
        index = self.order if index is None else index
        return [
            index[start:stop] for start, stop in zip(self.bounds[:-1], self.bounds[1:], strict=True)
        ]


def _as_frame(summary, groups):
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - exercised without pandas only
        raise ImportError(
            'as_frame=True needs pandas: pip install "scikit-fairkit[pandas]".'
        ) from exc
    if groups.one_dimensional:
        index = pd.Index(summary.groups, name=groups.names[0])
    else:
        index = pd.MultiIndex.from_tuples(summary.groups, names=list(groups.names))
    return pd.DataFrame(
        {
            "count": summary.count,
            "value": summary.value,
            "ci_low": summary.ci_low,
            "ci_high": summary.ci_high,
        },
        index=index,
    )
