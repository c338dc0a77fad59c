"""Group disparity metrics: skfair against fairlearn, side by side.

Data: n rows (default 2·10^6), y_true and y_pred ~ Bernoulli(0.5) independent,
``race`` in 4 strings and ``sex`` in 2 strings; the sensitive features are also given
int-coded and as pandas categoricals, with 1 and 2 attributes. Every pair of values is
asserted equal (1e-12) in the same run. skfair: minimum of 3 runs; fairlearn: 1 run.

Run::

    PYTHONPATH=. nice -n 10 python benchmarks/bench_metrics.py            # prints the table
    PYTHONPATH=. nice -n 10 python benchmarks/bench_metrics.py --write    # updates RESULTS.md
    PYTHONPATH=. nice -n 10 python benchmarks/bench_metrics.py --scaling  # groups 10 -> 1000

(``PYTHONPATH=.`` from the repository root unless skfair is installed.)
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from pathlib import Path

import fairlearn
import fairlearn.metrics as flm
import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score

import skfair.metrics as skm

TARGET_RATIO = 20
WEIGHTED_CHECK_N = 200_000  # size of the weighted agreement check (agreement only, not timed)
RESULTS = Path(__file__).with_name("RESULTS.md")


def make_data(n, seed=0):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, n)
    y_pred = rng.integers(0, 2, n)
    race_code = rng.integers(0, 4, n)
    sex_code = rng.integers(0, 2, n)
    race_names = np.array(["white", "black", "asian", "other"], dtype=object)
    sex_names = np.array(["female", "male"], dtype=object)
    race, sex = race_names[race_code], sex_names[sex_code]
    variants = {
        "str, 1 attr": race,
        "str, 2 attr": pd.DataFrame({"race": race, "sex": sex}),
        "int, 1 attr": race_code,
        "int, 2 attr": pd.DataFrame({"race": race_code, "sex": sex_code}),
        "categorical, 1 attr": pd.Series(pd.Categorical(race)),
        "categorical, 2 attr": pd.DataFrame(
            {"race": pd.Categorical(race), "sex": pd.Categorical(sex)}
        ),
    }
    return y_true, y_pred, variants


# fairlearn's equivalent of U_DP / U_EO is the `method="to_overall"` composition.


def fairlearn_u_dp(y_true, y_pred, *, sensitive_features, sample_weight=None):
    return max(
        flm.demographic_parity_difference(
            y_true,
            (y_pred == k).astype(int),
            sensitive_features=sensitive_features,
            method="to_overall",
            sample_weight=sample_weight,
        )
        for k in np.unique(y_pred)
    )


def fairlearn_u_eo(y_true, y_pred, *, sensitive_features, sample_weight=None):
    values = []
    for k_true in np.unique(y_true):
        stratum = y_true == k_true
        weights = None if sample_weight is None else sample_weight[stratum]
        for k in np.unique(y_pred):
            values.append(
                flm.demographic_parity_difference(
                    y_true[stratum],
                    (y_pred[stratum] == k).astype(int),
                    sensitive_features=sensitive_features[stratum],
                    method="to_overall",
                    sample_weight=weights,
                )
            )
    return max(values)


# (label, skfair function, fairlearn function, keyword arguments for both, sensitive variants)
ALL_VARIANTS = None
CASES = [
    (
        "statistical_parity_difference",
        skm.statistical_parity_difference,
        flm.demographic_parity_difference,
        {},
        ALL_VARIANTS,
    ),
    (
        "equalized_odds_difference",
        skm.equalized_odds_difference,
        flm.equalized_odds_difference,
        {},
        ALL_VARIANTS,
    ),
    (
        "equalized_odds_difference(agg='mean')",
        skm.equalized_odds_difference,
        flm.equalized_odds_difference,
        {"agg": "mean"},
        ["str, 1 attr"],
    ),
    (
        "disparate_impact_ratio",
        skm.disparate_impact_ratio,
        flm.demographic_parity_ratio,
        {},
        ["str, 1 attr"],
    ),
    (
        "true_positive_rate_difference",
        skm.true_positive_rate_difference,
        flm.true_positive_rate_difference,
        {},
        ["str, 1 attr"],
    ),
    (
        "false_positive_rate_difference",
        skm.false_positive_rate_difference,
        flm.false_positive_rate_difference,
        {},
        ["str, 1 attr"],
    ),
    (
        "false_negative_rate_difference",
        skm.false_negative_rate_difference,
        flm.false_negative_rate_difference,
        {},
        ["str, 1 attr"],
    ),
    (
        "accuracy_difference",
        skm.accuracy_difference,
        flm.accuracy_score_difference,
        {},
        ["str, 1 attr"],
    ),
    (
        "demographic_parity_unfairness",
        skm.demographic_parity_unfairness,
        fairlearn_u_dp,
        {},
        ["str, 1 attr"],
    ),
    (
        "equalized_odds_unfairness",
        skm.equalized_odds_unfairness,
        fairlearn_u_eo,
        {},
        ["str, 1 attr"],
    ),
]


def best_of(repeats, function, *args, **kwargs):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        value = function(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return value, min(times)


def bench_metrics(n, variants_filter):
    y_true, y_pred, variants = make_data(n)
    rows = []
    for label, ours, theirs, kwargs, names in CASES:
        for name in names or variants:
            if variants_filter and name not in variants_filter:
                continue
            s = variants[name]
            value, our_time = best_of(3, ours, y_true, y_pred, sensitive_features=s, **kwargs)
            reference, their_time = best_of(
                1, theirs, y_true, y_pred, sensitive_features=s, **kwargs
            )
            assert abs(value - reference) <= 1e-12, (label, name, value, reference)
            rows.append((label, name, our_time, their_time, value))
            print(
                f"{label:42s} {name:22s} skfair {our_time:8.3f} s  fairlearn "
                f"{their_time:8.2f} s  ratio {their_time / our_time:7.1f}x",
                flush=True,
            )
    return rows


def check_weighted_agreement(n):
    """Every metric with float sample weights equals fairlearn's (1e-12), 2 str attributes."""
    y_true, y_pred, variants = make_data(n, seed=4)
    s = variants["str, 2 attr"]
    weights = np.random.default_rng(5).random(n)
    for label, ours, theirs, kwargs, _ in CASES:
        value = ours(y_true, y_pred, sensitive_features=s, sample_weight=weights, **kwargs)
        reference = theirs(y_true, y_pred, sensitive_features=s, sample_weight=weights, **kwargs)
        assert abs(value - reference) <= 1e-12, (label, value, reference)
    print(f"weighted agreement with fairlearn: {len(CASES)} metrics, n={n}: ok", flush=True)
    return len(CASES)


