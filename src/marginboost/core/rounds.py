"""The round driver: the one place that runs boosting rounds.

Every boosting loop of the package is a :class:`RoundLoop`: a ``step`` that computes one round
from the state the round before returned, and a ``result`` that builds the fit from a state. :func:`run_rounds` owns everything else, once for all of them:

* the round count (``max_iter``) and the wall-clock limit (``max_time``, checked after every
  committed round, so a fit always ends on a model);
* timing: the history's ``time`` column (seconds since the fit started, at the end of the round);
* the history: one row per round, ``round`` first and ``time`` last, the loop's columns between;
* commit and rollback: a round's row is appended, then its state committed in one assignment,
  then its weights logged. Ctrl-C anywhere (weak learner, solver, bookkeeping, a callback) goes
  back to the last committed state (status ``'interrupted'``, :mod:`marginboost.core.interrupts`),
  so a state must never be modified in place once a step returned it;
* one BLAS thread (:mod:`marginboost.core.threads`): the same seed gives the same model on any
  machine;
* callbacks, progress output (``verbose``) and one :class:`Status`.

History columns share one naming scheme: ``round`` and ``time`` (the driver's), ``edge`` (of the
round's hypothesis under the distribution it was asked with), ``best_edge`` (the smallest so
far), ``step`` (the step size, or coefficient, of the round's update), ``objective``, ``loss``,
``gap`` (the duality or Frank-Wolfe gap), ``soft_margin``, ``min_margin`` (the smallest
normalised training margin), ``*_time`` (seconds in one part of the round), ``n_*`` (counts).

The iteration contract, the same for every loop: rounds are numbered ``1, 2, ...``, one
boosting iteration each (a weak-learner call that updates the model; for the average-margin
booster an oracle call at an iterate of its Frank-Wolfe algorithm); a loop with ``start_row =
True`` first records its starting point as round 0 (the constant of GBM, FWBoost's iterate 0,
GraphSepBoost's complete graph), which is no iteration. ``max_iter``
bounds the round numbers, and the fit's ``n_iter`` is the number of its last round (0 if it has
only its start): ``history['round']`` is ``[0,] 1, ..., n_iter`` and ``n_iter <= max_iter``; a
fit stopped by ``max_iter`` has ``n_iter == max_iter``. A warm start continues the numbering.

A step returns a :class:`RoundOutcome`. ``row=None`` stops without a row (the round made no
model: a diverged update, no weak edge left); ``commit=False`` records a row that describes no
model yet (FWBoost's iterate 0), so no time limit or interrupt can end the fit on it. Each step
starts from the state the step before returned, committed or not; Ctrl-C goes back to the last
committed one.
"""
from __future__ import annotations

import sys
import time
import warnings
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable

import numpy as np

from marginboost.core.interrupts import keep_interrupted
from marginboost.core.threads import single_blas_thread

__all__ = ["FitResult", "RoundLoop", "RoundOutcome", "RoundRecord", "Status", "WeightsPath", "continue_rounds",
           "history_columns", "run_rounds"]


class Status(str, Enum):
    """Why a fit stopped, in terms every loop shares. A ``str``: ``status == 'converged'`` and JSON
    model files work as plain strings do. The family's own reason, where it has one (AdaBoostV's
    perfect hypothesis, GraphSepBoost's separated pairs, ...), is a separate string: the
    outcome's and the fit's ``reason`` (the estimators' ``stop_reason_``)."""

    CONVERGED = "converged"  # the loop's own stopping rule held: its target is reached
    MAX_ITER = "max_iter"  # max_iter rounds
    MAX_TIME = "max_time"  # max_time seconds
    INTERRUPTED = "interrupted"  # Ctrl-C: the rounds completed
    CALLBACK = "callback"  # a callback asked to stop
    EARLY_STOPPING = "early_stopping"  # the validation score stopped improving
    NO_PROGRESS = "no_progress"  # a round could not improve the model (no weak edge, nothing separated)
    DIVERGED = "diverged"  # a round overflowed or made the loss grow; the rounds before it are kept

    __str__ = str.__str__  # the value, as the plain strings before this type
    __format__ = str.__format__

    @property
    def finished(self) -> bool:
        """The fit ended as its loop or its caller asked, not short of the stopping rule (a stop by
        max_iter, max_time or Ctrl-C is not: the estimators warn of it)."""
        return self not in (Status.MAX_ITER, Status.MAX_TIME, Status.INTERRUPTED)

    @property
    def continuable(self) -> bool:
        """A warm start goes on from it: the loop itself did not end the fit."""
        return self in (Status.MAX_ITER, Status.MAX_TIME, Status.INTERRUPTED, Status.CALLBACK,
                        Status.EARLY_STOPPING)


