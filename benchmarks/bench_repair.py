"""MADDRepair(lam="auto") with many groups: cost growth in the number of groups.

The lambda search scores 1000 values of lam by the worst pairwise MADD of the in-sample repaired
scores. Its cost is O(G^2) pairs of histograms at least; the implementation before the fix
recomputed every group's histograms for every pair, O(G^3). maddlib (the paper's library)
handles two groups only, so the comparison is with skfair's previous implementation, taken
from git (``--baseline``, default the commit before the fix) and run in a subprocess on the
same arrays in the same run.

Data: n = 2 * 10^4 rows, G groups of equal expected size, scores Beta(2, 3) shifted by group,
labels Bernoulli(score); ``lam="auto"``, theta = 0.5, 1000 lambdas, bins="auto".

Usage: ``nice -n 10 python benchmarks/bench_repair.py [--groups 10 50 200]
[--baseline-groups 10 50] [--baseline REV] [--timeout 300]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The last commit with the O(G^3) lambda search.
DEFAULT_BASELINE = "b68c6d7"

TIMING = r"""
import json, sys, time, warnings
import numpy as np
from skfair.postprocessing import MADDRepair

n, n_groups = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(n_groups)
groups = rng.integers(0, n_groups, n)
scores = np.clip(rng.beta(2, 3, n) + 0.2 * groups / n_groups, 0, 1)
labels = (rng.random(n) < scores).astype(int)
repair = MADDRepair(lam="auto", theta=0.5, random_state=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    repair.fit(scores[:, None], labels, sensitive_features=groups)
    seconds = time.perf_counter() - start
print(json.dumps({
    "seconds": seconds,
    "lambda": float(repair.lambda_[0]),
    "objective_min": float(repair.objective_min_[0]),
    "distinct_bins": int(np.unique(repair.bins_).size),
}))
"""


def run(source, n, n_groups, timeout):
    """Time one fit in a fresh process with ``source`` on the path; None on timeout."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", TIMING, str(n), str(n_groups)],
            env=env,
            cwd=source,  # "python -c" puts the working directory first on sys.path
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def checkout(revision, directory):
    """The ``skfair`` package of ``revision``, extracted into ``directory``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "skfair"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(directory, filter="data")
    return directory


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--groups", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--baseline-groups", type=int, nargs="*", default=[10, 50])
    parser.add_argument("--baseline", default=DEFAULT_BASELINE)
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores")
    print("| groups | previous (O(G^3)) | now | ratio | lambda_ (both) | distinct bins |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as directory:
        baseline = checkout(args.baseline, directory) if args.baseline_groups else None
        for n_groups in args.groups:
            now = run(ROOT, args.n, n_groups, args.timeout)
            before = None
            if baseline is not None and n_groups in args.baseline_groups:
                started = time.perf_counter()
                before = run(baseline, args.n, n_groups, args.timeout)
                if before is None:
                    before = {"timeout": time.perf_counter() - started}
            if before is None:
                previous, ratio, lam = "not run", "", f"{now['lambda']:.3f}"
            elif "timeout" in before:
                previous = f"> {before['timeout']:.0f} s (killed)"
                ratio = f"> x{before['timeout'] / now['seconds']:.0f}"
                lam = f"{now['lambda']:.3f}"
            else:
                previous = f"{before['seconds']:.2f} s"
                ratio = f"**x{before['seconds'] / now['seconds']:.0f}**"
                lam = f"{now['lambda']:.3f} / {before['lambda']:.3f}"
            print(
                f"| {n_groups} | {previous} | {now['seconds']:.2f} s | {ratio} | {lam} | "
                f"{now['distinct_bins']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
