"""The compiled loops of :mod:`marginboost.weak_learners.trees` (the method, tie rules and timings
there). The level kernels that other compiled modules call are declared in ``_trees.pxd``."""
import numpy as np

from libc.math cimport fabs
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from marginboost.weak_learners._stumps cimport midpoint, missing_by_edge

cdef extern from *:
    """
    static const double MB_TREES_SPLIT_TOL = 1e-12;  /* trees.SPLIT_TOL */
    """
    const double MB_TREES_SPLIT_TOL
    # the return type ``void`` of a function the C compiler must not inline into its caller (whose live
    # values would then take the loop's registers)
    ctypedef void noinline_void "__attribute__((noinline)) void"


# ----------------------------------------------------------------------------- node sums

cdef void node_stats_c(const double* w, const int64_t* node_of, Py_ssize_t m, Py_ssize_t n_nodes,
                       double* total, double* mass, unsigned char* has_pos,
                       unsigned char* has_neg) noexcept nogil:
    cdef Py_ssize_t i
    cdef int64_t n
    cdef double x
    for i in range(n_nodes):
        total[i] = 0.0
        mass[i] = 0.0
        has_pos[i] = 0
        has_neg[i] = 0
    for i in range(m):
        n = node_of[i]
        if n < 0:
            continue
        x = w[i]
        total[n] += x
        mass[n] += fabs(x)
        # or-ed in, not set under a branch on the sign of w_i (the labels': random)
        has_pos[n] |= x > 0.0
        has_neg[n] |= x < 0.0


def node_stats(const double[::1] w, const int64_t[::1] node_of, Py_ssize_t n_nodes):
    """Per node: S(N), sum |w_i|, and whether some w_i > 0 and whether some w_i < 0 (a node
    is pure unless both occur; kept apart so that partial results over row blocks merge)."""
    cdef Py_ssize_t m = w.shape[0]
    if node_of.shape[0] < m:
        raise ValueError("node_stats: node_of is shorter than w")
    total = np.empty(n_nodes)
    mass = np.empty(n_nodes)
    has_pos = np.empty(n_nodes, dtype=np.bool_)
    has_neg = np.empty(n_nodes, dtype=np.bool_)
    cdef double[::1] t = total, a = mass
    cdef unsigned char[::1] hp = has_pos, hn = has_neg  # numpy's bool: one byte, 0 or 1
    with nogil:
        node_stats_c(&w[0] if m else NULL, &node_of[0] if m else NULL, m, n_nodes, &t[0] if n_nodes else NULL,
                     &a[0] if n_nodes else NULL, &hp[0] if n_nodes else NULL, &hn[0] if n_nodes else NULL)
    return total, mass, has_pos, has_neg


# ----------------------------------------------------------------------------- splitting by node

cdef void node_segments_c(const int64_t* node_of, Py_ssize_t m, Py_ssize_t n_nodes, uint64_t* slot,
                          int64_t* start) noexcept nogil:
    cdef Py_ssize_t i, s
    cdef int64_t n
    for s in range(n_nodes + 2):
        start[s] = 0
    for i in range(m):
        n = node_of[i]
        s = n if n >= 0 else n_nodes
        slot[i] = s
        start[s + 1] += 1
    for s in range(n_nodes + 1):
        start[s + 1] += start[s] + 1


