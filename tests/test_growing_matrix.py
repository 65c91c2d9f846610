"""The loops' margin matrix (core.bit_matrix.GrowingMarginMatrix): bits while every column is
+-1, floats from the first other column; and every loop that keeps U fits the same model with
U in bits as with U in floats (issue 17, item 1), up to the products' summation order."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_regression

from marginboost.core import bit_matrix
from marginboost.core.bit_matrix import BitMarginMatrix, GrowingMarginMatrix
from marginboost.core.margin_matrix import MarginMatrix


def test_bits_while_sign_columns_then_floats_with_the_same_indices():
    rng = np.random.default_rng(0)
    m = 13
    signs = rng.choice([-1.0, 1.0], size=(m, 5))
    U = GrowingMarginMatrix(m)
    for k in range(5):
        assert U.add(signs[:, k]) == (k, True)
    assert isinstance(U.matrix, BitMarginMatrix)
    assert U.add(signs[:, 2]) == (2, False)  # merged, still bits
    real = rng.uniform(-1, 1, m)
    assert U.add(real) == (5, True)
    assert isinstance(U.matrix, MarginMatrix)
    assert U.add(signs[:, 3]) == (3, False)  # the index of a column kept across the switch
    dense = np.column_stack([signs, real])
    np.testing.assert_array_equal(U.dense(), dense)
    w, d = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(m))
    np.testing.assert_allclose(U.matvec(w), dense @ w, atol=1e-15)
    np.testing.assert_allclose(U.rmatvec(d), dense.T @ d, atol=1e-15)
    np.testing.assert_array_equal(U.columns([5, 0]), dense[:, [5, 0]])
    U.truncate(2)
    assert U.n == 2 and U.add(real) == (2, True)


@pytest.mark.parametrize("m", [1, 7, 64, 130])
def test_centred_single_precision_blocks_of_both_matrices_equal_the_dense_formula(m):
    """The face Hessian's float32 rows, gathered from bits or from floats: (U[rows, cols] - mean) * scale."""
    rng = np.random.default_rng(m)
    U = rng.choice([-1.0, 1.0], size=(m, 11))
    bits, floats = BitMarginMatrix(m), MarginMatrix(m)
    for j in range(U.shape[1]):
        bits.add(U[:, j])
        floats.add(U[:, j])
    U = bits.dense()  # the distinct columns (at small m some coincide and are stored once)
    np.testing.assert_array_equal(floats.dense(), U)
    rows = np.sort(rng.choice(m, size=max(1, m // 2)))
    cols = np.unique(np.array([0, 3, 4, 10]) % U.shape[1])
    mean, scale = rng.normal(size=cols.size), rng.random(rows.size)
    want = ((U[np.ix_(rows, cols)].T - mean[:, None]) * scale[None, :]).astype(np.float32)
    for matrix in (bits, floats):
        got = matrix.centred_block_t32(rows, cols, mean, scale)
        assert got.dtype == np.float32 and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)
        # the weighted mean it is centred on: the same sum over the rows, in row order
        np.testing.assert_allclose(matrix.weighted_row_sum(rows, cols, scale), U[np.ix_(rows, cols)].T @ scale,
                                   rtol=1e-14, atol=1e-15)
        # both at once, from one read of the bits: the same values as the two calls
        total = scale.sum()
        block, mean_of_rows = matrix.weighted_centred_block_t32(rows, cols, scale, total)
        np.testing.assert_array_equal(mean_of_rows, matrix.weighted_row_sum(rows, cols, scale) / total)
        np.testing.assert_array_equal(block, matrix.centred_block_t32(rows, cols, mean_of_rows, np.sqrt(scale)))
    with pytest.raises(IndexError, match="row index"):
        bits.weighted_row_sum([m], cols, [1.0])


def test_pickle_and_copy_keep_the_columns():
    import copy
    import pickle

    U = GrowingMarginMatrix(5)
    U.add(np.array([1.0, -1.0, 1.0, 1.0, -1.0]))
    for clone in (pickle.loads(pickle.dumps(U)), copy.deepcopy(U)):
        assert isinstance(clone.matrix, BitMarginMatrix) and clone.n == 1
        np.testing.assert_array_equal(clone.dense(), U.dense())
    with pytest.raises(AttributeError):
        U.no_such_attribute


def test_flag_off_keeps_floats(monkeypatch):
    monkeypatch.setattr(bit_matrix, "BIT_PACKED_MARGINS", False)
    U = GrowingMarginMatrix(4)
    U.add(np.array([1.0, -1.0, 1.0, 1.0]))
    assert isinstance(U.matrix, MarginMatrix)


def _binary():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:150, :6], y[:150], X[150:250, :6]


def _fits():
    import marginboost as mb
    from marginboost.functional.fwboost import adaboost_fw
    from marginboost.weak_learners import DecisionStump

    X, y, X_test = _binary()
    y_pm = np.where(y == 1, 1.0, -1.0)

    def estimator(est):
        def fit():
            est.fit(X, y)
            return est.n_iter_, est.decision_function(X_test)
        return fit

    def adaboost_fw_loop():
        res = adaboost_fw(DecisionStump().prepare(X, y_pm), y_pm, 2.0, max_iter=40)
        return res.n_iter, res.weights

    Xr, yr = make_regression(n_samples=80, n_features=3, noise=3.0, random_state=0)

    def fwboost_regressor(variant):  # FWBoost_C's atoms are +-1 stumps, FWBoost_R's real (scaled)
        def fit():
            est = mb.FWBoostRegressor(beta=3.0, max_iter=30, variant=variant).fit(Xr, yr / 50.0)
            return est.n_iter_, est.predict(Xr)
        return fit

    return {
        "fwboost_classifier_away": estimator(mb.FWBoostClassifier(away_steps=True, max_iter=60)),
        "fwboost_classifier_line_search": estimator(mb.FWBoostClassifier(step="line_search", max_iter=60)),
        "totalboost": estimator(mb.TotalBoostClassifier(eps=0.05)),
        "softboost": estimator(mb.SoftBoostClassifier(nu=0.2, eps=0.05)),
        "adaboost_fw_loop": adaboost_fw_loop,
        "fwboost_regressor_C": fwboost_regressor("C"),
        "fwboost_regressor_R": fwboost_regressor("R"),
    }


@pytest.mark.parametrize("name", sorted(_fits()))
def test_loops_fit_the_same_model_with_u_in_bits_or_floats(name, monkeypatch):
    kinds = set()
    add = GrowingMarginMatrix.add

    def spy(self, u):
        out = add(self, u)
        kinds.add(type(self.matrix).__name__)
        return out

    monkeypatch.setattr(GrowingMarginMatrix, "add", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n_bits, out_bits = _fits()[name]()
        used_bits = set(kinds)
        kinds.clear()
        monkeypatch.setattr(bit_matrix, "BIT_PACKED_MARGINS", False)
        n_float, out_float = _fits()[name]()
    assert kinds == {"MarginMatrix"}
    assert used_bits == ({"MarginMatrix"} if name == "fwboost_regressor_R" else {"BitMarginMatrix"})
    assert n_bits == n_float
    np.testing.assert_allclose(out_bits, out_float, rtol=0, atol=1e-10)


def test_try_add_names_the_first_entry_that_is_no_sign_and_leaves_the_matrix_as_it_was():
    """The growing matrix moves to floats on the index try_add returns; add raises with it."""
    rng = np.random.default_rng(1)
    m = 70
    U = BitMarginMatrix(m)
    first = rng.choice([-1.0, 1.0], size=m)
    assert U.try_add(first) == (0, True)
    bad = rng.choice([-1.0, 1.0], size=m)
    bad[[65, 66]] = [0.5, 2.0]
    assert U.try_add(bad) == 65
    assert U.try_add(np.array(["a"] * m)) == 0  # not numeric
    assert U.n == 1 and U.try_add(first) == (0, False)
    np.testing.assert_array_equal(U.dense()[:, 0], first)
    with pytest.raises(ValueError, match="got 0.5 at index 65"):
        U.add(bad)
    with pytest.raises(ValueError, match="dtype <U1"):
        U.add(np.array(["a"] * m))
    with pytest.raises(ValueError, match=r"shape \(70,\)"):
        U.try_add(first[:5])
