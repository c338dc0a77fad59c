"""The game's guarantees, checked on the members' predictions with an independent groupby,
against a brute-force optimum over all threshold classifiers, and by invariance properties."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, LogisticRegression

from skfair.reductions import ExponentiatedGradient, GridSearch

from .conftest import BestThreshold, threshold_predictions

RATE_CONSTRAINTS = {
    # constraint -> list of (event on y or None, outcome) compared between groups
    "demographic_parity": [(None, "positive")],
    "true_positive_rate_parity": [(1, "positive")],
    "false_positive_rate_parity": [(0, "positive")],
    "equalized_odds": [(1, "positive"), (0, "positive")],
    "error_rate_parity": [(None, "error")],
}


def mixture_decisions(model, X_model):
    """P(prediction = classes_[k]) of every row under the randomised mixture, (n, K)."""
    probability = np.zeros((X_model.shape[0], len(model.classes_)))
    for weight, member in zip(model.weights_, model.predictors_):
        if weight > 0:
            predicted = np.asarray(member.predict(X_model))
            probability += weight * (predicted[:, None] == model.classes_[None])
    return probability


def groupby_rates(p_positive, y, groups, constraint, weights=None):
    """Per-group rates of the mixture, by a pandas groupby: {(event, outcome): Series}."""
    frame = pd.DataFrame(
        {
            "p": p_positive,
            "err": np.where(y == 1, 1 - p_positive, p_positive),
            "y": y,
            "w": np.ones(len(y)) if weights is None else weights,
        }
    )
    frame["g"] = list(map(str, groups)) if np.ndim(groups) == 1 else [str(tuple(r)) for r in groups]
    rates = {}
    for event, outcome in RATE_CONSTRAINTS[constraint]:
        part = frame if event is None else frame[frame.y == event]
        column = "p" if outcome == "positive" else "err"
        sums = part.assign(v=part[column] * part.w).groupby("g")[["v", "w"]].sum()
        rates[(event, outcome)] = sums.v / sums.w
    return rates


def worst_difference(rates):
    return max(series.max() - series.min() for series in rates.values())


def worst_ratio(rates):
    return min(series.min() / series.max() for series in rates.values())


@pytest.mark.parametrize("constraint", sorted(RATE_CONSTRAINTS))
@pytest.mark.parametrize("eps", [0.02, 0.08])
def test_mixture_meets_the_bound_by_an_independent_groupby(two_groups, constraint, eps):
    X, y, group = two_groups
    model = ExponentiatedGradient(LogisticRegression(), constraint=constraint, eps=eps)
    model.fit(X[:, :2], y, sensitive_features=group)
    p = mixture_decisions(model, X[:, :2])[:, 1]
    gap = worst_difference(groupby_rates(p, y, group, constraint))
    # Theorem 1's slack, and the exact bound of the constrained mixture returned.
    slack = (1 + 2 * model.best_gap_) * eps
    assert gap <= eps + slack
    assert gap <= eps + 1e-7
    assert model.mixture_gap_ == pytest.approx(gap, abs=1e-9)
    unconstrained = LogisticRegression().fit(X[:, :2], y).predict(X[:, :2])
    assert worst_difference(groupby_rates(unconstrained, y, group, constraint)) > eps


@pytest.mark.parametrize("constraint", ["demographic_parity", "equalized_odds"])
def test_ratio_bound(two_groups, constraint):
    X, y, group = two_groups
    model = ExponentiatedGradient(
        LogisticRegression(), constraint=constraint, eps=0.2, disparity="ratio"
    ).fit(X[:, :2], y, sensitive_features=group)
    p = mixture_decisions(model, X[:, :2])[:, 1]
    ratio = worst_ratio(groupby_rates(p, y, group, constraint))
    assert ratio >= 0.8 - 1e-7
    assert model.mixture_gap_ == pytest.approx(1 - ratio, abs=1e-9)


def test_intersections_and_privileged_group(three_groups):
    X, y, group, sex = three_groups
    sensitive = np.c_[group, sex]
    model = ExponentiatedGradient(LogisticRegression(), eps=0.03)
    model.fit(X[:, :2], y, sensitive_features=sensitive)
    p = mixture_decisions(model, X[:, :2])[:, 1]
    assert len(model.groups_) == 6
    assert worst_difference(groupby_rates(p, y, sensitive, "demographic_parity")) <= 0.03 + 1e-7
    # privileged_group: the disadvantaged samples pooled against the privileged group(s)
    model = ExponentiatedGradient(LogisticRegression(), eps=0.01, privileged_group=[2])
    model.fit(X[:, :2], y, sensitive_features=group)
    p = mixture_decisions(model, X[:, :2])[:, 1]
    side = np.where(group == 2, "privileged", "disadvantaged")
    rates = groupby_rates(p, y, side, "demographic_parity")[(None, "positive")]
    assert abs(rates["disadvantaged"] - rates["privileged"]) <= 0.01 + 1e-7
    # "each": every other group on its own against the privileged one
    model.set_params(disadvantaged="each").fit(X[:, :2], y, sensitive_features=group)
    p = mixture_decisions(model, X[:, :2])[:, 1]
    rates = groupby_rates(p, y, group, "demographic_parity")[(None, "positive")]
    assert (rates.drop("2") - rates["2"]).abs().max() <= 0.01 + 1e-7


@pytest.mark.parametrize("constraint", ["demographic_parity", "equalized_odds"])
def test_multiclass_bounds_u_dp_and_u_eo(constraint):
    rng = np.random.default_rng(3)
    n = 1500
    group = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=n) + group, rng.normal(size=n)]
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=n), [0.0, 1.0])  # 3 classes
    model = ExponentiatedGradient(LogisticRegression(), constraint=constraint, eps=0.05)
    model.fit(X, y, sensitive_features=group)
    decisions = mixture_decisions(model, X)
    frame = pd.DataFrame(decisions, columns=[f"p{k}" for k in range(3)])
    frame["g"], frame["y"] = group, y
    strata = [None] if constraint == "demographic_parity" else [0, 1, 2]
    worst = 0.0
    for stratum in strata:  # U_DP / U_EO: every group against the population, class by class
        part = frame if stratum is None else frame[frame.y == stratum]
        by_group = part.groupby("g")[["p0", "p1", "p2"]].mean()
        population = part[["p0", "p1", "p2"]].mean()
        worst = max(worst, (by_group - population).abs().to_numpy().max())
    assert worst <= 0.05 + 1e-7
    assert model.mixture_gap_ == pytest.approx(worst, abs=1e-9)


def test_bounded_group_loss_by_groupby():
    rng = np.random.default_rng(4)
    n = 1200
    group = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=n), rng.normal(size=n)]
    y = X[:, 0] + (1 + 2 * group) * rng.normal(size=n)  # group 1 is harder to predict
    unconstrained = LinearRegression().fit(X, y).predict(X)
    hard = group == 1
    alone = LinearRegression().fit(X[hard], y[hard]).predict(X[hard])
    # between the hard group's loss without constraint and its least reachable loss
    eps = float(np.mean((unconstrained[hard] - y[hard]) ** 2) + np.mean((alone - y[hard]) ** 2)) / 2
    model = ExponentiatedGradient(LinearRegression(), constraint="bounded_group_loss", eps=eps)
    model.fit(X, y, sensitive_features=group)
    expected_loss = sum(
        weight * (member.predict(X) - y) ** 2
        for weight, member in zip(model.weights_, model.predictors_)
    )
    assert pd.Series(expected_loss).groupby(group).mean().max() <= eps + 1e-7
    # the deterministic prediction (mean of the members) has no larger group loss (Jensen)
    deterministic = pd.Series((model.predict(X) - y) ** 2).groupby(group).mean()
    assert deterministic.max() <= eps + 1e-7


# --------------------------------------------------------------------------------------------
# against a brute-force optimum


def best_mixture(predictions, y, group, eps):
    """The least error of a mixture of the given classifiers with a DP gap <= eps (LP)."""
    errors = (predictions != y).mean(axis=1)
    rates = np.stack([predictions[:, group == g].mean(axis=1) for g in (0, 1)], axis=1)
    difference = rates[:, 0] - rates[:, 1]
    result = linprog(
        errors,
        A_ub=np.vstack([difference, -difference]),
        b_ub=[eps, eps],
        A_eq=np.ones((1, len(errors))),
        b_eq=[1.0],
        bounds=(0, None),
        method="highs",
    )
    return result.fun


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), eps=st.sampled_from([0.0, 0.05, 0.15]))
def test_objective_within_the_papers_bound_of_the_best_mixture(seed, eps):
    rng = np.random.default_rng(seed)
    n = 24
    group = rng.integers(0, 2, n)
    group[:2] = [0, 1]
    x = rng.normal(size=n) + group
    y = (x + rng.normal(size=n) > 0.5).astype(int)
    y[:2] = [0, 1]
    model = ExponentiatedGradient(BestThreshold(), eps=eps, nu=1e-4)
    model.fit(x[:, None], y, sensitive_features=group)
    optimum = best_mixture(threshold_predictions(x), y, group, eps)
    # Theorem 1: within 2 * gap of the best mixture; never below it (the mixture is feasible).
    assert model.mixture_objective_ <= optimum + 2 * model.best_gap_ + 1e-9
    assert model.mixture_objective_ >= optimum - 1e-9
    assert model.mixture_gap_ <= eps + 1e-7


# --------------------------------------------------------------------------------------------
# properties


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_integer_weights_are_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    n = 30
    group = rng.integers(0, 2, n)
    group[:2] = [0, 1]
    x = rng.normal(size=n) + group
    y = (x + rng.normal(size=n) > 0.5).astype(int)
    y[:2] = [0, 1]
    weights = rng.integers(1, 4, n)
    repeated = np.repeat(np.arange(n), weights)
    model = ExponentiatedGradient(BestThreshold(), eps=0.05)
    weighted = model.fit(x[:, None], y, sample_weight=weights, sensitive_features=group)
    proba_weighted = weighted.predict_proba(x[:, None])
    copied = ExponentiatedGradient(BestThreshold(), eps=0.05)
    copied.fit(x[repeated, None], y[repeated], sensitive_features=group[repeated])
    np.testing.assert_allclose(copied.predict_proba(x[:, None]), proba_weighted, atol=1e-9)
    assert copied.mixture_objective_ == pytest.approx(weighted.mixture_objective_)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_large_eps_is_the_unconstrained_learner(seed):
    rng = np.random.default_rng(seed)
    n = 200
    group = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=n) + group, rng.normal(size=n)]
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    plain = LogisticRegression().fit(X, y)
    for model in (
        ExponentiatedGradient(LogisticRegression(), eps=1.0),
        GridSearch(LogisticRegression(), eps=1.0, grid_size=3),
    ):
        model.fit(X, y, sensitive_features=group)
        np.testing.assert_allclose(model.predict_member_proba(X), plain.predict_proba(X))
        np.testing.assert_array_equal(model.predict(X), plain.predict(X))
        np.testing.assert_array_equal(
            model.predict_proba(X), plain.predict(X)[:, None] == model.classes_
        )


def test_exponentiated_gradient_update_meets_the_bound_too(two_groups):
    """Algorithm 1's multiplier update: the same bound, a certified gap, more fits."""
    X, y, group = two_groups
    fits = {}
    for update in ("linprog", "exponentiated_gradient"):
        model = ExponentiatedGradient(
            LogisticRegression(), eps=0.03, multiplier_update=update, max_iter=30
        ).fit(X[:, :2], y, sensitive_features=group)
        p = mixture_decisions(model, X[:, :2])[:, 1]
        assert worst_difference(groupby_rates(p, y, group, "demographic_parity")) <= 0.03 + 1e-7
        fits[update] = model
    linprog, gradient = fits["linprog"], fits["exponentiated_gradient"]
    assert linprog.best_gap_ <= linprog.nu_
    assert linprog.n_fits_ < gradient.n_fits_
    # the gradient run is within its certified gap of the linprog run's objective
    assert gradient.mixture_objective_ <= linprog.mixture_objective_ + 2 * gradient.best_gap_ + 1e-9


