"""The fast ensemble outputs equal every hypothesis' own predict, bit for bit."""
import numpy as np
import pytest

from marginboost.weak_learners.ensemble_outputs import SMALL_TREE, iter_outputs, output_matrix
from marginboost.weak_learners import DecisionStump, DecisionTree, EdgeTree, GaussianNaiveBayes, Stump
from marginboost.weak_learners.regression import (
    LeastSquaresStump,
    LeastSquaresTree,
    RegressionStump,
    RegressionTree,
)


def _hypotheses(X, y, rng):
    """Fitted stumps and trees of every kind and size, constants and lone leaves included."""
    out = [Stump(0, -np.inf, -1.0), RegressionStump(0, -np.inf, 0.3, -2.5),
           DecisionTree(*(np.array([v]) for v in (-1, 0.0, -1, -1, 1.0)), n_features=X.shape[1]),
           RegressionTree(*(np.array([v]) for v in (-1, 0.0, -1, -1, 0.7)), n_features=X.shape[1])]
    m = X.shape[0]
    for learner in (DecisionStump(), EdgeTree(1), EdgeTree(2), EdgeTree(3), EdgeTree(5), GaussianNaiveBayes()):
        oracle = learner.prepare(X, y)
        out += [oracle(rng.dirichlet(np.ones(m)))[0] for _ in range(3)]
    for learner in (LeastSquaresStump(), LeastSquaresTree(2), LeastSquaresTree(3), LeastSquaresTree(6)):
        oracle = learner.prepare(X)
        out += [oracle(rng.normal(size=m), rng.uniform(0.5, 1.5, size=m))[0] for _ in range(3)]
    return out


def test_outputs_equal_predict_bit_for_bit():
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(300, 5)), 1)  # many ties: rows exactly at the thresholds matter
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=300) > 0, 1.0, -1.0)
    hypotheses = _hypotheses(X, y, rng)
    sizes = [np.count_nonzero(h.feature >= 0) for h in hypotheses if isinstance(h, DecisionTree)]
    assert min(sizes) == 0 and max(sizes) > SMALL_TREE  # lone leaves, and trees left to predict
    thresholds = np.unique(np.concatenate([np.atleast_1d(h.threshold) for h in hypotheses if hasattr(h, "threshold")]))
    at_thresholds = thresholds[np.isfinite(thresholds), None] * np.ones((1, 5))  # rows on every cut
    X_new = np.vstack([X, rng.normal(size=(200, 5)), at_thresholds])
    for data in (X, X_new):
        outputs = list(iter_outputs(hypotheses, data))
        for h, out in zip(hypotheses, outputs, strict=True):
            assert out.dtype == np.float64 and out.shape == (data.shape[0],)
            assert np.array_equal(out, h.predict(data)), h
        matrix = output_matrix(hypotheses, data)
        assert matrix.flags.c_contiguous and np.array_equal(matrix, np.column_stack(outputs))


def test_no_hypotheses():
    assert output_matrix([], np.zeros((4, 2))).shape == (4, 0)


def test_a_tree_of_other_width_is_left_to_its_own_checks():
    tree = EdgeTree(2).prepare(np.arange(10.0).reshape(5, 2), np.array([1.0, -1, 1, -1, 1]))(np.full(5, 0.2))[0]
    with pytest.raises(ValueError, match="X must have shape"):
        list(iter_outputs([tree], np.zeros((3, 4))))
