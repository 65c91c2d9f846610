"""Paper 003's Table 2: time to eps-optimal soft margin of LPBoost, ERLPBoost, C-ERLPBoost and
boosting with the average-margin oracle over an NZDD (``marginboost bench-nzdd``).

Mitsuboshi, Hatano, Takimoto, "A New Scheme for Boosting with an Average Margin Distribution
Oracle", section 5: eps = 0.01, nu = 0.8 m, each algorithm run to its own stopping rule;
LPBoost and ERLPBoost solve their sub-problems with Gurobi there (HiGHS and our Newton method
here), "SS algorithm" is Shalev-Shwartz and Singer's (C-ERLPBoost here), the weak learner is
the exact decision stump (``weak_learner='stump'``: every stump, both orientations), and the
paper's data (LIBSVM Madelon, Covtype, Gisette, Real-sim, RCV1) are not available offline.
Here: the largest sets that are (KEEL ringnorm, twonorm, spambase, magic through
:func:`marginboost.io.datasets.load_dataset`) and Breiman's twonorm generated with 100 000 rows
(:func:`marginboost.io.datasets.make_twonorm`); data set names ``twonorm_<rows>`` are generated.

What is measured, per data set: the stump NZDD's size (``|H_S|`` paths, ``|G|`` labels, edges)
and build time (the chains, hashes and merged duplicates that the oracle uses; assembling the
explicit DAG of :class:`marginboost.average_margin.nzdd.NZDD` on top, which the booster does not need, is
timed separately as ``dag_seconds``, estimated from a second build); per booster the wall
time of ``fit`` (for AverageMarginBoost ``fit`` on the prebuilt NZDD, and ``seconds`` = build +
fit, the figure compared with LPBoost), rounds, status
(TIMEOUT where ``max_time`` stopped it), the soft margin of the output, and for
AverageMarginBoost the time in oracle calls. The stopping rules differ but each guarantees a
soft margin within eps of the optimum over all stumps (LPBoost: ``min edge - LP value <=
eps``; AverageMarginBoost: FW gap <= eps/2 with eta = 2 ln|H_S| / eps, see
:mod:`marginboost.average_margin.frank_wolfe`), so "time to the same eps" is each algorithm's own stop;
the soft margins are reported beside the times to show it.

Output in ``out_dir`` (written after every data set, so an interrupted run keeps what it
finished): ``table2.md`` (provenance, the table, the verdict per data set with numbers where
AverageMarginBoost is not faster), ``table2.csv``, ``table2.json``.
"""
from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from marginboost.estimators.average_margin import AverageMarginBoostClassifier
from marginboost.io.datasets import Dataset, load_dataset, make_twonorm
from marginboost.estimators.soft_margin import CERLPBoostClassifier, ERLPBoostClassifier, LPBoostClassifier
from marginboost.core.interrupts import on_interrupt
from marginboost.average_margin.nzdd_stumps import build_stump_nzdd
from marginboost.experiments import metadata
from marginboost.experiments.result_files import atomic_write, csv_text, jsonable

__all__ = ["BOOSTERS", "FULL", "QUICK", "load", "run_nzdd_experiments", "table2_markdown"]

BOOSTERS = {"lpboost": ("LPBoost", LPBoostClassifier), "erlpboost": ("ERLPBoost", ERLPBoostClassifier),
            "cerlpboost": ("C-ERLPBoost (SS)", CERLPBoostClassifier),
            "averagemargin": ("AverageMarginBoost", AverageMarginBoostClassifier)}
# Smallest first: an interrupted run keeps the most rows.
FULL = {"datasets": ("spambase", "ringnorm", "twonorm", "magic", "twonorm_100000"), "max_time": 300.0,
        "nu": 0.8, "eps": 0.01, "rows": None, "quick": False}
QUICK = {"datasets": ("ringnorm", "twonorm_400"), "max_time": 5.0, "nu": 0.8, "eps": 0.05, "rows": 400,
         "quick": True}
FIELDS = ("dataset", "m", "p", "booster", "label", "status", "rounds", "seconds", "fit_seconds",
          "build_seconds", "dag_seconds", "oracle_seconds", "soft_margin", "n_hypotheses", "nzdd_labels", "nzdd_edges",
          "dataset_sha256")