@dataclass
class RoundOutcome:
    """What one step returns: the round's history ``row`` (the loop's columns), the ``state``
    to commit, whether the round ends the fit (``stop``, with the family's ``reason`` if it has
    one), and its weights-path entry ``path = (w, step)`` (:meth:`WeightsPath.append`)."""

    row: dict | None
    state: Any = None
    stop: Status | None = None
    path: tuple | None = None
    commit: bool = True
    reason: str | None = None


@dataclass
class RoundRecord:
    """What a callback sees after each committed round: the round number, its history row
    (``time`` included), the committed state, and ``ensemble()``: the model's hypotheses,
    weights and offset at this round (None where the loop has no weighted vote)."""

    round: int
    row: dict
    state: Any
    ensemble: Callable[[], tuple[list, np.ndarray, float]] | None = None


def history_columns(columns) -> tuple[str, ...]:
    """The columns of a history of rows with the loop's ``columns``: the driver's ``round`` first
    and ``time`` last."""
    return ("round",) + tuple(columns) + ("time",)


class RoundLoop:
    """A boosting loop, as :func:`run_rounds` drives it: every loop of the package subclasses it."""

    columns: tuple[str, ...] = ()  # the history columns of a row, without 'round' and 'time'
    progress: tuple[str, ...] = ()  # the columns a progress line shows (e.g. objective and gap)
    # True: the first step (round 0) records the starting point, no iteration (module docstring)
    start_row: bool = False

    def step(self, state, round: int) -> RoundOutcome:
        """Round ``round`` from the state the round before returned (None before the first)."""
        raise NotImplementedError

    def result(self, state, status: Status, rounds: "Rounds") -> "FitResult":
        """The fit of ``state`` (the last committed one after Ctrl-C), stopped with ``status``."""
        raise NotImplementedError

    def ensemble(self, state) -> tuple[list, np.ndarray, float] | None:
        """Hypotheses, weights and offset of the model at ``state`` (for callbacks); None where
        the model is no weighted vote."""
        return None


@dataclass
class Rounds:
    """What the driver kept of a run: the history (dict of arrays) and the weights path."""

    history: dict
    weights_path: "WeightsPath"

    @property
    def n_iter(self) -> int:
        """The number of the last round kept (module docstring): the fit's ``n_iter``."""
        rounds = self.history["round"]
        return int(rounds[-1]) if len(rounds) else 0


