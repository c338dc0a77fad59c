"""Reductions: skfair's ExponentiatedGradient / GridSearch against fairlearn's, on the decisions
each library's default ``predict`` makes.

Run from the repository root (fairlearn installed, the ``bench`` extra)::

    PYTHONPATH=. nice python benchmarks/bench_reductions.py --out reductions.jsonl
    PYTHONPATH=. python benchmarks/bench_reductions.py --out reductions.jsonl --render --write

A configuration is a data set and sensitive attribute, a base learner (a one-hot + scaled
logistic regression pipeline, or ``HistGradientBoostingClassifier`` on the raw frame), a method,
a constraint (demographic parity, equalized odds) and a bound ``eps``; each runs with ``--seeds``
(default 0, 1, 2). The seed is the ``random_state`` of the train/test split (German credit and
Bank marketing have none: stratified 70 % / 30 %; Adult keeps its own split), of the boosting
learner, of skfair's randomised decisions (``random_state=``) and of fairlearn's
(``predict(X, random_state=seed)``). A fit that does not depend on the seed (the logistic
pipeline on Adult's fixed split) is run once and its time counted for every seed.

Bounds. skfair's ``eps`` bounds the difference between any two groups; fairlearn's
``difference_bound`` each group against the whole population, a looser bound for the same
number. ``--fairlearn-bound matched`` (the default) gives fairlearn the largest bound that
implies skfair's: for two groups ``eps * max(share of the larger group in each rate's event)``
(the pairwise gap is the gap to the population divided by the other group's share), for more
groups ``eps / 2``; ``same`` gives it ``eps`` itself. fairlearn's ``ExponentiatedGradient`` gets
``eps=`` its bound too, ``GridSearch`` its defaults (10 points).

Measured per run: fit time of each library (one after the other, same process; the ratio is
fairlearn / skfair), fits of the base learner (constant answers excluded), the training and test
accuracy and gap of the decisions of each library's *default* ``predict`` (drawn once with the
seed: what a user gets), and, for ExponentiatedGradient, the expected training accuracy and gap
of each randomised mixture (skfair's ``predict_proba``, fairlearn's ``_pmf_predict``) and the
test accuracy and gap averaged over ``DRAWS`` draws of the decisions from those probabilities
(each row's decision a Bernoulli draw, the law of both libraries' randomised ``predict`` on rows
they have not seen): one draw of a randomised rule carries the chance of the draws, of the
order of ``sqrt(share of mixed rows / cell size)``, several times the gaps compared on the small
groups' cells. The gap is
the largest difference between two groups of the selection rate (DP) or of the TPR and FPR (EO).
Results are appended to ``--out`` (JSON lines; a run already there is skipped, so an
interrupted benchmark resumes); ``--render`` summarises them per configuration (means over
seeds) with the counts against the targets, and ``--write`` puts the summary in the
``## reductions`` section of ``benchmarks/RESULTS.md``.

Every fit runs on one thread (``OMP_NUM_THREADS=1``, set below before any import): on a shared
machine the OpenMP threads of HistGradientBoosting oversubscribe the cores.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
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
from sklearn.utils import Bunch  # noqa: E402

from skfair.datasets import load_adult, load_bank_marketing, load_german_credit  # noqa: E402
from skfair.reductions import ExponentiatedGradient, GridSearch  # noqa: E402

RESULTS = ROOT / "benchmarks" / "RESULTS.md"
CONSTRAINTS = ("demographic_parity", "equalized_odds")
METHODS = ("ExponentiatedGradient", "GridSearch")
# data set -> its title and the sensitive attributes run by default ("a+b": intersections)
DATASETS = {
    "adult": ("Adult", ["sex", "race"]),
    "german": ("German credit", ["sex", "age_group", "sex+age_group"]),
    "bank": ("Bank marketing", ["age_group", "marital"]),
}
TEST_SIZE = 0.3
# The UCI description: the last call's duration is known only after the call.
BANK_DROPPED = ["duration"]
SPEED_TARGET = {"ExponentiatedGradient": 5.0, "GridSearch": 3.0}
ACCURACY_SLACK, GAP_SLACK, BOUND_SLACK, MATCHED_SLACK = 0.005, 0.005, 0.01, 0.002
# Draws of the randomised decisions whose test accuracy and gap are averaged.
DRAWS = 100


def load_split(dataset, seed):
    """(train, test, categorical columns); a stratified split where the data set has none."""
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
        random_state=seed,
    )
    train, test = (
        Bunch(data=parts[i], target=parts[i + 2], sensitive_features=parts[i + 4]) for i in (0, 1)
    )
    return train, test, [c for c in bunch.categorical_features if c in data.columns]


def sensitive(bunch, attribute):
    """The attribute's values; ``a+b`` joins two attributes (their intersections)."""
    names = attribute.split("+")
    columns = [np.asarray(bunch.sensitive_features[name]).astype(str) for name in names]
    return columns[0] if len(columns) == 1 else np.array([" & ".join(v) for v in zip(*columns)])


