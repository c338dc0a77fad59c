"""A per-group table of several metrics at once: :class:`MetricTable`.

The table validates and factorises its inputs once, builds one weighted count table
``stratum x group x [tn, fp, fn, tp]`` (one ``np.bincount``) and reads every named rate off it as
a ratio of sums of cells. Callable metrics run once per group on the group's rows. Every
aggregate (``difference``, ``ratio``, ``group_min``, ...) is a small formula on the per-group
values, applied identically to the bootstrap replicates, so each aggregate has an interval too.
"""

from __future__ import annotations

import functools
import html
import numbers
import warnings
from types import SimpleNamespace

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from skfair._dask import is_dask_collection, reduce_arguments
from skfair._stats._aggregate import DISADVANTAGED, furthest_from_parity, warn_single_group
from skfair._stats._counts import RATE_CELLS, bootstrap_group_tables, confusion_table
from skfair._utils._frames import collect_lazy
from skfair._utils._groups import factorize_groups, privileged_mask
from skfair._utils._random import check_random_state
from skfair._utils._validation import (
    binarize,
    check_label_pair,
    check_labels,
    check_lengths,
    check_weights,
)

# A named rate is a ratio of two sums of cells of the count table (RATE_CELLS). The table has,
# per group, the cells [tn, fp, fn, tp] and -- when accuracy is asked for -- these split
# further by whether y_pred == y_true (exact for any discrete labels): masks over
# (correct, cell). Only the selection rate ignores y_true.
_NAMED_RATES = {
    # name: (needs y_true, numerator cells, denominator cells)
    name: (name != "selection_rate", *cells)
    for name, cells in RATE_CELLS.items()
}
# Rates that compare y_pred with y_true label by label (any discrete labels).
_CORRECTNESS_RATES = {"accuracy": True, "error_rate": False}
_ALIASES = {
    "tpr": "true_positive_rate",
    "recall": "true_positive_rate",
    "fnr": "false_negative_rate",
    "fpr": "false_positive_rate",
    "tnr": "true_negative_rate",
    "ppv": "positive_predictive_value",
    "precision": "positive_predictive_value",
    "fdr": "false_discovery_rate",
    "npv": "negative_predictive_value",
    "for": "false_omission_rate",
    "accuracy_score": "accuracy",
}
NAMED_METRICS = sorted([*_NAMED_RATES, *_CORRECTNESS_RATES])


def _rate_masks(name, n_correctness):
    """Numerator and denominator masks over the flattened cells ``(correct, [tn, fp, fn, tp])``."""
    numerator = np.zeros((n_correctness, 4), dtype=bool)
    denominator = np.zeros((n_correctness, 4), dtype=bool)
    if name in _CORRECTNESS_RATES:
        numerator[int(_CORRECTNESS_RATES[name])] = True
        denominator[:] = True
    else:
        _, numerator_cells, denominator_cells = _NAMED_RATES[name]
        numerator[:, list(numerator_cells)] = True
        denominator[:, list(denominator_cells)] = True
    return numerator.ravel(), denominator.ravel()


def _canonical_name(metric):
    name = _ALIASES.get(metric, metric)
    if name not in _NAMED_RATES and name not in _CORRECTNESS_RATES:
        raise ValueError(
            f"{metric!r} is not a named rate; the named rates are {NAMED_METRICS} (aliases "
            f"{sorted(_ALIASES)}). Pass one of them or a callable metric(y_true, y_pred)."
        )
    return name


def _parse_metrics(metrics):
    """``metrics`` -> list of ``(name, rate name or None, callable or None, kwargs)``."""
    if isinstance(metrics, (str, tuple)) or callable(metrics):
        metrics = [metrics]
    if isinstance(metrics, dict):
        items = list(metrics.items())
    elif isinstance(metrics, list):
        items = []
        for metric in metrics:
            function = metric[0] if isinstance(metric, tuple) else metric
            if isinstance(function, str):
                items.append((_canonical_name(function), metric))
            else:
                items.append((getattr(function, "__name__", repr(function)), metric))
    else:
        raise TypeError(
            "metrics must be a named rate, a callable, a (callable, kwargs) tuple, or a list or "
            f"dict of them; got {type(metrics).__name__}."
        )
    if not items:
        raise ValueError("metrics is empty; name at least one metric.")
    parsed = []
    for name, metric in items:
        kwargs = {}
        if isinstance(metric, tuple):
            if len(metric) != 2 or not isinstance(metric[1], dict):
                raise TypeError(
                    f"Metric {name!r}: a tuple must be (metric, kwargs dict), got {metric!r}."
                )
            metric, kwargs = metric
        if isinstance(metric, str):
            if kwargs:
                raise TypeError(
                    f"Metric {name!r}: named rates take no keyword arguments, got {sorted(kwargs)}."
                )
            parsed.append((str(name), _canonical_name(metric), None, {}))
        elif callable(metric):
            parsed.append((str(name), None, metric, dict(kwargs)))
        else:
            raise TypeError(f"Metric {name!r} is neither a named rate nor a callable: {metric!r}.")
    names = [name for name, *_ in parsed]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(
            f"Metric names {repeated} repeat; pass a dict to give each metric its own name."
        )
    return parsed


