"""GBM (Friedman 2001) against scikit-learn's GradientBoosting* and against a reference loop."""
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from marginboost.functional.gbm import gbm, initial_constant, leaf_ids
from marginboost.estimators.gbm import GBMClassifier, GBMRegressor
from marginboost.functional.losses import AbsoluteLoss, ExponentialLoss, HuberLoss, LogisticLoss, SquaredLoss
from marginboost.weak_learners.regression import LeastSquaresStump


def _data(p, m=160, seed=0):
    """Ties-free, float32-exact features (sklearn's trees cast X to float32), continuous y,
    labels, positive weights (so that no two cuts of different partitions tie in score) and
    test points off the training grid."""
    rng = np.random.default_rng(seed)
    X = np.stack([rng.permutation(m) for _ in range(p)], axis=1) * 0.5
    y = np.sin(X[:, 0] / 15) + X[:, -1] / 80 + 0.3 * rng.normal(size=m)
    labels = np.where(y > np.median(y), 1.0, -1.0)
    X_test = np.round(rng.uniform(-3, 0.5 * m + 3, size=(200, p)), 2).astype(np.float32).astype(float)
    return X, y, labels, rng.uniform(0.5, 1.5, size=m), X_test


def _same_partition(a, b):
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@pytest.mark.parametrize("max_depth", [1, 3, 5])
def test_squared_loss_matches_sklearn_regressor(max_depth):
    settings = dict(learning_rate=0.3, max_depth=max_depth)
    for p in (1, 4):
        X, y, _, _, X_test = _data(p)
        sk = GradientBoostingRegressor(n_estimators=40, random_state=0, **settings).fit(X, y)
        ours = GBMRegressor(max_iter=40, **settings).fit(X, y)
        assert ours.offset_ == pytest.approx(y.mean(), abs=1e-12)
        np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=0, atol=1e-8)
        for ours_t, sk_t in zip(ours.staged_predict(X), sk.staged_predict(X)):
            np.testing.assert_allclose(ours_t, sk_t, rtol=0, atol=1e-8)
        # sklearn breaks exact ties between features (same split of the node's examples)
        # by a random feature order, ours by the first feature: with several features the
        # thresholds may differ, never the partition of the training sample.
        for h, tree in zip(ours.hypotheses_, sk.estimators_[:, 0]):
            assert _same_partition(leaf_ids(h, X), tree.apply(X.astype(np.float32)))
        if p == 1:
            np.testing.assert_allclose(ours.predict(X_test), sk.predict(X_test), rtol=0, atol=1e-8)


@pytest.mark.parametrize("loss, sk_loss", [("logistic", "log_loss"), ("exponential", "exponential")])
@pytest.mark.parametrize("max_depth", [1, 3])
def test_newton_leaves_match_sklearn_classifier(loss, sk_loss, max_depth):
    settings = dict(learning_rate=0.5, max_depth=max_depth)
    for p in (1, 3):
        X, _, labels, w, X_test = _data(p, seed=1)
        sk = GradientBoostingClassifier(loss=sk_loss, n_estimators=30, random_state=0, **settings).fit(
            X, labels, sample_weight=w)
        ours = GBMClassifier(loss=loss, leaf_update="newton", max_iter=30, **settings).fit(X, labels, sample_weight=w)
        np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), rtol=0, atol=1e-8)
        if p == 1:
            np.testing.assert_allclose(ours.decision_function(X_test), sk.decision_function(X_test),
                                       rtol=0, atol=1e-8)
        np.testing.assert_array_equal(ours.predict(X), sk.predict(X))
        np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), rtol=0, atol=1e-8)
        if max_depth == 1:  # Newton leaves on LeastSquaresStump too
            stumps = GBMClassifier(loss=loss, weak_learner="stump", max_iter=30, **settings).fit(
                X, labels, sample_weight=w)
            np.testing.assert_allclose(stumps.decision_function(X), sk.decision_function(X), rtol=0, atol=1e-8)


def test_weighted_regressor_matches_sklearn():
    X, y, _, w, X_test = _data(1, seed=2)
    sk = GradientBoostingRegressor(n_estimators=25, max_depth=3, random_state=0).fit(X, y, sample_weight=w)
    ours = GBMRegressor(max_iter=25, max_depth=3).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict(X_test), sk.predict(X_test), rtol=0, atol=1e-8)


def test_subsampling_equals_reference_loop_with_sklearn_trees():
    """Round t fits the residuals with the out-of-bag examples at weight 0 (Friedman 2002);
    the reference replays the documented draws with sklearn trees."""
    X, y, _, _, X_test = _data(1, seed=3)
    m, lr, T, frac, seed = X.shape[0], 0.2, 20, 0.6, 7
    ours = GBMRegressor(max_iter=T, learning_rate=lr, subsample=frac, max_depth=3, random_state=seed).fit(X, y)
    rng = np.random.default_rng(seed)
    F, F_test = np.full(m, y.mean()), np.full(X_test.shape[0], y.mean())
    for _ in range(T):
        mask = np.zeros(m)
        mask[rng.choice(m, size=int(frac * m), replace=False)] = 1.0
        tree = DecisionTreeRegressor(max_depth=3).fit(X, y - F, sample_weight=mask)
        F, F_test = F + lr * tree.predict(X), F_test + lr * tree.predict(X_test)
    np.testing.assert_allclose(ours.predict(X_test), F_test, rtol=0, atol=1e-8)
    again = GBMRegressor(max_iter=T, learning_rate=lr, subsample=frac, max_depth=3, random_state=seed).fit(X, y)
    np.testing.assert_array_equal(again.predict(X_test), ours.predict(X_test))


