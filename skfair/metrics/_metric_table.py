"""A per-group table of several metrics at once: :class:`MetricTable`.

The table validates its parameters in one place (:attr:`MetricTable._parameter_constraints`),
then its inputs, factorised once; the compute step builds one weighted count table
``stratum x group x [tn, fp, fn, tp]`` (one ``np.bincount``), reads every named rate of
:data:`~skfair.metrics._rates.RATES` off it as a ratio of sums of cells, and runs callable
metrics once per group on the group's rows. Every aggregate (``difference``, ``ratio``,
``group_min``, ...) is a formula of :mod:`skfair.metrics._replicates`, applied alike to the
values and to the bootstrap replicates; the intervals of rates have closed forms
(:mod:`skfair.metrics._intervals`).
"""

from __future__ import annotations

import functools
import html
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from types import SimpleNamespace

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from skfair._dask import is_dask_collection, reduce_arguments
from skfair._stats._aggregate import DISADVANTAGED, warn_single_group
from skfair._stats._counts import GroupTableBootstrap, confusion_table
from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    SENSITIVE_FEATURES_CONSTRAINT,
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
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
from skfair.metrics._docs import shared
from skfair.metrics._intervals import (
    CI_METHODS,
    difference_interval,
    effective_counts,
    proportion_interval,
    ratio,
    ratio_interval,
)
from skfair.metrics._rates import RATES
from skfair.metrics._replicates import Aggregates, RateReplicates, StoredValues

# Rates that compare y_pred with y_true label by label (any discrete labels): the value of the
# "correct" split of the table that counts in the numerator.
_CORRECTNESS_RATES = {"accuracy": True, "error_rate": False}
# The other rates are ratios of sums of the cells [tn, fp, fn, tp] of binary labels; only the
# selection rate ignores y_true.
_BINARY_RATES = {name: rate.cells for name, rate in RATES.items() if name not in _CORRECTNESS_RATES}
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
NAMED_METRICS = sorted(RATES)


def _needs_y_true(rate):
    return rate != "selection_rate"


def _rate_masks(name, n_correctness):
    """Numerator and denominator masks over the flattened cells ``(correct, [tn, fp, fn, tp])``."""
    numerator = np.zeros((n_correctness, 4), dtype=bool)
    denominator = np.zeros((n_correctness, 4), dtype=bool)
    if name in _CORRECTNESS_RATES:
        numerator[int(_CORRECTNESS_RATES[name])] = True
        denominator[:] = True
    else:
        numerator_cells, denominator_cells = _BINARY_RATES[name]
        numerator[:, list(numerator_cells)] = True
        denominator[:, list(denominator_cells)] = True
    return numerator.ravel(), denominator.ravel()


def _canonical_name(metric):
    name = _ALIASES.get(metric, metric)
    if name not in RATES:
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


