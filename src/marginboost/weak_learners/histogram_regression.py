"""Least-squares histogram weak learners: regression stumps and CART trees over binned features.

The regression oracle of GBM and FWBoost_R (:mod:`.regression`: ``h = argmin_h sum_i s_i (r_i -
h(x_i))^2``, ``s_i > 0``) with the features binned once (:func:`.binning.bin_features`, codes
``c_ij``), as the edge learners of :mod:`.histogram` do. Per node N of a tree level (the root for
a stump) one pass over the codes sums the histograms of ``s r`` and of ``s``::

    R_j(b) = sum_{i in N : c_ij = b} s_i r_i,        V_j(b) = sum_{i in N : c_ij = b} s_i,

and the node sums ``S = sum_N s_i r_i``, ``W = sum_N s_i``, ``Q = sum_N s_i r_i^2``. A cut of
feature j after bin a sends the bins ``<= a`` left, with sums ``S_L = sum_{b <= a} R_j(b)`` and
``W_L`` alike, the rest right (``S_R = S - S_L``, ``W_R = W - W_L``); its score is

    S_L^2 / W_L + S_R^2 / W_R,

the decrease of the weighted squared error ``sum_N s_i (r_i - mean)^2`` is ``score - S^2 / W``
(the criterion of the exact learners of :mod:`.regression`, CART's), and the children's values
are the weighted means ``S_L / W_L``, ``S_R / W_R``. The sweep over the bins is
``_histogram._best_bin_ls_splits`` (compiled): cuts exist between consecutive bins that hold
examples of the node; a later cut wins only with a score larger by more than ``SPLIT_TOL * Q``
(the exact learners' tolerance: ties go to the first feature, then the smallest cut); the
threshold is the midpoint of the two bins' training values, so the hypotheses are the library's
:class:`.regression.RegressionStump` and :class:`.regression.RegressionTree`. When every feature
has at most ``max_bins`` distinct values the candidates are those of the exact learners, and so
is the hypothesis, but for ties within rounding.

Missing values (NaN) have a bin of their own, as for the edge learners (:mod:`.histogram`): each
cut takes the larger of its scores with the node's missing bin on the left and on the right, on a
tie (within the tolerance; in particular when no example of the node misses the feature) the
side of more of the node's examples (the left on a tie); one more cut puts the value bins
against the missing bin (missing right).

Splits, as :class:`.regression.LeastSquaresTree` and :class:`.regression.LeastSquaresStump`: a
tree splits every node at its best cut while its residuals differ (``Q - S^2 / W > SPLIT_TOL *
Q``) and a cut exists, down to ``max_depth``; a stump is the constant ``S / W`` unless its best
cut gains more than ``SPLIT_TOL * Q``. The children's values come from the split's sums, so the
deepest level needs no pass of its own; the training predictions are one walk of the codes.

The oracles work over a sample interface (``least_squares_level``, ``tree_predictions``):
:class:`LocalLeastSquaresSample` here (the larger child of each split by subtraction, as
:class:`.histogram.LocalSample`), :class:`marginboost.dask.sample.WorkerSample` on a Dask
cluster, whose blocks run :func:`least_squares_level` and add their sums on the client in block
order (so a cluster fit picks the same cuts, with sums equal up to rounding).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from marginboost.core.example_vectors import as_float_vector
from marginboost.weak_learners._histogram import _best_bin_ls_splits, _sum
from marginboost.weak_learners.binning import Bins, check_max_bins, n_threads
from marginboost.weak_learners.histogram import (_FROM_ROOT, LevelStats, LocalSample, _BinTree, _bin_once, _descend,
                                                 _missing_bins, check_max_depth, level_stats, tree_predictions)
from marginboost.weak_learners.regression import SPLIT_TOL, RegressionLearner, RegressionStump, RegressionTree

__all__ = ["HistogramLeastSquaresStump", "HistogramLeastSquaresTree", "HistogramLeastSquaresOracle",
           "LeastSquaresLevel", "LocalLeastSquaresSample", "least_squares_level", "tree_node_sums"]


class LeastSquaresLevel(NamedTuple):
    """A tree level's sums for least squares: the :class:`.histogram.LevelStats` of ``s r``
    (``total`` is S; its ``leaf`` the examples' nodes below the root) and of ``s`` (``total`` is
    W), and ``Q = sum s r^2`` per node."""

    r: LevelStats
    s: LevelStats
    q: np.ndarray


def node_totals(q, leaf, active_pos, n_nodes: int) -> np.ndarray:
    """``sum q`` per node of the level (``leaf``: the examples' nodes, None at the root; ``active_pos``
    the routing's positions of the level's nodes), each in example order."""
    if leaf is None:
        return np.array([_sum(q)])
    position = active_pos[leaf]
    inside = position >= 0
    return np.bincount(position[inside], weights=q[inside], minlength=n_nodes)


def least_squares_level(codes, sr, s, q, routing, n_nodes: int, width: int) -> LeastSquaresLevel:
    """A row block's :class:`LeastSquaresLevel`, every node summed from its examples, without the
    examples' nodes (the blocks of a Dask sample run it; their sums add up to the sample's). The
    examples walk the tree once: the sums of ``s`` start where those of ``s r`` left them (their
    nodes at this level, where a walk stops at once)."""
    r_stats = level_stats(codes, sr, routing, n_nodes, width, True)
    s_stats = level_stats(codes, s, routing, n_nodes, width, True, previous_leaf=r_stats.leaf)
    q_nodes = node_totals(q, r_stats.leaf, routing[4], n_nodes)
    return LeastSquaresLevel(r_stats._replace(leaf=None), s_stats._replace(leaf=None), q_nodes)


def tree_node_sums(codes, routing, a, b) -> tuple[np.ndarray, np.ndarray]:
    """Per node of the tree ``routing`` the sums of ``a`` and of ``b`` over the examples whose walk
    ends there, each in example order (GBM's Newton leaves on a Dask cluster)."""
    feature, cut, left, right, _, missing_code = routing
    leaf = _descend(codes, feature, cut, left, right, missing_code, _FROM_ROOT)
    n_nodes = feature.shape[0]
    return np.bincount(leaf, weights=a, minlength=n_nodes), np.bincount(leaf, weights=b, minlength=n_nodes)


class LocalLeastSquaresSample:
    """The binned sample in this process for the least-squares oracle: one
    :class:`.histogram.LocalSample` walker per weight vector (``s r`` and ``s``), each keeping the
    tree in progress, so that both take their larger children by subtraction."""

    def __init__(self, codes: np.ndarray, threads: int, counts: np.ndarray):
        self.codes = codes
        self._r = LocalSample(codes, threads, counts)
        self._s = LocalSample(codes, threads, counts)

    def least_squares_level(self, sr, s, q, routing, n_nodes: int, width: int) -> LeastSquaresLevel:
        """A level's :class:`LeastSquaresLevel` (levels asked for in order from the root)."""
        r_stats = self._r.level_stats(sr, routing, n_nodes, width, True)
        s_stats = self._s.level_stats(s, routing, n_nodes, width, True)
        return LeastSquaresLevel(r_stats, s_stats, node_totals(q, r_stats.leaf, routing[4], n_nodes))

    def tree_predictions(self, routing, value) -> np.ndarray:
        """``value`` at the node each example's walk of the tree ``routing`` ends in."""
        return tree_predictions(self.codes, routing, value)


class HistogramLeastSquaresOracle:
    """``(r, s) -> (h, h(X))``: the least-squares tree of depth ``max_depth`` over the bins of
    ``sample`` (module docstring), as a :class:`.regression.RegressionStump` where ``stump``.
    ``r`` and ``s`` are numpy vectors, or vectors of the sample's kind (a Dask sample's
    :class:`~marginboost.dask.rows.RowVector`), and so is ``h(X)``. ``last_routing``: the routing
    of the codes (:meth:`.histogram._BinTree.routing`) by the last hypothesis returned, whose
    node ids are a tree's (a stump's: 1 left, 2 right, or 0 alone for the constant)."""

    def __init__(self, sample, bins: Bins, max_depth: int, stump: bool = False):
        self.sample, self.bins, self.max_depth, self.stump = sample, bins, max_depth, stump
        self._missing = _missing_bins(bins)
        self._root_counts = np.ascontiguousarray(bins.counts, dtype=np.int32)[:, None, :]
        self.last_routing = None

    def __call__(self, r, s):
        r, s = as_float_vector(r), as_float_vector(s)
        sr = s * r
        q = sr * r
        bins, tree = self.bins, _BinTree()
        for depth in range(self.max_depth):
            level = self.sample.least_squares_level(sr, s, q, tree.routing(), len(tree.active), bins.width)
            S, W, Q = level.r.total, level.s.total, level.q
            if depth == 0:
                tree.value[0] = float(S[0] / W[0])
            counts = self._root_counts if level.r.counts is None else level.r.counts
            feat, a, _, score, thr, missing_left, left_r, left_s = _best_bin_ls_splits(
                level.r.hist, level.s.hist, counts, bins.n_bins, S, W, Q, bins.upper, bins.lower, self._missing)
            gain = score - S * S / W
            if self.stump:  # as LeastSquaresStump: a cut only where it gains more than the tolerance
                keep = (feat >= 0) & (gain > SPLIT_TOL * Q)
            else:  # as LeastSquaresTree: every node whose residuals differ
                keep = (feat >= 0) & (Q - S * S / W > SPLIT_TOL * Q)
            if not keep.any():
                break
            parents = [nid for n, nid in enumerate(tree.active) if keep[n]]
            missing_code = [bins.missing_code(f, ml) if f >= 0 else -1 for f, ml in zip(feat, missing_left)]
            tree.split(keep, feat, a, thr, np.maximum(gain, 0.0), missing_left, missing_code)
            for n, nid in zip(np.flatnonzero(keep), parents):
                tree.value[tree.left[nid]] = float(left_r[n] / left_s[n])
                tree.value[tree.right[nid]] = float((S[n] - left_r[n]) / (W[n] - left_s[n]))
        value = np.asarray(tree.value, dtype=np.float64)
        self.last_routing = tree.routing()
        pred = self.sample.tree_predictions(self.last_routing, value)
        if not self.stump:
            return tree.hypothesis(bins.thresholds.shape[0], RegressionTree), pred
        if tree.feature[0] < 0:
            return RegressionStump(0, -np.inf, value[0], value[0]), pred
        return RegressionStump(int(tree.feature[0]), float(tree.threshold[0]), float(value[tree.left[0]]),
                               float(value[tree.right[0]]), bool(tree.missing_left[0])), pred


class HistogramLeastSquaresTree(RegressionLearner):
    """Depth-limited weighted least-squares (CART) tree over binned features (module docstring):
    :class:`.regression.LeastSquaresTree` with the cuts restricted to ``max_bins`` bins a feature.
    Numeric features only. ``n_jobs``: OpenMP threads over features (the result does not depend
    on it)."""

    allow_nan = True

    def __init__(self, max_depth: int = 3, max_bins: int = 255, n_jobs=None):
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.n_jobs = n_jobs

    def prepare(self, X) -> HistogramLeastSquaresOracle:
        return _prepare(X, check_max_depth(self.max_depth), self.max_bins, self.n_jobs, stump=False)

    def __repr__(self) -> str:
        return (f"HistogramLeastSquaresTree(max_depth={self.max_depth!r}, max_bins={self.max_bins!r}, "
                f"n_jobs={self.n_jobs!r})")


class HistogramLeastSquaresStump(RegressionLearner):
    """Weighted least-squares regression stump over binned features (module docstring):
    :class:`.regression.LeastSquaresStump` with the cuts restricted to ``max_bins`` bins a feature."""

    allow_nan = True

    def __init__(self, max_bins: int = 255, n_jobs=None):
        self.max_bins = max_bins
        self.n_jobs = n_jobs

    def prepare(self, X) -> HistogramLeastSquaresOracle:
        return _prepare(X, 1, self.max_bins, self.n_jobs, stump=True)

    def __repr__(self) -> str:
        return f"HistogramLeastSquaresStump(max_bins={self.max_bins!r}, n_jobs={self.n_jobs!r})"


def _prepare(X, max_depth: int, max_bins, n_jobs, stump: bool) -> HistogramLeastSquaresOracle:
    binned = _bin_once(X, check_max_bins(max_bins), n_jobs)
    sample = LocalLeastSquaresSample(binned.codes, n_threads(n_jobs), binned.bins.counts)
    return HistogramLeastSquaresOracle(sample, binned.bins, max_depth, stump)
