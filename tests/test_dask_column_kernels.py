"""The compiled passes over a block's +-1 columns (``marginboost.dask._columns``) against numpy:
``int8_edges`` (``U^T d``) to rounding, its order fixed; ``int8_matvec`` (``U w``) the bits of
numpy's ``out += w_j * c`` in column order. Blocks of sizes around the chunk (4096 rows) and the
lanes (8), no columns, no rows."""
import numpy as np
import pytest

pytest.importorskip("dask")
from marginboost.dask._columns import int8_edges, int8_matvec  # noqa: E402
from marginboost.dask.margin_matrix import _edges_block, _matvec_block  # noqa: E402


@pytest.mark.parametrize("n", [0, 1, 7, 8, 4095, 4097, 20011])
def test_int8_edges_and_matvec_equal_numpy(n):
    rng = np.random.default_rng(n)
    columns = [np.where(rng.random(n) < 0.5, 1, -1).astype(np.int8) for _ in range(5)]
    d, w = rng.random(n), rng.standard_normal(5)
    want = np.array([np.dot(d, c.astype(np.float64)) for c in columns])
    np.testing.assert_allclose(int8_edges(d, columns), want, rtol=1e-12, atol=1e-12)
    assert np.array_equal(int8_edges(d, columns), int8_edges(d.copy(), [c.copy() for c in columns]))
    out = np.zeros(n)
    for c, wj in zip(columns, w):
        out += wj * c
    np.testing.assert_array_equal(int8_matvec(columns, w, n), out)
    assert int8_edges(d, []).shape == (0,)


def test_the_block_passes_take_int8_columns_in_place_and_others_by_numpy():
    rng = np.random.default_rng(3)
    d = rng.random(1000)
    signs = [np.where(rng.random(1000) < 0.5, 1, -1).astype(np.int8) for _ in range(3)]
    real = [rng.standard_normal(1000), signs[0]]  # a real-valued column among them: numpy for all
    edges, top = _edges_block(d, signs)
    np.testing.assert_allclose(edges, [d @ c for c in signs], rtol=1e-12)
    assert top == d.max()
    np.testing.assert_allclose(_edges_block(d, real)[0], [d @ c for c in real], rtol=1e-15)
    np.testing.assert_array_equal(_matvec_block(real, [0.5, -2.0]), 0.5 * real[0] + (-2.0) * signs[0])


def test_length_mismatches_are_errors():
    with pytest.raises(ValueError, match="column 1 has 9 entries, the block 10"):
        int8_edges(np.zeros(10), [np.ones(10, np.int8), np.ones(9, np.int8)])
    with pytest.raises(ValueError, match="2 columns but 1 weights"):
        int8_matvec([np.ones(10, np.int8)] * 2, np.ones(1), 10)
