"""MABoost: boosting as online mirror ascent (paper 002: Naghibi and Pfister, NIPS 2014).

Notation (docs/notation.rst): ``m`` examples, ``y`` in {-1, +1}, hypothesis ``h_t`` with margin
vector ``u_t = y * h_t(X)`` (002 calls it the loss vector ``d_t``), edge under ``w_t``:
``gamma_t = w_t @ u_t``. With a regulariser ``R`` (:mod:`marginboost.mirror.bregman`: negative entropy or
squared l2), a convex set ``K`` and ``L >= ||u_t||_*^2`` (``L = 1`` for the entropy, whose
dual norm is l_inf; ``L = m`` for l2), Algorithm 1 of 002 is::

    x_1 = argmin_K R  (uniform),   theta_1 = grad R(x_1)
    for t = 1, 2, ...:
        (a) h_t = WL(w_t),  w_t = x_t / ||x_t||_1 (= x_t on the simplex),  gamma_t = w_t @ u_t
        (b) eta_t = gamma_t ||x_t||_1 / L                                  (Theorem 1)
        (c) theta_{t+1} = grad R(x_t) - eta_t u_t      (active update, MABoost)
            theta_{t+1} = theta_t     - eta_t u_t      (lazy update, LAMABoost / dual averaging)
        (d) x_{t+1} = P_K(theta_{t+1}) = argmin_{x in K} B_R(x, grad R^{-1}(theta_{t+1}))
    output f(x) = sign(sum_t eta_t h_t(x))

The analysis is that of online mirror descent with linear losses ``u_t`` against the
comparator ``e`` = uniform over the training mistakes of ``f`` (for which
``e @ sum_t eta_t u_t <= 0``, 002 eq. 14): for every ``e in K``, both updates give

    sum_t eta_t (x_t - e) @ u_t <= B_R(e, x_1) + sum_t eta_t^2 ||u_t||_*^2 / 2,     (002 eq. 13, 18)

hence ``sum_t gamma_t^2 / (2L) <= B_R(e, x_1)``, i.e. the training error bounds of Theorem 1

    l2:      eps <= 1 / (1 + sum_t gamma_t^2)                                 (002 eq. 8)
    entropy: eps <= exp(-sum_t gamma_t^2 / 2)                                 (002 eq. 9)

With the entropy and the simplex both updates are AdaBoost's multiplicative update
``w_{t+1} ~ w_t exp(-eta_t u_t)``, only with ``eta_t = gamma_t`` instead of
``1/2 ln((1 + gamma_t)/(1 - gamma_t))`` (002 after eq. 15).

The variants (:func:`maboost`, :func:`madaboost`) change only ``K``, the step or the
projection; the loop is :class:`MirrorAscentLoop`, run by :func:`mirror_ascent_boost` through
the round driver :func:`marginboost.core.rounds.run_rounds`. :func:`adaboost` is plain AdaBoost in
the same loop (the baseline of the speed benchmark).

Sample weights ``s`` (positive, scaled to sum ``m``) mean replication: example ``i`` stands
for ``s_i`` copies, which the update keeps equal. The loop then works on the distribution
over examples ``x`` (``x_i`` = total weight of the copies), while the mirror image is per
copy, ``theta = grad R(x / s)``, and the projections map it back (:class:`MirrorAscent`).
Run on the replicated sample (``s`` integer), every variant gives the same distributions
summed over copies: ``L`` is still ``m`` (the number of copies) for l2, a copy's cap stays
``1/(lambda m)`` (``1/(lambda m_B)`` with ``m_B`` the copies in the secondary set), so example
``i``'s is ``s_i`` times that, and ``x_1 = s / m``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, history_columns, run_rounds
from marginboost.mirror import bregman
from marginboost.mirror.bregman import REGULARIZERS, mirror_map

UPDATES = ("active", "lazy")
VARIANTS = ("normal", "maxmargin", "smooth", "combined", "sparse")
MADABOOST_STEPS = ("paper", "adaboost")
# learning_rate lies in (0, MAX_LEARNING_RATE). At 2 and above no round makes progress in the
# analysis of any assembly here: AdaBoost's step lr * atanh(gamma) has the normaliser
# Z = sqrt(1 - gamma^2) cosh((lr - 1) atanh(gamma)) >= 1, so the exponential loss and the
# training-error bound prod_t Z_t stop falling; and the per-round gain of the regret bound
# (002 eq. 13, Theorems 1 and 5), eta_t ||x_t|| gamma_t - eta_t^2 L / 2 with eta_t = lr gamma_t
# ||x_t|| / L, is (lr - lr^2/2) gamma_t^2 ||x_t||^2 / L <= 0. Far above, one step erases every
# example its hypothesis gets right (exp(-2 eta_t) underflows): at lr = 1e10 AdaBoost and MABoost
# kept a vote worse than the majority class; at lr ~ 1e307 the steps overflowed (NaN decisions).
MAX_LEARNING_RATE = 2.0


def _check_learning_rate(learning_rate: float) -> None:
    """``ValueError`` unless ``0 < learning_rate < 2`` (:data:`MAX_LEARNING_RATE`: why 2)."""
    if not 0.0 < learning_rate < MAX_LEARNING_RATE:
        raise ValueError(f"learning_rate must be > 0 and < {MAX_LEARNING_RATE:g} (at {MAX_LEARNING_RATE:g} and above "
                         f"no round is guaranteed to make progress), got {learning_rate!r}")


# One row per round t: the distribution w_t handed to the weak learner, and the ensemble
# f_t = sum_{s <= t} eta_s h_s after the update that follows. The driver adds 'round' (t)
# first and 'time' (seconds since the start, at the end of round t) last.
LOOP_COLUMNS = (
    "edge",  # gamma_t = w_t @ u_t
    "step",  # eta_t, the coefficient of h_t
    "penalty",  # alpha_t, SparseBoost's l1 factor (0 elsewhere)
    "mass",  # ||x_t||_1 (1 except for SparseBoost and MadaBoost, whose x_t is not normalised)
    "train_error",  # training error of sign(f_t), ties (f = 0) predicted negative
    "min_margin",  # min_i y_i f_t(x_i) / sum_s eta_s
    "entropy",  # -sum_i w_t,i ln w_t,i (nats; ln m is uniform)
    "max_weight",  # max_i w_t,i
    "n_zero",  # number of examples with w_t,i = 0
)
HISTORY_COLUMNS = history_columns(LOOP_COLUMNS)


@dataclass(frozen=True)
class EdgeStep:
    """``eta_t = lr * gamma_t ||x_t||_1 / L``: 002 Theorem 1 (and eq. 36, Theorem 5)."""

    L: float
    learning_rate: float = 1.0

    def __call__(self, t: int, edge: float, mass: float) -> float:
        return self.learning_rate * edge * mass / self.L


@dataclass(frozen=True)
class MaxMarginStep:
    """``eta_t = lr * gamma_t ||x_t||_1 / (L sqrt(t))``: the max-margin setting (002 Theorem 2).

    Dividing the edge step by ``sqrt(t)`` (as the authors' R package does) makes
    ``sum eta_t^2 / sum eta_t -> 0``, so the normalised margin of ``f`` tends to
    ``gamma_min - nu`` with ``nu = O(log T / sqrt(T))`` (002 eqs. 19-23).
    """

    L: float
    learning_rate: float = 1.0

    def __call__(self, t: int, edge: float, mass: float) -> float:
        return self.learning_rate * edge * mass / (self.L * np.sqrt(t))


@dataclass(frozen=True)
class AdaBoostStep:
    """``eta_t = lr * 1/2 ln((1 + gamma_t)/(1 - gamma_t))``: AdaBoost's (and MadaBoost's) coefficient.

    A perfect hypothesis (``gamma_t = 1``) gets the finite step of ``gamma = 1 - 1e-15``.
    """

    learning_rate: float = 1.0

    def __call__(self, t: int, edge: float, mass: float) -> float:
        g = min(edge, 1.0 - 1e-15)
        return self.learning_rate * 0.5 * np.log((1.0 + g) / (1.0 - g))


@dataclass(frozen=True)
class SparsePenalty:
    """SparseBoost's l1 factor ``alpha_t = c * eta_t gamma_t ||z_t||_1 / 2``, ``0 <= c < 1``.

    Per round the regret bound gains ``eta_t ||z_t|| gamma_t - eta_t^2 m / 2 - alpha_t``
    (002 eq. 35), which with ``eta_t = ||z_t|| gamma_t / m`` is ``(1 - c) ||z_t||^2 gamma_t^2
    / (2m) > 0`` iff ``alpha_t < eta_t gamma_t ||z_t|| / 2`` (002 eq. 36: the factor "should
    not exceed" that). ``c = 1/2`` is the R package's ``eta^2 m / 4`` at ``||z|| = 1``.
    """

    c: float

    def __call__(self, eta: float, edge: float, mass: float) -> float:
        return self.c * eta * edge * mass / 2.0


def _no_penalty(eta: float, edge: float, mass: float) -> float:
    """``alpha_t = 0``: no l1 factor (every variant but SparseBoost)."""
    return 0.0


@dataclass(frozen=True)
class MirrorAscent:
    """One assembly of Algorithm 1's parts (see the module docstring).

    ``project(theta, alpha)`` maps the mirror image ``theta`` to ``x_{t+1} in K`` (``alpha``
    is the l1 factor, used by SparseBoost only); ``step(t, gamma_t, ||x_t||_1)`` gives
    ``eta_t``; ``penalty(eta_t, gamma_t, ||x_t||_1)`` gives ``alpha_t``; with ``normalize``
    the weak learner gets ``x_t / ||x_t||_1`` (the second projection onto the simplex of
    SparseBoost and MadaBoost), else ``x_t`` itself. ``base``: the replication weights ``s``
    (sum ``m``) or None; with them the mirror image is ``grad R(x / s)`` (per copy) and
    ``project`` must return the distribution over examples.
    """

    regularizer: str
    update: str
    project: Callable[[np.ndarray, float], np.ndarray]
    step: Callable[[int, float, float], float]
    x1: np.ndarray
    penalty: Callable[[float, float, float], float] = _no_penalty
    normalize: bool = False
    base: np.ndarray | None = None


class MirrorAscentLoop(RoundLoop):
    """Algorithm 1 of 002 with ``parts`` as a :class:`~marginboost.core.rounds.RoundLoop`.

    The committed state is ``(n, x, theta, margins, total)``: the rounds (= hypotheses) so far,
    ``x_{n+1}``, the lazy update's accumulator ``theta_{n+1}``, ``sum_s eta_s u_s`` and
    ``sum_s eta_s``. The hypotheses, the steps and the kept distributions only grow; a round
    rolled back (Ctrl-C) is cut from them by ``n``.
    """

    columns = LOOP_COLUMNS
    progress = ("edge", "train_error")

    def __init__(self, oracle, y: np.ndarray, parts: MirrorAscent, keep_distributions: bool = False):
        self.oracle, self.parts, self.keep_distributions = oracle, parts, keep_distributions
        self.y = np.asarray(y, dtype=np.float64)
        self.hypotheses: list = []
        self.coefs: list = []  # eta_t
        self.kept: list = []  # w_t, with keep_distributions

    def _mirror(self, v):
        """``grad R``, per copy."""
        base = self.parts.base
        return mirror_map(self.parts.regularizer, v if base is None else v / base)

    def _start(self):
        x = self.parts.x1.copy()
        return 0, x, self._mirror(x), np.zeros(self.y.shape[0]), 0.0

    def step(self, state, t):
        """Round ``t``: ask the weak learner with ``w_t``, step ``eta_t``, project to ``x_{t+1}``."""
        n, x, theta, margins, total = state if state is not None else self._start()
        del self.hypotheses[n:], self.coefs[n:], self.kept[n:]  # drop what a rolled-back round added
        parts, y = self.parts, self.y
        mass = float(x.sum())
        w = x / mass if parts.normalize else x
        h, hx = self.oracle(w)
        u = y * np.asarray(hx, dtype=np.float64)
        edge = float(w @ u)
        if not edge > 0.0:
            return RoundOutcome(None, stop=Status.NO_PROGRESS, reason=NO_EDGE)
        eta = float(parts.step(t, edge, mass))
        if not eta > 0.0:  # an edge lost in rounding (or a step underflowing): nothing to add either
            return RoundOutcome(None, stop=Status.NO_PROGRESS, reason=NO_EDGE)
        alpha = float(parts.penalty(eta, edge, mass))
        base = self._mirror(x) if parts.update == "active" else theta
        theta = base - eta * u
        x = parts.project(theta, alpha)
        self.hypotheses.append(h)
        self.coefs.append(eta)
        margins = margins + eta * u  # a new array: the committed state holds the old one
        total += eta
        if self.keep_distributions:
            self.kept.append(w)
        positive = w[w > 0]
        wrong = np.where(y > 0, margins <= 0, margins < 0)  # sign(0) predicts the negative class
        row = {"edge": edge, "step": eta, "penalty": alpha, "mass": mass, "train_error": wrong.mean(),
               "min_margin": margins.min() / total, "entropy": -float(positive @ np.log(positive)),
               "max_weight": w.max(), "n_zero": w.shape[0] - positive.shape[0]}
        stop, reason = (None, None) if x.sum() > 0.0 else (Status.CONVERGED, ZERO_WEIGHTS)
        return RoundOutcome(row, (n + 1, x, theta, margins, total), stop=stop, reason=reason)

    def ensemble(self, state):
        """The hypotheses and steps ``eta_t`` of the model at ``state``; no offset. Their vote is the
        estimators' decision function times ``sum_t eta_t > 0``: the same sign."""
        n = state[0]
        return self.hypotheses[:n], np.asarray(self.coefs[:n], dtype=np.float64), 0.0

    def result(self, state, status, rounds):
        """The fit at ``state``: ``weights`` are the steps ``eta_t``; ``final`` as in :func:`mirror_ascent_boost`."""
        # state None: the first round found no edge; the model is empty, as before any round
        n, x, _, margins, total = state if state is not None else self._start()
        mass = x.sum()
        kept = self.kept[:n]
        return self._fit_result(n, status, rounds, {
            "distribution": x / mass if self.parts.normalize and mass > 0 else x,
            "margins": margins / total if total > 0 else margins,
            "distributions": (np.asarray(kept).reshape(len(kept), self.y.shape[0])
                              if self.keep_distributions else None),
        })

    def _fit_result(self, n: int, status, rounds, final: dict) -> FitResult:
        """The fit of the first ``n`` rounds: their hypotheses, the steps as weights, ``final``."""
        return FitResult(hypotheses=self.hypotheses[:n], weights=np.asarray(self.coefs[:n], dtype=np.float64),
                         status=status, n_iter=rounds.n_iter, history=rounds.history, final=final)


def mirror_ascent_boost(oracle, y: np.ndarray, parts: MirrorAscent, max_iter: int,
                        keep_distributions: bool = False, max_time: float | None = None,
                        callbacks=(), verbose: int = 0, name: str | None = None) -> FitResult:
    """Run Algorithm 1 of 002 with ``parts`` for at most ``max_iter`` weak-learner calls.

    The loop is :class:`MirrorAscentLoop`, driven by :func:`~marginboost.core.rounds.run_rounds`.
    Stops early when the weak learner returns an edge ``<= 0`` or one whose step ``eta_t`` is 0
    (status 'no_progress', reason 'no_edge': nothing to add, the round is not kept),
    when SparseBoost's weights all vanish ('converged', reason 'zero_weights') or after ``max_time`` seconds
    ('max_time'). An edge of 1 does not stop it: with l2 the examples of weight 0 may still be
    misclassified. ``KeyboardInterrupt``: the rounds completed ('interrupted', :mod:`marginboost.core.interrupts`).
    ``callbacks``, ``verbose``, ``name`` (of the progress lines): as for
    :func:`~marginboost.core.rounds.run_rounds`.

    Returns a :class:`~marginboost.core.rounds.FitResult`: ``f = sum_t weights[t] hypotheses[t]``
    (``weights[t] = eta_t``), and in ``final``: ``distribution`` (``w_{T+1}``, the distribution
    after the last update), ``margins`` (``y_i f(x_i) / sum_t eta_t`` on the training sample) and
    ``distributions`` ((T, m): ``w_t`` of every round with ``keep_distributions``, else None).
    """
    loop = MirrorAscentLoop(oracle, y, parts, keep_distributions)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks, verbose=verbose,
                      name=name or "mirror ascent boost")