# group_summary's three bootstrap paths: multinomial draws on the per-group count tables
# (named rate, no weights), resampled samples (named rate with weights), and a callable
# evaluated per group and replicate.
SUMMARY_PATHS = [
    ("named rate: multinomial on count tables", {"metric": "accuracy"}),
    ("named rate with sample_weight: resampling", {"metric": "accuracy", "weights": True}),
    ("callable accuracy_score: resampling", {"metric": accuracy_score}),
]


def bench_group_summary(n, n_boot):
    """Per-group accuracy with bootstrap intervals vs MetricFrame(n_boot=...)."""
    y_true, y_pred, variants = make_data(n, seed=1)
    s = variants["str, 1 attr"]
    start = time.perf_counter()
    frame = flm.MetricFrame(
        metrics=accuracy_score,
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=s,
        n_boot=n_boot,
        ci_quantiles=[0.025, 0.975],
        random_state=0,
    )
    their_time = time.perf_counter() - start
    rows = []
    for label, options in SUMMARY_PATHS:
        weights = np.ones(n) if options.get("weights") else None
        summary, our_time = best_of(
            3,
            skm.group_summary,
            y_true,
            y_pred,
            sensitive_features=s,
            metric=options["metric"],
            sample_weight=weights,
            n_boot=n_boot,
            random_state=0,
        )
        by_group = frame.by_group.reindex(summary.groups)
        assert np.allclose(summary.value, by_group.to_numpy(), atol=1e-12, rtol=0)
        print(
            f"group_summary(n_boot={n_boot}, n={n}) {label:45s} skfair {our_time:.3f} s  "
            f"fairlearn {their_time:.2f} s  ratio {their_time / our_time:.1f}x",
            flush=True,
        )
        rows.append((label, our_time, their_time))
    return rows


# Signed metrics against aif360's sklearn API (unprivileged minus privileged, priv_group vs
# the rest): agreement check; the speed goal is stated against fairlearn.
AIF360_CASES = [
    (
        "statistical_parity_difference",
        skm.statistical_parity_difference,
        "statistical_parity_difference",
    ),
    ("disparate_impact_ratio", skm.disparate_impact_ratio, "disparate_impact_ratio"),
    (
        "true_positive_rate_difference",
        skm.true_positive_rate_difference,
        "equal_opportunity_difference",
    ),
]


