"""The one entry point to linear programming in skfair: scipy's HiGHS under one policy.

The group thresholds, the multi-class group rules and the reductions' restricted game are
small linear programs whose answers are reported as exact (rates met to rounding, optima to
1e-9). They share one solver policy:

- HiGHS's dual simplex at tight feasibility tolerances (1e-10), which ends at a vertex: the
  rule it describes mixes as few thresholds as possible; matrix entries down to 1e-12 are
  kept (HiGHS drops those up to 1e-9 by default, which breaks programs whose rows are shares
  of many small parts: a constant rule of the multi-class program was "infeasible");
- when it does not report an optimum, HiGHS's interior point (with crossover to a vertex), then
  the dual simplex without presolve, then at HiGHS's default tolerances: presolve can misjudge
  a badly scaled program that is feasible (a constant rule always is) as infeasible.

A program that none of them solves raises :class:`UnsolvedProgram`; a caller for which
infeasibility is an answer (no mixture meets the bound) catches it.
"""

from __future__ import annotations

import warnings

from scipy.optimize import OptimizeWarning, linprog

_TIGHT = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
    # HiGHS drops matrix entries up to this (1e-9 by default, its smallest setting 1e-12): a
    # share of a few rows in many, or a rate of a few light rows among heavy ones, is kept.
    "small_matrix_value": 1e-12,
}
_ATTEMPTS = (
    ("highs-ds", _TIGHT),
    ("highs-ipm", _TIGHT),
    ("highs-ds", {**_TIGHT, "presolve": False}),
    ("highs-ds", {}),
)


class UnsolvedProgram(RuntimeError):
    """No attempt of the solver policy reported an optimum."""


def solve_lp(cost, *, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(0, None), what):
    """Minimise ``cost @ x`` subject to ``A_ub @ x <= b_ub``, ``A_eq @ x == b_eq``, bounds.

    Parameters are those of :func:`scipy.optimize.linprog` (matrices dense or sparse);
    ``what`` names the program in the error message.

    Returns
    -------
    result : scipy.optimize.OptimizeResult
        The first attempt of the policy that reports an optimum (``status == 0``).

    Raises
    ------
    UnsolvedProgram
        When no attempt does, with HiGHS's last message.
    """
    for method, options in _ATTEMPTS:
        with warnings.catch_warnings():
            # scipy passes the HiGHS options it does not know (small_matrix_value) verbatim,
            # with a warning that says so.
            warnings.filterwarnings(
                "ignore", message="Unrecognized options", category=OptimizeWarning
            )
            result = linprog(
                cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                method=method, options=options,
            )
        if result.status == 0:
            return result
    raise UnsolvedProgram(f"{what} failed: {result.message}")
