"""Edge-greedy decision trees with leaves in {-1, +1}.

Given a distribution ``d``, the oracle grows a tree that greedily increases the edge
(paper 000, Mitsuboshi et al., "Boosting as Frank-Wolfe", section 2; its experiments in
section 5 use depth-2 trees as the weak learner):

    edge(h; d) = sum_i d_i y_i h(x_i).

With ``w = d * y`` and ``S(A) = sum_{i in A} w_i``, a leaf over the examples A that predicts
``sign(S(A))`` contributes ``|S(A)|`` to the edge. A node N is therefore split at the cut
maximising ``|S(left)| + |S(right)|`` over all features and all thresholds between distinct
consecutive values (midpoints); ties go to the first feature, then the smallest threshold.
N stays a leaf when it sits at depth ``max_depth``, when it is pure (all its w_i of one
sign: no split can help), when all its examples share one value in every feature, or when
its children would be leaves and the best split gains no more than a rounding tolerance over
``|S(N)|``. Above the last level a node splits even without immediate gain: a root split of
no gain can enable large gains one level down (XOR), and splitting never lowers the edge. Every node takes
the value ``sign(S)``, with +1 on ties (S = 0).

Since ``|L| + |R| = max(|L + R|, |L - R|)``, a depth-1 tree has exactly the edge of the best
stump (constants included).

Work per level is O(p * m): the features are presorted once in ``prepare`` and one sweep per
feature along the global order updates the running sums of all nodes of the level at once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from marginboost.weak_learners.base import EdgeOracle, Hypothesis, WeakLearner
from marginboost.weak_learners.stumps import midpoint, presort

__all__ = ["DecisionTree", "EdgeTree"]

# A split must beat |S(N)| by more than this times sum_{i in N} |w_i|. Without it, rounding
# in the running sums lets no-gain splits (whose children share one sign) through, and
# whether they go through would depend on summation order.
SPLIT_TOL = 1e-12


@njit(cache=True, nogil=True)
def node_stats(w, node_of, n_nodes):
    """Per node: S(N), sum |w_i|, and whether some w_i > 0 and whether some w_i < 0 (a node
    is pure unless both occur; kept apart so that partial results over row blocks merge)."""
    total = np.zeros(n_nodes)
    mass = np.zeros(n_nodes)
    has_pos = np.zeros(n_nodes, dtype=np.bool_)
    has_neg = np.zeros(n_nodes, dtype=np.bool_)
    for i in range(w.shape[0]):
        n = node_of[i]
        if n < 0:
            continue
        total[n] += w[i]
        mass[n] += abs(w[i])
        # or-ed in, not set under a branch on the sign of w_i (the labels': random)
        has_pos[n] |= w[i] > 0.0
        has_neg[n] |= w[i] < 0.0
    return total, mass, has_pos, has_neg


@njit(cache=True)
def _best_splits(vals, order, w, node_of, node_total, node_mass, n_nodes):
    """Best (feature, threshold, |L| + |R|) for every node of one level (``node_of[i]``: example i's
    node, -1 for none; one node is the root, every example in it); feature -1 where a node has no
    cut (one distinct value in every feature).

    Per feature, each node's examples are swept in the feature's sorted order; a cut exists only
    between two distinct consecutive values of the node, and a later cut wins only if it beats the
    best by more than SPLIT_TOL * mass: cuts equal in exact arithmetic (e.g. all cuts of a node
    where no split gains) must not be told apart by the rounding of the running sums.

    Each node is swept alone (:func:`_sweep_node`), its running sum, last value and best score in
    registers; below the root each feature's sorted order is first split by node
    (:func:`split_by_node`). The sweep that did all nodes of a level at once, their sums in arrays,
    had each example's update wait on the store of the previous one's to the same node, and took
    0.78 ms for the root and 0.78 ms for a level of two nodes on ringnorm (7400 x 20); now 0.12 and
    0.28 ms, a depth-2 tree 1.75 -> 0.55 ms a call (issue 17). The same sums in the same order and
    the same comparisons: the same trees, bit for bit (tested against that sweep)."""
    p, m = vals.shape
    best_feature = np.full(n_nodes, -1, dtype=np.int64)
    best_threshold = np.zeros(n_nodes)
    best_score = np.full(n_nodes, -1.0)
    if n_nodes == 1:
        for j in range(p):
            _sweep_node(vals[j], order[j], w, 0, m, j, 0, node_total, node_mass, best_feature, best_threshold,
                        best_score)
        return best_feature, best_threshold, best_score
    slot, start = node_segments(node_of, n_nodes)
    shape = (2 if n_nodes == 2 else 1, start[n_nodes + 1])
    values_by_node = np.empty(shape)
    w_by_node = np.empty(shape)
    none = np.empty((shape[0], 0))  # split_by_node's second array: none
    position = np.empty(n_nodes + 1, dtype=np.int64)
    for j in range(p):
        split_by_node(vals[j], order[j], w, w[:0], slot, start, n_nodes, values_by_node, w_by_node, none, position)
        for n in range(n_nodes):
            row, lo, hi = node_entries(start, n_nodes, n)
            _sweep_node(values_by_node[row], _IN_ORDER, w_by_node[row], lo, hi, j, n, node_total, node_mass,
                        best_feature, best_threshold, best_score)
    return best_feature, best_threshold, best_score


_IN_ORDER = np.empty(0, dtype=np.int64)  # _sweep_node's rank: w already in the order of the values


@njit(cache=True, inline="always")
def _sweep_node(values, rank, w, lo, hi, j, n, node_total, node_mass, best_feature, best_threshold, best_score):
    """:func:`_best_splits`' sweep of feature ``j`` for node ``n`` alone: its examples' sorted
    ``values[lo:hi]`` and their ``w[rank[lo:hi]]`` (for an empty ``rank``, ``w[lo:hi]``)."""
    total = node_total[n]
    tol = SPLIT_TOL * node_mass[n]
    best = best_score[n]
    left = 0.0
    last = 0.0
    seen = False
    gathered = rank.shape[0] > 0
    for k in range(lo, hi):
        v = values[k]
        score = abs(left) + abs(total - left)
        if (seen & (v != last)) & (score > best + tol):
            best = score
            best_score[n] = score
            best_feature[n] = j
            best_threshold[n] = midpoint(last, v)
        left += w[np.uint64(rank[k])] if gathered else w[k]  # unsigned: no test for a negative index
        last = v
        seen = True


@njit(cache=True)
def node_segments(node_of, n_nodes):
    """Where :func:`split_by_node` puts each node's examples: ``slot[i]``, example i's node (or
    ``n_nodes`` for none; uint64), and ``start[s]`` for ``s = 0 .. n_nodes + 1``: with more than two
    nodes, where node s's examples begin, each node's followed by one spare entry (``start[n_nodes
    + 1]``: the length the outputs need); see :func:`node_entries`."""
    m = node_of.shape[0]
    slot = np.empty(m, dtype=np.uint64)
    start = np.zeros(n_nodes + 2, dtype=np.int64)
    for i in range(m):
        n = node_of[i]
        s = n if n >= 0 else n_nodes
        slot[i] = s
        start[s + 1] += 1
    for s in range(n_nodes + 1):
        start[s + 1] += start[s] + 1
    return slot, start


@njit(cache=True, inline="always")
def node_entries(start, n_nodes, n):
    """``(row, lo, hi)``: node n's examples in :func:`split_by_node`'s outputs, ``out[row, lo:hi]``."""
    count = start[n + 1] - start[n] - 1
    if n_nodes == 2:
        return n, 0, count
    return 0, start[n], start[n] + count


@njit(cache=True)
def split_by_node(values, rank, a, b, slot, start, n_nodes, out_values, out_a, out_b, position):
    """A feature's sorted ``values`` and, for their examples (``rank``: the example indices), the
    entries of ``a`` and of ``b`` (empty: none), split by node (:func:`node_entries` says where node
    n's are), each node's in the sorted order, so that each node can be swept alone with its sums in
    registers. The entries are gathered here, once, rather than by index in each sweep.

    Two nodes: row n of the (2, len) outputs holds node n's; every example is written to both
    rows' next entries and only its own node's advanced, without a branch (the nodes' examples
    interleave at random). More: a stable counting sort into row 0, through ``position`` (n_nodes
    + 1 entries of work space). A call per feature, not inlined: inlined (numba's ``inline``), a
    two-node level took 0.31 ms instead of 0.28 on ringnorm."""
    m = values.shape[0]
    with_b = b.shape[0] > 0
    if n_nodes == 2:
        c0 = 0
        c1 = 0
        for k in range(m):
            i = np.uint64(rank[k])  # unsigned: numba tests a signed index for being negative
            s = slot[i]
            v = values[k]
            x = a[i]
            out_values[0, c0] = v
            out_a[0, c0] = x
            out_values[1, c1] = v
            out_a[1, c1] = x
            if with_b:
                y = b[i]
                out_b[0, c0] = y
                out_b[1, c1] = y
            c0 += s == 0
            c1 += s == 1
        return
    position[:] = start[: n_nodes + 1]
    for k in range(m):
        i = np.uint64(rank[k])
        s = slot[i]
        r = position[s]
        out_values[0, r] = values[k]
        out_a[0, r] = a[i]
        if with_b:
            out_b[0, r] = b[i]
        position[s] = r + 1


def keep_splits(feat, score, total, mass, mixed, last_split_level: bool) -> np.ndarray:
    """Which nodes of a level split at their best cut (``feat`` -1: no cut exists).

    A pure node never splits. Above the last level a split that gains nothing yet can still
    pay off one level down (XOR), and it never lowers the edge (|L| + |R| >= |S|); on the last
    split level it could only make two leaves of one sign, so it must gain more than
    SPLIT_TOL * mass there.
    """
    no_gain = score - np.abs(total) <= SPLIT_TOL * mass
    return mixed & (feat >= 0) & ~(no_gain & last_split_level)


@njit(cache=True)
def _route(X, node_of, split_feature, split_threshold, left_child, right_child):
    """Next level's node index of every example (-1 once its node became a leaf)."""
    out = np.empty_like(node_of)
    for i in range(node_of.shape[0]):
        n = node_of[i]
        if n < 0 or split_feature[n] < 0:
            out[i] = -1
        else:  # a select on the example's side, not a branch (the sides are random by example)
            goes_left = X[i, split_feature[n]] <= split_threshold[n]
            out[i] = left_child[n] * goes_left + right_child[n] * (1 - goes_left)
    return out


@njit(cache=True)
def _predict_tree(X, feature, threshold, left, right, value):
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        node = 0
        while feature[node] >= 0:
            if X[i, feature[node]] <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        out[i] = value[node]
    return out


class LevelGrower:
    """The flat arrays of a tree grown level by level, shared by the edge and regression trees.

    Node 0 is the root; ``active`` lists the flat ids of the current level's nodes and
    ``node_of[i]`` the position in ``active`` of the node example ``i`` reaches. Each learner
    sets the leaf values of a level and picks its splits; :meth:`split` adds the children and
    routes the examples.
    """

    def __init__(self, X: np.ndarray):
        self._X = X
        self.feature, self.threshold, self.left, self.right, self.value = [-1], [0.0], [-1], [-1], [0.0]
        self.active = [0]
        self.node_of = np.zeros(X.shape[0], dtype=np.int64)

    def split(self, feat: np.ndarray, thr: np.ndarray, keep: np.ndarray) -> bool:
        """Split the nodes ``n`` of this level with ``keep[n]`` at ``(feat[n], thr[n])``.

        Returns False (and changes nothing) when no node splits: the tree is complete.
        """
        k_nodes = len(self.active)
        split_feature = np.full(k_nodes, -1, dtype=np.int64)
        left_child = np.full(k_nodes, -1, dtype=np.int64)
        right_child = np.full(k_nodes, -1, dtype=np.int64)
        next_active: list[int] = []
        for n, nid in enumerate(self.active):
            if not keep[n]:
                continue
            split_feature[n] = feat[n]
            self.feature[nid], self.threshold[nid] = int(feat[n]), float(thr[n])
            for side, pos in ((self.left, left_child), (self.right, right_child)):
                side[nid] = len(self.feature)
                pos[n] = len(next_active)
                next_active.append(len(self.feature))
                self.feature.append(-1)
                self.threshold.append(0.0)
                self.left.append(-1)
                self.right.append(-1)
                self.value.append(0.0)
        if not next_active:
            return False
        self.node_of = _route(self._X, self.node_of, split_feature, thr, left_child, right_child)
        self.active = next_active
        return True

    def tree(self, cls):
        """The grown tree as ``cls`` (:class:`DecisionTree` or a subclass)."""
        return cls(
            feature=np.asarray(self.feature, dtype=np.int64),
            threshold=np.asarray(self.threshold, dtype=np.float64),
            left=np.asarray(self.left, dtype=np.int64),
            right=np.asarray(self.right, dtype=np.int64),
            value=np.asarray(self.value, dtype=np.float64),
            n_features=int(self._X.shape[1]),
        )


@dataclass(frozen=True, eq=False)
class DecisionTree(Hypothesis):
    """Binary tree in flat arrays; node 0 is the root, ``feature[k] == -1`` marks a leaf.

    An internal node k sends x to ``left[k]`` if ``x[feature[k]] <= threshold[k]`` and to
    ``right[k]`` otherwise; a leaf predicts ``value[k]`` in {-1, +1}.
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    n_features: int

    @property
    def node_count(self) -> int:
        """Number of nodes, leaves included."""
        return int(self.feature.shape[0])

    @property
    def depth(self) -> int:
        """Length of the longest root-to-leaf path (0 for a single leaf)."""
        depths = np.zeros(self.node_count, dtype=np.int64)
        for k in range(self.node_count):  # children always come after their parent
            if self.feature[k] >= 0:
                depths[self.left[k]] = depths[self.right[k]] = depths[k] + 1
        return int(depths.max())

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"X must have shape (n, {self.n_features}), got {X.shape}"
            )
        return _predict_tree(X, self.feature, self.threshold, self.left, self.right, self.value)


class _TreeOracle(EdgeOracle):
    def __init__(self, X: np.ndarray, y: np.ndarray, max_depth: int):
        self._X, self._vals, self._order = presort(X)
        self._y = np.asarray(y, dtype=np.float64)
        self._max_depth = max_depth

    def __call__(self, d: np.ndarray) -> tuple[DecisionTree, np.ndarray]:
        w = np.asarray(d, dtype=np.float64) * self._y
        grow = LevelGrower(self._X)
        for depth in range(self._max_depth + 1):
            k_nodes = len(grow.active)
            total, mass, has_pos, has_neg = node_stats(w, grow.node_of, k_nodes)
            for n, nid in enumerate(grow.active):
                grow.value[nid] = 1.0 if total[n] >= 0.0 else -1.0
            if depth == self._max_depth:
                break
            feat, thr, score = _best_splits(self._vals, self._order, w, grow.node_of, total, mass, k_nodes)
            keep = keep_splits(feat, score, total, mass, has_pos & has_neg, depth == self._max_depth - 1)
            if not grow.split(feat, thr, keep):
                break
        h = grow.tree(DecisionTree)
        return h, h.predict(self._X)


class EdgeTree(WeakLearner):
    """Depth-limited tree grown greedily on the edge, leaves in {-1, +1}."""

    def __init__(self, max_depth: int = 2):
        self.max_depth = max_depth

    def prepare(self, X: np.ndarray, y: np.ndarray) -> EdgeOracle:
        if int(self.max_depth) != self.max_depth or self.max_depth < 1:
            raise ValueError(f"max_depth must be an integer >= 1, got {self.max_depth!r}")
        return _TreeOracle(X, y, int(self.max_depth))

    def __repr__(self) -> str:
        return f"EdgeTree(max_depth={self.max_depth})"
