"""The average-margin oracle of Algorithm 2 (paper 003) on the stump NZDD, chains unrolled.

On the stump NZDD (:mod:`.nzdd_stumps`) weight pushing and the forward pass of Algorithm 2
have closed forms along each chain, so this kernel computes exactly what
:meth:`.nzdd.NZDD.marginals` computes, in one sweep over the presorted features and with
O(m + pm/32) instead of O(pm) exponentials. For feature ``j`` with blocks ``B_1..B_k``,
``x_i = 2 eta d_i``, ``P``/``N`` the sums of ``x`` over positives/negatives and
``D_t = sum_{b <= t} (N(B_b) - P(B_b))``, the log-weights of cut ``t`` are

    s = +1:  L_t = P(all) + D_t        s = -1:  L'_t = N(all) - D_t

and with ``M`` their maximum over the distinct paths and ``p_t = exp(L_t - M)/Z``, an example
``i`` of block ``b`` lies in the set of cut ``t`` (``s = +1``) iff it is negative and
``t >= b`` or positive and ``t < b`` (``s = -1``: the other way round), so

    r_i = Pr[i in S_h | d] = (negative)  suf_+(b) + pre_-(b)     (positive)  pre_+(b) + suf_-(b)

with ``pre(b) = sum_{t < b} p_t`` and ``suf(b) = sum_{t >= b} p_t``; ``E[u_i | d] = 2 r_i - 1``.

Numerics: ``L`` and ``D`` are double-double (as in :mod:`.nzdd`). ``exp(L_t - M)`` follows
from the previous cut by multiplying ``exp(+-x_i)`` over block ``t`` (one exp per example per
call), and is recomputed from the exact ``L_t`` every ``_RESYNC`` cuts, whenever the product
leaves (1e-280, 1] or a factor overflows, so the relative error stays below ~1e-14.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .nzdd import _LOG_TINY, _dd_add, _two_prod

__all__ = ["stump_average_margin"]

_RESYNC = 32


@njit(cache=True, inline="always")
def _acc(h, l, xh, xl):
    """Add ``xh + xl`` to the unnormalised double-double ``h + l`` (Sum2 of Ogita, Rump, Oishi
    2005): only ``h`` is on the loop's dependency chain, which keeps the prefix sums fast."""
    t = h + xh
    bb = t - h
    return t, l + ((h - (t - bb)) + (xh - bb)) + xl


@njit(cache=True)
def _max_log_weight(order, sxh, sxl, starts, soff, keep, ph, pl, nh, nl):
    """``M = max L`` over the kept candidate paths, as ``(hi, lo)``.

    ``sx = x`` on negatives and ``-x`` on positives, so ``D_t`` is a prefix sum of ``sx``.
    """
    p = order.shape[0]
    best_h = -np.inf
    best_l = 0.0
    c = 0
    for j in range(p):
        s0 = soff[j]
        k = soff[j + 1] - s0 - 1
        dh = dl = 0.0
        for t in range(k + 1):
            if t > 0:
                for idx in range(starts[s0 + t - 1], starts[s0 + t]):
                    i = order[j, idx]
                    dh, dl = _acc(dh, dl, sxh[i], sxl[i])
            if keep[c + t]:
                lh, ll = _dd_add(ph, pl, dh, dl)
                if lh + ll > best_h + best_l:
                    best_h, best_l = lh, ll
            if keep[c + k + 1 + t]:
                lh, ll = _dd_add(nh, nl, -dh, -dl)
                if lh + ll > best_h + best_l:
                    best_h, best_l = lh, ll
        c += 2 * (k + 1)
    return best_h, best_l


@njit(cache=True, inline="always")
def _advance(run, factor, t, a):
    """``exp(a)``, ``a = L_t - M``, from the previous cut's value ``run`` times ``factor`` where safe."""
    if a < _LOG_TINY:
        return 0.0
    nxt = run * factor
    if t % _RESYNC == 0 or not (1e-280 < nxt <= 1.0 + 1e-9):
        nxt = math.exp(a)
    return nxt


