"""HFM, the Harmonic Fairness measure via Manifolds (Bian, Luo & Xu 2024).

HFM compares how far apart the sensitive groups are in the data, ``D`` on the points
``[y, x]``, with how far apart they are in the model's view, ``D_f`` on ``[y_pred, x]``, where
``x`` holds the min-max scaled non-sensitive features: ``hfm = log10(D_f / D)`` (Eq. 8). Both
distances are maxima (Eqs. 4, 6) or means (Eqs. 5, 7) of the distance from each point to its
nearest neighbour in another group, computed by :mod:`skfair.neighbors`.

Like scikit-learn's ``silhouette_samples`` / ``silhouette_score``, :func:`hfm_details` returns
everything (both versions, per attribute, per point) and :func:`hfm` the one number.
"""

import dataclasses
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import Bunch

from skfair._dask import dask_dispatch, refuse
from skfair._utils._compat import (
    SENSITIVE_FEATURES_CONSTRAINT,
    HasMethods,
    Interval,
    StrOptions,
    validate_params,
)
from skfair._utils._groups import factorize_groups
from skfair._utils._validation import check_lengths, check_weights
from skfair.metrics._docs import shared
from skfair.metrics._hfm_features import (
    encode_features,
    label_coordinates,
    warn_sensitive_columns,
)
from skfair.neighbors._other_group import OtherGroupSearch, check_points, other_group_codes
from skfair.neighbors._projections import draw_projections

# What the docstrings of hfm and hfm_details share: parameters and the reference (numpydoc
# text, as rendered).
_PARTS = {
    "references_bian": """\
References
----------
Y. Bian, Y. Luo and P. Xu, "Approximating Discrimination Within Models When Faced With
Several Non-Binary Sensitive Attributes", arXiv:2408.06099, 2024.""",
    "data_parameters": """\
X : array-like or DataFrame of shape (n_samples, n_features)
    The **non-sensitive** features. A warning is raised when a column equals a sensitive
    attribute (it would leak into the distance).
y_true, y_pred : array-like of shape (n_samples,)
    True and predicted class labels (hard predictions). Continuous targets raise.
sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
    One or several sensitive attributes with any number of values each.""",
    "search_parameters": """\
method : {"exact", "approx", "bruteforce"}, default="exact"
    How the nearest other-group distances are found (:func:`skfair.neighbors.
    nearest_other_group`). ``"approx"`` is the paper's ApproxDist / ExtendDist
    (Algorithms 1-3), whose distances are never below the exact ones; one set of random
    projections serves ``D``, ``D_f`` and every attribute, so a perfect classifier scores
    exactly 0.
scale : "minmax", None or a fitted transformer, default="minmax"
    ``"minmax"``: non-numeric columns are one-hot encoded, bool columns cast to 0/1, and
    every column is min-max scaled to [0, 1] on the data passed (constant columns become
    0); missing values raise, and an encoding beyond 1 GiB is refused before it is built.
    None: ``X`` is used as given (numeric only). A fitted transformer (for instance a
    ``MinMaxScaler`` fitted on the training fold, as in the paper) is applied with
    ``transform``.
label_encoding : {"ordinal", "onehot"}, default="ordinal"
    The label coordinate: the class code ``0..n_classes-1`` of the sorted union of the
    classes in ``y_true`` and ``y_pred`` (the paper's), or class indicators scaled by
    ``1/sqrt(2)`` so that any mismatch costs exactly 1 (the same as ordinal for two
    classes).
m1 : int, default=25
    Repetitions of random projections (``method="approx"``).
m2 : int, default=None
    Other-group candidates per side (``method="approx"``); None means
    ``ceil(2 * log10(n_samples))``.
n_e : int, default=2
    Orthonormal directions per repetition (``method="approx"``).
random_state : int, RandomState instance or None, default=None
    Seed of the projections (``method="approx"``).
eps : float, default=None
    None: ``D = D_f = 0`` gives 0, ``D = 0 < D_f`` gives ``+inf`` and ``D_f = 0 < D``
    gives ``-inf`` (with an ``UndefinedMetricWarning``). A float reproduces the authors'
    code (``eps=1e-13``): zero denominators and ratios are replaced by ``eps``.
base : float, default=10
    Base of the logarithm (the paper's tables use 10).
sample_weight : array-like of shape (n_samples,), default=None
    Row weights: the average version is the weighted mean of the per-point distances.
    Rows of zero weight are left out entirely (neither anchors nor neighbours), so
    integer weights give the same result as repeating rows.
n_jobs : int, default=None
    Threads for the neighbour searches.
verbose : int, default=0
    With a value above 0, print the neighbour engine used and the time of each search.""",
}


