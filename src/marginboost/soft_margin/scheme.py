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

Named algorithms are assemblies (see :mod:`marginboost.soft_margin.algorithms`):

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

import numpy as np

from marginboost.core.bit_matrix import GrowingMarginMatrix
from marginboost.core.example_vectors import as_float_vector
from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, history_columns, run_rounds
from marginboost.soft_margin.fw_rules import FWContext, fw_step
from marginboost.soft_margin.objectives import SmoothedSoftMargin
from marginboost.soft_margin.secondary_base import Candidate, as_secondary_rule

__all__ = ["HISTORY_COLUMNS", "SoftMarginLoop", "UPDATE_NAMES", "boost"]

# One row per round: a weak-learner call and the update that follows it. The row describes
# the weights after that update (in the stopping round: unchanged, no update). The driver
# adds 'round' (weak-learner calls so far) first and 'time' (seconds since the fit started) last.
LOOP_COLUMNS = (
    "n_hypotheses",  # distinct hypotheses the weights range over
    "soft_margin",  # rho(U w): mean of the nu smallest margins
    "objective",  # the booster's objective at w (smoothed soft margin; LPBoost: the soft margin)
    "edge",  # edge of the hypothesis returned this round, under the distribution it was asked with
    "best_edge",  # min over rounds of those edges
    "gap",  # best_edge - objective: at most the optimum's distance; the stop tests it
    "update",  # which update produced the weights: see UPDATE_NAMES
    "weak_learner_time",  # seconds in the weak learner this round
    "solver_time",  # seconds in the update (FW, secondary, projections) this round
)
HISTORY_COLUMNS = history_columns(LOOP_COLUMNS)
UPDATE_INIT, UPDATE_FW, UPDATE_SECONDARY, UPDATE_NONE = 0, 1, 2, 3
UPDATE_NAMES = {UPDATE_INIT: "init", UPDATE_FW: "fw", UPDATE_SECONDARY: "secondary", UPDATE_NONE: "none (stopped)"}


class SoftMarginLoop(RoundLoop):
    """Algorithm 1 of 000 as a :class:`~marginboost.core.rounds.RoundLoop`.

    The committed state is ``(w, q, value, d, best_edge)``: the weights, their margins
    ``q = U w``, the objective there, the distribution the next round asks the weak learner
    with, and the smallest edge so far. The hypotheses and the margin matrix only grow; a
    round rolled back (Ctrl-C) is cut from them by the length of ``w``.

    ``matrix``: the margin matrix to grow (default: a new
    :class:`~marginboost.core.bit_matrix.GrowingMarginMatrix`); a fit on a cluster passes one whose
    columns stay on the workers, with an objective over vectors kept there (:mod:`marginboost.dask`).
    """

    columns = LOOP_COLUMNS
    progress = ("soft_margin", "gap")

    def __init__(self, oracle, y, objective, eps, fw_rule=None, secondary=None, smoothed=None, matrix=None):
        if fw_rule is None and secondary is None:
            raise ValueError("boost needs a FW rule, a secondary rule, or both")
        self.oracle, self.y, self.objective = oracle, y, objective
        # boost() takes what resolve_secondary returns, started; a function or a rule object of
        # another class is adapted here too (a no-op for a SecondaryRule), so the loop calls hooks only
        self.fw_rule, self.secondary = fw_rule, None if secondary is None else as_secondary_rule(secondary)
        self.smoothed = smoothed if smoothed is not None else objective
        self.reported = objective.hard()
        self.tol = objective.stop_tol(eps)
        # U: bits while every hypothesis is +-1; a fit on a cluster gives its own (marginboost.dask)
        self.matrix = GrowingMarginMatrix(y.shape[0]) if matrix is None else matrix
        self.hypotheses: list = []

    def _start(self):
        return None, None, -np.inf, self.objective.start_distribution(self.y.shape[0]), np.inf

    def step(self, state, round_):
        w, q, value, d, best_edge = state if state is not None else self._start()
        if w is not None:  # drop what a rolled-back round added
            self.matrix.truncate(w.shape[0])
            del self.hypotheses[w.shape[0]:]
            if self.secondary is not None:
                self.secondary.forget(w.shape[0])
        t0 = time.perf_counter()
        h, pred = self.oracle(d)
        t1 = time.perf_counter()
        u = self.y * as_float_vector(pred)
        edge, (j_new, is_new) = self._edge_and_column(u, d, q)
        best_edge = min(best_edge, edge)
        if is_new:
            self.hypotheses.append(h)
        stop = None
        if w is not None and best_edge - value <= self.tol:  # eps_t of Algorithm 1 line 7
            stop = Status.CONVERGED
            update, step = UPDATE_NONE, (1.0, [])
        else:
            update, w, q, value, d, step = _update(self.matrix, w, q, value, d, j_new, is_new, round_, self.fw_rule,
                                                   self.secondary, self.objective, self.smoothed, u)
        t2 = time.perf_counter()
        row = {"n_hypotheses": w.shape[0], "soft_margin": self.reported.value(q), "objective": value,
               "edge": edge, "best_edge": best_edge, "gap": best_edge - value, "update": update,
               "weak_learner_time": t1 - t0, "solver_time": t2 - t1}
        return RoundOutcome(row, (w, q, value, d, best_edge), stop=stop, path=(w, step))

    def _edge_and_column(self, u, d, q):
        """The new hypothesis' edge ``d @ u`` and its column in the margin matrix ``(j, is_new)``
        (``q``: the round's margins, None in the first; a fit on a cluster takes the FW step's sums
        in the same pass)."""
        return float(d @ u), self.matrix.add(u)

    def ensemble(self, state):
        w = state[0]
        return self.hypotheses[: w.shape[0]], w, 0.0

    def result(self, state, status, rounds):
        w, q, value, _, best_edge = state
        return FitResult(
            hypotheses=self.hypotheses[: w.shape[0]],
            weights=w,
            status=status,
            n_iter=rounds.n_iter,
            history=rounds.history,
            weights_path=rounds.weights_path,
            final={"margins": q, "soft_margin": self.reported.value(q), "objective": value,
                   "gap": best_edge - value},
        )


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
    callbacks=(),
    verbose: int = 0,
    name: str = "soft-margin boost",
) -> FitResult:
    """Run Algorithm 1 of 000 with the given parts.

    Parameters
    ----------
    oracle : callable ``d -> (hypothesis, predictions on the training sample)``
    y : labels in {-1, +1}, float64
    objective : :class:`~marginboost.soft_margin.objectives.SoftMargin` (LPBoost) or
        :class:`~marginboost.soft_margin.objectives.SmoothedSoftMargin`; decides ``d_t``, the winner and the stop.
    eps : target accuracy; the loop stops when the gap is at most ``objective.stop_tol(eps)``.
    fw_rule : a :class:`~marginboost.soft_margin.fw_rules.FWRule` (or any callable ``ctx -> FWStep``)
        or None (LPBoost, pure secondary).
    secondary : a started :class:`~marginboost.soft_margin.secondary_base.SecondaryRule` (e.g. of
        :mod:`marginboost.soft_margin.secondary`) or None (plain FW); a plain function or a rule
        object of another class is adapted (:func:`~marginboost.soft_margin.secondary_base.as_secondary_rule`).
    smoothed : the smoothed objective the FW rules step on (defaults to ``objective``).
    max_iter : maximum number of weak-learner calls.
    max_time : stop (status ``'max_time'``) once this many seconds have passed.
    callbacks, verbose : as for :func:`~marginboost.core.rounds.run_rounds`.

    Returns a :class:`~marginboost.core.rounds.FitResult` whose ``final`` holds ``margins``
    (``U w``), ``soft_margin``, ``objective`` and ``gap``.
    ``KeyboardInterrupt``: the result of the rounds completed, status ``'interrupted'``
    (or it propagates: :mod:`marginboost.core.interrupts`).
    """
    loop = SoftMarginLoop(oracle, y, objective, eps, fw_rule, secondary, smoothed)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks, verbose=verbose,
                      name=name)


