"""
A first fit
===========

MLPBoost on scikit-learn's breast cancer set: the soft margin it reaches, the duality gap that
proves it, the history of the rounds and the sparse vote.
"""
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from marginboost import MLPBoostClassifier
from marginboost.soft_margin.scheme import UPDATE_NAMES

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)

# nu=0.1: a fraction of the m training examples may fall inside the margin (the capping
# parameter); eps: the fit stops once the soft margin is provably within eps of the best
# the weak learner allows.
clf = MLPBoostClassifier(nu=0.1, eps=0.02, weak_learner="tree", max_depth=2)
clf.fit(X_train, y_train)

print(f"status: {clf.status_} after {clf.n_iter_} weak-learner calls")
print(f"soft margin (mean of the nu = {clf.nu_:.1f} smallest margins): {clf.margin_:.4f}")
print(f"duality gap: {clf.gap_:.4f} (the fit stops at eps/2 = {clf.eps / 2})")
used = np.count_nonzero(clf.weights_)
print(f"{len(clf.hypotheses_)} distinct trees found, {used} with positive weight")
print(f"test accuracy: {clf.score(X_test, y_test):.3f}")

# decision_function is the weighted vote H(x) = sum_j w_j h_j(x), in [-1, 1]
H = clf.decision_function(X_test)
assert np.all(np.abs(H) <= 1 + 1e-12)
assert np.array_equal(clf.predict(X_test), clf.classes_[(H > 0).astype(int)])

# %%
# ``history_`` has one row per round (a weak-learner call and the update after it).

h = clf.history_
print("round  soft_margin  objective  best_edge    gap      update")
for r in [0, 1, 2, len(h["round"]) - 1]:
    print(f"{h['round'][r]:5d}  {h['soft_margin'][r]:11.4f}  {h['objective'][r]:9.4f}  "
          f"{h['best_edge'][r]:9.4f}  {h['gap'][r]:7.4f}  {UPDATE_NAMES[h['update'][r]]}")

# %%
# The vote is sparse: the secondary rule (here the LP of MLPBoost) sets the weight of many of
# the trees it found back to zero.

fig, ax = plt.subplots(figsize=(7, 3), layout="constrained")
ax.stem(clf.weights_)
ax.set_xlabel("tree, in the order found")
ax.set_ylabel("weight in the vote")
plt.show()
