"""The compiled loops of :mod:`marginboost.core.projections` (the method, its rules and the reasons
for each loop's shape are documented there, at the Python functions and in the comments below).

Every loop does the operations of the numba kernels it replaced, in the same order and with the
same types (``-ffp-contract=off``, no reassociation), or others of the same result bit for bit
(said where): the same input gives the same bits as under numba.
"""
from libc.math cimport exp, log, log1p, fabs, isnan, INFINITY, NAN
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, free

import numpy as np

from marginboost.core._buffers cimport MB_C, MB_F64, MB_I64, MB_STRIDED, mb_acquire, mb_init, mb_release
from marginboost.core._vector_math cimport exp_into_c, log_minus_c

# Constants as C ``static const`` (a module-level ``cdef double`` is reloaded in every iteration).
cdef extern from *:
    """
    /* exp(x) is taken only for x above this (exp = 7e-218 there): libm's exp slows down for
       x < -512, and the smaller terms are negligible wherever they are summed. */
    static const double MBP_EXP_FLOOR = -500.0;
    /* math.exp(-400.0) and math.exp(500.0), the doubles Python's libm gives */
    static const double MBP_EXP_MINUS_400 = 0x1.e50c483c04dcdp-578;
    /* The first level's masses are s_i exp(a_i + MBP_EXP_SHIFT), a_i = -eta q_i - max_j(-eta q_j). */
    /* exp(x) for x in [-500, 500], all on libm's fast path, covers 1000 in a_i (eta * spread up to
       1000 in one scale), and m of them sum far below overflow. */
    static const double MBP_EXP_SHIFT = 500.0;
    static const double MBP_EXP_PLUS_SHIFT = 0x1.45ba2a9f7e439p+721;
    /* A selection level decides at the scale of its masses when the mass at or below its pivot
       is at least this: the terms dropped below exp(MBP_EXP_FLOOR) (m of them at most) are then
       negligible, and a pivot dropped there is far below its cap. */
    static const double MBP_GLOBAL_SCALE_FLOOR = 1e-190;
    static const double MBP_LN2 = 0.6931471805599453;
    /* The value unchanged, opaque to the compiler (an empty asm on it, no instruction): a loop that
       uses it is not vectorised. For the loops whose sums must be taken in order, where gcc's
       vector products and in-order reductions (a lane extraction per term) ran slower than the
       scalar loop. */
    static inline double mbp_scalar(double x) {
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        __asm__("" : "+x"(x));
    #elif defined(__GNUC__) && defined(__aarch64__)
        __asm__("" : "+w"(x));
    #endif
        return x;
    }
    """
    const double MBP_EXP_FLOOR
    const double MBP_EXP_MINUS_400
    const double MBP_EXP_SHIFT
    const double MBP_EXP_PLUS_SHIFT
    const double MBP_GLOBAL_SCALE_FLOOR
    const double MBP_LN2
    double mbp_scalar(double x) noexcept nogil

cdef enum:
    _EXP_CHUNK = 1024  # examples per chunk of the first level's exp: 16 KiB of scratch
    _N_PICKS = 127  # draws of the first level's pivot
    _SMALL_QUICKSORT = 15  # numba's quicksort: insertion sort below this
    _MAX_STACK = 100


# ---------------------------------------------------------------------------------------------
# slope_curvature_sums

cdef inline void _slope_curvature_loop(const double* d, const double* delta, Py_ssize_t n, double cap,
                                       const double* caps, double div, bint weighted, bint scalar,
                                       double* out) noexcept nogil:
    """The loop of :func:`_slope_curvature_c`; ``weighted`` and ``scalar`` constants at each call."""
    cdef double slope = 0.0, sq = 0.0, lin = 0.0, mass = 0.0, x, free, di, dl, c
    cdef Py_ssize_t i
    for i in range(n):
        di = d[i]
        dl = delta[i]
        x = mbp_scalar(di * dl) if scalar else di * dl
        slope += x
        c = (caps[i] / div) if weighted else cap
        # a 0/1 factor (adding +-0 changes no sum), not a branch on the example's cap
        free = 1.0 if di < c * (1.0 - 1e-12) else 0.0
        sq += (x * dl) * free
        lin += x * free
        mass += di * free
    out[0] = slope
    out[1] = sq
    out[2] = lin
    out[3] = mass


cdef inline void _slope_curvature_c(const double* d, const double* delta, Py_ssize_t n, double cap,
                                    const double* caps, double div, bint weighted,
                                    double* out) noexcept nogil:
    """The sums of :func:`slope_curvature_sums`; example i's cap ``caps[i] / div`` if ``weighted``
    (``div`` 1.0, an exact division, for given caps; ``nu`` for ``s / nu`` formed on the fly, the
    bits of numpy's ``s / nu``) else ``cap``. Up to 32768 examples the scalar loop: gcc's vector
    products, taken apart again for the in-order sums, ran 8% slower at m = 7400 (in cache);
    beyond, gcc's loop: the scalar one, bound by its additions, reads too little ahead (20% slower
    at 10^5). The same operations in the same order either way."""
    if n < 32768:
        if weighted:
            _slope_curvature_loop(d, delta, n, cap, caps, div, True, True, out)
        else:
            _slope_curvature_loop(d, delta, n, cap, caps, div, False, True, out)
    elif weighted:
        _slope_curvature_loop(d, delta, n, cap, caps, div, True, False, out)
    else:
        _slope_curvature_loop(d, delta, n, cap, caps, div, False, False, out)


