"""Time per round of every MABoost variant against our AdaBoost, same weak learner, same data.

Issue 5's target: within 1.5x of AdaBoost per round. AdaBoost is :func:`marginboost.mirror.maboost.adaboost`
(entropy, simplex, AdaBoost's coefficient) run by the same loop, so the ratio is the cost of
the variant's projection and step over AdaBoost's normalisation. One run measures everything:
the weak learner is prepared once per (data set, learner) and shared; every repeat runs all
configurations (AdaBoost included) in a fresh random order, ``--rounds`` rounds each; a
configuration's time per round is its best repeat (the least disturbed by other processes),
and the ratio divides it by AdaBoost's best. The median over repeats of the per-repeat ratio
(variant / AdaBoost of the same repeat) is printed beside it as a check on the noise.

    nice -n 10 python benchmarks/maboost_speed.py            # writes benchmarks/results/maboost_speed.md
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from marginboost.io.datasets import load_dataset
from marginboost.experiments.metadata import collect
from marginboost.experiments.result_files import atomic_write
from marginboost.mirror.maboost import adaboost, maboost, madaboost, mirror_ascent_boost
from marginboost.weak_learners import DecisionStump, EdgeTree

TARGET = 1.5
SMOOTHNESS = 0.1


def configurations(m: int) -> dict:
    """name -> the parts of one run on ``m`` examples (AdaBoost first)."""
    secondary = np.arange(m) % 5 == 0  # a fifth of the sample is the capped secondary set
    out = {"AdaBoost": lambda: adaboost(m)}
    for regularizer in ("entropy", "l2"):
        for update in ("active", "lazy"):
            for variant in ("normal", "maxmargin", "smooth", "combined"):
                out[f"{regularizer} {update} {variant}"] = (
                    lambda r=regularizer, u=update, v=variant: maboost(m, r, u, v, smoothness=SMOOTHNESS,
                                                                       secondary=secondary))
    out["l2 active sparse (SparseBoost)"] = lambda: maboost(m, "l2", "active", "sparse")
    out["MadaBoost (paper step)"] = lambda: madaboost(m, "paper")
    out["MadaBoost (AdaBoost step)"] = lambda: madaboost(m, "adaboost")
    return out


def measure(oracle, y, configs: dict, rounds: int, repeats: int, rng) -> dict:
    """``{name: [ms per round of each repeat]}``, configurations interleaved in random order."""
    times = {name: [] for name in configs}
    names = list(configs)
    for _ in range(repeats):
        for i in rng.permutation(len(names)):
            name = names[i]
            parts = configs[name]()
            start = time.perf_counter()
            result = mirror_ascent_boost(oracle, y, parts, rounds)
            times[name].append((time.perf_counter() - start) / max(result.n_iter, 1) * 1e3)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["ringnorm", "twonorm"])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="benchmarks/results/maboost_speed.md")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    load_before = os.getloadavg()
    learners = {"stump": DecisionStump(), "depth-2 tree": EdgeTree(max_depth=2)}
    sections, worst = [], {}
    for name in args.datasets:
        data = load_dataset(name)
        for learner_name, learner in learners.items():
            oracle = learner.prepare(data.X, data.y)
            oracle(np.full(data.y.shape[0], 1.0 / data.y.shape[0]))  # warm-up (compilation, caches)
            configs = configurations(data.y.shape[0])
            times = measure(oracle, data.y, configs, args.rounds, args.repeats, rng)
            base = min(times["AdaBoost"])
            paired = {k: np.median(np.asarray(v) / np.asarray(times["AdaBoost"])) for k, v in times.items()}
            title = f"{name} (m = {data.shape[0]}, p = {data.shape[1]}), {learner_name}"
            lines = [f"### {title}", "", "| variant | ms per round (best) | ratio to AdaBoost | median paired ratio "
                     f"| within {TARGET}x |", "|---|---:|---:|---:|:---:|"]
            print(title)
            for k, v in times.items():
                ratio = min(v) / base
                worst[(learner_name, k)] = max(worst.get((learner_name, k), 0.0), ratio)
                lines.append(f"| {k} | {min(v):.3f} | {ratio:.2f} | {paired[k]:.2f} | "
                             f"{'yes' if ratio <= TARGET else '**no**'} |")
                print(f"  {k:<32} {min(v):8.3f} ms  x{ratio:5.2f}  (median paired x{paired[k]:.2f})")
            sections.append("\n".join(lines))
    load_after = os.getloadavg()
    meta = collect({"datasets": args.datasets, "rounds": args.rounds, "repeats": args.repeats, "seed": args.seed,
                    "smoothness": SMOOTHNESS, "secondary": "every 5th example"})
    misses = sorted({k for (lrn, k), r in worst.items() if r > TARGET})
    header = [
        "# MABoost: time per round against our AdaBoost",
        "",
        f"Command: `nice -n 10 python benchmarks/{meta['command']}` ({meta['date']}, git "
        f"{meta['git_commit'] or '?'}, numpy {meta['versions'].get('numpy')}, {meta['machine']['cpu']}).",
        "",
        f"Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}; after: "
        f"{', '.join(f'{x:.2f}' for x in load_after)} (the machine has {os.cpu_count()} cores and is shared, "
        "so single timings are noisy; see the method below).",
        "",
        f"Method: AdaBoost = `marginboost.mirror.maboost.adaboost` in the same loop and with the same prepared weak "
        f"learner; {args.rounds} rounds per run, {args.repeats} repeats, all configurations interleaved in a random "
        "order within each repeat; 'best' = the fastest repeat, ratio = best / AdaBoost's best; the median paired "
        f"ratio is the median over repeats of (variant / AdaBoost of the same repeat). smooth and combined: "
        f"lambda = {SMOOTHNESS}; combined caps every 5th example.",
        "",
        f"Variants over {TARGET}x in some table: {', '.join(misses) if misses else 'none'}.",
        "",
    ]
    atomic_write(Path(args.out), "\n".join(header) + "\n" + "\n\n".join(sections) + "\n")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