def logistic(categorical, numeric, seed, *, routed=False):
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


def boosting(categorical, numeric, seed, *, routed=False):
    return HistGradientBoostingClassifier(random_state=seed)


LEARNERS = {"logistic": logistic, "boosting": boosting}


def gap(decision, y, codes, constraint):
    """Largest difference between two groups of the (expected) selection rate, or of the
    true and false positive rates."""
    n_groups = codes.max() + 1
    gaps = []
    for event in [None] if constraint == "demographic_parity" else [1, 0]:
        rows = np.ones(len(y), bool) if event is None else y == event
        total = np.bincount(codes[rows], minlength=n_groups)
        rate = np.bincount(codes[rows], weights=decision[rows], minlength=n_groups)
        rate = rate[total > 0] / total[total > 0]
        gaps.append(rate.max() - rate.min())
    return float(max(gaps))


def evaluate(decision, y, codes, constraint):
    """(accuracy, gap) of decisions (1 positive) or of probabilities of a positive one."""
    decision = np.asarray(decision, dtype=float)
    accuracy = np.mean(decision * y + (1 - decision) * (1 - y))
    return [float(accuracy), gap(decision, y, codes, constraint)]


def mean_over_draws(probability, y, codes, constraint, seed):
    """(accuracy, gap) of decisions drawn from the probabilities of a positive decision,
    averaged over ``DRAWS`` draws (one Bernoulli draw per row and draw)."""
    rng = np.random.default_rng(seed)
    results = [
        evaluate(rng.random(len(probability)) < probability, y, codes, constraint)
        for _ in range(DRAWS)
    ]
    return np.mean(results, axis=0).tolist()


def matched_bound(y, codes, constraint, eps):
    """fairlearn's largest difference_bound (each group against the population) that implies
    skfair's eps (the difference between any two groups)."""
    if codes.max() + 1 > 2:
        return eps / 2
    shares = []
    for event in [None] if constraint == "demographic_parity" else [1, 0]:
        rows = np.ones(len(y), bool) if event is None else y == event
        shares.append(np.bincount(codes[rows], minlength=2).max() / rows.sum())
    return float(eps * min(shares))


def fit_skfair(method, learner, X, y, s, constraint, eps, seed):
    if method == "ExponentiatedGradient":
        model = ExponentiatedGradient(learner, constraint=constraint, eps=eps, random_state=seed)
    else:
        model = GridSearch(learner, constraint=constraint, eps=eps, random_state=seed)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y, sensitive_features=s)
    elapsed = time.perf_counter() - start
    messages = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    return model, elapsed, messages


def fit_fairlearn(method, learner, X, y, s, constraint, bound):
    from fairlearn import reductions

    moment = {
        "demographic_parity": reductions.DemographicParity,
        "equalized_odds": reductions.EqualizedOdds,
    }[constraint](difference_bound=bound)
    if method == "ExponentiatedGradient":
        model = reductions.ExponentiatedGradient(learner, moment, eps=bound)
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
        return int(model.n_oracle_calls_ - model.n_oracle_calls_dummy_returned_)
    return int(sum(not isinstance(p, DummyClassifier) for p in model.predictors_))


