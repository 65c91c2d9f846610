"""Histogram weak learners against the exact learners and brute force.

The edge of h under d is sum_i d_i y_i h(x_i) (paper 000, section 2). When every feature has
at most max_bins distinct values the histogram learners must return the exact learners'
hypotheses; with more values, the best over the bin boundaries. Distributions with dyadic
entries (n_i / 2^k, summing to one) make every partial sum exact in float64, so hypotheses can
be compared for identity whatever order the sums are taken in.
"""
from __future__ import annotations

import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from marginboost.weak_learners import (
    DecisionStump,
    DecisionTree,
    EdgeTree,
    HistogramStump,
    HistogramTree,
    Stump,
    bin_features,
    bin_thresholds,
    resolve_weak_learner,
)
from marginboost.weak_learners.histogram import (
    HistogramStumpOracle,
    LocalSample,
    _BinTree,
    level_stats,
    stump_stats,
)

SETTINGS = settings(max_examples=100, deadline=None)


def edge(d, y, pred):
    return float(np.sum(d * y * pred))


# ---------------------------------------------------------------- data


@st.composite
def dyadic_d(draw, m):
    """A distribution n / 2^k with integer n >= 0 (zeros and repeats allowed)."""
    n = np.array(draw(st.lists(st.integers(0, 12), min_size=m, max_size=m)), dtype=np.int64)
    n[draw(st.integers(0, m - 1))] += 1
    k = int(np.ceil(np.log2(n.sum())))
    n[draw(st.integers(0, m - 1))] += 2**k - n.sum()
    return n / 2.0**k


@st.composite
def samples(draw, max_m=30, max_p=4, distinct=None):
    """(X, y, d): integer columns (ties), float columns, constant and duplicated columns.

    ``distinct``: float columns take at most this many distinct values (None: any)."""
    m = draw(st.integers(1, max_m))
    p = draw(st.integers(1, max_p))
    cols = []
    for _ in range(p):
        kind = draw(st.sampled_from(["int", "float", "const", "dup"]))
        if kind == "dup" and cols:
            cols.append(cols[draw(st.integers(0, len(cols) - 1))])
        elif kind == "int":
            cols.append(draw(st.lists(st.integers(-3, 3), min_size=m, max_size=m)))
        elif kind == "const":
            cols.append([draw(st.floats(-5, 5, allow_nan=False))] * m)
        else:
            values = st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)
            if distinct is not None:
                values = st.sampled_from(draw(st.lists(values, min_size=1, max_size=distinct)))
            cols.append(draw(st.lists(values, min_size=m, max_size=m)))
    X = np.array(cols, dtype=np.float64).T.reshape(m, p)
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=m, max_size=m)))
    return X, y, draw(dyadic_d(m))


