"""A readable model: feature_importances_, describe(), `marginboost show`, the margin and importance plots."""
import dataclasses
import json
import sys
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from sklearn.base import is_classifier  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris  # noqa: E402
from sklearn.feature_selection import SelectFromModel  # noqa: E402

import marginboost as mb  # noqa: E402
from marginboost.cli import main  # noqa: E402
from marginboost.core.rounds import Status  # noqa: E402
from marginboost.registry import ESTIMATORS  # noqa: E402
from marginboost.weak_learners import DecisionTree, EdgeTree, HistogramTree, LeastSquaresTree, Stump  # noqa: E402
from marginboost.weak_learners.naive_bayes import GaussianNaiveBayes  # noqa: E402
from marginboost.weak_learners.regression import RegressionStump  # noqa: E402
from marginboost.weak_learners.splits import missing_side, node_shares  # noqa: E402

INF = -np.inf


def _hand(cls, hypotheses, weights=None, p=3, **fitted):
    """An estimator fitted by hand: the given hypotheses and weights, two classes for a classifier."""
    est = cls()
    est.hypotheses_ = list(hypotheses)
    if weights is not None:
        est.weights_ = np.asarray(weights, dtype=np.float64)
    est.n_features_in_ = p
    if is_classifier(est):
        est.classes_ = np.array([0, 1])
    est.n_iter_ = len(hypotheses)
    est.status_ = Status.CONVERGED
    est.stop_reason_ = None
    for name, value in fitted.items():
        setattr(est, name, value)
    return est


def _tree(gain):
    """Root on feature 1 (x1 <= 2), its left child on feature 0 (x0 <= 30), leaves +-1."""
    return DecisionTree(feature=np.array([1, 0, -1, -1, -1]), threshold=np.array([2.0, 30.0, 0, 0, 0]),
                        left=np.array([1, 3, -1, -1, -1]), right=np.array([2, 4, -1, -1, -1]),
                        value=np.array([0.0, 0.0, -1.0, 1.0, -1.0]), n_features=3,
                        gain=None if gain is None else np.asarray(gain, dtype=np.float64))


# --------------------------------------------------------------------------- importances by hand


def test_stump_importances_are_the_weight_shares_of_the_splitting_stumps():
    # the constant (weight 0.2) splits on nothing: the shares are of 0.5 + 0.3
    est = _hand(mb.LPBoostClassifier, [Stump(0, 0.5, 1.0), Stump(2, 1.0, -1.0), Stump(0, INF, 1.0)], [0.5, 0.3, 0.2])
    np.testing.assert_allclose(est.feature_importances_, [0.625, 0.0, 0.375], rtol=0, atol=1e-15)


def test_a_tree_splits_its_weight_by_gain_or_equally_without_gains():
    stump = Stump(2, 0.0, 1.0)
    by_gain = _hand(mb.LPBoostClassifier, [_tree([3.0, 1.0, 0, 0, 0]), stump], [0.6, 0.4])
    np.testing.assert_allclose(by_gain.feature_importances_, [0.6 * 0.25, 0.6 * 0.75, 0.4], rtol=0, atol=1e-15)
    for gain in (None, [0.0, 0.0, 0, 0, 0]):  # no stored gains (an old model file), or all zero: equal shares
        equal = _hand(mb.LPBoostClassifier, [_tree(gain), stump], [0.6, 0.4])
        np.testing.assert_allclose(equal.feature_importances_, [0.3, 0.3, 0.4], rtol=0, atol=1e-15)
    np.testing.assert_allclose(node_shares(_tree([3.0, 1.0, 0, 0, 0])), [0.75, 0.25, 0, 0, 0])


def test_regression_hypotheses_carry_their_weight_times_their_largest_output():
    # GBM: w_j = learning_rate; a_j = 0.1 * 4 and 0.1 * 1; the offset splits on nothing
    est = _hand(mb.GBMRegressor, [RegressionStump(0, 1.0, -2.0, 4.0), RegressionStump(1, 0.0, 1.0, -1.0)],
                offset_=5.0, status_=None)
    np.testing.assert_allclose(est.feature_importances_, [0.8, 0.2, 0.0], rtol=0, atol=1e-15)


def test_graphsepboost_counts_every_code_bit_alike():
    est = _hand(mb.GraphSepBoostClassifier, [Stump(0, 0.0, 1.0), Stump(1, 0.0, 1.0), Stump(1, 2.0, -1.0)], p=2,
                pos_codes_=np.ones((1, 3), dtype=np.int8), neg_codes_=-np.ones((1, 3), dtype=np.int8))
    np.testing.assert_allclose(est.feature_importances_, [1 / 3, 2 / 3], rtol=0, atol=1e-15)


