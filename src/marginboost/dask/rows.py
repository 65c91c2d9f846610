"""Per-example vectors on the Dask workers, one numpy block per row partition of X.

A fit on a cluster keeps every vector of one entry per example (labels, sample weights, margins
``q``, the distribution ``d``, the columns of the margin matrix, the training predictions) where
X's rows are: a :class:`RowVector` is a list of ``distributed`` futures, block ``k`` holding the
rows ``bounds[k]:bounds[k+1]``, all vectors of a fit cut at the same ``bounds`` (a
:class:`RowLayout`). The client holds the futures and O(number of partitions) numbers.

* Arithmetic (``+ - *`` with a scalar or another vector of the layout, unary ``-``, ``abs``)
  submits one task per block and returns at once: the blocks are computed on the workers,
  never sent here.
* Reductions (``@``, ``max``, ``min``, ``sum``, :meth:`RowLayout.reduce`) wait for one scalar
  (or small array) per block and add them here in partition order, each block's own sum in
  example order: the same bits on every run, whatever the workers' timing.
* ``numpy.asarray(vector)`` raises ``TypeError``: a conversion would gather all m entries to
  the client, which a fit on a cluster must never do; the loops take vectors through
  :func:`marginboost.core.example_vectors.as_float_vector`, which leaves a :class:`RowVector` as it is.

Every task runs with :class:`marginboost.dask._block_memory.pooled`: the blocks it makes come
from, and go back to, a bounded cache of the worker's freed blocks (fresh pages cost more than the
arithmetic that fills them).

Vectors are immutable (each operation makes new blocks), as the round driver needs: a state
committed once is never changed (:mod:`marginboost.core.rounds`).
"""
from __future__ import annotations

import operator
import uuid
from typing import Callable

import numpy as np
from dask.utils import funcname

from marginboost.core.example_vectors import ExampleVector
from marginboost.dask._block_memory import pooled

__all__ = ["DeferredRowVector", "PerBlock", "RowLayout", "RowVector", "submit_pooled"]


class _Pooled:
    """``fn`` run with :class:`~marginboost.dask._block_memory.pooled` (picklable: sent with the task)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        with pooled():
            return self.fn(*args, **kwargs)


def submit_pooled(client, fn: Callable, *args, **kwargs):
    """``client.submit(fn, *args, pure=False, **kwargs)`` run in the block memory (module docstring),
    keyed by ``fn``'s name as Dask keys it (the dashboard and task streams name the task so)."""
    return client.submit(_Pooled(fn), *args, key=f"{funcname(fn)}-{uuid.uuid4().hex}", pure=False, **kwargs)


class RowLayout:
    """The row partitions of a fit: the ``client`` that runs its tasks and the block bounds
    (``bounds[k]:bounds[k+1]`` are the rows of block k, ``bounds[-1] == m``)."""

    def __init__(self, client, bounds):
        self.client = client
        self.bounds = np.asarray(bounds, dtype=np.int64)

    @property
    def m(self) -> int:
        """The number of rows."""
        return int(self.bounds[-1])

    @property
    def n_parts(self) -> int:
        """The number of row partitions (blocks)."""
        return int(self.bounds.shape[0] - 1)

    def submit(self, fn: Callable, *args, **kwargs) -> list:
        """One task ``fn(*args_k, **kwargs)`` per block: a :class:`RowVector` argument is replaced
        by its block k, a list or tuple of them by the list of their blocks k, a :class:`PerBlock`
        by its item k, anything else is
        passed to every task as it is. Returns the tasks' futures, at once."""
        for a in args:
            if isinstance(a, RowVector) and a.layout is not self:
                raise ValueError("the vectors of one operation must share their row partitions")
        return [submit_pooled(self.client, fn, *[_block(a, k) for a in args], **kwargs) for k in range(self.n_parts)]

    def reduce(self, fn: Callable, *args, **kwargs) -> list:
        """:meth:`submit`, then wait for the results (small: scalars or O(t) arrays), in block order."""
        return self.client.gather(self.submit(fn, *args, **kwargs))

    def vector(self, fn: Callable, *args, **kwargs) -> "RowVector":
        """The vector whose block k is ``fn(*args_k, **kwargs)`` (:meth:`submit`)."""
        return RowVector(self, self.submit(fn, *args, **kwargs))

    def full(self, value: float) -> "RowVector":
        """The vector of ``value`` everywhere."""
        return RowVector(self, [submit_pooled(self.client, np.full, int(b - a), float(value))
                                for a, b in zip(self.bounds[:-1], self.bounds[1:])])


