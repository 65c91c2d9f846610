"""The dense dual simplex master (``DualSimplexMaster``) against independent solvers.

References: scipy's ``linprog`` on the whole restricted LP from scratch (small cases) and HiGHS
hot-started row by row (``RestrictedMasterLP``) on LPBoost's own column sequences. The optimum
must agree to 1e-9 in every round; ``w`` and ``d`` must be a primal-dual optimal pair (checked
by strong duality, not by comparing vertices: a degenerate LP has several).
"""
import numpy as np
import pytest

import marginboost.soft_margin.dual_simplex as dual_simplex
from marginboost.soft_margin.dual_simplex import DualSimplexMaster
from marginboost.soft_margin.objectives import soft_margin
from marginboost.soft_margin.restricted_lp import RestrictedMasterLP
from marginboost.soft_margin.secondary import LPRule
from marginboost.weak_learners import EdgeTree
from tests.test_restricted_lp import edge_minimisation_linprog, random_capped_problem


def assert_optimal_pair(U, caps, w, d, gamma, weights=None, tol=1e-9):
    """``d`` feasible with every edge <= gamma, ``w`` in the simplex with soft margin gamma."""
    assert np.all(d >= 0) and np.all(d <= caps + tol) and d.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.max(d @ U) <= gamma + tol
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    q = U @ w
    nu = 1.0 / caps[0] if weights is None else None
    if nu is not None:
        assert soft_margin(q, nu) >= gamma - tol
    assert d @ q == pytest.approx(gamma, abs=tol)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_each_round_matches_linprog_from_scratch(seed, weighted):
    rng = np.random.default_rng(seed)
    m, t, nu = 80, 25, 9.0
    U, weights, caps = random_capped_problem(rng, m, t, nu, weighted)
    lp = DualSimplexMaster(m, nu, weights)
    for k in range(t):
        lp.add_hypothesis(U[:, k])
        w, d, gamma = lp.solve()
        assert gamma == pytest.approx(edge_minimisation_linprog(U[:, : k + 1], caps), abs=1e-9)
        assert_optimal_pair(U[:, : k + 1], caps, w, d, gamma, weights)
    assert lp.n_fallbacks == 0