cdef void split_by_node_c(const double* values, const int64_t* rank, Py_ssize_t m, const double* a,
                          const double* b, const uint64_t* slot, const int64_t* start,
                          Py_ssize_t n_nodes, double* out_values, double* out_a, double* out_b,
                          Py_ssize_t row_len, int64_t* position) noexcept nogil:
    cdef Py_ssize_t k, c0, c1
    cdef uint64_t i, s
    cdef int64_t r
    cdef double v, x, y
    cdef double* ov1
    cdef double* oa1
    cdef double* ob1
    if n_nodes == 2:
        c0 = 0
        c1 = 0
        ov1 = out_values + row_len
        oa1 = out_a + row_len
        if b == NULL:
            for k in range(m):
                i = <uint64_t>rank[k]
                s = slot[i]
                v = values[k]
                x = a[i]
                out_values[c0] = v
                out_a[c0] = x
                ov1[c1] = v
                oa1[c1] = x
                c0 += s == 0
                c1 += s == 1
        else:
            ob1 = out_b + row_len
            for k in range(m):
                i = <uint64_t>rank[k]
                s = slot[i]
                v = values[k]
                x = a[i]
                y = b[i]
                out_values[c0] = v
                out_a[c0] = x
                ov1[c1] = v
                oa1[c1] = x
                out_b[c0] = y
                ob1[c1] = y
                c0 += s == 0
                c1 += s == 1
        return
    for k in range(n_nodes + 1):
        position[k] = start[k]
    if b == NULL:
        for k in range(m):
            i = <uint64_t>rank[k]
            s = slot[i]
            r = position[s]
            out_values[r] = values[k]
            out_a[r] = a[i]
            position[s] = r + 1
    else:
        for k in range(m):
            i = <uint64_t>rank[k]
            s = slot[i]
            r = position[s]
            out_values[r] = values[k]
            out_a[r] = a[i]
            out_b[r] = b[i]
            position[s] = r + 1


def node_segments(const int64_t[::1] node_of, Py_ssize_t n_nodes):
    """Where :func:`split_by_node` puts each node's examples: ``slot[i]``, example i's node (or
    ``n_nodes`` for none; uint64), and ``start[s]`` for ``s = 0 .. n_nodes + 1``: with more than two
    nodes, where node s's examples begin, each node's followed by one spare entry (``start[n_nodes
    + 1]``: the length the outputs need); see :func:`node_entries`."""
    cdef Py_ssize_t m = node_of.shape[0]
    slot = np.empty(m, dtype=np.uint64)
    start = np.empty(n_nodes + 2, dtype=np.int64)
    cdef uint64_t[::1] sl = slot
    cdef int64_t[::1] st = start
    with nogil:
        node_segments_c(&node_of[0] if m else NULL, m, n_nodes, &sl[0] if m else NULL, &st[0])
    return slot, start


def node_entries(const int64_t[::1] start, Py_ssize_t n_nodes, Py_ssize_t n):
    """``(row, lo, hi)``: node n's examples in :func:`split_by_node`'s outputs, ``out[row, lo:hi]``."""
    cdef Py_ssize_t row, lo, hi
    node_entries_checked(start, n_nodes, n, &row, &lo, &hi)
    return row, lo, hi


cdef int node_entries_checked(const int64_t[::1] start, Py_ssize_t n_nodes, Py_ssize_t n, Py_ssize_t* row,
                              Py_ssize_t* lo, Py_ssize_t* hi) except -1:
    if not 0 <= n < start.shape[0] - 1:
        raise IndexError(f"node_entries: node {n} outside the {start.shape[0]} entries of start")
    node_entries_c(&start[0], n_nodes, n, row, lo, hi)
    return 0


def split_by_node(const double[::1] values, const int64_t[::1] rank, const double[::1] a, const double[::1] b,
                  const uint64_t[::1] slot, const int64_t[::1] start, Py_ssize_t n_nodes,
                  double[:, ::1] out_values, double[:, ::1] out_a, double[:, ::1] out_b, int64_t[::1] position):
    """A feature's sorted ``values`` and, for their examples (``rank``: the example indices), the
    entries of ``a`` and of ``b`` (empty: none), split by node (:func:`node_entries` says where node
    n's are), each node's in the sorted order, so that each node can be swept alone with its sums in
    registers. The entries are gathered here, once, rather than by index in each sweep.

    Two nodes: row n of the (2, len) outputs holds node n's; every example is written to both
    rows' next entries and only its own node's advanced, without a branch (the nodes' examples
    interleave at random). More: a stable counting sort into row 0, through ``position`` (n_nodes
    + 1 entries of work space)."""
    cdef Py_ssize_t m = values.shape[0]
    cdef Py_ssize_t row_len = out_values.shape[1]
    cdef bint with_b = b.shape[0] > 0
    cdef Py_ssize_t k
    if m == 0:
        if n_nodes != 2:
            for k in range(min(n_nodes + 1, position.shape[0], start.shape[0])):
                position[k] = start[k]
        return
    if (rank.shape[0] < m or out_a.shape[1] != row_len or out_values.shape[0] < (2 if n_nodes == 2 else 1)
            or out_a.shape[0] < out_values.shape[0] or start.shape[0] < n_nodes + 2
            or position.shape[0] < (0 if n_nodes == 2 else n_nodes + 1)
            or (with_b and (out_b.shape[1] != row_len or out_b.shape[0] < out_values.shape[0]))):
        raise ValueError("split_by_node: the shapes of the arguments disagree")
    with nogil:
        split_by_node_c(&values[0], &rank[0], m, &a[0], &b[0] if with_b else NULL, &slot[0], &start[0], n_nodes,
                        &out_values[0, 0], &out_a[0, 0], &out_b[0, 0] if with_b else NULL, row_len,
                        &position[0] if position.shape[0] else NULL)


