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
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from marginboost.functional.fwboost import best_constant
from marginboost.core.interrupts import keep_interrupted
from marginboost.functional.losses import AbsoluteLoss, ExponentialLoss, LogisticLoss, PointwiseLoss, SquaredLoss, check_targets
from marginboost.weak_learners.regression import LeastSquaresStump, LeastSquaresTree, RegressionStump, RegressionTree
from marginboost.core.threads import single_blas_thread

__all__ = ["GBM_HISTORY_COLUMNS", "GBMResult", "LEAF_UPDATES", "gbm", "initial_constant", "leaf_ids"]

LEAF_UPDATES = ("mean", "newton")
# One row per iterate F_t, t = 0 (the constant alone), 1, ..., n_estimators.
GBM_HISTORY_COLUMNS = (
    "round",  # t
    "loss",  # L(F_t) on the whole training sample (in-bag and out-of-bag)
    "time",  # seconds since the fit started
)
# sklearn's _safe_divide: a leaf whose curvature sum is below this gets the value 0.
_TINY_CURVATURE = 1e-150


@dataclass
class GBMResult:
    """A GBM fit: ``F(x) = init + learning_rate * sum_t hypotheses[t](x)``."""

    hypotheses: list
    init: float
    learning_rate: float
    F: np.ndarray  # F on the training sample
    loss: float
    status: str = "max_iter"  # 'max_iter' (n_estimators rounds) | 'max_time' | 'interrupted' | 'diverged'
    history: dict = field(default_factory=dict)


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
        return (X[:, h.feature] > h.threshold).astype(np.int64)
    if isinstance(h, RegressionTree):
        node = np.zeros(X.shape[0], dtype=np.int64)
        inner = h.feature[node] >= 0
        while inner.any():
            idx = np.flatnonzero(inner)
            n = node[idx]
            go_left = X[idx, h.feature[n]] <= h.threshold[n]
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
    gamma = np.divide(num, den, out=np.zeros(n_leaves), where=np.abs(den) >= _TINY_CURVATURE)
    if isinstance(h, RegressionTree):
        is_leaf = h.feature < 0
        h = dataclasses.replace(h, value=np.where(is_leaf, gamma, h.value))
    else:
        h = dataclasses.replace(h, left=float(gamma[0]), right=float(gamma[1]))
    return h, gamma[leaf]


def _check_newton(loss, learner) -> None:
    """Raise ``ValueError`` unless ``leaf_update='newton'`` applies to ``loss`` and ``learner``."""
    if not isinstance(learner, (LeastSquaresTree, LeastSquaresStump)):
        raise ValueError(f"leaf_update='newton' needs leaves: weak_learner 'tree', 'stump', "
                         f"LeastSquaresTree or LeastSquaresStump, got weak_learner={learner!r}")
    if not isinstance(loss, PointwiseLoss) or np.isinf(loss.curvature(np.ones(1), 0.0, 0.0)).any():
        raise ValueError(f"leaf_update='newton' needs a PointwiseLoss with a finite second derivative "
                         f"(squared, huber, exponential, logistic), got loss={loss!r}")


@single_blas_thread
def gbm(learner, X, loss, y, *, sample_weight=None, learning_rate=0.1, n_estimators=100,
        subsample=1.0, leaf_update="mean", rng=None, max_time=None) -> GBMResult:
    """Run GBM (module docstring) with a :class:`~.weak_learners.regression.RegressionLearner`.

    ``rng`` (a ``numpy.random.Generator``) draws the in-bag samples when ``subsample < 1``.
    Status ``'max_iter'`` after ``n_estimators`` rounds, ``'max_time'`` once ``max_time``
    seconds have passed; ``KeyboardInterrupt`` returns the rounds completed (``'interrupted'``,
    :mod:`marginboost.core.interrupts`). ``'diverged'``: a round would have made ``F`` or the training loss
    overflow (a step too large for the loss, e.g. the exponential loss beyond ``|F| = 709``);
    that round is dropped and the fit stops with the rounds before it.

    ``ValueError`` if the loss is not finite at the initial constant (``y`` too large for the
    loss) or a classification loss meets targets of one sign only (its minimiser is infinite).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
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
    p = s / s.sum()
    name = getattr(loss, "name", loss)
    one_sign = not (np.any((y > 0) & (s > 0)) and np.any((y < 0) & (s > 0)))
    if getattr(loss, "kind", "any") == "classification" and one_sign:
        raise ValueError(f"loss={name!r} needs targets of both signs, -1 and +1 (y holds one sign only: the "
                         "loss then decreases without bound and its initial constant is infinite)")
    n_inbag = max(1, int(subsample * m))
    rng = np.random.default_rng() if rng is None else rng
    oracle = learner.prepare(X) if n_inbag == m else None  # presorted once when every row is in bag

    start = time.perf_counter()
    with np.errstate(over="ignore", invalid="ignore"):  # checked below
        init = initial_constant(loss, y, s)
        F = np.full(m, init)
        value = loss.value(F, y, s)
    if not (np.isfinite(init) and np.isfinite(value)):
        raise ValueError(f"loss={name!r} is not finite at the initial constant F = {init:.6g}: y is too large "
                         "for it (the loss overflows); rescale y")
    rows = [(0, value, time.perf_counter() - start)]
    hypotheses = []
    status = "max_iter"
    kept = None  # (t, F) after the last completed round (see .interrupts)
    try:
        for t in range(1, n_estimators + 1):
            r = -loss.gradient(F, y, s) / p
            s_fit = s
            if n_inbag < m:
                # Fit on the in-bag rows alone (not on all rows with weight 0): a cut then sits
                # at the midpoint of two in-bag neighbours, as for a tree grown on the subsample.
                inbag = np.sort(rng.choice(m, size=n_inbag, replace=False))
                s_fit = np.zeros(m)
                s_fit[inbag] = s[inbag]
                h, _ = learner.prepare(X[inbag])(r[inbag], s[inbag])
                out = h.predict(X)
            else:
                h, out = oracle(r, s)
            if leaf_update == "newton":
                h, out = _newton_leaves(h, X, r, s_fit, loss.curvature(y, F, F))
            with np.errstate(over="ignore", invalid="ignore"):  # checked below
                F_next = F + learning_rate * np.asarray(out, dtype=np.float64)
                value = loss.value(F_next, y, s)
            if not (np.isfinite(value) and np.all(np.isfinite(F_next))):
                status = "diverged"  # this round overflowed: keep the rounds before it
                break
            F = F_next
            hypotheses.append(h)
            rows.append((t, value, time.perf_counter() - start))
            kept = (t, F)
            if max_time is not None and time.perf_counter() - start >= max_time:
                status = "max_time"
                break
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        t, F = kept
        status = "interrupted"
        del hypotheses[t:], rows[t + 1:]
    history = {name: np.asarray(col) for name, col in zip(GBM_HISTORY_COLUMNS, zip(*rows))}
    history["round"] = history["round"].astype(np.int64)
    return GBMResult(hypotheses, init, float(learning_rate), F, float(rows[-1][1]), status, history)
