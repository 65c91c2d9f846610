"""More than two classes for every classifier of the package: one-vs-rest.

Every booster here separates two classes (labels in {-1, +1}, docs/notation.rst). Given K > 2 classes,
a classifier fits K binary models with its own parameters, model k separating ``classes_[k]``
(its label 1) from all the other classes (label 0), and predicts the class of the largest
decision value, the first such class on ties. With two classes nothing changes: the model is
the binary one, with the same fitted attributes.

* ``fit`` (decorated with :func:`one_vs_rest`) validates ``X`` and ``y`` once and runs the
  binary ``fit`` K times on the same array inside :func:`.weak_learners.shared.share_features`,
  so the weak learner's presorting or binning of ``X``, which does not depend on the labels, is
  done once for all K (a learner with nothing label-free to prepare, such as a scikit-learn
  estimator, prepares per class). Each class's fit drops the examples of ``sample_weight`` 0
  itself, from its own copy of ``X``: with such weights the presorting is per class. Every
  class must have an example of positive weight.
* ``decision_function`` (decorated with :func:`per_class`) returns shape ``(n, K)``, column k
  the decision value of model k; ``staged_decision_function`` yields ``(n, K)`` per round, for
  as many rounds as the longest-running class (a class that stopped earlier, or made no update
  at all, keeps its final value; nothing if no class made one).
* ``predict_proba``, where the binary model has one: ``P(k | x) = p_k / sum_j p_j`` with
  ``p_k`` model k's probability of its label 1 (uniform where every ``p_k`` is 0), as
  scikit-learn's ``OneVsRestClassifier`` normalises; see :func:`probabilities`.

Fitted attributes with K > 2 classes: ``classes_`` (K labels), ``n_features_in_`` (and
``feature_names_in_``), ``estimators_`` (the K fitted binary estimators, of the same class and
parameters, ``estimators_[k].classes_ == [0, 1]`` with 1 meaning ``classes_[k]``: the binary
attributes, ``hypotheses_``, ``weights_``, ``margin_``, ..., are theirs), ``n_iter_`` (ndarray of
the K round counts), ``status_`` and ``history_`` (lists, one entry per class). A model file
(:mod:`marginboost.io.model_io`) keeps the K binary models.

``max_time`` bounds the whole fit: class k may use an equal share of the time left,
``(max_time - elapsed) / (K - k)``. Ctrl-C under the policy 'keep' (:mod:`marginboost.core.interrupts`) keeps
a model only if it lands in the last class's fit; earlier, the classes not fitted yet would
have no model, so the interrupt propagates. The warnings of the K fits are issued again with
the class they concern. With ``warm_start=True`` a second fit on the same data and classes
continues each class's model.
"""
from __future__ import annotations

import functools
import inspect
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d

from marginboost.estimators.failed_fit import forget_fit, unfitted_on_failure
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.sample_weights import relative_sample_weight
from marginboost.weak_learners.shared import share_features

__all__ = ["fit_each_class", "is_one_vs_rest", "one_vs_rest", "per_class", "predicted_index", "probabilities",
           "summarise"]


def is_one_vs_rest(estimator) -> bool:
    """The estimator was fitted (or loaded) with more than two classes."""
    return hasattr(estimator, "estimators_")


def one_vs_rest(fit=None, *, labels: tuple = ()):
    """Decorate a binary classifier's ``fit(self, X, y, ...)``: with more than two classes it
    fits one binary model per class (module docstring); otherwise it is the binary ``fit``.

    ``labels``: names of further arguments that hold labels of more examples (MABoost's
    ``y_secondary``); their classes count, and they are recoded per class as ``y`` is.
    """
    if fit is None:
        return functools.partial(one_vs_rest, labels=labels)
    signature = inspect.signature(fit)

    @functools.wraps(fit)
    @unfitted_on_failure
    def fit_classes(self, *args, **kwargs):
        arguments = signature.bind(self, *args, **kwargs).arguments
        del arguments["self"]
        if not _multiclass(arguments.get("y"), [arguments.get(name) for name in labels]):
            self.__dict__.pop("estimators_", None)  # the binary fit sets every other attribute anew
            return fit(self, *args, **kwargs)
        return _fit_one_vs_rest(self, fit, arguments, labels)

    return fit_classes


def _multiclass(y, extra) -> bool:
    """Whether ``y`` (with the label vectors ``extra``) holds more than two classes. Malformed
    labels are left to the binary fit, which reports them as it always has."""
    extra = [v for v in extra if v is not None]
    try:
        target = np.concatenate([column_or_1d(v) for v in (y, *extra)]) if extra else y
        with np.errstate(invalid="ignore"):  # casting NaN or inf labels warns before it raises
            return type_of_target(target, input_name="y") == "multiclass"
    except (TypeError, ValueError):
        return False


