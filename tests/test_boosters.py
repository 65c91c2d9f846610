"""Every soft-margin booster against the exact optimum over ALL decision stumps.

On a sample, the class of decision stumps is finite (at most 2p(m+1) distinct margin
vectors), so the optimal soft margin over it is one LP, solved here directly with scipy's
HiGHS interface (tests/reference.py), independently of the boosters' code. With the exact
stump oracle each booster must end with soft margin >= optimum - eps (000, Lemma 2) and can
never exceed the optimum."""

import numpy as np
import pytest
from reference import all_stump_margins, exact_soft_margin_lp, small_real_datasets

from marginboost.soft_margin import algorithms
from marginboost.soft_margin.secondary import NewtonStepRule
from marginboost.weak_learners import DecisionStump, WorstCaseLearner, make_lpboost_worst_case

EPS = 0.01
NU_FRACTIONS = (0.05, 0.2, 0.5)

# name -> (assembly, eps). Rules whose tail is plain Frank-Wolfe need O(ln(m/nu)/eps^2)
# rounds, too many for CI at eps = 0.01, so they are checked at a coarser eps.
FW_TAIL_EPS = 0.05
ASSEMBLIES = {
    "lpboost": (algorithms.LPBOOST, EPS),
    "erlpboost": (algorithms.ERLPBOOST, EPS),
    "cerlpboost": (algorithms.CERLPBOOST, FW_TAIL_EPS),
    "mlpboost_ss": (algorithms.mlpboost("short_step", "lp"), EPS),
    "mlpboost_pfw": (algorithms.mlpboost("pairwise", "lp"), EPS),
    "mlpboost_classic": (algorithms.mlpboost("classic", "lp"), FW_TAIL_EPS),
    "mlpboost_ls": (algorithms.mlpboost("line_search", "lp"), EPS),
    "pfw_only": (algorithms.mlpboost("pairwise", None), FW_TAIL_EPS),
    "fw_entropy": (algorithms.mlpboost("line_search", "entropy"), EPS),
    "mlpboost_newton": (algorithms.mlpboost("short_step", "newton"), EPS),
    # a Hessian sampled from 16 examples: the integer Gram of +-1 columns in bits (entropic_master)
    "mlpboost_newton_sampled": (algorithms.mlpboost("short_step", NewtonStepRule(hessian_sample=16)), EPS),
}


def _optimum(X, y, nu):
    return exact_soft_margin_lp(all_stump_margins(X, y), nu)[0]


@pytest.fixture(scope="module")
def datasets():
    return small_real_datasets()


@pytest.mark.parametrize("name", sorted(ASSEMBLIES))
def test_booster_reaches_exact_stump_optimum(name, datasets):
    assembly, eps = ASSEMBLIES[name]
    for data_name, X, y in datasets:
        m = X.shape[0]
        oracle = DecisionStump().prepare(X, y)
        for frac in NU_FRACTIONS:
            nu = max(1.0, frac * m)
            optimum = _optimum(X, y, nu)
            result = algorithms.run(assembly, oracle, y, nu, eps, max_iter=50000)
            where = f"{name} on {data_name}, nu={nu}"
            assert result.status == "converged", where
            assert result.soft_margin >= optimum - eps, where
            assert result.soft_margin <= optimum + 1e-7, where
            # the reported soft margin is the mean of the nu smallest training margins
            U = np.column_stack([y * h.predict(X) for h in result.hypotheses])
            np.testing.assert_allclose(U @ result.weights, result.margins, atol=1e-12)


def test_weighted_fit_equals_replicated_fit(datasets):
    """Integer example weights mean replicated examples: same soft margin at the optimum."""
    _, X, y = datasets[1]
    rng = np.random.default_rng(0)
    counts = rng.integers(1, 4, X.shape[0])
    weights = counts * (X.shape[0] / counts.sum())
    frac = 0.2
    Xr, yr = np.repeat(X, counts, axis=0), np.repeat(y, counts)
    opt_rep = _optimum(Xr, yr, frac * Xr.shape[0])
    for assembly in (algorithms.LPBOOST, algorithms.mlpboost()):
        res = algorithms.run(assembly, DecisionStump().prepare(X, y), y, frac * X.shape[0], EPS,
                             max_iter=20000, weights=weights)
        assert res.status == "converged"
        assert opt_rep - EPS <= res.soft_margin <= opt_rep + 1e-7