# ----------------------------------------------------------------------------- best splits

cdef inline void _sweep(const double* values, const int64_t* rank, const double* w, Py_ssize_t lo, Py_ssize_t hi,
                        int64_t j, Py_ssize_t n, const double* node_total, const double* node_mass,
                        int64_t* best_feature, double* best_threshold, double* best_score,
                        int64_t* best_count) noexcept nogil:
    """_sweep_node: feature j for node n, ``values[lo:hi]`` and their ``w[rank[k]]`` (NULL rank: ``w[k]``);
    ``best_count[n]``: the examples left of the best cut (NULL: not kept). The first entry (no cut before
    it) is peeled off the loop."""
    cdef double total = node_total[n], tol = MB_TREES_SPLIT_TOL * node_mass[n], best = best_score[n]
    cdef double left, last, v, score
    cdef Py_ssize_t k
    if lo >= hi:
        return
    left = w[<uint64_t>rank[lo]] if rank != NULL else w[lo]
    last = values[lo]
    for k in range(lo + 1, hi):
        v = values[k]
        score = fabs(left) + fabs(total - left)
        if (v != last) & (score > best + tol):
            best = score
            best_score[n] = score
            best_feature[n] = j
            best_threshold[n] = midpoint(last, v)
            if best_count != NULL:
                best_count[n] = k - lo
        left += w[<uint64_t>rank[k]] if rank != NULL else w[k]  # unsigned: no test for a negative index
        last = v


cdef inline void _sweep_pair(const double* va, const int64_t* ra, const double* wa, const double* vb,
                             const int64_t* rb, const double* wb, Py_ssize_t lo, Py_ssize_t hi, int64_t j,
                             Py_ssize_t n, const double* node_total, const double* node_mass, int64_t* best_feature,
                             double* best_threshold, double* best_score, int64_t* best_count) noexcept nogil:
    """_sweep of feature j (``va``, ``ra``, ``wa``) and then of feature j + 1 (``vb``, ``rb``, ``wb``) for node
    n, in one loop: two independent running sums, so that each add need not wait for the other's (a sweep
    is bound by the latency of its running sum's adds).

    Both sweeps start from the node's best so far, g. Feature j's is then exactly the lone sweep. So is
    feature j + 1's when feature j found no better cut (the best is still g). When it did, j + 1's best
    b_b (from g) is either at most j's best b_a, and then no cut of j + 1 beats b_a: every cut of j + 1
    scored at most fl(c + tol) for a best c <= b_b <= b_a when it was tested, so at most fl(b_a + tol)
    (rounding is monotone), and its lone sweep from b_a would take none; or b_b > b_a, and then j + 1
    is swept again alone, from b_a (a cut within the tolerance of another is taken or not depending on
    the best it meets, so the two sweeps' choices can differ)."""
    cdef double total = node_total[n], tol = MB_TREES_SPLIT_TOL * node_mass[n], g = best_score[n]
    cdef double ba = g, bb = g, ta = 0.0, tb = 0.0, la, lb, lasta, lastb, xa, xb, sa, sb
    cdef bint fa = False, fb = False
    cdef Py_ssize_t k, ka = 0, kb = 0
    if lo >= hi:
        return
    la = wa[<uint64_t>ra[lo]] if ra != NULL else wa[lo]
    lb = wb[<uint64_t>rb[lo]] if rb != NULL else wb[lo]
    lasta = va[lo]
    lastb = vb[lo]
    for k in range(lo + 1, hi):
        xa = va[k]
        xb = vb[k]
        sa = fabs(la) + fabs(total - la)
        sb = fabs(lb) + fabs(total - lb)
        if (xa != lasta) & (sa > ba + tol):
            ba = sa
            ta = midpoint(lasta, xa)
            ka = k
            fa = True
        if (xb != lastb) & (sb > bb + tol):
            bb = sb
            tb = midpoint(lastb, xb)
            kb = k
            fb = True
        la += wa[<uint64_t>ra[k]] if ra != NULL else wa[k]
        lb += wb[<uint64_t>rb[k]] if rb != NULL else wb[k]
        lasta = xa
        lastb = xb
    if fa:
        best_score[n] = ba
        best_feature[n] = j
        best_threshold[n] = ta
        best_count[n] = ka - lo
        if fb and bb > ba:
            _sweep(vb, rb, wb, lo, hi, j + 1, n, node_total, node_mass, best_feature, best_threshold, best_score,
                   best_count)
    elif fb:
        best_score[n] = bb
        best_feature[n] = j + 1
        best_threshold[n] = tb
        best_count[n] = kb - lo


