"""Weak learners against slow, obviously-correct references.

The edge of h under d is sum_i d_i y_i h(x_i) (paper 000, section 2). Stumps are checked
against a brute-force enumeration of every candidate threshold; edge trees against a naive
recursive re-implementation of the greedy rule, written with boolean masks and np.sum.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from marginboost.weak_learners import (
    DecisionStump,
    DecisionTree,
    EdgeOracle,
    EdgeTree,
    Hypothesis,
    SklearnWeakLearner,
    Stump,
    WeakLearner,
    resolve_weak_learner,
)
from marginboost.weak_learners.trees import SPLIT_TOL
from reference import random_tree_level

SETTINGS = settings(max_examples=150, deadline=None)


def edge(d, y, pred):
    return float(np.sum(d * y * pred))


# ---------------------------------------------------------------- references


def brute_force_stump_edge(X, y, d):
    """Max edge over every feature, every threshold in {-inf} U midpoints, both signs.

    A threshold strictly between consecutive distinct values u_k < u_k+1 induces the same
    partition as ``x > u_k``; the reference uses u_k itself, since the rounded midpoint of two
    adjacent doubles is not strictly between them.
    """
    best = -np.inf
    for j in range(X.shape[1]):
        u = np.unique(X[:, j])
        thresholds = [-np.inf, *u[:-1]]
        for t in thresholds:
            for s in (1.0, -1.0):
                h = np.where(X[:, j] > t, s, -s)
                best = max(best, edge(d, y, h))
    return best


def reference_greedy_tree(X, y, d, max_depth):
    """Training predictions of the greedy edge tree, grown by the definition."""
    w = d * y
    pred = np.empty(X.shape[0])

    def grow(mask, depth):
        s = np.sum(w[mask])
        pred[mask] = 1.0 if s >= 0 else -1.0
        wm = w[mask]
        if depth == max_depth or not (np.any(wm > 0) and np.any(wm < 0)):
            return
        best = None
        for j in range(X.shape[1]):
            u = np.unique(X[mask, j])
            for t in u[:-1]:  # same partitions as the midpoints (see brute_force_stump_edge)
                go_left = mask & (X[:, j] <= t)
                go_right = mask & (X[:, j] > t)
                score = abs(np.sum(w[go_left])) + abs(np.sum(w[go_right]))
                if best is None or score > best[0] + SPLIT_TOL * np.sum(np.abs(wm)):
                    best = (score, go_left, go_right)
        no_gain = best is not None and best[0] - abs(s) <= SPLIT_TOL * np.sum(np.abs(wm))
        if best is None or (no_gain and depth == max_depth - 1):
            return
        grow(best[1], depth + 1)
        grow(best[2], depth + 1)

    grow(np.ones(X.shape[0], dtype=bool), 0)
    return pred


# ---------------------------------------------------------------- data


@st.composite
def samples(draw, max_m=12, max_p=3):
    """Small (X, y, d): integer columns (many ties), float columns, constant columns;
    d with zeros and repeated values allowed."""
    m = draw(st.integers(1, max_m))
    p = draw(st.integers(1, max_p))
    cols = []
    for _ in range(p):
        kind = draw(st.sampled_from(["int", "float", "const"]))
        if kind == "int":
            col = draw(st.lists(st.integers(-2, 2), min_size=m, max_size=m))
        elif kind == "float":
            col = draw(
                st.lists(
                    st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False),
                    min_size=m,
                    max_size=m,
                )
            )
        else:
            col = [draw(st.floats(-5, 5, allow_nan=False))] * m
        cols.append(col)
    X = np.array(cols, dtype=np.float64).T.reshape(m, p)
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=m, max_size=m)))
    d = np.array(
        draw(st.lists(st.floats(0, 1, allow_subnormal=False), min_size=m, max_size=m))
    )
    d = d / d.sum() if d.sum() > 0 else np.full(m, 1.0 / m)
    return X, y, d


@st.composite
def samples_continuous_d(draw):
    """Like ``samples`` but d ~ Dirichlet: distinct partitions then have distinct scores,
    so the greedy tree is unique and the reference must match it prediction for prediction."""
    X, y, _ = draw(samples())
    seed = draw(st.integers(0, 2**32 - 1))
    d = np.random.default_rng(seed).dirichlet(np.ones(X.shape[0]))
    return X, y, d


# ---------------------------------------------------------------- stumps


def check_stump(X, y, d):
    h, pred = DecisionStump().prepare(X, y)(d)
    assert isinstance(h, Stump)
    assert pred.dtype == np.float64 and pred.shape == (X.shape[0],)
    np.testing.assert_array_equal(pred, h.predict(X))
    assert h.sign in (-1.0, 1.0)
    assert set(np.unique(pred)) <= {-1.0, 1.0}
    if h.threshold != -np.inf:  # a real cut: strictly between two distinct sample values
        col = X[:, h.feature]
        assert np.any(col <= h.threshold) and np.any(col > h.threshold)
    assert edge(d, y, pred) == pytest.approx(brute_force_stump_edge(X, y, d), abs=1e-12)
    return h, pred


@SETTINGS
@given(samples())
def test_stump_edge_equals_brute_force(data):
    check_stump(*data)


def test_stump_random_integer_features():
    rng = np.random.default_rng(0)
    for _ in range(20):
        m, p = rng.integers(20, 80), rng.integers(1, 5)
        X = rng.integers(0, 4, size=(m, p)).astype(float)
        y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        d = rng.dirichlet(np.full(m, 0.5))
        check_stump(X, y, d)


def test_stump_edge_cases():
    # m = 1: only constants exist; the best one predicts y.
    h, pred = check_stump(np.array([[3.0, -1.0]]), np.array([-1.0]), np.array([1.0]))
    assert h.threshold == -np.inf and h.sign == -1.0
    np.testing.assert_array_equal(pred, [-1.0])
    # All features constant: constant hypothesis of the weighted majority, predict on new X.
    X = np.ones((5, 2))
    y = np.array([1.0, -1, -1, 1, -1])
    h, _ = check_stump(X, y, np.full(5, 0.2))
    assert h.threshold == -np.inf and h.sign == -1.0
    np.testing.assert_array_equal(h.predict(np.zeros((3, 2))), [-1.0] * 3)
    # Tie on the sum (T = 0): the constant takes +1.
    h, _ = check_stump(np.ones((2, 1)), np.array([1.0, -1.0]), np.array([0.5, 0.5]))
    assert h.sign == 1.0


def test_stump_deterministic_tie_breaking():
    # Two identical columns: the first feature wins; x > 1.5 separates perfectly.
    x = np.array([0.0, 1, 2, 3])
    X = np.column_stack([x, x])
    y = np.array([-1.0, -1, 1, 1])
    h, pred = DecisionStump().prepare(X, y)(np.full(4, 0.25))
    assert (h.feature, h.threshold, h.sign) == (0, 1.5, 1.0)
    # Three thresholds with edge 1 (the middle examples weigh nothing): the smallest wins.
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([-1.0, 1.0, -1.0, 1.0])
    h, pred = DecisionStump().prepare(X, y)(np.array([0.5, 0.0, 0.0, 0.5]))
    assert (h.feature, h.threshold, h.sign) == (0, 0.5, 1.0)


def test_stump_adjacent_doubles():
    # The naive midpoint of two adjacent doubles rounds (to even) onto the upper one here.
    a = np.nextafter(1.0, 2.0)
    b = np.nextafter(a, 2.0)
    assert 0.5 * a + 0.5 * b == b
    X = np.array([[a], [b]])
    y = np.array([-1.0, 1.0])
    h, pred = check_stump(X, y, np.array([0.5, 0.5]))
    np.testing.assert_array_equal(pred, y)


# ---------------------------------------------------------------- trees


def tree_fit(X, y, d, max_depth):
    h, pred = EdgeTree(max_depth).prepare(X, y)(d)
    assert isinstance(h, DecisionTree)
    np.testing.assert_array_equal(pred, h.predict(X))
    leaves = h.feature < 0
    assert set(np.unique(h.value[leaves])) <= {-1.0, 1.0}
    assert h.depth <= max_depth
    return h, pred


@SETTINGS
@given(samples())
def test_depth1_tree_edge_equals_stump_edge(data):
    X, y, d = data
    _, pred_tree = tree_fit(X, y, d, 1)
    _, pred_stump = DecisionStump().prepare(X, y)(d)
    assert edge(d, y, pred_tree) == pytest.approx(edge(d, y, pred_stump), abs=1e-11)


@SETTINGS
@given(samples())
def test_depth2_tree_at_least_stump(data):
    X, y, d = data
    _, pred_tree = tree_fit(X, y, d, 2)
    _, pred_stump = DecisionStump().prepare(X, y)(d)
    assert edge(d, y, pred_tree) >= edge(d, y, pred_stump) - 1e-11


@SETTINGS
@given(samples_continuous_d(), st.integers(1, 3))
def test_tree_equals_naive_greedy_reference(data, max_depth):
    X, y, d = data
    _, pred = tree_fit(X, y, d, max_depth)
    ref = reference_greedy_tree(X, y, d, max_depth)
    np.testing.assert_array_equal(pred, ref)


def test_tree_reference_larger_samples():
    rng = np.random.default_rng(1)
    for trial in range(12):
        m, p = 60, 4
        if trial % 2:
            X = rng.integers(0, 5, size=(m, p)).astype(float)
        else:
            X = rng.normal(size=(m, p))
        y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=m) > 0, 1.0, -1.0)
        d = rng.dirichlet(np.ones(m))
        for max_depth in (2, 3):
            _, pred = tree_fit(X, y, d, max_depth)
            np.testing.assert_array_equal(pred, reference_greedy_tree(X, y, d, max_depth))


def test_tree_on_xor():
    X = np.array([[0.0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([-1.0, 1, 1, -1])
    # Balanced XOR: no root split raises |S| (0.2 -> 0.1 + 0.1), but splitting anyway lets
    # the second level fit each side: the depth-2 tree classifies all four.
    d = np.array([0.3, 0.2, 0.2, 0.3])
    h, pred = tree_fit(X, y, d, 2)
    np.testing.assert_array_equal(pred, y)
    assert h.node_count == 7
    # depth 1 has no second level to pay off: a no-gain split is not made
    h, _ = tree_fit(X, y, d, 1)
    assert h.node_count == 1 and h.value[0] == -1.0
    # Unbalanced: x0 raises |S| from 0.2 to 0.4, then x1 fits each side; no stump gets there.
    d = np.array([0.4, 0.1, 0.3, 0.2])
    h, pred = tree_fit(X, y, d, 2)
    np.testing.assert_array_equal(pred, y)
    assert h.node_count == 7 and h.feature[0] == 0
    assert brute_force_stump_edge(X, y, d) < 1.0 - 0.1
    # Unseen rows, a different count of them.
    np.testing.assert_array_equal(h.predict(np.array([[0.1, 0.9], [0.9, 0.9], [-5, -5]])), [1, -1, -1])
    with pytest.raises(ValueError):
        h.predict(np.zeros((2, 3)))


def test_tree_adjacent_doubles_and_tie_breaking():
    a = np.nextafter(1.0, 2.0)
    b = np.nextafter(a, 2.0)
    # Unbalanced XOR again, feature 0 taking two adjacent doubles and duplicated as feature 2:
    # the root cut must separate a from b, and go to the first of the two equal features.
    X = np.array([[a, 0.0, a], [a, 1.0, a], [b, 0.0, b], [b, 1.0, b]])
    y = np.array([-1.0, 1, 1, -1])
    d = np.array([0.4, 0.1, 0.3, 0.2])
    h, pred = tree_fit(X, y, d, 2)
    np.testing.assert_array_equal(pred, y)
    assert h.feature[0] == 0
    # Cuts at 0.5, 1.5, 2.5 tie (the middle examples weigh nothing): the smallest wins.
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    h, _ = tree_fit(X, np.array([-1.0, 1, -1, 1]), np.array([0.5, 0.0, 0.0, 0.5]), 1)
    assert (h.feature[0], h.threshold[0]) == (0, 0.5)


def test_tree_pure_and_degenerate_nodes_are_leaves():
    # Pure: a single leaf, whatever the features.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 3))
    h, pred = tree_fit(X, np.ones(10), rng.dirichlet(np.ones(10)), 3)
    assert h.node_count == 1 and h.value[0] == 1.0
    # One distinct value in every feature.
    h, _ = tree_fit(np.zeros((4, 2)), np.array([1.0, -1, -1, 1]), np.full(4, 0.25), 2)
    assert h.node_count == 1 and h.value[0] == 1.0  # S = 0: +1
    # m = 1.
    h, pred = tree_fit(np.array([[1.0, 2.0]]), np.array([-1.0]), np.array([1.0]), 2)
    np.testing.assert_array_equal(pred, [-1.0])


def test_tree_rejects_bad_depth():
    with pytest.raises(ValueError, match="max_depth"):
        EdgeTree(0).prepare(np.zeros((2, 1)), np.array([1.0, -1.0]))


# ---------------------------------------------------------------- sklearn adapter


def test_sklearn_stump_on_weighted_separable_data_has_best_edge():
    # Gini and edge agree when a stump classifies every weighted example correctly.
    rng = np.random.default_rng(3)
    for _ in range(10):
        m = 40
        X = rng.normal(size=(m, 3))
        y = np.where(X[:, 2] > 0.2, 1.0, -1.0)
        d = rng.dirichlet(np.ones(m))
        h, pred = SklearnWeakLearner(DecisionTreeClassifier(max_depth=1)).prepare(X, y)(d)
        np.testing.assert_array_equal(pred, h.predict(X))
        assert pred.dtype == np.float64
        assert edge(d, y, pred) == pytest.approx(brute_force_stump_edge(X, y, d), abs=1e-12)
        assert edge(d, y, pred) == pytest.approx(1.0)


def test_sklearn_adapter_passes_the_distribution():
    # Data without ties where the weighting changes the answer: the unweighted majority is
    # +1 on both sides of the only useful cut, but d puts its mass on the two negatives.
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([-1.0, 1.0, 1.0, 1.0, 1.0, -1.0])
    d = np.array([0.4, 0.05, 0.05, 0.05, 0.05, 0.4])
    est = DecisionTreeClassifier(max_depth=1, random_state=0)
    h, pred = SklearnWeakLearner(est).prepare(X, y)(d)
    manual = est.fit(X, y, sample_weight=d * 6).predict(X)
    np.testing.assert_array_equal(pred, manual)
    assert edge(d, y, pred) == pytest.approx(brute_force_stump_edge(X, y, d), abs=1e-12)
    assert edge(d, y, pred) > edge(d, y, DecisionTreeClassifier(max_depth=1).fit(X, y).predict(X)) + 0.1


def test_sklearn_stump_never_beats_exact_stump():
    # A Gini stump is not an exact edge maximiser (it loses on a sizeable fraction of
    # random samples), but it can never exceed the best stump.
    rng = np.random.default_rng(4)
    for _ in range(30):
        m = int(rng.integers(5, 30))
        X = rng.normal(size=(m, 2))
        y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        d = rng.dirichlet(np.ones(m))
        _, pred = SklearnWeakLearner(DecisionTreeClassifier(max_depth=1, random_state=0)).prepare(X, y)(d)
        assert edge(d, y, pred) <= brute_force_stump_edge(X, y, d) + 1e-12


def test_sklearn_adapter_rejects_estimator_without_sample_weight():
    with pytest.raises(TypeError, match="sample_weight"):
        SklearnWeakLearner(KNeighborsClassifier()).prepare(np.zeros((2, 1)), np.array([1.0, -1.0]))


# ---------------------------------------------------------------- resolve_weak_learner


def test_resolve_weak_learner():
    assert isinstance(resolve_weak_learner("stump"), DecisionStump)
    tree = resolve_weak_learner("tree", max_depth=3)
    assert isinstance(tree, EdgeTree) and tree.max_depth == 3
    stump = DecisionStump()
    assert resolve_weak_learner(stump) is stump
    est = DecisionTreeClassifier(max_depth=1)
    wrapped = resolve_weak_learner(est)
    assert isinstance(wrapped, SklearnWeakLearner) and wrapped.estimator is est
    for bad in ("forest", None, 3, object()):
        with pytest.raises(ValueError, match="weak_learner"):
            resolve_weak_learner(bad)


def test_public_contract_types():
    oracle = EdgeTree(2).prepare(np.zeros((2, 1)), np.array([1.0, -1.0]))
    assert isinstance(oracle, EdgeOracle)
    h, _ = oracle(np.array([0.5, 0.5]))
    assert isinstance(h, Hypothesis)
    assert issubclass(SklearnWeakLearner, WeakLearner)


def test_data_larger_than_memory_is_refused_with_the_dask_path(monkeypatch):
    from marginboost.weak_learners import memory

    X = np.random.default_rng(0).normal(size=(100, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    monkeypatch.setattr(memory, "available_memory", lambda: 1000)  # bytes: far below 100 x 3 x 24
    for learner in (DecisionStump(), EdgeTree(max_depth=2)):
        with pytest.raises(MemoryError, match=r"presorting X of shape \(100, 3\).*dask_histogram"):
            learner.prepare(X, y)
    monkeypatch.setattr(memory, "available_memory", lambda: None)  # unknown: no check
    DecisionStump().prepare(X, y)


def test_node_stats_against_a_plain_loop():
    """Per node: the sum of w, of |w|, and whether some w > 0 and some w < 0, with zeros and -0
    among the weights (neither sign) and examples in no node (-1)."""
    from marginboost.weak_learners.trees import node_stats

    rng = np.random.default_rng(5)
    for _ in range(50):
        m, n_nodes = int(rng.integers(1, 60)), int(rng.integers(1, 5))
        w = rng.choice([-1.5, -0.0, 0.0, 0.25, 2.0], m) * rng.random(m).round(1)
        node_of = rng.integers(-1, n_nodes, m)
        total, mass, has_pos, has_neg = node_stats(w, node_of, n_nodes)
        for n in range(n_nodes):
            mine = w[node_of == n]
            expected_total = 0.0
            for x in mine:  # in example order
                expected_total += x
            assert total[n] == expected_total and mass[n] == sum(abs(x) for x in mine)
            assert has_pos[n] == any(x > 0.0 for x in mine) and has_neg[n] == any(x < 0.0 for x in mine)


def _interleaved_sweep(vals, order, w, node_of, node_total, node_mass, n_nodes):
    """The tree kernel before issue 17's per-node sweeps, in plain Python: one sweep per feature
    over all nodes of the level at once, each node's running sum in an array."""
    from reference import midpoint  # plain Python, as the sweep it transcribes
    from marginboost.weak_learners.trees import SPLIT_TOL

    p, m = vals.shape
    best_feature = np.full(n_nodes, -1)
    best_threshold = np.zeros(n_nodes)
    best_score = np.full(n_nodes, -1.0)
    for j in range(p):
        left, last, seen = np.zeros(n_nodes), np.zeros(n_nodes), np.zeros(n_nodes, dtype=bool)
        for k in range(m):
            i = order[j, k]
            n = node_of[i]
            if n < 0:
                continue
            v = vals[j, k]
            score = abs(left[n]) + abs(node_total[n] - left[n])
            if seen[n] and v != last[n] and score > best_score[n] + SPLIT_TOL * node_mass[n]:
                best_score[n], best_feature[n], best_threshold[n] = score, j, midpoint(last[n], v)
            left[n] += w[i]
            last[n] = v
            seen[n] = True
    return best_feature, best_threshold, best_score


