"""Soft-margin benchmark: marginboost's boosters against a plain warm-started LPBoost.

    python benchmarks/soft_margin.py [--datasets ringnorm twonorm banana] [--nu 0.1 0.5]
                                     [--eps 0.01] [--max-time 900] [--quick] [--out benchmarks/results]

For every dataset x nu (a fraction of m) it runs, with depth-2 edge trees and the same eps:
the plain baseline (benchmarks/plain_lpboost.py), LPBoost, MLPBoost (short step + LP rule),
MLPBoost with the pairwise FW rule, ERLPBoost and C-ERLPBoost, each stopped after --max-time
seconds (such runs are marked TIMEOUT). It also times the weak learners alone. Results go to
<out>/soft_margin.md and <out>/soft_margin.json, rewritten after every run, so an interrupted
benchmark (Ctrl-C) keeps the runs that finished. See benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))  # benchmark this checkout, installed or not
sys.path.insert(0, str(HERE))

import marginboost  # noqa: E402
from marginboost import (  # noqa: E402
    CERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    MLPBoostClassifier,
)
from marginboost.io import datasets  # noqa: E402
from marginboost.experiments import metadata  # noqa: E402
from marginboost.weak_learners import DecisionStump, EdgeTree  # noqa: E402
from plain_lpboost import plain_lpboost  # noqa: E402

MAX_DEPTH = 2
MAX_ITER = 10**7  # runs are limited by --max-time only
AGREE_TOL = 1e-6  # plain baseline vs LPBoostClassifier soft margins

# name -> estimator factory (None: the plain baseline)
BOOSTERS = {
    "plain-LPBoost": None,
    "LPBoost": lambda **kw: LPBoostClassifier(**kw),
    "MLPBoost": lambda **kw: MLPBoostClassifier(**kw),
    "MLPBoost-pairwise": lambda **kw: MLPBoostClassifier(step="pairwise", **kw),
    "ERLPBoost": lambda **kw: ERLPBoostClassifier(**kw),
    "C-ERLPBoost": lambda **kw: CERLPBoostClassifier(**kw),
}
RATIOS = (("LPBoost", "plain-LPBoost"), ("MLPBoost", "LPBoost"), ("ERLPBoost", "MLPBoost"))
STATUS = {"converged": "converged", "max_time": "TIMEOUT", "max_iter": "MAX_ITER"}


# --------------------------------------------------------------------------------------- data
def load_dataset(name: str, subsample: int | None, seed: int):
    """The bundled data set (``marginboost.io.datasets``), optionally a stratified subsample."""
    data = datasets.load_dataset(name)
    X, y = np.ascontiguousarray(data.X), data.y
    if subsample is not None and subsample < y.shape[0]:
        from sklearn.model_selection import train_test_split

        keep, _ = train_test_split(np.arange(y.shape[0]), train_size=subsample, stratify=y, random_state=seed)
        keep.sort()
        X, y = X[keep], y[keep]
    return X, y


# --------------------------------------------------------------------------- weak learner alone
def time_oracle(learner, X, y, calls: int = 20, seed: int = 0) -> float:
    """Median ms per oracle call over ``calls`` random Dirichlet distributions (after a warm-up)."""
    oracle = learner.prepare(X, y)
    m = y.shape[0]
    oracle(np.full(m, 1.0 / m))
    rng = np.random.default_rng(seed)
    times = []
    for _ in range(calls):
        d = rng.dirichlet(np.ones(m))
        t0 = time.perf_counter()
        oracle(d)
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


# ------------------------------------------------------------------------------------- runs
def run_booster(name, X, y, nu_frac, eps, max_time):
    m = y.shape[0]
    nu = max(nu_frac * m, 1.0)
    if BOOSTERS[name] is None:
        t0 = time.perf_counter()
        res = plain_lpboost(EdgeTree(max_depth=MAX_DEPTH).prepare(X, y), y, nu, eps, max_time, MAX_ITER)
        fit_s = time.perf_counter() - t0
        total, wl, solver = res["total_time"], res["weak_learner_time"], res["lp_time"]
        rounds, status, margin = res["rounds"], res["status"], res["soft_margin"]
        gap, n_hyp, best_edge = res["best_edge"] - res["lp_value"], res["n_hypotheses"], res["best_edge"]
    else:
        est = BOOSTERS[name](nu=nu_frac, eps=eps, weak_learner="tree", max_depth=MAX_DEPTH,
                             max_iter=MAX_ITER, max_time=max_time)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning on timeout: reported as status
            est.fit(X, y)
        fit_s = time.perf_counter() - t0
        hist = est.history_
        # one history_ row per round (weak-learner call + update), the first round included
        total = float(hist["time"][-1])
        wl, solver = float(np.sum(hist["weak_learner_time"])), float(np.sum(hist["solver_time"]))
        rounds, status, margin = int(est.n_iter_), est.status_, float(est.margin_)
        gap, n_hyp, best_edge = float(est.gap_), len(est.hypotheses_), float(hist["best_edge"][-1])
    return {
        "booster": name, "m": m, "nu": nu_frac, "nu_count": nu, "eps": eps, "rounds": rounds,
        "status": STATUS.get(status, status), "total_s": total, "weak_learner_s": wl,
        "solver_s": solver, "overhead": (total - wl) / wl if wl > 0 else math.inf,
        "fit_s": fit_s, "soft_margin": margin, "best_edge": best_edge, "edge_minus_margin": best_edge - margin,
        "gap": gap, "n_hypotheses": n_hyp,
        "weak_learner_ms_per_round": 1e3 * wl / max(rounds, 1),
    }


def warm_up(names, eps):
    """Touch every code path on a tiny problem, off the clock."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=200) > 0, 1.0, -1.0)
    for name in names:
        run_booster(name, X, y, 0.1, eps, 5.0)
    time_oracle(DecisionStump(), X, y, calls=1)


