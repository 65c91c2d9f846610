"""The compiled passes of the distributed selection (:mod:`marginboost.dask.selection`).

Each pass runs over a block's margins in chunks of :data:`CHUNK`: the margins of the chunk that
matter are gathered, their exponentials taken by the vectorised ``exp_into_c`` of
:mod:`marginboost.core.vector_math` (within 1 ulp of libm; libm's exp, one call per margin in the
loop of the sums, took a third of the pass), then summed in increasing example index. The
interval of a margin among the pivots is looked up in a table over the pivots' range (a short
binary search in the cell's few pivots) where a binary search over 256 pivots, one mispredicted
branch a level, took half of the pass (``_Buckets``).
"""
from libc.math cimport exp, INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from marginboost.core._vector_math cimport exp_into_c

import numpy as np

DEF CHUNK = 1024  # margins a chunk: 56 KiB of scratch on the stack
DEF CELLS_PER_PIVOT = 16  # the lookup table's cells per pivot
DEF MAX_STEPS = 4  # a table whose cells hold more pivots than this: binary search in the cell
cdef double EXP_FLOOR = -708.0  # exp_into_c's smallest argument (vector_math.EXP_MIN_ARG); libm below


cdef struct _Buckets:
    double* pivots  # a copy of the pivots (sorted; pivots[0] <= every margin looked up), +inf after
    Py_ssize_t width
    double base  # the first finite pivot
    double scale  # cells / (the last pivot - base)
    double last_cell  # cells - 1, as a double
    Py_ssize_t cells  # 0: no table, a binary search over all pivots
    Py_ssize_t steps  # the most pivots a cell's range holds, if at most MAX_STEPS; else -1
    int32_t* table  # cells + 1 entries: the largest b with pivots[b] <= base + c / scale


cdef int _buckets_init(_Buckets* bk, const double* pivots, Py_ssize_t width) noexcept nogil:
    """The lookup table of ``pivots`` (-1: out of memory)."""
    cdef Py_ssize_t c, b, first
    cdef double span, edge
    bk.width, bk.cells, bk.steps, bk.table = width, 0, -1, NULL
    bk.pivots = <double*>malloc((width + 1) * sizeof(double))
    if bk.pivots == NULL:
        return -1
    for b in range(width):
        bk.pivots[b] = pivots[b]
    bk.pivots[width] = INFINITY  # the sentinel of the steps
    first = 1 if pivots[0] == -INFINITY else 0
    if width - first < 2:
        return 0
    bk.base = pivots[first]
    span = pivots[width - 1] - bk.base
    if not (span > 0.0 and span < INFINITY):
        return 0
    bk.cells = CELLS_PER_PIVOT * width
    bk.scale = bk.cells / span
    bk.last_cell = bk.cells - 1
    if not (bk.scale < INFINITY):
        bk.cells = 0
        return 0
    bk.table = <int32_t*>malloc((bk.cells + 1) * sizeof(int32_t))
    if bk.table == NULL:
        return -1
    b = first
    bk.steps = 0
    for c in range(bk.cells + 1):
        edge = bk.base + c / bk.scale
        while b + 1 < width and pivots[b + 1] <= edge:
            b += 1
        bk.table[c] = <int32_t>b
        if c and b - bk.table[c - 1] + 1 > bk.steps:
            bk.steps = b - bk.table[c - 1] + 1
    if bk.steps > MAX_STEPS:
        bk.steps = -1
    return 0


cdef inline Py_ssize_t _bucket(const _Buckets* bk, double x) noexcept nogil:
    """The largest ``b`` with ``pivots[b] <= x`` (``pivots[0] <= x``): from the table's entry for
    x's cell, ``steps`` branch-free steps (a mispredicted branch costs more than a step), else a
    binary search."""
    cdef const double* p = bk.pivots
    cdef Py_ssize_t a = 0, b = bk.width, mid, k
    cdef double cell
    if bk.cells:
        if x < bk.base:
            return 0  # (pivots[0] is -inf: below the first finite pivot lies its interval alone)
        cell = (x - bk.base) * bk.scale
        a = bk.table[<Py_ssize_t>(cell if cell < bk.last_cell else bk.last_cell)]
        if bk.steps >= 0:
            for k in range(bk.steps):
                a += p[a + 1] <= x
            while p[a] > x:  # (the cell's rounding: rare)
                a -= 1
            while p[a + 1] <= x:
                a += 1
            return a
        b = bk.width
    while b - a > 1:
        mid = (a + b) // 2
        if p[mid] <= x:
            a = mid
        else:
            b = mid
    return a