def test_grid_search_moves_every_group_when_the_smallest_is_the_first():
    """Regression: with three groups the grid's axes compared each group with the first
    one in the canonical order, the smallest; the multipliers, scaled to flip that small
    group's labels, hardly pulled the two large groups, whose rates stay 0.4 apart at every
    grid point (Bank marketing by age group: 115, 557 and 30,970 rows). Against the
    heaviest group, a grid point meets the bound, checked by an independent groupby."""
    rng = np.random.default_rng(0)
    sizes = {"tiny": 60, "mid": 500, "large": 3000}
    shift = {"tiny": 0.5, "mid": 1.5, "large": 0.0}
    group = np.repeat(list(sizes), list(sizes.values()))
    x = rng.normal(size=group.size) + np.array([shift[g] for g in group])
    y = (x + 2.0 * rng.normal(size=group.size) > 1.0).astype(int)
    X = np.c_[x, group[:, None] == np.array(list(sizes))]
    unconstrained = LogisticRegression().fit(X, y).predict(X)
    assert worst_difference(groupby_rates(unconstrained, y, group, "demographic_parity")) > 0.4

    search = GridSearch(LogisticRegression(), eps=0.1).fit(X, y, sensitive_features=group)

    gap = worst_difference(groupby_rates(search.predict(X), y, group, "demographic_parity"))
    assert gap <= 0.1
    assert search.constraint_gap_ == pytest.approx(gap)


