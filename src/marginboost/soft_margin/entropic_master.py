"""ERLPBoost's restricted master: the entropy-regularised problem over the hypotheses so far.

Paper 000, eq. 14 (Warmuth, Glocer, Vishwanathan 2008, eq. 9 in its dual form)::

    w^E = argmax_{w in simplex_t}  rho~(U w),
    rho~(q) = min_{d in P(m, nu)} d @ q + Delta(d)/eta = -f~*(-q).

``U`` (m x t) holds the margin columns of the hypotheses found so far. The objective is
concave and smooth in ``w`` with

    gradient  g = U^T d(Uw),
    Hessian   -eta * U_F^T (diag(d_F) - d_F d_F^T / s_F) U_F,

where ``F`` are the examples whose weight is below its cap ``s_i/nu`` (capped weights do not
move locally) and ``s_F = sum_{i in F} d_i``.

We solve it with an active-set Newton method over the simplex (our own method; it is checked
against an independent conic solver in ``tests/test_entropic_master.py``):

1. On the face spanned by the support ``S`` of ``w`` and the coordinate ``j`` of largest
   gradient, take the Newton step of the equality-constrained quadratic model (KKT system
   with ``sum v = 0``), truncated to stay feasible (a coordinate that reaches 0 leaves
   ``S``), with an exact line search (:func:`~marginboost.core.line_search.newton_line_search`).
2. When that step is no ascent direction, would make ``w_j`` negative, or makes no progress,
   take a Frank-Wolfe step toward ``e_j`` instead (exact line search), which always progresses.

It stops when the Frank-Wolfe duality gap ``max_j g_j - g @ w``, an upper bound on
``rho~* - rho~(Uw)``, is at most ``tol``. Only examples with non-negligible weight enter the
Hessian; this changes the Newton model, not the objective, which every step evaluates exactly.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dsyrk, ssyrk
from scipy.linalg.lapack import dpotrf, dpotrs

from marginboost.core.line_search import newton_line_search
from marginboost.core.margin_matrix import as_margin_matrix
from marginboost.soft_margin._entropic_master import (  # the compiled loops (_entropic_master.pyx)
    _kkt_matrix,
    _largest,
    _lowers_a_zero,
    _ratio_test,
    _rows_between,
    _scaled_centred_gram,
    _stepped,
    _support_with,
    _symmetric_hessian,
    _systematic_sample,
)
from marginboost.soft_margin.objectives import SmoothedSoftMargin


class EntropicMasterResult:
    """Solution of the entropic master: weights, margins ``U w``, distribution, value, gap, iterations."""

    __slots__ = ("w", "q", "d", "value", "gap", "n_iter", "converged")

    def __init__(self, w, q, d, value, gap, n_iter, converged):
        self.w, self.q, self.d, self.value = w, q, d, value
        self.gap, self.n_iter, self.converged = gap, n_iter, converged


_HESSIAN_BLOCK = 8192  # rows per block: the gathered block stays small next to U
_FAR_GAP = 3.0  # solve_entropic_master's far_hessian_sample: a rough model while the gap exceeds this x tol
_FAR_LINE_SEARCH_RTOL = 0.1  # and a loose line search with it (the Newton rule's default rtol)
# A row of +-1 columns in bits costs about this many times less in the sampled integer Gram than in
# the exact float32 sum (1024 rows x 100 columns: bits gathered and popcounted 31 us, float32 gather
# 70 us and ssyrk 126 us; issue 17): over more than sample / this free rows, draw the sample.
_INTEGER_GRAM_GAIN = 4


def _face_hessian(U, d, support, objective, cap, cutoff, sample=None, single=False):
    """Minus the Hessian of ``rho~(U w)`` in the support's coordinates (positive semidefinite).

    It is ``eta * sum_{i in F} c_i (u_i - mu)(u_i - mu)^T`` with ``c_i = d_i`` and ``mu`` their
    ``c``-weighted mean (the margins ``u_i`` restricted to the support). Examples with ``d_i <= cutoff * max(d)`` are left out of ``F``: their curvature
    ``eta d_i`` is negligible, and the sum costs ``|F| t^2``. When more than ``sample``
    examples remain, the sum is estimated from ``sample`` of them drawn in proportion to ``d``
    by systematic sampling (deterministic: evenly spaced points on the cumulative weights),
    each with weight ``sum_F d / sample``, the sub-sampled Newton method of Byrd, Chin, Neveitt
    and Nocedal (SIAM J. Optim. 2011); its relative error is about ``sqrt(t / sample)``, and the
    line search keeps every step an ascent.

    The rows are gathered in blocks of ``_HESSIAN_BLOCK`` (the extra memory is one block, not a
    copy of ``U_F``: at m = 10^6 a full gather was 3.4x X), scaled by ``sqrt(c)``, and their Gram
    matrix accumulated by ``dsyrk``; ``mu`` is summed alongside and ``total mu mu^T`` subtracted.
    With ``single`` the blocks are first centred on ``mu`` (summed over the rows of ``F`` only, not by
    a product with all of U) and the Gram matrix summed in float32 by ``ssyrk``: half the time,
    where ``dsyrk`` was most of a Newton step at m = 10^5 (issue 17). Centred, the float32 sum has
    no cancellation (``E[u^2] - mu^2`` would lose all digits of a column nearly constant on ``F``);
    its relative error, about 1e-6, is far below the sampling error, and the model's ridge is then
    above it (:func:`_newton_direction`).
    A solve to a tight tolerance needs float64: at eps = 1e-6 ERLPBoost's master with the float32
    Hessian stopped at 500 iterations, its Newton steps no longer quadratic.

    A sample of +-1 columns held in bits (:meth:`~marginboost.core.bit_matrix.BitMarginMatrix.sign_gram`)
    needs no floats at all: its weights are equal, so the sum is ``eta total / n^2 (n S - s s^T)``
    with ``S = sum_r u_r u_r^T`` and ``s = sum_r u_r`` over the ``n`` rows drawn, both integers
    (``S_ij = n - 2 popcount(b_i xor b_j)`` of the columns' bits): exact up to the last rounding, and
    for 2^15 rows of 100 columns 1.6 ms where the float32 mean, gather and ``ssyrk`` took 8.9 ms
    (issue 17; the Newton rule's update at 10^5 x 50 went from 6.5 to 3.8 ms a round). A row costs
    about ``_INTEGER_GRAM_GAIN`` times less there than in float32, so with bits the sample is drawn
    already when more than ``sample / _INTEGER_GRAM_GAIN`` examples are free (the draws then repeat
    rows: the weights rounded to multiples of ``sum_F d / sample``). Measured against drawing only
    above ``sample`` (5 stratified 90% subsamples of ringnorm, twonorm, banana at nu in {0.1, 0.5}m,
    eps = 0.01, hessian_sample 1024, fit time summed; EdgeTree(2) / HistogramTree(2)):
    7.23 -> 7.01 s and 3.79 -> 3.54 s, rounds 4871 -> 4927 and 4690 -> 4670.
    """
    U = as_margin_matrix(U)
    if hasattr(U, "face_hessian"):  # columns kept elsewhere (marginboost.dask): the matrix sums it there
        return U.face_hessian(d, support, objective, cap, cutoff, sample, single)
    k = support.size
    in_bits = hasattr(U, "sign_gram")
    threshold = sample // _INTEGER_GRAM_GAIN if in_bits and sample is not None else sample
    rows, total, sampled = _free_rows(d, cap, cutoff, sample, threshold)
    if sampled:
        if in_bits:  # +-1 columns in bits, equal weights: the exact integer Gram
            S, s = U.sign_gram(rows, support)
            return _scaled_centred_gram(S, s, rows.size, objective.eta * total / (rows.size * rows.size))
        c = np.full(sample, total / sample)
    else:
        c = d[rows]
    if not rows.size:
        return np.zeros((k, k))
    total = c.sum()
    if single and rows.size <= _HESSIAN_BLOCK:  # one block: its mean from the same read of the bits
        block, mean = U.weighted_centred_block_t32(rows, support, c, total)
        H = ssyrk(1.0, block.T, trans=1)  # upper triangle of B^T B
        return _symmetric_hessian(H, objective.eta, 0.0, mean, False)
    if single:
        mean = U.weighted_row_sum(rows, support, c) / total
        H = np.zeros((k, k), dtype=np.float32, order="F")
    else:
        mean = np.zeros(k)
        H = np.zeros((k, k), order="F")
    # A block is gathered as (k, n) in C order, so its transpose is the Fortran-order (n, k)
    # matrix syrk takes without a copy (a C-order (n, k) block made the BLAS wrapper copy it).
    for lo in range(0, rows.size, _HESSIAN_BLOCK):
        part = slice(lo, lo + _HESSIAN_BLOCK)
        if single:
            block = U.centred_block_t32(rows[part], support, mean, np.sqrt(c[part]))
            H = ssyrk(1.0, block.T, beta=1.0, c=H, trans=1, overwrite_c=1)  # upper triangle of B^T B
        else:
            block = U.block_t(rows[part], support)
            mean += block @ c[part]
            block *= np.sqrt(c[part])
            H = dsyrk(1.0, block.T, beta=1.0, c=H, trans=1, overwrite_c=1)
    if not single:
        mean /= total
    return _symmetric_hessian(H, objective.eta, 0.0 if single else total, mean, not single)


def _free_rows(d, cap, cutoff, sample=None, threshold=None):
    """``F``: the examples with ``cutoff * max(d) < d_i < cap_i (1 - 1e-12)``, in increasing order
    (``cap``: a scalar or one cap per example); when more than ``threshold`` are free, the
    ``sample`` of them drawn by :func:`_systematic_sample` instead. Returns ``(rows, total,
    sampled)``, ``total`` the sum of ``d`` over ``F`` when sampled (else 0). One compiled call where
    numpy's max, comparisons, ``&``, ``flatnonzero`` and gathers took 12 us and more at m = 7400
    (issue 17)."""
    threshold = -1 if sample is None else threshold
    sample = 0 if sample is None else sample
    if np.ndim(cap) == 0:
        return _rows_between(d, float(cap), np.empty(0), False, cutoff, sample, threshold)
    return _rows_between(d, 0.0, cap, True, cutoff, sample, threshold)


def _newton_direction(U, w, d, g, support, objective, cap, cutoff, sample=None, single=False):
    """Newton step of the quadratic model restricted to the face ``{v : v_S free, sum v = 0}``,
    with the Hessian ``H`` of :func:`_face_hessian` (in float32 with ``single``): the solution of
    ``(H + reg I) v + lam 1 = g_S``, ``1^T v = 0``.

    With ``single`` (one step of a rough model, ridge ``1e-5`` of the mean curvature) by the
    Cholesky factor of ``A = H + reg I``: ``x = A^-1 g_S``, ``y = A^-1 1``, ``v = x - (1^T x / 1^T y) y``
    (then ``1^T v = 0``); half the flops of the LU of the bordered (k+1) x (k+1) system: 355 ->
    217 us at k = 250, 46 -> 31 us at k = 100 (one thread; issue 17). Where the factorisation fails
    (``A`` not positive definite in floating point), and for the float64 model of a solve to a tight
    tolerance, the bordered system's LU: with the ridge at 1e-10, ``A`` can be so ill-conditioned
    that ``x`` and ``y`` cancel in ``v`` (ERLPBoost's master then missed a 1e-10 gap in 500 steps)."""
    k = support.size
    H = _face_hessian(U, d, support, objective, cap, cutoff, sample, single)
    # A tiny ridge keeps the system solvable when columns coincide on the free examples; in
    # float32 a larger one, above the Hessian's rounding (about 1e-6 of it; see _face_hessian).
    reg = (1e-5 if single else 1e-10) * max(np.trace(H) / k, 1e-8)
    v = np.zeros(w.shape[0])
    v[support] = _face_newton_step(H, reg, g[support], by_cholesky=single)
    return v


def _face_newton_step(H, reg, g, by_cholesky=True):
    """``v`` with ``(H + reg I) v + lam 1 = g`` and ``1^T v = 0`` (see :func:`_newton_direction`)."""
    k = H.shape[0]
    info = 1
    if by_cholesky:
        A = np.array(H, order="F")  # a copy for LAPACK to factorise in place; H stays for the fallback
        A.flat[:: k + 1] += reg
        factor, info = dpotrf(A, lower=0, clean=0, overwrite_a=1)
    if info == 0:
        rhs = np.empty((k, 2), order="F")
        rhs[:, 0] = g
        rhs[:, 1] = 1.0
        sol, info = dpotrs(factor, rhs, lower=0, overwrite_b=1)
        total = sol[:, 1].sum()
        if info == 0 and total > 0.0:  # 1^T A^-1 1 > 0 for A positive definite
            return sol[:, 0] - (sol[:, 0].sum() / total) * sol[:, 1]
    kkt = _kkt_matrix(H, reg)
    rhs = np.append(g, 0.0)
    try:
        return np.linalg.solve(kkt, rhs)[:k]
    except np.linalg.LinAlgError:  # singular despite the ridge (duplicate columns): least squares
        return np.linalg.lstsq(kkt, rhs, rcond=None)[0][:k]


def solve_entropic_master(
    U,
    objective: SmoothedSoftMargin,
    w0: np.ndarray,
    tol: float = 1e-9,
    max_iter: int = 500,
    hessian_cutoff: float = 1e-14,
    line_search_rtol: float = 1e-12,
    hessian_sample: int | None = None,
    final_gap: bool = True,
    start: tuple | None = None,
    unit_step: bool = False,
    single_precision_hessian: bool = False,
    far_hessian_sample: int | None = None,
) -> EntropicMasterResult:
    """Maximise ``rho~(U w)`` over the simplex, starting from the feasible ``w0``.

    ``hessian_cutoff``, ``hessian_sample`` and ``line_search_rtol`` trade the quality of each
    step for its cost (see :func:`_newton_direction` and
    :func:`~marginboost.core.line_search.newton_line_search`); the stopping test, on the exact duality gap, does
    not depend on them. ``final_gap=False`` skips the gap after the last of ``max_iter``
    iterations (an m x t product) for callers that do not use it: the result then has
    ``gap = nan`` and ``converged = False``. ``start = (q, d)``: ``U w0`` and its distribution,
    when the caller has them (saves a product and a projection). ``single_precision_hessian``:
    the face Hessian summed in float32 (:func:`_face_hessian`; half the time, for callers that
    take a step or a few rather than solve to a tight tolerance).

    ``unit_step=True`` replaces the exact line search by :func:`_unit_step` (at most two
    projections; the exact search at rtol 0.1 takes two or three): the step's natural length (1 for Newton, up to the
    boundary), or, where the objective already descends there, the root of the secant of its
    slope; where that would lower the objective (it overshot the maximum), the exact search.

    ``far_hessian_sample``: while the gap exceeds ``_FAR_GAP`` times ``tol``, the Newton model's
    Hessian is estimated from this many rows (as ``hessian_sample``: sub-sampled Newton) instead of
    from ``hessian_sample``'s, and its line search stops at relative accuracy
    ``_FAR_LINE_SEARCH_RTOL`` (or ``line_search_rtol`` if looser); from the first such rough step
    that fails to lower the gap or makes no step, and wherever the gap is within ``_FAR_GAP`` of
    ``tol``, the model and the line search are ``hessian_sample``'s and ``line_search_rtol``'s
    again, for the fast convergence near the optimum. Far from it a rough step gains about as much,
    at a fraction of the cost of the exact ``|F| t^2`` sum and of a line search to 1e-12 (see
    :class:`~marginboost.soft_margin.secondary.EntropyRule`). The stopping test does not depend on it.

    ``U``: the margin matrix, a :class:`~marginboost.core.margin_matrix.MarginMatrix` or
    :class:`~marginboost.core.bit_matrix.BitMarginMatrix` (only its products and blocks are used),
    or an (m, t) array.
    """
    U = as_margin_matrix(U)
    w = np.asarray(w0, dtype=np.float64).copy()
    cap = 1.0 / objective.nu if objective.weights is None else objective.weights / objective.nu
    newton_stalled = False
    rough_allowed = far_hessian_sample is not None
    rough, last_gap = False, np.inf  # the last step's model was far_hessian_sample's; the gap before it
    known = start  # (q, d) at w, when already computed
    for it in range(max_iter + 1):
        if known is not None:
            q, d = known
            known = None
        else:
            q = U.matvec(w)
            d = objective.distribution(q)
        if it == max_iter and not final_gap:
            return EntropicMasterResult(w, q, d, objective.value_at(q, d), np.nan, it, False)
        g = U.rmatvec(d)
        gap = float(g.max() - g @ w)
        if gap <= tol or it == max_iter:
            return EntropicMasterResult(w, q, d, objective.value_at(q, d), gap, it, gap <= tol)
        j_best = int(np.argmax(g))
        support = _support_with(w, j_best)
        v = None
        if rough and not gap < last_gap:  # the rough model's step did not lower the gap: exact from now on
            rough_allowed = False
        rough = rough_allowed and gap > _FAR_GAP * tol
        if support.size > 1 and not newton_stalled:
            v = _newton_direction(U, w, d, g, support, objective, cap, hessian_cutoff,
                                  far_hessian_sample if rough else hessian_sample, single_precision_hessian)
            # Not an ascent direction numerically, or it would push a zero weight negative:
            # take a Frank-Wolfe step instead, which always adds j_best.
            if not g @ v > 0.0 or _lowers_a_zero(w, v):
                v = None
        used_newton = v is not None
        if v is None:
            v = -w
            v[j_best] += 1.0
        blocking, lam_max = _ratio_test(w, v)
        # A Newton step has natural length 1; allow the line search to go a little past it.
        delta = U.matvec(v)
        lam = None
        if unit_step:
            lam, known = _unit_step(objective, q, delta, min(lam_max, 1.0), float(d @ delta))
            if known is not None and objective.value_at(*known) < objective.value_at(q, d):
                lam, known = None, None  # the secant overshot the maximum: search exactly instead
        if lam is None:
            rtol = max(line_search_rtol, _FAR_LINE_SEARCH_RTOL) if rough else line_search_rtol
            lam, *known = newton_line_search(objective, q, d, delta, min(lam_max, 2.0), rtol)
        if used_newton and lam == 0.0 and rough:  # a rough model's dead end: the exact model next
            rough_allowed = False
        else:
            newton_stalled = used_newton and lam == 0.0
        rough = rough and used_newton
        last_gap = gap
        w = _stepped(w, lam, v, lam >= lam_max, blocking)
        w /= w.sum()
    raise AssertionError("unreachable: the last iteration returns")


def _unit_step(objective, q, delta, lam_max, slope_at_zero):
    """A step along ``delta`` from ``q`` for at most two projections; returns ``(lam, (q', d'))``.

    ``rho~`` is concave along the line, its slope ``d(q + lam delta) @ delta`` non-increasing.
    If the slope is still >= 0 at ``lam_max`` (the Newton step's natural length 1, or the
    boundary), the step is ``lam_max``. Otherwise the root of the slope lies in
    ``(0, lam_max)`` and the step is the root of its secant through 0 and ``lam_max``:
    ``lam = lam_max s0 / (s0 - s1)``. ``(q', d')`` are the margins and distribution there, so
    the next iteration starts without a projection.
    """
    if slope_at_zero <= 0.0 or lam_max <= 0.0:
        return 0.0, None
    q1 = q + lam_max * delta
    d1 = objective.distribution(q1)
    slope = float(d1 @ delta)
    if slope >= 0.0:
        return lam_max, (q1, d1)
    lam = lam_max * slope_at_zero / (slope_at_zero - slope)
    q2 = q + lam * delta
    return lam, (q2, objective.distribution(q2))
