"""A soft-margin round's reductions over the weak learner's new column, on a cluster in one pass.

The round needs, of the new column ``u`` (the hypothesis' margins ``y h(x)``), its edge ``d @ u``,
its digest (the margin matrix merges identical columns) and, for the short step of the
Frank-Wolfe rule (paper 000, Algorithm 3), ``d @ (u - q)`` and ``max |u - q|``. In memory they
are four passes; on a cluster each was a round trip. :func:`new_column_block` takes all four in
one task a block, as the in-memory code's operations take them (so the sums are the same bits:
each block's by numpy, the blocks' added in order), and :class:`DistributedShortStep` finds its two
there.
"""
from __future__ import annotations

import numpy as np

from marginboost.core.step_sizes import short_step
from marginboost.dask.margin_matrix import _digest_block
from marginboost.dask.rows import RowVector, _sum
from marginboost.soft_margin.fw_rules import FWContext, FWStep, ShortStep, toward_new

__all__ = ["DistributedShortStep", "edge_and_column", "new_column_block"]


def _short_step_block(u, q, d):
    delta = u - q
    return float(np.dot(d, delta)), float(np.max(np.abs(delta))) if delta.shape[0] else -np.inf


def new_column_block(u, d, q):
    """``(d @ u, digest, all +-1, short-step sums or None)`` of a block (``q`` None: the first
    round, no FW step)."""
    digest, signs = _digest_block(u)
    return float(np.dot(d, u)), digest, signs, None if q is None else _short_step_block(u, q, d)


def _short_step_sums(parts) -> tuple[float, float]:
    """``(d @ (u - q), max |u - q|)`` from the blocks' sums, in block order."""
    return _sum(p[0] for p in parts), float(np.max([p[1] for p in parts]))


def edge_and_column(matrix, u: RowVector, d: RowVector, q: RowVector | None, fw_rule):
    """``(edge, (j, is_new))`` of the new column, one round trip; the short step's sums are left
    with ``fw_rule`` where it is a :class:`DistributedShortStep`."""
    answers = matrix.layout.reduce(new_column_block, u, d, q)
    column = matrix.add(u, [(a[1], a[2]) for a in answers])
    if q is not None and isinstance(fw_rule, DistributedShortStep):
        fw_rule.known = (u, q, d) + _short_step_sums([a[3] for a in answers])
    return _sum(a[0] for a in answers), column


class DistributedShortStep(ShortStep):
    """:class:`~marginboost.soft_margin.fw_rules.ShortStep` whose sums ``d @ (u - q)`` and
    ``max |u - q|`` come from the new column's pass (:func:`edge_and_column`) or, without it, from
    one pass of their own (two round trips in the rule of memory)."""

    def __init__(self):
        self.known = None

    def __call__(self, ctx: FWContext) -> FWStep:
        u = ctx.new_column()
        known = self.known
        if known is not None and known[0] is u and known[1] is ctx.q and known[2] is ctx.d:
            dot, scale = known[3:]
        else:
            dot, scale = _short_step_sums(u.layout.reduce(_short_step_block, u, ctx.q, ctx.d))
        self.known = None
        return toward_new(ctx, short_step(dot, ctx.objective.eta * scale * scale), u - ctx.q)
