"""
GBM against scikit-learn's gradient boosting
============================================

GBM matches scikit-learn's gradient boosting on the training sample.
"""
import numpy as np
from sklearn.datasets import load_diabetes, make_classification
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

from marginboost import GBMClassifier, GBMRegressor

# float32-exact features: scikit-learn's trees see float32. Data without exact ties between
# splits of different features: scikit-learn breaks those by a random feature order.
X, y = load_diabetes(return_X_y=True)
X = X.astype(np.float32).astype(np.float64)
ours = GBMRegressor(max_iter=50, learning_rate=0.1, max_depth=3).fit(X, y)
theirs = GradientBoostingRegressor(n_estimators=50, learning_rate=0.1, max_depth=3, random_state=0).fit(X, y)
gap = np.max(np.abs(ours.predict(X) - theirs.predict(X)))
print(f"regression, squared loss: largest difference on the training sample {gap:.2e}")
assert gap < 1e-8 * np.abs(y).max()

X, y = make_classification(n_samples=500, n_features=10, n_informative=5, random_state=0)
X = X.astype(np.float32).astype(np.float64)
ours = GBMClassifier(max_iter=50, learning_rate=0.1, max_depth=2).fit(X, y)
theirs = GradientBoostingClassifier(n_estimators=50, learning_rate=0.1, max_depth=2, random_state=0).fit(X, y)
gap = np.max(np.abs(ours.decision_function(X) - theirs.decision_function(X)))
print(f"classification, logistic loss, Newton leaves: largest difference {gap:.2e}")
assert gap < 1e-8

# stochastic GBM: row subsampling, reproducible with random_state
a = GBMClassifier(max_iter=50, max_depth=2, subsample=0.5, random_state=0).fit(X, y)
b = GBMClassifier(max_iter=50, max_depth=2, subsample=0.5, random_state=0).fit(X, y)
assert np.array_equal(a.decision_function(X), b.decision_function(X))
print(f"subsample=0.5: training loss {a.train_loss_:.4f} (full sample: {ours.train_loss_:.4f}); "
      "the same model for the same random_state")
