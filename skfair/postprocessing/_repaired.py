"""Meta-estimators that repair a model's outputs: ``RepairedClassifier``, ``RepairedRegressor``.

They follow ``CalibratedClassifierCV``: the wrapped model is fitted (or taken as it is through
``FrozenEstimator``), its responses on the training data (in-sample, or out-of-fold with
``cv=``) fit a repair such as :class:`BarycenterRepair` or :class:`MADDRepair`, and every
response method returns repaired outputs.
"""

from __future__ import annotations

import copy
import warnings
from numbers import Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    RegressorMixin,
    clone,
    is_classifier,
)
from sklearn.frozen import FrozenEstimator
from sklearn.metrics import r2_score
from sklearn.model_selection import check_cv, cross_val_predict
from sklearn.utils.metadata_routing import MethodMapping
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from skfair._base import (
    GroupAccuracyScoreMixin,
    fit_routing,
    fit_takes_weights,
    lazy_method,
    meta_input_tags,
    meta_model_input,
    refuse_dask_fit,
    require_y,
    route_fit_params,
    warn_no_sensitive_features,
)
from skfair._dask import refuse, uses_dask
from skfair._transport._repair import repair_at_offset
from skfair._utils._compat import (
    SENSITIVE_COLUMN_CONSTRAINT,
    HasMethods,
    StrOptions,
    _fit_context,
)
from skfair._utils._response import (
    DECISION_METHODS,
    auto_threshold,
    get_response_values,
    response_from_output,
)
from skfair._utils._validation import vector_1d
from skfair.postprocessing._docs import documented


