"""The block memory of the cluster fits (``marginboost.dask._block_memory``): freed blocks come back
to the next array of their size, cleared for ``numpy.zeros``; the cache keeps at most its limit;
the handler is numpy's only inside ``pooled``; and the fits' tasks run in it."""
import numpy as np
import pytest

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:  # numpy < 2
    from numpy.core.multiarray import get_handler_name

pytest.importorskip("dask")
from marginboost.dask import _block_memory as memory  # noqa: E402
from marginboost.dask.base import _close_block_memory, _open_block_memory  # noqa: E402
from marginboost.dask.rows import RowLayout  # noqa: E402
from dask_cluster import client  # noqa: E402,F401 (the fixture)

BIG = memory.MIN_BYTES // 8 + 1000  # doubles: a block the cache takes


def address(a):
    return a.__array_interface__["data"][0]


@pytest.fixture
def fresh_cache():
    saved = memory.limit()
    memory.release()
    yield
    memory.limit(saved)
    memory.release()


def test_a_freed_block_serves_the_next_array_of_its_size(fresh_cache):
    with memory.pooled():
        a = np.arange(BIG, dtype=np.float64)
        where = address(a)
        del a
        assert memory.stats()["cached_blocks"] == 1
        hits = memory.stats()["hits"]
        b = np.empty(BIG - 100)  # within 5/4 of the block: the same block
        assert address(b) == where and memory.stats()["hits"] == hits + 1
        b[:] = 7.0
        del b
        z = np.zeros(BIG)
        assert address(z) == where and not z.any()  # calloc clears a reused block
        del z
        small = np.empty(BIG // 2)  # less than 4/5 of the block: not this one
        assert address(small) != where
    assert memory.stats()["cached_blocks"] >= 1


def test_the_cache_keeps_at_most_its_limit(fresh_cache):
    memory.limit(3 * BIG * 8)
    with memory.pooled():
        arrays = [np.ones(BIG) for _ in range(5)]
        del arrays
    assert memory.stats()["cached_blocks"] == 3 and memory.stats()["cached_bytes"] <= 3 * BIG * 8
    assert memory.release() == 3 * BIG * 8 and memory.stats()["cached_bytes"] == 0
    memory.limit(0)
    with memory.pooled():
        del_me = np.ones(BIG)
        del del_me
    assert memory.stats()["cached_blocks"] == 0
    with pytest.raises(ValueError, match="nbytes must be >= 0"):
        memory.limit(-1)


def test_the_handler_is_numpy_s_inside_pooled_only(fresh_cache):
    name = get_handler_name
    outside = name()
    with memory.pooled():
        assert name() == "marginboost_block_memory"
        with memory.pooled():
            assert name() == "marginboost_block_memory"
        a = np.ones(BIG)
        assert name(a) == "marginboost_block_memory"
    assert name() == outside
    del a  # freed through its own handler, outside the block
    assert memory.stats()["cached_blocks"] == 1


def test_the_tasks_of_a_cluster_fit_use_it(client):
    client.run(_open_block_memory)
    before = client.run(memory.stats)
    layout = RowLayout(client, [0, BIG, 2 * BIG])
    v = layout.full(1.0)
    for _ in range(4):
        v = v * 2.0 + 1.0  # each step's blocks replace the last's, freed on the workers
    assert v.max() == 31.0
    after = client.run(memory.stats)
    assert sum(after[w]["hits"] - before[w]["hits"] for w in after) > 0
    client.run(_close_block_memory)
    assert all(s["cached_blocks"] == 0 for s in client.run(memory.stats).values())
