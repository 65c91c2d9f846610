"""FWBoost: functional Frank-Wolfe boosting over an l1 ball (Wang, Wang, E, Schapire 2015,
"Functional Frank-Wolfe Boosting for General Loss Functions", arXiv 1510.02558; "001").

Problem (001 eq. 2-3): with ``L`` a loss of :mod:`marginboost.functional.losses`, ``F_i = F(x_i)`` and ``c`` a fixed
offset (0 in the paper; the estimators may use the best constant),

    min  L(c + F)   over   F in lin_beta(H) = { sum_h w_h h : ||w||_1 <= beta },

the base hypotheses taking values in [-1, 1]. lin_beta(H) is the convex hull of the atoms
``+-beta h``, so Frank-Wolfe applies with the weak learner as linear minimisation oracle
(001 Algorithm 2). Round t, at ``F_t`` with negative gradient ``g_t = -grad L(c + F_t)``:

* oracle: a vertex ``v_t = beta h_t`` with ``<g_t, v_t>`` (approximately) maximal over +-beta H;
* FW gap: ``gap_t = <g_t, v_t - F_t>``; with an exact oracle ``L(c + F_t) - L* <= gap_t``
  (convexity), so the loop stops when ``gap_t <= tol``;
* update: ``F_{t+1} = (1 - gamma_t) F_t + gamma_t v_t``, ``gamma_t in [0, 1]``, which keeps
  ``||w||_1 <= beta`` (the weights are ``beta alpha`` with ``alpha`` on a sub-simplex).

The oracle (001 section 3.2):

* FWBoost_C (Algorithm 3): ``max_{h in +-H} <g, h> = sum_i |g_i| sign(g_i) h(x_i)`` is a weighted
  classification problem: labels ``sign(g_i)``, weights ``|g_i| / sum |g|``
  (:func:`classifier_oracle`, with the exact stumps/edge trees of :mod:`.weak_learners`);
* FWBoost_R (Algorithm 4): least squares ``h~ = argmin_h sum_i s_i (r_i - h(x_i))^2`` on the
  per-example negative gradient ``r_i = g_i / p_i``, scaled to the ball: ``v = beta h~ /
  ||h~||_inf`` (:func:`regression_oracle`). This is not the exact maximiser of ``<g, v>``, so
  its gap is the gap *along the returned vertex*, a lower bound of the true FW gap.

Step rules ``gamma_t`` (the shared FW steps of :mod:`marginboost.core.step_sizes`, as the soft-margin
rules of :mod:`marginboost.soft_margin.fw_rules` use them): ``classic`` ``2 / (t + 2)`` (t = 0, 1, ...;
the first step is 1); ``line_search`` ``argmin_{[0, gamma_max]} L(c + F_t + gamma d_t)`` by
:func:`marginboost.core.line_search.exact_line_search`; ``short_step`` ``min(gamma_max, <g_t, d_t> /
(C ||d_t||^2))`` with ``C`` the loss's smoothness on ``[c - beta, c + beta]^m`` (001 Assumption 1;
Demyanov-Rubinov step).

Away steps (001 Algorithm 5, Guelat and Marcotte 1986): ``F_t = sum_a alpha_a a`` over an
active set of atoms, including the zero function (the start ``F_0 = 0``) with weight
``alpha_0 = 1 - sum alpha``. The away atom ``a_t = argmin_{active} <g_t, a>`` gives the away
direction ``F_t - a_t``; if ``<g_t, F_t - a_t> > gap_t`` the step goes along it with
``gamma_max = alpha_a / (1 - alpha_a)``: ``alpha <- (1 + gamma) alpha``, ``alpha_a -= gamma``,
and at ``gamma = gamma_max`` the atom is dropped (a drop step). Otherwise a FW step.

AdaBoost.FW (001 Algorithm 6) is FWBoost_C with the exponential loss written as reweighting:
see :func:`adaboost_fw`.

Both loops (:class:`FWBoostLoop`, :class:`AdaBoostFWLoop`) are driven by
:func:`marginboost.core.rounds.run_rounds`, which owns the round count, the time limit, the
history's ``round`` and ``time`` columns, Ctrl-C and one BLAS thread. Round ``t`` makes the update
of iterate ``t - 1`` (none for ``t = 0``), then asks the oracle at the new iterate ``F_t``, whose
FW gap completes its history row: iterate 0 is recorded but not committed (no update has made a
model yet), so ``max_iter`` updates give ``max_iter + 1`` rows.
"""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

