"""Exact line search for the smoothed soft margin along a direction in margin space.

For margins ``q`` and a direction ``delta`` (e.g. ``u_new - q`` for a Frank-Wolfe step,
``u_new - u_away`` for a pairwise step), find

    lambda* = argmax_{lambda in [0, lambda_max]} rho~(q + lambda * delta)
            = argmin_{lambda in [0, lambda_max]} f~*(-(q + lambda * delta)).

``rho~`` is concave with derivative ``d(q + lambda delta) @ delta`` in ``lambda`` (envelope
theorem: ``grad rho~(q) = d(q)``), a non-increasing function. So ``lambda*`` is 0 when the
derivative is already <= 0 at 0, ``lambda_max`` when it is still >= 0 there, and otherwise the
root of the derivative. Two searches find it:

* :func:`exact_line_search`: Brent's method on the slope (any objective with ``distribution``;
  FWBoost's losses use it);
* :func:`newton_line_search`: Newton and secant steps from slopes *and curvatures*
  (``objective.slope_curvature``, the smoothed soft margin), with the distribution of the point
  returned; the soft-margin FW rules, the Newton rule and ERLPBoost's master use it. Measured
  (issue 17): 5 instead of 10-11 projections a round for the FW line-search and pairwise rules
  (rtol 1e-12), 2-3 instead of 5-6 for the Newton rule (rtol 0.1), ERLPBoost's master 5% faster
  with the same rounds.

The signs are tested in ``tests/test_fw_rules.py`` and ``tests/test_newton_line_search.py``
against a brute-force grid, because a reversed sign here (as in the line search of
miniboosts 0.4, the Rust crate of the authors of paper 000) silently turns every step into a
full step.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from marginboost.core.example_vectors import ExampleVector


def exact_line_search(objective, q: np.ndarray, delta: np.ndarray, lam_max: float = 1.0,
                      rtol: float = 1e-12, slope_at_zero: float | None = None) -> float:
    """Return the maximiser of ``objective.value(q + lam * delta)`` over ``[0, lam_max]``.

    ``rtol`` is the relative accuracy of the root (Brent); a loose one (1e-3) needs a few
    projections instead of ~10-15 and still ascends, since any point between 0 and the root
    improves a concave function. ``slope_at_zero`` is ``objective.distribution(q) @ delta``
    when the caller already has that distribution (it saves one projection).
    """
    # delta = 0 has slope 0: no step. (A vector kept on a cluster is not tested here, which would
    # cost a pass over its blocks: its slope at 0, taken next, is 0 then.)
    if lam_max <= 0.0 or (not isinstance(delta, ExampleVector) and not np.any(delta)):
        return 0.0
    if slope_at_zero is None:
        slope_at_zero = _slope(0.0, objective, q, delta)
    if slope_at_zero <= 0.0:
        return 0.0
    slope_at_max = _slope(lam_max, objective, q, delta)
    if slope_at_max >= 0.0:
        return float(lam_max)
    return _brent(objective, q, delta, 0.0, float(lam_max), slope_at_zero, slope_at_max, rtol)


def newton_line_search(objective, q: np.ndarray, d: np.ndarray, delta: np.ndarray, lam_max: float,
                       rtol: float = 1e-12, max_iter: int = 100) -> tuple[float, np.ndarray, np.ndarray]:
    """The maximiser of ``objective.value(q + lam * delta)`` over ``[0, lam_max]``, as
    :func:`exact_line_search`, from slopes and curvatures; returns ``(lam, q + lam delta, d there)``.

    ``d`` is ``objective.distribution(q)``; ``objective.slope_curvature(d, delta)`` gives the slope
    and curvature of ``phi(lam) = rho~(q + lam delta)`` at a point whose distribution is known, and
    ``objective.distribution_along(q, lam, delta)`` the point ``q + lam delta``, its distribution,
    slope and curvature, so each point tried costs one projection (the sums summed inside it).
    The first point is the Newton point ``-phi'(0)/phi''(0)`` (or ``lam_max``). While no point of
    negative slope is known, the next is the Newton point of the last (at most ``lam_max``); once
    the root is bracketed by ``lo`` (``phi' > 0``) and ``hi`` (``phi' < 0``), the secant root of
    their slopes, with the Illinois rule (the slope of an end kept twice in a row is halved)
    against the one-sided stalls of regula falsi on a kinked slope. It returns the last point
    tried once its distance to the next estimate of the root (the secant root of the bracket;
    before a bracket, the Newton step with the flatter of its own and the secant curvature) is at
    most ``rtol`` times its ``lam``, or the bracket is narrower than that.

    A Newton direction of ``rho~(U w)`` overshoots the maximum along it by about 2x at ``eps = 0.01``
    (the curvature doubles on the way: examples reach their caps), and the secant root of 0 and
    the Newton point then lands within a few percent of it: two projections, where Brent at
    ``rtol = 0.1`` (one evaluation at ``lam_max``, three or four inside, one for the caller's
    distribution) took about five. The distribution at the point returned comes with it.
    """
    slope, curvature = objective.slope_curvature(d, delta)
    if lam_max <= 0.0 or slope <= 0.0:  # (a slope > 0 has some delta_i != 0: no np.any, 3 us)
        return 0.0, q, d
    lam_max = float(lam_max)
    lo, slope_lo, point_lo = 0.0, slope, (q, d)
    hi, slope_hi = lam_max, None  # phi'(hi) < 0 once a point past the root is known
    x, slope_x = 0.0, slope  # the last point tried
    lam = min(slope / -curvature, lam_max) if curvature < 0.0 else lam_max
    kept = 0  # +1: lo was kept (hi moved) in the last update; -1: hi was kept
    for _ in range(max_iter):
        q_lam, d_lam, slope_lam, curvature_lam = objective.distribution_along(q, lam, delta)
        if slope_lam == 0.0 or (slope_lam > 0.0 and lam >= lam_max):
            return lam, q_lam, d_lam
        secant_curvature = (slope_lam - slope_x) / (lam - x) if lam != x else curvature_lam
        if slope_lam > 0.0:
            if kept == -1 and slope_hi is not None:
                slope_hi *= 0.5
            lo, slope_lo, point_lo, kept = lam, slope_lam, (q_lam, d_lam), -1
        else:
            if kept == 1:
                slope_lo *= 0.5
            hi, slope_hi, kept = lam, slope_lam, 1
        x, slope_x = lam, slope_lam
        if slope_hi is None:  # still ascending: Newton with the flatter curvature estimate
            flatter = max(curvature_lam, secant_curvature)
            estimate = lam + slope_lam / -flatter if flatter < 0.0 else np.inf
            if estimate - lam <= rtol * lam:
                return lam, q_lam, d_lam
            lam = min(lam + slope_lam / -curvature_lam if curvature_lam < 0.0 else np.inf, lam_max)
        else:
            estimate = lo + (hi - lo) * slope_lo / (slope_lo - slope_hi)
            if abs(estimate - lam) <= rtol * lam or hi - lo <= rtol * hi:
                return lam, q_lam, d_lam
            lam = estimate if lo < estimate < hi else 0.5 * (lo + hi)
    return lo, point_lo[0], point_lo[1]


def _brent(objective, q, delta, lo, hi, slope_lo, slope_hi, rtol):
    """Brent's root in ``[lo, hi]`` of the slope, which changes sign there (both ends' slopes known)."""
    # brentq evaluates both ends again: hand it the two slopes known (each one is a projection)
    known = {lo: slope_lo, hi: slope_hi}
    # xtol relative to the interval: a Newton step can be 1e18 long (zero curvature at a vertex),
    # and an absolute 1e-14 would then exceed lam_max and return the full step
    return float(brentq(_slope, lo, hi, args=(objective, q, delta, known), xtol=1e-14 * min(1.0, hi),
                        rtol=rtol, maxiter=200))


def _slope(lam: float, objective, q: np.ndarray, delta: np.ndarray, known: dict | None = None) -> float:
    """``d/dlam rho~(q + lam delta) = d(q + lam delta) @ delta`` (or its value in ``known``).

    A module-level function, not a closure: a closure passed to ``brentq`` forms a reference
    cycle that kept ``q`` and ``delta`` (two length-m arrays) alive until the next garbage
    collection, 1.8x the size of X at m = 10^6.
    """
    if known is not None and lam in known:
        return known[lam]
    return float(objective.distribution(q + lam * delta) @ delta)
