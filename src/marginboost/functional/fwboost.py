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

Step rules ``gamma_t`` (the FW rules of :mod:`marginboost.soft_margin.fw_rules`, rewritten for a loss):
``classic`` ``2 / (t + 2)`` (t = 0, 1, ...; the first step is 1); ``line_search``
``argmin_{[0, gamma_max]} L(c + F_t + gamma d_t)`` by :func:`marginboost.core.line_search.exact_line_search`;
``short_step`` ``min(gamma_max, <g_t, d_t> / (C ||d_t||^2))`` with ``C`` the loss's smoothness
on ``[c - beta, c + beta]^m`` (001 Assumption 1; Demyanov-Rubinov step).

Away steps (001 Algorithm 5, Guelat and Marcotte 1986): ``F_t = sum_a alpha_a a`` over an
active set of atoms, including the zero function (the start ``F_0 = 0``) with weight
``alpha_0 = 1 - sum alpha``. The away atom ``a_t = argmin_{active} <g_t, a>`` gives the away
direction ``F_t - a_t``; if ``<g_t, F_t - a_t> > gap_t`` the step goes along it with
``gamma_max = alpha_a / (1 - alpha_a)``: ``alpha <- (1 + gamma) alpha``, ``alpha_a -= gamma``,
and at ``gamma = gamma_max`` the atom is dropped (a drop step). Otherwise a FW step.

AdaBoost.FW (001 Algorithm 6) is FWBoost_C with the exponential loss written as reweighting:
see :func:`adaboost_fw`.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

from marginboost.core.margin_matrix import MarginMatrix
from marginboost.core.rounds import WeightsPath
from marginboost.core.interrupts import keep_interrupted
from marginboost.core.line_search import exact_line_search
from marginboost.functional.losses import ExponentialLoss, check_targets
from marginboost.weak_learners import DecisionStump, EdgeTree
from marginboost.weak_learners.regression import RegressionStump, RegressionTree
from marginboost.core.threads import single_blas_thread

__all__ = [
    "DIRECTIONS",
    "FW_HISTORY_COLUMNS",
    "FWResult",
    "STEP_RULES",
    "adaboost_fw",
    "best_constant",
    "classifier_oracle",
    "fwboost",
    "regression_oracle",
]

STEP_RULES = ("classic", "line_search", "short_step")
DIRECTIONS = {0: "init", 1: "fw", 2: "away", 3: "drop"}
_INIT, _FW, _AWAY, _DROP = 0, 1, 2, 3
# One row per iterate F_t, t = 0 (the offset alone), 1, ..., n_iter.
FW_HISTORY_COLUMNS = (
    "round",  # t: updates so far
    "loss",  # L(c + F_t)
    "gap",  # <g_t, v_t - F_t>, v_t the oracle's vertex at F_t
    "step",  # gamma of the update that produced F_t (0 for t = 0)
    "direction",  # that update: see DIRECTIONS
    "n_active",  # atoms of positive weight (the zero atom not counted)
    "l1_norm",  # beta * sum(alpha) = sum_j |w_j| ||h_j||_inf  <= beta
    "time",  # seconds since the fit started
)


@dataclass
class FWResult:
    """A FWBoost fit: ``F(x) = offset + sum_j coef[j] * hypotheses[j](x)``."""

    hypotheses: list
    scales: np.ndarray  # h_j(X) * scales[j] is the atom direction a_j in [-1, 1]^m
    alpha: np.ndarray  # atom weights, >= 0, sum <= 1
    beta: float
    offset: float
    F: np.ndarray  # offset + beta * sum_j alpha_j a_j on the training sample
    loss: float
    gap: float
    n_iter: int
    status: str  # 'converged' (gap <= tol; a certificate only if the oracle is exact) | 'max_iter'
    #              | 'max_time' | 'interrupted'
    history: dict = field(default_factory=dict)
    alpha_path: WeightsPath = field(default_factory=WeightsPath)
    distributions: np.ndarray | None = None  # AdaBoost.FW's D_t, one row per iterate, on request

    @property
    def coef(self) -> np.ndarray:
        """The coefficients ``beta * alpha[j] * scales[j]`` of ``hypotheses[j]`` in ``F``; ``sum |coef_j| ||h_j||_inf <= beta``."""
        return self.beta * self.alpha * self.scales


