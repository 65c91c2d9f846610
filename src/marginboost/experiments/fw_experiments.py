"""The experiments of FWBoost (Wang, Wang, E, Schapire 2015, arXiv 1510.02558, section 5; "001").

Paper 001's Fig. 1 compares, for least-squares regression, the training loss and the test MSE
against the boosting round of FWBoost_C, FWBoost_R, gradient boosting (plain, with shrinkage,
with early stopping, with subsampling) and BLasso; its Fig. 2 compares AdaBoost.FW with
AdaBoost (decision stumps) on UCI sets where AdaBoost overfits (heart first). Its protocol:
random 50/50 train/test splits (20 of them), parameters tuned by 5-fold CV on the training
half, curves averaged over the splits.

Here (:func:`run_fw_experiments`; ``marginboost bench-fw``):

* Regression data available offline: scikit-learn's ``load_diabetes`` (``diabetes_sklearn``) and ``make_friedman1/2/3``
  (noise 1.0, 125, 0.1: Friedman's signal-to-noise levels), ``n_friedman`` rows each. Targets are
  standardised with the training half's mean and standard deviation, so an MSE is in units of
  ``var(y_train)`` and ``beta`` and BLasso's ``eps`` are in units of ``std(y_train)``.
* Regression methods, all with depth-``depth`` least-squares trees and ``rounds`` rounds:
  FWBoost_C and FWBoost_R (:class:`~marginboost.estimators.fwboost.FWBoostRegressor`, exact line
  search, ``beta`` by ``folds``-fold CV on the training half over ``BETAS_REGRESSION``, scored at
  the last round); ``GradientBoostingRegressor`` plain (learning rate 1), with shrinkage 0.1,
  with early stopping (learning rate 1, ``n_iter_no_change=5`` on a 20% validation part) and
  with subsampling 0.5 (learning rate 1); BLasso (:mod:`marginboost.functional.blasso`, step ``eps`` on
  least-squares trees fit to the residual). Gradient boosting is untuned: its rounds are the
  parameter whose growth is in question.
* Classification: AdaBoost.FW (:class:`~marginboost.estimators.fwboost.FWBoostClassifier`,
  exponential loss, variant C, exact decision stumps, ``beta`` by CV over
  ``BETAS_CLASSIFICATION``) against scikit-learn's ``AdaBoostClassifier`` with depth-1 trees, on
  KEEL sets through :func:`marginboost.io.datasets.load_dataset` (stratified 50/50 splits).
* A method that stops before ``rounds`` (early stopping, BLasso, FWBoost_R once its vertex stops
  descending) keeps its last value for the remaining rounds, as in 001's Fig. 1.

**Overfitting** (the tables' definition): a method overfits on a data set when its test curve,
averaged over the splits, ends above ``OVERFIT_RATIO`` (1.05) times its minimum over the rounds.
The issue's target is that FWBoost's curve does not rise where plain gradient boosting's does.

**Time per round**: FWBoost_C, FWBoost_R and plain ``GradientBoostingRegressor`` (same depth,
same rows) are fitted one after the other in the same process, ``timing_repeats`` times; the
median wall time of ``fit`` divided by the rounds done is compared as a ratio (target: <= 1.5).

Output (:func:`write_fw_results`, :func:`make_fw_figures`): ``summary.md`` (provenance,
overfitting and timing tables), ``overfitting.csv/json``, ``timing.csv/json``, ``results.json``
(every averaged curve), ``regression_curves.png``, ``classification_curves.png``.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_diabetes, make_friedman1, make_friedman2, make_friedman3
from sklearn.ensemble import AdaBoostClassifier, GradientBoostingRegressor
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.tree import DecisionTreeClassifier

from marginboost.functional.blasso import blasso, staged_blasso
from marginboost.functional.fwboost import regression_oracle
from marginboost.estimators.fwboost import FWBoostClassifier, FWBoostRegressor
from marginboost.core.interrupts import on_interrupt
from marginboost.functional.losses import SquaredLoss
from marginboost.io.datasets import load_dataset
from marginboost.weak_learners.regression import LeastSquaresTree
from marginboost.experiments import metadata
from marginboost.experiments.result_files import atomic_write, csv_text, jsonable

__all__ = ["FULL", "QUICK", "make_fw_figures", "run_fw_experiments", "write_fw_results"]

OVERFIT_RATIO = 1.05
TIME_TARGET = 1.5
BETAS_REGRESSION = (1.0, 2.0, 5.0, 10.0, 20.0)
BETAS_CLASSIFICATION = (1.0, 2.0, 5.0, 10.0, 20.0)
REGRESSION_METHODS = ("fwboost_c", "fwboost_r", "gb_plain", "gb_shrinkage", "gb_early_stopping",
                      "gb_subsample", "blasso")
CLASSIFICATION_METHODS = ("adaboost_fw", "adaboost")
LABELS = {"fwboost_c": "FWBoost_C", "fwboost_r": "FWBoost_R", "gb_plain": "GB plain (lr 1)",
          "gb_shrinkage": "GB shrinkage (lr 0.1)", "gb_early_stopping": "GB early stopping",
          "gb_subsample": "GB subsample 0.5", "blasso": "BLasso", "adaboost_fw": "AdaBoost.FW",
          "adaboost": "AdaBoost (sklearn)"}
GB_PARAMS = {"gb_plain": {"learning_rate": 1.0},
             "gb_shrinkage": {"learning_rate": 0.1},
             "gb_early_stopping": {"learning_rate": 1.0, "n_iter_no_change": 5, "validation_fraction": 0.2},
             "gb_subsample": {"learning_rate": 1.0, "subsample": 0.5}}

# "diabetes_sklearn" (regression) is not KEEL's "diabetes" (Pima, classification).
FULL = {"regression": ("diabetes_sklearn", "friedman1", "friedman2", "friedman3"),
        "classification": ("heart", "breast_cancer", "diabetes", "german"),
        "n_friedman": 400, "splits": 5, "rounds": 300, "depth": 3, "blasso_eps": 0.05, "folds": 3,
        "timing_rounds": 200, "timing_repeats": 3, "timing_rows": 2000, "quick": False}
# The quick mode: two regression sets and heart, one split, fixed beta (no CV), few rounds.
QUICK = {"regression": ("diabetes_sklearn", "friedman1"), "classification": ("heart",),
         "n_friedman": 200, "splits": 1, "rounds": 30, "depth": 3, "blasso_eps": 0.1, "folds": 0,
         "timing_rounds": 30, "timing_repeats": 1, "timing_rows": 400, "quick": True,
         "beta_regression": 5.0, "beta_classification": 5.0}


# ------------------------------------------------------------------------------------- data
def regression_data(name: str, n: int, seed: int):
    """``(X, y, source)`` of a regression set available offline."""
    if name == "diabetes_sklearn":
        X, y = load_diabetes(return_X_y=True)
        return X, y, "sklearn.datasets.load_diabetes"
    makers = {"friedman1": (make_friedman1, 1.0), "friedman2": (make_friedman2, 125.0),
              "friedman3": (make_friedman3, 0.1)}
    if name not in makers:
        raise ValueError(f"unknown regression data set {name!r}; known: diabetes_sklearn, {', '.join(makers)}")
    make, noise = makers[name]
    X, y = make(n_samples=n, noise=noise, random_state=seed)
    return X, y, f"sklearn.datasets.make_{name}(n_samples={n}, noise={noise}, random_state={seed})"


def _pad(curve, rounds: int, start: float) -> np.ndarray:
    """A curve of ``rounds`` values: a run that stopped early keeps its last value (``start``,
    the value before any round, if it made none)."""
    curve = np.asarray(list(curve) or [start], dtype=np.float64)[:rounds]
    return np.concatenate([curve, np.full(rounds - curve.shape[0], curve[-1])])


def _mse_curves(staged_train, staged_test, y_train, y_test, rounds):
    """Train and test MSE per round; before the first round every method predicts 0 (the
    training mean of the standardised targets)."""
    train = [np.mean((f - y_train) ** 2) for f in staged_train]
    test = [np.mean((f - y_test) ** 2) for f in staged_test]
    return (_pad(train, rounds, np.mean(y_train ** 2)), _pad(test, rounds, np.mean(y_test ** 2)), len(train))


# ------------------------------------------------------------------------------- regression
def _fw_regressor(variant, beta, cfg):
    return FWBoostRegressor(variant=variant, beta=beta, max_depth=cfg["depth"], max_iter=cfg["rounds"])


def _cv_beta(make, X, y, betas, folds, seed, splitter=KFold, score=None):
    """The ``beta`` of ``betas`` with the least mean validation score at the last round."""
    cv = splitter(n_splits=folds, shuffle=True, random_state=seed)
    means = {}
    for beta in betas:
        errs = []
        for tr, va in cv.split(X, y):
            est = make(beta).fit(X[tr], y[tr])
            errs.append(score(est, X[va], y[va]))
        means[beta] = float(np.mean(errs))
    return min(means, key=means.get), means


def _mse(est, X, y):
    return float(np.mean((est.predict(X) - y) ** 2))


def regression_split(X, y, cfg, seed) -> dict:
    """Every regression method on one 50/50 split: train/test MSE per round, chosen betas."""
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, random_state=seed)
    mu, sd = y_tr.mean(), y_tr.std()
    y_tr, y_te = (y_tr - mu) / sd, (y_te - mu) / sd
    R, out = cfg["rounds"], {"curves": {}, "rounds_done": {}, "beta": {}, "cv": {}}
    for method, variant in (("fwboost_c", "C"), ("fwboost_r", "R")):
        if cfg["folds"]:
            beta, means = _cv_beta(lambda b, v=variant: _fw_regressor(v, b, cfg), X_tr, y_tr, BETAS_REGRESSION,
                                   cfg["folds"], seed, score=_mse)
            out["cv"][method] = means
        else:
            beta = cfg["beta_regression"]
        est = _fw_regressor(variant, beta, cfg).fit(X_tr, y_tr)
        train, test, done = _mse_curves(est.staged_predict(X_tr), est.staged_predict(X_te), y_tr, y_te, R)
        out["curves"][method], out["rounds_done"][method], out["beta"][method] = (train, test), done, beta
    for method, params in GB_PARAMS.items():
        est = GradientBoostingRegressor(n_estimators=R, max_depth=cfg["depth"], random_state=seed, **params)
        est.fit(X_tr, y_tr)
        train, test, done = _mse_curves(est.staged_predict(X_tr), est.staged_predict(X_te), y_tr, y_te, R)
        out["curves"][method], out["rounds_done"][method] = (train, test), done
    p = np.full(X_tr.shape[0], 1.0 / X_tr.shape[0])
    res = blasso(regression_oracle(LeastSquaresTree(cfg["depth"]), X_tr, p), SquaredLoss(), y_tr,
                 cfg["blasso_eps"], offset=0.0, max_iter=R)
    train, test, done = _mse_curves(staged_blasso(res, X_tr), staged_blasso(res, X_te), y_tr, y_te, R)
    out["curves"]["blasso"], out["rounds_done"]["blasso"] = (train, test), done
    out["blasso"] = {"status": str(res.status), "backward_steps": int(np.sum(res.history["direction"] == 2)),
                     "l1_norm": float(res.history["l1_norm"][-1]), "lambda": float(res.lam)}
    return out


# --------------------------------------------------------------------------- classification
def _error(est, X, y):
    return float(np.mean(est.predict(X) != y))


def classification_split(X, y, cfg, seed) -> dict:
    """AdaBoost.FW and AdaBoost on one stratified 50/50 split: train/test error per round."""
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, random_state=seed, stratify=y)
    R, out = cfg["rounds"], {"curves": {}, "rounds_done": {}, "beta": {}, "cv": {}}

    def make_fw(beta):
        return FWBoostClassifier(loss="exponential", beta=beta, weak_learner="stump", max_iter=R)

    if cfg["folds"]:
        beta, means = _cv_beta(make_fw, X_tr, y_tr, BETAS_CLASSIFICATION, cfg["folds"], seed,
                               splitter=StratifiedKFold, score=_error)
        out["cv"]["adaboost_fw"] = means
    else:
        beta = cfg["beta_classification"]
    ests = {"adaboost_fw": make_fw(beta).fit(X_tr, y_tr),
            "adaboost": AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=R,
                                           random_state=seed).fit(X_tr, y_tr)}
    out["beta"]["adaboost_fw"] = beta
    for method, est in ests.items():
        train = [np.mean(p != y_tr) for p in est.staged_predict(X_tr)]
        test = [np.mean(p != y_te) for p in est.staged_predict(X_te)]
        out["curves"][method] = (_pad(train, R, np.mean(y_tr != 1)), _pad(test, R, np.mean(y_te != 1)))
        out["rounds_done"][method] = len(train)
    return out


# ---------------------------------------------------------------------------------- summary
def overfit_row(dataset, method, test_curve, kind) -> dict:
    """Minimum, its round, final value and the overfitting verdict of one averaged test curve."""
    c = np.asarray(test_curve)
    k = int(np.argmin(c))
    return {"dataset": dataset, "task": kind, "method": method, "label": LABELS[method],
            "min_test": float(c[k]), "argmin_round": k + 1, "final_test": float(c[-1]),
            "final_over_min": float(c[-1] / c[k]) if c[k] > 0 else (1.0 if c[-1] == 0 else float("inf")),
            "overfits": bool(c[-1] > OVERFIT_RATIO * c[k])}


def time_per_round(X, y, cfg, seed) -> dict:
    """Median seconds per round of FWBoost_C, FWBoost_R, BLasso and plain GB (same depth, same rows)."""
    R, depth = cfg["timing_rounds"], cfg["depth"]
    y = (y - y.mean()) / y.std()
    p = np.full(X.shape[0], 1.0 / X.shape[0])
    fits = {
        "fwboost_c": lambda: FWBoostRegressor(variant="C", beta=10.0, max_depth=depth, max_iter=R).fit(X, y),
        "fwboost_r": lambda: FWBoostRegressor(variant="R", beta=10.0, max_depth=depth, max_iter=R).fit(X, y),
        "gb_plain": lambda: GradientBoostingRegressor(n_estimators=R, max_depth=depth, learning_rate=1.0,
                                                      random_state=seed).fit(X, y),
        "blasso": lambda: blasso(regression_oracle(LeastSquaresTree(depth), X, p), SquaredLoss(), y,
                                 cfg["blasso_eps"], max_iter=R),
    }
    seconds = {k: [] for k in fits}
    rounds = {}
    for _ in range(cfg["timing_repeats"]):  # interleaved, so load changes hit every method alike
        for key, fit in fits.items():
            start = time.perf_counter()
            est = fit()
            seconds[key].append(time.perf_counter() - start)
            rounds[key] = int(getattr(est, "n_iter_", None) or getattr(est, "n_estimators_", None) or est.n_iter)
    per_round = {k: float(np.median(v)) / max(rounds[k], 1) for k, v in seconds.items()}
    return {"m": int(X.shape[0]), "p": int(X.shape[1]), "depth": depth, "rounds_asked": R, "rounds": rounds,
            "median_seconds": {k: float(np.median(v)) for k, v in seconds.items()}, "per_round": per_round,
            "ratio_fwboost_c": per_round["fwboost_c"] / per_round["gb_plain"],
            "ratio_fwboost_r": per_round["fwboost_r"] / per_round["gb_plain"],
            "ratio_blasso": per_round["blasso"] / per_round["gb_plain"]}


def _warm_up():
    """Every variant once on a tiny problem (imports, first allocations) before any clock starts."""
    X, y = make_friedman1(40, random_state=0)
    for variant in "CR":
        FWBoostRegressor(variant=variant, max_iter=3).fit(X, y)
    FWBoostClassifier(weak_learner="stump", max_iter=3).fit(X, y > y.mean())


@on_interrupt("raise")  # Ctrl-C ends the run: an interrupted fit must not enter the tables
def run_fw_experiments(out_dir=None, *, quick=False, seed=0, splits=None, rounds=None, progress=None) -> dict:
    """Run 001's experiments (module doc); write the results to ``out_dir`` if given."""
    cfg = dict(QUICK if quick else FULL)
    if splits is not None:
        cfg["splits"] = splits
    if rounds is not None:
        cfg["rounds"] = rounds
    if cfg["splits"] < 1 or cfg["rounds"] < 2:
        raise ValueError(f"splits must be >= 1 and rounds >= 2, got splits={cfg['splits']}, rounds={cfg['rounds']}")
    say = progress or (lambda *_: None)
    results = {"metadata": metadata.collect({**cfg, "seed": seed, "overfit_ratio": OVERFIT_RATIO,
                                             "time_target": TIME_TARGET, "betas_regression": BETAS_REGRESSION,
                                             "betas_classification": BETAS_CLASSIFICATION,
                                             "gb_params": GB_PARAMS}),
               "datasets": {}, "regression": {}, "classification": {}, "timing": {}}
    _warm_up()
    start = time.perf_counter()
    for name in cfg["regression"]:
        X, y, source = regression_data(name, cfg["n_friedman"], seed)
        if quick and X.shape[0] > cfg["n_friedman"]:
            keep = np.random.default_rng(seed).choice(X.shape[0], cfg["n_friedman"], replace=False)
            X, y = X[keep], y[keep]
        results["datasets"][name] = {"task": "regression", "m": int(X.shape[0]), "p": int(X.shape[1]),
                                     "source": source, "sha256": metadata.array_sha256(X, y)}
        runs = [regression_split(X, y, cfg, seed + k) for k in range(cfg["splits"])]
        results["regression"][name] = _average(runs, REGRESSION_METHODS)
        results["regression"][name]["blasso"] = [r["blasso"] for r in runs]
        say(f"{name}: regression done ({time.perf_counter() - start:.1f} s)")
    for name in cfg["classification"]:
        data = load_dataset(name)
        results["datasets"][name] = {"task": "classification", "m": int(data.X.shape[0]), "p": int(data.X.shape[1]),
                                     "source": data.source, "sha256": data.sha256()}
        runs = [classification_split(data.X, data.y, cfg, seed + k) for k in range(cfg["splits"])]
        results["classification"][name] = _average(runs, CLASSIFICATION_METHODS)
        say(f"{name}: classification done ({time.perf_counter() - start:.1f} s)")
    timing_sets = [(name, *regression_data(name, cfg["n_friedman"], seed)[:2]) for name in cfg["regression"]]
    if not quick:
        X, y = make_friedman1(n_samples=cfg["timing_rows"], noise=1.0, random_state=seed)
        timing_sets.append((f"friedman1 (m={cfg['timing_rows']})", X, y))
    for label, X, y in timing_sets[:1] if quick else timing_sets:
        results["timing"][label] = time_per_round(X, y, cfg, seed)
        say(f"{label}: timing done ({time.perf_counter() - start:.1f} s)")
    results["overfitting"] = overfitting_rows(results)
    results["elapsed_seconds"] = time.perf_counter() - start
    results["metadata"]["load_average_end"] = metadata.machine_facts()["load_average"]
    if out_dir is not None:
        write_fw_results(results, out_dir)
        make_fw_figures(results, out_dir)
    return results


