"""The private scikit-learn utilities skfair relies on, imported in one place.

scikit-learn's parameter validation and ``_fit_context`` are private. Importing them here
means a rename upstream breaks one file, not every estimator.
"""

from sklearn.base import _fit_context
from sklearn.utils._param_validation import (
    HasMethods,
    Integral,
    Interval,
    Real,
    StrOptions,
    validate_params,
)
from sklearn.utils.metadata_routing import _raise_for_params, _routing_enabled, process_routing
from sklearn.utils.validation import _check_feature_names_in, validate_data

# threadpoolctl is a requirement of scikit-learn itself, so it is always installed.
from threadpoolctl import threadpool_limits

__all__ = [
    "HasMethods",
    "Integral",
    "Interval",
    "Real",
    "StrOptions",
    "_check_feature_names_in",
    "_fit_context",
    "_raise_for_params",
    "_routing_enabled",
    "process_routing",
    "threadpool_limits",
    "validate_data",
    "validate_params",
]