def load(name: str, rows: int | None = None, seed: int = 0) -> Dataset:
    """A bundled data set, or ``twonorm_<rows>`` generated; ``rows``: a random subset of that size."""
    data = make_twonorm(int(name.split("_", 1)[1]), seed=seed) if name.startswith("twonorm_") else load_dataset(name)
    if rows is not None and rows < data.shape[0]:
        keep = np.sort(np.random.default_rng(seed).choice(data.shape[0], rows, replace=False))
        data = Dataset(f"{data.name}[{rows} rows]", data.X[keep], data.y[keep], data.source + f"; {rows} random rows",
                       data.classes, data.notes, data.feature_names)
    return data


def _fit(key, X, y, cfg, nzdd):
    """One fit: ``(estimator, seconds)``; the LP-based boosters get no round limit but time."""
    _, cls = BOOSTERS[key]
    m = X.shape[0]
    if key == "averagemargin":
        est = cls(nu=cfg["nu"] * m, eps=cfg["eps"], max_iter=10**7, max_time=cfg["max_time"])
        fit = lambda: est.fit(X, y, nzdd=nzdd)  # noqa: E731
    else:
        est = cls(nu=cfg["nu"], eps=cfg["eps"], weak_learner="stump", max_iter=10**7, max_time=cfg["max_time"])
        fit = lambda: est.fit(X, y)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # reported as the status
        start = time.perf_counter()
        fit()
        return est, time.perf_counter() - start


def run_dataset(name: str, cfg: dict, seed: int = 0, progress=None) -> list[dict]:
    """Every booster on one data set: one row each (see ``FIELDS``)."""
    data = load(name, cfg["rows"], seed)
    X, y = data.X, data.y
    m, p = X.shape
    start = time.perf_counter()
    nzdd = build_stump_nzdd(X, y)
    build = time.perf_counter() - start
    start = time.perf_counter()
    dag = build_stump_nzdd(X, y).nzdd  # a fresh one, so the boosters' copy stays without the DAG
    dag_seconds = time.perf_counter() - start - build
    common = {"dataset": data.name, "m": m, "p": p, "n_hypotheses": nzdd.n_hypotheses, "nzdd_labels": dag.size,
              "nzdd_edges": dag.n_edges, "build_seconds": build, "dag_seconds": dag_seconds,
              "dataset_sha256": data.sha256()}
    del dag
    if progress:
        progress(f"{data.name}: m={m}, p={p}, |H_S|={nzdd.n_hypotheses}, |G|={common['nzdd_labels']}, built in "
                 f"{build:.2f} s (explicit DAG {dag_seconds:.2f} s more)")
    rows = []
    for key, (label, _) in BOOSTERS.items():
        est, seconds = _fit(key, X, y, cfg, nzdd)
        amb = key == "averagemargin"
        row = {**common, "booster": key, "label": label,
               "status": "TIMEOUT" if est.status_ == "max_time" else est.status_, "rounds": est.n_iter_,
               "fit_seconds": seconds, "seconds": seconds + (build if amb else 0.0),
               "oracle_seconds": float(est.history_["oracle_time"].sum()) if amb else None,
               "soft_margin": est.margin_}
        rows.append(row)
        if progress:
            progress(f"  {label:<20} {row['status']:<9} {row['rounds']:>7} rounds {row['seconds']:9.2f} s  "
                     f"soft margin {row['soft_margin']:.5f}")
    return rows


def _verdict(rows: list[dict], eps: float) -> str:
    """Whether AverageMarginBoost (build + fit) beat LPBoost on this data set, and if not why."""
    lp = next(r for r in rows if r["booster"] == "lpboost")
    am = next(r for r in rows if r["booster"] == "averagemargin")
    name = am["dataset"]
    if am["status"] != "converged":
        return (f"{name}: AverageMarginBoost did not converge ({am['status']} after {am['rounds']} rounds, "
                f"{am['seconds']:.1f} s); LPBoost {lp['status']} in {lp['seconds']:.1f} s")
    if lp["status"] != "converged" or am["seconds"] < lp["seconds"]:
        return (f"{name}: faster than LPBoost ({am['seconds']:.2f} s = build {am['build_seconds']:.2f} + fit "
                f"{am['fit_seconds']:.2f}, against {lp['seconds']:.2f} s {lp['status']})")
    per_round = 1e3 * am["fit_seconds"] / am["rounds"]
    oracle = 1e3 * am["oracle_seconds"] / am["rounds"]
    return (f"{name}: slower than LPBoost ({am['seconds']:.2f} s against {lp['seconds']:.2f} s). "
            f"LPBoost needed {lp['rounds']} rounds ({1e3 * lp['seconds'] / lp['rounds']:.0f} ms each); "
            f"Frank-Wolfe with step 2/(t+2) needed {am['rounds']} rounds at {per_round:.2f} ms each "
            f"({oracle:.2f} ms in the oracle; the rest is the linear step, a selection of the nu smallest "
            f"margins, and building the output classifier), plus "
            f"{am['build_seconds']:.2f} s to build the NZDD: Frank-Wolfe's O(eta/t) convergence, eta = "
            f"2 ln|H_S|/eps = {2 * np.log(am['n_hypotheses']) / eps:.0f}, takes more rounds than LPBoost's few "
            f"fully corrective ones here")


