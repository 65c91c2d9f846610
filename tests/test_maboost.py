"""MABoost and its variants (paper 002), checked against what cannot lie: independent plain
re-implementations (AdaBoost, SparseBoost, MadaBoost) sharing only the weak learner, exact
membership of every distribution in its set, and the paper's bounds evaluated on the edges
and steps recorded along real runs."""
import re

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.utils.estimator_checks import parametrize_with_checks

from marginboost.mirror.bregman import kl_simplex_projection
from marginboost.mirror.maboost import (
    HISTORY_COLUMNS,
    AdaBoostStep,
    MirrorAscent,
    adaboost,
    maboost,
    madaboost,
    mirror_ascent_boost,
)
from marginboost.estimators.maboost import AdaBoostClassifier, MABoostClassifier, MadaBoostClassifier
from marginboost.weak_learners import DecisionStump

SIMPLEX_VARIANTS = [(r, u, v) for r in ("entropy", "l2") for u in ("active", "lazy")
                    for v in ("normal", "maxmargin", "smooth", "combined")]


@pytest.fixture(scope="module")
def noisy():
    """150 examples with 10% flipped labels: the training error stays positive for a while."""
    X, y = make_classification(n_samples=150, n_features=5, n_informative=3, n_redundant=0,
                               flip_y=0.1, random_state=3)
    y = np.where(y == 1, 1.0, -1.0)
    return X, y, DecisionStump().prepare(X, y)


def _margin_matrix(result, X, y):
    return np.column_stack([y * h.predict(X) for h in result.hypotheses])


def _errors(U, coefs, y):
    """Training error of sign(f_t) after every round t (ties predicted negative), shape (T,)."""
    F = np.cumsum(U * coefs, axis=1)
    wrong = np.where(y[:, None] > 0, F <= 0, F < 0)
    return wrong.mean(axis=0)


# ------------------------------------------------------------- membership and bookkeeping
@pytest.mark.parametrize("regularizer,update,variant", SIMPLEX_VARIANTS)
def test_distributions_stay_in_their_set(noisy, regularizer, update, variant):
    X, y, oracle = noisy
    m = y.shape[0]
    mask = np.arange(m) % 3 == 0
    lam = 0.3 if variant == "smooth" else 1.0  # caps 1/45 and 1/50 = 3x uniform: both bind
    parts = maboost(m, regularizer, update, variant, smoothness=lam, secondary=mask)
    res = mirror_ascent_boost(oracle, y, parts, 60, keep_distributions=True)
    W = res.distributions
    assert W.shape == (60, m)
    assert np.all(W >= 0.0) and np.all(np.abs(W.sum(axis=1) - 1.0) <= 1e-12)
    if variant == "smooth":
        assert np.all(W <= 1.0 / (lam * m) + 1e-12)
        assert np.any(W >= 1.0 / (lam * m) - 1e-15)  # the cap binds: the test is not vacuous
    if variant == "combined":
        cap = 1.0 / (lam * mask.sum())
        assert np.all(W[:, mask] <= cap + 1e-12) and np.any(W[:, mask] >= cap - 1e-15)
    # history matches the run, column by column
    H = res.history
    assert tuple(H) == HISTORY_COLUMNS and all(len(v) == 60 for v in H.values())
    U = _margin_matrix(res, X, y)
    np.testing.assert_allclose(H["edge"], np.einsum("tm,mt->t", W, U), atol=1e-14)
    np.testing.assert_array_equal(H["train_error"], _errors(U, res.weights, y))
    np.testing.assert_allclose(H["max_weight"], W.max(axis=1))
    np.testing.assert_array_equal(H["n_zero"], (W == 0).sum(axis=1))
    assert np.all(H["entropy"] <= np.log(m) + 1e-12)


def test_lazy_differs_from_active_for_l2_and_coincides_for_entropy(noisy):
    X, y, oracle = noisy
    m = y.shape[0]
    runs = {(r, u): mirror_ascent_boost(oracle, y, maboost(m, r, u), 30, keep_distributions=True)
            for r in ("entropy", "l2") for u in ("active", "lazy")}
    # on the simplex the KL projection is a normalisation, which commutes with the update
    np.testing.assert_allclose(runs["entropy", "active"].distributions, runs["entropy", "lazy"].distributions,
                               atol=1e-12)
    assert np.abs(runs["l2", "active"].distributions - runs["l2", "lazy"].distributions).max() > 1e-3


