"""The compiled kernels release the GIL: a threaded caller (joblib's threading backend, Dask's
threaded workers) runs Python beside them.

A kernel runs in a thread while the main thread keeps reading the clock; the longest pause
between two readings is how long the main thread was kept from running. A kernel that held the
GIL would pause it for the whole call. The switch interval is lowered so that handing the GIL
over at the call's start and end costs well under the bound; each call takes tens of ms.
"""
import sys
import threading
import time

import numpy as np
import pytest

from marginboost.core.bit_matrix import BitMarginMatrix
from marginboost.core.projections import capped_simplex_kl_projection
from marginboost.weak_learners import DecisionStump, EdgeTree, HistogramTree, bin_features


def _longest_pause_beside(call) -> tuple[float, float]:
    """(seconds of ``call()`` alone, longest pause of the main thread while ``call`` ran in a thread)."""
    call()  # first allocations, caches
    t0 = time.perf_counter()
    call()
    alone = time.perf_counter() - t0
    stamps = []
    worker = threading.Thread(target=call)
    worker.start()
    while worker.is_alive():
        stamps.append(time.perf_counter())
    worker.join()
    return alone, float(np.diff(stamps).max()) if len(stamps) > 1 else alone


def _kl_projection(rng):
    q = rng.standard_normal(3_000_000)
    return lambda: capped_simplex_kl_projection(q, 300_000.0, 50.0)


def _bit_matrix_products(rng):
    m = 2_000_000
    x = rng.standard_normal(m)
    U = BitMarginMatrix(m)
    for t in np.linspace(-1.0, 1.0, 256):
        U.add(np.where(x > t, 1.0, -1.0))
    d, w = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(U.shape[1]))
    return lambda: (U.rmatvec(d), U.matvec(w))


def _exact_learners(rng):
    X = rng.standard_normal((400_000, 8))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0)
    d = np.full(y.shape[0], 1.0 / y.shape[0])
    stump, tree = DecisionStump().prepare(X, y), EdgeTree(2).prepare(X, y)
    return lambda: (stump(d), tree(d))


def _histogram_learners(n_jobs):
    def make(rng):
        X = rng.standard_normal((2_000_000, 16)).astype(np.float32)
        y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0)
        d = np.full(y.shape[0], 1.0 / y.shape[0])
        tree = HistogramTree(2, n_jobs=n_jobs).prepare(X, y)
        return lambda: tree(d)
    return make


def _binning(rng):
    X = rng.standard_normal((300_000, 8))
    return lambda: bin_features(X, 255)


@pytest.mark.parametrize("make", [_kl_projection, _bit_matrix_products, _exact_learners, _histogram_learners(None),
                                  _histogram_learners(2), _binning],
                         ids=["kl_projection", "bit_matrix", "exact_stump_and_tree", "histogram_tree",
                              "histogram_tree_2_threads", "binning"])
def test_the_main_thread_runs_while_a_kernel_runs(make):
    call = make(np.random.default_rng(0))
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        alone, pause = _longest_pause_beside(call)
    finally:
        sys.setswitchinterval(previous)
    assert alone > 0.02, f"the call takes {alone:.4f} s: too short to tell"
    assert pause < 0.5 * alone, f"the main thread paused {pause:.4f} s of the call's {alone:.4f} s"
