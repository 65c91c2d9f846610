"""Boosting with an average-margin oracle: Algorithm 1 of paper 003 (appendix A.2).

Mitsuboshi, Hatano, Takimoto, "A New Scheme for Boosting with an Average Margin Distribution
Oracle". Notation of design.md: ``m`` examples, margins ``u_h = y * h(X)``, capped simplex
``P(m, nu)``, soft margin ``rho(w) = min_{d in P(m, nu)} d @ U w``.

Entropy-regularising the soft-margin LP over ``H_S`` (003 eq. 2) gives the dual (003 eq. 3)

    min_{d in P(m, nu)}  F(d) = (1/eta) ln sum_{h in H_S} exp(eta d @ u_h).

Eq. 3 prints ``J(d) = (1/eta) sum_h exp(eta d @ u_h) = exp(eta F)/eta`` (the ``ln`` was lost):
both have the same minimisers, but the gradient ``E_h[u_h | d]`` with ``Pr[h | d] ~ exp(eta
d @ u_h)`` that Algorithm 1 uses and the Hessian ``eta Cov_h[u_h | d]`` of eq. 4 (hence the
eta-smoothness w.r.t. l1, A.1) are those of ``F``; so we run Frank-Wolfe on ``F``, which also
keeps every quantity in log space. The oracle returns ``g = grad F(d)`` and ``F(d)``.

One round, ``d^0 = 1/m``::

    g^t   = E_h[u_h | d^t]                                     (the average-margin oracle)
    s^t   = argmin_{s in P(m, nu)} s @ g^t                     (a sort: caps on the nu smallest)
    gap_t = (d^t - s^t) @ g^t  >=  F(d^t) - min_P F            (convexity; stop at <= eps/2)
    d^{t+1} = d^t + lam_t (s^t - d^t),  lam_t = 2/(t+2) | argmin_[0,1] F | min(1, gap_t/(eta ||s^t-d^t||_1^2))

and the output ``w_h = Pr[h | d^T]``.

Why the stop gives an eps-optimal *classifier* (003 only says the conversion "might not"
guarantee it): ``U w = g`` for ``w = Pr[. | d]``, and the Gibbs identity
``F(d) = w @ U^T d + H(w)/eta`` (``H`` the Shannon entropy) give

    rho(w) = s @ g = d @ g - gap = F(d) - H(w)/eta - gap >= rho* - ln|H_S|/eta - gap,

using ``F(d) >= max_h d @ u_h >= rho*`` (LP duality). With ``eta >= 2 ln|H_S| / eps``
(Lemma 3.1) and ``gap <= eps/2`` the soft margin of ``w`` is within ``eps`` of the optimum
``rho*`` over all of ``H``. ``rho(w) = s^t @ g^t`` is free each round (``history['soft_margin']``).

Given a ``max_edge`` oracle (``d -> max_h d @ u_h``, a max-plus pass over the NZDD),
``best_edge = min_t max_h d^t @ u_h >= rho*`` too, and ``stop='certified'`` stops as soon as
``best_edge - rho(w^t) <= eps``: the same guarantee, read off the data instead of the bound.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq

from marginboost.core.interrupts import keep_interrupted
from marginboost.soft_margin.objectives import soft_margin_distribution
from marginboost.core.threads import single_blas_thread

__all__ = ["HISTORY_COLUMNS", "STEPS", "STOPS", "AverageMarginResult", "average_margin_boost", "stump_eta"]

STEPS = ("classic", "line_search", "short_step")
STOPS = ("gap", "certified")
HISTORY_COLUMNS = (
    "round",  # t, oracle calls at the iterates so far (line-search calls not counted)
    "objective",  # F(d^t)
    "gap",  # FW duality gap (d^t - s^t) @ g^t
    "soft_margin",  # rho(w^t) of the output w^t = Pr[. | d^t]
    "best_edge",  # min_{tau <= t} max_h d^tau @ u_h (an upper bound on rho*); nan without max_edge
    "step",  # lam_t taken after this row (0 in the stopping row)
    "time",  # seconds since the start, at the end of the round
    "oracle_time",  # seconds in oracle calls this round (line search included)
)


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` without BLAS: a multi-threaded BLAS dot of m ~ 1e4 costs milliseconds on a
    loaded machine (thread hand-off), more than the oracle; the pairwise sum is as accurate."""
    return float(np.sum(a * b))


def stump_eta(n_features: int, m: int, eps: float) -> float:
    """``eta = 2 ln(2 p (m + 1)) / eps``: Lemma 3.1 with ``|H_S| <= 2p(m+1)`` for stumps (003, section 3.1)."""
    return 2.0 * np.log(2.0 * n_features * (m + 1)) / eps


