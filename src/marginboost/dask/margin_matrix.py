"""The margin matrix ``U`` (columns ``u_j = y * h_j(X)``) with its columns on the Dask workers.

The soft-margin loop and its Frank-Wolfe rules use the margin matrix through ``add``,
``truncate``, ``n``, ``column`` and ``edges`` (:class:`~marginboost.core.bit_matrix.GrowingMarginMatrix`
in memory); :class:`DistributedMarginMatrix` offers the same for columns kept, block by block,
where the rows are. A column of +-1 (every classifier's) is kept as int8, one byte an entry, a
real-valued one as float64. Identical columns are merged, as in memory: each block hashes its
piece of a new column (BLAKE2b of its bytes) and the client compares the tuple of digests with
those of the columns it has: O(t) digests here, no column.
"""
from __future__ import annotations

import hashlib

import numpy as np

from marginboost.dask.rows import RowVector

__all__ = ["DistributedMarginMatrix"]


def _digest_block(u):
    """The block's digest and whether it is all +-1 (then the digest is of its int8 form, so a
    +-1 column matches itself however it was computed)."""
    signs = bool(np.all((u == 1.0) | (u == -1.0)))
    data = u.astype(np.int8) if signs else np.ascontiguousarray(u, dtype=np.float64)
    return hashlib.blake2b(data.tobytes(), digest_size=16).digest(), signs


def _as_int8(u):
    return u.astype(np.int8)


def _as_float(u):
    return u.astype(np.float64)


def _edges_block(d, columns):
    return np.array([np.dot(d, c) for c in columns], dtype=np.float64)


class DistributedMarginMatrix:
    """The columns of the distinct hypotheses, each a list of blocks on the workers (module docstring)."""

    def __init__(self, layout):
        self.layout = layout
        self._columns: list[RowVector] = []  # as kept: int8 blocks or float64 blocks
        self._digests: list[tuple] = []
        self._index: dict[tuple, int] = {}

    @property
    def n(self) -> int:
        return len(self._columns)

    @property
    def m(self) -> int:
        return self.layout.m

    @property
    def shape(self) -> tuple[int, int]:
        return self.m, self.n

    def add(self, u: RowVector) -> tuple[int, bool]:
        """Return the column of ``u`` and whether it is new (identical columns are merged)."""
        answers = self.layout.reduce(_digest_block, u)
        key = tuple(a[0] for a in answers)
        j = self._index.get(key)
        if j is not None:
            return j, False
        self._columns.append(u.map(_as_int8) if all(a[1] for a in answers) else u)
        self._digests.append(key)
        self._index[key] = len(self._columns) - 1
        return len(self._columns) - 1, True

    def truncate(self, n: int) -> None:
        """Keep the first ``n`` columns (a round rolled back)."""
        for key in self._digests[n:]:
            del self._index[key]
        del self._columns[n:], self._digests[n:]

    def column(self, j: int) -> RowVector:
        """``U[:, j]`` as a float64 vector on the workers."""
        return self._columns[j].map(_as_float)

    def edges(self, d: RowVector, columns) -> np.ndarray:
        """``U[:, columns]^T d``: the edges of those hypotheses under ``d``."""
        cols = [self._columns[int(j)] for j in columns]
        parts = self.layout.reduce(_edges_block, d, cols)
        total = np.zeros(len(cols))
        for part in parts:
            total += part
        return total

    def matvec(self, w: np.ndarray) -> RowVector:
        """``U w`` (the margins of the weights ``w``), summed per example over the columns of
        nonzero weight in column order."""
        active = np.flatnonzero(w)
        cols = [self._columns[int(j)] for j in active]
        return self.layout.vector(_matvec_block, cols, w[active])

    def dense(self):
        raise TypeError("the margin matrix of a fit on a cluster lives on the workers: a dense copy would gather "
                        "m x t entries to the client")


def _matvec_block(columns, weights):
    out = np.zeros(columns[0].shape[0] if columns else 0)
    for c, wj in zip(columns, weights):
        out += wj * c
    return out
