"""
Model files, classes, Ctrl-C, reproducibility
=============================================

Model files, more than two classes, Ctrl-C and reproducibility. The model files go to a
temporary folder.
"""
import json
import os
import tempfile

import numpy as np
from sklearn.datasets import load_breast_cancer, load_iris

from marginboost import (GBMClassifier, MLPBoostClassifier, ModelFileError, load_model,
                         on_interrupt)

home, folder = os.getcwd(), tempfile.TemporaryDirectory()
os.chdir(folder.name)  # the model files below go to a temporary folder

# --- model files: versioned JSON, never pickle ----------------------------------------------
X, y = load_breast_cancer(return_X_y=True)
clf = MLPBoostClassifier(nu=0.1, eps=0.05, secondary="newton").fit(X, y)
clf.save("cancer.json")
again = load_model("cancer.json")  # or MLPBoostClassifier.load("cancer.json")
assert type(again) is MLPBoostClassifier
assert np.array_equal(again.decision_function(X), clf.decision_function(X))
with open("cancer.json") as f:
    doc = json.load(f)
print("model file keys:", sorted(doc))
print("first hypothesis:", json.dumps(doc["hypotheses"][0])[:100], "...")

doc["format_version"] = 99  # a file of another version is refused, not guessed at
with open("edited.json", "w") as f:
    json.dump(doc, f)
try:
    load_model("edited.json")
except ModelFileError as exc:
    print("refused:", str(exc)[:90])

# --- more than two classes: one-vs-rest, for every classifier --------------------------------
X3, y3 = load_iris(return_X_y=True)
ovr = MLPBoostClassifier(nu=0.1, eps=0.05, weak_learner="stump").fit(X3, y3)
print(f"\niris: {len(ovr.estimators_)} binary models, rounds per class {ovr.n_iter_.tolist()}, "
      f"status {ovr.status_}")
print("decision_function shape:", ovr.decision_function(X3).shape,
      f" training accuracy {ovr.score(X3, y3):.3f}")
ovr.save("iris.json")
assert np.array_equal(load_model("iris.json").predict(X3), ovr.predict(X3))

# --- Ctrl-C: keep the rounds completed (default), or propagate --------------------------------
# A KeyboardInterrupt during fit keeps the model of the completed rounds, status_ ==
# 'interrupted', with a FitInterruptedWarning. Inside on_interrupt("raise") it propagates,
# which is what a grid search or a benchmark script wants:
with on_interrupt("raise"):
    GBMClassifier(max_iter=20).fit(X, y)  # a Ctrl-C here would stop the whole block


@on_interrupt("raise")  # also a decorator
def fit_many(Xs, ys):
    return [GBMClassifier(max_iter=10).fit(a, b) for a, b in zip(Xs, ys)]


fit_many([X], [y])

# --- reproducibility: the same data and parameters give the same model, bit for bit -----------
a = MLPBoostClassifier(nu=0.1, eps=0.05).fit(X, y)
b = MLPBoostClassifier(nu=0.1, eps=0.05).fit(X, y)
assert np.array_equal(a.weights_, b.weights_)
assert np.array_equal(a.decision_function(X), b.decision_function(X))
print("\ntwo fits, identical weights and decision values:", a.n_iter_, "rounds each")

os.chdir(home)
folder.cleanup()
