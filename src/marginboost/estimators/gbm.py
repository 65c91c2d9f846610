"""scikit-learn estimators for GBM (Friedman 2001; stochastic GBM, Friedman 2002).

:class:`GBMRegressor` and :class:`GBMClassifier` fit::

    F(x) = offset_ + learning_rate * sum_t h_t(x),      h_t fit to the negative gradient at F_{t-1},

i.e. FWBoost (:mod:`marginboost.estimators.fwboost`) without the l1 ball; see :mod:`marginboost.functional.gbm` for the
algorithm, the leaf updates and the initial constant.

Common parameters
-----------------
loss : a name of :data:`marginboost.functional.losses.LOSSES` or a loss object (value, gradient, smoothness).
learning_rate : float > 0, the shrinkage.
max_iter : int >= 1, default=100, the number of trees (scikit-learn's ``n_estimators``).
subsample : float in (0, 1], the fraction of examples drawn (without replacement) per round.
weak_learner : 'tree' (LeastSquaresTree(max_depth)), 'stump' (LeastSquaresStump), 'hist_tree',
    'hist_stump' (their histogram versions, 255 bins a feature:
    :mod:`marginboost.weak_learners.histogram_regression`), a RegressionLearner, or a scikit-learn
    regressor taking sample_weight.
max_depth : int >= 1, depth of the 'tree' weak learner.
leaf_update : 'mean' (least-squares leaves) or 'newton' (one Newton step per leaf).
random_state : seed of the subsampling (``numpy.random.default_rng``).
max_time : float > 0 or None, stop (status 'max_time') after this many seconds. Ctrl-C during
    fit keeps the trees completed (status 'interrupted', :mod:`marginboost.core.interrupts`).
verbose : int >= 0, default=0, a progress line every ``verbose`` rounds (loss, elapsed); 0: silent.
callbacks : callables ``fn(record)`` or None, run after every round (:mod:`marginboost.estimators.base`).
early_stopping : bool, default=False, stop once ``n_iter_no_change`` rounds did not improve the held-out score.
validation_fraction : float in (0, 1), default=0.1, the share held out (``fit``'s ``eval_set`` replaces it).
n_iter_no_change : int >= 1, default=10, the patience of ``early_stopping``.
warm_start : bool, default=False, a second ``fit`` on the same data adds trees, up to ``max_iter`` in all.
    A changed ``learning_rate`` applies to every tree, those fitted included, as in scikit-learn's
    ``GradientBoosting*`` (the training values are recomputed with it before the next tree); a
    change of any other model parameter is refused (ValueError naming it).
categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype', the
    categorical columns; the least-squares learners split them by the best subset of categories, exact by
    sorting them by mean residual (Fisher 1958; :mod:`marginboost.weak_learners.categorical`).

GBM has no stopping rule of its own: ``max_iter`` trees is the plan, and a fit stopped by
``max_iter`` or ``max_time`` does not warn. The held-out score is the accuracy (classifier) or
the negative mean squared error (regressor); a callback returning True stops the fit (status
'callback'); a warm start draws the subsamples an uninterrupted fit would, and its ``history_``
holds the rows of the earlier fit too.

Fitted attributes
-----------------
offset_ (the loss-minimising constant; ``init_`` before 0.2, a FutureWarning until 0.3),
hypotheses_, train_loss_, n_iter_, status_ ('diverged': a
round would have made the training loss overflow, e.g. the exponential loss at a large learning
rate, or rise above the round before's and twice the initial constant's (a learning rate too
large, :func:`marginboost.functional.gbm.gbm`); the fit keeps the rounds before it and warns
(ConvergenceWarning), and a warm start with a lower learning_rate goes on from them; 'max_iter':
all max_iter trees, 'max_time', 'callback', 'early_stopping' or 'interrupted'), best_iteration_
and validation_scores_ (with ``early_stopping``: the best round and the score after every
round), history_ (dict of arrays, one row per
iterate t = 0, ..., n_iter_, columns :data:`marginboost.functional.gbm.GBM_HISTORY_COLUMNS`: round, loss on the
training sample and, last, time: seconds since the fit started).

Model files (``save(path)`` / ``load(path)``, :mod:`marginboost.io.model_io`) keep every tree,
``offset_``, ``train_loss_`` and ``n_iter_`` (staged predictions work after load; ``history_`` and
``status_`` are None). They need a named ``loss`` and ``weak_learner`` and an integer or None ``random_state``.

Agreement with scikit-learn (tests/test_gbm.py): with ``subsample=1``, ``weak_learner='tree'``
and float32-exact features, GBMRegressor (squared loss) equals ``GradientBoostingRegressor``
and GBMClassifier (logistic / exponential loss, ``leaf_update='newton'``) equals
``GradientBoostingClassifier(loss='log_loss' / 'exponential')`` to 1e-8 on the training
sample, for the same max_depth, learning_rate and ``max_iter = n_estimators`` and sklearn's defaults
(min_samples_leaf=1, min_samples_split=2, no max_features: both trees search every cut at
the midpoint of consecutive distinct values, ``x <= t`` goes left, leaves hold the weighted
mean). Off the training sample they agree too when no two features give a node the same
split of its training examples (e.g. one feature): sklearn breaks such exact ties by a
random feature order, ours by the first feature, so thresholds then differ while the
training predictions do not. scikit-learn casts X to float32 (its trees), hence
float32-exact features for the identity.
"""
from __future__ import annotations