# --------------------------------------------------------------------------------------------
# what users get: the default decisions


def grouped_data(seed, n_groups, n=4000):
    """Groups of at least 10 % of the rows whose features and labels differ."""
    rng = np.random.default_rng(seed)
    shares = rng.dirichlet(np.full(n_groups, 4.0)) * (1 - 0.1 * n_groups) + 0.1
    group = rng.choice(n_groups, n, p=shares / shares.sum())
    shift = rng.normal(size=n_groups)
    X = np.c_[rng.normal(size=n) + shift[group], rng.normal(size=n)]
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0.3).astype(int)
    return X, y, group


def check_default_predict_keeps_the_bound(seed, n_groups, constraint, eps):
    """The decisions predict returns by default, graded by an independent groupby on the
    fitting rows: their disparity, averaged over the random states, within eps + 0.01, and
    equal to constraint_gap_ (with objective_ their error); the group means of predict_proba
    (the probabilities of those decisions) within eps, and equal to mixture_gap_."""
    X, y, group = grouped_data(seed, n_groups)
    realised = []
    for random_state in range(3):
        model = ExponentiatedGradient(
            LogisticRegression(), constraint=constraint, eps=eps, random_state=random_state
        ).fit(X, y, sensitive_features=group)
        y_pred = model.predict(X)
        decisions = (y_pred == 1).astype(float)
        realised.append(worst_difference(groupby_rates(decisions, y, group, constraint)))
        assert model.constraint_gap_ == pytest.approx(realised[-1], abs=1e-9)
        assert model.objective_ == pytest.approx(np.mean(y_pred != y), abs=1e-9)
        expected = worst_difference(
            groupby_rates(model.predict_proba(X)[:, 1], y, group, constraint)
        )
        assert expected <= eps + 1e-7
        assert model.mixture_gap_ == pytest.approx(expected, abs=1e-9)
    assert np.mean(realised) <= eps + 0.01


