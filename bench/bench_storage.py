"""The storage's own cost, on SQLite and on PostgreSQL, side by side: what the server
pays per stored move (a write-ahead turn committed alone, and 200 games' turns in one
group commit), per game started and finished (rated, with its log), and per leaderboard
read. Wall-clock time of each awaited call, median and p99 over the repetitions.

    python bench/bench_storage.py [--repeat 200] [--postgres URL]

SQLite is a file in a temporary directory (WAL, ``synchronous=FULL``: every commit
waits for the disk); PostgreSQL is ``--postgres`` (default: the project machines'
``postgresql://root@127.0.0.1:5432/test``), in a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg

from arena.game import Outcome, Termination
from arena.record import MatchRecord, to_jsonl
from arena.storage import Storage, StoredTurn, open_storage

PLAYERS = 50
"""Bots on the bench's ladder (their ratings make the leaderboard read)."""
BATCH = 200
"""Games whose turns one group commit stores (the server at 200 bots)."""


def record(game_id: str, players: tuple[str, str], turns: int = 0) -> MatchRecord:
    """A finished game of `turns` made-up moves."""
    from arena.record import TurnRecord

    return MatchRecord(
        game="substitution", settings={"moves": 50}, players=players,
        turns=tuple(TurnRecord(i, i % 2, "-1 6 0", 6, {"bank": [0] * 11}) for i in range(turns)),
        outcome=Outcome(0, (41, 30), Termination.NORMAL), seed=2**127 + 1, id=game_id,
        seed_commitment="0" * 64)


def turn(game_id: str, index: int) -> StoredTurn:
    line = json.dumps({"turn": index, "player": index % 2, "roll": 6, "move": "-1 6 0",
                       "bank": [0] * 11})
    return StoredTurn(game_id, index, line, (9500.0, 10000.0), 0, time.time())


async def timed(repeat: int, call: Callable[[int], Awaitable[object]]) -> list[float]:
    """Milliseconds of each of `repeat` awaited calls."""
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        await call(i)
        times.append((time.perf_counter() - start) * 1000)
    return times


async def measure(storage: Storage, repeat: int) -> dict[str, list[float]]:
    bots = [f"bot{i:02d}" for i in range(PLAYERS)]
    prefix = secrets.token_hex(3)
    running = [record(f"{prefix}-run{n}", (bots[n % PLAYERS], bots[(n + 1) % PLAYERS]))
               for n in range(BATCH)]
    for game in running:
        await storage.start_game(game, ladder=True, pair=None)
    figures: dict[str, list[float]] = {}
    figures["a move, committed alone"] = await timed(
        repeat, lambda i: storage.append_turns([turn(running[0].id, i)]))
    figures[f"{BATCH} games' moves, one commit"] = await timed(
        max(1, repeat // 10),
        lambda i: storage.append_turns([turn(game.id, 1000 + i) for game in running]))

    async def start(i: int) -> None:
        await storage.start_game(record(f"{prefix}-g{i}", (bots[i % PLAYERS], bots[(i * 7 + 1)
                                                                                % PLAYERS])),
                                 ladder=True, pair=None)

    figures["a game started"] = await timed(repeat, start)

    async def finish(i: int) -> None:
        game = record(f"{prefix}-g{i}", (bots[i % PLAYERS], bots[(i * 7 + 1) % PLAYERS]),
                      turns=100)
        await storage.finish_game(game, rated=True, log=to_jsonl(game))

    figures["a game finished (100-move log, rated)"] = await timed(repeat, finish)
    figures[f"the leaderboard read ({PLAYERS} bots)"] = await timed(
        repeat, lambda i: storage.leaderboard("substitution"))
    return figures


async def on_postgres(url: str, repeat: int) -> dict[str, list[float]]:
    schema = "arena_bench_" + secrets.token_hex(4)
    admin = await asyncpg.connect(url)
    await admin.execute(f"CREATE SCHEMA {schema}")
    try:
        storage = await open_storage(f"{url}{'&' if '?' in url else '?'}search_path={schema}")
        try:
            return await measure(storage, repeat)
        finally:
            await storage.close()
    finally:
        await admin.execute(f"DROP SCHEMA {schema} CASCADE")
        await admin.close()


async def on_sqlite(repeat: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as directory:
        storage = await open_storage(str(Path(directory) / "bench.sqlite"))
        try:
            return await measure(storage, repeat)
        finally:
            await storage.close()


def p99(times: list[float]) -> float:
    return sorted(times)[min(len(times) - 1, int(len(times) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--postgres", default="postgresql://root@127.0.0.1:5432/test")
    args = parser.parse_args()
    sqlite = asyncio.run(on_sqlite(args.repeat))
    postgres = asyncio.run(on_postgres(args.postgres, args.repeat))
    print(f"storage costs, ms per awaited call (median / p99), {args.repeat} repetitions "
          f"({max(1, args.repeat // 10)} of the group commit)")
    print(f"{'':42s} {'SQLite':>17s} {'PostgreSQL':>17s}")
    for name in sqlite:
        cells = [f"{statistics.median(t[name]):7.3f} / {p99(t[name]):7.3f}"
                 for t in (sqlite, postgres)]
        print(f"{name:42s} {cells[0]:>17s} {cells[1]:>17s}")


if __name__ == "__main__":
    main()
