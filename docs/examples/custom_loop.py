"""
A boosting loop of your own
===========================

A boosting loop of our own, driven by the package's round driver: AdaBoost in 30 lines.

A loop is a :class:`marginboost.core.rounds.RoundLoop` with a ``step`` (one round from the
state the round before returned) and a ``result`` (the fit of a state). ``run_rounds`` does
the rest: the iteration cap, ``max_time``, Ctrl-C (back to the last committed state), one BLAS
thread, the history (``round`` first, ``time`` last), callbacks and progress lines. A state is
never changed in place once a step returned it: that is what makes the rollback and
``continue_rounds`` (a warm start) work.
"""
import math

import numpy as np
from sklearn.datasets import load_breast_cancer

from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, continue_rounds, run_rounds
from marginboost.weak_learners import DecisionStump


class AdaBoostLoop(RoundLoop):
    """w_{t+1,i} ~ w_{t,i} exp(-alpha_t u_i),  alpha_t = 1/2 ln((1 + gamma_t)/(1 - gamma_t))."""

    columns = ("edge", "alpha", "train_error")
    progress = ("edge", "train_error")

    def __init__(self, oracle, y):
        self.oracle, self.y, self.hypotheses = oracle, y, []

    def step(self, state, round_):
        m = self.y.shape[0]
        d, F, alphas = state if state is not None else (np.full(m, 1.0 / m), np.zeros(m), ())
        del self.hypotheses[len(alphas):]  # forget a round that was rolled back
        h, pred = self.oracle(d)
        u = self.y * pred
        edge = float(d @ u)
        if abs(edge) >= 1.0:  # a perfect hypothesis: nothing left to reweight
            return RoundOutcome(None, stop=Status.PERFECT)
        alpha = 0.5 * math.log((1.0 + edge) / (1.0 - edge))
        self.hypotheses.append(h)
        F = F + alpha * u  # new arrays: the committed state keeps the old ones
        d = np.exp(F.min() - F)
        d /= d.sum()
        row = {"edge": edge, "alpha": alpha, "train_error": float(np.mean(F <= 0))}
        return RoundOutcome(row, (d, F, alphas + (alpha,)))

    def ensemble(self, state):
        return self.hypotheses[: len(state[2])], np.asarray(state[2]), 0.0

    def result(self, state, status, rounds):
        hypotheses, weights, _ = self.ensemble(state)
        return FitResult(hypotheses, weights, status, rounds.n_iter, rounds.history, final={"margins": state[1]})


X, y = load_breast_cancer(return_X_y=True)
y_pm = np.where(y == 1, 1.0, -1.0)
loop = AdaBoostLoop(DecisionStump().prepare(X, y_pm), y_pm)
result = run_rounds(loop, max_iter=20, verbose=10, name="my AdaBoost")
print(result.status, result.n_iter, "rounds; training error", result.history["train_error"][-1])
more = continue_rounds(result, max_iter=50)  # on to round 50: 30 more rounds of the same loop
print(more.n_iter, "rounds; training error", more.history["train_error"][-1])