@pytest.mark.parametrize(
    "seed, n_groups, constraint, eps",
    [(0, 2, "demographic_parity", 0.02), (1, 3, "equalized_odds", 0.05)],
)
def test_default_predict_keeps_the_bound_on_the_fitting_rows(seed, n_groups, constraint, eps):
    check_default_predict_keeps_the_bound(seed, n_groups, constraint, eps)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_groups=st.integers(2, 5),
    constraint=st.sampled_from(["demographic_parity", "equalized_odds"]),
    eps=st.sampled_from([0.02, 0.05]),
)
def test_default_predict_keeps_the_bound_for_any_groups(seed, n_groups, constraint, eps):
    check_default_predict_keeps_the_bound(seed, n_groups, constraint, eps)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_groups=st.integers(3, 5),
    constraint=st.sampled_from(["demographic_parity", "equalized_odds"]),
    cls=st.sampled_from([ExponentiatedGradient, GridSearch]),
)
def test_relabelled_and_reordered_groups_give_the_same_model(seed, n_groups, constraint, cls):
    """Renaming the groups (so that their sorted order changes) changes nothing: the
    constraints follow an order of the groups that does not depend on their labels."""
    rng = np.random.default_rng(seed)
    n = 60
    group = rng.integers(0, n_groups, n)
    group[: 2 * n_groups] = np.tile(np.arange(n_groups), 2)
    x = rng.normal(size=n) + 0.5 * group
    y = (x + rng.normal(size=n) > 1.0).astype(int)
    y[: 2 * n_groups] = np.repeat([0, 1], n_groups)
    names = np.array(["zeta", "alpha", "mid", "beta", "omega"])[rng.permutation(5)][:n_groups]
    first = cls(BestThreshold(), constraint=constraint, eps=0.05, random_state=0)
    first.fit(x[:, None], y, sensitive_features=group)
    second = cls(BestThreshold(), constraint=constraint, eps=0.05, random_state=0)
    second.fit(x[:, None], y, sensitive_features=names[group])
    assert second.objective_ == pytest.approx(first.objective_, abs=1e-9)
    assert second.constraint_gap_ == pytest.approx(first.constraint_gap_, abs=1e-9)
    np.testing.assert_allclose(
        second.predict_proba(x[:, None]), first.predict_proba(x[:, None]), atol=1e-9
    )
    np.testing.assert_array_equal(second.predict(x[:, None]), first.predict(x[:, None]))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_grid_search_integer_weights_are_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    n = 30
    group = rng.integers(0, 2, n)
    group[:2] = [0, 1]
    x = rng.normal(size=n) + group
    y = (x + rng.normal(size=n) > 0.5).astype(int)
    y[:2] = [0, 1]
    weights = rng.integers(1, 4, n)
    repeated = np.repeat(np.arange(n), weights)
    weighted = GridSearch(BestThreshold(), eps=0.05).fit(
        x[:, None], y, sample_weight=weights, sensitive_features=group
    )
    copied = GridSearch(BestThreshold(), eps=0.05).fit(
        x[repeated, None], y[repeated], sensitive_features=group[repeated]
    )
    np.testing.assert_allclose(copied.grid_, weighted.grid_, atol=1e-9)
    np.testing.assert_array_equal(copied.predict(x[:, None]), weighted.predict(x[:, None]))
    assert copied.objective_ == pytest.approx(weighted.objective_)


