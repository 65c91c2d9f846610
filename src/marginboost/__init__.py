"""marginboost: boosting as convex optimisation.

Large-margin, sparse ensembles with proven iteration bounds: LPBoost, ERLPBoost,
C-ERLPBoost and the generic Frank-Wolfe scheme with MLPBoost (Mitsuboshi, Hatano, Takimoto,
"Boosting as Frank-Wolfe", arXiv 2209.10831), behind scikit-learn estimators.

Notation used throughout (the notation page of the docs, docs/notation.rst): ``m`` examples,
labels ``y`` in {-1, +1}, margin vector of a hypothesis ``u = y * h(X)``, margin matrix ``U``
(m x t), edge ``d @ u``, capped simplex ``P(m, nu) = {d in [0, 1/nu]^m : sum d = 1}``, soft
margin ``min_{d in P(m, nu)} d @ U @ w``, smoothing strength ``eta = 2 ln(m/nu)/eps``.
"""
from marginboost._version import __version__

from marginboost.core.rounds import FitResult, Status
from marginboost.soft_margin.scheme import boost
from marginboost.estimators.average_margin import AverageMarginBoostClassifier
from marginboost.estimators.classic import AdaBoostVClassifier, SmoothBoostClassifier
from marginboost.estimators.totally_corrective import SoftBoostClassifier, TotalBoostClassifier
from marginboost.estimators.soft_margin import (
    CERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    MLPBoostClassifier,
)
from marginboost.estimators.fwboost import FWBoostClassifier, FWBoostRegressor
from marginboost.estimators.gbm import GBMClassifier, GBMRegressor
from marginboost.estimators.graphsepboost import GraphSepBoostClassifier
from marginboost.estimators.maboost import AdaBoostClassifier, MABoostClassifier, MadaBoostClassifier
from marginboost.core.interrupts import FitInterruptedWarning, on_interrupt
from marginboost.estimators.base import DegenerateModelWarning
from marginboost.inspection import describe, normalised_margins, plot_importances, plot_margins
from marginboost.io.model_io import ModelFileError, load_model, save_model
from marginboost.soft_margin.restricted_lp import SolverError
from marginboost.weak_learners import HistogramStump, HistogramTree


__all__ = [
    "AdaBoostClassifier",
    "AdaBoostVClassifier",
    "AverageMarginBoostClassifier",
    "FitResult",
    "Status",
    "CERLPBoostClassifier",
    "DegenerateModelWarning",
    "ERLPBoostClassifier",
    "FWBoostClassifier",
    "FWBoostRegressor",
    "FitInterruptedWarning",
    "GBMClassifier",
    "GBMRegressor",
    "GraphSepBoostClassifier",
    "HistogramStump",
    "HistogramTree",
    "LPBoostClassifier",
    "MABoostClassifier",
    "MadaBoostClassifier",
    "MLPBoostClassifier",
    "ModelFileError",
    "SmoothBoostClassifier",
    "SoftBoostClassifier",
    "SolverError",
    "TotalBoostClassifier",
    "boost",
    "describe",
    "load_model",
    "normalised_margins",
    "on_interrupt",
    "plot_importances",
    "plot_margins",
    "save_model",
    "__version__",
]
