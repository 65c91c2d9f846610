"""Every public estimator takes the same run controls (estimators/base.py): max_iter, max_time,
verbose, callbacks, early stopping and warm start, and they do the same thing everywhere."""
import dataclasses
import json
import numbers
import warnings

import numpy as np
import pytest
from sklearn.base import RegressorMixin, clone
from sklearn.datasets import load_breast_cancer, make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils._param_validation import StrOptions

import marginboost
from marginboost import LPBoostClassifier
from marginboost.weak_learners import DecisionStump, HistogramTree

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
    assert est.status_ in ("early_stopping", "converged", "max_iter", "no_progress")
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


# ------------------------------------------------------------------- warm start x changed parameters
# scikit-learn's rule for warm_start: a continued fit uses the current parameters. The parameters each
# estimator applies to the rounds to come (a stopping tolerance, a step size, what fit or predict
# derives from the finished loop); a change of any other parameter between two fits is refused with a
# ValueError naming it, and leaves no model (issue 33, item 1: the second fit kept the old value).
WARM_APPLIED = {
    "LPBoostClassifier": {"eps"},  # its stopping tolerance alone (the LP has no eta)
    "SmoothBoostClassifier": {"kappa"},  # its stopping rule |M|/m < kappa alone
    "FWBoostClassifier": {"eps"}, "FWBoostRegressor": {"eps"},
    "GBMClassifier": {"learning_rate"}, "GBMRegressor": {"learning_rate"},  # every tree, as scikit-learn's
    "AdaBoostClassifier": {"learning_rate"}, "MadaBoostClassifier": {"learning_rate"},
    "MABoostClassifier": {"learning_rate"},  # the steps to come; the steps taken stay in weights_
    "AverageMarginBoostClassifier": {"min_weight"},
    "GraphSepBoostClassifier": {"aggregation", "max_pairs"},
}
# Settings of this test: a tolerance to tighten, far from convergence within 5 rounds.
WARM_SMALL = {"FWBoostClassifier": {"eps": 1e-6}, "FWBoostRegressor": {"eps": 1e-6}}
FITTED_SCALARS = ("nu_", "eta_", "margin_", "objective_", "gap_", "full_margin_", "dropped_mass_", "train_loss_",
                  "offset_", "n_iter_", "status_")


def _other_value(cls, name, value):
    """A valid value of parameter ``name`` other than ``value``: tighter where it is a tolerance."""
    if isinstance(value, bool):
        return not value
    if name == "categorical_features":  # 'from_dtype' -> None: no categorical column
        return None if value == "from_dtype" else "from_dtype"
    if value is None:  # random_state
        return 0
    if isinstance(value, numbers.Integral):
        return value + 1
    if isinstance(value, numbers.Real):
        return value / 2
    for constraint in cls._parameter_constraints[name]:
        if isinstance(constraint, StrOptions):
            return sorted(constraint.options - {value})[0]
    raise AssertionError(f"no other value for {cls.__name__}.{name}={value!r}")


def _model_parameters(cls):
    """The model parameters, less the old names kept a release (renamed.DEPRECATED: test_fwboost's)."""
    return sorted(k for k, v in cls().get_params().items() if k not in CONTROLS and not (isinstance(v, str)
                                                                                         and v == "deprecated"))


WARM_CASES = [(cls, name) for cls in ESTIMATORS for name in _model_parameters(cls)]


def _warm_make(cls, **params):
    return _make(cls, **{**WARM_SMALL.get(cls.__name__, {}), **params})


def _fitted_scalars(est):
    return {a: getattr(est, a) for a in FITTED_SCALARS if hasattr(est, a)}


def _mirror_reference(first, est, X, y, k, total):
    """The mirror-ascent loop run directly, its step rule the first fit's for rounds 1..k and the
    current one's after: what a warm start that applies the new learning_rate must give."""
    from marginboost.mirror.maboost import mirror_ascent_boost
    from marginboost.weak_learners import resolve_weak_learner

    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    old, new = first._parts(X.shape[0], None, None), est._parts(X.shape[0], None, None)
    parts = dataclasses.replace(new, step=lambda t, edge, mass: (old.step if t <= k else new.step)(t, edge, mass))
    oracle = resolve_weak_learner(est.weak_learner, est.max_depth).prepare(X, y_pm)
    return mirror_ascent_boost(oracle, y_pm, parts, total)


