"""The binned training sample with every per-example vector on the workers.

:class:`WorkerSample` is the sample interface of :mod:`marginboost.weak_learners.histogram`
(that of :class:`~marginboost.weak_learners.histogram.LocalSample`), so the histogram oracles
(:class:`~marginboost.weak_learners.histogram.HistogramStumpOracle`,
:class:`~marginboost.weak_learners.histogram.HistogramTreeOracle`) pick their hypotheses with
the in-memory code, for weights ``w = d * y`` that are :class:`~marginboost.dask.rows.RowVector`
objects; and the sample interface of the least-squares histogram learners
(:class:`~marginboost.weak_learners.histogram_regression.HistogramLeastSquaresOracle`: the
histograms of ``s r`` and ``s`` of a level in one task per block). Per tree level (once for a stump) one task per block sums the block's node totals and
histograms (O(p x bins) each, added here in block order); the training predictions and the
examples' leaves stay on the workers as RowVectors. The codes are binned on the workers
(:func:`marginboost.weak_learners.dask_histogram.distributed_sample`: the same bins as in
memory).
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


class WorkerSample:
    """Codes on the workers, one block per row partition of ``layout`` (module docstring)."""

    def __init__(self, layout: RowLayout, codes: list):
        self.layout, self.codes = layout, PerBlock(codes)

    def weights(self, w: RowVector) -> RowVector:
        """``w`` as the stats methods take it: as it is (its blocks are the codes' partitions)."""
        return w

    def stump_stats(self, w: RowVector, width: int) -> StumpStats:
        """The stump histograms of ``w`` (:func:`.histogram.stump_stats` per block, added here)."""
        return summed_stump_stats(self.layout.reduce(stump_stats, self.codes, w, width))

    def level_stats(self, w: RowVector, routing, n_nodes: int, width: int, with_hist: bool,
                    square: bool = False) -> LevelStats:
        """A tree level's node sums and histograms (:func:`.histogram.level_stats` per block, added
        here); at the last level (no histograms) the examples' leaves, kept on the workers."""
        client = self.layout.client
        full = self.layout.submit(level_stats, self.codes, w, routing, n_nodes, width, with_hist, square=square)
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
