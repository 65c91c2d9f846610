"""The margin matrix ``U`` (columns ``u_j = y * h_j(X)``) with its columns on the Dask workers.

The soft-margin loop and its Frank-Wolfe rules use the margin matrix through ``add``,
``truncate``, ``n``, ``column`` and ``edges`` (:class:`~marginboost.core.bit_matrix.GrowingMarginMatrix`
in memory); :class:`DistributedMarginMatrix` offers the same for columns kept, block by block,
where the rows are. A column of +-1 (every classifier's) is kept as int8, one byte an entry, a
real-valued one as float64. Identical columns are merged, as in memory: each block hashes its
piece of a new column (BLAKE2b of its bytes) and the client compares the tuple of digests with
those of the columns it has: O(t) digests here, no column.

The secondary rules (ERLPBoost's entropic master and the Newton rule,
:mod:`marginboost.soft_margin.entropic_master`) use it through ``matvec`` (``U w``, on the
workers), ``rmatvec`` (``U^T d``, t numbers) and :meth:`DistributedMarginMatrix.face_hessian`,
the Newton model's Hessian on the face of the support: the free examples and their
systematic sample are found as in memory (the running sum of ``d`` over the free examples
continued from block to block, so the same bits and the same rows), and only the sampled rows'
entries of the support's columns (``hessian_sample x k``) come to the client.
"""
from __future__ import annotations

import hashlib

import numpy as np

from marginboost.core.bit_matrix import BitMarginMatrix
from marginboost.core.margin_matrix import MarginMatrix
from marginboost.dask._columns import int8_edges, int8_matvec
from marginboost.dask._free_rows import free_running_sum, picked_free_rows
from marginboost.dask.rows import PerBlock, RowVector, _block_max, submit_pooled
from marginboost.soft_margin.entropic_master import _INTEGER_GRAM_GAIN, _face_hessian, _scaled_centred_gram

__all__ = ["DistributedMarginMatrix"]


def column_digest(u, codes) -> bytes:
    """The digest of a block of a column: of ``codes`` (its int8 form) where every entry is +-1, so
    a +-1 column matches itself however it was computed, else of its float64 bytes."""
    data = codes if codes is not None else np.ascontiguousarray(u, dtype=np.float64)
    return hashlib.blake2b(data.tobytes(), digest_size=16).digest()


def _digest_block(u):
    """The block's digest and whether it is all +-1."""
    signs = bool(np.all((u == 1.0) | (u == -1.0)))
    return column_digest(u, u.astype(np.int8) if signs else None), signs


def _as_int8(u):
    return u.astype(np.int8)


def _as_float(u):
    return u.astype(np.float64)


def _int8(columns) -> bool:
    return all(c.dtype == np.int8 for c in columns)


def _edges_block(d, columns):
    """The block's edges of the columns, and its largest ``d`` (the Newton rule asks for it next);
    +-1 columns read in place (:func:`._columns.int8_edges`)."""
    if _int8(columns):
        return int8_edges(d, list(columns)), _block_max(d)
    return np.array([np.dot(d, c) for c in columns], dtype=np.float64), _block_max(d)


