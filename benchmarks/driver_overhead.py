"""What the one round driver costs per round, against the hand-written loops it replaced.

Small data (200 x 5) and cheap rounds, so that the per-round bookkeeping (history rows,
commit, callbacks check, time limit) is as large a share as it can be: the worst case for
the driver. Each setting is fitted ``--repeat`` times and the best time kept; the two code
versions run interleaved in one invocation, so the ratio is measured in one run::

    git worktree add /tmp/before dd2c3e4          # the code before the restructuring
    python benchmarks/driver_overhead.py --before /tmp/before/src

prints, per estimator, microseconds per round before and after and their ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

SETTINGS = {
    "AdaBoostClassifier": ("clf", {"weak_learner": "stump", "rounds": 300}),
    "MLPBoostClassifier": ("clf", {"weak_learner": "stump", "secondary": "none", "eps": 1e-9, "rounds": 300}),
    "GBMRegressor": ("reg", {"weak_learner": "stump", "rounds": 300}),
    "FWBoostRegressor": ("reg", {"weak_learner": "stump", "rounds": 300}),
    "SmoothBoostClassifier": ("clf", {"weak_learner": "stump", "kappa": 0.001, "gamma": 0.001, "rounds": 300}),
}


def measure(repeat: int) -> dict:
    """Microseconds per round of each setting with the marginboost on sys.path."""
    import warnings

    import numpy as np
    from sklearn.datasets import load_breast_cancer, make_regression

    import marginboost

    X, y = load_breast_cancer(return_X_y=True)
    Xr, yr = make_regression(n_samples=200, n_features=5, noise=5.0, random_state=0)
    data = {"clf": (X[:200, :5], y[:200]), "reg": (Xr, yr / 100.0)}
    out = {}
    for name, (kind, params) in SETTINGS.items():
        cls = getattr(marginboost, name)
        params = dict(params)
        rounds = params.pop("rounds")
        cap = "n_estimators" if "n_estimators" in cls().get_params() else "max_iter"  # the name before / after
        params[cap] = rounds
        best = np.inf
        for _ in range(repeat):
            est = cls(**params)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                est.fit(*data[kind])
                elapsed = time.perf_counter() - start
            n = int(np.max(est.n_iter_))
            best = min(best, elapsed / n)
        out[name] = {"us_per_round": best * 1e6, "rounds": n}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="src folder of the code before (a git worktree)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.repeat)))
        return
    after_src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    runs = {"before": [], "after": []}
    for _ in range(2):  # interleaved: before, after, before, after
        for label, src in (("before", args.before), ("after", after_src)):
            env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
            res = subprocess.run([sys.executable, __file__, "--before", args.before, "--child",
                                  "--repeat", str(args.repeat)], env=env, capture_output=True, text=True, check=True)
            runs[label].append(json.loads(res.stdout.strip().splitlines()[-1]))
    print(f"{'estimator':24s} {'rounds':>6s} {'before us/round':>16s} {'after us/round':>15s} {'after/before':>13s}")
    for name in SETTINGS:
        before = min(r[name]["us_per_round"] for r in runs["before"])
        after = min(r[name]["us_per_round"] for r in runs["after"])
        rounds = runs["after"][0][name]["rounds"]
        print(f"{name:24s} {rounds:6d} {before:16.1f} {after:15.1f} {after / before:13.2f}")


if __name__ == "__main__":
    main()
