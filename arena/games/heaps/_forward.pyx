# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The forward colouring pass for two-heap games where every move adds stones, compiled.

Positions are the pairs x <= y that are not over (the game is symmetric), stored row
by row (row x holds y = x .. last(x)) in one flat array, so a target of 10^4 (about
2.5e7 positions for a sum) fits in 50 MB. Every move adds stones, so a position's
successors lie in later rows, or further along its own row: filled from the end, they
are always coloured already.

Colours follow `solver.py`: 1 wins at once; otherwise one more than the smallest even
colour among the successors, or, if none is even, one more than the largest odd one.
"""

from array import array

from libc.stdlib cimport free, malloc

cdef enum:
    SUM = 0
    PRODUCT = 1
    MAX = 2
    ADD = 0
    MUL = 1
    MAX_COLOUR = 65535


cdef inline bint _over(long long x, long long y, int measure, long long target):
    if measure == SUM:
        return x + y >= target
    if measure == PRODUCT:
        return x * y >= target
    return x >= target or y >= target


cdef long long _last_y(long long x, int measure, long long target):
    """The largest y with (x, y) not over (y may be below x: then the row is empty)."""
    if measure == SUM:
        return target - 1 - x
    if measure == PRODUCT:
        return (target - 1) // x if x > 0 else 1 << 40
    return target - 1 if x < target else -1


cdef class ForwardTable:
    """The colours of a solved game, indexed by (x, y) with x <= y."""

    cdef readonly long long low
    cdef readonly long long rows
    cdef readonly object colours        # array('H'), one colour a position
    cdef readonly object row_start      # array('q'): offset of row x - low
    cdef readonly object row_last       # array('q'): last y of row x - low
    cdef readonly object some           # array('B'): 1 where a move reaches a colour-1 position

    def index(self, long long x, long long y):
        """The flat index of (x, y) (x <= y), or -1 if it is not a position of the table."""
        cdef long long r = x - self.low
        if r < 0 or r >= self.rows or y < x or y > self.row_last[r]:
            return -1
        return self.row_start[r] + (y - x)

    def flagged(self):
        """The positions whose `some` flag is set, row by row."""
        cdef unsigned char[::1] some = self.some
        cdef long long[::1] starts = self.row_start
        cdef long long[::1] lasts = self.row_last
        cdef long long r, y
        found = []
        for r in range(self.rows):
            for y in range(self.low + r, lasts[r] + 1):
                if some[starts[r] + (y - self.low - r)]:
                    found.append((self.low + r, y))
        return found

    def positions(self):
        """Every position, row by row."""
        cdef long long r, y
        for r in range(self.rows):
            for y in range(self.low + r, self.row_last[r] + 1):
                yield (self.low + r, y)


def forward_colours(int measure, long long target, long long low, list ops_equal,
                    list ops_smaller, list ops_larger):
    """Colour every position of a symmetric two-heap game with only +k and *k moves.

    `measure` is 0 (sum), 1 (product) or 2 (max); `low` the smallest heap; each ops
    list holds (kind, amount) pairs, kind 0 for +k and 1 for *k: the moves on equal
    heaps, on the smaller heap and on the larger heap. Raises OverflowError if a colour
    would not fit in 16 bits.
    """
    cdef ForwardTable table = ForwardTable.__new__(ForwardTable)
    cdef long long rows = 0, total = 0, x, last
    cdef int i, n_eq = len(ops_equal), n_sm = len(ops_smaller), n_lg = len(ops_larger)
    cdef int *kinds = <int *>malloc(3 * 64 * sizeof(int))
    cdef long long *amounts = <long long *>malloc(3 * 64 * sizeof(long long))
    if not kinds or not amounts:
        raise MemoryError()
    if n_eq > 64 or n_sm > 64 or n_lg > 64:
        raise ValueError("at most 64 operations of each kind")
    try:
        for i, (kind, amount) in enumerate(ops_equal):
            kinds[i], amounts[i] = kind, amount
        for i, (kind, amount) in enumerate(ops_smaller):
            kinds[64 + i], amounts[64 + i] = kind, amount
        for i, (kind, amount) in enumerate(ops_larger):
            kinds[128 + i], amounts[128 + i] = kind, amount
        # the rows: x = low, low + 1, ... while (x, x) is not over
        starts = array("q")
        lasts = array("q")
        x = low
        while not _over(x, x, measure, target):
            last = _last_y(x, measure, target)
            starts.append(total)
            lasts.append(last)
            total += last - x + 1
            x += 1
        rows = len(starts)
        colours = array("H", bytes(2 * total))
        some = array("B", bytes(total))
        table.low, table.rows = low, rows
        table.colours, table.row_start, table.row_last, table.some = colours, starts, lasts, some
        cdef_fill(colours, some, starts, lasts, rows, low, measure, target,
                  kinds, amounts, n_eq, n_sm, n_lg)
        return table
    finally:
        free(kinds)
        free(amounts)


cdef void cdef_fill(object colours_obj, object some_obj, object starts_obj, object lasts_obj,
                    long long rows, long long low, int measure,
                    long long target, int *kinds, long long *amounts,
                    int n_eq, int n_sm, int n_lg) except *:
    cdef unsigned short[::1] colours = colours_obj
    cdef unsigned char[::1] some = some_obj
    cdef long long[::1] starts = starts_obj
    cdef long long[::1] lasts = lasts_obj
    cdef long long x, y, r, v, a, b, c, low_even, high_odd, rr, heap
    cdef int i, base, count, side
    cdef bint won, after_win, any_move
    # Every successor of (x, y) lies in a later row, or further along the same row: a
    # move adds to one heap, and sorting puts the pair in row min(x', y) > x, or keeps
    # row x with a larger y. So rows from the last, each from its far end, see every
    # successor coloured already (and walk memory in order).
    r = rows - 1
    while r >= 0:
        x = low + r
        y = lasts[r]
        while y >= x:
            won = False
            after_win = False
            any_move = False
            low_even = 0
            high_odd = 0
            for side in range(2):
                if x == y:
                    if side == 1:
                        break
                    base = 0
                    count = n_eq
                elif side == 0:
                    base = 64                   # the smaller heap, x
                    count = n_sm
                else:
                    base = 128                  # the larger heap, y
                    count = n_lg
                heap = x if side == 0 else y
                for i in range(count):
                    if kinds[base + i] == 0:
                        v = heap + amounts[base + i]
                    else:
                        v = heap * amounts[base + i]
                    if v < low or v == heap:
                        continue
                    any_move = True
                    if side == 1:
                        a = x
                        b = v
                    elif v <= y:
                        a = v
                        b = y
                    else:
                        a = y
                        b = v
                    if _over(a, b, measure, target):
                        won = True
                        break
                    rr = a - low
                    c = colours[starts[rr] + (b - a)]
                    if c & 1:
                        if c > high_odd:
                            high_odd = c
                        if c == 1:
                            after_win = True
                    elif low_even == 0 or c < low_even:
                        low_even = c
                if won:
                    break
            if won:
                c = 1
            elif not any_move:
                c = 2
            else:
                c = low_even + 1 if low_even else high_odd + 1
                if after_win:
                    some[starts[r] + (y - x)] = 1
            if c > MAX_COLOUR:
                raise OverflowError("a colour does not fit in 16 bits")
            colours[starts[r] + (y - x)] = <unsigned short>c
            y -= 1
        r -= 1
