"""ExponentiatedGradient and GridSearch fitted on dask collections with a base learner whose
fit takes them: the same game as in memory, nothing of the length of the data computed on
the client; with an in-memory learner, a TypeError at once naming it."""

import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, LogisticRegression

from skfair.metrics import equalized_odds_difference, statistical_parity_difference
from skfair.reductions import ExponentiatedGradient, GridSearch

N = 2000
CHUNKINGS = {"regular": (500, 500, 500, 500), "uneven": (700, 0, 1, 999, 300)}
GAPS = {
    "demographic_parity": statistical_parity_difference,
    "equalized_odds": equalized_odds_difference,
}


def _data(seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c", "d"], N, p=[0.4, 0.3, 0.2, 0.1])
    shift = {"a": 0.0, "b": 0.8, "c": -0.5, "d": 0.3}
    X = np.column_stack(
        [
            rng.normal(size=N) + np.vectorize(shift.get)(group),
            rng.normal(size=N),
            rng.random(N),
        ]
    )
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=N) > 0.3).astype(int)
    weights = rng.choice([0.5, 1.0, 2.0], N)
    return X, y, group, weights


def _on_dask(chunks, *arrays):
    return [None if a is None else da.from_array(a, chunks=(chunks, *a.shape[1:])) for a in arrays]


def _fit(model, X, y, weights, group):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # e.g. a bound that cannot be met
        return model.fit(X, y, sample_weight=weights, sensitive_features=group)


