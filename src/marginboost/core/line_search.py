"""Exact line search for the smoothed soft margin along a direction in margin space.

For margins ``q`` and a direction ``delta`` (e.g. ``u_new - q`` for a Frank-Wolfe step,
``u_new - u_away`` for a pairwise step), find

    lambda* = argmax_{lambda in [0, lambda_max]} rho~(q + lambda * delta)
            = argmin_{lambda in [0, lambda_max]} f~*(-(q + lambda * delta)).

``rho~`` is concave with derivative ``d(q + lambda delta) @ delta`` in ``lambda`` (envelope
theorem: ``grad rho~(q) = d(q)``), a non-increasing function. So ``lambda*`` is 0 when the
derivative is already <= 0 at 0, ``lambda_max`` when it is still >= 0 there, and otherwise the
root of the derivative, found by Brent's method. The signs are tested in
``tests/test_fw_rules.py`` against a brute-force grid, because a reversed sign here (as in
an earlier Rust implementation, design.md) silently turns every step into a full step.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq


def exact_line_search(objective, q: np.ndarray, delta: np.ndarray, lam_max: float = 1.0,
                      rtol: float = 1e-12, slope_at_zero: float | None = None) -> float:
    """Return the maximiser of ``objective.value(q + lam * delta)`` over ``[0, lam_max]``.

    ``rtol`` is the relative accuracy of the root (Brent); a loose one (1e-3) needs a few
    projections instead of ~10-15 and still ascends, since any point between 0 and the root
    improves a concave function. ``slope_at_zero`` is ``objective.distribution(q) @ delta``
    when the caller already has that distribution (it saves one projection).
    """
    if lam_max <= 0.0 or not np.any(delta):
        return 0.0
    if slope_at_zero is None:
        slope_at_zero = _slope(0.0, objective, q, delta)
    if slope_at_zero <= 0.0:
        return 0.0
    slope_at_max = _slope(lam_max, objective, q, delta)
    if slope_at_max >= 0.0:
        return float(lam_max)
    # brentq evaluates both ends again: hand it the two slopes known (each one is a projection)
    known = {0.0: slope_at_zero, float(lam_max): slope_at_max}
    # xtol relative to the interval: a Newton step can be 1e18 long (zero curvature at a vertex),
    # and an absolute 1e-14 would then exceed lam_max and return the full step
    return float(brentq(_slope, 0.0, lam_max, args=(objective, q, delta, known), xtol=1e-14 * min(1.0, lam_max),
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
