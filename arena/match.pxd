# Augments match.py when it is compiled: the classes become extension types with C
# fields and C-level methods, which makes the per-move loop much cheaper. match.py
# stays plain Python and runs as such if it is not compiled.

cimport cython

from arena.referee cimport Referee, Verdict

cdef class ChanceSource:
    cdef object _random
    cdef tuple _table
    @cython.locals(values=tuple, cumulative=list, r=long, index=Py_ssize_t)
    cpdef sample(self, outcomes)

cdef class Match:
    cdef public object game
    cdef public Referee referee
    cdef public tuple players
    cdef public object seed
    cdef public object id
    cdef public object state
    cdef public object outcome
    cdef public list notes
    cdef list _history
    cdef ChanceSource _chance
    cdef object _pending_chance
    cdef int _seat
    cdef object _to_act
    cdef object _apply_chance
    cdef object _chance_outcomes
    cpdef _roll(self)
    cpdef int to_act(self)
    cpdef Verdict submit(self, int seat, object move)
