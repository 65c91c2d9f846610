"""The experiments of paper 002 (Naghibi and Pfister, NIPS 2014) for MABoost and its variants.

Four parts, one entry point :func:`run_ma_experiments` (``marginboost bench-ma``):

1. **Training error vs rounds** of every variant (:data:`CURVE_VARIANTS`) and AdaBoost on one
   data set with decision stumps; each curve is ``history_['train_error']``, and the bound of
   Theorem 1 (``exp(-sum gamma^2/2)`` for the entropy, 002 eq. 9) is recorded beside it.
2. **Sparsity of SparseBoost** (002 Algorithm 2): the fraction of zero weights
   ``history_['n_zero'] / m`` per round, for several l1 factors ``c`` (``sparsity``).
3. **Noise tolerance** (002 section 3.1: smooth distributions resist label noise): on KEEL
   sets, random stratified 70/30 splits, a fraction ``rho`` in :data:`NOISE_RATES` of the
   *training* labels flipped (exactly ``round(rho m)`` of them, chosen by a seeded generator),
   test error on the clean test labels after ``rounds`` rounds: AdaBoost, entropy MABoost,
   smooth-MABoost (``lambda`` in :data:`SMOOTHNESSES`) and MadaBoost.
4. **Trusted subset** (002 section 3.2, combining data sets): a small clean part of the
   training set (``trusted`` fraction), the rest with 20% flipped labels. The paper's
   arrangement caps the *secondary* set and drives the *primary* set's error to 0, so the
   noisy part is the secondary (capped) set; the brief's literal arrangement (the clean
   subset as the secondary set) is run too, with AdaBoost on everything, AdaBoost on the
   clean subset alone and smooth-MABoost as references.

Everything is seeded: the same ``seed`` gives the same numbers (times aside). Outputs in
``out_dir``: ``results.json`` (metadata from :func:`.metadata.collect`, every curve and row),
``training_error.csv``, ``sparsity.csv``, ``noise.csv``, ``trusted.csv``, ``maboost.md`` (the
tables) and the PNGs ``training_error.png``, ``sparsity.png``, ``noise.png``,
``noise_curves.png``.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np

from marginboost.io.datasets import load_dataset
from marginboost.core.interrupts import on_interrupt
from marginboost.estimators.maboost import AdaBoostClassifier, MABoostClassifier, MadaBoostClassifier
from marginboost.experiments.metadata import collect
from marginboost.experiments.result_files import atomic_write, csv_text, jsonable

NOISE_RATES = (0.0, 0.05, 0.1, 0.2)
SMOOTHNESSES = (0.1, 0.2)
SPARSITIES = (0.0, 0.5, 0.9)
TRUSTED_NOISE = 0.2

# name -> MABoostClassifier parameters ('AdaBoost' and 'MadaBoost' are their own estimators)
CURVE_VARIANTS = {
    "AdaBoost": None,
    "entropy normal": dict(regularizer="entropy", variant="normal"),
    "entropy maxmargin": dict(regularizer="entropy", variant="maxmargin"),
    "entropy smooth (lambda=0.1)": dict(regularizer="entropy", variant="smooth", smoothness=0.1),
    "entropy combined (lambda=0.1)": dict(regularizer="entropy", variant="combined", smoothness=0.1),
    "l2 normal": dict(regularizer="l2", variant="normal"),
    "l2 lazy normal": dict(regularizer="l2", update="lazy", variant="normal"),
    "l2 maxmargin": dict(regularizer="l2", variant="maxmargin"),
    "l2 smooth (lambda=0.1)": dict(regularizer="l2", variant="smooth", smoothness=0.1),
    "SparseBoost (c=0.5)": dict(regularizer="l2", variant="sparse", sparsity=0.5),
    "MadaBoost": None,
}

FULL = dict(curve_dataset="ringnorm", curve_rows=2000, curve_rounds=300,
            noise_datasets=("heart", "breast_cancer", "diabetes", "german"), noise_rounds=300, splits=10,
            trusted=0.1, max_depth=2)
QUICK = dict(curve_dataset="heart", curve_rows=None, curve_rounds=20,
             noise_datasets=("heart", "breast_cancer", "diabetes"), noise_rounds=15, splits=1,
             trusted=0.1, max_depth=2)


def _make(name: str, rounds: int, weak_learner: str, max_depth: int, **params):
    if name.startswith("AdaBoost"):
        return AdaBoostClassifier(weak_learner=weak_learner, max_depth=max_depth, max_iter=rounds)
    if name.startswith("MadaBoost"):
        return MadaBoostClassifier(weak_learner=weak_learner, max_depth=max_depth, max_iter=rounds)
    return MABoostClassifier(weak_learner=weak_learner, max_depth=max_depth, max_iter=rounds, **params)


def flip_labels(y: np.ndarray, rate: float, rng: np.random.Generator) -> np.ndarray:
    """``y`` (in {-1, +1}) with exactly ``round(rate * m)`` labels, chosen by ``rng``, negated."""
    y = y.copy()
    flipped = rng.choice(y.shape[0], size=int(round(rate * y.shape[0])), replace=False)
    y[flipped] = -y[flipped]
    return y


def _split(y: np.ndarray, seed: int):
    from sklearn.model_selection import train_test_split

    idx = np.arange(y.shape[0])
    return train_test_split(idx, test_size=0.3, random_state=seed, stratify=y)


def _subsample(data, rows: int | None, seed: int):
    if rows is None or rows >= data.shape[0]:
        return data.X, data.y
    keep = np.sort(np.random.default_rng(seed).choice(data.shape[0], size=rows, replace=False))
    return data.X[keep], data.y[keep]


def _test_errors(est, X, y) -> np.ndarray:
    """Test error of the ensemble after every round (ties predicted as ``classes_[0]``)."""
    return np.array([np.mean(p != y) for p in est.staged_predict(X)])


# ------------------------------------------------------------------------------ the parts
def training_error_curves(p: dict, seed: int) -> list[dict]:
    """Part 1: ``history_`` of every variant on one data set, decision stumps."""
    data = load_dataset(p["curve_dataset"])
    X, y = _subsample(data, p["curve_rows"], seed)
    secondary = np.random.default_rng(seed).random(y.shape[0]) < 0.2
    out = []
    for name, params in CURVE_VARIANTS.items():
        est = _make(name, p["curve_rounds"], "stump", 1, **(params or {}))
        start = time.perf_counter()
        if params and params.get("variant") == "combined":
            est.fit(X, y, secondary_mask=secondary)
        else:
            est.fit(X, y)
        H = est.history_
        out.append(dict(dataset=p["curve_dataset"], m=int(y.shape[0]), variant=name, rounds=int(est.n_iter_),
                        status=est.status_, seconds=time.perf_counter() - start,
                        train_error=H["train_error"], edge=H["edge"],
                        entropy_bound=np.exp(-np.cumsum(H["edge"] ** 2) / 2),
                        n_zero=H["n_zero"], max_weight=H["max_weight"]))
    return out


def sparsity_curves(p: dict, seed: int) -> list[dict]:
    """Part 2: SparseBoost's fraction of zero weights (and training error) per round."""
    data = load_dataset(p["curve_dataset"])
    X, y = _subsample(data, p["curve_rows"], seed)
    out = []
    for c in SPARSITIES:
        est = MABoostClassifier(regularizer="l2", variant="sparse", sparsity=c, weak_learner="stump",
                                max_iter=p["curve_rounds"]).fit(X, y)
        H = est.history_
        out.append(dict(dataset=p["curve_dataset"], m=int(y.shape[0]), sparsity=c, rounds=int(est.n_iter_),
                        status=est.status_, zero_fraction=H["n_zero"] / y.shape[0], train_error=H["train_error"]))
    return out


