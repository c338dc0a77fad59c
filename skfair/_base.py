"""The plumbing shared by skfair's meta-estimators, written once.

- the fit preamble: :func:`check_meta_input` (X), :func:`resolve_sensitive` (the two modes of
  sensitive features), :func:`meta_model_input` (the two in turn), :func:`require_y`,
  :func:`group_codes` / :func:`fit_groups` / :func:`encode_groups` (group codes, and "no
  sensitive features" as one group named ``"all"``), :func:`meta_input_tags` (the input tags
  that follow the wrapped model's);
- metadata: :func:`route_fit_params`, the fit parameters of the wrapped model and of ``cv``
  with and without metadata routing, and :func:`fit_routing`, the router that sends them;
- dask: :data:`FIT_IN_MEMORY` (the refusal of a fit that trains a model on all rows),
  :func:`lazy_method` (predictions block by block) and the ``score`` methods of
  :class:`AccuracyScoreMixin` and :class:`GroupAccuracyScoreMixin`, exact on dask input.

On dask input, a fitted estimator is small: its prediction methods apply it to each block of
rows in memory and return a lazy dask array (:func:`lazy_method`, the shape of dask-ml's
``ParallelPostFit``); nothing is computed until the result is. An estimator whose output
depends on the row's position in the data (row-keyed random numbers) provides
``_at_row_offset(row_offset)``, a copy of itself for rows that start at that position, so
that every block is treated exactly as inside the whole data.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import replace
from inspect import Parameter, signature

import numpy as np
from scipy.sparse import issparse
from sklearn.metrics import accuracy_score
from sklearn.utils import Bunch, assert_all_finite, get_tags
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping
from sklearn.utils.validation import check_is_fitted

from skfair._dask import (
    align,
    map_row_blocks,
    reduce_arguments,
    reduce_blocks,
    refuse,
    uses_dask,
)
from skfair._dask._columns import as_numpy
from skfair._stats._table import DistinctRows
from skfair._utils._compat import _routing_enabled, process_routing, validate_data
from skfair._utils._docstrings import with_parts
from skfair._utils._frames import as_supported_frame, refuse_dask
from skfair._utils._groups import factorize_groups, rows_from, split_sensitive_column
from skfair._utils._validation import plain_array_checked

# The one group of an estimator fitted without sensitive features.
NO_GROUPS = ["all"]


def _model_allows_nan(model, tags=None):
    """Whether X may hold NaN for the wrapped ``model`` (whose ``tags`` may be given).

    A Pipeline's own tag says nothing about its steps (an imputer or a column transformer may
    handle NaN), so a pipeline is trusted to check X itself.
    """
    if hasattr(model, "steps"):
        return True
    return (get_tags(model) if tags is None else tags).input_tags.allow_nan


def meta_input_tags(tags, model, sensitive_column):
    """``tags`` of a meta-estimator that passes X on to ``model``, with the input tags set:
    sparse X and NaN as ``model`` takes them, strings when the sensitive attributes are
    columns of X (``sensitive_column``)."""
    model_tags = get_tags(model)
    tags.input_tags.sparse = model_tags.input_tags.sparse
    tags.input_tags.allow_nan = _model_allows_nan(model, model_tags)
    tags.input_tags.string = sensitive_column is not None
    return tags


def check_meta_input(meta, X, model, *, reset):
    """Validate X for a meta-estimator ``meta`` that passes it on to a wrapped ``model``.

    The single input check of skfair's meta-estimators. A DataFrame goes to the model as it is
    (its columns may hold strings or categories that the model, often a pipeline, encodes): it
    must be 2-D and non-empty, and its column names are recorded at fit (``reset=True``) and
    checked afterwards, like ``feature_names_in_`` everywhere in scikit-learn. Anything else
    becomes a 2-D, non-empty array (or CSR/CSC matrix, when ``meta``'s ``sparse`` tag allows
    it) with its values unconverted (``dtype=None``), holding no NaN or infinity unless the
    model accepts NaN. The number of columns is recorded and checked in both cases.

    Dataframes of other libraries (polars, pyarrow, a polars LazyFrame, which is collected)
    become pandas first (:func:`skfair._utils._frames.as_supported_frame`), so that their column
    names serve ``sensitive_column`` and ``feature_names_in_`` as a pandas DataFrame's do.

    Returns X, validated.
    """
    refuse_dask(X=X)
    X = as_supported_frame(X)
    if hasattr(X, "iloc"):
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(
                f"X must be a non-empty 2-D DataFrame, got shape {X.shape}; "
                f"{type(meta).__name__} needs at least one row and one column."
            )
        validate_data(meta, X, reset=reset, skip_check_array=True)
        return X
    checked = plain_array_checked(meta, X, reset=reset)
    if checked is not None and _surely_finite(checked):
        return checked
    # The tags are read only where they decide (a sparse X; values that are not finite): a
    # frozen model's tags are a deep copy of its model's, which costs more than checking a
    # small X.
    sparse_ok = issparse(X) and get_tags(meta).input_tags.sparse
    X = validate_data(
        meta,
        X,
        reset=reset,
        accept_sparse=["csr", "csc"] if sparse_ok else False,
        dtype=None,
        ensure_all_finite=False,
    )
    if not _surely_finite(X) and not _model_allows_nan(model):
        assert_all_finite(X, estimator_name=type(meta).__name__, input_name="X")
    return X


def _surely_finite(X):
    """Whether the values of a validated X are all finite numbers (False when unsure)."""
    values = X.data if issparse(X) else X
    if values.dtype.kind in "biu":
        return True
    if values.dtype.kind in "fc":
        with np.errstate(over="ignore", invalid="ignore"):
            return bool(np.isfinite(values.sum()))  # a NaN or an infinity makes the sum one
    return False


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


def meta_model_input(meta, X, sensitive_features, *, reset):
    """``(sensitive_features, X_for_the_model)`` of a meta-estimator's X: X checked by
    :func:`check_meta_input` (against ``meta.estimator``), then split by
    :func:`resolve_sensitive` in ``meta``'s ``sensitive_column`` mode."""
    X = check_meta_input(meta, X, meta.estimator, reset=reset)
    return resolve_sensitive(X, sensitive_features, meta.sensitive_column, drop=meta.drop_sensitive)


