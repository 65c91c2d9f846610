"""The edge learners on a sample with categorical columns (:mod:`.categorical`).

The numeric columns are searched by the learner's own code on them alone (the exact sweeps or
the histogram ones), the categorical columns by the sign split of their per-category sums, and the
better candidate wins (ties to the numeric one, by ``SPLIT_TOL * sum |w_i|``). Trees are grown
level by level as :class:`.trees.EdgeTree` grows them (same stopping rule, leaf values and gains),
the examples routed in numpy. The training predictions are ``h.predict(X)``, so that the booster's
margins are exactly the hypothesis's.
"""
from __future__ import annotations

import numpy as np

from marginboost.weak_learners._histogram import _best_bin_splits
from marginboost.weak_learners.base import EdgeOracle
from marginboost.weak_learners.binning import bin_features
from marginboost.weak_learners.categorical import categorical_left, category_counts, goes_left
from marginboost.weak_learners.stumps import Stump, has_missing, presort
from marginboost.weak_learners.trees import SPLIT_TOL, DecisionTree, _best_splits, edge_gain, keep_splits, node_stats

__all__ = ["MixedStumpOracle", "MixedTreeOracle", "exact_numeric_splits", "histogram_numeric_splits"]


def _split_columns(X, columns: np.ndarray):
    X = np.ascontiguousarray(np.asarray(X), dtype=np.float64)
    numeric = np.setdiff1d(np.arange(X.shape[1]), columns)
    return X, numeric, np.ascontiguousarray(X[:, numeric])


class MixedStumpOracle(EdgeOracle):
    """Best stump over the numeric columns (``numeric_oracle(X_numeric)``, the learner's oracle on
    them) and the categorical ``columns`` of ``X``."""

    def __init__(self, X, y, columns: np.ndarray, numeric_oracle):
        self._X, self._numeric, X_num = _split_columns(X, columns)
        self._columns = columns
        self._y = np.asarray(y, dtype=np.float64)
        self._oracle = numeric_oracle(X_num) if self._numeric.size else None

    def __call__(self, d):
        w = np.asarray(d, dtype=np.float64) * self._y
        if self._oracle is None:  # no numeric column: the constants are the numeric candidates
            total = float(w.sum())
            h = Stump(0, -np.inf, 1.0 if total >= 0.0 else -1.0)
        else:
            h, _ = self._oracle(d)
            if h.threshold != -np.inf:
                h = Stump(int(self._numeric[h.feature]), h.threshold, h.sign, h.missing_left)
        best = float(w @ h.predict(self._X))
        tol = SPLIT_TOL * float(np.abs(w).sum())
        for j in self._columns:
            e, n, _ = category_counts(self._X[:, j], w)
            score, categories, missing_left = categorical_left(e[0], n[0])
            if score > best + tol:
                best, h = score, Stump(int(j), 0.0, 1.0, missing_left, categories)
        return h, h.predict(self._X)


def exact_numeric_splits(X_num):
    """The exact learner's per-node search on the numeric columns ``X_num`` (:func:`.trees._best_splits`)."""
    _, vals, order = presort(X_num)
    missing = has_missing(vals)

    def splits(w, node_of, total, mass, n_nodes):
        return _best_splits(vals, order, w, node_of, total, mass, n_nodes, missing)
    return splits


def histogram_numeric_splits(X_num, max_bins: int):
    """The histogram learner's per-node search on the numeric columns ``X_num``: the nodes'
    histograms (one ``bincount`` per feature) swept by :func:`.histogram._best_bin_splits`."""
    binned = bin_features(X_num, max_bins)
    codes, bins = binned.codes, binned.bins
    width = bins.width
    missing = np.ascontiguousarray(bins.missing, dtype=np.uint8) if bins.missing.any() else None

    def splits(w, node_of, total, mass, n_nodes):
        inside = node_of >= 0
        base, w_in = node_of[inside] * width, w[inside]
        p = codes.shape[0]
        hist = np.empty((p, n_nodes * width))
        counts = np.empty((p, n_nodes * width), dtype=np.int32)
        for j in range(p):
            index = base + codes[j, inside]
            hist[j] = np.bincount(index, weights=w_in, minlength=n_nodes * width)
            counts[j] = np.bincount(index, minlength=n_nodes * width)
        feat, _, _, score, thr, missing_left = _best_bin_splits(
            hist.reshape(p, n_nodes, width), counts.reshape(p, n_nodes, width), bins.n_bins, total, mass,
            bins.upper, bins.lower, missing)
        return feat, thr, score, missing_left
    return splits


