"""Soft-margin objectives over margin vectors ``q = U @ w`` (paper 000, sections 2 and 4).

The soft margin of an ensemble with margins ``q`` is

    rho(q) = min_{d in P(m, nu)} d @ q = -f*(-q)                         (000, eq. 5)

the mean of the ``nu`` smallest margins (the last one counted fractionally). Boosting
maximises it over convex combinations ``w`` of hypotheses.

The entropy-smoothed objective replaces the indicator ``f`` of ``P(m, nu)`` by
``f~ = f + (1/eta) Delta`` with ``Delta(d) = sum_i d_i ln d_i + ln m`` (relative entropy to
uniform):

    rho~(q) = min_{d in P(m, nu)} d @ q + Delta(d)/eta = -f~*(-q).        (000, eq. 12)

It is ``eta``-smooth in ``q`` w.r.t. the l_inf norm, its gradient is the distribution
``d(q) = grad f~*(-q)`` (a capped-simplex KL projection), and
``rho(q) <= rho~(q) <= rho(q) + ln(m/nu)/eta``; with ``eta = 2 ln(m/nu)/eps`` the two differ
by at most ``eps/2`` (000, Lemma 3 and Lemma 1).

Example weights ``s`` (sample weights scaled to mean 1, optional) make example ``i`` count as
``s_i`` copies: the caps become ``d_i <= s_i/nu`` and the entropy is relative to ``p = s/m``.
Every bound above holds unchanged (``d_i/p_i <= m/nu``).

Each objective offers one interface: ``value(q)``, ``distribution(q)`` (an element of the
(sub)gradient), and ``stop_tol(eps)`` (the duality-gap threshold at which the guarantee
``rho(q) >= g - eps`` follows, 000 Lemma 2).
"""
from __future__ import annotations

import math

import numpy as np

from marginboost.core.projections import kl_projection_and_value, slope_curvature_sums
from marginboost.core.vector_math import sum_xlogx


def soft_margin(q: np.ndarray, nu: float, weights: np.ndarray | None = None) -> float:
    """Mean of the ``nu`` smallest entries of ``q`` (the last one fractional), O(m).

    With example ``weights`` ``s`` (mean 1), example ``i`` counts as ``s_i`` copies.
    """
    if weights is not None:
        return float(soft_margin_distribution(q, nu, weights) @ q)
    q = np.asarray(q, dtype=np.float64)
    m = q.shape[0]
    k = min(int(math.floor(nu)), m)
    frac = nu - k
    if k == m:
        return float(q.sum() / nu)
    part = np.partition(q, k)
    return float((part[:k].sum() + frac * part[k]) / nu)


def soft_margin_distribution(q: np.ndarray, nu: float, weights: np.ndarray | None = None) -> np.ndarray:
    """A minimiser ``d in P(m, nu)`` of ``d @ q``: fill the caps ``s_i/nu`` in increasing order of ``q``
    (ties by index): the example of rank ``r`` gets ``max(min(cap_r, 1 - sum_{r' < r} cap_r'), 0)``, the
    sum taken as ``np.cumsum`` takes it.

    Without weights every cap is ``1/nu``, so the value of each rank is known before the order, and
    only the ranks that get a positive value need their examples: the examples below a
    threshold found by selection (``np.partition``, O(m)) and, in rank order, the few past it
    (:func:`_ranks_from`). That replaces a sort of all m margins, 0.36 of a round's 0.7 ms in
    AverageMarginBoost's Frank-Wolfe step on ringnorm (issue 17); the result is the sort's, bit
    for bit (tested against it).
    """
    q = np.asarray(q, dtype=np.float64)
    m = q.shape[0]
    if weights is not None:
        order = np.argsort(q, kind="stable")
        caps = np.asarray(weights, dtype=np.float64)[order] / nu
        filled_before = np.concatenate([[0.0], np.cumsum(caps)[:-1]])
        d = np.empty(m)
        d[order] = np.clip(np.minimum(caps, 1.0 - filled_before), 0.0, None)
        return d
    cap = 1.0 / nu
    filled_before = np.concatenate([[0.0], np.cumsum(np.full(m, cap))[:-1]])
    by_rank = np.clip(np.minimum(cap, 1.0 - filled_before), 0.0, None)  # non-increasing in the rank
    n_full = int(np.count_nonzero(by_rank == cap))  # the leading ranks, all at the cap
    n_positive = int(np.count_nonzero(by_rank > 0.0))
    d = np.zeros(m)
    full, rest = _ranks_from(q, n_full, n_positive - n_full)
    d[full] = cap
    d[rest] = by_rank[n_full:n_positive]
    return d