def record_input_columns(owner, X):
    """Set ``n_features_in_`` (and ``feature_names_in_``) from a dask collection's metadata."""
    meta = X._meta if hasattr(X, "columns") else np.empty((0, X.shape[1]))
    validate_data(owner, meta, skip_check_array=True, reset=True)


def labels_and_groups(owner, X, y, sample_weight, sensitive_features, *, weight_squares=False):
    """First pass of a fit on dask collections: the table of distinct (label, sensitive
    values) rows with their weights.

    Returns ``(y, sensitive, weights, table)``: the table's rows (in memory), on which the
    in-memory checks of the target and the groups run, and the
    :class:`~skfair._stats._table.FrequencyTable` itself (its ``sums`` hold each row's sum of
    squared weights with ``weight_squares`` and weights).
    """
    if owner.sensitive_column is not None:
        if sensitive_features is not None:
            resolve_sensitive(X, sensitive_features, owner.sensitive_column)  # raises
        sensitive_features, _ = split_sensitive_column(X, owner.sensitive_column)
    arguments = {"y": y, "sensitive_features": sensitive_features, "sample_weight": sample_weight}
    table = reduce_arguments(
        arguments, ("y", "sensitive_features", "sample_weight"), weight_squares=weight_squares
    )
    return arguments["y"], arguments["sensitive_features"], arguments["sample_weight"], table


def require_y(owner, y):
    """Raise the error of a meta-estimator whose ``fit`` got no target."""
    if y is None:
        raise ValueError(
            f"{type(owner).__name__} requires y to be passed, but the target y is None."
        )


