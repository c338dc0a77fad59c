"""Data generators shared by several test modules, the hypothesis profiles, and one BLAS
thread per test process."""

import os

# The test command runs one process per core (pytest-xdist). Each would otherwise start one
# BLAS/OpenMP thread per core too, and on a 2-core machine the small matrix products of the
# tests then wait on each other (a scikit-learn check ran 7x slower). The variables reach the
# libraries loaded later and the subprocesses (the audit CLI); threadpoolctl limits those
# already loaded. Results do not depend on the number of threads.
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# The test command gives the same result on every run: hypothesis draws its examples from a
# fixed seed ("repeatable"). HYPOTHESIS_PROFILE=explore draws new examples on each run, to
# look for failures the fixed draws miss.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def pytest_configure(config):
    """Figures, in the tests and in the docstring examples of the Displays, are drawn on
    matplotlib's non-interactive Agg backend (as scikit-learn's tests do)."""
    import matplotlib

    matplotlib.use("Agg")


def _write_loans_csv(path, *, n=600, seed=0, income_gap=5.0):
    """A small loan-like csv for the audit's own-data mode, written to ``path``.

    A numeric feature (``income``, higher for men by ``income_gap``), a categorical one
    (``region``), the sensitive ``sex`` and a yes/no target ``approved`` that depends on
    income, so that a model fitted on the file shows a selection-rate gap between the sexes.
    Returns the DataFrame written.
    """
    import pandas as pd

    rng = np.random.default_rng(seed)
    sex = rng.choice(["female", "male"], size=n, p=[0.4, 0.6])
    region = rng.choice(["north", "south", "east"], size=n)
    income = rng.normal(50, 10, size=n) + income_gap * (sex == "male")
    approved = np.where(income + rng.normal(0, 5, size=n) > 52, "yes", "no")
    frame = pd.DataFrame({"income": income, "region": region, "sex": sex, "approved": approved})
    frame.to_csv(path, index=False)
    return frame


@pytest.fixture(scope="session")
def loans_csv():
    """``loans_csv(path, n=600, seed=0, income_gap=5.0)`` writes the loan-like csv."""
    return _write_loans_csv