def slope_curvature_sums(d, delta, double cap, caps, bint weighted):
    """``sum_i d_i delta_i`` over all examples; ``sum d delta^2``, ``sum d delta`` and ``sum d`` over the
    free ones (``d_i < cap_i (1 - 1e-12)``, ``cap_i = caps[i]`` if ``weighted`` else ``cap``; the
    test of :func:`~marginboost.soft_margin.entropic_master._face_hessian`), in increasing ``i``.
    ``d``, ``delta`` and ``caps`` (read only if ``weighted``) float64, any stride."""
    cdef Py_buffer bd, bl, bc
    cdef Py_ssize_t n, i, sd, sl, sc = 0
    cdef double out[4]
    cdef double slope = 0.0, sq = 0.0, lin = 0.0, mass = 0.0, x, free, di, dl
    cdef const char* pd
    cdef const char* pl
    cdef const char* pc = NULL
    mb_init(&bd)
    mb_init(&bl)
    mb_init(&bc)
    try:
        mb_acquire(&bd, d, MB_F64, 1, False, MB_STRIDED, b"d")
        mb_acquire(&bl, delta, MB_F64, 1, False, MB_STRIDED, b"delta")
        if weighted:
            mb_acquire(&bc, caps, MB_F64, 1, False, MB_STRIDED, b"caps")
        n = bd.shape[0]
        if bl.shape[0] < n or (weighted and bc.shape[0] < n):
            raise ValueError("slope_curvature_sums: delta (and caps if weighted) must be as long as d")
        if n == 0:
            return 0.0, 0.0, 0.0, 0.0
        pd = <const char*>bd.buf
        pl = <const char*>bl.buf
        sd = bd.strides[0]
        sl = bl.strides[0]
        if weighted:
            pc = <const char*>bc.buf
            sc = bc.strides[0]
        if (sd == 8 or n == 1) and (sl == 8 or n == 1) and (not weighted or sc == 8 or n == 1):
            with nogil:
                _slope_curvature_c(<const double*>pd, <const double*>pl, n, cap, <const double*>pc, 1.0, weighted,
                                   out)
            return out[0], out[1], out[2], out[3]
        with nogil:  # strided: the same loop by index
            for i in range(n):
                di = (<const double*>(pd + i * sd))[0]
                dl = (<const double*>(pl + i * sl))[0]
                x = mbp_scalar(di * dl)
                slope += x
                free = 1.0 if di < ((<const double*>(pc + i * sc))[0] if weighted else cap) * (1.0 - 1e-12) else 0.0
                sq += (x * dl) * free
                lin += x * free
                mass += di * free
        return slope, sq, lin, mass
    finally:
        mb_release(&bd)
        mb_release(&bl)
        mb_release(&bc)


# ---------------------------------------------------------------------------------------------
# The selection: pivots

cdef inline bint _lt_float(double a, double b) noexcept nogil:
    """numba's (numpy's) order of floats for sorting: NaNs last."""
    return a < b or (isnan(b) and not isnan(a))


cdef void _numba_quicksort(double* A, Py_ssize_t length) noexcept nogil:
    """numba's ``np.sort`` of a float array (its ``quicksort`` module: median-of-three partitions,
    insertion sort below 15 entries, the larger part pushed), step for step, so that even the order
    of entries that compare equal (0.0 and -0.0) is numba's."""
    cdef Py_ssize_t stack_lo[_MAX_STACK]
    cdef Py_ssize_t stack_hi[_MAX_STACK]
    cdef Py_ssize_t n, low, high, mid, i, j, k
    cdef double pivot, v, t
    if length < 2:
        return
    stack_lo[0] = 0
    stack_hi[0] = length - 1
    n = 1
    while n > 0:
        n -= 1
        low = stack_lo[n]
        high = stack_hi[n]
        while high - low >= _SMALL_QUICKSORT:
            # partition(A, low, high)
            mid = (low + high) >> 1
            if _lt_float(A[mid], A[low]):
                t = A[low]; A[low] = A[mid]; A[mid] = t
            if _lt_float(A[high], A[mid]):
                t = A[high]; A[high] = A[mid]; A[mid] = t
            if _lt_float(A[mid], A[low]):
                t = A[low]; A[low] = A[mid]; A[mid] = t
            pivot = A[mid]
            t = A[high]; A[high] = A[mid]; A[mid] = t
            i = low
            j = high - 1
            while True:
                while i < high and _lt_float(A[i], pivot):
                    i += 1
                while j >= low and _lt_float(pivot, A[j]):
                    j -= 1
                if i >= j:
                    break
                t = A[i]; A[i] = A[j]; A[j] = t
                i += 1
                j -= 1
            t = A[i]; A[i] = A[high]; A[high] = t
            # push the larger part
            if high - i > i - low:
                if high > i:
                    stack_lo[n] = i + 1
                    stack_hi[n] = high
                    n += 1
                high = i - 1
            else:
                if i > low:
                    stack_lo[n] = low
                    stack_hi[n] = i - 1
                    n += 1
                low = i + 1
        # insertion_sort(A, low, high)
        if high > low:
            for i in range(low + 1, high + 1):
                v = A[i]
                j = i
                while j > low and _lt_float(v, A[j - 1]):
                    A[j] = A[j - 1]
                    j -= 1
                A[j] = v


cdef inline double _draw(const double* q, Py_ssize_t n, uint64_t* state) noexcept nogil:
    """One pseudo-random entry of ``q[:n]`` (a 64-bit LCG, fixed seed) and the next state."""
    state[0] = state[0] * <uint64_t>6364136223846793005ULL + <uint64_t>1442695040888963407ULL
    return q[<int64_t>(state[0] >> 33) % n]


