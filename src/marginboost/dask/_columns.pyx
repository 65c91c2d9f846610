"""Passes over a block of the margin matrix's +-1 columns (kept as int8) on a cluster: the edges
``U^T d`` and the margins ``U w`` of :class:`marginboost.dask.margin_matrix.DistributedMarginMatrix`,
and the new column's reductions (:func:`new_column_sums`).

numpy's ``np.dot(d, c)`` and ``out += w_j * c`` first convert each int8 column to a float64 copy
(8 bytes an entry where the column has one), a pass and an allocation per column: 108 and 131 ms
for 15 columns of a block of 5 million examples, the largest passes of a Newton round once the
support grows. Here every column is read in place, in chunks of rows that stay in cache.
"""
from libc.math cimport INFINITY, NAN, fabs
from libc.stdint cimport int8_t
from libc.stdlib cimport free, malloc

import numpy as np

DEF CHUNK = 4096  # rows a chunk: the chunk's d (32 KiB) stays in cache while every column reads it
DEF LANES = 8  # partial sums of a column's chunk


cdef const int8_t** _column_pointers(list columns, Py_ssize_t n, list keep) except NULL:
    """The columns' data pointers (``keep`` holds their memoryviews while they are used)."""
    cdef Py_ssize_t k = len(columns), j
    cdef const int8_t[::1] view
    cdef const int8_t** ptrs = <const int8_t**> malloc(max(k, 1) * sizeof(int8_t*))
    if ptrs == NULL:
        raise MemoryError()
    for j in range(k):
        view = columns[j]
        if view.shape[0] != n:
            free(ptrs)
            raise ValueError(f"column {j} has {view.shape[0]} entries, the block {n}")
        keep.append(view)
        ptrs[j] = &view[0] if n else NULL
    return ptrs


def int8_edges(const double[::1] d, list columns):
    """``[sum_i d_i c_i for c in columns]`` for int8 columns: each column's sum over the block's
    chunks of rows, a chunk's in :data:`LANES` interleaved partial sums (rows ``i = lane mod
    LANES``; independent additions, so the compiler vectorises them) added in lane order, then its
    remainder, the chunks' added in order: a fixed order, the same bits on every run."""
    cdef Py_ssize_t n = d.shape[0], k = len(columns), j, i, start, end
    cdef list keep = []
    cdef const int8_t** ptrs = _column_pointers(columns, n, keep)
    cdef const int8_t* c
    cdef double acc[LANES]
    cdef double total
    cdef Py_ssize_t lane, whole
    out_arr = np.zeros(k)
    cdef double[::1] out = out_arr
    try:
        with nogil:
            start = 0
            while start < n:
                end = min(n, start + CHUNK)
                whole = start + (end - start) // LANES * LANES
                for j in range(k):
                    c = ptrs[j]
                    for lane in range(LANES):
                        acc[lane] = 0.0
                    for i in range(start, whole, LANES):
                        for lane in range(LANES):
                            acc[lane] = acc[lane] + d[i + lane] * c[i + lane]
                    total = 0.0
                    for lane in range(LANES):
                        total = total + acc[lane]
                    for i in range(whole, end):
                        total = total + d[i] * c[i]
                    out[j] += total
                start = end
    finally:
        free(ptrs)
    return out_arr


def int8_matvec(list columns, const double[::1] weights, Py_ssize_t n):
    """``sum_j weights[j] columns[j]`` for int8 columns of ``n`` entries: per entry the columns'
    terms added in column order from 0, as numpy's ``out += w_j * c`` adds them (the same bits)."""
    cdef Py_ssize_t k = len(columns), j, i, start, end
    cdef list keep = []
    if weights.shape[0] != k:
        raise ValueError(f"int8_matvec: {k} columns but {weights.shape[0]} weights")
    cdef const int8_t** ptrs = _column_pointers(columns, n, keep)
    cdef const int8_t* c
    cdef double wj
    out_arr = np.zeros(n)
    cdef double[::1] out = out_arr
    try:
        with nogil:
            start = 0
            while start < n:
                end = min(n, start + CHUNK)
                for j in range(k):
                    c = ptrs[j]
                    wj = weights[j]
                    for i in range(start, end):
                        out[i] = out[i] + wj * c[i]
                start = end
    finally:
        free(ptrs)
    return out_arr


def new_column_sums(const double[::1] u, const double[::1] d, q):
    """A block's reductions over the weak learner's new column ``u`` in one pass
    (:mod:`marginboost.dask.new_column`): ``(d @ u, codes, short)``, ``codes`` ``u`` as int8 where
    every entry is +-1 (else None), ``short`` None without ``q``, else ``(d @ (u - q), max |u -
    q|)`` (NaN where a difference is NaN; -inf for no rows). Each chunk's sums in :data:`LANES`
    interleaved partial sums added in lane order, then the chunk's remainder, the chunks' added in
    order: a fixed order, the same bits on every run. numpy took twelve passes (three for the +-1
    test, the int8 copy, two dots, the difference, its absolute value, their maximum) and the
    arrays between them."""
    cdef Py_ssize_t n = u.shape[0], i, start, end, lane, whole
    cdef const double[::1] qv
    cdef bint along = q is not None
    cdef int bad = 0, nan = 0
    cdef double edge[LANES]
    cdef double slope[LANES]
    cdef double top[LANES]
    cdef double x, diff, a, edge_total = 0.0, slope_total = 0.0, top_total = -INFINITY
    if d.shape[0] != n:
        raise ValueError("new_column_sums: d must be as long as u")
    if along:
        qv = q
        if qv.shape[0] != n:
            raise ValueError("new_column_sums: q must be as long as u")
    codes_arr = np.empty(n, dtype=np.int8)
    cdef int8_t[::1] codes = codes_arr
    with nogil:
        for lane in range(LANES):
            top[lane] = -INFINITY
        start = 0
        while start < n:
            end = min(n, start + CHUNK)
            whole = start + (end - start) // LANES * LANES
            for lane in range(LANES):
                edge[lane] = 0.0
                slope[lane] = 0.0
            for i in range(start, whole, LANES):
                for lane in range(LANES):
                    edge[lane] = edge[lane] + d[i + lane] * u[i + lane]
            for lane in range(LANES):
                edge_total = edge_total + edge[lane]
            for i in range(whole, end):
                edge_total = edge_total + d[i] * u[i]
            for i in range(start, end):  # +-1 entries as int8 (a -1/+1 test that does not branch)
                x = u[i]
                codes[i] = 1 if x > 0.0 else -1  # (no cast of a double out of int8's range)
                bad |= (x != 1.0) & (x != -1.0)
            if along:
                for i in range(start, whole, LANES):
                    for lane in range(LANES):
                        diff = u[i + lane] - qv[i + lane]
                        slope[lane] = slope[lane] + d[i + lane] * diff
                        a = fabs(diff)
                        nan |= a != a
                        top[lane] = a if a > top[lane] else top[lane]
                for lane in range(LANES):
                    slope_total = slope_total + slope[lane]
                for i in range(whole, end):
                    diff = u[i] - qv[i]
                    slope_total = slope_total + d[i] * diff
                    a = fabs(diff)
                    nan |= a != a
                    top_total = a if a > top_total else top_total
            start = end
        for lane in range(LANES):
            top_total = top[lane] if top[lane] > top_total else top_total
    short = None
    if along:
        short = (slope_total, NAN if nan else top_total)
    return edge_total, None if bad else codes_arr, short
