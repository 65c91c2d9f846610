"""SmoothBoost (Servedio, "Smooth boosting and learning with malicious noise", JMLR 4, 2003).

Greedy (one hypothesis per round, all of weight ``1/T``), so that the combined hypothesis
``f(x) = sum_t w_t h_t(x)`` lies in [-1, 1] and its training margins ``y_i f(x_i)`` are
directly comparable with the soft-margin boosters'.

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

The loop (:class:`SmoothBoostLoop`) is driven by :func:`marginboost.core.rounds.run_rounds`,
which owns the round count, the time limit, the history's ``round`` and ``time`` columns,
Ctrl-C (:mod:`marginboost.core.interrupts`) and the BLAS threads.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, run_rounds

__all__ = ["SMOOTHBOOST_COLUMNS", "SMOOTHBOOST_HISTORY", "SmoothBoostLoop", "smoothboost", "smoothboost_rounds"]

# One row per round; the driver adds 'round' (weak-learner calls so far) first and 'time'
# (seconds since the fit started) last.
SMOOTHBOOST_COLUMNS = (
    "edge",  # d^t @ u_t
    "max_weight",  # max_i d^t_i of the distribution given to the weak learner (<= 1/(kappa m))
    "density",  # |M_{t+1}| / m; the loop stops below kappa
    "min_margin",  # min_i y_i f_t(x_i), f_t = (1/t) sum_{r <= t} h_r
)
SMOOTHBOOST_HISTORY = ("round",) + SMOOTHBOOST_COLUMNS + ("time",)


def smoothboost_rounds(kappa: float, gamma: float) -> int:
    """``ceil(2 / (kappa gamma^2 sqrt(1 - gamma)))``: SmoothBoost's bound on rounds (edges >= 2 gamma).

    Any ``kappa > 0`` and ``0 < gamma < 1``: where the denominator underflows (``gamma`` or
    ``kappa`` = 5e-324) or the quotient overflows a float, the bound is the exact (huge)
    integer, computed in rationals, not a ``ZeroDivisionError`` or ``OverflowError``.
    """
    if not (kappa > 0.0 and 0.0 < gamma < 1.0):
        raise ValueError(f"smoothboost_rounds needs kappa > 0 and 0 < gamma < 1, got kappa={kappa!r}, gamma={gamma!r}")
    root = math.sqrt(1.0 - gamma)
    denominator = kappa * gamma**2 * root
    bound = 2.0 / denominator if denominator > 0.0 else math.inf
    if math.isfinite(bound):
        return math.ceil(bound)
    return math.ceil(Fraction(2) / (Fraction(kappa) * Fraction(gamma) ** 2 * Fraction(root)))


class SmoothBoostLoop(RoundLoop):
    """SmoothBoost (module docstring) as a :class:`~marginboost.core.rounds.RoundLoop`.

    The committed state is ``(t, N, F, M)``: the rounds (hypotheses) so far, ``N_t``,
    ``F = sum_r u_r`` and the measure ``M_{t+1}``. The hypotheses are an append-only list,
    cut back to ``t`` at each step.
    """

    columns = SMOOTHBOOST_COLUMNS
    progress = ("density", "min_margin")

    def __init__(self, oracle, y: np.ndarray, kappa: float, gamma: float):
        self.oracle, self.y, self.kappa, self.gamma = oracle, y, kappa, gamma
        self.theta = gamma / (2.0 + gamma)
        self.hypotheses: list = []

    def step(self, state, round_):
        """Round ``round_`` from the committed ``state`` (None: the first): one weak-learner call."""
        m = self.y.shape[0]
        t, N, F, M = state if state is not None else (0, np.zeros(m), np.zeros(m), np.ones(m))
        del self.hypotheses[t:]  # drop what a rolled-back round added
        t += 1
        d = M / M.sum()
        h, pred = self.oracle(d)
        u = self.y * np.asarray(pred, dtype=np.float64)
        self.hypotheses.append(h)
        F = F + u  # new arrays: the committed state holds the old ones
        N = N + (u - self.theta)
        M = np.where(N < 0.0, 1.0, (1.0 - self.gamma) ** (np.maximum(N, 0.0) / 2.0))
        density = float(M.sum() / m)
        row = {"edge": float(d @ u), "max_weight": float(d.max()), "density": density, "min_margin": float(F.min() / t)}
        # w_t = (1/t) 1: every earlier weight scales by (t-1)/t, the new one is 1/t.
        return RoundOutcome(row, (t, N, F, M), stop=Status.CONVERGED if density < self.kappa else None,
                            path=(np.full(t, 1.0 / t), ((t - 1) / t, [t - 1])))

    def ensemble(self, state):
        """Hypotheses, weights ``1/t`` and offset 0 at ``state`` (the estimator's decision function
        at that round)."""
        t = state[0]
        return self.hypotheses[:t], np.ones(t) / t, 0.0

    def result(self, state, status, rounds):
        """The fit of ``state``; ``ValueError`` if no round completed."""
        if state is None:
            raise ValueError("SmoothBoost: no round completed; nothing to combine")
        t, _, F, _ = state
        total = float(np.sum(np.ones(t)))
        return FitResult(
            hypotheses=self.hypotheses[:t],
            weights=np.ones(t) / total,
            status=status,
            n_iter=rounds.n_iter,
            history=rounds.history,
            weights_path=rounds.weights_path,
            final={"margins": F / total},
        )


def smoothboost(oracle, y: np.ndarray, kappa: float, gamma: float, max_iter: int,
                max_time: float | None = None, callbacks=(), verbose: int = 0,
                name: str | None = None) -> FitResult:
    """Run SmoothBoost(kappa, gamma) for at most ``max_iter`` rounds and ``max_time`` seconds
    (see module doc), driven by :func:`~marginboost.core.rounds.run_rounds`.

    ``oracle(d) -> (h, h(X))``; ``callbacks``, ``verbose``, ``name`` (of the progress lines): as
    for ``run_rounds``.
    Returns a :class:`~marginboost.core.rounds.FitResult`: ``weights`` all ``1/T``,
    ``final['margins']`` the training margins of ``f``; status 'converged' (``|M|/m < kappa``),
    'max_iter', 'max_time', 'callback' or 'interrupted' (Ctrl-C: the rounds completed,
    :mod:`marginboost.core.interrupts`).
    """
    loop = SmoothBoostLoop(oracle, y, kappa, gamma)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks, verbose=verbose,
                      name=name or "SmoothBoost")
