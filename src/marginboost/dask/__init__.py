"""Fits on a Dask cluster with the data and every per-example vector on the workers.

``from marginboost.dask import DaskMLPBoostClassifier``: the estimators of
:mod:`marginboost.dask.estimators` (soft margin) and
:mod:`marginboost.dask.mirror_estimators` (mirror ascent), which need ``pip install 'marginboost[dask]'``
(``import marginboost`` itself does not load dask). The user guide's page "Fitting on a
cluster" says what runs where.
"""
from marginboost.dask.estimators import DaskCERLPBoostClassifier, DaskERLPBoostClassifier, DaskMLPBoostClassifier
from marginboost.dask.mirror_estimators import DaskAdaBoostClassifier, DaskMABoostClassifier, DaskMadaBoostClassifier

__all__ = ["DaskAdaBoostClassifier", "DaskCERLPBoostClassifier", "DaskERLPBoostClassifier", "DaskMABoostClassifier",
           "DaskMLPBoostClassifier", "DaskMadaBoostClassifier"]
