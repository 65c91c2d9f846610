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

The loop (:class:`BLassoLoop`) is driven by :func:`marginboost.core.rounds.run_rounds`: one
round per step (backward or forward), round 0 the start ``beta = 0`` with ``lambda_0``, recorded
but not committed (no step has made a model yet).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from marginboost.core.bit_matrix import GrowingMarginMatrix
from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, history_columns, run_rounds
from marginboost.functional.losses import PointwiseLoss, check_targets, resolve_loss

__all__ = ["BLASSO_HISTORY_COLUMNS", "PATH_END", "BLassoLoop", "blasso", "staged_blasso"]

# The loop's reason for a "converged" stop (FitResult.reason): the path reached lambda <= 0.
PATH_END = "path_end"

_INIT, _FORWARD, _BACKWARD = 0, 1, 2
DIRECTIONS = {_INIT: "init", _FORWARD: "forward", _BACKWARD: "backward"}
# One row per iterate beta_t, t = 0 (beta = 0), 1, ..., n_iter. The driver adds 'round'
# (t: steps so far) first and 'time' (seconds since the fit started) last.
BLASSO_LOOP_COLUMNS = (
    "loss",  # L(F(beta_t))
    "l1_norm",  # T(beta_t) = eps * sum_j |k_j|
    "lam",  # lambda_t (lambda_0 for t = 0)
    "direction",  # the step that produced beta_t: see DIRECTIONS
    "n_active",  # coefficients != 0
)
BLASSO_HISTORY_COLUMNS = history_columns(BLASSO_LOOP_COLUMNS)


def staged_blasso(result: FitResult, X: np.ndarray):
    """Yield ``F_t(X)`` after every step ``t = 1, ..., n_iter`` of a :func:`blasso` fit (one
    column added per step)."""
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


class _BLassoState(NamedTuple):
    """The path after step ``t`` (never modified once built)."""

    t: int  # steps so far
    counts: np.ndarray  # integer steps on each coefficient: beta_j = eps * counts[j]
    F: np.ndarray  # offset + sum_j beta_j a_j on the sample
    L: float  # L(F)
    lam: float  # lambda_t
    candidate: tuple | None = None  # step 0 only: the first forward step, which gave lambda_0


class BLassoLoop(RoundLoop):
    """BLasso (module doc) as a :class:`~marginboost.core.rounds.RoundLoop`: round ``t`` takes
    step ``t``, backward if it lowers the penalised loss by more than ``xi``, else forward; a
    forward step that would give ``lambda <= 0`` ends the path (no row, status ``'converged'``,
    reason ``'path_end'``).

    The directions (a :class:`GrowingMarginMatrix`), hypotheses, scales and the list of steps only
    grow; a round rolled back is cut from them by the committed state. Round 0 (``beta = 0``)
    is recorded but not committed (no model yet); round 1 starts from it.
    """

    columns = BLASSO_LOOP_COLUMNS
    progress = ("loss", "lam")
    start_row = True

    def __init__(self, lmo, loss, y, eps, sample_weight, offset, xi):
        self.lmo, self.loss, self.y, self.s = lmo, loss, y, sample_weight
        self.eps, self.offset, self.xi = eps, offset, xi
        self.atoms = GrowingMarginMatrix(y.shape[0])  # directions a_j, sign-normalised (see _canonical)
        self.hypotheses: list = []
        self.scales: list = []
        self.steps: list[tuple[int, int]] = []  # (j, +1 or -1) per step: counts[j] += sign

    def _forward(self, F, L, tol):
        """The forward candidate at F: (h, a, scale, sign, L_new, its lambda), None at a stationary point."""
        loss, y, s, eps = self.loss, self.y, self.s, self.eps
        g = -loss.gradient(F, y, s)
        if not np.any(g):
            return None
        h, a, scale = self.lmo(g)
        a, scale = _canonical(np.asarray(a, dtype=np.float64), scale)
        if not np.any(a):
            return None
        L_pm = _losses(loss, y, s, F, np.column_stack([eps * a, -eps * a]))
        sign = 1 if L_pm[0] <= L_pm[1] else -1
        L_new = float(min(L_pm))
        return h, a, scale, sign, L_new, (L - L_new - tol) / eps

    def _row(self, state, direction):
        return {"loss": state.L, "l1_norm": self.eps * np.abs(state.counts).sum(), "lam": state.lam,
                "direction": direction, "n_active": int(np.count_nonzero(state.counts))}

    def step(self, state, t):
        if state is None:  # step 1 of the module doc: lambda_0 from the first forward step, without xi
            F = np.full(self.y.shape[0], float(self.offset))
            L = self.loss.value(F, self.y, self.s)
            candidate = self._forward(F, L, 0.0)
            lam = 0.0 if candidate is None else candidate[5]
            first = _BLassoState(0, np.zeros(0, dtype=np.int64), F, L, lam, candidate)
            return RoundOutcome(self._row(first, _INIT), first, commit=False)
        n = state.counts.shape[0]  # drop what a rolled-back round added
        self.atoms.truncate(n)
        del self.hypotheses[n:], self.scales[n:], self.steps[state.t:]
        eps, counts, F, L, lam = self.eps, state.counts, state.F, state.L, state.lam
        active = np.flatnonzero(counts)
        if active.size:  # step 2: backward
            back = -np.sign(counts[active])
            L_back = _losses(self.loss, self.y, self.s, F, self.atoms.columns(active) * (eps * back))
            k = int(np.argmin(L_back))
            # T drops by eps, so Gamma changes by L_back - L - lambda eps.
            if L_back[k] - L - lam * eps < -self.xi:
                j, sign = int(active[k]), int(back[k])
                counts = counts.copy()  # counts and F become new arrays: the committed state holds the old ones
                counts[j] += sign
                F = F + (eps * sign) * self.atoms.column(j)
                return self._take(state.t + 1, counts, F, float(L_back[k]), lam, j, sign, _BACKWARD)
        # step 3: forward (round 1 takes the candidate that gave lambda_0)
        candidate = state.candidate if state.t == 0 else self._forward(F, L, self.xi)
        if candidate is None or candidate[5] <= 0.0:  # step 4: the path ends before this step
            return RoundOutcome(None, stop=Status.CONVERGED, reason=PATH_END)
        h, a, scale, sign, L, new_lam = candidate
        j, is_new = self.atoms.add(a)
        if is_new:
            self.hypotheses.append(h)
            self.scales.append(scale)
            counts = np.append(counts, 0)
        else:
            counts = counts.copy()
        counts[j] += sign
        F = F + (eps * sign) * a
        return self._take(state.t + 1, counts, F, L, min(lam, new_lam), j, sign, _FORWARD)

    def _take(self, t, counts, F, L, lam, j, sign, direction):
        """The outcome of step ``t``: ``sign`` on coefficient ``j``."""
        self.steps.append((j, sign))
        new = _BLassoState(t, counts, F, L, lam)
        weights, _ = self._weights(counts)
        return RoundOutcome(self._row(new, direction), new, path=(weights, (1.0, [j])))

    def _weights(self, counts):
        scales = np.asarray(self.scales[: counts.shape[0]], dtype=np.float64)
        return float(self.eps) * counts * scales, scales

    def ensemble(self, state):
        weights, _ = self._weights(state.counts)
        return self.hypotheses[: state.counts.shape[0]], weights, float(self.offset)

    def result(self, state, status, rounds):
        n = state.counts.shape[0]
        weights, scales = self._weights(state.counts)
        return FitResult(
            hypotheses=self.hypotheses[:n],
            weights=weights,
            status=status,
            n_iter=rounds.n_iter,
            history=rounds.history,
            weights_path=rounds.weights_path,
            offset=float(self.offset),
            final={"scales": scales, "counts": state.counts, "eps": float(self.eps), "F": state.F,
                   "loss": float(state.L), "lam": float(state.lam), "steps": self.steps[: state.t]},
        )


