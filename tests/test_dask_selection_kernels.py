"""The compiled passes of the distributed selection (``marginboost.dask._selection``) against numpy.

``interval_sums``: per interval between consecutive pivots, the count, mass, ``sum s q``, ``sum s
exp(-eta (q - pivot))`` and the ties at the pivot, over margins with and without ties, weights,
spreads that defeat the pivots' lookup table, the hinted first step over (-inf, inf), and the sums
of the margins outside a window;
``distinct_sums``: the distinct values and their summed weights, as ``np.unique`` and ``bincount``,
and with a line search's direction its sums per value, from which the line search's sums of
``kl_block`` follow (``selection._sums_along``);
``free_running_sum`` and ``picked_free_rows`` (the Newton rule's Hessian sample): the free
examples' running sum, the bits of numpy's ``cumsum``, and the rows where it passes the sample's
points, numpy's ``searchsorted``.
"""
import numpy as np
import pytest

pytest.importorskip("dask")
from marginboost.dask._selection import distinct_sums, interval_sums, kl_block, kl_d_few  # noqa: E402


def reference_sums(q, s, lo, hi, pivots, eta):
    inside = (q >= lo) & (q < hi)
    qa = q[inside]
    sa = np.ones(qa.shape[0]) if s is None else s[inside]
    b = np.searchsorted(pivots, qa, side="right") - 1
    width = pivots.shape[0]
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.bincount(b, sa * np.exp(-eta * (qa - pivots[b])), width)
    tie = qa == pivots[b]
    return (qa, np.bincount(b, minlength=width), np.bincount(b, sa, width), np.bincount(b, sa * qa, width), e,
            np.bincount(b[tie], minlength=width), np.bincount(b[tie], sa[tie], width),
            np.bincount(b[tie], (sa * qa)[tie], width))


