"""skfair.preprocessing against aif360 and fairlearn: speed from 10^3 to 10^6 rows, and effect on
real data.

Speed (built data: n rows, 10 numeric columns, 4 groups of shares 0.4 / 0.3 / 0.2 / 0.1, each
column shifted and scaled by group, labels from a logistic model):

- ``FeatureRepair`` against aif360's ``DisparateImpactRemover`` (Feldman et al.'s repair,
  through BlackBoxAuditing), both at repair level 1 on the 10 columns. aif360 has only
  ``fit_transform`` (in-sample); skfair is timed for ``fit_transform`` and for
  ``fit(X).transform(X)`` (maps fitted, then applied to rows as new data);
- ``CorrelationRemover`` against fairlearn's (sensitive columns: the 4 one-hot indicators),
  fit + transform;
- ``reweighing_weights`` against aif360's ``Reweighing.fit_transform`` on an already built
  ``BinaryLabelDataset`` (the dataset construction is not timed). aif360 compares a
  privileged group with the rest, so its run uses group 0 against groups 1-3; skfair's run
  reweighs the 4 groups (more work). Agreement is checked on the two-group split.

Times are CPU seconds of this process (``time.process_time``). Below 10^5 rows the calls
compared are interleaved, one of each in turn, 15 rounds, and each time is the median of its
15 calls: a call there takes milliseconds, and on a shared machine one call measures the load
as much as the code, while interleaving exposes both sides to the same load. From 10^5 rows:
the minimum over 3 skfair calls and one peer call. Small sizes are where fixed per-call costs
(validation, frames, group encoding) show; ``--n`` takes several sizes.
BLAS runs on one thread for every library (``threadpool_limits(1)``): CPU time counts every
thread of the process, and on a loaded machine idle BLAS threads spinning in fairlearn's
least squares made it look up to 20 times slower than it is.

Real data (``skfair.datasets``: Adult with its test split, German credit and Bank marketing
split 70/30, stratified, seed 0): a logistic regression on one-hot encoded categorical and
scaled numeric features (the sensitive attribute not among them) trained on the training rows
as they are, and on each repaired version; the demographic-parity gap (largest difference of
selection rates between the attribute's groups) and the accuracy on the test rows. Each repair
is applied to the test rows too: skfair's fitted transformers out of sample, aif360's
``DisparateImpactRemover`` by a second ``fit_transform`` on the test rows (it has no
out-of-sample transform).

Usage: ``PYTHONPATH=. nice python benchmarks/bench_preprocessing.py [--n 1000 6172 1000000]
[--skip-real] [--write]`` with the bench extra (aif360 needs BlackBoxAuditing for
``DisparateImpactRemover``).
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from threadpoolctl import threadpool_limits

from skfair.datasets import load_adult, load_bank_marketing, load_german_credit
from skfair.metrics import statistical_parity_difference
from skfair.preprocessing import CorrelationRemover, FeatureRepair, reweighing_weights

logging.disable(logging.WARNING)  # aif360 logs missing optional packages at import
warnings.filterwarnings("ignore")

from aif360.algorithms.preprocessing import DisparateImpactRemover, Reweighing  # noqa: E402
from aif360.datasets import BinaryLabelDataset  # noqa: E402
from fairlearn.preprocessing import CorrelationRemover as FairlearnCorrelationRemover  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
N_COLUMNS = 10
SHARES = [0.4, 0.3, 0.2, 0.1]
SMALL_ROUNDS = 15  # interleaved rounds below 10^5 rows


def cpu_time(function, repeat=1):
    """(min CPU seconds over ``repeat`` calls, last result)."""
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        result = function()
        best = min(best, time.process_time() - start)
    return best, result


def interleaved(functions, rounds):
    """``[(median CPU seconds, last result)]`` of each of ``functions``, called one after the
    other in turn for ``rounds`` rounds."""
    seconds = [[] for _ in functions]
    results = [None] * len(functions)
    for _ in range(rounds):
        for j, function in enumerate(functions):
            start = time.process_time()
            results[j] = function()
            seconds[j].append(time.process_time() - start)
    return [(float(np.median(times)), result) for times, result in zip(seconds, results)]


def timed(functions, n):
    """The time and result of each of ``functions`` (skfair's and their peer's) at ``n`` rows:
    interleaved medians below 10^5 rows, else the minimum over 3 calls (the last function,
    the peer's, one call)."""
    if n < 100_000:
        return interleaved(functions, SMALL_ROUNDS)
    return [cpu_time(f, 1 if j == len(functions) - 1 else 3) for j, f in enumerate(functions)]


def built_data(n, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(len(SHARES), n, p=SHARES)
    X = rng.normal(size=(n, N_COLUMNS)) * (1 + 0.2 * group[:, None]) + 0.5 * group[:, None]
    y = (X.mean(axis=1) + rng.normal(size=n) > 0.5).astype(int)
    return X, y, group


def aif360_dataset(X, y, group, privileged_split=False):
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["g"] = (group > 0).astype(float) if privileged_split else group.astype(float)
    frame["y"] = y.astype(float)
    return BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["g"])


def ks_between_groups(values, group):
    """Largest two-sample KS distance between two groups, over the columns."""
    from scipy.stats import ks_2samp

    labels = np.unique(group)
    return max(
        ks_2samp(values[group == a, j], values[group == b, j]).statistic
        for j in range(values.shape[1])
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
    )


def speed(n):
    X, y, group = built_data(n)
    rows = []

    # --- feature repair
    dataset = aif360_dataset(X, y, group)
    (
        (t_ft, repaired),
        (t_fit, _),
        (t_median, repaired_median),
        (t_aif, repaired_aif),
    ) = timed(
        [
            lambda: FeatureRepair(random_state=0).fit_transform(X, sensitive_features=group),
            lambda: (
                FeatureRepair(random_state=0)
                .fit(X, sensitive_features=group)
                .transform(X, sensitive_features=group)
            ),
            lambda: FeatureRepair(method="median", random_state=0).fit_transform(
                X, sensitive_features=group
            ),
            lambda: DisparateImpactRemover(repair_level=1.0, sensitive_attribute="g").fit_transform(
                dataset
            ),
        ],
        n,
    )
    aif_features = repaired_aif.features[:, :N_COLUMNS]
    rows.append(
        (
            "FeatureRepair fit_transform (barycenter) vs DisparateImpactRemover",
            t_ft,
            t_aif,
            f"KS between groups after: skfair {ks_between_groups(repaired, group):.1e}, "
            f"aif360 {ks_between_groups(aif_features, group):.1e} "
            f"(before {ks_between_groups(X, group):.3f})",
        )
    )
    rows.append(
        (
            "FeatureRepair fit_transform (median) vs DisparateImpactRemover",
            t_median,
            t_aif,
            f"KS after: skfair {ks_between_groups(repaired_median, group):.1e}",
        )
    )
    rows.append(
        ("FeatureRepair fit + transform (barycenter) vs DisparateImpactRemover", t_fit, t_aif, "")
    )

    # --- correlation remover
    onehot = (group[:, None] == np.arange(len(SHARES))).astype(float)
    X_fairlearn = np.column_stack([X, onehot])
    ids = list(range(N_COLUMNS, N_COLUMNS + len(SHARES)))
    (t_cr, out_cr), (t_fl, out_fl) = timed(
        [
            lambda: (
                CorrelationRemover()
                .fit(X, sensitive_features=group)
                .transform(X, sensitive_features=group)
            ),
            lambda: (
                FairlearnCorrelationRemover(sensitive_feature_ids=ids)
                .fit(X_fairlearn)
                .transform(X_fairlearn)
            ),
        ],
        n,
    )
    rows.append(
        (
            "CorrelationRemover fit + transform vs fairlearn",
            t_cr,
            t_fl,
            f"max |skfair - fairlearn| = {np.abs(out_cr - out_fl).max():.1e}",
        )
    )
    # A DataFrame with the group as a string column, as a user has it: skfair reads it with
    # sensitive_column=; fairlearn is given the one-hot columns (their encoding not timed).
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(N_COLUMNS)])
    frame["group"] = np.array(["a", "b", "c", "d"])[group]
    onehot_frame = pd.concat(
        [frame.drop(columns="group"), pd.get_dummies(frame["group"], dtype=float)], axis=1
    )
    (t_cr_frame, out_cr_frame), (t_fl_frame, out_fl_frame) = timed(
        [
            lambda: CorrelationRemover(sensitive_column="group").fit(frame).transform(frame),
            lambda: (
                FairlearnCorrelationRemover(sensitive_feature_ids=["a", "b", "c", "d"])
                .fit(onehot_frame)
                .transform(onehot_frame)
            ),
        ],
        n,
    )
    # Like for like: the same rows, the same 10 output columns, both as numpy arrays.
    assert type(out_cr_frame) is type(out_fl_frame) and out_cr_frame.shape == out_fl_frame.shape
    rows.append(
        (
            "CorrelationRemover fit + transform vs fairlearn, DataFrame (string group column)",
            t_cr_frame,
            t_fl_frame,
            f"max |skfair - fairlearn| = {np.abs(out_cr_frame - out_fl_frame).max():.1e}",
        )
    )

    # --- reweighing
    split = aif360_dataset(X, y, group, privileged_split=True)
    reweighing = Reweighing(unprivileged_groups=[{"g": 1.0}], privileged_groups=[{"g": 0.0}])
    (t_rw, _), (t_rw_aif, reweighed) = timed(
        [
            lambda: reweighing_weights(y, sensitive_features=group),
            lambda: reweighing.fit_transform(split),
        ],
        n,
    )
    two_groups = reweighing_weights(y, sensitive_features=group > 0)
    rows.append(
        (
            "reweighing_weights (4 groups) vs Reweighing (2 groups, built dataset)",
            t_rw,
            t_rw_aif,
            "max |skfair - aif360| on the same 2 groups = "
            f"{np.abs(two_groups - reweighed.instance_weights).max():.1e}",
        )
    )
    return rows


