"""Histogram weak learners: edge-maximising stumps and edge trees over binned features.

The oracle of boosting as Frank-Wolfe (paper 000, Mitsuboshi et al., "Boosting as
Frank-Wolfe", sections 2 and 4.1) returns a hypothesis of large edge
``sum_i d_i y_i h(x_i)``. With ``w = d * y`` and the features binned once
(:func:`.binning.bin_features`, codes ``c_ij``), each call builds the histograms

    H_j(b) = sum_{i : c_ij = b} w_i        (per node of a tree level: over the node's examples)

in one sequential pass over the uint8 codes per feature, then sweeps the bins: the cut after
bin a has left sum ``L = sum_{b <= a} H_j(b)``. As in the exact learners,

* :class:`HistogramStump` maximises the stump edge ``|T - 2 L|`` (``T = sum_i w_i``) over all
  cuts and the two constants (:mod:`.stumps`);
* :class:`HistogramTree` grows the edge tree of :mod:`.trees` level by level, a node N split at
  the cut maximising ``|L| + |S(N) - L|``, with the same stopping rule
  (:func:`.trees.keep_splits`) and leaf values ``sign(S)`` (+1 on S = 0).

A cut exists only between two consecutive bins that hold training examples (of the node, for a
tree). Ties are broken as in the exact learners: the constants first (stump), then the first
feature, then the smallest cut; a later candidate wins only with a strictly larger edge (stump)
or a score larger by more than ``SPLIT_TOL * sum |w_i|`` of the node (tree). The cut between
non-empty bins a < c gets the raw threshold ``midpoint(upper[a], lower[c])`` (largest training
value of bin a, smallest of bin c), so the learners return the ordinary :class:`.Stump` and
:class:`.DecisionTree`, whose ``predict(X)`` reproduces the training predictions, which are
computed from the codes.

Missing values (NaN) have a bin of their own (:mod:`.binning`: code ``n_bins[j]``, past the value
bins, for a feature with NaN in training). Each split also chooses the side of the missing values
as the exact learners do (:mod:`.stumps`, :mod:`.trees`): the larger of the cut's edges with the
missing bin on either side where the bin's sum passes the z-test of ``missing_z``
(:mod:`.missing_side`; the nodes' sums of ``w^2`` are then summed with their other sums), else the
side where the cut sends the feature's mean (:func:`.missing_side.bin_means`); where the two tie
(in particular for a feature without missing bin, or a node without missing example), the child
with more examples (the left on a tie), scikit-learn's HistGradientBoosting rule for a feature
never missing in training; one more cut puts the value bins against the missing bin (where the
test passes, or the mean lies past them). The hypotheses carry the side (``missing_left``), so
their ``predict`` sends NaN there; the training codes are routed the same way (a split's
``missing_code``: the missing bin where it goes left). Without missing bins (X without NaN) the
sweeps and routing passes are those of before, with the side decided after the sweep.

When every feature has at most ``max_bins`` distinct values the bins are the distinct values,
the candidates are those of the exact learners and so are the thresholds: the hypothesis is the
exact learners' one, except where two candidates tie up to the rounding of sums taken in a
different order (identical whenever the sums are exact, e.g. ``d`` of dyadic entries).

Cost per call: O(p m) byte reads for the root's histograms (the stump's), against the exact
learners' gathers along presorted orders, plus O(p * nodes * bins) for the sweeps. Below the root
only the smaller child of each split node is summed from its examples, and the larger one is its
parent's histogram minus the smaller's (LightGBM's subtraction): a level reads at most half of the
examples. The bins' example counts are kept alongside (they say which bins hold examples of a
node) and subtract exactly. A subtracted sum rounds differently from the direct one, by about an
ulp of the parent's bin, as any other order of summation would: the hypotheses are still the exact
learners' up to ties within rounding, and where the sums are exact (dyadic ``d``) they are equal.
``n_jobs`` spreads the histograms over contiguous groups of features (an OpenMP ``prange``); each
feature's histogram is still summed by one thread in example order, and the sweep runs serially in
feature order, so the result is bit-identical to the serial one. The histogram code works on any
row block of the sample: the Dask learners (:mod:`.dask_histogram`) run it per partition, every
node summed directly, and add the blocks.

The loops are compiled ahead of time (``_histogram.pyx``, imported here under their names): each
sums in the same order as the plain loops, with no fused multiply-add, so the same bits. They take
C-contiguous arrays (``codes`` uint8 (p, m), ``w`` float64, the routing arrays int64) and release
the GIL; the threads of ``n_jobs`` are capped, at each call, at OpenMP's ``omp_get_max_threads()``
(so ``threadpoolctl.threadpool_limits`` holds).
"""
from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from marginboost.weak_learners._histogram import SPLIT_TOL as _COMPILED_SPLIT_TOL
from marginboost.weak_learners._histogram import (  # noqa: F401 (the kernels keep their names here)
    _best_bin_splits,
    _best_bin_stump,
    _complete_siblings,
    _descend,
    _node_sums,
    _root_hist,
    _root_sums,
    _route_and_sum,
    _rows_hist,
    _sibling_plan,
    _sum,
)
from marginboost.core.example_vectors import as_float_vector
from marginboost.weak_learners.base import EdgeOracle, WeakLearner
from marginboost.weak_learners.binning import Bins, bin_features, check_max_bins, n_threads
from marginboost.weak_learners.categorical import categorical_columns
from marginboost.weak_learners.missing_side import (MISSING_Z, bin_means, check_missing_z, missing_z_repr, node_squares,
                                                    squares_noise)
