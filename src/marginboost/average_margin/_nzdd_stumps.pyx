"""The compiled loop of :mod:`marginboost.average_margin.nzdd_stumps`: the chains of the stump NZDD
(layout, path order and hashing are described there)."""
from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint8_t, uint64_t

import numpy as np

from marginboost.weak_learners._stumps cimport midpoint


def _stump_chains(const double[:, ::1] vals not None, const int64_t[:, ::1] order not None,
                  const uint8_t[::1] pos not None, const int64_t[::1] n_blocks not None,
                  const uint64_t[::1] key1 not None, const uint64_t[::1] key2 not None):
    """All edges of the stump NZDD and, per path, its cross edge, stump and 128-bit hash:
    ``(n_nodes, src, dst, label_ptr, labels, cross, feature, threshold, sign, h1, h2)``.
    ``vals``, ``order``: the presorted features (p, m); ``pos``: ``y > 0``; ``n_blocks[j]``: the
    distinct values of feature ``j``; ``key1``, ``key2``: the examples' Zobrist keys."""
    cdef Py_ssize_t p = vals.shape[0], m = vals.shape[1], j, idx, i
    if order.shape[0] != p or order.shape[1] != m or pos.shape[0] != m or n_blocks.shape[0] != p \
            or key1.shape[0] != m or key2.shape[0] != m:
        raise ValueError("_stump_chains: vals and order (p, m), pos, key1, key2 (m,), n_blocks (p,)")
    cdef int64_t total_blocks = 0
    for j in range(p):
        total_blocks += n_blocks[j]
    cdef int64_t n_chains = 2 * p
    cdef int64_t n_nodes = 2 + 2 * 2 * total_blocks
    cdef int64_t n_edges = 2 * (3 * total_blocks + p)
    cdef int64_t n_paths = 2 * (total_blocks + p)
    cdef int64_t leaf = n_nodes - 1
    src_arr = np.empty(n_edges, np.int64)
    dst_arr = np.empty(n_edges, np.int64)
    label_ptr_arr = np.empty(n_edges + 1, np.int64)
    labels_arr = np.empty(n_chains * m + 1, np.int64)  # + 1: the label loop's spare slot (dropped below)
    cross_arr = np.empty(n_paths, np.int64)
    feature_arr = np.empty(n_paths, np.int64)
    threshold_arr = np.empty(n_paths)
    sign_arr = np.empty(n_paths)
    h1_arr = np.empty(n_paths, np.uint64)
    h2_arr = np.empty(n_paths, np.uint64)
    starts_arr = np.empty(m + 1, np.int64)
    # Raw pointers in the loop: a store through an int64 pointer may alias a memoryview's
    # Py_ssize_t strides, which the compiler would then reload after every store.
    cdef int64_t[::1] src_v = src_arr, dst_v = dst_arr, label_ptr_v = label_ptr_arr, labels_v = labels_arr
    cdef int64_t[::1] cross_v = cross_arr, feature_v = feature_arr, starts_v = starts_arr
    cdef double[::1] threshold_v = threshold_arr, sign_v = sign_arr
    cdef uint64_t[::1] h1_v = h1_arr, h2_v = h2_arr
    cdef int64_t* src = &src_v[0]
    cdef int64_t* dst = &dst_v[0]
    cdef int64_t* label_ptr = &label_ptr_v[0]
    cdef int64_t* labels = &labels_v[0]
    cdef int64_t* cross = &cross_v[0]
    cdef int64_t* feature = &feature_v[0]
    cdef int64_t* starts = &starts_v[0]
    cdef double* threshold = &threshold_v[0]
    cdef double* sign = &sign_v[0]
    cdef uint64_t* h1 = &h1_v[0]
    cdef uint64_t* h2 = &h2_v[0]
    cdef const uint8_t* pos_p = &pos[0] if m else NULL
    cdef const uint64_t* k1 = &key1[0] if m else NULL
    cdef const uint64_t* k2 = &key2[0] if m else NULL
    cdef const double* vj
    cdef const int64_t* oj
    cdef int64_t node = 1, e = 0, lab = 0, path = 0, k = 0, a0, c0, t, o, side, oi
    cdef uint64_t g1, g2, mask
    cdef bint left_pos, bad = False
    with nogil:
        for j in range(p):
            vj = &vals[j, 0]
            oj = &order[j, 0]
            k = 0
            for idx in range(m):
                if idx == 0 or vj[idx] != vj[idx - 1]:
                    starts[k] = idx
                    k += 1
            starts[k] = m
            if k != n_blocks[j]:  # the arrays are sized by n_blocks
                bad = True
                break
            for o in range(2):
                left_pos = o == 1  # s = +1: negatives left of theta; s = -1: positives
                a0 = node - 1  # a_t = a0 + t for t >= 1; a_0 is the root
                c0 = node + k  # c_t = c0 + t for t < k; c_k is the leaf
                node += 2 * k
                for side in range(2):  # prefix chain (left labels), then suffix chain (right labels)
                    for t in range(1, k + 1):
                        if side == 0:
                            src[e] = 0 if t == 1 else a0 + t - 1
                            dst[e] = a0 + t
                        else:
                            src[e] = c0 + t - 1
                            dst[e] = leaf if t == k else c0 + t
                        label_ptr[e] = lab
                        for idx in range(starts[t - 1], starts[t]):  # no branch: labels has a spare slot
                            oi = oj[idx]
                            labels[lab] = oi
                            lab += ((pos_p[oi] != 0) == left_pos) == (side == 0)
                        e += 1
                g1 = 0
                g2 = 0
                for i in range(m):  # cut 0: everything right of theta (a mask, no branch: it vectorises)
                    mask = 0 - <uint64_t>((pos_p[i] != 0) != left_pos)
                    g1 ^= k1[i] & mask
                    g2 ^= k2[i] & mask
                for t in range(k + 1):
                    if t > 0:  # moving block t to the left flips the side of all its examples
                        for idx in range(starts[t - 1], starts[t]):
                            oi = oj[idx]
                            g1 ^= k1[oi]
                            g2 ^= k2[oi]
                    src[e] = 0 if t == 0 else a0 + t
                    dst[e] = leaf if t == k else c0 + t
                    label_ptr[e] = lab
                    cross[path] = e
                    e += 1
                    h1[path] = g1
                    h2[path] = g2
                    if t == 0 or t == k:  # constant: +1 where everything is on the +1 side
                        feature[path] = 0
                        threshold[path] = -INFINITY
                        sign[path] = 1.0 if (t == 0) == (o == 0) else -1.0
                    else:
                        feature[path] = j
                        threshold[path] = midpoint(vj[starts[t] - 1], vj[starts[t]])
                        sign[path] = 1.0 if o == 0 else -1.0
                    path += 1
        label_ptr[e] = lab
    if bad:
        raise ValueError(f"_stump_chains: n_blocks[{j}] = {n_blocks[j]} is not the number of distinct values "
                         f"in vals[{j}] ({k})")
    return (int(n_nodes), src_arr, dst_arr, label_ptr_arr, labels_arr[:n_chains * m], cross_arr, feature_arr,
            threshold_arr, sign_arr, h1_arr, h2_arr)
