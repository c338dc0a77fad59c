"""The scale-out contract, checked on every public function and estimator.

In the spirit of scikit-learn's ``test_common.py``: every name in the ``__all__`` of the
subpackages below is called on dask input with ``dask.array.Array.__array__``, the
``compute`` of dask collections and ``dask.compute`` of a dask collection patched to raise
(nothing may be materialised on the client). Each call must either return what the same call
returns in memory (a lazy result equal once computed), or raise at once a ``TypeError`` that
says it does not accept dask collections and what to do instead. A name added to one of these
``__all__`` joins the test by itself; one that takes a per-sample argument the test has no
data for fails here, asking for a recipe.
"""

import functools
import importlib
import inspect
import warnings
from pathlib import Path

import dask.array as da
import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.utils import Bunch

SUBPACKAGES = [
    "metrics",
    "postprocessing",
    "ensemble",
    "explain",
    "neighbors",
    "reductions",
    "preprocessing",
    "subgroups",
]
ROOT = Path(__file__).resolve().parents[2]
N = 240
CHUNKS = (70, 0, 1, 99, 70)
DOCUMENTED = "does not accept dask"


def _modules():
    for name in SUBPACKAGES:
        try:
            yield importlib.import_module(f"skfair.{name}")
        except ModuleNotFoundError:
            continue


def _public(kind):
    found = {}
    for module in _modules():
        for name in module.__all__:
            obj = getattr(module, name)
            is_estimator = inspect.isclass(obj) and issubclass(obj, BaseEstimator)
            if (
                kind == "estimator"
                and is_estimator
                or kind == "function"
                and not is_estimator
                and callable(obj)
            ):
                found[name] = obj
    return found


FUNCTIONS = _public("function")
ESTIMATORS = _public("estimator")


# --------------------------------------------------------------------------------------------
# data


def _data():
    rng = np.random.default_rng(0)
    group = rng.choice(["a", "b", "c"], N)
    group[:3] = ["a", "b", "c"]
    score = np.round(np.clip(rng.beta(2, 3, N) + 0.15 * (group == "b"), 0, 1), 2)
    y_true = (rng.random(N) < score).astype(int)
    y_true[:2] = [0, 1]
    y_pred = (score > 0.45).astype(int)
    members = 5
    member_score = np.round(np.clip(score + rng.normal(0, 0.1, (members, N)), 0, 1), 1)
    return {
        "y_true": y_true,
        "y_pred": y_pred,
        "y_score": score,
        "sensitive_features": group,
        "control_features": rng.choice(["x", "y"], N),
        "sample_weight": rng.choice([0.5, 1.0, 2.0], N),
        "X": np.column_stack([score, np.round(rng.random(N), 2)]),
        "member_labels": (member_score > 0.5).astype(int),
        "member_proba": np.stack([1 - member_score, member_score], axis=-1),
    }


DATA = _data()

# Per-sample arguments of functions whose data are not the defaults above.
MEMBER_LABELS = {"label_stability", "label_stability_difference"}
MEMBER_PROBA = {
    "aleatoric_uncertainty",
    "epistemic_uncertainty",
    "aleatoric_uncertainty_difference",
    "epistemic_uncertainty_difference",
}
# Keyword arguments a function needs to be called at all (no per-sample data among them).
REQUIRED = {
    "MetricTable": {"metrics": ["selection_rate", "true_positive_rate", "accuracy"]},
    "find_subgroups": {
        "features": np.column_stack([DATA["X"], DATA["sensitive_features"]]).astype(object),
        "min_support": 5,
    },
    "explain_bias": {"estimator": LogisticRegression().fit(DATA["X"], DATA["y_true"])},
    "label_stability": {"labels": [0, 1]},
    "threshold_pareto_front": {
        "estimator": importlib.import_module("skfair.postprocessing")
        .GroupThresholdClassifier(
            FrozenEstimator(LogisticRegression().fit(DATA["X"], DATA["y_true"])), random_state=0
        )
        .fit(DATA["X"], DATA["y_true"], sensitive_features=DATA["sensitive_features"])
    },
}
# Functions that take no per-sample data: nothing of them runs on dask input.
NO_DATA = {
    "SubgroupReport": "holds what find_subgroups found; its mask method is tested on its own",
    "get_fairness_scorer": "returns a scorer object",
    "make_fairness_scorer": "returns a scorer object",
    "most_accurate_within": "reads cv_results_, a small dict of fold scores",
    "draw_projections": "draws random directions from the number of features",
}


