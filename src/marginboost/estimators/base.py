"""What every estimator of the package shares: parameters, the fit template, the weighted vote.

Every booster is a loop driven by :func:`marginboost.core.rounds.run_rounds`; its estimator
adds the scikit-learn front end. :class:`BoostingEstimator` gives all of them, once:

* the shared parameters and their constraints: ``max_iter`` (the iteration cap), ``max_time``,
  ``verbose``, ``callbacks``, ``early_stopping`` / ``validation_fraction`` /
  ``n_iter_no_change``, ``warm_start`` (:data:`COMMON_PARAMETER_CONSTRAINTS`);
* the fit template (:meth:`BoostingEstimator._fit_rounds`): validated data in, the estimator's
  loop built (its ``_make_loop``) and run once by :func:`~marginboost.core.rounds.run_rounds`
  up to ``max_iter``, the :class:`~marginboost.core.rounds.FitResult` out, with the validation
  split, the callbacks, the progress output and a warm start arranged around it;
* one warning policy for a fit that stopped before its stopping rule held
  (:meth:`BoostingEstimator._warn_unfinished`);
* the weighted vote ``f(x) = offset + sum_j w_j h_j(x)`` (:func:`weighted_vote`), its stages
  (:func:`staged_votes`) summed in the same order (:func:`vote_sum`).

``verbose`` (0: silent; k >= 1: a line every k rounds with the round, the loop's objective
and gap (or loss), and the time elapsed, on stderr; on a terminal one line redrawn in place
with a progress bar). ``callbacks``: callables ``fn(record)`` run after every round with a
:class:`~marginboost.core.rounds.RoundRecord` (``record.round``, ``record.row``: the history
row, ``record.ensemble()``: the model so far); one returning True stops the fit (``status_ ==
'callback'``), any other value but None or False is ignored with a warning. ``early_stopping=True``: ``validation_fraction`` of the training set (or the
``eval_set`` given to ``fit``) is held out, the model scored on it after every round (accuracy
for classifiers, negative mean squared error for regressors), and the fit stops
(``status_ == 'early_stopping'``) once ``n_iter_no_change`` rounds in a row did not improve the
best score, as scikit-learn's ``HistGradientBoosting*`` and LightGBM do; the model kept is the
last one (``best_iteration_`` names the best round). ``warm_start=True``: a second ``fit`` on the
same data continues the rounds of the first, up to ``max_iter`` in all.

A continued fit uses the current parameters (scikit-learn's rule for ``warm_start``). The run
controls above and ``max_iter`` steer the rounds to come. Of the parameters that define the model,
each estimator applies those its loop can continue with (``_warm_start_applies``: a stopping
tolerance, a step size, what ``fit`` or ``predict`` derive from the finished loop); a change of any
other one since the fit it would continue is refused with a ``ValueError`` naming it (the rounds
so far were fitted with the old value: continuing would give a model of neither value). A fit that
raises leaves nothing to continue (:mod:`marginboost.estimators.failed_fit`).
"""
from __future__ import annotations

import dataclasses
import hashlib
import numbers
import warnings
from itertools import compress

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.utils.validation import check_array

from marginboost.core.interrupts import warn_interrupted
from marginboost.core.rounds import RoundLoop, Status, continue_rounds, run_rounds
from marginboost.estimators.compat import Interval, StrOptions
from marginboost.estimators.importances import feature_importances
from marginboost.estimators.input_data import validate_data
from marginboost.weak_learners import resolve_weak_learner
from marginboost.weak_learners.ensemble_outputs import iter_outputs, output_matrix

__all__ = ["COMMON_PARAMETER_CONSTRAINTS", "RUN_CONTROLS", "BoostingEstimator", "DegenerateModelWarning",
           "EarlyStopping", "regression_eval_set", "staged_votes", "vote_sum", "weighted_vote"]

COMMON_PARAMETER_CONSTRAINTS = {
    "max_time": [Interval(numbers.Real, 0, None, closed="neither"), None],
    "verbose": [Interval(numbers.Integral, 0, None, closed="left"), "boolean"],
    "callbacks": [list, tuple, callable, None],
    "early_stopping": ["boolean"],
    "validation_fraction": [Interval(numbers.Real, 0, 1, closed="neither")],
    "n_iter_no_change": [Interval(numbers.Integral, 1, None, closed="left")],
    "warm_start": ["boolean"],
}
# categorical_features (marginboost.estimators.input_data.categorical_mask), on every estimator
# whose default weak learner takes categorical features
CATEGORICAL_FEATURES_CONSTRAINT = [StrOptions({"from_dtype"}), "array-like", None]
# The parameters that steer a run, not the model: a warm start takes their current values.
RUN_CONTROLS = ("max_iter", *COMMON_PARAMETER_CONSTRAINTS)


