"""Projections onto the (capped) probability simplex.

Notation (docs/notation.rst): ``m`` examples, capped simplex

    P(m, nu) = {d in [0, 1/nu]^m : sum_i d_i = 1},   1 <= nu <= m.

Two projections are provided:

* :func:`capped_simplex_kl_projection` -- the distribution of the entropy-smoothed soft
  margin (paper 000, Algorithm 1 line 5; Shalev-Shwartz and Singer 2010)::

      d(q) = argmin_{d in P(m, nu)}  d @ q + (1/eta) * sum_i d_i ln d_i
           = grad f~*(-q),

  i.e. the relative-entropy projection of ``softmax(-eta q)`` onto P(m, nu). The solution
  caps the ``k`` examples of smallest margin at ``1/nu`` and spreads the remaining mass
  ``1 - k/nu`` over the others proportionally to ``exp(-eta q_i)``; ``k`` is the smallest
  count for which no uncapped entry exceeds the cap. Found by selection in expected O(m),
  no sort; every mass is taken at a scale where it neither overflows nor underflows to a
  wrong support or value, ``eta`` of 1e6 and more included.

* :func:`capped_simplex_euclidean_projection` -- ``argmin_{d in P(m, nu)} ||d - v||_2^2``,
  which is ``clip(v - tau, 0, 1/nu)`` with the scalar ``tau`` chosen so that the entries sum
  to one; ``tau`` is found exactly by sweeping the sorted breakpoints of that piecewise-linear
  sum, in O(m log m). :func:`box_capped_simplex_euclidean_projection` is the same sweep with
  one cap per example (MABoost's combined-datasets variant, :mod:`marginboost.mirror.bregman`), and
  :func:`weighted_box_capped_simplex_euclidean_projection` with example weights (copies).
"""
from __future__ import annotations

import math

import numpy as np

# The loops, compiled ahead of time (``_projections.pyx``); the names are this module's as before.
from marginboost.core._projections import (  # noqa: F401 (re-exported)
    _breakpoint_tau,
    _kl_capped,
    _suffix_logaddexp,
    slope_curvature_sums,
)


def _check_nu(nu: float, m: int) -> None:
    if not (1.0 <= nu <= m):
        raise ValueError(f"nu must lie in [1, m] = [1, {m}], got {nu!r}")


def capped_simplex_kl_projection(
    q: np.ndarray, nu: float, eta: float, weights: np.ndarray | None = None
) -> np.ndarray:
    """Return ``argmin_{d in P(m, nu)} d @ q + (1/eta) sum_i d_i ln d_i``.

    Paper 000, Algorithm 1 line 5 (the projection of Shalev-Shwartz and Singer 2010). The
    solution is ``d_i = min(cap_i, Z s_i exp(-eta q_i))`` with ``Z`` such that ``sum d = 1``:
    the examples of smallest margin are capped, the rest share the remaining mass. Found in
    expected O(m) by selection rather than sorting (see :func:`_kl_capped`); entries agree with
    the exact solution to about 1e-13 relative for any ``eta`` (1e6 and more included).

    Parameters
    ----------
    q : array of shape (m,)
        Margins ``U @ w`` of the current ensemble.
    nu : float in [1, m]
        Capping parameter; every ``d_i <= 1/nu``.
    eta : float > 0, finite
        Inverse temperature of the entropy regulariser. Any finite value works (1e300
        included); ``inf`` is refused: ``0 * inf`` makes the masses NaN (all zero, or a
        division by zero).
    weights : array of shape (m,), positive, summing to m, optional
        Example weights ``s`` (sample weights scaled to mean 1). They make example ``i`` count
        as ``s_i`` copies: caps become ``s_i/nu`` and the entropy is relative to ``s/m``,
        ``d_i = min(s_i/nu, Z s_i exp(-eta q_i))``. Since ``d_i / cap_i`` is still ordered by
        ``q``, the capped set is still the examples of smallest margin.
    """
    return kl_projection_and_value(q, nu, eta, weights)[0]


