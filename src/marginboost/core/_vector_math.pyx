"""The compiled loops of :mod:`marginboost.core.vector_math` (formulas and error bounds there)."""
from libc.math cimport floor, frexp, log
from libc.stdint cimport int64_t
from libc.string cimport memcpy


EXP_MIN_ARG = -708.0  # exp(x) is a normal double for x in [EXP_MIN_ARG, EXP_MAX_ARG]
EXP_MAX_ARG = 709.0
# Constants as C ``static const``: a module-level ``cdef double`` is a variable that a store through
# ``out`` might alias, so the compiler reloads it every iteration and the loop does not vectorise.
cdef extern from *:
    """
    static const double MB_LOG2E = 1.4426950408889634;
    static const double MB_LN2_HI = 6.93147180369123816490e-01;
    static const double MB_LN2_LO = 1.90821492927058770002e-10;
    static const double MB_C13 = 1.0 / 6227020800.0;
    static const double MB_C12 = 1.0 / 479001600.0;
    static const double MB_C11 = 1.0 / 39916800.0;
    static const double MB_C10 = 1.0 / 3628800.0;
    static const double MB_C9 = 1.0 / 362880.0;
    static const double MB_C8 = 1.0 / 40320.0;
    static const double MB_C7 = 1.0 / 5040.0;
    static const double MB_C6 = 1.0 / 720.0;
    static const double MB_C5 = 1.0 / 120.0;
    static const double MB_C4 = 1.0 / 24.0;
    static const double MB_C3 = 1.0 / 6.0;
    static const double MB_SQRT2 = 1.4142135623730951;
    static const double MB_SMALLEST_NORMAL = 2.2250738585072014e-308;
    static const long long MB_MANTISSA_BITS = 0x000FFFFFFFFFFFFFLL;
    static const long long MB_ONE_BITS = 0x3FF0000000000000LL;  /* the exponent bits of 1.0 */
    """
    const double MB_LOG2E
    const double MB_LN2_HI
    const double MB_LN2_LO
    const double MB_C13
    const double MB_C12
    const double MB_C11
    const double MB_C10
    const double MB_C9
    const double MB_C8
    const double MB_C7
    const double MB_C6
    const double MB_C5
    const double MB_C4
    const double MB_C3
    const double MB_SQRT2
    const double MB_SMALLEST_NORMAL
    const int64_t MB_MANTISSA_BITS
    const int64_t MB_ONE_BITS

cdef enum:
    _CHUNK = 1024  # entries per chunk of sum_xlogx: 16 KiB of scratch


