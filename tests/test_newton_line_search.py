"""The line search of the Newton rule and ERLPBoost's master against brute force.

``newton_line_search`` steps by slopes and curvatures (``SmoothedSoftMargin.slope_curvature``);
both are checked here against what they stand for: finite differences of the objective's slope,
and the maximiser of the objective on a fine grid (or Brent's root of the slope)."""
import numpy as np
import pytest

from marginboost.core.line_search import exact_line_search, newton_line_search
from marginboost.soft_margin.objectives import SmoothedSoftMargin


class Counting(SmoothedSoftMargin):
    """Counts the projections (one per point the search tries)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = 0

    def distribution(self, q):
        self.calls += 1
        return super().distribution(q)


def problem(seed, m=40, eta=None, weighted=False):
    rng = np.random.default_rng(seed)
    weights = None
    if weighted:
        weights = rng.uniform(0.2, 2.0, m)
        weights *= m / weights.sum()
    obj = Counting(nu=m / 10.0, eta=eta if eta is not None else float(rng.choice([2.0, 20.0, 200.0])),
                   weights=weights)
    q = rng.uniform(-1, 1, m)
    delta = rng.uniform(-1, 1, m) - q
    return obj, q, delta


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_slope_and_curvature_are_the_derivatives_of_the_objective(seed, weighted):
    obj, q, delta = problem(seed, eta=20.0, weighted=weighted)
    d = obj.distribution(q)
    slope, curvature = obj.slope_curvature(d, delta)
    h = 1e-6
    assert slope == pytest.approx((obj.value(q + h * delta) - obj.value(q - h * delta)) / (2 * h), rel=1e-5)
    slope_up = float(obj.distribution(q + h * delta) @ delta)
    slope_down = float(obj.distribution(q - h * delta) @ delta)
    assert curvature <= 0.0
    assert curvature == pytest.approx((slope_up - slope_down) / (2 * h), rel=1e-4, abs=1e-9)


def test_a_direction_that_moves_only_capped_examples_has_no_curvature():
    """Capped examples do not move the distribution: their share of delta adds to the slope only.
    Counting example 0 (capped) among the free ones would give eta * 0.25 here."""
    obj = SmoothedSoftMargin(nu=2.0, eta=5.0)  # cap 1/2
    q = np.array([-10.0, 0.0, 0.1])
    d = obj.distribution(q)
    assert d[0] == pytest.approx(0.5)  # the smallest margin is at its cap, the other two free
    delta = np.array([1.0, 0.0, 0.0])
    slope, curvature = obj.slope_curvature(d, delta)
    assert slope == pytest.approx(0.5)
    assert abs(curvature) <= 1e-12
    h = 1e-4  # and the slope indeed does not change along delta
    assert float(obj.distribution(q + h * delta) @ delta) == pytest.approx(slope, abs=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_tight_search_finds_the_grid_maximum(seed, weighted):
    obj, q, delta = problem(seed, weighted=weighted)
    lam_max = [0.3, 1.0, 2.0][seed % 3]
    lam, q_lam, d_lam = newton_line_search(obj, q, delta=delta, d=obj.distribution(q), lam_max=lam_max,
                                           rtol=1e-12)
    grid = np.linspace(0.0, lam_max, 20001)
    best = grid[int(np.argmax([obj.value(q + g * delta) for g in grid]))]
    assert 0.0 <= lam <= lam_max
    assert abs(lam - best) <= lam_max / 10000 + 1e-9
    assert lam == pytest.approx(exact_line_search(obj, q, delta, lam_max, rtol=1e-12), abs=1e-9)
    np.testing.assert_allclose(q_lam, q + lam * delta, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(d_lam, obj.distribution(q + lam * delta))


@pytest.mark.parametrize("seed", range(8))
def test_loose_search_keeps_nearly_all_of_the_gain_in_few_projections(seed):
    obj, q, delta = problem(seed, m=200)
    d = obj.distribution(q)
    lam_star = exact_line_search(obj, q, delta, 2.0, rtol=1e-12)
    obj.calls = 0
    lam, q_lam, d_lam = newton_line_search(obj, q, d, delta, 2.0, rtol=0.1)
    projections = obj.calls
    base = obj.value(q)
    best_gain = obj.value(q + lam_star * delta) - base
    assert obj.value(q_lam) - base >= 0.95 * best_gain
    assert projections <= 5  # Brent at rtol = 0.1: about five, and the caller then projected once more


def test_interior_optimum_ends_and_no_ascent():
    obj = SmoothedSoftMargin(nu=1.0, eta=50.0)
    q = np.array([-0.5, 0.5])
    d = obj.distribution(q)
    lam, _, _ = newton_line_search(obj, q, d, np.array([1.0, -1.0]), 1.0, rtol=1e-12)
    assert lam == pytest.approx(0.5, abs=1e-8)
    lam, q_out, d_out = newton_line_search(obj, q, d, np.array([-1.0, -1.0]), 1.0, rtol=1e-12)
    assert lam == 0.0 and q_out is q and d_out is d  # no step: the caller's (q, d) back
    lam, q_out, _ = newton_line_search(obj, q, d, np.array([1.0, 1.0]), 1.0, rtol=1e-12)
    assert lam == 1.0
    np.testing.assert_allclose(q_out, q + 1.0)


def test_a_nearly_kinked_slope_is_searched_in_few_steps_and_ascends():
    """At eta = 1e9 the slope is nearly a step function, its curvature useless for the distance
    to its root: regula falsi stalled there at one end (tens of steps); the Illinois rule does not."""
    rng = np.random.default_rng(3)
    m = 500
    obj = Counting(nu=50.0, eta=1e9)
    q = rng.choice([-1.0, 1.0], size=(m, 4)) @ rng.dirichlet(np.ones(4))
    delta = rng.choice([-1.0, 1.0], m) - q
    d = obj.distribution(q)
    obj.calls = 0
    lam, q_lam, _ = newton_line_search(obj, q, d, delta, 1.0, rtol=0.1)
    assert obj.calls <= 30
    assert obj.value(q_lam) >= obj.value(q)
    lam_star = exact_line_search(obj, q, delta, 1.0, rtol=1e-12)
    assert abs(lam - lam_star) <= 0.1 * lam_star + 1e-12