@dataclass
class AverageMarginResult:
    """What :func:`average_margin_boost` returns: the last iterate ``d^T`` and its certificate.

    The output classifier is ``w_h = Pr[h | d^T] ~ exp(eta d^T @ u_h)`` (003 Algorithm 1), with
    margins ``U w = grad F(d^T)`` (``margins``) and soft margin ``rho(w)``; ``gap`` is the FW gap
    ``(d^T - s^T) @ g^T >= F(d^T) - min F`` and ``best_edge`` ``min_t max_h d^t @ u_h`` (NaN
    unless a ``max_edge`` oracle was given).
    """

    d: np.ndarray  # d^T
    margins: np.ndarray  # g^T = U w^T, the margins of the output
    objective: float  # F(d^T)
    gap: float
    soft_margin: float  # rho(w^T)
    best_edge: float
    n_iter: int  # rounds: oracle calls at iterates d^0..d^T (FW steps + 1)
    status: str  # 'converged' | 'max_iter' | 'max_time' | 'interrupted'
    history: dict = field(default_factory=dict)


def _line_search(oracle, d, direction, slope0):
    """``argmin_{lam in [0, 1]} F(d + lam * direction)``: the root of the non-decreasing slope."""
    last = {}

    def slope(lam):
        g, value = oracle(d + lam * direction)
        last[lam] = (g, value)
        return _dot(g, direction)

    if slope0 >= 0.0:
        return 0.0, None
    if slope(1.0) <= 0.0:
        return 1.0, last[1.0]
    # A relative 1e-3 in lam loses nothing measurable per round and halves the oracle calls.
    lam = brentq(slope, 0.0, 1.0, xtol=1e-12, rtol=1e-3, maxiter=100)
    return lam, last.get(lam)


@single_blas_thread
def average_margin_boost(oracle, m: int, nu: float, eps: float, eta: float, step: str = "classic",
                         stop: str = "gap", max_edge=None, max_iter: int = 10000,
                         max_time: float | None = None) -> AverageMarginResult:
    """Frank-Wolfe on ``F`` over ``P(m, nu)`` (003 Algorithm 1); see the module docstring.

    ``oracle(d) -> (grad F(d), F(d))``; ``max_edge(d) -> max_h d @ u_h`` (optional, needed by
    ``stop='certified'``); ``max_iter`` bounds the rounds (oracle calls at iterates).
    ``KeyboardInterrupt`` after the first row returns the last iterate with its row (status
    ``'interrupted'``, :mod:`marginboost.core.interrupts`).
    """
    if step not in STEPS:
        raise ValueError(f"step must be one of {STEPS}, got {step!r}")
    if stop not in STOPS:
        raise ValueError(f"stop must be one of {STOPS}, got {stop!r}")
    if stop == "certified" and max_edge is None:
        raise ValueError("stop='certified' needs a max_edge oracle")
    history = {name: [] for name in HISTORY_COLUMNS}
    start = time.perf_counter()
    d = np.full(m, 1.0 / m)
    t0 = time.perf_counter()
    g, value = oracle(d)
    oracle_time = time.perf_counter() - t0
    best_edge = np.inf if max_edge is not None else np.nan
    status = "max_iter"
    t = 0
    kept = None  # (t, d, g, value, gap, rho, best_edge) of the last row (see .interrupts)
    try:
        while True:
            s = soft_margin_distribution(g, nu)
            direction = s - d
            rho = _dot(s, g)
            gap = _dot(d, g) - rho
            if max_edge is not None:
                best_edge = min(best_edge, max_edge(d))
            done = gap <= eps / 2.0 or (stop == "certified" and best_edge - rho <= eps)
            if done:
                status = "converged"
            elif t + 1 >= max_iter:
                done = True
            elif max_time is not None and time.perf_counter() - start >= max_time:
                status, done = "max_time", True
            lam, evaluated = 0.0, None
            if not done:
                t0 = time.perf_counter()
                if step == "classic":
                    lam = 2.0 / (t + 2.0)
                elif step == "short_step":
                    lam = min(1.0, gap / (eta * float(np.abs(direction).sum()) ** 2))
                else:
                    lam, evaluated = _line_search(oracle, d, direction, -gap)
                oracle_time += time.perf_counter() - t0
            for name, v in zip(HISTORY_COLUMNS, (t, value, gap, rho, best_edge, lam, time.perf_counter() - start,
                                                 oracle_time)):
                history[name].append(v)
            kept = (t, d, g, value, gap, rho, best_edge)
            if done:
                break
            d = d + lam * direction
            t += 1
            t0 = time.perf_counter()
            g, value = evaluated if evaluated is not None else oracle(d)
            oracle_time = time.perf_counter() - t0
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        t, d, g, value, gap, rho, best_edge = kept
        status = "interrupted"
        history = {k: v[: t + 1] for k, v in history.items()}
        history["step"][-1] = 0.0  # now the stopping row: the step after it is not kept
    return AverageMarginResult(d, g, value, gap, rho, best_edge, t + 1, status,
                               {k: np.asarray(v) for k, v in history.items()})
