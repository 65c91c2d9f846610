"""Time limits, Ctrl-C during fit, solver failures and determinism, for every booster estimator.

An interrupted fit must return exactly the model a fit limited to the completed rounds
returns (same hypotheses, weights, history, staged predictions), whatever the interrupt hits:
the weak learner, or the bookkeeping between a round's commit and the log of its weights.
"""
import dataclasses
import warnings
from dataclasses import dataclass
from typing import Callable

import highspy
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_info, threadpool_limits

from marginboost import (
    AdaBoostClassifier,
    AdaBoostVClassifier,
    AverageMarginBoostClassifier,
    CERLPBoostClassifier,
    ERLPBoostClassifier,
    FWBoostClassifier,
    FWBoostRegressor,
    GBMClassifier,
    GBMRegressor,
    GraphSepBoostClassifier,
    LPBoostClassifier,
    MABoostClassifier,
    MadaBoostClassifier,
    MLPBoostClassifier,
    SmoothBoostClassifier,
    SoftBoostClassifier,
    SolverError,
    TotalBoostClassifier,
)
from marginboost.functional import blasso as blasso_module
from marginboost.core import rounds as rounds_module
from marginboost.soft_margin import restricted_lp
from marginboost.functional.blasso import blasso
from marginboost.core.rounds import WeightsPath
from marginboost.io.datasets import make_twonorm, make_waveform
from marginboost.functional.fwboost import adaboost_fw, regression_oracle
from marginboost.core.interrupts import FitInterruptedWarning, on_interrupt
from marginboost.functional.losses import SquaredLoss
from marginboost.io.model_codecs import encode_hypothesis
from marginboost.io.model_io import model_to_dict
from marginboost.average_margin.nzdd_stumps import StumpNZDD
from marginboost.soft_margin.dual_simplex import DualSimplexMaster
from marginboost.soft_margin.secondary import EntropyRule
from marginboost.weak_learners import DecisionStump, LeastSquaresStump, RegressionLearner, WeakLearner

TIME_COLUMNS = {"time", "weak_learner_time", "solver_time", "oracle_time"}


class _Counter:
    """Counts oracle calls over every ``prepare`` (some boosters prepare once a round) and
    raises ``KeyboardInterrupt`` at call ``k`` (never for ``k=None``)."""

    def __init__(self, learner, k):
        self.learner, self.k, self.calls = learner, k, 0

    def _tick(self):
        self.calls += 1
        if self.calls == self.k:
            raise KeyboardInterrupt


class InterruptAt(_Counter, WeakLearner):
    def prepare(self, X, y):
        oracle = self.learner.prepare(X, y)

        def call(d):
            self._tick()
            return oracle(d)
        return call


class RegressionInterruptAt(_Counter, RegressionLearner):
    def prepare(self, X):
        oracle = self.learner.prepare(X)

        def call(r, s):
            self._tick()
            return oracle(r, s)
        return call


@dataclass
class Case:
    make: Callable  # weak learner -> estimator
    rounds: str  # the parameter bounding the rounds
    regression_learner: bool = False  # a weak learner of the regression contract (prepare(X), (r, s))
    real_targets: bool = False
    lag: int = 1  # oracle calls beyond the rounds kept: FWBoost keeps the last iterate with its FW gap
    convergence_warning: bool = True  # warns when max_iter (and so max_time) stops it
    staged: bool = True