class DegenerateModelWarning(UserWarning):
    """A fit reached its optimum, but the model it found does not classify (e.g. its weights
    cancel, and its decision is 0 on the training examples)."""


def vote_sum(outputs, weights, n: int, offset: float = 0.0) -> np.ndarray:
    """``offset + sum_j weights[j] * outputs[j]`` for arrays ``outputs[j]`` of ``n`` values: the one
    summation order of every weighted vote's decision values and of its stages (so that the last
    stage is the final model bit for bit). The terms are added one at a time, in order, from 0, and
    the offset last: added first, a large offset (a regression target's mean of 1e15) took the low
    digits of every term with it (issue 33)."""
    score = np.zeros(n)
    for w, out in zip(weights, outputs):
        score += w * out
    return score + float(offset)


def weighted_vote(hypotheses, weights: np.ndarray, X: np.ndarray, offset: float = 0.0) -> np.ndarray:
    """``offset + sum_j weights[j] h_j(X)`` over the hypotheses of nonzero weight (:func:`vote_sum`),
    one hypothesis at a time (no n x t matrix of outputs)."""
    weights = np.asarray(weights, dtype=np.float64)
    used = weights != 0.0
    return vote_sum(iter_outputs(compress(hypotheses, used), X), weights[used], X.shape[0], offset)


def staged_votes(rows: np.ndarray, path, offset: float = 0.0):
    """Yield :func:`weighted_vote`'s values for every weight vector ``w`` of ``path`` (over the first
    ``len(w)`` hypotheses), from ``rows`` = the ``(t, n)`` outputs of the hypotheses: the same terms
    summed in the same order, so that the stage of the final weights is the decision function."""
    for w in path:
        w = np.asarray(w, dtype=np.float64)
        used = np.flatnonzero(w)
        yield vote_sum(rows[used], w[used], rows.shape[1], offset)


class EarlyStopping:
    """A round callback: score the model on held-out ``(X, y)`` and stop once ``patience`` rounds
    in a row did not improve the best score (higher is better).

    ``score(y, f)`` maps the held-out labels and the model's values ``f`` to a number. Each
    hypothesis is evaluated on the held-out rows once, when it first appears.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, score, patience: int):
        self.X, self.y, self.score, self.patience = X, y, score, patience
        self._outputs = np.empty((X.shape[0], 0))
        self._hypotheses: list = []
        self.best_score, self.best_round, self.scores = -np.inf, None, []

    def __call__(self, record):
        model = record.ensemble()
        if model is None:
            raise ValueError("early_stopping needs a model that is a weighted vote of its hypotheses")
        value = self._value(*model)
        self.scores.append(value)
        if value > self.best_score:  # a NaN score never improves
            self.best_score, self.best_round = value, record.round
        elif self.best_round is None:
            self.best_round = record.round
        elif record.round - self.best_round >= self.patience:
            return Status.EARLY_STOPPING
        return None

    def _value(self, hypotheses, weights, offset) -> float:
        """The score of the model ``offset + sum_j weights[j] h_j`` on the held-out rows."""
        n = len(weights)
        known = 0  # the cached columns still belong to the same hypotheses (a rollback may cut them)
        while known < min(n, len(self._hypotheses)) and self._hypotheses[known] is hypotheses[known]:
            known += 1
        if known < n:
            new = output_matrix(list(hypotheses[known:n]), self.X)
            self._outputs = np.column_stack([self._outputs[:, :known], new])
            self._hypotheses = list(hypotheses[:n])
        f = offset + self._outputs[:, :n] @ np.asarray(weights, dtype=np.float64)
        return float(self.score(self.y, f))


def eval_pair(est, eval_set):
    """``(X_val, y_val)`` of an ``eval_set`` with ``X_val`` checked against the fitted columns."""
    try:
        X_val, y_val = eval_set
    except (TypeError, ValueError):
        raise ValueError("eval_set must be a pair (X_val, y_val)") from None
    return validate_data(est, X_val, dtype=np.float64, reset=False), y_val


def regression_eval_set(est, eval_set):
    """``(X_val, y_val)`` checked as a regressor's held-out set (``y_val`` real, finite), or None."""
    if eval_set is None:
        return None
    X_val, y_val = eval_pair(est, eval_set)
    y_val = check_array(y_val, ensure_2d=False, dtype=np.float64, input_name="eval_set y_val")
    if y_val.shape != (X_val.shape[0],):
        raise ValueError(f"eval_set: y_val must hold one target per row of X_val ({X_val.shape[0]}), "
                         f"got shape {y_val.shape}")
    return X_val, y_val