M_WORST = 64
# The instance's margins step by INSTANCE_EPS; boosting stops at gap EPS_WORST. LPBoost's LP
# value climbs from -1 by 2*INSTANCE_EPS a round, so any EPS_WORST < 1 - m*INSTANCE_EPS keeps
# it going for m/2 rounds, while eta * INSTANCE_EPS << 1 lets the entropy-smoothed
# distribution spread over the hard half of the sample and find the optimal pair at once.
INSTANCE_EPS = 1e-4
EPS_WORST = 0.1


def _worst_case_run(assembly):
    X, y = make_lpboost_worst_case(M_WORST, eps=INSTANCE_EPS)
    oracle = WorstCaseLearner(eps=INSTANCE_EPS).prepare(X, y)
    return algorithms.run(assembly, oracle, y, 1.0, EPS_WORST, max_iter=500)


def test_lpboost_worst_case_needs_m_over_2_rounds():
    result = _worst_case_run(algorithms.LPBOOST)
    assert result.status == "converged"
    assert result.n_iter >= M_WORST // 2 - 1


@pytest.mark.parametrize("assembly", [algorithms.mlpboost(), algorithms.ERLPBOOST],
                         ids=["mlpboost", "erlpboost"])
def test_mlpboost_and_erlpboost_escape_the_worst_case(assembly):
    result = _worst_case_run(assembly)
    assert result.status == "converged"
    assert result.n_iter <= 4
    optimum = _exact_worst_case_optimum()
    assert optimum - EPS_WORST <= result.soft_margin <= optimum + 1e-9


def _exact_worst_case_optimum():
    from marginboost.weak_learners.worst_case import lpboost_worst_case_margins

    return exact_soft_margin_lp(lpboost_worst_case_margins(M_WORST, eps=INSTANCE_EPS), 1.0)[0]


def test_history_is_consistent(datasets):
    _, X, y = datasets[2]
    res = algorithms.run(algorithms.mlpboost(), DecisionStump().prepare(X, y), y, 0.2 * X.shape[0], EPS)
    h = res.history
    n = len(h["round"])
    assert all(len(v) == n for v in h.values())
    np.testing.assert_allclose(h["gap"], h["best_edge"] - h["objective"])
    assert np.all(np.diff(h["best_edge"]) <= 0)  # a running minimum
    assert np.all(np.diff(h["time"]) >= 0)
    assert np.all(h["weak_learner_time"] >= 0) and np.all(h["solver_time"] >= 0)
    assert set(np.unique(h["update"])) <= {0, 1, 2, 3}
    assert h["update"][0] == 0 and h["update"][-1] == 3  # init, ..., stopped without update
    assert h["gap"][-1] <= EPS / 2 < h["gap"][0]
    assert len(res.weights_path) == n == res.n_iter == h["round"][-1]
    np.testing.assert_array_equal(h["round"], np.arange(1, n + 1))
    # the smoothed objective upper-bounds the soft margin by at most eps/2 (000 Lemma 1, 3)
    assert np.all(h["soft_margin"] <= h["objective"] + 1e-12)
    assert np.all(h["objective"] <= h["soft_margin"] + EPS / 2 + 1e-12)


def test_same_input_same_result(datasets):
    _, X, y = datasets[0]
    runs = [algorithms.run(algorithms.mlpboost("pairwise"), DecisionStump().prepare(X, y), y, 10.0, EPS)
            for _ in range(2)]
    np.testing.assert_array_equal(runs[0].weights, runs[1].weights)
    assert runs[0].n_iter == runs[1].n_iter


def test_user_secondary_rule_is_called_and_validated(datasets):
    _, X, y = datasets[0]
    calls = []

    def uniform(U, w):
        calls.append(U.shape[1])
        return np.full(U.shape[1], 1.0 / U.shape[1])

    res = algorithms.run(algorithms.mlpboost("short_step", uniform), DecisionStump().prepare(X, y), y, 10.0,
                         0.1, max_iter=50)
    assert calls and calls == sorted(calls)
    assert res.soft_margin <= _optimum(X, y, 10.0) + 1e-7

    def broken(U, w):
        return np.ones(U.shape[1])

    with pytest.raises(ValueError, match="summing to 1"):
        algorithms.run(algorithms.mlpboost("short_step", broken), DecisionStump().prepare(X, y), y, 10.0, 0.1)