from marginboost.weak_learners.shared import shared
from marginboost.weak_learners.stumps import MixedStumpOracle, Stump, midpoint
from marginboost.weak_learners.trees import SPLIT_TOL, DecisionTree, MixedTreeOracle, edge_gain, keep_splits

__all__ = ["HistogramStump", "HistogramTree", "histogram_numeric_splits"]

# _best_bin_splits compares scores with trees.SPLIT_TOL compiled in as a constant.
if _COMPILED_SPLIT_TOL != SPLIT_TOL:
    raise ImportError(f"_histogram was compiled with SPLIT_TOL {_COMPILED_SPLIT_TOL}, trees has {SPLIT_TOL}: "
                      "rebuild it")


def _zeros(workspace: dict | None, name: str, shape: tuple, dtype) -> np.ndarray:
    """A zeroed array, from ``workspace[name]`` when it has this shape: a fresh ``np.zeros`` of a
    level's histograms (80 KiB at 20 features) cost 20 us in a fit, in page faults, a sixth of the
    level's histogram pass; ``fill(0)`` of a reused buffer 2 us (issue 17)."""
    if workspace is None:
        return np.zeros(shape, dtype=dtype)
    buffer = workspace.get(name)
    if buffer is None or buffer.shape != shape:
        buffer = workspace[name] = np.zeros(shape, dtype=dtype)
    else:
        buffer.fill(0)
    return buffer


class StumpStats(NamedTuple):
    total: float  # T = sum_i w_i
    hist: np.ndarray  # (p, W): H_j(b)
    square: float = 0.0  # sum_i w_i^2 (the test of the missing values' side, .missing_side)


class LevelStats(NamedTuple):
    total: np.ndarray  # (nodes,) S(N)
    mass: np.ndarray  # (nodes,) sum |w_i|
    has_pos: np.ndarray  # (nodes,) some w_i > 0
    has_neg: np.ndarray  # (nodes,) some w_i < 0
    hist: np.ndarray | None  # (p, nodes, W), None on the last level
    counts: np.ndarray | None  # (p, nodes, W) int32: the node's examples in the bin; None at the
    # root, where they are ``bins.counts``
    leaf: np.ndarray | None  # (m,) the tree node of each example; None at the root
    square: np.ndarray | None = None  # (nodes,) sum w_i^2 where asked for (.missing_side), else None


_FROM_ROOT = np.empty(0, dtype=np.int64)  # _route_and_sum's start: every walk from the root
_NONE_SUMMED = np.empty(0, dtype=np.int64)  # _route_and_sum's summed: no histograms (the last level)


