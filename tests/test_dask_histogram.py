"""Dask histogram learners against the in-memory ones, on a local in-process cluster.

On the same bins, with a distribution of dyadic entries (every partial sum exact in float64),
the per-partition histograms added on the client must give exactly the in-memory learner's
hypotheses (paper 000's edge oracle, section 4.1), whatever the partitioning.
"""
from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

from marginboost import MLPBoostClassifier  # noqa: E402
from marginboost.weak_learners import HistogramStump, HistogramTree, Stump, bin_features, bin_thresholds  # noqa: E402
from marginboost.weak_learners.dask_histogram import (  # noqa: E402
    DaskHistogramStump,
    DaskHistogramTree,
    distributed_sample,
)
from marginboost.weak_learners.histogram import HistogramStumpOracle, HistogramTreeOracle, LocalSample  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None) as c:
        yield c


@pytest.fixture(params=["distributed", "synchronous"])
def scheduler(request, client):
    """Each test runs on the two-worker cluster and on the synchronous scheduler."""
    if request.param == "distributed":
        with dask.config.set(scheduler=client):
            yield
    else:
        with dask.config.set(scheduler="synchronous"):
            yield


def sample(seed, m=2000, p=5):
    """Ties (rounded normals, small integers), a duplicate and a constant column; dyadic d."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.round(rng.standard_normal((m, p - 2)), 2), rng.integers(0, 4, m), np.full(m, 1.5)])
    X = np.column_stack([X, X[:, 0]])
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(m) > 0, 1.0, -1.0)
    n = rng.integers(0, 16, m)
    n[0] += 2**20 - n.sum()
    return X, y, n / 2.0**20


def assert_same(h1, p1, h2, p2):
    np.testing.assert_array_equal(p1, p2)
    if isinstance(h1, Stump):
        assert h1 == h2
    else:
        for name in ("feature", "threshold", "left", "right", "value", "missing_left"):
            np.testing.assert_array_equal(getattr(h1, name), getattr(h2, name), err_msg=name)
        assert h1.n_features == h2.n_features


@pytest.mark.parametrize("chunks", [(500, -1), (333, 2), (2000, -1)])
def test_same_hypotheses_as_in_memory(scheduler, chunks):
    for seed in range(2):
        X, y, d = sample(seed)
        Xd = da.from_array(X, chunks=chunks)
        for local, distant in ((HistogramStump(64), DaskHistogramStump(64)),
                               (HistogramTree(2, 64), DaskHistogramTree(2, 64)),
                               (HistogramTree(3), DaskHistogramTree(3))):
            oracle = distant.prepare(Xd, y)
            h1, p1 = local.prepare(X, y)(d)
            h2, p2 = oracle(d)
            assert_same(h1, p1, h2, p2)
            assert isinstance(p2, np.ndarray) and p2.dtype == np.float64
            np.testing.assert_array_equal(h2.predict(X), p2)
            # Later rounds reuse the persisted codes.
            d2 = np.roll(d, 7)
            assert_same(*local.prepare(X, y)(d2), *oracle(d2))


def test_bins_equal_in_memory_bins(scheduler):
    X, _, _ = sample(4)
    X[:, 1] = np.random.default_rng(0).standard_normal(X.shape[0])  # more values than bins
    for thresholds in (None, bin_thresholds(X[:300], 32)):
        _, bins = distributed_sample(da.from_array(X, chunks=(700, -1)), 32, thresholds)
        expected = bin_features(X, 32, thresholds=thresholds).bins
        for name in ("thresholds", "lower", "upper", "counts", "n_bins"):
            np.testing.assert_array_equal(getattr(bins, name), getattr(expected, name), err_msg=name)


def test_given_thresholds_match_in_memory_oracles(scheduler):
    X, y, d = sample(5)
    ts = bin_thresholds(X[:100], 16)  # fitted on a sample: some training values fall outside
    binned = bin_features(X, 16, thresholds=ts)
    local = LocalSample(binned.codes, 1)
    Xd = da.from_array(X, chunks=(600, -1))
    assert_same(*HistogramStumpOracle(local, binned.bins, y)(d), *DaskHistogramStump(16, thresholds=ts).prepare(Xd, y)(d))
    assert_same(*HistogramTreeOracle(local, binned.bins, y, 2)(d),
                *DaskHistogramTree(2, 16, thresholds=ts).prepare(Xd, y)(d))


def test_unknown_chunk_sizes_float32_and_int(scheduler):
    X, y, d = sample(6)
    keep = X[:, 0] > -0.5
    Xd = da.from_array(X, chunks=(400, -1))
    Xu = Xd[Xd[:, 0] > -0.5]
    assert np.isnan(Xu.chunks[0]).any()
    dk = d[keep] / d[keep].sum()
    assert_same(*HistogramTree(2).prepare(X[keep], y[keep])(dk), *DaskHistogramTree(2).prepare(Xu, y[keep])(dk))
    X32 = X.astype(np.float32)
    assert_same(*HistogramStump().prepare(X32, y)(d), *DaskHistogramStump().prepare(da.from_array(X32, chunks=(300, -1)), y)(d))
    Xi = (X * 100).astype(np.int64)
    assert_same(*HistogramTree(2).prepare(Xi, y)(d), *DaskHistogramTree(2).prepare(da.from_array(Xi, chunks=(300, -1)), y)(d))


def test_mlpboost_fit_with_dask_learner(client):
    """Through the estimator (whose input validation computes a Dask X into numpy: the learner
    then wraps it again) the fit matches the in-memory learner's."""
    X, y, _ = sample(7, m=600)
    labels = np.where(y > 0, "a", "b")
    with dask.config.set(scheduler=client):
        dist = MLPBoostClassifier(nu=0.3, eps=0.1, weak_learner=DaskHistogramTree(2), max_iter=100).fit(
            da.from_array(X, chunks=(200, -1)), labels)
    local = MLPBoostClassifier(nu=0.3, eps=0.1, weak_learner=HistogramTree(2), max_iter=100).fit(X, labels)
    assert dist.status_ == local.status_ == "converged"
    assert dist.n_iter_ == local.n_iter_
    assert dist.margin_ == pytest.approx(local.margin_, abs=1e-9)
    np.testing.assert_array_equal(dist.predict(X), local.predict(X))


def test_errors(scheduler):
    X, y, _ = sample(8, m=100)
    X[50, 2] = np.inf
    X[40, 2] = np.nan  # a missing value is no error (tests/test_missing_values.py)
    with pytest.raises(ValueError, match="X must not contain infinity: feature 2"):
        DaskHistogramStump().prepare(da.from_array(X, chunks=(30, -1)), y)
    with pytest.raises(ValueError, match="X must not contain infinity: feature 2"):
        DaskHistogramStump(thresholds=[[0.0]] * X.shape[1]).prepare(da.from_array(X, chunks=(30, -1)), y)
    X[[40, 50], 2] = 0.0
    with pytest.raises(ValueError, match=r"y must have shape \(100,\)"):
        DaskHistogramTree().prepare(da.from_array(X, chunks=(30, -1)), y[:-1])
    with pytest.raises(ValueError, match=r"max_bins must be an integer in \[2, 255\]"):
        DaskHistogramTree(max_bins=300).prepare(da.from_array(X, chunks=(30, -1)), y)
    with pytest.raises(ValueError, match="max_depth must be an integer >= 1"):
        DaskHistogramTree(max_depth=0).prepare(da.from_array(X, chunks=(30, -1)), y)
    with pytest.raises(ValueError, match="2-dimensional"):
        DaskHistogramStump().prepare(da.zeros(5, chunks=2), y[:5])
