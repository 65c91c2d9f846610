"""BLasso (Zhao and Yu 2007) against an independent reference: scikit-learn's Lasso path.

With a fixed finite dictionary (the +-1 outputs of every stump on a tiny sample) and a fixed
offset ``c = mean(y)``, BLasso with the squared loss ``L = ||y - c - D beta||^2 / (2m)`` runs on
exactly the problem of ``sklearn.linear_model.lasso_path(D, y - c)`` (no intercept; penalty
``alpha ||beta||_1``). The Lasso path gives the least loss at each l1 norm T; BLasso at step
size eps must be at most ``O(eps)`` above it at its own T (Zhao and Yu, Theorem 1), never below
it, and its lambda must track the Lasso's alpha at that T.

The least loss at norm T is bracketed by the path's points ``(T_k, L_k, alpha_k)``: above by
linear interpolation (the function is convex), below by the supporting lines
``L_k + alpha_k (T_k - T)`` (from ``L(b) + alpha_k ||b||_1 >= L_k + alpha_k T_k`` for every b).
"""
import numpy as np
import pytest
from reference import all_stump_margins
from sklearn.linear_model import lasso_path

from marginboost.functional.blasso import blasso, staged_blasso
from marginboost.functional.fwboost import regression_oracle
from marginboost.functional.losses import SquaredLoss
from marginboost.weak_learners.regression import LeastSquaresTree

M = 30


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(M, 2))
    y = X[:, 0] ** 2 + 0.3 * rng.normal(size=M)
    D = all_stump_margins(X, np.ones(M))[:, 2:]  # the constants dropped: the offset is fixed
    return X, y, D


def dictionary_oracle(D):
    """The exact forward direction over the columns of D and their negatives: max |<g, D_j>|."""
    def lmo(g):
        scores = g @ D
        j = int(np.argmax(np.abs(scores)))
        sign = 1.0 if scores[j] >= 0 else -1.0
        return j, sign * D[:, j], sign
    return lmo


def lasso_reference(D, r):
    """Lasso path of ``||r - D b||^2 / (2m) + alpha ||b||_1``: (l1 norms, losses, alphas), by T."""
    alphas, coefs, _ = lasso_path(D, r, alphas=400, eps=1e-5, tol=1e-12, max_iter=100000)
    T = np.abs(coefs).sum(axis=0)
    loss = 0.5 * np.mean((r[:, None] - D @ coefs) ** 2, axis=0)
    order = np.argsort(T)
    return T[order], loss[order], alphas[order]


@pytest.mark.parametrize("eps, tol", [(0.05, 3e-3), (0.01, 2e-4)])
def test_path_tracks_the_lasso_path(problem, eps, tol):
    _, y, D = problem
    c = y.mean()
    res = blasso(dictionary_oracle(D), SquaredLoss(), y, eps, offset=c, max_iter=5000)
    assert (res.status, res.reason) == ("converged", "path_end")
    T_ref, L_ref, alpha_ref = lasso_reference(D, y - c)
    T, L = res.history["l1_norm"], res.history["loss"]
    inside = T <= T_ref[-1]
    assert inside.sum() > 100
    upper = np.interp(T[inside], T_ref, L_ref)
    lower = np.max(L_ref[None, :] + alpha_ref[None, :] * (T_ref[None, :] - T[inside, None]), axis=1)
    # No point of the path beats the least loss at its l1 norm, and BLasso stays within
    # O(eps) of it along the whole path.
    assert np.all(L[inside] >= lower - 1e-9)
    assert np.max(L[inside] - upper) < tol
    # lambda_t tracks the Lasso's alpha at the same l1 norm once the path is under way.
    lam = res.history["lam"][inside]
    alpha = np.interp(T[inside], T_ref, alpha_ref)
    under_way = T[inside] > 0.5
    assert np.max(np.abs(lam - alpha)[under_way]) < 20 * eps * alpha.max()


def test_backward_and_forward_steps_never_raise_the_penalised_loss(problem):
    _, y, D = problem
    res = blasso(dictionary_oracle(D), SquaredLoss(), y, 0.02, offset=y.mean(), max_iter=3000)
    h = res.history
    assert (h["direction"] == 2).sum() > 10, "the data must exercise backward steps"
    lam_next = h["lam"][1:]
    before = h["loss"][:-1] + lam_next * h["l1_norm"][:-1]
    after = h["loss"][1:] + lam_next * h["l1_norm"][1:]
    assert np.all(after <= before + 1e-12)
    assert np.all(np.diff(h["lam"]) <= 0.0)  # the lambda schedule never increases
    # Counts are whole steps: l1 norm = eps * sum |counts|, and every step changes it by eps.
    assert np.allclose(np.abs(np.diff(h["l1_norm"])), 0.02)


def test_tree_oracle_path_and_staged_outputs(problem):
    X, y, _ = problem
    p = np.full(M, 1.0 / M)
    res = blasso(regression_oracle(LeastSquaresTree(max_depth=2), X, p), SquaredLoss(), y, 0.05,
                 offset=y.mean(), max_iter=200)
    assert res.n_iter == len(res.steps) == res.history["round"][-1]
    staged = list(staged_blasso(res, X))
    assert len(staged) == res.n_iter
    assert np.allclose(staged[-1], res.F)
    assert np.isclose(0.5 * np.mean((res.F - y) ** 2), res.loss)
    norms = np.array([np.max(np.abs(h.predict(X))) for h in res.hypotheses])
    assert np.isclose(np.sum(np.abs(res.weights) * norms), res.history["l1_norm"][-1])
    assert res.history["loss"][-1] < res.history["loss"][0]


@pytest.mark.parametrize("kwargs, name", [({"eps": 0.0}, "eps"), ({"eps": 0.1, "xi": -1.0}, "xi")])
def test_bad_parameters_name_themselves(problem, kwargs, name):
    _, y, D = problem
    with pytest.raises(ValueError, match=name):
        blasso(dictionary_oracle(D), SquaredLoss(), y, **kwargs)