cdef inline void _exp_chunk(const double* arg, double* clamped, double* out, int64_t* scratch,
                            Py_ssize_t n) noexcept nogil:
    """``out[t] = exp(arg[t])`` for ``arg <= 0``: vectorised from :data:`EXP_FLOOR` on, libm's
    below it (subnormal or 0; -inf gives 0)."""
    cdef Py_ssize_t t
    for t in range(n):
        clamped[t] = arg[t] if arg[t] >= EXP_FLOOR else EXP_FLOOR
    exp_into_c(clamped, out, scratch, n)
    for t in range(n):
        if arg[t] < EXP_FLOOR:
            out[t] = exp(arg[t])


def interval_sums(const double[::1] q, s, double lo, double hi, const double[::1] pivots, double eta, bint with_exp,
                  bint outside=False):
    """``(inside, weights, count, mass, sq, e, tie_count, tie_mass, tie_sq, beyond)``: the margins of ``q``
    in ``[lo, hi)`` and their weights (``s``, or None: ones; then ``weights`` is None), and per
    interval ``b`` of ``[pivots[b], pivots[b+1])`` (the last up to ``hi``; ``pivots[0] <= lo``) the
    count, the weight, ``sum s q``, with ``with_exp`` ``sum s exp(-eta (q - pivots[b]))``, and the
    count, weight and ``sum s q`` of its margins equal to ``pivots[b]`` (ties: the search leaves them
    below its next interval), each summed in increasing example index. Over ``(-inf, inf)`` (the
    first step of a hinted search) every margin is inside: ``q`` and ``s`` are returned as they are,
    not copied. ``beyond``: None, or with ``outside`` the sums of the margins outside ``[lo, hi)``
    (a search's window): ``(count, mass, sum s q)`` of those below ``lo`` and, with ``with_exp``,
    ``sum s exp(-eta (q - hi))`` of those from ``hi`` on (else 0)."""
    cdef Py_ssize_t n = q.shape[0], width = pivots.shape[0], i, k = 0, start, end, c, t, a
    cdef const double[::1] w
    cdef bint weighted = s is not None, whole = lo == -INFINITY and hi == INFINITY
    if width < 1:
        raise ValueError("interval_sums: no pivot")
    if weighted:
        w = s
        if w.shape[0] != n:
            raise ValueError("interval_sums: s must be as long as q")
    inside = np.asarray(q) if whole else np.empty(n)
    cdef double[::1] out
    cdef double[::1] out_w
    if not whole:
        out = inside
    weights = s if whole else None
    if weighted and not whole:
        weights = np.empty(n)
        out_w = weights
    count_arr = np.zeros(width, dtype=np.int64)
    mass_arr = np.zeros(width)
    sq_arr = np.zeros(width)
    e_arr = np.zeros(width)
    tie_count_arr = np.zeros(width, dtype=np.int64)
    tie_mass_arr = np.zeros(width)
    tie_sq_arr = np.zeros(width)
    cdef long long[::1] tie_count = tie_count_arr
    cdef double[::1] tie_mass = tie_mass_arr
    cdef double[::1] tie_sq = tie_sq_arr
    cdef long long[::1] count = count_arr
    cdef double[::1] mass = mass_arr
    cdef double[::1] sq = sq_arr
    cdef double[::1] e = e_arr
    cdef double xs[CHUNK]
    cdef double ws[CHUNK]
    cdef double arg[CHUNK]
    cdef double ex[CHUNK]
    cdef double clamped[CHUNK]
    cdef int64_t scratch[CHUNK]
    cdef int32_t bucket[CHUNK]
    cdef uint8_t tie[CHUNK]
    cdef double ws_above[CHUNK]
    cdef double x, wi, ti, below_mass = 0.0, below_sq = 0.0, above_e = 0.0, is_below
    cdef Py_ssize_t below_count = 0, n_above
    cdef _Buckets bk
    cdef int failed = 0
    with nogil:
        failed = _buckets_init(&bk, &pivots[0], width)
        if failed == 0:
            start = 0
            while start < n:
                end = min(n, start + CHUNK)
                if outside:  # (first: arg and ex are the inside margins' after it)
                    n_above = 0
                    for i in range(start, end):
                        x = q[i]
                        wi = w[i] if weighted else 1.0
                        is_below = x < lo
                        below_count += <Py_ssize_t>is_below
                        below_mass += wi * is_below
                        below_sq += wi * x * is_below
                        arg[n_above] = -eta * (x - hi)
                        ws_above[n_above] = wi
                        n_above += x >= hi
                    if with_exp:
                        _exp_chunk(arg, clamped, ex, scratch, n_above)
                        for t in range(n_above):
                            above_e += ws_above[t] * ex[t]
                c = 0
                # Without a branch: whether a margin is inside is a coin toss in a hinted step's
                # range, and a mispredicted branch cost more than the rest of this loop.
                if weighted:
                    for i in range(start, end):
                        x = q[i]
                        xs[c] = x
                        ws[c] = w[i]
                        c += (x >= lo) & (x < hi)
                else:
                    for i in range(start, end):
                        x = q[i]
                        xs[c] = x
                        ws[c] = 1.0
                        c += (x >= lo) & (x < hi)
                for t in range(c):
                    bucket[t] = <int32_t>_bucket(&bk, xs[t])
                    tie[t] = xs[t] == pivots[bucket[t]]
                if with_exp:
                    for t in range(c):
                        arg[t] = -eta * (xs[t] - pivots[bucket[t]])
                    _exp_chunk(arg, clamped, ex, scratch, c)
                if not whole:
                    memcpy(&out[k], xs, c * sizeof(double))
                    if weighted:
                        memcpy(&out_w[k], ws, c * sizeof(double))
                # Without a branch on the ties (a coin toss where margins take few values); the sums
                # of the unweighted masses are the counts, taken after the loop.
                for t in range(c):
                    a = bucket[t]
                    x = xs[t]
                    wi = ws[t]
                    ti = wi * tie[t]
                    count[a] += 1
                    sq[a] += wi * x
                    tie_count[a] += tie[t]
                    tie_sq[a] += ti * x
                    if weighted:
                        mass[a] += wi
                        tie_mass[a] += ti
                    if with_exp:
                        e[a] += wi * ex[t]
                k += c
                start = end
        free(bk.table)
        free(bk.pivots)
    if failed:
        raise MemoryError("interval_sums: no memory for the pivots' lookup table")
    if not weighted:
        mass_arr[:] = count_arr
        tie_mass_arr[:] = tie_count_arr
    beyond = (int(below_count), below_mass, below_sq, above_e) if outside else None
    return (inside[:k], None if weights is None else weights[:k], count_arr, mass_arr, sq_arr, e_arr, tie_count_arr,
            tie_mass_arr, tie_sq_arr, beyond)