@pytest.mark.parametrize("name", ["cerlpboost", "mlpboost_pfw", "lpboost", "erlpboost"])
def test_weights_path_replays_every_round_exactly(name, datasets):
    """The compact per-round log must reproduce the weights bit for bit, in O(1) per FW step."""
    from marginboost.soft_margin.scheme import boost
    from marginboost.soft_margin.fw_rules import resolve_fw_rule
    from marginboost.soft_margin.objectives import SmoothedSoftMargin, SoftMargin, entropy_eta
    from marginboost.soft_margin.secondary import resolve_secondary

    _, X, y = datasets[0]
    assembly, eps = ASSEMBLIES[name]
    nu = 0.2 * X.shape[0]
    smoothed = SmoothedSoftMargin(nu, entropy_eta(X.shape[0], nu, eps))
    objective = smoothed if assembly.smoothed else SoftMargin(nu)
    snapshots = []
    secondary = resolve_secondary(assembly.secondary)
    if secondary is not None:
        secondary.start(X.shape[0], nu, smoothed, eps)
    fw = resolve_fw_rule(assembly.step) if assembly.step else None

    def spying(rule):
        def call(ctx):
            out = rule(ctx)
            snapshots.append(out[0].copy())
            return out
        return call

    res = boost(DecisionStump().prepare(X, y), y, objective, eps, spying(fw) if fw else None, secondary,
                smoothed, max_iter=300)
    replayed = list(res.weights_path)
    assert len(replayed) == res.n_iter
    np.testing.assert_array_equal(replayed[-1], res.weights)
    if name == "cerlpboost":  # every round is a FW step: each replayed w is the rule's own output
        for w_rule, w_log in zip(snapshots, replayed[1:]):
            np.testing.assert_array_equal(w_rule, w_log)
        assert max(len(vals) for *_, vals in res.weights_path._steps) <= 1


@pytest.mark.parametrize("line_search", ["exact", "unit"])
def test_newton_rule_ascends_from_its_warm_start_and_converges_to_the_entropy_rule(datasets, line_search):
    """The fast rule's candidate is at least its warm start (previous weights, zero on the new
    column), every round; with many steps it reaches the exact ERLPBoost rule's optimum."""
    from marginboost.soft_margin.objectives import SmoothedSoftMargin, entropy_eta
    from marginboost.soft_margin.secondary import EntropyRule, NewtonStepRule

    _, X, y = datasets[1]
    m = X.shape[0]
    nu = 0.2 * m
    objective = SmoothedSoftMargin(nu, entropy_eta(m, nu, EPS))
    U = np.column_stack([y * DecisionStump().prepare(X, y)(d)[1]
                         for d in np.random.default_rng(0).dirichlet(np.ones(m), size=12)])
    fast, exact = NewtonStepRule(line_search=line_search), EntropyRule(tol=1e-10)
    fast.start(m, nu, objective, EPS)
    exact.start(m, nu, objective, EPS)
    gains = []
    for t in range(1, U.shape[1] + 1):
        warm = np.eye(t)[0] if fast._w_prev is None else np.append(fast._w_prev, 0.0)
        cand = fast(U[:, :t], None)
        assert cand.w.shape == (t,) and np.all(cand.w >= 0) and abs(cand.w.sum() - 1) < 1e-12
        np.testing.assert_allclose(cand.q, U[:, :t] @ cand.w, atol=1e-12)
        gains.append(objective.value(cand.q) - objective.value(U[:, :t] @ warm))
        assert gains[-1] >= -1e-12
    assert max(gains) > 1e-6  # it moves, not only keeps the warm start
    many = NewtonStepRule(n_steps=500, line_search=line_search)
    many.start(m, nu, objective, EPS)
    assert abs(objective.value(many(U, None).q) - objective.value(exact(U, None).q)) <= 1e-9


