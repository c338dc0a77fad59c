"""The tests of objective="gap" on synthetic data where the truth is known: planted
subgroups are found, the false discovery rate stays at most alpha, and under the global null
discoveries appear in about alpha of the replicates."""

import numpy as np
import pytest

from skfair.subgroups import find_subgroups

N, REPLICATES, ALPHA = 4000, 20, 0.05
PLANTED = ((("c0", "a"), ("c1", "b")), (("c2", "x"), ("c3", "y")))


def _replicate(seed, planted):
    """Features, labels, predictions and each row's probability of a positive prediction
    when negative (the true false positive rate of the row)."""
    rng = np.random.default_rng(seed)
    features = {
        "c0": rng.choice(["a", "b", "c"], N),
        "c1": rng.choice(["a", "b", "c", "d"], N),
        "c2": rng.choice(["x", "y", "z"], N),
        "c3": rng.choice(["x", "y"], N),
        "c4": rng.choice(["u", "v", "w"], N),
    }
    fpr = np.full(N, 0.1)
    if planted:
        for conditions in PLANTED:
            inside = np.logical_and.reduce([features[c] == v for c, v in conditions])
            fpr[inside] = 0.3
    y_true = (rng.random(N) < 0.5).astype(int)
    positive = np.where(y_true == 1, rng.random(N) < 0.8, rng.random(N) < fpr)
    return features, y_true, positive.astype(int), fpr


def _discoveries(seed, planted):
    features, y_true, y_pred, fpr = _replicate(seed, planted)
    report = find_subgroups(
        y_true,
        y_pred,
        features=features,
        metric="false_positive_rate",
        max_level=2,
        min_support=30,
        k=100_000,
        alpha=ALPHA,
    )
    negatives = y_true == 0
    found, false = set(), 0
    significant = [i for i, r in enumerate(report.subgroups) if r["significant"]]
    for i in significant:
        mask = report.mask(i)
        true_gap = fpr[mask & negatives].mean() - fpr[~mask & negatives].mean()
        false += true_gap <= 0
        found.add(report.subgroups[i]["conditions"])
    return len(significant), false, found


@pytest.fixture(scope="module")
def planted_runs():
    return [_discoveries(seed, planted=True) for seed in range(REPLICATES)]


def test_planted_subgroups_are_found(planted_runs):
    for conditions in PLANTED:
        hits = sum(conditions in found for _, _, found in planted_runs)
        assert hits >= 0.8 * REPLICATES, (conditions, hits)


def test_false_discovery_rate_is_at_most_alpha(planted_runs):
    proportions = [false / max(total, 1) for total, false, _ in planted_runs]
    assert np.mean(proportions) <= ALPHA


def test_global_null_gives_discoveries_in_about_alpha_of_the_replicates():
    any_discovery = [_discoveries(seed, planted=False)[0] > 0 for seed in range(REPLICATES)]
    # about alpha * 20 = 1 replicate expected; 4 or more has probability 1.6 %
    assert sum(any_discovery) <= 3
