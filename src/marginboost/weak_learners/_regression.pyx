"""The compiled loops of :mod:`marginboost.weak_learners.regression` (the criterion, tie rules and
timings there)."""
import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from marginboost.weak_learners._stumps cimport midpoint
from marginboost.weak_learners._trees cimport node_entries_c, node_segments_c, split_by_node_c

cdef extern from *:
    """
    static const double MB_REGRESSION_SPLIT_TOL = 1e-12;  /* regression.SPLIT_TOL */
    """
    const double MB_REGRESSION_SPLIT_TOL


def _node_stats(const double[::1] r, const double[::1] s, const int64_t[::1] node_of, Py_ssize_t n_nodes):
    """Per node: S = sum s r, W = sum s, Q = sum s r^2, and whether its residuals differ."""
    cdef Py_ssize_t i, m = r.shape[0]
    cdef int64_t n
    cdef double x
    if s.shape[0] < m or node_of.shape[0] < m:
        raise ValueError("_node_stats: s or node_of is shorter than r")
    S_out = np.empty(n_nodes)
    W_out = np.empty(n_nodes)
    Q_out = np.empty(n_nodes)
    mixed_out = np.empty(n_nodes, dtype=np.bool_)
    cdef double[::1] S = S_out, W = W_out, Q = Q_out
    cdef unsigned char[::1] mixed = mixed_out  # numpy's bool: one byte, 0 or 1
    cdef double* lo = <double*>malloc(n_nodes * sizeof(double) + 1)
    cdef double* hi = <double*>malloc(n_nodes * sizeof(double) + 1)
    if lo == NULL or hi == NULL:
        free(lo)
        free(hi)
        raise MemoryError()
    with nogil:
        for i in range(n_nodes):
            S[i] = 0.0
            W[i] = 0.0
            Q[i] = 0.0
            lo[i] = INFINITY
            hi[i] = -INFINITY
        for i in range(m):
            n = node_of[i]
            if n < 0:
                continue
            x = r[i]
            S[n] += s[i] * x
            W[n] += s[i]
            Q[n] += s[i] * x * x
            # Python's min(a, b) and max(a, b) of the plain loop: b if b < a (b > a) else a
            lo[n] = x if x < lo[n] else lo[n]
            hi[n] = x if x > hi[n] else hi[n]
        for i in range(n_nodes):
            mixed[i] = lo[i] < hi[i]
    free(lo)
    free(hi)
    return S_out, W_out, Q_out, mixed_out


cdef inline void _left_sums(const int64_t* rank, const double* sr, const double* s, Py_ssize_t lo, Py_ssize_t size,
                            double* left_sums, double* left_weights) noexcept nogil:
    """The running sums of ``sr`` and ``s`` before each of the entries ``lo .. lo + size - 1``, at
    ``rank[k]`` (NULL rank: at k)."""
    cdef double left_s = 0.0, left_w = 0.0
    cdef Py_ssize_t t
    cdef uint64_t i
    for t in range(size):
        i = <uint64_t>rank[lo + t] if rank != NULL else <uint64_t>(lo + t)  # unsigned: no test for a negative index
        left_sums[t] = left_s
        left_weights[t] = left_w
        left_s += sr[i]
        left_w += s[i]


cdef inline void _left_sums_pair(const int64_t* ra, const double* sra, const double* sa, const int64_t* rb,
                                 const double* srb, const double* sb, Py_ssize_t lo, Py_ssize_t size,
                                 double* left_sums_a, double* left_weights_a, double* left_sums_b,
                                 double* left_weights_b) noexcept nogil:
    """_left_sums of two features in one loop: four independent chains of adds rather than two (each
    add waits for the one before it in its chain)."""
    cdef double ls_a = 0.0, lw_a = 0.0, ls_b = 0.0, lw_b = 0.0
    cdef Py_ssize_t t
    cdef uint64_t i, k
    for t in range(size):
        i = <uint64_t>ra[lo + t] if ra != NULL else <uint64_t>(lo + t)
        k = <uint64_t>rb[lo + t] if rb != NULL else <uint64_t>(lo + t)
        left_sums_a[t] = ls_a
        left_weights_a[t] = lw_a
        left_sums_b[t] = ls_b
        left_weights_b[t] = lw_b
        ls_a += sra[i]
        lw_a += sa[i]
        ls_b += srb[k]
        lw_b += sb[k]


