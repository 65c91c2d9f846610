"""scikit-learn estimator for GraphSepBoost (Alon, Gonen, Hazan, Moran, "Boosting simple
learners", TheoretiCS 2023); the algorithm, its aggregation rules and its O(m^2) memory are in
:mod:`marginboost.classic.graphsepboost`."""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from marginboost.estimators.binary import BinaryClassifierMixin
from marginboost.weak_learners.ensemble_outputs import iter_outputs
from marginboost.classic.graphsepboost import aggregate_scores, binarise, graphsepboost
from marginboost.core.interrupts import warn_interrupted
from marginboost.io.model_codecs import Codes, Count, ModelFileMixin, Text
from marginboost.estimators.multiclass import one_vs_rest, per_class
from marginboost.weak_learners import NAMED_WEAK_LEARNERS, resolve_weak_learner

__all__ = ["GraphSepBoostClassifier"]


class GraphSepBoostClassifier(ModelFileMixin, BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
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

    Attributes
    ----------
    classes_, hypotheses_, n_iter_, status_ ('separated': every training pair of opposite
    labels is separated, so the training error is 0; 'no_progress': a round separated no
    pair; 'max_iter'; 'max_time'; 'interrupted'), history_ (dict of arrays,
    :data:`marginboost.classic.graphsepboost.GRAPHSEP_HISTORY_COLUMNS`: round, edges left, edge of the round's
    hypothesis, time), pos_codes_ / neg_codes_ (the distinct training codes of each class, int8).

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
        "max_time": [Interval(numbers.Real, 0, None, closed="neither"), None],
    }
    _model_state = {"pos_codes_": Codes(), "neg_codes_": Codes(), "n_iter_": Count(), "status_": Text()}
    _model_unsaved = ("history_",)

    def __init__(self, weak_learner="tree", max_depth=2, max_iter=1000, aggregation="positive_match",
                 max_pairs=10_000_000, max_time=None):
        self.weak_learner = weak_learner
        self.max_depth = max_depth
        self.max_iter = max_iter
        self.aggregation = aggregation
        self.max_pairs = max_pairs
        self.max_time = max_time

    @one_vs_rest
    def fit(self, X, y):
        """Boost on ``(X, y)``; more than two classes in ``y``: one model per class (one-vs-rest)."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        _, y_pm = self._binary_targets(y)
        oracle = resolve_weak_learner(self.weak_learner, self.max_depth).prepare(X, y_pm)
        result = graphsepboost(oracle, y_pm, max_iter=self.max_iter, max_pairs=self.max_pairs,
                               max_time=self.max_time)
        self.hypotheses_ = result.hypotheses
        self.n_iter_ = result.n_iter
        self.status_ = result.status
        self.history_ = result.history
        self.pos_codes_ = np.unique(result.codes[y_pm > 0], axis=0)
        self.neg_codes_ = np.unique(result.codes[y_pm < 0], axis=0)
        if result.status == "interrupted":
            warn_interrupted(self, result.n_iter)
        elif result.status != "separated":
            warnings.warn(f"GraphSepBoost stopped ({result.status}) after {result.n_iter} rounds with "
                          f"{result.history['edges'][-1]} pairs of opposite labels unseparated",
                          ConvergenceWarning, stacklevel=2)
        return self

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

