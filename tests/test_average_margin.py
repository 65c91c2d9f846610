"""The average-margin booster of paper 003 (Algorithm 1) and its estimator.

The reference is the exact soft-margin LP over every stump (tests/reference.py): at
convergence the output's soft margin must be within eps of it, and never above it."""
import re
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from marginboost import DegenerateModelWarning
from marginboost.average_margin.frank_wolfe import HISTORY_COLUMNS, average_margin_boost, stump_eta
from marginboost.estimators.average_margin import AverageMarginBoostClassifier
from marginboost.average_margin.nzdd_stumps import build_stump_nzdd
from reference import all_stump_margins, exact_soft_margin_lp, small_real_datasets, soft_margin_reference


@pytest.fixture(scope="module")
def real_with_optimum():
    out = []
    for name, X, y in small_real_datasets():
        nu = 0.5 * X.shape[0]
        out.append((name, X, y, nu, exact_soft_margin_lp(all_stump_margins(X, y), nu)[0]))
    return out


@pytest.mark.parametrize("eta", ["exact", "stump_bound"])
def test_soft_margin_within_eps_of_exact_lp(real_with_optimum, eta):
    eps = 0.01
    for name, X, y, nu, optimum in real_with_optimum:
        est = AverageMarginBoostClassifier(nu=nu, eps=eps, eta=eta).fit(X, y)
        assert est.status_ == "converged", name
        assert est.gap_ <= eps / 2
        assert optimum - eps <= est.full_margin_ <= optimum + 1e-9, name
        # Dropping light stumps moves every margin by at most twice the dropped mass.
        assert est.margin_ >= est.full_margin_ - 2 * est.dropped_mass_ - 1e-12
        assert est.margin_ <= optimum + 1e-9
        margins = np.where(y > 0, 1.0, -1.0) * est.decision_function(X)
        assert est.margin_ == pytest.approx(soft_margin_reference(margins, nu), abs=1e-12)


@pytest.mark.parametrize("step,stop", [("line_search", "gap"), ("short_step", "certified"), ("classic", "certified")])
def test_other_steps_and_stops_keep_the_guarantee(real_with_optimum, step, stop):
    eps = 0.02
    name, X, y, nu, optimum = real_with_optimum[1]
    est = AverageMarginBoostClassifier(nu=nu, eps=eps, step=step, stop=stop, max_iter=20000).fit(X, y)
    assert est.status_ == "converged"
    assert optimum - eps <= est.full_margin_ <= optimum + 1e-9
    h = est.history_
    if stop == "certified":  # the certificate is an upper bound on the optimum
        assert np.all(h["best_edge"] >= optimum - 1e-9)


