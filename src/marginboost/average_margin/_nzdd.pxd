# Error-free double-double arithmetic of marginboost.average_margin.nzdd (Dekker 1971), inline,
# for the NZDD and stump-oracle kernels to cimport. The build's -ffp-contract=off (no FMA, no
# reassociation) keeps every operation rounded as written, which TwoSum and TwoProd rely on.

cdef inline (double, double) two_sum_c(double a, double b) noexcept nogil:
    cdef double s = a + b
    cdef double bb = s - a
    return s, (a - (s - bb)) + (b - bb)


cdef inline (double, double) dd_add_c(double ahi, double alo, double bhi, double blo) noexcept nogil:
    cdef double s, e
    s, e = two_sum_c(ahi, bhi)
    return two_sum_c(s, e + alo + blo)


cdef inline (double, double) two_prod_c(double a, double b) noexcept nogil:
    # Veltkamp's split by 2^27 + 1 (Dekker's splitter), then the exact product of the halves.
    cdef double p = a * b
    cdef double c = 134217729.0 * a
    cdef double ahi = c - (c - a)
    cdef double alo = a - ahi
    c = 134217729.0 * b
    cdef double bhi = c - (c - b)
    cdef double blo = b - bhi
    return p, ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo
