"""The running sum of ``d`` over a block's free examples, for the Newton rule's Hessian sample on a
cluster (:meth:`marginboost.dask.margin_matrix.DistributedMarginMatrix.face_hessian`).

The blocks continue the sum one after the other, so the blocks' passes are a chain: numpy's mask,
``flatnonzero``, gather and ``cumsum`` took 15 ms a block of 1.25 million examples, 120 ms of each
round at 10^7 rows with one worker busy at a time. One compiled pass, the same additions in the
same order (``cumsum`` adds in sequence), so the same bits. The sample's rows then come from one
more pass (:func:`picked_free_rows`), the same rows as numpy's five.
"""
from libc.stdint cimport int64_t

import numpy as np


cdef inline bint _free(double x, double cap_i, double floor) noexcept nogil:
    """An example of ``d_i = x`` is free: below its cap by more than 1e-12 of it, above the floor."""
    return x < cap_i * (1.0 - 1e-12) and x > floor


def free_running_sum(const double[::1] d, caps, double cap, double floor, double start):
    """``(count, running)``: the free examples of the block (``d_i < cap_i (1 - 1e-12)`` and
    ``d_i > floor``, ``cap_i`` from ``caps`` or, where it is None, ``cap``) and ``start`` plus their
    ``d``, added in increasing index."""
    cdef Py_ssize_t n = d.shape[0], i, count = 0
    cdef const double[::1] c
    cdef bint per_example = caps is not None
    cdef double running = start, x
    if per_example:
        c = caps
        if c.shape[0] != n:
            raise ValueError("free_running_sum: caps must be as long as d")
    with nogil:
        for i in range(n):
            x = d[i]
            if _free(x, c[i] if per_example else cap, floor):
                running = running + x
                count += 1
    return count, running


def picked_free_rows(const double[::1] d, caps, double cap, double floor, double start, points):
    """The rows of the Newton rule's Hessian sample in a block: without ``points`` every free example
    (as :func:`free_running_sum` counts them), else for each point (increasing) the first free
    example whose running sum of ``d`` from ``start`` exceeds it, the last free one for points
    beyond (numpy's ``searchsorted(cumsum, points, 'right')``, clipped, over the same additions in
    the same order: the same rows). One pass; numpy's mask, ``flatnonzero``, gather, ``cumsum`` and
    ``searchsorted`` took five."""
    cdef Py_ssize_t n = d.shape[0], i, k = 0, found = 0, last = -1, n_points
    cdef const double[::1] c
    cdef const double[::1] p
    cdef bint per_example = caps is not None, all_rows = points is None
    cdef double running = start, x
    if per_example:
        c = caps
        if c.shape[0] != n:
            raise ValueError("picked_free_rows: caps must be as long as d")
    if not all_rows:
        p = points
        n_points = p.shape[0]
    out_arr = np.empty(n if all_rows else n_points, dtype=np.int64)
    cdef int64_t[::1] out = out_arr
    with nogil:
        for i in range(n):
            x = d[i]
            if _free(x, c[i] if per_example else cap, floor):
                last = i
                if all_rows:
                    out[found] = i
                    found += 1
                    continue
                running = running + x
                while k < n_points and p[k] < running:
                    out[k] = i
                    k += 1
        if not all_rows:
            if last < 0:
                k = 0
            else:
                while k < n_points:
                    out[k] = last
                    k += 1
            found = k
    return out_arr[:found]