from marginboost.core.example_vectors import as_float_vector, full_like
from marginboost.core.line_search import exact_line_search
from marginboost.core.bit_matrix import GrowingMarginMatrix
from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, history_columns, run_rounds
from marginboost.core.step_sizes import STEP_RULES, check_step_rule, step_size
from marginboost.functional.losses import ExponentialLoss, check_targets, resolve_loss
from marginboost.weak_learners import DecisionStump, EdgeTree, HistogramStump, HistogramTree
from marginboost.weak_learners.regression import RegressionStump, RegressionTree

__all__ = [
    "AdaBoostFWLoop",
    "DIRECTIONS",
    "FWBoostLoop",
    "FW_HISTORY_COLUMNS",
    "STEP_RULES",
    "adaboost_fw",
    "best_constant",
    "checked_fwboost_problem",
    "classifier_oracle",
    "fwboost",
    "fwboost_loop",
    "prepared_regression_oracle",
    "regression_oracle",
]

DIRECTIONS = {0: "init", 1: "fw", 2: "away", 3: "drop"}
_INIT, _FW, _AWAY, _DROP = 0, 1, 2, 3
# One row per iterate F_t, t = 0 (the offset alone), 1, ..., n_iter. The driver adds 'round'
# (t: updates so far) first and 'time' (seconds since the fit started) last.
FW_LOOP_COLUMNS = (
    "loss",  # L(c + F_t)
    "gap",  # <g_t, v_t - F_t>, v_t the oracle's vertex at F_t
    "step",  # gamma of the update that produced F_t (0 for t = 0)
    "direction",  # that update: see DIRECTIONS
    "n_active",  # atoms of positive weight (the zero atom not counted)
    "l1_norm",  # beta * sum(alpha) = sum_j |w_j| ||h_j||_inf  <= beta
)
FW_HISTORY_COLUMNS = history_columns(FW_LOOP_COLUMNS)


def classifier_oracle(learner, X: np.ndarray) -> "_ClassifierOracle":
    """FWBoost_C's oracle (001 Algorithm 3): ``g -> (h, h(X), 1.0)``, h fit on labels
    ``sign(g)`` with weights ``|g| / sum |g|``.

    The exact and histogram learners (:class:`DecisionStump`, :class:`EdgeTree`,
    :class:`HistogramStump`, :class:`HistogramTree`) see labels and weights
    only through ``w_i = d_i y_i = g_i / sum |g|``, so they are prepared once with ``y = 1``
    and called with that signed vector (no presorting per round); any other learner is
    prepared every round with the labels ``sign(g)``.
    """
    return _ClassifierOracle(learner, X)


def regression_oracle(learner, X: np.ndarray, p: np.ndarray) -> "_RegressionOracle":
    """FWBoost_R's oracle (001 Algorithm 4): ``g -> (h~, h~(X) / ||h~||_inf, 1 / ||h~||_inf)``
    with ``h~`` the weighted least-squares fit of ``r = g / p`` (``p`` the example weights).

    ``||h~||_inf`` is taken on the training sample (for stumps and trees every leaf holds a
    training example, so it is the sup over all x).
    """
    return prepared_regression_oracle(learner.prepare(X), p)


def prepared_regression_oracle(prepared, p) -> "_RegressionOracle":
    """:func:`regression_oracle` with the least-squares oracle ``prepared`` (``(r, s) -> (h, h(X))``),
    e.g. one over a Dask cluster's sample: its vectors may be kept on the workers."""
    return _RegressionOracle(prepared, p)