_VERSIONS = ("max", "avg")
_POSITIVE_INT = Interval(Integral, 1, None, closed="left")
_DETAILS_CONSTRAINTS = {
    "X": ["array-like"],
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
    "method": [StrOptions({"exact", "approx", "bruteforce"})],
    "scale": [StrOptions({"minmax"}), HasMethods("transform"), None],
    "label_encoding": [StrOptions({"ordinal", "onehot"})],
    "m1": [_POSITIVE_INT],
    "m2": [_POSITIVE_INT, None],
    "n_e": [_POSITIVE_INT],
    "random_state": ["random_state"],
    "eps": [Interval(Real, 0, None, closed="neither"), None],
    "base": [Interval(Real, 0, None, closed="neither")],
    "sample_weight": ["array-like", None],
    "n_jobs": [Integral, None],
    "verbose": ["verbose"],
}


# On dask input: the nearest neighbour of every row in the other groups is searched among all
# rows, across partitions (P**2 pairs of partitions): no statistic of a partition suffices.
_IN_MEMORY = refuse(
    "the nearest neighbour of every row in the other groups is searched among all rows, "
    "across partitions.",
    'Run it on an in-memory sample with method="approx", e.g. ddf.sample(frac=0.01).compute().',
)


@dask_dispatch(_IN_MEMORY)
@validate_params(
    {
        **_DETAILS_CONSTRAINTS,
        "version": [StrOptions(set(_VERSIONS))],
    },
    prefer_skip_nested_validation=True,
)
@shared(parts=_PARTS)
def hfm(
    X,
    y_true,
    y_pred,
    *,
    sensitive_features,
    version="max",
    method="exact",
    scale="minmax",
    label_encoding="ordinal",
    m1=25,
    m2=None,
    n_e=2,
    random_state=None,
    eps=None,
    base=10,
    sample_weight=None,
    n_jobs=None,
    verbose=0,
):
    """Harmonic Fairness measure via Manifolds: extra group separation added by a classifier.

    ``hfm = log_base(D_f / D)`` (Eq. 8), where ``D`` is the distance between the groups of each
    sensitive attribute on the points ``[y_true, x]`` and ``D_f`` the same on
    ``[y_pred, x]``; ``x`` holds the scaled non-sensitive features and the label is the class
    code, unscaled. ``version="max"`` uses the largest distance from a point to the nearest
    point of another group (Eq. 4; the Hausdorff distance for two groups) and the maximum over
    attributes (Eq. 6); ``version="avg"`` the mean over points (Eq. 5) and over attributes
    (Eq. 7). Attributes are treated one by one (marginally), never intersected.

    0 means that the model keeps the data's separation of the groups, a positive value that it
    pushes them apart (extra bias), a negative value that it brings them closer. The ready
    scorer ``get_fairness_scorer("hfm")`` scores ``|hfm|``, lower is better.

    Parameters
    ----------
    {data_parameters}
    version : {"max", "avg"}, default="max"
        Which value is returned; :func:`hfm_details` returns both.
    {search_parameters}

    Returns
    -------
    hfm : float
        HFM of the version chosen: positive when the classifier separates the groups more than
        the data do, 0 when as much, negative when less.

    See Also
    --------
    hfm_details : Both versions, per attribute and per point.
    skfair.neighbors.other_group_distance : The distances ``D`` on points given as they are.

    Notes
    -----
    An attribute with a single observed value has no distance between groups: it is skipped
    with a warning (NaN in the details' ``by_attribute``), which gives the same HFM as the
    authors' exact code; if no attribute has two groups, a ValueError is raised.

    {references_bian}

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import hfm
    >>> X = np.array([[0.0], [0.2], [0.4], [0.6], [0.8], [1.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> sex = np.array(["f", "m", "f", "m", "f", "m"])
    >>> hfm(X, y, y, sensitive_features=sex)
    0.0
    >>> round(hfm(X, y, [1, 0, 0, 1, 1, 1], sensitive_features=sex), 4)
    0.4771
    """
    details = _hfm_details(
        X,
        y_true,
        y_pred,
        sensitive_features,
        scale=scale,
        label_encoding=label_encoding,
        eps=eps,
        base=base,
        sample_weight=sample_weight,
        search=_search(method, m1, m2, n_e, random_state, n_jobs, verbose),
        warn_version=version,
    )
    return details[f"hfm_{version}"]


