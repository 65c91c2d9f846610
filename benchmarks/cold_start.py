"""Cold start: the first fit of every public estimator against its second, in a fresh install.

What a new user meets (issue 29). The script makes a fresh virtual environment, installs the
package into it (``pip install <checkout>``, so the kernels are built there and nothing is cached
from this checkout), then, each in a new Python process:

* imports ``marginboost`` and, alternately, ``sklearn.ensemble`` (``--repeats`` each; median);
* for each of the 17 public estimators, imports ``marginboost``, builds the estimator with its
  defaults and fits it on wdbc (scikit-learn's breast cancer set, 569 x 30; the regressors fit
  the 0/1 label as a number) twice, timing each ``fit``;
* runs ``marginboost demo``.

Targets: every first fit at most 1 s slower than the second; ``import marginboost`` at most 1.2x
``import sklearn.ensemble`` in the same run. ``--ref CHECKOUT`` does the same for another checkout
(e.g. a worktree at the commit before the compiled kernels) in its own fresh environment, for the
before/after columns. The installed size of each environment (its ``site-packages``) and of the
package itself are reported.

    python benchmarks/cold_start.py --ref /path/to/old/worktree --out benchmarks/results/cold_start.md
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ESTIMATORS = (
    "AdaBoostClassifier", "AdaBoostVClassifier", "AverageMarginBoostClassifier", "CERLPBoostClassifier",
    "ERLPBoostClassifier", "FWBoostClassifier", "FWBoostRegressor", "GBMClassifier", "GBMRegressor",
    "GraphSepBoostClassifier", "LPBoostClassifier", "MABoostClassifier", "MadaBoostClassifier",
    "MLPBoostClassifier", "SmoothBoostClassifier", "SoftBoostClassifier", "TotalBoostClassifier",
)
FIT_TWICE = """
import json, sys, time, warnings
t0 = time.perf_counter()
import marginboost
t_import = time.perf_counter() - t0
from sklearn.datasets import load_breast_cancer
X, y = load_breast_cancer(return_X_y=True)
name = sys.argv[1]
cls = getattr(marginboost, name)
target = y.astype(float) if name.endswith("Regressor") else y
times = []
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for _ in range(2):
        est = cls()
        t0 = time.perf_counter()
        est.fit(X, target)
        times.append(time.perf_counter() - t0)
print(json.dumps({"import": t_import, "first": times[0], "second": times[1], "n_iter": int(est.n_iter_)}))
"""
TIME_IMPORT = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
FIRST_FIT_TARGET_S = 1.0
IMPORT_TARGET = 1.2


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def make_env(checkout: Path, where: Path) -> tuple[Path, float]:
    """A fresh virtual environment with ``checkout`` installed (not editable); its python, install seconds."""
    run([sys.executable, "-m", "venv", str(where)])
    python = where / "bin" / "python"
    t0 = time.perf_counter()
    run([str(python), "-m", "pip", "install", "--no-cache-dir", "--quiet", str(checkout)])
    return python, time.perf_counter() - t0


def site_packages_mb(python: Path) -> tuple[float, float]:
    """Sizes in MB of the environment's site-packages and of the installed marginboost package."""
    code = "import sysconfig, marginboost, os; print(sysconfig.get_paths()['purelib']); print(os.path.dirname(marginboost.__file__))"
    site, pkg = run([str(python), "-c", code], cwd="/").stdout.split()
    size = lambda p: int(run(["du", "-sk", p]).stdout.split()[0]) / 1024
    return size(site), size(pkg)


def measure(python: Path, repeats: int) -> dict:
    out = {"imports": {"marginboost": [], "sklearn.ensemble": []}, "fits": {}}
    with tempfile.TemporaryDirectory() as cwd:  # not the checkout: the installed package, not the source tree
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "0"}
        for _ in range(repeats):
            for module in out["imports"]:
                t = float(run([str(python), "-c", TIME_IMPORT.format(module=module)], cwd=cwd, env=env).stdout)
                out["imports"][module].append(t)
        for name in ESTIMATORS:
            out["fits"][name] = json.loads(run([str(python), "-c", FIT_TWICE, name], cwd=cwd, env=env).stdout)
            print(f"  {name}: {out['fits'][name]}", flush=True)
        t0 = time.perf_counter()
        run([str(python.parent / "marginboost"), "demo"], cwd=cwd, env=env)
        out["demo_s"] = time.perf_counter() - t0
    out["size_mb"] = site_packages_mb(python)
    return out


