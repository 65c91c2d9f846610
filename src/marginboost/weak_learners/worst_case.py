"""The worst-case instance for LPBoost (Warmuth, Glocer and Raetsch, NIPS 2007).

Reference: M. K. Warmuth, K. Glocer, G. Raetsch, "Boosting Algorithms for Maximizing the
Soft Margin", NIPS 20 (2007), pp. 1585-1592, section "lower bound for LPBoost"; recalled in
paper 000 (Mitsuboshi, Hatano, Takimoto, "Boosting as Frank-Wolfe"), section 5: LPBoost
needs about m/2 iterations on this instance, MLPBoost and ERLPBoost about 2.

The construction (hard margin, nu = 1)
--------------------------------------
``n`` (even) examples, ``half = n / 2``, rows ``i = 0..n-1`` (0-based), a small ``eps > 0``.
The hypothesis set has ``half + 1`` members, given by their margin vectors
``u_j = y * h_j(X)`` (the columns of the margin matrix ``U``, shape ``(n, half + 1)``)::

    column 0        (h_1, "good on the first half"):
        u_i = +1             i <  half
              -1 + 2 eps     i == half
              -1 + 3 eps     i >  half
    column q = 1..half-1  (h_{q+1}, "good on one example r_q = half + q - 1"),
                            with g_q = 3 + 2 q:
        u_i = +1                  i == r_q
              -1 + (g_q - 1) eps  i == r_q + 1
              -1 + g_q eps        otherwise
    column half     (h_{half+1}, "the one LPBoost needs"):
        u_i = -1 + eps       i <  half
              +1 - eps       i >= half

For n = 8 (rows = examples, columns = hypotheses)::

          h1        h2        h3        h4        h5
    0     +1      -1+5e     -1+7e     -1+9e     -1+e
    ..    +1      -1+5e     -1+7e     -1+9e     -1+e
    3     +1      -1+5e     -1+7e     -1+9e     -1+e
    4   -1+2e       +1      -1+7e     -1+9e     +1-e
    5   -1+3e     -1+4e       +1      -1+9e     +1-e
    6   -1+3e     -1+5e     -1+6e       +1      +1-e
    7   -1+3e     -1+5e     -1+7e     -1+8e     +1-e

Why LPBoost needs ``half + 1`` rounds.  Started from the uniform distribution, the best
edge is h_1's, ``eps (3 half - 1) / n > 0`` (h_{half+1} has edge 0, the others are
negative when ``eps <= 1/(2n)``).  After t hypotheses h_1..h_t (1 <= t <= half) the
restricted master ``min_{d in simplex} max_{k <= t} d @ u_k`` has the *unique* solution
``d = e_{half+t-1}`` with value ``gamma_t = -1 + 2 t eps`` (the newest column is smallest,
uniquely, on that row).  On that vertex the maximum-edge hypothesis is h_{t+1}
(edge +1, beating h_{half+1}'s 1 - eps) for t < half, and h_{half+1} (edge 1 - eps) for
t = half, after which the master LP is the full LP.  So LPBoost adds every column, in
order, ``n/2 + 1`` hypotheses, while its value stays at ``-1 + O(n eps)`` until the last
round; the optimum is about ``eps/2`` (h_1 and h_{half+1} with weight 1/2 each already
give ``eps/2``).  LPBoost's stopping test "best edge <= gamma_t + tol" cannot fire earlier
when ``tol < 2 - (n + 1) eps``; MLPBoost and ERLPBoost, whose distributions spread over the
second half, pick h_{half+1} in their second round.

Soft margin (nu > 1): each row of the base instance (with ``n = m / nu`` rows) is
replicated ``nu`` times (integer ``nu``).  A capped distribution ``d in P(m, nu)`` summed
over the copies of a row is an arbitrary point of the simplex over the ``n`` base rows (and
every such point arises), so the restricted master LPs, their values and the edges are
those of the base instance: LPBoost with capping ``nu`` needs ``m / (2 nu) + 1`` rounds.

The instance's entries lie in [-1, 1] and the trajectory above is forced iff
``0 < eps < 2 / (n + 1)`` (and, from a uniform start, ``eps <= 1/(2n)``).  The default
``eps = 1 / (2 n)`` follows the scaling ``eps = tol / (2 m)`` of the authors' Rust crate
miniboosts (worst-case learner), with ``tol = 1`` instead of 1e-9 so that the gaps between
edges stay far above LP solver tolerances.  The text of the NIPS paper was not available
to us; the table above is the construction as recalled in its figure and as laid out in
miniboosts at nu = 1, and its properties are checked by ``tests/test_reference.py``.

Representation.  ``X`` has one feature, the example id ``0..m-1``; a hypothesis is a
:class:`TableHypothesis`, a lookup of one column of predictions by that id.  Labels
alternate (+1, -1, +1, ...), so that a booster that forgets to multiply by ``y`` fails.
"""
from __future__ import annotations