class Collapsing(BestThreshold):
    """An inexact learner: the exact best threshold, except that the first reweighted
    problem it sees is answered with a constant (the weighted majority), as a surrogate
    learner may collapse under a strong pull. Fits are counted on the class, across
    clones."""

    fits = 0

    def fit(self, X, y, sample_weight=None):
        type(self).fits += 1
        if type(self).fits != 2:
            return super().fit(X, y, sample_weight)
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight)
        self.threshold_ = -np.inf  # every x is above: the direction decides the class
        self.direction_ = 1 if w[y == self.classes_[-1]].sum() >= w.sum() / 2 else -1
        return self


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), eps=st.sampled_from([0.02, 0.05]))
def test_the_game_does_not_stop_on_a_collapsed_answer(seed, eps):
    """The answer to the first multipliers is a constant, a hypothesis the game already has:
    best_gap_ alone would certify the saddle point at once (the earlier stopping rule
    stopped there, after two fits). The game tries another candidate and goes on, and its
    mixture is within Theorem 1's bound of the best mixture of every threshold classifier
    (an independent LP over the enumerated class)."""
    rng = np.random.default_rng(seed)
    n = 40
    group = rng.integers(0, 2, n)
    group[:2] = [0, 1]
    x = rng.normal(size=n) + 1.5 * group
    y = (x + 0.5 * rng.normal(size=n) > 0.75).astype(int)
    y[:4] = [0, 1, 0, 1]
    optimum = best_mixture(threshold_predictions(x), y, group, eps)
    unconstrained = np.mean(BestThreshold().fit(x[:, None], y).predict(x[:, None]) != y)
    Collapsing.fits = 0
    model = ExponentiatedGradient(Collapsing(), eps=eps, nu=1e-4)
    model.fit(x[:, None], y, sensitive_features=group)
    if model.n_iter_ > 1:  # the unconstrained fit did not meet the bound
        assert Collapsing.fits >= 3
    assert model.mixture_objective_ <= optimum + 2 * model.best_gap_ + 1e-9
    assert model.mixture_objective_ >= min(optimum, unconstrained) - 1e-9


