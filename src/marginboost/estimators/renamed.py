"""Old public names kept for one release, as scikit-learn deprecates: they work and say the new one.

One fitted concept has one name in every estimator (issue 30): the vote's coefficient vector is
``weights_`` (was ``coef_`` in FWBoost and the mirror-ascent family), its constant ``offset_``
(was GBM's ``init_``), the stopping tolerance the parameter ``eps`` (was FWBoost's ``tol``).
Reading an old attribute, or passing an old parameter, warns ``FutureWarning`` and gives the new
one; in :data:`REMOVED_IN` they go.
"""
from __future__ import annotations

import warnings

__all__ = ["DEPRECATED", "REMOVED_IN", "RenamedAttribute", "renamed_parameter"]

RENAMED_IN, REMOVED_IN = "0.2", "0.3"
DEPRECATED = "deprecated"  # the default of a renamed parameter: not passed


class RenamedAttribute:
    """A class attribute ``old = RenamedAttribute("new")``: reading ``est.old`` warns and returns
    ``est.new`` (an ``AttributeError`` before fit, as for the new name)."""

    def __init__(self, new: str):
        self.new = new
        self.old = None

    def __set_name__(self, owner, name):
        self.old = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = getattr(obj, self.new)  # unfitted: the AttributeError of the new name, no warning
        warnings.warn(f"{type(obj).__name__}.{self.old} was renamed {self.new} in marginboost {RENAMED_IN} and will "
                      f"be removed in {REMOVED_IN}: read {self.new}", FutureWarning, stacklevel=2)
        return value


def renamed_parameter(est, old: str, new: str, default):
    """The value of parameter ``new`` of ``est``, taking the renamed ``old`` where it was passed
    (with a ``FutureWarning``); ``ValueError`` if both were given different values."""
    old_value, value = getattr(est, old), getattr(est, new)
    if isinstance(old_value, str) and old_value == DEPRECATED:
        return value
    warnings.warn(f"{type(est).__name__}: the parameter {old} was renamed {new} in marginboost {RENAMED_IN} and will "
                  f"be removed in {REMOVED_IN}: pass {new}={old_value!r}", FutureWarning, stacklevel=3)
    if value != default and value != old_value:
        raise ValueError(f"{type(est).__name__}: {old}={old_value!r} and {new}={value!r} name the same parameter "
                         f"({old} is its old name); pass {new} only")
    return old_value
