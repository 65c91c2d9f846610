"""
Boosting with the average-margin oracle
=======================================

Boosting with the average-margin oracle over the NZDD of all stumps (paper 003), against
LPBoost over the same stumps.
"""
from sklearn.datasets import load_breast_cancer

from marginboost import AverageMarginBoostClassifier, LPBoostClassifier

X, y = load_breast_cancer(return_X_y=True)
nu, eps = 0.1, 0.1
clf = AverageMarginBoostClassifier(nu=nu, eps=eps, step="line_search", stop="certified").fit(X, y)
print(f"NZDD of all stumps: {clf.nzdd_size_} nodes, {clf.nzdd_n_edges_} edges, "
      f"{clf.n_hypotheses_} distinct stumps (paths)")
print(f"{clf.n_iter_} Frank-Wolfe rounds, status {clf.status_}")
print(f"soft margin of the stored vote: {clf.margin_:.4f} ({len(clf.hypotheses_)} stumps kept, "
      f"dropped mass {clf.dropped_mass_:.2g})")

# LPBoost over the same stumps reaches the optimum within eps from the other side
lp = LPBoostClassifier(nu=nu, eps=0.001, weak_learner="stump").fit(X, y)
print(f"LPBoost's soft margin (eps = 0.001): {lp.margin_:.4f}")
assert clf.full_margin_ >= lp.margin_ - eps - 0.001