# --------------------------------------------------------------------------------------------
# real data


def real_datasets():
    """(name, training rows, test rows, attribute, the columns that hold it)."""
    adult_train, adult_test = load_adult(as_frame=True), load_adult(as_frame=True, split="test")
    yield "Adult (sex)", adult_train, adult_test, "sex", ["sex"]
    for name, loader, attribute, columns in (
        # personal_status holds the sex (with the marital status)
        ("German credit (sex)", load_german_credit, "sex", ["personal_status"]),
        ("Bank marketing (age_group)", load_bank_marketing, "age_group", ["age_group"]),
    ):
        bunch = loader(as_frame=True)
        train, test = train_test_split(
            np.arange(bunch.target.shape[0]), test_size=0.3, random_state=0, stratify=bunch.target
        )
        yield name, _rows(bunch, train), _rows(bunch, test), attribute, columns


class _Rows:
    def __init__(self, data, target, sensitive):
        self.data, self.target, self.sensitive_features = data, target, sensitive


def _rows(bunch, rows):
    return _Rows(
        bunch.data.iloc[rows].reset_index(drop=True),
        np.asarray(bunch.target)[rows],
        bunch.sensitive_features.iloc[rows].reset_index(drop=True),
    )


def encoded(train, test, dropped):
    """Numeric feature matrices (one-hot categorical, median-imputed numeric; the columns
    ``dropped`` left out) of the training and test rows."""
    data = train.data.drop(columns=dropped)
    categorical = [c for c in data.columns if not pd.api.types.is_numeric_dtype(data[c])]
    numeric = [c for c in data.columns if c not in categorical]
    encoder = make_column_transformer(
        (OneHotEncoder(handle_unknown="ignore", sparse_output=False), categorical),
        ("passthrough", numeric),
    )
    fill = data[numeric].median()
    prepare = lambda frame: frame.drop(columns=dropped).fillna(fill)  # noqa: E731
    X_train = encoder.fit_transform(prepare(train.data)).astype(float)
    X_test = encoder.transform(prepare(test.data)).astype(float)
    return X_train, X_test


