# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled alpha-beta search for single-suit Durak (same contract as `_search.PySearch`).

A position is ``(remaining, mover)``: bit ``i`` of `remaining` is set while card ``i + 1``
is still in play, and `mover` is the subset held by the player to lay a card. Values
are encoded payoffs for the mover (see `arena.games.durak.values`). The transposition
table is an open-addressing hash table of lower and upper bounds plus the best lay
found, keyed by the canonical position, so searches with other windows (MTD(f) passes,
child positions) reuse earlier work and try the best lay first.
"""

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport calloc, free

cdef extern from *:
    int __builtin_popcountll(unsigned long long)
    int __builtin_clzll(unsigned long long)
    int __builtin_ctzll(unsigned long long)

cdef struct Entry:
    uint64_t key
    int32_t lower
    int32_t upper
    int32_t best

DEF INF = 1000000000


cdef class CSearch:
    cdef Entry* slots
    cdef uint64_t mask
    cdef int shift
    cdef uint64_t used
    cdef int weights[64]
    cdef int classes[64]
    cdef uint64_t radix
    cdef bint compress
    cdef int n
    cdef bint draw_rule
    cdef bint weighted
    cdef public long long nodes

    def __cinit__(self, int n, weights, bint draw_rule, bint compress=True):
        self.slots = NULL
        self._allocate(16)

    def __init__(self, int n, weights, bint draw_rule, bint compress=True):
        if n < 1 or n > 62 or (weights is not None and n > 32):
            raise ValueError("the compiled search handles up to 62 cards (32 with weights)")
        self.n = n
        self.draw_rule = draw_rule
        self.weighted = weights is not None
        for i in range(64):
            self.weights[i] = 1
        self.compress = False
        if weights is not None:
            for i in range(n):
                self.weights[i] = weights[i]
            # Cards with equal weights are interchangeable: when the sequence of
            # (weight, owner) of the cards in play fits a 64-bit number, key by it, so
            # positions reached by removing different but equal cards meet in the table.
            distinct = sorted(set(weights))
            for i in range(n):
                self.classes[i] = distinct.index(weights[i])
            self.radix = 2 * len(distinct)
            self.compress = compress and self.radix ** (n + 1) < (1 << 63)
        self.nodes = 0

    def __dealloc__(self):
        free(self.slots)

    cdef void _allocate(self, int bits):
        free(self.slots)
        self.slots = <Entry*> calloc((<uint64_t>1) << bits, sizeof(Entry))
        if self.slots == NULL:
            raise MemoryError()
        self.mask = ((<uint64_t>1) << bits) - 1
        self.shift = 64 - bits
        self.used = 0

    cdef void _grow(self):
        cdef Entry* old = self.slots
        cdef uint64_t old_size = self.mask + 1
        cdef uint64_t i
        cdef Entry* slot
        self.slots = NULL
        self._allocate(64 - self.shift + 1)
        for i in range(old_size):
            if old[i].key:
                slot = self._slot(old[i].key)
                slot[0] = old[i]
                self.used += 1
        free(old)

    cdef inline Entry* _slot(self, uint64_t key):
        cdef uint64_t i = (key * 0x9E3779B97F4A7C15ULL) >> self.shift
        while self.slots[i].key and self.slots[i].key != key:
            i = (i + 1) & self.mask
        return &self.slots[i]

    def table_size(self):
        return self.used

    def clear(self):
        self._allocate(16)

    def value(self, uint64_t remaining, uint64_t mover, int alpha=-INF, int beta=INF):
        """The mover's value if it lies in (alpha, beta); otherwise a bound beyond it."""
        return self.search(remaining, mover, alpha, beta)

    def lay_value(self, uint64_t remaining, uint64_t mover, int card, int alpha=-INF,
                  int beta=INF):
        """The mover's value after laying `card` (0-based), best reply assumed."""
        return self.lay(remaining, mover, card, alpha, beta)

    def reply_value(self, uint64_t remaining, uint64_t mover, int card, int beat,
                    int alpha=-INF, int beta=INF):
        """The mover's value after laying `card`; reply: take (-1) or beat with `beat`."""
        return self.reply(remaining, mover, card, beat, alpha, beta)

    cdef inline int wsum(self, uint64_t mask):
        cdef int total = 0
        if not self.weighted:
            return __builtin_popcountll(mask)
        while mask:
            total += self.weights[__builtin_ctzll(mask)]
            mask &= mask - 1
        return total

    cdef inline int ran_out(self, int left):
        """Payoff to the player who ran out while the other still holds weight `left`."""
        if left == 0 and not self.draw_rule:
            return 1
        return 2 * left

    cdef inline uint64_t key(self, uint64_t remaining, uint64_t mover):
        cdef uint64_t code = 0
        cdef uint64_t low
        cdef int k = 0
        cdef int top
        if self.weighted:
            if not self.compress:
                return (remaining << 32) | mover
            code = 1
            while remaining:
                top = 63 - __builtin_clzll(remaining)
                remaining ^= (<uint64_t>1) << top
                code = code * self.radix + 2 * self.classes[top] + (0 if (mover >> top) & 1 else 1)
            return code
        while remaining:
            low = remaining & (~remaining + 1)
            if not (mover & low):
                code |= (<uint64_t>1) << k
            k += 1
            remaining ^= low
        return code | ((<uint64_t>1) << k)

    cdef int reply(self, uint64_t remaining, uint64_t mover, int card, int beat,
                   int alpha, int beta):
        cdef uint64_t cbit = (<uint64_t>1) << card
        cdef uint64_t left = mover & ~cbit
        cdef uint64_t other = remaining & ~mover
        cdef uint64_t dbit
        if beat < 0:
            if left == 0:
                return self.ran_out(self.wsum(other | cbit))
            return self.search(remaining, left, alpha, beta)
        dbit = (<uint64_t>1) << beat
        other &= ~dbit
        if left == 0:
            return self.ran_out(self.wsum(other))
        if other == 0:
            return -self.ran_out(self.wsum(left))
        return -self.search(remaining & ~cbit & ~dbit, other, -beta, -alpha)

    cdef int probe(self, uint64_t remaining, uint64_t mover, int card, int beat, int* exact):
        """An upper bound on a reply's value for the mover, from the table or the rules.

        Sets `exact` when the bound is the value. Returns `INF` when nothing is known.
        """
        cdef uint64_t cbit = (<uint64_t>1) << card
        cdef uint64_t left = mover & ~cbit
        cdef uint64_t other = remaining & ~mover
        cdef uint64_t dbit
        cdef Entry* slot
        exact[0] = 1
        if beat < 0:
            if left == 0:
                return self.ran_out(self.wsum(other | cbit))
            slot = self._slot(self.key(remaining, left))
            exact[0] = slot.key != 0 and slot.lower == slot.upper
            return slot.upper if slot.key else INF
        dbit = (<uint64_t>1) << beat
        other &= ~dbit
        if left == 0:
            return self.ran_out(self.wsum(other))
        if other == 0:
            return -self.ran_out(self.wsum(left))
        slot = self._slot(self.key(remaining & ~cbit & ~dbit, other))
        exact[0] = slot.key != 0 and slot.lower == slot.upper
        return -slot.lower if slot.key else INF

    cdef int lay(self, uint64_t remaining, uint64_t mover, int card, int alpha, int beta):
        """Min node: the defender answers `card` by taking it or beating it.

        Replies are tried in order of what the table already knows about them (an
        upper bound at or below `alpha` refutes the lay at once); unknown ones follow in
        the order smallest beat, take, higher beats.
        """
        cdef uint64_t other = remaining & ~mover
        cdef uint64_t above = other & ~((((<uint64_t>1) << card) << 1) - 1)
        cdef int worst = INF
        cdef int v, d, top, i, j, count = 0, exact
        cdef uint64_t dbit, below
        cdef int beats[66]
        cdef int hints[66]
        cdef int exacts[66]
        cdef int tb, th, te
        while above:
            dbit = above & (~above + 1)
            above ^= dbit
            d = __builtin_ctzll(dbit)
            if count and not self.weighted:
                # Beating with any card of one run of the defender's cards gives the
                # same canonical position: only the lowest of each run is tried.
                below = remaining & (dbit - 1)
                top = 63 - __builtin_clzll(below)
                if top > card and (other >> top) & 1:
                    continue
            beats[count] = d
            count += 1
            if count == 1:
                beats[count] = -1
                count += 1
        if count == 0:
            beats[0] = -1
            count = 1
        for i in range(count):
            hints[i] = self.probe(remaining, mover, card, beats[i], &exact)
            exacts[i] = exact
            if hints[i] <= alpha:
                return hints[i]
        # Stable insertion sort by hint: known small values first.
        for i in range(1, count):
            tb = beats[i]
            th = hints[i]
            te = exacts[i]
            j = i - 1
            while j >= 0 and hints[j] > th:
                beats[j + 1] = beats[j]
                hints[j + 1] = hints[j]
                exacts[j + 1] = exacts[j]
                j -= 1
            beats[j + 1] = tb
            hints[j + 1] = th
            exacts[j + 1] = te
        for i in range(count):
            if exacts[i]:
                v = hints[i]
            else:
                v = self.reply(remaining, mover, card, beats[i], alpha,
                               beta if beta < worst else worst)
            if v < worst:
                worst = v
                if worst <= alpha:
                    return worst
        return worst

    cdef int search(self, uint64_t remaining, uint64_t mover, int alpha, int beta):
        cdef uint64_t k = self.key(remaining, mover)
        cdef Entry* slot = self._slot(k)
        cdef int lower = -INF, upper = INF, best_card = -1
        cdef int a0, b0, best = -INF, v, card, chosen = -1
        cdef uint64_t cards = mover, cbit
        if slot.key:
            lower = slot.lower
            upper = slot.upper
            if lower == upper or lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            if lower > alpha:
                alpha = lower
            if upper < beta:
                beta = upper
            best_card = slot.best
        a0 = alpha
        b0 = beta
        self.nodes += 1
        if best_card >= 0 and (mover >> best_card) & 1:
            cards ^= (<uint64_t>1) << best_card
            v = self.lay(remaining, mover, best_card, alpha, beta)
            best = v
            chosen = best_card
            if best > alpha:
                alpha = best
        while cards and alpha < beta:
            cbit = cards & (~cards + 1)
            cards ^= cbit
            card = __builtin_ctzll(cbit)
            v = self.lay(remaining, mover, card, alpha, beta)
            if v > best:
                best = v
                chosen = card
                if best > alpha:
                    alpha = best
        if best <= a0:
            if best < upper:
                upper = best
        elif best >= b0:
            if best > lower:
                lower = best
        else:
            lower = best
            upper = best
        # The recursion may have grown the table: look the slot up again.
        if (self.used + 1) * 2 > self.mask + 1:
            self._grow()
        slot = self._slot(k)
        if not slot.key:
            slot.key = k
            self.used += 1
        slot.lower = lower
        slot.upper = upper
        slot.best = chosen
        return best