@njit(cache=True)
def _sweep(order, sxh, sxl, posf, starts, soff, keep, ph, pl, nh, nl, mh, ml, r, out, buf):
    """Add ``Z r`` into ``r`` (and the candidates' ``Z p`` into ``out`` if not empty); return ``Z``."""
    p = order.shape[0]
    m = sxh.shape[0]
    e_up = np.empty(m)  # exp(sx_i): the factor of L_t (s = +1) when i moves left
    e_dn = np.empty(m)
    for i in range(m):
        # exp(hi + lo) = exp(hi) (1 + lo) to double precision, lo being below ulp(hi).
        e_up[i] = math.exp(sxh[i]) * (1.0 + sxl[i])
        e_dn[i] = math.exp(-sxh[i]) * (1.0 - sxl[i])
    z = 0.0
    c = 0
    for j in range(p):
        s0 = soff[j]
        k = soff[j + 1] - s0 - 1
        dh = dl = 0.0
        run0 = run1 = 0.0
        tot0 = tot1 = 0.0
        for t in range(k + 1):
            f0 = f1 = 1.0
            if t > 0:
                for idx in range(starts[s0 + t - 1], starts[s0 + t]):
                    i = order[j, idx]
                    dh, dl = _acc(dh, dl, sxh[i], sxl[i])
                    f0 *= e_up[i]
                    f1 *= e_dn[i]
            lh, ll = _dd_add(ph, pl, dh, dl)
            run0 = _advance(run0, f0, t, (lh - mh) + (ll - ml))  # lh - mh is exact where it matters
            lh, ll = _dd_add(nh, nl, -dh, -dl)
            run1 = _advance(run1, f1, t, (lh - mh) + (ll - ml))
            buf[0, t] = run0 if keep[c + t] else 0.0
            buf[1, t] = run1 if keep[c + k + 1 + t] else 0.0
            tot0 += buf[0, t]
            tot1 += buf[1, t]
        if out.shape[0]:
            out[c:c + k + 1] = buf[0, :k + 1]
            out[c + k + 1:c + 2 * k + 2] = buf[1, :k + 1]
        z += tot0 + tot1
        pre0 = pre1 = 0.0
        for b in range(1, k + 1):
            pre0 += buf[0, b - 1]  # sum_{t < b} p_t
            pre1 += buf[1, b - 1]
            in_pos = pre0 + (tot1 - pre1)  # positives: s = +1 cuts t < b, s = -1 cuts t >= b
            in_neg = (tot0 - pre0) + pre1
            for idx in range(starts[s0 + b - 1], starts[s0 + b]):
                i = order[j, idx]
                r[i] += in_neg + posf[i] * (in_pos - in_neg)  # branch-free: labels are random
        c += 2 * (k + 1)
    return z


@njit(cache=True)
def _signed_scaled(a, d, pos):
    """``sx = a * d`` (negated on positives) exactly as double-double, and the sums ``P``, ``N`` of ``a d``."""
    m = d.shape[0]
    hi = np.empty(m)
    lo = np.empty(m)
    ph = pl = nh = nl = 0.0
    for i in range(m):
        h, l = _two_prod(a, d[i])
        if pos[i]:
            ph, pl = _dd_add(ph, pl, h, l)
            h, l = -h, -l
        else:
            nh, nl = _dd_add(nh, nl, h, l)
        hi[i] = h
        lo[i] = l
    return hi, lo, ph, pl, nh, nl


def stump_average_margin(tables, d: np.ndarray, eta: float, with_paths: bool = False):
    """``(E_h[u_h | d], F(d), Pr[candidate path | d] or None)`` on a :class:`.nzdd_stumps.StumpNZDD`.

    ``tables = (order, pos, starts, soff, keep)`` as stored there.
    """
    order, pos, starts, soff, keep = tables
    sxh, sxl, ph, pl, nh, nl = _signed_scaled(2.0 * eta, d, pos)
    mh, ml = _max_log_weight(order, sxh, sxl, starts, soff, keep, ph, pl, nh, nl)
    r = np.zeros(d.shape[0])
    out = np.zeros(keep.shape[0] if with_paths else 0)
    buf = np.empty((2, int(np.diff(soff).max())))
    z = _sweep(order, sxh, sxl, pos.astype(np.float64), starts, soff, keep, ph, pl, nh, nl, mh, ml, r, out, buf)
    value = ((mh - eta * d.sum()) + ml + math.log(z)) / eta
    return 2.0 * (r / z) - 1.0, value, (out / z if with_paths else None)