@dask_dispatch(_IN_MEMORY)
@validate_params(_DETAILS_CONSTRAINTS, prefer_skip_nested_validation=True)
@shared(parts=_PARTS)
def hfm_details(
    X,
    y_true,
    y_pred,
    *,
    sensitive_features,
    method="exact",
    scale="minmax",
    label_encoding="ordinal",
    m1=25,
    m2=None,
    n_e=2,
    random_state=None,
    eps=None,
    base=10,
    sample_weight=None,
    n_jobs=None,
    verbose=0,
):
    """HFM in both versions, per sensitive attribute, with the distances behind it.

    Computes what :func:`hfm` summarises: the data's and the model's group distances ``D`` and
    ``D_f`` in the maximal (Eqs. 4, 6) and the average version (Eqs. 5, 7), their ratio and
    its logarithm (Eq. 8), for all attributes together and for each one, and (exact methods)
    the per-point distance to the nearest point of another group.

    Parameters
    ----------
    {data_parameters}
    {search_parameters}

    Returns
    -------
    details : :class:`~sklearn.utils.Bunch`
        ``hfm_max``, ``hfm_avg``; ``D_max``, ``D_avg`` (data), ``D_f_max``, ``D_f_avg``
        (model); ``ratio_max``, ``ratio_avg`` (``ratio - 1`` is the earlier df of Bian & Luo);
        ``attributes`` (names); ``by_attribute``, a dict of per-attribute arrays with the same
        keys and ``n_groups``; ``method``, ``m1``, ``m2``, ``n_e`` (None where unused); and,
        for the exact methods, ``delta_true`` and ``delta_pred`` of shape
        (n_samples, n_attributes), the per-point distances (NaN for rows of zero weight).

    See Also
    --------
    hfm : The one number.

    {references_bian}

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import hfm_details
    >>> X = np.array([[0.0], [0.2], [0.4], [0.6], [0.8], [1.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> sex = np.array(["f", "m", "f", "m", "f", "m"])
    >>> details = hfm_details(X, y, [1, 0, 0, 1, 1, 1], sensitive_features=sex)
    >>> round(details.D_max, 4), round(details.D_f_max, 4), round(details.hfm_max, 4)
    (0.2, 0.6, 0.4771)
    """
    return _hfm_details(
        X,
        y_true,
        y_pred,
        sensitive_features,
        scale=scale,
        label_encoding=label_encoding,
        eps=eps,
        base=base,
        sample_weight=sample_weight,
        search=_search(method, m1, m2, n_e, random_state, n_jobs, verbose),
        warn_version=None,
    )


def _search(method, m1, m2, n_e, random_state, n_jobs, verbose):
    return OtherGroupSearch(
        method=method,
        m1=m1,
        m2=m2,
        n_e=n_e,
        random_state=random_state,
        n_jobs=n_jobs,
        verbose=verbose,
    )


