"""Categorical features (issue 32, item 2): the sign split of the per-category sums is the exact
edge maximiser and Fisher's sorted-means cut the exact least-squares split (brute force over every
subset), routing, unknown categories, model files, the estimators' encoding and the bad inputs."""
from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import is_regressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier

import marginboost
from marginboost import (
    AverageMarginBoostClassifier,
    GBMClassifier,
    LPBoostClassifier,
    MLPBoostClassifier,
    describe,
    load_model,
)
from marginboost.estimators.input_data import MAX_CATEGORIES, AllMissingColumnWarning
from marginboost.weak_learners import DecisionStump, EdgeTree, GaussianNaiveBayes, HistogramStump, HistogramTree, Stump
from marginboost.weak_learners.categorical import CategoricalMatrix
from marginboost.weak_learners.regression import LeastSquaresStump, LeastSquaresTree
from marginboost.weak_learners.trees import DecisionTree

STUMPS = [DecisionStump(), HistogramStump()]
TREES = [EdgeTree(max_depth=2), HistogramTree(max_depth=2)]


def _sample(seed: int, m: int, cardinalities, numeric: int = 0, nan_rate: float = 0.2):
    """Columns of codes 0..K-1 (NaN at ``nan_rate``), then ``numeric`` normal columns; labels
    +-1 and a random distribution."""
    rng = np.random.default_rng(seed)
    columns = []
    for K in cardinalities:
        c = rng.integers(0, K, m).astype(float)
        c[rng.random(m) < nan_rate] = np.nan
        columns.append(c)
    columns += [rng.normal(size=m) for _ in range(numeric)]
    X = np.column_stack(columns)
    mask = np.arange(X.shape[1]) < len(cardinalities)
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    d = rng.random(m)
    return CategoricalMatrix(X, mask), y, d / d.sum()


def _bins(column: np.ndarray) -> np.ndarray:
    """Each example's bin: its code, missing values in a bin of their own."""
    K = int(np.nanmax(column)) + 1
    return np.where(np.isnan(column), K, np.nan_to_num(column)).astype(int)


def _subsets(n_bins: int):
    for r in range(n_bins + 1):
        yield from itertools.combinations(range(n_bins), r)


def _brute_stump_edge(X, w) -> float:
    """Max edge over the constants and every stump sending a subset of a column's bins (missing
    one of them) one way, either sign."""
    best = abs(w.sum())
    for j in range(X.shape[1]):
        b = _bins(X[:, j])
        for subset in _subsets(b.max() + 1):
            best = max(best, abs(w @ np.where(np.isin(b, subset), -1.0, 1.0)))
    return best


def _subset_splits(X, rows):
    """The left side (a mask over ``rows``) of every subset split of the node ``rows``, every
    feature, both sides non-empty."""
    for j in range(X.shape[1]):
        b = _bins(X[:, j])[rows]
        for subset in _subsets(_bins(X[:, j]).max() + 1):
            left = np.isin(b, subset)
            if left.any() and not left.all():
                yield left


def _brute_node_score(X, w, rows) -> float:
    """Max of |S(L)| + |S(R)| over every subset split of the node ``rows`` with both sides non-empty."""
    wr = w[rows]
    return max((abs(wr[left].sum()) + abs(wr[~left].sum()) for left in _subset_splits(X, rows)), default=-np.inf)


@pytest.mark.parametrize("learner", STUMPS, ids=repr)
@pytest.mark.parametrize("seed", range(6))
def test_stump_is_the_best_subset_split(learner, seed):
    X, y, d = _sample(seed, 30, [3, 4])
    w = d * y
    h, pred = learner.prepare(X, y)(d)
    assert np.array_equal(pred, h.predict(np.asarray(X)))
    assert w @ pred == pytest.approx(_brute_stump_edge(np.asarray(X), w), abs=1e-12)
    if h.threshold != -np.inf:
        assert h.categories is not None