# -------------------------------------------------------------------- AdaBoost equivalence
def _adaboost_reference(oracle, y, rounds, coefficient):
    """Plain AdaBoost: w <- w exp(-alpha y h) / Z; ``coefficient(w, correct) -> alpha``."""
    w = np.full(y.shape[0], 1.0 / y.shape[0])
    ws, alphas = [], []
    for _ in range(rounds):
        ws.append(w)
        h, hx = oracle(w)
        correct = hx == y
        alpha = coefficient(w, correct)
        w = w * np.exp(np.where(correct, -alpha, alpha))
        w = w / w.sum()
        alphas.append(alpha)
    return np.array(ws), np.array(alphas)


@pytest.mark.parametrize("update", ["active", "lazy"])
def test_entropy_maboost_is_adaboost_with_eta_equal_edge(noisy, update):
    """002, after eq. 15: with the entropy and the simplex MABoost is AdaBoost with eta_t = gamma_t."""
    X, y, oracle = noisy
    res = mirror_ascent_boost(oracle, y, maboost(y.shape[0], "entropy", update), 80, keep_distributions=True)
    ws, alphas = _adaboost_reference(oracle, y, 80, lambda w, ok: w[ok].sum() - w[~ok].sum())
    np.testing.assert_allclose(res.distributions, ws, atol=1e-10, rtol=0)
    np.testing.assert_allclose(res.weights, alphas, atol=1e-10)


def test_entropy_framework_with_adaboost_step_is_adaboost(noisy):
    X, y, oracle = noisy
    m = y.shape[0]
    parts = MirrorAscent("entropy", "active", lambda theta, alpha: kl_simplex_projection(theta), AdaBoostStep(),
                         np.full(m, 1.0 / m))
    res = mirror_ascent_boost(oracle, y, parts, 80, keep_distributions=True)

    def classic(w, ok):
        err = w[~ok].sum()
        return 0.5 * np.log((1 - err) / err)

    ws, alphas = _adaboost_reference(oracle, y, 80, classic)
    np.testing.assert_allclose(res.distributions, ws, atol=1e-10, rtol=0)
    np.testing.assert_allclose(res.weights, alphas, rtol=1e-10)
    # the packaged assembly and the estimator are that same AdaBoost
    packaged = mirror_ascent_boost(oracle, y, adaboost(m), 80, keep_distributions=True)
    np.testing.assert_allclose(packaged.distributions, ws, atol=1e-10, rtol=0)
    np.testing.assert_allclose(packaged.weights, alphas, rtol=1e-10)
    est = AdaBoostClassifier(weak_learner="stump", max_iter=80).fit(X, y)
    np.testing.assert_allclose(est.weights_, alphas, rtol=1e-10)
    F = np.column_stack([h.predict(X) for h in est.hypotheses_]) @ alphas
    np.testing.assert_array_equal(est.predict(X), np.where(F > 0, 1.0, -1.0))


# ------------------------------------------------------------------------ paper's bounds
@pytest.mark.parametrize("regularizer", ["entropy", "l2"])
@pytest.mark.parametrize("update", ["active", "lazy"])
def test_theorem1_training_error_bound_along_the_run(noisy, regularizer, update):
    """eps_t <= exp(-sum gamma^2 / 2) (entropy, eq. 9) or 1 / (1 + sum gamma^2) (l2, eq. 8), every round."""
    X, y, oracle = noisy
    res = mirror_ascent_boost(oracle, y, maboost(y.shape[0], regularizer, update), 150)
    s = np.cumsum(res.history["edge"] ** 2)
    bound = np.exp(-s / 2) if regularizer == "entropy" else 1.0 / (1.0 + s)
    assert np.all(res.history["train_error"] <= bound + 1e-12)
    assert res.history["train_error"][-1] < res.history["train_error"][0]


