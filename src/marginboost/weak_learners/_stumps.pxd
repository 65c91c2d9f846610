# The stump kernels' shared inline helper, for the tree, histogram, binning and NZDD kernels to cimport.

cdef inline double midpoint(double a, double b) noexcept nogil:
    """A threshold t with a <= t < b, so that ``x > t`` separates a from b (see stumps.midpoint)."""
    cdef double t = 0.5 * a + 0.5 * b
    if not (a <= t and t < b):
        t = a
    return t


cdef inline bint missing_by_edge(double miss, double n_miss, double total, double n_node,
                                 double noise) noexcept nogil:
    """Whether the side of a split's missing examples is chosen by edge (.missing_side): their sum
    ``miss`` departs from the ``n_miss / n_node`` share of the node's sum ``total`` that examples
    drawn at random from the node would carry, by more than the test allows,
    ``(M - n_M S / n)^2 > n_M noise`` (``noise = z^2 Q / n``; 0: wherever it departs at all)."""
    cdef double departure = miss - (n_miss * total / n_node if n_node > 0.0 else 0.0)
    return departure * departure > n_miss * noise
