"""kill -9 of `arena serve` with the ladder in full swing, a restart: how many games were
in flight, how many were aborted (the promise: none), how long until they play again.

Starts `arena serve` (its ladder on substitution 'medium', `--moves` moves a player) in
a subprocess, connects `--bots` SDK clients (random bots) from this process, lets the
ladder play until `--games` games are over (and `--kill-delay` more seconds), then `kill -9`s the server with games in
flight and starts it again on the same port and database. Reports the games in flight
at the kill (stored as running, with how many stored moves), the time from the restart
until `/healthz` answers (games read back and replayed), until every resumed game has
a fresh `your_turn` out (all its players back: the bots reconnect with their usual
back-off, at most `--max-reconnect-delay`), and until every one of them is over; and
how they ended (aborted: the promise is 0).

    python bench/bench_restart.py [--bots 200] [--db sqlite | --db postgresql://...]
                                  [--games 200] [--moves 20]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import signal
import subprocess
import sys
import tempfile
import time

from bench_server import fresh_database, serve_flags
from harness import ROOT, free_port, http_get

from arena.storage import open_storage
from clients.sdk import ArenaClient, BuiltinBot
from protocol import Message


def start(port: int, db: str, args: argparse.Namespace, flags: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(  # the caller waits for /healthz
        [sys.executable, "-c", "from arena.cli import main; main()", "serve", "--port", str(port),
         "--db", db, "--moves", str(args.moves), "--interval", "0.05", "--max-games", "2",
         "--pairings-per-hour", "0", "--grace-ms", "60000", *flags],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def healthy(port: int, server: subprocess.Popen[bytes]) -> float:
    """Wait for /healthz; the time it took."""
    started = time.perf_counter()
    while True:
        try:
            await asyncio.to_thread(http_get, f"http://127.0.0.1:{port}/healthz")
            return time.perf_counter() - started
        except OSError:
            assert server.poll() is None, "the server did not start"
            await asyncio.sleep(0.02)


async def run(args: argparse.Namespace, db: str) -> None:
    storage = await open_storage(db)
    tokens = [await storage.add_bot(f"bot{i:03d}") for i in range(args.bots)]
    await storage.close()
    port = free_port()
    url = f"ws://127.0.0.1:{port}/"
    flags = await asyncio.to_thread(serve_flags, ROOT, args.bots)
    server = start(port, db, args, flags)
    await healthy(port, server)
    restarted_at = 0.0
    turns_after: dict[str, float] = {}  # game -> when its first your_turn after the restart came
    ended: collections.Counter[str] = collections.Counter()

    def watch(message: Message) -> None:
        if restarted_at and message.type == "your_turn":
            turns_after.setdefault(message["game_id"], time.perf_counter())

    clients = [ArenaClient(url, token, BuiltinBot("random"), reconnect_delay=0.05,
                           max_reconnect_delay=args.max_reconnect_delay) for token in tokens]
    for client in clients:
        client.on_message = watch
    tasks = [asyncio.create_task(client.run()) for client in clients]

    def finished() -> set[str]:
        return {result.game_id for client in clients for result in client.results}

    try:
        while len(finished()) < args.games:
            await asyncio.sleep(0.05)
        await asyncio.sleep(args.kill_delay)  # off the wave of games that just began
        server.send_signal(signal.SIGKILL)
        await asyncio.to_thread(server.wait)
        storage = await open_storage(db)
        running = {game.id: len(game.turns) for game in await storage.running_games()}
        await storage.close()
        print(f"{args.bots} bots, {len(finished())} games over; kill -9 with {len(running)} "
              f"games in flight ({sum(running.values())} stored moves, "
              f"{sum(1 for n in running.values() if n)} games with moves)")
        restarted_at = time.perf_counter()
        server = start(port, db, args, flags)
        up = await healthy(port, server)
        while not set(running) <= set(turns_after) | finished():
            await asyncio.sleep(0.01)
        resumed = max([turns_after[g] for g in running if g in turns_after] or [restarted_at])
        while not set(running) <= finished():
            await asyncio.sleep(0.05)
        done = time.perf_counter()
        for client in clients:
            for result in client.results:
                if result.game_id in running:
                    ended[result.termination] += 1
    finally:
        for client in clients:
            await client.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        server.send_signal(signal.SIGTERM)
        await asyncio.to_thread(server.wait, 30)
    storage = await open_storage(db)
    statuses = collections.Counter()
    for game_id in running:
        row = await storage.game(game_id)
        statuses[row.status if row is not None else "missing"] += 1
    await storage.close()
    print(f"restart: /healthz answers after {up:.2f} s; every resumed game has its "
          f"your_turn out {resumed - restarted_at:.2f} s after the restart; all "
          f"{len(running)} over {done - restarted_at:.2f} s after it")
    print(f"the games in flight at the kill: {dict(statuses)} (aborted: "
          f"{statuses.get('aborted', 0)}); terminations as the bots saw them (each game "
          f"twice): {dict(ended)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--games", type=int, default=200, help="games over before the kill")
    parser.add_argument("--moves", type=int, default=20, help="turns per player per game")
    parser.add_argument("--kill-delay", type=float, default=0.5,
                        help="seconds after --games games are over to kill the server")
    parser.add_argument("--max-reconnect-delay", type=float, default=1.0)
    parser.add_argument("--db", default="sqlite",
                        help="sqlite (a fresh file) or a postgresql:// URL (a fresh schema, "
                             "dropped after)")
    args = parser.parse_args()
    logging.getLogger("arena.client").setLevel(logging.ERROR)  # the reconnects are expected

    async def main() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            async with fresh_database(args.db, tmp) as db:
                await run(args, db)

    asyncio.run(main())


if __name__ == "__main__":
    main()
