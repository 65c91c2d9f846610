"""The compiled loops of :mod:`marginboost.average_margin.stump_oracle` (the sweep, its segments,
restarts and error bounds are described there). The tables are those of
:class:`marginboost.average_margin.nzdd_stumps.StumpNZDD`: C-contiguous, int64 indices, bool flags."""
from libc.math cimport ceil, exp, fabs, frexp, ldexp, log, rint
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

import numpy as np

from marginboost.average_margin._nzdd cimport dd_add_c, two_prod_c, two_sum_c

# Constants as C ``static const`` (a module-level ``cdef double`` would be reloaded in the loops).
cdef extern from *:
    """
    static const long long MB_SO_SEGMENT = 256;
    static const double MB_SO_SPAN = 340.0;
    static const double MB_SO_HEADROOM = 150.0;
    static const double MB_SO_KEPT_FLOOR = 2.0 * 2.2250738585072014e-308;
    static const double MB_SO_LOG_TINY = -700.0;
    static const double MB_SO_LN2_HI = 6.93147180369123816490e-01;
    static const double MB_SO_LN2_LO = 1.90821492927058770002e-10;
    static const double MB_SO_INV_LN2 = 1.44269504088896338700e+00;
    /* 1/k!: the even and odd parts of the degree-13 Taylor polynomial of exp */
    static const double MB_SO_E12 = 1.0 / 479001600.0;
    static const double MB_SO_E10 = 1.0 / 3628800.0;
    static const double MB_SO_E8 = 1.0 / 40320.0;
    static const double MB_SO_E6 = 1.0 / 720.0;
    static const double MB_SO_E4 = 1.0 / 24.0;
    static const double MB_SO_E2 = 1.0 / 2.0;
    static const double MB_SO_O13 = 1.0 / 6227020800.0;
    static const double MB_SO_O11 = 1.0 / 39916800.0;
    static const double MB_SO_O9 = 1.0 / 362880.0;
    static const double MB_SO_O7 = 1.0 / 5040.0;
    static const double MB_SO_O5 = 1.0 / 120.0;
    static const double MB_SO_O3 = 1.0 / 6.0;
    """
    const int64_t MB_SO_SEGMENT
    const double MB_SO_SPAN
    const double MB_SO_HEADROOM
    const double MB_SO_KEPT_FLOOR
    const double MB_SO_LOG_TINY
    const double MB_SO_LN2_HI
    const double MB_SO_LN2_LO
    const double MB_SO_INV_LN2
    const double MB_SO_E12
    const double MB_SO_E10
    const double MB_SO_E8
    const double MB_SO_E6
    const double MB_SO_E4
    const double MB_SO_E2
    const double MB_SO_O13
    const double MB_SO_O11
    const double MB_SO_O9
    const double MB_SO_O7
    const double MB_SO_O5
    const double MB_SO_O3

cdef enum:
    KEEP_POS = 1
    KEEP_NEG = 2
    CUT = 4

_SEGMENT = MB_SO_SEGMENT
_SPAN = MB_SO_SPAN
_HEADROOM = MB_SO_HEADROOM
_KEPT_FLOOR = MB_SO_KEPT_FLOOR
_LN2_HI = MB_SO_LN2_HI
_LN2_LO = MB_SO_LN2_LO
_INV_LN2 = MB_SO_INV_LN2
_EXP_EVEN = (MB_SO_E12, MB_SO_E10, MB_SO_E8, MB_SO_E6, MB_SO_E4, MB_SO_E2, 1.0)
_EXP_ODD = (MB_SO_O13, MB_SO_O11, MB_SO_O9, MB_SO_O7, MB_SO_O5, MB_SO_O3, 1.0)
_KEEP_POS = KEEP_POS
_KEEP_NEG = KEEP_NEG
_CUT = CUT


cdef struct Restart:
    double q0, q1, base0, rel0, base1, rel1, ref, scale


