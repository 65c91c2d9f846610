"""More than two classes: one-vs-rest for every classifier (marginboost.estimators.multiclass)."""
import json
import re
import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.base import clone
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning

from marginboost import (
    AdaBoostClassifier,
    AdaBoostVClassifier,
    AverageMarginBoostClassifier,
    CERLPBoostClassifier,
    ERLPBoostClassifier,
    FitInterruptedWarning,
    FWBoostClassifier,
    GBMClassifier,
    GraphSepBoostClassifier,
    LPBoostClassifier,
    MABoostClassifier,
    MadaBoostClassifier,
    MLPBoostClassifier,
    SmoothBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
    on_interrupt,
)
from marginboost.estimators.binary import vote_probability
from marginboost.io.model_io import FORMAT_VERSION, ModelFileError, model_from_dict, model_to_dict
from marginboost.estimators.multiclass import probabilities
from marginboost.weak_learners import DecisionStump, WeakLearner, histogram, stumps

# Few rounds: every classifier, fast.
ESTIMATORS = [
    LPBoostClassifier(max_iter=40), ERLPBoostClassifier(max_iter=40), CERLPBoostClassifier(max_iter=40),
    MLPBoostClassifier(max_iter=40, weak_learner="hist_tree"),
    TotalBoostClassifier(max_iter=20), SoftBoostClassifier(max_iter=20), AdaBoostVClassifier(max_iter=20),
    SmoothBoostClassifier(max_iter=20),
    MABoostClassifier(max_iter=20), MadaBoostClassifier(max_iter=20, weak_learner="stump"),
    AdaBoostClassifier(max_iter=20),
    AverageMarginBoostClassifier(eps=0.1, step="line_search", max_iter=100),
    FWBoostClassifier(max_iter=20), GBMClassifier(max_iter=20), GraphSepBoostClassifier(max_iter=30),
]
IDS = [type(est).__name__ for est in ESTIMATORS]


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, np.array(["setosa", "versicolor", "virginica"])[y]


def _four():
    X, y = make_classification(n_samples=200, n_features=5, n_informative=4, n_redundant=0, n_classes=4,
                               n_clusters_per_class=1, class_sep=2.0, random_state=0)
    return X, y


DATA = {"iris": _iris(), "four": _four()}