cdef void _choose(const double* values, Py_ssize_t lo, Py_ssize_t size, int64_t j, Py_ssize_t n, const double* S,
                  const double* W, const double* Q, const double* left_sums, const double* left_weights,
                  double* scores, int64_t* best_feature, double* best_threshold, double* best_score,
                  int64_t* best_count) noexcept nogil:
    """Every cut's score, -inf where there is none (a tie with the entry before, the first entry, or an
    empty side): no loop-carried dependence, so the compiler vectorises it, divisions included; then
    the choice, in the sorted order. ``best_count[n]``: the examples left of the best cut (NULL: not
    kept)."""
    cdef double total = S[n], weight = W[n], tol = MB_REGRESSION_SPLIT_TOL * Q[n]
    cdef double best = best_score[n], wl, wr, ls, rs, score
    cdef const double* v = values + lo
    cdef Py_ssize_t t
    for t in range(1, size):  # no cut before the first entry
        wl = left_weights[t]
        wr = weight - wl
        ls = left_sums[t]
        rs = total - ls
        score = ls * ls / wl + rs * rs / wr
        scores[t] = score if (v[t] != v[t - 1]) & (wl > 0.0) & (wr > 0.0) else -INFINITY
    for t in range(1, size):
        if scores[t] > best + tol:  # never for -inf (nor NaN)
            best = scores[t]
            best_score[n] = best
            best_feature[n] = j
            best_threshold[n] = midpoint(v[t - 1], v[t])
            if best_count != NULL:
                best_count[n] = t


cdef void _sweep(const double* values, const int64_t* rank, const double* sr, const double* s, Py_ssize_t lo,
                 Py_ssize_t hi, int64_t j, Py_ssize_t n, const double* S, const double* W, const double* Q,
                 int64_t* best_feature, double* best_threshold, double* best_score, int64_t* best_count,
                 double* work) noexcept nogil:
    """_sweep_node: ``sr`` and ``s`` at ``rank[k]`` (NULL rank: at k); ``work``: 3 (hi - lo) doubles.

    The one loop it replaced tested each entry for a tie with the one before and divided where there
    was none: that test, taken or not at random on values with many ties, and the divisions, one after
    the other, made it 2 to 2.5 times as slow on ringnorm (7400 x 20) as these passes (the running sums,
    then :func:`_choose`), 1.25 times on breast cancer. The same scores, bit for bit, compared in the
    same order."""
    cdef Py_ssize_t size = hi - lo
    if size <= 0:
        return
    _left_sums(rank, sr, s, lo, size, work, work + size)
    _choose(values, lo, size, j, n, S, W, Q, work, work + size, work + 2 * size, best_feature, best_threshold,
            best_score, best_count)


cdef void _sweep_pair(const double* va, const int64_t* ra, const double* sra, const double* sa, const double* vb,
                      const int64_t* rb, const double* srb, const double* sb, Py_ssize_t lo, Py_ssize_t hi,
                      int64_t j, Py_ssize_t n, const double* S, const double* W, const double* Q,
                      int64_t* best_feature, double* best_threshold, double* best_score, int64_t* best_count,
                      double* work) noexcept nogil:
    """_sweep of feature j (``va``, ``ra``, ``sra``, ``sa``), then of feature j + 1 (``vb``, ...), their
    running sums in one loop; ``work``: 5 (hi - lo) doubles."""
    cdef Py_ssize_t size = hi - lo
    if size <= 0:
        return
    _left_sums_pair(ra, sra, sa, rb, srb, sb, lo, size, work, work + size, work + 2 * size, work + 3 * size)
    _choose(va, lo, size, j, n, S, W, Q, work, work + size, work + 4 * size, best_feature, best_threshold,
            best_score, best_count)
    _choose(vb, lo, size, j + 1, n, S, W, Q, work + 2 * size, work + 3 * size, work + 4 * size, best_feature,
            best_threshold, best_score, best_count)


