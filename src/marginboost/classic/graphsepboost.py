"""GraphSepBoost: boosting by graph separation (Alon, Gonen, Hazan, Moran, "Boosting simple
learners", STOC 2021 / TheoretiCS 2023, section 3; cited as AGHM below).

Graph. The vertices are the m training examples; ``G_1`` joins every pair ``{i, j}`` of
opposite labels (``y_i != y_j``). A hypothesis ``h`` *separates* ``{i, j}`` when
``b(x_i) != b(x_j)`` with ``b = +1 if h(x) >= 0 else -1`` (the binarised output).

Round t (AGHM Algorithm "Graph Separation Boosting"):

* distribution by degree: ``d_t(i) = deg_{G_t}(i) / (2 |E_t|)``;
* the weak learner returns ``h_t`` for ``d_t`` (edge ``gamma_t = sum_i d_t(i) y_i b_t(x_i)``);
* ``E_{t+1} = E_t \\ {{i, j} : b_t(x_i) != b_t(x_j)}``; stop when ``E_{t+1}`` is empty.

Progress. An edge left in ``E_{t+1}`` has exactly one endpoint that ``b_t`` gets wrong, so
``|E_{t+1}| <= sum_{{i,j} in E_t} ([b_t wrong at i] + [b_t wrong at j]) = 2 |E_t| err_t
= (1 - gamma_t) |E_t|``: with edges ``gamma_t >= gamma`` the graph is empty after at most
``ln(|E_1|) / gamma + 1`` rounds, ``O(log(m) / gamma)`` rather than AdaBoost's
``O(log(m) / gamma^2)`` (AGHM's point: simple base classes allow it, with a non-majority
aggregation). If a round separates no edge (the learner has no edge on ``d_t``, e.g. two
identical points with opposite labels) the run stops: the same ``d_t`` would come back.

Aggregation. Once ``E`` is empty, the code ``c(x) = (b_1(x), ..., b_T(x))`` determines the label
on the sample: two examples with the same code were never separated, so they share a label.
We implement two rules ``f`` on the codes (they agree on every code seen in training):

* ``'positive_match'`` (default): +1 iff ``c(x)`` equals the code of some positive training
  example, else -1; score +1 / -1. This is the rule the authors' crate (miniboosts'
  ``NaiveAggregation``) attributes to Lemma 4.2 of the TheoretiCS version.
* ``'hamming'``, our extension, not from AGHM: ``score(x) = min_{j: y_j = -1} H(c(x), c(x_j)) -
  min_{i: y_i = +1} H(c(x), c(x_i))`` (``H`` the Hamming distance), predict +1 iff
  ``score > 0``: the label of the nearest training codes; a code at equal distance from both
  classes gets -1. AGHM's generalisation guarantee is not claimed for it.

Memory: the graph is stored as the boolean ``n_pos x n_neg`` matrix of remaining pairs, O(m^2)
bytes (each round also costs O(n_pos n_neg)); :func:`graphsepboost` refuses with a
``ValueError`` when ``n_pos * n_neg > max_pairs``, a limit the caller may raise.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from marginboost.core.interrupts import keep_interrupted
from marginboost.core.threads import single_blas_thread

__all__ = ["GRAPHSEP_HISTORY_COLUMNS", "GraphSepResult", "aggregate_scores", "binarise", "graphsepboost"]

# One row per round t = 0 (the complete bipartite graph), 1, ..., n_iter.
GRAPHSEP_HISTORY_COLUMNS = (
    "round",  # t
    "edges",  # |E_{t+1}|: pairs of opposite labels no hypothesis so far separates
    "edge",  # gamma_t = sum_i d_t(i) y_i b_t(x_i) (0 for t = 0)
    "time",  # seconds since the run started
)


@dataclass
class GraphSepResult:
    """A GraphSepBoost run: hypotheses, training codes, status and history."""

    hypotheses: list
    codes: np.ndarray  # (m, T) int8: b_t(x_i)
    n_iter: int
    status: str  # 'separated' (no edge left) | 'no_progress' (a round separated nothing) | 'max_iter'
    #              | 'max_time' | 'interrupted'
    history: dict = field(default_factory=dict)


def binarise(out) -> np.ndarray:
    """``b = +1 where h(x) >= 0, else -1`` as int8."""
    return np.where(np.asarray(out) >= 0.0, 1, -1).astype(np.int8)


@single_blas_thread
def graphsepboost(oracle, y, *, max_iter=1000, max_pairs=10_000_000, max_time=None) -> GraphSepResult:
    """Run GraphSepBoost (module docstring); ``oracle(d) -> (h, h(X))`` is a prepared weak learner.

    Stops after ``max_iter`` rounds or ``max_time`` seconds at most; ``KeyboardInterrupt``
    returns the rounds completed (status ``'interrupted'``, :mod:`marginboost.core.interrupts`)."""
    y = np.asarray(y, dtype=np.float64)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    n_pairs = pos.shape[0] * neg.shape[0]
    if n_pairs == 0:
        raise ValueError("GraphSepBoost needs both labels -1 and +1 in y")
    if n_pairs > max_pairs:
        raise ValueError(
            f"GraphSepBoost keeps a graph on the {pos.shape[0]} x {neg.shape[0]} = {n_pairs} pairs of "
            f"opposite labels (O(m^2) memory, one byte a pair), above max_pairs={max_pairs}; raise "
            "max_pairs if the memory is available, or subsample the data")
    m = y.shape[0]
    graph = np.ones((pos.shape[0], neg.shape[0]), dtype=bool)  # remaining pairs {pos[a], neg[b]}
    start = time.perf_counter()
    rows = [(0, n_pairs, 0.0, 0.0)]
    hypotheses, codes = [], []
    status = "max_iter"
    kept = None  # t after the last completed round (see .interrupts)
    try:
        for t in range(1, max_iter + 1):
            edges = rows[-1][1]
            degree = np.zeros(m)
            degree[pos] = graph.sum(axis=1)
            degree[neg] = graph.sum(axis=0)
            d = degree / (2.0 * edges)
            h, out = oracle(d)
            b = binarise(out)
            np.logical_and(graph, np.equal.outer(b[pos], b[neg]), out=graph)
            left = int(np.count_nonzero(graph))
            hypotheses.append(h)
            codes.append(b)
            rows.append((t, left, float(d @ (y * b)), time.perf_counter() - start))
            kept = t
            if left == 0:
                status = "separated"
                break
            if left == edges:
                status = "no_progress"
                break
            if max_time is not None and time.perf_counter() - start >= max_time:
                status = "max_time"
                break
    except KeyboardInterrupt:
        if not keep_interrupted(kept):
            raise
        status = "interrupted"  # the graph is left cut by the interrupted round: it is not returned
        del hypotheses[kept:], codes[kept:], rows[kept + 1:]
    history = {name: np.asarray(col) for name, col in zip(GRAPHSEP_HISTORY_COLUMNS, zip(*rows))}
    for name in ("round", "edges"):
        history[name] = history[name].astype(np.int64)
    return GraphSepResult(hypotheses, np.stack(codes, axis=1), len(hypotheses), status, history)


def aggregate_scores(codes: np.ndarray, pos_codes: np.ndarray, neg_codes: np.ndarray,
                     rule: str = "positive_match") -> np.ndarray:
    """Scores of the codes ``(n, T)`` given the training codes of each class (module docstring)."""
    T = codes.shape[1]
    c = codes.astype(np.float64)

    def nearest(train):
        if train.shape[0] == 0:
            return np.full(codes.shape[0], T + 1.0)
        # Hamming distance of +-1 vectors: (T - <u, v>) / 2
        return ((T - c @ train.astype(np.float64).T) / 2.0).min(axis=1)

    if rule == "hamming":
        return nearest(neg_codes) - nearest(pos_codes)
    if rule == "positive_match":
        return np.where(nearest(pos_codes) == 0.0, 1.0, -1.0)
    raise ValueError(f"aggregation must be 'hamming' or 'positive_match', got aggregation={rule!r}")