def group_codes(sensitive, n_samples):
    """``(codes, labels, groups)`` of the fitting rows: the group code of each row, the group
    labels and the :class:`~skfair._utils._groups.GroupEncoding`.

    Without sensitive values every row is in one group, labelled ``"all"``, and ``groups`` is
    None.
    """
    if sensitive is None:
        return np.zeros(n_samples, dtype=np.intp), list(NO_GROUPS), None
    groups = factorize_groups(sensitive, n_samples=n_samples)
    return groups.codes, groups.labels, groups


def new_row_encoding(groups):
    """What :func:`encode_groups` needs of ``groups`` to encode new rows: the encoding
    without the fitting rows' codes (None for None, one group)."""
    if groups is None:
        return None
    empty = np.empty((0, groups.n_attributes), dtype=np.intp)
    return replace(groups, codes=empty[:, 0], attribute_codes=empty)


def fit_groups(sensitive, n_samples):
    """``(codes, labels, encoding)`` of the fitting rows' groups.

    Without sensitive values every row is in one group, labelled ``"all"``, and the encoding
    is None. Otherwise the encoding keeps only what :func:`encode_groups` needs to encode new
    rows (not the fitting rows' codes).
    """
    codes, labels, groups = group_codes(sensitive, n_samples)
    return codes, labels, new_row_encoding(groups)


def encode_groups(owner, encoding, sensitive, n_samples, *, method="predict"):
    """Group codes of new rows with the ``encoding`` of :func:`fit_groups`.

    Sensitive values are required exactly when the owner was fitted with them.
    """
    if encoding is None:
        if sensitive is not None:
            raise ValueError(
                f"{type(owner).__name__} was fitted without sensitive features; do not pass "
                f"them to {method} (or refit with them)."
            )
        return np.zeros(n_samples, dtype=np.intp)
    if sensitive is None:
        raise ValueError(
            f"{type(owner).__name__} was fitted with sensitive features: pass "
            f"sensitive_features= to {method} (or use sensitive_column=)."
        )
    return encoding.encode(sensitive, n_samples=n_samples)


def fit_takes_weights(estimator):
    """Whether ``estimator.fit`` has a ``sample_weight`` parameter."""
    return "sample_weight" in signature(estimator.fit).parameters


def route_fit_params(
    owner, fit_params, *, sample_weight=None, sensitive_features=None, weights_to_model=True
):
    """The parameters of the wrapped model's ``fit`` (and of ``cv``'s ``split``).

    With metadata routing enabled, scikit-learn's :func:`process_routing` of ``owner``'s fit
    (``sample_weight`` and ``sensitive_features`` are offered to the children that request
    them). Without, ``fit_params`` go to the model, and ``sample_weight`` too when its
    ``fit`` takes it. ``weights_to_model=False`` keeps ``sample_weight`` from the model in
    both cases: the owner passes weights of its own.

    Returns a Bunch like :func:`process_routing`'s: ``.estimator.fit`` and ``.splitter.split``.
    """
    if _routing_enabled():
        routed = process_routing(
            owner,
            "fit",
            sample_weight=sample_weight,
            sensitive_features=sensitive_features,
            **fit_params,
        )
        model = dict(routed.estimator.fit)
        split = dict(routed.splitter.split) if "splitter" in routed else {}
    else:
        model, split = dict(fit_params), {}
        if sample_weight is not None and fit_takes_weights(owner.estimator):
            model["sample_weight"] = sample_weight
    if not weights_to_model:
        model.pop("sample_weight", None)
    return Bunch(estimator=Bunch(fit=model), splitter=Bunch(split=split))


def fit_routing(owner, mapping=None):
    """The metadata router of a meta-estimator that consumes its own requests
    (``sensitive_features``, ``sample_weight``, ...) and routes the other metadata of a method
    to ``owner.estimator``: ``mapping``, by default ``fit`` to ``fit``."""
    mapping = MethodMapping().add(caller="fit", callee="fit") if mapping is None else mapping
    return (
        MetadataRouter(owner=owner)
        .add_self_request(owner)
        .add(estimator=owner.estimator, method_mapping=mapping)
    )