def _fit(est, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clone(est).fit(X, y, **kwargs)


@pytest.mark.parametrize("data", ["iris", "four"])
@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_every_classifier_fits_more_classes(est, data):
    X, y = DATA[data]
    est = _fit(est, X, y)
    classes = np.unique(y)
    K = classes.shape[0]
    np.testing.assert_array_equal(est.classes_, classes)
    pred = est.predict(X)
    assert np.mean(pred == y) > 0.85  # chance: 1/3 and 1/4
    scores = est.decision_function(X)
    assert scores.shape == (X.shape[0], K)
    np.testing.assert_array_equal(pred, classes[np.argmax(scores, axis=1)])
    if hasattr(est, "predict_proba"):
        proba = est.predict_proba(X)
        assert proba.shape == (X.shape[0], K)
        assert np.all((proba >= 0) & (proba <= 1))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(classes[np.argmax(proba, axis=1)], pred)
    else:
        assert isinstance(est, GraphSepBoostClassifier)
    assert len(est.estimators_) == K and est.n_iter_.shape == (K,) and len(est.status_) == len(est.history_) == K
    for k, model in enumerate(est.estimators_):
        assert type(model) is type(est) and model.get_params() == est.get_params()
        np.testing.assert_array_equal(model.classes_, [0, 1])
        np.testing.assert_array_equal(model.decision_function(X), scores[:, k])
        assert est.n_iter_[k] == model.n_iter_ and est.status_[k] == model.status_
    assert not hasattr(est, "hypotheses_")
    if hasattr(est, "staged_decision_function"):
        staged = list(est.staged_decision_function(X))
        per_class = [list(model.staged_decision_function(X)) for model in est.estimators_]
        assert len(staged) == max(len(s) for s in per_class)
        for t, stage in enumerate(staged):  # a class that stopped earlier keeps its last value
            np.testing.assert_array_equal(stage, np.column_stack([s[min(t, len(s) - 1)] for s in per_class]))
        np.testing.assert_allclose(staged[-1], scores, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(list(est.staged_predict(X))[-1], classes[np.argmax(staged[-1], axis=1)])


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_binary_models_are_the_one_vs_rest_fits(est):
    """The K models equal binary fits of class k against the rest, made separately (without the
    shared presorting or binning): same hypotheses, same weights, same decision values."""
    X, y = DATA["four"]
    fitted = _fit(est, X, y)
    for k, label in enumerate(fitted.classes_):
        alone = _fit(est, X, (y == label).astype(int))
        model = fitted.estimators_[k]
        assert model_to_dict(model)["hypotheses"] == model_to_dict(alone)["hypotheses"]
        for attr in ("weights_", "pos_codes_", "offset_"):
            if hasattr(alone, attr):
                np.testing.assert_array_equal(getattr(model, attr), getattr(alone, attr))
        np.testing.assert_array_equal(model.decision_function(X), alone.decision_function(X))
        assert model.n_iter_ == alone.n_iter_ and model.status_ == alone.status_


def _count_calls(monkeypatch, module, name):
    calls = []
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("est", [
    LPBoostClassifier(max_iter=10), TotalBoostClassifier(max_iter=5, weak_learner="stump"),
    MABoostClassifier(max_iter=5), AverageMarginBoostClassifier(eps=0.2, max_iter=20),
    FWBoostClassifier(max_iter=5), FWBoostClassifier(max_iter=5, variant="R", loss="logistic"),
    GBMClassifier(max_iter=5), GraphSepBoostClassifier(max_iter=5),
], ids=lambda est: repr(est))
def test_presorting_is_done_once_for_all_classes(monkeypatch, est):
    X, y = DATA["four"]
    calls = _count_calls(monkeypatch, stumps, "_sort_features")
    _fit(est, X, y)
    assert len(calls) == 1
    for label in np.unique(y):  # the counter counts: separate fits presort each time
        _fit(est, X, y == label)
    assert len(calls) == 1 + 4


@pytest.mark.parametrize("est", [LPBoostClassifier(max_iter=10, weak_learner="hist_tree"),
                                 GraphSepBoostClassifier(max_iter=5, weak_learner="hist_stump")], ids=repr)
def test_binning_is_done_once_for_all_classes(monkeypatch, est):
    X, y = DATA["iris"]
    calls = _count_calls(monkeypatch, histogram, "bin_features")
    _fit(est, X.astype(np.float32), y)
    assert len(calls) == 1


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_model_files_round_trip(tmp_path, est):
    X, y = DATA["iris"]
    est = _fit(est, X, y)
    path = tmp_path / "model.json"
    est.save(path)
    doc = json.loads(path.read_text())
    assert doc["classes"] == ["setosa", "versicolor", "virginica"] and doc["format_version"] == FORMAT_VERSION
    assert len(doc["estimators"]) == 3 and "hypotheses" not in doc and "state" not in doc
    back = type(est).load(path)
    np.testing.assert_array_equal(back.classes_, est.classes_)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))
    if hasattr(est, "predict_proba"):
        np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(back.n_iter_, est.n_iter_)
    assert back.history_ == [None] * 3
    assert all(model.get_params() == est.get_params() for model in back.estimators_)


def test_model_file_errors_name_the_class_model():
    X, y = DATA["iris"]
    doc = model_to_dict(_fit(LPBoostClassifier(max_iter=10), X, y))
    short = {**doc, "estimators": doc["estimators"][:2]}
    with pytest.raises(ModelFileError, match="'estimators' must be a list of 3 models"):
        model_from_dict(short)
    bad = json.loads(json.dumps(doc))
    bad["estimators"][1]["state"]["weights"] = [-1.0] * len(bad["estimators"][1]["state"]["weights"])
    with pytest.raises(ModelFileError, match=r"estimators\[1\] state field 'weights'"):
        model_from_dict(bad)
    mixed = {**doc, "hypotheses": [], "state": {}}
    with pytest.raises(ModelFileError, match=r"unknown field\(s\) \['hypotheses', 'state'\]"):
        model_from_dict(mixed)