def noise_boosters() -> dict:
    out = {"AdaBoost": None, "MABoost (entropy)": dict(regularizer="entropy")}
    for lam in SMOOTHNESSES:
        out[f"smooth-MABoost (lambda={lam:g})"] = dict(regularizer="entropy", variant="smooth", smoothness=lam)
    out["MadaBoost"] = None
    return out


def noise_tolerance(p: dict, seed: int, progress: Callable) -> tuple[list[dict], dict]:
    """Part 3: test error (clean test labels) under training label noise; rows and mean curves."""
    rows, curves = [], {}
    for name in p["noise_datasets"]:
        data = load_dataset(name)
        for split in range(p["splits"]):
            train, test = _split(data.y, seed + split)
            for rate in NOISE_RATES:
                y_train = flip_labels(data.y[train], rate, np.random.default_rng([seed, split, int(rate * 1000)]))
                for booster, params in noise_boosters().items():
                    est = _make(booster, p["noise_rounds"], "tree", p["max_depth"], **(params or {}))
                    start = time.perf_counter()
                    est.fit(data.X[train], y_train)
                    seconds = time.perf_counter() - start
                    staged = _test_errors(est, data.X[test], data.y[test])
                    rows.append(dict(dataset=name, split=split, noise=rate, booster=booster, rounds=int(est.n_iter_),
                                     train_error_noisy=float(est.history_["train_error"][-1]),
                                     train_error_clean=float(np.mean(est.predict(data.X[train]) != data.y[train])),
                                     test_error=float(staged[-1]), min_test_error=float(staged.min()),
                                     # how far the distribution got from uniform: smooth caps at 1/lambda
                                     max_weight_times_m=float(est.history_["max_weight"].max() * y_train.shape[0]),
                                     seconds=seconds))
                    if rate == max(NOISE_RATES):
                        curves.setdefault(name, {}).setdefault(booster, []).append(staged)
        progress(f"  noise: {name} done")
    mean_curves = {d: {b: _mean_padded(c) for b, c in by.items()} for d, by in curves.items()}
    return rows, mean_curves