@shared(
    parts={
        "returns_per_metric": "Returns\n-------\n"
        "Series, DataFrame (one row per control stratum) or ndarray\n"
        "    One value per metric: pandas with ``as_frame=True``, else numpy."
    }
)
class MetricTable:
    """Several metrics per group at once, with their aggregates and confidence intervals.

    The inputs are validated and factorised once; one weighted count table per group
    (``[tn, fp, fn, tp]``, from one ``np.bincount``) serves every named rate, and callables run
    once per group. Aggregates across groups -- :meth:`difference`, :meth:`ratio`,
    :meth:`group_min`, :meth:`group_max` -- are small formulas on the per-group values, computed
    on demand; :meth:`confidence_interval` covers every cell and every aggregate: exact
    intervals for the rates and the gaps between two sets of groups, bootstrap replicates
    through the same formulas for the rest.

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
    {sample_weight}
    pos_label : int, float, bool or str, default=None
        Positive label of the named binary rates (inferred for {0, 1}, {-1, 1} and
        {False, True}); forwarded to callables when given.
    n_boot : int, default=0
        Number of bootstrap replicates, for the intervals without a closed form (aggregates
        that pick a value out of the groups, callable metrics) or every interval with
        ``ci_method="bootstrap"``; 0 draws none.
    ci : float, default=0.95
        Coverage of the intervals.
    ci_method : {"clopper-pearson", "wilson", "bootstrap"}, default="clopper-pearson"
        Intervals of the named rates: Clopper-Pearson's exact interval (coverage at least
        ``ci`` for every rate and group size), or Wilson's score interval (narrower, with
        coverage ``ci`` on average but below it for some rates of small groups), for each
        group's rate; the gap between two sets of groups combines them by MOVER (Newcombe's
        hybrid score interval for differences, MOVER-R for ratios). ``"bootstrap"``:
        percentile intervals of the bootstrap for every value. See Notes.
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

    **Intervals.** A group's rate ``x / n`` is a binomial proportion; percentile bootstrap
    intervals of a proportion collapse to a point at ``x = 0`` or ``x = n`` and hold the true
    rate of a 5-row group in a quarter of the data sets at nominal 95 %. The default,
    Clopper and Pearson's interval [3]_ (the quantiles of ``Beta(x, n - x + 1)`` and
    ``Beta(x + 1, n - x)``), has coverage at least ``ci`` whatever the rate and the group size:
    at 95 %, exactly computed, at least 0.95 from 1 row up where Wilson's score interval [4]_
    dips to 0.83 (5 rows), 0.84 (10 rows) and 0.91 (100 rows) for some rates, although it is
    narrower and has about 0.95 on average. The gap between two disjoint sets of rows (a group
    and the reference group of :meth:`difference_to`, the disadvantaged and privileged sides of
    a signed :meth:`difference` or :meth:`ratio`) combines the two rates' intervals by MOVER,
    Newcombe's hybrid score method [5]_ (his method 10, with Wilson's limits; with
    Clopper-Pearson's limits here by default): ``p1 - p2 - sqrt((p1 - l1)**2 + (u2 - p2)**2)``
    and ``p1 - p2 + sqrt((u1 - p1)**2 + (p2 - l2)**2)``; ratios by MOVER-R [6]_. Computed
    exactly for a 5-row group beside 2,000 rows, the difference's coverage is at least 0.958
    for rates from 0.05 to 0.5 (0.904 with Wilson's limits); for two groups of 5 rows, 0.926 at
    worst and 0.986 on average. With ``sample_weight``, ``n`` is Kish's effective sample size
    ``(sum w)**2 / sum w**2`` of the rows behind the rate [7]_ and ``x`` the rate times it, as
    Korn and Graubard do for survey proportions. The largest gap between groups, the gaps to
    the overall value, the group furthest from parity (``disadvantaged="each"``) and callable
    metrics have no closed form and get bootstrap intervals (``n_boot > 0``).

    The bootstrap is stratified by group (and stratum): each replicate redraws every group at
    its own size. For the named rates the replicate of a group is a multinomial draw from the
    group's cell counts, so no pass over the samples is made and the result does not depend on
    how the data were partitioned; with ``sample_weight``, a multinomial draw over the
    group's distinct (weight, cell) classes, which has the distribution of resampled rows.
    Callables are evaluated on resampled rows. Replicates in which a value
    is undefined are left out of its interval. The replicates of the rates are drawn and
    reduced group by group (each group's interval and the running aggregates kept, a stratum
    drawn again from its saved random state when an aggregate needs every group with the
    overall or a reference value), so memory holds a few ``n_boot``-long vectors per rate
    whatever the number of groups and strata; the callables' replicates are kept (one value per
    evaluation).

    **Dask input.** Dask collections (one per argument, or mixed with in-memory arrays) are
    read partition by partition: each partition sends the frequency table of its distinct
    (control, sensitive, y_true, y_pred) rows, at most n_strata x n_groups x n_labels**2
    rows whatever its length, with the summed weights and squared weights (with weights and
    ``n_boot``, the weight is a key instead, so that the bootstrap draws the same (weight,
    cell) classes as in memory: one row per distinct weight as well). The summed table gives
    exactly the in-memory values and intervals. Callable metrics are refused with a TypeError
    (they need each group's rows).

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall,
       1993, Chapter 13 (percentile intervals) and Section 8.5 (stratified resampling).
    .. [2] H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn:
       Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023 (``MetricFrame``).
    .. [3] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
       illustrated in the case of the binomial", Biometrika 26(4), 1934.
    .. [4] E. B. Wilson, "Probable inference, the law of succession, and statistical
       inference", Journal of the American Statistical Association 22(158), 1927.
    .. [5] R. G. Newcombe, "Interval estimation for the difference between independent
       proportions: comparison of eleven methods", Statistics in Medicine 17(8), 1998.
    .. [6] A. Donner and G. Y. Zou, "Closed-form confidence intervals for functions of the
       normal mean and standard deviation", Statistical Methods in Medical Research 21(4),
       2012 (MOVER-R).
    .. [7] L. Kish, "Survey Sampling", Wiley, 1965; E. L. Korn and B. I. Graubard,
       "Confidence intervals for proportions with small expected number of positive counts
       estimated from survey data", Survey Methodology 24(2), 1998.

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

    _parameter_constraints = {
        # The metrics and the privileged group get their own checks, with their own messages.
        "metrics": "no_validation",
        "y_true": ["array-like", None],
        "y_pred": ["array-like"],
        "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
        "control_features": [*SENSITIVE_FEATURES_CONSTRAINT, None],
        "privileged_group": "no_validation",
        "disadvantaged": [StrOptions(set(DISADVANTAGED))],
        "sample_weight": ["array-like", None],
        "pos_label": [Real, str, "boolean", None],
        "n_boot": [Interval(Integral, 0, None, closed="left")],
        "ci": [Interval(Real, 0, 1, closed="neither")],
        "ci_method": [StrOptions(set(CI_METHODS))],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "as_frame": ["boolean"],
    }

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
        ci_method="clopper-pearson",
        random_state=None,
        as_frame=False,
    ):
        arguments = dict(locals())
        del arguments["self"]
        validate_parameter_constraints(
            self._parameter_constraints, arguments, caller_name="MetricTable"
        )
        self._parsed = _parse_metrics(metrics)
        self.metric_names = [name for name, *_ in self._parsed]
        self.ci, self.n_boot, self.ci_method = float(ci), int(n_boot), ci_method
        self.as_frame = as_frame
        self.disadvantaged = disadvantaged
        self.privileged_group = privileged_group
        inputs = _checked_inputs(self._parsed, arguments)
        self._sensitive, self._control = inputs.sensitive, inputs.control
        self._shape = inputs.shape
        self._counts = inputs.counts
        self._present = self._counts > 0
        self._privileged = (
            None if privileged_group is None else privileged_mask(self._sensitive, privileged_group)
        )
        self._compute(inputs, pos_label, check_random_state(random_state))

    # ------------------------------------------------------------------------------------------
    # computation

    def _compute(self, inputs, pos_label, rng):
        """Values (and replicates) of every metric: the named rates from one count table, the
        callables on each group's rows."""
        rate_names = [rate for _, rate, function, _ in self._parsed if function is None]
        callables = [
            (position, function, kwargs)
            for position, (_, rate, function, kwargs) in enumerate(self._parsed)
            if rate is None
        ]
        levels = [(1 - self.ci) / 2, (1 + self.ci) / 2]
        values, self._sums, self._bootstrap = {}, {}, {}
        if rate_names:
            table, cell, masks = _rate_table(rate_names, inputs, pos_label, self._shape)
            for name, (numerator_mask, denominator_mask) in masks.items():
                sums = _masked_sums(table, numerator_mask, denominator_mask)
                values[name] = self._rate_values(*sums[:2])
                self._sums[name] = sums
            if self.n_boot:
                bootstrap = GroupTableBootstrap(
                    table.counts.reshape(-1, table.counts.shape[-1]),
                    inputs.cells,
                    cell,
                    inputs.weights.unit,
                    inputs.weights.frequency,
                )
                source = RateReplicates(bootstrap, masks, self._shape[1], self.n_boot, rng)
                try:
                    aggregates = Aggregates(source, self._present, self._privileged, levels)
                except MemoryError as error:
                    raise MemoryError(_bootstrap_size(self.n_boot, table, masks)) from error
                self._bootstrap.update(dict.fromkeys(masks, aggregates))
        if callables:
            if pos_label is not None:
                callables = [(k, f, {"pos_label": pos_label, **kw}) for k, f, kw in callables]
            resample = _StratifiedResampler(inputs.cells.codes, inputs.cells.n_groups)
            evaluate = functools.partial(self._callables, callables, inputs, resample)
            values.update(evaluate())
            if self.n_boot:
                draws = [evaluate(resample(rng), strict=False) for _ in range(self.n_boot)]
                stored = {
                    key: tuple(
                        None if part is None else np.stack([d[key][k] for d in draws])
                        for k, part in enumerate(values[key])
                    )
                    for key, *_ in callables
                }
                aggregates = Aggregates(
                    StoredValues(stored), self._present, self._privileged, levels
                )
                self._bootstrap.update(dict.fromkeys(stored, aggregates))
        # Per metric, its key (rate name or position) and the aggregates of its values:
        # (per-group values, overall per stratum, [dis, priv] sides per stratum), shapes
        # (n_strata, n_groups), (n_strata,), (n_strata, 2).
        self._keys = [
            rate if rate is not None else k for k, (_, rate, *_) in enumerate(self._parsed)
        ]
        self._values = Aggregates(
            StoredValues(
                {
                    key: tuple(None if part is None else part[None] for part in values[key])
                    for key in self._keys
                }
            ),
            self._present,
            self._privileged,
        )

    def _rate_values(self, numerator, denominator):
        """(per group, overall, sides) of the rate ``numerator / denominator``."""
        sides = None
        if self._privileged is not None:
            sides = ratio(
                *(
                    np.stack(
                        [part[..., ~self._privileged].sum(-1), part[..., self._privileged].sum(-1)],
                        axis=-1,
                    )
                    for part in (numerator, denominator)
                )
            )
        return ratio(numerator, denominator), ratio(numerator.sum(-1), denominator.sum(-1)), sides

    def _callables(self, callables, inputs, resample, index=None, strict=True):
        """``{position: (per group, overall, sides)}`` of the callables on the rows ``index``
        (all rows, or a bootstrap resample)."""
        y_true = None if inputs.y_true is None else np.asarray(inputs.y_true)
        y_pred = np.asarray(inputs.y_pred)
        weights = inputs.weights.weight
        n_strata, n_groups = self._shape
        parts = resample.group_indices(index)

        def evaluate(function, kwargs, rows):
            if rows.size == 0:
                return np.nan
            sample_weight = {} if weights is None else {"sample_weight": weights[rows]}
            part = None if y_true is None else y_true[rows]
            try:
                return float(function(part, y_pred[rows], **sample_weight, **kwargs))
            except ValueError:
                # A resample can make a metric undefined (ROC AUC with one class drawn).
                if strict:
                    raise
                return np.nan

        def pooled(stratum, mask):
            return np.concatenate([parts[stratum * n_groups + g] for g in np.flatnonzero(mask)])

        out = {}
        everyone = np.ones(n_groups, dtype=bool)
        for key, function, kwargs in callables:
            per_group = np.array([evaluate(function, kwargs, rows) for rows in parts])
            overall = np.array(
                [evaluate(function, kwargs, pooled(s, everyone)) for s in range(n_strata)]
            )
            sides = None
            if self._privileged is not None:
                sides = np.array(
                    [
                        [
                            evaluate(function, kwargs, pooled(s, mask))
                            for mask in (~self._privileged, self._privileged)
                        ]
                        for s in range(n_strata)
                    ]
                )
            out[key] = (per_group.reshape(self._shape), overall, sides)
        return out

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
        return self._output(self._point("by_group"), rows=True)

    @property
    def overall(self):
        """Value of every metric on all samples (per control stratum)."""
        return self._output(self._point("overall"), rows=False)

    @property
    def counts(self):
        """Number of samples of each group (a Series or an array)."""
        counts = self._rows(self._counts)
        if not self.as_frame:
            return counts
        pd = _import_pandas()
        return pd.Series(counts, index=self._frame_index(pd, True), name="count")

    def _point(self, what, reference=None):
        """The table's own value of ``what``, one array per metric."""
        return [self._values.value(key, what, reference)[0] for key in self._keys]

    def group_min(self):
        """Smallest value of each metric over the groups (per control stratum).

        {returns_per_metric}
        """
        return self._output(self._point("group_min"), rows=False)

    def group_max(self):
        """Largest value of each metric over the groups (per control stratum).

        {returns_per_metric}
        """
        return self._output(self._point("group_max"), rows=False)

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
        results = self._point(self._aggregate(kind, method))
        if self._sensitive.n_groups < 2:
            warn_single_group(
                self._sensitive, reported="0.0" if kind == "difference" else "1.0", stacklevel=4
            )
        else:
            per_group = self._point("by_group")
            for name, values, result in zip(self.metric_names, per_group, results, strict=True):
                self._warn_undefined(name, values, result, kind, method)
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
        return self._output(self._point("difference_to", index), rows=True)

    def confidence_interval(self, what="by_group", method="between_groups", reference=None):
        """Confidence interval ``(low, high)`` of a value of the table, at coverage ``ci``.

        With ``ci_method="clopper-pearson"`` or ``"wilson"``, the named rates of a group, of
        all samples, of the gap between a group and the reference group and of the signed
        comparison of the pooled sides get closed-form intervals (see the class's Notes); the
        other aggregates (which pick a value out of the groups) and the callable metrics get
        bootstrap percentile intervals, which need ``n_boot > 0``. With
        ``ci_method="bootstrap"`` every interval is a bootstrap percentile interval.

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
            The bounds of the interval, shaped like ``what``.
        """
        aggregates = ["by_group", "overall", "group_min", "group_max", "difference_to"]
        if what in ("difference", "ratio"):
            what_key = self._aggregate(what, method)
        elif what in aggregates:
            what_key = what
        else:
            raise ValueError(
                f"what must be one of {sorted([*aggregates, 'difference', 'ratio'])}, got {what!r}."
            )
        index = None
        if what == "difference_to":
            if reference is None:
                raise ValueError('what="difference_to" needs the reference group: reference=...')
            index = self._reference_index(reference)
        bounds = [self._interval(key, what_key, index) for key in self._keys]
        rows = what in ("by_group", "difference_to")
        return tuple(self._output([b[k] for b in bounds], rows=rows) for k in range(2))

    def _interval(self, key, what, reference):
        """``(low, high)`` of ``what`` for one metric: a closed form where there is one."""
        if self.ci_method != "bootstrap" and key in self._sums:
            closed = self._closed_form(key, what, reference)
            if closed is not None:
                return closed
        if key not in self._bootstrap:
            name = self.metric_names[self._keys.index(key)]
            reason = (
                "ci_method='bootstrap'"
                if self.ci_method == "bootstrap"
                else "it has no closed form here"
            )
            raise ValueError(
                f"The interval of {what!r} for {name!r} is a bootstrap percentile interval "
                f"({reason}), and the table has no bootstrap replicates; pass n_boot > 0."
            )
        return self._bootstrap[key].value(key, what, reference)

    def _closed_form(self, key, what, reference):
        """Clopper-Pearson or Wilson bounds of a rate, MOVER bounds of a gap between two
        disjoint sets of rows; None for the aggregates without a closed form."""
        numerator, denominator, squares, scale = self._sums[key]

        def estimate(mask=None):
            """``(rate, low, high)`` of each group, or of the rows of the groups in ``mask``."""
            parts = (numerator, denominator, squares)
            if mask is not None:
                parts = [None if p is None else p[..., mask].sum(-1) for p in parts]
            successes, trials = effective_counts(*parts, scale)
            low, high = proportion_interval(successes, trials, self.ci, self.ci_method)
            return ratio(parts[0], parts[1]), low, high

        if what == "by_group":
            return estimate()[1:]
        if what == "overall":
            return estimate(np.ones(self._shape[1], dtype=bool))[1:]
        if what == "difference_to":
            groups, base = estimate(), estimate(np.eye(self._shape[1], dtype=bool)[reference])
            low, high = difference_interval(groups, tuple(b[..., None] for b in base))
            # The reference group's gap to itself is 0, with no uncertainty.
            low[..., reference] = high[..., reference] = np.where(
                self._present[:, reference], 0.0, np.nan
            )
            return low, high
        if what in ("pooled_difference", "pooled_ratio"):
            sides = estimate(~self._privileged), estimate(self._privileged)
            combine = difference_interval if what == "pooled_difference" else ratio_interval
            return combine(*sides)
        return None

    def _aggregate(self, kind, method):
        """The name of the aggregate ``difference`` or ``ratio`` with ``method`` computes."""
        if method not in ("between_groups", "to_overall"):
            raise ValueError(f"method must be 'between_groups' or 'to_overall', got {method!r}.")
        if method == "to_overall":
            return f"to_overall_{kind}"
        if self._privileged is None:
            return f"between_{kind}"
        return f"{'each' if self.disadvantaged == 'each' else 'pooled'}_{kind}"

    # ------------------------------------------------------------------------------------------
    # display

    def _display_rows(self):
        header = ["group", "count", *self.metric_names]
        values = np.stack(self._point("by_group"), axis=-1)
        rows = [
            [_format_label(label), str(int(count)), *(_format_value(x) for x in row)]
            for label, count, row in zip(
                self.groups, self._rows(self._counts), self._rows(values), strict=True
            )
        ]
        overall = np.stack(self._point("overall"), axis=-1)
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
# inputs: checked once, into rows with one form of weights


