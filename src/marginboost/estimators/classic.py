"""scikit-learn estimators for the classic margin boosters.

* :class:`TotalBoostClassifier`  -- TotalBoost (Warmuth, Liao, Raetsch, ICML 2006), hard margin;
* :class:`SoftBoostClassifier`   -- SoftBoost (Warmuth, Glocer, Raetsch, NIPS 2007), soft margin;
* :class:`AdaBoostVClassifier`   -- AdaBoost*_nu (Raetsch and Warmuth, JMLR 2005), hard margin;
* :class:`SmoothBoostClassifier` -- SmoothBoost (Servedio, JMLR 2003), smooth distributions.

The algorithms and their formulas are in :mod:`marginboost.totally_corrective.softboost`,
:mod:`marginboost.classic.adaboostv` and :mod:`marginboost.classic.smoothboost`. Every model
is ``f(x) = sum_j w_j h_j(x)`` with ``w`` on the simplex, so ``decision_function`` lies in
[-1, 1] and ``predict`` is its sign (0 -> ``classes_[0]``). ``margin_`` is the soft margin
(mean of the ``nu`` smallest training margins ``y_i f(x_i)``) for SoftBoost and the hard
margin (the smallest) for the others. ``nu`` is a count or a fraction as in
:func:`marginboost.estimators.soft_margin.resolve_nu`. ``sample_weight`` is not supported.

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

More than two classes: one-vs-rest (:mod:`marginboost.estimators.multiclass`): the fitted attributes below are then
those of ``estimators_[k]``, class k against the rest, and ``n_iter_``, ``status_``, ``history_``
hold one entry per class. ``predict_proba`` is ``(1 + f) / 2`` (normalised over the classes):
not calibrated.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from marginboost.classic.adaboostv import AdaBoostVLoop
from marginboost.classic.smoothboost import SmoothBoostLoop
from marginboost.estimators.base import COMMON_PARAMETER_CONSTRAINTS, BoostingEstimator
from marginboost.estimators.binary import BinaryClassifierMixin, WeightedVoteMixin
from marginboost.estimators.compat import HasMethods, Interval, StrOptions
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.multiclass import one_vs_rest
from marginboost.estimators.soft_margin import resolve_nu
from marginboost.io.model_codecs import Count, ModelFileMixin, Real, Text, Vector
from marginboost.totally_corrective.softboost import SoftBoostLoop
from marginboost.weak_learners import NAMED_WEAK_LEARNERS, resolve_weak_learner


class _NormalisedPath:
    """The weights after every round ``t``, ``c_t / sum |c_t|`` with ``c_t`` the first ``t`` round
    coefficients (or ``last``, the final ones, where they are not: AdaBoostV's 'perfect' stop),
    computed as the loop computes its final weights, so that the last stage is the model bit for
    bit. (The loop's compact log rescales the weights of round ``t - 1``, which differs from them
    in the last bit: the last stage was not the decision function.)"""

    def __init__(self, coefficients, last=None):
        self._coefficients = np.asarray(coefficients, dtype=np.float64)
        self._last = last

    def __len__(self) -> int:
        return self._coefficients.shape[0]

    def __iter__(self):
        n = len(self)
        for t in range(1, n + 1):
            c = self._coefficients[:t] if t < n or self._last is None else np.asarray(self._last, dtype=np.float64)
            yield c / float(np.sum(np.abs(c)))


class _ClassicBoostClassifier(BoostingEstimator, ModelFileMixin, WeightedVoteMixin, BinaryClassifierMixin,
                              ClassifierMixin, BaseEstimator):
    """Shared front end: validation, the run, prediction. Subclasses give ``_loop(oracle, y)``.

    ``save(path)`` / ``load(path)``: a model file (:mod:`marginboost.io.model_io`) keeps the
    hypotheses of nonzero weight, ``weights_``, ``margin_``, ``n_iter_``, ``status_`` (and
    SoftBoost's ``nu_``); ``history_`` and ``weights_path_`` are None after load.
    """

    _parameter_constraints: dict = {
        "weak_learner": [StrOptions(set(NAMED_WEAK_LEARNERS)), HasMethods(["prepare"]), HasMethods(["fit", "predict"])],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        **COMMON_PARAMETER_CONSTRAINTS,
    }
    # The weights are non-negative by definition (LP weights, SmoothBoost 1/t, AdaBoostV alpha_t >= 0);
    # AdaBoostV alone may weigh a perfectly wrong hypothesis -1 (its "perfect" stop): see there.
    _model_state = {"weights_": Vector(non_negative=True), "margin_": Real(finite=False), "n_iter_": Count(),
                    "status_": Text()}
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


class TotalBoostClassifier(_ClassicBoostClassifier):
    """TotalBoost (Warmuth, Liao, Raetsch, ICML 2006): totally corrective hard-margin boosting.

    Each round projects the uniform distribution (relative entropy) onto
    ``{d in simplex : d @ u_q <= min_t gamma_t - eps for every hypothesis q so far}`` and
    stops when that set is empty or degenerate; the final weights maximise the hard margin
    over the hypotheses found (an LP). Margin ``>= min_t gamma_t - eps`` within
    ``ceil(2 ln(m) / eps^2)`` rounds. See :mod:`marginboost.totally_corrective.softboost`.

    Parameters
    ----------
    eps : float in (0, 2], default=0.01
        Accuracy (``nu`` in the paper).
    weak_learner : 'tree' (default), 'stump', a WeakLearner, or a scikit-learn classifier
    max_depth : int >= 1, default=2
        Depth of the 'tree' weak learner.
    max_iter : int >= 1, default=1000
        Maximum number of rounds (weak-learner calls). The guarantee needs
        ``iteration_bound(m, 1, eps)`` = ``ceil(2 ln(m) / eps^2)``
        (:func:`marginboost.totally_corrective.softboost.iteration_bound`).
    max_time : float > 0 or None, default=None
        Stop after this many seconds (``status_ == 'max_time'``).
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first.

    Ctrl-C (``KeyboardInterrupt``) during ``fit`` keeps the rounds completed
    (``status_ == 'interrupted'``, :mod:`marginboost.core.interrupts`).

    Attributes
    ----------
    classes_, hypotheses_, weights_ (LP weights on the simplex), margin_ (the smallest
    training margin), n_iter_, status_ ('converged', 'max_iter', 'max_time', 'callback',
    'early_stopping' or 'interrupted'), history_ (dict of arrays,
    :data:`marginboost.totally_corrective.softboost.HISTORY_COLUMNS`), weights_path_ (the LP
    weights after every round).
    """

    _parameter_constraints: dict = {
        **_ClassicBoostClassifier._parameter_constraints,
        "eps": [Interval(numbers.Real, 0, 2, closed="right")],
    }

    def __init__(self, eps=0.01, weak_learner="tree", max_depth=2, max_iter=1000,
                 max_time=None, verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, warm_start=False):
        self.eps = eps
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

    def _loop(self, oracle, y_pm):
        return SoftBoostLoop(oracle, y_pm, 1.0, float(self.eps))

    def _margin(self, result):
        return result.soft_margin  # at nu = 1: the smallest margin


class SoftBoostClassifier(_ClassicBoostClassifier):
    """SoftBoost (Warmuth, Glocer, Raetsch, NIPS 2007): totally corrective soft-margin boosting.

    TotalBoost over the capped simplex ``P(m, nu)``: soft margin ``>= min_t gamma_t - eps``
    within ``ceil(2 ln(m/nu) / eps^2)`` rounds. See :mod:`marginboost.totally_corrective.softboost`.

    Parameters
    ----------
    nu : int or float, default=0.1
        Capping parameter, a count in [1, m] or a fraction in (0, 1] (``resolve_nu``).
    eps : float in (0, 2], default=0.01
        Accuracy (``delta`` in the paper).
    weak_learner, max_depth : as in :class:`TotalBoostClassifier`.
    max_iter : int >= 1, default=1000
        Maximum number of rounds. The guarantee needs ``iteration_bound(m, nu_, eps)`` =
        ``ceil(2 ln(m/nu) / eps^2)`` (:func:`marginboost.totally_corrective.softboost.iteration_bound`).
    max_time : float > 0 or None, default=None
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first.

    The run controls (``max_time`` to ``warm_start``) act as in :class:`TotalBoostClassifier`.

    Attributes
    ----------
    As :class:`TotalBoostClassifier`, with ``margin_`` the soft margin and ``nu_`` the count.
    """

    _parameter_constraints: dict = {
        **TotalBoostClassifier._parameter_constraints,
        "nu": [Interval(numbers.Real, 0, None, closed="neither")],
    }
    _model_state = {**TotalBoostClassifier._model_state, "nu_": Real(low=1.0)}

    def __init__(self, nu=0.1, eps=0.01, weak_learner="tree", max_depth=2, max_iter=1000,
                 max_time=None, verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, warm_start=False):
        self.nu = nu
        self.eps = eps
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

    def _loop(self, oracle, y_pm):
        self.nu_ = resolve_nu(self.nu, y_pm.shape[0], self._training_rows(y_pm.shape[0]))
        return SoftBoostLoop(oracle, y_pm, self.nu_, float(self.eps))

    def _margin(self, result):
        return result.soft_margin  # at nu_


class AdaBoostVClassifier(_ClassicBoostClassifier):
    """AdaBoost*_nu (Raetsch and Warmuth, JMLR 2005): AdaBoost aiming at margin ``rho_t``.

    ``rho_t = min_{r <= t} gamma_r - eps``, ``alpha_t = atanh(gamma_t) - atanh(rho_t)``;
    after ``floor(2 ln(m) / eps^2) + 1`` rounds every margin exceeds ``min_t gamma_t - eps``
    (it stops earlier once that holds). See :mod:`marginboost.classic.adaboostv`.

    Parameters
    ----------
    eps : float in (0, 1), default=0.1
        Accuracy (``nu`` in the paper). Any value in the range fits: the first step is about
        ``eps / (1 - gamma_1^2)``, so a tiny ``eps`` (1e-300, 5e-324) keeps the rounds on the
        first hypotheses, whose vote is the model. (Below ~1e-17 ``rho_t`` rounds back to the
        edge; the step is then taken as ``atanh(eps / (1 - gamma_t rho_t))``, which it equals,
        instead of the difference of two equal numbers: it was 0, and 0/0 a ZeroDivisionError.)
    weak_learner, max_depth : as in :class:`TotalBoostClassifier`.
    max_iter : int >= 1, default=1000
        Maximum number of rounds. For the paper's guarantee pass
        ``adaboostv_rounds(m, eps)`` = ``floor(2 ln(m) / eps^2) + 1``
        (:func:`marginboost.classic.adaboostv.adaboostv_rounds`); it is no default, since it
        grows as ``1/eps^2`` (about ``1e21`` rounds at ``eps = 1e-10``).
    max_time : float > 0 or None, default=None
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first.

    The run controls (``max_time`` to ``warm_start``) act as in :class:`TotalBoostClassifier`.

    Attributes
    ----------
    classes_, hypotheses_, weights_ (``alpha_t / sum alpha``), margin_ (smallest training
    margin), n_iter_, status_ ('converged', 'max_iter', 'max_time', 'perfect': one hypothesis
    has edge 1 and is the model, 'no_edge', 'callback', 'early_stopping', 'interrupted'), history_
    (:data:`marginboost.classic.adaboostv.ADABOOSTV_HISTORY`), weights_path_.
    """

    _parameter_constraints: dict = {
        **_ClassicBoostClassifier._parameter_constraints,
        "eps": [Interval(numbers.Real, 0, 1, closed="neither")],
    }
    # A hypothesis perfectly wrong under its distribution (edge -1) is the whole model, with
    # weight -1 (the 'perfect' stop): AdaBoostV's weights may be negative there.
    _model_state = {**_ClassicBoostClassifier._model_state, "weights_": Vector()}

    def __init__(self, eps=0.1, weak_learner="tree", max_depth=2, max_iter=1000,
                 max_time=None, verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, warm_start=False):
        self.eps = eps
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

    def _loop(self, oracle, y_pm):
        return AdaBoostVLoop(oracle, y_pm, float(self.eps))

    def _weights_path(self, result):
        # the round coefficients alpha_t are the history's steps (the sign of the 'perfect' one)
        steps = result.history["step"]
        n = steps.shape[0]
        last = np.r_[np.zeros(n - 1), steps[-1]] if result.status == "perfect" else None
        return _NormalisedPath(steps, last)


class SmoothBoostClassifier(_ClassicBoostClassifier):
    """SmoothBoost (Servedio, JMLR 2003): boosting with (1/kappa)-smooth distributions.

    Every distribution handed to the weak learner has ``d_i <= 1/(kappa m)``. With edges
    ``>= 2 gamma`` it stops within ``2 / (kappa gamma^2 sqrt(1 - gamma))`` rounds with fewer
    than ``kappa m`` training margins ``<= gamma / (2 + gamma)``. See :mod:`marginboost.classic.smoothboost`.

    Parameters
    ----------
    kappa : float in (0, 1), default=0.1
        Target fraction of examples allowed a margin below ``theta = gamma/(2 + gamma)``.
    gamma : float in (0, 1/2), default=0.1
        Advantage assumed of the weak learner (edge ``>= 2 gamma``).
    weak_learner, max_depth : as in :class:`TotalBoostClassifier`.
    max_iter : int >= 1, default=1000
        Maximum number of rounds. For the paper's guarantee pass
        ``smoothboost_rounds(kappa, gamma)`` = ``ceil(2 / (kappa gamma^2 sqrt(1 - gamma)))``
        (:func:`marginboost.classic.smoothboost.smoothboost_rounds`; 2109 at the defaults).
    max_time : float > 0 or None, default=None
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first.

    The run controls (``max_time`` to ``warm_start``) act as in :class:`TotalBoostClassifier`.

    Attributes
    ----------
    classes_, hypotheses_, weights_ (all ``1/T``), margin_ (smallest training margin),
    n_iter_, status_ ('converged': ``|M|/m < kappa``, 'max_iter', 'max_time', 'callback',
    'early_stopping' or 'interrupted'), history_
    (:data:`marginboost.classic.smoothboost.SMOOTHBOOST_HISTORY`), weights_path_.
    """

    _parameter_constraints: dict = {
        **_ClassicBoostClassifier._parameter_constraints,
        "kappa": [Interval(numbers.Real, 0, 1, closed="neither")],
        "gamma": [Interval(numbers.Real, 0, 0.5, closed="neither")],
    }

    def __init__(self, kappa=0.1, gamma=0.1, weak_learner="tree", max_depth=2, max_iter=1000,
                 max_time=None, verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, warm_start=False):
        self.kappa = kappa
        self.gamma = gamma
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

    # kappa is its stopping rule alone (|M|/m < kappa): a warm start stops by the new one
    _warm_start_applies = ("kappa",)

    def _loop(self, oracle, y_pm):
        return SmoothBoostLoop(oracle, y_pm, float(self.kappa), float(self.gamma))

    def _weights_path(self, result):
        return _NormalisedPath(np.ones(result.n_iter))  # w_t = (1/t) 1

    def _warm_start_apply(self, result, changed):
        loop = result.loop
        loop.kappa = float(self.kappa)
        M = result.state[3]
        return result, float(M.sum() / M.shape[0]) < loop.kappa  # the density the loop tests


__all__ = ["AdaBoostVClassifier", "SmoothBoostClassifier", "SoftBoostClassifier", "TotalBoostClassifier"]