@dataclass
class FitResult:
    """One fit of any loop: ``F(x) = offset + sum_j weights[j] * hypotheses[j](x)``.

    ``final`` holds the loop's own final quantities (soft margin, gap, loss, margins, ...);
    they read as attributes too (``result.gap``).
    """

    hypotheses: list
    weights: np.ndarray | None
    status: Status
    n_iter: int
    history: dict = field(default_factory=dict)
    weights_path: "WeightsPath | None" = None
    offset: float = 0.0
    final: dict = field(default_factory=dict)
    reason: str | None = None  # the family's reason for the stop (set by the driver from the outcome)
    # What continue_rounds needs: the loop and its last committed state.
    loop: Any = field(default=None, repr=False, compare=False)
    state: Any = field(default=None, repr=False, compare=False)

    def __getattr__(self, name):
        final = self.__dict__.get("final")
        if final is not None and name in final:
            return final[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")


class WeightsPath:
    """The weights after every round, logged as updates ``w_new = scale * w_old; w_new[idx] = vals``.

    A FW or pairwise step touches one or two entries, so it costs O(1) memory, where a copy
    of ``w`` per round would cost O(T^2) over T rounds (GBs for long C-ERLPBoost runs).
    Replaying the logged operations reproduces every ``w`` bit for bit.
    """

    def __init__(self):
        self._steps: list[tuple[int, float, np.ndarray, np.ndarray]] = []

    def append(self, w: np.ndarray, step) -> None:
        """Log the weights ``w`` of a round; ``step = (scale, touched)`` or None (store its nonzeros)."""
        # Without a step, scale 0 and every nonzero entry: the weights are stored outright.
        scale, touched = (0.0, np.flatnonzero(w)) if step is None else step
        idx = np.asarray(touched, dtype=np.int64)
        self._steps.append((w.shape[0], scale, idx, w[idx].copy()))

    def __len__(self) -> int:
        return len(self._steps)

    def copy(self) -> "WeightsPath":
        """A path with the same entries, to be extended without changing this one."""
        other = WeightsPath()
        other._steps = list(self._steps)
        return other

    def __iter__(self):
        w = np.zeros(0)
        for n, scale, idx, vals in self._steps:
            prev = np.zeros(n)
            prev[: w.shape[0]] = w
            w = scale * prev
            w[idx] = vals
            yield w


class _Progress:
    """``verbose``: a line every ``every`` rounds (round, the loop's progress columns, elapsed), or,
    on a terminal, one line redrawn in place with a bar over ``max_iter`` rounds."""

    def __init__(self, every: int, columns, max_iter: int, name: str, stream=None):
        self.every, self.columns, self.max_iter, self.name = every, columns, max_iter, name
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def _text(self, round_: int, row: dict) -> str:
        values = "  ".join(f"{c} {row[c]:.6g}" for c in self.columns if c in row)
        return f"{self.name} round {round_}  {values}  elapsed {row['time']:.2f}s"

    def update(self, round_: int, row: dict) -> None:
        if self.tty:
            done = min(round_ / self.max_iter, 1.0) if self.max_iter else 0.0
            bar = "#" * int(20 * done) + "." * (20 - int(20 * done))
            self.stream.write(f"\r[{bar}] {self._text(round_, row)}\033[K")
            self.stream.flush()
        elif round_ % self.every == 0:
            print(self._text(round_, row), file=self.stream, flush=True)

    def close(self, round_: int, row: dict | None, status: Status) -> None:
        if row is None:
            return
        if self.tty:
            self.stream.write("\n")
        elif round_ % self.every:
            print(self._text(round_, row), file=self.stream)
        print(f"{self.name} stopped: {status.value} after {round_} rounds", file=self.stream, flush=True)


@single_blas_thread
def run_rounds(loop: RoundLoop, *, max_iter: int, max_time: float | None = None, callbacks=(), verbose: int = 0,
               name: str | None = None, state=None, history: dict | None = None,
               weights_path: WeightsPath | None = None) -> FitResult:
    """Drive ``loop`` up to round ``max_iter`` (the iteration contract of the module docstring)
    and return ``loop.result`` of the last state a step returned (after Ctrl-C: of the last
    committed one), with ``n_iter`` its last round.

    ``callbacks``: callables ``fn(record: RoundRecord)`` run after every committed round; one that
    returns True (or a :class:`Status`) stops the fit there (status ``'callback'``, or that one);
    any other value but None or False warns once and is ignored (:class:`_Callbacks`).
    ``verbose``: 0 silent; ``k >= 1`` a progress line every ``k`` rounds on stderr (a bar redrawn
    in place on a terminal). ``state``, ``history`` and ``weights_path``: those of an earlier run
    to continue (a warm start, :func:`continue_rounds`): its rounds are numbered on, the new ones
    appended.
    """
    if max_iter < 0:
        raise ValueError(f"max_iter must be >= 0, got {max_iter!r}")
    columns = history_columns(loop.columns)
    rows: dict[str, list] = {c: list(history[c]) if history is not None else [] for c in columns}
    first_round = int(rows["round"][-1]) + 1 if rows["round"] else 0 if loop.start_row else 1
    path = weights_path if weights_path is not None else WeightsPath()
    progress = _Progress(verbose, loop.progress, max_iter, name or type(loop).__name__) if verbose else None
    n_rows = len(rows["round"])
    run_callbacks = _Callbacks(callbacks)
    # (rows, state, path entry, path length once it is logged) of the last committed round
    kept = (n_rows, state, None, len(path)) if state is not None else None
    status, reason = Status.MAX_ITER, None
    last_row = None
    round_ = first_round - 1
    current = state  # the state the last step returned, committed or not: the next step starts there
    start = time.perf_counter()
    try:
        for round_ in range(first_round, max_iter + 1):
            out = loop.step(current, round_)
            if out.row is None:  # the round made no model: stop on the last one
                status = out.stop if out.stop is not None else Status.CONVERGED
                reason = out.reason
                round_ -= 1
                break
            current = out.state
            row = {"round": round_, **out.row, "time": time.perf_counter() - start}
            _append_row(rows, row)
            if not out.commit:
                if out.stop is not None:
                    status, reason = out.stop, out.reason
                    break
                continue
            kept = (len(rows["round"]), out.state, out.path, len(path) + (out.path is not None))
            if out.path is not None:
                path.append(*out.path)
            last_row = row
            if progress is not None:
                progress.update(round_, row)
            asked = run_callbacks(loop, round_, row, out.state)
            if out.stop is not None:
                status, reason = out.stop, out.reason
                break
            if asked is not None:
                status = asked
                break
            if max_time is not None and row["time"] >= max_time and round_ < max_iter:
                status = Status.MAX_TIME
                break
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        n_kept, current, path_entry, path_length = kept
        status, reason = Status.INTERRUPTED, None
        rows = {c: v[:n_kept] for c, v in rows.items()}
        round_ = rows["round"][-1]
        if len(path) < path_length:  # cut between the commit and the log of its weights
            path.append(*path_entry)
        last_row = {c: v[-1] for c, v in rows.items()}
    if progress is not None:
        progress.close(round_, last_row, status)
    history = {c: np.asarray(v) for c, v in rows.items()}
    result = loop.result(current, status, Rounds(history, path))
    result.loop, result.state, result.reason = loop, current, reason
    return result


def continue_rounds(result: FitResult, *, max_iter: int, **options) -> FitResult:
    """Run the loop that produced ``result`` on, up to round ``max_iter`` (a warm start): the
    rounds are numbered on, the history and weights path extended. ``options`` as for
    :func:`run_rounds`."""
    if result.loop is None or result.state is None:
        raise ValueError("this fit kept no loop state to continue from")
    return run_rounds(result.loop, max_iter=max_iter, state=result.state, history=result.history,
                      weights_path=result.weights_path.copy() if result.weights_path is not None else None,
                      **options)


def _append_row(rows: dict, row: dict) -> None:
    """Append a round's values to the history's columns (before the round is committed)."""
    for c, values in rows.items():
        values.append(row[c])


class _Callbacks:
    """The callbacks of one run: called after every committed round with a :class:`RoundRecord`.

    Only ``True`` (or a :class:`Status`, as the package's own early stopping returns) stops the
    fit: a callback that logs and returns what it wrote (a count, a file object) must not end it
    by being truthy, as XGBoost's callbacks return a bool. Any other value but None is ignored
    with one ``UserWarning`` per callback and run. A ``StopIteration`` escaping a callback is its
    error (it would end a generator around the fit silently), raised again as a ``RuntimeError``
    naming the callback."""

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)
        self.warned: set[int] = set()

    def __call__(self, loop, round_, row, state) -> Status | None:
        if not self.callbacks:
            return None
        record = RoundRecord(round_, row, state, lambda: loop.ensemble(state))
        asked = None
        for i, callback in enumerate(self.callbacks):
            try:
                answer = callback(record)
            except StopIteration as exc:
                raise RuntimeError(f"callback {_callable_name(callback)} raised StopIteration at round {round_}; "
                                   "to stop the fit, return True") from exc
            if answer is None or answer is False or answer is np.False_:
                continue
            if answer is True or answer is np.True_ or isinstance(answer, Status):
                if asked is None:
                    asked = answer if isinstance(answer, Status) else Status.CALLBACK
            elif i not in self.warned:
                self.warned.add(i)
                warnings.warn(f"callback {_callable_name(callback)} returned {answer!r} ({type(answer).__name__}) at "
                              f"round {round_}: only True stops the fit, so it goes on and this value is ignored "
                              "(return None or False to continue)", UserWarning, stacklevel=2)
        return asked


def _callable_name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(type(fn), "__qualname__", None) or repr(fn)