CASES = {
    "LPBoost": Case(lambda wl: LPBoostClassifier(nu=0.2, weak_learner=wl), "max_iter"),
    "ERLPBoost": Case(lambda wl: ERLPBoostClassifier(nu=0.2, weak_learner=wl), "max_iter"),
    "CERLPBoost": Case(lambda wl: CERLPBoostClassifier(nu=0.2, weak_learner=wl), "max_iter"),
    "MLPBoost": Case(lambda wl: MLPBoostClassifier(nu=0.2, weak_learner=wl), "max_iter"),
    "TotalBoost": Case(lambda wl: TotalBoostClassifier(weak_learner=wl), "max_iter"),
    "SoftBoost": Case(lambda wl: SoftBoostClassifier(nu=0.2, weak_learner=wl), "max_iter"),
    "AdaBoostV": Case(lambda wl: AdaBoostVClassifier(weak_learner=wl), "max_iter"),
    "SmoothBoost": Case(lambda wl: SmoothBoostClassifier(weak_learner=wl), "max_iter"),
    "MABoost": Case(lambda wl: MABoostClassifier(weak_learner=wl), "max_iter", convergence_warning=False),
    "MadaBoost": Case(lambda wl: MadaBoostClassifier(weak_learner=wl), "max_iter", convergence_warning=False),
    "AdaBoost": Case(lambda wl: AdaBoostClassifier(weak_learner=wl), "max_iter", convergence_warning=False),
    "GraphSepBoost": Case(lambda wl: GraphSepBoostClassifier(weak_learner=wl), "max_iter"),
    "FWBoostClassifier": Case(lambda wl: FWBoostClassifier(weak_learner=wl), "max_iter", lag=2,
                              convergence_warning=False),
    "FWBoostRegressor": Case(lambda wl: FWBoostRegressor(weak_learner=wl), "max_iter", real_targets=True,
                             lag=2, convergence_warning=False),
    "GBMRegressor": Case(lambda wl: GBMRegressor(weak_learner=wl), "max_iter", regression_learner=True,
                         real_targets=True, convergence_warning=False),
    "GBMClassifier": Case(lambda wl: GBMClassifier(weak_learner=wl, leaf_update="mean", subsample=0.7,
                                                   random_state=0), "max_iter", regression_learner=True,
                          convergence_warning=False),
    # no weak-learner parameter: the seam is the NZDD's average-margin oracle (see _estimator)
    "AverageMargin": Case(lambda wl: AverageMarginBoostClassifier(nu=0.2, eps=0.05), "max_iter", staged=False),
}
K = 4  # the oracle call that raises


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=150, n_features=6, n_informative=3, flip_y=0.15, random_state=0)
    Xr, yr = make_regression(n_samples=150, n_features=6, noise=10.0, random_state=0)
    return {False: (X, np.where(y == 1, "yes", "no")), True: (Xr, yr)}


def _estimator(case, k, monkeypatch):
    """The case's estimator whose oracle raises at call ``k`` (None: never)."""
    if isinstance(case.make(None), AverageMarginBoostClassifier):
        original, counter = StumpNZDD.average_margin, _Counter(None, k)

        def average_margin(self, d, eta):
            counter._tick()
            return original(self, d, eta)
        monkeypatch.setattr(StumpNZDD, "average_margin", average_margin)
        return case.make(None)
    if case.regression_learner:
        return case.make(RegressionInterruptAt(LeastSquaresStump(), k))
    return case.make(InterruptAt(DecisionStump(), k))


def _xy(case, data):
    return data[case.real_targets]


