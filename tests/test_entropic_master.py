"""ERLPBoost's restricted master (000 eq. 14) against an independent conic solver (cvxpy +
Clarabel, exponential cone) on random instances."""
import cvxpy as cp
import numpy as np
import pytest

from marginboost.soft_margin.entropic_master import solve_entropic_master
from marginboost.soft_margin.objectives import SmoothedSoftMargin


def cvxpy_entropic_master(U, nu, eta, weights=None):
    """min_{d in P(m,nu)} max_k (U^T d)_k + (1/eta) sum_i d_i ln(d_i m / s_i): the primal of eq. 9."""
    m = U.shape[0]
    s = np.ones(m) if weights is None else weights
    d = cp.Variable(m)
    gamma = cp.Variable()
    # d ln(d m/s) = -entr(d) - d ln(s/m)
    # scaled by eta: the conic solver is unreliable when the entropy term is tiny next to gamma
    objective = eta * gamma - cp.sum(cp.entr(d)) - d @ np.log(s / m)
    prob = cp.Problem(cp.Minimize(objective), [U.T @ d <= gamma, cp.sum(d) == 1, d >= 0, d <= s / nu])
    prob.solve(solver=cp.CLARABEL)
    assert prob.status == cp.OPTIMAL, prob.status
    # cvxpy's own value can be inf when a weight lands at -1e-12; evaluate at the clipped d
    d_ref = np.clip(d.value, 0.0, None)
    d_ref /= d_ref.sum()
    nz = d_ref > 0
    entropy = float(d_ref[nz] @ np.log(d_ref[nz] * m / s[nz]))
    return float((U.T @ d_ref).max() + entropy / eta), d_ref


CASES = [(m, t, nu, eta, seed) for seed, (m, t, nu, eta) in enumerate(
    [(40, 3, 1.0, 1.0), (60, 8, 6.0, 10.0), (80, 12, 20.0, 50.0), (50, 20, 2.5, 100.0),
     (100, 6, 10.0, 200.0), (30, 30, 3.0, 5.0)])]