cdef inline (double, double, double) segment_start_c(double a) noexcept nogil:
    if a + MB_SO_SPAN < MB_SO_LOG_TINY:
        return 0.0, 0.0, 1.0
    cdef double q = exp(a) if a >= MB_SO_LOG_TINY else 0.0
    if a >= MB_SO_LOG_TINY:
        return q, q, 1.0
    return q, exp(MB_SO_LOG_TINY), exp(a - MB_SO_LOG_TINY)


cdef inline double kept_ratio_c(double base) noexcept nogil:
    return MB_SO_KEPT_FLOOR / base if base > 0.0 else 1.0


cdef Restart restart_c(double dh, double dl, double ph, double pl, double nh, double nl, double ref,
                       double* racc, Py_ssize_t m, double* out, Py_ssize_t n_out) noexcept nogil:
    cdef Restart r
    cdef double a0h, a0l, a1h, a1l, a0, a1, top, new, scale
    cdef Py_ssize_t i
    a0h, a0l = dd_add_c(ph, pl, -ref, 0.0)
    a1h, a1l = dd_add_c(nh, nl, -ref, 0.0)
    a0 = (a0h + dh) + (a0l + dl)  # a0h + dh is exact (Sterbenz) wherever exp(a0) matters
    a1 = (a1h - dh) + (a1l - dl)
    scale = 1.0
    top = a1 if a1 > a0 else a0  # Python's max(a0, a1)
    if top > 0.0:
        # integer-valued, so new - ref is exact (math.ceil's int64, as the jitted kernel had it, then a float)
        new = <double><int64_t>ceil(ref + top + MB_SO_HEADROOM)
        scale = exp(ref - new)
        for i in range(m):
            racc[i] = racc[i] * scale
        for i in range(n_out):
            out[i] = out[i] * scale
        ref = new
        a0h, a0l = dd_add_c(ph, pl, -ref, 0.0)
        a1h, a1l = dd_add_c(nh, nl, -ref, 0.0)
        a0 = (a0h + dh) + (a0l + dl)
        a1 = (a1h - dh) + (a1l - dl)
    r.q0, r.base0, r.rel0 = segment_start_c(a0)
    r.q1, r.base1, r.rel1 = segment_start_c(a1)
    r.ref = ref
    r.scale = scale
    return r


cdef double sum_abs_c(const double* d, Py_ssize_t m) noexcept nogil:
    cdef double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0
    cdef Py_ssize_t i = 0
    while i < m - 3:
        a0 += fabs(d[i])
        a1 += fabs(d[i + 1])
        a2 += fabs(d[i + 2])
        a3 += fabs(d[i + 3])
        i += 4
    for i in range(m - m % 4, m):
        a0 += fabs(d[i])
    return (a0 + a1) + (a2 + a3)


cdef struct Table:
    double ph, pl, nh, nl, q


cdef enum:
    _CHUNK = 512  # examples per chunk of example_table_c: 16 KiB of scratch on the stack


