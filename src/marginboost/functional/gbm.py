"""GBM: gradient boosting with shrinkage and row subsampling (Friedman, "Greedy function
approximation: a gradient boosting machine", Annals of Statistics 29(5), 2001; subsampling:
Friedman, "Stochastic gradient boosting", CSDA 38(4), 2002).

GBM is FWBoost (:mod:`marginboost.functional.fwboost`) without the l1 ball: with ``L`` a loss of :mod:`marginboost.functional.losses`
(``L(F) = sum_i p_i l(F_i, y_i)``, ``p = s / sum s``) it takes plain shrunken steps

    F_0     = c* = argmin_c L(c 1)                                  (the initial constant)
    r_t,i   = -l'(F_t,i, y_i) = -grad L(F_t)_i / p_i                (per-example negative gradient)
    h_t     = argmin_{h in H} sum_{i in B_t} s_i (r_t,i - h(x_i))^2  (least squares, Friedman Alg. 1)
    F_{t+1} = F_t + learning_rate * h_t

where ``H`` is a regression learner of :mod:`.weak_learners.regression` (CART trees, stumps,
or a scikit-learn regressor) and ``B_t`` is the in-bag sample of round t: all examples, or
with ``subsample < 1`` ``max(1, floor(subsample m))`` of them drawn without replacement
(``sort(rng.choice(m, n_inbag, replace=False))``), the tree being grown on those rows only.
Nothing bounds ``sum_t ||h_t||``: the capacity grows with the rounds, which is what the l1
radius of FWBoost controls.

Leaf values (``leaf_update``):

* ``'mean'``: the least-squares leaf values, i.e. the weighted mean of ``r`` over the leaf's
  in-bag examples (Friedman's LS_Boost; for the squared loss this is exact minimisation);
* ``'newton'``: one Newton step per leaf R (Friedman 2001, section 4.5; Friedman, Hastie,
  Tibshirani 2000), on the in-bag examples of the leaf::

      gamma_R = sum_{i in R} s_i r_i / sum_{i in R} s_i l''(F_i, y_i)    (0 if the
                                                                          denominator < 1e-150)

  as scikit-learn's ``GradientBoostingClassifier`` does for its log and exponential losses.
  For the squared loss (``l'' = 1``) it equals ``'mean'``. ``l''(F, y)`` is read off a
  :class:`~marginboost.functional.losses.PointwiseLoss` as ``curvature(y, F, F)`` (the sup of ``l''`` over the
  one-point box ``[F, F]``), so it needs such a loss with finite curvature (not absolute),
  and a tree or stump learner (its leaves).

The initial constant is exact for the built-in losses: the weighted mean (squared), a
weighted median (absolute: the smallest y at which the cumulative weight reaches half),
``log(P+/P-)`` (logistic) and ``(1/2) log(P+/P-)`` (exponential) with ``P+-`` the weight of
the labels +-1; otherwise the root of ``c -> sum_i grad L(c 1)_i`` (:func:`marginboost.functional.fwboost.best_constant`).

The loop (:class:`GBMLoop`) is driven by :func:`marginboost.core.rounds.run_rounds`: round ``t``
fits ``h_t``; round 0 records ``F_0`` (the constant alone) without committing it (no tree yet).
"""
from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import numpy as np

from marginboost.core.example_vectors import as_float_vector, full_like
from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Rounds, Status, history_columns, run_rounds
from marginboost.functional.fwboost import best_constant
from marginboost.functional.losses import (AbsoluteLoss, ExponentialLoss, LogisticLoss, PointwiseLoss, SquaredLoss,
                                          check_targets, resolve_loss)
from marginboost.weak_learners.categorical import goes_left
from marginboost.weak_learners.histogram_regression import HistogramLeastSquaresStump, HistogramLeastSquaresTree
from marginboost.weak_learners.regression import LeastSquaresStump, LeastSquaresTree, RegressionStump, RegressionTree
from marginboost.weak_learners.stumps import right_side

__all__ = ["GBMLoop", "GBM_HISTORY_COLUMNS", "LEAF_UPDATES", "gbm", "gbm_loop", "initial_constant", "leaf_ids",
           "newton_leaf_values"]

