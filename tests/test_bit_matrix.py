"""BitMarginMatrix (issue 17, item 1) against the float64 MarginMatrix and the dense products.

Two kinds of check. Exact: with integer (or subnormal-integer) weights every partial sum of
both ``U w`` and the dense product is an integer below 2^53, so any order of summation gives the
same float and the bit kernels must match the dense product bit for bit; a wrong table entry, a
wrong sign, a missed or doubled example or column changes some entry, and any change fails.
Rounded: for general floats, both results are sums of the same terms +-w_j (or +-d_i) in
different orders; a summation in which each term passes through at most k roundings is within
gamma_k * sum |terms| of the exact sum (gamma_k = k u / (1 - k u), u = 2^-53; Higham, Accuracy
and Stability, section 4.2). The bit kernels' paths (module docstring) have at most
7 + ceil(t/8) roundings for ``U w`` and ceil(m/4) + 256 for ``U^T d``; any BLAS order has at most
t - 1 or m - 1. The tolerance is the sum of the two bounds, no more. Orders that differ only in
rounding are caught by ``test_summation_order_is_the_documented_one`` (bit for bit against the
documented order).

The tests were checked against 19 deliberate faults in the kernels, each made in the module
and run against this file (every one failed at least one test): one table entry off by a
relative 2^-40, a table missing column 8g+7 or reading a dead column, the U w tail skipping the
last example, a wrong byte for one example of a pair, a wrong partial-sum reload between group
chunks, an off-by-one tile boundary in either kernel, the wrong d for one byte, a histogram
dropped, the histograms or the tail summed in another order (rounding only), a dead column's sum
written, truncate keeping stale bits (with and without the store clearing its bit), NaN or a
last partial byte accepted unchecked, the last partial byte not packed, and duplicates trusted
to the digest.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from marginboost.core.bit_matrix import BitMarginMatrix, GrowingMarginMatrix, is_sign_vector
from marginboost.core.margin_matrix import MarginMatrix

U_ROUND = 2.0 ** -53


def _gamma(k: int) -> float:
    return k * U_ROUND / (1 - k * U_ROUND)


def matvec_atol(w: np.ndarray) -> float:
    t = w.shape[0]
    return (_gamma(7 + math.ceil(t / 8)) + _gamma(max(t - 1, 0))) * float(np.sum(np.abs(w)))


def rmatvec_atol(d: np.ndarray) -> float:
    m = d.shape[0]
    return (_gamma(math.ceil(m / 4) + 256) + _gamma(max(m - 1, 0))) * float(np.sum(np.abs(d)))


def random_columns(rng, m, t):
    return rng.choice([-1.0, 1.0], size=(t, m))


def build(columns, m):
    """The same columns into both matrices; returns (bit, float, the (j, is_new) of each add)."""
    bit, flt = BitMarginMatrix(m), MarginMatrix(m)
    for u in columns:
        got, want = bit.add(u), flt.add(u)
        assert got == want
    return bit, flt


def check_products(bit: BitMarginMatrix, U: np.ndarray, rng):
    m, t = U.shape
    assert bit.shape == (m, t)
    np.testing.assert_array_equal(bit.dense(), U)
    # exact: integer weights, all partial sums exact
    w = rng.integers(-1000, 1001, t).astype(np.float64)
    d = rng.integers(-1000, 1001, m).astype(np.float64)
    np.testing.assert_array_equal(bit.matvec(w), U @ w)
    np.testing.assert_array_equal(bit.rmatvec(d), U.T @ d)
    # rounded: general floats within the proven bound
    w = rng.dirichlet(np.ones(t)) if t > 1 else np.array([0.7])
    d = rng.dirichlet(np.ones(m)) if m > 1 else np.array([0.3])
    np.testing.assert_allclose(bit.matvec(w), U @ w, rtol=0, atol=matvec_atol(w))
    np.testing.assert_allclose(bit.rmatvec(d), U.T @ d, rtol=0, atol=rmatvec_atol(d))
    w = rng.standard_normal(t)
    d = rng.standard_normal(m)
    np.testing.assert_allclose(bit.matvec(w), U @ w, rtol=0, atol=matvec_atol(w))
    np.testing.assert_allclose(bit.rmatvec(d), U.T @ d, rtol=0, atol=rmatvec_atol(d))
    check_sign_gram(bit, U, rng)


def check_sign_gram(bit: BitMarginMatrix, U: np.ndarray, rng):
    """The integer Gram of a row sample: rows repeated, counts around the 64-bit words; columns all,
    a shuffled subset (groups of 8 broken up) and repeated ones."""
    m, t = U.shape
    for n in (1, 63, 64, 65, 3 * m + 1):
        rows = np.sort(rng.integers(0, m, n))
        for cols in (np.arange(t), rng.permutation(t)[: max(1, t // 2)], np.array([t - 1, 0, t - 1])):
            S, s = bit.sign_gram(rows, cols)
            B = U[np.ix_(rows, cols)]
            assert S.dtype == s.dtype == np.int64
            np.testing.assert_array_equal(S, B.T @ B)
            np.testing.assert_array_equal(s, B.sum(axis=0))


# m around the word (8), pair (16) and 64 boundaries; t around the group (8) and 64 boundaries
SMALL_M = [1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 1000]
SMALL_T = [1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 130]


@pytest.mark.parametrize("m", SMALL_M)
@pytest.mark.parametrize("t", SMALL_T)
def test_adversarial_shapes_match_dense(m, t):
    rng = np.random.default_rng(1000 * m + t)
    columns = random_columns(rng, m, t)
    bit, flt = build(columns, m)
    check_products(bit, flt.U, rng)


@pytest.mark.parametrize("m,t", [(5300, 300), (7400, 37), (16437, 137), (8192 * 2 + 16 * 3 + 5, 200)])
def test_random_and_tiled_shapes_match_dense(m, t):
    """Past one tile of examples (2048 in U w, 8192 in U^T d) and one chunk of 16 groups."""
    rng = np.random.default_rng(m + t)
    bit, flt = build(random_columns(rng, m, t), m)
    check_products(bit, flt.U, rng)


def test_m_equals_one():
    bit = BitMarginMatrix(1)
    assert bit.add(np.array([1.0])) == (0, True)
    assert bit.add(np.array([-1.0])) == (1, True)
    assert bit.add(np.array([1])) == (0, False)  # integers +-1 accepted, merged with the float
    np.testing.assert_array_equal(bit.dense(), [[1.0, -1.0]])
    np.testing.assert_array_equal(bit.matvec([0.25, 2.0]), [-1.75])
    np.testing.assert_array_equal(bit.rmatvec([3.0]), [3.0, -3.0])


def test_empty_matrix_products():
    bit = BitMarginMatrix(10)
    np.testing.assert_array_equal(bit.matvec(np.empty(0)), np.zeros(10))
    assert bit.rmatvec(np.ones(10)).shape == (0,)
    assert bit.dense().shape == (10, 0)


def test_structured_columns_match_dense():
    """All-equal bytes (constant columns, repeated patterns: one histogram bin takes every
    example), and every one of the 256 sign patterns of a group (each table entry used)."""
    m = 256 * 3 + 5
    rng = np.random.default_rng(3)
    patterns = np.arange(m) % 256
    cols = [np.where((patterns >> c) & 1, 1.0, -1.0) for c in range(8)]
    cols += [np.ones(m), -np.ones(m), np.where(np.arange(m) % 2, 1.0, -1.0)]
    bit, flt = build(cols, m)
    check_products(bit, flt.U, rng)


def test_duplicates_merged_like_margin_matrix():
    rng = np.random.default_rng(4)
    m = 131
    base = random_columns(rng, m, 20)
    order = rng.integers(0, 20, 200)  # many repeats
    bit, flt = BitMarginMatrix(m), MarginMatrix(m)
    seen = {}
    for q in order:
        got = bit.add(base[q])
        assert got == flt.add(base[q])
        j, is_new = got
        assert is_new == (q not in seen)
        assert seen.setdefault(q, j) == j
    assert bit.n == len(seen)
    negated = -base[order[0]]  # a different column
    assert bit.add(negated) == flt.add(negated) == (len(seen), True)
    want = np.column_stack([base[q] for q in dict.fromkeys(order)] + [negated])
    np.testing.assert_array_equal(flt.U, want)
    check_products(bit, want, rng)


def test_digest_collision_is_checked(monkeypatch):
    """A digest hit with different bits is a new column (the bits are compared, not trusted)."""
    import marginboost.core.bit_matrix as bm

    class Constant:
        def __init__(self, *args, **kwargs):
            pass

        def digest(self):
            return b"0" * 16

    bit = BitMarginMatrix(9)
    monkeypatch.setattr(bm.hashlib, "blake2b", Constant)
    u, v = np.ones(9), -np.ones(9)
    assert bit.add(u) == (0, True)
    assert bit.add(v) == (1, True)
    np.testing.assert_array_equal(bit.dense(), np.column_stack([u, v]))


def test_truncate_then_add():
    rng = np.random.default_rng(5)
    m = 77
    cols = random_columns(rng, m, 21)
    bit, flt = build(cols, m)
    for matrix in (bit, flt):
        matrix.truncate(11)  # inside group 1: bits of columns 11..15 stay behind, stale
        matrix.truncate(30)  # no-op
    assert bit.n == 11
    np.testing.assert_array_equal(bit.dense(), cols[:11].T)
    fresh, _ = build(cols[:11], m)
    w, d = rng.standard_normal(11), rng.standard_normal(m)
    # stale bits are invisible: bit for bit the products of a matrix that never had them
    assert bit.matvec(w).tobytes() == fresh.matvec(w).tobytes()
    assert bit.rmatvec(d).tobytes() == fresh.rmatvec(d).tobytes()
    # a truncated column is forgotten: new again, at the next free index
    assert bit.add(cols[15]) == flt.add(cols[15]) == (11, True)
    assert bit.add(cols[3]) == (3, False)
    new = -cols[12]  # overwrites the slot of stale column 12 with other bits
    assert bit.add(new) == flt.add(new) == (12, True)
    for u in random_columns(rng, m, 10):  # grows past the old size again
        assert bit.add(u) == flt.add(u)
    check_products(bit, flt.U, rng)
    bit.truncate(0)
    assert bit.n == 0 and bit.add(cols[0]) == (0, True)


@pytest.mark.parametrize("bad,what", [
    (0.0, "0.0"), (0.5, "0.5"), (2.0, "2.0"), (-1.0000000000000002, "-1.0000000000000002"),
    (np.nan, "nan"), (np.inf, "inf"), (-np.inf, "-inf")])
@pytest.mark.parametrize("where", [0, 8, 12])
def test_non_sign_entries_refused(bad, what, where):
    bit = BitMarginMatrix(13)
    bit.add(np.ones(13))
    u = -np.ones(13)
    u[where] = bad
    with pytest.raises(ValueError, match=rf"only -1 and \+1, got {what} at index {where}"):
        bit.add(u)
    assert bit.n == 1  # unchanged
    assert bit.add(-np.ones(13)) == (1, True)
    np.testing.assert_array_equal(bit.dense(), np.column_stack([np.ones(13), -np.ones(13)]))


def test_bad_shapes_and_dtypes_refused():
    bit = BitMarginMatrix(4)
    with pytest.raises(ValueError, match=r"shape \(4,\), got \(5,\)"):
        bit.add(np.ones(5))
    with pytest.raises(ValueError, match=r"shape \(4,\), got \(4, 1\)"):
        bit.add(np.ones((4, 1)))
    with pytest.raises(ValueError, match="dtype complex128"):
        bit.add(np.ones(4, dtype=complex))
    with pytest.raises(ValueError, match="got False at index 1"):
        bit.add(np.array([True, False, True, True]))
    bit.add(np.ones(4))
    with pytest.raises(ValueError, match=r"w must have shape \(1,\)"):
        bit.matvec(np.ones(2))
    with pytest.raises(ValueError, match=r"d must have shape \(4,\)"):
        bit.rmatvec(np.ones(3))
    with pytest.raises(IndexError):
        bit.column(1)
    with pytest.raises(ValueError, match="at least 1"):
        BitMarginMatrix(0)


def test_extreme_weights():
    rng = np.random.default_rng(6)
    m, t = 203, 71
    bit, flt = build(random_columns(rng, m, t), m)
    U = flt.U
    # magnitudes from 2^-1000 to 2^1000 (sums stay finite): within the bound of sum |w|
    w = rng.choice([-1, 1], t) * 2.0 ** rng.integers(-1000, 1000, t) * rng.uniform(1, 2, t)
    d = rng.choice([-1, 1], m) * 2.0 ** rng.integers(-1000, 1000, m) * rng.uniform(1, 2, m)
    np.testing.assert_allclose(bit.matvec(w), U @ w, rtol=0, atol=matvec_atol(w))
    np.testing.assert_allclose(bit.rmatvec(d), U.T @ d, rtol=0, atol=rmatvec_atol(d))
    # tiny beside huge: the tiny ones vanish in the rounding of either order, within the bound
    w = np.where(np.arange(t) % 2, 2.0 ** 900 * rng.integers(-100, 101, t), 1e-300)
    np.testing.assert_allclose(bit.matvec(w), U @ w, rtol=0, atol=matvec_atol(w))
    # subnormal weights: integer multiples of 2^-1074, every sum exact
    tiny = 2.0 ** -1074
    w = rng.integers(-1000, 1001, t) * tiny
    d = rng.integers(-1000, 1001, m) * tiny
    assert np.all(np.abs(w[w != 0]) < np.finfo(float).tiny)
    np.testing.assert_array_equal(bit.matvec(w), U @ w)
    np.testing.assert_array_equal(bit.rmatvec(d), U.T @ d)
    # near the top of the range, overflow to +-inf and exact cancellation as the dense product
    w = np.zeros(t)
    w[:2] = np.finfo(float).max
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(bit.matvec(w), U @ w)
    w[1] = np.nan
    assert np.all(np.isnan(bit.matvec(w)))


def test_deterministic_bit_for_bit():
    """Same input, same bits: repeated calls and a matrix with another history of adds and
    truncations (and so another capacity and stale bits) give identical results."""
    rng = np.random.default_rng(7)
    m, t = 3001, 45
    cols = random_columns(rng, m, t)
    a, _ = build(cols, m)
    b = BitMarginMatrix(m)
    for u in random_columns(rng, m, 60):
        b.add(u)
    b.truncate(0)
    for u in cols:
        b.add(u)
    w, d = rng.standard_normal(t), rng.standard_normal(m)
    ref_w, ref_d = a.matvec(w).tobytes(), a.rmatvec(d).tobytes()
    for _ in range(3):
        assert a.matvec(w).tobytes() == ref_w and b.matvec(w).tobytes() == ref_w
        assert a.rmatvec(d).tobytes() == ref_d and b.rmatvec(d).tobytes() == ref_d
    out = np.full(m, np.nan)
    assert a.matvec(w, out=out) is out and out.tobytes() == ref_w


@pytest.mark.parametrize("rows", ["random", "few patterns"])
def test_summation_order_is_the_documented_one(rows):
    """U w and U^T d equal the module docstring's order evaluated in Python, bit for bit.
    With rows drawn from 6 patterns, every histogram bin holds many examples, so that an
    example summed into another bin or histogram (a rounding-only change) shows."""
    rng = np.random.default_rng(8)
    m, t = 61, 19  # 61 = 3 * 16 + 13: tails of both kernels
    if rows == "random":
        columns = random_columns(rng, m, t)
    else:
        patterns = random_columns(rng, t, 6)  # 6 rows of length t
        columns = patterns[rng.integers(0, 6, m)].T
    bit, flt = build(columns, m)
    U = flt.U
    t = U.shape[1]
    w = rng.standard_normal(t) * 10.0 ** rng.integers(-8, 8, t)
    want = np.empty(m)
    for i in range(m):
        s = 0.0
        for g in range(0, t, 8):
            tg = 0.0
            for j in range(g, min(g + 8, t)):
                tg = tg + w[j] if U[i, j] > 0 else tg - w[j]
            s += tg
        want[i] = s
    assert bit.matvec(w).tobytes() == want.tobytes()
    d = rng.standard_normal(m) * 10.0 ** rng.integers(-8, 8, m)
    want = np.empty(t)
    for j in range(t):
        g, c = divmod(j, 8)
        H = np.zeros((4, 256))
        for i in range(m):
            b = sum(int(U[i, 8 * g + q] > 0) << q for q in range(min(8, t - 8 * g)))
            H[i % 4, b] += d[i]
        s = 0.0
        for b in range(256):
            v = (H[0, b] + H[1, b]) + (H[2, b] + H[3, b])
            s = s + v if (b >> c) & 1 else s - v
        want[j] = s
    assert bit.rmatvec(d).tobytes() == want.tobytes()


def test_columns_and_conversion():
    rng = np.random.default_rng(9)
    m = 50
    bit, flt = build(random_columns(rng, m, 13), m)
    np.testing.assert_array_equal(bit.columns([12, 0, 5]), flt.U[:, [12, 0, 5]])
    np.testing.assert_array_equal(bit.column(9), flt.U[:, 9])
    rows, cols = rng.integers(0, m, 23), [7, 0, 12, 7]
    block = bit.block(rows, cols)
    np.testing.assert_array_equal(block, flt.U[np.ix_(rows, cols)])
    assert block.flags.f_contiguous and block.T.flags.c_contiguous
    assert bit.block([], [1]).shape == (0, 1) and bit.block([3], []).shape == (1, 0)
    for rows, cols in (([m], [0]), ([-1], [0]), ([0, 2, m + 9], [0]), ([0], [13]), ([0], [-1])):
        with pytest.raises(IndexError):
            bit.block(rows, cols)
    with pytest.raises(IndexError):
        bit.columns([13])
    back = bit.to_margin_matrix()
    assert isinstance(back, MarginMatrix) and back.n == bit.n
    np.testing.assert_array_equal(back.U, flt.U)
    assert back.add(flt.U[:, 4].copy()) == (4, False)


def test_growing_matrix_holds_bits_exactly_for_sign_columns():
    def held(u):
        matrix = GrowingMarginMatrix(len(u))
        matrix.add(u)
        return matrix.matrix

    assert isinstance(held(np.array([1.0, -1.0, 1.0])), BitMarginMatrix)
    assert isinstance(held(np.array([1, -1])), BitMarginMatrix)
    assert isinstance(held(np.array([1.0, 0.5])), MarginMatrix)
    assert isinstance(held(np.array([1.0, 0.0])), MarginMatrix)
    assert isinstance(held(np.array([1.0, np.nan])), MarginMatrix)
    assert GrowingMarginMatrix(7).m == 7
    assert not is_sign_vector(np.ones((2, 2))) and not is_sign_vector(np.array([]))
    with pytest.raises(ValueError, match="one-dimensional"):
        GrowingMarginMatrix(3).add(np.ones((3, 2)))


def test_memory_one_bit_per_entry_and_geometric_growth():
    m, t = 6400, 1000
    bit = BitMarginMatrix(m)
    rng = np.random.default_rng(10)
    reallocations, capacity = 0, bit.nbytes
    for u in random_columns(rng, m, t):
        bit.add(u)
        if bit.nbytes != capacity:
            reallocations, capacity = reallocations + 1, bit.nbytes
    used = m * t // 8
    assert used <= bit.nbytes <= 1.5 * used + 2 * m // 8
    assert reallocations <= 12  # 2 groups growing by half to 125: ~log_1.5(62)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 70), st.integers(0, 2 ** 32 - 1), st.floats(0.0, 0.6))
def test_property_matches_dense_and_margin_matrix(m, t, seed, repeat):
    """Random shapes and add/duplicate/truncate sequences: the same (j, is_new) as MarginMatrix,
    the same dense U, exact integer products and rounded float products within the bound."""
    rng = np.random.default_rng(seed)
    bit, flt = BitMarginMatrix(m), MarginMatrix(m)
    made = []
    for _ in range(t):
        r = rng.random()
        if made and r < repeat:
            u = made[rng.integers(len(made))]
        elif r > 0.97:
            k = int(rng.integers(0, bit.n + 1))
            bit.truncate(k)
            flt.truncate(k)
            continue
        else:
            u = rng.choice([-1.0, 1.0], m)
            made.append(u)
        assert bit.add(u) == flt.add(u)
    assert bit.n == flt.n
    if bit.n:
        check_products(bit, flt.U, rng)
