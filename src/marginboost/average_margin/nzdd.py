"""Non-deterministic zero-suppressed decision diagrams (NZDDs) and the average-margin oracle.

Paper 003 (Mitsuboshi, Hatano, Takimoto, "A New Scheme for Boosting with an Average Margin
Distribution Oracle"), section 2 and Appendix B; NZDDs are from Fujita, Hatano, Takimoto (2020).

An NZDD ``G = (V, E, Sigma, psi)`` is a DAG with one root and one leaf whose edges carry label
sets ``psi(e)`` of ``Sigma = {0, ..., m-1}`` (example indices). A root-to-leaf path ``P``
represents ``L(P) = union_{e in P} psi(e)`` and ``G`` the family ``L(G) = {L(P)}``.

Storage (CSR-like, ``O(|V| + |E| + |G|)`` with ``|G| = sum_e |psi(e)|``): nodes ``0..n_nodes-1``
in topological order, root 0, leaf ``n_nodes - 1``; edges sorted by source, ``src[e] < dst[e]``;
the labels of edge ``e`` are ``labels[label_ptr[e]:label_ptr[e + 1]]``. Every node lies on a
root-to-leaf path (:meth:`NZDD.from_edges` trims the others). The oracle needs the labels
along each path to be disjoint (true for every construction here): then ``i in L(P)`` is
counted once per path.

Average margin (Appendix B). A hypothesis ``h`` with margins ``u in {-1, +1}^m`` is the path
whose set is ``S_h = {i : u_i = +1}``, so ``d @ u = 2 d(S_h) - sum(d)``. With
``x_i = 2 eta d_i`` and edge log-weights ``la(e) = sum_{i in psi(e)} x_i``,

    Pr[h | d] = exp(eta d @ u_h) / sum_h' exp(eta d @ u_h')  =  exp(sum_{e in P} la(e)) / Z.

(The appendix writes ``e^{2 eta d.u}`` in one line; the edge weights ``e^{2 eta d_i}`` it then
uses give ``e^{eta (d.u + sum d)}``, the distribution of Algorithm 1, which is what we use.)

* Weight pushing (Mohri and Riley 2001): ``beta(v) = log sum_{P: v -> leaf} exp(sum_P la)``,
  ``log b(e) = la(e) + beta(w) - beta(v)`` for ``e = (v, w)``. Then every node's outgoing
  ``b`` sum to one and ``prod_{e in P} b(e) = exp(sum_P la) / Z`` with ``ln Z = beta(root)``.
* Algorithm 2: ``z(root) = 1``, ``z(w) = sum_{e=(v,w)} z(v) b(e)``; ``q(e) = z(v) b(e)`` is the
  probability that the path contains ``e``; ``r_i = sum_{e : i in psi(e)} q(e) = Pr[i in S_h]``
  and the average margin vector is ``E_h[u_h | d] = 2 r - 1``. ``O(|V| + |E| + |G|)``.
* The smoothed objective: ``F(d) = (1/eta) ln sum_h exp(eta d @ u_h) = (beta(root) - eta sum d)/eta``
  with gradient ``grad F(d) = E_h[u_h | d]``.

Numerics: ``beta`` grows to ``2 eta`` (2e6 at eta = 1e6), where one double rounding is
~2e-10, more than the 1e-10 we promise. So ``x``, ``la`` and ``beta`` are double-double
numbers (hi + lo, error-free TwoProd/TwoSum, Dekker 1971); ``log b(e)`` is a small difference
of them and is exact to ~1e-16. The forward pass runs in plain space on ``b in [0, 1]``, which
neither overflows nor loses more than rounding per edge. Past ``MAX_ETA`` the answer depends on
the last bit of ``d`` itself (sensitivity ``eta * 2^-53``), so larger ``eta`` is refused.
"""
from __future__ import annotations

import numpy as np

# The loops, compiled (marginboost.average_margin._nzdd): TwoSum, the double-double add and
# TwoProd (also as C inline functions in _nzdd.pxd), the log-weights, weight pushing, the forward
# pass, the max-plus pass and the path counts.
from marginboost.average_margin._nzdd import (_count, _edge_log_weights, _forward, _log_count, _max_path,
                                               _push, dd_add, two_prod, two_sum)

__all__ = ["MAX_ETA", "MIN_ETA", "NZDD", "check_distribution"]