@pytest.mark.parametrize("regularizer", ["entropy", "l2"])
@pytest.mark.parametrize("update", ["active", "lazy"])
def test_regret_inequality_against_the_error_comparator(noisy, regularizer, update):
    """002 eqs. 13/18 with e uniform on the mistakes at round T, smooth set: e in K while eps_T >= lambda."""
    X, y, oracle = noisy
    m, lam = y.shape[0], 0.02
    res = mirror_ascent_boost(oracle, y, maboost(m, regularizer, update, "smooth", smoothness=lam), 120,
                              keep_distributions=True)
    U = _margin_matrix(res, X, y)
    eta, W = res.weights, res.distributions
    errors = _errors(U, eta, y)
    L2 = 1.0 if regularizer == "entropy" else (U ** 2).sum(axis=0)  # ||u_t||_*^2 (l_inf or l2)
    checked = 0
    for T in range(1, len(eta) + 1):
        F = U[:, :T] @ eta[:T]
        wrong = np.where(y > 0, F <= 0, F < 0)
        eps = errors[T - 1]
        if eps < lam:
            continue
        e = wrong / wrong.sum()
        lhs = np.sum(eta[:T] * (np.einsum("tm,mt->t", W[:T], U[:, :T]) - e @ U[:, :T]))
        div = np.log(1 / eps) if regularizer == "entropy" else 0.5 * (1 / (m * eps) - 1 / m)
        rhs = div + np.sum(eta[:T] ** 2 * (L2 if np.ndim(L2) == 0 else L2[:T])) / 2
        assert lhs <= rhs + 1e-10
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("regularizer", ["entropy", "l2"])
def test_theorem2_max_margin_inequality(noisy, regularizer):
    """002 eq. 19 with e = the worst-margin vertex:
    rho_T sum eta >= sum eta gamma - B(e_n, x_1) - sum eta^2 ||u||^2 / 2."""
    X, y, oracle = noisy
    X, y = X[y * X[:, 0] > -0.5], y[y * X[:, 0] > -0.5]  # separable enough for a positive max margin
    m = y.shape[0]
    oracle = DecisionStump().prepare(X, y)
    res = mirror_ascent_boost(oracle, y, maboost(m, regularizer, "active", "maxmargin"), 300)
    U = _margin_matrix(res, X, y)
    eta, gamma = res.weights, res.history["edge"]
    div = np.log(m) if regularizer == "entropy" else 0.5 * (1 - 1 / m)
    sq = 1.0 if regularizer == "entropy" else (U ** 2).sum(axis=0)
    rho_unnormalised = np.min(np.cumsum(U * eta, axis=1), axis=0)
    lower = np.cumsum(eta * gamma) - div - np.cumsum(eta ** 2 * sq) / 2
    assert np.all(rho_unnormalised >= lower - 1e-10)
    np.testing.assert_allclose(res.history["min_margin"], rho_unnormalised / np.cumsum(eta))
    assert res.history["min_margin"][-1] > 0


def test_combined_datasets_bounds_and_caps(noisy):
    """eps_A <= (m / m_A) exp(-sum gamma^2 / 2); eps_B the same while eps_B >= lambda (002 section 3.2)."""
    X, y, oracle = noisy
    m, lam = y.shape[0], 0.05
    secondary = np.arange(m) >= 100
    res = mirror_ascent_boost(oracle, y, maboost(m, "entropy", "active", "combined", smoothness=lam,
                                                 secondary=secondary), 150, keep_distributions=True)
    U = _margin_matrix(res, X, y)
    F = np.cumsum(U * res.weights, axis=1)
    wrong = np.where(y[:, None] > 0, F <= 0, F < 0)
    decay = np.exp(-np.cumsum(res.history["edge"] ** 2) / 2)
    eps_a, eps_b = wrong[~secondary].mean(axis=0), wrong[secondary].mean(axis=0)
    assert np.all(eps_a <= m / (~secondary).sum() * decay + 1e-12)
    assert np.all((eps_b < lam) | (eps_b <= m / secondary.sum() * decay + 1e-12))
    assert np.all(res.distributions[:, secondary] <= 1 / (lam * secondary.sum()) + 1e-12)


def test_smooth_never_exceeds_its_cap_and_bound_holds_to_lambda(noisy):
    X, y, oracle = noisy
    m, lam = y.shape[0], 0.1
    for regularizer in ("entropy", "l2"):
        res = mirror_ascent_boost(oracle, y, maboost(m, regularizer, "active", "smooth", smoothness=lam), 150)
        H = res.history
        assert np.all(H["max_weight"] <= 1 / (lam * m) + 1e-12)
        s = np.cumsum(H["edge"] ** 2)
        bound = np.exp(-s / 2) if regularizer == "entropy" else 1 / (1 + s)
        assert np.all((H["train_error"] < lam) | (H["train_error"] <= bound + 1e-12))


