"""TotalBoost, SoftBoost, AdaBoost*_nu and SmoothBoost against exact references and the papers' bounds.

References: the exact soft/hard-margin LP over *all* decision stumps on small real data
(``tests/reference.py``, HiGHS, primal and dual checked against each other), cvxpy + Clarabel
for the entropy projections, and the inequalities of each paper's analysis evaluated on the
recorded run.
"""
import math

import cvxpy as cp
import numpy as np
import pytest
from reference import all_stump_margins, exact_soft_margin_lp, small_real_datasets

from marginboost.classic.adaboostv import adaboostv, adaboostv_rounds
from marginboost.classic.smoothboost import smoothboost, smoothboost_rounds
from marginboost.soft_margin.objectives import soft_margin
from marginboost.totally_corrective.softboost import iteration_bound, softboost
from marginboost.weak_learners import DecisionStump

DATA = small_real_datasets()
IDS = [name for name, _, _ in DATA]


class RecordingOracle:
    """The exact stump oracle, remembering every distribution it was asked with and its answer."""

    def __init__(self, X, y):
        self._oracle = DecisionStump().prepare(X, y)
        self._y = y
        self.asked, self.columns = [], []

    def __call__(self, d):
        self.asked.append(np.array(d, copy=True))
        h, pred = self._oracle(d)
        self.columns.append(self._y * pred)
        return h, pred


@pytest.fixture(scope="module")
def optima():
    """Exact optimal hard (nu = 1) and soft margins over all stumps, per dataset."""
    out = {}
    for name, X, y in DATA:
        U = all_stump_margins(X, y)
        m = y.shape[0]
        out[name] = {nu: exact_soft_margin_lp(U, nu)[0] for nu in (1.0, 0.1 * m, 0.3 * m)}
    return out


# ------------------------------------------------------------------ TotalBoost / SoftBoost
@pytest.mark.parametrize("data", DATA, ids=IDS)
@pytest.mark.parametrize("nu_fraction", [None, 0.1, 0.3])  # None: TotalBoost (nu = 1)
@pytest.mark.parametrize("delta", [0.1, 0.02])
def test_totalboost_and_softboost_reach_the_exact_optimum(data, nu_fraction, delta, optima):
    name, X, y = data
    m = y.shape[0]
    nu = 1.0 if nu_fraction is None else nu_fraction * m
    oracle = RecordingOracle(X, y)
    res = softboost(oracle, y, nu, delta, max_iter=10_000)
    assert res.status == "converged"
    assert res.n_iter <= iteration_bound(m, nu, delta)
    opt = optima[name][nu]
    U = np.column_stack(oracle.columns)
    # The final weights are on the simplex and their soft margin is within delta of the optimum
    # over all stumps (and, being a combination of stumps, never above it).
    assert res.weights.min() >= 0.0 and res.weights.sum() == pytest.approx(1.0)
    q = np.column_stack([y * h.predict(X) for h in res.hypotheses]) @ res.weights
    assert res.soft_margin == pytest.approx(soft_margin(q, nu), abs=1e-12)
    assert opt - delta - 1e-7 <= res.soft_margin <= opt + 1e-7
    # The stopping rule: soft margin >= min edge - delta.
    assert res.soft_margin >= res.history["best_edge"][-1] - delta - 1e-7
    # Every distribution asked lies in P(m, nu): a missing cap (miniboosts' SoftBoost LP) fails here.
    for d in oracle.asked:
        assert d.min() >= 0.0 and d.sum() == pytest.approx(1.0) and d.max() <= 1.0 / nu + 1e-12
    # gamma_t = d^{t-1} @ u_t and gamma_hat_t = min_{q <= t} gamma_q - delta.
    H = res.history
    np.testing.assert_allclose(H["edge"], [d @ u for d, u in zip(oracle.asked, oracle.columns)], atol=1e-15)
    np.testing.assert_array_equal(H["target"], np.minimum.accumulate(H["edge"]) - delta)
    # d^t satisfies every edge row seen so far: d^t @ u_q <= gamma_hat_t.
    for t in range(1, res.n_iter):
        assert (oracle.asked[t] @ U[:, : t]).max() <= H["target"][t - 1] + 1e-8
    # The iteration bound's step: each projection raises Delta(d^t, uniform) by >= delta^2 / 2,
    # and Delta stays <= ln(m/nu).
    entropy = np.r_[0.0, H["entropy"][:-1]]
    assert np.all(np.diff(entropy) >= delta**2 / 2 - 1e-9)
    assert entropy[-1] <= math.log(m / nu) + 1e-9


