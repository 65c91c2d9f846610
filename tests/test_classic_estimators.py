"""The scikit-learn front ends of TotalBoost, SoftBoost, AdaBoostV and SmoothBoost, and the
naive Bayes / scikit-learn adapter weak learners."""
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks

from marginboost.classic.adaboostv import adaboostv_rounds
from marginboost.classic.smoothboost import smoothboost_rounds
from marginboost.estimators.classic import AdaBoostVClassifier, SmoothBoostClassifier
from marginboost.estimators.totally_corrective import SoftBoostClassifier, TotalBoostClassifier
from marginboost.estimators.soft_margin import LPBoostClassifier
from marginboost.soft_margin.objectives import soft_margin
from marginboost.weak_learners.ensemble_outputs import output_matrix
from marginboost.weak_learners.naive_bayes import GaussianNaiveBayes
from marginboost.weak_learners.sklearn_adapter import SklearnWeakLearner

ESTIMATORS = [TotalBoostClassifier, SoftBoostClassifier, AdaBoostVClassifier, SmoothBoostClassifier]


@parametrize_with_checks([cls() for cls in ESTIMATORS])
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, np.where(y == 1, "benign", "malignant")


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_fitted_attributes_history_and_staged_predictions(cls, cancer):
    X, y = cancer
    est = cls(weak_learner="stump")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    assert list(est.classes_) == ["benign", "malignant"]
    assert est.score(X, y) > 0.9
    score = est.decision_function(X)
    assert np.all(np.abs(score) <= 1 + 1e-12)
    np.testing.assert_array_equal(est.predict(X), est.classes_[(score > 0).astype(int)])
    assert est.weights_.shape == (len(est.hypotheses_),)
    assert est.weights_.sum() == pytest.approx(1.0) and np.all(est.weights_ >= 0)
    n_rows = len(est.history_["round"])
    assert n_rows == est.n_iter_ and all(len(v) == n_rows for v in est.history_.values())
    assert "edge" in est.history_ and ("min_margin" in est.history_ or "soft_margin" in est.history_)
    margins = np.where(y == est.classes_[1], 1.0, -1.0) * score
    expected = soft_margin(margins, est.nu_) if cls is SoftBoostClassifier else margins.min()
    assert est.margin_ == pytest.approx(expected, abs=1e-10)
    staged = list(est.staged_decision_function(X))
    assert len(staged) == n_rows
    np.testing.assert_allclose(staged[-1], score, atol=1e-12)
    last = list(est.staged_predict(X))[-1]
    np.testing.assert_array_equal(last, est.predict(X))


def test_softboost_nu_count_and_fraction(cancer):
    X, y = cancer
    a = SoftBoostClassifier(nu=0.2, eps=0.05, weak_learner="stump").fit(X, y)
    b = SoftBoostClassifier(nu=a.nu_, eps=0.05, weak_learner="stump").fit(X, y)
    assert a.nu_ == pytest.approx(0.2 * X.shape[0])
    assert a.margin_ == pytest.approx(b.margin_)


def test_max_iter_warns_and_reports_status(cancer):
    X, y = cancer
    for est in (SoftBoostClassifier(eps=1e-4, max_iter=3), AdaBoostVClassifier(eps=0.01, max_iter=3),
                SmoothBoostClassifier(kappa=0.01, max_iter=3)):
        with pytest.warns(ConvergenceWarning, match="max_iter"):
            est.fit(X, y)
        assert est.status_ == "max_iter" and est.n_iter_ == 3


