"""Frank-Wolfe step sizes, shared by every Frank-Wolfe loop of the package.

The soft-margin rules (:mod:`marginboost.soft_margin.fw_rules`), FWBoost and AdaBoost.FW
(:mod:`marginboost.functional.fwboost`) and the average-margin boost
(:mod:`marginboost.average_margin.frank_wolfe`) all step ``x + gamma d`` with ``gamma`` in
``[0, gamma_max]`` chosen by one of three rules:

* ``classic``     ``gamma_t = 2 / (t + 2)`` (t = 0, 1, ...): the open-loop step of Frank and
                  Wolfe (1956) and Jaggi (2013); the first step is 1;
* ``short_step``  ``gamma = clip(slope / curvature, 0, gamma_max)``: the maximiser of the
                  quadratic bound ``slope g - curvature g^2 / 2`` (Demyanov and Rubinov), with
                  ``slope`` the directional derivative and ``curvature`` the smoothness times
                  the squared length of ``d``; a zero curvature (linear along ``d``) steps to the
                  end while the slope is positive;
* ``line_search`` the exact minimiser along ``d``: each loop passes its own search, since what
                  it evaluates differs (:mod:`marginboost.core.line_search`).
"""
from __future__ import annotations

from typing import Callable

__all__ = ["STEP_RULES", "classic_step", "check_step_rule", "short_step", "step_size"]

STEP_RULES = ("classic", "short_step", "line_search")


def classic_step(t: int, gamma_max: float = 1.0) -> float:
    """``min(2 / (t + 2), gamma_max)``."""
    return min(2.0 / (t + 2.0), gamma_max)


def short_step(slope: float, curvature: float, gamma_max: float = 1.0) -> float:
    """``clip(slope / curvature, 0, gamma_max)``; ``gamma_max`` (slope > 0) or 0 at zero curvature."""
    if curvature == 0.0:
        return gamma_max if slope > 0.0 else 0.0
    return min(max(slope / curvature, 0.0), gamma_max)


def check_step_rule(rule: str, allowed=STEP_RULES, name: str = "step") -> str:
    """``rule`` if it is one of ``allowed``, else a ValueError naming the parameter."""
    if rule not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, got {name}={rule!r}")
    return rule


def step_size(rule: str, t: int, slope: float, curvature: Callable[[], float],
              line_search: Callable[[], float], gamma_max: float = 1.0) -> float:
    """The step of ``rule`` at round ``t``; ``curvature`` and ``line_search`` are called only
    by the rule that needs them."""
    if rule == "classic":
        return classic_step(t, gamma_max)
    if rule == "short_step":
        return short_step(slope, curvature(), gamma_max)
    return line_search()
