"""Fairness metrics as scikit-learn scorers.

A scorer gets the sensitive features in one of two ways:

- **routing mode** (default): with ``sklearn.set_config(enable_metadata_routing=True)`` the
  scorer requests ``sensitive_features``, so ``GridSearchCV(...).fit(X, y,
  sensitive_features=s)`` and ``cross_validate(..., params={"sensitive_features": s})`` deliver
  the test-fold slice of ``s``;
- **column mode** (``sensitive_column=``): the values are read from a column of ``X``; nothing
  needs routing, which is why this mode also works for estimators that need the sensitive
  features at predict time.

Metrics that condition on ``control_features`` (:func:`conditional_demographic_disparity`) get
them the same two ways: requested as metadata, or read from ``X`` with ``control_column=``.

The scorer object implements scikit-learn's public scorer protocol (``__call__(estimator, X,
y)``, ``get_metadata_routing``, ``set_score_request``, ``_accept_sample_weight``) without
subclassing scikit-learn's private ``_BaseScorer``: private-API drift is what broke aif360's
scorers (AIF360 #555).
"""

from __future__ import annotations

import difflib
import inspect
import warnings
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.metadata_routing import MetadataRequest, get_routing_for_object

from skfair._base import resolve_sensitive
from skfair._utils._compat import (
    SENSITIVE_COLUMN_CONSTRAINT,
    Interval,
    Real,
    StrOptions,
    _routing_enabled,
    validate_params,
)
from skfair._utils._groups import split_sensitive_column
from skfair._utils._response import SCORE_METHODS, get_response_values
from skfair._utils._validation import check_groups, check_lengths
from skfair.metrics import _rates
from skfair.metrics._consistency import consistency_score
from skfair.metrics._demographic_disparity import conditional_demographic_disparity
from skfair.metrics._distribution import classifier_bias, ks_bias, quantile_bias, wasserstein_bias
from skfair.metrics._docs import shared
from skfair.metrics._hfm import hfm
from skfair.metrics._inequality import INDICES
from skfair.metrics._madd import madd
from skfair.metrics._multiclass import demographic_parity_unfairness, equalized_odds_unfairness
from skfair.metrics._rates import COMPARISONS
from skfair.metrics._uncertainty import (
    aleatoric_uncertainty_difference,
    epistemic_uncertainty_difference,
    label_stability_difference,
)

# Scores of a classifier (positive-class probability or decision value) or a regressor's output.
_SCORES = SCORE_METHODS
_LABELS = "predict"


class _Builtin(NamedTuple):
    """How a built-in metric is scored.

    parity: "difference" is scored as |value| (signed differences), "ratio" as
    1 - min(r, 1/r), "loss" as the value itself (already >= 0, 0 = fair).
    response_method: None when there is no sensible default (the user must pass one).
    """

    metric: object
    response_method: object
    parity: str
    needs_X: bool = False


_BUILTIN = {
    # The rate comparisons: "difference" or "ratio", as their table says.
    **{
        name: _Builtin(getattr(_rates, name), _LABELS, comparison.kind)
        for name, comparison in COMPARISONS.items()
    },
    # The inequality indices: losses, as their table says.
    **{index.__name__: _Builtin(index, _LABELS, "loss") for index in INDICES},
    "conditional_demographic_disparity": _Builtin(
        conditional_demographic_disparity, _LABELS, "difference"
    ),
    # Consistency is 1 at best and in [0, 1]: the "ratio" loss 1 - min(c, 1/c) is 1 - c.
    "consistency_score": _Builtin(consistency_score, _LABELS, "ratio", needs_X=True),
    "demographic_parity_unfairness": _Builtin(demographic_parity_unfairness, _LABELS, "loss"),
    "equalized_odds_unfairness": _Builtin(equalized_odds_unfairness, _LABELS, "loss"),
    # Signed parts (net, classifier and quantile bias) are scored by magnitude; total, positive
    # and negative parts are already >= 0, so "difference" serves every part.
    "wasserstein_bias": _Builtin(wasserstein_bias, _SCORES, "difference"),
    "ks_bias": _Builtin(ks_bias, _SCORES, "difference"),
    "quantile_bias": _Builtin(quantile_bias, _SCORES, "difference"),
    "classifier_bias": _Builtin(classifier_bias, _SCORES, "difference"),
    "madd": _Builtin(madd, "predict_proba", "loss"),
    "hfm": _Builtin(hfm, _LABELS, "difference", needs_X=True),
    # Member outputs: response_method="predict_members" (labels) or "predict_proba_members".
    "label_stability_difference": _Builtin(label_stability_difference, None, "difference"),
    "epistemic_uncertainty_difference": _Builtin(
        epistemic_uncertainty_difference, None, "difference"
    ),
    "aleatoric_uncertainty_difference": _Builtin(
        aleatoric_uncertainty_difference, None, "difference"
    ),
}

