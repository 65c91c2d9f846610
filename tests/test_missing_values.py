"""Missing values (NaN) in every tree and stump learner (issue 32, item 1).

Each split chooses the side the missing values go to. For the edge learners the criterion is the
edge ``|sum_i d_i y_i h(x_i)|`` (a stump) or ``|S(L)| + |S(R)|`` (a tree node, S the sum of
``d_i y_i``), the side of the missing values chosen by it only where their sum M passes the z-test
``(M - n_M S / n)^2 > z^2 n_M Q / n`` (``.missing_side``; n_M the node's missing examples, n all of
them, S and Q their sums of ``d_i y_i`` and ``(d_i y_i)^2``), else the side where the cut sends the
column's mean; for the least-squares learners
``S(L)^2 / W(L) + S(R)^2 / W(R)`` (S the sum of ``s_i r_i``, W of ``s_i``), the side by it always.
The brute force below enumerates, per feature, every cut of the finite values (at each distinct
value v: ``x <= v`` left) with the missing values on each side the rule allows, and the finite
values against the missing ones; the learners' best must equal its best: the stumps' against all of
these, the trees' node by node (each node's split is its best over the examples that reach it, the
greedy rule). The tiny samples have at most 4 distinct values per feature, so the histogram
learners' bins are the distinct values and they too are exact. Each edge test runs at z = 0 (the
side of larger edge, LightGBM's and HistGradientBoosting's rule) and at the default z = 3, with
weights far from uniform so that both branches of the test occur.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import is_classifier, is_regressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import get_tags

import marginboost
from marginboost import GBMRegressor, MLPBoostClassifier, load_model
from marginboost.estimators.input_data import AllMissingColumnWarning
from marginboost.weak_learners import (
    DecisionStump,
    DecisionTree,
    EdgeTree,
    GaussianNaiveBayes,
    HistogramStump,
    HistogramTree,
    LeastSquaresStump,
    LeastSquaresTree,
    Stump,
    bin_features,
    bin_thresholds,
)
from marginboost.weak_learners.ensemble_outputs import output_matrix
from marginboost.weak_learners.missing_side import MISSING_Z
from marginboost.weak_learners.stumps import midpoint
from marginboost.weak_learners.regression import RegressionStump

DATA = Path(__file__).parent / "data"


# ----------------------------------------------------------------------------- brute force


def cuts(column: np.ndarray, rows: np.ndarray, w=None, z: float = 0.0):
    """Left masks over ``rows`` of every split of one feature: each cut of the finite values
    (``x <= v`` left, v a distinct value) with the missing values left or right (with ``w`` and
    ``z`` > 0: on the side where the cut sends the column's mean unless (M - n_M S / n)^2 > z^2 n_M Q /
    n), and the finite values against the missing ones where that test passes or the mean exceeds
    every finite value (a cut of the mean-imputed values); both sides non-empty."""
    x = column[rows]
    nan = np.isnan(x)
    finite = x[~nan]
    by_edge = True
    if z > 0 and nan.any():
        ws, n_missing = w[rows], nan.sum()
        departure = ws[nan].sum() - n_missing * ws.sum() / rows.size
        by_edge = departure**2 > z * z * n_missing * (ws @ ws) / rows.size
    mean = np.nanmean(column) if (~np.isnan(column)).any() else np.nan  # mean imputation's value
    values = np.unique(finite)
    for v, after in zip(values, list(values[1:]) + [None]):
        threshold = v if after is None else midpoint(v, after)  # the cut's, as the learners set it
        for missing_left in (False, True) if by_edge else (bool(mean <= threshold),):
            left = (x <= v) | (nan & missing_left)
            if left.any() and not left.all():
                yield left
    if nan.any() and finite.size and (by_edge or mean > finite.max()):
        yield ~nan


def all_cuts(X, rows, w=None, z: float = 0.0):
    for j in range(X.shape[1]):
        yield from cuts(X[:, j], rows, w, z)


def best_stump_edge(X, y, d, z: float = 0.0) -> float:
    """max over the constants and every split of ``|sum_i d_i y_i h(x_i)|``."""
    w = d * y
    rows = np.arange(X.shape[0])
    return max([abs(w.sum())] + [abs(w[~left].sum() - w[left].sum()) for left in all_cuts(X, rows, w, z)])


def node_rows(tree: DecisionTree, X) -> dict:
    """The training rows reaching each node, routed as the tree says (NaN by ``missing_left``)."""
    rows = {0: np.arange(X.shape[0])}
    for k in range(tree.node_count):
        if tree.feature[k] < 0:
            continue
        x = X[rows[k], tree.feature[k]]
        left = (x <= tree.threshold[k]) | (np.isnan(x) & tree.missing_left[k])
        rows[tree.left[k]], rows[tree.right[k]] = rows[k][left], rows[k][~left]
    return rows


def assert_greedy_best(tree: DecisionTree, X, score, tol: float, w=None, z: float = 0.0) -> int:
    """Every internal node's split scores the best of all splits of its rows (those the rule of
    ``z`` allows, :func:`cuts`); returns the number of internal nodes checked."""
    rows = node_rows(tree, X)
    checked = 0
    for k in np.flatnonzero(tree.feature >= 0):
        best = max(score(rows[k][left], rows[k][~left]) for left in all_cuts(X, rows[k], w, z))
        got = score(rows[tree.left[k]], rows[tree.right[k]])
        assert abs(got - best) <= tol * max(1.0, abs(best)), (k, got, best)
        checked += 1
    return checked


def tiny(rng, missing=0.3):
    """A few rows, 1-3 features of at most 4 distinct values, NaN at the rate ``missing`` (so some
    features, and some nodes, miss everything or nothing)."""
    m, p = int(rng.integers(3, 15)), int(rng.integers(1, 4))
    X = rng.integers(0, 4, size=(m, p)).astype(np.float64)
    X[rng.random((m, p)) < missing] = np.nan
    y = rng.choice([-1.0, 1.0], m)
    d = rng.random(m) ** 4  # far from uniform: the missing values' test passes and fails
    return X, y, d / d.sum()


def edge_score(w):
    return lambda a, b: abs(w[a].sum()) + abs(w[b].sum())


def least_squares_score(r, s):
    return lambda a, b: (s[a] @ r[a]) ** 2 / s[a].sum() + (s[b] @ r[b]) ** 2 / s[b].sum()


# ----------------------------------------------------------------------------- the learners against it


Z = [0.0, MISSING_Z]


@pytest.mark.parametrize("z", Z)
@pytest.mark.parametrize("learner", [DecisionStump, HistogramStump, lambda missing_z: EdgeTree(1, missing_z),
                                     lambda missing_z: HistogramTree(1, missing_z=missing_z)],
                         ids=["DecisionStump", "HistogramStump", "EdgeTree1", "HistogramTree1"])
def test_stumps_reach_the_brute_force_edge(learner, z):
    rng = np.random.default_rng(0)
    gated = 0
    for _ in range(150):
        X, y, d = tiny(rng)
        h, out = learner(missing_z=z).prepare(X, y)(d)
        np.testing.assert_array_equal(out, h.predict(X))  # the training outputs route NaN as predict does
        assert d @ (y * out) == pytest.approx(best_stump_edge(X, y, d, z), rel=0, abs=1e-12)
        gated += best_stump_edge(X, y, d, z) < best_stump_edge(X, y, d)
    assert (gated > 5) == (z > 0)  # the test decides the best stump in some samples


@pytest.mark.parametrize("z", Z)
@pytest.mark.parametrize("max_depth, histogram", [(2, False), (2, True), (4, True)])
def test_edge_trees_split_every_node_at_its_brute_force_best(max_depth, histogram, z):
    learner = HistogramTree(max_depth, missing_z=z) if histogram else EdgeTree(max_depth, missing_z=z)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(150):
        X, y, d = tiny(rng)
        h, out = learner.prepare(X, y)(d)
        np.testing.assert_array_equal(out, h.predict(X))
        checked += assert_greedy_best(h, X, edge_score(d * y), 1e-12, d * y, z)
    assert checked > 200


def test_least_squares_learners_reach_the_brute_force_criterion():
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(150):
        X, _, _ = tiny(rng)
        r, s = rng.normal(size=X.shape[0]), rng.random(X.shape[0]) + 0.1
        score = least_squares_score(r, s)
        tree, out = LeastSquaresTree(2).prepare(X)(r, s)
        np.testing.assert_array_equal(out, tree.predict(X))
        checked += assert_greedy_best(tree, X, score, 1e-9)
        stump, out = LeastSquaresStump().prepare(X)(r, s)
        np.testing.assert_array_equal(out, stump.predict(X))
        rows = np.arange(X.shape[0])
        best = max((score(rows[left], rows[~left]) for left in all_cuts(X, rows)), default=-np.inf)
        if stump.threshold == -np.inf:  # no cut beats the constant (or there is none)
            assert best <= (s @ r) ** 2 / s.sum() * (1 + 1e-9) + 1e-12
        else:
            x = X[:, stump.feature]
            left = (x <= stump.threshold) | (np.isnan(x) & stump.missing_left)
            assert score(rows[left], rows[~left]) == pytest.approx(best, rel=1e-9)
    assert checked > 150


@pytest.mark.parametrize("kind", ["stump", "tree"])
def test_dask_histogram_learners_reach_the_brute_force_best(kind):
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    from marginboost.weak_learners.dask_histogram import DaskHistogramStump, DaskHistogramTree

    rng = np.random.default_rng(3)
    with dask.config.set(scheduler="synchronous"):
        for _ in range(40):
            X, y, d = tiny(rng)
            X = np.vstack([X, X])  # two partitions at least
            y, d = np.concatenate([y, y]), np.concatenate([d, d]) / 2
            dX = da.from_array(X, chunks=(max(1, X.shape[0] // 3), -1))
            if kind == "stump":
                h, out = DaskHistogramStump().prepare(dX, y)(d)
                assert d @ (y * out) == pytest.approx(best_stump_edge(X, y, d, MISSING_Z), rel=0, abs=1e-12)
            else:
                h, out = DaskHistogramTree(2).prepare(dX, y)(d)
                assert_greedy_best(h, X, edge_score(d * y), 1e-12, d * y, MISSING_Z)
            np.testing.assert_array_equal(out, h.predict(X))


def test_dask_histogram_learners_equal_the_in_memory_ones_with_missing_values():
    """With dyadic d every sum is exact: the partitioned histograms give the in-memory hypotheses,
    sides of the missing values included, and the same bins (missing bins too)."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    from marginboost.weak_learners.dask_histogram import DaskHistogramStump, DaskHistogramTree, distributed_sample
    from test_dask_histogram import assert_same  # the same comparison as the Dask learners' own tests

    rng = np.random.default_rng(4)
    m = 600
    X = np.column_stack([np.round(rng.normal(size=(m, 3)), 1), rng.integers(0, 3, m), np.full(m, np.nan)])
    X[:, :3][rng.random((m, 3)) < 0.2] = np.nan
    y = np.where(np.nan_to_num(X[:, 0]) + 0.5 * np.isnan(X[:, 1]) > 0.1, 1.0, -1.0)
    n = rng.integers(0, 16, m)
    n[0] += 2**20 - n.sum()
    d = n / 2.0**20  # dyadic: every partial sum exact
    dX = da.from_array(X, chunks=(150, -1))
    with dask.config.set(scheduler="synchronous"):
        _, bins = distributed_sample(dX, 255)
        local = bin_features(X, 255).bins
        for name in ("thresholds", "lower", "upper", "counts", "n_bins", "missing"):
            np.testing.assert_array_equal(getattr(bins, name), getattr(local, name), err_msg=name)
        assert list(bins.missing) == [True, True, True, False, True]
        for dist, mem in ((DaskHistogramStump(), HistogramStump()), (DaskHistogramTree(3), HistogramTree(3))):
            assert_same(*dist.prepare(dX, y)(d), *mem.prepare(X, y)(d))


