"""The soft margin and its entropy smoothing against independent LP / brute-force references."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import linprog

from marginboost.soft_margin.objectives import (
    SmoothedSoftMargin,
    SoftMargin,
    entropy_eta,
    relative_entropy_to_uniform,
    soft_margin,
    soft_margin_distribution,
)
from reference import sorted_soft_margin_distribution


def soft_margin_lp(q, nu, weights=None):
    """min_{d in P(m, nu)} d @ q as an LP (scipy/HiGHS), with caps s_i / nu."""
    caps = np.full(q.shape[0], 1 / nu) if weights is None else weights / nu
    res = linprog(q, A_eq=np.ones((1, q.shape[0])), b_eq=[1.0], bounds=list(zip(np.zeros_like(q), caps)),
                  method="highs")
    assert res.status == 0
    return res.fun


@st.composite
def margins(draw):
    m = draw(st.integers(1, 30))
    q = draw(arrays(np.float64, m, elements=st.floats(-1, 1)))
    nu = draw(st.floats(1.0, float(m)))
    return q, nu


@settings(max_examples=200, deadline=None)
@given(margins())
def test_soft_margin_equals_lp(problem):
    q, nu = problem
    # HiGHS works to a 1e-7 feasibility tolerance, so the LP reference is only that exact
    assert soft_margin(q, nu) == pytest.approx(soft_margin_lp(q, nu), abs=2e-7)


@settings(max_examples=100, deadline=None)
@given(margins(), st.data())
def test_weighted_soft_margin_equals_lp_and_replication(problem, data):
    q, nu = problem
    m = q.shape[0]
    counts = np.asarray(data.draw(arrays(np.int64, m, elements=st.integers(1, 4))), dtype=float)
    weights = counts * (m / counts.sum())
    assert soft_margin(q, nu, weights) == pytest.approx(soft_margin_lp(q, nu, weights), abs=2e-7)
    # integer weights = replicated examples, with nu scaled to the replicated sample
    replicated = np.repeat(q, counts.astype(int))
    nu_rep = nu * counts.sum() / m
    assert soft_margin(q, nu, weights) == pytest.approx(soft_margin(replicated, nu_rep), abs=1e-9)


@st.composite
def tied_margins(draw):
    """Margins with many ties (few distinct values) or none, and nu anywhere in [1, m]: integer,
    fractional, 1 and m, where the caps' running sum rounds near 1."""
    m = draw(st.integers(1, 80))
    values = draw(st.sampled_from([2, 3, 10, 1000]))
    q = np.asarray(draw(arrays(np.int64, m, elements=st.integers(0, values - 1))), dtype=float) / values
    nu = draw(st.one_of(st.floats(1.0, float(m)), st.integers(1, m).map(float),
                        st.sampled_from([1.0, float(m), max(1.0, m - 0.5), m / 3 if m >= 3 else 1.0])))
    return q, nu


@settings(max_examples=400, deadline=None)
@given(tied_margins())
def test_soft_margin_distribution_is_the_sorted_fill_bit_for_bit(problem):
    """The selection-based minimiser equals the stable sort's fill, bit for bit, ties by index."""
    q, nu = problem
    got, want = soft_margin_distribution(q, nu), sorted_soft_margin_distribution(q, nu)
    assert got.tobytes() == want.tobytes()
    assert got @ q == pytest.approx(soft_margin(q, nu), abs=1e-12)


def test_soft_margin_distribution_at_scale_and_with_ties_at_the_boundary():
    """Large m; and the capped ranks ending exactly at the end of a tie, with the fractional rank in a
    tie of hundreds after it (the smallest index among them must get it, as in a stable sort)."""
    rng = np.random.default_rng(3)
    for q in (rng.normal(size=7400), np.round(rng.normal(size=7400), 1), np.zeros(5000)):
        for nu in (1.0, 0.1 * q.size, 0.8 * q.size + 0.25, q.size - 1.0, float(q.size)):
            assert soft_margin_distribution(q, nu).tobytes() == sorted_soft_margin_distribution(q, nu).tobytes()
    q = rng.permutation(np.repeat([0.0, 1.0, 2.0], [37, 500, 20]))
    for nu in (37.5, 37.25, 38.0, 39.75):
        assert soft_margin_distribution(q, nu).tobytes() == sorted_soft_margin_distribution(q, nu).tobytes()


