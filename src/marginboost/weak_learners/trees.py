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

Missing values (NaN in X; the estimators refuse infinities) sort after every number. Each split
also sends the node's examples missing its feature (sum ``M``) to one side: the cut of finite
examples ``L | S - L`` scores ``max(|L| + |S - L|, |L + M| + |S - L - M|)``, the missing values
going to the side of the larger term (as LightGBM and scikit-learn's HistGradientBoosting choose
by gain) where ``M`` passes the z-test of ``missing_z`` (:mod:`.missing_side`), else to the side of
the feature's mean (where the cut sends it), the score that side's; one more cut puts the finite
examples against the missing ones (where ``M`` passes the test, or the mean's side puts them
there). Where the two terms are within the tolerance below, and where no example of the
node misses the feature (as on data without NaN), the missing values go to the child with more
training examples (more of the node's finite examples; the left on a tie): scikit-learn's rule
for a feature never missing in training. Predictions send NaN the same way (``missing_left`` per
node).

Categorical features (the columns a :class:`.categorical.CategoricalMatrix` marks): a node may
send a subset of categories left (``categories`` per node), the sign split of the node's
per-category sums (:mod:`.categorical`); :class:`MixedTreeOracle` grows such trees, the numeric
columns searched by the learner's own per-node search.

Work per level is O(p * m): the features are presorted once in ``prepare``; per feature, each
node's examples are swept alone along the feature's sorted order (:func:`_best_splits`).

The kernels are compiled ahead of time in ``_trees.pyx`` (those other compiled modules call are
declared in ``_trees.pxd``):

* :func:`node_stats` -- per node ``S(N)``, ``sum |w_i|`` and whether some ``w_i > 0`` and some
  ``w_i < 0`` (a node is pure unless both occur; kept apart so that partial results merge).
* :func:`_best_splits` -- best (feature, threshold, ``|L| + |R|``) of every node of a level; a
  later cut wins only if it beats the best by more than ``SPLIT_TOL * mass``: cuts equal in exact
  arithmetic must not be told apart by the rounding of the running sums. Each node is swept alone
  (:func:`_sweep_node`), its running sum, last value and best score in registers; below the root
  each feature's sorted order is first split by node (:func:`split_by_node`, at the offsets of
  :func:`node_segments` and :func:`node_entries`: two rows written without a branch for two nodes,
  a stable counting sort for more). The sweep that did all nodes of a level at once, their sums in
  arrays, had each example's update wait on the store of the previous one's to the same node:
  0.78 ms for the root and 0.78 ms for a level of two nodes on ringnorm (7400 x 20); per node, 0.12
  and 0.28 ms, a depth-2 tree 1.75 -> 0.55 ms a call (issue 17). The same sums in the same order
  and the same comparisons: the same trees, bit for bit (tested against that sweep). A sweep is
  bound by the latency of its running sum's adds, so two features are swept in one loop
  (``_sweep_pair`` in ``_trees.pyx``; the second again where the first moved the best, as a cut
  within the tolerance is taken or not depending on the best it meets): the root 0.17 -> 0.14 ms,
  a level of four nodes 0.60 -> 0.43 ms on ringnorm against the one-feature loop.
  Each sweep keeps the examples left of its best cut, for the side of the missing values. On X with
  NaN the features are swept one at a time, each cut with the missing examples on either side
  (``_sweep_missing``); on X without, that code does not run and the trees are those of before.
* :func:`_route` -- each example's node on the next level (-1 once its node became a leaf), by a
  select on its side rather than a branch (the sides are random by example).
* :func:`_predict_tree` -- each row's leaf value.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# every kernel importable from here as before (regression and histogram use some, tests all)
from marginboost.weak_learners._trees import (  # noqa: F401
    _best_splits,
    _predict_tree,
    _route,
    _sweep_node,
    node_entries,
    node_segments,
    node_stats,
    split_by_node,
)
from marginboost.weak_learners.base import EdgeOracle, Hypothesis, WeakLearner
from marginboost.weak_learners.categorical import (categorical_columns, categorical_left, category_codes,
                                                   category_counts, goes_left, split_columns)
from marginboost.weak_learners.missing_side import MISSING_Z, check_missing_z, column_means, missing_z_repr, node_noise
from marginboost.weak_learners.stumps import has_missing, presort

__all__ = ["DecisionTree", "EdgeTree", "MixedTreeOracle", "exact_numeric_splits"]

# A split must beat |S(N)| by more than this times sum_{i in N} |w_i|. Without it, rounding
# in the running sums lets no-gain splits (whose children share one sign) through, and
# whether they go through would depend on summation order.
SPLIT_TOL = 1e-12