def lpboost_columns(m, nu_fraction, seed, max_depth=2, rounds=400):
    """LPBoost's own columns (HiGHS master) on a noisy sample: a degenerate, realistic sequence."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 6))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.8, size=m) > 0.4, 1.0, -1.0)
    oracle = EdgeTree(max_depth=max_depth).prepare(X, y)
    nu = nu_fraction * m
    lp = RestrictedMasterLP(m, nu)
    d, columns, gammas = np.full(m, 1.0 / m), [], []
    for _ in range(rounds):
        _, pred = oracle(d)
        u = y * np.asarray(pred, dtype=np.float64)
        if columns and d @ u <= gammas[-1] + 1e-3:
            break
        columns.append(u)
        lp.add_hypothesis(u)
        _, d, gamma = lp.solve()
        gammas.append(gamma)
    return np.column_stack(columns), nu, np.array(gammas)


@pytest.mark.parametrize("m, nu_fraction, seed", [(300, 0.1, 0), (300, 0.5, 1), (600, 0.1, 2), (200, 0.02, 3)])
def test_lpboost_sequence_matches_hot_started_highs(m, nu_fraction, seed):
    U, nu, gammas = lpboost_columns(m, nu_fraction, seed)
    assert U.shape[1] >= 15  # a sequence long enough to exercise the hot start
    lp = DualSimplexMaster(m, nu)
    caps = np.full(m, 1 / nu)
    for k in range(U.shape[1]):
        lp.add_hypothesis(U[:, k])
        w, d, gamma = lp.solve()
        assert abs(gamma - gammas[k]) <= 1e-9, f"round {k}"
        assert_optimal_pair(U[:, : k + 1], caps, w, d, gamma)
    assert lp.n_fallbacks == 0
    assert lp.n_pivots > U.shape[1]  # it pivoted: not a sequence of trivially optimal bases


def test_duplicate_rows_share_their_weight():
    rng = np.random.default_rng(4)
    m, nu = 50, 5.0
    U = np.sign(rng.uniform(-1, 1, size=(m, 8)))
    U = np.column_stack([U, U[:, 2], U[:, 2]])  # the same hypothesis three times
    lp = DualSimplexMaster(m, nu)
    for k in range(U.shape[1]):
        lp.add_hypothesis(U[:, k])
        w, d, gamma = lp.solve()
        assert gamma == pytest.approx(edge_minimisation_linprog(U[:, : k + 1], np.full(m, 1 / nu)), abs=1e-9)
    assert_optimal_pair(U, np.full(m, 1 / nu), w, d, gamma)


def test_real_valued_rows_use_the_float_path():
    rng = np.random.default_rng(5)
    m, nu = 70, 6.0
    U = np.sign(rng.uniform(-1, 1, size=(m, 10)))
    U[:, 4] = rng.uniform(-1, 1, size=m)  # one real-valued hypothesis: the bits are dropped
    lp = DualSimplexMaster(m, nu)
    for k in range(U.shape[1]):
        lp.add_hypothesis(U[:, k])
        w, d, gamma = lp.solve()
        assert gamma == pytest.approx(edge_minimisation_linprog(U[:, : k + 1], np.full(m, 1 / nu)), abs=1e-9)
    assert type(lp._rows.matrix.matrix).__name__ == "MarginMatrix"


@pytest.mark.parametrize("m, nu", [(1, 1.0), (2, 1.0), (2, 2.0), (9, 9.0), (9, 1.0)])
def test_tiny_problems_and_extreme_caps(m, nu):
    """One example; nu = m (d forced uniform); nu = 1 (the hard margin)."""
    rng = np.random.default_rng(m)
    U = np.sign(rng.uniform(-1, 1, size=(m, 6)))
    lp = DualSimplexMaster(m, nu)
    for k in range(U.shape[1]):
        lp.add_hypothesis(U[:, k])
        w, d, gamma = lp.solve()
        assert gamma == pytest.approx(edge_minimisation_linprog(U[:, : k + 1], np.full(m, 1 / nu)), abs=1e-9)


def test_numerical_trouble_falls_back_to_highs_and_continues(monkeypatch):
    U, nu, gammas = lpboost_columns(200, 0.1, 6)
    lp = DualSimplexMaster(200, nu)
    calls = {"n": 0}
    iterate = DualSimplexMaster._iterate

    def failing_once(self, certify=True):
        calls["n"] += 1
        return False if calls["n"] == 9 else iterate(self, certify)

    monkeypatch.setattr(DualSimplexMaster, "_iterate", failing_once)
    for k in range(U.shape[1]):
        lp.add_hypothesis(U[:, k])
        assert abs(lp.solve()[2] - gammas[k]) <= 1e-9
    assert lp.n_fallbacks == 1  # one round by HiGHS, every later one hot-started from its basis


def test_a_wrong_answer_is_never_certified(monkeypatch):
    """Break the pivot's bookkeeping: the certificate must catch it and HiGHS must answer."""
    U, nu, gammas = lpboost_columns(200, 0.1, 7)
    basis_change = DualSimplexMaster._basis_change

    def corrupt(self, r, q, alpha_q, bound, to_upper, theta):
        basis_change(self, r, q, alpha_q, bound, to_upper, theta)
        self._y[1:] *= 1.01  # wrong duals: the reduced costs no longer match

    monkeypatch.setattr(DualSimplexMaster, "_basis_change", corrupt)
    monkeypatch.setattr(dual_simplex, "REFACTOR_EVERY", 10**9)
    lp = DualSimplexMaster(200, nu)
    for k in range(U.shape[1]):
        lp.add_hypothesis(U[:, k])
        assert abs(lp.solve()[2] - gammas[k]) <= 1e-9


def test_lp_rule_solvers_reach_the_same_optimum():
    U, nu, _ = lpboost_columns(300, 0.2, 8)

    class Objective:
        weights = None

    rules = {}
    for solver in ("dual_simplex", "highs"):
        rules[solver] = rule = LPRule(solver)
        rule.start(300, nu, Objective(), 0.01)
    for k in range(1, U.shape[1] + 1):
        a, b = rules["dual_simplex"](U[:, :k], None), rules["highs"](U[:, :k], None)
        ours, highs = soft_margin(a.q, nu), soft_margin(b.q, nu)
        # HiGHS' duals are optimal to its tolerance (1e-7); ours are certified to 1e-10
        assert ours >= highs - 1e-9 and ours == pytest.approx(highs, abs=1e-7)
        assert np.max(a.d @ U[:, :k]) <= ours + 1e-9  # and d proves that no w does better
    with pytest.raises(ValueError, match="solver must be one of"):
        LPRule("gurobi")