def fairlearn_predict(method, model, X, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "ExponentiatedGradient":
            return np.asarray(model.predict(X, random_state=seed))
        return np.asarray(model.predict(X))


def run_key(row):
    return tuple(row[k] for k in ("dataset", "attribute", "learner", "method", "constraint"))


def runs(args):
    """Every (dataset, attribute, learner, method, constraint, eps, seed) asked for."""
    for dataset in args.datasets:
        for attribute in args.attributes or DATASETS[dataset][1]:
            for learner in args.learners:
                for method in args.methods:
                    for constraint in args.constraints:
                        for eps in args.eps:
                            for seed in args.seeds:
                                yield dataset, attribute, learner, method, constraint, eps, seed


def measure(args):
    done = set()
    out = Path(args.out)
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done.add((*run_key(row), row["eps"], row["seed"], row["fairlearn_bound_rule"]))
    splits, fairlearn_cache = {}, {}
    for dataset, attribute, learner, method, constraint, eps, seed in runs(args):
        key = (dataset, attribute, learner, method, constraint, eps, seed, args.fairlearn_bound)
        if key in done:
            continue
        split_seed = 0 if dataset == "adult" else seed
        if (dataset, split_seed) not in splits:
            splits = {(dataset, split_seed): load_split(dataset, split_seed)}
        train, test, categorical = splits[(dataset, split_seed)]
        numeric = [c for c in train.data.columns if c not in categorical]
        y_train, y_test = np.asarray(train.target), np.asarray(test.target)
        s_train, s_test = sensitive(train, attribute), sensitive(test, attribute)
        labels, train_codes = np.unique(s_train, return_inverse=True)
        test_codes = np.searchsorted(labels, s_test)
        bound = (
            eps
            if args.fairlearn_bound == "same"
            else matched_bound(y_train, train_codes, constraint, eps)
        )
        make = LEARNERS[learner]
        ours, ours_time, messages = fit_skfair(
            method,
            make(categorical, numeric, seed),
            train.data,
            y_train,
            s_train,
            constraint,
            eps,
            seed,
        )
        # A fit that does not depend on the seed is run once (the logistic pipeline on a
        # fixed split): its time counts for every seed.
        seedless = learner == "logistic" and dataset == "adult"
        cache_key = (dataset, attribute, learner, method, constraint, eps, bound)
        if seedless and cache_key in fairlearn_cache:
            theirs, theirs_time = fairlearn_cache[cache_key]
        else:
            with sklearn.config_context(enable_metadata_routing=True):
                theirs_learner = make(categorical, numeric, seed, routed=True)
            theirs, theirs_time = fit_fairlearn(
                method, theirs_learner, train.data, y_train, s_train, constraint, bound
            )
            if seedless:
                fairlearn_cache = {cache_key: (theirs, theirs_time)}
        row = {
            "dataset": dataset,
            "attribute": attribute,
            "n_groups": len(labels),
            "learner": learner,
            "method": method,
            "constraint": constraint,
            "eps": eps,
            "seed": seed,
            "fairlearn_bound_rule": args.fairlearn_bound,
            "fairlearn_bound": bound,
            "skfair_time": ours_time,
            "fairlearn_time": theirs_time,
            "skfair_fits": int(ours.n_fits_),
            "fairlearn_fits": fairlearn_fits(method, theirs),
            "skfair_reported_gap": float(ours.constraint_gap_),
            "warnings": messages,
        }
        for part, X, y, codes in (
            ("train", train.data, y_train, train_codes),
            ("test", test.data, y_test, test_codes),
        ):
            row[f"skfair_{part}"] = evaluate(ours.predict(X) == 1, y, codes, constraint)
            row[f"fairlearn_{part}"] = evaluate(
                fairlearn_predict(method, theirs, X, seed) == 1, y, codes, constraint
            )
        if method == "ExponentiatedGradient":
            row["skfair_expected_train"] = evaluate(
                ours.predict_proba(train.data)[:, 1], y_train, train_codes, constraint
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pmf = theirs._pmf_predict(train.data)[:, 1]
            row["fairlearn_expected_train"] = evaluate(pmf, y_train, train_codes, constraint)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pmf_test = theirs._pmf_predict(test.data)[:, 1]
            for lib, probability in (
                ("skfair", ours.predict_proba(test.data)[:, 1]),
                ("fairlearn", pmf_test),
            ):
                row[f"{lib}_test_draws"] = mean_over_draws(
                    probability, y_test, test_codes, constraint, seed
                )
        with out.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
        print(
            f"{dataset} {attribute} {learner} {method} {constraint} eps={eps} seed={seed}: "
            f"{ours_time:.1f}s / {theirs_time:.1f}s, fits {row['skfair_fits']} / "
            f"{row['fairlearn_fits']}, test acc {row['skfair_test'][0]:.4f} / "
            f"{row['fairlearn_test'][0]:.4f}, test gap {row['skfair_test'][1]:.4f} / "
            f"{row['fairlearn_test'][1]:.4f}",
            flush=True,
        )


# --------------------------------------------------------------------------------------------
# the summary


def summarise(rows):
    """Per configuration (the seeds pooled): means, the time ratio of the summed times and
    whether each target is met."""
    groups = {}
    for row in rows:
        groups.setdefault((*run_key(row), row["eps"], row["fairlearn_bound_rule"]), []).append(row)
    summaries = []
    for key, part in groups.items():

        def mean(name, index, part=part):
            return float(np.mean([r[name][index] for r in part]))

        summary = {
            "key": key,
            "n_groups": part[0]["n_groups"],
            "seeds": len(part),
            "ratio": sum(r["fairlearn_time"] for r in part) / sum(r["skfair_time"] for r in part),
            "skfair_fits": float(np.mean([r["skfair_fits"] for r in part])),
            "fairlearn_fits": float(np.mean([r["fairlearn_fits"] for r in part])),
            "warned": sum("No fit found meets the bound" in " ".join(r["warnings"]) for r in part),
        }
        for lib in ("skfair", "fairlearn"):
            for split in ("train", "test"):
                summary[f"{lib}_{split}"] = (mean(f"{lib}_{split}", 0), mean(f"{lib}_{split}", 1))
            if f"{lib}_test_draws" in part[0]:
                summary[f"{lib}_draws"] = (
                    mean(f"{lib}_test_draws", 0),
                    mean(f"{lib}_test_draws", 1),
                )
            if f"{lib}_expected_train" in part[0]:
                summary[f"{lib}_expected"] = (
                    mean(f"{lib}_expected_train", 0),
                    mean(f"{lib}_expected_train", 1),
                )
        method, eps = key[3], key[5]
        summary["speed_met"] = summary["ratio"] >= SPEED_TARGET[method]
        summary["accuracy_met"] = (
            summary["skfair_test"][0] >= summary["fairlearn_test"][0] - ACCURACY_SLACK
        )
        summary["gap_met"] = summary["skfair_test"][1] <= summary["fairlearn_test"][1] + GAP_SLACK
        summary["bound_kept"] = summary["skfair_train"][1] <= eps + BOUND_SLACK
        if "skfair_draws" in summary:
            ours, theirs = summary["skfair_draws"], summary["fairlearn_draws"]
            summary["draws_accuracy_met"] = ours[0] >= theirs[0] - ACCURACY_SLACK
            summary["draws_gap_met"] = ours[1] <= theirs[1] + GAP_SLACK
        if "skfair_expected" in summary:
            ours, theirs = summary["skfair_expected"], summary["fairlearn_expected"]
            # at a matched bound: fairlearn's mixture within eps is a mixture skfair may return
            summary["matched_met"] = ours[1] <= eps + 1e-6 and (
                theirs[1] > eps + 1e-6 or ours[0] >= theirs[0] - MATCHED_SLACK
            )
        summaries.append(summary)
    return summaries


HEADER = (
    "| data | attribute (groups) | learner | method | constraint | eps | time ratio | fits "
    "skfair / fairlearn | train acc / gap skfair | train acc / gap fairlearn | test acc / gap "
    "skfair | test acc / gap fairlearn | expected train acc / gap skfair / fairlearn | test acc "
    "/ gap over draws skfair / fairlearn |\n"
    "|---|---|---|---|---|---:|---:|---|---|---|---|---|---|---|"
)


def format_summary(s):
    dataset, attribute, learner, method, constraint, eps, _ = s["key"]
    short = {"ExponentiatedGradient": "EG", "GridSearch": "GS"}[method]
    cons = {"demographic_parity": "DP", "equalized_odds": "EO"}[constraint]

    def pair(values, mark=""):
        return f"{values[0]:.4f} / {values[1]:.4f}{mark}"

    expected = ""
    if "skfair_expected" in s:
        expected = f"{pair(s['skfair_expected'])} / {pair(s['fairlearn_expected'])}"
        expected += "" if s["matched_met"] else " ✗"
    draws = ""
    if "skfair_draws" in s:
        ours, theirs = s["skfair_draws"], s["fairlearn_draws"]
        draws = (
            f"{ours[0]:.4f}{'' if s['draws_accuracy_met'] else ' ✗'} / "
            f"{ours[1]:.4f}{'' if s['draws_gap_met'] else ' ✗'} / {pair(theirs)}"
        )
    return (
        f"| {dataset} | {attribute} ({s['n_groups']}) | {learner} | {short} | {cons} | {eps:g} "
        f"| {s['ratio']:.1f}x{'' if s['speed_met'] else ' ✗'} "
        f"| {s['skfair_fits']:.1f} / {s['fairlearn_fits']:.1f} "
        f"| {pair(s['skfair_train'], '' if s['bound_kept'] else ' ✗')} "
        f"| {pair(s['fairlearn_train'])} "
        f"| {s['skfair_test'][0]:.4f}{'' if s['accuracy_met'] else ' ✗'} / "
        f"{s['skfair_test'][1]:.4f}{'' if s['gap_met'] else ' ✗'} "
        f"| {pair(s['fairlearn_test'])} | {expected} | {draws} |"
    )


def render(rows, command):
    import fairlearn

    summaries = summarise(rows)
    seeds = sorted({r["seed"] for r in rows})
    rules = sorted({r["fairlearn_bound_rule"] for r in rows})
    lines = [
        f"Command: `{command}` (from the repository root), then `--render --write`. "
        f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs (absolute times "
        f"are noisy; each ratio is fairlearn / skfair of the times summed over the seeds, "
        f"both run one after the other). Python {platform.python_version()}, numpy "
        f"{np.__version__}, scikit-learn {sklearn.__version__}, fairlearn "
        f"{fairlearn.__version__}; one thread per fit. Seeds {seeds}; fairlearn's bound: "
        f"{', '.join(rules)} (see the script's docstring).",
        "",
        "Each row is a configuration, its numbers the means over the seeds. Accuracy and gap "
        "are those of each library's default `predict` (skfair: randomised, drawn with "
        "`random_state=seed`; fairlearn: `predict(X, random_state=seed)`; GridSearch: the "
        "chosen model); the column before last holds the expected values of the randomised "
        "mixtures on the training rows (skfair's `predict_proba`, fairlearn's "
        "`_pmf_predict`), the last one the test accuracy and gap averaged over "
        f"{DRAWS} draws of the decisions from those probabilities on the test rows (where "
        "it is filled). ✗ marks a missed target: time ratio below 5x (EG) or 3x (GS); "
        "skfair's realised training gap above eps + 0.01; test accuracy below fairlearn's - "
        "0.005; test gap above fairlearn's + 0.005 (both for one draw and over the draws); "
        "expected accuracy below fairlearn's - "
        "0.002 where fairlearn's expected gap is within eps (or skfair's expected gap above "
        "eps).",
        "",
        HEADER,
        *[format_summary(s) for s in summaries],
        "",
    ]
    groups = {}
    for s in summaries:
        groups.setdefault((s["key"][3], s["key"][2]), []).append(s)
    for (method, learner), part in [(("all", ""), summaries), *sorted(groups.items())]:
        counts = {
            name: sum(s[name] for s in part)
            for name in ("speed_met", "bound_kept", "accuracy_met", "gap_met")
        }
        matched = [s["matched_met"] for s in part if "matched_met" in s]
        over_draws = [
            (s["draws_accuracy_met"], s["draws_gap_met"]) for s in part if "skfair_draws" in s
        ]
        lines.append(
            f"- {method} {learner}".rstrip() + f" ({len(part)} configurations): time ratio "
            f"met in {counts['speed_met']}, realised training gap within eps + 0.01 in "
            f"{counts['bound_kept']}, test accuracy in {counts['accuracy_met']}, test gap in "
            f"{counts['gap_met']}"
            + (
                f", expected accuracy at the matched bound in {sum(matched)} of {len(matched)}"
                if matched
                else ""
            )
            + (
                f", over {DRAWS} draws test accuracy in {sum(a for a, _ in over_draws)} and test "
                f"gap in {sum(g for _, g in over_draws)} of {len(over_draws)}"
                if over_draws
                else ""
            )
            + "."
        )
    warned = [s for s in summaries if s["warned"]]
    if warned:
        lines += [
            "",
            "skfair warned that no fit met the bound (GridSearch: the fairest point returned) "
            "in: "
            + "; ".join(
                f"{s['key'][0]} {s['key'][1]} {s['key'][2]} {s['key'][3]} {s['key'][4]} "
                f"{s['key'][5]:g} ({s['warned']} of {s['seeds']} seeds)"
                for s in warned
            )
            + ".",
        ]
    lines.append("")
    return "\n".join(lines)


def write_section(report, title):
    """Put the report under ``### title`` at the end of the ``## reductions`` section."""
    text = RESULTS.read_text()
    block = f"### {title}\n\n{report.rstrip()}\n"
    match = re.search(r"## reductions\n.*?(?=\n## |\Z)", text, re.S)
    if match:
        end = match.end()
        text = text[:end].rstrip("\n") + "\n\n" + block + text[end:]
    else:
        text = text.rstrip("\n") + "\n\n## reductions\n\n" + block
    RESULTS.write_text(text.rstrip("\n") + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=list(DATASETS))
    parser.add_argument("--attributes", nargs="+", help="default: each data set's")
    parser.add_argument("--learners", nargs="+", choices=list(LEARNERS), default=list(LEARNERS))
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--constraints", nargs="+", choices=CONSTRAINTS, default=list(CONSTRAINTS))
    parser.add_argument("--eps", nargs="+", type=float, default=[0.01, 0.02, 0.05])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--fairlearn-bound", choices=["matched", "same"], default="matched")
    parser.add_argument("--out", required=True, help="JSON lines, appended to")
    parser.add_argument("--render", action="store_true", help="summarise --out")
    parser.add_argument("--write", action="store_true", help="with --render: into RESULTS.md")
    parser.add_argument("--title", default="Default decisions against fairlearn")
    parser.add_argument("--command", help="with --render: the measuring command to record")
    args = parser.parse_args()
    if not args.render:
        measure(args)
        return
    rows = [json.loads(line) for line in Path(args.out).read_text().splitlines()]
    command = args.command or "PYTHONPATH=. nice python benchmarks/bench_reductions.py --out FILE"
    report = render(rows, command)
    print(report)
    if args.write:
        write_section(report, args.title)


if __name__ == "__main__":
    main()