def _ranks_from(q: np.ndarray, k: int, extra: int) -> tuple[np.ndarray, np.ndarray]:
    """The examples of ranks ``0 .. k-1`` (in no particular order) and those of ranks ``k .. k+extra-1``
    (in rank order), the rank being the position in the stable sort of ``q`` (ties by index)."""
    m = q.shape[0]
    if k == 0 or k + extra >= m:  # nothing to select: the sort itself
        order = np.argsort(q, kind="stable")
        return order[:k], order[k:k + extra]
    edge = np.partition(q, k - 1)[k - 1]  # the value at rank k - 1
    below = q < edge
    tied = np.flatnonzero(q == edge)  # ascending index: the stable order among them
    split = k - int(np.count_nonzero(below))
    full = np.concatenate([np.flatnonzero(below), tied[:split]])
    if extra == 0:
        return full, np.empty(0, dtype=np.int64)
    # Ranks k, k+1, ...: the ties left, then the values above `edge` in stable order, the first
    # `extra` of them among those at or below the extra-th smallest value above it.
    above = np.flatnonzero(q > edge)
    if above.size > extra:
        top = np.partition(q[above], extra - 1)[extra - 1]
        above = above[q[above] <= top]
    after = np.concatenate([tied[split:], above[np.argsort(q[above], kind="stable")]])
    return full, after[:extra]


def relative_entropy_to_uniform(d: np.ndarray, weights: np.ndarray | None = None) -> float:
    """``Delta(d) = sum_i d_i ln(d_i / p_i)`` with ``p = s/m`` (uniform without weights), ``0 ln 0 = 0``.

    ``sum d ln d`` by :func:`~marginboost.core.vector_math.sum_xlogx` (vectorised; scipy's ``xlogy``
    took 25 us at m = 7400, a tenth of the Newton rule's round; issue 17)."""
    value = sum_xlogx(np.ascontiguousarray(d, dtype=np.float64)) + math.log(d.shape[0])
    if weights is not None:
        value -= d @ np.log(weights)
    return float(value)


# The smallest eps for which eta = 2 ln(m/nu)/eps is a finite double for every m up to 2^63
# (2 ln(2^63) / 1e-300 = 8.8e301): below it eta overflows to inf (eps = 5e-324 does at m = 2).
MIN_EPS = 1e-300


def entropy_eta(m: int, nu: float, eps: float) -> float:
    """The regularisation strength ``eta = 2 ln(m/nu) / eps`` of 000 (Lemma 3, Theorem 3).

    At ``nu = m`` the formula gives 0, but then ``P(m, nu)`` is the single uniform point and
    any ``eta`` gives the same distribution; we return ``max(eta, 1)`` so that ``1/eta`` stays
    finite. A larger ``eta`` than the formula's never weakens the guarantee (Lemma 1 needs
    ``eta >= 2 ln(m/nu)/eps``). ``ValueError`` where ``eta`` is no finite double (an ``eps``
    below :data:`MIN_EPS` may overflow it), rather than an ``inf`` that the projection cannot use.
    """
    if not eps > 0.0:
        raise ValueError(f"eps must be > 0, got {eps!r}")
    eta = max(2.0 * math.log(m / nu) / eps, 1.0)
    if not math.isfinite(eta):
        raise ValueError(f"eps={eps!r} is too small: eta = 2 ln(m/nu)/eps = 2 ln({m}/{nu:g})/eps overflows a "
                         f"double; eps must be at least {MIN_EPS:g}")
    return eta


class SoftMargin:
    """The soft margin ``rho(q)`` itself (LPBoost's objective, 000 eq. 13).

    Not smooth: its "distribution" is one minimiser ``d`` (a subgradient of ``f*``). The
    LPBoost update provides the dual solution of its LP instead, which the loop prefers.
    """

    smooth = False

    def __init__(self, nu: float, weights: np.ndarray | None = None):
        self.nu = nu
        self.weights = weights

    def value(self, q: np.ndarray) -> float:
        """``rho(q)``: the mean of the ``nu`` smallest margins."""
        return soft_margin(q, self.nu, self.weights)

    def distribution(self, q: np.ndarray) -> np.ndarray:
        """A minimiser ``d in P(m, nu)`` of ``d @ q``: the caps filled in increasing order of ``q``."""
        return soft_margin_distribution(q, self.nu, self.weights)

    def stop_tol(self, eps: float) -> float:
        """``eps``: LPBoost stops at ``min edge - LP value <= eps``."""
        return eps

    def start_distribution(self, m: int) -> np.ndarray:
        """``d_0`` of the loop: uniform, or ``weights / m``."""
        return np.full(m, 1.0 / m) if self.weights is None else self.weights / m

    def hard(self) -> "SoftMargin":
        """The soft margin ``rho`` itself, which the loop reports (a new object)."""
        return SoftMargin(self.nu, self.weights)