def warn_no_sensitive_features(owner):
    """Warn that fitting without sensitive features makes a repair the identity."""
    warnings.warn(
        f"{type(owner).__name__} was fitted without sensitive features (neither "
        "sensitive_features= nor sensitive_column=): all samples form one group and the repair "
        "is the identity.",
        UserWarning,
        stacklevel=3,
    )


# The fit of a meta-estimator trains its model on all rows.
FIT_IN_MEMORY = refuse(
    "the model is trained on all rows (a scikit-learn estimator fits in memory).",
    "Fit it on an in-memory sample (e.g. ddf.sample(frac=0.1).compute()), or wrap a model "
    "fitted elsewhere in FrozenEstimator and fit on in-memory calibration rows; the "
    "prediction methods and score then accept dask input, block by block.",
)
# The same fit with a model already fitted (FrozenEstimator): nothing is trained, but the rule
# is fitted on every calibration row's response.
FROZEN_FIT_IN_MEMORY = refuse(
    "its rule is fitted on the model's response of every calibration row, in memory.",
    "Fit it on an in-memory calibration sample (e.g. ddf.sample(frac=0.1).compute()); the "
    "prediction methods and score then accept dask input, block by block.",
)


def refuse_dask_fit(estimator, *arguments):
    """Refuse a meta-estimator's ``fit`` on dask ``arguments``, for the reason that holds:
    its model would train on all rows, or (a ``FrozenEstimator``) its rule needs every
    calibration row's response."""
    from sklearn.frozen import FrozenEstimator

    frozen = isinstance(estimator.estimator, FrozenEstimator)
    refusal = FROZEN_FIT_IN_MEMORY if frozen else FIT_IN_MEMORY
    refusal.check(f"{type(estimator).__name__}.fit", *arguments)


def lazy_method(estimator, method, X, sensitive_features, *, trailing_shape=(), dtype):
    """Lazy ``estimator.method(X, sensitive_features=...)`` of dask input, block by block."""
    check_is_fitted(estimator)
    return map_row_blocks(
        _method_block,
        [X, sensitive_features],
        trailing_shape=trailing_shape,
        dtype=dtype,
        estimator=estimator,
        method=method,
    )


def _method_block(X, sensitive_features, *, row_offset, estimator, method):
    at_offset = getattr(estimator, "_at_row_offset", None)
    if at_offset is not None:
        estimator = at_offset(row_offset)
    # Models that predict without the sensitive attribute take X alone.
    kwargs = {} if sensitive_features is None else {"sensitive_features": sensitive_features}
    with rows_from(row_offset):
        return getattr(estimator, method)(X, **kwargs)


# The parts of the score methods' docstrings that the two mixins share.
_with_score_parts = with_parts(
    {
        "accuracy_parameters": """\
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Samples.
y : array-like of shape (n_samples,)
    True labels.
sample_weight : array-like of shape (n_samples,), default=None
    Sample weights; None weighs every sample equally.""",
        "accuracy_returns": """\
Returns
-------
score : float
    Accuracy of ``predict(X)`` against ``y`` (weighted by ``sample_weight``); on dask
    collections, exact from the summed weights of right and wrong predictions.""",
    }
)


@_with_score_parts
class AccuracyScoreMixin:
    """``score``: the accuracy of ``predict``, exact on dask input (summed over partitions)."""

    def score(self, X, y, sample_weight=None):
        """Accuracy of :meth:`predict` on ``(X, y)``.

        {accuracy_parameters}

        {accuracy_returns}
        """
        return _accuracy(y, self.predict(X), sample_weight)


@_with_score_parts
class GroupAccuracyScoreMixin:
    """``score`` of an estimator whose ``predict`` takes ``sensitive_features``."""

    def score(self, X, y, sample_weight=None, *, sensitive_features=None):
        """Accuracy of :meth:`predict` on ``(X, y)``.

        {accuracy_parameters}
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when ``sensitive_column`` is not set.

        {accuracy_returns}
        """
        return _accuracy(y, self.predict(X, sensitive_features=sensitive_features), sample_weight)


