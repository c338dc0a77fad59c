"""The one entry point to linear programming in skfair: scipy's HiGHS under one policy.

The group thresholds, the multi-class group rules and the reductions' restricted game are
small linear programs whose answers are reported as exact (rates met to rounding, optima to
1e-9). They share one solver policy:

- HiGHS's dual simplex at tight feasibility tolerances (1e-10), which ends at a vertex: the
  rule it describes mixes as few thresholds as possible; matrix entries down to 1e-12 are
  kept (HiGHS drops those up to 1e-9 by default, which breaks programs whose rows are shares
  of many small parts: a constant rule of the multi-class program was "infeasible"); a
  caller may run this first attempt without presolve or without scaling where that was
  measured faster, and an unscaled answer is taken only if it passes a check against the
  matrices themselves (:func:`_is_exact`: rows met and the multipliers' reduced costs of the
  right signs, to 1e-10), since HiGHS's reported row activities were off by 2e-9 there;
- when it does not report an optimum (or fails that check), HiGHS's interior point (with
  crossover to a vertex), then the dual simplex without presolve, then also without scaling
  (taken only if it passes the check), then at HiGHS's default tolerances (entries down to
  1e-12 still kept): presolve and scaling can misjudge a badly scaled program that is
  feasible (a constant rule always is) as infeasible. The rates of a group with almost no
  weight in a class (probabilities near 1e-90 under equalized odds) make such programs: the
  dual simplex without presolve, the unscaled one and the default tolerances each solved one
  that the attempts before them did not. Unchecked, the unscaled attempt once reported an
  optimum 1e-5 short of its certificate (a rule 0.6 above tolerance 0) where the default
  tolerances' answer was exact.

A program that none of them solves raises :class:`UnsolvedProgram`; a caller for which
infeasibility is an answer (no mixture meets the bound) catches it.

The first attempt runs HiGHS through scipy's own binding of it
(:func:`_highs_dual_simplex`) with the options and the model that
``linprog(method="highs-ds")`` would hand it, skipping ``linprog``'s per-call checks of every
option (a few milliseconds, more than HiGHS takes on the thresholds' programs): the same
solver on the same input, so the same answer. Where scipy's binding is not importable, or
HiGHS reports no optimum, ``linprog`` itself runs the policy.
"""

from __future__ import annotations

import functools
import threading
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import OptimizeResult, OptimizeWarning, linprog

try:  # scipy's binding of HiGHS (private; scipy >= 1.15), what linprog calls
    from scipy.optimize._highspy import _core as _highs

    # HiGHS's codes of a column-wise matrix and of minimisation, for its pointer interface
    _COLUMN_WISE = int(_highs.MatrixFormat.kColwise)
    _MINIMIZE = int(_highs.ObjSense.kMinimize)
except ImportError:  # pragma: no cover - other scipy versions: linprog's own path
    _highs = None

_TIGHT = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
    # HiGHS drops matrix entries up to this (1e-9 by default, its smallest setting 1e-12): a
    # share of a few rows in many, or a rate of a few light rows among heavy ones, is kept.
    "small_matrix_value": 1e-12,
}
_UNSCALED = {"simplex_scale_strategy": 0}
# (method, options, whether the answer must pass _is_exact: the unscaled attempt reported
# an optimum 1e-5 short of its certificate on one program, whose rule was 0.6 above
# tolerance 0, where the default tolerances' answer was exact)
_ATTEMPTS = (
    ("highs-ds", _TIGHT, False),
    ("highs-ipm", _TIGHT, False),
    ("highs-ds", {**_TIGHT, "presolve": False}, False),
    ("highs-ds", {**_TIGHT, "presolve": False, **_UNSCALED}, True),
    ("highs-ds", {"small_matrix_value": _TIGHT["small_matrix_value"]}, False),
)


class UnsolvedProgram(RuntimeError):
    """No attempt of the solver policy reported an optimum."""


