"""What a post-processor that decides per group from a model's scores needs, whatever its rule.

The model comes in fitted, through :class:`sklearn.frozen.FrozenEstimator`, or is fitted with
``cv``: the rule is then chosen on out-of-fold scores and the model refitted on all the data,
as in :class:`sklearn.model_selection.TunedThresholdClassifierCV`. The sensitive features come
as ``sensitive_features=`` (metadata routing) or as ``sensitive_column=`` columns of X. A class
using :class:`GroupDecisionMixin` defines ``_scores(estimator, X)`` (the model's scores as the
rule reads them) and has the parameters ``estimator``, ``cv``, ``sensitive_column``,
``drop_sensitive``, ``sampling`` and ``n_jobs``; its randomised decisions are drawn by
:meth:`GroupDecisionMixin._draw` with the seed ``_seed`` drawn at fit.
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import check_cv
from sklearn.utils.metadata_routing import MethodMapping
from sklearn.utils.validation import check_is_fitted, indexable

from skfair._base import (
    GroupAccuracyScoreMixin,
    encode_groups,
    fit_groups,
    fit_routing,
    lazy_method,
    meta_input_tags,
    meta_model_input,
)
from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    SENSITIVE_COLUMN_CONSTRAINT,
    Integral,
    Interval,
    Real,
    StrOptions,
    _check_method_params,
    _safe_indexing,
)
from skfair._utils._random import SAMPLINGS, draw_choices, row_keys


class GroupDecisionMixin(GroupAccuracyScoreMixin):
    """Model fitting, scores and group codes of a per-group decision rule."""

    # The groups are read at fit, predict and score; a rule extends the constraints of the
    # parameters every rule has with its own (estimator, constraint, objective, ...).
    __metadata_request__fit = {"sensitive_features": True}
    __metadata_request__predict = {"sensitive_features": True}
    __metadata_request__score = {"sensitive_features": True}

    _parameter_constraints: dict = {
        "tolerance": [Interval(Real, 0, None, closed="left")],
        "cv": ["cv_object"],
        "sampling": [StrOptions(set(SAMPLINGS))],
        "sensitive_column": SENSITIVE_COLUMN_CONSTRAINT,
        "drop_sensitive": ["boolean"],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [Integral, None],
    }

    def _fit_model(self, X, y, routed):
        """Set ``estimator_`` and return the scores the rule is chosen on."""
        if isinstance(self.estimator, FrozenEstimator):
            self.estimator_ = self.estimator
            return self._scores(_scored_model(self.estimator_), X)
        scores = self._out_of_fold_scores(X, y, routed)
        self.estimator_ = clone(self.estimator).fit(X, y, **routed.estimator.fit)
        return scores

    def _out_of_fold_scores(self, X, y, routed):
        X, y = indexable(X, y)
        cv = check_cv(self.cv, y, classifier=True)
        splits = list(cv.split(X, y, **routed.splitter.split))
        parts = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_and_score)(
                clone(self.estimator), X, y, train, test, routed.estimator.fit, self._scores
            )
            for train, test in splits
        )
        scores = None
        for (_, test), part in zip(splits, parts):
            if scores is None:
                scores = np.full((y.shape[0],) + part.shape[1:], np.nan)
            scores[test] = part
        missing = np.isnan(scores).reshape(y.shape[0], -1).any(axis=1)
        if missing.any():
            raise ValueError(
                f"cv={self.cv!r} leaves {int(missing.sum())} sample(s) out of every test fold; "
                "the rule needs an out-of-fold score for each sample. Use a splitter whose "
                "test folds cover the data (KFold, StratifiedKFold)."
            )
        return scores

    def _fit_groups(self, sensitive, n_samples):
        """Group codes of the fitting rows; sets ``groups_`` and the encoding of new rows."""
        codes, self.groups_, self._encoding = fit_groups(sensitive, n_samples)
        return codes, len(self.groups_)

    def _scores_and_codes(self, X, sensitive_features):
        """The model's scores of new rows, their group codes and X as the model sees it."""
        check_is_fitted(self)
        sensitive, X_model = meta_model_input(self, X, sensitive_features, reset=False)
        scores = self._scores(_scored_model(self.estimator_), X_model)
        codes = encode_groups(self, self._encoding, sensitive, scores.shape[0])
        return scores, codes, X_model

    def _draw(self, shares, rows, X_model, key_scores, codes, order=()):
        """The option each of ``rows`` takes, drawn as ``sampling`` says.

        ``shares[i, r]`` is the probability that ``rows[i]`` takes option ``r``; the draws are
        keyed on the rows' values in ``X_model`` (or on ``key_scores`` when those cannot be
        read) and on their groups ``codes``, see :func:`skfair._utils._random.draw_choices`.
        """
        # Only the rows that draw are keyed; when they are few, on their own.
        if rows.size < codes.size // 2:
            keys = row_keys(_safe_indexing(X_model, rows), key_scores[rows])
        else:
            keys = row_keys(X_model, key_scores)[rows]
        return draw_choices(
            shares, keys, codes[rows], self._seed, sampling=self.sampling, order=order
        )

    def _predict_on_dask(self, X, sensitive_features):
        """``predict`` of a dask collection: a lazy dask array, each partition predicted in
        memory. Refused with ``sampling="batch"``, which draws a group's random decisions
        together, in score order over the whole batch: on a dask collection that order is a
        sort of all its rows."""
        check_is_fitted(self)
        if self.sampling == "batch":
            raise TypeError(
                f"{type(self).__name__}.predict does not accept dask collections with "
                "sampling='batch': the batch's systematic sampling takes the randomised rows "
                "of each group in score order over the whole collection, which needs all its "
                "rows sorted together, not a table of them. Use sampling='row' (each row's "
                "decision is keyed on its own values: the same on dask as in memory), or "
                "predict each partition as its own batch explicitly "
                "(ddf.map_partitions(clf.predict))."
            )
        return lazy_method(self, "predict", X, sensitive_features, dtype=self.classes_.dtype)

    def __sklearn_tags__(self):
        # a frozen model's input tags are its model's (read without FrozenEstimator's copy)
        model = _scored_model(self.estimator)
        return meta_input_tags(super().__sklearn_tags__(), model, self.sensitive_column)

    def get_metadata_routing(self):
        """Get metadata routing of this object.

        Returns
        -------
        routing : MetadataRouter
            ``sensitive_features`` is consumed here (fit, predict, score); other fit metadata
            go to the wrapped model's ``fit``, split metadata (e.g. ``groups``) to ``cv``.
        """
        return (
            fit_routing(self)
            .add(
                splitter=check_cv(self.cv, classifier=True),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )


def _scored_model(estimator):
    """The model whose scores are read: a frozen model's own, which has the same methods,
    without the deep copy of its tags that :class:`~sklearn.frozen.FrozenEstimator` makes at
    each look-up (the scorer reads them to tell a classifier)."""
    return estimator.estimator if isinstance(estimator, FrozenEstimator) else estimator


def _fit_and_score(estimator, X, y, train, test, fit_params, score):
    fit_params = _check_method_params(X, params=fit_params, indices=train)
    estimator.fit(_safe_indexing(X, train), _safe_indexing(y, train), **fit_params)
    return score(estimator, _safe_indexing(X, test))
