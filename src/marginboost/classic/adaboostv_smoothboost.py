"""AdaBoost*_nu (Raetsch and Warmuth, JMLR 2005) and SmoothBoost (Servedio, JMLR 2003).

Both are greedy (one coefficient per round, never revised) and return a
:class:`ClassicResult` whose weights are the normalised coefficients, so that the combined
hypothesis ``f(x) = sum_t w_t h_t(x)`` lies in [-1, 1] and its training margins
``y_i f(x_i)`` are directly comparable with the soft-margin boosters'.

AdaBoost*_nu ("AdaBoostV"), accuracy ``eps`` (``nu`` in the paper)::

    d^1 = uniform
    for t = 1..T
        h_t = WL(d^t),  u_t = y * h_t(X),  gamma_t = d^t @ u_t
        if |gamma_t| = 1: output sign(gamma_t) h_t
        rho_t   = min_{r <= t} gamma_r - eps
        alpha_t = atanh(gamma_t) - atanh(rho_t)
                = 1/2 ln((1 + gamma_t)/(1 - gamma_t)) - 1/2 ln((1 + rho_t)/(1 - rho_t))
        d^{t+1}_i ~ d^t_i exp(-alpha_t u_{t,i})
    output f = sum_t alpha_t h_t / sum_t alpha_t

Margin bound (the paper's analysis): the fraction of examples with margin ``<= rho_t`` after
``t`` rounds is at most ``prod_{r <= t} exp(-KL((1+rho_r)/2 || (1+gamma_r)/2))
<= exp(-t eps^2 / 2)``, so after ``T = floor(2 ln(m) / eps^2) + 1`` rounds every margin
exceeds ``min_t gamma_t - eps``; with an edge-maximising weak learner that is at least the
optimal hard margin ``rho*`` minus ``eps``. We also stop as soon as that certificate
``min_i y_i f(x_i) >= rho_t`` holds (status 'converged'); it holds at ``T`` at the latest.

SmoothBoost(kappa, gamma) with ``0 < kappa < 1``, ``0 < gamma < 1/2``,
``theta = gamma / (2 + gamma)``::

    N_0 = 0,  M_1 = 1 (a measure on the sample)
    while |M_t| / m >= kappa:                    (|M| = sum_i M_i)
        d^t = M_t / |M_t|
        h_t = WL(d^t),  u_t = y * h_t(X)        (the analysis needs d^t @ u_t >= 2 gamma)
        N_t = N_{t-1} + u_t - theta
        M_{t+1,i} = 1 if N_{t,i} < 0 else (1 - gamma)^(N_{t,i} / 2)
    output f = (1/T) sum_t h_t

Since ``M_i <= 1`` and ``|M_t| >= kappa m``, every distribution given to the weak learner has
``d_i <= 1 / (kappa m)``: it is "(1/kappa)-smooth", i.e. no example weighs more than
``1/kappa`` times its uniform weight (Servedio's smoothness; the bound itself is what we
state and test). With edges ``>= 2 gamma`` SmoothBoost stops within
``T < 2 / (kappa gamma^2 sqrt(1 - gamma))`` rounds. At the stop fewer than ``kappa m``
examples have margin ``y_i f(x_i) <= theta``: those are the examples with ``N_i <= 0``, and
each of them contributes ``M_i = 1`` to ``|M| < kappa m``.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from marginboost.core.rounds import WeightsPath
from marginboost.core.interrupts import keep_interrupted
from marginboost.core.threads import single_blas_thread

ADABOOSTV_HISTORY = (
    "round",  # weak-learner calls so far
    "edge",  # gamma_t = d^t @ u_t
    "best_edge",  # min_{r <= t} gamma_r
    "target",  # rho_t = best_edge - eps
    "alpha",  # alpha_t
    "margin",  # min_i y_i f_t(x_i) of the normalised combination after this round
    "time",  # seconds since the start
)
SMOOTHBOOST_HISTORY = (
    "round",  # weak-learner calls so far
    "edge",  # d^t @ u_t
    "max_weight",  # max_i d^t_i of the distribution given to the weak learner (<= 1/(kappa m))
    "density",  # |M_{t+1}| / m; the loop stops below kappa
    "margin",  # min_i y_i f_t(x_i), f_t = (1/t) sum_{r <= t} h_r
    "time",  # seconds since the start
)


@dataclass
class ClassicResult:
    """Hypotheses, normalised weights, final margins, status and per-round history."""

    hypotheses: list
    weights: np.ndarray
    margins: np.ndarray
    n_iter: int
    status: str  # 'converged' | 'max_iter' | 'max_time' | 'perfect' | 'no_edge' | 'interrupted'
    history: dict
    weights_path: WeightsPath


def adaboostv_rounds(m: int, eps: float) -> int:
    """``floor(2 ln(m) / eps^2) + 1``: after this many rounds AdaBoost*_nu's margin exceeds ``min gamma - eps``."""
    return math.floor(2.0 * math.log(m) / eps**2) + 1


def smoothboost_rounds(kappa: float, gamma: float) -> int:
    """``ceil(2 / (kappa gamma^2 sqrt(1 - gamma)))``: SmoothBoost's bound on rounds (edges >= 2 gamma)."""
    return math.ceil(2.0 / (kappa * gamma**2 * math.sqrt(1.0 - gamma)))


def _record(history, columns, row):
    for name, value in zip(columns, row):
        history[name].append(value)