# fairlearn 0.15's ExponentiatedGradient on German credit by sex x age group (4 groups), the
# one-hot + scaled logistic regression of benchmarks/bench_reductions.py, stratified 70 % / 30 %
# split with random_state=seed, DemographicParity(difference_bound=eps / 2) (each group
# within eps / 2 of the population, which implies a pairwise gap within eps): the expected
# training accuracy and pairwise gap of its mixture (its _pmf_predict), recorded from
# `bench_reductions.py --datasets german --attributes sex+age_group --learners logistic
# --methods ExponentiatedGradient --constraints demographic_parity --eps 0.02 --seeds 0 1 2`.
FAIRLEARN_GERMAN_FOUR_GROUPS = {0: (0.7906, 0.0126), 1: (0.7898, 0.0159), 2: (0.7908, 0.0147)}


def german_four_groups(seed):
    """German credit by sex x age group (4 groups): the training split (stratified 70 %,
    random_state=seed) and the one-hot + scaled logistic regression of
    benchmarks/bench_reductions.py."""
    from sklearn.model_selection import train_test_split

    from skfair.datasets import load_german_credit

    bunch = load_german_credit(as_frame=True)
    data = bunch.data
    group = np.array(
        [
            f"{a} & {b}"
            for a, b in zip(
                bunch.sensitive_features["sex"].astype(str),
                bunch.sensitive_features["age_group"].astype(str),
            )
        ]
    )
    X, _, y, _, s, _ = train_test_split(
        data, bunch.target, group, test_size=0.3, stratify=bunch.target, random_state=seed
    )
    return X, np.asarray(y), s, benchmark_logistic(bunch, data.columns)


def benchmark_logistic(bunch, columns):
    """The one-hot + scaled logistic regression of benchmarks/bench_reductions.py."""
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    categorical = [c for c in bunch.categorical_features if c in columns]
    numeric = [c for c in columns if c not in categorical]
    return make_pipeline(
        make_column_transformer(
            (OneHotEncoder(handle_unknown="ignore"), categorical), (StandardScaler(), numeric)
        ),
        LogisticRegression(max_iter=1000),
    )


def expected_accuracy_and_gap(model, X, y, groups, constraint):
    """Expected training accuracy of the randomised mixture and its largest pairwise gap, by
    a pandas groupby."""
    probability = mixture_decisions(model, X)[:, 1]
    gap = worst_difference(groupby_rates(probability, y, groups, constraint))
    return np.mean(probability * (y == 1) + (1 - probability) * (y == 0)), gap


@pytest.mark.parametrize("seed", sorted(FAIRLEARN_GERMAN_FOUR_GROUPS))
def test_mixture_as_accurate_as_fairlearns_with_four_groups(seed):
    """With a logistic regression (not an exact minimiser of the weighted error) and four
    groups, the game does not stop before its mixture is as accurate as fairlearn's at a
    bound that implies ours (within 0.002), its expected gap within eps (by a groupby)."""
    X, y, s, learner = german_four_groups(seed)
    model = ExponentiatedGradient(learner, eps=0.02, random_state=seed)
    model.fit(X, y, sensitive_features=s)
    accuracy, gap = expected_accuracy_and_gap(model, X, y, s, "demographic_parity")
    assert gap <= 0.02 + 1e-9
    assert accuracy >= FAIRLEARN_GERMAN_FOUR_GROUPS[seed][0] - 0.002


# fairlearn 0.15's ExponentiatedGradient on the rows of german_four_groups(0),
# EqualizedOdds(difference_bound=0.01) (each group within 0.01 of the population, which
# implies a pairwise gap within 0.02): the expected training accuracy of its mixture
# (_pmf_predict), at a pairwise gap of 0.0200, recorded as above with
# `--constraints equalized_odds --eps 0.02 --seeds 0`.
FAIRLEARN_GERMAN_FOUR_GROUPS_EO = 0.7866