def logistic():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))


def evaluate(model, X_test, y_test, groups):
    y_pred = model.predict(X_test)
    gap = statistical_parity_difference(y_test, y_pred, sensitive_features=groups, pos_label=1)
    return abs(gap), float(np.mean(y_pred == y_test))


def real_data_rows():
    rows = []
    for name, train, test, attribute, dropped in real_datasets():
        X_train, X_test = encoded(train, test, dropped)
        s_train = train.sensitive_features[attribute].to_numpy()
        s_test = test.sensitive_features[attribute].to_numpy()
        y_train, y_test = train.target, test.target

        def fitted(X, weights=None, y=y_train):
            kwargs = {} if weights is None else {"logisticregression__sample_weight": weights}
            return logistic().fit(X, y, **kwargs)

        results = {"no repair": evaluate(fitted(X_train), X_test, y_test, s_test)}
        for method in ("barycenter", "median"):
            repair = FeatureRepair(method=method, random_state=0)
            repaired = repair.fit_transform(X_train, sensitive_features=s_train)
            model = fitted(repaired)
            results[f"skfair FeatureRepair ({method})"] = evaluate(
                model, repair.transform(X_test, sensitive_features=s_test), y_test, s_test
            )
        codes_train = pd.factorize(pd.Series(s_train), sort=True)[0].astype(float)
        codes_test = pd.Series(s_test).map(
            dict(zip(np.unique(s_train), range(len(np.unique(s_train)))))
        )
        remover = DisparateImpactRemover(repair_level=1.0, sensitive_attribute="a")
        repaired_train = remover.fit_transform(_aif(X_train, y_train, codes_train)).features
        repaired_test = (
            DisparateImpactRemover(repair_level=1.0, sensitive_attribute="a")
            .fit_transform(_aif(X_test, y_test, codes_test.to_numpy(float)))
            .features
        )
        results["aif360 DisparateImpactRemover (median)"] = evaluate(
            fitted(repaired_train[:, :-1]), repaired_test[:, :-1], y_test, s_test
        )
        weights = reweighing_weights(y_train, sensitive_features=s_train)
        results["skfair reweighing"] = evaluate(fitted(X_train, weights), X_test, y_test, s_test)
        privileged = pd.Series(s_train).value_counts().index[0]
        split = _aif(X_train, y_train, (s_train != privileged).astype(float))
        aif_weights = (
            Reweighing(unprivileged_groups=[{"a": 1.0}], privileged_groups=[{"a": 0.0}])
            .fit_transform(split)
            .instance_weights
        )
        results["aif360 Reweighing (privileged vs rest)"] = evaluate(
            fitted(X_train, aif_weights), X_test, y_test, s_test
        )
        remover = CorrelationRemover().fit(X_train, sensitive_features=s_train)
        results["skfair CorrelationRemover"] = evaluate(
            fitted(remover.transform(X_train, sensitive_features=s_train)),
            remover.transform(X_test, sensitive_features=s_test),
            y_test,
            s_test,
        )
        onehot_train = (s_train[:, None] == np.unique(s_train)).astype(float)
        onehot_test = (s_test[:, None] == np.unique(s_train)).astype(float)
        ids = list(range(X_train.shape[1], X_train.shape[1] + onehot_train.shape[1]))
        fl = FairlearnCorrelationRemover(sensitive_feature_ids=ids).fit(
            np.column_stack([X_train, onehot_train])
        )
        results["fairlearn CorrelationRemover"] = evaluate(
            fitted(fl.transform(np.column_stack([X_train, onehot_train]))),
            fl.transform(np.column_stack([X_test, onehot_test])),
            y_test,
            s_test,
        )
        rows.extend((name, method, *values) for method, values in results.items())
    return rows


