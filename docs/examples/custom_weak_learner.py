"""
A weak learner of your own
==========================

A weak learner of our own: the best "feature above its median" vote.

The class H holds, for every feature j and sign s, the hypothesis
h(x) = s if x_j > median_j else -s. Its oracle is exact: it returns the hypothesis of
largest edge sum_i d_i y_i h(x_i) over all of H, so the soft-margin guarantees hold for H.
"""
import numpy as np
from sklearn.datasets import load_breast_cancer

from marginboost import MABoostClassifier, MLPBoostClassifier

from marginboost.soft_margin import algorithms
from marginboost.weak_learners import EdgeOracle, Hypothesis, WeakLearner


class MedianVote(Hypothesis):
    """h(x) = sign if x[feature] > threshold else -sign."""

    def __init__(self, feature, threshold, sign):
        self.feature, self.threshold, self.sign = feature, threshold, sign

    def predict(self, X):
        """h(X) in {-1, +1}, float64."""
        X = np.asarray(X, dtype=np.float64)
        return np.where(X[:, self.feature] > self.threshold, self.sign, -self.sign).astype(np.float64)


class MedianVoteOracle(EdgeOracle):
    """Bound to one sample: the outputs of every h with sign +1, precomputed once per fit."""

    def __init__(self, X, y):
        self.y = y
        self.medians = np.median(X, axis=0)
        self.B = np.where(X > self.medians, 1.0, -1.0)  # (m, p): h_j(x_i) for sign +1

    def __call__(self, d):
        """The hypothesis of largest edge under d, and its outputs on the training sample."""
        edges = (d * self.y) @ self.B  # edge of (j, +1); (j, -1) has the opposite edge
        j = int(np.argmax(np.abs(edges)))
        sign = 1.0 if edges[j] >= 0 else -1.0
        return MedianVote(j, self.medians[j], sign), sign * self.B[:, j]


class MedianVoteLearner(WeakLearner):
    """Parameters only (none here); prepare() does the per-fit work."""

    def prepare(self, X, y):
        """Bind to the sample: y is float64 in {-1, +1}."""
        return MedianVoteOracle(np.asarray(X, dtype=np.float64), y)


X, y = load_breast_cancer(return_X_y=True)

# 1. as the weak learner of any estimator of the package
clf = MLPBoostClassifier(nu=0.1, eps=0.02, weak_learner=MedianVoteLearner()).fit(X, y)
print(f"MLPBoost over median votes: {clf.n_iter_} rounds, status {clf.status_}, "
      f"soft margin {clf.margin_:.4f}, training accuracy {clf.score(X, y):.3f}")
print("features used:", sorted({h.feature for h, w in zip(clf.hypotheses_, clf.weights_) if w > 0}))

# ... and of the other families, e.g. mirror-ascent boosting
ma = MABoostClassifier(weak_learner=MedianVoteLearner(), max_iter=50).fit(X, y)
print(f"MABoost over median votes: {ma.n_iter_} rounds, training accuracy {ma.score(X, y):.3f}")

# 2. the oracle alone, with the loop of paper 000 (labels must be -1/+1 floats here)
y_pm = np.where(y == 1, 1.0, -1.0)
oracle = MedianVoteLearner().prepare(X, y_pm)
result = algorithms.run(algorithms.mlpboost(step="pairwise", secondary="lp"), oracle, y_pm,
                        nu=0.1 * len(y), eps=0.02)
print(f"algorithms.run: {result.n_iter} rounds, status {result.status}, "
      f"soft margin {result.soft_margin:.4f}")
assert abs(result.soft_margin - clf.margin_) <= 0.02 + 1e-9  # both within eps of the optimum over H
