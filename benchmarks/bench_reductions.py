"""Reductions: skfair's ExponentiatedGradient / GridSearch against fairlearn's, on Adult.

Run from the repository root with the benchmark environment (fairlearn installed)::

    PYTHONPATH=. nice /work/benchvenv/bin/python benchmarks/bench_reductions.py --write

Adult's train split fits, its test split evaluates. For every sensitive attribute (sex, race),
constraint (demographic parity, equalized odds), bound ``eps`` and base learner (a one-hot +
scaled logistic regression pipeline; HistGradientBoostingClassifier on the raw frame), both
libraries fit the same data with the same bound: skfair ``eps=eps`` (the largest gap between
two groups), fairlearn ``DemographicParity(difference_bound=eps)`` / ``EqualizedOdds(...)``
with ``ExponentiatedGradient(eps=eps)`` (its constraint bounds each group against the
population, a looser bound for the same number) and ``GridSearch`` at its defaults.

Reported side by side: fit time (one run each; the ratio is fairlearn / skfair from the same
run), the base learner's fits, and the test accuracy and gap. For ExponentiatedGradient the
accuracy and gap are the *expected* values of each randomised mixture, computed here from the
members' decisions and weights (neither library grades itself); skfair's deterministic
``predict`` is reported too. For GridSearch they are those of the chosen model's ``predict``.
The gap is the largest difference between two groups of the selection rate (DP) or of the
true and false positive rates (EO), as both libraries' metrics define it.

Every fit runs on one thread (``OMP_NUM_THREADS=1``, set below before any import): on a shared
machine, OpenMP threads of HistGradientBoosting oversubscribe the cores and make one fit tens
of times slower. ``--grid-jobs 2`` adds skfair's GridSearch with ``n_jobs=2``.

Options select a subset (the whole grid takes hours on a loaded machine); results go to the
``## reductions`` section of ``benchmarks/RESULTS.md`` with ``--write``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sklearn  # noqa: E402
from sklearn.compose import make_column_transformer  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder, StandardScaler  # noqa: E402

from skfair.datasets import load_adult  # noqa: E402
from skfair.reductions import ExponentiatedGradient, GridSearch  # noqa: E402

RESULTS = ROOT / "benchmarks" / "RESULTS.md"
CONSTRAINTS = ("demographic_parity", "equalized_odds")


def logistic(categorical, numeric, *, routed=False):
    """One-hot + scaled logistic regression; ``routed``: sample_weight requested for
    fairlearn under metadata routing (the last step only)."""
    scaler = StandardScaler()
    model = LogisticRegression(max_iter=1000)
    if routed:
        scaler.set_fit_request(sample_weight=False)
        model.set_fit_request(sample_weight=True)
    return make_pipeline(
        make_column_transformer(
            (OneHotEncoder(handle_unknown="ignore"), categorical), (scaler, numeric)
        ),
        model,
    )


def boosting(categorical, numeric, *, routed=False):
    return HistGradientBoostingClassifier(random_state=0)


LEARNERS = {"logistic": logistic, "boosting": boosting}


def gap(decision, y, codes, constraint):
    """Largest difference between two groups of the (expected) selection rate, or of the
    true and false positive rates."""
    n_groups = codes.max() + 1
    count = np.bincount(codes, minlength=n_groups)
    if constraint == "demographic_parity":
        rate = np.bincount(codes, weights=decision, minlength=n_groups) / count
        return rate.max() - rate.min()
    gaps = []
    for label in (1, 0):
        rows = y == label
        total = np.bincount(codes[rows], minlength=n_groups)
        rate = np.bincount(codes[rows], weights=decision[rows], minlength=n_groups)
        rate = rate[total > 0] / total[total > 0]
        gaps.append(rate.max() - rate.min())
    return max(gaps)


def expected_decision(predictors, weights, X):
    """P(positive decision) of each row under a mixture of classifiers."""
    probability = np.zeros(len(X))
    for weight, predictor in zip(weights, predictors):
        if weight > 0:
            probability += weight * (np.asarray(predictor.predict(X)) == 1)
    return probability


def evaluate(decision, y, codes, constraint):
    accuracy = np.mean(decision * y + (1 - decision) * (1 - y))
    return accuracy, gap(decision, y, codes, constraint)


def run_skfair(method, learner, X, y, s, constraint, eps, n_jobs=1):
    if method == "ExponentiatedGradient":
        model = ExponentiatedGradient(learner, constraint=constraint, eps=eps, random_state=0)
    else:
        model = GridSearch(learner, constraint=constraint, eps=eps, n_jobs=n_jobs)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y, sensitive_features=s)
    return model, time.perf_counter() - start


def run_fairlearn(method, learner, X, y, s, constraint, eps):
    from fairlearn import reductions

    moment = {
        "demographic_parity": reductions.DemographicParity,
        "equalized_odds": reductions.EqualizedOdds,
    }[constraint](difference_bound=eps)
    if method == "ExponentiatedGradient":
        model = reductions.ExponentiatedGradient(learner, moment, eps=eps)
    else:
        model = reductions.GridSearch(learner, moment)
    start = time.perf_counter()
    with warnings.catch_warnings(), sklearn.config_context(enable_metadata_routing=True):
        warnings.simplefilter("ignore")
        model.fit(X, y, sensitive_features=s)
    return model, time.perf_counter() - start


def fairlearn_fits(method, model):
    from sklearn.dummy import DummyClassifier

    if method == "ExponentiatedGradient":
        return model.n_oracle_calls_ - model.n_oracle_calls_dummy_returned_
    return sum(not isinstance(p, DummyClassifier) for p in model.predictors_)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attributes", nargs="+", default=["sex", "race"])
    parser.add_argument("--constraints", nargs="+", default=list(CONSTRAINTS))
    parser.add_argument("--eps", nargs="+", type=float, default=[0.01, 0.02, 0.05])
    parser.add_argument("--learners", nargs="+", default=list(LEARNERS))
    parser.add_argument("--methods", nargs="+", default=["ExponentiatedGradient", "GridSearch"])
    parser.add_argument("--grid-jobs", type=int, default=0, help="also GridSearch n_jobs=N")
    parser.add_argument(
        "--skfair-eps",
        nargs="+",
        type=float,
        help="skfair's bound for each --eps (default the same): compares the libraries at "
        "bounds that give the same training gap",
    )
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()

    train, test = load_adult(as_frame=True, split="train"), load_adult(as_frame=True, split="test")
    categorical = list(train.categorical_features)
    numeric = [c for c in train.data.columns if c not in categorical]
    y_train, y_test = np.asarray(train.target), np.asarray(test.target)
    rows = []
    load = os.getloadavg()
    for attribute in args.attributes:
        s_train = train.sensitive_features[attribute]
        codes = np.unique(np.asarray(test.sensitive_features[attribute]), return_inverse=True)[1]
        for learner_name in args.learners:
            make = LEARNERS[learner_name]
            for method in args.methods:
                for constraint in args.constraints:
                    for eps, our_eps in zip(args.eps, args.skfair_eps or args.eps, strict=True):
                        ours, ours_time = run_skfair(
                            method,
                            make(categorical, numeric),
                            train.data,
                            y_train,
                            s_train,
                            constraint,
                            our_eps,
                        )
                        with sklearn.config_context(enable_metadata_routing=True):
                            theirs_learner = make(categorical, numeric, routed=True)
                        theirs, theirs_time = run_fairlearn(
                            method,
                            theirs_learner,
                            train.data,
                            y_train,
                            s_train,
                            constraint,
                            eps,
                        )
                        if method == "ExponentiatedGradient":
                            ours_decision = expected_decision(
                                ours.predictors_, ours.weights_, test.data
                            )
                            theirs_decision = theirs._pmf_predict(test.data)[:, 1]
                        else:
                            ours_decision = (ours.predict(test.data) == 1).astype(float)
                            theirs_decision = (theirs.predict(test.data) == 1).astype(float)
                        deterministic = (ours.predict(test.data) == 1).astype(float)
                        row = {
                            "attribute": attribute,
                            "learner": learner_name,
                            "method": method,
                            "constraint": constraint,
                            "eps": eps if our_eps == eps else f"{eps:g} / {our_eps:g}",
                            "skfair_time": ours_time,
                            "fairlearn_time": theirs_time,
                            "skfair_fits": ours.n_fits_,
                            "fairlearn_fits": fairlearn_fits(method, theirs),
                            "skfair": evaluate(ours_decision, y_test, codes, constraint),
                            "fairlearn": evaluate(theirs_decision, y_test, codes, constraint),
                            "deterministic": evaluate(deterministic, y_test, codes, constraint),
                        }
                        if method == "GridSearch" and args.grid_jobs:
                            row["parallel_time"] = run_skfair(
                                method,
                                make(categorical, numeric),
                                train.data,
                                y_train,
                                s_train,
                                constraint,
                                our_eps,
                                n_jobs=args.grid_jobs,
                            )[1]
                        rows.append(row)
                        print(format_row(row), flush=True)
    report = render(rows, args, load, os.getloadavg())
    print(report)
    if args.write:
        write_section(report)


def format_row(row):
    ratio = row["fairlearn_time"] / row["skfair_time"]
    parallel = (
        f" | {row['fairlearn_time'] / row['parallel_time']:.1f}x"
        if "parallel_time" in row
        else " | "
    )
    return (
        f"| {row['attribute']} | {row['learner']} | {row['method']} | {row['constraint']} "
        f"| {row['eps'] if isinstance(row['eps'], str) else format(row['eps'], 'g')} "
        f"| {row['skfair_time']:.1f} | {row['fairlearn_time']:.1f} "
        f"| {ratio:.1f}x{parallel} | {row['skfair_fits']} | {row['fairlearn_fits']} "
        f"| {row['skfair'][0]:.4f} | {row['fairlearn'][0]:.4f} "
        f"| {row['skfair'][1]:.4f} | {row['fairlearn'][1]:.4f} "
        f"| {row['deterministic'][0]:.4f} / {row['deterministic'][1]:.4f} |"
    )


HEADER = (
    "| attribute | learner | method | constraint | eps | skfair (s) | fairlearn (s) | ratio "
    "| ratio n_jobs=2 | fits skfair | fits fairlearn | test acc skfair | test acc fairlearn "
    "| test gap skfair | test gap fairlearn | skfair predict acc / gap |\n"
    "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
)


def render(rows, args, load_before, load_after):
    import fairlearn

    command = "PYTHONPATH=. nice /work/benchvenv/bin/python benchmarks/bench_reductions.py " + (
        " ".join(sys.argv[1:])
    )
    met_speed = sum(r["fairlearn_time"] / r["skfair_time"] >= 5 for r in rows)
    met_accuracy = sum(r["skfair"][0] >= r["fairlearn"][0] - 0.005 for r in rows)
    met_gap = sum(r["skfair"][1] <= r["fairlearn"][1] + 0.005 for r in rows)
    lines = [
        "## reductions",
        "",
        f"Command: `{command}` (from the repository root). Machine: {platform.machine()}, "
        f"{os.cpu_count()} cores, shared with other jobs: load average "
        f"{load_before[0]:.1f} at the start, {load_after[0]:.1f} at the end (absolute times are "
        "noisy; each ratio comes from one run of both libraries, one after the other). "
        f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn "
        f"{sklearn.__version__}, fairlearn {fairlearn.__version__}; one thread per fit "
        "(`OMP_NUM_THREADS=1`).",
        "",
        "Adult train split fitted, test split evaluated. skfair `eps` bounds the largest gap "
        "between two groups; fairlearn gets `difference_bound=eps` (each group against the "
        "population) and `ExponentiatedGradient(eps=eps)`, `GridSearch` at its defaults "
        "(10 points; skfair 11). Accuracy and gap: expected values of the randomised mixture "
        "from the members' decisions (ExponentiatedGradient), the chosen model's `predict` "
        "(GridSearch), computed by the benchmark. Fits: calls of the base learner (constant "
        "answers excluded). Last column: skfair's deterministic `predict`.",
        "",
        HEADER,
        *[format_row(row) for row in rows],
        "",
        f"Targets: fit time >= 5x in {met_speed} of {len(rows)} rows; test accuracy >= "
        f"fairlearn's - 0.005 in {met_accuracy} of {len(rows)}; test gap <= fairlearn's + "
        f"0.005 in {met_gap} of {len(rows)}.",
        "",
    ]
    return "\n".join(lines)


def write_section(report):
    text = RESULTS.read_text()
    pattern = re.compile(r"## reductions\n.*?(?=\n## |\Z)", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: report.rstrip("\n"), text)
    else:
        text = text.rstrip("\n") + "\n\n" + report
    RESULTS.write_text(text.rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
