"""The faster capped-simplex projections give bit-for-bit the results of the code they
replaced (commit 45a7c9e): the stable argsort in the KL projection and the 2m-point
quicksort in the Euclidean sweep, copied below verbatim as the reference."""
import numpy as np
import pytest

from marginboost.projections import (
    _split_tie_by_index,
    _suffix_logaddexp,
    _ties_by_index,
    box_capped_simplex_euclidean_projection,
    capped_simplex_euclidean_projection,
    capped_simplex_kl_projection,
)


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


def old_euclidean(v, cap):
    """_euclidean_capped as of 45a7c9e (quicksort of the 2m breakpoints)."""
    m = v.shape[0]
    points = np.concatenate([v - cap, v])
    steps = np.concatenate([np.ones(m), -np.ones(m)])
    order = np.argsort(points)
    points, steps = points[order], steps[order]
    n_sliding = np.cumsum(steps)[:-1]
    drops = n_sliding * np.diff(points)
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
def test_kl_projection_is_bitwise_the_stable_sort_version(weighted):
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
        np.testing.assert_array_equal(capped_simplex_kl_projection(q, nu, eta, weights), old_kl(q, nu, eta, weights))


def test_euclidean_projections_are_bitwise_the_2m_sort_version():
    rng = np.random.default_rng(8)
    for _ in range(600):
        m = int(rng.integers(1, 400))
        v = tied_margins(rng, m) / m
        nu = float(rng.uniform(1.0, m))
        np.testing.assert_array_equal(capped_simplex_euclidean_projection(v, nu), old_euclidean(v, 1.0 / nu))
        caps = np.where(rng.random(m) < 0.3, 1.0 / max(1.0, 0.3 * m * rng.uniform(0.2, 1.0)), 1.0)
        np.testing.assert_array_equal(box_capped_simplex_euclidean_projection(v, caps), old_euclidean(v, caps))


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
