"""The two-player race solved exactly: win probabilities under perfect play.

``W[a, b]`` is the probability that the player about to roll, with tiles ``a`` up,
wins against an opponent with tiles ``b`` up, both playing to win (not to be fast:
a player behind may gamble). After a roll the mover picks the best of its moves
(``1`` if it empties the board, else ``1 - W[b, a']``) and, where allowed, passing
(``1 - W[b, a]``). Moves shrink the total number of tiles up, so positions are solved
in order of that total; only passing links ``(a, b)`` with ``(b, a)``, and each such
pair is solved exactly as a 2x2 linear system under a passing policy, improving the
policy until it is stable (policy iteration), vectorised with numpy.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from arena.games.tiles.rules import ROLLS, Choice, Roll, move_options

__all__ = ["RaceTable", "race_table"]

_PROBS = np.array([w / 36.0 for _, w in ROLLS])
_NO_MOVE = -1.0


class RaceTable:
    """Win probabilities for the player to roll, indexed ``[own board, other board]``."""

    def __init__(self, tiles: int, voluntary_skip: bool, wins: npt.NDArray[np.float64]) -> None:
        self.tiles = tiles
        self.voluntary_skip = voluntary_skip
        self.wins = wins

    @property
    def first_player(self) -> float:
        full = (1 << self.tiles) - 1
        return float(self.wins[full, full])

    def option_values(self, board: int, other: int, roll: Roll) -> dict[Choice, float]:
        """The mover's winning chance after each legal choice."""
        values = {
            choice: 1.0 if after == 0 else 1.0 - float(self.wins[other, after])
            for choice, after in move_options(board, roll).items()
        }
        if self.voluntary_skip or not values:
            values[Choice.PASS] = 1.0 - float(self.wins[other, board])
        return values

    def best_choice(self, board: int, other: int, roll: Roll) -> Choice:
        values = self.option_values(board, other, roll)
        order = {Choice.PAIR: 0, Choice.SUM: 1, Choice.PASS: 2}
        return max(values, key=lambda c: (values[c], -order[c]))


def _children(tiles: int) -> npt.NDArray[np.int64]:
    """``children[r, k, board]``: the board after move k (pair, sum) on roll r, or -1."""
    size = 1 << tiles
    children = np.full((len(ROLLS), 2, size), -1, dtype=np.int64)
    for r, (roll, _) in enumerate(ROLLS):
        for board in range(size):
            for choice, after in move_options(board, roll).items():
                children[r, 0 if choice is Choice.PAIR else 1, board] = after
    return children


def _move_values(
    wins: npt.NDArray[np.float64],
    children: npt.NDArray[np.int64],
    movers: npt.NDArray[np.int64],
    others: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64]:
    """Best move value per roll for movers[i, j] against others[i, j]: shape (R, I, J)."""
    best = np.full((len(ROLLS), *movers.shape), _NO_MOVE)
    flat = wins.reshape(-1)
    base = others * wins.shape[1]
    for r in range(len(ROLLS)):
        for k in range(2):
            after = children[r, k][movers]
            value = 1.0 - flat.take(base + np.maximum(after, 0))
            value[after == 0] = 1.0
            value[after < 0] = _NO_MOVE
            np.maximum(best[r], value, out=best[r])
    return best


def _policy_terms(
    moves: npt.NDArray[np.float64], partner: npt.NDArray[np.float64] | None, voluntary: bool
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(sum of p * move value over rolls where the mover moves, mass of passing rolls)."""
    if voluntary and partner is not None:
        passing = (moves == _NO_MOVE) | (1.0 - partner[None] > moves + 1e-15)
    else:
        passing = moves == _NO_MOVE
    probs = _PROBS[:, None, None]
    moved = np.where(passing, 0.0, moves * probs).sum(axis=0)
    return moved, (passing * probs).sum(axis=0)


def _solve_pairs(
    moves1: npt.NDArray[np.float64], moves2: npt.NDArray[np.float64], voluntary: bool
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Solve x1 = F1(x2), x2 = F2(x1) elementwise (policy iteration on passing)."""
    x1 = x2 = None
    previous: tuple[bytes, bytes] | None = None
    for _ in range(100):
        a1, p1 = _policy_terms(moves1, x2, voluntary)
        a2, p2 = _policy_terms(moves2, x1, voluntary)
        den = np.maximum(1.0 - p1 * p2, 1e-15)
        x1 = (a1 + p1 * (1.0 - a2 - p2)) / den
        x2 = (a2 + p2 * (1.0 - a1 - p1)) / den
        if not voluntary:
            break
        signature = (p1.tobytes(), p2.tobytes())
        if signature == previous:
            break
        previous = signature
    assert x1 is not None and x2 is not None
    return x1, x2


def cache_dir() -> Path | None:
    """Where solved race tables are kept (``$ARENA_CACHE``; unset: not kept)."""
    path = os.environ.get("ARENA_CACHE")
    return Path(path) if path else None


@functools.cache
def race_table(tiles: int, voluntary_skip: bool = True) -> RaceTable:
    """The race table, from the disk cache (`cache_dir`) or solved now.

    12 tiles is 16.7M positions: about a minute and 134 MB.
    """
    directory = cache_dir()
    name = f"tiles-race-{tiles}-{'skip' if voluntary_skip else 'noskip'}.npy"
    if directory is not None and (directory / name).exists():
        return RaceTable(tiles, voluntary_skip, np.load(directory / name))
    table = solve_race(tiles, voluntary_skip)
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / name, table.wins)
    return table


def solve_race(tiles: int, voluntary_skip: bool = True) -> RaceTable:
    size = 1 << tiles
    wins = np.zeros((size, size))
    children = _children(tiles)
    by_count: list[npt.NDArray[np.int64]] = [
        np.array([b for b in range(size) if b.bit_count() == c], dtype=np.int64)
        for c in range(tiles + 1)
    ]
    for total in range(2, 2 * tiles + 1):
        for count_a in range(max(1, total - tiles), total // 2 + 1):
            boards_b = by_count[total - count_a]
            chunk = max(1, 40_000 // len(boards_b))
            for start in range(0, len(by_count[count_a]), chunk):
                boards_a = by_count[count_a][start : start + chunk]
                grid_a, grid_b = np.meshgrid(boards_a, boards_b, indexing="ij")
                moves1 = _move_values(wins, children, grid_a, grid_b)
                moves2 = _move_values(wins, children, grid_b, grid_a)
                x1, x2 = _solve_pairs(moves1, moves2, voluntary_skip)
                wins[grid_a, grid_b] = x1
                wins[grid_b, grid_a] = x2
    return RaceTable(tiles, voluntary_skip, wins)