@pytest.mark.parametrize("n_nodes", [1, 2, 3, 5])
def test_per_node_sweeps_equal_the_interleaved_sweep_bit_for_bit(n_nodes):
    """_best_splits (each node swept alone, the order split by node: two lists for two nodes, a
    counting sort for more) against the sweep it replaced: the same features, thresholds and scores
    bit for bit, with examples in no node (-1), ties of values, and sums that cancel."""
    from marginboost.weak_learners.trees import _best_splits, node_stats

    rng = np.random.default_rng(n_nodes)
    for trial in range(20):
        vals, order, node_of = random_tree_level(rng, n_nodes, trial)
        m = node_of.shape[0]
        w = rng.normal(size=m) if trial % 3 else rng.integers(-2, 3, size=m) / 4.0
        total, mass, _, _ = node_stats(w, node_of, n_nodes)
        got = _best_splits(vals, order, w, node_of, total, mass, n_nodes)
        want = _interleaved_sweep(vals, order, w, node_of, total, mass, n_nodes)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_nodes", [1, 2, 3])
def test_paired_feature_sweeps_equal_the_interleaved_sweep_where_the_tolerance_matters(n_nodes):
    """_best_splits sweeps two features in one loop, both from the node's best so far, and the second
    again where the first moved the best; a cut within SPLIT_TOL * mass of the best is taken or not
    depending on the best it meets. With the node masses scaled up, so that such cuts are common, the
    choices must still be those of the one-feature-at-a-time sweep."""
    from marginboost.weak_learners.trees import _best_splits, node_stats

    rng = np.random.default_rng(20 + n_nodes)
    for trial in range(150):
        vals, order, node_of = random_tree_level(rng, n_nodes, trial)
        m = node_of.shape[0]
        w = rng.normal(size=m) if trial % 3 == 0 else rng.integers(-3, 4, size=m) / 4.0
        total, mass, _, _ = node_stats(w, node_of, n_nodes)
        mass = mass * 10.0 ** rng.uniform(8.0, 12.0, size=n_nodes)
        got = _best_splits(vals, order, w, node_of, total, mass, n_nodes)
        want = _interleaved_sweep(vals, order, w, node_of, total, mass, n_nodes)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_stump_kernel_equals_the_loop_it_replaced_bit_for_bit():
    """_best_stump (the test before the sum's update) against the loop before issue 17, which
    added w first and tested the fresh sum."""
    from marginboost.weak_learners.stumps import _best_stump, presort
    from reference import midpoint  # plain Python, as the loop it transcribes

    rng = np.random.default_rng(7)
    for trial in range(40):
        m, p = int(rng.integers(1, 150)), int(rng.integers(1, 5))
        X = rng.integers(0, 6, size=(m, p)).astype(float) if trial % 2 else rng.normal(size=(m, p))
        _, vals, order = presort(X)
        w = rng.normal(size=m) if trial % 3 else rng.integers(-2, 3, size=m) / 4.0
        total = 0.0
        for x in w:
            total += x
        best = (0, -np.inf, 1.0 if total >= 0.0 else -1.0, abs(total))
        for j in range(p):
            left = 0.0
            for k in range(1, m):
                left += w[order[j, k - 1]]
                if vals[j, k] != vals[j, k - 1] and abs(total - 2.0 * left) > best[3]:
                    v = total - 2.0 * left
                    best = (j, midpoint(vals[j, k - 1], vals[j, k]), 1.0 if v >= 0.0 else -1.0, abs(v))
        assert _best_stump(vals, order, w) == best
