"""The average-margin oracle of Algorithm 2 (paper 003) on the stump NZDD, chains unrolled.

On the stump NZDD (:mod:`marginboost.average_margin.nzdd_stumps`) weight pushing and the forward pass of Algorithm 2
have closed forms along each chain, so this kernel computes exactly what
:meth:`marginboost.average_margin.nzdd.NZDD.marginals` computes, in one sweep along each presorted feature and with
about ``2m + 2pm/256`` exponentials instead of O(pm). For feature ``j`` with blocks
``B_1..B_k`` of tied values, ``x_i = 2 eta d_i``, ``P``/``N`` the sums of ``x`` over
positives/negatives and ``D_t = sum_{b <= t} (N(B_b) - P(B_b))``, the log-weights of cut ``t`` are

    s = +1:  L_t = P(all) + D_t        s = -1:  L'_t = N(all) - D_t

and with ``p_t = exp(L_t - R)/Z`` (``R`` a reference, below) an example ``i`` of block ``b``
lies in the set of cut ``t`` (``s = +1``) iff it is negative and ``t >= b`` or positive and
``t < b`` (``s = -1``: the other way round), so with ``pre(b) = sum_{t < b} p_t``,
``tot = sum_t p_t`` and ``delta(b) = pre_+(b) - pre_-(b)``::

    r_i = Pr[i in S_h | d] = (negative)  tot_+ - delta(b)     (positive)  tot_- + delta(b)

and ``E[u_i | d] = 2 r_i - 1``. Per example only ``sum_j delta_j(b_j(i))`` is scattered (one
add, no label lookup); the per-feature constants ``tot_+-`` are added once at the end.
Duplicate cuts (``keep`` false) get ``p_t = 0``: a code per presorted position
(:func:`cut_codes`: does a block end here, and is its cut kept for ``s = +1`` / ``-1``)
multiplies the running value by 0 or 1, so the loop has no data-dependent branch.

Exponentials, segments and the reference. Along a feature ``exp(L_t - R)`` is the previous
cut's value times ``exp(+-sx_i)`` over the examples of block ``t`` (``sx = x`` on negatives,
``-x`` on positives; one exp per example per call). At a restart ``a = L - R`` is computed
exactly and exponentiated; the later values are ``base * rel``, ``rel`` the running product of
the factors from ``exp(a - base_log)``, with ``base = exp(a)`` if ``a >= -700``, ``exp(-700)`` if
``-700 - _SPAN <= a < -700`` and 0 below (the values until the next restart are below
``exp(-700)``, set to 0 as in ``nzdd._push``). A restart happens at the end of the block
holding the ``_SEGMENT``-th cut since the last one, and wherever the log-drift since the last
restart, ``q |n - n_0|`` (below), exceeds ``_SPAN``: so ``rel`` stays within ``exp(+-_SPAN)`` of
its start (never subnormal, never overflowing) wherever it is used. No product is subnormal: a value
``base * rel`` below ``_KEPT_FLOOR = 2^-1021`` is formed as ``base * max(rel, lo)``, ``lo = _KEPT_FLOOR /
base`` set at each restart, so about ``_KEPT_FLOOR`` instead, and its path's probability is 0. x86
cores take a slow path for a subnormal result (here 0.8 -> 1.6 ns per multiply-add in a loop like
this one), and on ringnorm with uniform ``d`` 28% of the products fell there: the oracle went 0.57
-> 0.30 ms, with ``g`` and ``F`` bit for bit the same on the 15 (data, ``d``) pairs of
``benchmarks/nzdd_oracle.py`` (issue 17). Such a cut lies more than ``700 - _HEADROOM`` below the
largest (``base <= 1`` and ``Z > e^-151``), so the raise moves ``Z`` and the ``r_i`` by less than
``2pm 2^-1020 / Z``, below 1e-230 relative. A drift past the span
inside a block of ties (whose interior values are unused) only zeroes ``base`` and moves the
restart to the block's end. A factor is clamped at ``exp(+-700)``; ``700 > 2 _SPAN``, so a
clamped factor always triggers a restart and is never used. The relative error of a value
is at most ~``(examples since the restart + _SEGMENT) 3u`` (``u = 2^-53``), ~1e-13. ``R`` is
an integer, raised when an exact ``a`` at a cut exceeds 0 to ``ceil(L_t + _HEADROOM)`` (what
was accumulated is rescaled by ``exp(R_old - R_new)``, O(m), at most ``eta / _HEADROOM + 1``
times a call), so values stay below ``exp(_SPAN)``, ``Z`` cannot overflow, and no first pass
for the maximum is needed. Cuts more than ``700 - _HEADROOM`` below the maximum may be set to
0, which changes ``r`` by less than ``2pm e^-550``.

Where extra precision is needed, and where not. ``L`` reaches ``2 eta`` (2e6 at eta = 1e6),
where one rounding is ~2e-10; a plain float64 prefix sum of ``k`` terms errs by up to
``u sum_t |D_t|``: ~1e-9 at eta = 1e6 for m = 400, and at eta = 2.4e3 (eps = 0.01) for m = 7400,
more than the 1e-10 promised, so ``D_t`` needs more than float64, but only at the restarts
(1 in up to 256 cuts). It is kept exact cheaply: with a power of two ``q >= sum_i |x_i| 2^-51``,
``sx_i = n_i q + res_i`` with ``n_i = rint(sx_i / q)`` an integer and ``|res_i| <= q/2`` (plus the
low part of the exact product ``2 eta d_i``); every prefix sum of the ``n_i`` is an integer
below ``2^52``, exact in float64, and the plain prefix sum of the ``res_i`` errs by at most
``m^2 u q / 2`` (1.3e-24 ``sum|x|`` at m = 7400). So ``D_t = q sum n + sum res`` costs two float additions per example
(a double-double Sum2 costs seven), and the same integer sum measures the drift. At a restart ``L - R`` is formed from ``P - R`` in
double-double plus ``D_t``, the high parts cancelling exactly (Sterbenz) wherever ``p_t`` is not
negligible. Everything else (factors, products, the prefix sums of ``p``, the scatter) is
plain float64 on values of magnitude at most ``Z``; the tests check the result against exact
rationals and the generic DP of :mod:`marginboost.average_margin.nzdd` to 1e-10 for eta up to 1e6.
"""
from __future__ import annotations

