"""Loss functions for FWBoost (Wang, Wang, E, Schapire 2015, "Functional Frank-Wolfe Boosting
for General Loss Functions", arXiv 1510.02558; cited as 001 below).

FWBoost minimises the weighted empirical risk of the ensemble's outputs ``F = (F(x_1), ...,
F(x_m))`` over an l1 ball (001 eq. 2-3)::

    L(F) = sum_i p_i l(F_i, y_i),        p_i = s_i / sum_j s_j   (uniform p_i = 1/m by default)

The loop needs only three things from a loss, its *protocol*:

* ``value(F, y, sample_weight=None) -> float``: ``L(F)``;
* ``gradient(F, y, sample_weight=None) -> ndarray``: ``grad L(F)``, i.e. ``p_i l'(F_i, y_i)``;
* ``smoothness(y, lo, hi, sample_weight=None) -> float``: a constant ``C`` with
  ``||grad L(F) - grad L(G)||_2 <= C ||F - G||_2`` for all ``F, G`` in the box ``[lo, hi]^m``.
  FWBoost's iterates stay in ``[offset - beta, offset + beta]^m`` (Hoelder: ``|F(x)| <=
  ||w||_1 max_h |h(x)| <= beta``), so this is the constant of 001's Assumption 1 on the
  feasible set. ``inf`` marks a non-smooth loss (only the classic step may be used then).

and, optionally, ``kind``: ``'classification'`` if ``y`` must lie in {-1, +1}, and
``probability(F)``: the probability of ``y = +1`` that a score ``F`` stands for, where the loss
is minimised in expectation by a known link of it (the classifiers' ``predict_proba`` exists
only then): ``sigmoid(F)`` for the logistic loss (F the log-odds), ``sigmoid(2F)`` for the
exponential loss (its minimiser is half the log-odds; Friedman, Hastie, Tibshirani 2000).

A loss is a :class:`Loss`, which declares the three methods and the optional parts' defaults
(``name``: the class name, ``kind = 'any'``, ``probability = None``); the loops call these and
nothing else. An object of another class with the three methods (a user's loss written to this
protocol) is adapted by :func:`resolve_loss` (:class:`ProtocolLoss`). :class:`PointwiseLoss`
derives all three from the per-example ``l``, ``l'`` and an upper bound on ``l''``; the
built-in losses below are its subclasses, with ``r = F - y`` and margin ``z = y F``:

===========  ===================================  ===========================  ==================================
name         l(F, y)                              l'(F, y)                     sup l'' on F in [lo, hi]
===========  ===================================  ===========================  ==================================
squared      ``r^2 / 2``                          ``r``                        1
huber        ``r^2/2`` if ``|r| <= delta``,       ``clip(r, -delta, delta)``   1 if ``[lo, hi]`` meets
             ``delta (|r| - delta/2)`` otherwise                               ``(y - delta, y + delta)``, else 0
absolute     ``|r|``                              ``sign(r)`` (a subgradient)  inf (non-smooth)
exponential  ``exp(-z)``                          ``-y exp(-z)``               ``exp(max(-y lo, -y hi))``
logistic     ``log(1 + exp(-z))``                 ``-y sigmoid(-z)``           ``max sigma(z)(1 - sigma(z))``,
                                                                               ``z = y F``, ``F in [lo, hi]``
===========  ===================================  ===========================  ==================================

001 (section 3.4) gives the same bounds: 2 for ``(F - y)^2``, ``e^beta`` for the exponential
and ``1/4`` for the logistic loss. For the absolute loss ``gradient`` returns a subgradient:
the FW gap built from it still bounds ``L(F) - L*`` (convexity), but FW has no rate there.
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod

import numpy as np
from scipy.special import expit

from marginboost.core.example_vectors import ExampleVector

__all__ = [
    "AbsoluteLoss",
    "ExponentialLoss",
    "HuberLoss",
    "LOSSES",
    "LogisticLoss",
    "Loss",
    "PointwiseLoss",
    "ProtocolLoss",
    "SquaredLoss",
    "check_targets",
    "loss_probability",
    "resolve_loss",
]


def _probabilities(y: np.ndarray, sample_weight) -> np.ndarray:
    if sample_weight is None:
        return np.full(y.shape[0], 1.0 / y.shape[0])
    s = np.asarray(sample_weight, dtype=np.float64)
    return s / s.sum()


class Loss(ABC):
    """Base of every loss (module docstring): ``value``, ``gradient`` and ``smoothness`` to write,
    ``name``, ``kind`` and ``probability`` with defaults."""

    kind = "any"  # 'classification': y must be in {-1, +1}
    # F -> P(y = +1 | F) where the loss is minimised in expectation by a known link of it, else None
    probability = None

    @property
    def name(self) -> str:
        """The loss in messages (``loss='...'``): the class name, unless a subclass sets ``name``."""
        return type(self).__name__

    @abstractmethod
    def value(self, F, y, sample_weight=None) -> float:
        """``L(F) = sum_i p_i l(F_i, y_i)``, ``p = s / sum s`` (uniform without weights)."""

    @abstractmethod
    def gradient(self, F, y, sample_weight=None) -> np.ndarray:
        """``grad L(F)``, i.e. ``p_i l'(F_i, y_i)`` (a subgradient where ``l`` is not differentiable)."""

    @abstractmethod
    def smoothness(self, y, lo, hi, sample_weight=None) -> float:
        """A constant ``C`` with ``||grad L(F) - grad L(G)||_2 <= C ||F - G||_2`` on the box
        ``[lo, hi]^m`` (001, Assumption 1); ``inf`` for a non-smooth loss."""