def _fit_quietly(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


def _scores(est, X):
    return est.predict(X) if not hasattr(est, "decision_function") else est.decision_function(X)


def _staged(est, X):
    method = "staged_decision_function" if hasattr(est, "staged_decision_function") else "staged_predict"
    return list(getattr(est, method)(X))


def _assert_same_model(est, ref, X):
    """Same rounds, hypotheses, weights, history (times aside) and predictions."""
    assert est.n_iter_ == ref.n_iter_
    assert len(est.hypotheses_) == len(ref.hypotheses_)
    for attr in ("weights_", "pos_codes_", "neg_codes_"):
        if hasattr(ref, attr):
            np.testing.assert_array_equal(getattr(est, attr), getattr(ref, attr))
    assert est.history_.keys() == ref.history_.keys()
    for key in ref.history_.keys() - TIME_COLUMNS:
        np.testing.assert_array_equal(est.history_[key], ref.history_[key], err_msg=key)
    np.testing.assert_array_equal(_scores(est, X), _scores(ref, X))


@pytest.mark.parametrize("name", CASES)
def test_interrupt_keeps_the_model_of_the_completed_rounds(name, data, monkeypatch):
    case = CASES[name]
    X, y = _xy(case, data)
    kept = K - case.lag
    ref = _fit_quietly(_estimator(case, None, monkeypatch).set_params(**{case.rounds: kept}), X, y)
    est = _estimator(case, K, monkeypatch)
    with pytest.warns(FitInterruptedWarning, match=f"{kept} completed rounds"):
        est.fit(X, y)
    assert est.status_ == "interrupted" and est.n_iter_ == kept
    _assert_same_model(est, ref, X)
    if not case.real_targets:
        assert set(est.predict(X)) <= set(y)
    if case.staged:
        staged = _staged(est, X)
        assert len(staged) == kept
        for a, b in zip(staged, _staged(ref, X)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", CASES)
def test_interrupt_propagates_on_request_and_before_a_round_completes(name, data, monkeypatch):
    case = CASES[name]
    X, y = _xy(case, data)
    with on_interrupt("raise"), pytest.raises(KeyboardInterrupt):
        _estimator(case, K, monkeypatch).fit(X, y)
    with pytest.raises(KeyboardInterrupt):  # no round completed: no model to keep
        _estimator(case, case.lag, monkeypatch).fit(X, y)


@pytest.mark.parametrize("name", CASES)
def test_max_time_stops_after_the_first_round(name, data, monkeypatch):
    case = CASES[name]
    X, y = _xy(case, data)
    est = _estimator(case, None, monkeypatch).set_params(max_time=1e-9)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    assert est.status_ == "max_time" and est.n_iter_ == 1
    warned = any(issubclass(w.category, ConvergenceWarning) and "max_time" in str(w.message) for w in caught)
    assert warned == case.convergence_warning
    est.predict(X)
    for bad in (0, -1.0, "1"):
        with pytest.raises((ValueError, TypeError), match="max_time"):
            est.set_params(max_time=bad).fit(X, y)


# Each of these loops commits a round before it logs the round's weights path; an interrupt
# between the two (or right after the log) must leave a path of exactly the rounds kept.
PATH_LOGGERS = ["LPBoost", "CERLPBoost", "TotalBoost", "AdaBoostV", "SmoothBoost", "FWBoostClassifier"]


def _interrupt_third_path_append(when, monkeypatch):
    """Ctrl-C just before or just after the third ``WeightsPath.append`` (a round's log)."""
    original, calls = WeightsPath.append, [0]

    def append(self, w, step):
        calls[0] += 1
        if calls[0] == 3 and when == "before":
            raise KeyboardInterrupt
        original(self, w, step)
        if calls[0] == 3 and when == "after":
            raise KeyboardInterrupt
    monkeypatch.setattr(WeightsPath, "append", append)


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("name", PATH_LOGGERS)
def test_interrupt_while_logging_the_weights_path(name, when, data, monkeypatch):
    case = CASES[name]
    X, y = _xy(case, data)
    ref = _fit_quietly(case.make("stump").set_params(**{case.rounds: 3}), X, y)
    _interrupt_third_path_append(when, monkeypatch)
    est = case.make("stump")
    with pytest.warns(FitInterruptedWarning):
        est.fit(X, y)
    assert est.status_ == "interrupted"
    _assert_same_model(est, ref, X)
    staged, ref_staged = _staged(est, X), _staged(ref, X)
    assert len(staged) == len(ref_staged) == 3
    for a, b in zip(staged, ref_staged):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["LPBoost", "AdaBoostV", "SmoothBoost", "TotalBoost", "SoftBoost", "MABoost",
                                  "MadaBoost"])
def test_interrupt_after_the_history_row_before_the_commit(name, data, monkeypatch):
    """Round 3 has logged its history row but not committed: the model of 2 rounds comes back."""
    case = CASES[name]
    X, y = _xy(case, data)
    ref = _fit_quietly(case.make("stump").set_params(**{case.rounds: 2}), X, y)
    original, calls = rounds_module._append_row, [0]

    def record(*args):
        original(*args)
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
    monkeypatch.setattr(rounds_module, "_append_row", record)
    est = case.make("stump")
    with pytest.warns(FitInterruptedWarning):
        est.fit(X, y)
    _assert_same_model(est, ref, X)
    assert len(_staged(est, X)) == 2


def test_on_interrupt_policy_is_scoped_and_checked(data):
    X, y = data[False]

    @on_interrupt("raise")
    def fit():
        return AdaBoostClassifier(weak_learner=InterruptAt(DecisionStump(), K)).fit(X, y)

    with pytest.raises(KeyboardInterrupt):
        fit()
    with on_interrupt("raise"), on_interrupt("keep"), pytest.warns(FitInterruptedWarning):
        AdaBoostClassifier(weak_learner=InterruptAt(DecisionStump(), K)).fit(X, y)
    with pytest.warns(FitInterruptedWarning):  # back to the default after the blocks
        AdaBoostClassifier(weak_learner=InterruptAt(DecisionStump(), K)).fit(X, y)
    with pytest.raises(ValueError, match="'keep', 'raise'"), on_interrupt("ignore"):
        pass



# ----------------------------------------------------------------------------- experiment functions
# adaboost_fw and blasso return a result object, not an estimator: the interrupted result must
# equal the result of a run limited to its completed iterates (steps), field by field.
@pytest.fixture(scope="module")
def small():
    X, y = make_classification(n_samples=100, n_features=5, n_informative=3, flip_y=0.1, random_state=0)
    Xr, yr = make_regression(n_samples=100, n_features=5, noise=10.0, random_state=0)
    return X, np.where(y == 1, 1.0, -1.0), Xr, (yr - yr.mean()) / yr.std()


def _assert_same_result(res, ref):
    """Every field of the two results equal (arrays exactly, history times aside), status aside;
    ``final`` entry by entry. The loop and its state (``compare=False``: what a warm start
    continues from, not the model) are left out."""
    for f in dataclasses.fields(ref):
        if f.name == "status" or not f.compare:
            continue
        _assert_same_value(f.name, getattr(res, f.name), getattr(ref, f.name))


def _assert_same_value(name, a, b):
    if name == "history":
        assert a.keys() == b.keys()
        for key in b.keys() - TIME_COLUMNS:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    elif isinstance(b, dict):
        assert a.keys() == b.keys(), name
        for key in b:
            _assert_same_value(key, a[key], b[key])
    elif isinstance(b, WeightsPath):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)
    elif isinstance(b, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=name)
    else:
        assert a == b, name


