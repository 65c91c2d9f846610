"""Histogram weak learners over a Dask array partitioned by rows: the sample may live on a cluster.

The oracle is the one of :mod:`.histogram` (paper 000, Mitsuboshi et al., "Boosting as
Frank-Wolfe", sections 2 and 4.1: a hypothesis of large edge ``sum_i d_i y_i h(x_i)``); only the
sample it reads is distributed. The booster loop is unchanged: it hands a numpy ``d`` to the
oracle and gets back the hypothesis (an ordinary :class:`.Stump` or :class:`.DecisionTree`) and
its training predictions as a numpy vector.

What runs where (``y`` and ``d`` stay on the client; the codes stay on the workers):

* ``prepare(X, y)`` bins once. With ``thresholds=None`` the bins are exactly those of
  :func:`.binning.bin_features` on the whole of X: every partition sends, per feature, its
  distinct values and their counts; one task per feature merges them and fits the thresholds
  with the same function (:func:`.binning.feature_thresholds`). That task holds all distinct
  values of its feature (up to m of them), so for very large samples give ``thresholds``
  instead, e.g. ``bin_thresholds(X_sample)`` fitted on a sample that fits in memory: the codes
  then follow those thresholds, bins the data leave empty are never cut, and the raw thresholds
  of the cuts still come from the training values (per-bin minima and maxima over all rows).
  Each partition is then coded (:func:`.binning.encode`), its codes persisted on the workers.
  Missing values (NaN) are left out of the thresholds and coded to their own bin, as in memory
  (:mod:`.binning`); a feature has that bin when some partition has a NaN in it.
  Partitions of unknown length (e.g. after boolean indexing) are fine: the lengths come back
  with the coding pass, so X is not evaluated an extra time.
* Each round ``w = d * y`` is cut into the partitions' row ranges; per tree level (once for a
  stump) one task per partition, sent with its piece of ``w``, computes that block's node sums
  and histograms (:func:`.histogram.level_stats`, :func:`.histogram.stump_stats`), the client
  adds the blocks in partition order and picks the cuts with the in-memory learner's own code
  (:class:`.histogram.HistogramTreeOracle`, :class:`.histogram.HistogramStumpOracle`). The
  training predictions come from the codes: a stump's from one more task per partition; a
  tree's from the examples' leaves, which the last level's tasks return with its node sums.
  So a round costs 2 scheduler round trips for a stump and ``max_depth + 1`` for a tree, and
  ships ``w`` with each level's tasks: persisting it on the workers once per round (one more
  graph submission) measured slower with local workers.

The sums are deterministic (each block in example order, blocks in partition order) but are
not the in-memory learner's single pass: cuts that tie up to rounding may break differently;
when the sums are exact (e.g. ``d`` of dyadic entries) the hypotheses are identical.

Scheduler: whatever Dask uses by default. On a cluster::

    from distributed import Client
    from marginboost.soft_margin import algorithms
    client = Client("tcp://scheduler:8786")           # now Dask's default scheduler
    X = dask.array.from_zarr("features.zarr")          # (m, p), chunked by rows, read by the workers
    oracle = DaskHistogramTree(max_depth=2).prepare(X, y)  # y: numpy array in {-1, +1}
    result = algorithms.run(algorithms.mlpboost(), oracle, y, nu=0.1 * len(y), eps=0.01)

``MLPBoostClassifier(weak_learner=DaskHistogramTree()).fit(X, y)`` works too, but the
estimators' input validation (scikit-learn's ``validate_data``) first computes a Dask X into one
float64 numpy array on the client, which the learner then partitions again (``"auto"`` row
chunks); so the data must fit on the client there. For a fit with X, y and every per-example
vector left on the workers, use the estimators of :mod:`marginboost.dask` (they bin with
:func:`distributed_sample` and keep the codes in a :class:`marginboost.dask.sample.WorkerSample`).

Locally, ``Client(processes=False, n_workers=2, threads_per_worker=1)`` (the kernels release the
GIL) or ``dask.config.set(scheduler="synchronous")``. The workers run the serial kernels: Dask
supplies the parallelism, one task per partition, so have at least as many partitions as
worker threads. Needs ``pip install 'marginboost[dask]'``.
"""
from __future__ import annotations

import dask
import dask.array as da
import numpy as np

