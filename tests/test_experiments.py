"""The experiments package (paper 000, section 5 / appendix B): tables, figures, peers, provenance.

Everything runs on a stratified 120-row subsample of heart, so the module takes seconds.
"""
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from reference import all_stump_margins, exact_soft_margin_lp

from marginboost import LPBoostClassifier, MLPBoostClassifier
from marginboost.io.datasets import load_dataset
from marginboost.experiments import paper, run_benchmark
from marginboost.experiments.benchmark import MIN_FIT_SECONDS, fit_time_limit
from marginboost.experiments.peers import NaiveLPBoost, naive_soft_margin
from marginboost.experiments.canon import CANON, run_canon
from marginboost.experiments.runner import choose_nu, make_split, run_booster, sampled_rounds, staged_errors
from marginboost.experiments.tables import peer_gap_rows, ratio_verdict, table2_rows
from marginboost.weak_learners import DecisionStump

TIME_KEYS = {"seconds", "loop_seconds", "weak_learner_seconds", "solver_seconds", "time", "date",
             "load_average", "files"}
SMALL = {"datasets": ["heart"], "boosters": ["lpboost", "mlpboost_ss"], "peers": ["naive_lpboost", "adaboost"],
         "canon": ["softboost", "totalboost"], "nus": (0.2, 0.4), "folds": 2, "subsample": 120, "max_time": 5.0,
         "seed": 3}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    lines = []
    results = run_benchmark(**SMALL, out_dir=out, quick=True, progress=lines.append)
    return results, out, lines


