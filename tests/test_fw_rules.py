"""Frank-Wolfe step rules and the exact line search against brute force.

These tests would catch the error classes design.md lists for an earlier implementation:
a line search with reversed bisection signs (always step 1), and a pairwise step that never
considers the new hypothesis."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from marginboost import MLPBoostClassifier
from marginboost.soft_margin.fw_rules import (ClassicStep, FWContext, LineSearch, Pairwise, ShortStep, resolve_fw_rule,
                                              toward_new)
from marginboost.core.line_search import exact_line_search
from marginboost.soft_margin.objectives import SmoothedSoftMargin


def grid_argmax(obj, q, delta, lam_max, n=20001):
    grid = np.linspace(0, lam_max, n)
    values = [obj.value(q + lam * delta) for lam in grid]
    return grid[int(np.argmax(values))]


@pytest.mark.parametrize("seed", range(8))
def test_line_search_matches_grid(seed):
    rng = np.random.default_rng(seed)
    m = 40
    obj = SmoothedSoftMargin(nu=4.0, eta=rng.choice([2.0, 20.0, 200.0]))
    q = rng.uniform(-1, 1, m)
    delta = rng.uniform(-1, 1, m) - q
    lam_max = rng.choice([0.3, 1.0])
    lam = exact_line_search(obj, q, delta, lam_max)
    assert 0.0 <= lam <= lam_max
    assert abs(lam - grid_argmax(obj, q, delta, lam_max)) <= lam_max / 10000 + 1e-9
    assert obj.value(q + lam * delta) >= obj.value(q + grid_argmax(obj, q, delta, lam_max) * delta) - 1e-12


def test_line_search_interior_optimum_is_not_a_full_step():
    """Two examples: moving toward u improves one margin and spoils the other; optimum is interior."""
    obj = SmoothedSoftMargin(nu=1.0, eta=50.0)
    q = np.array([-0.5, 0.5])
    u = np.array([0.5, -0.5])
    lam = exact_line_search(obj, q, u - q, 1.0)
    assert lam == pytest.approx(0.5, abs=1e-8)
    # direction that only hurts: no step at all
    assert exact_line_search(obj, q, np.array([-1.0, -1.0]), 1.0) == 0.0
    # direction that only helps: the full step
    assert exact_line_search(obj, q, np.array([1.0, 1.0]), 1.0) == 1.0


def context(seed, t=3):
    rng = np.random.default_rng(seed)
    m, n = 30, 5
    U = rng.choice([-1.0, 1.0], size=(m, n))
    w = np.append(rng.dirichlet(np.ones(n - 1)), 0.0)
    obj = SmoothedSoftMargin(nu=3.0, eta=30.0)
    q = U @ w
    d = obj.distribution(q)
    j_new = int(np.argmax(d @ U))
    return FWContext(U, w, q, d, j_new, t, obj)


@pytest.mark.parametrize("rule", [ClassicStep(), ShortStep(), LineSearch(), Pairwise()])
@pytest.mark.parametrize("seed", range(5))
def test_rules_stay_on_simplex_and_report_their_margins(rule, seed):
    ctx = context(seed)
    w1, q1, (scale, touched) = rule(ctx)
    assert np.all(w1 >= 0) and w1.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(q1, ctx.U @ w1, atol=1e-12)
    # the reported step: w1 is scale * w outside the touched entries, exactly
    untouched = np.setdiff1d(np.arange(w1.shape[0]), touched)
    np.testing.assert_array_equal(w1[untouched], scale * ctx.w[untouched])


def test_classic_and_short_step_formulas():
    ctx = context(0, t=4)
    w1 = ClassicStep()(ctx)[0]
    lam = 2 / 6
    expected = (1 - lam) * ctx.w
    expected[ctx.j_new] += lam
    np.testing.assert_allclose(w1, expected)
    delta = ctx.U[:, ctx.j_new] - ctx.q
    lam = np.clip(ctx.d @ delta / (ctx.objective.eta * np.abs(delta).max() ** 2), 0, 1)
    expected = (1 - lam) * ctx.w
    expected[ctx.j_new] += lam
    np.testing.assert_allclose(ShortStep()(ctx)[0], expected)


@pytest.mark.parametrize("seed", range(5))
def test_line_search_step_beats_short_and_classic(seed):
    ctx = context(seed)
    obj = ctx.objective
    best = obj.value(LineSearch()(ctx)[1])
    assert best >= obj.value(ShortStep()(ctx)[1]) - 1e-12
    assert best >= obj.value(ClassicStep()(ctx)[1]) - 1e-12
    assert best >= obj.value(ctx.q) - 1e-12


@pytest.mark.parametrize("seed", range(5))
def test_pairwise_moves_weight_from_away_to_new(seed):
    ctx = context(seed)
    w1, q1, _ = Pairwise()(ctx)
    active = np.flatnonzero(ctx.w > 0)
    away = active[np.argmin(ctx.d @ ctx.U[:, active])]
    changed = np.flatnonzero(~np.isclose(w1, ctx.w))
    assert set(changed) <= {away, ctx.j_new}
    assert w1[ctx.j_new] >= ctx.w[ctx.j_new]  # the new hypothesis gains what `away` loses
    assert w1[ctx.j_new] - ctx.w[ctx.j_new] == pytest.approx(ctx.w[away] - w1[away])
    assert ctx.objective.value(q1) >= ctx.objective.value(ctx.q) - 1e-12
    # and the step is the best one along that pairwise direction
    delta = ctx.U[:, ctx.j_new] - ctx.U[:, away]
    lam_grid = grid_argmax(ctx.objective, ctx.q, delta, ctx.w[away])
    assert ctx.objective.value(q1) >= ctx.objective.value(ctx.q + lam_grid * delta) - 1e-12


def test_unknown_rule_names_the_parameter():
    with pytest.raises(ValueError, match="fw must be one of"):
        resolve_fw_rule("newton")


def test_secondary_rule_names_resolve_or_name_the_parameter():
    from marginboost.soft_margin.secondary import CallableRule, EntropyRule, LPRule, resolve_secondary

    assert isinstance(resolve_secondary("lp"), LPRule) and isinstance(resolve_secondary("entropy"), EntropyRule)
    assert resolve_secondary("none") is None and resolve_secondary(None) is None
    assert isinstance(resolve_secondary(lambda U, w: w), CallableRule)
    rule = EntropyRule(tol=1e-6)
    assert resolve_secondary(rule) is rule
    with pytest.raises(ValueError, match="secondary must be one of"):
        resolve_secondary("qp")


@pytest.mark.parametrize("seed", range(4))
def test_line_search_with_known_slope_at_zero_is_identical(seed):
    rng = np.random.default_rng(seed)
    obj = SmoothedSoftMargin(nu=4.0, eta=20.0)
    q = rng.uniform(-1, 1, 40)
    delta = rng.uniform(-1, 1, 40) - q
    slope0 = float(obj.distribution(q) @ delta)
    assert exact_line_search(obj, q, delta, 1.0, 1e-3, slope0) == exact_line_search(obj, q, delta, 1.0, 1e-3)


def test_line_search_leaves_no_reference_cycle_holding_its_arrays():
    """A closure handed to brentq formed a cycle that kept q + lam*delta's inputs alive until the
    next garbage collection (1.8x the size of X per round at m = 10^6)."""
    import gc
    import weakref

    obj = SmoothedSoftMargin(nu=1.0, eta=50.0)
    q = np.array([-0.5, 0.5])
    delta = np.array([1.0, -1.0])
    refs = [weakref.ref(q), weakref.ref(delta)]
    gc.disable()
    try:
        lam = exact_line_search(obj, q, delta, 1.0)
        assert 0.0 < lam < 1.0  # the interior case, where brentq runs
        del q, delta
        assert [r() for r in refs] == [None, None]
    finally:
        gc.enable()


def test_line_search_projects_once_per_root_finding_step():
    """The slopes at both ends are computed once: brentq's own evaluations of them are free."""
    from marginboost.core.line_search import _slope

    class Counting(SmoothedSoftMargin):
        calls = 0

        def distribution(self, q):
            Counting.calls += 1
            return super().distribution(q)

    obj = Counting(nu=1.0, eta=50.0)
    q, delta = np.array([-0.5, 0.5]), np.array([1.0, -1.0])
    lam = exact_line_search(obj, q, delta, 1.0, rtol=1e-12)
    assert lam == pytest.approx(0.5, abs=1e-10)
    brent_steps = Counting.calls - 2
    Counting.calls = 0
    from scipy.optimize import brentq

    brentq(_slope, 0.0, 1.0, args=(obj, q, delta), xtol=1e-14, rtol=1e-12, maxiter=200)
    assert Counting.calls == brent_steps + 2  # brentq alone: its steps plus both ends again