def _sweep_node(const double[::1] values, const int64_t[::1] rank, const double[::1] w, Py_ssize_t lo, Py_ssize_t hi,
                int64_t j, Py_ssize_t n, const double[::1] node_total, const double[::1] node_mass,
                int64_t[::1] best_feature, double[::1] best_threshold, double[::1] best_score):
    """:func:`_best_splits`' sweep of feature ``j`` for node ``n`` alone: its examples' sorted
    ``values[lo:hi]`` and their ``w[rank[lo:hi]]`` (for an empty ``rank``, ``w[lo:hi]``); updates
    ``best_*[n]`` in place."""
    if lo >= hi:
        return
    if not (0 <= lo and hi <= values.shape[0] and 0 <= n < best_score.shape[0] and n < best_feature.shape[0]
            and n < best_threshold.shape[0] and n < node_total.shape[0] and n < node_mass.shape[0]
            and (rank.shape[0] == 0 or hi <= rank.shape[0]) and (rank.shape[0] > 0 or hi <= w.shape[0])):
        raise IndexError("_sweep_node: lo, hi or n outside the arrays")
    with nogil:
        _sweep(&values[0], &rank[0] if rank.shape[0] > 0 else NULL, &w[0], lo, hi, j, n, &node_total[0],
               &node_mass[0], &best_feature[0], &best_threshold[0], &best_score[0], NULL)


