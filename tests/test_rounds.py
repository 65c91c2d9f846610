"""The round driver (core/rounds.py) on a toy loop, and the estimators' verbose, callbacks,
early stopping and warm start on real boosters."""
import io
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from marginboost import LPBoostClassifier, MLPBoostClassifier
from marginboost.core import rounds as rounds_module
from marginboost.core.interrupts import on_interrupt
from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, WeightsPath, continue_rounds, run_rounds


class Counter(RoundLoop):
    """Round r adds r to a running sum; stops (converged) once the sum reaches ``target``.
    ``explode_at``: round that raises KeyboardInterrupt inside its step."""

    columns = ("total", "added")
    progress = ("total",)

    def __init__(self, target=10**9, explode_at=None, no_row_at=None):
        self.target, self.explode_at, self.no_row_at = target, explode_at, no_row_at
        self.steps = []

    def step(self, state, r):
        self.steps.append(r)
        if r == self.explode_at:
            raise KeyboardInterrupt
        if r == self.no_row_at:
            return RoundOutcome(None, stop=Status.DIVERGED)
        total = (state or 0) + r
        w = np.full(r, 1.0 / max(r, 1))
        return RoundOutcome({"total": total, "added": r}, total, Status.CONVERGED if total >= self.target else None,
                            path=(w, None))

    def ensemble(self, state):
        return None

    def result(self, state, status, rounds):
        return FitResult([], None, status, rounds.n_iter, rounds.history, rounds.weights_path,
                         final={"total": state})


def test_rounds_count_commit_and_history_layout():
    res = run_rounds(Counter(), max_iter=4)
    assert res.status == Status.MAX_ITER == "max_iter" and str(res.status) == "max_iter"
    assert list(res.history) == ["round", "total", "added", "time"]
    assert res.history["round"].tolist() == [1, 2, 3, 4] and res.total == 10 and res.n_iter == 4
    assert np.all(np.diff(res.history["time"]) >= 0)
    assert len(res.weights_path) == 4


def test_a_loop_stop_wins_and_a_round_without_a_row_keeps_the_last_commit():
    assert run_rounds(Counter(target=6), max_iter=10).status == Status.CONVERGED
    res = run_rounds(Counter(no_row_at=3), max_iter=10)
    assert (res.status, res.n_iter, res.total) == (Status.DIVERGED, 2, 3)


@pytest.mark.parametrize("at", [1, 3])
def test_interrupt_keeps_the_committed_rounds_or_propagates(at):
    if at == 1:  # nothing committed: there is no model
        with pytest.raises(KeyboardInterrupt):
            run_rounds(Counter(explode_at=1), max_iter=5)
        return
    res = run_rounds(Counter(explode_at=at), max_iter=5)
    assert (res.status, res.n_iter, res.total) == (Status.INTERRUPTED, 2, 3)
    assert len(res.weights_path) == 2
    with on_interrupt("raise"), pytest.raises(KeyboardInterrupt):
        run_rounds(Counter(explode_at=at), max_iter=5)


def test_interrupt_between_row_and_commit(monkeypatch):
    original, calls = rounds_module._append_row, [0]

    def append(rows, row):
        original(rows, row)
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
    monkeypatch.setattr(rounds_module, "_append_row", append)
    res = run_rounds(Counter(), max_iter=5)
    assert (res.n_iter, res.total, len(res.weights_path)) == (2, 3, 2)
    assert res.history["round"].tolist() == [1, 2]


def test_interrupt_between_commit_and_path_log_logs_the_committed_round(monkeypatch):
    original, calls = WeightsPath.append, [0]

    def append(self, w, step):
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        original(self, w, step)
    monkeypatch.setattr(WeightsPath, "append", append)
    res = run_rounds(Counter(), max_iter=5)
    monkeypatch.undo()
    assert res.n_iter == 3 and len(res.weights_path) == 3
    assert [w.shape[0] for w in res.weights_path] == [1, 2, 3]


def test_max_time_stops_after_a_committed_round():
    res = run_rounds(Counter(), max_iter=100, max_time=1e-12)
    assert (res.status, res.n_iter) == (Status.MAX_TIME, 1)


def test_uncommitted_rows_cannot_end_the_fit():
    class FromZero(Counter):
        start_row = True

        def step(self, state, r):
            out = super().step(state, r)
            out.commit = r > 0
            return out
    res = run_rounds(FromZero(), max_iter=3, max_time=1e-12)
    assert res.history["round"].tolist() == [0, 1] and res.status == Status.MAX_TIME


