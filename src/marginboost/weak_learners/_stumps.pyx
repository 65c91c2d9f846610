"""The compiled loops of :mod:`marginboost.weak_learners.stumps` (the method and its tie rules there).

``midpoint`` itself is the ``cdef inline`` function of ``_stumps.pxd`` (the tree, histogram, binning
and NZDD kernels cimport it); :func:`midpoint_py` is the same function for Python callers.
"""
from libc.math cimport fabs, INFINITY
from libc.stdint cimport int64_t, uint64_t


def midpoint_py(double a, double b):
    """A threshold t with a <= t < b, so that ``x > t`` separates a from b.

    The plain midpoint of two adjacent doubles can round up to ``b`` (and ``a + b`` can
    overflow), which would put ``b`` on the wrong side; fall back to ``a`` then.
    """
    return midpoint(a, b)


cdef inline void _sweep_pair(const double* va, const int64_t* ra, const double* vb, const int64_t* rb,
                             const double* w, Py_ssize_t m, Py_ssize_t j, double total, double* best_edge,
                             int64_t* best_feature, double* best_threshold, double* best_sign) noexcept nogil:
    """The sweeps of feature j (``va``, ``ra``) and then of feature j + 1 (``vb``, ``rb``), in one loop: two
    independent running sums, so that each add need not wait for the other's (a sweep is bound by the
    latency of its running sum's adds): 1.4 times as fast on ringnorm (7400 x 20).

    Both start from the best edge so far, g. A sweep keeps the first cut of the largest edge above its
    start (a later cut wins only with a strictly larger edge; edges are never NaN when chosen, nor -0).
    So j's is the lone sweep's; and j + 1's (from g) is the lone sweep's from j's best b_a: the same cut
    if its edge is above b_a, and none from b_a otherwise."""
    cdef double left_a = 0.0, left_b = 0.0, last_a = va[0], last_b = vb[0], xa, xb, ea, eb, aa, ab
    cdef double g = best_edge[0], ba = g, bb = g, ta = 0.0, tb = 0.0, sa = 0.0, sb = 0.0
    cdef bint fa = False, fb = False
    cdef Py_ssize_t k
    for k in range(m):
        xa = va[k]
        xb = vb[k]
        ea = total - 2.0 * left_a
        eb = total - 2.0 * left_b
        aa = fabs(ea)
        ab = fabs(eb)
        # Equal values cannot be separated by any threshold: no cut between them.
        if (xa != last_a) & (aa > ba):
            ba = aa
            ta = midpoint(last_a, xa)
            sa = 1.0 if ea >= 0.0 else -1.0
            fa = True
        if (xb != last_b) & (ab > bb):
            bb = ab
            tb = midpoint(last_b, xb)
            sb = 1.0 if eb >= 0.0 else -1.0
            fb = True
        left_a += w[<uint64_t>ra[k]]  # unsigned: no test for a negative index
        left_b += w[<uint64_t>rb[k]]
        last_a = xa
        last_b = xb
    if fa:
        best_edge[0] = ba
        best_feature[0] = j
        best_threshold[0] = ta
        best_sign[0] = sa
    if fb and bb > best_edge[0]:
        best_edge[0] = bb
        best_feature[0] = j + 1
        best_threshold[0] = tb
        best_sign[0] = sb


def _best_stump(const double[:, ::1] vals, const int64_t[:, ::1] order, const double[::1] w):
    """Return (feature, threshold, sign, edge) of the edge-maximising stump.

    ``vals[j]`` is feature j sorted ascending and ``order[j]`` the matching example indices (the
    C-contiguous (p, m) arrays of :func:`.stumps.presort`). The cut before sorted position k has
    left sum ``L`` over positions < k and edge ``|T - 2 L|``. The loop tests position k with the
    sum so far and adds ``w`` of k after: 475 -> 120 us on ringnorm (7400 x 20; issue 17), where
    adding first and testing the fresh sum took four times as long. Features two at a time
    (:func:`_sweep_pair`), with the result of one after the other.
    """
    cdef Py_ssize_t p = vals.shape[0], m = vals.shape[1]
    cdef Py_ssize_t i, j, k
    cdef double total = 0.0, best_edge, best_threshold = -INFINITY, best_sign, left, last, v, edge, a
    cdef int64_t best_feature = 0
    cdef const double* values
    cdef const int64_t* rank
    if w.shape[0] < m or order.shape[0] != p or order.shape[1] != m:
        raise ValueError("_best_stump: the shapes of vals, order and w disagree")
    with nogil:
        for i in range(m):
            total += w[i]
        best_edge = fabs(total)
        best_sign = 1.0 if total >= 0.0 else -1.0
        if m > 0:
            j = 0
            while j + 1 < p:
                _sweep_pair(&vals[j, 0], &order[j, 0], &vals[j + 1, 0], &order[j + 1, 0], &w[0], m, j, total,
                            &best_edge, &best_feature, &best_threshold, &best_sign)
                j += 2
            if j < p:
                values = &vals[j, 0]
                rank = &order[j, 0]
                left = 0.0
                last = values[0]  # no cut before the first value
                for k in range(m):
                    v = values[k]
                    edge = total - 2.0 * left
                    a = fabs(edge)
                    if (v != last) & (a > best_edge):
                        best_edge = a
                        best_feature = j
                        best_threshold = midpoint(last, v)
                        best_sign = 1.0 if edge >= 0.0 else -1.0
                    left += w[<uint64_t>rank[k]]
                    last = v
    return best_feature, best_threshold, best_sign, best_edge