@dataclass(frozen=True)
class Coordinates:
    """A sparse matrix given by the coordinates of its entries (repeated ones summed), as
    ``scipy.sparse.coo_matrix((data, (row, col)), shape)`` without its checks, which cost
    as much as the solve of a small program; :func:`solve_lp` reads it directly and hands
    ``linprog`` the scipy matrix where its policy falls back to it."""

    data: np.ndarray
    row: np.ndarray
    col: np.ndarray
    shape: tuple

    format = "coo"

    @property
    def nnz(self):
        """The number of entries given."""
        return self.data.size

    def to_scipy(self):
        """The ``scipy.sparse.coo_matrix`` of the same entries."""
        return sparse.coo_matrix((self.data, (self.row, self.col)), shape=self.shape)


def solve_lp(
    cost,
    *,
    A_ub=None,
    b_ub=None,
    A_eq=None,
    b_eq=None,
    bounds=(0, None),
    what,
    presolve=True,
    scale=True,
):
    """Minimise ``cost @ x`` subject to ``A_ub @ x <= b_ub``, ``A_eq @ x == b_eq``, bounds.

    Parameters are those of :func:`scipy.optimize.linprog` (matrices dense, sparse or
    :class:`Coordinates`);
    ``what`` names the program in the error message. ``presolve=False`` runs the first
    attempt without HiGHS's presolve and ``scale=False`` without its scaling of the matrix,
    for programs on which they were measured to cost more than they save; the fallbacks are
    the same.

    Returns
    -------
    result : scipy.optimize.OptimizeResult
        The first attempt of the policy that reports an optimum (``status == 0``).

    Raises
    ------
    UnsolvedProgram
        When no attempt does, with HiGHS's last message.
    """
    first = dict(_TIGHT)
    if not presolve:
        first["presolve"] = "off"
    if not scale:
        first.update(_UNSCALED)
    program = (cost, A_ub, b_ub, A_eq, b_eq, bounds)
    result = _highs_dual_simplex(
        cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, options=first
    )
    # Unscaled, HiGHS reports the rows' activities it kept, which can be off by 1e-9 on a
    # badly scaled program: its answer is checked against the matrix itself, and the policy
    # below (scaled) runs where it is off.
    if result is not None and (scale or _is_exact(result, program)):
        return result
    A_ub, A_eq = (A.to_scipy() if isinstance(A, Coordinates) else A for A in (A_ub, A_eq))
    for method, options, checked in _ATTEMPTS:
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
        if result.status == 0 and (not checked or _is_exact(result, program)):
            return result
    raise UnsolvedProgram(f"{what} failed: {result.message}")