# The oracles are objects, not closures: a warm-started estimator keeps its loop, oracle included,
# for the rounds to come, and a fitted estimator must pickle.
class _ClassifierOracle:
    """:func:`classifier_oracle`."""

    def __init__(self, learner, X: np.ndarray):
        self.learner = learner
        exact = isinstance(learner, (DecisionStump, EdgeTree, HistogramStump, HistogramTree))
        self.prepared = learner.prepare(X, np.ones(X.shape[0])) if exact else None
        self.X = None if exact else X  # (the prepared oracle holds what it needs of X)

    def __call__(self, g: np.ndarray):
        if self.prepared is not None:
            h, out = self.prepared(g / np.abs(g).sum())
        else:
            h, out = self.learner.prepare(self.X, np.where(g >= 0.0, 1.0, -1.0))(np.abs(g) / np.abs(g).sum())
        out = np.asarray(out, dtype=np.float64)
        if np.max(np.abs(out)) > 1.0 + 1e-12:
            raise ValueError(f"FWBoost_C needs hypotheses with values in [-1, 1]; {h!r} gave "
                             f"max |h(x)| = {np.max(np.abs(out)):.6g}")
        return h, out, 1.0


class _RegressionOracle:
    """:func:`prepared_regression_oracle`."""

    def __init__(self, prepared, p):
        self.prepared, self.p = prepared, p

    def __call__(self, g):
        h, out = self.prepared(g / self.p, self.p)
        out = as_float_vector(out)
        norm = float(abs(out).max())
        if norm == 0.0:
            return h, abs(out), 0.0  # all +0.0 (abs clears the sign of a -0.0), a vector of out's kind
        scale = 1.0 / norm  # Python floats: inf, no warning, where it overflows (norm <= 2^-1024)
        if scale == np.inf:  # store the atom h / norm itself, scale 1
            return _rescaled(h, lambda v: v / norm), out / norm, 1.0
        return h, out / norm, scale


class _Descent:
    """Adapter for :func:`exact_line_search`, which maximises ``value`` using only
    ``distribution(q)`` as the gradient: here ``-grad L``, so it minimises ``L``."""

    def __init__(self, loss, y, s):
        self._loss, self._y, self._s = loss, y, s

    def distribution(self, F):
        return -self._loss.gradient(F, self._y, self._s)


def best_constant(loss, y: np.ndarray, sample_weight=None) -> float:
    """``argmin_c L(c 1)`` over ``[min y, max y]``: the root of the non-decreasing
    ``c -> sum_i grad L(c 1)_i`` (an endpoint when it has no sign change there)."""
    def slope(c):
        with np.errstate(over="ignore", invalid="ignore"):  # y too large for the loss: NaN, below
            return float(loss.gradient(full_like(y, c), y, sample_weight).sum())

    lo, hi = float(y.min()), float(y.max())
    if lo == hi or slope(lo) >= 0.0:
        return lo
    if slope(hi) <= 0.0:
        return hi
    if np.isnan(slope(lo)) or np.isnan(slope(hi)):
        return float("nan")  # the loss overflows on [min y, max y]; fwboost then says y is too large
    scale = max(1.0, abs(lo), abs(hi))
    if not np.isfinite(hi - lo):  # (Python floats: no warning) the width overflows, brentq's steps would: c / scale
        return scale * float(brentq(lambda t: slope(scale * t), lo / scale, hi / scale, xtol=1e-12, maxiter=200))
    return float(brentq(slope, lo, hi, xtol=1e-12 * scale, maxiter=200))


def _rescaled(h, fn):
    """The least-squares tree or stump ``h`` with ``fn`` applied to its leaf values.

    FWBoost_R's atom is ``h~ / ||h~||_inf`` with coefficient ``beta * alpha / ||h~||_inf``; when
    the fit ``h~`` is tiny (subnormal residuals), ``1 / ||h~||`` or ``beta / ||h~||`` overflows, and
    the atom itself is stored instead (``fn`` divides by the norm), with coefficient ``beta * alpha``.
    """
    if isinstance(h, RegressionStump):
        return dataclasses.replace(h, left=float(fn(h.left)), right=float(fn(h.right)))
    if isinstance(h, RegressionTree):
        return dataclasses.replace(h, value=fn(np.asarray(h.value, dtype=np.float64)))
    raise ValueError(f"FWBoost_R: the weak learner's fit {h!r} is so small on the sample that its coefficient "
                     "beta / max|h(x_i)| overflows; rescale y or lower beta")


