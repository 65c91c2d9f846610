# The stump kernels' shared inline helper, for the tree, histogram, binning and NZDD kernels to cimport.

cdef inline double midpoint(double a, double b) noexcept nogil:
    """A threshold t with a <= t < b, so that ``x > t`` separates a from b (see stumps.midpoint)."""
    cdef double t = 0.5 * a + 0.5 * b
    if not (a <= t and t < b):
        t = a
    return t
