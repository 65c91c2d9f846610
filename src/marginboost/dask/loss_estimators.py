"""GBM and FWBoost fitted on a Dask cluster, the data and every per-example vector on the workers.

:class:`DaskGBMRegressor`, :class:`DaskGBMClassifier`, :class:`DaskFWBoostRegressor` and
:class:`DaskFWBoostClassifier` are the in-memory estimators (:mod:`marginboost.estimators.gbm`,
:mod:`marginboost.estimators.fwboost`) with ``client`` and ``max_bins``, fitted as the soft-margin
boosters of :mod:`marginboost.dask.estimators` are (the same data checks, binning, run controls,
lazy ``predict`` family, :meth:`to_local` and model files) by the loops of
:mod:`marginboost.dask.loss_loops`. What differs from memory:

* ``weak_learner``: 'hist_tree' (default) or 'hist_stump' with ``max_bins`` bins a feature: the
  least-squares histogram learners (:mod:`marginboost.weak_learners.histogram_regression`) for
  GBM and FWBoost's ``variant='R'``, the edge histogram learners
  (:mod:`marginboost.weak_learners.histogram`) for ``variant='C'``; the in-memory estimator with
  the same ``weak_learner`` name fits the same model (the sums taken per partition, added in
  partition order: equal up to rounding);
* ``loss``: 'squared' or, for the classifiers, 'logistic' (pointwise losses whose sums the
  workers take; others are refused);
* ``categorical_features=None`` (numeric columns); more than two classes: one-vs-rest, as in
  memory (:class:`~marginboost.dask.base.DaskFitMixin`);
* GBM: ``subsample=1.0`` (a subsample drawn by row index would need the rows' indices on the
  client), and a warm start continues with the same ``learning_rate`` (a new one would recompute
  every tree's training predictions);
* ``early_stopping`` needs ``eval_set=(X_val, y_val)``, dask collections (no rows are split off X).
"""
from __future__ import annotations

from marginboost.dask.base import DaskFitMixin, dask_constraints, store_parameters
from marginboost.dask.loss_loops import DistributedGBMLoop, EdgeOracleOfGradient, distributed_fwboost_loop
from marginboost.estimators.compat import StrOptions
from marginboost.estimators.fwboost import FWBoostClassifier, FWBoostRegressor
from marginboost.estimators.gbm import GBMClassifier, GBMRegressor
from marginboost.estimators.renamed import DEPRECATED, renamed_parameter
from marginboost.functional.fwboost import prepared_regression_oracle
from marginboost.functional.losses import resolve_loss
from marginboost.weak_learners.histogram import HistogramStumpOracle, HistogramTreeOracle, check_max_depth
from marginboost.weak_learners.histogram_regression import HistogramLeastSquaresOracle

__all__ = ["DaskFWBoostClassifier", "DaskFWBoostRegressor", "DaskGBMClassifier", "DaskGBMRegressor"]

# Pointwise losses whose value, gradient and curvature the workers take block by block (the
# classifiers' labels are +-1; a regressor's targets are any numbers: the squared loss alone).
DASK_CLASSIFIER_LOSSES = ("squared", "logistic")
DASK_REGRESSOR_LOSSES = ("squared",)


class _DaskLossMixin(DaskFitMixin):
    """The cluster fit of GBM and FWBoost (module docstring); mixed before the in-memory class."""

    def _store_dask_fit(self, result) -> None:
        self._store_fit(result)

    def _least_squares_oracle(self, data) -> HistogramLeastSquaresOracle:
        """The least-squares histogram learner of ``weak_learner`` over the sample on the workers."""
        stump = self.weak_learner == "hist_stump"
        depth = 1 if stump else check_max_depth(self.max_depth)
        return HistogramLeastSquaresOracle(data.sample, data.bins, depth, stump)


def _loss_constraints(local_cls, losses) -> dict:
    return {**dask_constraints(local_cls), "loss": [StrOptions(set(losses))]}


class _DaskGBMMixin(_DaskLossMixin):
    # A warm start continues with the same learning_rate: a new one applies to every tree, whose
    # training predictions would be recomputed (in memory from X, which the workers keep binned).
    _warm_start_applies = ()

    def _check_cluster_parameters(self) -> None:
        if self.subsample != 1.0:
            raise ValueError(f"{type(self).__name__}: subsample={self.subsample!r}, but a fit on a cluster takes every "
                             "row each round (subsample=1.0): a subsample is drawn by row index, which would bring "
                             "the rows' indices to the client")

    def _make_loop(self, data, y, weights):
        return DistributedGBMLoop(self._least_squares_oracle(data), data, resolve_loss(self.loss), self.learning_rate,
                                  self.leaf_update)


