"""LPBoost's restricted master LP against scipy's linprog on the same restricted problem.

Catches the error class of an earlier implementation (design.md) that wrote the cap as nu
instead of 1/nu, which silently turns the soft margin into the hard margin."""
import numpy as np
import pytest
from scipy.optimize import linprog

from marginboost.soft_margin.objectives import soft_margin
from marginboost.soft_margin.restricted_lp import RestrictedMasterLP, SolverError


def edge_minimisation_linprog(U, caps):
    """min_{d, gamma} gamma  s.t. U^T d <= gamma, sum d = 1, 0 <= d <= caps."""
    m, t = U.shape
    c = np.append(np.zeros(m), 1.0)
    A_ub = np.hstack([U.T, -np.ones((t, 1))])
    A_eq = np.append(np.ones(m), 0.0)[None, :]
    bounds = [(0, c_i) for c_i in caps] + [(None, None)]
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(t), A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs")
    assert res.status == 0
    return res.fun


def random_capped_problem(rng, m, t, nu, weighted):
    """+-1 rows ``U`` (m, t), example weights (mean 1, or None) and the caps ``s_i / nu``."""
    U = np.sign(rng.uniform(-1, 1, size=(m, t)))
    if not weighted:
        return U, None, np.full(m, 1 / nu)
    raw = rng.integers(1, 5, m).astype(float)
    weights = raw * (m / raw.sum())
    return U, weights, weights / nu


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weighted", [False, True])
def test_restricted_lp_incremental_solutions_match_linprog(seed, weighted):
    rng = np.random.default_rng(seed)
    m, t, nu = 60, 12, 7.0
    U, weights, caps = random_capped_problem(rng, m, t, nu, weighted)
    lp = RestrictedMasterLP(m, nu, weights)
    for k in range(t):
        lp.add_hypothesis(U[:, k])
        w, d, gamma = lp.solve()
        assert gamma == pytest.approx(edge_minimisation_linprog(U[:, : k + 1], caps), abs=1e-8)
        # d is feasible for the capped simplex: the cap is 1/nu (s_i/nu), not nu
        assert np.all(d >= 0) and d.sum() == pytest.approx(1.0)
        assert np.all(d <= caps + 1e-9)
        # strong duality: the weights attain gamma as a soft margin, and d is optimal for them
        assert w.shape == (k + 1,) and np.all(w >= 0) and w.sum() == pytest.approx(1.0)
        q = U[:, : k + 1] @ w
        if weights is None:
            assert soft_margin(q, nu) == pytest.approx(gamma, abs=1e-8)
        assert d @ q == pytest.approx(gamma, abs=1e-8)
        assert np.all(d @ U[:, : k + 1] <= gamma + 1e-8)


def test_non_optimal_status_raises_with_solver_and_status_named():
    lp = RestrictedMasterLP(20, 2.0)
    lp.add_hypothesis(np.ones(20))
    lp._highs.setOptionValue("time_limit", 0.0)
    with pytest.raises(SolverError, match="HiGHS.*status.*(Time limit|time limit)"):
        lp.solve()


def test_fitting_prints_nothing_not_even_the_highs_banner():
    """HiGHS prints 'Running HiGHS ...: Copyright ...' from C++ on its first construction in a
    process: a fresh interpreter that fits LPBoost must write only what it prints itself."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import marginboost

    script = ("import warnings\n"
              "from sklearn.datasets import make_classification\n"
              "from marginboost import LPBoostClassifier\n"
              "X, y = make_classification(n_samples=60, n_features=4, random_state=0)\n"
              "with warnings.catch_warnings():\n"
              "    warnings.simplefilter('ignore')\n"
              "    LPBoostClassifier(nu=0.2, weak_learner='stump', max_iter=20).fit(X, y)\n"
              "print('fitted')\n")
    src = str(Path(marginboost.__file__).resolve().parents[1])  # this checkout's package, not another
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "HiGHS" not in done.stdout + done.stderr
    assert done.stdout == "fitted\n" and done.stderr == ""