def kl_projection_and_value(
    q: np.ndarray, nu: float, eta: float, weights: np.ndarray | None = None, delta: np.ndarray | None = None
) -> tuple[np.ndarray, float, tuple[float, float, float, float] | None]:
    """:func:`capped_simplex_kl_projection` of ``q`` with what its last pass over the examples gives
    besides: ``(d, value, sums)``.

    ``value`` is the smoothed soft margin ``rho~(q) = d @ q + Delta(d) / eta`` in closed form (see
    :func:`_kl_capped`; as close to it as the two sums come, without their two passes), or NaN
    where some entries of ``d`` were finished on a second scale (an ``eta`` times the spread of
    ``q`` beyond ~900).

    ``sums`` (None without ``delta``) are what a line search along ``delta`` needs at ``q``:
    ``(slope, sq, lin, mass)``, ``slope = sum_i d_i delta_i`` over all examples, and over the free
    ones (``d_i < cap_i (1 - 1e-12)``) ``sq = sum d delta^2``, ``lin = sum d delta`` and ``mass =
    sum d``, each summed in increasing ``i`` as :func:`slope_curvature_sums` sums them, so the same
    bits. They are summed while ``d`` is written, where a pass of their own cost about 10 us at
    m = 7400, a third of a projection (issue 17); only when some entries of ``d`` are finished
    after that pass (a second scale) is the separate pass taken.
    """
    if delta is None:
        d, _, value = _projection(q, nu, eta, weights, None)
        return d, value, None
    delta = np.require(delta, dtype=np.float64, requirements=["C"])
    if delta.shape != np.shape(q):
        raise ValueError(f"delta must have the shape of q {np.shape(q)}, got {delta.shape}")
    d, sums, value = _projection(q, nu, eta, weights, delta)
    return d, value, sums


def _projection(q, nu, eta, weights, delta):
    """``(d, sums, value)`` of :func:`_kl_capped`, the arguments checked and converted."""
    q = np.require(q, dtype=np.float64, requirements=["C"])
    m = q.shape[0]
    _check_nu(nu, m)
    if not 0 < eta < math.inf:
        raise ValueError(f"eta must be a finite number > 0, got {eta!r}")
    if weights is None:
        return _kl_capped(q, float(eta), float(nu), None, False, delta, m <= _SPLIT_FIRST_LEVEL)
    s = np.require(weights, dtype=np.float64, requirements=["C"])
    return _kl_capped(q, float(eta), float(nu), s, True, delta, m <= _SPLIT_FIRST_LEVEL)


# Up to this many examples the first level writes both its sides (``split`` of _kl_capped). Under
# numba that saved the pass copying the side kept (5 of 40 us at m = 7400, up to 2^17 examples);
# compiled by gcc, the level that writes nothing and the copy after it are faster at every size
# measured (500 to 10^5 examples, 3-10%), so none does. The same bits either way (tested).
_SPLIT_FIRST_LEVEL = 0

# The capped-simplex KL projection's kernel, ``_kl_capped(q, eta, nu, s, weighted, delta, split)``
# (compiled, ``_projections.pyx``, which also holds its constants: the scales e^500, the floor
# e^-500 of exp's arguments, the chunks of 1024 examples of the first level's exp):
#
#   The capped-simplex KL projection by quickselect on the capped set (expected O(m)), and, for a
#   non-empty ``delta``, the sums of :func:`slope_curvature_sums` at it (zeros otherwise), and the
#   smoothed soft margin there in closed form (NaN where some entries needed a second scale).
#   ``split``: how the first level keeps its undecided examples (see the comment in the kernel;
#   the result does not depend on it).
#
#   The closed form: with ``p_i = s_i / m``, a free ``d_i = F s_i exp(-eta q_i - t) / S`` gives
#   ``d_i q_i + d_i ln(d_i / p_i) / eta = d_i (ln F + ln m - ln S - t) / eta`` (the ``q_i`` cancel),
#   and a capped ``d_i = s_i / nu`` gives ``d_i q_i + d_i ln(m / nu) / eta``; so
#   ``rho~(q) = sum_capped d_i q_i + ((1 - F) ln(m / nu) + F (ln F + ln m - ln S - t)) / eta``, from
#   one sum over the capped examples taken while ``d`` is written, where ``d @ q`` and
#   ``sum d ln d`` cost two passes (about 8 us at m = 7400, twice a Newton round; issue 17). Its
#   error is mostly that of ``S`` (a sum of up to m masses), which the entries of ``d`` and so the
#   two sums carry as well: against a 50-digit evaluation at the returned ``d``, no further than
#   twice theirs, closer in the median (tested).
#
#   With ``cap_i = s_i/nu``, capping the examples of margin below some value leaves mass
#   ``F = (nu - sum_capped s_i)/nu`` for the others, ``d_i = F w_i / S`` with masses
#   ``w_i = s_i exp(-eta q_i - t)`` (at any scale ``t``) and ``S`` the sum of the free ones'.
#   Example ``p`` is capped iff its ratio ``d_p / cap_p`` exceeds 1 when every example of
#   smaller margin is capped; that test is monotone in ``q_p`` (capping an example above its
#   cap lowers ``S / F``, which raises every other ratio), so a quickselect finds the boundary:
#   a pivot ``p`` splits the undecided examples into smaller (G), equal (E) and larger (L)
#   margins; if ``p`` is capped so are G and E (ties share one ratio) and L is left undecided,
#   else E and L are free and G is left. Each level needs only the caps of G and the masses of
#   E, L and the examples already free: nothing is sorted.
#
#   A scale is ``t - shift``: the first level computes the masses once at
#   ``max_j(-eta q_j) - 500`` (shift 500, applied after the subtraction so that it costs no
#   digits). A level where the mass at or below its pivot is tiny at the current scale (all of
#   it more than ~440 below, as when ``eta * spread`` exceeds ~940) recomputes the masses of E
#   and L relative to the pivot (shift 0), and keeps them if the pivot is capped (what is left
#   lies below it). So underflow, even of the whole free mass, changes no decision and no
#   digit (eta = 1e6 and more). The free mass is kept as ``s_free`` at scale
#   ``t_free - shift_free``.
#
#   Same rules as the sorting method this replaced: ``p`` counts as capped only if its ratio
#   exceeds ``1 + 1e-12`` (the others within that of the cap are clipped), the capped mass
#   stays below ``1 - 1e-15`` and at least one example stays free (both only bite when
#   P(m, nu) is a single point up to rounding). Unlike it, tied margins are never split
#   between capped and free (it split a tie at the boundary by index; either way all of the
#   tie is at its cap to ~1e-12), and ``F`` is computed as ``(nu - sum s_i)/nu`` (the sum
#   compensated) rather than ``1 - sum(s_i/nu)``, without the cancellation that cost it digits
#   when ``F`` is small.


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


