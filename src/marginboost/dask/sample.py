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
(the walks resume there, and half the histograms are the parent's minus the other half, as in
memory); the training predictions and the examples' leaves stay on the workers as RowVectors.
The codes are binned on the workers
(:func:`marginboost.weak_learners.dask_histogram.distributed_sample`: the same bins as in memory).
"""
from __future__ import annotations

import numpy as np

from marginboost.dask.rows import PerBlock, RowLayout, RowVector
from marginboost.weak_learners.dask_histogram import summed_level_stats, summed_stump_stats
from marginboost.weak_learners.histogram import (LevelStats, StumpStats, level_stats, stump_predictions, stump_stats,
                                                 tree_predictions)
from marginboost.weak_learners.histogram_regression import LeastSquaresLevel, least_squares_level, tree_node_sums

__all__ = ["WorkerSample"]


def _without_leaf(stats: LevelStats) -> LevelStats:
    return stats._replace(leaf=None)


def _leaf(stats: LevelStats):
    return stats.leaf


def _take(leaf, value):
    return value[leaf]


def _block_counts(codes, width: int) -> np.ndarray:
    """The block's examples per (feature, bin), (p, width) int32: its root's counts."""
    counts = np.zeros((codes.shape[0], width), dtype=np.int32)
    for j in range(codes.shape[0]):
        counts[j] = np.bincount(codes[j], minlength=width)[:width]
    return counts


def _resumed_level(codes, w, routing, n_nodes: int, width: int, with_hist: bool, square: bool, previous: LevelStats,
                   root_counts, parent_pos):
    """:func:`.histogram.level_stats` of a block from its level above (``previous``, of the same
    tree and weights, its nodes at ``parent_pos``): the walks resume at the examples' nodes there,
    and each split node's larger child's histograms are its parent's minus the smaller's."""
    shape = (codes.shape[0], previous.hist.shape[1] * width)
    counts = root_counts if previous.counts is None else previous.counts.reshape(shape)
    return level_stats(codes, w, routing, n_nodes, width, with_hist, previous_leaf=previous.leaf,
                       parent=(previous.hist.reshape(shape), counts, parent_pos), square=square)


class WorkerSample:
    """Codes on the workers, one block per row partition of ``layout`` (module docstring)."""

    def __init__(self, layout: RowLayout, codes: list):
        self.layout, self.codes = layout, PerBlock(codes)
        self._root_counts = None  # per block, its examples per (feature, bin): made at the first tree
        self._above = None  # the tree's last level: its per-block results (futures) and node positions

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
        here); at the last level (no histograms) the examples' leaves, kept on the workers.

        A tree's levels are asked for in order from its root (the root's call starts a tree), as of
        :class:`.histogram.LocalSample`: below the root each block resumes from its results of the
        level above, kept on the workers (:func:`_resumed_level`: the walks one level long, half
        the histograms by subtraction). A worker lost between levels recomputes them from their
        lineage."""
        client = self.layout.client
        if routing[0][0] < 0 or self._above is None:  # the root: a new tree
            full = self.layout.submit(level_stats, self.codes, w, routing, n_nodes, width, with_hist, square=square)
        else:
            above, parent_pos = self._above
            if self._root_counts is None:
                self._root_counts = PerBlock(self.layout.submit(_block_counts, self.codes, width))
            full = self.layout.submit(_resumed_level, self.codes, w, routing, n_nodes, width, with_hist, square,
                                      PerBlock(above), self._root_counts, parent_pos)
        self._above = (full, routing[4]) if with_hist else None
        parts = client.gather([client.submit(_without_leaf, f, pure=False) for f in full])
        leaf = None if with_hist else RowVector(self.layout, [client.submit(_leaf, f, pure=False) for f in full])
        return summed_level_stats(parts, with_hist, leaf)

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