class MetricTable:
    """Several metrics per group at once, with their aggregates and bootstrap intervals.

    The inputs are validated and factorised once; one weighted count table per group
    (``[tn, fp, fn, tp]``, from one ``np.bincount``) serves every named rate, and callables run
    once per group. Aggregates across groups -- :meth:`difference`, :meth:`ratio`,
    :meth:`group_min`, :meth:`group_max` -- are small formulas on the per-group values, computed
    on demand; the bootstrap replicates go through the same formulas, so
    :meth:`confidence_interval` covers every cell and every aggregate.

    Parameters
    ----------
    metrics : str, callable, tuple, or list or dict of them
        Named rates -- ``"selection_rate"``, ``"true_positive_rate"`` (``"tpr"``,
        ``"recall"``), ``"false_negative_rate"`` (``"fnr"``), ``"false_positive_rate"``
        (``"fpr"``), ``"true_negative_rate"`` (``"tnr"``), ``"positive_predictive_value"``
        (``"ppv"``, ``"precision"``), ``"false_discovery_rate"`` (``"fdr"``),
        ``"negative_predictive_value"`` (``"npv"``), ``"false_omission_rate"`` (``"for"``),
        ``"base_rate"``, ``"accuracy"``, ``"error_rate"`` -- or callables
        ``metric(y_true, y_pred, **kwargs)`` such as :func:`sklearn.metrics.roc_auc_score`.
        ``(callable, kwargs)`` passes keyword arguments. A dict names each metric (its keys
        become the column names); a list uses the rate names and the callables' ``__name__``.
    y_true : array-like of shape (n_samples,) or None
        True labels; may be None when every metric ignores it (``"selection_rate"``, or
        callables that accept None).
    y_pred : array-like of shape (n_samples,)
        Predicted labels for the named rates; whatever the callables take otherwise.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes give intersectional groups.
    control_features : array-like of shape (n_samples,) or (n_samples, n_attributes), dict or \
None, default=None
        Attributes to condition on: every value and every aggregate is then computed within
        each stratum of the control features, and the results are indexed by stratum.
    privileged_group : label, tuple of labels, or list of them, default=None
        When given, ``difference()`` and ``ratio()`` (``method="between_groups"``) are signed,
        disadvantaged minus (over) privileged, as the functions of :mod:`skfair.metrics`.
    disadvantaged : {"pooled", "each"}, default="pooled"
        With ``privileged_group`` and more than two groups: ``"pooled"`` compares all the other
        samples pooled together with the privileged ones (aif360's convention); ``"each"``
        compares every other group with the privileged ones and reports the comparison furthest
        from parity (sign kept), which shows a small harmed group that pooling hides.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; None weighs every sample equally.
    pos_label : int, float, bool or str, default=None
        Positive label of the named binary rates (inferred for {0, 1}, {-1, 1} and
        {False, True}); forwarded to callables when given.
    n_boot : int, default=0
        Number of bootstrap replicates; 0 computes no intervals.
    ci : float, default=0.95
        Coverage of the percentile intervals.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the bootstrap.
    as_frame : bool, default=False
        True returns pandas objects (needs pandas); False returns numpy arrays, with the row
        labels in :attr:`groups` and the column names in :attr:`metric_names`, so that the
        table works on an install without the ``pandas`` extra, like the data loaders.

    Attributes
    ----------
    metric_names : list of str
        Column names, one per metric.
    groups : list
        Row labels of :attr:`by_group`: group labels, or ``(stratum..., group...)`` tuples with
        control features.
    strata : list or None
        Labels of the control strata (None without control features).

    See Also
    --------
    group_summary : One metric per group, as a Bunch or a DataFrame.
    statistical_parity_difference : The selection-rate disparity as one number.

    Notes
    -----
    Groups with no samples in a stratum are absent from :attr:`by_group`; a rate whose
    denominator is zero in a group (e.g. a true-positive rate without positives) is NaN there
    and left out of the aggregates (fairlearn reports 0 for it, following scikit-learn's
    ``zero_division``), with an :class:`~sklearn.exceptions.UndefinedMetricWarning`. A
    comparison needs two values: where fewer than two groups have a defined value,
    :meth:`difference` and :meth:`ratio` are NaN, as the metric functions of
    :mod:`skfair.metrics` are; a single group (in the table, or in a stratum) has nothing to
    compare and gives 0.0 (ratio 1.0) with that warning.

    The bootstrap is stratified by group (and stratum): each replicate redraws every group at
    its own size. For the named rates the replicate of a group is a multinomial draw from the
    group's cell counts, so no pass over the samples is made and the result does not depend on
    how the data were partitioned; with ``sample_weight``, a multinomial draw over the
    group's distinct (weight, cell) classes, which has the distribution of resampled rows.
    Callables are evaluated on resampled rows. Replicates in which a value
    is undefined are left out of its interval.

    **Dask input.** Dask collections (one per argument, or mixed with in-memory arrays) are
    read partition by partition: each partition sends the frequency table of its distinct
    (control, sensitive, y_true, y_pred) rows, at most n_strata x n_groups x n_labels**2
    rows whatever its length (with weights and ``n_boot``, the weight is a key too, so that
    the bootstrap draws the same (weight, cell) classes as in memory: one row per distinct
    weight as well). The summed table gives exactly the in-memory values and intervals.
    Callable metrics are refused with a TypeError (they need each group's rows).

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall,
       1993, Chapter 13 (percentile intervals) and Section 8.5 (stratified resampling).
    .. [2] H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn:
       Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023 (``MetricFrame``).

    Examples
    --------
    >>> from skfair.metrics import MetricTable
    >>> y_true = [1, 0, 1, 1, 0, 1, 0, 0]
    >>> y_pred = [1, 0, 0, 1, 1, 1, 0, 0]
    >>> sex = ["F", "F", "F", "F", "M", "M", "M", "M"]
    >>> table = MetricTable(["selection_rate", "tpr"], y_true, y_pred,
    ...                     sensitive_features=sex)
    >>> table.by_group
    array([[0.5       , 0.66666667],
           [0.5       , 1.        ]])
    >>> table.difference()
    array([0.        , 0.33333333])
    >>> table.overall
    array([0.5 , 0.75])
    """

    def __init__(
        self,
        metrics,
        y_true,
        y_pred,
        *,
        sensitive_features,
        control_features=None,
        privileged_group=None,
        disadvantaged="pooled",
        sample_weight=None,
        pos_label=None,
        n_boot=0,
        ci=0.95,
        random_state=None,
        as_frame=False,
    ):
        if not isinstance(n_boot, numbers.Integral) or isinstance(n_boot, bool) or n_boot < 0:
            raise ValueError(f"n_boot must be a non-negative integer, got {n_boot!r}.")
        if not isinstance(ci, numbers.Real) or not 0 < ci < 1:
            raise ValueError(f"ci must be in (0, 1), got {ci!r}.")
        if disadvantaged not in DISADVANTAGED:
            raise ValueError(
                f"disadvantaged must be one of {DISADVANTAGED}, got {disadvantaged!r}."
            )
        self._parsed = _parse_metrics(metrics)
        self.metric_names = [name for name, *_ in self._parsed]
        self.ci = float(ci)
        self.n_boot = int(n_boot)
        self.as_frame = as_frame
        self.disadvantaged = disadvantaged
        self.privileged_group = privileged_group

        per_sample = {
            "y_true": y_true,
            "y_pred": y_pred,
            "sensitive_features": collect_lazy(sensitive_features),
            "control_features": collect_lazy(control_features),
            "sample_weight": sample_weight,
        }
        sensitive_features = per_sample["sensitive_features"]
        control_features = per_sample["control_features"]
        # Rows of frequency > 1 (the distinct rows of a dask input), each sample of weight
        # unit_weight; None in memory, where every row is one sample.
        frequency = unit_weight = None
        if any(is_dask_collection(value) for value in per_sample.values()):
            frequency, unit_weight = _frequency_table(per_sample, self._parsed, self.n_boot)
            y_true, y_pred = per_sample["y_true"], per_sample["y_pred"]
            sensitive_features = per_sample["sensitive_features"]
            control_features = per_sample["control_features"]
            sample_weight = per_sample["sample_weight"]
        n_samples = check_lengths(
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            control_features=control_features,
            sample_weight=sample_weight,
        )
        self._sensitive = factorize_groups(sensitive_features, n_samples=n_samples)
        self._control = (
            None
            if control_features is None
            else factorize_groups(
                control_features, n_samples=n_samples, argument="control_features"
            )
        )
        if frequency is None:
            weights = unit_weight = check_weights(sample_weight, n_samples)
        else:
            weights, unit_weight = _row_weights(sample_weight, unit_weight, frequency)
        n_strata = 1 if self._control is None else self._control.n_groups
        n_groups = self._sensitive.n_groups
        codes = self._sensitive.codes
        if self._control is not None:
            codes = self._control.codes * n_groups + codes
        cells = SimpleNamespace(codes=codes, n_groups=n_strata * n_groups)
        self._shape = (n_strata, n_groups)
        self._counts = (
            np.bincount(codes, weights=frequency, minlength=cells.n_groups)
            .astype(np.int64)
            .reshape(self._shape)
        )
        self._present = self._counts > 0
        self._privileged = (
            None if privileged_group is None else privileged_mask(self._sensitive, privileged_group)
        )
        rng = check_random_state(random_state)

        rate_names = [rate for _, rate, function, _ in self._parsed if function is None]
        callables = [
            (position, function, kwargs)
            for position, (_, rate, function, kwargs) in enumerate(self._parsed)
            if rate is None
        ]
        values, replicates = {}, {}
        if rate_names:
            y_true_checked, y_pred_checked = _check_label_inputs(y_true, y_pred, rate_names)
            values_r, replicates_r = self._named_rates(
                rate_names,
                y_true_checked,
                y_pred_checked,
                cells,
                weights,
                pos_label,
                rng,
                (unit_weight, frequency),
            )
            values.update(values_r)
            replicates.update(replicates_r)
        if callables:
            if pos_label is not None:
                callables = [(k, f, {"pos_label": pos_label, **kw}) for k, f, kw in callables]
            values_c, replicates_c = self._callables(callables, y_true, y_pred, cells, weights, rng)
            values.update(values_c)
            replicates.update(replicates_c)
        # Per metric: (per-group values, overall per stratum, [dis, priv] sides per stratum),
        # shapes (n_strata, n_groups), (n_strata,), (n_strata, 2); replicates add a first axis.
        keys = [rate if rate is not None else k for k, (_, rate, *_) in enumerate(self._parsed)]
        self._values = [values[key] for key in keys]
        self._replicates = [replicates[key] for key in keys] if self.n_boot else None

    # ------------------------------------------------------------------------------------------
    # computation

    def _named_rates(self, rate_names, y_true, y_pred, cells, weights, pos_label, rng, rows):
        """Values (and replicates) of the named rates from one count table; ``rows`` is
        ``(unit_weight, frequency)`` of the rows, for the bootstrap."""
        needs_binary = any(name in _NAMED_RATES for name in rate_names)
        needs_correctness = any(name in _CORRECTNESS_RATES for name in rate_names)
        if needs_binary:
            y_true_positive, y_pred_positive = binarize(y_true, y_pred, pos_label)
        else:
            y_true_positive, y_pred_positive = None, np.zeros(y_pred.shape[0], dtype=bool)
        n_correctness = 2 if needs_correctness else 1
        # Cell of each sample within its group: [tn, fp, fn, tp], after "wrong" or "right".
        cell = y_pred_positive.astype(np.intp)
        if y_true_positive is not None:
            cell += 2 * y_true_positive
        split = cells
        if needs_correctness:
            # Split each group by correctness: a finer code for the same count table.
            correct = np.asarray(y_true == y_pred, dtype=np.intp)
            cell += 4 * correct
            split = SimpleNamespace(codes=cells.codes * 2 + correct, n_groups=cells.n_groups * 2)
        shape = (*self._shape, n_correctness * 4)
        table = confusion_table(split, y_true_positive, y_pred_positive, weights).reshape(shape)
        masks = {name: _rate_masks(name, n_correctness) for name in set(rate_names)}
        values = {name: self._rate_values(table, *masks[name]) for name in masks}
        if not self.n_boot:
            return values, {}
        # Groups are redrawn whole: the correctness split is a cell, not a stratum.
        draws = bootstrap_group_tables(
            table.reshape(cells.n_groups, shape[-1]), cells, cell, *rows, self.n_boot, rng
        )
        return values, self._bootstrap_rates(draws, masks)

    def _bootstrap_rates(self, draws, masks):
        """Replicates ``(per group, overall, sides)`` of each named rate.

        ``draws`` yields one group's replicate count tables at a time; each is reduced at once
        to every rate's numerator and denominator, so memory holds the replicate values
        (``n_boot x n_groups`` per rate), never the ``n_boot x n_groups x n_cells`` tables. The
        random stream is the one of drawing every table at once: the chunking does not change
        the numbers.
        """
        n_strata, n_groups = self._shape
        sides = self._privileged is not None
        shapes = {
            "per_group": (self.n_boot, n_strata, n_groups),
            "parts": (2, self.n_boot, n_strata, 3 if sides else 1),
        }
        n_bytes = 8 * len(masks) * sum(int(np.prod(shape)) for shape in shapes.values())
        try:
            per_group = {name: np.full(shapes["per_group"], np.nan) for name in masks}
            # numerator and denominator of [overall, disadvantaged side, privileged side]
            parts = {name: np.zeros(shapes["parts"]) for name in masks}
        except MemoryError as error:
            raise MemoryError(
                f"The bootstrap keeps n_boot={self.n_boot} replicates of {len(masks)} rate(s) "
                f"in {n_strata * n_groups} (stratum, group) cells: {n_bytes / 2**30:.2f} GiB, "
                "more than the memory available. Lower n_boot, or ask for fewer metrics or "
                "groups per table."
            ) from error
        masks = {
            name: (m.astype(np.float64), d.astype(np.float64)) for name, (m, d) in masks.items()
        }
        for g, group_draws in draws:
            stratum, group = divmod(g, n_groups)
            side = [0] if not sides else [0, 2 if self._privileged[group] else 1]
            for name, (numerator_mask, denominator_mask) in masks.items():
                numerator = group_draws @ numerator_mask
                denominator = group_draws @ denominator_mask
                per_group[name][:, stratum, group] = _ratio(numerator, denominator)
                for column in side:
                    parts[name][0, :, stratum, column] += numerator
                    parts[name][1, :, stratum, column] += denominator
        replicates = {}
        for name in masks:
            ratios = _ratio(parts[name][0], parts[name][1])
            replicates[name] = (per_group[name], ratios[..., 0], ratios[..., 1:] if sides else None)
        return replicates

    def _rate_values(self, table, numerator_mask, denominator_mask):
        """(per group, overall, sides) of the rate ``table @ numerator / table @ denominator``."""
        numerator = table @ numerator_mask.astype(np.float64)
        denominator = table @ denominator_mask.astype(np.float64)
        sides = None
        if self._privileged is not None:
            sides_numerator = np.stack(
                [
                    numerator[..., ~self._privileged].sum(-1),
                    numerator[..., self._privileged].sum(-1),
                ],
                axis=-1,
            )
            sides_denominator = np.stack(
                [
                    denominator[..., ~self._privileged].sum(-1),
                    denominator[..., self._privileged].sum(-1),
                ],
                axis=-1,
            )
            sides = _ratio(sides_numerator, sides_denominator)
        return _ratio(numerator, denominator), _ratio(numerator.sum(-1), denominator.sum(-1)), sides

    def _callables(self, callables, y_true, y_pred, cells, weights, rng):
        y_true = None if y_true is None else np.asarray(y_true)
        y_pred = np.asarray(y_pred)
        resample = _StratifiedResampler(cells.codes, cells.n_groups)

        def evaluate(function, kwargs, index, strict):
            if index.size == 0:
                return np.nan
            sample_weight = {} if weights is None else {"sample_weight": weights[index]}
            part = None if y_true is None else y_true[index]
            try:
                return float(function(part, y_pred[index], **sample_weight, **kwargs))
            except ValueError:
                # A resample can make a metric undefined (ROC AUC with one class drawn).
                if strict:
                    raise
                return np.nan

        def evaluate_all(index=None, strict=True):
            parts = resample.group_indices(index)
            out = {}
            for key, function, kwargs in callables:
                per_group = np.array([evaluate(function, kwargs, p, strict) for p in parts])
                per_group = per_group.reshape(self._shape)
                stratum_parts = [
                    np.concatenate(parts[s * self._shape[1] : (s + 1) * self._shape[1]])
                    for s in range(self._shape[0])
                ]
                overall = np.array([evaluate(function, kwargs, p, strict) for p in stratum_parts])
                sides = None
                if self._privileged is not None:
                    sides = np.array(
                        [
                            [
                                evaluate(
                                    function,
                                    kwargs,
                                    np.concatenate(
                                        [
                                            parts[s * self._shape[1] + g]
                                            for g in np.flatnonzero(mask)
                                        ]
                                    ),
                                    strict,
                                )
                                for mask in (~self._privileged, self._privileged)
                            ]
                            for s in range(self._shape[0])
                        ]
                    )
                out[key] = (per_group, overall, sides)
            return out

        values = evaluate_all()
        if not self.n_boot:
            return values, {}
        draws = [evaluate_all(resample(rng), strict=False) for _ in range(self.n_boot)]
        replicates = {
            key: tuple(
                None if values[key][part] is None else np.stack([d[key][part] for d in draws])
                for part in range(3)
            )
            for key in values
        }
        return values, replicates

    # ------------------------------------------------------------------------------------------
    # labels and output

    @property
    def groups(self):
        labels = self._sensitive.labels
        if self._control is None:
            return labels
        rows = []
        for s, stratum in enumerate(self._control.labels):
            stratum = stratum if isinstance(stratum, tuple) else (stratum,)
            for g, group in enumerate(labels):
                if self._present[s, g]:
                    group = group if isinstance(group, tuple) else (group,)
                    rows.append((*stratum, *group))
        return rows

    @property
    def strata(self):
        return None if self._control is None else self._control.labels

    def _rows(self, array):
        """(n_strata, n_groups, ...) -> rows of the present (stratum, group) cells."""
        if self._control is None:
            return array[0]
        return array[self._present]

    def _frame_index(self, pd, rows):
        if rows:
            labels = self.groups
            names = list(self._sensitive.names)
            if self._control is not None:
                names = list(self._control.names) + names
            if len(names) == 1:
                return pd.Index(labels, name=names[0])
            return pd.MultiIndex.from_tuples(labels, names=names)
        names = list(self._control.names)
        if len(names) == 1:
            return pd.Index(self.strata, name=names[0])
        return pd.MultiIndex.from_tuples(self.strata, names=names)

    def _output(self, columns, *, rows):
        """Stack per-metric arrays as columns; pandas or numpy as configured."""
        data = np.stack(columns, axis=-1)
        if rows:
            data = self._rows(data)
        elif self._control is None:
            data = data[0]
        if not self.as_frame:
            return data
        pd = _import_pandas()
        if not rows and self._control is None:
            return pd.Series(data, index=self.metric_names)
        return pd.DataFrame(data, index=self._frame_index(pd, rows), columns=self.metric_names)

    # ------------------------------------------------------------------------------------------
    # values

    @property
    def by_group(self):
        """Value of every metric in every group: rows are groups, columns metrics."""
        return self._output([v[0] for v in self._values], rows=True)

    @property
    def overall(self):
        """Value of every metric on all samples (per control stratum)."""
        return self._output([v[1] for v in self._values], rows=False)

    @property
    def counts(self):
        """Number of samples of each group (a Series or an array)."""
        counts = self._rows(self._counts)
        if not self.as_frame:
            return counts
        pd = _import_pandas()
        return pd.Series(counts, index=self._frame_index(pd, True), name="count")

    def group_min(self):
        """Smallest value of each metric over the groups (per control stratum).

        Returns
        -------
        Series, DataFrame (one row per control stratum) or ndarray
            One value per metric: pandas with ``as_frame=True``, else numpy.
        """
        return self._output([_group_min(v) for v in self._values], rows=False)

    def group_max(self):
        """Largest value of each metric over the groups (per control stratum).

        Returns
        -------
        Series, DataFrame (one row per control stratum) or ndarray
            One value per metric: pandas with ``as_frame=True``, else numpy.
        """
        return self._output([_group_max(v) for v in self._values], rows=False)

    def difference(self, method="between_groups"):
        """Disparity of each metric between groups.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            ``"between_groups"``: ``max - min`` over the groups, or, with
            ``privileged_group``, the signed ``value(disadvantaged) - value(privileged)``
            (see ``disadvantaged``). ``"to_overall"``: the largest ``|value(group) -
            overall|``, always unsigned.

        Returns
        -------
        Series, DataFrame (one row per control stratum) or ndarray
            NaN, with an :class:`~sklearn.exceptions.UndefinedMetricWarning`, where fewer than
            two groups have a defined value (or a compared side has none); a single group
            gives 0.0 with that warning.
        """
        return self._compare("difference", method)

    def ratio(self, method="between_groups"):
        """Ratio of each metric between groups.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            ``"between_groups"``: ``min / max`` over the groups, in [0, 1], or, with
            ``privileged_group``, ``value(disadvantaged) / value(privileged)``.
            ``"to_overall"``: the smallest ``min(value / overall, overall / value)`` over the
            groups, in [0, 1].

        Returns
        -------
        Series, DataFrame (one row per control stratum) or ndarray
            NaN, with an :class:`~sklearn.exceptions.UndefinedMetricWarning`, where fewer than
            two groups have a defined value, a compared side has none, or the denominator is
            0; a single group gives 1.0 with that warning.
        """
        return self._compare("ratio", method)

    def _compare(self, kind, method):
        """``difference`` or ``ratio``, with the warnings of the metric functions."""
        function = self._aggregate(kind, method)
        results = [function(v) for v in self._values]
        if self._sensitive.n_groups < 2:
            warn_single_group(
                self._sensitive, reported="0.0" if kind == "difference" else "1.0", stacklevel=4
            )
        else:
            for name, values, result in zip(self.metric_names, self._values, results, strict=True):
                self._warn_undefined(name, values[0], result, kind, method)
        return self._output(results, rows=False)

    def _warn_undefined(self, name, per_group, result, kind, method):
        """Warn that groups without a value are left out, and why an aggregate is NaN."""
        undefined = self._present & np.isnan(per_group)
        nan = np.isnan(np.atleast_1d(result))
        single = np.count_nonzero(self._present, axis=-1) == 1
        if not undefined.any() and not nan.any() and not single.any():
            return
        parts = []
        if single.any():
            strata = [self.strata[s] for s in np.flatnonzero(single)][:10]
            parity = "1.0" if kind == "ratio" else "0.0"
            parts.append(
                f"has a single group in strata {strata}, with nothing to compare: reported as "
                f"{parity} there"
            )
        if undefined.any():
            labels = [label for label, u in zip(self.groups, self._rows(undefined)) if u]
            parts.append(
                f"is undefined for group(s) {labels[:10]}: they have no (weight in the) samples "
                "it is computed on, and are left out"
            )
        if nan.any():
            where = ""
            if self._control is not None:
                where = f" in strata {[self.strata[s] for s in np.flatnonzero(nan)][:10]}"
            zero = ", or the ratio's denominator is 0" if kind == "ratio" else ""
            parts.append(
                f"NaN is returned{where}: fewer than two groups (or not both compared sides) "
                f"have a defined value{zero}"
            )
        warnings.warn(
            f"MetricTable.{kind}(method={method!r}): the {name!r} " + "; ".join(parts) + ".",
            UndefinedMetricWarning,
            stacklevel=4,
        )

    def difference_to(self, reference):
        """Each group's value minus the reference group's value, for every metric.

        The gap of every group to one named group (Aequitas' disparities against a reference
        group, as differences); the reference group's own row is 0. With control features the
        reference group is compared within each stratum.

        Parameters
        ----------
        reference : label or tuple of labels
            The reference group: a value of the sensitive attribute, or a tuple of one value
            per attribute for intersectional groups.

        Returns
        -------
        DataFrame or ndarray
            Shaped like :attr:`by_group`.
        """
        index = self._reference_index(reference)
        return self._output([_difference_to_group(v, index) for v in self._values], rows=True)

    def _reference_index(self, reference):
        """Position of the one group named ``reference`` among the groups."""
        try:
            mask = privileged_mask(self._sensitive, reference)
        except ValueError as exc:
            raise ValueError(
                f"reference={reference!r} must name one group present in the data; the groups "
                f"are {self._sensitive.labels}."
            ) from exc
        if mask.sum() != 1:
            raise ValueError(
                f"reference={reference!r} must name one group, not {int(mask.sum())}; the groups "
                f"are {self._sensitive.labels}."
            )
        return int(np.flatnonzero(mask)[0])

    def confidence_interval(self, what="by_group", method="between_groups", reference=None):
        """Bootstrap percentile interval ``(low, high)`` of a value of the table.

        Parameters
        ----------
        what : {"by_group", "overall", "difference", "ratio", "group_min", "group_max", \
"difference_to"}
            The value whose interval is returned; ``low`` and ``high`` have its shape.
        method : {"between_groups", "to_overall"}, default="between_groups"
            For ``"difference"`` and ``"ratio"``.
        reference : label or tuple of labels, default=None
            For ``"difference_to"``: the reference group of :meth:`difference_to`. Groups are
            resampled independently, so the interval of a gap holds the uncertainty of both
            groups' values.

        Returns
        -------
        low, high : Series, DataFrame or ndarray
            The bounds of the percentile interval at coverage ``ci``, shaped like ``what``.
        """
        if not self.n_boot:
            raise ValueError("The table has no bootstrap replicates; pass n_boot > 0.")
        formulas = {
            "by_group": lambda v: v[0],
            "overall": lambda v: v[1],
            "group_min": _group_min,
            "group_max": _group_max,
        }
        if what in ("difference", "ratio"):
            formula = self._aggregate(what, method)
        elif what == "difference_to":
            if reference is None:
                raise ValueError('what="difference_to" needs the reference group: reference=...')
            index = self._reference_index(reference)
            formula = lambda v: _difference_to_group(v, index)  # noqa: E731
        elif what in formulas:
            formula = formulas[what]
        else:
            raise ValueError(
                f"what must be one of {sorted([*formulas, 'difference', 'difference_to', 'ratio'])}"
                f", got {what!r}."
            )
        levels = [(1 - self.ci) / 2, (1 + self.ci) / 2]
        bounds = []
        for replicates in self._replicates:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                bounds.append(np.nanquantile(formula(replicates), levels, axis=0))
        rows = what in ("by_group", "difference_to")
        return tuple(self._output([b[k] for b in bounds], rows=rows) for k in range(2))

    def _aggregate(self, kind, method):
        if method not in ("between_groups", "to_overall"):
            raise ValueError(f"method must be 'between_groups' or 'to_overall', got {method!r}.")
        if method == "to_overall":
            unsigned = _difference_to_overall if kind == "difference" else _ratio_to_overall
        elif self._privileged is None:
            unsigned = _difference_between if kind == "difference" else _ratio_between
        if self._privileged is None or method == "to_overall":
            return functools.partial(unsigned, present=self._present)
        privileged = self._privileged
        each = self.disadvantaged == "each"
        if kind == "difference":
            return lambda v: _signed_difference(v, privileged, each)
        return lambda v: _signed_ratio(v, privileged, each)

    # ------------------------------------------------------------------------------------------
    # display

    def _display_rows(self):
        header = ["group", "count", *self.metric_names]
        values = np.stack([v[0] for v in self._values], axis=-1)
        rows = [
            [_format_label(label), str(int(count)), *(_format_value(x) for x in row)]
            for label, count, row in zip(
                self.groups, self._rows(self._counts), self._rows(values), strict=True
            )
        ]
        overall = np.stack([v[1] for v in self._values], axis=-1)
        strata = self.strata or [None]
        for s, stratum in enumerate(strata):
            name = "overall" if stratum is None else f"overall {_format_label(stratum)}"
            count = int(self._counts[s].sum())
            rows.append([name, str(count), *(_format_value(x) for x in overall[s])])
        return header, rows

    def __repr__(self):
        header, rows = self._display_rows()
        widths = [max(len(r[j]) for r in [header, *rows]) for j in range(len(header))]
        lines = [
            "  ".join(
                cell.rjust(w) if j else cell.ljust(w) for j, (cell, w) in enumerate(zip(r, widths))
            )
            for r in [header, *rows]
        ]
        return f"MetricTable ({len(self.groups)} groups)\n" + "\n".join(lines)

    def _repr_html_(self):
        header, rows = self._display_rows()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in header)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
        )
        return (
            f"<table class='skfair-metric-table'><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )


# ----------------------------------------------------------------------------------------------
# aggregates: each takes (per_group, overall, sides) with any leading replicate axes


def _nan_reduce(function, values, axis=-1):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return function(values, axis=axis)


def _group_min(v):
    return _nan_reduce(np.nanmin, v[0])


def _group_max(v):
    return _nan_reduce(np.nanmax, v[0])


def _compared(per_group, present, value, parity):
    """``value`` where at least two groups have a defined value, else NaN.

    A comparison of one defined value with nothing is undefined, as in the metric functions
    (a bootstrap replicate where a group lost its value is then left out of the interval). A
    stratum holding a single group (``present``: which groups have samples in each stratum)
    has nothing to compare: the ``parity`` value, as a table of that stratum alone gives.
    """
    n_defined = np.count_nonzero(~np.isnan(per_group), axis=-1)
    single = (np.count_nonzero(present, axis=-1) == 1) & (n_defined == 1)
    return np.where(n_defined >= 2, value, np.where(single, parity, np.nan))


def _difference_between(v, present):
    return _compared(v[0], present, _group_max(v) - _group_min(v), 0.0)


def _ratio_between(v, present):
    return _compared(v[0], present, _ratio(_group_min(v), _group_max(v)), 1.0)


def _difference_to_overall(v, present):
    gaps = _nan_reduce(np.nanmax, np.abs(v[0] - v[1][..., None]))
    return _compared(v[0], present, gaps, 0.0)


def _ratio_to_overall(v, present):
    per_group, overall = v[0], v[1][..., None]
    closeness = np.fmin(_ratio(per_group, overall), _ratio(overall, per_group))
    return _compared(per_group, present, _nan_reduce(np.nanmin, closeness), 1.0)


def _difference_to_group(v, index):
    per_group = v[0]
    return per_group - per_group[..., index : index + 1]


def _signed_difference(v, privileged, each):
    per_group, _, sides = v
    if not each:
        return sides[..., 0] - sides[..., 1]
    return furthest_from_parity(per_group[..., ~privileged] - sides[..., 1:2])


def _signed_ratio(v, privileged, each):
    per_group, _, sides = v
    if not each:
        return _ratio(sides[..., 0], sides[..., 1])
    return furthest_from_parity(_ratio(per_group[..., ~privileged], sides[..., 1:2]), ratio=True)


def _ratio(numerator, denominator):
    numerator, denominator = np.asarray(numerator, float), np.asarray(denominator, float)
    defined = denominator != 0
    with np.errstate(invalid="ignore"):
        return np.where(defined, numerator / np.where(defined, denominator, 1.0), np.nan)


# ----------------------------------------------------------------------------------------------
# helpers


def _frequency_table(per_sample, parsed, n_boot):
    """On dask input, replace the per-sample inputs by their frequency table (in place);
    return each row's ``(frequency, unit weight or None)``.

    With weights and a bootstrap, the weight is a key of the table, so that each row's
    samples share one weight value and the bootstrap draws rows as it does in memory; the
    table then grows with the number of distinct weights.
    """
    if any(function is not None for _, _, function, _ in parsed):
        raise TypeError(
            "MetricTable does not accept dask collections with a callable metric: it is "
            "evaluated on each group's rows, which stay in the partitions. Use named rates "
            f"({NAMED_METRICS}), which come from the summed count tables, or compute the "
            "callable on an in-memory sample (e.g. ddf.sample(frac=0.01).compute())."
        )
    rate_names = [rate for _, rate, _, _ in parsed]
    uses_y_true = any(name in _CORRECTNESS_RATES or _NAMED_RATES[name][0] for name in rate_names)
    weighted = per_sample["sample_weight"] is not None
    table = reduce_arguments(
        per_sample,
        ignored=() if uses_y_true else ("y_true",),
        weight_as_key=weighted and n_boot > 0,
        hint="Round the weights, pass n_boot=0, or compute on an in-memory sample.",
    )
    if not weighted:
        per_sample["sample_weight"] = None
        return table.count, None
    if n_boot > 0:
        # The rows' weights are formed from the checked unit weights (_row_weights).
        unit_weight = per_sample["sample_weight"]
        per_sample["sample_weight"] = None
        return table.count, unit_weight
    return table.count, None


def _row_weights(sample_weight, unit_weight, frequency):
    """Weights of the rows of a frequency table, and of each of their samples (or None).

    ``sample_weight`` is None (unweighted: the counts stand for unit weights) or the rows'
    summed weights; with a bootstrap, ``unit_weight`` is the weight of each of a row's
    samples instead. The checks are those of the in-memory path on the samples' weights:
    equal sample weights are no weights, and weights whose sum would overflow are rescaled
    (both exact). Equal summed weights of rows of different frequencies are not equal sample
    weights, so they stand for equal rows (ones), never for the frequencies.
    """
    n_rows = frequency.shape[0]
    unit_weight = check_weights(unit_weight, n_rows)
    if unit_weight is not None:
        return unit_weight * frequency, unit_weight
    weights = check_weights(sample_weight, n_rows)
    if weights is None:
        weights = frequency.astype(np.float64) if sample_weight is None else np.ones(n_rows)
    return weights, None


def _check_label_inputs(y_true, y_pred, rate_names):
    needs_y_true = any(name in _CORRECTNESS_RATES or _NAMED_RATES[name][0] for name in rate_names)
    if y_true is None and needs_y_true:
        raise ValueError(
            "y_true is None; the rates "
            f"{[n for n in rate_names if n in _CORRECTNESS_RATES or _NAMED_RATES[n][0]]} "
            "compare predictions with true labels."
        )
    y_pred = check_labels(y_pred, "y_pred")
    y_true = check_labels(y_true, "y_true") if needs_y_true else None
    if y_true is not None:
        check_label_pair(y_true, y_pred)
    return y_true, y_pred


class _StratifiedResampler:
    """Bootstrap indices that resample every group with replacement at its own size."""

    def __init__(self, codes, n_groups):
        self.order = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes, minlength=n_groups)
        self.bounds = np.concatenate([[0], np.cumsum(sizes)])
        # For each position of the group-sorted order: where its group starts, and its size.
        sorted_codes = codes[self.order]
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


def _format_label(label):
    if isinstance(label, tuple):
        return ", ".join(str(x) for x in label)
    return str(label)


def _format_value(value):
    return "nan" if np.isnan(value) else f"{value:.4g}"


def _import_pandas():
    from skfair._utils._compat import install_hint

    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - exercised without pandas only
        raise ImportError(
            f"as_frame=True returns pandas objects, which needs pandas: {install_hint('pandas')}; "
            "or pass as_frame=False (the default) for numpy arrays."
        ) from exc
    return pd