def _highs_dual_simplex(cost, *, A_ub, b_ub, A_eq, b_eq, bounds, options):
    """``linprog(method="highs-ds", options=options)`` when HiGHS finds the optimum, else None.

    The model and the options are those ``linprog`` builds (scipy 1.15-1.17,
    ``scipy/optimize/_linprog_highs.py``): the constraint matrices as float COO stacked and
    converted to CSC, infinite bounds as HiGHS's infinity, presolve on (unless ``options`` say
    ``"off"``), dual simplex, logging off; and the answer is accepted under ``linprog``'s own
    check of it (bounds, slacks and residuals within ``10 * sqrt(1e-9)``). Returns an
    ``OptimizeResult`` with ``x``, ``fun``, ``slack``, ``con``, ``ineqlin`` and ``eqlin``
    (residuals and marginals) as ``linprog`` does; None where the binding is missing or HiGHS
    does not report an optimum, for ``linprog`` to handle.
    """
    if _highs is None:  # pragma: no cover
        return None
    cost = np.array(cost, dtype=np.float64).reshape(-1)
    n = cost.size
    b_ub = np.zeros(0) if b_ub is None else np.array(b_ub, dtype=np.float64).reshape(-1)
    b_eq = np.zeros(0) if b_eq is None else np.array(b_eq, dtype=np.float64).reshape(-1)
    shape, columns = _csc_of_rows([A for A in (A_ub, A_eq) if A is not None], n)
    if shape != (b_ub.size + b_eq.size, n):
        return None  # linprog names the inconsistency
    limits = np.array(np.broadcast_to(np.array(bounds, dtype=float).reshape(-1, 2), (n, 2)))
    limits[np.isnan(limits[:, 0]), 0] = -np.inf  # None: no bound
    limits[np.isnan(limits[:, 1]), 1] = np.inf
    lower, upper = limits.T.copy()
    lhs = np.r_[np.full(b_ub.size, -np.inf), b_eq]
    rhs = np.r_[b_ub, b_eq]
    for values in (lhs, rhs, lower, upper):
        infinite = np.isinf(values)
        values[infinite] = np.sign(values[infinite]) * _highs.kHighsInf

    start, index, value = columns
    solver = _solver()
    # The model goes in by HiGHS's pointer interface, which reads the numpy arrays where they
    # are: HighsLp's attributes copy them element by element (about 50 ns an entry, more
    # than the solve of a small program). Every column is continuous.
    model = (n, rhs.size, value.size, _COLUMN_WISE, _MINIMIZE, 0.0, cost, lower, upper, lhs, rhs)
    try:
        if (
            solver.passOptions(_settings(tuple(sorted(options.items()))))
            == _highs.HighsStatus.kError
            or solver.passModel(*model, start, index, value, np.zeros(n, dtype=np.int32))
            == _highs.HighsStatus.kError
            or solver.run() == _highs.HighsStatus.kError
            or solver.getModelStatus() != _highs.HighsModelStatus.kOptimal
        ):
            return None
        solution = solver.getSolution()
        x = np.array(solution.col_value)
        slack_all = rhs - solution.row_value
        duals = np.array(solution.row_dual)
        fun = solver.getInfo().objective_function_value
    finally:
        solver.clearModel()  # a large program's data are not kept until the next solve
    slack, con = np.array(slack_all[: b_ub.size]), np.array(slack_all[b_ub.size :])
    tolerance = np.sqrt(1e-9) * 10  # linprog's check of HiGHS's answer (_check_result)
    if (
        np.isnan(x).any() or np.isnan(fun) or np.isnan(slack).any() or np.isnan(con).any()
        or not np.all((x >= limits[:, 0] - tolerance) & (x <= limits[:, 1] + tolerance))
        or (slack < -tolerance).any()
        or (np.abs(con) > tolerance).any()
    ):
        return None
    return OptimizeResult(
        x=x,
        fun=fun,
        slack=slack,
        con=con,
        ineqlin=OptimizeResult(residual=slack, marginals=duals[: b_ub.size]),
        eqlin=OptimizeResult(residual=con, marginals=duals[b_ub.size :]),
        status=0,
        success=True,
    )


_SOLVERS = threading.local()


def _solver():
    """This thread's HiGHS instance, made once: making one costs more than solving the
    smallest programs. Each solve passes its options and its model anew and clears the
    model after (with its basis and solution), so that no answer depends on the last one
    (tested against linprog, which makes an instance per call)."""
    solver = getattr(_SOLVERS, "highs", None)
    if solver is None:
        solver = _SOLVERS.highs = _highs._Highs()
    return solver


@functools.lru_cache(maxsize=16)
def _settings(options):
    """HiGHS's options object for ``options`` (``(name, value)`` pairs), made once: the
    solver copies it (a few attribute writes cost more than HiGHS on the smallest programs)."""
    settings = _highs.HighsOptions()
    settings.presolve = "on"
    settings.solver = "simplex"
    settings.highs_debug_level = _highs.HighsDebugLevel.kHighsDebugLevelNone
    settings.log_to_console = False
    settings.output_flag = False
    settings.simplex_strategy = _highs.simplex_constants.SimplexStrategy.kSimplexStrategyDual
    for key, value in options:
        setattr(settings, key, value)
    return settings


