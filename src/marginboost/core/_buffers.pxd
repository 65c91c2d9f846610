# Array arguments of the compiled kernels (core, soft_margin, weak_learners), taken through the buffer
# protocol directly rather than as typed memoryviews: a memoryview argument costs 120-250 ns to set up
# (a memoryview object is created and its format parsed), a buffer 40-90 ns, and many of these
# kernels run in a microsecond or two and take 5 to 12 arrays.
#
# One view:   ``cdef Py_buffer b; mb_init(&b)``, then ``mb_acquire(&b, obj, MB_F64, 1, False, MB_C, b"obj")``
#             inside ``try: ... finally: mb_release(&b)`` (``b.buf``, ``b.shape``, ``b.strides`` in bytes).
# Counted:    ``cdef Py_buffer v[k]; cdef int nb = 0``, ``mb_acquire(&v[0], ...); nb += 1`` ...,
#             ``finally: mb_release_n(v, nb)``.
# Taken:      ``cdef Buffers bs; bs.n = 0``, then ``p = <double*>mb_take(&bs, obj, MB_F64, 1, MB_C, False,
#             &n, NULL, b"obj")`` (shape, and strides in items unless NULL, written out), ``finally:
#             mb_release_taken(&bs)``.
#
# A wrong dtype or number of dimensions is a ValueError naming the argument (the buffer is released
# before it is raised); a layout that does not hold (C- or Fortran-contiguous asked) or a read-only
# array asked to be written is numpy's own error. No Python object is made on the success path.
from cpython.buffer cimport (PyBUF_C_CONTIGUOUS, PyBUF_F_CONTIGUOUS, PyBUF_FORMAT, PyBUF_STRIDES, PyBUF_WRITABLE,
                             PyBuffer_Release, PyObject_GetBuffer)

cdef extern from *:
    """
    /* Item kinds (mb_format_ok) and layouts (mb_acquire) of marginboost/core/_buffers.pxd. */
    enum { MB_F64 = 0, MB_F32 = 1, MB_FLOAT = 2, MB_I64 = 3, MB_I32 = 4, MB_INT = 5, MB_U64 = 6, MB_U8 = 7,
           MB_BOOL = 8 };
    enum { MB_C = 0, MB_F = 1, MB_STRIDED = 2 };
    /* The buffer's struct format is one native (or little-endian '<' on such a machine) item of the
       kind: float64 'd', float32 'f', MB_FLOAT either, int64 'q'/'l'/'n', int32 'i'/'l', MB_INT a
       signed int of 4 or 8 bytes, uint64 'Q'/'L'/'N', uint8 'B' (also no format), bool '?'. */
    static inline int mb_format_ok(const char* f, Py_ssize_t itemsize, int kind) {
        char c;
        if (f == NULL) return kind == MB_U8 && itemsize == 1;
        if (*f == '@' || *f == '=') f++;
    #if PY_LITTLE_ENDIAN
        else if (*f == '<') f++;
    #else
        else if (*f == '>' || *f == '!') f++;
    #endif
        c = f[0];
        if (c == 0 || f[1] != 0) return 0;
        switch (kind) {
            case MB_F64: return c == 'd' && itemsize == 8;
            case MB_F32: return c == 'f' && itemsize == 4;
            case MB_FLOAT: return (c == 'd' && itemsize == 8) || (c == 'f' && itemsize == 4);
            case MB_I64: return (c == 'q' || c == 'l' || c == 'n') && itemsize == 8;
            case MB_I32: return (c == 'i' || c == 'l') && itemsize == 4;
            case MB_INT: return (c == 'i' || c == 'l' || c == 'q' || c == 'n') && (itemsize == 4 || itemsize == 8);
            case MB_U64: return (c == 'Q' || c == 'L' || c == 'N') && itemsize == 8;
            case MB_U8: return c == 'B' && itemsize == 1;
            case MB_BOOL: return c == '?' && itemsize == 1;
            default: return 0;
        }
    }
    /* A view marked as holding nothing (obj NULL), and its release only if it holds a buffer (then
       twice is harmless: PyBuffer_Release sets obj to NULL). */
    static inline void mb_init(Py_buffer* v) { v->obj = NULL; v->buf = NULL; }
    static inline void mb_release(Py_buffer* v) { if (v->obj != NULL) PyBuffer_Release(v); }
    """
    enum:
        MB_F64
        MB_F32
        MB_FLOAT
        MB_I64
        MB_I32
        MB_INT
        MB_U64
        MB_U8
        MB_BOOL
    enum:
        MB_C
        MB_F
        MB_STRIDED
    int mb_format_ok(const char* f, Py_ssize_t itemsize, int kind) noexcept nogil
    void mb_init(Py_buffer* v) noexcept nogil
    void mb_release(Py_buffer* v) noexcept