def test_the_default_game_is_as_accurate_as_fairlearns_with_equalized_odds_over_four_groups():
    """Equalized odds over four groups (24 pairwise constraints) with a logistic regression:
    the default game's mixture was behind fairlearn's by 0.011 (0.7755) and stopped at
    max_iter, the fits' own threshold (probability 1/2) being far from the one of least
    weighted error. With the fits' scores cut where the cost is least, it is at least as
    accurate as fairlearn's (within 0.002) and its expected gap within eps (by a groupby)."""
    X, y, s, learner = german_four_groups(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = ExponentiatedGradient(
            learner, constraint="equalized_odds", eps=0.02, random_state=0
        ).fit(X, y, sensitive_features=s)
    accuracy, gap = expected_accuracy_and_gap(model, X, y, s, "equalized_odds")
    assert gap <= 0.02 + 1e-9
    assert accuracy >= FAIRLEARN_GERMAN_FOUR_GROUPS_EO - 0.002
    # the default nu (half the standard error of the loss, 0.0077 on these 700 rows) is at
    # most 0.002 for a classifier: stopped at 0.0077 the game was 0.0021 behind fairlearn
    assert model.nu_ == 0.002


def benchmark_training_rows(dataset, attribute):
    """The training rows of benchmarks/bench_reductions.py (seed 0): Adult's train split, or
    Bank marketing without the call's duration, stratified 70 %; the attribute's groups and
    the one-hot + scaled logistic regression."""
    from sklearn.model_selection import train_test_split

    from skfair.datasets import load_adult, load_bank_marketing

    if dataset == "adult":
        bunch = load_adult(as_frame=True, split="train")
        X, y, s = bunch.data, bunch.target, bunch.sensitive_features[attribute]
    else:
        bunch = load_bank_marketing(as_frame=True)
        X, _, y, _, s, _ = train_test_split(
            bunch.data.drop(columns=["duration"]),
            bunch.target,
            bunch.sensitive_features[attribute],
            test_size=0.3,
            stratify=bunch.target,
            random_state=0,
        )
    return X, np.asarray(y), np.asarray(s).astype(str), benchmark_logistic(bunch, X.columns)


# fairlearn 0.15's ExponentiatedGradient on the same rows and learner, at the bound that
# implies eps=0.02 between any two groups (each group within 0.01 of the population): the
# expected training accuracy of its mixture (_pmf_predict), from `bench_reductions.py
# --datasets adult bank --learners logistic --eps 0.02 --seeds 0` (benchmarks/RESULTS.md,
# sixth wave).
FAIRLEARN_THREE_AND_FIVE_GROUPS = {
    ("adult", "race", "demographic_parity"): 0.8486,
    ("adult", "race", "equalized_odds"): 0.8507,
    ("bank", "age_group", "demographic_parity"): 0.8912,
    ("bank", "age_group", "equalized_odds"): 0.8876,
}


@pytest.mark.slow
@pytest.mark.parametrize(("dataset", "attribute", "constraint"), FAIRLEARN_THREE_AND_FIVE_GROUPS)
def test_as_accurate_as_fairlearn_with_three_and_five_groups(dataset, attribute, constraint):
    """Adult by race (5 groups) and Bank marketing by age group (3 groups): the default game's
    mixture is at least as accurate as fairlearn's (within 0.002) at a bound that implies
    ours, and its expected gap is within eps (by a groupby)."""
    X, y, s, learner = benchmark_training_rows(dataset, attribute)
    model = ExponentiatedGradient(learner, constraint=constraint, eps=0.02, random_state=0)
    model.fit(X, y, sensitive_features=s)
    accuracy, gap = expected_accuracy_and_gap(model, X, y, s, constraint)
    assert gap <= 0.02 + 1e-9
    assert accuracy >= FAIRLEARN_THREE_AND_FIVE_GROUPS[dataset, attribute, constraint] - 0.002


def test_a_game_that_does_not_converge_says_so_and_its_advice_helps():
    """A game stopped by max_iter with a duality gap above nu says so with a
    ConvergenceWarning; the advice it gives (a larger max_iter) closes the gap and finds a
    more accurate mixture within the bound."""
    X, y, s, learner = german_four_groups(0)
    with pytest.warns(ConvergenceWarning, match="A larger max_iter"):
        model = ExponentiatedGradient(
            learner, constraint="equalized_odds", eps=0.02, max_iter=3, random_state=0
        ).fit(X, y, sensitive_features=s)
    assert model.best_gap_ > model.nu_
    advised = ExponentiatedGradient(
        learner, constraint="equalized_odds", eps=0.02, random_state=0
    ).fit(X, y, sensitive_features=s)
    assert advised.best_gap_ <= advised.nu_
    accuracy, gap = expected_accuracy_and_gap(model, X, y, s, "equalized_odds")
    advised_accuracy, advised_gap = expected_accuracy_and_gap(advised, X, y, s, "equalized_odds")
    assert max(gap, advised_gap) <= 0.02 + 1e-9
    assert advised_accuracy > accuracy


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_predict_keeps_the_bound_with_small_cells(seed):
    """Equalized odds over four groups of German credit compares 8 rates of cells of 20-40
    training rows: the decisions the default predict draws on the fitting rows keep the
    bound within 0.01 (by a groupby of the 0/1 decisions). With the best of 32 seeds of the
    draws the gap was 0.045 and 0.043 on two of these splits; the seeds tried now grow as
    the rows get fewer."""
    X, y, s, learner = german_four_groups(seed)
    model = ExponentiatedGradient(learner, constraint="equalized_odds", eps=0.02, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y, sensitive_features=s)
    decisions = (np.asarray(model.predict(X)) == 1).astype(float)
    gap = worst_difference(groupby_rates(decisions, y, s, "equalized_odds"))
    assert gap == pytest.approx(model.constraint_gap_, abs=1e-12)
    assert gap <= 0.02 + 0.01


def test_a_game_that_converges_gives_no_convergence_warning(two_groups):
    X, y, group = two_groups
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = ExponentiatedGradient(LogisticRegression(), eps=0.05, random_state=0)
        model.fit(X, y, sensitive_features=group)
    assert model.best_gap_ <= model.nu_


# fairlearn 0.15's ExponentiatedGradient(LogisticRegression(), DemographicParity(
# difference_bound=0.01)) on the data of the test below (each group within 0.01 of the
# population, which implies a pairwise gap within 0.02, the bound of the test): the expected
# accuracy of its mixture (_pmf_predict) on the fitting rows, at a pairwise gap of 0.0198.
# (At difference_bound=0.02 its mixture reaches 0.6763, at a pairwise gap of 0.040: a looser
# constraint than the test's.)
FAIRLEARN_FOUR_SYNTHETIC_GROUPS = 0.6406


def test_the_game_moves_on_when_its_saddle_point_is_answered_with_a_known_fit():
    """Regression: when the learner answered the restricted game's saddle point with a
    hypothesis already found, the game was unchanged, played the same multipliers again and
    got the same answer for the remaining iterations (3 fits in 50 iterations, expected
    accuracy 0.606 where fairlearn's mixture has 0.676). The player now takes
    exponentiated-gradient steps until a new fit appears."""
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(100)
    n = 6000
    g = rng.choice(["a", "b", "c", "d"], n, p=[0.45, 0.3, 0.15, 0.1])
    X = rng.normal(size=(n, 5)) + (g == "b")[:, None] * 0.3 - (g == "d")[:, None] * 0.4
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.8 * (g == "a") + rng.normal(size=n) > 0.3).astype(int)
    X, _, y, _, g, _ = train_test_split(X, y, g, test_size=0.3, random_state=0)
    model = ExponentiatedGradient(LogisticRegression(), eps=0.02, random_state=0)
    model.fit(X, y, sensitive_features=g)
    probability = mixture_decisions(model, X)[:, 1]
    gap = worst_difference(groupby_rates(probability, y, g, "demographic_parity"))
    accuracy = np.mean(probability * (y == 1) + (1 - probability) * (y == 0))
    assert gap <= 0.02 + 1e-9
    assert model.n_fits_ > 10
    # 0.6625: ahead of fairlearn's mixture at the same pairwise bound
    assert accuracy >= FAIRLEARN_FOUR_SYNTHETIC_GROUPS - 0.002