def _arguments(name, function, *, weighted):
    parameters = inspect.signature(function).parameters
    arguments = dict(REQUIRED.get(name, {}))
    for parameter in parameters.values():
        if parameter.name in arguments or parameter.kind in (
            parameter.VAR_POSITIONAL,
            parameter.VAR_KEYWORD,
        ):
            continue
        if parameter.name in ("y_pred", "y_proba") and (name in MEMBER_LABELS | MEMBER_PROBA):
            key = "member_labels" if name in MEMBER_LABELS else "member_proba"
            arguments[parameter.name] = DATA[key]
        elif parameter.name == "sample_weight":
            if weighted:
                arguments[parameter.name] = DATA["sample_weight"]
        elif parameter.name == "control_features":
            arguments[parameter.name] = DATA["control_features"]
        elif parameter.name == "y":  # labels of a training set (reweighing_weights)
            arguments[parameter.name] = DATA["y_true"]
        elif parameter.name in DATA:
            arguments[parameter.name] = DATA[parameter.name]
        elif parameter.default is parameter.empty:
            pytest.fail(
                f"{name} needs {parameter.name!r}, for which this test has no data: add a "
                "recipe to REQUIRED or DATA in tests/dask/test_contract.py."
            )
    return arguments


def _to_dask(value):
    if not isinstance(value, np.ndarray):
        return value
    if value.ndim >= 2 and value.shape[1] == N and value.shape[0] != N:  # members first
        return da.from_array(value, chunks=(value.shape[0], CHUNKS, *value.shape[2:]))
    return da.from_array(value, chunks=(CHUNKS, *value.shape[1:]))


def _as_dask(arguments):
    return {key: _to_dask(value) for key, value in arguments.items()}


# --------------------------------------------------------------------------------------------
# nothing materialised on the client


def _call(function, arguments):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(**arguments)


def _assert_documented(error, name):
    assert DOCUMENTED in str(error), (name, str(error))


def _assert_equal(got, expected, what):
    if isinstance(got, da.Array):
        got = got.compute()
    if isinstance(expected, str) or expected is None:
        assert got == expected, (what, got, expected)
    elif isinstance(expected, float) or np.isscalar(expected):
        assert isinstance(got, (float, int, np.floating, np.integer)), (what, type(got))
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=what)
    elif isinstance(expected, Bunch):
        assert set(got) == set(expected), what
        for key in expected:
            _assert_equal(got[key], expected[key], f"{what}.{key}")
    elif isinstance(expected, (pd.DataFrame, pd.Series)):
        pd.testing.assert_frame_equal(
            pd.DataFrame(got), pd.DataFrame(expected), rtol=1e-12, atol=1e-12
        )
    elif isinstance(expected, dict):
        assert got.keys() == expected.keys(), what
        for key in expected:
            _assert_equal(got[key], expected[key], f"{what}[{key!r}]")
    elif isinstance(expected, (list, tuple)) and not all(np.isscalar(v) for v in expected):
        assert len(got) == len(expected), what
        for k, (a, b) in enumerate(zip(got, expected, strict=True)):
            _assert_equal(a, b, f"{what}[{k}]")
    elif isinstance(expected, (list, tuple)) and np.asarray(expected).dtype.kind not in "fiub":
        assert list(got) == list(expected), what
    else:
        got, expected = np.asarray(got), np.asarray(expected)
        assert got.shape == expected.shape, (what, got.shape, expected.shape)
        if expected.dtype.kind in "fc":
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=what)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=what)


def _metric_table_views(table):
    return Bunch(
        by_group=table.by_group,
        overall=table.overall,
        counts=table.counts,
        difference=table.difference(),
        ratio=table.ratio(),
        groups=table.groups,
    )


# --------------------------------------------------------------------------------------------
# functions


RESULTS = {}


CASES = [
    (name, weighted)
    for name in sorted(FUNCTIONS)
    for weighted in (False, True)
    if not weighted or "sample_weight" in inspect.signature(FUNCTIONS[name]).parameters
]