def test_two_classes_keep_the_binary_model_and_refits_replace_each_other():
    X, y = DATA["iris"]
    binary = np.where(y == "setosa", "setosa", "other")
    est = _fit(LPBoostClassifier(max_iter=20), X, binary)
    assert not hasattr(est, "estimators_") and est.decision_function(X).shape == (150,)
    doc = model_to_dict(est)
    assert "estimators" not in doc and {"hypotheses", "state"} <= doc.keys()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
        assert hasattr(est, "estimators_") and not hasattr(est, "weights_") and not hasattr(est, "margin_")
        est.fit(X, binary)
    assert not hasattr(est, "estimators_") and est.n_iter_ == len(est.history_["round"])


def test_binary_predict_proba_is_the_documented_link():
    X, y = DATA["iris"]
    binary = y == "virginica"
    vote = _fit(LPBoostClassifier(max_iter=20), X, binary)
    np.testing.assert_allclose(vote.predict_proba(X)[:, 1], (1 + vote.decision_function(X)) / 2, rtol=0,
                               atol=1e-15)
    for loss, scale in (("logistic", 1.0), ("exponential", 2.0)):
        for cls in (GBMClassifier, FWBoostClassifier):
            est = _fit(cls(loss=loss, max_iter=10), X, binary)
            np.testing.assert_allclose(est.predict_proba(X)[:, 1], expit(scale * est.decision_function(X)))
    assert not hasattr(GBMClassifier(loss="squared"), "predict_proba")
    assert not hasattr(FWBoostClassifier(loss="huber"), "predict_proba")
    assert not hasattr(GraphSepBoostClassifier(), "predict_proba")


def test_probabilities_break_ties_of_rounding_towards_predict():
    # Binary: 1e-20 > 0 predicts classes_[1], but (1 + 1e-20) / 2 rounds to 1/2.
    scores = np.array([1e-20, -1e-20, 0.0, 0.5])
    proba = probabilities(scores, vote_probability)
    np.testing.assert_array_equal(proba.argmax(axis=1), [1, 0, 0, 1])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    # One-vs-rest: sigmoid saturates (40 vs 50 both give 1), or underflows (all 0: uniform).
    scores = np.array([[40.0, 50.0, 0.0], [-800.0, -900.0, -700.0], [0.0, 0.0, 0.0]])
    proba = probabilities(scores, expit)
    np.testing.assert_array_equal(proba.argmax(axis=1), [1, 2, 0])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.all((proba >= 0) & (proba <= 1))


def test_string_and_integer_labels():
    X, y = DATA["four"]
    words = np.array(["north", "east", "south", "west"])[y]
    est = _fit(MABoostClassifier(max_iter=10), X, words)
    np.testing.assert_array_equal(est.classes_, ["east", "north", "south", "west"])
    assert set(est.predict(X)) <= set(words) and est.score(X, words) > 0.85
    as_list = _fit(MABoostClassifier(max_iter=10), X.tolist(), words.tolist())
    np.testing.assert_array_equal(as_list.predict(X), est.predict(X))


def test_warnings_name_their_class():
    X, y = DATA["iris"]
    with pytest.warns(ConvergenceWarning) as record:
        CERLPBoostClassifier(max_iter=2).fit(X, y)
    messages = [str(w.message) for w in record]
    assert len(messages) >= 2 and all(re.match(r"class '(setosa|versicolor|virginica)' vs rest: CERLPBoostClassifier "
                                               r"stopped by max_iter after 2 rounds", m) for m in messages)


class _Spy(LPBoostClassifier):
    """Records the max_time of every fit (each class's fit validates its parameters first)."""

    seen: list = []

    def _validate_params(self):
        _Spy.seen.append(self.max_time)
        super()._validate_params()


class _Clock:
    def __init__(self, times):
        self.times = iter(times)

    def perf_counter(self):
        return next(self.times)


