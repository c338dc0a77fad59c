"""Work on a dask cluster: metrics on dask collections, and BootstrapEnsemble and
BiasExplainer through joblib's dask backend.

Results do not depend on where the tasks run: the cluster gives what one local process gives.
(The tests that need the cluster live in this one module, so that a parallel test run starts
one cluster, not one per test process.)
"""

import dask.array as da
import joblib
import numpy as np
import pytest
from distributed import get_task_stream
from sklearn.linear_model import LogisticRegression

from skfair import metrics
from skfair.ensemble import BootstrapEnsemble
from skfair.explain import BiasExplainer


def _data():
    rng = np.random.default_rng(0)
    group = rng.integers(0, 2, 600)
    X = np.column_stack([rng.normal(group, 1.0), rng.normal(size=600), rng.normal(size=600)])
    y = (X[:, 0] + rng.normal(size=600) > 0.5).astype(int)
    return X, y, group


def test_bootstrap_ensemble_on_the_cluster(cluster_client):
    X, y, _ = _data()
    local = BootstrapEnsemble(LogisticRegression(), n_estimators=6, random_state=0).fit(X, y)
    with joblib.parallel_backend("dask"), get_task_stream(cluster_client) as tasks:
        remote = BootstrapEnsemble(
            LogisticRegression(), n_estimators=6, random_state=0, n_jobs=-1
        ).fit(X, y)
        remote_members = remote.predict_proba_members(X)
    assert tasks.data, "no task ran on the cluster"
    assert len(remote.estimators_) == 6
    np.testing.assert_array_equal(remote_members, local.predict_proba_members(X))


def test_bias_explainer_on_the_cluster(cluster_client):
    X, y, group = _data()
    model = LogisticRegression().fit(X, y)
    local = BiasExplainer(model, random_state=0).fit(X, sensitive_features=group)
    with joblib.parallel_backend("dask"), get_task_stream(cluster_client) as tasks:
        remote = BiasExplainer(model, random_state=0, n_jobs=-1).fit(X, sensitive_features=group)
    assert tasks.data, "no task ran on the cluster"
    np.testing.assert_allclose(
        remote.explanations_.shapley_total, local.explanations_.shapley_total, rtol=0, atol=1e-12
    )
    assert remote.bias_.total == local.bias_.total


def _on_dask(array, chunks):
    return da.from_array(array, chunks=(chunks,))


def test_metrics_on_the_cluster(cluster_client):
    rng = np.random.default_rng(9)
    n = 20_000
    y_pred, groups, scores = rng.integers(0, 2, n), rng.choice(["a", "b"], n), rng.random(n)
    chunks = (5000,) * 4
    got = metrics.statistical_parity_difference(
        None, _on_dask(y_pred, chunks), sensitive_features=_on_dask(groups, chunks)
    )
    assert got == pytest.approx(
        metrics.statistical_parity_difference(None, y_pred, sensitive_features=groups), abs=1e-12
    )
    got = metrics.wasserstein_bias(
        None, _on_dask(scores, chunks), sensitive_features=_on_dask(groups, chunks), resolution=1e-4
    )
    assert got == pytest.approx(
        metrics.wasserstein_bias(None, scores, sensitive_features=groups, resolution=1e-4),
        abs=1e-12,
    )