def random_sample(seed, m=250, p=6):
    """Ties (small integer columns, a repeated-value column), a duplicate and a constant column."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.integers(0, 5, m), rng.standard_normal(m), rng.integers(0, 40, m) / 7.0,
        rng.choice(rng.standard_normal(30), m), np.full(m, 2.5), rng.standard_normal(m),
    ])[:, :p]
    X = np.column_stack([X, X[:, 1]])
    y = np.where(X[:, 0] + X[:, 1] + rng.standard_normal(m) > 2, 1.0, -1.0)
    return X, y, rng.dirichlet(np.full(m, 0.5))


def assert_same_tree(a: DecisionTree, b: DecisionTree, thresholds=True):
    for name in ("feature", "left", "right", "value") + (("threshold",) if thresholds else ()):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def fit(learner, X, y, d):
    h, pred = learner.prepare(X, y)(d)
    assert pred.dtype == np.float64 and pred.shape == (X.shape[0],)
    np.testing.assert_array_equal(h.predict(X), pred)  # (c) predict(X_raw) == training predictions
    return h, pred


# ---------------------------------------------------------------- binning


@SETTINGS
@given(samples(max_m=60), st.integers(2, 8))
def test_bins_are_consistent_with_raw_thresholds(data, max_bins):
    X, _, _ = data
    binned = bin_features(X, max_bins)
    bins = binned.bins
    for j in range(X.shape[1]):
        u = np.unique(X[:, j])
        nb = bins.n_bins[j]
        assert nb == min(len(u), max_bins)
        t = bins.thresholds[j, : nb - 1]
        assert np.all(np.isinf(bins.thresholds[j, nb - 1:]))
        np.testing.assert_array_equal(binned.codes[j], np.sum(X[:, j, None] > t[None, :], axis=1))
        assert np.all(bins.counts[j, :nb] > 0) and bins.counts[j].sum() == X.shape[0]
        assert np.all(bins.upper[j, : nb - 1] <= t) and np.all(t < bins.lower[j, 1:nb])
        if len(u) <= max_bins:  # one bin per distinct value
            np.testing.assert_array_equal(bins.lower[j, :nb], u)
            np.testing.assert_array_equal(bins.upper[j, :nb], u)


def test_quantile_bins_have_about_equal_counts():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.standard_normal(10_000), rng.integers(0, 1000, 10_000),
                         np.r_[np.zeros(5000), rng.standard_normal(5000)]])
    bins = bin_features(X, 16).bins
    np.testing.assert_array_equal(bins.n_bins, [16, 16, 16])
    assert bins.counts[0].min() >= 600 and bins.counts[0].max() <= 650  # 10000 / 16 = 625
    # A heavy value (5000 zeros amid 5000 normals) gets a bin of its own; the bins after it
    # share what is left equally: (10000 - 2500 - 5000) / 11 = 227.
    heavy = int(np.argmax(bins.counts[2]))
    assert bins.counts[2, heavy] == 5000 and bins.lower[2, heavy] == bins.upper[2, heavy] == 0.0
    assert 225 <= bins.counts[2, heavy + 1:].min() and bins.counts[2, heavy + 1:].max() <= 232


def test_given_thresholds_and_empty_bins():
    X = np.array([[0.0], [1.0], [5.0], [6.0]])
    binned = bin_features(X, thresholds=[[0.5, 2.0, 3.0, 5.5]])
    np.testing.assert_array_equal(binned.codes[0], [0, 1, 3, 4])
    np.testing.assert_array_equal(binned.bins.counts[0], [1, 1, 0, 1, 1])
    d = np.array([0.25, 0.25, 0.25, 0.25])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    # Bin 2 is empty: the cut between the non-empty bins 1 and 3 uses the training values 1 and 5.
    h, pred = HistogramStumpOracle(LocalSample(binned.codes, 1), binned.bins, y)(d)
    assert h == Stump(0, 3.0, 1.0, missing_left=True)  # two examples either side: NaN left, on the tie
    np.testing.assert_array_equal(pred, y)


# ---------------------------------------------------------------- (a) exact when bins are values


@SETTINGS
@given(samples())
def test_stump_equals_exact_stump(data):
    X, y, d = data
    h, pred = fit(HistogramStump(), X, y, d)
    h_exact, pred_exact = fit(DecisionStump(), X, y, d)
    assert h == h_exact
    np.testing.assert_array_equal(pred, pred_exact)


@SETTINGS
@given(samples(distinct=4), st.integers(1, 3))
def test_tree_equals_exact_tree(data, max_depth):
    X, y, d = data
    h, pred = fit(HistogramTree(max_depth, max_bins=7), X, y, d)
    h_exact, pred_exact = fit(EdgeTree(max_depth), X, y, d)
    assert_same_tree(h, h_exact)
    np.testing.assert_array_equal(pred, pred_exact)


def test_exact_with_continuous_d():
    """Sums in another order round differently: equal edges, hypotheses up to ties."""
    for seed in range(10):
        X, y, d = random_sample(seed)
        for hist, exact in ((HistogramStump(), DecisionStump()), (HistogramTree(2), EdgeTree(2)),
                            (HistogramTree(3), EdgeTree(3))):
            _, pred = fit(hist, X, y, d)
            _, pred_exact = fit(exact, X, y, d)
            assert edge(d, y, pred) == pytest.approx(edge(d, y, pred_exact), abs=1e-12)


def test_depth1_tree_has_stump_edge():
    for seed in range(5):
        X, y, d = random_sample(seed)
        _, pred_tree = fit(HistogramTree(1, max_bins=8), X, y, d)
        _, pred_stump = fit(HistogramStump(max_bins=8), X, y, d)
        assert edge(d, y, pred_tree) == pytest.approx(edge(d, y, pred_stump), abs=1e-12)


# ---------------------------------------------------------------- (b) more values than bins


def brute_force_bin_stump_edge(X, y, d, thresholds_per_feature):
    best = abs(float(np.sum(d * y)))  # the constants
    for j, ts in enumerate(thresholds_per_feature):
        for t in ts:
            best = max(best, abs(edge(d, y, np.where(X[:, j] > t, 1.0, -1.0))))
    return best


@SETTINGS
@given(samples(max_m=50), st.integers(2, 6))
def test_stump_is_best_over_bin_boundaries(data, max_bins):
    X, y, d = data
    bins = bin_features(X, max_bins).bins
    ts = [bins.thresholds[j, : bins.n_bins[j] - 1] for j in range(X.shape[1])]
    _, pred = fit(HistogramStump(max_bins), X, y, d)
    _, pred_exact = fit(DecisionStump(), X, y, d)
    assert edge(d, y, pred) == pytest.approx(brute_force_bin_stump_edge(X, y, d, ts), abs=1e-12)
    assert edge(d, y, pred) <= edge(d, y, pred_exact) + 1e-12


@SETTINGS
@given(samples(max_m=50), st.integers(2, 6), st.integers(1, 3))
def test_histogram_learners_are_exact_learners_on_the_codes(data, max_bins, max_depth):
    """On X they must act as the exact learners on the bin codes (one value per bin)."""
    X, y, d = data
    codes = bin_features(X, max_bins).codes.T.astype(np.float64)
    h, pred = fit(HistogramStump(max_bins), X, y, d)
    h_codes, pred_codes = fit(DecisionStump(), codes, y, d)
    assert (h.feature, h.sign, h.threshold == -np.inf) == (h_codes.feature, h_codes.sign, h_codes.threshold == -np.inf)
    np.testing.assert_array_equal(pred, pred_codes)
    t, pred = fit(HistogramTree(max_depth, max_bins), X, y, d)
    t_codes, pred_codes = fit(EdgeTree(max_depth), codes, y, d)
    assert_same_tree(t, t_codes, thresholds=False)
    np.testing.assert_array_equal(pred, pred_codes)


def test_large_sample_quantile_bins():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((5000, 5))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    d = rng.dirichlet(np.ones(5000))
    _, pred = fit(HistogramStump(), X, y, d)
    _, pred_exact = fit(DecisionStump(), X, y, d)
    assert edge(d, y, pred_exact) - 0.01 <= edge(d, y, pred) <= edge(d, y, pred_exact) + 1e-12
    _, pred_tree = fit(HistogramTree(2), X, y, d)
    assert edge(d, y, pred_tree) >= edge(d, y, pred) - 1e-12  # splitting never lowers the edge


# ---------------------------------------------------------------- (d) input dtypes, no float64 copy


@SETTINGS
@given(samples(max_m=60), st.integers(2, 8))
def test_fitted_bins_equal_the_binary_search_coding(data, max_bins):
    """bin_features codes from np.unique's inverse when it fits the thresholds itself; encode
    (binary search over given thresholds) must give the same codes, bounds and counts."""
    from marginboost.weak_learners.binning import bin_thresholds, encode, pad_thresholds, trim_bins

    X, _, _ = data
    for Xt in (X, X.astype(np.float32), np.round(X * 3).astype(np.int64)):
        binned = bin_features(Xt, max_bins)
        padded, n_bins = pad_thresholds(bin_thresholds(Xt, max_bins), Xt.shape[1], max_bins)
        codes, *per_bin = encode(Xt, padded, n_bins)
        bins = trim_bins(padded, *per_bin, n_bins)
        np.testing.assert_array_equal(binned.bins.thresholds, padded)
        np.testing.assert_array_equal(binned.bins.n_bins, n_bins)
        for got, want in ((binned.codes, codes), (binned.bins.lower, bins.lower), (binned.bins.upper, bins.upper),
                          (binned.bins.counts, bins.counts), (binned.bins.missing, bins.missing)):
            np.testing.assert_array_equal(got, want)


def _walk(codes, feature, cut, left, right):
    """The reference routing, in plain Python: each example walks from the root, code <= cut left."""
    leaf = np.empty(codes.shape[1], dtype=np.int64)
    for i in range(codes.shape[1]):
        k = 0
        while feature[k] >= 0:
            k = left[k] if codes[feature[k], i] <= cut[k] else right[k]
        leaf[i] = k
    return leaf


@pytest.mark.parametrize("seed", range(4))
def test_one_routing_pass_equals_the_leaf_walk_and_node_sums(seed):
    """level_stats routes and sums in one pass, its walks from the root or resumed at the level
    above; the separate kernels it replaced are the reference."""
    from marginboost.weak_learners.histogram import _route_and_sum
    from marginboost.weak_learners.trees import node_stats

    rng = np.random.default_rng(seed)
    m, p, width = 500, 4, 16
    codes = rng.integers(0, width, size=(p, m)).astype(np.uint8)
    w = rng.normal(size=m) * (rng.random(m) < 0.9)  # some zeros: neither sign
    # root split on feature 1 at bin 7; its left child split on feature 3 at bin 2; right child a leaf
    feature = np.array([1, 3, -1, -1, -1])
    cut = np.array([7, 2, 0, 0, 0])
    left = np.array([1, 3, -1, -1, -1])
    right = np.array([2, 4, -1, -1, -1])
    active_pos = np.array([-1, -1, 2, 0, 1])  # this level: nodes 3, 4 and the leaf 2
    expected_leaf = _walk(codes, feature, cut, left, right)
    node_of = active_pos[expected_leaf]
    # the level above: the root's split alone (nodes 1 and 2), as the walks resume from it
    one_level = (np.array([1, -1, -1]), cut[:3], np.array([1, -1, -1]), np.array([2, -1, -1]))
    above = _walk(codes, *one_level)
    assert set(above) == {1, 2}
    for start in (np.empty(0, dtype=np.int64), above, np.zeros(m, dtype=np.int64)):  # from the root, the level above
        for summed in _summed_choices(3, rng):
            leaf, *summed_rows, total, mass, has_pos, has_neg = _route_and_sum(
                codes, w, feature, cut, left, right, active_pos, np.full(5, -1), 3, width, start, summed)
            np.testing.assert_array_equal(leaf, expected_leaf)
            _check_summed_rows(summed_rows, summed, node_of, w, width)
            for got, want in zip((total, mass, has_pos, has_neg), node_stats(w, node_of, 3)):
                np.testing.assert_array_equal(got, want)


def _summed_choices(n_nodes, rng):
    """_route_and_sum's ``summed``: none (empty), every node, and a random subset (a first 0 each)."""
    every = np.append(0, np.ones(n_nodes, dtype=np.int64))
    some = np.append(0, rng.integers(0, 2, n_nodes))
    return np.empty(0, dtype=np.int64), every, some


