"""NZDDs of paper 003: the represented family, weight pushing and the average-margin oracle,
each against brute force (tests/reference.py enumerates every stump; exact rational arithmetic
gives the reference average margin, whatever eta)."""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from marginboost.average_margin.nzdd import MAX_ETA, NZDD
from marginboost.average_margin.nzdd_stumps import build_margins_nzdd, build_stump_nzdd
from reference import all_stump_margins

ETAS = [1e-3, 1.0, 37.5, 1e3, 1e4, 1e6]


def family_of(U):
    return {frozenset(np.flatnonzero(col > 0).tolist()) for col in U.T}


def exact_average(U, d, eta):
    """``E_h[u_h | d]`` and ``F(d)`` with ``eta d @ u_h`` in exact rationals: the differences to the
    maximum are exact before the only rounding, so this is stable for any eta."""
    fd = [Fraction(v) for v in d]
    logits = [Fraction(eta) * sum((fd[i] * int(U[i, h]) for i in range(U.shape[0])), Fraction(0))
              for h in range(U.shape[1])]
    top = max(logits)
    w = np.exp([float(v - top) for v in logits])
    z = w.sum()
    return U @ (w / z), float(top / Fraction(eta)) + math.log(z) / eta


def sample(rng, m, p, n_values):
    X = rng.integers(0, n_values, (m, p)).astype(float)  # few values: ties and duplicate columns
    y = rng.choice([-1.0, 1.0], m)
    return X, y


samples = st.tuples(st.integers(1, 9), st.integers(1, 3), st.integers(1, 4), st.integers(0, 2**32 - 1))


@settings(max_examples=60, deadline=None)
@given(samples)
def test_stump_nzdd_family_is_all_stumps(args):
    m, p, n_values, seed = args
    X, y = sample(np.random.default_rng(seed), m, p, n_values)
    if seed % 3 == 0:
        X[:, -1] = X[:, 0]  # a duplicated feature: its stumps must count once
    S = build_stump_nzdd(X, y)
    U = all_stump_margins(X, y)
    fam = S.nzdd.family()
    assert len(fam) == len(set(fam)) == U.shape[1] == S.n_hypotheses == S.nzdd.n_paths()
    assert set(fam) == family_of(U)
    assert S.nzdd.log_n_paths() == pytest.approx(math.log(U.shape[1]), abs=1e-12)
    # Each path's stored stump realises exactly that path's set.
    edge_to_h = {int(e): h for h, e in enumerate(S.path_edge)}
    margins = S.predict_matrix(X, np.arange(S.n_hypotheses)) * y[:, None]
    for path, labels in zip(S.nzdd.paths(), fam):
        (h,) = [edge_to_h[e] for e in path if e in edge_to_h]
        assert family_of(margins[:, [h]]) == {labels}
    # O(pm) size: each example at most once per (feature, orientation) chain (trimming may drop some).
    assert S.nzdd.size <= 2 * p * m
    assert S.nzdd.n_edges <= 6 * p * m + 2 * p


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_margins_nzdd_family_is_the_distinct_columns(m, n, seed):
    rng = np.random.default_rng(seed)
    U = rng.choice([-1.0, 1.0], (m, n))
    U = np.hstack([U, U[:, :2], -np.ones((m, 1))])  # duplicates and the empty set
    G, distinct = build_margins_nzdd(U)
    fam = G.family()
    assert len(fam) == len(set(fam)) == distinct.shape[1] == G.n_paths()
    assert set(fam) == family_of(U)


