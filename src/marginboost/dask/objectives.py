"""The soft-margin objectives of paper 000 over margins kept on the Dask workers.

:class:`DistributedSmoothedSoftMargin` and :class:`DistributedSoftMargin` are
:class:`~marginboost.soft_margin.objectives.SmoothedSoftMargin` and
:class:`~marginboost.soft_margin.objectives.SoftMargin` (same formulas, same interface: the loop,
the Frank-Wolfe rules and :func:`~marginboost.core.line_search.newton_line_search` call them
unchanged) for :class:`~marginboost.dask.rows.RowVector` margins: the projection and the soft
margin are the distributed selections of :mod:`marginboost.dask.selection`, the sums are taken
per block on the workers and added here in block order. ``weights`` is a RowVector of example
weights of mean 1, or None.
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from marginboost.core.projections import slope_curvature_sums
from marginboost.dask.rows import RowVector
from marginboost.dask.selection import SearchHint, distributed_kl_projection, distributed_soft_margin
from marginboost.soft_margin.objectives import SmoothedSoftMargin, SoftMargin

__all__ = ["DistributedSmoothedSoftMargin", "DistributedSoftMargin"]


class DistributedSoftMargin(SoftMargin):
    """``rho(q)``, the mean of the ``nu`` smallest margins, for margins on the workers of ``layout``.
    ``known``: soft margins already found (a mapping from margin vectors, held weakly), as the
    smoothed objective's projections find them (the loop reports ``rho`` of margins it projected)."""

    def __init__(self, nu: float, weights: RowVector | None, layout, known=None):
        super().__init__(nu, weights)
        self.layout = layout
        self._known_values = weakref.WeakKeyDictionary() if known is None else known

    def value(self, q: RowVector) -> float:
        known = self._known_values.get(q)
        if known is None:
            known = self._known_values[q] = distributed_soft_margin(q, self.nu, self.weights)
        return known

    def distribution(self, q):
        raise NotImplementedError("the soft margin's minimiser d is LPBoost's, whose LP over all m rows a fit on "
                                  "a cluster does not solve")

    def start_distribution(self, m: int) -> RowVector:
        """``d_0``: uniform, or ``weights / m``."""
        return self.layout.full(1.0 / m) if self.weights is None else self.weights * (1.0 / m)

    def hard(self) -> "DistributedSoftMargin":
        return DistributedSoftMargin(self.nu, self.weights, self.layout, self._known_values)


def _block_caps(s, nu):
    return np.empty(0) if s is None else s / nu


def _sums_block(d, delta, s, nu):
    return slope_curvature_sums(d, delta, 1.0 / nu, _block_caps(s, nu), s is not None)


def _axpy(q, lam, delta):
    return q + lam * delta


def _entropy_block(d, q, s):
    """``(d @ q, sum d ln d, sum d ln s)`` of a block (``0 ln 0 = 0``)."""
    positive = d > 0.0
    dl = float(np.dot(d[positive], np.log(d[positive])))
    return float(np.dot(d, q)), dl, 0.0 if s is None else float(np.dot(d, np.log(s)))


class DistributedSmoothedSoftMargin(SmoothedSoftMargin):
    """``rho~(q)`` and its distribution (the capped-simplex KL projection) for margins on the workers
    of ``layout``."""

    def __init__(self, nu: float, eta: float, weights: RowVector | None, layout):
        super().__init__(nu, eta, weights)
        self.layout = layout
        self._hint = SearchHint()
        self._soft_margins = weakref.WeakKeyDictionary()  # rho(q) of the margins projected, for hard()

    def distribution(self, q: RowVector) -> RowVector:
        d, value, _, self._soft_margins[q] = distributed_kl_projection(q, self.nu, self.eta, self.weights,
                                                                       hint=self._hint, soft_margin=True)
        self._known = (q, d, value)
        return d

    def value_at(self, q: RowVector, d: RowVector) -> float:
        known = self._known
        if known is not None and known[0] is q and known[1] is d:
            return known[2]
        parts = q.layout.reduce(_entropy_block, d, q, self.weights)
        dq, dlogd, dlogs = (math.fsum(p[i] for p in parts) for i in range(3))
        return float(dq + (dlogd + math.log(q.layout.m) - dlogs) / self.eta)

    def slope_curvature(self, d: RowVector, delta: RowVector) -> tuple[float, float]:
        parts = d.layout.reduce(_sums_block, d, delta, self.weights, self.nu)
        return self._slope_curvature(tuple(float(sum(p[i] for p in parts)) for i in range(4)))

    def distribution_along(self, q: RowVector, lam: float, delta: RowVector):
        # (made where it is used: the search's first pass makes the margins itself, and a point the
        # line search does not take never needs them)
        layout = q.layout
        q_lam = layout.lazy(_axpy, q, lam, delta)
        d_lam, value, sums, self._soft_margins[q_lam] = distributed_kl_projection(
            q_lam, self.nu, self.eta, self.weights, delta, self._hint, soft_margin=True, shift=(q, lam))
        self._known = (q_lam, d_lam, value)
        return (q_lam, d_lam) + self._slope_curvature(sums)

    start_distribution = DistributedSoftMargin.start_distribution

    def hard(self) -> DistributedSoftMargin:
        """The soft margin, which knows ``rho`` of the margins this objective projected."""
        return DistributedSoftMargin(self.nu, self.weights, self.layout, self._soft_margins)
