"""The margin matrix ``U`` (m x t): one column ``u_j = y * h_j(X)`` per distinct hypothesis."""
from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["MarginMatrix"]


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
