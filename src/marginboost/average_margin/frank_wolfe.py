"""Boosting with an average-margin oracle: Algorithm 1 of paper 003 (appendix A.2).

Mitsuboshi, Hatano, Takimoto, "A New Scheme for Boosting with an Average Margin Distribution
Oracle". Notation of the docs (docs/notation.rst): ``m`` examples, margins ``u_h = y * h(X)``,
capped simplex ``P(m, nu)``, soft margin ``rho(w) = min_{d in P(m, nu)} d @ U w``.

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

and the output ``w_h = Pr[h | d^T]``. The three steps are :mod:`marginboost.core.step_sizes`'
``classic``, ``line_search`` (exact, on ``F`` through the oracle: :func:`_line_search`) and
``short_step`` (slope ``gap_t``, curvature ``eta ||s^t - d^t||_1^2``: ``F`` is eta-smooth
w.r.t. l1, 003 A.1). The loop (:class:`AverageMarginLoop`) is driven by
:func:`marginboost.core.rounds.run_rounds` from round 1 (iterate ``d^0``), which owns the round
count, the time limit, the history's ``round`` and ``time`` columns, Ctrl-C
(:mod:`marginboost.core.interrupts`) and the BLAS threads.

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
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq

from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, history_columns, run_rounds
from marginboost.core.step_sizes import check_step_rule, step_size
from marginboost.soft_margin.objectives import soft_margin_distribution

__all__ = ["HISTORY_COLUMNS", "LOOP_COLUMNS", "STEPS", "STOPS", "AverageMarginLoop", "average_margin_boost",
           "average_margin_loop", "stump_eta"]

STEPS = ("classic", "line_search", "short_step")  # the rules of marginboost.core.step_sizes
STOPS = ("gap", "certified")
# One row per iterate d^t, t = 0, 1, ...; the driver adds 'round' (t, oracle calls at the
# iterates so far; line-search calls not counted) first and 'time' (seconds since the start,
# at the end of the round) last.
LOOP_COLUMNS = (
    "objective",  # F(d^t)
    "gap",  # FW duality gap (d^t - s^t) @ g^t
    "soft_margin",  # rho(w^t) of the output w^t = Pr[. | d^t]
    "best_edge",  # min_{tau <= t} max_h d^tau @ u_h (an upper bound on rho*); nan without max_edge
    "step",  # lam_t taken after this row (0 in the stopping row)
    "oracle_time",  # seconds in oracle calls this round (line search included)
)
HISTORY_COLUMNS = history_columns(LOOP_COLUMNS)


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` without BLAS: a multi-threaded BLAS dot of m ~ 1e4 costs milliseconds on a
    loaded machine (thread hand-off), more than the oracle; the pairwise sum is as accurate."""
    return float(np.sum(a * b))


def stump_eta(n_features: int, m: int, eps: float) -> float:
    """``eta = 2 ln(2 p (m + 1)) / eps``: Lemma 3.1 with ``|H_S| <= 2p(m+1)`` for stumps (003, section 3.1)."""
    return 2.0 * np.log(2.0 * n_features * (m + 1)) / eps


class _Iterate(NamedTuple):
    """The committed state after the row of iterate ``d^t``."""

    t: int
    d: np.ndarray  # d^t
    g: np.ndarray  # g^t = grad F(d^t), the margins of w^t
    value: float  # F(d^t)
    gap: float
    rho: float  # rho(w^t) = s^t @ g^t
    best_edge: float
    direction: np.ndarray  # s^t - d^t
    lam: float | None  # lam_t; None: not computed (the stop, or the planned last row)
    evaluated: tuple | None  # (g, F) at d^t + lam_t direction where the line search computed it
    converged: bool