def test_quick_run_writes_tables_figures_and_provenance(quick_run):
    results, out, lines = quick_run
    assert results["state"] == "complete"
    # one progress line per fit: 2 boosters x 2 nus + naive x 2 nus + adaboost + SoftBoost x 2 nus
    # + TotalBoost + 2 CV boosters x 2 nus
    assert sum(line.startswith("[") for line in lines) == 4 + 2 + 1 + 2 + 1 + 4
    for name in ("table2", "table3", "peers", "canon"):
        for ext in ("md", "csv", "json"):
            assert (out / f"{name}.{ext}").is_file()
    for png in ("fig1_heart.png", "fig2_soft_margin_vs_time.png", "fig3_test_error_vs_time.png",
                "fig4_secondary_updates.png", "fig5_fw_vs_mlpboost.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    sha = load_dataset("heart").sha256()
    t2 = pd.read_csv(out / "table2.csv", comment="#")
    assert {"dataset", "booster", "mean_seconds", "mean_rounds", "timeouts", "status", "paper_seconds",
            "dataset_sha256"} <= set(t2.columns)
    assert set(t2["booster"]) == {"lpboost", "mlpboost_ss", "naive_lpboost"}
    assert (t2["dataset_sha256"] == sha).all()
    lp = t2[t2["booster"] == "lpboost"].iloc[0]
    assert float(lp["paper_seconds"]) == 10.03 and lp["runs"] == 2
    t3 = pd.read_csv(out / "table3.csv", comment="#")
    assert {"chosen_nu", "cv_mean_error", "test_error", "paper_test_error"} <= set(t3.columns)
    row = t3[t3["booster"] == "mlpboost_ss"].iloc[0]
    assert row["chosen_nu"] in (0.2, 0.4) and row["paper_test_error"] == 0.17 and row["cv_fits"] == 4
    assert set(t3[t3["kind"] == "peer"]["booster"]) == {"naive_lpboost", "adaboost"}

    first = (out / "table2.csv").read_text().splitlines()[0]
    assert first.startswith("# metadata: ")
    meta = json.loads(first[len("# metadata: "):])
    for doc in (meta, json.loads((out / "table3.json").read_text())):
        md = doc["metadata"]
        assert md["marginboost_version"] and md["versions"]["numpy"] and md["versions"]["scikit-learn"]
        assert md["machine"]["cpu_count"] >= 1 and md["machine"]["platform"] and md["machine"]["python"]
        assert md["parameters"]["seed"] == 3 and md["parameters"]["nus"] == [0.2, 0.4]
        assert doc["datasets"]["heart"]["sha256"] == sha
    from PIL import Image  # a matplotlib dependency

    png_meta = json.loads(Image.open(out / "fig2_soft_margin_vs_time.png").text["Comment"])
    assert png_meta["datasets"]["heart"]["sha256"] == sha and png_meta["metadata"]["parameters"]["seed"] == 3
    md_text = (out / "table2.md").read_text()
    assert sha in md_text and "paper" in md_text and "| heart |" in md_text and "Python" in md_text
    assert "0.17" in (out / "table3.md").read_text()  # the paper's MLPB. (SS) error on heart


def test_canon_runs_beside_the_papers_boosters(quick_run):
    results, out, _ = quick_run
    canon = pd.read_csv(out / "canon.csv", comment="#")
    assert sorted(zip(canon["booster"], canon["nu"].fillna(-1))) == [("softboost", 0.2), ("softboost", 0.4),
                                                                      ("totalboost", -1)]
    soft = canon[canon["booster"] == "softboost"]
    assert (soft["margin_kind"] == "soft").all() and soft["lpboost_soft_margin"].notna().all()
    assert canon[canon["booster"] == "totalboost"]["margin_kind"].tolist() == ["hard"]
    assert canon["test_error"].between(0, 1).all() and (canon["rounds"] >= 1).all()
    assert "| heart | SoftBoost | 0.2m |" in (out / "canon.md").read_text()
    # canon runs never enter Table 2 (the paper's boosters and the naive LPBoost)
    assert not set(pd.read_csv(out / "table2.csv", comment="#")["booster"]) & {"softboost", "totalboost"}


@pytest.mark.parametrize("key", sorted(CANON))
def test_every_canon_booster_gives_a_record(key):
    split = make_split(load_dataset("heart"), seed=0, subsample=143)  # 100 training rows
    nu = 0.3 if CANON[key].uses_nu else None
    rec = run_canon(key, split, nu, 0.05, 5.0, 200, 0)
    assert rec["kind"] == "canon" and rec["label"] == CANON[key].label and rec["rounds"] >= 1
    assert rec["status"] in {"converged", "TIMEOUT", "MAX_ITER", "no_progress"}
    assert 0.0 <= rec["test_error"] <= 1.0 and rec["seconds"] > 0
    assert (rec["margin"] is None) == (CANON[key].margin_kind is None)
    if rec["margin"] is not None:
        assert -1.0 <= rec["margin"] <= 1.0


def test_table3_compares_each_booster_with_the_best_peer(quick_run):
    results, out, _ = quick_run
    t3 = pd.read_csv(out / "table3.csv", comment="#")
    best = t3[t3["kind"] == "peer"]["test_error"].min()
    gaps = peer_gap_rows(results)
    assert {g["booster"] for g in gaps} == set(t3[t3["kind"] == "booster"]["booster"])
    text = (out / "table3.md").read_text()
    for g in gaps:
        mine = t3[t3["booster"] == g["booster"]]["test_error"].iloc[0]
        assert g["gap"] == pytest.approx(mine - best) and g["within"] == (mine - best <= 0.02 + 1e-12)
        n = g["m_test"]
        assert g["se"] == pytest.approx(math.sqrt((mine * (1 - mine) + best * (1 - best)) / n))
        assert f"| heart | {g['label']} | {mine:.3f} |" in text
    missed = sum(not g["within"] for g in gaps)
    assert (f"{missed} of {len(gaps)} errors miss the target" in text) == (missed > 0)


@pytest.mark.parametrize("ratio, ml_cut, lp_cut, verdict", [
    (1.5, False, False, "within 2x"), (2.5, False, False, "over 2x"),
    (1.5, False, True, "within 2x"),  # LPBoost's true time is larger still
    (2.5, False, True, "undecided"),
    (2.5, True, False, "over 2x"),  # MLPBoost's true time is larger still
    (1.5, True, False, "undecided"), (1.5, True, True, "undecided"), (2.5, True, True, "undecided"),
])
def test_ratio_verdict_reads_timeouts_as_lower_bounds(ratio, ml_cut, lp_cut, verdict):
    assert ratio_verdict(ratio, ml_cut, lp_cut) == verdict


def test_same_seed_same_numbers(quick_run, tmp_path):
    results, _, _ = quick_run
    again = run_benchmark(**SMALL, out_dir=tmp_path, quick=True, progress=None, figures=False)

    def strip(obj):
        if isinstance(obj, dict):
            return {k: strip(v) for k, v in obj.items() if k not in TIME_KEYS}
        if isinstance(obj, list):
            return [strip(v) for v in obj]
        return obj

    for key in ("datasets", "runs", "cv", "cv_choice"):
        assert strip(again[key]) == strip(results[key]), key


def test_timeout_is_marked(tmp_path):
    results = run_benchmark(canon=[], datasets=["heart"], boosters=["cerlpboost"], peers=[], nus=(0.1,), eps=1e-3,
                            max_time=0.02, folds=0, subsample=120, out_dir=tmp_path, progress=None,
                            figures=False)
    (run,) = results["runs"]
    assert run["status"] == "TIMEOUT"
    (row,) = table2_rows(results)
    assert row["status"] == "TIMEOUT 1/1" and row["lower_bound"]
    # the paper aborted heart's C-ERLPBoost too ('>1e3'): not a miss of ours, and marked so
    assert "TIMEOUT 1/1 _(aborted, as the paper)_" in (tmp_path / "table2.md").read_text()
    assert ">= " in (tmp_path / "table2.md").read_text()
    assert pd.read_csv(tmp_path / "runs.csv", comment="#")["status"].tolist() == ["TIMEOUT"]


def test_fit_time_limit_shares_the_budget():
    assert fit_time_limit(600.0, 1000.0, 100) == 10.0  # the share
    assert fit_time_limit(5.0, 1000.0, 100) == 5.0  # max_time caps it
    assert fit_time_limit(600.0, -50.0, 100) == MIN_FIT_SECONDS  # spent: the floor
    assert fit_time_limit(0.5, -50.0, 100) == 0.5  # a max_time below the floor wins
    assert fit_time_limit(600.0, math.inf, 100) == 600.0


def test_budget_sets_each_data_sets_fit_limit(tmp_path):
    # 2 boosters x 1 nu = 2 timed fits per set, 4 in all: a 12 s budget gives the first set at
    # most 3 s per fit (C-ERLPBoost at eps = 1e-4 uses all of it), and the run keeps to the budget.
    started = time.perf_counter()
    results = run_benchmark(canon=[], datasets=["heart", "breast_cancer"], boosters=["lpboost", "cerlpboost"], peers=[],
                            nus=(0.1,), eps=1e-4, folds=0, subsample=120, max_time=100.0, budget=12.0,
                            out_dir=tmp_path, progress=None, figures=False)
    elapsed = time.perf_counter() - started
    limits = {name: info["max_time"] for name, info in results["datasets"].items()}
    assert MIN_FIT_SECONDS <= limits["heart"] <= 12.0 / 4
    assert MIN_FIT_SECONDS <= limits["breast_cancer"] <= 12.0 / 2
    for run in results["runs"]:
        assert run["max_time"] == limits[run["dataset"]]
    assert elapsed < 12.0 + 4.0  # the budget, plus what a fit may overrun its limit by
    assert results["metadata"]["parameters"]["budget"] == 12.0
    with pytest.raises(ValueError, match="budget must be > 0"):
        run_benchmark(canon=[], datasets=["heart"], boosters=["lpboost"], budget=0.0, out_dir=tmp_path, progress=None)


def test_ctrl_c_keeps_finished_runs(tmp_path):
    def progress(line):
        if line.startswith("[2/"):
            raise KeyboardInterrupt

    results = run_benchmark(canon=[], datasets=["heart"], boosters=["lpboost"], peers=["adaboost"], nus=(0.3, 0.5),
                            folds=0, subsample=120, max_time=5.0, out_dir=tmp_path, progress=progress,
                            figures=False)
    assert results["state"] == "interrupted" and len(results["runs"]) == 2
    assert "interrupted" in (tmp_path / "table2.md").read_text()
    assert len(pd.read_csv(tmp_path / "runs.csv", comment="#")) == 2


@pytest.fixture(scope="module")
def heart100():
    data = load_dataset("heart")
    split = make_split(data, seed=0, subsample=143)  # 100 training rows
    return split.X_train, split.y_train


@pytest.mark.parametrize("nu_frac", [0.1, 0.3])
def test_naive_linprog_lpboost_matches_lpboost_and_exact_lp(heart100, nu_frac):
    """Independent check: re-solving from scratch (scipy linprog) reaches LPBoostClassifier's soft
    margin, and with exact stumps both reach the optimum over all stumps (one big LP)."""
    X, y = heart100
    nu = nu_frac * y.shape[0]
    optimum = exact_soft_margin_lp(all_stump_margins(X, y), nu)[0]
    naive = NaiveLPBoost(nu, eps=1e-4, weak_learner=DecisionStump()).fit(X, y)
    ours = LPBoostClassifier(nu=nu, eps=1e-4, weak_learner="stump", max_iter=5000).fit(X, y)
    assert naive.status_ == "converged"
    assert naive.margin_ == pytest.approx(ours.margin_, abs=1e-6)
    assert naive.margin_ == pytest.approx(optimum, abs=1e-6)
    assert np.all(np.isin(naive.predict(X), [-1.0, 1.0]))


def test_naive_soft_margin_is_mean_of_nu_smallest():
    q = np.array([0.5, -1.0, 0.25, 2.0])
    assert naive_soft_margin(q, 2) == pytest.approx((-1.0 + 0.25) / 2)
    assert naive_soft_margin(q, 2.5) == pytest.approx((-1.0 + 0.25 + 0.5 * 0.5) / 2.5)
    assert naive_soft_margin(q, 4) == pytest.approx(q.mean())


def test_sampled_test_errors_match_staged_decision_function(heart100):
    X, y = heart100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = MLPBoostClassifier(nu=0.2, max_iter=300).fit(X[:70], y[:70])
    rows = sampled_rounds(len(est.history_["round"]), n_points=20)
    staged = [float(np.mean(np.where(s > 0, 1.0, -1.0) != y[70:]))
              for s in est.staged_decision_function(X[70:])]
    assert staged_errors(est, X[70:], y[70:], rows).tolist() == [staged[r] for r in rows]
    assert rows[0] == 0 and rows[-1] == len(est.history_["round"]) - 1


def test_run_record_and_curve(heart100):
    from marginboost.io.datasets import Dataset

    X, y = heart100
    split = make_split(Dataset("tiny", X, y, "test"), seed=1)
    rec = run_booster("mlpboost_ss", split, 0.2, 0.01, 5.0, curve=True)
    curve = rec["curve"]
    assert rec["status"] == "converged" and curve["round"][0] == 1 and curve["round"][-1] == rec["rounds"]
    assert curve["n_secondary"][-1] == rec["n_secondary_updates"]
    assert np.all(np.diff(curve["n_secondary"]) >= 0) and np.all(np.diff(curve["time"]) >= 0)
    assert curve["test_error"][-1] == pytest.approx(rec["test_error"])
    assert curve["soft_margin"][-1] == pytest.approx(rec["soft_margin"])


def test_choose_nu_smallest_mean_error_ties_to_smaller_nu():
    recs = [{"nu": 0.1, "error": 0.2}, {"nu": 0.1, "error": 0.4}, {"nu": 0.3, "error": 0.3},
            {"nu": 0.3, "error": 0.3}, {"nu": 0.5, "error": 0.5}]
    best, means = choose_nu(recs, [0.5, 0.3, 0.1])
    assert best == 0.1 and means[0.3] == pytest.approx(0.3)


def test_paper_numbers():
    assert paper.paper_time("ringnorm", "lpboost") == 22.09
    assert paper.paper_time("twonorm", "erlpboost") == 13031.38
    assert paper.paper_time("heart", "cerlpboost") == paper.paper_time("heart", "ss_only") == ">1e3"
    assert paper.paper_time("waveform", "pfw") == ">1e4"
    assert paper.paper_time("titanic", "mlpboost_pfw") == 0.12
    assert paper.paper_test_error("ringnorm", "mlpboost_ss") == 0.03
    assert paper.paper_test_error("waveform", "lpboost") is None  # no waveform row in Table 3
    assert paper.paper_time("heart", "naive_lpboost") is None
    assert len(paper.TABLE2) == 13 and len(paper.TABLE3) == 12
    assert all(len(row[2]) == 6 for row in paper.TABLE2.values())
    assert all(isinstance(v, float) or (isinstance(v, str) and v.startswith(">"))
               for row in paper.TABLE2.values() for v in row[2])
    assert not any(math.isnan(v) for row in paper.TABLE3.values() for v in row)


def test_unknown_names_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="unknown booster"):
        run_benchmark(datasets=["heart"], boosters=["adaboostt"], out_dir=tmp_path, progress=None)
    with pytest.raises(ValueError, match="unknown peers"):
        run_benchmark(datasets=["heart"], boosters=["lpboost"], peers=["svm"], out_dir=tmp_path, progress=None)
    with pytest.raises(ValueError, match="unknown canon boosters"):
        run_benchmark(datasets=["heart"], boosters=["lpboost"], canon=["lpboost"], out_dir=tmp_path, progress=None)


