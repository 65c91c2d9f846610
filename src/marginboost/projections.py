"""Projections onto the (capped) probability simplex.

Notation (design.md): ``m`` examples, capped simplex

    P(m, nu) = {d in [0, 1/nu]^m : sum_i d_i = 1},   1 <= nu <= m.

Two projections are provided, both in O(m log m) by sorting:

* :func:`capped_simplex_kl_projection` -- the distribution of the entropy-smoothed soft
  margin (paper 000, Algorithm 1 line 5; Shalev-Shwartz and Singer 2010)::

      d(q) = argmin_{d in P(m, nu)}  d @ q + (1/eta) * sum_i d_i ln d_i
           = grad f~*(-q),

  i.e. the relative-entropy projection of ``softmax(-eta q)`` onto P(m, nu). The solution
  caps the ``k`` examples of smallest margin at ``1/nu`` and spreads the remaining mass
  ``1 - k/nu`` over the others proportionally to ``exp(-eta q_i)``; ``k`` is the smallest
  count for which no uncapped entry exceeds the cap. Computed in log space, so ``eta`` of
  1e6 and more neither overflows nor underflows to a wrong support.

* :func:`capped_simplex_euclidean_projection` -- ``argmin_{d in P(m, nu)} ||d - v||_2^2``,
  which is ``clip(v - tau, 0, 1/nu)`` with the scalar ``tau`` chosen so that the entries sum
  to one; ``tau`` is found exactly by sweeping the sorted breakpoints of that piecewise-linear
  sum. :func:`box_capped_simplex_euclidean_projection` is the same sweep with one cap per
  example (MABoost's combined-datasets variant, :mod:`.bregman`).
"""
from __future__ import annotations

import numpy as np


def _check_nu(nu: float, m: int) -> None:
    if not (1.0 <= nu <= m):
        raise ValueError(f"nu must lie in [1, m] = [1, {m}], got {nu!r}")


def capped_simplex_kl_projection(
    q: np.ndarray, nu: float, eta: float, weights: np.ndarray | None = None
) -> np.ndarray:
    """Return ``argmin_{d in P(m, nu)} d @ q + (1/eta) sum_i d_i ln d_i``.

    Parameters
    ----------
    q : array of shape (m,)
        Margins ``U @ w`` of the current ensemble.
    nu : float in [1, m]
        Capping parameter; every ``d_i <= 1/nu``.
    eta : float > 0
        Inverse temperature of the entropy regulariser.
    weights : array of shape (m,), positive, summing to m, optional
        Example weights ``s`` (sample weights scaled to mean 1). They make example ``i`` count
        as ``s_i`` copies: caps become ``s_i/nu`` and the entropy is relative to ``s/m``,
        ``d_i = min(s_i/nu, Z s_i exp(-eta q_i))``. Since ``d_i / cap_i`` is still ordered by
        ``q``, the same sort finds the capped set.
    """
    q = np.asarray(q, dtype=np.float64)
    m = q.shape[0]
    _check_nu(nu, m)
    if not eta > 0:
        raise ValueError(f"eta must be > 0, got {eta!r}")
    # Largest log-weight first: the examples with the smallest margins are the ones capped.
    order = np.argsort(q, kind="stable")
    a = -eta * q[order]
    a -= a[0]  # shift so the largest log-weight is 0 (exactness of the log-sum-exp)
    if weights is None:
        caps = np.full(m, 1.0 / nu)
        log_s = 0.0
    else:
        s = np.asarray(weights, dtype=np.float64)[order]
        caps = s / nu
        log_s = np.log(s)
        a = a + log_s
    # suffix_lse[k] = log sum_{i >= k} exp(a_i): log-normaliser when the first k are capped.
    suffix_lse = np.logaddexp.accumulate(a[::-1])[::-1]
    capped_mass = np.concatenate([[0.0], np.cumsum(caps)])
    # k capped examples must leave positive mass for the others.
    n_cappable = min(m, int(np.searchsorted(capped_mass, 1.0 - 1e-15, side="left")))
    n_cappable = max(n_cappable, 1)
    k = np.arange(n_cappable)
    free_mass = np.clip(1.0 - capped_mass[k], 1e-300, None)
    # The largest uncapped ratio d_i / cap_i (at i = k, the smallest uncapped margin) must be <= 1.
    log_s_k = log_s[k] if weights is not None else 0.0
    ratio = np.log(free_mass) + a[k] - suffix_lse[k] - (log_s_k - np.log(nu))
    feasible = ratio <= 1e-12
    if not feasible.any():  # only through rounding when P(m, nu) is (nearly) a single point
        k_star = n_cappable - 1
    else:
        k_star = int(np.argmax(feasible))
    d_sorted = np.empty(m)
    d_sorted[:k_star] = caps[:k_star]
    d_sorted[k_star:] = (1.0 - capped_mass[k_star]) * np.exp(a[k_star:] - suffix_lse[k_star])
    np.minimum(d_sorted, caps, out=d_sorted)
    d = np.empty(m)
    d[order] = d_sorted
    return d