def _check_finite_loss(loss, y, s, offset: float, beta: float) -> None:
    """Raise ``ValueError`` unless the loss is finite at ``F = offset`` (else ``y`` is too large
    for it) and at ``F = offset +- beta`` (else ``beta`` is). The iterates stay in that box, and
    a convex pointwise loss is largest at one of its ends, so every iterate's loss is finite."""
    name = loss.name
    with np.errstate(over="ignore", invalid="ignore"):
        at_offset = loss.value(full_like(y, offset), y, s) if np.isfinite(offset) else np.inf
        at_ends = max(loss.value(full_like(y, offset - beta), y, s), loss.value(full_like(y, offset + beta), y, s))
    if not np.isfinite(at_offset):
        raise ValueError(f"loss={name!r} is not finite at the initial model F = {offset:.6g}: y is too large "
                         "for it (the loss overflows); rescale y")
    if not np.isfinite(at_ends):
        raise ValueError(f"beta={beta!r} is too large for loss={name!r}: the loss overflows at F = offset +- beta "
                         f"(offset {offset:.6g}; the exponential loss needs beta + |offset| <= ln(max float) = "
                         f"{np.log(np.finfo(np.float64).max):.6g}); lower beta")


def _check_step(loss, step: str, smooth: float) -> None:
    check_step_rule(step, STEP_RULES, "step")
    if not np.isfinite(smooth) and step != "classic":
        raise ValueError(f"loss={loss.name!r} is not smooth on the feasible set "
                         f"(smoothness inf): only step='classic' applies, got step={step!r}")


class _FWState(NamedTuple):
    """Iterate ``t`` of FWBoost with what its oracle call returned (never modified once built)."""

    t: int  # updates so far
    Z: np.ndarray  # F_t - offset = beta * A alpha
    alpha: np.ndarray  # atom weights, >= 0, sum <= 1
    alpha0: float  # weight of the zero atom, 1 - sum(alpha)
    F: np.ndarray  # offset + Z
    g: np.ndarray  # -grad L(F_t)
    vertex: tuple | None  # the oracle's (h, a, scale) at F_t; None at a stationary point (g = 0)
    gap: float  # <g_t, beta a - Z>
    loss: float  # L(F_t)