class AverageMarginLoop(RoundLoop):
    """003 Algorithm 1 as a :class:`~marginboost.core.rounds.RoundLoop`: round ``t + 1`` is the
    algorithm's iteration ``t`` (its rounds count from 1, as every loop's do; the paper's
    iterates from 0).

    Iteration ``t`` asks the oracle at ``d^t = d^{t-1} + lam_{t-1} (s^{t-1} - d^{t-1})`` (``d^0 =
    1/m``), computes ``s^t``, the gap and the stop, and, unless it stops, the next step
    ``lam_t``: its row holds both, and its state (:class:`_Iterate`) the iterate ``d^t`` with
    ``lam_t``. No step is computed in the converged row nor in round ``last_round`` (the last
    the caller plans: its ``max_iter``: the line search would cost oracle calls for nothing); a continuation
    (:func:`~marginboost.core.rounds.continue_rounds`) computes it in its first round and
    records it in that row of the history, as one run would. The fit's last row has step 0
    (:meth:`result`): no step was taken after it. ``model(d) -> (hypotheses, weights, offset)``
    (optional): the output at ``d``, for :meth:`ensemble`.
    """

    columns = LOOP_COLUMNS
    progress = ("objective", "gap")

    def __init__(self, oracle, m: int, nu: float, eps: float, eta: float, step: str = "classic",
                 stop: str = "gap", max_edge=None, last_round: int | None = None, model=None):
        self.oracle, self.m, self.nu, self.eps, self.eta = oracle, m, nu, eps, eta
        self.step_rule, self.stop, self.max_edge = step, stop, max_edge
        self.last_round = last_round
        self.model = model
        # lam_t computed by a continuation for the planned last row t of the run before: the
        # history of the continued fit records it in row t, as an uninterrupted fit does
        self._late_steps: dict[int, float] = {}

    def _step(self, t, d, direction, gap):
        """``lam_t`` by the step rule (:func:`marginboost.core.step_sizes.step_size`), and the
        oracle's answer at the next iterate where the line search computed it."""
        evaluated = None

        def search():
            nonlocal evaluated
            lam, evaluated = _line_search(self.oracle, d, direction, -gap)
            return lam

        # F is eta-smooth w.r.t. l1 (003 A.1): curvature eta ||s - d||_1^2 along the direction.
        lam = step_size(self.step_rule, t, gap, lambda: self.eta * float(np.abs(direction).sum()) ** 2, search)
        return lam, evaluated

    def step(self, state, round_):
        """The row of iterate ``d^t``, ``t = round_ - 1``, from the committed ``d^{t-1}`` (None: ``d^0``)."""
        if state is None:
            t, d, oracle_time = 0, np.full(self.m, 1.0 / self.m), 0.0
            best_edge = np.inf if self.max_edge is not None else np.nan
            evaluated = None
        else:
            if state.converged:  # nothing left to do
                return RoundOutcome(None, stop=Status.CONVERGED)
            lam, evaluated, oracle_time = state.lam, state.evaluated, 0.0
            if lam is None:  # the step after a planned last row: a continuation takes it now
                t0 = time.perf_counter()
                lam, evaluated = self._step(state.t, state.d, state.direction, state.gap)
                oracle_time = time.perf_counter() - t0
                self._late_steps[state.t] = lam
            t, d, best_edge = state.t + 1, state.d + lam * state.direction, state.best_edge
        t0 = time.perf_counter()
        g, value = evaluated if evaluated is not None else self.oracle(d)
        oracle_time += time.perf_counter() - t0
        s = soft_margin_distribution(g, self.nu)
        direction = s - d
        rho = _dot(s, g)
        gap = _dot(d, g) - rho
        if self.max_edge is not None:
            best_edge = min(best_edge, self.max_edge(d))
        converged = gap <= self.eps / 2.0 or (self.stop == "certified" and best_edge - rho <= self.eps)
        lam, evaluated = None, None
        if not converged and round_ != self.last_round:
            t0 = time.perf_counter()
            lam, evaluated = self._step(t, d, direction, gap)
            oracle_time += time.perf_counter() - t0
        row = {"objective": value, "gap": gap, "soft_margin": rho, "best_edge": best_edge,
               "step": 0.0 if lam is None else lam, "oracle_time": oracle_time}
        state = _Iterate(t, d, g, value, gap, rho, best_edge, direction, lam, evaluated, converged)
        return RoundOutcome(row, state, stop=Status.CONVERGED if converged else None)

    def ensemble(self, state):
        """``model(d^t)``: the hypotheses, weights and offset of the output at iterate ``d^t``
        (the weights ``Pr[h | d^t]`` live on all of ``H_S``, which only the caller's ``model``
        can turn into hypotheses); None without a ``model``."""
        return None if self.model is None or state is None else self.model(state.d)

    def result(self, state, status, rounds):
        """The fit of iterate ``state.d``; the last row's step is 0 (no step was taken after it)."""
        if state is None:
            raise ValueError("average_margin_boost: no round completed")
        history = dict(rounds.history)
        history["step"] = history["step"].copy()
        for t, lam in self._late_steps.items():  # steps a continuation took after a planned last row
            history["step"][history["round"] == t + 1] = lam  # iterate d^t is round t + 1
        history["step"][-1] = 0.0  # the stopping row: the step after it is not taken
        return FitResult(
            hypotheses=[],
            weights=None,
            status=status,
            n_iter=rounds.n_iter,
            history=history,
            final={"d": state.d, "margins": state.g, "objective": state.value, "gap": state.gap,
                   "soft_margin": state.rho, "best_edge": state.best_edge},
        )


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


