"""Every fitted estimator pickles, in every configuration (issue 30, item 8).

A fit with ``warm_start=True`` keeps its loop and the loop's last state for the rounds to come
(``_fit_result``, :mod:`marginboost.estimators.base`): oracles, step rules, projections. So the
round trip through :mod:`pickle` and :mod:`joblib` is checked with and without ``warm_start``, and
an unpickled warm fit must continue exactly as the original does (and as one uninterrupted fit).
The configurations below cover every oracle and projection an estimator builds: the weak learners
by name and as objects, FWBoost's two oracles, every MABoost constraint set, with and without
sample weights.
"""
import pickle
import warnings

import joblib
import numpy as np
import pytest
from sklearn.base import RegressorMixin
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import marginboost

ESTIMATORS = sorted(
    (getattr(marginboost, n) for n in marginboost.__all__
     if isinstance(getattr(marginboost, n), type) and hasattr(getattr(marginboost, n), "_parameter_constraints")),
    key=lambda c: c.__name__)
K = 3  # rounds before the pickle; the continuation runs to 2K
# settings that keep K rounds far from convergence (as tests/test_run_controls.py's)
SMALL = {"AverageMarginBoostClassifier": {"eps": 0.001}, "LPBoostClassifier": {"eps": 1e-6},
         "ERLPBoostClassifier": {"eps": 1e-3}, "MLPBoostClassifier": {"eps": 1e-3},
         "CERLPBoostClassifier": {"eps": 1e-3}, "TotalBoostClassifier": {"eps": 1e-3},
         "SoftBoostClassifier": {"eps": 1e-3}, "AdaBoostVClassifier": {"eps": 0.01},
         "SmoothBoostClassifier": {"kappa": 0.01, "gamma": 0.01}}


def _takes_histograms(cls) -> bool:
    return any("hist_tree" in getattr(c, "options", ()) for c in cls._parameter_constraints.get("weak_learner", ()))


# the default weak learner of each estimator, and the histogram tree where it takes one
CASES = [(cls, {}) for cls in ESTIMATORS] + \
    [(cls, {"weak_learner": "hist_tree"}) for cls in ESTIMATORS if _takes_histograms(cls)]
CASE_IDS = [cls.__name__ + "".join(f"-{v}" for v in params.values()) for cls, params in CASES]
CLASSIFIERS = [cls for cls in ESTIMATORS if not issubclass(cls, RegressorMixin)]

M = 80
WEIGHTED = {"sample_weight": np.random.RandomState(0).uniform(0.5, 2.0, M)}
# the oracles and projections built from parameters beyond the weak learner's name (fit arguments third)
CONFIGS = [
    (marginboost.FWBoostClassifier, {"variant": "R"}, {}),
    (marginboost.FWBoostClassifier, {"weak_learner": DecisionTreeClassifier(max_depth=1, random_state=0)}, {}),
    (marginboost.FWBoostRegressor, {"variant": "R", "weak_learner": DecisionTreeRegressor(max_depth=2, random_state=0)},
     WEIGHTED),
    (marginboost.GBMRegressor, {"weak_learner": DecisionTreeRegressor(max_depth=2, random_state=0)}, {}),
    (marginboost.GBMClassifier, {"subsample": 0.7}, {}),
    (marginboost.AdaBoostClassifier, {}, WEIGHTED),
    (marginboost.MadaBoostClassifier, {"weak_learner": "stump"}, WEIGHTED),
    (marginboost.MABoostClassifier, {"variant": "smooth", "update": "lazy"}, {}),
    (marginboost.MABoostClassifier, {"variant": "smooth"}, WEIGHTED),
    (marginboost.MABoostClassifier, {"variant": "combined"}, {"secondary_mask": np.arange(M) % 4 == 0}),
    (marginboost.MABoostClassifier, {"variant": "combined"}, {"secondary_mask": np.arange(M) % 4 == 0, **WEIGHTED}),
    (marginboost.MABoostClassifier, {"regularizer": "l2", "variant": "maxmargin"}, {}),
    (marginboost.MABoostClassifier, {"regularizer": "l2", "variant": "smooth"}, {}),
    (marginboost.MABoostClassifier, {"regularizer": "l2", "variant": "combined"},
     {"secondary_mask": np.arange(M) % 4 == 0}),
    (marginboost.MABoostClassifier, {"regularizer": "l2"}, WEIGHTED),
    (marginboost.MABoostClassifier, {"regularizer": "l2", "variant": "sparse"}, {}),
    (marginboost.MABoostClassifier, {"regularizer": "l2", "variant": "sparse"}, WEIGHTED),
    (marginboost.MLPBoostClassifier, {"step": "pairwise", "secondary": "entropy"}, {}),
    (marginboost.AverageMarginBoostClassifier, {"eps": 0.001, "step": "line_search", "stop": "certified"}, {}),
]
CONFIG_IDS = [f"{cls.__name__}-{i}" for i, (cls, _, _) in enumerate(CONFIGS)]


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=M, random_state=0)
    X3, y3 = make_classification(n_samples=90, n_features=6, n_informative=4, n_classes=3, random_state=0)
    Xr, yr = make_regression(n_samples=M, n_features=6, noise=5.0, random_state=0)
    return {"binary": (X, y), "three": (X3, y3), "regression": (Xr, yr)}