# ----------------------------------------------------------------- SparseBoost, MadaBoost
@pytest.mark.parametrize("c", [0.0, 0.5])
def test_sparseboost_matches_plain_algorithm2_has_zeros_and_bound(noisy, c):
    X, y, oracle = noisy
    m = y.shape[0]
    res = mirror_ascent_boost(oracle, y, maboost(m, "l2", "active", "sparse", sparsity=c), 100,
                              keep_distributions=True)
    # Algorithm 2 written out: z <- max(0, z - eta u - alpha), w = z / ||z||_1
    z = np.full(m, 1.0 / m)
    bound_sum, errors = 0.0, res.history["train_error"]
    for t, h in enumerate(res.hypotheses):
        w = z / z.sum()
        np.testing.assert_allclose(res.distributions[t], w, atol=1e-12, rtol=0)
        u = y * h.predict(X)
        gamma = w @ u
        eta = z.sum() * gamma / m
        alpha = c * eta * gamma * z.sum() / 2
        assert res.weights[t] == pytest.approx(eta, rel=1e-12) and res.history["penalty"][t] == pytest.approx(alpha)
        bound_sum += (1 - c) * z.sum() ** 2 * gamma ** 2
        assert errors[t] <= 1 / (1 + bound_sum) + 1e-12  # our reading of 002 eq. 16 / 37
        z = np.maximum(z - eta * u - alpha, 0.0)
    assert res.history["n_zero"].max() > m // 4
    assert np.all(np.abs(res.distributions.sum(axis=1) - 1) <= 1e-12)


@pytest.mark.parametrize("step", ["paper", "adaboost"])
def test_madaboost_matches_domingo_watanabe_weights_and_theorem5(noisy, step):
    X, y, oracle = noisy
    m = y.shape[0]
    res = mirror_ascent_boost(oracle, y, madaboost(m, step), 100, keep_distributions=True)
    U = _margin_matrix(res, X, y)
    F = np.zeros(m)
    for t in range(res.n_iter):
        capped = np.minimum(1.0, np.exp(-F))  # MadaBoost: weights capped at their initial value
        np.testing.assert_allclose(res.distributions[t], capped / capped.sum(), atol=1e-12, rtol=0)
        assert res.history["mass"][t] == pytest.approx(capped.sum(), rel=1e-12)
        F += res.weights[t] * U[:, t]
    H = res.history
    errors = H["train_error"]
    # Lemma 6: ||x_t||_1 >= m eps_{t-1}
    assert np.all(H["mass"][1:] >= m * errors[:-1] - 1e-9)
    # eq. 48 with e = indicator of the mistakes (in [0,1]^m): R(e) - R(x_1) = m (1 - eps), sigma = 1/m
    progress = np.cumsum(H["step"] * H["mass"] * H["edge"] - H["step"] ** 2 * m / 2)
    assert np.all(progress <= m * (1 - errors) + 1e-9)


# ------------------------------------------------------------------------------ estimators
@parametrize_with_checks([MABoostClassifier(),
                          MABoostClassifier(regularizer="l2", update="lazy", variant="smooth"),
                          MABoostClassifier(regularizer="l2", variant="sparse", weak_learner="stump"),
                          MABoostClassifier(variant="smooth"),
                          MadaBoostClassifier(),
                          AdaBoostClassifier()])
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_estimator_attributes_staged_and_combined(noisy):
    X, y, _ = noisy
    labels = np.where(y > 0, "pos", "neg")
    est = MABoostClassifier(regularizer="l2", variant="combined", smoothness=0.2, weak_learner="stump",
                            max_iter=40)
    mask = np.arange(150) >= 100
    est.fit(X, labels, secondary_mask=mask)
    same = MABoostClassifier(**est.get_params()).fit(X, labels, secondary_mask=np.arange(100, 150))
    np.testing.assert_array_equal(est.weights_, same.weights_)
    assert set(est.history_) == set(HISTORY_COLUMNS) and est.n_iter_ == 40 == len(est.weights_)
    score = est.decision_function(X)
    assert np.all(np.abs(score) <= 1 + 1e-12)
    staged = list(est.staged_predict(X))
    np.testing.assert_array_equal(staged[-1], est.predict(X))
    errors = [np.mean(p != labels) for p in staged]
    np.testing.assert_allclose(errors, est.history_["train_error"])
    assert est.margin_ == pytest.approx(est.history_["min_margin"][-1])
    assert np.all(est.distribution_[mask] <= 1 / (0.2 * 50) + 1e-12)


X_OK, Y_OK = make_classification(n_samples=30, n_features=3, n_informative=2, n_redundant=0, random_state=1)


