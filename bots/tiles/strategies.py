"""The tile bots' decision rules, as plain functions of (board, roll).

* `random_choice` (seed strategy 1): a random possible move; pass only when stuck.
* `probability_choice` (seed strategy 2): when both moves are possible, minimise the
  seed's K: after turning down x and y it is p(x + y), the chance that the next roll
  lets tile x + y go down; after turning down x + y it is p(x) + p(y). The seed
  minimises K as written, and so does this bot (the mixed strategy is always pure).
* `zermelo_choice` (seed strategy 3): the move with the fewest expected turns left,
  from the exact solo table (`arena.games.tiles.expected`).
* `race_choice`: the move with the highest chance to win the two-player race.
"""

from __future__ import annotations

import random

from arena.games.tiles.expected import solo_table
from arena.games.tiles.race import race_table
from arena.games.tiles.rules import ROLLS, Choice, Roll, move_options

__all__ = ["probability_choice", "race_choice", "random_choice", "tile_chance", "zermelo_choice"]


def random_choice(board: int, roll: Roll, rng: random.Random) -> Choice:
    options = sorted(move_options(board, roll), key=lambda c: c.value)
    return rng.choice(options) if options else Choice.PASS


def tile_chance(board: int, tile: int) -> float:
    """The chance that the next roll allows turning `tile` down on `board`."""
    if tile > 12 or not (board >> (tile - 1)) & 1:
        return 0.0
    hits = 0
    for (x, y), weight in ROLLS:
        pair = (1 << (x - 1)) | (1 << (y - 1))
        if (tile in (x, y) and board & pair == pair) or x + y == tile:
            hits += weight
    return hits / 36


def probability_choice(board: int, roll: Roll, rng: random.Random) -> Choice:
    options = move_options(board, roll)
    if len(options) < 2:
        return next(iter(options), Choice.PASS)
    x, y = roll
    k_pair = tile_chance(options[Choice.PAIR], x + y)
    k_sum = tile_chance(options[Choice.SUM], x) + (
        tile_chance(options[Choice.SUM], y) if x != y else 0.0
    )
    return Choice.PAIR if k_pair <= k_sum else Choice.SUM


def zermelo_choice(board: int, roll: Roll, tiles: int, voluntary_skip: bool) -> Choice:
    return solo_table(tiles, voluntary_skip).best_choice(board, roll)


def race_choice(board: int, other: int, roll: Roll, tiles: int, voluntary_skip: bool) -> Choice:
    return race_table(tiles, voluntary_skip).best_choice(board, other, roll)