@pytest.mark.parametrize("m,t,nu,eta,seed", CASES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("far", [None, 8])
def test_entropic_master_matches_conic_solver(m, t, nu, eta, seed, weighted, far):
    rng = np.random.default_rng(seed)
    U = rng.uniform(-1, 1, size=(m, t))
    U[:, : t // 2] = np.sign(U[:, : t // 2])  # mix +-1 (stump-like) and fractional columns
    weights = None
    if weighted:
        raw = rng.integers(1, 4, m).astype(float)
        weights = raw * (m / raw.sum())
    obj = SmoothedSoftMargin(nu, eta, weights)
    # far = 8: a Hessian from 8 drawn rows while the gap is large (far_hessian_sample), the same optimum
    res = solve_entropic_master(U, obj, np.eye(t)[0], tol=1e-10, far_hessian_sample=far)
    assert res.converged
    assert np.all(res.w >= 0) and res.w.sum() == pytest.approx(1.0)
    ref_value, ref_d = cvxpy_entropic_master(U, nu, eta, weights)
    # strong duality: our dual value max_w rho~(Uw) equals the primal minimum
    assert res.value == pytest.approx(ref_value, abs=1e-6)
    np.testing.assert_allclose(res.d, ref_d, atol=1e-4)
    # and the reported gap certifies optimality: no vertex improves by more than it
    assert res.gap <= 1e-10


def _record_hessian_samples(monkeypatch):
    """``(sample, gap)`` of each Newton step of solve_entropic_master, in order: the rows its Hessian
    is asked to draw from, and the duality gap where it is taken."""
    import marginboost.soft_margin.entropic_master as em

    asked = []
    newton_direction = em._newton_direction

    def recording(U, w, d, g, support, objective, cap, cutoff, sample=None, single=False):
        asked.append((sample, float(g.max() - g @ w)))  # and the gap at the step
        return newton_direction(U, w, d, g, support, objective, cap, cutoff, sample, single)

    monkeypatch.setattr(em, "_newton_direction", recording)
    return asked


def test_far_hessian_sample_is_rough_far_from_the_optimum_and_exact_near_it(monkeypatch):
    """+-1 columns in bits, 3000 examples, warm-started as ERLPBoost's master is (from a solution to
    1e-3): the steps sample 1024 rows and search their line to 0.1 while the gap is above 3x tol, and
    are exact (hessian_sample None, rtol 1e-12) from there on; the optimum is the exact model's to the
    tolerance."""
    from marginboost.core.bit_matrix import BitMarginMatrix

    rng = np.random.default_rng(5)
    m, t = 3000, 40
    U = BitMarginMatrix(m)
    for _ in range(t):
        U.add(np.sign(rng.normal(size=m) + 0.3))
    obj = SmoothedSoftMargin(0.2 * m, 200.0)
    w0 = solve_entropic_master(U, obj, np.eye(t)[0], tol=1e-3).w
    asked = _record_hessian_samples(monkeypatch)
    import marginboost.soft_margin.entropic_master as em

    rtols = []
    line_search = em.newton_line_search
    monkeypatch.setattr(em, "newton_line_search", lambda *a: rtols.append(a[5]) or line_search(*a))
    rough = solve_entropic_master(U, obj, w0, tol=1e-9, far_hessian_sample=1024)
    assert rough.converged
    assert [sample for sample, _ in asked] == [1024 if gap > 3e-9 else None for _, gap in asked]
    assert asked[0][0] == 1024 and asked[-1][0] is None
    # the rough steps' line searches stop at 0.1, the exact ones at the default 1e-12
    assert rtols == [0.1 if sample == 1024 else 1e-12 for sample, _ in asked]
    exact = solve_entropic_master(U, obj, w0, tol=1e-9)
    assert rough.value == pytest.approx(exact.value, abs=2e-9)


def test_a_rough_step_that_fails_hands_the_solve_to_the_exact_model(monkeypatch):
    """A Hessian from 2 rows is a poor model: after its first step that does not lower the gap (or
    makes no step), far from the tolerance still, the solve goes on with the exact model only, and
    takes about the exact model's number of steps."""
    rng = np.random.default_rng(0)
    U = np.sign(rng.normal(size=(400, 25)) + 0.2)
    obj = SmoothedSoftMargin(40.0, 50.0)
    exact = solve_entropic_master(U, obj, np.eye(25)[0], tol=1e-8)
    asked = _record_hessian_samples(monkeypatch)
    res = solve_entropic_master(U, obj, np.eye(25)[0], tol=1e-8, far_hessian_sample=2)
    assert res.converged and res.n_iter <= exact.n_iter + 5
    samples = [sample for sample, _ in asked]
    first_exact = samples.index(None)
    assert first_exact > 0 and all(sample is None for sample in samples[first_exact:])
    assert asked[first_exact][1] > 100 * 1e-8  # given up for failing, not for being near the optimum


def test_entropic_master_warm_start_from_any_vertex_gives_same_optimum():
    rng = np.random.default_rng(7)
    U = np.sign(rng.uniform(-1, 1, size=(70, 10)))
    obj = SmoothedSoftMargin(7.0, 30.0)
    values = [solve_entropic_master(U, obj, np.eye(10)[j], tol=1e-11).value for j in range(10)]
    assert np.ptp(values) <= 1e-9


def test_entropy_rule_warns_when_its_solver_stops_early():
    from marginboost.soft_margin.secondary import EntropyRule

    rng = np.random.default_rng(0)
    U = np.sign(rng.uniform(-1, 1, size=(50, 8)))
    rule = EntropyRule(tol=1e-12, max_iter=1)
    obj = SmoothedSoftMargin(5.0, 20.0)
    rule.start(50, 5.0, obj, 0.01)
    with pytest.warns(RuntimeWarning, match="stopped after 1 iterations"):
        cand = rule(U, np.full(8, 1 / 8))
    assert cand.w.sum() == pytest.approx(1.0)


def dense_face_hessian(U, d, obj, cutoff):
    """eta U_F^T (D_F - d_F d_F^T / s_F) U_F formed densely, F the uncapped examples above the cutoff."""
    free = (d < (1 - 1e-12) / obj.nu) & (d > cutoff * d.max())
    UF, dF = U[free], d[free]
    return obj.eta * (UF.T @ (UF * dF[:, None]) - np.outer(dF @ UF, dF @ UF) / dF.sum()), int(free.sum())


def hessian_case(seed, m=200, t=9):
    rng = np.random.default_rng(seed)
    U = rng.uniform(-1, 1, size=(m, t))  # fractional columns: a well-conditioned Hessian
    U[:, 3] = np.sign(U[:, 3])
    obj = SmoothedSoftMargin(m / 10, 15.0)
    w = rng.dirichlet(np.ones(t))
    return U, obj, w, obj.distribution(U @ w)


@pytest.mark.parametrize("seed", range(4))
def test_blocked_hessian_and_its_newton_step_equal_the_dense_formula(seed, monkeypatch):
    """Row blocks smaller than the free set, so several are accumulated: dsyrk to 1e-12, ssyrk
    (``single``, the Newton rule's) to 1e-5."""
    import marginboost.soft_margin.entropic_master as em

    U, obj, w, d = hessian_case(seed)
    t = U.shape[1]
    g = U.T @ d
    support = np.arange(t)
    monkeypatch.setattr(em, "_HESSIAN_BLOCK", 7)
    H, n_free = dense_face_hessian(U, d, obj, 1e-2)
    assert 7 < n_free < U.shape[0]  # several blocks, and some examples left out
    # U in C order (m, t) and stored as the margin matrix stores it (U.T C-contiguous); all
    # columns, and a face of some of them (the submatrix of the dense Hessian)
    face = np.array([0, 2, 3, 7])
    for single, tol in ((False, 1e-12), (True, 1e-5)):
        for layout in (U, np.ascontiguousarray(U.T).T):
            for cols in (support, face):
                np.testing.assert_allclose(em._face_hessian(layout, d, cols, obj, 1.0 / obj.nu, 1e-2, single=single),
                                           H[np.ix_(cols, cols)], rtol=tol, atol=tol * np.abs(H).max())

    # v solves the dense KKT system: H v - g is constant (the multiplier of sum v = 0), up to
    # the ridge (1e-10 trace(H)/t; 1e-5 in single precision)
    for single, tol in ((False, 1e-8), (True, 1e-4)):
        v = em._newton_direction(U, w, d, g, support, obj, 1.0 / obj.nu, 1e-2, single=single)
        assert abs(v.sum()) <= 1e-12 * np.abs(v).max()
        assert np.ptp(H @ v - g) <= tol * (np.abs(H).max() * np.abs(v).max() + np.abs(g).max())


def test_single_precision_hessian_keeps_the_digits_of_a_nearly_constant_column():
    """The Gram matrix is summed in float32 after centring: E[u^2] - mu^2 in float32 would leave
    nothing of the variance of a column that is +1 on every free example but one."""
    from marginboost.soft_margin.entropic_master import _face_hessian

    rng = np.random.default_rng(5)
    m = 3000
    U = rng.choice([-1.0, 1.0], size=(m, 3))
    U[:, 1] = 1.0
    U[17, 1] = -1.0
    obj = SmoothedSoftMargin(m / 10, 1.0)  # d close to uniform: every example free, example 17 too
    d = obj.distribution(U @ np.array([0.5, 0.0, 0.5]))
    H, n_free = dense_face_hessian(U, d, obj, 1e-2)
    assert n_free == m
    got = _face_hessian(U, d, np.arange(3), obj, 1.0 / obj.nu, 1e-2, single=True)
    assert H[1, 1] < 1e-2 * H[0, 0]  # the variance of column 1 is small next to the others'
    # float32 sums of 3000 terms: the BLAS kernel's order sets the last digits of the centred sum
    # (column 1 off by 1.2e-5 under OpenBLAS's SkylakeX kernel, 3e-6 under Haswell's); E[u^2] - mu^2
    # in float32 is off by 5e-5 even summed pairwise (numpy), and by 2e-2 summed in order
    np.testing.assert_allclose(np.diag(got), np.diag(H), rtol=2e-5)


@pytest.mark.parametrize("seed", range(3))
def test_sampled_hessian_estimates_the_exact_one(seed):
    """Systematic sampling in proportion to d: relative error about sqrt(t / sample)."""
    from marginboost.soft_margin.entropic_master import _face_hessian

    U, obj, w, d = hessian_case(seed, m=40000, t=12)
    support = np.arange(12)
    H, n_free = dense_face_hessian(U, d, obj, 1e-2)
    assert n_free > 4000
    H_sampled = _face_hessian(U, d, support, obj, 1.0 / obj.nu, 1e-2, sample=4000)
    assert np.linalg.norm(H_sampled - H) <= 0.1 * np.linalg.norm(H)
    assert np.linalg.eigvalsh(H_sampled).min() >= -1e-9 * np.abs(H).max()  # still PSD
    # deterministic, and exact once the sample is larger than the free set
    np.testing.assert_array_equal(H_sampled, _face_hessian(U, d, support, obj, 1.0 / obj.nu, 1e-2, sample=4000))
    np.testing.assert_allclose(_face_hessian(U, d, support, obj, 1.0 / obj.nu, 1e-2, sample=n_free), H,
                               rtol=1e-10, atol=1e-10 * np.abs(H).max())


@pytest.mark.parametrize("seed", range(3))
def test_sampled_hessian_of_sign_columns_in_bits_is_the_float_estimate(seed):
    """+-1 columns held in bits take the integer Gram of the sample (popcounts): the same estimator
    as the float path on the same columns, to float64 rounding; positive semidefinite, its diagonal
    near the exact one's."""
    from marginboost.core.bit_matrix import BitMarginMatrix
    from marginboost.soft_margin.entropic_master import _face_hessian

    rng = np.random.default_rng(seed)
    m, t = 20000, 70  # 70 columns: groups of 8 and a partial one
    U = rng.choice([-1.0, 1.0], size=(m, t))
    bits = BitMarginMatrix(m)
    for j in range(t):
        assert bits.add(U[:, j]) == (j, True)
    obj = SmoothedSoftMargin(m / 10, 30.0)
    d = obj.distribution(U @ rng.dirichlet(np.ones(t)))
    H, n_free = dense_face_hessian(U, d, obj, 1e-2)
    for support in (np.arange(t), np.array([3, 8, 9, 40, 69])):
        sample = n_free // 10
        from_bits = _face_hessian(bits, d, support, obj, 1.0 / obj.nu, 1e-2, sample=sample, single=True)
        from_floats = _face_hessian(U, d, support, obj, 1.0 / obj.nu, 1e-2, sample=sample)
        np.testing.assert_allclose(from_bits, from_floats, rtol=0, atol=1e-12 * np.abs(from_floats).max())
        np.testing.assert_array_equal(from_bits, from_bits.T)
        assert np.linalg.eigvalsh(from_bits).min() >= -1e-9 * np.abs(from_bits).max()  # PSD
        # the variances, sampled from n_free / 10 examples, within a few of their sqrt(2 / n) errors
        np.testing.assert_allclose(np.diag(from_bits), np.diag(H)[support], rtol=0.1)


def test_bits_draw_the_sample_above_a_quarter_of_it_floats_only_above_it():
    """With +-1 columns in bits a sample is drawn once more than sample / 4 examples are free (the
    integer Gram of the draws, rows repeated: the float estimator of the same draws); at most that
    many, and for float columns up to the sample size, the sum is exact."""
    from marginboost.core.bit_matrix import BitMarginMatrix
    from marginboost.soft_margin.entropic_master import _INTEGER_GRAM_GAIN, _face_hessian

    rng = np.random.default_rng(5)
    m, t = 3000, 20
    U = rng.choice([-1.0, 1.0], size=(m, t))
    bits = BitMarginMatrix(m)
    for j in range(t):
        bits.add(U[:, j])
    obj = SmoothedSoftMargin(m / 10, 30.0)
    d = obj.distribution(U @ rng.dirichlet(np.ones(t)))
    H, n_free = dense_face_hessian(U, d, obj, 1e-2)
    support = np.arange(t)
    scale = np.abs(H).max()
    assert _INTEGER_GRAM_GAIN == 4
    below = n_free * _INTEGER_GRAM_GAIN  # n_free <= sample / 4: exact, bits or floats
    for matrix in (bits, U):
        np.testing.assert_allclose(_face_hessian(matrix, d, support, obj, 1.0 / obj.nu, 1e-2, below, True), H,
                                   rtol=0, atol=1e-5 * scale)
    above = n_free + 1  # sample / 4 < n_free <= sample: bits draw, floats stay exact
    drawn = _face_hessian(bits, d, support, obj, 1.0 / obj.nu, 1e-2, above, True)
    np.testing.assert_allclose(_face_hessian(U, d, support, obj, 1.0 / obj.nu, 1e-2, above, True), H,
                               rtol=0, atol=1e-5 * scale)
    assert np.abs(drawn - H).max() > 1e-4 * scale  # an estimate, not the sum
    np.testing.assert_allclose(np.diag(drawn), np.diag(H), rtol=0.1)
    assert np.linalg.eigvalsh(drawn).min() >= -1e-9 * scale


def test_result_carries_the_margins_and_distribution_of_its_weights():
    """The secondary rule hands q, d and the value to the scheme so it does not project again."""
    rng = np.random.default_rng(3)
    U = np.sign(rng.uniform(-1, 1, size=(60, 7)))
    obj = SmoothedSoftMargin(6.0, 25.0)
    for max_iter in (0, 1, 3, 500):
        res = solve_entropic_master(U, obj, np.eye(7)[2], tol=1e-10, max_iter=max_iter)
        np.testing.assert_allclose(res.q, U @ res.w, rtol=0, atol=1e-14)  # U w, up to the summation order
        np.testing.assert_array_equal(res.d, obj.distribution(res.q))
        assert res.value == obj.value(res.q)
        assert res.converged == (res.gap <= 1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_systematic_sample_picks_what_searchsorted_on_the_cumulative_sums_picks(seed):
    """The one-pass sampler against the numpy expression it replaced (ties, zeros, dyadic weights)."""
    from marginboost.soft_margin.entropic_master import _systematic_sample

    rng = np.random.default_rng(seed)
    for _ in range(50):
        n = int(rng.integers(2, 3000))
        sample = int(rng.integers(1, n))
        c = rng.random(n) ** rng.choice([1, 5, 20])
        c[rng.random(n) < 0.1] = 0.0
        if seed % 2:
            c = np.round(c * 8) / 8 + 1 / 8  # dyadic: points land exactly on cumulative sums
        cumulative = np.cumsum(c)
        points = (np.arange(sample) + 0.5) * (cumulative[-1] / sample)
        want = np.minimum(np.searchsorted(cumulative, points, side="right"), n - 1)
        picked, total = _systematic_sample(c, sample)
        np.testing.assert_array_equal(picked, want)
        assert total == cumulative[-1]


def test_largest_is_the_maximum_wherever_it_sits():
    """_largest's four running maxima and its tail: the maximum at every position, m = 1 .. 13."""
    from marginboost.soft_margin.entropic_master import _largest

    for m in range(1, 14):
        for at in range(m):
            d = np.linspace(0.1, 0.2, m)
            d[at] = 1.0
            assert _largest(d) == 1.0


@pytest.mark.parametrize("seed", range(3))
def test_free_rows_are_the_numpy_selection_they_replaced(seed):
    """F of the face Hessian: below the cap (scalar or per example), above cutoff * max(d); entries
    exactly at either bound, zeros and all-capped vectors included. Above the threshold, the sample
    drawn from F is _systematic_sample's of d[F], with its total."""
    from marginboost.soft_margin.entropic_master import _free_rows, _systematic_sample

    rng = np.random.default_rng(seed)
    for _ in range(30):
        m = int(rng.integers(1, 500))
        d = rng.dirichlet(np.ones(m)) * rng.choice([1.0, 1e-3])
        d[rng.random(m) < 0.1] = 0.0
        scalar_cap = float(rng.choice(d)) if m > 1 else 1.0
        caps = rng.choice(d, size=m) * rng.choice([1.0, 1.5])
        cutoff = float(rng.choice([0.0, 1e-2, 0.5, 1.0]))
        for cap in (scalar_cap, caps):
            want = np.flatnonzero((d < cap * (1.0 - 1e-12)) & (d > cutoff * d.max()))
            got, total, sampled = _free_rows(d, cap, cutoff)
            assert got.dtype == np.int64 and not sampled and total == 0.0
            np.testing.assert_array_equal(got, want)
            threshold = int(rng.integers(0, 40))
            got, total, sampled = _free_rows(d, cap, cutoff, 64, threshold)
            assert sampled == (want.size > threshold)
            if sampled:
                picked, want_total = _systematic_sample(d[want], 64)
                np.testing.assert_array_equal(got, want[picked])
                assert total == want_total
            else:
                np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("k", [1, 2, 7, 60])
def test_face_newton_step_by_cholesky_solves_the_bordered_system(k):
    """v = x - (1^T x / 1^T y) y from the Cholesky factor of H + reg I equals the LU solution of
    the bordered KKT system, and sums to 0; an indefinite H (no Cholesky factor) and a singular
    one without ridge take the bordered system's solve (least squares where it is singular)."""
    from marginboost.soft_margin.entropic_master import _face_newton_step, _kkt_matrix

    rng = np.random.default_rng(k)
    B = rng.normal(size=(3 * k, k))
    H = B.T @ B
    g = rng.normal(size=k)
    reg = 1e-5 * np.trace(H) / k
    want = np.linalg.solve(_kkt_matrix(H, reg), np.append(g, 0.0))[:k]
    got = _face_newton_step(H, reg, g)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12 * np.abs(want).max())
    assert abs(got.sum()) <= 1e-12 * np.abs(got).sum() + 1e-300
    if k > 1:
        indefinite = H - 2.0 * np.linalg.eigvalsh(H).max() * np.eye(k) * (np.arange(k) == 0)
        want = np.linalg.solve(_kkt_matrix(indefinite, reg), np.append(g, 0.0))[:k]
        np.testing.assert_allclose(_face_newton_step(indefinite, reg, g), want, rtol=1e-9)
        twins = np.ones((k, k))  # every column the same: singular, no ridge
        v = _face_newton_step(twins, 0.0, g)
        assert np.all(np.isfinite(v)) and abs(v.sum()) <= 1e-9 * (np.abs(v).sum() + 1.0)


def test_compiled_bookkeeping_is_the_numpy_formulation():
    """The active-set helpers against the numpy expressions they replaced, bit for bit, on vectors
    with zeros, negative zeros, ties of the ratio test and no negative entry at all."""
    from marginboost.soft_margin.entropic_master import _lowers_a_zero, _ratio_test, _stepped, _support_with

    rng = np.random.default_rng(4)
    for trial in range(300):
        t = int(rng.integers(1, 12))
        w = np.where(rng.random(t) < 0.4, 0.0, rng.random(t))
        w[rng.random(t) < 0.1] = -0.0
        v = rng.choice([-0.5, -0.25, 0.0, -0.0, 0.25, 1.0], t) * (1.0 if trial % 3 else rng.random(t))
        j = int(rng.integers(t))
        expected = np.flatnonzero(w > 0.0)
        if not w[j] > 0.0:
            expected = np.insert(expected, np.searchsorted(expected, j), j)
        np.testing.assert_array_equal(_support_with(w, j), expected)
        assert _lowers_a_zero(w, v) == bool(np.any(v[w <= 0.0] < 0.0))
        negative = np.flatnonzero(v < 0.0)
        ratios = w[negative] / -v[negative]
        blocking, lam_max = _ratio_test(w, v)
        if negative.size:
            assert (blocking, lam_max) == (negative[np.argmin(ratios)], ratios.min())
        else:
            assert (blocking, lam_max) == (-1, np.inf)
        for lam in (0.0, 0.5 * lam_max if np.isfinite(lam_max) else 0.3, lam_max if np.isfinite(lam_max) else 1.0):
            stepped = w + lam * v
            if lam >= lam_max:
                stepped[blocking] = 0.0
            stepped = np.clip(stepped, 0.0, None)
            got = _stepped(w, lam, v, lam >= lam_max, blocking)
            np.testing.assert_array_equal(got, stepped)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(stepped))
