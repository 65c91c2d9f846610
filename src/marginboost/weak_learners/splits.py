"""Where a hypothesis splits: the features it tests, and the share of its weight each carries.

The feature importances of the estimators (:mod:`marginboost.estimators.importances`) and the
printed model (:mod:`marginboost.inspection`) read hypotheses through these helpers only, so
that a new field of a hypothesis (the side missing values go to, a categorical split) is read
in one place.

The *feature shares* of a hypothesis h are numbers ``s_j(h) >= 0``, one per feature, that sum
to 1 when h splits on some feature and are all 0 when it splits on none:

* a :class:`.Stump` or :class:`.RegressionStump`: 1 for its feature; none for the constant
  (threshold -inf);
* a :class:`.DecisionTree` (edge tree) or :class:`.RegressionTree`: each internal node k carries
  the share ``gain[k] / sum_l gain[l]`` of the tree (:func:`node_shares`; the gain is the edge
  the split added, or the decrease of the weighted squared error, :attr:`.DecisionTree.gain`),
  and feature j the sum of the shares of its nodes. A tree without stored gains (one written
  to a model file before trees kept them, or built by hand), or whose gains are all 0, splits
  its share equally over its internal nodes. A single leaf splits on nothing.
* a :class:`.SklearnHypothesis` of an estimator with ``feature_importances_`` (a scikit-learn
  tree or forest): those, scaled to sum 1 (scikit-learn's normalised impurity decrease).

Any other hypothesis (naive Bayes, a table, an estimator without ``feature_importances_``)
tests no feature that can be read off it: :func:`feature_shares` raises ``TypeError``.
"""
from __future__ import annotations

import numpy as np

from marginboost.weak_learners.regression import RegressionStump
from marginboost.weak_learners.sklearn_adapter import SklearnHypothesis
from marginboost.weak_learners.stumps import Stump
from marginboost.weak_learners.trees import DecisionTree

__all__ = ["feature_shares", "missing_side", "node_shares", "split_categories"]


def node_shares(tree: DecisionTree) -> np.ndarray:
    """The share of ``tree``'s weight each node carries: ``gain[k] / sum gain`` at the internal
    nodes, 0 at the leaves; ``1 / (internal nodes)`` each where the tree stores no gains or they
    sum to 0 (a root split of no gain whose children were not split); all 0 for a lone leaf."""
    internal = tree.feature >= 0
    shares = np.zeros(tree.node_count)
    if not internal.any():
        return shares
    gain = None if tree.gain is None else np.where(internal, tree.gain, 0.0)
    total = 0.0 if gain is None else float(gain.sum())
    if total > 0.0:
        return gain / total
    shares[internal] = 1.0 / np.count_nonzero(internal)
    return shares


def feature_shares(h, n_features: int) -> np.ndarray:
    """The feature shares of ``h`` (module docstring), an array of ``n_features`` numbers summing
    to 1, or all 0 where ``h`` splits on no feature. ``TypeError`` for a hypothesis of a type
    that tests no feature readable off it."""
    shares = np.zeros(n_features)
    if isinstance(h, (Stump, RegressionStump)):
        if h.threshold != -np.inf:
            shares[h.feature] = 1.0
        return shares
    if isinstance(h, DecisionTree):  # RegressionTree too
        internal = h.feature >= 0
        np.add.at(shares, h.feature[internal], node_shares(h)[internal])
        return shares
    importances = getattr(getattr(h, "estimator", None), "feature_importances_", None)
    if isinstance(h, SklearnHypothesis) and importances is not None:
        importances = np.asarray(importances, dtype=np.float64)
        total = float(importances.sum())
        return importances / total if total > 0.0 else shares
    raise TypeError(f"a hypothesis of type {type(h).__name__} splits on no feature that can be read off it "
                    "(feature shares exist for stumps, trees and scikit-learn estimators with feature_importances_)")


def missing_side(h, node: int = 0) -> str | None:
    """``'left'`` or ``'right'``: the side missing values (NaN) go to at the split of ``node`` (0
    for a stump), where ``h`` records it in a field ``missing_left`` (a bool for a stump, one per
    node for a tree; left is the side of ``x <= threshold``); None where ``h`` records no side."""
    missing_left = getattr(h, "missing_left", None)
    if missing_left is None:
        return None
    left = missing_left[node] if np.ndim(missing_left) else missing_left
    return "left" if bool(left) else "right"


def split_categories(h, node: int = 0) -> tuple | None:
    """The category codes the split of ``node`` (0 for a stump) sends left where it is categorical
    (:mod:`.categorical`), else None."""
    categories = getattr(h, "categories", None)
    if categories is None:
        return None
    return categories[node] if isinstance(h, DecisionTree) else categories