cdef inline double _pivot(const double* q, Py_ssize_t n, uint64_t* state, double rank) noexcept nogil:
    """The entry at relative ``rank`` among 127 pseudo-random entries of ``q[:n]``."""
    cdef double picks[_N_PICKS]
    cdef Py_ssize_t j, at
    for j in range(_N_PICKS):
        picks[j] = _draw(q, n, state)
    _numba_quicksort(picks, _N_PICKS)
    at = <Py_ssize_t>(rank * _N_PICKS)
    return picks[at if at < _N_PICKS - 1 else _N_PICKS - 1]


cdef inline double _fmin(double a, double b) noexcept nogil:
    """numba's ``min(a, b)``: ``b if b < a else a``."""
    return b if b < a else a


cdef inline double _fmax(double a, double b) noexcept nogil:
    """numba's ``max(a, b)``: ``b if b > a else a``."""
    return b if b > a else a


cdef inline double _median_of_three(const double* q, Py_ssize_t n, uint64_t* state) noexcept nogil:
    """The median of three draws (a later level's pivot)."""
    cdef double a = _draw(q, n, state)
    cdef double b = _draw(q, n, state)
    cdef double c = _draw(q, n, state)
    return _fmax(_fmin(a, b), _fmin(_fmax(a, b), c))


# ---------------------------------------------------------------------------------------------
# The selection: levels

cdef double _array_min(const double* q, Py_ssize_t m) noexcept nogil:
    """``q[:m].min()`` as numba's loop takes it (``m >= 1``): the first NaN if there is one, else the
    first entry of the smallest value (``v < min`` replaces). Eight running minima and a NaN flag
    (the sequential loop waits on each compare), then, only where it matters, the entry itself: the
    first NaN, or the first zero (0.0 or -0.0, the sign the sequential loop keeps); any other
    smallest entries have the same bits."""
    cdef double a0 = q[0], a1 = q[0], a2 = q[0], a3 = q[0], a4 = q[0], a5 = q[0], a6 = q[0], a7 = q[0]
    cdef double x0, x1, x2, x3, x4, x5, x6, x7, low
    cdef int nan = 0
    cdef Py_ssize_t i = 0
    while i + 8 <= m:
        x0 = q[i]
        x1 = q[i + 1]
        x2 = q[i + 2]
        x3 = q[i + 3]
        x4 = q[i + 4]
        x5 = q[i + 5]
        x6 = q[i + 6]
        x7 = q[i + 7]
        a0 = x0 if x0 < a0 else a0
        a1 = x1 if x1 < a1 else a1
        a2 = x2 if x2 < a2 else a2
        a3 = x3 if x3 < a3 else a3
        a4 = x4 if x4 < a4 else a4
        a5 = x5 if x5 < a5 else a5
        a6 = x6 if x6 < a6 else a6
        a7 = x7 if x7 < a7 else a7
        nan |= ((x0 != x0) | (x1 != x1) | (x2 != x2) | (x3 != x3) | (x4 != x4) | (x5 != x5) | (x6 != x6)
                | (x7 != x7))
        i += 8
    while i < m:
        x0 = q[i]
        a0 = x0 if x0 < a0 else a0
        nan |= x0 != x0
        i += 1
    if nan:
        for i in range(m):
            if isnan(q[i]):
                return q[i]
    low = a0
    low = a1 if a1 < low else low
    low = a2 if a2 < low else low
    low = a3 if a3 < low else low
    low = a4 if a4 < low else low
    low = a5 if a5 < low else low
    low = a6 if a6 < low else low
    low = a7 if a7 < low else low
    if low == 0.0:
        for i in range(m):
            if q[i] == 0.0:
                return q[i]
    return low


cdef double _array_max(const double* q, Py_ssize_t m) noexcept nogil:
    """``q[:m].max()`` as numba's loop takes it (``m >= 1``): the first NaN if there is one, else the
    first entry of the largest value (``v > max`` replaces). Eight running maxima and a NaN flag
    (the sequential loop waits on each compare), then, only where it matters, the entry itself: the
    first NaN, or the first zero (0.0 or -0.0, the sign the sequential loop keeps); any other
    largest entries have the same bits."""
    cdef double a0 = q[0], a1 = q[0], a2 = q[0], a3 = q[0], a4 = q[0], a5 = q[0], a6 = q[0], a7 = q[0]
    cdef double x0, x1, x2, x3, x4, x5, x6, x7, high
    cdef int nan = 0
    cdef Py_ssize_t i = 0
    while i + 8 <= m:
        x0 = q[i]
        x1 = q[i + 1]
        x2 = q[i + 2]
        x3 = q[i + 3]
        x4 = q[i + 4]
        x5 = q[i + 5]
        x6 = q[i + 6]
        x7 = q[i + 7]
        a0 = x0 if x0 > a0 else a0
        a1 = x1 if x1 > a1 else a1
        a2 = x2 if x2 > a2 else a2
        a3 = x3 if x3 > a3 else a3
        a4 = x4 if x4 > a4 else a4
        a5 = x5 if x5 > a5 else a5
        a6 = x6 if x6 > a6 else a6
        a7 = x7 if x7 > a7 else a7
        nan |= ((x0 != x0) | (x1 != x1) | (x2 != x2) | (x3 != x3) | (x4 != x4) | (x5 != x5) | (x6 != x6)
                | (x7 != x7))
        i += 8
    while i < m:
        x0 = q[i]
        a0 = x0 if x0 > a0 else a0
        nan |= x0 != x0
        i += 1
    if nan:
        for i in range(m):
            if isnan(q[i]):
                return q[i]
    high = a0
    high = a1 if a1 > high else high
    high = a2 if a2 > high else high
    high = a3 if a3 > high else high
    high = a4 if a4 > high else high
    high = a5 if a5 > high else high
    high = a6 if a6 > high else high
    high = a7 if a7 > high else high
    if high == 0.0:
        for i in range(m):
            if q[i] == 0.0:
                return q[i]
    return high


