"""BLasso, "Boosted Lasso" (Zhao and Yu 2007, "Stagewise Lasso", JMLR 8:2701-2726): the baseline
of FWBoost's experiments (Wang, Wang, E, Schapire 2015, arXiv 1510.02558, section 5; "001").

BLasso traces the Lasso path of a loss ``L`` over the span of a hypothesis class by steps of a
fixed size ``eps`` on one coefficient at a time. With ``F = offset + sum_j beta_j a_j``
(``a_j = h_j(X) / ||h_j||_inf`` on the sample, so ``T(beta) = ||beta||_1`` is on the scale of
FWBoost's ``beta``: ``sum_j |w_j| ||h_j||_inf``) and the penalised loss

    Gamma(beta; lambda) = L(F(beta)) + lambda T(beta),

Zhao and Yu's algorithm (their section 3, "BLasso"), with a tolerance ``xi >= 0``:

1. *Initial forward step*: ``(j, s) = argmin_{j, s = +-eps} L(beta = s 1_j)``;
   ``lambda_0 = (L(0) - L(beta_0)) / eps``.
2. *Backward step*: over the active coefficients (``beta_j != 0``) with ``s_j = -sign(beta_j) eps``
   (towards 0), ``j = argmin_j L(beta + s_j 1_j)``. If it lowers the penalised loss,
   ``Gamma(beta + s_j 1_j; lambda) - Gamma(beta; lambda) < -xi``, take it (lambda unchanged).
3. Otherwise a *forward step*: ``(j, s) = argmin_{j, s = +-eps} L(beta + s 1_j)``, and
   ``lambda <- min(lambda, (L(beta) - L(beta + s 1_j) - xi) / eps)``.
4. Repeat 2-3; stop once ``lambda <= 0`` (the unpenalised end of the path).

Each step lowers the penalised loss at the new lambda: a backward step by more than ``xi``; a
forward step changes ``T`` by at most ``eps``, so ``Gamma(beta_{t+1}; lambda_{t+1}) -
Gamma(beta_t; lambda_{t+1}) <= L(beta_{t+1}) - L(beta_t) + lambda_{t+1} eps <= -xi``. As
``eps, xi -> 0`` the path converges to the Lasso path (their Theorem 1 for finite dictionaries).

Over a large or infinite class the forward argmin is the weak learner's job: here it is the
same linear minimisation oracle as FWBoost's (:func:`marginboost.functional.fwboost.classifier_oracle`, exact for
stumps: ``argmax_{a in +-H} <-grad L, a>``; or :func:`marginboost.functional.fwboost.regression_oracle`, least
squares on the negative gradient), i.e. the first-order choice of the best direction; the sign
``s`` is then chosen by evaluating ``L`` at both. For the squared loss and a dictionary whose
columns have equal norms (+-1 stumps) that choice is the exact argmin of step 3, since
``L(F + s eps a) = L(F) - s eps <g, a> + eps^2 ||a||_p^2 / 2``. The backward step searches the
active set, as Zhao and Yu do; a returned direction equal (up to sign) to an active one moves
that coefficient, which is why hypotheses are identified by their outputs on the sample (001,
section 3.3, names this search as BLasso's cost over FWBoost). Coefficients are kept as integer
counts of ``eps`` steps, so a backward step lands exactly on 0.

One difference from Zhao and Yu: a forward step that would give ``lambda <= 0`` (the oracle's
direction no longer lowers the loss by more than ``xi``) is not taken; the path ends before it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from marginboost.core.margin_matrix import MarginMatrix
from marginboost.core.interrupts import keep_interrupted
from marginboost.functional.losses import PointwiseLoss, check_targets

__all__ = ["BLASSO_HISTORY_COLUMNS", "BLassoResult", "blasso", "staged_blasso"]

_INIT, _FORWARD, _BACKWARD = 0, 1, 2
DIRECTIONS = {_INIT: "init", _FORWARD: "forward", _BACKWARD: "backward"}
# One row per iterate beta_t, t = 0 (beta = 0), 1, ..., n_iter.
BLASSO_HISTORY_COLUMNS = (
    "round",  # t: steps so far
    "loss",  # L(F(beta_t))
    "l1_norm",  # T(beta_t) = eps * sum_j |k_j|
    "lam",  # lambda_t (lambda_0 for t = 0)
    "direction",  # the step that produced beta_t: see DIRECTIONS
    "n_active",  # coefficients != 0
    "time",  # seconds since the start
)


@dataclass
class BLassoResult:
    """A BLasso path: ``F(x) = offset + eps * sum_j counts[j] * scales[j] * hypotheses[j](x)``."""

    hypotheses: list
    scales: np.ndarray  # h_j(X) * scales[j] = a_j, the normalised direction
    counts: np.ndarray  # integer steps on each coefficient: beta_j = eps * counts[j]
    eps: float
    offset: float
    F: np.ndarray
    loss: float
    lam: float
    n_iter: int
    status: str  # 'lambda<=0' (path ended) | 'max_iter' | 'interrupted'
    history: dict = field(default_factory=dict)
    steps: list = field(default_factory=list)  # (j, +1 or -1) per step: counts[j] += sign

    @property
    def coef(self) -> np.ndarray:
        """The coefficients ``eps * counts[j] * scales[j]`` of ``hypotheses[j]`` in ``F``."""
        return self.eps * self.counts * self.scales


def staged_blasso(result: BLassoResult, X: np.ndarray):
    """Yield ``F_t(X)`` after every step ``t = 1, ..., n_iter`` (one column added per step)."""
    outputs = [result.scales[j] * np.asarray(h.predict(X), dtype=np.float64)
               for j, h in enumerate(result.hypotheses)]
    F = np.full(np.asarray(X).shape[0], result.offset)
    for j, sign in result.steps:
        F = F + (result.eps * sign) * outputs[j]
        yield F


def _losses(loss, y, s, F, D):
    """``L(F + D[:, k])`` for every column k: one broadcast for a :class:`PointwiseLoss`
    (the backward step scores the whole active set each round), a loop for any other loss."""
    if isinstance(loss, PointwiseLoss):
        p = np.full(y.shape[0], 1.0 / y.shape[0]) if s is None else s / s.sum()
        return p @ loss.pointwise(F[:, None] + D, y[:, None])
    return np.array([loss.value(F + D[:, k], y, s) for k in range(D.shape[1])])


def blasso(lmo, loss, y, eps, *, sample_weight=None, offset=0.0, xi=0.0, n_estimators=1000) -> BLassoResult:
    """Run BLasso (module doc) for at most ``n_estimators`` steps of size ``eps``.

    ``lmo(g) -> (h, a, scale)`` is a FWBoost oracle (:func:`marginboost.functional.fwboost.classifier_oracle` or
    :func:`marginboost.functional.fwboost.regression_oracle`, or any function with that contract): ``a = scale *
    h(X)`` in ``[-1, 1]^m`` with ``<g, a>`` large for ``g = -grad L``. ``KeyboardInterrupt``
    returns the path of the steps completed, at least one (status ``'interrupted'``,
    :mod:`marginboost.core.interrupts`).
    """
    y = np.asarray(y, dtype=np.float64)
    if not eps > 0:
        raise ValueError(f"eps must be > 0 (the step size), got eps={eps!r}")
    if not xi >= 0:
        raise ValueError(f"xi must be >= 0 (the tolerance), got xi={xi!r}")
    check_targets(loss, y)
    s = sample_weight
    columns = MarginMatrix(y.shape[0])  # directions a_j, sign-normalised (see _canonical)
    hypotheses, scales, counts = [], [], np.zeros(0, dtype=np.int64)
    F = np.full(y.shape[0], float(offset))
    L = loss.value(F, y, s)
    history = {name: [] for name in BLASSO_HISTORY_COLUMNS}
    steps: list[tuple[int, int]] = []
    start = time.perf_counter()

    def forward(tol):
        """The forward candidate at F: (h, a, scale, sign, L_new, its lambda), None at a stationary point."""
        g = -loss.gradient(F, y, s)
        if not np.any(g):
            return None
        h, a, scale = lmo(g)
        a, scale = _canonical(np.asarray(a, dtype=np.float64), scale)
        if not np.any(a):
            return None
        L_pm = _losses(loss, y, s, F, np.column_stack([eps * a, -eps * a]))
        sign = 1 if L_pm[0] <= L_pm[1] else -1
        L_new = float(min(L_pm))
        return h, a, scale, sign, L_new, (L - L_new - tol) / eps

    def record(direction):
        for name, val in zip(BLASSO_HISTORY_COLUMNS,
                             (len(steps), L, eps * np.abs(counts).sum(), lam, direction,
                              int(np.count_nonzero(counts)), time.perf_counter() - start)):
            history[name].append(val)

    candidate = forward(0.0)  # step 1: lambda_0 comes from the first forward step, without xi
    lam = 0.0 if candidate is None else candidate[5]
    record(_INIT)
    status = "max_iter"
    kept = None  # (t, counts, F, L, lam) after the last step t >= 1 with its row (see .interrupts)
    try:
        while len(steps) < n_estimators:
            active = np.flatnonzero(counts)
            if active.size:
                back = -np.sign(counts[active])
                L_back = _losses(loss, y, s, F, columns.U[:, active] * (eps * back))
                k = int(np.argmin(L_back))
                # T drops by eps, so Gamma changes by L_back - L - lambda eps.
                if L_back[k] - L - lam * eps < -xi:
                    j, sign = int(active[k]), int(back[k])
                    counts = counts.copy()  # counts and F become new arrays: ``kept`` holds the old ones
                    counts[j] += sign
                    F = F + (eps * sign) * columns.U[:, j]
                    L = float(L_back[k])
                    steps.append((j, sign))
                    record(_BACKWARD)
                    kept = (len(steps), counts, F, L, lam)  # the step is complete with its row: commit it
                    continue
            if candidate is None and len(steps):
                candidate = forward(xi)
            if candidate is None or candidate[5] <= 0.0:
                status = "lambda<=0"
                break
            h, a, scale, sign, L, new_lam = candidate
            candidate = None
            j, is_new = columns.add(a)
            if is_new:
                hypotheses.append(h)
                scales.append(scale)
                counts = np.append(counts, 0)
            else:
                counts = counts.copy()
            counts[j] += sign
            F = F + (eps * sign) * a
            lam = min(lam, new_lam)
            steps.append((j, sign))
            record(_FORWARD)
            kept = (len(steps), counts, F, L, lam)
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        # Back to the committed step; columns of MarginMatrix past it are left: nothing returned
        # refers to them (steps index hypotheses, scales and counts only, cut alike).
        t, counts, F, L, lam = kept
        status = "interrupted"
        del steps[t:], hypotheses[counts.shape[0]:], scales[counts.shape[0]:]
        history = {k: v[: t + 1] for k, v in history.items()}
    history = {k: np.asarray(v) for k, v in history.items()}
    return BLassoResult(hypotheses, np.asarray(scales, dtype=np.float64), counts, float(eps), float(offset),
                        F, float(L), float(lam), len(steps), status, history, steps)


def _canonical(a: np.ndarray, scale: float):
    """``(a, scale)`` with the sign flipped so that the first nonzero entry of ``a`` is positive:
    ``a`` and ``-a`` are one coefficient, moved up or down."""
    nz = np.flatnonzero(a)
    if nz.size and a[nz[0]] < 0:
        return -a, -scale
    return a, scale