class _DaskFWBoostMixin(_DaskLossMixin):
    def _check_cluster_parameters(self) -> None:
        renamed_parameter(self, "tol", "eps", 0.0)  # as the in-memory fit, before its rounds

    def _make_loop(self, data, y, weights):
        if self.variant == "C":  # the edge learners see labels 1 and weights g / sum |g|
            ones = data.layout.full(1.0)
            if self.weak_learner == "hist_tree":
                edge = HistogramTreeOracle(data.sample, data.bins, ones, check_max_depth(self.max_depth))
            else:
                edge = HistogramStumpOracle(data.sample, data.bins, ones)
            lmo = EdgeOracleOfGradient(edge)
        else:
            p = data.layout.full(1.0 / data.m) if weights is None else weights / weights.sum()
            lmo = prepared_regression_oracle(self._least_squares_oracle(data), p)
        return distributed_fwboost_loop(lmo, resolve_loss(self.loss), data, self.beta, self._initial() == "constant",
                                        self.step, self.away_steps, self._eps())


class DaskGBMRegressor(_DaskGBMMixin, GBMRegressor):
    """:class:`~marginboost.GBMRegressor` fitted on a Dask cluster (module docstring); parameters as
    there, plus ``max_bins`` and ``client`` (default: the current client)."""

    _dask_regression = True
    _local_class = GBMRegressor
    _parameter_constraints = _loss_constraints(GBMRegressor, DASK_REGRESSOR_LOSSES)

    def __init__(self, loss="squared", learning_rate=0.1, max_iter=100, subsample=1.0, weak_learner="hist_tree",
                 max_depth=3, leaf_update="mean", random_state=None, max_time=None, verbose=0, callbacks=None,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=10, warm_start=False,
                 categorical_features=None, max_bins=255, client=None):
        store_parameters(self, DaskGBMRegressor, locals())


class DaskGBMClassifier(_DaskGBMMixin, GBMClassifier):
    """:class:`~marginboost.GBMClassifier` fitted on a Dask cluster (module docstring);
    parameters as there, plus ``max_bins`` and ``client`` (default: the current client)."""

    _local_class = GBMClassifier
    _parameter_constraints = _loss_constraints(GBMClassifier, DASK_CLASSIFIER_LOSSES)

    def __init__(self, loss="logistic", learning_rate=0.1, max_iter=100, subsample=1.0, weak_learner="hist_tree",
                 max_depth=3, leaf_update="newton", random_state=None, max_time=None, verbose=0, callbacks=None,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=10, warm_start=False,
                 categorical_features=None, max_bins=255, client=None):
        store_parameters(self, DaskGBMClassifier, locals())


class DaskFWBoostRegressor(_DaskFWBoostMixin, FWBoostRegressor):
    """:class:`~marginboost.FWBoostRegressor` fitted on a Dask cluster (module docstring); parameters
    as there, plus ``max_bins`` and ``client`` (default: the current client)."""

    _dask_regression = True
    _local_class = FWBoostRegressor
    _parameter_constraints = _loss_constraints(FWBoostRegressor, DASK_REGRESSOR_LOSSES)

    def __init__(self, loss="squared", beta=10.0, variant="C", step="line_search", away_steps=False,
                 weak_learner="hist_tree", max_depth=3, max_iter=100, eps=0.0, init="constant", max_time=None,
                 verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 warm_start=False, tol=DEPRECATED, categorical_features=None, max_bins=255, client=None):
        store_parameters(self, DaskFWBoostRegressor, locals())


class DaskFWBoostClassifier(_DaskFWBoostMixin, FWBoostClassifier):
    """:class:`~marginboost.FWBoostClassifier` fitted on a Dask cluster (module docstring);
    parameters as there (but ``loss`` 'logistic', the default here, or 'squared'), plus
    ``max_bins`` and ``client`` (default: the current client)."""

    _local_class = FWBoostClassifier
    _parameter_constraints = _loss_constraints(FWBoostClassifier, DASK_CLASSIFIER_LOSSES)

    def __init__(self, loss="logistic", beta=5.0, variant="C", step="line_search", away_steps=False,
                 weak_learner="hist_tree", max_depth=2, max_iter=100, eps=0.0, max_time=None, verbose=0,
                 callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10, warm_start=False,
                 tol=DEPRECATED, categorical_features=None, max_bins=255, client=None):
        store_parameters(self, DaskFWBoostClassifier, locals())