def test_callbacks_see_every_round_and_can_stop():
    seen = []

    def cb(record):
        seen.append((record.round, record.row["total"], record.state))
        return record.round == 3
    res = run_rounds(Counter(), max_iter=10, callbacks=[cb, lambda r: None])
    assert seen == [(1, 1, 1), (2, 3, 3), (3, 6, 6)]
    assert (res.status, res.n_iter) == (Status.CALLBACK, 3)
    res = run_rounds(Counter(), max_iter=10, callbacks=[lambda r: Status.EARLY_STOPPING])
    assert (res.status, res.n_iter) == (Status.EARLY_STOPPING, 1)


def test_only_true_stops_other_values_warn_once():
    """Issue 33: a logging callback that returns a count (``file.write``) stopped the fit after round 1."""
    log = io.StringIO()

    def write_log(record):
        return log.write(f"{record.round}\n")
    with pytest.warns(UserWarning, match=r"callback .*write_log returned 2 \(int\).*only True stops") as caught:
        res = run_rounds(Counter(), max_iter=5, callbacks=[write_log])
    assert (res.status, res.n_iter) == (Status.MAX_ITER, 5)
    assert len([w for w in caught if "write_log" in str(w.message)]) == 1  # once per run, not per round
    assert log.getvalue() == "1\n2\n3\n4\n5\n"
    # numpy's bool (a comparison of history values) stops as True does; False continues silently
    res = run_rounds(Counter(), max_iter=5, callbacks=[lambda r: np.float64(r.row["total"]) >= 3.0])
    assert (res.status, res.n_iter) == (Status.CALLBACK, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert run_rounds(Counter(), max_iter=3, callbacks=[lambda r: False]).status == Status.MAX_ITER


def test_a_callback_raising_stopiteration_is_its_error():
    def exhausted(record):
        return next(iter(()))
    with pytest.raises(RuntimeError, match="callback .*exhausted raised StopIteration at round 1.*return True"):
        run_rounds(Counter(), max_iter=5, callbacks=[exhausted])


def test_continue_rounds_numbers_on_and_extends():
    first = run_rounds(Counter(), max_iter=3)
    more = continue_rounds(first, max_iter=5)
    assert more.history["round"].tolist() == [1, 2, 3, 4, 5] and more.total == 15
    assert len(more.weights_path) == 5
    assert len(first.weights_path) == 3 and first.history["round"].tolist() == [1, 2, 3]  # left as it was
    assert run_rounds(Counter(), max_iter=5).total == more.total


def test_verbose_lines_and_terminal_bar(capsys):
    run_rounds(Counter(), max_iter=7, verbose=3, name="toy")
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("toy round 3  total 6") and "elapsed" in err[0]
    assert err[1].startswith("toy round 6") and err[2].startswith("toy round 7")
    assert err[3] == "toy stopped: max_iter after 7 rounds"

    class Tty(io.StringIO):
        def isatty(self):
            return True
    stream = Tty()
    progress = rounds_module._Progress(1, ("total",), 4, "toy", stream)
    progress.update(2, {"total": 3, "time": 0.5})
    assert stream.getvalue().startswith("\r[##########..........] toy round 2  total 3")
    run_rounds(Counter(), max_iter=3)
    assert capsys.readouterr().err == ""


def test_bad_max_iter():
    with pytest.raises(ValueError, match="max_iter"):
        run_rounds(Counter(), max_iter=-1)


# ----------------------------------------------------------------------------- estimators
@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:300, :8], y[:300]


def _fit(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, **kw)


def test_estimator_callback_stop_equals_max_iter(cancer):
    X, y = cancer
    rounds = []
    est = _fit(MLPBoostClassifier(eps=1e-4, callbacks=[lambda r: rounds.append(r.round) or r.round == 4]), X, y)
    ref = _fit(MLPBoostClassifier(eps=1e-4, max_iter=4), X, y)
    assert rounds == [1, 2, 3, 4] and est.status_ == "callback" and est.n_iter_ == 4
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))


def test_estimator_verbose_prints_progress(cancer, capsys):
    X, y = cancer
    _fit(LPBoostClassifier(max_iter=6, verbose=2, weak_learner="stump"), X, y)
    err = capsys.readouterr().err
    assert "LPBoostClassifier round 2  soft_margin" in err and "gap" in err and "stopped:" in err