def _is_exact(result, program):
    """Whether ``result`` solves ``program`` = ``(cost, A_ub, b_ub, A_eq, b_eq, bounds)`` to
    the tight feasibility tolerance, checked against the matrices themselves: the rows
    recomputed from ``x`` meet their bounds, and the reduced costs ``cost - A^T y`` of its
    multipliers have the signs the columns' bounds require."""
    cost, A_ub, b_ub, A_eq, b_eq, bounds = program
    tolerance = _TIGHT["primal_feasibility_tolerance"]
    x = result.x
    reduced = np.array(cost, dtype=np.float64).reshape(-1)
    for A, b, marginals, equal in (
        (A_ub, b_ub, result.ineqlin.marginals, False),
        (A_eq, b_eq, result.eqlin.marginals, True),
    ):
        if A is None:
            continue
        rows, transposed = _products(A, x, marginals)
        miss = rows - np.asarray(b, dtype=np.float64).reshape(-1)
        if (np.abs(miss) if equal else miss).max(initial=0.0) > tolerance:
            return False
        reduced -= transposed
    limits = np.broadcast_to(np.array(bounds, dtype=float).reshape(-1, 2), (x.size, 2))
    no_lower = ~(limits[:, 0] > -np.inf)  # None (nan) or -inf: no bound
    no_upper = ~(limits[:, 1] < np.inf)
    return not (
        (reduced[~no_lower & no_upper] < -tolerance).any()
        or (reduced[no_lower & ~no_upper] > tolerance).any()
        or (np.abs(reduced[no_lower & no_upper]) > tolerance).any()
    )


def _products(A, x, y):
    """``(A @ x, A.T @ y)``; for a sparse ``A`` by bincounts over its coordinates (scipy's
    sparse products and transpose cost more than the small programs' solve)."""
    if not (sparse.issparse(A) or isinstance(A, Coordinates)):
        A = np.asarray(A, dtype=np.float64)
        return A @ x, A.T @ y
    A = A if A.format == "coo" else A.tocoo()  # a Coordinates is in this format
    m, n = A.shape
    return (
        np.bincount(A.row, A.data * x[A.col], minlength=m),
        np.bincount(A.col, A.data * y[A.row], minlength=n),
    )


def _csc_of_rows(matrices, n):
    """``(shape, (indptr, indices, data))`` of ``scipy.sparse.csc_array`` of the matrices
    (sparse or dense) stacked by rows, built from their nonzero coordinates directly
    (scipy's stack and conversion cost 0.4 ms on the multi-class rule's small programs, more
    than HiGHS's solve); duplicate entries are summed, as scipy's conversion does. A matrix
    without ``n`` columns gives a shape that says so."""
    rows, cols, values, offset, width = [], [], [], 0, n
    for matrix in matrices:
        if sparse.issparse(matrix) or isinstance(matrix, Coordinates):
            matrix = matrix if matrix.format == "coo" else matrix.tocoo()
            row, col, value = matrix.row, matrix.col, matrix.data
        else:
            matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
            row, col = np.nonzero(matrix)
            value = matrix[row, col]
        if matrix.shape[1] != n:
            width = matrix.shape[1]
        rows.append(row + offset)
        cols.append(col)
        values.append(value)
        offset += matrix.shape[0]
    if width != n:
        return (offset, width), None
    row = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, dtype=np.int64)
    col = np.concatenate(cols).astype(np.int64) if cols else np.zeros(0, dtype=np.int64)
    value = np.concatenate(values).astype(np.float64) if values else np.zeros(0)
    # column-major order, repeated entries in their given order (summed in that order, as
    # scipy's conversion does): one stable sort of a single key costs less than a lexsort
    key = col * max(offset, 1) + row
    order = np.argsort(key, kind="stable")
    key, row, col, value = key[order], row[order], col[order], value[order]
    if key.size > 1:
        first = np.r_[True, key[1:] != key[:-1]]
        if not first.all():
            starts = np.flatnonzero(first)
            row, col, value = row[starts], col[starts], np.add.reduceat(value, starts)
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(col, minlength=n), out=indptr[1:])
    return (offset, n), (indptr, row.astype(np.int32), value)
