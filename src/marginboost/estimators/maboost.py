"""scikit-learn estimators for mirror-ascent boosting (paper 002, Naghibi and Pfister 2014).

* :class:`MABoostClassifier` -- MABoost / LAMABoost (002 Algorithm 1) with the variants of
  :func:`marginboost.mirror.maboost.maboost`: 'normal', 'maxmargin', 'smooth', 'combined', 'sparse'.
* :class:`MadaBoostClassifier` -- MadaBoost as double-projection LAMABoost (002 Algorithm 3).
* :class:`AdaBoostClassifier` -- plain AdaBoost in the same loop (:func:`marginboost.mirror.maboost.adaboost`),
  the baseline MABoost's time per round is measured against.

``fit`` takes ``sample_weight`` as replication: example ``i`` counts as ``s_i`` copies
(weights scaled to mean 1; examples of weight 0 are left out). See :mod:`marginboost.mirror.maboost`.

All three take the run controls of :mod:`marginboost.estimators.base` (``max_iter``,
``max_time``, ``verbose``, ``callbacks``, early stopping, ``warm_start``). They have no
stopping rule of their own (they stop after ``max_iter`` rounds, or when no weak edge is
left), so a stop by ``max_iter`` or ``max_time`` is no ``ConvergenceWarning``. A warm start takes a
changed ``learning_rate`` for the steps to come (the steps taken stay in ``weights_``) and refuses a
change of any other model parameter (ValueError naming it).

The fitted model is ``f(x) = sum_t eta_t h_t(x)``; ``decision_function`` returns it divided
by ``sum_t eta_t`` (in [-1, 1], same sign), ``predict`` its sign (0 -> ``classes_[0]``).

More than two classes: one-vs-rest (:mod:`marginboost.estimators.multiclass`): the fitted attributes are then those
of ``estimators_[k]``, class k against the rest (``y_secondary`` is recoded per class as ``y``),
and ``n_iter_``, ``status_``, ``history_`` hold one entry per class. ``predict_proba`` is
``(1 + f) / 2`` for the normalised ``f`` (normalised over the classes): not calibrated.
"""
from __future__ import annotations

import dataclasses
import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d

from marginboost.estimators.base import (CATEGORICAL_FEATURES_CONSTRAINT, COMMON_PARAMETER_CONSTRAINTS,
                                         BoostingEstimator, DegenerateModelWarning, weighted_vote)
from marginboost.estimators.binary import BinaryClassifierMixin, check_two_classes, hypothesis_rows, vote_probability
from marginboost.estimators.compat import HasMethods, Interval, StrOptions
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.multiclass import one_vs_rest, per_class
from marginboost.estimators.renamed import RenamedAttribute
from marginboost.estimators.sample_weights import relative_sample_weight
from marginboost.io.model_checks import StoredVote
from marginboost.io.model_codecs import Count, Real, Reason, Text, Vector
from marginboost.io.model_file import ModelFileMixin
from marginboost.mirror.bregman import REGULARIZERS
from marginboost.mirror.maboost import (MADABOOST_STEPS, MAX_LEARNING_RATE, UPDATES, VARIANTS, MirrorAscentLoop,
                                        adaboost, maboost, madaboost)
from marginboost.weak_learners import NAMED_WEAK_LEARNERS, resolve_weak_learner


def check_secondary_mask(mask, m: int) -> np.ndarray:
    """Turn ``secondary_mask`` (booleans of length ``m`` or distinct indices in [0, m)) into booleans."""
    arr = np.asarray(mask)
    if arr.ndim != 1:
        raise ValueError(f"secondary_mask must be 1-dimensional, got shape {arr.shape}")
    if arr.dtype == bool:
        if arr.shape[0] != m:
            raise ValueError(f"secondary_mask must have one entry per example ({m}), got {arr.shape[0]}")
        return arr.copy()
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"secondary_mask must be a boolean mask or integer indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= m or np.unique(arr).shape[0] != arr.shape[0]):
        raise ValueError(f"secondary_mask indices must be distinct and lie in [0, {m})")
    out = np.zeros(m, dtype=bool)
    out[arr] = True
    return out


