"""A bit-packed margin matrix ``U`` (m x t) for hypotheses with outputs in {-1, +1}.

Stumps and trees with leaves in {-1, +1} give margin columns ``u_j = y * h_j(X)`` in {-1, +1}^m:
one bit per entry holds them, 64x less memory than float64. :class:`BitMarginMatrix` has the
contract of :class:`~marginboost.core.margin_matrix.MarginMatrix` (``add``, ``truncate``, ``n``)
and, instead of the float view ``U``, the two products the boosting loops need, ``matvec(w) =
U w`` and ``rmatvec(d) = U^T d``, plus float64 +-1 copies of parts of U: ``column(j)``,
``columns(index)`` (``U[:, index]``), ``block(rows, cols)`` (``U[np.ix_(rows, cols)]``) and
``dense()``. Real-valued hypotheses need the float matrix: ``add`` refuses a column that is
not +-1 with a ``ValueError``, and :meth:`BitMarginMatrix.to_margin_matrix` converts (same
columns, same indices). :class:`GrowingMarginMatrix` does that for a loop: bits while every
column is +-1, floats from the first other one. The soft-margin scheme, the dual simplex,
FWBoost, AdaBoost.FW, BLasso, TotalBoost and SoftBoost keep their U in one
(:data:`BIT_PACKED_MARGINS` off: floats everywhere).

**Layout: byte-sliced column groups.** Columns ``8g .. 8g+7`` form group ``g``; example ``i``
has one byte per group whose bit ``c`` is set when ``U[i, 8g+c] = +1``. The bytes of 8
consecutive examples are one uint64 word: ``W[g, k]`` holds examples ``8k .. 8k+7``, example
``8k+e`` in bits ``8e .. 8e+7`` (arithmetic on the word, so the layout does not depend on the
machine's byte order). ``W`` is a C-order
``(capacity_groups, ceil(m/8))`` uint64 array, one row per group: 1 bit per entry (the last
group's unused bits and the last word's unused bytes are padding).

Why this layout makes both products fast: both become one table access per (example, group of
8 columns), i.e. ``m t / 8`` memory operations on bytes instead of ``m t`` floating-point
multiply-adds on 8-byte entries, and each row ``W[g]`` is read contiguously.

* ``U w``: for each group, the 256 sums ``T_g[b] = sum_c (+-w_{8g+c})`` over its sign patterns
  (the issue's byte tables); then ``(U w)_i = sum_g T_g[byte_g(i)]``. The kernel walks 16
  examples (two words) at a time with 16 running sums in registers, groups in chunks of 16 (32
  KiB of tables, L1-sized), examples in tiles so that partial sums stay in cache.
* ``U^T d``: the dual trick, a histogram: ``H_g[b] = sum of d_i over the examples whose byte in
  group g is b`` (4 interleaved histograms per group, by ``i mod 4``, so that runs of equal
  bytes do not serialise on one memory cell), then ``(U^T d)_{8g+c} = sum_b (+-H_g[b])``, the
  sign that of bit c of b.

A column-major bit layout (one bit-vector per column) would make an append touch m/64 words,
but both products would then need an 8x8 bit transpose per 8 examples and group (or 256-entry
tables of ``d`` per 8 examples), several times the work. A row-major layout (an example's
columns contiguous) would make appends strided, one byte per example in a different cache line,
and growth a copy of all of U. Here an append writes one bit into every byte of a single row
``W[g]``: a read-modify-write of ceil(m/8) contiguous words (8 examples per word, not 64), while
validating ``u`` already reads m float64 words; growth appends rows with ``ndarray.resize`` (a
realloc, no second copy of U; capacity grows by half), as :class:`MarginMatrix` does.

Determinism: every kernel is single-threaded compiled code (``_bit_matrix.pyx``; it releases the
GIL, so that a caller may run it beside other work) without fast-math (no reassociation, no
contraction into FMA; the only products are by +-1, which are exact). The summation order below is
therefore fixed by the code, independent of the machine, the capacity and the history of
``add``/``truncate`` (the bits of columns at or past ``n`` are always 0: ``truncate`` clears them),
and the same input gives the same bits on every call:

* ``T_g[b] = ((0 (+-) w_{8g}) (+-) w_{8g+1}) ... (+-) w_{8g+c_g-1}``, over the group's ``c_g``
  live columns in ascending order;
* ``(U w)_i = ((0 + T_0[byte_0(i)]) + T_1[byte_1(i)]) + ...``, groups ascending;
* ``H_{g,r}[b]`` = the examples ``i = r (mod 4)`` with byte ``b``, summed in ascending ``i`` from
  0; ``V_g[b] = (H_{g,0}[b] + H_{g,1}[b]) + (H_{g,2}[b] + H_{g,3}[b])``; ``(U^T d)_{8g+c} = sum over
  b = 0 .. 255 ascending of (+-V_g[b])`` starting from 0.

Errors: in ``U w`` each term ``+-w_j`` passes through at most ``7 + ceil(t/8)`` roundings, so the
result is within ``gamma_(7 + ceil(t/8)) sum_j |w_j|`` of the exact sum (``gamma_k ~ k 2^-53``),
a smaller bound than a recursive sum's ``gamma_(t-1)``; in ``U^T d`` at most ``ceil(m/4) + 256``,
against ``gamma_(m-1)``. The tests check both against the dense products with these bounds, and
exactly with integer data.

Speed (``benchmarks/results/bit_matrix.md``, one core): ``U w`` about 3x faster than the float64
``U @ w`` at 5300 x 300 (where U fits in the last-level cache) and 8x at 10^6 x 100; ``U^T d``
2x and 6x; ``add`` 5-9x (it reads ``u`` once, and hashes m/8 bytes instead of 8m).
"""
from __future__ import annotations