def _check_summed_rows(summed_rows, summed, node_of, w, width):
    """The rows, offsets and w of the examples whose node is summed, in example order."""
    rows, offsets, w_rows = summed_rows
    want = np.flatnonzero(summed[node_of + 1] == 1) if summed.size else np.empty(0, dtype=np.int64)
    assert rows.dtype == offsets.dtype == np.uint64
    np.testing.assert_array_equal(rows, want)
    np.testing.assert_array_equal(offsets, node_of[want] * width)
    np.testing.assert_array_equal(w_rows, w[want])


@pytest.mark.parametrize("seed", range(6))
def test_routing_resumed_level_by_level_equals_the_walk_from_the_root_in_deep_and_ragged_trees(seed):
    """Trees grown as the oracle grows them (_BinTree), up to depth 7 with some nodes left unsplit:
    every level's nodes and sums, from the root and resumed at the level above, equal the
    per-example walk (_walk) and trees.node_stats, and so do the training predictions. Covers the
    select passes and the walk of _descend, and the sums in registers (<= 8 nodes; more go to
    trees.node_stats itself, as do levels whose nodes are not consecutive: the test above)."""
    from marginboost.weak_learners.histogram import _BinTree, _route_and_sum, tree_predictions
    from marginboost.weak_learners.trees import node_stats

    rng = np.random.default_rng(seed)
    m, p, width = 300, 5, 12
    codes = rng.integers(0, width, size=(p, m)).astype(np.uint8)
    w = rng.normal(size=m) * (rng.random(m) < 0.9)
    tree = _BinTree()
    previous = np.empty(0, dtype=np.int64)
    for depth in range(8):
        routing = tree.routing()
        feature, cut, left, right, active_pos, _ = routing
        n_nodes = len(tree.active)
        expected_leaf = _walk(codes, feature, cut, left, right)
        node_of = active_pos[expected_leaf]
        for start in (np.empty(0, dtype=np.int64), previous):
            for summed in _summed_choices(n_nodes, rng):
                leaf, *summed_rows, total, mass, has_pos, has_neg = _route_and_sum(codes, w, *routing, n_nodes, width,
                                                                                  start, summed)
                np.testing.assert_array_equal(leaf, expected_leaf)
                _check_summed_rows(summed_rows, summed, node_of, w, width)
                for got, want in zip((total, mass, has_pos, has_neg), node_stats(w, node_of, n_nodes)):
                    np.testing.assert_array_equal(got, want)
        value = rng.choice([-1.0, 1.0], size=len(feature))
        np.testing.assert_array_equal(tree_predictions(codes, routing, value), value[expected_leaf])
        previous = expected_leaf
        keep = rng.random(n_nodes) < (1.0 if depth < 3 else 0.8)
        tree.split(keep, rng.integers(0, p, n_nodes), rng.integers(0, width - 1, n_nodes), np.zeros(n_nodes),
                   np.zeros(n_nodes))
        if not tree.active:
            break
    assert depth >= 4