@settings(max_examples=40, deadline=None)
@given(samples, st.sampled_from(ETAS))
def test_average_margin_equals_brute_force(args, eta):
    m, p, n_values, seed = args
    rng = np.random.default_rng(seed)
    X, y = sample(rng, m, p, n_values)
    S = build_stump_nzdd(X, y)
    U = all_stump_margins(X, y)
    d = rng.dirichlet(np.full(m, 0.5))
    ref, ref_value = exact_average(U, d, eta)
    for g, value in (S.nzdd.average_margin(d, eta), S.average_margin(d, eta)):
        np.testing.assert_allclose(g, ref, rtol=0, atol=1e-10)
        assert value == pytest.approx(ref_value, rel=1e-12, abs=1e-12 / min(eta, 1.0))
    w = S.hypothesis_weights(d, eta)
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(S.predict_matrix(X, np.arange(S.n_hypotheses)) * y[:, None] @ w, ref, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_unrolled_oracle_equals_generic_dp_on_long_chains(seed):
    """Continuous features give chains of ~m cuts, exercising the multiplicative updates and
    their resynchronisation; the generic DP of Algorithm 2 is the reference."""
    rng = np.random.default_rng(seed)
    m = 400
    X = np.column_stack([rng.normal(size=m), rng.integers(0, 5, m), np.round(rng.normal(size=m), 1)])
    y = rng.choice([-1.0, 1.0], m)
    S = build_stump_nzdd(X, y)
    for d in (np.full(m, 1.0 / m), rng.dirichlet(np.full(m, 0.3)), rng.dirichlet(np.full(m, 50.0))):
        for eta in ETAS:
            g, value = S.average_margin(d, eta)
            g_ref, value_ref = S.nzdd.average_margin(d, eta)
            np.testing.assert_allclose(g, g_ref, rtol=0, atol=1e-10)
            assert value == pytest.approx(value_ref, rel=1e-12)


@pytest.mark.parametrize("eta", [37.5, 2.4e3, 1e5])
def test_unrolled_oracle_restarts_match_generic_dp(eta):
    """m = 3000: chains of more than one 256-cut segment, long blocks of ties (a binary and a
    5-valued feature) across which the log-weight drifts past the span (restarts inside a
    block), and d concentrated on a few examples (single factors beyond the span)."""
    rng = np.random.default_rng(11)
    m = 3000
    X = np.column_stack([rng.normal(size=m), rng.integers(0, 2, m), rng.integers(0, 5, m),
                         np.round(rng.normal(size=m), 2)])
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=m) > 0.3, 1.0, -1.0)
    S = build_stump_nzdd(X, y)
    spiky = rng.dirichlet(np.full(m, 0.3))
    spiky[rng.choice(m, 5, replace=False)] += 0.2
    for d in (np.full(m, 1.0 / m), rng.dirichlet(np.ones(m)), spiky / spiky.sum()):
        g, value = S.average_margin(d, eta)
        g_ref, value_ref = S.nzdd.average_margin(d, eta)
        np.testing.assert_allclose(g, g_ref, rtol=0, atol=1e-10)
        assert value == pytest.approx(value_ref, rel=1e-12)
        # Each path's weight to 1e-9 relative; weights below e^-550 may be set to 0 (stump_oracle).
        w = S.hypothesis_weights(d, eta)
        np.testing.assert_allclose(w, S.nzdd.marginals(d, eta)[0][S.path_edge], rtol=1e-9, atol=1e-230)


def test_oracle_exponentials_are_within_two_ulp():
    """The table's vectorised exp(+-x) (even/odd Taylor split, no division) against libm."""
    from marginboost.average_margin.stump_oracle import _example_table
    x = np.random.default_rng(2).uniform(-340.0, 340.0, 100_000)
    rec = _example_table(1.0, x, np.ones_like(x))[0]
    for got, want in ((rec[:, 2], np.exp(x)), (rec[:, 3], np.exp(-x))):
        assert np.max(np.abs(got - want) / np.spacing(want)) <= 2.5


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 7), st.integers(1, 10), st.integers(0, 2**32 - 1), st.sampled_from([1.0, 1e3, 1e6]))
def test_weight_pushing_preserves_path_weights(m, n, seed, scale):
    rng = np.random.default_rng(seed)
    G, _ = build_margins_nzdd(rng.choice([-1.0, 1.0], (m, n)))
    # Integer log-weights: path sums are exact, so the reference is exact too.
    la = np.round(rng.uniform(-1, 1, G.n_edges) * scale)
    b, log_z = G.push_weights(la)
    sums = np.array([la[p].sum() for p in G.paths()])
    ref = np.exp(sums - sums.max())
    ref /= ref.sum()
    assert log_z == pytest.approx(sums.max() + math.log(np.exp(sums - sums.max()).sum()), rel=1e-14, abs=1e-12)
    got = np.array([np.prod(b[p]) for p in G.paths()])
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-300)
    for v in range(G.n_nodes - 1):  # pushed weights are stochastic at every node
        assert b[G.out_ptr[v]:G.out_ptr[v + 1]].sum() == pytest.approx(1.0, abs=1e-12)