import hashlib
import sys

import numpy as np

# The loops, compiled ahead of time (``_bit_matrix.pyx``); the names are this module's as before
# (the methods call ``_matvec_w`` for ``_tables`` then ``_matvec``, and ``_rows_cols_below`` for two
# ``_all_below``; those stay importable from here).
from marginboost.core._bit_matrix import (  # noqa: F401
    _all_below,
    _equals,
    _gather,
    _gather_bits,
    _gather_centred32,
    _gather_weighted_centred32,
    _matvec,
    _matvec_w,
    _pack,
    _rmatvec,
    _rows_cols_below,
    _sign_gram,
    _store,
    _tables,
    _unpack,
    _weighted_row_sums,
)
from marginboost.core.margin_matrix import MarginMatrix

__all__ = ["BIT_PACKED_MARGINS", "BitMarginMatrix", "GrowingMarginMatrix", "is_sign_vector"]

_ONES = np.uint64(0x0101010101010101)  # bit 0 of each of the 8 bytes of a word


def _spread_table() -> np.ndarray:
    """``_SPREAD[p]``: the word whose byte e is bit e of p (8 packed bits -> 8 bytes)."""
    table = np.zeros(256, dtype=np.uint64)
    for p in range(256):
        table[p] = sum(((p >> e) & 1) << (8 * e) for e in range(8))
    return table


_SPREAD = _spread_table()


def is_sign_vector(u) -> bool:
    """Whether every entry of ``u`` is exactly -1 or +1 (the columns a :class:`BitMarginMatrix` holds)."""
    u = np.asarray(u)
    return u.ndim == 1 and u.size > 0 and bool(np.all(np.abs(u) == 1))


# Every loop's U of +-1 hypotheses in bits (64x less memory, faster products). False keeps the
# float matrix everywhere: its products sum in BLAS' order, as before issue 17 (the model
# fixture's older cases pin it; benchmarks compare the two).
BIT_PACKED_MARGINS = True


