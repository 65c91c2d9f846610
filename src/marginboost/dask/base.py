"""What every estimator that fits on a Dask cluster shares: the client, the data checks, early
stopping on held-out rows on the workers, :meth:`~DaskFitMixin.to_local` and the lazy predictions.

A ``Dask*`` class is :class:`DaskFitMixin` mixed before the in-memory estimator: the same
parameters (``client`` and ``max_bins`` added, ``weak_learner`` a histogram learner), the same
model and model file, the same run controls; only the data and every per-example vector are on
the workers (:mod:`marginboost.dask.rows`). Why separate classes: :mod:`marginboost.dask.estimators`.
"""
from __future__ import annotations

import numbers

import dask.array as da
import numpy as np
from distributed import default_client

from marginboost.dask._block_memory import limit as block_memory_limit
from marginboost.dask._block_memory import release as release_block_memory
from marginboost.dask.data import as_dask_matrix, data_token, pm_labels, rows_like, training_data
from marginboost.estimators.base import EarlyStopping, weighted_vote
from marginboost.estimators.compat import Interval, StrOptions, available_if
from marginboost.estimators.failed_fit import forget_fit
from marginboost.estimators.input_data import is_dask_collection
from marginboost.estimators.multiclass import fit_each_class, is_one_vs_rest
from marginboost.weak_learners.histogram import HistogramStumpOracle, HistogramTreeOracle, check_max_depth

__all__ = ["DASK_WEAK_LEARNERS", "DaskEarlyStopping", "DaskFitMixin", "dask_constraints", "store_parameters"]

DASK_WEAK_LEARNERS = ("hist_tree", "hist_stump")


def _correct_block(X, y_pm, hypotheses, weights, offset):
    """How many rows of the block the vote classifies as their label ``y_pm`` (ties, f = 0, count as -1)."""
    f = weighted_vote(hypotheses, weights, X, offset)
    return int(np.count_nonzero(np.where(f > 0, 1.0, -1.0) == y_pm))


def _neg_squared_error_block(X, y, hypotheses, weights, offset):
    """Minus the sum of the squared errors of the model ``offset + sum_j w_j h_j`` on the block."""
    f = weighted_vote(hypotheses, weights, X, offset)
    return -float(np.sum((y - f) ** 2))


# The block memory's cache a worker keeps during a fit (:mod:`marginboost.dask._block_memory`):
# 512 MiB, or a sixteenth of the worker's memory limit where that is less.
BLOCK_MEMORY_BYTES = 512 << 20
BLOCK_MEMORY_SHARE = 16