@dataclass(frozen=True)
class _RowWeights:
    """The weights of the rows, in the one form every step reads.

    ``weight``: each row's total weight, None when every row is one sample of weight 1;
    ``squares``: each row's sum of ``(w / scale)**2`` over its samples (for Kish's effective
    sample size), None when unweighted; ``unit``: the weight of each of a row's samples (what
    the bootstrap draws), None when unweighted; ``frequency``: each row's number of samples,
    None when every row is one sample (in memory).
    """

    weight: np.ndarray | None = None
    squares: np.ndarray | None = None
    scale: float = 1.0
    unit: np.ndarray | None = None
    frequency: np.ndarray | None = None

    @classmethod
    def of_samples(cls, unit, frequency=None):
        """Rows whose samples each weigh ``unit`` (checked; None: 1), ``frequency`` of them."""
        if unit is None:
            weight = None if frequency is None else frequency.astype(np.float64)
            return cls(weight=weight, frequency=frequency)
        count = 1.0 if frequency is None else frequency
        # A power of two: dividing by it is exact, and keeps the squares within float64.
        scale = float(2.0 ** np.frexp(unit.max())[1]) if unit.size and unit.max() > 0 else 1.0
        return cls(unit * count, count * (unit / scale) ** 2, scale, unit, frequency)