def test_same_input_same_output():
    U, nu, _ = lpboost_columns(300, 0.1, 9)
    runs = []
    for _ in range(2):
        lp = DualSimplexMaster(300, nu)
        for k in range(U.shape[1]):
            lp.add_hypothesis(U[:, k])
            out = lp.solve()
        runs.append(out)
    for a, b in zip(runs[0], runs[1]):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_caps_that_miss_one_by_rounding_are_left_to_highs_for_good():
    """Hostile weights (issue 18): caps summing to 1 - 2e-16 make the LP infeasible by one
    rounding. HiGHS accepts it within its tolerance; so does this solver, by handing the LP to
    HiGHS for the rest of the fit (the behaviour before it existed), instead of failing."""
    weights = np.array([1.0, 1.0, 1.0 - 6e-16])
    assert (weights / 3.0).sum() < 1.0
    rows = [np.array([1.0, -1.0, -1.0]), np.array([-1.0, 1.0, -1.0])]
    ours, highs = DualSimplexMaster(3, 3.0, weights), RestrictedMasterLP(3, 3.0, weights)
    for u in rows:
        ours.add_hypothesis(u)
        highs.add_hypothesis(u)
        for a, b in zip(ours.solve(), highs.solve()):
            np.testing.assert_allclose(a, b, atol=1e-12)
    assert ours.n_fallbacks >= 1


def test_a_highs_basis_that_does_not_verify_leaves_highs_in_charge(monkeypatch):
    U, nu, gammas = lpboost_columns(200, 0.1, 10)
    monkeypatch.setattr(DualSimplexMaster, "_iterate", lambda self, certify=True: False)
    reinvert = DualSimplexMaster._reinvert
    monkeypatch.setattr(DualSimplexMaster, "_reinvert", lambda self: self.n_fallbacks == 0 and reinvert(self))
    lp = DualSimplexMaster(200, nu)
    for k in range(U.shape[1]):
        lp.add_hypothesis(U[:, k])
        w, d, gamma = lp.solve()
        assert gamma == gammas[k]  # HiGHS, hot-started as before: the very same numbers
    assert lp.n_fallbacks == 1 and lp._highs is not None