cdef inline double _exp_shifted(double a, double shift) noexcept nogil:
    """``exp(a + shift)`` for ``a <= 0`` and ``shift`` 0 or 500, as accurate as ``exp(a)``: one exp,
    no branch (``1 + e^500`` rounds to ``e^500``)."""
    cdef int64_t low = a <= -shift
    return exp(a + shift * <double>low) * (1.0 + MBP_EXP_PLUS_SHIFT * <double>(1 - low))


cdef void _first_level_masses(const double* q, const double* s, bint weighted, double eta, double tmax,
                              double* e, Py_ssize_t m) noexcept nogil:
    """The first level's masses ``e_i = s_i exp(a_i + 500)``, ``a_i = -eta q_i - tmax``, 0 below the
    floor (``a_i <= -1000``), each as :func:`_exp_shifted` forms it (``exp(a_i) e^500`` above -500,
    ``exp(a_i + 500)`` below), by ``exp_into`` (``_vector_math``): three loops without branches,
    which the compiler vectorises (libm's exp per element, in the loop of the sums, took a third of
    a projection; issue 17). They run over chunks of 1024 examples, so that the arguments stay in
    cache; ``exp_into`` takes the chunk's first ``n`` (elementwise, the values of the whole
    chunk's)."""
    cdef double arg[_EXP_CHUNK]
    cdef double val[_EXP_CHUNK]
    cdef int64_t scratch[_EXP_CHUNK]
    cdef Py_ssize_t lo, n, j
    cdef double a, x, v
    cdef const double* q_part
    cdef double* e_part
    cdef const double* s_part
    lo = 0
    while lo < m:
        n = m - lo if m - lo < _EXP_CHUNK else _EXP_CHUNK
        q_part = q + lo
        e_part = e + lo
        for j in range(n):
            a = (-eta * q_part[j]) - tmax
            x = a + MBP_EXP_SHIFT if a <= -MBP_EXP_SHIFT else a
            arg[j] = -MBP_EXP_SHIFT if -MBP_EXP_SHIFT > x else x  # below the floor: zeroed below
        exp_into_c(arg, val, scratch, n)  # elementwise: the first n of the whole chunk's values
        for j in range(n):
            a = (-eta * q_part[j]) - tmax
            v = val[j] * (1.0 if a <= -MBP_EXP_SHIFT else 1.0 + MBP_EXP_PLUS_SHIFT)
            e_part[j] = v if a > MBP_EXP_FLOOR - MBP_EXP_SHIFT else 0.0
        if weighted:  # a loop of its own (vectorises)
            s_part = s + lo
            for j in range(n):
                e_part[j] = s_part[j] * e_part[j]
        lo += _EXP_CHUNK


cdef void _level_sums(const double* q, const double* e, const double* s, Py_ssize_t n, double qp,
                      bint weighted, bint split, double* lo_q, double* lo_e, double* lo_s,
                      double* hi_q, double* hi_e, double* hi_s, double* sums,
                      Py_ssize_t* counts) noexcept nogil:
    """Sums over the first ``n`` examples split at margin ``qp``: caps of G (``q < qp``) and of E
    (``q == qp``) in units of 1/nu, mass ``e`` of E and L, ``|G|``, ``|L|`` (into ``sums`` and
    ``counts``). With ``split``, G's examples are also copied to the front of ``lo_*`` and L's to
    ``hi_*`` (both in order). Arithmetic on 0/1 rather than branches: the comparisons are
    unpredictable on unsorted margins; ``x - x * (1 - g)`` is ``x * g`` exactly."""
    cdef double cap_g = 0.0, cap_e = 0.0, mass = 0.0, qi, ei, si, not_g, not_tie
    cdef int64_t g, tie, n_g = 0, n_l = 0, n_e = 0
    cdef Py_ssize_t i
    if split and weighted:
        for i in range(n):
            qi = q[i]
            ei = e[i]
            si = s[i]
            g = qi < qp
            tie = qi == qp
            lo_q[n_g] = qi
            lo_e[n_g] = ei
            hi_q[n_l] = qi
            hi_e[n_l] = ei
            lo_s[n_g] = si
            hi_s[n_l] = si
            n_g += g
            n_l += qi > qp
            # (1 - g) converted from the integer here: with the compare's mask (as below) this
            # loop ran 1.4x slower at m = 10^5 (measured), the other way round from the others
            cap_g += si - si * <double>(1 - g)
            cap_e += si - si * <double>(1 - tie)
            mass += ei * <double>(1 - g)
    elif split:
        # Without weights the caps are counts: the sums of the 0/1 terms (``1 - 1 * (1 - g)``) are
        # exact integers below 2^53, so counting gives their bits.
        for i in range(n):
            qi = q[i]
            ei = e[i]
            lo_q[n_g] = qi
            lo_e[n_g] = ei
            hi_q[n_l] = qi
            hi_e[n_l] = ei
            n_g += qi < qp
            n_l += qi > qp
            n_e += qi == qp
            mass += ei * (0.0 if qi < qp else 1.0)
    elif weighted:
        for i in range(n):
            qi = q[i]
            si = s[i]
            not_g = 0.0 if qi < qp else 1.0
            not_tie = 0.0 if qi == qp else 1.0
            n_g += qi < qp
            n_l += qi > qp
            cap_g += si - si * not_g
            cap_e += si - si * not_tie
            mass += e[i] * not_g
    else:
        for i in range(n):
            qi = q[i]
            n_g += qi < qp
            n_l += qi > qp
            n_e += qi == qp
            mass += e[i] * (0.0 if qi < qp else 1.0)
    if not weighted:
        cap_g = <double>n_g
        cap_e = <double>n_e
    sums[0] = cap_g
    sums[1] = cap_e
    sums[2] = mass
    counts[0] = n_g
    counts[1] = n_l