@documented
class _RepairedBase(MetaEstimatorMixin, BaseEstimator):
    """Fitting, routing and sensitive-feature plumbing shared by the two wrappers."""

    __metadata_request__fit = {"sensitive_features": True}
    __metadata_request__predict = {"sensitive_features": True}
    __metadata_request__score = {"sensitive_features": True}

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "repair": [HasMethods(["fit", "transform"])],
        "sensitive_column": SENSITIVE_COLUMN_CONSTRAINT,
        "drop_sensitive": ["boolean"],
        "cv": ["cv_object", None],
    }

    @_fit_context(prefer_skip_nested_validation=False)  # estimator and repair validate themselves
    def fit(self, X, y, sample_weight=None, *, sensitive_features=None, **fit_params):
        """Fit the model, then the repair on the model's responses.

        {parameters_X_fit}
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights for the model (when its ``fit`` accepts them) and for the repair.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when ``sensitive_column`` is not set. None (and no
            ``sensitive_column``) means one group: the repair is the identity.
        **fit_params : dict
            Passed to the model's ``fit`` (routed to it with metadata routing enabled).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        refuse_dask_fit(self, X, y, sample_weight, sensitive_features)
        sensitive, X_model = meta_model_input(self, X, sensitive_features, reset=True)
        require_y(self, y)
        y = self._check_targets(y)
        estimator_params = route_fit_params(
            self, fit_params, sample_weight=sample_weight, sensitive_features=sensitive_features
        ).estimator.fit
        method = self._response_method()
        if isinstance(self.estimator, FrozenEstimator):
            self.estimator_ = self.estimator
            response = _response(self.estimator_, method, X_model)
        elif self.cv is None:
            self.estimator_ = clone(self.estimator).fit(X_model, y, **estimator_params)
            response = _response(self.estimator_, method, X_model)
        else:
            cv = check_cv(self.cv, y, classifier=is_classifier(self.estimator))
            output = cross_val_predict(
                clone(self.estimator), X_model, y, cv=cv, method=method, params=estimator_params
            )
            self.estimator_ = clone(self.estimator).fit(X_model, y, **estimator_params)
            if is_classifier(self.estimator_):
                output = response_from_output(output, method, self.estimator_.classes_)
            response = _as_columns(output)
        self._fit_repair(response, y, sensitive, sample_weight)
        return self

    def _fit_repair(self, response, y, sensitive, sample_weight):
        self._n_response_columns = response.shape[1]
        repair_params = {}
        if sample_weight is not None:
            if fit_takes_weights(self.repair):
                repair_params["sample_weight"] = sample_weight
            else:
                warnings.warn(
                    f"{type(self.repair).__name__}.fit does not accept sample_weight: the "
                    "weights reach the model only, the repair is fitted unweighted.",
                    UserWarning,
                    stacklevel=3,
                )
        with warnings.catch_warnings():
            if sensitive is None:
                warn_no_sensitive_features(self)
                # The repair would repeat the same warning.
                warnings.simplefilter("ignore", UserWarning)
            self.repair_ = clone(self.repair).fit(
                response, y, sensitive_features=sensitive, **repair_params
            )

    def _at_row_offset(self, row_offset):
        """A copy whose repair treats rows that start at ``row_offset`` of the whole data."""
        wrapper = copy.copy(self)
        wrapper.repair_ = repair_at_offset(self.repair_, row_offset)
        return wrapper

    def _repaired(self, X, sensitive_features):
        """Repaired responses, shape (n_samples, n_columns)."""
        check_is_fitted(self)
        sensitive, X_model = meta_model_input(self, X, sensitive_features, reset=False)
        response = _response(self.estimator_, self._response_method(), X_model)
        return self.repair_.transform(response, sensitive_features=sensitive)

    def get_metadata_routing(self):
        """Get metadata routing of this object.

        Returns
        -------
        routing : MetadataRouter
            ``sensitive_features`` is consumed here (fit, predict, score and the response
            methods); other fit metadata go to the wrapped model's ``fit``.
        """
        method = self._response_method()
        mapping = MethodMapping().add(caller="fit", callee="fit")
        mapping = mapping.add(caller="predict", callee=method)
        if method != "predict":
            mapping = mapping.add(caller=method, callee=method)
        return fit_routing(self, mapping)

    def __sklearn_tags__(self):
        return meta_input_tags(super().__sklearn_tags__(), self.estimator, self.sensitive_column)


@documented
class RepairedClassifier(GroupAccuracyScoreMixin, ClassifierMixin, _RepairedBase):
    """A classifier whose scores are repaired towards group fairness.

    The wrapped classifier is fitted on ``(X, y)``; the repair (for instance
    :class:`BarycenterRepair`) is fitted on its responses with the sensitive features; every
    response method then returns repaired outputs.

    Parameters
    ----------
    estimator : classifier
        The model. A fitted model is wrapped in :class:`sklearn.frozen.FrozenEstimator`: it is
        not refitted, and the data passed to ``fit`` serve as the calibration set of the repair.
    repair : transformer
        The repair, e.g. :class:`BarycenterRepair` or :class:`MADDRepair`; cloned and fitted
        with ``fit(scores, y, sensitive_features=...)`` on the model's responses.
    sensitive_column : str, int or list of them, default=None
        Column(s) of X holding the sensitive features. They are removed from X before the model
        sees it (unless ``drop_sensitive=False``). This mode works inside ``GridSearchCV`` and
        with scikit-learn's scorers, which cannot pass metadata to ``predict``.
    drop_sensitive : bool, default=True
        Whether to remove ``sensitive_column`` from X before the model.
    threshold : "auto" or float, default="auto"
        Binary decision threshold on the repaired positive-class score: ``predict`` gives
        ``classes_[1]`` where the score is at least the threshold. ``"auto"`` follows
        scikit-learn's :class:`~sklearn.model_selection.FixedThresholdClassifier`: 0.5 on
        probabilities (``predict_proba``), 0.0 on decision values (``decision_function``).
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        The response that is repaired, and the only response method exposed (the other one
        would not be repaired). ``"auto"``: ``predict_proba`` when the model has it, else
        ``decision_function``. Repairs of probabilities only (such as :class:`MADDRepair`)
        need ``predict_proba``.
    cv : int, cross-validation generator, iterable or None, default=None
        None fits the repair on the in-sample responses of the model fitted on all data;
        training scores of an overfitting model are not distributed like test scores, so
        prefer ``cv=5`` or a frozen model with held-out data. Otherwise the repair is fitted
        on out-of-fold responses (``cross_val_predict``) and the model refitted on all data.

    Attributes
    ----------
    estimator_ : classifier
        The fitted model.
    repair_ : transformer
        The fitted repair of the model's responses (the response method exposed).
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    {columns_in}

    See Also
    --------
    RepairedRegressor : The same for a regressor's predictions.
    BarycenterRepair : Repair towards the Wasserstein barycenter of the groups' scores.
    MADDRepair : Repair of probabilities towards the population's score distribution.
    GroupThresholdClassifier : Group-specific thresholds instead of repaired scores.

    Notes
    -----
    Binary classification repairs the positive-class probability ``p``;
    ``predict_proba = [1 - p, p]``. With more than two classes each probability column is
    repaired on its own and the rows are renormalised to sum to 1 (a row whose repaired
    probabilities are all 0 becomes uniform); ``predict`` is the argmax. The per-class
    guarantee of the repair holds before the renormalisation only, so the multi-class repair
    is approximate.

    **Dask input.** ``fit`` refuses dask collections with a TypeError (the model trains on
    all rows in memory). ``predict``, ``predict_proba`` and ``decision_function`` return lazy
    dask arrays: the model and its repair run block by block, each block's repair at its row
    offset, exactly the in-memory output; ``score`` sums the right and wrong predictions over
    the partitions.

    {references_barycenter}

    Denis, C., Elie, R., Hebiri, M. and Hu, F. (2021). Fairness guarantee in multi-class
    classification. arXiv:2109.13642.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> X = np.c_[rng.normal(size=400) + group, group]
    >>> y = (X[:, 0] + rng.normal(size=400) > 0.5).astype(int)
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.postprocessing import BarycenterRepair, RepairedClassifier
    >>> clf = RepairedClassifier(LogisticRegression(), BarycenterRepair(random_state=0),
    ...                          sensitive_column=1).fit(X, y)
    >>> rate = [clf.predict(X)[group == g].mean() for g in (0, 1)]
    >>> bool(abs(rate[0] - rate[1]) < 0.05)
    True
    """

    __metadata_request__predict_proba = {"sensitive_features": True}
    __metadata_request__decision_function = {"sensitive_features": True}

    _parameter_constraints: dict = {
        **_RepairedBase._parameter_constraints,
        "estimator": [
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
        ],
        "threshold": [StrOptions({"auto"}), Real],
        "response_method": [StrOptions({"auto", *DECISION_METHODS})],
    }

    def __init__(
        self,
        estimator,
        repair,
        *,
        sensitive_column=None,
        drop_sensitive=True,
        threshold="auto",
        response_method="auto",
        cv=None,
    ):
        self.estimator = estimator
        self.repair = repair
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive
        self.threshold = threshold
        self.response_method = response_method
        self.cv = cv

    @property
    def classes_(self):
        """Class labels of the fitted model."""
        return self.estimator_.classes_

    def _check_targets(self, y):
        check_classification_targets(y)
        return vector_1d(y)

    def _response_method(self):
        if self.response_method != "auto":
            return self.response_method
        for method in DECISION_METHODS:
            if hasattr(self.estimator, method):
                return method
        raise ValueError(
            f"{type(self.estimator).__name__} has neither predict_proba nor decision_function; "
            "RepairedClassifier needs one of them."
        )

    def predict(self, X, *, sensitive_features=None):
        """Class labels from the repaired responses.

        {parameters_X_groups}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels: the argmax of the repaired probabilities, or for a binary
            problem ``classes_[1]`` where the repaired score reaches ``threshold``.
        """
        if uses_dask(X, sensitive_features):
            check_is_fitted(self)
            return lazy_method(self, "predict", X, sensitive_features, dtype=self.classes_.dtype)
        repaired = self._repaired(X, sensitive_features)
        if repaired.shape[1] == 1:
            threshold = (
                auto_threshold(self._response_method())
                if self.threshold == "auto"
                else self.threshold
            )
            return self.classes_[(repaired[:, 0] >= threshold).astype(int)]
        return self.classes_[np.argmax(repaired, axis=1)]

    @available_if(lambda self: _has_response(self, "predict_proba"))
    def predict_proba(self, X, *, sensitive_features=None):
        """Repaired class probabilities.

        {parameters_X_groups}

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Repaired class probabilities, in the order of ``classes_``; each row sums to 1.
        """
        if uses_dask(X, sensitive_features):
            check_is_fitted(self)
            return lazy_method(
                self,
                "predict_proba",
                X,
                sensitive_features,
                trailing_shape=(len(self.classes_),),
                dtype=np.float64,
            )
        repaired = self._repaired(X, sensitive_features)
        if repaired.shape[1] == 1:
            return np.column_stack([1 - repaired[:, 0], repaired[:, 0]])
        return _renormalise(repaired)

    @available_if(lambda self: _has_response(self, "decision_function"))
    def decision_function(self, X, *, sensitive_features=None):
        """Repaired decision function.

        {parameters_X_groups}

        Returns
        -------
        decision : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Repaired decision values: one column for a binary problem (positive values favour
            ``classes_[1]``), one per class otherwise.
        """
        if uses_dask(X, sensitive_features):
            check_is_fitted(self)
            shape = () if self._n_response_columns == 1 else (self._n_response_columns,)
            return lazy_method(
                self,
                "decision_function",
                X,
                sensitive_features,
                trailing_shape=shape,
                dtype=np.float64,
            )
        repaired = self._repaired(X, sensitive_features)
        return repaired[:, 0] if repaired.shape[1] == 1 else repaired


@documented
class RepairedRegressor(RegressorMixin, _RepairedBase):
    """A regressor whose predictions are repaired towards group fairness.

    The wrapped regressor is fitted on ``(X, y)``; the repair (for instance
    :class:`BarycenterRepair`, the optimal demographic-parity-fair regression of Chzhen et al.
    2020) is fitted on its predictions with the sensitive features; ``predict`` returns
    repaired predictions. Multi-output predictions are repaired column by column.

    Parameters
    ----------
    estimator : regressor
        The model; a fitted one is wrapped in :class:`sklearn.frozen.FrozenEstimator`.
    repair : transformer
        The repair, e.g. :class:`BarycenterRepair` or :class:`MADDRepair`.
    sensitive_column : str, int or list of them, default=None
        Column(s) of X holding the sensitive features, removed before the model sees X
        (unless ``drop_sensitive=False``).
    drop_sensitive : bool, default=True
        Whether to remove ``sensitive_column`` from X before the model.
    cv : int, cross-validation generator, iterable or None, default=None
        None: the repair is fitted on in-sample predictions. Otherwise on out-of-fold
        predictions (``cross_val_predict``), the model being refitted on all data.

    Attributes
    ----------
    estimator_ : regressor
        The fitted model.
    repair_ : transformer
        The fitted repair.
    {columns_in}

    See Also
    --------
    RepairedClassifier : The same for a classifier's scores.
    BarycenterRepair : Repair towards the Wasserstein barycenter of the groups' predictions.

    Notes
    -----
    **Dask input.** ``fit`` and ``score`` refuse dask collections with a TypeError (the model
    trains on all rows in memory; R² needs the mean of y). ``predict`` returns a lazy dask
    array: the model and its repair run block by block, each block's repair at its row
    offset, exactly the in-memory output.

    {references_barycenter}

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression
    >>> from skfair.postprocessing import BarycenterRepair, RepairedRegressor
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> X = np.c_[rng.normal(size=400) + 2 * group, group]
    >>> y = X[:, 0] + rng.normal(size=400)
    >>> reg = RepairedRegressor(LinearRegression(), BarycenterRepair(), sensitive_column=1)
    >>> pred = reg.fit(X, y).predict(X)
    >>> bool(abs(pred[group == 0].mean() - pred[group == 1].mean()) < 0.1)
    True
    """

    def __init__(self, estimator, repair, *, sensitive_column=None, drop_sensitive=True, cv=None):
        self.estimator = estimator
        self.repair = repair
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive
        self.cv = cv

    def _check_targets(self, y):
        y = np.asarray(y) if not hasattr(y, "shape") else y
        return vector_1d(y) if y.ndim == 2 and y.shape[1] == 1 else y

    def _response_method(self):
        return "predict"

    def predict(self, X, *, sensitive_features=None):
        """Repaired predictions.

        {parameters_X_groups}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Repaired predictions, one column per output of the regressor.
        """
        if uses_dask(X, sensitive_features):
            check_is_fitted(self)
            shape = () if self._one_output else (self._n_response_columns,)
            return lazy_method(
                self, "predict", X, sensitive_features, trailing_shape=shape, dtype=np.float64
            )
        repaired = self._repaired(X, sensitive_features)
        return repaired[:, 0] if self._one_output else repaired

    def _fit_repair(self, response, y, sensitive, sample_weight):
        self._one_output = np.ndim(y) == 1
        super()._fit_repair(response, y, sensitive, sample_weight)

    def score(self, X, y, sample_weight=None, *, sensitive_features=None):
        """R² of the repaired predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            True values.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights; None weighs every sample equally.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when ``sensitive_column`` is not set.

        Returns
        -------
        score : float
            Coefficient of determination R² of the repaired predictions.
        """
        if uses_dask(X, y, sample_weight, sensitive_features):
            raise _R2_IN_MEMORY.error(f"{type(self).__name__}.score")
        y_pred = self.predict(X, sensitive_features=sensitive_features)
        return r2_score(y, y_pred, sample_weight=sample_weight)


# --------------------------------------------------------------------------------------------
# dask input

_R2_IN_MEMORY = refuse(
    "R² compares the predictions with the mean of y, which is not kept per partition here.",
    "Compute y_pred = model.predict(X) (lazy) and score it with a dask-aware metric, or "
    "score an in-memory sample.",
)


# --------------------------------------------------------------------------------------------
# small pure helpers


def _has_response(wrapper, method):
    """Whether ``wrapper`` exposes ``method``: it is the response that gets repaired.

    An unrepaired response would carry the unfairness the wrapper removes, so it is not
    exposed at all.
    """
    if not hasattr(getattr(wrapper, "estimator_", wrapper.estimator), method):
        return False
    return wrapper._response_method() == method


def _response(estimator, method, X):
    return _as_columns(get_response_values(estimator, X, method)[0])


def _as_columns(response):
    """Responses as a 2-D array: one column for binary classifiers and single outputs."""
    response = np.asarray(response, dtype=np.float64)
    return response[:, None] if response.ndim == 1 else response


def _renormalise(proba):
    totals = proba.sum(axis=1, keepdims=True)
    empty = totals[:, 0] <= 0
    proba = np.divide(proba, totals, out=np.zeros_like(proba), where=totals > 0)
    proba[empty] = 1.0 / proba.shape[1]
    return proba
