"""
The classic margin boosters
===========================

The classic margin boosters and GraphSepBoost on one problem, each beside its round bound.
"""
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from marginboost import (AdaBoostVClassifier, GraphSepBoostClassifier, SmoothBoostClassifier,
                         SoftBoostClassifier, TotalBoostClassifier)
from marginboost.classic.adaboostv import adaboostv_rounds
from marginboost.classic.smoothboost import smoothboost_rounds
from marginboost.totally_corrective.softboost import iteration_bound

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
m = len(y_train)
eps = 0.1
models = {
    f"TotalBoost (bound {iteration_bound(m, 1, eps)})": TotalBoostClassifier(eps=eps, weak_learner="stump"),
    f"SoftBoost nu=0.1m (bound {iteration_bound(m, 0.1 * m, eps)})":
        SoftBoostClassifier(nu=0.1, eps=eps, weak_learner="stump"),
    # AdaBoostV and SmoothBoost run to their round bounds only when given them as max_iter
    f"AdaBoostV (bound {adaboostv_rounds(m, eps)})":
        AdaBoostVClassifier(eps=eps, weak_learner="stump", max_iter=adaboostv_rounds(m, eps)),
    f"SmoothBoost kappa=0.1 (bound {smoothboost_rounds(0.1, 0.1)})":
        SmoothBoostClassifier(kappa=0.1, gamma=0.1, weak_learner="stump", max_iter=smoothboost_rounds(0.1, 0.1)),
    "GraphSepBoost": GraphSepBoostClassifier(weak_learner="stump"),
}
print(f"{'booster':36} {'rounds':>6} {'status':>10} {'margin':>7} {'train err':>9} {'test err':>8}")
for name, clf in models.items():
    clf.fit(X_train, y_train)
    margin = getattr(clf, "margin_", float("nan"))
    print(f"{name:36} {clf.n_iter_:6d} {clf.status_:>10} {margin:7.3f} "
          f"{1 - clf.score(X_train, y_train):9.3f} {1 - clf.score(X_test, y_test):8.3f}")
