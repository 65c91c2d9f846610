"""The compiled loops of :mod:`marginboost.soft_margin.entropic_master` (the method and its
bookkeeping are described there): the free rows of the face Hessian and their systematic sample,
the Hessian's symmetric float64 form, the KKT matrix, and the active-set steps of an iteration.

Vectors are float64 of any stride (``d``, ``w``, ``v``, ``c``, ``caps``); ``upper`` (syrk's output)
float32 or float64 and ``H`` float64 in any layout; ``S``, ``s`` int64. Arrays are taken by the
buffer protocol (``core/_buffers.pxd``): a typed memoryview costs about 150 ns an argument, a tenth of
some of these calls. The same operations per entry as the numpy lines they replaced (issue 17), so
the same bits.
"""
from libc.math cimport INFINITY
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

import numpy as np

from marginboost.core._buffers cimport Buffers, mb_release_taken, mb_take, MB_C, MB_STRIDED, MB_F64, MB_FLOAT, MB_I64

cdef object _empty = np.empty
cdef object _zeros = np.zeros
cdef object _INT64 = np.dtype(np.int64)
cdef object _FLOAT64 = np.dtype(np.float64)


cdef inline double _max(double a, double b) noexcept nogil:
    """Python's ``max(a, b)`` of two floats: ``b if b > a else a``."""
    return b if b > a else a


cdef inline double _largest_c(const double* d, Py_ssize_t n, Py_ssize_t st) noexcept nogil:
    cdef double m0 = d[0], m1 = d[0], m2 = d[0], m3 = d[0]
    cdef Py_ssize_t i = 0
    while i < n - 3:
        m0 = _max(m0, d[i * st])
        m1 = _max(m1, d[(i + 1) * st])
        m2 = _max(m2, d[(i + 2) * st])
        m3 = _max(m3, d[(i + 3) * st])
        i += 4
    for i in range(n - n % 4, n):
        m0 = _max(m0, d[i * st])
    return _max(_max(m0, m1), _max(m2, m3))


def _largest(d):
    """``max(d)`` (no NaN in ``d``) by four running maxima: a single one waits at each example on the
    comparison before, 4.3 us at m = 7400, a third of :func:`_rows_between` (issue 17)."""
    cdef Buffers bs
    cdef Py_ssize_t n = 0, st = 1
    cdef const double* pd
    cdef double out
    bs.n = 0
    try:
        pd = <const double*>mb_take(&bs, d, MB_F64, 1, MB_STRIDED, False, &n, &st, b"d")
        if n == 0:
            raise ValueError("_largest of an empty array")
        with nogil:
            out = _largest_c(pd, n, 1) if st == 1 else _largest_c(pd, n, st)
    finally:
        mb_release_taken(&bs)
    return out


cdef inline Py_ssize_t _select_c(const double* d, Py_ssize_t m, Py_ssize_t st, double cap, const double* caps,
                                 Py_ssize_t cst, bint per_example, double floor, int64_t* rows) noexcept nogil:
    """``rows[:n]``: the i with ``floor < d_i < cap_i (1 - 1e-12)``, ascending; returns n."""
    cdef Py_ssize_t n = 0, i
    cdef double c, di
    for i in range(m):
        rows[n] = i
        di = d[i * st]
        c = caps[i * cst] if per_example else cap
        n += (di < c * (1.0 - 1e-12)) & (di > floor)
    return n


cdef void _pick_c(const double* d, Py_ssize_t st, const int64_t* rows, Py_ssize_t n, Py_ssize_t sample,
                  double* cumulative, int64_t* out, double* total) noexcept nogil:
    """:func:`_systematic_sample` of ``c = d[rows]`` (n >= 1, sample >= 1), the picks mapped through
    ``rows`` (``rows`` NULL: the picks themselves)."""
    cdef double running = 0.0, step, point
    cdef Py_ssize_t i, k
    for i in range(n):
        running += d[(rows[i] if rows != NULL else i) * st]
        cumulative[i] = running
    step = cumulative[n - 1] / <double>sample
    i = 0
    for k in range(sample):
        point = (k + 0.5) * step
        while i < n and cumulative[i] <= point:
            i += 1
        out[k] = (rows[i if i < n - 1 else n - 1] if rows != NULL else (i if i < n - 1 else n - 1))
    total[0] = cumulative[n - 1]