cdef inline void _sweep_missing(const double* values, const int64_t* rank, const double* w, Py_ssize_t lo,
                                Py_ssize_t hi, int64_t j, Py_ssize_t n, const double* node_total,
                                const double* node_mass, double noise, const double* mean, int64_t* best_feature,
                                double* best_threshold, double* best_score, uint8_t* best_missing_left) noexcept nogil:
    """_sweep for a sample with missing values: the node's examples missing feature j (NaN, sorted
    last: ``values[fin:hi]``, their sum M) join either side of each cut between two finite values,

        score_right = |L| + |S - L|,    score_left = |L + M| + |S - L - M|,

    and, where M passes the test of ``noise`` (``missing_by_edge``, :mod:`.missing_side`), the cut's
    score is the larger and the missing examples go to that side, and when the two are within the
    tolerance of each other to the side of more finite examples (the left on a tie; trees.py);
    where ``M`` fails the test, to the side where the cut sends the feature's mean ``*mean`` (NULL,
    or no missing example here: of more finite examples), the score that side's. One more cut, where
    M passes the test or the mean lies past the node's largest value: the finite examples against the missing
    ones (threshold: the largest finite value, ``midpoint(last, NaN)``), missing right. Without
    missing examples every score and choice is :func:`_sweep`'s."""
    cdef double total = node_total[n], tol = MB_TREES_SPLIT_TOL * node_mass[n], best = best_score[n]
    cdef double miss = 0.0, left, last, v, sr, sl, score
    cdef Py_ssize_t fin = hi, k
    cdef bint to_left, by_edge, by_mean
    if lo >= hi:
        return
    while fin > lo and values[fin - 1] != values[fin - 1]:
        fin -= 1
    if fin == lo:  # every example of the node misses feature j: no cut
        return
    for k in range(fin, hi):
        miss += w[<uint64_t>rank[k]] if rank != NULL else w[k]
    by_edge = missing_by_edge(miss, hi - fin, total, hi - lo, noise)
    by_mean = not by_edge and mean != NULL and fin < hi
    left = w[<uint64_t>rank[lo]] if rank != NULL else w[lo]
    last = values[lo]
    for k in range(lo + 1, fin):
        v = values[k]
        if v != last:
            sr = fabs(left) + fabs(total - left)
            sl = fabs(left + miss) + fabs(total - left - miss)
            if by_edge:
                to_left = (sl > sr + tol) or (not (sr > sl + tol) and 2 * (k - lo) >= fin - lo)
                score = sl if sl > sr else sr
            else:
                to_left = mean[0] <= midpoint(last, v) if by_mean else 2 * (k - lo) >= fin - lo
                score = sl if to_left else sr
            if score > best + tol:
                best = score
                best_score[n] = score
                best_feature[n] = j
                best_threshold[n] = midpoint(last, v)
                best_missing_left[n] = to_left
        left += w[<uint64_t>rank[k]] if rank != NULL else w[k]
        last = v
    # The finite examples against the missing ones: where M departs (.missing_side), or where the
    # mean, past the node's largest value, puts them there (a cut of the mean-imputed data).
    if fin < hi and (by_edge or (by_mean and mean[0] > last)):
        sr = fabs(left) + fabs(total - left)
        if sr > best + tol:
            best_score[n] = sr
            best_feature[n] = j
            best_threshold[n] = last
            best_missing_left[n] = False