@pytest.mark.parametrize(
    "params,match",
    [
        ({"smoothness": 0.0}, r"'smoothness' parameter.*range \(0\.0, 1\.0\]"),
        ({"smoothness": 1.5}, r"'smoothness' parameter.*range \(0\.0, 1\.0\]"),
        ({"sparsity": 1.0}, r"'sparsity' parameter.*range \[0\.0, 1\.0\)"),
        ({"sparsity": -0.1}, r"'sparsity' parameter.*range"),
        ({"regularizer": "kl"}, r"'regularizer' parameter.*'entropy'"),
        ({"update": "eager"}, r"'update' parameter.*'active'"),
        ({"variant": "dense"}, r"'variant' parameter.*'normal'"),
        ({"learning_rate": 0.0}, r"'learning_rate' parameter.*range"),
        ({"max_iter": 0}, r"'max_iter' parameter"),
        ({"variant": "sparse"}, r"regularizer must be 'l2' for variant='sparse'"),
        ({"variant": "sparse", "regularizer": "l2", "update": "lazy"}, r"update must be 'active'"),
        ({"variant": "combined"}, r"secondary_mask is required"),
    ],
)
def test_bad_parameters_name_the_parameter_and_range(params, match):
    with pytest.raises(ValueError, match=match):
        MABoostClassifier(**params).fit(X_OK, Y_OK)


@pytest.mark.parametrize(
    "mask,match",
    [
        (np.ones(29, dtype=bool), r"secondary_mask must have one entry per example \(30\)"),
        (np.ones(30) * 0.5, r"secondary_mask must be a boolean mask or integer indices"),
        (np.array([0, 30]), r"secondary_mask indices must be distinct and lie in \[0, 30\)"),
        (np.array([1, 1]), r"secondary_mask indices must be distinct"),
        (np.ones((30, 1), dtype=bool), r"secondary_mask must be 1-dimensional"),
    ],
)
def test_bad_secondary_mask(mask, match):
    with pytest.raises(ValueError, match=match):
        MABoostClassifier(variant="combined").fit(X_OK, Y_OK, secondary_mask=mask)


def test_mask_with_other_variant_and_bad_madaboost_step_and_classes():
    with pytest.raises(ValueError, match=r"secondary_mask \(or X_secondary\) is only used by variant='combined'"):
        MABoostClassifier().fit(X_OK, Y_OK, secondary_mask=np.zeros(30, dtype=bool))
    with pytest.raises(ValueError, match=r"'step' parameter.*'paper'"):
        MadaBoostClassifier(step="newton").fit(X_OK, Y_OK)
    for cls in (MABoostClassifier, MadaBoostClassifier):
        with pytest.raises(ValueError, match="at least two classes.*1 class"):
            cls().fit(X_OK, np.zeros(30))


# --------------------------------------------------------- sample weights, second data set
REPLICATED = [("maboost", dict(regularizer=r, update=u, variant=v)) for r in ("entropy", "l2")
              for u in ("active", "lazy") for v in ("normal", "maxmargin", "smooth", "combined")]
REPLICATED += [("maboost", dict(regularizer="l2", variant="sparse")), ("madaboost", dict(step="paper")),
               ("madaboost", dict(step="adaboost")), ("adaboost", {})]


@pytest.mark.parametrize("kind,params", REPLICATED)
def test_sample_weight_is_replication(noisy, kind, params):
    """Integer weights s give the run on the sample with example i copied s_i times: the same
    steps, and the replicated distributions summed over the copies of each example."""
    X, y, _ = noisy
    m = y.shape[0]
    rng = np.random.default_rng(4)
    s = rng.integers(1, 4, m)
    rows = np.repeat(np.arange(m), s)
    mask = np.arange(m) % 3 == 0
    lam = 0.3

    def parts(n, weights, secondary):
        if kind == "maboost":
            return maboost(n, smoothness=lam, secondary=secondary, sample_weight=weights, **params)
        if kind == "madaboost":
            return madaboost(n, sample_weight=weights, **params)
        return adaboost(n, sample_weight=weights)

    weighted = mirror_ascent_boost(DecisionStump().prepare(X, y), y, parts(m, s, mask), 40,
                                   keep_distributions=True)
    copies = mirror_ascent_boost(DecisionStump().prepare(X[rows], y[rows]), y[rows],
                                 parts(rows.shape[0], None, mask[rows]), 40, keep_distributions=True)
    assert weighted.n_iter == copies.n_iter > 10
    # With l2 (L = number of examples) a copy's coordinate, and so the step, is M/m times
    # that of the replicated run (M copies): the same f up to scale, the same distributions.
    scale = rows.shape[0] / m if params.get("regularizer") == "l2" else 1.0
    np.testing.assert_allclose(weighted.weights, scale * copies.weights, rtol=1e-9, atol=1e-13)
    summed = np.zeros((copies.n_iter, m))
    np.add.at(summed.T, rows, copies.distributions.T)
    np.testing.assert_allclose(weighted.distributions, summed, rtol=0, atol=1e-12)
    W = weighted.distributions
    assert np.all(W >= 0) and np.all(np.abs(W.sum(axis=1) - 1) <= 1e-12)
    if params.get("variant") == "smooth":  # every copy capped at 1/(lambda M), M = number of copies
        assert np.all(W <= s / (lam * rows.shape[0]) + 1e-12)
        assert np.any(W >= s / (lam * rows.shape[0]) - 1e-15)


