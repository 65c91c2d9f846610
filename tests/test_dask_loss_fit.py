"""GBM and FWBoost on a Dask cluster (marginboost.dask.loss_estimators) against the in-memory fits
with the same histogram learners, on a LocalCluster of two worker processes started here; and the
least-squares histogram learners (marginboost.weak_learners.histogram_regression) against every
split of the bins, enumerated here.

The Dask fit sums per partition and adds the partitions in order, the in-memory fit in one pass:
the same cuts, values equal to rounding (here to 1e-10).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from marginboost import FWBoostClassifier, FWBoostRegressor, GBMClassifier, GBMRegressor
from marginboost.weak_learners import HistogramLeastSquaresStump, HistogramLeastSquaresTree
from marginboost.weak_learners.regression import RegressionStump

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from dask_cluster import client, fits_with_a_worker_killed  # noqa: E402, F401 (the module's LocalCluster)
from marginboost.dask import (DaskFWBoostClassifier, DaskFWBoostRegressor, DaskGBMClassifier,  # noqa: E402
                              DaskGBMRegressor)
from marginboost.dask.rows import RowVector  # noqa: E402


def problem(m=800, p=5, seed=0):
    """Rounded features (at most ~100 distinct values: the bins are the values) with 5% missing."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.standard_normal((m, p)), 1)
    X[rng.random((m, p)) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2 - 1 + 0.3 * rng.standard_normal(m)
    return X, y


def as_dask(X, *vectors, chunk=200):
    return (da.from_array(X, chunks=(chunk, X.shape[1])),) + tuple(da.from_array(v, chunks=chunk) for v in vectors)


def assert_same_model(est, ref, atol=1e-10):
    """The same splits (features, thresholds, sides of the missing values), values within ``atol``."""
    assert est.n_iter_ == ref.n_iter_
    assert len(est.hypotheses_) == len(ref.hypotheses_)
    for h, g in zip(est.hypotheses_, ref.hypotheses_):
        assert type(h) is type(g)
        for name in ("feature", "threshold", "missing_left"):
            np.testing.assert_array_equal(getattr(h, name), getattr(g, name), err_msg=name)
        for name in ("left", "right") if isinstance(h, RegressionStump) else ("value",):
            np.testing.assert_allclose(getattr(h, name), getattr(g, name), rtol=0, atol=atol, err_msg=name)
    assert est.offset_ == pytest.approx(ref.offset_, abs=atol)
    assert est.train_loss_ == pytest.approx(ref.train_loss_, abs=atol)


# -- the least-squares histogram learners against every split, enumerated ----------------------


def _score(r, s, left):
    """``S_L^2 / W_L + S_R^2 / W_R`` of the partition ``left`` / not left (an empty side scores 0)."""
    total = 0.0
    for side in (left, ~left):
        if side.any():
            total += (s[side] @ r[side]) ** 2 / s[side].sum()
    return total


def _splits(X, rows):
    """Every split of ``rows`` a bin cut makes: per feature, each cut between consecutive distinct
    values of the rows with the missing ones on either side, and the values against the missing."""
    for j in range(X.shape[1]):
        x = X[rows, j]
        nan = np.isnan(x)
        values = np.unique(x[~nan])
        for a, b in zip(values[:-1], values[1:]):
            yield j, x <= a, nan
        if nan.any() and values.size:
            yield j, ~nan, np.zeros_like(nan)


def _best_score(X, r, s, rows):
    best = -np.inf
    for _, finite_left, nan in _splits(X, rows):
        for left in (finite_left, finite_left | nan):
            best = max(best, _score(r[rows], s[rows], left))
    return best


def _goes_left(h, X, feature, threshold, missing_left):
    x = X[:, feature]
    return (x <= threshold) | (np.isnan(x) & missing_left)


def _tiny(seed, m=40, p=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (m, p)).astype(float)
    X[rng.random((m, p)) < 0.15] = np.nan
    return X, rng.standard_normal(m), rng.exponential(size=m)


@pytest.mark.parametrize("seed", range(6))
def test_histogram_least_squares_stump_is_the_best_split(seed):
    X, r, s = _tiny(seed)
    h, out = HistogramLeastSquaresStump().prepare(X)(r, s)
    rows = np.arange(X.shape[0])
    best = _best_score(X, r, s, rows)
    Q = s @ (r * r)
    assert h.threshold != -np.inf  # random residuals: some cut gains
    left = _goes_left(h, X, h.feature, h.threshold, h.missing_left)
    assert _score(r, s, left) == pytest.approx(best, abs=1e-12 * Q)
    assert h.left == pytest.approx(s[left] @ r[left] / s[left].sum(), abs=1e-12)
    assert h.right == pytest.approx(s[~left] @ r[~left] / s[~left].sum(), abs=1e-12)
    np.testing.assert_array_equal(out, h.predict(X))


@pytest.mark.parametrize("seed", range(6))
def test_histogram_least_squares_tree_splits_each_node_at_its_best(seed):
    X, r, s = _tiny(seed, m=60)
    h, out = HistogramLeastSquaresTree(max_depth=2).prepare(X)(r, s)
    np.testing.assert_array_equal(out, h.predict(X))
    node_rows = {0: np.arange(X.shape[0])}
    for k in range(h.node_count):  # children after their parents
        rows = node_rows[k]
        if h.feature[k] < 0:
            assert h.value[k] == pytest.approx(s[rows] @ r[rows] / s[rows].sum(), abs=1e-12)
            continue
        left = _goes_left(h, X[rows], h.feature[k], h.threshold[k], h.missing_left[k])
        Q = s[rows] @ (r[rows] ** 2)
        assert _score(r[rows], s[rows], left) == pytest.approx(_best_score(X, r, s, rows), abs=1e-12 * Q)
        node_rows[h.left[k]], node_rows[h.right[k]] = rows[left], rows[~left]


def test_a_constant_target_gives_a_constant_stump():
    X, _, s = _tiny(0)
    h, out = HistogramLeastSquaresStump().prepare(X)(np.full(X.shape[0], 2.5), s)
    assert h.threshold == -np.inf and h.right == pytest.approx(2.5)
    np.testing.assert_allclose(out, 2.5)


# -- the Dask fits against the in-memory fits -----------------------------------------------------


@pytest.mark.parametrize("weak_learner, leaf_update", [("hist_tree", "mean"), ("hist_stump", "newton")])
def test_dask_gbm_regressor_is_the_in_memory_fit(client, weak_learner, leaf_update):
    X, y = problem(seed=1)
    Xd, yd = as_dask(X, y)
    params = dict(max_iter=6, max_depth=2, weak_learner=weak_learner, leaf_update=leaf_update, learning_rate=0.3)
    est = DaskGBMRegressor(**params, client=client).fit(Xd, yd)
    ref = GBMRegressor(**params).fit(X, y)
    assert_same_model(est, ref)
    pred = est.predict(Xd)
    assert isinstance(pred, da.Array)
    np.testing.assert_allclose(pred.compute(), ref.predict(X), rtol=0, atol=1e-10)


def test_dask_gbm_classifier_with_sample_weights_is_the_in_memory_fit(client):
    """Logistic loss, Newton leaves, sample weights (zeros left out, as in memory), 4 partitions."""
    X, y = problem(seed=2)
    labels = np.where(y > 0, "yes", "no")
    w = np.random.default_rng(2).integers(0, 4, X.shape[0]).astype(float)
    Xd, yd, wd = as_dask(X, labels, w)
    params = dict(max_iter=6, max_depth=2, learning_rate=0.5)
    est = DaskGBMClassifier(**params, client=client).fit(Xd, yd, sample_weight=wd)
    ref = GBMClassifier(**params, weak_learner="hist_tree").fit(X, labels, sample_weight=w)
    assert_same_model(est, ref)
    np.testing.assert_array_equal(est.classes_, ref.classes_)
    np.testing.assert_allclose(est.predict_proba(Xd).compute(), ref.predict_proba(X), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(est.predict(Xd).compute(), ref.predict(X))


def test_dask_fwboost_classifier_is_the_in_memory_fit(client):
    X, y = problem(seed=3)
    labels = (y > 0).astype(int)
    Xd, yd = as_dask(X, labels, chunk=270)
    params = dict(loss="logistic", beta=3.0, max_iter=4, max_depth=2, away_steps=True)
    est = DaskFWBoostClassifier(**params, client=client).fit(Xd, yd)
    ref = FWBoostClassifier(**params, weak_learner="hist_tree").fit(X, labels)
    assert_same_model(est, ref)
    np.testing.assert_allclose(est.weights_, ref.weights_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(est.history_["gap"], ref.history_["gap"], rtol=0, atol=1e-10)
    np.testing.assert_allclose(est.decision_function(Xd).compute(), ref.decision_function(X), rtol=0, atol=1e-10)


def test_dask_fwboost_regressor_is_the_in_memory_fit(client):
    """variant 'R' (the least-squares learner scaled to the ball), offset the best constant."""
    X, y = problem(seed=4)
    Xd, yd = as_dask(X, y, chunk=160)
    params = dict(variant="R", beta=5.0, max_iter=4, max_depth=2)
    est = DaskFWBoostRegressor(**params, client=client).fit(Xd, yd)
    ref = FWBoostRegressor(**params, weak_learner="hist_tree").fit(X, y)
    assert_same_model(est, ref)
    np.testing.assert_allclose(est.weights_, ref.weights_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(est.predict(Xd).compute(), ref.predict(X), rtol=0, atol=1e-10)


def test_no_per_example_vector_reaches_the_client(client, monkeypatch):
    """The loops run with every conversion of a RowVector to numpy (and its explicit gather) raising."""
    def refuse(self, *args, **kwargs):
        raise AssertionError("a RowVector was gathered to the client")

    monkeypatch.setattr(RowVector, "__array__", refuse)
    monkeypatch.setattr(RowVector, "compute", refuse)
    X, y = problem(m=400, seed=5)
    Xd, yd, ycd = as_dask(X, y, (y > 0).astype(int))
    DaskGBMRegressor(max_iter=2, leaf_update="newton", client=client).fit(Xd, yd)
    DaskFWBoostRegressor(variant="R", max_iter=2, away_steps=True, client=client).fit(Xd, yd)
    DaskFWBoostClassifier(max_iter=2, weak_learner="hist_stump", client=client).fit(Xd, ycd)


def test_run_controls_model_files_and_to_local(client, tmp_path):
    """Warm start (the same collections), early stopping on a dask eval_set as in memory, save."""
    X, y = problem(m=600, seed=6)
    Xv, yv = problem(m=300, seed=7)
    Xd, yd = as_dask(X, y)
    Xvd, yvd = as_dask(Xv, yv, chunk=150)
    params = dict(max_iter=4, max_depth=2, learning_rate=0.5)
    warm = DaskGBMRegressor(**params, warm_start=True, client=client).fit(Xd, yd)
    warm.set_params(max_iter=6).fit(Xd, yd)
    cold = DaskGBMRegressor(**{**params, "max_iter": 6}, client=client).fit(Xd, yd)
    assert warm.n_iter_ == cold.n_iter_ == 6
    np.testing.assert_array_equal(warm.predict(Xd).compute(), cold.predict(Xd).compute())
    with pytest.raises(ValueError, match="learning_rate"):
        warm.set_params(max_iter=8, learning_rate=0.1).fit(Xd, yd)

    stop_params = dict(max_iter=30, max_depth=2, learning_rate=0.9, early_stopping=True, n_iter_no_change=2)
    stop = DaskGBMRegressor(**stop_params, client=client).fit(Xd, yd, eval_set=(Xvd, yvd))
    ref = GBMRegressor(**stop_params, weak_learner="hist_tree").fit(X, y, eval_set=(Xv, yv))
    assert stop.status_ == ref.status_ == "early_stopping" and stop.best_iteration_ == ref.best_iteration_
    np.testing.assert_allclose(stop.validation_scores_, ref.validation_scores_, rtol=0, atol=1e-10)

    local = cold.to_local()
    assert type(local) is GBMRegressor
    cold.save(tmp_path / "gbm.json")
    loaded = GBMRegressor.load(tmp_path / "gbm.json")
    np.testing.assert_array_equal(loaded.predict(X), local.predict(X))
    np.testing.assert_array_equal(local.predict(X), cold.predict(Xd).compute())


def test_three_classes_one_vs_rest_as_in_memory(client):
    X, y = problem(m=300, seed=9)
    labels = np.digitize(y, [-0.5, 0.5])
    Xd, yd = as_dask(X, labels, chunk=100)
    est = DaskGBMClassifier(max_iter=2, max_depth=2, client=client).fit(Xd, yd)
    ref = GBMClassifier(max_iter=2, max_depth=2, weak_learner="hist_tree").fit(X, labels)
    for model, local in zip(est.estimators_, ref.estimators_):
        assert_same_model(model, local)
    np.testing.assert_allclose(est.predict_proba(Xd).compute(), ref.predict_proba(X), rtol=0, atol=1e-10)


def test_a_worker_lost_mid_fit_is_recomputed_and_the_fit_goes_on():
    """A worker process killed after round 5: Dask recomputes the lost blocks of F, Z and the
    gradient by replaying the committed rounds' tasks from X's graph, and each fit ends on the
    model of an undisturbed one (issue 31, item 5)."""
    X, y = problem(m=900, seed=41)
    Xd, yd, labels = as_dask(X, y, (y > 0).astype(int), chunk=300)

    def fit(c, callbacks):
        return (DaskGBMClassifier(max_iter=9, client=c, callbacks=callbacks).fit(Xd, labels),
                DaskFWBoostRegressor(max_iter=9, client=c, callbacks=callbacks).fit(Xd, yd))

    undisturbed, disturbed = fits_with_a_worker_killed(fit, after_round=5)
    for est, reference in zip(disturbed, undisturbed):
        assert est.n_iter_ == reference.n_iter_
        assert_same_model(est, reference, atol=1e-12)


def test_bad_input_is_named(client):
    X, y = problem(m=300, seed=8)
    Xd, yd = as_dask(X, y, chunk=100)
    with pytest.raises(ValueError, match="'loss' parameter"):
        DaskGBMRegressor(loss="huber", client=client).fit(Xd, yd)
    with pytest.raises(ValueError, match="'loss' parameter"):
        DaskFWBoostRegressor(loss="logistic", client=client).fit(Xd, yd)
    with pytest.raises(ValueError, match="subsample=0.5"):
        DaskGBMRegressor(subsample=0.5, client=client).fit(Xd, yd)
    with pytest.raises(ValueError, match="'weak_learner' parameter"):
        DaskGBMRegressor(weak_learner="tree", client=client).fit(Xd, yd)
    with pytest.raises(ValueError, match="finite target"):
        DaskGBMRegressor(client=client).fit(Xd, da.from_array(np.where(np.arange(300) == 7, np.nan, y), chunks=100))
    assert not hasattr(DaskGBMRegressor(), "predict_proba") and not hasattr(DaskGBMRegressor(), "decision_function")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        squared = DaskGBMClassifier(loss="squared", max_iter=1, client=client).fit(Xd, (yd > 0).astype(int))
    assert not hasattr(squared, "predict_proba")  # the squared loss maps to no probability
