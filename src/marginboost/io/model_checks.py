"""Invariants of a loaded model that no single field of its file shows.

The codecs (:mod:`marginboost.io.model_codecs`) check each field alone: every number finite,
weights non-negative where the algorithm has no other. A file edited by hand (or by an
attacker) can still hold finite numbers whose vote is not the family's model, or overflows:
weights of 1e308 sum to inf, and ``decision_function`` returns inf or NaN. So an estimator
describes its model as the weighted vote its decision function sums (:class:`StoredVote`,
from ``_stored_vote``), and :func:`check_stored_vote` checks on load:

* ``convex``: the absolute weights sum to 1 (with non-negative weights: the simplex), as in
  the soft-margin, totally corrective and classic families and AverageMarginBoost;
* ``unit_hypotheses``: every hypothesis maps into [-1, 1] (the classifiers whose decision
  value is a vote in [-1, 1]);
* ``radius``: ``sum_j |w_j| max|h_j| <= radius`` (FWBoost's l1 ball of radius ``beta``);
* always: the bound ``sum_j |w_j| max|h_j| + |offset|`` on every decision value is below
  :data:`MAX_OUTPUT_BOUND`, so that no finite input gives a non-finite output.

Sums are compared with the relative tolerance :data:`SUM_RTOL`: real fits hold their
invariants to within a few ulps (measured: 4.4e-16 over every family), an edit does not.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from marginboost.io.model_codecs import ModelFileError
from marginboost.weak_learners import DecisionTree, Stump
from marginboost.weak_learners.regression import RegressionStump

__all__ = ["MAX_OUTPUT_BOUND", "SUM_RTOL", "StoredVote", "check_stored_vote", "output_bound"]

# Relative tolerance of the sums checked (sum |w| = 1, the l1 ball): far above the rounding of a
# float64 sum of a fit's weights, far below any edit that matters.
SUM_RTOL = 1e-9
# Half the largest float: a sum of terms whose absolute values add up to at most this cannot
# overflow in any order (the rounding of n additions grows it by a factor of at most
# 1 + n 2^-53), and neither can the 2F of the exponential loss's probability.
MAX_OUTPUT_BOUND = float(np.finfo(np.float64).max) / 2.0


@dataclass(frozen=True)
class StoredVote:
    """A model as the vote ``offset + sum_j weights[j] h_j(x)`` over its ``hypotheses_`` (up to
    a positive factor, such as MABoost's ``1 / sum(coef)``), with its family's invariants.

    ``weights_field``, ``offset_field`` and ``radius_field`` name where the file keeps them, for
    messages: "state field 'coef'", "parameter 'beta'".
    """

    weights: np.ndarray
    weights_field: str
    offset: float = 0.0
    offset_field: str | None = None
    convex: bool = False
    unit_hypotheses: bool = False
    radius: float | None = None
    radius_field: str | None = None


def output_bound(h) -> float:
    """``max_x |h(x)|`` of a hypothesis a model file can hold (a tree: its largest leaf)."""
    if isinstance(h, RegressionStump):
        # the constant stump (threshold -inf) never outputs ``left``
        return abs(h.right) if h.threshold == -np.inf else max(abs(h.left), abs(h.right))
    if isinstance(h, DecisionTree):  # RegressionTree too
        return float(np.max(np.abs(h.value[h.feature < 0])))
    if isinstance(h, Stump):
        return abs(float(h.sign))
    raise TypeError(f"no output bound for a hypothesis of type {type(h).__name__}")


def check_stored_vote(estimator, where: str = "") -> None:
    """Raise :class:`ModelFileError` naming the field, the estimator and the invariant unless
    the loaded ``estimator`` (its ``_stored_vote()``; None: no weighted vote, nothing to check)
    keeps its family's invariants. ``where`` prefixes the fields (e.g. "estimators[1] ")."""
    vote = estimator._stored_vote()
    if vote is None:
        return
    family = type(estimator).__name__
    weights = np.abs(np.asarray(vote.weights, dtype=np.float64))
    bounds = np.array([output_bound(h) for h in estimator.hypotheses_], dtype=np.float64)
    weights_field = _locate(where, vote.weights_field)
    with np.errstate(over="ignore"):  # an overflow is inf, refused below
        norm = float(np.sum(weights))
        reach = float(np.sum(weights * bounds))
        bound = reach + abs(float(vote.offset))
    if vote.convex and not abs(norm - 1.0) <= SUM_RTOL:
        raise ModelFileError(f"{weights_field}: in {family}, the weights' absolute values sum to 1 (a convex "
                             f"combination of the hypotheses); got sum {norm:.17g}")
    if vote.unit_hypotheses and bounds.size and not bounds.max() <= 1.0:
        j = int(np.argmax(bounds))
        raise ModelFileError(f"{where}hypothesis {j}: in {family}, every hypothesis maps into [-1, 1] (the vote lies "
                             f"in [-1, 1]); this one reaches {bounds[j]:.6g}")
    if vote.radius is not None and not reach <= vote.radius * (1.0 + SUM_RTOL):
        raise ModelFileError(f"{weights_field}: in {family}, the weights lie in the l1 ball sum_j |w_j| max|h_j| <= "
                             f"{vote.radius_field} = {vote.radius:.17g}; got {reach:.17g}")
    if not bound <= MAX_OUTPUT_BOUND:
        fields = weights_field + (f" and {_locate(where, vote.offset_field)}" if vote.offset_field else "")
        raise ModelFileError(f"{fields}, with the hypotheses' largest outputs max|h_j|: in {family}, the outputs are "
                             f"bounded by sum_j |w_j| max|h_j| + |offset| = {bound:.6g}, which must be at most "
                             f"{MAX_OUTPUT_BOUND:.6g} (half the largest float), or they could overflow to inf or NaN")


def _locate(where: str, field: str) -> str:
    """``field`` in the file: a one-vs-rest file keeps the state of model k under ``estimators[k]``
    (``where``), its parameters once, at the top level."""
    return field if field.startswith("parameter") else f"{where}{field}"
