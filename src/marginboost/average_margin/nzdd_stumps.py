"""NZDDs representing a hypothesis class restricted to the sample, ``H_S`` (paper 003, section 4.1).

A hypothesis with margins ``u in {-1, +1}^m`` is represented by the set ``S = {i : u_i = +1}``
(see :mod:`marginboost.average_margin.nzdd`); ``H_S`` holds each distinct margin vector once, so the average
``E_h[u_h | d]`` weighs a vector once however many (feature, threshold) pairs produce it.

Decision stumps (:func:`build_stump_nzdd`). ``H`` is every ``h(x) = s if x_j > theta else -s``
with ``s in {+1, -1}`` and ``theta`` in ``R``, so the two constants (``theta`` below or above
every value) are in ``H_S``, as in :func:`tests.reference.all_stump_margins` and
:class:`.weak_learners.Stump`. For feature ``j`` with distinct sorted values split into blocks
``B_1, ..., B_k`` of equal values, cut ``t`` in ``0..k`` puts ``B_1..B_t`` left of ``theta``.
For orientation ``s = +1`` the margin is +1 on the negatives left and the positives right::

    S_t = N(B_1..B_t) + P(B_{t+1}..B_k)     (s = -1: P left, N right)

One chain per (feature, orientation) represents all its cuts::

    root -N(B_1)-> a_1 -N(B_2)-> ... a_k        a_t -{}-> c_t   (cut t, the "cross" edge)
    c_0 -P(B_1)-> c_1 -P(B_2)-> ... c_k = leaf,  a_0 = root

so path ``t`` is ``root..a_t -> c_t..leaf``. Each example appears once per chain: ``|G| = 2pm``
labels, ``6pm + 2p`` edges at most, ``O(pm)`` space, ``O(pm log m)`` time (the sort).

Duplicates (equal ``S`` from other features, the constants of every chain) are merged by
dropping their cross edges, which removes exactly their paths. Equality is decided by a
128-bit XOR hash of ``S`` (two independent 64-bit Zobrist keys per example, updated in ``O(|B_t|)``
from cut to cut): two distinct sets collide with probability 2^-128, so all ``n`` paths are
told apart with probability at least ``1 - n^2 2^-129``. The first occurrence is kept (order:
features ascending, ``s = +1`` before ``-1``, cuts ascending).

General classes (:func:`build_margins_nzdd`, the paper's fallback for an explicit list of
margin vectors, where it uses ZCOMP^-1 of Toda 2013): the sets, sorted as increasing index
strings, go into a trie whose equal sub-tries are shared (a minimal acyclic automaton) and
whose unary chains are contracted into one edge labelled with the union.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np

# The chains' loop, compiled (marginboost.average_margin._nzdd_stumps).
from marginboost.average_margin._nzdd_stumps import _stump_chains
from marginboost.average_margin.nzdd import NZDD, check_distribution
from marginboost.average_margin.stump_oracle import cut_codes, stump_average_margin, stump_max_edge
from marginboost.weak_learners.stumps import Stump, presort

__all__ = ["StumpNZDD", "build_margins_nzdd", "build_stump_nzdd", "data_fingerprint"]

_HASH_SEED = 20240611


def data_fingerprint(X: np.ndarray, y: np.ndarray) -> str:
    """A digest of the training sample, to refuse an NZDD built for other data."""
    h = hashlib.blake2b(digest_size=16)
    for a in (np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)):
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


@dataclass(frozen=True)
class StumpNZDD:
    """The NZDD of ``H_S`` for decision stumps, one path per distinct stump margin vector.

    ``path_edge[h]`` is the cross edge of hypothesis ``h`` (its edge marginal ``q`` is
    ``Pr[h | d]``); ``feature``, ``threshold``, ``sign`` describe a stump realising it.
    """

    # (n_nodes, src, dst, label_ptr, labels, m, kept edges, kept cross edges): the explicit DAG
    # before NZDD.from_edges, which is assembled only when asked for (``nzdd``, ``path_edge``):
    # the oracle does not need it and it costs ~80% of the build (11 of 14 s at m = 1e5, p = 20).
    graph: tuple
    feature: np.ndarray
    threshold: np.ndarray
    sign: np.ndarray
    n_features: int
    fingerprint: str
    # The chains unrolled, for :mod:`marginboost.average_margin.stump_oracle`: presorted example indices (p, m), labels
    # y > 0, block starts of feature j at starts[soff[j]:soff[j+1]], and which of the
    # 2 sum_j (k_j + 1) candidate paths are kept (``candidate[h]`` is hypothesis h's).
    order: np.ndarray
    pos: np.ndarray
    starts: np.ndarray
    soff: np.ndarray
    keep: np.ndarray
    candidate: np.ndarray

    @cached_property
    def _generic(self) -> tuple[NZDD, np.ndarray]:
        n_nodes, src, dst, label_ptr, labels, m, keep, cross = self.graph
        nzdd, edge_map = NZDD.from_edges(n_nodes, src, dst, label_ptr, labels, m, keep)
        return nzdd, edge_map[cross]

    @property
    def nzdd(self) -> NZDD:
        """The explicit NZDD (:class:`marginboost.average_margin.nzdd.NZDD`), assembled on first use."""
        return self._generic[0]

    @property
    def path_edge(self) -> np.ndarray:
        """``path_edge[h]``: the cross edge of hypothesis ``h`` in :attr:`nzdd`."""
        return self._generic[1]

    @property
    def n_hypotheses(self) -> int:
        """``|H_S|``, the number of distinct margin vectors."""
        return int(self.candidate.shape[0])

    @property
    def n_candidates(self) -> int:
        """Paths before merging duplicates: ``2 sum_j (k_j + 1)``, at most ``2p(m+1)``."""
        return int(self.keep.shape[0])

    @cached_property
    def _tables(self):
        return (self.order, self.pos, self.starts, self.soff, self.keep,
                cut_codes(self.order, self.starts, self.soff, self.keep),
                np.where(self.pos, -1.0, 1.0))

    def average_margin(self, d: np.ndarray, eta: float) -> tuple[np.ndarray, float]:
        """``(E_h[u_h | d], F(d))`` as :meth:`marginboost.average_margin.nzdd.NZDD.average_margin`, by the unrolled chains."""
        d = check_distribution(d, eta, self.order.shape[1])
        g, value, _ = stump_average_margin(self._tables, d, eta)
        return g, value

    def max_edge(self, d: np.ndarray) -> float:
        """``max_h d @ u_h`` over ``H_S``, as :meth:`marginboost.average_margin.nzdd.NZDD.max_edge`, along the presorted features."""
        return stump_max_edge(self._tables, np.ascontiguousarray(d, dtype=np.float64))

    def hypothesis_weights(self, d: np.ndarray, eta: float) -> np.ndarray:
        """``w_h = Pr[h | d] ~ exp(eta d @ u_h)`` for every hypothesis of ``H_S``."""
        d = check_distribution(d, eta, self.order.shape[1])
        _, _, prob = stump_average_margin(self._tables, d, eta, with_paths=True)
        return prob[self.candidate]

    def stumps(self, index) -> list[Stump]:
        """The :class:`~.weak_learners.Stump` objects of the hypotheses (paths) in ``index``."""
        return [Stump(int(self.feature[h]), float(self.threshold[h]), float(self.sign[h])) for h in index]

    def predict_matrix(self, X: np.ndarray, index) -> np.ndarray:
        """``h(X)`` for the hypotheses in ``index``, shape (n, len(index))."""
        index = np.asarray(index, dtype=np.int64)
        X = np.asarray(X, dtype=np.float64)
        out = X[:, self.feature[index]] > self.threshold[index]
        return np.where(out, self.sign[index], -self.sign[index])


def build_stump_nzdd(X: np.ndarray, y: np.ndarray) -> StumpNZDD:
    """The NZDD of all distinct decision stumps on ``(X, y)``, ``y`` in {-1, +1}."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or y.shape != (X.shape[0],) or X.shape[0] == 0:
        raise ValueError(f"X must be (m, p) with m >= 1 and y of shape (m,); got {X.shape}, {y.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite (no NaN or infinity) to build the stump NZDD")
    if not np.all((y == 1.0) | (y == -1.0)):
        raise ValueError("y must take values in {-1, +1}")
    m, p = X.shape
    X, vals, order = presort(X)
    # ``!=``, not np.diff: the difference of +-1e308 overflows (to inf, nonzero all the same, but with a warning)
    n_blocks = (1 + np.count_nonzero(vals[:, 1:] != vals[:, :-1], axis=1)).astype(np.int64)
    rng = np.random.default_rng(_HASH_SEED)
    key1, key2 = rng.integers(0, 2**64, size=(2, m), dtype=np.uint64, endpoint=False)
    n_nodes, src, dst, label_ptr, labels, cross, feature, threshold, sign, h1, h2 = _stump_chains(
        vals, order, y > 0, n_blocks, key1, key2)
    # First occurrence of each (h1, h2): a stable sort keeps equal pairs in path order. (Two
    # 1-d keys sort about ten times faster than np.unique(axis=0) on the stacked pairs.)
    by_hash = np.lexsort((h2, h1))
    new_set = np.ones(by_hash.shape[0], dtype=bool)
    new_set[1:] = (h1[by_hash[1:]] != h1[by_hash[:-1]]) | (h2[by_hash[1:]] != h2[by_hash[:-1]])
    first = np.sort(by_hash[new_set])
    keep = np.ones(src.shape[0], dtype=bool)
    keep[cross] = False
    keep[cross[first]] = True
    kept_paths = np.zeros(cross.shape[0], dtype=bool)
    kept_paths[first] = True
    cuts = [np.concatenate([[0], np.flatnonzero(v[1:] != v[:-1]) + 1, [m]]) for v in vals]
    soff = np.concatenate([[0], np.cumsum([c.shape[0] for c in cuts])]).astype(np.int64)
    return StumpNZDD((n_nodes, src, dst, label_ptr, labels, m, keep, cross[first]), feature[first], threshold[first], sign[first], p,
                     data_fingerprint(X, y), order, y > 0, np.concatenate(cuts).astype(np.int64), soff,
                     kept_paths, first)