def test_max_time_is_shared_out_over_the_classes(monkeypatch):
    import marginboost.estimators.multiclass

    X, y = DATA["iris"]
    _Spy.seen = []
    # start, then before classes 0, 1, 2: 5 s and 9 s gone when classes 1 and 2 start
    monkeypatch.setattr(marginboost.estimators.multiclass, "time", _Clock([0.0, 0.0, 5.0, 9.0]))
    est = _fit(_Spy(max_time=12.0, max_iter=5), X, y)
    assert _Spy.seen == [12.0, 4.0, 3.5, 3.0]
    assert all(model.max_time == 12.0 for model in est.estimators_)


def test_max_time_stops_every_class():
    X, y = DATA["four"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = LPBoostClassifier(max_time=1e-9).fit(X, y)
    assert est.status_ == ["max_time"] * 4 and np.all(est.n_iter_ == 1)


_CALLS = [0]


class _InterruptAt(WeakLearner):
    """Stumps, but Ctrl-C at the ``at``-th oracle call counted over every class."""

    def __init__(self, at):
        self.at = at

    def prepare(self, X, y):
        oracle = DecisionStump().prepare(X, y)

        def call(d):
            _CALLS[0] += 1
            if _CALLS[0] == self.at:
                raise KeyboardInterrupt
            return oracle(d)

        return call


def test_ctrl_c_keeps_a_model_only_in_the_last_class():
    X, y = DATA["iris"]  # 3 classes x 5 rounds
    _CALLS[0] = 0
    est = MABoostClassifier(max_iter=5, weak_learner=_InterruptAt(13))
    with pytest.warns(FitInterruptedWarning, match="class 'virginica' vs rest: MABoostClassifier.fit was interrupted"):
        est.fit(X, y)
    assert est.status_ == ["max_iter", "max_iter", "interrupted"] and est.n_iter_.tolist() == [5, 5, 2]
    for at, policy in ((3, "keep"), (13, "raise")):
        _CALLS[0] = 0
        with on_interrupt(policy), pytest.raises(KeyboardInterrupt):
            MABoostClassifier(max_iter=5, weak_learner=_InterruptAt(at)).fit(X, y)


def test_sample_weight_per_class():
    X, y = DATA["four"]
    w = np.random.default_rng(0).integers(0, 4, size=y.shape[0]).astype(float)
    for est in (LPBoostClassifier(max_iter=20, weak_learner="stump"), GBMClassifier(max_iter=5),
                MABoostClassifier(max_iter=5)):
        fitted = _fit(est, X, y, sample_weight=w)
        for k in range(4):
            alone = _fit(est, X, (y == k).astype(int), sample_weight=w)
            np.testing.assert_array_equal(fitted.estimators_[k].decision_function(X), alone.decision_function(X))
    w[y == 2] = 0.0
    with pytest.raises(ValueError, match=r"every class needs an example of positive sample_weight; none has .*\[2\]"):
        LPBoostClassifier().fit(X, y, sample_weight=w)


def test_maboost_secondary_labels_are_recoded_per_class():
    X, y = DATA["iris"]
    rng = np.random.default_rng(1)
    rows = rng.permutation(150)
    main, extra = rows[:100], rows[100:]
    est = MABoostClassifier(variant="combined", regularizer="l2", max_iter=8, weak_learner="stump")
    fitted = _fit(est, X[main], y[main], X_secondary=X[extra], y_secondary=y[extra])
    for k, label in enumerate(fitted.classes_):
        alone = _fit(est, X[main], (y[main] == label).astype(int), X_secondary=X[extra],
                     y_secondary=(y[extra] == label).astype(int))
        np.testing.assert_array_equal(fitted.estimators_[k].weights_, alone.weights_)
    # a class only the secondary set has still counts
    only_two = y[main] != "virginica"
    three = _fit(est, X[main][only_two], y[main][only_two], X_secondary=X[extra], y_secondary=y[extra])
    np.testing.assert_array_equal(three.classes_, ["setosa", "versicolor", "virginica"])