def _checked_inputs(parsed, arguments):
    """The per-sample inputs, checked and factorised: labels, group codes, weights."""
    per_sample = {
        "y_true": arguments["y_true"],
        "y_pred": arguments["y_pred"],
        "sensitive_features": collect_lazy(arguments["sensitive_features"]),
        "control_features": collect_lazy(arguments["control_features"]),
        "sample_weight": arguments["sample_weight"],
    }
    weights = None
    if any(is_dask_collection(value) for value in per_sample.values()):
        weights = _frequency_table(per_sample, parsed, arguments["n_boot"])
    n_samples = check_lengths(**per_sample)
    sensitive = factorize_groups(per_sample["sensitive_features"], n_samples=n_samples)
    control = per_sample["control_features"]
    if control is not None:
        control = factorize_groups(control, n_samples=n_samples, argument="control_features")
    if weights is None:
        weights = _RowWeights.of_samples(check_weights(per_sample["sample_weight"], n_samples))
    n_strata = 1 if control is None else control.n_groups
    n_groups = sensitive.n_groups
    codes = sensitive.codes if control is None else control.codes * n_groups + sensitive.codes
    counts = np.bincount(codes, weights=weights.frequency, minlength=n_strata * n_groups)
    return SimpleNamespace(
        y_true=per_sample["y_true"],
        y_pred=per_sample["y_pred"],
        sensitive=sensitive,
        control=control,
        shape=(n_strata, n_groups),
        cells=SimpleNamespace(codes=codes, n_groups=n_strata * n_groups),
        counts=counts.astype(np.int64).reshape(n_strata, n_groups),
        weights=weights,
    )