@pytest.mark.parametrize(
    ("name", "weighted"), CASES, ids=[f"{n}-{'weighted' if w else 'unweighted'}" for n, w in CASES]
)
def test_function_on_dask_equals_in_memory_or_raises_type_error(name, weighted, no_materialisation):
    function = FUNCTIONS[name]
    if name in NO_DATA:
        parameters = set(inspect.signature(function).parameters)
        assert not parameters & {"y_true", "y_pred", "y_score", "X", "sensitive_features"}, (
            f"{name} is listed as taking no per-sample data, but it does"
        )
        return
    arguments = _arguments(name, function, weighted=weighted)
    with no_materialisation.off():
        expected = _call(function, arguments)
    try:
        got = _call(function, _as_dask(arguments))
    except TypeError as error:
        _assert_documented(error, name)
        RESULTS[name] = "TypeError"
        return
    with no_materialisation.off():
        if name == "MetricTable":
            got, expected = _metric_table_views(got), _metric_table_views(expected)
        if name == "find_subgroups":
            got, expected = got.to_dict(), expected.to_dict()
        _assert_equal(got, expected, name)
    RESULTS[name] = "equal"


def _scorer_cases():
    """Scorers of each way of getting the per-sample data: ``(scorer, X, metadata)``."""
    from skfair.metrics import (
        conditional_demographic_disparity,
        get_fairness_scorer,
        make_fairness_scorer,
        statistical_parity_difference,
    )

    codes = {"group": np.unique(DATA["sensitive_features"], return_inverse=True)[1]}
    codes["control"] = np.unique(DATA["control_features"], return_inverse=True)[1]
    X_columns = np.column_stack([DATA["X"], codes["group"], codes["control"]])
    sensitive = {"sensitive_features": DATA["sensitive_features"]}
    cdd = get_fairness_scorer("conditional_demographic_disparity")
    return {
        "sensitive_features": (
            get_fairness_scorer("statistical_parity_difference"),
            DATA["X"],
            sensitive,
        ),
        "sensitive_column": (
            make_fairness_scorer(statistical_parity_difference, sensitive_column=2),
            X_columns,
            {},
        ),
        "cdd-control_features": (
            cdd,
            DATA["X"],
            {**sensitive, "control_features": DATA["control_features"]},
        ),
        "cdd-control_column": (
            make_fairness_scorer(
                conditional_demographic_disparity, sensitive_column=2, control_column=3
            ),
            X_columns,
            {},
        ),
    }


@pytest.mark.parametrize("case", sorted(_scorer_cases()))
def test_scorer_on_dask_equals_in_memory_or_raises_type_error(case, no_materialisation):
    # The scorers of make_fairness_scorer / get_fairness_scorer take per-sample data when
    # they are called (sensitive and control features as metadata or columns of X).
    scorer, X, metadata = _scorer_cases()[case]
    arguments = {"X": X, "y_true": DATA["y_true"], **metadata}
    with no_materialisation.off():
        score = functools.partial(scorer, LogisticRegression().fit(X, DATA["y_true"]))
        expected = _call(score, arguments)
    try:
        got = _call(score, _as_dask(arguments))
    except TypeError as error:
        _assert_documented(error, case)
        return
    _assert_equal(got, expected, case)


def test_every_function_with_data_is_exact_or_refuses_for_a_documented_reason():
    """The functions that refuse dask input are those that need all rows together."""
    refusing = {
        name
        for name, function in FUNCTIONS.items()
        if getattr(getattr(function, "__skfair_dask_plan__", None), "reason", None)
    }
    assert refusing >= {"hfm", "hfm_details", "consistency_score"}
    assert "statistical_parity_difference" not in refusing


# --------------------------------------------------------------------------------------------
# estimators

CONSTRUCTOR_ARGUMENTS = {
    "estimator": lambda: LogisticRegression(),
    "repair": lambda: importlib.import_module("skfair.postprocessing").BarycenterRepair(
        random_state=0
    ),
}
REGRESSORS = {"RepairedRegressor": lambda: LinearRegression()}
# Estimators that wrap a model already fitted.
FITTED_MODEL = {"BiasExplainer"}
METHODS = (
    "transform",
    "predict",
    "predict_proba",
    "decision_function",
    "decision_probability",
    "predict_members",
    "predict_proba_members",
    "predict_member_proba",
    "uncertainty",
    "score",
)


# Methods whose randomised decisions are drawn per batch: on dask input each partition is a
# batch, so they equal the in-memory method applied partition by partition.
PER_BATCH = {
    (name, method)
    for name in (
        "GroupThresholdClassifier",
        "MulticlassGroupThresholdClassifier",
        "ExponentiatedGradient",  # the copies of a row in one batch share out their draws
    )
    for method in ("predict", "score")
}


