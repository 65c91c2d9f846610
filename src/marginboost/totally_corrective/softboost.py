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
conversely, LP duality). So each round solves the LP (HiGHS, warm-started,
:class:`marginboost.soft_margin.restricted_lp.RestrictedMasterLP`) and stops when ``rho_t >= gamma_hat_t - tau``,
``tau = 1e-9`` for rounding; otherwise the projection comes from
:func:`marginboost.totally_corrective.edge_projection.project_onto_edge_constraints`. At the stop the LP weights have soft
margin ``rho_T >= min_t gamma_t - delta``; an exact weak learner returns edges at least the
optimal soft margin ``rho*`` over all of H, so ``rho* - delta <= rho_T <= rho*``.

Iteration bound (both papers): each projection raises ``Delta(d^t, d^0)`` by at least
``delta^2 / 2`` (generalised Pythagoras + Pinsker: ``d^{t-1} @ u_t >= gamma_hat_t + delta``
while ``d^t @ u_t <= gamma_hat_t``), and ``Delta <= ln(m/nu)`` on ``P(m, nu)``, so at most
``ceil(2 ln(m/nu) / delta^2)`` rounds (TotalBoost: ``ceil(2 ln(m) / delta^2)``). The
history records ``Delta(d^t, d^0)`` per round so that tests can check that step.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from marginboost.core.rounds import WeightsPath
from marginboost.totally_corrective.edge_projection import project_onto_edge_constraints
from marginboost.core.interrupts import keep_interrupted
from marginboost.soft_margin.objectives import soft_margin
from marginboost.soft_margin.restricted_lp import RestrictedMasterLP
from marginboost.core.threads import single_blas_thread

HISTORY_COLUMNS = (
    "round",  # weak-learner calls so far
    "edge",  # gamma_t = d^{t-1} @ u_t
    "best_edge",  # min_{q <= t} gamma_q
    "target",  # gamma_hat_t = best_edge - delta
    "lp_value",  # rho_t = min_{d in P} max_q d @ u_q, the restricted LP's value
    "soft_margin",  # soft margin of U_t w_t (the LP weights), recomputed from the margins
    "entropy",  # Delta(d^t, uniform) of the projection (nan in the stopping round)
    "projection_kkt",  # KKT residual of the projection (edge violation), nan in the stopping round
    "time",  # seconds since the start, at the end of this round
)

_STOP_TOL = 1e-9


def iteration_bound(m: int, nu: float, delta: float) -> int:
    """``ceil(2 ln(m/nu) / delta^2)``: the most rounds TotalBoost (``nu = 1``) or SoftBoost take."""
    return max(math.ceil(2.0 * math.log(m / nu) / delta**2), 1)


@dataclass
class TotalCorrectiveResult:
    """Hypotheses, LP weights, final soft margin, status and per-round history."""

    hypotheses: list
    weights: np.ndarray
    soft_margin: float
    n_iter: int
    status: str  # 'converged' | 'max_iter' | 'max_time' | 'interrupted'
    history: dict
    weights_path: WeightsPath


@single_blas_thread
def softboost(oracle, y: np.ndarray, nu: float, delta: float, max_iter: int,
              max_time: float | None = None) -> TotalCorrectiveResult:
    """Run SoftBoost with capping ``nu`` (``nu = 1``: TotalBoost) and accuracy ``delta``.

    At most ``max_iter`` rounds and, if given, ``max_time`` seconds (status ``'max_time'``);
    ``KeyboardInterrupt`` returns the rounds completed (status ``'interrupted'``, :mod:`marginboost.core.interrupts`).

    ``oracle(d) -> (hypothesis, predictions on X)`` as in :mod:`.weak_learners.base`.
    A hypothesis whose margin column repeats an earlier one adds no constraint that is not
    already there (its edge still lowers ``gamma_hat``); it is not stored twice.
    """
    m = y.shape[0]
    lp = RestrictedMasterLP(m, nu)
    columns: dict[bytes, int] = {}
    U = np.empty((m, 0))
    hypotheses: list = []
    history = {name: [] for name in HISTORY_COLUMNS}
    path = WeightsPath()
    d = np.full(m, 1.0 / m)
    beta = np.zeros(0)
    best_edge = np.inf
    status = "max_iter"
    start = time.perf_counter()
    kept = None  # (t, w) after the last completed round (see .interrupts)
    try:
        for t in range(1, max_iter + 1):
            h, pred = oracle(d)
            u = y * np.asarray(pred, dtype=np.float64)
            edge = float(d @ u)
            best_edge = min(best_edge, edge)
            target = best_edge - delta
            key = u.tobytes()
            if key not in columns:
                columns[key] = U.shape[1]
                U = np.column_stack([U, u])
                hypotheses.append(h)
                lp.add_hypothesis(u)
                beta = np.append(beta, 0.0)
            w, _, rho = lp.solve()
            entropy = kkt = math.nan
            if rho >= target - _STOP_TOL:  # projection infeasible or on a face d_i = 0
                status = "converged"
            else:
                proj = project_onto_edge_constraints(U, target, nu, beta0=beta)
                d, beta, entropy, kkt = proj.d, proj.beta, proj.entropy, proj.kkt
            row = (t, edge, best_edge, target, rho, soft_margin(U @ w, nu), entropy, kkt,
                   time.perf_counter() - start)
            for name, value in zip(HISTORY_COLUMNS, row):
                history[name].append(value)
            kept = (t, w)
            path.append(w, None)
            if status == "converged":
                break
            if max_time is not None and time.perf_counter() - start >= max_time:
                status = "max_time"
                break
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        t, w = kept
        status = "interrupted"
        del hypotheses[w.shape[0]:]
        history = {k: v[:t] for k, v in history.items()}
        if len(path) < t:  # cut between the commit and the log of its weights
            path.append(w, None)
    return TotalCorrectiveResult(
        hypotheses=hypotheses,
        weights=w,
        soft_margin=history["soft_margin"][-1],
        n_iter=t,
        status=status,
        history={k: np.asarray(v) for k, v in history.items()},
        weights_path=path,
    )
