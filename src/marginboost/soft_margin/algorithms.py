"""Named soft-margin boosters as assemblies of the loop's parts (paper 000, sections 3-4).

=============  ==================  ============  =================
algorithm      objective           FW rule F     secondary rule B
=============  ==================  ============  =================
LPBoost        soft margin rho     --            LP (eq. 13)
ERLPBoost      smoothed rho~       short step    entropy (eq. 14)
C-ERLPBoost    smoothed rho~       short step    --
MLPBoost       smoothed rho~       any           LP (Algorithm 2)
generic        smoothed rho~       any           any
=============  ==================  ============  =================

ERLPBoost keeps the short-step candidate although the exact entropy rule always wins (its
optimum over ``CH(E_{t+1})`` is at least as good as any FW point there): with an inexactly
solved subproblem the FW candidate is the safety net that keeps the O(ln(m/nu)/eps^2) bound.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from marginboost.core.rounds import FitResult, run_rounds
from marginboost.soft_margin.scheme import SoftMarginLoop
from marginboost.soft_margin.fw_rules import resolve_fw_rule
from marginboost.soft_margin.objectives import SmoothedSoftMargin, SoftMargin, entropy_eta
from marginboost.soft_margin.secondary import resolve_secondary


@dataclass(frozen=True)
class Assembly:
    """Which parts make an algorithm: objective kind, FW rule, secondary rule."""

    smoothed: bool
    step: object  # the FW rule (the estimators' parameter step): a rule name, a rule object, or None
    secondary: object  # a secondary rule name, a callable, or None


LPBOOST = Assembly(smoothed=False, step=None, secondary="lp")
ERLPBOOST = Assembly(smoothed=True, step="short_step", secondary="entropy")
CERLPBOOST = Assembly(smoothed=True, step="short_step", secondary=None)


def mlpboost(step="short_step", secondary="lp") -> Assembly:
    """The generic scheme (Algorithm 1) with the FW rule ``step``; with the default LP rule it is MLPBoost."""
    return Assembly(smoothed=True, step=step, secondary=secondary)


def run(
    assembly: Assembly,
    oracle,
    y: np.ndarray,
    nu: float,
    eps: float,
    max_iter: int = 1000,
    max_time: float | None = None,
    weights: np.ndarray | None = None,
    **options,
) -> FitResult:
    """Fit the assembled algorithm with a prepared weak-learner ``oracle``.

    ``weights`` are optional example weights scaled to mean 1 (see :mod:`marginboost.soft_margin.objectives`);
    ``options`` (``callbacks``, ``verbose``, ``name``) go to :func:`~marginboost.core.rounds.run_rounds`.
    """
    options.setdefault("name", "soft-margin boost")
    return run_rounds(soft_margin_loop(assembly, oracle, y, nu, eps, weights), max_iter=max_iter, max_time=max_time,
                      **options)


def soft_margin_loop(assembly: Assembly, oracle, y: np.ndarray, nu: float, eps: float,
                     weights: np.ndarray | None = None) -> SoftMarginLoop:
    """The loop of the assembled algorithm (:func:`run`), its rules resolved and started, ready
    for :func:`~marginboost.core.rounds.run_rounds`."""
    m = y.shape[0]
    smoothed = SmoothedSoftMargin(nu, entropy_eta(m, nu, eps), weights)
    objective = smoothed if assembly.smoothed else SoftMargin(nu, weights)
    fw_rule = resolve_fw_rule(assembly.step) if assembly.step is not None else None
    secondary = resolve_secondary(assembly.secondary)
    if secondary is not None:
        secondary.start(m, nu, smoothed, eps)
    return SoftMarginLoop(oracle, y, objective, eps, fw_rule, secondary, smoothed)