def margins(rng, kind, n):
    if kind == "normal":
        return rng.standard_normal(n)
    if kind == "rounded":
        return np.round(rng.standard_normal(n), 1)
    if kind == "spread":  # a few margins a million times the rest: the table's cells are too coarse
        return np.concatenate([rng.standard_normal(n - n // 50), rng.standard_normal(n // 50) * 1e6])
    return rng.integers(0, 6, n) * 0.3  # a few values: heavy ties


@pytest.mark.parametrize("kind", ["normal", "rounded", "spread", "few"])
def test_interval_sums_equal_numpy(kind):
    rng = np.random.default_rng(len(kind))
    for trial in range(60):
        n = int(rng.integers(0, 5000))
        q = margins(rng, kind, n)
        s = rng.exponential(size=n) if trial % 2 else None
        pivots = np.unique(rng.choice(q, min(int(rng.integers(1, 300)), n))) if n else np.array([0.0])
        if trial % 3 == 0:  # a hinted first step
            pivots, lo, hi = np.concatenate([[-np.inf], pivots]), -np.inf, np.inf
        else:
            lo, hi = pivots[0], (np.inf if trial % 5 == 0 else pivots[-1] + 1.0)
        eta = (1.0, 30.0, 3000.0)[trial % 3]
        got = interval_sums(q, s, lo, hi, pivots, eta, True, outside=trial % 3 != 0)
        want = reference_sums(q, s, lo, hi, pivots, eta)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[2], want[1])  # counts
        np.testing.assert_array_equal(got[6], want[5])  # ties' counts
        for g, w in zip(got[3:6] + got[7:9], want[2:5] + want[6:], strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-300)
        if s is None:
            assert got[1] is None
        if trial % 3 == 0:
            assert got[9] is None
        else:  # the window's outside: count, mass and sum s q below lo; S at hi from hi on
            w_all = np.ones(n) if s is None else s
            below, above = q < lo, q >= hi
            with np.errstate(over="ignore"):
                want_e = float(np.sum(w_all[above] * np.exp(-eta * (q[above] - hi))))
            assert got[9][0] == np.count_nonzero(below)
            np.testing.assert_allclose(got[9][1:], (w_all[below].sum(), (w_all * q)[below].sum(), want_e),
                                       rtol=1e-12, atol=1e-300)


def test_kl_block_equals_numpy():
    rng = np.random.default_rng(5)
    q, s, delta = rng.standard_normal(3000), rng.exponential(size=3000), rng.standard_normal(3000)
    tau, scale, nu, eta = 0.3, 0.01, 300.0, 40.0
    d, sums = kl_block(q, s, tau, scale, nu, eta, delta)
    want = np.where(q < tau, s / nu, s * scale * np.exp(-eta * (q - tau)))
    np.testing.assert_allclose(d, want, rtol=1e-14)
    free = want < (s / nu) * (1 - 1e-12)
    np.testing.assert_allclose(sums, (want @ delta, (want * delta)[free] @ delta[free], (want * delta)[free].sum(),
                                      want[free].sum()), rtol=1e-12)
    assert kl_block(q, None, tau, scale, nu, eta, None)[1] is None


@pytest.mark.parametrize("weighted", [False, True])
def test_kl_d_by_the_values_is_kl_block_s_d_bit_for_bit(weighted):
    """Capped below tau, free from it on, every example capped (tau = inf), exponents below
    exp_into_c's range (libm's there), 0.0 and -0.0; None for more values than the limit and for
    NaN margins."""
    rng = np.random.default_rng(13)
    n = 30011
    q = rng.integers(-40, 40, n) * 0.37
    q[::7] = 0.0
    q[1::7] = -0.0
    s = rng.exponential(size=n) if weighted else None
    for tau, scale, eta in ((1.11, 1e-5, 3.0), (0.0, 2e-6, 1.0), (np.inf, 0.0, 3.0), (-3.7, 1e-4, 90.0)):
        want = kl_block(q, s, tau, scale, 3000.0, eta, None)[0]
        np.testing.assert_array_equal(kl_d_few(q, s, tau, scale, 3000.0, eta, 100), want)
    assert kl_d_few(q, s, 1.11, 1e-5, 3000.0, 3.0, 50) is None  # 80 values
    q_nan = q.copy()
    q_nan[100] = np.nan
    assert kl_d_few(q_nan, s, 1.11, 1e-5, 3000.0, 3.0, 100) is None


@pytest.mark.parametrize("weighted", [False, True])
def test_distinct_sums_equal_unique_and_bincount(weighted):
    rng = np.random.default_rng(7)
    for q in (rng.integers(0, 200, 20000) * 0.37, np.round(rng.standard_normal(5000), 2), np.array([0.0, -0.0, 1.0]),
              np.zeros(0)):
        s = rng.random(q.shape[0]) if weighted else None
        values, masses = distinct_sums(q, s, 1000)
        unique, inverse = np.unique(q, return_inverse=True)
        order = np.argsort(values)
        np.testing.assert_array_equal(values[order], unique)
        np.testing.assert_array_equal(masses[order], np.bincount(inverse.ravel(), weights=s, minlength=unique.shape[0]))
    assert distinct_sums(np.arange(10.0), None, 9) is None  # more distinct values than the limit


@pytest.mark.parametrize("weighted", [False, True])
def test_distinct_sums_along_a_direction(weighted):
    rng = np.random.default_rng(9)
    q = rng.integers(0, 40, 6000) * 0.25
    s = rng.random(q.shape[0]) if weighted else None
    delta = rng.standard_normal(q.shape[0])
    values, masses, sd, sd2 = distinct_sums(q, s, 1000, -np.inf, np.inf, delta)
    unique, inverse = np.unique(q, return_inverse=True)
    order = np.argsort(values)
    w = np.ones(q.shape[0]) if s is None else s
    np.testing.assert_array_equal(values[order], unique)
    np.testing.assert_array_equal(masses[order], np.bincount(inverse, weights=s, minlength=unique.shape[0]))
    np.testing.assert_allclose(sd[order], np.bincount(inverse, weights=w * delta), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sd2[order], np.bincount(inverse, weights=w * delta * delta), rtol=1e-12)
    with pytest.raises(ValueError, match="delta must be as long as q"):
        distinct_sums(q, s, 1000, -np.inf, np.inf, delta[1:])
    # the values of q + lam delta, made in the pass as numpy makes them
    shifted = q + 0.3 * delta
    values, masses, sd, sd2 = distinct_sums(q, s, 10000, -np.inf, np.inf, delta, 0.3)
    unique, inverse = np.unique(shifted, return_inverse=True)
    order = np.argsort(values)
    np.testing.assert_array_equal(values[order], unique)
    np.testing.assert_array_equal(masses[order], np.bincount(inverse, weights=s, minlength=unique.shape[0]))
    with pytest.raises(ValueError, match="lam needs delta"):
        distinct_sums(q, s, 1000, -np.inf, np.inf, None, 0.3)


def test_line_search_sums_from_the_distinct_values_are_kl_block_s():
    """Below the threshold capped, from it on free (each value's d alike), every example capped
    (tau = inf), and a value whose d is within 1e-12 of the cap (not free, as in kl_block)."""
    from marginboost.dask.selection import _sums_along
    rng = np.random.default_rng(10)
    q = rng.integers(0, 30, 5000) * 0.1
    delta = rng.standard_normal(q.shape[0])
    values, masses, sd, sd2 = distinct_sums(q, None, 1000, -np.inf, np.inf, delta)
    order = np.argsort(values)
    along = (values[order], masses[order], sd[order], sd2[order])
    nu, eta = 1000.0, 3.0
    for tau, scale in ((1.2, 1e-3), (0.0, 2e-4), (np.inf, 0.0), (1.5, (1.0 / nu) * (1 - 1e-13))):
        want = kl_block(q, None, tau, scale, nu, eta, delta)[1]
        np.testing.assert_allclose(_sums_along(along, tau, scale, nu, eta), want, rtol=1e-12, atol=1e-15)


def test_distinct_sums_in_an_interval():
    rng = np.random.default_rng(8)
    q = rng.integers(0, 50, 5000) * 0.5
    s = rng.random(q.shape[0])
    lo, hi = 3.0, 11.5
    inside = (q >= lo) & (q < hi)
    values, masses = distinct_sums(q, s, 1000, lo, hi)
    unique, inverse = np.unique(q[inside], return_inverse=True)
    order = np.argsort(values)
    np.testing.assert_array_equal(values[order], unique)  # 3.0 in, 11.5 out
    np.testing.assert_array_equal(masses[order], np.bincount(inverse, weights=s[inside]))
    assert distinct_sums(q, s, 16, lo, hi) is None and distinct_sums(q, s, 17, lo, hi) is not None


def free_mask(d, caps, cap, floor):
    """The free examples (numpy): below their cap by more than 1e-12 of it, above the floor."""
    limit = (caps if caps is not None else cap) * (1.0 - 1e-12)
    return (d < limit) & (d > floor)


@pytest.mark.parametrize("per_example", [False, True])
def test_picked_free_rows_are_numpy_s_systematic_sample(per_example):
    """The old numpy path: mask, flatnonzero, cumsum from the block's start, searchsorted (right)
    clipped to the last free row; with no points every free row."""
    from marginboost.dask._free_rows import picked_free_rows

    rng = np.random.default_rng(12)
    for n in (0, 1, 1000, 50000):
        d = rng.exponential(size=n) * 1e-5
        caps = rng.random(n) * 2e-5 + 1e-6 if per_example else None
        d[: n // 10] = 1.5e-5 if n else d[:0]
        rows = np.flatnonzero(free_mask(d, caps, 1.5e-5, 2e-7))
        np.testing.assert_array_equal(picked_free_rows(d, caps, 1.5e-5, 2e-7, 0.37, None), rows)
        cumulative = np.cumsum(np.concatenate([[0.37], d[rows]]))[1:]
        total = cumulative[-1] if rows.size else 0.37
        for points in (np.sort(rng.uniform(0.37, total, 40)), np.array([0.37, total, total + 1.0]), np.zeros(0),
                       cumulative[:5]):  # points equal to a running sum: the next row (right side)
            want = rows[np.minimum(np.searchsorted(cumulative, points, side="right"), rows.size - 1)] \
                if rows.size and points.size else rows[:0]
            np.testing.assert_array_equal(picked_free_rows(d, caps, 1.5e-5, 2e-7, 0.37, points), want)


@pytest.mark.parametrize("per_example", [False, True])
def test_free_running_sum_is_numpy_s_cumsum(per_example):
    from marginboost.dask._free_rows import free_running_sum

    rng = np.random.default_rng(9)
    for n in (0, 1, 1000, 50000):
        d = rng.exponential(size=n) * 1e-5
        caps = rng.random(n) * 2e-5 + 1e-6 if per_example else None
        d[: n // 10] = 1.5e-5 if n else d[:0]  # at the cap: not free
        rows = np.flatnonzero(free_mask(d, caps, 1.5e-5, 2e-7))
        want = float(np.cumsum(np.concatenate([[0.37], d[rows]]))[-1])
        assert free_running_sum(d, caps, 1.5e-5, 2e-7, 0.37) == (rows.size, want)  # bit for bit