def test_update_is_shrunken_negative_gradient_fit():
    """F_{t+1} = F_t + lr h_t with h_t the least-squares fit of -l'(F_t, y) (Huber, stumps)."""
    X, y, _, _, _ = _data(3, m=60, seed=4)
    loss = HuberLoss(delta=0.3)
    res = gbm(LeastSquaresStump(), X, loss, y, learning_rate=0.4, max_iter=5)
    oracle = LeastSquaresStump().prepare(X)
    F = np.full(y.shape[0], res.init)
    for h in res.hypotheses:
        _, out = oracle(-loss.derivative(F, y), np.ones_like(y))
        np.testing.assert_allclose(h.predict(X), out, atol=1e-12)
        F = F + 0.4 * out
    np.testing.assert_allclose(res.F, F, atol=1e-12)
    np.testing.assert_allclose(res.history["loss"][-1], loss.value(F, y), rtol=1e-12)


@pytest.mark.parametrize("loss", [SquaredLoss(), AbsoluteLoss(), LogisticLoss(), ExponentialLoss(), HuberLoss(0.5)])
def test_initial_constant_minimises_the_loss(loss):
    rng = np.random.default_rng(5)
    y = np.where(rng.random(41) < 0.7, 1.0, -1.0) if loss.kind == "classification" else rng.normal(size=41)
    w = rng.uniform(0.2, 2.0, size=41)
    c = initial_constant(loss, y, w)
    value = loss.value(np.full(41, c), y, w)
    for delta in (1e-4, -1e-4, 0.1, -0.1):
        assert value <= loss.value(np.full(41, c + delta), y, w) + 1e-12


def test_history_staged_and_loss_decreases():
    X, y, labels, _, _ = _data(2, m=100, seed=6)
    est = GBMClassifier(max_iter=15, max_depth=2).fit(X, labels)
    h = est.history_
    assert set(h) == {"round", "loss", "time"} and len(h["loss"]) == 16
    np.testing.assert_array_equal(h["round"], np.arange(16))
    assert np.all(np.diff(h["loss"]) < 0) and np.all(np.diff(h["time"]) >= 0)
    staged = list(est.staged_decision_function(X))
    assert len(staged) == est.n_iter_ == 15
    np.testing.assert_allclose(staged[-1], est.decision_function(X), atol=1e-12)
    losses = [np.mean(np.logaddexp(0, -labels * F)) for F in staged]
    np.testing.assert_allclose(losses, h["loss"][1:], rtol=1e-10)
    np.testing.assert_array_equal(list(est.staged_predict(X))[-1], est.predict(X))
    assert est.score(X, labels) > 0.8


@pytest.mark.parametrize("params, name", [
    ({"learning_rate": 0.0}, "learning_rate"), ({"learning_rate": -1.0}, "learning_rate"),
    ({"max_iter": 0}, "max_iter"), ({"subsample": 0.0}, "subsample"),
    ({"subsample": 1.5}, "subsample"), ({"max_depth": 0}, "max_depth"),
    ({"leaf_update": "line"}, "leaf_update"), ({"loss": "hinge"}, "loss"),
    ({"weak_learner": "forest"}, "weak_learner"), ({"random_state": "x"}, "random_state"),
])
def test_bad_parameters_name_the_parameter(params, name):
    X, y, labels, _, _ = _data(2, m=30)
    for est, target in ((GBMRegressor(**params), y), (GBMClassifier(**params), labels)):
        with pytest.raises(ValueError, match=name):
            est.fit(X, target)


def test_incompatible_choices_raise():
    X, y, labels, _, _ = _data(2, m=30)
    with pytest.raises(ValueError, match="loss='logistic'"):
        GBMRegressor(loss="logistic").fit(X, y)
    with pytest.raises(ValueError, match="leaf_update='newton'.*loss"):
        GBMClassifier(loss="absolute").fit(X, labels)
    with pytest.raises(ValueError, match="leaf_update='newton'.*weak_learner"):
        GBMClassifier(weak_learner=DecisionTreeRegressor(max_depth=2)).fit(X, labels)
    # 'mean' leaves work with any regressor
    est = GBMClassifier(weak_learner=DecisionTreeRegressor(max_depth=2), leaf_update="mean", max_iter=5)
    assert est.fit(X, labels).score(X, labels) > 0.7


def _expected_failures(est):
    if est.subsample < 1:
        return {"check_sample_weight_equivalence_on_dense_data":
                "a duplicated row is two draws of the subsample, a weight-2 row one"}
    return {}


