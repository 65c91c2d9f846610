"""
A readable model
================

A sparse vote of stumps can be read: :func:`marginboost.describe` prints it as weighted rules,
``feature_importances_`` says which features carry its weight, and
:func:`marginboost.plot_margins` draws the distribution of its margins on training and test data,
the figure of Schapire, Freund, Bartlett and Lee, "Boosting the margin" (1998).
"""
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from marginboost import LPBoostClassifier, describe, plot_importances, plot_margins

# A DataFrame: the fit keeps its column names (feature_names_in_), and the rules use them.
data = load_breast_cancer(as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(data.data, data.target, test_size=0.3, random_state=0,
                                                    stratify=data.target)
clf = LPBoostClassifier(nu=0.1, eps=0.01, weak_learner="stump").fit(X_train, y_train)

# The header: the parameters, the soft margin and its duality gap, the rounds and the status; then
# the rules, heaviest first: "w x [feature <= t ? -1 : +1]" votes w for -1 (malignant, class 0)
# below the threshold and for +1 (benign) above it.
print(describe(clf, top=8))

# %%
# ``feature_importances_``: the share of the vote's weight carried by each feature's stumps
# (for trees, each tree's weight is split over its nodes by the edge they gained). They sum to 1.

importances = clf.feature_importances_
for k in np.argsort(-importances)[:5]:
    print(f"{clf.feature_names_in_[k]:>22}  {importances[k]:.3f}")
print(f"sum {importances.sum():.3f} over {np.count_nonzero(importances)} features of {importances.size}")

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
plot_importances(clf, top=10, ax=ax)
plt.show()

# %%
# The cumulative distribution of the normalised margins ``y f(x) / ||w||_1``: the share of the
# examples whose margin is at most theta. Its height at 0 is the error. LPBoost maximises the
# soft margin ``margin_`` (the black line), the mean of the nu smallest training margins: fewer
# than nu training examples, a share nu / m = 0.1, have a margin below it.

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
plot_margins(clf, X_train, y_train, X_test, y_test, ax=ax)
ax.axvline(clf.margin_, color="black", linewidth=0.8, label=f"soft margin {clf.margin_:.3f}")
ax.legend(loc="upper left")
plt.show()