class DistributedMarginMatrix:
    """The columns of the distinct hypotheses, each a list of blocks on the workers (module docstring)."""

    def __init__(self, layout):
        self.layout = layout
        self._columns: list[RowVector] = []  # as kept: int8 blocks or float64 blocks
        self._signs: list[bool] = []  # whether column j is +-1 (kept as int8)
        self._digests: list[tuple] = []
        self._index: dict[tuple, int] = {}

    @property
    def n(self) -> int:
        """The number of columns (distinct hypotheses)."""
        return len(self._columns)

    @property
    def m(self) -> int:
        """The number of rows (examples)."""
        return self.layout.m

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, n)``."""
        return self.m, self.n

    def add(self, u: RowVector, answers: list | None = None) -> tuple[int, bool]:
        """Return the column of ``u`` and whether it is new (identical columns are merged);
        ``answers``: its blocks' :func:`_digest_block`, if taken already."""
        if answers is None:
            answers = self.layout.reduce(_digest_block, u)
        key = tuple(a[0] for a in answers)
        j = self._index.get(key)
        if j is not None:
            return j, False
        signs = all(a[1] for a in answers)
        self._columns.append(u.map(_as_int8) if signs else u)
        self._signs.append(signs)
        self._digests.append(key)
        self._index[key] = len(self._columns) - 1
        return len(self._columns) - 1, True

    def truncate(self, n: int) -> None:
        """Keep the first ``n`` columns (a round rolled back)."""
        for key in self._digests[n:]:
            del self._index[key]
        del self._columns[n:], self._signs[n:], self._digests[n:]

    def column(self, j: int) -> RowVector:
        """``U[:, j]`` as a float64 vector on the workers."""
        return self._columns[j].map(_as_float)

    def edges(self, d: RowVector, columns) -> np.ndarray:
        """``U[:, columns]^T d``: the edges of those hypotheses under ``d``."""
        cols = [self._columns[int(j)] for j in columns]
        parts = self.layout.reduce(_edges_block, d, cols)
        total = np.zeros(len(cols))
        for part, _ in parts:
            total += part
        d.know_max(np.max([top for _, top in parts]))
        return total

    def matvec(self, w: np.ndarray) -> RowVector:
        """``U w`` (the margins of the weights ``w``), summed per example over the columns of
        nonzero weight in column order."""
        active = np.flatnonzero(w)
        cols = [self._columns[int(j)] for j in active]
        if not cols:
            return self.layout.full(0.0)
        return self.layout.lazy(_matvec_block, cols, w[active])  # (made in the pass that first reads it)

    def rmatvec(self, d: RowVector) -> np.ndarray:
        """``U^T d``: every hypothesis' edge under ``d``."""
        return self.edges(d, range(self.n))

    def face_hessian(self, d: RowVector, support, objective, cap, cutoff, sample=None, single=False) -> np.ndarray:
        """:func:`marginboost.soft_margin.entropic_master._face_hessian` for columns on the workers
        (module docstring): the same free examples, sample and Hessian."""
        support = np.asarray(support, dtype=np.int64)
        columns = [self._columns[int(j)] for j in support]
        in_bits = all(self._signs[int(j)] for j in support)
        threshold = sample // _INTEGER_GRAM_GAIN if in_bits and sample is not None else sample
        floor = cutoff * d.max()
        caps = cap if isinstance(cap, RowVector) else None
        scalar_cap = 0.0 if caps is not None else float(cap)
        client, layout = self.layout.client, self.layout
        running = []  # the running sum of d over the free examples, continued from block to block
        for k in range(layout.n_parts):
            running.append(submit_pooled(client, _free_running, d.parts[k], None if caps is None else caps.parts[k],
                                         scalar_cap, floor, running[-1] if running else 0.0))
        counts_ends = client.gather(running)
        n_free = sum(c for c, _ in counts_ends)
        sampled = not (threshold is None or n_free <= threshold)
        ends = np.array([0.0] + [e for _, e in counts_ends])
        points = None
        if sampled:
            total = ends[-1]
            step = total / sample
            points = (np.arange(sample) + 0.5) * step
            # block b takes the points in [end of block b - 1, end of block b); the last block the rest
            cuts = np.searchsorted(points, ends[1:-1], side="left")
            per_block = PerBlock(np.split(points, cuts))
        else:
            per_block = PerBlock([None] * layout.n_parts)
        picked = layout.reduce(_picked_rows, d, caps, scalar_cap, floor, PerBlock(ends[:-1].tolist()), per_block,
                               columns)
        B = np.concatenate([p[0] for p in picked], axis=0) if picked else np.zeros((0, support.size))
        if sampled and in_bits:  # equal weights, +-1 entries: the exact integer Gram, as in memory
            B64 = B.astype(np.int64)
            return _scaled_centred_gram(B64.T @ B64, B64.sum(axis=0), B.shape[0],
                                        objective.eta * total / (B.shape[0] * B.shape[0]))
        c = np.full(sample, total / sample) if sampled else np.concatenate([p[1] for p in picked])
        if B.shape[0] == 0:
            return np.zeros((support.size, support.size))
        # the rows drawn, held as in memory (bits for +-1 columns), duplicate columns kept
        local = BitMarginMatrix.from_signs(B) if in_bits else MarginMatrix.from_array(B)
        return _face_hessian(local, c, np.arange(B.shape[1]), objective, np.inf, 0.0, None, single)

    def dense(self):
        """Refused (TypeError): the columns stay on the workers."""
        raise TypeError("the margin matrix of a fit on a cluster lives on the workers: a dense copy would gather "
                        "m x t entries to the client")


def _free_running(d, caps, cap, floor, previous):
    """``(free examples, running sum of d over them)`` at the block's end, from the block before's."""
    start = previous if isinstance(previous, float) else previous[1]
    return free_running_sum(d, caps, cap, floor, start)


def _picked_rows(d, caps, cap, floor, start, points, columns):
    """The block's rows of the Hessian and their weights: with ``points``, the free examples whose
    running sum (from ``start``) first exceeds each point (systematic sampling, as
    ``_entropic_master._pick_c``); without, every free example."""
    rows = picked_free_rows(d, caps, cap, floor, start, points)
    B = np.empty((rows.size, len(columns)), dtype=columns[0].dtype if columns else np.float64)
    for j, c in enumerate(columns):
        B[:, j] = c[rows]
    return B, d[rows]


def _matvec_block(columns, weights):
    """``sum_j weights[j] columns[j]``, the terms added in column order (+-1 columns read in place
    by :func:`._columns.int8_matvec`, the same bits)."""
    if _int8(columns):
        return int8_matvec(list(columns), np.asarray(weights, dtype=np.float64), columns[0].shape[0])
    out = np.zeros(columns[0].shape[0])
    for c, wj in zip(columns, weights):
        out += wj * c
    return out
