"""Fits on a Dask cluster (marginboost.dask) against the in-memory fits, on a LocalCluster of two
worker processes started here.

The reference is the in-memory estimator on the same rows with the same histogram learner: a
fit whose per-example vectors stay on the workers must pick the same hypotheses with the same
weights (issue 31, item 4; here to 1e-12, the distributed sums being added per block); the
distributed selections (the capped-simplex KL projection of paper 000, Algorithm 1 line 5, and
the soft margin) against the in-memory quickselect on margins with ties, weights and every
regime of ``nu`` and ``eta``; and the client's memory, which must not grow with m (item 2).
"""
from __future__ import annotations

import functools
import gc
import os
import tracemalloc
import warnings

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from marginboost import CERLPBoostClassifier, LPBoostClassifier, MLPBoostClassifier  # noqa: E402
from marginboost.core.projections import kl_projection_and_value  # noqa: E402
import marginboost.dask.base as dask_base  # noqa: E402
from marginboost.dask.data import block_groups, training_data  # noqa: E402
from marginboost.dask.estimators import DaskCERLPBoostClassifier, DaskMLPBoostClassifier  # noqa: E402
from marginboost.dask.rows import LazyRowVector, RowLayout, RowVector  # noqa: E402
from marginboost.dask.selection import SearchHint, distributed_kl_projection, distributed_soft_margin  # noqa: E402
from marginboost.soft_margin.objectives import relative_entropy_to_uniform, soft_margin  # noqa: E402
from marginboost.weak_learners.histogram import HistogramTree  # noqa: E402
from dask_cluster import as_dask, client, fits_with_a_worker_killed, problem  # noqa: E402,F401 (client: the fixture)


def scattered(layout, x):
    return RowVector(layout, [layout.client.scatter(x[a:b], hash=False)
                              for a, b in zip(layout.bounds[:-1], layout.bounds[1:])])


# -- the distributed selections ------------------------------------------------------------------


@pytest.mark.parametrize("m, n_blocks", [(60, 3), (30000, 4), (100000, 4)])
def test_projection_and_soft_margin_agree_with_memory(client, m, n_blocks):
    """Blocks below and above the size at which a block sends all its margins (8192); ties (one value
    held by most margins, a few values in all); weights; pivots hinted by the last projection, of
    other margins (the soft margin searched with a projection starts from them too), windows around
    its thresholds and the first step's count of distinct values where its margins took few."""
    rng = np.random.default_rng(m)
    layout = RowLayout(client, np.linspace(0, m, n_blocks + 1).astype(int))
    heavy_tie = np.where(rng.random(m) < 0.9, 0.25, rng.standard_normal(m))  # most margins one value
    folded = 0  # projections whose line-search sums came from their search's pass (few values, unweighted)
    # (the last: many values where the hint expects few, from the one before)
    for q in (rng.standard_normal(m) * 0.5, np.round(rng.standard_normal(m), 1), heavy_tie,
              rng.integers(0, 5, m) * 0.1, rng.standard_normal(m)):
        s = rng.exponential(size=m)
        s *= m / s.sum()
        delta = rng.standard_normal(m)
        qd, sd, deltad = scattered(layout, q), scattered(layout, s), scattered(layout, delta)
        hint = SearchHint()  # the pivots of each projection steer the next one's first step
        for nu in (1.0, 0.1 * m, 0.7 * m):
            for eta in (1.0, 300.0):
                for w, wd in ((None, None), (s, sd)):
                    d0, v0, sums0 = kl_projection_and_value(q, nu, eta, w, delta)
                    if v0 != v0:  # the kernel's closed form needed a second scale: the direct sum
                        v0 = d0 @ q + relative_entropy_to_uniform(d0, w) / eta
                    with_soft = eta == 300.0
                    d1, v1, sums1, *rho = distributed_kl_projection(qd, nu, eta, wd, deltad, hint=hint,
                                                                    soft_margin=with_soft)
                    folded += isinstance(d1, LazyRowVector)  # (d with the sums of the fold: made where used)
                    if with_soft:
                        assert rho[0] == pytest.approx(soft_margin(q, nu, w), rel=1e-11, abs=1e-12)
                    else:
                        assert rho == []
                    np.testing.assert_allclose(d1.compute(), d0, rtol=1e-11, atol=1e-15 * d0.max())
                    assert v1 == pytest.approx(v0, rel=1e-11, abs=1e-11)
                    np.testing.assert_allclose(sums1, sums0, rtol=1e-9, atol=1e-13)
            assert distributed_soft_margin(qd, nu) == pytest.approx(soft_margin(q, nu), rel=1e-12, abs=1e-12)
            assert distributed_soft_margin(qd, nu, sd) == pytest.approx(soft_margin(q, nu, s), rel=1e-11, abs=1e-12)
    assert folded > 0 or m < 8192 * n_blocks  # (blocks of at most 8192 margins send them all: no hint)