cdef Table example_table_c(double a, const double* d, const double* sign, Py_ssize_t m,
                           double* rec) noexcept nogil:
    """Fills ``rec`` (m rows of 4) and returns the sums; see :func:`_example_table`. The first loop
    writes into local arrays, which the compiler knows alias nothing, so it vectorises; the
    second sums in example order and interleaves into ``rec``."""
    cdef Table tab
    cdef double n_[_CHUNK]
    cdef double res[_CHUNK]
    cdef double e_pos[_CHUNK]
    cdef double e_neg[_CHUNK]
    cdef Py_ssize_t lo, c, i
    cdef int ex
    cdef double total, q, inv_q, h, l, n, v, k, r, r2, even, odd, tn, tr, sn, sr, sc, si
    cdef int64_t ki, bits
    cdef const double* dc
    cdef const double* sgc
    cdef double* rc
    total = sum_abs_c(d, m) * fabs(a) * (1.0 + 1e-12)  # above the exact sum of |x_i|
    if total == 0.0:
        q = 1.0
    else:
        frexp(total, &ex)
        ex = ex - 51
        q = ldexp(1.0, ex if ex > -1000 else -1000)  # Python's max(ex - 51, -1000)
    inv_q = 1.0 / q  # a power of two: scaling by it is exact
    tn = 0.0
    tr = 0.0
    sn = 0.0
    sr = 0.0
    lo = 0
    while lo < m:
        c = min(<Py_ssize_t>_CHUNK, m - lo)
        dc = d + lo
        sgc = sign + lo
        for i in range(c):
            h, l = two_prod_c(a, dc[i])
            h = h * sgc[i]
            l = l * sgc[i]
            n = rint(h * inv_q)
            n_[i] = n
            res[i] = (h - n * q) + l  # h - n q is exact (|.| <= q/2, a multiple of ulp(h))
            v = -700.0 if -700.0 > h else h  # Python's min(max(h, -700.0), 700.0)
            v = 700.0 if 700.0 < v else v
            k = rint(v * MB_SO_INV_LN2)
            r = (v - k * MB_SO_LN2_HI) - k * MB_SO_LN2_LO  # k * _LN2_HI is exact for |k| < 2^11
            r2 = r * r
            even = MB_SO_E12
            even = even * r2 + MB_SO_E10
            even = even * r2 + MB_SO_E8
            even = even * r2 + MB_SO_E6
            even = even * r2 + MB_SO_E4
            even = even * r2 + MB_SO_E2
            even = even * r2 + 1.0
            odd = MB_SO_O13
            odd = odd * r2 + MB_SO_O11
            odd = odd * r2 + MB_SO_O9
            odd = odd * r2 + MB_SO_O7
            odd = odd * r2 + MB_SO_O5
            odd = odd * r2 + MB_SO_O3
            odd = odd * r2 + 1.0
            odd = odd * r
            ki = <int64_t>k
            bits = (ki + 1023) << 52  # the bits of 2^k and 2^-k, normal doubles (memcpy: a bit cast)
            memcpy(&sc, &bits, 8)
            e_pos[i] = ((even + odd) * (1.0 + l)) * sc  # exp(hi + lo), lo being below ulp(hi)
            bits = (1023 - ki) << 52
            memcpy(&sc, &bits, 8)
            e_neg[i] = ((even - odd) * (1.0 - l)) * sc
        rc = rec + 4 * lo
        for i in range(c):
            rc[4 * i] = n_[i]
            rc[4 * i + 1] = res[i]
            rc[4 * i + 2] = e_pos[i]
            rc[4 * i + 3] = e_neg[i]
            si = sgc[i]
            sn += n_[i]
            sr += res[i]
            tn += si * n_[i]
            tr += si * res[i]
        lo += _CHUNK
    tab.ph, tab.pl = two_sum_c(q * (0.5 * (tn - sn)), 0.5 * (tr - sr))
    tab.nh, tab.nl = two_sum_c(q * (0.5 * (tn + sn)), 0.5 * (tr + sr))
    tab.q = q
    return tab


cdef struct SweepResult:
    double ref, z, r_pos, r_neg