cdef double _rescale(const double* q, const double* s, Py_ssize_t n, double qp, bint weighted, double eta,
                     double t_scale, double* out_e) noexcept nogil:
    """Masses ``s_i exp(-eta q_i - t_scale)`` of E and L (``q >= qp``) among the first ``n``,
    written to ``out_e`` (the others left as they are); their sum."""
    cdef double mass = 0.0, x, v
    cdef Py_ssize_t i
    for i in range(n):
        if q[i] >= qp:
            x = (-eta * q[i]) - t_scale
            v = 0.0
            if x > MBP_EXP_FLOOR:
                v = s[i] * exp(x) if weighted else exp(x)
            out_e[i] = v
            mass += v
    return mass


cdef Py_ssize_t _keep(const double* q, const double* e, const double* s, Py_ssize_t n, double qp, bint upper,
                      bint weighted, double* out_q, double* out_e, double* out_s) noexcept nogil:
    """Copy the examples still undecided (``q > qp`` if ``upper`` else ``q < qp``) to the front of
    ``out_*`` (which may be the same arrays: the copy only moves left); their count. Every example
    is written and the position advanced only for those kept: no branch to mispredict."""
    cdef Py_ssize_t i, j = 0
    cdef double qi
    if upper:
        for i in range(n):
            qi = q[i]
            out_q[j] = qi
            out_e[j] = e[i]
            if weighted:
                out_s[j] = s[i]
            j += qi > qp
    else:
        for i in range(n):
            qi = q[i]
            out_q[j] = qi
            out_e[j] = e[i]
            if weighted:
                out_s[j] = s[i]
            j += qi < qp
    return j


cdef void _sum_below(const double* q, const double* s, Py_ssize_t m, double q_cut, double* total_out,
                     double* err_out) noexcept nogil:
    """``sum s_i`` over ``q_i <= q_cut`` by Neumaier's compensated summation: the rounded sum and its
    rounding error."""
    cdef double total = 0.0, err = 0.0, x, t
    cdef Py_ssize_t i
    for i in range(m):
        if q[i] <= q_cut:
            x = s[i]
            t = total + x
            err += (total - t) + x if fabs(total) >= fabs(x) else (x - t) + total
            total = t
    total_out[0] = total
    err_out[0] = err


cdef inline Py_ssize_t _write_loop(const double* q, const double* s, Py_ssize_t m, bint weighted, double eta,
                                  double nu, double q_cut, double r, double t_free, double log_r, double log_s_max,
                                  bint first_scale, double* e, const double* delta, bint along, int64_t* todo,
                                  double* acc) noexcept nogil:
    """:func:`_write_result`'s pass over the examples (called with constant ``weighted`` and ``along``):
    the entries of ``d`` finished at the first scale, the others' exponents with their indices in
    ``todo`` (their count returned); the sums into ``acc`` (slope, sq, lin, mass, capped_dot)."""
    cdef double slope = 0.0, sq = 0.0, lin = 0.0, mass = 0.0, capped_dot = 0.0, cap_i, x, ei, qi
    cdef double cap = 1.0 / nu
    cdef Py_ssize_t i, k = 0
    for i in range(m):
        cap_i = s[i] / nu if weighted else cap
        qi = q[i]
        if qi <= q_cut:
            e[i] = cap_i
            capped_dot += cap_i * qi
        elif first_scale and e[i] > 0.0:
            e[i] = _fmin(cap_i, e[i] * r)
        else:
            x = ((-eta * qi) - t_free) + log_r
            if weighted:  # log costs as much as exp: taken only where the result can be > 0
                x = x + log(s[i]) if x + log_s_max > -746.0 else -INFINITY
            if x > -746.0:  # exp(x) is 0 below
                e[i] = x
                todo[k] = i
                k += 1
            else:
                e[i] = 0.0
        if along:  # slope_curvature_sums' body, in the same order
            ei = e[i]
            x = ei * delta[i]
            slope += x
            if ei < cap_i * (1.0 - 1e-12):  # a branch here, unlike there: measured faster in this loop
                sq += x * delta[i]
                lin += x
                mass += ei
    acc[0] = slope
    acc[1] = sq
    acc[2] = lin
    acc[3] = mass
    acc[4] = capped_dot
    return k


