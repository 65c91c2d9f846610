"""Weighted least-squares regression weak learners (the oracle of FWBoost_R, 001 Algorithm 4).

FWBoost_R (Wang, Wang, E, Schapire 2015, arXiv 1510.02558, Algorithm 4) fits a base
hypothesis to the negative gradient ``r`` by least squares:

    h = argmin_{h in H} sum_i s_i (r_i - h(x_i))^2,        s_i > 0.

For a partition of the sample into cells A (a stump's two sides, a tree's leaves) the best
values are the weighted means ``S(A) / W(A)`` with ``S(A) = sum_{i in A} s_i r_i`` and
``W(A) = sum_{i in A} s_i``, and the weighted squared error is
``sum_i s_i r_i^2 - sum_A S(A)^2 / W(A)``. So a cut of a cell N into L and R is best when it
maximises ``S(L)^2 / W(L) + S(R)^2 / W(R)`` (the criterion of CART and of scikit-learn's
``DecisionTreeRegressor``), over every feature and every threshold between two distinct
consecutive values (the midpoint). Ties go to the first feature, then the smallest threshold.

Missing values (NaN) sort after every number. Each cut also sends the examples missing its
feature (sums ``S(M)``, ``W(M)``) to one side, the one of the larger criterion (of least squared
error, as LightGBM and scikit-learn's HistGradientBoosting choose by gain); one more cut puts the
finite values against the missing ones. Where the two sides' criteria are within the tolerance
below (in particular when no example of the node misses the feature, as on data without NaN),
the missing values go to the child with more training examples (the left on a tie), scikit-learn's
rule for a feature never missing in training. Predictions send NaN the same way.

Categorical features (the columns a :class:`.categorical.CategoricalMatrix` marks): a split may
send a subset of categories left, the best by least squares found exactly by sorting the
categories by mean residual (Fisher 1958; :func:`.categorical.least_squares_left`); it replaces the
best numeric cut only where its criterion is larger by more than ``SPLIT_TOL * Q`` of the node
(:class:`_CategoricalStumpOracle`, :class:`_CategoricalTreeOracle`).

* :class:`LeastSquaresStump` -- exact: the best of all cuts and the constant (no cut);
* :class:`LeastSquaresTree`  -- depth-k CART grown level by level, each node split at its
  exact best cut; a node stays a leaf at depth k, when its residuals are all equal (pure), or
  when no cut exists (one value in every feature);
* :class:`SklearnRegressionLearner` -- any scikit-learn regressor taking ``sample_weight``,
  through :class:`~.sklearn_adapter.SklearnWeakLearner`.

The contract differs from :class:`~.base.WeakLearner` because the targets change each round:
``prepare(X)`` presorts once and returns an oracle ``(r, s) -> (h, h(X))``.

The kernels are compiled ahead of time in ``_regression.pyx``: :func:`_node_stats` (per node
``S``, ``W``, ``Q = sum s r^2`` and whether its residuals differ) and :func:`_best_cuts` (the best
cut of every node of a level). Each node is swept alone along each feature's presorted order
(:func:`_sweep_node`), its sums in registers, the order first split by node (the edge trees'
:func:`.trees.split_by_node`), as the edge trees' :func:`.trees._best_splits`: a depth-2 tree
1.27 -> 0.89 ms a call, a stump 0.66 -> 0.36 ms (7400 x 20, normal residuals; issue 17). The same
sums in the same order: the same cuts, bit for bit (tested against the sweep over all nodes at
once it replaced). A sweep is three passes (``_sweep`` in ``_regression.pyx``): the running sums
(two features in one loop), every cut's score (vectorised, divisions included), then the choice
in the sorted order; the one loop that tested each entry for a tie and divided where there was
none took 2 to 2.5 times as long on ringnorm (many ties), 1.2 times on breast cancer.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from marginboost.weak_learners._regression import _best_cuts, _node_stats, _sweep_node  # noqa: F401
from marginboost.weak_learners.base import Hypothesis
from marginboost.weak_learners.sklearn_adapter import SklearnWeakLearner
from marginboost.weak_learners.categorical import (categorical_columns, category_codes, category_counts,
                                                   goes_left, least_squares_left, split_columns)
from marginboost.weak_learners.stumps import has_missing, presort, right_side, stump_select
from marginboost.weak_learners.trees import CategoricalLevelGrower, DecisionTree, LevelGrower

__all__ = [
    "LeastSquaresStump",
    "LeastSquaresTree",
    "RegressionLearner",
    "RegressionStump",
    "RegressionTree",
    "SklearnRegressionLearner",
]

# A cut must beat the best so far by more than this times sum_i s_i r_i^2 of its node, so that
# cuts equal in exact arithmetic are not told apart by the rounding of running sums.
SPLIT_TOL = 1e-12


@dataclass(frozen=True)
class RegressionStump(Hypothesis):
    """``h(x) = left if x[feature] <= threshold else right``; threshold -inf: the constant ``right``.
    A missing value (NaN) gives ``left`` where ``missing_left``, else ``right`` (the default, also
    that of stumps read from model files of format 4 or older). A categorical stump
    (``categories`` a tuple of codes, threshold unused) gives ``left`` for the codes in it."""

    feature: int
    threshold: float
    left: float
    right: float
    missing_left: bool = False
    categories: tuple | None = None

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
        if self.threshold == -np.inf:
            return np.full(X.shape[0], float(self.right))
        if self.categories is not None:
            return np.where(goes_left(X[:, self.feature], self.threshold, self.categories, self.missing_left),
                            self.left, self.right)
        return stump_select(X[:, self.feature], self.threshold, self.missing_left, self.left, self.right)


@dataclass(frozen=True, eq=False)
class RegressionTree(DecisionTree):
    """A :class:`~.trees.DecisionTree` whose leaves predict real values (weighted means).

    ``gain[k]`` of an internal node k is the decrease of the weighted squared error of the fit
    to the round's targets ``r`` (weights ``s``) that its split made,
    ``S(L)^2 / W(L) + S(R)^2 / W(R) - S(k)^2 / W(k)`` (the module's notation; CART's and
    scikit-learn's weighted impurity decrease times the node's weight); a leaf update after the
    split (GBM's Newton step) leaves it as it was."""


class RegressionLearner(ABC):
    """Parameters of a least-squares learner; :meth:`prepare` binds it to ``X``. ``allow_nan``:
    whether it takes missing values (NaN) in X (as :class:`~.base.WeakLearner`'s)."""

    allow_nan = False
    allow_categorical = False  # as WeakLearner.allow_categorical

    @abstractmethod
    def prepare(self, X: np.ndarray):
        """Return an oracle ``(r, s) -> (h, h(X))`` minimising ``sum_i s_i (r_i - h(x_i))^2``."""


class _Presorted:
    def __init__(self, X: np.ndarray):
        self._X, self._vals, self._order = presort(X)
        self._missing = has_missing(self._vals)


class _StumpOracle(_Presorted):
    def __call__(self, r, s):
        r = np.ascontiguousarray(r, dtype=np.float64)
        s = np.ascontiguousarray(s, dtype=np.float64)
        node_of = np.zeros(r.shape[0], dtype=np.int64)
        S, W, Q, mixed = _node_stats(r, s, node_of, 1)
        feat, thr, score, missing_left = _best_cuts(self._vals, self._order, r, s, node_of, S, W, Q, 1, self._missing)
        if not mixed[0] or feat[0] < 0 or score[0] <= S[0] * S[0] / W[0] + SPLIT_TOL * Q[0]:
            h = RegressionStump(0, -np.inf, S[0] / W[0], S[0] / W[0])
        else:
            right = right_side(self._X[:, feat[0]], thr[0], bool(missing_left[0]))
            h = RegressionStump(int(feat[0]), float(thr[0]),
                                float(s[~right] @ r[~right] / s[~right].sum()),
                                float(s[right] @ r[right] / s[right].sum()), bool(missing_left[0]))
        return h, h.predict(self._X)


class _TreeOracle(_Presorted):
    def __init__(self, X, max_depth: int):
        super().__init__(X)
        self._max_depth = max_depth

    def __call__(self, r, s):
        r = np.ascontiguousarray(r, dtype=np.float64)
        s = np.ascontiguousarray(s, dtype=np.float64)
        grow = LevelGrower(self._X, self._missing)
        for depth in range(self._max_depth + 1):
            k = len(grow.active)
            S, W, Q, mixed = _node_stats(r, s, grow.node_of, k)
            for n, nid in enumerate(grow.active):
                grow.value[nid] = S[n] / W[n]
            if depth == self._max_depth:
                break
            feat, thr, score, missing_left = _best_cuts(self._vals, self._order, r, s, grow.node_of, S, W, Q, k,
                                                        self._missing)
            # the decrease of the weighted squared error (RegressionTree's gain), >= 0 but for rounding
            gain = np.maximum(score - S * S / W, 0.0)
            if not grow.split(feat, thr, mixed & (feat >= 0), gain, missing_left):
                break
        h = grow.tree(RegressionTree)
        return h, h.predict(self._X)


class _Categorical:
    """The numeric columns presorted alone, the categorical ``columns`` kept as codes."""

    def __init__(self, X, columns: np.ndarray):
        self._X, self._numeric, X_num = split_columns(X, columns)
        self._columns = columns
        self._codes = [category_codes(self._X[:, j]) for j in columns]
        _, self._vals, self._order = presort(X_num)
        self._missing = has_missing(self._vals)

    def _best(self, r, s, node_of, S, W, Q, k):
        """Per node: (feature, threshold, score, missing_left, categories) of the best split."""
        feat = np.full(k, -1, dtype=np.int64)
        thr, score = np.zeros(k), np.full(k, -np.inf)
        missing_left = np.zeros(k, dtype=bool)
        categories = [None] * k
        if self._numeric.size:
            f, t, sc, ml = (np.asarray(a) for a in _best_cuts(self._vals, self._order, r, s, node_of, S, W, Q, k,
                                                              self._missing))
            found = f >= 0
            feat[found] = self._numeric[f[found]]
            thr[found], score[found], missing_left[found] = t[found], sc[found], np.asarray(ml, dtype=bool)[found]
        for j, (codes, K) in zip(self._columns, self._codes):
            sr, n = category_counts(codes, K, s * r, node_of, k)
            sw, _ = category_counts(codes, K, s, node_of, k)
            for i in range(k):
                sc, cats, ml = least_squares_left(sr[i], sw[i], n[i])
                if sc > (score[i] + SPLIT_TOL * Q[i] if feat[i] >= 0 else -np.inf):
                    feat[i], thr[i], score[i], missing_left[i], categories[i] = j, 0.0, sc, ml, cats
        return feat, thr, score, missing_left, categories


class _CategoricalStumpOracle(_Categorical):
    def __call__(self, r, s):
        r = np.ascontiguousarray(r, dtype=np.float64)
        s = np.ascontiguousarray(s, dtype=np.float64)
        node_of = np.zeros(r.shape[0], dtype=np.int64)
        S, W, Q, mixed = _node_stats(r, s, node_of, 1)
        feat, thr, score, missing_left, categories = self._best(r, s, node_of, S, W, Q, 1)
        if not mixed[0] or feat[0] < 0 or score[0] <= S[0] * S[0] / W[0] + SPLIT_TOL * Q[0]:
            h = RegressionStump(0, -np.inf, S[0] / W[0], S[0] / W[0])
        else:
            left = goes_left(self._X[:, feat[0]], thr[0], categories[0], bool(missing_left[0]))
            h = RegressionStump(int(feat[0]), float(thr[0]), float(s[left] @ r[left] / s[left].sum()),
                                float(s[~left] @ r[~left] / s[~left].sum()), bool(missing_left[0]), categories[0])
        return h, h.predict(self._X)


class _CategoricalTreeOracle(_Categorical):
    def __init__(self, X, columns: np.ndarray, max_depth: int):
        super().__init__(X, columns)
        self._max_depth = max_depth

    def __call__(self, r, s):
        r = np.ascontiguousarray(r, dtype=np.float64)
        s = np.ascontiguousarray(s, dtype=np.float64)
        X = self._X
        grow = CategoricalLevelGrower(X)
        for depth in range(self._max_depth + 1):
            k = len(grow.active)
            S, W, Q, mixed = _node_stats(r, s, grow.node_of, k)
            for n, nid in enumerate(grow.active):
                grow.value[nid] = S[n] / W[n]
            if depth == self._max_depth:
                break
            feat, thr, score, ml, cats = self._best(r, s, grow.node_of, S, W, Q, k)
            keep = mixed & (feat >= 0)
            if not keep.any():
                break
            gains = np.maximum(score - S * S / W, 0.0)  # RegressionTree's gain, >= 0 but for rounding
            grow.split(feat, thr, keep, gains, ml, cats)
        h = grow.tree(RegressionTree)
        return h, h.predict(X)


class LeastSquaresStump(RegressionLearner):
    """Exact weighted least-squares regression stump over all features and thresholds."""

    allow_nan = True
    allow_categorical = True

    def prepare(self, X):
        columns = categorical_columns(X)
        if columns.size:
            return _CategoricalStumpOracle(X, columns)
        return _StumpOracle(X)

    def __repr__(self) -> str:
        return "LeastSquaresStump()"


class LeastSquaresTree(RegressionLearner):
    """Depth-limited weighted least-squares (CART) regression tree, exact best cut per node."""

    allow_nan = True
    allow_categorical = True

    def __init__(self, max_depth: int = 3):
        self.max_depth = max_depth

    def prepare(self, X):
        if int(self.max_depth) != self.max_depth or self.max_depth < 1:
            raise ValueError(f"max_depth must be an integer >= 1, got {self.max_depth!r}")
        columns = categorical_columns(X)
        if columns.size:
            return _CategoricalTreeOracle(X, columns, int(self.max_depth))
        return _TreeOracle(X, int(self.max_depth))

    def __repr__(self) -> str:
        return f"LeastSquaresTree(max_depth={self.max_depth})"


class SklearnRegressionLearner(RegressionLearner):
    """A scikit-learn regressor taking ``sample_weight``, cloned and fitted every round.

    Reuses :class:`~.sklearn_adapter.SklearnWeakLearner`: it fits ``(X, r)`` with
    ``sample_weight = m s / sum(s)`` (mean one).
    """

    def __init__(self, estimator):
        self.estimator = estimator

    @property
    def allow_nan(self) -> bool:
        """The regressor's scikit-learn ``allow_nan`` tag."""
        return SklearnWeakLearner(self.estimator).allow_nan

    def prepare(self, X):
        return _SklearnRegressionOracle(SklearnWeakLearner(self.estimator), np.asarray(X, dtype=np.float64))

    def __repr__(self) -> str:
        return f"SklearnRegressionLearner({self.estimator!r})"


class _SklearnRegressionOracle:
    """:class:`SklearnRegressionLearner` on ``X``: ``(r, s) -> (h, h(X))``, the fit of targets ``r``
    with weights ``s``. An object, not a closure: a warm-started estimator keeps it for the rounds
    to come, and must pickle."""

    def __init__(self, adapter: SklearnWeakLearner, X: np.ndarray):
        self.adapter, self.X = adapter, X

    def __call__(self, r, s):
        return self.adapter.prepare(self.X, r)(np.asarray(s, dtype=np.float64) / np.sum(s))