class GrowingMarginMatrix:
    """The margin matrix of a loop: bits while every column is +-1, float64 from the first other one.

    Starts as a :class:`BitMarginMatrix` (a :class:`~marginboost.core.margin_matrix.MarginMatrix`
    when :data:`BIT_PACKED_MARGINS` is off) and moves to floats, with the same columns and
    indices, when :meth:`add` gets a column that is not +-1 (real-valued hypotheses: regression
    trees, FWBoost_R's scaled atoms). Everything else (``n``, ``m``, ``truncate``, ``matvec``,
    ``rmatvec``, ``edges``, ``column``, ``columns``, ``block_t``, ``dense``) is the held matrix's.
    """

    def __init__(self, m: int):
        self.matrix = BitMarginMatrix(m) if BIT_PACKED_MARGINS else MarginMatrix(m)

    def add(self, u) -> tuple[int, bool]:
        """Return the column of ``u`` and whether it is new (identical columns are merged)."""
        if np.ndim(u) != 1:
            raise ValueError(f"u must be one-dimensional, got shape {np.shape(u)}")
        if isinstance(self.matrix, BitMarginMatrix):
            added = self.matrix.try_add(u)
            if not isinstance(added, int):
                return added
            self.matrix = self.matrix.to_margin_matrix()
        return self.matrix.add(u)

    def __getattr__(self, name):
        # only for what the instance lacks; 'matrix' and the dunders (pickle and copy ask for
        # __setstate__ before __dict__ exists) are never delegated, or the lookup recurses
        if name == "matrix" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.matrix, name)