class MixedTreeOracle(EdgeOracle):
    """Greedy edge tree (:mod:`.trees`) over the numeric columns (``numeric_splits(X_numeric)``
    returns the per-node search) and the categorical ``columns`` of ``X``."""

    def __init__(self, X, y, columns: np.ndarray, max_depth: int, numeric_splits):
        self._X, self._numeric, X_num = _split_columns(X, columns)
        self._columns = columns
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
            f, t, s, ml = self._splits(w, node_of, total, mass, k_nodes)
            f = np.asarray(f)
            found = f >= 0
            feat[found] = self._numeric[f[found]]
            thr[found], score[found] = np.asarray(t)[found], np.asarray(s)[found]
            missing_left[found] = np.asarray(ml, dtype=bool)[found]
        for j in self._columns:
            e, n, _ = category_counts(self._X[:, j], w, node_of, k_nodes)
            for k in range(k_nodes):
                s, cats, ml = categorical_left(e[k], n[k])
                if s > (score[k] + SPLIT_TOL * mass[k] if feat[k] >= 0 else -np.inf):
                    feat[k], thr[k], score[k], missing_left[k], categories[k] = j, 0.0, s, ml, cats
        return feat, thr, score, missing_left, categories

    def __call__(self, d):
        w = np.asarray(d, dtype=np.float64) * self._y
        X = self._X
        feature, threshold, left, right, value, gain = [-1], [0.0], [-1], [-1], [0.0], [0.0]
        missing_left, categories = [False], [None]
        active = [0]
        node_of = np.zeros(X.shape[0], dtype=np.int64)
        for depth in range(self._max_depth + 1):
            k_nodes = len(active)
            total, mass, has_pos, has_neg = node_stats(w, node_of, k_nodes)
            for n, nid in enumerate(active):
                value[nid] = 1.0 if total[n] >= 0.0 else -1.0
            if depth == self._max_depth:
                break
            feat, thr, score, ml, cats = self._best(w, node_of, total, mass, k_nodes)
            keep = keep_splits(feat, score, total, mass, has_pos & has_neg, depth == self._max_depth - 1)
            if not keep.any():
                break
            gains = edge_gain(score, total)
            next_node_of = np.full_like(node_of, -1)
            next_active = []
            for n, nid in enumerate(active):
                if not keep[n]:
                    continue
                feature[nid], threshold[nid], gain[nid] = int(feat[n]), float(thr[n]), float(gains[n])
                missing_left[nid], categories[nid] = bool(ml[n]), cats[n]
                rows = np.flatnonzero(node_of == n)
                to_left = goes_left(X[rows, feat[n]], thr[n], cats[n], bool(ml[n]))
                for side, chosen in ((left, to_left), (right, ~to_left)):
                    side[nid] = len(feature)
                    next_node_of[rows[chosen]] = len(next_active)
                    next_active.append(len(feature))
                    for field, empty in ((feature, -1), (threshold, 0.0), (left, -1), (right, -1), (value, 0.0),
                                         (gain, 0.0), (missing_left, False), (categories, None)):
                        field.append(empty)
            node_of, active = next_node_of, next_active
        h = DecisionTree(np.asarray(feature, dtype=np.int64), np.asarray(threshold, dtype=np.float64),
                         np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64),
                         np.asarray(value, dtype=np.float64), int(X.shape[1]), np.asarray(gain, dtype=np.float64),
                         np.asarray(missing_left, dtype=np.bool_),
                         None if all(c is None for c in categories) else tuple(categories))
        return h, h.predict(X)