cdef SweepResult sweep_c(const int64_t* order, const uint8_t* codes, Py_ssize_t p, Py_ssize_t m,
                         const double* rec, double q, const int64_t* starts, const int64_t* soff,
                         const uint8_t* keep, double ph, double pl, double nh, double nl,
                         double* racc, double* out, Py_ssize_t n_out) noexcept nogil:
    cdef SweepResult res
    cdef Restart rs
    cdef bint with_out = n_out > 0
    cdef double n_span = MB_SO_SPAN / q - <double>m  # |n - n0| <= n_span: the log-drift < _SPAN
    cdef double ref = 0.0, z = 0.0, r_pos = 0.0, r_neg = 0.0
    cdef double nsum, rsum, pre0, pre1, base0, rel0, base1, rel1, lo0, lo1, delta, n0, q0, q1, scale
    cdef int64_t c = 0, c1, s0, k, stop, t
    cdef Py_ssize_t j, idx
    cdef uint64_t i
    cdef uint8_t code
    cdef const int64_t* order_j
    cdef const uint8_t* codes_j
    cdef const double* row
    cdef double* out0 = out
    cdef double* out1 = out
    for j in range(p):
        order_j = order + j * m
        codes_j = codes + j * m
        s0 = soff[j]
        k = soff[j + 1] - s0 - 1
        c1 = c + k + 1  # candidates of s = -1
        nsum = 0.0  # D = q nsum + rsum
        rsum = 0.0
        rs = restart_c(0.0, 0.0, ph, pl, nh, nl, ref, racc, m, out, n_out)
        pre0 = rs.q0
        pre1 = rs.q1
        base0 = rs.base0
        rel0 = rs.rel0
        base1 = rs.base1
        rel1 = rs.rel1
        ref = rs.ref
        scale = rs.scale
        lo0 = kept_ratio_c(base0)
        lo1 = kept_ratio_c(base1)
        z = z * scale
        r_pos = r_pos * scale
        r_neg = r_neg * scale
        pre0 = pre0 if keep[c] else 0.0
        pre1 = pre1 if keep[c1] else 0.0
        if with_out:
            out0 = out + c
            out1 = out + c1
            out0[0] = pre0
            out1[0] = pre1
        delta = pre0 - pre1
        n0 = 0.0
        stop = starts[s0 + (MB_SO_SEGMENT if MB_SO_SEGMENT < k else k)] - 1
        t = 1  # the cut at the end of the current block
        for idx in range(m):
            i = <uint64_t>order_j[idx]  # unsigned: no test for a negative index
            racc[i] += delta
            row = rec + 4 * i
            nsum += row[0]  # exact: integers below 2^53
            rsum += row[1]
            rel0 = rel0 * row[2]
            rel1 = rel1 * row[3]
            code = codes_j[idx]
            if idx == stop or fabs(nsum - n0) > n_span:  # the segment's end, or the span left
                if code & CUT:  # a cut: its exact values, R raised if needed
                    rs = restart_c(q * nsum, rsum, ph, pl, nh, nl, ref, racc, m, out, n_out)
                    q0 = rs.q0
                    q1 = rs.q1
                    base0 = rs.base0
                    rel0 = rs.rel0
                    base1 = rs.base1
                    rel1 = rs.rel1
                    ref = rs.ref
                    scale = rs.scale
                    z = z * scale
                    r_pos = r_pos * scale
                    r_neg = r_neg * scale
                    pre0 = pre0 * scale
                    pre1 = pre1 * scale
                    stop = starts[s0 + (t + MB_SO_SEGMENT if t + MB_SO_SEGMENT < k else k)] - 1
                    lo0 = kept_ratio_c(base0)
                    lo1 = kept_ratio_c(base1)
                else:  # inside a block of ties, whose values are not used: restart at its end
                    q0 = 0.0
                    q1 = 0.0
                    base0 = 0.0
                    base1 = 0.0
                    rel0 = 1.0
                    rel1 = 1.0
                    lo0 = 1.0
                    lo1 = 1.0
                    stop = starts[s0 + t] - 1
                n0 = nsum
            else:  # no subnormal product: a value below _KEPT_FLOOR is raised to about it
                q0 = base0 * (lo0 if lo0 > rel0 else rel0)  # Python's max(rel0, lo0)
                q1 = base1 * (lo1 if lo1 > rel1 else rel1)
            # Only kept cuts count, only at a block's end: a product by 0 or 1, not a branch.
            q0 = q0 * <double>(code & KEEP_POS)
            q1 = q1 * <double>((code & KEEP_NEG) >> 1)
            if with_out and code & CUT:  # a path's probability: 0 where raised
                out0[t] = q0 if rel0 >= lo0 else 0.0
                out1[t] = q1 if rel1 >= lo1 else 0.0
            t += code >> 2
            pre0 += q0
            pre1 += q1
            delta = pre0 - pre1
        r_neg += pre0
        r_pos += pre1
        z += pre0 + pre1
        c += 2 * (k + 1)
    res.ref = ref
    res.z = z
    res.r_pos = r_pos
    res.r_neg = r_neg
    return res


