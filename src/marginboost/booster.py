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

import time
from dataclasses import dataclass, field

import numpy as np

from .fw_rules import FWContext
from .objectives import SmoothedSoftMargin, SoftMargin
from .secondary import Candidate

HISTORY_COLUMNS = (
    "round",  # weak-learner calls so far (t + 1 in the paper's numbering)
    "n_hypotheses",  # distinct hypotheses found so far
    "soft_margin",  # rho(U w_t): mean of the nu smallest margins
    "objective",  # the booster's objective at w_t (smoothed soft margin, or soft margin for LPBoost)
    "edge",  # edge of the hypothesis just returned, d_t @ u_{t+1}
    "best_edge",  # min over rounds of those edges
    "gap",  # eps_t = best_edge - objective
    "update",  # 0: initial, 1: FW won, 2: secondary won (the update that produced w_t)
    "time",  # seconds since fit started, cumulative
    "weak_learner_time",  # seconds in the weak learner this round
    "solver_time",  # seconds in the updates (FW, secondary, projection) this round
)
UPDATE_NAMES = {0: "init", 1: "fw", 2: "secondary"}


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
    status: str  # 'converged' | 'max_iter' | 'max_time'
    history: dict = field(default_factory=dict)
    weights_path: list = field(default_factory=list)  # w_t after every round, for staged predictions


class _MarginMatrix:
    """Columns u_j = y * h_j(X) of the distinct hypotheses, grown by doubling (Fortran order)."""

    def __init__(self, m: int):
        self._data = np.empty((m, 16), order="F")
        self.n = 0
        self._index: dict[bytes, int] = {}

    @property
    def U(self) -> np.ndarray:
        return self._data[:, : self.n]

    def add(self, u: np.ndarray) -> tuple[int, bool]:
        """Return the column of ``u`` and whether it is new (identical columns are merged)."""
        key = u.tobytes()
        j = self._index.get(key)
        if j is not None:
            return j, False
        if self.n == self._data.shape[1]:
            grown = np.empty((self._data.shape[0], 2 * self.n), order="F")
            grown[:, : self.n] = self._data
            self._data = grown
        self._data[:, self.n] = u
        self._index[key] = self.n
        self.n += 1
        return self.n - 1, True


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
    """
    if fw_rule is None and secondary is None:
        raise ValueError("boost needs a FW rule, a secondary rule, or both")
    smoothed = smoothed if smoothed is not None else objective
    weights = objective.weights
    reported = SoftMargin(objective.nu, weights)
    m = y.shape[0]
    columns = _MarginMatrix(m)
    hypotheses: list = []
    history = {name: [] for name in HISTORY_COLUMNS}
    weights_path: list = []

    start = time.perf_counter()
    d = np.full(m, 1.0 / m) if weights is None else weights / m
    w = q = None
    value = -np.inf
    best_edge = np.inf
    update = 0
    status = "max_iter"
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
        U = columns.U
        solver_time = 0.0
        if w is not None:
            gap = best_edge - value
            _record(history, call, columns.n, reported.value(q), value, edge, best_edge, gap, update,
                    t1 - start, t1 - t0, 0.0)
            weights_path.append(w.copy())
            if gap <= objective.stop_tol(eps):
                status = "converged"
                break
            if call == max_iter or (max_time is not None and t1 - start >= max_time):
                status = "max_iter" if call == max_iter else "max_time"
                break
        if is_new and w is not None:
            w = np.append(w, 0.0)
        # Candidates for w_{t+1}: FW (w_1 = e_{j_1} in the first round) and the secondary rule.
        candidates: list[tuple[int, Candidate]] = []
        if fw_rule is not None:
            if w is None:
                candidates.append((1, Candidate(np.ones(1), U[:, 0].copy())))
            else:
                ctx = FWContext(U, w, q, d, j_new, call - 1, smoothed)
                candidates.append((1, Candidate(*fw_rule(ctx))))
        if secondary is not None:
            candidates.append((2, secondary(U, candidates[0][1].w if candidates else None)))
        update, best, value, d = _pick(candidates, objective)
        w, q = best.w, best.q
        if call == 1:
            update = 0
        solver_time = time.perf_counter() - t1
        if history["solver_time"]:
            history["solver_time"][-1] = solver_time
    else:
        call = max_iter

    # The first round has no gap yet: a run of max_iter=1 reports the state after it.
    if not history["round"]:
        _record(history, 1, columns.n, reported.value(q), value, edge, best_edge, best_edge - value,
                update, time.perf_counter() - start, t1 - t0, solver_time)
        weights_path.append(w.copy())
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


def _pick(candidates, objective):
    """Algorithm 1 line 13: keep the candidate with the best objective; ties go to the secondary."""
    best = None
    for source, cand in candidates:
        if objective.smooth:
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
