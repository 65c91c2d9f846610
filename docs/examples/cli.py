"""
The command line
================

The command line, run here through its entry point ``marginboost.cli.main``.

In a shell the same calls read ``marginboost datasets``, ``marginboost fit ...`` and
``marginboost predict ...``. The files go to a temporary folder.
"""
import os
import tempfile

import numpy as np
from sklearn.datasets import load_breast_cancer

from marginboost.cli import main

home, folder = os.getcwd(), tempfile.TemporaryDirectory()
os.chdir(folder.name)

# a CSV file of our own, without a header row: features, then the label (0 or 1) in the last column
X, y = load_breast_cancer(return_X_y=True)
np.savetxt("cancer.csv", np.column_stack([X, y]), delimiter=",", fmt="%.6g")

assert main(["datasets"]) == 0
print()
assert main(["fit", "--data", "cancer.csv", "--no-header", "--booster", "mlpboost", "--nu", "0.1", "--eps", "0.05",
             "--secondary", "newton", "--model", "cancer.json"]) == 0
print()
assert main(["fit", "--data", "cancer.csv", "--no-header", "--booster", "gbm", "--max-depth", "2",
             "--param", "learning_rate=0.1", "--max-iter", "50"]) == 0
print()
assert main(["predict", "--data", "cancer.csv", "--no-header", "--model", "cancer.json",
             "--output", "predictions.txt"]) == 0
predicted = np.loadtxt("predictions.txt", dtype=int)  # integer labels stay integers
print(f"training accuracy of the saved model: {np.mean(predicted == y):.3f}")

os.chdir(home)
folder.cleanup()