def bench_aif360(n):
    try:
        from aif360.sklearn import metrics as aif_metrics
    except ImportError:
        print("aif360 is not installed: skipping the signed-metric agreement rows.")
        return []
    y_true, y_pred, variants = make_data(n, seed=2)
    race = variants["str, 1 attr"]
    weights = np.random.default_rng(3).random(n)
    # aif360 reads the protected attribute from the index of y_true.
    y_true_indexed = pd.Series(y_true, index=pd.Index(race, name="race"))
    rows = []
    for label, ours, theirs_name in AIF360_CASES:
        theirs = getattr(aif_metrics, theirs_name)
        for w in (None, weights):
            value, our_time = best_of(
                3,
                ours,
                y_true,
                y_pred,
                sensitive_features=race,
                privileged_group="white",
                sample_weight=w,
            )
            reference, their_time = best_of(
                1,
                theirs,
                y_true_indexed,
                y_pred,
                prot_attr="race",
                priv_group="white",
                sample_weight=w,
            )
            assert abs(value - reference) <= 1e-12, (label, value, reference)
            name = f"{label}(privileged_group='white')" + (", weighted" if w is not None else "")
            print(
                f"{name:60s} skfair {our_time:.3f} s  aif360 {their_time:.2f} s  "
                f"|diff| {abs(value - reference):.1e}",
                flush=True,
            )
            rows.append((name, theirs_name, our_time, their_time, abs(value - reference)))
    return rows


def machine_note():
    load = os.getloadavg()
    return (
        f"{os.cpu_count()} cores ({platform.processor() or platform.machine()}), shared with "
        f"other jobs and loaded (load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at "
        f"the end of the run); Python {platform.python_version()}, numpy {np.__version__}, "
        f"pandas {pd.__version__}, fairlearn {fairlearn.__version__}"
    )