def _best_stump_missing(const double[:, ::1] vals, const int64_t[:, ::1] order, const double[::1] w,
                        double noise=0.0, const double[::1] means=None):
    """:func:`_best_stump` on X with missing values (NaN, sorted last in each row of ``vals``):
    (feature, threshold, sign, edge, missing_left). One feature at a time; with ``M`` the sum of
    ``w`` over the ``n_M`` examples missing feature j, a cut between two finite values with left sum
    ``L`` has the edges ``T - 2 L`` (missing values right) and ``T - 2 (L + M)`` (left), and takes
    the one of larger absolute value where ``M`` passes the test of ``noise`` (``missing_by_edge``,
    :mod:`.missing_side`; noise 0: always, ties aside); on a tie the missing values go to the side
    of more finite examples (the left on a tie), and where ``M`` fails the test to the side of
    where the cut sends ``means[j]`` (None: of more finite examples). Then, where M passes the test or the mean
    exceeds every finite value, the cut of the finite values against the missing ones (threshold:
    the largest finite value), missing right. The tie rules between cuts are :func:`_best_stump`'s,
    the direction's as above."""
    cdef Py_ssize_t p = vals.shape[0], m = vals.shape[1]
    cdef Py_ssize_t i, j, k, fin
    cdef double total = 0.0, best_edge, best_threshold = -INFINITY, best_sign, left, last, v, miss, er, el, e, a
    cdef int64_t best_feature = 0
    cdef bint best_missing_left = False, to_left, by_edge
    cdef const double* values
    cdef const int64_t* rank
    cdef const double* med = NULL
    if w.shape[0] < m or order.shape[0] != p or order.shape[1] != m or (means is not None and means.shape[0] != p):
        raise ValueError("_best_stump_missing: the shapes of vals, order, w and means disagree")
    if means is not None:
        med = &means[0]
    with nogil:
        for i in range(m):
            total += w[i]
        best_edge = fabs(total)
        best_sign = 1.0 if total >= 0.0 else -1.0
        for j in range(p):
            values = &vals[j, 0]
            rank = &order[j, 0]
            fin = m
            while fin > 0 and values[fin - 1] != values[fin - 1]:
                fin -= 1
            if fin == 0:  # feature j missing everywhere: no cut
                continue
            miss = 0.0
            for k in range(fin, m):
                miss += w[<uint64_t>rank[k]]
            by_edge = missing_by_edge(miss, m - fin, total, m, noise)
            left = 0.0
            last = values[0]
            for k in range(fin):
                v = values[k]
                if v != last:
                    er = total - 2.0 * left
                    el = total - 2.0 * (left + miss)
                    if by_edge:
                        to_left = fabs(el) > fabs(er) or (fabs(el) == fabs(er) and 2 * k >= fin)
                    elif med != NULL and fin < m:
                        to_left = med[j] <= midpoint(last, v)
                    else:
                        to_left = 2 * k >= fin
                    e = el if to_left else er
                    a = fabs(e)
                    if a > best_edge:
                        best_edge = a
                        best_feature = j
                        best_threshold = midpoint(last, v)
                        best_sign = 1.0 if e >= 0.0 else -1.0
                        best_missing_left = to_left
                left += w[<uint64_t>rank[k]]
                last = v
            # the finite values against the missing ones: where M departs, or where the mean, past
            # the largest value, puts them there (a cut of the mean-imputed data)
            if fin < m and (by_edge or (med != NULL and med[j] > last)):
                er = total - 2.0 * left
                if fabs(er) > best_edge:
                    best_edge = fabs(er)
                    best_feature = j
                    best_threshold = last
                    best_sign = 1.0 if er >= 0.0 else -1.0
                    best_missing_left = False
    return best_feature, best_threshold, best_sign, best_edge, best_missing_left