def _adaboost_fw(small, k, max_iter=100, step="line_search"):
    X, y, _, _ = small
    return adaboost_fw(InterruptAt(DecisionStump(), k).prepare(X, y), y, 2.0, step=step,
                       max_iter=max_iter, keep_distributions=True)


@pytest.mark.parametrize("step", ["classic", "line_search"])
@pytest.mark.parametrize("k", [3, 4, 9, 20])
def test_adaboost_fw_interrupt_keeps_the_completed_iterates(small, k, step):
    res = _adaboost_fw(small, k, step=step)
    kept = k - 2  # oracle call t + 1 is at iterate t; the iterate before it is the last with its gap
    assert res.status == "interrupted" and res.n_iter == kept
    ref = _adaboost_fw(small, None, max_iter=kept, step=step)
    assert ref.status == "max_iter"
    _assert_same_result(res, ref)
    assert res.distributions.shape[0] == len(res.history["round"]) == kept + 1


def test_adaboost_fw_interrupt_propagates_on_request_and_before_an_iterate_completes(small):
    for k in (1, 2):  # iterate 0 (no update) or the gap of iterate 1 unknown: no model
        with pytest.raises(KeyboardInterrupt):
            _adaboost_fw(small, k)
    with on_interrupt("raise"), pytest.raises(KeyboardInterrupt):
        _adaboost_fw(small, 6)


@pytest.mark.parametrize("when", ["before", "after"])
def test_adaboost_fw_interrupt_while_logging_the_weights_path(small, when, monkeypatch):
    ref = _adaboost_fw(small, None, max_iter=3)
    _interrupt_third_path_append(when, monkeypatch)
    res = _adaboost_fw(small, None)
    assert res.status == "interrupted"
    _assert_same_result(res, ref)
    assert [s[:2] for s in res.weights_path._steps] == [s[:2] for s in ref.weights_path._steps]


def _blasso(small, k, max_iter=200):
    _, _, X, y = small
    p = np.full(X.shape[0], 1.0 / X.shape[0])
    return blasso(regression_oracle(RegressionInterruptAt(LeastSquaresStump(), k), X, p), SquaredLoss(), y, 0.2,
                  max_iter=max_iter)


@pytest.fixture(scope="module")
def blasso_full(small):
    full = _blasso(small, None)
    directions = full.history["direction"][1:]
    # the data must exercise backward steps, and the path its end (lambda <= 0) well before the bound
    assert (full.status, full.reason) == ("converged", "path_end") and (directions == 2).sum() > 5
    return full


