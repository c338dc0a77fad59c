"""Reductions: skfair's ExponentiatedGradient / GridSearch against fairlearn's.

Run from the repository root with the benchmark environment (fairlearn installed)::

    PYTHONPATH=. nice /work/benchvenv/bin/python benchmarks/bench_reductions.py --write
    PYTHONPATH=. nice /work/benchvenv/bin/python benchmarks/bench_reductions.py --dataset german

``--dataset`` (default ``adult``): Adult's train split fits, its test split evaluates; German
credit and Bank marketing have no split, so a stratified (on the label) train/test split of
70 % / 30 % with ``random_state=0`` is made (Bank without ``duration``, known only after the
call). The sensitive attributes by default: Adult sex and race, German age_group and sex,
Bank age_group and marital. For every sensitive attribute,
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
``## reductions`` section of ``benchmarks/RESULTS.md`` with ``--write`` (appended at the end
of the section, as a subsection named after the data set).

skfair's side is checked as it runs: the training gap of its mixture (ExponentiatedGradient) or
of its chosen model (GridSearch), computed here from the members' decisions, must be at most
``eps`` unless skfair warned that the bound was not met; a row that breaks this is marked
``CHECK``. skfair's warnings are printed (fairlearn's are silenced).
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
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder, StandardScaler  # noqa: E402

from skfair.datasets import load_adult, load_bank_marketing, load_german_credit  # noqa: E402
from skfair.reductions import ExponentiatedGradient, GridSearch  # noqa: E402

RESULTS = ROOT / "benchmarks" / "RESULTS.md"
CONSTRAINTS = ("demographic_parity", "equalized_odds")
DATASETS = {
    "adult": ("Adult", ["sex", "race"]),
    "german": ("German credit", ["age_group", "sex"]),
    "bank": ("Bank marketing", ["age_group", "marital"]),
}
TEST_SIZE = 0.3
SPLIT_RANDOM_STATE = 0
# The UCI description: the last call's duration is known only after the call.
BANK_DROPPED = ["duration"]


def load_split(dataset):
    """(train, test) Bunches with ``data``, ``target``, ``sensitive_features``, and the
    categorical columns; a stratified split where the data set has none."""
    from sklearn.utils import Bunch

    if dataset == "adult":
        train = load_adult(as_frame=True, split="train")
        test = load_adult(as_frame=True, split="test")
        return train, test, list(train.categorical_features)
    if dataset == "german":
        bunch = load_german_credit(as_frame=True)
        data = bunch.data
    else:
        bunch = load_bank_marketing(as_frame=True)
        data = bunch.data.drop(columns=BANK_DROPPED)
    parts = train_test_split(
        data,
        bunch.target,
        bunch.sensitive_features,
        test_size=TEST_SIZE,
        stratify=bunch.target,
        random_state=SPLIT_RANDOM_STATE,
    )
    train, test = (
        Bunch(data=parts[i], target=parts[i + 2], sensitive_features=parts[i + 4]) for i in (0, 1)
    )
    categorical = [c for c in bunch.categorical_features if c in data.columns]
    return train, test, categorical


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
    """The fitted model, its fit time and the distinct messages of skfair's warnings."""
    if method == "ExponentiatedGradient":
        model = ExponentiatedGradient(learner, constraint=constraint, eps=eps, random_state=0)
    else:
        model = GridSearch(learner, constraint=constraint, eps=eps, n_jobs=n_jobs)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y, sensitive_features=s)
    elapsed = time.perf_counter() - start
    messages = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    return model, elapsed, messages


def training_decision(method, model, X):
    """skfair's (expected) decisions on its own training rows: the mixture's, or the chosen
    model's."""
    if method == "ExponentiatedGradient":
        return expected_decision(model.predictors_, model.weights_, X)
    return (model.predict(X) == 1).astype(float)


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
    parser.add_argument("--dataset", choices=list(DATASETS), default="adult")
    parser.add_argument("--attributes", nargs="+", help="default: the data set's two")
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

    train, test, categorical = load_split(args.dataset)
    args.attributes = args.attributes or DATASETS[args.dataset][1]
    numeric = [c for c in train.data.columns if c not in categorical]
    y_train, y_test = np.asarray(train.target), np.asarray(test.target)
    rows = []
    load = os.getloadavg()
    for attribute in args.attributes:
        s_train = train.sensitive_features[attribute]
        codes = np.unique(np.asarray(test.sensitive_features[attribute]), return_inverse=True)[1]
        train_codes = np.unique(np.asarray(s_train), return_inverse=True)[1]
        for learner_name in args.learners:
            make = LEARNERS[learner_name]
            for method in args.methods:
                for constraint in args.constraints:
                    for eps, our_eps in zip(args.eps, args.skfair_eps or args.eps, strict=True):
                        ours, ours_time, messages = run_skfair(
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
                        train_gap = gap(
                            training_decision(method, ours, train.data),
                            y_train,
                            train_codes,
                            constraint,
                        )
                        bound_met = train_gap <= our_eps + 1e-6
                        warned = any("No fit found meets the bound" in m for m in messages)
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
                            "train_gap": train_gap,
                            "check": "" if bound_met or warned else " CHECK",
                            "warnings": messages,
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
                        for message in messages:
                            print(f"    skfair warned: {message}", flush=True)
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
        f"| {row['deterministic'][0]:.4f} / {row['deterministic'][1]:.4f} "
        f"| {row['train_gap']:.4f}{row['check']} |"
    )


