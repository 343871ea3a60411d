# Augments referee.py when it is compiled: these classes become extension types.

cdef class Verdict:
    cdef readonly object state
    cdef readonly object rejection

cdef class Referee:
    cdef public object game
    cdef readonly Py_ssize_t max_move_length
    cdef object _to_act
    cdef object _check_move
    cpdef Verdict judge(self, object state, object move, int player)