def _best_splits(const double[:, ::1] vals, const int64_t[:, ::1] order, const double[::1] w,
                 const int64_t[::1] node_of, const double[::1] node_total, const double[::1] node_mass,
                 Py_ssize_t n_nodes, bint missing=False, const double[::1] noise=None,
                 const double[::1] means=None):
    """Best (feature, threshold, |L| + |R|) for every node of one level (``node_of[i]``: example i's
    node, -1 for none; one node is the root, every example in it), and whether the missing values
    go left (uint8); feature -1 where a node has no cut (one distinct value in every feature). See
    trees.py for the method.

    ``vals`` and ``order``: :func:`.stumps.presort`'s C-contiguous (p, m) arrays. The features are
    swept two at a time (:func:`_sweep_pair`; below the root both split by node first), with the
    result of sweeping them one after the other; each keeps the examples left of its best cut, and
    the missing values go to the child of more examples (the left on a tie). ``missing``: X has
    NaN (sorted last in ``vals``); the features are then swept one at a time by
    :func:`_sweep_missing`, which also chooses the side of the missing values, by edge where their
    sum passes the test of ``noise[n]`` (:mod:`.missing_side`; None: noise 0, always by edge), else
    to the side of the feature's mean ``means[j]`` (None: of more finite examples)."""
    cdef Py_ssize_t p = vals.shape[0], m = vals.shape[1]
    cdef Py_ssize_t j, n, row, lo, hi, row_len = 0, rows, size
    cdef bint failed = False
    if n_nodes < 1:
        raise ValueError(f"_best_splits: n_nodes must be >= 1, got {n_nodes}")
    if (order.shape[0] != p or order.shape[1] != m or w.shape[0] < m or node_of.shape[0] < m
            or node_total.shape[0] < n_nodes or node_mass.shape[0] < n_nodes
            or (noise is not None and noise.shape[0] < n_nodes) or (means is not None and means.shape[0] != p)):
        raise ValueError("_best_splits: the shapes of the arguments disagree")
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
    cdef const double* total = &node_total[0]
    cdef const double* mass = &node_mass[0]
    cdef const double* nz = NULL
    cdef const double* med = NULL
    cdef uint64_t* slot = NULL
    cdef int64_t* start = NULL
    cdef int64_t* position = NULL
    cdef double* work = NULL
    cdef double* va
    cdef double* wa
    cdef double* vb
    cdef double* wb
    if noise is not None:
        nz = &noise[0]
    if means is not None:
        med = &means[0]
    with nogil:
        for n in range(n_nodes):
            best_feature[n] = -1
            best_threshold[n] = 0.0
            best_score[n] = -1.0
        if m == 0:
            pass
        elif n_nodes == 1 and missing:
            for j in range(p):
                _sweep_missing(&vals[j, 0], &order[j, 0], &w[0], 0, m, j, 0, total, mass,
                               nz[0] if nz != NULL else 0.0, med + j if med != NULL else NULL, best_feature,
                               best_threshold, best_score, best_missing_left)
        elif n_nodes == 1:
            j = 0
            while j + 1 < p:
                _sweep_pair(&vals[j, 0], &order[j, 0], &w[0], &vals[j + 1, 0], &order[j + 1, 0], &w[0], 0, m, j, 0,
                            total, mass, best_feature, best_threshold, best_score, best_count)
                j += 2
            if j < p:
                _sweep(&vals[j, 0], &order[j, 0], &w[0], 0, m, j, 0, total, mass, best_feature, best_threshold,
                       best_score, best_count)
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
                # values and w split by node, for two features
                work = <double*>malloc(4 * size * sizeof(double))
                if work == NULL:
                    failed = True
                elif missing:
                    va = work
                    wa = work + size
                    for j in range(p):
                        split_by_node_c(&vals[j, 0], &order[j, 0], m, &w[0], NULL, slot, start, n_nodes, va, wa, NULL,
                                        row_len, position)
                        for n in range(n_nodes):
                            node_entries_c(start, n_nodes, n, &row, &lo, &hi)
                            _sweep_missing(va + row * row_len, NULL, wa + row * row_len, lo, hi, j, n, total, mass,
                                           nz[n] if nz != NULL else 0.0, med + j if med != NULL else NULL,
                                           best_feature, best_threshold, best_score, best_missing_left)
                else:
                    va = work
                    wa = work + size
                    vb = work + 2 * size
                    wb = work + 3 * size
                    j = 0
                    while j + 1 < p:
                        split_by_node_c(&vals[j, 0], &order[j, 0], m, &w[0], NULL, slot, start, n_nodes, va, wa, NULL,
                                        row_len, position)
                        split_by_node_c(&vals[j + 1, 0], &order[j + 1, 0], m, &w[0], NULL, slot, start, n_nodes, vb,
                                        wb, NULL, row_len, position)
                        for n in range(n_nodes):
                            node_entries_c(start, n_nodes, n, &row, &lo, &hi)
                            _sweep_pair(va + row * row_len, NULL, wa + row * row_len, vb + row * row_len, NULL,
                                        wb + row * row_len, lo, hi, j, n, total, mass, best_feature, best_threshold,
                                        best_score, best_count)
                        j += 2
                    if j < p:
                        split_by_node_c(&vals[j, 0], &order[j, 0], m, &w[0], NULL, slot, start, n_nodes, va, wa, NULL,
                                        row_len, position)
                        for n in range(n_nodes):
                            node_entries_c(start, n_nodes, n, &row, &lo, &hi)
                            _sweep(va + row * row_len, NULL, wa + row * row_len, lo, hi, j, n, total, mass,
                                   best_feature, best_threshold, best_score, best_count)
            free(slot)
            free(start)
            free(position)
            free(work)
        if not missing:
            for n in range(n_nodes):
                best_missing_left[n] = best_feature[n] >= 0 and 2 * best_count[n] >= ns[n]
    if failed:
        raise MemoryError("_best_splits: no memory for the per-node work arrays")
    return feature_out, threshold_out, score_out, missing_left_out


# ----------------------------------------------------------------------------- routing and prediction

