# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled core of the Sim solver: negamax on bitboards with a canonical-form table.

A position is seen from the player to move: ``mine`` and ``theirs`` are edge masks.
Values are +1 (the mover wins), 0 (draw), -1 (the mover loses) under perfect play.
Moves that close the mover's own triangle are never searched; the others are tried
in order of how few safe edges they cost the mover. Symmetric positions (vertex
permutations) share one table entry: the key is the smallest relabelled pair over
the relabellings that respect a vertex invariant (coloured degrees, then the
degrees of the neighbours), which is exact and cheap.

On a graph other than K_n the free edges are those of the graph (`full` is its edge
mask) and the symmetries are its automorphisms only: the key is the smallest image of
the position under them, each applied to a mask by four byte-indexed tables.

The game count (`count`) memoises, per canonical position, a vector of unsigned
128-bit counts by number of moves left, in C arrays (an open-addressing hash table
and a flat store, both grown by doubling), so K8's 5.6 million positions fit in
about 2.4 GB; only the root's vector is turned into Python integers.
"""

import time

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

cdef extern from *:
    int __builtin_popcount(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil

# Game counts reach 28! (about 3e29) on K8: unsigned 128-bit integers (GCC, Clang).
cdef extern from *:
    """
    typedef unsigned __int128 sim_u128;
    """
    ctypedef unsigned long long sim_u128

# An empty slot of the count table: no canonical key is all ones (masks have <= 28 bits).
cdef uint64_t EMPTY = <uint64_t>0xFFFFFFFFFFFFFFFF
# Look at the clock (for progress reports) once per this many new positions.
cdef uint64_t CLOCK_EVERY = 1 << 14


class BudgetExceeded(Exception):
    """The search evaluated more positions than it was allowed to."""


class CountMemoryExceeded(MemoryError):
    """The game count needs more memory for its table than it was allowed."""


cdef inline uint64_t _mix(uint64_t x) noexcept:
    """splitmix64's finaliser: spreads a canonical key over the hash table."""
    x ^= x >> 30
    x *= <uint64_t>0xBF58476D1CE4E5B9
    x ^= x >> 27
    x *= <uint64_t>0x94D049BB133111EB
    x ^= x >> 31
    return x


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
    cdef public long long calls
    cdef public long long budget
    # scratch space of the canonicaliser
    cdef uint64_t keys[8]
    cdef uint64_t sorted_keys[8]
    cdef int label[8]
    cdef int used[8]
    cdef uint32_t cur_mine, cur_theirs
    cdef uint64_t best
    # automorphisms of a graph other than K_n: per automorphism, 4 tables of 256 masks
    cdef uint32_t *aut_tables
    cdef readonly int n_auts
    # The count table: open addressing (linear probing) from a canonical key to the
    # offset of the position's count vector in `store`. A position with f free edges
    # has f + 1 counts: games of 1..f more moves, then the draws among them.
    cdef uint64_t *ckeys
    cdef uint64_t *cvals
    cdef uint64_t ccap
    cdef readonly uint64_t counted
    cdef sim_u128 *store
    cdef uint64_t store_len
    cdef uint64_t store_cap
    cdef public long long max_bytes
    cdef public object progress
    cdef public double progress_every
    cdef double next_report
    cdef uint64_t next_clock

    def __init__(self, int n, bint symmetry=True, long long budget=-1, graph=None,
                 automorphisms=()):
        cdef int i, j, e = 0, s, a, byte, bits, k
        cdef uint32_t m
        if n < 3 or n > 8:
            raise ValueError(f"Sim is defined here for 3 to 8 vertices, got {n}")
        self.aut_tables = NULL
        self.n_auts = 0
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
        self.full = (<uint32_t>1 << e) - 1 if graph is None else <uint32_t>graph
        if graph is not None and symmetry:
            if not automorphisms:
                raise ValueError("symmetry on a graph needs its automorphisms (the identity at least)")
            self.n_auts = len(automorphisms)
            self.aut_tables = <uint32_t *>malloc(max(self.n_auts, 1) * 4 * 256 * sizeof(uint32_t))
            if self.aut_tables == NULL:
                raise MemoryError("no room for the automorphism tables")
            for a in range(self.n_auts):
                perm = automorphisms[a]
                for byte in range(4):
                    for bits in range(256):
                        m = 0
                        for k in range(8):
                            e = byte * 8 + k
                            if bits >> k & 1 and e < self.num_edges:
                                m |= <uint32_t>1 << self.idx[perm[self.ea[e]]][perm[self.eb[e]]]
                        self.aut_tables[(a * 4 + byte) * 256 + bits] = m
        for s in range(1 << n):
            m = 0
            for i in range(n):
                if s >> i & 1:
                    for j in range(i + 1, n):
                        if s >> j & 1:
                            m |= <uint32_t>1 << self.idx[i][j]
            self.clique[s] = m
        self.table = {}
        self.calls = 0
        self.ckeys = NULL
        self.cvals = NULL
        self.store = NULL
        self.ccap = 0
        self.counted = 0
        self.store_len = 0
        self.store_cap = 0
        self.max_bytes = -1
        self.progress = None
        self.progress_every = 5.0

    def __dealloc__(self):
        self.release_counts()
        free(self.aut_tables)

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
        if self.aut_tables != NULL:
            return self._canon_automorphisms(mine, theirs)
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

    cdef uint64_t _canon_automorphisms(self, uint32_t mine, uint32_t theirs) noexcept:
        """The smallest image of the position under the graph's automorphisms."""
        cdef uint64_t best = <uint64_t>0xFFFFFFFFFFFFFFFF, key
        cdef uint32_t *t
        cdef int a
        for a in range(self.n_auts):
            t = self.aut_tables + a * 1024
            key = (<uint64_t>(t[mine & 255] | t[256 + (mine >> 8 & 255)] | t[512 + (mine >> 16 & 255)]
                              | t[768 + (mine >> 24)]) << 32) | (
                t[theirs & 255] | t[256 + (theirs >> 8 & 255)] | t[512 + (theirs >> 16 & 255)]
                | t[768 + (theirs >> 24)])
            if key < best:
                best = key
        return best

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

    @property
    def count_bytes(self):
        """Bytes held by the count table (keys, offsets and count vectors)."""
        return int(self.ccap * 16 + self.store_cap * sizeof(sim_u128))

    def release_counts(self):
        """Free the count table."""
        free(self.ckeys)
        free(self.cvals)
        free(self.store)
        self.ckeys = NULL
        self.cvals = NULL
        self.store = NULL
        self.ccap = 0
        self.counted = 0
        self.store_len = 0
        self.store_cap = 0

    cdef int _over(self, uint64_t extra) except -1:
        """Raise if growing the table by `extra` bytes would pass `max_bytes`."""
        cdef uint64_t used = self.ccap * 16 + self.store_cap * sizeof(sim_u128)
        if self.max_bytes >= 0 and used + extra > <uint64_t>self.max_bytes:
            raise CountMemoryExceeded(
                f"counting the games of Sim on K{self.n} needs more than the "
                f"{self.max_bytes / 1e9:.3g} GB allowed for its table "
                f"({self.counted} positions counted, {used / 1e9:.2f} GB in use)"
            )
        return 0

    cdef int _grow_table(self) except -1:
        cdef uint64_t cap = self.ccap * 2 if self.ccap else (1 << 12)
        cdef uint64_t *keys
        cdef uint64_t *vals
        cdef uint64_t i, h, mask = cap - 1
        self._over((cap - self.ccap) * 16)
        keys = <uint64_t *>malloc(cap * sizeof(uint64_t))
        vals = <uint64_t *>malloc(cap * sizeof(uint64_t))
        if keys == NULL or vals == NULL:
            free(keys)
            free(vals)
            raise MemoryError(f"cannot allocate a count table of {cap} slots")
        memset(keys, 0xFF, cap * sizeof(uint64_t))
        for i in range(self.ccap):
            if self.ckeys[i] != EMPTY:
                h = _mix(self.ckeys[i]) & mask
                while keys[h] != EMPTY:
                    h = (h + 1) & mask
                keys[h] = self.ckeys[i]
                vals[h] = self.cvals[i]
        free(self.ckeys)
        free(self.cvals)
        self.ckeys = keys
        self.cvals = vals
        self.ccap = cap
        return 0

    cdef int _grow_store(self, uint64_t need) except -1:
        cdef uint64_t cap = self.store_cap * 2 if self.store_cap else (1 << 14)
        cdef uint64_t room
        cdef sim_u128 *grown
        if self.max_bytes >= 0:  # stop at the limit rather than doubling past it
            room = (<uint64_t>self.max_bytes - self.ccap * 16) // sizeof(sim_u128)
            if cap > room and room >= need:
                cap = room
        while cap < need:
            cap *= 2
        self._over((cap - self.store_cap) * sizeof(sim_u128))
        grown = <sim_u128 *>realloc(self.store, cap * sizeof(sim_u128))
        if grown == NULL:
            raise MemoryError(f"cannot grow the game counts to {cap * sizeof(sim_u128)} bytes")
        self.store = grown
        self.store_cap = cap
        return 0

    cdef int _tick(self) except -1:
        """Every few seconds, tell `progress` how many positions are counted so far."""
        cdef double now
        self.next_clock = self.counted + CLOCK_EVERY
        if self.progress is None:
            return 0
        now = time.monotonic()
        if now >= self.next_report:
            self.next_report = now + self.progress_every
            self.progress(self.counted, self.count_bytes)
        return 0

    cdef long long _count(self, uint32_t mine, uint32_t theirs) except -1:
        """The offset in `store` of the count vector of a position, counted if need be."""
        cdef uint32_t free_edges = self.full & ~(mine | theirs)
        cdef uint32_t danger_mine, moves, bit
        cdef int f = __builtin_popcount(free_edges)
        cdef int e, j
        cdef uint64_t key, h, mask, off
        cdef long long child_off
        cdef sim_u128 *child
        cdef sim_u128 result[29]
        key = self.canon(mine, theirs)
        if self.ccap:
            mask = self.ccap - 1
            h = _mix(key) & mask
            while self.ckeys[h] != EMPTY:
                if self.ckeys[h] == key:
                    return <long long>self.cvals[h]
                h = (h + 1) & mask
        memset(result, 0, (f + 1) * sizeof(sim_u128))
        danger_mine = self.danger(mine)
        moves = free_edges
        while moves:
            e = __builtin_ctz(moves)
            bit = <uint32_t>1 << e
            moves &= moves - 1
            if danger_mine & bit:
                result[0] += 1  # the mover completes a triangle of their own: one game
            elif free_edges == bit:
                result[0] += 1  # the last edge, without a triangle: a draw
                result[f] += 1
            else:
                child_off = self._count(theirs, mine | bit)
                child = self.store + child_off  # after the call: `store` may have moved
                for j in range(1, f):
                    result[j] += child[j - 1]
                result[f] += child[f - 1]
        # store the vector, then the key (the table may have grown during the children)
        if self.store_len + f + 1 > self.store_cap:
            self._grow_store(self.store_len + f + 1)
        off = self.store_len
        memcpy(self.store + off, result, (f + 1) * sizeof(sim_u128))
        self.store_len += f + 1
        if (self.counted + 1) * 2 > self.ccap:
            self._grow_table()
        mask = self.ccap - 1
        h = _mix(key) & mask
        while self.ckeys[h] != EMPTY:
            h = (h + 1) & mask
        self.ckeys[h] = key
        self.cvals[h] = off
        self.counted += 1
        if self.counted >= self.next_clock:
            self._tick()
        return <long long>off

    cpdef list count(self, uint32_t mine, uint32_t theirs):
        """Complete games from here: ``c[k]`` games of k more moves, ``c[-1]`` draws.

        Counted positions stay in the table for later calls (`release_counts` frees it).
        """
        cdef int f = __builtin_popcount(self.full & ~(mine | theirs))
        cdef int k
        cdef sim_u128 x
        cdef long long off
        cdef list result = [0] * (self.num_edges + 2)
        self.next_report = time.monotonic() + self.progress_every
        self.next_clock = self.counted + CLOCK_EVERY
        off = self._count(mine, theirs)
        for k in range(f + 1):
            x = self.store[off + k]
            value = (int(<uint64_t>(x >> 64)) << 64) | int(<uint64_t>x)
            if k < f:
                result[k + 1] = value
            else:
                result[self.num_edges + 1] = value
        return result
