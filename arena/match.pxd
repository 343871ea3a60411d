# Augments match.py when it is compiled: the classes become extension types with C
# fields and C-level methods, which makes the per-move loop cheaper. match.py stays
# plain Python and runs as such when it is not compiled (ARENA_PURE=1), together with
# referee.py and chance.py, whose types this file cimports (arena.compiled keeps them in
# step).

from arena.chance cimport ChanceSource
from arena.referee cimport Referee, Verdict

cdef class Match:
    cdef public object game
    cdef public Referee referee
    cdef public tuple players
    cdef public object seed
    cdef public object id
    cdef public object state
    cdef public object outcome
    cdef public object seed_commitment
    cdef list _turns
    cdef public list notes
    cdef ChanceSource _chance
    cdef object _pending_chance
    cdef int _seat
    cdef object _to_act
    cdef object _apply_chance
    cdef object _chance_outcomes
    cpdef _roll(self)
    cpdef int to_act(self)
    cpdef Verdict submit(self, int seat, object move)
