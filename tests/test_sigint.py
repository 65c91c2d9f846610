"""Ctrl-C from outside, at random times, into long fits: the documented outcome every time.

:mod:`marginboost.core.interrupts` promises: an interrupt after the first committed round keeps
the model of the committed rounds (``status_ == 'interrupted'``, a ``FitInterruptedWarning``),
one before it propagates as ``KeyboardInterrupt``, and under ``on_interrupt('raise')`` it always
propagates; the command line exits 130. The in-process tests of ``test_interrupts.py`` raise the
interrupt from Python code; here a real SIGINT is sent by another process, so it also lands
inside compiled kernels (numba's kernels once turned it into ``SystemError``, losing the fit).
Each child fits on data large enough that the kernels take most of a round's time.
"""
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

CHILD = r"""
import json, sys, warnings
import numpy as np
import marginboost as mb
from marginboost.core.interrupts import FitInterruptedWarning, on_interrupt
from marginboost.io.datasets import make_twonorm

name, policy = sys.argv[1], sys.argv[2]
data = make_twonorm(3000, n_features=20, seed=0)
X, y = data.X, data.y
big = 10 ** 6
makers = {
    "gbm": lambda cb: mb.GBMClassifier(max_iter=big, max_time=20, callbacks=[cb]),
    "madaboost": lambda cb: mb.MadaBoostClassifier(max_iter=big, max_time=20, callbacks=[cb]),
    "mlpboost_tree": lambda cb: mb.MLPBoostClassifier(nu=0.1, eps=1e-9, max_iter=big, max_time=20,
                                                      weak_learner="tree", callbacks=[cb]),
    "mlpboost_hist_threads": lambda cb: mb.MLPBoostClassifier(nu=0.1, eps=1e-9, max_iter=big, max_time=20,
                                                              weak_learner=mb.HistogramTree(2, n_jobs=2),
                                                              callbacks=[cb]),
    "lpboost": lambda cb: mb.LPBoostClassifier(nu=0.1, eps=1e-9, max_iter=big, max_time=20,
                                               weak_learner="stump", callbacks=[cb]),
    "average_margin": lambda cb: mb.AverageMarginBoostClassifier(nu=0.1, eps=1e-6, max_iter=big, max_time=20,
                                                                 callbacks=[cb]),
}
rounds = []
est = makers[name](lambda record: rounds.append(record.round) and None)
print("ready", flush=True)
try:
    with warnings.catch_warnings(record=True) as caught, on_interrupt(policy):
        warnings.simplefilter("always")
        est.fit(X, y)
    out = {"outcome": "returned", "status": str(est.status_), "n_iter": int(est.n_iter_),
           "warned": any(issubclass(w.category, FitInterruptedWarning) for w in caught)}
except KeyboardInterrupt:
    out = {"outcome": "KeyboardInterrupt"}
except BaseException as exc:
    out = {"outcome": "error", "error": f"{type(exc).__name__}: {exc}"}
out["rounds_seen"] = len(rounds)
print(json.dumps(out), flush=True)
"""
CASES = ("gbm", "madaboost", "mlpboost_tree", "mlpboost_hist_threads", "lpboost", "average_margin")
TRIES = 4  # SIGINTs per case, at seeded random delays
MAX_DELAY_S = 1.5


def _default_sigint():
    """In the child before exec: SIGINT as a terminal sends it (a runner started in the background
    may ignore SIGINT, and children inherit that; Python then installs no KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(cmd, delay):
    """Start ``cmd``, wait for its 'ready' line, sleep ``delay`` s, send SIGINT; (return code, stdout lines)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=_default_sigint)
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out.splitlines(), err


@pytest.mark.parametrize("name", CASES)
def test_sigint_at_random_times_keeps_the_committed_rounds(name):
    rng = random.Random(f"sigint-{name}")
    for k in range(TRIES):
        policy = "raise" if k == TRIES - 1 else "keep"
        delay = rng.uniform(0.0, MAX_DELAY_S)
        code, lines, err = _interrupt([sys.executable, "-c", CHILD, name, policy], delay)
        assert code == 0, f"{name} (delay {delay:.3f} s): the child crashed: {err}"
        got = json.loads(lines[-1])
        where = f"{name}, policy {policy}, SIGINT after {delay:.3f} s: {got}"
        assert got["outcome"] != "error", where
        if got["outcome"] == "KeyboardInterrupt":
            # propagates only on request or when no round was committed (then no callback ran)
            assert policy == "raise" or got["rounds_seen"] == 0, where
        else:
            assert policy == "keep", where
            assert got["status"] == "interrupted" and got["warned"], where
            # the callback runs after a round's commit: every round it saw is kept
            assert got["n_iter"] >= max(got["rounds_seen"], 1), where


@pytest.mark.parametrize("booster", ["gbm", "madaboost", "mlpboost"])
def test_sigint_into_the_command_line_exits_130(booster, tmp_path):
    rng = random.Random(f"cli-{booster}")
    for _ in range(2):
        # verbose=1: a progress line on stderr after each round; the first one says the fit has begun
        proc = subprocess.Popen([sys.executable, "-m", "marginboost.cli", "fit", "--data", "twonorm", "--booster",
                                 booster, "--max-iter", "1000000", "--max-time", "20", "--param", "verbose=1",
                                 "--model", str(tmp_path / "model.json")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_default_sigint)
        try:
            first = proc.stderr.readline()
            time.sleep(rng.uniform(0.0, MAX_DELAY_S))
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert first, f"marginboost fit --booster {booster} printed no progress: {err}"
        assert proc.returncode == 130, f"marginboost fit --booster {booster}: exit {proc.returncode}, stderr: {err}"
        assert "Traceback" not in err, err
