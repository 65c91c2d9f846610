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

import math

import numpy as np
from numba import njit

from marginboost.average_margin.nzdd import LOG_TINY, dd_add, two_prod, two_sum

__all__ = ["cut_codes", "stump_average_margin", "stump_max_edge"]

_SEGMENT = 256  # cuts per segment at most: one exact exp per segment and orientation
_SPAN = 340.0  # the log-weight moves by at most this along a segment: exp(-2 _SPAN) is normal
_HEADROOM = 150.0  # R is raised to max L + _HEADROOM: values stay below exp(_SPAN)
_KEPT_FLOOR = 2.0 * 2.2250738585072014e-308  # 2^-1021: no product falls below it (module docstring)

# exp(+-r) = E(r^2) +- r O(r^2), the degree-13 Taylor polynomial's even and odd parts, highest
# coefficient first (Horner in r^2); ln 2 split for Cody-Waite reduction.
_EXP_EVEN = tuple(1.0 / math.factorial(k) for k in range(12, -1, -2))
_EXP_ODD = tuple(1.0 / math.factorial(k) for k in range(13, 0, -2))
_LN2_HI = 6.93147180369123816490e-01  # trailing zeros: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00

# cut_codes: what ends at a presorted position
_KEEP_POS = 1  # cut kept for s = +1
_KEEP_NEG = 2  # cut kept for s = -1
_CUT = 4  # a block ends here (the sweep adds code >> 2 to the cut counter)


@njit(cache=True, inline="always")
def _segment_start(a):
    """``(exp(a), base, rel)`` at a restart, ``a`` exact: the segment's later values are
    ``base * rel * (factors)`` with the factors' product in ``[exp(-_SPAN), exp(_SPAN)]``, so
    ``rel`` stays in ``[exp(-2 _SPAN), exp(_SPAN)]`` (no subnormal, no overflow) and ``base`` is
    normal or 0 (the whole segment below ``exp(LOG_TINY)``)."""
    if a + _SPAN < LOG_TINY:
        return 0.0, 0.0, 1.0
    q = math.exp(a) if a >= LOG_TINY else 0.0
    if a >= LOG_TINY:
        return q, q, 1.0
    return q, math.exp(LOG_TINY), math.exp(a - LOG_TINY)


@njit(cache=True, inline="always")
def _kept_ratio(base):
    """``lo``: ``base * rel`` is below ``_KEPT_FLOOR`` for ``rel < lo`` (and 0 for ``base = 0``), and
    ``base * lo`` is at least ``_KEPT_FLOOR`` up to one rounding, a normal number: ``base <= 1``."""
    return _KEPT_FLOOR / base if base > 0.0 else 1.0


