"""The one boosting loop: Algorithm 1 of paper 000 (Mitsuboshi, Hatano, Takimoto).

Boosting is Frank-Wolfe on the soft-margin problem: the weak learner is the linear
minimisation oracle, the booster chooses the step. One loop serves every algorithm::

    d_0 = uniform;  h_1 = WL(d_0);  w_1 = e_1
    for t = 1, 2, ...:
        d_t     = distribution of the objective at q_t = U w_t
        h_{t+1} = WL(d_t)
        eps_t   = min_{tau <= t} d_tau @ u_{tau+1}  -  objective(q_t)     (the duality gap)
        stop if eps_t <= stop_tol(eps)
        w_{t+1} = the better (by the objective) of  F(w_t, e_{t+1})  and  B(U_{t+1})

Named algorithms are assemblies (see :mod:`.algorithms`):

* LPBoost:     objective = soft margin, no F, B = LP rule; ``d_t`` is the LP's dual solution
               and it stops at gap <= eps (000 eq. 13; Demiriz et al. 2002).
* ERLPBoost:   objective = smoothed soft margin, B = entropy rule (000 eq. 14).
* C-ERLPBoost: objective = smoothed soft margin, F = short step, no B.
* MLPBoost:    objective = smoothed soft margin, F = any FW rule, B = LP rule.

With the smoothed objective and ``eta = 2 ln(m/nu)/eps`` the stop at ``eps_t <= eps/2``
guarantees ``soft margin >= g - eps`` where ``g`` is the smallest edge seen (000 Lemma 2);
with an exact weak learner ``g`` is at least the optimal soft margin over all of ``H``.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np

from .fw_rules import FWContext
from .interrupts import keep_interrupted
from .objectives import SmoothedSoftMargin, SoftMargin
from .secondary import Candidate
from .threads import single_blas_thread

# One row per round: a weak-learner call and the update that follows it. The row describes
# the weights after that update (in the stopping round: unchanged, no update).
HISTORY_COLUMNS = (
    "round",  # weak-learner calls so far
    "n_hypotheses",  # distinct hypotheses the weights range over
    "soft_margin",  # rho(U w): mean of the nu smallest margins
    "objective",  # the booster's objective at w (smoothed soft margin; LPBoost: the soft margin)
    "edge",  # edge of the hypothesis returned this round, under the distribution it was asked with
    "best_edge",  # min over rounds of those edges
    "gap",  # best_edge - objective: at most the optimum's distance; the stop tests it
    "update",  # which update produced the weights: see UPDATE_NAMES
    "time",  # seconds since fit started, at the end of this round
    "weak_learner_time",  # seconds in the weak learner this round
    "solver_time",  # seconds in the update (FW, secondary, projections) this round
)
UPDATE_INIT, UPDATE_FW, UPDATE_SECONDARY, UPDATE_NONE = 0, 1, 2, 3
UPDATE_NAMES = {UPDATE_INIT: "init", UPDATE_FW: "fw", UPDATE_SECONDARY: "secondary", UPDATE_NONE: "none (stopped)"}


@dataclass
class BoostResult:
    """Everything a fit produces; the estimators copy it into their fitted attributes."""

    hypotheses: list
    weights: np.ndarray
    margins: np.ndarray
    soft_margin: float
    objective: float
    gap: float
    n_iter: int
    status: str  # 'converged' | 'max_iter' | 'max_time' | 'interrupted'
    history: dict = field(default_factory=dict)
    weights_path: WeightsPath = field(default_factory=lambda: WeightsPath())  # w after every round


class WeightsPath:
    """The weights after every round, logged as updates ``w_new = scale * w_old; w_new[idx] = vals``.

    A FW or pairwise step touches one or two entries, so it costs O(1) memory, where a copy
    of ``w`` per round would cost O(T^2) over T rounds (GBs for long C-ERLPBoost runs).
    Replaying the logged operations reproduces every ``w`` bit for bit.
    """

    def __init__(self):
        self._steps: list[tuple[int, float, np.ndarray, np.ndarray]] = []

    def append(self, w: np.ndarray, step) -> None:
        """Log the weights ``w`` of a round; ``step = (scale, touched)`` or None (store its nonzeros)."""
        # Without a step, scale 0 and every nonzero entry: the weights are stored outright.
        scale, touched = (0.0, np.flatnonzero(w)) if step is None else step
        idx = np.asarray(touched, dtype=np.int64)
        self._steps.append((w.shape[0], scale, idx, w[idx].copy()))

    def __len__(self) -> int:
        return len(self._steps)

    def __iter__(self):
        w = np.zeros(0)
        for n, scale, idx, vals in self._steps:
            prev = np.zeros(n)
            prev[: w.shape[0]] = w
            w = scale * prev
            w[idx] = vals
            yield w


class MarginMatrix:
    """Columns u_j = y * h_j(X) of the distinct hypotheses; ``U`` is an (m, t) Fortran-order view.

    The columns are the rows of a C-order (capacity, m) buffer that grows by half again when
    full, with ``ndarray.resize``: a realloc, which the C library does for large buffers by
    remapping pages, without a second copy of U (doubling into a new array peaked at 1.5x the
    grown U, 3.8x the size of X at m = 10^6, p = 50, 100 stumps). No view of ``U`` may be kept
    across calls to :meth:`add`; the loop takes a fresh one every round.
    """

    def __init__(self, m: int):
        self._data = np.empty((16, m))
        self.n = 0
        self._index: dict[bytes, int] = {}

    @property
    def U(self) -> np.ndarray:
        """The (m, t) margin matrix, a view valid until the next :meth:`add`."""
        return self._data[: self.n].T

    def add(self, u: np.ndarray) -> tuple[int, bool]:
        """Return the column of ``u`` and whether it is new (identical columns are merged)."""
        # A 16-byte digest as key: the raw bytes would double the memory of U.
        key = hashlib.blake2b(u.tobytes(), digest_size=16).digest()
        j = self._index.get(key)
        if j is not None and np.array_equal(self._data[j], u):
            return j, False
        if self.n == self._data.shape[0]:
            self._data.resize((self.n + self.n // 2, self._data.shape[1]), refcheck=False)
        self._data[self.n] = u
        self._index[key] = self.n
        self.n += 1
        return self.n - 1, True


@single_blas_thread
def boost(
    oracle,
    y: np.ndarray,
    objective,
    eps: float,
    fw_rule=None,
    secondary=None,
    smoothed: SmoothedSoftMargin | None = None,
    max_iter: int = 1000,
    max_time: float | None = None,
) -> BoostResult:
    """Run Algorithm 1 of 000 with the given parts.

    Parameters
    ----------
    oracle : callable ``d -> (hypothesis, predictions on the training sample)``
    y : labels in {-1, +1}, float64
    objective : :class:`~.objectives.SoftMargin` (LPBoost) or
        :class:`~.objectives.SmoothedSoftMargin`; decides ``d_t``, the winner and the stop.
    eps : target accuracy; the loop stops when the gap is at most ``objective.stop_tol(eps)``.
    fw_rule : a rule of :mod:`.fw_rules` or None (LPBoost, pure secondary).
    secondary : a started rule of :mod:`.secondary` or None (plain FW).
    smoothed : the smoothed objective the FW rules step on (defaults to ``objective``).
    max_iter : maximum number of weak-learner calls.
    max_time : stop (status ``'max_time'``) once this many seconds have passed.

    ``KeyboardInterrupt``: the result of the rounds completed, status ``'interrupted'``
    (or it propagates: :mod:`.interrupts`).
    """
    if fw_rule is None and secondary is None:
        raise ValueError("boost needs a FW rule, a secondary rule, or both")
    smoothed = smoothed if smoothed is not None else objective
    weights = objective.weights
    reported = SoftMargin(objective.nu, weights)
    m = y.shape[0]
    columns = MarginMatrix(m)
    hypotheses: list = []
    history = {name: [] for name in HISTORY_COLUMNS}
    weights_path = WeightsPath()

    start = time.perf_counter()
    d = np.full(m, 1.0 / m) if weights is None else weights / m
    w = q = None
    value = -np.inf
    best_edge = np.inf
    status = "max_iter"
    tol = objective.stop_tol(eps)
    kept = None  # (call, w, q, value, best_edge) after the last completed round (see .interrupts)
    try:
        for call in range(1, max_iter + 1):
            t0 = time.perf_counter()
            h, pred = oracle(d)
            t1 = time.perf_counter()
            u = y * np.asarray(pred, dtype=np.float64)
            edge = float(d @ u)
            best_edge = min(best_edge, edge)
            j_new, is_new = columns.add(u)
            if is_new:
                hypotheses.append(h)
            if w is not None and best_edge - value <= tol:  # eps_t of Algorithm 1 line 7
                status = "converged"
                update, step = UPDATE_NONE, (1.0, [])
            else:
                update, w, q, value, d, step = _update(columns.U, w, q, d, j_new, is_new, call, fw_rule,
                                                       secondary, objective, smoothed)
            t2 = time.perf_counter()
            _record(history, call, w.shape[0], reported.value(q), value, edge, best_edge, best_edge - value,
                    update, t2 - start, t1 - t0, t2 - t1)
            kept = (call, w, q, value, best_edge)
            weights_path.append(w, step)
            if status == "converged":
                break
            if max_time is not None and t2 - start >= max_time:
                status = "max_time"
                break
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        call, w, q, value, best_edge = kept
        status = "interrupted"
        history = {k: v[:call] for k, v in history.items()}
        if len(weights_path) < call:  # cut between the commit and the log of its weights
            weights_path.append(w, None)

    n_cols = w.shape[0]
    return BoostResult(
        hypotheses=hypotheses[:n_cols],
        weights=w,
        margins=q,
        soft_margin=reported.value(q),
        objective=value,
        gap=best_edge - value,
        n_iter=call,
        status=status,
        history={k: np.asarray(v) for k, v in history.items()},
        weights_path=weights_path,
    )


def _update(U, w, q, d, j_new, is_new, call, fw_rule, secondary, objective, smoothed):
    """Algorithm 1 lines 11-13 (and line 3 in the first round): the next weights and their state."""
    if w is None:  # line 3: w_1 = e_{j_1}; LPBoost instead asks its LP (it needs the LP's d)
        candidates = [(UPDATE_INIT, Candidate(np.ones(1), U[:, 0].copy()))] if fw_rule is not None else []
    else:
        if is_new:
            w = np.append(w, 0.0)
        candidates = []
        if fw_rule is not None:
            ctx = FWContext(U, w, q, d, j_new, call - 1, smoothed)
            out = fw_rule(ctx)
            candidates.append((UPDATE_FW, Candidate(out[0], out[1], step=out[2] if len(out) > 2 else None)))
    if secondary is not None:
        w_fw = candidates[0][1].w if candidates else None
        candidates.append((UPDATE_SECONDARY, secondary(U, w_fw)))
    update, best, value, d = _pick(candidates, objective)
    if call == 1:
        update = UPDATE_INIT
    return update, best.w, best.q, value, d, best.step


def _pick(candidates, objective):
    """Algorithm 1 line 13: keep the candidate with the best objective; ties go to the secondary."""
    best = None
    for source, cand in candidates:
        if cand.evaluated is not None and cand.evaluated[0] is objective:
            d, value = cand.evaluated[1:]
        elif objective.smooth:
            d = objective.distribution(cand.q)
            value = objective.value_at(cand.q, d)
        else:
            d = cand.d if cand.d is not None else objective.distribution(cand.q)
            value = objective.value(cand.q)
        if best is None or value >= best[2]:
            best = (source, cand, value, d)
    return best


def _record(history, *row):
    for name, value in zip(HISTORY_COLUMNS, row):
        history[name].append(value)