def test_newton_rule_from_the_fw_start_equals_the_rule_that_computes_it(datasets):
    """Handing the rule the FW candidate's margins and distribution (``fw_start``) saves their
    computation and changes nothing else: given the values it would compute (its own product; the
    step itself moves with the last bit of q, which decides the Hessian's rows at the cap), the
    same candidate, bit for bit."""
    from marginboost.soft_margin.objectives import SmoothedSoftMargin, entropy_eta
    from marginboost.core.margin_matrix import as_margin_matrix
    from marginboost.soft_margin.secondary import NewtonStepRule

    _, X, y = datasets[1]
    m, nu = X.shape[0], 0.2 * X.shape[0]
    objective = SmoothedSoftMargin(nu, entropy_eta(m, nu, EPS))
    U = np.column_stack([y * DecisionStump().prepare(X, y)(d)[1]
                         for d in np.random.default_rng(1).dirichlet(np.ones(m), size=8)])
    w_fw = np.random.default_rng(2).dirichlet(np.ones(8))
    q = as_margin_matrix(U).matvec(w_fw)
    for line_search in ("exact", "unit"):
        a, b = NewtonStepRule(line_search=line_search), NewtonStepRule(line_search=line_search)
        a.start(m, nu, objective, EPS)
        b.start(m, nu, objective, EPS)
        with_start, without = a(U, w_fw, fw_start=(q, objective.distribution(q))), b(U, w_fw)
        np.testing.assert_array_equal(with_start.w, without.w)
        assert objective.value(with_start.q) > objective.value(q) + 1e-6  # the step moved


def test_newton_rule_names_its_line_search():
    from marginboost.soft_margin.secondary import NewtonStepRule

    with pytest.raises(ValueError, match="line_search must be 'unit' or 'exact'"):
        NewtonStepRule(line_search="brent")


@pytest.mark.parametrize("bad", [0, -3, 2.5, "1024"])
def test_entropy_rules_name_a_bad_hessian_sample(bad):
    from marginboost.soft_margin.secondary import EntropyRule, NewtonStepRule

    with pytest.raises(ValueError, match=r"far_hessian_sample must be None or an integer >= 1"):
        EntropyRule(far_hessian_sample=bad)
    with pytest.raises(ValueError, match=r"^hessian_sample must be None or an integer >= 1"):
        NewtonStepRule(hessian_sample=bad)


def test_lp_rule_forgets_a_rolled_back_column():
    """After Ctrl-C rolls a round back, the LP rule must not keep that round's column: with a
    different column in its place it solves the LP of the kept columns plus the new one."""
    from marginboost.soft_margin.objectives import SmoothedSoftMargin, entropy_eta
    from marginboost.soft_margin.secondary import LPRule

    rng = np.random.default_rng(5)
    m, nu = 40, 4.0
    U = np.where(rng.random((m, 4)) < 0.6, 1.0, -1.0)
    replacement = np.where(rng.random(m) < 0.7, 1.0, -1.0)
    objective = SmoothedSoftMargin(nu, entropy_eta(m, nu, 0.1), None)
    rule = LPRule()
    rule.start(m, nu, objective, 0.1)
    rule(U[:, :3], None)  # rounds 1-3 reached the LP; round 3 is then rolled back
    rule.forget(2)
    V = np.column_stack([U[:, :2], replacement])
    fresh = LPRule()
    fresh.start(m, nu, objective, 0.1)
    np.testing.assert_allclose(rule(V, None).w, fresh(V, None).w, atol=1e-12)
    np.testing.assert_allclose(rule(V, None).q, V @ fresh(V, None).w, atol=1e-12)


def test_mlpboost_pairwise_does_not_stall_on_the_lp_vertex_round_off():
    """german, nu = 0.1m, depth-2 trees (the paper's Table 2 cell): the LP rule's vertex carried
    weights of 1e-17, the pairwise drop step moved only that, tied with the LP candidate, and the
    same round repeated (400,000 rounds in the 600 s of the benchmark). It converges in ~660."""
    from marginboost.experiments.runner import BOOSTERS, make_split

    split = make_split("german", 0)
    est = BOOSTERS["mlpboost_pfw"].make(nu=0.1, eps=0.01, weak_learner="tree", max_depth=2, max_iter=3000)
    est.fit(split.X_train, split.y_train)
    assert est.status_ == "converged" and est.n_iter_ < 1500
    assert est.gap_ <= 0.005
