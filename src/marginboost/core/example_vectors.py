"""What a loop may hold as a per-example vector: a numpy array, or a vector kept elsewhere.

The soft-margin loop holds the labels ``y``, the margins ``q = U w``, the distribution ``d`` and
each new column ``u`` as vectors of one entry per example. In memory they are numpy arrays; a
fit on a Dask cluster (:mod:`marginboost.dask`) holds them as :class:`ExampleVector` objects
whose blocks stay on the workers, with the arithmetic the loop uses (``+``, ``-``, ``*``, ``/``
by a scalar or a vector, ``@`` to a float, ``abs``, ``max``, ``min``, ``sum``) and no conversion
to a numpy array. :func:`as_float_vector` is where the loop would otherwise convert: it leaves
such a vector as it is; :func:`full_like` makes a constant vector of either kind.
"""
from __future__ import annotations

from abc import ABC

import numpy as np

__all__ = ["ExampleVector", "as_float_vector", "full_like"]


class ExampleVector(ABC):
    """A per-example vector not held in this process (subclasses: :class:`marginboost.dask.rows.RowVector`).

    It has ``shape == (m,)`` and the arithmetic listed in the module docstring; converting it to
    a numpy array (which would gather all m entries here) raises a ``TypeError``."""

    def full_like(self, value: float) -> "ExampleVector":
        """The vector of ``value`` everywhere, kept where this one is."""
        raise NotImplementedError


def as_float_vector(x):
    """``x`` as a float64 numpy vector, or ``x`` itself when it is an :class:`ExampleVector`."""
    return x if isinstance(x, ExampleVector) else np.asarray(x, dtype=np.float64)


def full_like(x, value: float):
    """The vector of ``value`` everywhere, of the kind and length of the per-example vector ``x``."""
    return x.full_like(value) if isinstance(x, ExampleVector) else np.full(x.shape[0], float(value))
