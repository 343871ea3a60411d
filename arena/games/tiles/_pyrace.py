"""The race solver of `_race.pyx` vectorised with numpy: the same algorithm, slower.

Used when the extension is not built, and as the compiled solver's reference in the
tests and `bench/bench_tiles.py`. Positions are solved in blocks (every pair of boards
with given numbers of tiles up); policy iteration runs on a whole block until no
passing mass in it changes.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["solve_wins"]

_NO_MOVE = -1.0


def _move_values(
    wins: npt.NDArray[np.float64],
    children: npt.NDArray[np.intc],
    movers: npt.NDArray[np.int64],
    others: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64]:
    """Best move value per roll for movers[i, j] against others[i, j]: shape (R, I, J)."""
    rolls = children.shape[0]
    best = np.full((rolls, *movers.shape), _NO_MOVE)
    flat = wins.reshape(-1)
    base = others * wins.shape[1]
    for r in range(rolls):
        for k in range(2):
            after = children[r, k][movers]
            value = 1.0 - flat.take(base + np.maximum(after, 0))
            value[after == 0] = 1.0
            value[after < 0] = _NO_MOVE
            np.maximum(best[r], value, out=best[r])
    return best


def _policy_terms(
    moves: npt.NDArray[np.float64],
    probs: npt.NDArray[np.float64],
    partner: npt.NDArray[np.float64] | None,
    voluntary: bool,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(sum of p * move value over rolls where the mover moves, mass of passing rolls)."""
    if voluntary and partner is not None:
        passing = (moves == _NO_MOVE) | (1.0 - partner[None] > moves + 1e-15)
    else:
        passing = moves == _NO_MOVE
    weights = probs[:, None, None]
    moved = np.where(passing, 0.0, moves * weights).sum(axis=0)
    return moved, (passing * weights).sum(axis=0)


def _solve_pairs(
    moves1: npt.NDArray[np.float64],
    moves2: npt.NDArray[np.float64],
    probs: npt.NDArray[np.float64],
    voluntary: bool,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Solve x1 = F1(x2), x2 = F2(x1) elementwise (policy iteration on passing)."""
    x1 = x2 = None
    previous: tuple[bytes, bytes] | None = None
    for _ in range(100):
        a1, p1 = _policy_terms(moves1, probs, x2, voluntary)
        a2, p2 = _policy_terms(moves2, probs, x1, voluntary)
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


def solve_wins(
    children: npt.NDArray[np.intc], probs: npt.NDArray[np.float64], voluntary: bool
) -> npt.NDArray[np.float64]:
    """The table ``wins[a, b]``; arguments as for the compiled `_race.solve_wins`."""
    size = children.shape[2]
    tiles = size.bit_length() - 1
    wins = np.zeros((size, size))
    by_count: list[npt.NDArray[np.int64]] = [
        np.array([b for b in range(size) if b.bit_count() == c], dtype=np.int64)
        for c in range(tiles + 1)
    ]
    for total in range(2, 2 * tiles + 1):
        for count_a in range(max(1, total - tiles), total // 2 + 1):
            boards_b = by_count[total - count_a]
            chunk = max(1, 40_000 // len(boards_b))
            for begin in range(0, len(by_count[count_a]), chunk):
                boards_a = by_count[count_a][begin : begin + chunk]
                grid_a, grid_b = np.meshgrid(boards_a, boards_b, indexing="ij")
                moves1 = _move_values(wins, children, grid_a, grid_b)
                moves2 = _move_values(wins, children, grid_b, grid_a)
                x1, x2 = _solve_pairs(moves1, moves2, probs, voluntary)
                wins[grid_a, grid_b] = x1
                wins[grid_b, grid_a] = x2
    return wins
