"""The arena server's instructions per move, counted by valgrind: a figure the machine's
load does not move (unlike CPU time, which a shared machine's other jobs inflate).

Runs `arena serve` under ``valgrind --tool=cachegrind --cache-sim=no`` (every thread of
the process, the database thread included; the kernel's work and the database server's,
for PostgreSQL, are not counted), plays `--games` games of substitution ('medium', 50
moves a player) with `--inflight` at a time between SDK random bots, and counts the
instructions; a second run plays `--games` times `--times` games, and the difference
over the difference in moves is the instructions per move (the start and the end of
the server cancel out). Under valgrind the server runs some fifty times slower than
it does, so the moves a commit gathers differ from a real run: a figure to compare two
revisions with, side by side (`--baseline REV`), not a measure of the speed.

    python bench/bench_instructions.py [--db sqlite | --db postgresql://...]
                                       [--baseline REV] [--no-write-ahead]
                                       [--games 20] [--times 5] [--inflight 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import tempfile
from pathlib import Path

from bench_server import checkout, fresh_database
from harness import ROOT, TimedClient, arena_server, free_port

from arena.games.substitution import Settings
from arena.storage import open_storage
from clients.operator import Operator
from clients.sdk import BuiltinBot


async def count(root: Path, db: str, games: int, inflight: int, flags: list[str]
                ) -> tuple[int, int]:
    """Instructions of the server of the checkout `root` over `games` games, and moves."""
    storage = await open_storage(db)
    names = [f"bot{i:03d}" for i in range(2 * inflight)]
    tokens = {name: await storage.add_bot(name) for name in names}
    operator_token = await storage.add_bot("bench-operator", operator=True)
    await storage.close()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cachegrind.out")
        port = free_port()
        url = f"ws://127.0.0.1:{port}/"
        async with arena_server(
                port, db, "--no-ladder", "--move-ms", "120000", "--first-move-ms", "120000",
                "--max-connections-per-address", str(len(names) + 10), *flags, root=root,
                wrapper=("valgrind", "--tool=cachegrind", "--cache-sim=no",
                         f"--cachegrind-out-file={out}"), starts_within=600):
            clients = [TimedClient(url, tokens[name], BuiltinBot("random")) for name in names]
            tasks = [asyncio.create_task(client.run()) for client in clients]
            for client in clients:
                await client.connected.wait()
            settings = Settings.preset("medium", 50).to_json()
            left = games

            async def pair(operator: Operator, number: int) -> None:
                nonlocal left
                seed = 1000 * number
                while left > 0:
                    left -= 1
                    await operator.play_log("substitution", settings,
                                            [names[2 * number], names[2 * number + 1]],
                                            seed=seed)
                    seed += 1

            async with Operator(url, operator_token) as operator:
                await asyncio.gather(*(pair(operator, number) for number in range(inflight)))
            moves = sum(len(client.rtts) for client in clients)
            for client in clients:
                await client.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
        found = re.search(r"^summary: (\d+)", Path(out).read_text(), re.MULTILINE)
        assert found is not None, "valgrind wrote no summary"
        return int(found.group(1)), moves


def per_move(root: Path, db: str, args: argparse.Namespace) -> float:
    async def run(games: int) -> tuple[int, int]:
        with tempfile.TemporaryDirectory() as tmp:
            async with fresh_database(db, tmp) as url:
                return await count(root, url, games, args.inflight, args.flags)

    few = asyncio.run(run(args.games))
    many = asyncio.run(run(args.games * args.times))
    return (many[0] - few[0]) / (many[1] - few[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="sqlite")
    parser.add_argument("--baseline", metavar="REV", default=None)
    parser.add_argument("--no-write-ahead", action="store_true")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--times", type=int, default=5)
    parser.add_argument("--inflight", type=int, default=20)
    args = parser.parse_args()
    args.flags = ["--no-write-ahead"] if args.no_write_ahead else []
    this = per_move(ROOT, args.db, args)
    print(f"{args.db.split('?')[0]}: {this:,.0f} instructions per move (this checkout)")
    if args.baseline is not None:
        with contextlib.ExitStack() as stack:
            base = per_move(stack.enter_context(checkout(args.baseline)), args.db, args)
        print(f"{args.db.split('?')[0]}: {base:,.0f} instructions per move ({args.baseline}); "
              f"this checkout x{this / base:.3f}")


if __name__ == "__main__":
    main()