class FWBoostLoop(RoundLoop):
    """FWBoost (001 Algorithms 2 and 5) as a :class:`~marginboost.core.rounds.RoundLoop`.

    Round ``t`` updates iterate ``t - 1`` (a FW, away or drop step; nothing for ``t = 0``) and
    asks the oracle at the new iterate: its state (:class:`_FWState`) holds the vertex and gap
    the next update needs. The atom directions (a :class:`GrowingMarginMatrix`), the hypotheses and
    their scales only grow; a round rolled back is cut from them by the length of ``alpha``.
    Iterate 0 is recorded but not committed (no model yet); round 1 starts from it.

    The per-example vectors (``y``, ``F``, ``g``, the atoms) are numpy arrays, or vectors kept on
    the workers of a Dask cluster (:mod:`marginboost.dask.loss_loops`), with ``atoms`` a margin
    matrix of columns kept there.
    """

    columns = FW_LOOP_COLUMNS
    progress = ("loss", "gap")
    start_row = True

    def __init__(self, lmo, loss, y, beta, sample_weight, offset, step, away_steps, tol, smooth, atoms=None):
        self.lmo, self.loss, self.y, self.beta, self.s = lmo, loss, y, beta, sample_weight
        self.offset, self.step_rule, self.away_steps, self.tol, self.smooth = offset, step, away_steps, tol, smooth
        self.descent = _Descent(loss, y, sample_weight)
        # atom directions a_j (identical ones merged; bits if +-1)
        self.atoms = GrowingMarginMatrix(y.shape[0]) if atoms is None else atoms
        self.hypotheses: list = []
        self.scales: list = []

    def step(self, state, t):
        if state is None:  # iterate 0: F_0 = offset, all weight on the zero atom
            Z, alpha, alpha0, gamma, direction, logged = full_like(self.y, 0.0), np.zeros(0), 1.0, 0.0, _INIT, None
        else:
            n = state.alpha.shape[0]  # drop what a rolled-back round added
            self.atoms.truncate(n)
            del self.hypotheses[n:], self.scales[n:]
            Z, alpha, alpha0, gamma, direction, logged = self._update(state)
        beta, F = self.beta, self.offset + Z
        g, value, moves = self._gradient_and_value(F)
        if moves:
            h, a, scale = self.lmo(g)
            if not np.isfinite(beta * scale):  # FWBoost_R: beta / ||h~|| overflows (||h~|| ~ 1e-308)
                h, scale = _rescaled(h, lambda v: scale * v), 1.0
            vertex, gap = (h, a, scale), float(g @ (beta * a - Z))
        else:  # a stationary point: F is optimal, and no oracle can be asked with weights 0
            vertex, gap = None, 0.0
        new = _FWState(t, Z, alpha, alpha0, F, g, vertex, gap, value)
        row = {"loss": value, "gap": gap, "step": gamma, "direction": direction,
               "n_active": int(np.count_nonzero(alpha)), "l1_norm": beta * alpha.sum()}
        stop = Status.CONVERGED if gap <= self.tol else None
        if t == 0:
            return RoundOutcome(row, new, stop=stop, commit=False)
        # iterate t is complete once its row (its FW gap) is: commit it, then log its update
        return RoundOutcome(row, new, stop=stop, path=(alpha, logged))

    def _gradient_and_value(self, F):
        """``g = -grad L(F)``, ``L(F)`` and whether ``g`` has a nonzero entry (a fit on a cluster
        takes both numbers in one pass over the blocks)."""
        g = -self.loss.gradient(F, self.y, self.s)
        return g, self.loss.value(F, self.y, self.s), bool(np.any(g))

    def _update(self, state):
        """Iterate ``state.t + 1``: ``(Z, alpha, alpha0, gamma, direction, path step)``, new arrays."""
        t, Z, alpha, alpha0, F, g = state.t, state.Z, state.alpha, state.alpha0, state.F, state.g
        h, a, scale = state.vertex
        beta = self.beta
        d, gamma_max, away = beta * a - Z, 1.0, None
        if self.away_steps:
            active = np.flatnonzero(alpha > 0.0)
            scores = beta * self.atoms.edges(g, active)
            k = int(np.argmin(scores)) if active.size else -1
            # The zero atom scores <g, 0> = 0; it is the away atom when every other scores more.
            if alpha0 > 0.0 and (k < 0 or scores[k] > 0.0):
                away, away_weight, away_score = -1, alpha0, 0.0
            elif k >= 0:
                away, away_weight, away_score = int(active[k]), float(alpha[active[k]]), float(scores[k])
            if away is not None and float(g @ Z) - away_score > state.gap and away_weight < 1.0:
                d = Z - (beta * self.atoms.column(away) if away >= 0 else 0.0)
                gamma_max = away_weight / (1.0 - away_weight)
            else:
                away = None
        if away is None:  # a FW step: the oracle's atom joins the active set
            j, is_new = self.atoms.add(a)
            if is_new:
                self.hypotheses.append(h)
                self.scales.append(scale)
                alpha = np.append(alpha, 0.0)
        # short_step: smooth * dd = 0 means the loss is linear along d (e.g. Huber outside its
        # quadratic part, smoothness 0): the descent continues to gamma_max (<g, d> > tol >= 0)
        gamma = step_size(self.step_rule, t, float(g @ d), lambda: self.smooth * float(d @ d),
                          lambda: exact_line_search(self.descent, F, d, gamma_max), gamma_max)
        # alpha and Z become new arrays: the committed state holds the old ones
        if away is None:
            direction = _FW
            alpha = alpha * (1.0 - gamma)
            alpha0 *= 1.0 - gamma
            alpha[j] += gamma
            touched = [j]
        else:
            drop = gamma >= gamma_max
            direction = _DROP if drop else _AWAY
            alpha = alpha * (1.0 + gamma)
            if away >= 0:
                alpha0 *= 1.0 + gamma
                # (1 + gamma) alpha_a - gamma >= 0 for gamma <= gamma_max; rounding may dip below
                alpha[away] = 0.0 if drop else max(alpha[away] - gamma, 0.0)
                touched = [away]
            else:
                alpha0 = 0.0 if drop else max((1.0 + gamma) * alpha0 - gamma, 0.0)
                touched = []
        logged = (1.0 - gamma if away is None else 1.0 + gamma, touched)
        return Z + gamma * d, alpha, alpha0, gamma, direction, logged

    def _weights(self, alpha):
        scales = np.asarray(self.scales[: alpha.shape[0]], dtype=np.float64)
        return float(self.beta) * alpha * scales, scales

    def ensemble(self, state):
        weights, _ = self._weights(state.alpha)
        return self.hypotheses[: state.alpha.shape[0]], weights, float(self.offset)

    def result(self, state, status, rounds):
        n = state.alpha.shape[0]
        weights, scales = self._weights(state.alpha)
        return FitResult(
            hypotheses=self.hypotheses[:n],
            weights=weights,
            status=status,
            n_iter=rounds.n_iter,
            history=rounds.history,
            weights_path=rounds.weights_path,
            offset=float(self.offset),
            final={"alpha": state.alpha, "scales": scales, "beta": float(self.beta), "F": state.F,
                   "loss": float(state.loss), "gap": float(state.gap)},
        )