cdef int _write_result(const double* q, const double* s, Py_ssize_t m, bint weighted, double eta, double nu,
                       double q_cut, double free_share, double s_free, double t_free, double shift_free,
                       double* e, const double* delta, bint along, int64_t* todo, double* sums,
                       double* capped_dot_out, bint* in_one_pass) noexcept nogil:
    """Overwrite ``e`` with ``d``: ``cap_i`` where ``q_i <= q_cut``, else
    ``min(cap_i, free_share s_i exp(-eta q_i - t_free + shift_free) / s_free)`` (see
    ``projections.py``); the sums of :func:`slope_curvature_sums` (zeros without ``delta``),
    ``sum cap_i q_i`` over the capped examples and whether every entry was finished in the first
    loop at the first scale. ``todo``: m int64 of scratch. -1 where ``s_free`` is 0 (numba raised
    ZeroDivisionError)."""
    cdef bint first_scale = shift_free == MBP_EXP_SHIFT
    cdef double r, log_r, log_s_max = 0.0, x, v
    cdef double slope, sq, lin, mass, capped_dot
    cdef double acc[5]
    cdef Py_ssize_t i, j, k = 0
    cdef bint low
    if s_free == 0.0:
        return -1
    r = free_share / s_free
    log_r = shift_free + (log(free_share) - log(s_free))
    if weighted:
        log_s_max = log(_array_max(s, m))
    # the loop specialised (weighted, along): the tests and 1/nu out of it
    if weighted and along:
        k = _write_loop(q, s, m, True, eta, nu, q_cut, r, t_free, log_r, log_s_max, first_scale, e, delta, True,
                        todo, acc)
    elif weighted:
        k = _write_loop(q, s, m, True, eta, nu, q_cut, r, t_free, log_r, log_s_max, first_scale, e, delta, False,
                        todo, acc)
    elif along:
        k = _write_loop(q, s, m, False, eta, nu, q_cut, r, t_free, log_r, log_s_max, first_scale, e, delta, True,
                        todo, acc)
    else:
        k = _write_loop(q, s, m, False, eta, nu, q_cut, r, t_free, log_r, log_s_max, first_scale, e, delta, False,
                        todo, acc)
    slope = acc[0]
    sq = acc[1]
    lin = acc[2]
    mass = acc[3]
    capped_dot = acc[4]
    for j in range(k):
        i = todo[j]
        x = e[i]
        low = x < MBP_EXP_FLOOR  # libm's exp is slower below -512: exp(x + 400) e^-400 instead
        v = exp(x + (400.0 if low else 0.0)) * (MBP_EXP_MINUS_400 if low else 1.0)
        e[i] = _fmin((s[i] if weighted else 1.0) / nu, v)
    in_one_pass[0] = first_scale and k == 0
    capped_dot_out[0] = capped_dot
    if along and k > 0:  # entries finished after the loop: the sums again, in a pass of their own
        _slope_curvature_c(e, delta, m, 1.0 / nu, s, nu, weighted, sums)
    else:
        sums[0] = slope
        sums[1] = sq
        sums[2] = lin
        sums[3] = mass
    return 0


cdef int kl_capped_c(const double* q, Py_ssize_t m, double eta, double nu, const double* s, bint weighted,
                     const double* delta, bint along, bint split, double* e, double* sums,
                     double* value) noexcept nogil:
    """:func:`_kl_capped` into ``e`` (m), ``sums`` (4) and ``value``; 0, or -1 where numba raised
    ZeroDivisionError, -2 where memory ran out. ``m >= 1``. The method, the scales and the rules:
    the comment at ``_kl_capped`` in ``projections.py``. ``e`` holds the first level's masses (0
    below the floor), then the result."""
    cdef double tmax, t_base, shift_base, capped, q_cut, s_free, t_free, shift_free
    cdef double qp, cap_g, cap_e, mass, t_scale, shift_scale, ep, room, capped_err, free_share, capped_dot
    cdef double level[3]
    cdef Py_ssize_t counts[2]
    cdef Py_ssize_t n, n_g, n_l, n_free, i, hi_size, lo_s_size, hi_s_size
    cdef uint64_t state
    cdef bint first, rescaled, cap_p, in_one_pass
    cdef const double* src_q
    cdef const double* src_e
    cdef const double* src_s
    cdef const double* kept_e
    cdef double* at_scale
    cdef double* kept_buffer_e = NULL  # src_e after the first level (a buffer, writable)
    cdef double* buf
    cdef double* lo_q
    cdef double* lo_e
    cdef double* lo_s
    cdef double* hi_q
    cdef double* hi_e
    cdef double* hi_s
    cdef int rc

    tmax = -eta * _array_min(q, m)
    # With ``split`` the first level writes both its sides, G to lo_* and L to hi_*, while it sums;
    # without, it writes none and the side kept is copied to lo_* after it (numba's loop was faster
    # writing both sides up to 2^17 examples, gcc's is slower at every size: projections.py passes
    # split = False). Either way the same bits. The levels after it compact the side kept in place.
    # Scratch, one block: lo_q, lo_e (m), lo_s (m if weighted), hi_* likewise if split; lo_q is the
    # int64 todo list of _write_result after the levels.
    hi_size = m if split else 0
    lo_s_size = m if weighted else 0
    hi_s_size = hi_size if weighted else 0
    buf = <double*>malloc((2 * m + lo_s_size + 2 * hi_size + hi_s_size + 1) * sizeof(double))
    if buf == NULL:
        return -2
    lo_q = buf
    lo_e = lo_q + m
    lo_s = lo_e + m
    hi_q = lo_s + lo_s_size
    hi_e = hi_q + hi_size
    hi_s = hi_e + hi_size

    src_q = q
    src_e = e
    src_s = s
    n = m
    t_base = tmax
    shift_base = MBP_EXP_SHIFT
    capped = 0.0  # sum of s_i (the count without weights) over the capped examples
    q_cut = -INFINITY  # capped iff q_i <= q_cut
    n_free = 0
    s_free = 0.0
    t_free = tmax
    shift_free = MBP_EXP_SHIFT
    state = 0x9E3779B97F4A7C15ULL  # fixed seed: the same input, the same rounding
    _first_level_masses(q, s, weighted, eta, tmax, e, m)
    first = True
    while n > 0:
        if first:
            qp = _pivot(q, m, &state, 1.25 * nu / <double>m + 2.0 / 127.0)
        else:
            qp = _median_of_three(src_q, n, &state)
        # two calls (the first level's, the others'), so that the compiler keeps the loops in a function
        # of their own rather than inline here, where the pointers ran out of registers (1.05x slower)
        if first:
            _level_sums(q, e, s, m, qp, weighted, split, lo_q, lo_e, lo_s, hi_q, hi_e, hi_s, level, counts)
        else:
            _level_sums(src_q, src_e, src_s, n, qp, weighted, False, lo_q, lo_e, lo_s, hi_q, hi_e, hi_s, level,
                        counts)
        cap_g = level[0]
        cap_e = level[1]
        mass = level[2]
        n_g = counts[0]
        n_l = counts[1]
        if n_free > 0:
            mass += s_free * exp((t_free - t_base) + (shift_base - shift_free))
        t_scale = t_base
        shift_scale = shift_base
        # d_p / cap_p = room / nu * ep / (mass / nu)
        ep = _exp_shifted((-eta * qp) - t_base, shift_base)
        rescaled = mass < MBP_GLOBAL_SCALE_FLOOR
        if not first:
            at_scale = kept_buffer_e  # the undecided examples' own: src_e, one of the buffers
        elif split:
            at_scale = hi_e
        else:
            at_scale = lo_e
        if rescaled:
            # E, L and the free examples (nearly) all underflow at this scale: take the pivot's
            t_scale = -eta * qp
            shift_scale = 0.0
            ep = 1.0
            mass = _rescale(src_q, src_s, n, qp, weighted, eta, t_scale, at_scale)
            if n_free > 0:
                mass += s_free * exp((t_free - t_scale) - shift_free)
        room = nu - capped - cap_g
        cap_p = (room * ep > mass * (1.0 + 1e-12) and room - cap_e > 1e-15 * nu
                 and (n_l > 0 or n_free > 0))
        if cap_p:
            capped += cap_g + cap_e
            q_cut = qp
            if rescaled:
                t_base = t_scale
                shift_base = shift_scale
        else:
            n_free += n - n_g
            s_free = mass
            t_free = t_scale
            shift_free = shift_scale
        if first and split:
            if cap_p and rescaled:
                _keep(q, hi_e, s, m, qp, True, weighted, hi_q, hi_e, hi_s)
            if cap_p:
                src_q = hi_q
                src_e = hi_e
                kept_buffer_e = hi_e
                src_s = hi_s
                n = n_l
            else:
                src_q = lo_q
                src_e = lo_e
                kept_buffer_e = lo_e
                src_s = lo_s
                n = n_g
        else:
            if cap_p and rescaled:
                kept_e = at_scale
            else:
                kept_e = src_e
            n = _keep(src_q, kept_e, src_s, n, qp, cap_p, weighted, lo_q, lo_e, lo_s)
            src_q = lo_q
            src_e = lo_e
            kept_buffer_e = lo_e
            src_s = lo_s
        first = False
    capped_err = 0.0
    if weighted:  # once more, compensated: F = (nu - sum s_i) / nu cancels when F is small
        _sum_below(q, s, m, q_cut, &capped, &capped_err)
    free_share = ((nu - capped) - capped_err) / nu
    rc = _write_result(q, s, m, weighted, eta, nu, q_cut, free_share, s_free, t_free, shift_free, e, delta,
                       along, <int64_t*>lo_q, sums, &capped_dot, &in_one_pass)
    free(buf)
    if rc != 0:
        return -1
    value[0] = NAN
    if in_one_pass:  # every free d_i = F e_i / S at the first scale: rho~(q) in closed form
        if eta == 0.0:
            return -1
        value[0] = capped_dot + ((1.0 - free_share) * log(<double>m / nu) + free_share * (
            (log(free_share) + log(<double>m)) - (log_minus_c(s_free, shift_free) + t_free))) / eta
    return 0


