"""GBM and FWBoost on a Dask cluster: the in-memory loops, their per-example vectors on the workers.

:class:`DistributedGBMLoop` and :class:`DistributedFWBoostLoop` are
:class:`~marginboost.functional.gbm.GBMLoop` and :class:`~marginboost.functional.fwboost.FWBoostLoop`
(the same rounds, the same formulas: :mod:`marginboost.functional.gbm`,
:mod:`marginboost.functional.fwboost`) run with :class:`~marginboost.dask.rows.RowVector`
vectors: ``F``, the ensemble's sum ``Z``, the negative gradient ``r`` (GBM) or ``g`` (FWBoost),
the training predictions and FWBoost's atoms stay on the workers; the client holds the
hypotheses, the weights and each round's scalars.

The loss (:class:`DistributedLoss`, a pointwise loss: squared or logistic) is evaluated block by
block on the workers: ``L(F) = sum_i p_i l(F_i, y_i)`` with ``p = s / sum s`` (``1/m`` without
weights) as a sum of one number per block, added here in block order, its gradient ``p_i
l'(F_i, y_i)`` and curvature as vectors. What a round needs together comes in one task per block:
GBM's ``L(F)`` and whether every ``F_i`` is finite, FWBoost's ``L(F)`` and whether ``g`` has a
nonzero entry. The rest are the loops' own: the weak learners' histograms (one task per block
and tree level), FWBoost's line search (one reduction per point tried) and its atoms' digests.

GBM's initial constant comes from one reduction, ``(sum s y, sum s, sum_{y > 0} s, sum_{y < 0} s)``:
the weighted mean (squared loss) or ``log(P+ / P-)`` (logistic); its Newton leaves (``leaf_update
= 'newton'``, :func:`~marginboost.functional.gbm.newton_leaf_values`) from the per-leaf sums of
``s r`` and ``s l''``, one task per block walking the tree over the codes. FWBoost's offset, the
best constant, is :func:`~marginboost.functional.fwboost.best_constant`'s root search, one
reduction per slope.

Row subsampling (GBM's ``subsample < 1``) draws rows by their index among all m, which a fit on a
cluster does not gather: it is refused by the estimators (:mod:`marginboost.dask.loss_estimators`).
"""
from __future__ import annotations

import numpy as np

from marginboost.dask.margin_matrix import DistributedMarginMatrix
from marginboost.dask.rows import RowVector
from marginboost.functional.fwboost import FWBoostLoop, best_constant, checked_fwboost_problem
from marginboost.functional.gbm import GBMLoop, newton_leaf_values
from marginboost.functional.losses import Loss, LogisticLoss, PointwiseLoss, SquaredLoss
from marginboost.weak_learners.regression import RegressionStump

__all__ = ["DistributedFWBoostLoop", "DistributedGBMLoop", "DistributedLoss", "EdgeOracleOfGradient",
           "distributed_fwboost_loop"]


def _p(s, total: float, y):
    """A block's ``p_i = s_i / sum s`` (``1 / m`` without weights), as the in-memory losses form it."""
    return np.full(y.shape[0], 1.0 / total) if s is None else s / total


def _value_block(loss, F, y, s, total, g):
    """The block's share of ``L(F)``, whether its ``F_i`` are all finite, and (with ``g``) whether
    ``g`` has a nonzero entry there."""
    with np.errstate(over="ignore", invalid="ignore"):  # the loops test the value
        value = float(_p(s, total, y) @ loss.pointwise(F, y))
    return value, bool(np.all(np.isfinite(F))), g is not None and bool(np.any(g))


def _gradient_block(loss, F, y, s, total):
    with np.errstate(over="ignore", invalid="ignore"):
        return _p(s, total, y) * loss.derivative(F, y)


def _curvature_block(loss, y, lo, hi):
    return np.broadcast_to(loss.curvature(y, lo, hi), y.shape).astype(np.float64)


def _smoothness_block(loss, y, lo, hi, s, total):
    curvature = _curvature_block(loss, y, lo, hi)
    return float(np.max(_p(s, total, y) * curvature)) if y.shape[0] else 0.0


def _constant_sums(y, s):
    """``(sum s y, sum s, sum_{y > 0} s, sum_{y < 0} s)`` of a block (``s`` None: ones)."""
    s = np.ones_like(y) if s is None else s
    return float(s @ y), float(s.sum()), float(s[y > 0].sum()), float(s[y < 0].sum())