def test_blasso_interrupt_keeps_the_completed_steps(small, blasso_full):
    directions = blasso_full.history["direction"][1:]
    forward_at = np.flatnonzero(directions == 1)  # the steps before each forward step
    # Oracle call 1 gives forward step 1; call k >= 2 comes right before forward step k, and
    # one call more ends the path (lambda <= 0): its interrupt keeps the whole path.
    for k in (2, 3, 8, 17, len(forward_at), len(forward_at) + 1):
        res = _blasso(small, k)
        kept = forward_at[k - 1] if k <= len(forward_at) else blasso_full.n_iter
        assert res.status == "interrupted" and res.n_iter == kept, k
        ref = _blasso(small, None, max_iter=kept)
        assert ref.status == "max_iter"
        _assert_same_result(res, ref)
        assert len(res.hypotheses) == len(res.scales) == len(res.counts) > max(j for j, _ in res.steps)


@pytest.mark.parametrize("c", [2, 3, 6, 11, 24, 40])
def test_blasso_interrupt_in_a_backward_or_forward_evaluation(small, blasso_full, c, monkeypatch):
    """The loss evaluations of both steps (``_losses``), not only the oracle, may be interrupted."""
    original, calls = blasso_module._losses, [0]

    def losses(*args):
        calls[0] += 1
        if calls[0] == c:
            raise KeyboardInterrupt
        return original(*args)
    monkeypatch.setattr(blasso_module, "_losses", losses)
    res = _blasso(small, None)
    monkeypatch.undo()
    assert res.status == "interrupted" and 1 <= res.n_iter < blasso_full.n_iter
    _assert_same_result(res, _blasso(small, None, max_iter=res.n_iter))


