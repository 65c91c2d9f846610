"""Bregman projections of MABoost (paper 002): agreement with a general convex solver
(cvxpy + Clarabel, which knows nothing of our sorting tricks), optimality conditions,
exact membership, and the generalised Pythagorean inequality behind Lemmas 1 and 4."""
import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from marginboost.mirror import bregman as B
from marginboost.core.projections import capped_simplex_euclidean_projection

SEEDS = range(6)


def _instance(seed, m_low=3, m_high=12):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(m_low, m_high))
    theta = rng.normal(0.0, 1.5, m)
    nu = float(rng.uniform(1.0, m))
    caps = np.where(rng.random(m) < 0.5, rng.uniform(0.5 / m, 2.0 / m, m), 1.0)
    caps[0] = 1.0  # keeps the set non-empty
    return m, theta, nu, caps


def _solve(objective, constraints):
    problem = cp.Problem(cp.Minimize(objective), constraints)
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10,
                  tol_ktratio=1e-8, max_iter=500)
    assert problem.status == cp.OPTIMAL
    return problem


def _kl(w, z):
    pos = w > 0
    return float(np.sum(w[pos] * np.log(w[pos] / z[pos])) - w.sum() + z.sum())


def _assert_kl_optimal(d, z, extra, sum_one=True):
    """The solver's exponential-cone accuracy is about 1e-6, so compare on two counts: our
    point is no worse than the solver's (it is optimal, the objective strongly convex), and
    it is near it."""
    w = cp.Variable(z.shape[0], nonneg=True)
    problem = _solve(cp.sum(cp.kl_div(w, z)), ([cp.sum(w) == 1] if sum_one else []) + extra(w))
    assert _kl(d, z) <= problem.value + 1e-8
    np.testing.assert_allclose(d, w.value, atol=1e-5)


def _l2_reference(v, extra, sum_one=True):
    w = cp.Variable(v.shape[0], nonneg=True)
    _solve(0.5 * cp.sum_squares(w - v), ([cp.sum(w) == 1] if sum_one else []) + extra(w))
    return w.value


@pytest.mark.parametrize("seed", SEEDS)
def test_kl_projections_match_convex_solver(seed):
    m, theta, nu, caps = _instance(seed)
    z = np.exp(theta)
    _assert_kl_optimal(B.kl_simplex_projection(theta), z, lambda w: [])
    _assert_kl_optimal(B.kl_capped_simplex_projection(theta, nu), z, lambda w: [w <= 1 / nu])
    _assert_kl_optimal(B.kl_box_capped_simplex_projection(theta, caps), z, lambda w: [w <= caps])
    # Lemma 5: generalised KL onto the box [0, c]^m (no sum constraint)
    _assert_kl_optimal(B.kl_hypercube_projection(theta, 0.7), z, lambda w: [w <= 0.7], sum_one=False)


@pytest.mark.parametrize("seed", SEEDS)
def test_euclidean_projections_match_convex_solver(seed):
    m, v, nu, caps = _instance(seed)
    v = v / m
    np.testing.assert_allclose(B.euclidean_simplex_projection(v), _l2_reference(v, lambda w: []), atol=1e-7)
    np.testing.assert_allclose(B.euclidean_capped_simplex_projection(v, nu),
                               _l2_reference(v, lambda w: [w <= 1 / nu]), atol=1e-7)
    np.testing.assert_allclose(B.euclidean_box_capped_simplex_projection(v, caps),
                               _l2_reference(v, lambda w: [w <= caps]), atol=1e-7)
    np.testing.assert_allclose(B.euclidean_hypercube_projection(v, 0.05),
                               _l2_reference(v, lambda w: [w <= 0.05], sum_one=False), atol=1e-7)
    # SparseBoost's step (002 eq. 28): min_{z >= 0} 1/2 ||z - v||^2 + alpha ||z||_1
    alpha = 0.3 / m
    z = cp.Variable(m, nonneg=True)
    _solve(0.5 * cp.sum_squares(z - v) + alpha * cp.sum(z), [])
    np.testing.assert_allclose(B.orthant_l1_projection(v, alpha), z.value, atol=1e-7)


