"""Figures 1-5 of paper 000 (section 5 and appendix B) as PNG files, from a benchmark's results.

* Fig. 1: one data set (ringnorm if it ran), soft margin vs time and test error vs time.
* Fig. 2: soft margin vs time (log scale), one panel per data set: LPBoost, ERLPBoost,
  C-ERLPBoost (FW) and MLPBoost (SS, PFW).
* Fig. 3: test error vs time (log scale), the same boosters and panels.
* Fig. 4: cumulative number of secondary-rule (B) updates vs round for MLPBoost (SS, PFW),
  with the dotted identity line (every round a B update).
* Fig. 5: the FW algorithms alone (FW = C-ERLPBoost, PFW) against MLPBoost (SS, PFW):
  soft margin vs time, i.e. what the secondary rule B buys.

As in the paper, the curves are those of ``nu = 0.1m`` (``curve_nu``), eps = 0.01; times are
the boosting loop's own clock (``history_['time']``), test errors come from the ensemble after
each round (``staged_decision_function``, sampled at up to 200 rounds). A cross at the end of a
curve marks a run stopped by ``max_time``. Plotting uses matplotlib's Agg canvas directly, never
pyplot, so it changes no global backend state.
"""
from __future__ import annotations

import json
from pathlib import Path

from marginboost.experiments.result_files import jsonable
from marginboost.experiments.runner import label_of

COLORS = {"lpboost": "tab:blue", "erlpboost": "tab:orange", "cerlpboost": "tab:green", "ss_only": "tab:olive",
          "pfw": "tab:purple", "mlpboost_ss": "tab:red", "mlpboost_pfw": "tab:brown"}
DASHED = {"cerlpboost", "ss_only", "pfw"}  # FW-only algorithms: dashed
FIG23_BOOSTERS = ("lpboost", "erlpboost", "cerlpboost", "mlpboost_ss", "mlpboost_pfw")
FIG4_BOOSTERS = ("mlpboost_ss", "mlpboost_pfw")
FIG5_BOOSTERS = ("cerlpboost", "ss_only", "pfw", "mlpboost_ss", "mlpboost_pfw")


def _load(results):
    if isinstance(results, (str, Path)):
        return json.loads(Path(results).read_text())
    return results


def collect_curves(results) -> dict:
    """``{dataset: {booster: run record with a 'curve'}}`` in the order they ran."""
    out: dict = {}
    for r in results["runs"]:
        if r.get("curve") and r.get("phase", "timing") == "timing":
            out.setdefault(r["dataset"], {})[r["booster"]] = r
    return out