@pytest.mark.parametrize("p", [1, 2, 3, 5, 6, 7])  # fours, a pair and one left over, in every mix
def test_level_stats_with_a_reused_workspace_equal_fresh_arrays_and_the_direct_sums(p):
    """Buffers reused across calls come back zeroed (a stale bin would add the last call's sums), and
    the histograms of four (then two, then one) features a pass equal a plain per-feature sum in
    example order."""
    from marginboost.weak_learners.trees import node_stats

    rng = np.random.default_rng(p)
    m, width = 300, 8
    codes = rng.integers(0, width, size=(p, m)).astype(np.uint8)
    root = (np.array([-1]), np.array([0]), np.array([-1]), np.array([-1]), np.array([0]), np.array([-1]))
    split = (np.array([0, -1, -1]), np.array([3, 0, 0]), np.array([1, -1, -1]), np.array([2, -1, -1]),
             np.array([-1, 0, 1]), np.full(3, -1))
    workspace = {}
    for _ in range(3):
        w = rng.normal(size=m)
        for routing, n_nodes in ((root, 1), (split, 2)):
            fresh = level_stats(codes, w, routing, n_nodes, width, True)
            reused = level_stats(codes, w, routing, n_nodes, width, True, workspace=workspace)
            for a, b in zip(fresh[:5], reused[:5]):
                np.testing.assert_array_equal(a, b)
            node = np.zeros(m, dtype=np.int64) if n_nodes == 1 else (codes[0] > 3).astype(np.int64)
            for got, want in zip(reused[:4], node_stats(w, node, n_nodes)):
                np.testing.assert_array_equal(got, want)
            for j in range(p):
                for n in range(n_nodes):
                    want = np.zeros(width)
                    for i in np.flatnonzero(node == n):
                        want[codes[j, i]] += w[i]
                    np.testing.assert_array_equal(reused.hist[j, n], want)
                    if n_nodes > 1:
                        np.testing.assert_array_equal(reused.counts[j, n],
                                                      np.bincount(codes[j, node == n], minlength=width))
    assert set(workspace) == {"root", "hist0", "counts0"}


