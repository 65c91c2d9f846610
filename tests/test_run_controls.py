"""Every public estimator takes the same run controls (estimators/base.py): max_iter, max_time,
verbose, callbacks, early stopping and warm start, and they do the same thing everywhere."""
import warnings

import numpy as np
import pytest
from sklearn.base import RegressorMixin, clone
from sklearn.datasets import load_breast_cancer, make_regression

import marginboost

ESTIMATORS = sorted(
    (getattr(marginboost, n) for n in marginboost.__all__
     if isinstance(getattr(marginboost, n), type) and hasattr(getattr(marginboost, n), "_parameter_constraints")),
    key=lambda c: c.__name__)
IDS = [c.__name__ for c in ESTIMATORS]
CONTROLS = ("max_iter", "max_time", "verbose", "callbacks", "early_stopping", "validation_fraction",
            "n_iter_no_change", "warm_start")
# a small, bounded setting per estimator, so that a few rounds stay cheap and far from convergence
SMALL = {"AverageMarginBoostClassifier": {"eps": 0.001}, "LPBoostClassifier": {"eps": 1e-6},
         "ERLPBoostClassifier": {"eps": 1e-3}, "MLPBoostClassifier": {"eps": 1e-3},
         "CERLPBoostClassifier": {"eps": 1e-3}, "TotalBoostClassifier": {"eps": 1e-3},
         "SoftBoostClassifier": {"eps": 1e-3}, "AdaBoostVClassifier": {"eps": 0.01},
         "SmoothBoostClassifier": {"kappa": 0.01, "gamma": 0.01}}


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    Xr, yr = make_regression(n_samples=240, n_features=6, noise=10.0, random_state=0)
    return {"clf": (X[:240, :6], y[:240], X[240:320, :6], y[240:320]),
            "reg": (Xr[:180], yr[:180] / 100.0, Xr[180:], yr[180:] / 100.0)}


def _xy(cls, data):
    return data["reg" if issubclass(cls, RegressorMixin) else "clf"]


def _make(cls, **params):
    return cls(**{**SMALL.get(cls.__name__, {}), **params})


def _fit(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, **kw)


def _values(est, X):
    return est.predict(X) if isinstance(est, RegressorMixin) else est.decision_function(X)


def test_every_estimator_is_listed():
    assert len(ESTIMATORS) == 17


@pytest.mark.parametrize("cls", ESTIMATORS, ids=IDS)
def test_same_control_names_everywhere(cls):
    params = cls().get_params()
    assert set(CONTROLS) <= set(params), set(CONTROLS) - set(params)
    assert params["verbose"] == 0 and params["callbacks"] is None and params["warm_start"] is False
    assert params["early_stopping"] is False
    assert isinstance(params["max_iter"], int) and params["max_iter"] > 0  # a finite default bound


@pytest.mark.parametrize("cls", ESTIMATORS, ids=IDS)
def test_callback_stop_equals_a_max_iter_stop(cls, data):
    X, y, X_te, _ = _xy(cls, data)
    calls = []

    def stop_second(record):
        calls.append(record.round)
        assert set(record.row) >= {"round", "time"}
        return len(calls) == 2

    est = _fit(_make(cls, callbacks=[stop_second], max_iter=50), X, y)
    assert est.status_ == "callback" and len(calls) == 2
    ref = _fit(_make(cls, max_iter=int(est.n_iter_)), X, y)
    np.testing.assert_array_equal(_values(est, X_te), _values(ref, X_te))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=IDS)
def test_verbose_reports_progress_and_silence_is_silent(cls, data, capsys):
    X, y, _, _ = _xy(cls, data)
    _fit(_make(cls, max_iter=4, verbose=1), X, y)
    err = capsys.readouterr().err
    assert f"{cls.__name__} round" in err and "elapsed" in err and "stopped:" in err
    _fit(_make(cls, max_iter=4), X, y)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("cls", ESTIMATORS, ids=IDS)
def test_early_stopping_on_an_eval_set(cls, data):
    X, y, X_val, y_val = _xy(cls, data)
    est = _make(cls, max_iter=60, early_stopping=True, n_iter_no_change=3)
    if cls.__name__ == "GraphSepBoostClassifier":  # its model is no weighted vote: nothing to score per round
        with pytest.raises(ValueError, match="early_stopping"):
            _fit(est, X, y, eval_set=(X_val, y_val))
        return
    _fit(est, X, y, eval_set=(X_val, y_val))
    assert est.status_ in ("early_stopping", "converged", "max_iter", "no_edge", "perfect")
    assert est.best_iteration_ is not None and len(est.validation_scores_) >= 1
    best = int(np.argmax(est.validation_scores_))
    assert est.validation_scores_[best] == np.max(est.validation_scores_)
    if est.status_ == "early_stopping":
        assert len(est.validation_scores_) - 1 - best == 3
    # the fraction path: a held-out share of the training set
    _fit(clone(est).set_params(validation_fraction=0.25), X, y)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=IDS)
def test_warm_start_continues_to_the_longer_fit(cls, data):
    X, y, X_te, _ = _xy(cls, data)
    est = _fit(_make(cls, max_iter=2, warm_start=True), X, y)
    first = est.n_iter_
    _fit(est.set_params(max_iter=5), X, y)
    ref = _fit(_make(cls, max_iter=5), X, y)
    assert est.n_iter_ == ref.n_iter_ >= first
    np.testing.assert_array_equal(_values(est, X_te), _values(ref, X_te))
    with pytest.raises(ValueError, match="same data"):
        _fit(est, X[:-2], y[:-2])