def test_blasso_interrupt_propagates_on_request_and_before_a_step_completes(small, monkeypatch):
    with pytest.raises(KeyboardInterrupt):  # the first oracle call, before step 1
        _blasso(small, 1)
    with on_interrupt("raise"), pytest.raises(KeyboardInterrupt):
        _blasso(small, 5)

    def losses(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(blasso_module, "_losses", losses)  # in the first forward step's evaluation
    with pytest.raises(KeyboardInterrupt):
        _blasso(small, None)


# ----------------------------------------------------------------------------- solver failures
class _IterationLimitedHighs(highspy.Highs):
    """HiGHS stopped after 0 simplex iterations: every restricted master LP ends unsolved."""

    def run(self):
        self.setOptionValue("presolve", "off")
        self.setOptionValue("simplex_iteration_limit", 0)
        return super().run()


@pytest.mark.parametrize("make", [
    lambda: LPBoostClassifier(nu=0.2, weak_learner="stump"),
    lambda: MLPBoostClassifier(nu=0.2, weak_learner="stump"),
    lambda: TotalBoostClassifier(weak_learner="stump"),
    lambda: SoftBoostClassifier(nu=0.2, weak_learner="stump"),
])
def test_a_failed_lp_solve_fails_the_fit_naming_solver_and_status(make, data, monkeypatch):
    X, y = data[False]
    est = make().fit(X, y)  # an earlier, good fit must not survive a failed refit either
    monkeypatch.setattr(restricted_lp.highspy, "Highs", _IterationLimitedHighs)
    # LPBoost's and MLPBoost's own dual simplex gives up at once, so the round goes to HiGHS
    monkeypatch.setattr(DualSimplexMaster, "_iterate", lambda self, certify=True: False)
    with pytest.raises(SolverError, match=r"HiGHS \(dual simplex\) returned status 'Iteration limit reached'"):
        est.fit(X, y)
    # no half-fitted model: nothing passes check_is_fitted (classes_ and n_features_in_ were set
    # before the loop), and predicting says the estimator is not fitted
    assert not [name for name in vars(est) if name.endswith("_") and not name.startswith("_")]
    with pytest.raises(NotFittedError):
        est.predict(X)


@pytest.mark.parametrize("make", [lambda: FWBoostRegressor(max_iter=5), lambda: GBMRegressor(max_iter=5)])
def test_a_failed_regressor_refit_leaves_it_unfitted(make, data):
    """Regressors do not go through one_vs_rest; their fit forgets the earlier model all the same."""
    X, y = data[True]
    est = make().fit(X, y)
    with pytest.raises(ValueError):
        est.fit(X, np.full(len(y), np.nan))
    assert not [name for name in vars(est) if name.endswith("_") and not name.startswith("_")]
    with pytest.raises(NotFittedError):
        est.predict(X)


def test_an_unconverged_entropy_solve_falls_back_to_the_fw_step(data):
    """The documented fallback of the entropy rule: warn, keep the better of its inexact
    solution and the FW candidate (secondary.EntropyRule, 000 Theorem 3)."""
    X, y = data[False]
    est = MLPBoostClassifier(nu=0.2, eps=0.05, weak_learner="stump", secondary=EntropyRule(max_iter=1),
                             max_iter=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(RuntimeWarning, match="entropy secondary rule"):
            est.fit(X, y)
    assert est.weights_.sum() == pytest.approx(1.0) and np.all(est.weights_ >= 0)
    assert np.all(np.diff(est.history_["objective"]) >= -1e-12)  # each round keeps the better candidate


# ----------------------------------------------------------------------------- determinism
def _model(est):
    doc = model_to_dict(est)
    doc["state"].pop("nzdd_build_time", None)  # a duration
    return doc


@pytest.mark.parametrize("name", CASES)
def test_fits_are_identical_whatever_the_number_of_threads(name, data):
    case = CASES[name]
    X, y = _xy(case, data)

    def fit():
        return _fit_quietly(case.make("stump").set_params(**{case.rounds: 15}), X, y)

    first = fit()
    with threadpool_limits(1):
        single = fit()
    assert _model(fit()) == _model(first) == _model(single)


@pytest.mark.parametrize("subsample", [0.5, 1.0])
def test_gbm_random_state_fixes_the_subsamples(subsample, data):
    X, y = data[True]

    def fit(seed):
        return GBMRegressor(max_iter=20, subsample=subsample, random_state=seed).fit(X, y)

    first = fit(3)
    with threadpool_limits(1):
        single = fit(3)
    assert _model(fit(3)) == _model(first) == _model(single)
    np.testing.assert_array_equal(first.predict(X), single.predict(X))
    if subsample < 1:
        assert _model(fit(4)) != _model(first)
        rs = fit(np.random.RandomState(3))  # sklearn's convention: a RandomState draws the seed
        assert [encode_hypothesis(h) for h in rs.hypotheses_] == \
            [encode_hypothesis(h) for h in fit(np.random.RandomState(3)).hypotheses_]


def test_sklearn_weak_learner_random_state_is_reproduced(data):
    X, y = data[False]
    tree = DecisionTreeClassifier(max_depth=2, max_features=2, random_state=0)

    def fit():
        return _fit_quietly(MLPBoostClassifier(nu=0.2, weak_learner=tree, max_iter=15), X, y)

    first = fit()
    with threadpool_limits(1):
        single = fit()
    for other in (fit(), single):
        np.testing.assert_array_equal(other.weights_, first.weights_)
        assert len(other.hypotheses_) == len(first.hypotheses_)
        for a, b in zip(other.hypotheses_, first.hypotheses_):
            for field in ("feature", "threshold", "value"):
                np.testing.assert_array_equal(getattr(a.estimator.tree_, field), getattr(b.estimator.tree_, field))


def test_data_generators_are_seeded():
    for make in (make_twonorm, make_waveform):
        a, b, c = make(300, seed=5), make(300, seed=5), make(300, seed=6)
        np.testing.assert_array_equal(a.X, b.X)
        np.testing.assert_array_equal(a.y, b.y)
        assert not np.array_equal(a.X, c.X)


# Sums over m > 10^4 entries are where a second BLAS thread changed the rounding (the loops
# now run BLAS single-threaded, marginboost.core.threads); GraphSepBoost's O(m^2) graph is left out.
@pytest.mark.parametrize("name", ["CERLPBoost", "MLPBoost", "AdaBoostV", "SmoothBoost", "MABoost",
                                  "MadaBoost", "FWBoostClassifier", "GBMClassifier", "AverageMargin"])
def test_large_samples_are_identical_whatever_the_number_of_threads(name):
    if max(info["num_threads"] for info in threadpool_info()) < 2:
        pytest.skip("one BLAS thread only")
    case = CASES[name]
    data = make_twonorm(20000, seed=0)
    X, y = data.X, data.y

    def fit():
        return _fit_quietly(case.make("stump").set_params(**{case.rounds: 30}), X, y)

    with threadpool_limits(1):
        single = fit()
    np.testing.assert_array_equal(fit().decision_function(X), single.decision_function(X))
