"""The compiled steps of every pivot of :mod:`marginboost.soft_margin.dual_simplex` (the solver,
its tolerances and the BFRT are described there).

As numpy calls on the basis (R ~ 180) and the m reduced costs (temporaries, a boolean mask) the
leaving-row choice and the dual step cost 8 and 7.6 us a pivot of LPBoost on ringnorm (issue 17);
here the same operations per entry, so the same bits. The arrays are float64 (``pos_d`` int64,
``upper`` and ``nonbasic_s`` bool), C-contiguous, as the solver keeps them; they are taken by the
buffer protocol (``core/_buffers.pxd``): these kernels run thousands of times a fit on small arrays.
"""
from libc.math cimport fabs, INFINITY
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free, qsort
from libc.string cimport memcpy, memset

import numpy as np

from marginboost.core._buffers cimport Buffers, mb_release_taken, mb_take, MB_C, MB_STRIDED, MB_F64, MB_I64, MB_BOOL

cdef enum:
    SCAN_POPS = 8  # pops by scanning before the heap takes over (flips: 2.9 on average, at most 613)

_SCAN_POPS = SCAN_POPS

cdef object _empty = np.empty
cdef object _INT64 = np.dtype(np.int64)


cdef inline int _too_short(Py_ssize_t have, Py_ssize_t need, str name) except -1:
    if have < need:
        raise ValueError(f"{name} has {have} entries, needs at least {need}")
    return 0


# ----------------------------------------------------------------------------- leaving row, dual step


cdef Py_ssize_t _steepest_infeasible_c(const double* xB, const double* lo, const double* hi,
                                       const double* row_norms, Py_ssize_t R, double tol) noexcept nogil:
    """The leaving row, -1 if none, -2 for a zero row norm (raised as ZeroDivisionError)."""
    cdef Py_ssize_t best = -1, i
    cdef double best_score = 0.0, below, above, infeas, score
    for i in range(R):
        below = lo[i] - xB[i]
        above = xB[i] - hi[i]
        infeas = (below if below > 0.0 else 0.0) + (above if above > 0.0 else 0.0)
        if infeas > tol:
            if row_norms[i] == 0.0:
                return -2
            score = infeas * infeas / row_norms[i]
            if best < 0 or score > best_score:
                best = i
                best_score = score
    if best < 0:
        return -1
    return best if best_score > 0.0 else 0


def _steepest_infeasible(xB, lo, hi, row_norms, double tol):
    """``argmax infeas^2 / row_norms`` (the first maximum, as ``np.argmax``) over the basic variables,
    ``infeas = max(lo - xB, 0) + max(xB - hi, 0)`` taken as 0 up to ``tol``; -1 if none is infeasible.
    The row norms are positive (``B`` is invertible), so a feasible variable scores 0 and an
    infeasible one more, unless its score underflows: then, as ``np.argmax`` of all zeros, 0."""
    cdef Buffers bs
    cdef Py_ssize_t R = 0, n_lo = 0, n_hi = 0, n_norms = 0, best
    cdef const double *px
    cdef const double *plo
    cdef const double *phi
    cdef const double *pn
    bs.n = 0
    try:
        px = <const double*>mb_take(&bs, xB, MB_F64, 1, MB_C, False, &R, NULL, b"xB")
        plo = <const double*>mb_take(&bs, lo, MB_F64, 1, MB_C, False, &n_lo, NULL, b"lo")
        phi = <const double*>mb_take(&bs, hi, MB_F64, 1, MB_C, False, &n_hi, NULL, b"hi")
        pn = <const double*>mb_take(&bs, row_norms, MB_F64, 1, MB_C, False, &n_norms, NULL, b"row_norms")
        _too_short(n_lo, R, "lo")
        _too_short(n_hi, R, "hi")
        _too_short(n_norms, R, "row_norms")
        with nogil:
            best = _steepest_infeasible_c(px, plo, phi, pn, R, tol)
    finally:
        mb_release_taken(&bs)
    if best == -2:
        raise ZeroDivisionError("division by zero")
    return best


cdef void _step_duals_c(double* y, const double* rho, Py_ssize_t R, double* rc_d, const double* alpha_d,
                        const int64_t* pos_d, Py_ssize_t m, double theta) noexcept nogil:
    cdef Py_ssize_t k, j
    cdef double x
    for k in range(R):
        y[k] += theta * rho[k]
    for j in range(m):
        x = rc_d[j] - theta * alpha_d[j]  # for every j: a load under the condition spilled every iteration
        rc_d[j] = 0.0 if pos_d[j] >= 0 else x