# ---------------------------------------------------------------------------------- Python entry points


def _segment_start(double a):
    """``(exp(a), base, rel)`` at a restart, ``a`` exact: the segment's later values are
    ``base * rel * (factors)`` with the factors' product in ``[exp(-_SPAN), exp(_SPAN)]``, so
    ``rel`` stays in ``[exp(-2 _SPAN), exp(_SPAN)]`` (no subnormal, no overflow) and ``base`` is
    normal or 0 (the whole segment below ``exp(LOG_TINY)``)."""
    return segment_start_c(a)


def _kept_ratio(double base):
    """``lo``: ``base * rel`` is below ``_KEPT_FLOOR`` for ``rel < lo`` (and 0 for ``base = 0``), and
    ``base * lo`` is at least ``_KEPT_FLOOR`` up to one rounding, a normal number: ``base <= 1``."""
    return kept_ratio_c(base)


def _restart(double dh, double dl, double ph, double pl, double nh, double nl, double ref, double[::1] racc not None,
             double[::1] out not None):
    """Exact ``exp(L - R)`` for both orientations where ``D = dh + dl`` (exact), ``R`` raised
    first if needed (``racc`` and ``out`` are rescaled in place, the caller rescales its scalars
    by ``scale``), and what the segment's products start from.

    Returns ``(q0, q1, base0, rel0, base1, rel1, ref, scale)``.
    """
    cdef Restart r
    cdef double* rp = &racc[0] if racc.shape[0] else NULL
    cdef double* op = &out[0] if out.shape[0] else NULL
    r = restart_c(dh, dl, ph, pl, nh, nl, ref, rp, racc.shape[0], op, out.shape[0])
    return r.q0, r.q1, r.base0, r.rel0, r.base1, r.rel1, r.ref, r.scale


def _sum_abs(const double[::1] d not None):
    """``sum |d_i|`` in four interleaved sums (a bound is all that is needed, not the order)."""
    return sum_abs_c(&d[0] if d.shape[0] else NULL, d.shape[0])


def _example_table(double a, const double[::1] d not None, const double[::1] sign not None):
    """Per example ``rec[i] = (n_i, res_i, exp(sx_i), exp(-sx_i))`` with ``sx = a d * sign``
    (``sign`` -1 on positives) and ``sx_i = n_i q + res_i`` (module docstring); the sums ``P``,
    ``N`` of ``x = a d`` over positives/negatives as double-doubles; and ``q``.

    ``q = 2^e >= sum_i |x_i| 2^-51``, so ``sum_i |n_i| <= 2^51 + m/2``: every prefix sum of the
    ``n_i``, and the difference of two, is an exact float64 integer. ``e >= -1000``: for a tiny
    ``sum |x|`` (``eta`` below ~1e-286) a subnormal ``q`` would make ``1/q`` infinite (NaN
    masses; a division by zero at ``eta = 5e-324``); the larger ``q`` only makes the ``n_i`` 0.
    ``P`` and ``N`` follow from ``T = sum n_i`` and ``S = sum sign_i n_i`` (exact) as
    ``q (T -+ S)/2`` plus residuals.
    One row is one cache line for the sweep's gathers. The first loop avoids calls and
    reductions so that it vectorises: ``exp(+-v)`` is Cody-Waite reduction ``v = k ln2 + r`` and
    the degree-13 Taylor polynomial split into even and odd parts, ``exp(+-r) = E(r^2) +- r
    O(r^2)`` (remainder below 4e-18 on ``|r| <= ln2/2``; measured within 2 ulp of libm), times
    ``2^(+-k)`` built from its bits; no division. The argument is clamped to ``[-700, 700]``:
    no subnormal, no overflow, and a clamped factor exceeds the sweep's span by itself, so the
    sweep restarts exactly there and never uses it.
    """
    cdef Py_ssize_t m = d.shape[0]
    if sign.shape[0] != m:
        raise ValueError("_example_table: d and sign must have the same length")
    rec_arr = np.empty((m, 4))
    cdef double[:, ::1] rec = rec_arr
    cdef Table tab
    with nogil:
        tab = example_table_c(a, &d[0] if m else NULL, &sign[0] if m else NULL, m, &rec[0, 0] if m else NULL)
    return rec_arr, tab.ph, tab.pl, tab.nh, tab.nl, tab.q


