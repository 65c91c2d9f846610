"""
Run controls
============

``verbose``, callbacks, early stopping and warm start: the same on every estimator.
"""
import warnings

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from marginboost import GBMClassifier, MLPBoostClassifier

X, y = load_breast_cancer(return_X_y=True)
X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.3, random_state=0)

# a progress line every 10 rounds, on stderr
MLPBoostClassifier(nu=0.1, eps=0.05, verbose=10).fit(X_train, y_train)


# a callback: watch the gap, stop by hand once it is small
def stop_when_close(record):
    return record.row["gap"] < 0.05


clf = MLPBoostClassifier(nu=0.1, eps=0.001, callbacks=[stop_when_close]).fit(X_train, y_train)
print(clf.status_, "after", clf.n_iter_, "rounds, gap", round(clf.history_["gap"][-1], 4))

# early stopping on a held-out set
gbm = GBMClassifier(max_iter=500, early_stopping=True, n_iter_no_change=20)
gbm.fit(X_train, y_train, eval_set=(X_val, y_val))
print(gbm.status_, "after", gbm.n_iter_, "rounds; best round", gbm.best_iteration_,
      "with validation accuracy", gbm.validation_scores_.max())

# warm start: 10 rounds, then on to convergence in the same fit
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the first fit stops by max_iter before its stopping rule
    warm = MLPBoostClassifier(nu=0.1, eps=0.05, max_iter=10, warm_start=True).fit(X_train, y_train)
warm.set_params(max_iter=1000).fit(X_train, y_train)
print("warm start:", warm.status_, "after", warm.n_iter_, "rounds in all")