class _MirrorBoostClassifier(BoostingEstimator, ModelFileMixin, BinaryClassifierMixin, ClassifierMixin,
                             BaseEstimator):
    """Shared front end: validation, the loop, prediction. Subclasses give ``_parts(m, mask, weights)``.

    ``save(path)`` / ``load(path)``: a model file (:mod:`marginboost.io.model_io`) keeps every
    hypothesis, ``weights_``, ``margin_``, ``n_iter_`` and ``status_`` (staged predictions work
    after load); ``distribution_`` and ``history_`` are None after load.
    """

    _parameter_constraints: dict = {
        # (0, 2): at 2 and above no round is guaranteed to make progress (mirror.maboost.MAX_LEARNING_RATE)
        "learning_rate": [Interval(numbers.Real, 0, MAX_LEARNING_RATE, closed="neither")],
        "weak_learner": [StrOptions(set(NAMED_WEAK_LEARNERS)), HasMethods(["prepare"]), HasMethods(["fit", "predict"])],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        **COMMON_PARAMETER_CONSTRAINTS,
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
    }
    _model_state = {"weights_": Vector(non_negative=True), "margin_": Real(finite=False), "n_iter_": Count(),
                    "status_": Text(), "stop_reason_": Reason()}
    _model_unsaved = ("distribution_", "history_")
    coef_ = RenamedAttribute("weights_")

    # learning_rate multiplies each step: a warm start takes the new one for the steps to come
    # (those taken stay in weights_)
    _warm_start_applies = ("learning_rate",)

    def _parts(self, m: int, mask, weights):
        raise NotImplementedError

    def _warm_start_apply(self, result, changed):
        loop = result.loop
        loop.parts = dataclasses.replace(
            loop.parts, step=dataclasses.replace(loop.parts.step, learning_rate=float(self.learning_rate)))
        return result, None

    def _has_stopping_rule(self) -> bool:
        return False  # max_iter rounds is the algorithm (no convergence criterion): no ConvergenceWarning

    @one_vs_rest(labels=("y_secondary",))
    def _fit(self, X, y, sample_weight=None, mask=None, X_secondary=None, y_secondary=None, eval_set=None):
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        if X_secondary is not None or y_secondary is not None:
            X, y, mask = self._stack_secondary(X, y, mask, X_secondary, y_secondary)
        y_index, _ = self._binary_targets(y)
        if mask is not None:
            mask = check_secondary_mask(mask, X.shape[0])
        weights = None
        if sample_weight is not None:
            # Relative weights (max in [1/2, 1)), not positive_weights' mean 1: the assemblies scale
            # them to sum m themselves (mirror.maboost._replication), and scaling twice rounds
            # differently (e.g. sklearn's sample-weight equivalence check of SparseBoost fails).
            sample_weight, keep = relative_sample_weight(sample_weight, X)
            if not keep.all():  # no copy of X otherwise: one-vs-rest shares the presorting of X
                X, y_index, sample_weight = X[keep], y_index[keep], sample_weight[keep]
                mask = None if mask is None else mask[keep]
                check_two_classes(np.unique(y_index).shape[0], "among examples of positive sample_weight")
            # equal weights are no weights: take the unweighted code path, bit for bit
            weights = None if np.all(sample_weight == sample_weight[0]) else sample_weight
        y_pm = np.where(y_index == 1, 1.0, -1.0)
        eval_set = self._binary_eval_set(eval_set)
        self._check_secondary(mask, eval_set)
        self._secondary_mask = mask  # read by _make_loop; kept to check a warm start's data
        result = self._fit_rounds(X, y_pm, weights, eval_set)
        self._store_rounds(result)
        self.weights_ = result.weights
        self.distribution_ = result.distribution
        self.margin_ = float(result.margins.min())
        if self.learning_rate > 1.0:
            self._warn_if_worse_than_majority(result)
        return self

    def _warn_if_worse_than_majority(self, result) -> None:
        """``learning_rate`` in (1, 2) lengthens every step beyond the one of the guarantee
        (AdaBoost's line-search step, the rate of 002 Theorem 1); towards 2 the steps overshoot
        and the vote can classify the training set worse than the constant majority class
        (AdaBoost with stumps at ``learning_rate = 1.999999``: 11% accuracy on breast cancer,
        whose majority class is 63%). Say so rather than pass silently. The training part and
        its replication weights are the loop's (early stopping holds some rows out)."""
        error, minority = self._training_error_and_minority(result)
        if error > minority:
            warnings.warn(
                f"{type(self).__name__}: the model misclassifies {error:.3g} of the training set, more than the "
                f"{minority:.3g} the constant majority class does: learning_rate={self.learning_rate!r} "
                "> 1 lengthens every step beyond the guarantee's, and towards 2 the steps overshoot. Lower "
                "learning_rate (1 is AdaBoost's and MABoost's own step).",
                DegenerateModelWarning,
                stacklevel=4,
            )

    @staticmethod
    def _training_error_and_minority(result) -> tuple[float, float]:
        """The weighted training error of the vote and the weight share of the smaller class."""
        y, s = result.loop.y, result.loop.parts.base
        s = np.ones_like(y) if s is None else s
        margins = result.margins
        wrong = np.where(y > 0, margins <= 0.0, margins < 0.0)  # decision 0 predicts classes_[0]
        total = float(s.sum())
        return float(s @ wrong) / total, min(float(s[y > 0].sum()), float(s[y < 0].sum())) / total

    def _check_secondary(self, mask, eval_set) -> None:
        """The secondary set must be the one a warm start continues with, and early stopping
        cannot hold out a share of the training set when it has one (the mask would be cut)."""
        if (self.warm_start and getattr(self, "_fit_result", None) is not None
                and not np.array_equal(getattr(self, "_secondary_mask", None), mask)):
            raise ValueError("warm_start=True continues the last fit on the same data; this secondary set "
                             "differs (fit a new estimator, or set warm_start=False)")
        if mask is not None and self.early_stopping and eval_set is None:
            raise ValueError("early_stopping with a secondary set (secondary_mask or X_secondary) needs an "
                             "eval_set: validation_fraction would split the secondary set")

    def _make_loop(self, X, y_pm, weights):
        parts = self._parts(X.shape[0], self._secondary_mask, weights)
        oracle = resolve_weak_learner(self.weak_learner, self.max_depth).prepare(X, y_pm)
        return MirrorAscentLoop(oracle, y_pm, parts)

    def _stack_secondary(self, X, y, mask, X_secondary, y_secondary):
        """Append the secondary data set to ``(X, y)``; the mask marks its rows."""
        if X_secondary is None or y_secondary is None:
            raise ValueError("X_secondary and y_secondary must be given together")
        if mask is not None:
            raise ValueError("give the secondary set either as secondary_mask or as X_secondary, not both")
        # missing values as in X: where the weak learner takes them
        X_secondary = check_array(X_secondary, dtype=np.float64, input_name="X_secondary",
                                  ensure_all_finite="allow-nan" if self._nan_refusal() is None else True)
        if X_secondary.shape[1] != X.shape[1]:
            raise ValueError(f"X_secondary has {X_secondary.shape[1]} features, X has {X.shape[1]}")
        y_secondary = column_or_1d(y_secondary, warn=True)
        if y_secondary.shape[0] != X_secondary.shape[0]:
            raise ValueError(f"y_secondary has {y_secondary.shape[0]} labels for {X_secondary.shape[0]} rows "
                             "of X_secondary")
        mask = np.r_[np.zeros(X.shape[0], dtype=bool), np.ones(X_secondary.shape[0], dtype=bool)]
        return np.vstack([X, X_secondary]), np.concatenate([y, y_secondary]), mask

    def _probability_link(self):
        return vote_probability

    def _stored_vote(self) -> StoredVote:
        """A vote of hypotheses in [-1, 1], normalised by ``sum(weights_)`` (model files:
        :mod:`marginboost.io.model_checks`): its sum must not overflow."""
        return StoredVote(self.weights_, "state field 'weights'", unit_hypotheses=True)

    @per_class
    def decision_function(self, X) -> np.ndarray:
        """``sum_t eta_t h_t(x) / sum_t eta_t`` in [-1, 1]; positive means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        total = np.sum(self.weights_)
        return weighted_vote(self.hypotheses_, self.weights_, X) / total if total > 0 else np.zeros(X.shape[0])

    @per_class
    def staged_decision_function(self, X):
        """Yield the normalised ``f_t(X)`` after every round ``t`` (one per row of ``history_``)."""
        rows = hypothesis_rows(self, X)
        score = np.zeros(rows.shape[1])
        for t, (eta, row) in enumerate(zip(self.weights_, rows)):
            # decision_function's sums (vote_sum's order, the total by np.sum), one term more a stage;
            # a stage of zero coefficients is 0, as decision_function is, not 0/0
            score += eta * row
            total = np.sum(self.weights_[: t + 1])
            yield (score + 0.0) / total if total > 0 else np.zeros(rows.shape[1])


class MABoostClassifier(_MirrorBoostClassifier, booster="maboost"):
    """MABoost / LAMABoost: boosting by mirror ascent on the sample distribution (002 Algorithm 1).

    Parameters
    ----------
    regularizer : 'entropy' (default) or 'l2'
        ``R``: negative entropy (KL projections; with 'normal' it is AdaBoost with
        ``eta_t = gamma_t``) or ``1/2 ||w||^2`` (Euclidean projections, ``eta_t = gamma_t/m``).
    update : 'active' (default, MABoost) or 'lazy' (LAMABoost, dual averaging)
    variant : 'normal' (default), 'maxmargin', 'smooth', 'combined' or 'sparse'
        See :func:`marginboost.mirror.maboost.maboost`. 'sparse' (SparseBoost) needs
        ``regularizer='l2'`` and ``update='active'``; 'combined' needs ``secondary_mask`` or
        ``X_secondary, y_secondary`` in fit.
    smoothness : float in (0, 1], default=0.1
        ``lambda``: 'smooth' caps every weight at ``1/(lambda m)``; 'combined' caps the
        secondary examples at ``1/(lambda m_B)``. The training error (of the capped set)
        is guaranteed to fall to ``lambda``, not below.
    sparsity : float in [0, 1), default=0.5
        ``c`` of SparseBoost's l1 factor ``alpha_t = c eta_t gamma_t ||z_t||_1 / 2``.
    learning_rate : float in (0, 2), default=1.0
        Multiplies every ``eta_t`` (the R package's ``nu``; Theorem 1's rate needs 1). Below 2:
        there the per-round gain of the regret bound, ``(lr - lr^2/2) gamma_t^2 ||x_t||^2 / L``,
        vanishes (:data:`marginboost.mirror.maboost.MAX_LEARNING_RATE`); far above, one step
        erased every correctly classified example and the vote was worse than the majority
        class. Above 1 a fit whose vote errs on more training examples than the majority class
        warns (``DegenerateModelWarning``).
    weak_learner : 'tree' (default), 'stump', a WeakLearner, or a scikit-learn classifier
    max_depth : int >= 1, default=2
    max_iter : int >= 1, default=100
        Number of boosting rounds (the algorithm has no other stopping rule).
    max_time : float > 0 or None, default=None
        Stop after this many seconds (``status_ == 'max_time'``).
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first.
    categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype'
        The categorical columns, split by subsets of categories (see :class:`.LPBoostClassifier`).

    Ctrl-C (``KeyboardInterrupt``) during ``fit`` keeps the rounds completed
    (``status_ == 'interrupted'``, :mod:`marginboost.core.interrupts`).

    Attributes
    ----------
    classes_, hypotheses_, weights_ (``eta_t``; ``coef_`` before 0.2, a FutureWarning until 0.3),
    distribution_ (the last ``w``), margin_ (the smallest normalised training margin), n_iter_, status_ ('max_iter', 'no_progress'
    with stop_reason_ 'no_edge', 'converged' with stop_reason_ 'zero_weights' (SparseBoost), 'max_time',
    'callback', 'early_stopping', 'interrupted'), history_ (dict
    of arrays, :data:`marginboost.mirror.maboost.HISTORY_COLUMNS`).
    """

    _parameter_constraints: dict = {
        **_MirrorBoostClassifier._parameter_constraints,
        "regularizer": [StrOptions(set(REGULARIZERS))],
        "update": [StrOptions(set(UPDATES))],
        "variant": [StrOptions(set(VARIANTS))],
        "smoothness": [Interval(numbers.Real, 0, 1, closed="right")],
        "sparsity": [Interval(numbers.Real, 0, 1, closed="left")],
    }

    def __init__(self, regularizer="entropy", update="active", variant="normal", smoothness=0.1,
                 sparsity=0.5, learning_rate=1.0, weak_learner="tree", max_depth=2, max_iter=100, max_time=None,
                 verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 warm_start=False, categorical_features="from_dtype"):
        self.regularizer = regularizer
        self.update = update
        self.variant = variant
        self.smoothness = smoothness
        self.sparsity = sparsity
        self.learning_rate = learning_rate
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.max_iter = max_iter
        self.max_time = max_time
        self.verbose = verbose
        self.callbacks = callbacks
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.categorical_features = categorical_features

    def fit(self, X, y, sample_weight=None, secondary_mask=None, X_secondary=None, y_secondary=None,
            eval_set=None):
        """Boost on ``(X, y)``; more than two classes in ``y``: one model per class (one-vs-rest).

        ``sample_weight``: optional, finite, >= 0; example ``i`` counts as ``sample_weight[i]``
        copies (scaled to mean 1), so 'smooth' caps it at ``s_i/(lambda m)``; weight 0 leaves it
        out. The secondary data set of variant 'combined' (002 section 3.2), either as
        ``secondary_mask`` -- a boolean mask of length ``n_samples`` or integer indices into
        ``X`` -- or as a second data set ``X_secondary, y_secondary``, appended to ``(X, y)``
        (then ``sample_weight``, if given, covers the rows of ``X`` followed by those of
        ``X_secondary``). Both forms give the same model.
        ``eval_set = (X_val, y_val)``: the held-out set of ``early_stopping`` (required there
        with a secondary set).
        """
        return self._fit(X, y, sample_weight, secondary_mask, X_secondary, y_secondary, eval_set)

    def _parts(self, m, mask, weights):
        if mask is not None and self.variant != "combined":
            raise ValueError("secondary_mask (or X_secondary) is only used by variant='combined', "
                             f"got variant={self.variant!r}")
        return maboost(m, self.regularizer, self.update, self.variant, float(self.smoothness), mask,
                       float(self.sparsity), float(self.learning_rate), weights)


class MadaBoostClassifier(_MirrorBoostClassifier, booster="madaboost"):
    """MadaBoost as double-projection LAMABoost (002 Algorithm 3, Theorem 5).

    Weights ``w_t ~ min(1, exp(-sum_{s<t} eta_s y_i h_s(x_i)))``: AdaBoost's, capped at the
    initial weight (Domingo and Watanabe 2000).

    Parameters
    ----------
    step : 'paper' (default) or 'adaboost'
        The step-size rule (as ``step`` of :class:`~marginboost.FWBoostClassifier` and
        :class:`~marginboost.AverageMarginBoostClassifier`): ``eta_t = gamma_t ||x_t||_1 / m``
        (002 Theorem 5: O(1/(eps^2 gamma^2)) rounds) or the original MadaBoost's
        ``1/2 ln((1 + gamma_t)/(1 - gamma_t))``; ``learning_rate`` multiplies either.
    learning_rate : float in (0, 2), default=1.0
        Multiplies every ``eta_t``; below 2 and with the same warning above 1 as in
        :class:`MABoostClassifier` (:data:`marginboost.mirror.maboost.MAX_LEARNING_RATE`).
    weak_learner : 'tree' (default), 'stump', a WeakLearner, or a scikit-learn classifier
    max_depth : int >= 1, default=2
    max_iter : int >= 1, default=100
    max_time : float > 0 or None, default=None
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first.
    categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype'
        The categorical columns, split by subsets of categories (see :class:`.LPBoostClassifier`).

    The run controls (``max_iter`` to ``warm_start``) act as in :class:`MABoostClassifier`.

    Attributes
    ----------
    As :class:`MABoostClassifier`.
    """

    _parameter_constraints: dict = {
        **_MirrorBoostClassifier._parameter_constraints,
        "step": [StrOptions(set(MADABOOST_STEPS))],
    }

    def __init__(self, step="paper", learning_rate=1.0, weak_learner="tree", max_depth=2, max_iter=100,
                 max_time=None, verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, warm_start=False, categorical_features="from_dtype"):
        self.step = step
        self.learning_rate = learning_rate
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.max_iter = max_iter
        self.max_time = max_time
        self.verbose = verbose
        self.callbacks = callbacks
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.categorical_features = categorical_features

    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Boost on ``(X, y)``; more than two classes in ``y``: one model per class (one-vs-rest).

        ``sample_weight`` (optional, finite, >= 0): example ``i`` counts as ``sample_weight[i]``
        copies (scaled to mean 1), each starting at weight 1 in ``[0, 1]^m``; weight 0 leaves
        it out. ``eval_set = (X_val, y_val)``: the held-out set of ``early_stopping``.
        """
        return self._fit(X, y, sample_weight, eval_set=eval_set)

    def _parts(self, m, mask, weights):
        return madaboost(m, self.step, float(self.learning_rate), weights)


