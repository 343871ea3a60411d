# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled core of the Sim solver: negamax on bitboards with a canonical-form table.

A position is seen from the player to move: ``mine`` and ``theirs`` are edge masks.
Values are +1 (the mover wins), 0 (draw), -1 (the mover loses) under perfect play.
Moves that close the mover's own triangle are never searched; the others are tried
in order of how few safe edges they cost the mover. Symmetric positions (vertex
permutations) share one table entry: the key is the smallest relabelled pair over
the relabellings that respect a vertex invariant (coloured degrees, then the
degrees of the neighbours), which is exact and cheap.
"""

from libc.stdint cimport uint32_t, uint64_t

cdef extern from *:
    int __builtin_popcount(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil


class BudgetExceeded(Exception):
    """The search evaluated more positions than it was allowed to."""


cdef class Searcher:
    cdef readonly int n
    cdef readonly int num_edges
    cdef readonly bint symmetry
    cdef uint32_t full
    cdef int ea[28]
    cdef int eb[28]
    cdef int idx[8][8]
    cdef uint32_t clique[256]
    cdef public dict table
    cdef public dict counts
    cdef public long long calls
    cdef public long long budget
    # scratch space of the canonicaliser
    cdef uint64_t keys[8]
    cdef uint64_t sorted_keys[8]
    cdef int label[8]
    cdef int used[8]
    cdef uint32_t cur_mine, cur_theirs
    cdef uint64_t best

    def __init__(self, int n, bint symmetry=True, long long budget=-1):
        cdef int i, j, e = 0, s
        cdef uint32_t m
        if n < 3 or n > 8:
            raise ValueError(f"Sim is defined here for 3 to 8 vertices, got {n}")
        self.n = n
        self.symmetry = symmetry
        self.budget = budget
        for i in range(n):
            for j in range(n):
                self.idx[i][j] = -1
        for i in range(n):
            for j in range(i + 1, n):
                self.ea[e] = i
                self.eb[e] = j
                self.idx[i][j] = e
                self.idx[j][i] = e
                e += 1
        self.num_edges = e
        self.full = (<uint32_t>1 << e) - 1
        for s in range(1 << n):
            m = 0
            for i in range(n):
                if s >> i & 1:
                    for j in range(i + 1, n):
                        if s >> j & 1:
                            m |= <uint32_t>1 << self.idx[i][j]
            self.clique[s] = m
        self.table = {}
        self.counts = {}
        self.calls = 0

    # -- tables ---------------------------------------------------------------------

    cdef inline uint32_t danger(self, uint32_t mask) noexcept:
        """Edges that would complete a triangle inside `mask`."""
        cdef int nb[8]
        cdef int v, e
        cdef uint32_t d = 0
        for v in range(self.n):
            nb[v] = 0
        while mask:
            e = __builtin_ctz(mask)
            mask &= mask - 1
            nb[self.ea[e]] |= 1 << self.eb[e]
            nb[self.eb[e]] |= 1 << self.ea[e]
        for v in range(self.n):
            d |= self.clique[nb[v]]
        return d

    cpdef uint64_t canon(self, uint32_t mine, uint32_t theirs):
        """The table key of a position: equal for positions equal up to relabelling."""
        cdef int nbm[8]
        cdef int nbt[8]
        cdef uint64_t base[8]
        cdef uint64_t r, t, k
        cdef int v, u, e, i, j
        cdef uint32_t m
        if not self.symmetry:
            return (<uint64_t>mine << 32) | theirs
        for v in range(self.n):
            nbm[v] = 0
            nbt[v] = 0
        m = mine
        while m:
            e = __builtin_ctz(m)
            m &= m - 1
            nbm[self.ea[e]] |= 1 << self.eb[e]
            nbm[self.eb[e]] |= 1 << self.ea[e]
        m = theirs
        while m:
            e = __builtin_ctz(m)
            m &= m - 1
            nbt[self.ea[e]] |= 1 << self.eb[e]
            nbt[self.eb[e]] |= 1 << self.ea[e]
        for v in range(self.n):
            base[v] = __builtin_popcount(nbm[v]) * 16 + __builtin_popcount(nbt[v]) + 1
        for v in range(self.n):
            r = 0
            t = 0
            for u in range(self.n):
                if nbm[v] >> u & 1:
                    r += base[u] * base[u]
                if nbt[v] >> u & 1:
                    t += base[u] * base[u]
            self.keys[v] = (base[v] << 40) | (r << 20) | t
        # sort the invariants, largest first (insertion sort: n <= 8)
        for i in range(self.n):
            self.sorted_keys[i] = self.keys[i]
            self.used[i] = 0
        for i in range(1, self.n):
            k = self.sorted_keys[i]
            j = i - 1
            while j >= 0 and self.sorted_keys[j] < k:
                self.sorted_keys[j + 1] = self.sorted_keys[j]
                j -= 1
            self.sorted_keys[j + 1] = k
        self.cur_mine = mine
        self.cur_theirs = theirs
        self.best = <uint64_t>0xFFFFFFFFFFFFFFFF
        self._assign(0)
        return self.best

    cdef void _assign(self, int p) noexcept:
        cdef int v, e
        cdef uint32_t m, a, b
        cdef uint64_t key
        if p == self.n:
            a = 0
            m = self.cur_mine
            while m:
                e = __builtin_ctz(m)
                m &= m - 1
                a |= <uint32_t>1 << self.idx[self.label[self.ea[e]]][self.label[self.eb[e]]]
            b = 0
            m = self.cur_theirs
            while m:
                e = __builtin_ctz(m)
                m &= m - 1
                b |= <uint32_t>1 << self.idx[self.label[self.ea[e]]][self.label[self.eb[e]]]
            key = (<uint64_t>a << 32) | b
            if key < self.best:
                self.best = key
            return
        for v in range(self.n):
            if not self.used[v] and self.keys[v] == self.sorted_keys[p]:
                self.used[v] = 1
                self.label[v] = p
                self._assign(p + 1)
                self.used[v] = 0

    # -- game value -------------------------------------------------------------------

    cpdef int value(self, uint32_t mine, uint32_t theirs) except -9:
        """The value for the player to move: +1 win, 0 draw, -1 loss."""
        cdef uint32_t free = self.full & ~(mine | theirs)
        cdef uint32_t safe, opp_safe, bit, moves
        cdef int scores[28]
        cdef int order[28]
        cdef int best, v, e, j, count, score
        cdef uint64_t key
        if free == 0:
            return 0
        safe = free & ~self.danger(mine)
        if safe == 0:
            return -1
        opp_safe = free & ~self.danger(theirs)
        # a safe move after which the opponent has edges left but none safe wins at once
        if __builtin_popcount(free) >= 2:
            if opp_safe == 0:
                return 1
            if __builtin_popcount(opp_safe) == 1 and (opp_safe & safe):
                return 1
        key = self.canon(mine, theirs)
        found = self.table.get(key)
        if found is not None:
            return found
        self.calls += 1
        if self.budget >= 0 and self.calls > self.budget:
            raise BudgetExceeded(f"more than {self.budget} positions")
        # Move ordering: first the moves that add the fewest new edges closing a
        # triangle of our own (each one is a safe move lost), and among those the
        # edges the opponent could also take safely (taking them costs him one).
        count = 0
        moves = safe
        while moves:
            e = __builtin_ctz(moves)
            bit = <uint32_t>1 << e
            moves &= moves - 1
            score = __builtin_popcount(self.danger(mine | bit) & safe & ~bit) * 2
            if not bit & opp_safe:
                score += 1
            j = count
            while j > 0 and scores[j - 1] > score:
                scores[j] = scores[j - 1]
                order[j] = order[j - 1]
                j -= 1
            scores[j] = score
            order[j] = e
            count += 1
        best = -1
        for j in range(count):
            v = -self.value(theirs, mine | (<uint32_t>1 << order[j]))
            if v > best:
                best = v
                if best == 1:
                    break
        self.table[key] = best
        return best

    # -- counting games ---------------------------------------------------------------

    cpdef list count(self, uint32_t mine, uint32_t theirs):
        """Complete games from here: ``c[k]`` games of k more moves, ``c[-1]`` draws."""
        cdef uint32_t free = self.full & ~(mine | theirs)
        cdef uint32_t danger_mine, moves, bit
        cdef int e, k, size = self.num_edges + 2
        cdef list result, child
        key = self.canon(mine, theirs)
        found = self.counts.get(key)
        if found is not None:
            return found
        result = [0] * size
        danger_mine = self.danger(mine)
        moves = free
        while moves:
            e = __builtin_ctz(moves)
            bit = <uint32_t>1 << e
            moves &= moves - 1
            if danger_mine & bit:
                result[1] += 1
            elif free == bit:
                result[1] += 1
                result[size - 1] += 1
            else:
                child = self.count(theirs, mine | bit)
                for k in range(size - 2):
                    if child[k]:
                        result[k + 1] += child[k]
                result[size - 1] += child[size - 1]
        self.counts[key] = result
        return result
