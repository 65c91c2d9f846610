"""The compiled pass of the distributed selection (:mod:`marginboost.dask.selection`).

One pass over a block's margins: those in ``[lo, hi)`` are copied out (with their weights) and
summed per interval between consecutive pivots, where the numpy version took a mask, a copy, a
``searchsorted`` and four ``bincount`` passes (5x the time at 250,000 margins a block). Each sum
is taken in increasing example index, as ``bincount`` takes it.
"""
from libc.math cimport exp, INFINITY

import numpy as np


def interval_sums(const double[::1] q, s, double lo, double hi, const double[::1] pivots, double eta, bint with_exp):
    """``(inside, weights, count, mass, sq, e, top)``: the margins of ``q`` in ``[lo, hi)`` and
    their weights (``s``, or None: ones; then ``weights`` is None), and per interval ``b`` of
    ``[pivots[b], pivots[b+1])`` (the last up to ``hi``; ``pivots[0] <= lo``) the count, the
    weight, ``sum s q``, with ``with_exp`` ``sum s exp(-eta (q - pivots[b]))``, and the largest
    margin (-inf where none). Over ``(-inf, inf)`` (the first step of a hinted search) every margin
    is inside: ``q`` and ``s`` are returned as they are, not copied."""
    cdef Py_ssize_t n = q.shape[0], width = pivots.shape[0], i, k = 0, a, b, mid
    cdef const double[::1] w
    cdef bint weighted = s is not None, whole = lo == -INFINITY and hi == INFINITY
    if weighted:
        w = s
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
    top_arr = np.full(width, -np.inf)
    cdef double[::1] top = top_arr
    cdef long long[::1] count = count_arr
    cdef double[::1] mass = mass_arr
    cdef double[::1] sq = sq_arr
    cdef double[::1] e = e_arr
    cdef double x, wi
    with nogil:
        for i in range(n):
            x = q[i]
            if not (x >= lo and x < hi):
                continue
            wi = w[i] if weighted else 1.0
            if not whole:
                out[k] = x
                if weighted:
                    out_w[k] = wi
            k += 1
            # the largest b with pivots[b] <= x (pivots[0] <= lo <= x)
            a = 0
            b = width
            while b - a > 1:
                mid = (a + b) // 2
                if pivots[mid] <= x:
                    a = mid
                else:
                    b = mid
            count[a] += 1
            mass[a] += wi
            sq[a] += wi * x
            if with_exp:
                e[a] += wi * exp(-eta * (x - pivots[a]))
            if x > top[a]:
                top[a] = x
    return inside[:k], None if weights is None else weights[:k], count_arr, mass_arr, sq_arr, e_arr, top_arr


def kl_block(const double[::1] q, s, double tau, double scale, double nu, double eta, delta):
    """``(d, sums)``: a block of the projection's ``d`` (:mod:`marginboost.dask.selection`),
    ``d_i = cap_i = s_i / nu`` where ``q_i < tau`` (every ``i`` where ``tau`` is +inf), else
    ``s_i scale exp(-eta (q_i - tau))`` (``s``: weights, or None: ones), and with ``delta`` its
    line-search sums (:func:`marginboost.core.projections.slope_curvature_sums`'s, in the same order
    of operations: the same bits), else None. One pass; the numpy version took eight (a mask, its
    complement, two gathers, a scatter and the temporaries of the exponent)."""
    cdef Py_ssize_t n = q.shape[0], i
    cdef const double[::1] w
    cdef const double[::1] dl
    cdef bint weighted = s is not None, along = delta is not None, all_capped = tau == INFINITY
    cdef double cap = 1.0 / nu, cap_i, di, x, slope = 0.0, sq = 0.0, lin = 0.0, mass = 0.0
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
        for i in range(n):
            cap_i = w[i] * cap if weighted else cap
            if all_capped or q[i] < tau:
                di = cap_i
            else:
                di = scale * exp(-eta * (q[i] - tau))
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
    if not along:
        return d_arr, None
    return d_arr, (slope, sq, lin, mass)