def stump_stats(codes, w, width: int, threads: int = 1, workspace: dict | None = None) -> StumpStats:
    return StumpStats(_sum(w), _all_examples_hist(codes, w, width, threads, workspace), float(w @ w))


def _all_examples_hist(codes, w, width: int, threads: int, workspace: dict | None) -> np.ndarray:
    """The (p, W) histograms of w over all examples (the root's, the stump's)."""
    hist = _zeros(workspace, "root", (codes.shape[0], width), np.float64)
    _root_hist(codes, w, hist, threads)
    return hist


def level_stats(codes, w, routing, n_nodes: int, width: int, with_hist: bool, threads: int = 1,
                workspace: dict | None = None, previous_leaf: np.ndarray | None = None,
                parent: tuple | None = None, slot: int = 0, square: bool = False) -> LevelStats:
    """Node sums of one tree level (``routing``: see :meth:`_BinTree.routing`) and the per-node
    histograms and counts; with ``with_hist`` False (the last level) no histograms. Below the root
    the examples' nodes too (``leaf``), from which the training predictions follow once the leaf
    values are known. ``workspace``: a dict kept by the caller across calls, whose histogram
    buffers are reused (see :func:`_zeros`; ``slot`` names the pair of buffers, so that a level's
    histograms stay intact while the next level's are summed). ``previous_leaf``: the ``leaf`` of
    the level above in the same tree, where the examples' walks resume (None: from the root).

    ``parent = (hist, counts, active_pos)``: the level above's histograms and counts as (p, nodes
    * W) arrays, and its ``active_pos``. Then only the smaller child of each split node is summed
    from its examples and the other is the parent's minus it (LightGBM's subtraction): one pass
    over at most half of the examples, 98 -> 34 us at 7400 x 20 (random splits of ringnorm, a
    third of the examples on average, one thread; issue 17). Counts subtract exactly; a bin's sum
    rounds differently from the direct sum (see the module doc). Without ``parent``, every node is
    summed.

    ``square``: also the nodes' sums of ``w_i^2`` (the test of the missing values' side,
    :mod:`.missing_side`)."""
    feature, cut, left, right, active_pos, missing_code = routing
    p = codes.shape[0]
    if feature[0] < 0 and with_hist:  # the root: every example in node 0, the bins' counts known from binning
        hist = _all_examples_hist(codes, w, width, threads, workspace)
        return LevelStats(*_root_sums(w), hist[:, None, :], None, None, np.array([w @ w]) if square else None)
    start = _FROM_ROOT if previous_leaf is None else previous_leaf
    if not with_hist:
        summed = _NONE_SUMMED
    elif parent is None:
        summed = np.ones(n_nodes + 1, dtype=np.int64)
        summed[0] = 0
    else:
        parent_hist, parent_counts, parent_pos = parent
        plan, summed = _sibling_plan(feature, cut, left, right, active_pos, missing_code, parent_pos, parent_counts,
                                     width)
    leaf, rows, offset_rows, w_rows, total, mass, has_pos, has_neg = _route_and_sum(
        codes, w, feature, cut, left, right, active_pos, missing_code, n_nodes, width, start, summed)
    squares = node_squares(w, active_pos[leaf], n_nodes) if square else None
    if not with_hist:
        return LevelStats(total, mass, has_pos, has_neg, None, None, leaf, squares)
    hist = _zeros(workspace, f"hist{slot}", (p, n_nodes * width), np.float64)
    counts = _zeros(workspace, f"counts{slot}", (p, n_nodes * width), np.int32)
    _rows_hist(codes, rows, w_rows, offset_rows, hist, counts, threads)
    if parent is not None:
        _complete_siblings(hist, counts, parent_hist, parent_counts, plan, width)
    return LevelStats(total, mass, has_pos, has_neg, hist.reshape(p, n_nodes, width),
                      counts.reshape(p, n_nodes, width), leaf, squares)