@pytest.mark.parametrize("est", [MABoostClassifier(variant="smooth", regularizer="l2", weak_learner="stump"),
                                 MadaBoostClassifier(weak_learner="stump"), AdaBoostClassifier(weak_learner="stump")],
                         ids=lambda e: type(e).__name__)
def test_estimator_sample_weight_zero_drops_and_uniform_changes_nothing(noisy, est):
    X, y, _ = noisy
    m = y.shape[0]
    est.set_params(max_iter=30)
    s = np.random.default_rng(5).integers(0, 3, m).astype(float)
    keep = s > 0
    a = est.fit(X, y, sample_weight=s).decision_function(X)
    b = est.fit(X[keep], y[keep], sample_weight=s[keep]).decision_function(X)
    np.testing.assert_array_equal(a, b)
    plain = est.fit(X, y).weights_
    np.testing.assert_array_equal(est.fit(X, y, sample_weight=np.full(m, 2.5)).weights_, plain)
    with pytest.raises(ValueError, match="at least one non-zero"):
        est.fit(X, y, sample_weight=np.zeros(m))
    with pytest.raises(ValueError, match="Negative values in data passed to .*sample_weight"):
        est.fit(X, y, sample_weight=-np.ones(m))


def test_second_data_set_equals_the_mask_form(noisy):
    X, y, _ = noisy
    labels = np.where(y > 0, "pos", "neg")
    est = MABoostClassifier(variant="combined", smoothness=0.2, weak_learner="stump", max_iter=40)
    by_set = est.fit(X[:100], labels[:100], X_secondary=X[100:], y_secondary=labels[100:])
    coefs, dist, n_features = by_set.weights_.copy(), by_set.distribution_.copy(), by_set.n_features_in_
    by_mask = est.fit(X, labels, secondary_mask=np.arange(100, 150))
    np.testing.assert_array_equal(coefs, by_mask.weights_)
    np.testing.assert_array_equal(dist, by_mask.distribution_)
    assert n_features == 5
    s = np.random.default_rng(6).integers(1, 3, 150)
    weighted_set = est.fit(X[:100], labels[:100], sample_weight=s, X_secondary=X[100:], y_secondary=labels[100:])
    coefs = weighted_set.weights_.copy()
    np.testing.assert_array_equal(coefs, est.fit(X, labels, sample_weight=s, secondary_mask=np.arange(100, 150)).weights_)
    assert np.all(est.distribution_[100:] <= s[100:] / (0.2 * s[100:].sum()) + 1e-12)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"X_secondary": X_OK[:5]}, "X_secondary and y_secondary must be given together"),
        ({"y_secondary": Y_OK[:5]}, "X_secondary and y_secondary must be given together"),
        ({"X_secondary": X_OK[:5], "y_secondary": Y_OK[:4]}, "y_secondary has 4 labels for 5 rows"),
        ({"X_secondary": X_OK[:5, :2], "y_secondary": Y_OK[:5]}, "X_secondary has 2 features, X has 3"),
        ({"X_secondary": X_OK[:5], "y_secondary": Y_OK[:5], "secondary_mask": [0]}, "either as secondary_mask"),
        ({"X_secondary": X_OK[:5], "y_secondary": Y_OK[:5], "sample_weight": np.ones(30)},
         r"sample_weight.shape == \(30,\), expected \(35,\)"),
    ],
)
def test_bad_second_data_set(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MABoostClassifier(variant="combined").fit(X_OK, Y_OK, **kwargs)


@pytest.mark.parametrize("est", [MABoostClassifier(weak_learner="stump"),
                                 MABoostClassifier(regularizer="l2", variant="sparse", weak_learner="stump"),
                                 MadaBoostClassifier(weak_learner="stump"), AdaBoostClassifier(weak_learner="stump")],
                         ids=lambda e: type(e).__name__)
def test_round_ensemble_has_the_sign_of_the_staged_decision(noisy, est):
    """``record.ensemble()`` (what early stopping scores) is, round by round, the model whose
    decision function ``staged_decision_function`` yields: same sign, up to its positive scale."""
    from marginboost.weak_learners.ensemble_outputs import output_matrix

    X, y, _ = noisy
    votes = []

    def record_vote(record):
        hypotheses, weights, offset = record.ensemble()
        votes.append(offset + output_matrix(list(hypotheses), X) @ weights)

    est.set_params(max_iter=25, callbacks=[record_vote]).fit(X, y)
    staged = list(est.staged_decision_function(X))
    assert len(votes) == len(staged) == est.n_iter_
    for vote, value in zip(votes, staged):
        clear = np.abs(value) > 1e-12
        np.testing.assert_array_equal(np.sign(vote[clear]), np.sign(value[clear]))
    np.testing.assert_allclose(votes[-1] / est.weights_.sum(), est.decision_function(X), atol=1e-12)


def test_secondary_set_with_early_stopping_and_warm_start(noisy):
    X, y, _ = noisy
    est = MABoostClassifier(variant="combined", weak_learner="stump", max_iter=10, early_stopping=True)
    with pytest.raises(ValueError, match="early_stopping with a secondary set .* needs an eval_set"):
        est.fit(X, y, secondary_mask=np.arange(100, 150))
    est.fit(X[:100], y[:100], X_secondary=X[100:120], y_secondary=y[100:120], eval_set=(X[120:], y[120:]))
    assert est.best_iteration_ is not None
    warm = MABoostClassifier(variant="combined", weak_learner="stump", max_iter=5, warm_start=True)
    warm.fit(X, y, secondary_mask=np.arange(100, 150))
    warm.set_params(max_iter=12).fit(X, y, secondary_mask=np.arange(100, 150))
    ref = MABoostClassifier(variant="combined", weak_learner="stump", max_iter=12).fit(
        X, y, secondary_mask=np.arange(100, 150))
    np.testing.assert_array_equal(warm.weights_, ref.weights_)
    assert len(warm.history_["round"]) == 12
    with pytest.raises(ValueError, match="secondary set differs"):
        warm.fit(X, y, secondary_mask=np.arange(90, 150))


def test_functional_api_rejects_bad_sample_weight_and_rate():
    for bad in (np.zeros(30), -np.ones(30), np.ones(29), np.full(30, np.inf)):
        for make in (lambda s: maboost(30, sample_weight=s), lambda s: madaboost(30, sample_weight=s),
                     lambda s: adaboost(30, sample_weight=s)):
            with pytest.raises(ValueError, match="sample_weight must hold 30 positive finite values"):
                make(bad)
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        adaboost(30, learning_rate=0.0)


# --------------------------------------------------------------- issue 18: huge learning rates
def _small_cancer():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X[:200, :5], y[:200]


@pytest.mark.parametrize("cls", [AdaBoostClassifier, MABoostClassifier, MadaBoostClassifier])
@pytest.mark.parametrize("learning_rate", [1e10, 1e307])
def test_huge_learning_rate_is_refused_not_a_model_worse_than_the_majority(cls, learning_rate):
    """Issue 18: learning_rate = 1e10 fitted silently, AdaBoost and MABoost keeping a vote worse
    than always predicting the majority class (one step erased every example the first
    hypothesis got right, and each later hypothesis fitted those few; training accuracy 0.45
    against 0.52), and at 1e307 the steps overflowed to inf: every decision NaN. Now the
    parameter check names learning_rate and its range (0, 2): at 2 no round is guaranteed to
    make progress (mirror.maboost.MAX_LEARNING_RATE)."""
    import warnings

    X, y = _small_cancer()
    majority = max(np.mean(y), 1 - np.mean(y))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            est = cls(learning_rate=learning_rate, max_iter=50).fit(X, y)
    except ValueError as exc:
        assert re.search(r"'learning_rate' parameter .* range \(0\.0, 2\.0\)", str(exc)), exc
        return
    assert np.all(np.isfinite(est.decision_function(X)))
    assert est.score(X, y) >= majority, "a model worse than the majority class, silently"


@pytest.mark.parametrize("make", [lambda lr: adaboost(30, learning_rate=lr), lambda lr: maboost(30, learning_rate=lr),
                                  lambda lr: madaboost(30, learning_rate=lr)])
def test_functional_api_refuses_learning_rates_from_2(make):
    for bad in (2.0, 1e10, np.inf, np.nan):
        with pytest.raises(ValueError, match=r"learning_rate must be > 0 and < 2"):
            make(bad)
    make(float(np.nextafter(2.0, 0.0)))


def test_overshooting_learning_rate_below_2_warns_when_worse_than_the_majority():
    """Issue 18: towards 2 AdaBoost's steps overshoot (at 2 its normaliser Z_t = 1); with stumps
    at learning_rate = 1.999999 the vote classified 11% of breast cancer (majority class 63%)
    without a word. Above 1 such a fit now warns; at 1 and below nothing changes."""
    import warnings
    from sklearn.datasets import load_breast_cancer

    from marginboost import DegenerateModelWarning

    X, y = load_breast_cancer(return_X_y=True)
    majority = max(np.mean(y), 1 - np.mean(y))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = AdaBoostClassifier(learning_rate=1.999999, weak_learner="stump", max_iter=50).fit(X, y)
    warned = [w for w in caught if issubclass(w.category, DegenerateModelWarning)]
    assert est.score(X, y) >= majority or (
        len(warned) == 1 and re.search(r"learning_rate=1.999999 > 1 .*Lower learning_rate", str(warned[0].message)))
    assert est.score(X, y) < majority  # the case this test is about
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateModelWarning)
        for lr in (1.0, 1.5):  # a working model: no warning
            assert AdaBoostClassifier(learning_rate=lr, weak_learner="stump", max_iter=50).fit(X, y).score(X, y) > 0.9


