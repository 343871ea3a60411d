# Augments chance.py when it is compiled: ChanceSource becomes an extension type, so the
# match loop (match.pxd) calls `sample` at C level. chance.py stays plain Python.

cimport cython

cdef class ChanceSource:
    cdef object _random
    cdef tuple _table
    @cython.locals(values=tuple, cumulative=list, r=long, index=Py_ssize_t)
    cpdef sample(self, outcomes)
