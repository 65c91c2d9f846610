"""The margin-boosting canon in the benchmark: TotalBoost, SoftBoost, AdaBoostV, SmoothBoost,
GraphSepBoost and our GBM, fitted on the same splits as paper 000's boosters.

Each uses the paper's weak learner (depth-2 edge trees), the benchmark's ``eps`` where the
algorithm has one, and the same per-fit ``max_time`` (then ``TIMEOUT``). SoftBoost, the one
soft-margin booster among them, runs at every ``nu`` of the grid, the others once per data set.
A record holds rounds, status, seconds, the margin the algorithm maximises (``margin_kind``:
``'soft'`` at ``nu`` for SoftBoost, ``'hard'``, the minimum normalised margin, for TotalBoost,
AdaBoostV and SmoothBoost; none for GraphSepBoost and GBM, which maximise no margin) and the
training and test errors.

Rounds are weak-learner calls. AdaBoostV stops once its minimum margin is certified to reach
the smallest edge minus ``eps``, at the latest after its round bound ``2 ln m / eps^2 + 1``
(Raetsch and Warmuth 2005). AdaBoostV and SmoothBoost get their round bounds
(:func:`~marginboost.classic.adaboostv.adaboostv_rounds`,
:func:`~marginboost.classic.smoothboost.smoothboost_rounds`) as ``max_iter`` explicitly: the
estimators' default is a fixed cap, not the bound.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Callable

from marginboost import (AdaBoostVClassifier, GBMClassifier, GraphSepBoostClassifier, SmoothBoostClassifier,
                SoftBoostClassifier, TotalBoostClassifier)
from marginboost.classic.adaboostv import adaboostv_rounds
from marginboost.classic.smoothboost import smoothboost_rounds
from marginboost.experiments.runner import MAX_DEPTH, MAX_ITER, STATUS, Split, _error, _record

TREES = {"weak_learner": "tree", "max_depth": MAX_DEPTH}
SMOOTHBOOST_KAPPA = SMOOTHBOOST_GAMMA = 0.1  # SmoothBoostClassifier's defaults


@dataclass(frozen=True)
class CanonSpec:
    """A classic booster as the benchmark names it.

    ``make(nu, eps, max_time, max_iter, seed, m)`` (``m`` the training examples);
    ``max_iter=None`` gives the algorithm its own round count (AdaBoostV's and SmoothBoost's
    bounds) or runs until its stopping rule.
    """

    key: str
    label: str
    make: Callable
    uses_nu: bool
    margin_kind: str | None  # 'soft' (at nu), 'hard', or None
    description: str


CANON = {
    "totalboost": CanonSpec(
        "totalboost", "TotalBoost", lambda nu, eps, max_time, max_iter, seed, m: TotalBoostClassifier(
            eps=eps, max_iter=max_iter or MAX_ITER, max_time=max_time, **TREES), False, "hard",
        "TotalBoostClassifier(eps)"),
    "softboost": CanonSpec(
        "softboost", "SoftBoost", lambda nu, eps, max_time, max_iter, seed, m: SoftBoostClassifier(
            nu=nu, eps=eps, max_iter=max_iter or MAX_ITER, max_time=max_time, **TREES), True, "soft",
        "SoftBoostClassifier(nu, eps)"),
    "adaboostv": CanonSpec(
        "adaboostv", "AdaBoostV", lambda nu, eps, max_time, max_iter, seed, m: AdaBoostVClassifier(
            eps=eps, max_iter=max_iter or adaboostv_rounds(m, eps), max_time=max_time, **TREES), False, "hard",
        "AdaBoostVClassifier(eps); its own round count 2 ln m / eps^2 + 1"),
    "smoothboost": CanonSpec(
        "smoothboost", "SmoothBoost", lambda nu, eps, max_time, max_iter, seed, m: SmoothBoostClassifier(
            kappa=SMOOTHBOOST_KAPPA, gamma=SMOOTHBOOST_GAMMA,
            max_iter=max_iter or smoothboost_rounds(SMOOTHBOOST_KAPPA, SMOOTHBOOST_GAMMA), max_time=max_time,
            **TREES), False, "hard",
        "SmoothBoostClassifier() (kappa = gamma = 0.1, its round bound)"),
    "graphsepboost": CanonSpec(
        "graphsepboost", "GraphSepBoost", lambda nu, eps, max_time, max_iter, seed, m: GraphSepBoostClassifier(
            max_iter=max_iter or MAX_ITER, max_time=max_time, **TREES), False, None,
        "GraphSepBoostClassifier() (until every opposite-label pair is separated)"),
    "gbm": CanonSpec(
        "gbm", "GBM (ours)", lambda nu, eps, max_time, max_iter, seed, m: GBMClassifier(
            max_iter=min(100, max_iter or 100), random_state=seed, max_time=max_time, **TREES), False, None,
        "GBMClassifier(max_iter=100, learning_rate=0.1, logistic loss, Newton leaves)"),
}
DEFAULT_CANON = tuple(CANON)


def run_canon(key: str, split: Split, nu: float | None, eps: float, max_time: float | None, max_iter: int,
              seed: int) -> dict:
    """Fit canon booster ``key`` (``nu`` a fraction of m_train, or None) on the training part; one record."""
    spec = CANON[key]
    est = spec.make(nu, eps, max_time, None if max_iter >= MAX_ITER else max_iter, seed, split.X_train.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning on a timeout: it is the status
        t0 = time.perf_counter()
        est.fit(split.X_train, split.y_train)
        seconds = time.perf_counter() - t0
    rec = _record(split, key, "canon", nu, getattr(est, "nu_", None), eps, max_time)
    rec["label"] = spec.label
    rec.update({
        "rounds": int(est.n_iter_), "status": STATUS.get(est.status_, est.status_), "seconds": seconds,
        "margin_kind": spec.margin_kind,
        "margin": float(est.margin_) if spec.margin_kind is not None else None,
        "n_hypotheses": len(est.hypotheses_),
        "train_error": _error(est.predict(split.X_train), split.y_train),
        "test_error": _error(est.predict(split.X_test), split.y_test),
    })
    return rec
