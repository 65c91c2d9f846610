"""LPBoost's restricted master LP by a dense bounded dual simplex, hot-started across rounds.

The LP is the row form of :mod:`marginboost.soft_margin.restricted_lp` (paper 000, eq. 8)::

    min_{d, gamma}  gamma
    s.t.            sum_i d_i + s_0 = 1                     s_0 = 0           (row 0)
                    u_k @ d - gamma + s_k = 0               s_k >= 0          (row k = 1..t)
                    0 <= d_i <= c_i = s_i / nu

with one logical ``s_r`` per row. Why a solver of our own: the basis has only ``R = t + 1``
rows, but every ``d_i`` column is dense (``u_k`` has no zero), so HiGHS' sparse LU and its
pricing over 12-byte sparse entries spend about 0.8 ms a pivot at ringnorm's 7400 x 190
(measured on this project's 2-core test machine; ``benchmarks/lp_master.py`` compares the two
masters), and a round needs 100-400 pivots. Here

* the basis inverse ``B^-1`` is kept explicitly (R x R, updated by the product form in
  O(R^2) a pivot, together with the new row norms; recomputed by LAPACK every
  :data:`REFACTOR_EVERY` pivots or when the bookkeeping disagrees with itself);
* the pivot row ``alpha = rho^T A`` (``rho`` = row r of ``B^-1``) needs ``U rho`` over all m
  examples, which for +-1 hypotheses is one byte-table product of
  :class:`~marginboost.core.bit_matrix.BitMarginMatrix` (U held in bits: 64x less memory
  traffic than float64);
* exact dual steepest edge: the weights ``||e_r^T B^-1||^2`` are the squared row norms of the
  explicit inverse;
* the bound-flipping ratio test (BFRT; Maros 2003, Koberstein 2005): the capped ``d_i`` are
  boxed variables, and passing their breakpoint flips them to the other bound instead of
  pivoting, with a Harris pass (largest ``|alpha|`` among near-ties) for stability;
* a cost perturbation against dual degeneracy (examples with equal margins tie in every ratio
  test; without it the pivots cycled), removed before the answer (:meth:`DualSimplexMaster._perturbed_iterate`).

A new hypothesis adds a row whose logical enters the basis: the old basis stays dual feasible
(the new row's dual is 0) and the inverse is bordered in O(R^2): a hot start, as HiGHS'.

**Exactness.** An answer is returned only with a certificate that needs no inverse: the clipped
primal ``d`` and the clipped row duals ``w`` bracket the optimum, ``rho(U w) <= gamma* <= max_k
u_k @ d`` (weak duality), within :data:`CERTIFICATE_TOL` (:meth:`DualSimplexMaster._certified`).
Any numerical trouble (a singular basis, a pivot that disagrees between its row and its column,
a certificate that fails on a fresh inverse, too many pivots) hands the round to HiGHS on the
same rows (:class:`~marginboost.soft_margin.restricted_lp.RestrictedMasterLP`), whose
optimal basis is then loaded so that later rounds are hot-started by this solver again (or,
when that basis does not verify here, HiGHS keeps solving the later rounds); the fallbacks are counted in :attr:`DualSimplexMaster.n_fallbacks`. The tests compare the optimum with
HiGHS' to 1e-9 round by round on recorded LPBoost sequences.
"""
from __future__ import annotations

import highspy
import numpy as np

from marginboost.core.bit_matrix import GrowingMarginMatrix
from marginboost.soft_margin._dual_simplex import (  # noqa: F401  the compiled steps of every pivot
    _SCAN_POPS,
    _bfrt,
    _eta_update,
    _heap_pops,
    _scan_pops,
    _sift_down,
    _squared_norm,
    _step_duals,
    _steepest_infeasible,
)
from marginboost.soft_margin.objectives import SoftMargin
from marginboost.soft_margin.restricted_lp import RestrictedMasterLP, SolverError

__all__ = ["DualSimplexMaster"]

FEASIBILITY_TOL = 1e-9  # how far a value may pass its bound, a reduced cost have the wrong sign
PIVOT_TOL = 1e-9  # |alpha_j| below this never enters (it would be a near-singular pivot)
REFACTOR_EVERY = 200  # pivots between LAPACK inverses (the product form drifts)
CONSISTENCY_TOL = 1e-7  # the pivot from the row and from the column must agree this closely
CERTIFICATE_TOL = 1e-10  # the LP optimum is bracketed this tightly before it is returned
HARRIS_TOL = 1e-12  # reduced costs may end this far on the wrong side after a pivot (Harris pass)
PERTURBATION = 1e-7  # scale of the cost perturbation against dual degeneracy (see _perturbed_iterate)


