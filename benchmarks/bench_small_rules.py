"""Decision rules at the sizes most users have: fixed per-call overhead.

Run from the repository root with fairlearn installed::

    PYTHONPATH=. nice -n 5 python benchmarks/bench_small_rules.py

1. ``GroupThresholdClassifier.fit`` (a frozen model whose score is a column of X, best of 5
   fits; 2 at 10^6) against fairlearn's ``ThresholdOptimizer`` (``prefit=True``, one fit) on
   the synthetic scores of ``bench_thresholds.synthetic`` with 6 groups (3 x 2), 10^3 to
   10^6 rows (``--sizes``), demographic parity and equalized odds, in interleaved rounds (7
   below 10^5 rows, 3 below 10^6, 1 at 10^6): the ratio of the best times and the median of
   the rounds' ratios.
2. (unless ``--no-front``) ``threshold_pareto_front`` of 21 tolerances for the multi-class
   rule (equalized odds, 1,500 rows, 3 groups, 3 classes) against 3 single fits.
3. With ``--profile``, the 20 fits of the 6,000-row case under ``cProfile``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pathlib
import pstats
import sys
import time

import numpy as np
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import bench_thresholds  # noqa: E402

from skfair.postprocessing import (  # noqa: E402
    MulticlassGroupThresholdClassifier,
    threshold_pareto_front,
)


def thresholds_against_fairlearn(sizes):
    """Interleaved rounds: each round times skfair (best of its fits) then fairlearn (one
    fit) on the same data; the ratio of the bests and the median of
    the rounds' ratios are printed."""
    for n in sizes:
        X, y, codes = bench_thresholds.synthetic(n, (3, 2), 0)
        rounds = 7 if n < 10**5 else 3 if n < 10**6 else 1
        for constraint in ["demographic_parity", "equalized_odds"]:
            ours, theirs = [], []
            for _ in range(rounds):
                ours.append(
                    bench_thresholds.run_skfair(X, y, codes, constraint, 5 if n < 10**6 else 2)[0]
                )
                theirs.append(bench_thresholds.run_fairlearn(X, y, codes, constraint)[0])
            ratios = np.array(theirs) / np.array(ours)
            print(
                f"| {n:,} | {constraint} | {min(ours) * 1e3:.1f} | {min(theirs) * 1e3:.1f} "
                f"| {min(theirs) / min(ours):.1f}x | {np.median(ratios):.1f}x |",
                flush=True,
            )


def multiclass_front():
    rng = np.random.default_rng(0)
    n = 1500
    groups = rng.integers(0, 3, n)
    X = np.c_[rng.normal(size=n) + 0.5 * groups, rng.normal(size=n)]
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=n), [-0.3, 0.8])
    model = FrozenEstimator(LogisticRegression().fit(X, y))
    start = time.perf_counter()
    for tolerance in [0.0, 0.05, 0.1]:
        clf = MulticlassGroupThresholdClassifier(
            model, constraint="equalized_odds", tolerance=tolerance, random_state=0
        ).fit(X, y, sensitive_features=groups)
    single = time.perf_counter() - start
    start = time.perf_counter()
    threshold_pareto_front(
        clf, X, y, sensitive_features=groups, tolerances=np.linspace(0, 0.2, 21)
    )
    front = time.perf_counter() - start
    print(
        f"multi-class EO, 1,500 rows: 3 single fits {single:.2f} s, front of 21 {front:.2f} s, "
        f"ratio {front / single:.2f}"
    )


def profile_small():
    X, y, codes = bench_thresholds.synthetic(6000, (3, 2), 0)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(20):
        bench_thresholds.run_skfair(X, y, codes, "equalized_odds", 1)
    profile.disable()
    pstats.Stats(profile).sort_stats("cumulative").print_stats(25)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[1000, 6000, 100000, 1000000], help="rows"
    )
    parser.add_argument("--no-front", action="store_true", help="skip the multi-class front")
    args = parser.parse_args()
    print("load average at the start: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    print(
        "| rows | constraint | skfair (ms) | fairlearn (ms) | ratio of bests "
        "| median ratio of rounds |"
    )
    print("|---:|---|---:|---:|---:|---:|")
    thresholds_against_fairlearn(args.sizes)
    if not args.no_front:
        multiclass_front()
    print("load average at the end: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    if args.profile:
        profile_small()


if __name__ == "__main__":
    main()
