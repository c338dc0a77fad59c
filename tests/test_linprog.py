"""skfair's linear-programming policy: its direct call of HiGHS answers as linprog does."""

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.sparse import csr_matrix

from skfair._linprog import (
    _TIGHT,
    Coordinates,
    UnsolvedProgram,
    _highs_dual_simplex,
    solve_lp,
)

# linprog says it passes small_matrix_value to HiGHS verbatim
pytestmark = pytest.mark.filterwarnings("ignore:Unrecognized options")


def _program(seed, sparse, bounds_kind):
    rng = np.random.default_rng(seed)
    n, m_ub, m_eq = rng.integers(3, 40), rng.integers(0, 30), rng.integers(1, 5)
    A_ub = rng.normal(size=(m_ub, n)) * (rng.random((m_ub, n)) < 0.5)
    A_eq = np.zeros((m_eq, n))
    A_eq[rng.integers(0, m_eq, n), np.arange(n)] = 1.0  # blocks of a simplex: feasible
    b_eq = np.ones(m_eq)
    b_ub = np.abs(rng.normal(size=m_ub)) + A_ub.clip(0).sum(axis=1) * 0.1
    if sparse:
        A_ub, A_eq = csr_matrix(A_ub), csr_matrix(A_eq)
    bounds = {
        "pair": (0.0, 1.0),
        "none": (0, None),
        "rows": np.c_[np.zeros(n), np.where(rng.random(n) < 0.5, 1.0, np.inf)],
    }[bounds_kind]
    return rng.normal(size=n), dict(A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("bounds_kind", ["pair", "none", "rows"])
@pytest.mark.parametrize("seed", range(8))
def test_direct_highs_call_equals_linprog(seed, sparse, bounds_kind):
    """Same solver, same model, same options: the same vertex and duals, bit for bit."""
    cost, program = _program(seed, sparse, bounds_kind)
    expected = linprog(cost, **program, method="highs-ds", options=_TIGHT)
    assert expected.status == 0  # the programs are feasible and bounded
    result = _highs_dual_simplex(cost, **program, options=_TIGHT)
    np.testing.assert_array_equal(result.x, expected.x)
    assert result.fun == expected.fun
    np.testing.assert_array_equal(result.ineqlin.marginals, expected.ineqlin.marginals)
    np.testing.assert_array_equal(result.eqlin.marginals, expected.eqlin.marginals)
    np.testing.assert_array_equal(result.slack, expected.slack)
    np.testing.assert_array_equal(result.con, expected.con)


@pytest.mark.parametrize(
    "A_eq", [np.ones((1, 2)), Coordinates(np.ones(2), np.zeros(2), np.arange(2), (1, 2))]
)
def test_infeasible_program_falls_through_to_the_policy(A_eq):
    """An infeasible program is not answered by the direct call; the policy (linprog, given
    scipy's matrix for coordinates) names it."""
    with pytest.raises(UnsolvedProgram, match="nfeasible"):
        solve_lp(np.ones(2), A_eq=A_eq, b_eq=[3.0], bounds=(0, 1), what="x")
    assert (
        _highs_dual_simplex(
            np.ones(2), A_ub=None, b_ub=None, A_eq=np.ones((1, 2)), b_eq=[3.0],
            bounds=(0, 1), options=_TIGHT,
        )
        is None
    )


@pytest.mark.parametrize("form", ["scipy", "Coordinates"])
@pytest.mark.parametrize("seed", range(6))
def test_direct_highs_call_reads_coordinates_as_scipy_does(seed, form):
    """Coordinate matrices with repeated entries (summed), next to a dense one: the model
    handed to HiGHS is scipy's stack of them, so the answer is linprog's, bit for bit."""
    from scipy.sparse import coo_matrix

    cost, program = _program(seed, False, "pair")
    dense = program["A_ub"]
    rows, cols = np.nonzero(dense)
    half = dense[rows, cols] / 2  # every entry given as two halves
    entries = (np.r_[half, half], (np.r_[rows, rows], np.r_[cols, cols]))
    program["A_ub"] = coo_matrix(entries, shape=dense.shape)
    expected = linprog(cost, **program, method="highs-ds", options=_TIGHT)
    if form == "Coordinates":
        program["A_ub"] = Coordinates(entries[0], *entries[1], dense.shape)
    result = _highs_dual_simplex(cost, **program, options=_TIGHT)
    assert expected.status == 0
    np.testing.assert_array_equal(result.x, expected.x)
    np.testing.assert_array_equal(result.eqlin.marginals, expected.eqlin.marginals)
    np.testing.assert_array_equal(result.ineqlin.marginals, expected.ineqlin.marginals)


def test_an_answer_does_not_depend_on_the_programs_solved_before():
    """One HiGHS instance serves every solve of a thread: each answer equals a fresh
    instance's (linprog makes one per call), bit for bit, after programs of other sizes, an
    infeasible one and other options."""
    programs = [_program(seed, seed % 2 == 0, "rows") for seed in range(5)]
    infeasible = (np.ones(2), dict(A_eq=np.ones((1, 2)), b_eq=[3.0], bounds=(0, 1)))
    # (HiGHS's option, linprog's spelling of it)
    options = [(_TIGHT, _TIGHT), ({**_TIGHT, "presolve": "off"}, {**_TIGHT, "presolve": False})]
    for cost, program in [*programs, infeasible, *programs[::-1]]:
        for option, linprog_option in options:
            result = _highs_dual_simplex(
                cost, **{"A_ub": None, "b_ub": None, **program}, options=option
            )
            expected = linprog(cost, **program, method="highs-ds", options=linprog_option)
            if expected.status != 0:
                assert result is None
                continue
            np.testing.assert_array_equal(result.x, expected.x)
            np.testing.assert_array_equal(result.eqlin.marginals, expected.eqlin.marginals)
            np.testing.assert_array_equal(result.ineqlin.marginals, expected.ineqlin.marginals)