@pytest.mark.parametrize("key", ["adaboost", "gradient_boosting", "xgboost", "lightgbm"])
def test_library_peers_fit_and_count_their_trees(key):
    """Each practitioners' peer runs on {-1, +1} data through the runner, seeded: the same numbers twice,
    a tree count from the library, an error a depth-2 ensemble reaches on heart."""
    from marginboost.experiments.peers import SKLEARN_PEERS
    from marginboost.experiments.runner import run_sklearn_peer

    pytest.importorskip(SKLEARN_PEERS[key][2])
    split = make_split(load_dataset("heart"), seed=0)
    first, second = run_sklearn_peer(key, split, seed=0), run_sklearn_peer(key, split, seed=0)
    assert first["test_error"] == second["test_error"] and first["train_error"] == second["train_error"]
    assert first["rounds"] is not None and 1 <= first["rounds"] <= 100
    assert first["test_error"] < 0.3 and first["train_error"] < 0.2


# ----------------------------------------------------------------------------- issue 19: resumable runs
RESUME = {"datasets": ["heart", "thyroid"], "boosters": ["lpboost", "mlpboost_ss"], "peers": ["adaboost"],
          "canon": ["totalboost"], "nus": (0.2, 0.4), "folds": 2, "subsample": 60, "max_time": 5.0,
          "figures": False, "progress": None}


