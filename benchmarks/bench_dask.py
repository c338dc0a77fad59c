"""Scale-out on Dask: 10^7 to 10^9 rows on a 2-worker LocalCluster, against in-memory numpy.

For each size ``n`` the data are generated from a seeded ``dask.array.random.default_rng`` in
chunks of ``--chunk`` rows (a group in 4 values, a score in [0, 1] that depends on the group,
``y_true ~ Bernoulli(score)`` and ``y_pred = score > 0.5``) and *persisted* on the workers
before anything is timed (the seconds this takes are reported apart): the timed passes read
data already in the workers' memory, as the numpy passes read arrays already in memory. Only
the columns the selected steps read are generated and persisted (``--only GroupThreshold``
holds the group, the label and the rounded score: 10 bytes a row, 10 GB at 10^9 rows); at the
sizes where they do not fit, pass ``--regenerate`` to generate them inside every pass
instead, and say so. ``--worker-memory`` sets each worker's memory limit and turns off the
workers' spilling to disk, so that persisted data stay in memory. On a fresh
``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`` the run times

- the count-table metrics: ``statistical_parity_difference``, ``equalized_odds_difference``,
  ``group_summary(n_boot=1000)``;
- ``wasserstein_bias(resolution=1e-4)``, ``madd_bandwidth_search`` (1000 bandwidths, exact),
  ``BarycenterRepair.fit`` on the scores rounded to 4 decimals, ``CorrelationRemover.fit`` on
  three features (the score, a uniform and a normal column), ``GroupThresholdClassifier.fit``
  (equalized odds) of a frozen model whose score is the rounded score column;

and with ``--reductions`` ``ExponentiatedGradient.fit`` (demographic parity, ``eps=0.02``) with
a weighted logistic regression by Newton's method whose fit takes dask arrays
(:class:`NewtonLogisticRegression`, each step a pass over the data), which prints a line
per best response (its number, Newton steps and seconds, the seconds elapsed); each the best of
``--repeat`` passes, and reads each worker's peak resident memory
(``getrusage`` in the worker process) and the client's (this process), which must not grow
with ``n``. The in-memory numpy path runs the same calls on numpy arrays at the smallest size
in the same run (best of ``--repeat`` too), on one process; the throughput per core compares
the two: dask rows/s divided by the 2 workers, over numpy rows/s.

Each partition is reduced to a small table in one task per partition: with the default
chunk of 10,000,000 rows a metric on 10^7 rows is one task per column block and one merge.

With ``--interleaved``, the dask and the numpy passes of each step alternate (at the first
size only; the numpy arrays are held in this process), and each column is the *median* of
``--repeat`` passes, next to the CPU seconds of a pass: the client's and every worker's
(``time.process_time`` read on each before and after), a measure the load of a shared machine
disturbs less than the wall clock. ``--only`` keeps the steps whose name starts with one of
its words.

Run from the repository root (the machine is shared: nice)::

    PYTHONPATH=. nice -n 10 python benchmarks/bench_dask.py --rows 1e7 1e8
    PYTHONPATH=. nice -n 10 python benchmarks/bench_dask.py --rows 1e9 --count-only \
        --no-numpy
    PYTHONPATH=. python benchmarks/bench_dask.py --rows 1e7 1e9 --chunk 1e7 \
        --only GroupThreshold --repeat 1 --worker-memory 10GB
    PYTHONPATH=. nice -n 10 python benchmarks/bench_dask.py --rows 1e7 --chunk 5e6 \
        --only madd --interleaved --repeat 7
    PYTHONPATH=. nice -n 10 python benchmarks/bench_dask.py --rows 1e7 --chunk 2.5e6 \
        --only GroupThreshold --interleaved --repeat 3
    PYTHONPATH=. nice -n 10 python benchmarks/bench_dask.py --rows 1e6 --chunk 2.5e5 \
        --reductions --only ExponentiatedGradient --interleaved --repeat 1

Prints markdown tables for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster, wait  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.frozen import FrozenEstimator  # noqa: E402

from skfair.metrics import (  # noqa: E402
    equalized_odds_difference,
    group_summary,
    madd_bandwidth_search,
    statistical_parity_difference,
    wasserstein_bias,
)
from skfair.postprocessing import BarycenterRepair, GroupThresholdClassifier  # noqa: E402
from skfair.preprocessing import CorrelationRemover  # noqa: E402
from skfair.reductions import ExponentiatedGradient  # noqa: E402

N_WORKERS = 2
# Whether the steps include the reductions' fits (--reductions): set once, by main.
WITH_REDUCTIONS = [False]
COUNT_TABLE = (
    "statistical_parity_difference",
    "equalized_odds_difference",
    "group_summary(n_boot=1000)",
)


class FitProgress:
    """A line per best response of the reduction (the learner's fits), so that a long run
    shows where it is: the fit's number, its Newton steps and seconds, the seconds since the
    previous line (the fit plus the reduction's pass for the previous fit's table) and the
    seconds since the step started."""

    def __init__(self):
        self.start()

    def start(self):
        self.started = self.previous = time.perf_counter()
        self.count = 0

    def report(self, on_dask, newton_steps, fit_seconds):
        now = time.perf_counter()
        self.count += 1
        print(
            f"    {'dask' if on_dask else 'numpy'} best response {self.count}: "
            f"{newton_steps} Newton steps in {fit_seconds:.1f} s, "
            f"{now - self.previous:.1f} s since the previous line, "
            f"{now - self.started:.1f} s elapsed",
            flush=True,
        )
        self.previous = now


PROGRESS = FitProgress()


class ScoreColumn(ClassifierMixin, BaseEstimator):
    """A fitted model whose score is X's first column (numpy or dask alike)."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, X):
        return X[:, 0]


class NewtonLogisticRegression(ClassifierMixin, BaseEstimator):
    """L2-penalised weighted logistic regression by Newton's method on numpy or dask arrays:
    on dask arrays each step adds up the gradient and Hessian terms of the row blocks, each
    computed on a worker (a (d + 1) x (d + 2) array per block). Its class says that its fit
    takes dask collections (``__skfair_fits_dask__``); ``predict`` takes numpy blocks."""

    __skfair_fits_dask__ = True

    def __init__(self, alpha=1e-2, max_iter=50, tol=1e-10):
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        start = time.perf_counter()
        self.classes_ = np.array([0, 1])
        weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        if isinstance(X, da.Array):
            rows = y.chunks[0]
            # Kept on the workers for the iterations (as dask-ml's solvers persist theirs).
            X, y, weights = dask.persist(X.rechunk({0: rows, 1: -1}), y, weights.rechunk(rows))
            blocks = zip(X.to_delayed()[:, 0], y.to_delayed(), weights.to_delayed(), strict=True)
            blocks = list(blocks)
        coef = np.zeros(X.shape[1] + 1)
        penalty = np.append(np.full(X.shape[1], self.alpha), 0.0)
        self.n_iter_ = 0
        for _ in range(self.max_iter):
            self.n_iter_ += 1
            if isinstance(X, da.Array):
                terms = dask.compute(*[dask.delayed(_newton_terms)(*b, coef) for b in blocks])
                total = sum(terms[1:], terms[0])
            else:  # in memory, in this process
                total = _newton_terms(X, y, weights, coef)
            step = np.linalg.solve(total[:, 1:] + np.diag(penalty), total[:, 0] + penalty * coef)
            coef = coef - step
            if np.abs(step).max() < self.tol:
                break
        self.coef_, self.intercept_ = coef[:-1], coef[-1]
        # The script's own PROGRESS: the learners after the first may belong to a copy of this
        # class (cloudpickle copies the classes of __main__ by value, their globals with them).
        progress = getattr(sys.modules["__main__"], "PROGRESS", PROGRESS)
        progress.report(isinstance(X, da.Array), self.n_iter_, time.perf_counter() - start)
        return self

    def predict(self, X):
        return (np.asarray(X) @ self.coef_ + self.intercept_ > 0).astype(np.int64)


def _newton_terms(X, y, weights, coef):
    """The gradient (first column) and the Hessian of the weighted log-loss on a block."""
    X1 = np.column_stack([X, np.ones(X.shape[0])])
    p = 1.0 / (1.0 + np.exp(-(X1 @ coef)))
    residual, curvature = weights * (p - (y == 1)), weights * p * (1.0 - p)
    return np.column_stack([X1.T @ residual, (X1 * curvature[:, None]).T @ X1])


def lazy_data(n, chunk, seed=0):
    """Lazily generated columns (dask arrays of ``chunk`` rows)."""
    rng = da.random.default_rng(seed)
    group = rng.integers(0, 4, n, chunks=chunk, dtype=np.int8)
    noise = rng.random(n, chunks=chunk)
    score = np.clip(0.7 * noise + 0.1 * group, 0.0, 1.0)
    y_true = (rng.random(n, chunks=chunk) < score).astype(np.int8)
    y_pred = (score > 0.5).astype(np.int8)
    rounded = np.round(score, 4)[:, None]
    features = da.stack([score, noise, rng.standard_normal(n, chunks=chunk)], axis=1)
    return {
        "group": group,
        "score": score,
        "y_true": y_true,
        "y_pred": y_pred,
        "rounded": rounded,
        "features": features,
    }


def steps(data, count_only):
    """The timed calls, as (name, columns read, callable) triples, identical for dask and numpy
    inputs; ``data`` may hold only the columns of the steps that will run."""
    get = data.get
    calls = [
        (
            "statistical_parity_difference",
            ("group", "y_true", "y_pred"),
            lambda: statistical_parity_difference(
                get("y_true"), get("y_pred"), sensitive_features=get("group")
            ),
        ),
        (
            "equalized_odds_difference",
            ("group", "y_true", "y_pred"),
            lambda: equalized_odds_difference(
                get("y_true"), get("y_pred"), sensitive_features=get("group")
            ),
        ),
        (
            "group_summary(n_boot=1000)",
            ("group", "y_true", "y_pred"),
            lambda: group_summary(
                get("y_true"),
                get("y_pred"),
                sensitive_features=get("group"),
                n_boot=1000,
                random_state=0,
            ),
        ),
    ]
    if not count_only:
        calls += [
            (
                "wasserstein_bias(resolution=1e-4)",
                ("group", "score"),
                lambda: wasserstein_bias(
                    None, get("score"), sensitive_features=get("group"), resolution=1e-4
                ),
            ),
            (
                "madd_bandwidth_search",
                ("group", "score"),
                lambda: madd_bandwidth_search(None, get("score"), sensitive_features=get("group")),
            ),
            (
                "BarycenterRepair.fit (4 decimals)",
                ("group", "rounded"),
                lambda: BarycenterRepair(random_state=0).fit(
                    get("rounded"), sensitive_features=get("group")
                ),
            ),
            (
                "CorrelationRemover.fit",
                ("group", "features"),
                lambda: CorrelationRemover().fit(get("features"), sensitive_features=get("group")),
            ),
            (
                "GroupThresholdClassifier.fit (equalized odds, frozen model, 4 decimals)",
                ("group", "y_true", "rounded"),
                lambda: GroupThresholdClassifier(
                    FrozenEstimator(ScoreColumn().fit(None, None)),
                    constraint="equalized_odds",
                    random_state=0,
                ).fit(get("rounded"), get("y_true"), sensitive_features=get("group")),
            ),
        ]
    if WITH_REDUCTIONS[0]:

        def fit_reduction():
            PROGRESS.start()
            reduction = ExponentiatedGradient(NewtonLogisticRegression(), eps=0.02, random_state=0)
            return reduction.fit(get("features"), get("y_true"), sensitive_features=get("group"))

        calls.append(
            (
                "ExponentiatedGradient.fit (demographic parity, Newton logistic regression)",
                ("group", "y_true", "features"),
                fit_reduction,
            )
        )
    return calls


def selected(calls, only):
    """The steps whose name starts with one of the words of ``only`` (every step without)."""
    return [c for c in calls if not only or c[0].startswith(tuple(only))]


def columns_read(count_only, only):
    """The columns the selected steps read: the only ones generated and persisted."""
    return {c for _, columns, _ in selected(steps({}, count_only), only) for c in columns}


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def summarise(value):
    if hasattr(value, "value") and not isinstance(value, float):
        value = value.value
    if isinstance(value, BarycenterRepair):
        value = value.w2_dispersion_
    if isinstance(value, GroupThresholdClassifier):
        value = [value.objective_value_, value.constraint_gap_]
    if isinstance(value, CorrelationRemover):
        value = value.group_means_
    if isinstance(value, ExponentiatedGradient):
        value = [value.objective_, value.constraint_gap_, value.n_fits_]
    return np.asarray(value, dtype=float).tolist()


def _cpu_seconds(client):
    """CPU seconds used so far by this process and by every worker process."""
    workers = client.run(time.process_time)
    return time.process_time() + sum(workers.values())


def interleaved(client, dask_data, numpy_data, n, count_only, only, repeat, results):
    """Each step on dask then on numpy, alternately, ``repeat`` times; medians of the wall
    clock and of the CPU seconds (client and workers for dask, this process for numpy)."""
    dask_steps = {name: call for name, _, call in steps(dask_data, count_only)}
    for name, _, numpy_call in selected(steps(numpy_data, count_only), only):
        passes = {"dask": [], "numpy": []}
        for _ in range(repeat):
            for where, call in (("dask", dask_steps[name]), ("numpy", numpy_call)):
                cpu = _cpu_seconds(client) if where == "dask" else time.process_time()
                start = time.perf_counter()
                value = call()
                wall = time.perf_counter() - start
                cpu = (_cpu_seconds(client) if where == "dask" else time.process_time()) - cpu
                passes[where].append((wall, cpu, value))
        for where, runs in passes.items():
            wall, cpu = np.median([r[0] for r in runs]), np.median([r[1] for r in runs])
            results.append(
                dict(
                    n=n,
                    where=where,
                    step=name,
                    seconds=wall,
                    cpu=cpu,
                    value=summarise(runs[-1][2]),
                    load=os.getloadavg()[0],
                )
            )
            print(
                f"  {where} n={n:.0e} {name}: {wall:.2f} s (median), CPU {cpu:.2f} s, "
                f"value {results[-1]['value']}",
                flush=True,
            )


def best_of(call, repeat, cpu_clock):
    """The fastest of ``repeat`` passes: its wall-clock and CPU seconds (``cpu_clock`` read
    before and after) and the last value."""
    passes, value = [], None
    for _ in range(repeat):
        cpu = cpu_clock()
        start = time.perf_counter()
        value = call()
        passes.append((time.perf_counter() - start, cpu_clock() - cpu))
    return *min(passes), value


def cluster_memory_config(worker_memory):
    """The workers' memory settings: the default (a share of the machine, spilling to disk
    from 60 % of it) or ``worker_memory`` per worker with no spilling to disk (the workers
    still pause at 80 % and restart at 95 %)."""
    if worker_memory is None:
        return {}, {}
    no_spill = {"distributed.worker.memory.target": False, "distributed.worker.memory.spill": False}
    return {"memory_limit": worker_memory}, no_spill


def run_cluster(n, args, results, numpy_data=None):
    """The steps on dask at ``n`` rows; returns the workers' and the client's peak resident
    memory (MB) and the seconds spent generating and persisting the data (None if
    regenerated in every pass)."""
    cluster_options, config = cluster_memory_config(args.worker_memory)
    with (
        dask.config.set(config),
        LocalCluster(
            n_workers=N_WORKERS,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",  # a free port: 8787 may be taken on a shared machine
            **cluster_options,
        ) as cluster,
        Client(cluster) as client,
    ):
        # Import skfair on the workers before timing anything.
        client.run(
            lambda: [
                __import__(f"skfair.{name}")
                for name in ("metrics", "postprocessing", "preprocessing", "reductions")
            ]
        )
        columns = columns_read(args.count_only, args.only)
        data = {k: v for k, v in lazy_data(n, int(args.chunk)).items() if k in columns}
        generation = None
        if not args.regenerate:
            # Only the columns the selected steps read, generated together (the score, drawn
            # once, feeds the label and the rounded score) and held on the workers.
            start = time.perf_counter()
            persisted = client.persist(list(data.values()))
            wait(persisted)
            data = dict(zip(data, persisted, strict=True))
            generation = time.perf_counter() - start
            held = sum(v.nbytes for v in data.values()) / 1e9
            print(
                f"  n={n:.0e} {', '.join(data)} ({held:.1f} GB) generated and persisted in "
                f"{generation:.1f} s",
                flush=True,
            )
        if numpy_data is not None:
            interleaved(
                client, data, numpy_data, n, args.count_only, args.only, args.repeat, results
            )
        else:
            for name, _, call in selected(steps(data, args.count_only), args.only):
                seconds, cpu, value = best_of(call, args.repeat, lambda: _cpu_seconds(client))
                results.append(
                    dict(
                        n=n,
                        where="dask",
                        step=name,
                        seconds=seconds,
                        cpu=cpu,
                        value=summarise(value),
                    )
                )
                print(f"  n={n:.0e} {name}: {seconds:.2f} s, CPU {cpu:.2f} s", flush=True)
        peaks = client.run(_peak_rss_mb)
    return [peaks[w] for w in sorted(peaks)], _peak_rss_mb(), generation


def memory_data(n, chunk, columns):
    """The ``columns`` of :func:`lazy_data` as numpy arrays in this process."""
    with dask.config.set(scheduler="synchronous"):
        data = {k: v for k, v in lazy_data(n, chunk).items() if k in columns}
        return dict(zip(data, dask.compute(*data.values()), strict=True))


def run_memory(n, args, results):
    data = memory_data(n, int(args.chunk), columns_read(args.count_only, args.only))
    for name, _, call in selected(steps(data, args.count_only), args.only):
        seconds, cpu, value = best_of(call, args.repeat, time.process_time)
        results.append(
            dict(n=n, where="numpy", step=name, seconds=seconds, cpu=cpu, value=summarise(value))
        )
        print(f"  numpy n={n:.0e} {name}: {seconds:.2f} s, CPU {cpu:.2f} s", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", nargs="+", type=float, default=[1e7, 1e8])
    parser.add_argument("--chunk", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-numpy", action="store_true")
    parser.add_argument("--count-only", action="store_true", help="the count-table metrics only")
    parser.add_argument(
        "--regenerate",
        action="store_true",
        help="generate the data inside every timed pass (for sizes that do not fit in memory)",
    )
    parser.add_argument(
        "--interleaved",
        action="store_true",
        help="alternate dask and numpy passes at the first size; medians and CPU seconds",
    )
    parser.add_argument("--only", nargs="+", default=(), help="steps whose name starts so")
    parser.add_argument(
        "--reductions", action="store_true", help="time ExponentiatedGradient.fit too"
    )
    parser.add_argument(
        "--worker-memory",
        default=None,
        help="memory limit per worker (e.g. 9GB), with spilling to disk turned off",
    )
    args = parser.parse_args()
    WITH_REDUCTIONS[0] = args.reductions
    chunk = int(args.chunk)
    sizes = [int(n) for n in args.rows]
    columns = columns_read(args.count_only, args.only)
    results, peaks = [], {}
    for n in sizes:
        print(f"dask, n = {n:.0e}", flush=True)
        first = args.interleaved and n == sizes[0]
        numpy_data = memory_data(n, chunk, columns) if first else None
        peaks[n] = run_cluster(n, args, results, numpy_data)
        print(f"  peak RSS per worker {peaks[n][0]}, client {peaks[n][1]:.0f} MB", flush=True)
    if not args.no_numpy and not args.interleaved:
        run_memory(sizes[0], args, results)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nMachine: {os.cpu_count()} cores, load average {load}, chunk = {chunk:,} rows")
    print(f"Data {'regenerated in every pass' if args.regenerate else 'persisted on the workers'}")
    numpy = {r["step"]: r for r in results if r["where"] == "numpy"}
    if args.interleaved:
        print(f"interleaved, medians of {args.repeat} passes each\n")
        print(
            "| rows | step | dask, 2 workers (s) | numpy (s) | ratio per core | dask CPU (s), "
            "client + workers | numpy CPU (s) | CPU ratio |"
        )
        print("|---:|---|---:|---:|---:|---:|---:|---:|")
        for r in results:
            m = numpy.get(r["step"]) if r["where"] == "dask" else None
            if m is None:
                continue
            assert np.allclose(r["value"], m["value"], rtol=0, atol=1e-9), (r, m)
            print(
                f"| {r['n']:.0e} | {r['step']} | {r['seconds']:.2f} | {m['seconds']:.2f} "
                f"| {m['seconds'] / r['seconds'] / N_WORKERS:.2f} | {r['cpu']:.2f} "
                f"| {m['cpu']:.2f} | {m['cpu'] / r['cpu']:.2f} |"
            )
        return
    print(
        f"best of {args.repeat} passes; ratio: dask rows/s per core / numpy's at {sizes[0]:.0e}\n"
    )
    print(
        "| rows | step | dask, 2 workers (s) | rows/s/core | numpy (s) | rows/s/core | ratio "
        "| dask CPU (s), client + workers | numpy CPU (s) | CPU ratio per row |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        if r["where"] != "dask":
            continue
        per_core = r["n"] / r["seconds"] / N_WORKERS
        m = numpy.get(r["step"])
        if m is None:
            print(
                f"| {r['n']:.0e} | {r['step']} | {r['seconds']:.2f} | {per_core:,.0f} | | | "
                f"| {r['cpu']:.2f} | | |"
            )
            continue
        numpy_rate = m["n"] / m["seconds"]
        if r["n"] == m["n"]:
            assert np.allclose(r["value"], m["value"], rtol=0, atol=1e-9), (r, m)
        cpu_ratio = (m["cpu"] / m["n"]) / (r["cpu"] / r["n"])
        print(
            f"| {r['n']:.0e} | {r['step']} | {r['seconds']:.2f} | {per_core:,.0f} "
            f"| {m['seconds']:.2f} | {numpy_rate:,.0f} | {per_core / numpy_rate:.2f} "
            f"| {r['cpu']:.2f} | {m['cpu']:.2f} | {cpu_ratio:.2f} |"
        )
    print(
        "\n| rows | data generated and persisted (s) | peak RSS per worker (MB) "
        "| peak RSS of the client (MB) |\n|---:|---:|---|---:|"
    )
    for n in sizes:
        workers, client, generation = peaks[n]
        generated = "in every pass" if generation is None else f"{generation:.1f}"
        print(
            f"| {n:.0e} | {generated} | {', '.join(f'{p:.0f}' for p in workers)} | {client:.0f} |"
        )


if __name__ == "__main__":
    main()