cdef noinline_void _route_rows(const char* X, Py_ssize_t row_stride, Py_ssize_t column_stride,
                               const int64_t* node_of, Py_ssize_t m, const int64_t* split_feature,
                               const double* split_threshold, const int64_t* left_child,
                               const int64_t* right_child, const uint8_t* missing_left, int64_t* out) noexcept nogil:
    """_route with X[i, f] at byte ``i * row_stride + f * column_stride`` of ``X``. Not inlined into the
    wrapper: there its loop kept the arrays' addresses on the stack and took 1.4 times as long.
    ``missing_left`` NULL: X has no NaN, and ``x <= threshold`` alone decides."""
    cdef Py_ssize_t i
    cdef int64_t n, f, r
    cdef double x
    cdef const int64_t* child
    cdef const char* row = X
    if missing_left != NULL:
        for i in range(m):
            n = node_of[i]
            r = -1
            if n >= 0:
                f = split_feature[n]
                if f >= 0:
                    x = (<const double*>(row + f * column_stride))[0]
                    child = left_child if (x <= split_threshold[n]) | ((x != x) & missing_left[n]) else right_child
                    r = child[n]
            out[i] = r
            row += row_stride
        return
    if column_stride == sizeof(double):  # rows contiguous (the level grower's X): no multiply
        for i in range(m):
            n = node_of[i]
            r = -1
            if n >= 0:
                f = split_feature[n]
                if f >= 0:  # a select on the example's side, not a branch (the sides are random by example)
                    child = left_child if (<const double*>row)[f] <= split_threshold[n] else right_child
                    r = child[n]
            out[i] = r
            row += row_stride
        return
    for i in range(m):
        n = node_of[i]
        r = -1
        if n >= 0:
            f = split_feature[n]
            if f >= 0:
                x = (<const double*>(row + f * column_stride))[0]
                child = left_child if x <= split_threshold[n] else right_child
                r = child[n]
        out[i] = r
        row += row_stride


def _route(const double[:, :] X, const int64_t[::1] node_of, const int64_t[::1] split_feature,
           const double[::1] split_threshold, const int64_t[::1] left_child, const int64_t[::1] right_child,
           const uint8_t[::1] missing_left=None):
    """Next level's node index of every example (-1 once its node became a leaf). X: float64 of any
    layout (the level grower's is C-contiguous). ``missing_left[n]`` (X with NaN): where node n sends
    a missing value (1: left); None when X has none."""
    cdef Py_ssize_t m = node_of.shape[0]
    if m > X.shape[0]:
        raise ValueError("_route: node_of is longer than X")
    if missing_left is not None and missing_left.shape[0] < split_feature.shape[0]:
        raise ValueError("_route: missing_left is shorter than split_feature")
    out = np.empty(m, dtype=np.int64)
    if m == 0:
        return out
    if X.shape[1] == 0:  # no column, so no split: every node is a leaf (and X[0, 0] is no element)
        out.fill(-1)
        return out
    cdef int64_t[::1] o = out
    cdef const char* data = <const char*>&X[0, 0]
    cdef Py_ssize_t row_stride = X.strides[0], column_stride = X.strides[1]
    cdef const uint8_t* ml = &missing_left[0] if missing_left is not None and missing_left.shape[0] else NULL
    with nogil:
        _route_rows(data, row_stride, column_stride, &node_of[0], m, &split_feature[0], &split_threshold[0],
                    &left_child[0], &right_child[0], ml, &o[0])
    return out


def _predict_tree(const double[:, :] X, const int64_t[::1] feature, const double[::1] threshold,
                  const int64_t[::1] left, const int64_t[::1] right, const double[::1] value,
                  const uint8_t[::1] missing_left):
    """Each row's leaf value: from node 0, ``left`` where ``x[feature] <= threshold`` or x is NaN and
    ``missing_left``, else ``right``, until a node with feature -1. X of any layout (float64)."""
    cdef Py_ssize_t i, m = X.shape[0]
    cdef int64_t node
    cdef double x
    out = np.empty(m)
    cdef double[::1] o = out
    if m == 0:
        return out
    if feature.shape[0] == 0:
        raise ValueError("_predict_tree: a tree needs at least one node")
    if missing_left.shape[0] != feature.shape[0]:
        raise ValueError("_predict_tree: missing_left and feature differ in length")
    with nogil:
        for i in range(m):
            node = 0
            while feature[node] >= 0:
                x = X[i, feature[node]]
                if x <= threshold[node] or (x != x and missing_left[node]):
                    node = left[node]
                else:
                    node = right[node]
            o[i] = value[node]
    return out