@pytest.mark.parametrize("p", [1, 2, 3, 5, 6, 7])
@pytest.mark.parametrize("threads", [1, 2])
def test_rows_hist_adds_each_bin_in_example_order_in_blocks_of_one_node_and_of_several(p, threads):
    """_rows_hist over blocks of 4096 examples of one node (the offset taken once), of two, and a
    part block: each (node, bin) sum, added into the histograms given, equals ``np.add.at``'s
    (in example order), and the counts likewise."""
    from marginboost.weak_learners._histogram import _rows_hist

    rng = np.random.default_rng(10 + p)
    m, width, n_nodes = 12_000, 8, 3
    codes = rng.integers(0, width, size=(p, m)).astype(np.uint8)
    rows = np.sort(rng.choice(m, size=9_500, replace=False)).astype(np.uint64)
    node = np.concatenate([np.full(4096, 2), rng.integers(0, n_nodes, 4096), np.zeros(9_500 - 8192, dtype=np.int64)])
    offsets = (node * width).astype(np.uint64)
    w_rows = rng.normal(size=rows.shape[0])
    hist = rng.normal(size=(p, n_nodes * width))
    count = rng.integers(0, 5, size=(p, n_nodes * width)).astype(np.int32)
    want_hist, want_count = hist.copy(), count.copy()
    for j in range(p):
        bins = (offsets + codes[j, rows]).astype(np.int64)
        np.add.at(want_hist[j], bins, w_rows)
        np.add.at(want_count[j], bins, 1)
    _rows_hist(codes, rows, w_rows, offsets, hist, count, threads)
    np.testing.assert_array_equal(hist, want_hist)
    np.testing.assert_array_equal(count, want_count)