# ----------------------------------------------------------------------------- assemblies
@dataclass(frozen=True, eq=False)  # compared by identity: its arrays have no single truth value
class Projection:
    """``(theta, alpha) -> scale * fn(theta + shift, *args)``: a projection onto ``K`` as the loop
    calls it (:attr:`MirrorAscent.project`); ``fn`` gets ``alpha`` after ``theta`` only when
    ``penalized`` (SparseBoost's l1 factor), and ``shift`` / ``scale`` (arrays or None) add to
    its argument / multiply its result. An object, not a closure: a warm-started estimator keeps
    its parts for the rounds to come, and a fitted estimator must pickle."""

    fn: Callable[..., np.ndarray]
    args: tuple = ()
    shift: np.ndarray | None = None
    scale: np.ndarray | None = None
    penalized: bool = False

    def __call__(self, theta: np.ndarray, alpha: float) -> np.ndarray:
        if self.shift is not None:
            theta = theta + self.shift
        x = self.fn(theta, alpha, *self.args) if self.penalized else self.fn(theta, *self.args)
        return x if self.scale is None else self.scale * x


def _simplex_projection(regularizer: str, nu: float | None = None, caps: np.ndarray | None = None,
                        base: np.ndarray | None = None) -> Projection:
    """``theta -> P_S(theta)`` for S = simplex, ``P(m, nu)`` or the per-example-capped simplex.

    ``caps`` are per example. With replication weights ``base`` = ``s``, ``theta`` is per copy
    and every copy is capped at ``1/nu`` (per example ``s_i/nu``); the KL projections take
    ``theta + ln s`` (the examples' unnormalised weights) or the weighted capped projection,
    the Euclidean ones the weighted sweep with per-copy caps ``caps_i / s_i``.
    """
    entropy = regularizer == "entropy"
    if base is not None:
        if entropy:
            log_s = np.log(base)
            if caps is not None:
                return Projection(bregman.kl_box_capped_simplex_projection, (caps,), shift=log_s)
            if nu is not None:
                return Projection(bregman.kl_capped_simplex_projection, (nu, base))
            return Projection(bregman.kl_simplex_projection, shift=log_s)
        group_caps = caps if caps is not None else base / nu if nu is not None else np.ones_like(base)
        per_copy = np.minimum(group_caps, 1.0) / base
        return Projection(bregman.euclidean_replicated_projection, (base, per_copy))
    if caps is not None:
        fn = (bregman.kl_box_capped_simplex_projection if entropy
              else bregman.euclidean_box_capped_simplex_projection)
        return Projection(fn, (caps,))
    if nu is not None:
        fn = bregman.kl_capped_simplex_projection if entropy else bregman.euclidean_capped_simplex_projection
        return Projection(fn, (nu,))
    return Projection(bregman.kl_simplex_projection if entropy else bregman.euclidean_simplex_projection)


