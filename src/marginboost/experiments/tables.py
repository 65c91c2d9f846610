"""Tables 2 and 3 of paper 000 (section 5), our numbers beside the paper's, as markdown/CSV/JSON.

* Table 2 (paper: "Comparison of the computation time"): per data set and booster, the wall
  time of ``fit`` averaged over the ``nu`` grid (paper: ``nu in {0.1m, ..., 0.5m}``,
  eps = 0.01, depth-2 trees), with the mean number of rounds. An average that contains a
  timed-out run is a lower bound: it is written ``>=`` and marked ``TIMEOUT k/n``.
* Table 3 (paper: "Test errors for 5-fold cross validation for the best parameters"): ``nu``
  chosen by k-fold CV on the training part, refit on the whole training part, error on the
  held-out test part; the peers' test errors (fitted once, untuned) beside them.
* Peers: time and test error of the naive linprog LPBoost (per ``nu``, with its soft margin
  minus LPBoostClassifier's: an independent check) and of the other boosting libraries.
* Section 5's claims (:func:`section5_verdicts`): MLPBoost faster than FW, PFW and ERLPBoost,
  LPBoost the fastest, Figure 4's "B early, F late", each reproduced or not, with its numbers.

Every file starts with the provenance of :mod:`.metadata` (a ``# metadata: {json}`` line in
CSV: read with ``pandas.read_csv(path, comment='#')``) and lists the data sets' SHA-256.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from marginboost.experiments import metadata as meta
from marginboost.experiments import paper
from marginboost.experiments.figures import FIG4_BOOSTERS, collect_curves
from marginboost.experiments.peers import NAIVE_LPBOOST
from marginboost.experiments.result_files import atomic_write, csv_text, jsonable
from marginboost.experiments.runner import BOOSTERS, label_of

TABLE2_FIELDS = ("dataset", "booster", "label", "m_train", "p", "nus", "runs", "timeouts", "mean_seconds",
                 "mean_rounds", "lower_bound", "status", "mean_soft_margin", "paper_seconds",
                 "paper_aborted", "paper_shape", "dataset_sha256")
TABLE3_FIELDS = ("dataset", "booster", "label", "kind", "m_train", "m_test", "chosen_nu", "cv_mean_error",
                 "cv_errors_by_nu", "cv_fits", "cv_timeouts", "test_error", "status", "seconds",
                 "paper_test_error", "dataset_sha256")
PEERS_FIELDS = ("dataset", "booster", "label", "nu", "rounds", "status", "seconds", "test_error",
                "soft_margin", "lpboost_soft_margin", "soft_margin_minus_lpboost", "lpboost_seconds",
                "dataset_sha256")


# ----------------------------------------------------------------------------------- rows
def _timing_runs(results):
    return [r for r in results["runs"] if r.get("phase", "timing") == "timing"]


def _table2_keys(results):
    """Booster columns of Table 2: the boosters run, then the naive LPBoost if it ran."""
    keys = [k for k in results["metadata"]["parameters"]["boosters"]]
    if any(r["booster"] == NAIVE_LPBOOST for r in results["runs"]):
        keys.append(NAIVE_LPBOOST)
    return keys


def table2_rows(results) -> list[dict]:
    """Table 2: per data set x booster, mean seconds and rounds over the nu grid (long form)."""
    runs = _timing_runs(results)
    rows = []
    for dataset, info in results["datasets"].items():
        for key in _table2_keys(results):
            mine = [r for r in runs if r["dataset"] == dataset and r["booster"] == key and r["nu"] is not None]
            if not mine:
                continue
            timeouts = sum(r["status"] == "TIMEOUT" for r in mine)
            other = sorted({r["status"] for r in mine} - {"converged", "TIMEOUT"})
            status = "converged" if not timeouts and not other else " ".join(
                ([f"TIMEOUT {timeouts}/{len(mine)}"] if timeouts else []) + other)
            rows.append({
                "dataset": dataset, "booster": key, "label": label_of(key),
                "m_train": info["m_train"], "p": info["p"], "nus": [r["nu"] for r in mine],
                "runs": len(mine), "timeouts": timeouts,
                "mean_seconds": float(np.mean([r["seconds"] for r in mine])),
                "mean_rounds": float(np.mean([r["rounds"] for r in mine])),
                "lower_bound": timeouts > 0 or bool(other), "status": status,
                "mean_soft_margin": float(np.mean([r["soft_margin"] for r in mine])),
                "paper_seconds": paper.paper_time(dataset, key),
                "paper_aborted": paper.paper_aborted(dataset, key),
                "paper_shape": paper.paper_shape(dataset), "dataset_sha256": info["sha256"],
            })
    return rows


RATIO_TARGET = 2.0  # issue target: MLPBoost's rounds and time within 2x of LPBoost's


def ratio_verdict(ratio: float, numerator_cut: bool, denominator_cut: bool) -> str:
    """Is ``ratio`` (MLPBoost over LPBoost) decided to be within :data:`RATIO_TARGET`?

    A mean cut short by the time limit is a lower bound of the true one: a cut numerator can only
    raise the ratio, a cut denominator only lower it.
    """
    if not numerator_cut and not denominator_cut:
        return "within 2x" if ratio <= RATIO_TARGET else "over 2x"
    if ratio <= RATIO_TARGET and not numerator_cut:
        return "within 2x"
    if ratio > RATIO_TARGET and not denominator_cut:
        return "over 2x"
    return "undecided"


def mlpboost_vs_lpboost_rows(results) -> list[dict]:
    """Per data set and MLPBoost variant: its mean time and rounds over LPBoost's (Table 2 means).

    ``verdict``: ``within 2x`` or ``over 2x`` when the ratios are decided by the runs, i.e. both
    converged at every nu, or the ratio is at most 2 with only LPBoost stopped by the limit (its
    mean is a lower bound, so the true ratio is smaller still), or over 2 with only MLPBoost
    stopped; otherwise ``undecided`` (the limit cut runs short on the side that matters).
    """
    rows = table2_rows(results)
    out = []
    for dataset in results["datasets"]:
        lp = next((r for r in rows if r["dataset"] == dataset and r["booster"] == "lpboost"), None)
        if lp is None:
            continue
        for key in ("mlpboost_ss", "mlpboost_pfw"):
            ml = next((r for r in rows if r["dataset"] == dataset and r["booster"] == key), None)
            if ml is None:
                continue
            time_ratio = ml["mean_seconds"] / lp["mean_seconds"]
            rounds_ratio = ml["mean_rounds"] / lp["mean_rounds"]
            verdict = ratio_verdict(max(time_ratio, rounds_ratio), ml["lower_bound"], lp["lower_bound"])
            paper_lp, paper_ml = paper.paper_time(dataset, "lpboost"), paper.paper_time(dataset, key)
            paper_ratio = (paper_ml / paper_lp if isinstance(paper_lp, float) and isinstance(paper_ml, float)
                           else None)
            out.append({"dataset": dataset, "booster": key, "label": ml["label"], "time_ratio": time_ratio,
                        "rounds_ratio": rounds_ratio, "lpboost_status": lp["status"], "status": ml["status"],
                        "verdict": verdict, "paper_time_ratio": paper_ratio,
                        "soft_margin_minus_lpboost": ml["mean_soft_margin"] - lp["mean_soft_margin"]})
    return out


def mlpboost_vs_lpboost_markdown(results) -> str:
    """The MLPBoost-over-LPBoost time and round ratios as a Markdown section (empty without both)."""
    ratios = mlpboost_vs_lpboost_rows(results)
    if not ratios:
        return ""
    out = ["## MLPBoost against LPBoost", "",
           "Mean time and mean rounds over the nu grid, MLPBoost's divided by LPBoost's (the paper: MLPBoost "
           "\"performs comparably with LPBoost\"; target: within 2x). A mean that includes TIMEOUT runs is a "
           "lower bound; the verdict is `undecided` where that leaves the comparison open. `paper`: the same "
           "time ratio from the paper's Table 2. `soft margin +`: MLPBoost's mean soft margin minus LPBoost's "
           "(with greedy depth-2 trees neither is exact, and LPBoost stops once the tree finds no edge above "
           "its LP value + eps, which can be well below the optimum).", "",
           "| data set | booster | time ratio | paper | rounds ratio | soft margin + | LPBoost | MLPBoost "
           "| verdict |", "|---|---|---:|---:|---:|---:|---|---|---|"]
    for r in ratios:
        out.append(f"| {r['dataset']} | {r['label']} | {r['time_ratio']:.2f} | {_fmt(r['paper_time_ratio'], '.2f')} "
                   f"| {r['rounds_ratio']:.2f} | {r['soft_margin_minus_lpboost']:+.4f} "
                   f"| {r['lpboost_status']} | {r['status']} | {r['verdict']} |")
    counts = {v: sum(r["verdict"] == v for r in ratios) for v in ("within 2x", "over 2x", "undecided")}
    out += ["", ", ".join(f"{k}: {v}" for k, v in counts.items()) + f" (of {len(ratios)})."]
    return "\n".join(out) + "\n"


def table3_rows(results) -> list[dict]:
    """Table 3: per data set x booster, CV-chosen nu and test error; then the peers' test errors."""
    rows = []
    for dataset, info in results["datasets"].items():
        choices = [c for c in results.get("cv_choice", []) if c["dataset"] == dataset]
        for choice in choices:
            key, nu = choice["booster"], choice["chosen_nu"]
            folds = [f for f in results["cv"] if f["dataset"] == dataset and f["booster"] == key]
            refit = _find_run(results, dataset, key, nu)
            rows.append({
                "dataset": dataset, "booster": key, "label": label_of(key), "kind": "booster",
                "m_train": info["m_train"], "m_test": info["m_test"], "chosen_nu": nu,
                "cv_mean_error": choice["mean_errors"][_nu_key(nu)],
                "cv_errors_by_nu": choice["mean_errors"], "cv_fits": len(folds),
                "cv_timeouts": sum(f["status"] == "TIMEOUT" for f in folds),
                "test_error": refit["test_error"] if refit else None,
                "status": refit["status"] if refit else None,
                "seconds": refit["seconds"] if refit else None,
                "paper_test_error": paper.paper_test_error(dataset, key),
                "dataset_sha256": info["sha256"],
            })
        lp_choice = next((c["chosen_nu"] for c in choices if c["booster"] == "lpboost"), None)
        for key in results["metadata"]["parameters"]["peers"]:
            if key == NAIVE_LPBOOST:
                # Untuned: at LPBoost's CV choice when there is one, else the first nu of the grid.
                nus = results["metadata"]["parameters"]["nus"]
                run = _find_run(results, dataset, key, lp_choice if lp_choice is not None else nus[0])
            else:
                run = _find_run(results, dataset, key, None)
            if run is None:
                continue
            rows.append({
                "dataset": dataset, "booster": key, "label": label_of(key), "kind": "peer",
                "m_train": info["m_train"], "m_test": info["m_test"], "chosen_nu": run["nu"],
                "cv_mean_error": None, "cv_errors_by_nu": None, "cv_fits": 0, "cv_timeouts": 0,
                "test_error": run["test_error"], "status": run["status"], "seconds": run["seconds"],
                "paper_test_error": None, "dataset_sha256": info["sha256"],
            })
    return rows