def test_warm_cases_cover_every_model_parameter():
    names = {(cls.__name__, name) for cls, name in WARM_CASES}
    assert {("LPBoostClassifier", "nu"), ("ERLPBoostClassifier", "eps"), ("FWBoostRegressor", "beta"),
            ("GBMRegressor", "learning_rate"), ("AdaBoostVClassifier", "eps"), ("MABoostClassifier", "smoothness"),
            ("AverageMarginBoostClassifier", "eta")} <= names
    for cls_name, applied in WARM_APPLIED.items():
        assert {(cls_name, name) for name in applied} <= names


@pytest.mark.parametrize("cls, name", WARM_CASES, ids=[f"{c.__name__}-{n}" for c, n in WARM_CASES])
def test_warm_start_applies_or_refuses_a_changed_parameter(cls, name, data, tmp_path):
    X, y, X_te, _ = _xy(cls, data)
    est = _fit(_warm_make(cls, max_iter=2, warm_start=True), X, y)
    first = clone(est)
    first_values = _values(est, X_te)
    first_hypotheses = list(est.hypotheses_) if hasattr(est, "hypotheses_") else None
    old = est.get_params()[name]
    new = _other_value(cls, name, old)
    est.set_params(max_iter=5, **{name: new})
    if name not in WARM_APPLIED.get(cls.__name__, ()):
        with pytest.raises(ValueError, match=rf"\b{name}\b") as info:
            _fit(est, X, y)
        assert repr(old) in str(info.value) and "warm_start=False" in str(info.value)
        with pytest.raises(NotFittedError):  # no model of the old value under the new parameters
            _values(est, X_te)
        with pytest.raises(ValueError, match="not fitted"):  # nor a model file of one
            est.save(tmp_path / "model.json")
        # the warm state survives the refusal: set back, the fit continues as before
        _fit(est.set_params(**{name: old}), X, y)
        np.testing.assert_array_equal(_values(est, X_te), _values(_fit(_warm_make(cls, max_iter=5), X, y), X_te))
        return
    _fit(est, X, y)
    assert est.get_params()[name] == new
    if cls.__name__.startswith("GBM"):  # scikit-learn's rule: every tree at the current rate
        from marginboost.functional.losses import resolve_loss
        from marginboost.weak_learners.ensemble_outputs import output_matrix

        for h0, h in zip(first_hypotheses, est.hypotheses_):  # the trees fitted stay
            np.testing.assert_array_equal(output_matrix([h0], X_te), output_matrix([h], X_te))
        F = est.offset_ + output_matrix(est.hypotheses_, X_te) @ np.full(len(est.hypotheses_), new)
        np.testing.assert_allclose(_values(est, X_te), F, rtol=1e-12, atol=1e-12)
        y_fit = y if isinstance(est, RegressorMixin) else np.where(y == est.classes_[1], 1.0, -1.0)
        F_train = est.predict(X) if isinstance(est, RegressorMixin) else est.decision_function(X)
        assert est.train_loss_ == pytest.approx(resolve_loss(est.loss).value(F_train, y_fit), rel=1e-12)
        assert not np.array_equal(_values(est, X_te), first_values)
    elif name == "learning_rate":  # the mirror-ascent family: the steps taken, then the new ones
        ref = _mirror_reference(first, est, X, y, 2, 5)
        np.testing.assert_array_equal(est.weights_, ref.weights)
        assert est.n_iter_ == ref.n_iter == 5
    else:  # a tolerance, or what fit or predict derive from the loop: as a fit with the new value
        ref = _fit(_warm_make(cls, max_iter=5, **{name: new}), X, y)
        np.testing.assert_array_equal(_values(est, X_te), _values(ref, X_te))
        assert _fitted_scalars(est) == _fitted_scalars(ref)
    # the model file reports what was used, and its model predicts as the estimator
    path = tmp_path / "model.json"
    est.save(path)
    doc = json.loads(path.read_text())
    assert doc["params"][name] == new
    loaded = type(est).load(path)
    np.testing.assert_array_equal(_values(loaded, X_te), _values(est, X_te))
    assert {k: v for k, v in _fitted_scalars(loaded).items() if k != "status_"} == \
        {k: v for k, v in _fitted_scalars(est).items() if k != "status_" and k in _fitted_scalars(loaded)}