class _Rows:
    """The hypothesis rows ``u_1 .. u_t`` as matrix columns; duplicates share one column.

    ``row_col[k]`` is the matrix column of row ``k + 1``; products over the rows first sum the
    coefficients of duplicate rows onto their column.
    """

    def __init__(self, m: int):
        self.m = m
        self.matrix = GrowingMarginMatrix(m)  # the distinct rows: bits while they are +-1
        self.row_col: list[int] = []
        self._index = np.empty(0, dtype=np.int64)
        self._distinct = True

    def add(self, u: np.ndarray) -> None:
        j, is_new = self.matrix.add(np.ascontiguousarray(u, dtype=np.float64))
        self._distinct &= is_new
        self.row_col.append(j)
        self._index = np.asarray(self.row_col, dtype=np.int64)

    def _per_column(self, v: np.ndarray) -> np.ndarray:
        if self._distinct:
            return v
        return np.bincount(self._index, weights=v, minlength=self.matrix.n)

    def times(self, v: np.ndarray) -> np.ndarray:
        """``sum_k v_k u_k`` (m,): the rows weighted by ``v`` (t,)."""
        return self.matrix.matvec(self._per_column(v))

    def block(self, examples: np.ndarray) -> np.ndarray:
        """``[u_k[i]]`` for the given examples i (rows of the result) and all rows k (columns)."""
        return self.matrix.block_t(examples, self._index).T


