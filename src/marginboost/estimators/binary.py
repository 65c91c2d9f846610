"""What every classifier of the package shares: labels to {-1, +1}, the sign rule, staging,
probabilities, and more than two classes by one-vs-rest (:mod:`marginboost.estimators.multiclass`).

Every booster here works with labels ``y in {-1, +1}`` (docs/notation.rst): with two classes
``classes_[1]`` is +1, ``decision_function(X) > 0`` predicts it and anything else (ties
included) ``classes_[0]``. With more, the K binary models of :mod:`marginboost.estimators.multiclass` vote by their
largest decision value.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from marginboost.estimators.base import eval_pair, staged_votes, weighted_vote
from marginboost.estimators.compat import available_if
from marginboost.estimators.input_data import validate_data
from marginboost.weak_learners.ensemble_outputs import iter_outputs
from marginboost.estimators.multiclass import per_class, predicted_index, probabilities, summarise
from marginboost.io.model_checks import StoredVote
from marginboost.io.model_codecs import NO_STAGES


def check_two_classes(n_classes: int, where: str) -> None:
    """A binary problem (the model itself, or one class against the rest) needs two classes."""
    if n_classes != 2:
        raise ValueError(
            f"y must contain at least two classes, got {n_classes} {'class' if n_classes == 1 else 'classes'} "
            f"({where})"
        )


def hypothesis_rows(est, X) -> np.ndarray:
    """``(t, n)`` array of ``h_j(X)`` (row j) over the fitted ``est.hypotheses_``, after the usual
    checks: what the staged methods sum, as :func:`~marginboost.estimators.base.vote_sum` orders it."""
    check_is_fitted(est)
    X = validate_data(est, X, dtype=np.float64, reset=False)
    hypotheses = list(est.hypotheses_)
    rows = np.empty((len(hypotheses), X.shape[0]))
    for j, values in enumerate(iter_outputs(hypotheses, X)):
        rows[j] = values
    return rows


def vote_probability(score: np.ndarray) -> np.ndarray:
    """``(1 + f) / 2``: the probability link of a weighted vote ``f`` in [-1, 1]."""
    return np.clip(0.5 + 0.5 * score, 0.0, 1.0)


def _has_probability(est) -> bool:
    return est._probability_link() is not None


def _has_stages(est) -> bool:
    """``staged_predict`` exists where ``staged_decision_function`` does; else an AttributeError
    says why (the class's ``_no_stages``), as the cause of scikit-learn's 'has no attribute'."""
    if not hasattr(est, "staged_decision_function"):
        raise AttributeError(f"{type(est).__name__} has no staged outputs: {est._no_stages}")
    return True


class BinaryClassifierMixin:
    """Put before :class:`sklearn.base.ClassifierMixin`; the class supplies ``fit`` decorated
    with :func:`marginboost.estimators.multiclass.one_vs_rest`, ``decision_function`` (and ``staged_decision_function``
    if it stages) decorated with :func:`marginboost.estimators.multiclass.per_class`, and ``_probability_link`` if its
    decision values map to probabilities."""

    # The dtype fit converts X to (validate_data's ``dtype``: a list keeps any of its dtypes).
    _fit_dtype = np.float64

    def _binary_targets(self, y) -> tuple[np.ndarray, np.ndarray]:
        """Set ``classes_``; return the class index (0/1) and the labels in {-1, +1} of ``y``."""
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        check_two_classes(self.classes_.shape[0], f"labels found: {self.classes_.tolist()[:10]}")
        return y_index, np.where(y_index == 1, 1.0, -1.0)

    @staticmethod
    def _two_classes_left(y_index) -> None:
        """After dropping the examples of sample_weight 0, both classes must remain."""
        check_two_classes(np.unique(y_index).shape[0], "among examples of positive sample_weight")

    def _binary_eval_set(self, eval_set):
        """``(X_val, y_val)`` with ``y_val`` as the model's {-1, +1} labels, or None."""
        if eval_set is None:
            return None
        X_val, y_val = eval_pair(self, eval_set)
        y_val = np.asarray(y_val)
        if y_val.shape != (X_val.shape[0],):
            raise ValueError(f"eval_set: y_val must hold one label per row of X_val ({X_val.shape[0]}), "
                             f"got shape {y_val.shape}")
        unknown = np.setdiff1d(y_val, self.classes_)
        if unknown.size:
            raise ValueError(f"eval_set: y_val holds labels not in the training labels: {unknown.tolist()[:10]}")
        return X_val, np.where(y_val == self.classes_[1], 1.0, -1.0)

    def _summarise_classes(self) -> None:
        """The per-class attributes of a one-vs-rest model from its K binary models; model files
        call it on a loaded one (:mod:`marginboost.io.model_io`, which imports no estimator)."""
        summarise(self)

    def _probability_link(self):
        """The binary model's map from its decision value to the probability of ``classes_[1]``
        (non-decreasing, 1/2 at 0), or None where the model defines none (no ``predict_proba``)."""
        return None

    def predict(self, X) -> np.ndarray:
        """Two classes: ``classes_[1]`` where ``decision_function > 0``, else ``classes_[0]``.
        More: the class of the largest decision value (the first on ties)."""
        index = predicted_index(self.decision_function(X))  # first: NotFittedError before fit
        return self.classes_[index]

    # Why a class without staged_decision_function has none (the error of staged_predict says it).
    _no_stages = "it keeps no model per round"

    @available_if(_has_stages)
    def staged_predict(self, X):
        """Yield the predictions after every round (those of ``staged_decision_function``)."""
        for score in self.staged_decision_function(X):
            yield self.classes_[predicted_index(score)]

    @available_if(_has_probability)
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities ``(n, n_classes)`` read off ``decision_function``: NOT calibrated.

        Two classes: ``P(classes_[1]) = link(f)`` for the decision value ``f``, where ``link``
        is ``(1 + f) / 2`` for a weighted vote ``f`` in [-1, 1] (the soft-margin, classic,
        mirror-ascent and average-margin boosters) and, for GBM and FWBoost, ``sigmoid(F)``
        (logistic loss) or ``sigmoid(2F)`` (exponential loss); other losses have none. More
        classes: ``P(k) = p_k / sum_j p_j`` with ``p_k`` the link of model k's value
        (one-vs-rest, :func:`marginboost.estimators.multiclass.probabilities`). Rows sum to 1 and their argmax is
        ``predict``'s class.

        A margin is a confidence, not a probability: a booster that maximises the margin pushes
        scores towards +-1 whatever the class overlap, and a boosted score over-fits its link.
        For calibrated probabilities wrap the estimator in
        :class:`sklearn.calibration.CalibratedClassifierCV`.
        """
        return probabilities(self.decision_function(X), self._probability_link())


class WeightedVoteMixin:
    """A classifier whose model is ``f(x) = sum_j weights_[j] h_j(x)`` in [-1, 1] (weights on the
    simplex, ``weights_path_`` the weights after every round): its decision function, staged
    decision function and probability link ``(1 + f) / 2``. Put before
    :class:`BinaryClassifierMixin`."""

    def _probability_link(self):
        return vote_probability

    def _stored_vote(self) -> StoredVote:
        """A convex vote of hypotheses in [-1, 1] (model files: :mod:`marginboost.io.model_checks`)."""
        return StoredVote(self.weights_, "state field 'weights'", convex=True, unit_hypotheses=True)

    @per_class
    def decision_function(self, X) -> np.ndarray:
        """``f(x) = sum_j w_j h_j(x)`` in [-1, 1]; positive means ``classes_[1]``."""
        check_is_fitted(self)
        return weighted_vote(self.hypotheses_, self.weights_, validate_data(self, X, dtype=np.float64, reset=False))

    @per_class
    def staged_decision_function(self, X):
        """Yield ``f_t(X)`` after every round ``t`` (one array per row of ``history_``)."""
        check_is_fitted(self)
        if self.weights_path_ is None:
            raise ValueError(NO_STAGES)
        yield from staged_votes(hypothesis_rows(self, X), self.weights_path_)
