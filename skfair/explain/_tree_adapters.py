"""Every private scikit-learn attribute the tree path reads, one function per read.

Reading a fitted ensemble's trees needs a few attributes that scikit-learn does not promise
to keep (its baseline score, loss link, internal predictors, binning and categorical
preprocessing). They are read here and nowhere else, so that a change upstream breaks one
small function; the caller (:func:`skfair.explain._tree.tree_score`) catches the error,
warns, and lets the explainer take its generic path, which only calls the public
``predict`` / ``predict_proba`` / ``decision_function``.
"""

from functools import partial

import numpy as np

# What a changed private attribute raises when it is read or used.
INTERNALS_CHANGED = (AttributeError, KeyError, IndexError, TypeError, ValueError)


def hist_baseline(estimator):
    """Raw score of a HistGradientBoosting model before its first tree."""
    return float(estimator._baseline_prediction.ravel()[0])


def loss_inverse_link(estimator):
    """The function from raw score to prediction of a (Hist)GradientBoosting model's loss."""
    return estimator._loss.link.inverse


def loss_link_is_identity(estimator):
    """Whether the loss's link is the identity (the raw score is the prediction)."""
    return type(estimator._loss.link).__name__ == "IdentityLink"


def hist_predictors(estimator):
    """The first (binary / single-output) predictor of every boosting iteration."""
    return [predictors[0] for predictors in estimator._predictors]


def hist_known_category_bitsets(estimator):
    """``(known_bitsets, feature_index)``: the categories seen in training, per categorical
    feature, as 256-bit sets."""
    return estimator._bin_mapper.make_known_categories_bitsets()


def hist_input_preparation(estimator):
    """The model's own encoding of pandas categoricals (X -> array), or None without one."""
    if getattr(estimator, "_preprocessor", None) is None:
        return None
    return partial(estimator._preprocess_X, reset=False)


def gradient_boosting_baseline(estimator):
    """Raw score of a GradientBoosting model before its first tree (default ``init``)."""
    any_row = np.zeros((1, estimator.n_features_in_), dtype=np.float32)
    return float(estimator._raw_predict_init(any_row)[0, 0])