def test_scikit_learn_trees_split_their_weight_by_their_own_importances():
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = mb.LPBoostClassifier(weak_learner=DecisionTreeClassifier(max_depth=2), max_iter=5).fit(X, y)
    shares = [h.estimator.feature_importances_ / h.estimator.feature_importances_.sum() for h in est.hypotheses_]
    np.testing.assert_allclose(est.feature_importances_, est.weights_ @ np.array(shares) / est.weights_.sum(),
                               rtol=1e-12)


def test_no_split_gives_zeros_and_one_vs_rest_averages_the_models_that_split():
    constants = _hand(mb.LPBoostClassifier, [Stump(0, INF, 1.0), Stump(0, INF, -1.0)], [0.7, 0.3])
    assert np.array_equal(constants.feature_importances_, np.zeros(3))
    est = mb.LPBoostClassifier()
    est.estimators_ = [_hand(mb.LPBoostClassifier, [Stump(0, 0.0, 1.0)], [1.0]), constants,
                       _hand(mb.LPBoostClassifier, [Stump(0, 0.0, 1.0), Stump(1, 0.0, 1.0)], [0.5, 0.5])]
    est.classes_, est.n_features_in_ = np.array([0, 1, 2]), 3
    np.testing.assert_allclose(est.feature_importances_, [0.75, 0.25, 0.0], rtol=0, atol=1e-15)


def test_no_importances_before_fit_nor_for_hypotheses_that_test_no_feature():
    assert not hasattr(mb.LPBoostClassifier(), "feature_importances_")
    X, y = load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = mb.LPBoostClassifier(weak_learner=GaussianNaiveBayes(), max_iter=3).fit(X[:80, :3], y[:80])
    assert not hasattr(est, "feature_importances_")
    with pytest.raises(AttributeError, match="LPBoostClassifier has no feature_importances_: a hypothesis of type "
                                             "GaussianNBHypothesis splits on no feature"):
        est.feature_importances_


# --------------------------------------------------------------------------- gains stored at fit time


def _sample(seed=0, m=200, p=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, p))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=m) > 0, 1.0, -1.0)
    d = rng.random(m)
    return X, y, d / d.sum()


@pytest.mark.parametrize("learner", [EdgeTree(max_depth=3), HistogramTree(max_depth=3)])
def test_edge_tree_gains_add_up_to_the_edge_above_the_root(learner):
    """The edge of a tree with leaves sign(S) is |S(root)| + the sum of its splits' gains."""
    X, y, d = _sample()
    tree, pred = learner.prepare(X, y)(d)
    internal = tree.feature >= 0
    assert internal.sum() >= 3 and np.all(tree.gain[internal] >= 0) and np.all(tree.gain[~internal] == 0)
    np.testing.assert_allclose(tree.gain.sum(), d @ (y * pred) - abs(d @ y), rtol=1e-10)


def test_regression_tree_gains_add_up_to_the_decrease_of_the_squared_error():
    X, _, s = _sample(1)
    r = X[:, 0] - 2 * (X[:, 2] > 0.5) + 0.1 * np.random.default_rng(2).normal(size=X.shape[0])
    tree, pred = LeastSquaresTree(max_depth=3).prepare(X)(r, s)
    mean = s @ r / s.sum()
    np.testing.assert_allclose(tree.gain.sum(), s @ (r - mean) ** 2 - s @ (r - pred) ** 2, rtol=1e-10)


