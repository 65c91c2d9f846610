"""Frank-Wolfe update rules F of the generic scheme (paper 000, Algorithm 1 line 11).

Each rule maps the current weights ``w_t`` over the hypotheses so far, the new hypothesis
``e_{j_{t+1}}`` and the distribution ``d_t = grad f~*(-U w_t)`` to the FW candidate
``w_{t+1}^{(1)}``. All work in margin space: with ``q = U w_t`` and ``u`` the new column,

* ``classic``    lambda_t = 2 / (t + 2)                                   (000, Theorem 3)
* ``short_step`` lambda_t = clip_[0,1]( d_t @ (u - q) / (eta ||u - q||_inf^2) )   (Algorithm 3)
* ``line_search`` lambda_t = argmax_{[0,1]} rho~(q + lambda (u - q))       (000, section 4.2)
* ``pairwise``   moves weight from the away hypothesis
  ``a = argmin_{j : w_j > 0} d_t @ u_j`` to the new one:
  ``w + lambda (e_new - e_a)``, ``lambda = argmax_{[0, w_a]} rho~(q + lambda (u - u_a))``  (Algorithm 4);
  on a drop step (``lambda = w_a``) the better of it and the ``line_search`` step

A rule is an :class:`FWRule` (or any callable ``ctx -> FWStep``) and returns an :class:`FWStep` ``(w, q, step)``: the candidate weights, its margins ``U @ w``
and, optionally, ``step = (scale, touched)`` when ``w = scale * w_t`` except on the indices
``touched``, which lets the loop log the weights of every round in O(1) memory. (A plain tuple
``(w, q)`` or ``(w, q, step)`` is read the same way; :func:`fw_step` checks what a rule returned.)
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from marginboost.core.example_vectors import ExampleVector
from marginboost.core.line_search import newton_line_search
from marginboost.core.margin_matrix import as_margin_matrix
from marginboost.core.step_sizes import classic_step, short_step
from marginboost.soft_margin.objectives import SmoothedSoftMargin


@dataclass
class FWContext:
    """What a FW rule sees in round ``t`` (1-based, as in Algorithm 1).

    ``matrix`` holds the margin columns (:class:`~marginboost.core.margin_matrix.MarginMatrix`,
    or :class:`~marginboost.core.bit_matrix.BitMarginMatrix` for +-1 hypotheses); read it with
    ``column(j)``, ``matvec``, ``rmatvec`` and ``edges``. ``U`` gives it as a dense float (m, t)
    array, a copy when U is held in bits: convenient for a custom rule, costly at large m.
    """

    matrix: object  # the (m, n_columns) margins of the hypotheses, the new one included
    w: np.ndarray  # (n_columns,) current weights, 0 on a newly added column
    q: np.ndarray  # (m,) current margins U @ w
    d: np.ndarray  # (m,) current distribution grad f~*(-q)
    j_new: int  # column of the hypothesis the weak learner just returned
    t: int
    objective: SmoothedSoftMargin
    u_new: np.ndarray | None = None  # (m,) the new column, when the caller has it as floats

    def __post_init__(self):
        self.matrix = as_margin_matrix(self.matrix)  # an (m, t) array is accepted too

    def new_column(self) -> np.ndarray:
        """The new hypothesis' margins ``u = U[:, j_new]``: ``u_new`` if given (the loop has it, and
        decoding the column from bits cost 7 us at m = 7400), else read from the matrix."""
        return self.matrix.column(self.j_new) if self.u_new is None else self.u_new

    @property
    def U(self) -> np.ndarray:
        """The margin matrix as a dense (m, n_columns) float array."""
        return self.matrix.dense()


class FWStep(NamedTuple):
    """What a Frank-Wolfe rule returns: the candidate weights ``w`` (on the simplex, over the
    hypotheses so far, the new one included), their margins ``q = U @ w`` (the loop does not
    recompute them), and ``step = (scale, touched)`` where ``w == scale * w_t`` except on the
    indices ``touched`` (the weights path logs it in O(1) memory), or None (the nonzero weights
    are stored outright)."""

    w: np.ndarray
    q: np.ndarray
    step: tuple | None = None


def toward_new(ctx: FWContext, lam: float, delta: np.ndarray | None = None, q_new=None) -> FWStep:
    """The FW step of length ``lam`` toward the new hypothesis, ``w = (1 - lam) w_t + lam e_new``;
    ``delta``: ``u_new - q`` if known; ``q_new``: the step's margins ``q + lam delta`` if the caller
    makes them (a fit on a cluster: in one pass). A rule that only chooses a step size returns this."""
    scale = 1.0 - lam
    w1 = scale * ctx.w
    w1[ctx.j_new] += lam
    if q_new is None:
        if delta is None:
            delta = ctx.new_column() - ctx.q
        q_new = ctx.q + lam * delta
    return FWStep(w1, q_new, (scale, [ctx.j_new]))


def fw_step(rule, ctx: FWContext) -> FWStep:
    """Call the FW rule on ``ctx`` and check its answer: an :class:`FWStep` (or a tuple ``(w, q)``,
    ``(w, q, step)``) with ``w`` of one weight per hypothesis and ``q`` of one margin per example.
    Else a ``TypeError`` naming the rule, what it returned and what a rule returns (a rule
    returning a step size, e.g. ``lambda ctx: 0.5``, failed deep in the loop with 'float object
    is not subscriptable': issue 33)."""
    out = rule(ctx)
    if isinstance(out, FWStep):
        step = out
    elif isinstance(out, tuple) and len(out) in (2, 3):
        step = FWStep(*out)
    else:
        step = None
    n, m = ctx.w.shape[0], ctx.q.shape[0]
    shapes_ok = step is not None and isinstance(step.w, np.ndarray) and step.w.ndim == 1 and step.w.shape[0] == n \
        and isinstance(step.q, (np.ndarray, ExampleVector)) and len(step.q.shape) == 1 and step.q.shape[0] == m
    if not shapes_ok:
        name = getattr(rule, "__qualname__", None) or type(rule).__qualname__
        got = (f"{type(out).__name__} {out!r}" if np.ndim(out) == 0 else
               f"{type(out).__name__} of {len(out)} items" if hasattr(out, "__len__") else type(out).__name__)
        raise TypeError(
            f"the Frank-Wolfe rule step={name} returned {got}; a rule returns FWStep(w, q[, step]) "
            f"(marginboost.soft_margin.fw_rules): the new weights w over the {n} hypotheses so far and their "
            f"margins q = U @ w over the {m} examples. A rule that chooses a step size lam returns "
            "fw_rules.toward_new(ctx, lam)")
    return step


class FWRule(ABC):
    """Base of the Frank-Wolfe rules F (000, Algorithm 1 line 11): ``name`` and one hook,
    ``__call__(ctx) -> FWStep``, called once a round after the first with the round's
    :class:`FWContext`. It gets no other hook (no start, no forget): the built-in rules keep no
    state across rounds. A plain function ``ctx -> FWStep`` is accepted as well."""

    name = "fw"

    @abstractmethod
    def __call__(self, ctx: FWContext) -> FWStep:
        """The FW candidate ``w^(1)_{t+1}`` of round ``ctx.t``: weights on the simplex over the
        hypotheses so far (the new one at ``ctx.j_new``), their margins ``U @ w`` and, if known,
        ``step = (scale, touched)``; :func:`toward_new` builds it from a step size."""


class ClassicStep(FWRule):
    """lambda_t = 2 / (t + 2): the open-loop step of Frank and Wolfe (1956) and Jaggi (2013)."""

    name = "classic"

    def __call__(self, ctx: FWContext) -> FWStep:
        return toward_new(ctx, classic_step(ctx.t))


class ShortStep(FWRule):
    """Algorithm 3 of 000: the step maximising the eta-smoothness lower bound (C-ERLPBoost)."""

    name = "short_step"

    def __call__(self, ctx: FWContext) -> FWStep:
        delta = ctx.new_column() - ctx.q
        scale = float(abs(delta).max())  # (a method: margins on a cluster have it too)
        return toward_new(ctx, short_step(float(ctx.d @ delta), ctx.objective.eta * scale * scale), delta)


class LineSearch(FWRule):
    """lambda_t = argmax over [0, 1] of the smoothed soft margin along the FW direction."""

    name = "line_search"

    def __call__(self, ctx: FWContext) -> FWStep:
        delta = ctx.new_column() - ctx.q
        return toward_new(ctx, newton_line_search(ctx.objective, ctx.q, ctx.d, delta, 1.0)[0], delta)


class Pairwise(FWRule):
    """Algorithm 4 of 000 (Lacoste-Julien and Jaggi 2015): shift weight from the away hypothesis.

    A *drop step* (the line search reaches ``lambda = w_away``, so ``away`` leaves the support)
    may gain almost nothing: Lacoste-Julien and Jaggi bound the number of such steps by the
    number of FW steps, but in the scheme a secondary rule can put the dropped hypothesis back
    every round. That happened: the LP rule's vertex carried round-off weights of 1e-17, each
    round's pairwise step moved 1e-17 of mass, tied with the LP candidate, and the LP candidate
    (ties go to the secondary) came back unchanged: 400,000 rounds at a constant gap (german,
    nu = 0.1m, depth-2 trees). So on a drop step the rule also takes the FW line-search step
    toward the new hypothesis and returns the better of the two (by the smoothed objective):
    every round then gains at least what the FW line search gains, which is all that the
    convergence argument of 000 (Theorem 3) uses. Steps that are not drop steps are Algorithm 4's.
    """

    name = "pairwise"

    def __call__(self, ctx: FWContext) -> FWStep:
        active = np.flatnonzero(ctx.w > 0.0)
        away = int(active[np.argmin(ctx.matrix.edges(ctx.d, active))])
        if away == ctx.j_new:
            return toward_new(ctx, 0.0)
        delta = ctx.new_column() - ctx.matrix.column(away)
        lam_max = float(ctx.w[away])
        lam, q1, d1 = newton_line_search(ctx.objective, ctx.q, ctx.d, delta, lam_max)  # q1 = q + lam delta
        w1 = ctx.w.copy()
        w1[ctx.j_new] += lam
        w1[away] = 0.0 if lam >= lam_max else w1[away] - lam  # a drop step removes `away` exactly
        if lam < lam_max:
            return FWStep(w1, q1, (1.0, [ctx.j_new, away]))
        fw = LineSearch()(ctx)
        if ctx.objective.value(fw.q) > ctx.objective.value_at(q1, d1):
            return fw
        return FWStep(w1, q1, (1.0, [ctx.j_new, away]))


FW_RULES = {r.name: r for r in (ClassicStep, ShortStep, LineSearch, Pairwise)}


def resolve_fw_rule(spec):
    """Map ``'classic' | 'short_step' | 'line_search' | 'pairwise'`` to a new rule; an
    :class:`FWRule` or any other callable ``ctx -> FWStep`` is the rule itself (it has no hook to
    default: :func:`fw_step` checks what it returns)."""
    if isinstance(spec, str) and spec in FW_RULES:
        return FW_RULES[spec]()
    if not isinstance(spec, str) and callable(spec):
        return spec
    raise ValueError(f"fw must be one of {sorted(FW_RULES)} or a callable rule, got {spec!r}")