cdef enum:
    MB_MAX_BUFFERS = 12  # of a Buffers


cdef inline void mb_release_n(Py_buffer* views, int n) noexcept:
    """Release ``views[:n]``, each holding a buffer."""
    cdef int k
    for k in range(n):
        PyBuffer_Release(&views[k])


cdef inline int mb_mismatch(Py_buffer* view, int kind, int ndim, const char* name) except -1:
    """Release ``view`` and raise the ValueError of a wrong dtype or number of dimensions."""
    got = (view.format or b"B").decode("ascii", "replace")
    got_ndim = view.ndim
    PyBuffer_Release(view)
    names = ("float64", "float32", "float64 or float32", "int64", "int32", "int32 or int64", "uint64", "uint8",
             "bool")
    arg = name.decode("ascii", "replace") if name != NULL else "an array"
    raise ValueError(f"Buffer dtype mismatch for {arg}: expected {ndim}-d {names[kind]}, "
                     f"got {got_ndim}-d format {got!r}")


cdef inline int mb_acquire(Py_buffer* view, object obj, int kind, int ndim, bint writable, int layout,
                           const char* name) except -1:
    """``view`` := the buffer of ``obj``, an array of ``ndim`` dimensions of items of ``kind`` (MB_F64 ...),
    C-contiguous (``layout`` MB_C), Fortran-contiguous (MB_F) or any strides (MB_STRIDED), writable if
    ``writable``; ValueError naming ``name`` otherwise (nothing held then)."""
    cdef int flags = PyBUF_FORMAT
    if layout == MB_C:
        flags |= PyBUF_C_CONTIGUOUS
    elif layout == MB_F:
        flags |= PyBUF_F_CONTIGUOUS
    else:
        flags |= PyBUF_STRIDES
    if writable:
        flags |= PyBUF_WRITABLE
    PyObject_GetBuffer(obj, view, flags)
    if view.ndim != ndim or not mb_format_ok(view.format, view.itemsize, kind):
        mb_mismatch(view, kind, ndim, name)
    return 0


cdef struct Buffers:
    int n
    Py_buffer view[MB_MAX_BUFFERS]


cdef inline void* mb_take(Buffers* bs, object obj, int kind, int ndim, int layout, bint writable,
                          Py_ssize_t* shape, Py_ssize_t* strides, const char* name) except? NULL:
    """:func:`mb_acquire` into the next view of ``bs``; the data pointer returned, the shape written into
    ``shape`` and, unless NULL, the strides in items into ``strides``. The item size is
    ``bs.view[bs.n - 1].itemsize`` after the call."""
    cdef Py_buffer* view = &bs.view[bs.n]
    cdef int k
    mb_acquire(view, obj, kind, ndim, writable, layout, name)
    bs.n += 1
    for k in range(ndim):
        shape[k] = view.shape[k]
        if strides != NULL:
            if view.strides[k] % view.itemsize:
                raise ValueError("array strides must be multiples of its item size")
            strides[k] = view.strides[k] // view.itemsize
    return view.buf


cdef inline void mb_release_taken(Buffers* bs) noexcept:
    """Release every view :func:`mb_take` took into ``bs``."""
    mb_release_n(bs.view, bs.n)
    bs.n = 0
