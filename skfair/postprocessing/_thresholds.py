"""``GroupThresholdClassifier``: optimal group-specific randomised thresholds under a fairness
constraint (Hardt, Price & Srebro 2016), exact on every distinct score."""

from __future__ import annotations

from dataclasses import replace
from inspect import signature
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.metrics import accuracy_score
from sklearn.model_selection import check_cv
from sklearn.utils import Bunch, _safe_indexing, get_tags
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import (
    _check_method_params,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    indexable,
)

from skfair._base import (
    FIT_IN_MEMORY,
    _model_allows_nan,
    accuracy_on_dask,
    check_meta_input,
    lazy_method,
    resolve_sensitive,
)
from skfair._compat import (
    SENSITIVE_COLUMN_CONSTRAINT,
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
    _routing_enabled,
    process_routing,
)
from skfair._dask import uses_dask
from skfair._groups import factorize_groups
from skfair._response import get_response_values
from skfair._validation import check_weights
from skfair.postprocessing._base import GOLDEN_GAMMA, draw_seed, splitmix64
from skfair.postprocessing._roc_hull import score_blocks
from skfair.postprocessing._threshold_lp import (
    CONSTRAINTS,
    OBJECTIVES,
    constraint_gap,
    group_geometry,
    group_rule,
    rule_rates,
    solve_thresholds,
)

# When a score keys the random draw, its low mantissa bits are dropped first, so that last-bit
# differences of the model's arithmetic between batch sizes do not change a decision.
_SCORE_KEY_MASK = np.uint64(~((1 << 20) - 1) & 0xFFFFFFFFFFFFFFFF)


class GroupThresholdClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Group-specific randomised thresholds that meet a fairness constraint optimally.

    A binary classifier's score is turned into a decision by a threshold of its own for each
    group of the sensitive features, randomised where the optimum needs it, chosen so that
    ``constraint`` holds up to ``tolerance`` while ``objective`` is as high as possible
    (Hardt, Price & Srebro 2016). The optimum is exact: it is taken over every distinct score
    value (no grid) as a linear program over the groups' ROC convex hulls, for any number of
    groups; 2-D sensitive features give intersectional groups.

    Parameters
    ----------
    estimator : classifier
        Binary classifier with ``predict_proba`` or ``decision_function``. A fitted model is
        wrapped in :class:`sklearn.frozen.FrozenEstimator`: it is not refitted and the data
        passed to ``fit`` serve to choose the thresholds (prefer held-out data).
    constraint : str, default="demographic_parity"
        The rate made equal across groups: ``"demographic_parity"`` (selection rate),
        ``"equalized_odds"`` (true and false positive rates), ``"true_positive_rate_parity"``
        (equal opportunity), ``"false_positive_rate_parity"``, ``"true_negative_rate_parity"``
        or ``"false_negative_rate_parity"``.
    objective : str, default="accuracy"
        Maximised: ``"accuracy"``, ``"balanced_accuracy"``, ``"true_positive_rate"`` or
        ``"true_negative_rate"`` (the last two alone are maximised by predicting everyone
        positive, respectively negative; they are there for parity with other libraries).
    tolerance : float, default=0.0
        Largest allowed difference of the constrained rate(s) between any two groups
        (0 is exact parity). Tune it with ``GridSearchCV`` to trade fairness for the objective.
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        The score: ``"auto"`` takes ``predict_proba`` when the model has it, else
        ``decision_function``.
    pos_label : int, float, bool or str, default=None
        The positive class; None takes the greater class label.
    cv : int, cross-validation generator or iterable, default=5
        The thresholds are chosen on out-of-fold scores from these splits (stratified for an
        integer) and the model is then refitted on all data, like
        :class:`sklearn.model_selection.TunedThresholdClassifierCV`. Ignored for a
        :class:`~sklearn.frozen.FrozenEstimator`.
    sensitive_column : str, int or list of them, default=None
        Column(s) of X holding the sensitive features, removed before the model sees X
        (unless ``drop_sensitive=False``). This mode works inside ``GridSearchCV`` and with
        scikit-learn's scorers, which cannot pass metadata to ``predict``.
    drop_sensitive : bool, default=True
        Whether to remove ``sensitive_column`` from X before the model.
    random_state : int, RandomState instance or None, default=None
        Seeds the randomised decisions. A row's draw is keyed on its values, its group and
        this seed, so a row gets the same decision alone or in any batch; None draws a seed
        at fit.
    n_jobs : int, default=None
        Folds fitted in parallel with ``cv``.

    Attributes
    ----------
    estimator_ : classifier
        The fitted model (refitted on all data with ``cv``).
    classes_ : ndarray of shape (2,)
        Class labels.
    pos_label_ : object
        The positive class.
    groups_ : list
        Label of each group (a value, or a tuple of values for 2-D sensitive features).
    thresholds_ : ndarray of shape (n_groups, 2)
        Per group, the upper and lower score threshold of the rule.
    decision_probabilities_ : ndarray of shape (n_groups, 3)
        Per group, the probability of predicting ``pos_label_`` for a score at or above the
        upper threshold, in ``[lower, upper)``, and below the lower threshold. Non-increasing
        along a row; a row of the form ``(1, p, 0)`` is a threshold mixed with probability
        ``p`` between two adjacent score values, a positive last entry means the rule also
        flips a score-blind coin.
    rates_ : dict of ndarray of shape (n_groups,)
        Expected ``"selection_rate"``, ``"true_positive_rate"``, ``"false_positive_rate"``,
        ``"true_negative_rate"`` and ``"false_negative_rate"`` of each group on the data the
        thresholds were chosen on (NaN where a group lacks the class the rate conditions on).
    objective_value_ : float
        Expected objective on that data.
    constraint_gap_ : float
        Expected largest difference of the constrained rate(s) between two groups there.
    hulls_ : list of tuple of ndarray
        Per group, the vertices ``(fpr, tpr, thresholds)`` of the upper ROC hull (None for a
        group with a single class).
    n_features_in_ : int
        Number of columns of X, the sensitive column(s) included.
    feature_names_in_ : ndarray of str
        Column names of X, when it has string column names.

    See Also
    --------
    sklearn.model_selection.TunedThresholdClassifierCV : One threshold for everyone, tuned for
        a metric.
    RepairedClassifier : Repairs the score distributions instead of the decisions.
    skfair.plotting.GroupThresholdDisplay : The groups' ROC curves, hulls and chosen points.

    Notes
    -----
    Each group's reachable operating points ``(FPR, TPR)`` form the convex hull of its ROC
    points; every objective and constraint offered is linear in them, so the optimum is a
    linear program with one inequality per hull segment (Hardt et al. 2016, Section 4). For
    these objectives an optimum lies on or above the diagonal, where a point is the hull point
    at the same FPR mixed with a score-blind coin; so every group's rule is monotone in the
    score. Hull vertices are found exactly by pool-adjacent-violators (Fawcett &
    Niculescu-Mizil 2007); the fitted rates are recomputed from the rules on the data, and the
    constraint holds there up to the solver's 1e-10 feasibility tolerance.

    The decisions are random only inside a group's band ``[lower, upper)`` or through the
    coin. The draw is a hash of the row's values as the model receives them (pandas and polars
    row hashes; the bits of each column of a numeric array), its group and the seed: it is
    reproducible, independent of batching and of the row's position, and rows with different
    values but tied scores get independent draws, so the empirical rates approach the expected
    ones as the sample grows even for scores with few distinct values. Identical rows share a
    decision. For sparse or non-numeric array input the row is keyed by its score (its 32
    leading mantissa bits, so that last-bit differences of the model's arithmetic between
    batch sizes do not matter); then rows of a group with one score share a decision.

    There is no ``predict_proba``: the rule's probability of a positive decision (given by
    :meth:`decision_probability`) is not an estimate of ``P(y = 1 | X)``, and scorers would
    misread it. Predictive parity is not offered: equal positive predictive values is a
    bilinear condition on the operating points and the common value, not a linear one, so it
    does not fit this program; it is left out rather than approximated.

    **Dask input.** ``fit`` refuses dask collections with a TypeError (the model and the
    thresholds are fitted on all rows in memory). ``predict`` and ``decision_probability``
    return lazy dask arrays, block by block, exactly the in-memory decisions (a row's random
    draw is keyed on its content); ``score`` sums the right and wrong decisions over the
    partitions.

    References
    ----------
    Hardt, M., Price, E. and Srebro, N. (2016). Equality of Opportunity in Supervised Learning.
    NeurIPS.

    Fawcett, T. and Niculescu-Mizil, A. (2007). PAV and the ROC convex hull. Machine Learning
    68, 97-106.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.postprocessing import GroupThresholdClassifier
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 2000)
    >>> X = np.c_[rng.normal(size=2000) + group, group]
    >>> y = (X[:, 0] + rng.normal(size=2000) > 0.5).astype(int)
    >>> clf = GroupThresholdClassifier(LogisticRegression(), constraint="demographic_parity",
    ...                                sensitive_column=1, random_state=0).fit(X, y)
    >>> bool(clf.constraint_gap_ < 1e-9)
    True
    >>> rates = [clf.predict(X)[group == g].mean() for g in (0, 1)]
    >>> bool(abs(rates[0] - rates[1]) < 0.05)
    True
    """

    __metadata_request__fit = {"sensitive_features": True}
    __metadata_request__predict = {"sensitive_features": True}
    __metadata_request__score = {"sensitive_features": True}

    _parameter_constraints: dict = {
        "estimator": [
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
        ],
        "constraint": [StrOptions(set(CONSTRAINTS))],
        "objective": [StrOptions(set(OBJECTIVES))],
        "tolerance": [Interval(Real, 0, None, closed="left")],
        "response_method": [StrOptions({"auto", "predict_proba", "decision_function"})],
        "pos_label": [Real, str, "boolean", None],
        "cv": ["cv_object"],
        "sensitive_column": SENSITIVE_COLUMN_CONSTRAINT,
        "drop_sensitive": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        estimator,
        *,
        constraint="demographic_parity",
        objective="accuracy",
        tolerance=0.0,
        response_method="auto",
        pos_label=None,
        cv=5,
        sensitive_column=None,
        drop_sensitive=True,
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.constraint = constraint
        self.objective = objective
        self.tolerance = tolerance
        self.response_method = response_method
        self.pos_label = pos_label
        self.cv = cv
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)  # the model validates itself
    def fit(self, X, y, sample_weight=None, *, sensitive_features=None, **fit_params):
        """Fit the model and choose the thresholds.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; with ``sensitive_column`` it holds the sensitive column(s) too.
        y : array-like of shape (n_samples,)
            Binary targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the thresholds' objective and rates, and of the model's fit when its
            ``fit`` accepts them.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when ``sensitive_column`` is not set. None (and no
            ``sensitive_column``) means one group: one threshold optimal for ``objective``.
        **fit_params : dict
            Passed to the model's ``fit`` (routed to it with metadata routing enabled).

        Returns
        -------
        self : object
        """
        if uses_dask(X, y, sample_weight, sensitive_features):
            raise FIT_IN_MEMORY.error(f"{type(self).__name__}.fit")
        X = check_meta_input(self, X, self.estimator, reset=True)
        sensitive, X_model = resolve_sensitive(
            X, sensitive_features, self.sensitive_column, drop=self.drop_sensitive
        )
        y = self._check_binary_target(y)
        check_consistent_length(X, y)
        n_samples = y.shape[0]
        weights = check_weights(sample_weight, n_samples)
        groups = factorize_groups(sensitive, n_samples=n_samples) if sensitive is not None else None
        routed = self._route_fit_params(sample_weight, sensitive_features, fit_params)
        if isinstance(self.estimator, FrozenEstimator):
            self.estimator_ = self.estimator
            scores = self._scores(self.estimator_, X_model)
        else:
            scores = self._out_of_fold_scores(X_model, y, routed)
            self.estimator_ = clone(self.estimator).fit(X_model, y, **routed.estimator.fit)
        self._fit_rules(scores, y == self.pos_label_, weights, groups)
        self._seed = draw_seed(self.random_state)
        return self

    def _check_binary_target(self, y):
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        y = column_or_1d(y, warn=True)
        classes = np.unique(y)
        if len(classes) != 2:
            check_classification_targets(y)  # names continuous targets as such
            kind = type_of_target(y, input_name="y")
            raise ValueError(
                f"Only binary classification is supported: {type(self).__name__} needs two "
                f"classes, got {len(classes)} class{'' if len(classes) == 1 else 'es'}: "
                f"{classes.tolist()[:10]} (type_of_target={kind!r})."
            )
        if self.pos_label is None:
            pos_label = classes[1]
        elif self.pos_label in classes.tolist():
            pos_label = self.pos_label
        else:
            raise ValueError(
                f"pos_label={self.pos_label!r} is not one of the classes {classes.tolist()}."
            )
        self.classes_ = classes
        self.pos_label_ = pos_label
        return y

    def _route_fit_params(self, sample_weight, sensitive_features, fit_params):
        if _routing_enabled():
            return process_routing(
                self,
                "fit",
                sample_weight=sample_weight,
                sensitive_features=sensitive_features,
                **fit_params,
            )
        params = dict(fit_params)
        if (
            sample_weight is not None
            and "sample_weight" in signature(self.estimator.fit).parameters
        ):
            params["sample_weight"] = sample_weight
        return Bunch(estimator=Bunch(fit=params), splitter=Bunch(split={}))

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
        scores = np.full(y.shape[0], np.nan)
        for (_, test), part in zip(splits, parts):
            scores[test] = part
        missing = np.isnan(scores)
        if missing.any():
            raise ValueError(
                f"cv={self.cv!r} leaves {int(missing.sum())} sample(s) out of every test fold; "
                "the thresholds need an out-of-fold score for each sample. Use a splitter "
                "whose test folds cover the data (KFold, StratifiedKFold)."
            )
        return scores

    def _scores(self, estimator, X):
        """The positive-class score of ``estimator`` (one private function to swap later)."""
        response_method = (
            ["predict_proba", "decision_function"]
            if self.response_method == "auto"
            else self.response_method
        )
        scores, _, _ = get_response_values(estimator, X, response_method, pos_label=self.pos_label_)
        scores = np.asarray(scores, dtype=np.float64)
        if not np.isfinite(scores).all():
            raise ValueError(
                f"{type(estimator).__name__} returned NaN or infinite scores; the thresholds "
                "need finite scores."
            )
        return scores

    def _fit_rules(self, scores, positive, weights, groups):
        n_samples = scores.shape[0]
        if groups is None:
            codes, n_groups, self.groups_ = np.zeros(n_samples, np.intp), 1, ["all"]
            self._encoding = None
        else:
            codes, n_groups, self.groups_ = groups.codes, groups.n_groups, groups.labels
            # Keep only what is needed to encode new samples (not the training codes).
            empty = np.empty((0, groups.n_attributes), dtype=np.intp)
            self._encoding = replace(groups, codes=empty[:, 0], attribute_codes=empty)
        weights = np.ones(n_samples) if weights is None else weights
        zero = np.bincount(codes, weights=weights, minlength=n_groups) <= 0
        if zero.any():
            raise ValueError(
                f"Group(s) {[self.groups_[g] for g in np.flatnonzero(zero)]} have zero total "
                "sample weight; their thresholds cannot be chosen. Give them positive weight or "
                "drop them."
            )
        for present, name in ((positive, "positive"), (~positive, "negative")):
            if not weights[present].sum() > 0:
                raise ValueError(
                    f"The {name} class has zero total sample weight; the rates conditioned on "
                    "it are undefined. Give its samples positive weight."
                )
        blocks = score_blocks(scores, positive, weights, codes, n_groups)
        geometries = [group_geometry(blocks, g) for g in range(n_groups)]
        fpr, tpr = solve_thresholds(geometries, self.constraint, self.objective, self.tolerance)
        rules = [group_rule(geo, x, y) for geo, x, y in zip(geometries, fpr, tpr)]
        self.thresholds_ = np.array([[rule.upper, rule.lower] for rule in rules])
        self.decision_probabilities_ = np.array([rule.probabilities for rule in rules])
        self.hulls_ = [geo.hull for geo in geometries]
        achieved = np.array([rule_rates(geo, rule) for geo, rule in zip(geometries, rules)])
        pos = np.array([geo.positive for geo in geometries])
        neg = np.array([geo.negative for geo in geometries])
        self.rates_ = _rates_table(achieved[:, 0], achieved[:, 1], pos, neg)
        self.objective_value_ = _objective_value(self.objective, self.rates_, pos, neg)
        self.constraint_gap_ = constraint_gap(self.constraint, self.rates_)

    def decision_probability(self, X, *, sensitive_features=None):
        """Probability that ``predict`` returns ``pos_label_`` for each row.

        This is the randomised rule's probability, not an estimate of ``P(y = 1 | X)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when ``sensitive_column`` is not set.

        Returns
        -------
        probability : ndarray of shape (n_samples,)
        """
        if uses_dask(X, sensitive_features):
            return lazy_method(
                self, "decision_probability", X, sensitive_features, dtype=np.float64
            )
        scores, codes, _ = self._scores_and_codes(X, sensitive_features)
        return self._probability(scores, codes)

    def _probability(self, scores, codes):
        upper, lower = self.thresholds_[codes, 0], self.thresholds_[codes, 1]
        probabilities = self.decision_probabilities_[codes]
        band = np.where(scores >= lower, 1, 2)
        band[scores >= upper] = 0
        return np.take_along_axis(probabilities, band[:, None], axis=1)[:, 0]

    def _scores_and_codes(self, X, sensitive_features):
        check_is_fitted(self)
        X = check_meta_input(self, X, self.estimator, reset=False)
        sensitive, X_model = resolve_sensitive(
            X, sensitive_features, self.sensitive_column, drop=self.drop_sensitive
        )
        scores = self._scores(self.estimator_, X_model)
        if self._encoding is None:
            if sensitive is not None:
                raise ValueError(
                    f"{type(self).__name__} was fitted without sensitive features; do not pass "
                    "them at predict time (or refit with them)."
                )
            return scores, np.zeros(scores.shape[0], dtype=np.intp), X_model
        if sensitive is None:
            raise ValueError(
                f"{type(self).__name__} was fitted with sensitive features: pass "
                "sensitive_features= to predict (or use sensitive_column=)."
            )
        codes = self._encoding.encode(sensitive, n_samples=scores.shape[0])
        return scores, codes, X_model

    def predict(self, X, *, sensitive_features=None):
        """Randomised group-specific threshold decisions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when ``sensitive_column`` is not set.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        if uses_dask(X, sensitive_features):
            check_is_fitted(self)
            return lazy_method(self, "predict", X, sensitive_features, dtype=self.classes_.dtype)
        scores, codes, X_model = self._scores_and_codes(X, sensitive_features)
        probability = self._probability(scores, codes)
        positive = row_uniforms(row_keys(X_model, scores), codes, self._seed) < probability
        negative_label = self.classes_[self.classes_ != self.pos_label_][0]
        return np.where(positive, self.pos_label_, negative_label).astype(self.classes_.dtype)

    def score(self, X, y, sample_weight=None, *, sensitive_features=None):
        """Accuracy of the decisions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when ``sensitive_column`` is not set.

        Returns
        -------
        score : float
        """
        y_pred = self.predict(X, sensitive_features=sensitive_features)
        if uses_dask(y_pred, y, sample_weight):
            return accuracy_on_dask(y, y_pred, sample_weight)
        return accuracy_score(y, y_pred, sample_weight=sample_weight)

    def get_metadata_routing(self):
        """Get metadata routing of this object.

        Returns
        -------
        routing : MetadataRouter
            ``sensitive_features`` is consumed here (fit, predict, score); other fit metadata
            go to the wrapped model's ``fit``, split metadata (e.g. ``groups``) to ``cv``.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self.estimator,
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
            .add(
                splitter=check_cv(self.cv, classifier=True),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        estimator_tags = get_tags(self.estimator)
        tags.input_tags.sparse = estimator_tags.input_tags.sparse
        tags.input_tags.allow_nan = _model_allows_nan(self.estimator)
        tags.input_tags.string = self.sensitive_column is not None
        tags.classifier_tags.multi_class = False
        return tags


# --------------------------------------------------------------------------------------------
# small pure helpers


def _fit_and_score(estimator, X, y, train, test, fit_params, score):
    fit_params = _check_method_params(X, params=fit_params, indices=train)
    estimator.fit(_safe_indexing(X, train), _safe_indexing(y, train), **fit_params)
    return score(estimator, _safe_indexing(X, test))


def _rates_table(fpr, tpr, positive, negative):
    share = positive / (positive + negative)
    selection = np.where(positive > 0, share * np.nan_to_num(tpr), 0.0) + np.where(
        negative > 0, (1 - share) * np.nan_to_num(fpr), 0.0
    )
    return {
        "selection_rate": selection,
        "true_positive_rate": tpr,
        "false_positive_rate": fpr,
        "true_negative_rate": 1.0 - fpr,
        "false_negative_rate": 1.0 - tpr,
    }


def _objective_value(objective, rates, positive, negative):
    tp = np.nansum(rates["true_positive_rate"] * positive)
    tn = np.nansum(rates["true_negative_rate"] * negative)
    if objective == "accuracy":
        return float((tp + tn) / (positive.sum() + negative.sum()))
    tpr, tnr = tp / positive.sum(), tn / negative.sum()
    if objective == "balanced_accuracy":
        return float((tpr + tnr) / 2)
    return float(tpr if objective == "true_positive_rate" else tnr)


def _splitmix64(values):
    """SplitMix64 (Steele, Lea & Flood 2014) as a 64-bit hash of each value."""
    with np.errstate(over="ignore"):
        return splitmix64(values + GOLDEN_GAMMA)


def row_keys(X, scores):
    """A 64-bit key per row from its values in ``X``; from its score when X cannot be hashed.

    pandas and polars frames use their row hashes; dense numeric arrays mix the bits of each
    column. Sparse or non-numeric arrays fall back to the score's leading mantissa bits.
    """
    if hasattr(X, "iloc") and hasattr(X, "columns"):
        import pandas as pd

        return pd.util.hash_pandas_object(X, index=False).to_numpy(np.uint64)
    if hasattr(X, "hash_rows"):
        return np.asarray(X.hash_rows(seed=0), dtype=np.uint64)
    array = None if issparse(X) else np.asarray(X)
    if array is None or array.dtype.kind not in "biuf" or array.ndim != 2:
        return (np.asarray(scores, dtype=np.float64) + 0.0).view(np.uint64) & _SCORE_KEY_MASK
    keys = np.zeros(array.shape[0], dtype=np.uint64)
    for j in range(array.shape[1]):  # a loop over columns, each step vectorised over rows
        column = np.ascontiguousarray(array[:, j], dtype=np.float64) + 0.0  # -0.0 -> 0.0
        keys = _splitmix64(keys ^ column.view(np.uint64))
    return keys


def row_uniforms(keys, codes, seed):
    """A uniform number in [0, 1) per row, a function of (row key, group, seed) only."""
    seed_key = _splitmix64(np.array([seed], dtype=np.uint64))
    group_keys = _splitmix64(np.asarray(codes, dtype=np.uint64) ^ seed_key)
    return (_splitmix64(keys ^ group_keys) >> np.uint64(11)).astype(np.float64) * 2.0**-53
