"""Reweighing (Kamiran & Calders 2012): weights that make the label independent of the groups.

Every sample of group ``a`` with label ``y`` gets the weight ``P(A=a) P(Y=y) / P(A=a, Y=y)``;
in the weighted data ``A`` and ``Y`` are then independent, exactly. The probabilities are read
from one weighted count table of group x class (:func:`~skfair._stats._counts.class_table`),
so the weights of a dask collection come from the sum of its partitions' tables.
"""

from __future__ import annotations

from inspect import signature

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils.metadata_routing import get_routing_for_object
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from skfair._base import (
    AccuracyScoreMixin,
    fit_routing,
    lazy_method,
    meta_input_tags,
    meta_model_input,
    require_y,
    route_fit_params,
)
from skfair._dask import check_in_memory, is_dask_collection, uses_dask
from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    SENSITIVE_COLUMN_CONSTRAINT,
    SENSITIVE_FEATURES_CONSTRAINT,
    HasMethods,
    StrOptions,
    _fit_context,
    _routing_enabled,
    validate_params,
)
from skfair._utils._groups import factorize_groups
from skfair._utils._random import check_generator, draw_seed
from skfair._utils._validation import (
    check_labels,
    check_weights,
    finite_sum_weights,
    scale_free_weights,
    vector_1d,
)
from skfair.preprocessing._docs import documented
from skfair.preprocessing._weights import reweighing_factors, reweighing_weights_on_dask


