"""marginboost: boosting as convex optimisation.

Large-margin, sparse ensembles with proven iteration bounds: LPBoost, ERLPBoost,
C-ERLPBoost and the generic Frank-Wolfe scheme with MLPBoost (Mitsuboshi, Hatano, Takimoto,
"Boosting as Frank-Wolfe", arXiv 2209.10831), behind scikit-learn estimators.

Notation used throughout (design.md): ``m`` examples, labels ``y`` in {-1, +1}, margin
vector of a hypothesis ``u = y * h(X)``, margin matrix ``U`` (m x t), edge ``d @ u``,
capped simplex ``P(m, nu) = {d in [0, 1/nu]^m : sum d = 1}``, soft margin
``min_{d in P(m, nu)} d @ U @ w``, smoothing strength ``eta = 2 ln(m/nu)/eps``.
"""
__version__ = "0.1.0"  # first: model_io records it

from .booster import BoostResult, boost
from .average_margin_estimator import AverageMarginBoostClassifier
from .classic_estimators import (
    AdaBoostVClassifier,
    SmoothBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
)
from .estimators import (
    CERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    MLPBoostClassifier,
    SoftMarginBoostClassifier,
)
from .fwboost_estimators import FWBoostClassifier, FWBoostRegressor
from .gbm_estimators import GBMClassifier, GBMRegressor
from .graphsepboost_estimator import GraphSepBoostClassifier
from .maboost_estimators import AdaBoostClassifier, MABoostClassifier, MadaBoostClassifier
from .interrupts import FitInterruptedWarning, on_interrupt
from .model_io import ModelFileError, load_model, save_model
from .restricted_lp import SolverError
from .weak_learners import HistogramStump, HistogramTree


__all__ = [
    "AdaBoostClassifier",
    "AdaBoostVClassifier",
    "AverageMarginBoostClassifier",
    "BoostResult",
    "CERLPBoostClassifier",
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
    "SoftMarginBoostClassifier",
    "SmoothBoostClassifier",
    "SoftBoostClassifier",
    "SolverError",
    "TotalBoostClassifier",
    "boost",
    "load_model",
    "on_interrupt",
    "save_model",
    "__version__",
]
