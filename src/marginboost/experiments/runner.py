"""Run one booster or peer on one data set split and collect what the tables and figures need.

Paper 000, section 5: every booster uses depth-2 trees (our ``EdgeTree(2)``), ``eps = 0.01``
and ``nu in {0.1m, ..., 0.5m}`` with ``m`` the size of the training sample it is fitted on.
A run records rounds (weak-learner calls), status (``converged``, or ``TIMEOUT`` when
``max_time`` stopped it, never reported as converged), seconds (wall time of ``fit``), the
soft margin reached, training and test error and, on request, curves over the rounds
(soft margin, test error, count of secondary updates) for the figures.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split

from marginboost import CERLPBoostClassifier, ERLPBoostClassifier, LPBoostClassifier, MLPBoostClassifier
from marginboost.soft_margin.scheme import UPDATE_SECONDARY
from marginboost.io.datasets import Dataset, load_dataset
from marginboost.experiments.metadata import array_sha256
from marginboost.experiments.peers import NAIVE_LPBOOST, PEER_LABELS, SKLEARN_PEERS, NaiveLPBoost, make_sklearn_peer, n_rounds

MAX_DEPTH = 2  # the paper's weak learner: the best decision tree of depth 2
MAX_ITER = 10**7  # runs end by convergence or max_time, not by a round count
TEST_SIZE = 0.3
CURVE_POINTS = 200  # rounds at which a curve is sampled (log- and linearly spaced)
STATUS = {"converged": "converged", "max_time": "TIMEOUT", "max_iter": "MAX_ITER"}


@dataclass(frozen=True)
class BoosterSpec:
    """A soft-margin booster of paper 000 as the benchmark names it."""

    key: str
    label: str  # in tables and figures
    make: Callable  # (**estimator params) -> estimator
    description: str


BOOSTERS = {
    "lpboost": BoosterSpec("lpboost", "LPBoost", LPBoostClassifier, "LPBoostClassifier()"),
    "erlpboost": BoosterSpec("erlpboost", "ERLPBoost", ERLPBoostClassifier, "ERLPBoostClassifier()"),
    "cerlpboost": BoosterSpec("cerlpboost", "FW (C-ERLPBoost)", CERLPBoostClassifier,
                              "CERLPBoostClassifier(); the paper's FW = 'SS only' column"),
    # The same algorithm as cerlpboost through the generic scheme; not run by default.
    "ss_only": BoosterSpec("ss_only", "SS only", lambda **kw: MLPBoostClassifier(secondary="none", **kw),
                           "MLPBoostClassifier(secondary='none') (= C-ERLPBoost)"),
    "pfw": BoosterSpec("pfw", "PFW only", lambda **kw: MLPBoostClassifier(step="pairwise", secondary="none", **kw),
                       "MLPBoostClassifier(step='pairwise', secondary='none')"),
    "mlpboost_ss": BoosterSpec("mlpboost_ss", "MLPBoost (SS)", MLPBoostClassifier, "MLPBoostClassifier()"),
    "mlpboost_pfw": BoosterSpec("mlpboost_pfw", "MLPBoost (PFW)",
                                lambda **kw: MLPBoostClassifier(step="pairwise", **kw),
                                "MLPBoostClassifier(step='pairwise')"),
}
DEFAULT_BOOSTERS = ("lpboost", "erlpboost", "cerlpboost", "pfw", "mlpboost_ss", "mlpboost_pfw")
# Table 3 of the paper shows these three ("all the variants of MLPBoost solve the same problem").
TABLE3_BOOSTERS = ("lpboost", "erlpboost", "mlpboost_ss")


def label_of(key: str) -> str:
    """The display label of a booster or peer key (the key itself if unknown)."""
    if key in BOOSTERS:
        return BOOSTERS[key].label
    return PEER_LABELS.get(key, key)


@dataclass
class Split:
    """A stratified 70/30 train/test split of one data set (optionally subsampled first)."""

    dataset: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    info: dict  # name, source, shapes, hashes, subsample


def make_split(dataset, seed: int, subsample: int | None = None, test_size: float = TEST_SIZE) -> Split:
    """Load (a name) or take (a :class:`Dataset`) the data, subsample, split stratified with ``seed``.

    ``info`` records ``sha256`` (``Dataset.sha256()`` of the data as loaded) and ``used_sha256``
    (of the rows actually used, after subsampling).
    """
    data = load_dataset(dataset) if isinstance(dataset, str) else dataset
    if not isinstance(data, Dataset):
        raise TypeError(f"a data set is a name or a marginboost.io.datasets.Dataset, got {type(dataset)}")
    X, y = data.X, data.y
    if subsample is not None and subsample < y.shape[0]:
        keep, _ = train_test_split(np.arange(y.shape[0]), train_size=subsample, stratify=y, random_state=seed)
        keep.sort()
        X, y = X[keep], y[keep]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=test_size, stratify=y,
                                                        random_state=seed)
    info = {
        "name": data.name, "source": data.source, "m": int(data.X.shape[0]), "p": int(data.X.shape[1]),
        "subsample": int(y.shape[0]) if y.shape[0] < data.X.shape[0] else None,
        "m_train": int(y_train.shape[0]), "m_test": int(y_test.shape[0]),
        "sha256": data.sha256(), "used_sha256": array_sha256(X, y),
    }
    return Split(data.name, X_train, y_train, X_test, y_test, info)


def _error(pred, y) -> float:
    return float(np.mean(np.asarray(pred, dtype=np.float64) != y))


def sampled_rounds(n_rounds_: int, n_points: int = CURVE_POINTS) -> np.ndarray:
    """Row indices at which to sample a curve: log-spaced (early rounds) plus linear, and the last."""
    if n_rounds_ <= n_points:
        return np.arange(n_rounds_)
    log = np.round(np.geomspace(1, n_rounds_, n_points // 2)).astype(int) - 1
    lin = np.linspace(0, n_rounds_ - 1, n_points // 2).astype(int)
    return np.unique(np.concatenate([log, lin, [n_rounds_ - 1]]))


def staged_errors(est, X, y, rows) -> np.ndarray:
    """Test error after each round in ``rows`` (sorted row indices of ``history_``).

    The same scores as ``est.staged_decision_function(X)``, evaluated only at the sampled rounds:
    a long C-ERLPBoost run has 10^4-10^5 rounds, and scoring every one of them costs
    O(rounds x hypotheses x n), while replaying ``weights_path_`` is cheap.
    """
    outputs = (np.column_stack([h.predict(X) for h in est.hypotheses_]) if est.hypotheses_
               else np.zeros((X.shape[0], 0)))
    wanted = {int(r): k for k, r in enumerate(rows)}
    errors = np.empty(len(rows))
    for i, w in enumerate(est.weights_path_):
        k = wanted.get(i)
        if k is not None:
            nz = np.flatnonzero(w)
            score = outputs[:, nz] @ w[nz]
            errors[k] = _error(est.classes_[(score > 0).astype(int)], y)
    return errors


def curve_of(est, X_test, y_test) -> dict:
    """The per-round series the figures need, sampled at :func:`sampled_rounds` (JSON-ready)."""
    hist = est.history_
    rows = sampled_rounds(len(hist["round"]))
    n_secondary = np.cumsum(hist["update"] == UPDATE_SECONDARY)
    return {
        "round": hist["round"][rows].astype(int).tolist(),
        "time": hist["time"][rows].tolist(),
        "soft_margin": hist["soft_margin"][rows].tolist(),
        "objective": hist["objective"][rows].tolist(),
        "n_secondary": n_secondary[rows].astype(int).tolist(),
        "test_error": staged_errors(est, X_test, y_test, rows).tolist(),
    }


def run_booster(key: str, split: Split, nu: float, eps: float, max_time: float | None,
                max_iter: int = MAX_ITER, curve: bool = False) -> dict:
    """Fit booster ``key`` with ``nu`` (a fraction of m_train) on the training part; one record.

    Seconds are the wall time of ``fit`` (input checks and presorting included, like the paper's
    process time); ``loop_seconds`` is the loop's own time from ``history_``.
    """
    spec = BOOSTERS[key]
    est = spec.make(nu=nu, eps=eps, weak_learner="tree", max_depth=MAX_DEPTH, max_iter=max_iter,
                    max_time=max_time)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning on a timeout: it is the status
        t0 = time.perf_counter()
        est.fit(split.X_train, split.y_train)
        seconds = time.perf_counter() - t0
    hist = est.history_
    rec = _record(split, key, "booster", nu, est.nu_, eps, max_time)
    rec.update({
        "rounds": int(est.n_iter_), "status": STATUS.get(est.status_, est.status_), "seconds": seconds,
        "loop_seconds": float(hist["time"][-1]),
        "weak_learner_seconds": float(np.sum(hist["weak_learner_time"])),
        "solver_seconds": float(np.sum(hist["solver_time"])),
        "soft_margin": float(est.margin_), "gap": float(est.gap_),
        "n_hypotheses": len(est.hypotheses_), "n_nonzero": int(np.count_nonzero(est.weights_)),
        "n_secondary_updates": int(np.sum(hist["update"] == UPDATE_SECONDARY)),
        "train_error": _error(est.predict(split.X_train), split.y_train),
        "test_error": _error(est.predict(split.X_test), split.y_test),
    })
    if curve:
        rec["curve"] = curve_of(est, split.X_test, split.y_test)
    return rec


def run_naive_lpboost(split: Split, nu: float, eps: float, max_time: float | None,
                      max_iter: int = MAX_ITER) -> dict:
    """The naive linprog LPBoost (:class:`~.peers.NaiveLPBoost`) with ``nu`` a fraction of m_train."""
    m = split.y_train.shape[0]
    nu_count = max(nu * m, 1.0)
    est = NaiveLPBoost(nu_count, eps=eps, max_iter=max_iter, max_time=max_time)
    t0 = time.perf_counter()
    est.fit(split.X_train, split.y_train)
    seconds = time.perf_counter() - t0
    rec = _record(split, NAIVE_LPBOOST, "peer", nu, nu_count, eps, max_time)
    rec.update({
        "rounds": int(est.n_iter_), "status": STATUS[est.status_], "seconds": seconds,
        "loop_seconds": float(est.history_["time"][-1]),
        "soft_margin": float(est.margin_), "gap": float(est.best_edge_ - est.lp_value_),
        "n_hypotheses": len(est.hypotheses_), "n_nonzero": int(np.count_nonzero(est.weights_)),
        "train_error": _error(est.predict(split.X_train), split.y_train),
        "test_error": _error(est.predict(split.X_test), split.y_test),
    })
    return rec


def run_sklearn_peer(key: str, split: Split, seed: int) -> dict:
    """Fit a peer of :data:`~.peers.SKLEARN_PEERS` on the training part (labels as 0/1)."""
    est = make_sklearn_peer(key, seed)
    y01 = (split.y_train > 0).astype(int)  # XGBoost wants 0/1 labels; the others don't mind
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(split.X_train, y01)
        seconds = time.perf_counter() - t0
    rec = _record(split, key, "peer", None, None, None, None)
    rec.update({
        "rounds": n_rounds(est), "status": "converged", "seconds": seconds,
        "train_error": _error(np.where(est.predict(split.X_train) > 0, 1.0, -1.0), split.y_train),
        "test_error": _error(np.where(est.predict(split.X_test) > 0, 1.0, -1.0), split.y_test),
    })
    return rec


def run_peer(key: str, split: Split, seed: int, nu: float | None, eps: float, max_time: float | None) -> dict:
    """Fit the peer ``key`` on ``split`` and return its record (time, rounds, errors) in the fits' CSV layout."""
    if key == NAIVE_LPBOOST:
        return run_naive_lpboost(split, nu, eps, max_time)
    if key in SKLEARN_PEERS:
        return run_sklearn_peer(key, split, seed)
    raise ValueError(f"unknown peer {key!r}; known: {sorted(PEER_LABELS)}")


