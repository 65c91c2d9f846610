"""AdaBoost, MABoost and MadaBoost fitted on a Dask cluster (paper 002, Naghibi and Pfister 2014).

Each class is the in-memory estimator of :mod:`marginboost.estimators.maboost` fitted by
:class:`~marginboost.dask.mirror.DistributedMirrorAscentLoop`: the distribution, the mirror image
and the margins stay on the workers, two round trips a round besides the weak learner's
(:mod:`marginboost.dask.mirror`). The parameters are the in-memory class's, but: ``weak_learner``
'hist_tree' (default) or 'hist_stump' with ``max_bins`` bins a feature; ``client`` (default: the
current client); MABoost with the entropy regulariser and the variants 'normal', 'maxmargin' and
'smooth' (their sets are the simplex and the capped simplex; 'combined' needs a secondary set
of length m, 'sparse' and the l2 regulariser sort all m weights); ``fit(X, y, sample_weight=None,
eval_set=None)`` on dask collections. After the fit ``distribution_`` is None (its m entries were
on the workers) and ``margin_`` is the smallest normalised training margin, as in memory.
"""
from __future__ import annotations

import numpy as np

from marginboost.dask.base import DaskFitMixin, dask_constraints, store_parameters
from marginboost.dask.mirror import (DASK_VARIANTS, DistributedMirrorAscentLoop, dask_adaboost, dask_madaboost,
                                     dask_maboost)
from marginboost.estimators.compat import StrOptions
from marginboost.estimators.maboost import AdaBoostClassifier, MABoostClassifier, MadaBoostClassifier

__all__ = ["DaskAdaBoostClassifier", "DaskMABoostClassifier", "DaskMadaBoostClassifier"]


def _majority_block(y, margins, s):
    """``(sum s [wrong], sum s, sum s [y > 0], sum s [y < 0])`` of a block (``s`` None: ones)."""
    s = np.ones_like(y) if s is None else s
    wrong = np.where(y > 0, margins <= 0.0, margins < 0.0)  # decision 0 predicts classes_[0]
    return float(s @ wrong), float(s.sum()), float(s[y > 0].sum()), float(s[y < 0].sum())


class _DaskMirrorMixin(DaskFitMixin):
    """The cluster fit of a mirror-ascent booster (module docstring)."""

    def _make_loop(self, data, y_pm, weights):
        return DistributedMirrorAscentLoop(self._oracle(data), y_pm, self._dask_parts(data.layout, weights),
                                           data.layout)

    def _store_dask_fit(self, result) -> None:
        self._store_rounds(result)
        self.weights_ = result.weights
        self.distribution_ = None  # its m entries were on the workers
        self.margin_ = float(result.min_margin)
        if self.learning_rate > 1.0:
            self._warn_if_worse_than_majority(result)

    @staticmethod
    def _training_error_and_minority(result) -> tuple[float, float]:
        loop = result.loop
        parts = loop.layout.reduce(_majority_block, loop.y, result.margins, loop.parts.base)
        wrong, total, positive, negative = (sum(p[i] for p in parts) for i in range(4))
        return wrong / total, min(positive, negative) / total


class DaskAdaBoostClassifier(_DaskMirrorMixin, AdaBoostClassifier):
    """:class:`~marginboost.AdaBoostClassifier` fitted on a Dask cluster (module docstring);
    parameters as there, plus ``max_bins`` and ``client``."""

    _local_class = AdaBoostClassifier
    _parameter_constraints = dask_constraints(AdaBoostClassifier)

    def __init__(self, learning_rate=1.0, weak_learner="hist_tree", max_depth=2, max_iter=100, max_time=None,
                 verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 warm_start=False, categorical_features=None, max_bins=255, client=None):
        store_parameters(self, DaskAdaBoostClassifier, locals())

    def _dask_parts(self, layout, weights):
        return dask_adaboost(layout, float(self.learning_rate), weights)


class DaskMABoostClassifier(_DaskMirrorMixin, MABoostClassifier):
    """:class:`~marginboost.MABoostClassifier` fitted on a Dask cluster (module docstring):
    ``regularizer='entropy'``, ``update`` 'active' or 'lazy', ``variant`` 'normal', 'maxmargin' or
    'smooth'; the other parameters as there, plus ``max_bins`` and ``client``."""

    _local_class = MABoostClassifier
    _parameter_constraints = {**dask_constraints(MABoostClassifier),
                              "regularizer": [StrOptions({"entropy"})],
                              "variant": [StrOptions(set(DASK_VARIANTS))]}

    def __init__(self, regularizer="entropy", update="active", variant="normal", smoothness=0.1, sparsity=0.5,
                 learning_rate=1.0, weak_learner="hist_tree", max_depth=2, max_iter=100, max_time=None, verbose=0,
                 callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 warm_start=False, categorical_features=None, max_bins=255, client=None):
        store_parameters(self, DaskMABoostClassifier, locals())

    def _dask_parts(self, layout, weights):
        return dask_maboost(layout, self.update, self.variant, float(self.smoothness), float(self.learning_rate),
                            weights)


class DaskMadaBoostClassifier(_DaskMirrorMixin, MadaBoostClassifier):
    """:class:`~marginboost.MadaBoostClassifier` fitted on a Dask cluster (module docstring);
    parameters as there, plus ``max_bins`` and ``client``."""

    _local_class = MadaBoostClassifier
    _parameter_constraints = dask_constraints(MadaBoostClassifier)

    def __init__(self, step="paper", learning_rate=1.0, weak_learner="hist_tree", max_depth=2, max_iter=100,
                 max_time=None, verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, warm_start=False, categorical_features=None, max_bins=255, client=None):
        store_parameters(self, DaskMadaBoostClassifier, locals())

    def _dask_parts(self, layout, weights):
        return dask_madaboost(layout, self.step, float(self.learning_rate), weights)
