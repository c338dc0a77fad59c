"""Bootstrap ensembles of a classifier, for stability and uncertainty per sample.

The ensemble follows Virny's construction (``UQ_by_boostrap`` in Virny 0.6.0): B copies of the
base model, each fitted on ``int(bootstrap_fraction * n_samples)`` training rows drawn with
replacement. The members' outputs on new data give each sample's label stability and its
epistemic and aleatoric uncertainty (:mod:`skfair.metrics._uncertainty`).

Unlike Virny, the members' seeds are drawn from ``random_state`` with NumPy's legacy
``RandomState`` (as scikit-learn does), so a given ``random_state`` builds the same ensemble on
every Python version.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from numbers import Integral, Number, Real

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import Bunch, get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from skfair._base import AccuracyScoreMixin, _model_allows_nan, check_meta_input, fit_routing
from skfair._dask import map_row_blocks, refuse, uses_dask
from skfair._stats._votes import entropy as _entropy
from skfair._stats._votes import label_stability_from_votes as _label_stability_from_votes
from skfair._stats._votes import member_votes as _member_votes
from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    HasMethods,
    Interval,
    _fit_context,
    _raise_for_params,
    _routing_enabled,
    _safe_indexing,
    process_routing,
)
from skfair._utils._docstrings import with_parts
from skfair._utils._groups import rows_from
from skfair._utils._random import check_random_state
from skfair._utils._rows import row_codes
from skfair._utils._validation import check_weights, vector_1d

_MAX_SEED = np.iinfo(np.int32).max
# Draws tried per member before a sample holding a single class is an error. A draw of n rows
# misses a class of weight share q with probability (1 - q)**n, below 1/2 once q * n > 0.7,
# so 100 draws fail by chance with probability below 2**-100 unless a class is that rare.
_MAX_DRAWS = 100


def _estimator_has(attr):
    """Whether the base estimator (or the fitted members) provide ``attr``."""

    def check(self):
        if hasattr(self, "estimators_"):
            return hasattr(self.estimators_[0], attr)
        return hasattr(self.estimator, attr)

    return check


@with_parts(
    {
        "parameters_X": "Parameters\n----------\nX : array-like of shape (n_samples, n_features)\n"
        "    Input data."
    }
)
class BootstrapEnsemble(AccuracyScoreMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Bootstrap replicas of a classifier, with per-sample stability and uncertainty.

    Each of the ``n_estimators`` members is a clone of ``estimator`` fitted on
    ``int(bootstrap_fraction * n_samples)`` rows drawn with replacement from the training set,
    as in Virny's bootstrap [1]_. The ensemble predicts the
    members' mean probability (soft vote). :meth:`uncertainty` gives, for each sample, the
    members' label stability and the epistemic and aleatoric uncertainty of their
    probabilities; :mod:`skfair.metrics` compares them across groups
    (:func:`~skfair.metrics.label_stability_difference`,
    :func:`~skfair.metrics.epistemic_uncertainty_difference`,
    :func:`~skfair.metrics.aleatoric_uncertainty_difference`).

    Parameters
    ----------
    estimator : classifier
        The base model, cloned for each member. It need not have ``predict_proba``; without
        it the ensemble has :meth:`predict` and :meth:`predict_members` only.
    n_estimators : int, default=50
        Number of members B (at least 2).
    bootstrap_fraction : float in (0, 1], default=0.8
        Size of each bootstrap sample as a fraction of the training set (Virny's examples use
        0.8). Rows are drawn with replacement.
    random_state : int, RandomState instance, Generator or None, default=None
        Draws one seed per member. A member's seed picks its bootstrap rows and is given to
        every ``random_state`` parameter of its estimator, so members differ and the ensemble
        is reproducible.
    n_jobs : int, default=None
        Number of jobs fitting (and predicting with) the members in parallel, through joblib.
        ``None`` means 1 unless in a :func:`joblib.parallel_config` context; ``-1`` means all
        processors.
    verbose : int, default=0
        Progress messages while fitting the members (joblib's ``verbose``): 0 is silent,
        higher values report more often.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members.
    estimators_samples_ : list of ndarray
        The training rows (with repetitions) each member was fitted on; of rows with equal
        features and label, the first one stands for all of them. Drawn again from the
        members' seeds on each access, not stored (see Notes).
    classes_ : ndarray of shape (n_classes,)
        The class labels. A member whose bootstrap sample missed a class gives it probability
        0.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of features seen during fit, when X has string column names.

    See Also
    --------
    sklearn.ensemble.BaggingClassifier : Bagging for accuracy, with feature subsampling.

    Notes
    -----
    Members vote with ``argmax`` over ``classes_``, so a tie goes to the first class: a
    binary member with ``p_1 = 0.5`` predicts ``classes_[0]`` (Virny's rule
    ``1{p_1 > 0.5}``), and so does the ensemble when the mean probability is 0.5.

    ``sample_weight`` are sampling weights: each member's rows are drawn with replacement
    with probabilities proportional to the weights, and the members are fitted on their drawn
    rows without weights (the draw has used them). The sample size is ``bootstrap_fraction``
    times the number of rows of positive weight, whatever the weights' scale: survey weights
    of about 500 per row and weights summing to 1 give the same members, and equal weights
    give the unweighted ensemble. (A size of ``bootstrap_fraction`` times the total weight,
    scikit-learn's bagging with a float ``max_samples``, would make integer weights equal
    repeated rows, but fit each member on 400,000 rows for 1,000 rows of survey weights and
    fail for weights summing to 1; scikit-learn's default ``max_samples=None`` draws
    ``n_samples`` rows for the same reason.) Rows of weight 0 are left out, as if absent.
    Rows are drawn by content: rows with equal features and label form one unit weighing
    their total weight, the units are drawn (a multinomial draw in the sorted order of their
    contents) and shuffled, and each unit is represented by its first row in
    ``estimators_samples_``, so a row of weight 2 and two copies of it weigh the same in the
    draw. Without weights this is the usual bootstrap (uniform, with replacement), and the
    members do not depend on the order of the training rows.

    Each member draws its rows (from its own seed) in the job that fits it, so memory holds
    one sample and one copy of its rows per running job, whatever ``n_estimators``; the
    fitted ensemble keeps the seeds and the draw's per-row probabilities, and
    ``estimators_samples_`` draws the samples again when it is read (as scikit-learn's
    bagging does), the same rows each time.

    A drawn sample that holds a single class, which would stop most classifiers' ``fit`` on
    small or unbalanced data, is redrawn from the same seed's stream (up to 100 times, then
    an error). Redrawing, rather than stratifying by class, keeps the members' class counts
    random, as in Virny's bootstrap; the samples are drawn conditionally on holding at least
    two classes.

    A member is fitted on its drawn rows, repetitions included (as in Virny), not on all rows
    with counts as weights (as :class:`~sklearn.ensemble.BaggingClassifier` does when it can).
    A model with an internal validation split then finds copies of training rows in it: on
    Adult, ``HistGradientBoostingClassifier``'s early stopping did not trigger (100
    iterations, against 60-83 for the count-weighted members of ``BaggingClassifier``).

    **Dask input.** ``fit`` refuses dask collections with a TypeError (each member trains on a
    bootstrap sample of all rows); the members can be fitted on a cluster through joblib's
    dask backend. The prediction methods and :meth:`uncertainty` return lazy dask arrays,
    block of rows by block; ``score`` sums the right and wrong predictions over the
    partitions.

    References
    ----------
    .. [1] D. Herasymuk, F. Arif Khan and J. Stoyanovich, "Responsible Model Selection with
       Virny and VirnyView", SIGMOD Companion 2024; Virny 0.6.0 documentation, "Disparity
       Performance Dimensions" (label stability, epistemic and aleatoric uncertainty).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.ensemble import BootstrapEnsemble
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> ensemble = BootstrapEnsemble(LogisticRegression(), n_estimators=10, random_state=0)
    >>> ensemble.fit(X, y).predict_proba_members(X[:3]).shape
    (10, 3, 2)
    >>> per_sample = ensemble.uncertainty(X[:3])
    >>> sorted(per_sample)
    ['aleatoric', 'epistemic', 'label_stability']
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "n_estimators": [Interval(Integral, 2, None, closed="left")],
        "bootstrap_fraction": [Interval(Real, 0, 1, closed="right")],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        estimator,
        n_estimators=50,
        bootstrap_fraction=0.8,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.bootstrap_fraction = bootstrap_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(
        # The members validate their own parameters.
        prefer_skip_nested_validation=False
    )
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the members on bootstrap samples of ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, in any form the base estimator accepts (e.g. a DataFrame for a
            pipeline with a column transformer).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sampling weights of the rows: each member's rows are drawn with probabilities
            proportional to them, and their scale does not matter (see Notes). The members'
            ``fit`` need not accept weights.
        **fit_params : dict
            Further parameters for the base estimator's ``fit``, only with metadata routing
            enabled (``sklearn.set_config(enable_metadata_routing=True)``). Per-sample
            parameters are indexed like X.

        Returns
        -------
        self : object
            The fitted ensemble.
        """
        _raise_for_params(fit_params, self, "fit")
        if uses_dask(X, y, sample_weight):
            raise _FIT_IN_MEMORY.error(f"{type(self).__name__}.fit")
        X = check_meta_input(self, X, self.estimator, reset=True)
        _check_object_values(X)
        y = vector_1d(y)
        check_classification_targets(y)
        n_samples = X.shape[0]
        if n_samples != y.shape[0]:
            raise ValueError(
                f"X has {n_samples} samples but y has {y.shape[0]}; pass one label per sample."
            )
        self.classes_ = np.unique(y)
        sample_weight = check_weights(sample_weight, n_samples)
        member_fit_params = (
            process_routing(self, "fit", **fit_params).estimator.fit if _routing_enabled() else {}
        )
        draw = _BootstrapDraw.from_data(X, y, sample_weight, self.bootstrap_fraction)
        seeds = check_random_state(self.random_state).randint(_MAX_SEED, size=self.n_estimators)
        # Each member draws its rows when it is fitted: one sample (its row numbers and its
        # copy of the rows) per running job, whatever n_estimators.
        self.estimators_ = Parallel(n_jobs=self.n_jobs, verbose=self.verbose)(
            delayed(_fit_member)(self.estimator, X, y, draw, seed, member_fit_params, n_samples)
            for seed in seeds
        )
        self._draw, self._seeds = draw, seeds
        return self

    @property
    def estimators_samples_(self):
        """The training rows (with repetitions) each member was fitted on.

        A list of ``n_estimators`` arrays of row numbers; of rows with equal features and
        label, the first one stands for all of them. They are drawn again from the members'
        seeds on each access (as in scikit-learn's bagging), not kept.
        """
        check_is_fitted(self)
        return [self._draw(seed) for seed in self._seeds]

    @available_if(_estimator_has("predict_proba"))
    def predict_proba_members(self, X):
        """Class probabilities of each member.

        {parameters_X}

        Returns
        -------
        proba : ndarray of shape (n_estimators, n_samples, n_classes)
            ``proba[b, i, k]`` is member b's probability of ``classes_[k]`` for sample i; a
            class missing from a member's bootstrap sample has probability 0. This is the
            ``y_proba`` layout of :func:`skfair.metrics.epistemic_uncertainty_difference`.
        """
        check_is_fitted(self)
        if uses_dask(X):
            shape = (len(self.estimators_), len(self.classes_))
            return self._lazy("predict_proba_members", X, shape).swapaxes(0, 1)
        X = check_meta_input(self, X, self.estimator, reset=False)
        return self._map_members(_members_proba, X, self.classes_)

    def predict_members(self, X):
        """Class label predicted by each member.

        A member predicts the class of its largest probability (ties go to the first of
        ``classes_``, so ``p_1 = 0.5`` predicts ``classes_[0]``), or its ``predict`` output
        when the base estimator has no ``predict_proba``.

        {parameters_X}

        Returns
        -------
        labels : ndarray of shape (n_estimators, n_samples)
            The ``y_pred`` layout of :func:`skfair.metrics.label_stability_difference`.
        """
        check_is_fitted(self)
        if uses_dask(X):
            shape = (len(self.estimators_),)
            return self._lazy("predict_members", X, shape, self.classes_.dtype).swapaxes(0, 1)
        return self.classes_[self._member_codes(X)]

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Mean of the members' class probabilities.

        {parameters_X}

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        if uses_dask(X):
            check_is_fitted(self)
            return self._lazy("predict_proba", X, (len(self.classes_),))
        return self._member_totals(X).proba / len(self.estimators_)

    def predict(self, X):
        """Soft vote of the members (majority vote without ``predict_proba``).

        Ties go to the first of ``classes_``: with a binary mean probability of exactly 0.5
        the ensemble predicts ``classes_[0]``, as Virny does.

        {parameters_X}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The class of the largest mean member probability (or of the most member votes).
        """
        check_is_fitted(self)
        if uses_dask(X):
            return self._lazy("predict", X, (), self.classes_.dtype)
        if _estimator_has("predict_proba")(self):
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        votes = _member_votes(self._member_codes(X), len(self.classes_))
        return self.classes_[np.argmax(votes, axis=1)]

    @available_if(_estimator_has("predict_proba"))
    def uncertainty(self, X):
        """Label stability, epistemic and aleatoric uncertainty of each sample.

        Virny's definitions (see the class References), computed from the members' outputs:
        label stability of the members' labels, ``(K f_mode - 1) / (K - 1)``
        (``|#pos - #neg| / B`` for two classes); aleatoric uncertainty, the members' mean
        entropy; epistemic uncertainty, the entropy of the mean minus the mean entropy.
        Entropies are in bits.

        {parameters_X}

        Returns
        -------
        result : :class:`~sklearn.utils.Bunch`
            With attributes ``label_stability``, ``epistemic`` and ``aleatoric``, each an
            ndarray of shape (n_samples,) (a lazy dask array for dask input).
        """
        if uses_dask(X):
            check_is_fitted(self)
            values = self._lazy("uncertainty", X, (3,))
            return Bunch(
                label_stability=values[:, 0], epistemic=values[:, 1], aleatoric=values[:, 2]
            )
        totals = self._member_totals(X, entropies=True)
        n_members = len(self.estimators_)
        member_entropy = totals.entropy / n_members
        return Bunch(
            label_stability=_label_stability_from_votes(totals.votes, n_members),
            epistemic=_entropy(totals.proba / n_members) - member_entropy,
            aleatoric=member_entropy,
        )

    def _member_totals(self, X, *, entropies=False):
        """Sums over the members of their probabilities (and entropies), and their votes.

        The members' probabilities are read a few at a time (one per job) and added up in
        the members' order, so memory holds ``n_jobs`` members' outputs, not all of them,
        and the sums are those of ``predict_proba_members(X)`` along its first axis, bit for
        bit.
        """
        check_is_fitted(self)
        X = check_meta_input(self, X, self.estimator, reset=False)
        n_samples, n_classes = X.shape[0], len(self.classes_)
        proba_sum = np.zeros((n_samples, n_classes))
        entropy_sum = np.zeros(n_samples) if entropies else None
        votes = np.zeros((n_samples, n_classes), dtype=np.intp) if entropies else None
        n_jobs = min(effective_n_jobs(self.n_jobs), len(self.estimators_))
        for start in range(0, len(self.estimators_), n_jobs):
            members = self.estimators_[start : start + n_jobs]
            for (proba,) in Parallel(n_jobs=n_jobs)(
                delayed(_members_proba)([member], X, self.classes_) for member in members
            ):
                proba_sum += proba
                if entropies:
                    entropy_sum += _entropy(proba)
                    votes[np.arange(n_samples), np.argmax(proba, axis=1)] += 1
        return Bunch(proba=proba_sum, entropy=entropy_sum, votes=votes)

    def _lazy(self, method, X, trailing_shape, dtype=np.float64):
        """Lazy ``method(X)`` of dask input, block of rows by block (samples first)."""
        return map_row_blocks(
            _ensemble_block,
            [X],
            trailing_shape=trailing_shape,
            dtype=dtype,
            ensemble=self,
            method=method,
        )

    def _member_codes(self, X):
        """Index in ``classes_`` of each member's label, shape (n_estimators, n_samples)."""
        if _estimator_has("predict_proba")(self):
            return np.argmax(self.predict_proba_members(X), axis=2)
        X = check_meta_input(self, X, self.estimator, reset=False)
        return np.searchsorted(self.classes_, self._map_members(_members_predict, X))

    def _map_members(self, function, X, *args):
        """Stack ``function(members, X, *args)`` over one batch of members per job.

        Predicting is cheap next to fitting, so batches (not single members) keep joblib's
        per-task overhead small.
        """
        n_batches = min(effective_n_jobs(self.n_jobs), len(self.estimators_))
        bounds = np.linspace(0, len(self.estimators_), n_batches + 1).astype(int)
        batches = Parallel(n_jobs=n_batches)(
            delayed(function)(self.estimators_[start:stop], X, *args)
            for start, stop in itertools.pairwise(bounds)
        )
        return np.concatenate(batches)

    def get_metadata_routing(self):
        """Get the metadata routing of this object.

        ``sample_weight`` is consumed by the ensemble's draw; other fit parameters are routed
        to the members' ``fit``.

        Returns
        -------
        routing : MetadataRouter
            A :class:`~sklearn.utils.metadata_routing.MetadataRouter` encapsulating the
            routing information.
        """
        return fit_routing(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        estimator_tags = get_tags(self.estimator)
        tags.input_tags.sparse = estimator_tags.input_tags.sparse
        tags.input_tags.allow_nan = _model_allows_nan(self.estimator)
        return tags


@dataclass(frozen=True)
class _BootstrapDraw:
    """How each member's rows are drawn (see the Notes of :class:`BootstrapEnsemble`).

    Rows are grouped into units of equal content (features and label); a unit weighs the
    total weight of its rows. A member's sample takes ``n_drawn`` units with replacement,
    each with probability proportional to its weight (a multinomial draw over the units in
    their canonical order), shuffled, each unit represented by its first row. It is redrawn
    while it holds a single class.
    """

    n_drawn: int
    probabilities: np.ndarray  # of each unit
    representatives: np.ndarray  # first row of each unit
    unit_classes: np.ndarray  # class code of each unit

    @classmethod
    def from_data(cls, X, y, sample_weight, bootstrap_fraction):
        _, class_codes = np.unique(y, return_inverse=True)
        # check_weights has refused weights that are all zero.
        weights = np.ones(len(y)) if sample_weight is None else sample_weight
        n_classes = class_codes.max() + 1
        if n_classes >= 2 and len(np.unique(class_codes[weights > 0])) < 2:
            raise ValueError(
                "Only one class has a positive sample_weight, so every bootstrap sample would "
                "hold a single class; give rows of at least two classes a positive weight."
            )
        drawable = np.flatnonzero(weights > 0)
        # One int64 key per row, in the lexicographic order of (row content, class).
        keys = row_codes(_safe_indexing(X, drawable)) * n_classes + class_codes[drawable]
        _, first, units = np.unique(keys, return_index=True, return_inverse=True)
        unit_weights = np.bincount(units.reshape(-1), weights=weights[drawable])
        # A number of rows, not of weight units: the size does not depend on the weights' scale.
        return cls(
            n_drawn=max(int(bootstrap_fraction * drawable.size), 1),
            probabilities=unit_weights / unit_weights.sum(),
            # The draw is kept by the fitted ensemble (estimators_samples_ draws again from
            # it): int32 row numbers when they fit, the smallest integer type for the
            # classes. A member's sample then costs 4 bytes a drawn row instead of 8.
            representatives=drawable[first].astype(
                np.int32 if len(y) <= np.iinfo(np.int32).max else np.intp
            ),
            unit_classes=class_codes[drawable[first]].astype(np.min_scalar_type(n_classes - 1)),
        )

    def __call__(self, seed):
        rng = check_random_state(seed)
        several_classes = self.unit_classes.max() > 0
        for _ in range(_MAX_DRAWS):
            counts = rng.multinomial(self.n_drawn, self.probabilities)
            drawn = np.flatnonzero(counts)
            if (
                not several_classes
                or (self.unit_classes[drawn] != self.unit_classes[drawn[0]]).any()
            ):
                units = rng.permutation(np.repeat(np.arange(len(counts)), counts))
                return self.representatives[units]
        raise ValueError(
            f"{_MAX_DRAWS} bootstrap samples of {self.n_drawn} rows in a row held a single "
            "class; the training set is too small or too unbalanced for bootstrap members. "
            "Raise bootstrap_fraction or give the rare class more rows."
        )


_FIT_IN_MEMORY = refuse(
    "each member is trained on a bootstrap sample of all rows (a scikit-learn estimator "
    "fits in memory).",
    "Fit it on an in-memory sample (e.g. ddf.sample(frac=0.1).compute()); the prediction "
    "methods and uncertainty then accept dask input, block by block. Members can be fitted "
    "on a cluster through joblib's dask backend (with joblib.parallel_backend('dask')).",
)


def _ensemble_block(X, *, row_offset, ensemble, method):
    """One block of rows of a prediction method, samples on the first axis."""
    with rows_from(row_offset):
        out = getattr(ensemble, method)(X)
    if method in ("predict_members", "predict_proba_members"):
        return np.moveaxis(out, 1, 0)
    if method == "uncertainty":
        return np.column_stack([out.label_stability, out.epistemic, out.aleatoric])
    return out


def _is_number_or_string(value):
    return value is None or isinstance(value, (Number, str, bytes, np.generic))


# One Python call per value: an object array holds Python objects, read one by one anyway.
_NUMBER_OR_STRING = np.frompyfunc(_is_number_or_string, 1, 1)


def _check_object_values(X):
    """Raise for a value of an object array ``X`` that is neither a number nor a string.

    Each member sees only its drawn rows, so a value that its model cannot read (a dict, a
    list) in a row that no member draws would pass unnoticed; the whole X is checked before
    the draw instead. Strings pass: the model may encode them (a pipeline with an encoder).
    """
    if not isinstance(X, np.ndarray) or X.dtype != object:
        return
    readable = _NUMBER_OR_STRING(X).astype(bool)
    if not readable.all():
        row, column = np.argwhere(~readable)[0]
        value = X[row, column]
        raise TypeError(
            f"X[{row}, {column}] is of type {type(value).__name__!r}, which no model reads: in "
            "an object array X, every argument must be a string or a number (None for a missing "
            "value). Convert or drop that value; all rows are checked, drawn or not."
        )


def _fit_member(estimator, X, y, draw, seed, fit_params, n_samples):
    """Fit one clone of ``estimator`` on the bootstrap rows ``draw(seed)``, seeded with ``seed``.

    The rows are drawn here, in the job that fits the member, and dropped with its copy of
    the data when the job ends.
    """
    rows = draw(seed)
    member = clone(estimator)
    seeded = {
        name: int(seed)
        for name in member.get_params(deep=True)
        if name == "random_state" or name.endswith("__random_state")
    }
    if seeded:
        member.set_params(**seeded)
    member_params = {
        name: _index_rows(value, rows, n_samples) for name, value in fit_params.items()
    }
    return member.fit(_safe_indexing(X, rows), y[rows], **member_params)


def _index_rows(value, rows, n_samples):
    """The bootstrap rows of a per-sample fit parameter; other parameters pass unchanged."""
    shape = getattr(value, "shape", None)
    length = shape[0] if shape else len(value) if isinstance(value, (list, tuple)) else None
    return _safe_indexing(value, rows) if length == n_samples else value


def _members_proba(members, X, classes):
    """``predict_proba(X)`` of each member, shape (len(members), n_samples, n_classes).

    Columns follow the ensemble's ``classes_``: a class missing from a member's bootstrap
    sample gets probability 0.
    """
    proba = np.zeros((len(members), X.shape[0], len(classes)))
    for b, member in enumerate(members):
        proba[b][:, np.searchsorted(classes, member.classes_)] = member.predict_proba(X)
    return proba


def _members_predict(members, X):
    """``predict(X)`` of each member, shape (len(members), n_samples)."""
    return np.stack([member.predict(X) for member in members])
