"""The read interface shared by MarginMatrix and BitMarginMatrix, and its use by the soft-margin loop.

The loop holds U of +-1 hypotheses in bits (issue 17) and calls only ``matvec``, ``rmatvec``,
``column``, ``columns``, ``edges``, ``block_t`` and ``dense``: each must agree between the two
classes and with numpy on the dense U (exact products by +-1, so equal up to summation order).
"""
import numpy as np
import pytest

from marginboost.core.bit_matrix import BitMarginMatrix
from marginboost.core.margin_matrix import MarginMatrix, as_margin_matrix
from marginboost.core import bit_matrix
from marginboost.soft_margin import scheme
from marginboost.soft_margin.algorithms import CERLPBOOST, ERLPBOOST, mlpboost, run
from marginboost.soft_margin.fw_rules import ShortStep
from marginboost.soft_margin.objectives import SmoothedSoftMargin, entropy_eta


def both(U):
    bits, floats = BitMarginMatrix(U.shape[0]), MarginMatrix(U.shape[0])
    for j in range(U.shape[1]):
        bits.add(U[:, j])
        floats.add(U[:, j].copy())
    return bits, floats


@pytest.mark.parametrize("m, t", [(1, 1), (9, 7), (64, 9), (301, 40)])
def test_the_two_matrices_read_alike(m, t):
    rng = np.random.default_rng(m + t)
    U = np.where(rng.random((m, t)) < 0.5, -1.0, 1.0)
    U = U[:, np.unique(U, axis=1, return_index=True)[1]]  # distinct columns: both merge duplicates
    t = U.shape[1]
    w, d = rng.dirichlet(np.ones(t)), rng.dirichlet(np.ones(m))
    rows, cols = rng.choice(m, size=min(m, 5), replace=False), np.sort(rng.choice(t, size=min(t, 3), replace=False))
    for matrix in both(U):
        assert matrix.m == m and matrix.n == t
        np.testing.assert_allclose(matrix.matvec(w), U @ w, rtol=0, atol=1e-14)
        np.testing.assert_allclose(matrix.rmatvec(d), U.T @ d, rtol=0, atol=1e-14)
        np.testing.assert_allclose(matrix.edges(d, cols), d @ U[:, cols], rtol=0, atol=1e-14)
        np.testing.assert_array_equal(matrix.column(t - 1), U[:, t - 1])
        np.testing.assert_array_equal(matrix.columns(cols), U[:, cols])
        block = matrix.block_t(rows, cols)
        np.testing.assert_array_equal(block, U[np.ix_(rows, cols)].T)
        assert block.flags.c_contiguous  # the layout the face Hessian hands to dsyrk
        np.testing.assert_array_equal(matrix.block_t(rows, np.arange(t)), U[rows].T)
        np.testing.assert_array_equal(matrix.dense(), U)


def test_from_array_keeps_order_and_duplicates_and_finds_them_again():
    U = np.array([[1.0, -1.0, 1.0], [0.5, 2.0, 0.5]])
    matrix = as_margin_matrix(U)
    assert isinstance(matrix, MarginMatrix) and matrix.n == 3
    np.testing.assert_array_equal(matrix.dense(), U)
    assert matrix.add(U[:, 2].copy()) == (0, False)  # equal to column 0, the first one
    assert as_margin_matrix(matrix) is matrix


@pytest.mark.parametrize("assembly", [ERLPBOOST, CERLPBOOST, mlpboost("pairwise", "newton"), mlpboost()],
                         ids=["erlpboost", "cerlpboost", "pairwise-newton", "mlpboost"])
def test_bits_and_floats_reach_the_same_soft_margin(assembly, monkeypatch):
    """The loop on bits against the loop on floats: the same guarantee, the same optimum to eps
    (the paths may part where rounding flips a tie, so the rounds are not compared)."""
    from marginboost.weak_learners import DecisionStump

    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    y = np.where(X[:, 0] + 0.4 * rng.normal(size=150) > 0, 1.0, -1.0)
    margins = {}
    for bits in (True, False):
        monkeypatch.setattr(bit_matrix, "BIT_PACKED_MARGINS", bits)
        res = run(assembly, DecisionStump().prepare(X, y), y, 15.0, 0.05, max_iter=20000)
        assert res.status == "converged"
        margins[bits] = res.final["soft_margin"]
    assert margins[True] == pytest.approx(margins[False], abs=0.05)


def test_the_loop_holds_signs_in_bits_and_moves_to_floats_for_a_real_valued_hypothesis():
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
    outputs = [np.array([1.0, -1.0, -1.0, -1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0, -1.0, 1.0, -1.0]),
               np.array([0.5, -0.25, 1.0, -1.0, 0.75, 0.1])]
    calls = iter(outputs + [outputs[0]] * 10)
    objective = SmoothedSoftMargin(2.0, entropy_eta(y.shape[0], 2.0, 0.01))
    loop = scheme.SoftMarginLoop(lambda d: ("h", next(calls)), y, objective, 0.01, fw_rule=ShortStep())
    state = loop.step(None, 1).state
    assert isinstance(loop.matrix.matrix, BitMarginMatrix)
    state = loop.step(state, 2).state
    assert isinstance(loop.matrix.matrix, BitMarginMatrix)
    state = loop.step(state, 3).state
    assert isinstance(loop.matrix.matrix, MarginMatrix) and loop.matrix.n == 3
    np.testing.assert_array_equal(loop.matrix.column(2), y * outputs[2])
    np.testing.assert_allclose(state[1], loop.matrix.matvec(state[0]), atol=1e-14)  # q = U w still



def test_an_amortised_newton_rule_skips_while_fw_keeps_up_and_keeps_the_guarantee():
    """NewtonStepRule(amortise=True): skipped when the FW gain is at least its last advantage, at
    most max_skip rounds in a row; the fit still ends within eps of the rule run every round."""
    from marginboost.soft_margin.secondary import NewtonStepRule
    from marginboost.weak_learners import DecisionStump

    rule = NewtonStepRule(amortise=True, max_skip=2)
    rule.start(10, 2.0, SmoothedSoftMargin(2.0, 5.0), 0.1)
    assert not rule.skip_round(1.0)  # nothing observed yet: it runs
    rule.observe(0.01)
    assert [rule.skip_round(0.02), rule.skip_round(0.02), rule.skip_round(0.02)] == [True, True, False]
    assert not rule.skip_round(0.001)  # FW gains less than the rule added: it runs
    assert not NewtonStepRule().skip_round(1.0)  # not amortised: never skips

    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 4))
    y = np.where(X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=200) > 0, 1.0, -1.0)
    margins, updates = {}, {}
    for amortise in (False, True):
        res = run(mlpboost("short_step", NewtonStepRule(amortise=amortise)), DecisionStump().prepare(X, y), y,
                  20.0, 0.05, max_iter=5000)
        assert res.status == "converged"
        margins[amortise] = res.final["soft_margin"]
        updates[amortise] = np.asarray(res.history["update"])
    assert margins[True] == pytest.approx(margins[False], abs=0.05)
    assert np.mean(updates[True][1:-1] == scheme.UPDATE_SECONDARY) < np.mean(updates[False][1:-1] == scheme.UPDATE_SECONDARY)
