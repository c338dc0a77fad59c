"""Conventions every public skfair estimator follows (the per-module tests run
scikit-learn's ``parametrize_with_checks`` on each of them)."""

import importlib
import inspect
import pickle

import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LinearRegression, LogisticRegression

import skfair.postprocessing
from skfair.postprocessing import BarycenterRepair

SUBPACKAGES = [
    "metrics",
    "neighbors",
    "postprocessing",
    "explain",
    "ensemble",
    "datasets",
    "reductions",
    "preprocessing",
]

# Estimators whose constructor needs arguments.
REQUIRED_ARGUMENTS = {
    "RepairedClassifier": lambda cls: cls(LogisticRegression(), BarycenterRepair()),
    "RepairedRegressor": lambda cls: cls(LinearRegression(), BarycenterRepair()),
    "BiasExplainer": lambda cls: cls(LogisticRegression()),
    "BootstrapEnsemble": lambda cls: cls(LogisticRegression(), n_estimators=3),
    "GroupThresholdClassifier": lambda cls: cls(LogisticRegression()),
    "ExponentiatedGradient": lambda cls: cls(LogisticRegression()),
    "GridSearch": lambda cls: cls(LogisticRegression()),
    "ReweighingClassifier": lambda cls: cls(LogisticRegression()),
}


def _public_estimators():
    found = {}
    for name in SUBPACKAGES:
        module = importlib.import_module(f"skfair.{name}")
        for public in module.__all__:
            obj = getattr(module, public)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                found[public] = obj
    return found


ESTIMATORS = _public_estimators()


def _instance(name):
    cls = ESTIMATORS[name]
    return REQUIRED_ARGUMENTS.get(name, lambda c: c())(cls)


def test_every_subpackage_exports_what_design_requires():
    expected = {
        "BarycenterRepair",
        "MADDRepair",
        "RepairedClassifier",
        "RepairedRegressor",
        "BiasExplainer",
        "BootstrapEnsemble",
        "GroupThresholdClassifier",
    }
    assert expected <= set(ESTIMATORS)
    assert set(skfair.postprocessing.__all__) >= {"BarycenterRepair", "MADDRepair"}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_html_repr_has_no_link_to_a_documentation_page_that_does_not_exist(name):
    estimator = _instance(name)
    assert estimator._get_doc_link() == ""
    html = estimator._repr_html_()
    assert name in html
    assert "readthedocs" not in html


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_clone_pickle_and_params_round_trip(name):
    estimator = _instance(name)
    params = estimator.get_params(deep=False)
    cloned = clone(estimator)
    assert type(cloned) is type(estimator)
    assert cloned.get_params(deep=False).keys() == params.keys()
    restored = pickle.loads(pickle.dumps(estimator))
    assert repr(restored) == repr(estimator)
    assert estimator.set_params(**params) is estimator