def classifier_oracle(learner, X: np.ndarray):
    """FWBoost_C's oracle (001 Algorithm 3): ``g -> (h, h(X), 1.0)``, h fit on labels
    ``sign(g)`` with weights ``|g| / sum |g|``.

    The exact learners (:class:`DecisionStump`, :class:`EdgeTree`) see labels and weights
    only through ``w_i = d_i y_i = g_i / sum |g|``, so they are prepared once with ``y = 1``
    and called with that signed vector (no presorting per round); any other learner is
    prepared every round with the labels ``sign(g)``.
    """
    m = X.shape[0]
    if isinstance(learner, (DecisionStump, EdgeTree)):
        oracle = learner.prepare(X, np.ones(m))

        def call(g):
            return oracle(g / np.abs(g).sum())
    else:
        def call(g):
            return learner.prepare(X, np.where(g >= 0.0, 1.0, -1.0))(np.abs(g) / np.abs(g).sum())

    def lmo(g):
        h, out = call(g)
        out = np.asarray(out, dtype=np.float64)
        if np.max(np.abs(out)) > 1.0 + 1e-12:
            raise ValueError(f"FWBoost_C needs hypotheses with values in [-1, 1]; {h!r} gave "
                             f"max |h(x)| = {np.max(np.abs(out)):.6g}")
        return h, out, 1.0

    return lmo


def regression_oracle(learner, X: np.ndarray, p: np.ndarray):
    """FWBoost_R's oracle (001 Algorithm 4): ``g -> (h~, h~(X) / ||h~||_inf, 1 / ||h~||_inf)``
    with ``h~`` the weighted least-squares fit of ``r = g / p`` (``p`` the example weights).

    ``||h~||_inf`` is taken on the training sample (for stumps and trees every leaf holds a
    training example, so it is the sup over all x).
    """
    oracle = learner.prepare(X)

    def lmo(g):
        h, out = oracle(g / p, p)
        out = np.asarray(out, dtype=np.float64)
        norm = float(np.max(np.abs(out)))
        if norm == 0.0:
            return h, np.zeros_like(out), 0.0
        scale = 1.0 / norm  # Python floats: inf, no warning, where it overflows (norm <= 2^-1024)
        if scale == np.inf:  # store the atom h / norm itself, scale 1
            return _rescaled(h, lambda v: v / norm), out / norm, 1.0
        return h, out / norm, scale

    return lmo


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
            return float(np.sum(loss.gradient(np.full(y.shape[0], c), y, sample_weight)))

    lo, hi = float(np.min(y)), float(np.max(y))
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
    m = y.shape[0]
    name = getattr(loss, "name", loss)
    with np.errstate(over="ignore", invalid="ignore"):
        at_offset = loss.value(np.full(m, offset), y, s) if np.isfinite(offset) else np.inf
        at_ends = max(loss.value(np.full(m, offset - beta), y, s), loss.value(np.full(m, offset + beta), y, s))
    if not np.isfinite(at_offset):
        raise ValueError(f"loss={name!r} is not finite at the initial model F = {offset:.6g}: y is too large "
                         "for it (the loss overflows); rescale y")
    if not np.isfinite(at_ends):
        raise ValueError(f"beta={beta!r} is too large for loss={name!r}: the loss overflows at F = offset +- beta "
                         f"(offset {offset:.6g}; the exponential loss needs beta + |offset| <= ln(max float) = "
                         f"{np.log(np.finfo(np.float64).max):.6g}); lower beta")


def _check_step(loss, step: str, smooth: float) -> None:
    if step not in STEP_RULES:
        raise ValueError(f"step must be one of {STEP_RULES}, got step={step!r}")
    if not np.isfinite(smooth) and step != "classic":
        raise ValueError(f"loss={getattr(loss, 'name', loss)!r} is not smooth on the feasible set "
                         f"(smoothness inf): only step='classic' applies, got step={step!r}")


