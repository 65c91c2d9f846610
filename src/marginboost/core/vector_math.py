"""``exp`` and ``sum x ln x`` over arrays, in loops the compiler vectorises (issue 17).

numba compiles ``math.exp`` and ``math.log`` to calls of libm's scalar functions, one per
element: ``exp`` of 7400 values took 23 us, a third of a capped-simplex KL projection
(:mod:`marginboost.core.projections`), and ``xlogy(d, d).sum()``, the entropy in every value of
the smoothed soft margin (:mod:`marginboost.soft_margin.objectives`), 25 us. The smoothed
boosters take several of each a round. Here every step is arithmetic that LLVM turns into SIMD
instructions: 6 us and 7 us.

:func:`exp_into`::

    exp(x) = 2^k exp(r),  k = round(x / ln 2),  r = (x - k ln2_hi) - k ln2_lo,  |r| <= ln(2)/2,

with Cody and Waite's two-part ``ln 2`` (``k ln2_hi`` is exact for ``|k| < 2^20``), ``exp(r)``
by its Taylor polynomial of degree 13 in Horner form (the remainder ``r^14/14!`` is below
4e-18, under half an ulp of ``exp(r) >= 0.7``), and ``2^k`` added to the exponent bits of the
result in a second loop over an integer view (``k << 52``). Its domain is
``[EXP_MIN_ARG, EXP_MAX_ARG]``, where ``2^k exp(r)`` is a normal double; the caller keeps its
arguments there (the projection's are in ``[-500, 500]``).

:func:`sum_xlogx`: ``x = 2^k a`` with ``a`` in ``[sqrt(1/2), sqrt(2))`` from the bits, and
``ln a = 2 atanh(f) = 2 (f + f^3/3 + ... + f^21/21)``, ``f = (a - 1)/(a + 1)``, ``|f| <= 0.172``
(the next term is below 1e-18); ``ln x = k ln2_hi + 2 f + (k ln2_lo + 2 f^3 P(f^2))``. Entries
below the smallest normal double count as 0 (``x ln x`` is under 1e-305 there); the products
are summed by four running sums per chunk, a fixed order, so the same input gives the same sum.
Measured against libm: ``exp`` at most 1 ulp apart (90% equal), ``ln`` at most 2-3 ulp.

:func:`log_minus` is a scalar companion: ``ln x - shift`` with the large parts cancelled exactly,
for sums kept at a scale of e^500 (the projection's closed-form value).

Both vector functions are compiled with ``error_model='numpy'``: with numba's default, every division checks for
a zero divisor, and the check kept the loop of :func:`sum_xlogx` from vectorising (5x slower).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["EXP_MAX_ARG", "EXP_MIN_ARG", "exp_into", "log_minus", "sum_xlogx"]

EXP_MIN_ARG = -708.0  # exp(x) is a normal double for x in [EXP_MIN_ARG, EXP_MAX_ARG]
EXP_MAX_ARG = 709.0
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # fdlibm's: 32 significant bits, so k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
# 1/j! for j = 13 down to 3 (1/2! is the 0.5 in the loop)
_C13 = 1.0 / math.factorial(13)
_C12 = 1.0 / math.factorial(12)
_C11 = 1.0 / math.factorial(11)
_C10 = 1.0 / math.factorial(10)
_C9 = 1.0 / math.factorial(9)
_C8 = 1.0 / math.factorial(8)
_C7 = 1.0 / math.factorial(7)
_C6 = 1.0 / math.factorial(6)
_C5 = 1.0 / math.factorial(5)
_C4 = 1.0 / math.factorial(4)
_C3 = 1.0 / math.factorial(3)
_SQRT2 = math.sqrt(2.0)
_SMALLEST_NORMAL = 2.2250738585072014e-308
_CHUNK = 1024  # entries per chunk of sum_xlogx: 16 KiB of scratch


@njit(cache=True, nogil=True, error_model="numpy")
def exp_into(x, out, k):
    """``out[i] = exp(x[i])`` for ``x[i]`` in ``[EXP_MIN_ARG, EXP_MAX_ARG]`` (not checked: the
    caller clamps), within 1 ulp of libm; ``k`` is an int64 scratch array as long as ``x``.
    ``out`` must not be ``x``: in place the loop ran unvectorised, 8x slower."""
    n = x.shape[0]
    for i in range(n):
        xi = x[i]
        kf = math.floor(xi * _LOG2E + 0.5)
        r = (xi - kf * _LN2_HI) - kf * _LN2_LO
        p = _C13 * r + _C12
        p = p * r + _C11
        p = p * r + _C10
        p = p * r + _C9
        p = p * r + _C8
        p = p * r + _C7
        p = p * r + _C6
        p = p * r + _C5
        p = p * r + _C4
        p = p * r + _C3
        p = p * r + 0.5
        p = p * r + 1.0
        out[i] = p * r + 1.0
        k[i] = np.int64(kf)
    bits = out[:n].view(np.int64)
    for i in range(n):
        bits[i] += k[i] << 52


@njit(cache=True, nogil=True, error_model="numpy")
def sum_xlogx(x):
    """``sum_i x_i ln x_i`` over ``x >= 0`` (``0 ln 0 = 0``; entries below the smallest normal double
    count as 0), the same as ``scipy.special.xlogy(x, x).sum()`` up to rounding (2-3 ulp per log)."""
    n = x.shape[0]
    bits = x.view(np.int64)
    mantissa = np.empty(_CHUNK, dtype=np.int64)
    exponent = np.empty(_CHUNK)
    term = np.empty(_CHUNK)
    total = 0.0
    for lo in range(0, n, _CHUNK):
        c = min(_CHUNK, n - lo)
        b, xs = bits[lo:lo + c], x[lo:lo + c]
        for j in range(c):  # x = 2^exponent * mantissa, mantissa in [1, 2)
            mantissa[j] = (b[j] & 0x000FFFFFFFFFFFFF) | 0x3FF0000000000000
            exponent[j] = np.float64((b[j] >> 52) - 1023)
        a = mantissa.view(np.float64)
        for j in range(c):
            big = a[j] > _SQRT2  # to [sqrt(1/2), sqrt(2)): |f| <= 0.172
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
            log_x = (k * _LN2_HI + 2.0 * f) + (k * _LN2_LO + 2.0 * f * f2 * p)
            term[j] = xs[j] * log_x if xs[j] >= _SMALLEST_NORMAL else 0.0
        s0 = s1 = s2 = s3 = 0.0
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
    return total


@njit(cache=True, nogil=True)
def log_minus(x, shift):
    """``ln x - shift`` for ``x > 0`` and ``shift`` near ``ln x`` (e.g. a sum of masses kept at scale
    e^500): ``math.log(x) - shift`` would round ``ln x`` to ulp(500), 1e-13; from ``x = f 2^k`` the
    large parts cancel exactly (``k ln 2`` in the two pieces of :func:`exp_into`, Sterbenz) before
    ``ln f`` is added."""
    f, k = math.frexp(x)
    return ((k * _LN2_HI - shift) + k * _LN2_LO) + math.log(f)
