"""The average-margin oracle of Algorithm 2 (paper 003) on the stump NZDD, chains unrolled.

On the stump NZDD (:mod:`.nzdd_stumps`) weight pushing and the forward pass of Algorithm 2
have closed forms along each chain, so this kernel computes exactly what
:meth:`.nzdd.NZDD.marginals` computes, in one sweep along each presorted feature and with
about ``m + 2pm/256`` exponentials instead of O(pm). For feature ``j`` with blocks
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
Duplicate cuts (``keep`` false) get ``p_t = 0``; on most features only the two constant cuts
are duplicates, and the per-cut ``keep`` test is skipped there.

Exponentials, segments and the reference. Along a feature ``exp(L_t - R)`` is the previous
cut's value times ``exp(+-sx)`` over block ``t`` (``sx = x`` on negatives, ``-x`` on
positives; one exp per example per call). The cuts are taken in segments of at most
``_SEGMENT`` cuts and ``_SPAN / max|x|`` examples, so the log-weight moves by at most ``w <=
_SPAN`` along one. At a segment's first cut ``a = L_t - R`` is computed exactly and
exponentiated; the segment's later values are ``base * rel``, ``rel`` the running product of
the factors from ``exp(a - base_log)``, with ``base = exp(a)`` if ``a >= -700``, ``exp(-700)`` if
``-700 - w <= a < -700`` (``rel`` in ``[exp(-2w), exp(w)]``: never subnormal, never
overflowing) and 0 if ``a < -700 - w`` (the whole segment is below ``exp(-700)``, set to 0 as in
``nzdd._push``). The relative error of a value is at most ~``(segment examples + _SEGMENT) 3u``
(``u = 2^-53``), ~1e-13. ``R`` is an integer, raised when an exact ``a`` exceeds 0 to
``ceil(L_t + _HEADROOM)`` (what was accumulated is rescaled by ``exp(R_old - R_new)``, O(m), at
most ``eta / _HEADROOM + 1`` times a call), so values stay below ``exp(_SPAN)``, ``Z`` cannot
overflow, and no first pass for the maximum is needed. Cuts more than ``700 - _HEADROOM``
below the maximum may be set to 0, which changes ``r`` by less than ``2pm e^-550``.

Where extra precision is needed, and where not. ``L`` reaches ``2 eta`` (2e6 at eta = 1e6),
where one rounding is ~2e-10; a plain float64 prefix sum of ``k`` terms errs by up to
``u sum_t |D_t|``: ~1e-9 at eta = 1e6 for m = 400, and at eta = 2.4e3 (eps = 0.01) for m = 7400,
more than the 1e-10 promised, so ``D_t`` needs more than float64, but only at the exact cuts
(1 in up to 256). It is kept exact cheaply: with a power of two ``q >= sum_i |x_i| 2^-51``,
``sx_i = n_i q + res_i`` with ``n_i = rint(sx_i / q)`` an integer and ``|res_i| <= q/2`` (plus the
low part of the exact product ``2 eta d_i``); every prefix sum of the ``n_i`` is an integer
below ``2^52``, exact in float64, and the plain prefix sum of the ``res_i`` errs by at most
``m^2 u q / 2`` (1.3e-24 ``sum|x|`` at m = 7400). So ``D_t = q sum n + sum res`` costs two float additions per example
(a double-double Sum2 costs seven). At an exact cut ``L_t - R`` is formed from ``P - R`` in
double-double plus ``D_t``, the high parts cancelling exactly (Sterbenz) wherever ``p_t`` is not
negligible. Everything else (factors, products, the prefix sums of ``p``, the scatter) is
plain float64 on values of magnitude at most ``Z``; the tests check the result against exact
rationals and the generic DP of :mod:`.nzdd` to 1e-10 for eta up to 1e6.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .nzdd import LOG_TINY, dd_add, two_prod, two_sum

__all__ = ["chain_kinds", "stump_average_margin", "stump_max_edge"]

_SEGMENT = 256  # cuts per segment at most: one exact exp per segment and orientation
_SPAN = 340.0  # the log-weight moves by at most this along a segment: exp(-2 _SPAN) is normal
_HEADROOM = 150.0  # R is raised to max L + _HEADROOM: values stay below exp(_SPAN)

# exp(r) = sum_k r^k / k!, k <= 13, highest first (Horner); ln 2 split for Cody-Waite reduction.
_EXP_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(13, -1, -1))
_LN2_HI = 6.93147180369123816490e-01  # trailing zeros: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00

# chain_kinds: which cuts of a feature's two chains are kept
_ALL_INTERIOR = 0  # every cut but possibly the two constants (t = 0, k): no per-cut keep test
_MIXED = 1
_NONE = 2  # no cut at all: the feature is skipped


@njit(cache=True, inline="always")
def _segment_start(a, w):
    """``(exp(a), base, rel)`` at a segment's first cut, ``a`` exact: the segment's later values
    are ``base * rel * (factors)``, with ``rel`` in ``[exp(-2w), exp(w)]`` along it (no
    subnormal, no overflow for ``w <= _SPAN``) and ``base`` normal or 0 (all negligible)."""
    if a + w < LOG_TINY:
        return 0.0, 0.0, 1.0
    q = math.exp(a) if a >= LOG_TINY else 0.0
    if a >= LOG_TINY:
        return q, q, 1.0
    return q, math.exp(LOG_TINY), math.exp(a - LOG_TINY)


@njit(cache=True)
def _exact_cut(t, k, s0, starts, budget, xmax, dh, dl, ph, pl, nh, nl, ref, racc, out):
    """A segment's first cut: exact ``exp(L_t - R)`` for both orientations, ``R`` raised first if
    needed (``racc`` and ``out`` are rescaled in place, the caller rescales its scalars by
    ``scale``), the segment's last cut and what its products start from.

    Returns ``(q0, q1, base0, rel0, base1, rel1, end, ref, scale)``.
    """
    a0h, a0l = dd_add(ph, pl, -ref, 0.0)
    a1h, a1l = dd_add(nh, nl, -ref, 0.0)
    a0 = (a0h + dh) + (a0l + dl)  # a0h + dh is exact (Sterbenz) wherever exp(a0) matters
    a1 = (a1h - dh) + (a1l - dl)
    scale = 1.0
    top = max(a0, a1)
    if top > 0.0:
        new = math.ceil(ref + top + _HEADROOM)  # integer-valued, so new - ref is exact
        scale = math.exp(ref - new)
        racc *= scale
        out *= scale
        ref = new
        a0h, a0l = dd_add(ph, pl, -ref, 0.0)
        a1h, a1l = dd_add(nh, nl, -ref, 0.0)
        a0 = (a0h + dh) + (a0l + dl)
        a1 = (a1h - dh) + (a1l - dl)
    # The segment: the cuts after t whose blocks hold at most `budget` examples in all, so the
    # log changes by at most w <= _SPAN along it; at least one cut (then it is exact again).
    limit = starts[s0 + t] + budget
    # Without ties a cut is one example: try that first, else bisect for the last cut within budget.
    lo, hi = t + 1, min(t + max(1, min(_SEGMENT, int(budget))), k)
    if starts[s0 + hi] <= limit:
        lo = hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[s0 + mid] <= limit:
            lo = mid
        else:
            hi = mid - 1
    end = max(lo, t + 1)
    w = (starts[s0 + min(end, k)] - starts[s0 + t]) * xmax
    q0, base0, rel0 = _segment_start(a0, w)
    q1, base1, rel1 = _segment_start(a1, w)
    return q0, q1, base0, rel0, base1, rel1, end, ref, scale


@njit(cache=True)
def _example_table(a, d, sign):
    """Per example ``rec[i] = (n_i, res_i, exp(sx_i), exp(-sx_i))`` with ``sx = a d * sign``
    (``sign`` -1 on positives) and ``sx_i = n_i q + res_i`` (module docstring); the sums ``P``,
    ``N`` of ``x = a d`` over positives/negatives as double-doubles; ``q``; a bound on ``max |x|``.

    ``q = 2^e >= sum_i |x_i| 2^-51``, so ``sum_i |n_i| <= 2^51 + m/2``: every prefix sum of the
    ``n_i``, and the difference of two, is an exact float64 integer. ``P`` and ``N`` follow
    from ``T = sum n_i`` and ``S = sum sign_i n_i`` (exact) as ``q (T -+ S)/2`` plus residuals.
    One row is one cache line for the sweep's gathers. The loops avoid calls and reductions so
    that they vectorise: ``exp`` is Cody-Waite reduction and a degree-13 Taylor polynomial
    (remainder below 4e-18 on ``|r| <= ln2/2``; measured within 1.01 ulp of libm), the
    argument clamped to ``[-700, 700]`` (no subnormal, no overflow; larger ``|x|`` makes the
    sweep's budget below one example, so those factors are never used).
    """
    m = d.shape[0]
    total = 0.0
    for i in range(m):
        total += abs(d[i])
    total *= abs(a) * (1.0 + 1e-12)  # above the exact sum of |x_i|
    q = 1.0 if total == 0.0 else math.ldexp(1.0, math.frexp(total)[1] - 51)
    inv_q = 1.0 / q  # a power of two: scaling by it is exact
    rec = np.empty((m, 4))
    bits = np.empty(m, np.int64)
    for i in range(m):
        h, l = two_prod(a, d[i])
        h *= sign[i]
        l *= sign[i]
        n = np.rint(h * inv_q)
        rec[i, 0] = n
        rec[i, 1] = (h - n * q) + l  # h - n q is exact (|.| <= q/2, a multiple of ulp(h))
        v = min(max(h, -700.0), 700.0)
        k = np.rint(v * _INV_LN2)
        r = (v - k * _LN2_HI) - k * _LN2_LO  # k * _LN2_HI is exact for |k| < 2^11
        e = _EXP_TAYLOR[0]
        for c in _EXP_TAYLOR[1:]:
            e = e * r + c
        rec[i, 2] = e * (1.0 + l)  # exp(hi + lo), lo being below ulp(hi)
        bits[i] = (np.int64(k) + 1023) << 52  # the bits of 2^k, a normal double
    scale = bits.view(np.float64)
    for i in range(m):
        e = rec[i, 2] * scale[i]
        rec[i, 2] = e
        rec[i, 3] = 1.0 / e
    tn = tr = sn = sr = nmax = 0.0
    for i in range(m):
        sn += rec[i, 0]
        sr += rec[i, 1]
        tn += sign[i] * rec[i, 0]
        tr += sign[i] * rec[i, 1]
        nmax = max(nmax, abs(rec[i, 0]))
    ph, pl = two_sum(q * (0.5 * (tn - sn)), 0.5 * (tr - sr))
    nh, nl = two_sum(q * (0.5 * (tn + sn)), 0.5 * (tr + sr))
    return rec, ph, pl, nh, nl, q, (nmax + 1.0) * q


@njit(cache=True)
def _sweep(order, rec, q, xmax, starts, soff, keep, kinds, ph, pl, nh, nl, racc, out):
    """The sweep along every feature (module docstring). Adds ``sum_j delta_j`` into ``racc``
    and, with ``out`` non-empty, the kept candidates' ``Z p`` into ``out``; returns
    ``(R, Z, tot_-, tot_+)``, all relative to ``exp(R)``."""
    p, m = order.shape
    budget = min(_SPAN / xmax, float(m)) if xmax > 0.0 else float(m)  # examples per segment
    ref = 0.0
    z = r_pos = r_neg = 0.0
    c = 0
    for j in range(p):
        s0 = soff[j]
        k = soff[j + 1] - s0 - 1
        c1 = c + k + 1  # candidates of s = -1
        if kinds[j] == _NONE:
            c += 2 * (k + 1)
            continue
        checked = kinds[j] == _MIXED
        nsum = rsum = 0.0  # D = q nsum + rsum
        pre0, pre1, base0, rel0, base1, rel1, end, ref, scale = _exact_cut(
            0, k, s0, starts, budget, xmax, 0.0, 0.0, ph, pl, nh, nl, ref, racc, out)
        z *= scale
        r_pos *= scale
        r_neg *= scale
        pre0 = pre0 if keep[c] else 0.0
        pre1 = pre1 if keep[c1] else 0.0
        if out.shape[0]:
            out[c] = pre0
            out[c1] = pre1
        delta = pre0 - pre1
        f0 = f1 = 1.0
        t = 1
        nxt = starts[s0 + 1]
        for idx in range(m):
            i = order[j, idx]
            racc[i] += delta
            nsum += rec[i, 0]  # exact: integers below 2^53
            rsum += rec[i, 1]
            f0 *= rec[i, 2]
            f1 *= rec[i, 3]
            if idx + 1 == nxt:  # block t ends: cut t
                if t == end:
                    q0, q1, base0, rel0, base1, rel1, end, ref, scale = _exact_cut(
                        t, k, s0, starts, budget, xmax, q * nsum, rsum, ph, pl, nh, nl, ref, racc, out)
                    z *= scale
                    r_pos *= scale
                    r_neg *= scale
                    pre0 *= scale
                    pre1 *= scale
                    q0 = q0 if keep[c + t] else 0.0
                    q1 = q1 if keep[c1 + t] else 0.0
                else:
                    rel0 *= f0
                    rel1 *= f1
                    q0 = base0 * rel0
                    q1 = base1 * rel1
                    if checked:
                        q0 = q0 if keep[c + t] else 0.0
                        q1 = q1 if keep[c1 + t] else 0.0
                if out.shape[0]:
                    out[c + t] = q0
                    out[c1 + t] = q1
                pre0 += q0
                pre1 += q1
                delta = pre0 - pre1
                f0 = f1 = 1.0
                t += 1
                if t <= k:
                    nxt = starts[s0 + t]
        r_neg += pre0
        r_pos += pre1
        z += pre0 + pre1
        c += 2 * (k + 1)
    return ref, z, r_pos, r_neg


@njit(cache=True)
def chain_kinds(keep, soff):
    """Per feature: ``_ALL_INTERIOR`` if both chains keep every cut but possibly their two
    constants (the last cut ``k`` is always a segment start, so its ``keep`` is tested there),
    ``_NONE`` if they keep none, else ``_MIXED``."""
    p = soff.shape[0] - 1
    kinds = np.empty(p, np.int8)
    c = 0
    for j in range(p):
        n = soff[j + 1] - soff[j]  # k + 1 cuts per orientation
        kept = 0
        interior = True
        for t in range(2 * n):
            if keep[c + t]:
                kept += 1
            elif t % n != 0 and t % n != n - 1:
                interior = False
        kinds[j] = _NONE if kept == 0 else (_ALL_INTERIOR if interior else _MIXED)
        c += 2 * n
    return kinds


@njit(cache=True)
def _oracle(order, pos, sign, starts, soff, keep, kinds, d, eta, with_paths):
    rec, ph, pl, nh, nl, q, xmax = _example_table(2.0 * eta, d, sign)
    m = d.shape[0]
    racc = np.zeros(m)
    out = np.zeros(keep.shape[0] if with_paths else 0)
    ref, z, r_pos, r_neg = _sweep(order, rec, q, xmax, starts, soff, keep, kinds, ph, pl, nh, nl, racc, out)
    g = np.empty(m)
    for i in range(m):
        g[i] = 2.0 * ((r_pos + racc[i]) if pos[i] else (r_neg - racc[i])) / z - 1.0
    # F = (R + ln Z - eta sum d) / eta, the large parts cancelling first.
    value = ((ref - eta * d.sum()) + math.log(z)) / eta
    out /= z
    return g, value, out


def stump_average_margin(tables, d: np.ndarray, eta: float, with_paths: bool = False):
    """``(E_h[u_h | d], F(d), Pr[candidate path | d] or None)`` on a :class:`.nzdd_stumps.StumpNZDD`.

    ``tables = (order, pos, starts, soff, keep, kinds, sign)`` as stored there (``kinds`` from
    :func:`chain_kinds`, ``sign = where(pos, -1, 1)``).
    """
    order, pos, starts, soff, keep, kinds, sign = tables
    g, value, out = _oracle(order, pos, sign, starts, soff, keep, kinds, d, float(eta), with_paths)
    return g, value, (out if with_paths else None)


@njit(cache=True)
def _max_edge(order, starts, soff, w):
    """``max_h sum_i w_i h(x_i)`` over all stumps, ``w = d * y``: with ``T = sum w`` and ``L_t`` the
    sum of ``w`` left of cut ``t``, cut ``t``'s two stumps have edges ``+-(T - 2 L_t)``."""
    total = 0.0
    for i in range(w.shape[0]):
        total += w[i]
    best = abs(total)  # the constants (cuts 0 and k)
    for j in range(order.shape[0]):
        s0 = soff[j]
        left = 0.0
        for t in range(1, soff[j + 1] - s0 - 1):  # interior cuts
            for idx in range(starts[s0 + t - 1], starts[s0 + t]):
                left += w[order[j, idx]]
            best = max(best, abs(total - 2.0 * left))
    return best


def stump_max_edge(tables, d: np.ndarray) -> float:
    """``max_h d @ u_h`` over the stumps of the NZDD (the edge of the best stump), in one pass
    along the presorted features: :meth:`.nzdd.NZDD.max_edge` without the generic DAG."""
    order, pos, starts, soff = tables[:4]
    return float(_max_edge(order, starts, soff, np.where(pos, d, -d)))
