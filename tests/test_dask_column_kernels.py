"""The compiled passes over a block's +-1 columns (``marginboost.dask._columns``) against numpy:
``int8_edges`` (``U^T d``) to rounding, its order fixed; ``int8_matvec`` (``U w``) the bits of
numpy's ``out += w_j * c`` in column order; ``new_column_sums`` (the new column's edge, int8 form
and short-step sums) against numpy's twelve passes, its digest that of the margin matrix. Blocks
of sizes around the chunk (4096 rows) and the lanes (8), no columns, no rows."""
import numpy as np
import pytest

pytest.importorskip("dask")
from marginboost.dask._columns import int8_edges, int8_matvec, new_column_sums  # noqa: E402
from marginboost.dask.margin_matrix import _digest_block, _edges_block, _matvec_block  # noqa: E402
from marginboost.dask.new_column import new_column_block  # noqa: E402


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


@pytest.mark.parametrize("n", [0, 1, 9, 4097, 20011])
def test_new_column_sums_equal_numpy(n):
    rng = np.random.default_rng(n)
    d, q = rng.random(n), rng.standard_normal(n)
    for u in (np.where(rng.random(n) < 0.5, 1.0, -1.0), np.round(rng.standard_normal(n), 1)):
        edge, codes, short = new_column_sums(u, d, q)
        assert edge == pytest.approx(float(d @ u), rel=1e-12, abs=1e-12)
        signs = bool(np.all(np.abs(u) == 1.0))
        if signs:
            np.testing.assert_array_equal(codes, u.astype(np.int8))
        else:
            assert codes is None
        assert short[0] == pytest.approx(float(d @ (u - q)), rel=1e-12, abs=1e-12)
        assert short[1] == (np.max(np.abs(u - q)) if n else -np.inf)
        assert new_column_sums(u, d, None)[2] is None
        block = new_column_block(u, d, q)
        assert block[1:3] == _digest_block(u)  # the digest the margin matrix compares
    if n:
        q_nan = q.copy()
        q_nan[n // 2] = np.nan
        assert np.isnan(new_column_sums(np.ones(n), d, q_nan)[2][1])  # as numpy's max: NaN shows
    with pytest.raises(ValueError, match="q must be as long as u"):
        new_column_sums(np.ones(n + 1), np.ones(n + 1), np.ones(n + 2))
