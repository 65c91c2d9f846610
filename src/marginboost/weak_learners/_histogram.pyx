"""The compiled loops of :mod:`marginboost.weak_learners.histogram` (the learners and the
reasoning behind each loop are there)."""
from cython.parallel cimport prange
from libc.math cimport INFINITY, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

import numpy as np

from marginboost.core._buffers cimport (MB_BOOL, MB_C, MB_F64, MB_I32, MB_I64, MB_INT, MB_U64, MB_U8, mb_acquire,
                                        mb_release, mb_release_n)
from marginboost.weak_learners._binning cimport limit_threads
from marginboost.weak_learners._stumps cimport midpoint, missing_by_edge

from marginboost.weak_learners.trees import node_stats

cdef extern from *:
    """
    /* trees.SPLIT_TOL (histogram.py checks that they agree) */
    static const double MB_SPLIT_TOL = 1e-12;
    /* _node_sums_c: row k the indicators of node k of a pass, row 4 of none */
    static const double MB_ONEHOT[20] = {1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 0,  0, 0, 0, 1,  0, 0, 0, 0};
    """
    const double MB_SPLIT_TOL
    const double* MB_ONEHOT

cdef extern from *:
    """
    /* A (sum, count) pair of a bin plus (x, 1): one two-lane add where the compiler has vectors
       (GCC, Clang), two adds otherwise; the same bits either way. The pair need not be 16-byte
       aligned. */
    #if defined(__GNUC__) || defined(__clang__)
    typedef double mb_pair_t __attribute__((vector_size(16), aligned(8)));
    static inline void mb_add_pair(double *p, double x) { *(mb_pair_t *)p += (mb_pair_t){x, 1.0}; }
    #else
    static inline void mb_add_pair(double *p, double x) { p[0] += x; p[1] += 1.0; }
    #endif
    """
    void mb_add_pair(double* p, double x) noexcept nogil

SPLIT_TOL = MB_SPLIT_TOL

# The kernels take their arrays as C-contiguous buffers (core/_buffers.pxd: mb_acquire), which cost a third
# of a typed memoryview's acquisition; new arrays from numpy, its functions and dtypes looked up once.
_empty = np.empty
_zeros = np.zeros
_array = np.array
_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)
_U64 = np.dtype(np.uint64)
_BOOL = np.dtype(np.bool_)
_U8 = np.dtype(np.uint8)

ctypedef fused count_t:
    int32_t
    int64_t

cdef enum:
    # Rows per block: a block of w (and of the nodes) stays in cache while the features of a group
    # sweep it, so w is read once per group rather than once per feature.
    _BLOCK_ROWS = 4096
    # A level's walks go down by one pass over the examples per internal node (a select the
    # compiler vectorises) when there are at most this many nodes to pass; otherwise each example
    # walks alone.
    _MAX_NODE_PASSES = 8
    # Node sums of one pass keep this many nodes' sums in registers (see _node_sums).
    _NODES_PER_PASS = 4


def effective_threads(int threads):
    """The threads the histogram kernels run a call with ``threads`` on, now: at most OpenMP's
    ``omp_get_max_threads()`` (_binning.pxd: limit_threads)."""
    return limit_threads(threads)


cdef inline object _new(Py_ssize_t n, dtype, Py_buffer* view, int kind):
    """A new 1-d array of n items, its buffer acquired (writable) into ``view``."""
    arr = _empty(n, dtype)
    mb_acquire(view, arr, kind, 1, True, MB_C, b"new array")
    return arr


cdef inline object _new_zeros(Py_ssize_t n, dtype, Py_buffer* view, int kind):
    arr = _zeros(n, dtype)
    mb_acquire(view, arr, kind, 1, True, MB_C, b"new array")
    return arr


cdef inline int _check(bint ok, str what) except -1:
    if not ok:
        raise ValueError(f"inconsistent shapes: {what}")
    return 0


# ------------------------------------------------------------------ histograms (any row block)


cdef void _group_hist(const uint8_t* codes, Py_ssize_t m, const double* w, double* hist, Py_ssize_t width,
                      Py_ssize_t j0, Py_ssize_t j1) noexcept nogil:
    """Add w into the histograms (rows of ``width``) of features j0 .. j1-1 (rows of ``m`` codes),
    each in example order.

    Four features per pass over the block (then two, then one for the rest): their updates are
    independent, so the processor overlaps them (one feature's chain of read-add-write to its bins
    stalled when consecutive examples share a bin), and each example's ``w`` is read once for
    four. Two a pass took 58 -> 45 us at 7400 x 20 (issue 17); four 106 -> 94 ms at 5 x 10^6 x 48
    (issue 31). Each bin still sums its examples in example order: the same bits."""
    cdef Py_ssize_t start, stop, j, i
    cdef const uint8_t* ca
    cdef double* ha
    cdef double x
    for start in range(0, m, 4096):  # _BLOCK_ROWS (a literal step: a C loop)
        stop = min(start + _BLOCK_ROWS, m)
        j = j0
        while j < j1 - 3:
            ca = codes + j * m
            ha = hist + j * width
            for i in range(start, stop):
                x = w[i]
                ha[ca[i]] += x
                ha[width + ca[m + i]] += x
                ha[2 * width + ca[2 * m + i]] += x
                ha[3 * width + ca[3 * m + i]] += x
            j += 4
        while j < j1 - 1:
            ca = codes + j * m
            ha = hist + j * width
            for i in range(start, stop):
                x = w[i]
                ha[ca[i]] += x
                ha[width + ca[m + i]] += x
            j += 2
        if j < j1:
            ca = codes + j * m
            ha = hist + j * width
            for i in range(start, stop):
                ha[ca[i]] += w[i]