def secondary_caps(secondary: np.ndarray, smoothness: float, weights: np.ndarray | None = None) -> np.ndarray:
    """Caps of the combined-datasets set ``K = {w in simplex : w_i <= 1/(lambda m_B), i in B}``.

    ``B`` is the secondary subset (boolean mask), ``m_B = |B|``. The comparator uniform over
    the mistakes of ``f`` on ``B`` lies in ``K`` while their fraction is ``eps_B >= lambda``,
    so Theorem 1 holds for it until the error on ``B`` is below ``lambda``; the primary set
    is uncapped (its error tends to 0) (002 section 3.2, supplement eq. 26). Cap 1 = none.
    With replication ``weights`` ``s``, ``m_B = sum_{i in B} s_i`` copies, each capped at
    ``1/(lambda m_B)``: example ``i in B`` at ``s_i/(lambda m_B)``.
    """
    if weights is None:
        n_secondary = int(secondary.sum())
        cap = 1.0 / (smoothness * n_secondary) if n_secondary else 1.0
        return np.where(secondary, min(cap, 1.0), 1.0)
    mass = float(weights[secondary].sum())
    caps = weights / (smoothness * mass) if mass > 0 else np.ones_like(weights)
    return np.where(secondary, np.minimum(caps, 1.0), 1.0)


