"""The worst case for LPBoost (paper 000, section 5) as a benchmark: rounds against m.

Paper 000: "Although LPBoost outperforms the running time in Table 2, it takes m/2 iterations
for the worst case (Warmuth et al., 2007). Even in this case, MLPBoost and ERLPBoost terminate
in 2 iterations." (The authors' code runs it at m = 64, nu = 1, tolerance 0.01: LPBoost 32
iterations, the others 2.)

For each ``m`` of :data:`DEFAULT_SIZES` this fits LPBoost, MLPBoost (SS and PFW) and ERLPBoost
with ``nu = 1`` (hard margin) and ``eps = 0.01`` on :func:`~marginboost.weak_learners.make_lpboost_worst_case`
with its exact weak learner :class:`~marginboost.weak_learners.WorstCaseLearner`, and records
per fit the rounds (weak-learner calls, ``n_iter_``: the hypotheses plus the last call, whose
answer proves the gap below eps), the hypotheses it added (the paper's "iterations"), the status, the time and
the margin reached, beside the exact optimum (the hard-margin LP over the instance's
``m/2 + 1`` hypotheses, by HiGHS). The instance's own step is ``min(1e-4, 1/(2m))``: below
``2/(m+1)`` (the construction's condition) and far below ``eps / ln m``, so that the entropy
of ERLPBoost and MLPBoost spreads their distribution over the hard half of the sample at once.

Writes ``worst_case.md`` (the table, with the paper's m/2 and 2 beside, and a verdict per m),
``worst_case.csv``, ``worst_case.json`` and ``worst_case.png`` (hypotheses added against m, log-log),
each with the command, versions and machine (:mod:`.metadata`).
"""
from __future__ import annotations

import importlib.util
import json
import time
import warnings
from pathlib import Path

import numpy as np

from marginboost.estimators.soft_margin import ERLPBoostClassifier, LPBoostClassifier, MLPBoostClassifier
from marginboost.experiments import metadata as meta
from marginboost.experiments.figures import COLORS
from marginboost.experiments.result_files import atomic_write, csv_text, jsonable
from marginboost.weak_learners import WorstCaseLearner, make_lpboost_worst_case
from marginboost.weak_learners.worst_case import lpboost_worst_case_margins

DEFAULT_SIZES = (16, 32, 64, 128, 256, 512, 1024, 2048)
QUICK_SIZES = (8, 16, 32, 64)
DEFAULT_EPS = 0.01  # the paper's tolerance
INSTANCE_STEP = 1e-4
# key -> (label, estimator class, extra parameters)
WORST_CASE_BOOSTERS = {
    "lpboost": ("LPBoost", LPBoostClassifier, {}),
    "mlpboost_ss": ("MLPBoost (SS)", MLPBoostClassifier, {}),
    "mlpboost_pfw": ("MLPBoost (PFW)", MLPBoostClassifier, {"step": "pairwise"}),
    "erlpboost": ("ERLPBoost", ERLPBoostClassifier, {}),
}
FIELDS = ("m", "booster", "label", "rounds", "hypotheses", "status", "seconds", "margin", "optimum",
          "optimum_minus_margin", "instance_step", "eps")


def instance_step(m: int) -> float:
    """The worst-case instance's step for ``m`` examples (see the module docstring)."""
    return min(INSTANCE_STEP, 1.0 / (2.0 * m))


def hard_margin_optimum(U: np.ndarray) -> float:
    """``max_{w in simplex} min_i (U w)_i``, the optimum of the instance at nu = 1 (HiGHS)."""
    from scipy.optimize import linprog

    m, k = U.shape
    # variables (w_1..w_k, rho); maximise rho s.t. rho - U w <= 0, sum w = 1, w >= 0
    c = np.zeros(k + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-U, np.ones((m, 1))])
    A_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq, b_eq=[1.0],
                  bounds=[(0, None)] * k + [(None, None)], method="highs")
    if res.status != 0:
        raise RuntimeError(f"the worst case's LP failed: {res.message}")
    return float(-res.fun)