import numpy as np

# The loops, compiled (marginboost.average_margin._stump_oracle), with the constants they use
# (C constants there, exported under these names):
#   _SEGMENT = 256    cuts per segment at most: one exact exp per segment and orientation
#   _SPAN = 340.0     the log-weight moves by at most this along a segment: exp(-2 _SPAN) is normal
#   _HEADROOM = 150.0 R is raised to max L + _HEADROOM: values stay below exp(_SPAN)
#   _KEPT_FLOOR = 2^-1021: no product falls below it (module docstring)
#   _EXP_EVEN, _EXP_ODD: exp(+-r) = E(r^2) +- r O(r^2), the degree-13 Taylor polynomial's even and
#     odd parts, highest coefficient first (Horner in r^2); _LN2_HI, _LN2_LO: ln 2 split for
#     Cody-Waite reduction (k * _LN2_HI exact), _INV_LN2 = 1 / ln 2
#   cut_codes, what ends at a presorted position: _KEEP_POS = 1 (cut kept for s = +1),
#     _KEEP_NEG = 2 (cut kept for s = -1), _CUT = 4 (a block ends here; the sweep adds code >> 2
#     to the cut counter)
from marginboost.average_margin._stump_oracle import (  # noqa: F401 (kernels and constants re-exported)
    _CUT, _EXP_EVEN, _EXP_ODD, _HEADROOM, _INV_LN2, _KEEP_NEG, _KEEP_POS, _KEPT_FLOOR, _LN2_HI, _LN2_LO, _SEGMENT,
    _SPAN, _example_table, _kept_ratio, _max_edge, _oracle, _restart, _segment_start, _sum_abs, _sweep, cut_codes)
from marginboost.average_margin.nzdd import LOG_TINY  # noqa: F401

__all__ = ["cut_codes", "stump_average_margin", "stump_max_edge"]


def stump_average_margin(tables, d: np.ndarray, eta: float, with_paths: bool = False):
    """``(E_h[u_h | d], F(d), Pr[candidate path | d] or None)`` on a :class:`marginboost.average_margin.nzdd_stumps.StumpNZDD`.

    ``tables = (order, pos, starts, soff, keep, codes, sign)`` as stored there (``codes`` from
    :func:`cut_codes`, ``sign = where(pos, -1, 1)``).
    """
    order, pos, starts, soff, keep, codes, sign = tables
    g, value, out = _oracle(order, codes, pos, sign, starts, soff, keep, d, float(eta), with_paths)
    return g, value, (out if with_paths else None)


def stump_max_edge(tables, d: np.ndarray) -> float:
    """``max_h d @ u_h`` over the stumps of the NZDD (the edge of the best stump), in one pass
    along the presorted features: :meth:`marginboost.average_margin.nzdd.NZDD.max_edge` without the generic DAG."""
    order, pos, starts, soff = tables[:4]
    return float(_max_edge(order, starts, soff, np.where(pos, d, -d)))
