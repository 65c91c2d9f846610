"""AdaBoost*_nu ("AdaBoostV"; Raetsch and Warmuth, "Efficient margin maximizing with boosting",
JMLR 6, 2005).

Greedy (one coefficient per round, never revised); the fit's weights are the normalised
coefficients, so that the combined hypothesis ``f(x) = sum_t w_t h_t(x)`` lies in [-1, 1] and
its training margins ``y_i f(x_i)`` are directly comparable with the soft-margin boosters'.

AdaBoost*_nu with accuracy ``eps`` (``nu`` in the paper)::

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

The loop (:class:`AdaBoostVLoop`) is driven by :func:`marginboost.core.rounds.run_rounds`,
which owns the round count, the time limit, the history's ``round`` and ``time`` columns,
Ctrl-C (:mod:`marginboost.core.interrupts`) and the BLAS threads.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, run_rounds

__all__ = ["ADABOOSTV_COLUMNS", "ADABOOSTV_HISTORY", "NO_EDGE", "PERFECT", "AdaBoostVLoop", "adaboostv",
           "adaboostv_rounds"]

# The loop's reasons for a stop (FitResult.reason): a hypothesis perfect under its distribution
# is the model ("converged"); no weak edge is left ("no_progress").
PERFECT, NO_EDGE = "perfect", "no_edge"

# One row per round; the driver adds 'round' (weak-learner calls so far) first and 'time'
# (seconds since the fit started) last.
ADABOOSTV_COLUMNS = (
    "edge",  # gamma_t = d^t @ u_t
    "best_edge",  # min_{r <= t} gamma_r
    "target",  # rho_t = best_edge - eps
    "step",  # alpha_t, the coefficient of h_t
    "min_margin",  # min_i y_i f_t(x_i) of the normalised combination after this round
)
ADABOOSTV_HISTORY = ("round",) + ADABOOSTV_COLUMNS + ("time",)


def adaboostv_rounds(m: int, eps: float) -> int:
    """``floor(2 ln(m) / eps^2) + 1``: after this many rounds AdaBoost*_nu's margin exceeds ``min gamma - eps``.

    Any ``eps > 0``: where ``eps^2`` underflows (``eps < 1.5e-154``) or the quotient overflows a
    float, the bound is the exact (huge) integer, computed in rationals, not a
    ``ZeroDivisionError`` or ``OverflowError``.
    """
    if not eps > 0.0:
        raise ValueError(f"eps must be > 0, got {eps!r}")
    square = eps**2
    bound = 2.0 * math.log(m) / square if square > 0.0 else math.inf
    if math.isfinite(bound):
        return math.floor(bound) + 1
    return math.floor(Fraction(2.0 * math.log(m)) / Fraction(eps) ** 2) + 1


class AdaBoostVLoop(RoundLoop):
    """AdaBoost*_nu (module docstring) as a :class:`~marginboost.core.rounds.RoundLoop`.

    The committed state is ``(n, F, best_edge, perfect)``: the rounds (hypotheses) so far,
    ``F = sum_r alpha_r u_r`` (``d^{n+1} ~ exp(-F)``), ``min_r gamma_r``, and None or the sign
    of a hypothesis perfect under its distribution (then the model is that hypothesis alone).
    The hypotheses and coefficients are append-only lists, cut back to ``n`` at each step.
    """

    columns = ADABOOSTV_COLUMNS
    progress = ("min_margin", "target")

    def __init__(self, oracle, y: np.ndarray, eps: float):
        self.oracle, self.y, self.eps = oracle, y, eps
        self.hypotheses: list = []
        self.alphas: list[float] = []

    def step(self, state, round_):
        """Round ``round_`` from the committed ``state`` (None: the first): one weak-learner call."""
        m = self.y.shape[0]
        if state is None:
            n, F, best_edge, perfect = 0, np.zeros(m), np.inf, None
            d = np.full(m, 1.0 / m)
        else:
            n, F, best_edge, perfect = state
            if perfect is not None:  # the model is one perfect hypothesis: nothing left to do
                return RoundOutcome(None, stop=Status.CONVERGED, reason=PERFECT)
            # exp(-F) shifted by its maximum exponent: d stays exact for large F.
            d = np.exp(F.min() - F)
            d /= d.sum()
        del self.hypotheses[n:], self.alphas[n:]  # drop what a rolled-back round added
        h, pred = self.oracle(d)
        u = self.y * np.asarray(pred, dtype=np.float64)
        edge = float(d @ u)
        if abs(edge) >= 1.0 - 1e-12:  # h_t (or -h_t) is perfect under d^t: output it alone
            self.hypotheses.append(h)
            sign = math.copysign(1.0, edge)
            F = sign * u
            target = min(best_edge, edge)
            row = {"edge": edge, "best_edge": target, "target": target - self.eps, "step": sign,
                   "min_margin": float(F.min())}
            perfect = np.asarray([0.0] * n + [sign])
            return RoundOutcome(row, (n + 1, F, best_edge, sign), stop=Status.CONVERGED, path=(perfect, None),
                                reason=PERFECT)
        best_edge = min(best_edge, edge)
        rho = best_edge - self.eps
        if rho <= -1.0:  # no weak edge: the target margin is out of range; this round makes no model
            return RoundOutcome(None, stop=Status.NO_PROGRESS, reason=NO_EDGE)
        self.hypotheses.append(h)
        alpha = math.atanh(edge) - math.atanh(rho)
        if not alpha > 0.0:
            # eps below the resolution of the edge (eps < ulp(edge)/2, ~1e-17): rho rounds back to
            # edge and the difference cancels to 0, making every coefficient 0 (0/0 below). The
            # same step without the cancellation: atanh(a) - atanh(b) = atanh((a - b)/(1 - a b)),
            # with a - b = (edge - best_edge) + eps (> 0) in exact arithmetic.
            alpha = math.atanh(((edge - best_edge) + self.eps) / (1.0 - edge * rho))
        old_total = sum(self.alphas)
        self.alphas.append(alpha)
        F = F + alpha * u  # a new array: the committed state holds the old one
        total = old_total + alpha
        margin = float(F.min() / total)
        row = {"edge": edge, "best_edge": best_edge, "target": rho, "step": alpha, "min_margin": margin}
        stop = Status.CONVERGED if margin >= rho else None  # min margin >= min gamma - eps is certified
        return RoundOutcome(row, (n + 1, F, best_edge, None), stop=stop,
                            path=(np.asarray(self.alphas) / total, (old_total / total, [n])))

    def _coefficients(self, state):
        n, _, _, perfect = state
        return [0.0] * (n - 1) + [perfect] if perfect is not None else self.alphas[:n]

    def ensemble(self, state):
        """Hypotheses, normalised coefficients and offset 0 at ``state`` (the estimator's decision
        function at that round)."""
        coefs = self._coefficients(state)
        return self.hypotheses[: state[0]], np.asarray(coefs) / float(np.sum(np.abs(coefs))), 0.0

    def result(self, state, status, rounds):
        """The fit of ``state``; ``ValueError`` if no round made a model."""
        if state is None:
            raise ValueError("AdaBoostV: the weak learner's first hypothesis has edge <= eps - 1; nothing to combine")
        coefs = self._coefficients(state)
        total = float(np.sum(np.abs(coefs)))
        return FitResult(
            hypotheses=self.hypotheses[: state[0]],
            weights=np.asarray(coefs) / total,
            status=status,
            n_iter=rounds.n_iter,
            history=rounds.history,
            weights_path=rounds.weights_path,
            final={"margins": state[1] / total},
        )


def adaboostv(oracle, y: np.ndarray, eps: float, max_iter: int, max_time: float | None = None,
              callbacks=(), verbose: int = 0, name: str | None = None) -> FitResult:
    """Run AdaBoost*_nu with accuracy ``eps`` for at most ``max_iter`` rounds and ``max_time``
    seconds (see module doc), driven by :func:`~marginboost.core.rounds.run_rounds`.

    ``oracle(d) -> (h, h(X))``; ``callbacks``, ``verbose``, ``name`` (of the progress lines): as
    for ``run_rounds``.
    Returns a :class:`~marginboost.core.rounds.FitResult`: ``weights`` the normalised
    coefficients ``alpha_t / sum alpha``, ``final['margins']`` the training margins of ``f``;
    status 'converged' (reason None, or ``'perfect'``: a hypothesis with edge 1 under its
    distribution is the model, with weight 1), 'max_iter', 'max_time', 'no_progress' (reason
    ``'no_edge'``: ``min gamma - eps <= -1``: the
    rounds before, ``ValueError`` if none), 'callback' or 'interrupted' (Ctrl-C: the rounds
    completed, :mod:`marginboost.core.interrupts`).
    """
    loop = AdaBoostVLoop(oracle, y, eps)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks, verbose=verbose,
                      name=name or "AdaBoostV")