class _FakeFits:
    """Deterministic stand-ins for the runner's fit functions (no fitting), counting each fit;
    ``fail_at``: the call number (1-based, warm-up excluded) that raises KeyboardInterrupt
    in the middle of its fit, as Ctrl-C would."""

    def __init__(self, monkeypatch, fail_at=None):
        import marginboost.experiments.benchmark as bench
        from marginboost.experiments import runner

        self.calls, self.fail_at, self._record = [], fail_at, runner._record
        monkeypatch.setattr(bench, "run_booster", self.booster)
        monkeypatch.setattr(bench, "run_peer", self.peer)
        monkeypatch.setattr(bench, "run_canon", self.canon)
        monkeypatch.setattr(bench, "run_cv_fold", self.cv_fold)

    def _call(self, key):
        if key[1] == "warm-up":
            return
        self.calls.append(key)
        if self.fail_at is not None and len(self.calls) == self.fail_at:
            raise KeyboardInterrupt

    @staticmethod
    def _value(*key):
        return (sum(map(ord, json.dumps(key))) % 97) / 97.0

    def _fill(self, rec, key):
        v = self._value(*key)
        rec.update({"rounds": 10 + int(100 * v), "status": "converged", "seconds": 0.5 + v, "soft_margin": v / 10,
                    "test_error": v / 2, "train_error": v / 3, "gap": 0.001})
        return rec

    def booster(self, key, split, nu, eps, max_time, max_iter=None, curve=False):
        self._call(("booster", split.dataset, key, nu))
        return self._fill(self._record(split, key, "booster", nu, nu * split.info["m_train"], eps, max_time),
                          ("b", split.dataset, key, nu))

    def peer(self, key, split, seed, nu, eps, max_time):
        self._call(("peer", split.dataset, key, nu))
        return self._fill(self._record(split, key, "peer", nu, None, None, None), ("p", split.dataset, key, nu))

    def canon(self, key, split, nu, eps, max_time, max_iter, seed):
        self._call(("canon", split.dataset, key, nu))
        rec = self._fill(self._record(split, key, "canon", nu, None, eps, max_time), ("c", split.dataset, key, nu))
        rec.update({"margin_kind": "hard", "margin": 0.01, "n_hypotheses": 3})
        return rec

    def cv_fold(self, key, split, fold, indices, nu, eps, max_time, max_iter=None):
        self._call(("cv", split.dataset, key, nu, fold))
        v = self._value("cv", split.dataset, key, nu, fold)
        return {"dataset": split.dataset, "booster": key, "nu": nu, "fold": fold,
                "m_fold_train": int(len(indices[0])), "rounds": 5, "status": "converged", "seconds": v,
                "error": round(v, 2)}


def _tables(out):
    """Every table file of a run, CSV without its metadata line, markdown from its first table row
    (what precedes it is provenance: date, command, load)."""
    files = {}
    for path in sorted(out.glob("*.csv")):
        files[path.name] = path.read_text().split("\n", 1)[1]
    for path in sorted(out.glob("*.md")):
        text = path.read_text()
        files[path.name] = text[text.index("| data set | source"):].split("\n", 3)[3]  # below the data set table
    return files