def keep_splits(feat, score, total, mass, mixed, last_split_level: bool) -> np.ndarray:
    """Which nodes of a level split at their best cut (``feat`` -1: no cut exists).

    A pure node never splits. Above the last level a split that gains nothing yet can still
    pay off one level down (XOR), and it never lowers the edge (|L| + |R| >= |S|); on the last
    split level it could only make two leaves of one sign, so it must gain more than
    SPLIT_TOL * mass there.
    """
    no_gain = score - np.abs(total) <= SPLIT_TOL * mass
    return mixed & (feat >= 0) & ~(no_gain & last_split_level)


def edge_gain(score: np.ndarray, total: np.ndarray) -> np.ndarray:
    """What a node's best split adds to the edge, ``|S(L)| + |S(R)| - |S(N)|`` (``score`` is
    ``|S(L)| + |S(R)|``, ``total`` is ``S(N)``), at least 0: a no-gain split may round below."""
    return np.maximum(score - np.abs(total), 0.0)


class LevelGrower:
    """The flat arrays of a tree grown level by level, shared by the edge and regression trees.

    Node 0 is the root; ``active`` lists the flat ids of the current level's nodes and
    ``node_of[i]`` the position in ``active`` of the node example ``i`` reaches. Each learner
    sets the leaf values of a level and picks its splits; :meth:`split` adds the children and
    routes the examples.
    """

    def __init__(self, X: np.ndarray, missing: bool = False):
        self._X = X
        self._missing = missing  # X has NaN: the routing reads each split's missing_left
        self.feature, self.threshold, self.left, self.right, self.value = [-1], [0.0], [-1], [-1], [0.0]
        self.gain = [0.0]
        self.missing_left = [False]
        self.active = [0]
        self.node_of = np.zeros(X.shape[0], dtype=np.int64)

    def split(self, feat: np.ndarray, thr: np.ndarray, keep: np.ndarray, gain: np.ndarray,
              missing_left: np.ndarray) -> bool:
        """Split the nodes ``n`` of this level with ``keep[n]`` at ``(feat[n], thr[n])``, NaN going
        left where ``missing_left[n]``, recording ``gain[n]`` (the learner's gain of the split,
        :attr:`DecisionTree.gain`).

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
            self.gain[nid] = float(gain[n])
            self.missing_left[nid] = bool(missing_left[n])
            for side, pos in ((self.left, left_child), (self.right, right_child)):
                side[nid] = len(self.feature)
                pos[n] = len(next_active)
                next_active.append(len(self.feature))
                self._add_node()
        if not next_active:
            return False
        self.node_of = self._route(split_feature, thr, missing_left, left_child, right_child)
        self.active = next_active
        return True

    def _add_node(self) -> None:
        """Append an empty node (a leaf of value 0) to the flat arrays."""
        for field, empty in ((self.feature, -1), (self.threshold, 0.0), (self.left, -1), (self.right, -1),
                             (self.value, 0.0), (self.gain, 0.0), (self.missing_left, False)):
            field.append(empty)

    def _route(self, split_feature, thr, missing_left, left_child, right_child) -> np.ndarray:
        """The examples' positions in the next level (-1: their node did not split), compiled."""
        ml = np.asarray(missing_left, dtype=np.uint8) if self._missing else None
        return _route(self._X, self.node_of, split_feature, thr, left_child, right_child, ml)

    def _fields(self) -> dict:
        return dict(feature=np.asarray(self.feature, dtype=np.int64),
                    threshold=np.asarray(self.threshold, dtype=np.float64),
                    left=np.asarray(self.left, dtype=np.int64),
                    right=np.asarray(self.right, dtype=np.int64),
                    value=np.asarray(self.value, dtype=np.float64),
                    n_features=int(self._X.shape[1]),
                    gain=np.asarray(self.gain, dtype=np.float64),
                    missing_left=np.asarray(self.missing_left, dtype=np.bool_))

    def tree(self, cls):
        """The grown tree as ``cls`` (:class:`DecisionTree` or a subclass)."""
        return cls(**self._fields())


class CategoricalLevelGrower(LevelGrower):
    """:class:`LevelGrower` for a sample with categorical columns (the oracles of
    :mod:`.categorical`): a split may send a set of categories left (``categories[n]``, None for a
    numeric split), and the examples are routed in numpy (:func:`.categorical.goes_left`)."""

    def __init__(self, X: np.ndarray):
        super().__init__(X, missing=True)
        self.categories = [None]
        self._level_categories = None

    def split(self, feat, thr, keep, gain, missing_left, categories=None) -> bool:
        """:meth:`LevelGrower.split`, node ``n`` sending ``categories[n]`` left where it is a set."""
        self._level_categories = categories
        for n, nid in enumerate(self.active):
            if keep[n]:
                self.categories[nid] = categories[n]
        return super().split(feat, thr, keep, gain, missing_left)

    def _add_node(self) -> None:
        super()._add_node()
        self.categories.append(None)

    def _route(self, split_feature, thr, missing_left, left_child, right_child) -> np.ndarray:
        node_of = np.full_like(self.node_of, -1)
        for n in np.flatnonzero(split_feature >= 0):
            rows = np.flatnonzero(self.node_of == n)
            to_left = goes_left(self._X[rows, split_feature[n]], thr[n], self._level_categories[n],
                                bool(missing_left[n]))
            node_of[rows[to_left]], node_of[rows[~to_left]] = left_child[n], right_child[n]
        return node_of

    def _fields(self) -> dict:
        categories = None if all(c is None for c in self.categories) else tuple(self.categories)
        return {**super()._fields(), "categories": categories}