def heap_bfrt(alpha_d, rc_d, pos_d, upper, cap, rho, y, nonbasic_s, s, delta, pivot_tol, feas_tol):
    """The bound-flipping ratio test as it was before the scan (git 7299241), in plain Python: every
    breakpoint into a binary heap (the same sift-down), popped until the slopes use up ``delta``."""
    cand = []  # (ratio, |alpha|, width, |rc|, variable)
    for j in range(alpha_d.shape[0]):
        if pos_d[j] >= 0 or cap[j] <= 0.0:
            continue
        b = s * alpha_d[j]
        if (upper[j] and b >= -pivot_tol) or (not upper[j] and b <= pivot_tol):
            continue
        r = rc_d[j] / b
        cand.append((r if r > 0.0 else 0.0, abs(b), cap[j], abs(rc_d[j]), j))
    for k in range(rho.shape[0]):
        b = s * rho[k]
        if nonbasic_s[k] and b > pivot_tol:
            r = -y[k] / b
            cand.append((r if r > 0.0 else 0.0, b, np.inf, abs(y[k]), alpha_d.shape[0] + 1 + k))
    n = len(cand)
    if n == 0:
        return -1, 0.0, []
    ratio = np.array([c[0] for c in cand])
    heap = np.arange(n)

    def sift_down(i, size):
        while 2 * i + 1 < size:
            child = 2 * i + 1
            if child + 1 < size and ratio[heap[child + 1]] < ratio[heap[child]]:
                child += 1
            if not ratio[heap[child]] < ratio[heap[i]]:
                return
            heap[i], heap[child] = heap[child], heap[i]
            i = child

    for start in range(n // 2 - 1, -1, -1):
        sift_down(start, n)
    flipped, used, last, size = set(), 0.0, -1, n
    while size > 0:
        top = heap[0]
        size -= 1
        heap[0] = heap[size]
        sift_down(0, size)
        used += cand[top][1] * cand[top][2]
        if used >= delta:
            last = top
            break
        flipped.add(top)
    if last < 0:
        return -1, 0.0, []
    bound = min(((c[3] + feas_tol) / c[1] for i, c in enumerate(cand) if i not in flipped), default=np.inf)
    chosen = last
    for i, c in enumerate(cand):
        if i not in flipped and c[0] <= bound and c[0] >= cand[last][0] and c[1] > cand[chosen][1]:
            chosen = i
    return cand[chosen][4], cand[chosen][0], sorted(cand[i][4] for i in flipped)


@pytest.mark.parametrize("seed", range(40))
def test_bfrt_pivots_as_the_heap_did(seed):
    """The scan-then-heap BFRT against the heap-only version it replaced: the same entering variable,
    ratio and flips, with ties among the ratios (0 after clamping, and equal by construction, where
    the heap's own order must decide), and without ties (the scan's own pops), few and many flips
    (past the scan), basic and capless d_j."""
    rng = np.random.default_rng(seed)
    m, R = int(rng.integers(5, 300)), int(rng.integers(1, 12))
    alpha_d = rng.normal(size=m) * rng.choice([1.0, 1e-12], m, p=[0.9, 0.1])
    rc_d = rng.normal(size=m) * rng.choice([1.0, 0.0, -1e-15], m, p=[0.7, 0.2, 0.1])
    tied = rng.random(m) < 0.3  # rc_j = c alpha_j: ratio c up to rounding, equal for many
    rc_d[tied] = rng.choice([0.25, 0.5], tied.sum()) * alpha_d[tied] * rng.choice([1.0, -1.0])
    pos_d = np.where(rng.random(m) < 0.1, 0, -1)
    upper = rng.random(m) < 0.3
    cap = np.where(rng.random(m) < 0.05, 0.0, rng.uniform(0.01, 0.2, m))
    rho, y = rng.normal(size=R), rng.normal(size=R)
    nonbasic_s = rng.random(R) < 0.7
    dual_feasible = np.abs(rng.normal(size=m))  # rc_j of the sign of s alpha_j: every ratio > 0, no ties
    for s in (1.0, -1.0):
        for rc in (rc_d, dual_feasible * np.sign(s * alpha_d)):
            for delta in (1e-4, 0.05, 1.0, 50.0):
                args = (alpha_d, rc, pos_d, upper, cap, rho, y, nonbasic_s, s, delta, 1e-9, 1e-9)
                q, ratio, flips = dual_simplex._bfrt(*args)
                q_ref, ratio_ref, flips_ref = heap_bfrt(*args)
                assert (q, ratio) == (q_ref, ratio_ref)
                assert flips.tolist() == flips_ref


def test_compiled_pivot_steps_are_the_numpy_formulation():
    """The leaving-row choice (dual steepest edge) and the dual step, compiled, against the numpy
    lines they replaced: the same index (first maximum, ties included; -1 if all feasible) and the
    same bits."""
    rng = np.random.default_rng(4)
    tol = dual_simplex.FEASIBILITY_TOL
    for trial in range(300):
        R, m = int(rng.integers(1, 40)), int(rng.integers(1, 200))
        lo = np.zeros(R)
        hi = np.where(rng.random(R) < 0.3, np.inf, rng.uniform(0.0, 0.2, R))
        if trial % 3 == 0:
            xB = np.clip(rng.normal(size=R), 0, hi)  # feasible
        elif trial % 3 == 1:
            xB = rng.uniform(-0.05, 0.25, R) * (rng.random(R) < 0.5)
        else:  # equal infeasibilities (equal scores), and one exactly at the tolerance
            xB = rng.choice([-0.01, -0.02, 0.0, -tol], R)
        norms = rng.choice([1.0, 2.0, 4.0], R)  # ties among the scores
        infeas = np.maximum(lo - xB, 0.0) + np.maximum(xB - hi, 0.0)
        infeas[infeas <= tol] = 0.0
        want = int(np.argmax(infeas * infeas / norms)) if infeas.any() else -1
        assert dual_simplex._steepest_infeasible(xB, lo, hi, norms, tol) == want

        y, rho, theta = rng.normal(size=R), rng.normal(size=R), float(rng.normal())
        rc, alpha, pos = rng.normal(size=m), rng.normal(size=m), np.where(rng.random(m) < 0.2, 0, -1)
        y_want, rc_want = y + theta * rho, rc - theta * alpha
        rc_want[pos >= 0] = 0.0
        dual_simplex._step_duals(y, rho, rc, alpha, pos, theta)
        assert y.tobytes() == y_want.tobytes() and rc.tobytes() == rc_want.tobytes()
