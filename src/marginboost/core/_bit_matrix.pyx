"""The compiled loops of :mod:`marginboost.core.bit_matrix` (layout, summation orders and error
bounds in its module docstring).

Every loop is single-threaded, releases the GIL, and does the operations of the numba kernels it
replaced in the same order (``-ffp-contract=off``, no reassociation; the only products are by +-1,
which are exact), or others of the same result bit for bit (said where): the same input gives the
same bits as under numba.
"""
from libc.math cimport fabs
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from marginboost.core._buffers cimport MB_C, MB_F, MB_F32, MB_F64, MB_I64, MB_U64, MB_U8, mb_acquire, mb_init, mb_release

import numpy as np

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* Set bits of a uint64: the POPCNT instruction under gcc/clang (-march=native), else the SWAR sum. */
    #if defined(__GNUC__) || defined(__clang__)
    static inline uint64_t mbb_popcount(uint64_t x) { return (uint64_t)__builtin_popcountll(x); }
    #else
    static inline uint64_t mbb_popcount(uint64_t x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (x * 0x0101010101010101ULL) >> 56;
    }
    #endif
    /* The value unchanged, opaque to the compiler (an empty asm on it, no instruction): a loop that
       uses it is not vectorised. For the table and bit lookups whose sums must be taken in order,
       where gcc's vectorised loops (gathers, then a lane extraction per term) ran 2-5x slower. */
    static inline uint64_t mbb_scalar(uint64_t x) {
    #if defined(__GNUC__) || defined(__clang__)
        __asm__("" : "+r"(x));
    #endif
        return x;
    }
    /* c if bit else -c (bit 0 or 1), without a branch: the sign bit flipped as negation flips it
       (gcc branched on the double select, mispredicted on random bits: 4x slower). */
    static inline double mbb_plus_minus(double c, uint64_t bit) {
        uint64_t u;
        memcpy(&u, &c, 8);
        u ^= (bit ^ 1) << 63;
        memcpy(&c, &u, 8);
        return c;
    }
    static const uint64_t MBB_LOW_BITS = 0x0101010101010101ULL;  /* bit 0 of each byte */
    static const uint64_t MBB_BYTE_BITS_TO_TOP = 0x0102040810204080ULL;  /* times it: bit 0 of byte s -> bit 56 + s */
    """
    uint64_t mbb_popcount(uint64_t x) noexcept nogil
    uint64_t mbb_scalar(uint64_t x) noexcept nogil
    double mbb_plus_minus(double c, uint64_t bit) noexcept nogil
    const uint64_t MBB_LOW_BITS
    const uint64_t MBB_BYTE_BITS_TO_TOP

cdef enum:
    _TILE_WORDS = 256  # 2048 examples: 16 KiB of partial sums
    _GROUP_CHUNK = 16  # 16 tables of 256 float64: 32 KiB


cdef inline int _below(const int64_t* index, Py_ssize_t count, int64_t bound) noexcept nogil:
    """Whether every entry of ``index[:count]`` lies in ``[0, bound)`` (one unsigned compare each)."""
    cdef Py_ssize_t i
    cdef int bad = 0
    for i in range(count):
        bad |= <uint64_t>index[i] >= <uint64_t>bound
    return not bad


def _pack(u, packed):
    """Bit i of ``packed`` (byte i // 8, bit i % 8) := u_i > 0; the first i with u_i not in
    {-1, +1} (NaN included), or -1 when there is none. Branch-free over the bits: one pass.
    ``u`` float64, ``packed`` uint8 of ceil(m / 8) bytes."""
    cdef Py_buffer bu, bp
    cdef const double* x
    cdef uint8_t* out
    cdef Py_ssize_t m, full, k, e, i
    cdef int ok = 1, p
    cdef double v
    mb_init(&bu)
    mb_init(&bp)
    try:
        mb_acquire(&bu, u, MB_F64, 1, False, MB_C, b"u")
        mb_acquire(&bp, packed, MB_U8, 1, True, MB_C, b"packed")
        m = bu.shape[0]
        full = m // 8
        if bp.shape[0] < (m + 7) // 8:
            raise ValueError("_pack: packed must hold ceil(len(u) / 8) bytes")
        x = <const double*>bu.buf
        out = <uint8_t*>bp.buf
        with nogil:
            for k in range(full):
                p = 0
                for e in range(8):
                    v = x[8 * k + e]
                    ok &= fabs(v) == 1.0
                    p |= (1 if v > 0.0 else 0) << e
                out[k] = <uint8_t>p
            if full < bp.shape[0]:
                p = 0
                for e in range(m - 8 * full):
                    v = x[8 * full + e]
                    ok &= fabs(v) == 1.0
                    p |= (1 if v > 0.0 else 0) << e
                out[full] = <uint8_t>p
        if ok:
            return -1
        for i in range(m):
            if fabs(x[i]) != 1.0:
                return i
        return -1
    finally:
        mb_release(&bu)
        mb_release(&bp)


def _store(W, Py_ssize_t g, int c, packed, spread):
    """Column 8g + c := the packed bits (bit c of every byte of row g; the others kept)."""
    cdef Py_buffer bW, bp, bs
    cdef uint64_t* row
    cdef const uint8_t* pk
    cdef const uint64_t* sp
    cdef Py_ssize_t k, words
    cdef uint64_t keep
    mb_init(&bW)
    mb_init(&bp)
    mb_init(&bs)
    try:
        mb_acquire(&bW, W, MB_U64, 2, True, MB_C, b"W")
        mb_acquire(&bp, packed, MB_U8, 1, False, MB_C, b"packed")
        mb_acquire(&bs, spread, MB_U64, 1, False, MB_C, b"spread")
        words = bW.shape[1]
        if not (0 <= g < bW.shape[0] and 0 <= c < 8) or bp.shape[0] < words or bs.shape[0] < 256:
            raise IndexError("_store: group, bit, packed bytes or spread table out of range")
        row = <uint64_t*>bW.buf + g * words
        pk = <const uint8_t*>bp.buf
        sp = <const uint64_t*>bs.buf
        keep = ~(MBB_LOW_BITS << c)
        with nogil:
            for k in range(words):
                row[k] = (row[k] & keep) | (sp[pk[k]] << c)
    finally:
        mb_release(&bW)
        mb_release(&bp)
        mb_release(&bs)


def _equals(W, Py_ssize_t g, int c, packed, spread):
    """Whether column 8g + c holds the packed bits."""
    cdef Py_buffer bW, bp, bs
    cdef const uint64_t* row
    cdef const uint8_t* pk
    cdef const uint64_t* sp
    cdef Py_ssize_t k, words
    cdef int same = 1
    mb_init(&bW)
    mb_init(&bp)
    mb_init(&bs)
    try:
        mb_acquire(&bW, W, MB_U64, 2, False, MB_C, b"W")
        mb_acquire(&bp, packed, MB_U8, 1, False, MB_C, b"packed")
        mb_acquire(&bs, spread, MB_U64, 1, False, MB_C, b"spread")
        words = bW.shape[1]
        if not (0 <= g < bW.shape[0] and 0 <= c < 8) or bp.shape[0] < words or bs.shape[0] < 256:
            raise IndexError("_equals: group, bit, packed bytes or spread table out of range")
        row = <const uint64_t*>bW.buf + g * words
        pk = <const uint8_t*>bp.buf
        sp = <const uint64_t*>bs.buf
        with nogil:
            for k in range(words):
                if ((row[k] >> c) & MBB_LOW_BITS) != sp[pk[k]]:
                    same = 0
                    break
        return bool(same)
    finally:
        mb_release(&bW)
        mb_release(&bp)
        mb_release(&bs)


def _unpack(W, index, Py_ssize_t m, out):
    """``out[:, q] = U[:, index[q]]`` as float64 +-1 (``out`` Fortran order, (m, len(index)))."""
    cdef Py_buffer bW, bi, bo
    cdef const uint64_t* Wp
    cdef const int64_t* idx
    cdef double* o
    cdef Py_ssize_t q, i, k, e, full = m // 8, words, count
    cdef int64_t j
    cdef uint64_t x, shift
    cdef const uint64_t* row
    cdef double* col
    mb_init(&bW)
    mb_init(&bi)
    mb_init(&bo)
    try:
        mb_acquire(&bW, W, MB_U64, 2, False, MB_C, b"W")
        mb_acquire(&bi, index, MB_I64, 1, False, MB_C, b"index")
        mb_acquire(&bo, out, MB_F64, 2, True, MB_F, b"out")
        words = bW.shape[1]
        count = bi.shape[0]
        idx = <const int64_t*>bi.buf
        if (not _below(idx, count, 8 * bW.shape[0]) or m < 0 or m > 8 * words or bo.shape[0] != m
                or bo.shape[1] < count):
            raise IndexError("_unpack: index, m or out out of range")
        Wp = <const uint64_t*>bW.buf
        o = <double*>bo.buf
        with nogil:
            for q in range(count):
                j = idx[q]
                row = Wp + (j // 8) * words
                shift = j % 8
                col = o + q * m
                for k in range(full):  # a word's 8 examples
                    x = row[k] >> shift
                    for e in range(8):
                        col[8 * k + e] = 1.0 if (x >> (8 * e)) & 1 else -1.0
                for i in range(8 * full, m):
                    col[i] = 1.0 if (row[i // 8] >> (8 * (i % 8) + shift)) & 1 else -1.0
    finally:
        mb_release(&bW)
        mb_release(&bi)
        mb_release(&bo)


def _gather(W, rows, cols, out):
    """``out[r, q] = U[rows[r], cols[q]]`` as float64 +-1 (``out`` Fortran order)."""
    cdef Py_buffer bW, br, bc, bo
    cdef const uint64_t* Wp
    cdef const int64_t* rp
    cdef const int64_t* cp
    cdef double* o
    cdef Py_ssize_t q, r, n, k, words
    cdef uint64_t shift, u
    cdef const uint64_t* row
    cdef double* col
    mb_init(&bW)
    mb_init(&br)
    mb_init(&bc)
    mb_init(&bo)
    try:
        mb_acquire(&bW, W, MB_U64, 2, False, MB_C, b"W")
        mb_acquire(&br, rows, MB_I64, 1, False, MB_C, b"rows")
        mb_acquire(&bc, cols, MB_I64, 1, False, MB_C, b"cols")
        mb_acquire(&bo, out, MB_F64, 2, True, MB_F, b"out")
        words = bW.shape[1]
        n = br.shape[0]
        k = bc.shape[0]
        rp = <const int64_t*>br.buf
        cp = <const int64_t*>bc.buf
        if (not _below(cp, k, 8 * bW.shape[0]) or not _below(rp, n, 8 * words) or bo.shape[0] != n
                or bo.shape[1] < k):
            raise IndexError("_gather: rows, cols or out out of range")
        Wp = <const uint64_t*>bW.buf
        o = <double*>bo.buf
        with nogil:
            for q in range(k):
                row = Wp + (cp[q] // 8) * words
                shift = cp[q] % 8
                col = o + q * n
                for r in range(n):
                    u = <uint64_t>rp[r]  # unsigned (the rows are checked): // 8 and % 8 a shift and a mask
                    col[r] = 1.0 if (row[u >> 3] >> (((u & 7) << 3) + shift)) & 1 else -1.0
    finally:
        mb_release(&bW)
        mb_release(&br)
        mb_release(&bc)
        mb_release(&bo)


def _gather_centred32(W, rows, cols, mean, scale, out):
    """``out[q, r] = float32((U[rows[r], cols[q]] - mean[q]) * scale[r])``, (len(cols), len(rows)),
    C order."""
    cdef Py_buffer bW, br, bc, bm, bs, bo
    cdef const uint64_t* Wp
    cdef const int64_t* rp
    cdef const int64_t* cp
    cdef const double* mp
    cdef const double* sp
    cdef float* o
    cdef Py_ssize_t q, r, k, n, words
    cdef uint64_t shift, u
    cdef double up, down
    cdef const uint64_t* row
    cdef float* orow
    mb_init(&bW)
    mb_init(&br)
    mb_init(&bc)
    mb_init(&bm)
    mb_init(&bs)
    mb_init(&bo)
    try:
        mb_acquire(&bW, W, MB_U64, 2, False, MB_C, b"W")
        mb_acquire(&br, rows, MB_I64, 1, False, MB_C, b"rows")
        mb_acquire(&bc, cols, MB_I64, 1, False, MB_C, b"cols")
        mb_acquire(&bm, mean, MB_F64, 1, False, MB_C, b"mean")
        mb_acquire(&bs, scale, MB_F64, 1, False, MB_C, b"scale")
        mb_acquire(&bo, out, MB_F32, 2, True, MB_C, b"out")
        words = bW.shape[1]
        n = br.shape[0]
        k = bc.shape[0]
        rp = <const int64_t*>br.buf
        cp = <const int64_t*>bc.buf
        if (not _below(cp, k, 8 * bW.shape[0]) or not _below(rp, n, 8 * words) or bm.shape[0] < k
                or bs.shape[0] < n or bo.shape[0] < k or bo.shape[1] != n):
            raise IndexError("_gather_centred32: rows, cols, mean, scale or out out of range")
        Wp = <const uint64_t*>bW.buf
        mp = <const double*>bm.buf
        sp = <const double*>bs.buf
        o = <float*>bo.buf
        with nogil:
            for q in range(k):
                row = Wp + (cp[q] // 8) * words
                shift = cp[q] % 8
                up = 1.0 - mp[q]
                down = -1.0 - mp[q]
                orow = o + q * n
                for r in range(n):
                    u = <uint64_t>rp[r]
                    orow[r] = <float>((up if (row[u >> 3] >> (((u & 7) << 3) + shift)) & 1 else down) * sp[r])
    finally:
        mb_release(&bW)
        mb_release(&br)
        mb_release(&bc)
        mb_release(&bm)
        mb_release(&bs)
        mb_release(&bo)


cdef inline void _quad_sums(const uint64_t* row0, const uint64_t* row1, const uint64_t* row2, const uint64_t* row3,
                            uint64_t sh0, uint64_t sh1, uint64_t sh2, uint64_t sh3, const int64_t* rows,
                            Py_ssize_t n, const double* c, double* out, uint8_t* nib, bint keep) noexcept nogil:
    """Four columns' sums over the rows (see :func:`_weighted_row_sums_c`); with ``keep`` (a constant at
    each call: two loops) their bits into ``nib``."""
    cdef Py_ssize_t r
    cdef uint64_t u, word, at, b0, b1, b2, b3
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, cr
    for r in range(n):
        # not vectorised (gathers): 5x faster; unsigned (the rows are checked), so that // 8
        # and % 8 are a shift and a mask
        u = mbb_scalar(<uint64_t>rows[r])
        word = u >> 3
        at = (u & 7) << 3
        b0 = (row0[word] >> (at + sh0)) & 1
        b1 = (row1[word] >> (at + sh1)) & 1
        b2 = (row2[word] >> (at + sh2)) & 1
        b3 = (row3[word] >> (at + sh3)) & 1
        cr = c[r]
        s0 += mbb_plus_minus(cr, b0)  # cr if b0 else -cr
        s1 += mbb_plus_minus(cr, b1)
        s2 += mbb_plus_minus(cr, b2)
        s3 += mbb_plus_minus(cr, b3)
        if keep:
            nib[r] = <uint8_t>(b0 | (b1 << 1) | (b2 << 2) | (b3 << 3))
    out[0] = s0
    out[1] = s1
    out[2] = s2
    out[3] = s3


cdef void _weighted_row_sums_c(const uint64_t* W, Py_ssize_t words, const int64_t* rows, Py_ssize_t n,
                               const int64_t* cols, Py_ssize_t k, const double* c, double* out,
                               uint8_t* nibbles) noexcept nogil:
    """``out[q] = sum_r c[r] U[rows[r], cols[q]]``, r ascending; with ``nibbles`` (not NULL, zeroed,
    ``ceil(k / 4) n`` bytes) also the signs, ``U[rows[r], cols[q]] = +1`` as bit ``q % 4`` of byte
    ``(q // 4) n + r``.

    Four columns a pass over the rows: each column's sum is a chain of dependent additions, and four
    independent chains keep the adder busy; each sum still over r ascending. The signs as bits, one
    byte a row for four columns: numba's loop stored them as four float32 +-1 (its callers'
    layout), which cost gcc's loop half as much again as the sums (the expansion to floats is a
    vectorised pass of its own). ``c[r] if bit else -c[r]`` by flipping the sign bit (no branch to
    mispredict on random bits)."""
    cdef Py_ssize_t q = 0, r
    cdef uint64_t u, shift, bit
    cdef const uint64_t* row0
    cdef uint8_t* nib
    cdef double s
    while q + 4 <= k:
        if nibbles != NULL:
            _quad_sums(W + (cols[q] // 8) * words, W + (cols[q + 1] // 8) * words, W + (cols[q + 2] // 8) * words,
                       W + (cols[q + 3] // 8) * words, cols[q] % 8, cols[q + 1] % 8, cols[q + 2] % 8,
                       cols[q + 3] % 8, rows, n, c, out + q, nibbles + (q // 4) * n, True)
        else:
            _quad_sums(W + (cols[q] // 8) * words, W + (cols[q + 1] // 8) * words, W + (cols[q + 2] // 8) * words,
                       W + (cols[q + 3] // 8) * words, cols[q] % 8, cols[q + 1] % 8, cols[q + 2] % 8,
                       cols[q + 3] % 8, rows, n, c, out + q, NULL, False)
        q += 4
    while q < k:
        row0 = W + (cols[q] // 8) * words
        shift = cols[q] % 8
        s = 0.0
        nib = nibbles + (q // 4) * n if nibbles != NULL else NULL
        for r in range(n):
            u = mbb_scalar(<uint64_t>rows[r])
            bit = (row0[u >> 3] >> (((u & 7) << 3) + shift)) & 1
            s += mbb_plus_minus(c[r], bit)
            if nib != NULL:
                nib[r] |= <uint8_t>(bit << (q % 4))
        out[q] = s
        q += 1


def _weighted_row_sums(W, rows, cols, c, out, signs, bint keep_signs):
    """``out[q] = sum_r c[r] U[rows[r], cols[q]]``, r ascending; with ``keep_signs`` also
    ``signs[q, r] = U[rows[r], cols[q]]`` (float32 +-1, (len(cols), len(rows)), C order)."""
    cdef Py_buffer bW, br, bc, bcc, bo, bs
    cdef const int64_t* rp
    cdef const int64_t* cp
    cdef Py_ssize_t k, n, q, r, words
    cdef int j
    cdef uint8_t* nibbles = NULL
    cdef const uint8_t* nib
    cdef float* srow
    mb_init(&bW)
    mb_init(&br)
    mb_init(&bc)
    mb_init(&bcc)
    mb_init(&bo)
    mb_init(&bs)
    try:
        mb_acquire(&bW, W, MB_U64, 2, False, MB_C, b"W")
        mb_acquire(&br, rows, MB_I64, 1, False, MB_C, b"rows")
        mb_acquire(&bc, cols, MB_I64, 1, False, MB_C, b"cols")
        mb_acquire(&bcc, c, MB_F64, 1, False, MB_C, b"c")
        mb_acquire(&bo, out, MB_F64, 1, True, MB_C, b"out")
        words = bW.shape[1]
        n = br.shape[0]
        k = bc.shape[0]
        rp = <const int64_t*>br.buf
        cp = <const int64_t*>bc.buf
        if keep_signs:
            mb_acquire(&bs, signs, MB_F32, 2, True, MB_C, b"signs")
        if (not _below(cp, k, 8 * bW.shape[0]) or not _below(rp, n, 8 * words) or bcc.shape[0] < n
                or bo.shape[0] < k or (keep_signs and (bs.shape[0] < k or bs.shape[1] != n))):
            raise IndexError("_weighted_row_sums: rows, cols, c, out or signs out of range")
        if k == 0:
            return
        if keep_signs and n:
            nibbles = <uint8_t*>calloc(((k + 3) // 4) * n, 1)
            if nibbles == NULL:
                raise MemoryError()
        with nogil:
            _weighted_row_sums_c(<const uint64_t*>bW.buf, words, rp, n, cp, k, <const double*>bcc.buf,
                                 <double*>bo.buf, nibbles)
            if nibbles != NULL:
                for q in range(k):
                    nib = nibbles + (q // 4) * n
                    j = q % 4
                    srow = <float*>bs.buf + q * n
                    for r in range(n):  # a select in the vectorised loop (a blend), no branch
                        srow[r] = 1.0 if (nib[r] >> j) & 1 else -1.0
    finally:
        free(nibbles)
        mb_release(&bW)
        mb_release(&br)
        mb_release(&bc)
        mb_release(&bcc)
        mb_release(&bo)
        mb_release(&bs)


def _gather_weighted_centred32(W, rows, cols, c, double total, scale, out, mean):
    """:func:`_weighted_row_sums` / ``total`` into ``mean`` and :func:`_gather_centred32` on it into
    ``out``, reading the bits once: each column's signs are kept with its sum (as bits), then
    centred and scaled into ``out``. The same sums and products, so the same bits as the two."""
    cdef Py_buffer bW, br, bc, bcc, bsc, bo, bm
    cdef const int64_t* rp
    cdef const int64_t* cp
    cdef const double* sp
    cdef double* mp
    cdef Py_ssize_t k, n, q, r, words
    cdef int j
    cdef double up, down
    cdef uint8_t* nibbles = NULL
    cdef const uint8_t* nib
    cdef float* orow
    mb_init(&bW)
    mb_init(&br)
    mb_init(&bc)
    mb_init(&bcc)
    mb_init(&bsc)
    mb_init(&bo)
    mb_init(&bm)
    try:
        mb_acquire(&bW, W, MB_U64, 2, False, MB_C, b"W")
        mb_acquire(&br, rows, MB_I64, 1, False, MB_C, b"rows")
        mb_acquire(&bc, cols, MB_I64, 1, False, MB_C, b"cols")
        mb_acquire(&bcc, c, MB_F64, 1, False, MB_C, b"c")
        mb_acquire(&bsc, scale, MB_F64, 1, False, MB_C, b"scale")
        mb_acquire(&bo, out, MB_F32, 2, True, MB_C, b"out")
        mb_acquire(&bm, mean, MB_F64, 1, True, MB_C, b"mean")
        words = bW.shape[1]
        n = br.shape[0]
        k = bc.shape[0]
        rp = <const int64_t*>br.buf
        cp = <const int64_t*>bc.buf
        if (not _below(cp, k, 8 * bW.shape[0]) or not _below(rp, n, 8 * words) or bcc.shape[0] < n
                or bsc.shape[0] < n or bm.shape[0] < k or bo.shape[0] < k or bo.shape[1] != n):
            raise IndexError("_gather_weighted_centred32: rows, cols, c, scale, out or mean out of range")
        if k == 0:
            return
        if total == 0.0:
            raise ZeroDivisionError("division by zero")  # numba's, at mean[q] / total
        nibbles = <uint8_t*>calloc(((k + 3) // 4) * n + 1, 1)
        if nibbles == NULL:
            raise MemoryError()
        sp = <const double*>bsc.buf
        mp = <double*>bm.buf
        with nogil:
            _weighted_row_sums_c(<const uint64_t*>bW.buf, words, rp, n, cp, k, <const double*>bcc.buf, mp,
                                 nibbles)
            for q in range(k):
                mp[q] = mp[q] / total
                up = 1.0 - mp[q]
                down = -1.0 - mp[q]
                nib = nibbles + (q // 4) * n
                j = q % 4
                orow = <float*>bo.buf + q * n
                for r in range(n):  # a select in the vectorised loop (a blend), no branch
                    orow[r] = <float>((up if (nib[r] >> j) & 1 else down) * sp[r])
    finally:
        free(nibbles)
        mb_release(&bW)
        mb_release(&br)
        mb_release(&bc)
        mb_release(&bcc)
        mb_release(&bsc)
        mb_release(&bo)
        mb_release(&bm)


def _all_below(index, int64_t n):
    """Whether every entry of ``index`` (int64) lies in ``[0, n)`` (an unsigned compare catches both ends)."""
    cdef Py_buffer bi
    cdef int ok
    mb_init(&bi)
    try:
        mb_acquire(&bi, index, MB_I64, 1, False, MB_C, b"index")
        with nogil:
            ok = _below(<const int64_t*>bi.buf, bi.shape[0], n)
        return bool(ok)
    finally:
        mb_release(&bi)


def _rows_cols_below(rows, int64_t m, cols, int64_t n):
    """:func:`_all_below` of ``rows`` and ``m`` and of ``cols`` and ``n`` in one call: 0 where both
    hold, 1 where a row is out of range, else 2 (``BitMarginMatrix._checked``'s two tests; a call
    and its arguments are much of a small block's time)."""
    cdef Py_buffer br, bc
    cdef int rows_ok, cols_ok
    mb_init(&br)
    mb_init(&bc)
    try:
        mb_acquire(&br, rows, MB_I64, 1, False, MB_C, b"rows")
        mb_acquire(&bc, cols, MB_I64, 1, False, MB_C, b"cols")
        with nogil:
            rows_ok = _below(<const int64_t*>br.buf, br.shape[0], m)
            cols_ok = _below(<const int64_t*>bc.buf, bc.shape[0], n)
        return 0 if rows_ok and cols_ok else (1 if not rows_ok else 2)
    finally:
        mb_release(&br)
        mb_release(&bc)


def _gather_bits(W_bytes, row_bytes, cols, out):
    """``out[q]``: the bits ``U[rows[r], cols[q]] == +1`` at positions r (word r // 64, bit r % 64),
    zero past the last row. ``W_bytes``: the bits as bytes (``W.view(np.uint8)``), where row i of
    group g is byte ``row_bytes[r]`` of ``W_bytes[g]`` for ``i = rows[r]``. Columns of one group of 8
    that follow each other in ``cols`` (all of them when ``cols`` is sorted) are read together: one
    byte per row gives all of their bits.

    The bytes of 8 rows are packed into one word ``x`` (byte s: row s); column c's bits of those
    rows are then ``((x >> c) & 0x0101..01) * 0x0102040810204080 >> 56``, row s at bit s (the
    product's terms ``2^(8s + 7t + 7)`` are distinct powers of two, so nothing carries, and
    ``t = 7 - s`` puts bit s of the top byte on row s): three operations per column and 8 rows."""
    cdef Py_buffer bW, brb, bc, bo
    cdef const uint8_t* Wb
    cdef const uint64_t* rb
    cdef const int64_t* cp
    cdef uint64_t* o
    cdef Py_ssize_t k, n, q0, q1, r0, r, s, cc, nc, row_len, out_words
    cdef int64_t g
    cdef uint64_t x, position, eight
    cdef uint64_t shifts[8]
    cdef uint64_t words[8]
    cdef const uint8_t* row
    cdef int bad = 0
    mb_init(&bW)
    mb_init(&brb)
    mb_init(&bc)
    mb_init(&bo)
    try:
        mb_acquire(&bW, W_bytes, MB_U8, 2, False, MB_C, b"W_bytes")
        mb_acquire(&brb, row_bytes, MB_U64, 1, False, MB_C, b"row_bytes")
        mb_acquire(&bc, cols, MB_I64, 1, False, MB_C, b"cols")
        mb_acquire(&bo, out, MB_U64, 2, True, MB_C, b"out")
        k = bc.shape[0]
        n = brb.shape[0]
        row_len = bW.shape[1]
        out_words = bo.shape[1]
        Wb = <const uint8_t*>bW.buf
        rb = <const uint64_t*>brb.buf
        cp = <const int64_t*>bc.buf
        o = <uint64_t*>bo.buf
        for r in range(n):
            bad |= rb[r] >= <uint64_t>row_len
        if not _below(cp, k, 8 * bW.shape[0]) or bad or bo.shape[0] < k or out_words < (n + 63) // 64:
            raise IndexError("_gather_bits: cols, row bytes or out out of range")
        with nogil:
            for cc in range(8):
                words[cc] = 0
            q0 = 0
            while q0 < k:
                g = cp[q0] // 8
                q1 = q0
                while q1 < k and q1 - q0 < 8 and cp[q1] // 8 == g:
                    shifts[q1 - q0] = cp[q1] % 8
                    q1 += 1
                nc = q1 - q0
                row = Wb + g * row_len
                for r0 in range(0, n, 8):
                    x = 0
                    for s in range(8):  # a fixed count, unrolled; past the last row, its bytes are cleared below
                        r = r0 + s if r0 + s < n - 1 else n - 1
                        x |= <uint64_t>row[rb[r]] << (8 * s)
                    if n - r0 < 8:
                        x &= (<uint64_t>1 << (8 * (n - r0))) - 1
                    position = r0 % 64
                    for cc in range(nc):
                        eight = (((x >> shifts[cc]) & MBB_LOW_BITS) * MBB_BYTE_BITS_TO_TOP) >> 56
                        words[cc] |= eight << position
                    if r0 % 64 == 56 or r0 + 8 >= n:
                        for cc in range(nc):
                            o[(q0 + cc) * out_words + r0 // 64] = words[cc]
                            words[cc] = 0
                q0 = q1
    finally:
        mb_release(&bW)
        mb_release(&brb)
        mb_release(&bc)
        mb_release(&bo)


def _sign_gram(B, int64_t n):
    """From the (k, words) bits of k +-1 columns over n rows: ``S_ij = sum_r u_ri u_rj =
    n - 2 popcount(b_i xor b_j)`` and ``s_i = sum_r u_ri = 2 popcount(b_i) - n``, as int64."""
    cdef Py_buffer bB, bS, bs
    cdef const uint64_t* Bp
    cdef int64_t* S
    cdef int64_t* s
    cdef Py_ssize_t k, words, i, j, v
    cdef uint64_t ones, differ
    cdef const uint64_t* bi
    cdef const uint64_t* bj
    mb_init(&bB)
    mb_init(&bS)
    mb_init(&bs)
    try:
        mb_acquire(&bB, B, MB_U64, 2, False, MB_C, b"B")
        k = bB.shape[0]
        words = bB.shape[1]
        S_array = np.empty((k, k), dtype=np.int64)
        s_array = np.empty(k, dtype=np.int64)
        mb_acquire(&bS, S_array, MB_I64, 2, True, MB_C, b"S")
        mb_acquire(&bs, s_array, MB_I64, 1, True, MB_C, b"s")
        Bp = <const uint64_t*>bB.buf
        S = <int64_t*>bS.buf
        s = <int64_t*>bs.buf
        with nogil:
            for i in range(k):
                bi = Bp + i * words
                ones = 0
                for v in range(words):
                    ones += mbb_popcount(bi[v])
                s[i] = 2 * <int64_t>ones - n
                S[i * k + i] = n
                for j in range(i + 1, k):
                    bj = Bp + j * words
                    differ = 0
                    for v in range(words):
                        differ += mbb_popcount(bi[v] ^ bj[v])
                    S[i * k + j] = n - 2 * <int64_t>differ
                    S[j * k + i] = S[i * k + j]
        return S_array, s_array
    finally:
        mb_release(&bB)
        mb_release(&bS)
        mb_release(&bs)


cdef void _tables_c(const double* w, Py_ssize_t n, double* T) noexcept nogil:
    """``T[g, b]`` (G x 256, C order) of :func:`_tables`: each entry a sum over c ascending from 0.0;
    computed a column at a time over the 256 patterns (the same terms in the same order per entry, a
    loop the compiler vectorises)."""
    cdef Py_ssize_t G = (n + 7) // 8, g, b, c, live
    cdef double wc
    cdef double* t
    for g in range(G):
        t = T + 256 * g
        live = n - 8 * g if n - 8 * g < 8 else 8
        for b in range(256):
            t[b] = 0.0
        for c in range(live):
            wc = w[8 * g + c]
            for b in range(256):
                t[b] = t[b] + (wc if (b >> c) & 1 else -wc)  # s + (-w) is s - w, bit for bit


def _tables(w, Py_ssize_t n):
    """``T[g, b] = sum over the live columns c of group g of (+w_{8g+c} if bit c of b else
    -w_{8g+c})``, in ascending c from 0.0; (ceil(n / 8), 256) float64."""
    cdef Py_buffer bw, bT
    cdef Py_ssize_t G = (n + 7) // 8
    mb_init(&bw)
    mb_init(&bT)
    try:
        mb_acquire(&bw, w, MB_F64, 1, False, MB_C, b"w")
        if bw.shape[0] < n or n < 0:
            raise ValueError("_tables: w must hold n weights")
        T_array = np.empty((G, 256))
        mb_acquire(&bT, T_array, MB_F64, 2, True, MB_C, b"T")
        if G:
            with nogil:
                _tables_c(<const double*>bw.buf, n, <double*>bT.buf)
        return T_array
    finally:
        mb_release(&bw)
        mb_release(&bT)


cdef void _matvec_c(const uint64_t* W, Py_ssize_t words, const double* T, Py_ssize_t G, Py_ssize_t m,
                    double* out) noexcept nogil:
    """``out[i] = sum over g ascending of T[g, byte_g(i)]``, from 0.0: 16 examples (two words) a step
    with 16 running sums, groups in chunks of 16 tables (32 KiB), examples in tiles of 2048."""
    cdef Py_ssize_t pairs = m // 16, k0, k1, g0, g1, k, g, i
    cdef uint64_t x, y, shift
    cdef const double* tg
    cdef const uint64_t* wg
    cdef double s0, s1, s2, s3, s4, s5, s6, s7, r0, r1, r2, r3, r4, r5, r6, r7, s
    k0 = 0
    while k0 < 2 * pairs:
        k1 = k0 + _TILE_WORDS if k0 + _TILE_WORDS < 2 * pairs else 2 * pairs
        g0 = 0
        while g0 < G:
            g1 = g0 + _GROUP_CHUNK if g0 + _GROUP_CHUNK < G else G
            k = k0
            while k < k1:
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
                    wg = W + g * words
                    x = mbb_scalar(wg[k])  # not vectorised (gathers): 2x faster
                    y = mbb_scalar(wg[k + 1])
                    tg = T + 256 * g
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
                k += 2
            g0 = g1
        k0 = k1
    for i in range(16 * pairs, m):  # the last m % 16 examples, same order
        s = 0.0
        shift = 8 * (i % 8)
        for g in range(G):
            s += T[256 * g + ((W[g * words + i // 8] >> shift) & 255)]
        out[i] = s


def _matvec(W, T, Py_ssize_t m, out):
    """``out[i] = sum over g ascending of T[g, byte_g(i)]``, from 0.0."""
    cdef Py_buffer bW, bT, bo
    cdef Py_ssize_t G, i
    mb_init(&bW)
    mb_init(&bT)
    mb_init(&bo)
    try:
        mb_acquire(&bW, W, MB_U64, 2, False, MB_C, b"W")
        mb_acquire(&bT, T, MB_F64, 2, False, MB_C, b"T")
        mb_acquire(&bo, out, MB_F64, 1, True, MB_C, b"out")
        G = bT.shape[0]
        if G > bW.shape[0] or m < 0 or m > 8 * bW.shape[1] or bo.shape[0] < m or bT.shape[1] != 256:
            raise IndexError("_matvec: W, T, m or out do not match")
        with nogil:
            if G == 0:
                for i in range(m):
                    (<double*>bo.buf)[i] = 0.0
            elif m:
                _matvec_c(<const uint64_t*>bW.buf, bW.shape[1], <const double*>bT.buf, G, m, <double*>bo.buf)
    finally:
        mb_release(&bW)
        mb_release(&bT)
        mb_release(&bo)


def _matvec_w(W, w, Py_ssize_t n, Py_ssize_t m, out):
    """:func:`_tables` of ``w`` then :func:`_matvec`, the tables in scratch memory (one call from
    ``BitMarginMatrix.matvec``, no table array); the same bits. ``n >= 1``."""
    cdef Py_buffer bW, bw, bo
    cdef Py_ssize_t G = (n + 7) // 8
    cdef double* T = NULL
    mb_init(&bW)
    mb_init(&bw)
    mb_init(&bo)
    try:
        mb_acquire(&bW, W, MB_U64, 2, False, MB_C, b"W")
        mb_acquire(&bw, w, MB_F64, 1, False, MB_C, b"w")
        mb_acquire(&bo, out, MB_F64, 1, True, MB_C, b"out")
        if n < 1 or bw.shape[0] < n or G > bW.shape[0] or m < 1 or m > 8 * bW.shape[1] or bo.shape[0] < m:
            raise IndexError("_matvec_w: W, w, n, m or out do not match")
        T = <double*>malloc(256 * G * sizeof(double))
        if T == NULL:
            raise MemoryError()
        with nogil:
            _tables_c(<const double*>bw.buf, n, T)
            _matvec_c(<const uint64_t*>bW.buf, bW.shape[1], T, G, m, <double*>bo.buf)
    finally:
        free(T)
        mb_release(&bW)
        mb_release(&bw)
        mb_release(&bo)


cdef void _rmatvec_c(const uint64_t* W, Py_ssize_t words, const double* d, Py_ssize_t m, Py_ssize_t n,
                     double* H, double* out) noexcept nogil:
    """``out[j] = sum_b (+-V_g[b])`` from the histograms ``H`` (G x 4 x 256, zeroed) of ``d`` over the
    bytes (module doc of ``bit_matrix``)."""
    cdef Py_ssize_t G = (n + 7) // 8, full = m // 8, k0, k1, g, k, i, b, c, live, j
    cdef uint64_t x, shift
    cdef double* h0
    cdef double* h1
    cdef double* h2
    cdef double* h3
    cdef const uint64_t* row
    cdef double v
    cdef double a[8]
    k0 = 0
    while k0 < full:  # d's tile stays in cache across the groups
        k1 = k0 + 4 * _TILE_WORDS if k0 + 4 * _TILE_WORDS < full else full
        for g in range(G):
            h0 = H + 1024 * g
            h1 = h0 + 256
            h2 = h0 + 512
            h3 = h0 + 768
            row = W + g * words
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
        k0 = k1
    for i in range(8 * full, m):  # the last m % 8 examples, ascending as above
        shift = 8 * (i % 8)
        for g in range(G):
            H[1024 * g + 256 * (i % 4) + ((W[g * words + i // 8] >> shift) & 255)] += d[i]
    for g in range(G):
        h0 = H + 1024 * g
        for c in range(8):
            a[c] = 0.0  # column 8g + c's sum in a[c]
        for b in range(256):
            v = (h0[b] + h0[256 + b]) + (h0[512 + b] + h0[768 + b])
            for c in range(8):
                a[c] += v if (b >> c) & 1 else -v
        live = n - 8 * g if n - 8 * g < 8 else 8
        j = 8 * g
        for c in range(live):
            out[j + c] = a[c]


def _rmatvec(W, d, Py_ssize_t n, out):
    """``out[j] = sum_b (+-V_g[b])`` from the histograms of ``d`` over the bytes (module doc)."""
    cdef Py_buffer bW, bd, bo
    cdef Py_ssize_t G = (n + 7) // 8, m
    cdef double* H = NULL
    mb_init(&bW)
    mb_init(&bd)
    mb_init(&bo)
    try:
        mb_acquire(&bW, W, MB_U64, 2, False, MB_C, b"W")
        mb_acquire(&bd, d, MB_F64, 1, False, MB_C, b"d")
        mb_acquire(&bo, out, MB_F64, 1, True, MB_C, b"out")
        m = bd.shape[0]
        if n < 0 or G > bW.shape[0] or m > 8 * bW.shape[1] or bo.shape[0] < n:
            raise IndexError("_rmatvec: W, d, n or out do not match")
        if G == 0:
            return
        H = <double*>calloc(1024 * G, sizeof(double))
        if H == NULL:
            raise MemoryError()
        with nogil:
            _rmatvec_c(<const uint64_t*>bW.buf, bW.shape[1], <const double*>bd.buf, m, n, H, <double*>bo.buf)
    finally:
        free(H)
        mb_release(&bW)
        mb_release(&bd)
        mb_release(&bo)