def ratio(runs, dataset, nu, num, den):
    """``num/den`` total time on (dataset, nu); '>'/'<' when a timeout makes it a bound."""
    pick = {r["booster"]: r for r in runs if r["dataset"] == dataset and r["nu"] == nu}
    if num not in pick or den not in pick:
        return None
    a, b = pick[num], pick[den]
    ta, tb = a["status"] == "TIMEOUT", b["status"] == "TIMEOUT"
    if ta and tb:
        return {"value": None, "bound": "n/a"}
    bound = ">=" if ta else ("<=" if tb else "")
    return {"value": a["total_s"] / b["total_s"], "bound": bound}


def agreement(runs, dataset, nu):
    pick = {r["booster"]: r for r in runs if r["dataset"] == dataset and r["nu"] == nu}
    if "LPBoost" not in pick or "plain-LPBoost" not in pick:
        return None
    a, b = pick["LPBoost"], pick["plain-LPBoost"]
    diff = abs(a["soft_margin"] - b["soft_margin"])
    both = a["status"] == b["status"] == "converged"
    return {"margin_diff": diff, "both_converged": both, "agree": diff <= AGREE_TOL if both else None,
            "same_rounds": a["rounds"] == b["rounds"]}


# ----------------------------------------------------------------------------------- report
def environment(argv):
    """Command, date, machine and versions, from the library's provenance helpers."""
    machine = metadata.machine_facts()
    pools = ", ".join(f"{p['api']} {p['version']} ({p['threads']} threads)" for p in machine["thread_pools"])
    installed = metadata.package_versions()
    versions = {name: installed[name] for name in ("numpy", "scipy", "highspy", "scikit-learn")}
    versions["marginboost"] = (f"{marginboost.__version__} (git {metadata.git_commit() or 'unknown'}, "
                               f"{Path(marginboost.__file__).parent})")
    return {
        "command": "python " + shlex.join(argv),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": {"platform": machine["platform"], "cpu": machine["cpu"], "cpu_count": machine["cpu_count"],
                    "python": machine["python"], "load_average_at_start": machine["load_average"],
                    "thread_pools": pools},
        "versions": versions,
    }


def fmt(x, spec=".3f"):
    if x is None:
        return "-"
    if isinstance(x, float) and not math.isfinite(x):
        return "inf"
    return format(x, spec)