def peers_rows(results) -> list[dict]:
    """Every peer run, with LPBoostClassifier's soft margin and time at the same nu beside it."""
    rows = []
    for r, lp in _beside_lpboost(results, "peer"):
        both = lp["soft_margin"] is not None and r["soft_margin"] is not None
        diff = r["soft_margin"] - lp["soft_margin"] if both else None
        rows.append({
            "dataset": r["dataset"], "booster": r["booster"], "label": r["label"], "nu": r["nu"],
            "rounds": r["rounds"], "status": r["status"], "seconds": r["seconds"], "test_error": r["test_error"],
            "soft_margin": r["soft_margin"], "lpboost_soft_margin": lp["soft_margin"],
            "soft_margin_minus_lpboost": diff, "lpboost_seconds": lp["seconds"],
            "dataset_sha256": r["dataset_sha256"],
        })
    return rows


def canon_rows(results) -> list[dict]:
    """Every run of the canon (:mod:`.canon`), with LPBoostClassifier's run at the same nu beside SoftBoost."""
    rows = []
    for r, lp in _beside_lpboost(results, "canon"):
        rows.append({
            "dataset": r["dataset"], "booster": r["booster"], "label": r["label"], "nu": r["nu"],
            "rounds": r["rounds"], "status": r["status"], "seconds": r["seconds"],
            "margin_kind": r["margin_kind"], "margin": r["margin"], "n_hypotheses": r["n_hypotheses"],
            "train_error": r["train_error"], "test_error": r["test_error"],
            "lpboost_soft_margin": lp["soft_margin"], "lpboost_seconds": lp["seconds"],
            "lpboost_test_error": lp["test_error"], "dataset_sha256": r["dataset_sha256"],
        })
    return rows


