"""What the two reductions share: input and sensitive features, the moments, the oracle, and
prediction from a weighted set of fitted members."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, is_regressor
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from skfair._base import (
    NO_GROUPS,
    accuracy_on_dask,
    fit_routing,
    lazy_method,
    meta_input_tags,
    meta_model_input,
    other_library_names,
    require_y,
    route_fit_params,
)
from skfair._dask import is_dask_collection, uses_dask
from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    SENSITIVE_COLUMN_CONSTRAINT,
    HasMethods,
    Interval,
    Real,
    StrOptions,
    _num_samples,
)
from skfair._utils._random import (
    derived_seeds,
    draw_choices,
    draw_choices_by_seed,
    draw_seed,
    row_keys,
)
from skfair._utils._validation import check_weights, vector_1d
from skfair.reductions._game import GameData
from skfair.reductions._moments import (
    CONSTRAINTS,
    MULTICLASS_CONSTRAINTS,
    REGRESSION_CONSTRAINTS,
    classification_moments,
    group_loss_moments,
    loss_values,
)
from skfair.reductions._on_dask import (
    DaskBestResponse,
    DaskProblem,
    check_fit_on_dask,
    dask_data,
    fit_data,
)
from skfair.reductions._oracle import BestResponse, class_dtype
from skfair.reductions._response_threshold import cell_histogram, cut_response

# Constraint values up to this are met (the linear programs' round-off).
_FEASIBLE = 1e-12
# Seeds tried for the randomised decisions on the fitting rows (see _choose_draws): as many
# as _DRAW_BUDGET row draws allow, within _SEED_CANDIDATES. With a few hundred rows per
# group, equalized odds over four groups compares eight rates of cells of 20-40 rows: the
# best of 32 draws missed the bound by up to 0.06 on German credit, the best of 3,000 by
# up to 0.007 (benchmarks/RESULTS.md).
_DRAW_BUDGET = 1 << 21
_SEED_CANDIDATES = (32, 4096)


@dataclass
class Problem(GameData):
    """The fitting data reduced for the game, and the way to add best responses to it."""

    codes: np.ndarray
    target: np.ndarray
    sample_weight: np.ndarray | None
    last_outputs: np.ndarray | None = None

    @property
    def n_samples(self):
        return self.target.shape[0]

    def add_response(self, response, cost, *, own_threshold=False):
        """Index among the hypotheses of ``response`` to the cost table ``cost``.

        A score is cut where the cost is least
        (:func:`~skfair.reductions._response_threshold.cut_response`), unless ``own_threshold``:
        the learner's own decisions (the unconstrained fit, returned alone when it meets the
        bound, is the base learner as it is).
        """
        if response.constant is not None:
            self.last_outputs = response.outputs
            return self.constants[response.constant]
        if response.bins is None or own_threshold:
            outputs = response.outputs
            if outputs is None:
                outputs = self.oracle.training_outputs(response.learner)
            self.last_outputs = outputs
            return self.add(response.predictor, outputs)
        n_classes = self.moments.n_classes
        cells = self.codes * n_classes + self.target
        histogram = cell_histogram(
            cells, response.bins, self.sample_weight, self.moments.n_groups * n_classes
        )
        # the decisions' table read off the histogram, as on dask (no second count)
        cut, k, predictor, table = cut_response(
            response, histogram, cost, self.oracle.classes, self.moments.constant_table(0).shape
        )
        self.last_outputs = (response.bins >= cut).astype(np.uint8)
        if k is not None:
            return self.constants[k]
        return self.hypotheses.add(predictor, table, self.last_outputs)

    def add(self, predictor, outputs):
        table = self.moments.table(self.codes, self.target, outputs, self.sample_weight)
        return self.hypotheses.add(predictor, table, outputs)

    def add_constant(self, predictor, k):
        """Add the constant classifier ``predictor`` of class ``k`` (its table needs no
        predictions)."""
        outputs = np.full(len(self.target), k, dtype=class_dtype(self.oracle.classes))
        return self.hypotheses.add(predictor, self.moments.constant_table(k), outputs)

    def losses(self, outputs):
        """Per-sample losses of training outputs (0-1 loss, or the regression loss)."""
        if self.is_regression:
            return loss_values(self.moments.loss, self.target, outputs)
        return (outputs != self.target).astype(np.float64)

    @property
    def is_regression(self):
        return not hasattr(self.moments, "measures")

    def drawn_tables(self, reduction, seeds):
        """The tables of the randomised decisions on the fitting rows, drawn with each of
        ``seeds`` in turn, as :meth:`_BaseReduction.predict` draws them: stacks of tables
        for consecutive blocks of the seeds (the first seed's alone: the caller stops at the
        first that meets the bound)."""
        members = np.flatnonzero(reduction.weights_ > 0)
        outputs = np.asarray(self.hypotheses.outputs)[members]
        if self.is_regression:
            shares = np.broadcast_to(reduction.weights_[members], outputs.T.shape)
            fallback = outputs[0].astype(np.float64)
        else:
            shares = np.zeros((outputs.shape[1], len(reduction.classes_)))
            for weight, output in zip(reduction.weights_[members], outputs):
                shares[np.arange(output.shape[0]), output] += weight
            fallback = shares[:, 0]
        keys = row_keys(self.oracle.X, fallback)
        for choices in draw_choices_by_seed(shares, keys, seeds):
            if self.is_regression:
                yield np.stack(
                    [
                        self.moments.table(
                            self.codes,
                            self.target,
                            outputs[choice, np.arange(choice.shape[0])],
                            self.sample_weight,
                        )
                        for choice in choices
                    ]
                )
            else:
                yield self.moments.table(self.codes, self.target, choices, self.sample_weight)

    def n_decided_classes(self, index):
        """How many classes hypothesis ``index`` predicts on the fitting rows."""
        return np.unique(self.hypotheses.outputs[index]).size

    def default_nu(self):
        """Half the standard error of the mean loss of the last response's outputs (fairlearn's
        default): the statistical resolution of the objective.

        The sample size is the total weight (weights count as repeated rows, as in
        scikit-learn), or the effective sample size when that is larger (weights scaled to
        sum to 1).
        """
        losses = self.losses(self.last_outputs)
        weights = np.ones_like(losses) if self.sample_weight is None else self.sample_weight
        mean = np.average(losses, weights=weights)
        spread = np.sqrt(np.average((losses - mean) ** 2, weights=weights))
        total = weights.sum()
        size = max(total, total**2 / (weights**2).sum())
        return 0.5 * spread / np.sqrt(size)


class _BaseReduction(MetaEstimatorMixin, BaseEstimator):
    """Fit set-up, prediction and routing of ExponentiatedGradient and GridSearch."""

    __metadata_request__fit = {"sensitive_features": True}

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"])],
        "constraint": [StrOptions(set(CONSTRAINTS))],
        "eps": [Interval(Real, 0, None, closed="left")],
        "disparity": [StrOptions({"difference", "ratio"})],
        "privileged_group": "no_validation",
        "disadvantaged": [StrOptions({"pooled", "each"})],
        "pos_label": [Real, str, "boolean", None],
        "loss": [StrOptions({"squared_error", "absolute_error"})],
        "sensitive_column": SENSITIVE_COLUMN_CONSTRAINT,
        "drop_sensitive": ["boolean"],
        "warm_start": [StrOptions({"auto"}), "boolean"],
        "response_threshold": [StrOptions({"auto", "least_cost", "own"})],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    # ----------------------------------------------------------------------------------------
    # fit set-up

    def _problem(self, X, y, sample_weight, sensitive_features, fit_params):
        """Validate the input and build the moments, the hypotheses and the oracle."""
        regression = is_regressor(self.estimator)
        on_dask = uses_dask(X, y, sensitive_features, sample_weight)
        if on_dask:
            check_fit_on_dask(self, regression)
        self._check_constraint(regression)
        if on_dask:
            data = dask_data(self, X, y, sample_weight, sensitive_features)
        else:
            data = self._data(X, y, sample_weight, sensitive_features, reset=True)
        if data.groups is None:
            warnings.warn(
                f"{type(self).__name__} was fitted without sensitive features (neither "
                "sensitive_features= nor sensitive_column=): there is no constraint and the "
                "result is the unconstrained estimator.",
                UserWarning,
                stacklevel=3,
            )
        self.groups_ = data.group_labels
        self._seed = draw_seed(self.random_state)
        fit_params = route_fit_params(
            self,
            fit_params,
            sample_weight=sample_weight,
            sensitive_features=sensitive_features,
            weights_to_model=False,  # the reductions pass their own weights
        ).estimator.fit
        moments = self._moments(data)
        self.constraint_names_ = list(moments.names)
        classes = None if regression else self.classes_
        if on_dask:
            cell_count = np.bincount(
                data.codes * len(classes) + data.target,
                weights=data.count,
                minlength=moments.cell_weight.size,
            )
            oracle = DaskBestResponse(
                self.estimator,
                data.X_model,
                data.inputs,
                moments.cell_weight,
                cell_count,
                fit_params=fit_params,
                warm_start=self.warm_start,
                response_threshold=self.response_threshold,
            )
            problem = DaskProblem(
                moments=moments,
                oracle=oracle,
                inputs=data.inputs,
                reduction=self,
                n_samples=data.n_samples,
                square_weight=data.square_weight,
            )
        else:
            oracle = BestResponse(
                self.estimator,
                data.X_model,
                data.target,
                data.codes,
                data.sample_weight,
                classes=classes,
                fit_params=fit_params,
                warm_start=self.warm_start,
                response_threshold=self.response_threshold,
                seed=self._seed,
            )
            problem = Problem(
                moments=moments,
                oracle=oracle,
                codes=data.codes,
                target=data.target,
                sample_weight=data.sample_weight,
            )
        if classes is not None:
            for k in range(len(classes)):
                problem.constants[k] = problem.add_constant(ConstantClassifier(classes, k), k)
        return problem

    def _data(self, X, y, sample_weight, sensitive_features, *, reset):
        """The checked rows: the members' input, the target (class indices), group codes.

        ``reset`` at fit (the classes are found); afterwards the labels must be classes seen
        at fit.
        """
        sensitive, X_model = meta_model_input(self, X, sensitive_features, reset=reset)
        require_y(self, y)
        y = vector_1d(y)
        if y.shape[0] != X_model.shape[0]:
            raise ValueError(
                f"X has {X_model.shape[0]} samples but y has {y.shape[0]}; pass one label per row."
            )
        n_samples = y.shape[0]
        if is_regressor(self.estimator):
            target = np.asarray(y, dtype=np.float64)
            if not np.isfinite(target).all():
                raise ValueError("y has NaN or infinite values; the regression needs finite y.")
        elif reset:
            check_classification_targets(y)
            self.classes_, target = np.unique(y, return_inverse=True)
        else:
            target = np.searchsorted(self.classes_, y)
            unknown = self.classes_[np.minimum(target, len(self.classes_) - 1)] != y
            if unknown.any():
                raise ValueError(
                    f"y holds the label {y[unknown][0]!r}, not one of the classes "
                    f"{self.classes_.tolist()} seen at fit."
                )
        return fit_data(X_model, target, sensitive, check_weights(sample_weight, n_samples))

    def _moments(self, data):
        """The objective and the constraints on ``data`` (see :meth:`_data`)."""
        if is_regressor(self.estimator):
            moments = group_loss_moments(
                codes=data.codes,
                group_labels=data.group_labels,
                sample_weight=data.sample_weight,
                eps=self.eps,
                loss=self.loss,
            )
            return _without_constraints(moments) if data.groups is None else moments
        return classification_moments(
            self.constraint,
            codes=data.codes,
            group_labels=data.group_labels,
            groups=data.groups,
            y_class=data.target,
            classes=self.classes_.tolist(),
            pos_index=self._pos_index(self.classes_),
            sample_weight=data.sample_weight,
            eps=self.eps,
            form=self.disparity,
            privileged_group=self.privileged_group,
            disadvantaged=self.disadvantaged,
        )

    def _evaluate(self, X, y, *, sensitive_features=None, sample_weight=None):
        """Objective and disparity of every member and of the result on data ``(X, y)``.

        Returns ``(objectives, disparities, objective, disparity)``: one value per predictor,
        then the result's (the mixture's expected values; the chosen fit's for GridSearch).
        """
        check_is_fitted(self, "weights_")
        data = self._data(X, y, sample_weight, sensitive_features, reset=False)
        if data.groups is None and self.groups_ != NO_GROUPS:
            raise ValueError(
                f"{type(self).__name__} was fitted with sensitive features: pass "
                "sensitive_features= (or fit with sensitive_column=) to evaluate its disparity."
            )
        moments = self._moments(data)
        tables = []
        for member in self.predictors_:
            outputs = np.asarray(member.predict(data.X_model))
            if not self._regression:
                outputs = np.searchsorted(self.classes_, outputs)
            tables.append(moments.table(data.codes, data.target, outputs, data.sample_weight))
        mixture = np.tensordot(self.weights_, np.asarray(tables), axes=1)
        return (
            np.array([moments.error(table) for table in tables]),
            np.array([moments.disparity(table) for table in tables]),
            moments.error(mixture),
            moments.disparity(mixture),
        )

    def _check_constraint(self, regression):
        if regression and self.constraint not in REGRESSION_CONSTRAINTS:
            raise ValueError(
                f"constraint={self.constraint!r} needs a classifier; "
                f"{type(self.estimator).__name__} is a regressor. For a regressor use "
                "constraint='bounded_group_loss'."
            )
        if not regression and self.constraint in REGRESSION_CONSTRAINTS:
            raise ValueError(
                f"constraint={self.constraint!r} needs a regressor; "
                f"{type(self.estimator).__name__} is not one (its estimator type is "
                f"{get_tags(self.estimator).estimator_type!r})."
            )

    def _pos_index(self, classes):
        n_classes = len(classes)
        if n_classes > 2:
            if self.constraint not in MULTICLASS_CONSTRAINTS:
                raise ValueError(
                    f"constraint={self.constraint!r} compares a rate of the positive class; y "
                    f"has {n_classes} classes. With more than two classes use "
                    f"constraint in {list(MULTICLASS_CONSTRAINTS)} (U_DP / U_EO: each group "
                    "against the population, class by class)."
                )
            if self.privileged_group is not None or self.disparity != "difference":
                raise ValueError(
                    "With more than two classes the constraint bounds the differences of each "
                    "group to the whole population (U_DP / U_EO): privileged_group and "
                    "disparity='ratio' apply to two classes only."
                )
            return None
        if self.pos_label is None:
            return n_classes - 1
        matches = np.flatnonzero(classes == self.pos_label)
        if matches.size == 0:
            raise ValueError(
                f"pos_label={self.pos_label!r} is not one of the classes {classes.tolist()}."
            )
        return int(matches[0])

    def _set_members(self, problem, weights, best_index=None):
        """Keep the hypotheses and the mixture weights; report both decision rules on the
        training data.

        ``best_index`` is the single predictor of the deterministic rule (classification);
        None chooses the most accurate hypothesis that meets every constraint.
        """
        hypotheses, moments = problem.hypotheses, problem.moments
        self.predictors_ = list(hypotheses.predictors)
        self.weights_ = np.asarray(weights, dtype=np.float64)
        self.objectives_ = hypotheses.errors
        self.constraint_gaps_ = np.array([moments.disparity(table) for table in hypotheses.tables])
        self.n_oracle_calls_ = problem.oracle.n_calls
        self.n_fits_ = problem.oracle.n_fits
        self._regression = problem.is_regression
        mixture = hypotheses.mixture_table(self.weights_)
        randomized = (moments.error(mixture), moments.disparity(mixture))
        if self._regression:
            # The deterministic rule predicts the members' weighted mean.
            mean = np.tensordot(self.weights_, np.asarray(hypotheses.outputs), axes=1)
            table = moments.table(problem.codes, problem.target, mean, problem.sample_weight)
            deterministic = (moments.error(table), moments.disparity(table))
        else:
            if best_index is None:
                best_index = best_single(hypotheses.errors, hypotheses.gammas)
            self.best_index_ = int(best_index)
            deterministic = (self.objectives_[best_index], self.constraint_gaps_[best_index])
        self._summaries = {
            "randomized": tuple(map(float, randomized)),
            "deterministic": tuple(map(float, deterministic)),
        }

    def _decision_rule(self):
        """``"randomized"`` or ``"deterministic"``: how ``predict`` decides."""
        return "deterministic"

    def _choose_draws(self, problem):
        """Choose the seed of the randomised decisions, and grade them on the fitting rows.

        Randomised rounding with retries (Raghavan & Thompson 1987): the decisions are
        drawn on the fitting rows (exactly as :meth:`predict` draws them for those rows)
        with up to 32-4,096 seeds derived from the fit's (fewer for more rows: at most
        ``_DRAW_BUDGET`` row draws in all), and the first seed whose decisions meet every
        constraint is kept (else the one of the smallest largest violation). New rows get
        draws of the same law whatever the seed. Sets ``_draw_seed`` and the randomised
        rule's summary: the realised error and disparity on the fitting rows.
        """
        moments = problem.moments
        n_candidates = int(np.clip(_DRAW_BUDGET // max(problem.n_samples, 1), *_SEED_CANDIDATES))
        # The first 32 candidates as before the search grew; the others by one hash.
        seeds = [
            self._seed if candidate == 0 else _derived_seed(self._seed, candidate)
            for candidate in range(min(n_candidates, _SEED_CANDIDATES[0]))
        ] + derived_seeds(self._seed, range(_SEED_CANDIDATES[0], n_candidates))
        best = None  # (violation, seed, table)
        start = 0
        for tables in problem.drawn_tables(self, seeds):
            gammas = moments.gamma(tables).reshape(tables.shape[0], -1)
            for offset, violation in enumerate(np.max(gammas, axis=1, initial=0.0).tolist()):
                # Smaller by more than round-off: draws whose violations tie (counts of rows)
                # keep the first seed, whatever the order of the weights' sums (dask).
                if best is None or violation < best[0] - _FEASIBLE:
                    best = (violation, seeds[start + offset], tables[offset])
                if violation <= _FEASIBLE:
                    break
            if violation <= _FEASIBLE:
                break
            start += tables.shape[0]
        _, self._draw_seed, table = best
        error, disparity = moments.error(table), moments.disparity(table)
        self._summaries["randomized"] = (float(error), float(disparity))

    # ----------------------------------------------------------------------------------------
    # prediction from the members

    def _model_input(self, X):
        check_is_fitted(self, "weights_")
        return meta_model_input(self, X, None, reset=False)[1]

    def _member_outputs(self, X_model, method):
        """``(weight, output)`` of every member with positive weight."""
        for weight, member in zip(self.weights_, self.predictors_):
            if weight > 0:
                yield weight, self._member_output(member, X_model, method)

    def _member_output(self, member, X_model, method):
        if method != "predict_proba" or not hasattr(member, "predict_proba"):
            outputs = np.asarray(member.predict(X_model))
            if method == "predict":
                return outputs
            return (outputs[:, None] == self.classes_[None]).astype(np.float64)
        proba = np.asarray(member.predict_proba(X_model), dtype=np.float64)
        if proba.shape[1] == len(self.classes_):
            return proba
        # A member fitted on a reduced problem that lacked some class.
        full = np.zeros((proba.shape[0], len(self.classes_)))
        full[:, np.searchsorted(self.classes_, member.classes_)] = proba
        return full

    def _decision_probability(self, X_model):
        """Probability of each class under the decision rule, shape (n_samples, n_classes):
        the weighted share of the members that decide it (randomised), or 0 / 1 (the single
        predictor of the deterministic rule)."""
        if self._decision_rule() == "deterministic":
            best = self.predictors_[self.best_index_]
            return self._member_output(best, X_model, "predict_proba_of_decisions")
        return self._mixture_probability(X_model)

    def _mixture_probability(self, X_model):
        """Probability of each class under the randomised rule: the weighted share of the
        members that decide it."""
        probability = None
        for weight, output in self._member_outputs(X_model, "predict"):
            one_hot = (output[:, None] == self.classes_[None]) * weight
            probability = one_hot if probability is None else probability + one_hot
        return probability

    def _lazy(self, method, X, trailing_shape, dtype):
        return lazy_method(self, method, X, None, trailing_shape=trailing_shape, dtype=dtype)

    @available_if(lambda self: not is_regressor(self.estimator))
    def predict_proba(self, X):
        """Probability of each class of the decision ``predict`` makes.

        With the randomised rule, the weighted share of the members whose decision is the
        class (the probability of a positive decision of the randomised classifier, fairlearn's
        ``_pmf_predict``); with the deterministic rule, 1 for the class of its single
        predictor. The group means of ``predict_proba(X)[:, k]`` on the training rows are the
        rates the constraint bounds. For the members' own probabilities (scores to rank by),
        see :meth:`predict_member_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (with the sensitive column(s) in ``sensitive_column`` mode; they are
            dropped before the members see X).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            ``proba[i, k]`` is the probability that ``predict`` gives row ``i`` the class
            ``classes_[k]``.
        """
        if is_dask_collection(X):
            return self._lazy("predict_proba", X, self.classes_.shape, np.float64)
        return self._decision_probability(self._model_input(X))

    @available_if(lambda self: not is_regressor(self.estimator))
    def predict_member_proba(self, X):
        """The members' own class probabilities, averaged with the rule's weights.

        Scores for ranking (e.g. ROC AUC), not the probability of a decision: their group
        means are not bounded by the constraint (use :meth:`predict_proba` for that). With the
        randomised rule the members' ``predict_proba`` weighted by ``weights_``; with the
        deterministic rule that of its single predictor. Members without ``predict_proba``
        contribute their decisions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (with the sensitive column(s) in ``sensitive_column`` mode).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities, in the order of ``classes_``.
        """
        if is_dask_collection(X):
            return self._lazy("predict_member_proba", X, self.classes_.shape, np.float64)
        X_model = self._model_input(X)
        if self._decision_rule() == "deterministic":
            return self._member_output(self.predictors_[self.best_index_], X_model, "predict_proba")
        proba = None
        for weight, output in self._member_outputs(X_model, "predict_proba"):
            proba = weight * output if proba is None else proba + weight * output
        return proba

    def _predict(self, X):
        if is_dask_collection(X):
            dtype = np.float64 if self._regression else self.classes_.dtype
            return self._lazy("predict", X, (), dtype)
        X_model = self._model_input(X)
        randomized = self._decision_rule() == "randomized"
        if self._regression:
            members = [
                (w, out.astype(np.float64)) for w, out in self._member_outputs(X_model, "predict")
            ]
            if not randomized:
                return sum(w * out for w, out in members)  # one member: its own predictions
            outputs = np.column_stack([out for _, out in members])
            shares = np.broadcast_to(np.array([w for w, _ in members]), outputs.shape)
            pick = _draw(X_model, shares, outputs[:, 0], self._draw_seed)
            return outputs[np.arange(outputs.shape[0]), pick]
        if not randomized:
            return np.asarray(self.predictors_[self.best_index_].predict(X_model))
        probability = self._decision_probability(X_model)
        return self.classes_[_draw(X_model, probability, probability[:, 0], self._draw_seed)]

    def score(self, X, y, sample_weight=None):
        """Accuracy (classification) or R² (regression) of ``predict``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,)
            True labels or values.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights; None weighs every sample equally.

        Returns
        -------
        score : float
            Accuracy of ``predict(X)`` for a classifier, coefficient of determination R² for
            a regressor.
        """
        if self._regression and uses_dask(X, y, sample_weight):
            raise TypeError(
                f"{type(self).__name__}.score of a regressor does not accept dask collections: "
                "R² needs the mean of y before the squared errors; compute the predictions "
                "lazily with predict and score them with dask-ml's r2_score."
            )
        if uses_dask(X, y, sample_weight):
            return accuracy_on_dask(y, self.predict(X), sample_weight)
        y_pred = self.predict(X)
        if self._regression:
            return r2_score(y, y_pred, sample_weight=sample_weight)
        return accuracy_score(y, y_pred, sample_weight=sample_weight)

    # ----------------------------------------------------------------------------------------
    # warnings on the solution

    def _warn_if_collapsed(self, problem):
        """Warn when the decisions ignore X: the randomised rule mixes constants only, or the
        deterministic rule's predictor gives one class to every training row."""
        if self._regression:
            return
        constants = list(problem.constants.values())
        if self._decision_rule() == "randomized":
            if self.weights_[constants].sum() < 1.0 - 1e-12:
                return
            what = "a mixture of constant predictors"
        else:
            if problem.n_decided_classes(self.best_index_) > 1:
                return
            what = "a constant predict (the best single fit that meets the bound is constant)"
        warnings.warn(
            f"The constrained solution collapses to {what}: under eps={self.eps!r} the "
            "fits found cannot meet the bound otherwise. Try a larger eps, a more flexible "
            "estimator, or a larger max_iter or grid_size.",
            UserWarning,
            stacklevel=3,
        )

    def _warn_bound_not_met(self, gap, returned):
        warnings.warn(
            f"No fit found meets the bound eps={self.eps!r} on the training data: the "
            f"returned model, {returned}, has a {self._gap_name()} of {gap:.4g}. Try a larger "
            "eps, a more flexible estimator, or more iterations (max_iter, grid_size).",
            UserWarning,
            stacklevel=4,
        )

    def _gap_name(self):
        if self.constraint == "bounded_group_loss":
            return f"largest group mean {self.loss}"
        return f"{self.constraint} {self.disparity}"

    # ----------------------------------------------------------------------------------------
    # scikit-learn plumbing

    def get_metadata_routing(self):
        """Get metadata routing of this object.

        Returns
        -------
        routing : MetadataRouter
            ``sensitive_features`` and ``sample_weight`` are consumed here (the reductions
            weight the base learner themselves); other fit metadata go to the base
            learner's ``fit``.
        """
        return fit_routing(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        tags.target_tags.required = True
        return meta_input_tags(tags, self.estimator, self.sensitive_column)


class ConstantClassifier(ClassifierMixin, BaseEstimator):
    """The classifier that predicts ``classes[index]`` for every row (needs no fit).

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
        Class labels.
    index : int
        Position of the predicted class.
    """

    def __init__(self, classes, index):
        self.classes = classes
        self.index = index

    @property
    def classes_(self):
        return np.asarray(self.classes)

    def predict(self, X):
        """The constant class for each row of X."""
        return np.full(_num_samples(X), self.classes_[self.index])

    def predict_proba(self, X):
        """Probability 1 for the constant class."""
        proba = np.zeros((_num_samples(X), len(self.classes_)))
        proba[:, self.index] = 1.0
        return proba

    def __sklearn_is_fitted__(self):
        return True


def _without_constraints(moments):
    """Bounded group loss with no sensitive features: the one group is unconstrained."""
    return replace(moments, eps=np.inf, names=[])


def _draw(X_model, shares, fallback_scores, seed):
    """The option (class, or member for regression) each row takes, option ``r`` with
    probability ``shares[i, r]``.

    The single place where the reductions draw random numbers
    (:func:`skfair._utils._random.draw_choices`, keyed on each row's values): a row gets the
    same draw alone or in any batch, and the copies of a row in a batch take each option the
    expected number of times, rounded. There are no groups at predict time: one stratum.
    """
    keys = row_keys(X_model, fallback_scores)
    strata = np.zeros(keys.shape[0], dtype=np.intp)
    return draw_choices(shares, keys, strata, seed, sampling="row")


def _derived_seed(seed, index):
    """The ``index``-th seed derived from ``seed`` (a 63-bit integer)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0] >> 1)


def best_single(errors, gammas):
    """Index of the most accurate hypothesis that meets every constraint (the earliest on
    ties); the one of the smallest largest violation when none does."""
    violation = gammas.max(axis=1) if gammas.shape[1] else np.zeros(len(errors))
    feasible = violation <= _FEASIBLE
    if feasible.any():
        return int(np.argmin(np.where(feasible, errors, np.inf)))
    return int(np.argmin(violation))


# fairlearn's parameters of its ExponentiatedGradient and GridSearch that skfair's do not
# have, and what to write instead (the "constraints" hint names the constraint and eps).
_FAIRLEARN_PARAMETERS = {
    "objective": "the reductions minimise the error (the 0-1 loss; the mean loss= of a "
    "regressor); there is no objective moment to pass.",
    "sample_weight_name": "the weights reach the base learner as sample_weight (a pipeline's "
    "last step gets them); a learner whose fit has no sample_weight is fitted on a weighted "
    "resample of the rows.",
    "run_linprog_step": "the multiplier player moves to the restricted game's linear program "
    "by default; multiplier_update='exponentiated_gradient' runs Algorithm 1 instead.",
    "selection_rule": "GridSearch keeps the most accurate grid point whose training "
    "disparity is at most eps (the bound itself, not a trade-off with the error).",
    "constraint_weight": "GridSearch keeps the most accurate grid point whose training "
    "disparity is at most eps (the bound itself, not a trade-off with the error).",
    "grid": "GridSearch places its points itself (see grid_size, grid_limit); its grid_ "
    "holds them after fit.",
    "grid_offset": "GridSearch places its points itself (see grid_size, grid_limit); its "
    "grid_ holds them after fit.",
    "prefit": "the reductions train the estimator; to correct a fitted model, wrap it in "
    "sklearn.frozen.FrozenEstimator and use skfair.postprocessing.GroupThresholdClassifier.",
}
# fairlearn's moments and the name of the same constraint here.
_FAIRLEARN_MOMENTS = {
    "DemographicParity": "demographic_parity",
    "EqualizedOdds": "equalized_odds",
    "TruePositiveRateParity": "true_positive_rate_parity",
    "FalsePositiveRateParity": "false_positive_rate_parity",
    "ErrorRateParity": "error_rate_parity",
    "BoundedGroupLoss": "bounded_group_loss",
}


def _constraint_hint(value):
    """What to write for fairlearn's ``constraints`` argument ``value``."""
    if isinstance(value, str):
        return f"pass the constraint by keyword: constraint={value!r} (and the bound as eps=)."
    name = _FAIRLEARN_MOMENTS.get(type(value).__name__)
    if name is None:
        return (
            "pass the constraint by keyword as its name, e.g. "
            "constraint='demographic_parity', and the bound as eps=."
        )
    if name == "bounded_group_loss":
        bound = getattr(value, "upper_bound", None)
        return (
            f"write constraint='bounded_group_loss', eps={bound!r} (every group's mean loss= "
            "at most eps)."
        )
    ratio = getattr(value, "ratio", 1.0)
    if ratio != 1.0:
        return (
            f"write constraint={name!r}, disparity='ratio', eps={1 - ratio:g} (skfair's ratio "
            "bound is one minus the smallest ratio between two groups)."
        )
    bound = getattr(value, "eps", 0.01)
    return (
        f"write constraint={name!r}, eps={bound!r}. fairlearn's difference_bound compares "
        "each group with the whole population; skfair's eps bounds the difference between "
        f"any two groups, so eps={2 * bound:g} is as loose with many groups (for two groups, "
        "see the 'Coming from fairlearn' page)."
    )


# What fairlearn's users reach for, met with an error naming ours (applied to
# ExponentiatedGradient and GridSearch).
fairlearn_names = other_library_names(
    parameters={
        None: lambda value: (
            f"every parameter after the estimator is a keyword; {_constraint_hint(value)}"
        ),
        "constraints": lambda value: (
            f"the parameter is constraint= (fairlearn's constraints=); {_constraint_hint(value)}"
        ),
        **_FAIRLEARN_PARAMETERS,
        "n_jobs": "the reductions fit one point after another (each step of the search "
        "depends on the fits before it); run several of them in parallel instead, e.g. "
        "GridSearchCV(..., n_jobs=2) over eps.",
    },
    method_keywords={
        "predict": {
            "random_state": "the randomised decisions are reproducible, a function of each "
            "row's values and of the seed drawn at fit from random_state= given at "
            "construction (fairlearn's predict(X, random_state=...)); set it there.",
            "sensitive_features": "predict takes X only: the reductions need no sensitive "
            "features at predict time.",
        },
    },
    attributes={
        "_pmf_predict": "the probability of each class of the decisions predict makes is "
        "predict_proba(X) (fairlearn's _pmf_predict); predict_member_proba(X) averages the "
        "members' own probabilities.",
    },
)