@pytest.mark.parametrize("cls, tolerance, loose, tight", [
    ("LPBoostClassifier", "eps", 0.1, 1e-4), ("FWBoostRegressor", "eps", 1e-2, 1e-4),
    ("FWBoostClassifier", "eps", 1e-1, 1e-3), ("SmoothBoostClassifier", "kappa", 0.5, 0.05)])
def test_warm_start_tightened_tolerance_continues_a_converged_fit(cls, tolerance, loose, tight, data):
    cls = getattr(marginboost, cls)
    X, y, X_te, _ = _xy(cls, data)
    est = _fit(cls(max_iter=300, warm_start=True, **{tolerance: loose}), X, y)
    assert est.status_ == "converged"
    _fit(est.set_params(**{tolerance: tight}), X, y)
    ref = _fit(cls(max_iter=300, **{tolerance: tight}), X, y)
    assert ref.status_ == "converged" and ref.n_iter_ > _fit(cls(max_iter=300, **{tolerance: loose}), X, y).n_iter_
    np.testing.assert_array_equal(_values(est, X_te), _values(ref, X_te))
    assert est.status_ == "converged"
    # LPBoost checks its gap before the update: the round that stopped the first fit is asked again
    assert est.n_iter_ == ref.n_iter_ + (cls is marginboost.LPBoostClassifier)
    if cls is marginboost.LPBoostClassifier:
        assert est.gap_ == ref.gap_ and est.eta_ == ref.eta_ and est.margin_ == ref.margin_
    # loosened again: the model meets it already, and stays
    values = _values(est, X_te)
    _fit(est.set_params(**{tolerance: loose}), X, y)
    np.testing.assert_array_equal(_values(est, X_te), values)
    assert est.status_ == "converged"