def _grown_levels(sample, w, rng, p, width, depth_max, keep_rate):
    """Grow a ragged _BinTree through ``sample.level_stats`` as the oracle does (random splits,
    some nodes left unsplit below depth 2); the LevelStats of each level with histograms."""
    from marginboost.weak_learners.histogram import _BinTree

    tree, levels = _BinTree(), []
    for depth in range(depth_max):
        n_nodes = len(tree.active)
        levels.append(sample.level_stats(w, tree.routing(), n_nodes, width, True))
        keep = rng.random(n_nodes) < (1.0 if depth < 2 else keep_rate)
        tree.split(keep, rng.integers(0, p, n_nodes), rng.integers(0, width - 1, n_nodes), np.zeros(n_nodes),
                   np.zeros(n_nodes))
        if not tree.active:
            break
    return levels


@pytest.mark.parametrize("seed", range(6))
def test_histograms_by_subtraction_equal_the_direct_sums(seed):
    """LocalSample with the bins' counts sums only the smaller child of each split and subtracts it
    from the parent: the counts equal the direct ones exactly, the sums up to the rounding of the
    parent's (exactly for dyadic w, whose sums are exact), at every level of deep, ragged trees
    (levels of more than 8 nodes and levels whose nodes are not consecutive included), serial
    and on two threads."""
    from marginboost.weak_learners.histogram import LocalSample

    rng = np.random.default_rng(seed)
    m, p, width = 400, 3, 10
    codes = rng.integers(0, width, size=(p, m)).astype(np.uint8)
    codes[1, codes[1] == 4] = 5  # a bin empty everywhere
    counts = np.stack([np.bincount(codes[j], minlength=width) for j in range(p)])
    for dyadic, w in ((False, rng.normal(size=m) * (rng.random(m) < 0.9)), (True, rng.integers(-64, 64, size=m) / 128)):
        for threads in (1, 2):
            tree_seed = int(rng.integers(1 << 30))
            direct = _grown_levels(LocalSample(codes, threads), w, np.random.default_rng(tree_seed), p, width, 7,
                                   0.8)
            subtracted = _grown_levels(LocalSample(codes, threads, counts), w, np.random.default_rng(tree_seed), p,
                                       width, 7, 0.8)
            assert len(direct) == len(subtracted) >= 4
            assert max(level.hist.shape[1] for level in direct) > 8
            for a, b in zip(direct, subtracted):
                for got, want in zip(b[:4], a[:4]):
                    np.testing.assert_array_equal(got, want)
                if a.counts is not None:
                    np.testing.assert_array_equal(b.counts, a.counts)
                tolerance = 64 * np.finfo(float).eps * np.abs(w).sum()
                np.testing.assert_allclose(b.hist, a.hist, rtol=0, atol=tolerance)
                if dyadic:  # exact sums
                    np.testing.assert_array_equal(b.hist, a.hist)


def test_float32_is_not_copied_to_float64():
    rng = np.random.default_rng(4)
    m, p = 20_000, 50
    X32 = rng.standard_normal((m, p)).astype(np.float32)
    y = np.where(X32[:, 0] > 0, 1.0, -1.0)
    d = np.full(m, 1.0 / m)
    for learner in (HistogramStump(), HistogramTree(2)):
        learner.prepare(X32[:50], y[:50])  # compile outside the measurement
        tracemalloc.start()
        oracle = learner.prepare(X32, y)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        # The codes take m p bytes and the binning one column's sort at a time (order, sorted
        # column, distinct values and counts: under 100 bytes a row); a float64 copy of X alone
        # would take 8 m p.
        assert peak < m * p + 100 * m < 0.4 * 8 * m * p, peak
        h, pred = oracle(d)
        h64, pred64 = learner.prepare(X32.astype(np.float64), y)(d)
        np.testing.assert_array_equal(pred, pred64)
        np.testing.assert_array_equal(h.predict(X32), pred)
    np.testing.assert_array_equal(bin_features(X32).codes, bin_features(X32.astype(np.float64)).codes)