def table(results: dict) -> list[str]:
    labels = list(results)
    head = "| estimator | " + " | ".join(f"{k}: first fit s | {k}: second s | {k}: first - second" for k in labels) + " |"
    lines = [head, "|---" * (1 + 3 * len(labels)) + "|"]
    for name in ESTIMATORS:
        cells = []
        for k in labels:
            f = results[k]["fits"][name]
            extra = f["first"] - f["second"]
            mark = "" if k != "new" or extra <= FIRST_FIT_TARGET_S else " **over**"
            cells += [f"{f['first']:.3f}", f"{f['second']:.3f}", f"{extra:+.3f}{mark}"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--ref", help="another checkout (e.g. the commit before) measured the same way")
    parser.add_argument("--repeats", type=int, default=7, help="fresh processes per import timing")
    parser.add_argument("--out", default="benchmarks/results/cold_start.md")
    args = parser.parse_args(argv)
    checkouts = {"new": Path(args.checkout)}
    if args.ref:
        checkouts["old"] = Path(args.ref)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, checkout in checkouts.items():
            print(f"{label}: installing {checkout} into a fresh environment", flush=True)
            python, install_s = make_env(checkout, Path(tmp) / label)
            results[label] = {"install_s": install_s, **measure(python, args.repeats)}
    lines = ["# Cold start: first fit against second, fresh install", "",
             f"Command: `python benchmarks/{shlex.join([Path(__file__).name, *(argv or sys.argv[1:])])}`  ",
             f"Date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}; machine: {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} cores; Python {platform.python_version()}  ",
             "Checkouts: " + "; ".join(f"{k} = {v}" + _git(v) for k, v in checkouts.items()), "",
             "Each row: a new process imports marginboost, then fits the estimator with its defaults on wdbc "
             "(569 x 30) twice. Target: first fit at most 1 s slower than the second (`new`).", ""]
    lines += table(results)
    lines += ["", "| | " + " | ".join(results) + " |", "|---" * (1 + len(results)) + "|"]
    for label, key in (("import marginboost, median s", "marginboost"), ("import sklearn.ensemble, median s", "sklearn.ensemble")):
        lines.append(f"| {label} | " + " | ".join(f"{statistics.median(r['imports'][key]):.3f}" for r in results.values()) + " |")
    ratio = {k: statistics.median(r["imports"]["marginboost"]) / statistics.median(r["imports"]["sklearn.ensemble"])
             for k, r in results.items()}
    lines.append("| import ratio (target <= 1.2) | " + " | ".join(f"{v:.2f}" for v in ratio.values()) + " |")
    lines.append("| worst first - second fit, s (target <= 1) | " + " | ".join(
        f"{max(f['first'] - f['second'] for f in r['fits'].values()):.3f}" for r in results.values()) + " |")
    lines.append("| `marginboost demo`, cold, s | " + " | ".join(f"{r['demo_s']:.1f}" for r in results.values()) + " |")
    lines.append("| `pip install`, s | " + " | ".join(f"{r['install_s']:.0f}" for r in results.values()) + " |")
    lines.append("| site-packages, MB | " + " | ".join(f"{r['size_mb'][0]:.0f}" for r in results.values()) + " |")
    lines.append("| marginboost package, MB | " + " | ".join(f"{r['size_mb'][1]:.1f}" for r in results.values()) + " |")
    text = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    new = results["new"]
    ok = ratio["new"] <= IMPORT_TARGET and all(f["first"] - f["second"] <= FIRST_FIT_TARGET_S for f in new["fits"].values())
    print("targets met" if ok else "a target missed")
    return 0 if ok else 1


def _git(path: Path) -> str:
    try:
        return f" (git {run(['git', '-C', str(path), 'rev-parse', '--short', 'HEAD']).stdout.strip()})"
    except (subprocess.CalledProcessError, FileNotFoundError):
        return ""


if __name__ == "__main__":
    raise SystemExit(main())
