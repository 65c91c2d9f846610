# The exact trees' level kernels that other compiled modules (the regression trees' _regression,
# the histogram trees) call; C-contiguous buffers as pointers. See _trees.pyx and trees.py.
from libc.stdint cimport int64_t, uint64_t

# Per node n < n_nodes: total[n] = S(N), mass[n] = sum |w_i|, has_pos[n] / has_neg[n] (0 or 1):
# some w_i > 0 / some w_i < 0. Examples with node_of[i] < 0 are in no node. Writes every entry.
cdef void node_stats_c(const double* w, const int64_t* node_of, Py_ssize_t m, Py_ssize_t n_nodes,
                       double* total, double* mass, unsigned char* has_pos,
                       unsigned char* has_neg) noexcept nogil

# slot[i] (m entries): example i's node, n_nodes for none; start (n_nodes + 2 entries): see
# trees.node_segments.
cdef void node_segments_c(const int64_t* node_of, Py_ssize_t m, Py_ssize_t n_nodes, uint64_t* slot,
                          int64_t* start) noexcept nogil

# trees.split_by_node: out_values, out_a and out_b (NULL b: none, out_b unused) are (2 or 1,
# row_len) C arrays, row_len = start[n_nodes + 1]; position: n_nodes + 1 entries of work space.
cdef void split_by_node_c(const double* values, const int64_t* rank, Py_ssize_t m, const double* a,
                          const double* b, const uint64_t* slot, const int64_t* start,
                          Py_ssize_t n_nodes, double* out_values, double* out_a, double* out_b,
                          Py_ssize_t row_len, int64_t* position) noexcept nogil


cdef inline void node_entries_c(const int64_t* start, Py_ssize_t n_nodes, Py_ssize_t n, Py_ssize_t* row,
                              Py_ssize_t* lo, Py_ssize_t* hi) noexcept nogil:
    """Node n's examples in split_by_node_c's outputs: ``out[row, lo:hi]``."""
    cdef Py_ssize_t count = start[n + 1] - start[n] - 1
    if n_nodes == 2:
        row[0] = n
        lo[0] = 0
        hi[0] = count
    else:
        row[0] = 0
        lo[0] = start[n]
        hi[0] = start[n] + count
