# The compiled loops of marginboost.core.vector_math, for other kernels to cimport.
from libc.stdint cimport int64_t

cdef void exp_into_c(const double* x, double* out, int64_t* k, Py_ssize_t n) noexcept nogil
cdef double sum_xlogx_c(const double* x, Py_ssize_t n) noexcept nogil
cdef double log_minus_c(double x, double shift) noexcept nogil
