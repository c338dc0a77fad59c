"""Input checks shared by skfair's metrics and estimators.

Each check raises a ValueError that says what was wrong and how to fix it. Nothing is dropped
silently.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import column_or_1d

from skfair._utils._compat import _check_feature_names, _check_n_features, _check_sample_weight
from skfair._utils._frames import collect_lazy, refuse_dask
from skfair._utils._groups import data_row, factorize_groups, missing_mask

_NOT_LABELS = (
    "continuous",
    "continuous-multioutput",
    "multilabel-indicator",
    "multiclass-multioutput",
)


def check_lengths(**arrays):
    """Raise when the named arrays (None ignored) do not all have the same length (and a
    TypeError for dask collections: the caller reads them in memory)."""
    refuse_dask(**arrays)
    lengths = {name: _length(value) for name, value in arrays.items() if value is not None}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{name} has {length}" for name, length in lengths.items())
        raise ValueError(
            f"Inconsistent numbers of samples: {detail}. Pass one value per sample to each."
        )
    return next(iter(lengths.values())) if lengths else None


def _length(value):
    value = collect_lazy(value)
    if isinstance(value, dict):
        return len(next(iter(value.values()))) if value else 0
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) > 0:
        return shape[0]
    return len(value)


def check_groups(sensitive_features, n_samples):
    """Factorise ``sensitive_features`` after checking it has ``n_samples`` entries."""
    return factorize_groups(sensitive_features, n_samples=n_samples)


def vector_1d(y):
    """``column_or_1d(y, warn=True)``: a 1-D array, a column vector flattened with a warning.

    A contiguous 1-D numpy array is returned as it is, which is what scikit-learn's function
    returns for it after looking for a dataframe library behind it (a cost larger than a
    small fit's own work).
    """
    if type(y) is np.ndarray and y.ndim == 1 and y.flags.c_contiguous:
        return y
    return column_or_1d(y, warn=True)


def check_labels(y, name):
    """Return ``y`` as a 1-D array of class labels; raise for continuous or multi-output input."""
    if isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "biu":
        return y  # integer labels: never missing, always binary or multiclass
    shape = np.shape(y)
    if len(shape) == 2 and shape[1] > 1:
        # Name the target type (e.g. predict_proba output) rather than only the shape.
        _raise_not_labels(type_of_target(y, input_name=name), name)
    y = vector_1d(y)
    check_label_values(y, name)
    target_type = type_of_target(y, input_name=name)
    if target_type in _NOT_LABELS:
        _raise_not_labels(target_type, name)
    return y


def check_label_values(y, name, sample_axis=0):
    """Raise for missing values (None, NaN, pd.NA) and for labels mixing strings and numbers.

    ``y`` is an array of labels of any shape (member labels of an ensemble are 2-D, their
    samples on ``sample_axis=1``). Labels such as ``1`` and ``"1"`` in one array would be
    two different classes that print alike, so a mix of string and numeric labels is
    refused, as scikit-learn's ``unique_labels`` does.
    """
    y = np.asarray(y)
    if y.dtype.kind == "f" and np.isnan(y).any():
        position = np.unravel_index(np.argmax(np.isnan(y)), y.shape)
        raise ValueError(f"{name} has NaN values (first at {_where(position, sample_axis)}).")
    if y.dtype.kind != "O":
        return
    missing = missing_mask(y)
    if missing.any():
        position = np.unravel_index(np.argmax(missing), y.shape)
        raise ValueError(
            f"{name} has missing values (None/NaN), first at {_where(position, sample_axis)}. "
            "Labels must all be known: drop or impute those samples first."
        )
    kinds = _label_kinds(y)
    if len(kinds) > 1:
        raise ValueError(
            f"{name} mixes string and numeric labels; values such as 1 and '1' would be "
            f"different classes. Convert {name} to one type, e.g. {name}.astype(str) or "
            "astype(int)."
        )


def check_label_pair(y_true, y_pred):
    """Raise when ``y_true`` and ``y_pred`` cannot be labels of the same classes.

    Two cases are refused: one array holds strings and the other numbers (``"1" == 1`` is
    False, so every prediction would count as wrong), and both hold at least two distinct
    labels with none in common (differently encoded classes). A constant prediction that
    never matches (``y_pred`` all 1 where ``y_true`` is all 0) is a valid, if poor, input.
    """
    kinds_true, kinds_pred = _label_kinds(np.asarray(y_true)), _label_kinds(np.asarray(y_pred))
    if kinds_true and kinds_pred and kinds_true != kinds_pred:
        raise ValueError(
            f"y_true holds {' and '.join(sorted(kinds_true))} labels but y_pred holds "
            f"{' and '.join(sorted(kinds_pred))} labels, so no prediction can equal its true "
            "label. Encode both the same way (e.g. y_true.astype(int) or y_pred.astype(str))."
        )
    labels_true, labels_pred = _distinct(y_true).tolist(), _distinct(y_pred).tolist()
    if len(labels_true) > 1 and len(labels_pred) > 1 and not set(labels_true) & set(labels_pred):
        raise ValueError(
            f"y_true and y_pred have no label in common (y_true: {labels_true[:10]}, y_pred: "
            f"{labels_pred[:10]}); they look encoded differently. Encode both the same way."
        )


def _distinct(y):
    """Distinct labels of ``y``, bools as ints (so ``True == 1`` matches), as an ndarray.

    Small-range integers take one ``np.bincount`` instead of a sort; object arrays, which may
    hold values that do not sort, keep their order of first appearance.
    """
    y = np.asarray(y).ravel()
    if y.dtype.kind == "b":
        return np.unique(y).astype(np.intp)
    if y.dtype.kind in "iu" and y.size:
        low, high = int(y.min()), int(y.max())
        if high - low <= y.size:
            return (np.flatnonzero(np.bincount(y - low)) + low).astype(y.dtype)
    if y.dtype.kind != "O":
        return np.unique(y)
    values = _unique_values(y).tolist()
    out = np.empty(len(values), dtype=object)
    out[:] = [int(v) if isinstance(v, (bool, np.bool_)) else v for v in values]
    return out


def _unique_values(values):
    """Distinct values of a 1-D array, also for object arrays mixing types (no sort)."""
    if values.dtype.kind != "O":
        return np.unique(values)
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - exercised without pandas only
        return np.array(list(dict.fromkeys(values.tolist())), dtype=object)
    return np.asarray(pd.unique(values), dtype=object)


def _label_kinds(y):
    """The set of label kinds in ``y``: ``{"string"}``, ``{"numeric"}`` or both."""
    if y.dtype.kind in "US":
        return {"string"}
    if y.dtype.kind in "biuf":
        return {"numeric"}
    if y.dtype.kind != "O":
        return set()
    kinds = set()
    for value in _unique_values(y.ravel()).tolist():  # distinct values only
        if isinstance(value, (str, bytes)):
            kinds.add("string")
        elif isinstance(value, (bool, int, float, np.number, np.bool_)):
            kinds.add("numeric")
    return kinds


def _where(position, sample_axis=0):
    """Where ``position`` is, the sample axis counted in rows of the whole data."""
    position = [int(p) for p in position]
    position[sample_axis] = data_row(position[sample_axis])
    if len(position) == 1:
        return f"row {position[0]}"
    return "index " + str(tuple(position))


def _raise_not_labels(target_type, name):
    raise ValueError(
        f"{name} is {target_type.split('-')[0]} (type_of_target={target_type!r}); "
        "classification disparity metrics need class labels. Threshold the scores first, "
        "use wasserstein_bias / ks_bias / madd for score distributions, or "
        "demographic_parity_unfairness with bins= for binned continuous outputs."
    )


def binarize(y_true, y_pred, pos_label):
    """Indicators ``y == pos_label`` for label arrays (``y_true`` may be None).

    ``pos_label=None`` is inferred only for labels within {0, 1}, {-1, 1} or {False, True}.
    """
    present = [y for y in (y_true, y_pred) if y is not None]
    labels = np.unique(np.concatenate([_distinct(y) for y in present]))
    if pos_label is None:
        # Strings never equal 0 or 1, so only numeric (or bool) labels pass these tests.
        label_set = set(labels.tolist())
        if label_set <= {0, 1} or label_set <= {-1, 1}:
            pos_label = 1
        else:
            hint = (
                " For more than two classes use demographic_parity_unfairness / "
                "equalized_odds_unfairness, or pass pos_label= for one class against the rest."
                if len(labels) > 2
                else ""
            )
            raise ValueError(
                f"pos_label must be given for labels {labels.tolist()}: it can only be inferred "
                f"for labels within {{0, 1}}, {{-1, 1}} or {{False, True}}.{hint}"
            )
    elif pos_label not in labels.tolist():
        if y_true is not None or labels.shape[0] > 1:
            raise ValueError(f"pos_label={pos_label!r} is not among the labels {labels.tolist()}.")
        # Predictions alone, all of one class: a model may predict no row positive (a valid,
        # if extreme, rate of 0 in every group), which one label cannot tell from a misspelt
        # pos_label; with two labels or more, pos_label must be one of them.
        warnings.warn(
            f"pos_label={pos_label!r} is not among the predicted labels {labels.tolist()}: "
            "no row is predicted positive, so every rate is 0. If the model does predict "
            "that class, check the spelling and type of pos_label.",
            UserWarning,
            stacklevel=3,
        )
    return tuple(None if y is None else (y == pos_label) for y in (y_true, y_pred))


def check_scores(y_score, name="y_score", *, unit_interval=False):
    """Return 1-D float scores; raise on NaN/inf, or outside [0, 1] when ``unit_interval``."""
    y_score = score_vector(
        np.asarray(y_score),
        shape_error=lambda shape: (
            f"{name} must be 1-D scores, got shape {shape}. For predict_proba output "
            "pass the positive-class column, e.g. proba[:, 1]."
        ),
        dtype_error=lambda dtype: f"{name} must be numeric scores, got dtype {dtype}.",
    )
    finite = np.isfinite(y_score)
    if not finite.all():
        raise ValueError(
            f"{name} has NaN or infinite values (first at row {data_row(np.argmin(finite))})."
        )
    if unit_interval and y_score.size and (y_score.min() < 0 or y_score.max() > 1):
        raise ValueError(
            f"{name} must lie in [0, 1] (probabilities), got values in "
            f"[{y_score.min():.6g}, {y_score.max():.6g}]. Pass predict_proba output, or rescale "
            "decision scores."
        )
    return y_score


def score_vector(y_score, *, shape_error, dtype_error, squeeze=True):
    """``y_score`` (an array) as 1-D float scores, a single column taken as the vector (with
    ``squeeze``).

    Any other shape raises ``ValueError(shape_error(shape))``, non-numeric values
    ``ValueError(dtype_error(dtype))``.
    """
    if squeeze and y_score.ndim == 2 and y_score.shape[1] == 1:
        y_score = y_score[:, 0]
    if y_score.ndim != 1:
        raise ValueError(shape_error(y_score.shape))
    if y_score.dtype.kind not in "biuf":
        raise ValueError(dtype_error(y_score.dtype))
    return y_score.astype(np.float64, copy=False)


def check_weights(sample_weight, n_samples, *, keep_scale=False):
    """Checked float weights of length ``n_samples``, or None when there is nothing to weigh.

    Negative, NaN and infinite weights raise. Every skfair statistic and estimator depends on
    the weights only through their ratios, so their scale must not matter; the checked
    weights go through :func:`scale_free_weights`:

    - equal positive weights are no weights: None is returned, and the unweighted path gives
      the unweighted result bit for bit, for weights of 1e-300 or 1e308 alike;
    - weights whose sum would overflow float64 (near 1e308) are divided by a power of two,
      which is exact and keeps every ratio, instead of turning sums into inf and rates into
      NaN.

    ``keep_scale=True`` returns the checked weights as given instead, for a caller whose
    output carries them (reweighing's sample weights, the weights a meta-estimator passes on
    to a model whose regularisation depends on their scale).
    """
    if sample_weight is None:
        return None
    weights = _check_sample_weight(sample_weight, np.empty(n_samples), dtype=np.float64)
    if (weights < 0).any():
        raise ValueError(
            f"sample_weight has negative values (first at row {data_row(np.argmax(weights < 0))})"
            "; weights must be non-negative."
        )
    return weights if keep_scale else scale_free_weights(weights)


def scale_free_weights(weights):
    """Checked ``weights`` for a statistic of their ratios: None when they are all equal and
    positive, else :func:`finite_sum_weights` (see :func:`check_weights`)."""
    if weights is None or (weights.size and weights[0] > 0 and (weights == weights[0]).all()):
        return None
    return finite_sum_weights(weights)


def finite_sum_weights(weights):
    """``weights`` divided by a power of two when their sum would overflow, else as given."""
    if weights.size == 0:
        return weights
    with np.errstate(over="ignore"):
        total = np.sum(weights)
    if np.isfinite(total):
        return weights
    exponent = np.frexp(np.max(weights))[1] + int(np.ceil(np.log2(weights.size)))
    # Two factors, each a normal float64, so that the scaling stays exact.
    half = exponent // 2
    return weights * 2.0**-half * 2.0 ** -(exponent - half)


def check_group_weights(groups, weights):
    """Raise for groups whose rows all have weight zero (``weights`` None passes)."""
    if weights is None:
        return
    empty = np.flatnonzero(groups.counts(weights) <= 0)
    if empty.size:
        labels = [groups.labels[g] for g in empty[:10]]
        raise ValueError(
            f"Groups {labels} have a total sample_weight of zero: none of their rows counts. "
            "Give them positive weights or leave their rows out of the data."
        )


def plain_array_checked(estimator, X, *, reset):
    """``X`` itself when it is a non-empty 2-D numpy array of booleans, integers or floats,
    after the checks ``validate_data(estimator, X, reset=reset)`` makes of such an array (its
    feature names and number of columns); None for anything else, which the caller
    validates with ``validate_data``.

    On such an array scikit-learn's ``check_array`` returns it unchanged, but first looks for
    a dataframe library behind it, which costs more than a small fit's own work. An array
    has no feature names: only an estimator fitted on a DataFrame (or refitted after one)
    needs scikit-learn's check of them, which warns or forgets them as it always does.
    """
    if type(X) is not np.ndarray or X.ndim != 2 or X.dtype.kind not in "biuf" or 0 in X.shape:
        return None
    if hasattr(estimator, "feature_names_in_"):
        _check_feature_names(estimator, X, reset=reset)
    _check_n_features(estimator, X, reset=reset)
    return X
