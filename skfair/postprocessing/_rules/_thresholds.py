"""``GroupThresholdClassifier``: optimal group-specific randomised thresholds under a fairness
constraint (Hardt, Price & Srebro 2016), exact on every distinct score."""

from __future__ import annotations

from dataclasses import replace
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.frozen import FrozenEstimator
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import (
    check_consistent_length,
)

from skfair._base import (
    FIT_IN_MEMORY,
    check_meta_input,
    labels_and_groups,
    lazy_method,
    other_library_names,
    record_input_columns,
    require_y,
    resolve_sensitive,
    route_fit_params,
)
from skfair._dask import round_to_grid, uses_dask
from skfair._stats._roc import score_blocks
from skfair._utils._compat import (
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
)
from skfair._utils._random import draw_seed
from skfair._utils._response import get_response_values
from skfair._utils._validation import check_weights, vector_1d
from skfair.postprocessing._docs import documented
from skfair.postprocessing._rules._group_decision import GroupDecisionMixin
from skfair.postprocessing._rules._threshold_lp import (
    CONSTRAINTS,
    OBJECTIVES,
    constraint_gap,
    group_geometry,
    group_rule,
    rule_rates,
    solve_thresholds,
)
from skfair.postprocessing._rules._thresholds_on_dask import score_tables

_COST_KEYS = ("false_positive", "false_negative")


