"""The binned training sample with every per-example vector on the workers.

:class:`WorkerSample` is the sample interface of :mod:`marginboost.weak_learners.histogram`
(that of :class:`~marginboost.weak_learners.histogram.LocalSample`), so the histogram oracles
(:class:`~marginboost.weak_learners.histogram.HistogramStumpOracle`,
:class:`~marginboost.weak_learners.histogram.HistogramTreeOracle`) pick their hypotheses with
the in-memory code, for weights ``w = d * y`` that are :class:`~marginboost.dask.rows.RowVector`
objects; and the sample interface of the least-squares histogram learners
(:class:`~marginboost.weak_learners.histogram_regression.HistogramLeastSquaresOracle`: the
histograms of ``s r`` and ``s`` of a level in one task per block). Per tree level (once for a
stump) one task per block sums the block's node totals and histograms (O(p x bins) each, added
here in block order), below the root from its results of the level above, kept on the workers
(the walks resume at the examples' nodes there, which stay on the workers, and half the
histograms are the parent's minus the other half, as in memory). The last level of a tree takes
no pass of its own: its nodes' totals (all its leaves' values need) are the sums of their
parent's histogram bins on either side of the split, here, and the examples' leaves are walked
inside the next task that needs them (the new column's, :class:`~marginboost.dask.rows.LazyRowVector`).
A leaf's total so differs from the sum over its examples by rounding (the bins summed in bin
order), which decides its sign only where the total is zero to rounding; where the sums are
exact (``d`` of dyadic entries) it is the same. The training predictions and the examples'
leaves stay on the workers as RowVectors.
The codes are binned on the workers
(:func:`marginboost.weak_learners.dask_histogram.distributed_sample`: the same bins as in memory).
"""
from __future__ import annotations

import math

import numpy as np

from marginboost.dask.rows import Kept, PerBlock, RowLayout, RowVector, own_result
from marginboost.weak_learners.dask_histogram import summed_level_stats, summed_stump_stats
from marginboost.weak_learners.histogram import (_FROM_ROOT, LevelStats, StumpStats, _descend, level_stats,
                                                 stump_predictions, stump_stats, tree_predictions)
from marginboost.weak_learners.histogram_regression import LeastSquaresLevel, least_squares_level, tree_node_sums

__all__ = ["WorkerSample"]


def _take(leaf, value):
    return value[leaf]


def _block_counts(codes, width: int) -> np.ndarray:
    """The block's examples per (feature, bin), (p, width) int32: its root's counts."""
    counts = np.zeros((codes.shape[0], width), dtype=np.int32)
    for j in range(codes.shape[0]):
        counts[j] = np.bincount(codes[j], minlength=width)[:width]
    return counts


def _level(codes, w, routing, n_nodes: int, width: int, square: bool, previous, root_counts, parent_pos) -> Kept:
    """:func:`.histogram.level_stats` of a block (with histograms), its examples' nodes kept on
    the worker. Below the root from its level above (``previous``, of the same tree and weights,
    its nodes at ``parent_pos``): the walks resume at the examples' nodes there (from the root
    where they did not stay here), and each split node's larger child's histograms are its
    parent's minus the smaller's."""
    if previous is None:
        stats = level_stats(codes, w, routing, n_nodes, width, True, square=square)
    else:
        above = own_result(previous)
        shape = (codes.shape[0], above.answer.hist.shape[1] * width)
        counts = root_counts if above.answer.counts is None else above.answer.counts.reshape(shape)
        stats = level_stats(codes, w, routing, n_nodes, width, True, previous_leaf=above.local,
                            parent=(above.answer.hist.reshape(shape), counts, parent_pos), square=square)
    return Kept(stats._replace(leaf=None), stats.leaf)


def _last_leaf(codes, routing, previous) -> np.ndarray:
    """The block's examples' leaves: their walks one level on from ``previous`` (from the root
    where their nodes did not stay on this worker)."""
    start = own_result(previous).local
    feature, cut, left, right, _, missing_code = routing
    return _descend(codes, feature, cut, left, right, missing_code, _FROM_ROOT if start is None else start)


def child_totals(above: LevelStats, routing, parent_pos) -> np.ndarray:
    """The totals of a tree level's nodes from the histograms ``above`` of their parents (at
    ``parent_pos``): each child's bins, those of its side of the parent's split, summed exactly
    rounded (``math.fsum``)."""
    feature, cut, left, right, active_pos, missing_code = routing
    total = np.zeros(int(np.count_nonzero(active_pos >= 0)))
    position = np.full(left.shape[0], -1)
    position[:parent_pos.shape[0]] = parent_pos  # (the nodes made since: in no level above)
    for node in np.flatnonzero((left >= 0) & (position >= 0)):
        hist = above.hist[feature[node], position[node]]
        goes_left = np.arange(hist.shape[0]) <= cut[node]
        if missing_code[node] >= 0:
            goes_left[missing_code[node]] = True
        total[active_pos[left[node]]] = math.fsum(hist[goes_left])
        total[active_pos[right[node]]] = math.fsum(hist[~goes_left])
    return total


