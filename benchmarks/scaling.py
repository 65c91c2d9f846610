"""Scaling in m: time per round and peak memory of MLPBoost and LPBoost with stumps.

Issue 7: synthetic data with m in {10^4, 10^5, 10^6} and p = 50
(``sklearn.datasets.make_classification``: 5 informative and 5 redundant features, 5% of the
labels flipped, ``random_state=0``; float64, generated once per m and saved to a temporary
``.npy`` that each fit loads), nu = 0.1 m, eps = 0.01, ``--rounds`` (100) rounds per fit at most
and ``--max-time`` (300 s) per fit (marked TIMEOUT; its time per round is over the rounds it
completed). The boosters:

* ``MLPBoost(hist, newton)``: ``MLPBoostClassifier(weak_learner='hist_stump', secondary='newton')``,
  the fast inexact secondary rule;
* ``MLPBoost(hist, newton unit)``: the same with ``NewtonStepRule(line_search='unit')``;
* ``MLPBoost(hist, lp)``: the same with the exact LP rule (``secondary='lp'``);
* ``LPBoost(hist)``: ``LPBoostClassifier(weak_learner='hist_stump')``;
* ``MLPBoost(exact, newton)``: ``MLPBoostClassifier(weak_learner='stump', secondary='newton')``,
  the exact presorted stump, for comparison.

Each fit runs in a fresh subprocess, so that peaks of memory do not mix: it loads the data,
warms up on a 2000-row fit of the same booster, resets the process' peak RSS
(``/proc/self/clear_refs``), then times ``fit`` on the whole sample. Per fit it records rounds,
status, wall time of ``fit``, the loop's time (``history_['time'][-1]``), the weak-learner and
update seconds (sums of ``history_['weak_learner_time']`` and ``['solver_time']``), prepare =
wall - loop (input validation and binning or presorting), and the peak memory over the RSS
before ``fit``: ``VmHWM - VmRSS`` (peak RSS increase, which sees the kernels' and HiGHS' allocations
too; ``ru_maxrss`` gives the same after the reset) and, with ``--tracemalloc`` (on by default),
tracemalloc's peak during ``fit`` (numpy's and Python's allocations only), each divided by
``X.nbytes``. BLAS runs single-threaded in the rounds (the boosters do that themselves);
the histogram stump runs serially (``n_jobs=None``).

Then the growth of the time per round with m, next to m log m, and issue 7's target at
m = 10^6: 100 rounds of ``MLPBoost(hist, newton)`` in under 120 s wall time including binning,
peak memory under 4 x ``X.nbytes``.

    nice -n 10 python benchmarks/scaling.py --profile 100   # m in {1e4, 1e5, 1e6}, + cProfile at 1e6
    nice -n 10 python benchmarks/scaling.py --quick         # m in {1e4, 1e5}
    nice -n 10 python benchmarks/scaling.py --resume        # skip the fits already in the md
    python benchmarks/scaling.py --rerender                 # rewrite the tables from the md's records

The markdown (``--out``) is rewritten after every fit and ends with the raw records as JSON,
which ``--resume`` reads back: an interrupted run keeps (and can continue from) what finished.
A fit still inside a round ``--grace`` s after ``--max-time`` is killed; its record keeps the
rounds it completed (from a log of the oracle calls, whose learner is the named one wrapped),
how long the running round had lasted, and its peak memory so far. A hand-written
``## Analysis`` section survives ``--resume`` and ``--rerender``.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))  # benchmark this checkout, installed or not

P = 50
NU = 0.1
EPS = 0.01
SIZES = (10**4, 10**5, 10**6)
QUICK_SIZES = (10**4, 10**5)
TARGET_M, TARGET_S, TARGET_MEM = 10**6, 120.0, 4.0
TARGET_BOOSTER = "MLPBoost(hist, newton)"
WARMUP_ROWS = 2000
STARTUP_LIMIT = 600.0  # seconds for a worker to load the data and warm up before its fit
STATUS = {"converged": "converged", "max_time": "TIMEOUT", "max_iter": "max_iter", "interrupted": "interrupted"}


BOOSTERS = {  # name -> (estimator, weak learner, secondary rule)
    "MLPBoost(hist, newton)": ("MLPBoostClassifier", "hist_stump", "newton"),
    # the same rule with line_search='unit' (NewtonStepRule): ~3 projections a round instead of ~7
    "MLPBoost(hist, newton unit)": ("MLPBoostClassifier", "hist_stump", "newton unit"),
    "MLPBoost(hist, lp)": ("MLPBoostClassifier", "hist_stump", "lp"),
    "LPBoost(hist)": ("LPBoostClassifier", "hist_stump", None),
    "MLPBoost(exact, newton)": ("MLPBoostClassifier", "stump", "newton"),
}


def make_estimator(name: str, weak_learner=None, **kw):
    """The estimator of ``BOOSTERS[name]``; ``weak_learner`` replaces the named one (same learner, logged)."""
    import marginboost

    cls, learner, secondary = BOOSTERS[name]
    if secondary == "newton unit":
        from marginboost.soft_margin.secondary import NewtonStepRule

        kw["secondary"] = NewtonStepRule(line_search="unit")
    elif secondary is not None:
        kw["secondary"] = secondary
    return getattr(marginboost, cls)(weak_learner=learner if weak_learner is None else weak_learner, **kw)


def logged_learner(name: str, log):
    """The named weak learner, with the wall-clock start of every oracle call appended to ``log``:
    the parent reads it if it has to kill the fit (a round can outlast ``max_time`` by far)."""
    from marginboost.weak_learners import WeakLearner, resolve_weak_learner

    class Logged(WeakLearner):
        def __init__(self):
            self.inner = resolve_weak_learner(name)

        def prepare(self, X, y):
            oracle = self.inner.prepare(X, y)

            def call(d):
                log.write(f"call {time.time():.6f}\n")
                log.flush()
                return oracle(d)
            return call

    return Logged()


BOOSTER_NAMES = tuple(BOOSTERS)


# ------------------------------------------------------------------ data


def make_data(m: int, seed: int = 0):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=m, n_features=P, n_informative=5, n_redundant=5, flip_y=0.05,
                               class_sep=1.0, random_state=seed)
    return np.ascontiguousarray(X, dtype=np.float64), np.where(y == 1, 1.0, -1.0)


def save_data(m: int, folder: Path, seed: int) -> tuple[Path, Path, float]:
    t0 = time.perf_counter()
    X, y = make_data(m, seed)
    seconds = time.perf_counter() - t0
    px, py = folder / f"X_{m}.npy", folder / f"y_{m}.npy"
    np.save(px, X)
    np.save(py, y)
    return px, py, seconds


# ------------------------------------------------------------------ one fit (in a fresh process)


def _status_kb() -> dict:
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmHWM:", "VmRSS:")):
                key, value = line.split(":")
                out[key] = int(value.split()[0]) * 1024
    return out


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def worker(args) -> dict:
    X, y = np.load(args.X), np.load(args.y)
    kw = dict(nu=NU, eps=EPS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # first allocations, library loading
        make_estimator(args.booster, max_iter=5, **kw).fit(X[:WARMUP_ROWS], y[:WARMUP_ROWS])
    if args.profile_rounds:
        return profile_fit(X, y, args, kw)
    log = open(args.progress, "w") if args.progress else open(os.devnull, "w")
    learner = logged_learner(BOOSTERS[args.booster][1], log)
    est = make_estimator(args.booster, weak_learner=learner, max_iter=args.rounds, max_time=args.max_time, **kw)
    gc.collect()
    reset = _reset_peak()
    before = _status_kb()
    ru_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    log.write(json.dumps(dict(m=int(X.shape[0]), p=int(X.shape[1]), x_nbytes=int(X.nbytes), rss_before=before["VmRSS"],
                              peak_reset=reset)) + "\n")
    if args.tracemalloc:
        tracemalloc.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TIMEOUTs are reported in the table
        log.write(f"fit {time.time():.6f}\n")
        log.flush()
        t0 = time.perf_counter()
        est.fit(X, y)
        wall = time.perf_counter() - t0
    log.close()
    traced = tracemalloc.get_traced_memory()[1] if args.tracemalloc else None
    tracemalloc.stop()
    after = _status_kb()
    ru_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    h = est.history_
    rounds = int(est.n_iter_)
    loop = float(h["time"][-1])
    return dict(
        m=int(X.shape[0]), p=int(X.shape[1]), booster=args.booster, rounds=rounds, status=STATUS[est.status_],
        wall=wall, loop=loop, prepare=wall - loop, wl=float(h["weak_learner_time"].sum()),
        update=float(h["solver_time"].sum()), soft_margin=float(est.margin_), gap=float(est.gap_),
        n_hypotheses=int(h["n_hypotheses"][-1]), x_nbytes=int(X.nbytes),
        rss_before=before["VmRSS"], peak_rss=after["VmHWM"] - before["VmRSS"] if reset else None,
        ru_maxrss_increase=ru_after - ru_before if reset else ru_after - before["VmRSS"],
        traced_peak=traced, peak_reset=reset, tracemalloc=bool(args.tracemalloc),
        max_time=args.max_time, max_iter=args.rounds, round_times=[round(float(t), 4) for t in h["time"]],
    )


def profile_fit(X, y, args, kw, top: int = 14) -> dict:
    """cProfile one fit of ``args.profile_rounds`` rounds: the functions of largest own time."""
    import cProfile
    import pstats

    est = make_estimator(args.booster, max_iter=args.profile_rounds, **kw)
    prof = cProfile.Profile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        prof.runcall(est.fit, X, y)
        wall = time.perf_counter() - t0
    stats = pstats.Stats(prof).stats
    rows = []
    for (path, line, func), (_, ncalls, tottime, cumtime, _) in stats.items():
        where = path.split("/src/")[-1].split("site-packages/")[-1] if path != "~" else ""
        rows.append(dict(function=f"{where}:{line}({func})" if where else func, ncalls=ncalls, tottime=tottime,
                         cumtime=cumtime))
    rows.sort(key=lambda r: -r["tottime"])
    h = est.history_
    return dict(m=int(X.shape[0]), booster=args.booster, rounds=int(est.n_iter_), status=STATUS[est.status_], wall=wall,
                loop=float(h["time"][-1]), wl=float(h["weak_learner_time"].sum()),
                update=float(h["solver_time"].sum()), top=rows[:top])


# ------------------------------------------------------------------ report


def mib(nbytes) -> str:
    return "-" if nbytes is None else f"{nbytes / 2**20:.0f}"


def ratio_x(nbytes, r) -> str:
    return "-" if nbytes is None else f"{nbytes / r['x_nbytes']:.2f}"


def mlogm(m: int) -> float:
    return m * math.log(m)


def seconds_per_round(r: dict, k: int | None = None) -> float | None:
    """Loop seconds per round over the first ``k`` rounds (all completed ones by default)."""
    k = r.get("rounds", 0) if k is None else k
    if "error" in r or k < 1:
        return None
    return r["round_times"][k - 1] / k


def growth_cell(ra: dict | None, rb: dict | None, ref: float) -> str:
    sa = None if ra is None else seconds_per_round(ra)
    if sa is None or rb is None or ("error" in rb and "killed_after" not in rb):
        return f"- | {ref:.1f} | -"
    if rb.get("status") == "KILLED" and ra["rounds"] > rb["rounds"]:
        # Killed while round k = rounds + 1 ran: its first k rounds took longer than this.
        k = rb["rounds"] + 1
        low = ((rb["round_times"][-1] if rb["rounds"] else 0.0) + rb["running_round"]) / ra["round_times"][k - 1]
        return (f"> {low:.0f} | {ref:.1f} | **worse than m log m** (first {k} rounds; round {k} still running after "
                f"{rb['running_round']:.0f} s)")
    k = min(ra["rounds"], rb["rounds"])
    got = seconds_per_round(rb, k) / seconds_per_round(ra, k)
    verdict = "m log m or better" if got <= ref else "**worse than m log m**"
    return f"{got:.1f} | {ref:.1f} | {verdict} (first {k} rounds)"


def growth_lines(records: list[dict]) -> list[str]:
    by = {(r["m"], r["booster"]): r for r in records}
    ms = sorted({r["m"] for r in records})
    pairs = list(zip(ms, ms[1:]))
    if not pairs:
        return ["(needs two sizes)"]
    head = "| booster | " + " | ".join(f"{b:.0e} / {a:.0e}: per-round ratio | m log m ratio | verdict" for a, b in pairs)
    lines = [head.replace("e+0", "e") + " |", "|---|" + "---:|---:|---|" * len(pairs)]
    for name in BOOSTER_NAMES:
        cells = [growth_cell(by.get((a, name)), by.get((b, name)), mlogm(b) / mlogm(a)) for a, b in pairs]
        if any(not c.startswith("-") for c in cells):
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def target_lines(records: list[dict]) -> list[str]:
    r = next((r for r in records if r["m"] == TARGET_M and r["booster"] == TARGET_BOOSTER and "error" not in r), None)
    if r is None:
        return [f"Target (m = 10^6, {TARGET_BOOSTER}): not measured in this run."]
    time_ok = r["wall"] < TARGET_S and (r["rounds"] >= 100 or r["status"] == "converged")
    peak = r["peak_rss"] if r["peak_rss"] is not None else r["ru_maxrss_increase"]
    mem = peak / r["x_nbytes"]
    traced = "" if r["traced_peak"] is None else f" (tracemalloc peak {r['traced_peak'] / r['x_nbytes']:.2f} x)"
    return [
        f"Target (issue 7), m = 10^6, p = 50, {TARGET_BOOSTER}: {r['rounds']} rounds ({r['status']}) in "
        f"{r['wall']:.1f} s wall including {r['prepare']:.1f} s of validation and binning, against < {TARGET_S:.0f} s: "
        f"**{'met' if time_ok else 'missed'}**; peak memory increase {mem:.2f} x X.nbytes{traced} against < "
        f"{TARGET_MEM:g} x: **{'met' if mem < TARGET_MEM else 'missed'}**.",
    ]


def _ms(value) -> str:
    return "-" if value is None else f"{1e3 * value:.2f}"


def fit_table(records: list[dict]) -> list[str]:
    lines = ["| m | booster | rounds | status | fit s | prepare s | loop s | ms / round | weak learner ms / round "
             "| update ms / round | other ms / round | peak RSS MiB | peak RSS / X | tracemalloc peak / X "
             "| soft margin |",
             "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in records:
        if "error" in r:
            lines.append(f"| {r['m']:.0e} | {r['booster']} | - | **{r['error']}** |" + " - |" * 11)
            continue
        n = max(r["rounds"], 1)
        peak = r["peak_rss"] if r.get("peak_rss") is not None else r.get("ru_maxrss_increase")
        status = r["status"]
        if status == "KILLED":
            status = f"**KILLED** at {r['killed_after']:g} s, round {r['rounds'] + 1} running for {r['running_round']:.1f} s"
            wl = update = other = None
            margin = "-"
        else:
            wl, update = r["wl"] / n, r["update"] / n
            other = (r["loop"] - r["wl"] - r["update"]) / n
            margin = f"{r['soft_margin']:.4f}"
        lines.append(
            f"| {r['m']:.0e} | {r['booster']} | {r['rounds']} | {status} | {r['wall']:.2f} | {r['prepare']:.2f} | "
            f"{r['loop']:.2f} | {_ms(seconds_per_round(r))} | {_ms(wl)} | {_ms(update)} | {_ms(other)} | "
            f"{mib(peak)} | {ratio_x(peak, r)} | {ratio_x(r.get('traced_peak'), r)} | {margin} |")
    return [ln.replace("e+0", "e") for ln in lines]


def profile_lines(prof: dict | None) -> list[str]:
    if not prof:
        return []
    lines = ["", f"## Profile: cProfile of one fit, m = {prof['m']:.0e}, {prof['booster']}, at most "
             f"{prof['max_iter']} rounds".replace("e+0", "e"), "",
             f"{prof['rounds']} rounds ({prof['status']}); fit {prof['wall']:.1f} s under the profiler, of which loop "
             f"{prof['loop']:.1f} s (weak learner {prof['wl']:.1f} s, update {prof['update']:.1f} s). The functions "
             "of largest own time (tottime):", "",
             "| function | calls | own s | share of fit | cumulative s |", "|---|---:|---:|---:|---:|"]
    for r in prof["top"]:
        lines.append(f"| `{r['function']}` | {r['ncalls']} | {r['tottime']:.2f} | "
                     f"{100 * r['tottime'] / prof['wall']:.0f}% | {r['cumtime']:.2f} |")
    return lines


def render(md: dict, records: list[dict], data_info: dict, done: bool) -> str:
    from marginboost.experiments.metadata import provenance_lines

    lines = ["# Scaling in m: time per round and peak memory (issue 7)", "", *provenance_lines(md), ""]
    if not done:
        lines += ["**Incomplete**: the run was interrupted or is still going; the rows below are the finished fits.", ""]
    gen = ", ".join(f"m = {m:.0e}: {s:.1f} s" for m, s in sorted(data_info.items())).replace("e+0", "e")
    lines += [
        f"Data: `make_classification(n_samples=m, n_features={P}, n_informative=5, n_redundant=5, flip_y=0.05, "
        f"random_state={md['parameters']['seed']})`, float64 (X.nbytes = 400 m bytes)"
        + (f"; generation {gen}" if gen else "") + ". "
        f"nu = {NU} m, eps = {EPS}, at most {md['parameters']['rounds']} rounds and {md['parameters']['max_time']:g} s "
        "per fit (TIMEOUT: the times per round are over the rounds completed). Each fit in a fresh process after a "
        f"{WARMUP_ROWS}-row warm-up fit; single-threaded BLAS in the rounds, serial histograms.",
        "",
        "fit s = wall time of `fit`; loop s = `history_['time'][-1]`; prepare = fit - loop (input validation and "
        "binning / presorting); weak learner and update = sums of `history_['weak_learner_time']` and "
        "`['solver_time']`; other = loop - weak learner - update (the loop's own work per round: margins, "
        "the column store, the reported soft margin, the history). Peak RSS = increase of the process' peak "
        "resident memory over its resident memory just before `fit` (peak reset by `/proc/self/clear_refs`; sees "
        "the kernels' and HiGHS' allocations); tracemalloc peak = peak of numpy's and Python's allocations during "
        "`fit`. Both are divided by X.nbytes.",
        "",
        "## Per fit",
        "",
        *fit_table(records),
        "",
        "## Growth of the time per round (loop s / rounds) with m",
        "",
        *growth_lines(records),
        "",
        "Per-round ratio = (loop seconds per round at the larger m) / (the same at the smaller m), both over "
        "the first k rounds, k the fewer rounds of the two fits (the cost of a round grows with the number "
        "of hypotheses, so only equal rounds compare). The m log m ratio is (10 m log(10 m)) / (m log m).",
        "",
        "## Target",
        "",
        *target_lines(records),
    ]
    lines += profile_lines(md.get("profile"))
    if md.get("notes"):
        lines += ["", "## Notes", "", *md["notes"]]
    if md.get("analysis"):
        lines += ["", md["analysis"].rstrip()]
    lines += ["", "## Raw records", "", "```json", "[", ",\n".join(json.dumps(r) for r in records), "]", "```"]
    if md.get("profile"):
        lines += ["", "```json profile", json.dumps(md["profile"]), "```"]
    keep = {k: v for k, v in md.items() if k not in ("profile", "analysis")}
    lines += ["", "```json provenance", json.dumps({**keep, "data_seconds": data_info, "done": done}), "```"]
    return "\n".join(lines) + "\n"


def read_records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    found = re.search(r"## Raw records\s*```json\n(.*?)\n```", path.read_text(), re.S)
    return json.loads(found.group(1)) if found else []


def read_profile(path: Path) -> dict | None:
    found = re.search(r"```json profile\n(.*?)\n```", path.read_text(), re.S) if path.exists() else None
    return json.loads(found.group(1)) if found else None


def read_provenance(path: Path) -> dict | None:
    found = re.search(r"```json provenance\n(.*?)\n```", path.read_text(), re.S) if path.exists() else None
    return json.loads(found.group(1)) if found else None


def rerender(out: Path) -> None:
    """Rewrite ``out`` from its own raw blocks (after a change to the tables' code): same run, same header."""
    from marginboost.experiments.result_files import atomic_write

    md = read_provenance(out)
    if md is None:
        raise SystemExit(f"{out} has no provenance block to re-render from")
    data_info = {int(k): v for k, v in md.pop("data_seconds").items()}
    done = md.pop("done")
    md["profile"], md["analysis"] = read_profile(out), read_analysis(out)
    records = sorted(read_records(out), key=lambda r: (r["m"], BOOSTER_NAMES.index(r["booster"])))
    atomic_write(out, render(md, records, data_info, done))


def read_analysis(path: Path) -> str | None:
    """The hand-written '## Analysis' section (kept by --resume; a fresh run drops it)."""
    found = re.search(r"(## Analysis\n.*?)(?=\n## Raw records)", path.read_text(), re.S) if path.exists() else None
    return found.group(1) if found else None


# ------------------------------------------------------------------ driver


def _peak_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _fit_start(progress: Path) -> float | None:
    try:
        for line in progress.read_text().splitlines():
            if line.startswith("fit "):
                return float(line.split()[1])
    except OSError:
        pass
    return None


def killed_record(progress: Path, killed_at: float, peak: int | None, limit: float) -> dict:
    """What a fit killed after ``limit`` s did: rounds completed and their times from the oracle
    log (round k ends when call k + 1 starts), the round still running, peak memory so far."""
    info, calls, fit_start = {}, [], None
    for line in progress.read_text().splitlines() if progress.exists() else []:
        if line.startswith("{"):
            info = json.loads(line)
        elif line.startswith("fit "):
            fit_start = float(line.split()[1])
        elif line.startswith("call "):
            calls.append(float(line.split()[1]))
    out = {"error": f"killed after {limit:g} s", "killed_after": limit, **info}
    if fit_start is None or not calls:
        return out
    del out["error"]
    loop_start = calls[0]
    rounds = len(calls) - 1
    out.update(rounds=rounds, status="KILLED", wall=killed_at - fit_start, prepare=loop_start - fit_start,
               loop=killed_at - loop_start, round_times=[round(c - loop_start, 4) for c in calls[1:]],
               running_round=killed_at - calls[-1], peak_rss=None if peak is None or not info.get("peak_reset")
               else peak - info["rss_before"])
    return out


def run_one(px: Path, py: Path, name: str, args, progress: Path) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--X", str(px), "--y", str(py),
           "--booster", name, "--rounds", str(args.rounds), "--max-time", str(args.max_time),
           "--progress", str(progress)]
    if not args.tracemalloc:
        cmd.append("--no-tracemalloc")
    limit = args.max_time + args.grace  # seconds of fit, from the worker's 'fit' line
    progress.unlink(missing_ok=True)  # not the last fit's
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        with ThreadPoolExecutor(1) as pool:  # drain the pipes while polling
            pending = pool.submit(proc.communicate)
            fit_start, started = None, time.time()
            while True:
                try:
                    stdout, stderr = pending.result(timeout=1.0)
                    break
                except FuturesTimeout:
                    pass
                fit_start = fit_start or _fit_start(progress)
                now = time.time()
                if (fit_start is not None and now - fit_start > limit) or now - started > limit + STARTUP_LIMIT:
                    peak = _peak_of(proc.pid)
                    proc.kill()
                    pending.result()
                    return killed_record(progress, now, peak, limit)
    if proc.returncode != 0:
        tail = (stderr or stdout).strip().splitlines()[-1:] or ["?"]
        return {"error": f"exit {proc.returncode}: {tail[0][:120]}"}
    return json.loads(stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="m in {1e4, 1e5} only")
    parser.add_argument("--sizes", type=int, nargs="+", help="override the sizes m")
    parser.add_argument("--boosters", nargs="+", choices=BOOSTER_NAMES, default=list(BOOSTER_NAMES))
    parser.add_argument("--rounds", type=int, default=100, help="max_iter of each fit (default 100)")
    parser.add_argument("--max-time", type=float, default=300.0, help="max_time of each fit in s (default 300)")
    parser.add_argument("--grace", type=float, default=300.0,
                        help="kill a fit after max_time + this many seconds of fit (default 300; max_time is "
                             "only tested between rounds); the record keeps the rounds it completed")
    parser.add_argument("--no-tracemalloc", dest="tracemalloc", action="store_false",
                        help="skip tracemalloc (it slows Python-heavy rounds a little)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true", help="keep the fits already in --out and skip them")
    parser.add_argument("--profile", type=int, default=0, metavar="ROUNDS",
                        help="also cProfile one fit of ROUNDS rounds of the target booster at the largest m")
    parser.add_argument("--rerender", action="store_true",
                        help="only rewrite --out from its raw records (same run, same header); runs nothing")
    parser.add_argument("--out", default=str(HERE / "results" / "scaling.md"))
    # internal: one fit in this process
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--booster", help=argparse.SUPPRESS)
    parser.add_argument("--X", help=argparse.SUPPRESS)
    parser.add_argument("--y", help=argparse.SUPPRESS)
    parser.add_argument("--progress", help=argparse.SUPPRESS)
    parser.add_argument("--profile-rounds", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args)))
        return 0

    if args.rerender:
        rerender(Path(args.out))
        return 0
    from marginboost.experiments.metadata import collect, machine_facts
    from marginboost.experiments.result_files import atomic_write

    sizes = tuple(args.sizes) if args.sizes else (QUICK_SIZES if args.quick else SIZES)
    out = Path(args.out)
    md = collect({"sizes": list(sizes), "p": P, "nu": NU, "eps": EPS, "rounds": args.rounds,
                  "max_time": args.max_time, "seed": args.seed, "boosters": args.boosters,
                  "tracemalloc": args.tracemalloc, "profile": args.profile})
    niceness = os.nice(0)
    md["command"] = (f"nice -n {niceness} " if niceness else "") + "python benchmarks/" + md["command"]
    same = lambda r: r.get("max_iter") == args.rounds and r.get("max_time") == args.max_time  # noqa: E731
    records = [r for r in read_records(out) if same(r)] if args.resume else []
    resumed = len(records)
    if args.resume:
        md["analysis"] = read_analysis(out)
        old = read_profile(out)
        if old and old.get("max_iter") == args.profile:
            md["profile"] = old
    data_info: dict = {}
    started = time.perf_counter()

    def write(done: bool) -> None:
        md["load_average_end"] = machine_facts()["load_average"]
        md["notes"] = [f"Total run {time.perf_counter() - started:.0f} s."]
        if resumed:
            md["notes"].append(f"Resumed: {resumed} fits were kept from an earlier run of the same settings "
                               "(its command and machine state are not repeated here).")
        atomic_write(out, render(md, sorted(records, key=lambda r: (r["m"], BOOSTER_NAMES.index(r["booster"]))),
                                 data_info, done))

    with tempfile.TemporaryDirectory(prefix="scaling-") as tmp:
        for m in sizes:
            todo = [b for b in args.boosters if not any(r["m"] == m and r["booster"] == b for r in records)]
            profile = args.profile and m == max(sizes) and "profile" not in md
            if not todo and not profile:
                continue
            px, py, data_info[m] = save_data(m, Path(tmp), args.seed)
            print(f"m = {m}: data in {data_info[m]:.1f} s", flush=True)
            for name in todo:
                r = run_one(px, py, name, args, Path(tmp) / "progress.log")
                if "error" in r:
                    r.update(m=m, booster=name, max_iter=args.rounds, max_time=args.max_time)
                    print(f"  {name}: {r['error']}", flush=True)
                else:
                    r.setdefault("max_iter", args.rounds)
                    r.setdefault("max_time", args.max_time)
                    r.setdefault("booster", name)
                    peak = r["peak_rss"] if r.get("peak_rss") is not None else r.get("ru_maxrss_increase")
                    print(f"  {name}: {r['rounds']} rounds {r['status']}, fit {r['wall']:.1f} s (prepare "
                          f"{r['prepare']:.1f} s), {_ms(seconds_per_round(r))} ms/round, peak RSS "
                          f"{ratio_x(peak, r)} x X", flush=True)
                records.append(r)
                write(done=False)
            if profile:
                print(f"  profiling {TARGET_BOOSTER}, {args.profile} rounds", flush=True)
                cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--X", str(px), "--y", str(py),
                       "--booster", TARGET_BOOSTER, "--profile-rounds", str(args.profile)]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode == 0:
                    md["profile"] = {**json.loads(proc.stdout.strip().splitlines()[-1]), "max_iter": args.profile}
                else:
                    print("  profile failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1], flush=True)
                write(done=False)
            os.remove(px)
            os.remove(py)
    write(done=True)
    print("\n".join(growth_lines(records)))
    print("\n".join(target_lines(records)))
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