@other_library_names(
    parameters={
        None: "every parameter after the estimator is a keyword, e.g. "
        "GroupThresholdClassifier(model, constraint='equalized_odds').",
        "constraints": "the parameter is constraint= (fairlearn's constraints=), with the "
        "same names: 'demographic_parity', 'equalized_odds', 'true_positive_rate_parity', ...",
        "prefit": "there is no prefit=; wrap a fitted model in "
        "sklearn.frozen.FrozenEstimator (fairlearn's prefit=True), or pass an unfitted one "
        "to fit it with cv.",
        "predict_method": "the parameter is response_method= (fairlearn's predict_method=): "
        "'auto', 'predict_proba', 'decision_function' or 'predict'.",
        "grid_size": "there is no grid: the thresholds are exact, taken over every distinct "
        "score (fairlearn's grid_size= approximates them).",
        "flip": "there is no flip=: the rules are the randomised thresholds of the upper "
        "convex hull of each group's ROC curve; negate a score that decreases with the "
        "positive class.",
    },
    method_keywords={
        "predict": {
            "random_state": "the decisions are drawn from the random_state given at "
            "construction, keyed on each row, so a row gets the same decision on every "
            "call (fairlearn draws anew at each predict(X, random_state=...)).",
        },
    },
    attributes={
        "_pmf_predict": "the probability of a positive decision of each row is "
        "decision_probability(X, sensitive_features=...) (fairlearn's _pmf_predict).",
    },
)
@documented
class GroupThresholdClassifier(
    GroupDecisionMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator
):
    """Group-specific randomised thresholds that meet a fairness constraint optimally.

    A binary classifier's score is turned into a decision by a threshold of its own for each
    group of the sensitive features, randomised where the optimum needs it, chosen so that
    ``constraint`` holds up to ``tolerance`` while ``objective`` is as high as possible
    (Hardt, Price & Srebro 2016). The optimum is exact: it is taken over every distinct score
    value (no grid) as a linear program over the groups' ROC convex hulls, for any number of
    groups; 2-D sensitive features give intersectional groups. A model that only predicts
    labels is post-processed by flipping its labels at random, group by group (Hardt et al.'s
    derived predictor).

    Parameters
    ----------
    estimator : classifier
        Binary classifier. Its score is ``predict_proba`` or ``decision_function``; a model
        with neither (or ``response_method="predict"``) is used through its labels. A fitted
        model is wrapped in :class:`sklearn.frozen.FrozenEstimator`: it is not refitted and
        the data passed to ``fit`` serve to choose the thresholds (prefer held-out data).
    constraint : str, default="demographic_parity"
        What is made equal across groups: ``"demographic_parity"`` (selection rate),
        ``"equalized_odds"`` (true and false positive rates), ``"true_positive_rate_parity"``
        (equal opportunity), ``"false_positive_rate_parity"``, ``"true_negative_rate_parity"``,
        ``"false_negative_rate_parity"`` or ``"predictive_parity"`` (precision, the share of
        positive decisions that are right; a group that selects nobody has none).
    objective : str, default="accuracy"
        Maximised: ``"accuracy"``, ``"balanced_accuracy"``, ``"true_positive_rate"`` or
        ``"true_negative_rate"`` (the last two alone are maximised by predicting everyone
        positive, respectively negative; they are there for parity with other libraries);
        or ``"cost"``, which minimises the expected cost of errors priced by ``cost``.
    tolerance : float, default=0.0
        Largest allowed difference of the constrained rate(s) between any two groups
        (0 is exact parity). Tune it with ``GridSearchCV`` to trade fairness for the objective.
    cost : dict, default=None
        With ``objective="cost"``, the price of an error:
        ``{"false_positive": c_fp, "false_negative": c_fn}`` (non-negative, not both 0). The
        expected cost ``(c_fp * FP + c_fn * FN) / n`` (FP, FN weighted by ``sample_weight``)
        is minimised.
    response_method : {"auto", "predict_proba", "decision_function", "predict"}, \
            default="auto"
        The score: ``"auto"`` takes ``predict_proba`` when the model has it, else
        ``decision_function``, else the labels of ``predict`` (1 for ``pos_label``, 0 else).
    pos_label : int, float, bool or str, default=None
        The positive class; None takes the greater class label.
    cv : int, cross-validation generator or iterable, default=5
        The thresholds are chosen on out-of-fold scores from these splits (stratified for an
        integer) and the model is then refitted on all data, like
        :class:`sklearn.model_selection.TunedThresholdClassifierCV`. Ignored for a
        :class:`~sklearn.frozen.FrozenEstimator`.
    sampling : {"row", "batch"}, default="row"
        How ``predict`` draws the randomised decisions. ``"row"``: each row on its own, from
        a random number keyed on its values, its group and ``random_state``: a row gets the
        same decision alone, on every call and whatever other rows the batch holds; the
        copies of a row repeated in a batch do not share a draw but hold the expected number
        of positives, rounded. ``"batch"``: within each group of the batch, the rows whose
        decision is random are taken in score order and the number of positives is the
        expected number rounded by a random offset shared by the groups (systematic
        sampling), so the selection rates of the batch are within one row of the expected
        ones; a row's decision then depends on the other rows of the batch. See Notes.
        ``"batch"`` is refused on dask collections.
    resolution : float, default=None
        Round the scores the thresholds are chosen on to the grid ``k * resolution`` (half
        up) first; None takes them as they are. This bounds the groups' ROC tables by
        ``(max - min) / resolution + 1`` scores each, which a fit on dask collections with
        continuous scores needs (see Notes); in memory and on dask alike, the rules are then
        exactly those of the rounded scores. Thresholds fall midway between grid points, so
        a new score is decided as its rounded value would be.
    {sensitive_column_rule}
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the randomised decisions; None draws a seed at fit. The decisions of a fitted
        classifier are a function of this seed and of the rows, never of a generator's state:
        ``predict`` returns the same decisions on every call.
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
        Per group, the upper and lower score threshold of the rule. Each lies midway between
        two adjacent scores of the fitting rows; a group decided the same way for every score
        has both at ``-inf`` (everyone positive) or ``+inf`` (otherwise).
    decision_probabilities_ : ndarray of shape (n_groups, 3)
        Per group, the probability of predicting ``pos_label_`` for a score at or above the
        upper threshold, in ``[lower, upper)``, and below the lower threshold. Non-increasing
        along a row; a row of the form ``(1, p, 0)`` is a threshold mixed with probability
        ``p`` between two adjacent score values; a first entry below 1 or a last entry
        above 0 randomises the scores above, respectively below, the band too.
    rates_ : dict of ndarray of shape (n_groups,)
        Expected ``"selection_rate"``, ``"true_positive_rate"``, ``"false_positive_rate"``,
        ``"true_negative_rate"``, ``"false_negative_rate"`` and
        ``"positive_predictive_value"`` of each group on the data the thresholds were chosen
        on (NaN where a group lacks the class the rate conditions on, or selects nobody).
    objective_value_ : float
        Expected objective on that data (for ``objective="cost"``, the expected cost per unit
        of sample weight: lower is better).
    constraint_gap_ : float
        Expected largest difference of the constrained rate(s) between two groups there.
    hulls_ : list of tuple of ndarray
        Per group, the vertices ``(fpr, tpr, thresholds)`` of the upper ROC hull (None for a
        group with a single class).
    {columns_in}

    See Also
    --------
    sklearn.model_selection.TunedThresholdClassifierCV : One threshold for everyone, tuned for
        a metric.
    RepairedClassifier : Repairs the score distributions instead of the decisions.
    skfair.plotting.GroupThresholdDisplay : The groups' ROC curves, hulls and chosen points.

    Notes
    -----
    **The program.** Each group's reachable operating points ``(FPR, TPR)`` form the convex
    hull of its ROC points; every objective offered (the cost too) and every rate parity is
    linear in them, so the optimum is a linear program with one inequality per hull segment
    (Hardt et al. 2016, Section 4). For these objectives an optimum lies on or above the
    diagonal, where every point is reached by a rule monotone in the score. A point on the
    hull is one randomised threshold; a point under it (the groups that equalized odds holds
    below their best) has many representations, such as the hull point at the same FPR mixed
    with a score-blind coin, which randomises every row of the group: the rule kept is the
    one, among that coin and the mixtures of two hull vertices with "nobody" or "everybody",
    whose independent decisions make the group's TPR and FPR vary least. Hull vertices are
    found exactly by pool-adjacent-violators (Fawcett & Niculescu-Mizil 2007); the fitted
    rates are recomputed from the rules on the data, and the constraint holds there up to the
    solver's 1e-10 feasibility tolerance. Sample weights enter through their shares only:
    weights of any common scale give the unweighted thresholds.

    **Predictive parity.** Equal precision ``TP / (TP + FP)`` is a ratio, linear only for a
    fixed common value ``c``. For a fixed ``c`` the groups decouple, and each group's best
    point is a hull point whose gain, as ``c`` moves along one hull segment, is a ratio of
    two linear functions of ``c``. The optimum is found exactly by evaluating every
    breakpoint (the hull vertices' precisions and their shifts by ``tolerance``) and every
    stationary point of these ratios between breakpoints (roots of a polynomial). The rules
    stay monotone in the score, so a group's precision is at least its base rate; a group
    that selects nobody has no precision and does not constrain the others.

    **Cuts.** On the fitting rows a rule "score >= t" decides alike for every ``t`` between
    two adjacent distinct scores; the threshold is put at their midpoint, so a new score
    falling in the gap is decided by whichever side it is nearer (an overfit model separates
    the classes of the fitting rows by a wide gap, and a cut at the gap's edge would push
    new rows to one side). A label-only model's labels are the scores 1 and 0, cut at 0.5:
    the rule flips predicted positives to negative with probability ``1 - p_0`` and predicted
    negatives to positive with probability ``p_1`` in each group.

    **Decisions.** The decisions are random only inside a group's band ``[lower, upper)`` or
    through the coin. With ``sampling="row"``, a row's draw is a hash of its values as the
    model receives them (column by column, read as numbers when numeric, so the dtype and the
    frame library do not matter), its group and the seed: reproducible, independent of
    batching and of the row's position. Distinct rows draw like independent coins, so the
    realised rates of a batch vary around the expected ones with a standard deviation of
    ``sqrt(sum p (1 - p)) / n_group``. The ``k``-th copy of a row repeated in the batch is
    positive when ``floor(u + (k + 1) p) > floor(u + k p)``, ``u`` the row's number: each copy
    is positive with probability ``p`` and the ``m`` copies hold ``m p`` positives rounded
    (systematic sampling among them), so data with many repeated rows (a few categorical
    features) vary less than independent draws, not more as with one shared draw.

    With ``sampling="batch"``, within each group the rows of random decision, in score order
    (ties in random order), are decided by systematic sampling (Madow & Madow 1944) with one
    random offset ``u`` shared by the groups and derived from the seed and the batch's rows:
    every row is still positive with its own probability, but the number of positives of a group
    is its expected number rounded down or up, with an error in ``(u - 1, u]`` common to all
    groups; so the selection rates of any two groups differ by at most their expected difference
    plus ``1 / n`` for the smaller group's ``n`` rows (on the rows the thresholds were chosen
    on, the expected difference is at most ``tolerance``). Rates conditioned on the true label
    (which ``predict`` does not see) are not bounded that way, but the score order spreads the
    positive decisions evenly over the band, which makes them vary less than with independent
    draws. The cost of the batch mode is that a row's decision depends on the batch it comes
    with.

    For sparse input the rows are keyed on their stored entries, and inputs whose rows cannot be
    read (a list of texts or dicts for a vectoriser) on the score (its 32 leading mantissa bits,
    so that last-bit differences of the model's arithmetic between batch sizes do not matter);
    then rows of a group with one score are decided as copies of one row.

    There is no ``predict_proba``: the rule's probability of a positive decision (given by
    :meth:`decision_probability`) is not an estimate of ``P(y = 1 | X)``, and scorers would
    misread it.

    **Dask input.** ``fit`` accepts dask collections when the model is already fitted
    (a :class:`~sklearn.frozen.FrozenEstimator`): the thresholds depend on the data only
    through each group's ROC table (its distinct scores with the weight of positive and
    negative rows at each), which every partition computes from the model's scores and which
    merge on the workers; the linear program then runs on the merged tables, and the rules
    equal the in-memory ones (up to the rounding of the weights' sums). Nothing of the length
    of the data reaches the client; the tables are kept below 2**21 scores, so continuous
    scores need ``resolution`` (the fit is then exactly the in-memory fit with the same
    ``resolution``: the scores move by at most ``resolution / 2``, and the optimum over the
    rounded scores is within the objective's change over that move of the optimum over the
    raw ones). A model fitted with ``cv`` trains on all rows in memory: that ``fit`` refuses
    dask collections with a TypeError. ``predict`` and ``decision_probability`` return lazy
    dask arrays, block by block; with ``sampling="row"`` the decisions are the in-memory ones
    (a row's random draw is keyed on its content; only copies of a row that fall in
    different partitions draw as in different batches). ``sampling="batch"`` is refused on
    dask collections with a TypeError: its systematic sampling takes a group's randomised
    rows in score order over the whole batch, a sort of all rows, not a table of them.
    ``score`` sums the right and wrong decisions over the partitions.

    References
    ----------
    Hardt, M., Price, E. and Srebro, N. (2016). Equality of Opportunity in Supervised Learning.
    NeurIPS.

    Fawcett, T. and Niculescu-Mizil, A. (2007). PAV and the ROC convex hull. Machine Learning
    68, 97-106.

    Madow, W. G. and Madow, L. H. (1944). On the theory of systematic sampling, I. The Annals
    of Mathematical Statistics 15(1), 1-24.

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
    ...                                sensitive_column=1, sampling="batch",
    ...                                random_state=0).fit(X, y)
    >>> bool(clf.constraint_gap_ < 1e-9)
    True
    >>> decisions, probability = clf.predict(X), clf.decision_probability(X)
    >>> # in each group, the number of positive decisions is the expected number rounded
    >>> [bool(abs(decisions[group == g].sum() - probability[group == g].sum()) < 1)
    ...  for g in (0, 1)]
    [True, True]
    """

    _parameter_constraints: dict = {
        **GroupDecisionMixin._parameter_constraints,
        "estimator": [
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
            HasMethods(["fit", "predict"]),
        ],
        "constraint": [StrOptions(set(CONSTRAINTS))],
        "objective": [StrOptions(set(OBJECTIVES))],
        "cost": [dict, None],
        "response_method": [StrOptions({"auto", "predict_proba", "decision_function", "predict"})],
        "pos_label": [Real, str, "boolean", None],
        "resolution": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        estimator,
        *,
        constraint="demographic_parity",
        objective="accuracy",
        tolerance=0.0,
        cost=None,
        response_method="auto",
        pos_label=None,
        cv=5,
        sampling="row",
        resolution=None,
        sensitive_column=None,
        drop_sensitive=True,
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.constraint = constraint
        self.objective = objective
        self.tolerance = tolerance
        self.cost = cost
        self.response_method = response_method
        self.pos_label = pos_label
        self.cv = cv
        self.sampling = sampling
        self.resolution = resolution
        self.sensitive_column = sensitive_column
        self.drop_sensitive = drop_sensitive
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)  # the model validates itself
    def fit(self, X, y, sample_weight=None, *, sensitive_features=None, **fit_params):
        """Fit the model and choose the thresholds.

        {parameters_X_fit}
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
            Fitted classifier.
        """
        if uses_dask(X, y, sample_weight, sensitive_features):
            if not isinstance(self.estimator, FrozenEstimator):
                raise FIT_IN_MEMORY.error(f"{type(self).__name__}.fit")
            return self._fit_on_dask(X, y, sample_weight, sensitive_features)
        X = check_meta_input(self, X, self.estimator, reset=True)
        self._cost = _check_cost(self.objective, self.cost)
        sensitive, X_model = resolve_sensitive(
            X, sensitive_features, self.sensitive_column, drop=self.drop_sensitive
        )
        y = self._check_binary_target(y)
        check_consistent_length(X, y)
        n_samples = y.shape[0]
        weights = check_weights(sample_weight, n_samples)
        codes, n_groups = self._fit_groups(sensitive, n_samples)
        routed = route_fit_params(
            self, fit_params, sample_weight=sample_weight, sensitive_features=sensitive_features
        )
        scores = self._fit_model(X_model, y, routed)
        self._fit_rules(scores, y == self.pos_label_, weights, codes, n_groups)
        self._seed = draw_seed(self.random_state)
        return self

    def _fit_on_dask(self, X, y, sample_weight, sensitive_features):
        """Fit a frozen model's thresholds on dask collections, from per-partition ROC tables
        (see :mod:`skfair.postprocessing._rules._thresholds_on_dask`)."""
        self._cost = _check_cost(self.objective, self.cost)
        if uses_dask(X):
            record_input_columns(self, X)
        else:
            X = check_meta_input(self, X, self.estimator, reset=True)
        if y is None:
            self._check_binary_target(y)  # the message that y is required
        y_table, sensitive, weights, _ = labels_and_groups(
            self, X, y, sample_weight, sensitive_features
        )
        self._check_binary_target(y_table)
        _, n_groups = self._fit_groups(sensitive, y_table.shape[0])
        self.estimator_ = self.estimator
        table = score_tables(
            self,
            X,
            y,
            sample_weight,
            None if self.sensitive_column is not None else sensitive_features,
            n_groups,
        )
        blocks = table.blocks
        if sample_weight is not None:  # in units of the smallest weight, as in memory
            with np.errstate(over="ignore"):
                blocks = replace(
                    blocks,
                    positive=blocks.positive / table.smallest_weight,
                    negative=blocks.negative / table.smallest_weight,
                )
            if not np.isfinite(blocks.positive.sum() + blocks.negative.sum()):
                smallest = f"{table.smallest_weight:.3g}"
                raise ValueError(_WEIGHT_RANGE.format(smallest, "their largest"))
        self._fit_rules_on_blocks(blocks)
        self._seed = draw_seed(self.random_state)
        return self

    def _check_binary_target(self, y):
        require_y(self, y)
        y = vector_1d(y)
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

    def _scores(self, estimator, X):
        """The positive-class score of ``estimator``; its labels as 1 / 0 without a score."""
        if self.response_method == "predict" or (
            self.response_method == "auto"
            and not hasattr(estimator, "predict_proba")
            and not hasattr(estimator, "decision_function")
        ):
            return (np.asarray(estimator.predict(X)) == self.pos_label_).astype(np.float64)
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

    def _fit_rules(self, scores, positive, weights, codes, n_groups):
        n_samples = scores.shape[0]
        weights = np.ones(n_samples) if weights is None else relative_weights(weights)
        if self.resolution is not None:
            scores = round_to_grid(scores, self.resolution)
        self._fit_rules_on_blocks(score_blocks(scores, positive, weights, codes, n_groups))

    def _fit_rules_on_blocks(self, blocks):
        """Choose the rules from the groups' ROC tables (weights in any common unit)."""
        n_groups = blocks.group_starts.shape[0] - 1
        group_of = np.repeat(np.arange(n_groups), np.diff(blocks.group_starts))
        total = np.bincount(group_of, blocks.positive + blocks.negative, minlength=n_groups)
        zero = total <= 0
        if zero.any():
            raise ValueError(
                f"Group(s) {[self.groups_[g] for g in np.flatnonzero(zero)]} have zero total "
                "sample weight; their thresholds cannot be chosen. Give them positive weight or "
                "drop them."
            )
        for weight, name in ((blocks.positive, "positive"), (blocks.negative, "negative")):
            if not weight.sum() > 0:
                raise ValueError(
                    f"The {name} class has zero total sample weight; the rates conditioned on "
                    "it are undefined. Give its samples positive weight."
                )
        geometries = [group_geometry(blocks, g) for g in range(n_groups)]
        fpr, tpr = solve_thresholds(
            geometries, self.constraint, self.objective, self.tolerance, cost=self._cost
        )
        rules = [group_rule(geo, x, y) for geo, x, y in zip(geometries, fpr, tpr)]
        self.thresholds_ = np.array([[rule.upper, rule.lower] for rule in rules])
        self.decision_probabilities_ = np.array([rule.probabilities for rule in rules])
        self.hulls_ = [geo.hull for geo in geometries]
        achieved = np.array([rule_rates(geo, rule) for geo, rule in zip(geometries, rules)])
        pos = np.array([geo.positive for geo in geometries])
        neg = np.array([geo.negative for geo in geometries])
        self.rates_ = _rates_table(achieved[:, 0], achieved[:, 1], pos, neg)
        self.objective_value_ = _objective_value(self.objective, self.rates_, pos, neg, self._cost)
        self.constraint_gap_ = constraint_gap(self.constraint, self.rates_)

    def decision_probability(self, X, *, sensitive_features=None):
        """Probability that ``predict`` returns ``pos_label_`` for each row.

        This is the randomised rule's probability, not an estimate of ``P(y = 1 | X)``.

        {parameters_X_groups}

        Returns
        -------
        probability : ndarray of shape (n_samples,)
            Probability, in [0, 1], that the randomised rule decides ``pos_label_`` for each
            row.
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

    def predict(self, X, *, sensitive_features=None):
        """Randomised group-specific threshold decisions.

        {parameters_X_groups}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``pos_label_`` or the other class; drawn as ``sampling`` says. On a dask
            collection (``sampling="row"`` only), a lazy dask array: the decisions equal
            those of ``predict`` called on each partition in turn, which are the in-memory
            ones except for copies of a row that fall in different partitions.
        """
        if uses_dask(X, sensitive_features):
            return self._predict_on_dask(X, sensitive_features)
        scores, codes, X_model = self._scores_and_codes(X, sensitive_features)
        positive = self._decide(self._probability(scores, codes), scores, codes, X_model)
        negative_label = self.classes_[self.classes_ != self.pos_label_][0]
        return np.where(positive, self.pos_label_, negative_label).astype(self.classes_.dtype)

    def _decide(self, probability, scores, codes, X_model):
        """The decisions with the given probabilities, drawn as ``sampling`` says."""
        decisions = probability >= 1
        drawn = np.flatnonzero((probability > 0) & (probability < 1))
        if drawn.size:
            # Identical rows have one score, so they are drawn together and counted together;
            # in batch mode a group's rows of random decision are taken in score order.
            shares = np.c_[1.0 - probability[drawn], probability[drawn]]
            choices = self._draw(shares, drawn, X_model, scores, codes, order=(-scores[drawn],))
            decisions[drawn] = choices == 1
        return decisions

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


# --------------------------------------------------------------------------------------------
# small pure helpers


def _rates_table(fpr, tpr, positive, negative):
    share = positive / (positive + negative)
    true_positive = np.where(positive > 0, positive * np.nan_to_num(tpr), 0.0)
    false_positive = np.where(negative > 0, negative * np.nan_to_num(fpr), 0.0)
    selected = true_positive + false_positive
    selection = np.where(positive > 0, share * np.nan_to_num(tpr), 0.0) + np.where(
        negative > 0, (1 - share) * np.nan_to_num(fpr), 0.0
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(selected > 0, true_positive / selected, np.nan)
    return {
        "selection_rate": selection,
        "true_positive_rate": tpr,
        "false_positive_rate": fpr,
        "true_negative_rate": 1.0 - fpr,
        "false_negative_rate": 1.0 - tpr,
        "positive_predictive_value": precision,
    }


def _objective_value(objective, rates, positive, negative, cost):
    tp = np.nansum(rates["true_positive_rate"] * positive)
    tn = np.nansum(rates["true_negative_rate"] * negative)
    total = positive.sum() + negative.sum()
    if objective == "accuracy":
        return float((tp + tn) / total)
    if objective == "cost":
        false_positive_cost, false_negative_cost = cost
        fp, fn = negative.sum() - tn, positive.sum() - tp
        return float((false_positive_cost * fp + false_negative_cost * fn) / total)
    tpr, tnr = tp / positive.sum(), tn / negative.sum()
    if objective == "balanced_accuracy":
        return float((tpr + tnr) / 2)
    return float(tpr if objective == "true_positive_rate" else tnr)


_WEIGHT_RANGE = (
    "sample_weight ranges from {} to {}: in units of the smallest weight their sum exceeds the "
    "largest float64 value (about 1.8e308), so the weights' shares cannot be represented. "
    "Clip the largest weights or raise the smallest ones."
)


def relative_weights(weights):
    """Sample weights in units of the smallest positive one.

    Only the weights' shares matter. In these units weights of any common scale (1e-300 or
    1e308) give the unweighted program bit for bit, and integer weights the program of the
    repeated rows (their sums are the same integers), so that ties between optimal rules are
    broken alike. Weights whose sum in these units exceeds the float64 range (a ratio of the
    largest to the smallest weight near 1e308) are refused.
    """
    positive = weights[weights > 0]
    if positive.size == 0:
        return weights  # the groups' and classes' zero weights are named by the caller
    smallest = positive.min()
    with np.errstate(over="ignore"):
        relative = weights / smallest
        total = relative.sum()
    if not np.isfinite(total):
        raise ValueError(_WEIGHT_RANGE.format(f"{smallest:.3g}", f"{positive.max():.3g}"))
    return relative


def _check_cost(objective, cost):
    """``(false_positive_cost, false_negative_cost)`` for ``objective="cost"``, else None."""
    if objective != "cost":
        if cost is not None:
            raise ValueError(
                f"cost={cost!r} is only used with objective='cost' (got objective="
                f"{objective!r}); set objective='cost' to minimise the expected cost."
            )
        return None
    if cost is None:
        raise ValueError(
            "objective='cost' needs cost={'false_positive': ..., 'false_negative': ...}, the "
            "price of a false positive and of a false negative."
        )
    if sorted(cost) != sorted(_COST_KEYS):
        raise ValueError(f"cost must have exactly the keys {list(_COST_KEYS)}, got {sorted(cost)}.")
    prices = tuple(float(cost[key]) for key in _COST_KEYS)
    if not all(np.isfinite(prices)) or min(prices) < 0 or max(prices) <= 0:
        raise ValueError(
            f"cost prices must be finite and non-negative, not both zero; got {cost!r}."
        )
    return prices