class AdaBoostClassifier(_MirrorBoostClassifier, booster="adaboost"):
    """AdaBoost (Freund and Schapire 1997) run by the mirror-ascent loop of MABoost.

    ``w_{t+1} ~ w_t exp(-eta_t y h_t(x))`` with ``eta_t = lr * 1/2 ln((1 + gamma_t)/(1 - gamma_t))``
    (:func:`marginboost.mirror.maboost.adaboost`): entropy MABoost on the simplex with AdaBoost's
    coefficient instead of ``eta_t = gamma_t`` (002, after eq. 15). It shares the loop, the
    bookkeeping (``history_``) and the weak learners of :class:`MABoostClassifier`, so the two
    compare like for like (``benchmarks/maboost_speed.py``).

    Parameters
    ----------
    learning_rate : float in (0, 2), default=1.0
        Multiplies every ``eta_t``; below 2 and with the same warning above 1 as in
        :class:`MABoostClassifier` (:data:`marginboost.mirror.maboost.MAX_LEARNING_RATE`).
    weak_learner : 'tree' (default), 'stump', a WeakLearner, or a scikit-learn classifier
    max_depth : int >= 1, default=2
    max_iter : int >= 1, default=100
    max_time : float > 0 or None, default=None
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first.
    categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype'
        The categorical columns, split by subsets of categories (see :class:`.LPBoostClassifier`).

    The run controls (``max_iter`` to ``warm_start``) act as in :class:`MABoostClassifier`.

    Attributes
    ----------
    As :class:`MABoostClassifier`.
    """

    def __init__(self, learning_rate=1.0, weak_learner="tree", max_depth=2, max_iter=100, max_time=None,
                 verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 warm_start=False, categorical_features="from_dtype"):
        self.learning_rate = learning_rate
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.max_iter = max_iter
        self.max_time = max_time
        self.verbose = verbose
        self.callbacks = callbacks
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.categorical_features = categorical_features

    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Boost on ``(X, y)``; more than two classes in ``y``: one model per class (one-vs-rest).

        ``sample_weight`` (optional, finite, >= 0) is the initial distribution (scaled to sum
        1), which for AdaBoost is the same as replicating example ``i`` ``sample_weight[i]``
        times; weight 0 leaves it out. ``eval_set = (X_val, y_val)``: the held-out set of
        ``early_stopping``.
        """
        return self._fit(X, y, sample_weight, eval_set=eval_set)

    def _parts(self, m, mask, weights):
        return adaboost(m, float(self.learning_rate), weights)


__all__ = ["AdaBoostClassifier", "MABoostClassifier", "MadaBoostClassifier", "check_secondary_mask"]