cdef inline double _cut_score(double ls, double wl, double total, double weight) noexcept nogil:
    """``S_L^2 / W_L + S_R^2 / W_R`` of a cut with left sums ``ls``, ``wl``; -inf with an empty side."""
    cdef double wr = weight - wl, rs = total - ls
    if wl > 0.0 and wr > 0.0:
        return ls * ls / wl + rs * rs / wr
    return -INFINITY


cdef void _sweep_missing(const double* values, const int64_t* rank, const double* sr, const double* s, Py_ssize_t lo,
                         Py_ssize_t hi, int64_t j, Py_ssize_t n, const double* S, const double* W, const double* Q,
                         int64_t* best_feature, double* best_threshold, double* best_score,
                         uint8_t* best_missing_left, double* work) noexcept nogil:
    """_sweep for a sample with missing values (``work``: 2 (hi - lo) doubles). The node's examples
    missing feature j (NaN, sorted last; sums ``S_M``, ``W_M``) join either side of each cut between
    two finite values: the cut scores the larger of its two criteria (missing right: the left sums
    ``S_L``, ``W_L``; left: ``S_L + S_M``, ``W_L + W_M``), the missing values going to that side, and
    to the side of more finite examples (the left on a tie) when the two are within the tolerance of
    each other (e.g. no missing example here). Then the cut of the finite examples against the
    missing ones (threshold: the largest finite value), missing right. Without missing examples the
    scores, bit for bit, and the cut are :func:`_sweep`'s."""
    cdef Py_ssize_t size = hi - lo, fin = hi - lo, t
    cdef double total = S[n], weight = W[n], tol = MB_REGRESSION_SPLIT_TOL * Q[n], best = best_score[n]
    cdef double miss_s = 0.0, miss_w = 0.0, right_score, left_score, score
    cdef double* left_sums = work
    cdef double* left_weights = work + size
    cdef const double* v = values + lo
    cdef uint64_t i
    cdef bint to_left
    while fin > 0 and v[fin - 1] != v[fin - 1]:
        fin -= 1
    if fin == 0:  # every example of the node misses feature j: no cut
        return
    _left_sums(rank, sr, s, lo, size, left_sums, left_weights)
    for t in range(fin, size):
        i = <uint64_t>rank[lo + t] if rank != NULL else <uint64_t>(lo + t)
        miss_s += sr[i]
        miss_w += s[i]
    for t in range(1, fin):
        if v[t] == v[t - 1]:
            continue
        right_score = _cut_score(left_sums[t], left_weights[t], total, weight)
        left_score = _cut_score(left_sums[t] + miss_s, left_weights[t] + miss_w, total, weight)
        to_left = (left_score > right_score + tol) or (not (right_score > left_score + tol) and 2 * t >= fin)
        score = left_score if left_score > right_score else right_score
        if score > best + tol:  # never for -inf
            best = score
            best_score[n] = score
            best_feature[n] = j
            best_threshold[n] = midpoint(v[t - 1], v[t])
            best_missing_left[n] = to_left
    if fin < size:
        score = _cut_score(left_sums[fin], left_weights[fin], total, weight)
        if score > best + tol:
            best_score[n] = score
            best_feature[n] = j
            best_threshold[n] = v[fin - 1]
            best_missing_left[n] = False


