"""Peers run beside the soft-margin boosters (paper 000, section 5 compares only its own).

* The naive LPBoost a user would write (:class:`NaiveLPBoost`): each round it re-solves the
  restricted master LP from scratch with ``scipy.optimize.linprog(method='highs')``, with the
  same weak learner as marginboost (``EdgeTree(2)``) and the same stopping rule as
  :class:`~marginboost.LPBoostClassifier`. It shares no code with marginboost's loop, LP or
  soft-margin routines, so agreement of its soft margin with LPBoostClassifier's is an
  independent check, and its time shows what the warm-started loop buys.
* scikit-learn's AdaBoost with depth-2 trees and gradient boosting with depth-2 trees; XGBoost and
  LightGBM (depth 2) only when importable. These minimise other losses (000 does not compare
  with them); they are here for test error and time. Each is fitted once with its library's
  defaults otherwise (no tuning), seeded, single-threaded where the library allows.
"""
from __future__ import annotations

import importlib.util
import math
import time

import numpy as np
from scipy.optimize import linprog

from marginboost.weak_learners import EdgeTree


def naive_soft_margin(q: np.ndarray, nu: float) -> float:
    """Mean of the ``nu`` smallest entries of ``q``, the last one fractional (by a full sort)."""
    q = np.sort(np.asarray(q, dtype=np.float64))
    k = min(int(math.floor(nu)), q.shape[0])
    frac = nu - k
    total = q[:k].sum() + (frac * q[k] if k < q.shape[0] and frac > 0 else 0.0)
    return float(total / nu)


class NaiveLPBoost:
    """LPBoost re-solving its restricted master LP from scratch each round (scipy linprog/HiGHS).

    Each round ``t`` solves, over the hypotheses ``h_1..h_t`` found so far (margins ``u_k``)::

        min_{d, gamma} gamma   s.t.  u_k @ d <= gamma (k <= t),  sum d = 1,  0 <= d_i <= 1/nu

    hands the optimal ``d`` to the weak learner, and stops when the smallest edge seen is at
    most ``gamma + eps`` (the rule of :class:`~marginboost.LPBoostClassifier`). The weights are
    minus the duals of the hypothesis rows. ``nu`` is a count in [1, m].

    Attributes after :meth:`fit`: ``hypotheses_``, ``weights_``, ``margin_`` (soft margin),
    ``lp_value_``, ``best_edge_``, ``n_iter_`` (weak-learner calls), ``status_``
    ('converged', 'max_iter', 'max_time'), ``history_`` (per round: time, soft_margin).
    """

    def __init__(self, nu: float, eps: float = 0.01, weak_learner=None, max_iter: int = 10**6,
                 max_time: float | None = None):
        self.nu = nu
        self.eps = eps
        self.weak_learner = weak_learner
        self.max_iter = max_iter
        self.max_time = max_time

    def fit(self, X, y):
        """Run LPBoost on ``(X, y)``, ``y`` in {-1, +1}, re-solving the LP from scratch each round."""
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        m = y.shape[0]
        if not 1.0 <= self.nu <= m:
            raise ValueError(f"nu must be a count in [1, m] = [1, {m}], got {self.nu}")
        learner = self.weak_learner if self.weak_learner is not None else EdgeTree(max_depth=2)
        oracle = learner.prepare(X, y)
        c = np.zeros(m + 1)
        c[m] = 1.0  # minimise gamma
        A_eq = np.append(np.ones(m), 0.0)[None, :]
        bounds = [(0.0, 1.0 / self.nu)] * m + [(None, None)]
        rows, hypotheses = [], []
        history = {"time": [], "soft_margin": []}
        d = np.full(m, 1.0 / m)
        gamma, best_edge, w = -np.inf, np.inf, None
        status = "max_iter"
        start = time.perf_counter()
        for call in range(1, self.max_iter + 1):
            h, pred = oracle(d)
            u = y * np.asarray(pred, dtype=np.float64)
            best_edge = min(best_edge, float(d @ u))
            if w is not None and best_edge - gamma <= self.eps:
                status = "converged"
                history["time"].append(time.perf_counter() - start)
                history["soft_margin"].append(history["soft_margin"][-1])
                break
            rows.append(np.append(u, -1.0))
            hypotheses.append(h)
            # From scratch: a new model, no basis kept from the previous round.
            res = linprog(c, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=A_eq, b_eq=[1.0],
                          bounds=bounds, method="highs")
            if res.status != 0:
                raise RuntimeError(f"linprog (HiGHS) failed in round {call}: {res.message}")
            d = np.clip(res.x[:m], 0.0, None)
            d /= d.sum()
            gamma = float(res.x[m])
            # Duals of the <= rows are <= 0 in a minimisation; minus them is the weight vector.
            w = np.clip(-np.asarray(res.ineqlin.marginals), 0.0, None)
            w /= w.sum()
            margins = np.array(rows)[:, :m].T @ w
            now = time.perf_counter() - start
            history["time"].append(now)
            history["soft_margin"].append(naive_soft_margin(margins, self.nu))
            if self.max_time is not None and now >= self.max_time:
                status = "max_time"
                break
        self.hypotheses_ = hypotheses
        self.weights_ = w
        self.margin_ = history["soft_margin"][-1]
        self.lp_value_ = gamma
        self.best_edge_ = best_edge
        self.n_iter_ = call
        self.status_ = status
        self.history_ = {k: np.asarray(v) for k, v in history.items()}
        return self

    def decision_function(self, X) -> np.ndarray:
        """``sum_j w_j h_j(X)``, in [-1, 1]."""
        X = np.asarray(X, dtype=np.float64)
        score = np.zeros(X.shape[0])
        for wj, h in zip(self.weights_, self.hypotheses_):
            if wj > 0.0:
                score += wj * h.predict(X)
        return score

    def predict(self, X) -> np.ndarray:
        """+1 where the score is positive, else -1 (labels as given to fit: {-1, +1})."""
        return np.where(self.decision_function(X) > 0, 1.0, -1.0)