def weighted_box_capped_simplex_euclidean_projection(v: np.ndarray, caps: np.ndarray,
                                                     weights: np.ndarray) -> np.ndarray:
    """Return ``argmin sum_i s_i (c_i - v_i)^2`` over ``{c : 0 <= c_i <= caps_i, sum_i s_i c_i = 1}``.

    Example ``i`` counts as ``s_i > 0`` copies of value ``c_i`` (``s`` the ``weights``): the
    Euclidean projection of the replicated sample, in per-copy coordinates. The KKT
    conditions ``s_i (c_i - v_i) + s_i tau = 0`` between the bounds give
    ``c = clip(v - tau, 0, caps)`` as without weights; only the slope of ``sum_i s_i c_i``
    in ``tau`` changes (sum of the sliding ``s_i``). Needs ``sum_i s_i caps_i >= 1``.
    """
    v = np.asarray(v, dtype=np.float64)
    caps = np.asarray(caps, dtype=np.float64)
    s = np.asarray(weights, dtype=np.float64)
    if caps.shape != v.shape or s.shape != v.shape or not np.all(s > 0.0) or not np.all(caps >= 0.0) \
            or s @ caps < 1.0 - 1e-12:
        raise ValueError(f"caps and weights must be {v.shape[0]} values, weights > 0, caps >= 0, "
                         "with sum(weights * caps) >= 1")
    return _euclidean_capped(v, caps, s)


def _euclidean_capped(v: np.ndarray, cap, weights: np.ndarray | None = None) -> np.ndarray:
    """The sweep behind the Euclidean projections; ``cap`` a scalar or one cap per entry."""
    m = v.shape[0]
    # g(tau) = sum_i s_i clip(v_i - tau, 0, cap_i) decreases piecewise linearly from
    # sum s cap >= 1 to 0; its slope is minus the sum of s_i over the entries strictly between
    # their two breakpoints (v_i - cap_i and v_i); s = 1 without weights. Sweep the sorted
    # breakpoints to find g(tau) = 1 exactly.
    # Any sort will do: within a run of equal points the drops are 0, so g, tau and the
    # result do not depend on the order of ties. With one cap, v - cap and v are sorted by
    # sorting v once, and the stable sort (timsort) of the two sorted runs is a single
    # O(m) merge: ~4x faster than sorting the 2m points from scratch.
    if np.ndim(cap) == 0:
        sorted_v = np.sort(v)
        points = np.concatenate([sorted_v - cap, sorted_v])
        order = np.argsort(points, kind="stable")
    else:
        points = np.concatenate([v - cap, v])
        order = np.argsort(points)
    # A scalar cap keeps the historical m * cap (bit-identical results for P(m, nu)).
    if weights is not None:
        total = weights @ np.broadcast_to(cap, (m,))
    else:
        total = m * cap if np.ndim(cap) == 0 else cap.sum()
    tau = _breakpoint_tau(points, order, np.empty(0) if weights is None else weights, weights is not None,
                          float(total))
    return np.clip(v - tau, 0.0, cap)


def simplex_euclidean_projection(v: np.ndarray) -> np.ndarray:
    """Return the Euclidean projection of ``v`` onto the probability simplex."""
    return capped_simplex_euclidean_projection(v, 1.0)
