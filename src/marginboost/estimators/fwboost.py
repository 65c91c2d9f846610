"""scikit-learn estimators for FWBoost (Wang, Wang, E, Schapire 2015, arXiv 1510.02558).

:class:`FWBoostRegressor` and :class:`FWBoostClassifier` fit::

    F(x) = offset + sum_j w_j h_j(x),        sum_j |w_j| ||h_j||_inf <= beta,

by Frank-Wolfe on ``min L(F)`` over the l1 ball lin_beta(H) (see :mod:`marginboost.functional.fwboost` for the
algorithms and :mod:`marginboost.functional.losses` for the losses). Because ``||w||_1 <= beta`` whatever the number
of rounds, the Rademacher bound of the fit depends on ``beta``, not on ``max_iter``
(001 Theorems 1-2): more rounds do not mean more capacity. ``beta`` is the model-size knob
(in units of ``y`` for regression, of the margin for classification): tune it, e.g. by
cross-validation as the paper does.

Common parameters
-----------------
loss : a name of :data:`marginboost.functional.losses.LOSSES` or a loss object (value, gradient, smoothness).
beta : float > 0, the l1 radius.
variant : 'C' (FWBoost_C, 001 Algorithm 3: a classifier on labels sign(-grad), weights ``|grad|``)
    or 'R' (FWBoost_R, Algorithm 4: least squares on -grad, scaled to the ball).
step : 'line_search' (exact), 'short_step' (smooth losses) or 'classic' (2/(t+2)).
away_steps : bool, Algorithm 5 (active set with away and drop steps).
weak_learner : 'stump', 'tree', 'hist_stump', 'hist_tree', a learner object or a scikit-learn
    estimator taking sample_weight. For 'C': DecisionStump / EdgeTree(max_depth) / HistogramStump /
    HistogramTree(max_depth) or a classifier; for 'R': LeastSquaresStump / LeastSquaresTree(max_depth) /
    HistogramLeastSquaresStump / HistogramLeastSquaresTree(max_depth) or a regressor.
max_depth : int >= 1, depth of the 'tree' weak learner.
max_iter : int >= 1, default=100, the most FW updates (the oracle is called once more to certify
    the last).
eps : float >= 0, stop once the FW gap along the oracle's vertex is <= eps (the stopping tolerance,
    named ``eps`` in every estimator). With ``eps > 0`` a fit stopped by ``max_iter`` or ``max_time``
    before that warns (ConvergenceWarning); with ``eps = 0`` (the default) there is no such target,
    and no warning. ``tol``, its name before 0.2, still works (FutureWarning) until 0.3.
max_time : float > 0 or None, stop (status 'max_time') at the first iterate after this many seconds.
    Ctrl-C during fit keeps the last iterate whose FW gap was computed, after at least one update
    (status 'interrupted', :mod:`marginboost.core.interrupts`).
verbose : int >= 0, default=0, a progress line every ``verbose`` updates (loss, gap, elapsed); 0: silent.
callbacks : callables ``fn(record)`` or None, run after every update (:mod:`marginboost.estimators.base`).
early_stopping : bool, default=False, stop once ``n_iter_no_change`` updates did not improve the held-out score.
validation_fraction : float in (0, 1), default=0.1, the share held out (``fit``'s ``eval_set`` replaces it).
n_iter_no_change : int >= 1, default=10, the patience of ``early_stopping``.
warm_start : bool, default=False, a second ``fit`` on the same data continues, up to ``max_iter`` in all.
    A changed ``eps`` applies (a fit converged at the old one goes on to a smaller one); a change of
    any other model parameter (``beta``, ``loss``, ...) is refused (ValueError naming it).
categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype', the
    categorical columns, split by subsets of categories by the edge learners (see :class:`.LPBoostClassifier`).

The held-out score is the accuracy (classifier) or the negative mean squared error (regressor); a
callback returning True stops the fit (status 'callback'); a warm start's ``history_`` holds the
rows of the earlier fit too.

Fitted attributes
-----------------
hypotheses_, weights_ (``F(x) = offset_ + sum_j weights_[j] hypotheses_[j](x)``; ``coef_`` before
0.2, a FutureWarning until 0.3), offset_, weights_path_ (the weights after every update),
train_loss_, gap_ (FW gap of the returned model; a bound on ``train_loss_ - L*`` when the
oracle is exact, e.g. stumps with variant 'C'), n_iter_ (updates), status_ ('converged': the oracle's
vertex improves by at most eps, a certificate only for an exact oracle; 'max_iter', 'max_time',
'callback', 'early_stopping' or 'interrupted'), best_iteration_ and validation_scores_ (with
``early_stopping``: the best update and the score after every update), history_ (dict of arrays,
one row per iterate t = 0, ..., n_iter_, columns
:data:`marginboost.functional.fwboost.FW_HISTORY_COLUMNS`: round, loss, gap, step, direction, n_active,
l1_norm and, last, time: seconds since the fit started).

Model files (``save(path)`` / ``load(path)``, :mod:`marginboost.io.model_io`) keep every
hypothesis and the attributes above but ``history_`` (None after load, and no staged
predictions). They need a named ``loss`` and ``weak_learner``.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from marginboost.estimators.base import (CATEGORICAL_FEATURES_CONSTRAINT, COMMON_PARAMETER_CONSTRAINTS,
                                         BoostingEstimator, staged_votes, weighted_vote)
from marginboost.estimators.binary import BinaryClassifierMixin, hypothesis_rows
from marginboost.estimators.compat import HasMethods, Hidden, Interval, StrOptions
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.loss_fit import LossClassifierMixin, LossRegressorMixin
from marginboost.estimators.renamed import DEPRECATED, RenamedAttribute, renamed_parameter
from marginboost.functional.fwboost import STEP_RULES, best_constant, classifier_oracle, fwboost_loop, regression_oracle
from marginboost.functional.losses import LOSSES, check_targets, resolve_loss
from marginboost.io.model_checks import StoredVote
from marginboost.io.model_codecs import NO_STAGES, Count, Real, Reason, Text, Vector
from marginboost.io.model_file import ModelFileMixin
from marginboost.weak_learners import NAMED_WEAK_LEARNERS, resolve_regression_learner, resolve_weak_learner

__all__ = ["FWBoostClassifier", "FWBoostRegressor"]


class _UpdateWeights:
    """``weights_path_``: the weights after every update, ``beta * alpha_t * scales`` as the loop
    computes the final ones (its compact log holds the atom weights ``alpha_t``), so that the
    last one is ``weights_`` bit for bit."""

    def __init__(self, alphas, beta: float, scales: np.ndarray):
        self._alphas, self._beta, self._scales = alphas, float(beta), scales

    def __len__(self) -> int:
        return len(self._alphas)

    def __iter__(self):
        for alpha in self._alphas:
            yield self._beta * alpha * self._scales[: alpha.shape[0]]


class _FWBoostBase(BoostingEstimator, ModelFileMixin, BaseEstimator):
    _parameter_constraints: dict = {
        "loss": [StrOptions(set(LOSSES)), HasMethods(["value", "gradient", "smoothness"])],
        "beta": [Interval(numbers.Real, 0, None, closed="neither")],
        "variant": [StrOptions({"C", "R"})],
        "step": [StrOptions(set(STEP_RULES))],
        "away_steps": ["boolean"],
        "weak_learner": [StrOptions(set(NAMED_WEAK_LEARNERS)), HasMethods(["prepare"]), HasMethods(["fit", "predict"])],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "eps": [Interval(numbers.Real, 0, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left"), Hidden(StrOptions({DEPRECATED}))],
        **COMMON_PARAMETER_CONSTRAINTS,
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
    }
    _model_state = {"weights_": Vector(non_negative=True), "offset_": Real(), "train_loss_": Real(finite=False),
                    "gap_": Real(finite=False), "n_iter_": Count(), "status_": Text(), "stop_reason_": Reason()}
    _model_unsaved = ("history_", "weights_path_")
    coef_ = RenamedAttribute("weights_")

    # eps is its stopping tolerance alone: a warm start stops at the new one
    _warm_start_applies = ("eps", "tol")

    def _eps(self) -> float:
        """The stopping tolerance: ``eps``, or the renamed ``tol`` where it was passed."""
        return float(self.eps if isinstance(self.tol, str) else self.tol)

    def _has_stopping_rule(self) -> bool:
        return self._eps() > 0  # eps = 0: no target short of the optimum, so max_iter is the plan

    def _warm_start_apply(self, result, changed):
        result.loop.tol = self._eps()
        return result, result.gap <= result.loop.tol  # the gap of the last iterate, as the loop tests it

    def _resolve_weak_learner(self, spec):
        if self.variant == "C":
            return resolve_weak_learner(spec, self.max_depth)
        return resolve_regression_learner(spec, self.max_depth)

    def _make_loop(self, X, y, s):
        """FWBoost's loop with its oracle prepared on ``(X, y)`` (weights ``s``, mean 1, or None)."""
        loss = resolve_loss(self.loss)
        check_targets(loss, y)
        m = X.shape[0]
        p = np.full(m, 1.0 / m) if s is None else s / s.sum()
        if self.variant == "C":
            lmo = classifier_oracle(resolve_weak_learner(self.weak_learner, self.max_depth), X)
        else:
            lmo = regression_oracle(resolve_regression_learner(self.weak_learner, self.max_depth), X, p)
        offset = best_constant(loss, y, s) if self._initial() == "constant" else 0.0
        return fwboost_loop(lmo, loss, y, self.beta, sample_weight=s, offset=offset, step=self.step,
                            away_steps=self.away_steps, tol=self._eps())

    def _initial(self) -> str:
        """``F_0``: 'constant' (the loss-minimising constant) or 'zero'."""
        return "zero"

    def _boost(self, X, y, s, eval_set):
        """Run the rounds (:meth:`BoostingEstimator._fit_rounds`) and set the fitted attributes."""
        renamed_parameter(self, "tol", "eps", 0.0)
        self._store_fit(self._fit_rounds(X, y, s, eval_set))
        return self

    def _store_fit(self, result) -> None:
        """The fitted attributes of a fit's result."""
        self.weights_ = result.weights
        self.offset_ = result.offset
        self.train_loss_ = result.loss
        self.gap_ = result.gap
        self.weights_path_ = _UpdateWeights(result.weights_path, result.beta, result.scales)
        self._store_rounds(result)

    def _stored_vote(self) -> StoredVote:
        """``offset_ + sum_j weights_j h_j`` in the l1 ball of radius ``beta`` (model files:
        :mod:`marginboost.io.model_checks`)."""
        return StoredVote(self.weights_, "state field 'weights'", self.offset_, "state field 'offset'",
                          radius=float(self.beta), radius_field="parameter 'beta'")

    def _decision(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return weighted_vote(self.hypotheses_, self.weights_, X, self.offset_)

    def _staged(self, X):
        check_is_fitted(self)
        if self.weights_path_ is None:
            raise ValueError(NO_STAGES)
        # summed as _decision sums weights_ (vote_sum's order: the ensemble first, the offset last)
        yield from staged_votes(hypothesis_rows(self, X), self.weights_path_, self.offset_)


class FWBoostRegressor(LossRegressorMixin, RegressorMixin, _FWBoostBase, booster="fwboost"):
    """FWBoost for regression (001 Algorithms 2-5); see the module docstring for parameters.

    init : 'constant' (default: ``offset = argmin_c L(c)``, e.g. the mean for the squared
        loss, outside the l1 budget) or 'zero' (the paper's ``F_0 = 0``).

    The default ``variant='C'`` is the exact reduction of the linear subproblem (with stumps an
    exact oracle). ``variant='R'`` often stops within a few rounds: its least-squares vertex
    ``beta h~ / ||h~||_inf`` is not the l1 LMO and can stop being a descent direction
    (measured on diabetes: 3 rounds at beta = 50, depth-3 trees); its ``gap_`` is then <= 0.
    """

    _parameter_constraints: dict = {
        **_FWBoostBase._parameter_constraints,
        "init": [StrOptions({"constant", "zero"})],
    }
    _is_classifier_score = False  # early stopping scores the negative mean squared error

    def __init__(self, loss="squared", beta=10.0, variant="C", step="line_search", away_steps=False,
                 weak_learner="tree", max_depth=3, max_iter=100, eps=0.0, init="constant", max_time=None,
                 verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 warm_start=False, tol=DEPRECATED, categorical_features="from_dtype"):
        self.loss = loss
        self.beta = beta
        self.variant = variant
        self.step = step
        self.away_steps = away_steps
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.max_iter = max_iter
        self.eps = eps
        self.init = init
        self.max_time = max_time
        self.verbose = verbose
        self.callbacks = callbacks
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.categorical_features = categorical_features
        self.tol = tol

    def _initial(self) -> str:
        return self.init


class FWBoostClassifier(LossClassifierMixin, BinaryClassifierMixin, ClassifierMixin, _FWBoostBase,
                        booster="fwboost"):
    """FWBoost for classification, labels mapped to ``y in {-1, +1}`` (``classes_[1]`` is +1)
    and ``F_0 = 0``. With ``loss='exponential'``, ``variant='C'`` it is AdaBoost.FW (001
    Algorithm 6; :func:`marginboost.functional.fwboost.adaboost_fw` is the same fit written as reweighting).
    Parameters as in the module docstring.

    More than two classes: one-vs-rest (:mod:`marginboost.estimators.multiclass`): the fitted attributes are then
    those of ``estimators_[k]``, class k against the rest, and ``n_iter_``, ``status_``,
    ``history_`` hold one entry per class. ``predict_proba`` (logistic and exponential losses
    only, the losses' ``probability``): ``sigmoid(F)`` resp. ``sigmoid(2F)``, normalised over
    the classes; not calibrated (the l1 ball shrinks ``F``).
    """

    def __init__(self, loss="exponential", beta=5.0, variant="C", step="line_search", away_steps=False,
                 weak_learner="tree", max_depth=2, max_iter=100, eps=0.0, max_time=None, verbose=0, callbacks=None,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=10, warm_start=False,
                 tol=DEPRECATED, categorical_features="from_dtype"):
        self.loss = loss
        self.beta = beta
        self.variant = variant
        self.step = step
        self.away_steps = away_steps
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.max_iter = max_iter
        self.eps = eps
        self.max_time = max_time
        self.verbose = verbose
        self.callbacks = callbacks
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.categorical_features = categorical_features
        self.tol = tol
