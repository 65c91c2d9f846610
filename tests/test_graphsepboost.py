"""GraphSepBoost (Alon, Gonen, Hazan, Moran 2023) against brute-force recomputation."""
import itertools
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from marginboost.classic.graphsepboost import aggregate_scores, binarise, code_tables, graphsepboost
from marginboost.estimators.graphsepboost import GraphSepBoostClassifier
from marginboost.weak_learners import DecisionStump, EdgeTree


def _separable(m=60, seed=0):
    """Distinct points, labels from a non-linear rule (so no single stump separates them)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0, 1.0, -1.0)
    return X, y


def _brute_force_distribution(codes, y):
    """d(i) proportional to the number of j with y_j != y_i and the same code so far."""
    m = y.shape[0]
    degree = np.zeros(m)
    for i, j in itertools.combinations(range(m), 2):
        if y[i] != y[j] and np.array_equal(codes[i], codes[j]):
            degree[i] += 1
            degree[j] += 1
    return degree / degree.sum()


@pytest.mark.parametrize("learner", [DecisionStump(), EdgeTree(max_depth=2)])
def test_every_opposite_pair_separated_and_zero_training_error(learner):
    X, y = _separable()
    res = graphsepboost(learner.prepare(X, y), y)
    assert (res.status, res.reason) == ("converged", "separated") and res.history["unseparated_pairs"][-1] == 0
    codes = np.stack([binarise(h.predict(X)) for h in res.hypotheses], axis=1)
    np.testing.assert_array_equal(codes, res.codes)
    for i, j in itertools.product(np.flatnonzero(y > 0), np.flatnonzero(y < 0)):
        assert np.any(codes[i] != codes[j]), (i, j)
    for rule in ("hamming", "positive_match"):
        scores = aggregate_scores(codes, codes[y > 0], codes[y < 0], rule)
        np.testing.assert_array_equal(np.where(scores > 0, 1.0, -1.0), y)
    est = GraphSepBoostClassifier(weak_learner=learner).fit(X, y)
    assert (est.status_, est.stop_reason_) == ("converged", "separated") and est.score(X, y) == 1.0


def test_reweighting_matches_brute_force_and_edges_shrink_by_the_edge():
    X, y = _separable(m=14, seed=1)
    seen = []
    oracle = DecisionStump().prepare(X, y)

    def recording(d):
        seen.append(d.copy())
        return oracle(d)

    res = graphsepboost(recording, y)
    assert (res.status, res.reason) == ("converged", "separated") and len(seen) == res.n_iter >= 2
    codes = np.stack([binarise(h.predict(X)) for h in res.hypotheses], axis=1)
    for t, d in enumerate(seen):
        np.testing.assert_allclose(d, _brute_force_distribution(codes[:, :t], y), atol=1e-15)
    h = res.history
    pairs = [sum(1 for i, j in itertools.combinations(range(14), 2)
                 if y[i] != y[j] and np.array_equal(codes[i, :t], codes[j, :t]))
             for t in range(res.n_iter + 1)]
    np.testing.assert_array_equal(h["unseparated_pairs"], pairs)
    # |E_{t+1}| <= (1 - gamma_t) |E_t| (module docstring)
    assert np.all(h["unseparated_pairs"][1:] <= (1 - h["edge"][1:]) * h["unseparated_pairs"][:-1] + 1e-9)
    np.testing.assert_array_equal(h["round"], np.arange(res.n_iter + 1))


def test_size_limit_refuses_and_can_be_raised():
    X, y = _separable(m=40)
    n_pairs = int((y > 0).sum() * (y < 0).sum())
    with pytest.raises(ValueError, match=f"O\\(m\\^2\\).*max_pairs={n_pairs - 1}"):
        GraphSepBoostClassifier(max_pairs=n_pairs - 1).fit(X, y)
    assert GraphSepBoostClassifier(max_pairs=n_pairs).fit(X, y).stop_reason_ == "separated"


def test_inseparable_duplicates_stop_without_progress():
    X, y = _separable(m=20)
    X = np.vstack([X, X[:1]])
    y = np.append(y, -y[0])
    with pytest.warns(ConvergenceWarning, match="no_progress"):
        est = GraphSepBoostClassifier().fit(X, y)
    assert est.status_ == "no_progress" and est.history_["unseparated_pairs"][-1] >= 1


def test_aggregation_rules_on_unseen_codes():
    pos, neg = np.array([[1, 1, 1]], np.int8), np.array([[-1, -1, 1], [1, -1, -1]], np.int8)
    codes = np.array([[1, 1, 1], [1, 1, -1], [-1, -1, -1], [-1, 1, 1]], np.int8)
    np.testing.assert_array_equal(aggregate_scores(codes, pos, neg, "hamming"), [2, 0, -2, 0])
    np.testing.assert_array_equal(aggregate_scores(codes, pos, neg, "positive_match"), [1, -1, -1, -1])


def test_staged_and_history():
    X, y = _separable(m=50, seed=2)
    est = GraphSepBoostClassifier(weak_learner="stump").fit(X, y)
    staged = list(est.staged_decision_function(X))
    assert len(staged) == est.n_iter_ == len(est.history_["unseparated_pairs"]) - 1
    np.testing.assert_array_equal(staged[-1], est.decision_function(X))
    assert np.all(np.diff(est.history_["unseparated_pairs"]) < 0)
    # the training predictions after round t are right on every example with no edge left
    assert list(est.staged_predict(X))[-1].tolist() == y.tolist()


@pytest.mark.parametrize("params, name", [({"max_depth": 0}, "max_depth"), ({"max_iter": 0}, "max_iter"),
                                          ({"aggregation": "vote"}, "aggregation"),
                                          ({"max_pairs": 0}, "max_pairs"), ({"weak_learner": "x"}, "weak_learner")])
def test_bad_parameters(params, name):
    X, y = _separable(m=20)
    with pytest.raises(ValueError, match=name):
        GraphSepBoostClassifier(**params).fit(X, y)


@parametrize_with_checks([GraphSepBoostClassifier(), GraphSepBoostClassifier(weak_learner="stump",
                                                                             aggregation="positive_match")])
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_warm_start_continues_and_a_finished_fit_stays_finished():
    X, y = _separable(m=50, seed=3)
    est = GraphSepBoostClassifier(weak_learner="stump", max_iter=2, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    assert est.status_ == "max_iter" and est.n_iter_ == 2
    est.set_params(max_iter=1000).fit(X, y)
    ref = GraphSepBoostClassifier(weak_learner="stump").fit(X, y)
    assert est.status_ == ref.status_ == "converged" and est.stop_reason_ == ref.stop_reason_ == "separated" and est.n_iter_ == ref.n_iter_
    for key in ("round", "unseparated_pairs", "edge"):
        np.testing.assert_array_equal(est.history_[key], ref.history_[key])
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))
    est.fit(X, y)  # nothing left to separate: no round added
    assert (est.status_, est.stop_reason_) == ("converged", "separated") and est.n_iter_ == ref.n_iter_


def test_early_stopping_is_refused():
    X, y = _separable(m=30)
    with pytest.raises(ValueError, match="early_stopping is not available for GraphSepBoostClassifier"):
        GraphSepBoostClassifier(early_stopping=True).fit(X, y)


@pytest.mark.parametrize("aggregation", ["positive_match", "hamming"])
@pytest.mark.parametrize("majority", [0, 1])
def test_nothing_separable_predicts_the_majority(aggregation, majority, tmp_path):
    """Issue 33: on constant features (no pair separable) the model predicted +1 (positive match)
    or -1 (Hamming) whatever the counts, the minority class for one of them."""
    y = np.array([majority] * 5 + [1 - majority] * 3)
    X = np.zeros((8, 2))
    with pytest.warns(ConvergenceWarning, match="no_progress"):
        est = GraphSepBoostClassifier(weak_learner="stump", aggregation=aggregation).fit(X, y)
    assert est.status_ == "no_progress"
    np.testing.assert_array_equal(est.predict(X), np.full(8, majority))
    np.testing.assert_array_equal(list(est.staged_predict(X))[-1], est.predict(X))
    est.save(tmp_path / "m.json")
    np.testing.assert_array_equal(GraphSepBoostClassifier.load(tmp_path / "m.json").predict(X), est.predict(X))


def test_a_code_of_both_classes_goes_to_its_majority():
    codes = np.array([[1, 1], [1, 1], [1, 1], [-1, 1], [-1, 1], [1, -1], [1, -1]], dtype=np.int8)
    y = np.array([1, 1, -1, -1, 1, -1, -1])  # [1,1]: 2 pos 1 neg; [-1,1]: a tie, negatives the majority overall
    pos, neg = code_tables(codes, y)
    np.testing.assert_array_equal(pos, [[1, 1]])
    np.testing.assert_array_equal(neg, [[-1, 1], [1, -1]])
    pos, neg = code_tables(codes, -y)  # a tie goes to the class with more examples: now the positive one
    np.testing.assert_array_equal(pos, [[-1, 1], [1, -1]])
    np.testing.assert_array_equal(neg, [[1, 1]])