@njit(cache=True)
def _restart(dh, dl, ph, pl, nh, nl, ref, racc, out):
    """Exact ``exp(L - R)`` for both orientations where ``D = dh + dl`` (exact), ``R`` raised
    first if needed (``racc`` and ``out`` are rescaled in place, the caller rescales its scalars
    by ``scale``), and what the segment's products start from.

    Returns ``(q0, q1, base0, rel0, base1, rel1, ref, scale)``.
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
    q0, base0, rel0 = _segment_start(a0)
    q1, base1, rel1 = _segment_start(a1)
    return q0, q1, base0, rel0, base1, rel1, ref, scale


@njit(cache=True)
def _sum_abs(d):
    """``sum |d_i|`` in four interleaved sums (a bound is all that is needed, not the order)."""
    m = d.shape[0]
    a0 = a1 = a2 = a3 = 0.0
    for i in range(0, m - 3, 4):
        a0 += abs(d[i])
        a1 += abs(d[i + 1])
        a2 += abs(d[i + 2])
        a3 += abs(d[i + 3])
    for i in range(m - m % 4, m):
        a0 += abs(d[i])
    return (a0 + a1) + (a2 + a3)


@njit(cache=True)
def _example_table(a, d, sign):
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
    m = d.shape[0]
    total = _sum_abs(d) * abs(a) * (1.0 + 1e-12)  # above the exact sum of |x_i|
    q = 1.0 if total == 0.0 else math.ldexp(1.0, max(math.frexp(total)[1] - 51, -1000))
    inv_q = 1.0 / q  # a power of two: scaling by it is exact
    n_ = np.empty(m)
    res = np.empty(m)
    e_pos = np.empty(m)
    e_neg = np.empty(m)
    bits_pos = np.empty(m, np.int64)
    bits_neg = np.empty(m, np.int64)
    for i in range(m):
        h, l = two_prod(a, d[i])
        h *= sign[i]
        l *= sign[i]
        n = np.rint(h * inv_q)
        n_[i] = n
        res[i] = (h - n * q) + l  # h - n q is exact (|.| <= q/2, a multiple of ulp(h))
        v = min(max(h, -700.0), 700.0)
        k = np.rint(v * _INV_LN2)
        r = (v - k * _LN2_HI) - k * _LN2_LO  # k * _LN2_HI is exact for |k| < 2^11
        r2 = r * r
        even = _EXP_EVEN[0]
        for c in _EXP_EVEN[1:]:
            even = even * r2 + c
        odd = _EXP_ODD[0]
        for c in _EXP_ODD[1:]:
            odd = odd * r2 + c
        odd *= r
        e_pos[i] = (even + odd) * (1.0 + l)  # exp(hi + lo), lo being below ulp(hi)
        e_neg[i] = (even - odd) * (1.0 - l)
        ki = np.int64(k)
        bits_pos[i] = (ki + 1023) << 52  # the bits of 2^k and 2^-k, normal doubles
        bits_neg[i] = (1023 - ki) << 52
    scale_pos = bits_pos.view(np.float64)
    scale_neg = bits_neg.view(np.float64)
    rec = np.empty((m, 4))
    tn = tr = sn = sr = 0.0
    for i in range(m):
        rec[i, 0] = n_[i]
        rec[i, 1] = res[i]
        rec[i, 2] = e_pos[i] * scale_pos[i]
        rec[i, 3] = e_neg[i] * scale_neg[i]
        sn += n_[i]
        sr += res[i]
        tn += sign[i] * n_[i]
        tr += sign[i] * res[i]
    ph, pl = two_sum(q * (0.5 * (tn - sn)), 0.5 * (tr - sr))
    nh, nl = two_sum(q * (0.5 * (tn + sn)), 0.5 * (tr + sr))
    return rec, ph, pl, nh, nl, q


@njit(cache=True)
def _sweep(order, codes, rec, q, starts, soff, keep, ph, pl, nh, nl, racc, out):
    """The sweep along every feature (module docstring). Adds ``sum_j delta_j`` into ``racc``
    and, with ``out`` non-empty, the candidates' ``Z p`` into ``out``; returns
    ``(R, Z, tot_-, tot_+)``, all relative to ``exp(R)``."""
    p, m = order.shape
    with_out = out.shape[0] > 0
    n_span = _SPAN / q - m  # |n - n0| <= n_span: the log-drift, q |n - n0| + sum |res|, < _SPAN
    ref = 0.0
    z = r_pos = r_neg = 0.0
    c = 0
    for j in range(p):
        s0 = soff[j]
        k = soff[j + 1] - s0 - 1
        c1 = c + k + 1  # candidates of s = -1
        nsum = rsum = 0.0  # D = q nsum + rsum
        pre0, pre1, base0, rel0, base1, rel1, ref, scale = _restart(0.0, 0.0, ph, pl, nh, nl, ref, racc, out)
        lo0 = _kept_ratio(base0)
        lo1 = _kept_ratio(base1)
        z *= scale
        r_pos *= scale
        r_neg *= scale
        pre0 = pre0 if keep[c] else 0.0
        pre1 = pre1 if keep[c1] else 0.0
        if with_out:
            out[c] = pre0
            out[c1] = pre1
        delta = pre0 - pre1
        n0 = 0.0
        stop = starts[s0 + min(_SEGMENT, k)] - 1
        t = 1  # the cut at the end of the current block
        for idx in range(m):
            i = np.uint64(order[j, idx])  # unsigned: no test for a negative index
            racc[i] += delta
            nsum += rec[i, 0]  # exact: integers below 2^53
            rsum += rec[i, 1]
            rel0 *= rec[i, 2]
            rel1 *= rec[i, 3]
            code = codes[j, idx]
            if idx == stop or abs(nsum - n0) > n_span:  # the segment's end, or the span left
                if code & _CUT:  # a cut: its exact values, R raised if needed
                    q0, q1, base0, rel0, base1, rel1, ref, scale = _restart(
                        q * nsum, rsum, ph, pl, nh, nl, ref, racc, out)
                    z *= scale
                    r_pos *= scale
                    r_neg *= scale
                    pre0 *= scale
                    pre1 *= scale
                    stop = starts[s0 + min(t + _SEGMENT, k)] - 1
                    lo0 = _kept_ratio(base0)
                    lo1 = _kept_ratio(base1)
                else:  # inside a block of ties, whose values are not used: restart at its end
                    q0 = q1 = base0 = base1 = 0.0
                    rel0 = rel1 = 1.0
                    lo0 = lo1 = 1.0
                    stop = starts[s0 + t] - 1
                n0 = nsum
            else:  # no subnormal product: a value below _KEPT_FLOOR is raised to about it
                q0 = base0 * max(rel0, lo0)
                q1 = base1 * max(rel1, lo1)
            # Only kept cuts count, only at a block's end. A product, not a branch: with ties
            # the codes are irregular. q0, q1 are finite here: the log-drift since the last
            # restart is below _SPAN, so no factor was clamped and rel0, rel1 are normal.
            q0 *= code & _KEEP_POS
            q1 *= (code & _KEEP_NEG) >> 1
            if with_out and code & _CUT:  # a path's probability: 0 where raised
                out[c + t] = q0 if rel0 >= lo0 else 0.0
                out[c1 + t] = q1 if rel1 >= lo1 else 0.0
            t += code >> 2
            pre0 += q0
            pre1 += q1
            delta = pre0 - pre1
        r_neg += pre0
        r_pos += pre1
        z += pre0 + pre1
        c += 2 * (k + 1)
    return ref, z, r_pos, r_neg


@njit(cache=True)
def cut_codes(order, starts, soff, keep):
    """Per presorted position ``(j, idx)``: ``_CUT`` if a block of feature ``j`` ends there, plus
    ``_KEEP_POS`` / ``_KEEP_NEG`` if that cut's path is kept for ``s = +1`` / ``s = -1``."""
    p, m = order.shape
    codes = np.zeros((p, m), np.uint8)
    c = 0
    for j in range(p):
        s0 = soff[j]
        k = soff[j + 1] - s0 - 1
        c1 = c + k + 1
        for t in range(1, k + 1):
            codes[j, starts[s0 + t] - 1] = (_CUT | (_KEEP_POS if keep[c + t] else 0)
                                            | (_KEEP_NEG if keep[c1 + t] else 0))
        c += 2 * (k + 1)
    return codes