@validate_params(
    {
        "y": ["array-like"],
        "sensitive_features": SENSITIVE_FEATURES_CONSTRAINT,
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def reweighing_weights(y, *, sensitive_features, sample_weight=None):
    """Kamiran & Calders' reweighing: sample weights under which groups and labels are independent.

    A sample of group ``a`` with label ``y`` gets ``w(a, y) = P(A=a) P(Y=y) / P(A=a, Y=y)``,
    times its own ``sample_weight`` when given (the probabilities are then weighted too). In
    the reweighed data every group has the same label distribution: a classifier trained on it
    does not learn the dependence of the labels on the group from the label frequencies alone.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels (two classes or more).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
        Sensitive attribute(s); several attributes give intersectional groups (each observed
        combination of values is a group), any number of groups.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples (e.g. survey weights), combined with the reweighing factors.

    Returns
    -------
    weights : ndarray of shape (n_samples,)
        The reweighed sample weights; their sum is the sum of ``sample_weight`` (the number of
        samples without it). On a dask collection, a lazy dask array computed from the sum of
        the partitions' group x class count tables: exactly the in-memory weights.

    See Also
    --------
    ReweighingClassifier : Fit a classifier on the reweighed data.

    Notes
    -----
    The weighted share of cell ``(a, y)`` is ``P(A=a, Y=y) w(a, y) = P(A=a) P(Y=y)``: the
    weighted joint distribution is the product of its margins, which are the original ones.
    A group that has no sample of some class keeps that zero cell (no weight can create
    samples), so its label distribution cannot be made equal to the others'; a warning names
    it.

    References
    ----------
    F. Kamiran and T. Calders, "Data preprocessing techniques for classification without
    discrimination", Knowledge and Information Systems 33(1), 2012, section 4.2.

    Examples
    --------
    >>> from skfair.preprocessing import reweighing_weights
    >>> y = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> group = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> reweighing_weights(y, sensitive_features=group)
    array([0.66666667, 0.66666667, 0.66666667, 2.        , 2.        ,
           0.66666667, 0.66666667, 0.66666667])
    """
    if any(is_dask_collection(value) for value in (y, sensitive_features, sample_weight)):
        return reweighing_weights_on_dask(y, sensitive_features, sample_weight)
    y = check_labels(y, "y")
    n_samples = y.shape[0]
    groups = factorize_groups(sensitive_features, n_samples=n_samples)
    # The factors depend on the weights' ratios only; the output carries their scale.
    weights = check_weights(sample_weight, n_samples, keep_scale=True)
    classes, y_codes = np.unique(y, return_inverse=True)
    factors = reweighing_factors(groups, y_codes.reshape(-1), classes, scale_free_weights(weights))
    out = factors[groups.codes, y_codes.reshape(-1)]
    return out if weights is None else out * weights


# --------------------------------------------------------------------------------------------
# the meta-estimator


def _model_has(method):
    """``available_if`` check: the fitted model (before fit, the model to fit) has ``method``."""
    return lambda self: hasattr(getattr(self, "estimator_", self.estimator), method)


def _model_method(method, summary, returned, *, binary_one_column=False):
    """The :class:`ReweighingClassifier` method ``method``: the fitted model's own (see
    ``_model_scores``), there when the model has it; one definition serves the three score
    methods, which differ only in their name, summary and returned value."""

    def model_method(self, X):
        return self._model_scores(method, X, binary_one_column=binary_one_column)

    model_method.__name__ = method
    model_method.__qualname__ = f"ReweighingClassifier.{method}"
    model_method.__doc__ = f"""{summary}

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        {returned}
            On a dask collection, a lazy dask array computed block by block.
        """
    return available_if(_model_has(method))(model_method)


@documented
class ReweighingClassifier(AccuracyScoreMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """A classifier trained on reweighed data: every group gets the same label distribution.

    ``fit`` computes :func:`reweighing_weights` from the labels and the sensitive features and
    fits a clone of ``estimator`` with them, as ``sample_weight`` when the estimator takes it,
    otherwise on a weighted resample of the rows. The fitted model is an ordinary one:
    ``predict`` needs no sensitive attribute.

    Parameters
    ----------
    estimator : classifier
        The model to train on the reweighed data.
    sensitive_column : str, int or list of them, default=None
        Column(s) of X holding the sensitive features, instead of passing
        ``sensitive_features=`` to ``fit``. They are removed from X before the model sees it
        (unless ``drop_sensitive=False``), at fit and at predict time.
    drop_sensitive : bool, default=True
        Whether to remove ``sensitive_column`` from X before the model.
    resample : "auto" or bool, default="auto"
        How the weights reach the model. ``"auto"``: as ``sample_weight`` when the model's
        ``fit`` takes it (a :class:`~sklearn.pipeline.Pipeline` when its final step does),
        else by resampling. ``True``: always resample; ``False``: always pass weights (an
        error if the model cannot take them).
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the resampling; unused when the weights are passed as ``sample_weight``.

    Attributes
    ----------
    estimator_ : classifier
        The model fitted on the reweighed data.
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    groups_ : list
        Label of each group (a tuple of values for several attributes).
    weights_ : ndarray of shape (n_groups, n_classes)
        The reweighing factor ``P(a) P(y) / P(a, y)`` of each group and class.
    resampled_ : bool
        Whether the model was fitted on a resample (rather than with ``sample_weight``).
    {columns_in}

    See Also
    --------
    reweighing_weights : The weights themselves.
    FeatureRepair, CorrelationRemover : Repair the features instead of the label frequencies.

    Notes
    -----
    **Resampling** keeps the number of rows. Each row is drawn about ``n w_i / sum(w)``
    times: the rows are put in random order within each (group, class) cell and drawn by
    systematic sampling, so a row appears ``floor`` or ``ceil`` of its expected count and every
    cell gets its expected size up to rounding (Kamiran & Calders' uniform sampling, with
    weights). Groups and labels are then independent in the resample up to one row per cell.

    **Without sensitive features** every row is in one group: the weights are the given
    ``sample_weight`` (or none) and the model is fitted as it is.

    References
    ----------
    F. Kamiran and T. Calders, "Data preprocessing techniques for classification without
    discrimination", Knowledge and Information Systems 33(1), 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.preprocessing import ReweighingClassifier
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 2000)
    >>> X = np.c_[rng.normal(size=2000), group]
    >>> y = (X[:, 0] + 1.5 * group + rng.normal(size=2000) > 1).astype(int)
    >>> plain = LogisticRegression().fit(X[:, :1], y)
    >>> fair = ReweighingClassifier(LogisticRegression(), sensitive_column=1).fit(X, y)
    >>> def gap(model):
    ...     pred = model.predict(X[:, :1]) if model is plain else model.predict(X)
    ...     return abs(pred[group == 1].mean() - pred[group == 0].mean())
    >>> bool(gap(fair) < gap(plain))
    True
    """

    __metadata_request__fit = {"sensitive_features": True}

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"])],
        "sensitive_column": SENSITIVE_COLUMN_CONSTRAINT,
        "drop_sensitive": ["boolean"],
        "resample": [StrOptions({"auto"}), "boolean"],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(
        self,
        estimator,
        *,
        sensitive_column=None,
        drop_sensitive=True,
        resample="auto",
        random_state=None,
    ):
        self.estimator = estimator
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive
        self.resample = resample
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator validates itself
    def fit(self, X, y, sample_weight=None, *, sensitive_features=None, **fit_params):
        """Fit the model on the reweighed data.

        {parameters_X_fit}
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples, multiplied by the reweighing factors.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when ``sensitive_column`` is not set. None (and no
            ``sensitive_column``) means one group: no reweighing.
        **fit_params : dict
            Passed to the model's ``fit`` (routed to it with metadata routing enabled).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        check_in_memory(
            "ReweighingClassifier.fit",
            X,
            y,
            sensitive_features,
            hint="Compute the weights of the dask data with reweighing_weights (exact, from "
            "the partitions' count tables) and pass them to a model that trains on dask "
            "collections (e.g. dask-ml's), or fit on an in-memory sample.",
        )
        sensitive, X_model = meta_model_input(self, X, sensitive_features, reset=True)
        require_y(self, y)
        check_classification_targets(y)
        y = vector_1d(y)
        n_samples = y.shape[0]
        # The model gets the user's weights on their own scale (its regularisation may
        # depend on it); the factors depend on their ratios only.
        user_weights = check_weights(sample_weight, n_samples, keep_scale=True)
        params = route_fit_params(
            self,
            fit_params,
            sample_weight=sample_weight,
            sensitive_features=sensitive_features,
            weights_to_model=False,
        ).estimator.fit
        classes, y_codes = np.unique(y, return_inverse=True)
        y_codes = y_codes.reshape(-1)
        if sensitive is None:
            weights, cells = user_weights, y_codes
            self.groups_, self.weights_ = [None], np.ones((1, classes.shape[0]))
        else:
            groups = factorize_groups(sensitive, n_samples=n_samples)
            self.weights_ = reweighing_factors(
                groups, y_codes, classes, scale_free_weights(user_weights)
            )
            self.groups_ = groups.labels
            factors = self.weights_[groups.codes, y_codes]
            weights = factors if user_weights is None else factors * user_weights
            cells = groups.codes * classes.shape[0] + y_codes
        weight_parameter = _weight_parameter(self.estimator)
        if self.resample is False and weight_parameter is None:
            raise ValueError(
                f"resample=False, but {type(self.estimator).__name__}.fit takes no "
                "sample_weight; use resample='auto' to resample the rows instead (or, with "
                "metadata routing, request sample_weight on the model)."
            )
        self.resampled_ = self.resample is True or weight_parameter is None
        self.estimator_ = clone(self.estimator)
        if weights is None:
            self.estimator_.fit(X_model, y, **params)
        elif self.resampled_:
            rng = check_generator(draw_seed(self.random_state))
            rows = _systematic_resample(weights, cells, rng)
            self.estimator_.fit(_take_rows(X_model, rows), y[rows], **_take_params(params, rows))
        else:
            self.estimator_.fit(X_model, y, **{weight_parameter: weights}, **params)
        return self

    def _model_input(self, X):
        check_is_fitted(self)
        return meta_model_input(self, X, None, reset=False)[1]

    def _model_scores(self, method, X, *, binary_one_column=False):
        """The fitted model's ``method`` (probabilities or decision values) on X; on a dask
        collection, a lazy dask array computed block by block, with a column per class (one
        column for two classes when ``binary_one_column``)."""
        if uses_dask(X):
            check_is_fitted(self)
            n_classes = len(self.classes_)
            shape = () if binary_one_column and n_classes == 2 else (n_classes,)
            return lazy_method(self, method, X, None, trailing_shape=shape, dtype=float)
        X_model = self._model_input(X)
        return getattr(self.estimator_, method)(X_model)

    @property
    def classes_(self):
        """Class labels of the fitted model."""
        return self.estimator_.classes_

    def predict(self, X):
        """Predict class labels; no sensitive attribute is needed.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (with the sensitive column(s) when ``sensitive_column`` is set; they are
            dropped before the model unless ``drop_sensitive=False``).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            On a dask collection, a lazy dask array computed block by block.
        """
        if uses_dask(X):
            return lazy_method(self, "predict", X, None, dtype=self.classes_.dtype)
        X_model = self._model_input(X)
        return self.estimator_.predict(X_model)

    predict_proba = _model_method(
        "predict_proba",
        "Class probabilities of the model.",
        "proba : ndarray of shape (n_samples, n_classes)",
    )
    predict_log_proba = _model_method(
        "predict_log_proba",
        "Log class probabilities of the model.",
        "log_proba : ndarray of shape (n_samples, n_classes)",
    )
    decision_function = _model_method(
        "decision_function",
        "Decision function of the model.",
        "decision : ndarray of shape (n_samples,) or (n_samples, n_classes)",
        binary_one_column=True,
    )

    def get_metadata_routing(self):
        """Get metadata routing of this object.

        Returns
        -------
        routing : MetadataRouter
            ``sensitive_features`` (and ``sample_weight``, combined with the reweighing
            factors) are consumed here; other fit metadata go to the model's ``fit``.
        """
        return fit_routing(self)

    def __sklearn_tags__(self):
        return meta_input_tags(super().__sklearn_tags__(), self.estimator, self.sensitive_column)


# --------------------------------------------------------------------------------------------
# small pure helpers


def _weight_parameter(estimator):
    """The keyword under which ``estimator.fit`` takes sample weights, or None.

    With metadata routing, the model's own request decides (as in scikit-learn's bagging);
    without, its ``fit`` signature, or for a Pipeline its final step's (``step__sample_weight``).
    """
    if _routing_enabled():
        consumed = get_routing_for_object(estimator).consumes("fit", ("sample_weight",))
        return "sample_weight" if consumed else None
    if "sample_weight" in signature(estimator.fit).parameters:
        return "sample_weight"
    steps = getattr(estimator, "steps", None)
    if steps and steps[-1][1] not in (None, "passthrough"):
        name, final = steps[-1]
        if "sample_weight" in signature(final.fit).parameters:
            return f"{name}__sample_weight"
    return None


def _systematic_resample(weights, cells, rng):
    """Row indices of a resample of ``n`` rows where row i appears about ``n w_i / sum(w)``
    times: systematic sampling over the rows in random order within their cell."""
    n_samples = weights.shape[0]
    order = np.lexsort((rng.random(n_samples), cells))
    expected = np.cumsum(finite_sum_weights(weights)[order])
    expected *= n_samples / expected[-1]
    points = rng.random() + np.arange(n_samples)
    positions = np.searchsorted(expected, points, side="right")
    return order[np.minimum(positions, n_samples - 1)]


def _take_rows(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _take_params(params, rows):
    """Per-sample fit parameters follow the resampled rows; others are kept."""
    n_samples = rows.shape[0]
    return {
        name: (
            _take_rows(np.asarray(value) if not hasattr(value, "iloc") else value, rows)
            if np.ndim(value) >= 1 and len(value) == n_samples
            else value
        )
        for name, value in params.items()
    }
