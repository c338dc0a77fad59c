"""Dask fixtures: the synchronous scheduler for unit tests, one LocalCluster per session, the
guard against materialising a collection on the client, a learner that fits dask collections."""

import contextlib

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pytest
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin


@pytest.fixture(autouse=True)
def synchronous_scheduler(request):
    """Unit tests run on the synchronous scheduler unless they ask for the cluster."""
    if "cluster_client" in request.fixturenames:
        yield
        return
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(scope="session")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        # No dashboard, and its HTTP server on a free port: 8787 may be taken on the machine.
        dashboard_address=":0",
    ) as local_cluster:
        yield local_cluster


@pytest.fixture
def cluster_client(cluster):
    from distributed import Client

    with Client(cluster) as client:
        yield client


# --------------------------------------------------------------------------------------------
# nothing materialised on the client


class _Guard:
    """While on, materialising a dask collection on the client raises."""

    def __init__(self):
        self.on = True

    @contextlib.contextmanager
    def off(self):
        self.on = False
        try:
            yield
        finally:
            self.on = True


@pytest.fixture
def no_materialisation(monkeypatch):
    guard = _Guard()
    collections = (da.Array, dd.DataFrame, dd.Series)

    def guarded(original):
        def method(*args, **kwargs):
            if guard.on:
                raise AssertionError("a dask collection was materialised on the client")
            return original(*args, **kwargs)

        return method

    compute = dask.compute

    def compute_small(*args, **kwargs):
        if guard.on and any(isinstance(arg, collections) for arg in args):
            raise AssertionError("dask.compute of a whole dask collection")
        return compute(*args, **kwargs)

    for name in ("__array__", "compute", "compute_chunk_sizes"):
        monkeypatch.setattr(da.Array, name, guarded(getattr(da.Array, name)))
    for collection in (dd.DataFrame, dd.Series):
        for name in ("__array__", "compute"):
            if hasattr(collection, name):
                monkeypatch.setattr(collection, name, guarded(getattr(collection, name)))
    monkeypatch.setattr(dask, "compute", compute_small)
    return guard


# --------------------------------------------------------------------------------------------
# a base learner that fits dask collections


class WeightedLogisticRegression(ClassifierMixin, BaseEstimator):
    """L2-penalised weighted logistic regression by Newton's method, on numpy arrays or on
    dask arrays alike: each step sums the gradient and the Hessian of the row blocks (small
    arrays, computed on the workers), so a dask fit equals the numpy fit to rounding.

    It says that its ``fit`` takes dask collections (``__skfair_fits_dask__``); ``predict``
    takes in-memory blocks, and dask arrays too (block by block).
    """

    __skfair_fits_dask__ = True

    def __init__(self, alpha=1e-2, max_iter=100, tol=1e-12):
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        if isinstance(X, da.Array):
            # The row chunks of y (a lazy array of the reduction's): dask's rechunk to chunks
            # of length 0 is unreliable, so X and the weights follow y's.
            rows = y.chunks[0]
            X = X.rechunk({0: rows, 1: -1})
            weights = da.ones(X.shape[0], chunks=rows) if sample_weight is None else sample_weight
            weights = weights if weights.chunks[0] == rows else weights.rechunk(rows)
            # As a learner on a cluster would: the blocks stay on the workers between Newton
            # steps, instead of every step recomputing the reduction's lazy labels and weights.
            X, y, weights = dask.persist(X, y, weights)
            blocks = list(
                zip(X.to_delayed()[:, 0], y.to_delayed(), weights.to_delayed(), strict=True)
            )
            self.classes_ = np.unique(
                np.concatenate(dask.compute([dask.delayed(np.unique)(b[1]) for b in blocks])[0])
            )
        else:
            X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
            weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
            blocks = [(X, y, np.asarray(weights, dtype=np.float64))]
            self.classes_ = np.unique(y)
        n_features = X.shape[1]
        coef = np.zeros(n_features + 1)
        penalty = np.full(n_features + 1, self.alpha)
        penalty[-1] = 0.0
        for _ in range(self.max_iter):
            if isinstance(X, da.Array):
                parts = dask.compute(
                    [dask.delayed(_newton_parts)(coef, *b, self.classes_[-1]) for b in blocks]
                )[0]
            else:
                parts = [_newton_parts(coef, *block, self.classes_[-1]) for block in blocks]
            gradient = sum(p[0] for p in parts) + penalty * coef
            hessian = sum(p[1] for p in parts) + np.diag(penalty)
            step = np.linalg.solve(hessian, gradient)
            coef = coef - step
            if np.abs(step).max() < self.tol:
                break
        self.coef_, self.intercept_ = coef[:-1], coef[-1]
        self.n_features_in_ = n_features
        return self

    def decision_function(self, X):
        if isinstance(X, da.Array):
            return X.map_blocks(self.decision_function, drop_axis=1, dtype=np.float64)
        return np.asarray(X, dtype=np.float64) @ self.coef_ + self.intercept_

    def predict(self, X):
        if isinstance(X, da.Array):
            return X.map_blocks(self.predict, drop_axis=1, dtype=self.classes_.dtype)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def predict_proba(self, X):
        positive = expit(self.decision_function(X))
        return np.column_stack([1 - positive, positive])


def _newton_parts(coef, X, y, weights, positive_class):
    X1 = np.column_stack([np.asarray(X, dtype=np.float64), np.ones(X.shape[0])])
    p = expit(X1 @ coef)
    w = np.asarray(weights, dtype=np.float64)
    gradient = X1.T @ (w * (p - (np.asarray(y) == positive_class)))
    hessian = (X1 * (w * p * (1 - p))[:, None]).T @ X1
    return gradient, hessian


@pytest.fixture
def dask_learner():
    """The class of a base learner whose ``fit`` takes dask collections."""
    return WeightedLogisticRegression