def _mean_padded(curves: list) -> np.ndarray:
    """Mean over splits; a run stopped early keeps its last value."""
    T = max(len(c) for c in curves)
    return np.mean([np.r_[c, np.full(T - len(c), c[-1])] for c in curves], axis=0)


def trusted_subset(p: dict, seed: int, progress: Callable) -> list[dict]:
    """Part 4: clean trusted subset + noisy rest; combined MABoost in both arrangements."""
    rows = []
    lam = 0.2
    for name in p["noise_datasets"]:
        data = load_dataset(name)
        for split in range(p["splits"]):
            train, test = _split(data.y, seed + split)
            rng = np.random.default_rng([seed, split, 7])
            m = train.shape[0]
            clean = np.zeros(m, dtype=bool)
            clean[rng.choice(m, size=max(2, int(round(p["trusted"] * m))), replace=False)] = True
            y_train = data.y[train].copy()
            y_train[~clean] = flip_labels(y_train[~clean], TRUSTED_NOISE, rng)
            X_train = data.X[train]
            fits = {
                "AdaBoost (all)": (_make("AdaBoost", p["noise_rounds"], "tree", p["max_depth"]), X_train, y_train, {}),
                "AdaBoost (trusted only)": (_make("AdaBoost", p["noise_rounds"], "tree", p["max_depth"]),
                                            X_train[clean], y_train[clean], {}),
                f"smooth-MABoost (all, lambda={lam:g})": (
                    _make("smooth", p["noise_rounds"], "tree", p["max_depth"], variant="smooth", smoothness=lam),
                    X_train, y_train, {}),
                f"combined: noisy part capped (lambda={lam:g})": (
                    _make("combined", p["noise_rounds"], "tree", p["max_depth"], variant="combined", smoothness=lam),
                    X_train, y_train, {"secondary_mask": ~clean}),
                f"combined: trusted part capped (lambda={lam:g})": (
                    _make("combined", p["noise_rounds"], "tree", p["max_depth"], variant="combined", smoothness=lam),
                    X_train, y_train, {"secondary_mask": clean}),
            }
            for booster, (est, X_fit, y_fit, kw) in fits.items():
                if np.unique(y_fit).shape[0] < 2:  # a tiny trusted subset of one class: nothing to learn
                    continue
                est.fit(X_fit, y_fit, **kw)
                pred = est.predict(X_train)
                rows.append(dict(dataset=name, split=split, booster=booster, m_trusted=int(clean.sum()),
                                 rounds=int(est.n_iter_),
                                 train_error_trusted=float(np.mean(pred[clean] != y_train[clean])),
                                 train_error_noisy_part=float(np.mean(pred[~clean] != y_train[~clean])),
                                 test_error=float(np.mean(est.predict(data.X[test]) != data.y[test]))))
        progress(f"  trusted subset: {name} done")
    return rows