def _open_block_memory(dask_worker=None):
    """Sets the worker's cache limit for a fit (:data:`BLOCK_MEMORY_BYTES`, at most its memory
    limit / :data:`BLOCK_MEMORY_SHARE`)."""
    memory_limit = getattr(dask_worker, "memory_limit", None) or 0
    bound = BLOCK_MEMORY_BYTES if memory_limit <= 0 else min(BLOCK_MEMORY_BYTES, memory_limit // BLOCK_MEMORY_SHARE)
    block_memory_limit(bound)


def _close_block_memory(dask_worker=None):
    """Frees the worker's cached blocks (the fit is over)."""
    release_block_memory()


class DaskEarlyStopping(EarlyStopping):
    """:class:`~marginboost.estimators.base.EarlyStopping` on a held-out set kept on the workers:
    each round every block of ``X_val`` sums its rows' scores of the current model (one round trip;
    the model, O(t), goes to the blocks), the client adds the sums and divides by the rows: a
    classifier's accuracy (the rows classified as their label ``y_val`` in {-1, +1}), a
    regressor's (``regression``) negative mean squared error."""

    def __init__(self, client, X_val, y_val, patience: int, regression: bool = False):
        self.client, self.patience = client, patience
        self.block_score = _neg_squared_error_block if regression else _correct_block
        self.X_blocks = client.compute(list(X_val.to_delayed().ravel()))
        self.y_blocks = client.compute(list(y_val.to_delayed().ravel()))
        self.n = int(X_val.shape[0])
        self.best_score, self.best_round, self.scores = -np.inf, None, []

    def _value(self, hypotheses, weights, offset) -> float:
        used = np.flatnonzero(weights)
        kept = [hypotheses[j] for j in used]
        sums = self.client.gather([self.client.submit(self.block_score, xb, yb, kept, weights[used], offset,
                                                      pure=False)
                                   for xb, yb in zip(self.X_blocks, self.y_blocks)])
        return float(sum(sums) / self.n)


def _decision_block(block, model):
    return model.decision_function(block)


def _proba_block(block, model):
    return model.predict_proba(block)


def _predict_block(block, model):
    return model.predict(block)


def _is_classifier(est) -> bool:
    return not est._dask_regression


def _has_probability(est) -> bool:
    """A classifier whose decision values map to probabilities (a regressor has none)."""
    return _is_classifier(est) and est._probability_link() is not None


class DaskFitMixin:
    """The cluster fit of a booster (module docstring), mixed before its in-memory class, which
    gives the model, its parameters and the run controls. A family gives ``_make_loop(data, y,
    weights)`` (the loop on the :class:`~marginboost.dask.data.TrainingData`) and
    ``_store_dask_fit(result)`` (the fitted attributes of the loop's result); a regressor sets
    ``_dask_regression`` (real targets, no classes, no ``decision_function`` or
    ``predict_proba``); ``_check_cluster_parameters`` refuses, before the data is read, values
    the family's cluster fit does not take."""

    _dask_regression = False

    _dask_parameter_constraints = {
        "weak_learner": [StrOptions(set(DASK_WEAK_LEARNERS))],
        "max_bins": [Interval(numbers.Integral, 2, 255, closed="both")],
        "client": "no_validation",
    }

    def _client(self):
        if self.client is not None:
            if getattr(self.client, "status", "running") in ("closed", "closing"):
                raise RuntimeError(f"{type(self).__name__}: the Dask client given as client= is closed")
            return self.client
        try:
            return default_client()
        except ValueError:
            raise ValueError(f"{type(self).__name__} needs a Dask client: pass client=Client(...) or create one "
                             "first (distributed.Client), which becomes the default") from None

    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Boost on dask ``(X, y)`` with the rows on the workers; ``sample_weight`` (a dask array or
        series partitioned like X) as in memory; ``eval_set = (X_val, y_val)``, dask collections
        partitioned alike, the held-out rows of ``early_stopping`` (which on a cluster needs one:
        no rows are split off X)."""
        self._validate_params()
        if self.categorical_features is not None:
            raise ValueError(f"{type(self).__name__}: categorical_features={self.categorical_features!r}, but a fit on a "
                             "cluster takes numeric columns only (NaN for missing values): encode categories first "
                             "and leave categorical_features=None")
        self._check_cluster_parameters()
        if self.early_stopping and eval_set is None:
            raise ValueError(f"{type(self).__name__}: early_stopping on a cluster needs eval_set=(X_val, y_val), dask "
                             "collections of held-out rows (validation_fraction would split X's partitions)")
        client = self._client()
        client.run(_open_block_memory, on_error="ignore")
        try:
            with client.as_current():
                self._fit_on(client, X, y, sample_weight, eval_set)
        finally:
            if client.status == "running":
                client.run(_close_block_memory, on_error="ignore")
        return self

    def _fit_on(self, client, X, y, sample_weight, eval_set) -> None:
        """:meth:`fit` once the parameters are checked: bin the data on the workers (or reuse it on a
        warm start) and boost."""
        token = data_token(X, y, sample_weight, self.max_bins)
        known = getattr(self, "_training_data", None) if self.warm_start else None
        if known is not None and known.token == token:
            data = known  # a warm start on the same collections: binned already
        else:
            data = training_data(X, y, sample_weight, client=client, max_bins=self.max_bins, token=token,
                                 regression=self._dask_regression)
        if data.classes is not None and data.classes.shape[0] > 2:
            self._fit_one_vs_rest(data, eval_set)
        else:
            self.__dict__.pop("estimators_", None)  # the binary fit sets every other attribute anew
            self._fit_binary(data, eval_set)
        self._training_data = data if self.warm_start else None

    def _check_cluster_parameters(self) -> None:
        """Refuse parameter values the family's cluster fit does not take (none here)."""

    def _fit_binary(self, data, eval_set) -> None:
        self._dask_eval_set = self._eval_data(data, eval_set)
        if data.classes is not None:
            self.classes_ = data.classes
        self._store_dask_fit(self._fit_rounds(data, data.y, data.weights, None))
        self._store_features(data)

    def _store_features(self, data) -> None:
        self.n_features_in_ = data.n_features
        if data.feature_names is not None:
            self.feature_names_in_ = data.feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _fit_one_vs_rest(self, data, eval_set) -> None:
        """More than two classes: one binary model per class on the same binned rows, as in memory
        (:mod:`marginboost.estimators.multiclass`); ``estimators_`` are Dask estimators."""
        previous = getattr(self, "estimators_", None) if self.warm_start else None
        previous_classes = getattr(self, "classes_", None)
        forget_fit(self)

        def fit_class(model, label):
            held_out = None if eval_set is None else (eval_set[0], (eval_set[1] == label).astype(np.int64))
            model._fit_binary(data.for_class(label), held_out)

        fit_each_class(self, data.classes, fit_class, previous, previous_classes,
                       new_model=lambda est: type(est)(**est.get_params(deep=False)))  # the client as it is
        self._store_features(data)

    def _data_fingerprint(self, X, y, weights) -> str:
        return X.token

    def _eval_data(self, data, eval_set):
        if eval_set is None or not self.early_stopping:
            return None
        try:
            X_val, y_val = eval_set
        except (TypeError, ValueError):
            raise ValueError("eval_set must be a pair (X_val, y_val)") from None
        X_val, _ = as_dask_matrix(X_val, "eval_set X_val")
        if X_val.shape[1] != data.n_features:
            raise ValueError(f"eval_set: X_val has {X_val.shape[1]} features, X has {data.n_features}")
        y_val = rows_like(y_val, X_val, "eval_set y_val")
        if self._dask_regression:
            return X_val, y_val.astype(np.float64)
        unknown = np.setdiff1d(np.asarray(da.unique(y_val).compute()), data.classes)
        if unknown.size:
            raise ValueError(f"eval_set: y_val holds labels not in the training labels: {unknown.tolist()[:10]}")
        return X_val, y_val.map_blocks(pm_labels, data.classes[1], dtype=np.float64)

    def _split_validation(self, X, y, weights, eval_set):
        if self._dask_eval_set is None:
            return X, y, weights, None
        X_val, y_val = self._dask_eval_set
        return X, y, weights, DaskEarlyStopping(self._client(), X_val, y_val, self.n_iter_no_change,
                                                self._dask_regression)

    def _oracle(self, data):
        """The histogram learner ``weak_learner`` names ('hist_tree' or 'hist_stump'), over the
        binned sample on the workers, for labels ``data.y``."""
        if self.weak_learner == "hist_tree":
            return HistogramTreeOracle(data.sample, data.bins, data.y, check_max_depth(self.max_depth))
        return HistogramStumpOracle(data.sample, data.bins, data.y)

    # -- the fitted model, lazily on dask input ---------------------------------------------------

    def to_local(self):
        """The in-memory estimator (the class without ``Dask``) with the same parameters and model."""
        local_cls = self._local_class
        params = {k: v for k, v in self.get_params(deep=False).items() if k in local_cls().get_params()}
        local = local_cls(**params)
        for name, value in vars(self).items():
            if name.endswith("_") and not name.startswith("__"):
                setattr(local, name, value)
        if is_one_vs_rest(self):
            local.estimators_ = [model.to_local() for model in self.estimators_]
        return local

    def save(self, path) -> None:
        """Write the model file of :meth:`to_local` (load it with the in-memory class)."""
        self.to_local().save(path)

    def _lazy(self, X, fn, new_axis: bool, dtype):
        local = self.to_local()
        if not is_dask_collection(X):
            raise TypeError(f"{type(self).__name__}: X must be a dask array or dataframe (for numpy input use "
                            f"to_local()), got {type(X).__name__}")
        X, _ = as_dask_matrix(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} was fitted with "
                             f"{self.n_features_in_}")
        if new_axis:
            return X.map_blocks(fn, local, dtype=dtype, chunks=(X.chunks[0], (len(self.classes_),)))
        return X.map_blocks(fn, local, dtype=dtype, drop_axis=1)

    @available_if(_is_classifier)
    def decision_function(self, X):
        """``f(x) = sum_j w_j h_j(x)`` for each row of the dask ``X`` (one column per class with more
        than two): a lazy dask array."""
        return self._lazy(X, _decision_block, is_one_vs_rest(self), np.float64)

    def predict(self, X):
        """The predicted labels (a regressor: values) of the rows of the dask ``X``: a lazy dask array."""
        return self._lazy(X, _predict_block, False, np.float64 if self._dask_regression else self.classes_.dtype)

    @available_if(_has_probability)
    def predict_proba(self, X):
        """The in-memory model's class probabilities (not calibrated; for the soft-margin boosters
        ``(1 + f) / 2`` and its complement) for the rows of the dask ``X``: a lazy dask array."""
        return self._lazy(X, _proba_block, True, np.float64)


def dask_constraints(local_cls) -> dict:
    """The parameter constraints of the Dask class of ``local_cls``: its own, with ``weak_learner``
    a histogram learner, ``max_bins`` and ``client`` added."""
    return {**local_cls._parameter_constraints, **DaskFitMixin._dask_parameter_constraints}


def store_parameters(est, cls, arguments: dict) -> None:
    """``__init__`` of a Dask class ``cls`` (scikit-learn's contract: it only stores), called with
    its ``locals()``: the in-memory class's parameters stored by its ``__init__``, then ``max_bins``
    and ``client``."""
    local = {k: v for k, v in arguments.items() if k not in ("self", "__class__", "max_bins", "client")}
    super(cls, est).__init__(**local)
    est.max_bins = arguments["max_bins"]
    est.client = arguments["client"]
