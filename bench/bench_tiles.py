"""Dice-tile figures: exact expected turns, race winning chance, solve times.

    PYTHONPATH=. python bench/bench_tiles.py [--race-tiles N] [--no-reference]

The race table is solved by the compiled solver (on every CPU, then on one) and by its
numpy reference side by side (15-20 s for 12 tiles with voluntary skip; `--no-reference`
skips it), then stored in and loaded from a temporary disk cache.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from arena.games.tiles import race
from arena.games.tiles.expected import solo_table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--race-tiles", type=int, default=12)
    parser.add_argument("--no-reference", action="store_true", help="skip the numpy solver")
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
            f"  {tiles:2} tiles: {solo_table(tiles).full:9.4f} expected turns (the seed's rules), "
            f"{solo_table(tiles, True).full:9.4f} (voluntary skip)"
        )
    tiles = args.race_tiles
    threads = race._default_threads()
    print(f"race, {tiles} tiles (compiled: {race.compiled}, {threads} CPUs):")
    for voluntary in (True, False):
        times = []
        for count in (threads, 1):
            started = time.perf_counter()
            table = race.solve_race(tiles, voluntary, threads=count)
            times.append(f"compiled {count} thread{'s' if count > 1 else ''} "
                         f"{time.perf_counter() - started:.2f} s")
        if not args.no_reference:
            started = time.perf_counter()
            reference = race.solve_race(tiles, voluntary, reference=True)
            times.append(f"numpy {time.perf_counter() - started:.1f} s (largest difference "
                         f"{np.abs(reference.wins - table.wins).max():.1e})")
        print(f"  voluntary skip {voluntary!s:5}: first player wins {table.first_player:.6f}; "
              + ", ".join(times))
    with tempfile.TemporaryDirectory() as directory:
        os.environ["ARENA_CACHE"] = directory
        started = time.perf_counter()
        race.race_table(tiles)
        solved = time.perf_counter() - started
        race._cached_table.cache_clear()
        started = time.perf_counter()
        race.race_table(tiles)
        print(f"  disk cache: solve and store {solved:.2f} s, load (checksummed) "
              f"{time.perf_counter() - started:.3f} s, "
              f"{race.cache_path(tiles, False).stat().st_size / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