import numpy as np

from marginboost.weak_learners.base import EdgeOracle, Hypothesis, WeakLearner

__all__ = [
    "lpboost_worst_case_margins",
    "make_lpboost_worst_case",
    "TableHypothesis",
    "WorstCaseLearner",
]


def _check_instance(m: int, nu: int) -> int:
    """Validate ``m`` and ``nu``; return the size ``n = m / nu`` of the base instance."""
    if int(nu) != nu or nu < 1:
        raise ValueError(f"nu must be a positive integer (rows are replicated nu times), got {nu}")
    nu = int(nu)
    if int(m) != m or m < 2 or m % (2 * nu) != 0:
        raise ValueError(f"m must be a positive multiple of 2 * nu = {2 * nu}, got m={m}")
    return int(m) // nu


def _default_eps(n: int) -> float:
    return 1.0 / (2.0 * n)


def lpboost_worst_case_margins(m: int, eps: float | None = None, nu: int = 1) -> np.ndarray:
    """Margin matrix ``U`` (shape ``(m, m / (2 nu) + 1)``) of the worst case for LPBoost.

    ``U[i, j] = y_i h_j(x_i)``; the construction is in the module docstring (Warmuth, Glocer,
    Raetsch 2007).  ``eps`` defaults to ``1 / (2 n)`` with ``n = m / nu``; rows of the base
    instance are repeated ``nu`` times (``np.repeat``: copies are adjacent).
    """
    n = _check_instance(m, nu)
    if eps is None:
        eps = _default_eps(n)
    eps = float(eps)
    # The largest entry is -1 + (n + 1) eps (it must stay below +1, else ties with the +1s),
    # and at the last step h_{half+1} (edge 1 - eps) must beat -1 + n eps: both say
    # eps < 2 / (n + 1).
    if not (0.0 < eps < 2.0 / (n + 1)):
        raise ValueError(f"eps must lie in (0, 2/(n+1)) = (0, {2.0 / (n + 1):.6g}) for n={n}, got {eps}")
    half = n // 2
    U = np.empty((n, half + 1), dtype=np.float64)
    rows = np.arange(n)
    # h_1: +1 on the first half, just above -1 on the second (lowest on row `half`).
    U[:, 0] = np.where(rows < half, 1.0, -1.0 + 3.0 * eps)
    U[half, 0] = -1.0 + 2.0 * eps
    # h_{q+1}: +1 on row r_q only; its lowest value sits on the next row, where LPBoost's
    # distribution goes next.  g_q grows by 2 per column so each new column is the unique
    # tight one on exactly one row.
    for q in range(1, half):
        r, g = half + q - 1, 3 + 2 * q
        U[:, q] = -1.0 + g * eps
        U[r, q] = 1.0
        U[r + 1, q] = -1.0 + (g - 1) * eps
    # h_{half+1}: the hypothesis the optimum needs; its edge 1 - eps loses to +1 until the end.
    U[:, half] = np.where(rows < half, -1.0 + eps, 1.0 - eps)
    return np.repeat(U, nu, axis=0)