@pytest.mark.parametrize("fail_at", [1, 7, 15, 28])  # 28 fits in all: 14 per set
def test_resume_runs_every_finished_fit_once_and_writes_the_same_tables(tmp_path, monkeypatch, fail_at):
    whole = _FakeFits(monkeypatch)
    run_benchmark(**RESUME, out_dir=tmp_path / "whole")
    assert len(whole.calls) == len(set(whole.calls)) == 28

    first = _FakeFits(monkeypatch, fail_at=fail_at)  # Ctrl-C in the middle of fit number fail_at
    out = tmp_path / "parts"
    assert run_benchmark(**RESUME, out_dir=out)["state"] == "interrupted"
    assert first.calls == whole.calls[:fail_at]
    journal = [json.loads(line) for line in (out / "fits.jsonl").read_text().splitlines()]
    assert sum(e["type"] == "fit" for e in journal) == fail_at - 1  # every finished fit, not the interrupted one

    second = _FakeFits(monkeypatch)
    results = run_benchmark(**RESUME, out_dir=out, resume=True)
    assert results["state"] == "complete"
    assert second.calls == whole.calls[fail_at - 1:]  # the finished ones never again, the interrupted one anew
    assert _tables(out) == _tables(tmp_path / "whole")
    assert len(results["metadata"]["sittings"]) == 2
    assert "Sittings (2;" in (out / "table2.md").read_text()


def test_resume_with_other_parameters_is_refused_and_a_torn_line_is_dropped(tmp_path, monkeypatch):
    fits = _FakeFits(monkeypatch, fail_at=5)
    run_benchmark(**RESUME, out_dir=tmp_path)
    with pytest.raises(ValueError, match=r"other parameters \(nus: "):
        run_benchmark(**{**RESUME, "nus": (0.2, 0.3)}, out_dir=tmp_path, resume=True)
    journal = tmp_path / "fits.jsonl"
    good = journal.read_text()
    journal.write_text(good + '{"type": "fit", "key": "[\\"booster\\", \\"heart')  # a kill in mid-write
    fits.calls.clear()
    fits.fail_at = None
    results = run_benchmark(**{**RESUME, "budget": 50.0}, out_dir=tmp_path, resume=True)  # the budget may change
    assert results["state"] == "complete" and len(fits.calls) == len(set(fits.calls))
    assert fits.calls[0] == ("peer", "heart", "adaboost", None)  # the 5th fit, interrupted, runs again
    lines = journal.read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # the torn line was cut, the file reads whole
    # without resume, a new run replaces the journal
    fits.calls.clear()
    run_benchmark(**RESUME, out_dir=tmp_path)
    assert len(fits.calls) == sum(json.loads(line)["type"] == "fit" for line in journal.read_text().splitlines())


def test_resume_after_ctrl_c_with_real_fits_gives_the_uninterrupted_numbers(tmp_path):
    small = {"datasets": ["heart"], "boosters": ["lpboost", "mlpboost_ss"], "peers": ["adaboost"], "canon": [],
             "nus": (0.2, 0.4), "folds": 2, "subsample": 120, "max_time": 20.0, "seed": 3, "figures": False}
    whole = run_benchmark(**small, out_dir=tmp_path / "whole", progress=None)

    def progress(line):
        if line.startswith("[3/"):
            raise KeyboardInterrupt

    first = run_benchmark(**small, out_dir=tmp_path / "parts", progress=progress)
    assert first["state"] == "interrupted" and len(first["runs"]) == 3
    lines = []
    again = run_benchmark(**small, out_dir=tmp_path / "parts", progress=lines.append, resume=True)
    assert again["state"] == "complete" and "resuming from" in lines[0] and "3 finished fits" in lines[0]
    assert not any(line.startswith(("[1/", "[2/", "[3/")) for line in lines)  # not run again

    def strip(obj):
        if isinstance(obj, dict):
            return {k: strip(v) for k, v in obj.items() if k not in TIME_KEYS}
        if isinstance(obj, list):
            return [strip(v) for v in obj]
        return obj

    for key in ("datasets", "runs", "cv", "cv_choice"):
        assert strip(again[key]) == strip(json.loads(json.dumps(whole[key]))), key
    # the first sitting's records are kept as they were written, timings included
    assert [r["seconds"] for r in again["runs"][:3]] == [r["seconds"] for r in first["runs"]]


def test_the_papers_three_other_sets_run_with_the_papers_numbers_beside(tmp_path, monkeypatch):
    _FakeFits(monkeypatch)
    results = run_benchmark(**{**RESUME, "datasets": ["thyroid", "flare_solar", "image"]}, out_dir=tmp_path)
    rows = {(r["dataset"], r["booster"]): r for r in table2_rows(results)}
    assert rows[("thyroid", "lpboost")]["paper_seconds"] == 0.70
    assert rows[("image", "mlpboost_ss")]["paper_seconds"] == 32.01
    assert rows[("flare_solar", "lpboost")]["paper_shape"] == (144, 10)
    table2, table3 = (tmp_path / "table2.md").read_text(), (tmp_path / "table3.md").read_text()
    assert "| thyroid | 42 x 5 | 215 x 6 |" in table2 and "| image | 42 x 18 | 2086 x 19 |" in table2
    for text in (table2, table3):
        assert "Data sets that differ from the paper's" in text and "- flare_solar: KEEL's flare-F" in text
    assert "| 0.09 |" in table3  # thyroid's LPBoost error in the paper's Table 3


