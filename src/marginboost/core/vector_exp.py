"""``exp`` over an array in loops the compiler vectorises (issue 17).

numba compiles ``math.exp`` to a call of libm's scalar ``exp`` per element: 23 us for 7400
values, a third of a capped-simplex KL projection (:mod:`marginboost.core.projections`), which
the smoothed boosters run two to four times a round. The same values here take 5 us, because
every step is arithmetic that LLVM turns into SIMD instructions:

    exp(x) = 2^k exp(r),  k = round(x / ln 2),  r = (x - k ln2_hi) - k ln2_lo,  |r| <= ln(2)/2,

with Cody and Waite's two-part ``ln 2`` (``k ln2_hi`` is exact for ``|k| < 2^20``), ``exp(r)``
by its Taylor polynomial of degree 13 in Horner form (the remainder ``r^14/14!`` is below
4e-18, under half an ulp of ``exp(r) >= 0.7``), and ``2^k`` added to the exponent bits of the
result in a second loop over an integer view (``k << 52``). Measured against libm on 10^5
arguments in [-700, 0] and [-1, 1]: at most 1 ulp apart, 90% equal.

The domain is ``-708 <= x <= 709``: there ``2^k exp(r)`` is a normal double. The caller keeps
its arguments in it (the projection's are in ``[-500, 500]``); below it the bit addition would
not give the subnormal ``exp(x)``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["exp_into", "EXP_MIN_ARG", "EXP_MAX_ARG"]

EXP_MIN_ARG = -708.0  # exp(x) is a normal double for x in [EXP_MIN_ARG, EXP_MAX_ARG]
EXP_MAX_ARG = 709.0
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # fdlibm's: 32 significant bits, so k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
# 1/j! for j = 13 down to 2
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


@njit(cache=True, nogil=True)
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