def _fit_one_vs_rest(est, fit, arguments: dict, labels: tuple):
    est._validate_params()
    # warm_start: each class's model continues its own rounds (same classes, same data)
    previous = getattr(est, "estimators_", None) if getattr(est, "warm_start", False) else None
    previous_classes = getattr(est, "classes_", None)
    forget_fit(est)  # attributes of an earlier fit (binary or not) must not outlive this one
    X, y = validate_data(est, arguments.pop("X"), arguments.pop("y"), dtype=est._fit_dtype, y_numeric=False)
    check_classification_targets(y)
    extra = {name: column_or_1d(arguments[name]) for name in labels if arguments.get(name) is not None}
    classes = np.unique(np.concatenate([y, *extra.values()]) if extra else y)
    if arguments.get("sample_weight") is not None and not extra:
        _, positive = relative_sample_weight(arguments["sample_weight"], X)
        empty = [c for c in classes.tolist() if not positive[y == c].any()]
        if empty:
            raise ValueError(f"every class needs an example of positive sample_weight; none has class(es) "
                             f"{empty[:10]}")

    def fit_class(model, label):
        recoded = {name: (v == label).astype(np.int64) for name, v in extra.items()}
        if arguments.get("eval_set") is not None:  # the held-out labels, recoded as y is
            X_val, y_val = arguments["eval_set"]
            recoded["eval_set"] = (X_val, (np.asarray(y_val) == label).astype(np.int64))
        fit(model, X, (y == label).astype(np.int64), **{**arguments, **recoded})

    with share_features(X):
        fit_each_class(est, classes, fit_class, previous, previous_classes)
    return est


def fit_each_class(est, classes: np.ndarray, fit_class, previous=None, previous_classes=None,
                   new_model=clone) -> None:
    """The one-vs-rest loop (module docstring): for each label of ``classes`` a binary model,
    ``previous[k]`` with ``est``'s parameters where a warm start continues the same classes, else
    ``new_model(est)``, fitted by ``fit_class(model, label)`` within its share of ``max_time``;
    the fits' warnings issued again with their class; a Ctrl-C before the last class propagates.
    Sets ``classes_``, ``estimators_`` and the per-class attributes (:func:`summarise`)."""
    budget = getattr(est, "max_time", None)
    start = time.perf_counter()
    models = []
    for k, label in enumerate(classes.tolist()):  # plain labels: repr in the warnings
        if previous is not None and np.array_equal(previous_classes, classes):
            model = previous[k].set_params(**est.get_params(deep=False))
        else:
            model = new_model(est)
        if budget is not None:
            share = (budget - (time.perf_counter() - start)) / (len(classes) - k)
            # > 0 (a parameter constraint): a class started after the deadline stops after one round.
            model.max_time = max(share, np.finfo(float).tiny)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit_class(model, label)
        if model.status_ == "interrupted" and k < len(classes) - 1:
            raise KeyboardInterrupt  # the loop kept this class's rounds; later classes have none
        for w in caught:
            warnings.warn(f"class {label!r} vs rest: {w.message}", w.category, stacklevel=4)
        model.max_time = budget  # every model keeps the estimator's parameters
        models.append(model)
    est.classes_ = classes
    est.estimators_ = models
    summarise(est)


def summarise(est) -> None:
    """The per-class attributes of a one-vs-rest model, from its binary models (after fit and load)."""
    est.n_iter_ = np.array([model.n_iter_ for model in est.estimators_], dtype=np.int64)
    est.status_ = [model.status_ for model in est.estimators_]
    est.stop_reason_ = [getattr(model, "stop_reason_", None) for model in est.estimators_]
    est.history_ = [model.history_ for model in est.estimators_]


def per_class(method):
    """Decorate a binary model's ``decision_function(self, X)`` (or its staged generator): on a
    one-vs-rest model, the ``(n, K)`` values of the K binary models (module docstring)."""
    if inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def staged(self, X):
            if not is_one_vs_rest(self):
                yield from method(self, X)
                return
            X = _validated(self, X)
            stages = [method(model, X) for model in self.estimators_]
            last = [next(s, None) for s in stages]
            if all(v is None for v in last):  # no model has a stage (e.g. FWBoost converged at its start)
                return
            # A model with no stage (no update: its model is its start) keeps its final value throughout.
            last = [model.decision_function(X) if v is None else v for model, v in zip(self.estimators_, last)]
            while True:
                yield np.column_stack(last)
                values = [next(s, None) for s in stages]
                if all(v is None for v in values):
                    return
                last = [old if new is None else new for old, new in zip(last, values)]

        return staged

    @functools.wraps(method)
    def decision(self, X):
        if not is_one_vs_rest(self):
            return method(self, X)
        X = _validated(self, X)
        return np.column_stack([method(model, X) for model in self.estimators_])

    return decision


def _validated(est, X) -> np.ndarray:
    check_is_fitted(est)
    return validate_data(est, X, dtype=np.float64, reset=False)


def predicted_index(scores: np.ndarray) -> np.ndarray:
    """Index into ``classes_`` of the prediction: ``scores > 0`` for a binary model's ``(n,)``
    values, the first largest of the ``(n, K)`` one-vs-rest values."""
    return np.argmax(scores, axis=1) if scores.ndim == 2 else (scores > 0).astype(np.int64)


def probabilities(scores: np.ndarray, link) -> np.ndarray:
    """``(n, n_classes)`` probabilities from decision values, ``link`` a binary model's map from
    its value to the probability of its positive class (non-decreasing, 1/2 at 0).

    Binary: ``[1 - link(f), link(f)]``. One-vs-rest: ``link`` of each column, normalised to sum
    1 (uniform where all are 0). Where the rounding of the link ties predict's class with an
    earlier one (two values closer than the link's resolution), that class gets one more unit in
    the last place, so that the argmax is always predict's class.
    """
    p = np.asarray(link(scores), dtype=np.float64)
    if scores.ndim == 1:
        proba = np.column_stack([1.0 - p, p])
    else:
        total = p.sum(axis=1, keepdims=True)
        proba = np.divide(p, total, out=np.full_like(p, 1.0 / p.shape[1]), where=total > 0)
    index = predicted_index(scores)
    tied = np.flatnonzero(proba.argmax(axis=1) != index)
    proba[tied, index[tied]] = np.nextafter(proba[tied].max(axis=1), np.inf)
    return proba