LEAF_UPDATES = ("mean", "newton")
# One row per iterate F_t, t = 0 (the constant alone), 1, ..., max_iter. The driver adds
# 'round' (t) first and 'time' (seconds since the fit started) last.
GBM_LOOP_COLUMNS = (
    "loss",  # L(F_t) on the whole training sample (in-bag and out-of-bag)
)
GBM_HISTORY_COLUMNS = history_columns(GBM_LOOP_COLUMNS)
# sklearn's _safe_divide: a leaf whose curvature sum is below this gets the value 0.
_TINY_CURVATURE = 1e-150


def initial_constant(loss, y: np.ndarray, sample_weight=None) -> float:
    """``argmin_c L(c 1)``: closed forms for the built-in losses (module docstring), else
    :func:`marginboost.functional.fwboost.best_constant`."""
    s = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if isinstance(loss, SquaredLoss):
        return float(np.average(y, weights=s))
    if isinstance(loss, AbsoluteLoss):
        order = np.argsort(y, kind="stable")
        cum = np.cumsum(s[order])
        return float(y[order][np.searchsorted(cum, 0.5 * cum[-1])])
    if isinstance(loss, (LogisticLoss, ExponentialLoss)):
        log_odds = float(np.log(s[y > 0].sum()) - np.log(s[y < 0].sum()))
        return log_odds if isinstance(loss, LogisticLoss) else 0.5 * log_odds
    return best_constant(loss, y, sample_weight)


def leaf_ids(h, X: np.ndarray) -> np.ndarray:
    """The leaf of every row of ``X``: node index for a RegressionTree, 0/1 (left/right) for a
    RegressionStump (always 1 for the constant stump)."""
    X = np.asarray(X, dtype=np.float64)
    if isinstance(h, RegressionStump):
        if h.threshold == -np.inf:
            return np.ones(X.shape[0], dtype=np.int64)
        if h.categories is not None:
            return (~goes_left(X[:, h.feature], h.threshold, h.categories, h.missing_left)).astype(np.int64)
        return right_side(X[:, h.feature], h.threshold, h.missing_left).astype(np.int64)
    if isinstance(h, RegressionTree) and h.categories is not None:  # a categorical split: node by node
        node = np.zeros(X.shape[0], dtype=np.int64)
        for k in range(h.node_count):  # children come after their parent
            if h.feature[k] >= 0:
                rows = np.flatnonzero(node == k)
                go_left = goes_left(X[rows, h.feature[k]], h.threshold[k], h.categories[k], bool(h.missing_left[k]))
                node[rows] = np.where(go_left, h.left[k], h.right[k])
        return node
    if isinstance(h, RegressionTree):
        node = np.zeros(X.shape[0], dtype=np.int64)
        inner = h.feature[node] >= 0
        while inner.any():
            idx = np.flatnonzero(inner)
            n = node[idx]
            x = X[idx, h.feature[n]]
            go_left = (x <= h.threshold[n]) | (np.isnan(x) & h.missing_left[n])
            node[idx] = np.where(go_left, h.left[n], h.right[n])
            inner = h.feature[node] >= 0
        return node
    raise TypeError(f"leaf ids need a RegressionTree or RegressionStump, got {h!r}")


def _newton_leaves(h, X, r, s_fit, curvature):
    """``h`` with every leaf value replaced by ``sum s r / sum s l''`` over its in-bag examples."""
    leaf = leaf_ids(h, X)
    n_leaves = (h.value.shape[0] if isinstance(h, RegressionTree) else 2)
    num = np.bincount(leaf, weights=s_fit * r, minlength=n_leaves)
    den = np.bincount(leaf, weights=s_fit * curvature, minlength=n_leaves)
    h, gamma = newton_leaf_values(h, num, den)
    return h, gamma[leaf]


def newton_leaf_values(h, num, den):
    """``(h, gamma)``: ``h`` with every leaf's value ``gamma = num / den`` (0 where ``|den|`` is below
    1e-150), from the per-leaf sums ``num = sum s r`` and ``den = sum s l''`` (indexed by
    :func:`leaf_ids`)."""
    gamma = np.divide(num, den, out=np.zeros(num.shape[0]), where=np.abs(den) >= _TINY_CURVATURE)
    if isinstance(h, RegressionTree):
        is_leaf = h.feature < 0
        h = dataclasses.replace(h, value=np.where(is_leaf, gamma, h.value))
    else:
        h = dataclasses.replace(h, left=float(gamma[0]), right=float(gamma[1]))
    return h, gamma