def test_a_line_search_point_makes_its_margins_in_its_first_pass(client):
    """A point ``q0 + lam delta`` whose margins take few values: the search's first pass counts them
    from ``q0`` and ``delta`` (the margins are made only where asked for), with the result of the
    projection of the margins made (in memory) and the same bits of the margins when they are."""
    from marginboost.dask.objectives import _axpy

    rng = np.random.default_rng(21)
    m = 100000
    layout = RowLayout(client, np.linspace(0, m, 5).astype(int))
    q0, delta = rng.integers(0, 6, m) * 0.1, rng.integers(-2, 3, m) * 0.05
    q0d, deltad = scattered(layout, q0), scattered(layout, delta)
    nu, eta, lam = 0.1 * m, 30.0, 0.3
    hint = SearchHint()
    distributed_kl_projection(q0d, nu, eta, hint=hint)  # the last projection's pivots: few values
    q_lam = layout.lazy(_axpy, q0d, lam, deltad)
    d1, v1, sums1, rho1 = distributed_kl_projection(q_lam, nu, eta, None, deltad, hint=hint, soft_margin=True,
                                                    shift=(q0d, lam))
    assert q_lam.pending and d1.pending  # neither made yet
    q = q0 + lam * delta
    d0, v0, sums0 = kl_projection_and_value(q, nu, eta, None, delta)
    assert v1 == pytest.approx(v0, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(sums1, sums0, rtol=1e-11, atol=1e-14)
    assert rho1 == pytest.approx(soft_margin(q, nu), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(d1.compute(), d0, rtol=1e-12, atol=1e-16)
    np.testing.assert_array_equal(q_lam.compute(), q)


def test_the_new_column_pass_gives_the_edge_column_and_short_step_of_memory(client):
    """One pass over the new column: its edge, its column (identical columns merged) and the short
    step's sums, as the in-memory rule takes them; without that pass, the rule's own."""
    from marginboost.dask.margin_matrix import DistributedMarginMatrix
    from marginboost.dask.new_column import DistributedShortStep, edge_and_column
    from marginboost.soft_margin.fw_rules import FWContext, ShortStep
    from marginboost.soft_margin.objectives import SmoothedSoftMargin

    rng = np.random.default_rng(3)
    m = 1000
    layout = RowLayout(client, [0, 300, 650, m])
    u0, u = np.where(rng.random(m) < 0.6, 1.0, -1.0), np.where(rng.random(m) < 0.5, 1.0, -1.0)
    q, d = u0 * 0.8, rng.exponential(size=m)
    d /= d.sum()
    u0d, ud, qd, dd = (scattered(layout, x) for x in (u0, u, q, d))
    matrix = DistributedMarginMatrix(layout)
    rule = DistributedShortStep()
    assert edge_and_column(matrix, u0d, dd, None, rule)[1] == (0, True) and rule.known is None
    edge, column = edge_and_column(matrix, ud, dd, qd, rule)
    assert column == (1, True) and edge == pytest.approx(d @ u, rel=1e-13)
    assert edge_and_column(matrix, scattered(layout, u.copy()), dd, qd, rule)[1] == (1, False)  # merged
    objective = SmoothedSoftMargin(0.1 * m, 30.0)
    w = np.array([1.0, 0.0])
    want = ShortStep()(FWContext(np.column_stack([u0, u]), w, q, d, 1, 2, objective, u))
    for known in (True, False):  # the sums of the new column's pass, or the rule's own
        if known:
            edge_and_column(matrix, ud, dd, qd, rule)
        got = rule(FWContext(matrix, w, qd, dd, 1, 2, objective, ud))
        np.testing.assert_allclose(got.w, want.w, rtol=1e-13)
        np.testing.assert_allclose(got.q.compute(), want.q, rtol=1e-13)
        assert rule.known is None
    # the edges' pass also takes d's largest entry, which the Newton rule's Hessian asks for next
    np.testing.assert_allclose(matrix.edges(dd, [0, 1]), [d @ u0, d @ u], rtol=1e-13)
    assert dd._max == d.max()


def test_a_row_vector_is_never_gathered_by_accident(client):
    layout = RowLayout(client, [0, 5, 10])
    v = scattered(layout, np.arange(10.0))
    with pytest.raises(TypeError, match="gather"):
        np.asarray(v)
    assert float(v @ (2.0 * v)) == 2 * float(np.arange(10.0) @ np.arange(10.0))
    np.testing.assert_array_equal((1.0 - v).compute(), 1.0 - np.arange(10.0))


def test_block_groups_join_consecutive_partitions_of_about_equal_rows():
    assert block_groups([100] * 8, 2) == [range(0, 4), range(4, 8)]
    assert block_groups([100] * 8, 3) == [range(0, 3), range(3, 5), range(5, 8)]
    assert block_groups([700, 100, 100, 100], 2) == [range(0, 1), range(1, 4)]  # rows, not partitions
    assert block_groups([100, 100], 5) == [range(0, 1), range(1, 2)]  # at most one block a partition
    assert block_groups([100] * 3, 1) == [range(0, 3)]
    with pytest.raises(ValueError, match="n_blocks must be >= 1"):
        block_groups([100], 0)


def test_the_fit_joins_partitions_into_a_block_a_worker_thread(client):
    """Six partitions on two worker threads: two blocks of consecutive rows, each block's codes,
    labels and weights on one worker, in X's row order."""
    X, y = problem(m=1200, seed=3)
    w = np.linspace(0.5, 1.5, 1200)
    sizes = (100, 300, 200, 200, 250, 150)
    Xd, yd = da.from_array(X, chunks=(sizes, 6)), da.from_array(y, chunks=(sizes,))
    data = training_data(Xd, yd, da.from_array(w, chunks=yd.chunks), client=client)
    assert data.layout.bounds.tolist() == [0, 600, 1200]
    np.testing.assert_array_equal(data.y.compute(), np.where(y == "yes", 1.0, -1.0))
    np.testing.assert_allclose(data.weights.compute(), w / w.mean(), rtol=1e-15)
    for k in range(2):
        holders = client.who_has([data.sample.codes[k], data.y.parts[k], data.weights.parts[k]])
        assert len({tuple(h) for h in holders.values()}) == 1, holders
    kept = training_data(Xd, yd, client=client, n_blocks=6)
    assert kept.layout.bounds.tolist() == [0, 100, 400, 600, 800, 1050, 1200]
    joined = np.concatenate(client.gather(list(data.sample.codes)), axis=1)
    np.testing.assert_array_equal(joined, np.concatenate(client.gather(list(kept.sample.codes)), axis=1))


# -- fits against the in-memory fits -------------------------------------------------------------


@pytest.mark.parametrize("step", ["short_step", "classic", "line_search", "pairwise"])
def test_dask_fit_is_the_in_memory_fit(client, step):
    X, y = problem()
    Xd, yd = as_dask(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter stops both before eps
        est = DaskMLPBoostClassifier(nu=0.1, eps=0.05, step=step, secondary="none", max_iter=8,
                                     client=client).fit(Xd, yd)
        ref = MLPBoostClassifier(nu=0.1, eps=0.05, step=step, secondary="none", weak_learner=HistogramTree(2),
                                 max_iter=8).fit(X, y)
    assert est.n_iter_ == ref.n_iter_ == 8
    assert len(est.hypotheses_) == len(ref.hypotheses_)
    for h, g in zip(est.hypotheses_, ref.hypotheses_):
        for name in ("feature", "threshold", "left", "right", "value", "missing_left"):
            np.testing.assert_array_equal(getattr(h, name), getattr(g, name), err_msg=name)
    np.testing.assert_allclose(est.weights_, ref.weights_, rtol=0, atol=1e-12)
    for column in ("soft_margin", "objective", "edge", "gap"):
        np.testing.assert_allclose(est.history_[column], ref.history_[column], rtol=1e-11, atol=1e-12)
    assert est.margin_ == pytest.approx(ref.margin_, abs=1e-12)
    proba = est.predict_proba(Xd)
    assert isinstance(proba, da.Array)  # lazy, computed on the workers
    np.testing.assert_allclose(proba.compute(), ref.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xd).compute(), ref.predict(X))


@pytest.mark.parametrize("n_blocks", [None, 4])
@pytest.mark.parametrize("secondary", ["newton", "entropy"])
def test_secondary_rules_on_a_cluster_are_the_in_memory_rules(client, secondary, n_blocks, monkeypatch):
    """The Newton rule (one sub-sampled Newton step: the free examples' systematic sample drawn with
    the running sum of d continued across blocks, as in memory) and ERLPBoost's entropic master;
    with X's four partitions joined into a block a worker (the default) and kept as four blocks."""
    X, y = problem(m=1500, seed=11)
    Xd, yd = as_dask(X, y)
    if n_blocks is not None:
        monkeypatch.setattr(dask_base, "training_data", functools.partial(training_data, n_blocks=n_blocks))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DaskMLPBoostClassifier(nu=0.1, eps=0.05, secondary=secondary, max_iter=8, client=client).fit(Xd, yd)
        ref = MLPBoostClassifier(nu=0.1, eps=0.05, secondary=secondary, weak_learner=HistogramTree(2),
                                 max_iter=8).fit(X, y)
    assert est.n_iter_ == ref.n_iter_
    np.testing.assert_array_equal(est.history_["update"], ref.history_["update"])
    np.testing.assert_allclose(est.weights_, ref.weights_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(est.history_["objective"], ref.history_["objective"], rtol=0, atol=1e-11)


def test_sample_weights_and_dataframes(client):
    """Weights (zeros left out, as in memory) and a dask dataframe with its column names."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = problem(m=1200, seed=3)
    w = np.random.default_rng(3).integers(0, 4, X.shape[0]).astype(float)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    Xd = dd.from_pandas(frame, npartitions=3)
    yd = dd.from_pandas(pd.Series(y), npartitions=3)
    wd = dd.from_pandas(pd.Series(w), npartitions=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DaskCERLPBoostClassifier(nu=0.2, eps=0.05, max_iter=6, client=client).fit(Xd, yd, sample_weight=wd)
        ref = CERLPBoostClassifier(nu=0.2, eps=0.05, weak_learner=HistogramTree(2), max_iter=6).fit(
            X, y, sample_weight=w)
    np.testing.assert_array_equal(est.feature_names_in_, frame.columns)
    np.testing.assert_allclose(est.weights_, ref.weights_, atol=1e-12)
    assert est.nu_ == ref.nu_
    np.testing.assert_allclose(est.history_["soft_margin"], ref.history_["soft_margin"], atol=1e-12)


def test_run_controls(client, capsys):
    """Warm start (the same collections: no second binning), early stopping on a dask eval_set
    (the in-memory fit's scores), callbacks, verbose and max_time, as in memory."""
    X, y = problem(m=1200, seed=13)
    Xd, yd = as_dask(X, y)
    Xv, yv = problem(m=500, seed=14)
    Xvd, yvd = as_dask(Xv, yv, chunk=250)
    params = dict(nu=0.1, eps=0.05, secondary="none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warm = DaskMLPBoostClassifier(**params, max_iter=3, warm_start=True, client=client).fit(Xd, yd)
        warm.set_params(max_iter=6).fit(Xd, yd)
        cold = DaskMLPBoostClassifier(**params, max_iter=6, client=client).fit(Xd, yd)
        assert warm.n_iter_ == cold.n_iter_ == 6
        np.testing.assert_allclose(warm.weights_, cold.weights_, atol=1e-12)

        stop = DaskMLPBoostClassifier(**params, max_iter=12, early_stopping=True, n_iter_no_change=2,
                                      client=client).fit(Xd, yd, eval_set=(Xvd, yvd))
        ref = MLPBoostClassifier(**params, weak_learner=HistogramTree(2), max_iter=12, early_stopping=True,
                                 n_iter_no_change=2).fit(X, y, eval_set=(Xv, yv))
    assert stop.n_iter_ == ref.n_iter_ and stop.status_ == ref.status_
    assert stop.best_iteration_ == ref.best_iteration_
    np.testing.assert_allclose(stop.validation_scores_, ref.validation_scores_, atol=1e-12)

    rounds = []
    est = DaskMLPBoostClassifier(**params, max_iter=10, verbose=1, client=client,
                                 callbacks=[lambda record: rounds.append(record.round) or record.round == 3])
    est.fit(Xd, yd)
    assert est.status_ == "callback" and est.n_iter_ == 3 and rounds == [1, 2, 3]
    assert "DaskMLPBoostClassifier round 2" in capsys.readouterr().err
    with pytest.warns(UserWarning):
        timed = DaskMLPBoostClassifier(**params, max_iter=1000, max_time=1e-6, client=client).fit(Xd, yd)
    assert timed.status_ == "max_time" and timed.n_iter_ == 1
    with pytest.raises(ValueError, match="eval_set"):
        DaskMLPBoostClassifier(early_stopping=True, client=client).fit(Xd, yd)


def test_a_worker_lost_mid_fit_is_recomputed_and_the_fit_goes_on():
    """A worker process killed after round 3: the scheduler recomputes the lost partitions from X's
    graph and the committed model's tasks, and the fit ends on the model of an undisturbed fit
    (issue 31, item 5)."""
    X, y = problem(m=1500, seed=17)
    Xd, yd = as_dask(X, y)
    undisturbed, est = fits_with_a_worker_killed(
        lambda c, callbacks: DaskMLPBoostClassifier(nu=0.1, eps=0.05, max_iter=7, client=c,
                                                    callbacks=callbacks).fit(Xd, yd), after_round=3)
    assert est.n_iter_ == undisturbed.n_iter_
    np.testing.assert_allclose(est.weights_, undisturbed.weights_, atol=1e-12)


def test_ctrl_c_mid_round_keeps_the_last_committed_round(client, monkeypatch):
    """A KeyboardInterrupt in round 4, after its weak learner and before its update (in the margin
    matrix's digest pass), keeps the model of round 3: that of a fit with max_iter=3."""
    from marginboost.core.interrupts import FitInterruptedWarning
    from marginboost.dask.margin_matrix import DistributedMarginMatrix

    X, y = problem(m=900, seed=19)
    Xd, yd = as_dask(X, y, chunk=300)
    params = dict(nu=0.1, eps=0.05, secondary="newton", client=client)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        three = DaskMLPBoostClassifier(**params, max_iter=3).fit(Xd, yd)
    add = DistributedMarginMatrix.add

    def add_then_interrupt(self, u, answers=None):
        if self.n == 3:  # round 4 adds the fourth column
            raise KeyboardInterrupt
        return add(self, u, answers)

    monkeypatch.setattr(DistributedMarginMatrix, "add", add_then_interrupt)
    with pytest.warns(FitInterruptedWarning):
        est = DaskMLPBoostClassifier(**params, max_iter=10).fit(Xd, yd)
    assert est.status_ == "interrupted" and est.n_iter_ == 3
    np.testing.assert_allclose(est.weights_, three.weights_, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xd).compute(), three.predict(Xd).compute())


def test_to_local_and_model_files(client, tmp_path):
    X, y = problem(m=800, seed=5)
    Xd, yd = as_dask(X, y, chunk=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DaskMLPBoostClassifier(nu=0.2, max_iter=4, client=client).fit(Xd, yd)
    local = est.to_local()
    assert type(local) is MLPBoostClassifier
    np.testing.assert_array_equal(local.predict(X), est.predict(Xd).compute())
    est.save(tmp_path / "model.json")
    loaded = MLPBoostClassifier.load(tmp_path / "model.json")
    np.testing.assert_array_equal(loaded.decision_function(X), local.decision_function(X))


def test_more_than_two_classes_one_vs_rest(client, tmp_path):
    """Three classes: one binary fit per class on the same binned rows, as in memory (the same
    models, decision columns and probabilities), to_local and the model file of the in-memory
    one-vs-rest estimator, and a warm start continuing each class's fit."""
    X, _ = problem(m=1200, seed=31)
    y = np.array(["a", "b", "c"])[(np.nan_to_num(X[:, 0]) > 0.3).astype(int) + (np.nan_to_num(X[:, 1]) > 0)]
    Xd, yd = as_dask(X, y)
    params = dict(nu=0.1, eps=0.05, secondary="newton")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DaskMLPBoostClassifier(**params, max_iter=6, client=client).fit(Xd, yd)
        ref = MLPBoostClassifier(**params, weak_learner=HistogramTree(2), max_iter=6).fit(X, y)
        warm = DaskMLPBoostClassifier(**params, max_iter=3, warm_start=True, client=client).fit(Xd, yd)
        warm.set_params(max_iter=6).fit(Xd, yd)
    np.testing.assert_array_equal(est.classes_, ref.classes_)
    np.testing.assert_array_equal(est.n_iter_, ref.n_iter_)
    assert len(est.estimators_) == 3
    for model, expected, continued in zip(est.estimators_, ref.estimators_, warm.estimators_):
        np.testing.assert_array_equal(model.classes_, [0, 1])
        np.testing.assert_allclose(model.weights_, expected.weights_, atol=1e-12)
        np.testing.assert_allclose(continued.weights_, model.weights_, atol=1e-12)
    decision = est.decision_function(Xd)
    assert decision.shape == (1200, 3)
    np.testing.assert_allclose(decision.compute(), ref.decision_function(X), atol=1e-12)
    np.testing.assert_allclose(est.predict_proba(Xd).compute(), ref.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xd).compute(), ref.predict(X))
    est.save(tmp_path / "model.json")
    loaded = MLPBoostClassifier.load(tmp_path / "model.json")
    np.testing.assert_array_equal(loaded.predict(X), ref.predict(X))
    assert all(type(m) is MLPBoostClassifier for m in est.to_local().estimators_)


# -- bad input -----------------------------------------------------------------------------------


def test_bad_input_is_named(client):
    X, y = problem(m=600, seed=7)
    Xd, yd = as_dask(X, y, chunk=200)
    est = DaskMLPBoostClassifier(max_iter=2, client=client)
    with pytest.raises(TypeError, match="dask array or dask dataframe"):
        est.fit(X, yd)
    with pytest.raises(ValueError, match="partitioned alike"):
        est.fit(Xd, da.from_array(y, chunks=250))
    with pytest.raises(ValueError, match="600 rows but y has 599"):
        est.fit(Xd, da.from_array(y[:-1], chunks=200))
    with pytest.raises(ValueError, match="at least two classes"):
        est.fit(Xd, da.from_array(np.zeros(600), chunks=200))
    with pytest.raises(ValueError, match=r"every class needs an example of positive sample_weight.*\[2\]"):
        est.fit(Xd, da.from_array(np.arange(600) % 3, chunks=200),
                sample_weight=da.from_array((np.arange(600) % 3 != 2).astype(float), chunks=200))
    with pytest.raises(ValueError, match="y contains NaN"):
        est.fit(Xd, da.from_array(np.where(np.arange(600) == 5, np.nan, np.arange(600) % 2), chunks=200))
    X_inf = X.copy()
    X_inf[3, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        est.fit(da.from_array(X_inf, chunks=(200, 6)), yd)
    with pytest.raises(ValueError, match="sample_weight must be finite and >= 0"):
        est.fit(Xd, yd, sample_weight=da.from_array(-np.ones(600), chunks=200))
    with pytest.raises(ValueError, match="categorical_features"):
        DaskMLPBoostClassifier(categorical_features=[0], client=client).fit(Xd, yd)
    with pytest.raises(ValueError, match="secondary"):  # an LP over all m rows: not on a cluster
        DaskMLPBoostClassifier(secondary="lp", client=client).fit(Xd, yd)


def test_a_closed_client_is_an_error_not_a_hang():
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0")
    closed = distributed.Client(cluster)
    closed.close()
    cluster.close()
    X, y = problem(m=100)
    with pytest.raises(RuntimeError, match="closed"):
        DaskMLPBoostClassifier(client=closed).fit(*as_dask(X, y))


# -- the client's memory (issue 31, item 2) ------------------------------------------------------


def _fit_on_generated(client, m, p=20):
    rng = da.random.default_rng(0)
    X = rng.standard_normal((m, p), chunks=(m // 4, p))  # generated on the workers, never here
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        DaskMLPBoostClassifier(nu=0.1, max_iter=5, client=client).fit(X, y)


def _rss() -> int:
    psutil = pytest.importorskip("psutil")
    return psutil.Process(os.getpid()).memory_info().rss


def test_client_memory_does_not_grow_with_m():
    """Peak traced allocations and RSS growth of a fit at m and at 4m, after a warm-up fit: below
    10 MB and about the same (an m-vector of float64 at 4m = 800,000 is 6.4 MB). The scheduler runs
    in a process of its own, as on a cluster (a LocalCluster runs it in the client's process, where
    its bookkeeping, per task and not per row, would count as the client's)."""
    from distributed.deploy.subprocess import SubprocessCluster

    cluster = SubprocessCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0",
                                worker_kwargs={"memory_limit": "2GiB"})
    with distributed.Client(cluster) as client:
        _fit_on_generated(client, 200_000)  # imports, first allocations, caches: every path taken once
        peaks, growth = [], []
        for m in (200_000, 800_000):
            gc.collect()
            rss = _rss()
            _fit_on_generated(client, m)  # untraced: tracemalloc's own tables would count in the RSS
            gc.collect()
            growth.append(_rss() - rss)
            tracemalloc.start()
            _fit_on_generated(client, m)
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
    cluster.close()
    print(f"client peak bytes at m and 4m {peaks}, RSS growth {growth}")  # shown with pytest -s
    assert max(peaks) < 10e6, peaks
    assert peaks[1] - peaks[0] < 2e6, peaks  # no growth with m
    assert max(growth) < 10e6, growth


def test_in_memory_boosters_refuse_dask_input(client):
    X, y = problem(m=200)
    Xd, yd = as_dask(X, y)
    with pytest.raises(TypeError, match="DaskMLPBoostClassifier"):
        LPBoostClassifier().fit(Xd, yd)


def test_the_documented_cluster_example_runs(tmp_path):
    """docs/cluster_example.py, as the page 'Fitting on a cluster' shows it (its own LocalCluster)."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "docs" / "cluster_example.py"
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "training accuracy" in out.stdout
    assert (tmp_path / "cluster_model.json").exists()
    assert MLPBoostClassifier.load(tmp_path / "cluster_model.json").n_features_in_ == 20
