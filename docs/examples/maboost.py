"""
MABoost's variants
==================

MABoost's variants: one mirror-ascent loop, different regularisers, sets and steps.
"""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from marginboost import AdaBoostClassifier, MABoostClassifier, MadaBoostClassifier

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
common = dict(weak_learner="stump", max_iter=150)
models = {
    "AdaBoost (same loop)": AdaBoostClassifier(**common),
    "MABoost entropy, active": MABoostClassifier(**common),
    "LAMABoost entropy, lazy": MABoostClassifier(update="lazy", **common),
    "MABoost l2": MABoostClassifier(regularizer="l2", **common),
    "max-margin": MABoostClassifier(variant="maxmargin", **common),
    "smooth (lambda = 0.1)": MABoostClassifier(variant="smooth", smoothness=0.1, **common),
    "SparseBoost": MABoostClassifier(variant="sparse", regularizer="l2", **common),
    "MadaBoost": MadaBoostClassifier(**common),
}
print(f"{'variant':26} {'rounds':>6} {'status':>12} {'train err':>9} {'test err':>8} {'min margin':>10}")
for name, clf in models.items():
    clf.fit(X_train, y_train)
    print(f"{name:26} {clf.n_iter_:6d} {clf.status_:>12} {1 - clf.score(X_train, y_train):9.3f} "
          f"{1 - clf.score(X_test, y_test):8.3f} {clf.margin_:10.3f}")