# ----------------------------------------------------------------------------- the side of the missing values


def test_missing_values_go_to_the_side_of_larger_edge():
    """x0 splits the finite values perfectly (negatives at 0, positives at 1); the missing examples
    are positive, so they must join the right side (x > 0.5), then negative: the left side."""
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [np.nan], [np.nan]])
    for labels, side in (([-1, -1, -1, 1, 1, 1, 1], False), ([-1, -1, 1, 1, 1, -1, -1], True)):
        y = np.array(labels, dtype=np.float64)
        d = np.full(7, 1 / 7)
        for learner in (DecisionStump(0.0), HistogramStump(missing_z=0.0), EdgeTree(1, 0.0),
                        HistogramTree(1, missing_z=0.0)):
            h, out = learner.prepare(X, y)(d)
            missing_left = h.missing_left if isinstance(h, Stump) else h.missing_left[0]
            assert missing_left == side, learner
            assert d @ (y * out) == pytest.approx(best_stump_edge(X, y, d))


@pytest.mark.parametrize("n_missing, side", [(20, False), (2, True)])
def test_missing_values_of_insignificant_sum_go_to_the_side_of_the_mean(n_missing, side):
    """A hundred negatives at 0, a hundred positives at 1, and ``n_missing`` positives missing, d
    uniform (1/m): the missing sum departs from its share of the total by D = 200 n_M / m^2, and the
    z-test D^2 > z^2 n_M Q / m (Q = 1 / m, z = 3) passes for 40000 n_M > 9 m^2: twenty missing
    positives join the positives (the side of larger edge); two fail the test and join the side of
    the mean 0.5 (the cut's threshold), the left, though the right has the larger edge."""
    assert MISSING_Z == 3.0
    X = np.array([[0.0]] * 100 + [[1.0]] * 100 + [[np.nan]] * n_missing)
    y = np.array([-1.0] * 100 + [1.0] * (100 + n_missing))
    d = np.full(y.shape[0], 1 / y.shape[0])
    for learner in (DecisionStump(), HistogramStump(), EdgeTree(1), HistogramTree(1)):
        h, out = learner.prepare(X, y)(d)
        missing_left = h.missing_left if isinstance(h, Stump) else h.missing_left[0]
        assert missing_left == side, learner
        assert d @ (y * out) == pytest.approx(best_stump_edge(X, y, d, MISSING_Z))
        if side:
            assert d @ (y * out) < best_stump_edge(X, y, d)  # below the larger-edge rule's