def _per_partition(method, arguments):
    bounds = np.cumsum((0, *CHUNKS))
    parts = []
    for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
        if stop > start:
            parts.append(method(**{key: value[start:stop] for key, value in arguments.items()}))
    return np.concatenate(parts)


def _estimator(name, frozen=False):
    cls = ESTIMATORS[name]
    arguments = {}
    for parameter in inspect.signature(cls).parameters.values():
        if parameter.name == "estimator" and frozen:
            model = REGRESSORS[name]() if name in REGRESSORS else LogisticRegression()
            arguments["estimator"] = FrozenEstimator(model.fit(DATA["X"], _targets(name)))
        elif parameter.name == "estimator" and name in REGRESSORS:
            arguments["estimator"] = REGRESSORS[name]()
        elif parameter.name == "estimator" and name in FITTED_MODEL:
            arguments["estimator"] = LogisticRegression().fit(DATA["X"], DATA["y_true"])
        elif parameter.name in CONSTRUCTOR_ARGUMENTS and parameter.default is parameter.empty:
            arguments[parameter.name] = CONSTRUCTOR_ARGUMENTS[parameter.name]()
        elif parameter.default is parameter.empty:
            pytest.fail(f"{name} needs {parameter.name!r}: add it to CONSTRUCTOR_ARGUMENTS.")
    estimator = cls(**arguments)
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=0)
    if "n_estimators" in estimator.get_params():
        estimator.set_params(n_estimators=3)
    return estimator


def _fit_arguments(estimator, X, y, sensitive):
    return _method_arguments(estimator, "fit", X, y, sensitive)


def _method_arguments(estimator, method, X, y, sensitive):
    parameters = inspect.signature(getattr(estimator, method)).parameters
    arguments = {"X": X}
    if "y" in parameters:
        arguments["y"] = y
    if "sensitive_features" in parameters:
        arguments["sensitive_features"] = sensitive
    return arguments


def _targets(name):
    return DATA["y_score"] * 3.0 if name in REGRESSORS else DATA["y_true"]


# Meta-estimators that also take a model already fitted, through FrozenEstimator: their fit
# is walked a second time with one (nothing is trained then, so more of them may run on dask).
FROZEN = sorted(
    name
    for name, cls in ESTIMATORS.items()
    if "estimator" in inspect.signature(cls).parameters and name not in FITTED_MODEL
)


@pytest.mark.parametrize(
    "name, frozen",
    [(name, False) for name in sorted(ESTIMATORS)] + [(name, True) for name in FROZEN],
)
def test_estimator_fit_on_dask_equals_in_memory_or_raises_type_error(
    name, frozen, no_materialisation
):
    X, y, sensitive = DATA["X"], _targets(name), DATA["sensitive_features"]
    with no_materialisation.off():
        expected = _estimator(name, frozen)
        _call(expected.fit, _fit_arguments(expected, X, y, sensitive))
    estimator = _estimator(name, frozen)
    try:
        got = _call(estimator.fit, _as_dask(_fit_arguments(estimator, X, y, sensitive)))
    except TypeError as error:
        _assert_documented(error, f"{name}.fit")
        return
    # The same fitted state, seen through what it outputs on in-memory rows.
    with no_materialisation.off():
        for method in METHODS:
            if method != "score" and hasattr(expected, method):
                arguments = _method_arguments(expected, method, X, y, sensitive)
                _assert_equal(
                    _call(getattr(got, method), arguments),
                    _call(getattr(expected, method), arguments),
                    f"{name}.fit then {method}",
                )


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_methods_on_dask_are_lazy_and_equal_in_memory(name, no_materialisation):
    X, y, sensitive = DATA["X"], _targets(name), DATA["sensitive_features"]
    with no_materialisation.off():
        estimator = _estimator(name)
        _call(estimator.fit, _fit_arguments(estimator, X, y, sensitive))
    checked = []
    for method in METHODS:
        if not hasattr(estimator, method):
            continue
        arguments = _method_arguments(estimator, method, X, y, sensitive)
        with no_materialisation.off():
            if method == "score" and (name, method) in PER_BATCH:
                predicted = dict(arguments)
                y_true = predicted.pop("y")
                expected = np.mean(_per_partition(estimator.predict, predicted) == y_true)
            elif (name, method) in PER_BATCH:
                expected = _per_partition(getattr(estimator, method), arguments)
            else:
                expected = _call(getattr(estimator, method), arguments)
        try:
            got = _call(getattr(estimator, method), _as_dask(arguments))
        except TypeError as error:
            _assert_documented(error, f"{name}.{method}")
            continue
        if method != "score":
            lazy = got.values() if isinstance(got, Bunch) else [got]
            assert all(isinstance(value, da.Array) for value in lazy), (name, method)
        with no_materialisation.off():
            _assert_equal(got, expected, f"{name}.{method}")
        checked.append(method)
    assert checked or name in {"BiasExplainer"}, f"no method of {name} ran on dask input"


