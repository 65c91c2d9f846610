"""Gaussian naive Bayes as a weak learner: the class-conditional Gaussians fitted under ``d``.

For the distribution ``d`` over the sample and each class ``c in {-1, +1}``::

    prior_c   = sum_{i: y_i = c} d_i
    mean_cj   = sum_{i: y_i = c} d_i x_ij / prior_c
    var_cj    = sum_{i: y_i = c} d_i (x_ij - mean_cj)^2 / prior_c + epsilon
    log p(x, c) = ln prior_c - 1/2 sum_j [ln(2 pi var_cj) + (x_j - mean_cj)^2 / var_cj]

with ``epsilon = var_smoothing * max_j Var(x_j)`` (the unweighted variance of the sample),
as scikit-learn's ``GaussianNB`` does with ``sample_weight``; the fitted parameters are
therefore those of ``GaussianNB(var_smoothing).fit(X, y, sample_weight=d)``.

The hypothesis is ``h(x) = sign(log p(x, +1) - log p(x, -1))`` (ties to +1), or with
``confidence=True`` the posterior difference ``P(+1 | x) - P(-1 | x) = tanh(L(x)/2)``
in [-1, 1], ``L`` the log-odds. It minimises no edge-based loss, so it is an approximate
oracle (paper 000, section 4.2 only asks for an edge of at least some g > 0). A class with
no weight under ``d`` gets prior 0: ``h`` is then the constant of the other class.
"""
from __future__ import annotations

import numpy as np

from marginboost.weak_learners.base import EdgeOracle, Hypothesis, WeakLearner

__all__ = ["GaussianNaiveBayes", "GaussianNBHypothesis"]


class GaussianNBHypothesis(Hypothesis):
    """``h(x)`` from the fitted priors, means and variances of the two classes (row 0: -1, row 1: +1)."""

    def __init__(self, log_prior, mean, var, confidence):
        self.log_prior, self.mean, self.var, self.confidence = log_prior, mean, var, confidence

    def log_odds(self, X: np.ndarray) -> np.ndarray:
        """``L(x) = log p(x, +1) - log p(x, -1)`` (``+-inf`` when one prior is 0)."""
        X = np.asarray(X, dtype=np.float64)
        joint = np.empty((X.shape[0], 2))
        for c in range(2):
            quad = ((X - self.mean[c]) ** 2 / self.var[c]).sum(axis=1)
            joint[:, c] = self.log_prior[c] - 0.5 * (np.log(2.0 * np.pi * self.var[c]).sum() + quad)
        with np.errstate(invalid="ignore"):
            return joint[:, 1] - joint[:, 0]

    def predict(self, X: np.ndarray) -> np.ndarray:
        L = self.log_odds(X)
        if self.confidence:
            return np.tanh(0.5 * L)
        return np.where(L >= 0.0, 1.0, -1.0)

    def __repr__(self) -> str:
        return f"GaussianNBHypothesis(prior_pos={np.exp(self.log_prior[1]):.3g}, confidence={self.confidence})"


class _NaiveBayesOracle(EdgeOracle):
    def __init__(self, X, y, var_smoothing, confidence):
        self._X = np.asarray(X, dtype=np.float64)
        self._pos = np.asarray(y) > 0
        self._epsilon = var_smoothing * float(np.var(self._X, axis=0).max())
        self._confidence = confidence

    def __call__(self, d: np.ndarray):
        d = np.asarray(d, dtype=np.float64)
        p = self._X.shape[1]
        log_prior = np.full(2, -np.inf)
        mean = np.zeros((2, p))
        var = np.ones((2, p))
        for c, mask in enumerate((~self._pos, self._pos)):
            weight = d[mask]
            prior = weight.sum()
            if prior <= 0.0:
                continue  # an absent class keeps log prior -inf: never predicted
            Xc = self._X[mask]
            mean[c] = weight @ Xc / prior
            var[c] = weight @ (Xc - mean[c]) ** 2 / prior + self._epsilon
            log_prior[c] = np.log(prior)
        # A zero variance (only with var_smoothing = 0, or every feature constant) is taken as 1.
        var = np.where(var > 0.0, var, 1.0)
        h = GaussianNBHypothesis(log_prior, mean, var, self._confidence)
        return h, h.predict(self._X)


class GaussianNaiveBayes(WeakLearner):
    """Gaussian naive Bayes weak learner (see the module docstring).

    Parameters
    ----------
    var_smoothing : float >= 0, default=1e-9
        Fraction of the largest feature variance added to every variance (scikit-learn's).
    confidence : bool, default=False
        Return ``P(+1|x) - P(-1|x)`` in [-1, 1] instead of its sign.
    """

    def __init__(self, var_smoothing: float = 1e-9, confidence: bool = False):
        if not var_smoothing >= 0.0:
            raise ValueError(f"var_smoothing must be >= 0, got {var_smoothing!r}")
        self.var_smoothing = var_smoothing
        self.confidence = confidence

    def prepare(self, X: np.ndarray, y: np.ndarray) -> EdgeOracle:
        return _NaiveBayesOracle(X, y, self.var_smoothing, self.confidence)

    def __repr__(self) -> str:
        return f"GaussianNaiveBayes(var_smoothing={self.var_smoothing!r}, confidence={self.confidence!r})"