# ----------------------------------------------------------------------------- summaries
def _summary(rows: list[dict], keys: tuple, value: str = "test_error") -> list[dict]:
    """Mean and standard error of ``value`` over splits, per ``keys``."""
    groups: dict = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r[value])
    out = []
    for key, vals in groups.items():
        v = np.asarray(vals, dtype=np.float64)
        se = float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else float("nan")
        out.append({**dict(zip(keys, key)), "mean": float(v.mean()), "se": se, "n": int(v.size)})
    return out


def _cell(mean: float, se: float) -> str:
    return f"{mean:.3f}" + (f" ± {se:.3f}" if np.isfinite(se) else "")


def noise_markdown(rows: list[dict]) -> str:
    summary = _summary(rows, ("dataset", "booster", "noise"))
    by = {(s["dataset"], s["booster"], s["noise"]): s for s in summary}
    boosters = list(noise_boosters())
    lines = []
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        lines += [f"#### {dataset}", "", "| booster | " + " | ".join(f"noise {r:g}" for r in NOISE_RATES) + " |",
                  "|---|" + "---:|" * len(NOISE_RATES)]
        for b in boosters:
            cells = [by.get((dataset, b, r)) for r in NOISE_RATES]
            lines.append(f"| {b} | " + " | ".join(_cell(c["mean"], c["se"]) if c else "-" for c in cells) + " |")
        lines.append("")
    # one line per noise rate: does smooth-MABoost beat AdaBoost on average over the data sets?
    lines += ["Mean test error over the data sets (each set's mean over splits):", "",
              "| noise | AdaBoost | " + " | ".join(b for b in boosters if b != "AdaBoost") + " |",
              "|---:|---:|" + "---:|" * (len(boosters) - 1)]
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    for r in NOISE_RATES:
        means = {b: np.mean([by[(d, b, r)]["mean"] for d in datasets]) for b in boosters}
        lines.append(f"| {r:g} | {means['AdaBoost']:.3f} | " + " | ".join(
            f"{means[b]:.3f}" for b in boosters if b != "AdaBoost") + " |")
    # smooth-MABoost caps every weight at 1/(lambda m): it acts only where the others exceed that
    lines += ["", "Largest weight times m reached during the run (mean over data sets and splits; "
              "smooth-MABoost caps it at 1/lambda):", "",
              "| noise | " + " | ".join(boosters) + " |", "|---:|" + "---:|" * len(boosters)]
    for r in NOISE_RATES:
        peak = {b: np.mean([row["max_weight_times_m"] for row in rows if row["noise"] == r and row["booster"] == b])
                for b in boosters}
        lines.append(f"| {r:g} | " + " | ".join(f"{peak[b]:.1f}" for b in boosters) + " |")
    return "\n".join(lines)


def trusted_markdown(rows: list[dict]) -> str:
    summary = _summary(rows, ("dataset", "booster"))
    boosters = list(dict.fromkeys(r["booster"] for r in rows))
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    by = {(s["dataset"], s["booster"]): s for s in summary}
    trusted = {(s["dataset"], s["booster"]): s for s in _summary(rows, ("dataset", "booster"), "train_error_trusted")}
    lines = ["| booster | " + " | ".join(datasets) + " | train error on the trusted part (mean over sets) |",
             "|---|" + "---:|" * (len(datasets) + 1)]
    for b in boosters:
        cells = [by.get((d, b)) for d in datasets]
        tr = np.mean([trusted[(d, b)]["mean"] for d in datasets if (d, b) in trusted])
        lines.append(f"| {b} | " + " | ".join(_cell(c["mean"], c["se"]) if c else "-" for c in cells)
                     + f" | {tr:.3f} |")
    return "\n".join(lines)