def run_worst_case(out_dir, sizes=None, eps=None, quick=False, progress=print, figure=True) -> dict:
    """Fit every booster of :data:`WORST_CASE_BOOSTERS` on the worst case for each ``m`` of
    ``sizes`` (default :data:`DEFAULT_SIZES`; quick :data:`QUICK_SIZES`) and write the table,
    CSV, JSON and figure to ``out_dir``. Returns ``{"metadata", "rows", "files"}``."""
    say = progress if progress is not None else (lambda _line: None)
    sizes = list(QUICK_SIZES if quick else DEFAULT_SIZES) if sizes is None else [int(m) for m in sizes]
    eps = DEFAULT_EPS if eps is None else float(eps)
    bad = [m for m in sizes if m < 4 or m % 2]
    if bad or not sizes:
        raise ValueError(f"every m must be an even number >= 4, got {bad or sizes}")
    if not eps > 0:
        raise ValueError(f"eps must be > 0, got {eps}")
    parameters = {"sizes": sizes, "eps": eps, "nu": 1, "quick": bool(quick),
                  "boosters": list(WORST_CASE_BOOSTERS), "instance_step": f"min({INSTANCE_STEP}, 1/(2m))"}
    results = {"metadata": meta.collect(parameters), "rows": [], "files": []}
    started = time.perf_counter()
    for m in sizes:
        step = instance_step(m)
        X, y = make_lpboost_worst_case(m, eps=step)
        optimum = hard_margin_optimum(lpboost_worst_case_margins(m, eps=step))
        line = []
        for key, (label, cls, extra) in WORST_CASE_BOOSTERS.items():
            est = cls(nu=1, eps=eps, weak_learner=WorstCaseLearner(eps=step), max_iter=2 * m + 10, **extra)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                est.fit(X, y)
                seconds = time.perf_counter() - t0
            row = {"m": m, "booster": key, "label": label, "rounds": int(est.n_iter_),
                   "hypotheses": len(est.hypotheses_), "status": str(est.status_),
                   "seconds": seconds, "margin": float(est.margin_), "optimum": optimum,
                   "optimum_minus_margin": optimum - float(est.margin_), "instance_step": step, "eps": eps}
            results["rows"].append(row)
            line.append(f"{label} {row['rounds']}")
        say(f"m = {m}: rounds " + ", ".join(line) + f" (paper: LPBoost m/2 = {m // 2}, the others 2)")
    results["metadata"]["seconds"] = time.perf_counter() - started
    results["metadata"]["load_average_end"] = meta.machine_facts()["load_average"]
    results["files"] = [str(p) for p in write_worst_case(results, out_dir, figure=figure)]
    return results


def verdicts(rows) -> list[dict]:
    """Per m: whether the paper's claim holds there: LPBoost added at least m/2 hypotheses, every
    other booster at most 2, and every fit converged to within eps of the optimum."""
    out = []
    for m in sorted({r["m"] for r in rows}):
        mine = {r["booster"]: r for r in rows if r["m"] == m}
        lp = mine.get("lpboost")
        others = [r for k, r in mine.items() if k != "lpboost"]
        within = all(r["status"] == "converged" and r["optimum_minus_margin"] <= r["eps"] + 1e-9
                     for r in mine.values())
        holds = (lp is not None and lp["hypotheses"] >= m // 2 and all(r["hypotheses"] <= 2 for r in others)
                 and within)
        out.append({"m": m, "rows": mine, "holds": holds, "within_eps": within})
    return out