@pytest.mark.parametrize("est,bound", [
    (AdaBoostVClassifier(eps=1e-10, weak_learner="stump"), lambda m: adaboostv_rounds(m, 1e-10)),
    (SmoothBoostClassifier(kappa=0.01, gamma=0.01, weak_learner="stump"), lambda m: smoothboost_rounds(0.01, 0.01)),
], ids=["AdaBoostV", "SmoothBoost"])
def test_default_max_iter_is_a_finite_cap_not_the_round_bound(est, bound):
    """The round bounds are what to pass for the guarantees; the default is a finite cap. At
    eps = 1e-10 AdaBoostV's bound is ~1e21 rounds (a fit that never ends): the default fit ends."""
    X, y = make_classification(n_samples=60, n_features=4, flip_y=0.15, random_state=2)
    assert est.max_iter == 1000 and bound(60) > 10**6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    assert 1 <= est.n_iter_ <= 1000 and len(est.history_["round"]) == est.n_iter_
    assert est.status_ in ("max_iter", "converged", "no_progress")
    assert est.stop_reason_ in {"converged": (None, "perfect"), "no_progress": ("no_edge",)}.get(est.status_, (None,))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_round_ensemble_is_the_staged_model(cls, cancer):
    """``record.ensemble()`` (what early stopping scores) is, round by round, the model whose
    decision function ``staged_decision_function`` yields."""
    X, y = cancer
    votes = []

    def record_vote(record):
        hypotheses, weights, offset = record.ensemble()
        votes.append(offset + output_matrix(list(hypotheses), X) @ weights)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = cls(weak_learner="stump", max_iter=15, callbacks=[record_vote]).fit(X, y)
    staged = list(est.staged_decision_function(X))
    assert len(votes) == len(staged) == est.n_iter_
    for vote, value in zip(votes, staged):
        np.testing.assert_allclose(vote, value, atol=1e-12)
    np.testing.assert_allclose(votes[-1], est.decision_function(X), atol=1e-12)


# ---------------------------------------------------------------- bad input
X_OK, Y_OK = make_classification(n_samples=30, n_features=3, n_informative=2, n_redundant=0, random_state=1)

BAD = {
    TotalBoostClassifier: [({"eps": 0.0}, r"'eps' parameter.*range \(0.0, 2.0\]"),
                           ({"eps": 2.5}, r"'eps' parameter.*range")],
    SoftBoostClassifier: [({"eps": -1.0}, r"'eps' parameter.*range"),
                          ({"nu": 0}, "'nu' parameter"),
                          ({"nu": 31}, r"nu must be a count in \[1, m\] = \[1, 30\]")],
    AdaBoostVClassifier: [({"eps": 0.0}, r"'eps' parameter.*range \(0.0, 1.0\)"),
                          ({"eps": 1.0}, r"'eps' parameter.*range \(0.0, 1.0\)"),
                          ({"max_iter": 0}, "'max_iter' parameter")],
    SmoothBoostClassifier: [({"kappa": 0.0}, r"'kappa' parameter.*range \(0.0, 1.0\)"),
                            ({"kappa": 1.0}, r"'kappa' parameter.*range"),
                            ({"gamma": 0.5}, r"'gamma' parameter.*range \(0.0, 0.5\)"),
                            ({"gamma": -0.1}, r"'gamma' parameter.*range")],
}
CASES = [(cls, params, match) for cls, cases in BAD.items() for params, match in cases]
CASES += [(cls, {"max_depth": 0}, "'max_depth' parameter") for cls in ESTIMATORS]
CASES += [(cls, {"weak_learner": "forest"}, "'weak_learner' parameter") for cls in ESTIMATORS]


@pytest.mark.parametrize("cls,params,match", CASES)
def test_bad_parameters_name_the_parameter_and_range(cls, params, match):
    with pytest.raises(ValueError, match=match):
        cls(**params).fit(X_OK, Y_OK)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_bad_data(cls):
    est = cls()
    with pytest.raises(ValueError, match="at least two classes.*1 class"):
        est.fit(X_OK, np.zeros(30))
    X_nan = X_OK.copy()
    X_nan[3, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X_nan, Y_OK)  # a missing value: the default trees take it (tests/test_missing_values.py)
    with pytest.raises(ValueError, match=r"NaN \(missing values\), which weak_learner=GaussianNaiveBayes"):
        cls(weak_learner=GaussianNaiveBayes()).fit(X_nan, Y_OK)
    with pytest.raises(NotFittedError):
        cls().predict(X_OK)


# ---------------------------------------------------------------- weak learners
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gaussian_naive_bayes_matches_sklearn_with_sample_weight(seed):
    rng = np.random.default_rng(seed)
    X, y01 = make_classification(n_samples=120, n_features=5, random_state=seed)
    y = np.where(y01 == 1, 1.0, -1.0)
    d = rng.dirichlet(np.ones(120))
    ref = GaussianNB().fit(X, y, sample_weight=d)
    h, pred = GaussianNaiveBayes().prepare(X, y)(d)
    np.testing.assert_array_equal(pred, ref.predict(X))
    proba = ref.predict_proba(X)
    h_conf, pred_conf = GaussianNaiveBayes(confidence=True).prepare(X, y)(d)
    np.testing.assert_allclose(pred_conf, proba[:, 1] - proba[:, 0], atol=1e-9)
    X_new = rng.normal(size=(20, 5))
    np.testing.assert_array_equal(h.predict(X_new), ref.predict(X_new))


