"""A soft-margin round's reductions over the weak learner's new column, on a cluster in one pass.

The round needs, of the new column ``u`` (the hypothesis' margins ``y h(x)``), its edge ``d @ u``,
its digest (the margin matrix merges identical columns) and, for the short step of the
Frank-Wolfe rule (paper 000, Algorithm 3), ``d @ (u - q)`` and ``max |u - q|``. In memory they
are four passes; on a cluster each was a round trip. :func:`new_column_block` takes all four in
one task a block, one compiled pass (:func:`._columns.new_column_sums`; numpy took twelve), the
blocks' sums added in order, and :class:`DistributedShortStep` finds its two there (or, without
that pass, in the same kernel's pass of its own: the same bits).
"""
from __future__ import annotations

import numpy as np

from marginboost.core.step_sizes import short_step
from marginboost.dask._columns import new_column_sums
from marginboost.dask.margin_matrix import column_digest
from marginboost.dask.rows import RowVector, _sum
from marginboost.soft_margin.fw_rules import FWContext, FWStep, ShortStep, toward_new

__all__ = ["DistributedShortStep", "edge_and_column", "new_column_block"]


def _short_step_block(u, q, d):
    return new_column_sums(u, d, q)[2]


def _toward(q, u, lam):
    """A block of ``q + lam (u - q)``, the operations of :func:`.fw_rules.toward_new` in memory (the
    same bits), in one task (three passes and tasks as vector arithmetic)."""
    return q + lam * (u - q)


def new_column_block(u, d, q):
    """``(d @ u, digest, all +-1, short-step sums or None)`` of a block (``q`` None: the first
    round, no FW step); the digest is :func:`.margin_matrix._digest_block`'s."""
    edge, codes, short = new_column_sums(u, d, q)
    return edge, column_digest(u, codes), codes is not None, short


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
        lam = short_step(dot, ctx.objective.eta * scale * scale)
        return toward_new(ctx, lam, q_new=ctx.q.layout.lazy(_toward, ctx.q, u, lam))