@dataclass(frozen=True, eq=False)
class DecisionTree(Hypothesis):
    """Binary tree in flat arrays; node 0 is the root, ``feature[k] == -1`` marks a leaf.

    An internal node k sends x to ``left[k]`` if ``x[feature[k]] <= threshold[k]``, to ``right[k]``
    if ``x[feature[k]] > threshold[k]``, and a missing value (NaN) to ``left[k]`` where
    ``missing_left[k]`` and to ``right[k]`` elsewhere; a leaf predicts ``value[k]`` in {-1, +1}.
    ``missing_left`` None (a tree built without it, e.g. read from a model file of format 4 or
    older): NaN goes right everywhere (see :mod:`marginboost.io.model_codecs`).

    ``gain[k]`` (0 at leaves) is what the split of node k added to the learner's objective on
    the distribution the tree was grown for: for an edge tree the edge it added,
    ``|S(left)| + |S(right)| - |S(k)|`` with ``S(A) = sum_{i in A} d_i y_i`` (so the tree's edge
    is ``|S(root)| + sum_k gain[k]``); for a regression tree the decrease of the weighted squared
    error (:class:`~.regression.RegressionTree`). None for a tree whose gains are unknown (built
    by hand, or read from a model file written before trees stored them); the feature
    importances then split the tree's weight equally over its internal nodes
    (:func:`.splits.node_shares`).

    ``categories``: None, or one entry per node, None for a numeric split and a tuple of category
    codes for a categorical one (:mod:`.categorical`), whose node sends the codes in it left and
    every other code right (NaN by ``missing_left``; the threshold unused).
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    n_features: int
    gain: np.ndarray | None = None
    missing_left: np.ndarray | None = None
    categories: tuple | None = None

    def __post_init__(self):
        missing_left = np.zeros(np.shape(self.feature), dtype=np.bool_) if self.missing_left is None else \
            np.asarray(self.missing_left, dtype=np.bool_)
        object.__setattr__(self, "missing_left", missing_left)

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
        if self.categories is not None and any(c is not None for c in self.categories):
            return self._predict_categorical(X)
        return _predict_tree(X, self.feature, self.threshold, self.left, self.right, self.value,
                             self.missing_left.view(np.uint8))

    def _predict_categorical(self, X: np.ndarray) -> np.ndarray:
        """``predict`` of a tree with categorical splits: the rows sent down node by node (children
        come after their parent, so one pass in node order routes every row to its leaf)."""
        node = np.zeros(X.shape[0], dtype=np.int64)
        for k in range(self.node_count):
            if self.feature[k] < 0:
                continue
            rows = np.flatnonzero(node == k)
            left = goes_left(X[rows, self.feature[k]], self.threshold[k], self.categories[k],
                             bool(self.missing_left[k]))
            node[rows] = np.where(left, self.left[k], self.right[k])
        return self.value[node]


class _TreeOracle(EdgeOracle):
    def __init__(self, X: np.ndarray, y: np.ndarray, max_depth: int, missing_z: float = MISSING_Z):
        self._X, self._vals, self._order = presort(X)
        self._missing = has_missing(self._vals)
        self._means = column_means(self._vals) if self._missing else None
        self._y = np.asarray(y, dtype=np.float64)
        self._max_depth = max_depth
        self._z = missing_z

    def __call__(self, d: np.ndarray) -> tuple[DecisionTree, np.ndarray]:
        w = np.asarray(d, dtype=np.float64) * self._y
        grow = LevelGrower(self._X, self._missing)
        for depth in range(self._max_depth + 1):
            k_nodes = len(grow.active)
            total, mass, has_pos, has_neg = node_stats(w, grow.node_of, k_nodes)
            for n, nid in enumerate(grow.active):
                grow.value[nid] = 1.0 if total[n] >= 0.0 else -1.0
            if depth == self._max_depth:
                break
            noise = node_noise(w, grow.node_of, k_nodes, self._z) if self._missing else None
            feat, thr, score, missing_left = _best_splits(self._vals, self._order, w, grow.node_of, total, mass,
                                                          k_nodes, self._missing, noise, self._means)
            keep = keep_splits(feat, score, total, mass, has_pos & has_neg, depth == self._max_depth - 1)
            if not grow.split(feat, thr, keep, edge_gain(score, total), missing_left):
                break
        h = grow.tree(DecisionTree)
        return h, h.predict(self._X)


def exact_numeric_splits(X_num):
    """The exact learner's per-node search on the numeric columns ``X_num`` (:func:`.trees._best_splits`)."""
    _, vals, order = presort(X_num)
    missing = has_missing(vals)
    means = column_means(vals) if missing else None

    def splits(w, node_of, total, mass, n_nodes, noise):
        return _best_splits(vals, order, w, node_of, total, mass, n_nodes, missing, noise, means)
    return splits


