"""The compiled loops of :mod:`marginboost.weak_learners.binning` (the binning rules are there)."""
from cython.parallel cimport prange
from libc.math cimport isfinite
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

import numpy as np

from marginboost.core._buffers cimport MB_C, MB_F64, MB_I64, MB_U8, mb_acquire, mb_release_n
from marginboost.weak_learners._stumps cimport midpoint

# New arrays from numpy, its functions and dtypes looked up once.
_empty = np.empty
_arange = np.arange
_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)

cdef enum:
    # Rows coded per pass over the features: a block of C-ordered X stays in cache while each
    # feature reads its strided column.
    _BLOCK_ROWS = 1024


def max_threads():
    """OpenMP's ``omp_get_max_threads()`` (1 without OpenMP): the threads a parallel region may use."""
    return mb_max_threads()


def _cut_positions(counts, int64_t max_bins):
    """Indices k after which a bin ends (see the module docstring of binning); ``counts`` int64."""
    cdef Py_buffer v[2]
    cdef int nb = 0
    cdef Py_ssize_t K, k
    cdef const int64_t* cn
    cdef int64_t* cuts
    cdef int64_t n_cuts = 0, remaining = 0, in_bin = 0, bins_left
    try:
        mb_acquire(&v[0], counts, MB_I64, 1, False, MB_C, b"counts"); nb += 1
        K = v[0].shape[0]
        if K <= max_bins:
            return _arange(K - 1)
        cuts_arr = _empty(max_bins - 1, _I64)
        mb_acquire(&v[1], cuts_arr, MB_I64, 1, True, MB_C, b"cuts_arr"); nb += 1
        cn, cuts = <const int64_t*>v[0].buf, <int64_t*>v[1].buf
        with nogil:
            for k in range(K):
                remaining += cn[k]
            for k in range(K - 1):
                in_bin += cn[k]
                bins_left = max_bins - n_cuts
                if bins_left == 1:
                    break
                # In integers: 2 in_bin + c_{k+1} > 2 remaining / bins_left.
                if K - 1 - k == bins_left - 1 or (2 * in_bin + cn[k + 1]) * bins_left > 2 * remaining:
                    cuts[n_cuts] = k
                    n_cuts += 1
                    remaining -= in_bin
                    in_bin = 0
    finally:
        mb_release_n(v, nb)
    return cuts_arr[:n_cuts]


def _thresholds_at(values, cuts):
    """``midpoint(values[c], values[c + 1])`` for each cut c (``values`` float64, ``cuts`` int64)."""
    cdef Py_buffer v[3]
    cdef int nb = 0
    cdef Py_ssize_t b, n
    cdef const double* vals
    cdef const int64_t* cp
    cdef double* op
    try:
        mb_acquire(&v[0], values, MB_F64, 1, False, MB_C, b"values"); nb += 1
        mb_acquire(&v[1], cuts, MB_I64, 1, False, MB_C, b"cuts"); nb += 1
        n = v[1].shape[0]
        out = _empty(n, _F64)
        mb_acquire(&v[2], out, MB_F64, 1, True, MB_C, b"out"); nb += 1
        vals, cp, op = <const double*>v[0].buf, <const int64_t*>v[1].buf, <double*>v[2].buf
        for b in range(n):
            if cp[b] < 0 or cp[b] + 1 >= v[0].shape[0]:
                raise IndexError(f"cut {cp[b]} out of range for {v[0].shape[0]} values")
        with nogil:
            for b in range(n):
                op[b] = midpoint(vals[cp[b]], vals[cp[b] + 1])
    finally:
        mb_release_n(v, nb)
    return out