@single_blas_thread
def fwboost(lmo, loss, y, beta, *, sample_weight=None, offset=0.0, step="line_search",
            away_steps=False, n_estimators=100, tol=0.0, max_time=None) -> FWResult:
    """Run FWBoost (001 Algorithm 2; Algorithm 5 with ``away_steps``); see the module doc.

    ``lmo`` is :func:`classifier_oracle` (FWBoost_C) or :func:`regression_oracle` (FWBoost_R).
    At most ``n_estimators`` updates; the oracle is called once more at the last iterate, so
    that ``gap`` and every row of ``history`` certify the iterate they describe. With
    ``max_time`` it stops (status ``'max_time'``) at the first certified iterate after that
    many seconds; ``KeyboardInterrupt`` returns the last certified iterate after at least one
    update (status ``'interrupted'``, :mod:`marginboost.core.interrupts`).
    """
    y = np.asarray(y, dtype=np.float64)
    if not beta > 0:
        raise ValueError(f"beta must be > 0 (the l1 radius), got beta={beta!r}")
    check_targets(loss, y)
    m = y.shape[0]
    s = sample_weight
    _check_finite_loss(loss, y, s, offset, beta)
    smooth = loss.smoothness(y, offset - beta, offset + beta, s)
    _check_step(loss, step, smooth)
    descent = _Descent(loss, y, s)

    columns = MarginMatrix(m)  # atom directions a_j (identical ones merged)
    hypotheses, scales = [], []
    alpha = np.zeros(0)
    alpha0 = 1.0  # weight of the zero atom
    Z = np.zeros(m)  # F - offset = beta * A alpha
    history = {name: [] for name in FW_HISTORY_COLUMNS}
    path = WeightsPath()
    status, gamma, direction, logged = "max_iter", 0.0, _INIT, None  # logged: the last update's path step
    start = time.perf_counter()
    kept = None  # (t, Z, alpha) of the last iterate t >= 1 with its row (see .interrupts)
    try:
        for t in range(n_estimators + 1):
            F = offset + Z
            g = -loss.gradient(F, y, s)
            if np.any(g):
                h, a, scale = lmo(g)
                if not np.isfinite(beta * scale):  # FWBoost_R: beta / ||h~|| overflows (||h~|| ~ 1e-308)
                    h, scale = _rescaled(h, lambda v: scale * v), 1.0
                gap = float(g @ (beta * a - Z))
            else:  # a stationary point: F is optimal, and no oracle can be asked with weights 0
                gap = 0.0
            for name, val in zip(FW_HISTORY_COLUMNS, (t, loss.value(F, y, s), gap, gamma, direction,
                                                      int(np.count_nonzero(alpha)), beta * alpha.sum(),
                                                      time.perf_counter() - start)):
                history[name].append(val)
            if t:  # iterate t is complete once its row (its FW gap) is: commit it, then log its update
                kept = (t, Z, alpha)
                path.append(alpha, logged)
            if gap <= tol:
                status = "converged"
                break
            if t == n_estimators:
                break
            if t and max_time is not None and time.perf_counter() - start >= max_time:
                status = "max_time"
                break
            d, gamma_max, away = beta * a - Z, 1.0, None
            if away_steps:
                active = np.flatnonzero(alpha > 0.0)
                scores = beta * (g @ columns.U[:, active])
                k = int(np.argmin(scores)) if active.size else -1
                # The zero atom scores <g, 0> = 0; it is the away atom when every other scores more.
                if alpha0 > 0.0 and (k < 0 or scores[k] > 0.0):
                    away, away_weight, away_score = -1, alpha0, 0.0
                elif k >= 0:
                    away, away_weight, away_score = int(active[k]), float(alpha[active[k]]), float(scores[k])
                if away is not None and float(g @ Z) - away_score > gap and away_weight < 1.0:
                    d = Z - (beta * columns.U[:, away] if away >= 0 else 0.0)
                    gamma_max = away_weight / (1.0 - away_weight)
                else:
                    away = None
            if away is None:  # a FW step: the oracle's atom joins the active set
                j, is_new = columns.add(a)
                if is_new:
                    hypotheses.append(h)
                    scales.append(scale)
                    alpha = np.append(alpha, 0.0)
            if step == "classic":
                gamma = min(2.0 / (t + 2.0), gamma_max)
            elif step == "short_step":
                # smooth * dd = 0: the loss is linear along d (e.g. Huber outside its quadratic part,
                # smoothness 0): the descent continues to gamma_max
                curvature = smooth * float(d @ d)
                gamma = gamma_max if curvature == 0.0 else min(gamma_max, float(g @ d) / curvature)
            else:
                gamma = exact_line_search(descent, F, d, gamma_max)
            # alpha and Z become new arrays: ``kept`` holds the old ones
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
                    alpha[away] = 0.0 if drop else alpha[away] - gamma
                    touched = [away]
                else:
                    alpha0 = 0.0 if drop else (1.0 + gamma) * alpha0 - gamma
                    touched = []
            Z = Z + gamma * d
            logged = (1.0 - gamma if away is None else 1.0 + gamma, touched)
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        t, Z, alpha = kept
        status = "interrupted"
        del hypotheses[alpha.shape[0]:], scales[alpha.shape[0]:]
        history = {k: v[: t + 1] for k, v in history.items()}
        if len(path) < t:  # cut between the commit and the log of its update
            path.append(alpha, None)
    history = {k: np.asarray(v) for k, v in history.items()}
    return FWResult(hypotheses, np.asarray(scales, dtype=np.float64), alpha, float(beta), float(offset),
                    offset + Z, float(history["loss"][-1]), float(history["gap"][-1]),
                    len(path), status, history, path)