# The fits the scaling guide's table ("Which fits run on Dask") lists as running on dask:
# (estimator, with a FrozenEstimator). Every other fit refuses.
FITS_ON_DASK = {
    ("BarycenterRepair", False),
    ("CorrelationRemover", False),
    ("GroupThresholdClassifier", True),
}


def test_the_fits_that_run_on_dask_are_those_of_the_scaling_guide(no_materialisation):
    running = set()
    for name, frozen in [(n, False) for n in sorted(ESTIMATORS)] + [(n, True) for n in FROZEN]:
        estimator = _estimator(name, frozen)
        arguments = _fit_arguments(estimator, DATA["X"], _targets(name), DATA["sensitive_features"])
        try:
            _call(estimator.fit, _as_dask(arguments))
        except TypeError:
            continue
        running.add((name, frozen))
    assert running == FITS_ON_DASK
    guide = (ROOT / "doc" / "user_guide" / "scaling.rst").read_text()
    table = guide[guide.index("Which fits run on Dask") :]
    rows = table.split("   * - ")[2:]
    listed = {
        (name, "FrozenEstimator" in row.split("\n     - ")[0])
        for row in rows
        if row.split("\n     - ")[1].strip() == "yes"
        for name in ESTIMATORS
        if f".{name}`" in row.split("\n     - ")[0]
    }
    assert listed == FITS_ON_DASK


# The fits that run on dask with a base learner whose fit takes dask collections (the
# conftest's WeightedLogisticRegression, which says so with __skfair_fits_dask__): the
# scaling guide's table lists them "with such a learner". Every other meta-estimator refuses.
FITS_ON_DASK_WITH_A_DASK_LEARNER = {"ExponentiatedGradient", "GridSearch"}


def test_the_fits_that_run_on_dask_with_a_dask_learner(dask_learner, no_materialisation):
    X, y, sensitive = DATA["X"], DATA["y_true"], DATA["sensitive_features"]
    running = set()
    for name in FROZEN:
        if name in REGRESSORS:
            continue
        estimator = _estimator(name).set_params(estimator=dask_learner())
        with no_materialisation.off():
            expected = _estimator(name).set_params(estimator=dask_learner())
            _call(expected.fit, _fit_arguments(expected, X, y, sensitive))
        try:
            _call(estimator.fit, _as_dask(_fit_arguments(estimator, X, y, sensitive)))
        except TypeError as error:
            _assert_documented(error, f"{name}.fit")
            continue
        running.add(name)
        # The same fits (each one's training error and disparity), and the same decisions,
        # drawn batch by batch as predict draws them on the partitions (the data have some
        # rows twice: their copies share out their draws within a batch). The seed of the
        # draws is chosen on the fitting rows' draws, which for those copies differ between
        # the partitions and the whole data (documented): randomised decisions are compared
        # under one seed.
        for attribute in ("objectives_", "constraint_gaps_"):
            np.testing.assert_allclose(
                getattr(estimator, attribute), getattr(expected, attribute), atol=1e-6
            )
        if hasattr(estimator, "_draw_seed"):
            expected._draw_seed = estimator._draw_seed
        with no_materialisation.off():
            _assert_equal(
                _per_partition(estimator.predict, {"X": X}),
                _per_partition(expected.predict, {"X": X}),
                f"{name}.fit then predict",
            )
    assert running == FITS_ON_DASK_WITH_A_DASK_LEARNER
    guide = (ROOT / "doc" / "user_guide" / "scaling.rst").read_text()
    table = guide[guide.index("Which fits run on Dask") :]
    cells = [row.split("\n     - ") for row in table.split("   * - ")[2:]]
    listed = {
        name
        for cell in cells
        if cell[1].strip() == "with a learner that fits Dask collections"
        for name in ESTIMATORS
        if f".{name}`" in cell[0]
    }
    assert listed == FITS_ON_DASK_WITH_A_DASK_LEARNER
