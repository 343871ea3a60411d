# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The two-player race solved exactly, compiled: the loop of `race.py`'s docstring.

``wins[a, b]`` (the mover's winning chance, own board ``a``, the other's ``b``) is
filled in order of the total number of tiles up. A position ``(a, b)`` and its mirror
``(b, a)`` are solved together: the best move value per roll only needs positions with
fewer tiles up, and passing links the two, so under a passing policy they are a 2x2
linear system; the policy is improved until it repeats (policy iteration). This is the
algorithm of the numpy version (`_pyrace.py`), one pair at a time, without the GIL.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

cdef enum:
    MAX_ROLLS = 32
    MAX_ITERATIONS = 100


cdef struct Moves:
    # The rolls on which a board has a move: their chances and the (one or two) boards
    # the moves leave; `stuck` is the chance of a roll without a move.
    int count
    double stuck
    double probs[MAX_ROLLS]
    int first[MAX_ROLLS]
    int second[MAX_ROLLS]


cdef inline void _best_moves(
    const double[:, ::1] wins, const Moves* moves, int other, double* best
) noexcept nogil:
    """best[i]: the mover's best move value on its i-th movable roll.

    ``1 - wins[other, after]``, which is 1 for the empty board: ``wins[other, 0]`` is 0.
    """
    cdef int i
    cdef double w1, w2
    for i in range(moves.count):
        w1 = wins[other, moves.first[i]]
        w2 = wins[other, moves.second[i]]
        best[i] = 1.0 - (w1 if w1 < w2 else w2)


cdef inline void _forced_terms(
    const Moves* moves, const double* best, double* moved, double* passing
) noexcept nogil:
    """The mover's expected value from the rolls it moves on, and the passing mass,
    when it passes only if it cannot move."""
    cdef int i
    cdef double total = 0.0
    for i in range(moves.count):
        total += best[i] * moves.probs[i]
    moved[0] = total
    passing[0] = moves.stuck


cdef inline void _policy_terms(
    const Moves* moves, const double* best, double partner, double* moved, double* passing
) noexcept nogil:
    """The same when the mover also passes where passing, which is worth ``1 - partner``,
    beats its best move (``stays`` is 0 or 1: no branch to mispredict)."""
    cdef int i
    cdef double total = 0.0, mass = moves.stuck, stay = 1.0 - partner, stays
    for i in range(moves.count):
        stays = <double>(stay > best[i] + 1e-15)
        mass += stays * moves.probs[i]
        total += (1.0 - stays) * (best[i] * moves.probs[i])
    moved[0] = total
    passing[0] = mass


cdef inline void _solve_pair(
    double[:, ::1] wins, const Moves* table, bint voluntary, int a, int b
) noexcept nogil:
    cdef double best1[MAX_ROLLS]
    cdef double best2[MAX_ROLLS]
    cdef const Moves* moves1 = &table[a]
    cdef const Moves* moves2 = &table[b]
    cdef double a1, p1, a2, p2, den, x1, x2, last_a1, last_p1, last_a2, last_p2
    cdef int iteration
    _best_moves(wins, moves1, b, best1)
    _best_moves(wins, moves2, a, best2)
    # The first policy passes only when stuck; later ones compare with the partner.
    _forced_terms(moves1, best1, &a1, &p1)
    _forced_terms(moves2, best2, &a2, &p2)
    for iteration in range(MAX_ITERATIONS):
        den = 1.0 - p1 * p2
        if den < 1e-15:
            den = 1e-15
        x1 = (a1 + p1 * (1.0 - a2 - p2)) / den
        x2 = (a2 + p2 * (1.0 - a1 - p1)) / den
        if not voluntary:
            break
        last_a1, last_p1, last_a2, last_p2 = a1, p1, a2, p2
        _policy_terms(moves1, best1, x2, &a1, &p1)
        _policy_terms(moves2, best2, x1, &a2, &p2)
        if a1 == last_a1 and p1 == last_p1 and a2 == last_a2 and p2 == last_p2:
            break  # the policy is stable: (x1, x2) is its solution
    wins[a, b] = x1
    wins[b, a] = x2


