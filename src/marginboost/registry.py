"""The package's public estimators: the one table that model files, the command line and the
API reference read.

An estimator class of the package registers itself in its class statement, with the name of
its booster::

    class LPBoostClassifier(_SoftMarginBoostClassifier, booster="lpboost"):

(the keyword goes to :meth:`marginboost.io.model_file.ModelFileMixin.__init_subclass__`, so a
registered class can be saved and loaded). Nothing else is kept by hand:

* model files name an estimator by its class name, its name in ``marginboost``
  (:data:`ESTIMATORS`, read by :mod:`marginboost.io.model_io`);
* ``marginboost fit --booster NAME`` fits the classifiers by booster name (:func:`classifiers`)
  and points a regression task to the booster's regressor (:func:`regressors`);
* the API reference (``docs/api/estimators.rst``) documents every registered class.

A classifier and a regressor of one algorithm share its booster name (FWBoost, GBM). A class
without ``booster=`` is not registered: a private base, or a user's subclass, whose model file
could not promise to load as the same class.
"""
from __future__ import annotations

import re

from sklearn.base import ClassifierMixin, RegressorMixin

__all__ = ["ESTIMATORS", "booster_name", "classifiers", "register", "regressors"]

#: class name (as model files and ``marginboost`` name it) -> class, in the order of registration
ESTIMATORS: dict[str, type] = {}
# Booster names are words of the command line: lower-case letters, digits, underscores.
_BOOSTER_NAME = re.compile(r"[a-z][a-z0-9_]*")


def register(cls: type, booster: str) -> None:
    """Record ``cls`` under its class name, with its ``booster`` name; ValueError for a name
    that is not a lower-case word, or that another registered class already has (of the same
    kind: classifier or regressor)."""
    if not isinstance(booster, str) or not _BOOSTER_NAME.fullmatch(booster):
        raise ValueError(f"{cls.__name__}: booster must be a lower-case word (letters, digits, _), got {booster!r}")
    name = cls.__name__
    if name in ESTIMATORS:
        raise ValueError(f"an estimator named {name} is registered already ({ESTIMATORS[name].__module__})")
    same_kind = classifiers() if issubclass(cls, ClassifierMixin) else regressors()
    if booster in same_kind:
        raise ValueError(f"{name}: booster name {booster!r} is taken by {same_kind[booster].__name__}")
    cls._booster_name = booster
    ESTIMATORS[name] = cls


def booster_name(cls: type) -> str:
    """The booster name a registered class was registered with."""
    return cls._booster_name


def classifiers() -> dict[str, type]:
    """The registered classifiers by booster name, in the order of registration."""
    return {booster_name(cls): cls for cls in ESTIMATORS.values() if issubclass(cls, ClassifierMixin)}


def regressors() -> dict[str, type]:
    """The registered regressors by booster name, in the order of registration."""
    return {booster_name(cls): cls for cls in ESTIMATORS.values() if issubclass(cls, RegressorMixin)}