def stump_predictions(codes, feature: int, cut: int, sign: float, missing_code: int = -1) -> np.ndarray:
    """h(x) = sign if code > cut and code != missing_code else -sign; cut -1 is the constant ``sign``."""
    if cut < 0:
        return np.full(codes.shape[1], sign)
    right = codes[feature] > cut
    if missing_code >= 0:
        right &= codes[feature] != missing_code
    return np.where(right, sign, -sign)


def tree_predictions(codes, routing, value) -> np.ndarray:
    feature, cut, left, right, _, missing_code = routing
    return value[_descend(codes, feature, cut, left, right, missing_code, _FROM_ROOT)]


class _BinTree:
    """A tree grown level by level in flat arrays, as :class:`.trees.LevelGrower` lays it out
    (children appended left then right, level by level), with each split kept twice: as the
    last bin sent left (``cut``) with the missing bin where it too goes left (``missing_code``,
    -1 otherwise), for routing codes, and as a raw ``threshold`` with ``missing_left``."""

    def __init__(self):
        self.feature, self.cut, self.threshold = [-1], [0], [0.0]
        self.left, self.right, self.value, self.gain = [-1], [-1], [0.0], [0.0]
        self.missing_left, self.missing_code = [False], [-1]
        self.active = [0]

    def routing(self):
        """(feature, cut, left, right, active_pos, missing_code) arrays (the rows of one array, built
        by one call: 1.7 us where five conversions took 2.9, three times a tree); ``active_pos[k]`` is
        the position of node k in this level, -1 for nodes not in it."""
        active_pos = [-1] * len(self.feature)
        for position, node in enumerate(self.active):
            active_pos[node] = position
        return tuple(np.array([self.feature, self.cut, self.left, self.right, active_pos, self.missing_code],
                              dtype=np.int64))

    def split(self, keep, feature, cut, threshold, gain, missing_left=None, missing_code=None) -> None:
        """Split the nodes ``n`` of this level with ``keep[n]``, recording ``gain[n]``;
        ``missing_left`` and ``missing_code`` per node (None: NaN right, no missing bin sent left)."""
        next_active = []
        for n, nid in enumerate(self.active):
            if not keep[n]:
                continue
            self.feature[nid], self.cut[nid], self.threshold[nid] = int(feature[n]), int(cut[n]), float(threshold[n])
            self.gain[nid] = float(gain[n])
            if missing_left is not None:
                self.missing_left[nid], self.missing_code[nid] = bool(missing_left[n]), int(missing_code[n])
            for side in (self.left, self.right):
                side[nid] = len(self.feature)
                next_active.append(len(self.feature))
                self.feature.append(-1)
                self.cut.append(0)
                self.threshold.append(0.0)
                self.left.append(-1)
                self.right.append(-1)
                self.value.append(0.0)
                self.gain.append(0.0)
                self.missing_left.append(False)
                self.missing_code.append(-1)
        self.active = next_active

    def hypothesis(self, n_features: int, cls=DecisionTree) -> DecisionTree:
        """The tree as a ``cls`` (a :class:`.trees.DecisionTree` or a subclass: regression trees)."""
        return cls(
            feature=np.asarray(self.feature, dtype=np.int64),
            threshold=np.asarray(self.threshold, dtype=np.float64),
            left=np.asarray(self.left, dtype=np.int64),
            right=np.asarray(self.right, dtype=np.int64),
            value=np.asarray(self.value, dtype=np.float64),
            n_features=n_features,
            gain=np.asarray(self.gain, dtype=np.float64),
            missing_left=np.asarray(self.missing_left, dtype=np.bool_),
        )


def _raw_threshold(bins: Bins, feature: int, a: int, c: int) -> float:
    return float(midpoint(bins.upper[feature, a], bins.lower[feature, c]))


def _missing_bins(bins: Bins) -> np.ndarray | None:
    """The sweeps' ``missing`` argument: the features with a missing bin (uint8), None without any
    (then the sweeps of data without NaN run)."""
    return np.ascontiguousarray(bins.missing, dtype=np.uint8) if bins.missing.any() else None


# ------------------------------------------------------------------ oracles