# eta * 2^-53 (the effect of one rounding of d on the log-weights) stays below ~1e-7.
MAX_ETA = 1e9
# The smallest eta whose output vote classifies. Pr[h | d] ~ exp(eta d @ u_h) with |d @ u_h| <= 1
# is uniform up to a relative 2 eta, and the uniform vote over H_S (every stump with its
# negation) is 0: the classifier is that O(eta) deviation, carried by the weights' last digits.
# At 1e-12 it keeps about four digits above the rounding (2^-53 ~ 1.1e-16); below ~1e-16 none
# (the decision is rounding noise around 0, no better than the majority class), and below
# ~1e-290 the oracle's masses were NaN. The oracle itself is exact for any eta in (0, MAX_ETA].
MIN_ETA = 1e-12
_SPLIT = 134217729.0  # 2^27 + 1, Dekker's splitter (the literal in _nzdd.pxd's two_prod_c)
LOG_TINY = -700.0  # probabilities below exp(LOG_TINY) are set to 0 (see _push; a C constant there)


def check_distribution(d, eta: float, m: int) -> np.ndarray:
    """``d`` as a contiguous float64 array of shape (m,), finite, and ``eta`` in (0, MAX_ETA]; else ValueError."""
    d = np.ascontiguousarray(d, dtype=np.float64)
    if d.shape != (m,):
        raise ValueError(f"d must have shape ({m},) for this NZDD, got {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("d must be finite")
    if not (0.0 < eta <= MAX_ETA):
        raise ValueError(
            f"eta must lie in (0, {MAX_ETA:g}], got {eta!r}: beyond that one rounding of d "
            f"changes the log-weights by eta * 2^-53 > 1e-7 and the average is inaccurate")
    return d


class NZDD:
    """An NZDD in CSR form; build it with :meth:`from_edges` (sorts, trims and checks).

    Attributes: ``n_nodes``, ``m`` (ground set size), ``src``, ``dst``, ``out_ptr`` (edges of
    node ``v`` are ``out_ptr[v]:out_ptr[v+1]``), ``label_ptr``, ``labels``.
    """

    def __init__(self, n_nodes, src, dst, label_ptr, labels, m):
        self.n_nodes = int(n_nodes)
        self.m = int(m)
        # contiguous int64, as the compiled kernels take them (no copy where they are already)
        self.src = np.ascontiguousarray(src, dtype=np.int64)
        self.dst = np.ascontiguousarray(dst, dtype=np.int64)
        self.label_ptr = np.ascontiguousarray(label_ptr, dtype=np.int64)
        self.labels = np.ascontiguousarray(labels, dtype=np.int64)
        self.out_ptr = np.searchsorted(self.src, np.arange(self.n_nodes + 1)).astype(np.int64)

    @classmethod
    def from_edges(cls, n_nodes, src, dst, label_ptr, labels, m, keep=None):
        """Build from edges in any order; return ``(nzdd, edge_map)``.

        Nodes must be numbered topologically (``src < dst``), root 0, leaf ``n_nodes - 1``.
        Edges with ``keep[e]`` False are dropped, then every edge and node off all
        root-to-leaf paths; ``edge_map[e]`` is the new index of old edge ``e`` or -1.
        """
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        label_ptr = np.asarray(label_ptr, dtype=np.int64)
        labels = np.asarray(labels, dtype=np.int64)
        n_edges = src.shape[0]
        if np.any(src >= dst) or (n_edges and (src.min() < 0 or dst.max() >= n_nodes)):
            raise ValueError("NZDD edges must satisfy 0 <= src < dst < n_nodes (topological order)")
        if labels.size and (labels.min() < 0 or labels.max() >= m):
            raise ValueError(f"NZDD labels must lie in [0, m) = [0, {m})")
        keep = np.ones(n_edges, dtype=bool) if keep is None else np.asarray(keep, dtype=bool).copy()
        order = np.argsort(src, kind="stable")
        reach = np.zeros(n_nodes, dtype=bool)
        reach[0] = True
        for e in order:  # sources in increasing (topological) order
            if keep[e] and reach[src[e]]:
                reach[dst[e]] = True
        coreach = np.zeros(n_nodes, dtype=bool)
        coreach[n_nodes - 1] = True
        for e in order[::-1]:
            if keep[e] and coreach[dst[e]]:
                coreach[src[e]] = True
        keep &= reach[src] & coreach[dst]
        if not keep.any():
            raise ValueError("the NZDD has no root-to-leaf path")
        alive = reach & coreach
        new_id = np.cumsum(alive) - 1
        order = order[keep[order]]
        edge_map = np.full(n_edges, -1, dtype=np.int64)
        edge_map[order] = np.arange(order.shape[0])
        sizes = np.diff(label_ptr)[order]
        new_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        gather = np.repeat(label_ptr[order] - new_ptr[:-1], sizes) + np.arange(new_ptr[-1])
        return cls(int(alive.sum()), new_id[src[order]], new_id[dst[order]], new_ptr, labels[gather], m), edge_map

    # ------------------------------------------------------------------ structure
    @property
    def n_edges(self) -> int:
        """Number of edges ``|E|``."""
        return int(self.src.shape[0])

    @property
    def size(self) -> int:
        """``|G| = sum_e |psi(e)|``, the paper's measure of the oracle's cost."""
        return int(self.labels.shape[0])

    def log_n_paths(self) -> float:
        """``ln`` of the number of root-to-leaf paths (``ln |H_S|`` when paths are distinct)."""
        return float(_log_count(self.out_ptr, self.dst))

    def n_paths(self) -> int:
        """Number of root-to-leaf paths, exact (Python integers past 2^53)."""
        approx = _count(self.out_ptr, self.dst)
        if approx < 2.0**53:  # float64 counts are exact integers up to here
            return int(approx)
        count = [0] * self.n_nodes
        count[-1] = 1
        for v in range(self.n_nodes - 2, -1, -1):
            count[v] = sum(count[w] for w in self.dst[self.out_ptr[v]:self.out_ptr[v + 1]].tolist())
        return count[0]

    def paths(self):
        """Yield every root-to-leaf path as a list of edge indices (for tiny NZDDs and tests)."""
        stack = [(0, [])]
        leaf = self.n_nodes - 1
        while stack:
            v, path = stack.pop()
            if v == leaf:
                yield path
                continue
            for e in range(self.out_ptr[v + 1] - 1, self.out_ptr[v] - 1, -1):
                stack.append((int(self.dst[e]), path + [e]))

    def edge_labels(self, e: int) -> np.ndarray:
        """The label set ``psi(e)`` of edge ``e``: example indices, a view into ``labels``."""
        return self.labels[self.label_ptr[e]:self.label_ptr[e + 1]]

    def family(self) -> list[frozenset]:
        """``[L(P) for P in paths]``: the represented sets, with multiplicity (tiny NZDDs only)."""
        return [frozenset(np.concatenate([self.edge_labels(e) for e in p] + [[]]).astype(int).tolist())
                for p in self.paths()]

    # ------------------------------------------------------------------ weights
    def _check_eta(self, d, eta):
        return check_distribution(d, eta, self.m)

    def edge_log_weights(self, d: np.ndarray, eta: float) -> tuple[np.ndarray, np.ndarray]:
        """``la(e) = sum_{i in psi(e)} 2 eta d_i`` as a double-double pair ``(hi, lo)``."""
        d = self._check_eta(d, eta)
        return _edge_log_weights(self.label_ptr, self.labels, 2.0 * eta, d)

    def push_weights(self, la_hi: np.ndarray, la_lo: np.ndarray | None = None):
        """Mohri-Riley weight pushing of edge log-weights ``la``: return ``(b, ln Z)``.

        ``b(e) = exp(la(e) + beta(w) - beta(v))`` in [0, 1]; ``prod_{e in P} b(e) =
        exp(sum_{e in P} la(e)) / Z`` for every path ``P``, and ``ln Z = beta(root)``.
        """
        la_hi = np.ascontiguousarray(la_hi, dtype=np.float64)
        la_lo = np.zeros_like(la_hi) if la_lo is None else np.ascontiguousarray(la_lo, dtype=np.float64)
        b, beta_hi, beta_lo = _push(self.out_ptr, self.dst, la_hi, la_lo)
        return b, float(beta_hi[0]) + float(beta_lo[0])

    def marginals(self, d: np.ndarray, eta: float):
        """Algorithm 2: ``(q, r, F)``: edge marginals, label marginals ``Pr[i in S_h | d]``
        and ``F(d) = (1/eta) ln sum_h exp(eta d @ u_h)``."""
        d = self._check_eta(d, eta)
        la_hi, la_lo = _edge_log_weights(self.label_ptr, self.labels, 2.0 * eta, d)
        b, beta_hi, beta_lo = _push(self.out_ptr, self.dst, la_hi, la_lo)
        q, r = _forward(self.out_ptr, self.dst, b, self.label_ptr, self.labels, self.m)
        # F = (beta(root) - eta sum d) / eta, the large parts cancelling first.
        value = ((beta_hi[0] - eta * d.sum()) + beta_lo[0]) / eta
        return q, r, float(value)

    def average_margin(self, d: np.ndarray, eta: float) -> tuple[np.ndarray, float]:
        """The average-margin oracle: ``(E_h[u_h | d], F(d))``, ``Pr[h | d] ~ exp(eta d @ u_h)``."""
        _, r, value = self.marginals(d, eta)
        return 2.0 * r - 1.0, value

    def max_edge(self, d: np.ndarray) -> float:
        """``max_h d @ u_h = 2 max_P d(L(P)) - sum(d)``: the best edge over the represented class."""
        d = np.ascontiguousarray(d, dtype=np.float64)
        return float(2.0 * _max_path(self.out_ptr, self.dst, self.label_ptr, self.labels, d) - d.sum())
