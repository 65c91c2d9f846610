"""The margin matrix ``U`` (m x t): one column ``u_j = y * h_j(X)`` per distinct hypothesis."""
from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["MarginMatrix", "as_margin_matrix"]


def as_margin_matrix(U):
    """``U`` itself when it is a margin matrix object (it has ``matvec``), else a
    :class:`MarginMatrix` holding the columns of the (m, t) array ``U`` (a copy)."""
    return U if hasattr(U, "matvec") else MarginMatrix.from_array(U)


class MarginMatrix:
    """Columns u_j = y * h_j(X) of the distinct hypotheses; ``U`` is an (m, t) Fortran-order view.

    The columns are the rows of a C-order (capacity, m) buffer that grows by half again when
    full, with ``ndarray.resize``: a realloc, which the C library does for large buffers by
    remapping pages, without a second copy of U (doubling into a new array peaked at 1.5x the
    grown U, 3.8x the size of X at m = 10^6, p = 50, 100 stumps). No view of ``U`` may be kept
    across calls to :meth:`add`; the loop takes a fresh one every round.
    """

    def __init__(self, m: int):
        self._data = np.empty((16, m))
        self.n = 0
        self._index: dict[bytes, int] = {}

    @property
    def U(self) -> np.ndarray:
        """The (m, t) margin matrix, a view valid until the next :meth:`add`."""
        return self._data[: self.n].T

    def add(self, u: np.ndarray) -> tuple[int, bool]:
        """Return the column of ``u`` and whether it is new (identical columns are merged)."""
        # A 16-byte digest as key: the raw bytes would double the memory of U.
        key = hashlib.blake2b(u.tobytes(), digest_size=16).digest()
        j = self._index.get(key)
        if j is not None and np.array_equal(self._data[j], u):
            return j, False
        if self.n == self._data.shape[0]:
            self._data.resize((self.n + self.n // 2, self._data.shape[1]), refcheck=False)
        self._data[self.n] = u
        self._index[key] = self.n
        self.n += 1
        return self.n - 1, True

    def truncate(self, n: int) -> None:
        """Keep the first ``n`` columns (a round rolled back after adding its column)."""
        if n < self.n:
            self._index = {k: j for k, j in self._index.items() if j < n}
            self.n = n

    # The read interface shared with :class:`~marginboost.core.bit_matrix.BitMarginMatrix`, so
    # that the loops need not know which of the two holds U.
    @property
    def m(self) -> int:
        """The number of examples (rows of U)."""
        return self._data.shape[1]

    def matvec(self, w: np.ndarray) -> np.ndarray:
        """``U @ w`` (m,)."""
        return self.U @ w

    def rmatvec(self, d: np.ndarray) -> np.ndarray:
        """``U.T @ d`` (n,)."""
        return self._data[: self.n] @ d

    def edges(self, d: np.ndarray, index) -> np.ndarray:
        """``d @ U[:, index]``: the edges of some columns under ``d``."""
        return d @ self.U[:, index]

    def column(self, j: int) -> np.ndarray:
        """``U[:, j]``, a view valid until the next :meth:`add`."""
        return self._data[j]

    def columns(self, index) -> np.ndarray:
        """``U[:, index]`` (m, len(index)), a copy."""
        return self._data[np.asarray(index, dtype=np.int64)].T

    def block_t(self, rows, cols) -> np.ndarray:
        """``U[np.ix_(rows, cols)].T``, a C-order (len(cols), len(rows)) copy (the face Hessians' layout)."""
        cols = np.asarray(cols, dtype=np.int64)
        if cols.size == self.n and np.array_equal(cols, np.arange(self.n)):
            return self._data[: self.n][:, rows]  # one gather instead of an outer-product index
        return self._data[np.ix_(cols, np.asarray(rows, dtype=np.int64))]

    def weighted_row_sum(self, rows, cols, weights) -> np.ndarray:
        """``U[np.ix_(rows, cols)].T @ weights`` (len(cols),)."""
        return self.block_t(rows, cols) @ np.asarray(weights, dtype=np.float64)

    def weighted_centred_block_t32(self, rows, cols, weights, total) -> tuple[np.ndarray, np.ndarray]:
        """``(centred_block_t32(rows, cols, mean, sqrt(weights)), mean)``, ``mean =
        weighted_row_sum(rows, cols, weights) / total``."""
        mean = self.weighted_row_sum(rows, cols, weights) / total
        return self.centred_block_t32(rows, cols, mean, np.sqrt(np.asarray(weights, dtype=np.float64))), mean

    def centred_block_t32(self, rows, cols, mean, scale) -> np.ndarray:
        """``float32((block_t(rows, cols) - mean[:, None]) * scale[None, :])`` (the single-precision
        face Hessian's rows)."""
        block = self.block_t(rows, cols)
        block -= np.asarray(mean, dtype=np.float64)[:, None]
        block *= np.asarray(scale, dtype=np.float64)[None, :]
        return block.astype(np.float32)

    def dense(self) -> np.ndarray:
        """The (m, n) matrix U, a view valid until the next :meth:`add`."""
        return self.U

    @classmethod
    def from_array(cls, U: np.ndarray) -> "MarginMatrix":
        """A margin matrix holding the columns of ``U`` (m, t) in order, duplicates kept."""
        U = np.asarray(U, dtype=np.float64)
        matrix = cls(U.shape[0])
        matrix._data = np.ascontiguousarray(U.T).copy() if U.shape[1] else np.empty((16, U.shape[0]))
        matrix.n = U.shape[1]
        for j in range(matrix.n - 1, -1, -1):  # the first of equal columns is the one found
            matrix._index[hashlib.blake2b(matrix._data[j].tobytes(), digest_size=16).digest()] = j
        return matrix
