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
``n_jobs`` spreads the histograms over contiguous groups of features (numba ``prange``); each
feature's histogram is still summed by one thread in example order, and the sweep runs serially in
feature order, so the result is bit-identical to the serial one. The histogram code works on any
row block of the sample: the Dask learners (:mod:`.dask_histogram`) run it per partition, every
node summed directly, and add the blocks.
"""
from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from marginboost.weak_learners.base import EdgeOracle, WeakLearner
from marginboost.weak_learners.binning import Bins, bin_features, check_max_bins, n_threads, run_kernel
from marginboost.weak_learners.shared import shared
from marginboost.weak_learners.stumps import Stump, midpoint
from marginboost.weak_learners.trees import SPLIT_TOL, DecisionTree, keep_splits, node_stats

__all__ = ["HistogramStump", "HistogramTree"]


# ------------------------------------------------------------------ histograms (any row block)


# Rows per block: a block of w (and of the nodes) stays in cache while the features of a group
# sweep it, so w is read once per group rather than once per feature.
_BLOCK_ROWS = 4096


@njit(cache=True, nogil=True)
def _group_hist(codes, w, hist, j0, j1):
    """Add w into the histograms of features j0 .. j1-1, each in example order.

    Two features per pass over the block: their updates are independent, so the processor
    overlaps them (one feature's chain of read-add-write to its bins stalled when consecutive
    examples share a bin); 58 -> 45 us at 7400 x 20 (issue 17). Each bin still sums its
    examples in example order: the same bits."""
    m = codes.shape[1]
    for start in range(0, m, _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, m)
        for j in range(j0, j1 - 1, 2):
            codes_a, codes_b = codes[j], codes[j + 1]
            hist_a, hist_b = hist[j], hist[j + 1]
            for i in range(start, stop):
                hist_a[codes_a[i]] += w[i]
                hist_b[codes_b[i]] += w[i]
        if (j1 - j0) % 2:
            codes_j = codes[j1 - 1]
            hist_j = hist[j1 - 1]
            for i in range(start, stop):
                hist_j[codes_j[i]] += w[i]


@njit(cache=True, nogil=True)
def _group_rows_hist(codes, rows, w_rows, offset_rows, hist, count, j0, j1):
    """Per node, as :func:`_group_hist` (two features a pass), over the examples ``rows`` (increasing),
    with their ``w`` and their node's offset ``node * W`` gathered (:func:`_route_and_sum`), into rows
    ``hist[j]`` of (node, bin) pairs laid out flat, and the examples of each (node, bin) into
    ``count[j]``. The indices are unsigned: with int64 ones each index paid numba's test for a
    negative index, and the pass over all 7400 x 20 examples took 164 us, now 96 (issue 17). Over
    the subtraction's smaller children (a third of the examples, random splits of ringnorm) 36 us,
    where the pass over all examples with a test of each one's node (the kernel before) took 68."""
    n = rows.shape[0]
    for start in range(0, n, _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, n)
        for j in range(j0, j1 - 1, 2):
            codes_a, codes_b = codes[j], codes[j + 1]
            hist_a, hist_b = hist[j], hist[j + 1]
            count_a, count_b = count[j], count[j + 1]
            for r in range(start, stop):
                i = rows[r]
                x = w_rows[r]
                ka = offset_rows[r] + np.uint64(codes_a[i])
                kb = offset_rows[r] + np.uint64(codes_b[i])
                hist_a[ka] += x
                hist_b[kb] += x
                count_a[ka] += 1
                count_b[kb] += 1
        if (j1 - j0) % 2:
            codes_j = codes[j1 - 1]
            hist_j = hist[j1 - 1]
            count_j = count[j1 - 1]
            for r in range(start, stop):
                k = offset_rows[r] + np.uint64(codes_j[rows[r]])
                hist_j[k] += w_rows[r]
                count_j[k] += 1


