"""Time to eps of the soft-margin boosters whose per-round work issue 17 changed, summed over subsamples.

Per-round costs (``speed_targets.py``) say what a round costs; a change to the Newton rule or to a
line search also changes the path, and with it the number of rounds. One fit per setting cannot
tell the two apart: a change in the last bits of a step moves a fit's round count by 10-30% either
way (banana, nu = 0.5m: 34, 46, 57, 65 rounds for four equally good line searches). So each
setting here is fitted on ``--subsamples`` stratified subsamples (``--fraction`` of the rows,
seeds 0, 1, ...) and the rounds and fit times are summed.

Settings: ringnorm, twonorm, banana (KEEL) x nu in {0.1m, 0.5m}, eps = 0.01, depth-2 edge trees
(the estimators' default ``'tree'``), to convergence. Boosters: ``MLPBoostClassifier(secondary=
'newton')`` and ``ERLPBoostClassifier()`` (the entropy master solved to its tolerance); on request
(``--boosters``) ``CERLPBoostClassifier()`` too (FW short steps alone: the loop without a secondary
rule, against which the Newton rule's cost per round is paid back in rounds or not).

``--src DIR`` imports marginboost from ``DIR`` (another checkout's ``src``, e.g. a ``git
worktree`` of an older commit) so that two versions are measured by the same script on the same
machine; ``--label`` names the run and ``--append`` adds it to ``--out`` under the runs there.

    python benchmarks/time_to_eps.py --src /tmp/old/src --label before --out R.md
    python benchmarks/time_to_eps.py --label after --append --out R.md
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

SETS = ("ringnorm", "twonorm", "banana")
BOOSTERS = ("MLPBoost(newton)", "ERLPBoost", "C-ERLPBoost")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=str(REPO / "src"), help="directory to import marginboost from")
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "time_to_eps.md"))
    parser.add_argument("--append", action="store_true", help="add this run to --out instead of replacing it")
    parser.add_argument("--sets", nargs="+", default=list(SETS))
    parser.add_argument("--nu", type=float, nargs="+", default=[0.1, 0.5], help="fractions of m")
    parser.add_argument("--boosters", nargs="+", default=list(BOOSTERS[:2]), choices=BOOSTERS)
    parser.add_argument("--subsamples", type=int, default=5)
    parser.add_argument("--fraction", type=float, default=0.9)
    parser.add_argument("--max-iter", type=int, default=None,
                        help="the estimators' max_iter (their default, 1000, if not given; C-ERLPBoost needs ~10^4)")
    args = parser.parse_args(argv)

    sys.path.insert(0, args.src)
    import numpy as np
    from sklearn.model_selection import train_test_split

    from marginboost import CERLPBoostClassifier, ERLPBoostClassifier, MLPBoostClassifier
    from marginboost.experiments import metadata
    from marginboost.io import datasets

    make = {"MLPBoost(newton)": lambda nu: MLPBoostClassifier(nu=nu, eps=0.01, secondary="newton"),
            "ERLPBoost": lambda nu: ERLPBoostClassifier(nu=nu, eps=0.01),
            "C-ERLPBoost": lambda nu: CERLPBoostClassifier(nu=nu, eps=0.01)}
    md = metadata.collect({k: v for k, v in vars(args).items() if k not in ("out", "append")})
    rows, totals = [], {b: [0, 0.0] for b in args.boosters}
    for name in args.sets:
        data = datasets.load_dataset(name)
        X, y = np.asarray(data.X, dtype=np.float64), np.asarray(data.y)
        subsamples = []
        for seed in range(args.subsamples):
            keep, _ = train_test_split(np.arange(y.shape[0]), train_size=args.fraction, stratify=y, random_state=seed)
            keep.sort()
            subsamples.append((X[keep], y[keep]))
        for nu in args.nu:
            for booster in args.boosters:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # its max_iter warning
                    make[booster](nu).set_params(max_iter=3).fit(*subsamples[0])  # compile, load: not timed
                rounds, seconds, statuses = 0, 0.0, set()
                for Xs, ys in subsamples:
                    est = make[booster](nu)
                    if args.max_iter is not None:
                        est.set_params(max_iter=args.max_iter)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        t0 = time.perf_counter()
                        est.fit(Xs, ys)
                        seconds += time.perf_counter() - t0
                    rounds += int(est.n_iter_)
                    statuses.add(est.status_)
                rows.append((name, f"{nu:g}m", booster, rounds, seconds, "/".join(sorted(statuses))))
                totals[booster][0] += rounds
                totals[booster][1] += seconds
                print(f"{name} nu={nu:g}m {booster}: {rounds} rounds, {seconds:.3f} s ({rows[-1][-1]})", flush=True)

    lines = [f"## {args.label}", "", *metadata.provenance_lines(md), "",
             f"Sums over {args.subsamples} stratified subsamples of {args.fraction:g} of the rows (seeds 0-"
             f"{args.subsamples - 1}); eps = 0.01, depth-2 edge trees, to convergence.", "",
             "| data | nu | booster | rounds (sum) | fit s (sum) | status |", "|---|---|---|---|---|---|"]
    lines += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.3f} | {r[5]} |" for r in rows]
    lines += [f"| **all** | - | {b} | {t[0]} | {t[1]:.3f} | - |" for b, t in totals.items()]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    head = ["# Time to eps, summed over subsamples (issue 17)", "",
            "Written by `benchmarks/time_to_eps.py` (its docstring says what and why); one section per run,",
            "each with the commit it measured.", ""]
    previous = out.read_text().splitlines() if args.append and out.exists() else head
    out.write_text("\n".join(previous + [""] + lines) + "\n")
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
