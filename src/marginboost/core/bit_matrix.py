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

Determinism: every kernel is single-threaded numba code (``nogil``, so that a caller may run it
beside other work) without ``fastmath`` (no reassociation, no contraction into FMA; the only
products are by +-1, which are exact). The summation order below is therefore fixed by the code,
independent of the machine, the capacity and the history of ``add``/``truncate`` (the bits of
columns at or past ``n`` are always 0: ``truncate`` clears them), and the same input gives the
same bits on every call:

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
from numba import njit

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


@njit(cache=True, nogil=True)
def _pack(u, packed):
    """Bit i of ``packed`` (byte i // 8, bit i % 8) := u_i > 0; the first i with u_i not in
    {-1, +1} (NaN included), or -1 when there is none. Branch-free over the bits: one pass."""
    m = u.shape[0]
    full = m // 8
    ok = True
    for k in range(full):
        p = 0
        for e in range(8):
            v = u[8 * k + e]
            ok &= abs(v) == 1.0
            p |= (1 if v > 0.0 else 0) << e
        packed[k] = p
    if full < packed.shape[0]:
        p = 0
        for e in range(m - 8 * full):
            v = u[8 * full + e]
            ok &= abs(v) == 1.0
            p |= (1 if v > 0.0 else 0) << e
        packed[full] = p
    if ok:
        return -1
    for i in range(m):
        if abs(u[i]) != 1.0:
            return i
    return -1


@njit(cache=True, nogil=True)
def _store(W, g, c, packed, spread):
    """Column 8g + c := the packed bits (bit c of every byte of row g; the others kept)."""
    keep = ~(np.uint64(0x0101010101010101) << np.uint64(c))
    row = W[g]
    for k in range(row.shape[0]):
        row[k] = (row[k] & keep) | (spread[packed[k]] << np.uint64(c))


@njit(cache=True, nogil=True)
def _equals(W, g, c, packed, spread):
    """Whether column 8g + c holds the packed bits."""
    ones = np.uint64(0x0101010101010101)
    row = W[g]
    for k in range(row.shape[0]):
        if ((row[k] >> np.uint64(c)) & ones) != spread[packed[k]]:
            return False
    return True