def test_history_rows_and_loop_against_the_generic_dp():
    X, y = make_classification(n_samples=60, n_features=3, n_informative=2, n_redundant=0, random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    S = build_stump_nzdd(X, y)
    eta = stump_eta(3, 60, 0.05)
    fast = average_margin_boost(lambda d: S.average_margin(d, eta), 60, 30.0, 0.05, eta, max_iter=300)
    slow = average_margin_boost(lambda d: S.nzdd.average_margin(d, eta), 60, 30.0, 0.05, eta, max_iter=300)
    # Rounding-level differences may break ties in the sort differently, so the runs need not
    # coincide; both must converge, and the two oracles agree where the fast run ended.
    assert fast.status == slow.status == "converged" and slow.gap <= 0.025
    np.testing.assert_allclose(S.average_margin(fast.d, eta)[0], S.nzdd.average_margin(fast.d, eta)[0], atol=1e-10)
    np.testing.assert_allclose(fast.margins, S.average_margin(fast.d, eta)[0], atol=0)
    h = fast.history
    assert set(h) == set(HISTORY_COLUMNS)
    assert all(len(v) == fast.n_iter for v in h.values())
    np.testing.assert_array_equal(h["round"], np.arange(1, fast.n_iter + 1))
    assert np.all(h["gap"] >= -1e-12) and np.all(np.diff(h["time"]) >= 0)
    # classic step 2/(t+2) in every row but the stopping one
    np.testing.assert_allclose(h["step"][:-1], 2.0 / (np.arange(fast.n_iter - 1) + 2.0))
    assert h["soft_margin"][-1] == pytest.approx(soft_margin_reference(fast.margins, 30.0), abs=1e-12)
    assert fast.gap <= 0.025 and fast.status == "converged"


# 1000 rounds: the three-blob one-vs-rest problems of check_classifiers_train need about that many
# classic FW steps (eps=0.01) for its accuracy of 0.83; two blobs take two.
@parametrize_with_checks([AverageMarginBoostClassifier(max_iter=1000)])
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_fitted_model_and_nzdd_reuse():
    X, y = make_classification(n_samples=120, n_features=4, random_state=1)
    labels = np.where(y == 1, "yes", "no")
    est = AverageMarginBoostClassifier(nu=0.5, eps=0.02).fit(X, labels)
    assert list(est.classes_) == ["no", "yes"]
    score = est.decision_function(X)
    assert np.all(np.abs(score) <= 1 + 1e-12)
    np.testing.assert_array_equal(est.predict(X), est.classes_[(score > 0).astype(int)])
    assert est.weights_.sum() == pytest.approx(1.0) and np.all(est.weights_ > 0)
    assert len(est.hypotheses_) == est.weights_.shape[0] <= est.n_hypotheses_ <= 2 * 4 * 121
    assert 0 <= est.dropped_mass_ < 1e-3
    assert est.nzdd_size_ <= 2 * 4 * 120
    stumps = np.column_stack([h.predict(X) for h in est.hypotheses_])
    np.testing.assert_allclose(stumps @ est.weights_, score, atol=1e-12)
    again = AverageMarginBoostClassifier(nu=0.5, eps=0.02).fit(X, labels, nzdd=est.nzdd_)
    np.testing.assert_array_equal(again.weights_, est.weights_)
    with pytest.raises(ValueError, match="nzdd was built for other data"):
        AverageMarginBoostClassifier().fit(X[:-1], labels[:-1], nzdd=est.nzdd_)
    with pytest.raises(ValueError, match="nzdd was built for other data"):
        AverageMarginBoostClassifier().fit(X, labels[::-1], nzdd=est.nzdd_)


def test_min_weight_trades_size_for_dropped_mass():
    X, y = make_classification(n_samples=100, n_features=3, n_informative=2, n_redundant=0, random_state=2)
    small = AverageMarginBoostClassifier(nu=0.5, eps=0.05, min_weight=1e-2).fit(X, y)
    full = AverageMarginBoostClassifier(nu=0.5, eps=0.05, min_weight=0.0).fit(X, y)
    assert len(small.hypotheses_) < len(full.hypotheses_) == full.n_hypotheses_
    assert small.dropped_mass_ > 0 and full.dropped_mass_ == 0
    assert small.margin_ >= small.full_margin_ - 2 * small.dropped_mass_ - 1e-12


X_OK, Y_OK = make_classification(n_samples=30, n_features=3, n_informative=2, n_redundant=0, random_state=1)


@pytest.mark.parametrize(
    "params,match",
    [
        ({"nu": 0}, "'nu' parameter"),
        ({"nu": 31}, r"nu must be a count in \[1, m\] = \[1, 30\]"),
        ({"eps": 0.0}, "'eps' parameter.*range"),
        ({"eta": -1.0}, "'eta' parameter"),
        ({"eta": 2e9}, r"'eta' parameter.*\[1e-12, 1000000000.0\]"),
        ({"eta": "huge"}, "'eta' parameter"),
        ({"eps": 1e-12}, r"eta = .* exceeds 1e\+09.*raise eps"),
        # issue 18: a ZeroDivisionError, and decision functions NaN everywhere
        ({"eta": 5e-324}, r"'eta' parameter.*\[1e-12, 1000000000.0\]"),
        ({"eta": 1e-300}, r"'eta' parameter.*\[1e-12, 1000000000.0\]"),
        ({"eps": 1e300}, r"eta = .* \(from eps=1e\+300\) is below 1e-12.*lower eps \(at most .*\)"),
        ({"eps": 1e300, "eta": "stump_bound"}, r"eta = .* \(from eps=1e\+300\) is below 1e-12.*lower eps"),
        ({"step": "newton"}, "'step' parameter"),
        ({"stop": "never"}, "'stop' parameter"),
        ({"min_weight": 1.0}, r"'min_weight' parameter.*\[0.0, 1.0\)"),
        ({"max_iter": 0}, "'max_iter' parameter"),
        ({"max_time": 0}, "'max_time' parameter"),
    ],
)
def test_bad_parameters_name_the_parameter_and_range(params, match):
    with pytest.raises(ValueError, match=match):
        AverageMarginBoostClassifier(**params).fit(X_OK, Y_OK)


def test_smallest_eta_still_classifies():
    """Issue 18: eta = 1e-300 (or eps = 1e300) made every stump weight NaN (a subnormal quantum
    in the oracle, 1/q = inf), and eta = 1e-17 left the weights uniform to the last bit: a
    decision of rounding noise, no better than the majority class. At the smallest eta allowed
    (1e-12), and at the largest eps (which the error message names), the vote still classifies."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:200, :5], y[:200]
    majority = max(np.mean(y), 1 - np.mean(y))
    with pytest.raises(ValueError, match=r"lower eps \(at most (\S+) on this data\)") as info:
        AverageMarginBoostClassifier(eps=1e300, max_iter=30).fit(X, y)
    largest_eps = float(info.value.args[0].rsplit("at most ", 1)[1].split(" ")[0]) * (1 - 1e-2)  # 3 digits
    for est in (AverageMarginBoostClassifier(eta=1e-12, max_iter=30),
                AverageMarginBoostClassifier(eps=largest_eps, max_iter=30)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X, y)
        assert 1e-12 <= est.eta_ <= 1.02e-12
        f = est.decision_function(X)
        assert np.all(np.isfinite(f)) and np.all(np.isfinite(est.weights_))
        assert est.score(X, y) > majority


def test_bad_data():
    est = AverageMarginBoostClassifier()
    with pytest.raises(ValueError, match="at least two classes.*1 class"):
        est.fit(X_OK, np.zeros(30))
    for bad, match in ((np.nan, "NaN"), (np.inf, "infinity")):
        X = X_OK.copy()
        X[3, 1] = bad
        with pytest.raises(ValueError, match=match):
            est.fit(X, Y_OK)


def test_not_converged_warns():
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est = AverageMarginBoostClassifier(nu=0.1, eps=0.001, max_iter=3).fit(X_OK, Y_OK)
    assert est.status_ == "max_iter" and est.n_iter_ == 3


def test_round_ensemble_is_the_model_stored_at_that_round():
    """record.ensemble() at round t gives the vote a fit stopped after round t stores: the same
    stumps and weights (weight 0 for stumps stored at earlier rounds only), the same signs."""
    X, y = make_classification(n_samples=80, n_features=3, n_informative=2, n_redundant=0, random_state=3)
    seen = []

    def record(r):
        seen.append((r.round, r.ensemble()))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        AverageMarginBoostClassifier(nu=0.3, eps=0.01, max_iter=6, callbacks=[record]).fit(X, y)
        for t, (hypotheses, weights, offset) in seen:
            ref = AverageMarginBoostClassifier(nu=0.3, eps=0.01, max_iter=t).fit(X, y)
            assert offset == 0.0 and len(hypotheses) == weights.shape[0]
            used = [(h.feature, h.threshold, h.sign, w) for h, w in zip(hypotheses, weights) if w != 0.0]
            stored = [(h.feature, h.threshold, h.sign, w) for h, w in zip(ref.hypotheses_, ref.weights_)]
            assert sorted(used) == sorted(stored)
            vote = np.column_stack([h.predict(X) for h in hypotheses]) @ weights
            np.testing.assert_allclose(vote, ref.decision_function(X), atol=1e-12)
    assert [t for t, _ in seen] == list(range(1, 7))
    # the list of stumps only grows, and keeps its objects: early stopping evaluates each once
    for (_, (before, _, _)), (_, (after, _, _)) in zip(seen, seen[1:]):
        assert all(a is b for a, b in zip(before, after))


@pytest.mark.parametrize("step", ["classic", "line_search"])
def test_warm_start_is_one_longer_fit_history_included(step):
    X, y = make_classification(n_samples=80, n_features=3, n_informative=2, n_redundant=0, random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = AverageMarginBoostClassifier(nu=0.3, eps=0.001, step=step, max_iter=3, warm_start=True).fit(X, y)
        est.set_params(max_iter=8).fit(X, y)
        ref = AverageMarginBoostClassifier(nu=0.3, eps=0.001, step=step, max_iter=8).fit(X, y)
    assert est.n_iter_ == ref.n_iter_ > 3
    np.testing.assert_array_equal(est.weights_, ref.weights_)
    np.testing.assert_array_equal(est.distribution_, ref.distribution_)
    assert est.margin_ == ref.margin_
    for key in set(HISTORY_COLUMNS) - {"time", "oracle_time"}:  # the step after row 2 is in row 2, as in one fit
        np.testing.assert_array_equal(est.history_[key], ref.history_[key], err_msg=key)


@pytest.mark.parametrize("step", ["classic", "line_search"])
def test_warm_start_takes_a_new_eps_where_eta_is_given(step):
    """With eta given as a number, eps is the stopping tolerance alone: a warm start stops at the new
    one, as one fit with it does (issue 33: it kept the old one); with eta derived from eps it is refused."""
    X, y = make_classification(n_samples=80, n_features=3, n_informative=2, n_redundant=0, random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = AverageMarginBoostClassifier(nu=0.3, eps=0.1, eta=40.0, step=step, max_iter=500, warm_start=True)
        est.fit(X, y)
        assert est.status_ == "converged"
        est.set_params(eps=0.002).fit(X, y)  # tighter: the converged fit goes on
        ref = AverageMarginBoostClassifier(nu=0.3, eps=0.002, eta=40.0, step=step, max_iter=500).fit(X, y)
        assert est.status_ == ref.status_ == "converged" and est.n_iter_ == ref.n_iter_
        np.testing.assert_array_equal(est.weights_, ref.weights_)
        np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))
        for key in set(HISTORY_COLUMNS) - {"time", "oracle_time"}:
            np.testing.assert_array_equal(est.history_[key], ref.history_[key], err_msg=key)
        n_iter = est.n_iter_
        est.set_params(eps=0.1).fit(X, y)  # looser: met already, no round added
        assert est.status_ == "converged" and est.n_iter_ == n_iter
        derived = AverageMarginBoostClassifier(nu=0.3, eps=0.1, max_iter=3, warm_start=True).fit(X, y)
        with pytest.raises(ValueError, match=r"\beps\b"):
            derived.set_params(eps=0.05, max_iter=6).fit(X, y)


def _binary_features_with_noisy_labels(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (80, 4)).astype(float)
    y = np.where(rng.random(80) < 0.75, X[:, 0], 1 - X[:, 0]).astype(int)
    y[rng.random(80) < 0.2] = 1
    return X, y


def test_binary_features_below_the_majority_warn_and_name_the_nu_that_works():
    """Issue 33: on binary features with noisy labels the defaults (nu = 0.1) gave a training accuracy
    below the majority rate with only a ConvergenceWarning. The soft-margin optimum cancels at that
    nu (LPBoost: decision 0 everywhere); the warning says so and which nu gives a positive margin."""
    X, y = _binary_features_with_noisy_labels(6)
    majority = max(np.mean(y), 1 - np.mean(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(DegenerateModelWarning, match=r"soft margin -?[0-9.e-]+ <= 0 and misclassifies .* more "
                                                        r"than the .* majority class.* Raise nu above (\d+)") as caught:
            est = AverageMarginBoostClassifier().fit(X, y)
    assert est.score(X, y) < majority and est.margin_ <= 0
    assert abs(exact_soft_margin_lp(all_stump_margins(X, y), est.nu_)[0]) <= 1e-9  # the optimum: 0, a cancellation
    advice = [re.search(r"Raise nu above (\d+)", str(w.message)) for w in caught]
    nu = int(next(a for a in advice if a).group(1)) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        better = AverageMarginBoostClassifier(nu=nu).fit(X, y)
    assert better.margin_ > 0 and better.score(X, y) > majority + 0.05
