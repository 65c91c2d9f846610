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

The loop (:class:`GraphSepLoop`) is driven by :func:`marginboost.core.rounds.run_rounds`,
which owns the round count, the time limit, the history's ``round`` and ``time`` columns,
Ctrl-C (:mod:`marginboost.core.interrupts`) and the BLAS threads.
"""
from __future__ import annotations

import numpy as np

from marginboost.core.rounds import FitResult, RoundLoop, RoundOutcome, Status, history_columns, run_rounds

__all__ = ["GRAPHSEP_COLUMNS", "GRAPHSEP_HISTORY_COLUMNS", "SEPARATED", "GraphSepLoop", "aggregate_scores", "binarise",
           "code_tables", "graphsep_loop", "graphsepboost"]

# The loop's reason for a "converged" stop (FitResult.reason): every opposite pair is separated.
SEPARATED = "separated"

# One row per round t = 0 (the complete bipartite graph), 1, ..., n_iter; the driver adds
# 'round' (t) first and 'time' (seconds since the run started) last.
GRAPHSEP_COLUMNS = (
    "unseparated_pairs",  # |E_{t+1}|: pairs of opposite labels no hypothesis so far separates
    "edge",  # gamma_t = sum_i d_t(i) y_i b_t(x_i) (0 for t = 0)
)
GRAPHSEP_HISTORY_COLUMNS = history_columns(GRAPHSEP_COLUMNS)


def binarise(out) -> np.ndarray:
    """``b = +1 where h(x) >= 0, else -1`` as int8."""
    return np.where(np.asarray(out) >= 0.0, 1, -1).astype(np.int8)


class GraphSepLoop(RoundLoop):
    """GraphSepBoost (module docstring) as a :class:`~marginboost.core.rounds.RoundLoop`.

    The committed state is ``(t, edges, stop)``: the rounds (hypotheses, codes) so far,
    ``|E_{t+1}|``, and the status that ended the loop (None while it may go on: a continuation,
    :func:`~marginboost.core.rounds.continue_rounds`, of a fit that separated every pair or made
    no progress adds no round). Round 0 records the complete graph and commits nothing (no model yet).
    The hypotheses and codes are append-only lists, cut back to ``t`` at each step; the graph
    is one boolean matrix cut in place each round (a copy a round would double its O(m^2)
    memory), so it belongs to no state: ``graph_rounds`` says how many codes it reflects, and
    a graph left by a rolled-back round is rebuilt from the kept codes.
    """

    columns = GRAPHSEP_COLUMNS
    progress = ("unseparated_pairs", "edge")
    start_row = True

    def __init__(self, oracle, y: np.ndarray, pos: np.ndarray, neg: np.ndarray):
        self.oracle, self.y, self.pos, self.neg = oracle, y, pos, neg
        self.n_pairs = pos.shape[0] * neg.shape[0]
        self.hypotheses: list = []
        self.codes: list[np.ndarray] = []
        self.graph = None  # remaining pairs {pos[a], neg[b]}
        self.graph_rounds = None  # codes the graph reflects; None while a round cuts it

    def _graph(self, t: int) -> np.ndarray:
        """The graph ``E_{t+1}`` of the first ``t`` codes."""
        if self.graph_rounds != t:
            self.graph = self.graph_rounds = None  # freed before the new one is built
            graph = np.ones((self.pos.shape[0], self.neg.shape[0]), dtype=bool)
            for b in self.codes[:t]:
                np.logical_and(graph, np.equal.outer(b[self.pos], b[self.neg]), out=graph)
            self.graph, self.graph_rounds = graph, t
        return self.graph

    def step(self, state, round_):
        """Round ``round_`` from the committed ``state``: round 0 the complete graph, then one
        weak-learner call a round."""
        if state is None and round_ == 0:  # the complete bipartite graph: a row, no model
            return RoundOutcome({"unseparated_pairs": self.n_pairs, "edge": 0.0}, commit=False)
        t, edges, stopped = state if state is not None else (0, self.n_pairs, None)
        if stopped is not None:  # every pair separated, or no progress: nothing left to do
            return RoundOutcome(None, stop=stopped, reason=SEPARATED if stopped == Status.CONVERGED else None)
        del self.hypotheses[t:], self.codes[t:]  # drop what a rolled-back round added
        graph = self._graph(t)
        degree = np.zeros(self.y.shape[0])
        degree[self.pos] = graph.sum(axis=1)
        degree[self.neg] = graph.sum(axis=0)
        d = degree / (2.0 * edges)
        h, out = self.oracle(d)
        b = binarise(out)
        self.graph_rounds = None
        np.logical_and(graph, np.equal.outer(b[self.pos], b[self.neg]), out=graph)
        self.graph_rounds = t + 1
        left = int(np.count_nonzero(graph))
        self.hypotheses.append(h)
        self.codes.append(b)
        stop = Status.CONVERGED if left == 0 else Status.NO_PROGRESS if left == edges else None
        reason = SEPARATED if left == 0 else None
        return RoundOutcome({"unseparated_pairs": left, "edge": float(d @ (self.y * b))}, (t + 1, left, stop),
                            stop=stop, reason=reason)

    def ensemble(self, state):
        """None: the model aggregates codes, it is no weighted vote."""
        return None

    def result(self, state, status, rounds):
        """The fit of ``state`` (hypotheses and training codes); ``ValueError`` if no round completed."""
        if state is None:
            raise ValueError("GraphSepBoost: no round completed; no model")
        t = state[0]
        return FitResult(
            hypotheses=self.hypotheses[:t],
            weights=None,
            status=status,
            n_iter=rounds.n_iter,
            history=rounds.history,
            final={"codes": np.stack(self.codes[:t], axis=1)},
        )


def graphsepboost(oracle, y, *, max_iter=1000, max_pairs=10_000_000, max_time=None, callbacks=(),
                  verbose=0, name="GraphSepBoost") -> FitResult:
    """Run GraphSepBoost (module docstring), driven by :func:`~marginboost.core.rounds.run_rounds`;
    ``oracle(d) -> (h, h(X))`` is a prepared weak learner.

    Stops after ``max_iter`` rounds or ``max_time`` seconds at most; ``KeyboardInterrupt``
    returns the rounds completed (status ``'interrupted'``, :mod:`marginboost.core.interrupts`).
    ``callbacks``, ``verbose``, ``name``: as for ``run_rounds`` (a callback's ``ensemble()`` is None).
    Returns a :class:`~marginboost.core.rounds.FitResult` without weights: ``final['codes']``
    is the ``(m, T)`` int8 matrix of ``b_t(x_i)``; status 'converged' (reason ``'separated'``:
    no edge left), 'no_progress' (a round separated nothing), 'max_iter', 'max_time', 'callback' or
    'interrupted'. The history has a row for round 0 (the complete graph, edge 0).
    """
    return run_rounds(graphsep_loop(oracle, y, max_pairs=max_pairs), max_iter=max_iter, max_time=max_time,
                      callbacks=callbacks, verbose=verbose, name=name)


def graphsep_loop(oracle, y, *, max_pairs=10_000_000) -> GraphSepLoop:
    """The loop of :func:`graphsepboost` on labels ``y`` in {-1, +1}, ready for
    :func:`~marginboost.core.rounds.run_rounds`; ``ValueError`` without both labels or with more
    than ``max_pairs`` pairs of opposite labels (the graph's memory)."""
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
    return GraphSepLoop(oracle, y, pos, neg)


def code_tables(codes: np.ndarray, y_pm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct training codes of each class, ``(pos_codes, neg_codes)``, from the ``(m, T)``
    codes of the training examples and their labels in {-1, +1}. A code that examples of both
    classes share is kept in one table only: that of the class with more of its examples (a tie:
    the class with more examples overall; a tie again: -1, as the Hamming rule scores a code at
    equal distance)."""
    seen, index = np.unique(codes, axis=0, return_inverse=True)
    index = index.reshape(-1)
    pos = np.bincount(index, weights=(y_pm > 0).astype(np.float64), minlength=seen.shape[0])
    neg = np.bincount(index, weights=(y_pm < 0).astype(np.float64), minlength=seen.shape[0])
    positive_overall = np.count_nonzero(y_pm > 0) > np.count_nonzero(y_pm < 0)
    to_pos = (pos > neg) | ((pos == neg) & positive_overall)
    return seen[(pos > 0) & to_pos], seen[(neg > 0) & ~to_pos]


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