def markdown(report) -> str:
    env, cfg = report["environment"], report["config"]
    mc, v = env["machine"], env["versions"]
    out = [
        "# Soft-margin benchmark", "",
        f"Command: `{env['command']}`", "",
        f"- Date: {env['date']}",
        f"- Machine: {mc['platform']}; {mc['cpu']}; {mc['cpu_count']} CPUs; Python {mc['python']}; "
        f"load average at start {fmt(mc['load_average_at_start'][0], '.2f') if mc['load_average_at_start'] else '-'}; "
        f"thread pools: {mc['thread_pools'] or 'none loaded'}",
        "- Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()),
        f"- Config: eps={cfg['eps']}, depth-{MAX_DEPTH} edge trees, max_time={cfg['max_time']} s, "
        f"nu (fraction of m) = {cfg['nu']}, subsample = {cfg['subsample'] or 'none (full data)'}",
    ]
    if report["state"] != "complete":
        out += ["", f"**State: {report['state']}** (only the runs below finished)."]
    out += ["", "## Weak learner alone (ms per call, median of 20 random Dirichlet d, after a warm-up)", "",
            "| dataset | m | p | EdgeTree(max_depth=2) ms | DecisionStump ms |", "|---|---:|---:|---:|---:|"]
    for w in report["weak_learner"]:
        out.append(f"| {w['dataset']} | {w['m']} | {w['p']} | {w['tree_ms']:.2f} | {w['stump_ms']:.2f} |")
    out += ["", "## Runs", "",
            "total = loop time; overhead = (total - weak learner)/weak learner; "
            "g - margin: smallest edge seen minus final soft margin (at most eps once converged); "
            "check: LPBoost vs plain baseline soft margin (WARN if both converged and they differ by more "
            f"than {AGREE_TOL:g}), else soft margin minus LPBoost's.", "",
            "| dataset | m | nu | booster | rounds | status | total s | weak-learner s | solver s | overhead "
            "| soft margin | g - margin | check |",
            "|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in report["runs"]:
        check = ""
        if r["booster"] == "LPBoost":
            ag = agreement(report["runs"], r["dataset"], r["nu"])
            if ag is not None:
                if ag["agree"] is None:
                    check = f"not compared (a timeout); differs from plain by {ag['margin_diff']:.2e}"
                elif ag["agree"]:
                    check = f"agrees with plain ({ag['margin_diff']:.1e})"
                else:
                    check = f"**WARN: differs from plain by {ag['margin_diff']:.2e}**"
                if not ag["same_rounds"]:
                    check += " (rounds differ)"
        elif r["booster"] != "plain-LPBoost":
            lp = [s for s in report["runs"] if s["dataset"] == r["dataset"] and s["nu"] == r["nu"]
                  and s["booster"] == "LPBoost"]
            if lp:
                check = f"{r['soft_margin'] - lp[0]['soft_margin']:+.2e} vs LPBoost"
        status = r["status"] if r["status"] == "converged" else f"**{r['status']}**"
        out.append(
            f"| {r['dataset']} | {r['m']} | {r['nu']:g} | {r['booster']} | {r['rounds']} | {status} "
            f"| {r['total_s']:.2f} | {r['weak_learner_s']:.2f} | {r['solver_s']:.2f} | {fmt(r['overhead'], '.1f')} "
            f"| {r['soft_margin']:.6f} | {r['edge_minus_margin']:.2e} | {check} |")
    out += ["", "## Time ratios (total loop time, same run)", "",
            "`>=`/`<=`: a bound, the numerator/denominator hit max_time.", "",
            "| dataset | m | nu | " + " | ".join(f"{a} / {b}" for a, b in RATIOS) + " |",
            "|---|---:|---:|" + "---:|" * len(RATIOS)]
    for row in report["ratios"]:
        cells = []
        for a, b in RATIOS:
            rv = row[f"{a} / {b}"]
            cells.append("-" if rv is None else ("n/a" if rv["value"] is None else f"{rv['bound']}{rv['value']:.2f}"))
        out.append(f"| {row['dataset']} | {row['m']} | {row['nu']:g} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def write(report, out_dir: Path):
    report["ratios"] = []
    for dataset, m, nu in dict.fromkeys((r["dataset"], r["m"], r["nu"]) for r in report["runs"]):
        row = {"dataset": dataset, "m": m, "nu": nu}
        for a, b in RATIOS:
            row[f"{a} / {b}"] = ratio(report["runs"], dataset, nu, a, b)
        row["lpboost_vs_plain"] = agreement(report["runs"], dataset, nu)
        report["ratios"].append(row)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in (("soft_margin.json", json.dumps(report, indent=1, default=float)),
                       ("soft_margin.md", markdown(report))):
        tmp = out_dir / (name + ".tmp")
        tmp.write_text(text)
        tmp.replace(out_dir / name)


# -------------------------------------------------------------------------------------- main
def main(argv=None):
    argv = sys.argv if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", nargs="+", default=["ringnorm", "twonorm", "banana"],
                   help="KEEL data sets (ringnorm = KEEL 'ring')")
    p.add_argument("--nu", nargs="+", type=float, default=None,
                   help="capping parameters as fractions of m (default 0.1 0.5; --quick: 0.1)")
    p.add_argument("--eps", type=float, default=0.01)
    p.add_argument("--max-time", type=float, default=None,
                   help="seconds per run, after which it stops as TIMEOUT (default 900; --quick: 8)")
    p.add_argument("--boosters", nargs="+", choices=list(BOOSTERS), default=list(BOOSTERS))
    p.add_argument("--subsample", type=int, default=None,
                   help="stratified subsample of each data set (default: all; --quick: 1500)")
    p.add_argument("--quick", action="store_true",
                   help="1500-row subsample, nu=0.1, max-time 8 s (unless given): a sanity run, < 3 min")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--blas-threads", type=int, default=None,
                   help="limit BLAS/OpenMP threads (threadpoolctl); default: leave as configured")
    p.add_argument("--out", type=Path, default=HERE / "results")
    args = p.parse_args(argv[1:])
    nus = args.nu if args.nu is not None else ([0.1] if args.quick else [0.1, 0.5])
    subsample = args.subsample if args.subsample is not None else (1500 if args.quick else None)
    max_time = args.max_time if args.max_time is not None else (8.0 if args.quick else 900.0)

    if args.blas_threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads)
    report = {"environment": environment(argv), "state": "running",
              "config": {"datasets": args.datasets, "nu": nus, "eps": args.eps, "max_time": max_time,
                         "boosters": args.boosters, "subsample": subsample, "seed": args.seed,
                         "blas_threads": args.blas_threads,
                         "max_depth": MAX_DEPTH},
              "weak_learner": [], "runs": [], "ratios": []}
    print(f"# {report['environment']['command']}", flush=True)
    try:
        warm_up(args.boosters, args.eps)
        for dataset in args.datasets:
            X, y = load_dataset(dataset, subsample, args.seed)
            wl = {"dataset": dataset, "m": int(X.shape[0]), "p": int(X.shape[1]),
                  "tree_ms": time_oracle(EdgeTree(max_depth=MAX_DEPTH), X, y, seed=args.seed),
                  "stump_ms": time_oracle(DecisionStump(), X, y, seed=args.seed)}
            report["weak_learner"].append(wl)
            print(f"{dataset}: m={wl['m']} p={wl['p']}  tree {wl['tree_ms']:.2f} ms/call, "
                  f"stump {wl['stump_ms']:.2f} ms/call", flush=True)
            write(report, args.out)
            for nu in nus:
                for name in args.boosters:
                    r = {"dataset": dataset, **run_booster(name, X, y, nu, args.eps, max_time)}
                    report["runs"].append(r)
                    print(f"  nu={nu:g} {name:18s} rounds={r['rounds']:6d} {r['status']:9s} "
                          f"total={r['total_s']:8.2f}s wl={r['weak_learner_s']:7.2f}s "
                          f"solver={r['solver_s']:8.2f}s overhead={r['overhead']:8.1f} "
                          f"margin={r['soft_margin']:.6f}", flush=True)
                    write(report, args.out)
        report["state"] = "complete"
    except KeyboardInterrupt:
        report["state"] = "interrupted"
        print("\ninterrupted: keeping the finished runs", flush=True)
    write(report, args.out)
    print()
    print(markdown(report))
    print(f"written: {args.out / 'soft_margin.md'}, {args.out / 'soft_margin.json'}")
    return 130 if report["state"] == "interrupted" else 0


if __name__ == "__main__":
    sys.exit(main())
