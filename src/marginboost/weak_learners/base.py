"""The weak-learner contract: the linear minimisation oracle of boosting as Frank-Wolfe.

A boosting round hands the weak learner a distribution ``d`` over the ``m`` training
examples and asks for a hypothesis ``h`` with a large *edge*

    edge(h; d) = sum_i d_i * y_i * h(x_i)            (paper 000, section 2.1)

Over the hypothesis class H this is the Frank-Wolfe linear step (000, section 4.1).

The contract has three parts, split so that parameters, per-fit state and fitted
hypotheses never mix (the scikit-learn way):

* :class:`WeakLearner` holds parameters only (e.g. ``max_depth``) and is cheap to copy.
* :meth:`WeakLearner.prepare` binds it to one training sample ``(X, y)`` and returns an
  :class:`EdgeOracle`; this is where work done once per fit lives (presorting features).
* ``oracle(d)`` returns a :class:`Hypothesis` and its predictions on the training sample,
  so that the booster never has to re-evaluate it on ``X``.

``y`` is always a float64 array with values in {-1, +1}; ``d`` a float64 array of length m,
non-negative, summing to one. ``X`` has no infinity, and no NaN unless the learner declares
``allow_nan``.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class Hypothesis(ABC):
    """A fitted weak hypothesis h: X -> [-1, +1]."""

    @abstractmethod
    def predict(self, X: np.ndarray) -> np.ndarray:
        """Return h(X) as a float64 array of shape (n,) with values in [-1, +1]."""


class EdgeOracle(ABC):
    """A weak learner bound to one training sample; call it with a distribution."""

    @abstractmethod
    def __call__(self, d: np.ndarray) -> tuple[Hypothesis, np.ndarray]:
        """Return ``(h, h(X_train))`` with h maximising (or approximately maximising) the edge."""


class WeakLearner(ABC):
    """Parameters of a weak learner; :meth:`prepare` binds it to a sample.

    ``allow_nan``: whether it takes missing values (NaN) in X, in :meth:`prepare` and in its
    hypotheses' ``predict``; the estimators refuse X with NaN for a learner that does not, and
    declare scikit-learn's ``allow_nan`` tag after it. Infinities are never taken.

    ``allow_categorical``: whether :meth:`prepare` takes category codes in the columns that a
    :class:`.categorical.CategoricalMatrix` marks (the estimators refuse categorical features for a
    learner that does not, naming it).
    """

    allow_nan = False
    allow_categorical = False

    @abstractmethod
    def prepare(self, X: np.ndarray, y: np.ndarray) -> EdgeOracle:
        """Do the per-fit work (e.g. presorting) and return an oracle for this sample."""
