"""Scale-out on Dask: 10^7 to 10^9 rows on a 2-worker LocalCluster, against in-memory numpy.

For each size ``n`` the data are generated lazily, block by block, from a seeded
``dask.array.random.default_rng`` (never materialised): a group in 4 values, a score in
[0, 1] that depends on the group, ``y_true ~ Bernoulli(score)`` and ``y_pred = score > 0.5``.
On a fresh ``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`` the run times

- the count-table metrics: ``statistical_parity_difference``, ``equalized_odds_difference``,
  ``group_summary(n_boot=1000)`` (three passes over the data);
- ``wasserstein_bias(resolution=1e-4)``, ``madd_bandwidth_search`` (1000 bandwidths, exact),
  ``BarycenterRepair.fit`` on the scores rounded to 4 decimals;
- (at the size ``--transform-rows``) ``BarycenterRepair`` fitted and its lazy ``transform``
  of all rows written to parquet in a temporary directory that is deleted afterwards;

and reads each worker's peak resident memory (``getrusage`` in the worker process). Every pass
regenerates its data, which is part of the measured time. The in-memory numpy path runs the
same calls on numpy arrays at the smallest size in the same run (data generated beforehand,
not timed), on one process; the throughput per core compares the two.

``--tasks`` adds ``BootstrapEnsemble`` (50 replicas) and ``BiasExplainer`` on the cluster
through joblib's dask backend, against ``n_jobs=2`` locally, on 100,000 rows (the explainer
on 20,000 rows and 5 features).

Run from the repository root (the machine is shared: nice)::

    PYTHONPATH=. nice -n 10 python benchmarks/bench_dask.py --rows 1e7 1e8 1e9 \
        --transform-rows 1e8 --count-only-from 1e8
    PYTHONPATH=. nice -n 10 python benchmarks/bench_dask.py --rows 1e6 --no-numpy --tasks

Prints markdown tables for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import joblib  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

from skfair.metrics import (  # noqa: E402
    equalized_odds_difference,
    group_summary,
    madd_bandwidth_search,
    statistical_parity_difference,
    wasserstein_bias,
)
from skfair.postprocessing import BarycenterRepair  # noqa: E402

N_WORKERS = 2


def lazy_data(n, chunk, seed=0):
    """Lazily generated columns (dask arrays of ``chunk`` rows)."""
    rng = da.random.default_rng(seed)
    group = rng.integers(0, 4, n, chunks=chunk, dtype=np.int8)
    noise = rng.random(n, chunks=chunk)
    score = np.clip(0.7 * noise + 0.1 * group, 0.0, 1.0)
    y_true = (rng.random(n, chunks=chunk) < score).astype(np.int8)
    y_pred = (score > 0.5).astype(np.int8)
    return group, score, y_true, y_pred


def steps(group, score, y_true, y_pred):
    """The timed calls, as (name, callable) pairs, identical for dask and numpy inputs."""
    rounded = (np.round(score, 4))[:, None]
    return [
        (
            "generate the data only (sum of each column)",
            lambda: [
                float(total)
                for total in dask.compute(*(c.sum() for c in (group, score, y_true, y_pred)))
            ],
        ),
        (
            "statistical_parity_difference",
            lambda: statistical_parity_difference(y_true, y_pred, sensitive_features=group),
        ),
        (
            "equalized_odds_difference",
            lambda: equalized_odds_difference(y_true, y_pred, sensitive_features=group),
        ),
        (
            "group_summary(n_boot=1000)",
            lambda: group_summary(
                y_true, y_pred, sensitive_features=group, n_boot=1000, random_state=0
            ),
        ),
        (
            "wasserstein_bias(resolution=1e-4)",
            lambda: wasserstein_bias(None, score, sensitive_features=group, resolution=1e-4),
        ),
        (
            "madd_bandwidth_search",
            lambda: madd_bandwidth_search(None, score, sensitive_features=group),
        ),
        (
            "BarycenterRepair.fit (4 decimals)",
            lambda: BarycenterRepair(random_state=0).fit(rounded, sensitive_features=group),
        ),
    ]


COUNT_TABLE = {
    "statistical_parity_difference",
    "equalized_odds_difference",
    "group_summary(n_boot=1000)",
}


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def summarise(value):
    if hasattr(value, "value") and not isinstance(value, float):
        value = value.value
    if isinstance(value, BarycenterRepair):
        value = value.w2_dispersion_
    return np.asarray(value, dtype=float).tolist()


def run_cluster(n, chunk, transform_rows, results, count_only=False):
    with (
        LocalCluster(
            n_workers=N_WORKERS,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        # Import skfair on the workers before timing anything.
        client.run(lambda: __import__("skfair.metrics") and __import__("skfair.postprocessing"))
        data = lazy_data(n, chunk)
        for name, call in steps(*data):
            if count_only and name not in COUNT_TABLE:
                continue
            start = time.perf_counter()
            value = call()
            elapsed = time.perf_counter() - start
            results.append(
                dict(n=n, where="dask", step=name, seconds=elapsed, value=summarise(value))
            )
            print(f"  n={n:.0e} {name}: {elapsed:.1f} s", flush=True)
        if transform_rows:
            group, score = data[0], data[1]
            repair = BarycenterRepair(random_state=0).fit(
                np.round(score, 4)[:, None], sensitive_features=group
            )
            directory = tempfile.mkdtemp(prefix="skfair-bench-dask-")
            try:
                start = time.perf_counter()
                repaired = repair.transform(score[:, None], sensitive_features=group)
                dd.from_dask_array(repaired, columns=["repaired"]).to_parquet(directory)
                elapsed = time.perf_counter() - start
                size = sum(f.stat().st_size for f in pathlib.Path(directory).rglob("*"))
            finally:
                shutil.rmtree(directory)
            results.append(
                dict(
                    n=transform_rows,
                    where="dask",
                    step="BarycenterRepair.transform -> parquet",
                    seconds=elapsed,
                    value=f"{size / 1e6:.0f} MB written",
                )
            )
            print(f"  transform {transform_rows:.0e} rows -> parquet: {elapsed:.1f} s", flush=True)
        peaks = client.run(_peak_rss_mb)
    return [peaks[w] for w in sorted(peaks)]


def run_memory(n, chunk):
    with dask.config.set(scheduler="synchronous"):
        data = dask.compute(*lazy_data(n, chunk))
    out = []
    for name, call in steps(*data):
        start = time.perf_counter()
        value = call()
        out.append(
            dict(
                n=n,
                where="numpy",
                step=name,
                seconds=time.perf_counter() - start,
                value=summarise(value),
            )
        )
        print(f"  numpy n={n:.0e} {name}: {out[-1]['seconds']:.1f} s", flush=True)
    return out


def run_tasks():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from skfair.ensemble import BootstrapEnsemble
    from skfair.explain import BiasExplainer

    X, y = make_classification(100_000, n_features=10, random_state=0)
    group = (X[:, 0] > 0).astype(int)
    rows = []

    def ensemble(n_jobs):
        return BootstrapEnsemble(
            LogisticRegression(), n_estimators=50, random_state=0, n_jobs=n_jobs
        ).fit(X, y)

    small_model = LogisticRegression().fit(X[:20_000, :5], y[:20_000])

    def explainer(n_jobs):
        return BiasExplainer(small_model, random_state=0, n_jobs=n_jobs).fit(
            X[:20_000, :5], sensitive_features=group[:20_000]
        )

    for name, make in [("BootstrapEnsemble(50) fit", ensemble), ("BiasExplainer fit", explainer)]:
        start = time.perf_counter()
        make(2)
        local = time.perf_counter() - start
        with (
            LocalCluster(
                n_workers=N_WORKERS,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            ) as cluster,
            Client(cluster),
            joblib.parallel_backend("dask"),
        ):
            make(-1)  # warm the workers (imports)
            start = time.perf_counter()
            make(-1)
            remote = time.perf_counter() - start
        rows.append((name, local, remote))
        print(f"  {name}: n_jobs=2 {local:.1f} s, cluster {remote:.1f} s", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", nargs="+", type=float, default=[1e7, 1e8])
    parser.add_argument("--chunk", type=float, default=5e6)
    parser.add_argument("--transform-rows", type=float, default=0)
    parser.add_argument("--tasks", action="store_true")
    parser.add_argument("--no-numpy", action="store_true")
    parser.add_argument(
        "--count-only-from",
        type=float,
        default=np.inf,
        help="from this size on, time only the count-table metrics",
    )
    args = parser.parse_args()
    chunk = int(args.chunk)
    sizes = [int(n) for n in args.rows]
    results, peaks = [], {}
    for n in sizes:
        transform = int(args.transform_rows) if n == int(args.transform_rows) else 0
        print(f"dask, n = {n:.0e}", flush=True)
        start = time.perf_counter()
        peaks[n] = run_cluster(n, chunk, transform, results, n >= args.count_only_from)
        print(
            f"  wall {time.perf_counter() - start:.0f} s, peak RSS per worker {peaks[n]}",
            flush=True,
        )
    if not args.no_numpy:
        results += run_memory(sizes[0], chunk)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nMachine: {os.cpu_count()} cores, load average {load}, chunk = {chunk:,} rows\n")
    print("| rows | step | dask, 2 workers (s) | rows/s/core | numpy (s) | rows/s/core | ratio |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    numpy = {r["step"]: r for r in results if r["where"] == "numpy"}
    for r in results:
        if r["where"] != "dask":
            continue
        per_core = r["n"] / r["seconds"] / N_WORKERS
        m = numpy.get(r["step"]) if r["n"] == sizes[0] else None
        if m is not None:
            numpy_rate = m["n"] / m["seconds"]
            if not r["step"].startswith("generate"):  # the same values, computed both ways
                assert np.allclose(r["value"], m["value"], rtol=0, atol=1e-9), (r, m)
            ratio = per_core / numpy_rate
            print(
                f"| {r['n']:.0e} | {r['step']} | {r['seconds']:.1f} | {per_core:,.0f} "
                f"| {m['seconds']:.2f} | {numpy_rate:,.0f} | {ratio:.2f} |"
            )
        else:
            print(f"| {r['n']:.0e} | {r['step']} | {r['seconds']:.1f} | {per_core:,.0f} | | | |")
    for n in sizes:
        count = sum(
            r["seconds"]
            for r in results
            if r["where"] == "dask" and r["n"] == n and r["step"] in COUNT_TABLE
        )
        print(
            f"\nn = {n:.0e}: count-table metrics {count:.0f} s; peak RSS per worker (MB): "
            f"{', '.join(f'{p:.0f}' for p in peaks[n])}"
        )
    if args.tasks:
        print("\n| task | n_jobs=2 locally (s) | 2-worker cluster (s) |\n|---|---:|---:|")
        for name, local, remote in run_tasks():
            print(f"| {name} | {local:.1f} | {remote:.1f} |")


if __name__ == "__main__":
    main()
