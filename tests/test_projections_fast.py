"""The faster capped-simplex projections against the code they replaced.

KL: the selection-based projection (``projections._kl_capped``, expected O(m)) against the
sorting one it replaced (``reference.sorted_kl_projection``, itself bit for bit the
stable-argsort version of commit 45a7c9e copied below) and against a 40-digit decimal
evaluation (``reference.exact_kl_projection``). Euclidean: bit for bit the 2m-point quicksort
sweep of commit 45a7c9e, copied below.
"""
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from marginboost.core.projections import (
    _suffix_logaddexp,
    box_capped_simplex_euclidean_projection,
    capped_simplex_euclidean_projection,
    capped_simplex_kl_projection,
    kl_projection_and_value,
    slope_curvature_sums,
    weighted_box_capped_simplex_euclidean_projection,
)
from reference import _split_tie_by_index, _ties_by_index, exact_kl_projection, sorted_kl_projection

EPS = np.finfo(np.float64).eps


def old_kl(q, nu, eta, weights=None):
    """capped_simplex_kl_projection as of 45a7c9e (stable argsort)."""
    q = np.asarray(q, dtype=np.float64)
    m = q.shape[0]
    order = np.argsort(q, kind="stable")
    a = -eta * q[order]
    a -= a[0]
    if weights is None:
        caps = np.full(m, 1.0 / nu)
        log_s = 0.0
    else:
        s = np.asarray(weights, dtype=np.float64)[order]
        caps = s / nu
        log_s = np.log(s)
        a = a + log_s
    suffix_lse = np.logaddexp.accumulate(a[::-1])[::-1]
    capped_mass = np.concatenate([[0.0], np.cumsum(caps)])
    n_cappable = min(m, int(np.searchsorted(capped_mass, 1.0 - 1e-15, side="left")))
    n_cappable = max(n_cappable, 1)
    k = np.arange(n_cappable)
    free_mass = np.clip(1.0 - capped_mass[k], 1e-300, None)
    log_s_k = log_s[k] if weights is not None else 0.0
    ratio = np.log(free_mass) + a[k] - suffix_lse[k] - (log_s_k - np.log(nu))
    feasible = ratio <= 1e-12
    k_star = n_cappable - 1 if not feasible.any() else int(np.argmax(feasible))
    d_sorted = np.empty(m)
    d_sorted[:k_star] = caps[:k_star]
    d_sorted[k_star:] = (1.0 - capped_mass[k_star]) * np.exp(a[k_star:] - suffix_lse[k_star])
    np.minimum(d_sorted, caps, out=d_sorted)
    d = np.empty(m)
    d[order] = d_sorted
    return d


def old_euclidean(v, cap, weights=None):
    """_euclidean_capped as of 45a7c9e (quicksort of the 2m breakpoints), with the weights of its
    later weighted version (each entry's step its weight; the total ``weights @ caps``)."""
    m = v.shape[0]
    points = np.concatenate([v - cap, v])
    ones = np.ones(m) if weights is None else weights
    steps = np.concatenate([ones, -ones])
    order = np.argsort(points)
    points, steps = points[order], steps[order]
    n_sliding = np.cumsum(steps)[:-1]
    drops = n_sliding * np.diff(points)
    if weights is not None:
        total = weights @ np.broadcast_to(cap, (m,))
    else:
        total = m * cap if np.ndim(cap) == 0 else cap.sum()
    g = total - np.concatenate([[0.0], np.cumsum(drops)])
    seg = int(np.searchsorted(-g, -1.0, side="left"))
    if seg == 0:
        tau = points[0]
    else:
        tau = points[seg - 1] + (g[seg - 1] - 1.0) / n_sliding[seg - 1]
    return np.clip(v - tau, 0.0, cap)


