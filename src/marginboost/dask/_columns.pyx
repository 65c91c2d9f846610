"""Passes over a block of the margin matrix's +-1 columns (kept as int8) on a cluster: the edges
``U^T d`` and the margins ``U w`` of :class:`marginboost.dask.margin_matrix.DistributedMarginMatrix`.

numpy's ``np.dot(d, c)`` and ``out += w_j * c`` first convert each int8 column to a float64 copy
(8 bytes an entry where the column has one), a pass and an allocation per column: 108 and 131 ms
for 15 columns of a block of 5 million examples, the largest passes of a Newton round once the
support grows. Here every column is read in place, in chunks of rows that stay in cache.
"""
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