def _frequency_table(per_sample, parsed, n_boot):
    """On dask input, replace the per-sample inputs by their frequency table (in place);
    return the weights of its rows.

    With weights and a bootstrap, the weight is a key of the table, so that each row's
    samples share one weight value and the bootstrap draws rows as it does in memory; the
    table then grows with the number of distinct weights. Without a bootstrap, the rows' sums
    of weights and of squared weights are summed over the partitions.
    """
    if any(function is not None for _, _, function, _ in parsed):
        raise TypeError(
            "MetricTable does not accept dask collections with a callable metric: it is "
            "evaluated on each group's rows, which stay in the partitions. Use named rates "
            f"({NAMED_METRICS}), which come from the summed count tables, or compute the "
            "callable on an in-memory sample (e.g. ddf.sample(frac=0.01).compute())."
        )
    uses_y_true = any(_needs_y_true(rate) for _, rate, _, _ in parsed)
    weighted = per_sample["sample_weight"] is not None
    table = reduce_arguments(
        per_sample,
        ignored=() if uses_y_true else ("y_true",),
        weight_as_key=weighted and n_boot > 0,
        weight_squares=True,
        hint="Round the weights, pass n_boot=0, or compute on an in-memory sample.",
    )
    n_rows = table.count.shape[0]
    sample_weight, per_sample["sample_weight"] = per_sample["sample_weight"], None
    if not weighted:
        return _RowWeights.of_samples(None, table.count)
    if n_boot > 0:
        # The checks are those of the in-memory path on the samples' weights (equal weights
        # are no weights, weights whose sum would overflow are rescaled exactly).
        return _RowWeights.of_samples(check_weights(sample_weight, n_rows), table.count)
    # The rows' summed weights: equal sums of rows of different frequencies are not equal
    # sample weights, so they stand for equal rows (ones), never for the frequencies; the
    # squares follow the scale the check gives the sums.
    checked = check_weights(sample_weight, n_rows)
    weight = np.ones(n_rows) if checked is None else checked
    positive = np.flatnonzero(sample_weight > 0)
    scale = weight[positive[0]] / sample_weight[positive[0]] if positive.size else 1.0
    return _RowWeights(weight, table.sums[:, 0], float(scale), frequency=table.count)