def _check_newton(loss, learner) -> None:
    """Raise ``ValueError`` unless ``leaf_update='newton'`` applies to ``loss`` and ``learner``."""
    if not isinstance(learner, (LeastSquaresTree, LeastSquaresStump, HistogramLeastSquaresTree,
                                HistogramLeastSquaresStump)):
        raise ValueError(f"leaf_update='newton' needs leaves: weak_learner 'tree', 'stump', 'hist_tree', "
                         f"'hist_stump', or one of their learner objects, got weak_learner={learner!r}")
    if not isinstance(loss, PointwiseLoss) or np.isinf(loss.curvature(np.ones(1), 0.0, 0.0)).any():
        raise ValueError(f"leaf_update='newton' needs a PointwiseLoss with a finite second derivative "
                         f"(squared, huber, exponential, logistic), got loss={loss!r}")


class _GBMState(NamedTuple):
    """``F_t`` after round ``t`` (never modified once built)."""

    t: int  # trees so far
    Z: np.ndarray  # sum_s learning_rate * h_s on the training sample, summed tree by tree from 0
    F: np.ndarray  # F_t = init + Z: the ensemble summed first, the constant added last, as predict does
    loss: float  # L(F_t)
    rng_state: Any  # the subsampling generator's state after round t (None without subsampling)


