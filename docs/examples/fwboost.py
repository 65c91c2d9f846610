"""
FWBoost: the l1 radius sets the capacity
========================================

FWBoost: the l1 radius beta, not the number of rounds, sets the capacity.
"""
import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.model_selection import train_test_split

from marginboost import FWBoostClassifier, FWBoostRegressor

X, y = load_diabetes(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
print("FWBoostRegressor, squared loss, depth-2 trees, 200 rounds")
print(f"{'beta':>6} {'rounds':>6} {'status':>9} {'train MSE':>10} {'test MSE':>9} {'sum |w_j|':>9}")
for beta in (50.0, 200.0, 800.0):
    reg = FWBoostRegressor(beta=beta, weak_learner="tree", max_depth=2, max_iter=200)
    reg.fit(X_train, y_train)
    l1 = np.abs(reg.weights_).sum()
    assert l1 <= beta * (1 + 1e-9)  # the iterates stay in the l1 ball lin_beta(H)
    mse_train = np.mean((reg.predict(X_train) - y_train) ** 2)
    mse_test = np.mean((reg.predict(X_test) - y_test) ** 2)
    print(f"{beta:6.0f} {reg.n_iter_:6d} {reg.status_:>9} {mse_train:10.1f} {mse_test:9.1f} {l1:9.1f}")

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
print("\nFWBoostClassifier: logistic loss, and AdaBoost.FW (exponential loss, variant C)")
for loss in ("logistic", "exponential"):
    clf = FWBoostClassifier(loss=loss, beta=5.0, weak_learner="stump", max_iter=200)
    clf.fit(X_train, y_train)
    print(f"{loss:12} train loss {clf.train_loss_:.4f}  gap {clf.gap_:.2g}  "
          f"test accuracy {clf.score(X_test, y_test):.3f}")
