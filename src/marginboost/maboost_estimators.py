"""scikit-learn estimators for mirror-ascent boosting (paper 002, Naghibi and Pfister 2014).

* :class:`MABoostClassifier` -- MABoost / LAMABoost (002 Algorithm 1) with the variants of
  :func:`.maboost.maboost`: 'normal', 'maxmargin', 'smooth', 'combined', 'sparse'.
* :class:`MadaBoostClassifier` -- MadaBoost as double-projection LAMABoost (002 Algorithm 3).

The fitted model is ``f(x) = sum_t eta_t h_t(x)``; ``decision_function`` returns it divided
by ``sum_t eta_t`` (in [-1, 1], same sign), ``predict`` its sign (0 -> ``classes_[0]``).
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .bregman import REGULARIZERS
from .estimators import _check_two_classes
from .maboost import MADABOOST_STEPS, UPDATES, VARIANTS, maboost, madaboost, mirror_ascent_boost
from .weak_learners import resolve_weak_learner


def check_secondary_mask(mask, m: int) -> np.ndarray:
    """Turn ``secondary_mask`` (booleans of length ``m`` or distinct indices in [0, m)) into booleans."""
    arr = np.asarray(mask)
    if arr.ndim != 1:
        raise ValueError(f"secondary_mask must be 1-dimensional, got shape {arr.shape}")
    if arr.dtype == bool:
        if arr.shape[0] != m:
            raise ValueError(f"secondary_mask must have one entry per example ({m}), got {arr.shape[0]}")
        return arr.copy()
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"secondary_mask must be a boolean mask or integer indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= m or np.unique(arr).shape[0] != arr.shape[0]):
        raise ValueError(f"secondary_mask indices must be distinct and lie in [0, {m})")
    out = np.zeros(m, dtype=bool)
    out[arr] = True
    return out


class _MirrorBoostClassifier(ClassifierMixin, BaseEstimator):
    """Shared front end: validation, the loop, prediction. Subclasses give ``_parts(m, mask)``."""

    _parameter_constraints: dict = {
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither")],
        "weak_learner": [StrOptions({"tree", "stump"}), HasMethods(["prepare"]), HasMethods(["fit", "predict"])],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _parts(self, m: int, mask):
        raise NotImplementedError

    def _fit(self, X, y, mask=None):
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        _check_two_classes(self.classes_.shape[0], f"labels found: {self.classes_.tolist()[:10]}")
        y_pm = np.where(y_index == 1, 1.0, -1.0)
        m = X.shape[0]
        parts = self._parts(m, None if mask is None else check_secondary_mask(mask, m))
        oracle = resolve_weak_learner(self.weak_learner, self.max_depth).prepare(X, y_pm)
        result = mirror_ascent_boost(oracle, y_pm, parts, self.max_iter)
        self.hypotheses_ = result.hypotheses
        self.coef_ = result.coefs
        self.distribution_ = result.distribution
        self.margin_ = float(result.margins.min())
        self.n_iter_ = result.n_iter
        self.status_ = result.status
        self.history_ = result.history
        return self

    def _outputs(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        out = np.zeros((X.shape[0], len(self.hypotheses_)))
        for j, h in enumerate(self.hypotheses_):
            out[:, j] = h.predict(X)
        return out

    def decision_function(self, X) -> np.ndarray:
        """``sum_t eta_t h_t(x) / sum_t eta_t`` in [-1, 1]; positive means ``classes_[1]``."""
        out = self._outputs(X)
        total = self.coef_.sum()
        return out @ self.coef_ / total if total > 0 else np.zeros(out.shape[0])

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where ``decision_function > 0``, else ``classes_[0]``."""
        score = self.decision_function(X)
        return self.classes_[(score > 0).astype(int)]

    def staged_decision_function(self, X):
        """Yield the normalised ``f_t(X)`` after every round ``t`` (one per row of ``history_``)."""
        scores = np.cumsum(self._outputs(X) * self.coef_, axis=1)
        totals = np.cumsum(self.coef_)
        for t in range(self.coef_.shape[0]):
            yield scores[:, t] / totals[t]

    def staged_predict(self, X):
        """Yield the predictions after every round."""
        for score in self.staged_decision_function(X):
            yield self.classes_[(score > 0).astype(int)]