def test_model_files_keep_the_gains_and_refuse_negative_ones(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fit of 5 rounds does not converge
        est = mb.MLPBoostClassifier(max_iter=5).fit(X[:120, :6], y[:120])
    path = tmp_path / "m.json"
    est.save(path)
    doc = json.loads(path.read_text())
    assert np.array_equal(mb.load_model(path).hypotheses_[0].gain, est.hypotheses_[0].gain)
    doc["hypotheses"][0]["gain"][0] = -1.0
    path.write_text(json.dumps(doc))
    with pytest.raises(mb.ModelFileError, match="hypothesis 0 gain must hold numbers >= 0"):
        mb.load_model(path)


# --------------------------------------------------------------------------- every estimator


def _frames():
    cancer = load_breast_cancer(as_frame=True)
    diabetes = load_diabetes(as_frame=True)
    return (cancer.data.iloc[:100, :4], cancer.target.iloc[:100]), (diabetes.data.iloc[:100, :4],
                                                                     diabetes.target.iloc[:100])


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_has_names_and_importances_summing_to_one_also_after_load(name, tmp_path):
    (Xc, yc), (Xr, yr) = _frames()
    cls = ESTIMATORS[name]
    X, y = (Xr, yr) if name.endswith("Regressor") else (Xc, yc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(max_iter=5).fit(X, y)
    assert list(est.feature_names_in_) == list(X.columns)
    importances = est.feature_importances_
    assert importances.shape == (X.shape[1],) and np.all(importances >= 0)
    assert importances.sum() == pytest.approx(1.0, abs=1e-12)
    est.save(tmp_path / "model.json")
    loaded = mb.load_model(tmp_path / "model.json")
    np.testing.assert_array_equal(loaded.feature_importances_, importances)
    text = mb.describe(est)
    rules = [line for line in text.splitlines() if " x [" in line or "bit " in line]
    assert rules and rules == [line for line in mb.describe(loaded).splitlines() if " x [" in line or "bit " in line]
    assert "x[0]" not in text and any(f"{column} <= " in text for column in X.columns)


def test_importances_select_features_as_scikit_learn_expects():
    X, y = load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        selector = SelectFromModel(mb.LPBoostClassifier(max_iter=20, weak_learner="stump"), threshold="mean")
        selected = selector.fit(X, y).get_support()
    importances = selector.estimator_.feature_importances_
    assert np.array_equal(selected, importances >= importances.mean())


# --------------------------------------------------------------------------- describe


def _described_lpboost(stump_class=Stump):
    hypotheses = [stump_class(1, 0.8, -1.0), _tree([1.0, 0.5, 0, 0, 0]), Stump(0, INF, 1.0), Stump(2, 1.0, 1.0)]
    return _hand(mb.LPBoostClassifier, hypotheses, [0.5, 0.3, 0.2, 0.0], margin_=0.25, gap_=0.01, nu_=2.0)


def test_describe_a_tiny_vote_exactly():
    est = _described_lpboost()
    assert mb.describe(est, feature_names=["age", "bmi", "bp"]) == "\n".join([
        "LPBoostClassifier(categorical_features='from_dtype', eps=0.01, max_depth=2, max_iter=1000, nu=0.1, "
        "weak_learner='tree')",
        "classes: 0 is -1, 1 is +1",
        "soft margin 0.25 (nu = 2), gap 0.01, n_iter 4, status converged",
        "3 of 4 weights nonzero; rules by weight (3 shown):",
        "  0.5 x [bmi <= 0.8 ? +1 : -1]",
        "  0.3 x [bmi <= 2 ? [age <= 30 ? +1 : -1] : -1]",
        "  0.2 x [+1]",
    ])
    est.feature_names_in_ = np.array(["a", "b", "c"], dtype=object)
    assert mb.describe(est, top=1).splitlines()[4:] == [
        "  0.5 x [b <= 0.8 ? +1 : -1]", "  ... and 2 more rules, carrying 50.0% of the weight"]
    del est.feature_names_in_
    assert mb.describe(est, top=1).splitlines()[4] == "  0.5 x [x[1] <= 0.8 ? +1 : -1]"


def test_describe_a_regressor_with_its_offset_and_a_multiclass_model_per_class():
    gbm = _hand(mb.GBMRegressor, [RegressionStump(1, 0.0, 1.0, -1.0), RegressionStump(0, 1.5, -2.0, 4.0)],
                offset_=5.0, status_=None)
    assert mb.describe(gbm, top=1) == "\n".join([
        "GBMRegressor(categorical_features='from_dtype', leaf_update='mean', learning_rate=0.1, loss='squared', "
        "max_depth=3, max_iter=100, "
        "random_state=None, subsample=1.0, weak_learner='tree')",
        "offset 5, n_iter 2",
        "2 of 2 weights nonzero; rules by weight (1 shown):",
        "  0.1 x [x[0] <= 1.5 ? -2 : +4]",
        "  ... and 1 more rule, carrying 20.0% of the weight",
    ])
    X, y = load_iris(return_X_y=True)
    est = mb.AdaBoostClassifier(max_iter=3, weak_learner="stump").fit(X, y)
    text = mb.describe(est, feature_names=["sl", "sw", "pl", "pw"])
    assert text.splitlines()[1] == "3 classes, one model per class against the rest"
    assert [line for line in text.splitlines() if line.startswith("class")] == [
        "class 0 vs rest:", "class 1 vs rest:", "class 2 vs rest:"]
    assert text.count("margin") == 3 and text.count(" x [") == 9


def test_describe_says_where_missing_values_go_and_names_text_categories():
    @dataclasses.dataclass(frozen=True)
    class StumpWithMissing(Stump):
        missing_left: bool = True

    est = _described_lpboost(StumpWithMissing)
    assert mb.describe(est).splitlines()[4] == "  0.5 x [x[1] <= 0.8 (missing -> left) ? +1 : -1]"
    tree = _tree(None)
    object.__setattr__(tree, "missing_left", np.array([False, True, False, False, False]))
    assert [missing_side(tree, 0), missing_side(tree, 1), missing_side(Stump(0, 1.0, 1.0))] == ["right", "left", "right"]
    assert missing_side(object()) is None  # a hypothesis that records no side
    est = _described_lpboost()
    est.feature_categories_ = (None, ("blue", "green", "red"), None)  # the command line's text encoding
    assert mb.describe(est).splitlines()[4] == "  0.5 x [x[1] in {blue} ? +1 : -1]"


def test_describe_graphsepboost_lists_its_code_bits():
    est = _hand(mb.GraphSepBoostClassifier, [Stump(0, 0.5, 1.0), Stump(1, 2.0, -1.0)], p=2,
                pos_codes_=np.ones((1, 2), dtype=np.int8), neg_codes_=-np.ones((1, 2), dtype=np.int8))
    assert mb.describe(est, top=1).splitlines()[3:] == [
        "2 hypotheses, the bits of the code (no weights):", "  bit 1: [x[0] <= 0.5 ? -1 : +1]", "  ... and 1 more bit"]


def test_a_scikit_learn_regressor_prints_by_name_and_has_no_importances_without_its_largest_output():
    from sklearn.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    est = mb.GBMRegressor(weak_learner=DecisionTreeRegressor(max_depth=1), max_iter=3).fit(X, y)
    assert mb.describe(est).splitlines()[3] == "  0.1 x <DecisionTreeRegressor>"
    assert not hasattr(est, "feature_importances_")
    with pytest.raises(AttributeError, match=r"GBMRegressor has no feature_importances_: the weight a hypothesis "
                                             r"carries, \|w_j\| max\|h_j\|, needs its largest output"):
        est.feature_importances_


@pytest.mark.parametrize("kwargs,match", [
    ({"top": 0}, "top must be an integer >= 1 or None"),
    ({"top": 2.5}, "top must be an integer >= 1 or None"),
    ({"feature_names": ["a", "b"]}, "feature_names must hold one name per feature \\(3\\), got 2"),
])
def test_describe_names_the_bad_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mb.describe(_described_lpboost(), **kwargs)


# --------------------------------------------------------------------------- marginboost show


def test_show_prints_a_model_file_as_describe_does(tmp_path, capsys):
    model = tmp_path / "heart.json"
    assert main(["fit", "--data", "heart", "--booster", "lpboost", "--weak-learner", "stump", "--nu", "0.2",
                 "--model", str(model)]) == 0
    capsys.readouterr()
    assert main(["show", str(model), "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert out == mb.describe(mb.load_model(model), top=3) + "\n"
    assert out.startswith("LPBoostClassifier(") and "status converged" in out and out.count(" x [") == 3
    for argv, message in ((["show", str(model), "--top", "0"], "--top must be at least 1, got 0"),
                          (["show", str(tmp_path / "none.json")], "No such file"),
                          (["show", str(tmp_path)], "")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("marginboost: error: ") and message in err and err.count("\n") == 1


def test_show_names_the_categories_of_a_text_column(tmp_path, capsys):
    rng = np.random.default_rng(0)
    colour = rng.choice(["blue", "green", "red"], size=60)
    frame = pd.DataFrame({"colour": colour, "size": rng.normal(size=60), "label": (colour == "red").astype(int)})
    data, model = tmp_path / "data.csv", tmp_path / "m.json"
    frame.to_csv(data, index=False)
    assert main(["fit", "--data", str(data), "--header", "--booster", "lpboost", "--weak-learner", "stump",
                 "--model", str(model)]) == 0
    capsys.readouterr()
    assert main(["show", str(model)]) == 0
    # colour is never missing in training: NaN goes to the side of more training examples (blue, green)
    assert "x [x[0] in {blue, green} (missing -> left) ? -1 : +1]" in capsys.readouterr().out


# --------------------------------------------------------------------------- margins and plots


def _cancer(m=200):
    X, y = load_breast_cancer(return_X_y=True)
    return X[:m], y[:m], X[m:m + 150], y[m:m + 150]


def test_normalised_margins_are_y_f_over_the_l1_norm_per_family():
    X, y, _, _ = _cancer()
    y_pm = np.where(y == 1, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = [mb.MLPBoostClassifier(max_iter=10).fit(X, y), mb.MABoostClassifier(max_iter=10).fit(X, y),
                  mb.GBMClassifier(max_iter=10, max_depth=2).fit(X, y)]
    for est in models:
        raw = sum(w * h.predict(X) for w, h in zip(est._stored_vote().weights, est.hypotheses_))
        if isinstance(est, mb.GBMClassifier):  # offset and the trees' largest leaves
            raw = raw + est.offset_
            norm = abs(est.offset_) + sum(est.learning_rate * np.abs(h.value[h.feature < 0]).max()
                                          for h in est.hypotheses_)
        else:
            norm = np.abs(est._stored_vote().weights).sum()
        margins = mb.normalised_margins(est, X, y)
        np.testing.assert_allclose(margins, y_pm * raw / norm, rtol=1e-12, atol=1e-12)
        assert np.all(np.abs(margins) <= 1 + 1e-12) and np.array_equal(margins > 0, est.predict(X) == y)


def test_multiclass_margins_are_positive_exactly_where_predict_is_right():
    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for est in (mb.LPBoostClassifier(max_iter=5, weak_learner="stump").fit(X, y),
                    mb.GBMClassifier(max_iter=5, max_depth=1).fit(X, y)):
            margins = mb.normalised_margins(est, X, y)
            assert np.all(np.abs(margins) <= 1 + 1e-12) and np.array_equal(margins > 0, est.predict(X) == y)


def test_margins_refuse_regressors_graphsepboost_and_unknown_labels():
    X, y, _, _ = _cancer(80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gbm = mb.GBMRegressor(max_iter=3).fit(X, y.astype(float))
        graph = mb.GraphSepBoostClassifier(max_iter=3, weak_learner="stump").fit(X, y)
        lp = mb.LPBoostClassifier(max_iter=3, weak_learner="stump").fit(X, y)
    with pytest.raises(ValueError, match="GBMRegressor is a regressor"):
        mb.plot_margins(gbm, X, y)
    with pytest.raises(ValueError, match="GraphSepBoostClassifier has no margins"):
        mb.normalised_margins(graph, X, y)
    with pytest.raises(ValueError, match="y holds labels the estimator was not fitted on: \\[7\\]"):
        mb.normalised_margins(lp, X, np.full(80, 7))
    with pytest.raises(ValueError, match="X_test and y_test must be given together"):
        mb.plot_margins(lp, X, y, X_test=X)


def test_plot_margins_draws_the_two_cumulative_distributions():
    X, y, X_test, y_test = _cancer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = mb.LPBoostClassifier(nu=0.1, max_iter=20, weak_learner="stump").fit(X, y)
    fig, given = plt.subplots()
    ax = mb.plot_margins(est, X, y, X_test, y_test, ax=given)
    assert ax is given
    training, test, zero = ax.get_lines()
    assert [training.get_label(), test.get_label()] == [f"training ({len(y)} examples)",
                                                       f"test ({len(y_test)} examples)"]
    x, height = training.get_data()
    np.testing.assert_array_equal(x[1:-1], np.sort(mb.normalised_margins(est, X, y)))
    np.testing.assert_array_equal(height, np.r_[0.0, np.arange(1, len(y) + 1) / len(y), 1.0])
    assert list(zero.get_xdata()) == [0, 0]
    plt.close(fig)
    assert len(mb.plot_margins(est, X, y).get_lines()) == 2  # no test set: training and the line at 0
    plt.close("all")


def test_plot_importances_draws_the_largest_first():
    est = _hand(mb.LPBoostClassifier, [Stump(0, 0.5, 1.0), Stump(2, 1.0, -1.0), Stump(2, 2.0, 1.0)],
                [0.2, 0.5, 0.3], feature_names_in_=np.array(["a", "b", "c"], dtype=object))
    ax = mb.plot_importances(est, top=5)
    bars = ax.patches
    assert [bar.get_width() for bar in bars] == pytest.approx([0.8, 0.2])  # b has importance 0: not drawn
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c", "a"]
    assert len(mb.plot_importances(est, top=1).patches) == 1
    plt.close("all")


def test_the_plots_say_which_extra_they_need(monkeypatch):
    est = _hand(mb.LPBoostClassifier, [Stump(0, 0.5, 1.0)], [1.0])
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # as if matplotlib were not installed
    with pytest.raises(ImportError, match="pip install marginboost\\[plot\\]"):
        mb.plot_importances(est)