class GBMLoop(RoundLoop):
    """GBM (module docstring) as a :class:`~marginboost.core.rounds.RoundLoop`: round ``t`` fits
    ``h_t`` to the negative gradient at ``F_{t-1}`` and steps ``learning_rate`` along it.

    The trees only grow, and the subsampling generator only advances: a round rolled back is cut
    from the trees, and the generator set back to its state after the committed round, so a
    warm start (:func:`~marginboost.core.rounds.continue_rounds`) draws what an uninterrupted fit
    would. Round 0 (``F_0``, the constant) is recorded but not committed; round 1 starts from it.

    ``oracle``: the learner already prepared on X (None: prepared here). The per-example vectors
    are numpy arrays, or vectors kept on a Dask cluster's workers (:mod:`marginboost.dask.loss_loops`,
    whose loop supplies the constant, the loss's value and the Newton leaves there).
    """

    columns = GBM_LOOP_COLUMNS
    progress = ("loss",)
    start_row = True

    def __init__(self, learner, X, loss, y, s, learning_rate, subsample, leaf_update, rng, oracle=None):
        self.learner, self.X, self.loss, self.y, self.s = learner, X, loss, y, s
        self.learning_rate, self.leaf_update, self.rng = learning_rate, leaf_update, rng
        m = y.shape[0]
        self.p = s / s.sum()
        self.n_inbag = max(1, int(subsample * m))
        if oracle is None and self.n_inbag == m:
            oracle = learner.prepare(X)  # presorted once when every row is in bag
        self.oracle = oracle
        self.hypotheses: list = []
        self.init: float | None = None
        self.init_loss: float | None = None  # L(F_0), the constant's loss: the divergence test's scale
        self.divergence: str | None = None  # why the last round was refused ('diverged'), for the warning

    def _rng_state(self):
        generator = getattr(self.rng, "bit_generator", None)
        return generator.state if self.n_inbag < self.y.shape[0] and generator is not None else None

    def step(self, state, t):
        loss, X, y, s = self.loss, self.X, self.y, self.s
        if state is None:  # round 0: F_0 = the loss-minimising constant
            with np.errstate(over="ignore", invalid="ignore"):  # checked below
                init = self._initial_constant()
                F = full_like(y, init)
                value, _ = self._value_and_finite(F)
            if not (np.isfinite(init) and np.isfinite(value)):
                raise ValueError(f"loss={loss.name!r} is not finite at the initial constant "
                                 f"F = {init:.6g}: y is too large for it (the loss overflows); rescale y")
            self.init, self.init_loss = init, value
            state = _GBMState(0, full_like(y, 0.0), F, value, self._rng_state())
            return RoundOutcome({"loss": value}, state, commit=False)
        del self.hypotheses[state.t:]  # drop what a rolled-back round added
        if state.rng_state is not None:
            self.rng.bit_generator.state = state.rng_state
        m, F = y.shape[0], state.F
        r = -loss.gradient(F, y, s) / self.p
        s_fit = s
        if self.n_inbag < m:
            # Fit on the in-bag rows alone (not on all rows with weight 0): a cut then sits
            # at the midpoint of two in-bag neighbours, as for a tree grown on the subsample.
            inbag = np.sort(self.rng.choice(m, size=self.n_inbag, replace=False))
            s_fit = np.zeros(m)
            s_fit[inbag] = s[inbag]
            h, _ = self.learner.prepare(X[inbag])(r[inbag], s[inbag])
            out = h.predict(X)
        else:
            h, out = self.oracle(r, s)
        if self.leaf_update == "newton":
            h, out = self._newton_leaves(h, r, s_fit, loss.curvature(y, F, F))
        with np.errstate(over="ignore", invalid="ignore"):  # checked below
            # the ensemble's sum first, the constant last: predict's order, so that F is predict's
            # value on the training sample (with a large constant, adding each tree to it lost
            # the trees' low digits: issue 33)
            Z_next = state.Z + self.learning_rate * as_float_vector(out)
            F_next = self.init + Z_next
            value, finite = self._value_and_finite(F_next)
        if not (np.isfinite(value) and finite):
            self.divergence = "overflow"
            # this round overflowed: keep the rounds before it
            return RoundOutcome(None, stop=Status.DIVERGED, reason="overflow")
        if value > state.loss and value > 2.0 * self.init_loss > 0.0:
            self.divergence = f"rise to {value:.6g}, above twice the initial constant's {self.init_loss:.6g}"
            # the step is too large: keep the rounds before it
            return RoundOutcome(None, stop=Status.DIVERGED, reason="loss_rise")
        self.hypotheses.append(h)
        new = _GBMState(state.t + 1, Z_next, F_next, value, self._rng_state())
        weights = np.full(new.t, float(self.learning_rate))
        return RoundOutcome({"loss": value}, new, path=(weights, (1.0, [new.t - 1])))

    def _initial_constant(self) -> float:
        """``F_0``: :func:`initial_constant` on the training sample."""
        return initial_constant(self.loss, self.y, self.s)

    def _value_and_finite(self, F) -> tuple[float, bool]:
        """``L(F)`` and whether every ``F_i`` is finite (on a cluster: one pass over the blocks)."""
        return self.loss.value(F, self.y, self.s), bool(np.all(np.isfinite(F)))

    def _newton_leaves(self, h, r, s_fit, curvature):
        """``(h, h(X))`` with Newton leaf values (module docstring), ``curvature`` the ``l''`` per example."""
        return _newton_leaves(h, self.X, r, s_fit, curvature)

    def ensemble(self, state):
        return self.hypotheses[: state.t], np.full(state.t, float(self.learning_rate)), self.init

    def relearn(self, result: FitResult, learning_rate: float) -> FitResult:
        """``result`` (a fit of this loop) with every tree at ``learning_rate``, as scikit-learn's
        warm start takes a changed rate: ``F = init + learning_rate * sum_t h_t`` recomputed on the
        training sample (in predict's order), the rounds to come at that rate. The history keeps
        the losses the rounds had."""
        state = result.state
        self.learning_rate = learning_rate
        with np.errstate(over="ignore", invalid="ignore"):  # checked below
            Z = np.zeros(self.y.shape[0])
            for h in self.hypotheses[: state.t]:
                Z += learning_rate * np.asarray(h.predict(self.X), dtype=np.float64)
            F = self.init + Z
            value = self.loss.value(F, self.y, self.s)
        if not (np.isfinite(value) and np.all(np.isfinite(F))):
            raise ValueError(f"learning_rate={learning_rate!r} makes the trees fitted so far overflow the training "
                             "loss: lower it, or set warm_start=False to fit anew")
        state = state._replace(Z=Z, F=F, loss=value)
        rounds = Rounds(result.history, result.weights_path)
        out = self.result(state, result.status, rounds)
        out.loop, out.state = self, state
        return out

    def result(self, state, status, rounds):
        return FitResult(
            hypotheses=self.hypotheses[: state.t],
            weights=np.full(state.t, float(self.learning_rate)),
            status=status,
            n_iter=rounds.n_iter,
            history=rounds.history,
            weights_path=rounds.weights_path,
            offset=self.init,
            final={"init": self.init, "learning_rate": float(self.learning_rate), "F": state.F,
                   "loss": float(state.loss), "divergence": self.divergence if status == Status.DIVERGED else None},
        )


