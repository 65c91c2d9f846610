"""Any scikit-learn classifier that accepts ``sample_weight`` as a weak learner.

The oracle fits a fresh clone of the estimator on ``(X, y)`` with ``sample_weight = d * m``
(weights of mean one: the weighted loss keeps the scale of the unweighted one, so settings
tuned for unit weights, such as the regularisation strength ``C`` of a linear model, keep
their meaning). Such an estimator
minimises its own loss, not the negated edge

    edge(h; d) = sum_i d_i y_i h(x_i)            (paper 000, Mitsuboshi et al., section 2),

so it is an approximate oracle: the guarantee of paper 000 (section 4.2) only asks for an
edge of at least some unknown g > 0. E.g. a depth-1 ``DecisionTreeClassifier`` minimises
weighted Gini impurity and can return a stump with a smaller edge than the best one.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils import get_tags
from sklearn.utils.validation import has_fit_parameter

from marginboost.weak_learners.base import EdgeOracle, Hypothesis, WeakLearner

__all__ = ["SklearnHypothesis", "SklearnWeakLearner"]


class SklearnHypothesis(Hypothesis):
    """A fitted estimator whose ``predict`` gives labels in {-1, +1}."""

    def __init__(self, estimator):
        self.estimator = estimator

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.estimator.predict(X), dtype=np.float64)

    def __repr__(self) -> str:
        return f"SklearnHypothesis({self.estimator!r})"


class _SklearnOracle(EdgeOracle):
    def __init__(self, estimator, X: np.ndarray, y: np.ndarray):
        self._estimator = estimator
        self._X = X
        self._y = np.asarray(y, dtype=np.float64)

    def __call__(self, d: np.ndarray) -> tuple[SklearnHypothesis, np.ndarray]:
        d = np.asarray(d, dtype=np.float64)
        est = clone(self._estimator)
        est.fit(self._X, self._y, sample_weight=d * d.shape[0])
        h = SklearnHypothesis(est)
        return h, h.predict(self._X)


class SklearnWeakLearner(WeakLearner):
    """Wrap an unfitted scikit-learn classifier; it is cloned for every oracle call."""

    def __init__(self, estimator):
        self.estimator = estimator

    @property
    def allow_nan(self) -> bool:
        """The estimator's scikit-learn ``allow_nan`` tag (False for an object without tags)."""
        try:
            return bool(get_tags(self.estimator).input_tags.allow_nan)
        except (AttributeError, TypeError, ValueError):
            return False

    def prepare(self, X: np.ndarray, y: np.ndarray) -> EdgeOracle:
        if not has_fit_parameter(self.estimator, "sample_weight"):
            raise TypeError(
                f"{type(self.estimator).__name__}.fit does not accept sample_weight; "
                "a weak learner must be trainable on a weighted sample (the distribution d). "
                "Use an estimator whose fit takes sample_weight, or weak_learner='stump'/'tree'."
            )
        return _SklearnOracle(self.estimator, X, y)

    def __repr__(self) -> str:
        return f"SklearnWeakLearner({self.estimator!r})"