class LocalSample:
    """The binned training sample in this process (the Dask learners have a distributed one).

    ``counts``: the examples per bin (``bins.counts``, (p, W)); with them the trees' levels below
    the root take their larger nodes' histograms by subtraction (:func:`level_stats`)."""

    def __init__(self, codes: np.ndarray, threads: int, counts: np.ndarray | None = None):
        self.codes, self.threads = codes, threads
        self._root_counts = None if counts is None else np.ascontiguousarray(counts, dtype=np.int32)
        self._workspace = {}  # histogram buffers reused from call to call (level_stats)
        self._leaf = None  # the examples' nodes at the last level asked for, in the tree being grown
        self._parent = None  # that level's (hist, counts, active_pos), for the subtraction
        self._depth = 0  # of the next level asked for

    def __getstate__(self) -> dict:
        # The buffers and the tree in progress are scratch that the next call rebuilds: a pickle (a
        # warm-started estimator keeps its oracle) holds the sample alone (at 80 x 20 the scratch
        # was 50 times the size of the codes).
        return {**self.__dict__, "_workspace": {}, "_leaf": None, "_parent": None, "_depth": 0}

    def weights(self, w: np.ndarray) -> np.ndarray:
        """``w`` in the form the stats methods take (a Dask sample cuts it into partitions)."""
        return w

    def stump_stats(self, w, width: int) -> StumpStats:
        return stump_stats(self.codes, w, width, self.threads, self._workspace)

    def level_stats(self, w, routing, n_nodes: int, width: int, with_hist: bool, square: bool = False) -> LevelStats:
        """As :func:`level_stats`; a tree's levels are asked for in order from its root, so each
        level's walks resume at the nodes of the level before (the root's call starts a tree), and
        with ``counts`` its histograms are the level before's minus the smaller nodes'."""
        if routing[0][0] < 0:  # the root: a new tree
            self._leaf, self._parent, self._depth = None, None, 0
        stats = level_stats(self.codes, w, routing, n_nodes, width, with_hist, self.threads, self._workspace,
                            self._leaf, self._parent, self._depth % 2, square)
        self._leaf = stats.leaf
        self._depth += 1
        if with_hist and self._root_counts is not None:
            shape = (self.codes.shape[0], n_nodes * width)
            counts = self._root_counts if stats.counts is None else stats.counts.reshape(shape)
            self._parent = (stats.hist.reshape(shape), counts, routing[4])
        return stats

    def stump_predictions(self, feature: int, cut: int, sign: float, missing_code: int = -1) -> np.ndarray:
        return stump_predictions(self.codes, feature, cut, sign, missing_code)

    def tree_predictions(self, routing, value) -> np.ndarray:
        return tree_predictions(self.codes, routing, value)

    def leaf_predictions(self, leaf, value) -> np.ndarray:
        """The predictions ``value[leaf]`` of examples whose leaves ``leaf`` the last level returned."""
        return value[leaf]


class HistogramStumpOracle(EdgeOracle):
    """Best stump over the bins of ``sample`` (a :class:`LocalSample` or a Dask one); the side of
    the missing values by edge where their sum passes the z-test of ``missing_z``
    (:mod:`.missing_side`)."""

    def __init__(self, sample, bins: Bins, y: np.ndarray, missing_z: float = MISSING_Z):
        self._sample, self._bins = sample, bins
        self._missing = _missing_bins(bins)
        self._means = None if self._missing is None else bin_means(bins)
        self._y = as_float_vector(y)
        self._z = missing_z
        self._m = int(bins.counts[0].sum()) if bins.counts.shape[0] else 0

    def __call__(self, d: np.ndarray) -> tuple[Stump, np.ndarray]:
        w = self._sample.weights(as_float_vector(d) * self._y)
        total, hist, square = self._sample.stump_stats(w, self._bins.width)
        noise = float(squares_noise(square, self._m, self._z))
        feature, a, c, sign, _, missing_left = _best_bin_stump(hist, self._bins.counts, self._bins.n_bins, total,
                                                                self._missing, noise, self._means, self._bins.upper,
                                                                self._bins.lower)
        if a < 0:
            h = Stump(0, -np.inf, float(sign))
        else:
            h = Stump(int(feature), _raw_threshold(self._bins, feature, a, c), float(sign), bool(missing_left))
        missing_code = self._bins.missing_code(int(feature), bool(missing_left))
        return h, self._sample.stump_predictions(int(feature), int(a), float(sign), missing_code)


