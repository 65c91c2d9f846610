"""scikit-learn estimators for the soft-margin boosters of paper 000.

All four share one front end, :class:`_SoftMarginBoostClassifier`, and differ only in the
assembly of parts they hand to the loop (:mod:`marginboost.soft_margin.algorithms`):

* :class:`LPBoostClassifier`      -- LPBoost (Demiriz et al. 2002), restricted master LP;
* :class:`ERLPBoostClassifier`    -- ERLPBoost (Warmuth et al. 2008), entropy-regularised master;
* :class:`CERLPBoostClassifier`   -- C-ERLPBoost (Shalev-Shwartz and Singer 2010), FW short step;
* :class:`MLPBoostClassifier`     -- the generic scheme (000, Algorithm 1), ``fw`` x ``secondary``;
  with the defaults (short step, LP rule) it is MLPBoost.

The fitted model is ``H(x) = sum_j w_j h_j(x)`` with ``w`` on the simplex, so
``decision_function`` lies in [-1, 1] and ``predict`` is its sign. The soft margin the fit
reaches, ``margin_``, is the mean of the ``nu`` smallest training margins ``y_i H(x_i)``.

``nu`` (the capping parameter, ``1 <= nu <= m``) may be given as a count or a fraction
(:func:`marginboost.estimators.parameters.resolve_nu`): ``nu=1`` is the hard margin and
``nu=1.0`` is ``nu = m``.

``warm_start=True`` continues with the same ``nu`` only (the rounds so far were fitted on
``P(m, nu)``), and with the same ``eps`` but in LPBoost, where ``eps`` is the stopping tolerance
alone: a changed one applies (a converged fit goes on to a smaller one, asking the distribution of
its stopping round again); in the others ``eps`` sets the objective's ``eta``. A refused change
raises a ValueError naming the parameter.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from marginboost.core.rounds import Status
from marginboost.estimators.base import (CATEGORICAL_FEATURES_CONSTRAINT, COMMON_PARAMETER_CONSTRAINTS,
                                         BoostingEstimator, DegenerateModelWarning)
from marginboost.estimators.binary import BinaryClassifierMixin, WeightedVoteMixin
from marginboost.estimators.compat import HasMethods, Interval, StrOptions
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.multiclass import one_vs_rest
from marginboost.estimators.parameters import resolve_nu
from marginboost.estimators.sample_weights import positive_weights
from marginboost.io.model_codecs import Count, Real, Reason, Text, Vector
from marginboost.io.model_file import ModelFileMixin
from marginboost.soft_margin import algorithms
from marginboost.soft_margin.algorithms import Assembly
from marginboost.soft_margin.fw_rules import FW_RULES
from marginboost.soft_margin.objectives import MIN_EPS, entropy_eta
from marginboost.soft_margin.scheme import HISTORY_COLUMNS
from marginboost.soft_margin.secondary import SECONDARY_RULES
from marginboost.weak_learners import NAMED_WEAK_LEARNERS, resolve_weak_learner


class _SoftMarginBoostClassifier(BoostingEstimator, ModelFileMixin, WeightedVoteMixin, BinaryClassifierMixin,
                                 ClassifierMixin, BaseEstimator):
    """Base class: a soft-margin booster of 000 behind the scikit-learn classifier API.

    Parameters
    ----------
    nu : int or float, default=0.1
        Capping parameter (see the module docstring for count vs fraction).
    eps : float >= 1e-300, default=0.01
        Target accuracy: the fit stops with soft margin >= g - eps, g the smallest edge seen.
        At least 1e-300 (:data:`marginboost.soft_margin.objectives.MIN_EPS`): there
        ``eta = 2 ln(m/nu)/eps`` is still a finite double for any ``m`` up to 2^63 (at most
        ~8.8e301); at ``eps = 5e-324`` it overflowed to inf and the entropy projection divided
        by zero. (An ``eps`` below ~1e-16 is finer than double precision resolves in margins of
        size 1: such a fit runs to ``max_iter``, with a working model.)
    weak_learner : 'tree', 'stump', a WeakLearner, or a scikit-learn classifier, default='tree'
    max_depth : int >= 1, default=2
        Depth of the 'tree' weak learner (2 in the paper's experiments).
    max_iter : int >= 1, default=1000
        Maximum number of weak-learner calls.
    max_time : float > 0 or None, default=None
        Stop after this many seconds (``status_ == 'max_time'``).
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first.
    categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype'
        The categorical columns (as scikit-learn's HistGradientBoosting): 'from_dtype' the pandas
        ``category`` columns of a DataFrame. They are encoded to codes (categories stored in
        ``feature_categories_``, at most 255 per column) and split by subsets of categories, the
        edge-maximising subset exactly (:mod:`marginboost.weak_learners.categorical`); a category
        unseen at fit follows the split's missing-value rule. Only the 'stump', 'tree',
        'hist_stump' and 'hist_tree' weak learners take them.

    Ctrl-C (``KeyboardInterrupt``) during ``fit`` keeps the model of the rounds completed,
    with ``status_ == 'interrupted'`` and a warning (or re-raises: :mod:`marginboost.core.interrupts`).

    Attributes
    ----------
    classes_ : the labels; with two, ``classes_[1]`` is the positive class.
    hypotheses_ : list of the distinct hypotheses found, in order.
    weights_ : ndarray, their weights (on the simplex; many are 0).
    margin_ : float, the final soft margin on the training sample.
    objective_ : float, the final objective (smoothed soft margin; LPBoost: the LP value).
    gap_ : float, the final duality gap ``best edge - objective``.
    n_iter_ : int, number of weak-learner calls.
    status_ : 'converged', 'max_iter', 'max_time' or 'interrupted'.
    nu_ : float, the capping parameter as a count.
    eta_ : float, ``2 ln(m/nu)/eps``, the entropy regularisation strength.
    history_ : dict of equal-length arrays, one entry per round (see ``HISTORY_COLUMNS``).
    weights_path_ : iterable of the weights after every round (logged compactly).
    feature_categories_, is_categorical_ : with categorical features only: per feature None or
        its categories (code k is the k-th), and the mask of the categorical columns.

    ``save(path)`` / ``load(path)``: a model file (:mod:`marginboost.io.model_io`) keeps the
    hypotheses of positive weight and the attributes above but ``history_`` and
    ``weights_path_`` (None after load: no staged predictions).

    More than two classes: one-vs-rest (:mod:`marginboost.estimators.multiclass`); the attributes above
    are then those of ``estimators_[k]``, class k against the rest, and ``n_iter_``,
    ``status_`` and ``history_`` hold one entry per class. ``predict_proba`` is ``(1 + H) / 2``
    (normalised over the classes): not calibrated.
    """

    _parameter_constraints: dict = {
        "nu": [Interval(numbers.Real, 0, None, closed="neither")],
        "eps": [Interval(numbers.Real, MIN_EPS, None, closed="left")],
        "weak_learner": [StrOptions(set(NAMED_WEAK_LEARNERS)), HasMethods(["prepare"]), HasMethods(["fit", "predict"])],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        **COMMON_PARAMETER_CONSTRAINTS,
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
    }
    # weights_ on the simplex: >= 0 here, summing to 1 in WeightedVoteMixin._stored_vote
    _model_state = {"weights_": Vector(non_negative=True), "margin_": Real(finite=False),
                    "objective_": Real(finite=False), "gap_": Real(finite=False), "n_iter_": Count(),
                    "status_": Text(), "stop_reason_": Reason(), "nu_": Real(low=1.0), "eta_": Real(low=0.0)}
    _model_unsaved = ("history_", "weights_path_")
    _model_prune = "weights_"
    # float32 stays float32: the histogram learners bin it without a float64 copy of X.
    _fit_dtype = [np.float64, np.float32]

    def __init__(self, nu=0.1, eps=0.01, weak_learner="tree", max_depth=2, max_iter=1000, max_time=None,
                 verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 warm_start=False, categorical_features="from_dtype"):
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

    def _assembly(self) -> Assembly:
        raise NotImplementedError

    @one_vs_rest
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Boost on ``(X, y)``; more than two classes in ``y``: one model per class (one-vs-rest).

        ``sample_weight`` (optional, finite, >= 0) makes example ``i`` count as
        ``sample_weight[i]`` copies (scaled to mean 1): its cap becomes ``s_i/nu`` and the
        entropy is taken relative to the weights. Examples of weight 0 are left out.
        ``eval_set = (X_val, y_val)``: the held-out set of ``early_stopping``.
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=self._fit_dtype, y_numeric=False)
        y_index, _ = self._binary_targets(y)
        X, y_index, weights = positive_weights(sample_weight, X, y_index, check=self._two_classes_left)
        y_pm = np.where(y_index == 1, 1.0, -1.0)
        result = self._fit_rounds(X, y_pm, weights, self._binary_eval_set(eval_set))
        self._store_fit(result)
        m = result.margins.shape[0]
        ties = int(np.count_nonzero(result.margins == 0.0))  # decision exactly 0: a coin toss
        if result.status == Status.CONVERGED and self.margin_ <= 0.0 and ties >= max(1, m // 10):
            self._warn_degenerate(ties, m)
        return self

    def _store_fit(self, result) -> None:
        """The fitted attributes of a fit's result (the rounds', the weights, the soft margin, the
        objective and its gap)."""
        self._store_rounds(result)
        self.weights_ = result.weights
        self.margin_ = result.soft_margin
        self.objective_ = result.objective
        self.gap_ = result.gap
        self.weights_path_ = result.weights_path

    def _unfinished_detail(self, result) -> str:
        return f" (gap {result.gap:.3g} > tolerance; or raise eps)"

    def _warn_degenerate(self, zero: int, m: int) -> None:
        """The optimum over the hypotheses has a soft margin <= 0 and its weights cancel: the
        decision is exactly 0 on at least a tenth of the training examples (one 0/1 feature with
        20% label noise: ``[0.5, 0.5]`` on ``h`` and ``-h``, the unique LP optimum, whose decision
        is 0 everywhere). A soft margin <= 0 alone is common with noisy labels and a small ``nu``."""
        warnings.warn(
            f"{type(self).__name__}: the soft margin reached is {self.margin_:.3g} <= 0: at nu={self.nu_:g} no "
            "combination of the hypotheses has a positive soft margin (the classes overlap on more than nu "
            f"examples), and the weights cancel: the decision is exactly 0 on {zero} of {m} training examples. "
            "Raise nu (a larger share of examples may fall inside the margin).",
            DegenerateModelWarning,
            stacklevel=3,
        )

    def _make_loop(self, X, y_pm, weights):
        m = X.shape[0]
        self.nu_ = resolve_nu(self.nu, m, self._training_rows(m))
        self.eta_ = entropy_eta(m, self.nu_, self.eps)
        oracle = resolve_weak_learner(self.weak_learner, self.max_depth).prepare(X, y_pm)
        return algorithms.soft_margin_loop(self._assembly(), oracle, y_pm, self.nu_, self.eps, weights)


class LPBoostClassifier(_SoftMarginBoostClassifier, booster="lpboost"):
    """LPBoost (Demiriz, Bennett, Shawe-Taylor 2002): fully corrective FW on the soft margin.

    Each round solves the restricted master LP over the hypotheses so far (000 eq. 8/13) with
    our dense bounded dual simplex (:class:`~marginboost.soft_margin.dual_simplex.DualSimplexMaster`,
    certified optimal; HiGHS is its reference and fallback), hot-started from the previous basis,
    and hands its optimal distribution to the weak learner; it stops when
    ``min edge - LP value <= eps``. Fast in practice but Omega(m) rounds in the worst case
    (Warmuth, Glocer, Raetsch 2007).
    """

    _lp_over_all_rows = True  # no fit on a cluster: dask input is refused (input_data.validate_data)

    # eps is its stopping tolerance alone (its LP has no eta): a warm start stops at the new one
    _warm_start_applies = ("eps",)

    def _assembly(self):
        return algorithms.LPBOOST

    def _warm_start_apply(self, result, changed):
        loop = result.loop
        loop.tol = loop.objective.stop_tol(float(self.eps))
        self.eta_ = entropy_eta(loop.y.shape[0], self.nu_, self.eps)
        # the gap is checked before the update, with the round's new edge: a converged fit whose
        # gap exceeds the new tolerance asks its last distribution again and goes on
        return result, (result.gap <= loop.tol if result.status == Status.CONVERGED else None)


class ERLPBoostClassifier(_SoftMarginBoostClassifier, booster="erlpboost"):
    """ERLPBoost (Warmuth, Glocer, Vishwanathan 2008): fully corrective FW on the smoothed margin.

    Each round maximises ``rho~(U w) = -f~*(-U w)`` over the hypotheses so far (000 eq. 14)
    with our active-set Newton method; O(ln(m/nu)/eps^2) rounds.
    """

    def _assembly(self):
        return algorithms.ERLPBOOST


class CERLPBoostClassifier(_SoftMarginBoostClassifier, booster="cerlpboost"):
    """C-ERLPBoost (Shalev-Shwartz and Singer 2010): FW with the short step (000 Algorithm 3)."""

    def _assembly(self):
        return algorithms.CERLPBOOST


class MLPBoostClassifier(_SoftMarginBoostClassifier, booster="mlpboost"):
    """The generic scheme of 000 (Algorithm 1); with ``secondary='lp'`` it is MLPBoost.

    Parameters
    ----------
    step : 'short_step' (default), 'classic', 'line_search', 'pairwise', or a callable rule
        The Frank-Wolfe step rule F (000 Algorithms 3 and 4); ``step`` names the step rule in
        every estimator that has one (FWBoost, AverageMarginBoost, MadaBoost).
    secondary : 'lp' (default), 'entropy', 'newton', 'none', or a callable ``fn(U, w) -> w``
        The secondary rule B (000 Algorithm 2 for 'lp', eq. 14 for 'entropy'). 'newton' is our
        fast inexact rule (one warm-started Newton step on eq. 14 per round, not in the paper;
        :class:`~marginboost.soft_margin.secondary.NewtonStepRule`): usually the fastest to ``eps``.
    Other parameters as in :class:`LPBoostClassifier`.
    """

    _parameter_constraints: dict = {
        **_SoftMarginBoostClassifier._parameter_constraints,
        "step": [StrOptions(set(FW_RULES)), callable],
        "secondary": [StrOptions(set(SECONDARY_RULES) | {"none"}), callable, None],
    }

    def __init__(self, nu=0.1, eps=0.01, weak_learner="tree", max_depth=2, max_iter=1000, max_time=None,
                 verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 warm_start=False, step="short_step", secondary="lp", categorical_features="from_dtype"):
        super().__init__(nu=nu, eps=eps, weak_learner=weak_learner, max_depth=max_depth, max_iter=max_iter,
                         max_time=max_time, verbose=verbose, callbacks=callbacks, early_stopping=early_stopping,
                         validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
                         warm_start=warm_start, categorical_features=categorical_features)
        self.step = step
        self.secondary = secondary

    def _assembly(self):
        return algorithms.mlpboost(self.step, self.secondary)


__all__ = [
    "CERLPBoostClassifier",
    "ERLPBoostClassifier",
    "HISTORY_COLUMNS",
    "LPBoostClassifier",
    "MLPBoostClassifier",
]
