"""Fits on a Dask cluster with the data and every per-example vector on the workers.

``from marginboost.dask import DaskMLPBoostClassifier``: the estimators of
:mod:`marginboost.dask.estimators` (soft margin), :mod:`marginboost.dask.mirror_estimators`
(mirror ascent) and :mod:`marginboost.dask.loss_estimators` (GBM and FWBoost), which need
``pip install 'marginboost[dask]'`` (``import marginboost`` itself does not load dask). The user
guide's page "Fitting on a cluster" says what runs where.
"""
from marginboost.dask.estimators import DaskCERLPBoostClassifier, DaskERLPBoostClassifier, DaskMLPBoostClassifier
from marginboost.dask.loss_estimators import (DaskFWBoostClassifier, DaskFWBoostRegressor, DaskGBMClassifier,
                                              DaskGBMRegressor)
from marginboost.dask.mirror_estimators import DaskAdaBoostClassifier, DaskMABoostClassifier, DaskMadaBoostClassifier

__all__ = ["DaskAdaBoostClassifier", "DaskCERLPBoostClassifier", "DaskERLPBoostClassifier", "DaskFWBoostClassifier",
           "DaskFWBoostRegressor", "DaskGBMClassifier", "DaskGBMRegressor", "DaskMABoostClassifier",
           "DaskMLPBoostClassifier", "DaskMadaBoostClassifier"]