def _replication(sample_weight, m: int) -> np.ndarray | None:
    """``sample_weight`` (positive, finite, length ``m``) scaled to sum ``m``, or None."""
    if sample_weight is None:
        return None
    s = np.asarray(sample_weight, dtype=np.float64)
    if s.shape != (m,) or not np.all(np.isfinite(s)) or not np.all(s > 0.0):
        raise ValueError(f"sample_weight must hold {m} positive finite values, got shape {s.shape}")
    return s * (m / s.sum())


def maboost(m: int, regularizer: str = "entropy", update: str = "active", variant: str = "normal",
            smoothness: float = 0.1, secondary: np.ndarray | None = None, sparsity: float = 0.5,
            learning_rate: float = 1.0, sample_weight: np.ndarray | None = None) -> MirrorAscent:
    """The parts of one MABoost variant on ``m`` examples.

    * 'normal':    K = simplex, ``eta_t = gamma_t / L`` (Theorem 1).
    * 'maxmargin': K = simplex, ``eta_t = gamma_t / (L sqrt t)`` (Theorem 2).
    * 'smooth':    K = ``{w in simplex : w_i <= 1/(lambda m)}`` = ``P(m, nu)``, ``nu = lambda m``
                   (smooth-MABoost, 002 section 3.1; Theorem 1 holds while ``eps >= lambda``).
    * 'combined':  K = simplex with ``w_i <= 1/(lambda m_B)`` on the secondary mask only
                   (002 section 3.2, :func:`secondary_caps`).
    * 'sparse':    SparseBoost (002 Algorithm 2; l2, active only): on ``z in R_+^m``,
                   ``z_{t+1} = max(0, z_t - eta_t u_t - alpha_t)`` (eq. 29), ``w_t = z_t /
                   ||z_t||_1``, ``eta_t = ||z_t||_1 gamma_t / m``, ``alpha_t`` =
                   :class:`SparsePenalty` with ``c = sparsity``. Regret bound as above with
                   ``e`` in the orthant gives ``eps <= 1/(1 + (1-c) sum_t ||z_t||_1^2 gamma_t^2)``
                   (our reading of 002 eq. 16 / eq. 37).

    ``smoothness`` is ``lambda`` in (0, 1]; ``secondary`` a boolean mask of length ``m``;
    ``sample_weight`` replication weights (positive; see the module docstring);
    ``learning_rate`` in (0, 2) multiplies every ``eta_t`` (:data:`MAX_LEARNING_RATE`: why 2).
    """
    if regularizer not in REGULARIZERS:
        raise ValueError(f"regularizer must be one of {REGULARIZERS}, got {regularizer!r}")
    if update not in UPDATES:
        raise ValueError(f"update must be one of {UPDATES}, got {update!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if not 0.0 < smoothness <= 1.0:
        raise ValueError(f"smoothness must lie in (0, 1], got {smoothness!r}")
    if not 0.0 <= sparsity < 1.0:
        raise ValueError(f"sparsity must lie in [0, 1), got {sparsity!r}")
    _check_learning_rate(learning_rate)
    s = _replication(sample_weight, m)
    L = 1.0 if regularizer == "entropy" else float(m)
    uniform = np.full(m, 1.0 / m) if s is None else s / m
    step = EdgeStep(L, learning_rate)
    if variant == "sparse":
        if regularizer != "l2":
            raise ValueError("regularizer must be 'l2' for variant='sparse' (SparseBoost, 002 Algorithm 2, "
                             f"is defined for the squared l2 regulariser); got regularizer={regularizer!r}")
        if update != "active":
            raise ValueError("update must be 'active' for variant='sparse' (SparseBoost is a composite "
                             f"active update); got update={update!r}")
        # with replication weights: a per-copy soft threshold, summed over the copies
        project = Projection(bregman.orthant_l1_projection, scale=s, penalized=True)
        return MirrorAscent(regularizer, update, project, step, uniform,
                            penalty=SparsePenalty(sparsity), normalize=True, base=s)
    if variant == "combined":
        if secondary is None:
            raise ValueError("secondary_mask is required for variant='combined'")
        project = _simplex_projection(regularizer, caps=secondary_caps(secondary, smoothness, s), base=s)
    elif variant == "smooth":
        project = _simplex_projection(regularizer, nu=max(smoothness * m, 1.0), base=s)
    else:
        project = _simplex_projection(regularizer, base=s)
    if variant == "maxmargin":
        step = MaxMarginStep(L, learning_rate)
    return MirrorAscent(regularizer, update, project, step, uniform, base=s)


def adaboost(m: int, learning_rate: float = 1.0, sample_weight: np.ndarray | None = None) -> MirrorAscent:
    """Plain AdaBoost (Freund and Schapire 1997) in the mirror-ascent loop.

    Entropy, simplex, ``x_1`` uniform (or ``s/m``), active update and AdaBoost's coefficient
    ``eta_t = 1/2 ln((1 + gamma_t)/(1 - gamma_t))`` (:class:`AdaBoostStep`)::

        w_{t+1,i} = w_{t,i} exp(-eta_t y_i h_t(x_i)) / Z_t.

    It differs from entropy MABoost ('normal', ``eta_t = gamma_t``) in the step only, so it
    is the like-for-like baseline of the time per round: same loop, same bookkeeping.
    """
    _check_learning_rate(learning_rate)
    s = _replication(sample_weight, m)
    return MirrorAscent("entropy", "active", _simplex_projection("entropy", base=s), AdaBoostStep(learning_rate),
                        np.full(m, 1.0 / m) if s is None else s / m, base=s)


def madaboost(m: int, step: str = "paper", learning_rate: float = 1.0,
              sample_weight: np.ndarray | None = None) -> MirrorAscent:
    """MadaBoost as double-projection LAMABoost (002 Algorithm 3).

    Lazy entropy update on ``K1 = [0, 1]^m`` from ``x_1 = 1`` (``theta_1 = 0``), then the
    second projection onto the simplex (:func:`marginboost.mirror.bregman.double_projection`)::

        theta_{t+1} = theta_t - eta_t u_t,   x_{t+1} = min(1, exp(theta_{t+1})),
        w_{t+1} = x_{t+1} / ||x_{t+1}||_1,

    i.e. Domingo and Watanabe's weights ``min(1, exp(-sum_s eta_s u_s))`` normalised.
    ``step='paper'``: ``eta_t = gamma_t ||x_t||_1 / m`` (R is 1/m-strongly convex w.r.t. l1
    on K1, so ``L = m``; Theorem 5: ``O(1/(eps^2 gamma^2))`` rounds, from
    ``sum_t (eta_t ||x_t|| gamma_t - eta_t^2 m / 2) <= m (1 - eps)`` and ``||x_t||_1 >= m eps``,
    002 eqs. 48-50); ``step='adaboost'``: the original MadaBoost coefficient
    ``1/2 ln((1 + gamma_t)/(1 - gamma_t))``. With replication weights ``s`` every copy
    starts at 1: ``x_1 = s``, ``x_{t+1} = s min(1, exp(theta_{t+1}))``, ``L = m`` copies.
    """
    if step not in MADABOOST_STEPS:
        raise ValueError(f"step must be one of {MADABOOST_STEPS}, got {step!r}")
    _check_learning_rate(learning_rate)
    s = _replication(sample_weight, m)
    rule = EdgeStep(float(m), learning_rate) if step == "paper" else AdaBoostStep(learning_rate)
    project = Projection(bregman.kl_hypercube_projection, (1.0,), scale=s)
    if s is None:
        return MirrorAscent("entropy", "lazy", project, rule, np.ones(m), normalize=True)
    return MirrorAscent("entropy", "lazy", project, rule, s.copy(), normalize=True, base=s)


__all__ = [
    "AdaBoostStep",
    "EdgeStep",
    "HISTORY_COLUMNS",
    "MAX_LEARNING_RATE",
    "MaxMarginStep",
    "MirrorAscent",
    "MirrorAscentLoop",
    "NO_EDGE",
    "Projection",
    "SparsePenalty",
    "VARIANTS",
    "ZERO_WEIGHTS",
    "adaboost",
    "maboost",
    "madaboost",
    "mirror_ascent_boost",
    "secondary_caps",
]

# The loop's reasons for a stop (FitResult.reason): no weak edge left ("no_progress"), every
# weight of SparseBoost vanished ("converged").
NO_EDGE, ZERO_WEIGHTS = "no_edge", "zero_weights"