def _hfm_details(
    X,
    y_true,
    y_pred,
    sensitive_features,
    *,
    scale,
    label_encoding,
    eps,
    base,
    sample_weight,
    search,
    warn_version,
):
    """The computation; ``warn_version`` names the version whose infinite value warns (None:
    both)."""
    n = check_lengths(X=X, y_true=y_true, y_pred=y_pred)
    if n < 2:
        raise ValueError(f"hfm needs at least 2 samples, got {n}.")
    weights = check_weights(sample_weight, n)
    kept = np.arange(n) if weights is None else np.flatnonzero(weights > 0)
    if kept.size < 2:
        raise ValueError(f"hfm needs at least 2 rows of positive sample_weight, got {kept.size}.")
    groups = factorize_groups(sensitive_features, n_samples=n)
    # Rows of zero weight are left out entirely, from the scaling too.
    features, column_names = encode_features(X, scale, None if kept.size == n else kept)
    label_true, label_pred = label_coordinates(y_true, y_pred, label_encoding)
    warn_sensitive_columns(X, column_names, groups)

    codes = groups.attribute_codes[kept]
    n_groups = np.array([np.unique(codes[:, j]).size for j in range(codes.shape[1])])
    valid = n_groups >= 2
    if not valid.any():
        raise ValueError(
            f"hfm needs a sensitive attribute with at least 2 groups; every attribute of "
            f"{list(groups.names)} has a single value in the data passed."
        )
    for name in np.asarray(groups.names, dtype=object)[~valid]:
        warnings.warn(
            f"Sensitive attribute {name!r} has a single value in the data passed; it is "
            "skipped (NaN in by_attribute) and HFM uses the other attributes.",
            UserWarning,
            stacklevel=5,
        )
    Z_true = check_points(np.hstack([label_true, features])[kept])
    Z_pred = check_points(np.hstack([label_pred, features])[kept])
    if search.method == "approx":
        # One draw for D, D_f and every attribute (common random numbers): y_pred == y_true
        # then gives D_f == D bitwise, and the variance of D_f / D shrinks.
        projections = draw_projections(
            Z_true.shape[1], m1=search.m1, n_e=search.n_e, random_state=search.random_state
        )
        search = dataclasses.replace(search, projections=projections)
    # Codes compacted to the groups present among the kept rows, for the valid attributes.
    valid_codes = np.column_stack(
        [np.unique(codes[:, j], return_inverse=True)[1] for j in np.flatnonzero(valid)]
    )
    kept_weights = None if weights is None else weights[kept]
    found_true = other_group_codes(
        Z_true, valid_codes, list(n_groups[valid]), search, weights=kept_weights
    )
    found_pred = other_group_codes(
        Z_pred, valid_codes, list(n_groups[valid]), search, weights=kept_weights
    )

    by_attribute = {"n_groups": n_groups}
    for key, values in (
        ("D_max", found_true.d_max),
        ("D_avg", found_true.d_avg),
        ("D_f_max", found_pred.d_max),
        ("D_f_avg", found_pred.d_avg),
    ):
        by_attribute[key] = np.full(n_groups.size, np.nan)
        by_attribute[key][valid] = values
    for version in _VERSIONS:
        by_attribute[f"hfm_{version}"] = np.array(
            [
                _log_ratio(f, d, eps, base)
                for f, d in zip(
                    by_attribute[f"D_f_{version}"], by_attribute[f"D_{version}"], strict=True
                )
            ]
        )
    # Eqs. (6)-(7): max and mean over the attributes; Eq. (8): the ratio of the aggregates
    # (so hfm_avg is not the mean of the per-attribute hfm_avg).
    D = {"max": float(found_true.d_max.max()), "avg": float(found_true.d_avg.mean())}
    D_f = {"max": float(found_pred.d_max.max()), "avg": float(found_pred.d_avg.mean())}
    details = Bunch()
    for version in _VERSIONS:
        warn = warn_version is None or warn_version == version
        details[f"hfm_{version}"] = _log_ratio(D_f[version], D[version], eps, base, warn=warn)
    for version in _VERSIONS:
        details[f"D_{version}"] = D[version]
        details[f"D_f_{version}"] = D_f[version]
        details[f"ratio_{version}"] = _ratio(D_f[version], D[version], eps)
    approx = search.method == "approx"
    details.update(
        attributes=list(groups.names),
        by_attribute=by_attribute,
        method=search.method,
        m1=search.m1 if approx else None,
        m2=found_true.m2,
        n_e=search.projections.shape[1] if approx else None,
    )
    if not approx:
        for key, found in (("delta_true", found_true), ("delta_pred", found_pred)):
            delta = np.full((n, n_groups.size), np.nan)
            delta[np.ix_(kept, np.flatnonzero(valid))] = np.sqrt(found.sqdist)
            details[key] = delta
    return details


def _ratio(D_f, D, eps):
    if eps is None:
        if D == 0:
            return 1.0 if D_f == 0 else np.inf
        return D_f / D
    # The authors' check_zero: 0/0 counts as 1; a zero denominator becomes eps.
    if D == 0 and D_f == 0:
        return 1.0
    return D_f / (D if D != 0 else eps)


def _log_ratio(D_f, D, eps, base, *, warn=False):
    """``log_base(D_f / D)``; 0/0 is 0, and a zero on one side gives an infinite value (or, with
    ``eps``, the authors' replacement of zeros by ``eps``)."""
    if np.isnan(D_f) or np.isnan(D):
        return np.nan
    ratio = _ratio(D_f, D, eps)
    if ratio == 0:
        if eps is not None:
            ratio = eps
        else:
            if warn:
                warnings.warn(
                    f"D_f = 0 < D = {D:.6g}: the model merges the groups completely; hfm is -inf.",
                    UndefinedMetricWarning,
                    stacklevel=6,
                )
            return -np.inf
    if np.isinf(ratio):
        if warn:
            warnings.warn(
                f"D = 0 < D_f = {D_f:.6g}: the groups coincide in the data but not in the "
                "model's view; hfm is +inf.",
                UndefinedMetricWarning,
                stacklevel=6,
            )
        return np.inf
    # log10 directly for the default base, so log10(1 + df_prev) reproduces it to the ulp.
    return float(np.log10(ratio)) if base == 10 else float(np.log(ratio) / np.log(base))