@pytest.mark.parametrize("learner", [DecisionStump(), HistogramStump(), EdgeTree(1), HistogramTree(1)], ids=repr)
def test_a_feature_never_missing_sends_nan_to_the_child_with_more_training_examples(learner):
    """No training example misses x0: NaN goes to the side of more examples (scikit-learn's
    HistGradientBoosting rule), whatever their weight under d (the left side here has 3 of 10
    examples but almost all the weight)."""
    X = np.arange(10.0)[:, None]
    for n_left, more_left in ((3, False), (7, True)):
        y = np.r_[np.ones(n_left), -np.ones(10 - n_left)]
        d = np.where(np.arange(10) < n_left, 0.9 / n_left, 0.1 / (10 - n_left))  # the weight on the left
        if more_left:
            d = d[::-1].copy()  # ... on the right, the smaller side
        h, _ = learner.prepare(X, y)(d / d.sum())
        missing_left = h.missing_left if isinstance(h, Stump) else h.missing_left[0]
        threshold = h.threshold if isinstance(h, Stump) else h.threshold[0]
        assert threshold == n_left - 0.5
        assert missing_left == more_left
        heavier_side = np.array([[0.0 if more_left else 9.0]])
        np.testing.assert_array_equal(h.predict(np.array([[np.nan]])), h.predict(heavier_side))