def cv_folds(split: Split, folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified, shuffled (with ``seed``) folds of the training part."""
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    return list(skf.split(split.X_train, split.y_train))


def run_cv_fold(key: str, split: Split, fold: int, indices, nu: float, eps: float,
                max_time: float | None, max_iter: int = MAX_ITER) -> dict:
    """Fit on the fold's training rows with ``nu`` (fraction of their count), error on its held-out rows."""
    train_idx, val_idx = indices
    est = BOOSTERS[key].make(nu=nu, eps=eps, weak_learner="tree", max_depth=MAX_DEPTH, max_iter=max_iter,
                             max_time=max_time)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(split.X_train[train_idx], split.y_train[train_idx])
        seconds = time.perf_counter() - t0
    return {
        "dataset": split.dataset, "booster": key, "nu": nu, "fold": fold,
        "m_fold_train": int(len(train_idx)), "rounds": int(est.n_iter_),
        "status": STATUS.get(est.status_, est.status_), "seconds": seconds,
        "error": _error(est.predict(split.X_train[val_idx]), split.y_train[val_idx]),
    }


def choose_nu(cv_records: list[dict], nus) -> tuple[float, dict]:
    """The nu of smallest mean held-out error (ties: the smaller nu), and the mean per nu."""
    means = {}
    for nu in nus:
        errs = [r["error"] for r in cv_records if r["nu"] == nu]
        if errs:
            means[nu] = float(np.mean(errs))
    # Means of error fractions can differ in the last bit for equal counts: compare with a tolerance.
    lowest = min(means.values())
    best = min(nu for nu, e in means.items() if e <= lowest + 1e-12)
    return best, means


def _record(split, key, kind, nu, nu_count, eps, max_time) -> dict:
    return {
        "dataset": split.dataset, "kind": kind, "booster": key, "label": label_of(key),
        "nu": nu, "nu_count": None if nu_count is None else float(nu_count), "eps": eps,
        "max_time": max_time, "m_train": split.info["m_train"], "m_test": split.info["m_test"],
        "p": split.info["p"], "dataset_sha256": split.info["sha256"],
        "rounds": None, "status": None, "seconds": None, "loop_seconds": None,
        "weak_learner_seconds": None, "solver_seconds": None, "soft_margin": None, "gap": None,
        "n_hypotheses": None, "n_nonzero": None, "n_secondary_updates": None,
        "train_error": None, "test_error": None,
    }