def _figure(n_panels: int, ncols: int = 3, size=(4.2, 3.2)):
    from matplotlib.figure import Figure

    ncols = min(ncols, n_panels)
    nrows = -(-n_panels // ncols)
    # At least 6.5 in wide so that the two-line title and the legend fit over one panel.
    fig = Figure(figsize=(max(size[0] * ncols, 6.5), size[1] * nrows + 1.2), layout="constrained", dpi=110)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def _plot(ax, run, x_key, y_key):
    curve = run["curve"]
    key = run["booster"]
    style = dict(color=COLORS.get(key), linestyle="--" if key in DASHED else "-", linewidth=1.5,
                 label=label_of(key))
    xs, ys = curve[x_key], curve[y_key]
    if x_key == "time":  # a log axis cannot show t = 0
        pairs = [(x, y) for x, y in zip(xs, ys) if x > 0]
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    ax.plot(xs, ys, **style)
    if run["status"] == "TIMEOUT" and xs:
        ax.plot(xs[-1:], ys[-1:], marker="x", markersize=8, color=style["color"], linestyle="none")


def _finish(fig, axes, title, path, provenance: dict) -> Path:
    handles, labels = {}, []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    if handles:
        # as many legend columns as the figure's width holds (about 1.6 in per entry)
        per_row = max(1, min(len(labels), int(fig.get_figwidth() // 1.6)))
        fig.legend([handles[lab] for lab in labels], labels, loc="outside lower center",
                   ncol=per_row, frameon=False, fontsize=10)
    fig.suptitle(title, fontsize=12)
    # Provenance in the PNG's text chunks (read with PIL: Image.open(path).text["Comment"]).
    fig.savefig(path, metadata={"Title": title.replace("\n", "; "), "Software": provenance["software"],
                                "Comment": provenance["comment"]})
    return path


def _title(ax, dataset, runs):
    any_run = next(iter(runs.values()))
    ax.set_title(f"{dataset} (m = {any_run['m_train']}, nu = {any_run['nu']:g}m)", fontsize=10)


def _time_panels(curves, boosters, y_key, y_label, title, path, provenance, datasets=None) -> Path | None:
    datasets = [d for d in (datasets or curves) if any(b in curves[d] for b in boosters)]
    if not datasets:
        return None
    fig, axes = _figure(len(datasets))
    for ax, dataset in zip(axes, datasets):
        _time_axis(ax, curves[dataset], boosters, y_key, y_label, dataset)
    return _finish(fig, axes, title, path, provenance)


def _time_axis(ax, runs, boosters, y_key, y_label, dataset) -> None:
    """One panel: ``y_key`` against time (log axis) for each booster that ran."""
    for b in boosters:
        if b in runs:
            _plot(ax, runs[b], "time", y_key)
    ax.set_xscale("log")
    ax.set_xlabel("time (s, log scale)")
    ax.set_ylabel(y_label)
    ax.grid(True, which="major", alpha=0.3)
    _title(ax, dataset, runs)


def _provenance(results) -> dict:
    md = results["metadata"]
    comment = {"metadata": md, "datasets": results["datasets"], "state": results["state"]}
    return {"software": f"marginboost {md['marginboost_version']}",
            "comment": json.dumps(jsonable(comment), sort_keys=True)}


def make_figures(results, out_dir) -> list[Path]:
    """Write the PNGs of Figs. 1-5 (those with data) to ``out_dir``; ``results`` is the dict
    :func:`~marginboost.experiments.run_benchmark` returns or the path of its results.json."""
    results = _load(results)
    curves = collect_curves(results)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if not curves:
        return []
    prm = results["metadata"]["parameters"]
    setting = f"nu = {prm['curve_nu']:g}m, eps = {prm['eps']:g} (a cross: stopped by max_time)"
    provenance = _provenance(results)
    written = []

    # Fig. 1: one data set, two panels (the paper's is ringnorm's 0-th fold).
    dataset = "ringnorm" if "ringnorm" in curves else next(iter(curves))
    runs = curves[dataset]
    fig, axes = _figure(2, ncols=2, size=(5.0, 3.6))
    for ax, (y_key, y_label) in zip(axes, (("soft_margin", "soft margin"), ("test_error", "test error"))):
        _time_axis(ax, runs, FIG23_BOOSTERS, y_key, y_label, dataset)
    written.append(_finish(fig, axes, f"Fig. 1 (paper 000, section 5): {dataset}\n{setting}",
                           out / f"fig1_{dataset}.png", provenance))

    for fig_no, y_key, y_label, boosters, name in (
            (2, "soft_margin", "soft margin", FIG23_BOOSTERS, "fig2_soft_margin_vs_time.png"),
            (3, "test_error", "test error", FIG23_BOOSTERS, "fig3_test_error_vs_time.png"),
            (5, "soft_margin", "soft margin", FIG5_BOOSTERS, "fig5_fw_vs_mlpboost.png")):
        what = {2: "soft margin vs time", 3: "test error vs time",
                5: "FW algorithms vs MLPBoost, soft margin vs time"}[fig_no]
        path = _time_panels(curves, boosters, y_key, y_label,
                            f"Fig. {fig_no} (paper 000, appendix B): {what}\n{setting}", out / name,
                            provenance)
        if path is not None:
            written.append(path)

    # Fig. 4: cumulative count of secondary updates per round, against the identity.
    datasets = [d for d in curves if any(b in curves[d] for b in FIG4_BOOSTERS)]
    if datasets:
        fig, axes = _figure(len(datasets))
        for ax, dataset in zip(axes, datasets):
            runs = curves[dataset]
            last = 1
            for b in FIG4_BOOSTERS:
                if b in runs:
                    _plot(ax, runs[b], "round", "n_secondary")
                    last = max(last, runs[b]["curve"]["round"][-1])
            ax.plot([0, last], [0, last], linestyle=":", color="black", linewidth=1.2,
                    label="identity (B every round)")
            ax.set_xlabel("round")
            ax.set_ylabel("secondary (B) updates so far")
            ax.grid(True, alpha=0.3)
            _title(ax, dataset, runs)
        written.append(_finish(fig, axes, "Fig. 4 (paper 000, appendix B): number of secondary-rule updates\n"
                                          + setting, out / "fig4_secondary_updates.png", provenance))
    return written