class ProtocolLoss(Loss):
    """A user's loss of another class with ``value``, ``gradient`` and ``smoothness`` (and, if it
    likes, ``name``, ``kind``, ``probability``): those it has, the defaults of :class:`Loss` for
    the rest. Read once, here, so that the loops call the base's interface and probe nothing."""

    def __init__(self, loss):
        self.loss = loss
        self._name = getattr(loss, "name", type(loss).__name__)
        self.kind = getattr(loss, "kind", Loss.kind)
        self.probability = getattr(loss, "probability", Loss.probability)

    @property
    def name(self) -> str:
        """The wrapped loss's ``name``, or its class name."""
        return self._name

    def value(self, F, y, sample_weight=None) -> float:
        """The wrapped loss's ``value``."""
        return self.loss.value(F, y, sample_weight)

    def gradient(self, F, y, sample_weight=None) -> np.ndarray:
        """The wrapped loss's ``gradient``."""
        return self.loss.gradient(F, y, sample_weight)

    def smoothness(self, y, lo, hi, sample_weight=None) -> float:
        """The wrapped loss's ``smoothness``."""
        return self.loss.smoothness(y, lo, hi, sample_weight)

    def __repr__(self) -> str:
        return f"ProtocolLoss({self.loss!r})"


class PointwiseLoss(Loss):
    """A loss given per example; builds ``value``, ``gradient`` and ``smoothness`` of ``L``.

    ``L(F) = p @ l(F, y)``, ``grad L(F) = p * l'(F, y)``; the Hessian is ``diag(p * l'')``,
    so ``C = max_i p_i sup_{F in [lo, hi]} l''(F, y_i)``.
    """

    name = "pointwise"

    @abstractmethod
    def pointwise(self, F: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``l(F_i, y_i)`` for every example."""

    @abstractmethod
    def derivative(self, F: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``dl/dF (F_i, y_i)`` for every example (a subgradient where l is not differentiable)."""

    @abstractmethod
    def curvature(self, y: np.ndarray, lo: float, hi: float) -> np.ndarray:
        """Per example, an upper bound on ``d^2 l / dF^2`` over ``F in [lo, hi]`` (inf if none)."""

    def value(self, F, y, sample_weight=None) -> float:
        """``L(F) = sum_i p_i l(F_i, y_i)`` with ``p = s / sum s`` (uniform without weights)."""
        return float(_probabilities(y, sample_weight) @ self.pointwise(F, y))

    def gradient(self, F, y, sample_weight=None) -> np.ndarray:
        """``grad L(F)_i = p_i l'(F_i, y_i)``."""
        return _probabilities(y, sample_weight) * self.derivative(F, y)

    def smoothness(self, y, lo, hi, sample_weight=None) -> float:
        """``C = max_i p_i sup_{F in [lo, hi]} l''(F, y_i)``: the l2 Lipschitz constant of ``grad L`` on the box."""
        curv = np.broadcast_to(self.curvature(y, lo, hi), y.shape)
        return float(np.max(_probabilities(y, sample_weight) * curv))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class SquaredLoss(PointwiseLoss):
    """``l = (F - y)^2 / 2``: the negative gradient is the residual ``y - F`` (times p_i)."""

    name = "squared"

    def pointwise(self, F, y):
        return 0.5 * (F - y) ** 2

    def derivative(self, F, y):
        return F - y

    def curvature(self, y, lo, hi):
        return np.ones_like(y)


class HuberLoss(PointwiseLoss):
    """Huber's loss: quadratic for ``|F - y| <= delta``, linear (slope delta) beyond."""

    name = "huber"

    def __init__(self, delta: float = 1.0):
        if not (isinstance(delta, numbers.Real) and delta > 0 and np.isfinite(delta)):
            raise ValueError(f"delta must be a finite number > 0, got delta={delta!r}")
        self.delta = float(delta)

    def pointwise(self, F, y):
        # b (a - b/2) with b = min(a, delta): a^2/2 up to delta, delta (a - delta/2) beyond, without
        # squaring the residuals of the linear part (a^2 overflows for a > 1.3e154 where the loss does not)
        a = np.abs(F - y)
        b = np.minimum(a, self.delta)
        return b * (a - 0.5 * b)

    def derivative(self, F, y):
        return np.clip(F - y, -self.delta, self.delta)

    def curvature(self, y, lo, hi):
        # l'' = 1 exactly on the open interval (y - delta, y + delta), 0 elsewhere.
        return ((y - self.delta < hi) & (y + self.delta > lo)).astype(np.float64)

    def __repr__(self) -> str:
        return f"HuberLoss(delta={self.delta!r})"


class AbsoluteLoss(PointwiseLoss):
    """``l = |F - y|``; non-smooth, so ``smoothness`` is inf and only the classic step applies."""

    name = "absolute"

    def pointwise(self, F, y):
        return np.abs(F - y)

    def derivative(self, F, y):
        return np.sign(F - y)

    def curvature(self, y, lo, hi):
        return np.full_like(y, np.inf)


class ExponentialLoss(PointwiseLoss):
    """``l = exp(-y F)`` (AdaBoost's loss), ``y in {-1, +1}``."""

    name = "exponential"
    kind = "classification"

    def pointwise(self, F, y):
        return np.exp(-y * F)

    def derivative(self, F, y):
        return -y * np.exp(-y * F)

    def curvature(self, y, lo, hi):
        with np.errstate(over="ignore"):  # beyond exp's range the bound is inf: not smooth there
            return np.exp(np.maximum(-y * lo, -y * hi))

    @staticmethod
    def probability(F):
        """``P(y = +1 | F) = sigmoid(2F)``: the exponential loss is minimised at half the log-odds."""
        return expit(2.0 * F)


class LogisticLoss(PointwiseLoss):
    """``l = log(1 + exp(-y F))``, ``y in {-1, +1}``."""

    name = "logistic"
    kind = "classification"

    def pointwise(self, F, y):
        return np.logaddexp(0.0, -y * F)

    def derivative(self, F, y):
        return -y * expit(-y * F)

    def curvature(self, y, lo, hi):
        # sigma(z)(1 - sigma(z)) peaks at z = 0; over z = y F, F in [lo, hi], take the z closest to 0.
        z_lo, z_hi = np.minimum(y * lo, y * hi), np.maximum(y * lo, y * hi)
        z = np.clip(0.0, z_lo, z_hi)
        sig = expit(z)
        return sig * (1.0 - sig)

    @staticmethod
    def probability(F):
        """``P(y = +1 | F) = sigmoid(F)``: ``F`` is the log-odds."""
        return expit(F)


LOSSES = {cls.name: cls for cls in (SquaredLoss, HuberLoss, AbsoluteLoss, ExponentialLoss, LogisticLoss)}


def resolve_loss(spec) -> Loss:
    """A loss name of :data:`LOSSES` -> a new instance; a :class:`Loss` -> itself; an object of
    another class with ``value``, ``gradient`` and ``smoothness`` -> a :class:`ProtocolLoss`
    (kept rather than refused: that protocol was the documented contract before the base)."""
    if isinstance(spec, str):
        if spec in LOSSES:
            return LOSSES[spec]()
    elif isinstance(spec, Loss):
        return spec
    elif all(callable(getattr(spec, name, None)) for name in ("value", "gradient", "smoothness")):
        return ProtocolLoss(spec)
    raise ValueError(
        f"loss must be one of {sorted(LOSSES)} or an object with value, gradient and smoothness "
        f"methods (see marginboost.functional.losses); got loss={spec!r}"
    )


def loss_probability(spec):
    """The ``probability`` map of a loss (a name of :data:`LOSSES` or a loss object), or None:
    also for a spec that names no loss, so that ``hasattr(est, 'predict_proba')`` says no where
    ``fit`` would raise."""
    try:
        return resolve_loss(spec).probability
    except ValueError:
        return None


def check_targets(loss, y: np.ndarray) -> None:
    """Raise ``ValueError`` naming ``loss`` (a loss or its name, :func:`resolve_loss`) when a
    classification loss meets other targets."""
    loss = resolve_loss(loss)
    if isinstance(y, ExampleVector):
        return  # labels kept on a cluster's workers: made in {-1, +1} by its data checks (marginboost.dask.data)
    if loss.kind == "classification" and not np.all(np.abs(y) == 1.0):
        raise ValueError(
            f"loss={loss.name!r} is a classification loss: it needs targets in "
            "{-1, +1}, but y holds other (continuous) values; use a regression loss "
            f"({', '.join(n for n, c in LOSSES.items() if c.kind != 'classification')}) "
            "or FWBoostClassifier"
        )
