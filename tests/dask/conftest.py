"""Dask fixtures: the synchronous scheduler for unit tests, one LocalCluster per session."""

import dask
import pytest


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