class _SoftmaxDescent:
    """Adapter for :func:`exact_line_search`: ``distribution(q) = -softmax(q)``."""

    @staticmethod
    def distribution(q):
        return -np.exp(q - logsumexp(q))


@single_blas_thread
def adaboost_fw(oracle, y, beta, *, step="line_search", n_estimators=100, tol=0.0,
                keep_distributions=False) -> FWResult:
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
    Steps: ``classic`` ``2 / (t + 2)``; ``line_search`` minimises
    ``(1 - a) log(m L_t) + log Z_t(a)`` over [0, 1] (convex: a log-sum-exp of affine functions).
    With ``keep_distributions`` the result carries ``distributions`` (one row per iterate).
    At most ``n_estimators`` updates, the oracle called once more at the last iterate (its gap),
    as in :func:`fwboost`; ``KeyboardInterrupt`` returns the last certified iterate after at
    least one update (status ``'interrupted'``, :mod:`marginboost.core.interrupts`).
    """
    if step not in ("classic", "line_search"):
        raise ValueError(f"step must be 'classic' or 'line_search' for AdaBoost.FW, got step={step!r}")
    if not beta > 0:
        raise ValueError(f"beta must be > 0 (the l1 radius), got beta={beta!r}")
    y = np.asarray(y, dtype=np.float64)
    check_targets(ExponentialLoss(), y)
    m = y.shape[0]
    log_d = np.full(m, -np.log(m))
    log_mL = np.log(m)
    columns = MarginMatrix(m)
    hypotheses, coef = [], np.zeros(0)
    history = {name: [] for name in FW_HISTORY_COLUMNS}
    path, dists = WeightsPath(), []
    status, gamma, direction, logged = "max_iter", 0.0, _INIT, None  # logged: the last update's path step
    start = time.perf_counter()
    kept = None  # (t, log_d, log_mL, coef, logged) of the last iterate t >= 1 with its row (see .interrupts)
    try:
        for t in range(n_estimators + 1):
            D = np.exp(log_d)
            if keep_distributions:
                dists.append(D)
            h, out = oracle(D)
            u = y * np.asarray(out, dtype=np.float64)
            L = np.exp(log_mL) / m
            gap = float(L * (beta * (D @ u) + log_mL + D @ log_d))
            for name, val in zip(FW_HISTORY_COLUMNS, (t, L, gap, gamma, direction, int(np.count_nonzero(coef)),
                                                      float(np.abs(coef).sum()), time.perf_counter() - start)):
                history[name].append(val)
            if t:  # iterate t is complete once its row (its FW gap) is: commit it, then log its update
                kept = (t, log_d, log_mL, coef, logged)
                path.append(coef / beta, logged)
            if gap <= tol:
                status = "converged"
                break
            if t == n_estimators:
                break
            j, is_new = columns.add(out)
            if is_new:
                hypotheses.append(h)
                coef = np.append(coef, 0.0)
            delta = -log_d - beta * u
            if step == "classic":
                gamma = 2.0 / (t + 2.0)
            else:
                gamma = exact_line_search(_SoftmaxDescent, log_d, delta - log_mL, 1.0)
            direction = _FW
            # log_d and coef become new arrays: ``kept`` holds the old ones
            log_d = log_d + gamma * delta
            log_z = logsumexp(log_d)
            log_d = log_d - log_z
            log_mL = (1.0 - gamma) * log_mL + log_z
            coef = coef * (1.0 - gamma)
            coef[j] += gamma * beta
            logged = (1.0 - gamma, [j])
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        t, log_d, log_mL, coef, logged = kept
        status = "interrupted"
        del hypotheses[coef.shape[0]:], dists[t + 1:]
        history = {k: v[: t + 1] for k, v in history.items()}
        if len(path) < t:  # cut between the commit and the log of its update
            # logged with its own step, not outright (None): the entry, and so the replayed
            # weights (scale * previous, not coef / beta), are those of an uninterrupted run
            path.append(coef / beta, logged)
    history = {k: np.asarray(v) for k, v in history.items()}
    return FWResult(hypotheses, np.ones(len(hypotheses)), coef / beta, float(beta), 0.0,
                    -y * (log_mL + log_d), float(history["loss"][-1]), float(history["gap"][-1]),
                    len(path), status, history, path, np.asarray(dists) if keep_distributions else None)