class SmoothedSoftMargin:
    """The entropy-smoothed soft margin ``rho~(q) = -f~*(-q)`` (000 eqs. 11-12)."""

    smooth = True

    def __init__(self, nu: float, eta: float, weights: np.ndarray | None = None):
        self.nu = nu
        self.eta = eta
        self.weights = weights
        self._known = None  # (q, d, rho~ in closed form) of the last projection (value_at)

    def distribution(self, q: np.ndarray) -> np.ndarray:
        """``d(q) = grad f~*(-q)``: the capped-simplex KL projection of ``softmax(-eta q)``."""
        d, value, _ = kl_projection_and_value(q, self.nu, self.eta, self.weights)
        self._known = (q, d, value) if value == value else None
        return d

    def value_at(self, q: np.ndarray, d: np.ndarray) -> float:
        """``rho~(q)`` given ``d = distribution(q)`` (saves the projection).

        For the arrays of the last projection (``q`` and the ``d`` it returned, the same objects,
        unmodified), the value that projection found in closed form
        (:func:`~marginboost.core.projections.kl_projection_and_value`: no pass over the examples;
        the path of a fit is the same, its objective's last bits not); otherwise
        ``d @ q + Delta(d) / eta``."""
        known = self._known
        if known is not None and known[0] is q and known[1] is d:
            return known[2]
        return float(d @ q + relative_entropy_to_uniform(d, self.weights) / self.eta)

    def value(self, q: np.ndarray) -> float:
        """``rho~(q) = min_{d in P(m, nu)} d @ q + Delta(d)/eta``."""
        return self.value_at(q, self.distribution(q))

    def slope_curvature(self, d: np.ndarray, delta: np.ndarray) -> tuple[float, float]:
        """First and second derivative of ``lam -> rho~(q + lam delta)`` at 0, given ``d = distribution(q)``.

        The slope is ``d @ delta`` (``grad rho~ = d``). ``d_i = min(cap_i, Z s_i exp(-eta q_i))`` moves
        only on the free examples ``F`` (below their cap), by ``-eta d_i (delta_i - mean_F delta)``
        with ``mean_F`` the ``d``-weighted mean over ``F``; so the curvature is
        ``-eta (sum_F d_i delta_i^2 - (sum_F d_i delta_i)^2 / sum_F d_i) <= 0``: the Hessian of
        :func:`~marginboost.soft_margin.entropic_master._face_hessian` along ``delta``, from one pass
        and no projection. (Where an example sits exactly at its cap the two one-sided curvatures
        differ; this is the free side's.)
        """
        caps = np.empty(0) if self.weights is None else self.weights / self.nu
        return self._slope_curvature(slope_curvature_sums(d, delta, 1.0 / self.nu, caps, self.weights is not None))

    def distribution_along(self, q: np.ndarray, lam: float, delta: np.ndarray):
        """``(q', d', slope, curvature)`` at ``q' = q + lam delta``: its margins, ``distribution(q')`` and
        ``slope_curvature(d', delta)``, the sums summed while the projection writes ``d'``
        (:func:`~marginboost.core.projections.kl_projection_and_value`; the same bits)."""
        q_lam = q + lam * delta
        d_lam, value, sums = kl_projection_and_value(q_lam, self.nu, self.eta, self.weights, delta)
        self._known = (q_lam, d_lam, value) if value == value else None
        return (q_lam, d_lam) + self._slope_curvature(sums)

    def _slope_curvature(self, sums):
        slope, free_sq, free_lin, free_mass = sums
        curvature = -self.eta * (free_sq - free_lin * free_lin / free_mass) if free_mass > 0.0 else 0.0
        return slope, min(curvature, 0.0)

    def stop_tol(self, eps: float) -> float:
        """``eps/2``: a gap of at most ``eps/2`` gives ``rho(q) >= g - eps`` (000 Lemma 2)."""
        return eps / 2.0

    start_distribution = SoftMargin.start_distribution
    hard = SoftMargin.hard
