"""scikit-learn estimators for the classic margin boosters.

* :class:`AdaBoostVClassifier`   -- AdaBoost*_nu (Raetsch and Warmuth, JMLR 2005), hard margin;
* :class:`SmoothBoostClassifier` -- SmoothBoost (Servedio, JMLR 2003), smooth distributions.

The algorithms and their formulas are in :mod:`marginboost.classic.adaboostv` and
:mod:`marginboost.classic.smoothboost`; the front end, shared with TotalBoost and SoftBoost
(the model, ``margin_``, the run controls, warm starts, more than two classes), is
:mod:`marginboost.estimators.simplex_vote`.
"""
from __future__ import annotations

import numbers

import numpy as np

from marginboost.classic.adaboostv import PERFECT, AdaBoostVLoop
from marginboost.classic.smoothboost import SmoothBoostLoop
from marginboost.estimators.compat import Interval
from marginboost.estimators.simplex_vote import SimplexVoteClassifier
from marginboost.io.model_codecs import Vector

__all__ = ["AdaBoostVClassifier", "SmoothBoostClassifier"]


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


class AdaBoostVClassifier(SimplexVoteClassifier, booster="adaboostv"):
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
    weak_learner, max_depth : as in :class:`marginboost.TotalBoostClassifier`.
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
    categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype'
        The categorical columns, split by subsets of categories (see :class:`.LPBoostClassifier`).

    The run controls (``max_time`` to ``warm_start``) act as in :class:`marginboost.TotalBoostClassifier`.

    Attributes
    ----------
    classes_, hypotheses_, weights_ (``alpha_t / sum alpha``), margin_ (smallest training
    margin), n_iter_, status_ ('converged', 'max_iter', 'max_time', 'no_progress', 'callback',
    'early_stopping', 'interrupted') and stop_reason_ ('perfect': one hypothesis has edge 1 and is
    the model, a 'converged' fit; 'no_edge': no weak edge left, 'no_progress'; else None), history_
    (:data:`marginboost.classic.adaboostv.ADABOOSTV_HISTORY`), weights_path_.
    """

    _parameter_constraints: dict = {
        **SimplexVoteClassifier._parameter_constraints,
        "eps": [Interval(numbers.Real, 0, 1, closed="neither")],
    }
    # A hypothesis perfectly wrong under its distribution (edge -1) is the whole model, with
    # weight -1 (the 'perfect' stop): AdaBoostV's weights may be negative there.
    _model_state = {**SimplexVoteClassifier._model_state, "weights_": Vector()}

    def __init__(self, eps=0.1, weak_learner="tree", max_depth=2, max_iter=1000,
                 max_time=None, verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, warm_start=False, categorical_features="from_dtype"):
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
        self.categorical_features = categorical_features

    def _loop(self, oracle, y_pm):
        return AdaBoostVLoop(oracle, y_pm, float(self.eps))

    def _weights_path(self, result):
        # the round coefficients alpha_t are the history's steps (the sign of the 'perfect' one)
        steps = result.history["step"]
        n = steps.shape[0]
        last = np.r_[np.zeros(n - 1), steps[-1]] if result.reason == PERFECT else None
        return _NormalisedPath(steps, last)


class SmoothBoostClassifier(SimplexVoteClassifier, booster="smoothboost"):
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
    weak_learner, max_depth : as in :class:`marginboost.TotalBoostClassifier`.
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
    categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype'
        The categorical columns, split by subsets of categories (see :class:`.LPBoostClassifier`).

    The run controls (``max_time`` to ``warm_start``) act as in :class:`marginboost.TotalBoostClassifier`.

    Attributes
    ----------
    classes_, hypotheses_, weights_ (all ``1/T``), margin_ (smallest training margin),
    n_iter_, status_ ('converged': ``|M|/m < kappa``, 'max_iter', 'max_time', 'callback',
    'early_stopping' or 'interrupted'), history_
    (:data:`marginboost.classic.smoothboost.SMOOTHBOOST_HISTORY`), weights_path_.
    """

    _parameter_constraints: dict = {
        **SimplexVoteClassifier._parameter_constraints,
        "kappa": [Interval(numbers.Real, 0, 1, closed="neither")],
        "gamma": [Interval(numbers.Real, 0, 0.5, closed="neither")],
    }

    def __init__(self, kappa=0.1, gamma=0.1, weak_learner="tree", max_depth=2, max_iter=1000,
                 max_time=None, verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, warm_start=False, categorical_features="from_dtype"):
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
        self.categorical_features = categorical_features

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