finite = st.floats(-30.0, 30.0, allow_nan=False, allow_infinity=False)


@st.composite
def capped_problems(draw):
    m = draw(st.integers(1, 40))
    theta = draw(arrays(np.float64, m, elements=finite))
    raw = draw(arrays(np.float64, m, elements=st.floats(0.0, 1.0)))
    caps = np.where(raw > 0.5, 1.0, np.maximum(raw, 1e-3) * 4.0 / m)
    if np.minimum(caps, 1.0).sum() < 1.0:
        caps[0] = 1.0
    return theta, caps


def _assert_in_box_simplex(d, caps):
    assert np.all(d >= 0.0)
    assert np.all(d <= np.minimum(caps, 1.0) + 1e-12)
    assert abs(d.sum() - 1.0) <= 1e-12


@settings(max_examples=200, deadline=None)
@given(capped_problems())
def test_kl_box_capped_projection_kkt(problem):
    """d_i = min(c_i, exp(theta_i)/Z): ln d_i - theta_i = -ln Z where uncapped,
    ln c_i - theta_i <= -ln Z where capped."""
    theta, caps = problem
    d = B.kl_box_capped_simplex_projection(theta, caps)
    _assert_in_box_simplex(d, caps)
    capped = d >= np.minimum(caps, 1.0) * (1 - 1e-12)
    free = ~capped & (d > 1e-250)
    if free.any():
        score = np.log(d[free]) - theta[free]
        assert np.ptp(score) <= 1e-8
        if capped.any():
            assert np.all(np.log(np.minimum(caps, 1.0)[capped]) - theta[capped] <= score.min() + 1e-8)


@settings(max_examples=200, deadline=None)
@given(capped_problems())
def test_euclidean_box_capped_projection_kkt(problem):
    """d = clip(v - tau, 0, c): v_i - d_i = tau inside, v_i <= tau at 0, v_i - c_i >= tau at the cap."""
    v, caps = problem
    v = v / 30.0
    d = B.euclidean_box_capped_simplex_projection(v, caps)
    _assert_in_box_simplex(d, caps)
    c = np.minimum(caps, 1.0)
    inside = (d > 1e-12) & (d < c - 1e-12)
    at_zero, at_cap = d <= 1e-12, d >= c - 1e-12
    if inside.any():
        tau = np.mean((v - d)[inside])
        assert np.ptp((v - d)[inside]) <= 1e-9
        assert np.all(v[at_zero & ~at_cap] <= tau + 1e-9)
        assert np.all((v - c)[at_cap & ~at_zero] >= tau - 1e-9)


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.integers(1, 30), elements=st.floats(-1, 1)), st.floats(1.0, 30.0))
def test_box_sweep_with_uniform_caps_is_the_capped_projection(v, nu):
    nu = min(nu, v.shape[0])
    np.testing.assert_allclose(B.euclidean_box_capped_simplex_projection(v, np.full(v.shape[0], 1 / nu)),
                               capped_simplex_euclidean_projection(v, nu), atol=1e-14)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 25), st.integers(0, 10**6))
