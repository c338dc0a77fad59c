"""Bootstrap ensembles on Adult: fit time with n_jobs=1 and 2, and agreement with Virny.

1. Time of fitting 50 bootstrap replicas (80 % of the rows, drawn with replacement) of a
   LogisticRegression and of a HistGradientBoostingClassifier on Adult's 32,561 training rows,
   with ``n_jobs=1`` and ``n_jobs=2``, side by side with scikit-learn's ``BaggingClassifier``
   doing the same work (``max_samples=0.8, bootstrap=True``), plus the time of
   ``uncertainty`` on Adult's 16,281 test rows. The member outputs for ``n_jobs=1`` and
   ``n_jobs=2`` must agree to 1e-6 (same rows and seeds; only the BLAS/OpenMP thread counts,
   hence the floating-point summation order, differ).
2. Agreement with Virny 0.6.0: the members' class-0 probabilities on the test rows are fed to
   Virny's own ``count_prediction_metrics`` for the dis (Female) and priv (Male) groups, and
   Virny's composed differences (``Label_Stability``, ``Aleatoric_Uncertainty``,
   ``Epistemic_Uncertainty``, ``Overall_Uncertainty``; dis - priv) are compared with skfair's
   to 1e-12. Virny's full dependency set (gradio, altair, folktables, aif360, ...) is not
   reasonable for a benchmark, so Virny is installed without its dependencies
   (``pip install --no-deps virny==0.6.0``) and only its metric modules, which need numpy,
   pandas and scipy, are loaded. Without Virny this part is skipped with a message.

Run from the repository root::

    nice -n 10 python benchmarks/bench_ensemble.py [--n-estimators 50]

Prints a markdown table for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys
import time

import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.ensemble import BaggingClassifier, HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
from threadpoolctl import threadpool_limits

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skfair.ensemble import BootstrapEnsemble  # noqa: E402
from skfair.metrics import (  # noqa: E402
    aleatoric_uncertainty_difference,
    epistemic_uncertainty_difference,
    label_stability_difference,
)

DATA = ROOT / "skfair" / "datasets" / "data"
TARGET = "income-per-year"


def load_adult():
    """Adult train and test frames (read directly until skfair.datasets.load_adult lands)."""
    train = pd.read_csv(DATA / "adult.csv.gz", skipinitialspace=True)
    test = pd.read_csv(DATA / "adult_test.csv.gz", skipinitialspace=True)
    return train, test


def encode(train, test, *, for_trees):
    """Numeric design matrices: one-hot + scaled for LR, ordinal codes for gradient boosting."""
    features = [c for c in train.columns if c != TARGET]
    categorical = [c for c in features if not pd.api.types.is_numeric_dtype(train[c])]
    numeric = [c for c in features if c not in categorical]
    if for_trees:
        categories = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
    else:
        categories = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    transformer = make_column_transformer(
        (categories, categorical), (StandardScaler(), numeric), sparse_threshold=0
    )
    X_train = transformer.fit_transform(train[features])
    X_test = transformer.transform(test[features])
    y_train = (train[TARGET].str.strip() == ">50K").to_numpy(int)
    y_test = (test[TARGET].str.strip().str.rstrip(".") == ">50K").to_numpy(int)
    is_categorical = np.arange(X_train.shape[1]) < len(categorical)
    return X_train, y_train, X_test, y_test, is_categorical


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def time_models(n_estimators, train, test):
    # One BLAS/OpenMP thread per process: joblib's workers get this by default
    # (cpu_count // n_jobs), and doing the same in the main process makes the n_jobs=2
    # speed-up measure joblib's parallelism rather than thread oversubscription, which on a
    # loaded 2-core machine makes 2-thread OpenMP/BLAS runs many times slower.
    with threadpool_limits(limits=1):
        return _time_models(n_estimators, train, test)


def _time_models(n_estimators, train, test):
    rows = []
    member_outputs, samples = {}, {}
    # Start joblib's workers and import scikit-learn and skfair in them before timing, so that
    # neither side pays for it.
    X_small, y_small = encode(train[:500], test[:10], for_trees=False)[:2]
    BootstrapEnsemble(LogisticRegression(), n_estimators=4, n_jobs=2).fit(X_small, y_small)
    BaggingClassifier(LogisticRegression(), n_estimators=4, n_jobs=2).fit(X_small, y_small)
    for name, for_trees in [("LogisticRegression", False), ("HistGradientBoosting", True)]:
        X_train, y_train, X_test, _, is_categorical = encode(train, test, for_trees=for_trees)
        if for_trees:
            base = HistGradientBoostingClassifier(categorical_features=is_categorical)
        else:
            base = LogisticRegression(max_iter=1000)
        for n_jobs in (1, 2):
            ours = BootstrapEnsemble(base, n_estimators=n_estimators, random_state=0, n_jobs=n_jobs)
            fit_time, _ = timed(ours.fit, X_train, y_train)
            uq_time, _ = timed(ours.uncertainty, X_test)
            member_outputs[name, n_jobs] = ours.predict_proba_members(X_test)
            samples.setdefault(name, {})[n_jobs] = ours.estimators_samples_
            bagging = BaggingClassifier(
                base,
                n_estimators=n_estimators,
                max_samples=0.8,
                bootstrap=True,
                random_state=0,
                n_jobs=n_jobs,
            )
            bagging_time, _ = timed(bagging.fit, X_train, y_train)
            rows.append((name, n_jobs, fit_time, bagging_time, uq_time))
            print(
                f"{name:22s} n_jobs={n_jobs}: skfair fit {fit_time:7.2f} s, "
                f"BaggingClassifier fit {bagging_time:7.2f} s, uncertainty {uq_time:5.2f} s",
                flush=True,
            )
        # Same bootstrap rows and seeds; only the BLAS/OpenMP thread counts differ between the
        # two runs, which changes the floating-point summation order, hence the solver's path
        # within its tolerance (lbfgs tol=1e-4).
        assert all(np.array_equal(a, b) for a, b in zip(*samples[name].values(), strict=True)), (
            "n_jobs changed the bootstrap rows"
        )
        gap = np.abs(member_outputs[name, 1] - member_outputs[name, 2]).max()
        print(f"{name:22s} max |proba(n_jobs=1) - proba(n_jobs=2)| = {gap:.1e}", flush=True)
        assert gap <= 1e-4, "n_jobs changed the members"
    return rows, member_outputs


def load_virny():
    """Virny's stability_utils module, without importing virny.utils (which needs altair)."""
    try:
        import virny
    except ImportError:
        return None
    path = pathlib.Path(virny.__file__).parent / "utils" / "stability_utils.py"
    spec = importlib.util.spec_from_file_location("virny_stability_utils", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def virny_differences(virny, y_true, positive_proba, dis):
    """Virny's composed dis - priv differences, from its count_prediction_metrics."""
    metrics = {}
    for name, mask in (("dis", dis), ("priv", ~dis)):
        # Virny stores the class-0 probability of each member: rows members, columns samples.
        class0 = 1 - positive_proba[:, mask]
        _, metrics[name] = virny.count_prediction_metrics(
            pd.Series(y_true[mask]).reset_index(drop=True), class0
        )
    keys = (
        "Label_Stability",
        "Aleatoric_Uncertainty",
        "Epistemic_Uncertainty",
        "Overall_Uncertainty",
    )
    return {key: metrics["dis"][key] - metrics["priv"][key] for key in keys}


def skfair_differences(y_true, positive_proba, sex):
    kwargs = dict(sensitive_features=sex, privileged_group="Male")
    labels = (positive_proba > 0.5).astype(int)  # Virny's member labels, p = 0.5 -> 0
    aleatoric = aleatoric_uncertainty_difference(y_true, positive_proba, **kwargs)
    epistemic = epistemic_uncertainty_difference(y_true, positive_proba, **kwargs)
    return {
        "Label_Stability": label_stability_difference(y_true, labels, **kwargs),
        "Aleatoric_Uncertainty": aleatoric,
        "Epistemic_Uncertainty": epistemic,
        "Overall_Uncertainty": aleatoric + epistemic,
    }


def check_virny(member_outputs, test):
    virny = load_virny()
    if virny is None:
        print(
            "Virny agreement skipped: virny is not installed (pip install --no-deps virny==0.6.0)."
        )
        return []
    rows = []
    # A small table: 4 members, samples 0-2 dis, 3-5 priv, and its differences computed by
    # hand from Virny's definitions.
    r1 = np.array(
        [
            [0.9, 0.8, 0.7, 0.6],
            [0.6, 0.4, 0.7, 0.3],
            [0.5, 0.2, 0.1, 0.55],
            [0.0, 0.0, 0.0, 0.0],
            [1.0, 0.9, 0.95, 0.99],
            [0.3, 0.35, 0.25, 0.4],
        ]
    ).T
    r1_sex = np.array(["Female"] * 3 + ["Male"] * 3)
    r1_y = np.array([1, 0, 1, 0, 1, 0])
    by_hand = {
        "Label_Stability": -0.5,
        "Aleatoric_Uncertainty": 0.458131,
        "Epistemic_Uncertainty": 0.069088,
        "Overall_Uncertainty": 0.527219,
    }
    ours = skfair_differences(r1_y, r1, r1_sex)
    theirs = virny_differences(virny, r1_y, r1, r1_sex == "Female")
    for key in ours:
        error = abs(ours[key] - theirs[key])
        rows.append(("R1 table", key, ours[key], theirs[key], error))
        assert error <= 1e-12 and abs(theirs[key] - by_hand[key]) <= 1e-6, key
    sex = test["sex"].str.strip().to_numpy()
    y_true = (test[TARGET].str.strip().str.rstrip(".") == ">50K").to_numpy(int)
    for (name, n_jobs), proba in member_outputs.items():
        if n_jobs != 1:
            continue
        positive = proba[:, :, 1]
        ours = skfair_differences(y_true, positive, sex)
        theirs = virny_differences(virny, y_true, positive, sex == "Female")
        for key in ours:
            error = abs(ours[key] - theirs[key])
            rows.append((name, key, ours[key], theirs[key], error))
            assert error <= 1e-12, (name, key, ours[key], theirs[key])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-estimators", type=int, default=50)
    args = parser.parse_args()
    train, test = load_adult()
    print(
        f"Adult: {len(train)} training rows, {len(test)} test rows; "
        f"{args.n_estimators} members of 80 % of the rows.",
        flush=True,
    )
    rows, member_outputs = time_models(args.n_estimators, train, test)
    agreement = check_virny(member_outputs, test)

    print(
        "\n| model | n_jobs | skfair fit (s) | BaggingClassifier fit (s) | skfair / Bagging | "
        "speed-up n_jobs=2 | uncertainty on 16,281 rows (s) |"
    )
    print("|---|---|---|---|---|---|---|")
    single = {name: fit for name, n_jobs, fit, _, _ in rows if n_jobs == 1}
    for name, n_jobs, fit, bagging, uq in rows:
        print(
            f"| {name} | {n_jobs} | {fit:.2f} | {bagging:.2f} | {fit / bagging:.2f} | "
            f"{single[name] / fit:.2f}x | {uq:.2f} |"
        )
    if agreement:
        print("\n| model | Virny metric (dis - priv) | skfair | Virny 0.6.0 | abs. difference |")
        print("|---|---|---|---|---|")
        for name, key, ours, theirs, error in agreement:
            print(f"| {name} | {key}_Difference | {ours:.12f} | {theirs:.12f} | {error:.1e} |")


if __name__ == "__main__":
    main()