cdef void exp_into_c(const double* x, double* out, int64_t* k, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef double xi, kf, r, p
    cdef int64_t bits
    for i in range(n):
        xi = x[i]
        kf = floor(xi * MB_LOG2E + 0.5)
        r = (xi - kf * MB_LN2_HI) - kf * MB_LN2_LO
        p = MB_C13 * r + MB_C12
        p = p * r + MB_C11
        p = p * r + MB_C10
        p = p * r + MB_C9
        p = p * r + MB_C8
        p = p * r + MB_C7
        p = p * r + MB_C6
        p = p * r + MB_C5
        p = p * r + MB_C4
        p = p * r + MB_C3
        p = p * r + 0.5
        p = p * r + 1.0
        out[i] = p * r + 1.0
        k[i] = <int64_t>kf
    for i in range(n):  # 2^k into the exponent bits (memcpy: the compiler's way to a bit cast)
        memcpy(&bits, &out[i], 8)
        bits += k[i] << 52
        memcpy(&out[i], &bits, 8)


def exp_into(const double[::1] x, double[::1] out, int64_t[::1] k):
    """``out[i] = exp(x[i])`` for ``x[i]`` in ``[EXP_MIN_ARG, EXP_MAX_ARG]`` (not checked: the
    caller clamps), within 1 ulp of libm; ``k`` is an int64 scratch array as long as ``x``.
    ``out`` must not be ``x``: in place the loop ran unvectorised, 8x slower."""
    cdef Py_ssize_t n = x.shape[0]
    if out.shape[0] < n or k.shape[0] < n:
        raise ValueError(f"exp_into: out and k must hold at least len(x) = {n} entries")
    if n:
        with nogil:
            exp_into_c(&x[0], &out[0], &k[0], n)


cdef double sum_xlogx_c(const double* x, Py_ssize_t n) noexcept nogil:
    cdef int64_t mantissa[_CHUNK]
    cdef double exponent[_CHUNK]
    cdef double term[_CHUNK]
    cdef double a[_CHUNK]
    cdef double total = 0.0, s0, s1, s2, s3, aj, k, f, f2, p, log_x
    cdef Py_ssize_t lo, c, j
    cdef int64_t b
    cdef bint big
    lo = 0
    while lo < n:
        c = min(<Py_ssize_t>_CHUNK, n - lo)
        for j in range(c):  # x = 2^exponent * mantissa, mantissa in [1, 2)
            memcpy(&b, &x[lo + j], 8)
            mantissa[j] = (b & MB_MANTISSA_BITS) | MB_ONE_BITS
            exponent[j] = <double>((b >> 52) - 1023)
        memcpy(a, mantissa, c * 8)
        for j in range(c):
            big = a[j] > MB_SQRT2  # to [sqrt(1/2), sqrt(2)): |f| <= 0.172
            aj = a[j] * 0.5 if big else a[j]
            k = exponent[j] + 1.0 if big else exponent[j]
            f = (aj - 1.0) / (aj + 1.0)
            f2 = f * f
            p = (1.0 / 21.0) * f2 + 1.0 / 19.0
            p = p * f2 + 1.0 / 17.0
            p = p * f2 + 1.0 / 15.0
            p = p * f2 + 1.0 / 13.0
            p = p * f2 + 1.0 / 11.0
            p = p * f2 + 1.0 / 9.0
            p = p * f2 + 1.0 / 7.0
            p = p * f2 + 1.0 / 5.0
            p = p * f2 + 1.0 / 3.0
            log_x = (k * MB_LN2_HI + 2.0 * f) + (k * MB_LN2_LO + 2.0 * f * f2 * p)
            term[j] = x[lo + j] * log_x if x[lo + j] >= MB_SMALLEST_NORMAL else 0.0
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        j = 0
        while j + 4 <= c:
            s0 += term[j]
            s1 += term[j + 1]
            s2 += term[j + 2]
            s3 += term[j + 3]
            j += 4
        while j < c:
            s0 += term[j]
            j += 1
        total += (s0 + s1) + (s2 + s3)
        lo += _CHUNK
    return total


def sum_xlogx(const double[::1] x):
    """``sum_i x_i ln x_i`` over ``x >= 0`` (``0 ln 0 = 0``; entries below the smallest normal double
    count as 0), the same as ``scipy.special.xlogy(x, x).sum()`` up to rounding (2-3 ulp per log)."""
    cdef Py_ssize_t n = x.shape[0]
    cdef double total = 0.0
    if n:
        with nogil:
            total = sum_xlogx_c(&x[0], n)
    return total


cdef double log_minus_c(double x, double shift) noexcept nogil:
    cdef int k
    cdef double f = frexp(x, &k)
    return ((k * MB_LN2_HI - shift) + k * MB_LN2_LO) + log(f)


def log_minus(double x, double shift):
    """``ln x - shift`` for ``x > 0`` and ``shift`` near ``ln x`` (e.g. a sum of masses kept at scale
    e^500): ``math.log(x) - shift`` would round ``ln x`` to ulp(500), 1e-13; from ``x = f 2^k`` the
    large parts cancel exactly (``k ln 2`` in the two pieces of :func:`exp_into`, Sterbenz) before
    ``ln f`` is added."""
    return log_minus_c(x, shift)
