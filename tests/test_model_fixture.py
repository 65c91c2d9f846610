"""Behaviour unchanged by restructuring: every estimator and loop refits to the saved model.

The fixture (``tests/data/model_fixture.npz``, written by ``tests/model_fixture.py`` from the
code before the round driver) holds each case's outputs on held-out rows, its weights, its
rounds, its status and its history but the timings. They must agree to 1e-12 (absolute,
relative to the largest entry); the strings and the shapes exactly.
"""
import numpy as np
import pytest

from model_fixture import BLAS_SENSITIVE, CASES, FIXTURE, META_BLAS, blas_kernel

SAVED = np.load(FIXTURE)
NAMES = sorted({key.split("/")[0] for key in SAVED.files if key != META_BLAS})
# History columns renamed since the fixture was saved (one naming scheme across the loops:
# 'step' for the round's step size or coefficient, 'min_margin' for the smallest normalised
# margin): the saved name -> today's, per case. The values must still agree.
RENAMED = {
    "adaboostv": {"history.alpha": "history.step", "history.margin": "history.min_margin"},
    "smoothboost": {"history.margin": "history.min_margin"},
    "graphsepboost": {"history.edges": "history.unseparated_pairs"},
}


def test_every_case_is_in_the_fixture():
    assert sorted(CASES()) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_refit_matches_the_model_before_the_change(name):
    if name in BLAS_SENSITIVE and blas_kernel() != str(SAVED[META_BLAS]):
        pytest.skip(f"{name} was recorded under BLAS {SAVED[META_BLAS]}, this is {blas_kernel()}: its rounds "
                    "depend on the kernel's summation order (model_fixture.BLAS_SENSITIVE)")
    now = CASES()[name]()
    renamed = RENAMED.get(name, {})
    saved = {renamed.get(k, k): SAVED[key] for key in SAVED.files if key.startswith(name + "/")
             for k in [key.split("/", 1)[1]]}
    assert sorted(now) == sorted(saved)
    for key, expected in saved.items():
        got = np.asarray(now[key])
        assert got.shape == expected.shape, key
        if expected.dtype.kind in "US":
            assert got.astype(str).tolist() == expected.tolist(), key
        else:
            scale = max(1.0, float(np.max(np.abs(expected[np.isfinite(expected)]), initial=0.0)))
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * scale, err_msg=key)