from marginboost.weak_learners.base import EdgeOracle, WeakLearner
from marginboost.weak_learners.missing_side import MISSING_Z, check_missing_z, missing_z_repr
from marginboost.weak_learners.binning import (Bins, as_2d_numeric, check_max_bins, distinct_counts, encode,
                                               feature_thresholds, pad_thresholds, trim_bins)
from marginboost.weak_learners.histogram import (
    HistogramStumpOracle,
    HistogramTreeOracle,
    LevelStats,
    LocalSample,
    StumpStats,
    check_max_depth,
    level_stats,
    stump_predictions,
    stump_stats,
    tree_predictions,
)

__all__ = ["DaskHistogramStump", "DaskHistogramTree"]


def _distinct_per_feature(block: np.ndarray) -> list:
    return [distinct_counts(block[:, j]) for j in range(block.shape[1])]


def _merged_thresholds(parts: list, max_bins: int, feature: int) -> np.ndarray:
    """Thresholds of one feature from the (values, counts) of every partition: the merged pair
    is the whole column's ``np.unique(..., return_counts=True)``."""
    values = np.concatenate([v for v, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    order = np.argsort(values, kind="stable")
    values, counts = values[order], counts[order]
    new_value = np.ones(values.shape[0], dtype=bool)  # (none: the feature is missing in every row)
    new_value[1:] = values[1:] != values[:-1]
    start = np.flatnonzero(new_value)
    return feature_thresholds(values[start], np.add.reduceat(counts, start), max_bins, feature)


def _row_partitioned(X) -> da.Array:
    """X as a 2-d real Dask array with all columns in one chunk (numpy input is wrapped)."""
    if not isinstance(X, da.Array):
        # Shipped to the workers once, not once per pass over it.
        return da.from_array(as_2d_numeric(X), chunks=("auto", -1)).persist()
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
    if X.dtype == np.bool_:
        X = X.astype(np.uint8)
    elif not (X.dtype.kind in "iu" or X.dtype in (np.float32, np.float64)):
        X = X.astype(np.float64)
    return X.rechunk({1: -1}) if X.numblocks[1] > 1 else X


class DaskSample:
    """Codes persisted on the workers, one block per row partition; ``bounds[k]:bounds[k+1]``
    are the rows of block k. Same interface as :class:`.histogram.LocalSample`."""

    def __init__(self, codes: list, bounds: np.ndarray):
        self.codes, self.bounds = codes, bounds

    def weights(self, w: np.ndarray) -> list:
        return [w[a:b] for a, b in zip(self.bounds[:-1], self.bounds[1:])]

    def _map(self, func, w, *args, **kwargs) -> list:
        if w is None:
            return list(dask.compute(*[dask.delayed(func)(c, *args, **kwargs) for c in self.codes]))
        return list(dask.compute(*[dask.delayed(func)(c, wk, *args, **kwargs) for c, wk in zip(self.codes, w)]))

    def stump_stats(self, w, width: int) -> StumpStats:
        return summed_stump_stats(self._map(stump_stats, w, width))

    def level_stats(self, w, routing, n_nodes: int, width: int, with_hist: bool, square: bool = False) -> LevelStats:
        parts = self._map(level_stats, w, routing, n_nodes, width, with_hist, square=square)
        leaf = None if with_hist else np.concatenate([part.leaf for part in parts])
        return summed_level_stats(parts, with_hist, leaf)

    def stump_predictions(self, feature: int, cut: int, sign: float, missing_code: int = -1) -> np.ndarray:
        return np.concatenate(self._map(stump_predictions, None, feature, cut, sign, missing_code))

    def tree_predictions(self, routing, value) -> np.ndarray:
        return np.concatenate(self._map(tree_predictions, None, routing, value))

    leaf_predictions = LocalSample.leaf_predictions


def summed_stump_stats(parts) -> StumpStats:
    """The stump statistics of the whole sample from those of its blocks, added in block order."""
    total, hist, square = parts[0]
    for part in parts[1:]:
        total, hist, square = total + part.total, hist + part.hist, square + part.square
    return StumpStats(total, hist, square)


def summed_level_stats(parts, with_hist: bool, leaf) -> LevelStats:
    """A tree level's statistics of the whole sample from those of its blocks, added in block
    order, with the examples' nodes ``leaf`` (however the caller keeps them)."""
    total, mass, has_pos, has_neg, hist, counts, _, square = parts[0]
    for part in parts[1:]:
        total, mass = total + part.total, mass + part.mass
        has_pos, has_neg = has_pos | part.has_pos, has_neg | part.has_neg
        square = None if square is None else square + part.square
        if with_hist:
            hist = hist + part.hist
            counts = None if counts is None else counts + part.counts
    return LevelStats(total, mass, has_pos, has_neg, hist, counts, leaf, square)


def _block_summary(encoded: tuple) -> tuple:
    codes, lower, upper, counts = encoded
    return lower, upper, counts, codes.shape[1]


def distributed_sample(X, max_bins: int, thresholds=None) -> tuple[DaskSample, Bins]:
    """Bin X (a row-partitioned Dask array, or anything :func:`numpy.asarray` takes) on the
    workers: the persisted codes and the bins (see the module docstring)."""
    X = _row_partitioned(X)
    blocks = list(X.to_delayed().ravel())
    p = X.shape[1]
    if thresholds is None:
        distinct = [dask.delayed(_distinct_per_feature)(b) for b in blocks]
        merges = [dask.delayed(_merged_thresholds)([part[j] for part in distinct], max_bins, j) for j in range(p)]
        thresholds = dask.compute(*merges)
    padded, n_bins = pad_thresholds(thresholds, p, max_bins)
    encoded = dask.persist(*[dask.delayed(encode)(b, padded, n_bins) for b in blocks])
    codes = list(dask.persist(*[e[0] for e in encoded]))
    summaries = dask.compute(*[dask.delayed(_block_summary)(e) for e in encoded])
    bounds = np.cumsum([0] + [s[3] for s in summaries], dtype=np.int64)
    if bounds[-1] < 1:
        raise ValueError("X must have at least one row")
    bins = trim_bins(padded, np.minimum.reduce([s[0] for s in summaries]), np.maximum.reduce([s[1] for s in summaries]),
                     np.sum([s[2] for s in summaries], axis=0), n_bins)
    return DaskSample(codes, bounds), bins


def _labels(y, sample: DaskSample) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)  # computes a Dask y: the labels live on the client
    m = int(sample.bounds[-1])
    if y.shape != (m,):
        raise ValueError(f"y must have shape ({m},), got {y.shape}")
    return y


class DaskHistogramStump(WeakLearner):
    """:class:`.histogram.HistogramStump` over a row-partitioned Dask array (module docstring).

    ``thresholds``: None for the bins of :func:`.binning.bin_features` on all of X, or one
    increasing array per feature (e.g. :func:`.binning.bin_thresholds` of a sample). ``missing_z``:
    as :class:`.histogram.HistogramStump`'s.
    """

    allow_nan = True

    def __init__(self, max_bins: int = 255, thresholds=None, missing_z: float = MISSING_Z):
        self.max_bins = max_bins
        self.thresholds = thresholds
        self.missing_z = missing_z

    def prepare(self, X, y) -> EdgeOracle:
        z = check_missing_z(self.missing_z)
        sample, bins = distributed_sample(X, check_max_bins(self.max_bins), self.thresholds)
        return HistogramStumpOracle(sample, bins, _labels(y, sample), z)

    def __repr__(self) -> str:
        given = "None" if self.thresholds is None else "[...]"
        return f"DaskHistogramStump(max_bins={self.max_bins!r}, thresholds={given}{missing_z_repr(self.missing_z)})"


class DaskHistogramTree(WeakLearner):
    """:class:`.histogram.HistogramTree` over a row-partitioned Dask array (module docstring)."""

    allow_nan = True

    def __init__(self, max_depth: int = 2, max_bins: int = 255, thresholds=None, missing_z: float = MISSING_Z):
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.thresholds = thresholds
        self.missing_z = missing_z

    def prepare(self, X, y) -> EdgeOracle:
        max_depth = check_max_depth(self.max_depth)
        z = check_missing_z(self.missing_z)
        sample, bins = distributed_sample(X, check_max_bins(self.max_bins), self.thresholds)
        return HistogramTreeOracle(sample, bins, _labels(y, sample), max_depth, z)

    def __repr__(self) -> str:
        given = "None" if self.thresholds is None else "[...]"
        return (f"DaskHistogramTree(max_depth={self.max_depth!r}, max_bins={self.max_bins!r}, thresholds={given}"
                f"{missing_z_repr(self.missing_z)})")
