"""One average-margin oracle call against one exact-stump weak-learner call (paper 003's target).

Issue 6's target: the oracle over the stump NZDD (``StumpNZDD.average_margin``, which returns
``E_h[u_h | d]`` over all of ``H_S``) costs at most 3x one call of the exact decision stump
(``DecisionStump().prepare(X, y)`` once, then called with ``d``: the best stump and its
predictions), on the same data and the same ``d``.

Per data set: the NZDD is built once (its size and build time are printed); ``eta = 2 ln|H_S| /
eps`` with eps = 0.01 (the estimator's default); three distributions:

* ``uniform``: ``d = 1/m``, Frank-Wolfe's first iterate;
* ``fw``: the iterate after ``--fw-rounds`` Frank-Wolfe rounds at nu = 0.8 m (Table 2's setting);
* ``dirichlet``: Dirichlet(1), a rougher ``d`` (largest ``2 eta d_i`` about 10x the others),
  whose log-weights drift faster along a feature, so the oracle restarts more often.

Oracle and stump calls alternate (``--repeats`` pairs after a warm-up), and the ratio is of
the best times, so a load change hits both. ``python benchmarks/nzdd_oracle.py`` prints the
table and writes it (with the command, machine and load average) to ``--out``.
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
from marginboost.average_margin.frank_wolfe import average_margin_boost  # noqa: E402
from marginboost.experiments import metadata  # noqa: E402
from marginboost.experiments.result_files import atomic_write  # noqa: E402
from marginboost.average_margin.nzdd_stumps import build_stump_nzdd  # noqa: E402
from marginboost.weak_learners import DecisionStump  # noqa: E402

DATASETS = ("ringnorm", "twonorm", "banana", "magic", "spambase")
TARGET = 3.0


def distributions(S, m: int, eta: float, fw_rounds: int, seed: int) -> dict:
    d_fw = average_margin_boost(lambda d: S.average_margin(d, eta), m, 0.8 * m, 1e-12, eta,
                                max_iter=fw_rounds + 1).d
    return {"uniform": np.full(m, 1.0 / m), "fw": d_fw,
            "dirichlet": np.random.default_rng(seed).dirichlet(np.ones(m))}


def time_pair(oracle, stump, d, repeats: int) -> tuple[float, float]:
    """Best seconds of ``oracle(d)`` and ``stump(d)``, calls alternating."""
    for _ in range(3):
        oracle(d)
        stump(d)
    best_o = best_s = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        oracle(d)
        t1 = time.perf_counter()
        stump(d)
        t2 = time.perf_counter()
        best_o, best_s = min(best_o, t1 - t0), min(best_s, t2 - t1)
    return best_o, best_s


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--fw-rounds", type=int, default=50)
    parser.add_argument("--eps", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "nzdd_oracle.md"))
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    rows = []
    header = ("| data set | m x p | H_S paths | NZDD labels | build s | d | oracle ms | stump ms | ratio |\n"
              "|---|---|---|---|---|---|---|---|---|")
    print(header)
    for name in args.datasets:
        data = datasets.load_dataset(name)
        X, y = data.X, data.y
        m, p = X.shape
        t0 = time.perf_counter()
        S = build_stump_nzdd(X, y)
        build = time.perf_counter() - t0
        eta = 2.0 * np.log(S.n_hypotheses) / args.eps
        stump = DecisionStump().prepare(X, y)
        for kind, d in distributions(S, m, eta, args.fw_rounds, args.seed).items():
            t_o, t_s = time_pair(lambda v: S.average_margin(v, eta), stump, d, args.repeats)
            rows.append((name, kind, t_o / t_s))
            line = (f"| {name} | {m} x {p} | {S.n_hypotheses} | {S.nzdd.size} | {build:.2f} | {kind} | "
                    f"{1e3 * t_o:.3f} | {1e3 * t_s:.3f} | {t_o / t_s:.2f} |")
            print(line, flush=True)
            header += "\n" + line
    worst = max(rows, key=lambda r: r[2])
    verdict = (f"largest ratio {worst[2]:.2f} ({worst[0]}, {worst[1]}): "
               f"{'meets' if worst[2] <= TARGET else 'MISSES'} the target of {TARGET:g}x")
    print(verdict)
    facts = metadata.machine_facts()
    text = "\n".join([
        "# Average-margin oracle vs exact stump: cost of one call",
        "",
        "Issue 6's target: one oracle call over the stump NZDD (`StumpNZDD.average_margin`, the "
        "average margin over all distinct stumps) costs at most 3x one exact-stump weak-learner call "
        "(`DecisionStump`, prepared once) on the same data and `d`. Best of "
        f"{args.repeats} alternating pairs; eta = 2 ln|H_S| / {args.eps:g}; `fw` is the Frank-Wolfe "
        f"iterate after {args.fw_rounds} rounds at nu = 0.8 m (see the script's docstring).",
        "",
        f"Command: `{metadata.collect({})['command']}` (run as `nice -n 10 python benchmarks/nzdd_oracle.py`)",
        "",
        f"Date {metadata.collect({})['date']}, git {metadata.git_commit()}, CPU {facts['cpu']} "
        f"({facts['cpu_count']} cores), load average before {tuple(round(v, 2) for v in load_before)}, "
        f"after {tuple(round(v, 2) for v in os.getloadavg())}.",
        "",
        header,
        "",
        verdict,
        "",
    ])
    atomic_write(Path(args.out), text)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