def _step_duals(y, rho, rc_d, alpha_d, pos_d, double theta):
    """``y += theta rho``; ``rc_d -= theta alpha_d``, then 0 where ``pos_d >= 0`` (the basic d_j)."""
    cdef Buffers bs
    cdef Py_ssize_t R = 0, n_rho = 0, m = 0, n_alpha = 0, n_pos = 0
    cdef double* py
    cdef const double* prho
    cdef double* prc
    cdef const double* palpha
    cdef const int64_t* ppos
    bs.n = 0
    try:
        py = <double*>mb_take(&bs, y, MB_F64, 1, MB_C, True, &R, NULL, b"y")
        prho = <const double*>mb_take(&bs, rho, MB_F64, 1, MB_C, False, &n_rho, NULL, b"rho")
        prc = <double*>mb_take(&bs, rc_d, MB_F64, 1, MB_C, True, &m, NULL, b"rc_d")
        palpha = <const double*>mb_take(&bs, alpha_d, MB_F64, 1, MB_C, False, &n_alpha, NULL, b"alpha_d")
        ppos = <const int64_t*>mb_take(&bs, pos_d, MB_I64, 1, MB_C, False, &n_pos, NULL, b"pos_d")
        _too_short(n_rho, R, "rho")
        _too_short(n_alpha, m, "alpha_d")
        _too_short(n_pos, m, "pos_d")
        with nogil:
            _step_duals_c(py, prho, R, prc, palpha, ppos, m, theta)
    finally:
        mb_release_taken(&bs)


# ----------------------------------------------------------------------------- ratio test


cdef inline void _sift_down_c(int64_t* heap, const double* key, Py_ssize_t i, Py_ssize_t size) noexcept nogil:
    cdef Py_ssize_t left, child
    cdef int64_t swap
    while True:
        left = 2 * i + 1
        if left >= size:
            return
        child = left
        if left + 1 < size and key[heap[left + 1]] < key[heap[left]]:
            child = left + 1
        if key[heap[child]] < key[heap[i]]:
            swap = heap[i]
            heap[i] = heap[child]
            heap[child] = swap
            i = child
        else:
            return


cdef inline double _smallest(const double* key, Py_ssize_t n) noexcept nogil:
    """``min key`` (NaN ignored; inf if none) by eight running minima: no chain of comparisons."""
    cdef double m[8]
    cdef double v
    cdef Py_ssize_t i = 0, c
    for c in range(8):
        m[c] = INFINITY
    while i + 8 <= n:
        for c in range(8):
            v = key[i + c]
            m[c] = v if v < m[c] else m[c]
        i += 8
    while i < n:
        v = key[i]
        m[0] = v if v < m[0] else m[0]
        i += 1
    for c in range(1, 8):
        m[0] = m[c] if m[c] < m[0] else m[0]
    return m[0]


cdef bint _scan_pops_c(const double* ratio, const double* absb, const double* width, Py_ssize_t n, double delta,
                       unsigned char* flipped, int64_t* popped, double* key, Py_ssize_t* last,
                       Py_ssize_t* n_flips) noexcept nogil:
    """:func:`_scan_pops` with scratch ``key`` (n entries): returns ``scanned``, ``(last, n_flips)``
    into the pointers.

    Each scan finds what a single pass (the first index of the smallest ratio not flipped; given up
    where another one equals it or none is finite) would, without its chain of branches: on ``key``,
    the ratios with the flipped ones at inf, the minimum by eight running minima, then the count of
    the entries equal to it (a second one: a tie) and the first of them."""
    cdef double used = 0.0, low
    cdef Py_ssize_t nf = 0, best, equal, it, i
    for i in range(n):
        key[i] = INFINITY if flipped[i] else ratio[i]
    for it in range(n if n < SCAN_POPS else SCAN_POPS):
        low = _smallest(key, n)
        if not low < INFINITY:  # no finite ratio left: the heap's way decides
            last[0] = -1
            n_flips[0] = 0
            return False
        equal = 0
        for i in range(n):
            equal += key[i] == low
        if equal > 1:  # a minimum shared by two: the heap's order among ties is its own
            last[0] = -1
            n_flips[0] = 0
            return False
        best = 0
        while not key[best] == low:
            best += 1
        used += absb[best] * width[best]
        if used >= delta:
            last[0] = best
            n_flips[0] = nf
            return True
        flipped[best] = True
        key[best] = INFINITY
        popped[nf] = best
        nf += 1
    last[0] = -1
    if nf == n:
        n_flips[0] = nf
        return True
    n_flips[0] = 0
    return False


