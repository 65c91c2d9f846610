"""scikit-learn estimators for the totally corrective boosters.

* :class:`TotalBoostClassifier` -- TotalBoost (Warmuth, Liao, Raetsch, ICML 2006), hard margin;
* :class:`SoftBoostClassifier`  -- SoftBoost (Warmuth, Glocer, Raetsch, NIPS 2007), soft margin.

Totally corrective: each round's distribution is the relative-entropy projection of the uniform
one onto the distributions under which every hypothesis so far has a small edge, and the final
weights are re-optimised over all of them (an LP). The algorithms and their formulas are in :mod:`marginboost.totally_corrective.softboost`; the front end, shared with
AdaBoostV and SmoothBoost (the model, ``margin_``, the run controls, warm starts, more than two
classes), is :mod:`marginboost.estimators.simplex_vote`.
"""
from __future__ import annotations

import numbers

from marginboost.estimators.compat import Interval
from marginboost.estimators.parameters import resolve_nu
from marginboost.estimators.simplex_vote import SimplexVoteClassifier
from marginboost.io.model_codecs import Real
from marginboost.totally_corrective.softboost import SoftBoostLoop

__all__ = ["SoftBoostClassifier", "TotalBoostClassifier"]


class TotalBoostClassifier(SimplexVoteClassifier, booster="totalboost"):
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
    categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype'
        The categorical columns, split by subsets of categories (see :class:`.LPBoostClassifier`).

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

    _lp_over_all_rows = True  # no fit on a cluster: dask input is refused (input_data.validate_data)

    _parameter_constraints: dict = {
        **SimplexVoteClassifier._parameter_constraints,
        "eps": [Interval(numbers.Real, 0, 2, closed="right")],
    }

    def __init__(self, eps=0.01, weak_learner="tree", max_depth=2, max_iter=1000,
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
        return SoftBoostLoop(oracle, y_pm, 1.0, float(self.eps))

    def _margin(self, result):
        return result.soft_margin  # at nu = 1: the smallest margin


class SoftBoostClassifier(SimplexVoteClassifier, booster="softboost"):
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
    categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype'
        The categorical columns, split by subsets of categories (see :class:`.LPBoostClassifier`).

    The run controls (``max_time`` to ``warm_start``) act as in :class:`TotalBoostClassifier`.

    Attributes
    ----------
    As :class:`TotalBoostClassifier`, with ``margin_`` the soft margin and ``nu_`` the count.
    """

    _lp_over_all_rows = True  # no fit on a cluster: dask input is refused (input_data.validate_data)

    _parameter_constraints: dict = {
        **TotalBoostClassifier._parameter_constraints,
        "nu": [Interval(numbers.Real, 0, None, closed="neither")],
    }
    _model_state = {**TotalBoostClassifier._model_state, "nu_": Real(low=1.0)}

    def __init__(self, nu=0.1, eps=0.01, weak_learner="tree", max_depth=2, max_iter=1000,
                 max_time=None, verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, warm_start=False, categorical_features="from_dtype"):
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
        self.categorical_features = categorical_features

    def _loop(self, oracle, y_pm):
        self.nu_ = resolve_nu(self.nu, y_pm.shape[0], self._training_rows(y_pm.shape[0]))
        return SoftBoostLoop(oracle, y_pm, self.nu_, float(self.eps))

    def _margin(self, result):
        return result.soft_margin  # at nu_