def test_max_edge_equals_brute_force():
    rng = np.random.default_rng(5)
    X, y = sample(rng, 12, 3, 5)
    S = build_stump_nzdd(X, y)
    U = all_stump_margins(X, y)
    for _ in range(5):
        d = rng.dirichlet(np.ones(12))
        assert S.nzdd.max_edge(d) == pytest.approx((d @ U).max(), abs=1e-14)


@pytest.mark.parametrize("eta", [1e-280, 1e-300, 5e-324])
def test_unrolled_oracle_at_tiny_eta_is_the_uniform_average(eta):
    """Issue 18: below eta ~ 1e-286 the oracle's quantum q = 2^e >= 2 eta 2^-51 was subnormal, so
    1/q = inf: every mass NaN (eta = 1e-300), or a ZeroDivisionError (eta = 5e-324). Its answer is
    the uniform average over the stumps (their weights differ by a relative 2 eta), like the
    generic DP's; F(d) ~ ln|H_S| / eta overflows to inf at the smallest etas, never NaN."""
    rng = np.random.default_rng(3)
    m = 60
    X = np.column_stack([rng.normal(size=m), rng.integers(0, 3, m)])
    y = rng.choice([-1.0, 1.0], m)
    S = build_stump_nzdd(X, y)
    U = all_stump_margins(X, y)
    d = rng.dirichlet(np.ones(m))
    g, value = S.average_margin(d, eta)
    np.testing.assert_allclose(g, U.mean(axis=1), rtol=0, atol=1e-12)
    assert not math.isnan(value) and value > 0
    w = S.hypothesis_weights(d, eta)
    np.testing.assert_allclose(w, 1.0 / S.n_hypotheses, rtol=1e-12)


def test_bad_input_is_refused():
    rng = np.random.default_rng(0)
    X, y = sample(rng, 6, 2, 3)
    S = build_stump_nzdd(X, y)
    d = np.full(6, 1 / 6)
    with pytest.raises(ValueError, match=r"eta must lie in \(0, 1e\+09\]"):
        S.average_margin(d, 2 * MAX_ETA)
    with pytest.raises(ValueError, match="eta must lie"):
        S.nzdd.average_margin(d, 0.0)
    with pytest.raises(ValueError, match=r"d must have shape \(6,\)"):
        S.average_margin(np.ones(5) / 5, 1.0)
    for bad in (np.nan, np.inf):
        Xb = X.copy()
        Xb[2, 1] = bad
        with pytest.raises(ValueError, match="finite"):
            build_stump_nzdd(Xb, y)
    with pytest.raises(ValueError, match=r"\{-1, \+1\}"):
        build_stump_nzdd(X, np.arange(6.0))
    with pytest.raises(ValueError, match="topological"):
        NZDD.from_edges(2, [1], [0], [0, 0], [], 3)
    with pytest.raises(ValueError, match="no root-to-leaf path"):
        NZDD.from_edges(3, [0], [1], [0, 0], [], 3)


@settings(max_examples=30, deadline=None)
@given(samples)
def test_stump_max_edge_equals_brute_force(args):
    """The one-pass best edge over the presorted features (used by stop='certified')."""
    m, p, n_values, seed = args
    rng = np.random.default_rng(seed)
    X, y = sample(rng, m, p, n_values)
    S = build_stump_nzdd(X, y)
    U = all_stump_margins(X, y)
    d = rng.dirichlet(np.ones(m))
    assert S.max_edge(d) == pytest.approx((d @ U).max(), abs=1e-14)
    assert S.max_edge(d) == pytest.approx(S.nzdd.max_edge(d), abs=1e-14)