# ------------------------------------------------------- issue 19: the cells the paper aborted
class _LimitedFakeFits(_FakeFits):
    """:class:`_FakeFits` that records each fit's time limit and reports TIMEOUT for the boosters
    in ``timeout`` (a fit at its limit), as a slow booster would."""

    def __init__(self, monkeypatch, timeout=(), fail_at=None):
        super().__init__(monkeypatch, fail_at)
        self.limits, self.timeout = {}, set(timeout)

    def booster(self, key, split, nu, eps, max_time, max_iter=None, curve=False):
        rec = super().booster(key, split, nu, eps, max_time, max_iter, curve)
        if split.dataset != "warm-up":
            self.limits[("booster", split.dataset, key, nu)] = max_time
        if key in self.timeout:
            rec.update({"status": "TIMEOUT", "seconds": max_time})
        return rec

    def cv_fold(self, key, split, fold, indices, nu, eps, max_time, max_iter=None):
        if split.dataset != "warm-up":
            self.limits[("cv", split.dataset, key, nu, fold)] = max_time
        return super().cv_fold(key, split, fold, indices, nu, eps, max_time, max_iter)


# heart: the paper aborted C-ERLPBoost ('>1e3') and finished LPBoost and PFW
ABORTED = {**RESUME, "datasets": ["heart"], "boosters": ["lpboost", "cerlpboost", "pfw"], "peers": [], "canon": [],
           "cv_boosters": ["lpboost", "cerlpboost"], "max_time_aborted": 0.5}


def test_the_shorter_limit_applies_only_to_the_cells_the_paper_aborted(tmp_path, monkeypatch):
    fits = _LimitedFakeFits(monkeypatch)
    results = run_benchmark(**ABORTED, out_dir=tmp_path)
    assert results["metadata"]["parameters"]["max_time_aborted"] == 0.5
    assert results["datasets"]["heart"]["max_time"] == 5.0
    assert fits.limits  # every Table 2 fit and CV fold: 3 boosters x 2 nus, 2 boosters x 2 nus x 2 folds
    assert len(fits.limits) == 3 * 2 + 2 * 2 * 2
    for key, limit in fits.limits.items():
        assert limit == (0.5 if key[2] == "cerlpboost" else 5.0), key
    text = (tmp_path / "table2.md").read_text()
    assert "max_time_aborted = 0.5 s per fit at most in the cells the paper aborted" in text
    # a cell becomes 'aborted' by the paper's table alone: make the paper's PFW cell a bound
    row = paper.TABLE2["heart"]
    monkeypatch.setitem(paper.TABLE2, "heart", (row[0], row[1], row[2][:3] + (">1e3",) + row[2][4:]))
    fits = _LimitedFakeFits(monkeypatch)
    run_benchmark(**ABORTED, out_dir=tmp_path / "pfw")
    assert {key[2] for key, limit in fits.limits.items() if limit == 0.5} == {"cerlpboost", "pfw"}
    # no cap: every fit gets the data set's limit
    fits = _LimitedFakeFits(monkeypatch)
    results = run_benchmark(**{**ABORTED, "max_time_aborted": math.inf}, out_dir=tmp_path / "inf")
    assert set(fits.limits.values()) == {5.0} and results["metadata"]["parameters"]["max_time_aborted"] is None
    with pytest.raises(ValueError, match="max_time_aborted must be > 0"):
        run_benchmark(**{**ABORTED, "max_time_aborted": 0.0}, out_dir=tmp_path / "zero")


def test_cell_time_limit():
    from marginboost.experiments.benchmark import DEFAULT_MAX_TIME_ABORTED, cell_time_limit

    assert cell_time_limit(600.0, 60.0, "twonorm", "cerlpboost") == 60.0  # '>1e4' in the paper
    assert cell_time_limit(600.0, 60.0, "waveform", "pfw") == 60.0
    assert cell_time_limit(600.0, 60.0, "twonorm", "pfw") == 600.0  # the paper finished it
    assert cell_time_limit(30.0, 60.0, "heart", "ss_only") == 30.0  # the data set's limit is lower
    assert cell_time_limit(600.0, 60.0, "my_data", "cerlpboost") == 600.0  # not a set of the paper
    assert DEFAULT_MAX_TIME_ABORTED == 60.0


def test_a_timeout_where_the_paper_aborted_reads_otherwise_than_where_it_finished(tmp_path, monkeypatch):
    _LimitedFakeFits(monkeypatch, timeout=("cerlpboost", "lpboost"))
    run_benchmark(**{**ABORTED, "folds": 0}, out_dir=tmp_path)
    text = (tmp_path / "table2.md").read_text()
    line = next(x for x in text.splitlines() if x.startswith("| heart |") and "| 270 x 14 |" in x)
    cells = [c.strip() for c in line.split("|")[1:-1]]  # data set, shape, paper shape, then (ours, paper) x 3
    lp, fw, pfw = cells[3], cells[5], cells[7]
    assert lp.endswith("**TIMEOUT 2/2**") and "aborted" not in lp and cells[4] == "10.03"
    assert fw.endswith("TIMEOUT 2/2 _(aborted, as the paper)_") and "**" not in fw and cells[6] == "> 10^3"
    assert "TIMEOUT" not in pfw
    assert ("Cells the paper finished: 2, of which 1 with a TIMEOUT here: heart LPBoost (TIMEOUT 2/2). "
            "Cells the paper aborted: 1, of which 0 converged here at every nu.") in text
    t2 = pd.read_csv(tmp_path / "table2.csv", comment="#").set_index("booster")
    assert t2["paper_aborted"].to_dict() == {"lpboost": False, "cerlpboost": True, "pfw": False}
    assert "[section5.md](section5.md)" in text and (tmp_path / "section5.md").is_file()


