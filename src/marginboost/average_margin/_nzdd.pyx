"""The compiled loops of :mod:`marginboost.average_margin.nzdd` (the NZDD, its arrays and the
numerics are described there). Node and edge arrays are int64, weights float64, all C-contiguous
(:class:`~marginboost.average_margin.nzdd.NZDD` keeps its arrays so)."""
from libc.math cimport exp, log, INFINITY
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free

import numpy as np

cdef extern from *:
    """
    static const double MB_NZDD_LOG_TINY = -700.0;  /* nzdd.LOG_TINY */
    """
    const double MB_NZDD_LOG_TINY


def two_sum(double a, double b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``s + e = a + b`` exactly (Knuth's TwoSum)."""
    return two_sum_c(a, b)


def dd_add(double ahi, double alo, double bhi, double blo):
    """The double-double sum ``(ahi + alo) + (bhi + blo)`` as ``(hi, lo)``."""
    return dd_add_c(ahi, alo, bhi, blo)


def two_prod(double a, double b):
    """``(p, e)`` with ``p = fl(a b)`` and ``p + e = a b`` exactly (Dekker's TwoProd)."""
    return two_prod_c(a, b)


def _edge_log_weights(const int64_t[::1] label_ptr not None, const int64_t[::1] labels not None, double scale,
                      const double[::1] d not None):
    """``la(e) = sum_{i in psi(e)} scale * d_i`` as double-double arrays ``(hi, lo)``."""
    cdef Py_ssize_t m = d.shape[0], n_edges = label_ptr.shape[0] - 1, i, e
    cdef int64_t k
    cdef double sh, sl
    hi_arr = np.zeros(n_edges)
    lo_arr = np.zeros(n_edges)
    cdef double[::1] hi = hi_arr, lo = lo_arr
    cdef double* xhi = <double*>malloc((2 * m + 1) * sizeof(double))
    if xhi == NULL:
        raise MemoryError()
    cdef double* xlo = xhi + m
    with nogil:
        for i in range(m):
            xhi[i], xlo[i] = two_prod_c(scale, d[i])
        for e in range(n_edges):
            sh = 0.0
            sl = 0.0
            for k in range(label_ptr[e], label_ptr[e + 1]):
                i = labels[k]
                sh, sl = dd_add_c(sh, sl, xhi[i], xlo[i])
            hi[e] = sh
            lo[e] = sl
    free(xhi)
    return hi_arr, lo_arr


def _push(const int64_t[::1] out_ptr not None, const int64_t[::1] dst not None, const double[::1] la_hi not None,
          const double[::1] la_lo not None):
    """Weight pushing: return ``(b, beta_hi, beta_lo)`` (see the module docstring of nzdd)."""
    cdef Py_ssize_t n_nodes = out_ptr.shape[0] - 1, n_edges = dst.shape[0], v
    cdef int64_t e, e0, e1, w
    cdef double mh, ml, s, bh, bl, a
    if la_hi.shape[0] != n_edges or la_lo.shape[0] != n_edges:
        raise ValueError(f"weight pushing: la_hi and la_lo must have the {n_edges} entries of dst")
    beta_hi_arr = np.zeros(n_nodes)
    beta_lo_arr = np.zeros(n_nodes)
    b_arr = np.ones(n_edges)
    cdef double[::1] beta_hi = beta_hi_arr, beta_lo = beta_lo_arr, b = b_arr
    cdef double* t_hi = <double*>malloc((2 * n_edges + 1) * sizeof(double))
    if t_hi == NULL:
        raise MemoryError()
    cdef double* t_lo = t_hi + n_edges
    with nogil:
        for v in range(n_nodes - 2, -1, -1):
            e0 = out_ptr[v]
            e1 = out_ptr[v + 1]
            if e1 - e0 == 1:  # one way on: b = 1, no exp (the chains of the stump NZDD)
                w = dst[e0]
                beta_hi[v], beta_lo[v] = dd_add_c(la_hi[e0], la_lo[e0], beta_hi[w], beta_lo[w])
                continue
            mh = -INFINITY
            ml = 0.0
            for e in range(e0, e1):
                w = dst[e]
                t_hi[e], t_lo[e] = dd_add_c(la_hi[e], la_lo[e], beta_hi[w], beta_lo[w])
                if t_hi[e] > mh:
                    mh = t_hi[e]
                    ml = t_lo[e]
            s = 0.0
            for e in range(e0, e1):
                s += exp((t_hi[e] - mh) + (t_lo[e] - ml))
            bh, bl = dd_add_c(mh, ml, log(s), 0.0)
            beta_hi[v] = bh
            beta_lo[v] = bl
            for e in range(e0, e1):
                # t and beta are close where b matters, so t_hi - bh is exact (Sterbenz).
                a = (t_hi[e] - bh) + (t_lo[e] - bl)
                # Below e^-700 ~ 1e-304 an edge cannot matter; exp and products of subnormals are slow.
                b[e] = exp(a) if a > MB_NZDD_LOG_TINY else 0.0
    free(t_hi)
    return b_arr, beta_hi_arr, beta_lo_arr


cdef int check_nodes(Py_ssize_t n_nodes) except -1:
    if n_nodes < 1:
        raise ValueError("an NZDD has at least one node: out_ptr needs two entries or more")
    return 0


def _forward(const int64_t[::1] out_ptr not None, const int64_t[::1] dst not None, const double[::1] b not None,
             const int64_t[::1] label_ptr not None, const int64_t[::1] labels not None, Py_ssize_t m):
    """Algorithm 2 after pushing: edge marginals ``q`` and label marginals ``r``."""
    cdef Py_ssize_t n_nodes = out_ptr.shape[0] - 1, v
    cdef int64_t e, k
    cdef double zv, qe
    check_nodes(n_nodes)
    if b.shape[0] != dst.shape[0]:
        raise ValueError(f"forward pass: b must have the {dst.shape[0]} entries of dst")
    z_arr = np.zeros(n_nodes)
    q_arr = np.empty(dst.shape[0])
    r_arr = np.zeros(m)
    cdef double[::1] z = z_arr, q = q_arr, r = r_arr
    with nogil:
        z[0] = 1.0
        for v in range(n_nodes - 1):
            zv = z[v]
            for e in range(out_ptr[v], out_ptr[v + 1]):
                qe = zv * b[e]
                if qe < 1e-300:  # negligible, and subnormal arithmetic is slow
                    qe = 0.0
                q[e] = qe
                z[dst[e]] += qe
                for k in range(label_ptr[e], label_ptr[e + 1]):
                    r[labels[k]] += qe
    return q_arr, r_arr


def _max_path(const int64_t[::1] out_ptr not None, const int64_t[::1] dst not None,
              const int64_t[::1] label_ptr not None, const int64_t[::1] labels not None, const double[::1] d not None):
    """``max_P sum_{i in L(P)} d_i`` by a max-plus pass (Viterbi)."""
    cdef Py_ssize_t n_nodes = out_ptr.shape[0] - 1, v
    cdef int64_t e, k
    cdef double top, s
    check_nodes(n_nodes)
    best_arr = np.zeros(n_nodes)
    cdef double[::1] best = best_arr
    with nogil:
        for v in range(n_nodes - 2, -1, -1):
            top = -INFINITY
            for e in range(out_ptr[v], out_ptr[v + 1]):
                s = best[dst[e]]
                for k in range(label_ptr[e], label_ptr[e + 1]):
                    s += d[labels[k]]
                if s > top:
                    top = s
            best[v] = top
    return best[0]


def _log_count(const int64_t[::1] out_ptr not None, const int64_t[::1] dst not None):
    """``log`` of the number of root-to-leaf paths, by a backward log-sum pass."""
    cdef Py_ssize_t n_nodes = out_ptr.shape[0] - 1, v
    cdef int64_t e
    cdef double mx, s, cw
    check_nodes(n_nodes)
    c_arr = np.zeros(n_nodes)
    cdef double[::1] c = c_arr
    with nogil:
        for v in range(n_nodes - 2, -1, -1):
            mx = -INFINITY
            for e in range(out_ptr[v], out_ptr[v + 1]):
                cw = c[dst[e]]
                mx = cw if cw > mx else mx  # Python's max(mx, cw)
            s = 0.0
            for e in range(out_ptr[v], out_ptr[v + 1]):
                s += exp(c[dst[e]] - mx)
            c[v] = mx + log(s)
    return c[0]


def _count(const int64_t[::1] out_ptr not None, const int64_t[::1] dst not None):
    """The number of root-to-leaf paths as a float64 (exact below 2^53)."""
    cdef Py_ssize_t n_nodes = out_ptr.shape[0] - 1, v
    cdef int64_t e
    check_nodes(n_nodes)
    c_arr = np.zeros(n_nodes)
    cdef double[::1] c = c_arr
    with nogil:
        c[n_nodes - 1] = 1.0
        for v in range(n_nodes - 2, -1, -1):
            for e in range(out_ptr[v], out_ptr[v + 1]):
                c[v] += c[dst[e]]
    return c[0]