@njit(cache=True)
def _oracle(order, codes, pos, sign, starts, soff, keep, d, eta, with_paths):
    rec, ph, pl, nh, nl, q = _example_table(2.0 * eta, d, sign)
    m = d.shape[0]
    racc = np.zeros(m)
    out = np.zeros(keep.shape[0] if with_paths else 0)
    ref, z, r_pos, r_neg = _sweep(order, codes, rec, q, starts, soff, keep, ph, pl, nh, nl, racc, out)
    g = np.empty(m)
    two_over_z = 2.0 / z
    for i in range(m):  # a select and sign[i] (-1 on positives), no branch: it vectorises
        g[i] = ((r_pos if pos[i] else r_neg) - sign[i] * racc[i]) * two_over_z - 1.0
    # F = (R + ln Z - eta sum d) / eta, the large parts cancelling first.
    value = ((ref - eta * d.sum()) + math.log(z)) / eta
    out /= z
    return g, value, out


def stump_average_margin(tables, d: np.ndarray, eta: float, with_paths: bool = False):
    """``(E_h[u_h | d], F(d), Pr[candidate path | d] or None)`` on a :class:`marginboost.average_margin.nzdd_stumps.StumpNZDD`.

    ``tables = (order, pos, starts, soff, keep, codes, sign)`` as stored there (``codes`` from
    :func:`cut_codes`, ``sign = where(pos, -1, 1)``).
    """
    order, pos, starts, soff, keep, codes, sign = tables
    g, value, out = _oracle(order, codes, pos, sign, starts, soff, keep, d, float(eta), with_paths)
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
    along the presorted features: :meth:`marginboost.average_margin.nzdd.NZDD.max_edge` without the generic DAG."""
    order, pos, starts, soff = tables[:4]
    return float(_max_edge(order, starts, soff, np.where(pos, d, -d)))
