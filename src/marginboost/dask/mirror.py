"""Mirror-ascent boosting (paper 002, Algorithm 1) with the distribution and the margins on the Dask workers.

:class:`DistributedMirrorAscentLoop` is :class:`~marginboost.mirror.maboost.MirrorAscentLoop` for
the entropy regulariser, with ``x_t``, ``theta_t`` and the margins ``sum_s eta_s u_s`` kept as
:class:`~marginboost.dask.rows.RowVector` blocks. Round ``t`` (notation of
:mod:`marginboost.mirror.maboost`)::

    h_t = WL(w_t)                                    the histogram learner's passes
    gamma_t = w_t @ u_t, ||x_t||_1, the row's        one task per block, one round trip
        statistics of w_t
    eta_t = step(t, gamma_t, ||x_t||_1)              here, on the client
    theta_{t+1} = ln(x_t / s) - eta_t u_t  (active)  one task per block, one round trip: the new
                = theta_t     - eta_t u_t  (lazy)    blocks stay on the workers, their statistics
    margins += eta_t u_t                             (largest theta, sum of exp, training errors,
                                                     smallest margin) come here
    x_{t+1} = P_K(theta_{t+1})                       no wait (simplex, hypercube), or the
                                                     distributed selection (capped simplex)

with ``u_t = y h_t(X)`` and ``s`` the replication weights (mean 1; 1 without sample weights). The
sets ``K`` (:class:`DistributedProjection`), each the KL projection of
:mod:`marginboost.mirror.bregman` that the in-memory assembly uses:

* ``'simplex'``: ``x = exp(theta + ln s - LSE)``, the log-sum-exp ``LSE`` combined here from
  each block's largest term and its sum of ``exp(theta + ln s - largest)``;
* ``'capped'``: ``P(m, nu)``, ``x_i = min(s_i/nu, s_i exp(theta_i)/Z)``: the distributed
  capped-simplex selection of :mod:`marginboost.dask.selection` on the margins ``-theta`` with
  ``eta = 1`` (:func:`~marginboost.mirror.bregman.kl_capped_simplex_projection`);
* ``'hypercube'``: ``[0, 1]^m`` per copy, ``x = s min(1, exp theta)``, then (MadaBoost's
  second projection, ``normalize``) ``w = x / ||x||_1``, its sum one of the update's statistics.

The sums are each block's in example order, added here in block order: the same bits on every
run; against the in-memory loop they differ in the last bits (a sum split in blocks).

A lost worker: every block of ``x``, ``theta`` and the margins is a task of the last round's
blocks, so Dask recomputes a lost block by replaying the committed rounds from X's graph, and the
fit goes on to the same model (tested). That lineage grows by a few tasks per block and round:
the soft-margin loop cuts its own by recomputing its margins from the margin matrix every 16
rounds, but this loop keeps no margin matrix (it would cost a byte per example and round).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from marginboost.core.rounds import RoundOutcome, Status
from marginboost.dask.rows import RowLayout, RowVector
from marginboost.dask.selection import SearchHint, distributed_kl_projection
from marginboost.mirror.maboost import (MADABOOST_STEPS, NO_EDGE, ZERO_WEIGHTS, AdaBoostStep, EdgeStep,
                                        MaxMarginStep, MirrorAscent, MirrorAscentLoop, _check_learning_rate)

__all__ = ["DASK_VARIANTS", "DistributedMirrorAscentLoop", "DistributedProjection", "dask_adaboost", "dask_maboost",
           "dask_madaboost"]

# MABoost's variants with a cluster fit: their sets are the simplex and P(m, nu). 'combined' needs a
# secondary mask of length m, 'sparse' the l2 regulariser's sort-based projections.
DASK_VARIANTS = ("normal", "maxmargin", "smooth")


@dataclass(frozen=True)
class DistributedProjection:
    """The set ``K`` of an assembly (module docstring): ``kind`` 'simplex', 'capped' (``P(m, nu)``)
    or 'hypercube' (``[0, 1]^m`` per copy)."""

    kind: str
    nu: float | None = None


class _State(NamedTuple):
    """The committed state after ``n`` rounds (never modified once built)."""

    n: int
    x: RowVector  # x_{n+1}
    theta: RowVector  # theta_{n+1}, the lazy update's accumulator (the active one's image of x)
    margins: RowVector  # sum_s eta_s u_s
    total: float  # sum_s eta_s
    mass: float | None  # ||x_{n+1}||_1 where the weak learner gets x / ||x|| (normalize), else None
    min_margin: float  # min_i margins_i / total (inf before the first round)


def _edge_block(x, y, hx, mass):
    """``(sum x, w @ u, sum w ln w over w > 0, max w, #{w = 0})`` of a block, ``w = x / mass``
    (``x`` itself for mass None), ``u = y hx``."""
    w = x if mass is None else x / mass
    positive = w[w > 0.0]
    return (float(x.sum()), float(w @ (y * hx)), float(positive @ np.log(positive)),
            float(w.max()) if w.shape[0] else -np.inf, int(w.shape[0] - positive.shape[0]))


def _update_block(x, theta, margins, y, hx, s, eta, active, kind):
    """The round's update of a block (module docstring): ``(theta, margins, x or None, stats)``,
    the statistics ``(#wrong, min margins, largest theta + ln s, sum exp(theta + ln s - largest))``
    for the simplex, ``(#wrong, min margins, sum x)`` for the hypercube, ``(#wrong, min margins)``
    for the capped simplex."""
    u = y * hx
    if active:
        with np.errstate(divide="ignore"):  # x = 0: theta = -inf, as in memory
            theta = np.log(x if s is None else x / s)
    theta = theta - eta * u
    margins = margins + eta * u
    wrong = int(np.count_nonzero(np.where(y > 0, margins <= 0, margins < 0)))  # f = 0 predicts -1
    stats = (wrong, float(margins.min()) if margins.shape[0] else np.inf)
    x_new = None
    if kind == "simplex":
        z = theta if s is None else theta + np.log(s)
        top = float(z.max()) if z.shape[0] else -np.inf
        stats += (top, float(np.sum(np.exp(z - top))) if np.isfinite(top) else 0.0)
    elif kind == "hypercube":
        x_new = np.exp(np.minimum(theta, 0.0))
        x_new = x_new if s is None else s * x_new
        stats += (float(x_new.sum()),)
    return theta, margins, x_new, stats


def _softmax_block(theta, s, lse):
    z = theta if s is None else theta + np.log(s)
    return np.exp(z - lse)


def _log_sum_exp(tops, sums) -> float:
    """``ln sum_k sums_k exp(tops_k)``, shifted by the largest ``tops_k``."""
    top = max(tops)
    if not np.isfinite(top):
        return float(top)
    return float(top + np.log(sum(s * np.exp(t - top) for t, s in zip(tops, sums))))


class DistributedMirrorAscentLoop(MirrorAscentLoop):
    """:class:`~marginboost.mirror.maboost.MirrorAscentLoop` with the per-example vectors on the
    workers of ``layout`` (module docstring). ``parts`` is a
    :class:`~marginboost.mirror.maboost.MirrorAscent` whose ``project`` is a
    :class:`DistributedProjection` and whose ``x1`` and ``base`` are RowVectors (or ``base`` None)."""

    def __init__(self, oracle, y: RowVector, parts: MirrorAscent, layout: RowLayout):
        self.oracle, self.parts, self.y, self.layout = oracle, parts, y, layout
        self.keep_distributions = False
        self.hypotheses: list = []
        self.coefs: list = []
        self.kept: list = []
        self._hint = SearchHint()

    def _start(self) -> _State:
        x = self.parts.x1
        mass = None
        if self.parts.normalize:
            mass = x.sum()
        theta = x.map(_log_ratio, self.parts.base)
        return _State(0, x, theta, self.layout.full(0.0), 0.0, mass, np.inf)

    def step(self, state, t):
        """Round ``t`` (module docstring)."""
        state = state if state is not None else self._start()
        del self.hypotheses[state.n:], self.coefs[state.n:]  # drop what a rolled-back round added
        parts, layout = self.parts, self.layout
        w = state.x if state.mass is None else state.x / state.mass
        h, hx = self.oracle(w)
        stats = layout.reduce(_edge_block, state.x, self.y, hx, state.mass)
        mass = state.mass if state.mass is not None else float(sum(p[0] for p in stats))
        edge = float(sum(p[1] for p in stats))
        if not edge > 0.0:
            return RoundOutcome(None, stop=Status.NO_PROGRESS, reason=NO_EDGE)
        eta = float(parts.step(t, edge, mass))
        if not eta > 0.0:  # an edge lost in rounding (or a step underflowing): nothing to add either
            return RoundOutcome(None, stop=Status.NO_PROGRESS, reason=NO_EDGE)
        kind = parts.project.kind
        futures = layout.submit(_update_block, state.x, state.theta, state.margins, self.y, hx, parts.base, eta,
                                parts.update == "active", kind)
        theta, margins = (self._item(futures, i) for i in range(2))
        x_new = self._item(futures, 2) if kind == "hypercube" else None
        update = layout.client.gather(self._item(futures, 3).parts)
        total = state.total + eta
        x, next_mass, positive = self._project(kind, theta, x_new, update)
        self.hypotheses.append(h)
        self.coefs.append(eta)
        m = layout.m
        min_margin = min(u[1] for u in update) / total
        row = {"edge": edge, "step": eta, "penalty": 0.0, "mass": mass,
               "train_error": sum(u[0] for u in update) / m, "min_margin": min_margin,
               "entropy": -sum(p[2] for p in stats), "max_weight": max(p[3] for p in stats),
               "n_zero": sum(p[4] for p in stats)}
        stop, reason = (None, None) if positive else (Status.CONVERGED, ZERO_WEIGHTS)
        new = _State(state.n + 1, x, theta, margins, total, next_mass if parts.normalize else None, min_margin)
        return RoundOutcome(row, new, stop=stop, reason=reason)

    def _item(self, futures, i: int) -> RowVector:
        """The vector of item ``i`` of each block's result (tasks on the workers; nothing waits)."""
        client = self.layout.client
        return RowVector(self.layout, [client.submit(operator.getitem, f, i, pure=False) for f in futures])

    def _project(self, kind, theta, x_new, update):
        """``(x_{t+1}, ||x_{t+1}||_1 where the update gave it, whether x_{t+1} has mass)``."""
        if kind == "simplex":
            lse = _log_sum_exp([u[2] for u in update], [u[3] for u in update])
            return theta.map(_softmax_block, self.parts.base, lse), None, bool(np.isfinite(lse))
        if kind == "hypercube":
            mass = float(sum(u[2] for u in update))
            return x_new, mass, mass > 0.0
        d, _, _ = distributed_kl_projection(-theta, self.parts.project.nu, 1.0, self.parts.base, hint=self._hint)
        return d, None, True

    def ensemble(self, state):
        """The hypotheses and steps ``eta_t`` of the model at ``state``; no offset."""
        n = state.n
        return self.hypotheses[:n], np.asarray(self.coefs[:n], dtype=np.float64), 0.0

    def result(self, state, status, rounds):
        """The fit at ``state``; ``final``: the last distribution and the normalised margins as
        RowVectors on the workers, ``min_margin`` the smallest of those."""
        state = state if state is not None else self._start()
        n = state.n
        x = state.x if state.mass is None else state.x / state.mass
        margins = state.margins / state.total if state.total > 0 else state.margins
        return self._fit_result(n, status, rounds, {"distribution": x, "margins": margins,
                                                     "min_margin": state.min_margin if n else 0.0,
                                                     "distributions": None})


def _log_ratio(x, s):
    """``grad R(x / s) = ln(x / s)``, the mirror image per copy (``-inf`` where ``x = 0``)."""
    with np.errstate(divide="ignore"):
        return np.log(x if s is None else x / s)


def _assembly(layout, weights, kind, update, step, nu=None, normalize=False, start=None) -> MirrorAscent:
    """The parts on ``layout``: ``x_1 = s / m`` (the uniform distribution of the copies), or
    ``start`` per copy (MadaBoost's 1); the replication weights ``s`` are ``weights`` (mean 1)."""
    m = layout.m
    per_copy = 1.0 / m if start is None else start
    x1 = layout.full(per_copy) if weights is None else weights * per_copy
    return MirrorAscent("entropy", update, DistributedProjection(kind, nu), step, x1, normalize=normalize,
                        base=weights)


def dask_maboost(layout, update: str = "active", variant: str = "normal", smoothness: float = 0.1,
                 learning_rate: float = 1.0, weights: RowVector | None = None) -> MirrorAscent:
    """:func:`marginboost.mirror.maboost.maboost` with the entropy regulariser on the workers of
    ``layout``: 'normal' and 'maxmargin' on the simplex (``eta_t = gamma_t``, ``/ sqrt t``),
    'smooth' on ``P(m, max(lambda m, 1))``; ``weights``: replication weights of mean 1."""
    if variant not in DASK_VARIANTS:
        raise ValueError(f"variant must be one of {DASK_VARIANTS} for a fit on a cluster, got {variant!r}")
    _check_learning_rate(learning_rate)
    step = MaxMarginStep(1.0, learning_rate) if variant == "maxmargin" else EdgeStep(1.0, learning_rate)
    if variant == "smooth":
        return _assembly(layout, weights, "capped", update, step, nu=max(smoothness * layout.m, 1.0))
    return _assembly(layout, weights, "simplex", update, step)


def dask_adaboost(layout, learning_rate: float = 1.0, weights: RowVector | None = None) -> MirrorAscent:
    """:func:`marginboost.mirror.maboost.adaboost` on the workers of ``layout``."""
    _check_learning_rate(learning_rate)
    return _assembly(layout, weights, "simplex", "active", AdaBoostStep(learning_rate))


def dask_madaboost(layout, step: str = "paper", learning_rate: float = 1.0,
                   weights: RowVector | None = None) -> MirrorAscent:
    """:func:`marginboost.mirror.maboost.madaboost` on the workers of ``layout``: the lazy update on
    ``[0, 1]^m`` per copy from ``x_1 = s``, then ``w = x / ||x||_1``."""
    if step not in MADABOOST_STEPS:
        raise ValueError(f"step must be one of {MADABOOST_STEPS}, got {step!r}")
    _check_learning_rate(learning_rate)
    rule = EdgeStep(float(layout.m), learning_rate) if step == "paper" else AdaBoostStep(learning_rate)
    return _assembly(layout, weights, "hypercube", "lazy", rule, normalize=True, start=1.0)
