"""Pieces shared by skfair's estimators."""

from __future__ import annotations

import warnings

from skfair._groups import split_sensitive_column

_DOC_ROOT = "https://skfair.readthedocs.io/en/latest/generated"


class _SkfairEstimatorMixin:
    """Points the HTML repr's "?" link at skfair's documentation.

    scikit-learn fills the link only for its own modules unless these three attributes are set
    (``sklearn/utils/_repr_html/base.py``). The generator maps a private module such as
    ``skfair.postprocessing._barycenter`` to its public subpackage.
    """

    _doc_link_module = "skfair"
    _doc_link_template = _DOC_ROOT + "/{estimator_module}.{estimator_name}.html"

    def _doc_link_url_param_generator(estimator):
        module = ".".join(
            part for part in type(estimator).__module__.split(".") if not part.startswith("_")
        )
        return {"estimator_module": module, "estimator_name": type(estimator).__qualname__}


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