def test_a_regression_feature_never_missing_sends_nan_to_the_child_with_more_training_examples():
    X = np.arange(10.0)[:, None]
    r = np.r_[np.full(3, 5.0), np.zeros(7)]
    s = np.r_[np.full(3, 100.0), np.ones(7)]
    stump, _ = LeastSquaresStump().prepare(X)(r, s)
    tree, _ = LeastSquaresTree(1).prepare(X)(r, s)
    assert stump.threshold == tree.threshold[0] == 2.5
    assert not stump.missing_left and not tree.missing_left[0]  # 7 examples right, 3 left
    np.testing.assert_array_equal(stump.predict(np.array([[np.nan]])), [0.0])
    np.testing.assert_array_equal(tree.predict(np.array([[np.nan]])), [0.0])


def test_predictions_route_nan_by_missing_left():
    X = np.array([[1.0, 5.0], [np.nan, 5.0], [np.nan, np.nan], [3.0, np.nan]])
    for missing_left in (False, True):
        stump = Stump(0, 2.0, 1.0, missing_left)
        np.testing.assert_array_equal(stump.predict(X), [-1, -1 if missing_left else 1, -1 if missing_left else 1, 1])
        reg = RegressionStump(1, 4.0, -3.0, 7.0, missing_left)
        np.testing.assert_array_equal(reg.predict(X), [7, 7, -3 if missing_left else 7, -3 if missing_left else 7])
        # root on x0 <= 2 (NaN: missing_left), its left child on x1 <= 6 (NaN always left), right child a leaf
        tree = DecisionTree(np.array([0, 1, -1, -1, -1]), np.array([2.0, 6.0, 0, 0, 0]), np.array([1, 3, -1, -1, -1]),
                            np.array([2, 4, -1, -1, -1]), np.array([0, 0, 10.0, 20.0, 30.0]), 2,
                            missing_left=np.array([missing_left, True, False, False, False]))
        left_subtree = 20.0  # x1 = 5 <= 6, or NaN (left)
        want = [20.0, left_subtree if missing_left else 10.0, 20.0 if missing_left else 10.0, 10.0]
        np.testing.assert_array_equal(tree.predict(X), want)
        np.testing.assert_array_equal(output_matrix([stump, reg, tree], X), np.column_stack(
            [stump.predict(X), reg.predict(X), tree.predict(X)]))