def _adaboost(seed):
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    return AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=2), random_state=seed)


def _gradient_boosting(seed):
    from sklearn.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(max_depth=2, random_state=seed)


def _xgboost(seed):
    from xgboost import XGBClassifier

    return XGBClassifier(max_depth=2, random_state=seed, n_jobs=1)


def _lightgbm(seed):
    from lightgbm import LGBMClassifier

    return LGBMClassifier(max_depth=2, num_leaves=4, random_state=seed, n_jobs=1, verbose=-1)


# key -> (label, factory(seed) -> estimator, module that must be importable)
SKLEARN_PEERS = {
    "adaboost": ("AdaBoost (depth-2 trees)", _adaboost, "sklearn"),
    "gradient_boosting": ("Gradient boosting (depth 2)", _gradient_boosting, "sklearn"),
    "xgboost": ("XGBoost (depth 2)", _xgboost, "xgboost"),
    "lightgbm": ("LightGBM (depth 2)", _lightgbm, "lightgbm"),
}
NAIVE_LPBOOST = "naive_lpboost"
PEER_LABELS = {NAIVE_LPBOOST: "naive LPBoost (linprog)", **{k: v[0] for k, v in SKLEARN_PEERS.items()}}


def peer_available(key: str) -> bool:
    """Whether the peer ``key`` can run here (the naive LPBoost always; the others if their package is installed)."""
    if key == NAIVE_LPBOOST:
        return True
    return key in SKLEARN_PEERS and importlib.util.find_spec(SKLEARN_PEERS[key][2]) is not None


def available_peers() -> tuple[str, ...]:
    """The peers that can run here: the naive LPBoost, sklearn's two, XGBoost/LightGBM if installed."""
    return tuple(k for k in PEER_LABELS if peer_available(k))


def make_sklearn_peer(key: str, seed: int):
    """A fresh, seeded estimator for a key of :data:`SKLEARN_PEERS`."""
    return SKLEARN_PEERS[key][1](seed)


def n_rounds(est) -> int | None:
    """Trees fitted by a peer (its 'rounds'), where the library says."""
    for attr in ("n_estimators_", "n_iter_"):
        if hasattr(est, attr):
            return int(getattr(est, attr))
    if hasattr(est, "estimators_"):
        return len(est.estimators_)
    if hasattr(est, "get_booster"):  # xgboost
        return int(est.get_booster().num_boosted_rounds())
    if hasattr(est, "booster_"):  # lightgbm
        return int(est.booster_.current_iteration())
    return None