_NO_RUN = {"soft_margin": None, "seconds": None, "test_error": None}


def _beside_lpboost(results, kind):
    """``(run, LPBoostClassifier's run on its data set at its nu)`` for every timing run of
    ``kind``; the LPBoost side is all None where the run has no nu or LPBoost did not run there."""
    for r in _timing_runs(results):
        if r["kind"] == kind:
            lp = _find_run(results, r["dataset"], "lpboost", r["nu"]) if r["nu"] is not None else None
            yield r, lp or _NO_RUN


def _nu_key(nu) -> str:
    return f"{nu:g}"


def _find_run(results, dataset, key, nu):
    for r in results["runs"]:
        if r["dataset"] == dataset and r["booster"] == key and (
                (nu is None and r["nu"] is None) or (nu is not None and r["nu"] is not None
                                                     and math.isclose(r["nu"], nu))):
            return r
    return None


# ------------------------------------------------------------------------------- markdown
def _fmt(x, spec=".3f", none="-"):
    if x is None:
        return none
    if isinstance(x, str):
        return x
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else "nan"
    return format(x, spec)


def _paper_cell(value):
    if value is None:
        return "-"
    if isinstance(value, str):  # '>1e4' -> '> 10^4'
        return "> 10^" + value.split("e")[1]
    return format(value, "g")


ABORTED_AS_THE_PAPER = "(aborted, as the paper)"


def _time_cell(row) -> str:
    """A Table 2 cell; a TIMEOUT is bold where the paper finished the cell (a miss of ours), and
    plain with "aborted, as the paper" where the paper's cell is an abort bound too."""
    cell = f"{'>= ' if row['lower_bound'] else ''}{row['mean_seconds']:.2f} s ({row['mean_rounds']:.0f} r)"
    if row["status"] != "converged":
        cell += (f" {row['status']} _{ABORTED_AS_THE_PAPER}_" if row["timeouts"] and row["paper_aborted"]
                 else f" **{row['status']}**")
    return cell


def _limit_text(seconds) -> str:
    """A parameter in seconds as the metadata prints it (None: no limit)."""
    return "none" if seconds is None else f"{seconds:g} s"


def metadata_markdown(results) -> str:
    """The provenance block every markdown file starts with."""
    md = results["metadata"]
    prm = md["parameters"]
    unfinished = results["state"] != "complete"
    lines = [
        f"- State: **{results['state']}**" + (" (only the runs below finished)" if unfinished else ""),
        *meta.provenance_lines(md),
        *_sittings_lines(md),
        f"- Parameters: eps = {prm['eps']}, nu = {', '.join(_nu_key(n) + 'm' for n in prm['nus'])} "
        f"(m = size of the sample fitted on), depth-{prm['max_depth']} trees, "
        f"max_time = {prm['max_time']} s per fit at most, total budget = {prm.get('budget', '-')} s "
        "(the per-fit limit each data set got is in the table below), "
        f"max_time_aborted = {_limit_text(prm.get('max_time_aborted'))} per fit at most in the cells the paper "
        "aborted, "
        f"{prm['folds']}-fold CV, stratified {1 - prm['test_size']:.0%}/{prm['test_size']:.0%} train/test split, "
        f"seed = {prm['seed']}, subsample = {prm['subsample'] or 'none'}, quick = {prm['quick']}",
        "- Boosters: " + "; ".join(f"{label_of(k)} = `{BOOSTERS[k].description}`" for k in prm["boosters"]),
        "- Peers: " + (", ".join(label_of(k) for k in prm["peers"]) or "none"),
        "",
        "| data set | source | m x p | subsample | train / test | s per fit at most | SHA-256 (as loaded) |",
        "|---|---|---|---:|---|---:|---|",
    ]
    for name, info in results["datasets"].items():
        limit = info.get("max_time", prm["max_time"])
        lines.append(f"| {name} | {info['source']} | {info['m']} x {info['p']} | {info['subsample'] or '-'} "
                     f"| {info['m_train']} / {info['m_test']} | {_fmt(limit, '.3g')} | `{info['sha256']}` |")
    return "\n".join(lines) + "\n"


def _sittings_lines(md) -> list[str]:
    """A bullet listing the sittings of a resumed run (none for a run of one sitting)."""
    sittings = md.get("sittings") or []
    if len(sittings) < 2:
        return []
    return [f"- Sittings ({len(sittings)}; the fits of each are in `fits.jsonl`, the command above is the last): "
            + "; ".join(f"{k}. {s.get('date')}, `{s.get('command')}`"
                        + (f", git {s['git_commit']}" if s.get("git_commit") else "")
                        for k, s in enumerate(sittings, 1))]


def data_notes_markdown(results) -> str:
    """Where a data set of the run is not the paper's (:data:`.paper.DATA_NOTES`), one line each."""
    notes = [(name, paper.DATA_NOTES[name]) for name in results["datasets"] if name in paper.DATA_NOTES]
    if not notes:
        return ""
    return "\n".join(["Data sets that differ from the paper's (see `marginboost.io.datasets`):", ""]
                     + [f"- {name}: {note}" for name, note in notes]) + "\n"


