"""AdaBoost, MABoost and MadaBoost fitted on a Dask cluster against their in-memory fits, on a
LocalCluster of two worker processes started here (issue 31, items 3 and 4).

The reference is the in-memory estimator with the same histogram learner on the same rows: the
fit with the distribution, the mirror image and the margins on the workers must pick the same
hypotheses, with the same steps to 1e-12 (the sums are added per block), and log the same rounds.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from sklearn.utils._param_validation import InvalidParameterError  # noqa: E402

from marginboost import AdaBoostClassifier, MABoostClassifier, MadaBoostClassifier  # noqa: E402
from marginboost.dask import DaskAdaBoostClassifier, DaskMABoostClassifier, DaskMadaBoostClassifier  # noqa: E402
from marginboost.dask.mirror import DistributedMirrorAscentLoop  # noqa: E402
from marginboost.dask.rows import RowVector  # noqa: E402
from marginboost.weak_learners.histogram import HistogramTree  # noqa: E402
from dask_cluster import as_dask, client, fits_with_a_worker_killed, problem  # noqa: E402,F401 (client: the fixture)


def assert_same_fit(est, ref, atol=1e-12):
    assert est.n_iter_ == ref.n_iter_ and est.status_ == ref.status_
    assert len(est.hypotheses_) == len(ref.hypotheses_)
    for h, g in zip(est.hypotheses_, ref.hypotheses_):
        for name in ("feature", "threshold", "left", "right", "value", "missing_left"):
            np.testing.assert_array_equal(getattr(h, name), getattr(g, name), err_msg=name)
    np.testing.assert_allclose(est.weights_, ref.weights_, rtol=0, atol=atol)
    for column in ("edge", "step", "mass", "train_error", "min_margin", "entropy", "max_weight", "n_zero"):
        np.testing.assert_allclose(est.history_[column], ref.history_[column], rtol=1e-11, atol=atol,
                                   err_msg=column)
    assert est.margin_ == pytest.approx(ref.margin_, abs=atol)


FITS = [
    (DaskAdaBoostClassifier, AdaBoostClassifier, {}),
    (DaskMABoostClassifier, MABoostClassifier, {}),
    (DaskMABoostClassifier, MABoostClassifier, {"update": "lazy", "variant": "maxmargin"}),
    (DaskMABoostClassifier, MABoostClassifier, {"variant": "smooth", "smoothness": 0.2}),
    (DaskMABoostClassifier, MABoostClassifier, {"variant": "smooth", "update": "lazy"}),
    (DaskMadaBoostClassifier, MadaBoostClassifier, {}),
    (DaskMadaBoostClassifier, MadaBoostClassifier, {"step": "adaboost"}),
]


@pytest.mark.parametrize("dask_cls, local_cls, params", FITS,
                         ids=[f"{c.__name__}-{'-'.join(map(str, p.values()))}" for c, _, p in FITS])
def test_dask_fit_is_the_in_memory_fit(client, monkeypatch, dask_cls, local_cls, params):
    """Every assembly, unweighted and with sample weights (replication), with no vector gathered."""
    X, y = problem(m=1200, seed=len(params))
    Xd, yd = as_dask(X, y)
    w = np.random.default_rng(1).exponential(size=X.shape[0])

    def refuse(self):
        raise AssertionError("a fit on a cluster gathered a per-example vector")

    for weights in (None, w):
        wd = None if weights is None else da.from_array(weights, chunks=400)
        with monkeypatch.context() as patch:
            patch.setattr(RowVector, "compute", refuse)
            est = dask_cls(**params, max_iter=10, client=client).fit(Xd, yd, sample_weight=wd)
        ref = local_cls(**params, weak_learner=HistogramTree(2), max_iter=10).fit(X, y, sample_weight=weights)
        assert_same_fit(est, ref)
        assert est.distribution_ is None  # its m entries were on the workers
    decision = est.decision_function(Xd)
    assert isinstance(decision, da.Array)  # lazy, computed on the workers
    np.testing.assert_allclose(decision.compute(), ref.decision_function(X), atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xd).compute(), ref.predict(X))
    local = est.to_local()
    assert type(local) is local_cls
    np.testing.assert_array_equal(local.predict(X), ref.predict(X))


def test_more_than_two_classes_one_vs_rest(client):
    X, _ = problem(m=1200, seed=33)
    y = (np.nan_to_num(X[:, 0]) > 0.3).astype(int) + (np.nan_to_num(X[:, 1]) > 0) + 5  # labels 5, 6, 7
    Xd, yd = as_dask(X, y)
    est = DaskMadaBoostClassifier(max_iter=6, client=client).fit(Xd, yd)
    ref = MadaBoostClassifier(weak_learner=HistogramTree(2), max_iter=6).fit(X, y)
    np.testing.assert_array_equal(est.classes_, [5, 6, 7])
    for model, expected in zip(est.estimators_, ref.estimators_):
        assert_same_fit(model, expected)
    np.testing.assert_allclose(est.decision_function(Xd).compute(), ref.decision_function(X), atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xd).compute(), ref.predict(X))


def test_run_controls(client):
    """Warm start with a new learning rate (the steps to come take it, as in memory), early stopping
    on a dask eval_set (the in-memory fit's scores), callbacks."""
    X, y = problem(m=1200, seed=21)
    Xd, yd = as_dask(X, y)
    Xv, yv = problem(m=500, seed=22)
    Xvd, yvd = as_dask(Xv, yv, chunk=250)
    warm = DaskMABoostClassifier(max_iter=4, warm_start=True, client=client).fit(Xd, yd)
    warm.set_params(max_iter=8, learning_rate=0.5).fit(Xd, yd)
    ref = MABoostClassifier(weak_learner=HistogramTree(2), max_iter=4, warm_start=True).fit(X, y)
    ref.set_params(max_iter=8, learning_rate=0.5).fit(X, y)
    assert_same_fit(warm, ref)

    stop = DaskAdaBoostClassifier(max_iter=30, early_stopping=True, n_iter_no_change=2,
                                  client=client).fit(Xd, yd, eval_set=(Xvd, yvd))
    ref = AdaBoostClassifier(weak_learner=HistogramTree(2), max_iter=30, early_stopping=True,
                             n_iter_no_change=2).fit(X, y, eval_set=(Xv, yv))
    assert stop.status_ == ref.status_ == "early_stopping"
    assert stop.best_iteration_ == ref.best_iteration_
    np.testing.assert_allclose(stop.validation_scores_, ref.validation_scores_, atol=1e-12)

    rounds = []
    est = DaskMadaBoostClassifier(max_iter=10, client=client,
                                  callbacks=[lambda record: rounds.append(record.round) or record.round == 3])
    est.fit(Xd, yd)
    assert est.status_ == "callback" and est.n_iter_ == 3 and rounds == [1, 2, 3]


def test_ctrl_c_mid_round_keeps_the_last_committed_round(client, monkeypatch):
    """A KeyboardInterrupt in round 4, after the update and before the projection, keeps the model
    of round 3: that of a fit with max_iter=3."""
    from marginboost.core.interrupts import FitInterruptedWarning

    X, y = problem(m=900, seed=23)
    Xd, yd = as_dask(X, y, chunk=300)
    three = DaskMABoostClassifier(variant="smooth", max_iter=3, client=client).fit(Xd, yd)
    project = DistributedMirrorAscentLoop._project

    def project_then_interrupt(self, *args):
        if len(self.hypotheses) == 3:  # round 4
            raise KeyboardInterrupt
        return project(self, *args)

    monkeypatch.setattr(DistributedMirrorAscentLoop, "_project", project_then_interrupt)
    with pytest.warns(FitInterruptedWarning):
        est = DaskMABoostClassifier(variant="smooth", max_iter=10, client=client).fit(Xd, yd)
    assert est.status_ == "interrupted" and est.n_iter_ == 3
    np.testing.assert_allclose(est.weights_, three.weights_, atol=1e-12)
    assert est.margin_ == three.margin_


def test_a_worker_lost_mid_fit_is_recomputed_and_the_fit_goes_on():
    """A worker process killed after round 5: the scheduler recomputes the lost blocks of the
    distribution, the mirror image and the margins from X's graph and the committed rounds' tasks,
    and the fit ends on the model of an undisturbed fit (issue 31, item 5)."""
    X, y = problem(m=1500, seed=29)
    Xd, yd = as_dask(X, y)
    undisturbed, est = fits_with_a_worker_killed(  # the capped simplex's selection too
        lambda c, callbacks: DaskMABoostClassifier(variant="smooth", max_iter=9, client=c,
                                                   callbacks=callbacks).fit(Xd, yd), after_round=5)
    assert est.n_iter_ == undisturbed.n_iter_ == 9
    np.testing.assert_allclose(est.weights_, undisturbed.weights_, atol=1e-12)


def test_a_long_step_warns_as_in_memory(client):
    """learning_rate above 1: the warning's training error and minority share, summed on the workers."""
    X, y = problem(m=900, seed=25)
    Xd, yd = as_dask(X, y, chunk=300)
    w = np.random.default_rng(25).exponential(size=X.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DaskAdaBoostClassifier(learning_rate=1.9, max_iter=6, warm_start=True, client=client).fit(
            Xd, yd, sample_weight=da.from_array(w, chunks=300))
        ref = AdaBoostClassifier(learning_rate=1.9, weak_learner=HistogramTree(2), max_iter=6,
                                 warm_start=True).fit(X, y, sample_weight=w)
    got = est._training_error_and_minority(est._fit_result[0])
    want = ref._training_error_and_minority(ref._fit_result[0])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert 0 < got[0] < 1 and 0 < got[1] <= 0.5


def test_bad_input_is_named(client):
    X, y = problem(m=600, seed=27)
    Xd, yd = as_dask(X, y, chunk=200)
    for params, name in (({"variant": "sparse"}, "variant"), ({"variant": "combined"}, "variant"),
                         ({"regularizer": "l2"}, "regularizer"), ({"weak_learner": "tree"}, "weak_learner")):
        with pytest.raises(InvalidParameterError, match=name):
            DaskMABoostClassifier(**params, client=client).fit(Xd, yd)
    with pytest.raises(InvalidParameterError, match="learning_rate"):
        DaskAdaBoostClassifier(learning_rate=2.0, client=client).fit(Xd, yd)
    with pytest.raises(ValueError, match="at least two classes"):
        DaskMadaBoostClassifier(client=client).fit(Xd, da.from_array(np.ones(600), chunks=200))
    with pytest.raises(ValueError, match="categorical_features"):
        DaskAdaBoostClassifier(categorical_features=[0], client=client).fit(Xd, yd)
