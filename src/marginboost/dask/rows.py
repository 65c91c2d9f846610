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

Chains are fused into one task a block. On a cluster each dependency between tasks costs a message
from the worker to the scheduler and one back (Dask's batched streams: 5 to 10 ms measured for
small tasks on a local cluster), so a round trip whose answer needed a chain of four tasks waited
for three such hops. (For blocks of 5 x 10^6 rows the gain measured small: the hops overlap with
the compute, and the takes below cost the worker about as much; see ``docs/cluster.rst``.) A
:class:`LazyRowVector` (:meth:`RowLayout.lazy`, and every operation on one) is a recipe: the first
task that needs it (a reduction, or another task of :meth:`RowLayout.submit`) computes it inline,
in the same task, then its own function, and returns a :class:`Kept` result whose intermediate
blocks stay on that worker; the vector's blocks are then futures of small tasks that take them out
of it (:func:`_kept_part`), off the round trip's path. The blocks are made by the same functions
from the same inputs as unfused: the same bits. A :class:`Kept` travels (to the client, to another
worker, spilled to disk) without its blocks; a part taken from such a copy is remade from the
recipe, so lineage and worker loss behave as for plain tasks.
"""
from __future__ import annotations

import operator
import uuid
from typing import Callable

import numpy as np
from dask.sizeof import sizeof
from dask.utils import funcname

from marginboost.core.example_vectors import ExampleVector
from marginboost.dask._block_memory import pooled

__all__ = ["Kept", "LazyRowVector", "PerBlock", "RowLayout", "RowVector", "answer", "own_result", "submit_pooled"]


class _Pooled:
    """``fn`` run with :class:`~marginboost.dask._block_memory.pooled` (picklable: sent with the task)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        with pooled():
            return self.fn(*args, **kwargs)


def submit_pooled(client, fn: Callable, *args, name: Callable | None = None, **kwargs):
    """``client.submit(fn, *args, pure=False, **kwargs)`` run in the block memory (module docstring),
    keyed by the name of ``name`` (default ``fn``) as Dask keys it (the dashboard and task streams
    name the task so)."""
    return client.submit(_Pooled(fn), *args, key=_key(fn if name is None else name), pure=False, **kwargs)


def _key(fn: Callable) -> str:
    return f"{funcname(fn)}-{uuid.uuid4().hex}"


def _part_key(fn: Callable) -> str:
    """The key of a task that takes ``fn``'s block out of a fused task. Its own prefix: Dask's
    scheduler times tasks by prefix, and under ``fn``'s (a pass over a block) it took the few
    microseconds of the take for milliseconds and moved takes to other workers (their blocks then
    copied over and remade there)."""
    return f"kept-{funcname(fn)}-{uuid.uuid4().hex}"


class Kept:
    """A task's ``answer`` with ``local`` values that stay on the worker that made it: a copy sent
    anywhere (the client, another worker, the disk when Dask spills) carries the answer alone.
    The fused tasks return one (module docstring); a tree level keeps its examples' nodes so
    (:mod:`marginboost.dask.sample`)."""

    __slots__ = ("answer", "local")

    def __init__(self, answer, local=None):
        self.answer, self.local = answer, local

    def __reduce__(self):
        return Kept, (self.answer,)


@sizeof.register(Kept)
def _sizeof_kept(kept: Kept) -> int:
    return sizeof(kept.answer) + sizeof(kept.local)


class _Fused(Kept):
    """A fused task's result: its steps' values ``local``, the last one's ``answer`` where gathered."""

    __slots__ = ()

    def __reduce__(self):
        return _Fused, (self.answer,)


def answer(result):
    """A task's result as its caller asked for it: the answer of a :class:`Kept` (of one in one)."""
    while isinstance(result, Kept):
        result = result.answer
    return result


def own_result(result):
    """The result of the function asked for, from a task of :meth:`RowLayout.submit_kept`: itself,
    or the last step of the task it was fused into (its answer alone where that came without them)."""
    if isinstance(result, _Fused):
        return result.answer if result.local is None else result.local[-1]
    return result