def table2_markdown(results) -> str:
    """Table 2 of paper 000 as Markdown: mean seconds and rounds per data set and booster, the paper's beside."""
    rows = table2_rows(results)
    keys = [k for k in _table2_keys(results) if any(r["booster"] == k for r in rows)]
    head = "| data set | train m x p | paper shape |"
    rule = "|---|---|---|"
    for k in keys:
        head += f" {label_of(k)} |"
        rule += "---:|"
        if paper.in_table2(k):
            head += " paper |"
            rule += "---:|"
    out = ["# Table 2: computation time (paper 000, section 5)", "",
           "Wall time of `fit` in seconds averaged over the nu grid, and the mean number of rounds (r). "
           "`>=`: the average includes runs stopped by max_time (**TIMEOUT k/n**: k of n runs), so it is a "
           "lower bound. The paper's cells (Gurobi 9.0.1, Xeon Gold 6124, nu in {0.1m..0.5m}, on "
           "Raetsch's versions of the data) are beside ours; its FW column is our FW (C-ERLPBoost) = "
           "MLPB. (SS only). Where the paper aborted a cell (`> 10^k`), each of our fits had at most "
           "max_time_aborted seconds, and a TIMEOUT there reads `TIMEOUT k/n "
           f"_{ABORTED_AS_THE_PAPER}_`; a bold **TIMEOUT** is a cell the paper finished and we did not.", "",
           metadata_markdown(results), "", head, rule]
    for dataset, info in results["datasets"].items():
        shape = paper.paper_shape(dataset)
        line = f"| {dataset} | {info['m_train']} x {info['p']} | {shape[0]} x {shape[1]} |" if shape else \
            f"| {dataset} | {info['m_train']} x {info['p']} | - |"
        for k in keys:
            row = next((r for r in rows if r["dataset"] == dataset and r["booster"] == k), None)
            line += f" {_time_cell(row) if row else '-'} |"
            if paper.in_table2(k):
                line += f" {_paper_cell(paper.paper_time(dataset, k))} |"
        out.append(line)
    ratios = mlpboost_vs_lpboost_markdown(results)
    notes = data_notes_markdown(results)
    cells = paper_cells_markdown(results)
    return ("\n".join(out) + "\n" + ("\n" + cells if cells else "") + ("\n" + notes if notes else "")
            + ("\n" + ratios if ratios else "")
            + "\nSection 5's claims, each reproduced or not, with the numbers: [section5.md](section5.md).\n")


def paper_cells_markdown(results) -> str:
    """Which of the paper's Table 2 cells ours finished: those it finished (the target: all, no
    TIMEOUT) and those it aborted (any outcome reproduces it; finishing one is news)."""
    rows = [r for r in table2_rows(results) if r["paper_seconds"] is not None]
    if not rows:
        return ""

    def names(cells):
        return ", ".join(f"{r['dataset']} {r['label']} ({r['status']})" for r in cells) or "none"

    finished = [r for r in rows if not r["paper_aborted"]]
    aborted = [r for r in rows if r["paper_aborted"]]
    missed = [r for r in finished if r["timeouts"]]
    done = [r for r in aborted if r["status"] == "converged"]
    return (f"Cells the paper finished: {len(finished)}, of which {len(missed)} with a TIMEOUT here: {names(missed)}. "
            f"Cells the paper aborted: {len(aborted)}, of which {len(done)} converged here at every nu"
            + (": " + ", ".join(f"{r['dataset']} {r['label']}" for r in done) if done else "") + ".\n")


def table3_markdown(results) -> str:
    """Table 3 of paper 000 as Markdown: CV-chosen nu and test error per data set and booster, then the peers."""
    rows = table3_rows(results)
    boosters = list(dict.fromkeys(r["booster"] for r in rows if r["kind"] == "booster"))
    peers = list(dict.fromkeys(r["booster"] for r in rows if r["kind"] == "peer"))
    folds = results["metadata"]["parameters"]["folds"]
    head, rule = "| data set |", "|---|"
    for k in boosters:
        head += f" {label_of(k)} | paper |"
        rule += "---:|---:|"
    for k in peers:
        head += f" {label_of(k)} |"
        rule += "---:|"
    out = ["# Table 3: test error, nu chosen by cross-validation (paper 000, section 5)", "",
           f"Per booster: nu chosen by {folds}-fold CV on the training part (smallest mean held-out error, "
           "ties to the smaller nu), refit on the whole training part, error on the test part; the chosen nu "
           "in brackets. TIMEOUT marks a refit stopped by max_time; `cv k TIMEOUT` counts CV fits stopped so. "
           "Peers are fitted once, untuned (the naive LPBoost at LPBoost's chosen nu). The paper's errors "
           "(its own splits of Raetsch's data) are beside ours.", "", metadata_markdown(results), "", head, rule]
    for dataset in results["datasets"]:
        line = f"| {dataset} |"
        for k in boosters:
            r = next((x for x in rows if x["dataset"] == dataset and x["booster"] == k), None)
            if r is None:
                line += " - | - |"
                continue
            cell = f"{_fmt(r['test_error'])} (nu={_nu_key(r['chosen_nu'])}m)"
            if r["status"] not in (None, "converged"):
                cell += f" **{r['status']}**"
            if r["cv_timeouts"]:
                cell += f" cv {r['cv_timeouts']}/{r['cv_fits']} TIMEOUT"
            line += f" {cell} | {_fmt(r['paper_test_error'], '.2f')} |"
        for k in peers:
            r = next((x for x in rows if x["dataset"] == dataset and x["booster"] == k), None)
            cell = "-" if r is None else _fmt(r["test_error"])
            if r is not None and r["status"] not in (None, "converged"):
                cell += f" **{r['status']}**"
            line += f" {cell} |"
        out.append(line)
    gaps = peer_gap_markdown(results)
    notes = data_notes_markdown(results)
    return "\n".join(out) + "\n" + ("\n" + notes if notes else "") + ("\n" + gaps if gaps else "")


PEER_MARGIN = 0.02  # issue target: each booster's test error within this of the best peer's


def peer_gap_rows(results) -> list[dict]:
    """Per data set and booster of Table 3: its test error minus the best peer's, in examples too.

    ``se`` is the standard error of that difference for two independent binomial errors on the
    same ``n`` test examples, sqrt((p1 (1 - p1) + p2 (1 - p2)) / n): the two classifiers are
    scored on the same examples, so this overstates the noise of a paired comparison, but it
    gives the scale against which a gap of a few examples has to be read.
    """
    rows = table3_rows(results)
    out = []
    for dataset in results["datasets"]:
        peers = [r for r in rows if r["dataset"] == dataset and r["kind"] == "peer" and r["test_error"] is not None]
        if not peers:
            continue
        best = min(peers, key=lambda r: r["test_error"])
        for r in rows:
            if r["dataset"] != dataset or r["kind"] != "booster" or r["test_error"] is None:
                continue
            n, p1, p2 = r["m_test"], r["test_error"], best["test_error"]
            gap = p1 - p2
            se = math.sqrt((p1 * (1 - p1) + p2 * (1 - p2)) / n)
            out.append({"dataset": dataset, "booster": r["booster"], "label": r["label"], "test_error": p1,
                        "best_peer": best["label"], "best_peer_error": p2, "gap": gap,
                        "gap_examples": int(round(gap * n)), "m_test": n, "se": se,
                        "within": gap <= PEER_MARGIN + 1e-12, "paper_test_error": r["paper_test_error"]})
    return out


