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
    "resolve_weak_learner",
]

NAMED_WEAK_LEARNERS = ("stump", "tree", "hist_stump", "hist_tree")


def resolve_weak_learner(spec, max_depth: int = 2) -> WeakLearner:
    """Turn the ``weak_learner`` parameter of an estimator into a :class:`WeakLearner`.

    'stump' -> DecisionStump(), 'tree' -> EdgeTree(max_depth), 'hist_stump' -> HistogramStump(),
    'hist_tree' -> HistogramTree(max_depth), a WeakLearner -> itself,
    an object with ``fit`` and ``predict`` (a scikit-learn estimator) -> SklearnWeakLearner.
    """
    if isinstance(spec, str):
        if spec == "stump":
            return DecisionStump()
        if spec == "tree":
            return EdgeTree(max_depth=max_depth)
        if spec == "hist_stump":
            return HistogramStump()
        if spec == "hist_tree":
            return HistogramTree(max_depth=max_depth)
    elif isinstance(spec, WeakLearner):
        return spec
    elif callable(getattr(spec, "fit", None)) and callable(getattr(spec, "predict", None)):
        return SklearnWeakLearner(spec)
    raise ValueError(
        f"weak_learner must be one of {NAMED_WEAK_LEARNERS}, a WeakLearner instance, or a scikit-learn "
        f"estimator with fit/predict (and sample_weight support); got {spec!r}"
    )