class HistogramTreeOracle(EdgeOracle):
    """Greedy edge tree over the bins of ``sample``, grown as :class:`.trees.EdgeTree` grows (the
    side of the missing values as :class:`HistogramStumpOracle` chooses it, per node)."""

    def __init__(self, sample, bins: Bins, y: np.ndarray, max_depth: int, missing_z: float = MISSING_Z):
        self._sample, self._bins, self._max_depth = sample, bins, max_depth
        self._missing = _missing_bins(bins)
        self._z = missing_z
        self._square = self._missing is not None and missing_z > 0  # the nodes' sums of w^2 needed
        self._means = None if self._missing is None else bin_means(bins)
        self._y = as_float_vector(y)
        self._root_counts = np.ascontiguousarray(bins.counts, dtype=np.int32)[:, None, :]

    def __call__(self, d: np.ndarray) -> tuple[DecisionTree, np.ndarray]:
        w = self._sample.weights(as_float_vector(d) * self._y)
        bins = self._bins
        tree = _BinTree()
        for depth in range(self._max_depth + 1):
            k_nodes = len(tree.active)
            last = depth == self._max_depth
            stats = self._sample.level_stats(w, tree.routing(), k_nodes, bins.width, not last, self._square)
            for n, nid in enumerate(tree.active):
                tree.value[nid] = 1.0 if stats.total[n] >= 0.0 else -1.0
            if last:
                break
            counts = self._root_counts if stats.counts is None else stats.counts
            noise = squares_noise(stats.square, counts[0].sum(axis=-1), self._z) if self._square else None
            feat, a, c, score, thr, missing_left = _best_bin_splits(stats.hist, counts, bins.n_bins, stats.total,
                                                                    stats.mass, bins.upper, bins.lower, self._missing,
                                                                    noise, self._means)
            keep = keep_splits(feat, score, stats.total, stats.mass, stats.has_pos & stats.has_neg,
                               depth == self._max_depth - 1)
            if not keep.any():
                break
            missing_code = [bins.missing_code(f, ml) if f >= 0 else -1 for f, ml in zip(feat, missing_left)]
            tree.split(keep, feat, a, thr, edge_gain(score, stats.total), missing_left, missing_code)
        value = np.asarray(tree.value, dtype=np.float64)
        # Grown to the last level, the last pass has already routed every example to its leaf.
        pred = self._sample.leaf_predictions(stats.leaf, value) if last else self._sample.tree_predictions(
            tree.routing(), value)
        return tree.hypothesis(bins.thresholds.shape[0]), pred


def histogram_numeric_splits(X_num, max_bins: int):
    """The histogram learner's per-node search on the numeric columns ``X_num``: the nodes'
    histograms summed by the compiled :func:`_rows_hist` (every node from its examples, in example
    order) and swept by :func:`_best_bin_splits`."""
    binned = bin_features(X_num, max_bins)
    codes, bins = binned.codes, binned.bins
    width = bins.width
    missing = _missing_bins(bins)
    means = None if missing is None else bin_means(bins)

    def splits(w, node_of, total, mass, n_nodes, noise):
        rows = np.flatnonzero(node_of >= 0)
        hist = np.zeros((codes.shape[0], n_nodes * width))
        counts = np.zeros((codes.shape[0], n_nodes * width), dtype=np.int32)
        _rows_hist(codes, rows.astype(np.uint64), np.ascontiguousarray(w[rows]),
                   (node_of[rows] * width).astype(np.uint64), hist, counts)
        shape = (codes.shape[0], n_nodes, width)
        feat, _, _, score, thr, missing_left = _best_bin_splits(hist.reshape(shape), counts.reshape(shape), bins.n_bins,
                                                                total, mass, bins.upper, bins.lower, missing, noise,
                                                                means)
        return feat, thr, score, missing_left
    return splits