def test_pairwise_drop_step_of_a_dust_weight_falls_back_to_the_fw_step():
    """The away hypothesis carries 1e-17 (an LP vertex's round-off): the pairwise step can move only
    that much and gains nothing, so the rule must return the FW line-search step instead (without
    it MLPBoost(PFW) repeated the same round 400,000 times on german)."""
    ctx = _dust_drop_step_context()
    w, q = ctx.w, ctx.q
    active = np.flatnonzero(w > 0)
    assert active[np.argmin(ctx.d @ ctx.U[:, active])] == 0 and w[0] == 1e-17  # a drop step of 1e-17
    w1, q1, (scale, touched) = Pairwise()(ctx)
    fw_value = ctx.objective.value(LineSearch()(ctx)[1])
    assert fw_value > ctx.objective.value(q) + 1e-6  # the FW direction does ascend
    assert ctx.objective.value(q1) >= fw_value - 1e-12
    np.testing.assert_allclose(q1, ctx.U @ w1, atol=1e-12)
    untouched = np.setdiff1d(np.arange(w1.shape[0]), touched)
    np.testing.assert_array_equal(w1[untouched], scale * w[untouched])


def test_pairwise_keeps_a_drop_step_that_beats_the_fw_step():
    """A drop step with real weight on the away hypothesis is Algorithm 4's step whenever it is the better."""
    for seed in range(20):
        ctx = context(seed)
        active = np.flatnonzero(ctx.w > 0)
        away = active[np.argmin(ctx.d @ ctx.U[:, active])]
        delta = ctx.U[:, ctx.j_new] - ctx.U[:, away]
        lam = exact_line_search(ctx.objective, ctx.q, delta, ctx.w[away])
        q_drop = ctx.q + lam * delta
        if lam == ctx.w[away] and ctx.objective.value(q_drop) > ctx.objective.value(LineSearch()(ctx)[1]):
            w1, q1, _ = Pairwise()(ctx)
            assert w1[away] == 0.0
            np.testing.assert_allclose(q1, q_drop, atol=1e-15)
            return
    pytest.fail("no seed gave a drop step better than the FW step")