cdef void _solve_level(
    double[:, ::1] wins, const Moves* table, bint voluntary, const int[::1] order,
    const int[::1] start, int tiles, int total, int part, int parts,
) noexcept nogil:
    """Every position with `total` tiles up whose row (mover's board) is ``part`` modulo
    `parts`: positions of the same total depend only on smaller totals."""
    cdef int count_a, count_b, i, j, a, b, row = 0
    for count_a in range(max(1, total - tiles), total // 2 + 1):
        count_b = total - count_a
        for i in range(start[count_a], start[count_a + 1]):
            row += 1
            if row % parts != part:
                continue
            a = order[i]
            for j in range(start[count_b], start[count_b + 1]):
                b = order[j]
                if count_a == count_b and b < a:
                    continue  # solved as (b, a)
                _solve_pair(wins, table, voluntary, a, b)


cdef class _Solver:
    """The tables of one solve, shared by the threads that fill `wins`."""

    cdef object table_bytes
    cdef const Moves* table
    cdef double[:, ::1] wins
    cdef int[::1] order
    cdef int[::1] start
    cdef int tiles
    cdef bint voluntary

    def level(self, int total, int part, int parts):
        with nogil:
            _solve_level(self.wins, self.table, self.voluntary, self.order, self.start,
                         self.tiles, total, part, parts)


def solve_wins(const int[:, :, ::1] children not None, const double[::1] probs not None,
               bint voluntary, int threads=1):
    """The table ``wins[a, b]`` for boards of ``children.shape[2]`` masks.

    `children[r, k, board]` is the board left by move k (pair, sum) on roll r, or -1;
    `probs[r]` is the chance of roll r. `threads` share each level of the table.
    """
    cdef int rolls = children.shape[0]
    cdef int size = children.shape[2]
    if rolls > MAX_ROLLS or probs.shape[0] != rolls or children.shape[1] != 2:
        raise ValueError("children must be (rolls <= 32, 2, boards) with one probability a roll")
    if size & (size - 1) or size < 2:
        raise ValueError(f"the number of boards must be a power of two, not {size}")
    if threads < 1:
        raise ValueError(f"threads must be positive, not {threads}")
    cdef _Solver solver = _Solver()
    solver.tiles = size.bit_length() - 1
    solver.voluntary = voluntary
    # Boards grouped by the number of tiles up: order[start[c]:start[c + 1]] hold c tiles.
    solver.order = np.array(
        sorted(range(size), key=lambda board: (board.bit_count(), board)), dtype=np.intc
    )
    solver.start = np.array(
        [sum(1 for board in range(size) if board.bit_count() < c)
         for c in range(solver.tiles + 2)],
        dtype=np.intc,
    )
    solver.table_bytes = np.zeros(size * sizeof(Moves), dtype=np.uint8)
    cdef unsigned char[::1] table_view = solver.table_bytes
    cdef Moves* table = <Moves*>&table_view[0]
    solver.table = table
    cdef int board, r, first, second, n
    for board in range(size):
        n = 0
        for r in range(rolls):
            first = children[r, 0, board]
            second = children[r, 1, board]
            if first < 0 and second < 0:
                table[board].stuck += probs[r]
                continue
            table[board].probs[n] = probs[r]
            table[board].first[n] = first if first >= 0 else second
            table[board].second[n] = second if second >= 0 else first
            n += 1
        table[board].count = n
    result = np.zeros((size, size))
    solver.wins = result
    levels = range(2, 2 * solver.tiles + 1)
    if threads == 1:
        for total in levels:
            solver.level(total, 0, 1)
        return result
    with ThreadPoolExecutor(threads) as pool:
        for total in levels:
            list(pool.map(solver.level, [total] * threads, range(threads), [threads] * threads))
    return result
