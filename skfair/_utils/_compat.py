"""The private scikit-learn utilities skfair relies on, imported in one place.

scikit-learn's parameter validation, ``_fit_context``, ``_get_response_values``,
``_check_sample_weight``, ``_safe_indexing`` and the other underscored names below are
private. Importing them here means a rename upstream breaks one file, not every estimator.
"""

import functools

import numpy as np
from sklearn.base import _fit_context
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils import _safe_indexing
from sklearn.utils._optional_dependencies import check_matplotlib_support as _check_matplotlib
from sklearn.utils._param_validation import (
    HasMethods,
    Integral,
    Interval,
    Real,
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)
from sklearn.utils._response import (
    _get_response_values,
    _process_decision_function,
    _process_predict_proba,
)
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.extmath import _approximate_mode
from sklearn.utils.metadata_routing import _raise_for_params, _routing_enabled, process_routing
from sklearn.utils.validation import (
    _check_feature_names,
    _check_feature_names_in,
    _check_method_params,
    _check_n_features,
    _check_response_method,
    _check_sample_weight,
    _num_samples,
    validate_data,
)

try:  # scipy >= 1.12
    from scipy.optimize import isotonic_regression as _scipy_isotonic_regression
except ImportError:  # pragma: no cover - older scipy
    _scipy_isotonic_regression = None
from sklearn.isotonic import isotonic_regression as _sklearn_isotonic_regression

# threadpoolctl is a requirement of scikit-learn itself, so it is always installed.
from threadpoolctl import ThreadpoolController


@functools.cache
def _blas_controller():
    return ThreadpoolController()


def one_blas_thread():
    """A context in which BLAS runs on one thread, for code made of many small products.

    BLAS threads only contend there, and on a loaded machine they stall: the multi-class
    rule's front of 21 tolerances took 0.7-1.1 s instead of 0.24-0.36 s under a load
    average of 4.5 on 2 cores. threadpoolctl's ``threadpool_limits`` looks up the loaded
    libraries on every call (milliseconds once scipy and scikit-learn are loaded); this
    controller looks them up once, at its first use, after numpy has loaded the BLAS it
    limits.
    """
    return _blas_controller().limit(limits=1, user_api="blas")


def install_hint(extra):
    """How to install one of skfair's extras: the README's instruction, from a checkout.

    Every error message about a missing optional package ends with it, so that there is one
    install instruction everywhere until the distribution is published.
    """
    return f'install the {extra} extra from the skfair checkout: python -m pip install ".[{extra}]"'


def check_matplotlib_support(caller_name):
    """Raise an ImportError naming skfair's ``plot`` extra when matplotlib is missing."""
    try:
        _check_matplotlib(caller_name)
    except ImportError as error:
        raise ImportError(f"{error}; or {install_hint('plot')}") from error


def increasing_isotonic_fit(y, weights):
    """The increasing isotonic regression of the float64 array ``y`` with ``weights``.

    scikit-learn's ``isotonic_regression`` calls scipy's (scipy >= 1.12) after validating
    its parameters, which costs more than the regression itself on the few hundred values of
    a group's ROC curve; the result is the same array.
    """
    if _scipy_isotonic_regression is None:  # pragma: no cover - older scipy
        return _sklearn_isotonic_regression(y, sample_weight=weights, increasing=True)
    return np.asarray(_scipy_isotonic_regression(y, weights=weights, increasing=True).x)


# The constraints of the sensitive-feature parameters, shared by every function and estimator:
# ``sensitive_features`` is an array-like (one column per attribute) or a dict of columns;
# ``sensitive_column`` names or positions the sensitive column(s) inside X.
# A lazy frame (polars LazyFrame, ...) is collected where it is read (skfair._utils._frames).
SENSITIVE_FEATURES_CONSTRAINT = ["array-like", dict, HasMethods(["collect"])]
SENSITIVE_COLUMN_CONSTRAINT = [str, Integral, list, tuple, None]
# ``random_state``: None, an int, a RandomState or a numpy Generator (see
# ``skfair._utils._validation.check_random_state``).
RANDOM_STATE_CONSTRAINT = ["random_state", np.random.Generator]

__all__ = [
    "RANDOM_STATE_CONSTRAINT",
    "SENSITIVE_COLUMN_CONSTRAINT",
    "SENSITIVE_FEATURES_CONSTRAINT",
    "HasMethods",
    "Integral",
    "Interval",
    "LinearClassifierMixin",
    "Real",
    "StrOptions",
    "_approximate_mode",
    "_check_feature_names",
    "_check_feature_names_in",
    "_check_n_features",
    "_check_response_method",
    "_check_sample_weight",
    "_get_output_config",
    "_check_method_params",
    "_get_response_values",
    "_num_samples",
    "_process_decision_function",
    "_process_predict_proba",
    "_fit_context",
    "_raise_for_params",
    "_routing_enabled",
    "_safe_indexing",
    "check_matplotlib_support",
    "increasing_isotonic_fit",
    "one_blas_thread",
    "process_routing",
    "validate_data",
    "validate_parameter_constraints",
    "validate_params",
]