cdef inline int _check_sample(Py_ssize_t sample) except -1:
    if sample < 0:
        raise ValueError("negative dimensions not allowed")
    if sample == 0:
        raise ZeroDivisionError("division by zero")
    return 0


def _rows_between(d, double cap, caps, bint per_example, double cutoff, Py_ssize_t sample, Py_ssize_t threshold):
    """:func:`_free_rows` compiled (``threshold < 0``: never sampled): ``(rows, total, sampled)``."""
    cdef Buffers bs
    cdef Py_ssize_t m = 0, st = 1, n_caps = 0, cst = 1, n = 0, n_out = 0
    cdef const double* pd
    cdef const double* pcaps
    cdef int64_t* pout
    cdef int64_t* rows = NULL
    cdef double* cumulative = NULL
    cdef double floor, total = 0.0
    cdef bint sampled
    bs.n = 0
    try:
        pd = <const double*>mb_take(&bs, d, MB_F64, 1, MB_STRIDED, False, &m, &st, b"d")
        pcaps = <const double*>mb_take(&bs, caps, MB_F64, 1, MB_STRIDED, False, &n_caps, &cst, b"caps")
        if per_example and n_caps < m:
            raise ValueError(f"caps has {n_caps} entries, needs at least {m}")
        rows = <int64_t*>malloc(m * sizeof(int64_t) + 8)
        if rows == NULL:
            raise MemoryError()
        if m:
            with nogil:
                floor = cutoff * (_largest_c(pd, m, 1) if st == 1 else _largest_c(pd, m, st))
                if st == 1 and cst == 1:
                    n = _select_c(pd, m, 1, cap, pcaps, 1, per_example, floor, rows)
                else:
                    n = _select_c(pd, m, st, cap, pcaps, cst, per_example, floor, rows)
        sampled = not (threshold < 0 or n <= threshold)
        if not sampled:
            out = _empty(n, _INT64)
            if n:
                memcpy(mb_take(&bs, out, MB_I64, 1, MB_C, True, &n_out, NULL, b"out"), rows, n * sizeof(int64_t))
        else:
            _check_sample(sample)
            out = _empty(sample, _INT64)
            cumulative = <double*>malloc(n * sizeof(double) + 8)
            if cumulative == NULL:
                raise MemoryError()
            pout = <int64_t*>mb_take(&bs, out, MB_I64, 1, MB_C, True, &n_out, NULL, b"out")
            with nogil:
                _pick_c(pd, st, rows, n, sample, cumulative, pout, &total)
    finally:
        free(rows)
        free(cumulative)
        mb_release_taken(&bs)
    return out, total, sampled


def _systematic_sample(c, Py_ssize_t sample):
    """Systematic sampling in proportion to ``c``: the index of the entry each of the points
    ``(k + 1/2) C / sample`` (k < sample, C = sum c) falls in on the cumulative sums, and C.

    ``np.searchsorted(np.cumsum(c), points, side='right')`` (capped at the last index) in one
    merge-like pass, the points being sorted: 1 ms at 10^5 free examples, a tenth of a Newton
    step's Hessian, now 0.3 ms (issue 17). The same sums in the same order: the same picks.
    """
    cdef Buffers bs
    cdef Py_ssize_t n = 0, st = 1, n_out = 0
    cdef const double* pc
    cdef int64_t* pout
    cdef double* cumulative = NULL
    cdef double total = 0.0
    bs.n = 0
    try:
        pc = <const double*>mb_take(&bs, c, MB_F64, 1, MB_STRIDED, False, &n, &st, b"c")
        if n == 0:
            raise ValueError("_systematic_sample of an empty array")
        _check_sample(sample)
        picked = _empty(sample, _INT64)
        pout = <int64_t*>mb_take(&bs, picked, MB_I64, 1, MB_C, True, &n_out, NULL, b"picked")
        cumulative = <double*>malloc(n * sizeof(double))
        if cumulative == NULL:
            raise MemoryError()
        with nogil:
            _pick_c(pc, st, NULL, n, sample, cumulative, pout, &total)
    finally:
        free(cumulative)
        mb_release_taken(&bs)
    return picked, total