class BitMarginMatrix:
    """Columns ``u_j = y * h_j(X)`` in {-1, +1}^m of the distinct hypotheses, 1 bit per entry.

    Same contract as :class:`~marginboost.core.margin_matrix.MarginMatrix` for ``add``,
    ``truncate`` and ``n``; the matrix is used through :meth:`matvec` (``U w``) and
    :meth:`rmatvec` (``U^T d``), and read with :meth:`column`, :meth:`columns`, :meth:`block`
    and :meth:`dense`.
    Layout, kernels, summation order and error bounds: the module docstring.
    """

    def __init__(self, m: int):
        m = int(m)
        if m < 1:
            raise ValueError(f"m must be at least 1, got {m}")
        self.m = m
        self._W = np.zeros((2, (m + 7) // 8), dtype=np.uint64)  # 16 columns, as MarginMatrix
        self.n = 0
        self._index: dict[bytes, int] = {}

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, n)``."""
        return self.m, self.n

    @property
    def nbytes(self) -> int:
        """Bytes allocated for the bits (capacity included; the digest index not counted)."""
        return self._W.nbytes

    def add(self, u) -> tuple[int, bool]:
        """Return the column of ``u`` and whether it is new (identical columns are merged).

        ``u`` must have shape ``(m,)`` and hold only -1 and +1; anything else raises a
        ``ValueError`` naming what it got, and leaves the matrix as it was.
        """
        given = np.asarray(u)
        added = self.try_add(given)  # raises on a wrong shape
        if isinstance(added, int):  # the index of the first entry that is not -1 or +1
            if given.dtype.kind not in "biuf":
                raise ValueError(f"u must hold only -1 and +1, got dtype {given.dtype}")
            raise ValueError(f"u must hold only -1 and +1, got {given[added].item()!r} at index {added}")
        return added

    @classmethod
    def from_signs(cls, U: np.ndarray) -> "BitMarginMatrix":
        """A bit matrix holding the +-1 columns of ``U`` (m, t) in order, duplicates kept (as
        :meth:`MarginMatrix.from_array`; no index of them is kept, for a matrix only read)."""
        matrix = cls(U.shape[0])
        for j in range(U.shape[1]):
            matrix._index = {}  # a duplicate is stored again, not merged
            if not isinstance(matrix.try_add(U[:, j]), tuple):
                raise ValueError(f"column {j} of U holds something other than -1 and +1")
        matrix._index = {}
        return matrix

    def try_add(self, u):
        """:meth:`add`, but where ``u`` (of shape ``(m,)``) holds something other than -1 and +1,
        the index of the first such entry (or 0 for a dtype that is not numeric), the matrix
        unchanged: the check and the packing are one pass (:class:`GrowingMarginMatrix` asked
        first, for 9 us a round at m = 7400)."""
        u = np.asarray(u)
        if u.shape != (self.m,):
            raise ValueError(f"u must have shape ({self.m},), got {u.shape}")
        if u.dtype.kind not in "biuf":
            return 0
        u = np.ascontiguousarray(u, dtype=np.float64)
        packed = np.empty(self._W.shape[1], dtype=np.uint8)
        bad = _pack(u, packed)
        if bad >= 0:
            return int(bad)
        key = hashlib.blake2b(packed.tobytes(), digest_size=16).digest()
        j = self._index.get(key)
        if j is not None and _equals(self._W, j // 8, j % 8, packed, _SPREAD):
            return j, False
        g, c = divmod(self.n, 8)
        if g == self._W.shape[0]:
            # realloc (new rows zeroed), no second copy of U
            self._W.resize((g + (g + 1) // 2, self._W.shape[1]), refcheck=False)
        _store(self._W, g, c, packed, _SPREAD)
        self._index[key] = self.n
        self.n += 1
        return self.n - 1, True

    def truncate(self, n: int) -> None:
        """Keep the first ``n`` columns (a round rolled back after adding its column).

        The bits of the dropped columns are cleared (O(m/8) words per dropped group), so that the
        bytes, and with them the histograms of :meth:`rmatvec`, depend only on the live columns.
        """
        n = max(int(n), 0)
        if n < self.n:
            self._index = {k: j for k, j in self._index.items() if j < n}
            g, c = divmod(n, 8)
            if c:
                self._W[g] &= _ONES * np.uint64((1 << c) - 1)
                g += 1
            self._W[g: (self.n + 7) // 8] = 0
            self.n = n

    def matvec(self, w, out: np.ndarray | None = None) -> np.ndarray:
        """``U @ w`` (m,) for weights ``w`` of shape ``(n,)``, by byte tables (module doc).

        ``out``: an optional C-contiguous float64 array of shape ``(m,)`` to write into.
        """
        w = np.ascontiguousarray(w, dtype=np.float64)
        if w.shape != (self.n,):
            raise ValueError(f"w must have shape ({self.n},), got {w.shape}")
        if out is None:
            out = np.empty(self.m)
        elif out.shape != (self.m,) or out.dtype != np.float64 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float64 array of shape ({self.m},)")
        if self.n == 0:
            out[:] = 0.0
            return out
        _matvec_w(self._W, w, self.n, self.m, out)  # _tables then _matvec, the tables in scratch memory
        return out

    def rmatvec(self, d) -> np.ndarray:
        """``U.T @ d`` (n,) for ``d`` of shape ``(m,)`` (the edges of the columns when d is a
        distribution), by byte histograms (module doc)."""
        d = np.ascontiguousarray(d, dtype=np.float64)
        if d.shape != (self.m,):
            raise ValueError(f"d must have shape ({self.m},), got {d.shape}")
        out = np.empty(self.n)
        if self.n:
            _rmatvec(self._W, d, self.n, out)
        return out

    def columns(self, index) -> np.ndarray:
        """``U[:, index]`` as a float64 +-1 array (m, len(index)), Fortran order."""
        index = np.ascontiguousarray(index, dtype=np.int64).reshape(-1)
        if not _all_below(index, self.n):
            raise IndexError(f"column index out of range for {self.n} columns: {index}")
        out = np.empty((self.m, index.size), order="F")
        _unpack(self._W, index, self.m, out)
        return out

    def block(self, rows, cols) -> np.ndarray:
        """``U[np.ix_(rows, cols)]`` as a float64 +-1 array (len(rows), len(cols)), Fortran
        order (its transpose is the C-order (k, n) block the face Hessians hand to ``dsyrk``)."""
        rows, cols = self._checked(rows, cols)
        out = np.empty((rows.size, cols.size), order="F")
        _gather(self._W, rows, cols, out)
        return out

    def _checked(self, rows, cols) -> tuple[np.ndarray, np.ndarray]:
        """Row and column indices as int64 vectors, ``IndexError`` where one is out of range (one
        compiled pass over both: numpy's min and max took 3.8 of the 4.8 us of a 3-row block, twice a
        pivot of LPBoost's dual simplex; issue 17)."""
        rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1)
        cols = np.ascontiguousarray(cols, dtype=np.int64).reshape(-1)
        bad = _rows_cols_below(rows, self.m, cols, self.n)
        if bad == 1:
            raise IndexError(f"row index out of range for {self.m} rows")
        if bad == 2:
            raise IndexError(f"column index out of range for {self.n} columns")
        return rows, cols

    def edges(self, d, index) -> np.ndarray:
        """``d @ U[:, index]``: the edges of some columns under ``d`` (one :meth:`rmatvec`)."""
        return self.rmatvec(d)[np.asarray(index, dtype=np.int64)]

    def block_t(self, rows, cols) -> np.ndarray:
        """``U[np.ix_(rows, cols)].T``, C-order (len(cols), len(rows)) (the face Hessians' layout)."""
        return self.block(rows, cols).T

    def centred_block_t32(self, rows, cols, mean, scale) -> np.ndarray:
        """``float32((block_t(rows, cols) - mean[:, None]) * scale[None, :])`` straight from the bits
        (the single-precision face Hessian's rows; no float64 block in between)."""
        rows, cols = self._checked(rows, cols)
        out = np.empty((cols.size, rows.size), dtype=np.float32)
        _gather_centred32(self._W, rows, cols, np.ascontiguousarray(mean, dtype=np.float64),
                          np.ascontiguousarray(scale, dtype=np.float64), out)
        return out

    def weighted_centred_block_t32(self, rows, cols, weights, total) -> tuple[np.ndarray, np.ndarray]:
        """``(centred_block_t32(rows, cols, mean, sqrt(weights)), mean)`` with ``mean =
        weighted_row_sum(rows, cols, weights) / total``, the bits read once (both in one pass over the
        rows, the same values)."""
        rows, cols = self._checked(rows, cols)
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        out = np.empty((cols.size, rows.size), dtype=np.float32)
        mean = np.empty(cols.size)
        _gather_weighted_centred32(self._W, rows, cols, weights, float(total), np.sqrt(weights), out, mean)
        return out, mean

    def weighted_row_sum(self, rows, cols, weights) -> np.ndarray:
        """``U[np.ix_(rows, cols)].T @ weights`` (len(cols),) straight from the bits: the face Hessian's
        mean over its few rows, where ``rmatvec`` of a vector zero elsewhere reads all m rows."""
        rows, cols = self._checked(rows, cols)
        out = np.empty(cols.size)
        _weighted_row_sums(self._W, rows, cols, np.ascontiguousarray(weights, dtype=np.float64), out,
                           np.empty((0, 0), dtype=np.float32), False)
        return out

    def sign_gram(self, rows, cols) -> tuple[np.ndarray, np.ndarray]:
        """``(S, s)`` with ``S = B^T B`` and ``s = B^T 1`` for ``B = U[np.ix_(rows, cols)]`` (rows may
        repeat), exact int64, by popcounts of the columns' bits over the rows: the Gram matrix of a
        sampled face Hessian (:func:`~marginboost.soft_margin.entropic_master._face_hessian`)."""
        rows, cols = self._checked(rows, cols)
        bits = np.empty((cols.size, (rows.size + 63) // 64), dtype=np.uint64)
        # row i is byte i % 8 of word i // 8: byte i of the row's bytes, or i ^ 7 on a big-endian machine
        row_bytes = rows.astype(np.uint64) ^ np.uint64(0 if sys.byteorder == "little" else 7)
        _gather_bits(self._W.view(np.uint8), row_bytes, cols, bits)
        return _sign_gram(bits, rows.size)

    def column(self, j: int) -> np.ndarray:
        """``U[:, j]`` as a float64 +-1 vector (m,)."""
        return self.columns([j])[:, 0]

    def dense(self) -> np.ndarray:
        """The float64 (m, n) matrix U, a copy in Fortran order (for tests and debugging)."""
        return self.columns(np.arange(self.n))

    def to_margin_matrix(self) -> MarginMatrix:
        """A float64 :class:`MarginMatrix` with the same columns at the same indices."""
        matrix = MarginMatrix(self.m)
        for j in range(self.n):
            matrix.add(self.column(j))
        return matrix
