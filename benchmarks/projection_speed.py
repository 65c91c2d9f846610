"""Time per call of the capped-simplex KL projection: selection (the package) vs sorting (before).

``marginboost.core.projections.capped_simplex_kl_projection`` finds the capped set by quickselect in
expected O(m); ``tests/reference.py``'s ``sorted_kl_projection`` is the O(m log m) sorting code it
replaced, verbatim. Both run single-threaded (``threadpool_limits(1)``) on the same margins, called
in turn ``--repeats`` times after a warm-up; each time is the best of its calls, so a change of
load hits both. Margins: ``uniform`` on [-1, 1] (all distinct) and ``ensemble``, the margins
``H @ w`` of 10 random +-1 hypotheses with Dirichlet weights (at most 1024 distinct values, ties
as in early boosting rounds). ``diff / cap`` is the largest ``|new - old| / cap_i`` over the
entries of that call; up to ``--exact-max-m`` examples, both are also compared with a 30-digit
decimal evaluation (``tests/reference.py``'s ``exact_kl_projection``, seconds per call at
m = 1e5): ``err / cap`` for each, the largest ``|d_i - exact_i| / cap_i``.

    python benchmarks/projection_speed.py     # writes benchmarks/results/projection_speed.md
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))  # benchmark this checkout, installed or not
sys.path.insert(0, str(REPO / "tests"))  # the sorting reference

from marginboost.experiments import metadata  # noqa: E402
from marginboost.experiments.result_files import atomic_write  # noqa: E402
from marginboost.core.projections import capped_simplex_kl_projection  # noqa: E402
from reference import exact_kl_projection, sorted_kl_projection  # noqa: E402


def margins(kind: str, m: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "uniform":
        return rng.uniform(-1.0, 1.0, m)
    H = rng.choice([-1.0, 1.0], size=(m, 10))
    return H @ rng.dirichlet(np.ones(10))


def best_times(calls: dict, repeats: int) -> dict:
    """Best seconds per call of each function, the functions called in turn."""
    for call in calls.values():
        call()
    best = dict.fromkeys(calls, np.inf)
    for _ in range(repeats):
        for name, call in calls.items():
            t0 = time.perf_counter()
            call()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, nargs="+", default=[5300, 7400, 100_000, 1_000_000])
    parser.add_argument("--eta", type=float, nargs="+", default=[10.0, 460.0, 1e6])
    parser.add_argument("--nu", type=float, nargs="+", default=[0.1, 0.5], help="fractions of m")
    parser.add_argument("--kinds", nargs="+", default=["uniform", "ensemble"])
    parser.add_argument("--budget", type=float, default=0.5, help="seconds of old calls per row (>= 5 calls)")
    parser.add_argument("--exact-max-m", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "projection_speed.md"))
    args = parser.parse_args(argv)
    md = metadata.collect(vars(args))
    t_start = time.perf_counter()
    head = ("| m | margins | nu / m | weights | eta | sorting ms | selection ms | speedup | diff / cap | "
            "selection err / cap | sorting err / cap |\n|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    print(head)
    rows = []
    rng = np.random.default_rng(args.seed)
    with threadpool_limits(1):
        for m in args.m:
            for kind in args.kinds:
                q = margins(kind, m, rng)
                raw = rng.uniform(0.5, 2.0, m)
                weighting = {"none": None, "U(0.5, 2)": raw * (m / raw.sum())}
                for frac in args.nu:
                    for wname, weights in weighting.items():
                        if wname != "none" and m != args.m[0]:
                            continue  # weights change little: one size shows it
                        for eta in args.eta:
                            nu = frac * m

                            def old(nu=nu, eta=eta, weights=weights):
                                return sorted_kl_projection(q, nu, eta, weights)

                            def new(nu=nu, eta=eta, weights=weights):
                                return capped_simplex_kl_projection(q, nu, eta, weights)

                            t0 = time.perf_counter()
                            d_old = old()
                            repeats = max(5, int(args.budget / (time.perf_counter() - t0)))
                            best = best_times({"old": old, "new": new}, repeats)
                            caps = (1.0 if weights is None else weights) / nu
                            d_new = new()
                            diff = np.max(np.abs(d_new - d_old) / caps)
                            errors = "- | -"
                            if m <= args.exact_max_m:
                                exact = exact_kl_projection(q, nu, eta, weights, digits=30)
                                errors = " | ".join(f"{np.max(np.abs(d - exact) / caps):.1e}"
                                                    for d in (d_new, d_old))
                            rows.append(f"| {m} | {kind} | {frac:g} | {wname} | {eta:g} | "
                                        f"{best['old'] * 1e3:.3f} | {best['new'] * 1e3:.3f} | "
                                        f"{best['old'] / best['new']:.1f}x | {diff:.1e} | {errors} |")
                            print(rows[-1], flush=True)
    md["load_average_end"] = list(os.getloadavg())
    text = "\n".join([
        "# Capped-simplex KL projection: selection vs sorting, time per call",
        "",
        f"Command: `python benchmarks/{md['command']}`",
        "",
        *metadata.provenance_lines(md)[1:],
        "",
        "Best of the alternating calls, single-threaded (see the script's docstring); the machine "
        f"({os.cpu_count()} CPUs) is shared with other jobs. Total run {time.perf_counter() - t_start:.0f} s.",
        "",
        head,
        *rows,
        "",
    ])
    atomic_write(Path(args.out), text)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