def test_early_stopping_scores_the_held_out_set_every_round(cancer):
    X, y = cancer
    X_val, y_val = X[200:], y[200:]
    est = _fit(MLPBoostClassifier(eps=1e-4, max_iter=300, early_stopping=True, n_iter_no_change=5), X[:200], y[:200],
               eval_set=(X_val, y_val))
    # independently: the accuracy of the staged models on the held-out rows
    staged = [np.mean(est.classes_[(f > 0).astype(int)] == y_val) for f in est.staged_decision_function(X_val)]
    np.testing.assert_allclose(est.validation_scores_, staged)
    best = int(np.argmax(staged)) + 1
    assert est.best_iteration_ == best
    assert est.status_ == "early_stopping"
    assert est.n_iter_ == best + 5 and max(staged[best:]) <= staged[best - 1]


def test_early_stopping_with_a_validation_fraction(cancer):
    X, y = cancer
    est = _fit(LPBoostClassifier(eps=1e-6, max_iter=100, early_stopping=True, n_iter_no_change=2,
                                 validation_fraction=0.3, weak_learner="stump"), X, y)
    assert est.status_ == "early_stopping"
    assert len(est.validation_scores_) == est.n_iter_
    assert est.predict(X).shape == (300,)


def test_warm_start_continues_to_the_same_model(cancer):
    X, y = cancer
    est = _fit(MLPBoostClassifier(eps=1e-4, max_iter=5, warm_start=True, secondary="newton"), X, y)
    assert est.n_iter_ == 5
    est.set_params(max_iter=12)
    _fit(est, X, y)
    ref = _fit(MLPBoostClassifier(eps=1e-4, max_iter=12, secondary="newton"), X, y)
    assert est.n_iter_ == 12 and est.history_["round"].tolist() == list(range(1, 13))
    np.testing.assert_array_equal(est.weights_, ref.weights_)
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))
    for name in ref.history_:
        if "time" not in name:
            np.testing.assert_array_equal(est.history_[name], ref.history_[name], err_msg=name)
    assert len(list(est.staged_decision_function(X[:3]))) == 12
    with pytest.raises(ValueError, match="same data"):
        _fit(est, X[:-1], y[:-1])
    with pytest.raises(ValueError, match="max_iter=3 must be at least"):
        _fit(_fit(MLPBoostClassifier(max_iter=5, warm_start=True), X, y).set_params(max_iter=3), X, y)


def test_warm_start_with_more_than_two_classes_continues_every_class():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=150, n_features=5, n_informative=3, n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, random_state=1)
    est = _fit(MLPBoostClassifier(eps=1e-4, max_iter=3, warm_start=True), X, y)
    _fit(est.set_params(max_iter=8), X, y)
    ref = _fit(MLPBoostClassifier(eps=1e-4, max_iter=8), X, y)
    assert est.n_iter_.tolist() == ref.n_iter_.tolist()
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))


def test_warm_refit_of_a_finished_fit_changes_nothing(cancer):
    from marginboost import GraphSepBoostClassifier

    X, y = cancer
    for est in (MLPBoostClassifier(eps=0.05, warm_start=True), GraphSepBoostClassifier(warm_start=True)):
        _fit(est, X, y)
        status, n_iter, rows = est.status_, est.n_iter_, len(est.history_["round"])
        assert status in ("converged", "no_progress")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no spurious warning either
            est.fit(X, y)
        assert (est.status_, est.n_iter_, len(est.history_["round"])) == (status, n_iter, rows)


def test_early_stopping_survives_a_nan_score():
    from marginboost.core.rounds import RoundRecord
    from marginboost.estimators.base import EarlyStopping

    stopper = EarlyStopping(np.zeros((3, 1)), np.zeros(3), lambda y, f: float("nan"), patience=2)
    record = lambda r: RoundRecord(r, {}, None, lambda: ([], np.zeros(0), 0.0))  # noqa: E731
    assert [stopper(record(r)) for r in (1, 2, 3)] == [None, None, Status.EARLY_STOPPING]
    assert stopper.best_round == 1
    scores = iter([float("nan"), 0.5, 0.4])  # a real score after a NaN one is an improvement
    stopper = EarlyStopping(np.zeros((3, 1)), np.zeros(3), lambda y, f: next(scores), patience=5)
    for r in (1, 2, 3):
        stopper(record(r))
    assert (stopper.best_round, stopper.best_score) == (2, 0.5)