class DualSimplexMaster:
    """Row-form restricted master of LPBoost (one row per hypothesis), solved exactly.

    Same interface as :class:`~marginboost.soft_margin.restricted_lp.RestrictedMasterLP`:
    :meth:`add_hypothesis` then :meth:`solve` returns ``(w, d, gamma)``.
    Variables are numbered ``d_0..d_{m-1}`` (0..m-1), ``gamma`` (m), logical ``s_r`` (m+1+r).
    """

    def __init__(self, m: int, nu: float, weights: np.ndarray | None = None):
        self.m = m
        self.nu = nu
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.cap = np.full(m, 1.0 / nu) if weights is None else self.weights / nu
        self.n_rows = 0
        self.n_fallbacks = 0
        self.n_pivots = 0  # over all solves (pivots, not bound flips)
        self._rows = _Rows(m)
        self._basis = None  # positions -> variable ids; None before the first row is in
        self._cost_d = np.zeros(m)  # costs of the d_i: 0, or perturbed during a solve
        self._random = np.random.default_rng(0)  # the perturbation, the same in every run
        self._soft_margin = SoftMargin(nu, self.weights)
        self._highs = None  # a RestrictedMasterLP that took over for good (see _solve_by_highs)

    # ----------------------------------------------------------------------------- rows
    def add_hypothesis(self, u: np.ndarray) -> None:
        """Append the edge row ``u @ d - gamma <= 0`` of a new hypothesis with margins ``u``."""
        u = np.asarray(u, dtype=np.float64)
        if u.shape != (self.m,):
            raise ValueError(f"u must have shape ({self.m},), got {u.shape}")
        self._rows.add(u)
        self.n_rows += 1
        if self._highs is not None:
            self._highs.add_hypothesis(u)
        elif self._basis is None:
            self._first_basis(u)
        else:
            self._border(u)

    def _first_basis(self, u: np.ndarray) -> None:
        """Basis {s_0, gamma} for rows 0-1: ``y = (0, -1)``, so the reduced cost of ``d_i`` is
        ``u_i`` and each ``d_i`` sits at the bound that keeps it dual feasible (0 if ``u_i >= 0``)."""
        m = self.m
        self._basis = np.array([m + 1, m], dtype=np.int64)
        self._upper = u < 0.0
        self._x_d = np.where(self._upper, self.cap, 0.0)
        self._index_basis()
        if not self._reinvert():
            raise SolverError("dual simplex: the starting basis {s_0, gamma} is singular")  # it never is

    def _border(self, u: np.ndarray) -> None:
        """Add row R with its logical basic at position R: ``B^-1`` gains the row ``-a_B^T B^-1``."""
        R = self._basis.shape[0]
        a_B = self._row_on_basis(u)
        Binv = np.zeros((R + 1, R + 1))
        Binv[:R, :R] = self._Binv
        Binv[R, :R] = -(a_B @ self._Binv)
        Binv[R, R] = 1.0
        self._Binv = Binv
        gamma = self._xB[self._gpos]
        self._xB = np.append(self._xB, gamma - u @ self._x_d)
        self._row_norms = np.append(self._row_norms, Binv[R] @ Binv[R])
        self._basis = np.append(self._basis, self.m + 1 + R)
        self._lo_B = np.append(self._lo_B, 0.0)
        self._hi_B = np.append(self._hi_B, np.inf)
        self._y = np.append(self._y, 0.0)

    def _row_on_basis(self, u: np.ndarray) -> np.ndarray:
        """The new row's entries in the basic columns: ``u_j`` for ``d_j``, -1 for gamma, 0 for logicals."""
        b = self._basis
        a = np.zeros(b.shape[0])
        is_d = b < self.m
        a[is_d] = u[b[is_d]]
        a[b == self.m] = -1.0
        return a

    # ----------------------------------------------------------------------------- solve
    def solve(self) -> tuple[np.ndarray, np.ndarray, float]:
        """Solve and return ``(w, d, gamma)``: hypothesis weights, distribution, LP value."""
        if self.n_rows == 0:
            raise SolverError("the restricted master LP has no hypothesis row yet")
        if self._highs is not None:
            return self._highs.solve()
        if not (self._perturbed_iterate() and self._iterate()):
            return self._solve_by_highs()
        d = np.clip(self._x_d, 0.0, self.cap)
        d /= d.sum()
        w = np.clip(-self._y[1:], 0.0, None)
        total = w.sum()
        if not total > 0.0:
            raise SolverError("dual simplex: the hypothesis rows have no positive dual at the optimum")
        return w / total, d, float(self._xB[self._gpos])

    def _perturbed_iterate(self) -> bool:
        """Dual simplex on perturbed costs, then the true costs restored (HiGHS does the same).

        Examples with equal margins give equal reduced costs, so most ratio tests tie at a zero
        step and the dual simplex stalls for hundreds of pivots (dual degeneracy). Each
        nonbasic ``d_j`` gets the cost ``+-PERTURBATION * (0.5 + U(0,1))``, the sign that of its
        bound (at 0: +, at its cap: -), so the basis stays dual feasible and the ties are
        broken. Restoring the costs leaves the basis primal feasible and dual infeasible only by
        about the perturbation; :meth:`_recompute` repairs a boxed ``d_j`` by a bound flip, and the
        unperturbed pivots that follow (:meth:`_iterate`) are few.
        """
        nonbasic = self._pos_d < 0
        size = PERTURBATION * (0.5 + self._random.random(self.m))
        change = np.where(nonbasic, np.where(self._upper, -size, size), 0.0)
        self._cost_d += change
        self._rc_d += change
        ok = self._iterate(certify=False)
        self._cost_d[:] = 0.0
        self._recompute()
        return ok

    def _iterate(self, certify: bool = True) -> bool:
        """Pivots until an optimum (certified if ``certify``: True) or numerical trouble (False).

        Dual simplex pivots while a basic variable is out of its bounds. Once none is, the duals,
        reduced costs and primal values are recomputed from ``B^-1`` (the updates drift); then a
        logical ``s_k`` (k >= 1) with a negative reduced cost (a row dual of the wrong sign, left
        by rounding or by removing the cost perturbation) enters by a primal simplex pivot, and
        when there is none the optimum is certified by :meth:`_certified`. A failed certificate
        gets a fresh LAPACK inverse and more pivots; a second failure on a fresh inverse reports
        trouble.
        """
        R = self._basis.shape[0]
        limit = 50 * R + 1000
        fresh, dirty = False, True  # inverse just computed; values updated since the last recompute
        since_inverse = 0
        for _ in range(limit):
            if since_inverse >= REFACTOR_EVERY:
                if not self._reinvert():
                    return False
                fresh, dirty, since_inverse = True, False, 0
            r = self._leaving_row()
            if r >= 0:
                status = self._dual_pivot(r)
            elif dirty:
                self._recompute()
                dirty = False
                continue
            else:
                k = self._entering_logical()
                if k >= 0:
                    status = self._primal_pivot(k)
                elif not certify or self._certified():
                    return True
                elif fresh:
                    return False
                else:
                    status = "trouble"
            if status == "trouble":
                if fresh or not self._reinvert():
                    return False
                fresh, dirty, since_inverse = True, False, 0
                continue
            fresh, dirty = False, True
            since_inverse += 1
        return False

    def _certified(self) -> bool:
        """An optimality certificate that needs no inverse: the gap between two valid bounds.

        With ``d^`` the clipped, normalised primal ``d`` (feasible) and ``w^`` the clipped,
        normalised row duals (a point of the simplex), weak duality gives
        ``rho(U w^) <= gamma* <= max_k u_k @ d^`` (LP duality, paper 000 eq. 13, with ``rho``
        the soft margin); the basis is accepted when the two are within :data:`CERTIFICATE_TOL`
        and its own gamma lies between them.
        """
        d = np.clip(self._x_d, 0.0, self.cap)
        w = np.clip(-self._y[1:], 0.0, None)
        if not (d.sum() > 0.0 and w.sum() > 0.0):
            return False
        upper = float(np.max(self._rows_dot(d / d.sum())))
        lower = self._soft_margin.value(self._rows.times(w / w.sum()))
        gamma = float(self._xB[self._gpos])
        tol = CERTIFICATE_TOL * max(1.0, abs(upper))
        return upper - lower <= tol and lower - tol <= gamma <= upper + tol

    def _leaving_row(self) -> int:
        """The basic variable with the largest infeasibility^2 / ||row of B^-1||^2 (dual steepest edge), or -1."""
        return int(_steepest_infeasible(self._xB, self._lo_B, self._hi_B, self._row_norms, FEASIBILITY_TOL))

    def _entering_logical(self) -> int:
        """A nonbasic logical ``s_k`` (k >= 1) whose reduced cost ``-y_k`` is below ``-FEASIBILITY_TOL``, or -1."""
        rc_s = -self._y
        rc_s[0] = 0.0  # s_0 is fixed: any sign is dual feasible
        rc_s[self._basis[self._basis > self.m] - self.m - 1] = 0.0
        k = int(np.argmin(rc_s))
        return k if rc_s[k] < -FEASIBILITY_TOL else -1

    def _pivot_row(self, rho: np.ndarray) -> np.ndarray:
        """``rho^T a_j`` for the d_j columns ``a_j = (1, u_1j, .., u_tj)``."""
        return rho[0] + self._rows.times(rho[1:])

    def _column(self, q: int) -> np.ndarray:
        """The constraint column of variable ``q`` (a d_j or a logical; gamma never enters)."""
        a = np.zeros(self._basis.shape[0])
        if q < self.m:
            a[0] = 1.0
            a[1:] = self._rows.block(np.array([q]))[0]
        else:
            a[q - self.m - 1] = 1.0
        return a

    def _dual_pivot(self, r: int) -> str:
        """One dual simplex iteration with leaving row ``r``: BFRT with a Harris pass, updates."""
        m = self.m
        xB = self._xB
        rho = self._Binv[r].copy()
        to_upper = xB[r] > self._hi_B[r]
        bound = self._hi_B[r] if to_upper else self._lo_B[r]
        delta = abs(xB[r] - bound)
        s = 1.0 if to_upper else -1.0  # sign of the dual step theta

        alpha_d = self._pivot_row(rho)
        nonbasic_s = np.ones(rho.shape[0], dtype=np.bool_)
        nonbasic_s[self._basis[self._basis > m] - m - 1] = False
        nonbasic_s[0] = False  # s_0 is fixed at 0: any reduced cost is dual feasible
        q, ratio, flips = _bfrt(alpha_d, self._rc_d, self._pos_d, self._upper, self.cap, rho, self._y,
                                nonbasic_s, s, delta, PIVOT_TOL, HARRIS_TOL)
        if q < 0:
            return "trouble"  # no breakpoint: the dual would be unbounded, the LP infeasible
        theta = s * ratio
        row_value = alpha_d[q] if q < m else rho[q - m - 1]
        alpha_q = self._Binv @ self._column(q)
        if abs(alpha_q[r] - row_value) > CONSISTENCY_TOL * max(1.0, abs(row_value)):
            return "trouble"

        self._dual_step(theta, rho, alpha_d)
        self._flip(flips)
        self._basis_change(r, q, alpha_q, bound, to_upper, theta)
        return "ok"

    def _primal_pivot(self, k: int) -> str:
        """Logical ``s_k`` (negative reduced cost) enters; the primal ratio test picks who leaves."""
        q = self.m + 1 + k
        alpha_q = self._Binv[:, k].copy()  # B^-1 e_k
        xB, lo, hi = self._xB, self._lo_B, self._hi_B
        # s_k grows by theta >= 0 and x_B moves by -theta alpha_q.
        down = alpha_q > PIVOT_TOL
        up = alpha_q < -PIVOT_TOL
        slack = np.full(xB.shape[0], np.inf)
        slack[down] = np.maximum(xB[down] - lo[down], 0.0) / alpha_q[down]
        slack[up] = np.maximum(hi[up] - xB[up], 0.0) / -alpha_q[up]
        if not np.isfinite(slack).any():
            return "trouble"  # primal unbounded: gamma would go to -inf, which it cannot
        tol = np.where(down | up, FEASIBILITY_TOL / np.maximum(np.abs(alpha_q), PIVOT_TOL), np.inf)
        bound_ratio = np.min(slack + tol)
        near = np.flatnonzero(slack <= bound_ratio)
        r = int(near[np.argmax(np.abs(alpha_q[near]))])
        to_upper = bool(up[r])
        bound = hi[r] if to_upper else lo[r]
        rho = self._Binv[r].copy()
        alpha_d = self._pivot_row(rho)
        theta = -self._y[k] / alpha_q[r]  # rc_k / alpha_rk, the reduced cost of s_k being -y_k
        self._dual_step(theta, rho, alpha_d)
        self._basis_change(r, q, alpha_q, bound, to_upper, theta)
        self._repair_dual()
        return "ok"

    def _dual_step(self, theta: float, rho: np.ndarray, alpha_d: np.ndarray) -> None:
        """``y += theta rho``; the reduced costs of the d_j move by ``-theta alpha_j`` (0 for the basic)."""
        _step_duals(self._y, rho, self._rc_d, alpha_d, self._pos_d, theta)

    def _flip(self, js: np.ndarray) -> None:
        """Move the nonbasic ``d_j`` (j in ``js``) to their other bound and update ``x_B``."""
        if js.size == 0:
            return
        change = np.where(self._upper[js], -self.cap[js], self.cap[js])
        self._upper[js] = ~self._upper[js]
        self._x_d[js] += change
        a = np.empty(self._basis.shape[0])
        a[0] = change.sum()
        a[1:] = self._rows.block(js).T @ change
        self._xB -= self._Binv @ a
        self._sync_basic_d()

    def _repair_dual(self) -> None:
        """Flip every nonbasic boxed ``d_j`` whose reduced cost has the wrong sign for its bound."""
        rc = self._rc_d
        wrong = (self._pos_d < 0) & (self.cap > 0.0) & np.where(
            self._upper, rc > FEASIBILITY_TOL, rc < -FEASIBILITY_TOL)
        self._flip(np.flatnonzero(wrong))

    def _basis_change(self, r, q, alpha_q, bound, to_upper, theta) -> None:
        """Primal step that brings ``x_B[r]`` to ``bound``; ``q`` replaces it (product-form update)."""
        m = self.m
        xB, Binv = self._xB, self._Binv
        x_q = self._x_d[q] if q < m else 0.0
        theta_p = (xB[r] - bound) / alpha_q[r]
        xB -= theta_p * alpha_q
        xB[r] = x_q + theta_p
        leaving = int(self._basis[r])
        _eta_update(Binv, alpha_q, r, self._row_norms)
        if leaving < m:
            self._pos_d[leaving] = -1
            self._upper[leaving] = to_upper
            self._x_d[leaving] = bound
            self._rc_d[leaving] = -theta
        self._basis[r] = q
        if q < m:
            self._pos_d[q] = r
            self._rc_d[q] = 0.0
            self._lo_B[r], self._hi_B[r] = 0.0, self.cap[q]
        else:
            self._lo_B[r], self._hi_B[r] = 0.0, (0.0 if q == m + 1 else np.inf)
        self._sync_basic_d()
        self.n_pivots += 1

    # ----------------------------------------------------------------------------- refactor
    def _sync_basic_d(self) -> None:
        is_d = self._basis < self.m
        self._x_d[self._basis[is_d]] = self._xB[is_d]

    def _index_basis(self) -> None:
        """Bounds of the basic variables by position, gamma's position and ``pos_d``, from ``_basis``."""
        b, m = self._basis, self.m
        lo = np.zeros(b.shape[0])
        hi = np.full(b.shape[0], np.inf)
        is_d = b < m
        hi[is_d] = self.cap[b[is_d]]
        lo[b == m] = -np.inf
        hi[b == m + 1] = 0.0  # s_0 is fixed
        self._lo_B, self._hi_B = lo, hi
        self._gpos = int(np.flatnonzero(b == m)[0])
        self._pos_d = np.full(m, -1, dtype=np.int64)
        self._pos_d[b[is_d]] = np.flatnonzero(is_d)

    def _reinvert(self) -> bool:
        """A fresh ``B^-1`` by LAPACK, then :meth:`_recompute`. False when the basis is singular."""
        m, b = self.m, self._basis
        R = b.shape[0]
        B = np.zeros((R, R))
        pos_d = np.flatnonzero(b < m)
        if pos_d.size:
            B[0, pos_d] = 1.0
            B[1:, pos_d] = self._rows.block(b[pos_d]).T
        B[1:, b == m] = -1.0
        for i in np.flatnonzero(b > m):
            B[b[i] - m - 1, i] = 1.0
        try:
            Binv = np.linalg.inv(B)
        except np.linalg.LinAlgError:
            return False
        if not np.all(np.isfinite(Binv)):
            return False
        self._Binv = Binv
        self._row_norms = np.einsum("ij,ij->i", Binv, Binv)
        self._recompute()
        return True

    def _recompute(self) -> None:
        """Duals, reduced costs and primal values from ``B^-1`` and the nonbasic bounds.

        A boxed ``d_j`` whose reduced cost has the wrong sign for its bound is moved to the other
        bound first, which keeps the basis dual feasible."""
        m, b, Binv = self.m, self._basis, self._Binv
        R = b.shape[0]
        pos_d = np.flatnonzero(b < m)
        c_B = np.zeros(R)
        c_B[self._gpos] = 1.0
        c_B[pos_d] = self._cost_d[b[pos_d]]
        self._y = Binv.T @ c_B
        self._rc_d = self._cost_d - self._pivot_row(self._y)
        self._rc_d[b[pos_d]] = 0.0
        nonbasic = self._pos_d < 0
        wrong = nonbasic & (self.cap > 0.0) & np.where(
            self._upper, self._rc_d > FEASIBILITY_TOL, self._rc_d < -FEASIBILITY_TOL)
        self._upper[wrong] = ~self._upper[wrong]
        x_n = np.where(nonbasic & self._upper, self.cap, 0.0)
        rhs = np.zeros(R)
        rhs[0] = 1.0 - x_n.sum()
        rhs[1:] = -self._rows_dot(x_n)
        self._xB = Binv @ rhs
        self._x_d = x_n
        self._sync_basic_d()

    def _rows_dot(self, x: np.ndarray) -> np.ndarray:
        """``u_k @ x`` for every row k (t,)."""
        return self._rows.matrix.rmatvec(x)[self._rows._index]

    # ----------------------------------------------------------------------------- fallback
    def _solve_by_highs(self):
        """Solve the same LP with HiGHS; load its optimal basis, or keep HiGHS for good.

        Returns HiGHS' ``(w, d, gamma)``. When its basis reinverts to a verified optimum here, the
        next rounds are hot-started from it by this solver again. When it does not (HiGHS accepts
        a basis within its own tolerances, 1e-7, e.g. caps that sum to 1 - 1e-16), the HiGHS model
        stays and solves every later round: the behaviour of
        :class:`~marginboost.soft_margin.restricted_lp.RestrictedMasterLP`, never worse.
        """
        self.n_fallbacks += 1
        lp = RestrictedMasterLP(self.m, self.nu, self.weights)
        for k in range(self.n_rows):
            lp.add_hypothesis(self._row(k))
        answer = lp.solve()
        basis = lp._highs.getBasis()
        col = np.array([int(s) for s in basis.col_status])
        row = np.array([int(s) for s in basis.row_status])
        basic = int(highspy.HighsBasisStatus.kBasic)
        m = self.m
        self._basis = np.concatenate([np.flatnonzero(col == basic), m + 1 + np.flatnonzero(row == basic)])
        self._upper = col[:m] == int(highspy.HighsBasisStatus.kUpper)
        self._x_d = np.where(self._upper, self.cap, 0.0)
        loaded = (self._basis.shape[0] == self.n_rows + 1 and np.count_nonzero(self._basis == m) == 1)
        if loaded:
            self._index_basis()
            loaded = self._reinvert() and self._leaving_row() < 0 and self._entering_logical() < 0
        if not loaded:
            self._highs = lp
        return answer

    def _row(self, k: int) -> np.ndarray:
        return self._rows.matrix.column(self._rows.row_col[k]).copy()