def _check_label_inputs(y_true, y_pred, rate_names):
    needs_y_true = [name for name in rate_names if _needs_y_true(name)]
    if y_true is None and needs_y_true:
        raise ValueError(
            f"y_true is None; the rates {needs_y_true} compare predictions with true labels."
        )
    y_pred = check_labels(y_pred, "y_pred")
    y_true = check_labels(y_true, "y_true") if needs_y_true else None
    if y_true is not None:
        check_label_pair(y_true, y_pred)
    return y_true, y_pred


def _rate_table(rate_names, inputs, pos_label, shape):
    """The count table ``(n_strata, n_groups, cells)`` of the named rates (weighted counts,
    and sums of squared weights when weighted), each row's cell, and each rate's masks."""
    y_true, y_pred = _check_label_inputs(inputs.y_true, inputs.y_pred, rate_names)
    needs_binary = any(name in _BINARY_RATES for name in rate_names)
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
    split = inputs.cells
    if needs_correctness:
        # Split each group by correctness: a finer code for the same count table.
        correct = np.asarray(y_true == y_pred, dtype=np.intp)
        cell += 4 * correct
        split = SimpleNamespace(codes=split.codes * 2 + correct, n_groups=split.n_groups * 2)
    full = (*shape, n_correctness * 4)
    weights = inputs.weights

    def counted(row_weights):
        return confusion_table(split, y_true_positive, y_pred_positive, row_weights).reshape(full)

    table = SimpleNamespace(
        counts=counted(weights.weight),
        squares=None if weights.squares is None else counted(weights.squares),
        scale=weights.scale,
    )
    masks = {name: _rate_masks(name, n_correctness) for name in dict.fromkeys(rate_names)}
    return table, cell, masks


def _bootstrap_size(n_boot, table, masks):
    """What a bootstrap too large for memory holds, and what to do."""
    n_cells = table.counts.shape[-1]
    # A group's tables (drawn counts and their float copy), and about ten vectors per rate.
    n_bytes = 8 * n_boot * (2 * n_cells + 10 * len(masks))
    return (
        f"The bootstrap draws n_boot={n_boot} replicates of a group's {n_cells}-cell count "
        f"table and keeps a few vectors of n_boot values per rate ({len(masks)} rate(s)): about "
        f"{n_bytes / 2**30:.2f} GiB at once (whatever the number of groups), more than the "
        "memory available. Lower n_boot."
    )


def _masked_sums(table, numerator_mask, denominator_mask):
    """``(numerator, denominator, squares of the denominator's weights, scale)`` per group."""
    denominator = denominator_mask.astype(np.float64)
    squares = None if table.squares is None else table.squares @ denominator
    return (
        table.counts @ numerator_mask.astype(np.float64),
        table.counts @ denominator,
        squares,
        table.scale,
    )


# ----------------------------------------------------------------------------------------------
# helpers


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