def test_resume_keeps_the_shorter_limit_and_refuses_another(tmp_path, monkeypatch):
    first = _LimitedFakeFits(monkeypatch, fail_at=5)
    assert run_benchmark(**ABORTED, out_dir=tmp_path)["state"] == "interrupted"
    second = _LimitedFakeFits(monkeypatch)
    results = run_benchmark(**ABORTED, out_dir=tmp_path, resume=True)
    assert results["state"] == "complete"
    assert second.calls[0] == first.calls[-1] and not set(second.calls) & set(first.calls[:-1])  # finished: reused
    for key, limit in {**first.limits, **second.limits}.items():
        assert limit == (0.5 if key[2] == "cerlpboost" else 5.0), key
    assert [r["max_time"] for r in results["runs"] if r["booster"] == "cerlpboost"] == [0.5, 0.5]
    with pytest.raises(ValueError, match=r"other parameters \(max_time_aborted: 0.5 there, 1.0 now\)"):
        run_benchmark(**{**ABORTED, "max_time_aborted": 1.0}, out_dir=tmp_path, resume=True)
    # the default is a value like any other: a run started with it resumes without naming it
    default = {k: v for k, v in ABORTED.items() if k != "max_time_aborted"}
    run_benchmark(**default, out_dir=tmp_path / "default")
    again = _LimitedFakeFits(monkeypatch)
    run_benchmark(**{**default, "max_time_aborted": 60.0}, out_dir=tmp_path / "default", resume=True)
    assert again.calls == []


# ------------------------------------------------------------ issue 19: section 5's claims
@pytest.mark.parametrize("seconds, cut, other, other_cut, verdict", [
    (1.0, False, 2.0, False, "holds"), (3.0, False, 2.0, False, "fails"), (2.0, False, 2.0, False, "fails"),
    (1.0, False, 2.0, True, "holds"),  # the other's true mean is larger still
    (3.0, False, 2.0, True, "undecided"),  # the other's true mean may exceed 3
    (3.0, True, 2.0, False, "fails"),  # ours is larger still
    (1.0, True, 2.0, False, "undecided"), (1.0, True, 2.0, True, "undecided"), (3.0, True, 2.0, True, "undecided"),
])
def test_faster_verdict_reads_timeouts_as_lower_bounds(seconds, cut, other, other_cut, verdict):
    from marginboost.experiments.tables import faster_verdict

    assert faster_verdict(seconds, cut, other, other_cut) == verdict


@pytest.mark.parametrize("counts, verdict", [
    ((3, 0, 0), "reproduced"), ((2, 1, 0), "reproduced"), ((2, 0, 1), "reproduced"),
    ((1, 1, 1), "undecided"), ((2, 0, 2), "undecided"), ((1, 2, 0), "not reproduced"),
    ((1, 1, 0), "not reproduced"), ((0, 0, 0), "undecided"),
])
def test_claim_verdict_is_a_majority_that_undecided_cases_cannot_overturn(counts, verdict):
    from marginboost.experiments.tables import claim_verdict

    assert claim_verdict(*counts) == verdict


def _curve(updates, status="converged", points=12):
    """A run record with the curve :func:`~marginboost.experiments.runner.curve_of` would keep for
    ``updates`` (one letter per round: I init, F, B, N the stopping round), sampled at ``points`` rounds."""
    count = np.cumsum([u == "B" for u in updates])
    rows = sampled_rounds(len(updates), points)
    return {"status": status, "curve": {"round": (rows + 1).tolist(), "n_secondary": count[rows].tolist()}}


def _hand_results(cells, curves=()):
    """A results dict with one timing run per (data set, booster) cell: ``cells`` maps it to
    ``(seconds, status)``; ``curves``: (data set, booster, run with a curve) for Figure 4."""
    from marginboost.experiments import metadata

    datasets = sorted({d for d, _ in cells} | {d for d, _, _ in curves})
    runs = [{"dataset": d, "booster": b, "label": b, "kind": "booster", "phase": "timing", "nu": 0.1, "rounds": 10,
             "status": status, "seconds": seconds, "soft_margin": 0.1} for (d, b), (seconds, status) in cells.items()]
    runs += [{"dataset": d, "booster": b, "label": b, "kind": "booster", "phase": "timing", "nu": 0.1, "rounds": 10,
              "seconds": 1.0, "soft_margin": 0.1, **run} for d, b, run in curves]
    parameters = {"boosters": ["lpboost", "erlpboost", "cerlpboost", "mlpboost_ss"], "peers": [], "nus": [0.1],
                  "eps": 0.01, "max_time": 5.0, "max_time_aborted": 1.0, "budget": None, "folds": 0, "seed": 0,
                  "subsample": None, "quick": False, "max_depth": 2, "test_size": 0.3}
    info = {"source": "hand-made", "m": 143, "p": 5, "subsample": None, "m_train": 100, "m_test": 43, "sha256": "x"}
    return {"state": "complete", "datasets": {d: info for d in datasets}, "runs": runs,
            "metadata": metadata.collect(parameters)}


