# Shared by the binning and histogram kernels (cimported by _histogram.pyx): OpenMP's thread count.
# (Their array arguments are taken by marginboost/core/_buffers.pxd.)

# OpenMP's ``omp_get_max_threads()`` (its ICV nthreads-var: OMP_NUM_THREADS, omp_set_num_threads, so
# also threadpoolctl's threadpool_limits); 1 in a build without OpenMP, whose prange loops run serially.
cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static int mb_max_threads(void) { return omp_get_max_threads(); }
    #else
    static int mb_max_threads(void) { return 1; }
    #endif
    """
    int mb_max_threads() noexcept nogil


cdef inline int limit_threads(int threads) noexcept nogil:
    """``threads`` (from ``binning.n_threads``) capped at OpenMP's limit now (a threadpool_limits
    entered after the learner was prepared still holds), at least 1."""
    if threads <= 1:
        return 1
    return min(threads, mb_max_threads())
