"""Least-squares regression weak learners (FWBoost_R's oracle) against brute force and
scikit-learn's DecisionTreeRegressor on ties-free data."""
import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor

from marginboost.weak_learners import resolve_regression_learner
from marginboost.weak_learners.regression import (
    LeastSquaresStump,
    LeastSquaresTree,
    RegressionStump,
    SklearnRegressionLearner,
)
from reference import random_tree_level


def _problem(seed, m=None, p=None):
    rng = np.random.default_rng(seed)
    m = m or int(rng.integers(2, 60))
    p = p or int(rng.integers(1, 5))
    return rng.normal(size=(m, p)), rng.normal(size=m), rng.uniform(0.1, 2.0, size=m)


def _brute_force_stump_sse(X, r, s):
    """Smallest weighted SSE over the constant and every (feature, midpoint) stump."""
    best = s @ (r - s @ r / s.sum()) ** 2
    for f in range(X.shape[1]):
        v = np.unique(X[:, f])
        for t in 0.5 * (v[:-1] + v[1:]):
            right = X[:, f] > t
            pred = np.where(right, s[right] @ r[right] / s[right].sum(), s[~right] @ r[~right] / s[~right].sum())
            best = min(best, s @ (r - pred) ** 2)
    return best


@pytest.mark.parametrize("seed", range(25))
def test_stump_is_the_brute_force_optimum(seed):
    X, r, s = _problem(seed)
    h, out = LeastSquaresStump().prepare(X)(r, s)
    np.testing.assert_allclose(out, h.predict(X))
    assert s @ (r - out) ** 2 == pytest.approx(_brute_force_stump_sse(X, r, s), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_tree_matches_sklearn_on_ties_free_data(seed, depth):
    X, r, s = _problem(seed)
    h, out = LeastSquaresTree(depth).prepare(X)(r, s)
    ref = DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X, r, sample_weight=s)
    # Same partition and leaf means on the sample (off-sample thresholds may differ where two
    # features induce the same cut of a small node, an exact tie).
    np.testing.assert_allclose(out, ref.predict(X), rtol=1e-10, atol=1e-12)
    assert h.depth <= depth


def test_constant_residuals_give_a_constant_and_pure_nodes_stay_leaves():
    X, _, s = _problem(0, m=20, p=3)
    r = np.full(20, 1.5)
    h, out = LeastSquaresStump().prepare(X)(r, s)
    assert isinstance(h, RegressionStump) and h.threshold == -np.inf
    np.testing.assert_allclose(out, 1.5)
    tree, out = LeastSquaresTree(3).prepare(X)(r, s)
    assert tree.node_count == 1
    np.testing.assert_allclose(tree.predict(X[:3]), 1.5)


def test_sklearn_adapter_and_resolution():
    X, r, s = _problem(3, m=40, p=3)
    learner = resolve_regression_learner(DecisionTreeRegressor(max_depth=2, random_state=0))
    assert isinstance(learner, SklearnRegressionLearner)
    h, out = learner.prepare(X)(r, s)
    ours, _ = LeastSquaresTree(2).prepare(X)(r, s)
    np.testing.assert_allclose(out, ours.predict(X), rtol=1e-10)
    assert isinstance(resolve_regression_learner("stump"), LeastSquaresStump)
    assert resolve_regression_learner("tree", 4).max_depth == 4
    with pytest.raises(ValueError, match="weak_learner must be"):
        resolve_regression_learner("forest")
    with pytest.raises(ValueError, match="max_depth must be"):
        LeastSquaresTree(0).prepare(X)


def _interleaved_cuts(vals, order, r, s, node_of, S, W, Q, n_nodes):
    """The regression tree kernel before issue 17's per-node sweeps, in plain Python: one sweep per
    feature over all nodes of the level at once, each node's running sums in arrays."""
    from marginboost.weak_learners.regression import SPLIT_TOL
    from reference import midpoint  # plain Python, as the sweep it transcribes

    p, m = vals.shape
    best = (np.full(n_nodes, -1), np.zeros(n_nodes), np.full(n_nodes, -np.inf))
    for j in range(p):
        left_s, left_w = np.zeros(n_nodes), np.zeros(n_nodes)
        last, seen = np.zeros(n_nodes), np.zeros(n_nodes, dtype=bool)
        for k in range(m):
            i, v = order[j, k], vals[j, k]
            n = node_of[i]
            if n < 0:
                continue
            wl = left_w[n]
            wr = W[n] - wl
            if seen[n] and v != last[n] and wl > 0.0 and wr > 0.0:
                score = left_s[n] * left_s[n] / wl + (S[n] - left_s[n]) * (S[n] - left_s[n]) / wr
                if score > best[2][n] + SPLIT_TOL * Q[n]:
                    best[0][n], best[1][n], best[2][n] = j, midpoint(last[n], v), score
            left_s[n] += s[i] * r[i]
            left_w[n] += s[i]
            last[n], seen[n] = v, True
    return best


@pytest.mark.parametrize("n_nodes", [1, 2, 3, 5])
def test_per_node_cuts_equal_the_interleaved_sweep_bit_for_bit(n_nodes):
    """_best_cuts (each node swept alone, the order split by node) against the sweep it replaced:
    the same features, thresholds and scores bit for bit, with examples in no node (-1), ties of
    values, zero weights and residuals."""
    from marginboost.weak_learners.regression import _best_cuts, _node_stats

    rng = np.random.default_rng(10 + n_nodes)
    for trial in range(20):
        vals, order, node_of = random_tree_level(rng, n_nodes, trial)
        m = node_of.shape[0]
        r = rng.normal(size=m) if trial % 3 else rng.integers(-2, 3, size=m) / 4.0
        s = rng.random(m) * (rng.random(m) < 0.9)
        S, W, Q, _ = _node_stats(r, s, node_of, n_nodes)
        got = _best_cuts(vals, order, r, s, node_of, S, W, Q, n_nodes)
        want = _interleaved_cuts(vals, order, r, s, node_of, S, W, Q, n_nodes)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
