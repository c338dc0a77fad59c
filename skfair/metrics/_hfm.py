"""HFM, the Harmonic Fairness measure via Manifolds (Bian, Luo & Xu 2024).

HFM compares how far apart the sensitive groups are in the data, ``D`` on the points
``[y, x]``, with how far apart they are in the model's view, ``D_f`` on ``[y_pred, x]``, where
``x`` holds the min-max scaled non-sensitive features: ``hfm = log10(D_f / D)`` (Eq. 8). Both
distances are maxima (Eqs. 4, 6) or means (Eqs. 5, 7) of the distance from each point to its
nearest neighbour in another group, computed by :mod:`skfair.neighbors`.
"""

import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import Bunch

from skfair._dask import check_in_memory
from skfair._groups import factorize_groups
from skfair._validation import check_labels, check_lengths
from skfair.neighbors._other_group import check_points, other_group_codes
from skfair.neighbors._projections import draw_projections

_VERSIONS = ("max", "avg")
_METHODS = ("exact", "approx", "bruteforce")
_LABEL_ENCODINGS = ("ordinal", "onehot")


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
    n_jobs=None,
    return_details=False,
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
    X : array-like or DataFrame of shape (n_samples, n_features)
        The **non-sensitive** features. A warning is raised when a column equals a sensitive
        attribute (it would leak into the distance).
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels (hard predictions). Continuous targets raise.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        One or several sensitive attributes with any number of values each.
    version : {"max", "avg"}, default="max"
        Which value is returned; both are always computed (see ``return_details``).
    method : {"exact", "approx", "bruteforce"}, default="exact"
        How the nearest other-group distances are found (:func:`skfair.neighbors.
        nearest_other_group`). ``"approx"`` is the paper's ApproxDist / ExtendDist
        (Algorithms 1-3), whose distances are never below the exact ones; one set of random
        projections serves ``D``, ``D_f`` and every attribute, so a perfect classifier scores
        exactly 0.
    scale : "minmax", None or a fitted transformer, default="minmax"
        ``"minmax"``: non-numeric columns are one-hot encoded, bool columns cast to 0/1, and
        every column is min-max scaled to [0, 1] on the data passed (constant columns become
        0). None: ``X`` is used as given (numeric only). A fitted transformer (for instance a
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
    n_jobs : int, default=None
        Threads for the neighbour searches.
    return_details : bool, default=False
        Return a :class:`~sklearn.utils.Bunch` with ``hfm``, ``D``, ``D_f``, both versions
        (``hfm_max``, ``hfm_avg``, ``D_max``, ``D_avg``, ``D_f_max``, ``D_f_avg``, ``ratio_max``,
        ``ratio_avg``; ``ratio - 1`` is the earlier df of Bian & Luo), ``attributes``,
        ``by_attribute`` (a dict of per-attribute arrays), ``method``, ``m1``, ``m2``, ``n_e``
        and, for the exact methods, the per-point distances ``delta_true`` and ``delta_pred``.

    Returns
    -------
    hfm : float or Bunch

    Notes
    -----
    An attribute with a single observed value has no distance between groups: it is skipped
    with a warning (NaN in ``by_attribute``), which gives the same HFM as the authors' exact
    code; if no attribute has two groups, a ValueError is raised.

    References
    ----------
    Y. Bian, Y. Luo and P. Xu, "Approximating Discrimination Within Models When Faced With
    Several Non-Binary Sensitive Attributes", arXiv:2408.06099, 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import hfm
    >>> X = np.array([[0.0], [0.2], [0.4], [0.6], [0.8], [1.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> sex = np.array(["f", "m", "f", "m", "f", "m"])
    >>> hfm(X, y, y, sensitive_features=sex)
    0.0
    >>> details = hfm(X, y, [1, 0, 0, 1, 1, 1], sensitive_features=sex, return_details=True)
    >>> round(details.D, 4), round(details.D_f, 4), round(details.hfm, 4)
    (0.2, 0.6, 0.4771)
    """
    hint = 'Run hfm(..., method="approx") on a sample, e.g. ddf.sample(frac=0.01).compute().'
    check_in_memory("hfm", X, y_true, y_pred, sensitive_features, hint=hint)
    _check_option(version, _VERSIONS, "version")
    _check_option(method, _METHODS, "method")
    _check_option(label_encoding, _LABEL_ENCODINGS, "label_encoding")
    n = check_lengths(X=X, y_true=y_true, y_pred=y_pred)
    if n < 2:
        raise ValueError(f"hfm needs at least 2 samples, got {n}.")
    groups = factorize_groups(sensitive_features, n_samples=n)
    features, column_names = _encode_features(X, scale)
    label_true, label_pred = _label_coordinates(y_true, y_pred, label_encoding)
    _warn_sensitive_columns(X, column_names, groups)

    n_groups = np.array([len(labels) for labels in groups.attribute_labels])
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
            stacklevel=2,
        )
    Z_true = check_points(np.hstack([label_true, features]))
    Z_pred = check_points(np.hstack([label_pred, features]))
    projections = None
    if method == "approx":
        # One draw for D, D_f and every attribute (common random numbers): y_pred == y_true
        # then gives D_f == D bitwise, and the variance of D_f / D shrinks.
        projections = draw_projections(Z_true.shape[1], m1=m1, n_e=n_e, random_state=random_state)
    search = {
        "method": method,
        "m2": m2,
        "projections": projections,
        "n_jobs": n_jobs,
    }
    codes = groups.attribute_codes[:, valid]
    found_true = other_group_codes(Z_true, codes, list(n_groups[valid]), **search)
    found_pred = other_group_codes(Z_pred, codes, list(n_groups[valid]), **search)

    by_attribute = {"n_groups": n_groups}
    for key, values in (
        ("D_max", found_true.d_max),
        ("D_avg", found_true.d_avg),
        ("D_f_max", found_pred.d_max),
        ("D_f_avg", found_pred.d_avg),
    ):
        by_attribute[key] = np.full(n_groups.size, np.nan)
        by_attribute[key][valid] = values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        by_attribute["hfm_max"] = np.array(
            [
                _log_ratio(f, d, eps, base)
                for f, d in zip(by_attribute["D_f_max"], by_attribute["D_max"], strict=True)
            ]
        )
        by_attribute["hfm_avg"] = np.array(
            [
                _log_ratio(f, d, eps, base)
                for f, d in zip(by_attribute["D_f_avg"], by_attribute["D_avg"], strict=True)
            ]
        )
    # Eqs. (6)-(7): max and mean over the attributes; Eq. (8): the ratio of the aggregates
    # (so hfm_avg is not the mean of the per-attribute hfm_avg).
    D_max, D_f_max = float(found_true.d_max.max()), float(found_pred.d_max.max())
    D_avg, D_f_avg = float(found_true.d_avg.mean()), float(found_pred.d_avg.mean())
    hfm_max = _log_ratio(D_f_max, D_max, eps, base, warn=version == "max")
    hfm_avg = _log_ratio(D_f_avg, D_avg, eps, base, warn=version == "avg")
    value = hfm_max if version == "max" else hfm_avg
    if not return_details:
        return value
    details = Bunch(
        hfm=value,
        version=version,
        D=D_max if version == "max" else D_avg,
        D_f=D_f_max if version == "max" else D_f_avg,
        hfm_max=hfm_max,
        hfm_avg=hfm_avg,
        D_max=D_max,
        D_avg=D_avg,
        D_f_max=D_f_max,
        D_f_avg=D_f_avg,
        ratio_max=_ratio(D_f_max, D_max, eps),
        ratio_avg=_ratio(D_f_avg, D_avg, eps),
        attributes=list(groups.names),
        by_attribute=by_attribute,
        method=method,
        m1=m1 if method == "approx" else None,
        m2=found_true.m2,
        n_e=projections.shape[1] if method == "approx" else None,
    )
    if method != "approx":
        for key, found in (("delta_true", found_true), ("delta_pred", found_pred)):
            delta = np.full((n, n_groups.size), np.nan)
            delta[:, valid] = np.sqrt(found.sqdist)
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
    """``log_base(D_f / D)`` with the zero cases of spec decision D14."""
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
                    stacklevel=3,
                )
            return -np.inf
    if np.isinf(ratio):
        if warn:
            warnings.warn(
                f"D = 0 < D_f = {D_f:.6g}: the groups coincide in the data but not in the "
                "model's view; hfm is +inf.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        return np.inf
    # log10 directly for the default base, so log10(1 + df_prev) reproduces it to the ulp.
    return float(np.log10(ratio)) if base == 10 else float(np.log(ratio) / np.log(base))


def _check_option(value, options, name):
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {list(options)}, got {value!r}.")


def _label_coordinates(y_true, y_pred, label_encoding):
    """Label columns of ``Z_true`` and ``Z_pred`` from one code table (spec decision D4)."""
    y_true = check_labels(y_true, "y_true")
    y_pred = check_labels(y_pred, "y_pred")
    try:
        classes = np.unique(np.concatenate([y_true, y_pred]))
    except TypeError as exc:
        raise ValueError(
            f"y_true and y_pred mix label types ({y_true.dtype}, {y_pred.dtype}); pass labels "
            "of one type."
        ) from exc
    codes = [np.searchsorted(classes, y) for y in (y_true, y_pred)]
    if label_encoding == "ordinal" or classes.size <= 2:
        return [c[:, None].astype(np.float64) for c in codes]
    eye = np.eye(classes.size) / np.sqrt(2.0)
    return [eye[c] for c in codes]


def _encode_features(X, scale):
    """Numeric, scaled non-sensitive features and the name of each original column."""
    if scale is not None and not isinstance(scale, str):
        if not hasattr(scale, "transform"):
            raise ValueError(
                f"scale must be 'minmax', None or a fitted transformer, got {scale!r}."
            )
        return _numeric(scale.transform(X), _column_names(X)), _column_names(X)
    if isinstance(scale, str) and scale != "minmax":
        raise ValueError(f"scale must be 'minmax', None or a fitted transformer, got {scale!r}.")
    names = _column_names(X)
    if scale is None:
        return _numeric(X, names), names
    if hasattr(X, "columns") and hasattr(X, "iloc"):
        blocks = [_encode_column(X.iloc[:, j], name) for j, name in enumerate(names)]
    else:
        array = np.asarray(X)
        if array.ndim != 2:
            raise ValueError(f"Expected 2D array for X, got {array.ndim}D. Reshape your data.")
        if array.dtype.kind in "biuf":
            blocks = [_min_max(_numeric(array, names))]
        else:
            blocks = [_encode_column(array[:, j], name) for j, name in enumerate(names)]
    if not blocks:
        return np.empty((_n_rows(X), 0)), names
    return np.hstack(blocks), names


def _encode_column(column, name):
    values = column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column)
    dtype = getattr(column, "dtype", values.dtype)
    is_category = getattr(dtype, "name", "") == "category"
    if not is_category and values.dtype.kind == "O":
        # An object column holding only numbers (as parsed from csv without pandas) is numeric.
        inferred = np.asarray(values.tolist())
        values = inferred if inferred.dtype.kind in "biuf" else values
    if not is_category and values.dtype.kind in "biuf":
        return _min_max(_numeric(values[:, None], [name]))
    values = values.astype(object)
    missing = np.array([v is None or v != v for v in values], dtype=bool)
    if missing.any():
        raise ValueError(
            f"X column {name!r} has missing values (first at row {np.argmax(missing)}). Impute "
            "them or drop those rows explicitly."
        )
    _, codes = np.unique(values.astype(str), return_inverse=True)
    # One-hot indicators are already in [0, 1], as after the paper's encoding and scaling.
    return np.eye(codes.max() + 1)[codes]


def _numeric(X, names):
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"Expected 2D array for X, got {array.ndim}D. Reshape your data.")
    if array.dtype.kind not in "biuf":
        raise ValueError(
            f"X has non-numeric values (dtype {array.dtype}); with scale=None pass numeric "
            "features, or use scale='minmax' to one-hot encode categorical columns."
        )
    array = array.astype(np.float64)
    finite = np.isfinite(array)
    if not finite.all():
        row, column = np.argwhere(~finite)[0]
        raise ValueError(
            f"X column {names[column]!r} has NaN or infinite values (first at row {row})."
        )
    return array


def _min_max(array):
    low, high = array.min(axis=0), array.max(axis=0)
    span = high - low
    # Constant columns carry no information about distances: they become 0.
    return (array - low) / np.where(span > 0, span, 1.0)


def _column_names(X):
    if hasattr(X, "columns"):
        return [str(name) for name in X.columns]
    shape = np.shape(X)
    return [f"X[:, {j}]" for j in range(shape[1] if len(shape) == 2 else 0)]


def _n_rows(X):
    return np.shape(X)[0]


def _warn_sensitive_columns(X, names, groups):
    """Warn when a column of ``X`` is a relabelling of a sensitive attribute (it would leak)."""
    is_frame = hasattr(X, "columns") and hasattr(X, "iloc")
    array = None if is_frame else np.asarray(X)
    for j in range(groups.n_attributes):
        codes = groups.attribute_codes[:, j]
        n_values = len(groups.attribute_labels[j])
        if n_values < 2:
            continue
        order = np.argsort(codes, kind="stable")
        first = order[np.searchsorted(codes[order], np.arange(n_values))]  # first row per value
        for k, name in enumerate(names):
            column = X.iloc[:, k].to_numpy() if is_frame else array[:, k]
            representatives = column[first]
            if np.all(column == representatives[codes]) and (
                len(set(representatives.tolist())) == n_values
            ):
                warnings.warn(
                    f"X column {name!r} equals sensitive attribute {groups.names[j]!r} up to "
                    "relabelling; pass only the non-sensitive features to hfm.",
                    UserWarning,
                    stacklevel=3,
                )