def _result(hypotheses, coefs, F, t, status, history, path):
    total = float(np.sum(np.abs(coefs)))
    return ClassicResult(hypotheses, np.asarray(coefs) / total, F / total, t, status,
                         {k: np.asarray(v) for k, v in history.items()}, path)


@single_blas_thread
def adaboostv(oracle, y: np.ndarray, eps: float, max_iter: int, max_time: float | None = None) -> ClassicResult:
    """Run AdaBoost*_nu with accuracy ``eps`` for at most ``max_iter`` rounds and ``max_time``
    seconds (see module doc); ``KeyboardInterrupt``: the rounds completed (:mod:`marginboost.core.interrupts`)."""
    m = y.shape[0]
    history = {name: [] for name in ADABOOSTV_HISTORY}
    path = WeightsPath()
    hypotheses, alphas = [], []
    F = np.zeros(m)  # sum_r alpha_r u_r: d^{t+1} ~ exp(-F)
    d = np.full(m, 1.0 / m)
    best_edge = np.inf
    status = "max_iter"
    start = time.perf_counter()
    kept = None  # (t, coefficients, F) after the last completed round (see .interrupts)
    try:
        for t in range(1, max_iter + 1):
            h, pred = oracle(d)
            u = y * np.asarray(pred, dtype=np.float64)
            edge = float(d @ u)
            hypotheses.append(h)
            if abs(edge) >= 1.0 - 1e-12:  # h_t (or -h_t) is perfect under d^t: output it alone
                perfect = [0.0] * (t - 1) + [math.copysign(1.0, edge)]
                F = perfect[-1] * u
                target = min(best_edge, edge)
                _record(history, ADABOOSTV_HISTORY, (t, edge, target, target - eps, perfect[-1], float(F.min()),
                                                      time.perf_counter() - start))
                kept = (t, perfect, F)
                path.append(np.asarray(perfect), None)
                return _result(hypotheses, perfect, F, t, "perfect", history, path)
            best_edge = min(best_edge, edge)
            rho = best_edge - eps
            if rho <= -1.0:  # no weak edge: the target margin is out of range
                hypotheses.pop()
                status = "no_edge"
                break
            alpha = math.atanh(edge) - math.atanh(rho)
            old_total = sum(alphas)
            alphas.append(alpha)
            F = F + alpha * u  # a new array: ``kept`` holds the old one
            total = old_total + alpha
            margin = float(F.min() / total)
            _record(history, ADABOOSTV_HISTORY, (t, edge, best_edge, rho, alpha, margin,
                                                  time.perf_counter() - start))
            kept = (t, alphas, F)
            path.append(np.asarray(alphas) / total, (old_total / total, [t - 1]))
            if margin >= rho:  # the guarantee min margin >= min gamma - eps is certified
                status = "converged"
                break
            if max_time is not None and time.perf_counter() - start >= max_time:
                status = "max_time"
                break
            # exp(-F) shifted by its maximum exponent: d stays exact for large F.
            d = np.exp(F.min() - F)
            d /= d.sum()
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        t, coefs, F = kept
        result = _result(hypotheses[:t], coefs[:t], F, t, "interrupted", {k: v[:t] for k, v in history.items()},
                         path)
        if len(path) < t:  # cut between the commit and the log of its weights
            path.append(result.weights, None)
        return result
    if not alphas:
        raise ValueError("AdaBoostV: the weak learner's first hypothesis has edge <= eps - 1; nothing to combine")
    return _result(hypotheses, alphas, F, len(alphas), status, history, path)


@single_blas_thread
def smoothboost(oracle, y: np.ndarray, kappa: float, gamma: float, max_iter: int,
                max_time: float | None = None) -> ClassicResult:
    """Run SmoothBoost(kappa, gamma) for at most ``max_iter`` rounds and ``max_time`` seconds
    (see module doc); ``KeyboardInterrupt``: the rounds completed (:mod:`marginboost.core.interrupts`)."""
    m = y.shape[0]
    theta = gamma / (2.0 + gamma)
    history = {name: [] for name in SMOOTHBOOST_HISTORY}
    path = WeightsPath()
    hypotheses = []
    N = np.zeros(m)
    F = np.zeros(m)  # sum_r u_r
    M = np.ones(m)
    status = "max_iter"
    start = time.perf_counter()
    kept = None  # (t, F) after the last completed round (see .interrupts)
    try:
        for t in range(1, max_iter + 1):
            d = M / M.sum()
            h, pred = oracle(d)
            u = y * np.asarray(pred, dtype=np.float64)
            hypotheses.append(h)
            F = F + u  # a new array: ``kept`` holds the old one
            N += u - theta
            M = np.where(N < 0.0, 1.0, (1.0 - gamma) ** (np.maximum(N, 0.0) / 2.0))
            density = float(M.sum() / m)
            _record(history, SMOOTHBOOST_HISTORY, (t, float(d @ u), float(d.max()), density, float(F.min() / t),
                                                    time.perf_counter() - start))
            kept = (t, F)
            # w_t = (1/t) 1: every earlier weight scales by (t-1)/t, the new one is 1/t.
            path.append(np.full(t, 1.0 / t), ((t - 1) / t, [t - 1]))
            if density < kappa:
                status = "converged"
                break
            if max_time is not None and time.perf_counter() - start >= max_time:
                status = "max_time"
                break
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        t, F = kept
        status = "interrupted"
        del hypotheses[t:]
        history = {k: v[:t] for k, v in history.items()}
        if len(path) < t:  # cut between the commit and the log of its weights
            path.append(np.full(t, 1.0 / t), None)
    return _result(hypotheses, np.ones(t), F, t, status, history, path)
