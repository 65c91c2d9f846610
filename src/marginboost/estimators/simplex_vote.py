"""The front end that TotalBoost, SoftBoost (:mod:`marginboost.estimators.totally_corrective`),
AdaBoostV and SmoothBoost (:mod:`marginboost.estimators.classic`) share.

Every model is ``f(x) = sum_j w_j h_j(x)`` with ``w`` on the simplex, so ``decision_function``
lies in [-1, 1] and ``predict`` is its sign (0 -> ``classes_[0]``). ``margin_`` is the soft
margin (mean of the ``nu`` smallest training margins ``y_i f(x_i)``) for SoftBoost and the
hard margin (the smallest) for the others. ``nu`` is a count or a fraction as in
:func:`marginboost.estimators.parameters.resolve_nu`. ``sample_weight`` is not supported.

All four take the run controls of :mod:`marginboost.estimators.base` (``max_iter``,
``max_time``, ``verbose``, ``callbacks``, early stopping, ``warm_start``), and every one stops
after at most ``max_iter`` rounds (default 1000). Each has a stopping rule of its own, so a stop
by ``max_iter`` or ``max_time`` before it held warns (``ConvergenceWarning``). The papers' round
bounds (:func:`marginboost.totally_corrective.softboost.iteration_bound`,
:func:`marginboost.classic.adaboostv.adaboostv_rounds`,
:func:`marginboost.classic.smoothboost.smoothboost_rounds`) are what to pass as ``max_iter`` for
their guarantees; they are no defaults, since they grow as ``1/eps^2`` (AdaBoostV at
``eps = 1e-10``: about ``1e21`` rounds). A warm start takes a changed SmoothBoost ``kappa`` (its
stopping rule alone) and refuses a change of any other model parameter (ValueError naming it):
``eps`` and ``nu`` shape every round of the others.

More than two classes: one-vs-rest (:mod:`marginboost.estimators.multiclass`): the fitted attributes are then
those of ``estimators_[k]``, class k against the rest, and ``n_iter_``, ``status_``, ``history_``
hold one entry per class. ``predict_proba`` is ``(1 + f) / 2`` (normalised over the classes):
not calibrated.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from marginboost.estimators.base import CATEGORICAL_FEATURES_CONSTRAINT, COMMON_PARAMETER_CONSTRAINTS, BoostingEstimator
from marginboost.estimators.binary import BinaryClassifierMixin, WeightedVoteMixin
from marginboost.estimators.compat import HasMethods, Interval, StrOptions
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.multiclass import one_vs_rest
from marginboost.io.model_codecs import Count, Real, Reason, Text, Vector
from marginboost.io.model_file import ModelFileMixin
from marginboost.weak_learners import NAMED_WEAK_LEARNERS, resolve_weak_learner

__all__ = ["SimplexVoteClassifier"]


class SimplexVoteClassifier(BoostingEstimator, ModelFileMixin, WeightedVoteMixin, BinaryClassifierMixin,
                            ClassifierMixin, BaseEstimator):
    """The shared front end (module docstring): validation, the run, prediction. A subclass gives
    ``_loop(oracle, y)``, its family's loop on the prepared weak learner.

    ``save(path)`` / ``load(path)``: a model file (:mod:`marginboost.io.model_io`) keeps the
    hypotheses of nonzero weight, ``weights_``, ``margin_``, ``n_iter_``, ``status_`` (and
    SoftBoost's ``nu_``); ``history_`` and ``weights_path_`` are None after load.
    """

    _parameter_constraints: dict = {
        "weak_learner": [StrOptions(set(NAMED_WEAK_LEARNERS)), HasMethods(["prepare"]), HasMethods(["fit", "predict"])],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        **COMMON_PARAMETER_CONSTRAINTS,
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
    }
    # The weights are non-negative by definition (LP weights, SmoothBoost 1/t, AdaBoostV alpha_t >= 0);
    # AdaBoostV alone may weigh a perfectly wrong hypothesis -1 (its "perfect" stop): see there.
    _model_state = {"weights_": Vector(non_negative=True), "margin_": Real(finite=False), "n_iter_": Count(),
                    "status_": Text(), "stop_reason_": Reason()}
    _model_unsaved = ("history_", "weights_path_")
    _model_prune = "weights_"

    def _loop(self, oracle, y_pm):
        """The family's loop with the prepared weak learner ``oracle`` on labels ``y_pm``."""
        raise NotImplementedError

    @one_vs_rest
    def fit(self, X, y, eval_set=None):
        """Boost on ``(X, y)``; more than two classes in ``y``: one model per class (one-vs-rest).

        ``eval_set = (X_val, y_val)``: the held-out set of ``early_stopping``.
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        _, y_pm = self._binary_targets(y)
        result = self._fit_rounds(X, y_pm, None, self._binary_eval_set(eval_set))
        self._store_rounds(result)
        self.weights_ = result.weights
        self.weights_path_ = self._weights_path(result)
        self.margin_ = self._margin(result)
        return self

    def _weights_path(self, result):
        """The weights after every round, for the staged methods (the loop's log of them)."""
        return result.weights_path

    def _make_loop(self, X, y_pm, weights):
        oracle = resolve_weak_learner(self.weak_learner, self.max_depth).prepare(X, y_pm)
        return self._loop(oracle, y_pm)

    def _margin(self, result) -> float:
        """The smallest training margin of the fit (its loop's own)."""
        return float(result.margins.min())