def test_pythagorean_inequality_single_and_double_projection(m, seed):
    """Lemma 1 (relaxed) and Lemma 4: B(u, P(z)) <= B(u, z) for u in K, exact and double projections."""
    rng = np.random.default_rng(seed)
    nu = float(rng.uniform(1.0, m))
    theta = rng.normal(0.0, 2.0, m)
    us = [rng.dirichlet(np.ones(m)) for _ in range(5)]
    us = [B.euclidean_capped_simplex_projection(u, nu) for u in us]  # points of K = P(m, nu)
    kl_single = B.kl_capped_simplex_projection(theta, nu)
    kl_double = B.double_projection("entropy", lambda t: B.kl_hypercube_projection(t, 1.0 / nu),
                                    lambda t: B.kl_capped_simplex_projection(t, nu))(theta)
    v = theta / m
    l2_double = B.double_projection("l2", lambda t: B.euclidean_hypercube_projection(t, 1.0 / nu),
                                    lambda t: B.euclidean_capped_simplex_projection(t, nu))(v)
    for u in us:
        z = np.exp(theta)
        assert B.bregman_divergence("entropy", u, kl_single) <= B.bregman_divergence("entropy", u, z) + 1e-9
        assert B.bregman_divergence("entropy", u, kl_double) <= B.bregman_divergence("entropy", u, z) + 1e-9
        assert B.bregman_divergence("l2", u, l2_double) <= B.bregman_divergence("l2", u, v) + 1e-12
    _assert_in_box_simplex(kl_double, np.full(m, 1 / nu))
    _assert_in_box_simplex(l2_double, np.full(m, 1 / nu))


def test_madaboost_double_projection_is_capped_normalisation():
    """KL onto [0,1]^m then onto the simplex = min(1, z) / sum (002 Algorithm 3)."""
    theta = np.array([0.5, -1.0, 2.0, 0.0, -3.0])
    w = B.double_projection("entropy", B.kl_hypercube_projection, B.kl_simplex_projection)(theta)
    capped = np.minimum(1.0, np.exp(theta))
    np.testing.assert_allclose(w, capped / capped.sum(), rtol=1e-14)


def test_extreme_mirror_images_stay_finite():
    """The lazy update's theta grows without bound; zero weights are theta = -inf."""
    theta = np.array([800.0, -800.0, 0.0, -np.inf])
    for d in (B.kl_simplex_projection(theta), B.kl_capped_simplex_projection(theta, 2.0),
              B.kl_box_capped_simplex_projection(theta, np.array([0.3, 1, 1, 1]))):
        assert np.all(np.isfinite(d)) and abs(d.sum() - 1) < 1e-12 and d[3] == 0.0
    np.testing.assert_array_equal(B.kl_capped_simplex_projection(theta, 2.0), [0.5, 0.0, 0.5, 0.0])


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="caps"):
        B.kl_box_capped_simplex_projection(np.zeros(4), np.full(4, 0.1))
    with pytest.raises(ValueError, match="caps"):
        B.euclidean_box_capped_simplex_projection(np.zeros(4), np.full(3, 1.0))
    with pytest.raises(ValueError, match="alpha"):
        B.orthant_l1_projection(np.zeros(3), -1.0)
    with pytest.raises(ValueError, match="regularizer"):
        B.mirror_map("kl", np.ones(3))


def test_kl_box_projection_equals_the_weighted_capped_simplex_route():
    """The box projection sorts only the capped set; it agrees with the former route through
    the weighted capped-simplex projection (caps as example weights) up to rounding."""
    from marginboost.core.projections import capped_simplex_kl_projection

    rng = np.random.default_rng(11)
    for _ in range(300):
        m = int(rng.integers(2, 300))
        theta = np.round(rng.normal(size=m) * rng.choice([1.0, 10.0, 100.0]), int(rng.integers(0, 3)))
        bound = rng.random(m) < rng.uniform(0.05, 1.0)
        n_bound = max(int(bound.sum()), 1)
        caps = np.where(bound, rng.uniform(0.3, 3.0, m) / (rng.uniform(0.05, 1.0) * n_bound), 1.0)
        if np.minimum(caps, 1.0).sum() < 1.0:
            caps[0] = 1.0
        c = np.minimum(caps, 1.0)
        nu = min(max(m / c.sum(), 1.0), float(m))
        former = capped_simplex_kl_projection(np.log(nu * c) - theta, nu, 1.0, weights=nu * c)
        np.testing.assert_allclose(B.kl_box_capped_simplex_projection(theta, caps), former, rtol=1e-11, atol=1e-300)
