"""scikit-learn estimator for GraphSepBoost (Alon, Gonen, Hazan, Moran, "Boosting simple
learners", TheoretiCS 2023); the algorithm, its aggregation rules and its O(m^2) memory are in
:mod:`marginboost.classic.graphsepboost`."""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from marginboost.classic.graphsepboost import aggregate_scores, binarise, code_tables, graphsep_loop
from marginboost.core.rounds import Status
from marginboost.estimators.base import CATEGORICAL_FEATURES_CONSTRAINT, COMMON_PARAMETER_CONSTRAINTS, BoostingEstimator
from marginboost.estimators.binary import BinaryClassifierMixin
from marginboost.estimators.compat import HasMethods, Interval, StrOptions
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.multiclass import one_vs_rest, per_class
from marginboost.io.model_codecs import Codes, Count, Reason, Text
from marginboost.io.model_file import ModelFileMixin
from marginboost.weak_learners import NAMED_WEAK_LEARNERS, resolve_weak_learner
from marginboost.weak_learners.ensemble_outputs import iter_outputs

__all__ = ["GraphSepBoostClassifier"]


class GraphSepBoostClassifier(BoostingEstimator, ModelFileMixin, BinaryClassifierMixin, ClassifierMixin,
                              BaseEstimator, booster="graphsepboost"):
    """GraphSepBoost: reweight by the degree in the graph of not-yet-separated pairs of
    opposite labels until no pair is left; predict from the code ``(b_1(x), ..., b_T(x))``.

    Parameters
    ----------
    weak_learner : 'tree' (default), 'stump', a WeakLearner, or a scikit-learn classifier
    max_depth : int >= 1, default=2
        Depth of the 'tree' weak learner.
    max_iter : int >= 1, default=1000
    aggregation : 'positive_match' (default, the paper's rule) or 'hamming' (our extension: the
        nearest training code); see :mod:`marginboost.classic.graphsepboost`.
    max_pairs : int >= 1, default=10_000_000
        The most pairs of opposite labels (``n_pos * n_neg``) the O(m^2)-byte graph may hold;
        ``fit`` raises ``ValueError`` above it.
    max_time : float > 0 or None, default=None
        Stop after this many seconds (``status_ == 'max_time'``). Ctrl-C during ``fit`` keeps
        the rounds completed (``status_ == 'interrupted'``, :mod:`marginboost.core.interrupts`).
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first.
    categorical_features : 'from_dtype', None, indices, column names or a boolean mask, default='from_dtype'
        The categorical columns, split by subsets of categories (see :class:`.LPBoostClassifier`).

    Attributes
    ----------
    classes_, hypotheses_, n_iter_, status_ ('converged' with stop_reason_ 'separated': every
    training pair of opposite labels is separated, so the training error is 0; 'no_progress': a
    round separated no pair; 'max_iter'; 'max_time'; 'interrupted'), history_ (dict of arrays,
    :data:`marginboost.classic.graphsepboost.GRAPHSEP_HISTORY_COLUMNS`: round, unseparated_pairs (pairs of opposite labels left), edge of the round's
    hypothesis, time), pos_codes_ / neg_codes_ (the distinct training codes of each class, int8; a code of both
    classes in its majority's only: :func:`marginboost.classic.graphsepboost.code_tables`).

    ``sample_weight`` is not supported (the algorithm weighs examples by degree only).

    ``save(path)`` / ``load(path)``: a model file (:mod:`marginboost.io.model_io`) keeps every
    hypothesis, the two code tables, ``n_iter_`` and ``status_``; ``history_`` is None after load.

    More than two classes: one-vs-rest (:mod:`marginboost.estimators.multiclass`); the attributes above are
    then those of ``estimators_[k]``, class k against the rest, and ``n_iter_``, ``status_``,
    ``history_`` hold one entry per class. No ``predict_proba``: the score is a difference of
    Hamming distances to the nearest training codes, not a vote.
    """

    _parameter_constraints: dict = {
        "weak_learner": [StrOptions(set(NAMED_WEAK_LEARNERS)), HasMethods(["prepare"]), HasMethods(["fit", "predict"])],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "aggregation": [StrOptions({"hamming", "positive_match"})],
        "max_pairs": [Interval(numbers.Integral, 1, None, closed="left")],
        **COMMON_PARAMETER_CONSTRAINTS,
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
    }
    _model_state = {"pos_codes_": Codes(), "neg_codes_": Codes(), "n_iter_": Count(), "status_": Text(),
                    "stop_reason_": Reason()}
    _model_unsaved = ("history_",)
    _weighted_vote = False  # codes aggregated by a nearest-code rule: early stopping is refused

    def __init__(self, weak_learner="tree", max_depth=2, max_iter=1000, aggregation="positive_match",
                 max_pairs=10_000_000, max_time=None, verbose=0, callbacks=None, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=10, warm_start=False, categorical_features="from_dtype"):
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.max_iter = max_iter
        self.aggregation = aggregation
        self.max_pairs = max_pairs
        self.max_time = max_time
        self.verbose = verbose
        self.callbacks = callbacks
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.categorical_features = categorical_features

    @one_vs_rest
    def fit(self, X, y, eval_set=None):
        """Boost on ``(X, y)``; more than two classes in ``y``: one model per class (one-vs-rest).
        ``eval_set``: accepted for the common signature; early stopping is refused (no weighted vote)."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        _, y_pm = self._binary_targets(y)
        result = self._fit_rounds(X, y_pm, None, self._binary_eval_set(eval_set))
        self._store_rounds(result)
        self.pos_codes_, self.neg_codes_ = code_tables(result.codes, y_pm)
        if result.status == Status.NO_PROGRESS:
            warnings.warn(f"{type(self).__name__} stopped by {result.status} after {result.n_iter} rounds: a round "
                          f"separated no pair, and {self._unseparated(result)} pairs of opposite labels are left "
                          "unseparated (e.g. equal points with opposite labels)", ConvergenceWarning, stacklevel=4)
        return self

    # aggregation is read at predict time; max_pairs bounds the pairs of the data (checked again)
    _warm_start_applies = ("aggregation", "max_pairs")

    def _warm_start_apply(self, result, changed):
        loop = result.loop
        if loop.n_pairs > self.max_pairs:
            raise ValueError(f"GraphSepBoost keeps a graph on the {loop.pos.shape[0]} x {loop.neg.shape[0]} = "
                             f"{loop.n_pairs} pairs of opposite labels, above max_pairs={self.max_pairs}; raise "
                             "max_pairs if the memory is available, or subsample the data")
        return result, None

    def _make_loop(self, X, y_pm, weights):
        oracle = resolve_weak_learner(self.weak_learner, self.max_depth).prepare(X, y_pm)
        return graphsep_loop(oracle, y_pm, max_pairs=self.max_pairs)

    @staticmethod
    def _unseparated(result) -> int:
        return int(result.history["unseparated_pairs"][-1])

    def _unfinished_detail(self, result) -> str:
        return f" ({self._unseparated(result)} pairs of opposite labels unseparated)"

    def _stored_vote(self) -> None:
        """No weighted vote: the scores count matching codes, finite whatever the file holds."""
        return None

    def _codes(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return np.stack([binarise(out) for out in iter_outputs(self.hypotheses_, X)], axis=1)

    @per_class
    def decision_function(self, X) -> np.ndarray:
        """The aggregation score of ``x`` (module :mod:`marginboost.classic.graphsepboost`); positive means ``classes_[1]``."""
        return aggregate_scores(self._codes(X), self.pos_codes_, self.neg_codes_, self.aggregation)

    @per_class
    def staged_decision_function(self, X):
        """Yield the scores with the first ``t`` hypotheses, ``t = 1, ..., n_iter_``."""
        codes = self._codes(X)
        for t in range(1, codes.shape[1] + 1):
            yield aggregate_scores(codes[:, :t], self.pos_codes_[:, :t], self.neg_codes_[:, :t],
                                   self.aggregation)