class WorkerSample:
    """Codes on the workers, one block per row partition of ``layout`` (module docstring)."""

    def __init__(self, layout: RowLayout, codes: list):
        self.layout, self.codes = layout, PerBlock(codes)
        self._root_counts = None  # per block, its examples per (feature, bin): made at the first tree
        self._above = None  # the tree's last level: its per-block results (futures), node positions and sums

    def __getstate__(self) -> dict:
        # A level in progress is scratch of one tree (an estimator pickled keeps no futures of it).
        return {**self.__dict__, "_above": None}

    def weights(self, w: RowVector) -> RowVector:
        """``w`` as the stats methods take it: as it is (its blocks are the codes' partitions)."""
        return w

    def stump_stats(self, w: RowVector, width: int) -> StumpStats:
        """The stump histograms of ``w`` (:func:`.histogram.stump_stats` per block, added here)."""
        return summed_stump_stats(self.layout.reduce(stump_stats, self.codes, w, width))

    def level_stats(self, w: RowVector, routing, n_nodes: int, width: int, with_hist: bool,
                    square: bool = False) -> LevelStats:
        """A tree level's node sums and histograms (:func:`.histogram.level_stats` per block, added
        here); at the last level the nodes' totals alone, from the level above's histograms, and
        the examples' leaves as a :class:`~marginboost.dask.rows.LazyRowVector` (module docstring).

        A tree's levels are asked for in order from its root (the root's call starts a tree), as of
        :class:`.histogram.LocalSample`: below the root each block resumes from its results of the
        level above, kept on the workers (:func:`_level`: the walks one level long, half the
        histograms by subtraction). A worker lost between levels recomputes them from their
        lineage."""
        root = routing[0][0] < 0
        if not root and self._above is None:
            raise RuntimeError("a tree's levels are asked for from its root on")
        if not with_hist:  # (the root has its histograms: trees are at least one split deep)
            futures, parent_pos, above = self._above
            self._above = None
            leaf = self.layout.lazy(_last_leaf, self.codes, routing, PerBlock(futures))
            return LevelStats(child_totals(above, routing, parent_pos), None, None, None, None, None, leaf, None)
        if root:
            parts, futures = self.layout.submit_kept(_level, self.codes, w, routing, n_nodes, width, square, None,
                                                     None, None)
        else:
            previous, parent_pos, _ = self._above
            if self._root_counts is None:
                self._root_counts = PerBlock(self.layout.submit(_block_counts, self.codes, width))
            parts, futures = self.layout.submit_kept(_level, self.codes, w, routing, n_nodes, width, square,
                                                     PerBlock(previous), self._root_counts, parent_pos)
        stats = summed_level_stats(parts, True, None)
        self._above = (futures, routing[4], stats)
        return stats

    def least_squares_level(self, sr: RowVector, s: RowVector, q: RowVector, routing, n_nodes: int,
                            width: int) -> LeastSquaresLevel:
        """A tree level's sums for the least-squares learner (:func:`.histogram_regression.least_squares_level`
        per block, one task each, added here in block order)."""
        parts = self.layout.reduce(least_squares_level, self.codes, sr, s, q, routing, n_nodes, width)
        q_nodes = parts[0].q
        for part in parts[1:]:
            q_nodes = q_nodes + part.q
        return LeastSquaresLevel(summed_level_stats([part.r for part in parts], True, None),
                                 summed_level_stats([part.s for part in parts], True, None), q_nodes)

    def tree_node_sums(self, routing, a: RowVector, b: RowVector) -> tuple[np.ndarray, np.ndarray]:
        """Per node of the tree ``routing`` the sums of ``a`` and ``b`` over the examples ending
        there (:func:`.histogram_regression.tree_node_sums` per block, added here in block order)."""
        parts = self.layout.reduce(tree_node_sums, self.codes, routing, a, b)
        sum_a, sum_b = parts[0]
        for part_a, part_b in parts[1:]:
            sum_a, sum_b = sum_a + part_a, sum_b + part_b
        return sum_a, sum_b

    def stump_predictions(self, feature: int, cut: int, sign: float, missing_code: int = -1) -> RowVector:
        """A stump's training predictions, on the workers."""
        return self.layout.vector(stump_predictions, self.codes, feature, cut, sign, missing_code)

    def tree_predictions(self, routing, value) -> RowVector:
        """A tree's training predictions (its routing from the root), on the workers."""
        return self.layout.vector(tree_predictions, self.codes, routing, value)

    def leaf_predictions(self, leaf: RowVector, value) -> RowVector:
        """``value[leaf]`` on the workers: the predictions of examples whose leaves the last level kept."""
        return leaf.map(_take, np.asarray(value, dtype=np.float64))
