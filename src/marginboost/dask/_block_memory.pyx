"""Memory for the blocks of a cluster fit, kept for reuse: a numpy allocator (NEP 49's
``PyDataMem_Handler``) whose freed blocks of :data:`MIN_BYTES` or more wait in a bounded cache for
the next array of about their size.

Why: a round of a cluster fit makes about ten new vectors a block (margins along a line search,
their distributions, the selections' scratch), each freed a round later. glibc gives a block of
megabytes fresh pages from the kernel (``mmap``) and returns them when it is freed, so every new
vector faults its pages in again: 13-20 ms for a 10 MB block on the benchmark's machine, against
0.4 ms to fill one already mapped, which was a quarter of a round at 10^7 rows
(``benchmarks/results/dask_fit.md``). Setting glibc's thresholds keeps freed memory too, but for
the whole worker process, without bound (``docs/cluster.rst``); this cache holds only the arrays
made inside :class:`pooled` (the fit's tasks), at most :func:`limit` bytes a process.

The handler is numpy's for the current context only (a context variable: a worker thread's task),
set by :class:`pooled`; an array remembers the handler that made it and is freed through it
wherever it dies. Blocks are kept whole (best fit: capacity at most 5/4 of the request) and
handed out as they are: ``numpy.empty`` gets old contents, as from malloc; ``calloc``
(``numpy.zeros``) clears a reused block.
"""
from cpython.pycapsule cimport PyCapsule_New

cdef extern from *:
    """
    #define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
    #define NPY_TARGET_VERSION NPY_1_22_API_VERSION
    #include <numpy/arrayobject.h>
    #include <stdlib.h>
    #include <string.h>
    #include "pythread.h"

    /* Each block starts with its capacity (16 bytes: malloc's alignment is kept). */
    #define MB_HEADER 16
    #define MB_SLOTS 64

    typedef struct { size_t capacity; void *raw; } mb_slot;
    static mb_slot mb_cache[MB_SLOTS];
    static int mb_count = 0;
    static size_t mb_cached = 0, mb_limit = (size_t)512 << 20, mb_min = (size_t)1 << 20;
    static size_t mb_hits = 0, mb_misses = 0;
    static PyThread_type_lock mb_lock = NULL;

    /* The cached block of least capacity in [size, size + size/4], taken out; NULL if none. */
    static void *mb_take(size_t size) {
        void *raw = NULL;
        int best = -1;
        PyThread_acquire_lock(mb_lock, WAIT_LOCK);
        for (int k = 0; k < mb_count; k++) {
            size_t c = mb_cache[k].capacity;
            if (c >= size && c - size <= size / 4 && (best < 0 || c < mb_cache[best].capacity)) best = k;
        }
        if (best >= 0) {
            raw = mb_cache[best].raw;
            mb_cached -= mb_cache[best].capacity;
            mb_cache[best] = mb_cache[--mb_count];
            mb_hits++;
        } else {
            mb_misses++;
        }
        PyThread_release_lock(mb_lock);
        return raw;
    }

    static void *mb_fresh(size_t size, int zero) {
        size_t *raw;
        if (size > (size_t)-1 - MB_HEADER) return NULL;
        raw = zero ? calloc(1, size + MB_HEADER) : malloc(size + MB_HEADER);
        if (raw == NULL) return NULL;
        raw[0] = size;
        return (char *)raw + MB_HEADER;
    }

    static void *mb_malloc(void *ctx, size_t size) {
        void *raw = size >= mb_min ? mb_take(size) : NULL;
        return raw != NULL ? (char *)raw + MB_HEADER : mb_fresh(size, 0);
    }

    static void *mb_calloc(void *ctx, size_t nelem, size_t elsize) {
        size_t size;
        void *raw;
        if (elsize && nelem > (size_t)-1 / elsize) return NULL;
        size = nelem * elsize;
        raw = size >= mb_min ? mb_take(size) : NULL;
        if (raw == NULL) return mb_fresh(size, 1);
        memset((char *)raw + MB_HEADER, 0, size);
        return (char *)raw + MB_HEADER;
    }

    static void *mb_realloc(void *ctx, void *ptr, size_t new_size) {
        size_t *raw;
        if (ptr == NULL) return mb_malloc(ctx, new_size);
        if (new_size > (size_t)-1 - MB_HEADER) return NULL;
        raw = realloc((char *)ptr - MB_HEADER, new_size + MB_HEADER);
        if (raw == NULL) return NULL;
        raw[0] = new_size;
        return (char *)raw + MB_HEADER;
    }

    static void mb_free(void *ctx, void *ptr, size_t size) {
        void *raw;
        size_t capacity;
        if (ptr == NULL) return;
        raw = (char *)ptr - MB_HEADER;
        capacity = ((size_t *)raw)[0];
        if (capacity >= mb_min) {
            PyThread_acquire_lock(mb_lock, WAIT_LOCK);
            if (mb_count < MB_SLOTS && mb_cached + capacity <= mb_limit) {
                mb_cache[mb_count].capacity = capacity;
                mb_cache[mb_count].raw = raw;
                mb_count++;
                mb_cached += capacity;
                raw = NULL;
            }
            PyThread_release_lock(mb_lock);
        }
        free(raw);
    }

    /* Frees the cached blocks; returns the bytes freed. */
    static size_t mb_release(void) {
        size_t freed;
        PyThread_acquire_lock(mb_lock, WAIT_LOCK);
        freed = mb_cached;
        for (int k = 0; k < mb_count; k++) free(mb_cache[k].raw);
        mb_count = 0;
        mb_cached = 0;
        PyThread_release_lock(mb_lock);
        return freed;
    }

    static PyDataMem_Handler mb_handler = {
        "marginboost_block_memory", 1, {NULL, mb_malloc, mb_calloc, mb_realloc, mb_free}
    };

    static int mb_init(void) {
        if (_import_array() < 0) return -1;
        mb_lock = PyThread_allocate_lock();
        return mb_lock == NULL ? -1 : 0;
    }
    """
    ctypedef struct PyDataMem_Handler:
        pass
    PyDataMem_Handler mb_handler
    size_t mb_cached, mb_limit, mb_min, mb_hits, mb_misses
    int mb_count
    int MB_SLOTS
    int mb_init() except -1
    size_t mb_release()
    object PyDataMem_SetHandler(object handler)