def _average(runs, methods) -> dict:
    """Curves averaged over the splits, with the per-split rounds done and chosen betas."""
    out = {"splits": len(runs), "curves": {}, "rounds_done": {}, "beta": {}, "cv": {}}
    for m in methods:
        out["curves"][m] = {"train": np.mean([r["curves"][m][0] for r in runs], axis=0).tolist(),
                            "test": np.mean([r["curves"][m][1] for r in runs], axis=0).tolist()}
        out["rounds_done"][m] = [r["rounds_done"][m] for r in runs]
        if m in runs[0]["beta"]:
            out["beta"][m] = [r["beta"][m] for r in runs]
            out["cv"][m] = [r["cv"].get(m) for r in runs]
    return out


def overfitting_rows(results) -> list[dict]:
    rows = []
    for kind in ("regression", "classification"):
        for name, res in results[kind].items():
            for m, c in res["curves"].items():
                row = overfit_row(name, m, c["test"], kind)
                row["final_train"] = c["train"][-1]
                row["rounds_done"] = res["rounds_done"][m]
                row["beta"] = res["beta"].get(m)
                rows.append(row)
    return rows


# ----------------------------------------------------------------------------------- output
OVERFIT_FIELDS = ("dataset", "task", "method", "label", "beta", "rounds_done", "final_train", "min_test",
                  "argmin_round", "final_test", "final_over_min", "overfits")