def fwboost(lmo, loss, y, beta, *, sample_weight=None, offset=0.0, step="line_search",
            away_steps=False, max_iter=100, tol=0.0, max_time=None, callbacks=(), verbose=0,
            name="FWBoost") -> FitResult:
    """Run FWBoost (001 Algorithm 2; Algorithm 5 with ``away_steps``); see the module doc.

    ``lmo`` is :func:`classifier_oracle` (FWBoost_C) or :func:`regression_oracle` (FWBoost_R).
    At most ``max_iter`` updates; the oracle is called once more at the last iterate, so
    that ``gap`` and every row of ``history`` certify the iterate they describe. The loop
    (:class:`FWBoostLoop`) is driven by :func:`~marginboost.core.rounds.run_rounds`: with
    ``max_time`` it stops (status ``'max_time'``) at the first certified iterate after that many
    seconds; ``KeyboardInterrupt`` returns the last certified iterate after at least one update
    (status ``'interrupted'``, :mod:`marginboost.core.interrupts`); ``callbacks`` and ``verbose``
    as for :func:`~marginboost.core.rounds.run_rounds` (``name`` heads the progress lines).

    Returns a :class:`~marginboost.core.rounds.FitResult`: ``F(x) = offset + sum_j weights[j]
    hypotheses[j](x)`` with ``weights = beta * alpha * scales`` (``sum_j |weights_j|
    ||h_j||_inf <= beta``), status ``'converged'`` (gap <= tol; a certificate only if the oracle
    is exact), ``'max_iter'``, ``'max_time'`` or ``'interrupted'``; ``weights_path`` logs
    ``alpha`` after every update; ``final`` holds ``alpha`` (atom weights, >= 0, sum <= 1),
    ``scales`` (``h_j(X) * scales[j]`` is the atom ``a_j`` in ``[-1, 1]^m``), ``beta``, ``F``
    (``offset + beta sum_j alpha_j a_j`` on the sample), ``loss`` and ``gap``.
    """
    loop = fwboost_loop(lmo, loss, y, beta, sample_weight=sample_weight, offset=offset, step=step,
                        away_steps=away_steps, tol=tol)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks, verbose=verbose, name=name)


def fwboost_loop(lmo, loss, y, beta, *, sample_weight=None, offset=0.0, step="line_search", away_steps=False,
                 tol=0.0) -> FWBoostLoop:
    """The loop of :func:`fwboost`, checked (``beta > 0``, targets the loss accepts, a loss finite
    on the l1 ball, a step the loss allows) and ready for :func:`~marginboost.core.rounds.run_rounds`."""
    y = np.asarray(y, dtype=np.float64)
    loss, smooth = checked_fwboost_problem(loss, y, beta, sample_weight, offset, step)
    return FWBoostLoop(lmo, loss, y, beta, sample_weight, offset, step, away_steps, tol, smooth)


def checked_fwboost_problem(loss, y, beta, sample_weight, offset, step) -> tuple:
    """:func:`fwboost_loop`'s checks (``y`` a numpy vector or one kept on a Dask cluster's
    workers): the loss (resolved) and its smoothness on the l1 ball."""
    if not beta > 0:
        raise ValueError(f"beta must be > 0 (the l1 radius), got beta={beta!r}")
    loss = resolve_loss(loss)  # a Loss: the checks below read its name without probing
    check_targets(loss, y)
    _check_finite_loss(loss, y, sample_weight, offset, beta)
    smooth = loss.smoothness(y, offset - beta, offset + beta, sample_weight)
    _check_step(loss, step, smooth)
    return loss, smooth


