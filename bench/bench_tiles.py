"""Dice-tile figures: exact expected turns, race winning chance, solve times.

    PYTHONPATH=. python bench/bench_tiles.py [--race-tiles N]

The race for 12 tiles takes about a minute (set ARENA_CACHE to keep the table).
"""

from __future__ import annotations

import argparse
import time

from arena.games.tiles.expected import solo_table
from arena.games.tiles.race import solve_race


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--race-tiles", type=int, default=10)
    args = parser.parse_args()
    for voluntary in (True, False):
        started = time.perf_counter()
        table = solo_table.__wrapped__(12, voluntary)
        print(
            f"solo, 12 tiles, voluntary skip {voluntary!s:5}: expected turns {table.full:.6f} "
            f"({time.perf_counter() - started:.2f} s)"
        )
    for tiles in range(1, 13):
        print(
            f"  {tiles:2} tiles: {solo_table(tiles).full:9.4f} expected turns (skip allowed), "
            f"{solo_table(tiles, False).full:9.4f} (no skip)"
        )
    for voluntary in (True, False):
        started = time.perf_counter()
        race = solve_race(args.race_tiles, voluntary)
        print(
            f"race, {args.race_tiles} tiles, voluntary skip {voluntary!s:5}: first player wins "
            f"{race.first_player:.6f} ({time.perf_counter() - started:.1f} s)"
        )


if __name__ == "__main__":
    main()
