"""A model's scores, read the way scikit-learn's scorers and displays read them.

Every part of skfair that needs a model's scores goes through this module, which applies
scikit-learn's ``_get_response_values`` rules (``sklearn/utils/_response.py``):

- ``response_method`` is a method name or a list tried in order; the first one the estimator
  has is used;
- for a binary classifier ``pos_label`` defaults to ``classes_[-1]``; ``predict_proba`` gives
  the column of ``pos_label`` and ``decision_function`` is negated when ``pos_label`` is
  ``classes_[0]``; a ``pos_label`` that is not a class is an error;
- multi-class outputs stay 2-D; regressors' outputs pass unchanged.

and scikit-learn's ``threshold="auto"`` rule (``FixedThresholdClassifier``): the decision
threshold is 0.5 on probabilities and 0.0 on decision values.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial, update_wrapper

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, is_classifier
from sklearn.utils import get_tags

from skfair._utils._compat import (
    _check_response_method,
    _get_response_values,
    _process_decision_function,
    _process_predict_proba,
)
from skfair._utils._validation import score_vector

#: ``response_method="auto"`` where a score is wanted: probabilities, else decision values,
#: else the model's ``predict`` (regressors).
SCORE_METHODS = ("predict_proba", "decision_function", "predict")
#: ``response_method="auto"`` where a decision threshold applies.
DECISION_METHODS = ("predict_proba", "decision_function")


def get_response_values(estimator, X, response_method, *, pos_label=None, method_params=None):
    """Scores of a fitted estimator on X, with scikit-learn's ``_get_response_values`` rules.

    Parameters
    ----------
    estimator : fitted estimator
    X : array-like
        Input, as the estimator accepts it.
    response_method : str or sequence of str
        Method name, or names tried in order.
    pos_label : label, default=None
        Positive class of a binary classifier (default ``classes_[-1]``).
    method_params : dict of str to dict, default=None
        Keyword arguments per method name, passed to that method when it is the one used
        (for instance routed ``sensitive_features`` of a meta-estimator's ``predict_proba``).

    Returns
    -------
    y_score : ndarray of shape (n_samples,) or (n_samples, n_columns)
    pos_label : label or None
        The positive class of a binary classifier, else None.
    method_used : str
    """
    if method_params:
        estimator = _WithMethodParams(estimator, method_params)
    if _surely_binary(estimator, pos_label):
        # scikit-learn's steps for a binary classifier, without its type_of_target of the
        # classes (which costs more than a small model's predictions)
        method = _check_response_method(estimator, response_method)
        classes = estimator.classes_
        pos_label = classes[-1] if pos_label is None else pos_label
        y_score = method(X)
        process = _PROCESS.get(method.__name__)
        if process is not None:
            y_score = process(
                y_pred=y_score, target_type="binary", classes=classes, pos_label=pos_label
            )
        return y_score, pos_label, method.__name__
    return _get_response_values(
        estimator, X, response_method, pos_label=pos_label, return_response_method_used=True
    )


# How scikit-learn reads each method's output for a binary classifier.
_PROCESS = {
    "predict_proba": _process_predict_proba,
    "predict_log_proba": _process_predict_proba,
    "decision_function": _process_decision_function,
}


def _surely_binary(estimator, pos_label):
    """Whether ``estimator`` is a classifier whose ``classes_`` scikit-learn's
    ``type_of_target`` calls binary for sure (a numpy array of two distinct integers,
    booleans or strings) and ``pos_label`` is None or one of them."""
    classes = getattr(estimator, "classes_", None)
    return (
        type(classes) is np.ndarray
        and classes.shape == (2,)
        and classes.dtype.kind in "biuU"
        and classes[0] != classes[1]
        and (pos_label is None or pos_label in classes.tolist())
        and is_classifier(estimator)
    )


def response_from_output(output, method, classes, pos_label=None):
    """Apply :func:`get_response_values`'s rules to outputs computed elsewhere.

    ``cross_val_predict(..., method=method)`` returns the raw outputs of ``method`` with one
    column per class of ``classes`` (sorted); this reads them exactly as
    :func:`get_response_values` reads the fitted model's.
    """
    return get_response_values(
        _Outputs(np.asarray(classes), method, output), None, method, pos_label=pos_label
    )[0]


def auto_threshold(method_used):
    """scikit-learn's ``threshold="auto"``: 0.5 on probabilities, 0.0 on decision values."""
    return 0.5 if method_used == "predict_proba" else 0.0


@dataclass(frozen=True)
class ScoreReader:
    """One finite score per row from a fitted model, resolved once and applied to many inputs.

    Build it with :meth:`from_estimator`, which resolves the method, the positive class and
    how to read them with :func:`get_response_values`'s rules; calling it then gives the same
    scores as :func:`get_response_values` without re-checking the classes at every call (an
    explainer calls the model thousands of times), reduced to one column: for a multi-class
    classifier the ``predict_proba`` column of ``pos_label`` (which must then be given).
    Outputs that are not numbers (a model that predicts string labels) or not finite are
    refused with an error saying so.

    Attributes
    ----------
    method : str
        The response method used.
    pos_label : label or None
        The positive class (classifiers).
    column : int or None
        The ``predict_proba`` column of ``pos_label``.
    negate : bool
        Whether ``decision_function`` is negated (``pos_label == classes_[0]``).
    """

    method: str
    pos_label: object = None
    column: int | None = None
    negate: bool = False

    @classmethod
    def from_estimator(cls, estimator, response_method="auto", pos_label=None):
        """Resolve the method and the positive class for ``estimator``.

        ``response_method="auto"`` means ``("predict_proba", "decision_function",
        "predict")``.
        """
        candidates = SCORE_METHODS if response_method == "auto" else response_method
        candidates = (candidates,) if isinstance(candidates, str) else tuple(candidates)
        method = next((name for name in candidates if hasattr(estimator, name)), None)
        if method is None:
            raise ValueError(
                f"The estimator {type(estimator).__name__} has none of the methods "
                f"{list(candidates)}."
            )
        if method == "predict" or not is_classifier(estimator):
            return cls(method)
        classes = np.asarray(estimator.classes_)
        if pos_label is None:
            if len(classes) > 2:
                raise ValueError(
                    f"The model has {len(classes)} classes {classes.tolist()}; pass pos_label= "
                    "to choose the class whose score is read."
                )
            pos_label = classes[-1]
        matches = np.flatnonzero(classes == pos_label)
        if matches.size == 0:
            raise ValueError(
                f"pos_label={pos_label!r} is not among the classes {classes.tolist()}."
            )
        if method == "decision_function" and len(classes) > 2:
            raise ValueError(
                "decision_function of a multi-class model has one column per class; use "
                "response_method='predict_proba' with pos_label=."
            )
        position = int(matches[0])
        return cls(
            method,
            pos_label,
            column=position if method == "predict_proba" else None,
            negate=method == "decision_function" and position == 0,
        )

    def __call__(self, estimator, X):
        return self.scores_of(estimator, getattr(estimator, self.method)(X))

    def scores_of(self, estimator, output):
        """The scores in ``output``, what :attr:`method` of ``estimator`` returned (computed
        elsewhere, e.g. a block of rows at a time), read and checked as a call reads them."""
        y_score = np.asarray(output)
        if self.column is not None:
            y_score = y_score[:, self.column]
        y_score = score_vector(
            y_score,
            squeeze=self.column is None,
            shape_error=lambda shape: (
                f"{self.method} returned an array of shape {shape}; a score per row is "
                "needed. Pass pos_label= for a multi-class model."
            ),
            dtype_error=lambda dtype: (
                f"{type(estimator).__name__}.{self.method} returned values of dtype "
                f"{dtype} (labels, not scores); scores must be numbers. Use a model "
                "with predict_proba or decision_function, or encode its labels as numbers."
            ),
        )
        if self.negate:
            y_score = -y_score
        finite = np.isfinite(y_score)
        if not finite.all():
            raise ValueError(
                f"{type(estimator).__name__}.{self.method} returned {np.count_nonzero(~finite)} "
                f"NaN or infinite score(s) out of {len(y_score)} (first at row "
                f"{int(np.flatnonzero(~finite)[0])}); scores must be finite."
            )
        return y_score


class _WithMethodParams:
    """The estimator, with keyword arguments bound to some of its methods."""

    def __init__(self, estimator, method_params):
        self._estimator = estimator
        self._method_params = method_params

    def __getattr__(self, name):
        attribute = getattr(self._estimator, name)
        params = self._method_params.get(name)
        if params:
            return update_wrapper(partial(attribute, **params), attribute)
        return attribute

    def __sklearn_tags__(self):
        return get_tags(self._estimator)


class _Outputs(ClassifierMixin, BaseEstimator):
    """A stand-in classifier whose ``method`` returns outputs already computed."""

    def __init__(self, classes, method, output):
        self.classes_ = classes

        def respond(X):
            return output

        respond.__name__ = method
        setattr(self, method, respond)