@njit(cache=True, nogil=True)
def _unpack(W, index, m, out):
    """``out[:, q] = U[:, index[q]]`` as float64 +-1."""
    for q in range(index.shape[0]):
        j = index[q]
        row = W[j // 8]
        shift = j % 8
        for i in range(m):
            out[i, q] = 1.0 if (row[i // 8] >> np.uint64(8 * (i % 8) + shift)) & np.uint64(1) else -1.0


@njit(cache=True, nogil=True)
def _gather(W, rows, cols, out):
    """``out[r, q] = U[rows[r], cols[q]]`` as float64 +-1."""
    for q in range(cols.shape[0]):
        row = W[cols[q] // 8]
        shift = cols[q] % 8
        for r in range(rows.shape[0]):
            i = rows[r]
            out[r, q] = 1.0 if (row[i // 8] >> np.uint64(8 * (i % 8) + shift)) & np.uint64(1) else -1.0


@njit(cache=True, nogil=True)
def _gather_centred32(W, rows, cols, mean, scale, out):
    """``out[q, r] = float32((U[rows[r], cols[q]] - mean[q]) * scale[r])``, (len(cols), len(rows))."""
    for q in range(cols.shape[0]):
        row = W[cols[q] // 8]
        shift = cols[q] % 8
        up, down = 1.0 - mean[q], -1.0 - mean[q]
        for r in range(rows.shape[0]):
            i = rows[r]
            bit = (row[i // 8] >> np.uint64(8 * (i % 8) + shift)) & np.uint64(1)
            out[q, r] = (up if bit else down) * scale[r]


@njit(cache=True, nogil=True)
def _gather_weighted_centred32(W, rows, cols, c, total, scale, out, mean):
    """:func:`_weighted_row_sums` / ``total`` into ``mean`` and :func:`_gather_centred32` on it into
    ``out``, reading the bits once: each column's signs go to its row of ``out`` with its sum,
    then are centred and scaled in place. The same sums and products, so the same bits as the two."""
    _weighted_row_sums(W, rows, cols, c, mean, out, True)
    for q in range(cols.shape[0]):
        mean[q] = mean[q] / total
        up, down = 1.0 - mean[q], -1.0 - mean[q]
        for r in range(rows.shape[0]):
            out[q, r] = (up if out[q, r] > 0.0 else down) * scale[r]


@njit(cache=True, nogil=True)
def _weighted_row_sums(W, rows, cols, c, out, signs, keep_signs):
    """``out[q] = sum_r c[r] U[rows[r], cols[q]]``, r ascending; with ``keep_signs`` also
    ``signs[q, r] = U[rows[r], cols[q]]``.

    Four columns a pass over the rows: each column's sum is a chain of dependent additions, and
    four independent chains keep the adder busy (one chain at a time waited on each addition: the
    face Hessian's mean and signs of 1024 rows of 100 columns 85 -> 70 us; issue 17). Each sum is
    still taken over r ascending: the same bits."""
    k = cols.shape[0]
    n = rows.shape[0]
    q = 0
    while q + 4 <= k:
        row0, row1, row2, row3 = W[cols[q] // 8], W[cols[q + 1] // 8], W[cols[q + 2] // 8], W[cols[q + 3] // 8]
        sh0, sh1 = np.uint64(cols[q] % 8), np.uint64(cols[q + 1] % 8)
        sh2, sh3 = np.uint64(cols[q + 2] % 8), np.uint64(cols[q + 3] % 8)
        s0 = s1 = s2 = s3 = 0.0
        for r in range(n):
            i = rows[r]
            word = i // 8
            at = np.uint64(8 * (i % 8))
            b0 = (row0[word] >> (at + sh0)) & np.uint64(1)
            b1 = (row1[word] >> (at + sh1)) & np.uint64(1)
            b2 = (row2[word] >> (at + sh2)) & np.uint64(1)
            b3 = (row3[word] >> (at + sh3)) & np.uint64(1)
            cr = c[r]
            s0 += cr if b0 else -cr
            s1 += cr if b1 else -cr
            s2 += cr if b2 else -cr
            s3 += cr if b3 else -cr
            if keep_signs:
                signs[q, r] = 1.0 if b0 else -1.0
                signs[q + 1, r] = 1.0 if b1 else -1.0
                signs[q + 2, r] = 1.0 if b2 else -1.0
                signs[q + 3, r] = 1.0 if b3 else -1.0
        out[q], out[q + 1], out[q + 2], out[q + 3] = s0, s1, s2, s3
        q += 4
    for q in range(q, k):
        row = W[cols[q] // 8]
        shift = cols[q] % 8
        s = 0.0
        for r in range(n):
            i = rows[r]
            bit = (row[i // 8] >> np.uint64(8 * (i % 8) + shift)) & np.uint64(1)
            s += c[r] if bit else -c[r]
            if keep_signs:
                signs[q, r] = 1.0 if bit else -1.0
        out[q] = s


@njit(cache=True, nogil=True)
def _all_below(index, n):
    """Whether every entry of ``index`` lies in ``[0, n)`` (an unsigned compare catches both ends)."""
    bad = False
    for i in range(index.shape[0]):
        bad |= np.uint64(index[i]) >= np.uint64(n)
    return not bad


_LOW_BITS = np.uint64(0x0101010101010101)  # bit 0 of each byte
_BYTE_BITS_TO_TOP = np.uint64(0x0102040810204080)  # times it, bit 0 of byte s -> bit 56 + s


@njit(cache=True, nogil=True)
def _gather_bits(W_bytes, row_bytes, cols, out):
    """``out[q]``: the bits ``U[rows[r], cols[q]] == +1`` at positions r (word r // 64, bit r % 64),
    zero past the last row. ``W_bytes``: the bits as bytes (``W.view(np.uint8)``), where row i of
    group g is byte ``row_bytes[r]`` of ``W_bytes[g]`` for ``i = rows[r]`` (:meth:`BitMarginMatrix.sign_gram`:
    ``i`` itself on a little-endian machine). Columns of one group of 8 that follow each other in
    ``cols`` (all of them when ``cols`` is sorted) are read together: one byte per row gives all of
    their bits.

    The bytes of 8 rows are packed into one word ``x`` (byte s: row s); column c's bits of those
    rows are then ``((x >> c) & 0x0101..01) * 0x0102040810204080 >> 56``, row s at bit s (the
    product's terms ``2^(8s + 7t + 7)`` are distinct powers of two, so nothing carries, and
    ``t = 7 - s`` puts bit s of the top byte on row s): three operations per column and 8 rows
    where there were three a row: 46 -> 17 us for 1024 rows of 100 columns (issue 17). The rows'
    bytes are read as bytes, by unsigned indices (shifting them out of their words, with numba's
    test of a signed index, took 39 -> 25 us for 1024 rows of 64 columns among 300, 57 -> 41 of
    200)."""
    k = cols.shape[0]
    n = row_bytes.shape[0]
    shifts = np.empty(8, dtype=np.uint64)
    words = np.zeros(8, dtype=np.uint64)
    q0 = 0
    while q0 < k:
        g = cols[q0] // 8
        q1 = q0
        while q1 < k and q1 - q0 < 8 and cols[q1] // 8 == g:
            shifts[q1 - q0] = cols[q1] % 8
            q1 += 1
        row = W_bytes[g]
        for r0 in range(0, n, 8):
            x = np.uint64(0)
            for s in range(8):  # a fixed count, unrolled; past the last row, its bytes are cleared below
                r = min(r0 + s, n - 1)
                x |= np.uint64(row[row_bytes[r]]) << np.uint64(8 * s)
            if n - r0 < 8:
                x &= (np.uint64(1) << np.uint64(8 * (n - r0))) - np.uint64(1)
            position = np.uint64(r0 % 64)
            for c in range(q1 - q0):
                eight = (((x >> shifts[c]) & _LOW_BITS) * _BYTE_BITS_TO_TOP) >> np.uint64(56)
                words[c] |= eight << position
            if r0 % 64 == 56 or r0 + 8 >= n:
                for c in range(q1 - q0):
                    out[q0 + c, r0 // 64] = words[c]
                    words[c] = 0
        q0 = q1


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit(cache=True, nogil=True, inline="always")
def _popcount(x):
    """Set bits of a uint64 (the SWAR sum; LLVM compiles it to the popcount instruction)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return (x * _H01) >> np.uint64(56)


@njit(cache=True, nogil=True)
def _sign_gram(B, n):
    """From the (k, words) bits of k +-1 columns over n rows: ``S_ij = sum_r u_ri u_rj =
    n - 2 popcount(b_i xor b_j)`` and ``s_i = sum_r u_ri = 2 popcount(b_i) - n``, as int64."""
    k, words = B.shape
    S = np.empty((k, k), dtype=np.int64)
    s = np.empty(k, dtype=np.int64)
    for i in range(k):
        ones = np.uint64(0)
        for v in range(words):
            ones += _popcount(B[i, v])
        s[i] = 2 * np.int64(ones) - n
        S[i, i] = n
        for j in range(i + 1, k):
            differ = np.uint64(0)
            for v in range(words):
                differ += _popcount(B[i, v] ^ B[j, v])
            S[i, j] = S[j, i] = n - 2 * np.int64(differ)
    return S, s


@njit(cache=True, nogil=True)
def _tables(w, n):
    """``T[g, b] = sum over the live columns c of group g of (+w_{8g+c} if bit c of b else
    -w_{8g+c})``, in ascending c from 0.0."""
    G = (n + 7) // 8
    T = np.empty((G, 256))
    wg = np.empty(8)
    for g in range(n // 8):  # full groups: a fixed trip count, unrolled by the compiler
        for c in range(8):
            wg[c] = w[8 * g + c]
        for b in range(256):
            s = 0.0
            for c in range(8):
                if (b >> c) & 1:
                    s += wg[c]
                else:
                    s -= wg[c]
            T[g, b] = s
    for g in range(n // 8, G):  # the last, partial group: only its live columns
        for b in range(256):
            s = 0.0
            for c in range(n - 8 * g):
                if (b >> c) & 1:
                    s += w[8 * g + c]
                else:
                    s -= w[8 * g + c]
            T[g, b] = s
    return T


_TILE_WORDS = 256  # 2048 examples: 16 KiB of partial sums
_GROUP_CHUNK = 16  # 16 tables of 256 float64: 32 KiB


@njit(cache=True, nogil=True)
def _matvec(W, T, m, out):
    """``out[i] = sum over g ascending of T[g, byte_g(i)]``, from 0.0."""
    G = T.shape[0]
    pairs = m // 16  # two full words (16 examples) per step
    for k0 in range(0, 2 * pairs, _TILE_WORDS):
        k1 = min(k0 + _TILE_WORDS, 2 * pairs)
        for g0 in range(0, G, _GROUP_CHUNK):
            g1 = min(g0 + _GROUP_CHUNK, G)
            for k in range(k0, k1, 2):
                i = 8 * k
                if g0 == 0:
                    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
                    r0 = r1 = r2 = r3 = r4 = r5 = r6 = r7 = 0.0
                else:
                    s0 = out[i]
                    s1 = out[i + 1]
                    s2 = out[i + 2]
                    s3 = out[i + 3]
                    s4 = out[i + 4]
                    s5 = out[i + 5]
                    s6 = out[i + 6]
                    s7 = out[i + 7]
                    r0 = out[i + 8]
                    r1 = out[i + 9]
                    r2 = out[i + 10]
                    r3 = out[i + 11]
                    r4 = out[i + 12]
                    r5 = out[i + 13]
                    r6 = out[i + 14]
                    r7 = out[i + 15]
                for g in range(g0, g1):
                    x = W[g, k]
                    y = W[g, k + 1]
                    tg = T[g]
                    s0 += tg[x & 255]
                    r0 += tg[y & 255]
                    s1 += tg[(x >> 8) & 255]
                    r1 += tg[(y >> 8) & 255]
                    s2 += tg[(x >> 16) & 255]
                    r2 += tg[(y >> 16) & 255]
                    s3 += tg[(x >> 24) & 255]
                    r3 += tg[(y >> 24) & 255]
                    s4 += tg[(x >> 32) & 255]
                    r4 += tg[(y >> 32) & 255]
                    s5 += tg[(x >> 40) & 255]
                    r5 += tg[(y >> 40) & 255]
                    s6 += tg[(x >> 48) & 255]
                    r6 += tg[(y >> 48) & 255]
                    s7 += tg[x >> 56]
                    r7 += tg[y >> 56]
                out[i] = s0
                out[i + 1] = s1
                out[i + 2] = s2
                out[i + 3] = s3
                out[i + 4] = s4
                out[i + 5] = s5
                out[i + 6] = s6
                out[i + 7] = s7
                out[i + 8] = r0
                out[i + 9] = r1
                out[i + 10] = r2
                out[i + 11] = r3
                out[i + 12] = r4
                out[i + 13] = r5
                out[i + 14] = r6
                out[i + 15] = r7
    for i in range(16 * pairs, m):  # the last m % 16 examples, same order
        s = 0.0
        shift = np.uint64(8 * (i % 8))
        for g in range(G):
            s += T[g, (W[g, i // 8] >> shift) & 255]
        out[i] = s


@njit(cache=True, nogil=True)
def _rmatvec(W, d, n, out):
    """``out[j] = sum_b (+-V_g[b])`` from the histograms of ``d`` over the bytes (module doc)."""
    G = (n + 7) // 8
    m = d.shape[0]
    full = m // 8
    H = np.zeros((G, 4, 256))
    for k0 in range(0, full, 4 * _TILE_WORDS):  # d's tile stays in cache across the groups
        k1 = min(k0 + 4 * _TILE_WORDS, full)
        for g in range(G):
            h0 = H[g, 0]
            h1 = H[g, 1]
            h2 = H[g, 2]
            h3 = H[g, 3]
            row = W[g]
            for k in range(k0, k1):
                x = row[k]
                i = 8 * k
                h0[x & 255] += d[i]
                h1[(x >> 8) & 255] += d[i + 1]
                h2[(x >> 16) & 255] += d[i + 2]
                h3[(x >> 24) & 255] += d[i + 3]
                h0[(x >> 32) & 255] += d[i + 4]
                h1[(x >> 40) & 255] += d[i + 5]
                h2[(x >> 48) & 255] += d[i + 6]
                h3[x >> 56] += d[i + 7]
    for i in range(8 * full, m):  # the last m % 8 examples, ascending as above
        shift = np.uint64(8 * (i % 8))
        for g in range(G):
            H[g, i % 4, (W[g, i // 8] >> shift) & 255] += d[i]
    for g in range(G):
        h = H[g]
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0  # column 8g + c's sum in a_c
        for b in range(256):
            v = (h[0, b] + h[1, b]) + (h[2, b] + h[3, b])
            a0 += v if b & 1 else -v
            a1 += v if b & 2 else -v
            a2 += v if b & 4 else -v
            a3 += v if b & 8 else -v
            a4 += v if b & 16 else -v
            a5 += v if b & 32 else -v
            a6 += v if b & 64 else -v
            a7 += v if b & 128 else -v
        live = min(8, n - 8 * g)
        j = 8 * g
        out[j] = a0
        if live > 1:
            out[j + 1] = a1
        if live > 2:
            out[j + 2] = a2
        if live > 3:
            out[j + 3] = a3
        if live > 4:
            out[j + 4] = a4
        if live > 5:
            out[j + 5] = a5
        if live > 6:
            out[j + 6] = a6
        if live > 7:
            out[j + 7] = a7


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
        _matvec(self._W, _tables(w, self.n), self.m, out)
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
        index = np.asarray(index, dtype=np.int64).reshape(-1)
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
        compiled pass each: numpy's min and max took 3.8 of the 4.8 us of a 3-row block, twice a
        pivot of LPBoost's dual simplex; issue 17)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        cols = np.asarray(cols, dtype=np.int64).reshape(-1)
        if not _all_below(rows, self.m):
            raise IndexError(f"row index out of range for {self.m} rows")
        if not _all_below(cols, self.n):
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
        _gather_centred32(self._W, rows, cols, np.asarray(mean, dtype=np.float64),
                          np.asarray(scale, dtype=np.float64), out)
        return out

    def weighted_centred_block_t32(self, rows, cols, weights, total) -> tuple[np.ndarray, np.ndarray]:
        """``(centred_block_t32(rows, cols, mean, sqrt(weights)), mean)`` with ``mean =
        weighted_row_sum(rows, cols, weights) / total``, the bits read once (both in one pass over the
        rows, the same values)."""
        rows, cols = self._checked(rows, cols)
        weights = np.asarray(weights, dtype=np.float64)
        out = np.empty((cols.size, rows.size), dtype=np.float32)
        mean = np.empty(cols.size)
        _gather_weighted_centred32(self._W, rows, cols, weights, float(total), np.sqrt(weights), out, mean)
        return out, mean

    def weighted_row_sum(self, rows, cols, weights) -> np.ndarray:
        """``U[np.ix_(rows, cols)].T @ weights`` (len(cols),) straight from the bits: the face Hessian's
        mean over its few rows, where ``rmatvec`` of a vector zero elsewhere reads all m rows."""
        rows, cols = self._checked(rows, cols)
        out = np.empty(cols.size)
        _weighted_row_sums(self._W, rows, cols, np.asarray(weights, dtype=np.float64), out,
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