cdef int check_tables(const int64_t[:, ::1] order, const uint8_t[:, ::1] codes, const int64_t[::1] starts,
                      const int64_t[::1] soff, const uint8_t[::1] keep) except -1:
    cdef Py_ssize_t p = order.shape[0], m = order.shape[1]
    if codes is not None and (codes.shape[0] != p or codes.shape[1] != m):
        raise ValueError("stump oracle: codes must have the shape of order")
    if soff.shape[0] != p + 1 or (p and (soff[0] < 0 or soff[p] > starts.shape[0])):
        raise ValueError("stump oracle: soff must have p + 1 entries indexing starts")
    return 0


def _sweep(const int64_t[:, ::1] order not None, const uint8_t[:, ::1] codes not None,
           const double[:, ::1] rec not None, double q, const int64_t[::1] starts not None,
           const int64_t[::1] soff not None, const uint8_t[::1] keep not None, double ph, double pl,
           double nh, double nl, double[::1] racc not None, double[::1] out not None):
    """The sweep along every feature (module docstring). Adds ``sum_j delta_j`` into ``racc``
    and, with ``out`` non-empty, the candidates' ``Z p`` into ``out``; returns
    ``(R, Z, tot_-, tot_+)``, all relative to ``exp(R)``."""
    check_tables(order, codes, starts, soff, keep)
    cdef Py_ssize_t p = order.shape[0], m = order.shape[1]
    cdef SweepResult s
    if p == 0:
        return 0.0, 0.0, 0.0, 0.0
    if m == 0 or rec.shape[0] != m or racc.shape[0] != m:
        raise ValueError("stump oracle: rec and racc must have the m >= 1 rows of order")
    with nogil:
        s = sweep_c(&order[0, 0], &codes[0, 0], p, m, &rec[0, 0], q, &starts[0], &soff[0], &keep[0],
                    ph, pl, nh, nl, &racc[0], &out[0] if out.shape[0] else NULL, out.shape[0])
    return s.ref, s.z, s.r_pos, s.r_neg


def cut_codes(const int64_t[:, ::1] order not None, const int64_t[::1] starts not None,
              const int64_t[::1] soff not None, const uint8_t[::1] keep not None):
    """Per presorted position ``(j, idx)``: ``_CUT`` if a block of feature ``j`` ends there, plus
    ``_KEEP_POS`` / ``_KEEP_NEG`` if that cut's path is kept for ``s = +1`` / ``s = -1``."""
    check_tables(order, None, starts, soff, keep)
    cdef Py_ssize_t p = order.shape[0], m = order.shape[1], j
    cdef int64_t c = 0, c1, s0, k, t
    codes_arr = np.zeros((p, m), np.uint8)
    cdef uint8_t[:, ::1] codes = codes_arr
    with nogil:
        for j in range(p):
            s0 = soff[j]
            k = soff[j + 1] - s0 - 1
            c1 = c + k + 1
            for t in range(1, k + 1):
                codes[j, starts[s0 + t] - 1] = (CUT | (KEEP_POS if keep[c + t] else 0)
                                                | (KEEP_NEG if keep[c1 + t] else 0))
            c += 2 * (k + 1)
    return codes_arr


