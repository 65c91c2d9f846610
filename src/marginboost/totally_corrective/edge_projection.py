"""The relative-entropy projection of TotalBoost and SoftBoost onto the edge constraints.

Over the margin columns ``u_1..u_t`` (matrix ``U``, m x t) found so far, both algorithms
send the weak learner the distribution (Warmuth, Liao, Raetsch, ICML 2006, TotalBoost step
(d); Warmuth, Glocer, Raetsch, NIPS 2007, SoftBoost Algorithm 1 step (d))::

    d^t = argmin_{d in P(m, nu)}  Delta(d, d^0)   s.t.   d @ u_q <= gamma_hat   (q = 1..t)

with ``Delta(d, d^0) = sum_i d_i ln(d_i m)`` the relative entropy to the uniform ``d^0``,
``P(m, 1)`` the simplex (TotalBoost) and ``P(m, nu)`` the capped simplex (SoftBoost).

We solve its Lagrange dual over the ``t`` multipliers ``beta >= 0`` of the edge rows
(our own method; ``tests/test_edge_projection.py`` checks it against cvxpy + Clarabel)::

    phi(beta) = min_{d in P(m, nu)} Delta(d, d^0) + beta @ (U^T d - gamma_hat)
              = Delta(d_beta) + d_beta @ (U beta) - gamma_hat * sum(beta),
    d_beta    = capped_simplex_kl_projection(U beta, nu, eta=1)     (expected O(m), by selection)
    grad phi  = U^T d_beta - gamma_hat                               (edge violations)
    Hess phi  = -U_F^T (diag(d_F) - d_F d_F^T / s_F) U_F             (F: uncapped examples)

``phi`` is concave; it is maximised by projected Newton steps over the bound ``beta >= 0``
(Bertsekas' active set: a multiplier at 0 whose gradient points below 0 is held there) with
an Armijo line search along the projected path, and a projected gradient step as fallback.
When the feasible set has a point with strict edge inequalities (Slater), the dual maximum is
attained and ``d_{beta*}`` is the projection. Whether the feasible set is empty is decided
beforehand by the LP value: ``{d in P : U^T d <= gamma_hat} != {}`` iff
``min_{d in P} max_q d @ u_q <= gamma_hat`` (the booster does this, :mod:`marginboost.totally_corrective.softboost`).

Convergence test: the KKT residual ``max_q r_q`` with ``r_q = |grad_q|`` where ``beta_q > 0``
and ``r_q = max(grad_q, 0)`` where ``beta_q = 0``, i.e. every edge is at most
``gamma_hat + tol`` and every active row is tight to ``tol``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import xlogy

from marginboost.core.margin_matrix import as_margin_matrix
from marginboost.core.projections import capped_simplex_kl_projection


@dataclass
class EdgeProjection:
    """Result: the projection ``d``, the multipliers ``beta``, ``Delta(d, uniform)`` and solver status."""

    d: np.ndarray
    beta: np.ndarray
    entropy: float
    kkt: float
    n_iter: int
    converged: bool


def relative_entropy(d: np.ndarray) -> float:
    """``Delta(d, uniform) = sum_i d_i ln(d_i m)`` with ``0 ln 0 = 0``."""
    return float(xlogy(d, d).sum() + np.log(d.shape[0]))


def _dual(U, beta, gamma_hat, nu):
    q = U.matvec(beta)
    d = capped_simplex_kl_projection(q, nu, 1.0)
    value = relative_entropy(d) + float(d @ q) - gamma_hat * float(beta.sum())
    return value, d, U.rmatvec(d) - gamma_hat


# A multiplier at most this large counts as at its bound 0, in the KKT measure as in the
# iteration's held set: with different thresholds, a multiplier of 1e-12 with a negative
# gradient was held (never moved to 0) yet counted as interior, and the loop stalled.
AT_BOUND = 1e-12


def _kkt(beta, grad):
    return float(np.max(np.where(beta > AT_BOUND, np.abs(grad), np.maximum(grad, 0.0)), initial=0.0))


def _newton_direction(U, d, grad, free_rows, nu):
    """``(-Hess_JJ + ridge)^{-1} grad_J`` on the free multipliers ``J``, zero elsewhere."""
    cap = 1.0 / nu
    # Capped examples do not move locally; examples of negligible weight change the Newton
    # model (not the objective, which the line search evaluates exactly) by < 1e-12.
    examples = (d < cap * (1.0 - 1e-12)) & (d > 1e-12 * d.max())
    v = np.zeros(grad.shape[0])
    if not free_rows.any() or not examples.any():
        return v
    d_f = d[examples]
    s_f = d_f.sum()
    Uf = U.block_t(np.flatnonzero(examples), np.flatnonzero(free_rows)).T
    mean = d_f @ Uf / s_f
    H = Uf.T @ (Uf * d_f[:, None]) - s_f * np.outer(mean, mean)
    # A ridge keeps the system solvable when columns coincide on the uncapped examples.
    k = H.shape[0]
    H[np.diag_indices(k)] += 1e-10 * max(np.trace(H) / k, 1e-12) + 1e-14
    v[free_rows] = np.linalg.solve(H, grad[free_rows])
    return v


def project_onto_edge_constraints(
    U,
    gamma_hat: float,
    nu: float = 1.0,
    beta0: np.ndarray | None = None,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> EdgeProjection:
    """Return the relative-entropy projection of the uniform distribution onto
    ``{d in P(m, nu) : U^T d <= gamma_hat}`` (see the module docstring).

    The caller guarantees a strictly feasible point exists (LP value < ``gamma_hat``);
    ``beta0`` (>= 0, length ``t``) warm-starts the multipliers, e.g. with the previous
    round's plus a 0 for the new column. ``U``: an (m, t) array or a margin matrix object
    (:class:`~marginboost.core.margin_matrix.MarginMatrix`,
    :class:`~marginboost.core.bit_matrix.BitMarginMatrix`), read only by its products and blocks.
    """
    U = as_margin_matrix(U)
    t = U.n
    beta = np.zeros(t) if beta0 is None else np.clip(np.asarray(beta0, dtype=np.float64), 0.0, None)
    value, d, grad = _dual(U, beta, gamma_hat, nu)
    kkt = _kkt(beta, grad)
    for it in range(max_iter):
        if kkt <= tol:
            return EdgeProjection(d, beta, relative_entropy(d), kkt, it, True)
        # Multipliers at the bound whose gradient asks to go below 0 stay there this step.
        held = (beta <= AT_BOUND) & (grad <= 0.0)
        step = None
        for direction in (_newton_direction(U, d, grad, ~held, nu), np.where(held, 0.0, grad)):
            step = _armijo(U, beta, value, grad, direction, gamma_hat, nu)
            if step is not None:
                break
        if step is None:  # no ascent found at machine precision: report what we have
            break
        beta, value, d, grad = step
        kkt = _kkt(beta, grad)
    return EdgeProjection(d, beta, relative_entropy(d), kkt, max_iter, kkt <= tol)


def _armijo(U, beta, value, grad, direction, gamma_hat, nu):
    """Backtrack along ``max(beta + lam * direction, 0)`` until the Armijo condition holds.

    When the predicted gain is below the resolution of ``phi`` (a relative 1e-12), values
    cannot rank the points any more; there a step is accepted if it shrinks the KKT residual.
    """
    lam = 1.0
    old_kkt = _kkt(beta, grad)
    for _ in range(60):
        trial = np.maximum(beta + lam * direction, 0.0)
        new_value, d, new_grad = _dual(U, trial, gamma_hat, nu)
        gain = float(grad @ (trial - beta))
        if gain <= 1e-12 * (1.0 + abs(value)):
            if _kkt(trial, new_grad) < old_kkt:
                return trial, new_value, d, new_grad
        elif new_value >= value + 1e-4 * gain:
            return trial, new_value, d, new_grad
        lam *= 0.5
    return None
