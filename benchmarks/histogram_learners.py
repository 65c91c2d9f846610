"""Time per weak-learner call: exact vs histogram learners, serial vs parallel, Dask vs in memory.

Issue 7: the histogram stump and depth-2 tree (:mod:`marginboost.weak_learners.histogram`) against
the exact ones (``DecisionStump``, ``EdgeTree(2)``), each prepared once and then called with the
same ``d`` (Dirichlet(1), seeded), on synthetic ``--m`` x ``--p`` Gaussian data (continuous
features: 255 quantile bins) and on ringnorm (7400 x 20). ``parallel`` is ``n_jobs=-1`` (all OpenMP
threads). The calls of all learners of one table alternate (``--repeats`` rounds after a warm-up)
and each time is the best of its calls, so a change of load hits them all; the ratios are of
these best times, measured in the same run.

Then the Dask learners on 2 local in-process workers (``Client(processes=False, n_workers=2,
threads_per_worker=1)``, each of ``--partitions`` row partitions) against the in-memory serial ones on
``--dask-m`` x ``--p`` data: time per oracle call (one boosting round's weak-learner work,
including shipping ``d`` and collecting the predictions) and preparation time.

``python benchmarks/histogram_learners.py`` prints the tables and writes them, with the command
and machine, to ``--out``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))  # benchmark this checkout, installed or not

from marginboost.io import datasets  # noqa: E402
from marginboost.experiments import metadata  # noqa: E402
from marginboost.experiments.result_files import atomic_write  # noqa: E402
from marginboost.weak_learners import DecisionStump, EdgeTree, HistogramStump, HistogramTree  # noqa: E402


def labels(X: np.ndarray, seed: int) -> np.ndarray:
    noise = np.random.default_rng(seed).standard_normal(X.shape[0])
    return np.where(X[:, 0] * X[:, 1] + 0.5 * X[:, 2] + 0.3 * noise > 0, 1.0, -1.0)


def synthetic(m: int, p: int, seed: int):
    X = np.random.default_rng(seed).standard_normal((m, p))
    return X, labels(X, seed + 1)


def time_calls(oracles: dict, d: np.ndarray, repeats: int) -> dict:
    """Best seconds per call of each oracle, the oracles called in turn."""
    for oracle in oracles.values():
        oracle(d)
    best = dict.fromkeys(oracles, np.inf)
    for _ in range(repeats):
        for name, oracle in oracles.items():
            t0 = time.perf_counter()
            oracle(d)
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def prepare_all(learners: dict, X, y) -> tuple[dict, dict]:
    oracles, seconds = {}, {}
    for name, learner in learners.items():
        t0 = time.perf_counter()
        oracles[name] = learner.prepare(X, y)
        seconds[name] = time.perf_counter() - t0
    return oracles, seconds


def in_memory_table(label: str, X, y, repeats: int, seed: int) -> list[str]:
    m, p = X.shape
    learners = {
        "exact stump": DecisionStump(), "hist stump": HistogramStump(), "hist stump par": HistogramStump(n_jobs=-1),
        "exact tree": EdgeTree(2), "hist tree": HistogramTree(2), "hist tree par": HistogramTree(2, n_jobs=-1),
    }
    oracles, prep = prepare_all(learners, X, y)
    d = np.random.default_rng(seed).dirichlet(np.ones(m))
    # Parallel calls apart: after a parallel region the OpenMP threads spin for a while, which
    # would slow the serial calls alternating with them.
    serial = [name for name in oracles if not name.endswith("par")]
    best = time_calls({name: oracles[name] for name in serial}, d, repeats)
    best |= time_calls({name: oracles[name] for name in oracles if name not in serial}, d, repeats)
    rows = []
    for kind in ("stump", "tree"):
        exact, hist, par = best[f"exact {kind}"], best[f"hist {kind}"], best[f"hist {kind} par"]
        depth = "depth-1 stump" if kind == "stump" else "depth-2 tree"
        rows.append(f"| {label} | {m} x {p} | {depth} | {1e3 * exact:.2f} | {1e3 * hist:.2f} | {1e3 * par:.2f} | "
                    f"{exact / hist:.1f} | {exact / par:.1f} | {hist / par:.2f} | "
                    f"{prep[f'exact {kind}']:.2f} / {prep[f'hist {kind}']:.2f} |")
        print(rows[-1], flush=True)
    return rows


def dask_table(m: int, p: int, partitions: int, repeats: int, seed: int) -> list[str]:
    import dask
    import dask.array as da
    from distributed import Client

    from marginboost.weak_learners.dask_histogram import DaskHistogramStump, DaskHistogramTree

    d = np.random.default_rng(seed).dirichlet(np.ones(m))
    rows = []
    with Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None) as client:
        # Generated on the workers (not shipped from here) and kept there; a copy for in memory.
        Xd = da.random.default_rng(seed).standard_normal((m, p), chunks=(-(-m // partitions), -1)).persist()
        X = Xd.compute()
        y = labels(X, seed + 1)
        for kind, local, distant in (("depth-1 stump", HistogramStump(), DaskHistogramStump()),
                                     ("depth-2 tree", HistogramTree(2), DaskHistogramTree(2))):
            oracles, prep = prepare_all({"memory": local}, X, y)
            with dask.config.set(scheduler=client):
                dist, dist_prep = prepare_all({"dask": distant}, Xd, y)
                _, p_mem = oracles["memory"](d)
                _, p_dask = dist["dask"](d)
                same = bool(np.array_equal(p_mem, p_dask))
                best = time_calls({**oracles, **dist}, d, repeats)
            rows.append(f"| {m} x {p} | {partitions} | {kind} | {1e3 * best['memory']:.1f} | {1e3 * best['dask']:.1f} | "
                        f"{best['dask'] / best['memory']:.2f} | {prep['memory']:.1f} / {dist_prep['dask']:.1f} | "
                        f"{'yes' if same else 'no'} |")
            print(rows[-1], flush=True)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=100_000)
    parser.add_argument("--p", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--dask-m", type=int, default=1_000_000, help="0 skips the Dask table")
    parser.add_argument("--dask-repeats", type=int, default=5)
    parser.add_argument("--partitions", type=int, nargs="+", default=[2, 8])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "histogram_learners.md"))
    args = parser.parse_args(argv)
    md = metadata.collect(vars(args))
    t_start = time.perf_counter()

    head = ("| data | m x p | learner | exact ms | hist ms | hist par ms | exact / hist | exact / hist par | "
            "hist / hist par | prepare s (exact / hist) |\n|---|---|---|---|---|---|---|---|---|---|")
    print(head)
    rows = in_memory_table("synthetic", *synthetic(args.m, args.p, args.seed), args.repeats, args.seed)
    ring = datasets.load_dataset("ringnorm")
    rows += in_memory_table("ringnorm", ring.X, ring.y, args.repeats, args.seed)
    tables = [head, *rows]

    notes = ("`hist par` can only gain where cores are idle: with the load average above near the "
             "CPU count, its OpenMP threads wait for a core at every parallel region.")
    if args.dask_m:
        import dask
        import distributed

        notes += (f" Dask {dask.__version__}, distributed {distributed.__version__}: 2 in-process workers "
                  "of 1 thread on the same CPUs as the in-memory learner, which runs serially.")
        dask_head = ("| m x p | partitions | learner | in-memory ms | Dask ms | Dask / in-memory | "
                     "prepare s (memory / Dask) | same predictions |\n|---|---|---|---|---|---|---|---|")
        print(dask_head)
        tables += ["", dask_head]
        for partitions in args.partitions:
            tables += dask_table(args.dask_m, args.p, partitions, args.dask_repeats, args.seed)

    md["load_average_end"] = list(os.getloadavg())
    text = "\n".join([
        "# Histogram weak learners: time per oracle call",
        "",
        f"Command: `python benchmarks/{md['command']}`",
        "",
        *metadata.provenance_lines(md)[1:],
        "",
        "Best of the alternating calls (see the script's docstring); `par` is `n_jobs=-1` "
        f"({os.cpu_count()} CPUs here, shared with other jobs). Histogram learners: 255 bins; "
        f"d ~ Dirichlet(1). Total run {time.perf_counter() - t_start:.0f} s.",
        "",
        notes,
        "",
        *tables,
        "",
    ])
    atomic_write(Path(args.out), text)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
