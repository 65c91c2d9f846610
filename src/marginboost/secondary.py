"""Secondary update rules B of the generic scheme (paper 000, Algorithm 1 line 12).

A secondary rule re-optimises the weights over all hypotheses found so far. The scheme keeps
its O(ln(m/nu)/eps^2) guarantee with *any* rule, exact or not, because each round keeps the
better of the FW candidate and the secondary one (000, Theorem 3). Rules:

* ``'lp'``       the LPBoost rule (Algorithm 2): ``argmax_{w in CH(E_{t+1})} rho(U w)``, the
                 restricted master LP, warm-started across rounds (:mod:`.restricted_lp`).
* ``'entropy'``  the ERLPBoost rule (eq. 14): ``argmax_{w in CH(E_{t+1})} rho~(U w)``
                 (:mod:`.entropic_master`). With it, Algorithm 1 *is* ERLPBoost.
* ``'none'``     no secondary update: the scheme is plain Frank-Wolfe (C-ERLPBoost for the
                 short step).
* a callable ``fn(U, w) -> w_new``: any user rule; ``U`` is the (m, t) margin matrix, ``w``
                 the FW candidate; ``w_new`` must be a probability vector of length t.

A rule is created per fit by :meth:`start` and then called once a round with the margin
matrix, the FW candidate and whether the last column is new; it returns a
:class:`Candidate` or ``None``.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .entropic_master import solve_entropic_master
from .restricted_lp import RestrictedMasterLP


@dataclass
class Candidate:
    """Weights ``w`` over the columns, their margins ``q = U w``, and optionally a distribution.

    ``step = (scale, touched)`` says that ``w`` equals ``scale * w_old`` except on the indices
    ``touched`` (FW and pairwise steps), so the loop can log it in O(1) memory.
    """

    w: np.ndarray
    q: np.ndarray
    d: np.ndarray | None = None  # the LP's optimal distribution (LPBoost's d_t)
    step: tuple | None = None


class LPRule:
    """Algorithm 2 of 000 (the LPBoost rule) with a warm-started HiGHS restricted master."""

    name = "lp"

    def start(self, m: int, nu: float, objective, eps: float) -> None:
        self._lp = RestrictedMasterLP(m, nu, objective.weights)
        self._n_cols = 0

    def __call__(self, U: np.ndarray, w_fw: np.ndarray | None) -> Candidate:
        while self._n_cols < U.shape[1]:  # append only the columns the LP has not seen
            self._lp.add_hypothesis(U[:, self._n_cols])
            self._n_cols += 1
        w, d, _ = self._lp.solve()
        return Candidate(w, U @ w, d)


class EntropyRule:
    """The ERLPBoost rule (000 eq. 14), solved to a duality gap of ``tol``.

    ``tol`` defaults to ``1e-3 * eps``: the rule's inexactness then moves the objective by
    far less than the ``eps/2`` gap at which the scheme stops, and the scheme's own stopping
    test uses the exact gap of the weights it keeps.
    """

    name = "entropy"

    def __init__(self, tol: float | None = None, max_iter: int = 500):
        self.tol = tol
        self.max_iter = max_iter

    def start(self, m: int, nu: float, objective, eps: float) -> None:
        self._objective = objective
        self._tol = self.tol if self.tol is not None else 1e-3 * eps
        self._w_prev = None
        self.last_result = None

    def __call__(self, U: np.ndarray, w_fw: np.ndarray | None) -> Candidate:
        t = U.shape[1]
        if self._w_prev is None:
            w0 = np.eye(t)[0] if w_fw is None else w_fw
        else:  # the previous optimum, zero on the new column: Newton then adds it if it helps
            w0 = np.zeros(t)
            w0[: self._w_prev.shape[0]] = self._w_prev
        res = solve_entropic_master(U, self._objective, w0, self._tol, self.max_iter)
        if not res.converged:
            warnings.warn(
                f"entropy secondary rule (active-set Newton) stopped after {res.n_iter} iterations at "
                f"duality gap {res.gap:.3g} > tol {self._tol:.3g}; the round keeps the better of this "
                "inexact solution and the FW step, so the iteration bound still holds",
                RuntimeWarning,
                stacklevel=2,
            )
        self._w_prev = res.w
        self.last_result = res
        return Candidate(res.w, U @ res.w, None)


class CallableRule:
    """Wraps a user function ``fn(U, w) -> w_new`` and checks that it returns a distribution."""

    def __init__(self, fn):
        self.fn = fn
        self.name = getattr(fn, "__name__", "callable")

    def start(self, m: int, nu: float, objective, eps: float) -> None:
        pass

    def __call__(self, U: np.ndarray, w_fw: np.ndarray | None) -> Candidate:
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


SECONDARY_RULES = {"lp": LPRule, "entropy": EntropyRule}


def resolve_secondary(spec):
    """Map ``'lp' | 'entropy' | 'none' | None`` or a callable to a secondary rule (or None)."""
    if spec is None or (isinstance(spec, str) and spec == "none"):
        return None
    if isinstance(spec, str) and spec in SECONDARY_RULES:
        return SECONDARY_RULES[spec]()
    if not isinstance(spec, str) and callable(spec):
        # a rule object with start() is used as is; a plain function gets the checking wrapper
        return spec if hasattr(spec, "start") else CallableRule(spec)
    raise ValueError(f"secondary must be one of {sorted(SECONDARY_RULES) + ['none']} or a callable, got {spec!r}")
