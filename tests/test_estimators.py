"""The scikit-learn front end: the estimator contract, fitted attributes, bad input."""
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from marginboost import (
    CERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    MLPBoostClassifier,
)
from marginboost.soft_margin.scheme import HISTORY_COLUMNS
from marginboost.estimators.parameters import resolve_nu

ESTIMATORS = [LPBoostClassifier, ERLPBoostClassifier, CERLPBoostClassifier, MLPBoostClassifier]


@parametrize_with_checks(
    [cls() for cls in ESTIMATORS] + [MLPBoostClassifier(step="pairwise", weak_learner="stump")]
)
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, np.where(y == 1, "benign", "malignant")


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_fitted_attributes_and_predictions(cls, cancer):
    X, y = cancer
    kwargs = {"max_iter": 400} if cls is CERLPBoostClassifier else {}
    est = cls(nu=0.2, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    assert list(est.classes_) == ["benign", "malignant"]
    assert set(est.predict(X)) <= set(est.classes_)
    assert est.score(X, y) > 0.9
    score = est.decision_function(X)
    assert np.all(np.abs(score) <= 1 + 1e-12)
    np.testing.assert_array_equal(est.predict(X), est.classes_[(score > 0).astype(int)])
    assert est.weights_.shape == (len(est.hypotheses_),)
    assert est.weights_.sum() == pytest.approx(1.0) and np.all(est.weights_ >= 0)
    assert set(est.history_) == set(HISTORY_COLUMNS)
    n_rows = len(est.history_["round"])
    assert all(len(v) == n_rows for v in est.history_.values())
    assert est.n_iter_ == est.history_["round"][-1]
    assert est.nu_ == pytest.approx(0.2 * X.shape[0])
    # the fitted soft margin is the mean of the nu smallest training margins
    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    margins = np.sort(y_pm * score)
    k = int(est.nu_)
    expected = (margins[:k].sum() + (est.nu_ - k) * margins[k]) / est.nu_
    assert est.margin_ == pytest.approx(expected, abs=1e-10)
    staged = list(est.staged_decision_function(X))
    assert len(staged) == n_rows
    np.testing.assert_allclose(staged[-1], score, atol=1e-12)
    if est.status_ == "converged":
        assert est.gap_ <= est.eps / (1 if cls is LPBoostClassifier else 2)


def test_mlpboost_parts_are_selectable_and_reported(cancer):
    X, y = cancer
    for fw in ("classic", "short_step", "line_search", "pairwise"):
        for secondary in ("lp", "entropy", "none"):
            est = MLPBoostClassifier(nu=0.3, eps=0.05, step=fw, secondary=secondary, max_iter=300,
                                     weak_learner="stump")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                est.fit(X, y)
            updates = est.history_["update"]
            if secondary == "none":
                assert not np.any(updates == 2)
            assert est.margin_ > 0


def test_sklearn_weak_learner_adapter_works_in_a_booster(cancer):
    X, y = cancer
    est = LPBoostClassifier(nu=0.2, weak_learner=DecisionTreeClassifier(max_depth=1)).fit(X, y)
    assert est.score(X, y) > 0.9


def test_sample_weight_integer_equals_replication():
    X, y = make_classification(n_samples=80, n_features=4, random_state=0)
    counts = np.random.default_rng(0).integers(1, 4, 80)
    a = LPBoostClassifier(nu=0.2, weak_learner="stump").fit(X, y, sample_weight=counts)
    b = LPBoostClassifier(nu=0.2, weak_learner="stump").fit(np.repeat(X, counts, 0), np.repeat(y, counts))
    assert a.margin_ == pytest.approx(b.margin_, abs=1e-7)


def test_same_seed_same_result(cancer):
    X, y = cancer
    a = MLPBoostClassifier(nu=0.1).fit(X, y)
    b = MLPBoostClassifier(nu=0.1).fit(X, y)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_nu_count_and_fraction():
    assert resolve_nu(5, 100) == 5.0
    assert resolve_nu(0.05, 100) == 5.0
    assert resolve_nu(1, 100) == 1.0  # an int is a count: the hard margin
    assert resolve_nu(1.0, 100) == 100.0  # a float in (0, 1] is a fraction
    assert resolve_nu(0.001, 100) == 1.0  # a fraction below one example rounds up to nu = 1
    assert resolve_nu(2.5, 100) == 2.5


# ---------------------------------------------------------------- bad input
X_OK, Y_OK = make_classification(n_samples=30, n_features=3, n_informative=2, n_redundant=0, random_state=1)


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize(
    "params,match",
    [
        ({"nu": 0}, "'nu' parameter"),
        ({"nu": -0.5}, "'nu' parameter"),
        ({"nu": 31}, r"nu must be a count in \[1, m\] = \[1, 30\]"),
        ({"nu": 40.5}, r"nu must be a count in \[1, m\]"),
        ({"eps": 0.0}, "'eps' parameter.*range"),
        ({"eps": -1.0}, "'eps' parameter.*range"),
        ({"max_iter": 0}, "'max_iter' parameter"),
        ({"weak_learner": "forest"}, "'weak_learner' parameter"),
        ({"max_depth": 0}, "'max_depth' parameter"),
    ],
)
def test_bad_parameters_name_the_parameter_and_range(cls, params, match):
    with pytest.raises(ValueError, match=match):
        cls(**params).fit(X_OK, Y_OK)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_eps_whose_eta_overflows_is_refused_and_the_smallest_allowed_fits(cls):
    """Issue 18: eps = 5e-324 made eta_ = 2 ln(m/nu)/eps infinite (LPBoost stored eta_ = inf),
    and ERLPBoost, C-ERLPBoost and MLPBoost died with a ZeroDivisionError inside the entropy
    projection. The parameter check now names eps and its range; at its bound, 1e-300, every one
    fits a working model (it runs to max_iter: no gap that small is resolvable)."""
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:200, :5], y[:200]
    with pytest.raises(ValueError, match=r"'eps' parameter .* range \[1e-300, inf\)"):
        cls(eps=5e-324, max_iter=5).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = cls(eps=1e-300, max_iter=10).fit(X, y)
    assert np.isfinite(est.eta_) and np.isfinite(est.margin_) and np.isfinite(est.objective_)
    f = est.decision_function(X)
    assert np.all(np.isfinite(f))
    assert est.score(X, y) >= max(np.mean(y), 1 - np.mean(y))