class PerBlock(list):
    """An argument of :meth:`RowLayout.submit` whose item k goes to the task of block k."""


def _block(arg, k: int):
    if isinstance(arg, PerBlock):
        return arg[k]
    if isinstance(arg, RowVector):
        return arg.parts[k]
    if isinstance(arg, (list, tuple)) and arg and all(isinstance(a, RowVector) for a in arg):
        return [a.parts[k] for a in arg]
    return arg


def _sum(values) -> float:
    total = 0.0
    for v in values:
        total += float(v)
    return total


class RowVector(ExampleVector):
    """A float vector of one entry per row, its blocks on the workers (module docstring)."""

    __array_ufunc__ = None  # numpy scalars and arrays defer to our operators (numpy * vector works)

    def __init__(self, layout: RowLayout, parts: list):
        self.layout, self.parts = layout, parts

    @property
    def shape(self) -> tuple[int]:
        """``(m,)``."""
        return (self.layout.m,)

    def __len__(self) -> int:
        return self.layout.m

    def __array__(self, *args, **kwargs):
        raise TypeError(f"a RowVector of {self.layout.m} entries lives on the Dask workers; converting it to a numpy "
                        "array would gather it to the client (compute() it explicitly if that is meant)")

    def compute(self) -> np.ndarray:
        """All entries gathered to this process: for tests and small data only."""
        parts = self.layout.client.gather(self.parts)
        return np.concatenate(parts) if parts else np.empty(0)

    def copy(self) -> "RowVector":
        """Itself: vectors are immutable."""
        return self

    def map(self, fn: Callable, *args, **kwargs) -> "RowVector":
        """The vector of ``fn(block, *args_k, **kwargs)`` (arguments as :meth:`RowLayout.submit`)."""
        return self.layout.vector(fn, self, *args, **kwargs)

    def _binary(self, op, other, reflected=False):
        if isinstance(other, RowVector) or np.ndim(other) == 0:
            other = other if isinstance(other, RowVector) else float(other)
            return self.layout.vector(op, other, self) if reflected else self.layout.vector(op, self, other)
        return NotImplemented

    def __add__(self, other):
        return self._binary(operator.add, other)

    def __radd__(self, other):
        return self._binary(operator.add, other, reflected=True)

    def __sub__(self, other):
        return self._binary(operator.sub, other)

    def __rsub__(self, other):
        return self._binary(operator.sub, other, reflected=True)

    def __mul__(self, other):
        return self._binary(operator.mul, other)

    def __rmul__(self, other):
        return self._binary(operator.mul, other, reflected=True)

    def __truediv__(self, other):
        return self._binary(operator.truediv, other)

    def __neg__(self):
        return self.map(operator.neg)

    def __abs__(self):
        return self.map(np.abs)

    def __matmul__(self, other) -> float:
        if not isinstance(other, RowVector):
            return NotImplemented
        return _sum(self.layout.reduce(np.dot, self, other))

    def max(self) -> float:
        """The largest entry (NaN if any is NaN); known without a round trip where a pass that
        took it gave it (:meth:`know_max`)."""
        known = getattr(self, "_max", None)
        if known is None:
            known = self._max = float(np.max(self.layout.reduce(_block_max, self)))
        return known

    def know_max(self, value: float) -> None:
        """Records the largest entry, taken by another pass over the blocks (``np.max`` of the
        blocks' :func:`_block_max`, as :meth:`max` takes it)."""
        self._max = float(value)

    def min(self) -> float:
        """The smallest entry (NaN if any is NaN)."""
        return float(np.min(self.layout.reduce(_block_min, self)))

    def sum(self) -> float:
        """The sum of the entries (each block's by numpy, the blocks' added in block order)."""
        return _sum(self.layout.reduce(_block_sum, self))

    def full_like(self, value: float) -> "RowVector":
        """The vector of ``value`` everywhere, on the same row partitions."""
        return self.layout.full(value)


class DeferredRowVector(RowVector):
    """A :class:`RowVector` whose blocks are submitted when first asked for: ``make()`` returns
    their futures (a line search's distribution at a point that may not be taken)."""

    def __init__(self, layout: RowLayout, make: Callable[[], list]):
        self.layout, self._make, self._parts = layout, make, None

    @property
    def parts(self) -> list:
        """The blocks' futures, submitted at the first call."""
        if self._parts is None:
            self._parts, self._make = self._make(), None
        return self._parts


def _block_max(x):
    return np.max(x) if x.shape[0] else -np.inf


def _block_min(x):
    return np.min(x) if x.shape[0] else np.inf


def _block_sum(x):
    return float(np.sum(x))
