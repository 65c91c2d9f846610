"""The vectorised exp of the projections against libm's (math.exp), in ulps."""
import math

import numpy as np
import pytest

from marginboost.core.vector_exp import EXP_MAX_ARG, EXP_MIN_ARG, exp_into


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
