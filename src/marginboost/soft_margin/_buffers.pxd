# Array arguments of the soft-margin kernels' Python wrappers (_dual_simplex, _entropic_master),
# taken by the buffer protocol directly: a typed memoryview argument costs about 150 ns to acquire
# (a memoryview object is created and its format parsed), this about 40 ns, and the dual simplex's
# pivot kernels take 5 to 8 arrays thousands of times a fit, for a few microseconds of work each.
#
# Use: ``cdef Buffers bs; bs.n = 0``, then ``acquire(&bs, obj, ...)`` for each array inside
# ``try: ... finally: release(&bs)``. A wrong dtype or dimension is a ValueError, a read-only array
# where one is written or a strided one where C order is required numpy's BufferError.
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_FORMAT, PyBUF_STRIDES, PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE

cdef enum:
    MB_MAX_BUFFERS = 12
    MB_F64 = 0
    MB_F32 = 1
    MB_I64 = 2
    MB_BOOL = 3
    MB_FLOAT = 4  # float64 or float32: the item size tells which

cdef struct Buffers:
    int n
    Py_buffer view[MB_MAX_BUFFERS]


cdef inline void release(Buffers* bs) noexcept:
    while bs.n > 0:
        bs.n -= 1
        PyBuffer_Release(&bs.view[bs.n])


cdef inline bint _format_is(const char* f, Py_ssize_t itemsize, int kind) noexcept:
    """The buffer's struct format is one native item of ``kind`` (numpy's: 'd', 'f', 'l'/'q', '?')."""
    if f == NULL:
        return False
    if f[0] == b'@' or f[0] == b'=':
        f += 1
    if f[0] == 0 or f[1] != 0:
        return False
    if kind == MB_F64:
        return f[0] == b'd' and itemsize == 8
    if kind == MB_F32:
        return f[0] == b'f' and itemsize == 4
    if kind == MB_FLOAT:
        return (f[0] == b'd' and itemsize == 8) or (f[0] == b'f' and itemsize == 4)
    if kind == MB_I64:
        return (f[0] == b'l' or f[0] == b'q') and itemsize == 8
    return f[0] == b'?' and itemsize == 1


cdef inline void* acquire(Buffers* bs, object obj, int kind, int ndim, bint c_order, bint writable,
                          Py_ssize_t* shape, Py_ssize_t* strides) except? NULL:
    """The data of ``obj``, an ``ndim``-dimensional array of ``kind`` (C-contiguous if ``c_order``,
    writable if ``writable``); its shape into ``shape`` and, unless NULL, its strides in items into
    ``strides``. The item size is ``bs.view[bs.n - 1].itemsize`` after the call."""
    cdef Py_buffer* view = &bs.view[bs.n]
    cdef int flags = PyBUF_FORMAT | PyBUF_STRIDES
    cdef int k
    if c_order:
        flags |= PyBUF_C_CONTIGUOUS
    if writable:
        flags |= PyBUF_WRITABLE
    PyObject_GetBuffer(obj, view, flags)
    bs.n += 1
    if view.ndim != ndim or not _format_is(view.format, view.itemsize, kind):
        _mismatch(view, kind, ndim)
    for k in range(ndim):
        shape[k] = view.shape[k]
        if strides != NULL:
            if view.strides[k] % view.itemsize:
                raise ValueError("array strides must be multiples of its item size")
            strides[k] = view.strides[k] // view.itemsize
    return view.buf


cdef inline int _mismatch(Py_buffer* view, int kind, int ndim) except -1:
    names = ("float64", "float32", "int64", "bool", "float64 or float32")
    got = (<bytes>view.format).decode("ascii", "replace") if view.format != NULL else "?"
    raise ValueError(f"Buffer mismatch: expected a {ndim}-d {names[kind]} array, "
                     f"got a {view.ndim}-d array of format {got!r}")