def average_margin_boost(oracle, m: int, nu: float, eps: float, eta: float, step: str = "classic",
                         stop: str = "gap", max_edge=None, max_iter: int = 10000,
                         max_time: float | None = None, callbacks=(), verbose: int = 0,
                         name: str = "average-margin boost", model=None) -> FitResult:
    """Frank-Wolfe on ``F`` over ``P(m, nu)`` (003 Algorithm 1; see the module docstring),
    driven by :func:`~marginboost.core.rounds.run_rounds` (round ``t + 1`` at iterate ``d^t``).

    ``oracle(d) -> (grad F(d), F(d))``; ``max_edge(d) -> max_h d @ u_h`` (optional, needed by
    ``stop='certified'``); ``max_iter`` bounds the rounds (oracle calls at iterates);
    ``callbacks``, ``verbose``, ``name``: as for ``run_rounds``; a callback's ``ensemble()`` is
    ``model(d^t)`` (``model(d) -> (hypotheses, weights, offset)``, the output at ``d``), None
    without a ``model``.
    Returns a :class:`~marginboost.core.rounds.FitResult` with no hypotheses nor weights (the
    output ``w_h = Pr[h | d^T]`` lives on all of ``H_S``) and in ``final``: ``d`` (``d^T``),
    ``margins`` (``g^T = U w^T``), ``objective`` (``F(d^T)``), ``gap`` (the FW gap
    ``(d^T - s^T) @ g^T >= F(d^T) - min F``), ``soft_margin`` (``rho(w^T)``) and ``best_edge``
    (``min_t max_h d^t @ u_h``, NaN unless a ``max_edge`` oracle was given); ``n_iter`` counts
    the rounds, the iterations of Algorithm 1: oracle calls at iterates ``d^0..d^T`` (FW steps + 1).
    ``KeyboardInterrupt`` after the first row returns the last iterate with its row (status
    ``'interrupted'``, :mod:`marginboost.core.interrupts`).
    """
    loop = average_margin_loop(oracle, m, nu, eps, eta, step, stop, max_edge, last_round=max_iter, model=model)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks, verbose=verbose, name=name)


def average_margin_loop(oracle, m: int, nu: float, eps: float, eta: float, step: str = "classic", stop: str = "gap",
                        max_edge=None, *, last_round: int | None = None, model=None) -> AverageMarginLoop:
    """The loop of :func:`average_margin_boost`, its rules checked, ready for
    :func:`~marginboost.core.rounds.run_rounds`; ``last_round``: the ``max_iter`` it will run
    to (no step is computed after that round's row)."""
    check_step_rule(step, STEPS, "step")
    if stop not in STOPS:
        raise ValueError(f"stop must be one of {STOPS}, got {stop!r}")
    if stop == "certified" and max_edge is None:
        raise ValueError("stop='certified' needs a max_edge oracle")
    return AverageMarginLoop(oracle, m, nu, eps, eta, step, stop, max_edge, last_round=last_round, model=model)