def _sweep_node(const double[::1] values, const int64_t[::1] rank, const double[::1] sr, const double[::1] s,
                Py_ssize_t lo, Py_ssize_t hi, int64_t j, Py_ssize_t n, const double[::1] S, const double[::1] W,
                const double[::1] Q, int64_t[::1] best_feature, double[::1] best_threshold, double[::1] best_score):
    """:func:`_best_cuts`' sweep of feature ``j`` for node ``n`` alone: its examples' sorted
    ``values[lo:hi]`` and their ``sr = s * r`` and ``s`` (at ``rank[lo:hi]``; for an empty ``rank``,
    at ``lo:hi``); updates ``best_*[n]`` in place."""
    if lo >= hi:
        return
    cdef bint gathered = rank.shape[0] > 0
    if not (0 <= lo and hi <= values.shape[0] and 0 <= n < best_score.shape[0] and n < best_feature.shape[0]
            and n < best_threshold.shape[0] and n < S.shape[0] and n < W.shape[0] and n < Q.shape[0]
            and (not gathered or hi <= rank.shape[0]) and (gathered or (hi <= sr.shape[0] and hi <= s.shape[0]))):
        raise IndexError("_sweep_node: lo, hi or n outside the arrays")
    cdef double* work = <double*>malloc(3 * (hi - lo) * sizeof(double))
    if work == NULL:
        raise MemoryError()
    with nogil:
        _sweep(&values[0], &rank[0] if gathered else NULL, &sr[0], &s[0], lo, hi, j, n, &S[0], &W[0], &Q[0],
               &best_feature[0], &best_threshold[0], &best_score[0], NULL, work)
    free(work)