cdef Py_ssize_t _heap_pops_c(const double* ratio, const double* absb, const double* width, Py_ssize_t n, double delta,
                             unsigned char* flipped, int64_t* popped, int64_t* heap, Py_ssize_t* n_flips) noexcept nogil:
    """:func:`_heap_pops` with the heap's storage given (n entries): returns ``last``."""
    cdef Py_ssize_t start, size, nf = 0, i
    cdef int64_t top
    cdef double used = 0.0
    for i in range(n):
        heap[i] = i
    for start in range(n // 2 - 1, -1, -1):
        _sift_down_c(heap, ratio, start, n)
    size = n
    while size > 0:
        top = heap[0]
        size -= 1
        heap[0] = heap[size]
        _sift_down_c(heap, ratio, 0, size)
        used += absb[top] * width[top]
        if used >= delta:
            n_flips[0] = nf
            return top
        flipped[top] = True
        popped[nf] = top
        nf += 1
    n_flips[0] = nf
    return -1


cdef int _compare_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


cdef Py_ssize_t _bfrt_c(const double* alpha_d, const double* rc_d, const int64_t* pos_d, const unsigned char* upper,
                        const double* cap, Py_ssize_t m, const double* rho, const double* y,
                        const unsigned char* nonbasic_s, Py_ssize_t R, double s, double delta, double pivot_tol,
                        double feas_tol, char* work, double* ratio_out, Py_ssize_t* n_flips_out) noexcept nogil:
    """:func:`_bfrt` on the scratch ``work`` (``_bfrt_work(m + R)`` bytes): returns the entering
    variable (-1 if none, -2 for a zero divisor, raised as ZeroDivisionError), its ratio into
    ``ratio_out``, and the variables to flip, ascending, into the first ``n_flips_out`` entries of
    ``work`` (as int64)."""
    cdef Py_ssize_t N = m + R, n = 0, j, k, i, last, n_flips, chosen
    cdef double* ratio = <double*>work
    cdef double* absb = ratio + N
    cdef double* width = absb + N
    cdef double* absrc = width + N
    cdef double* rc_b = absrc + N  # the breakpoints' rc_j, then their s alpha_j in `absb` until the ratios
    cdef int64_t* var = <int64_t*>(rc_b + N)
    cdef int64_t* popped = var + N
    cdef int64_t* heap = popped + N
    cdef double* key = <double*>(heap + N)  # the scan's
    cdef unsigned char* flipped = <unsigned char*>(key + N)
    cdef int64_t* flips = <int64_t*>work  # written last, over ratio (read no more by then)
    cdef double b, r, bound, limit
    cdef bint at_cap, scanned
    for j in range(m):
        b = s * alpha_d[j]
        at_cap = upper[j] != 0
        rc_b[n] = rc_d[j]
        absb[n] = b
        width[n] = cap[j]
        var[n] = j
        n += (pos_d[j] < 0) & (cap[j] > 0.0) & ((at_cap & (b < -pivot_tol)) | ((not at_cap) & (b > pivot_tol)))
    if not pivot_tol >= 0.0:  # then a breakpoint's divisor may be 0: a ZeroDivisionError, as in Python
        for i in range(n):
            if absb[i] == 0.0:
                return -2
        for k in range(R):
            b = s * rho[k]
            if nonbasic_s[k] and not b <= pivot_tol and b == 0.0:  # (as the logicals are taken below)
                return -2
    for i in range(n):
        r = rc_b[i] / absb[i]
        ratio[i] = r if r > 0.0 else 0.0
        absrc[i] = fabs(rc_b[i])
        absb[i] = fabs(absb[i])
    for k in range(R):
        if not nonbasic_s[k]:
            continue
        b = s * rho[k]
        if b <= pivot_tol:
            continue
        r = -y[k] / b
        ratio[n] = r if r > 0.0 else 0.0
        absb[n] = b
        width[n] = INFINITY
        absrc[n] = fabs(y[k])
        var[n] = m + 1 + k
        n += 1
    n_flips_out[0] = 0
    ratio_out[0] = 0.0
    if n == 0:
        return -1
    memset(flipped, 0, n)
    scanned = _scan_pops_c(ratio, absb, width, n, delta, flipped, popped, key, &last, &n_flips)
    if not scanned:
        memset(flipped, 0, n)
        last = _heap_pops_c(ratio, absb, width, n, delta, flipped, popped, heap, &n_flips)
    if last < 0:
        return -1
    bound = INFINITY
    for i in range(n):
        if ratio[i] < bound and not flipped[i]:
            limit = (absrc[i] + feas_tol) / absb[i]
            if limit < bound:
                bound = limit
    chosen = last
    for i in range(n):
        if not flipped[i] and ratio[i] <= bound and ratio[i] >= ratio[last] and absb[i] > absb[chosen]:
            chosen = i
    ratio_out[0] = ratio[chosen]
    chosen = var[chosen]
    # The flips in ascending index, as _flip sums them (the popped breakpoints are distinct, so any
    # sort gives this order).
    if n_flips > 1:
        qsort(popped, n_flips, sizeof(int64_t), _compare_int64)
    for i in range(n_flips):
        flips[i] = var[popped[i]]
    n_flips_out[0] = n_flips
    return chosen


cdef inline size_t _bfrt_work(Py_ssize_t N) noexcept nogil:
    return <size_t>N * (6 * sizeof(double) + 3 * sizeof(int64_t) + 1) + 8


def _bfrt(alpha_d, rc_d, pos_d, upper, cap, rho, y, nonbasic_s, double s, double delta, double pivot_tol,
          double feas_tol):
    """Bound-flipping ratio test with a Harris pass, for the dual step of sign ``s``.

    Breakpoints: a nonbasic boxed ``d_j`` at 0 with ``s alpha_j > pivot_tol`` or at its cap with
    ``s alpha_j < -pivot_tol`` (ratio ``rc_j / (s alpha_j)``), a nonbasic logical ``s_k`` with
    ``s rho_k > pivot_tol`` (ratio ``-y_k / (s rho_k)``); negative ratios (rounding) count as 0.
    Passing a breakpoint flips a ``d_j`` to its other bound and uses up ``|alpha_j| cap_j`` of the
    slope ``delta`` (the leaving variable's infeasibility); a logical cannot flip. Breakpoints are
    taken in ascending order (:func:`_scan_pops`, else from a binary heap, :func:`_heap_pops`). The
    first one that uses up the slope ends the pass; among it and all later ones, those whose ratio
    is within the Harris bound ``min (|rc| + feas_tol) / |s alpha|`` compete, the largest ``|alpha|``
    entering. Returns ``(entering variable, its ratio, the d_j to flip)``, entering -1 if none.

    Speed (issue 17; LPBoost on ringnorm at nu = 0.1m makes 45,000 of these, m = 7400, about 3600
    breakpoints each, 2.9 flips on average): the d_j are gathered without a branch (every one
    written, the count advanced for a breakpoint: the tests on bound and sign mispredicted) and
    their ratios divided in a loop of their own; the first pops scan for the minimum instead of
    building a heap of all breakpoints (33 of the 84 us); the Harris bound skips the division of a
    breakpoint whose ratio is not below the bound so far (``(|rc| + tol) / |alpha| >= |rc| / |alpha|``
    in floating point too: rounding is monotone). 84 -> 39 us a call, the same results: the scan
    pops what the heap pops wherever the minimum is unique, and hands over to the heap otherwise.
    """
    cdef Buffers bs
    cdef Py_ssize_t m = 0, R = 0, n_rc = 0, n_pos = 0, n_upper = 0, n_cap = 0, n_y = 0, n_nonbasic = 0, q, n_flips = 0
    cdef const double* palpha
    cdef const double* prc
    cdef const int64_t* ppos
    cdef const unsigned char* pupper
    cdef const double* pcap
    cdef const double* prho
    cdef const double* py
    cdef const unsigned char* pnonbasic
    cdef double ratio = 0.0
    cdef char* work = NULL
    cdef Py_ssize_t n_out = 0
    bs.n = 0
    try:
        palpha = <const double*>mb_take(&bs, alpha_d, MB_F64, 1, MB_C, False, &m, NULL, b"alpha_d")
        prc = <const double*>mb_take(&bs, rc_d, MB_F64, 1, MB_C, False, &n_rc, NULL, b"rc_d")
        ppos = <const int64_t*>mb_take(&bs, pos_d, MB_I64, 1, MB_C, False, &n_pos, NULL, b"pos_d")
        pupper = <const unsigned char*>mb_take(&bs, upper, MB_BOOL, 1, MB_C, False, &n_upper, NULL, b"upper")
        pcap = <const double*>mb_take(&bs, cap, MB_F64, 1, MB_C, False, &n_cap, NULL, b"cap")
        prho = <const double*>mb_take(&bs, rho, MB_F64, 1, MB_C, False, &R, NULL, b"rho")
        py = <const double*>mb_take(&bs, y, MB_F64, 1, MB_C, False, &n_y, NULL, b"y")
        pnonbasic = <const unsigned char*>mb_take(&bs, nonbasic_s, MB_BOOL, 1, MB_C, False, &n_nonbasic, NULL, b"nonbasic_s")
        _too_short(n_rc, m, "rc_d")
        _too_short(n_pos, m, "pos_d")
        _too_short(n_upper, m, "upper")
        _too_short(n_cap, m, "cap")
        _too_short(n_y, R, "y")
        _too_short(n_nonbasic, R, "nonbasic_s")
        work = <char*>malloc(_bfrt_work(m + R))
        if work == NULL:
            raise MemoryError()
        with nogil:
            q = _bfrt_c(palpha, prc, ppos, pupper, pcap, m, prho, py, pnonbasic, R, s, delta, pivot_tol, feas_tol,
                        work, &ratio, &n_flips)
        if q == -2:
            raise ZeroDivisionError("division by zero")
        flips = _empty(n_flips, _INT64)
        if n_flips:
            memcpy(mb_take(&bs, flips, MB_I64, 1, MB_C, True, &n_out, NULL, b"flips"), work, n_flips * sizeof(int64_t))
    finally:
        free(work)
        mb_release_taken(&bs)
    if q < 0:
        return -1, 0.0, flips
    return q, ratio, flips


cdef struct PopsArrays:
    const double* ratio
    const double* absb
    const double* width
    unsigned char* flipped
    int64_t* popped


cdef int _take_pops_arrays(Buffers* bs, PopsArrays* a, ratio, absb, width, flipped, popped,
                           Py_ssize_t n) except -1:
    """The five arrays of :func:`_scan_pops` and :func:`_heap_pops` into ``a`` (held by ``bs``), each
    checked to hold at least ``n`` entries."""
    cdef Py_ssize_t n_ratio = 0, n_absb = 0, n_width = 0, n_flipped = 0, n_popped = 0
    a.ratio = <const double*>mb_take(bs, ratio, MB_F64, 1, MB_C, False, &n_ratio, NULL, b"ratio")
    a.absb = <const double*>mb_take(bs, absb, MB_F64, 1, MB_C, False, &n_absb, NULL, b"absb")
    a.width = <const double*>mb_take(bs, width, MB_F64, 1, MB_C, False, &n_width, NULL, b"width")
    a.flipped = <unsigned char*>mb_take(bs, flipped, MB_BOOL, 1, MB_C, True, &n_flipped, NULL, b"flipped")
    a.popped = <int64_t*>mb_take(bs, popped, MB_I64, 1, MB_C, True, &n_popped, NULL, b"popped")
    for have, name in ((n_ratio, "ratio"), (n_absb, "absb"), (n_width, "width"), (n_flipped, "flipped"),
                       (n_popped, "popped")):
        _too_short(have, n, name)
    return 0


def _scan_pops(ratio, absb, width, Py_ssize_t n, double delta, flipped, popped):
    """The breakpoints in ascending ratio, each found by a scan, until their slopes use up ``delta``:
    ``(last, n_flips, True)`` as :func:`_heap_pops` returns it (the flipped marked in ``flipped`` and
    listed in ``popped``), or ``(.., False)`` where the heap must decide: a minimum shared by two
    breakpoints (the heap's order among ties is its own) or more than ``_SCAN_POPS`` pops."""
    cdef Buffers bs
    cdef PopsArrays a
    cdef Py_ssize_t last = -1, n_flips = 0
    cdef double* key = NULL
    cdef bint scanned
    bs.n = 0
    try:
        _take_pops_arrays(&bs, &a, ratio, absb, width, flipped, popped, n)
        key = <double*>malloc(max(n, 0) * sizeof(double) + 8)
        if key == NULL:
            raise MemoryError()
        with nogil:
            scanned = _scan_pops_c(a.ratio, a.absb, a.width, n, delta, a.flipped, a.popped, key, &last, &n_flips)
    finally:
        free(key)
        mb_release_taken(&bs)
    return last, n_flips, scanned


def _heap_pops(ratio, absb, width, Py_ssize_t n, double delta, flipped, popped):
    """The breakpoints in ascending ratio from a binary heap, until their slopes use up ``delta``:
    ``(last, n_flips)``, ``last`` the one that used it up (-1 if none did), the ones before it
    marked in ``flipped`` and listed in ``popped``."""
    cdef Buffers bs
    cdef PopsArrays a
    cdef Py_ssize_t last = -1, n_flips = 0
    cdef int64_t* heap = NULL
    bs.n = 0
    try:
        _take_pops_arrays(&bs, &a, ratio, absb, width, flipped, popped, n)
        if n < 0:
            raise ValueError("negative dimensions not allowed")
        heap = <int64_t*>malloc(n * sizeof(int64_t) + 8)
        if heap == NULL:
            raise MemoryError()
        with nogil:
            last = _heap_pops_c(a.ratio, a.absb, a.width, n, delta, a.flipped, a.popped, heap, &n_flips)
    finally:
        free(heap)
        mb_release_taken(&bs)
    return last, n_flips


cdef int _sift_down_checked(int64_t* heap, const double* key, Py_ssize_t n_key, Py_ssize_t i,
                            Py_ssize_t size) noexcept nogil:
    """:func:`_sift_down_c` that checks each index of ``key`` it reads: -1 for one out of range."""
    cdef Py_ssize_t left, child
    cdef int64_t swap
    while True:
        left = 2 * i + 1
        if left >= size:
            return 0
        if not (0 <= heap[left] < n_key and 0 <= heap[i] < n_key):
            return -1
        child = left
        if left + 1 < size:
            if not 0 <= heap[left + 1] < n_key:
                return -1
            if key[heap[left + 1]] < key[heap[left]]:
                child = left + 1
        if key[heap[child]] < key[heap[i]]:
            swap = heap[i]
            heap[i] = heap[child]
            heap[child] = swap
            i = child
        else:
            return 0


def _sift_down(heap, key, Py_ssize_t i, Py_ssize_t size):
    """Restore the min-heap property of ``heap[:size]`` (by ``key``) below position ``i``."""
    cdef Buffers bs
    cdef Py_ssize_t n_heap = 0, n_key = 0
    cdef int64_t* pheap
    cdef const double* pkey
    cdef int status
    bs.n = 0
    try:
        pheap = <int64_t*>mb_take(&bs, heap, MB_I64, 1, MB_C, True, &n_heap, NULL, b"heap")
        pkey = <const double*>mb_take(&bs, key, MB_F64, 1, MB_C, False, &n_key, NULL, b"key")
        _too_short(n_heap, size, "heap")
        if i < 0:
            raise IndexError("i must be >= 0")
        status = _sift_down_checked(pheap, pkey, n_key, i, size)
    finally:
        mb_release_taken(&bs)
    if status < 0:
        raise IndexError("heap holds an index out of range of key")


# ----------------------------------------------------------------------------- basis change


cdef double _squared_norm_c(const double* v, Py_ssize_t n, Py_ssize_t stride) noexcept nogil:
    cdef double total = 0.0
    cdef Py_ssize_t j
    for j in range(n):
        total += v[j * stride] * v[j * stride]
    return total


cdef void _eta_update_c(double* Binv, Py_ssize_t R, Py_ssize_t ld, const double* alpha_q, Py_ssize_t r,
                        double* row_norms) noexcept nogil:
    """:func:`_eta_update` on the R x R matrix ``Binv`` (row i at ``Binv + i ld``), ``alpha_q[r] != 0``.

    The rows are updated first, their norms then summed four rows at a time: each norm is the
    sequential sum of its row as before (the same bits), but four independent sums hide the latency
    of the additions (a single sum waits on the one before at each entry)."""
    cdef double pivot = alpha_q[r], a, t0, t1, t2, t3, x0, x1, x2, x3
    cdef double* row_r = Binv + r * ld
    cdef double* row_i
    cdef const double* p0
    cdef const double* p1
    cdef const double* p2
    cdef const double* p3
    cdef Py_ssize_t i, j, c, n_changed = 0
    cdef Py_ssize_t changed[4]
    for j in range(R):
        row_r[j] /= pivot
    for i in range(R):
        a = alpha_q[i]
        if i != r and a != 0.0:
            row_i = Binv + i * ld
            for j in range(R):
                row_i[j] -= a * row_r[j]
    # The squared norms of row r and of the rows that changed, in groups of four.
    i = 0
    while i < R:
        n_changed = 0
        while i < R and n_changed < 4:
            if i == r or alpha_q[i] != 0.0:
                changed[n_changed] = i
                n_changed += 1
            i += 1
        if n_changed == 4:
            p0 = Binv + changed[0] * ld
            p1 = Binv + changed[1] * ld
            p2 = Binv + changed[2] * ld
            p3 = Binv + changed[3] * ld
            t0 = 0.0
            t1 = 0.0
            t2 = 0.0
            t3 = 0.0
            for j in range(R):
                x0 = p0[j]
                x1 = p1[j]
                x2 = p2[j]
                x3 = p3[j]
                t0 += x0 * x0
                t1 += x1 * x1
                t2 += x2 * x2
                t3 += x3 * x3
            row_norms[changed[0]] = t0
            row_norms[changed[1]] = t1
            row_norms[changed[2]] = t2
            row_norms[changed[3]] = t3
        else:
            for c in range(n_changed):
                row_norms[changed[c]] = _squared_norm_c(Binv + changed[c] * ld, R, 1)


def _eta_update(Binv, alpha_q, Py_ssize_t r, row_norms):
    """``B^-1 <- E B^-1`` for the pivot on ``alpha_q[r]`` (row r divided by it, ``alpha_q[i]`` times
    the new row r subtracted from every other row i), and the squared row norms (the dual
    steepest-edge weights) of the rows that changed. ``Binv``: float64 with rows in C order."""
    cdef Buffers bs
    cdef Py_ssize_t shape[2]
    cdef Py_ssize_t strides[2]
    cdef Py_ssize_t R, n_alpha = 0, n_norms = 0
    cdef double* pB
    cdef const double* palpha
    cdef double* pnorms
    bs.n = 0
    try:
        pB = <double*>mb_take(&bs, Binv, MB_F64, 2, MB_STRIDED, True, shape, strides, b"Binv")
        palpha = <const double*>mb_take(&bs, alpha_q, MB_F64, 1, MB_C, False, &n_alpha, NULL, b"alpha_q")
        pnorms = <double*>mb_take(&bs, row_norms, MB_F64, 1, MB_C, True, &n_norms, NULL, b"row_norms")
        R = shape[0]
        if shape[1] != R:
            raise ValueError(f"Binv must be square, got shape ({shape[0]}, {shape[1]})")
        if R > 1 and strides[1] != 1:
            raise ValueError("Binv's rows must be contiguous (C order)")
        _too_short(n_alpha, R, "alpha_q")
        _too_short(n_norms, R, "row_norms")
        if R:
            if r < 0:
                r += R
            if not 0 <= r < R:
                raise IndexError(f"row {r} out of range for {R} rows")
            if palpha[r] == 0.0:
                raise ZeroDivisionError("division by zero")
            with nogil:
                _eta_update_c(pB, R, strides[0], palpha, r, pnorms)
    finally:
        mb_release_taken(&bs)


def _squared_norm(v):
    """``v @ v``, summed in order (a pivoting weight)."""
    # Before the port it was compiled by numba with fastmath={'reassoc'}, but LLVM vectorised the loop
    # only for a stride of one byte, a path no float64 array takes: it ran this sequential sum, these bits.
    cdef Buffers bs
    cdef Py_ssize_t n = 0, stride = 1
    cdef const double* pv
    cdef double total
    bs.n = 0
    try:
        pv = <const double*>mb_take(&bs, v, MB_F64, 1, MB_STRIDED, False, &n, &stride, b"v")
        with nogil:
            total = _squared_norm_c(pv, n, stride)
    finally:
        mb_release_taken(&bs)
    return total