# ----------------------------------------------------------------------------- Hessian, KKT matrix


cdef void _symmetric_f64(const double* up, Py_ssize_t s0, Py_ssize_t s1, Py_ssize_t k, double eta, double total,
                         const double* mean, Py_ssize_t ms, bint centre, double* out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef double x
    for i in range(k):
        for j in range(k):
            x = up[i * s0 + j * s1] if i <= j else up[j * s0 + i * s1]
            if centre:
                x = x - total * (mean[i * ms] * mean[j * ms])
            out[i * k + j] = eta * x


cdef void _symmetric_f32(const float* up, Py_ssize_t s0, Py_ssize_t s1, Py_ssize_t k, double eta, double total,
                         const double* mean, Py_ssize_t ms, bint centre, double* out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef double x
    for i in range(k):
        for j in range(k):
            x = <double>(up[i * s0 + j * s1] if i <= j else up[j * s0 + i * s1])
            if centre:
                x = x - total * (mean[i * ms] * mean[j * ms])
            out[i * k + j] = eta * x


def _symmetric_hessian(upper, double eta, double total, mean, bint centre):
    """``eta (S - total mean mean^T)`` (``centre``) or ``eta S`` as a float64 symmetric matrix, ``S``
    given by its upper triangle ``upper`` (syrk's output, float32 or float64): one pass where the
    numpy version (triu, astype, transpose-add, outer, scale) took five passes and temporaries, with
    the KKT matrix about 60 us a round at k = 200 (twonorm; issue 17). The same operations per
    entry, so the same bits."""
    cdef Buffers bs
    cdef Py_ssize_t shape[2]
    cdef Py_ssize_t strides[2]
    cdef Py_ssize_t k, n_mean = 0, ms = 1, n_out = 0
    cdef const void* pup
    cdef const double* pmean
    cdef double* pout
    cdef bint single
    bs.n = 0
    try:
        pup = mb_take(&bs, upper, MB_FLOAT, 2, MB_STRIDED, False, shape, strides, b"upper")
        single = bs.view[bs.n - 1].itemsize == 4
        pmean = <const double*>mb_take(&bs, mean, MB_F64, 1, MB_STRIDED, False, &n_mean, &ms, b"mean")
        k = shape[0]
        if shape[1] != k:
            raise ValueError(f"upper must be square, got shape ({shape[0]}, {shape[1]})")
        if centre and n_mean < k:
            raise ValueError(f"mean has {n_mean} entries, needs at least {k}")
        out = _empty((k, k), _FLOAT64)
        pout = <double*>mb_take(&bs, out, MB_F64, 2, MB_C, True, shape, NULL, b"out")
        with nogil:
            if single:
                _symmetric_f32(<const float*>pup, strides[0], strides[1], k, eta, total, pmean, ms, centre, pout)
            elif strides[0] == 1:  # syrk's Fortran order
                _symmetric_f64(<const double*>pup, 1, strides[1], k, eta, total, pmean, ms, centre, pout)
            else:
                _symmetric_f64(<const double*>pup, strides[0], strides[1], k, eta, total, pmean, ms, centre, pout)
    finally:
        mb_release_taken(&bs)
    return out


def _scaled_centred_gram(S, s, int64_t n, double scale):
    """``scale * (n S - s s^T)`` as float64, from the integers of :meth:`sign_gram`: the difference
    exact in int64, then one rounding to float64 and one product per entry, as numpy's five passes
    (``n * S``, ``outer``, ``-``, ``astype``, ``*``; 10 us at k = 100) gave it."""
    cdef Buffers bs
    cdef Py_ssize_t shape[2]
    cdef Py_ssize_t strides[2]
    cdef Py_ssize_t k, n_s = 0, ss = 1, i, j
    cdef const int64_t* pS
    cdef const int64_t* ps
    cdef double* pout
    bs.n = 0
    try:
        pS = <const int64_t*>mb_take(&bs, S, MB_I64, 2, MB_STRIDED, False, shape, strides, b"S")
        ps = <const int64_t*>mb_take(&bs, s, MB_I64, 1, MB_STRIDED, False, &n_s, &ss, b"s")
        k = n_s
        if shape[0] < k or shape[1] < k:
            raise ValueError(f"S has shape ({shape[0]}, {shape[1]}), needs at least ({k}, {k})")
        out = _empty((k, k), _FLOAT64)
        pout = <double*>mb_take(&bs, out, MB_F64, 2, MB_C, True, shape, NULL, b"out")
        with nogil:
            for i in range(k):
                for j in range(k):
                    pout[i * k + j] = scale * <double>(n * pS[i * strides[0] + j * strides[1]] - ps[i * ss] * ps[j * ss])
    finally:
        mb_release_taken(&bs)
    return out


def _kkt_matrix(H, double reg):
    """``[[H + reg I, 1], [1^T, 0]]``: the equality-constrained Newton system's matrix."""
    cdef Buffers bs
    cdef Py_ssize_t shape[2]
    cdef Py_ssize_t strides[2]
    cdef Py_ssize_t k, K, i, j
    cdef const double* pH
    cdef double* pout
    bs.n = 0
    try:
        pH = <const double*>mb_take(&bs, H, MB_F64, 2, MB_STRIDED, False, shape, strides, b"H")
        k = shape[0]
        if shape[1] < k:
            raise ValueError(f"H has shape ({shape[0]}, {shape[1]}), needs at least ({k}, {k})")
        K = k + 1
        out = _zeros((K, K), _FLOAT64)
        pout = <double*>mb_take(&bs, out, MB_F64, 2, MB_C, True, shape, NULL, b"out")
        with nogil:
            for i in range(k):
                for j in range(k):
                    pout[i * K + j] = pH[i * strides[0] + j * strides[1]] + reg if i == j else pH[i * strides[0] + j * strides[1]] + 0.0
                pout[i * K + k] = 1.0
                pout[k * K + i] = 1.0
    finally:
        mb_release_taken(&bs)
    return out


# ----------------------------------------------------------------------------- active set
# The active-set bookkeeping of one iteration: as numpy calls on arrays of t entries (flatnonzero,
# insert, boolean masks, a ratio test, clip) it cost about 25 us a Newton step at t = 100, a tenth
# of the Newton rule's update on ringnorm (issue 17). The same operations per entry, so the same
# bits; the dot products and the sum stay numpy's (their order of summation).


def _support_with(w, Py_ssize_t j):
    """The indices ``i`` with ``w_i > 0``, and ``j``, in increasing order."""
    cdef Buffers bs
    cdef Py_ssize_t t = 0, st = 1, n = 0, i, n_out = 0
    cdef const double* pw
    cdef int64_t* pout
    bs.n = 0
    try:
        pw = <const double*>mb_take(&bs, w, MB_F64, 1, MB_STRIDED, False, &t, &st, b"w")
        with nogil:
            for i in range(t):
                n += (pw[i * st] > 0.0) | (i == j)
        out = _empty(n, _INT64)
        pout = <int64_t*>mb_take(&bs, out, MB_I64, 1, MB_C, True, &n_out, NULL, b"out")
        with nogil:
            n = 0
            for i in range(t):
                if (pw[i * st] > 0.0) | (i == j):
                    pout[n] = i
                    n += 1
    finally:
        mb_release_taken(&bs)
    return out


def _lowers_a_zero(w, v):
    """Whether some ``v_i < 0`` where ``w_i <= 0`` (the step would push a zero weight negative)."""
    cdef Buffers bs
    cdef Py_ssize_t t = 0, sw = 1, n_v = 0, sv = 1, i
    cdef const double* pw
    cdef const double* pv
    cdef bint found = False
    bs.n = 0
    try:
        pw = <const double*>mb_take(&bs, w, MB_F64, 1, MB_STRIDED, False, &t, &sw, b"w")
        pv = <const double*>mb_take(&bs, v, MB_F64, 1, MB_STRIDED, False, &n_v, &sv, b"v")
        if n_v < t:
            raise ValueError(f"v has {n_v} entries, needs at least {t}")
        with nogil:
            for i in range(t):
                if pw[i * sw] <= 0.0 and pv[i * sv] < 0.0:
                    found = True
                    break
    finally:
        mb_release_taken(&bs)
    return found


def _ratio_test(w, v):
    """``(blocking, lam_max)``: the largest ``lam`` with ``w + lam v >= 0`` is ``min_{v_i < 0} w_i / -v_i``,
    reached first at ``blocking`` (the smallest such index); ``(-1, inf)`` when no ``v_i < 0``."""
    cdef Buffers bs
    cdef Py_ssize_t t = 0, sw = 1, n_v = 0, sv = 1, i, blocking = -1
    cdef const double* pw
    cdef const double* pv
    cdef double lam_max = INFINITY, ratio
    bs.n = 0
    try:
        pw = <const double*>mb_take(&bs, w, MB_F64, 1, MB_STRIDED, False, &t, &sw, b"w")
        pv = <const double*>mb_take(&bs, v, MB_F64, 1, MB_STRIDED, False, &n_v, &sv, b"v")
        if n_v < t:
            raise ValueError(f"v has {n_v} entries, needs at least {t}")
        with nogil:
            for i in range(t):
                if pv[i * sv] < 0.0:
                    ratio = pw[i * sw] / -pv[i * sv]
                    if blocking < 0 or ratio < lam_max:
                        blocking = i
                        lam_max = ratio
    finally:
        mb_release_taken(&bs)
    return blocking, lam_max


def _stepped(w, double lam, v, bint blocked, Py_ssize_t blocking):
    """``max(w + lam v, 0)``, with ``w_blocking = 0`` exactly when the step reaches the boundary
    (``blocked``); ``+0`` for ``-0``, as ``np.clip`` gives it."""
    cdef Buffers bs
    cdef Py_ssize_t t = 0, sw = 1, n_v = 0, sv = 1, i, n_out = 0
    cdef const double* pw
    cdef const double* pv
    cdef double* pout
    cdef double x
    bs.n = 0
    try:
        pw = <const double*>mb_take(&bs, w, MB_F64, 1, MB_STRIDED, False, &t, &sw, b"w")
        pv = <const double*>mb_take(&bs, v, MB_F64, 1, MB_STRIDED, False, &n_v, &sv, b"v")
        if n_v < t:
            raise ValueError(f"v has {n_v} entries, needs at least {t}")
        out = _empty(t, _FLOAT64)
        pout = <double*>mb_take(&bs, out, MB_F64, 1, MB_C, True, &n_out, NULL, b"out")
        with nogil:
            for i in range(t):
                x = pw[i * sw] + lam * pv[i * sv]
                if blocked and i == blocking:
                    x = 0.0
                pout[i] = x if (x > 0.0) | (x != x) else 0.0
    finally:
        mb_release_taken(&bs)
    return out