# Serial and parallel drivers run the same group functions over ``n_groups`` contiguous groups
# of features; a feature's histogram is summed by one thread in example order either way.
@njit(cache=True, nogil=True)
def _root_hist(codes, w, hist, n_groups):
    p = codes.shape[0]
    for g in range(n_groups):
        _group_hist(codes, w, hist, g * p // n_groups, (g + 1) * p // n_groups)


@njit(cache=True, parallel=True)
def _root_hist_parallel(codes, w, hist, n_groups):
    p = codes.shape[0]
    for g in prange(n_groups):
        _group_hist(codes, w, hist, g * p // n_groups, (g + 1) * p // n_groups)


@njit(cache=True, nogil=True)
def _rows_hist(codes, rows, w_rows, offset_rows, hist, count, n_groups):
    p = codes.shape[0]
    for g in range(n_groups):
        _group_rows_hist(codes, rows, w_rows, offset_rows, hist, count, g * p // n_groups, (g + 1) * p // n_groups)


@njit(cache=True, parallel=True)
def _rows_hist_parallel(codes, rows, w_rows, offset_rows, hist, count, n_groups):
    p = codes.shape[0]
    for g in prange(n_groups):
        _group_rows_hist(codes, rows, w_rows, offset_rows, hist, count, g * p // n_groups, (g + 1) * p // n_groups)


@njit(cache=True, nogil=True)
def _sum(w):
    total = 0.0
    for i in range(w.shape[0]):  # in example order, as the exact stump sums
        total += w[i]
    return total


# A level's walks go down by one pass over the examples per internal node (a select the compiler
# vectorises) when there are at most this many nodes to pass; otherwise each example walks alone.
_MAX_NODE_PASSES = 8
# Node sums of one pass keep this many nodes' sums in registers (see _node_sums).
_NODES_PER_PASS = 4


@njit(cache=True, nogil=True)
def _descend(codes, feature, cut, left, right, start):
    """The node each example reaches (``code <= cut`` goes left), walking down from ``start[i]``
    (an ancestor of it; empty: from the root).

    Children have larger indices than their parent (:class:`_BinTree` appends them), so one sweep
    over the internal nodes at or below the lowest start, in index order, takes every example
    down: when node s is passed, every example that goes through s has reached it. Each pass is a
    select over all examples, which the compiler vectorises: 0.5-1 us at m = 7400, where the walk
    one example at a time took 19 us for a single step (issue 17). Beyond ``_MAX_NODE_PASSES``
    internal nodes (deep trees from the root) the per-example walk is cheaper."""
    m = codes.shape[1]
    from_root = start.shape[0] == 0
    lowest = 0 if from_root else start.min()
    n_passes = 0
    for k in range(lowest, feature.shape[0]):
        n_passes += feature[k] >= 0
    leaf = np.zeros(m, dtype=np.int64) if from_root else start.copy()
    if n_passes > _MAX_NODE_PASSES:
        for i in range(m):
            k = leaf[i]
            while feature[k] >= 0:
                k = left[k] if codes[feature[k], i] <= cut[k] else right[k]
            leaf[i] = k
        return leaf
    for k in range(lowest, feature.shape[0]):
        if feature[k] < 0:
            continue
        row, c, lo, hi = codes[feature[k]], cut[k], left[k], right[k]
        for i in range(m):
            leaf[i] = (hi if row[i] > c else lo) if leaf[i] == k else leaf[i]
    return leaf


@njit(cache=True, nogil=True)
def _node_sums(leaf, first, n_nodes, w):
    """:func:`.trees.node_stats` of the ``n_nodes <= 2 * _NODES_PER_PASS`` nodes ``first,
    first + 1, ...``, example i in node ``leaf[i]`` (outside them: in none): per node ``S(N)``,
    ``sum |w_i|``, some ``w_i > 0``, some ``w_i < 0``, each sum in example order, so the same bits.

    Up to ``_NODES_PER_PASS`` nodes a pass, their sums in registers: every example adds ``w_i`` times
    1 or 0 to each (``x + (+-0.0)`` is ``x``: the sums start at +0 and a sum that cancels is +0,
    never -0). Summed in memory, ``total[n] += w_i`` waits on the store of the previous example's
    sum to the same node: 14 us for two nodes at m = 7400, in registers 9 us for up to four (issue
    17). The 0/1 factors are arithmetic, not selects: ``x if n == 0 else 0.0`` compiled to a branch
    on the example's node, which no predictor guesses on a new tree: 12 us with the inputs of the
    previous call, 54 us on new ones (four nodes, random), 19 us for the products either way."""
    total = np.zeros(n_nodes)
    mass = np.zeros(n_nodes)
    has_pos = np.zeros(n_nodes, dtype=np.bool_)
    has_neg = np.zeros(n_nodes, dtype=np.bool_)
    for g in range(0, n_nodes, _NODES_PER_PASS):
        t0 = t1 = t2 = t3 = 0.0
        a0 = a1 = a2 = a3 = 0.0
        pos = np.int64(0)  # bit j: some w_i > 0 in node g + j
        neg = np.int64(0)
        limit = min(_NODES_PER_PASS, n_nodes - g)  # nodes of this pass
        for i in range(w.shape[0]):
            n = leaf[i] - first - g
            x = w[i]
            ax = abs(x)
            e0 = np.float64(n == 0)
            e1 = np.float64(n == 1)
            e2 = np.float64(n == 2)
            e3 = np.float64(n == 3)
            t0 += x * e0
            t1 += x * e1
            t2 += x * e2
            t3 += x * e3
            a0 += ax * e0
            a1 += ax * e1
            a2 += ax * e2
            a3 += ax * e3
            bit = np.int64((n >= 0) & (n < limit)) << (n & 63)
            pos |= bit * np.int64(x > 0.0)
            neg |= bit * np.int64(x < 0.0)
        sums = ((t0, a0), (t1, a1), (t2, a2), (t3, a3))
        for j in range(limit):
            total[g + j], mass[g + j] = sums[j]
            has_pos[g + j] = (pos >> j) & 1
            has_neg[g + j] = (neg >> j) & 1
    return total, mass, has_pos, has_neg


@njit(cache=True, nogil=True)
def _route_and_sum(codes, w, feature, cut, left, right, active_pos, n_nodes, width, start, summed):
    """Each example's node (:func:`_descend` from ``start``), per node of the level
    :func:`_node_sums`, and the examples whose histograms are summed: those at positions ``k`` of
    the level with ``summed[k + 1]`` 1 (``summed``: a first 0, for examples in no node of the level,
    then one entry per position; empty: none), as ``(rows, offsets, w)``: the examples in increasing
    order (uint64), their node's offset ``k * width`` in the level's histograms (uint64) and their
    ``w``, compacted without a branch (:func:`_group_rows_hist` takes them).

    ``start``: the node of each example one level up in the same tree, from which its walk
    resumes; empty: from the root. The nodes of a level are consecutive indices in a tree grown by
    :class:`_BinTree` (children are appended), so an example's position in the level is its node
    minus the first one's, with no lookup; levels of more than ``2 * _NODES_PER_PASS`` nodes, or
    not consecutive, are summed in memory by :func:`.trees.node_stats`. The one-example-at-a-time
    walk with the sums in memory took 34 us a level at 7400 x 20, depth 2; now about 12 (issue 17)."""
    leaf = _descend(codes, feature, cut, left, right, start)
    m = leaf.shape[0]
    first = -1
    consecutive = True
    for k in range(active_pos.shape[0]):
        if active_pos[k] >= 0:
            first = k - active_pos[k] if first < 0 else first
            consecutive &= active_pos[k] == k - first
    if consecutive and n_nodes <= 2 * _NODES_PER_PASS:
        sums = _node_sums(leaf, first, n_nodes, w)
    else:  # deep levels, or nodes not consecutive: sums in memory
        position = np.empty(m, dtype=np.int64)
        for i in range(m):
            position[i] = active_pos[leaf[i]]
        sums = node_stats(w, position, n_nodes)
    rows = np.empty(m if summed.shape[0] else 0, dtype=np.uint64)
    offset_rows = np.empty(rows.shape[0], dtype=np.uint64)
    w_rows = np.empty(rows.shape[0])
    n = 0
    for i in range(rows.shape[0]):
        k = active_pos[np.uint64(leaf[i])]  # unsigned indices: no test for a negative one
        rows[n] = i
        offset_rows[n] = k * width
        w_rows[n] = w[i]
        n += summed[np.uint64(k + 1)]  # k = -1 (in no node of the level): the first entry, 0
    return (leaf, rows[:n], offset_rows[:n], w_rows[:n]) + sums


@njit(cache=True, nogil=True)
def _sibling_plan(feature, cut, left, right, active_pos, parent_pos, parent_count, width):
    """The subtraction's plan (:func:`level_stats`): per node ``k`` split one level up (at position
    ``parent_pos[k]`` there), the row ``(that position, position of its child with fewer examples,
    position of the other)`` (the left child on a tie), the counts from the parent's histogram of its
    own feature; and ``summed`` for :func:`_route_and_sum`: a 0, then per position of this level 1
    where its histograms are summed (the smaller children), 0 elsewhere."""
    n_parents = 0
    for k in range(parent_pos.shape[0]):
        n_parents += (parent_pos[k] >= 0) & (feature[k] >= 0)
    plan = np.empty((n_parents, 3), dtype=np.int64)
    n_positions = 0
    for k in range(active_pos.shape[0]):
        n_positions += active_pos[k] >= 0
    summed = np.zeros(n_positions + 1, dtype=np.int64)
    r = 0
    for k in range(parent_pos.shape[0]):
        if parent_pos[k] < 0 or feature[k] < 0:
            continue
        base = parent_pos[k] * width
        row = parent_count[feature[k]]
        n_left = 0
        n_all = 0
        for b in range(width):
            n_all += row[base + b]
            n_left += row[base + b] * (b <= cut[k])
        small, large = active_pos[left[k]], active_pos[right[k]]
        if 2 * n_left > n_all:
            small, large = large, small
        plan[r, 0], plan[r, 1], plan[r, 2] = parent_pos[k], small, large
        summed[small + 1] = 1
        r += 1
    return plan, summed


@njit(cache=True, nogil=True)
def _complete_siblings(hist, count, parent_hist, parent_count, plan, width):
    """The larger children's histograms and counts: the parent's minus the smaller sibling's."""
    for j in range(hist.shape[0]):
        h, c, ph, pc = hist[j], count[j], parent_hist[j], parent_count[j]
        for r in range(plan.shape[0]):
            parent, small, large = np.uint64(plan[r, 0] * width), np.uint64(plan[r, 1] * width), \
                np.uint64(plan[r, 2] * width)
            for b in range(np.uint64(width)):
                h[large + b] = ph[parent + b] - h[small + b]
                c[large + b] = pc[parent + b] - c[small + b]


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


@njit(cache=True, nogil=True)
def _root_sums(w):
    """:func:`_route_and_sum`'s node sums for the root alone (no routing, no per-example output)."""
    total = 0.0
    mass = 0.0
    has_pos = False
    has_neg = False
    for i in range(w.shape[0]):
        total += w[i]
        mass += abs(w[i])
        has_pos |= w[i] > 0.0
        has_neg |= w[i] < 0.0
    return np.array([total]), np.array([mass]), np.array([has_pos]), np.array([has_neg])


class StumpStats(NamedTuple):
    total: float  # T = sum_i w_i
    hist: np.ndarray  # (p, W): H_j(b)


class LevelStats(NamedTuple):
    total: np.ndarray  # (nodes,) S(N)
    mass: np.ndarray  # (nodes,) sum |w_i|
    has_pos: np.ndarray  # (nodes,) some w_i > 0
    has_neg: np.ndarray  # (nodes,) some w_i < 0
    hist: np.ndarray | None  # (p, nodes, W), None on the last level
    counts: np.ndarray | None  # (p, nodes, W) int32: the node's examples in the bin; None at the
    # root, where they are ``bins.counts``
    leaf: np.ndarray | None  # (m,) the tree node of each example; None at the root


_FROM_ROOT = np.empty(0, dtype=np.int64)  # _route_and_sum's start: every walk from the root
_NONE_SUMMED = np.empty(0, dtype=np.int64)  # _route_and_sum's summed: no histograms (the last level)


def stump_stats(codes, w, width: int, threads: int = 1, workspace: dict | None = None) -> StumpStats:
    return StumpStats(_sum(w), _all_examples_hist(codes, w, width, threads, workspace))


def _all_examples_hist(codes, w, width: int, threads: int, workspace: dict | None) -> np.ndarray:
    """The (p, W) histograms of w over all examples (the root's, the stump's)."""
    hist = _zeros(workspace, "root", (codes.shape[0], width), np.float64)
    run_kernel(_root_hist, _root_hist_parallel, threads, codes, w, hist, threads)
    return hist


def level_stats(codes, w, routing, n_nodes: int, width: int, with_hist: bool, threads: int = 1,
                workspace: dict | None = None, previous_leaf: np.ndarray | None = None,
                parent: tuple | None = None, slot: int = 0) -> LevelStats:
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
    summed."""
    feature, cut, left, right, active_pos = routing
    p = codes.shape[0]
    if feature[0] < 0 and with_hist:  # the root: every example in node 0, the bins' counts known from binning
        hist = _all_examples_hist(codes, w, width, threads, workspace)
        return LevelStats(*_root_sums(w), hist[:, None, :], None, None)
    start = _FROM_ROOT if previous_leaf is None else previous_leaf
    if not with_hist:
        summed = _NONE_SUMMED
    elif parent is None:
        summed = np.ones(n_nodes + 1, dtype=np.int64)
        summed[0] = 0
    else:
        parent_hist, parent_counts, parent_pos = parent
        plan, summed = _sibling_plan(feature, cut, left, right, active_pos, parent_pos, parent_counts, width)
    leaf, rows, offset_rows, w_rows, total, mass, has_pos, has_neg = _route_and_sum(
        codes, w, feature, cut, left, right, active_pos, n_nodes, width, start, summed)
    if not with_hist:
        return LevelStats(total, mass, has_pos, has_neg, None, None, leaf)
    hist = _zeros(workspace, f"hist{slot}", (p, n_nodes * width), np.float64)
    counts = _zeros(workspace, f"counts{slot}", (p, n_nodes * width), np.int32)
    run_kernel(_rows_hist, _rows_hist_parallel, threads, codes, rows, w_rows, offset_rows, hist, counts, threads)
    if parent is not None:
        _complete_siblings(hist, counts, parent_hist, parent_counts, plan, width)
    return LevelStats(total, mass, has_pos, has_neg, hist.reshape(p, n_nodes, width),
                      counts.reshape(p, n_nodes, width), leaf)


def stump_predictions(codes, feature: int, cut: int, sign: float) -> np.ndarray:
    """h(x) = sign if code > cut else -sign; cut -1 is the constant ``sign``."""
    if cut < 0:
        return np.full(codes.shape[1], sign)
    return np.where(codes[feature] > cut, sign, -sign)


def tree_predictions(codes, routing, value) -> np.ndarray:
    feature, cut, left, right, _ = routing
    return value[_descend(codes, feature, cut, left, right, _FROM_ROOT)]


# ------------------------------------------------------------------ sweeps (on the summed histograms)


@njit(cache=True)
def _best_bin_stump(hist, counts, n_bins, total):
    """(feature, last bin left a, first bin right c, sign, edge); a = -1 for a constant."""
    best_edge = abs(total)
    best_feature, best_a, best_c = 0, -1, -1
    best_sign = 1.0 if total >= 0.0 else -1.0
    for j in range(hist.shape[0]):
        left = 0.0
        prev = -1
        for b in range(n_bins[j]):
            if counts[j, b] == 0:
                continue
            if prev >= 0:
                v = total - 2.0 * left
                if abs(v) > best_edge:
                    best_edge = abs(v)
                    best_feature, best_a, best_c = j, prev, b
                    best_sign = 1.0 if v >= 0.0 else -1.0
            left += hist[j, b]
            prev = b
    return best_feature, best_a, best_c, best_sign, best_edge


@njit(cache=True)
def _best_bin_splits(hist, counts, n_bins, node_total, node_mass, upper, lower):
    """Per node: best (feature, a, c, |L| + |R|) and its raw threshold ``midpoint(upper[f, a],
    lower[f, c])`` (:func:`_raw_threshold`, here where a call of it per node from Python cost about
    1.5 us); feature -1 (threshold 0) where the node has no cut."""
    p, n_nodes, _ = hist.shape
    best_feature = np.full(n_nodes, -1, dtype=np.int64)
    best_a = np.zeros(n_nodes, dtype=np.int64)
    best_c = np.zeros(n_nodes, dtype=np.int64)
    best_score = np.full(n_nodes, -1.0)
    for n in range(n_nodes):
        for j in range(p):
            left = 0.0
            prev = -1
            for b in range(n_bins[j]):
                if counts[j, n, b] == 0:
                    continue
                if prev >= 0:
                    score = abs(left) + abs(node_total[n] - left)
                    if score > best_score[n] + SPLIT_TOL * node_mass[n]:
                        best_score[n] = score
                        best_feature[n] = j
                        best_a[n] = prev
                        best_c[n] = b
                left += hist[j, n, b]
                prev = b
    threshold = np.zeros(n_nodes)
    for n in range(n_nodes):
        if best_feature[n] >= 0:
            threshold[n] = midpoint(upper[best_feature[n], best_a[n]], lower[best_feature[n], best_c[n]])
    return best_feature, best_a, best_c, best_score, threshold


class _BinTree:
    """A tree grown level by level in flat arrays, as :class:`.trees.LevelGrower` lays it out
    (children appended left then right, level by level), with each split kept twice: as the
    last bin sent left (``cut``, for routing codes) and as a raw ``threshold``."""

    def __init__(self):
        self.feature, self.cut, self.threshold = [-1], [0], [0.0]
        self.left, self.right, self.value = [-1], [-1], [0.0]
        self.active = [0]

    def routing(self):
        """(feature, cut, left, right, active_pos) arrays (the rows of one array, built by one
        call: 1.7 us where five conversions took 2.9, three times a tree); ``active_pos[k]`` is the
        position of node k in this level, -1 for nodes not in it."""
        active_pos = [-1] * len(self.feature)
        for position, node in enumerate(self.active):
            active_pos[node] = position
        return tuple(np.array([self.feature, self.cut, self.left, self.right, active_pos], dtype=np.int64))

    def split(self, keep, feature, cut, threshold) -> None:
        next_active = []
        for n, nid in enumerate(self.active):
            if not keep[n]:
                continue
            self.feature[nid], self.cut[nid], self.threshold[nid] = int(feature[n]), int(cut[n]), float(threshold[n])
            for side in (self.left, self.right):
                side[nid] = len(self.feature)
                next_active.append(len(self.feature))
                self.feature.append(-1)
                self.cut.append(0)
                self.threshold.append(0.0)
                self.left.append(-1)
                self.right.append(-1)
                self.value.append(0.0)
        self.active = next_active

    def hypothesis(self, n_features: int) -> DecisionTree:
        return DecisionTree(
            feature=np.asarray(self.feature, dtype=np.int64),
            threshold=np.asarray(self.threshold, dtype=np.float64),
            left=np.asarray(self.left, dtype=np.int64),
            right=np.asarray(self.right, dtype=np.int64),
            value=np.asarray(self.value, dtype=np.float64),
            n_features=n_features,
        )


def _raw_threshold(bins: Bins, feature: int, a: int, c: int) -> float:
    return float(midpoint(bins.upper[feature, a], bins.lower[feature, c]))


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

    def weights(self, w: np.ndarray) -> np.ndarray:
        """``w`` in the form the stats methods take (a Dask sample cuts it into partitions)."""
        return w

    def stump_stats(self, w, width: int) -> StumpStats:
        return stump_stats(self.codes, w, width, self.threads, self._workspace)

    def level_stats(self, w, routing, n_nodes: int, width: int, with_hist: bool) -> LevelStats:
        """As :func:`level_stats`; a tree's levels are asked for in order from its root, so each
        level's walks resume at the nodes of the level before (the root's call starts a tree), and
        with ``counts`` its histograms are the level before's minus the smaller nodes'."""
        if routing[0][0] < 0:  # the root: a new tree
            self._leaf, self._parent, self._depth = None, None, 0
        stats = level_stats(self.codes, w, routing, n_nodes, width, with_hist, self.threads, self._workspace,
                            self._leaf, self._parent, self._depth % 2)
        self._leaf = stats.leaf
        self._depth += 1
        if with_hist and self._root_counts is not None:
            shape = (self.codes.shape[0], n_nodes * width)
            counts = self._root_counts if stats.counts is None else stats.counts.reshape(shape)
            self._parent = (stats.hist.reshape(shape), counts, routing[4])
        return stats

    def stump_predictions(self, feature: int, cut: int, sign: float) -> np.ndarray:
        return stump_predictions(self.codes, feature, cut, sign)

    def tree_predictions(self, routing, value) -> np.ndarray:
        return tree_predictions(self.codes, routing, value)


class HistogramStumpOracle(EdgeOracle):
    """Best stump over the bins of ``sample`` (a :class:`LocalSample` or a Dask one)."""

    def __init__(self, sample, bins: Bins, y: np.ndarray):
        self._sample, self._bins = sample, bins
        self._y = np.asarray(y, dtype=np.float64)

    def __call__(self, d: np.ndarray) -> tuple[Stump, np.ndarray]:
        w = self._sample.weights(np.asarray(d, dtype=np.float64) * self._y)
        total, hist = self._sample.stump_stats(w, self._bins.width)
        feature, a, c, sign, _ = _best_bin_stump(hist, self._bins.counts, self._bins.n_bins, total)
        if a < 0:
            h = Stump(0, -np.inf, float(sign))
        else:
            h = Stump(int(feature), _raw_threshold(self._bins, feature, a, c), float(sign))
        return h, self._sample.stump_predictions(int(feature), int(a), float(sign))


class HistogramTreeOracle(EdgeOracle):
    """Greedy edge tree over the bins of ``sample``, grown as :class:`.trees.EdgeTree` grows."""

    def __init__(self, sample, bins: Bins, y: np.ndarray, max_depth: int):
        self._sample, self._bins, self._max_depth = sample, bins, max_depth
        self._y = np.asarray(y, dtype=np.float64)
        self._root_counts = np.ascontiguousarray(bins.counts, dtype=np.int32)[:, None, :]

    def __call__(self, d: np.ndarray) -> tuple[DecisionTree, np.ndarray]:
        w = self._sample.weights(np.asarray(d, dtype=np.float64) * self._y)
        bins = self._bins
        tree = _BinTree()
        for depth in range(self._max_depth + 1):
            k_nodes = len(tree.active)
            last = depth == self._max_depth
            stats = self._sample.level_stats(w, tree.routing(), k_nodes, bins.width, not last)
            for n, nid in enumerate(tree.active):
                tree.value[nid] = 1.0 if stats.total[n] >= 0.0 else -1.0
            if last:
                break
            counts = self._root_counts if stats.counts is None else stats.counts
            feat, a, c, score, thr = _best_bin_splits(stats.hist, counts, bins.n_bins, stats.total, stats.mass,
                                                      bins.upper, bins.lower)
            keep = keep_splits(feat, score, stats.total, stats.mass, stats.has_pos & stats.has_neg,
                               depth == self._max_depth - 1)
            if not keep.any():
                break
            tree.split(keep, feat, a, thr)
        value = np.asarray(tree.value, dtype=np.float64)
        # Grown to the last level, the last pass has already routed every example to its leaf.
        pred = value[stats.leaf] if last else self._sample.tree_predictions(tree.routing(), value)
        return tree.hypothesis(bins.thresholds.shape[0]), pred


def check_max_depth(max_depth) -> int:
    if isinstance(max_depth, bool) or not isinstance(max_depth, numbers.Real) or max_depth != int(max_depth) \
            or max_depth < 1:
        raise ValueError(f"max_depth must be an integer >= 1, got {max_depth!r}")
    return int(max_depth)


class HistogramStump(WeakLearner):
    """Max-edge decision stump over binned features (exact when no feature has more than
    ``max_bins`` distinct values). ``n_jobs``: numba threads over features (None or 1: serial;
    the result does not depend on it)."""

    def __init__(self, max_bins: int = 255, n_jobs=None):
        self.max_bins = max_bins
        self.n_jobs = n_jobs

    def prepare(self, X, y: np.ndarray) -> EdgeOracle:
        threads = n_threads(self.n_jobs)
        binned = _bin_once(X, check_max_bins(self.max_bins), self.n_jobs)
        return HistogramStumpOracle(LocalSample(binned.codes, threads), binned.bins, _labels(y, binned))

    def __repr__(self) -> str:
        return f"HistogramStump(max_bins={self.max_bins!r}, n_jobs={self.n_jobs!r})"


class HistogramTree(WeakLearner):
    """Depth-limited edge tree over binned features, leaves in {-1, +1} (see the module doc)."""

    def __init__(self, max_depth: int = 2, max_bins: int = 255, n_jobs=None):
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.n_jobs = n_jobs

    def prepare(self, X, y: np.ndarray) -> EdgeOracle:
        max_depth = check_max_depth(self.max_depth)
        threads = n_threads(self.n_jobs)
        binned = _bin_once(X, check_max_bins(self.max_bins), self.n_jobs)
        sample = LocalSample(binned.codes, threads, binned.bins.counts)
        return HistogramTreeOracle(sample, binned.bins, _labels(y, binned), max_depth)

    def __repr__(self) -> str:
        return f"HistogramTree(max_depth={self.max_depth!r}, max_bins={self.max_bins!r}, n_jobs={self.n_jobs!r})"


def _bin_once(X, max_bins: int, n_jobs):
    """``bin_features(X, max_bins)``, done once per X for all the fits inside
    :func:`.shared.share_features` (one-vs-rest); ``n_jobs`` does not change the bins."""
    return shared(X, ("bins", max_bins), lambda: bin_features(X, max_bins, n_jobs=n_jobs))


def _labels(y, binned) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (binned.codes.shape[1],):
        raise ValueError(f"y must have shape ({binned.codes.shape[1]},), got {y.shape}")
    return y