# ----------------------------------------------------------------------------- the kernels without NaN


def test_the_missing_value_sweeps_on_data_without_nan_equal_the_sweeps_of_before():
    """The sweeps that choose a side for missing values, run on X without NaN, give the cuts, scores
    and sides of the sweeps that run there (which decide the side by the examples' counts)."""
    from marginboost.weak_learners._histogram import _best_bin_splits, _best_bin_stump
    from marginboost.weak_learners.regression import _best_cuts, _node_stats
    from marginboost.weak_learners.stumps import _best_stump, _best_stump_missing, presort
    from marginboost.weak_learners.trees import _best_splits, node_stats

    rng = np.random.default_rng(5)
    for trial in range(40):
        m, p, n_nodes = int(rng.integers(2, 60)), int(rng.integers(1, 6)), int(rng.integers(1, 5))
        X = rng.integers(0, 5, size=(m, p)).astype(np.float64)
        _, vals, order = presort(X)
        node_of = rng.integers(-1, n_nodes, m) if n_nodes > 1 else np.zeros(m, dtype=np.int64)
        w = rng.normal(size=m) if trial % 2 else rng.integers(-2, 3, size=m) / 4.0
        total, mass, _, _ = node_stats(w, node_of, n_nodes)
        for a, b in zip(_best_splits(vals, order, w, node_of, total, mass, n_nodes, False),
                        _best_splits(vals, order, w, node_of, total, mass, n_nodes, True)):
            np.testing.assert_array_equal(a, b)
        r, s = rng.normal(size=m), rng.random(m) * (rng.random(m) < 0.9)
        S, W, Q, _ = _node_stats(r, s, node_of, n_nodes)
        for a, b in zip(_best_cuts(vals, order, r, s, node_of, S, W, Q, n_nodes, False),
                        _best_cuts(vals, order, r, s, node_of, S, W, Q, n_nodes, True)):
            np.testing.assert_array_equal(a, b)
        feature, threshold, sign, edge = _best_stump(vals, order, w)
        with_side = _best_stump_missing(vals, order, w)
        assert with_side[:4] == (feature, threshold, sign, edge)
        if threshold != -np.inf:
            assert with_side[4] == (2 * np.count_nonzero(X[:, feature] <= threshold) >= m)
        binned = bin_features(X)
        hist = np.zeros((p, binned.bins.width))
        for j in range(p):
            np.add.at(hist[j], binned.codes[j], w)
        none, zeros = None, np.zeros(p, dtype=np.uint8)
        assert _best_bin_stump(hist, binned.bins.counts, binned.bins.n_bins, w.sum(), none) == \
            _best_bin_stump(hist, binned.bins.counts, binned.bins.n_bins, w.sum(), zeros)
        args = (hist[:, None, :], binned.bins.counts[:, None, :], binned.bins.n_bins, np.array([w.sum()]),
                np.array([np.abs(w).sum()]), binned.bins.upper, binned.bins.lower)
        for a, b in zip(_best_bin_splits(*args, none), _best_bin_splits(*args, zeros)):
            np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------- binning