@parametrize_with_checks([GBMRegressor(max_iter=20), GBMClassifier(max_iter=20),
                          GBMRegressor(loss="huber", subsample=0.7, weak_learner="stump", random_state=0),
                          GBMClassifier(loss="exponential", leaf_update="mean", max_depth=2)],
                         expected_failed_checks=_expected_failures)
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_warm_start_with_a_new_learning_rate_matches_sklearn(kind):
    """scikit-learn's warm start takes a changed learning_rate for every tree, those fitted included
    (its predictions use the current rate), and fits the next trees at the training values that gives.
    Ours did neither (issue 33): its next trees went on at the old rate while predict used the new one."""
    X, y, labels, _, X_test = _data(3, seed=2)
    if kind == "regressor":
        sk = GradientBoostingRegressor(n_estimators=8, learning_rate=0.3, max_depth=2, random_state=0,
                                       warm_start=True).fit(X, y)
        ours = GBMRegressor(max_iter=8, learning_rate=0.3, max_depth=2, warm_start=True).fit(X, y)
        sk.set_params(n_estimators=20, learning_rate=0.05).fit(X, y)
        ours.set_params(max_iter=20, learning_rate=0.05).fit(X, y)
        values = lambda est, A: est.predict(A)  # noqa: E731
        staged = lambda est, A: est.staged_predict(A)  # noqa: E731
        target = y
    else:
        sk = GradientBoostingClassifier(n_estimators=8, learning_rate=0.5, max_depth=2, random_state=0,
                                        warm_start=True).fit(X, labels)
        ours = GBMClassifier(max_iter=8, learning_rate=0.5, max_depth=2, warm_start=True).fit(X, labels)
        sk.set_params(n_estimators=20, learning_rate=0.1).fit(X, labels)
        ours.set_params(max_iter=20, learning_rate=0.1).fit(X, labels)
        values = lambda est, A: est.decision_function(A)  # noqa: E731
        staged = lambda est, A: est.staged_decision_function(A)  # noqa: E731
        target = labels
    assert ours.n_iter_ == 20 and len(ours.history_["round"]) == 21
    np.testing.assert_allclose(values(ours, X), values(sk, X), rtol=0, atol=1e-8)
    for ours_t, sk_t in zip(staged(ours, X), staged(sk, X)):
        np.testing.assert_allclose(ours_t, np.ravel(sk_t), rtol=0, atol=1e-8)
    # train_loss_ is the loss of the model as it predicts (the trees at the new rate)
    loss = SquaredLoss() if kind == "regressor" else LogisticLoss()
    assert ours.train_loss_ == loss.value(values(ours, X), target, np.ones(X.shape[0]))


def test_a_learning_rate_too_large_stops_diverged_with_a_warning():
    """Issue 33: learning_rate=10 gave a training MSE of 7e190 with status 'max_iter' and no
    warning, and a classifier below the majority rate."""
    X, y = make_regression(200, 5, noise=1.0, random_state=0)
    with pytest.warns(ConvergenceWarning, match=r"diverged: round 1 would have made the training loss rise to .*"
                                                r"twice the initial constant's.*lower learning_rate=10"):
        reg = GBMRegressor(learning_rate=10).fit(X, y)
    assert reg.status_ == "diverged" and reg.n_iter_ == 0
    assert np.mean((reg.predict(X) - y) ** 2) <= np.var(y) * (1 + 1e-12)  # the constant, no worse
    Xc, yc = make_classification(200, 5, weights=[0.7], random_state=0)
    with pytest.warns(ConvergenceWarning, match="diverged"):
        clf = GBMClassifier(learning_rate=10).fit(Xc, yc)
    assert clf.status_ == "diverged" and clf.score(Xc, yc) >= max(np.mean(yc), 1 - np.mean(yc))
    # a warm start with a sane rate goes on from the rounds kept, to max_iter
    reg.set_params(warm_start=True)
    with pytest.warns(ConvergenceWarning):
        reg.fit(X, y)
    reg.set_params(learning_rate=0.1, max_iter=30).fit(X, y)
    assert reg.status_ == "max_iter" and reg.n_iter_ == 30
    np.testing.assert_allclose(reg.predict(X), GBMRegressor(learning_rate=0.1, max_iter=30).fit(X, y).predict(X),
                               rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("learning_rate", [0.1, 1.0, 1.9])
@pytest.mark.parametrize("cls", [GBMRegressor, GBMClassifier])
def test_sane_full_batch_fits_never_stop_diverged(cls, learning_rate):
    """The divergence rule (loss above twice the constant's and rising) leaves descent steps alone."""
    X, y = (make_regression if cls is GBMRegressor else make_classification)(200, 5, random_state=1)
    est = cls(learning_rate=learning_rate, max_iter=100, leaf_update="mean").fit(X, y)
    assert est.status_ == "max_iter" and np.all(np.diff(est.history_["loss"]) <= 1e-9 * est.history_["loss"][0])