class _SoftmaxDescent:
    """Adapter for :func:`exact_line_search`: ``distribution(q) = -softmax(q)``."""

    @staticmethod
    def distribution(q):
        return -np.exp(q - logsumexp(q))


class _AdaState(NamedTuple):
    """Iterate ``t`` of AdaBoost.FW with what its oracle call returned (never modified once built)."""

    t: int  # updates so far
    log_d: np.ndarray  # log D_t
    log_mL: float  # log(m L_t)
    coef: np.ndarray  # beta * alpha: the weights of the hypotheses
    h: object  # the oracle's hypothesis at D_t
    out: np.ndarray  # its outputs h(X)
    u: np.ndarray  # y * h(X)
    gap: float
    loss: float  # L_t


class AdaBoostFWLoop(RoundLoop):
    """AdaBoost.FW (001 Algorithm 6) as a :class:`~marginboost.core.rounds.RoundLoop`: round
    ``t`` reweights ``D_{t-1}`` by the step of iterate ``t - 1`` (nothing for ``t = 0``), then asks
    the oracle at ``D_t``. Shared lists (hypotheses, outputs, distributions) are cut back to the
    committed state at the start of each round; iterate 0 is recorded but not committed, as in
    :class:`FWBoostLoop`."""

    columns = FW_LOOP_COLUMNS
    progress = ("loss", "gap")
    start_row = True

    def __init__(self, oracle, y, beta, step, tol, keep_distributions):
        self.oracle, self.y, self.beta, self.step_rule, self.tol = oracle, y, beta, step, tol
        self.keep_distributions = keep_distributions
        self.atoms = GrowingMarginMatrix(y.shape[0])  # outputs h_j(X) (identical ones merged; bits if +-1)
        self.hypotheses: list = []
        self.distributions: list = []  # D_t per iterate, with keep_distributions

    def step(self, state, t):
        m, beta = self.y.shape[0], self.beta
        if state is None:  # iterate 0: D_0 uniform, L_0 = 1
            log_d, log_mL, coef = np.full(m, -np.log(m)), np.log(m), np.zeros(0)
            gamma, direction, logged = 0.0, _INIT, None
        else:
            n = state.coef.shape[0]  # drop what a rolled-back round added
            self.atoms.truncate(n)
            del self.hypotheses[n:], self.distributions[state.t + 1:]
            log_d, log_mL, coef, gamma, logged = self._update(state)
            direction = _FW
        D = np.exp(log_d)
        if self.keep_distributions:
            self.distributions.append(D)
        h, out = self.oracle(D)
        u = self.y * np.asarray(out, dtype=np.float64)
        L = np.exp(log_mL) / m
        gap = float(L * (beta * (D @ u) + log_mL + D @ log_d))
        new = _AdaState(t, log_d, log_mL, coef, h, out, u, gap, L)
        row = {"loss": L, "gap": gap, "step": gamma, "direction": direction,
               "n_active": int(np.count_nonzero(coef)), "l1_norm": float(np.abs(coef).sum())}
        stop = Status.CONVERGED if gap <= self.tol else None
        if t == 0:
            return RoundOutcome(row, new, stop=stop, commit=False)
        return RoundOutcome(row, new, stop=stop, path=(coef / beta, logged))

    def _update(self, state):
        """Iterate ``state.t + 1``: ``(log_d, log_mL, coef, gamma, path step)``, new arrays."""
        beta, log_d, log_mL, coef, u = self.beta, state.log_d, state.log_mL, state.coef, state.u
        j, is_new = self.atoms.add(state.out)
        if is_new:
            self.hypotheses.append(state.h)
            coef = np.append(coef, 0.0)
        delta = -log_d - beta * u
        # slope: gap_t, the descent rate of L along the FW direction (read by 'short_step' only,
        # which AdaBoost.FW does not take: no curvature)
        gamma = step_size(self.step_rule, state.t, state.gap, None,
                          lambda: exact_line_search(_SoftmaxDescent, log_d, delta - log_mL, 1.0))
        # log_d and coef become new arrays: the committed state holds the old ones
        log_d = log_d + gamma * delta
        log_z = logsumexp(log_d)
        log_d = log_d - log_z
        log_mL = (1.0 - gamma) * log_mL + log_z
        coef = coef * (1.0 - gamma)
        coef[j] += gamma * beta
        return log_d, log_mL, coef, gamma, (1.0 - gamma, [j])

    def ensemble(self, state):
        return self.hypotheses[: state.coef.shape[0]], state.coef, 0.0

    def result(self, state, status, rounds):
        n = state.coef.shape[0]
        dists = np.asarray(self.distributions[: state.t + 1]) if self.keep_distributions else None
        return FitResult(
            hypotheses=self.hypotheses[:n],
            weights=state.coef,
            status=status,
            n_iter=rounds.n_iter,
            history=rounds.history,
            weights_path=rounds.weights_path,
            final={"alpha": state.coef / self.beta, "scales": np.ones(n), "beta": float(self.beta),
                   "F": -self.y * (state.log_mL + state.log_d), "loss": float(state.loss),
                   "gap": float(state.gap), "distributions": dists},
        )


