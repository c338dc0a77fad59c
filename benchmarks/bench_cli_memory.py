"""Peak memory of ``skfair audit`` on a csv file of 10^6 rows, against the file's size.

The file (written once to a temporary folder, deterministic) has the columns of a small
tabular data set: ``age`` (integer), ``hours`` (one decimal), ``sex`` (2 values), ``race``
(4 values) and the 0/1 target ``y``. Each step runs in a fresh Python process; its peak
resident memory (``ru_maxrss`` of that process, what ``/usr/bin/time -v`` reports as
"Maximum resident set size") is reported in MB and as a multiple of the file's size:

1. ``imports``: the audit's modules imported, no data (the interpreter, numpy, scipy,
   scikit-learn, and pandas, which scikit-learn imports when it is installed);
2. ``read``: the csv file read into columns (as the audit reads it);
3. ``audit``: ``python -m skfair audit --data FILE --target y --sensitive sex race`` (every
   section; a logistic regression trained on 70 % of the rows, or on a sample of them of
   ``--max-train-rows`` rows where the audit has that option);
4. the same audit without the stability section (which refits the model on 10 bootstrap
   samples of the training rows).

``--audit-option`` passes further options to both audits (e.g. ``--audit-option
--max-train-rows=100000``, to compare caps).

The net columns subtract the ``imports`` step: the memory the data cost.

Run (from the repository root)::

    PYTHONPATH=. nice -n 10 python benchmarks/bench_cli_memory.py
    PYTHONPATH=<checkout of another commit> nice -n 10 python benchmarks/bench_cli_memory.py
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# Each step runs in a fresh interpreter and prints its own peak (ru_maxrss of the process,
# in KB on Linux) on its last line of stderr.
PEAK = """
import resource, sys
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""
IMPORTS = (
    "import sys, skfair.__main__, skfair._audit, skfair._audit._context\n"
    "print('skfair from', skfair.__file__, file=sys.stderr)" + PEAK
)
READ = (
    """
import sys
try:
    from skfair.datasets._csv import read_csv_file
except ImportError:  # before skfair.datasets._csv: the parser of the bundled data
    from skfair.datasets._base import parse_csv

    def read_csv_file(path):
        with open(path, encoding="utf-8-sig", newline="") as text:
            return parse_csv(text, source=path)
try:  # text columns as categories, as the audit reads them
    read_csv_file(sys.argv[1], categories=True)
except TypeError:  # before categories
    read_csv_file(sys.argv[1])
"""
    + PEAK
)
AUDIT = (
    """
import sys
from skfair.__main__ import main
options = sys.argv[2:]
if "--all-sections-but" in options:
    # The sections of the skfair measured (they differ between commits).
    from skfair._audit._sections import SECTIONS
    at = options.index("--all-sections-but")
    left_out = options[at + 1 :]
    options = options[:at] + ["--sections", *[name for name in SECTIONS if name not in left_out]]
status = main(["audit", "--data", sys.argv[1], "--target", "y", "--sensitive", "sex", "race"]
              + options)
assert status == 0
"""
    + PEAK
)


def write_csv(path, n_rows, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n_rows)
    hours = np.round(rng.gamma(4, 10, n_rows), 1)
    sex = rng.choice(np.array(["F", "M"]), n_rows)
    race = rng.choice(
        np.array(["white", "black", "asian", "other"]), n_rows, p=[0.6, 0.2, 0.1, 0.1]
    )
    logit = 0.03 * (age - 50) + 0.02 * (hours - 40) + 0.4 * (sex == "M") - 0.3 * (race == "black")
    y = (rng.random(n_rows) < 1 / (1 + np.exp(-logit))).astype(int)
    with open(path, "w") as stream:
        stream.write("age,hours,sex,race,y\n")
        for low in range(0, n_rows, 100_000):
            part = slice(low, low + 100_000)
            stream.write(
                "".join(
                    f"{a},{h},{s},{r},{t}\n"
                    for a, h, s, r, t in zip(
                        age[part], hours[part], sex[part], race[part], y[part], strict=True
                    )
                )
            )


def peak_of(code, *arguments, folder):
    """Peak resident memory (MB) and wall time (s) of a fresh interpreter running ``code``.

    It runs in ``folder`` (``python -c`` puts the working directory first on the path), with
    the entries of PYTHONPATH made absolute, so that the skfair measured is PYTHONPATH's.
    """
    path = os.environ.get("PYTHONPATH", "")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(map(os.path.abspath, path.split(os.pathsep))))
    start = time.perf_counter()
    process = subprocess.run(
        [sys.executable, "-c", code, *arguments],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        cwd=folder,
        env=env if path else None,
    )
    elapsed = time.perf_counter() - start
    if process.returncode != 0:
        raise RuntimeError(f"the step failed:\n{process.stderr}")
    *messages, peak = process.stderr.splitlines()
    for message in messages:
        if message.startswith("skfair from"):
            print(message)
    return int(peak) / 1024, elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--audit-option", action="append", default=[], metavar="OPTION")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.csv"
        write_csv(path, args.rows)
        size = path.stat().st_size / 2**20
        steps = {
            "imports": (IMPORTS,),
            "read": (READ, str(path)),
            "audit": (AUDIT, str(path), *args.audit_option),
            # stability refits the model on bootstrap samples
            "audit, all sections but stability": (
                AUDIT,
                str(path),
                *args.audit_option,
                "--all-sections-but",
                "stability",
            ),
        }
        results = {name: peak_of(*step, folder=folder) for name, step in steps.items()}

    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"{args.rows:,} rows, file {size:.1f} MB; load average {load}")
    print("| step | peak (MB) | x file | net of imports (MB) | net x file | time (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    baseline = results["imports"][0]
    for name, (peak, elapsed) in results.items():
        net = peak - baseline
        print(
            f"| {name} | {peak:.0f} | {peak / size:.1f} | {net:.0f} | {net / size:.1f} "
            f"| {elapsed:.1f} |"
        )


if __name__ == "__main__":
    main()