def kl_block(const double[::1] q, s, double tau, double scale, double nu, double eta, delta):
    """``(d, sums)``: a block of the projection's ``d`` (:mod:`marginboost.dask.selection`),
    ``d_i = cap_i = s_i / nu`` where ``q_i < tau`` (every ``i`` where ``tau`` is +inf), else
    ``s_i scale exp(-eta (q_i - tau))`` (``s``: weights, or None: ones), and with ``delta`` its
    line-search sums (:func:`marginboost.core.projections.slope_curvature_sums`'s, in the same order
    of operations), else None. One pass in chunks; numpy took eight (a mask, its complement, two
    gathers, a scatter and the temporaries of the exponent)."""
    cdef Py_ssize_t n = q.shape[0], i, start, end, t
    cdef const double[::1] w
    cdef const double[::1] dl
    cdef bint weighted = s is not None, along = delta is not None, all_capped = tau == INFINITY
    cdef double cap = 1.0 / nu, cap_i, di, x, slope = 0.0, sq = 0.0, lin = 0.0, mass = 0.0
    cdef double arg[CHUNK]
    cdef double ex[CHUNK]
    cdef double clamped[CHUNK]
    cdef int64_t scratch[CHUNK]
    if weighted:
        w = s
        if w.shape[0] != n:
            raise ValueError("kl_block: s must be as long as q")
    if along:
        dl = delta
        if dl.shape[0] != n:
            raise ValueError("kl_block: delta must be as long as q")
    d_arr = np.empty(n)
    cdef double[::1] d = d_arr
    with nogil:
        start = 0
        while start < n:
            end = min(n, start + CHUNK)
            if not all_capped:
                for t in range(end - start):  # (0 for a capped example: its exp is not used)
                    arg[t] = -eta * (q[start + t] - tau) if q[start + t] >= tau else 0.0
                _exp_chunk(arg, clamped, ex, scratch, end - start)
            for i in range(start, end):
                cap_i = w[i] * cap if weighted else cap
                if all_capped or q[i] < tau:
                    di = cap_i
                else:
                    di = scale * ex[i - start]
                    if weighted:
                        di = w[i] * di
                d[i] = di
                if along:
                    x = di * dl[i]
                    slope += x
                    if di < cap_i * (1.0 - 1e-12):
                        sq += x * dl[i]
                        lin += x
                        mass += di
            start = end
    if not along:
        return d_arr, None
    return d_arr, (slope, sq, lin, mass)