def gbm_loop(learner, X, loss, y, *, sample_weight=None, learning_rate=0.1, subsample=1.0, leaf_update="mean",
             rng=None) -> GBMLoop:
    """The loop of :func:`gbm` on ``(X, y)``, checked and ready for
    :func:`~marginboost.core.rounds.run_rounds` (the estimators run it with their ``max_iter``).

    ``ValueError`` if a classification loss meets targets of one sign only (its minimiser is
    infinite) or a parameter is out of range."""
    X = np.asanyarray(X, dtype=np.float64)  # a CategoricalMatrix stays one: its mask tells the learner
    y = np.asarray(y, dtype=np.float64)
    loss = resolve_loss(loss)  # a Loss: the loop reads its name and kind without probing
    check_targets(loss, y)
    if not learning_rate > 0:
        raise ValueError(f"learning_rate must be > 0, got learning_rate={learning_rate!r}")
    if not 0 < subsample <= 1:
        raise ValueError(f"subsample must be in (0, 1], got subsample={subsample!r}")
    if leaf_update not in LEAF_UPDATES:
        raise ValueError(f"leaf_update must be one of {LEAF_UPDATES}, got leaf_update={leaf_update!r}")
    if leaf_update == "newton":
        _check_newton(loss, learner)
    m = y.shape[0]
    s = np.ones(m) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    one_sign = not (np.any((y > 0) & (s > 0)) and np.any((y < 0) & (s > 0)))
    if loss.kind == "classification" and one_sign:
        raise ValueError(f"loss={loss.name!r} needs targets of both signs, -1 and +1 (y holds one sign only: the "
                         "loss then decreases without bound and its initial constant is infinite)")
    rng = np.random.default_rng() if rng is None else rng
    return GBMLoop(learner, X, loss, y, s, learning_rate, subsample, leaf_update, rng)


def gbm(learner, X, loss, y, *, sample_weight=None, learning_rate=0.1, max_iter=100,
        subsample=1.0, leaf_update="mean", rng=None, max_time=None, callbacks=(), verbose=0,
        name="GBM") -> FitResult:
    """Run GBM (module docstring) with a :class:`~.weak_learners.regression.RegressionLearner`:
    :func:`gbm_loop` driven by :func:`~marginboost.core.rounds.run_rounds` up to ``max_iter`` trees.

    ``rng`` (a ``numpy.random.Generator``) draws the in-bag samples when ``subsample < 1``.
    Status ``'max_iter'`` after ``max_iter`` rounds, ``'max_time'`` once ``max_time``
    seconds have passed; ``KeyboardInterrupt`` returns the rounds completed (``'interrupted'``,
    :mod:`marginboost.core.interrupts`). ``'diverged'``: a round would have made ``F`` or the training loss
    overflow (a step too large for the loss, e.g. the exponential loss beyond ``|F| = 709``), or
    raised the training loss above both the round before's and twice the initial constant's
    ``L(F_0)`` (a learning rate too large: the loss grows round after round, as ``(1 - lr)^2``
    per round for the squared loss with ``lr > 2``, where a descent step of a sane rate never
    leaves the constant's loss that far behind); that round is dropped and the fit stops with
    the rounds before it (``final['divergence']`` says which). ``callbacks``, ``verbose``,
    ``name`` as for :func:`~marginboost.core.rounds.run_rounds`.

    Returns a :class:`~marginboost.core.rounds.FitResult`: ``F(x) = offset + sum_t weights[t]
    hypotheses[t](x)`` with ``offset`` the initial constant and ``weights`` ``learning_rate``
    for every tree; ``final`` holds ``init`` (the constant), ``learning_rate``, ``F`` (on the
    training sample) and ``loss``.

    ``ValueError`` as :func:`gbm_loop`, and if the loss is not finite at the initial constant
    (``y`` too large for the loss).
    """
    loop = gbm_loop(learner, X, loss, y, sample_weight=sample_weight, learning_rate=learning_rate,
                    subsample=subsample, leaf_update=leaf_update, rng=rng)
    return run_rounds(loop, max_iter=max_iter, max_time=max_time, callbacks=callbacks, verbose=verbose, name=name)