def _dust_drop_step_context():
    """A context whose away hypothesis weighs 1e-17: it is wrong on every example (edge -1, the
    least possible; first, so that it wins ties), and the new hypothesis is right on every one."""
    obj = SmoothedSoftMargin(nu=3.0, eta=30.0)
    rng = np.random.default_rng(0)
    m = 30
    U = np.hstack([-np.ones((m, 1)), rng.choice([-1.0, 1.0], size=(m, 3)), np.ones((m, 1))])
    w = np.append(1e-17, rng.dirichlet(np.ones(3)) * (1.0 - 1e-17))
    w = np.append(w, 0.0)
    q = U @ w
    return FWContext(U, w, q, obj.distribution(q), 4, 3, obj)


@pytest.mark.parametrize("rule, got", [(lambda ctx: 0.5, r"float 0\.5"), (lambda ctx: (np.ones(1),), "tuple of 1 items"),
                                       (lambda ctx: (np.ones(99), np.ones(99)), "tuple of 2 items")])
def test_a_wrong_step_callable_says_what_a_rule_returns(rule, got):
    """Issue 33: ``step=lambda ctx: 0.5`` failed with "'float' object is not subscriptable" inside the scheme."""
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(TypeError, match=rf"the Frank-Wolfe rule step=.*<lambda> returned {got}; a rule returns "
                                        r"FWStep\(w, q\[, step\]\).*toward_new\(ctx, lam\)"):
        MLPBoostClassifier(weak_learner="stump", step=rule, max_iter=5).fit(X[:60], y[:60])


def test_a_rule_choosing_a_step_size_through_toward_new_is_the_classic_rule():
    X, y = load_breast_cancer(return_X_y=True)
    kw = dict(weak_learner="stump", secondary="none", max_iter=30, nu=0.1)
    ours = MLPBoostClassifier(step=lambda ctx: toward_new(ctx, 2.0 / (ctx.t + 2.0)), **kw).fit(X, y)
    builtin = MLPBoostClassifier(step="classic", **kw).fit(X, y)
    np.testing.assert_array_equal(ours.weights_, builtin.weights_)
