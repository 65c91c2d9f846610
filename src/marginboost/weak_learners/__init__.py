"""Weak learners: edge oracles for boosting as Frank-Wolfe.

Each weak learner answers a distribution d over the sample with a hypothesis h of large edge

    edge(h; d) = sum_i d_i y_i h(x_i)            (paper 000, Mitsuboshi et al., section 2),

the linear minimisation oracle of the Frank-Wolfe view (000, section 4.1). See :mod:`.base`
for the contract.
"""
from __future__ import annotations

from marginboost.weak_learners.base import EdgeOracle, Hypothesis, WeakLearner
from marginboost.weak_learners.sklearn_adapter import SklearnWeakLearner
from marginboost.weak_learners.stumps import DecisionStump, Stump
from marginboost.weak_learners.trees import DecisionTree, EdgeTree
from marginboost.weak_learners.binning import BinnedFeatures, Bins, bin_features, bin_thresholds
from marginboost.weak_learners.histogram import HistogramStump, HistogramTree
from marginboost.weak_learners.histogram_regression import HistogramLeastSquaresStump, HistogramLeastSquaresTree
from marginboost.weak_learners.naive_bayes import GaussianNaiveBayes
from marginboost.weak_learners.regression import LeastSquaresStump, LeastSquaresTree, RegressionLearner, SklearnRegressionLearner

from marginboost.weak_learners.worst_case import TableHypothesis, WorstCaseLearner, make_lpboost_worst_case

__all__ = [
    "BinnedFeatures",
    "Bins",
    "DecisionStump",
    "DecisionTree",
    "EdgeOracle",
    "EdgeTree",
    "GaussianNaiveBayes",
    "HistogramLeastSquaresStump",
    "HistogramLeastSquaresTree",
    "HistogramStump",
    "HistogramTree",
    "Hypothesis",
    "LeastSquaresStump",
    "LeastSquaresTree",
    "RegressionLearner",
    "SklearnRegressionLearner",
    "SklearnWeakLearner",
    "Stump",
    "TableHypothesis",
    "WeakLearner",
    "WorstCaseLearner",
    "bin_features",
    "bin_thresholds",
    "make_lpboost_worst_case",
    "resolve_regression_learner",
    "resolve_weak_learner",
]

NAMED_WEAK_LEARNERS = ("stump", "tree", "hist_stump", "hist_tree")
# The learner each name gives, in NAMED_WEAK_LEARNERS's order, for classification (edge) and
# regression (least squares); the trees take max_depth.
_EDGE_LEARNERS = (DecisionStump, EdgeTree, HistogramStump, HistogramTree)
_LEAST_SQUARES_LEARNERS = (LeastSquaresStump, LeastSquaresTree, HistogramLeastSquaresStump, HistogramLeastSquaresTree)


def _resolve(spec, max_depth: int, named: tuple, base: type, adapter, what: str):
    if isinstance(spec, str) and spec in NAMED_WEAK_LEARNERS:
        cls = named[NAMED_WEAK_LEARNERS.index(spec)]
        return cls(max_depth=max_depth) if spec.endswith("tree") else cls()
    if isinstance(spec, base):
        return spec
    if callable(getattr(spec, "fit", None)) and callable(getattr(spec, "predict", None)):
        return adapter(spec)
    raise ValueError(
        f"weak_learner must be one of {NAMED_WEAK_LEARNERS}, {what}, or a scikit-learn estimator with fit/predict "
        f"(and sample_weight support); got weak_learner={spec!r}"
    )


def resolve_weak_learner(spec, max_depth: int = 2) -> WeakLearner:
    """Turn the ``weak_learner`` parameter of an estimator into a :class:`WeakLearner`.

    'stump' -> DecisionStump(), 'tree' -> EdgeTree(max_depth), 'hist_stump' -> HistogramStump(),
    'hist_tree' -> HistogramTree(max_depth), a WeakLearner -> itself,
    an object with ``fit`` and ``predict`` (a scikit-learn estimator) -> SklearnWeakLearner.
    """
    return _resolve(spec, max_depth, _EDGE_LEARNERS, WeakLearner, SklearnWeakLearner, "a WeakLearner instance")


def resolve_regression_learner(spec, max_depth: int = 3) -> RegressionLearner:
    """Turn the ``weak_learner`` parameter of a regression loop (GBM, FWBoost_R) into a
    :class:`RegressionLearner`: 'stump' -> LeastSquaresStump(), 'tree' -> LeastSquaresTree(max_depth),
    'hist_stump' -> HistogramLeastSquaresStump(), 'hist_tree' -> HistogramLeastSquaresTree(max_depth)
    (255 bins), a RegressionLearner -> itself, a scikit-learn regressor -> SklearnRegressionLearner."""
    return _resolve(spec, max_depth, _LEAST_SQUARES_LEARNERS, RegressionLearner, SklearnRegressionLearner,
                    "a RegressionLearner")