@pytest.mark.parametrize("learner", TREES, ids=repr)
@pytest.mark.parametrize("seed", range(6))
def test_tree_nodes_are_the_best_subset_splits(learner, seed):
    X, y, d = _sample(seed, 30, [3, 4])
    A = np.asarray(X)
    w = d * y
    h, pred = learner.prepare(X, y)(d)
    assert np.array_equal(pred, h.predict(A))
    assert h.feature[0] >= 0
    # the root's score, and each child's given the root's partition, against every subset
    assert abs(w.sum()) + h.gain[0] == pytest.approx(_brute_node_score(A, w, np.arange(30)), abs=1e-12)
    root_left = np.isin(A[:, h.feature[0]], h.categories[0]) | (np.isnan(A[:, h.feature[0]]) & h.missing_left[0])
    for child, rows in ((h.left[0], np.flatnonzero(root_left)), (h.right[0], np.flatnonzero(~root_left))):
        if h.feature[child] >= 0:
            assert abs(w[rows].sum()) + h.gain[child] == pytest.approx(_brute_node_score(A, w, rows), abs=1e-12)
        else:  # a leaf: only a split of no gain was possible (or none)
            assert _brute_node_score(A, w, rows) <= abs(w[rows].sum()) + 1e-12
    assert w @ pred == pytest.approx(abs(w.sum()) + h.gain.sum(), abs=1e-12)


def _brute_least_squares(X, r, s, rows) -> float:
    """Max of S(L)^2 / W(L) + S(R)^2 / W(R) (S = sum s r, W = sum s) over every subset split of
    the node ``rows`` with both sides non-empty; -inf where none."""
    sr, sw = s[rows] * r[rows], s[rows]
    return max((sr[left].sum() ** 2 / sw[left].sum() + sr[~left].sum() ** 2 / sw[~left].sum()
                for left in _subset_splits(X, rows)), default=-np.inf)