def _update(matrix, w, q, value, d, j_new, is_new, call, fw_rule, secondary, objective, smoothed, u):
    """Algorithm 1 lines 11-13 (and line 3 in the first round): the next weights and their state;
    ``u`` is the new hypothesis' column ``U[:, j_new]``.

    ``secondary`` is a :class:`~marginboost.soft_margin.secondary_base.SecondaryRule` (or None), called
    through its hooks only. Where the FW candidate's value is known before the update (a FW rule,
    the smoothed objective, after the first round) it is computed first (:func:`_pick` reuses it),
    the rule is asked ``skip_round(fw_gain)`` with the candidate's gain over ``value`` (an amortised
    rule, e.g. ``NewtonStepRule(amortise=True)``, may decline; the round then keeps the FW
    candidate), and after the pick it learns by ``observe(advantage)`` how much its candidate beat
    the FW one. The guarantee is unchanged: Theorem 3 of 000 holds for any rule B, none included."""
    if w is None:  # line 3: w_1 = e_{j_1}; LPBoost instead asks its LP (it needs the LP's d)
        candidates = [(UPDATE_INIT, Candidate(np.ones(1), u.copy()))] if fw_rule is not None else []
    else:
        if is_new:
            w = np.append(w, 0.0)
        candidates = []
        if fw_rule is not None:
            ctx = FWContext(matrix, w, q, d, j_new, call - 1, smoothed, u)
            out = fw_step(fw_rule, ctx)
            candidates.append((UPDATE_FW, Candidate(out.w, out.q, step=out.step)))
    fw_value = None
    if secondary is not None:
        fw = candidates[0][1] if candidates else None
        if fw is not None and w is not None and objective.smooth:
            d_fw = objective.distribution(fw.q)
            fw_value = objective.value_at(fw.q, d_fw)
            fw.evaluated = (objective, d_fw, fw_value)  # _pick reuses it
            if secondary.skip_round(fw_value - value):
                fw_value = None  # skipped: nothing to observe
                secondary = None
        if secondary is not None:
            margins = matrix if secondary.takes_margin_matrix else matrix.dense()
            w_fw = fw.w if fw is not None else None
            if secondary.warm_from_fw and fw is not None and fw.evaluated is not None:
                # the rule starts at the FW candidate, whose distribution is known: hand it over
                cand = secondary(margins, w_fw, fw_start=(fw.q, fw.evaluated[1]))
            else:
                cand = secondary(margins, w_fw)
            candidates.append((UPDATE_SECONDARY, cand))
    update, best, value, d = _pick(candidates, objective)
    if fw_value is not None:
        secondary.observe(value - fw_value if update == UPDATE_SECONDARY else 0.0)
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