def tied_margins(rng, m):
    """Margins like boosting's: few distinct values (examples answered alike), +-0 among them."""
    n_values = int(rng.integers(1, max(2, m // 3)))
    values = np.round(rng.normal(size=n_values) * rng.uniform(0.1, 5.0), int(rng.integers(0, 4)))
    values[rng.random(n_values) < 0.2] = 0.0
    q = rng.choice(values, size=m)
    q[(q == 0.0) & (rng.random(m) < 0.5)] = -0.0
    return q


@pytest.mark.parametrize("weighted", [False, True])
def test_sorting_reference_is_bitwise_the_stable_sort_version(weighted):
    rng = np.random.default_rng(7)
    for _ in range(600):
        m = int(rng.integers(1, 400))
        q = tied_margins(rng, m) if rng.random() < 0.8 else rng.normal(size=m)
        nu = float(rng.choice([1.0, m, rng.uniform(1.0, m), max(1.0, 0.1 * m)]))
        eta = float(rng.choice([0.1, 1.0, 10.0, 1e4]))
        weights = None
        if weighted:
            raw = rng.choice([0.5, 1.0, 3.0], size=m) if rng.random() < 0.5 else rng.uniform(0.05, 5.0, m)
            weights = raw * (m / raw.sum())
        np.testing.assert_array_equal(sorted_kl_projection(q, nu, eta, weights), old_kl(q, nu, eta, weights))


ETAS = [1e-3, 0.1, 1.0, 10.0, 460.0, 1e4, 1e6]


@st.composite
def kl_problems(draw, shape=None):
    """``(q, nu, eta, weights)``: margins continuous, heavily tied (+-0 among them) or spread
    over up to 1e3; nu at 1, at m or between; with or without example weights."""
    m = draw(st.integers(1, 40))
    shape = shape or draw(st.sampled_from(["continuous", "ties", "spread"]))
    if shape == "continuous":
        q = draw(arrays(np.float64, m, elements=st.floats(-3.0, 3.0)))
    elif shape == "ties":
        q = draw(arrays(np.float64, m, elements=st.sampled_from([-1.5, -0.0, 0.0, 0.25, 0.3, 2.0])))
    else:
        q = draw(arrays(np.float64, m, elements=st.floats(-1e3, 1e3)))
    nu = draw(st.one_of(st.just(1.0), st.just(float(m)), st.floats(1.0, float(m))))
    eta = draw(st.sampled_from(ETAS))
    weights = None
    if draw(st.booleans()):
        values = st.sampled_from([0.5, 1.0, 3.0]) if draw(st.booleans()) else st.floats(0.05, 5.0)
        raw = draw(arrays(np.float64, m, elements=values))
        weights = raw * (m / raw.sum())
    return q, nu, eta, weights


def example_weights(rng, m, weighted, low=0.05, high=5.0):
    """None, or positive weights drawn uniformly in [low, high] and scaled to sum to m."""
    if not weighted:
        return None
    raw = rng.uniform(low, high, m)
    return raw * (m / raw.sum())


def caps_of(nu, weights, m):
    return (np.ones(m) if weights is None else weights) / nu


def assert_close_to_exact(d, exact, caps):
    """Per entry within 1e-12 relative, up to the conditioning of the free share ``F``: the free
    entries scale with ``F = (nu - sum_capped s_i)/nu``, which rounding (in the sum of up to m
    terms, in which entries within 1e-12 of their cap count as capped) moves by up to ~m ulps
    of 1, more than 1e-12 of a tiny F (P(m, nu) then nearly a point)."""
    free_share = max(exact[exact < caps].sum(), 1e-300)
    # exact / free_share first: EPS * exact underflows for subnormal entries
    tol = 1e-12 * exact + d.shape[0] * EPS * (exact / free_share) + 1e-320
    assert np.all(np.abs(d - exact) <= tol), np.max(np.abs(d - exact) / tol)


@settings(max_examples=500, deadline=None)
@given(kl_problems())
# nu one ulp above 1: a free share of 2e-16 and a subnormal entry (found by hypothesis)
@example((np.array([-37.0, 674.0, 0.0, 0.0]), 1.0000000000000002, 1.0, None))
def test_kl_projection_matches_the_exact_decimal_evaluation(problem):
    q, nu, eta, weights = problem
    m = q.shape[0]
    caps = caps_of(nu, weights, m)
    d = capped_simplex_kl_projection(q, nu, eta, weights)
    exact = exact_kl_projection(q, nu, eta, weights)
    assert np.all(np.isfinite(d)) and np.all(d >= 0.0) and np.all(d <= caps)
    # 1e-15 or so, but free entries within 1e-12 of their cap are clipped to it (as before)
    assert abs(d.sum() - 1.0) <= 1e-12
    assert_close_to_exact(d, exact, caps)
    # the same capped set, but for entries within rounding of their cap
    near_cap = np.abs(exact - caps) <= 1e-12 * caps
    np.testing.assert_array_equal((d == caps)[~near_cap], (exact == caps)[~near_cap])


@settings(max_examples=500, deadline=None)
@given(kl_problems())
def test_kl_projection_agrees_with_the_sorting_implementation(problem):
    """Agreement to 1e-12 up to the sorting code's own rounding: its free share
    ``1 - sum(caps)`` cancels (~m ulps of 1, relative to F), and its sequential log-sum-exp
    rounds at the magnitude of the exponents, up to ``eta * ptp(q)`` (1e-10 relative observed
    at eta = 1e6, where the selection stays within 1e-12 of the exact value)."""
    q, nu, eta, weights = problem
    m = q.shape[0]
    caps = caps_of(nu, weights, m)
    d = capped_simplex_kl_projection(q, nu, eta, weights)
    old = sorted_kl_projection(q, nu, eta, weights)
    free_share = max(old[old < caps].sum(), 1e-300)
    rtol = 1e-12 + m * EPS * (1.0 / free_share + eta * np.ptp(q))
    assert np.all(np.abs(d - old) <= rtol * old + 1e-320)
    near_cap = np.abs(old - caps) <= rtol * caps
    np.testing.assert_array_equal((d == caps)[~near_cap], (old == caps)[~near_cap])


@settings(max_examples=200, deadline=None)
@given(kl_problems(shape="ties"))
def test_tied_margins_share_one_value(problem):
    """Ties are never split between capped and free (the sorting code split a tie straddling
    its boundary by index, which only rounding could produce): equal margins, equal
    ``d_i / s_i`` (bit for bit without weights, to 1e-12 with)."""
    q, nu, eta, weights = problem
    d = capped_simplex_kl_projection(q, nu, eta, weights)
    per_copy = d if weights is None else d / weights
    for value in np.unique(q):
        tied = per_copy[q == value]
        if weights is None:
            assert np.all(tied == tied[0])
        else:
            # ln s_i added to an exponent a_i rounds at ulp(a_i): ~1e-13 at a_i = -700
            np.testing.assert_allclose(tied, tied[0], rtol=1e-12)


@pytest.mark.parametrize("eta", [10.0, 460.0, 1e6, 1e9])
@pytest.mark.parametrize("weighted", [False, True])
def test_kl_projection_on_thousands_of_examples(eta, weighted):
    """Many selection levels (the hypothesis cases have few), boosting-like ties, spreads of
    q up to 2e3 (exponents up to 2e12): within 1e-12 of the exact value."""
    rng = np.random.default_rng(int(eta) % 1000 + weighted)
    m = 3000
    for q in (tied_margins(rng, m), rng.normal(size=m), rng.uniform(-1e3, 1e3, m)):
        weights = example_weights(rng, m, weighted)
        for nu in (1.0, 0.01 * m, 0.1 * m + 0.5, 0.5 * m, m - 0.5, float(m)):
            caps = caps_of(nu, weights, m)
            d = capped_simplex_kl_projection(q, nu, eta, weights)
            assert abs(d.sum() - 1.0) <= 1e-12
            assert_close_to_exact(d, exact_kl_projection(q, nu, eta, weights), caps)


def _first_pivot_positions(m, n_picks=127):
    """The positions the projection's first level draws its pivot from (its fixed-seed generator)."""
    state, mask, out = 0x9E3779B97F4A7C15, (1 << 64) - 1, []
    for _ in range(n_picks):
        state = (state * 6364136223846793005 + 1442695040888963407) & mask
        out.append((state >> 33) % m)
    return np.array(out)


@pytest.mark.parametrize("weighted", [False, True])
def test_a_capped_first_pivot_on_a_second_scale(weighted):
    """The first level's pivot capped and every mass at or above it underflowing at the first
    scale: the masses of the side kept (its larger margins) are taken again at the pivot's scale.
    The drawn positions get margins 0, 1e-3, ... below the pivot, whose rank among them puts it
    at the 66th smallest (nu = 400 of m = 1000); every other example has margin 1 (eta = 1e6:
    65 below the pivot capped, the rest free)."""
    m, nu, eta = 1000, 400.0, 1e6
    q = np.ones(m)
    picks = _first_pivot_positions(m)
    distinct = np.unique(picks)
    q[distinct[:66]] = np.arange(66) * 1e-3
    weights = example_weights(np.random.default_rng(3), m, weighted, 0.5, 1.5)
    d = capped_simplex_kl_projection(q, nu, eta, weights)
    caps = caps_of(nu, weights, m)
    assert_close_to_exact(d, exact_kl_projection(q, nu, eta, weights), caps)
    assert np.sum(d >= caps * (1 - 1e-12)) >= 60  # most of the small margins capped
    assert_first_level_ways_agree(q, nu, eta, weights)


def assert_first_level_ways_agree(q, nu, eta, weights):
    """The first level writing both its sides (small m) or copying the side kept after it (large m):
    the same projection, sums and value, bit for bit."""
    from marginboost.core.projections import _kl_capped

    s = np.empty(0) if weights is None else weights
    delta = np.linspace(-1.0, 1.0, q.shape[0])
    both, after = (_kl_capped(q, eta, nu, s, weights is not None, delta, split) for split in (True, False))
    np.testing.assert_array_equal(both[0], after[0])
    assert both[1:] == after[1:] or (np.isnan(both[2]) and np.isnan(after[2]) and both[1] == after[1])


@pytest.mark.parametrize("weighted", [False, True])
def test_the_two_ways_of_the_first_level_agree(weighted):
    """Both first levels on boosting-like margins, eta up to 1e9 (second scales), nu small and large."""
    rng = np.random.default_rng(21 + weighted)
    m = 2000
    for eta in (10.0, 460.0, 1e6, 1e9):
        for q in (tied_margins(rng, m), rng.normal(size=m), rng.uniform(-1.0, 1.0, m)):
            weights = example_weights(rng, m, weighted)
            for nu in (1.0, 0.1 * m + 0.5, 0.5 * m, float(m)):
                assert_first_level_ways_agree(q, nu, eta, weights)


@pytest.mark.parametrize("eta", [10.0, 460.0, 1e9])
@pytest.mark.parametrize("weighted", [False, True])
def test_projection_along_a_direction_sums_what_the_separate_pass_sums(eta, weighted):
    """``kl_projection_and_value`` with ``delta`` returns the projection and, summed while it writes
    ``d``, the line search's sums: both bit for bit what the projection and a separate
    ``slope_curvature_sums`` pass give. eta = 1e9 on margins 1e-3 apart puts the free entries on a
    second scale (finished by exp after the writing pass), where the sums are taken again."""
    rng = np.random.default_rng(int(eta) % 997 + weighted)
    m = 2000
    for q in (tied_margins(rng, m), rng.normal(size=m), rng.uniform(-1.0, 1.0, m)):
        weights = example_weights(rng, m, weighted)
        delta = rng.choice([-2.0, 0.0, 2.0], m) - rng.uniform(-1.0, 1.0) * q
        for nu in (1.0, 0.1 * m + 0.5, 0.5 * m, float(m)):
            d, _, sums = kl_projection_and_value(q, nu, eta, weights, delta)
            np.testing.assert_array_equal(d, capped_simplex_kl_projection(q, nu, eta, weights))
            caps = np.empty(0) if weights is None else weights / nu
            assert sums == slope_curvature_sums(d, delta, 1.0 / nu, caps, weighted)
    with pytest.raises(ValueError, match="delta must have the shape of q"):
        kl_projection_and_value(np.zeros(3), 1.0, 1.0, None, np.zeros(2))


@pytest.mark.parametrize("weighted", [False, True])
def test_closed_form_value_is_the_objective_at_the_projection(weighted):
    """The projection's ``rho~(q)`` in closed form (no pass over d q and d ln d) against the 50-digit
    value of ``d @ q + Delta(d) / eta`` at the ``d`` it returned: within a few ulps of the terms'
    size (and never further than twice the floating-point sum of the two terms is); NaN only
    where entries needed a second scale, where ``SmoothedSoftMargin.value_at`` sums explicitly."""
    from marginboost.soft_margin.objectives import SmoothedSoftMargin, relative_entropy_to_uniform

    rng = np.random.default_rng(11 + weighted)
    closed_errors, summed_errors, second_scale = [], [], 0
    for trial in range(120):
        m = int(rng.integers(1, 200))
        nu = float(rng.uniform(1.0, m))
        eta = float(10 ** rng.uniform(0, 4.5))
        q = tied_margins(rng, m) * 0.1 if trial % 3 == 0 else rng.normal(size=m) * 10 ** rng.uniform(-3, 0)
        weights = example_weights(rng, m, weighted)
        d, value, sums = kl_projection_and_value(q, nu, eta, weights)
        assert sums is None
        summed = float(d @ q + relative_entropy_to_uniform(d, weights) / eta)
        if np.isnan(value):
            second_scale += 1
            objective = SmoothedSoftMargin(nu, eta, weights)
            assert objective.value_at(q, objective.distribution(q)) == summed
            continue
        exact = _objective_in_decimals(d, q, weights, eta)
        s = np.ones(m) if weights is None else weights
        live = d > 0
        size = float(d @ np.abs(q) + (d[live] * np.abs(np.log(d[live] * m / s[live]))).sum() / eta)
        tol = EPS * ((m + 4) * size + np.log(m / nu) / eta) + 1e-300
        assert abs(value - exact) <= max(2.0 * abs(summed - exact), 2.0 * tol), (trial, value, summed, exact)
        closed_errors.append(abs(value - exact) / tol)
        summed_errors.append(abs(summed - exact) / tol)
    assert len(closed_errors) > 60 and second_scale > 0
    assert np.median(closed_errors) <= np.median(summed_errors)


def _objective_in_decimals(d, q, weights, eta, digits=50):
    """``sum_i d_i q_i + sum_i d_i ln(d_i m / s_i) / eta`` for these doubles, in ``digits``-digit decimals."""
    import decimal

    m = d.shape[0]
    s = np.ones(m) if weights is None else weights
    with decimal.localcontext() as ctx:
        ctx.prec = digits
        D = decimal.Decimal
        total = D(0)
        for i in range(m):
            if d[i] > 0:
                di = D(float(d[i]))
                total += di * D(float(q[i])) + di * (di * D(m) / D(float(s[i]))).ln() / D(float(eta))
        return float(total)
def test_euclidean_projections_are_bitwise_the_2m_sort_version():
    """The compiled sweep (``_breakpoint_tau``) and the merge of the scalar cap's two sorted runs give
    the bits of the numpy sweep they replaced, with and without example weights."""
    rng = np.random.default_rng(8)
    for _ in range(600):
        m = int(rng.integers(1, 400))
        v = tied_margins(rng, m) / m
        nu = float(rng.uniform(1.0, m))
        np.testing.assert_array_equal(capped_simplex_euclidean_projection(v, nu), old_euclidean(v, 1.0 / nu))
        caps = np.where(rng.random(m) < 0.3, 1.0 / max(1.0, 0.3 * m * rng.uniform(0.2, 1.0)), 1.0)
        np.testing.assert_array_equal(box_capped_simplex_euclidean_projection(v, caps), old_euclidean(v, caps))
        s = rng.integers(1, 4, m).astype(float)  # example weights (copies): sum s caps >= 1 by construction
        caps = np.where(rng.random(m) < 0.3, 0.5, 2.0) / s.sum() * rng.uniform(1.0, 3.0)
        np.testing.assert_array_equal(weighted_box_capped_simplex_euclidean_projection(v, caps, s),
                                      old_euclidean(v, caps, s))


def test_ties_by_index_is_the_stable_argsort():
    rng = np.random.default_rng(9)
    for _ in range(200):
        q = tied_margins(rng, int(rng.integers(1, 300)))
        np.testing.assert_array_equal(_ties_by_index(q, np.argsort(q)), np.argsort(q, kind="stable"))


def test_a_run_of_ties_split_by_the_cap_is_ordered_by_index():
    """The one place the unstable order could show: a run of equal margins straddling k_star."""
    q = np.array([2.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    order = np.array([5, 4, 1, 3, 2, 0])  # sorts q, ties (indices 1..4) scrambled
    _split_tie_by_index(q, order, 3)  # positions 1, 2 capped, 3, 4 not: the run 1..4 straddles 3
    np.testing.assert_array_equal(order, [5, 1, 2, 3, 4, 0])
    untouched = np.array([5, 4, 1, 3, 2, 0])
    _split_tie_by_index(q, untouched, 5)  # k_star at the start of its run: nothing to do
    np.testing.assert_array_equal(untouched, [5, 4, 1, 3, 2, 0])


def test_compiled_suffix_logaddexp_is_numpys_accumulation():
    rng = np.random.default_rng(10)
    for _ in range(300):
        m = int(rng.integers(1, 500))
        a = np.sort(tied_margins(rng, m) * rng.choice([1.0, 50.0, 1e3]))[::-1].copy()
        a -= a[0]
        if rng.random() < 0.2:  # zero weights: log-weight -inf at the end
            a[m - int(rng.integers(0, m + 1)):] = -np.inf
        np.testing.assert_array_equal(_suffix_logaddexp(a), np.logaddexp.accumulate(a[::-1])[::-1])