def test_missing_values_get_their_own_bin():
    X = np.array([[0.0, np.nan, 1.0], [np.nan, np.nan, 2.0], [1.0, np.nan, 2.0], [np.nan, np.nan, 3.0]])
    binned = bin_features(X)
    bins = binned.bins
    np.testing.assert_array_equal(bins.n_bins, [2, 1, 3])
    np.testing.assert_array_equal(bins.missing, [True, True, False])
    np.testing.assert_array_equal(binned.codes, [[0, 2, 1, 2], [1, 1, 1, 1], [0, 1, 1, 2]])
    np.testing.assert_array_equal(bins.counts, [[1, 1, 2], [0, 4, 0], [1, 2, 1]])
    assert bins.width == 3 and bins.lower[0, 2] == np.inf and bins.upper[0, 2] == -np.inf
    # given thresholds (those fitted, without the NaN): the same bins
    again = bin_features(X, thresholds=bin_thresholds(X))
    for name in ("thresholds", "lower", "upper", "counts", "n_bins", "missing"):
        np.testing.assert_array_equal(getattr(again.bins, name), getattr(bins, name), err_msg=name)
    np.testing.assert_array_equal(again.codes, binned.codes)
    # 255 value bins and the missing bin fit in a byte
    many = np.r_[np.arange(300.0), np.nan][:, None]
    wide = bin_features(many, 255)
    assert wide.bins.n_bins[0] == 255 and wide.codes[0, -1] == 255 and wide.bins.width == 256


def test_a_column_missing_everywhere_is_never_split_and_warns_in_estimators():
    rng = np.random.default_rng(6)
    X = np.column_stack([np.full(40, np.nan), rng.normal(size=40)])
    y = (X[:, 1] > 0).astype(int)
    for learner in (DecisionStump(), HistogramStump(), EdgeTree(2), HistogramTree(2)):
        h, _ = learner.prepare(X, np.where(y == 1, 1.0, -1.0))(np.full(40, 1 / 40))
        features = [h.feature] if isinstance(h, Stump) else h.feature[h.feature >= 0]
        assert list(features) and 0 not in features
    with pytest.warns(AllMissingColumnWarning, match=r"column\(s\) 0 are missing \(NaN\) in every row"):
        MLPBoostClassifier(max_iter=3).fit(X, y)


# ----------------------------------------------------------------------------- estimators


def _estimators():
    for name in marginboost.__all__:
        cls = getattr(marginboost, name)
        if isinstance(cls, type) and hasattr(cls, "fit") and hasattr(cls, "_nan_refusal"):
            yield cls


NAN_ESTIMATORS = [cls for cls in _estimators() if cls is not marginboost.AverageMarginBoostClassifier]


def nan_data(seed=7, m=90):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 4))
    y = (np.nan_to_num(X[:, 0]) + X[:, 1] > 0).astype(int)
    X[rng.random(X.shape) < 0.25] = np.nan
    y[np.isnan(X[:, 2])] = 1  # a missing value that tells something
    target = np.where(np.isnan(X[:, 3]), 3.0, np.nan_to_num(X[:, 3])) + rng.normal(size=m) * 0.1
    return X, y, target


