"""Multi-class disparities: each group compared with the whole population, class by class.

``U_DP`` and ``U_EO``, the multi-class demographic parity (Calders, Kamiran and Pechenizkiy,
2009) and equalized odds (Hardt, Price and Srebro, 2016) unfairness in the form of Denis, Elie,
Hebiri and Hu, "Fairness guarantee in multi-class classification" (arXiv:2109.13642, 2021),
from one weighted count table group x y_true class x y_pred class. Continuous outputs are binned
at quantile cut-offs of ``y_true``.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.utils.multiclass import type_of_target

from skfair._dask import align, dask_dispatch, reduce_blocks
from skfair._dask._columns import BinnedScores
from skfair._stats._aggregate import warn_single_group
from skfair._stats._counts import ValueCount, class_table
from skfair._stats._sorted import RankSelection, linear_quantiles
from skfair._utils._compat import (
    SENSITIVE_FEATURES_CONSTRAINT,
    Integral,
    validate_params,
)
from skfair._utils._groups import factorize_groups
from skfair._utils._validation import (
    check_groups,
    check_labels,
    check_lengths,
    check_scores,
    check_weights,
)
from skfair.metrics._docs import shared
from skfair.metrics._rates import LABEL_TABLE

_MULTICLASS_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_pred": ["array-like"],
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    # Values below 2 get their own message in _bin_outputs.
    "bins": [Integral, "array-like"],
    "labels": ["array-like", None],
    "sample_weight": ["array-like", None],
}
_VALIDATE = {"prefer_skip_nested_validation": True}


_BINNED_DOC = (
    "Dask collections are read partition by partition. Class labels: each partition sends "
    "the frequency table of its distinct (y_true, y_pred, sensitive values) rows, at most "
    "n_groups x n_classes**2 rows. Continuous outputs: the quantile cut-offs are found "
    "first, exactly, from per-partition counts of the leading bits of the values (2**16 "
    "counters per cut-off and pass, two to four passes), then each partition bins its "
    "outputs and sends the table of (groups, bins), at most n_groups x n_bins**2 rows. The "
    "result is exactly the in-memory one."
)


def _binned_on_dask(func, bound):
    """``U_DP`` / ``U_EO`` on dask input: class labels through the frequency table; continuous
    outputs binned per partition at cut-offs found first.

    The quantile cut-offs of integer ``bins`` are order statistics of the reference column,
    found exactly over the partitions (:class:`~skfair._stats._sorted.RankSelection`, two
    to four passes, 2**16 counts per wanted rank and partition) and interpolated as numpy
    does. Each partition then replaces every output by a representative of its bin, and the
    frequency table of (groups, binned outputs) goes to the in-memory formula with the
    cut-offs as explicit ``bins``: at most n_groups x n_bins**2 rows.
    """
    arguments = bound.arguments
    bins = arguments.get("bins", 5)
    outputs = {
        name: arguments[name] for name in ("y_true", "y_pred") if arguments.get(name) is not None
    }
    explicit = not isinstance(bins, numbers.Integral)
    if not explicit:
        n, whole = reduce_blocks(ValueCount(), align(list(outputs.values())))
        if all(whole):
            return LABEL_TABLE(func, bound)
        _check_n_bins(bins)
        source = "y_true" if "y_true" in outputs else "y_pred"

        def order_statistics(ranks):
            selection = RankSelection.start(ranks)
            while not selection.done:
                selection = reduce_blocks(
                    selection, align([outputs[source]]), _finite_chunk, name=source
                )
            return selection.values(ranks)

        cutoffs = linear_quantiles(order_statistics, n, np.linspace(0, 1, bins + 1))
        cutoffs = _distinct_cutoffs(cutoffs, bins, source)
    else:
        cutoffs = _explicit_cutoffs(bins)
    for name, y in outputs.items():
        arguments[name] = BinnedScores(y, cutoffs[1:-1])
    arguments["bins"] = cutoffs
    return LABEL_TABLE(func, bound)


def _finite_chunk(statistic, values, name):
    return statistic.chunk(check_scores(np.asarray(values), name))


@dask_dispatch(_binned_on_dask, doc=_BINNED_DOC)
@validate_params(_MULTICLASS_CONSTRAINTS, **_VALIDATE)
@shared
def demographic_parity_unfairness(
    y_true, y_pred, *, sensitive_features, bins=5, labels=None, sample_weight=None
):
    """Multi-class demographic-parity unfairness ``U_DP``.

    ``U_DP = max_{a, k} |P(y_pred = k | A = a) - P(y_pred = k)|``: each group is compared with
    the whole population, class by class. The value is in [0, 1]; 0 means exactly fair.

    Continuous outputs (``type_of_target`` continuous for ``y_pred`` or ``y_true``) are binned
    into classes at quantile cut-offs of ``y_true`` (of ``y_pred`` when ``y_true`` is None); see
    ``bins``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Only used for the cut-offs of continuous outputs (and the class set); may be None.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, or continuous outputs.
    {sensitive_features}
    bins : int or array-like, default=5
        For continuous outputs: ``int K`` gives the cut-offs ``quantile(y_true, [0, 1/K, ...,
        1])`` (linear interpolation, R's type 7); an array gives the cut-offs ``c_0 < ... <
        c_K`` explicitly, and also bins discrete outputs. Bins are right-closed ``(c_{k-1},
        c_k]``; the outer bins extend to -inf and +inf so that every value gets a bin.
        Repeated quantile cut-offs (ties in ``y_true``) are merged with a warning. The
        cut-offs are unweighted, even with ``sample_weight``. They depend on the sample: to
        compare models on fixed classes, compute them once and pass an array.
    labels : array-like, default=None
        Class labels for discrete outputs; default: the sorted union of ``y_true`` and
        ``y_pred``. A value outside ``labels`` raises.
    {sample_weight}

    Returns
    -------
    float
        ``U_DP``, in [0, 1]; 0 means exactly fair.

    See Also
    --------
    statistical_parity_difference : The binary disparity of selection rates.
    equalized_odds_unfairness : The multi-class equalized-odds unfairness.

    {references_denis_hardt}

    Examples
    --------
    >>> from skfair.metrics import demographic_parity_unfairness
    >>> y_pred = [0, 1, 1, 1, 2, 0, 0, 0, 1, 1, 2, 2]
    >>> g = ["a"] * 6 + ["b"] * 6
    >>> round(demographic_parity_unfairness(None, y_pred, sensitive_features=g), 4)
    0.0833
    """
    y_true_class, y_pred_class, classes, groups, sample_weight = _check_multiclass_inputs(
        y_true, y_pred, sensitive_features, bins, labels, sample_weight, needs_y_true=False
    )
    counts = class_table(groups, y_pred_class, len(classes), sample_weight)
    return _max_gap_to_population(counts[:, None, :], groups, strata=None)


@dask_dispatch(_binned_on_dask, doc=_BINNED_DOC)
@validate_params(_MULTICLASS_CONSTRAINTS, **_VALIDATE)
@shared
def equalized_odds_unfairness(
    y_true, y_pred, *, sensitive_features, bins=5, labels=None, sample_weight=None
):
    """Multi-class equalized-odds unfairness ``U_EO``.

    ``U_EO = max_{a, k, k'} |P(y_pred = k | y_true = k', A = a) - P(y_pred = k | y_true = k')|``
    with conditional frequencies (joint frequencies ``P(y_pred = k, y_true = k' | A = a)``
    would not vanish for a perfect predictor when the groups' label distributions differ).
    Cells where group ``a`` has no sample with ``y_true = k'`` are undefined and skipped with
    a warning; NaN if all are. The value is in [0, 1]; 0 means exactly fair.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels, or continuous targets (then binned, see ``bins``).
    y_pred : array-like of shape (n_samples,)
        Predicted labels, or continuous outputs.
    {sensitive_features}
    bins : int or array-like, default=5
        Binning of continuous outputs, as in :func:`demographic_parity_unfairness`: quantile
        cut-offs of ``y_true``, the same for ``y_true`` and ``y_pred``.
    labels : array-like, default=None
        Class labels for discrete outputs; default: the sorted union of ``y_true`` and
        ``y_pred``.
    {sample_weight}

    Returns
    -------
    float
        ``U_EO``, in [0, 1]; 0 means exactly fair, NaN when every cell is undefined.

    See Also
    --------
    equalized_odds_difference : The binary disparity of error rates.
    demographic_parity_unfairness : The multi-class demographic-parity unfairness.

    {references_denis_hardt}

    Examples
    --------
    >>> from skfair.metrics import equalized_odds_unfairness
    >>> y_true = [0, 0, 1, 1, 2, 2, 0, 0, 0, 1, 1, 2]
    >>> y_pred = [0, 1, 1, 1, 2, 0, 0, 0, 1, 1, 2, 2]
    >>> g = ["a"] * 6 + ["b"] * 6
    >>> round(equalized_odds_unfairness(y_true, y_pred, sensitive_features=g), 4)
    0.3333
    """
    if y_true is None:
        raise ValueError("y_true is None; equalized_odds_unfairness conditions on true labels.")
    y_true_class, y_pred_class, classes, groups, sample_weight = _check_multiclass_inputs(
        y_true, y_pred, sensitive_features, bins, labels, sample_weight, needs_y_true=True
    )
    n_classes = len(classes)
    # The (y_true, y_pred) pairs counted as n_classes**2 classes of one table.
    pair_class = y_true_class * n_classes + y_pred_class
    counts = class_table(groups, pair_class, n_classes * n_classes, sample_weight)
    counts = counts.reshape(groups.n_groups, n_classes, n_classes)
    return _max_gap_to_population(counts, groups, strata=classes)


def _max_gap_to_population(counts, groups, *, strata):
    """``max |N[a, k', k] / N[a, k', :] - M[k', k] / M[k', :]|`` with ``M = sum_a N``.

    ``counts`` has shape (n_groups, n_strata, n_classes): the strata are the true classes k'
    named by ``strata`` (U_EO) or a single stratum, ``strata=None`` (U_DP). Strata of a group
    with no weight are skipped, with a warning when the population has weight there.
    """
    if groups.n_groups < 2:
        warn_single_group(groups, reported="no unfairness (0.0): the group is the population")
        return 0.0
    population = counts.sum(axis=0)
    group_totals = counts.sum(axis=2)
    population_totals = population.sum(axis=1)
    defined = group_totals > 0
    skipped = ~defined & (population_totals > 0)
    if skipped.any():
        if strata is None:
            cells = [groups.labels[a] for a in np.flatnonzero(skipped[:, 0])]
            detail = f"Groups {cells} have no weight"
        else:
            cells = [
                (groups.labels[a], strata[k]) for a, k in zip(*np.nonzero(skipped), strict=True)
            ]
            detail = f"Cells {cells} (group, y_true class) are undefined: the group has no weight"
            detail += " in that class"
        warnings.warn(f"{detail}; they are skipped.", UserWarning)
    if not defined.any():
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        group_rates = counts / group_totals[:, :, None]
        population_rates = population / population_totals[:, None]
    gaps = np.abs(group_rates - population_rates[None])[defined]
    return float(gaps.max())


def _check_multiclass_inputs(
    y_true, y_pred, sensitive_features, bins, labels, sample_weight, *, needs_y_true
):
    """Checked inputs -> ``(y_true classes or None, y_pred classes, class names, groups,
    weights)``."""
    n_samples = check_lengths(
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
    )
    groups = check_groups(sensitive_features, n_samples)
    sample_weight = check_weights(sample_weight, n_samples)
    arrays = [np.asarray(y) for y in (y_true, y_pred) if y is not None]
    continuous = any(
        y.dtype.kind in "biuf" and type_of_target(y) in ("continuous", "continuous-multioutput")
        for y in arrays
    )
    explicit_bins = not isinstance(bins, numbers.Integral)
    if continuous or explicit_bins:
        y_true_class, y_pred_class, classes = _bin_outputs(y_true, y_pred, bins)
    else:
        y_true_class, y_pred_class, classes = _class_indices(y_true, y_pred, labels)
    return y_true_class, y_pred_class, classes, groups, sample_weight


def _class_indices(y_true, y_pred, labels):
    """Index of each label in the class set, for y_true (or None) and y_pred; the classes."""
    y_pred = check_labels(y_pred, "y_pred")
    present = [y_pred] if y_true is None else [check_labels(y_true, "y_true"), y_pred]
    # Factorise both arrays at once so that their class indices agree.
    encoding = factorize_groups(np.concatenate(present), n_samples=None)
    codes = encoding.codes
    classes = encoding.labels
    if labels is not None:
        labels = list(np.asarray(labels).tolist())
        if len(set(labels)) != len(labels):
            raise ValueError(f"labels has repeated values: {labels}.")
        position = {label: k for k, label in enumerate(labels)}
        missing = [label for label in encoding.labels if label not in position]
        if missing:
            raise ValueError(
                f"Label(s) {missing} are not in labels={labels}; pass every class label."
            )
        codes = np.asarray([position[label] for label in encoding.labels], dtype=np.intp)[codes]
        classes = labels
    n = y_pred.shape[0]
    y_true_class = None if y_true is None else codes[:n]
    return y_true_class, codes[-n:], classes


def _bin_outputs(y_true, y_pred, bins):
    """Bin indices of y_true (or None) and y_pred at cut-offs of y_true; the bins."""
    y_pred = check_scores(y_pred, "y_pred")
    y_true = None if y_true is None else check_scores(y_true, "y_true")
    if isinstance(bins, numbers.Integral):
        _check_n_bins(bins)
        reference = y_pred if y_true is None else y_true
        cutoffs = linear_quantiles(
            lambda ranks: np.partition(reference, ranks)[ranks],
            reference.shape[0],
            np.linspace(0, 1, bins + 1),
        )
        cutoffs = _distinct_cutoffs(cutoffs, bins, "y_pred" if y_true is None else "y_true")
    else:
        cutoffs = _explicit_cutoffs(bins)
    # Right-closed bins (c_{k-1}, c_k] as in R's cut(); the first bin holds c_0 and everything
    # below, the last everything above c_K, so every value gets a bin (R's cut() would give NA
    # to the minimum c_0 and to values outside (c_0, c_K], and drop them cell by cell).
    inner = cutoffs[1:-1]
    edges = [-np.inf, *inner.tolist(), np.inf]
    classes = [f"({low:.6g}, {high:.6g}]" for low, high in zip(edges[:-1], edges[1:], strict=True)]
    y_pred_class = np.searchsorted(inner, y_pred, side="left")
    y_true_class = None if y_true is None else np.searchsorted(inner, y_true, side="left")
    return y_true_class, y_pred_class, classes


def _check_n_bins(bins):
    if bins < 2:
        raise ValueError(f"bins must be at least 2, got {bins}.")


def _distinct_cutoffs(cutoffs, bins, source):
    """The distinct quantile cut-offs (linear interpolation: numpy's default and R's
    quantile() type 7), with a warning when ties merge some and an error when one bin is
    left."""
    distinct = np.unique(cutoffs)
    if distinct.size < 3:
        # One bin would put every output in the same class: "fair" by construction.
        raise ValueError(
            f"The quantile cut-offs of {source} collapse to {distinct.tolist()}, a single "
            f"bin: {source} takes too few distinct values, so every output would fall in one "
            "class and the unfairness would be 0 whatever the scores. For class labels in "
            "y_true and scores in y_pred, threshold the scores into labels first (e.g. "
            "y_pred > 0.5); otherwise pass explicit cut-offs with bins=[c_0, ..., c_K]."
        )
    if distinct.size < cutoffs.size:
        warnings.warn(
            f"Quantile cut-offs {cutoffs.tolist()} repeat (ties in the data); the repeated "
            f"ones are merged, leaving {max(distinct.size - 1, 1)} bins instead of {bins}.",
            UserWarning,
            stacklevel=4,
        )
    return distinct


def _explicit_cutoffs(bins):
    cutoffs = check_scores(bins, "bins")
    if cutoffs.size < 2 or np.any(np.diff(cutoffs) <= 0):
        raise ValueError(
            f"bins must be at least two strictly increasing cut-offs, got {cutoffs.tolist()}."
        )
    return cutoffs