def test_bad_mlpboost_parts():
    with pytest.raises(ValueError, match="'step' parameter"):
        MLPBoostClassifier(step="newton").fit(X_OK, Y_OK)
    with pytest.raises(ValueError, match="'secondary' parameter"):
        MLPBoostClassifier(secondary="qp").fit(X_OK, Y_OK)


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
    with pytest.raises(ValueError, match=r"NaN \(missing values\), which weak_learner=LogisticRegression\(\) cannot"):
        cls(weak_learner=LogisticRegression()).fit(X_nan, Y_OK)
    X_inf = X_OK.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        est.fit(X_inf, Y_OK)
    with pytest.raises(ValueError, match="0 sample"):
        est.fit(np.empty((0, 3)), np.empty(0))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        est.fit(X_OK, Y_OK[:-1])
    sw = np.ones(30)
    sw[4] = np.nan
    with pytest.raises(ValueError, match="(?i)sample_weight|NaN"):
        est.fit(X_OK, Y_OK, sample_weight=sw)
    sw[4] = np.inf
    with pytest.raises(ValueError, match="(?i)sample_weight|infinity"):
        est.fit(X_OK, Y_OK, sample_weight=sw)
    with pytest.raises(ValueError, match="(?i)negative"):
        est.fit(X_OK, Y_OK, sample_weight=-np.ones(30))


def test_predict_before_fit_and_wrong_width():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        LPBoostClassifier().predict(X_OK)
    est = LPBoostClassifier().fit(X_OK, Y_OK)
    with pytest.raises(ValueError, match="features"):
        est.predict(X_OK[:, :2])


def test_not_converged_warns_and_reports_status(cancer):
    X, y = cancer
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est = CERLPBoostClassifier(max_iter=5).fit(X, y)
    assert est.status_ == "max_iter" and est.n_iter_ == 5
    with pytest.warns(ConvergenceWarning, match="max_time"):
        est = CERLPBoostClassifier(max_iter=10**6, max_time=0.2).fit(X, y)
    assert est.status_ == "max_time"


def test_cancelling_optimum_warns_instead_of_passing_silently():
    """Issue 18: one 0/1 feature, 20% labels flipped, nu below the noise. The unique LP optimum is
    [0.5, 0.5] on h and -h (soft margin 0, decision 0 everywhere): say so."""
    from marginboost import DegenerateModelWarning

    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 200).astype(float)
    y = np.where(rng.random(200) < 0.2, 1 - (x > 0), x > 0).astype(int)
    with pytest.warns(DegenerateModelWarning, match="decision is exactly 0 on 200 of 200"):
        est = LPBoostClassifier(nu=0.1, weak_learner="stump").fit(x[:, None], y)
    assert est.status_ == "converged" and est.margin_ == 0.0
    # the optimum's support; which other optimal vertex the LP's d was (and so whether a third
    # hypothesis was tried, at weight 0) depends on the master's pivoting
    np.testing.assert_allclose(est.weights_[est.weights_ > 0], [0.5, 0.5])
    np.testing.assert_array_equal(est.decision_function(x[:, None]), 0.0)
    with warnings.catch_warnings():  # a positive soft margin: no such warning
        warnings.simplefilter("error", DegenerateModelWarning)
        LPBoostClassifier(nu=0.5, weak_learner="stump").fit(x[:, None], y)
