"""Chains of block operations fused into one task a block (marginboost.dask.rows: LazyRowVector,
Kept), and the tree's last level taken without a pass of its own (marginboost.dask.sample).

A fused task must give the bits of its steps run one task each, keep its intermediate blocks on
its worker (a copy that travels carries the answer alone, and a part taken from such a copy is
remade from the recipe), and cost one task a block on the round trip's path.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from dask.sizeof import sizeof  # noqa: E402

from marginboost.dask.data import training_data  # noqa: E402
from marginboost.dask.rows import Kept, LazyRowVector, RowLayout, RowVector, _kept_part, _Ref, _run_fused  # noqa: E402
from marginboost.weak_learners.binning import bin_features  # noqa: E402
from marginboost.weak_learners.histogram import HistogramTreeOracle, LocalSample  # noqa: E402
from dask_cluster import client, problem  # noqa: E402,F401 (client: the fixture)


def _affine(x, a, b):
    return a * x + b


def _weighted_sum(x, y):
    return float(np.dot(x, y))


class _LastTotals:
    """A sample that records the node totals of the last level it gives (``with_hist`` False)."""

    def __init__(self, sample, totals: dict, name: str):
        self.sample, self.totals, self.name = sample, totals, name

    def __getattr__(self, attr):
        return getattr(self.sample, attr)

    def level_stats(self, w, routing, n_nodes, width, with_hist, square=False):
        stats = self.sample.level_stats(w, routing, n_nodes, width, with_hist, square)
        if not with_hist:
            self.totals[self.name] = stats.total
        return stats


def scattered(layout, x):
    return RowVector(layout, [layout.client.scatter(x[a:b], hash=False)
                              for a, b in zip(layout.bounds[:-1], layout.bounds[1:])])


def test_kept_travels_with_its_answer_alone():
    big = np.arange(1000.0)
    kept = pickle.loads(pickle.dumps(Kept(3.5, [big])))
    assert kept.answer == 3.5 and kept.local is None
    assert sizeof(Kept(3.5, [big])) >= big.nbytes  # Dask's memory accounting sees the blocks kept


def test_a_part_of_a_fused_task_is_taken_or_remade_from_its_recipe():
    x = np.linspace(-1.0, 1.0, 101)
    steps = [(_affine, (x, 3.0, 0.1), {}), (np.multiply, (_Ref(0), x), {}), (_weighted_sum, (_Ref(1), _Ref(0)), {})]
    result = _run_fused(steps, True)
    first, second = 3.0 * x + 0.1, (3.0 * x + 0.1) * x
    assert result.answer == float(np.dot(second, first))
    assert _kept_part(result, 1, steps) is result.local[1]  # taken, not copied
    travelled = pickle.loads(pickle.dumps(result))
    assert travelled.local is None and travelled.answer == result.answer
    np.testing.assert_array_equal(_kept_part(travelled, 0, steps), first)  # remade: the same bits
    np.testing.assert_array_equal(_kept_part(travelled, 1, steps), second)


def test_a_chain_is_one_task_a_block_on_the_path_with_the_bits_of_its_steps(client, monkeypatch):
    """``reduce`` of a chain of three lazy operations: one task a block named after the reduction,
    its answer the unfused one's bits; the chain's vectors made by it, taken out by small tasks."""
    rng = np.random.default_rng(5)
    m = 3001
    layout = RowLayout(client, [0, 1000, 2200, m])
    x, y = rng.standard_normal(m), rng.standard_normal(m)
    xd, yd = scattered(layout, x), scattered(layout, y)
    keys = []
    submit = client.submit

    def counted(*args, **kwargs):
        keys.append(kwargs["key"])
        return submit(*args, **kwargs)

    monkeypatch.setattr(client, "submit", counted)
    a = layout.lazy(_affine, xd, 0.3, 0.7)
    b = a * yd
    c = abs(b)
    assert isinstance(b, LazyRowVector) and isinstance(c, LazyRowVector) and a.pending and b.pending
    assert keys == []  # nothing submitted yet
    parts = layout.reduce(_weighted_sum, c, xd)
    on_path = [k for k in keys if not k.startswith("kept-")]
    assert len(on_path) == 3 and all(k.startswith("_weighted_sum-") for k in on_path)
    assert not (a.pending or b.pending or c.pending)
    bounds = layout.bounds
    expected_c = np.abs((0.3 * x + 0.7) * y)
    assert parts == [float(np.dot(expected_c[lo:hi], x[lo:hi])) for lo, hi in zip(bounds[:-1], bounds[1:])]
    np.testing.assert_array_equal(a.compute(), 0.3 * x + 0.7)
    np.testing.assert_array_equal(c.compute(), expected_c)
    # an operation on made vectors is submitted at once, as before
    keys.clear()
    d = c + 1.0
    assert not isinstance(d, LazyRowVector) and len(keys) == 3
    np.testing.assert_array_equal(d.compute(), expected_c + 1.0)


def test_a_lazy_vector_asked_for_its_blocks_is_made_by_a_task_of_its_own(client):
    m = 500
    layout = RowLayout(client, [0, 200, m])
    x = np.arange(m, dtype=float)
    a = layout.lazy(_affine, scattered(layout, x), 2.0, -1.0)
    assert len(a.parts) == 2 and not a.pending
    np.testing.assert_array_equal(a.compute(), 2.0 * x - 1.0)
    assert layout.submit(_weighted_sum, a, a)  # made vectors: plain tasks


def test_the_last_tree_level_takes_no_pass_and_gives_the_in_memory_tree(client, monkeypatch):
    """A depth-3 tree on the workers under dyadic weights (exact sums): one round trip a level with
    histograms, none for the last (its leaves' totals from their parents' histograms), and the
    in-memory learner's tree and predictions."""
    X, y = problem(m=1024, seed=11)
    Xd, yd = da.from_array(X, chunks=(256, X.shape[1])), da.from_array(y, chunks=(256,))
    data = training_data(Xd, yd, client=client, n_blocks=3)
    rng = np.random.default_rng(2)
    d = rng.integers(1, 9, X.shape[0]) / 1024.0  # dyadic: every sum exact
    dd = scattered(data.layout, d)
    gathers = []
    gather = client.gather

    def counted(futures, *args, **kwargs):
        gathers.append(len(futures))
        return gather(futures, *args, **kwargs)

    monkeypatch.setattr(client, "gather", counted)
    totals = {}
    tree, pred = HistogramTreeOracle(_LastTotals(data.sample, totals, "dask"), data.bins, data.y, 3)(dd)
    assert len(gathers) == 3  # levels 0, 1 and 2; the leaves' level none
    assert isinstance(pred, LazyRowVector) and pred.pending  # made by the new column's pass
    monkeypatch.undo()
    binned = bin_features(X, 255)
    y_pm = np.where(y == "yes", 1.0, -1.0)
    local = LocalSample(binned.codes, 1, binned.bins.counts)
    ref, ref_pred = HistogramTreeOracle(_LastTotals(local, totals, "memory"), binned.bins, y_pm, 3)(d)
    assert totals["dask"].shape[0] >= 4  # (a node of level 2 left unsplit: 6 leaves at level 3)
    np.testing.assert_array_equal(totals["dask"], totals["memory"])  # each leaf's sum over its examples
    for field in ("feature", "threshold", "left", "right", "value", "missing_left"):
        np.testing.assert_array_equal(getattr(tree, field), getattr(ref, field), err_msg=field)
    np.testing.assert_array_equal(pred.compute(), ref_pred)