# --------------------------------------------------------------- the round driver: rollback, warm start
def _interrupting(oracle, k):
    """``oracle`` raising KeyboardInterrupt at its ``k``-th call."""
    calls = [0]

    def call(d):
        calls[0] += 1
        if calls[0] == k:
            raise KeyboardInterrupt
        return oracle(d)
    return call


def _assert_same_fit(a, b):
    assert a.n_iter == b.n_iter and len(a.hypotheses) == len(b.hypotheses)
    np.testing.assert_array_equal(a.weights, b.weights)
    for key in b.history.keys() - {"time"}:
        np.testing.assert_array_equal(a.history[key], b.history[key], err_msg=key)
    for key in ("distribution", "margins", "distributions"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key), err_msg=key)


@pytest.mark.parametrize("make", [lambda m: maboost(m, "l2", "lazy"), lambda m: madaboost(m),
                                  lambda m: maboost(m, "l2", "active", "sparse")])
def test_interrupted_fit_is_the_shorter_fit_and_continues_as_the_longer(noisy, make):
    """Ctrl-C in round 6 keeps rounds 1-5 (as max_iter=5 would) and forgets round 6, so that
    continue_rounds goes on to exactly the uninterrupted fit."""
    from marginboost.core.rounds import continue_rounds

    X, y, oracle = noisy
    m = y.shape[0]
    full = mirror_ascent_boost(oracle, y, make(m), 30, keep_distributions=True)
    cut = mirror_ascent_boost(_interrupting(oracle, 6), y, make(m), 30, keep_distributions=True)
    assert cut.status == "interrupted" and cut.n_iter == 5
    _assert_same_fit(cut, mirror_ascent_boost(oracle, y, make(m), 5, keep_distributions=True))
    cut.loop.oracle = oracle
    _assert_same_fit(continue_rounds(cut, max_iter=30), full)


def test_no_edge_in_the_first_round_gives_the_empty_model(noisy):
    X, y, oracle = noisy

    def wrong(d):  # every prediction wrong: edge -1
        h, _ = oracle(d)
        return h, -y
    res = mirror_ascent_boost(wrong, y, maboost(y.shape[0]), 10, keep_distributions=True)
    assert (res.status, res.reason) == ("no_progress", "no_edge") and res.n_iter == 0 and res.hypotheses == [] and res.weights.shape == (0,)
    np.testing.assert_array_equal(res.distribution, np.full(y.shape[0], 1.0 / y.shape[0]))
    assert res.distributions.shape == (0, y.shape[0]) and np.all(res.margins == 0.0)