def make_lpboost_worst_case(m: int, eps: float | None = None, nu: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(X, y)`` of the worst-case instance for LPBoost with ``m`` examples.

    ``X`` has shape ``(m, 1)`` and holds the example id ``0..m-1`` (float64): the hypotheses of
    :class:`WorstCaseLearner` look their prediction up by this id.  ``y`` alternates +1, -1.
    ``m`` must be a multiple of ``2 nu``; ``eps`` and ``nu`` are those of
    :func:`lpboost_worst_case_margins` (validated here so that errors surface early).
    LPBoost with capping ``nu`` needs ``m / (2 nu) + 1`` rounds on it (Warmuth, Glocer,
    Raetsch 2007; see the module docstring).
    """
    lpboost_worst_case_margins(m, eps, nu)  # validation only
    X = np.arange(m, dtype=np.float64).reshape(-1, 1)
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    return X, y


class TableHypothesis(Hypothesis):
    """``h(x) = table[id(x)]``: a fixed prediction per example id, the id being ``x[0]``.

    ``index`` is the hypothesis' column in the instance's margin matrix.
    """

    def __init__(self, table: np.ndarray, index: int):
        self.table = np.asarray(table, dtype=np.float64)
        self.index = int(index)

    def predict(self, X: np.ndarray) -> np.ndarray:
        ids = np.asarray(X, dtype=np.float64)[:, 0]
        ids_int = np.rint(ids).astype(np.int64)
        if np.any(ids_int != ids) or np.any(ids_int < 0) or np.any(ids_int >= self.table.shape[0]):
            raise ValueError(
                "TableHypothesis predicts only on examples of its instance: "
                f"feature 0 must be an integer id in [0, {self.table.shape[0]})"
            )
        return self.table[ids_int].copy()

    def __repr__(self) -> str:
        return f"TableHypothesis(index={self.index}, m={self.table.shape[0]})"


class _WorstCaseOracle(EdgeOracle):
    """The hypothesis set of the instance, bound to one sample; returns a max-edge member."""

    def __init__(self, hypotheses: list[TableHypothesis], predictions: np.ndarray, y: np.ndarray):
        self.hypotheses = hypotheses
        self.predictions = predictions  # (m, K): h_j(X_train), training rows in sample order
        #: margin matrix U = y * h(X) in sample row order, one column per hypothesis
        self.margin_matrix = y[:, None] * predictions

    def __call__(self, d: np.ndarray) -> tuple[Hypothesis, np.ndarray]:
        d = np.asarray(d, dtype=np.float64)
        if d.shape != (self.margin_matrix.shape[0],):
            raise ValueError(f"d must have shape ({self.margin_matrix.shape[0]},), got {d.shape}")
        edges = d @ self.margin_matrix
        # Ties go to the lowest column index (np.argmax returns the first maximum), i.e. to
        # h_1, then the one-example hypotheses, and h_{half+1} last: the construction's order.
        # On LPBoost's trajectory the best edge is never tied (the gaps are >= eps).
        j = int(np.argmax(edges))
        return self.hypotheses[j], self.predictions[:, j].copy()


class WorstCaseLearner(WeakLearner):
    """Exact weak learner over the worst-case hypothesis set for LPBoost (WGR 2007).

    Use on the sample from :func:`make_lpboost_worst_case` (rows may be permuted: the id
    feature identifies each example).  The oracle returns, for a distribution ``d``, the
    hypothesis of maximum edge ``d @ u_j`` over the ``n/2 + 1`` hypotheses of the
    construction (module docstring), ties to the lowest index.  ``eps`` and ``nu`` must
    match those the instance was built with (defaults: ``eps = 1/(2n)``, ``nu = 1``).
    """

    def __init__(self, eps: float | None = None, nu: int = 1):
        self.eps = eps
        self.nu = nu

    def prepare(self, X: np.ndarray, y: np.ndarray) -> _WorstCaseOracle:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != y.shape[0]:
            raise ValueError("X must be 2-d with one row per label")
        m = X.shape[0]
        ids = X[:, 0]
        ids_int = np.rint(ids).astype(np.int64)
        if np.any(ids_int != ids) or not np.array_equal(np.sort(ids_int), np.arange(m)):
            raise ValueError("feature 0 of X must be a permutation of the example ids 0..m-1 "
                             "(use make_lpboost_worst_case)")
        U = lpboost_worst_case_margins(m, self.eps, self.nu)  # rows indexed by id
        # Predictions indexed by id, chosen so that y_i h_j(x_i) = U[id_i, j] for the labels given.
        table = np.empty_like(U)
        table[ids_int] = y[:, None] * U[ids_int]
        hypotheses = [TableHypothesis(table[:, j], j) for j in range(U.shape[1])]
        predictions = table[ids_int]
        return _WorstCaseOracle(hypotheses, predictions, y)