def _accuracy(y, y_pred, sample_weight):
    if uses_dask(y_pred, y, sample_weight):
        return accuracy_on_dask(y, y_pred, sample_weight)
    return float(accuracy_score(y, y_pred, sample_weight=sample_weight))


def accuracy_on_dask(y, y_pred, sample_weight=None):
    """Accuracy of lazy predictions: the weight of the right and of the wrong predictions,
    summed over the partitions (a table of two rows)."""
    columns = [y, y_pred] + ([] if sample_weight is None else [sample_weight])
    table = reduce_blocks(DistinctRows(("correct",)), align(columns), _correct_chunk)
    weights = table.sample_weight()
    return float(weights[table.keys[0]].sum() / weights.sum())


def _correct_chunk(statistic, y, y_pred, sample_weight=None):
    y, y_pred = as_numpy(y), as_numpy(y_pred)
    weights = None if sample_weight is None else as_numpy(sample_weight).astype(np.float64)
    return statistic.chunk([np.asarray(y == y_pred, dtype=bool)], weights)


def other_library_names(*, parameters=None, method_keywords=None, attributes=None):
    """Class decorator: the names another library's users reach for get an error naming ours.

    A user coming from fairlearn writes ``constraints=``, ``prefit=True``,
    ``predict(X, random_state=0)`` or ``_pmf_predict``; Python's own errors ("unexpected
    keyword argument", "takes 2 positional arguments") do not say what to write instead.

    Parameters
    ----------
    parameters : dict, default=None
        ``{keyword of __init__: what to do instead}``; passing more positional arguments than
        ``__init__`` takes gets the same treatment, the hint for ``None`` naming the keyword
        parameters. A hint (here and in ``method_keywords``) is a string, or a function of
        the value passed that returns one (e.g. to translate fairlearn's constraint object
        into our parameters); for ``None``, of the first extra positional argument.
    method_keywords : dict, default=None
        ``{method name: {keyword: what to do instead}}``.
    attributes : dict, default=None
        ``{attribute: what to do instead}``, raised as an AttributeError.

    The wrapped methods keep their signature (``inspect.signature`` follows ``__wrapped__``),
    so scikit-learn's parameter and metadata introspection sees the class unchanged.
    """
    parameters = parameters or {}
    method_keywords = method_keywords or {}
    attributes = attributes or {}

    def decorate(cls):
        cls.__init__ = _refusing(cls, cls.__init__, "__init__", parameters)
        for method, keywords in method_keywords.items():
            setattr(cls, method, _refusing(cls, getattr(cls, method), method, keywords))
        if attributes:
            previous = cls.__dict__.get("__getattr__")

            def __getattr__(self, name):
                if name in attributes:
                    raise AttributeError(
                        f"{cls.__name__} has no attribute {name!r}: {attributes[name]}"
                    )
                if previous is not None:
                    return previous(self, name)
                raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")

            cls.__getattr__ = __getattr__
        return cls

    return decorate


def _refusing(cls, method, name, keywords):
    positional = [
        p
        for p in signature(method).parameters.values()
        if p.kind in (Parameter.POSITIONAL_ONLY, Parameter.POSITIONAL_OR_KEYWORD)
    ]
    shown = f"{cls.__name__}()" if name == "__init__" else f"{cls.__name__}.{name}"

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        foreign = [keyword for keyword in kwargs if keyword in keywords]
        if foreign:
            hint = _hint(keywords[foreign[0]], kwargs[foreign[0]])
            raise TypeError(f"{shown} got an unexpected keyword argument {foreign[0]!r}: {hint}")
        if len(args) > len(positional) and None in keywords:
            raise TypeError(
                f"{shown} takes {len(positional) - 1} positional argument(s) but "
                f"{len(args) - 1} were given: {_hint(keywords[None], args[len(positional)])}"
            )
        return method(*args, **kwargs)

    return wrapper


def _hint(hint, value):
    """The text of a hint of :func:`other_library_names`: itself, or its value at ``value``."""
    return hint(value) if callable(hint) else hint