class _Ref:
    """In a fused task's recipe: the value of its ``index``-th step."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def _resolved(arg, values: list):
    if isinstance(arg, _Ref):
        return values[arg.index]
    if type(arg) in (list, tuple):
        return type(arg)(_resolved(a, values) for a in arg)
    return arg


def _evaluate(steps: list) -> list:
    """The values of a fused task's steps ``(fn, args, kwargs)``, in order (each may use the ones
    before through a :class:`_Ref`)."""
    values = []
    for fn, args, kwargs in steps:
        values.append(fn(*[_resolved(a, values) for a in args], **kwargs))
    return values


def _run_fused(steps: list, gathered: bool) -> _Fused:
    """A fused task: every step's value kept on the worker; the last one's also as the answer
    where the client gathers it (``gathered``)."""
    values = _evaluate(steps)
    return _Fused(values[-1] if gathered else None, values)


def _kept_part(result: _Fused, index: int, steps: list):
    """Step ``index``'s block of a fused task's ``result``; remade from the recipe ``steps`` where
    the result came here without its blocks (from another worker, or from disk)."""
    values = result.local
    if values is None:
        with pooled():
            values = _evaluate(steps)
    return values[index]


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
        by its item k, anything else is passed to every task as it is. Returns the tasks' futures,
        at once. A :class:`LazyRowVector` argument not yet made is made inside the task (module
        docstring), the future's value then taken out of the fused task by one more."""
        self._check(args)
        if not _pending(args):
            return [submit_pooled(self.client, fn, *[_block(a, k) for a in args], **kwargs)
                    for k in range(self.n_parts)]
        fused, steps = self._fused(fn, args, kwargs, gathered=False)
        return self._takes(fused, steps, -1, fn)

    def reduce(self, fn: Callable, *args, **kwargs) -> list:
        """:meth:`submit`, then wait for the results (small: scalars or O(t) arrays), in block order;
        one task a block whatever :class:`LazyRowVector` arguments it makes on the way (the answers
        of :meth:`submit_kept`)."""
        return self.submit_kept(fn, *args, **kwargs)[0]

    def submit_kept(self, fn: Callable, *args, **kwargs) -> tuple[list, list]:
        """``(answers, futures)``: the blocks' answers gathered, in block order (a :class:`Kept`'s
        answer for a ``fn`` that returns one), and the futures of the tasks' results, whose local
        values later tasks of the same worker read (others get the answer alone)."""
        self._check(args)
        if _pending(args):
            futures = self._fused(fn, args, kwargs, gathered=True)[0]
        else:
            futures = self.submit(fn, *args, **kwargs)
        return [answer(r) for r in self.client.gather(futures)], futures

    def vector(self, fn: Callable, *args, **kwargs) -> "RowVector":
        """The vector whose block k is ``fn(*args_k, **kwargs)`` (:meth:`submit`); a
        :class:`LazyRowVector` where an argument is one not yet made (the chain stays one)."""
        if _pending(args):
            return LazyRowVector(self, fn, args, kwargs)
        return RowVector(self, self.submit(fn, *args, **kwargs))

    def lazy(self, fn: Callable, *args, **kwargs) -> "LazyRowVector":
        """The vector whose block k is ``fn(*args_k, **kwargs)``, made inside the first task that
        needs it (module docstring)."""
        return LazyRowVector(self, fn, args, kwargs)

    def _check(self, args) -> None:
        for a in args:
            if isinstance(a, RowVector) and a.layout is not self:
                raise ValueError("the vectors of one operation must share their row partitions")

    def _fused(self, fn: Callable, args: tuple, kwargs: dict, gathered: bool) -> tuple[list, list]:
        """The fused tasks of ``fn`` with its pending lazy arguments (and theirs) as steps before it,
        one a block, and their recipes; each pending vector gets its blocks from them."""
        order = _pending_order(args)
        position = {id(v): i for i, v in enumerate(order)}
        steps = [[(v._fn, tuple(_step_arg(a, k, position) for a in v._args), v._kwargs) for v in order]
                 + [(fn, tuple(_step_arg(a, k, position) for a in args), kwargs)] for k in range(self.n_parts)]
        fused = [submit_pooled(self.client, _run_fused, s, gathered, name=fn) for s in steps]
        for i, v in enumerate(order):
            v._parts = self._takes(fused, steps, i, v._fn)
            v._args = v._kwargs = None  # (made: the recipe's inputs are the tasks' to hold now)
        return fused, steps

    def _takes(self, fused: list, steps: list, index: int, fn: Callable) -> list:
        """The tasks that take step ``index``'s (``fn``'s) blocks out of the ``fused`` tasks."""
        return [self.client.submit(_kept_part, f, index, s, key=_part_key(fn), pure=False)
                for f, s in zip(fused, steps)]

    def full(self, value: float) -> "RowVector":
        """The vector of ``value`` everywhere."""
        return RowVector(self, [submit_pooled(self.client, np.full, int(b - a), float(value))
                                for a, b in zip(self.bounds[:-1], self.bounds[1:])])


class PerBlock(list):
    """An argument of :meth:`RowLayout.submit` whose item k goes to the task of block k."""


def _flat(args):
    for a in args:
        if isinstance(a, (list, tuple)) and not isinstance(a, PerBlock):
            yield from a
        else:
            yield a


def _pending(args) -> bool:
    return any(isinstance(a, LazyRowVector) and a.pending for a in _flat(args))


def _pending_order(args) -> list:
    """The pending lazy vectors that ``args`` need, each after those it needs."""
    order, seen = [], set()

    def visit(v):
        seen.add(id(v))
        for a in _flat(v._args):
            if isinstance(a, LazyRowVector) and a.pending and id(a) not in seen:
                visit(a)
        order.append(v)

    for a in _flat(args):
        if isinstance(a, LazyRowVector) and a.pending and id(a) not in seen:
            visit(a)
    return order


def _step_arg(arg, k: int, position: dict):
    """An argument of a fused task's step for block k: a pending vector's step, or :func:`_block`."""
    if isinstance(arg, LazyRowVector) and arg.pending:
        return _Ref(position[id(arg)])
    if isinstance(arg, (list, tuple)) and not isinstance(arg, PerBlock) and any(
            isinstance(a, LazyRowVector) and a.pending for a in arg):
        return [_step_arg(a, k, position) for a in arg]
    return _block(arg, k)


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


class LazyRowVector(RowVector):
    """The vector of ``fn(*args_k, **kwargs)`` a block, made inside the first task that needs it
    (module docstring), or by a task of its own where its blocks are asked for first (a line
    search's point never taken: never)."""

    def __init__(self, layout: RowLayout, fn: Callable, args: tuple, kwargs: dict):
        self.layout, self._fn, self._args, self._kwargs, self._parts = layout, fn, args, kwargs, None

    @property
    def pending(self) -> bool:
        """Not made yet."""
        return self._parts is None

    @property
    def parts(self) -> list:
        """The blocks' futures (the vector made now if it was not)."""
        if self._parts is None:
            self.layout._fused(_same, (self,), {}, gathered=False)
        return self._parts


def _same(x):
    return x


def _block_max(x):
    return np.max(x) if x.shape[0] else -np.inf


def _block_min(x):
    return np.min(x) if x.shape[0] else np.inf


def _block_sum(x):
    return float(np.sum(x))
