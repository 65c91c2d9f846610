"""Property tests for the capped-simplex projections: feasibility, optimality conditions,
and agreement with slow references (a bisection on the Lagrange multiplier, written
independently of the sort-based code under test)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from marginboost.core.projections import (
    capped_simplex_euclidean_projection,
    capped_simplex_kl_projection,
    simplex_euclidean_projection,
)

finite = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw, weighted=False):
    m = draw(st.integers(1, 40))
    q = draw(arrays(np.float64, m, elements=finite))
    nu = draw(st.floats(1.0, float(m)))
    weights = None
    if weighted:
        raw = draw(arrays(np.float64, m, elements=st.floats(0.05, 5.0)))
        weights = raw * (m / raw.sum())
    return q, nu, weights


def kl_reference(q, nu, eta, weights=None):
    """d_i = min(s_i/nu, s_i exp(-eta q_i - tau)), tau by bisection until sum d = 1."""
    s = np.ones_like(q) if weights is None else weights
    caps = s / nu
    log_base = np.log(s) - eta * q

    def mass(tau):
        with np.errstate(over="ignore"):  # exp overflows to inf far left; min() caps it
            return np.minimum(caps, np.exp(log_base - tau)).sum()

    lo, hi = log_base.min() - 800.0, log_base.max() + 800.0
    for _ in range(3000):
        mid = 0.5 * (lo + hi)
        if mass(mid) > 1.0:
            lo = mid
        else:
            hi = mid
    with np.errstate(over="ignore"):
        return np.minimum(caps, np.exp(log_base - 0.5 * (lo + hi)))


def euclid_reference(v, nu):
    """d = clip(v - tau, 0, 1/nu), tau by bisection until sum d = 1."""
    lo, hi = v.min() - 1.0 / nu - 1.0, v.max() + 1.0
    for _ in range(3000):
        mid = 0.5 * (lo + hi)
        if np.clip(v - mid, 0, 1 / nu).sum() > 1.0:
            lo = mid
        else:
            hi = mid
    return np.clip(v - 0.5 * (lo + hi), 0, 1 / nu)


def assert_in_capped_simplex(d, nu, weights=None, tol=1e-12):
    caps = 1.0 / nu if weights is None else weights / nu
    assert np.all(d >= 0.0)
    assert np.all(d <= caps * (1 + tol) + tol)
    assert abs(d.sum() - 1.0) <= 1e-9


@settings(max_examples=300, deadline=None)
@given(problems(), st.sampled_from([0.1, 1.0, 10.0, 100.0, 1e4]))
def test_kl_projection_matches_bisection_reference(problem, eta):
    q, nu, _ = problem
    d = capped_simplex_kl_projection(q, nu, eta)
    assert_in_capped_simplex(d, nu)
    np.testing.assert_allclose(d, kl_reference(q, nu, eta), atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(problems(weighted=True), st.sampled_from([0.5, 5.0, 300.0]))
def test_weighted_kl_projection_matches_reference(problem, eta):
    q, nu, weights = problem
    d = capped_simplex_kl_projection(q, nu, eta, weights)
    assert_in_capped_simplex(d, nu, weights)
    np.testing.assert_allclose(d, kl_reference(q, nu, eta, weights), atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(problems(), st.sampled_from([0.3, 3.0, 30.0]))
def test_kl_projection_kkt(problem, eta):
    """Stationarity: ln d_i + eta q_i is one constant on uncapped entries, and at most it on capped ones."""
    q, nu, _ = problem
    d = capped_simplex_kl_projection(q, nu, eta)
    cap = 1.0 / nu
    free = (d < cap * (1 - 1e-9)) & (d > 1e-200)
    capped = ~free & (d > 1e-200)
    score = np.log(np.where(d > 0, d, 1.0)) + eta * q
    if free.sum() >= 2:
        assert np.ptp(score[free]) <= 1e-7
    if free.any() and capped.any():
        assert np.all(score[capped] <= score[free].min() + 1e-7)
        # the capped ones are those of smallest margin
        assert q[capped].max() <= q[free].min() + 1e-12


def test_kl_projection_huge_eta_is_the_soft_margin_vertex():
    """eta = 1e6 must neither overflow nor lose the support: d -> 1/nu on the nu smallest margins."""
    rng = np.random.default_rng(0)
    q = rng.permutation(np.linspace(-1, 1, 50))
    d = capped_simplex_kl_projection(q, 5.0, 1e6)
    assert np.all(np.isfinite(d))
    expected = np.zeros(50)
    expected[np.argsort(q)[:5]] = 0.2
    np.testing.assert_allclose(d, expected, atol=1e-12)


def test_kl_projection_nu_equal_m_is_uniform_and_nu_one_is_softmax():
    q = np.array([0.3, -0.2, 0.9, 0.0])
    np.testing.assert_allclose(capped_simplex_kl_projection(q, 4.0, 7.0), np.full(4, 0.25))
    softmax = np.exp(-2.0 * q) / np.exp(-2.0 * q).sum()
    np.testing.assert_allclose(capped_simplex_kl_projection(q, 1.0, 2.0), softmax)


def test_kl_projection_rejects_bad_parameters():
    with pytest.raises(ValueError, match="nu"):
        capped_simplex_kl_projection(np.zeros(3), 4.0, 1.0)
    with pytest.raises(ValueError, match="eta"):
        capped_simplex_kl_projection(np.zeros(3), 1.0, 0.0)


@pytest.mark.parametrize("q", [np.zeros(3), np.array([0.3, -0.2, 0.9])])
def test_kl_projection_refuses_infinite_eta(q):
    """Issue 18: eta = inf (what ERLPBoost's eta = 2 ln(m/nu)/eps became at eps = 5e-324) was
    accepted: margins 0 gave 0 * inf = NaN and a ZeroDivisionError inside the compiled loop,
    other margins an all-zero "distribution". Any finite eta works, the largest double included."""
    with pytest.raises(ValueError, match="eta must be a finite number > 0, got inf"):
        capped_simplex_kl_projection(q, 1.5, np.inf)
    d = capped_simplex_kl_projection(q, 1.5, np.finfo(np.float64).max)
    assert np.all(np.isfinite(d)) and d.sum() == pytest.approx(1.0) and d.max() <= 1 / 1.5 + 1e-12


@settings(max_examples=300, deadline=None)
@given(problems())
def test_euclidean_projection_matches_reference_and_kkt(problem):
    v, nu, _ = problem
    d = capped_simplex_euclidean_projection(v, nu)
    assert_in_capped_simplex(d, nu)
    np.testing.assert_allclose(d, euclid_reference(v, nu), atol=1e-9)
    # KKT: v_i - d_i is one constant tau on the entries strictly inside (0, 1/nu)
    inside = (d > 1e-12) & (d < 1 / nu - 1e-12)
    if inside.sum() >= 2:
        assert np.ptp((v - d)[inside]) <= 1e-9


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.integers(1, 30), elements=finite))
def test_simplex_projection_is_closest_point(v):
    """No random point of the simplex is closer to v than the projection."""
    d = simplex_euclidean_projection(v)
    assert_in_capped_simplex(d, 1.0)
    rng = np.random.default_rng(1)
    others = rng.dirichlet(np.ones(v.shape[0]), size=200)
    assert np.all(((others - v) ** 2).sum(1) >= ((d - v) ** 2).sum() - 1e-12)
