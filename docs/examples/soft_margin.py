"""
The soft-margin boosters: rounds, gap, time and sparsity
========================================================

The soft-margin family on one problem: the same guarantee, different paths. Every booster
stops once its duality gap proves the soft margin within ``eps`` of the best the weak
learner allows; the figures follow each fit round by round through ``history_`` and
``weights_path_``.
"""
import time

import matplotlib.pyplot as plt
import numpy as np
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

# %%
# Convergence of the gap
# ----------------------
#
# ``history_['gap']`` is the duality gap after each round: the smallest edge so far minus the
# objective. LPBoost stops once it is below ``eps``, the boosters of the smoothed objective
# once it is below ``eps / 2`` (Lemma 2 of paper 000). The fully corrective rules close it in
# a few dozen rounds; plain Frank-Wolfe (C-ERLPBoost) needs thousands.

fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
for name, clf in boosters.items():
    ax.plot(clf.history_["round"], clf.history_["gap"], label=name)
ax.axhline(eps, color="black", linestyle=":", linewidth=1, label="eps (LPBoost's stop)")
ax.axhline(eps / 2, color="gray", linestyle="--", linewidth=1, label="eps / 2 (the others' stop)")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("round (weak-learner calls)")
ax.set_ylabel("duality gap")
ax.legend(fontsize=8, ncols=2, loc="lower left")

# %%
# The soft margin against time
# ----------------------------
#
# ``history_['soft_margin']`` is the mean of the ``nu`` smallest margins of the weights after
# each round; ``history_['time']`` the seconds since the fit started, at the end of the round.

fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
for name, clf in boosters.items():
    ax.plot(clf.history_["time"], clf.history_["soft_margin"], label=name)
ax.set_xscale("log")
ax.set_xlabel("seconds since the fit started")
ax.set_ylabel("soft margin")
ax.legend(fontsize=8, loc="lower right", framealpha=0.9)

# %%
# Sparsity of the weights
# -----------------------
#
# ``weights_path_`` replays the weights after every round. A corrective rule sets weights
# back to zero; plain Frank-Wolfe never does, so every hypothesis it ever found keeps a
# share of the vote.

fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
for name, clf in boosters.items():
    nonzero = [np.count_nonzero(w) for w in clf.weights_path_]
    ax.plot(clf.history_["round"], nonzero, label=name)
ax.set_xscale("log")
ax.set_xlabel("round (weak-learner calls)")
ax.set_ylabel("hypotheses of nonzero weight")
ax.legend(fontsize=8)
plt.show()