def _xy(cls, data):
    return data["regression" if issubclass(cls, RegressorMixin) else "binary"]


def _make(cls, params, **run):
    return cls(**{**SMALL.get(cls.__name__, {}), **params, **run})


def _fit(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unfinished fits warn: they are meant to stop short here
        return est.fit(X, y, **kw)


def _values(est, X):
    return est.predict(X) if isinstance(est, RegressorMixin) else est.decision_function(X)


def _copies(est, tmp_path) -> list:
    """``est`` through pickle and through joblib."""
    path = tmp_path / "model.joblib"
    joblib.dump(est, path)
    return [pickle.loads(pickle.dumps(est)), joblib.load(path)]


def _assert_same_model(a, b, X):
    np.testing.assert_array_equal(_values(a, X), _values(b, X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.n_iter_, b.n_iter_)


def _check_continuation(est, X, y, tmp_path, **fit_kw):
    """Pickle the warm fit ``est`` (``K`` rounds), continue original and copies to ``2K`` rounds:
    the copies' models equal the original's. Returns the continued original."""
    copies = _copies(est, tmp_path)
    for copy in copies:
        _assert_same_model(copy, est, X)
    _fit(est.set_params(max_iter=2 * K), X, y, **fit_kw)
    for copy in copies:
        _assert_same_model(_fit(copy.set_params(max_iter=2 * K), X, y, **fit_kw), est, X)
    return est


@pytest.mark.parametrize("warm_start", [False, True])
@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_fitted_estimator_round_trips(cls, params, warm_start, data, tmp_path):
    X, y = _xy(cls, data)
    est = _fit(_make(cls, params, max_iter=K, warm_start=warm_start), X, y)
    for copy in _copies(est, tmp_path):
        assert type(copy) is cls and copy.get_params().keys() == est.get_params().keys()
        _assert_same_model(copy, est, X)


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_unpickled_warm_fit_continues_as_one_fit(cls, params, data, tmp_path):
    X, y = _xy(cls, data)
    est = _check_continuation(_fit(_make(cls, params, max_iter=K, warm_start=True), X, y), X, y, tmp_path)
    _assert_same_model(est, _fit(_make(cls, params, max_iter=2 * K), X, y), X)


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=[c.__name__ for c in CLASSIFIERS])
def test_unpickled_one_vs_rest_fit_continues(cls, data, tmp_path):
    X, y = data["three"]
    est = _fit(_make(cls, {}, max_iter=K, warm_start=True), X, y)
    assert len(est.estimators_) == 3
    _check_continuation(est, X, y, tmp_path)


@pytest.mark.parametrize("cls, params, fit_kw", CONFIGS, ids=CONFIG_IDS)
def test_every_oracle_and_projection_pickles(cls, params, fit_kw, data, tmp_path):
    X, y = _xy(cls, data)
    est = _fit(_make(cls, params, max_iter=K, warm_start=True), X, y, **fit_kw)
    _check_continuation(est, X, y, tmp_path, **fit_kw)


def _score_unpickled(est, X_val, y_val):
    """A search's scorer that pickles each fitted clone and scores the copy (a module-level function:
    the fitted search keeps it, and pickles)."""
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(_values(copy, X_val), _values(est, X_val))
    return copy.score(X_val, y_val)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=[c.__name__ for c in ESTIMATORS])
def test_grid_search_pickles_its_warm_started_clones(cls, data):
    X, y = _xy(cls, data)
    search = GridSearchCV(_make(cls, {}, warm_start=True), {"max_iter": [2, K]}, cv=2, n_jobs=1,
                          scoring=_score_unpickled, error_score="raise")
    _fit(search, X, y)
    copy = pickle.loads(pickle.dumps(search))
    np.testing.assert_array_equal(_values(copy.best_estimator_, X), _values(search.best_estimator_, X))
