"""TotalBoost (Warmuth, Liao, Raetsch, ICML 2006) and SoftBoost (Warmuth, Glocer, Raetsch, NIPS 2007).

Both are totally corrective: every round re-projects the uniform distribution ``d^0`` onto
all the edge constraints seen so far. With ``delta`` the accuracy (``nu`` in the TotalBoost
paper, ``delta`` in the SoftBoost paper; ``eps`` in our estimators) and ``nu`` the capping
parameter (``nu = 1`` for TotalBoost)::

    d^0 = uniform
    for t = 1, 2, ...
        h_t = WL(d^{t-1}),  u_t = y * h_t(X),  gamma_t = d^{t-1} @ u_t          (the edge)
        gamma_hat_t = min_{q <= t} gamma_q - delta
        d^t = argmin_{d in P(m, nu)} Delta(d, d^0)  s.t.  d @ u_q <= gamma_hat_t,  q <= t
        if that set is empty (or d^t has a zero): stop
    output w = argmax_{w in simplex_T} min_{d in P(m, nu)} d @ U w        (the LP over h_1..h_T)

The set is empty or has a zero iff the restricted LP value
``rho_t = max_w soft margin(U_t w) = min_{d in P} max_q d @ u_q`` is at least ``gamma_hat_t``
(a set without a strictly feasible point has all its points on a face d_i = 0, and
conversely, LP duality). So each round solves the LP (LPBoost's hot-started master,
:class:`marginboost.soft_margin.dual_simplex.DualSimplexMaster`, certified optimal; HiGHS'
:class:`~marginboost.soft_margin.restricted_lp.RestrictedMasterLP` until issue 17, 5-7x slower
here) and stops when ``rho_t >= gamma_hat_t - tau``,
``tau = 1e-9`` for rounding; otherwise the projection comes from
:func:`marginboost.totally_corrective.edge_projection.project_onto_edge_constraints`. At the stop the LP weights have soft
margin ``rho_T >= min_t gamma_t - delta``; an exact weak learner returns edges at least the
optimal soft margin ``rho*`` over all of H, so ``rho* - delta <= rho_T <= rho*``.

Iteration bound (both papers): each projection raises ``Delta(d^t, d^0)`` by at least
``delta^2 / 2`` (generalised Pythagoras + Pinsker: ``d^{t-1} @ u_t >= gamma_hat_t + delta``
while ``d^t @ u_t <= gamma_hat_t``), and ``Delta <= ln(m/nu)`` on ``P(m, nu)``, so at most
``ceil(2 ln(m/nu) / delta^2)`` rounds (TotalBoost: ``ceil(2 ln(m) / delta^2)``). The
history records ``Delta(d^t, d^0)`` per round so that tests can check that step.

The loop is :class:`SoftBoostLoop`, run by the round driver
:func:`marginboost.core.rounds.run_rounds`; the margin columns are kept in a
:class:`~marginboost.core.bit_matrix.GrowingMarginMatrix` (bits for +-1 hypotheses; appended to,
never copied).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from marginboost.core.bit_matrix import GrowingMarginMatrix
from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, history_columns, run_rounds
from marginboost.soft_margin.dual_simplex import DualSimplexMaster
from marginboost.soft_margin.objectives import soft_margin
from marginboost.totally_corrective.edge_projection import project_onto_edge_constraints

__all__ = ["HISTORY_COLUMNS", "SoftBoostLoop", "iteration_bound", "softboost"]

# One row per round (weak-learner call). The driver adds 'round' (weak-learner calls so far)
# first and 'time' (seconds since the start, at the end of the round) last.
LOOP_COLUMNS = (
    "edge",  # gamma_t = d^{t-1} @ u_t
    "best_edge",  # min_{q <= t} gamma_q
    "target",  # gamma_hat_t = best_edge - delta
    "lp_value",  # rho_t = min_{d in P} max_q d @ u_q, the restricted LP's value
    "soft_margin",  # soft margin of U_t w_t (the LP weights), recomputed from the margins
    "entropy",  # Delta(d^t, uniform) of the projection (nan in the stopping round)
    "projection_kkt",  # KKT residual of the projection (edge violation), nan in the stopping round
)
HISTORY_COLUMNS = history_columns(LOOP_COLUMNS)

_STOP_TOL = 1e-9


def iteration_bound(m: int, nu: float, delta: float) -> int:
    """``ceil(2 ln(m/nu) / delta^2)``: the most rounds TotalBoost (``nu = 1``) or SoftBoost take.

    Any ``delta > 0``: where ``delta^2`` underflows (``delta < 1.5e-154``) or the quotient
    overflows a float, the bound is the exact (huge) integer, computed in rationals, not a
    ``ZeroDivisionError`` or ``OverflowError``.
    """
    if not delta > 0.0:
        raise ValueError(f"delta must be > 0, got {delta!r}")
    square = delta**2
    bound = 2.0 * math.log(m / nu) / square if square > 0.0 else math.inf
    if math.isfinite(bound):
        return max(math.ceil(bound), 1)
    return max(math.ceil(Fraction(2.0 * math.log(m / nu)) / Fraction(delta) ** 2), 1)


class SoftBoostLoop(RoundLoop):
    """SoftBoost (``nu = 1``: TotalBoost) as a :class:`~marginboost.core.rounds.RoundLoop`.

    The committed state is ``(w, d, beta, best_edge)``: the LP weights over the distinct
    columns so far, the distribution ``d^t`` the next round asks the weak learner with, the
    projection's multipliers (one per column, its next warm start) and the smallest edge so
    far. The hypotheses, the margin matrix ``U`` (:class:`~marginboost.core.bit_matrix.GrowingMarginMatrix`)
    and the restricted LP only grow; a round rolled back (Ctrl-C) is cut from them by the
    length of ``w`` (the LP, which cannot drop a row, is rebuilt from the columns kept).
    """

    columns = LOOP_COLUMNS
    progress = ("soft_margin", "target")  # it stops once the LP value reaches the target

    def __init__(self, oracle, y: np.ndarray, nu: float, delta: float):
        self.oracle, self.y, self.nu, self.delta = oracle, y, nu, delta
        self.margins = GrowingMarginMatrix(y.shape[0])
        self.lp = DualSimplexMaster(y.shape[0], nu)
        self.hypotheses: list = []

    def _start(self):
        m = self.y.shape[0]
        return np.zeros(0), np.full(m, 1.0 / m), np.zeros(0), np.inf

    def _rollback(self, n: int) -> None:
        """Forget the columns (and hypotheses, LP rows) past the first ``n``."""
        self.margins.truncate(n)
        del self.hypotheses[n:]
        if self.lp.n_rows > n:
            self.lp = DualSimplexMaster(self.y.shape[0], self.nu)
            for j in range(n):
                self.lp.add_hypothesis(self.margins.column(j))

    def step(self, state, round_):
        """One round: ``h_t = WL(d^{t-1})``, the LP over ``h_1..h_t``, and the stop or the projection ``d^t``."""
        w, d, beta, best_edge = state if state is not None else self._start()
        self._rollback(w.shape[0])
        h, pred = self.oracle(d)
        u = self.y * np.asarray(pred, dtype=np.float64)
        edge = float(d @ u)
        best_edge = min(best_edge, edge)
        target = best_edge - self.delta
        _, is_new = self.margins.add(u)
        if is_new:
            self.hypotheses.append(h)
            self.lp.add_hypothesis(u)
            beta = np.append(beta, 0.0)
        w, _, rho = self.lp.solve()
        entropy = kkt = math.nan
        stop = None
        if rho >= target - _STOP_TOL:  # projection infeasible or on a face d_i = 0
            stop = Status.CONVERGED
        else:
            proj = project_onto_edge_constraints(self.margins, target, self.nu, beta0=beta)
            d, beta, entropy, kkt = proj.d, proj.beta, proj.entropy, proj.kkt
        row = {"edge": edge, "best_edge": best_edge, "target": target, "lp_value": rho,
               "soft_margin": soft_margin(self.margins.matvec(w), self.nu), "entropy": entropy, "projection_kkt": kkt}
        return RoundOutcome(row, (w, d, beta, best_edge), stop=stop, path=(w, None))

    def ensemble(self, state):
        """The distinct hypotheses and their LP weights at ``state``; no offset (the estimators'
        decision function at that round)."""
        w = state[0]
        return self.hypotheses[: w.shape[0]], w, 0.0

    def result(self, state, status, rounds):
        """The fit at ``state``: LP ``weights`` and, in ``final``, their ``soft_margin``."""
        w = state[0] if state is not None else np.zeros(0)  # None: no round ran (max_iter=0)
        margins = rounds.history["soft_margin"]
        return FitResult(
            hypotheses=self.hypotheses[: w.shape[0]],
            weights=w,
            status=status,
            n_iter=rounds.n_iter,
            history=rounds.history,
            weights_path=rounds.weights_path,
            final={"soft_margin": float(margins[-1]) if margins.shape[0] else math.nan},
        )


def softboost(oracle, y: np.ndarray, nu: float, delta: float, max_iter: int,
              max_time: float | None = None, callbacks=(), verbose: int = 0,
              name: str | None = None) -> FitResult:
    """Run SoftBoost with capping ``nu`` (``nu = 1``: TotalBoost) and accuracy ``delta``.

    The loop is :class:`SoftBoostLoop`, driven by :func:`~marginboost.core.rounds.run_rounds`:
    at most ``max_iter`` rounds and, if given, ``max_time`` seconds (status ``'max_time'``);
    ``KeyboardInterrupt`` returns the rounds completed (status ``'interrupted'``, :mod:`marginboost.core.interrupts`).
    ``callbacks``, ``verbose``, ``name`` (of the progress lines): as for
    :func:`~marginboost.core.rounds.run_rounds`.

    ``oracle(d) -> (hypothesis, predictions on X)`` as in :mod:`.weak_learners.base`.
    A hypothesis whose margin column repeats an earlier one adds no constraint that is not
    already there (its edge still lowers ``gamma_hat``); it is not stored twice.

    Returns a :class:`~marginboost.core.rounds.FitResult`: the hypotheses, their LP weights
    (``weights``, on the simplex), the weights path, and in ``final`` the ``soft_margin`` of the
    final weights.
    """
    loop = SoftBoostLoop(oracle, y, nu, delta)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks, verbose=verbose,
                      name=name or ("TotalBoost" if nu == 1.0 else "SoftBoost"))
