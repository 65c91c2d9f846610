# Shared by the binning and histogram kernels (cimported by _histogram.pyx): OpenMP's thread count
# and a cheap checked view of a C-contiguous numpy array.
#
# Why not typed memoryviews everywhere: acquiring one costs about 120 ns an argument (a memoryview
# object, its format parsed), 0.8 us for the six arrays of a 2 us kernel (_descend at 7400 x 20);
# the buffer protocol alone costs about 40 ns, as numba's unboxing did. So the per-call kernels of
# a tree level take their arrays as ``Py_buffer``s (:func:`get_buf`: kind, item size, dimensions
# and C order checked, ValueError otherwise) and release them in a ``finally``.
from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer

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


cdef inline char format_kind(const char* fmt) noexcept:
    """'f' (float), 'i' (signed int), 'u' (unsigned int), 'b' (bool) or 0 (anything else) of a
    one-item buffer format in native byte order."""
    if fmt == NULL:
        return b'u'  # no format given: unsigned bytes
    if fmt[0] == b'@' or fmt[0] == b'=' or fmt[0] == b'<':
        fmt += 1
    if fmt[0] == 0 or fmt[1] != 0:
        return 0
    if fmt[0] == b'd' or fmt[0] == b'f' or fmt[0] == b'e':
        return b'f'
    if fmt[0] == b'b' or fmt[0] == b'h' or fmt[0] == b'i' or fmt[0] == b'l' or fmt[0] == b'q' or fmt[0] == b'n':
        return b'i'
    if fmt[0] == b'B' or fmt[0] == b'H' or fmt[0] == b'I' or fmt[0] == b'L' or fmt[0] == b'Q' or fmt[0] == b'N':
        return b'u'
    if fmt[0] == b'?':
        return b'b'
    return 0


cdef inline int get_buf(object obj, Py_buffer* view, char kind, Py_ssize_t itemsize, int ndim,
                        bint writable) except -1:
    """Acquire ``obj``'s C-contiguous buffer into ``view`` (then release it with PyBuffer_Release):
    ValueError unless it has ``ndim`` dimensions and items of ``kind`` (see :func:`format_kind`) and
    ``itemsize`` bytes (-1: 4 or 8); numpy's own error when it is not C-contiguous (or not writable)."""
    PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (PyBUF_WRITABLE if writable else 0))
    if view.ndim != ndim or format_kind(view.format) != kind or not (
            view.itemsize == itemsize or (itemsize == -1 and (view.itemsize == 4 or view.itemsize == 8))):
        got = (view.format or b"B").decode("ascii", "replace")
        got_ndim = view.ndim
        PyBuffer_Release(view)
        name = {"f": "float", "i": "int", "u": "uint", "b": "bool"}[chr(kind)]
        bits = str(itemsize * 8) if itemsize > 0 else "32 or 64"
        raise ValueError("Buffer dtype mismatch: expected a C-contiguous " + str(ndim) + "-d array of " + name + bits
                         + ", got a " + str(got_ndim) + "-d buffer of format " + repr(got))
    return 0


cdef inline void release_bufs(Py_buffer* views, int n) noexcept:
    cdef int k
    for k in range(n):
        PyBuffer_Release(&views[k])
