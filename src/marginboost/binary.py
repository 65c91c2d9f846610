"""What every binary classifier of the package shares: labels to {-1, +1}, the sign rule, staging.

Every booster here works with labels ``y in {-1, +1}`` (design.md): ``classes_[1]`` is +1,
``decision_function(X) > 0`` predicts it and anything else (ties included) ``classes_[0]``.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .ensemble_outputs import output_matrix


def check_two_classes(n_classes: int, where: str) -> None:
    """Refuse anything but two classes, naming where they were counted."""
    if n_classes != 2:
        raise ValueError(
            f"Only binary classification is supported: y must contain exactly two classes, "
            f"got {n_classes} {'class' if n_classes == 1 else 'classes'} ({where})"
        )


def hypothesis_outputs(est, X) -> np.ndarray:
    """``(n, t)`` matrix of ``h_j(X)`` over the fitted ``est.hypotheses_``, after the usual checks."""
    check_is_fitted(est)
    return output_matrix(est.hypotheses_, validate_data(est, X, dtype=np.float64, reset=False))


class BinaryClassifierMixin:
    """Put before :class:`sklearn.base.ClassifierMixin`; the class supplies
    ``decision_function`` (and ``staged_decision_function`` if it stages)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _binary_targets(self, y) -> tuple[np.ndarray, np.ndarray]:
        """Set ``classes_``; return the class index (0/1) and the labels in {-1, +1} of ``y``."""
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        check_two_classes(self.classes_.shape[0], f"labels found: {self.classes_.tolist()[:10]}")
        return y_index, np.where(y_index == 1, 1.0, -1.0)

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where ``decision_function > 0``, else ``classes_[0]``."""
        score = self.decision_function(X)
        return self.classes_[(score > 0).astype(int)]

    def staged_predict(self, X):
        """Yield the predictions after every round (those of ``staged_decision_function``)."""
        for score in self.staged_decision_function(X):
            yield self.classes_[(score > 0).astype(int)]