def check_max_depth(max_depth) -> int:
    if isinstance(max_depth, bool) or not isinstance(max_depth, numbers.Real) or max_depth != int(max_depth) \
            or max_depth < 1:
        raise ValueError(f"max_depth must be an integer >= 1, got {max_depth!r}")
    return int(max_depth)


class HistogramStump(WeakLearner):
    """Max-edge decision stump over binned features (exact when no feature has more than
    ``max_bins`` distinct values). ``n_jobs``: OpenMP threads over features (None or 1: serial;
    the result does not depend on it). ``missing_z``: the z-test a split's missing values must pass
    for their side to be chosen by edge (:mod:`.missing_side`; 0: always by edge)."""

    allow_nan = True
    allow_categorical = True

    def __init__(self, max_bins: int = 255, n_jobs=None, missing_z: float = MISSING_Z):
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.missing_z = missing_z

    def prepare(self, X, y: np.ndarray) -> EdgeOracle:
        threads = n_threads(self.n_jobs)
        max_bins = check_max_bins(self.max_bins)
        z = check_missing_z(self.missing_z)
        columns = categorical_columns(X)
        if columns.size:  # each category its own bin: the exact categorical sums (.categorical)
            def numeric(X_num):
                binned = bin_features(X_num, max_bins, n_jobs=self.n_jobs)
                return HistogramStumpOracle(LocalSample(binned.codes, threads), binned.bins, _labels(y, binned), z)
            return MixedStumpOracle(X, y, columns, numeric)
        binned = _bin_once(X, max_bins, self.n_jobs)
        return HistogramStumpOracle(LocalSample(binned.codes, threads), binned.bins, _labels(y, binned), z)

    def __repr__(self) -> str:
        return f"HistogramStump(max_bins={self.max_bins!r}, n_jobs={self.n_jobs!r}{missing_z_repr(self.missing_z)})"


class HistogramTree(WeakLearner):
    """Depth-limited edge tree over binned features, leaves in {-1, +1} (see the module doc);
    ``missing_z`` as :class:`HistogramStump`'s."""

    allow_nan = True
    allow_categorical = True

    def __init__(self, max_depth: int = 2, max_bins: int = 255, n_jobs=None, missing_z: float = MISSING_Z):
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.missing_z = missing_z

    def prepare(self, X, y: np.ndarray) -> EdgeOracle:
        max_depth = check_max_depth(self.max_depth)
        threads = n_threads(self.n_jobs)
        z = check_missing_z(self.missing_z)
        columns = categorical_columns(X)
        if columns.size:  # each category its own bin: the exact categorical sums (.categorical)
            max_bins = check_max_bins(self.max_bins)
            return MixedTreeOracle(X, y, columns, max_depth, lambda X_num: histogram_numeric_splits(X_num, max_bins),
                                   z)
        binned = _bin_once(X, check_max_bins(self.max_bins), self.n_jobs)
        sample = LocalSample(binned.codes, threads, binned.bins.counts)
        return HistogramTreeOracle(sample, binned.bins, _labels(y, binned), max_depth, z)

    def __repr__(self) -> str:
        return (f"HistogramTree(max_depth={self.max_depth!r}, max_bins={self.max_bins!r}, n_jobs={self.n_jobs!r}"
                f"{missing_z_repr(self.missing_z)})")


def _bin_once(X, max_bins: int, n_jobs):
    """``bin_features(X, max_bins)``, done once per X for all the fits inside
    :func:`.shared.share_features` (one-vs-rest); ``n_jobs`` does not change the bins."""
    return shared(X, ("bins", max_bins), lambda: bin_features(X, max_bins, n_jobs=n_jobs))


def _labels(y, binned) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (binned.codes.shape[1],):
        raise ValueError(f"y must have shape ({binned.codes.shape[1]},), got {y.shape}")
    return y