def _runs(ordered):
    """The distinct values of a sorted column (float64) and their counts (NaNs, unequal to all, one each).

    The runs' starts are found in one branch-free pass (each position written, the count of runs
    advanced where a new value begins) and the counts are the starts' differences: 28 -> 5 us at
    m = 7400, where the counts summed one example at a time waited on each other (issue 17)."""
    cdef Py_buffer v[4]
    cdef int nb = 0
    cdef Py_ssize_t n, r, k, n_runs = 0
    cdef const double* o
    cdef int64_t* starts
    cdef double* vals
    cdef int64_t* cnts
    try:
        mb_acquire(&v[0], ordered, MB_F64, 1, False, MB_C, b"ordered"); nb += 1
        n = v[0].shape[0]
        starts_arr = _empty(n + 1, _I64)
        mb_acquire(&v[1], starts_arr, MB_I64, 1, True, MB_C, b"starts_arr"); nb += 1
        o, starts = <const double*>v[0].buf, <int64_t*>v[1].buf
        with nogil:
            if n > 0:  # r = 0 always begins a run
                starts[0] = 0
                n_runs = 1
            for r in range(1, n):
                starts[n_runs] = r
                n_runs += o[r] != o[r - 1]
            starts[n_runs] = n
        values_arr = _empty(n_runs, _F64)
        mb_acquire(&v[2], values_arr, MB_F64, 1, True, MB_C, b"values_arr"); nb += 1
        counts_arr = _empty(n_runs, _I64)
        mb_acquire(&v[3], counts_arr, MB_I64, 1, True, MB_C, b"counts_arr"); nb += 1
        vals, cnts = <double*>v[2].buf, <int64_t*>v[3].buf
        with nogil:
            for k in range(n_runs):
                vals[k] = o[starts[k]]
                cnts[k] = starts[k + 1] - starts[k]
    finally:
        mb_release_n(v, nb)
    return values_arr, counts_arr


def _scatter_codes(ordered, order, bin_of_value, codes_j):
    """``codes_j[order[r]] = bin_of_value[k]``, k the distinct value at sorted position r
    (``ordered`` float64, ``order`` int64, ``bin_of_value`` and ``codes_j`` uint8)."""
    cdef Py_buffer v[4]
    cdef int nb = 0
    cdef Py_ssize_t n, r, k = 0
    cdef double x, prev
    cdef const double* o
    cdef const int64_t* od
    cdef const uint8_t* bov
    cdef uint8_t* cj
    try:
        mb_acquire(&v[0], ordered, MB_F64, 1, False, MB_C, b"ordered"); nb += 1
        mb_acquire(&v[1], order, MB_I64, 1, False, MB_C, b"order"); nb += 1
        mb_acquire(&v[2], bin_of_value, MB_U8, 1, False, MB_C, b"bin_of_value"); nb += 1
        mb_acquire(&v[3], codes_j, MB_U8, 1, True, MB_C, b"codes_j"); nb += 1
        n = v[1].shape[0]
        if v[0].shape[0] < n:
            raise ValueError("ordered must be as long as order")
        o, od, bov, cj = <const double*>v[0].buf, <const int64_t*>v[1].buf, <const uint8_t*>v[2].buf, <uint8_t*>v[3].buf
        with nogil:
            if n > 0:
                cj[od[0]] = bov[0]
                prev = o[0]
            for r in range(1, n):
                # o[r - 1] carried in a register: a store of a byte may alias any load, so the
                # compiler would load it again (10% slower than numba's loop)
                x = o[r]
                k += x != prev
                prev = x
                cj[od[r]] = bov[k]
    finally:
        mb_release_n(v, nb)


ctypedef fused X_t:
    float
    double
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t