def test_warm_start_refuses_a_changed_parameter_with_more_than_two_classes():
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:150, :5], np.arange(150) % 3
    est = _fit(marginboost.LPBoostClassifier(max_iter=2, warm_start=True), X, y)
    with pytest.raises(ValueError, match=r"\bnu\b"):
        _fit(est.set_params(nu=0.3, max_iter=4), X, y)
    with pytest.raises(NotFittedError):
        est.predict(X)
    gbm = _fit(marginboost.GBMClassifier(max_iter=2, warm_start=True), X, y)
    _fit(gbm.set_params(learning_rate=0.3, max_iter=4), X, y)
    assert all(model.learning_rate == 0.3 for model in gbm.estimators_)
    for model in gbm.estimators_:
        F = model.offset_ + 0.3 * sum(h.predict(X) for h in model.hypotheses_)
        np.testing.assert_allclose(model.decision_function(X), F, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ the last stage is the final model
# AverageMarginBoost has no stages: each round's model is a distribution over all of H_S (its module doc).
STAGED = [cls for cls in ESTIMATORS if cls.__name__ != "AverageMarginBoostClassifier"]


def _stages_and_final(est, X):
    if isinstance(est, RegressorMixin):
        return list(est.staged_predict(X)), est.predict(X), None, None
    return (list(est.staged_decision_function(X)), est.decision_function(X), list(est.staged_predict(X)),
            est.predict(X))


def test_every_estimator_with_stages_is_checked():
    assert len(STAGED) == 16
    for cls in STAGED:
        assert hasattr(cls, "staged_predict") and (issubclass(cls, RegressorMixin)
                                                   or hasattr(cls, "staged_decision_function"))


@pytest.mark.parametrize("cls", STAGED, ids=[c.__name__ for c in STAGED])
@pytest.mark.parametrize("problem", ["binary", "three_classes", "large_offset"])
def test_last_stage_is_the_final_model_bit_for_bit(cls, problem, data):
    """staged_decision_function / staged_predict end at decision_function / predict exactly: both sum
    the same terms in one order (issue 33, item 9: the stages went through a matrix product, the
    final model through a sum one hypothesis at a time, and ties differed: 2.8e-17 against 0.0)."""
    X, y, X_te, _ = _xy(cls, data)
    if problem == "three_classes":
        if issubclass(cls, RegressorMixin):
            pytest.skip("a regressor")
        y = np.arange(y.shape[0]) % 3
    if problem == "large_offset":  # targets near 1e15 (item 8), labels as they are
        y = y + 1e15 if issubclass(cls, RegressorMixin) else y
    est = _fit(_make(cls, max_iter=12), X, y)
    for rows in (X_te, X):
        stages, final, staged_labels, labels = _stages_and_final(est, rows)
        assert len(stages) >= 1
        np.testing.assert_array_equal(stages[-1], final)
        if labels is not None:
            np.testing.assert_array_equal(staged_labels[-1], labels)


def test_last_stage_equals_the_decision_on_ties():
    """Six weights of 1/6 whose votes cancel or nearly so, on every sign pattern: the last stage is
    the decision function exactly (the matrix product gave 2.8e-17 where the decision was 0.0, or
    -1.0 where it was -0.9999999999999999)."""
    import itertools

    from marginboost.weak_learners import Stump

    X = np.array(list(itertools.product([-1.0, 1.0], repeat=6)))
    y = (X.sum(axis=1) > 0).astype(int)
    est = _fit(marginboost.LPBoostClassifier(weak_learner="stump", max_iter=3), X, y)
    est.hypotheses_ = [Stump(feature=j, threshold=0.0, sign=1.0) for j in range(6)]
    est.weights_ = np.full(6, 1.0 / 6.0)
    est.weights_path_ = [np.full(k, 1.0 / k) for k in range(1, 6)] + [est.weights_]
    stages = list(est.staged_decision_function(X))
    np.testing.assert_array_equal(stages[-1], est.decision_function(X))
    np.testing.assert_array_equal(list(est.staged_predict(X))[-1], est.predict(X))


@pytest.mark.parametrize("learner", [DecisionStump(), HistogramTree(max_depth=2)])
def test_warm_start_one_vs_rest_with_a_weak_learner_object(learner):
    """One-vs-rest clones the learner object for each class: the copy is the same parameter (it was
    refused as a changed weak_learner), and a changed one is still refused."""
    X, y = make_classification(90, 5, n_informative=3, n_classes=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = LPBoostClassifier(weak_learner=learner, warm_start=True, max_iter=3).fit(X, y)
        est.set_params(max_iter=6).fit(X, y)
        whole = LPBoostClassifier(weak_learner=learner, max_iter=6).fit(X, y)
        np.testing.assert_array_equal(est.decision_function(X), whole.decision_function(X))
        with pytest.raises(ValueError, match="cannot be continued with weak_learner="):
            est.set_params(weak_learner=HistogramTree(max_depth=3), max_iter=8).fit(X, y)


# The loops that record their starting point as round 0 (core.rounds: RoundLoop.start_row).
START_ROW = {"GBMClassifier", "GBMRegressor", "FWBoostClassifier", "FWBoostRegressor", "GraphSepBoostClassifier"}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=IDS)
def test_one_iteration_contract(cls, data):
    """Issue 30: ``n_iter_`` is the number of the last round, each round one boosting iteration, in
    every estimator: ``history_['round']`` is ``[0,] 1, ..., n_iter_`` (round 0: the starting point
    of the loops that record one), ``n_iter_ <= max_iter``, and a stop by max_iter has
    ``n_iter_ == max_iter``; a warm start numbers on."""
    X, y, _, _ = _xy(cls, data)
    first = 0 if cls.__name__ in START_ROW else 1
    for max_iter in (1, 3):
        est = _fit(_make(cls, max_iter=max_iter), X, y)
        np.testing.assert_array_equal(est.history_["round"], np.arange(first, est.n_iter_ + 1))
        assert len(est.history_["round"]) == est.n_iter_ + 1 - first
        assert 1 <= est.n_iter_ <= max_iter
        assert est.status_ != "max_iter" or est.n_iter_ == max_iter
    est = _fit(_make(cls, max_iter=2, warm_start=True), X, y)
    est = _fit(est.set_params(max_iter=5), X, y)
    np.testing.assert_array_equal(est.history_["round"], np.arange(first, est.n_iter_ + 1))
    assert est.status_ != "max_iter" or est.n_iter_ == 5