cdef Py_ssize_t _table_shift(Py_ssize_t limit, Py_ssize_t* size):
    """The hash table of :func:`kl_d_few` and :func:`distinct_sums` for up to ``limit`` keys: its
    ``size`` (a power of two, at least 16 and ``2 limit``) and the shift that takes a 64-bit hash
    to a slot."""
    cdef Py_ssize_t shift = 60
    size[0] = 16
    while size[0] < 2 * limit:
        size[0] *= 2
        shift -= 1
    return shift


cdef inline Py_ssize_t _slot(const double* keys, const uint8_t* used, Py_ssize_t size, Py_ssize_t shift,
                             double key) noexcept nogil:
    """The slot of ``key`` (not NaN, not -0.0) in the table: where it is, or the free slot where it
    goes (Fibonacci hashing of its bits, linear probing)."""
    cdef uint64_t bits
    cdef Py_ssize_t slot
    memcpy(&bits, &key, 8)
    slot = <Py_ssize_t>((bits * <uint64_t>0x9E3779B97F4A7C15) >> shift)
    while used[slot] and keys[slot] != key:
        slot = (slot + 1) & (size - 1)
    return slot


def kl_d_few(const double[::1] q, s, double tau, double scale, double nu, double eta, Py_ssize_t limit):
    """:func:`kl_block`'s ``d`` (without sums) where the block's margins take at most ``limit``
    values, else None (NaN margins: None too). Examples of one margin share their ``d`` but for
    the weight: each value's ``d`` is made once, by :func:`kl_block`'s operations (its exponential
    by the same ``exp_into_c``, whose result does not depend on the neighbours: the same bits), and
    looked up for the others in a hash table (as :func:`distinct_sums`'). A small ensemble's
    margins take a few hundred values a block: a lookup costs about half the exponential's chunked
    pass. The pass stops at the first value beyond ``limit`` (with many values, early)."""
    cdef Py_ssize_t n = q.shape[0], i, k = 0, slots_n, shift, slot
    cdef const double[::1] w
    cdef bint weighted = s is not None, all_capped = tau == INFINITY, failed = False
    cdef double cap = 1.0 / nu, x, key, value, arg1, clamped1, ex1
    cdef int64_t scratch1
    if limit < 0:
        raise ValueError(f"kl_d_few: limit must be >= 0, got {limit}")
    if weighted:
        w = s
        if w.shape[0] != n:
            raise ValueError("kl_d_few: s must be as long as q")
    shift = _table_shift(limit, &slots_n)
    keys_arr = np.empty(slots_n)
    values_arr = np.empty(slots_n)
    used_arr = np.zeros(slots_n, dtype=np.uint8)
    d_arr = np.empty(n)
    cdef double[::1] keys = keys_arr
    cdef double[::1] values = values_arr
    cdef uint8_t[::1] used = used_arr
    cdef double[::1] d = d_arr
    cdef const double* key_at = &keys[0]
    cdef const uint8_t* used_at = &used[0]
    with nogil:
        for i in range(n):
            x = q[i]
            if x != x:
                failed = True
                break
            key = 0.0 if x == 0.0 else x  # (-0.0 is 0.0, and its d is the same)
            slot = _slot(key_at, used_at, slots_n, shift, key)
            if not used[slot]:
                if k == limit:
                    failed = True
                    break
                used[slot] = 1
                keys[slot] = key
                k += 1
                if all_capped or x < tau:
                    values[slot] = cap
                else:
                    arg1 = -eta * (x - tau)
                    _exp_chunk(&arg1, &clamped1, &ex1, &scratch1, 1)
                    values[slot] = scale * ex1
            value = values[slot]
            d[i] = w[i] * value if weighted else value
    if failed:
        return None
    return d_arr