def test_the_learner_fits_the_same_model_on_dask_and_numpy(dask_learner):
    X, y, _, weights = _data()
    chunks = CHUNKINGS["uneven"]
    in_memory = dask_learner().fit(X, y, sample_weight=weights)
    on_dask = dask_learner().fit(
        *_on_dask(chunks, X, y), sample_weight=_on_dask(chunks, weights)[0]
    )
    np.testing.assert_allclose(on_dask.coef_, in_memory.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(on_dask.intercept_, in_memory.intercept_, rtol=1e-10)


def _assert_the_same_game(model, constraint, chunking, weighted, no_materialisation):
    """``model`` fitted on dask collections plays the game it plays in memory: the same
    reported values, fits, iterations, weights and multipliers, and the same decisions."""
    X, y, group, weights = _data()
    weights = weights if weighted else None
    with no_materialisation.off():
        expected = _fit(model, X, y, weights, group)
    lazy = _on_dask(CHUNKINGS[chunking], X, y, weights, group)
    got = _fit(clone(model), *lazy)
    for name in ("objective_", "constraint_gap_", "mixture_objective_", "mixture_gap_", "nu_"):
        assert getattr(got, name) == pytest.approx(getattr(expected, name), abs=1e-6), name
    assert got.n_fits_ == expected.n_fits_ and got.n_iter_ == expected.n_iter_
    np.testing.assert_allclose(got.weights_, expected.weights_, atol=1e-6)
    np.testing.assert_allclose(got.lambda_vecs_, expected.lambda_vecs_, atol=1e-6)
    with no_materialisation.off():
        decisions = expected.predict(X)
        # The decisions of the dask fit's default predict on the fitting rows, in memory and
        # lazily on the same partitions (the rows are all distinct: the draws do not depend
        # on the batch), are the in-memory fit's; their realised gap is constraint_gap_.
        np.testing.assert_array_equal(got.predict(X), decisions)
        np.testing.assert_array_equal(got.predict(lazy[0]).compute(), decisions)
        gap = GAPS[constraint](y, decisions, sensitive_features=group, sample_weight=weights)
    assert got.constraint_gap_ == pytest.approx(abs(gap), abs=1e-9)
    return got


_CASES = [
    pytest.param(
        constraint,
        chunking,
        weighted,
        id=f"{constraint}-{chunking}-{'weighted' if weighted else 'unweighted'}",
    )
    for constraint in sorted(GAPS)
    for chunking in sorted(CHUNKINGS)
    for weighted in (False, True)
]
# Every pair of the three choices (constraint, chunking, weights): 4 of the 8 cases.
_PAIRWISE = {
    ("demographic_parity", "regular", False),
    ("demographic_parity", "uneven", True),
    ("equalized_odds", "regular", True),
    ("equalized_odds", "uneven", False),
}


# A whole game on dask takes a few seconds (about 30 best responses of a few passes each):
# the slow run plays it in all 8 cases, the fast run 10 rounds of the 4 pairwise cases.
@pytest.mark.slow
@pytest.mark.parametrize(("constraint", "chunking", "weighted"), _CASES)
def test_exponentiated_gradient_on_dask_equals_in_memory(
    dask_learner, constraint, chunking, weighted, no_materialisation
):
    model = ExponentiatedGradient(dask_learner(), constraint=constraint, eps=0.02, random_state=0)
    got = _assert_the_same_game(model, constraint, chunking, weighted, no_materialisation)
    assert got.mixture_gap_ <= 0.02 + 1e-12  # the bound holds for the mixture


@pytest.mark.parametrize(
    ("constraint", "chunking", "weighted"),
    [case for case in _CASES if tuple(case.values) in _PAIRWISE],
)
def test_ten_rounds_on_dask_equal_ten_rounds_in_memory(
    dask_learner, constraint, chunking, weighted, no_materialisation
):
    # Every fit cut at its threshold of least cost (this learner is not a scikit-learn
    # linear classifier, so "auto" keeps its own: the slow test above plays that game): the
    # cut reads each cell's weight per interval of thresholds, a pass over the partitions.
    model = ExponentiatedGradient(
        dask_learner(),
        constraint=constraint,
        eps=0.02,
        max_iter=10,
        random_state=0,
        response_threshold="least_cost",
    )
    # The game is cut short: what is compared is its first rounds and the mixture they give.
    _assert_the_same_game(model, constraint, chunking, weighted, no_materialisation)


@pytest.mark.parametrize("chunking", sorted(CHUNKINGS))
@pytest.mark.parametrize("constraint", sorted(GAPS))
def test_grid_search_on_dask_equals_in_memory(
    dask_learner, constraint, chunking, no_materialisation
):
    X, y, group, weights = _data(1)
    model = GridSearch(
        dask_learner(), constraint=constraint, eps=0.03, response_threshold="least_cost"
    )
    with no_materialisation.off():
        expected = _fit(model, X, y, weights, group)
    lazy = _on_dask(CHUNKINGS[chunking], X, y, weights, group)
    got = _fit(clone(model), *lazy)
    assert got.objective_ == pytest.approx(expected.objective_, abs=1e-6)
    assert got.constraint_gap_ == pytest.approx(expected.constraint_gap_, abs=1e-6)
    np.testing.assert_allclose(got.objectives_, expected.objectives_, atol=1e-6)
    np.testing.assert_allclose(got.grid_, expected.grid_, atol=1e-6)
    assert got.best_index_ == expected.best_index_
    with no_materialisation.off():
        np.testing.assert_array_equal(got.predict(X), expected.predict(X))


def test_equal_weights_are_no_weights_as_in_memory(dask_learner, no_materialisation):
    # In memory equal positive weights are dropped (the learner gets the cells' gains
    # alone, the default nu counts the rows); so they are on dask.
    X, y, group, _ = _data(4)
    weights = np.full(N, 3.0)
    model = ExponentiatedGradient(dask_learner(alpha=1.0), eps=0.02, max_iter=10, random_state=0)
    with no_materialisation.off():
        expected = _fit(model, X, y, weights, group)
        unweighted = _fit(clone(model), X, y, None, group)
    got = _fit(clone(model), *_on_dask(CHUNKINGS["regular"], X, y, weights, group))
    assert expected.nu_ == unweighted.nu_
    assert got.nu_ == pytest.approx(expected.nu_, rel=1e-9)
    np.testing.assert_allclose(got.lambda_vecs_, expected.lambda_vecs_, atol=1e-6)
    assert got.objective_ == pytest.approx(expected.objective_, abs=1e-6)


def test_sensitive_column_of_a_dask_array(dask_learner, no_materialisation):
    X, y, group, weights = _data(2)
    codes = np.unique(group, return_inverse=True)[1].astype(np.float64)
    X_columns = np.column_stack([X, codes])
    model = ExponentiatedGradient(
        dask_learner(), eps=0.02, max_iter=10, sensitive_column=3, random_state=1
    )
    with no_materialisation.off():
        expected = model.fit(X_columns, y, sample_weight=weights)
    X_lazy, y_lazy, w_lazy = _on_dask(CHUNKINGS["uneven"], X_columns, y, weights)
    got = clone(model).fit(X_lazy, y_lazy, sample_weight=w_lazy)
    assert got.objective_ == pytest.approx(expected.objective_, abs=1e-6)
    assert got.constraint_gap_ == pytest.approx(expected.constraint_gap_, abs=1e-6)
    assert got.n_features_in_ == 4
    with no_materialisation.off():
        np.testing.assert_array_equal(got.predict(X_columns), expected.predict(X_columns))


def test_without_sensitive_features_the_unconstrained_fit(dask_learner, no_materialisation):
    X, y, _, weights = _data(3)
    model = ExponentiatedGradient(dask_learner(), random_state=0)
    with no_materialisation.off(), pytest.warns(UserWarning, match="without sensitive"):
        expected = model.fit(X, y, sample_weight=weights)
    X_lazy, y_lazy, w_lazy = _on_dask(CHUNKINGS["regular"], X, y, weights)
    with pytest.warns(UserWarning, match="without sensitive"):
        got = clone(model).fit(X_lazy, y_lazy, sample_weight=w_lazy)
    assert got.groups_ == expected.groups_
    assert got.objective_ == pytest.approx(expected.objective_, abs=1e-9)
    assert got.n_fits_ == expected.n_fits_ == 1
    with no_materialisation.off():
        np.testing.assert_array_equal(got.predict(X), expected.predict(X))


def _exploding(shape, chunks):
    """A dask array whose computation fails: a fit that reads it has not refused at once."""

    def explode():
        raise AssertionError("the data were read before the refusal")

    block = da.from_delayed(dask.delayed(explode)(), shape=(chunks,) + shape[1:], dtype=float)
    return da.concatenate([block] * (shape[0] // chunks))


@pytest.mark.parametrize("reduction", [ExponentiatedGradient, GridSearch])
def test_an_in_memory_learner_is_refused_at_once_by_name(reduction):
    X, y = _exploding((N, 3), 500), _exploding((N,), 500)
    with pytest.raises(TypeError, match="does not accept dask") as error:
        reduction(LogisticRegression()).fit(X, y, sensitive_features=_exploding((N,), 500))
    assert "LogisticRegression" in str(error.value)
    assert "__skfair_fits_dask__" in str(error.value)


class _Unweighted(LogisticRegression):
    __skfair_fits_dask__ = True

    def fit(self, X, y):
        return super().fit(X, y)


class _DaskRegressor(LinearRegression):
    __skfair_fits_dask__ = True


@pytest.mark.parametrize(
    ("learner", "constraint", "named"),
    [
        (_Unweighted(), "demographic_parity", "takes no sample_weight"),
        (_DaskRegressor(), "bounded_group_loss", "bounded group loss"),
    ],
)
def test_a_dask_learner_that_cannot_serve_is_refused_at_once(learner, constraint, named):
    X, y = _exploding((N, 3), 500), _exploding((N,), 500)
    with pytest.raises(TypeError, match="does not accept dask") as error:
        ExponentiatedGradient(learner, constraint=constraint).fit(
            X, y, sensitive_features=_exploding((N,), 500)
        )
    assert named in str(error.value)


def test_more_than_two_classes_are_refused(dask_learner):
    X, y, group, _ = _data()
    y = y + (X[:, 1] > 1)
    X_lazy, y_lazy, group_lazy = _on_dask(CHUNKINGS["regular"], X, y, group)
    with pytest.raises(TypeError, match="more than two classes"):
        ExponentiatedGradient(dask_learner()).fit(X_lazy, y_lazy, sensitive_features=group_lazy)
