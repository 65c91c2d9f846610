"""
Secondary rules of your own
===========================

Secondary rules of our own: a plain function, and a rule class with state.

Each round the scheme of paper 000 keeps the better (by the smoothed soft margin) of the
Frank-Wolfe candidate and the secondary one, so any rule keeps the O(ln(m/nu)/eps^2) bound
(Theorem 3): a rule can only help.
"""
import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from sklearn.datasets import load_breast_cancer

from marginboost import MLPBoostClassifier
from marginboost.soft_margin.secondary_base import Candidate, SecondaryRule


def soft_margin_lp(nu):
    """A plain function ``fn(U, w) -> w_new`` (here made by a closure that fixes ``nu``).

    ``U`` is the (m, t) margin matrix of the hypotheses so far, ``w`` the FW candidate (None
    without a FW rule). This one is LPBoost's rule written with SciPy: the weights of largest
    soft margin ``max rho - sum(xi)/nu`` s.t. ``(U w)_i >= rho - xi_i``, ``xi >= 0``, ``w`` on
    the simplex (the built-in ``'lp'`` solves the same LP warm-started).
    """

    def rule(U, w):
        m, t = U.shape
        c = np.concatenate([np.zeros(t), [-1.0], np.full(m, 1.0 / nu)])  # over (w, rho, xi)
        A_ub = sparse.hstack([-U, np.ones((m, 1)), -sparse.identity(m)])  # rho - xi_i - (U w)_i <= 0
        A_eq = np.concatenate([np.ones(t), [0.0], np.zeros(m)])[None, :]
        bounds = [(0, None)] * t + [(None, None)] + [(0, None)] * m
        res = linprog(c, A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq, b_eq=[1.0], bounds=bounds,
                      method="highs")
        w_new = np.clip(res.x[:t], 0.0, None)
        return w_new / w_new.sum()

    return rule


class ExponentiatedGradient(SecondaryRule):
    """A rule class: ``start`` once per fit, then called once a round; the base
    :class:`~marginboost.soft_margin.secondary_base.SecondaryRule` supplies the other hooks
    (``forget``, ``skip_round``: never, ``observe``).

    A few exponentiated-gradient (mirror ascent) steps on ERLPBoost's problem
    ``max_w rho~(U w)`` over the simplex, from the FW candidate; the gradient of
    ``rho~(U w)`` in ``w`` is ``U^T d(U w)``.
    """

    name = "exponentiated_gradient"
    # Start from the FW candidate, whose margins and distribution the scheme has computed:
    # they come as fw_start = (U @ w_fw, d), one projection (a pass over the m examples) saved.
    warm_from_fw = True

    def __init__(self, n_steps=10, step=1.0):
        self.n_steps, self.step = n_steps, step

    def start(self, m, nu, objective, eps):
        """Called before the first round with the smoothed objective of this fit."""
        self.objective = objective

    def __call__(self, U, w_fw, fw_start=None):
        """Return a Candidate: weights over the t columns of U, and their margins."""
        t = U.shape[1]
        w = np.full(t, 1.0 / t) if w_fw is None else w_fw.copy()
        if fw_start is not None:
            q, d = fw_start
        else:  # the first round, or no FW rule
            q = U @ w
            d = self.objective.distribution(q)
        best_w, best_value = w, self.objective.value_at(q, d)
        for _ in range(self.n_steps):
            logw = np.log(np.maximum(w, 1e-300)) + self.step * (U.T @ d)
            w = np.exp(logw - logw.max())
            w /= w.sum()
            q = U @ w
            d = self.objective.distribution(q)
            value = self.objective.value_at(q, d)
            if value > best_value:
                best_w, best_value = w, value
        return Candidate(best_w, U @ best_w)


X, y = load_breast_cancer(return_X_y=True)
print(f"{'secondary rule':24} {'rounds':>6} {'status':>10} {'soft margin':>11} {'nonzero w':>9}")
for secondary in ("none", soft_margin_lp(nu=0.1 * len(y)), ExponentiatedGradient(), "lp", "newton"):
    clf = MLPBoostClassifier(nu=0.1, eps=0.05, weak_learner="stump", secondary=secondary,
                             max_iter=10000).fit(X, y)
    name = secondary if isinstance(secondary, str) else getattr(secondary, "name", "soft_margin_lp")
    print(f"{name:24} {clf.n_iter_:6d} {clf.status_:>10} {clf.margin_:11.4f} {(clf.weights_ > 0).sum():9d}")