def _kl_capped(q, double eta, double nu, s, bint weighted, delta, bint split):
    """``(d, sums, value)``: the capped-simplex KL projection by quickselect on the capped set
    (expected O(m)), for a non-empty ``delta`` the sums of :func:`slope_curvature_sums` at it (zeros
    otherwise), and the smoothed soft margin there in closed form (NaN where some entries needed a
    second scale). ``q``: the margins, C-contiguous float64; ``s``: the example weights (the same,
    used only if ``weighted``; may be None otherwise); ``delta``: None or an empty array for none.
    ``split``: how the first level keeps its undecided examples (the result does not depend on it).
    The method: ``projections.py``."""
    cdef Py_buffer bq, bs, bl, be
    cdef Py_ssize_t m
    cdef const double* s_ptr = NULL
    cdef const double* delta_ptr = NULL
    cdef bint along = False
    cdef double sums[4]
    cdef double value
    cdef int rc
    mb_init(&bq)
    mb_init(&bs)
    mb_init(&bl)
    mb_init(&be)
    try:
        mb_acquire(&bq, q, MB_F64, 1, False, MB_C, b"q")
        m = bq.shape[0]
        if m == 0:
            raise ValueError("zero-size array to reduction operation minimum which has no identity")
        if weighted:
            mb_acquire(&bs, s, MB_F64, 1, False, MB_C, b"s")
            if bs.shape[0] != m:
                raise ValueError(f"weights must have the shape of q ({m},), got ({bs.shape[0]},)")
            s_ptr = <const double*>bs.buf
        if delta is not None:
            mb_acquire(&bl, delta, MB_F64, 1, False, MB_C, b"delta")
            if bl.shape[0] > 0:
                if bl.shape[0] != m:
                    raise ValueError(f"delta must have the shape of q ({m},), got ({bl.shape[0]},)")
                delta_ptr = <const double*>bl.buf
                along = True
        if nu == 0.0:
            raise ZeroDivisionError("division by zero")
        e = np.empty(m)
        mb_acquire(&be, e, MB_F64, 1, True, MB_C, b"e")
        sums[0] = sums[1] = sums[2] = sums[3] = 0.0
        with nogil:
            rc = kl_capped_c(<const double*>bq.buf, m, eta, nu, s_ptr, weighted, delta_ptr, along, split,
                             <double*>be.buf, sums, &value)
        if rc == -1:
            raise ZeroDivisionError("division by zero")
        if rc == -2:
            raise MemoryError()
        return e, (sums[0], sums[1], sums[2], sums[3]), value
    finally:
        mb_release(&bq)
        mb_release(&bs)
        mb_release(&bl)
        mb_release(&be)


