"""``MulticlassGroupThresholdClassifier``: the optimal fair randomised rule of a multi-class
model under demographic parity or equalized odds (Denis, Elie, Hebiri & Hu 2021)."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.frozen import FrozenEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length

from skfair._base import (
    lazy_method,
    meta_model_input,
    refuse_dask_fit,
    route_fit_params,
)
from skfair._dask import uses_dask
from skfair._utils._compat import (
    HasMethods,
    StrOptions,
    _fit_context,
)
from skfair._utils._random import draw_seed
from skfair._utils._response import get_response_values
from skfair._utils._validation import check_weights, vector_1d
from skfair.metrics._multiclass import _max_gap_to_population
from skfair.postprocessing._docs import documented
from skfair.postprocessing._rules._group_decision import GroupDecisionMixin
from skfair.postprocessing._rules._multiclass_lp import CONSTRAINTS, OBJECTIVES, FairArgmaxProgram

# Weights of a fixed projection of the class probabilities, used to key a row's random draw
# when X cannot be read row by row: square roots of primes.
_KEY_WEIGHTS = np.sqrt([2.0, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53])


@documented
class MulticlassGroupThresholdClassifier(
    GroupDecisionMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator
):
    """Optimal fair randomised decisions of a multi-class model, per group.

    The model's class probabilities ``p(x)`` become decisions by an argmax of the
    probabilities shifted by per-group, per-class multipliers, randomised where classes tie
    (Denis, Elie, Hebiri & Hu 2021): the rule of highest expected ``objective`` among all
    randomised rules of the probabilities and the group whose multi-class unfairness is at
    most ``tolerance`` on the fitting data. Unfairness is measured as
    :func:`~skfair.metrics.demographic_parity_unfairness` and
    :func:`~skfair.metrics.equalized_odds_unfairness` measure it: every group against the
    whole population, class by class. The optimum is exact, a linear program solved with
    HiGHS, for any number of classes and groups; 2-D sensitive features give intersectional
    groups.

    Parameters
    ----------
    estimator : classifier
        Classifier with ``predict_proba``. A fitted model is wrapped in
        :class:`sklearn.frozen.FrozenEstimator`: it is not refitted and the data passed to
        ``fit`` serve to choose the rule (prefer held-out data; labels are not needed).
    constraint : {"demographic_parity", "equalized_odds"}, default="demographic_parity"
        ``"demographic_parity"``: the share of each group predicted each class is within
        ``tolerance`` of the population's (``U_DP``). ``"equalized_odds"``: the same given
        each true class (``U_EO``), the true class following the model's probabilities.
    objective : {"accuracy", "balanced_accuracy"}, default="accuracy"
        Maximised, in expectation under the model's probabilities.
    tolerance : float, default=0.0
        Largest allowed unfairness (0 is exact parity). Tune it with ``GridSearchCV``, or
        see the whole trade-off with :func:`threshold_pareto_front`.
    cv : int, cross-validation generator or iterable, default=5
        The rule is chosen on out-of-fold probabilities from these splits (stratified for an
        integer) and the model is then refitted on all data, like
        :class:`sklearn.model_selection.TunedThresholdClassifierCV`. Ignored for a
        :class:`~sklearn.frozen.FrozenEstimator`.
    sampling : {"row", "batch"}, default="row"
        How the rows whose classes the rule ties draw their tie-breaking rule (as
        :class:`GroupThresholdClassifier` draws its randomised decisions). ``"row"``: a row's
        draw is a function of its values, its group and the seed, so a row gets the same
        class alone or in any batch; identical rows of a batch draw apart. ``"batch"``:
        within each group of the batch, the tie-breaking rules are given by systematic
        sampling (the last rule to its expected number of tied rows rounded, each other
        within a row of its expected number given the rules drawn before it), so the
        batch's realised rates stay closer to the fitted ones; a row's class then depends
        on the batch it comes with. ``"batch"`` is refused on dask collections (a sort of
        all their rows).
    {sensitive_column_rule}
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the randomised decisions (see ``sampling``); None draws a seed at fit.
    n_jobs : int, default=None
        Folds fitted in parallel with ``cv``.

    Attributes
    ----------
    estimator_ : classifier
        The fitted model (refitted on all data with ``cv``).
    classes_ : ndarray of shape (n_classes,)
        Class labels (those of the model).
    groups_ : list
        Label of each group (a value, or a tuple of values for 2-D sensitive features).
    coef_ : ndarray of shape (n_groups, n_classes, n_classes)
        With ``intercept_``, the rule's scores: a row of group ``a`` with probabilities ``p``
        scores ``p @ coef_[a] + intercept_[a]`` and gets the class of highest score.
    intercept_ : ndarray of shape (n_groups, n_classes)
    multipliers_ : ndarray of shape (n_groups, n_classes) or (n_groups, n_classes, n_classes)
        The Lagrange multipliers of the constraints. Demographic parity: ``multipliers_[a, k]``
        is subtracted from the (objective-weighted) probability of class ``k`` in group
        ``a``. Equalized odds: ``p @ multipliers_[a]`` is, indexed by true class then
        predicted class.
    rates_ : dict of ndarray
        Expected rates of the rule on the fitting data: ``"selection_rate"`` of shape
        (n_groups, n_classes), the share of each group predicted each class, and
        ``"class_rate"`` of shape (n_groups, n_classes, n_classes), the share of each group
        and true class (from the model's probabilities) predicted each class (NaN where a
        group has no weight in a true class).
    objective_value_ : float
        Expected objective of the rule on the fitting data.
    constraint_gap_ : float
        Its expected ``U_DP`` (``U_EO``) there: at most ``tolerance``.
    optimality_gap_ : float
        The linear program's certificate: how far its Lagrangian bound lies above
        ``objective_value_`` (below 1e-12 when solved to optimality).
    {columns_in}

    See Also
    --------
    GroupThresholdClassifier : The binary counterpart, on the ROC curves of the groups with
        observed labels.
    threshold_pareto_front : The objective against the unfairness over many tolerances.
    skfair.metrics.demographic_parity_unfairness : ``U_DP``.
    skfair.metrics.equalized_odds_unfairness : ``U_EO``.

    Notes
    -----
    **The program.** A randomised rule gives row ``i`` a distribution ``q_i`` over the
    classes. Taking the true class to follow the model's probabilities ``p_i`` (the
    plug-in view of Denis et al. 2021, who fit the multipliers on unlabelled data), the
    expected objective ``sum_i w_i sum_k o_k p_ik q_ik`` and every rate ``U_DP`` or ``U_EO``
    compares are linear in the ``q_i``, so the best rule is a linear program. Its Lagrangian
    separates over the rows: each row's best response is the argmax of
    ``o_k p_ik - lambda_{a,k}`` (demographic parity: per-group, per-class shifts, the form of
    Denis et al.'s optimal fair classifier) or of ``o_k p_ik - sum_j p_ij mu_{a,j,k}``
    (equalized odds), randomised where classes tie. The per-row program (``n_samples *
    n_classes`` variables) is solved on blocks of rows, each given one class distribution,
    split until the per-row optimality conditions hold (the optimum is then certified by the
    Lagrangian bound, ``optimality_gap_``). Each solve has one variable per block and class
    and ``n_blocks + (2 n_groups + 1) D n_classes`` rows (``D = 1`` for demographic parity,
    ``n_classes`` for equalized odds); blocks are few because the rows clearly inside one
    class's region are merged. The first blocks come from the multipliers that minimise the
    Lagrangian bound with each row's maximum smoothed (a log-sum-exp, by L-BFGS-B): rows
    whose best class leads there start merged, the others alone, which often leaves one
    solve to make.

    **Ties.** Where the multipliers tie classes, the optimum may split the tied rows between
    them depending on the row: with equalized odds a group's classes can tie for all its
    rows, as Hardt, Price & Srebro's (2016) equalized-odds thresholds mix two thresholds and a
    coin. A tied row draws one of a few tie-breaking rules of its group (each an argmax of
    other linear scores among the tied classes), mixed so that the fitting data get exactly
    the optimal rates; with demographic parity these are priority orders of the classes.

    **Exactness.** On the fitting data the expected ``U_DP`` (or ``U_EO``) of the rule is at
    most ``tolerance`` up to the solver's tolerance (1e-9), and the expected objective is the
    optimum of the per-row program. ``U_DP`` needs no labels; ``U_EO`` is enforced for the
    model's law of the label given the row, which matches the observed labels when the
    model is calibrated.

    **Decisions.** Only rows whose classes the rule ties draw at random, one of their group's
    tie-breaking rules, through the same draws as :class:`GroupThresholdClassifier`'s
    randomised decisions: with ``sampling="row"`` a hash of the row's values as the model
    receives them (a fixed projection of its probabilities when they cannot be read), its
    group and the seed, so the draw is reproducible and does not depend on the batch, the
    copies of a row repeated in a batch drawing apart; with ``sampling="batch"``, systematic
    sampling of the rules within each group of the batch (Madow & Madow 1944). The rules
    are drawn one at a time from the last, each with its probability given the later ones
    (two rules: one Bernoulli draw, as in the binary case). There is no ``predict_proba``: the
    rule's class probabilities (:meth:`decision_probability`) are not estimates of
    ``P(y | X)``.

    References
    ----------
    Denis, C., Elie, R., Hebiri, M. and Hu, F. (2021). Fairness guarantee in multi-class
    classification. arXiv:2109.13642.

    Hardt, M., Price, E. and Srebro, N. (2016). Equality of Opportunity in Supervised Learning.
    NeurIPS.

    Madow, W. G. and Madow, L. H. (1944). On the theory of systematic sampling, I. The Annals
    of Mathematical Statistics 15(1), 1-24.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.metrics import demographic_parity_unfairness
    >>> from skfair.postprocessing import MulticlassGroupThresholdClassifier
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 3000)
    >>> X = np.c_[rng.normal(size=(3000, 2)) + group[:, None], group]
    >>> y = np.digitize(X[:, 0] + rng.normal(size=3000), [0.0, 1.0])  # classes 0, 1, 2
    >>> clf = MulticlassGroupThresholdClassifier(
    ...     LogisticRegression(), sensitive_column=2, random_state=0).fit(X, y)
    >>> bool(clf.constraint_gap_ < 1e-9)
    True
    >>> before = demographic_parity_unfairness(None, clf.estimator_.predict(X[:, :2]),
    ...                                        sensitive_features=group)
    >>> after = demographic_parity_unfairness(None, clf.predict(X), sensitive_features=group)
    >>> bool(before > 0.15 and after < 0.01)
    True
    """

    _parameter_constraints: dict = {
        **GroupDecisionMixin._parameter_constraints,
        "estimator": [HasMethods(["fit", "predict_proba"])],
        "constraint": [StrOptions(set(CONSTRAINTS))],
        "objective": [StrOptions(set(OBJECTIVES))],
    }

    def __init__(
        self,
        estimator,
        *,
        constraint="demographic_parity",
        objective="accuracy",
        tolerance=0.0,
        cv=5,
        sampling="row",
        sensitive_column=None,
        drop_sensitive=True,
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.constraint = constraint
        self.objective = objective
        self.tolerance = tolerance
        self.cv = cv
        self.sampling = sampling
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)  # the model validates itself
    def fit(self, X, y=None, sample_weight=None, *, sensitive_features=None, **fit_params):
        """Fit the model and choose the rule.

        {parameters_X_fit}
        y : array-like of shape (n_samples,), default=None
            Class labels; needed to fit the model, optional for a
            :class:`~sklearn.frozen.FrozenEstimator` (the rule needs none).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rule's objective and rates, and of the model's fit when its
            ``fit`` accepts them.
        sensitive_features : array-like, dict or DataFrame, default=None
            Sensitive attribute(s), when ``sensitive_column`` is not set. None (and no
            ``sensitive_column``) means one group: the rule is the argmax of the
            (objective-weighted) probabilities.
        **fit_params : dict
            Passed to the model's ``fit`` (routed to it with metadata routing enabled).

        Returns
        -------
        self : object
            Fitted classifier.
        """
        refuse_dask_fit(self, X, y, sample_weight, sensitive_features)
        sensitive, X_model = meta_model_input(self, X, sensitive_features, reset=True)
        y = self._check_target(y)
        if y is not None:
            check_consistent_length(X_model, y)
        n_samples = X_model.shape[0]
        weights = check_weights(sample_weight, n_samples)
        weights = np.ones(n_samples) if weights is None else weights
        codes, n_groups = self._fit_groups(sensitive, n_samples)
        routed = route_fit_params(
            self, fit_params, sample_weight=sample_weight, sensitive_features=sensitive_features
        )
        probabilities = self._fit_model(X_model, y, routed)
        self._fit_rule(probabilities, weights, codes, n_groups)
        self._seed = draw_seed(self.random_state)
        return self

    def _check_target(self, y):
        """Checked y (or None) and ``classes_``: the model's classes for a fitted model."""
        frozen = isinstance(self.estimator, FrozenEstimator)
        if y is None:
            if not frozen:
                raise ValueError(
                    f"{type(self).__name__} requires y to be passed, but the target y is None: "
                    "its model is fitted on y (y may be None only for a fitted model wrapped "
                    "in FrozenEstimator)."
                )
        else:
            y = vector_1d(y)
            check_classification_targets(y)
        if not frozen:
            self.classes_ = np.unique(y)
            return y
        self.classes_ = np.asarray(self.estimator.classes_)
        if y is not None:
            unknown = np.setdiff1d(np.unique(y), self.classes_)
            if unknown.size:
                raise ValueError(
                    f"y holds classes {unknown.tolist()[:10]} that the fitted model does not "
                    f"predict (its classes_ are {self.classes_.tolist()[:10]})."
                )
        return y

    def _scores(self, estimator, X):
        """Class probabilities of ``estimator`` on X, one column per class of ``classes_``."""
        probabilities, _, _ = get_response_values(estimator, X, "predict_proba")
        probabilities = np.asarray(probabilities, dtype=np.float64)
        model_classes = np.asarray(estimator.classes_)
        if probabilities.ndim == 1:  # binary: the column of the last class
            probabilities = np.c_[1.0 - probabilities, probabilities]
        if not np.isfinite(probabilities).all():
            raise ValueError(
                f"{type(estimator).__name__}.predict_proba returned NaN or infinite values; "
                "the rule needs finite class probabilities."
            )
        sums = probabilities.sum(axis=1)
        if (probabilities < -1e-12).any() or np.abs(sums - 1.0).max() > 1e-6:
            raise ValueError(
                f"{type(estimator).__name__}.predict_proba returned rows that are not "
                "probability distributions (negative values or sums away from 1 by more than "
                "1e-6); the rule needs class probabilities."
            )
        probabilities = probabilities.clip(0.0) / sums[:, None]
        if np.array_equal(model_classes, self.classes_):
            return probabilities
        # a fold model may have seen fewer classes: its columns go to theirs, zeros elsewhere
        aligned = np.zeros((probabilities.shape[0], self.classes_.shape[0]))
        aligned[:, np.searchsorted(self.classes_, model_classes)] = probabilities
        return aligned

    def _fit_rule(self, probabilities, weights, codes, n_groups):
        mass = np.bincount(codes, weights=weights, minlength=n_groups)
        if (mass <= 0).any():
            raise ValueError(
                f"Group(s) {[self.groups_[g] for g in np.flatnonzero(mass <= 0)]} have zero "
                "total sample weight; their rule cannot be chosen. Give them positive weight "
                "or drop them."
            )
        program = FairArgmaxProgram(
            probabilities, weights, codes, n_groups, self.constraint, self.objective
        )
        solution = program.solve(self.tolerance)
        self._rule = program.rule(solution)
        self.coef_, self.intercept_ = self._rule.coef, self._rule.intercept
        prices = -solution.prices
        self.multipliers_ = prices[:, 0, :] if self.constraint == "demographic_parity" else prices
        self.optimality_gap_ = solution.bound_gap
        decisions = self._rule.probabilities(probabilities, codes)
        self.rates_, self.objective_value_, self.constraint_gap_ = decision_summary(
            probabilities,
            decisions,
            weights,
            codes,
            self.groups_,
            self.constraint,
            self.objective,
            self.classes_,
            self.tolerance,
        )

    def decision_probability(self, X, *, sensitive_features=None):
        """Probability that ``predict`` returns each class, for each row.

        These are the randomised rule's probabilities, not estimates of ``P(y | X)``.

        {parameters_X_groups}

        Returns
        -------
        probability : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        if uses_dask(X, sensitive_features):
            return lazy_method(
                self,
                "decision_probability",
                X,
                sensitive_features,
                trailing_shape=(len(self.classes_),),
                dtype=np.float64,
            )
        probabilities, codes, _ = self._scores_and_codes(X, sensitive_features)
        return self._rule.probabilities(probabilities, codes)

    def predict(self, X, *, sensitive_features=None):
        """Randomised fair decisions.

        {parameters_X_groups}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Drawn as ``sampling`` says. On a dask collection (``sampling="row"`` only), a
            lazy dask array: the classes equal those of ``predict`` called on each partition
            in turn, which are the in-memory ones except for copies of a row that fall in
            different partitions.
        """
        if uses_dask(X, sensitive_features):
            return self._predict_on_dask(X, sensitive_features)
        probabilities, codes, X_model = self._scores_and_codes(X, sensitive_features)
        key_scores = probabilities @ np.resize(_KEY_WEIGHTS, probabilities.shape[1])

        def choose(rows, shares):
            return self._draw(shares, rows, X_model, key_scores, codes)

        return self.classes_[self._rule.decide(probabilities, codes, choose)]


def decision_summary(
    probabilities,
    decisions,
    weights,
    codes,
    group_labels,
    constraint,
    objective,
    classes,
    tolerance,
):
    """Expected rates, objective and unfairness of randomised decisions.

    ``decisions[i, k]`` is the probability that row ``i`` is predicted class ``k``; the
    true class follows ``probabilities``. Returns ``(rates, objective_value, gap)`` with the
    gap measured as :func:`~skfair.metrics.demographic_parity_unfairness` or
    :func:`~skfair.metrics.equalized_odds_unfairness` measure it; a gap above ``tolerance``
    by more than 1e-9 is reported with a ``ConvergenceWarning``.
    """
    n_groups, K = len(group_labels), probabilities.shape[1]
    weighted = (weights / weights.sum())[:, None] * decisions
    selection = np.stack(
        [np.bincount(codes, weighted[:, k], minlength=n_groups) for k in range(K)], axis=1
    )  # (group, predicted class)
    joint = np.stack(
        [
            np.stack(
                [
                    np.bincount(codes, weighted[:, k] * probabilities[:, j], minlength=n_groups)
                    for k in range(K)
                ],
                axis=1,
            )
            for j in range(K)
        ],
        axis=1,
    )  # (group, true class, predicted class)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = {
            "selection_rate": selection / selection.sum(axis=1, keepdims=True),
            "class_rate": joint / joint.sum(axis=2, keepdims=True),
        }
    correct = np.einsum("gkk->k", joint)
    if objective == "accuracy":
        value = float(correct.sum())
    else:
        class_mass = joint.sum(axis=(0, 2))
        present = class_mass > 0
        value = float(np.mean(correct[present] / class_mass[present]))
    if n_groups < 2:
        return rates, value, 0.0
    groups = SimpleNamespace(n_groups=n_groups, labels=group_labels)
    if constraint == "demographic_parity":
        counts, strata = selection[:, None, :], None
    else:
        counts, strata = joint, classes
    gap = _max_gap_to_population(counts, groups, strata=strata)
    if gap > tolerance + 1e-9:
        warnings.warn(
            f"The rule's unfairness on the fitting data is {gap:.3g}, above the tolerance "
            f"{tolerance:.3g}: the solver could not meet it to rounding (classes whose "
            "probabilities differ only by amounts near 1e-90 can do this). Allow a slightly "
            "larger tolerance.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return rates, value, gap
