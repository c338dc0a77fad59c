"""``find_subgroups``: which subgroups does a model treat worst?"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from skfair._dask import uses_dask
from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    HasMethods,
    Interval,
    StrOptions,
    validate_params,
)
from skfair._utils._frames import collect_lazy
from skfair._utils._random import check_generator
from skfair._utils._validation import (
    binarize,
    check_label_pair,
    check_labels,
    check_lengths,
    check_scores,
    check_weights,
)
from skfair.subgroups._counting import MemoryCounter, row_classes
from skfair.subgroups._encode import encode_features
from skfair.subgroups._mdss import mdss_scan
from skfair.subgroups._report import build_report
from skfair.subgroups._search import (
    METRIC_CELLS,
    Found,
    check_settings,
    make_search,
    search_tables,
)

_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like", None],
    "features": ["array-like", dict, HasMethods(["collect"])],
    "metric": [StrOptions(set(METRIC_CELLS))],
    "objective": [StrOptions({"gap", "sliceline", "mdss"})],
    "direction": [StrOptions({"higher", "lower", "both"})],
    "max_level": [Interval(Integral, 1, None, closed="left")],
    "min_support": [Interval(Integral, 1, None, closed="left")],
    "k": [Interval(Integral, 1, None, closed="left")],
    "alpha": [Interval(Real, 0, 1, closed="neither")],
    "correction": [StrOptions({"bh", "by"})],
    "n_bins": [Interval(Integral, 2, None, closed="left")],
    "sample_weight": ["array-like", None],
    "pos_label": [Real, str, "boolean", None],
    "y_score": ["array-like", None],
    "sliceline_alpha": [Interval(Real, 0, 1, closed="right")],
    "n_restarts": [Interval(Integral, 1, None, closed="left")],
    "penalty": [Interval(Real, 0, None, closed="left")],
    "random_state": RANDOM_STATE_CONSTRAINT,
    "n_jobs": [Integral, None],
}


@validate_params(_CONSTRAINTS, prefer_skip_nested_validation=True)
def find_subgroups(
    y_true,
    y_pred,
    *,
    features,
    metric="error_rate",
    objective="gap",
    direction="higher",
    max_level=3,
    min_support=30,
    k=10,
    alpha=0.05,
    correction="bh",
    n_bins=10,
    sample_weight=None,
    pos_label=1,
    y_score=None,
    sliceline_alpha=0.95,
    n_restarts=10,
    penalty=1.0,
    random_state=None,
    n_jobs=None,
):
    """Find the subgroups in which a model's metric is furthest from the rest of the rows.

    A subgroup is a conjunction of conditions on the columns of ``features`` ("sex = Female
    & age in (60, 90]"), of up to ``max_level`` conditions on distinct columns. Every
    subgroup of at least ``min_support`` rows is scored from count tables (one
    ``np.bincount`` per combination of columns), exactly; subgroups holding the same rows
    are reported once, under their shortest description.

    Read more in the :ref:`User Guide <subgroups>`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,) or None
        Predicted labels (None for ``objective="mdss"``, which reads ``y_score``).
    features : DataFrame, 2-D array-like or dict of shape (n_samples, n_columns)
        The columns that define the subgroups (pandas, polars, pyarrow, a numpy array or a
        dict of columns; a dask DataFrame or array for the count-table objectives).
        Numeric columns with more than ``n_bins`` distinct values are cut at their
        quantiles; missing values are a category of their own.
    metric : str, default="error_rate"
        The rate compared: ``"error_rate"``, ``"selection_rate"``,
        ``"true_positive_rate"``, ``"false_positive_rate"``, ``"false_negative_rate"``,
        ``"true_negative_rate"``, ``"positive_predictive_value"``,
        ``"negative_predictive_value"``, ``"false_discovery_rate"``,
        ``"false_omission_rate"`` or ``"base_rate"``. Each is a ratio of counts of the
        confusion table; a subgroup's support is the number of its rows in the denominator
        (its negatives for the false positive rate).
    objective : {"gap", "sliceline", "mdss"}, default="gap"
        ``"gap"``: the metric in the subgroup minus in the rest, tested, with every
        subgroup evaluated counted in the multiple-testing correction; the significant ones
        first, ranked by the lower end of the gap's ``1 - alpha`` confidence bound (so that
        a large gap on few rows does not outrank a slightly smaller one on many).
        ``"sliceline"``: SliceLine's score of Sagadeeva & Boehm (2021), the top ``k``
        exactly. ``"mdss"``: the Bernoulli scan statistic of Zhang &
        Neill (2016) on ``y_score``, searched over sets of values per column as aif360's
        ``bias_scan`` does.
    direction : {"higher", "lower", "both"}, default="higher"
        Subgroups whose metric is higher than the rest's, lower, or either (two-sided
        tests; not for ``"sliceline"``). For ``"mdss"``: subgroups whose outcomes are
        positive more often than ``y_score`` predicts (``"higher"``, aif360's
        ``overpredicted=False``), less often (``"lower"``), or either.
    max_level : int, default=3
        Largest number of conditions of a subgroup.
    min_support : int, default=30
        Fewest rows (in the metric's denominator) of a subgroup; for ``"mdss"``, the fewest
        rows of a random starting subset.
    k : int, default=10
        Number of subgroups reported.
    alpha : float, default=0.05
        Level of the false discovery rate: a subgroup is significant when its q-value is at
        most ``alpha``.
    correction : {"bh", "by"}, default="bh"
        Benjamini-Hochberg (valid under positive dependence, which nested and overlapping
        subgroups mostly have) or Benjamini-Yekutieli (any dependence).
    n_bins : int, default=10
        Number of quantile bins of a numeric column (fewer when quantiles coincide).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the rows. Rates are weighted; the tests use Kish's effective sample size.
    pos_label : int, float, bool or str, default=1
        The positive class.
    y_score : array-like of shape (n_samples,), default=None
        Predicted probabilities of ``pos_label``, for ``objective="mdss"`` only.
    sliceline_alpha : float, default=0.95
        SliceLine's weight of the error term against the size term, in (0, 1].
    n_restarts : int, default=10
        ``"mdss"``: searches, the first from all rows, the others from random subsets
        (aif360's ``num_iters``).
    penalty : float, default=1.0
        ``"mdss"``: penalty per value kept in a constrained column, in units of the
        log-likelihood ratio (aif360's default, 1e-17, keeps almost every value).
    random_state : int, RandomState instance, Generator or None, default=None
        ``"mdss"``: seeds the order of the columns and the random starting subsets.
    n_jobs : int, default=None
        Workers counting the combinations of columns (joblib); the result does not depend
        on it.

    Returns
    -------
    report : SubgroupReport
        The subgroups, best first, with ``to_frame``, ``to_dict``, ``mask`` and
        ``membership``.

    See Also
    --------
    SubgroupReport : The report and its records.
    skfair.plotting.SubgroupDisplay : The gaps of the top subgroups with intervals.
    skfair.metrics.MetricTable : Per-group metrics of named groups (e.g. a subgroup's
        ``membership``).

    Notes
    -----
    **What counts as a test** (``objective="gap"``): every subgroup evaluated, that is
    every conjunction of up to ``max_level`` conditions with at least ``min_support`` rows
    in the metric's denominator, each set of rows once. Only two kinds of subgroups are not
    evaluated, and neither is a separate test: those below ``min_support`` (a subgroup holds
    no more rows than any subgroup it refines), and refinements that hold exactly the rows
    of a shorter description (the same hypothesis). With ``objective="sliceline"`` the
    q-values count every conjunction of up to ``max_level`` conditions as a test (the
    product of the numbers of values, summed over the combinations of columns), those not
    scored with p-value 1; the q-values are thus conservative. The test of a subgroup's
    rate against the rest is the pooled two-proportion z-test, or Fisher's exact test when
    an expected count is below 5.

    **SliceLine.** ``score = a (e(S) / |S| / e_mean - 1) - (1 - a) (n / |S| - 1)`` with
    ``a = sliceline_alpha``, ``e(S)`` the metric's numerator count in the slice (its
    complement for ``direction="lower"``) and ``|S|`` its denominator count; slices with a
    positive score only. The search is SliceLine's, level by level with its bounds on the
    sizes and errors of a slice's children, so the top ``k`` scores are exact; slices
    holding the same rows are counted once.

    **MDSS.** The subsets are conjunctions of *sets* of values per column; each step finds
    the best set of values of one column exactly (penalised fast subset scanning), with
    aif360's conventions for the score and the penalty; the subsets of the restarts are
    reported, distinct, best first. They are not tested (``p_value`` NaN).

    **Weights.** Rates are weighted; the tests use each side's Kish effective sample size
    ``(sum w)^2 / sum w^2`` in place of its number of rows, so integer weights give the
    rates, gaps and scores of repeated rows but not their p-values (weights are read as
    precision, not frequency weights). ``min_support`` counts rows.

    **Dask input.** ``features`` may be a dask DataFrame (with the labels and weights as
    columns of the same frame, or dask arrays) or a dask array: a first pass reads what the
    columns hold (their categories, and exact quantile edges of the numeric ones, in a few
    passes of 2**16 counters per edge), then each level of the search is one pass in which
    every partition counts its cells; only the summed count tables (at most the number of
    value combinations x 16 numbers per combination of columns) reach the client, and the
    report is exactly the in-memory one. ``objective="mdss"`` refuses dask input (it reads
    the rows once per step of its search); the report of dask rows keeps no codes, so its
    ``mask`` needs ``features``.

    References
    ----------
    Sagadeeva, S. and Boehm, M. (2021). SliceLine: Fast, Linear-Algebra-based Slice Finding
    for ML Model Debugging. SIGMOD '21, 2290-2299.

    Zhang, Z. and Neill, D. B. (2016). Identifying significant predictive bias in
    classifiers. arXiv:1611.08292.

    Speakman, S., Somanchi, S., McFowland III, E. and Neill, D. B. (2016). Penalized fast
    subset scanning. Journal of Computational and Graphical Statistics 25(2), 382-404.

    Newcombe, R. G. (1998). Interval estimation for the difference between independent
    proportions: comparison of eleven methods. Statistics in Medicine 17(8), 873-890.

    Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate. Journal of
    the Royal Statistical Society B 57(1), 289-300.

    Benjamini, Y. and Yekutieli, D. (2001). The control of the false discovery rate in
    multiple testing under dependency. Annals of Statistics 29(4), 1165-1188.

    Kish, L. (1965). Survey Sampling. Wiley, section 11.7.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.subgroups import find_subgroups
    >>> rng = np.random.default_rng(0)
    >>> n = 5000
    >>> features = {
    ...     "sex": rng.choice(["F", "M"], n),
    ...     "age": rng.integers(18, 80, n),
    ...     "region": rng.choice(["north", "south", "east"], n),
    ... }
    >>> y_true = rng.integers(0, 2, n)
    >>> worse = (features["sex"] == "F") & (features["region"] == "east")
    >>> flip = rng.random(n) < np.where(worse, 0.35, 0.1)
    >>> y_pred = np.where(flip, 1 - y_true, y_true)
    >>> report = find_subgroups(y_true, y_pred, features=features, k=3)
    >>> top = report.subgroups[0]
    >>> top["description"], top["significant"]
    ('sex = F & region = east', True)
    """
    features = collect_lazy(features)
    if uses_dask(y_true, y_pred, y_score, sample_weight, features):
        from skfair.subgroups._dask import find_on_dask

        return find_on_dask(**locals())
    n = check_lengths(y_true=y_true, y_pred=y_pred, y_score=y_score, sample_weight=sample_weight)
    codes, columns = encode_features(features, n_bins=n_bins, n_samples=n)
    n = codes.shape[1]
    check_settings(objective, direction, max_level, len(columns), y_pred, y_score)
    weights = check_weights(sample_weight, n)
    dims = tuple(column.n_values for column in columns)
    y_true = check_labels(y_true, "y_true")
    if objective == "mdss":
        positive, _ = binarize(y_true, None, pos_label)
        y_score = check_scores(y_score, "y_score", unit_interval=True)
        found = _mdss(
            codes,
            dims,
            positive,
            y_score,
            weights,
            direction=direction,
            penalty=penalty,
            n_restarts=n_restarts,
            random_state=random_state,
            min_support=min_support,
            k=k,
        )
    else:
        y_pred = check_labels(y_pred, "y_pred")
        check_label_pair(y_true, y_pred)
        true_positive, pred_positive = binarize(y_true, y_pred, pos_label)
        classes, fingerprints = row_classes(true_positive, pred_positive, codes)
        counter = MemoryCounter(codes, dims, classes, weights, fingerprints, n_jobs)
        smallest = None
        if weights is not None:
            smallest = np.partition(weights, min(min_support, n) - 1)[:min_support]
        search = make_search(locals(), smallest)
        found = search_tables(counter, dims, search)
    settings = {
        "objective": objective,
        "metric": "observed_rate" if objective == "mdss" else metric,
        "direction": direction,
        "alpha": alpha,
        "correction": correction,
        "max_level": max_level,
        "min_support": min_support,
    }
    return build_report(found, columns, settings, codes)


def _mdss(
    codes,
    dims,
    positive,
    y_score,
    weights,
    direction,
    penalty,
    n_restarts,
    random_state,
    min_support,
    k,
):
    """The MDSS subsets of every restart (both directions for "both"), distinct, best
    first, as records."""
    rng = check_generator(random_state)
    w = np.ones(y_score.shape[0]) if weights is None else weights
    y = positive.astype(np.float64)
    sides = {"higher": [True], "lower": [False], "both": [True, False]}[direction]
    found = []
    for side in sides:
        found.extend(
            mdss_scan(
                codes,
                dims,
                y,
                y_score,
                w,
                positive=side,
                penalty=penalty,
                n_restarts=n_restarts,
                rng=rng,
                min_rows=min_support,
            )
        )
    found.sort(key=lambda item: -item[1])
    total_rate = float(np.sum(w * y) / np.sum(w))
    records, seen = [], set()
    for values, score in found:
        identity = tuple(None if v is None else tuple(v.tolist()) for v in values)
        if identity in seen:
            continue
        seen.add(identity)
        inside = np.ones(y.shape[0], dtype=bool)
        for position, kept in enumerate(values):
            if kept is not None:
                inside &= np.isin(codes[position], kept)
        weight_in, weight_out = np.sum(w[inside]), np.sum(w[~inside])
        value = float(np.sum(w[inside] * y[inside]) / weight_in) if weight_in else np.nan
        rest = float(np.sum(w[~inside] * y[~inside]) / weight_out) if weight_out else np.nan
        records.append(
            {
                "values": values,
                "n": int(inside.sum()),
                "n_rated": int(inside.sum()),
                "value": value,
                "rest_value": rest,
                "gap": value - rest,
                "gap_low": np.nan,
                "gap_high": np.nan,
                "score": score,
                "p_value": np.nan,
                "q_value": np.nan,
                "significant": False,
            }
        )
        if len(records) == k:
            break
    return Found(
        records=records,
        n_evaluated=len(found),
        n_tests=0,
        overall_value=total_rate,
        n_rows=int(y.shape[0]),
    )
