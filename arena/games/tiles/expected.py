"""Solo play solved exactly: the fewest expected turns from every set of tiles up.

``E[S]`` is the expected number of turns still needed from board ``S`` under optimal
play (``E[empty] = 0``). A turn rolls r with probability ``p_r`` and then moves to the
best board reachable, or stays (a pass). With voluntary passing::

    E[S] = 1 + sum_r p_r * min(E[S], m_r(S)),   m_r(S) = min over moves of E[S']

The state can repeat (nothing is turned down), so this is a fixed point in ``E[S]``
itself. Every move turns a tile down, so boards are solved in order of size, and the
one-variable equation is solved exactly: accept exactly the rolls whose best move
beats staying, i.e. for the rolls sorted by ``m_r``, ``E = (1 + sum_{i<k} p_i m_i) /
sum_{i<k} p_i`` minimised over ``k``. Without voluntary passing a roll with a move must
be used: ``E[S] = (1 + sum_{r movable} p_r m_r) / sum_{r movable} p_r``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from arena.games.tiles.rules import ROLLS, Choice, Roll, move_options

__all__ = ["SoloTable", "solo_table"]


@dataclass(frozen=True)
class SoloTable:
    """Expected turns per board, and the optimal choice per board and roll."""

    tiles: int
    voluntary_skip: bool
    expected: tuple[float, ...]
    """Indexed by board mask."""

    def best_choice(self, board: int, roll: Roll) -> Choice:
        """The choice with the fewest expected turns afterwards (pass if staying wins)."""
        options = move_options(board, roll)
        if not options:
            return Choice.PASS
        choice, after = min(
            options.items(), key=lambda item: (self.expected[item[1]], item[0].value)
        )
        if self.voluntary_skip and self.expected[board] < self.expected[after]:
            return Choice.PASS
        return choice

    @property
    def full(self) -> float:
        return self.expected[(1 << self.tiles) - 1]


@functools.cache
def solo_table(tiles: int, voluntary_skip: bool = False) -> SoloTable:
    size = 1 << tiles
    expected = [0.0] * size
    boards = sorted(range(1, size), key=lambda b: b.bit_count())
    for board in boards:
        accepted: list[tuple[float, int]] = []
        for roll, weight in ROLLS:
            options = move_options(board, roll)
            if options:
                accepted.append((min(expected[a] for a in options.values()), weight))
        accepted.sort()
        if voluntary_skip:
            best = float("inf")
            mass = 0
            total = 36.0
            for m, weight in accepted:
                mass += weight
                total += weight * m
                best = min(best, total / mass)
            expected[board] = best
        else:
            mass = sum(w for _, w in accepted)
            expected[board] = (36.0 + sum(m * w for m, w in accepted)) / mass
    return SoloTable(tiles, voluntary_skip, tuple(expected))
