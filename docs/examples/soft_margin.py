"""The soft-margin family on one problem: same guarantee, different paths."""
import time

from sklearn.datasets import load_breast_cancer

from marginboost import CERLPBoostClassifier, ERLPBoostClassifier, LPBoostClassifier, MLPBoostClassifier

X, y = load_breast_cancer(return_X_y=True)
nu, eps = 0.1, 0.05  # nu as a fraction of m; stumps make the weak learner exact
common = dict(nu=nu, eps=eps, weak_learner="stump", max_iter=5000)
boosters = {
    "LPBoost": LPBoostClassifier(**common),
    "ERLPBoost": ERLPBoostClassifier(**common),
    "C-ERLPBoost": CERLPBoostClassifier(**common),
    "MLPBoost (short step + LP)": MLPBoostClassifier(**common),
    "short step + newton": MLPBoostClassifier(secondary="newton", **common),
    "pairwise + LP": MLPBoostClassifier(step="pairwise", **common),
    "line search, no secondary": MLPBoostClassifier(step="line_search", secondary="none", **common),
}
print(f"{'booster':28} {'rounds':>6} {'soft margin':>11} {'g - eps':>8} {'nonzero w':>9} {'time':>6}")
for name, clf in boosters.items():
    start = time.perf_counter()
    clf.fit(X, y)
    seconds = time.perf_counter() - start
    g = clf.history_["best_edge"][-1]  # the smallest edge the exact weak learner returned
    assert clf.status_ == "converged" and clf.margin_ >= g - eps - 1e-9  # Lemma 2 of paper 000
    print(f"{name:28} {clf.n_iter_:6d} {clf.margin_:11.4f} {g - eps:8.4f} "
          f"{(clf.weights_ > 0).sum():9d} {seconds:5.2f}s")