# ---------------------------------------------------------------------------------------------
# _suffix_logaddexp

def _suffix_logaddexp(a):
    """``np.logaddexp.accumulate(a[::-1])[::-1]``, bit for bit: numpy's ``npy_logaddexp`` recurrence
    (``x + log1p(exp(y - x))`` with the larger ``x``, ``x + ln 2`` for equal terms) on the same libm
    ``exp`` and ``log1p``, in one loop. ``a``: float64, any stride."""
    cdef Py_buffer ba, bo
    cdef Py_ssize_t m, i, sa
    cdef double acc, y, tmp
    cdef const char* pa
    cdef double* o
    mb_init(&ba)
    mb_init(&bo)
    try:
        mb_acquire(&ba, a, MB_F64, 1, False, MB_STRIDED, b"a")
        m = ba.shape[0]
        out = np.empty(m)
        if m == 0:
            return out
        mb_acquire(&bo, out, MB_F64, 1, True, MB_C, b"out")
        pa = <const char*>ba.buf
        sa = ba.strides[0]
        o = <double*>bo.buf
        with nogil:
            acc = (<const double*>(pa + (m - 1) * sa))[0]
            o[m - 1] = acc
            for i in range(m - 2, -1, -1):
                y = (<const double*>(pa + i * sa))[0]
                if acc == y:
                    acc = acc + MBP_LN2  # npy_logaddexp: equal terms (and equal infinities)
                else:
                    tmp = acc - y
                    if tmp > 0:
                        acc = acc + log1p(exp(-tmp))
                    elif tmp <= 0:
                        acc = y + log1p(exp(tmp))
                    else:  # NaN
                        acc = tmp
                o[i] = acc
        return out
    finally:
        mb_release(&ba)
        mb_release(&bo)


# ---------------------------------------------------------------------------------------------
# The Euclidean sweep

def _breakpoint_tau(points, order, weights, bint weighted, double total):
    """``tau`` with ``g(tau) = 1`` by the sweep of ``projections._euclidean_capped`` over the
    breakpoints ``points[order]`` (entry ``j < m`` starts sliding there, entry ``j - m`` stops; its
    weight ``weights[j mod m]``, 1 without): one pass and numpy's binary search, the operations of
    the numpy sweep it replaced in the same order, so the same bits. ``points`` float64 and ``order``
    int64, C-contiguous; ``weights`` float64, any stride, read only if ``weighted``."""
    cdef Py_buffer bp, bo, bw
    cdef Py_ssize_t n, m, i, lo, hi, mid, n_points, sw = 0
    cdef int64_t j
    cdef double sliding = 0.0, dropped = 0.0, step, result = 0.0, denominator
    cdef double* buf = NULL
    cdef double here, after
    cdef double* n_sliding
    cdef double* g = NULL
    cdef const double* pts
    cdef const int64_t* od
    cdef const char* pw = NULL
    cdef bint zero_division = False
    cdef int bad = 0
    mb_init(&bp)
    mb_init(&bo)
    mb_init(&bw)
    try:
        mb_acquire(&bp, points, MB_F64, 1, False, MB_C, b"points")
        mb_acquire(&bo, order, MB_I64, 1, False, MB_C, b"order")
        n = bo.shape[0]
        m = n // 2
        n_points = bp.shape[0]
        if weighted:
            mb_acquire(&bw, weights, MB_F64, 1, False, MB_STRIDED, b"weights")
            pw = <const char*>bw.buf
            sw = bw.strides[0]
        if n < 2 or n_points < n or (weighted and bw.shape[0] < m):
            raise ValueError("_breakpoint_tau: order must hold 2m >= 2 entries, points and weights as many")
        pts = <const double*>bp.buf
        od = <const int64_t*>bo.buf
        with nogil:  # numba indexed without a check: refuse what would read out of bounds (one vector pass)
            for i in range(n):
                bad |= <uint64_t>od[i] >= <uint64_t>n_points
        if bad:
            raise IndexError("_breakpoint_tau: order holds an index out of range")
        # two blocks of n, as numba's arrays were (one of 2n: glibc's threshold for mmap, which moves
        # with the sizes freed, made it a fresh mapping, page faults and all, at 10^5 examples)
        buf = <double*>malloc(n * sizeof(double))
        g = <double*>malloc(n * sizeof(double))
        if buf == NULL or g == NULL:
            raise MemoryError()
        n_sliding = buf
        with nogil:
            # the sorted points are not stored: each is needed once more, at the end, as points[order[.]]
            g[0] = total - 0.0
            here = pts[od[0]]
            for i in range(n - 1):
                j = od[i]
                step = (<const double*>(pw + (j % m) * sw))[0] if weighted else 1.0
                sliding += step if j < m else -step
                n_sliding[i] = sliding
                after = pts[od[i + 1]]
                dropped += sliding * (after - here)
                here = after
                g[i + 1] = total - dropped
            # never written by numba (read only if no g <= 1, NaN input): the full sum here
            n_sliding[n - 1] = sliding
            lo = 0  # numpy's binary search (side='left') for -1.0 in -g: the first i with -g[i] >= -1
            hi = n
            while lo < hi:
                mid = lo + ((hi - lo) >> 1)
                if -g[mid] < -1.0:
                    lo = mid + 1
                else:
                    hi = mid
            if lo == 0:
                result = pts[od[0]]
            else:
                denominator = n_sliding[lo - 1]
                if denominator == 0.0:
                    zero_division = True
                else:
                    result = pts[od[lo - 1]] + (g[lo - 1] - 1.0) / denominator
        if zero_division:
            raise ZeroDivisionError("division by zero")
        return result
    finally:
        free(buf)
        free(g)
        mb_release(&bp)
        mb_release(&bo)
        mb_release(&bw)
