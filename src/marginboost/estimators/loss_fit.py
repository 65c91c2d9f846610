"""The front end of the loss-fitting families, FWBoost and GBM: ``F(x) = offset + sum_j w_j h_j(x)``
fitted to minimise a loss (:mod:`marginboost.functional.losses`).

Their classifier and regressor differ only in how the targets enter; the family's base class
supplies ``_boost(X, y, s, eval_set)`` (run the loop, set the fitted attributes), ``_decision(X)``
(``F(X)``) and ``_staged(X)`` (``F_t(X)`` after every round), and the mixins here the rest.
Sample weights are scaled to mean 1 (``s / mean(s)``, as these families always have).
"""
from __future__ import annotations

import numpy as np

from marginboost.estimators.base import regression_eval_set
from marginboost.estimators.failed_fit import unfitted_on_failure
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.multiclass import one_vs_rest, per_class
from marginboost.estimators.sample_weights import positive_weights
from marginboost.functional.losses import loss_probability

__all__ = ["LossClassifierMixin", "LossRegressorMixin"]


class LossRegressorMixin:
    """``fit``, ``predict`` and ``staged_predict`` of a loss-fitting regressor."""

    @unfitted_on_failure
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit on ``(X, y)``, ``y`` real (NaN rejected); ``sample_weight`` scales each example's loss
        (examples of weight 0 are left out). ``eval_set = (X_val, y_val)``: the held-out set of
        ``early_stopping``."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        X, y, s = positive_weights(sample_weight, X, np.asarray(y, dtype=np.float64), by_mean=True)
        return self._boost(X, y, s, regression_eval_set(self, eval_set))

    def predict(self, X) -> np.ndarray:
        """``F(x)``, the fitted model (see the class)."""
        return self._decision(X)

    def staged_predict(self, X):
        """Yield ``F_t(X)`` after every round ``t = 1, ..., n_iter_``."""
        yield from self._staged(X)


class LossClassifierMixin:
    """``fit``, ``decision_function``, ``staged_decision_function`` and the probability link of a
    loss-fitting classifier (labels in {-1, +1}); put before
    :class:`~marginboost.estimators.binary.BinaryClassifierMixin`."""

    @one_vs_rest
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit on ``(X, y)``; more than two classes in ``y``: one model per class (one-vs-rest).
        ``sample_weight`` scales each example's loss (examples of weight 0 are left out);
        ``eval_set = (X_val, y_val)``: the held-out set of ``early_stopping``."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        _, y_pm = self._binary_targets(y)
        X, y_pm, s = positive_weights(sample_weight, X, y_pm, check=self._two_classes_left, by_mean=True)
        return self._boost(X, y_pm, s, self._binary_eval_set(eval_set))

    def _probability_link(self):
        return loss_probability(self.loss)

    @per_class
    def decision_function(self, X) -> np.ndarray:
        """``F(x)``; positive means ``classes_[1]``."""
        return self._decision(X)

    @per_class
    def staged_decision_function(self, X):
        """Yield ``F_t(X)`` after every round ``t = 1, ..., n_iter_``."""
        yield from self._staged(X)
