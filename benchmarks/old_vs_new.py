"""Old against new kernels, interleaved in one run: per-call times of each kernel family and end-to-end fits.

Issue 29, item 3: the kernels moved from numba (compiled at first use) to Cython (compiled at
install). ``--old`` is a checkout of the code before (e.g. ``git worktree add ../old <commit>``,
imported from its ``src`` with numba); ``new`` is the package installed in this environment.
Each measurement group runs in a fresh process per side, the sides alternating (``--rounds``
times, the first side switching every round), so a change of load hits both; a time is the best
over all calls and rounds of that side. Every process warms each workload up before timing it
(numba compiles or loads its cache there; it is not charged). Target: new at most 1.05x old.

Groups (``--groups``):

* ``kernels``: per call, on the sizes of the committed benchmarks: the capped-simplex KL
  projection and the Euclidean ones (m = 7400), the bit matrix's ``U w``, ``U^T d`` and ``add``
  (7400 x 300), the exact stump and depth-2 edge tree (7400 x 20) and the least-squares tree,
  the histogram stump and tree (10^5 x 50 float32; serial and ``n_jobs=2``), binning (10^5 x 50),
  the NZDD average-margin oracle (twonorm 2000 x 20), one MABoost round of each projection.
* ``fits``: end to end: LPBoost (dual simplex master) on diabetes and ringnorm at nu = 0.1m;
  ERLPBoost, MLPBoost('newton'), C-ERLPBoost on twonorm; AverageMarginBoost, GBM, MadaBoost on
  twonorm 2000; speed_targets' section 1 fit (MLPBoost('newton') on 255-bin depth-2 trees, 100
  rounds) on ringnorm, twonorm and 10^5 x 50.
* ``time_to_eps``: ``time_to_eps.py``'s 30 fits of MLPBoost('newton') and ERLPBoost (summed s).
* ``scaling``: ``scaling.py``'s 10^6 x 50 fit: MLPBoost(hist_stump, newton), 100 rounds.

    python benchmarks/old_vs_new.py --old ../numba-ref --out benchmarks/results/old_vs_new.md
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = 1.05
GROUPS = ("kernels", "fits", "time_to_eps", "scaling")


# ------------------------------------------------------------------------------- the workloads
def best(call, repeats: int, warm: int = 2) -> float:
    for _ in range(warm):
        call()
    t = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        t = min(t, time.perf_counter() - t0)
    return t


def kernels() -> dict:
    import numpy as np
    from threadpoolctl import threadpool_limits

    from marginboost.average_margin.nzdd_stumps import build_stump_nzdd
    from marginboost.core.bit_matrix import BitMarginMatrix
    from marginboost.core.projections import (box_capped_simplex_euclidean_projection,
                                              capped_simplex_euclidean_projection, capped_simplex_kl_projection)
    from marginboost.io.datasets import make_twonorm
    from marginboost.weak_learners import (DecisionStump, EdgeTree, HistogramStump, HistogramTree, LeastSquaresTree,
                                           bin_features)

    rng = np.random.default_rng(0)
    out = {}
    with threadpool_limits(1, user_api="blas"):
        m = 7400
        q = rng.choice([-1.0, 1.0], size=(m, 10)) @ rng.dirichlet(np.ones(10))
        out["projection: KL, m=7400, nu=0.1m, eta=460"] = best(lambda: capped_simplex_kl_projection(q, 740.0, 460.0), 200)
        out["projection: KL, m=7400, nu=0.5m, eta=10"] = best(lambda: capped_simplex_kl_projection(q, 3700.0, 10.0), 200)
        v = rng.standard_normal(m)
        out["projection: Euclidean, one cap, m=7400"] = best(lambda: capped_simplex_euclidean_projection(v, 740.0), 200)
        caps = rng.uniform(0.5, 2.0, m) / 740.0
        out["projection: Euclidean, box caps, m=7400"] = best(lambda: box_capped_simplex_euclidean_projection(v, caps), 200)

        X = rng.standard_normal((m, 20))
        y = rng.choice([-1.0, 1.0], m)
        cols = [y * s * np.where(X[:, f] > rng.standard_normal() * 0.8, 1.0, -1.0)
                for f, s in zip(rng.integers(0, 20, 300), rng.choice([-1.0, 1.0], 300))]

        def build():
            U = BitMarginMatrix(m)
            for u in cols:
                U.add(u)
            return U
        U = build()
        w = rng.dirichlet(np.ones(U.shape[1]))
        d = rng.dirichlet(np.ones(m))
        out["bit matrix: U w, 7400 x 300"] = best(lambda: U.matvec(w), 200)
        out["bit matrix: U^T d, 7400 x 300"] = best(lambda: U.rmatvec(d), 200)
        out["bit matrix: 300 x add, 7400"] = best(build, 5, warm=1)

        yl = np.where(X[:, 0] + X[:, 1] * X[:, 2] > 0, 1.0, -1.0)
        stump = DecisionStump().prepare(X, yl)
        tree = EdgeTree(2).prepare(X, yl)
        out["exact stump call, 7400 x 20"] = best(lambda: stump(d), 50)
        out["exact depth-2 edge tree call, 7400 x 20"] = best(lambda: tree(d), 50)
        out["exact stump prepare (presort), 7400 x 20"] = best(lambda: DecisionStump().prepare(X, yl), 10)
        r = X[:, 0] + rng.standard_normal(m)
        ls = LeastSquaresTree(3).prepare(X)
        s = np.ones(m)
        out["least-squares depth-3 tree call, 7400 x 20"] = best(lambda: ls(r, s), 30)

        Xh = rng.standard_normal((100_000, 50)).astype(np.float32)
        yh = np.where(Xh[:, 0] + Xh[:, 1] * Xh[:, 2] > 0, 1.0, -1.0)
        dh = rng.dirichlet(np.ones(100_000))
        for jobs in (None, 2):
            hs = HistogramStump(n_jobs=jobs).prepare(Xh, yh)
            ht = HistogramTree(2, n_jobs=jobs).prepare(Xh, yh)
            out[f"histogram stump call, 1e5 x 50, n_jobs={jobs}"] = best(lambda: hs(dh), 20)
            out[f"histogram depth-2 tree call, 1e5 x 50, n_jobs={jobs}"] = best(lambda: ht(dh), 20)
            out[f"binning, 1e5 x 50, n_jobs={jobs}"] = best(lambda: bin_features(Xh, 255, n_jobs=jobs), 5, warm=1)

        tw = make_twonorm(2000, n_features=20, seed=0)
        S = build_stump_nzdd(tw.X, tw.y)
        dn = rng.dirichlet(np.ones(2000))
        eta = 2.0 * np.log(S.n_hypotheses) / 0.01  # the estimator's default eps, as nzdd_oracle.py
        out["NZDD average-margin oracle, twonorm 2000"] = best(lambda: S.average_margin(dn, eta), 30)
        out.update(maboost_rounds())
    return out


def maboost_rounds() -> dict:
    """Seconds per round of a MABoost fit of each projection (30 stump rounds on twonorm 2000)."""
    from marginboost import MABoostClassifier
    from marginboost.io.datasets import make_twonorm

    tw = make_twonorm(2000, n_features=20, seed=1)
    out = {}
    for reg, upd, var in (("entropy", "active", "normal"), ("l2", "active", "normal"), ("l2", "lazy", "normal"),
                          ("l2", "active", "smooth"), ("entropy", "active", "smooth")):
        def fit():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                MABoostClassifier(regularizer=reg, update=upd, variant=var, weak_learner="stump",
                                  max_iter=30).fit(tw.X, tw.y)
        out[f"MABoost fit, {reg} {upd} {var}, 30 rounds"] = best(fit, 5)
    return out


def _quiet_fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(X, y)
        return time.perf_counter() - t0


def fits() -> dict:
    import numpy as np
    from sklearn.datasets import make_classification
    from threadpoolctl import threadpool_limits

    import marginboost as mb
    from marginboost.io.datasets import load_dataset, make_twonorm

    out = {}
    with threadpool_limits(1, user_api="blas"):
        for name in ("diabetes", "ringnorm"):
            ds = load_dataset(name)
            X, y = ds.X, np.where(ds.y > 0, 1.0, -1.0)
            est = lambda: mb.LPBoostClassifier(nu=0.1 * len(y), eps=0.01, weak_learner="tree")
            _quiet_fit(est().set_params(max_iter=3), X, y)
            out[f"LPBoost fit, {name}, nu=0.1m"] = min(_quiet_fit(est(), X, y) for _ in range(2))
        tw = load_dataset("twonorm")
        for label, make in (("ERLPBoost", lambda: mb.ERLPBoostClassifier(nu=0.1, eps=0.01)),
                            ("MLPBoost('newton')", lambda: mb.MLPBoostClassifier(nu=0.1, eps=0.01, secondary="newton")),
                            ("C-ERLPBoost", lambda: mb.CERLPBoostClassifier(nu=0.1, eps=0.01, max_iter=2000))):
            _quiet_fit(make().set_params(max_iter=3), tw.X, tw.y)
            out[f"{label} fit, twonorm, nu=0.1m"] = min(_quiet_fit(make(), tw.X, tw.y) for _ in range(2))
        small = make_twonorm(2000, n_features=20, seed=2)
        for label, make in (("AverageMarginBoost", lambda: mb.AverageMarginBoostClassifier(nu=0.1)),
                            ("GBMClassifier", lambda: mb.GBMClassifier(max_iter=200)),
                            ("MadaBoost", lambda: mb.MadaBoostClassifier(max_iter=200))):
            _quiet_fit(make().set_params(max_iter=3), small.X, small.y)
            out[f"{label} fit, twonorm 2000"] = min(_quiet_fit(make(), small.X, small.y) for _ in range(2))
        Xs, ys = make_classification(100_000, 50, n_informative=5, n_redundant=5, flip_y=0.05, random_state=0)
        sets = {"ringnorm": load_dataset("ringnorm"), "twonorm": tw}
        data = {k: (v.X, v.y) for k, v in sets.items()} | {"1e5 x 50": (Xs, np.where(ys > 0, 1.0, -1.0))}
        for name, (X, y) in data.items():
            make = lambda: mb.MLPBoostClassifier(nu=0.1, eps=1e-6, secondary="newton", weak_learner="hist_tree",
                                                 max_iter=100)
            _quiet_fit(make().set_params(max_iter=3), X, y)
            out[f"speed_targets round fit (hist trees, 100 rounds), {name}"] = min(_quiet_fit(make(), X, y) for _ in range(2))
    return out


def time_to_eps() -> dict:
    sys.path.insert(0, str(HERE))
    import time_to_eps as tte
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.md"
        import marginboost
        tte.main(["--src", str(Path(marginboost.__file__).parents[1]), "--out", str(out)])
        text = out.read_text()
    totals = {}
    for line in text.splitlines():  # its summary rows: '| **all** | - | booster | rounds | seconds | - |'
        if line.startswith("| **all**"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            totals[f"time_to_eps, 30 fits, {cells[2]} ({cells[3]} rounds)"] = float(cells[4])
    return totals


def scaling() -> dict:
    import numpy as np
    from sklearn.datasets import make_classification
    from threadpoolctl import threadpool_limits

    import marginboost as mb
    X, y = make_classification(1_000_000, 50, n_informative=5, n_redundant=5, flip_y=0.05, random_state=0)
    y = np.where(y > 0, 1.0, -1.0)
    with threadpool_limits(1, user_api="blas"):
        make = lambda: mb.MLPBoostClassifier(nu=0.1, eps=0.01, secondary="newton", weak_learner="hist_stump",
                                             max_iter=100)
        _quiet_fit(make().set_params(max_iter=2), X[:2000], y[:2000])
        return {"scaling: MLPBoost(hist_stump, newton), 1e6 x 50, 100 rounds": _quiet_fit(make(), X, y)}


WORKLOADS = {"kernels": kernels, "fits": fits, "time_to_eps": time_to_eps, "scaling": scaling}


# ------------------------------------------------------------------------------- the driver
def run_side(group: str, old: str | None) -> dict:
    env = dict(os.environ)
    if old:
        env["PYTHONPATH"] = str(Path(old) / "src") + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([sys.executable, __file__, "--worker", group, "--json", f.name], env=env, check=True,
                       cwd=tempfile.gettempdir())
        return json.loads(Path(f.name).read_text())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", help="checkout of the code before (numba kernels)")
    parser.add_argument("--groups", nargs="+", default=list(GROUPS), choices=GROUPS)
    parser.add_argument("--rounds", type=int, default=2, help="processes per side and group, alternating")
    parser.add_argument("--out", default=str(HERE / "results" / "old_vs_new.md"))
    parser.add_argument("--worker", choices=GROUPS, help=argparse.SUPPRESS)
    parser.add_argument("--json", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        import marginboost
        result = {"module": marginboost.__file__, "times": WORKLOADS[args.worker]()}
        Path(args.json).write_text(json.dumps(result))
        return 0
    if not args.old:
        parser.error("--old is required")
    sides = {"old": args.old, "new": None}
    times = {"old": {}, "new": {}}
    modules = {}
    load = [os.getloadavg()[0]]
    for group in args.groups:
        for k in range(args.rounds):
            order = ("old", "new") if k % 2 == 0 else ("new", "old")
            for side in order:
                print(f"{group}, round {k + 1}: {side}", flush=True)
                res = run_side(group, sides[side])
                modules[side] = res["module"]
                for name, t in res["times"].items():
                    times[side][name] = min(times[side].get(name, float("inf")), t)
        load.append(os.getloadavg()[0])
    commit = subprocess.run(["git", "-C", str(HERE), "describe", "--always", "--dirty"], capture_output=True,
                            text=True).stdout.strip()
    old_commit = subprocess.run(["git", "-C", args.old, "describe", "--always", "--dirty"], capture_output=True,
                                text=True).stdout.strip()
    lines = ["# Old (numba) against new (compiled at install) kernels, interleaved", "",
             f"- Command: `python benchmarks/old_vs_new.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
             f"- Date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}; {platform.platform()}; {os.cpu_count()} CPUs; "
             f"load average {', '.join(f'{x:.2f}' for x in load)}",
             f"- old: git {old_commit} ({modules.get('old')}); new: git {commit} ({modules.get('new')})",
             f"- Each group: {args.rounds} processes per side, alternating; best time of each side. "
             "Per-call rows: seconds per call; fit rows: seconds per fit.", "",
             "| workload | old ms | new ms | new / old | target <= 1.05 |", "|---|---|---|---|---|"]
    worst = 0.0
    for name in times["old"]:
        o, n = times["old"][name], times["new"].get(name)
        if n is None:
            lines.append(f"| {name} | {o * 1e3:.3f} | - | - | - |")
            continue
        ratio = n / o
        worst = max(worst, ratio)
        lines.append(f"| {name} | {o * 1e3:.3f} | {n * 1e3:.3f} | {ratio:.2f} | {'met' if ratio <= TARGET else '**over**'} |")
    lines += ["", f"Largest ratio: {worst:.2f}."]
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