mb_init()
cdef object _HANDLER = PyCapsule_New(&mb_handler, b"mem_handler", NULL)

MIN_BYTES = mb_min


cdef class pooled:
    """``with pooled():`` the arrays made in the block come from (and go back to) the cache of
    this module. Re-entrant; restores the handler that was current."""

    cdef list _saved

    def __cinit__(self):
        self._saved = []

    def __enter__(self):
        self._saved.append(PyDataMem_SetHandler(_HANDLER))
        return self

    def __exit__(self, *exc):
        PyDataMem_SetHandler(self._saved.pop())
        return False


def limit(nbytes=None):
    """The most bytes the cache keeps (default 512 MiB a process); with ``nbytes``, set it first
    (blocks already cached beyond it are kept until taken; :func:`release` frees them)."""
    global mb_limit
    if nbytes is not None:
        if int(nbytes) < 0:
            raise ValueError(f"limit: nbytes must be >= 0, got {nbytes}")
        mb_limit = int(nbytes)
    return mb_limit


def release():
    """Frees every cached block; returns the bytes freed."""
    return mb_release()


def stats():
    """``{'cached_bytes', 'cached_blocks', 'hits', 'misses'}``: the cache now, and how many
    requests of :data:`MIN_BYTES` or more it served (hits) or left to malloc (misses)."""
    return {"cached_bytes": mb_cached, "cached_blocks": mb_count, "hits": mb_hits, "misses": mb_misses}
