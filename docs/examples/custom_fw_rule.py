"""
A Frank-Wolfe step rule of your own
===================================

A Frank-Wolfe step rule of our own: the best of a few candidate steps.

A rule subclasses :class:`marginboost.soft_margin.fw_rules.FWRule`: a ``name`` and one hook,
``__call__(ctx) -> FWStep``, taking a :class:`marginboost.soft_margin.fw_rules.FWContext` and
returning the candidate weights ``w``, their margins ``q = U @ w`` and ``step = (scale, touched)``
(``w == scale * ctx.w`` except on the indices ``touched``; ``fw_rules.toward_new(ctx, lam)``
builds all three for a step of size ``lam`` toward the new hypothesis). This one tries the
classic step 2/(t+2), the short step of Algorithm 3 and a geometric grid, and keeps the step of
largest smoothed soft margin. It is never worse than the short step, so Theorem 3 of paper 000
still gives the O(ln(m/nu)/eps^2) bound.
"""
import numpy as np
from sklearn.datasets import load_breast_cancer

from marginboost import MLPBoostClassifier
from marginboost.soft_margin.fw_rules import FWContext, FWRule, FWStep, ShortStep, toward_new


class BestOfSteps(FWRule):
    """lambda = argmax of rho~(q + lambda (u - q)) over {2/(t+2), short step, 2^-k}."""

    name = "best_of_steps"

    def __init__(self, n_grid=12):
        self.n_grid = n_grid

    def __call__(self, ctx: FWContext) -> FWStep:
        delta = ctx.new_column() - ctx.q  # u - q, u the margins of the hypothesis just returned
        short = ShortStep()(ctx)  # reuse a built-in rule: an FWStep (w, q, step)
        candidates = [2.0 / (ctx.t + 2.0), *(2.0 ** -np.arange(self.n_grid))]
        values = [ctx.objective.value(ctx.q + lam * delta) for lam in candidates]
        best = int(np.argmax(values))
        if ctx.objective.value(short.q) >= values[best]:
            return short
        return toward_new(ctx, candidates[best], delta)


X, y = load_breast_cancer(return_X_y=True)
for fw in ("short_step", BestOfSteps()):
    clf = MLPBoostClassifier(nu=0.1, eps=0.05, weak_learner="stump", step=fw, secondary="none",
                             max_iter=10000).fit(X, y)
    name = fw if isinstance(fw, str) else fw.name
    print(f"{name:14} {clf.n_iter_:5d} rounds, status {clf.status_}, soft margin {clf.margin_:.4f}")