def test_section5_verdicts_on_hand_made_results():
    from marginboost.experiments.tables import section5_verdicts

    ok, cut = "converged", "TIMEOUT"
    results = _hand_results({
        # heart: MLPB. (SS) faster than FW, slower than ERLPB.; LPBoost the fastest
        ("heart", "lpboost"): (0.5, ok), ("heart", "erlpboost"): (1.0, ok), ("heart", "cerlpboost"): (3.0, ok),
        ("heart", "mlpboost_ss"): (2.0, ok),
        # german: FW cut below MLPB. (SS)'s time (undecided), LPBoost cut below the others' (undecided)
        ("german", "lpboost"): (0.5, cut), ("german", "erlpboost"): (1.0, ok), ("german", "cerlpboost"): (1.5, cut),
        ("german", "mlpboost_ss"): (2.0, ok),
        # diabetes: FW cut above MLPB. (SS) (holds all the same); ERLPB. faster than LPBoost
        ("diabetes", "lpboost"): (2.0, ok), ("diabetes", "erlpboost"): (1.0, ok),
        ("diabetes", "cerlpboost"): (9.0, cut), ("diabetes", "mlpboost_ss"): (3.0, ok),
    })
    claims = {c["id"]: c for c in section5_verdicts(results)}
    assert list(claims) == ["a1", "a2", "a3", "a4", "b", "c"]
    a1 = claims["a1"]
    assert [(r["dataset"], r["verdict"]) for r in a1["rows"]] == [("diabetes", "holds"), ("german", "undecided"),
                                                                   ("heart", "holds")]
    assert a1["counts"] == {"holds": 2, "fails": 0, "undecided": 1} and a1["verdict"] == "reproduced"
    # the paper's own cells: 201.46 < '>1e4', 181.43 < '>1e4', 44.11 < '>1e3'
    assert [r["paper_verdict"] for r in a1["rows"]] == ["holds"] * 3 and a1["paper_verdict"] == "reproduced"
    assert a1["rows"][0]["paper_other_seconds"] == ">1e4"
    assert claims["a3"]["counts"] == {"holds": 0, "fails": 3, "undecided": 0}
    assert claims["a3"]["verdict"] == "not reproduced" and claims["a3"]["paper_verdict"] == "reproduced"
    assert claims["a2"]["rows"] == [] and claims["a2"]["verdict"] is None  # PFW did not run
    b = claims["b"]
    assert [(r["dataset"], r["verdict"], r["fastest_other"]) for r in b["rows"]] == [
        ("diabetes", "fails", "erlpboost"), ("german", "undecided", "erlpboost"), ("heart", "holds", "erlpboost")]
    assert b["verdict"] == "undecided" and b["paper_verdict"] == "reproduced"
    assert claims["c"]["rows"] == [] and claims["c"]["verdict"] is None


def test_figure4_shares_count_the_rounds_won_by_the_secondary_rule():
    from marginboost.experiments.tables import secondary_shares, section5_verdicts

    b_then_f = "I" + "B" * 20 + "F" * 40 + "N"  # 60 rounds choose: B wins the first third, F the rest
    f_then_b = "I" + "F" * 30 + "B" * 30 + "N"
    runs = [("heart", "mlpboost_ss", _curve(b_then_f)), ("heart", "mlpboost_pfw", _curve(f_then_b)),
            ("german", "mlpboost_ss", _curve(b_then_f[:-1], "TIMEOUT")),  # cut: undecided
            ("german", "mlpboost_pfw", _curve("IBBBBN"))]  # 4 choosing rounds: too few
    shares = secondary_shares(runs[0][2])
    assert shares["rounds"] == 60 and shares["early"] > 0.5 and shares["late"] == 0.0
    # the shares are exact counts over the rounds they name, whatever rounds the curve sampled
    for updates in (b_then_f, f_then_b, "IFBFBBFBFFBFBBBFFBFBFBBBFFFBFBN"):
        s = secondary_shares(_curve(updates))
        first, last = s["early_rounds"]
        assert s["early"] == pytest.approx(updates[first - 1:last].count("B") / (last - first + 1))
        first, last = s["late_rounds"]
        assert s["late"] == pytest.approx(updates[first - 1:last].count("B") / (last - first + 1))
        assert last == len(updates) - 1  # the stopping round chooses nothing
    c = {x["id"]: x for x in section5_verdicts(_hand_results({}, runs))}["c"]
    assert [(r["dataset"], r["booster"], r["verdict"]) for r in c["rows"]] == [
        ("heart", "mlpboost_ss", "holds"), ("heart", "mlpboost_pfw", "fails"),
        ("german", "mlpboost_ss", "undecided"), ("german", "mlpboost_pfw", "undecided")]
    assert c["counts"] == {"holds": 1, "fails": 1, "undecided": 2} and c["verdict"] == "undecided"
    assert c["paper_verdict"] is None


def test_section5_markdown_states_each_claim_with_its_numbers():
    from marginboost.experiments.tables import section5_markdown

    results = _hand_results({("heart", "lpboost"): (0.5, "converged"), ("heart", "cerlpboost"): (3.0, "TIMEOUT"),
                             ("heart", "mlpboost_ss"): (2.0, "converged"), ("heart", "erlpboost"): (1.0, "converged")})
    text = section5_markdown(results)
    assert "## (a1) MLPBoost (SS) is faster than FW (C-ERLPBoost): reproduced" in text
    assert "| heart | 2.00 | >= 3.00 | holds | 44.11 | > 10^3 | holds |" in text
    assert "## (a3) MLPBoost (SS) is faster than ERLPBoost: not reproduced" in text
    assert "## (a2) MLPBoost (PFW) is faster than PFW only: not run" in text
    assert "| heart | 0.50 | 1.00 (ERLPBoost) | holds | 10.03 | 44.11 (MLPBoost (SS)) | holds |" in text


_COMMITTED = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "paper" / "results.json"


@pytest.mark.skipif(not _COMMITTED.is_file(), reason="no committed results of the paper's benchmark")
def test_section5_verdicts_on_the_committed_results():
    from marginboost.experiments.tables import section5_markdown, section5_verdicts

    results = json.loads(_COMMITTED.read_text())
    for claim in section5_verdicts(results):
        assert claim["verdict"] in ("reproduced", "not reproduced", "undecided")
        assert sum(claim["counts"].values()) == len(claim["rows"]) > 0
    assert "# Section 5 of paper 000" in section5_markdown(results)