def build_margins_nzdd(U: np.ndarray) -> tuple[NZDD, np.ndarray]:
    """NZDD of the distinct columns of a margin matrix ``U`` (m, n) in {-1, +1}.

    Returns the NZDD and the distinct columns (m, n') in first-occurrence order.
    """
    U = np.asarray(U, dtype=np.float64)
    if U.ndim != 2 or U.shape[1] == 0 or not np.all((U == 1.0) | (U == -1.0)):
        raise ValueError("U must be a non-empty (m, n) matrix with entries in {-1, +1}")
    m = U.shape[0]
    _, first = np.unique(U.T, axis=0, return_index=True)
    U = U[:, np.sort(first)]
    # Trie over the sets as increasing index strings; node 0 the root.
    children: list[dict] = [{}]
    terminal = [False]
    for col in U.T:
        v = 0
        for i in np.flatnonzero(col > 0).tolist():
            if i not in children[v]:
                children[v][i] = len(children)
                children.append({})
                terminal.append(False)
            v = children[v][i]
        terminal[v] = True
    # Share equal sub-tries, children first (they were created after their parents).
    canon = [0] * len(children)
    signature_id: dict = {}
    signatures = []
    for v in range(len(children) - 1, -1, -1):
        sig = (terminal[v], tuple(sorted((lab, canon[c]) for lab, c in children[v].items())))
        if sig not in signature_id:
            signature_id[sig] = len(signatures)
            signatures.append(sig)
        canon[v] = signature_id[sig]
    n = len(signatures)
    if n == 1:  # the family {{}}: the root would be the leaf
        return NZDD.from_edges(2, [0], [1], [0, 0], [], m)[0], U
    # Canonical ids grow from the leaf (id 0, the childless terminal) to the root (id n-1);
    # node number n-1-id is then topological with the root first and the leaf last.
    out = [[([lab], c) for lab, c in sig[1]] + ([([], 0)] if sig[0] and sig[1] else []) for sig in signatures]
    indeg = np.zeros(n, dtype=np.int64)
    for edges in out:
        for _, c in edges:
            indeg[c] += 1
    src, dst, ptr, labels = [], [], [0], []
    for v in range(n - 1, 0, -1):
        for lab, c in out[v]:
            lab = list(lab)
            # Contract unary chains: a node with one way in and one way out joins its edges.
            while c != 0 and indeg[c] == 1 and len(out[c]) == 1:
                lab += out[c][0][0]
                c = out[c][0][1]
            src.append(n - 1 - v)
            dst.append(n - 1 - c)
            labels += lab
            ptr.append(len(labels))
    return NZDD.from_edges(n, src, dst, ptr, labels, m)[0], U