import numbers
import dataclasses
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from marginboost.core.rounds import Status
from marginboost.estimators.base import (CATEGORICAL_FEATURES_CONSTRAINT, COMMON_PARAMETER_CONSTRAINTS,
                                         BoostingEstimator, weighted_vote)
from marginboost.estimators.binary import BinaryClassifierMixin, hypothesis_rows
from marginboost.estimators.compat import HasMethods, Interval, StrOptions
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.loss_fit import LossClassifierMixin, LossRegressorMixin
from marginboost.estimators.renamed import RenamedAttribute
from marginboost.functional.gbm import LEAF_UPDATES, gbm_loop
from marginboost.functional.losses import LOSSES, resolve_loss
from marginboost.io.model_checks import StoredVote
from marginboost.io.model_codecs import Count, Real
from marginboost.io.model_file import ModelFileMixin
from marginboost.weak_learners import NAMED_WEAK_LEARNERS, resolve_regression_learner

__all__ = ["GBMClassifier", "GBMRegressor"]


class _GBMBase(BoostingEstimator, ModelFileMixin, BaseEstimator):
    _parameter_constraints: dict = {
        "loss": [StrOptions(set(LOSSES)), HasMethods(["value", "gradient", "smoothness"])],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "subsample": [Interval(numbers.Real, 0, 1, closed="right")],
        "weak_learner": [StrOptions(set(NAMED_WEAK_LEARNERS)), HasMethods(["prepare"]), HasMethods(["fit", "predict"])],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "leaf_update": [StrOptions(set(LEAF_UPDATES))],
        "random_state": ["random_state"],
        **COMMON_PARAMETER_CONSTRAINTS,
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
    }
    _model_state = {"offset_": Real(), "train_loss_": Real(finite=False), "n_iter_": Count()}
    init_ = RenamedAttribute("offset_")
    # status_ came with max_time: unsaved, so that files written before it still load
    _model_unsaved = ("history_", "status_")

    # learning_rate: every tree, as scikit-learn's GradientBoosting* (predict uses the current
    # learning_rate); the training sums are recomputed with it before the next tree is fitted
    _warm_start_applies = ("learning_rate",)

    def _has_stopping_rule(self) -> bool:
        return False  # max_iter trees is the plan: stopping there (or at max_time) is no failure

    def _warm_start_apply(self, result, changed):
        result = result.loop.relearn(result, float(self.learning_rate))
        if result.status == Status.DIVERGED:  # the round refused was one at the old rate: try the new one
            result = dataclasses.replace(result, status=Status.MAX_ITER)
        return result, None

    def _resolve_weak_learner(self, spec):
        return resolve_regression_learner(spec, self.max_depth)

    def _make_loop(self, X, y, s):
        """GBM's loop on ``(X, y)`` (weights ``s``, mean 1, or None)."""
        seed = self.random_state
        if isinstance(seed, np.random.RandomState):  # sklearn's convention -> a Generator seed
            seed = seed.randint(np.iinfo(np.int32).max)
        return gbm_loop(resolve_regression_learner(self.weak_learner, self.max_depth), X, resolve_loss(self.loss), y,
                        sample_weight=s, learning_rate=self.learning_rate, subsample=self.subsample,
                        leaf_update=self.leaf_update, rng=np.random.default_rng(seed))

    def _boost(self, X, y, s, eval_set):
        """Run the rounds (:meth:`BoostingEstimator._fit_rounds`) and set the fitted attributes."""
        self._store_fit(self._fit_rounds(X, y, s, eval_set))
        return self

    def _store_fit(self, result) -> None:
        """The fitted attributes of a fit's result, and the warning of a diverged fit."""
        self.offset_ = result.offset
        self.train_loss_ = result.loss
        self._store_rounds(result)
        if result.status == Status.DIVERGED:
            warnings.warn(f"{type(self).__name__} diverged: round {self.n_iter_ + 1} would have made the training "
                          f"loss {result.divergence}; the fit keeps the {self.n_iter_} rounds before it. The step is "
                          f"too large for the loss: lower learning_rate={self.learning_rate!r}, or take "
                          "leaf_update='newton'",
                          ConvergenceWarning, stacklevel=4)

    def _stored_vote(self) -> StoredVote:
        """``offset_ + learning_rate * sum_j h_j``: trees of any leaf values, whose sum must not
        overflow (model files: :mod:`marginboost.io.model_checks`)."""
        return StoredVote(np.full(len(self.hypotheses_), float(self.learning_rate)), "parameter 'learning_rate'",
                          self.offset_, "state field 'offset'")

    def _decision(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        weights = np.full(len(self.hypotheses_), float(self.learning_rate))
        return weighted_vote(self.hypotheses_, weights, X, self.offset_)

    def _staged(self, X):
        # _decision's sums (vote_sum's order: the trees from 0, the constant last), one tree more a stage
        rate = float(self.learning_rate)
        rows = hypothesis_rows(self, X)
        Z = np.zeros(rows.shape[1])
        for row in rows:
            Z += rate * row
            yield Z + float(self.offset_)


class GBMRegressor(LossRegressorMixin, RegressorMixin, _GBMBase, booster="gbm"):
    """Gradient boosting for regression; parameters in the module docstring.

    Defaults: squared loss, ``leaf_update='mean'`` (plain GBM: the tree fit to the negative
    gradient is the step direction), depth-3 trees.
    """

    _is_classifier_score = False  # early stopping scores the negative mean squared error

    def __init__(self, loss="squared", learning_rate=0.1, max_iter=100, subsample=1.0, weak_learner="tree",
                 max_depth=3, leaf_update="mean", random_state=None, max_time=None, verbose=0, callbacks=None,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=10, warm_start=False,
                 categorical_features="from_dtype"):
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.subsample = subsample
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.leaf_update = leaf_update
        self.random_state = random_state
        self.max_time = max_time
        self.verbose = verbose
        self.callbacks = callbacks
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.categorical_features = categorical_features


class GBMClassifier(LossClassifierMixin, BinaryClassifierMixin, ClassifierMixin, _GBMBase, booster="gbm"):
    """Gradient boosting for classification, labels mapped to ``y in {-1, +1}``
    (``classes_[1]`` is +1); parameters in the module docstring.

    Defaults: logistic loss (``F`` is the log-odds of ``classes_[1]``) and
    ``leaf_update='newton'`` (scikit-learn's leaf values); 'mean' gives plain GBM.

    ``predict_proba`` (logistic and exponential losses only): ``sigmoid(F)`` resp.
    ``sigmoid(2F)``, scikit-learn's ``GradientBoostingClassifier`` map for two classes; not
    calibrated. More than two classes: one-vs-rest (:mod:`marginboost.estimators.multiclass`), not scikit-learn's
    multinomial trees: the fitted attributes are then those of ``estimators_[k]``, class k
    against the rest, ``n_iter_``, ``status_``, ``history_`` hold one entry per class, and the
    K probabilities are normalised to sum 1. With ``random_state=None`` each class draws its
    own subsamples; an integer (or a ``RandomState``) seeds every class alike.
    """

    def __init__(self, loss="logistic", learning_rate=0.1, max_iter=100, subsample=1.0, weak_learner="tree",
                 max_depth=3, leaf_update="newton", random_state=None, max_time=None, verbose=0, callbacks=None,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=10, warm_start=False,
                 categorical_features="from_dtype"):
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.subsample = subsample
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.leaf_update = leaf_update
        self.random_state = random_state
        self.max_time = max_time
        self.verbose = verbose
        self.callbacks = callbacks
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.categorical_features = categorical_features