def blasso(lmo, loss, y, eps, *, sample_weight=None, offset=0.0, xi=0.0, max_iter=1000, max_time=None,
           callbacks=(), verbose=0, name="BLasso") -> FitResult:
    """Run BLasso (module doc) for at most ``max_iter`` steps of size ``eps``.

    ``lmo(g) -> (h, a, scale)`` is a FWBoost oracle (:func:`marginboost.functional.fwboost.classifier_oracle` or
    :func:`marginboost.functional.fwboost.regression_oracle`, or any function with that contract): ``a = scale *
    h(X)`` in ``[-1, 1]^m`` with ``<g, a>`` large for ``g = -grad L``. The loop
    (:class:`BLassoLoop`) is driven by :func:`~marginboost.core.rounds.run_rounds`: ``max_time``
    stops it (status ``'max_time'``) after the first step past that many seconds;
    ``KeyboardInterrupt`` returns the path of the steps completed, at least one (status
    ``'interrupted'``, :mod:`marginboost.core.interrupts`); ``callbacks``, ``verbose``, ``name`` as there.

    Returns a :class:`~marginboost.core.rounds.FitResult`: ``F(x) = offset + sum_j weights[j]
    hypotheses[j](x)`` with ``weights = eps * counts * scales``, status ``'converged'`` with reason ``'path_end'`` (the path
    ended), ``'max_iter'``, ``'max_time'`` or ``'interrupted'``; ``weights_path`` logs the weights
    after every step; ``final`` holds ``scales`` (``h_j(X) * scales[j] = a_j``, the normalised
    direction), ``counts`` (integer steps per coefficient), ``eps``, ``F`` (on the sample),
    ``loss``, ``lam`` and ``steps`` (``(j, +1 or -1)`` per step, :func:`staged_blasso`).
    """
    y = np.asarray(y, dtype=np.float64)
    if not eps > 0:
        raise ValueError(f"eps must be > 0 (the step size), got eps={eps!r}")
    if not xi >= 0:
        raise ValueError(f"xi must be >= 0 (the tolerance), got xi={xi!r}")
    loss = resolve_loss(loss)  # a Loss, whatever the caller passed (a name, a protocol object)
    check_targets(loss, y)
    loop = BLassoLoop(lmo, loss, y, eps, sample_weight, offset, xi)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks,
                      verbose=verbose, name=name)


def _canonical(a: np.ndarray, scale: float):
    """``(a, scale)`` with the sign flipped so that the first nonzero entry of ``a`` is positive:
    ``a`` and ``-a`` are one coefficient, moved up or down."""
    nz = np.flatnonzero(a)
    if nz.size and a[nz[0]] < 0:
        return -a, -scale
    return a, scale
