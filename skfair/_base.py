"""Pieces shared by skfair's estimators."""

from __future__ import annotations

import warnings

from sklearn.utils import get_tags

from skfair._compat import validate_data
from skfair._groups import split_sensitive_column


def _model_allows_nan(model):
    """Whether X may hold NaN for the wrapped ``model``.

    A Pipeline's own tag says nothing about its steps (an imputer or a column transformer may
    handle NaN), so a pipeline is trusted to check X itself.
    """
    return hasattr(model, "steps") or get_tags(model).input_tags.allow_nan


def check_meta_input(meta, X, model, *, reset):
    """Validate X for a meta-estimator ``meta`` that passes it on to a wrapped ``model``.

    The single input check of skfair's meta-estimators. A DataFrame goes to the model as it is
    (its columns may hold strings or categories that the model, often a pipeline, encodes): it
    must be 2-D and non-empty, and its column names are recorded at fit (``reset=True``) and
    checked afterwards, like ``feature_names_in_`` everywhere in scikit-learn. Anything else
    becomes a 2-D, non-empty array (or CSR/CSC matrix, when ``meta``'s ``sparse`` tag allows
    it) with its values unconverted (``dtype=None``), holding no NaN or infinity unless the
    model accepts NaN. The number of columns is recorded and checked in both cases.

    Returns X, validated.
    """
    if hasattr(X, "iloc"):
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(
                f"X must be a non-empty 2-D DataFrame, got shape {X.shape}; "
                f"{type(meta).__name__} needs at least one row and one column."
            )
        validate_data(meta, X, reset=reset, skip_check_array=True)
        return X
    return validate_data(
        meta,
        X,
        reset=reset,
        accept_sparse=["csr", "csc"] if get_tags(meta).input_tags.sparse else False,
        dtype=None,
        ensure_all_finite=not _model_allows_nan(model),
    )


def resolve_sensitive(X, sensitive_features, sensitive_column, *, drop=True):
    """Return ``(sensitive_features, X_for_the_model)`` in either of the two modes.

    With ``sensitive_column`` set the sensitive values are read from X (and removed from the
    returned X when ``drop``); passing ``sensitive_features`` as well is ambiguous and raises.
    """
    if sensitive_column is None:
        return sensitive_features, X
    if sensitive_features is not None:
        raise ValueError(
            f"Both sensitive_column={sensitive_column!r} and sensitive_features were given; "
            "pass one or the other."
        )
    sensitive, rest = split_sensitive_column(X, sensitive_column)
    return sensitive, (rest if drop else X)


def warn_no_sensitive_features(owner):
    """Warn that fitting without sensitive features makes a repair the identity."""
    warnings.warn(
        f"{type(owner).__name__} was fitted without sensitive features (neither "
        "sensitive_features= nor sensitive_column=): all samples form one group and the repair "
        "is the identity.",
        UserWarning,
        stacklevel=3,
    )