TIMING_FIELDS = ("data", "m", "p", "depth", "rounds_asked", "rounds", "median_seconds", "per_round",
                 "ratio_fwboost_c", "ratio_fwboost_r", "ratio_blasso")


def _timing_rows(results):
    return [{"data": k, **v} for k, v in results["timing"].items()]


def _verdicts(results) -> list[str]:
    """Per data set where plain GB (AdaBoost) overfits: does FWBoost's (AdaBoost.FW's) test error rise?"""
    rows = results["overfitting"]
    lines = []
    for kind, ref, ours in (("regression", "gb_plain", ("fwboost_c", "fwboost_r")),
                            ("classification", "adaboost", ("adaboost_fw",))):
        for name in results[kind]:
            r = next(x for x in rows if x["dataset"] == name and x["method"] == ref)
            if not r["overfits"]:
                continue
            parts = []
            for m in ours:
                o = next(x for x in rows if x["dataset"] == name and x["method"] == m)
                parts.append(f"{o['label']} {'**rises**' if o['overfits'] else 'does not rise'} "
                             f"(final/min {o['final_over_min']:.3f}, final {o['final_test']:.4f})")
            lines.append(f"- **{name}**: {r['label']} overfits (final/min {r['final_over_min']:.3f}: "
                         f"min {r['min_test']:.4f} at round {r['argmin_round']}, final {r['final_test']:.4f}); "
                         + "; ".join(parts) + ".")
    return lines or ["- none: the reference method's test curve did not rise on any data set."]


