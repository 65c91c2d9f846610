"""Tests of the slow references in ``reference.py`` and of the worst case for LPBoost.

The references are checked against brute force on tiny data; the worst-case weak learner
(Warmuth, Glocer, Raetsch, NIPS 2007; paper 000, section 5) is checked with a tiny plain
LPBoost written here, independent of the package's solvers.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from marginboost.weak_learners.worst_case import (
    TableHypothesis,
    WorstCaseLearner,
    lpboost_worst_case_margins,
    make_lpboost_worst_case,
)
from reference import (
    all_stump_margins,
    exact_soft_margin_lp,
    small_real_datasets,
    soft_margin_reference,
)


# ------------------------------------------------------------------ soft_margin_reference
def _soft_margin_by_lp(q, nu):
    """min_{d in P(m, nu)} d @ q as an LP (the definition, not the sorting shortcut)."""
    m = len(q)
    res = linprog(q, A_eq=np.ones((1, m)), b_eq=[1.0], bounds=[(0.0, 1.0 / nu)] * m, method="highs")
    assert res.status == 0
    return res.fun


def test_soft_margin_reference_matches_lp_over_capped_simplex():
    rng = np.random.default_rng(0)
    for _ in range(60):
        m = int(rng.integers(1, 9))
        q = rng.normal(size=m)
        if rng.random() < 0.3:  # ties
            q = np.round(q)
        for nu in {1.0, float(m), 1.0 + (m - 1) * rng.random(), float(rng.integers(1, m + 1))}:
            assert soft_margin_reference(q, nu) == pytest.approx(_soft_margin_by_lp(q, nu), abs=1e-9)


def test_soft_margin_reference_small_cases_by_hand():
    q = np.array([3.0, -1.0, 2.0, 0.0])
    assert soft_margin_reference(q, 1) == -1.0
    assert soft_margin_reference(q, 2) == -0.5
    assert soft_margin_reference(q, 2.5) == pytest.approx((-1.0 + 0.0 + 0.5 * 2.0) / 2.5)
    assert soft_margin_reference(q, 4) == 1.0
    with pytest.raises(ValueError):
        soft_margin_reference(q, 0.5)
    with pytest.raises(ValueError):
        soft_margin_reference(q, 4.5)


# ------------------------------------------------------------------ all_stump_margins
def _stump_labelings_brute_force(X, y):
    """Every labelling a stump can induce: thresholds at each sample value and below all."""
    out = set()
    for f in range(X.shape[1]):
        for theta in np.concatenate([[-np.inf], X[:, f]]):
            h = np.where(X[:, f] > theta, 1.0, -1.0)
            for s in (1.0, -1.0):
                out.add(tuple(y * s * h))
    return out


def test_all_stump_margins_matches_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(40):
        m, p = int(rng.integers(1, 8)), int(rng.integers(1, 4))
        X = rng.integers(0, 4, size=(m, p)).astype(float)  # many ties in feature values
        y = rng.choice([-1.0, 1.0], size=m)
        U = all_stump_margins(X, y)
        assert U.shape[0] == m and U.dtype == np.float64
        cols = [tuple(c) for c in U.T]
        assert len(set(cols)) == len(cols), "duplicate columns"
        assert set(cols) == _stump_labelings_brute_force(X, y)
        assert U.shape[1] <= 2 * p * (m + 1)


def test_all_stump_margins_tiny_example():
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array([1.0, -1.0, 1.0])
    got = {tuple(c) for c in all_stump_margins(X, y).T}
    # predictions: +-(1,1,1), +-(-1,1,1), +-(-1,-1,1); margins = y * predictions
    preds = [(1, 1, 1), (-1, 1, 1), (-1, -1, 1)]
    want = {tuple(y * s * np.array(p, float)) for p in preds for s in (1, -1)}
    assert got == want


# ------------------------------------------------------------------ exact_soft_margin_lp
def _brute_force_soft_margin_max(U, nu):
    """Exact max over the simplex of soft_margin_reference(U @ w), for 2 or 3 columns.

    The objective is concave and linear on each cell of the arrangement of hyperplanes
    {(U w)_i = (U w)_k} and {w_j = 0} (inside a cell the order of the margins is fixed), so
    the maximum is at a vertex of that arrangement inside the simplex: enumerate them all.
    """
    m, n = U.shape
    planes = [U[i] - U[k] for i in range(m) for k in range(i + 1, m)] + list(np.eye(n))
    best = -np.inf
    for combo in itertools.combinations(planes, n - 1):
        A = np.vstack(list(combo) + [np.ones(n)])
        b = np.zeros(n)
        b[-1] = 1.0
        if abs(np.linalg.det(A)) < 1e-12:
            continue
        w = np.linalg.solve(A, b)
        if np.all(w >= -1e-12):
            w = np.clip(w, 0.0, None)
            best = max(best, soft_margin_reference(U @ (w / w.sum()), nu))
    return best


@pytest.mark.parametrize("n_cols", [2, 3])
def test_exact_soft_margin_lp_matches_brute_force(n_cols):
    rng = np.random.default_rng(2 + n_cols)
    for _ in range(25):
        m = int(rng.integers(2, 7))
        U = rng.uniform(-1, 1, size=(m, n_cols))
        nu = 1.0 + (m - 1) * rng.random()
        value, w, d = exact_soft_margin_lp(U, nu)
        assert value == pytest.approx(_brute_force_soft_margin_max(U, nu), abs=1e-8)
        # w is a primal optimum, d a dual optimum
        assert np.all(w >= -1e-9) and w.sum() == pytest.approx(1.0)
        assert soft_margin_reference(U @ w, nu) == pytest.approx(value, abs=1e-8)
        assert np.all(d >= -1e-9) and np.all(d <= 1.0 / nu + 1e-9) and d.sum() == pytest.approx(1.0)
        assert np.max(d @ U) == pytest.approx(value, abs=1e-8)


def test_exact_soft_margin_lp_single_column_is_the_soft_margin():
    q = np.array([0.5, -0.2, 0.9, 0.1])
    for nu in (1.0, 2.0, 2.7, 4.0):
        value, w, d = exact_soft_margin_lp(q[:, None], nu)
        assert value == pytest.approx(soft_margin_reference(q, nu), abs=1e-9)


def test_exact_soft_margin_lp_rejects_bad_nu():
    with pytest.raises(ValueError):
        exact_soft_margin_lp(np.ones((3, 2)), 3.5)


# ------------------------------------------------------------------ small_real_datasets
def test_small_real_datasets_are_small_and_solvable():
    data = small_real_datasets()
    assert len(data) >= 3
    names = [name for name, _, _ in data]
    assert len(set(names)) == len(names)
    for name, X, y in data:
        m, p = X.shape
        assert 20 <= m <= 150 and 1 <= p <= 8, name
        assert X.dtype == np.float64 and np.all(np.isfinite(X)), name
        assert set(np.unique(y)) == {-1.0, 1.0}, name
        U = all_stump_margins(X, y)
        nu = 0.2 * m
        value, w, d = exact_soft_margin_lp(U, nu)
        assert soft_margin_reference(U @ w, nu) == pytest.approx(value, abs=1e-7)
        assert np.max(d @ U) == pytest.approx(value, abs=1e-7)
        # no stump combination can do worse than the best single stump
        best_single = max(soft_margin_reference(U[:, j], nu) for j in range(U.shape[1]))
        assert value >= best_single - 1e-9
    # deterministic
    again = small_real_datasets()
    for (n1, X1, y1), (n2, X2, y2) in zip(data, again):
        assert n1 == n2 and np.array_equal(X1, X2) and np.array_equal(y1, y2)


# ------------------------------------------------------------------ worst case for LPBoost
def plain_lpboost(oracle, y, nu, tol, max_rounds=10_000):
    """Textbook LPBoost (Demiriz et al. 2002, as in Warmuth et al. 2007), one LP per round.

    Start with uniform d; each round ask the oracle for h, stop if its edge
    d @ u <= gamma + tol, else add u = y * h(X) and solve the restricted master
        min_{d in P(m, nu), gamma} gamma  s.t.  u_k @ d <= gamma  for every chosen k.
    Returns (rounds, gammas, chosen column indices, margin matrix of chosen columns).
    """
    m = len(y)
    d = np.full(m, 1.0 / m)
    gamma = -np.inf
    cols, gammas, chosen = [], [], []
    for _ in range(max_rounds):
        h, pred = oracle(d)
        u = y * pred
        if d @ u <= gamma + tol:
            break
        cols.append(u)
        chosen.append(h.index)
        Ut = np.column_stack(cols)
        t = Ut.shape[1]
        res = linprog(
            np.concatenate([np.zeros(m), [1.0]]),
            A_ub=np.hstack([Ut.T, -np.ones((t, 1))]), b_ub=np.zeros(t),
            A_eq=np.concatenate([np.ones(m), [0.0]])[None, :], b_eq=[1.0],
            bounds=[(0.0, 1.0 / nu)] * m + [(None, None)], method="highs",
        )
        assert res.status == 0, res.message
        d, gamma = res.x[:m], res.x[m]
        gammas.append(gamma)
    else:
        raise AssertionError("LPBoost did not stop")
    return len(cols), np.array(gammas), chosen, np.column_stack(cols)


def test_worst_case_instance_matches_the_table_for_m8():
    e = 0.01
    U = lpboost_worst_case_margins(8, eps=e)
    k = np.rint((U + 1.0) / e).astype(int)  # entries as -1 + k * eps (k = 200: +1, 199: 1 - eps)
    expected = np.array([
        [200, 5, 7, 9, 1],
        [200, 5, 7, 9, 1],
        [200, 5, 7, 9, 1],
        [200, 5, 7, 9, 1],
        [2, 200, 7, 9, 199],
        [3, 4, 200, 9, 199],
        [3, 5, 6, 200, 199],
        [3, 5, 7, 8, 199],
    ])
    assert np.array_equal(k, expected)
    assert np.allclose(U, -1.0 + expected * e)


@pytest.mark.parametrize("tol", [1e-6, 1e-2, 1.0])
def test_lpboost_needs_m_over_2_rounds_on_worst_case(tol):
    m, nu = 64, 1
    X, y = make_lpboost_worst_case(m)
    oracle = WorstCaseLearner().prepare(X, y)
    U_all = oracle.margin_matrix
    assert np.array_equal(U_all, lpboost_worst_case_margins(m))
    assert np.all(np.abs(U_all) <= 1.0)
    opt, _, _ = exact_soft_margin_lp(U_all, nu)

    rounds, gammas, chosen, _ = plain_lpboost(oracle, y, nu, tol)
    assert rounds >= m / 2 - 1
    assert rounds == m // 2 + 1
    assert chosen == list(range(m // 2 + 1))  # every hypothesis, in the construction's order
    eps = 1.0 / (2 * m)
    # gamma_t = -1 + 2 t eps before the last hypothesis: far from the optimum (about eps/2)
    assert np.allclose(gammas[:-1], -1.0 + 2.0 * eps * np.arange(1, rounds))
    assert np.all(gammas[:-1] < opt - 0.5)
    assert gammas[-1] == pytest.approx(opt, abs=1e-7)  # the optimum over all hypotheses
    assert opt >= eps / 2 - 1e-9


def test_lpboost_worst_case_soft_margin_by_replication():
    m, nu = 64, 2
    X, y = make_lpboost_worst_case(m, nu=nu)
    oracle = WorstCaseLearner(nu=nu).prepare(X, y)
    opt, _, _ = exact_soft_margin_lp(oracle.margin_matrix, nu)
    rounds, gammas, _, _ = plain_lpboost(oracle, y, nu, 1e-6)
    assert rounds == m // (2 * nu) + 1
    assert gammas[-1] == pytest.approx(opt, abs=1e-7)
    assert np.all(gammas[:-1] < opt - 0.5)


def test_worst_case_learner_contract_and_permuted_rows():
    m = 16
    X, y = make_lpboost_worst_case(m, eps=0.02)
    assert X.shape == (m, 1) and set(np.unique(y)) == {-1.0, 1.0} and np.any(y < 0)
    perm = np.random.default_rng(5).permutation(m)
    oracle = WorstCaseLearner(eps=0.02).prepare(X[perm], y[perm])
    assert np.array_equal(oracle.margin_matrix, lpboost_worst_case_margins(m, eps=0.02)[perm])
    d = np.random.default_rng(6).dirichlet(np.ones(m))
    h, pred = oracle(d)
    assert isinstance(h, TableHypothesis)
    assert np.array_equal(h.predict(X[perm]), pred)
    assert pred.dtype == np.float64 and np.all(np.abs(pred) <= 1.0)
    edges = d @ oracle.margin_matrix
    assert d @ (y[perm] * pred) == pytest.approx(edges.max())
    with pytest.raises(ValueError):
        h.predict(np.array([[m + 0.0]]))
    with pytest.raises(ValueError):
        make_lpboost_worst_case(10, nu=2)  # 10 is not a multiple of 2 * nu
    with pytest.raises(ValueError):
        lpboost_worst_case_margins(8, eps=2.0 / 9)  # eps must be < 2/(n+1)