HEADER = (
    "| attribute | learner | method | constraint | eps | skfair (s) | fairlearn (s) | ratio "
    "| ratio n_jobs=2 | fits skfair | fits fairlearn | test acc skfair | test acc fairlearn "
    "| test gap skfair | test gap fairlearn | skfair predict acc / gap | train gap skfair |\n"
    "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
)


def targets(rows):
    """(speed, accuracy, gap): how many rows meet each target."""
    return (
        sum(r["fairlearn_time"] / r["skfair_time"] >= 5 for r in rows),
        sum(r["skfair"][0] >= r["fairlearn"][0] - 0.005 for r in rows),
        sum(r["skfair"][1] <= r["fairlearn"][1] + 0.005 for r in rows),
    )


def render(rows, args, load_before, load_after):
    import fairlearn

    command = "PYTHONPATH=. nice /work/benchvenv/bin/python benchmarks/bench_reductions.py " + (
        " ".join(sys.argv[1:])
    )
    title = DATASETS[args.dataset][0]
    if args.dataset == "adult":
        split = "Adult train split fitted, test split evaluated."
    else:
        dropped = f", without {', '.join(BANK_DROPPED)}" if args.dataset == "bank" else ""
        split = (
            f"{title}{dropped}: a train/test split stratified on the label, "
            f"test_size={TEST_SIZE}, random_state={SPLIT_RANDOM_STATE} (the data set has none)."
        )
    lines = [
        f"### {title}",
        "",
        f"Command: `{command}` (from the repository root). Machine: {platform.machine()}, "
        f"{os.cpu_count()} cores, shared with other jobs: load average "
        f"{load_before[0]:.1f} at the start, {load_after[0]:.1f} at the end (absolute times are "
        "noisy; each ratio comes from one run of both libraries, one after the other). "
        f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn "
        f"{sklearn.__version__}, fairlearn {fairlearn.__version__}; one thread per fit "
        "(`OMP_NUM_THREADS=1`).",
        "",
        f"{split} skfair `eps` bounds the largest gap "
        "between two groups; fairlearn gets `difference_bound=eps` (each group against the "
        "population) and `ExponentiatedGradient(eps=eps)`, `GridSearch` at its defaults "
        "(10 points; skfair 11). Accuracy and gap: expected values of the randomised mixture "
        "from the members' decisions (ExponentiatedGradient), the chosen model's `predict` "
        "(GridSearch), computed by the benchmark. Fits: calls of the base learner (constant "
        "answers excluded). Last columns: skfair's deterministic `predict`, and the training "
        "gap of skfair's mixture or chosen model (CHECK: above eps without a warning).",
        "",
        HEADER,
        *[format_row(row) for row in rows],
        "",
    ]
    groups = {}
    for row in rows:
        groups.setdefault((row["method"], row["learner"]), []).append(row)
    for (method, learner), part in [(("all rows", ""), rows), *groups.items()]:
        speed, accuracy, gap_met = targets(part)
        lines.append(
            f"- {method} {learner}".rstrip() + f": fit time >= 5x in {speed} of {len(part)}; "
            f"test accuracy >= fairlearn's - 0.005 in {accuracy}; test gap <= fairlearn's + "
            f"0.005 in {gap_met}."
        )
    warned = [(row, m) for row in rows for m in row["warnings"]]
    if warned:
        lines += ["", "skfair's warnings:", ""]
        lines += [
            f"- {row['attribute']} {row['learner']} {row['method']} {row['constraint']} "
            f"{row['eps']}: {message}"
            for row, message in warned
        ]
    lines.append("")
    return "\n".join(lines)


def write_section(report):
    """Append the report at the end of the ``## reductions`` section."""
    text = RESULTS.read_text()
    match = re.search(r"## reductions\n.*?(?=\n## |\Z)", text, re.S)
    if match:
        end = match.end()
        text = text[:end].rstrip("\n") + "\n\n" + report.rstrip("\n") + "\n" + text[end:]
    else:
        text = text.rstrip("\n") + "\n\n## reductions\n\n" + report
    RESULTS.write_text(text.rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