_NO_SENSITIVE_FEATURES = (
    "No sensitive features reached the scorer. Either enable metadata routing "
    "(sklearn.set_config(enable_metadata_routing=True)) and pass sensitive_features= to fit / "
    "cross_validate(params=...), or build the scorer with sensitive_column=."
)


def _builtin_for(metric):
    for name, builtin in _BUILTIN.items():
        if builtin.metric is metric:
            return name, builtin
    return None, None


def _accepts(function, parameter):
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return parameter in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def parity_loss(value, parity):
    """Turn a metric value into a loss that is 0 at parity (``NaN`` stays ``NaN``)."""
    if parity == "difference":
        return abs(value)
    if parity == "ratio":
        if value == 0:
            return 1.0
        return 1.0 - min(value, 1.0 / value)
    return value


class _FairnessScorer:
    """Scorer returned by :func:`make_fairness_scorer`; see there."""

    def __init__(
        self,
        metric,
        *,
        response_method,
        sign,
        sensitive_column,
        needs_X,
        parity,
        kwargs,
        control_column=None,
    ):
        self._metric = metric
        self._response_method = response_method
        self._sign = sign
        self._sensitive_column = sensitive_column
        self._control_column = control_column
        self._needs_X = needs_X
        self._parity = parity
        self._kwargs = kwargs
        self._score_request = {"sensitive_features": True} if sensitive_column is None else {}
        if control_column is None and _accepts(metric, "control_features"):
            # Per-sample conditioning attributes are metadata too: routed, they are sliced
            # with each test fold.
            self._score_request["control_features"] = True

    # -- scikit-learn scorer protocol ---------------------------------------------------------

    def __call__(
        self, estimator, X, y_true, sensitive_features=None, sample_weight=None, **metadata
    ):
        """Score ``estimator`` on ``X``: ``sign * parity_loss(metric(y_true, response))``.

        ``metadata`` may hold ``control_features`` for metrics that take them.
        """
        control = self._control_features(X, metadata)
        if self._sensitive_column is None and sensitive_features is None:
            column = getattr(estimator, "sensitive_column", None)
            hint = f" The estimator reads {column!r} from X." if column is not None else ""
            raise ValueError(_NO_SENSITIVE_FEATURES + hint)
        sensitive, X_without = resolve_sensitive(X, sensitive_features, self._sensitive_column)
        check_lengths(X=X, y_true=y_true, sensitive_features=sensitive, control_features=control)
        groups = check_groups(sensitive, len(y_true))
        single_group = groups.n_groups < 2
        if single_group:
            warnings.warn(
                f"The data scored by {self!r} hold a single group of the sensitive features "
                f"({groups.labels[0]!r}): with no second group to compare, the metric cannot "
                "measure a disparity. In cross-validation this happens when the rows are "
                "sorted by group; shuffle them (e.g. KFold(shuffle=True)) or stratify the "
                "folds by group.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
        method_params = None
        if _routing_enabled():
            routing = get_routing_for_object(estimator)
            method_params = {
                method: {"sensitive_features": sensitive}
                for method in _as_tuple(self._response_method)
                if routing.consumes(method, ["sensitive_features"])
            }
        response, _, _ = get_response_values(
            estimator,
            X,
            self._response_method,
            pos_label=self._kwargs.get("pos_label"),
            method_params=method_params,
        )
        metric_kwargs = dict(self._kwargs)
        if _accepts(self._metric, "sensitive_features"):
            metric_kwargs["sensitive_features"] = sensitive
        if sample_weight is not None:
            metric_kwargs["sample_weight"] = sample_weight
        if control is not None:
            metric_kwargs["control_features"] = control
        with warnings.catch_warnings():
            if single_group:
                # The metric's own single-group warning would repeat the one above.
                warnings.simplefilter("ignore", UndefinedMetricWarning)
            if self._needs_X:
                # Metrics that need the features take X first (like silhouette_score), without
                # the sensitive columns, which define groups and never enter distances.
                value = self._metric(X_without, y_true, response, **metric_kwargs)
            else:
                value = self._metric(y_true, response, **metric_kwargs)
        return self._sign * float(parity_loss(value, self._parity))

    def _control_features(self, X, metadata):
        """The control features of the scored rows: from ``X`` or the routed metadata."""
        unknown = sorted(set(metadata) - {"control_features"})
        if unknown:
            raise TypeError(f"{self!r} got unexpected metadata {unknown}.")
        control = metadata.get("control_features")
        if control is not None and not _accepts(self._metric, "control_features"):
            name = getattr(self._metric, "__name__", repr(self._metric))
            raise TypeError(f"{name} takes no control_features.")
        if self._control_column is None:
            return control
        if control is not None:
            raise ValueError(
                f"Both control_column={self._control_column!r} and control_features were "
                "given; pass one or the other."
            )
        return split_sensitive_column(X, self._control_column)[0]

    def get_metadata_routing(self):
        """Metadata requested by the scorer: ``sensitive_features`` (routing mode), and
        ``control_features`` for metrics that take them (unless ``control_column`` is set)."""
        request = MetadataRequest(owner=self.__class__.__name__)
        for param, alias in self._score_request.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def set_score_request(self, **kwargs):
        """Set which metadata the scorer requests (``True``, ``False``, ``None`` or an alias).

        Only available with metadata routing enabled, like scikit-learn's scorers.
        """
        if not _routing_enabled():
            raise RuntimeError(
                "This method is only available when metadata routing is enabled. You can "
                "enable it using sklearn.set_config(enable_metadata_routing=True)."
            )
        for param, alias in kwargs.items():
            if param not in ("sensitive_features", "sample_weight", "control_features"):
                raise TypeError(f"Unexpected argument {param!r} for set_score_request.")
            self._score_request[param] = alias
        return self

    def _accept_sample_weight(self):
        return _accepts(self._metric, "sample_weight")

    def __repr__(self):
        name = getattr(self._metric, "__name__", repr(self._metric))
        arguments = [name]
        if self._response_method is not None:
            arguments.append(f"response_method={self._response_method!r}")
        if self._sign > 0:
            arguments.append("greater_is_better=True")
        if self._sensitive_column is not None:
            arguments.append(f"sensitive_column={self._sensitive_column!r}")
        if self._control_column is not None:
            arguments.append(f"control_column={self._control_column!r}")
        if self._needs_X:
            arguments.append("needs_X=True")
        arguments.extend(f"{key}={value!r}" for key, value in self._kwargs.items())
        return f"make_fairness_scorer({', '.join(arguments)})"


def _as_tuple(response_method):
    return (response_method,) if isinstance(response_method, str) else tuple(response_method)


@validate_params(
    {
        "metric": [callable],
        "response_method": [str, list, tuple, None],
        "greater_is_better": ["boolean"],
        "sensitive_column": SENSITIVE_COLUMN_CONSTRAINT,
        "needs_X": ["boolean"],
        "control_column": SENSITIVE_COLUMN_CONSTRAINT,
    },
    prefer_skip_nested_validation=True,
)
@shared
def make_fairness_scorer(
    metric,
    *,
    response_method=None,
    greater_is_better=False,
    sensitive_column=None,
    needs_X=False,
    control_column=None,
    **kwargs,
):
    """Make a scikit-learn scorer from a fairness metric.

    The scorer can be passed to ``GridSearchCV(scoring=...)``, ``cross_validate`` and
    multi-metric scoring dicts. It returns ``-loss`` by default (scikit-learn maximises scores),
    so the best value is 0. Signed metrics are scored by magnitude and ratios as
    ``1 - min(r, 1/r)``, so that "fairer" always scores higher.

    Data holding a single group of the sensitive features, such as a cross-validation fold of
    rows sorted by group, are scored as the metric's "no disparity" value with an
    :class:`~sklearn.exceptions.UndefinedMetricWarning`. Keywords the metric does not take
    are refused when the scorer is built.

    Parameters
    ----------
    metric : callable
        A skfair metric ``metric(y_true, y_pred, *, sensitive_features, **kwargs)`` (or
        ``metric(X, y_true, y_pred, ...)`` with ``needs_X=True``), or any metric
        ``metric(y_true, y_pred)`` such as ``sklearn.metrics.accuracy_score``; the latter is
        useful to score estimators that need the sensitive features at predict time.
    response_method : str or tuple of str, default=None
        Estimator method(s) that give the metric's input; the first one available is used.
        ``None`` takes the metric's default: ``"predict"`` for label metrics,
        ``("predict_proba", "decision_function", "predict")`` for score metrics.
    greater_is_better : bool, default=False
        Whether the (loss-transformed) metric is a score to maximise. Fairness losses are not.
    sensitive_column : str, int or list, default=None
        Read the sensitive features from these columns of X (column mode) instead of receiving
        them through metadata routing.
    needs_X : bool, default=False
        Pass the features (without the sensitive columns) to the metric as its first argument.
    control_column : str, int or list, default=None
        For metrics with ``control_features`` (:func:`conditional_demographic_disparity`):
        read them from these columns of X. Without it the scorer requests
        ``control_features`` as metadata, so that with metadata routing enabled
        ``cross_validate(..., params={"control_features": c})`` and ``GridSearchCV.fit(...,
        control_features=c)`` deliver each test fold's slice. A fixed array in ``**kwargs``
        would not be sliced by fold and is refused.
    **kwargs
        Passed to the metric (e.g. ``privileged_group="Male"``, ``pos_label=1``).

    {returns_scorer}

    See Also
    --------
    get_fairness_scorer : A ready scorer for a skfair metric named by a string.
    most_accurate_within : A ``refit`` rule that bounds the fairness loss.

    {references_buitinck}

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> from skfair.metrics import make_fairness_scorer, statistical_parity_difference
    >>> rng = np.random.default_rng(0)
    >>> X = np.column_stack([rng.integers(0, 2, 200), rng.normal(size=200)])
    >>> y = (X[:, 1] + X[:, 0] > 0.5).astype(int)
    >>> scorer = make_fairness_scorer(statistical_parity_difference, sensitive_column=0)
    >>> scores = cross_val_score(LogisticRegression(), X, y, scoring=scorer, cv=3)
    >>> bool((scores <= 0).all())
    True
    """
    name, builtin = _builtin_for(metric)
    if response_method is None:
        if builtin is None:
            response_method = _LABELS
        elif builtin.response_method is None:
            member_method = (
                "predict_members"
                if name == "label_stability_difference"
                else "predict_proba_members"
            )
            raise ValueError(
                f"{name} needs the outputs of every member of a bootstrap ensemble; pass "
                f"response_method={member_method!r} (skfair.ensemble.BootstrapEnsemble)."
            )
        else:
            response_method = builtin.response_method
    needs_X = needs_X or (builtin is not None and builtin.needs_X)
    _check_metric_keywords(metric, kwargs, needs_X)
    if "control_features" in kwargs:
        raise TypeError(
            "control_features holds one value per sample, so a scorer cannot take a fixed "
            "array of them: in cross-validation it would not be sliced with each fold. Name "
            "the column(s) of X with control_column=, or pass control_features as metadata "
            "(sklearn.set_config(enable_metadata_routing=True), then cross_validate(..., "
            "params={'control_features': c}) or GridSearchCV(...).fit(X, y, "
            "control_features=c))."
        )
    if control_column is not None and not _accepts(metric, "control_features"):
        name = getattr(metric, "__name__", repr(metric))
        raise TypeError(f"control_column= is for metrics with control_features; {name} has none.")
    return _FairnessScorer(
        metric,
        response_method=response_method,
        sign=1 if greater_is_better else -1,
        sensitive_column=sensitive_column,
        needs_X=needs_X,
        parity=builtin.parity if builtin is not None else "loss",
        kwargs=kwargs,
        control_column=control_column,
    )


def _check_metric_keywords(metric, kwargs, needs_X):
    """Refuse, when the scorer is built, keywords the metric does not take (typos)."""
    try:
        parameters = list(inspect.signature(metric).parameters.values())
    except (TypeError, ValueError):
        return  # no signature to check against
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return
    # The scorer passes the data positionally, and the groups and weights itself.
    filled = {p.name for p in parameters[: 3 if needs_X else 2]}
    filled |= {"sensitive_features", "sample_weight"}
    valid = [p.name for p in parameters if p.name not in filled]
    unknown = sorted(set(kwargs) - set(valid))
    if unknown:
        name = getattr(metric, "__name__", repr(metric))
        hints = {
            key: difflib.get_close_matches(key, valid, n=1)
            for key in unknown
            if difflib.get_close_matches(key, valid, n=1)
        }
        hint = "".join(f" Did you mean {close[0]!r} for {key!r}?" for key, close in hints.items())
        raise TypeError(
            f"{name} got unexpected keyword argument(s) {unknown}; its keywords are "
            f"{valid}, and make_fairness_scorer's own are response_method, "
            f"greater_is_better, sensitive_column, needs_X and control_column.{hint}"
        )


# False: make_fairness_scorer must still validate the **overrides passed on to it.
@validate_params({"name": [StrOptions(set(_BUILTIN))]}, prefer_skip_nested_validation=False)
@shared
def get_fairness_scorer(name, **overrides):
    """Return a ready scorer for the skfair metric called ``name``.

    The scorer of :func:`make_fairness_scorer` for that metric, with the metric's own
    response method and loss transform; it returns ``-loss``, so the best value is 0.

    Parameters
    ----------
    name : str
        A public skfair metric name, e.g. ``"statistical_parity_difference"`` or ``"madd"``.
    **overrides
        Keyword arguments of :func:`make_fairness_scorer` (``sensitive_column``,
        ``response_method``, ...) and of the metric.

    {returns_scorer}

    See Also
    --------
    make_fairness_scorer : A scorer from any metric callable.

    {references_buitinck}

    Examples
    --------
    >>> from skfair.metrics import get_fairness_scorer
    >>> get_fairness_scorer("statistical_parity_difference", sensitive_column="sex")
    make_fairness_scorer(statistical_parity_difference, response_method='predict', \
sensitive_column='sex')
    """
    return make_fairness_scorer(_BUILTIN[name].metric, **overrides)


@validate_params(
    {
        "bound": [Interval(Real, 0, None, closed="left")],
        "fairness": [str],
        "performance": [str],
    },
    prefer_skip_nested_validation=True,
)
def most_accurate_within(bound, *, fairness, performance):
    """A callable ``refit`` for ``GridSearchCV``: the best performer whose unfairness is small.

    Picks the candidate with the highest mean test ``performance`` score among those whose
    mean fairness loss (the negated ``fairness`` score, as fairness scorers return ``-loss``)
    is at most ``bound``. If no candidate meets the bound, it falls back, with a warning
    naming the candidate, to the fairest one (or, when every fairness score is NaN, to the
    best performer).
    With a callable ``refit`` scikit-learn sets ``best_index_`` and ``best_params_`` but not
    ``best_score_``.

    Parameters
    ----------
    bound : float
        Largest acceptable fairness loss (e.g. 0.05 for a 5-point selection-rate gap).
    fairness : str
        Key of the fairness scorer in the ``scoring`` dict.
    performance : str
        Key of the performance scorer in the ``scoring`` dict.

    Returns
    -------
    refit : callable
        ``refit(cv_results) -> int``, the index of the chosen candidate in ``cv_results_``.

    See Also
    --------
    make_fairness_scorer : The fairness scorer whose results this reads.
    skfair.reductions.GridSearch : Trains under a fairness constraint instead of selecting.

    References
    ----------
    .. [1] A. Agarwal, A. Beygelzimer, M. Dudík, J. Langford and H. Wallach, "A Reductions
       Approach to Fair Classification", ICML 2018 (the most accurate model whose disparity
       is within a bound).
    .. [2] L. Buitinck et al., "API design for machine learning software: experiences from
       the scikit-learn project", ECML PKDD Workshop on Languages for Data Mining and Machine
       Learning, 2013.

    Examples
    --------
    >>> from skfair.metrics import get_fairness_scorer, most_accurate_within
    >>> scoring = {"acc": "accuracy",
    ...            "spd": get_fairness_scorer("statistical_parity_difference",
    ...                                       sensitive_column="sex")}
    >>> refit = most_accurate_within(0.05, fairness="spd", performance="acc")
    >>> # GridSearchCV(model, grid, scoring=scoring, refit=refit)
    """
    return _MostAccurateWithin(bound, fairness, performance)


class _MostAccurateWithin:
    # A class rather than a closure so that searches holding it can be pickled.
    def __init__(self, bound, fairness, performance):
        self.bound = bound
        self.fairness = fairness
        self.performance = performance

    def __call__(self, cv_results):
        loss = -np.asarray(cv_results[f"mean_test_{self.fairness}"], dtype=float)
        performance = np.asarray(cv_results[f"mean_test_{self.performance}"], dtype=float)
        admissible = (loss <= self.bound) & ~np.isnan(performance)  # NaN loss fails the bound
        if admissible.any():
            return int(np.argmax(np.where(admissible, performance, -np.inf)))
        params = cv_results.get("params")
        if not np.isnan(loss).all():
            chosen = int(np.nanargmin(loss))
            reason = (
                f"no candidate has a mean fairness loss ({self.fairness}) of at most "
                f"{self.bound!r} (the smallest is {loss[chosen]:.4g}), so the fairest one is "
                "chosen"
            )
        elif not np.isnan(performance).all():
            chosen = int(np.nanargmax(performance))
            reason = (
                f"every candidate's mean fairness score ({self.fairness}) is NaN (for instance "
                "test folds holding a single group), so the best performer is chosen"
            )
        else:
            raise ValueError(
                f"Every candidate's mean {self.fairness} and {self.performance} scores are "
                "NaN, so most_accurate_within cannot choose one; check the scorers' warnings "
                "(error_score, single-group folds)."
            )
        candidate = f" {params[chosen]}" if params is not None else ""
        warnings.warn(
            f"most_accurate_within({self.bound!r}): {reason}: candidate {chosen}{candidate}, "
            f"mean {self.performance} = {performance[chosen]:.4g}.",
            UserWarning,
            stacklevel=2,
        )
        return chosen

    def __repr__(self):
        return (
            f"most_accurate_within({self.bound!r}, fairness={self.fairness!r}, "
            f"performance={self.performance!r})"
        )