def format_section(
    n, rows, summary_rows, n_summary, n_boot, command, aif360_rows, n_weighted_checks
):
    lines = [
        "## metrics",
        "",
        f"Group disparity metrics against fairlearn at n = {n:,} (data: y_true, "
        "y_pred ~ Bernoulli(0.5), race in 4 values, sex in 2). Values asserted equal (1e-12) "
        "in the same run. skfair: minimum of 3 runs, end to end (input checks and group "
        "factorisation included); fairlearn: 1 run. Ratios below the 20x target are flagged.",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {machine_note()}. Absolute times vary with the load; quote the ratios.",
        "",
        "| metric | sensitive features | skfair (s) | fairlearn (s) | ratio |",
        "|---|---|---:|---:|---:|",
    ]
    for label, name, ours, theirs, _ in rows:
        ratio = theirs / ours
        flag = "" if ratio >= TARGET_RATIO else " **below 20x**"
        lines.append(f"| `{label}` | {name} | {ours:.3f} | {theirs:.2f} | {ratio:.0f}x{flag} |")
    for label, ours, theirs in summary_rows:
        ratio = theirs / ours
        flag = "" if ratio >= TARGET_RATIO else " **below 20x**"
        lines.append(
            f"| `group_summary(n_boot={n_boot})` vs `MetricFrame(n_boot={n_boot})`, "
            f"n = {n_summary:,}, {label} | str, 1 attr | {ours:.3f} | {theirs:.2f} | "
            f"{ratio:.0f}x{flag} |"
        )
    lines += [
        "",
        'fairlearn\'s U_DP / U_EO equivalents are the `method="to_overall"` compositions of '
        "`demographic_parity_difference` over classes (and true-class strata). "
        "`group_summary` resamples within each group (stratified bootstrap) while "
        "`MetricFrame` resamples the whole data set; the per-group values are asserted equal, "
        "the intervals are of the same kind (percentile, 95%) but not identical.",
        "",
        f"With float `sample_weight` and two string attributes (intersectional groups), all "
        f"{n_weighted_checks} metrics of the table also equal fairlearn's within 1e-12 "
        f"(checked in the same run at n = {min(n, WEIGHTED_CHECK_N):,}).",
        "",
    ]
    if aif360_rows:
        lines += [
            f"Signed metrics against aif360's sklearn metrics (`priv_group` vs the rest), n = "
            f"{n:,}, str race column, with and without float sample weights: agreement check "
            "(the speed goal is stated against fairlearn).",
            "",
            "| skfair | aif360 | skfair (s) | aif360 (s) | ratio | abs. difference |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for name, theirs_name, ours, theirs, difference in aif360_rows:
            lines.append(
                f"| `{name}` | `{theirs_name}` | {ours:.3f} | {theirs:.2f} | "
                f"{theirs / ours:.1f}x | {difference:.1e} |"
            )
        lines.append("")
    return "\n".join(lines)


def write_section(section):
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n\n"
    pattern = re.compile(r"^## metrics\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text.rstrip("\n") + "\n")


# --------------------------------------------------------------------------------------------
# Cost growth with the number of groups (--scaling)

SCALING_GROUPS = (10, 30, 100, 300, 1000)
SCALING_BUDGET = 60.0  # seconds; larger group counts of a case are skipped beyond it


def scaling_data(n, n_groups, seed=0):
    """n rows, ``n_groups`` groups of equal expected size, scores shifted per group."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    shift = rng.normal(0.0, 0.2, n_groups)
    scores = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + shift[groups])))
    y_true = rng.integers(0, 2, n)
    y_pred = (scores > 0.5).astype(int)
    return y_true, y_pred, scores, groups


def scaling_cases(n, n_summary, n_boot):
    """(label, function of the number of groups returning one call) of every timed case."""

    def w1(agg):
        def build(n_groups):
            _, _, scores, groups = scaling_data(n, n_groups)
            return lambda: skm.wasserstein_bias(None, scores, sensitive_features=groups, agg=agg)

        return build

    def ks(n_groups):
        _, _, scores, groups = scaling_data(n, n_groups)
        return lambda: skm.ks_bias(None, scores, sensitive_features=groups)

    def summary(weighted):
        def build(n_groups):
            y_true, y_pred, _, groups = scaling_data(n_summary, n_groups)
            weights = {"sample_weight": np.ones(n_summary)} if weighted else {}
            return lambda: skm.group_summary(
                y_true,
                y_pred,
                sensitive_features=groups,
                metric="true_positive_rate",
                n_boot=n_boot,
                random_state=0,
                **weights,
            )

        return build

    return [
        (f"`wasserstein_bias` worst pair, n = {n:,}", w1("worst_case")),
        (f'`wasserstein_bias(agg="mean")` all pairs, n = {n:,}', w1("mean")),
        (f"`ks_bias` worst pair, n = {n:,}", ks),
        (f"`group_summary` unweighted, n = {n_summary:,}, n_boot = {n_boot}", summary(False)),
        (
            f"`group_summary(sample_weight=ones)`, n = {n_summary:,}, n_boot = {n_boot}",
            summary(True),
        ),
    ]


def bench_scaling(cases, groups_list=SCALING_GROUPS, budget=SCALING_BUDGET):
    """Markdown table of seconds per case (rows) and number of groups (columns), one run each."""
    import warnings

    header = "| case | " + " | ".join(f"G = {g:,}" for g in groups_list) + " |"
    lines = [header, "|---|" + "---:|" * len(groups_list)]
    for label, build in cases:
        cells, skipping = [], False
        for n_groups in groups_list:
            if skipping:
                cells.append("not run")
                continue
            call = build(n_groups)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                call()
                seconds = time.perf_counter() - start
            cells.append(f"{seconds:.2f} s")
            skipping = seconds > budget
            print(label, n_groups, f"{seconds:.2f} s", flush=True)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2_000_000)
    parser.add_argument("--n-summary", type=int, default=100_000)
    parser.add_argument("--n-boot", type=int, default=100)
    parser.add_argument("--variants", nargs="*", help="only these sensitive-feature variants")
    parser.add_argument("--no-summary", action="store_true", help="skip the group_summary row")
    parser.add_argument("--no-aif360", action="store_true", help="skip the aif360 agreement")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="only the cost growth with the number of groups (10 -> 1000), printed",
    )
    args = parser.parse_args(argv)
    if args.scaling:
        print(bench_scaling(scaling_cases(100_000, 1_000_000, 1000)))
        return
    rows = bench_metrics(args.n, args.variants)
    summary_rows = [] if args.no_summary else bench_group_summary(args.n_summary, args.n_boot)
    command = "PYTHONPATH=. nice -n 10 python " + " ".join(
        ["benchmarks/bench_metrics.py", *sys.argv[1:]]
    )
    n_weighted_checks = check_weighted_agreement(min(args.n, WEIGHTED_CHECK_N))
    aif360_rows = [] if args.no_aif360 else bench_aif360(args.n)
    section = format_section(
        args.n,
        rows,
        summary_rows,
        args.n_summary,
        args.n_boot,
        command,
        aif360_rows,
        n_weighted_checks,
    )
    print(section)
    if args.write:
        write_section(section)


if __name__ == "__main__":
    main()