def test_integer_and_bool_input():
    rng = np.random.default_rng(5)
    X = rng.integers(-50, 50, size=(300, 4))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0)
    d = rng.dirichlet(np.ones(300))
    for learner in (HistogramStump(max_bins=16), HistogramTree(2, max_bins=16)):
        h, pred = fit(learner, X, y, d)
        h64, pred64 = fit(learner, X.astype(np.float64), y, d)
        np.testing.assert_array_equal(pred, pred64)
    h, _ = fit(HistogramStump(), X > 0, y, d)
    assert h == DecisionStump().prepare((X > 0).astype(float), y)(d)[0]


# ---------------------------------------------------------------- (e) parallel == serial


@pytest.mark.parametrize("seed", range(4))
def test_parallel_equals_serial(seed):
    X, y, d = random_sample(seed, m=3000, p=6)
    serial, parallel = bin_features(X, 32), bin_features(X, 32, n_jobs=2)
    np.testing.assert_array_equal(serial.codes, parallel.codes)
    for name in ("thresholds", "lower", "upper", "counts", "n_bins"):
        np.testing.assert_array_equal(getattr(serial.bins, name), getattr(parallel.bins, name))
    w = d * y
    s1, s2 = stump_stats(serial.codes, w, 32, 1), stump_stats(serial.codes, w, 32, 2)
    assert s1.total == s2.total and np.array_equal(s1.hist, s2.hist)
    tree = _BinTree()
    tree.split([True], [1], [3], [0.0], [0.0])
    l1 = level_stats(serial.codes, w, tree.routing(), 2, 32, True, 1)
    l2 = level_stats(serial.codes, w, tree.routing(), 2, 32, True, 2)
    for a, b in zip(l1, l2):
        np.testing.assert_array_equal(a, b)
    for make in (lambda n: HistogramStump(32, n_jobs=n), lambda n: HistogramTree(3, 32, n_jobs=n),
                 lambda n: HistogramTree(2, n_jobs=n)):
        h1, p1 = fit(make(None), X, y, d)
        h2, p2 = fit(make(-1), X, y, d)
        np.testing.assert_array_equal(p1, p2)
        if isinstance(h1, Stump):
            assert h1 == h2
        else:
            assert_same_tree(h1, h2)


# ---------------------------------------------------------------- (f) errors and registration


@pytest.mark.parametrize("max_bins", [1, 256, 2.5, True, "8", None])
def test_bad_max_bins(max_bins):
    X, y = np.zeros((2, 1)), np.array([1.0, -1.0])
    for learner in (HistogramStump(max_bins=max_bins), HistogramTree(max_bins=max_bins)):
        with pytest.raises(ValueError, match=r"max_bins must be an integer in \[2, 255\]"):
            learner.prepare(X, y)
    with pytest.raises(ValueError, match="max_bins"):
        bin_features(X, max_bins)


@pytest.mark.parametrize("n_jobs", [0, -2, 1.5, True, "2"])
def test_bad_n_jobs(n_jobs):
    with pytest.raises(ValueError, match="n_jobs must be None, -1 or a positive integer"):
        HistogramStump(n_jobs=n_jobs).prepare(np.zeros((2, 1)), np.array([1.0, -1.0]))


@pytest.mark.parametrize("max_depth", [0, 1.5, True, "2", None])
def test_bad_max_depth(max_depth):
    with pytest.raises(ValueError, match="max_depth must be an integer >= 1"):
        HistogramTree(max_depth=max_depth).prepare(np.zeros((2, 1)), np.array([1.0, -1.0]))


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_infinite_X(bad):
    """Infinities are refused (NaN is a missing value: tests/test_missing_values.py)."""
    X = np.array([[0.0, 1.0], [1.0, bad], [2.0, np.nan]])
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="X must not contain infinity: feature 1"):
        HistogramStump().prepare(X, y)
    with pytest.raises(ValueError, match="X must not contain infinity: feature 1"):
        bin_features(X, thresholds=[[0.5], [2.0]])


