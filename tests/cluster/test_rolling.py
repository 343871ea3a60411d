"""A rolling restart of a cluster (issue 24, docs/cluster.md "Rolling restarts"): every
process of 2 gateways and 2 hosts stopped with SIGTERM and started again, one after the
other, while 20 bots play the ladder; nothing is lost."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.cluster.test_roles import bots, check_stored, cluster, in_flight_told
from tests.server.test_durability import announced_ids, opened, start_server
from tests.waiting import wait_for

BOTS = 20


async def finished(db: str, games: set[str]) -> bool:
    """Whether every game of `games` is stored as over (none still running)."""
    async with opened(db) as storage:
        rows = [await storage.game(game_id) for game_id in games]
    return all(row is not None and row.status == "finished" for row in rows)


async def test_a_rolling_restart_loses_no_game_and_no_result(tmp_path: Path) -> None:
    """Each process in turn: SIGTERM (a gateway closes its bots with 1012, they go to
    the other; a host suspends its games, stores their moves and hands them over), wait
    for its end, start it again under its name and port, wait until it answers. No game
    is aborted, every announced result is stored with the moves the bots were told of,
    every game in flight before a restart finishes and each of its bots hears it, and
    the ladder goes on after.

    A game that ends while one of its bots moves from a stopped gateway to the other is
    announced to it on the other."""
    async with cluster(tmp_path) as running:
        async with opened(running.db) as storage:
            tokens = {f"bot{n:02}": await storage.add_bot(f"bot{n:02}") for n in range(BOTS)}
        order = ("host-1", "host-2", "gateway-1", "gateway-2")
        roles = {name: name.split("-")[0] for name in order}
        for name in order:
            await running.start(name, roles[name])
        first, second = (f"ws://127.0.0.1:{running.ports[name]}/"
                         for name in ("gateway-1", "gateway-2"))
        urls = {name: f"{first},{second}" if n % 2 else f"{second},{first}"
                for n, name in enumerate(tokens)}
        async with bots(urls, tokens) as (clients, witnesses):
            await wait_for(lambda: len(announced_ids(clients)) >= 4, 60, "ladder games over")
            caught: set[str] = set()
            for name in ("gateway-1", "host-1", "gateway-2", "host-2"):
                await wait_for(lambda: in_flight_told(witnesses, clients, 3), 30,
                               "games in flight")
                caught |= set(in_flight_told(witnesses, clients, 3))
                process = running.processes[name]
                process.send_signal(signal.SIGTERM)
                assert await asyncio.to_thread(process.wait, 30) == 0
                running.processes[name] = await start_server(
                    running.db, running.ports[name], running.stderr(name), "--role",
                    roles[name], "--bus", running.bus, "--host-id", name,
                    "--lease-seconds", "2")
            await wait_for(lambda: finished(running.db, caught), 60,
                           "every game caught in flight by a restart is over and stored")

            def unheard() -> set[tuple[str, str]]:
                """(bot, game) of the games caught whose end a bot playing it missed."""
                return {(name, game_id) for game_id in caught
                        for (name, witness), client in zip(witnesses.items(), clients,
                                                           strict=True)
                        if game_id in witness.told
                        and game_id not in {result.game_id for result in client.results}}

            await wait_for(lambda: not unheard(), 30, "each bot hears its games' ends")
            count = len(announced_ids(clients))
            await wait_for(lambda: len(announced_ids(clients)) >= count + 10, 60,
                           "the ladder goes on after the last restart")
        assert caught
        await check_stored(running.db, clients, witnesses)
