"""The MDSS objective: each coordinate step is exact, the scan reaches the optimum of a brute
force over every conjunction of value sets on small data, and the score is the Bernoulli
scan statistic of Zhang & Neill (2016) with aif360's conventions."""

import itertools

import numpy as np
import pytest
from scipy import optimize

from skfair.subgroups import find_subgroups
from skfair.subgroups._mdss import _Rows, best_values

LOW, HIGH = np.log(1e-3), np.log(1e3)


def penalised_score(y, p, positive, n_values, penalty):
    """max over log q in [log 1e-3, log 1e3] (one side of 0) of the statistic, by scipy."""
    if y.shape[0] == 0:
        return -penalty * n_values

    def negative(t):
        return -(y.sum() * t - np.sum(np.log1p(np.expm1(t) * p)))

    bounds = (0.0, HIGH) if positive else (LOW, 0.0)
    result = optimize.minimize_scalar(
        negative, bounds=bounds, method="bounded", options={"xatol": 1e-12}
    )
    best = min(result.fun, negative(bounds[0]), negative(bounds[1]))
    return -best - penalty * n_values


def _rows(seed, n=400, n_values=5):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_values, n)
    p = rng.uniform(0.05, 0.95, n)
    lift = np.array([0.5, 1.0, 1.8, 1.0, 0.7])[:n_values][codes]
    y = (rng.random(n) < p * lift / (1 - p + p * lift)).astype(float)
    return codes, p, y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("positive", [True, False])
@pytest.mark.parametrize("penalty", [0.0, 1e-17, 0.5, 3.0])
def test_one_step_is_the_best_subset_of_values(seed, positive, penalty):
    codes, p, y = _rows(seed)
    values, score, fit = best_values(_Rows(y, p, np.ones_like(p)), codes, 5, positive, penalty)
    best = penalised_score(y, p, positive, 0, 0.0)  # every value, unconstrained
    for size in range(1, 6):
        for subset in itertools.combinations(range(5), size):
            inside = np.isin(codes, subset)
            best = max(best, penalised_score(y[inside], p[inside], positive, size, penalty))
    np.testing.assert_allclose(score, best, rtol=1e-9, atol=1e-9)
    inside = np.ones(codes.shape[0], dtype=bool) if values is None else np.isin(codes, values)
    n_values = 0 if values is None else len(values)
    # ``fit``: the unpenalised F of the rows kept, which the scan penalises for the whole subset.
    np.testing.assert_allclose(
        penalised_score(y[inside], p[inside], positive, 0, 0.0), fit, rtol=1e-9, atol=1e-9
    )
    if values is not None:
        np.testing.assert_allclose(
            penalised_score(y[inside], p[inside], positive, n_values, penalty),
            score,
            rtol=1e-9,
            atol=1e-9,
        )


def _planted(seed, n=3000):
    rng = np.random.default_rng(seed)
    features = {
        "a": rng.choice(["x", "y", "z"], n),
        "b": rng.choice(["p", "q"], n),
        "c": rng.choice(["u", "v", "w"], n),
    }
    p = rng.uniform(0.1, 0.9, n)
    over = np.isin(features["a"], ["x", "y"]) & (features["c"] == "u")
    odds = np.where(over, 0.4, 1.0)
    y = (rng.random(n) < p * odds / (1 - p + p * odds)).astype(int)
    return features, y, p


def _brute_force(features, y, p, positive, penalty):
    """The best conjunction of value sets (each column unconstrained or a proper subset)."""
    names = list(features)
    options = []
    for name in names:
        values = sorted(set(features[name].tolist()))
        subsets = [None] + [
            s for size in range(1, len(values)) for s in itertools.combinations(values, size)
        ]
        options.append(subsets)
    best = -np.inf
    for choice in itertools.product(*options):
        inside = np.ones(y.shape[0], dtype=bool)
        n_values = 0
        for name, subset in zip(names, choice):
            if subset is not None:
                inside &= np.isin(features[name], subset)
                n_values += len(subset)
        best = max(
            best, penalised_score(y[inside].astype(float), p[inside], positive, n_values, penalty)
        )
    return best


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("penalty", [1e-17, 1.0])
def test_scan_reaches_the_brute_force_optimum(seed, penalty):
    features, y, p = _planted(seed)
    report = find_subgroups(
        y,
        None,
        features=features,
        objective="mdss",
        y_score=p,
        direction="lower",
        penalty=penalty,
        n_restarts=5,
        random_state=0,
    )
    expected = _brute_force(features, y, p, False, penalty)
    np.testing.assert_allclose(report.subgroups[0]["score"], expected, rtol=1e-9)


def test_records_describe_the_subset_and_its_rates():
    features, y, p = _planted(0)
    report = find_subgroups(
        y,
        None,
        features=features,
        objective="mdss",
        y_score=p,
        direction="lower",
        penalty=1.0,
        n_restarts=3,
        random_state=0,
        k=3,
    )
    top = report.subgroups[0]
    assert top["conditions"] == (("a", ("x", "y")), ("c", ("u",)))
    assert top["description"] == "a in {x, y} & c in {u}"
    mask = report.mask(0)
    np.testing.assert_array_equal(mask, np.isin(features["a"], ["x", "y"]) & (features["c"] == "u"))
    assert top["n"] == mask.sum()
    np.testing.assert_allclose(top["value"], y[mask].mean())
    np.testing.assert_allclose(top["rest_value"], y[~mask].mean())
    np.testing.assert_allclose(
        top["score"], penalised_score(y[mask].astype(float), p[mask], False, 3, 1.0), rtol=1e-9
    )
    assert np.isnan(top["p_value"]) and not top["significant"]
    scores = [r["score"] for r in report.subgroups]
    assert scores == sorted(scores, reverse=True)
    assert len({r["description"] for r in report.subgroups}) == len(report.subgroups)


def test_both_directions_keep_the_better_subset():
    features, y, p = _planted(1)
    lower = find_subgroups(
        y, None, features=features, objective="mdss", y_score=p, direction="lower", random_state=0
    )
    higher = find_subgroups(
        y, None, features=features, objective="mdss", y_score=p, direction="higher", random_state=0
    )
    both = find_subgroups(
        y, None, features=features, objective="mdss", y_score=p, direction="both", random_state=0
    )
    best = max(lower.subgroups[0]["score"], higher.subgroups[0]["score"])
    np.testing.assert_allclose(both.subgroups[0]["score"], best)


def test_weights_are_repeated_rows():
    features, y, p = _planted(2, n=800)
    rng = np.random.default_rng(0)
    w = rng.integers(1, 4, y.shape[0])
    repeated = {name: np.repeat(values, w) for name, values in features.items()}
    a = find_subgroups(
        y,
        None,
        features=features,
        objective="mdss",
        y_score=p,
        direction="lower",
        sample_weight=w,
        random_state=0,
        n_restarts=3,
    )
    b = find_subgroups(
        np.repeat(y, w),
        None,
        features=repeated,
        objective="mdss",
        y_score=np.repeat(p, w),
        direction="lower",
        random_state=0,
        n_restarts=3,
    )
    np.testing.assert_allclose(a.subgroups[0]["score"], b.subgroups[0]["score"], rtol=1e-9)
    assert a.subgroups[0]["conditions"] == b.subgroups[0]["conditions"]