def summary_markdown(results) -> str:
    md, prm = results["metadata"], results["metadata"]["parameters"]
    out = ["# FWBoost experiments (paper 001, section 5, Figs. 1-2)", "",
           *metadata.provenance_lines(md),
           f"- Parameters: {prm['splits']} random 50/50 splits (seeds {prm['seed']}..{prm['seed'] + prm['splits'] - 1}), "
           f"{prm['rounds']} rounds, depth-{prm['depth']} trees for regression, stumps for classification, "
           f"BLasso eps = {prm['blasso_eps']} (std(y) units), beta by {prm['folds']}-fold CV "
           + (f"over {list(BETAS_REGRESSION)} (regression) and {list(BETAS_CLASSIFICATION)} (classification)"
              if prm["folds"] else f"(off: beta = {prm.get('beta_regression')} / {prm.get('beta_classification')})")
           + f", quick = {prm['quick']}; elapsed {results['elapsed_seconds']:.1f} s",
           "- Timings are wall-clock on a shared 2-core machine (other benchmarks ran at the same time: see the "
           "load average); ratios come from fits interleaved in one process, medians of "
           f"{prm['timing_repeats']}, and are noisy.", "",
           "| data set | task | m x p | source | SHA-256 |", "|---|---|---|---|---|"]
    for name, d in results["datasets"].items():
        out.append(f"| {name} | {d['task']} | {d['m']} x {d['p']} | {d['source']} | `{d['sha256'][:16]}` |")
    out += ["", "## Overfitting", "",
            f"A method overfits when its test curve (averaged over the splits) ends above {OVERFIT_RATIO} x its "
            "minimum over the rounds. Regression: MSE on standardised targets (units of var(y_train)); "
            "classification: error rate. A method that stopped early keeps its last value.", "",
            *_verdicts(results), "",
            "| data set | method | beta (per split) | rounds done | final train | min test (round) | final test "
            "| final / min | overfits |", "|---|---|---|---|---:|---:|---:|---:|---|"]
    for r in results["overfitting"]:
        beta = "-" if r["beta"] is None else ", ".join(f"{b:g}" for b in r["beta"])
        done = ", ".join(str(k) for k in r["rounds_done"])
        out.append(f"| {r['dataset']} | {r['label']} | {beta} | {done} | {r['final_train']:.4f} "
                   f"| {r['min_test']:.4f} ({r['argmin_round']}) | {r['final_test']:.4f} "
                   f"| {r['final_over_min']:.3f} | {'**yes**' if r['overfits'] else 'no'} |")
    blasso_lines = []
    for name, res in results["regression"].items():
        b = res["blasso"]
        norms = ", ".join(f"{x['l1_norm']:.2f}" for x in b)
        blasso_lines.append(f"| {name} | {', '.join(x['status'] for x in b)} | "
                            f"{', '.join(str(x['backward_steps']) for x in b)} | {norms} |")
    out += ["", "BLasso per split: how it ended, its backward steps, its final l1 norm.", "",
            "| data set | status | backward steps | l1 norm |", "|---|---|---|---|", *blasso_lines]
    out += ["", "## Time per round", "",
            f"Median fit time / rounds done, FWBoost (line search) over plain GradientBoostingRegressor with the "
            f"same depth on the same rows (target: <= {TIME_TARGET}).", "",
            "| data | m x p | rounds (C, R, GB, BLasso) | s/round FWBoost_C | FWBoost_R | GB | BLasso "
            "| FWBoost_C / GB | FWBoost_R / GB | BLasso / GB |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in _timing_rows(results):
        pr, rd = r["per_round"], r["rounds"]
        out.append(f"| {r['data']} | {r['m']} x {r['p']} | {rd['fwboost_c']}, {rd['fwboost_r']}, {rd['gb_plain']}, "
                   f"{rd['blasso']} | {pr['fwboost_c'] * 1e3:.2f} ms | {pr['fwboost_r'] * 1e3:.2f} ms "
                   f"| {pr['gb_plain'] * 1e3:.2f} ms | {pr['blasso'] * 1e3:.2f} ms | {r['ratio_fwboost_c']:.2f} "
                   f"| {r['ratio_fwboost_r']:.2f} | {r['ratio_blasso']:.2f} |")
    out += ["", "Figures: `regression_curves.png` (001 Fig. 1), `classification_curves.png` (001 Fig. 2)."]
    return "\n".join(out) + "\n"


def write_fw_results(results, out_dir) -> list[Path]:
    """``summary.md``, ``overfitting.csv/json``, ``timing.csv/json`` and ``results.json``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"metadata": results["metadata"], "datasets": results["datasets"]}
    timing = _timing_rows(results)
    return [
        atomic_write(out / "summary.md", summary_markdown(results)),
        atomic_write(out / "overfitting.csv", csv_text(results["overfitting"], OVERFIT_FIELDS, meta)),
        atomic_write(out / "overfitting.json", json.dumps(jsonable({**meta, "rows": results["overfitting"]}),
                                                          indent=1) + "\n"),
        atomic_write(out / "timing.csv", csv_text(timing, TIMING_FIELDS, meta)),
        atomic_write(out / "timing.json", json.dumps(jsonable({**meta, "rows": timing}), indent=1) + "\n"),
        atomic_write(out / "results.json", json.dumps(jsonable(results), indent=1) + "\n"),
    ]


COLORS = {"fwboost_c": "tab:red", "fwboost_r": "tab:purple", "gb_plain": "tab:blue", "gb_shrinkage": "tab:cyan",
          "gb_early_stopping": "tab:green", "gb_subsample": "tab:olive", "blasso": "tab:orange",
          "adaboost_fw": "tab:red", "adaboost": "tab:blue"}


def make_fw_figures(results, out_dir) -> list[Path]:
    """``regression_curves.png`` and ``classification_curves.png``: per data set (columns) the
    training (top row) and test (bottom row) curves against the round; provenance in the PNG."""
    from matplotlib.figure import Figure

    md = results["metadata"]
    provenance = json.dumps(jsonable({"metadata": md, "datasets": results["datasets"]}), sort_keys=True)
    written = []
    for kind, what, name in (("regression", "MSE (standardised y)", "regression_curves.png"),
                             ("classification", "error", "classification_curves.png")):
        sets = list(results[kind])
        if not sets:
            continue
        fig = Figure(figsize=(3.6 * len(sets) + 0.5, 6.6), layout="constrained", dpi=110)
        axes = fig.subplots(2, len(sets), squeeze=False)
        for col, ds in enumerate(sets):
            res = results[kind][ds]
            for row, part in enumerate(("train", "test")):
                ax = axes[row, col]
                for m, c in res["curves"].items():
                    ax.plot(np.arange(1, len(c[part]) + 1), c[part], color=COLORS[m], linewidth=1.4,
                            linestyle="--" if m.startswith("fwboost") or m == "adaboost_fw" else "-", label=LABELS[m])
                ax.set_title(f"{ds} ({part}, {res['splits']} splits)", fontsize=10)
                ax.set_xlabel("round")
                ax.set_ylabel(f"{part} {what}")
                if kind == "regression" and part == "train":
                    ax.set_yscale("log")
                ax.grid(True, alpha=0.3)
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 4), frameon=False)
        title = ("Paper 001 Fig. 1: least-squares regression" if kind == "regression"
                 else "Paper 001 Fig. 2: AdaBoost.FW vs AdaBoost (stumps)")
        fig.suptitle(title)
        path = Path(out_dir) / name
        fig.savefig(path, metadata={"Title": title, "Software": f"marginboost {md['marginboost_version']}",
                                    "Comment": provenance})
        written.append(path)
    return written