def _aif(X, y, codes):
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["a"] = codes
    frame["y"] = y.astype(float)
    return BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])


# --------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1_000, 6_172, 1_000_000])
    parser.add_argument("--write", action="store_true", help="append to benchmarks/RESULTS.md")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-real", action="store_true")
    args = parser.parse_args()
    lines = []
    load = os.getloadavg()
    if not args.skip_speed:
        lines += [
            f"Speed, {N_COLUMNS} numeric columns, 4 groups; CPU seconds with BLAS on one thread: "
            f"below 10^5 rows the median of {SMALL_ROUNDS} interleaved rounds, from 10^5 rows "
            "the minimum over repeated calls (skfair 3, peers 1).",
            "",
            "| n | task | skfair s | peer s | peer / skfair | check |",
            "|---:|---|---:|---:|---:|---|",
        ]
        for n in args.n:
            with threadpool_limits(1):
                rows = speed(n)
            for task, ours, theirs, check in rows:
                lines.append(
                    f"| {n:,} | {task} | {ours:.4f} | {theirs:.4f} | **{theirs / ours:.1f}x** "
                    f"| {check} |"
                )
        lines.append("")
    if not args.skip_real:
        lines += real_data_lines()
    load_after = os.getloadavg()
    lines.append("")
    lines.append(
        f"Load average (1, 5, 15 min) at the start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}, "
        f"at the end {load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f}; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"NumPy {np.__version__}."
    )
    text = "\n".join(lines)
    print(text)
    if args.write:
        results = ROOT / "benchmarks" / "RESULTS.md"
        sizes = " ".join(str(n) for n in args.n)
        skip = " --skip-real" if args.skip_real else ""
        command = (
            f"PYTHONPATH=. nice python benchmarks/bench_preprocessing.py --n {sizes}{skip} --write"
        )
        with open(results, "a") as stream:
            stream.write(f"\n## preprocessing\n\nCommand: `{command}`.\n\n{text}\n")


def real_data_lines():
    header = [
        "Real data: logistic regression trained on each version of the training rows; "
        "test rows repaired alike; |DP gap| = largest selection-rate difference between the "
        "attribute's groups on the test rows.",
        "",
        "| data | training data | abs DP gap | accuracy |",
        "|---|---|---:|---:|",
    ]
    return header + [
        f"| {data} | {method} | {gap:.4f} | {accuracy:.4f} |"
        for data, method, gap, accuracy in real_data_rows()
    ]


if __name__ == "__main__":
    main()
