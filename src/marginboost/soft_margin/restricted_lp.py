"""LPBoost's restricted master LP, solved by HiGHS and warm-started across rounds.

Over the hypotheses found so far (margin columns ``u_1..u_t``), LPBoost solves the edge
minimisation problem (paper 000, eq. 8), in *row form*::

    min_{d, gamma}  gamma
    s.t.            sum_i u_{ik} d_i <= gamma      k = 1..t    (one row per hypothesis)
                    sum_i d_i = 1,   0 <= d_i <= s_i/nu   (s_i = 1 without example weights)

Its optimum ``gamma`` equals the best soft margin over ``CH(u_1..u_t)`` (LP duality, 000
eq. 13) and the duals of the hypothesis rows are that optimal weight vector ``w``.
A new hypothesis adds one row: the previous basis stays dual feasible, so HiGHS' dual
simplex restarts from it rather than from scratch.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading

import highspy
import numpy as np

_BANNER_LOCK = threading.Lock()
_banner_done = False  # set once the first Highs object was built with descriptor 1 on os.devnull


def _libc_fflush() -> None:
    """Flush C's stdio buffers (HiGHS writes through them), where the C library can be found."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # no dlopen(NULL) (Windows): HiGHS flushes its log itself
        pass


def new_highs() -> highspy.Highs:
    """A ``highspy.Highs`` with its output off, its banner unprinted.

    HiGHS prints ``Running HiGHS ...: Copyright ...`` from C++ on the first construction in a
    process (highspy 1.16; older versions on the first call with ``output_flag`` still on), to
    the process's file descriptor 1, before any option can be set. The first construction
    therefore runs with descriptor 1 pointed at ``os.devnull`` (Python's own buffer flushed
    first, C's flushed before it is restored), under a lock (two such constructions at once
    would restore the wrong descriptor), and ``output_flag`` is turned off at once, which keeps
    every later call quiet. Later constructions redirect nothing: what another thread writes
    in that instant would be lost with the banner.
    """
    global _banner_done
    if not _banner_done:
        with _BANNER_LOCK:
            if not _banner_done:
                h = _quiet_first_highs()
                _banner_done = True
                return h
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def _quiet_first_highs() -> highspy.Highs:
    """``highspy.Highs()`` with file descriptor 1 on ``os.devnull`` (where it can be redirected)."""
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):  # no sys.stdout, or a closed one
        pass
    saved = devnull = None
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        saved = os.dup(1)
        os.dup2(devnull, 1)
    except OSError:  # no descriptor 1 (e.g. pythonw): nothing to print to either
        if saved is not None:
            os.close(saved)
            saved = None
    try:
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    finally:
        if saved is not None:
            _libc_fflush()
            os.dup2(saved, 1)
            os.close(saved)
        if devnull is not None:
            os.close(devnull)
    return h


class SolverError(RuntimeError):
    """A solver returned a status other than optimal; the message names solver and status."""


class RestrictedMasterLP:
    """Row-form restricted master of LPBoost, one row appended per hypothesis."""

    def __init__(self, m: int, nu: float, weights: np.ndarray | None = None):
        self.m = m
        self.n_rows = 0
        h = new_highs()
        # Dual simplex: an added row keeps the old basis dual feasible (a hot start).
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("simplex_strategy", 1)
        inf = highspy.kHighsInf
        # Columns 0..m-1 are d, column m is gamma (free).
        caps = np.full(m, 1.0 / nu) if weights is None else np.asarray(weights, dtype=np.float64) / nu
        h.addVars(m, np.zeros(m), caps)
        h.addVar(-inf, inf)
        h.changeColCost(m, 1.0)
        h.addRow(1.0, 1.0, m, np.arange(m, dtype=np.int32), np.ones(m))
        self._highs = h
        self._index = np.arange(m + 1, dtype=np.int32)

    def add_hypothesis(self, u: np.ndarray) -> None:
        """Append the edge row ``u @ d - gamma <= 0`` of a new hypothesis with margins ``u``."""
        values = np.append(np.asarray(u, dtype=np.float64), -1.0)
        self._highs.addRow(-highspy.kHighsInf, 0.0, self.m + 1, self._index, values)
        self.n_rows += 1

    def solve(self) -> tuple[np.ndarray, np.ndarray, float]:
        """Solve and return ``(w, d, gamma)``: hypothesis weights, distribution, LP value."""
        h = self._highs
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise SolverError(
                f"HiGHS (dual simplex) returned status '{h.modelStatusToString(status)}' "
                f"on LPBoost's restricted master LP with {self.n_rows} hypotheses"
            )
        sol = h.getSolution()
        x = np.asarray(sol.col_value)
        d = np.clip(x[: self.m], 0.0, None)
        d /= d.sum()
        # Row 0 is sum d = 1; rows 1.. are the hypotheses. HiGHS' duals are <= 0 for these
        # <= rows of a minimisation, and sum to -1 (stationarity in gamma).
        w = np.clip(-np.asarray(sol.row_dual)[1:], 0.0, None)
        w /= w.sum()
        return w, d, float(x[self.m])