def worst_case_markdown(results) -> str:
    """The table of rounds per m and booster, the paper's expectation beside, and the verdicts."""
    rows = results["rows"]
    keys = list(dict.fromkeys(r["booster"] for r in rows))
    labels = {r["booster"]: r["label"] for r in rows}
    md = results["metadata"]
    prm = md["parameters"]
    head = "| m | paper: LPBoost m/2 |" + "".join(
        f" {labels[k]} rounds (hyp.) |" for k in keys) + " paper: the others | optimum | all within eps | claim |"
    rule = "|---:|---:|" + "---:|" * len(keys) + "---:|---:|---|---|"
    out = ["# The worst case for LPBoost (paper 000, section 5)", "",
           "Rounds of each booster on Warmuth, Glocer and Raetsch's (2007) instance with m examples, nu = 1, "
           f"eps = {prm['eps']:g}, the exact weak learner over its m/2 + 1 hypotheses "
           "(`marginboost.weak_learners.make_lpboost_worst_case`, `WorstCaseLearner`; instance step "
           f"{prm['instance_step']}). Rounds are weak-learner calls (`n_iter_`): the hypotheses added plus "
           "the last call, whose answer proves the gap below eps; (hyp.) counts the distinct hypotheses it "
           "added, the paper's iterations. The paper: LPBoost takes m/2 iterations, MLPBoost and ERLPBoost "
           "terminate in 2. `claim`: LPBoost added at least m/2 hypotheses, every other booster at most 2, "
           "and every fit converged to within eps of the optimum (the hard-margin LP, HiGHS).", "",
           *meta.provenance_lines(md),
           f"- Wall time: {md.get('seconds', 0.0):.1f} s", "", head, rule]
    for v in verdicts(rows):
        m = v["m"]
        line = f"| {m} | {m // 2} |"
        for k in keys:
            r = v["rows"].get(k)
            line += " - |" if r is None else (
                f" {r['rounds']} ({r['hypotheses']})" + ("" if r["status"] == "converged" else f" **{r['status']}**")
                + " |")
        optimum = next(iter(v["rows"].values()))["optimum"]
        within = "yes" if v["within_eps"] else "**no**"
        line += f" 2 | {optimum:.3g} | {within} | {'holds' if v['holds'] else '**fails**'} |"
        out.append(line)
    held = sum(v["holds"] for v in verdicts(rows))
    out += ["", f"The claim holds at {held} of {len(verdicts(rows))} sizes."]
    largest = max(r["m"] for r in rows)
    seconds = {r["booster"]: r["seconds"] for r in rows if r["m"] == largest}
    out += ["", f"Seconds per fit at m = {largest}: " + ", ".join(
        f"{labels[k]} {seconds[k]:.3f}" for k in keys if k in seconds) + "."]
    return "\n".join(out) + "\n"


def write_worst_case(results, out_dir, figure=True) -> list[Path]:
    """Write worst_case.md/.csv/.json (and .png with matplotlib) to ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [atomic_write(out / "worst_case.md", worst_case_markdown(results)),
               atomic_write(out / "worst_case.csv", csv_text(results["rows"], FIELDS, results["metadata"])),
               atomic_write(out / "worst_case.json", json.dumps(jsonable(results), indent=1) + "\n")]
    if figure and importlib.util.find_spec("matplotlib") is not None:
        written.append(_figure(results, out / "worst_case.png"))
    return written


def _figure(results, path: Path) -> Path:
    from matplotlib.figure import Figure

    rows = results["rows"]
    sizes = sorted({r["m"] for r in rows})
    fig = Figure(figsize=(6.5, 4.6), layout="constrained", dpi=110)
    ax = fig.subplots()
    # MLPBoost (SS, PFW) and ERLPBoost coincide: markers of decreasing size keep each visible
    styles = [("o", 9, "-"), ("s", 7, "-"), ("^", 5, "--"), ("x", 7, ":")]
    for (marker, size, line), key in zip(styles, dict.fromkeys(r["booster"] for r in rows)):
        mine = sorted((r for r in rows if r["booster"] == key), key=lambda r: r["m"])
        ax.plot([r["m"] for r in mine], [r["hypotheses"] for r in mine], marker=marker, markersize=size,
                linestyle=line, linewidth=1.5, color=COLORS.get(key), label=mine[0]["label"])
    ax.plot(sizes, [m / 2 for m in sizes], color="black", linestyle="--", linewidth=1, label="paper: m/2 (LPBoost)")
    ax.plot(sizes, [2] * len(sizes), color="gray", linestyle=":", linewidth=1, label="paper: 2 (the others)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("m (examples)")
    ax.set_ylabel("hypotheses added (the paper's iterations)")
    prm = results["metadata"]["parameters"]
    title = f"Worst case for LPBoost (paper 000, section 5): nu = 1, eps = {prm['eps']:g}"
    ax.set_title(title, fontsize=11)
    ax.legend(fontsize=9, frameon=False)
    ax.grid(True, which="major", alpha=0.3)
    md = results["metadata"]
    fig.savefig(path, metadata={"Title": title, "Software": f"marginboost {md['marginboost_version']}",
                                "Comment": json.dumps(jsonable({"metadata": md}), sort_keys=True)})
    return path


__all__ = ["DEFAULT_SIZES", "QUICK_SIZES", "WORST_CASE_BOOSTERS", "hard_margin_optimum", "instance_step",
           "run_worst_case", "verdicts", "worst_case_markdown", "write_worst_case"]
