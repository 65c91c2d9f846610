"""What the tests of the fits on a Dask cluster share: the module-scoped ``client`` of a
LocalCluster of two worker processes (import it into a test module to use it), a classification
problem with missing values, its dask copies, and two fits on a fresh cluster, one of them with a
worker killed in the middle. The test modules skip themselves where dask is
not installed (``pytest.importorskip``) before importing this."""
from __future__ import annotations

import os
import warnings

import distributed
import numpy as np
import pytest
from dask import array as da


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB",
                                       dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def problem(m=1500, p=6, seed=0):
    """Rounded Gaussian features (ties), 5% missing, labels 'yes'/'no' of a noisy quadratic score."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.standard_normal((m, p)), 2)
    X[rng.random((m, p)) < 0.05] = np.nan  # missing values: their own bin, as in memory
    score = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2 - 1 + 0.3 * rng.standard_normal(m)
    return X, np.where(score > 0, "yes", "no")


def as_dask(X, y, chunk=400):
    """``(X, y)`` as dask arrays of ``chunk`` rows a partition."""
    return da.from_array(X, chunks=(chunk, X.shape[1])), da.from_array(y, chunks=(chunk,))


async def _exit_process():
    os._exit(1)


def fits_with_a_worker_killed(fit, after_round: int):
    """``(undisturbed, disturbed)``: ``fit(client, callbacks)`` run twice on a fresh LocalCluster of
    two worker processes, the second time with the first worker's process killed at the end of
    round ``after_round`` (its nanny starts a new one, empty), as a lost machine would be."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    killed = []
    with distributed.Client(cluster) as c, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        undisturbed = fit(c, [])

        def kill(record):
            if record.round == after_round:
                worker = sorted(c.scheduler_info()["workers"])[0]
                c.run(_exit_process, workers=[worker], wait=False)
                killed.append(worker)

        disturbed = fit(c, [kill])
    cluster.close()
    assert killed, f"the fit ended before round {after_round}: no worker was killed"
    return undisturbed, disturbed