def _best_cuts(const double[:, ::1] vals, const int64_t[:, ::1] order, const double[::1] r, const double[::1] s,
               const int64_t[::1] node_of, const double[::1] S, const double[::1] W, const double[::1] Q,
               Py_ssize_t n_nodes, bint missing=False):
    """Best (feature, threshold, S_L^2/W_L + S_R^2/W_R) of every node of one level (``node_of[i]``:
    example i's node, -1 for none; one node is the root, every example in it), and whether the
    missing values go left (uint8); feature -1 where a node has no cut. See regression.py for the
    method.

    ``vals`` and ``order``: :func:`.stumps.presort`'s C-contiguous (p, m) arrays. Two features at a
    time (:func:`_sweep_pair`; below the root both split by node first); each keeps the examples
    left of its best cut, and the missing values go to the child of more examples (the left on a
    tie). ``missing``: X has NaN (sorted last in ``vals``): one feature at a time, by
    :func:`_sweep_missing`, which also chooses the side of the missing values."""
    cdef Py_ssize_t p = vals.shape[0], m = vals.shape[1]
    cdef Py_ssize_t j, n, i, row, lo, hi, row_len, rows, size, offset
    cdef bint failed = False
    if n_nodes < 1:
        raise ValueError(f"_best_cuts: n_nodes must be >= 1, got {n_nodes}")
    if (order.shape[0] != p or order.shape[1] != m or r.shape[0] != m or s.shape[0] != m or node_of.shape[0] < m
            or S.shape[0] < n_nodes or W.shape[0] < n_nodes or Q.shape[0] < n_nodes):
        raise ValueError("_best_cuts: the shapes of the arguments disagree")
    feature_out = np.empty(n_nodes, dtype=np.int64)
    threshold_out = np.empty(n_nodes)
    score_out = np.empty(n_nodes)
    count_out = np.zeros(n_nodes, dtype=np.int64)
    size_out = np.full(n_nodes, m, dtype=np.int64)
    missing_left_out = np.zeros(n_nodes, dtype=np.uint8)
    cdef int64_t[::1] bf = feature_out, bk = count_out, ns = size_out
    cdef double[::1] bt = threshold_out, bs = score_out
    cdef uint8_t[::1] bm = missing_left_out
    cdef int64_t* best_feature = &bf[0]
    cdef double* best_threshold = &bt[0]
    cdef double* best_score = &bs[0]
    cdef int64_t* best_count = &bk[0]
    cdef uint8_t* best_missing_left = &bm[0]
    cdef double* sr = NULL  # s * r, then the sweeps' work space
    cdef double* work
    cdef uint64_t* slot = NULL
    cdef int64_t* start = NULL
    cdef int64_t* position = NULL
    cdef double* split = NULL  # values, s * r and s split by node, for two features
    cdef double* a
    cdef double* b
    with nogil:
        for n in range(n_nodes):
            best_feature[n] = -1
            best_threshold[n] = 0.0
            best_score[n] = -INFINITY
        if m > 0:
            sr = <double*>malloc(6 * m * sizeof(double))
            if sr == NULL:
                failed = True
            else:
                for i in range(m):
                    sr[i] = s[i] * r[i]
        work = sr + m
        if m == 0 or failed:
            pass
        elif n_nodes == 1 and missing:
            for j in range(p):
                _sweep_missing(&vals[j, 0], &order[j, 0], sr, &s[0], 0, m, j, 0, &S[0], &W[0], &Q[0], best_feature,
                               best_threshold, best_score, best_missing_left, work)
        elif n_nodes == 1:
            j = 0
            while j + 1 < p:
                _sweep_pair(&vals[j, 0], &order[j, 0], sr, &s[0], &vals[j + 1, 0], &order[j + 1, 0], sr, &s[0], 0, m,
                            j, 0, &S[0], &W[0], &Q[0], best_feature, best_threshold, best_score, best_count, work)
                j += 2
            if j < p:
                _sweep(&vals[j, 0], &order[j, 0], sr, &s[0], 0, m, j, 0, &S[0], &W[0], &Q[0], best_feature,
                       best_threshold, best_score, best_count, work)
        else:
            slot = <uint64_t*>malloc(m * sizeof(uint64_t))
            start = <int64_t*>malloc((n_nodes + 2) * sizeof(int64_t))
            position = <int64_t*>malloc((n_nodes + 1) * sizeof(int64_t))
            if slot == NULL or start == NULL or position == NULL:
                failed = True
            else:
                node_segments_c(&node_of[0], m, n_nodes, slot, start)
                row_len = start[n_nodes + 1]
                rows = 2 if n_nodes == 2 else 1
                size = rows * row_len
                for n in range(n_nodes):
                    node_entries_c(start, n_nodes, n, &row, &lo, &hi)
                    ns[n] = hi - lo
                split = <double*>malloc(6 * size * sizeof(double))
                if split == NULL:
                    failed = True
                else:
                    a = split  # feature j: values, s * r, s
                    b = split + 3 * size  # feature j + 1
                    j = 0
                    while j + 1 < p and not missing:
                        split_by_node_c(&vals[j, 0], &order[j, 0], m, sr, &s[0], slot, start, n_nodes, a, a + size,
                                        a + 2 * size, row_len, position)
                        split_by_node_c(&vals[j + 1, 0], &order[j + 1, 0], m, sr, &s[0], slot, start, n_nodes, b,
                                        b + size, b + 2 * size, row_len, position)
                        for n in range(n_nodes):
                            node_entries_c(start, n_nodes, n, &row, &lo, &hi)
                            offset = row * row_len
                            _sweep_pair(a + offset, NULL, a + size + offset, a + 2 * size + offset, b + offset, NULL,
                                        b + size + offset, b + 2 * size + offset, lo, hi, j, n, &S[0], &W[0], &Q[0],
                                        best_feature, best_threshold, best_score, best_count, work)
                        j += 2
                    while j < p:  # the last feature of an odd count; every feature on X with NaN
                        split_by_node_c(&vals[j, 0], &order[j, 0], m, sr, &s[0], slot, start, n_nodes, a, a + size,
                                        a + 2 * size, row_len, position)
                        for n in range(n_nodes):
                            node_entries_c(start, n_nodes, n, &row, &lo, &hi)
                            offset = row * row_len
                            if missing:
                                _sweep_missing(a + offset, NULL, a + size + offset, a + 2 * size + offset, lo, hi, j,
                                               n, &S[0], &W[0], &Q[0], best_feature, best_threshold, best_score,
                                               best_missing_left, work)
                            else:
                                _sweep(a + offset, NULL, a + size + offset, a + 2 * size + offset, lo, hi, j, n,
                                       &S[0], &W[0], &Q[0], best_feature, best_threshold, best_score, best_count, work)
                        j += 1
        if not missing:
            for n in range(n_nodes):
                best_missing_left[n] = best_feature[n] >= 0 and 2 * best_count[n] >= ns[n]
        free(sr)
        free(slot)
        free(start)
        free(position)
        free(split)
    if failed:
        raise MemoryError("_best_cuts: no memory for the work arrays")
    return feature_out, threshold_out, score_out, missing_left_out