def peer_gap_markdown(results) -> str:
    """Which Table 3 errors are within 0.02 of the best peer, and for the others the numbers that explain it."""
    gaps = peer_gap_rows(results)
    if not gaps:
        return ""
    out = ["## Against the best peer", "",
           f"Each booster's test error minus the best peer's on the same test part; within {PEER_MARGIN} is the "
           "target. `se`: standard error of the difference (two binomial errors on n test examples). Where a "
           "booster misses the target, the row says by how many test examples and how many standard errors.", "",
           "| data set | booster | test error | best peer | its error | gap | in examples (n) | gap / se | "
           "paper's error |", "|---|---|---:|---|---:|---:|---:|---:|---:|"]
    for g in gaps:
        mark = "" if g["within"] else " **> 0.02**"
        out.append(f"| {g['dataset']} | {g['label']} | {_fmt(g['test_error'])} | {g['best_peer']} "
                   f"| {_fmt(g['best_peer_error'])} | {g['gap']:+.3f}{mark} | {g['gap_examples']:+d} ({g['m_test']}) "
                   f"| {g['gap'] / g['se']:+.1f} | {_fmt(g['paper_test_error'], '.2f')} |")
    missed = [g for g in gaps if not g["within"]]
    if missed:
        noisy = [g for g in missed if g["gap"] / g["se"] <= 2.0]
        beyond = [g for g in missed if g["gap"] / g["se"] > 2.0]
        reported = [g for g in missed if g["paper_test_error"] is not None]
        paper_worse = [g for g in reported if g["paper_test_error"] >= g["test_error"]]
        text = [f"{len(missed)} of {len(gaps)} errors miss the target."]
        if noisy:
            text.append(f"{len(noisy)} of them are within 2 standard errors (largest "
                        f"{max(g['gap'] / g['se'] for g in noisy):.1f}): a gap of that size is what the "
                        "choice of the test part alone produces, so it is no evidence that the peer "
                        "generalises better.")
        if beyond:
            text.append("More than 2 standard errors, not explained by the size of the test part: "
                        + ", ".join(f"{g['dataset']} {g['label']} ({g['gap'] / g['se']:.1f})" for g in beyond)
                        + ".")
        if reported:
            text.append(f"The paper's own error for the booster is at least ours in {len(paper_worse)} of "
                        f"the {len(reported)} rows where it reports one.")
        text.append("By design the soft-margin boosters maximise the soft margin at a nu chosen from five "
                    "values by CV and keep a sparse ensemble; AdaBoost and gradient boosting minimise a "
                    "surrogate of the training error with all their trees, untuned.")
        out += ["", " ".join(text)]
    return "\n".join(out) + "\n"