cdef bint _encode_feature(const char* X, Py_ssize_t s0, X_t* dtype_tag, Py_ssize_t start, Py_ssize_t stop,
                          const double* thr_j, int64_t n_thr, uint8_t* codes_j, double* lower_j, double* upper_j,
                          int64_t* counts_j) noexcept nogil:
    """Code rows [start, stop) of one feature (``X``: its first entry, ``s0``: the row stride in
    bytes): binary search for the number of thresholds < x; NaN (below no threshold, so the search
    gives 0) to the missing bin ``n_thr + 1``, past the value bins (``counts_j`` has room for it;
    its ``lower_j``/``upper_j``, compared with NaN, stay as they were). ``dtype_tag`` (unused) picks
    X's type. False where the rows hold an infinity."""
    cdef bint finite = True
    cdef Py_ssize_t i
    cdef int64_t lo, hi, mid, below
    cdef double x
    for i in range(start, stop):
        x = <double>(<const X_t*>(X + i * s0))[0]
        if not isfinite(x) and x == x:
            finite = False
        lo = 0
        hi = n_thr
        while lo < hi:
            # Both bounds moved by arithmetic on the comparison, not by a branch on it (which no
            # predictor guesses): the searches of consecutive rows then overlap.
            mid = (lo + hi) >> 1
            below = thr_j[mid] < x
            lo += (mid + 1 - lo) * below
            hi = mid + (hi - mid) * below
        lo += (n_thr + 1) * (x != x)
        codes_j[i] = <uint8_t>lo
        counts_j[lo] += 1
        if x < lower_j[lo]:
            lower_j[lo] = x
        if x > upper_j[lo]:
            upper_j[lo] = x
    return finite


def _encode(const X_t[:, :] X, const double[:, ::1] thr, const int64_t[::1] n_bins, uint8_t[:, ::1] codes,
            double[:, ::1] lower, double[:, ::1] upper, int64_t[:, ::1] counts, uint8_t[::1] finite, int threads=1):
    """Codes of X (any layout) into ``codes`` and per-bin lower, upper, counts (W + 1 columns: room for
    the missing bin, code ``n_bins[j]``, of NaN); ``finite[j]`` cleared where feature j has an
    infinity. Blocks of rows, in each every feature (on ``threads``
    OpenMP threads, at most ``max_threads()``, a feature's whole work on one of them): each
    feature's result is the same whichever thread does it, so the same for any thread count."""
    cdef Py_ssize_t m = X.shape[0], p = X.shape[1], start, stop, j
    cdef Py_ssize_t s0 = X.strides[0], s1 = X.strides[1]
    cdef Py_ssize_t tw = thr.shape[1], cw = codes.shape[1], bw = lower.shape[1]
    cdef const char* base = <const char*>&X[0, 0]
    cdef const double* thr_p = &thr[0, 0]
    cdef uint8_t* codes_p = &codes[0, 0]
    cdef double* lower_p = &lower[0, 0]
    cdef double* upper_p = &upper[0, 0]
    cdef int64_t* counts_p = &counts[0, 0]
    cdef X_t* tag = NULL
    if not (thr.shape[0] == p and n_bins.shape[0] == p and codes.shape[0] == p and cw == m and lower.shape[0] == p
            and upper.shape[0] == p and counts.shape[0] == p and finite.shape[0] == p and upper.shape[1] == bw
            and counts.shape[1] == bw and bw == tw + 2):
        raise ValueError("inconsistent shapes: X (m, p), thr (p, W - 1), n_bins (p,), codes (p, m), "
                         "lower, upper, counts (p, W + 1), finite (p,)")
    threads = limit_threads(threads)
    with nogil:
        for start in range(0, m, 1024):  # _BLOCK_ROWS (a literal step: a C loop)
            stop = min(start + _BLOCK_ROWS, m)
            if threads <= 1:
                for j in range(p):
                    if not _encode_feature(base + j * s1, s0, tag, start, stop, thr_p + j * tw, n_bins[j] - 1,
                                           codes_p + j * cw, lower_p + j * bw, upper_p + j * bw, counts_p + j * bw):
                        finite[j] = 0
            else:
                for j in prange(p, num_threads=threads, schedule='static'):
                    if not _encode_feature(base + j * s1, s0, tag, start, stop, thr_p + j * tw, n_bins[j] - 1,
                                           codes_p + j * cw, lower_p + j * bw, upper_p + j * bw, counts_p + j * bw):
                        finite[j] = 0