def test_soft_and_hard_optima_differ_on_the_test_data(optima):
    """Power check: a booster that ignored the cap (hard margin) would fail the test above."""
    gaps = [optima[name][0.3 * y.shape[0]] - optima[name][1.0] for name, _, y in DATA]
    assert max(gaps) > 0.1


@pytest.mark.parametrize("nu_fraction", [None, 0.2])
def test_softboost_sends_the_exact_entropy_projections(nu_fraction):
    """Each distribution handed to the weak learner is cvxpy's projection for that round."""
    name, X, y = DATA[3]
    m = y.shape[0]
    nu = 1.0 if nu_fraction is None else nu_fraction * m
    oracle = RecordingOracle(X, y)
    res = softboost(oracle, y, nu, 0.05, max_iter=10_000)
    U = np.column_stack(oracle.columns)
    checked = sorted({1, 2, res.n_iter // 2, res.n_iter - 1} - {0})
    for t in checked:
        d = cp.Variable(m)
        prob = cp.Problem(cp.Minimize(-cp.sum(cp.entr(d))),
                          [U[:, :t].T @ d <= res.history["target"][t - 1], cp.sum(d) == 1, d >= 0, d <= 1 / nu])
        prob.solve(solver=cp.CLARABEL)
        assert prob.status == cp.OPTIMAL
        np.testing.assert_allclose(oracle.asked[t], np.clip(d.value, 0, None), atol=5e-5)


def test_nu_equal_m_stops_at_once_with_the_best_mean_margin():
    """With nu = m the soft margin is the mean margin: the first (edge-maximising) stump is optimal."""
    name, X, y = DATA[0]
    res = softboost(DecisionStump().prepare(X, y), y, float(y.shape[0]), 0.01, max_iter=100)
    best = (all_stump_margins(X, y).mean(axis=0)).max()
    assert res.n_iter == 1 and res.soft_margin == pytest.approx(best)


# ------------------------------------------------------------------ AdaBoost*_nu
def binary_kl(p, q):
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


@pytest.mark.parametrize("data", DATA, ids=IDS)
@pytest.mark.parametrize("eps", [0.2, 0.1])
def test_adaboostv_margin_bound_at_every_round(data, eps, optima):
    name, X, y = data
    m = y.shape[0]
    res = adaboostv(DecisionStump().prepare(X, y), y, eps, adaboostv_rounds(m, eps))
    assert res.status == "converged" and res.n_iter <= adaboostv_rounds(m, eps)
    H = res.history
    np.testing.assert_array_equal(H["target"], np.minimum.accumulate(H["edge"]) - eps)
    outputs = np.column_stack([y * h.predict(X) for h in res.hypotheses])
    log_bound = 0.0
    for t, w in enumerate(res.weights_path):
        rho, gamma = H["target"][t], H["edge"][t]
        assert H["step"][t] == pytest.approx(math.atanh(gamma) - math.atanh(rho))
        assert H["step"][t] >= eps - 1e-12  # atanh' >= 1 and gamma_t - rho_t >= eps
        margins = outputs[:, : w.shape[0]] @ w
        assert H["min_margin"][t] == pytest.approx(margins.min(), abs=1e-12)
        # Raetsch-Warmuth: fraction of margins <= rho_t is at most prod_r exp(-KL_r) <= exp(-t eps^2/2).
        log_bound -= binary_kl((1 + rho) / 2, (1 + gamma) / 2)
        assert log_bound <= -(t + 1) * eps**2 / 2 + 1e-12
        assert np.mean(margins <= rho) <= math.exp(log_bound) + 1e-12
    # Final hard margin: >= min edge - eps >= (optimal hard margin over all stumps) - eps.
    assert res.margins.min() >= H["best_edge"][-1] - eps
    assert optima[name][1.0] - eps <= res.margins.min() <= optima[name][1.0] + 1e-9


def test_adaboostv_perfect_hypothesis_is_the_model():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    res = adaboostv(DecisionStump().prepare(X, y), y, 0.1, 100)
    assert (res.status, res.reason) == ("converged", "perfect") and res.n_iter == 1
    np.testing.assert_allclose(res.margins, 1.0)


# ------------------------------------------------------------------ SmoothBoost
@pytest.mark.parametrize("data", DATA, ids=IDS)
@pytest.mark.parametrize("kappa,gamma", [(0.1, 0.1), (0.2, 0.05), (0.05, 0.2)])
def test_smoothboost_distributions_are_smooth_at_every_round(data, kappa, gamma):
    name, X, y = data
    m = y.shape[0]
    oracle = RecordingOracle(X, y)
    res = smoothboost(oracle, y, kappa, gamma, max_iter=min(smoothboost_rounds(kappa, gamma), 3000))
    assert len(oracle.asked) == res.n_iter
    for d in oracle.asked:
        assert d.min() >= 0.0 and d.sum() == pytest.approx(1.0)
        assert d.max() <= 1.0 / (kappa * m) * (1 + 1e-12)
    np.testing.assert_allclose(res.history["max_weight"], [d.max() for d in oracle.asked])
    if res.status == "converged":  # fewer than kappa m examples with margin <= theta
        theta = gamma / (2 + gamma)
        assert np.sum(res.margins <= theta) < kappa * m


def test_smoothboost_round_bound_when_the_weak_learner_has_advantage_gamma():
    """Servedio's Theorem: edges >= 2 gamma => fewer than 2/(kappa gamma^2 sqrt(1-gamma)) rounds."""
    name, X, y = DATA[3]
    kappa, gamma = 0.2, 0.05
    res = smoothboost(DecisionStump().prepare(X, y), y, kappa, gamma, smoothboost_rounds(kappa, gamma))
    assert res.history["edge"].min() >= 2 * gamma  # the theorem's premise holds on this data
    assert res.status == "converged"
    assert res.n_iter < 2 / (kappa * gamma**2 * math.sqrt(1 - gamma))
    np.testing.assert_allclose(res.weights, 1.0 / res.n_iter)


# ------------------------------------------------------------------ SoftBoost: rollback, warm start
def test_softboost_rolls_back_an_interrupted_round_and_continues(monkeypatch):
    """Ctrl-C in the projection of round 6 (its column already in U and in the LP) keeps the
    model of rounds 1-5; the loop forgets round 6's column, so continue_rounds converges as an
    uninterrupted run does. A warm start from a max_iter stop goes on to the uninterrupted fit."""
    import marginboost.totally_corrective.softboost as module
    from marginboost.core.rounds import continue_rounds

    name, X, y = DATA[3]
    m, nu, delta = y.shape[0], 0.2 * y.shape[0], 0.05
    oracle = DecisionStump().prepare(X, y)
    full = softboost(oracle, y, nu, delta, max_iter=10_000)
    assert full.status == "converged" and full.n_iter > 10
    more = continue_rounds(softboost(oracle, y, nu, delta, max_iter=7), max_iter=10_000)
    assert more.status == "converged" and more.n_iter == full.n_iter
    np.testing.assert_array_equal(more.weights, full.weights)
    for key in full.history.keys() - {"time"}:
        np.testing.assert_array_equal(more.history[key], full.history[key], err_msg=key)
    assert [list(w) for w in more.weights_path] == [list(w) for w in full.weights_path]

    original, calls = module.project_onto_edge_constraints, [0]

    def project(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 6:
            raise KeyboardInterrupt
        return original(*args, **kwargs)
    monkeypatch.setattr(module, "project_onto_edge_constraints", project)
    cut = softboost(oracle, y, nu, delta, max_iter=10_000)
    monkeypatch.undo()
    assert cut.status == "interrupted" and cut.n_iter == 5
    ref = softboost(oracle, y, nu, delta, max_iter=5)
    np.testing.assert_array_equal(cut.weights, ref.weights)
    assert len(cut.hypotheses) == len(ref.hypotheses) == cut.weights.shape[0] == len(list(cut.weights_path)[-1])
    for key in ref.history.keys() - {"time"}:
        np.testing.assert_array_equal(cut.history[key], ref.history[key], err_msg=key)
    # round 6 had added its column to U and to the LP: the next step forgets it
    assert cut.loop.margins.n == cut.loop.lp.n_rows == cut.weights.shape[0] + 1
    done = continue_rounds(cut, max_iter=10_000)
    assert done.status == "converged" and done.n_iter == full.n_iter
    assert done.soft_margin == pytest.approx(full.soft_margin, abs=1e-9)
    assert done.soft_margin >= done.history["best_edge"][-1] - delta - 1e-7
    assert done.weights.shape[0] == len(done.hypotheses) == done.loop.lp.n_rows == done.loop.margins.n


# ------------------------------------------------------------------ issue 18: extreme accuracies
@pytest.mark.parametrize("eps", [1e-160, 1e-300, 5e-324])
def test_round_bounds_of_tiny_accuracies_are_exact_integers(eps):
    """Issue 18: eps^2 underflowed to 0 (ZeroDivisionError) or the quotient overflowed to inf
    (OverflowError in floor/ceil). The bounds are then the exact (huge) integers."""
    from fractions import Fraction

    m = 200
    assert adaboostv_rounds(m, eps) == math.floor(Fraction(2.0 * math.log(m)) / Fraction(eps) ** 2) + 1
    assert iteration_bound(m, 1.0, eps) == math.ceil(Fraction(2.0 * math.log(m)) / Fraction(eps) ** 2)
    assert iteration_bound(m, 1.0, eps) > 10**300
    def close(bound, exact):  # to float rounding: where the float quotient is finite, it is used
        return abs(Fraction(bound) / exact - 1) <= Fraction(1, 10**12)

    assert close(smoothboost_rounds(0.1, eps), 2 / (Fraction(0.1) * Fraction(eps) ** 2 * Fraction(math.sqrt(1 - eps))))
    assert close(smoothboost_rounds(eps, 0.1), 2 / (Fraction(eps) * Fraction(0.1) ** 2 * Fraction(math.sqrt(0.9))))
    assert smoothboost_rounds(eps, eps) > 10**479
    # the float formulas where they are finite, as before
    assert adaboostv_rounds(m, 0.1) == math.floor(2.0 * math.log(m) / 0.1**2) + 1
    assert smoothboost_rounds(0.1, 0.1) == 2109
    for bad in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="eps must be > 0"):
            adaboostv_rounds(m, bad)
        with pytest.raises(ValueError, match="kappa > 0 and 0 < gamma < 1"):
            smoothboost_rounds(0.1, bad)


@pytest.mark.parametrize("eps", [1e-17, 1e-160, 1e-300, 5e-324])
def test_adaboostv_accuracy_below_the_edge_resolution_still_steps(eps):
    """Issue 18: with eps below ulp(edge)/2, rho = edge - eps rounded back to the edge, the step
    atanh(edge) - atanh(rho) was 0 and the normalisation 0/0 (ZeroDivisionError). The step is
    atanh(eps / (1 - edge rho)) (> 0), and the model is the first hypotheses' vote."""
    name, X, y = DATA[3]
    res = adaboostv(DecisionStump().prepare(X, y), y, eps, 10)
    assert res.n_iter == 10 and res.status == "max_iter"
    steps = res.history["step"]
    assert np.all(steps > 0.0) and np.all(np.isfinite(steps))
    edge = res.history["edge"][0]
    assert steps[0] == pytest.approx(math.atanh(eps / (1.0 - edge * edge)), rel=1e-12)
    assert np.all(np.isfinite(res.weights)) and res.weights.sum() == pytest.approx(1.0)
    assert np.all(np.isfinite(res.margins)) and np.all(np.abs(res.margins) <= 1.0 + 1e-12)
