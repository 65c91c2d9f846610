"""
Tabular data as it comes
========================

A DataFrame with missing values and a categorical column goes to the estimators as it is: no
imputation, no encoding. Every stump and tree learner gives missing values (NaN) their own place
in each split (the split also chooses the side they go to, the one of larger edge; a feature never
missing in training sends them to the side of more training examples), and takes a ``category``
column as categories: a split sends a subset of them one way, the subset of largest edge, which
for a stump is exactly the categories whose examples weigh towards the positive class. The model
still reads as rules, and its margins draw as Schapire et al.'s margin distribution graph.
"""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from marginboost import MLPBoostClassifier, describe, plot_margins

data = load_breast_cancer(as_frame=True)
X = data.data[["mean radius", "mean texture", "mean concave points", "worst area"]].copy()
# A categorical column, as a survey or a database would give it: the texture as a word
X["texture class"] = pd.cut(data.data["mean texture"], [0, 16, 20, 24, np.inf],
                            labels=["smooth", "fine", "coarse", "rough"])
X = X.drop(columns="mean texture")
rng = np.random.default_rng(0)
X = X.mask(rng.random(X.shape) < 0.2)  # a fifth of the values missing, at random
print(X.dtypes.to_string())
print(f"{int(X.isna().sum().sum())} of {X.size} values missing")

X_train, X_test, y_train, y_test = train_test_split(X, data.target, test_size=0.3, random_state=0,
                                                    stratify=data.target)
clf = MLPBoostClassifier(nu=0.1, eps=0.05, weak_learner="stump").fit(X_train, y_train)
print(f"test accuracy {clf.score(X_test, y_test):.3f}, {np.count_nonzero(clf.weights_)} stumps")
# A split that sends NaN to its "<=" side (or to its listed categories) says so; the others send
# it to the other side. Categories print by name.
print(describe(clf, top=8))

fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
plot_margins(clf, X_train, y_train, X_test, y_test, ax=ax)
plt.show()
