"""Bregman projections for mirror-ascent boosting (paper 002: Naghibi and Pfister, NIPS 2014).

Two regularisers ``R`` (both 1-strongly convex: entropy w.r.t. l1 on the simplex, squared
l2 w.r.t. l2), each with its mirror map ``grad R`` and Bregman divergence (002 eq. 1)::

    entropy:  R(w) = sum_i w_i ln w_i - w_i,   grad R(w) = ln w,
              B_R(u, v) = sum_i u_i ln(u_i / v_i) - u_i + v_i     (generalised KL)
    l2:       R(w) = 1/2 ||w||_2^2,            grad R(w) = w,
              B_R(u, v) = 1/2 ||u - v||_2^2

(the ``- w_i`` in the entropy changes nothing on the simplex and makes ``grad R = ln w``).
The Bregman projection of a point ``z`` onto a convex set ``S`` is (002 Definition 1)::

    P_S(z) = argmin_{w in S} B_R(w, z).

Every projection here takes the *mirror image* ``theta = grad R(z)`` of the point, not ``z``:
for the entropy that is ``ln z``, so the lazy update, whose ``theta`` grows without bound,
never overflows, and zero weights are ``theta = -inf``. The sets used by MABoost (``m``
examples; the capped simplex ``P(m, nu)`` of docs/notation.rst):

======================  ======================================  ======================================
set S                   KL projection                           Euclidean projection
======================  ======================================  ======================================
simplex                 ``z / sum z`` (softmax of theta)        sort-based (:mod:`~marginboost.core.projections`)
P(m, nu) (smooth)       :mod:`~marginboost.core.projections`    :mod:`~marginboost.core.projections`
                        (log space)
simplex, per-example    sort of the capped examples only        :mod:`~marginboost.core.projections`
caps (combined data)                                            (box sweep)
replicated sample       ``theta + ln s``; weighted form of      weighted box sweep
(sample weights s)      :mod:`~marginboost.core.projections`    (:mod:`~marginboost.core.projections`)
                        for P(m, nu)
hypercube [0, c]^m      ``min(c, z)`` (002 Lemma 5)             ``clip(z, 0, c)``
orthant + l1 penalty    --                                      ``max(0, z - alpha)`` (002 eq. 29)
======================  ======================================  ======================================

:func:`double_projection` composes two of them, ``P_K(P_S1(z))`` for ``K subset S1``; by
002 Lemma 4 it is an *approximate* projection: ``B_R(u, P_K(P_S1(z))) <= B_R(u, z)`` for
every ``u in K``, which is all the active MABoost analysis needs (the relaxed Lemma 1).
All run in O(m log m) or O(m).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.special import logsumexp

from marginboost.core.projections import (
    _suffix_logaddexp,
    box_capped_simplex_euclidean_projection,
    capped_simplex_euclidean_projection,
    capped_simplex_kl_projection,
    simplex_euclidean_projection,
    weighted_box_capped_simplex_euclidean_projection,
)

REGULARIZERS = ("entropy", "l2")

Projection = Callable[[np.ndarray], np.ndarray]


def _check_regularizer(regularizer: str) -> None:
    if regularizer not in REGULARIZERS:
        raise ValueError(f"regularizer must be one of {REGULARIZERS}, got {regularizer!r}")


def mirror_map(regularizer: str, x: np.ndarray) -> np.ndarray:
    """``grad R(x)``: ``ln x`` (entropy; ``-inf`` where ``x = 0``) or ``x`` (l2)."""
    _check_regularizer(regularizer)
    x = np.asarray(x, dtype=np.float64)
    if regularizer == "l2":
        return x.copy()
    with np.errstate(divide="ignore"):
        return np.log(x)


def bregman_divergence(regularizer: str, u: np.ndarray, v: np.ndarray) -> float:
    """``B_R(u, v)``: generalised KL (entropy, with ``0 ln 0 = 0``) or ``1/2 ||u - v||^2`` (l2)."""
    _check_regularizer(regularizer)
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if regularizer == "l2":
        return 0.5 * float(np.sum((u - v) ** 2))
    if np.any((u > 0) & (v <= 0)):
        return np.inf
    pos = u > 0
    return float(np.sum(u[pos] * np.log(u[pos] / v[pos])) - u.sum() + v.sum())


# ------------------------------------------------------------------ KL (entropy) projections
def kl_simplex_projection(theta: np.ndarray) -> np.ndarray:
    """KL projection of ``z = exp(theta)`` onto the simplex: ``z / sum z``, by log-sum-exp."""
    theta = np.asarray(theta, dtype=np.float64)
    return np.exp(theta - logsumexp(theta))


def kl_capped_simplex_projection(theta: np.ndarray, nu: float, weights: np.ndarray | None = None) -> np.ndarray:
    """KL projection of ``exp(theta)`` onto ``P(m, nu)``: ``d_i = min(1/nu, exp(theta_i)/Z)``.

    ``argmin_{d in P} KL(d || exp theta) = argmin_{d in P} d @ (-theta) + sum d ln d``, which
    is :func:`marginboost.core.projections.capped_simplex_kl_projection` with margins ``q = -theta`` and
    ``eta = 1`` (Shalev-Shwartz and Singer 2010, the projection 002 section 3.1 cites).

    With replication ``weights`` ``s`` (summing to ``m``; example ``i`` is ``s_i`` copies,
    ``theta`` is per copy), the result is the distribution over examples
    ``d_i = min(s_i/nu, Z s_i exp(theta_i))``: every copy capped at ``1/nu``.
    """
    return capped_simplex_kl_projection(-np.asarray(theta, dtype=np.float64), nu, 1.0, weights)


def _logsumexp(x: np.ndarray) -> float:
    """``ln sum_i exp(x_i)`` (``-inf`` for no terms), shifted by the largest term.

    Plain numpy: scipy's ``logsumexp`` spends ~0.15 ms per call on input handling at
    ``m = 7400``, four times the sum itself, which matters once per boosting round.
    """
    if x.size == 0:
        return -np.inf
    top = x.max()
    if not np.isfinite(top):  # all -inf (zero weights), or +inf
        return float(top)
    return float(top + np.log(np.sum(np.exp(x - top))))


def kl_box_capped_simplex_projection(theta: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """KL projection of ``exp(theta)`` onto ``{d in simplex : d_i <= caps_i}``.

    The solution is ``d_i = min(caps_i, exp(theta_i)/Z)`` (KKT: ``ln d_i - theta_i = -ln Z``
    where uncapped, ``<=`` where capped). Only the examples with ``caps_i < 1`` (the bound
    set ``B``; a weight on the simplex never exceeds 1) can be capped, in decreasing order of
    ``theta_i - ln caps_i`` (the order of ``d_i / caps_i``). With the first ``k`` of that
    order capped, ``Z = S_k / (1 - sum_{j < k} caps_j)``, ``S_k`` the mass ``exp(theta)`` of the
    others; ``k`` is the smallest count at which the next one fits under its cap. All in log
    space (``ln S_k`` = logaddexp of the free examples' log-sum-exp and the suffix log-sums
    over ``B``), so the lazy update's unbounded ``theta`` neither overflows nor loses the
    uncapped examples. Sorting only ``B`` (MABoost's combined variant: the secondary set)
    makes it several times faster than the weighted capped-simplex projection of
    :mod:`marginboost.core.projections`, which it equals up to rounding. ``caps_i >= 1`` leaves example
    ``i`` uncapped; needs ``sum min(caps, 1) >= 1``.
    """
    theta = np.asarray(theta, dtype=np.float64)
    caps = np.minimum(np.asarray(caps, dtype=np.float64), 1.0)
    m = theta.shape[0]
    # 1e-12: m copies of 1/m may sum to just below 1
    if caps.shape != theta.shape or not np.all(caps > 0.0) or caps.sum() < 1.0 - 1e-12:
        raise ValueError(f"caps must be {m} values in (0, 1] with sum >= 1")
    bound = caps < 1.0
    if not bound.any():
        return kl_simplex_projection(theta)
    idx = np.flatnonzero(bound)
    log_caps = np.log(caps[idx])
    order = np.argsort(log_caps - theta[idx])  # largest ln(d_i / caps_i) first
    idx, log_caps = idx[order], log_caps[order]
    b = theta[idx]
    c = caps[idx]
    free_theta = theta[~bound]
    lse_free = _logsumexp(free_theta)
    # log_rest[k] = ln(mass of all but the first k of B), k = 0 .. |B|
    log_rest = np.logaddexp(lse_free, np.append(_suffix_logaddexp(b), -np.inf))
    free_mass = np.maximum(1.0 - np.concatenate([[0.0], np.cumsum(c)]), 0.0)
    # capped examples far above the others overflow exp; the caps below replace them
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_free = np.log(free_mass)
        # entry k of B, the first uncapped one, fits iff its ratio d_k / c_k is at most 1
        fits = log_free[:-1] + b - log_rest[:-1] - log_caps <= 1e-12
        k_star = int(np.argmax(fits)) if fits.any() else idx.shape[0]
        log_z = log_rest[k_star] - log_free[k_star]
        d = np.exp(theta - log_z) if np.isfinite(log_z) else np.zeros(m)
    d[idx[:k_star]] = c[:k_star]
    np.minimum(d, caps, out=d)
    return d


def kl_hypercube_projection(theta: np.ndarray, c: float = 1.0) -> np.ndarray:
    """Generalised-KL projection of ``exp(theta)`` onto ``[0, c]^m``: ``min(c, exp(theta))``.

    002 Lemma 5 (for ``c = 1``): the problem separates over coordinates, and
    ``argmin_{0 <= w <= c} w ln(w/z) - w + z`` is ``min(c, z)``.
    """
    theta = np.asarray(theta, dtype=np.float64)
    return np.exp(np.minimum(theta, np.log(c)))


# ------------------------------------------------------------------- Euclidean projections
def euclidean_simplex_projection(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto the simplex (:func:`marginboost.core.projections.simplex_euclidean_projection`)."""
    return simplex_euclidean_projection(v)


def euclidean_capped_simplex_projection(v: np.ndarray, nu: float) -> np.ndarray:
    """Euclidean projection onto ``P(m, nu)``: ``clip(v - tau, 0, 1/nu)`` (:mod:`marginboost.core.projections`)."""
    return capped_simplex_euclidean_projection(v, nu)


def euclidean_box_capped_simplex_projection(v: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Euclidean projection onto ``{d in simplex : d_i <= caps_i}``: ``clip(v - tau, 0, caps)``."""
    return box_capped_simplex_euclidean_projection(v, caps)


def euclidean_replicated_projection(theta: np.ndarray, weights: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Euclidean projection of a replicated sample, as a distribution over the examples.

    Example ``i`` counts as ``s_i`` copies (``s`` the ``weights``), each at the per-copy point
    ``theta_i`` and with the per-copy cap ``caps_i``; the projection of the copies onto the
    capped simplex keeps copies equal, ``c = clip(theta - tau, 0, caps)`` with
    ``sum_i s_i c_i = 1`` (:func:`marginboost.core.projections.weighted_box_capped_simplex_euclidean_projection`),
    and example ``i`` gets ``d_i = s_i c_i``.
    """
    s = np.asarray(weights, dtype=np.float64)
    return s * weighted_box_capped_simplex_euclidean_projection(theta, caps, s)


def euclidean_hypercube_projection(v: np.ndarray, c: float = 1.0) -> np.ndarray:
    """Euclidean projection onto ``[0, c]^m``: ``clip(v, 0, c)`` (coordinate-wise)."""
    return np.clip(np.asarray(v, dtype=np.float64), 0.0, c)


def orthant_l1_projection(v: np.ndarray, alpha: float) -> np.ndarray:
    """``argmin_{z >= 0} 1/2 ||z - v||^2 + alpha ||z||_1 = max(0, v - alpha)`` (002 eqs. 28-29).

    SparseBoost's projection step: separable, each coordinate is soft-thresholded at
    ``alpha >= 0`` and clipped at 0.
    """
    if not alpha >= 0.0:
        raise ValueError(f"alpha must be >= 0, got {alpha!r}")
    return np.maximum(np.asarray(v, dtype=np.float64) - alpha, 0.0)


def double_projection(regularizer: str, first: Projection, second: Projection) -> Projection:
    """The approximate projection ``P_K(P_S1(z))`` of 002 Lemma 4 (``K subset S1``).

    ``first`` and ``second`` map a mirror image ``theta`` to a point of ``S1`` and of ``K``;
    the result maps ``theta`` to ``second(grad R(first(theta)))``. For every ``u in K``,
    ``B_R(u, P_K(P_S1(z))) <= B_R(u, P_S1(z)) <= B_R(u, z)`` (Lemma 1 twice). MadaBoost
    (002 Algorithm 3) is ``first`` = KL onto ``[0, 1]^m``, ``second`` = KL onto the simplex.
    """
    _check_regularizer(regularizer)

    def project(theta: np.ndarray) -> np.ndarray:
        return second(mirror_map(regularizer, first(theta)))

    return project


__all__ = [
    "REGULARIZERS",
    "bregman_divergence",
    "double_projection",
    "euclidean_box_capped_simplex_projection",
    "euclidean_capped_simplex_projection",
    "euclidean_hypercube_projection",
    "euclidean_replicated_projection",
    "euclidean_simplex_projection",
    "kl_box_capped_simplex_projection",
    "kl_capped_simplex_projection",
    "kl_hypercube_projection",
    "kl_simplex_projection",
    "mirror_map",
    "orthant_l1_projection",
]