class MABoostClassifier(_MirrorBoostClassifier):
    """MABoost / LAMABoost: boosting by mirror ascent on the sample distribution (002 Algorithm 1).

    Parameters
    ----------
    regularizer : 'entropy' (default) or 'l2'
        ``R``: negative entropy (KL projections; with 'normal' it is AdaBoost with
        ``eta_t = gamma_t``) or ``1/2 ||w||^2`` (Euclidean projections, ``eta_t = gamma_t/m``).
    update : 'active' (default, MABoost) or 'lazy' (LAMABoost, dual averaging)
    variant : 'normal' (default), 'maxmargin', 'smooth', 'combined' or 'sparse'
        See :func:`marginboost.maboost.maboost`. 'sparse' (SparseBoost) needs
        ``regularizer='l2'`` and ``update='active'``; 'combined' needs ``secondary_mask`` in fit.
    smoothness : float in (0, 1], default=0.1
        ``lambda``: 'smooth' caps every weight at ``1/(lambda m)``; 'combined' caps the
        secondary examples at ``1/(lambda m_B)``. The training error (of the capped set)
        is guaranteed to fall to ``lambda``, not below.
    sparsity : float in [0, 1), default=0.5
        ``c`` of SparseBoost's l1 factor ``alpha_t = c eta_t gamma_t ||z_t||_1 / 2``.
    learning_rate : float > 0, default=1.0
        Multiplies every ``eta_t`` (the R package's ``nu``; Theorem 1's rate needs 1).
    weak_learner : 'tree' (default), 'stump', a WeakLearner, or a scikit-learn classifier
    max_depth : int >= 1, default=2
    max_iter : int >= 1, default=100
        Number of boosting rounds.

    Attributes
    ----------
    classes_, hypotheses_, coef_ (``eta_t``), distribution_ (the last ``w``), margin_ (the
    smallest normalised training margin), n_iter_, status_ ('max_iter', 'no_edge',
    'zero_weights'), history_ (dict of arrays, :data:`marginboost.maboost.HISTORY_COLUMNS`).
    """

    _parameter_constraints: dict = {
        **_MirrorBoostClassifier._parameter_constraints,
        "regularizer": [StrOptions(set(REGULARIZERS))],
        "update": [StrOptions(set(UPDATES))],
        "variant": [StrOptions(set(VARIANTS))],
        "smoothness": [Interval(numbers.Real, 0, 1, closed="right")],
        "sparsity": [Interval(numbers.Real, 0, 1, closed="left")],
    }

    def __init__(self, regularizer="entropy", update="active", variant="normal", smoothness=0.1,
                 sparsity=0.5, learning_rate=1.0, weak_learner="tree", max_depth=2, max_iter=100):
        self.regularizer = regularizer
        self.update = update
        self.variant = variant
        self.smoothness = smoothness
        self.sparsity = sparsity
        self.learning_rate = learning_rate
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.max_iter = max_iter

    def fit(self, X, y, secondary_mask=None):
        """Boost on ``(X, y)``; ``y`` must hold exactly two classes.

        ``secondary_mask`` (variant 'combined' only): the secondary data set, as a boolean
        mask of length ``n_samples`` or integer indices. To combine two data sets, stack them
        and mark the second: ``fit(np.vstack([XA, XB]), np.r_[yA, yB], np.r_[[False] * len(XA),
        [True] * len(XB)])``.
        """
        return self._fit(X, y, secondary_mask)

    def _parts(self, m, mask):
        if mask is not None and self.variant != "combined":
            raise ValueError(f"secondary_mask is only used by variant='combined', got variant={self.variant!r}")
        return maboost(m, self.regularizer, self.update, self.variant, float(self.smoothness), mask,
                       float(self.sparsity), float(self.learning_rate))


class MadaBoostClassifier(_MirrorBoostClassifier):
    """MadaBoost as double-projection LAMABoost (002 Algorithm 3, Theorem 5).

    Weights ``w_t ~ min(1, exp(-sum_{s<t} eta_s y_i h_s(x_i)))``: AdaBoost's, capped at the
    initial weight (Domingo and Watanabe 2000).

    Parameters
    ----------
    step : 'paper' (default) or 'adaboost'
        ``eta_t = gamma_t ||x_t||_1 / m`` (002 Theorem 5: O(1/(eps^2 gamma^2)) rounds) or the
        original MadaBoost's ``1/2 ln((1 + gamma_t)/(1 - gamma_t))``.
    learning_rate, weak_learner, max_depth, max_iter : as in :class:`MABoostClassifier`.
    """

    _parameter_constraints: dict = {
        **_MirrorBoostClassifier._parameter_constraints,
        "step": [StrOptions(set(MADABOOST_STEPS))],
    }

    def __init__(self, step="paper", learning_rate=1.0, weak_learner="tree", max_depth=2, max_iter=100):
        self.step = step
        self.learning_rate = learning_rate
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.max_iter = max_iter

    def fit(self, X, y):
        """Boost on ``(X, y)``; ``y`` must hold exactly two classes."""
        return self._fit(X, y)

    def _parts(self, m, mask):
        return madaboost(m, self.step, float(self.learning_rate))


__all__ = ["MABoostClassifier", "MadaBoostClassifier", "check_secondary_mask"]
