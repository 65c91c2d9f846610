"""FWBoost (paper 001, Wang, Wang, E, Schapire 2015) against an independent convex solver.

On tiny data the stumps restricted to the sample are a finite set (``all_stump_outputs``), so
``min_{||w||_1 <= beta} L(A w)`` over all of them is one convex program, solved here by cvxpy
(Clarabel). FWBoost_C with exact stumps is FW on exactly that problem; its gap certifies
``L(F_t) - L* <= gap_t`` at every iterate, and the reference must agree with that.
"""
import numpy as np
import pytest

cp = pytest.importorskip("cvxpy")

from reference import all_stump_margins  # noqa: E402

from marginboost.functional.fwboost import (  # noqa: E402
    adaboost_fw,
    best_constant,
    classifier_oracle,
    fwboost,
    regression_oracle,
)
from marginboost.functional.losses import AbsoluteLoss, ExponentialLoss, HuberLoss, LogisticLoss, SquaredLoss  # noqa: E402
from marginboost.weak_learners import DecisionStump, EdgeTree, WeakLearner  # noqa: E402
from marginboost.weak_learners.regression import LeastSquaresStump  # noqa: E402

M = 30


def all_stump_outputs(X):
    """``h(X)`` of every distinct stump (constants included): the margins with ``y = 1``."""
    return all_stump_margins(X, np.ones(X.shape[0]))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(M, 2))
    y_reg = X[:, 0] ** 2 + 0.3 * rng.normal(size=M)
    y_cls = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=M) > 0, 1.0, -1.0)
    return X, y_reg, y_cls, all_stump_outputs(X)


def cvxpy_optimum(A, loss, y, beta, offset=0.0):
    """``min_{||w||_1 <= beta} L(offset + A w)`` by Clarabel, written with cvxpy atoms."""
    w = cp.Variable(A.shape[1])
    F = offset + A @ w
    m = y.shape[0]
    if isinstance(loss, SquaredLoss):
        obj = 0.5 * cp.sum_squares(F - y) / m
    elif isinstance(loss, HuberLoss):  # cvxpy's huber(x, M) is twice ours
        obj = 0.5 * cp.sum(cp.huber(F - y, loss.delta)) / m
    elif isinstance(loss, AbsoluteLoss):
        obj = cp.sum(cp.abs(F - y)) / m
    elif isinstance(loss, LogisticLoss):
        obj = cp.sum(cp.logistic(-cp.multiply(y, F))) / m
    else:
        obj = cp.sum(cp.exp(-cp.multiply(y, F))) / m
    problem = cp.Problem(cp.Minimize(obj), [cp.norm1(w) <= beta])
    problem.solve(solver="CLARABEL")
    assert problem.status == "optimal"
    return float(problem.value)


def _problem(data, loss):
    X, y_reg, y_cls, A = data
    return (X, y_cls, A) if loss.kind == "classification" else (X, y_reg, A)


def _check_feasible_path(result, A_outputs_of):
    """||w_t||_1 <= beta at every round, from the logged weights (not from history)."""
    sup = np.array([np.max(np.abs(out)) for out in A_outputs_of])
    for alpha in result.weights_path:
        coef = result.beta * alpha * result.scales[: alpha.shape[0]]
        assert np.sum(np.abs(coef) * sup[: alpha.shape[0]]) <= result.beta * (1 + 1e-12)
    assert np.all(result.history["l1_norm"] <= result.beta * (1 + 1e-12))


SMOOTH = [(SquaredLoss(), 2.0), (HuberLoss(0.5), 2.0), (LogisticLoss(), 3.0), (ExponentialLoss(), 1.5)]


@pytest.mark.parametrize("loss,beta", SMOOTH, ids=lambda v: repr(v))
@pytest.mark.parametrize("step", ["line_search", "short_step"])
def test_away_step_fwboost_c_reaches_the_cvxpy_optimum(data, loss, beta, step):
    X, y, A = _problem(data, loss)
    ref = cvxpy_optimum(A, loss, y, beta)
    res = fwboost(classifier_oracle(DecisionStump(), X), loss, y, beta, step=step, away_steps=True,
                  max_iter=5000, tol=1e-6)
    assert res.status == "converged" and res.gap <= 1e-6
    # the optimum lies in [L - gap, L]; Clarabel is accurate to ~1e-8
    assert ref - 1e-7 <= res.loss <= ref + res.gap + 1e-7
    hist = res.history
    assert np.all(hist["loss"] - ref <= hist["gap"] + 1e-7)  # the certificate at every iterate
    assert np.all(np.diff(hist["loss"]) <= 1e-12)  # exact line search and short step descend
    assert hist["l1_norm"][-1] == pytest.approx(beta)  # the ball is active at these beta
    _check_feasible_path(res, [h.predict(X) for h in res.hypotheses])
    assert set(hist["direction"][1:]) >= {1, 2} or set(hist["direction"][1:]) >= {1, 3}


