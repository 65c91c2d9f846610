"""Ctrl-C during ``fit``: keep the model of the rounds completed, or re-raise.

The round driver, :func:`marginboost.core.rounds.run_rounds`, which runs every boosting loop of
the package, catches ``KeyboardInterrupt`` (the loops themselves do not). With the policy
``'keep'`` (the default) it stops there and returns the model of the rounds completed, as a
``max_iter`` of that many rounds would have, with status ``'interrupted'``; the estimator
sets ``status_ = 'interrupted'`` and warns with :class:`FitInterruptedWarning`. With
``'raise'`` the interrupt propagates. An interrupt before the first round completes always
propagates: there is no model yet. Likewise with more than two classes (one-vs-rest,
:mod:`marginboost.estimators.multiclass`): a model is kept only if the interrupt lands in the last class's fit, as
the classes after the interrupted one would have no model. ::

    from marginboost.core.interrupts import on_interrupt

    with on_interrupt("raise"):   # or as a decorator: @on_interrupt("raise")
        search.fit(X, y)          # Ctrl-C stops the whole search, not one fit of it

The policy is a runtime option, like scikit-learn's ``config_context``, not an estimator
parameter: it does not change what a fit computes, only what a session wants from Ctrl-C,
and a runner of many fits (a grid search, a benchmark) sets it once for all of them, where a
parameter would have to reach every estimator it builds. It is a :class:`contextvars.ContextVar`;
only the main thread receives ``KeyboardInterrupt``.

How the driver keeps a fit consistent wherever the interrupt lands (in the weak learner, in a
solver, in the bookkeeping, in a callback): a round first appends its history row, then commits
the state its loop's step returned in one assignment (``kept = ...``; a step never modifies a
state in place once it returned it), and only then logs its weights path. On an interrupt the
driver goes back to ``kept``: the history is cut to the committed rounds, a path that misses the
committed round's entry (interrupted between the commit and the log) gets it, and the loop
builds its result from that state.
"""
from __future__ import annotations

import warnings
from contextlib import contextmanager
from contextvars import ContextVar

from sklearn.exceptions import ConvergenceWarning

__all__ = ["POLICIES", "FitInterruptedWarning", "keep_interrupted", "on_interrupt", "warn_interrupted"]

POLICIES = ("keep", "raise")
_policy: ContextVar[str] = ContextVar("marginboost_on_interrupt", default="keep")


class FitInterruptedWarning(ConvergenceWarning):
    """A fit stopped by ``KeyboardInterrupt`` kept the model of its completed rounds."""


@contextmanager
def on_interrupt(policy: str):
    """Within the block (or the decorated function), Ctrl-C during a fit keeps the model of
    the completed rounds (``'keep'``, the default) or propagates (``'raise'``)."""
    if policy not in POLICIES:
        raise ValueError(f"on_interrupt policy must be one of {POLICIES}, got {policy!r}")
    token = _policy.set(policy)
    try:
        yield
    finally:
        _policy.reset(token)


def keep_interrupted(kept) -> bool:
    """For the driver's ``except KeyboardInterrupt``: True to stop with the committed state
    ``kept``, False to re-raise (policy ``'raise'``, or ``kept`` None: no round completed)."""
    return kept is not None and _policy.get() == "keep"


def warn_interrupted(estimator, n_iter: int) -> None:
    """The estimator's warning after a fit its loop returned as ``'interrupted'``."""
    warnings.warn(
        f"{type(estimator).__name__}.fit was interrupted (KeyboardInterrupt): the model of the {n_iter} "
        "completed rounds is kept (status_='interrupted'); fit inside "
        "marginboost.core.interrupts.on_interrupt('raise') to re-raise instead",
        FitInterruptedWarning,
        stacklevel=3,
    )