@pytest.mark.parametrize("cls", NAN_ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("weak_learner", ["stump", "tree"])
def test_every_estimator_with_stumps_or_trees_takes_missing_values(cls, weak_learner):
    X, y, target = nan_data()
    est = cls(weak_learner=weak_learner)
    est.set_params(max_iter=5)
    assert get_tags(est).input_tags.allow_nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y if is_classifier(est) else target)
    out = est.predict(X)
    if is_regressor(est):
        assert np.all(np.isfinite(out))
    else:
        assert set(np.unique(out)) <= set(est.classes_)
        assert np.all(np.isfinite(est.decision_function(X)))


@pytest.mark.parametrize("weak_learner", ["hist_stump", "hist_tree"])
def test_histogram_learners_in_an_estimator_with_missing_values(weak_learner):
    X, y, _ = nan_data(8, 400)
    est = MLPBoostClassifier(weak_learner=weak_learner, max_iter=20).fit(X, y)
    assert est.score(X, y) > 0.8
    y3 = np.where(np.isnan(X[:, 1]), 2, y)  # three classes: one-vs-rest shares the bins
    assert MLPBoostClassifier(weak_learner=weak_learner, max_iter=5).fit(X, y3).score(X, y3) > 0.5


def test_learners_that_cannot_take_missing_values_refuse_them_naming_it():
    X, y, target = nan_data()
    for est, what in ((MLPBoostClassifier(weak_learner=LogisticRegression()), r"weak_learner=LogisticRegression\(\)"),
                      (MLPBoostClassifier(weak_learner=GaussianNaiveBayes()), r"weak_learner=GaussianNaiveBayes\(.*\)"),
                      (GBMRegressor(weak_learner=Ridge()), r"weak_learner=Ridge\(\)"),
                      (marginboost.AverageMarginBoostClassifier(), r"its oracle \(an NZDD of the sample's decision stumps\)")):
        assert not get_tags(est).input_tags.allow_nan
        with pytest.raises(ValueError, match=r"X contains NaN \(missing values\), which " + what + " cannot take"):
            est.fit(X, y if is_classifier(est) else target)
        Xf = np.nan_to_num(X)
        est.set_params(max_iter=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(Xf, y if is_classifier(est) else target)
        with pytest.raises(ValueError, match="X contains NaN"):
            est.predict(X)
    # a scikit-learn weak learner that takes NaN (its allow_nan tag) is let through
    est = MLPBoostClassifier(weak_learner=DecisionTreeClassifier(max_depth=1), max_iter=3)
    assert get_tags(est).input_tags.allow_nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    assert set(est.predict(X)) <= {0, 1}


@pytest.mark.parametrize("cls", list(_estimators()), ids=lambda c: c.__name__)
def test_infinity_is_refused_with_a_message_naming_it(cls):
    X, y, target = nan_data()
    X[3, 1] = np.inf
    est = cls()
    with pytest.raises(ValueError, match="Input X contains infinity"):
        est.fit(X, y if is_classifier(est) else target)


# ----------------------------------------------------------------------------- model files


def test_a_model_file_keeps_the_side_of_the_missing_values(tmp_path):
    X, y, target = nan_data(9, 200)
    models = [MLPBoostClassifier(weak_learner=wl, max_iter=10).fit(X, y) for wl in ("stump", "tree", "hist_tree")]
    models.append(GBMRegressor(max_iter=10, weak_learner="stump").fit(X, target))
    models.append(GBMRegressor(max_iter=10, weak_learner="tree").fit(X, target))
    sides = 0
    for k, est in enumerate(models):
        est.save(tmp_path / f"m{k}.json")
        doc = json.loads((tmp_path / f"m{k}.json").read_text())
        assert doc["format_version"] == 6  # format 6: categorical splits, none here
        assert all("missing_left" in h for h in doc["hypotheses"])
        sides += sum(np.sum(h["missing_left"]) for h in doc["hypotheses"])
        again = load_model(tmp_path / f"m{k}.json")
        np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert sides > 0  # some splits send NaN left, so the round trip is tested both ways


def test_format_4_files_load_and_send_nan_right():
    """tests/data/model_v4_*.json were written before missing values (commit 675753b): they predict
    as then, and their splits, which say nothing of NaN, send it right (x > t)."""
    from sklearn.datasets import load_breast_cancer, make_regression

    expected = json.loads((DATA / "model_v4_expected.json").read_text())
    Xc, _ = load_breast_cancer(return_X_y=True)
    Xc = Xc[:200, :8]
    Xr, _ = make_regression(150, 5, noise=5.0, random_state=0)
    tree = load_model(DATA / "model_v4_mlpboost_tree.json")
    stump = load_model(DATA / "model_v4_mlpboost_stump.json")
    gbm = load_model(DATA / "model_v4_gbm.json")
    np.testing.assert_array_equal(tree.decision_function(Xc[:5]), expected["mlpboost_tree_decision_first5"])
    np.testing.assert_array_equal(stump.decision_function(Xc[:5]), expected["mlpboost_stump_decision_first5"])
    np.testing.assert_array_equal(gbm.predict(Xr[:5]), expected["gbm_predict_first5"])
    for est in (tree, stump, gbm):
        for h in est.hypotheses_:
            assert not np.any(h.missing_left)
    # NaN goes right: as a value above every threshold
    for est, X in ((tree, Xc[:20]), (stump, Xc[:20]), (gbm, Xr[:20])):
        X_nan, X_big = X.copy(), X.copy()
        X_nan[:, 0] = np.nan
        X_big[:, 0] = 1e300
        np.testing.assert_array_equal(est.predict(X_nan), est.predict(X_big))


@pytest.mark.parametrize("bad", [-1.0, np.inf, np.nan, "2", True])
@pytest.mark.parametrize("learner", [DecisionStump, HistogramStump, lambda missing_z: EdgeTree(2, missing_z),
                                     lambda missing_z: HistogramTree(2, missing_z=missing_z)],
                         ids=["DecisionStump", "HistogramStump", "EdgeTree", "HistogramTree"])
def test_a_bad_missing_z_is_refused_naming_it(learner, bad):
    X, y = np.array([[0.0], [1.0], [np.nan]]), np.array([-1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="missing_z must be a real number >= 0"):
        learner(missing_z=bad).prepare(X, y)


def test_the_bins_give_the_column_means_where_each_bin_holds_one_value():
    """The histogram learners' mean (:func:`bin_means`, from the bins) is the exact learners'
    (:func:`column_means`) where no feature has more distinct values than bins, and within a bin's
    width elsewhere."""
    from marginboost.weak_learners.missing_side import bin_means, column_means
    from marginboost.weak_learners.stumps import presort

    rng = np.random.default_rng(5)
    X = np.column_stack([np.round(rng.normal(size=(1001, 5)), 1), rng.normal(size=1001), np.full(1001, np.nan)])
    X[rng.random(X.shape) < 0.3] = np.nan
    means = column_means(presort(X)[1])
    np.testing.assert_allclose(means[:6], np.nanmean(X[:, :6], axis=0), rtol=1e-13)
    assert np.isnan(means[6])
    binned = bin_features(X, 255).bins
    approximate = bin_means(binned)
    np.testing.assert_allclose(approximate[:5], means[:5], rtol=1e-12)
    used = binned.counts[5, : binned.n_bins[5]] > 0
    assert np.count_nonzero(binned.counts[5, : binned.n_bins[5]] > 1) > 0  # bins of several values here
    widest = np.max(binned.upper[5, : binned.n_bins[5]][used] - binned.lower[5, : binned.n_bins[5]][used])
    assert 0 < abs(approximate[5] - means[5]) <= widest
    assert np.isnan(approximate[6])


def test_the_means_of_values_near_the_largest_double_do_not_overflow():
    """A sum of values near the largest double overflows where their mean does not: the mean stays
    finite, between the values, with no warning (the estimators turn warnings into errors in tests)."""
    from marginboost.weak_learners.missing_side import bin_means, column_means
    from marginboost.weak_learners.stumps import presort

    big = np.finfo(np.float64).max
    X = np.array([[-big, big * 0.9], [-big, big], [np.nan, big]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        means = column_means(presort(X)[1])
        from_bins = bin_means(bin_features(X, 255).bins)
    np.testing.assert_array_equal(means[0], -big)
    assert big * 0.9 <= means[1] <= big and big * 0.9 <= from_bins[1] <= big
    assert from_bins[0] == -big