@pytest.mark.parametrize("loss,beta", SMOOTH[:3], ids=lambda v: repr(v))
def test_classic_step_obeys_the_frank_wolfe_rate(data, loss, beta):
    """Jaggi (2013): L(F_t) - L* <= 2 C diam^2 / (t + 2), diam = 2 beta sqrt(m) in l2."""
    X, y, A = _problem(data, loss)
    ref = cvxpy_optimum(A, loss, y, beta)
    res = fwboost(classifier_oracle(DecisionStump(), X), loss, y, beta, step="classic", max_iter=2000)
    C = loss.smoothness(y, -beta, beta)
    t = res.history["round"][1:]
    assert np.all(res.history["loss"][1:] - ref <= 2 * C * 4 * beta**2 * M / (t + 2))
    assert np.all(res.history["loss"] - ref <= res.history["gap"] + 1e-7)
    assert res.gap <= 5e-3 and res.loss - ref <= 1e-5
    _check_feasible_path(res, [h.predict(X) for h in res.hypotheses])


def test_plain_fw_line_search_and_offset(data):
    """Without away steps, and with the best constant as offset outside the ball."""
    X, y, A = _problem(data, SquaredLoss())
    loss = SquaredLoss()
    c = best_constant(loss, y)
    assert c == pytest.approx(y.mean(), abs=1e-10)
    ref = cvxpy_optimum(A, loss, y, 1.0, offset=c)
    res = fwboost(classifier_oracle(EdgeTree(max_depth=1), X), loss, y, 1.0, offset=c,
                  step="line_search", max_iter=3000, tol=2e-3)
    assert res.status == "converged"
    assert ref - 1e-7 <= res.loss <= ref + res.gap + 1e-7


def test_absolute_loss_classic_step_certificate(data):
    """Non-smooth: the subgradient gap still bounds L - L* (convexity); only 'classic' runs."""
    X, y, A = _problem(data, SquaredLoss())
    loss = AbsoluteLoss()
    c = best_constant(loss, y)
    ref = cvxpy_optimum(A, loss, y, 1.0, offset=c)
    res = fwboost(classifier_oracle(DecisionStump(), X), loss, y, 1.0, offset=c, step="classic",
                  max_iter=500)
    assert np.all(res.history["loss"] - ref >= -1e-7)
    assert np.all(res.history["loss"] - ref <= res.history["gap"] + 1e-7)
    assert res.loss - ref < 0.5 * (res.history["loss"][0] - ref)
    with pytest.raises(ValueError, match="only step='classic'"):
        fwboost(classifier_oracle(DecisionStump(), X), loss, y, 1.0, step="line_search")


@pytest.mark.parametrize("loss", [SquaredLoss(), HuberLoss(0.5)], ids=repr)
def test_fwboost_r_descends_stays_feasible_and_its_gap_is_only_along_its_vertex(data, loss):
    """FWBoost_R's least-squares vertex is not the l1 LMO: it can stop short of L*. The true
    FW gap over all stumps still certifies its loss."""
    X, y, A = _problem(data, loss)
    beta = 2.0
    ref = cvxpy_optimum(A, loss, y, beta)
    res = fwboost(regression_oracle(LeastSquaresStump(), X, np.full(M, 1.0 / M)), loss, y, beta,
                  step="line_search", max_iter=500, tol=1e-9)
    assert np.all(np.diff(res.history["loss"]) <= 1e-12)
    assert res.loss < res.history["loss"][0]
    _check_feasible_path(res, [h.predict(X) for h in res.hypotheses])
    g = -loss.gradient(res.F, y)
    true_gap = beta * np.max(np.abs(g @ A)) - g @ res.F
    assert ref - 1e-7 <= res.loss <= ref + true_gap + 1e-7
    assert res.gap <= true_gap + 1e-12


class TableLearner(WeakLearner):
    """A finite class of real-valued hypotheses (columns of ``H``, values in [-1, 1]) with
    generic values, so that the edge maximiser is unique: no tie-breaking by rounding."""

    def __init__(self, H):
        self.H = H

    def prepare(self, X, y):
        H = self.H

        def oracle(d):  # the hypothesis is (column, sign); the tests never predict off-sample
            edges = (d * y) @ H
            k = int(np.argmax(np.abs(edges)))
            sign = 1.0 if edges[k] >= 0 else -1.0
            return (k, sign), sign * H[:, k]

        return oracle