def distinct_sums(const double[::1] q, s, Py_ssize_t limit, double lo=-INFINITY, double hi=INFINITY, delta=None,
                  lam=None):
    """``(values, masses)``: the distinct values of ``q`` in ``[lo, hi)`` in the order they first
    occur, each with its summed weight (``s``, or None: ones; summed in increasing index, as
    ``bincount`` sums), or None where there are more than ``limit``. One pass through a hash table
    of at least ``2 limit`` slots; ``np.unique`` sorted the values (130 ms at 1.25 million margins of
    200 values, 35x this). With ``delta``: ``(values, masses, sum s delta, sum s delta^2)``, the
    last two per value too (a line search's sums along ``delta``, :mod:`marginboost.dask.selection`).
    With ``lam`` too, the values are those of ``q + lam delta``, each made as numpy makes it (the
    product rounded, then the sum: the same bits), none written out."""
    cdef Py_ssize_t n = q.shape[0], i, k = 0, cap, shift, slot
    cdef const double[::1] w
    cdef const double[::1] dl
    cdef bint weighted = s is not None, along = delta is not None, overflow = False, shifted = lam is not None
    cdef double x, wi, di, step = 0.0 if lam is None else lam
    if limit < 0:
        raise ValueError(f"distinct_sums: limit must be >= 0, got {limit}")
    if weighted:
        w = s
        if w.shape[0] != n:
            raise ValueError("distinct_sums: s must be as long as q")
    if along:
        dl = delta
        if dl.shape[0] != n:
            raise ValueError("distinct_sums: delta must be as long as q")
    elif shifted:
        raise ValueError("distinct_sums: lam needs delta")
    shift = _table_shift(limit, &cap)
    keys_arr = np.empty(cap)
    mass_arr = np.zeros(cap)
    along_arr = np.zeros(cap if along else 0)
    along2_arr = np.zeros(cap if along else 0)
    used_arr = np.zeros(cap, dtype=np.uint8)
    slots_arr = np.empty(max(limit, 1), dtype=np.int64)
    cdef double[::1] keys = keys_arr
    cdef double[::1] mass = mass_arr
    cdef double[::1] sd = along_arr
    cdef double[::1] sd2 = along2_arr
    cdef uint8_t[::1] used = used_arr
    cdef int64_t[::1] slots = slots_arr
    cdef const double* key_at = &keys[0]
    cdef const uint8_t* used_at = &used[0]
    with nogil:
        for i in range(n):
            x = q[i] + step * dl[i] if shifted else q[i]
            if not (x >= lo and x < hi):
                continue
            if x == 0.0:
                x = 0.0  # (-0.0 is 0.0)
            slot = _slot(key_at, used_at, cap, shift, x)
            if not used[slot]:
                if k == limit:
                    overflow = True
                    break
                used[slot] = 1
                keys[slot] = x
                slots[k] = slot
                k += 1
            wi = w[i] if weighted else 1.0
            mass[slot] += wi
            if along:
                di = wi * dl[i]
                sd[slot] += di
                sd2[slot] += di * dl[i]
    if overflow:
        return None
    found = slots_arr[:k]
    if along:
        return keys_arr[found], mass_arr[found], along_arr[found], along2_arr[found]
    return keys_arr[found], mass_arr[found]