def table2_markdown(results: dict) -> str:
    """Paper 003's Table 2 from ``results``: seconds to an eps-optimal soft margin per data set and booster."""
    meta = results["metadata"]
    params = meta["parameters"]
    lines = [
        "# Paper 003, Table 2: time to an eps-optimal soft margin (seconds)",
        "",
        f"eps = {params['eps']}, nu = {params['nu']} m, exact decision stumps, max_time {params['max_time']} s per "
        f"fit (TIMEOUT: stopped by it). AverageMarginBoost's time is build + fit (the NZDD is built once); "
        f"soft margins of each output beside. See `marginboost.experiments.nzdd_experiments` for the protocol.",
        "",
        f"Command: `{meta['command']}`; date {meta['date']}; git {meta['git_commit']}; CPU {meta['machine']['cpu']} "
        f"({meta['machine']['cpu_count']} cores); load average at start {meta['machine']['load_average']}, "
        f"at end {meta.get('load_average_end')}.",
        "",
        "| data set | m x p | NZDD: paths / labels / edges | build s (+ explicit DAG) | "
        + " | ".join(label for label, _ in BOOSTERS.values()) + " |",
        "|---|---|---|---|" + "---|" * len(BOOSTERS),
    ]
    by_set: dict = {}
    for row in results["rows"]:
        by_set.setdefault(row["dataset"], []).append(row)
    for name, rows in by_set.items():
        r0 = rows[0]
        cells = []
        for key in BOOSTERS:
            r = next(x for x in rows if x["booster"] == key)
            mark = "" if r["status"] == "converged" else f" {r['status']}"
            cells.append(f"{r['seconds']:.2f}{mark} ({r['rounds']} rounds, margin {r['soft_margin']:.4f})")
        lines.append(f"| {name} | {r0['m']} x {r0['p']} | {r0['n_hypotheses']} / {r0['nzdd_labels']} / "
                     f"{r0['nzdd_edges']} | {r0['build_seconds']:.2f} (+{r0['dag_seconds']:.2f}) | " + " | ".join(cells) + " |")
    verdicts = [_verdict(rows, params["eps"]) for rows in by_set.values()]
    faster = sum(v.split(": ", 1)[1].startswith("faster") for v in verdicts)
    lines += ["", f"AverageMarginBoost faster than LPBoost on {faster} of {len(verdicts)} data sets "
                  f"(target: at least half).", ""]
    lines += [f"- {v}" for v in verdicts]
    return "\n".join(lines) + "\n"


def write_results(results: dict, out_dir) -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return [atomic_write(out_dir / "table2.md", table2_markdown(results)),
            atomic_write(out_dir / "table2.csv", csv_text(results["rows"], FIELDS, results["metadata"])),
            atomic_write(out_dir / "table2.json", json.dumps(jsonable(results), indent=1, sort_keys=True) + "\n")]


def _warm_up(cfg: dict) -> None:
    """Every booster once on a tiny sample: imports and HiGHS'
    start-up are not charged to the first data set's timings."""
    data = make_twonorm(60, n_features=3, seed=1)
    nzdd = build_stump_nzdd(data.X, data.y)
    for key in BOOSTERS:
        _fit(key, data.X, data.y, {**cfg, "max_time": 5.0}, nzdd)


@on_interrupt("raise")  # Ctrl-C ends the run: an interrupted fit must not enter the tables
def run_nzdd_experiments(out_dir=None, *, quick=False, datasets=None, max_time=None, seed=0, progress=None) -> dict:
    """Run Table 2 (``QUICK``: two small sets, seconds) and write it to ``out_dir`` if given."""
    cfg = dict(QUICK if quick else FULL)
    _warm_up(cfg)
    if datasets is not None:
        cfg["datasets"] = tuple(datasets)
    if max_time is not None:
        cfg["max_time"] = float(max_time)
    results = {"metadata": metadata.collect({**cfg, "seed": seed}), "rows": []}
    for name in cfg["datasets"]:
        results["rows"] += run_dataset(name, cfg, seed, progress)
        results["metadata"]["load_average_end"] = metadata.machine_facts()["load_average"]
        if out_dir is not None:
            write_results(results, out_dir)
    return results