def test_gaussian_naive_bayes_with_one_class_weightless():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    _, pred = GaussianNaiveBayes().prepare(X, y)(np.array([0.5, 0.5, 0.0, 0.0]))
    np.testing.assert_array_equal(pred, -1.0)


@pytest.mark.parametrize("weak_learner", [GaussianNaiveBayes(), GaussianNB(),
                                          LogisticRegression(C=0.01, max_iter=1000)],
                         ids=["ours", "sklearn-GaussianNB", "sklearn-LogisticRegression"])
def test_non_tree_weak_learners_in_boosters(weak_learner, cancer):
    """Non-tree learners through our contract and through the scikit-learn adapter."""
    X, y = cancer
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y_pm = np.where(y == "benign", 1.0, -1.0)
    learner = weak_learner if isinstance(weak_learner, GaussianNaiveBayes) else SklearnWeakLearner(weak_learner)
    d = np.random.default_rng(0).dirichlet(np.ones(X.shape[0]))
    _, pred = learner.prepare(X, y_pm)(d)
    assert set(np.unique(pred)) <= {-1.0, 1.0}
    assert d @ (y_pm * pred) > 0.5  # a real edge under a random distribution
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for est in (SoftBoostClassifier(nu=0.1, eps=0.05, weak_learner=weak_learner, max_iter=50),
                    LPBoostClassifier(nu=0.1, eps=0.05, weak_learner=weak_learner, max_iter=50)):
            est.fit(X, y)
            assert est.score(X, y) > 0.9
            assert len(est.hypotheses_) >= 1


# ---------------------------------------------------------------- issue 18: extreme accuracies
def _small_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:200, :5], y[:200]


def _majority_rate(y) -> float:
    return float(max(np.mean(y == c) for c in np.unique(y)))


@pytest.mark.parametrize("eps", [1e-160, 1e-300, 5e-324])
def test_adaboostv_tiny_eps_fits_a_working_model(eps):
    """Issue 18: eps = 1e-300 and 1e-160 raised ZeroDivisionError (the step atanh(edge) -
    atanh(edge - eps) cancelled to 0, then 0/0). Now a model: the steps are ~eps, so it is the
    vote of the first hypotheses, no worse than the majority class and finite everywhere."""
    X, y = _small_cancer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = AdaBoostVClassifier(eps=eps, max_iter=20).fit(X, y)
    f = est.decision_function(X)
    assert np.all(np.isfinite(f)) and np.all(np.abs(f) <= 1.0 + 1e-12)
    assert np.all(np.isfinite(est.weights_)) and est.weights_.sum() == pytest.approx(1.0)
    assert np.isfinite(est.margin_)
    assert all(np.all(np.isfinite(stage)) for stage in est.staged_decision_function(X))
    assert est.score(X, y) >= _majority_rate(y)


@pytest.mark.parametrize("kappa,gamma", [(0.1, 5e-324), (5e-324, 0.1), (5e-324, 5e-324)])
def test_smoothboost_tiny_kappa_or_gamma_with_its_round_bound(kappa, gamma):
    """Issue 18: smoothboost_rounds(kappa, gamma), the max_iter the docs give for the guarantee,
    raised ZeroDivisionError at kappa or gamma = 5e-324 (kappa gamma^2 underflowed). It is now
    the exact (astronomical) bound, and the fit with it (cut by max_time) is a working model."""
    X, y = _small_cancer()
    bound = smoothboost_rounds(kappa, gamma)
    assert bound > 10**300
    with pytest.warns(ConvergenceWarning, match="max_time"):
        est = SmoothBoostClassifier(kappa=kappa, gamma=gamma, max_iter=bound, max_time=0.3).fit(X, y)
    assert est.status_ == "max_time"
    f = est.decision_function(X)
    assert np.all(np.isfinite(f)) and np.isfinite(est.margin_)
    assert est.score(X, y) >= _majority_rate(y)