cdef inline bint _one_offset(const uint64_t* offset_rows, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    """Whether the examples ``start .. stop-1`` all lie in one node (their offsets equal)."""
    cdef Py_ssize_t r
    cdef bint same = True
    for r in range(start + 1, stop):
        same &= offset_rows[r] == offset_rows[start]
    return same


cdef void _group_rows_hist(const uint8_t* codes, Py_ssize_t m, const uint64_t* rows, const double* w_rows,
                           const uint64_t* offset_rows, Py_ssize_t n, double* pair, Py_ssize_t hwidth,
                           Py_ssize_t j0, Py_ssize_t j1) noexcept nogil:
    """Per node, as :func:`_group_hist` (four features a pass, then two, then one), over the ``n``
    examples ``rows`` (increasing), with their ``w`` and their node's offset ``node * W`` gathered
    (:func:`_route_and_sum`), into ``pair[j]``: (sum, count) pairs of (node, bin), ``hwidth`` of
    them per feature, laid out flat.

    Four a pass read each example's row, ``w`` and offset once for four features: 105 -> 90 ms for
    half of 5 x 10^6 examples of 48 features (issue 31). A bin's sum and its count are one
    two-lane add (:c:func:`mb_add_pair`), one read-modify-write where two took 90 -> 80 ms, and the
    four features' pass over a block of examples in one node (as every block is where a level sums
    one node, the smaller child of a depth-2 tree's root) takes its offset once: 80 -> 72 ms. The
    sums still add in example order, the same bits."""
    cdef Py_ssize_t start, stop, j, r
    cdef const uint8_t* ca
    cdef double* ha
    cdef uint64_t i, off
    cdef double x
    cdef bint same
    for start in range(0, n, 4096):  # _BLOCK_ROWS
        stop = min(start + _BLOCK_ROWS, n)
        same = _one_offset(offset_rows, start, stop)
        j = j0
        while j < j1 - 3:
            ca = codes + j * m
            ha = pair + 2 * j * hwidth
            if same:  # (the same loop as below with the offset hoisted: the compiler keeps it in a register)
                off = offset_rows[start]
                for r in range(start, stop):
                    i = rows[r]
                    x = w_rows[r]
                    mb_add_pair(ha + 2 * (off + ca[i]), x)
                    mb_add_pair(ha + 2 * (off + ca[m + i] + hwidth), x)
                    mb_add_pair(ha + 2 * (off + ca[2 * m + i] + 2 * hwidth), x)
                    mb_add_pair(ha + 2 * (off + ca[3 * m + i] + 3 * hwidth), x)
            else:
                for r in range(start, stop):
                    i = rows[r]
                    x = w_rows[r]
                    off = offset_rows[r]
                    mb_add_pair(ha + 2 * (off + ca[i]), x)
                    mb_add_pair(ha + 2 * (off + ca[m + i] + hwidth), x)
                    mb_add_pair(ha + 2 * (off + ca[2 * m + i] + 2 * hwidth), x)
                    mb_add_pair(ha + 2 * (off + ca[3 * m + i] + 3 * hwidth), x)
            j += 4
        while j < j1 - 1:
            ca = codes + j * m
            ha = pair + 2 * j * hwidth
            for r in range(start, stop):
                i = rows[r]
                x = w_rows[r]
                off = offset_rows[r]
                mb_add_pair(ha + 2 * (off + ca[i]), x)
                mb_add_pair(ha + 2 * (off + ca[m + i] + hwidth), x)
            j += 2
        if j < j1:
            ca = codes + j * m
            ha = pair + 2 * j * hwidth
            for r in range(start, stop):
                mb_add_pair(ha + 2 * (offset_rows[r] + ca[rows[r]]), w_rows[r])


# One driver per kernel: serial (one group of all features, no OpenMP region) or ``threads``
# contiguous groups of features in a prange; a feature's histogram is summed by one thread in
# example order either way, so the result does not depend on the threads.
def _root_hist(codes, w, hist, int threads=1):
    """Add w into ``hist`` (p, W): the histograms of all examples (the root's, the stump's), on
    ``threads`` OpenMP threads (at most ``omp_get_max_threads()``)."""
    cdef Py_buffer v[3]
    cdef int nb = 0, g, n_groups = limit_threads(threads)
    cdef Py_ssize_t p, m, width
    cdef const uint8_t* c
    cdef const double* wp
    cdef double* h
    try:
        mb_acquire(&v[0], codes, MB_U8, 2, False, MB_C, b"codes"); nb += 1
        mb_acquire(&v[1], w, MB_F64, 1, False, MB_C, b"w"); nb += 1
        mb_acquire(&v[2], hist, MB_F64, 2, True, MB_C, b"hist"); nb += 1
        p, m, width = v[0].shape[0], v[0].shape[1], v[2].shape[1]
        _check(v[1].shape[0] == m and v[2].shape[0] == p, "codes (p, m), w (m,), hist (p, W)")
        c, wp, h = <const uint8_t*>v[0].buf, <const double*>v[1].buf, <double*>v[2].buf
        with nogil:
            if n_groups == 1:
                _group_hist(c, m, wp, h, width, 0, p)
            else:
                for g in prange(n_groups, num_threads=n_groups, schedule='static'):
                    _group_hist(c, m, wp, h, width, g * p // n_groups, (g + 1) * p // n_groups)
    finally:
        mb_release_n(v, nb)


def _rows_hist(codes, rows, w_rows, offset_rows, hist, count, int threads=1):
    """Add the examples ``rows`` (uint64) with their ``w_rows`` and node offsets ``offset_rows``
    (uint64) into the per-node histograms ``hist`` (float64) and counts ``count`` (int32), both (p,
    nodes * W) (:func:`_group_rows_hist`, on their (sum, count) pairs, which start from them), on
    ``threads`` OpenMP threads (as :func:`_root_hist`)."""
    cdef Py_buffer v[5]
    cdef int nb = 0, g, n_groups = limit_threads(threads)
    cdef Py_ssize_t p, m, n, hwidth
    cdef const uint8_t* c
    cdef const uint64_t* rp
    cdef const double* wp
    cdef const uint64_t* op
    cdef double* h
    pair = _empty(hist.shape + (2,), _F64)
    try:
        mb_acquire(&v[0], codes, MB_U8, 2, False, MB_C, b"codes"); nb += 1
        mb_acquire(&v[1], rows, MB_U64, 1, False, MB_C, b"rows"); nb += 1
        mb_acquire(&v[2], w_rows, MB_F64, 1, False, MB_C, b"w_rows"); nb += 1
        mb_acquire(&v[3], offset_rows, MB_U64, 1, False, MB_C, b"offset_rows"); nb += 1
        mb_acquire(&v[4], pair, MB_F64, 3, True, MB_C, b"pair"); nb += 1
        p, m, n, hwidth = v[0].shape[0], v[0].shape[1], v[1].shape[0], v[4].shape[1]
        _check(v[2].shape[0] == n and v[3].shape[0] == n and v[4].shape[0] == p and count.shape == hist.shape
               and count.dtype == np.int32 and hist.dtype == _F64,
               "rows, w_rows, offset_rows (n,); hist float64, count int32 (p, nodes * W)")
        pair[..., 0] = hist
        pair[..., 1] = count
        c, rp, wp, op = <const uint8_t*>v[0].buf, <const uint64_t*>v[1].buf, <const double*>v[2].buf, \
            <const uint64_t*>v[3].buf
        h = <double*>v[4].buf
        with nogil:
            if n_groups == 1:
                _group_rows_hist(c, m, rp, wp, op, n, h, hwidth, 0, p)
            else:
                for g in prange(n_groups, num_threads=n_groups, schedule='static'):
                    _group_rows_hist(c, m, rp, wp, op, n, h, hwidth, g * p // n_groups, (g + 1) * p // n_groups)
    finally:
        mb_release_n(v, nb)
    hist[...] = pair[..., 0]
    count[...] = pair[..., 1]  # (whole numbers below 2^31: exact)


def _sum(w):
    """sum_i w_i in example order, as the exact stump sums."""
    cdef Py_buffer v
    cdef double total = 0.0
    cdef const double* wp
    cdef Py_ssize_t i
    mb_acquire(&v, w, MB_F64, 1, False, MB_C, b"w")
    wp = <const double*>v.buf
    with nogil:
        for i in range(v.shape[0]):
            total += wp[i]
    mb_release(&v)
    return total


cdef void _descend_c(const uint8_t* codes, Py_ssize_t m, const int64_t* feature, const int64_t* cut,
                     const int64_t* left, const int64_t* right, const int64_t* missing_code, Py_ssize_t n_tree,
                     const int64_t* start, Py_ssize_t n_start, int64_t* leaf) noexcept nogil:
    """:func:`_descend` into ``leaf`` (m). The select passes: the first reads the start (from the
    root: node 0 for all) and writes ``leaf``, the others update it; each one's choice between
    the children in arithmetic, ``hi + ((code > cut) - 1) * (hi - lo)``, with the code loaded
    whatever the example's node: gcc vectorised ``hi if code > cut else lo`` under ``if node ==
    k`` into masked loads and 64-lane mask shuffles, 2.6 us a pass at m = 7400; this 1.1 (numba's
    1.2-1.4). A node whose ``missing_code`` is a code (>= 0) also sends that code left, in a pass
    of its own, so that the passes of the other nodes (all, without missing values) stay as
    they were."""
    cdef bint from_root = n_start == 0, started = False, any_missing_code = False
    cdef int64_t lowest = 0, n_passes = 0, k, kk, c, mc, lo, hi, li, d, t, code
    cdef Py_ssize_t i
    cdef const uint8_t* row
    if not from_root:
        lowest = start[0]
        for i in range(1, n_start):
            if start[i] < lowest:
                lowest = start[i]
    for k in range(lowest, n_tree):
        n_passes += feature[k] >= 0
        any_missing_code |= (feature[k] >= 0) & (missing_code[k] >= 0)
    if n_passes > _MAX_NODE_PASSES and any_missing_code:
        for i in range(m):
            kk = 0 if from_root else start[i]
            while feature[kk] >= 0:
                code = codes[feature[kk] * m + i]
                kk = left[kk] if (code <= cut[kk]) | (code == missing_code[kk]) else right[kk]
            leaf[i] = kk
        return
    if n_passes > _MAX_NODE_PASSES:
        for i in range(m):
            kk = 0 if from_root else start[i]
            while feature[kk] >= 0:
                kk = left[kk] if codes[feature[kk] * m + i] <= cut[kk] else right[kk]
            leaf[i] = kk
        return
    for k in range(lowest, n_tree):
        if feature[k] < 0:
            continue
        row = codes + feature[k] * m
        c = cut[k]
        mc = missing_code[k]
        lo = left[k]
        hi = right[k]
        d = hi - lo
        if mc >= 0:
            for i in range(m):
                li = leaf[i] if started else (0 if from_root else start[i])
                code = row[i]
                t = hi + (((code > c) & (code != mc)) - 1) * d
                leaf[i] = t if li == k else li
        elif started:
            for i in range(m):
                li = leaf[i]
                t = hi + ((<int64_t>row[i] > c) - 1) * d
                leaf[i] = t if li == k else li
        elif not from_root:
            for i in range(m):
                li = start[i]
                t = hi + ((<int64_t>row[i] > c) - 1) * d
                leaf[i] = t if li == k else li
        elif k == 0:  # from the root: every example at node 0
            for i in range(m):
                leaf[i] = hi + ((<int64_t>row[i] > c) - 1) * d
        else:
            for i in range(m):
                leaf[i] = 0
        started = True
    if not started:  # no internal node to pass: the start
        for i in range(m):
            leaf[i] = 0 if from_root else start[i]


def _descend(codes, feature, cut, left, right, missing_code, start):
    """The node each example reaches (``code <= cut`` or ``code == missing_code`` goes left),
    walking down from ``start[i]`` (an ancestor of it; empty: from the root). ``feature``, ``cut``,
    ``left``, ``right``, ``missing_code`` (-1: none): int64.

    Children have larger indices than their parent (:class:`_BinTree` appends them), so one sweep
    over the internal nodes at or below the lowest start, in index order, takes every example
    down: when node s is passed, every example that goes through s has reached it. Each pass is a
    select over all examples, which the compiler vectorises: 0.5-1 us at m = 7400, where the walk
    one example at a time took 19 us for a single step (issue 17). Beyond ``_MAX_NODE_PASSES``
    internal nodes (deep trees from the root) the per-example walk is cheaper."""
    cdef Py_buffer v[8]
    cdef int nb = 0
    cdef Py_ssize_t m, n_tree, n_start
    try:
        _tree_bufs(codes, feature, cut, left, right, missing_code, v); nb += 6
        mb_acquire(&v[6], start, MB_I64, 1, False, MB_C, b"start"); nb += 1
        m, n_tree, n_start = v[0].shape[1], v[1].shape[0], v[6].shape[0]
        _check(n_start == 0 or n_start == m, "start: empty or (m,)")
        leaf = _new(m, _I64, &v[7], MB_I64); nb += 1
        with nogil:
            _descend_c(<const uint8_t*>v[0].buf, m, <const int64_t*>v[1].buf, <const int64_t*>v[2].buf,
                       <const int64_t*>v[3].buf, <const int64_t*>v[4].buf, <const int64_t*>v[5].buf, n_tree,
                       <const int64_t*>v[6].buf, n_start, <int64_t*>v[7].buf)
    finally:
        mb_release_n(v, nb)
    return leaf


cdef int _tree_bufs(codes, feature, cut, left, right, missing_code, Py_buffer* v) except -1:
    """The buffers of codes and of a tree's (feature, cut, left, right, missing_code) into v[0..5]
    (all or none)."""
    cdef int nb = 0
    try:
        mb_acquire(&v[0], codes, MB_U8, 2, False, MB_C, b"codes"); nb += 1
        mb_acquire(&v[1], feature, MB_I64, 1, False, MB_C, b"feature"); nb += 1
        mb_acquire(&v[2], cut, MB_I64, 1, False, MB_C, b"cut"); nb += 1
        mb_acquire(&v[3], left, MB_I64, 1, False, MB_C, b"left"); nb += 1
        mb_acquire(&v[4], right, MB_I64, 1, False, MB_C, b"right"); nb += 1
        mb_acquire(&v[5], missing_code, MB_I64, 1, False, MB_C, b"missing_code"); nb += 1
        _check(v[2].shape[0] == v[1].shape[0] and v[3].shape[0] == v[1].shape[0]
               and v[4].shape[0] == v[1].shape[0] and v[5].shape[0] == v[1].shape[0],
               "feature, cut, left, right, missing_code of one length")
    except BaseException:
        mb_release_n(v, nb)
        raise
    return 0


cdef void _node_sums_c(const int64_t* leaf, int64_t first, Py_ssize_t n_nodes, const double* w, Py_ssize_t m,
                       double* total, double* mass, uint8_t* has_pos, uint8_t* has_neg) noexcept nogil:
    """:func:`_node_sums` into the four (n_nodes) outputs."""
    cdef Py_ssize_t g, i, j, limit
    cdef double t0, t1, t2, t3, a0, a1, a2, a3, x, ax, e0, e1, e2, e3
    cdef int64_t n
    cdef uint64_t pos, neg, bit, u
    cdef const double* e
    cdef double[4] ts
    cdef double[4] ms
    for g in range(0, n_nodes, 4):  # _NODES_PER_PASS (a literal step: a C loop)
        t0 = t1 = t2 = t3 = 0.0
        a0 = a1 = a2 = a3 = 0.0
        pos = 0  # bit j: some w_i > 0 in node g + j
        neg = 0
        limit = min(<Py_ssize_t>_NODES_PER_PASS, n_nodes - g)  # nodes of this pass
        for i in range(m):
            n = leaf[i] - first - g
            x = w[i]
            ax = fabs(x)
            # The factors (n == 0, ..., n == 3) as doubles, from a table row (the fifth: none of
            # the four): written as comparisons, gcc turned them into branches on n, which no
            # predictor guesses on a new tree (16 us a pass on a repeated input, 40 on new ones).
            u = <uint64_t>n
            e = MB_ONEHOT + 4 * (u if u < 4 else 4)
            e0 = e[0]
            e1 = e[1]
            e2 = e[2]
            e3 = e[3]
            t0 += x * e0
            t1 += x * e1
            t2 += x * e2
            t3 += x * e3
            a0 += ax * e0
            a1 += ax * e1
            a2 += ax * e2
            a3 += ax * e3
            bit = (<uint64_t>((n >= 0) & (n < limit))) << (n & 63)
            pos |= bit * (<uint64_t>(x > 0.0))
            neg |= bit * (<uint64_t>(x < 0.0))
        ts[0] = t0
        ts[1] = t1
        ts[2] = t2
        ts[3] = t3
        ms[0] = a0
        ms[1] = a1
        ms[2] = a2
        ms[3] = a3
        for j in range(limit):
            total[g + j] = ts[j]
            mass[g + j] = ms[j]
            has_pos[g + j] = (pos >> j) & 1
            has_neg[g + j] = (neg >> j) & 1


def _node_sums(leaf, int64_t first, Py_ssize_t n_nodes, w):
    """:func:`.trees.node_stats` of the ``n_nodes <= 2 * _NODES_PER_PASS`` nodes ``first,
    first + 1, ...``, example i in node ``leaf[i]`` (outside them: in none): per node ``S(N)``,
    ``sum |w_i|``, some ``w_i > 0``, some ``w_i < 0``, each sum in example order, so the same bits.

    Up to ``_NODES_PER_PASS`` nodes a pass, their sums in registers: every example adds ``w_i`` times
    1 or 0 to each (``x + (+-0.0)`` is ``x``: the sums start at +0 and a sum that cancels is +0,
    never -0). Summed in memory, ``total[n] += w_i`` waits on the store of the previous example's
    sum to the same node: 14 us for two nodes at m = 7400, in registers 9 us for up to four (issue
    17). The 0/1 factors are arithmetic, not selects: ``x if n == 0 else 0.0`` compiled to a branch
    on the example's node, which no predictor guesses on a new tree: 12 us with the inputs of the
    previous call, 54 us on new ones (four nodes, random), 19 us for the products either way."""
    cdef Py_buffer v[2]
    cdef int nb = 0
    try:
        mb_acquire(&v[0], leaf, MB_I64, 1, False, MB_C, b"leaf"); nb += 1
        mb_acquire(&v[1], w, MB_F64, 1, False, MB_C, b"w"); nb += 1
        _check(v[0].shape[0] == v[1].shape[0], "leaf, w (m,)")
        return _node_sums_arrays(<const int64_t*>v[0].buf, first, n_nodes, <const double*>v[1].buf, v[1].shape[0])
    finally:
        mb_release_n(v, nb)


cdef tuple _node_sums_arrays(const int64_t* leaf, int64_t first, Py_ssize_t n_nodes, const double* w,
                             Py_ssize_t m):
    """:func:`_node_sums` as new arrays (total, mass, has_pos, has_neg)."""
    cdef Py_buffer v[4]
    cdef int nb = 0
    try:
        total = _new_zeros(n_nodes, _F64, &v[0], MB_F64); nb += 1
        mass = _new_zeros(n_nodes, _F64, &v[1], MB_F64); nb += 1
        has_pos = _new_zeros(n_nodes, _BOOL, &v[2], MB_BOOL); nb += 1
        has_neg = _new_zeros(n_nodes, _BOOL, &v[3], MB_BOOL); nb += 1
        with nogil:
            _node_sums_c(leaf, first, n_nodes, w, m, <double*>v[0].buf, <double*>v[1].buf, <uint8_t*>v[2].buf,
                         <uint8_t*>v[3].buf)
    finally:
        mb_release_n(v, nb)
    return total, mass, has_pos, has_neg


def _route_and_sum(codes, w, feature, cut, left, right, active_pos, missing_code, Py_ssize_t n_nodes,
                   int64_t width, start, summed):
    """Each example's node (:func:`_descend` from ``start``), per node of the level
    :func:`_node_sums`, and the examples whose histograms are summed: those at positions ``k`` of
    the level with ``summed[k + 1]`` 1 (``summed``: a first 0, for examples in no node of the level,
    then one entry per position; empty: none), as ``(rows, offsets, w)``: the examples in increasing
    order (uint64), their node's offset ``k * width`` in the level's histograms (uint64) and their
    ``w``, compacted without a branch (:func:`_group_rows_hist` takes them).

    ``start``: the node of each example one level up in the same tree, from which its walk
    resumes; empty: from the root. The nodes of a level are consecutive indices in a tree grown by
    :class:`_BinTree` (children are appended), so an example's position in the level is its node
    minus the first one's, with no lookup; levels of more than ``2 * _NODES_PER_PASS`` nodes, or
    not consecutive, are summed in memory by :func:`.trees.node_stats`. The one-example-at-a-time
    walk with the sums in memory took 34 us a level at 7400 x 20, depth 2; now about 12 (issue 17)."""
    cdef Py_buffer v[15]
    cdef int nb = 0
    cdef Py_ssize_t m, n_tree, n_start, n_pos, k, i, n_rows
    cdef int64_t first = -1, n = 0, kp
    cdef bint consecutive = True
    cdef const int64_t* pos
    cdef const int64_t* lf
    cdef const int64_t* sm
    cdef const double* wp
    cdef int64_t* position
    cdef uint64_t* rows
    cdef uint64_t* offset_rows
    cdef double* w_rows
    try:
        _tree_bufs(codes, feature, cut, left, right, missing_code, v); nb += 6
        mb_acquire(&v[6], w, MB_F64, 1, False, MB_C, b"w"); nb += 1
        mb_acquire(&v[7], active_pos, MB_I64, 1, False, MB_C, b"active_pos"); nb += 1
        mb_acquire(&v[8], start, MB_I64, 1, False, MB_C, b"start"); nb += 1
        mb_acquire(&v[9], summed, MB_I64, 1, False, MB_C, b"summed"); nb += 1
        m, n_tree, n_start, n_pos = v[0].shape[1], v[1].shape[0], v[8].shape[0], v[7].shape[0]
        _check(v[6].shape[0] == m and (n_start == 0 or n_start == m) and n_pos >= n_tree,
               "w (m,), start empty or (m,), active_pos as long as feature")
        wp, pos, sm = <const double*>v[6].buf, <const int64_t*>v[7].buf, <const int64_t*>v[9].buf
        leaf = _new(m, _I64, &v[10], MB_I64); nb += 1
        lf = <const int64_t*>v[10].buf
        with nogil:
            _descend_c(<const uint8_t*>v[0].buf, m, <const int64_t*>v[1].buf, <const int64_t*>v[2].buf,
                       <const int64_t*>v[3].buf, <const int64_t*>v[4].buf, <const int64_t*>v[5].buf, n_tree,
                       <const int64_t*>v[8].buf, n_start, <int64_t*>v[10].buf)
            for k in range(n_pos):
                if pos[k] >= 0:
                    first = k - pos[k] if first < 0 else first
                    consecutive = consecutive & (pos[k] == k - first)
        if consecutive and n_nodes <= 2 * _NODES_PER_PASS:
            sums = _node_sums_arrays(lf, first, n_nodes, wp, m)
        else:  # deep levels, or nodes not consecutive: sums in memory
            position_arr = _new(m, _I64, &v[nb], MB_I64); nb += 1
            position = <int64_t*>v[nb - 1].buf
            with nogil:
                for i in range(m):
                    position[i] = pos[lf[i]]
            sums = tuple(node_stats(w, position_arr, n_nodes))
        n_rows = m if v[9].shape[0] else 0
        rows_arr = _new(n_rows, _U64, &v[nb], MB_U64); nb += 1
        rows = <uint64_t*>v[nb - 1].buf
        offset_arr = _new(n_rows, _U64, &v[nb], MB_U64); nb += 1
        offset_rows = <uint64_t*>v[nb - 1].buf
        w_rows_arr = _new(n_rows, _F64, &v[nb], MB_F64); nb += 1
        w_rows = <double*>v[nb - 1].buf
        with nogil:
            for i in range(n_rows):
                kp = pos[<uint64_t>lf[i]]  # unsigned indices: no test for a negative one
                rows[n] = i
                offset_rows[n] = <uint64_t>(kp * width)
                w_rows[n] = wp[i]
                n += sm[<uint64_t>(kp + 1)]  # kp = -1 (in no node of the level): the first entry, 0
    finally:
        mb_release_n(v, nb)
    return (leaf, rows_arr[:n], offset_arr[:n], w_rows_arr[:n]) + sums


def _sibling_plan(feature, cut, left, right, active_pos, missing_code, parent_pos, parent_count, int64_t width):
    """The subtraction's plan (:func:`level_stats`): per node ``k`` split one level up (at position
    ``parent_pos[k]`` there), the row ``(that position, position of its child with fewer examples,
    position of the other)`` (the left child on a tie), the counts from the parent's histogram of its
    own feature (``parent_count``: (p, nodes * W), int32 or int64; the bins ``<= cut[k]`` and the bin
    ``missing_code[k]`` go left); and ``summed`` for
    :func:`_route_and_sum`: a 0, then per position of this level 1 where its histograms are summed
    (the smaller children), 0 elsewhere."""
    cdef Py_buffer v[10]
    cdef int nb = 0
    cdef Py_ssize_t k, n_parent_pos, n_pos, cw
    cdef int64_t n_parents = 0, n_positions = 0
    cdef const int64_t* ft
    cdef const int64_t* pp
    cdef const int64_t* ap
    try:
        mb_acquire(&v[0], feature, MB_I64, 1, False, MB_C, b"feature"); nb += 1
        mb_acquire(&v[1], cut, MB_I64, 1, False, MB_C, b"cut"); nb += 1
        mb_acquire(&v[2], left, MB_I64, 1, False, MB_C, b"left"); nb += 1
        mb_acquire(&v[3], right, MB_I64, 1, False, MB_C, b"right"); nb += 1
        mb_acquire(&v[4], active_pos, MB_I64, 1, False, MB_C, b"active_pos"); nb += 1
        mb_acquire(&v[5], parent_pos, MB_I64, 1, False, MB_C, b"parent_pos"); nb += 1
        mb_acquire(&v[6], parent_count, MB_INT, 2, False, MB_C, b"parent_count"); nb += 1
        mb_acquire(&v[7], missing_code, MB_I64, 1, False, MB_C, b"missing_code"); nb += 1
        ft, ap, pp = <const int64_t*>v[0].buf, <const int64_t*>v[4].buf, <const int64_t*>v[5].buf
        n_parent_pos, n_pos, cw = v[5].shape[0], v[4].shape[0], v[6].shape[1]
        _check(n_parent_pos <= v[0].shape[0] and n_parent_pos <= v[1].shape[0] and n_parent_pos <= v[7].shape[0],
               "parent_pos no longer than feature")
        for k in range(n_parent_pos):
            n_parents += (pp[k] >= 0) & (ft[k] >= 0)
        for k in range(n_pos):
            n_positions += ap[k] >= 0
        plan = _empty((n_parents, 3), _I64)
        mb_acquire(&v[8], plan, MB_I64, 2, True, MB_C, b"plan"); nb += 1
        summed = _new_zeros(n_positions + 1, _I64, &v[9], MB_I64); nb += 1
        with nogil:
            if v[6].itemsize == 4:
                _plan_c(ft, <const int64_t*>v[1].buf, <const int64_t*>v[2].buf, <const int64_t*>v[3].buf,
                        <const int64_t*>v[7].buf, ap, pp, n_parent_pos, <const int32_t*>v[6].buf, cw, width,
                        <int64_t*>v[8].buf, <int64_t*>v[9].buf)
            else:
                _plan_c(ft, <const int64_t*>v[1].buf, <const int64_t*>v[2].buf, <const int64_t*>v[3].buf,
                        <const int64_t*>v[7].buf, ap, pp, n_parent_pos, <const int64_t*>v[6].buf, cw, width,
                        <int64_t*>v[8].buf, <int64_t*>v[9].buf)
    finally:
        mb_release_n(v, nb)
    return plan, summed


cdef void _plan_c(const int64_t* feature, const int64_t* cut, const int64_t* left, const int64_t* right,
                  const int64_t* missing_code, const int64_t* active_pos, const int64_t* parent_pos,
                  Py_ssize_t n_parent_pos,
                  const count_t* parent_count, Py_ssize_t cw, int64_t width, int64_t* plan,
                  int64_t* summed) noexcept nogil:
    cdef Py_ssize_t k, r = 0
    cdef int64_t base, n_left, n_all, small, large, tmp, b
    cdef const count_t* row
    for k in range(n_parent_pos):
        if parent_pos[k] < 0 or feature[k] < 0:
            continue
        base = parent_pos[k] * width
        row = parent_count + feature[k] * cw
        n_left = 0
        n_all = 0
        for b in range(width):
            n_all += row[base + b]
            n_left += row[base + b] * ((b <= cut[k]) | (b == missing_code[k]))
        small = active_pos[left[k]]
        large = active_pos[right[k]]
        if 2 * n_left > n_all:
            tmp = small
            small = large
            large = tmp
        plan[3 * r] = parent_pos[k]
        plan[3 * r + 1] = small
        plan[3 * r + 2] = large
        summed[small + 1] = 1
        r += 1


def _complete_siblings(hist, count, parent_hist, parent_count, plan, int64_t width):
    """The larger children's histograms and counts: the parent's minus the smaller sibling's
    (``hist``, ``parent_hist``: float64, ``count``, ``parent_count``: int32, each (p, nodes * W))."""
    cdef Py_buffer v[5]
    cdef int nb = 0
    cdef Py_ssize_t j, r, p, hw, pw, n_plan
    cdef uint64_t b, parent, small, large
    cdef double* h
    cdef int32_t* c
    cdef const double* ph
    cdef const int32_t* pc
    cdef const int64_t* pl
    try:
        mb_acquire(&v[0], hist, MB_F64, 2, True, MB_C, b"hist"); nb += 1
        mb_acquire(&v[1], count, MB_I32, 2, True, MB_C, b"count"); nb += 1
        mb_acquire(&v[2], parent_hist, MB_F64, 2, False, MB_C, b"parent_hist"); nb += 1
        mb_acquire(&v[3], parent_count, MB_I32, 2, False, MB_C, b"parent_count"); nb += 1
        mb_acquire(&v[4], plan, MB_I64, 2, False, MB_C, b"plan"); nb += 1
        p, hw, pw, n_plan = v[0].shape[0], v[0].shape[1], v[2].shape[1], v[4].shape[0]
        _check(v[1].shape[0] == p and v[1].shape[1] == hw and v[2].shape[0] == p and v[3].shape[0] == p
               and v[3].shape[1] == pw and (n_plan == 0 or v[4].shape[1] == 3), "hist, count; parent's; plan (n, 3)")
        pl = <const int64_t*>v[4].buf
        with nogil:
            for j in range(p):
                h = <double*>v[0].buf + j * hw
                c = <int32_t*>v[1].buf + j * hw
                ph = <const double*>v[2].buf + j * pw
                pc = <const int32_t*>v[3].buf + j * pw
                for r in range(n_plan):
                    parent = <uint64_t>(pl[3 * r] * width)
                    small = <uint64_t>(pl[3 * r + 1] * width)
                    large = <uint64_t>(pl[3 * r + 2] * width)
                    for b in range(<uint64_t>width):
                        h[large + b] = ph[parent + b] - h[small + b]
                        c[large + b] = pc[parent + b] - c[small + b]
    finally:
        mb_release_n(v, nb)


def _root_sums(w):
    """:func:`_route_and_sum`'s node sums for the root alone (no routing, no per-example output)."""
    cdef Py_buffer v
    cdef double total = 0.0, mass = 0.0, x
    cdef bint has_pos = False, has_neg = False
    cdef const double* wp
    cdef Py_ssize_t i
    mb_acquire(&v, w, MB_F64, 1, False, MB_C, b"w")
    wp = <const double*>v.buf
    with nogil:
        for i in range(v.shape[0]):
            x = wp[i]
            total += x
            mass += fabs(x)
            has_pos |= x > 0.0
            has_neg |= x < 0.0
    mb_release(&v)
    return _array([total]), _array([mass]), _array([has_pos]), _array([has_neg])


# ------------------------------------------------------------------ sweeps (on the summed histograms)


def _best_bin_stump(hist, counts, n_bins, double total, missing=None, double noise=0.0, means=None, upper=None,
                    lower=None):
    """(feature, last bin left a, first bin right c, sign, edge, missing_left); a = -1 for a
    constant. ``hist`` (p, W) float64, ``counts`` (p, W) int32 or int64, ``n_bins`` (p,) int64.
    ``missing`` (p,) uint8 (None: none): the features with a missing bin (code ``n_bins[j]``); the
    sweep then also chooses the side of the missing values (:func:`_stump_sweep_missing`; by edge
    where their sum passes the test of ``noise``, :mod:`.missing_side`, else the side of the bin
    side where the cut, at the raw threshold ``midpoint(upper[j, a], lower[j, c])``, sends the
    feature's mean ``means[j]``, (p,) float64 with ``upper``, ``lower`` (p, W); None: of more
    examples). Without, they
    go to the side with more examples (the left on a tie)."""
    cdef Py_buffer v[7]
    cdef const double* mb = NULL
    cdef const double* up = NULL
    cdef const double* lo = NULL
    cdef Py_ssize_t bw = 0
    cdef int nb = 0
    cdef _Stump best
    try:
        mb_acquire(&v[0], hist, MB_F64, 2, False, MB_C, b"hist"); nb += 1
        mb_acquire(&v[1], counts, MB_INT, 2, False, MB_C, b"counts"); nb += 1
        mb_acquire(&v[2], n_bins, MB_I64, 1, False, MB_C, b"n_bins"); nb += 1
        _check(v[1].shape[0] == v[0].shape[0] and v[1].shape[1] == v[0].shape[1] and v[2].shape[0] == v[0].shape[0],
               "hist, counts (p, W), n_bins (p,)")
        if missing is not None:
            mb_acquire(&v[3], missing, MB_U8, 1, False, MB_C, b"missing"); nb += 1
            _check(v[3].shape[0] == v[0].shape[0], "missing (p,)")
            if means is not None:
                mb_acquire(&v[4], means, MB_F64, 1, False, MB_C, b"means"); nb += 1
                mb_acquire(&v[5], upper, MB_F64, 2, False, MB_C, b"upper"); nb += 1
                mb_acquire(&v[6], lower, MB_F64, 2, False, MB_C, b"lower"); nb += 1
                _check(v[4].shape[0] == v[0].shape[0] and v[5].shape[0] == v[0].shape[0]
                       and v[6].shape[0] == v[0].shape[0] and v[5].shape[1] == v[6].shape[1],
                       "means (p,), upper, lower (p, W)")
                mb = <const double*>v[4].buf
                up = <const double*>v[5].buf
                lo = <const double*>v[6].buf
                bw = v[5].shape[1]
        with nogil:
            if nb >= 4 and v[1].itemsize == 4:
                best = _stump_sweep_missing(<const double*>v[0].buf, <const int32_t*>v[1].buf,
                                            <const int64_t*>v[2].buf, <const uint8_t*>v[3].buf, v[0].shape[0],
                                            v[0].shape[1], total, noise, mb, up, lo, bw)
            elif nb >= 4:
                best = _stump_sweep_missing(<const double*>v[0].buf, <const int64_t*>v[1].buf,
                                            <const int64_t*>v[2].buf, <const uint8_t*>v[3].buf, v[0].shape[0],
                                            v[0].shape[1], total, noise, mb, up, lo, bw)
            elif v[1].itemsize == 4:
                best = _stump_sweep(<const double*>v[0].buf, <const int32_t*>v[1].buf, <const int64_t*>v[2].buf,
                                    v[0].shape[0], v[0].shape[1], total)
                best.missing_left = best.a >= 0 and _more_left(<const int32_t*>v[1].buf + best.feature * v[1].shape[1],
                                                               best.a, (<const int64_t*>v[2].buf)[best.feature])
            else:
                best = _stump_sweep(<const double*>v[0].buf, <const int64_t*>v[1].buf, <const int64_t*>v[2].buf,
                                    v[0].shape[0], v[0].shape[1], total)
                best.missing_left = best.a >= 0 and _more_left(<const int64_t*>v[1].buf + best.feature * v[1].shape[1],
                                                               best.a, (<const int64_t*>v[2].buf)[best.feature])
    finally:
        mb_release_n(v, nb)
    return best.feature, best.a, best.c, best.sign, best.edge, best.missing_left


cdef struct _Stump:
    int64_t feature, a, c
    double sign, edge
    bint missing_left


cdef inline bint _more_left(const count_t* counts, int64_t a, int64_t n_bins) noexcept nogil:
    """Whether the value bins up to ``a`` hold at least as many examples as those after it (of
    ``n_bins``): the side of a split's missing values when none was seen in training there."""
    cdef int64_t b, left = 0, right = 0
    for b in range(n_bins):
        if b <= a:
            left += counts[b]
        else:
            right += counts[b]
    return left >= right


cdef _Stump _stump_sweep(const double* hist, const count_t* counts, const int64_t* n_bins, Py_ssize_t p,
                         Py_ssize_t width, double total) noexcept nogil:
    """The sweep of :func:`_best_bin_stump`. The best is kept as its ``v = T - 2 L`` alone (edge
    ``|v|``, sign that of v; the constants' v is T): with the edge and the sign as two doubles the
    compiler packed them into one vector register, shuffled every bin (9.3 us against numba's 8.1
    at 7400 x 20)."""
    cdef _Stump best
    cdef double left, v, best_v = total
    cdef int64_t prev, b, best_feature = 0, best_a = -1, best_c = -1
    cdef Py_ssize_t j
    for j in range(p):
        left = 0.0
        prev = -1
        for b in range(n_bins[j]):
            if counts[j * width + b] == 0:
                continue
            if prev >= 0:
                v = total - 2.0 * left
                if fabs(v) > fabs(best_v):
                    best_v = v
                    best_feature, best_a, best_c = j, prev, b
            left += hist[j * width + b]
            prev = b
    best.feature, best.a, best.c = best_feature, best_a, best_c
    best.edge = fabs(best_v)
    best.sign = 1.0 if best_v >= 0.0 else -1.0
    best.missing_left = False
    return best


cdef _Stump _stump_sweep_missing(const double* hist, const count_t* counts, const int64_t* n_bins,
                                 const uint8_t* missing, Py_ssize_t p, Py_ssize_t width, double total,
                                 double noise, const double* means, const double* upper, const double* lower,
                                 Py_ssize_t bw) noexcept nogil:
    """:func:`_stump_sweep` with missing bins (the exact stump's ``_best_stump_missing`` on bins): a
    cut between value bins has the edges ``T - 2 L`` (missing values right) and ``T - 2 (L + M)``
    (left; M the missing bin's sum, n_M its count) and takes the larger in absolute value where M
    passes the test of ``noise`` (``missing_by_edge``); on a tie (e.g. no missing bin) the side of
    more examples (the left on a tie), and where M fails the test the side where the cut's raw
    threshold sends the mean ``means[j]`` (NULL: of more examples); then, where M passes the test or
    the mean is past the last value bin, the cut of the value bins against the missing bin, missing right (c:
    the missing bin, whose ``lower`` +inf makes the raw threshold the largest value)."""
    cdef _Stump best
    cdef double left, er, el, e, miss, best_v = total
    cdef int64_t prev, b, nb, best_feature = 0, best_a = -1, best_c = -1, n_left, n_finite
    cdef bint to_left, by_edge, best_missing_left = False
    cdef Py_ssize_t j
    cdef const double* h
    cdef const count_t* cn
    for j in range(p):
        h = hist + j * width
        cn = counts + j * width
        nb = n_bins[j]
        miss = h[nb] if missing[j] else 0.0
        n_finite = 0
        for b in range(nb):
            n_finite += cn[b]
        by_edge = missing_by_edge(miss, cn[nb] if missing[j] else 0, total, n_finite + (cn[nb] if missing[j] else 0),
                                  noise)
        left = 0.0
        n_left = 0
        prev = -1
        for b in range(nb):
            if cn[b] == 0:
                continue
            if prev >= 0:
                er = total - 2.0 * left
                el = total - 2.0 * (left + miss)
                if by_edge:
                    to_left = fabs(el) > fabs(er) or (fabs(el) == fabs(er) and 2 * n_left >= n_finite)
                elif means != NULL and missing[j]:
                    to_left = means[j] <= midpoint(upper[j * bw + prev], lower[j * bw + b])
                else:
                    to_left = 2 * n_left >= n_finite
                e = el if to_left else er
                if fabs(e) > fabs(best_v):
                    best_v = e
                    best_feature, best_a, best_c, best_missing_left = j, prev, b, to_left
            left += h[b]
            n_left += cn[b]
            prev = b
        # the value bins against the missing bin: where M departs, or where the mean, past the last
        # value bin, puts it there (a cut of the mean-imputed data)
        if missing[j] and prev >= 0 and (by_edge or (means != NULL and means[j] > upper[j * bw + prev])):
            er = total - 2.0 * left
            if fabs(er) > fabs(best_v):
                best_v = er
                best_feature, best_a, best_c, best_missing_left = j, prev, nb, False
    best.feature, best.a, best.c = best_feature, best_a, best_c
    best.edge = fabs(best_v)
    best.sign = 1.0 if best_v >= 0.0 else -1.0
    best.missing_left = best_missing_left
    return best


def _best_bin_splits(hist, counts, n_bins, node_total, node_mass, upper, lower, missing=None, noise=None,
                     means=None):
    """Per node: best (feature, a, c, |L| + |R|), its raw threshold ``midpoint(upper[f, a],
    lower[f, c])`` (:func:`_raw_threshold`, here where a call of it per node from Python cost about
    1.5 us) and whether the missing values go left (uint8); feature -1 (threshold 0) where the node
    has no cut. ``hist`` (p, nodes, W) float64, ``counts`` the same shape, int32 or int64; ``upper``,
    ``lower``: (p, W) float64. ``missing``: as :func:`_best_bin_stump`'s (the sweep then is
    :func:`_splits_sweep_missing`, by edge where their sum passes the test of ``noise[n]``,
    (nodes,) float64, :mod:`.missing_side`; None: noise 0, else the side where the cut's raw
    threshold sends the mean ``means[j]``, (p,) float64); without, the missing values go to the side with more of the
    node's examples (the left on a tie)."""
    cdef Py_buffer v[16]
    cdef const double* mbin = NULL
    cdef int nb = 0
    cdef bint with_missing = missing is not None
    cdef Py_ssize_t p, n_nodes, width, bw, n
    cdef int64_t f
    cdef int64_t* bf
    cdef int64_t* ba
    cdef int64_t* bc
    cdef double* bs
    cdef double* th
    cdef uint8_t* ml
    cdef const double* up
    cdef const double* lo
    cdef const uint8_t* mp = NULL
    cdef const double* nz = NULL
    try:
        mb_acquire(&v[0], hist, MB_F64, 3, False, MB_C, b"hist"); nb += 1
        mb_acquire(&v[1], counts, MB_INT, 3, False, MB_C, b"counts"); nb += 1
        mb_acquire(&v[2], n_bins, MB_I64, 1, False, MB_C, b"n_bins"); nb += 1
        mb_acquire(&v[3], node_total, MB_F64, 1, False, MB_C, b"node_total"); nb += 1
        mb_acquire(&v[4], node_mass, MB_F64, 1, False, MB_C, b"node_mass"); nb += 1
        mb_acquire(&v[5], upper, MB_F64, 2, False, MB_C, b"upper"); nb += 1
        mb_acquire(&v[6], lower, MB_F64, 2, False, MB_C, b"lower"); nb += 1
        p, n_nodes, width, bw = v[0].shape[0], v[0].shape[1], v[0].shape[2], v[5].shape[1]
        _check(v[1].shape[0] == p and v[1].shape[1] == n_nodes and v[1].shape[2] == width and v[2].shape[0] == p
               and v[3].shape[0] == n_nodes and v[4].shape[0] == n_nodes and v[6].shape[1] == bw
               and v[5].shape[0] == p and v[6].shape[0] == p,
               "hist, counts (p, nodes, W), n_bins (p,), node sums (nodes,), upper, lower (p, W)")
        best_feature = _new(n_nodes, _I64, &v[7], MB_I64); nb += 1
        best_a = _new(n_nodes, _I64, &v[8], MB_I64); nb += 1
        best_c = _new(n_nodes, _I64, &v[9], MB_I64); nb += 1
        best_score = _new(n_nodes, _F64, &v[10], MB_F64); nb += 1
        threshold = _new(n_nodes, _F64, &v[11], MB_F64); nb += 1
        missing_left = _new(n_nodes, _U8, &v[12], MB_U8); nb += 1
        if with_missing:
            mb_acquire(&v[13], missing, MB_U8, 1, False, MB_C, b"missing"); nb += 1
            _check(v[13].shape[0] == p, "missing (p,)")
            mp = <const uint8_t*>v[13].buf
            if noise is not None:
                mb_acquire(&v[14], noise, MB_F64, 1, False, MB_C, b"noise"); nb += 1
                _check(v[14].shape[0] == n_nodes, "noise (nodes,)")
                nz = <const double*>v[14].buf
                if means is not None:
                    mb_acquire(&v[15], means, MB_F64, 1, False, MB_C, b"means"); nb += 1
                    _check(v[15].shape[0] == p, "means (p,)")
                    mbin = <const double*>v[15].buf
        bf, ba, bc = <int64_t*>v[7].buf, <int64_t*>v[8].buf, <int64_t*>v[9].buf
        bs, th, ml = <double*>v[10].buf, <double*>v[11].buf, <uint8_t*>v[12].buf
        up, lo = <const double*>v[5].buf, <const double*>v[6].buf
        with nogil:
            for n in range(n_nodes):  # (np.full, a Python function, cost 1 us a call)
                bf[n] = -1
                ba[n] = 0
                bc[n] = 0
                bs[n] = -1.0
                th[n] = 0.0
                ml[n] = 0
            if with_missing and v[1].itemsize == 4:
                _splits_sweep_missing(<const double*>v[0].buf, <const int32_t*>v[1].buf, <const int64_t*>v[2].buf,
                                      mp, <const double*>v[3].buf, <const double*>v[4].buf, nz, mbin, up, lo, bw, p,
                                      n_nodes, width, bf, ba, bc, bs, ml)
            elif with_missing:
                _splits_sweep_missing(<const double*>v[0].buf, <const int64_t*>v[1].buf, <const int64_t*>v[2].buf,
                                      mp, <const double*>v[3].buf, <const double*>v[4].buf, nz, mbin, up, lo, bw, p,
                                      n_nodes, width, bf, ba, bc, bs, ml)
            elif v[1].itemsize == 4:
                _splits_sweep(<const double*>v[0].buf, <const int32_t*>v[1].buf, <const int64_t*>v[2].buf,
                              <const double*>v[3].buf, <const double*>v[4].buf, p, n_nodes, width, bf, ba, bc, bs)
                for n in range(n_nodes):
                    if bf[n] >= 0:
                        ml[n] = _more_left(<const int32_t*>v[1].buf + (bf[n] * n_nodes + n) * width, ba[n],
                                           (<const int64_t*>v[2].buf)[bf[n]])
            else:
                _splits_sweep(<const double*>v[0].buf, <const int64_t*>v[1].buf, <const int64_t*>v[2].buf,
                              <const double*>v[3].buf, <const double*>v[4].buf, p, n_nodes, width, bf, ba, bc, bs)
                for n in range(n_nodes):
                    if bf[n] >= 0:
                        ml[n] = _more_left(<const int64_t*>v[1].buf + (bf[n] * n_nodes + n) * width, ba[n],
                                           (<const int64_t*>v[2].buf)[bf[n]])
            for n in range(n_nodes):
                f = bf[n]
                if f >= 0:
                    th[n] = midpoint(up[f * bw + ba[n]], lo[f * bw + bc[n]])
    finally:
        mb_release_n(v, nb)
    return best_feature, best_a, best_c, best_score, threshold, missing_left


cdef void _splits_sweep(const double* hist, const count_t* counts, const int64_t* n_bins,
                        const double* node_total, const double* node_mass, Py_ssize_t p, Py_ssize_t n_nodes,
                        Py_ssize_t width, int64_t* best_feature, int64_t* best_a, int64_t* best_c,
                        double* best_score) noexcept nogil:
    """The sweep of :func:`_best_bin_splits`. The best score is compared in memory, as numba's loop
    did: kept in a local, the compiler turns the update into selects, a chain of dependent
    instructions through every bin (16 -> 22 us at 7400 x 20, one node) where the branch, rarely
    taken, is predicted."""
    cdef Py_ssize_t n, j
    cdef int64_t b, prev
    cdef double left, score, total, tol
    cdef const double* h
    cdef const count_t* c
    for n in range(n_nodes):
        total = node_total[n]
        tol = MB_SPLIT_TOL * node_mass[n]  # (loaded once: the stores below might alias them)
        for j in range(p):
            h = hist + (j * n_nodes + n) * width
            c = counts + (j * n_nodes + n) * width
            left = 0.0
            prev = -1
            for b in range(n_bins[j]):
                if c[b] == 0:
                    continue
                if prev >= 0:
                    score = fabs(left) + fabs(total - left)
                    if score > best_score[n] + tol:
                        best_score[n] = score
                        best_feature[n] = j
                        best_a[n] = prev
                        best_c[n] = b
                left += h[b]
                prev = b


cdef void _splits_sweep_missing(const double* hist, const count_t* counts, const int64_t* n_bins,
                                const uint8_t* missing, const double* node_total, const double* node_mass,
                                const double* noise, const double* means, const double* upper, const double* lower,
                                Py_ssize_t bw, Py_ssize_t p, Py_ssize_t n_nodes,
                                Py_ssize_t width,
                                int64_t* best_feature, int64_t* best_a, int64_t* best_c, double* best_score,
                                uint8_t* best_missing_left) noexcept nogil:
    """:func:`_splits_sweep` with missing bins (the exact trees' ``_sweep_missing`` on bins): a cut
    between value bins scores the larger of ``|L| + |S - L|`` (missing values right) and
    ``|L + M| + |S - L - M|`` (left; M the node's missing bin, n_M its count), the missing values
    going to that side, and to the side of more of the node's examples (the left on a tie) when the
    two are within the tolerance (e.g. the node has no missing example: then M is taken as 0, as a
    subtracted bin of no example may hold a rounding residue); where M fails the test of
    ``noise[n]`` (``missing_by_edge``; NULL noise: 0) and the node has missing examples, to the side
    where the cut's raw threshold sends the mean ``means[j]`` (NULL: of more examples), the score
    then that side's; then, where M passes the test or the mean lies past the node's last value bin, the cut
    of the value bins against the missing bin, missing right."""
    cdef Py_ssize_t n, j
    cdef int64_t b, prev, nb, n_left, n_finite
    cdef double left, total, tol, miss, sr, sl, score, node_noise
    cdef bint to_left, by_edge, by_mean
    cdef const double* h
    cdef const count_t* c
    for n in range(n_nodes):
        total = node_total[n]
        tol = MB_SPLIT_TOL * node_mass[n]
        node_noise = noise[n] if noise != NULL else 0.0
        for j in range(p):
            h = hist + (j * n_nodes + n) * width
            c = counts + (j * n_nodes + n) * width
            nb = n_bins[j]
            miss = h[nb] if missing[j] and c[nb] > 0 else 0.0
            n_finite = 0
            for b in range(nb):
                n_finite += c[b]
            by_edge = missing_by_edge(miss, c[nb] if missing[j] else 0, total,
                                      n_finite + (c[nb] if missing[j] else 0), node_noise)
            by_mean = not by_edge and means != NULL and missing[j] and c[nb] > 0
            left = 0.0
            n_left = 0
            prev = -1
            for b in range(nb):
                if c[b] == 0:
                    continue
                if prev >= 0:
                    sr = fabs(left) + fabs(total - left)
                    sl = fabs(left + miss) + fabs(total - left - miss)
                    if by_edge:
                        to_left = (sl > sr + tol) or (not (sr > sl + tol) and 2 * n_left >= n_finite)
                        score = sl if sl > sr else sr
                    else:
                        if by_mean:
                            to_left = means[j] <= midpoint(upper[j * bw + prev], lower[j * bw + b])
                        else:
                            to_left = 2 * n_left >= n_finite
                        score = sl if to_left else sr
                    if score > best_score[n] + tol:
                        best_score[n] = score
                        best_feature[n] = j
                        best_a[n] = prev
                        best_c[n] = b
                        best_missing_left[n] = to_left
                left += h[b]
                n_left += c[b]
                prev = b
            if missing[j] and c[nb] > 0 and prev >= 0 and (by_edge or (by_mean and means[j] > upper[j * bw + prev])):
                sr = fabs(left) + fabs(total - left)
                if sr > best_score[n] + tol:
                    best_score[n] = sr
                    best_feature[n] = j
                    best_a[n] = prev
                    best_c[n] = nb
                    best_missing_left[n] = False


# ------------------------------------------------------------------ least squares (histogram_regression)


def _best_bin_ls_splits(hist_r, hist_s, counts, n_bins, node_r, node_s, node_q, upper, lower, missing=None):
    """Per node the best least-squares cut of :mod:`.histogram_regression` over the histograms of
    ``s r`` (``hist_r``) and of ``s`` (``hist_s``), (p, nodes, W) float64, ``counts`` the same shape
    (int32 or int64); ``node_r``, ``node_s``, ``node_q``: the node sums ``S``, ``W``, ``Q = sum s r^2``
    (nodes,); ``upper``, ``lower``, ``missing`` as :func:`_best_bin_splits`'s. Returns (feature, a,
    c, score, threshold, missing_left, left_r, left_s): the cut after bin ``a`` (``c`` the first bin
    right of it, the missing bin for the cut of the value bins against it), its score ``S_L^2 / W_L +
    S_R^2 / W_R`` and the left child's sums ``S_L``, ``W_L`` (missing values included where they go
    left); feature -1 (score -inf) where the node has no cut."""
    cdef Py_buffer v[19]
    cdef int nb = 0
    cdef Py_ssize_t p, n_nodes, width, bw
    cdef const uint8_t* mp = NULL
    try:
        mb_acquire(&v[0], hist_r, MB_F64, 3, False, MB_C, b"hist_r"); nb += 1
        mb_acquire(&v[1], hist_s, MB_F64, 3, False, MB_C, b"hist_s"); nb += 1
        mb_acquire(&v[2], counts, MB_INT, 3, False, MB_C, b"counts"); nb += 1
        mb_acquire(&v[3], n_bins, MB_I64, 1, False, MB_C, b"n_bins"); nb += 1
        mb_acquire(&v[4], node_r, MB_F64, 1, False, MB_C, b"node_r"); nb += 1
        mb_acquire(&v[5], node_s, MB_F64, 1, False, MB_C, b"node_s"); nb += 1
        mb_acquire(&v[6], node_q, MB_F64, 1, False, MB_C, b"node_q"); nb += 1
        mb_acquire(&v[7], upper, MB_F64, 2, False, MB_C, b"upper"); nb += 1
        mb_acquire(&v[8], lower, MB_F64, 2, False, MB_C, b"lower"); nb += 1
        p, n_nodes, width, bw = v[0].shape[0], v[0].shape[1], v[0].shape[2], v[7].shape[1]
        _check(v[1].shape[0] == p and v[1].shape[1] == n_nodes and v[1].shape[2] == width
               and v[2].shape[0] == p and v[2].shape[1] == n_nodes and v[2].shape[2] == width
               and v[3].shape[0] == p and v[4].shape[0] == n_nodes and v[5].shape[0] == n_nodes
               and v[6].shape[0] == n_nodes and v[7].shape[0] == p and v[8].shape[0] == p and v[8].shape[1] == bw,
               "hist_r, hist_s, counts (p, nodes, W), n_bins (p,), node sums (nodes,), upper, lower (p, W)")
        best_feature = _new(n_nodes, _I64, &v[9], MB_I64); nb += 1
        best_a = _new(n_nodes, _I64, &v[10], MB_I64); nb += 1
        best_c = _new(n_nodes, _I64, &v[11], MB_I64); nb += 1
        best_score = _new(n_nodes, _F64, &v[12], MB_F64); nb += 1
        threshold = _new(n_nodes, _F64, &v[13], MB_F64); nb += 1
        missing_left = _new(n_nodes, _U8, &v[14], MB_U8); nb += 1
        left_r = _new(n_nodes, _F64, &v[15], MB_F64); nb += 1
        left_s = _new(n_nodes, _F64, &v[16], MB_F64); nb += 1
        if missing is not None:
            mb_acquire(&v[17], missing, MB_U8, 1, False, MB_C, b"missing"); nb += 1
            _check(v[17].shape[0] == p, "missing (p,)")
            mp = <const uint8_t*>v[17].buf
        with nogil:
            if v[2].itemsize == 4:
                _ls_sweep(<const double*>v[0].buf, <const double*>v[1].buf, <const int32_t*>v[2].buf,
                          <const int64_t*>v[3].buf, mp, <const double*>v[4].buf, <const double*>v[5].buf,
                          <const double*>v[6].buf, <const double*>v[7].buf, <const double*>v[8].buf, p, n_nodes,
                          width, bw, <int64_t*>v[9].buf, <int64_t*>v[10].buf, <int64_t*>v[11].buf,
                          <double*>v[12].buf, <double*>v[13].buf, <uint8_t*>v[14].buf, <double*>v[15].buf,
                          <double*>v[16].buf)
            else:
                _ls_sweep(<const double*>v[0].buf, <const double*>v[1].buf, <const int64_t*>v[2].buf,
                          <const int64_t*>v[3].buf, mp, <const double*>v[4].buf, <const double*>v[5].buf,
                          <const double*>v[6].buf, <const double*>v[7].buf, <const double*>v[8].buf, p, n_nodes,
                          width, bw, <int64_t*>v[9].buf, <int64_t*>v[10].buf, <int64_t*>v[11].buf,
                          <double*>v[12].buf, <double*>v[13].buf, <uint8_t*>v[14].buf, <double*>v[15].buf,
                          <double*>v[16].buf)
    finally:
        mb_release_n(v, nb)
    return best_feature, best_a, best_c, best_score, threshold, missing_left, left_r, left_s


cdef inline double _ls_term(double r, double s) noexcept nogil:
    """``r^2 / s``, a side's share of the score; 0 for a side of no weight (a weight sum that
    cancelled to 0 by subtraction: the side holds no example of positive weight)."""
    return r * r / s if s > 0.0 else 0.0


cdef void _ls_sweep(const double* hist_r, const double* hist_s, const count_t* counts, const int64_t* n_bins,
                    const uint8_t* missing, const double* node_r, const double* node_s, const double* node_q,
                    const double* up, const double* lo, Py_ssize_t p, Py_ssize_t n_nodes, Py_ssize_t width,
                    Py_ssize_t bw, int64_t* best_feature, int64_t* best_a, int64_t* best_c, double* best_score,
                    double* threshold, uint8_t* best_missing_left, double* best_left_r,
                    double* best_left_s) noexcept nogil:
    """The sweep of :func:`_best_bin_ls_splits`, :func:`_splits_sweep_missing`'s with the
    least-squares score: a cut between value bins scores ``S_L^2 / W_L + S_R^2 / W_R`` with the
    node's missing bin (sums ``M_r``, ``M_s``) on the right and on the left, the missing values go
    to the side of the larger score, to the side of more of the node's examples (the left on a
    tie) when the two are within the tolerance ``SPLIT_TOL * Q`` (e.g. no missing example, whose
    bin is then taken as 0); then the cut of the value bins against the missing bin, missing
    right. A later candidate wins only with a score larger by more than the tolerance: ties go to
    the first feature, then the smallest cut."""
    cdef Py_ssize_t n, j
    cdef int64_t b, prev, nb, n_left, n_finite, f
    cdef double lr, ls, total_r, total_s, tol, miss_r, miss_s, sr, sl, score
    cdef bint to_left, has_miss
    cdef const double* hr
    cdef const double* hs
    cdef const count_t* c
    for n in range(n_nodes):
        total_r = node_r[n]
        total_s = node_s[n]
        tol = MB_SPLIT_TOL * node_q[n]
        best_feature[n] = -1
        best_a[n] = 0
        best_c[n] = 0
        best_score[n] = -INFINITY
        threshold[n] = 0.0
        best_missing_left[n] = 0
        best_left_r[n] = 0.0
        best_left_s[n] = 0.0
        for j in range(p):
            hr = hist_r + (j * n_nodes + n) * width
            hs = hist_s + (j * n_nodes + n) * width
            c = counts + (j * n_nodes + n) * width
            nb = n_bins[j]
            has_miss = missing != NULL and missing[j] and c[nb] > 0
            miss_r = hr[nb] if has_miss else 0.0
            miss_s = hs[nb] if has_miss else 0.0
            n_finite = 0
            for b in range(nb):
                n_finite += c[b]
            lr = 0.0
            ls = 0.0
            n_left = 0
            prev = -1
            for b in range(nb):
                if c[b] == 0:
                    continue
                if prev >= 0:
                    sr = _ls_term(lr, ls) + _ls_term(total_r - lr, total_s - ls)
                    sl = _ls_term(lr + miss_r, ls + miss_s) + _ls_term(total_r - lr - miss_r, total_s - ls - miss_s)
                    to_left = (sl > sr + tol) or (not (sr > sl + tol) and 2 * n_left >= n_finite)
                    score = sl if to_left else sr
                    if score > best_score[n] + tol:
                        best_score[n] = score
                        best_feature[n] = j
                        best_a[n] = prev
                        best_c[n] = b
                        best_missing_left[n] = to_left
                        best_left_r[n] = lr + miss_r if to_left else lr
                        best_left_s[n] = ls + miss_s if to_left else ls
                lr += hr[b]
                ls += hs[b]
                n_left += c[b]
                prev = b
            if has_miss and prev >= 0:
                sr = _ls_term(lr, ls) + _ls_term(total_r - lr, total_s - ls)
                if sr > best_score[n] + tol:
                    best_score[n] = sr
                    best_feature[n] = j
                    best_a[n] = prev
                    best_c[n] = nb
                    best_missing_left[n] = 0
                    best_left_r[n] = lr
                    best_left_s[n] = ls
        f = best_feature[n]
        if f >= 0:
            threshold[n] = midpoint(up[f * bw + best_a[n]], lo[f * bw + best_c[n]])
