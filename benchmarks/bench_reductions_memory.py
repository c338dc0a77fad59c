"""Peak memory of an in-memory ExponentiatedGradient fit on many rows.

    PYTHONPATH=. python benchmarks/bench_reductions_memory.py --rows 1000000

Synthetic data: 3 groups, 5 features (40 MB), a logistic regression, equalized odds at
eps 0.02. Prints the fits, the members, the fit time, the mixture's training error and gap,
and the process's peak resident memory (``ru_maxrss``), imports included.
"""

import argparse
import resource
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

from skfair.reductions import ExponentiatedGradient


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    n = parser.parse_args().rows
    rng = np.random.default_rng(0)
    group = rng.integers(0, 3, n)
    X = np.c_[rng.normal(size=n) + group, rng.normal(size=(n, 4))]
    y = (X[:, 0] + X[:, 1] + rng.normal(size=n) > 1).astype(int)
    model = ExponentiatedGradient(
        LogisticRegression(), constraint="equalized_odds", eps=0.02, random_state=0
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y, sensitive_features=group)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{n} rows: {model.n_fits_} fits, {len(model.predictors_)} members, {elapsed:.1f} s, "
        f"error {model.mixture_objective_:.5f}, gap {model.mixture_gap_:.5f}, "
        f"peak {peak:.0f} MB"
    )


if __name__ == "__main__":
    main()
