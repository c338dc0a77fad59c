"""BootstrapEnsemble and BiasExplainer on a dask cluster through joblib's dask backend.

Results do not depend on where the tasks run: the cluster gives what one local process gives.
"""

import joblib
import numpy as np
from distributed import get_task_stream
from sklearn.linear_model import LogisticRegression

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
