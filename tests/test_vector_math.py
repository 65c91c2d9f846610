"""The vectorised exp and x ln x of the projections and objectives against libm's and scipy's."""
import math

import numpy as np
import pytest

from scipy.special import xlogy

from marginboost.core.vector_math import EXP_MAX_ARG, EXP_MIN_ARG, exp_into, sum_xlogx


def _ulps(got, want):
    return np.abs(got - want) / np.spacing(want)


def _exp(x):
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    exp_into(x, out, np.empty(x.shape[0], dtype=np.int64))
    return out


@pytest.mark.parametrize("lo, hi", [(EXP_MIN_ARG, EXP_MAX_ARG), (-1.0, 1.0), (-1e-6, 1e-6), (-500.0, 0.0)])
def test_within_one_ulp_of_libm(lo, hi):
    x = np.random.default_rng(0).uniform(lo, hi, 100_000)
    want = np.array([math.exp(v) for v in x])
    assert _ulps(_exp(x), want).max() <= 1.0


def test_edges_of_the_range_reduction_and_of_the_domain():
    # k ln 2 and the points halfway between (where round(x / ln 2) changes), 0, the domain's ends
    k = np.arange(-1021, 1023)
    x = np.concatenate([k * math.log(2.0), (k + 0.5) * math.log(2.0), [0.0, -0.0, 1e-300, EXP_MIN_ARG, EXP_MAX_ARG]])
    x = x[(x >= EXP_MIN_ARG) & (x <= EXP_MAX_ARG)]
    want = np.array([math.exp(v) for v in x])
    got = _exp(x)
    assert np.all(np.isfinite(got)) and np.all(got > 0.0)
    assert _ulps(got, want).max() <= 1.0
    assert _exp(np.zeros(3)).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("n", [0, 1, 3, 17])
def test_short_and_empty_arrays(n):
    x = np.linspace(-3.0, 3.0, n)
    np.testing.assert_allclose(_exp(x), np.exp(x), rtol=3e-16, atol=0.0)


def test_log_within_three_ulps_of_libm_over_the_whole_range():
    """Each entry alone: sum_xlogx([x]) / x is the log it took, for x from 1e-306 to 1e299 (where
    x ln x is finite) and near 1."""
    rng = np.random.default_rng(1)
    x = np.concatenate([np.exp(rng.uniform(-705.0, 690.0, 5000)), rng.uniform(0.5, 2.0, 5000),
                        [1.0, 2.0, 0.5, math.sqrt(2.0), np.nextafter(math.sqrt(2.0), 3.0), 2.2250738585072014e-308]])
    got = np.array([sum_xlogx(np.array([v])) / v for v in x])
    want = np.log(x)
    assert got[x == 1.0].tolist() == [0.0]
    nonzero = want != 0.0
    assert _ulps(got[nonzero], np.abs(want[nonzero]) * np.sign(want[nonzero])).max() <= 3.0


@pytest.mark.parametrize("m", [0, 1, 5, 1023, 1024, 1025, 7400])
def test_sum_equals_scipy_xlogy_on_distributions_with_zeros_and_tiny_entries(m):
    rng = np.random.default_rng(m)
    d = rng.dirichlet(np.full(max(m, 1), 0.3))[:m]
    if m > 4:
        d[::5] = 0.0  # capped-out examples
        d[1] = 5e-324  # subnormal: x ln x = -3.7e-321 is dropped, far below any rounding of the sum
        d[2] = 1e-300
    want = xlogy(d, d).sum()
    got = sum_xlogx(d)
    assert abs(got - want) <= 1e-14 * max(1.0, abs(want))
    assert sum_xlogx(d) == got  # a fixed order: the same sum again


def test_log_minus_against_decimal_logarithms():
    """``ln x - shift`` for x at the scale e^500 (the projection's free mass) to within 2 ulp of the
    difference's own size, where ``math.log(x) - shift`` errs by up to ulp(500) ~ 1e-13."""
    import decimal

    from marginboost.core.vector_math import log_minus

    rng = np.random.default_rng(2)
    worst_plain = 0.0
    for _ in range(300):
        x = math.exp(500.0) * float(rng.uniform(1e-3, 1e4))
        with decimal.localcontext() as ctx:
            ctx.prec = 40
            exact = float(decimal.Decimal(x).ln() - 500)
        assert abs(log_minus(x, 500.0) - exact) <= 4.5e-16 * max(abs(exact), 1.0)
        worst_plain = max(worst_plain, abs((math.log(x) - 500.0) - exact))
    assert worst_plain > 1e-14  # the plain difference does lose those digits