def _accuracy(y_pm: np.ndarray, f: np.ndarray) -> float:
    return float(np.mean(np.where(f > 0, 1.0, -1.0) == y_pm))


def _neg_mse(y: np.ndarray, f: np.ndarray) -> float:
    return -float(np.mean((y - f) ** 2))


def _same_parameter(a, b) -> bool:
    """Whether two values of a parameter are the same: numbers by value and kind (an int and a float
    differ: ``nu=1`` is a count, ``nu=1.0`` a fraction), estimators by their parameters, objects
    without an ``__eq__`` of their own by their fields, other objects by ``==`` (a clone of a
    dataclass learner is equal to it)."""
    if a is b:
        return True
    numeric = (numbers.Number, np.bool_)
    if isinstance(a, numeric) and isinstance(b, numeric):
        kind = (lambda v: isinstance(v, (bool, np.bool_)), lambda v: isinstance(v, numbers.Integral))
        return all(k(a) == k(b) for k in kind) and bool(a == b)
    if type(a) is not type(b):
        return False
    if isinstance(a, np.random.RandomState):  # its draws go on; only a seed can change
        return True
    if hasattr(a, "get_params") and hasattr(b, "get_params"):
        a, b = a.get_params(deep=False), b.get_params(deep=False)
    elif type(a).__eq__ is object.__eq__ and hasattr(a, "__dict__"):
        # an object without equality of its own (a weak learner): by its fields, so that the
        # copy one-vs-rest's clone makes of it is the same parameter (issue 30's pickling tests)
        a, b = vars(a), vars(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_parameter(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except Exception:  # e.g. arrays: no single truth value
        return False


def _fingerprint(*arrays) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for a in arrays:
        if a is not None:
            a = np.ascontiguousarray(a)
            digest.update(str((a.shape, a.dtype.str)).encode())
            digest.update(a.tobytes())
    return digest.hexdigest()


class BoostingEstimator:
    """The shared front end (module docstring). A subclass implements ``_make_loop(X, y,
    weights) -> RoundLoop``: prepare its weak learner on ``(X, y)`` and build its loop, which
    :meth:`_fit_rounds` runs up to round ``max_iter`` (the iteration contract of
    :mod:`marginboost.core.rounds`: ``n_iter_`` is the number of the last round, each round one
    boosting iteration, and ``history_['round']`` is ``[0,] 1, ..., n_iter_``, with a row 0
    where the loop records its starting point); ``_validation_score``: the score early stopping
    uses.
    """

    _is_classifier_score = True
    _weighted_vote = True  # False: the model is no weighted vote, and early stopping cannot score it per round
    # The model parameters a warm start applies to the rounds to come (module docstring); a change
    # of any other one is refused. ``_warm_start_apply`` hands the new values to the loop.
    _warm_start_applies: tuple[str, ...] = ()

    @property
    def feature_importances_(self) -> np.ndarray:
        """The share of the vote's weight carried by each feature's splits, shape
        ``(n_features_in_,)``: ``I_k = sum_j a_j s_k(h_j) / sum_{j : h_j splits} a_j`` with
        ``a_j = |w_j| max|h_j|`` the weight hypothesis j carries (1 for GraphSepBoost's code bits)
        and ``s_k(h)`` the share of h on feature k (1 for a stump's feature; a tree's split over
        its internal nodes in proportion to the edge, or squared error, each split gained).
        Sums to 1; all 0 where no hypothesis splits (constant stumps only); one-vs-rest: the
        mean over the class models. Computed from the fitted model, so a loaded one has it.
        Definitions and references: :mod:`marginboost.estimators.importances`."""
        return feature_importances(self)

    def _warm_start_applicable(self) -> set:
        """The parameters a warm start may change (:attr:`_warm_start_applies`, where the current
        values of the others allow it)."""
        return set(self._warm_start_applies)

    def _model_parameters(self) -> dict:
        """The parameters that define the model: all but the run controls."""
        return {k: v for k, v in self.get_params(deep=False).items() if k not in RUN_CONTROLS}

    def _warm_start_changes(self, fitted: dict) -> list:
        """The model parameters changed since ``fitted`` (those of the fit a warm start continues);
        ``ValueError`` naming every one the loop cannot continue with."""
        current = self._model_parameters()
        changed = [k for k in current if not (k in fitted and _same_parameter(fitted[k], current[k]))]
        applicable = self._warm_start_applicable()
        refused = [k for k in changed if k not in applicable]
        if refused:
            was = ", ".join(f"{k}={fitted.get(k)!r}" for k in refused)
            now = ", ".join(f"{k}={current[k]!r}" for k in refused)
            names = ", ".join(refused)
            can = (f"it continues with a new {' or '.join(sorted(applicable))} only" if applicable
                   else "it continues with the same parameters only")
            raise ValueError(
                f"{type(self).__name__}: warm_start=True continues the last fit, which was fitted with {was}; the "
                f"rounds so far depend on {names}, so they cannot be continued with {now} ({can}). Set {names} "
                f"back to {was}, or set warm_start=False to fit anew with {now}")
        return changed

    def _warm_start_apply(self, result, changed: list):
        """Hand the new values of the ``changed`` parameters (all applicable) to the loop of
        ``result`` before it continues. Returns ``(result, holds)``: the fit to continue (a new
        one where its model changed with them) and whether the loop's stopping rule holds at its
        last state under the current parameters (None: unchanged by them)."""
        return result, None

    def _weak_learner_object(self):
        """The weak learner a fit would prepare (``weak_learner`` resolved as the estimator's loop
        resolves it), or None: no ``weak_learner`` parameter, or a value that names no learner (the
        parameter check of ``fit`` reports it)."""
        spec = getattr(self, "weak_learner", None)
        if spec is None:
            return None
        try:
            return self._resolve_weak_learner(spec)
        except (TypeError, ValueError):
            return None

    def _resolve_weak_learner(self, spec):
        """The classification learner ``spec`` names (:func:`~marginboost.weak_learners.resolve_weak_learner`);
        the regressors' loops resolve regression learners instead."""
        return resolve_weak_learner(spec, getattr(self, "max_depth", 2))

    def _nan_refusal(self) -> str | None:
        """None where the estimator takes missing values (NaN) in X (its weak learner's
        ``allow_nan``); else what cannot take them, for the error that refuses them."""
        learner = self._weak_learner_object()
        if learner is not None and learner.allow_nan:
            return None
        return f"weak_learner={getattr(self, 'weak_learner', None)!r}"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._nan_refusal() is None
        return tags

    def _make_loop(self, X, y, weights) -> RoundLoop:
        """The estimator's loop on the training rows ``(X, y)`` (``y`` in the loop's coding) with
        example weights ``weights`` (mean 1, or None), ready for ``run_rounds``."""
        raise NotImplementedError

    def _validation_score(self):
        return _accuracy if self._is_classifier_score else _neg_mse

    def _split_validation(self, X, y, weights, eval_set):
        """The training part of ``(X, y, weights)`` and the early-stopping callback, or the data
        unchanged and None."""
        if not self.early_stopping:
            return X, y, weights, None
        if not self._weighted_vote:
            raise ValueError(f"early_stopping is not available for {type(self).__name__}: its model is no weighted "
                             "vote of its hypotheses, so it cannot be scored round by round")
        if eval_set is not None:
            X_val, y_val = eval_set
        else:
            stratify = y if self._is_classifier_score else None
            idx = np.arange(X.shape[0])
            try:
                train, val = train_test_split(idx, test_size=self.validation_fraction, random_state=0,
                                              stratify=stratify)
            except ValueError as exc:  # a class too small to split
                raise ValueError(f"early_stopping: validation_fraction={self.validation_fraction!r} cannot "
                                 f"split this training set ({exc}); pass eval_set or turn early_stopping off") from None
            train.sort()
            val.sort()
            X, X_val, y, y_val = X[train], X[val], y[train], y[val]
            weights = weights[train] if weights is not None else None
        return X, y, weights, EarlyStopping(X_val, y_val, self._validation_score(), self.n_iter_no_change)

    def _training_rows(self, m: int) -> str:
        """Where the ``m`` training rows of the loop come from, for an error about ``m`` (a ``nu``
        above it): '' when they are the rows given to fit, else the rows early stopping held out."""
        held_out = getattr(self, "_held_out", 0)
        if not held_out:
            return ""
        return (f" (m = {m}: the {m + held_out} rows given to fit less the {held_out} that early_stopping holds out "
                f"at validation_fraction={self.validation_fraction!r}; lower nu, or pass eval_set=(X_val, y_val) "
                "to fit to train on every row)")

    def _callback_list(self, stopper) -> list:
        given = self.callbacks
        given = [] if given is None else [given] if callable(given) else list(given)
        for cb in given:
            if not callable(cb):
                raise ValueError(f"callbacks must be callables fn(record), got {cb!r}")
        return given + ([stopper] if stopper is not None else [])

    def _fit_rounds(self, X, y, weights=None, eval_set=None):
        """Run the loop on validated ``(X, y)`` (``y`` in the loop's coding: {-1, +1} or real):
        a fresh fit, or the continuation of the last one (``warm_start``). Returns the
        :class:`~marginboost.core.rounds.FitResult`; sets ``best_iteration_`` under early stopping."""
        n_given = X.shape[0]
        X, y, weights, stopper = self._split_validation(X, y, weights, eval_set)
        self._held_out = n_given - X.shape[0]  # rows early stopping took from the training set (_training_rows)
        options = {"max_time": self.max_time, "callbacks": self._callback_list(stopper),
                   "verbose": int(self.verbose), "name": type(self).__name__}
        previous = getattr(self, "_fit_result", None) if self.warm_start else None
        fingerprint = self._data_fingerprint(X, y, weights) if self.warm_start else None
        if previous is not None and previous[1] == fingerprint:
            result, _, fitted = previous
            changed = self._warm_start_changes(fitted)
            if result.n_iter > self.max_iter:
                raise ValueError(f"max_iter={self.max_iter} must be at least the {result.n_iter} rounds "
                                 "already fitted when warm_start=True")
            holds = None
            if changed:
                result, holds = self._warm_start_apply(result, changed)
            left = self.max_iter - result.n_iter
            if holds and result.status.continuable:
                # the stopping rule holds at the last model under the current parameters: a fit
                # with them from the start would have stopped there (or before)
                result = dataclasses.replace(result, status=Status.CONVERGED)
            elif left > 0 and (result.status.continuable or (result.status == Status.CONVERGED and holds is False)):
                # (a converged fit goes on where its tolerance was tightened)
                result = continue_rounds(result, max_iter=self.max_iter, **options)
        else:
            if previous is not None:
                raise ValueError("warm_start=True continues the last fit on the same data; this X, y or "
                                 "sample_weight differs (fit a new estimator, or set warm_start=False)")
            result = run_rounds(self._make_loop(X, y, weights), max_iter=self.max_iter, **options)
        # The loop and its state (the presorted data) are kept only for a warm start, with the
        # model parameters it ran with (a continuation checks them).
        self._fit_result = (result, fingerprint, self._model_parameters()) if self.warm_start else None
        if stopper is not None:
            self.best_iteration_ = stopper.best_round
            self.validation_scores_ = np.asarray(stopper.scores)
        return result

    def _data_fingerprint(self, X, y, weights) -> str:
        """What identifies the training data, for a warm start to check it is the same (a digest
        of the arrays; a fit on a cluster names its dask collections instead)."""
        return _fingerprint(X, y, weights)

    def _store_rounds(self, result) -> None:
        """The fitted attributes every loop has, and the warning of an unfinished fit."""
        self.hypotheses_ = result.hypotheses
        self.n_iter_ = result.n_iter
        self.status_ = result.status
        self.stop_reason_ = result.reason
        self.history_ = result.history
        self._warn_unfinished(result)

    def _warn_unfinished(self, result) -> None:
        """One policy: Ctrl-C warns :class:`~marginboost.core.interrupts.FitInterruptedWarning`;
        a stop by ``max_iter`` or ``max_time`` before the loop's own stopping rule held warns
        :class:`~sklearn.exceptions.ConvergenceWarning` (where the loop has one: ``_has_stopping_rule``);
        every other status is a finished fit."""
        if result.status == Status.INTERRUPTED:
            warn_interrupted(self, result.n_iter)
        elif not result.status.finished and self._has_stopping_rule():
            warnings.warn(
                f"{type(self).__name__} stopped by {result.status} after {result.n_iter} rounds before its "
                f"stopping rule held{self._unfinished_detail(result)}; raise max_iter or max_time",
                ConvergenceWarning,
                stacklevel=4,
            )

    def _has_stopping_rule(self) -> bool:
        """Whether the loop has a stopping rule of its own (else max_iter is the plan, not a cut)."""
        return True

    def _unfinished_detail(self, result) -> str:
        """What the unfinished-fit warning adds after 'before its stopping rule held' (e.g. the gap)."""
        return ""