@pytest.mark.parametrize("step", ["classic", "line_search"])
def test_adaboost_fw_is_fwboost_c_with_exponential_loss(data, step):
    _, _, y, _ = data
    H = np.random.default_rng(5).uniform(-1.0, 1.0, size=(M, 40))
    learner = TableLearner(H)
    beta, T = 3.0, 60
    ada = adaboost_fw(learner.prepare(None, y), y, beta, step=step, max_iter=T, keep_distributions=True)
    gen = fwboost(classifier_oracle(learner, np.zeros((M, 1))), ExponentialLoss(), y, beta, step=step,
                  max_iter=T)
    assert ada.hypotheses == gen.hypotheses
    for key in ("loss", "gap", "step", "l1_norm", "n_active"):
        np.testing.assert_allclose(ada.history[key], gen.history[key], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ada.F, gen.F, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(ada.weights, gen.weights, rtol=1e-9, atol=1e-12)
    for a_ada, a_gen in zip(ada.weights_path, gen.weights_path):
        np.testing.assert_allclose(a_ada, a_gen, rtol=1e-9, atol=1e-12)
    # AdaBoost's example weights: D_t = exp(-y F_t) / sum, F_t the generic iterate
    F_path = [np.zeros(M)] + [H[:, [k for k, _ in gen.hypotheses[: a.shape[0]]]]
                              @ (beta * a * [s for _, s in gen.hypotheses[: a.shape[0]]])
                              for a in gen.weights_path]
    for D, F in zip(ada.distributions, F_path):
        expected = np.exp(-y * F - np.max(-y * F))
        np.testing.assert_allclose(D, expected / expected.sum(), rtol=1e-9, atol=1e-14)


def test_classifier_oracle_signed_shortcut_equals_relabelling(data):
    """DecisionStump/EdgeTree are prepared once with y = 1 and called with g / sum|g|; that
    must equal preparing with labels sign(g) and weights |g| / sum|g|."""
    X = data[0]
    g = np.random.default_rng(2).normal(size=M)
    for learner in (DecisionStump(), EdgeTree(max_depth=2)):
        h, out, _ = classifier_oracle(learner, X)(g)
        labels = np.where(g >= 0, 1.0, -1.0)
        h2, out2 = learner.prepare(X, labels)(np.abs(g) / np.abs(g).sum())
        np.testing.assert_array_equal(out, out2)


def test_bad_arguments_name_the_parameter(data):
    X, y_reg, y_cls, _ = data
    lmo = classifier_oracle(DecisionStump(), X)
    with pytest.raises(ValueError, match="beta must be > 0"):
        fwboost(lmo, SquaredLoss(), y_reg, 0.0)
    with pytest.raises(ValueError, match="step must be one of"):
        fwboost(lmo, SquaredLoss(), y_reg, 1.0, step="armijo")
    with pytest.raises(ValueError, match="loss='exponential' is a classification loss"):
        fwboost(lmo, ExponentialLoss(), y_reg, 1.0)
    with pytest.raises(ValueError, match="step must be 'classic' or 'line_search'"):
        adaboost_fw(DecisionStump().prepare(X, y_cls), y_cls, 1.0, step="short_step")


# --------------------------------------------------------------------------- estimators
from sklearn.datasets import load_diabetes, make_classification, make_regression  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from marginboost.estimators.fwboost import FWBoostClassifier, FWBoostRegressor  # noqa: E402

# DecisionStump breaks exact ties between equal edges by the rounding of its running sums,
# which differs between a weight-2 row and two copies of it.
_STUMP_TIES = {"check_sample_weight_equivalence_on_dense_data":
               "exact ties between stumps broken by rounding (DecisionStump has no tie tolerance)"}


# On the check's 15 separable rows of 3 classes every one-vs-rest model of variant R ends at the
# radius beta, so two classes tie exactly at some points and the argmax between them is decided by
# the rounding of sums that differ between a weight-2 row and two copies of it.
_CLASS_TIES = {"check_sample_weight_equivalence_on_dense_data":
               "exact ties between the classes' decision values (both at beta) broken by rounding"}


def _expected_failures(est):
    if est.variant == "C" and est.weak_learner == "stump":
        return _STUMP_TIES
    return _CLASS_TIES if isinstance(est, FWBoostClassifier) and est.variant == "R" else {}


@parametrize_with_checks(
    [FWBoostRegressor(), FWBoostClassifier(), FWBoostRegressor(variant="R", away_steps=True),
     FWBoostRegressor(variant="R", weak_learner="stump", step="short_step", away_steps=True),
     FWBoostClassifier(loss="logistic", variant="R", weak_learner="stump"),
     FWBoostRegressor(loss="absolute", variant="C", weak_learner="stump", step="classic")],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_regressor_attributes_history_and_staged_predictions():
    X, y = load_diabetes(return_X_y=True)
    est = FWBoostRegressor(beta=200.0, max_iter=60, weak_learner="stump").fit(X, y)
    assert est.offset_ == pytest.approx(y.mean())
    n = est.n_iter_
    assert n == 60 and est.status_ == "max_iter"
    assert all(len(v) == n + 1 for v in est.history_.values())
    assert np.all(est.history_["l1_norm"] <= 200.0 * (1 + 1e-12))
    staged = list(est.staged_predict(X))
    assert len(staged) == n
    np.testing.assert_allclose(staged[-1], est.predict(X), rtol=1e-12)
    losses = [0.5 * np.mean((F - y) ** 2) for F in staged]
    np.testing.assert_allclose(losses, est.history_["loss"][1:], rtol=1e-9)
    np.testing.assert_allclose(est.train_loss_, est.history_["loss"][-1])
    assert est.score(X, y) > 0.5


def test_classifier_labels_and_staged_decision():
    X, y = make_classification(n_samples=200, n_features=6, random_state=0)
    labels = np.where(y == 1, "yes", "no")
    est = FWBoostClassifier(beta=3.0, max_iter=40, weak_learner="stump").fit(X, labels)
    assert list(est.classes_) == ["no", "yes"]
    assert est.score(X, labels) > 0.85
    score = est.decision_function(X)
    np.testing.assert_array_equal(est.predict(X), est.classes_[(score > 0).astype(int)])
    assert np.all(np.abs(score) <= 3.0 + 1e-9)  # |F(x)| <= beta for hypotheses in [-1, 1]
    staged = list(est.staged_decision_function(X))
    np.testing.assert_allclose(staged[-1], score, rtol=1e-12)
    assert len(list(est.staged_predict(X))) == est.n_iter_


@pytest.mark.parametrize(
    "est,y,match",
    [
        (FWBoostRegressor(beta=0.0), None, r"'beta' parameter .* range \(0.0, inf\)"),
        (FWBoostRegressor(beta=-1.0), None, r"'beta' parameter"),
        (FWBoostRegressor(loss="hinge"), None, r"'loss' parameter"),
        (FWBoostRegressor(step="armijo"), None, r"'step' parameter"),
        (FWBoostRegressor(variant="Q"), None, r"'variant' parameter"),
        (FWBoostRegressor(max_iter=0), None, r"'max_iter' parameter .* range \[1, inf\)"),
        (FWBoostRegressor(eps=-1.0), None, r"'eps' parameter"),
        (FWBoostRegressor(loss="logistic"), None, r"loss='logistic' is a classification loss"),
        (FWBoostRegressor(loss="absolute"), None, r"only step='classic'"),
        (FWBoostRegressor(variant="R", weak_learner=EdgeTree(2)), None, r"weak_learner must be"),
        (FWBoostRegressor(), "nan", r"Input y contains NaN"),
        (FWBoostClassifier(), "one", r"at least two classes, got 1 class"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(est, y, match):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    target = rng.normal(size=20)
    if y == "nan":
        target[3] = np.nan
    elif y == "one":
        target = np.zeros(20)
    with pytest.raises(ValueError, match=match):
        est.fit(X, target)


@pytest.mark.parametrize("cls", [FWBoostRegressor, FWBoostClassifier])
def test_the_old_names_work_for_a_release_with_a_future_warning(cls):
    """Issue 30: the stopping tolerance is ``eps`` in every estimator (FWBoost's was ``tol``), the
    coefficient vector ``weights_`` (was ``coef_``); the old names still work, warning."""
    X, y = make_regression(80, 4, noise=1.0, random_state=0) if cls is FWBoostRegressor else \
        make_classification(80, 4, random_state=0)
    new = cls(eps=1e-3, max_iter=30, weak_learner="stump").fit(X, y)
    with pytest.warns(FutureWarning, match=r"the parameter tol was renamed eps in marginboost 0\.2 .* pass eps=0\.001"):
        old = cls(tol=1e-3, max_iter=30, weak_learner="stump").fit(X, y)
    np.testing.assert_array_equal(old.weights_, new.weights_)
    assert old.n_iter_ == new.n_iter_ and old.status_ == new.status_
    with pytest.warns(FutureWarning, match=r"coef_ was renamed weights_ in marginboost 0\.2 and will be removed in 0\.3"):
        np.testing.assert_array_equal(new.coef_, new.weights_)
    with pytest.raises(ValueError, match="tol=0.01 and eps=0.001 name the same parameter"), \
            pytest.warns(FutureWarning):
        cls(eps=1e-3, tol=1e-2).fit(X, y)
    assert np.array_equal(list(new.weights_path_)[-1], new.weights_) and len(new.weights_path_) == new.n_iter_
