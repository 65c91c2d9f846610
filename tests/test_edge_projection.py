"""The relative-entropy projection of TotalBoost/SoftBoost against cvxpy + Clarabel."""
import cvxpy as cp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from marginboost.totally_corrective.edge_projection import project_onto_edge_constraints, relative_entropy


def lp_value(U, nu):
    """min_{d in P(m, nu)} max_q d @ u_q: below it the projection's set is empty."""
    m, t = U.shape
    res = linprog(np.r_[np.zeros(m), 1.0], A_ub=np.hstack([U.T, -np.ones((t, 1))]), b_ub=np.zeros(t),
                  A_eq=np.r_[np.ones(m), 0.0][None], b_eq=[1.0], bounds=[(0, 1 / nu)] * m + [(None, None)],
                  method="highs")
    assert res.status == 0
    return res.fun


def cvxpy_projection(U, gamma_hat, nu):
    """argmin_{d in P(m, nu), U^T d <= gamma_hat} sum_i d_i ln(d_i m), by an exponential-cone solver."""
    m = U.shape[0]
    d = cp.Variable(m)
    prob = cp.Problem(cp.Minimize(-cp.sum(cp.entr(d))),
                      [U.T @ d <= gamma_hat, cp.sum(d) == 1, d >= 0, d <= 1 / nu])
    prob.solve(solver=cp.CLARABEL)
    assert prob.status == cp.OPTIMAL, prob.status
    return np.clip(d.value, 0.0, None)


def check_against_cvxpy(U, nu, slack_fraction):
    m = U.shape[0]
    low = lp_value(U, nu)
    high = max((np.full(m, 1.0 / m) @ U).max(), low + 1e-3)  # above it uniform is feasible
    gamma_hat = low + slack_fraction * (high - low)
    res = project_onto_edge_constraints(U, gamma_hat, nu)
    assert res.converged, res.kkt
    d = res.d
    # feasible: in P(m, nu) and under every edge constraint
    assert d.sum() == pytest.approx(1.0, abs=1e-12)
    assert d.min() >= 0.0 and d.max() <= 1.0 / nu + 1e-12
    assert (U.T @ d).max() <= gamma_hat + 1e-9
    # optimal: the same point and value as the conic solver, to its accuracy (its point can
    # violate a row by ~1e-8, so the values are compared two-sided)
    d_ref = cvxpy_projection(U, gamma_hat, nu)
    np.testing.assert_allclose(d, d_ref, atol=5e-5)
    assert res.entropy == pytest.approx(relative_entropy(d))
    assert res.entropy == pytest.approx(relative_entropy(d_ref / d_ref.sum()), abs=1e-5)
    # complementary slackness: multipliers only on tight rows
    tight = res.beta > 1e-8
    np.testing.assert_allclose((U.T @ d)[tight], gamma_hat, atol=1e-8)


# derandomize: the same 30 cases on every run (the test_robustness battery's rule); a random draw
# (m=56, t=1, nu_fraction=0.0, slack=0.001, seed=1) made the reference solver, Clarabel, fail
@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    m=st.integers(4, 60),
    t=st.integers(1, 12),
    nu_fraction=st.floats(0.0, 0.5),
    slack=st.sampled_from([1e-3, 0.05, 0.3, 0.9]),
    binary=st.booleans(),
    seed=st.integers(0, 2**31),
)
# a multiplier left at 9e-13 with a negative gradient stalled the loop (found by hypothesis)
@example(m=12, t=12, nu_fraction=0.0, slack=0.001, binary=True, seed=0)
def test_projection_matches_cvxpy(m, t, nu_fraction, slack, binary, seed):
    rng = np.random.default_rng(seed)
    U = rng.choice([-1.0, 1.0], size=(m, t)) if binary else rng.uniform(-1, 1, size=(m, t))
    nu = 1.0 + nu_fraction * (m - 1)
    check_against_cvxpy(U, nu, slack)


@pytest.mark.parametrize("nu", [1.0, 7.5])
def test_projection_near_the_degenerate_limit(nu):
    """A slack of 1e-6 above the LP value: multipliers grow large, the solver must still converge."""
    rng = np.random.default_rng(3)
    U = rng.choice([-1.0, 1.0], size=(50, 8))
    check_against_cvxpy(U, nu, 1e-6)


def test_warm_start_reaches_the_same_point():
    rng = np.random.default_rng(0)
    U = rng.uniform(-1, 1, size=(40, 6))
    gamma_hat = lp_value(U, 4.0) + 0.05
    cold = project_onto_edge_constraints(U, gamma_hat, 4.0)
    warm = project_onto_edge_constraints(U, gamma_hat, 4.0, beta0=cold.beta * 1.7 + 0.3)
    assert cold.converged and warm.converged
    np.testing.assert_allclose(warm.d, cold.d, atol=1e-8)


def test_inactive_constraints_give_uniform():
    """When the uniform distribution already satisfies every edge row, it is the projection."""
    U = np.array([[1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [-1.0, -1.0]])
    res = project_onto_edge_constraints(U, 0.5, 1.0)
    np.testing.assert_allclose(res.d, 0.25)
    assert res.entropy == pytest.approx(0.0, abs=1e-14)