@pytest.mark.parametrize("seed", range(6))
def test_least_squares_stump_is_the_best_subset_split(seed):
    """Fisher's sorted-means cut against every subset: the stump's weighted squared error is the
    least of the constant's and every subset split's."""
    X, _, s = _sample(seed, 30, [3, 4])
    r = np.random.default_rng(seed).normal(size=30)
    h, pred = LeastSquaresStump().prepare(X)(r, s)
    A = np.asarray(X)
    assert np.array_equal(pred, h.predict(A))
    rows = np.arange(30)
    best = max(_brute_least_squares(A, r, s, rows), (s @ r) ** 2 / s.sum())
    assert s @ (r - pred) ** 2 == pytest.approx(s @ r ** 2 - best, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_least_squares_tree_nodes_are_the_best_subset_splits(seed):
    X, _, s = _sample(seed, 30, [3, 4])
    r = np.random.default_rng(seed).normal(size=30)
    A = np.asarray(X)
    h, pred = LeastSquaresTree(max_depth=2).prepare(X)(r, s)
    assert np.array_equal(pred, h.predict(A))

    def node_score(rows):
        return (s[rows] @ r[rows]) ** 2 / s[rows].sum()
    rows = np.arange(30)
    assert node_score(rows) + h.gain[0] == pytest.approx(_brute_least_squares(A, r, s, rows), abs=1e-12)
    left = np.isin(A[:, h.feature[0]], h.categories[0]) | (np.isnan(A[:, h.feature[0]]) & h.missing_left[0])
    for child, rows in ((h.left[0], np.flatnonzero(left)), (h.right[0], np.flatnonzero(~left))):
        if h.feature[child] >= 0:
            assert node_score(rows) + h.gain[child] == pytest.approx(_brute_least_squares(A, r, s, rows), abs=1e-12)
    # the leaves hold the weighted means: the error is the sample's less the gains
    assert s @ (r - pred) ** 2 == pytest.approx(s @ r ** 2 - node_score(np.arange(30)) - h.gain.sum(), abs=1e-12)


@pytest.mark.parametrize("learner", STUMPS, ids=repr)
def test_mixed_stump_takes_the_better_of_numeric_and_categorical(learner):
    for seed in range(8):
        X, y, d = _sample(seed, 40, [4], numeric=2, nan_rate=0.1)
        w = d * y
        h, pred = learner.prepare(X, y)(d)
        numeric, _ = DecisionStump().prepare(np.asarray(X)[:, 1:], y)(d)
        categorical = _brute_stump_edge(np.asarray(X)[:, :1], w)
        assert w @ pred == pytest.approx(max(w @ numeric.predict(np.asarray(X)[:, 1:]), categorical), abs=1e-12)


def test_histogram_equals_exact_on_categorical_data():
    for seed in range(5):
        X, y, d = _sample(seed, 50, [5, 3], numeric=1)
        for exact, hist in zip(STUMPS[:1] + TREES[:1], STUMPS[1:] + TREES[1:]):
            _, a = exact.prepare(X, y)(d)
            _, b = hist.prepare(X, y)(d)
            assert np.array_equal(a, b)


def test_routing_of_categories_missing_and_unknown_codes():
    X = np.array([[0.0], [1.0], [2.0], [np.nan], [7.0]])
    h = Stump(0, 0.0, 1.0, missing_left=True, categories=(0, 2))
    assert h.predict(X).tolist() == [-1, 1, -1, -1, 1]
    assert Stump(0, 0.0, 1.0, False, (0, 2)).predict(X).tolist() == [-1, 1, -1, 1, 1]
    tree = DecisionTree(feature=np.array([0, -1, -1]), threshold=np.zeros(3), left=np.array([1, -1, -1]),
                        right=np.array([2, -1, -1]), value=np.array([0.0, 1.0, -1.0]), n_features=1,
                        missing_left=np.array([True, False, False]), categories=((1,), None, None))
    assert tree.predict(X).tolist() == [-1, 1, -1, 1, -1]


def _frame(seed: int = 0, m: int = 200):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey"], m).astype(object)
    size = rng.choice([3, 7, 11], m)
    x = rng.normal(size=m)
    y = np.where(np.isin(colour, ["red", "blue"]) ^ (x > 1.0), 1, 0)
    colour[rng.random(m) < 0.1] = None
    return pd.DataFrame({"colour": pd.Categorical(colour), "x": x, "size": pd.Categorical(size)}), y


@pytest.mark.parametrize("make", [lambda: MLPBoostClassifier(max_iter=30),
                                  lambda: MLPBoostClassifier(weak_learner="hist_tree", max_iter=30),
                                  lambda: LPBoostClassifier(weak_learner="stump", max_iter=30),
                                  lambda: GBMClassifier(max_iter=30),
                                  lambda: GBMClassifier(weak_learner="stump", max_iter=30, subsample=0.5,
                                                        random_state=0)],
                         ids=["mlpboost-tree", "mlpboost-hist_tree", "lpboost-stump", "gbm-tree", "gbm-stump"])
def test_dataframe_with_category_columns(make, tmp_path):
    X, y = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = make().fit(X, y)
    assert est.feature_categories_ == (("blue", "green", "grey", "red"), None, (3, 7, 11))
    assert est.is_categorical_.tolist() == [True, False, True]
    assert any(getattr(h, "categories", None) is not None for h in est.hypotheses_)
    if est.weak_learner in ("tree", "hist_tree"):
        assert est.score(X, y) > 0.9  # a tenth of the colours missing: the labels of some are a guess
    # an unseen category and a missing value are predicted alike (the split's missing-value rule)
    unseen = X.copy()
    unseen["colour"] = unseen["colour"].cat.add_categories(["purple"])
    unseen.loc[:9, "colour"] = "purple"
    missing = X.copy()
    missing.loc[:9, "colour"] = None
    assert np.array_equal(est.decision_function(unseen), est.decision_function(missing))
    path = tmp_path / "model.json"
    est.save(path)
    doc = json.loads(path.read_text())
    assert doc["feature_categories"] == [["blue", "green", "grey", "red"], None, [3, 7, 11]]
    loaded = load_model(path)
    assert np.array_equal(loaded.decision_function(X), est.decision_function(X))
    assert np.array_equal(loaded.decision_function(unseen), est.decision_function(unseen))
    assert "colour in {" in describe(loaded) or "size in {" in describe(loaded)


def test_multiclass_and_declared_columns():
    X, _ = _frame(1)
    y = np.random.default_rng(1).integers(0, 3, len(X))
    plain = X.assign(colour=X["colour"].astype(object), size=X["size"].astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        by_dtype = LPBoostClassifier(max_iter=10).fit(X, y)
        by_name = LPBoostClassifier(max_iter=10, categorical_features=["colour", "size"]).fit(plain, y)
        by_index = LPBoostClassifier(max_iter=10, categorical_features=[0, -1]).fit(plain, y)
        by_mask = LPBoostClassifier(max_iter=10, categorical_features=[True, False, True]).fit(plain, y)
    expected = by_dtype.decision_function(X)
    for est in (by_name, by_index, by_mask):
        assert np.array_equal(est.decision_function(plain), expected)
    assert any(getattr(h, "categories", None) is not None for m in by_dtype.estimators_ for h in m.hypotheses_)


def test_numpy_array_with_declared_columns():
    X, y = _frame(2)
    A = np.column_stack([X["size"].astype(int), X["x"]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = MLPBoostClassifier(max_iter=10, categorical_features=[0]).fit(A, y)
        frame = MLPBoostClassifier(max_iter=10).fit(X[["size", "x"]], y)
    assert est.feature_categories_ == ((3, 7, 11), None)
    assert np.array_equal(est.decision_function(A), frame.decision_function(X[["size", "x"]]))
    A[0, 0] = 5  # unknown: as missing
    B = A.copy()
    B[0, 0] = np.nan
    assert np.array_equal(est.decision_function(A), est.decision_function(B))


def test_describe_names_categories_by_value():
    X, y = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = MLPBoostClassifier(weak_learner="stump", max_iter=5).fit(X[["colour"]], y)
    h = est.hypotheses_[0]
    names = sorted(est.feature_categories_[0][c] for c in h.categories)
    assert f"colour in {{{', '.join(names)}}}" in describe(est)


def test_model_file_of_format_5_still_loads():
    # files of format 5 and older hold no categories: their splits stay numeric
    from marginboost.io.model_codecs import decode_hypothesis
    h = decode_hypothesis({"type": "stump", "feature": 0, "threshold": 0.5, "sign": 1, "missing_left": False}, 1)
    assert h.categories is None


# --------------------------------------------------------------------------- bad input


def test_object_column_not_declared_is_refused_naming_it():
    X, y = _frame()
    with pytest.raises(ValueError, match=r"'colour' \(dtype object\)"):
        MLPBoostClassifier(max_iter=2).fit(X.assign(colour=X["colour"].astype(object)), y)


def test_too_many_categories():
    m = MAX_CATEGORIES + 1
    X = pd.DataFrame({"id": pd.Categorical([f"c{i}" for i in range(m)])})
    with pytest.raises(ValueError, match=rf"categorical column 'id' has {m} categories, more than the 255 allowed"):
        MLPBoostClassifier(max_iter=2).fit(X, np.arange(m) % 2)


def test_category_at_fit_plain_at_predict():
    X, y = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = MLPBoostClassifier(max_iter=3).fit(X, y)
    with pytest.raises(ValueError, match=r"column 'colour' was of pandas dtype 'category' at fit"):
        est.predict(X.assign(colour=X["colour"].astype(object)))


def test_categories_must_be_strings_or_integers():
    X = pd.DataFrame({"f": pd.Categorical([0.5, 1.5, 0.5, 1.5])})
    with pytest.raises(ValueError, match=r"column 'f' has the category 0.5 of type float"):
        MLPBoostClassifier(max_iter=2).fit(X, [0, 1, 0, 1])


@pytest.mark.parametrize("spec, message", [
    ([5], r"indices must be in \[-3, 2\]"),
    (["nope"], r"names \['nope'\] are not columns of X"),
    ([True, False], r"one entry per column of X \(3\), got 2"),
])
def test_bad_categorical_features(spec, message):
    X, y = _frame()
    with pytest.raises(ValueError, match=message):
        MLPBoostClassifier(max_iter=2, categorical_features=spec).fit(X.assign(colour=X["colour"].cat.codes), y)


@pytest.mark.parametrize("est, what", [
    (MLPBoostClassifier(weak_learner=GaussianNaiveBayes()), r"weak_learner=GaussianNaiveBayes\("),
    (MLPBoostClassifier(weak_learner=DecisionTreeClassifier(max_depth=1)), "weak_learner=DecisionTreeClassifier"),
    (AverageMarginBoostClassifier(), "which AverageMarginBoostClassifier cannot take"),
], ids=["naive-bayes", "sklearn", "nzdd"])
def test_learners_without_categories_refuse(est, what):
    X, y = _frame()
    with pytest.raises(ValueError, match=rf"X has categorical features \(columns \[0, 2\].*{what}"):
        est.fit(X, y)


def test_all_missing_categorical_column_warns():
    X, y = _frame()
    X["empty"] = pd.Categorical([None] * len(X), categories=["a"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(AllMissingColumnWarning, match="empty"):
            est = MLPBoostClassifier(max_iter=5).fit(X, y)
    assert est.score(X, y) > 0.9


@pytest.mark.parametrize("name", sorted(n for n in marginboost.__all__ if n.endswith(("Classifier", "Regressor"))))
def test_every_estimator_takes_or_refuses_category_columns(name):
    cls = getattr(marginboost, name)
    X, y = _frame()
    target = y + X["x"].to_numpy() if is_regressor(cls()) else y
    est = cls(max_iter=3)
    learner = est._weak_learner_object()
    if not getattr(learner, "allow_categorical", False):
        with pytest.raises(ValueError, match=rf"{name}: X has categorical features \(columns \[0, 2\]"):
            est.fit(X, target)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, target)
    assert est.is_categorical_.tolist() == [True, False, True]
    assert any(getattr(h, "categories", None) is not None for h in est.hypotheses_)
    unseen = X.assign(colour=X["colour"].cat.add_categories(["purple"]))
    unseen.loc[:9, "colour"] = "purple"
    missing = X.copy()
    missing.loc[:9, "colour"] = None
    assert np.array_equal(est.predict(unseen), est.predict(missing))


def test_hostile_model_file_edits_are_refused(tmp_path):
    from marginboost.io.model_io import ModelFileError, model_from_dict, model_to_dict
    X, y = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        doc = model_to_dict(MLPBoostClassifier(max_iter=5).fit(X, y))
    for bad in ([True, False], [True, True, True], [1, 0, 1]):
        with pytest.raises(ModelFileError, match="field 'is_categorical'"):
            model_from_dict({**doc, "is_categorical": bad})
    tree = next(h for h in doc["hypotheses"] if "categories" in h)
    for bad in ([[1, 1]] + [None] * (len(tree["feature"]) - 1), [[-1]] + [None] * (len(tree["feature"]) - 1), [[0]]):
        with pytest.raises(ModelFileError, match="categories"):
            model_from_dict({**doc, "hypotheses": [{**tree, "categories": bad}]})


def test_command_line_predict_refuses_a_model_of_categorical_features(tmp_path, capsys):
    from marginboost.cli import main
    X, y = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        MLPBoostClassifier(max_iter=3).fit(X, y).save(tmp_path / "m.json")
    X.assign(label=y).to_csv(tmp_path / "d.csv", index=False)
    code = main(["predict", "--data", str(tmp_path / "d.csv"), "--model", str(tmp_path / "m.json")])
    assert code == 2 and "fitted from Python on categorical features" in capsys.readouterr().err