def adaboost_fw(oracle, y, beta, *, step="line_search", max_iter=100, tol=0.0,
                keep_distributions=False, max_time=None, callbacks=(), verbose=0, name="AdaBoost.FW") -> FitResult:
    """AdaBoost.FW (001 Algorithm 6): FWBoost_C with ``L(F) = (1/m) sum_i exp(-y_i F_i)`` as
    AdaBoost-style reweighting; ``oracle`` is an :class:`~.weak_learners.EdgeOracle` on ``y``.

    ``D_t(i) = exp(-y_i F_t(x_i)) / (m L_t)`` is the distribution handed to the weak learner
    (the labels ``sign(g) = y`` and weights ``|g| / sum |g| = D_t`` of FWBoost_C). With
    ``u_i = y_i h_t(x_i)``, ``edge_t = D_t @ u`` and step ``alpha_t``:

        D_{t+1}(i) = D_t(i)^(1 - alpha_t) exp(-alpha_t beta u_i) / Z_t,
        Z_t(alpha) = sum_i D_t(i)^(1 - alpha) exp(-alpha beta u_i),
        log(m L_{t+1}) = (1 - alpha_t) log(m L_t) + log Z_t(alpha_t),
        gap_t = L_t (beta edge_t + log(m L_t) + sum_i D_t(i) log D_t(i)).

    (``y_i F_t(x_i) = -log(m L_t D_t(i))`` gives the FW gap ``<-grad L, beta h - F>``.)
    Steps (:mod:`marginboost.core.step_sizes`): ``classic`` ``2 / (t + 2)``; ``line_search``
    minimises ``(1 - a) log(m L_t) + log Z_t(a)`` over [0, 1] (convex: a log-sum-exp of affine
    functions). At most ``max_iter`` updates, the oracle called once more at the last
    iterate (its gap), as in :func:`fwboost`. The loop (:class:`AdaBoostFWLoop`) is driven by
    :func:`~marginboost.core.rounds.run_rounds`: ``max_time`` stops it (status ``'max_time'``)
    at the first certified iterate after that many seconds; ``KeyboardInterrupt`` returns the
    last certified iterate after at least one update (status ``'interrupted'``,
    :mod:`marginboost.core.interrupts`); ``callbacks``, ``verbose``, ``name`` as there.

    Returns a :class:`~marginboost.core.rounds.FitResult`: ``weights`` the coefficients of the
    hypotheses (``beta * alpha``), ``weights_path`` logging ``alpha`` after every update,
    ``final`` holding ``alpha``, ``scales`` (ones), ``beta``, ``F`` (on the sample), ``loss``,
    ``gap`` and, with ``keep_distributions``, ``distributions`` (``D_t``, one row per iterate;
    None without).
    """
    if step not in ("classic", "line_search"):
        raise ValueError(f"step must be 'classic' or 'line_search' for AdaBoost.FW, got step={step!r}")
    if not beta > 0:
        raise ValueError(f"beta must be > 0 (the l1 radius), got beta={beta!r}")
    y = np.asarray(y, dtype=np.float64)
    check_targets(ExponentialLoss(), y)
    loop = AdaBoostFWLoop(oracle, y, beta, step, tol, keep_distributions)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks,
                      verbose=verbose, name=name)