def test_soft_margin_by_hand():
    q = np.array([0.5, -0.2, 0.1, 0.9])
    assert soft_margin(q, 1) == pytest.approx(-0.2)  # hard margin
    assert soft_margin(q, 2) == pytest.approx((-0.2 + 0.1) / 2)
    assert soft_margin(q, 2.5) == pytest.approx((-0.2 + 0.1 + 0.5 * 0.5) / 2.5)
    assert soft_margin(q, 4) == pytest.approx(q.mean())


@settings(max_examples=100, deadline=None)
@given(margins(), st.sampled_from([1.0, 10.0, 100.0]))
def test_smoothed_objective_sandwich_and_gradient(problem, eta):
    """rho <= rho~ <= rho + ln(m/nu)/eta (000 Lemma 1, 3) and grad rho~(q) = d(q)."""
    q, nu = problem
    m = q.shape[0]
    obj = SmoothedSoftMargin(nu, eta)
    value = obj.value(q)
    rho = soft_margin(q, nu)
    assert rho - 1e-9 <= value <= rho + math.log(m / nu) / eta + 1e-9
    # envelope theorem: directional derivative equals d(q) @ direction (central differences)
    direction = np.random.default_rng(0).normal(size=m)
    h = 1e-6
    fd = (obj.value(q + h * direction) - obj.value(q - h * direction)) / (2 * h)
    assert fd == pytest.approx(obj.distribution(q) @ direction, abs=1e-5 * (1 + eta))


def test_smoothed_value_is_the_regularised_minimum():
    """rho~(q) is the minimum over d in P of d@q + Delta(d)/eta: no random feasible d does better."""
    rng = np.random.default_rng(3)
    q = rng.uniform(-1, 1, 12)
    obj = SmoothedSoftMargin(3.0, 4.0)
    best = obj.value(q)
    for _ in range(2000):
        d = rng.dirichlet(np.ones(12))
        if d.max() <= 1 / 3.0:
            assert d @ q + relative_entropy_to_uniform(d) / 4.0 >= best - 1e-12


def test_entropy_eta_formula_and_nu_equal_m():
    assert entropy_eta(100, 10.0, 0.01) == pytest.approx(2 * math.log(10) / 0.01)
    assert entropy_eta(100, 100.0, 0.01) == 1.0
    assert SoftMargin(2.0).stop_tol(0.01) == 0.01
    assert SmoothedSoftMargin(2.0, 3.0).stop_tol(0.01) == 0.005


def test_entropy_eta_refuses_an_eps_whose_eta_overflows():
    """Issue 18: eps = 5e-324 gave eta = inf, with which the entropy projection divided by zero
    deep inside its compiled loop. MIN_EPS = 1e-300 keeps eta finite for any m up to 2^63."""
    with pytest.raises(ValueError, match=r"eps=5e-324 is too small.*eps must be at least 1e-300"):
        entropy_eta(200, 20.0, 5e-324)
    with pytest.raises(ValueError, match="eps must be > 0"):
        entropy_eta(200, 20.0, 0.0)
    from marginboost.soft_margin.objectives import MIN_EPS

    assert MIN_EPS == 1e-300
    assert math.isfinite(entropy_eta(2**63, 1.0, MIN_EPS))
    assert entropy_eta(200, 20.0, MIN_EPS) == 2 * math.log(10.0) / 1e-300


def test_value_at_takes_the_closed_form_only_for_the_last_projections_arrays():
    """``value_at(q, d)`` returns the last projection's closed-form value only for its own ``q`` and
    ``d`` objects; any other pair (an older projection, an equal copy of q, another q with that d)
    is summed explicitly. Both agree to rounding."""
    from marginboost.soft_margin.objectives import SmoothedSoftMargin, relative_entropy_to_uniform

    rng = np.random.default_rng(3)
    objective = SmoothedSoftMargin(nu=20.0, eta=50.0)
    q1, q2 = rng.normal(size=200) * 0.1, rng.normal(size=200) * 0.1
    d1 = objective.distribution(q1)
    closed = objective.value_at(q1, d1)
    summed = float(d1 @ q1 + relative_entropy_to_uniform(d1) / 50.0)
    assert closed == pytest.approx(summed, rel=1e-13, abs=1e-15)
    assert objective.value_at(q1.copy(), d1) == summed  # not the projection's own q object: summed
    d2 = objective.distribution(q2)
    assert objective.value_at(q1, d1) == summed  # an older projection's pair: summed
    assert objective.value_at(q2, d2) == pytest.approx(float(d2 @ q2 + relative_entropy_to_uniform(d2) / 50.0),
                                                      rel=1e-13, abs=1e-15)
    assert objective.value_at(q1, d2) == float(d2 @ q1 + relative_entropy_to_uniform(d2) / 50.0)  # mismatched pair
