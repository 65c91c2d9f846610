"""``exp`` and ``sum x ln x`` over arrays, in loops the compiler vectorises (issue 17).

A compiled loop calls libm's scalar ``exp`` and ``log``, one per
element: ``exp`` of 7400 values took 23 us, a third of a capped-simplex KL projection
(:mod:`marginboost.core.projections`), and ``xlogy(d, d).sum()``, the entropy in every value of
the smoothed soft margin (:mod:`marginboost.soft_margin.objectives`), 25 us. The smoothed
boosters take several of each a round. Here every step is arithmetic that the compiler turns into SIMD
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

The loops are compiled ahead of time (``_vector_math.pyx``); the compiler vectorises them
without reordering a sum or fusing a multiply-add, so the bits are those of the plain loops.
"""
from __future__ import annotations

from marginboost.core._vector_math import EXP_MAX_ARG, EXP_MIN_ARG, exp_into, log_minus, sum_xlogx

__all__ = ["EXP_MAX_ARG", "EXP_MIN_ARG", "exp_into", "log_minus", "sum_xlogx"]
