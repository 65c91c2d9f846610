"""Projections onto the (capped) probability simplex.

Notation (design.md): ``m`` examples, capped simplex

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
from numba import njit

from marginboost.core.vector_math import exp_into, log_minus


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
        d, _, value = _projection(q, nu, eta, weights, _NO_DIRECTION)
        return d, value, None
    delta = np.require(delta, dtype=np.float64, requirements=["C"])
    if delta.shape != np.shape(q):
        raise ValueError(f"delta must have the shape of q {np.shape(q)}, got {delta.shape}")
    d, sums, value = _projection(q, nu, eta, weights, delta)
    return d, value, sums


_NO_DIRECTION = np.empty(0)


def _projection(q, nu, eta, weights, delta):
    """``(d, sums, value)`` of :func:`_kl_capped`, the arguments checked and converted."""
    # writable too: the compiled loop reads its input and its buffers through one variable
    q = np.require(q, dtype=np.float64, requirements=["C", "W"])
    m = q.shape[0]
    _check_nu(nu, m)
    if not 0 < eta < math.inf:
        raise ValueError(f"eta must be a finite number > 0, got {eta!r}")
    if weights is None:
        return _kl_capped(q, float(eta), float(nu), np.empty(0), False, delta, m <= _SPLIT_FIRST_LEVEL)
    s = np.require(weights, dtype=np.float64, requirements=["C", "W"])
    return _kl_capped(q, float(eta), float(nu), s, True, delta, m <= _SPLIT_FIRST_LEVEL)


@njit(cache=True)
def slope_curvature_sums(d, delta, cap, caps, weighted):
    """``sum_i d_i delta_i`` over all examples; ``sum d delta^2``, ``sum d delta`` and ``sum d`` over the
    free ones (``d_i < cap_i (1 - 1e-12)``, ``cap_i = caps[i]`` if ``weighted`` else ``cap``; the
    test of :func:`~marginboost.soft_margin.entropic_master._face_hessian`), in increasing ``i``."""
    slope = 0.0
    sq = 0.0
    lin = 0.0
    mass = 0.0
    for i in range(d.shape[0]):
        x = d[i] * delta[i]
        slope += x
        # a 0/1 factor (adding +-0 changes no sum), not a branch on the example's cap
        free = np.float64(d[i] < (caps[i] if weighted else cap) * (1.0 - 1e-12))
        sq += (x * delta[i]) * free
        lin += x * free
        mass += d[i] * free
    return slope, sq, lin, mass


# exp(x) is taken only for x above this (exp = 7e-218 there): libm's exp slows down for
# x < -512, and the smaller terms are negligible wherever they are summed.
_EXP_FLOOR = -500.0
_EXP_MINUS_400 = math.exp(-400.0)
# The first level's masses are s_i exp(a_i + _EXP_SHIFT), a_i = -eta q_i - max_j(-eta q_j):
# exp(x) for x in [-500, 500], all on libm's fast path, covers 1000 in a_i (eta * spread up
# to 1000 in one scale), and m of them sum far below overflow.
_EXP_SHIFT = 500.0
_EXP_PLUS_SHIFT = math.exp(_EXP_SHIFT)
# A selection level decides at the scale of its masses when the mass at or below its pivot
# is at least this: the terms dropped below exp(_EXP_FLOOR) (m of them at most) are then
# negligible, and a pivot dropped there is far below its cap.
_GLOBAL_SCALE_FLOOR = 1e-190
_EXP_CHUNK = 1024  # examples per chunk of the first level's exp: 16 KiB of scratch
_SPLIT_FIRST_LEVEL = 1 << 17  # up to this many examples the first level writes both its sides (_kl_capped)


@njit(cache=True)
def _kl_capped(q, eta, nu, s, weighted, delta, split):
    """The capped-simplex KL projection by quickselect on the capped set (expected O(m)), and, for a
    non-empty ``delta``, the sums of :func:`slope_curvature_sums` at it (zeros otherwise), and the
    smoothed soft margin there in closed form (NaN where some entries needed a second scale).
    ``split``: how the first level keeps its undecided examples (see the comment inside; the
    result does not depend on it).

    The closed form: with ``p_i = s_i / m``, a free ``d_i = F s_i exp(-eta q_i - t) / S`` gives
    ``d_i q_i + d_i ln(d_i / p_i) / eta = d_i (ln F + ln m - ln S - t) / eta`` (the ``q_i`` cancel),
    and a capped ``d_i = s_i / nu`` gives ``d_i q_i + d_i ln(m / nu) / eta``; so
    ``rho~(q) = sum_capped d_i q_i + ((1 - F) ln(m / nu) + F (ln F + ln m - ln S - t)) / eta``, from
    one sum over the capped examples taken while ``d`` is written, where ``d @ q`` and
    ``sum d ln d`` cost two passes (about 8 us at m = 7400, twice a Newton round; issue 17). Its
    error is mostly that of ``S`` (a sum of up to m masses), which the entries of ``d`` and so the
    two sums carry as well: against a 50-digit evaluation at the returned ``d``, no further than
    twice theirs, closer in the median (tested).

    With ``cap_i = s_i/nu``, capping the examples of margin below some value leaves mass
    ``F = (nu - sum_capped s_i)/nu`` for the others, ``d_i = F w_i / S`` with masses
    ``w_i = s_i exp(-eta q_i - t)`` (at any scale ``t``) and ``S`` the sum of the free ones'.
    Example ``p`` is capped iff its ratio ``d_p / cap_p`` exceeds 1 when every example of
    smaller margin is capped; that test is monotone in ``q_p`` (capping an example above its
    cap lowers ``S / F``, which raises every other ratio), so a quickselect finds the boundary:
    a pivot ``p`` splits the undecided examples into smaller (G), equal (E) and larger (L)
    margins; if ``p`` is capped so are G and E (ties share one ratio) and L is left undecided,
    else E and L are free and G is left. Each level needs only the caps of G and the masses of
    E, L and the examples already free: nothing is sorted.

    A scale is ``t - shift``: the first level computes the masses once at
    ``max_j(-eta q_j) - 500`` (shift 500, applied after the subtraction so that it costs no
    digits). A level where the mass at or below its pivot is tiny at the current scale (all of
    it more than ~440 below, as when ``eta * spread`` exceeds ~940) recomputes the masses of E
    and L relative to the pivot (shift 0), and keeps them if the pivot is capped (what is left
    lies below it). So underflow, even of the whole free mass, changes no decision and no
    digit (eta = 1e6 and more). The free mass is kept as ``s_free`` at scale
    ``t_free - shift_free``.

    Same rules as the sorting method this replaced: ``p`` counts as capped only if its ratio
    exceeds ``1 + 1e-12`` (the others within that of the cap are clipped), the capped mass
    stays below ``1 - 1e-15`` and at least one example stays free (both only bite when
    P(m, nu) is a single point up to rounding). Unlike it, tied margins are never split
    between capped and free (it split a tie at the boundary by index; either way all of the
    tie is at its cap to ~1e-12), and ``F`` is computed as ``(nu - sum s_i)/nu`` (the sum
    compensated) rather than ``1 - sum(s_i/nu)``, without the cancellation that cost it digits
    when ``F`` is small.
    """
    m = q.shape[0]
    tmax = -eta * q.min()
    e = np.empty(m)  # the first level's masses (0 below the floor); then the result
    # With ``split`` (up to _SPLIT_FIRST_LEVEL examples) the first level writes both its sides, G
    # to lo_* and L to hi_*, while it sums (its own pass to copy the side kept cost 5 of a
    # projection's 40 us at m = 7400); without, it writes none and the side kept is copied to
    # lo_* after it: writing both sides, 16 MB at m = 10^6, made a projection 9.5 -> 14.5 ms
    # (normal margins, nu = 0.1m: faster up to 65536 examples, slower from 200000). Either way
    # the same bits. The levels after it compact the side kept in place.
    lo_q, lo_e, lo_s = np.empty(m), np.empty(m), np.empty(m if weighted else 0)
    hi_size = m if split else 0
    hi_q, hi_e, hi_s = np.empty(hi_size), np.empty(hi_size), np.empty(hi_size if weighted else 0)
    src_q, src_e, src_s = q, e, s  # the undecided examples: the first n of these
    n = m
    t_base, shift_base = tmax, _EXP_SHIFT  # the scale of their masses
    capped = 0.0  # sum of s_i (the count without weights) over the capped examples
    q_cut = -np.inf  # capped iff q_i <= q_cut
    n_free = 0
    s_free = 0.0
    t_free, shift_free = tmax, _EXP_SHIFT  # a scale at or below the base once some are free
    state = np.uint64(0x9E3779B97F4A7C15)  # fixed seed: the same input, the same rounding
    _first_level_masses(q, s, weighted, eta, tmax, e)
    first = True
    while n > 0:
        if first:
            # Fewer than nu examples are capped (their caps sum to less than 1 without
            # weights): a pivot just past the nu smallest margins is most likely free and
            # leaves ~nu undecided. Later levels: the median of three.
            qp, state = _pivot(q, m, state, 127, 1.25 * nu / m + 2.0 / 127)
        else:
            qp, state = _median_of_three(src_q, n, state)
        cap_g, cap_e, mass, n_g, n_l = _level_sums(src_q, src_e, src_s, n, qp, weighted, first and split,
                                                   lo_q, lo_e, lo_s, hi_q, hi_e, hi_s)
        if n_free > 0:
            mass += s_free * math.exp((t_free - t_base) + (shift_base - shift_free))
        t_scale, shift_scale = t_base, shift_base
        # d_p / cap_p = room / nu * ep / (mass / nu)
        ep = _exp_shifted((-eta * qp) - t_base, shift_base)
        rescaled = mass < _GLOBAL_SCALE_FLOOR
        # where the rescaled masses of E and L go, by position: on the first level a buffer (with
        # both sides written, hi_e: its side L is kept only if p is capped, and is then compacted
        # from them below), after it the undecided examples' own
        at_scale = (hi_e if split else lo_e) if first else src_e
        if rescaled:
            # E, L and the free examples (nearly) all underflow at this scale: take the
            # pivot's, and keep the masses of E and L there for the levels below it
            t_scale, shift_scale = -eta * qp, 0.0
            ep = 1.0
            mass = _rescale(src_q, src_s, n, qp, weighted, eta, t_scale, at_scale)
            if n_free > 0:  # t_free - shift_free <= t_scale: no overflow
                mass += s_free * math.exp((t_free - t_scale) - shift_free)
        room = nu - capped - cap_g
        cap_p = (room * ep > mass * (1.0 + 1e-12) and room - cap_e > 1e-15 * nu
                 and (n_l > 0 or n_free > 0))
        if cap_p:
            capped += cap_g + cap_e
            q_cut = qp
            if rescaled:
                t_base, shift_base = t_scale, shift_scale
        else:
            n_free += n - n_g
            s_free = mass
            t_free, shift_free = t_scale, shift_scale
        if first and split:
            if cap_p and rescaled:
                _keep(q, hi_e, s, m, qp, True, weighted, hi_q, hi_e, hi_s)
            src_q, src_e, src_s = (hi_q, hi_e, hi_s) if cap_p else (lo_q, lo_e, lo_s)
            n = n_l if cap_p else n_g
        else:
            kept_e = at_scale if cap_p and rescaled else src_e
            n = _keep(src_q, kept_e, src_s, n, qp, cap_p, weighted, lo_q, lo_e, lo_s)
            src_q, src_e, src_s = lo_q, lo_e, lo_s
        first = False
    capped_err = 0.0
    if weighted:  # once more, compensated: F = (nu - sum s_i) / nu cancels when F is small
        capped, capped_err = _sum_below(q, s, q_cut)
    free_share = ((nu - capped) - capped_err) / nu
    sums, capped_dot, in_one_pass = _write_result(q, s, weighted, eta, nu, q_cut, free_share, s_free, t_free,
                                                  shift_free, e, delta)
    value = np.nan
    if in_one_pass:  # every free d_i = F e_i / S at the first scale: rho~(q) in closed form
        value = capped_dot + ((1.0 - free_share) * math.log(m / nu) + free_share * (
            (math.log(free_share) + math.log(m)) - (log_minus(s_free, shift_free) + t_free))) / eta
    return e, sums, value


@njit(cache=True)
def _exp_shifted(a, shift):
    """``exp(a + shift)`` for ``a <= 0`` and ``shift`` 0 or ``_EXP_SHIFT``, as accurate as
    ``exp(a)``: ``a + 500`` would round to ulp(500), ~1e-13, where ``a`` is small. One exp,
    no branch: ``exp(a) e^500`` above -500, ``exp(a + 500)`` (an exact sum) below, chosen by
    arithmetic on 0/1 (see :func:`_level_sums`; ``1 + e^500`` rounds to ``e^500``)."""
    low = np.int64(a <= -shift)  # always 1 with shift 0
    return math.exp(a + shift * low) * (1.0 + _EXP_PLUS_SHIFT * (1 - low))


@njit(cache=True)
def _sum_below(q, s, q_cut):
    """``sum s_i`` over ``q_i <= q_cut`` by Neumaier's compensated summation: the rounded sum
    and its rounding error."""
    total = 0.0
    err = 0.0
    for i in range(q.shape[0]):
        if q[i] <= q_cut:
            x = s[i]
            t = total + x
            err += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
            total = t
    return total, err


@njit(cache=True)
def _first_level_masses(q, s, weighted, eta, tmax, e):
    """The first level's masses ``e_i = s_i exp(a_i + 500)``, ``a_i = -eta q_i - tmax``, 0 below the
    floor (``a_i <= -1000``), each as :func:`_exp_shifted` forms it (``exp(a_i) e^500`` above
    -500, ``exp(a_i + 500)`` below), by :func:`~marginboost.core.vector_math.exp_into`: three
    loops without branches, which the compiler vectorises (libm's exp per element, in the loop
    of the sums, took a third of a projection; issue 17). They run over chunks of
    ``_EXP_CHUNK`` examples, so that the arguments stay in cache (over all m at once, the three
    passes made the projection slower than libm's exp at m = 10^6)."""
    m = q.shape[0]
    # whole chunks only (contiguous buffers, no slices: the loops vectorise); the last chunk's
    # unused tail keeps arguments in exp's domain (zeros, or the chunk before's)
    arg = np.zeros(_EXP_CHUNK)
    val = np.empty(_EXP_CHUNK)
    scratch = np.empty(_EXP_CHUNK, dtype=np.int64)
    for lo in range(0, m, _EXP_CHUNK):
        n = min(_EXP_CHUNK, m - lo)
        q_part, e_part = q[lo:lo + n], e[lo:lo + n]
        for j in range(n):
            a = (-eta * q_part[j]) - tmax
            x = a + _EXP_SHIFT if a <= -_EXP_SHIFT else a
            arg[j] = max(x, -_EXP_SHIFT)  # below the floor: any argument in exp's domain, zeroed below
        exp_into(arg, val, scratch)
        for j in range(n):
            a = (-eta * q_part[j]) - tmax
            v = val[j] * (1.0 if a <= -_EXP_SHIFT else 1.0 + _EXP_PLUS_SHIFT)  # 1 + e^500 rounds to e^500
            e_part[j] = v if a > _EXP_FLOOR - _EXP_SHIFT else 0.0
        if weighted:  # a loop of its own: a test inside the one above kept it from vectorising (2x)
            s_part = s[lo:lo + n]
            for j in range(n):
                e_part[j] = s_part[j] * e_part[j]


@njit(cache=True)
def _level_sums(q, e, s, n, qp, weighted, split, lo_q, lo_e, lo_s, hi_q, hi_e, hi_s):
    """Sums over the first ``n`` examples split at margin ``qp``: caps of G (``q < qp``) and
    of E (``q == qp``) in units of 1/nu, mass ``e`` of E and L, ``|G|``, ``|L|``. With ``split``,
    G's examples are also copied to the front of ``lo_*`` and L's to ``hi_*`` (both in order; the
    outputs must not be the inputs): the copies cost next to nothing beside the sums, whose
    chain of additions bounds the pass."""
    cap_g = 0.0
    cap_e = 0.0
    mass = 0.0
    n_g = 0
    n_l = 0
    for i in range(n):
        qi = q[i]
        si = s[i] if weighted else 1.0
        # Arithmetic on 0/1 rather than branches (or selects of doubles, which x86 compiles to
        # branches): the comparisons are unpredictable on unsorted margins. x - x * (1 - g)
        # is x * g exactly, in a form the compiler does not turn back into a select.
        g = np.int64(qi < qp)
        tie = np.int64(qi == qp)
        if split:  # every example written, the positions advanced only for its side
            lo_q[n_g] = qi
            lo_e[n_g] = e[i]
            hi_q[n_l] = qi
            hi_e[n_l] = e[i]
            if weighted:
                lo_s[n_g] = si
                hi_s[n_l] = si
        n_g += g
        n_l += qi > qp
        cap_g += si - si * (1 - g)
        cap_e += si - si * (1 - tie)
        mass += e[i] * (1 - g)
    return cap_g, cap_e, mass, n_g, n_l


@njit(cache=True)
def _rescale(q, s, n, qp, weighted, eta, t_scale, out_e):
    """Masses ``s_i exp(-eta q_i - t_scale)`` of E and L (``q >= qp``) among the first ``n``,
    written to ``out_e`` (the others left as they are); their sum."""
    mass = 0.0
    for i in range(n):
        if q[i] >= qp:
            x = (-eta * q[i]) - t_scale
            v = 0.0
            if x > _EXP_FLOOR:
                v = s[i] * math.exp(x) if weighted else math.exp(x)
            out_e[i] = v
            mass += v
    return mass


@njit(cache=True)
def _pivot(q, n, state, n_picks, rank):
    """The entry at relative ``rank`` among ``n_picks`` pseudo-random entries of ``q[:n]``, and
    the generator's next state."""
    picks = np.empty(n_picks)
    for j in range(n_picks):
        picks[j], state = _draw(q, n, state)
    return np.sort(picks)[min(n_picks - 1, int(rank * n_picks))], state


@njit(cache=True)
def _median_of_three(q, n, state):
    """``_pivot(q, n, state, 3, 0.5)`` without its array and sort (a level's fixed cost, a dozen
    levels a projection): the median of the same three draws, and the generator's next state."""
    a, state = _draw(q, n, state)
    b, state = _draw(q, n, state)
    c, state = _draw(q, n, state)
    return max(min(a, b), min(max(a, b), c)), state


@njit(cache=True)
def _draw(q, n, state):
    """One pseudo-random entry of ``q[:n]`` (the generator of :func:`_pivot`) and the next state."""
    state = state * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
    return q[np.int64(state >> np.uint64(33)) % n], state


@njit(cache=True)
def _keep(q, e, s, n, qp, upper, weighted, out_q, out_e, out_s):
    """Copy the examples still undecided (``q > qp`` if ``upper`` else ``q < qp``) to the
    front of ``out_*`` (which may be the same arrays: the copy only moves left); their count.

    Every example is written and the position advanced only for those kept: no branch to
    mispredict."""
    j = 0
    for i in range(n):
        qi = q[i]
        out_q[j] = qi
        out_e[j] = e[i]
        if weighted:
            out_s[j] = s[i]
        j += (qi > qp) if upper else (qi < qp)
    return j


@njit(cache=True)
def _write_result(q, s, weighted, eta, nu, q_cut, free_share, s_free, t_free, shift_free, e, delta):
    """Overwrite ``e`` with ``d``: ``cap_i`` where ``q_i <= q_cut``, else
    ``min(cap_i, free_share s_i exp(-eta q_i - t_free + shift_free) / s_free)``.

    At the first level's scale (shift 500) that is ``e_i * free_share / s_free``; the rest
    (other scale, or ``e_i`` below the floor, which the factor may raise up to 1e190) go
    through ``exp``, gathered first so that its loop runs only over them.

    With a non-empty ``delta``, the sums of :func:`slope_curvature_sums` over ``d``, accumulated as
    each ``d_i`` is written; they are discarded and summed again in a pass of their own when some
    entries went through ``exp`` (finished only after this loop). Returns them (zeros without
    ``delta``), ``sum cap_i q_i`` over the capped examples, and whether every entry was finished in
    this loop at the first scale (the condition of :func:`_kl_capped`'s closed form).
    """
    m = q.shape[0]
    first_scale = shift_free == _EXP_SHIFT
    r = free_share / s_free
    log_r = shift_free + (math.log(free_share) - math.log(s_free))
    log_s_max = math.log(s.max()) if weighted else 0.0
    todo = np.empty(m, dtype=np.int64)
    k = 0
    along = delta.shape[0] > 0
    slope = 0.0
    sq = 0.0
    lin = 0.0
    mass = 0.0
    capped_dot = 0.0
    for i in range(m):
        cap_i = (s[i] if weighted else 1.0) / nu
        if q[i] <= q_cut:
            e[i] = cap_i
            capped_dot += cap_i * q[i]
        elif first_scale and e[i] > 0.0:
            e[i] = min(cap_i, e[i] * r)
        else:
            x = ((-eta * q[i]) - t_free) + log_r
            if weighted:  # log costs as much as exp: taken only where the result can be > 0
                x = x + math.log(s[i]) if x + log_s_max > -746.0 else -np.inf
            if x > -746.0:  # exp(x) is 0 below
                e[i] = x
                todo[k] = i
                k += 1
            else:
                e[i] = 0.0
        if along:  # slope_curvature_sums' body, in the same order (its value at an exp'd entry is redone below)
            x = e[i] * delta[i]
            slope += x
            if e[i] < cap_i * (1.0 - 1e-12):  # a branch here, unlike there: measured faster in this loop
                sq += x * delta[i]
                lin += x
                mass += e[i]
    for j in range(k):
        i = todo[j]
        x = e[i]
        low = x < _EXP_FLOOR  # libm's exp is slower below -512: exp(x + 400) e^-400 instead
        v = math.exp(x + (400.0 if low else 0.0)) * (_EXP_MINUS_400 if low else 1.0)
        e[i] = min((s[i] if weighted else 1.0) / nu, v)
    in_one_pass = first_scale and k == 0
    if along and k > 0:
        return slope_curvature_sums(e, delta, 1.0 / nu, s / nu, weighted), capped_dot, in_one_pass
    return (slope, sq, lin, mass), capped_dot, in_one_pass


@njit(cache=True)
def _suffix_logaddexp(a: np.ndarray) -> np.ndarray:
    """``np.logaddexp.accumulate(a[::-1])[::-1]``, bit for bit, ~25% faster.

    The same recurrence as numpy's ``npy_logaddexp`` (``x + log1p(exp(y - x))`` with the larger
    ``x``, ``x + ln 2`` for equal terms) on the same libm ``exp`` and ``log1p``, in one compiled
    loop instead of a ufunc accumulation, for :func:`marginboost.mirror.bregman.kl_box_capped_simplex_projection`
    (and the sorting KL projection kept in the tests as a reference); its order must stay as
    it was for identical results.
    """
    m = a.shape[0]
    out = np.empty(m)
    acc = a[m - 1]
    out[m - 1] = acc
    for i in range(m - 2, -1, -1):
        y = a[i]
        if acc == y:
            acc = acc + 0.6931471805599453  # npy_logaddexp: equal terms (and equal infinities)
        else:
            tmp = acc - y
            if tmp > 0:
                acc = acc + math.log1p(math.exp(-tmp))
            elif tmp <= 0:
                acc = y + math.log1p(math.exp(tmp))
            else:  # NaN
                acc = tmp
        out[i] = acc
    return out


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


@njit(cache=True)
def _breakpoint_tau(points, order, weights, weighted, total):
    """``tau`` with ``g(tau) = 1`` by the sweep of :func:`_euclidean_capped` over the breakpoints
    ``points[order]`` (entry ``j < m`` starts sliding there, entry ``j - m`` stops; its weight
    ``weights[j mod m]``, 1 without): in numpy, ``points[order]``, ``steps[order]``, ``n_sliding =
    cumsum(steps)[:-1]``, ``drops = n_sliding * diff(points)``, ``g = total - [0, cumsum(drops)]``,
    ``seg = searchsorted(-g, -1.0, 'left')`` and the interpolation, ten passes and their temporaries
    over the 2m points (150 of the box projection's 270 us at m = 7400; issue 17). Here one pass
    and numpy's binary search, the same operations in the same order: the same bits (tested)."""
    n = order.shape[0]
    m = n // 2
    sorted_points = np.empty(n)
    n_sliding = np.empty(n)
    g = np.empty(n)
    g[0] = total - 0.0
    sorted_points[0] = points[order[0]]
    sliding = 0.0
    dropped = 0.0
    for i in range(n - 1):
        j = order[i]
        step = weights[j % m] if weighted else 1.0
        sliding += step if j < m else -step
        n_sliding[i] = sliding
        sorted_points[i + 1] = points[order[i + 1]]
        dropped += sliding * (sorted_points[i + 1] - sorted_points[i])
        g[i + 1] = total - dropped
    lo, hi = 0, n  # numpy's binary search (side='left') for -1.0 in -g: the first i with -g[i] >= -1
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        if -g[mid] < -1.0:
            lo = mid + 1
        else:
            hi = mid
    if lo == 0:
        return sorted_points[0]
    return sorted_points[lo - 1] + (g[lo - 1] - 1.0) / n_sliding[lo - 1]


def simplex_euclidean_projection(v: np.ndarray) -> np.ndarray:
    """Return the Euclidean projection of ``v`` onto the probability simplex."""
    return capped_simplex_euclidean_projection(v, 1.0)