def _oracle(const int64_t[:, ::1] order not None, const uint8_t[:, ::1] codes not None,
            const uint8_t[::1] pos not None, const double[::1] sign not None, const int64_t[::1] starts not None,
            const int64_t[::1] soff not None, const uint8_t[::1] keep not None, const double[::1] d not None,
            double eta, bint with_paths):
    """``(g, F, out)``: the example table, the sweep and the average margins (see stump_oracle)."""
    check_tables(order, codes, starts, soff, keep)
    cdef Py_ssize_t p = order.shape[0], m = order.shape[1], i, n_out
    if d.shape[0] != m or sign.shape[0] != m or pos.shape[0] != m or m == 0:
        raise ValueError(f"stump oracle: d, sign and pos must have the m = {m} >= 1 entries of order's rows")
    if eta == 0.0:  # F's division by eta: Python's ZeroDivisionError, as before
        raise ZeroDivisionError("division by zero")
    n_out = keep.shape[0] if with_paths else 0
    out_arr = np.zeros(n_out)
    g_arr = np.empty(m)
    cdef double[::1] out = out_arr, g = g_arr
    cdef double* op = &out[0] if n_out else NULL
    cdef Table tab
    cdef SweepResult s
    cdef double two_over_z, dsum, value
    # rec (4 m, filled by the table), racc (m, zeros)
    cdef double* buf = <double*>malloc(5 * m * sizeof(double))
    if buf == NULL:
        raise MemoryError()
    cdef double* rec = buf
    cdef double* racc = buf + 4 * m
    memset(racc, 0, m * sizeof(double))
    with nogil:
        tab = example_table_c(2.0 * eta, &d[0], &sign[0], m, rec)
        s = sweep_c(&order[0, 0], &codes[0, 0], p, m, rec, tab.q, &starts[0], &soff[0], &keep[0],
                    tab.ph, tab.pl, tab.nh, tab.nl, racc, op, n_out)
    if s.z == 0.0:  # 2.0 / z: Python's ZeroDivisionError, as before; z >= exp(-_HEADROOM) in practice
        free(buf)
        raise ZeroDivisionError("division by zero")
    with nogil:
        two_over_z = 2.0 / s.z
        for i in range(m):  # a select and sign[i] (-1 on positives), no branch: it vectorises
            g[i] = ((s.r_pos if pos[i] else s.r_neg) - sign[i] * racc[i]) * two_over_z - 1.0
        # F = (R + ln Z - eta sum d) / eta, the large parts cancelling first (sum d in order).
        dsum = 0.0
        for i in range(m):
            dsum += d[i]
        value = ((s.ref - eta * dsum) + log(s.z)) / eta
        for i in range(n_out):
            out[i] = out[i] / s.z
    free(buf)
    return g_arr, value, out_arr


def _max_edge(const int64_t[:, ::1] order not None, const int64_t[::1] starts not None,
              const int64_t[::1] soff not None, const double[::1] w not None):
    """``max_h sum_i w_i h(x_i)`` over all stumps, ``w = d * y``: with ``T = sum w`` and ``L_t`` the
    sum of ``w`` left of cut ``t``, cut ``t``'s two stumps have edges ``+-(T - 2 L_t)``."""
    cdef Py_ssize_t p = order.shape[0], m = order.shape[1], j, i
    if soff.shape[0] != p + 1:
        raise ValueError("stump oracle: soff must have p + 1 entries")
    cdef double total = 0.0, best, left, e
    cdef int64_t s0, t, idx
    with nogil:
        for i in range(w.shape[0]):
            total += w[i]
        best = fabs(total)  # the constants (cuts 0 and k)
        for j in range(p):
            s0 = soff[j]
            left = 0.0
            for t in range(1, soff[j + 1] - s0 - 1):  # interior cuts
                for idx in range(starts[s0 + t - 1], starts[s0 + t]):
                    left += w[order[j, idx]]
                e = fabs(total - 2.0 * left)
                best = e if e > best else best  # Python's max(best, e)
    return best
