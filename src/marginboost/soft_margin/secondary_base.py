"""The contract of a secondary rule B of the generic scheme (paper 000, Algorithm 1 line 12).

Each round of Algorithm 1 builds the FW candidate ``w^(1) = F(w_t, e_{j_{t+1}})`` and the
secondary one ``w^(2) = B(U_{t+1})``, and keeps the better by the objective::

    w_{t+1} = argmax over {w^(1), w^(2)} of  rho~(U_{t+1} w)          (000, Algorithm 1 line 13)

so the O(ln(m/nu)/eps^2) bound of Theorem 3 holds for *any* B, exact or not. A rule is a
:class:`SecondaryRule`: the scheme (:mod:`marginboost.soft_margin.scheme`) calls its hooks and
nothing else, and the base supplies a default for every hook but the update itself:

=================================================  ======================================================
hook                                               default, and when the scheme calls it
=================================================  ======================================================
``start(m, nu, objective, eps)``                   nothing; once per fit, before the first round
``__call__(margins, w_fw, fw_start=None)``         (required) once a round: the candidate, a :class:`Candidate`
``forget(n_columns)``                              nothing; at a round's start, when a rolled-back round
                                                   (Ctrl-C) had added columns beyond ``n_columns``
``skip_round(fw_gain) -> bool``                    False (never skip); before the update, with the FW
                                                   candidate's gain ``rho~(U w^(1)) - rho~(U w_t)``
``observe(advantage)``                             nothing; after a round it ran, with what its candidate
                                                   gained over the FW one (0 if it lost)
``takes_margin_matrix`` (class attribute)          False: ``margins`` is the dense (m, t) float array U;
                                                   True: the loop's matrix object itself
``warm_from_fw`` (class attribute)                 False; True: ``fw_start = (q, d)`` is passed, the FW
                                                   candidate's margins ``U w_fw`` and distribution
=================================================  ======================================================

``skip_round`` and ``observe`` are asked only where the FW candidate's value is known before the
update (a FW rule, the smoothed objective, after the first round); ``fw_start`` likewise.

A user's plain function ``fn(U, w) -> w_new`` is wrapped by :class:`CallableRule`; a user's rule
object that does not subclass :class:`SecondaryRule` by :class:`ObjectRule`
(:func:`marginboost.soft_margin.secondary.resolve_secondary` chooses).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

__all__ = ["Candidate", "CallableRule", "ObjectRule", "SecondaryRule", "as_secondary_rule"]

# The hooks a rule object may define beside __call__ (the flags are class attributes).
_METHOD_HOOKS = ("start", "forget", "skip_round", "observe")
_FLAG_HOOKS = ("takes_margin_matrix", "warm_from_fw")


@dataclass
class Candidate:
    """Weights ``w`` over the columns, their margins ``q = U w``, and optionally a distribution.

    ``step = (scale, touched)`` says that ``w`` equals ``scale * w_old`` except on the indices
    ``touched`` (FW and pairwise steps), so the loop can log it in O(1) memory.
    ``evaluated = (objective, d, value)`` carries ``objective.distribution(q)`` and
    ``objective``'s value at ``q`` when the rule has them already, so the scheme does not project
    again (one projection costs a pass over the m examples).
    """

    w: np.ndarray
    q: np.ndarray
    d: np.ndarray | None = None  # the LP's optimal distribution (LPBoost's d_t)
    step: tuple | None = None
    evaluated: tuple | None = None


class SecondaryRule(ABC):
    """Base of every secondary rule B (module docstring): subclass it and write ``__call__``;
    override any other hook the rule needs."""

    name = "secondary"
    # The dense (m, t) array costs a copy of U a round (U is held in bits for +-1 hypotheses);
    # a rule that reads the loop's matrix object (matvec, rmatvec, column, block_t, dense) sets True.
    takes_margin_matrix = False
    # A rule that starts from the FW candidate sets True and receives its margins and distribution
    # (fw_start), which the scheme has computed already: one projection (a pass over m) saved.
    warm_from_fw = False

    def start(self, m: int, nu: float, objective, eps: float) -> None:
        """Begin a fit on ``m`` examples with cap ``1/nu``, the smoothed ``objective``
        (:class:`~marginboost.soft_margin.objectives.SmoothedSoftMargin`) and accuracy ``eps``.
        Default: nothing (a rule that keeps no state across rounds)."""

    @abstractmethod
    def __call__(self, margins, w_fw: np.ndarray | None, fw_start: tuple | None = None) -> Candidate:
        """The rule's candidate ``w^(2)`` over the ``t`` columns of ``margins`` (the dense (m, t)
        array U, or the matrix object if ``takes_margin_matrix``): weights on the simplex and their
        margins ``U w``. ``w_fw``: this round's FW candidate (None without a FW rule).
        ``fw_start = (U w_fw, d(U w_fw))`` is passed only to a rule with ``warm_from_fw``, so any
        other rule may leave the parameter out."""

    def forget(self, n_columns: int) -> None:
        """Drop what the rule keeps of columns ``n_columns`` and beyond: a round rolled back
        (Ctrl-C) after its column reached the rule. Default: nothing (a rule that keeps no columns)."""

    def skip_round(self, fw_gain: float) -> bool:
        """Whether to skip this round's update, the FW candidate gaining ``fw_gain`` over the
        current weights (the round then keeps the FW candidate; Theorem 3 of 000 needs nothing of B).
        Default: never."""
        return False

    def observe(self, advantage: float) -> None:
        """After a round the rule ran: the objective its candidate gained over the FW one (0 if it
        lost). Default: nothing."""


class CallableRule(SecondaryRule):
    """Wraps a user function ``fn(U, w) -> w_new`` and checks that it returns a distribution."""

    def __init__(self, fn):
        self.fn = fn
        self.name = getattr(fn, "__name__", "callable")  # a functools.partial or a callable object has none

    def __call__(self, U: np.ndarray, w_fw: np.ndarray | None) -> Candidate:
        """``fn(U, copy of w_fw)``, checked: a non-negative finite vector of length t summing to 1."""
        w = np.asarray(self.fn(U, None if w_fw is None else w_fw.copy()), dtype=np.float64)
        t = U.shape[1]
        if w.shape != (t,) or not np.all(np.isfinite(w)) or np.any(w < -1e-12):
            raise ValueError(
                f"the secondary rule {self.name!r} must return a non-negative finite vector of "
                f"length {t} (one weight per hypothesis), got shape {w.shape}"
            )
        total = w.sum()
        if not abs(total - 1.0) <= 1e-6:
            raise ValueError(f"the secondary rule {self.name!r} must return weights summing to 1, got {total}")
        w = np.clip(w, 0.0, None) / total
        return Candidate(w, U @ w, None)


class ObjectRule(SecondaryRule):
    """A user's rule object that does not subclass :class:`SecondaryRule` (written to the
    duck-typed contract of earlier releases: ``start`` and ``__call__``): its hooks where it has
    them, the base's defaults where it has not. The object's hooks are looked up once, here, so
    the scheme calls the base's interface only."""

    def __init__(self, rule):
        self.rule = rule
        self.name = getattr(rule, "name", type(rule).__name__)
        for flag in _FLAG_HOOKS:
            setattr(self, flag, bool(getattr(rule, flag, False)))
        # each hook the object defines replaces the base's default on this instance
        for hook in _METHOD_HOOKS:
            method = getattr(rule, hook, None)
            if callable(method):
                setattr(self, hook, method)

    def __call__(self, margins, w_fw: np.ndarray | None, fw_start: tuple | None = None) -> Candidate:
        """The object's candidate; ``fw_start`` only if it asked for it (``warm_from_fw``)."""
        if fw_start is None:
            return self.rule(margins, w_fw)
        return self.rule(margins, w_fw, fw_start=fw_start)


def as_secondary_rule(rule) -> SecondaryRule:
    """A :class:`SecondaryRule` for a callable ``rule``: itself if it subclasses the base; an
    :class:`ObjectRule` if it is a rule object of another class (it has a hook of the base beside
    ``__call__``: ``start``, ``forget``, ...); else a :class:`CallableRule`, for a plain function
    ``fn(U, w) -> w_new``.

    Why an adapter rather than a ``TypeError`` for an object that does not subclass the base: rule
    objects with ``start`` and ``__call__`` were the documented contract before the base existed,
    and refusing them would break users' rules without a release of notice (issue 30 keeps old
    public names working for a release). The adapter looks the hooks up once, here, so the scheme
    calls the base's interface and probes nothing."""
    if isinstance(rule, SecondaryRule):
        return rule
    if any(hasattr(rule, hook) for hook in _METHOD_HOOKS + _FLAG_HOOKS):
        return ObjectRule(rule)
    return CallableRule(rule)