class MixedTreeOracle(EdgeOracle):
    """Greedy edge tree (:mod:`.trees`) over the numeric columns (``numeric_splits(X_numeric)``
    returns the per-node search) and the categorical ``columns`` of ``X``; the numeric cuts' missing
    values take their side by the z-test of ``missing_z`` (:mod:`.missing_side`)."""

    def __init__(self, X, y, columns: np.ndarray, max_depth: int, numeric_splits, missing_z: float = MISSING_Z):
        self._z = missing_z
        self._X, self._numeric, X_num = split_columns(X, columns)
        self._columns = columns
        self._codes = [category_codes(self._X[:, j]) for j in columns]
        self._y = np.asarray(y, dtype=np.float64)
        self._max_depth = max_depth
        self._splits = numeric_splits(X_num) if self._numeric.size else None

    def _best(self, w, node_of, total, mass, k_nodes):
        """Per node: (feature, threshold, score, missing_left, categories) of the best split."""
        feat = np.full(k_nodes, -1, dtype=np.int64)
        thr, score = np.zeros(k_nodes), np.full(k_nodes, -np.inf)
        missing_left = np.zeros(k_nodes, dtype=bool)
        categories = [None] * k_nodes
        if self._splits is not None:
            f, t, s, ml = self._splits(w, node_of, total, mass, k_nodes, node_noise(w, node_of, k_nodes, self._z))
            f = np.asarray(f)
            found = f >= 0
            feat[found] = self._numeric[f[found]]
            thr[found], score[found] = np.asarray(t)[found], np.asarray(s)[found]
            missing_left[found] = np.asarray(ml, dtype=bool)[found]
        for j, (codes, K) in zip(self._columns, self._codes):
            e, n = category_counts(codes, K, w, node_of, k_nodes)
            for k in range(k_nodes):
                s, cats, ml = categorical_left(e[k], n[k])
                if s > (score[k] + SPLIT_TOL * mass[k] if feat[k] >= 0 else -np.inf):
                    feat[k], thr[k], score[k], missing_left[k], categories[k] = j, 0.0, s, ml, cats
        return feat, thr, score, missing_left, categories

    def __call__(self, d):
        w = np.asarray(d, dtype=np.float64) * self._y
        X = self._X
        grow = CategoricalLevelGrower(X)
        for depth in range(self._max_depth + 1):
            k_nodes = len(grow.active)
            total, mass, has_pos, has_neg = node_stats(w, grow.node_of, k_nodes)
            for n, nid in enumerate(grow.active):
                grow.value[nid] = 1.0 if total[n] >= 0.0 else -1.0
            if depth == self._max_depth:
                break
            feat, thr, score, ml, cats = self._best(w, grow.node_of, total, mass, k_nodes)
            keep = keep_splits(feat, score, total, mass, has_pos & has_neg, depth == self._max_depth - 1)
            if not keep.any():
                break
            grow.split(feat, thr, keep, edge_gain(score, total), ml, cats)
        h = grow.tree(DecisionTree)
        return h, h.predict(X)


class EdgeTree(WeakLearner):
    """Depth-limited tree grown greedily on the edge, leaves in {-1, +1}."""

    allow_nan = True
    allow_categorical = True

    def __init__(self, max_depth: int = 2, missing_z: float = MISSING_Z):
        self.max_depth = max_depth
        self.missing_z = missing_z

    def prepare(self, X: np.ndarray, y: np.ndarray) -> EdgeOracle:
        if int(self.max_depth) != self.max_depth or self.max_depth < 1:
            raise ValueError(f"max_depth must be an integer >= 1, got {self.max_depth!r}")
        z = check_missing_z(self.missing_z)
        columns = categorical_columns(X)
        if columns.size:
            return MixedTreeOracle(X, y, columns, int(self.max_depth), exact_numeric_splits, z)
        return _TreeOracle(X, y, int(self.max_depth), z)

    def __repr__(self) -> str:
        return f"EdgeTree(max_depth={self.max_depth}{missing_z_repr(self.missing_z)})"