def peers_markdown(results) -> str:
    """The peers' times and test errors as Markdown, beside LPBoostClassifier's at the same nu."""
    rows = peers_rows(results)
    out = ["# Peers: time and test error", "",
           "Fitted on the training part. The naive LPBoost re-solves its LP from scratch with "
           "`scipy.optimize.linprog(method='highs')` each round (same weak learner and stopping rule as "
           "LPBoostClassifier); `vs LPBoost` is its final soft margin minus LPBoostClassifier's at the same "
           "nu. With an exact weak learner (stumps) both end within eps of the optimum, so the two agree "
           "within eps; the greedy depth-2 trees are not exact, the smallest edge seen then depends on the "
           "path (the LP's optimal d is not unique), and the two may differ by more. The other peers "
           "minimise other losses and have no soft margin.", "",
           metadata_markdown(results), "",
           "| data set | peer | nu | rounds | status | seconds | LPBoost seconds | test error | soft margin "
           "| vs LPBoost |", "|---|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        status = r["status"] if r["status"] == "converged" else f"**{r['status']}**"
        nu = f"{_nu_key(r['nu'])}m" if r["nu"] is not None else "-"
        out.append(f"| {r['dataset']} | {r['label']} | {nu} | {_fmt(r['rounds'], 'd')} | {status} "
                   f"| {_fmt(r['seconds'], '.2f')} | {_fmt(r['lpboost_seconds'], '.2f')} "
                   f"| {_fmt(r['test_error'])} "
                   f"| {_fmt(r['soft_margin'], '.5f')} | {_fmt(r['soft_margin_minus_lpboost'], '+.1e')} |")
    return "\n".join(out) + "\n"


def canon_markdown(results) -> str:
    """The canon's table as Markdown: rounds, status, time, margin and test error per data set and
    booster, with LPBoostClassifier's soft margin, time and test error at the same nu beside."""
    rows = canon_rows(results)
    out = ["# The margin-boosting canon: time, margin and test error", "",
           "TotalBoost, SoftBoost, AdaBoostV, SmoothBoost, GraphSepBoost and our GBM on the same training "
           "and test parts as Tables 2 and 3, with the same depth-2 trees and per-fit time limit. The margin "
           "is the one the algorithm maximises: soft (at nu) for SoftBoost, beside LPBoostClassifier's soft "
           "margin, time and test error at the same nu (both solve the soft-margin problem to eps); hard "
           "(the minimum normalised margin) for TotalBoost, AdaBoostV and SmoothBoost; none for "
           "GraphSepBoost and GBM. The greedy trees are not an exact weak learner, so SoftBoost's and "
           "LPBoost's soft margins may differ by more than eps. Status: TIMEOUT is the time limit; otherwise "
           "each algorithm's own stop (AdaBoostV: margin certified >= min edge - eps; MAX_ITER for "
           "SmoothBoost: its round bound reached; for GBM: its 100 trees; GraphSepBoost: 'converged' (every "
           "pair separated) or 'no_progress').", "",
           metadata_markdown(results), "",
           "| data set | booster | nu | rounds | status | seconds | margin | test error | LPBoost soft margin "
           "| LPBoost seconds | LPBoost test error |", "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        status = f"**{r['status']}**" if r["status"] == "TIMEOUT" else r["status"]
        nu = f"{_nu_key(r['nu'])}m" if r["nu"] is not None else "-"
        margin = f"{r['margin']:.5f} ({r['margin_kind']})" if r["margin"] is not None else "-"
        out.append(f"| {r['dataset']} | {r['label']} | {nu} | {_fmt(r['rounds'], 'd')} | {status} "
                   f"| {_fmt(r['seconds'], '.2f')} | {margin} | {_fmt(r['test_error'])} "
                   f"| {_fmt(r['lpboost_soft_margin'], '.5f')} | {_fmt(r['lpboost_seconds'], '.2f')} "
                   f"| {_fmt(r['lpboost_test_error'])} |")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------- section 5's claims
_FASTER_THAN_FW = ("section 5: \"MLPB. (SS) and MLPB. (PFW) terminates much faster than FW and PFW, "
                   "respectively\"")
_FASTEST_GUARANTEED = "section 1: \"MLPBoost is the fastest among theoretically guaranteed algorithms\""
# claim (a): (id, booster, the one it is claimed faster than, where the paper says so)
SECTION5_FASTER = (
    ("a1", "mlpboost_ss", "cerlpboost", _FASTER_THAN_FW),
    ("a2", "mlpboost_pfw", "pfw", _FASTER_THAN_FW),
    ("a3", "mlpboost_ss", "erlpboost", _FASTEST_GUARANTEED),
    ("a4", "mlpboost_pfw", "erlpboost", _FASTEST_GUARANTEED),
)
FIG4_MIN_ROUNDS = 6  # update rounds a run needs (two per third) before its shares say anything


def faster_verdict(seconds: float, cut: bool, other: float, other_cut: bool) -> str:
    """Is a mean time ``seconds`` smaller than ``other``? 'holds', 'fails' or 'undecided'.

    As in :func:`ratio_verdict`, a mean cut by the time limit (``cut``) is a lower bound of the
    true one: ``seconds < other`` is decided only if ``seconds`` is not cut (a cut ``other`` is
    larger still), ``seconds >= other`` only if ``other`` is not cut (a cut ``seconds`` is larger
    still). The paper's abort bounds ('>1e4') are read the same way.
    """
    if seconds < other and not cut:
        return "holds"
    if seconds >= other and not other_cut:
        return "fails"
    return "undecided"


def claim_verdict(holds: int, fails: int, undecided: int) -> str:
    """'reproduced' if the claim holds in a majority of the cases even if every undecided one
    failed, 'not reproduced' if it holds in at most half even if every undecided one held,
    otherwise (or with no case) 'undecided'. The paper's claims are general statements ("much
    faster", "better progress"), not statements about every data set: its own Table 2 has
    exceptions (F.Solar, Thyroid, Titanic), so a majority is the test; the counts are printed."""
    n = holds + fails + undecided
    if n and holds > n / 2:
        return "reproduced"
    if n and holds + undecided <= n / 2:
        return "not reproduced"
    return "undecided"


def _counted(claim: dict) -> dict:
    """Add to ``claim`` the counts of its rows' verdicts and its overall verdict, ours and the paper's."""
    for side, key in (("", "verdict"), ("paper_", "paper_verdict")):
        decided = [r[key] for r in claim["rows"] if r.get(key) is not None]
        counts = {v: decided.count(v) for v in ("holds", "fails", "undecided")}
        claim[f"{side}counts"] = counts
        claim[f"{side}verdict"] = (claim_verdict(counts["holds"], counts["fails"], counts["undecided"])
                                   if decided else None)
    return claim


def _paper_bound(dataset, booster):
    return paper.paper_seconds_bound(dataset, booster) if paper.in_table2(booster) else None


def _faster_claim(results, cells, claim_id, booster, other, source) -> dict:
    """Claim (a): ``booster``'s mean time over the nu grid is below ``other``'s, per data set."""
    rows = []
    for dataset in results["datasets"]:
        mine, theirs = cells.get((dataset, booster)), cells.get((dataset, other))
        if mine is None or theirs is None:
            continue
        p_mine, p_theirs = _paper_bound(dataset, booster), _paper_bound(dataset, other)
        rows.append({
            "dataset": dataset, "seconds": mine["mean_seconds"], "lower_bound": mine["lower_bound"],
            "other_seconds": theirs["mean_seconds"], "other_lower_bound": theirs["lower_bound"],
            "verdict": faster_verdict(mine["mean_seconds"], mine["lower_bound"], theirs["mean_seconds"],
                                      theirs["lower_bound"]),
            "paper_seconds": paper.paper_time(dataset, booster),
            "paper_other_seconds": paper.paper_time(dataset, other),
            "paper_verdict": faster_verdict(*p_mine, *p_theirs) if p_mine and p_theirs else None,
        })
    return _counted({
        "id": claim_id, "claim": f"{label_of(booster)} is faster than {label_of(other)}", "source": source,
        "booster": booster, "other": other,
        "criterion": "per data set, its mean fit time over the nu grid is below the other's (Table 2)",
        "rows": rows})


def _lpboost_fastest_claim(results, cells) -> dict:
    """Claim (b): LPBoost's mean time is the smallest of the paper's boosters that ran, per data set."""
    others = [k for k in results["metadata"]["parameters"]["boosters"] if paper.in_table2(k) and k != "lpboost"]
    rows = []
    for dataset in results["datasets"]:
        lp = cells.get((dataset, "lpboost"))
        present = [k for k in others if (dataset, k) in cells]
        if lp is None or not present:
            continue
        verdicts = [faster_verdict(lp["mean_seconds"], lp["lower_bound"], cells[(dataset, k)]["mean_seconds"],
                                   cells[(dataset, k)]["lower_bound"]) for k in present]
        fastest = min(present, key=lambda k: cells[(dataset, k)]["mean_seconds"])
        p_lp = _paper_bound(dataset, "lpboost")
        p_others = {k: bound for k in present if (bound := _paper_bound(dataset, k)) is not None}
        p_fastest = min(p_others, key=lambda k: p_others[k][0]) if p_others else None
        rows.append({
            "dataset": dataset, "seconds": lp["mean_seconds"], "lower_bound": lp["lower_bound"],
            "fastest_other": fastest, "other_seconds": cells[(dataset, fastest)]["mean_seconds"],
            "other_lower_bound": cells[(dataset, fastest)]["lower_bound"], "verdict": _all_of(verdicts),
            "paper_seconds": paper.paper_time(dataset, "lpboost"), "paper_fastest_other": p_fastest,
            "paper_other_seconds": paper.paper_time(dataset, p_fastest) if p_fastest else None,
            "paper_verdict": (_all_of([faster_verdict(*p_lp, *b) for b in p_others.values()])
                              if p_lp and p_others else None),
        })
    return _counted({
        "id": "b", "claim": "LPBoost is the fastest", "booster": "lpboost", "other": None,
        "source": "section 5: \"LPBoost outperforms the running time in Table 2\"",
        "criterion": "per data set, LPBoost's mean fit time over the nu grid is below that of every other of "
                     "the paper's boosters that ran (the fastest of them is shown)",
        "rows": rows})


def _all_of(verdicts) -> str:
    """A conjunction of pairwise verdicts: fails if one fails, holds if all hold, else undecided."""
    if "fails" in verdicts:
        return "fails"
    return "holds" if all(v == "holds" for v in verdicts) else "undecided"


def secondary_shares(run) -> dict:
    """The share of rounds won by the secondary rule B early and late in one run with a curve.

    Algorithm 1 of paper 000 computes an FW candidate and a B candidate each round and keeps the
    better (ties to B); the ``update`` column of ``history_`` says which won, and the run's curve
    (:func:`.runner.curve_of`) keeps its running count ``n_secondary`` at sampled rounds, which is
    what Figure 4 plots. Round 1 (w_1 = e_{j_1}) makes no choice, nor does the stopping round of a
    converged run, so the rounds that choose are 2..R. The early part is rounds 2..a, the late part
    b+1..R, with a and b the sampled rounds nearest to the first and last thirds of 2..R from inside
    (the curve samples at least every 1/100 of the run); the shares there are exact counts.
    Returns ``early`` and ``late`` shares (None where the run is too short), the rounds they cover
    (first, last) and B's wins there (``early_secondary``, ``late_secondary``).
    """
    curve = run["curve"]
    count = dict(zip(curve["round"], curve["n_secondary"]))
    last = curve["round"][-1] - (run["status"] == "converged")
    choosing = last - 1
    a = max((r for r in count if 2 <= r <= 1 + choosing / 3), default=None)
    b = min((r for r in count if 1 + 2 * choosing / 3 <= r < last), default=None)
    if choosing < FIG4_MIN_ROUNDS or a is None or b is None:
        return {"rounds": choosing, "early": None, "late": None, "early_rounds": None, "late_rounds": None,
                "early_secondary": None, "late_secondary": None}
    early, late = count[a], curve["n_secondary"][-1] - count[b]
    return {"rounds": choosing, "early": early / (a - 1), "late": late / (last - b), "early_rounds": (2, a),
            "late_rounds": (b + 1, last), "early_secondary": early, "late_secondary": late}


def _figure4_claim(results) -> dict:
    """Claim (c): Figure 4's "B yields better progress in early iterations; in the latter half, F"."""
    rows = []
    for dataset, runs in collect_curves(results).items():
        for key in FIG4_BOOSTERS:
            run = runs.get(key)
            if run is None:
                continue
            shares = secondary_shares(run)
            if run["status"] != "converged":
                verdict = "undecided"  # cut by the limit: the run's true late rounds never ran
            elif shares["early"] is None:
                verdict = "undecided"  # too few rounds to have an early and a late part
            else:
                verdict = "holds" if shares["early"] > 0.5 and shares["late"] < 0.5 else "fails"
            rows.append({"dataset": dataset, "booster": key, "label": label_of(key), "nu": run["nu"],
                         "status": run["status"], "n_secondary_updates": run["curve"]["n_secondary"][-1],
                         **shares, "verdict": verdict, "paper_verdict": None})
    measured = [r for r in rows if r["early"] is not None and r["status"] == "converged"]
    return _counted({
        "id": "c", "claim": "the secondary update B wins early, the FW update F late (Figure 4)",
        "booster": None, "other": None,
        # the weaker reading, B's share falls from the first third to the last, for the reader
        "share_falls": sum(r["early"] > r["late"] for r in measured), "share_measured": len(measured),
        "source": "appendix B: \"the secondary update B yields better progress in early iterations. In the "
                  "latter half, F yields better progress\"",
        "criterion": "in the figures' run of each MLPBoost variant (nu = curve_nu), B wins more than half of the "
                     "rounds of the first third and fewer than half of those of the last third "
                     "(see `secondary_shares`); a run stopped by max_time is undecided (its late rounds never ran)",
        "rows": rows})


def section5_verdicts(results) -> list[dict]:
    """Paper 000's section-5 claims, each stated as reproduced or not by ``results``, with its numbers.

    One dict per claim: ``id``, ``claim``, ``source`` (the paper's words), ``criterion``, ``rows``
    (per data set, or per run for Figure 4: our numbers, the paper's, and each side's 'holds',
    'fails' or 'undecided'), ``counts`` and ``verdict`` (:func:`claim_verdict`: 'reproduced',
    'not reproduced' or 'undecided'), and the same from the paper's own Table 2 on the same data
    sets (``paper_counts``, ``paper_verdict``; None for Figure 4, which has no numbers).

    (a) MLPBoost is faster than FW (C-ERLPBoost), PFW and ERLPBoost: per data set, mean fit time
    over the nu grid (Table 2), with a TIMEOUT mean read as a lower bound (:func:`faster_verdict`).
    (b) LPBoost is the fastest of the six. (c) Figure 4: B wins early, F late (:func:`secondary_shares`).
    """
    cells = {(r["dataset"], r["booster"]): r for r in table2_rows(results)}
    claims = [_faster_claim(results, cells, *spec) for spec in SECTION5_FASTER]
    return claims + [_lpboost_fastest_claim(results, cells), _figure4_claim(results)]


def _share_cell(row, part) -> str:
    """'0.43 = 76/176 (2-177)': B's share of the rounds of ``part`` ('early', 'late'), its count, the rounds."""
    if row[part] is None:
        return "-"
    first, last = row[f"{part}_rounds"]
    return f"{row[part]:.2f} = {row[f'{part}_secondary']}/{last - first + 1} ({first}-{last})"


def _seconds_cell(seconds, lower_bound) -> str:
    return f"{'>= ' if lower_bound else ''}{seconds:.2f}"


def _counts_cell(counts) -> str:
    return f"{counts['holds']} / {counts['fails']} / {counts['undecided']}"


def section5_markdown(results) -> str:
    """Section 5's claims (:func:`section5_verdicts`) as Markdown: a verdict per claim, then its numbers."""
    claims = section5_verdicts(results)
    out = ["# Section 5 of paper 000: its claims, reproduced or not", "",
           "Each claim is tested per data set (Figure 4: per run) and is `reproduced` if it holds in a majority "
           "of them even if every undecided one failed, `not reproduced` if it holds in at most half even if "
           "every undecided one held, else `undecided` (`claim_verdict`). A mean over the nu grid that includes "
           "a TIMEOUT is a lower bound (`>=`), as is the paper's `> 10^k`; a comparison that such a bound leaves "
           "open is `undecided`. The paper's verdict applies the same test to its own Table 2 on the same data "
           "sets.", "", metadata_markdown(results), "",
           "| claim | where the paper says it | ours: holds / fails / undecided | verdict "
           "| paper's: holds / fails / undecided | paper's verdict |", "|---|---|---:|---|---:|---|"]
    for c in claims:
        paper_counts = _counts_cell(c["paper_counts"]) if c["paper_verdict"] is not None else "-"
        out.append(f"| ({c['id']}) {c['claim']} | {c['source']} | {_counts_cell(c['counts'])} "
                   f"| **{c['verdict'] or 'not run'}** | {paper_counts} "
                   f"| {c['paper_verdict'] or 'stated, no numbers'} |")
    for c in claims:
        out += ["", f"## ({c['id']}) {c['claim']}: {c['verdict'] or 'not run'}", "",
                f"Criterion: {c['criterion']}. Ours: holds in {c['counts']['holds']}, fails in "
                f"{c['counts']['fails']}, undecided in {c['counts']['undecided']}"
                + (f"; the paper's Table 2: {c['paper_counts']['holds']} / {c['paper_counts']['fails']} / "
                   f"{c['paper_counts']['undecided']} ({c['paper_verdict']})." if c["paper_verdict"] else ".")
                + (f" A weaker reading, B's share falls from the first third to the last, holds in "
                   f"{c['share_falls']} of the {c['share_measured']} decided runs." if c["id"] == "c" else ""), ""]
        if c["id"] == "c":
            out += ["| data set | booster | rounds choosing | status | B updates | B's share early (rounds) "
                    "| B's share late (rounds) | ours |", "|---|---|---:|---|---:|---:|---:|---|"]
            for r in c["rows"]:
                out.append(f"| {r['dataset']} | {r['label']} | {r['rounds']} | {r['status']} "
                           f"| {r['n_secondary_updates']} | {_share_cell(r, 'early')} | {_share_cell(r, 'late')} "
                           f"| {r['verdict']} |")
            continue
        other = label_of(c["other"]) if c["other"] else "fastest other"
        out += [f"| data set | {label_of(c['booster'])} s | {other} s | ours | paper {label_of(c['booster'])} "
                f"| paper {other} | paper |", "|---|---:|---:|---|---:|---:|---|"]
        for r in c["rows"]:
            theirs = _seconds_cell(r["other_seconds"], r["other_lower_bound"])
            paper_theirs = _paper_cell(r["paper_other_seconds"])
            if c["other"] is None:  # LPBoost against the fastest other: name it
                theirs += f" ({label_of(r['fastest_other'])})"
                if r["paper_fastest_other"]:
                    paper_theirs += f" ({label_of(r['paper_fastest_other'])})"
            out.append(f"| {r['dataset']} | {_seconds_cell(r['seconds'], r['lower_bound'])} | {theirs} "
                       f"| {r['verdict']} | {_paper_cell(r['paper_seconds'])} | {paper_theirs} "
                       f"| {r['paper_verdict'] or '-'} |")
    notes = data_notes_markdown(results)
    return "\n".join(out) + "\n" + ("\n" + notes if notes else "")


RUN_FIELDS = ("dataset", "kind", "phase", "booster", "label", "nu", "nu_count", "eps", "max_time", "m_train",
              "m_test", "p", "rounds", "status", "seconds", "loop_seconds", "weak_learner_seconds",
              "solver_seconds", "soft_margin", "gap", "n_hypotheses", "n_nonzero", "n_secondary_updates",
              "train_error", "test_error", "margin_kind", "margin", "dataset_sha256")
CANON_FIELDS = ("dataset", "booster", "label", "nu", "rounds", "status", "seconds", "margin_kind", "margin",
                "n_hypotheses", "train_error", "test_error", "lpboost_soft_margin", "lpboost_seconds",
                "lpboost_test_error", "dataset_sha256")
CV_FIELDS = ("dataset", "booster", "nu", "fold", "m_fold_train", "rounds", "status", "seconds", "error")


def write_tables(results, out_dir) -> list[Path]:
    """Write table2/table3/peers/canon as .md/.csv/.json, section5.md/.json, runs.csv, cv.csv and results.json."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"metadata": results["metadata"], "datasets": results["datasets"], "state": results["state"]}
    written = []
    for name, rows_fn, md_fn, fields in (("table2", table2_rows, table2_markdown, TABLE2_FIELDS),
                                        ("table3", table3_rows, table3_markdown, TABLE3_FIELDS),
                                        ("peers", peers_rows, peers_markdown, PEERS_FIELDS),
                                        ("canon", canon_rows, canon_markdown, CANON_FIELDS)):
        rows = rows_fn(results)
        written.append(atomic_write(out / f"{name}.md", md_fn(results)))
        written.append(atomic_write(out / f"{name}.csv", csv_text(rows, fields, meta)))
        written.append(atomic_write(out / f"{name}.json",
                                    json.dumps(jsonable({**meta, "rows": rows}), indent=1) + "\n"))
    written.append(atomic_write(out / "section5.md", section5_markdown(results)))
    written.append(atomic_write(out / "section5.json",
                                json.dumps(jsonable({**meta, "claims": section5_verdicts(results)}), indent=1) + "\n"))
    written.append(atomic_write(out / "runs.csv", csv_text(results["runs"], RUN_FIELDS, meta)))
    written.append(atomic_write(out / "cv.csv", csv_text(results["cv"], CV_FIELDS, meta)))
    written.append(atomic_write(out / "results.json", json.dumps(jsonable(results), indent=1) + "\n"))
    return written
