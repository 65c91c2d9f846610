"""marginboost: boosting as convex optimisation.

Large-margin, sparse ensembles with proven iteration bounds: LPBoost, ERLPBoost,
C-ERLPBoost and the generic Frank-Wolfe scheme with MLPBoost (Mitsuboshi, Hatano, Takimoto,
"Boosting as Frank-Wolfe", arXiv 2209.10831), behind scikit-learn estimators.

Notation used throughout (design.md): ``m`` examples, labels ``y`` in {-1, +1}, margin
vector of a hypothesis ``u = y * h(X)``, margin matrix ``U`` (m x t), edge ``d @ u``,
capped simplex ``P(m, nu) = {d in [0, 1/nu]^m : sum d = 1}``, soft margin
``min_{d in P(m, nu)} d @ U @ w``, smoothing strength ``eta = 2 ln(m/nu)/eps``.
"""
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
from .restricted_lp import SolverError

__version__ = "0.1.0"

__all__ = [
    "AdaBoostClassifier",
    "AdaBoostVClassifier",
    "AverageMarginBoostClassifier",
    "BoostResult",
    "CERLPBoostClassifier",
    "ERLPBoostClassifier",
    "FWBoostClassifier",
    "FWBoostRegressor",
    "GBMClassifier",
    "GBMRegressor",
    "GraphSepBoostClassifier",
    "LPBoostClassifier",
    "MABoostClassifier",
    "MadaBoostClassifier",
    "MLPBoostClassifier",
    "SoftMarginBoostClassifier",
    "SmoothBoostClassifier",
    "SoftBoostClassifier",
    "SolverError",
    "TotalBoostClassifier",
    "boost",
    "__version__",
]
