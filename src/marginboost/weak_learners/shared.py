"""Label-free preparation of X, computed once for several fits on the same X.

Presorting the features (:func:`.stumps.presort`, used by the exact stumps and trees, the
least-squares learners and the stump NZDD) and binning them (:func:`.binning.bin_features`, used
by the histogram learners) depend on ``X`` alone, and they are the expensive part of preparing a
weak learner. One-vs-rest multiclass (:mod:`marginboost.estimators.multiclass`) fits K binary problems on
one ``X``; inside ``with share_features(X):`` the first such computation on that array is kept
and handed to every later request for it, so each is done once for the K fits. Requests on any
other array (a subset of the rows, a copy) compute as usual, so the results never change, only
the work. Learners with nothing label-free to prepare (a scikit-learn estimator, naive Bayes)
are unaffected.

The scope is a :class:`contextvars.ContextVar` (as :mod:`marginboost.core.interrupts`' policy): fits
in other threads do not see it, and it ends with the ``with`` block, which frees what it kept.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

__all__ = ["share_features", "shared"]


class _Scope:
    def __init__(self, X: np.ndarray):
        self.X = X  # also keeps X's memory alive, so that no other array can take its address
        self.results: dict = {}

    def holds(self, X) -> bool:
        """``X`` is the scope's array or a view of the same memory with the same layout, hence the
        same values (nothing writes to X during a fit)."""
        if X is self.X:
            return True
        if not isinstance(X, np.ndarray):
            return False
        a, b = X.__array_interface__, self.X.__array_interface__
        return a["data"][0] == b["data"][0] and X.shape == self.X.shape and X.strides == self.X.strides \
            and X.dtype == self.X.dtype


_scope: ContextVar[_Scope | None] = ContextVar("marginboost_shared_features", default=None)


@contextmanager
def share_features(X: np.ndarray):
    """Within the block, label-free preparations of ``X`` (presorting, binning) are computed once."""
    token = _scope.set(_Scope(X))
    try:
        yield
    finally:
        _scope.reset(token)


def shared(X, key, compute):
    """``compute()``, the label-free preparation of ``X`` named ``key`` (with its parameters); kept
    and reused for the array of the enclosing :func:`share_features`, computed afresh otherwise."""
    scope = _scope.get()
    if scope is None or not scope.holds(X):
        return compute()
    if key not in scope.results:
        scope.results[key] = compute()
    return scope.results[key]