def capped_simplex_euclidean_projection(v: np.ndarray, nu: float) -> np.ndarray:
    """Return ``argmin_{d in P(m, nu)} ||d - v||_2^2`` (with ``nu = 1``: the simplex)."""
    v = np.asarray(v, dtype=np.float64)
    m = v.shape[0]
    _check_nu(nu, m)
    return _euclidean_capped(v, 1.0 / nu)


def box_capped_simplex_euclidean_projection(v: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Return ``argmin ||d - v||_2^2`` over ``{d : 0 <= d_i <= caps_i, sum_i d_i = 1}``.

    Per-example caps (``caps_i >= 1`` leaves example ``i`` uncapped); the set is non-empty
    iff ``sum_i min(caps_i, 1) >= 1``. Same breakpoint sweep as the uniform cap, O(m log m).
    """
    v = np.asarray(v, dtype=np.float64)
    caps = np.minimum(np.asarray(caps, dtype=np.float64), 1.0)
    # 1e-12: m copies of 1/m may sum to just below 1
    if caps.shape != v.shape or not np.all(caps >= 0.0) or caps.sum() < 1.0 - 1e-12:
        raise ValueError(f"caps must be {v.shape[0]} values in [0, 1] with sum >= 1")
    return _euclidean_capped(v, caps)


def _euclidean_capped(v: np.ndarray, cap) -> np.ndarray:
    """The sweep behind both Euclidean projections; ``cap`` a scalar or one cap per entry."""
    m = v.shape[0]
    # g(tau) = sum_i clip(v_i - tau, 0, cap_i) decreases piecewise linearly from sum cap >= 1
    # to 0; its slope is minus the number of entries strictly between their two breakpoints
    # (v_i - cap_i and v_i). Sweep the sorted breakpoints to find g(tau) = 1 exactly.
    points = np.concatenate([v - cap, v])
    steps = np.concatenate([np.ones(m), -np.ones(m)])  # entry starts / stops sliding
    # Any sort will do: within a run of equal points the drops are 0, so g, tau and the
    # result do not depend on the order of ties (quicksort is ~4x faster than stable here).
    order = np.argsort(points)
    points, steps = points[order], steps[order]
    n_sliding = np.cumsum(steps)[:-1]  # entries sliding on the segment after each point
    drops = n_sliding * np.diff(points)
    # A scalar cap keeps the historical m * cap (bit-identical results for P(m, nu)).
    total = m * cap if np.ndim(cap) == 0 else cap.sum()
    g = total - np.concatenate([[0.0], np.cumsum(drops)])
    seg = int(np.searchsorted(-g, -1.0, side="left"))  # first breakpoint where g <= 1
    if seg == 0:
        tau = points[0]
    else:
        slope = n_sliding[seg - 1]
        tau = points[seg - 1] + (g[seg - 1] - 1.0) / slope
    return np.clip(v - tau, 0.0, cap)


def simplex_euclidean_projection(v: np.ndarray) -> np.ndarray:
    """Return the Euclidean projection of ``v`` onto the probability simplex."""
    return capped_simplex_euclidean_projection(v, 1.0)