def test_bad_shapes_and_thresholds():
    y = np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="2-dimensional"):
        HistogramStump().prepare(np.zeros(2), y)
    with pytest.raises(ValueError, match="at least one row"):
        bin_features(np.zeros((0, 2)))
    with pytest.raises(ValueError, match=r"y must have shape \(2,\)"):
        HistogramTree().prepare(np.zeros((2, 1)), np.ones(3))
    with pytest.raises(ValueError, match="one array per feature"):
        bin_features(np.zeros((2, 2)), thresholds=[[0.5]])
    with pytest.raises(ValueError, match="strictly increasing"):
        bin_features(np.zeros((2, 1)), thresholds=[[1.0, 0.5]])
    with pytest.raises(ValueError, match="at most max_bins - 1 = 2"):
        bin_features(np.zeros((2, 1)), 3, thresholds=[[0.1, 0.2, 0.3]])


def test_constant_and_empty_features():
    y = np.array([1.0, -1.0, 1.0])
    d = np.array([0.25, 0.25, 0.5])
    for X in (np.ones((3, 2)), np.zeros((3, 0))):
        for learner in (HistogramStump(), HistogramTree(2)):
            h, pred = learner.prepare(X, y)(d)
            np.testing.assert_array_equal(pred, [1.0, 1.0, 1.0])
            np.testing.assert_array_equal(h.predict(X), pred)


def test_thresholds_fitted_on_a_sample():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((2000, 3))
    ts = bin_thresholds(X[:200], 16)
    binned = bin_features(X, 16, thresholds=ts)
    for j in range(3):
        np.testing.assert_array_equal(binned.thresholds[j, : len(ts[j])], ts[j])
    assert binned.bins.counts.sum() == 2000 * 3


def test_resolve_and_repr():
    assert isinstance(resolve_weak_learner("hist_stump"), HistogramStump)
    tree = resolve_weak_learner("hist_tree", max_depth=3)
    assert isinstance(tree, HistogramTree) and tree.max_depth == 3
    assert repr(HistogramTree(2, 64, n_jobs=2)) == "HistogramTree(max_depth=2, max_bins=64, n_jobs=2)"
    assert repr(HistogramStump()) == "HistogramStump(max_bins=255, n_jobs=None)"


def test_package_imports_without_dask():
    """Dask is an optional extra: the package and its learners import without it."""
    code = ("import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None\n"
            "import marginboost, marginboost.weak_learners\n"
            "from marginboost.weak_learners import HistogramTree, resolve_weak_learner\n"
            "assert 'dask' not in [m.split('.')[0] for m in sys.modules if sys.modules[m] is not None]\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_subtraction_sums_the_child_with_fewer_examples_the_left_one_on_a_tie():
    from marginboost.weak_learners.histogram import _BinTree, _sibling_plan

    width = 6
    parent_counts = np.array([[3, 1, 0, 2, 4, 0],  # feature 0: 4 examples up to bin 1, 6 above
                              [5, 0, 0, 0, 0, 5]])  # feature 1: 5 and 5
    for feature, cut, small_side in ((0, 1, "left"), (0, 3, "right"), (1, 0, "left"), (1, 4, "left")):
        tree = _BinTree()
        tree.split([True], [feature], [cut], [0.0], [0.0])
        routing = tree.routing()
        plan, summed = _sibling_plan(*routing, np.array([0]), parent_counts, width)
        left, right = routing[4][routing[2][0]], routing[4][routing[3][0]]
        small, large = (left, right) if small_side == "left" else (right, left)
        np.testing.assert_array_equal(plan, [[0, small, large]])
        np.testing.assert_array_equal(summed, np.eye(3, dtype=np.int64)[small + 1])


def test_threadpool_limits_cap_the_openmp_threads():
    """n_jobs counts OpenMP's threads as scikit-learn does: a threadpoolctl limit (here entered after
    the learner was prepared) caps them, and the tree is the same whatever the count."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from marginboost.weak_learners._histogram import effective_threads
    from marginboost.weak_learners.binning import max_threads, n_threads

    if max_threads() == 1:
        pytest.skip("a build without OpenMP (or one CPU): nothing to limit")
    assert any(pool["user_api"] == "openmp" for pool in threadpool_info())
    X, y, d = random_sample(3, m=400, p=6)
    oracle = HistogramTree(2, n_jobs=-1).prepare(X, y)
    h_all, _ = oracle(d)
    assert n_threads(-1) == max_threads() >= 2 and effective_threads(2) == 2
    with threadpool_limits(1, user_api="openmp"):
        assert n_threads(-1) == n_threads(2) == effective_threads(2) == max_threads() == 1
        h_one, _ = oracle(d)
    assert n_threads(-1) == max_threads()
    assert_same_tree(h_all, h_one)