class DistributedLoss(Loss):
    """The pointwise ``loss`` (:class:`~marginboost.functional.losses.PointwiseLoss`) for vectors on
    the workers of ``layout``, with the example weights ``weights`` (a RowVector, or None: uniform)
    fixed: the loops pass them back as ``sample_weight``, which must be these."""

    def __init__(self, loss: PointwiseLoss, weights: RowVector | None, layout):
        self.loss, self.weights, self.layout = loss, weights, layout
        self.kind, self.probability = loss.kind, loss.probability
        self.total = float(layout.m) if weights is None else weights.sum()

    @property
    def name(self) -> str:
        """The wrapped loss's name."""
        return self.loss.name

    def _weights(self, sample_weight):
        if sample_weight is not self.weights:
            raise ValueError("a DistributedLoss takes the sample weights it was made with")
        return sample_weight

    def value_and_checks(self, F: RowVector, y: RowVector, sample_weight=None, g: RowVector | None = None):
        """``(L(F), every F_i finite, g has a nonzero entry)`` in one task per block."""
        parts = self.layout.reduce(_value_block, self.loss, F, y, self._weights(sample_weight), self.total, g)
        value = 0.0
        for part in parts:
            value += part[0]
        return value, all(part[1] for part in parts), any(part[2] for part in parts)

    def value(self, F, y, sample_weight=None) -> float:
        """``L(F) = sum_i p_i l(F_i, y_i)``, a number per block added in block order."""
        return self.value_and_checks(F, y, sample_weight)[0]

    def gradient(self, F, y, sample_weight=None) -> RowVector:
        """``p_i l'(F_i, y_i)`` on the workers."""
        return self.layout.vector(_gradient_block, self.loss, F, y, self._weights(sample_weight), self.total)

    def curvature(self, y, lo, hi) -> RowVector:
        """The wrapped loss's bound on ``l''`` per example (``lo``, ``hi`` numbers or vectors) on the workers."""
        return self.layout.vector(_curvature_block, self.loss, y, lo, hi)

    def smoothness(self, y, lo, hi, sample_weight=None) -> float:
        """``max_i p_i sup_{[lo, hi]} l''(F, y_i)``, as :meth:`PointwiseLoss.smoothness`."""
        parts = self.layout.reduce(_smoothness_block, self.loss, y, lo, hi, self._weights(sample_weight), self.total)
        return float(max(parts))

    def initial_constant(self, y) -> float:
        """GBM's ``F_0`` (:func:`marginboost.functional.gbm.initial_constant`) for the squared and
        logistic losses, from one reduction."""
        sums = self.layout.reduce(_constant_sums, y, self.weights)
        sy, ss, positive, negative = (sum(part[k] for part in sums) for k in range(4))
        if isinstance(self.loss, SquaredLoss):
            return sy / ss
        if isinstance(self.loss, LogisticLoss):
            return float(np.log(positive) - np.log(negative))
        raise ValueError(f"loss={self.loss.name!r}: a fit on a cluster takes the losses 'squared' and 'logistic'")

    def __repr__(self) -> str:
        return f"DistributedLoss({self.loss!r})"


class DistributedGBMLoop(GBMLoop):
    """:class:`~marginboost.functional.gbm.GBMLoop` on a cluster (module docstring): ``oracle`` the
    least-squares histogram oracle over ``data.sample``
    (:class:`~marginboost.weak_learners.histogram_regression.HistogramLeastSquaresOracle`),
    ``data`` a :class:`~marginboost.dask.data.TrainingData`, every row in bag."""

    def __init__(self, oracle, data, loss: PointwiseLoss, learning_rate: float, leaf_update: str):
        s = data.layout.full(1.0) if data.weights is None else data.weights  # GBMLoop's s: ones without weights
        super().__init__(None, None, DistributedLoss(loss, s, data.layout), data.y, s, learning_rate, 1.0,
                         leaf_update, None, oracle=oracle)
        self.sample = data.sample

    def _initial_constant(self) -> float:
        return self.loss.initial_constant(self.y)

    def _value_and_finite(self, F) -> tuple[float, bool]:
        value, finite, _ = self.loss.value_and_checks(F, self.y, self.s)
        return value, finite

    def _newton_leaves(self, h, r, s_fit, curvature):
        """The Newton leaves from the sums over the nodes of the tree just fitted (its routing of the
        codes); a stump's nodes (0 alone, or 1 and 2) folded onto its leaf ids (0 left, 1 right)."""
        routing = self.oracle.last_routing
        num, den = self.sample.tree_node_sums(routing, s_fit * r, s_fit * curvature)
        stump = isinstance(h, RegressionStump)
        if stump:
            num, den = (np.concatenate([[0.0], a]) if a.shape[0] == 1 else a[1:] for a in (num, den))
        h, gamma = newton_leaf_values(h, num, den)
        if stump:  # the stump's values at its tree nodes
            gamma = gamma[1:] if routing[0].shape[0] == 1 else np.concatenate([[0.0], gamma])
        return h, self.sample.tree_predictions(routing, gamma)


class EdgeOracleOfGradient:
    """FWBoost_C's oracle (:func:`marginboost.functional.fwboost.classifier_oracle`) on a cluster:
    the histogram edge learner ``edge_oracle``, made with labels 1, called at ``g / sum |g|``
    (its hypotheses take values +-1, so the in-memory check of ``|h(x)| <= 1`` holds)."""

    def __init__(self, edge_oracle):
        self.edge_oracle = edge_oracle

    def __call__(self, g: RowVector):
        h, out = self.edge_oracle(g / abs(g).sum())
        return h, out, 1.0


class DistributedFWBoostLoop(FWBoostLoop):
    """:class:`~marginboost.functional.fwboost.FWBoostLoop` on a cluster (module docstring)."""

    def _gradient_and_value(self, F):
        g = -self.loss.gradient(F, self.y, self.s)
        value, _, moves = self.loss.value_and_checks(F, self.y, self.s, g)
        return g, value, moves


def distributed_fwboost_loop(lmo, loss: PointwiseLoss, data, beta: float, constant: bool, step: str,
                             away_steps: bool, tol: float) -> DistributedFWBoostLoop:
    """:func:`marginboost.functional.fwboost.fwboost_loop` on the :class:`~marginboost.dask.data.TrainingData`
    ``data`` (its weights, or none), checked as there; the offset is the best constant
    (:func:`~marginboost.functional.fwboost.best_constant`) where ``constant``, else 0."""
    distributed = DistributedLoss(loss, data.weights, data.layout)
    offset = best_constant(distributed, data.y, data.weights) if constant else 0.0
    _, smooth = checked_fwboost_problem(distributed, data.y, beta, data.weights, offset, step)
    return DistributedFWBoostLoop(lmo, distributed, data.y, beta, data.weights, offset, step, away_steps, tol, smooth,
                                  atoms=DistributedMarginMatrix(data.layout))