# --------------------------------------------------------------------------------- figures
def _figure(n_panels: int, ncols: int = 2, size=(5.0, 3.6)):
    from matplotlib.figure import Figure

    ncols = min(ncols, n_panels)
    nrows = -(-n_panels // ncols)
    fig = Figure(figsize=(size[0] * ncols, size[1] * nrows + 0.8), layout="constrained", dpi=110)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def _save(fig, path: Path, title: str, meta: dict) -> Path:
    fig.suptitle(title, fontsize=11)
    fig.savefig(path, metadata={"Title": title, "Software": f"marginboost {meta['marginboost_version']}",
                                "Comment": f"{meta['command']} ({meta['date']}, git {meta['git_commit']})"})
    return path


def make_figures(results: dict, out_dir: Path) -> list[Path]:
    """Draw the MABoost figures of ``results`` into ``out_dir`` (training error, SparseBoost's sparsity,
    label noise: PNG files); return their paths. Needs matplotlib."""
    meta, paths = results["metadata"], []
    curves = results["training_error"]
    fig, (ax,) = _figure(1, size=(8.0, 5.0))
    for i, c in enumerate(curves):
        rounds = np.arange(1, len(c["train_error"]) + 1)
        ax.plot(rounds, np.maximum(c["train_error"], 1e-4), label=c["variant"],
                color=f"C{i}" if i < 10 else "black",  # the default cycle has 10 colours
                ls="--" if "l2" in c["variant"] or "Sparse" in c["variant"] else "-")
    ax.set(xscale="log", yscale="log", xlabel="round", ylabel="training error (floored at 1e-4)")
    ax.legend(fontsize=7, ncol=2)
    paths.append(_save(fig, out_dir / "training_error.png",
                       f"Training error vs rounds, {curves[0]['dataset']} (m = {curves[0]['m']}), stumps", meta))

    fig, axes = _figure(2)
    for c in results["sparsity"]:
        rounds = np.arange(1, len(c["zero_fraction"]) + 1)
        axes[0].plot(rounds, c["zero_fraction"], label=f"c = {c['sparsity']:g}")
        axes[1].plot(rounds, c["train_error"], label=f"c = {c['sparsity']:g}")
    axes[0].set(xlabel="round", ylabel="fraction of zero weights")
    axes[1].set(xlabel="round", ylabel="training error")
    axes[0].legend(fontsize=8)
    paths.append(_save(fig, out_dir / "sparsity.png", "SparseBoost: sparsity of the distribution and training error",
                       meta))

    summary = _summary(results["noise"], ("dataset", "booster", "noise"))
    datasets = list(dict.fromkeys(r["dataset"] for r in results["noise"]))
    fig, axes = _figure(len(datasets))
    for ax, d in zip(axes, datasets):
        for b in noise_boosters():
            pts = sorted((s["noise"], s["mean"], s["se"]) for s in summary if s["dataset"] == d and s["booster"] == b)
            x, mean, se = (np.array(v) for v in zip(*pts))
            ax.errorbar(x, mean, yerr=np.nan_to_num(se), marker="o", capsize=3, label=b)
        ax.set(title=d, xlabel="fraction of training labels flipped", ylabel="test error (clean labels)")
    axes[0].legend(fontsize=7)
    paths.append(_save(fig, out_dir / "noise.png", "Label noise: test error after the last round", meta))

    fig, axes = _figure(len(datasets))
    for ax, d in zip(axes, datasets):
        for b, curve in results["noise_curves"][d].items():
            ax.plot(np.arange(1, len(curve) + 1), curve, label=b)
        ax.set(title=f"{d}, {max(NOISE_RATES):g} noise", xlabel="round", ylabel="test error (clean labels)")
    axes[0].legend(fontsize=7)
    paths.append(_save(fig, out_dir / "noise_curves.png", "Test error vs rounds under label noise (mean over splits)",
                       meta))
    return paths


# ------------------------------------------------------------------------------ entry point
@on_interrupt("raise")  # Ctrl-C ends the run: an interrupted fit must not enter the tables
def run_ma_experiments(out_dir, quick: bool = False, seed: int = 0, progress: Callable = print) -> dict:
    """Run parts 1-4 (``quick``: small sets, few rounds, one split) and write the outputs."""
    p = dict(QUICK if quick else FULL)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    meta = collect({**p, "quick": quick, "seed": seed, "noise_rates": NOISE_RATES, "smoothnesses": SMOOTHNESSES,
                    "sparsities": SPARSITIES, "trusted_noise": TRUSTED_NOISE})
    progress("training error curves ...")
    curves = training_error_curves(p, seed)
    progress("SparseBoost sparsity ...")
    sparsity = sparsity_curves(p, seed)
    progress("noise tolerance ...")
    noise, noise_curves = noise_tolerance(p, seed, progress)
    progress("trusted subset ...")
    trusted = trusted_subset(p, seed, progress)
    meta["seconds"] = time.perf_counter() - start
    results = jsonable(dict(metadata=meta, training_error=curves, sparsity=sparsity, noise=noise,
                            noise_curves=noise_curves, trusted=trusted))
    _write(results, out_dir, p)
    make_figures(results, out_dir)
    return results


def _write(results: dict, out_dir: Path, p: dict) -> None:
    import json

    meta = results["metadata"]
    atomic_write(out_dir / "results.json", json.dumps(results, indent=1, sort_keys=True) + "\n")
    per_round = [dict(variant=c["variant"], round=t + 1, train_error=e, entropy_bound=b, n_zero=z)
                 for c in results["training_error"]
                 for t, (e, b, z) in enumerate(zip(c["train_error"], c["entropy_bound"], c["n_zero"]))]
    atomic_write(out_dir / "training_error.csv",
                 csv_text(per_round, ("variant", "round", "train_error", "entropy_bound", "n_zero"), meta))
    sparse_rows = [dict(sparsity=c["sparsity"], round=t + 1, zero_fraction=z, train_error=e)
                   for c in results["sparsity"] for t, (z, e) in enumerate(zip(c["zero_fraction"], c["train_error"]))]
    atomic_write(out_dir / "sparsity.csv", csv_text(sparse_rows, ("sparsity", "round", "zero_fraction", "train_error"),
                                                    meta))
    atomic_write(out_dir / "noise.csv", csv_text(results["noise"], list(results["noise"][0]), meta))
    atomic_write(out_dir / "trusted.csv", csv_text(results["trusted"], list(results["trusted"][0]), meta))
    final = "\n".join(
        f"| {c['variant']} | {c['rounds']} | {c['train_error'][min(9, len(c['train_error']) - 1)]:.4f} | "
        f"{c['train_error'][-1]:.4f} | {int(c['n_zero'][-1])} |" for c in results["training_error"])
    sparse = "\n".join(
        f"| {c['sparsity']:g} | {c['rounds']} | {c['zero_fraction'][min(9, len(c['zero_fraction']) - 1)]:.3f} | "
        f"{c['zero_fraction'][-1]:.3f} | {np.max(c['zero_fraction']):.3f} | {c['train_error'][-1]:.4f} |"
        for c in results["sparsity"])
    curve = results["training_error"][0]
    text = f"""# MABoost experiments (paper 002)

Command: `{meta['command']}` ({meta['date']}, git {meta['git_commit']}, {meta['seconds']:.0f} s wall,
load average at the start {', '.join(f'{x:.2f}' for x in meta['machine']['load_average'])} on
{meta['machine']['cpu_count']} cores). Parameters: `{json_line(meta['parameters'])}`.

## 1. Training error vs rounds (`training_error.png`, `training_error.csv`)

{curve['dataset']}, m = {curve['m']}{' (a seeded random subsample)' if p['curve_rows'] else ''}, decision
stumps; combined: a random 20% of the examples as the capped secondary set.

| variant | rounds | train error at round 10 | final train error | zero weights at the end |
|---|---:|---:|---:|---:|
{final}

## 2. SparseBoost: fraction of zero weights (`sparsity.png`, `sparsity.csv`)

| c (l1 factor) | rounds | zero fraction at round 10 | final | max | final train error |
|---|---:|---:|---:|---:|---:|
{sparse}

## 3. Label noise (`noise.png`, `noise_curves.png`, `noise.csv`)

Test error on clean test labels after {p['noise_rounds']} rounds (depth-{p['max_depth']} trees), mean ±
standard error over {p['splits']} stratified 70/30 split(s); the training labels of a fraction `noise`
flipped.

{noise_markdown(results['noise'])}

## 4. Trusted subset (`trusted.csv`)

{p['trusted']:g} of the training set clean, the rest with {TRUSTED_NOISE:g} of its labels flipped;
test error on clean test labels, mean ± standard error over splits.

{trusted_markdown(results['trusted'])}
"""
    atomic_write(out_dir / "maboost.md", text)


def json_line(obj) -> str:
    import json

    return json.dumps(jsonable(obj), sort_keys=True)


__all__ = ["FULL", "QUICK", "flip_labels", "make_figures", "run_ma_experiments"]
