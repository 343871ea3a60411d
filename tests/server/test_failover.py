"""Nothing lost when a server dies (issue 24, docs/cluster.md "Hosts on one database"):
two ``arena serve`` processes on one PostgreSQL schema, each the host of its own games;
the bots, SDK clients given both servers' URLs, play on the first. It is killed
(``kill -9``, or stopped with SIGTERM) in the middle of games: the bots go to the other
server, which takes the games over (at once after a SIGTERM, which ends its leases; once
the leases run out after a ``kill -9``), resumes them from their stored moves, and every
one finishes normally, none aborted, every announced result stored."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from arena.record import read_jsonl
from arena.validate import validate_record
from clients.sdk import ArenaClient, BuiltinBot, CannotConnect
from tests.server.test_durability import (
    Witness,
    announced_ids,
    free_port,
    in_flight,
    opened,
    start_server,
)
from tests.storage.conftest import database_url
from tests.waiting import wait_for

LEASE = "2"
"""Seconds a lease lasts in these tests (``--lease-seconds``): a killed server's games
are taken over within about 2.7 s."""


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM])
async def test_the_other_server_takes_a_dead_servers_games_over(
        tmp_path: Path, stop: signal.Signals) -> None:
    async with database_url("postgresql", tmp_path) as db:
        async with opened(db) as storage:
            tokens = {name: await storage.add_bot(name) for name in ("alice", "bob", "carol")}
        ports = free_port(), free_port()
        urls = [f"ws://127.0.0.1:{port}/" for port in ports]
        stderr = [tmp_path / "first.stderr", tmp_path / "second.stderr"]
        first = await start_server(db, ports[0], stderr[0], "--host-id", "first",
                                   "--lease-seconds", LEASE)
        second = await start_server(db, ports[1], stderr[1], "--host-id", "second",
                                    "--lease-seconds", LEASE)
        witnesses = {name: Witness() for name in tokens}
        clients = []
        for name, token in tokens.items():
            client = ArenaClient(",".join(urls), token, witnesses[name], reconnect_delay=0.05,
                                 max_reconnect_delay=0.2)
            client.on_message = witnesses[name].heard
            clients.append(client)
        tasks = [asyncio.create_task(client.run()) for client in clients]
        try:
            def deep_in_a_game() -> bool:
                return len(announced_ids(clients)) >= 2 and any(
                    max(told, default=0) >= 5 and game_id not in announced_ids(clients)
                    for witness in witnesses.values() for game_id, told in witness.told.items())

            await wait_for(deep_in_a_game, 60, "two results, and a game in flight")
            announced = {r.game_id: r for c in clients for r in c.results}
            # the games in flight, by the moves the bots were told of (the other server
            # may take them over, and even finish them, before the database is read)
            running = {game_id: len(told) for witness in witnesses.values()
                       for game_id, told in witness.told.items() if game_id not in announced}
            first.send_signal(stop)
            await asyncio.to_thread(first.wait)
            if stop == signal.SIGKILL:  # each game was leased by the first, and still is
                async with opened(db) as storage:
                    # (one that ended just before the kill is stored as over, its end
                    # announced later: awaited below with the others)
                    over = {game_id for game_id in running
                            if (row := await storage.game(game_id)) is not None
                            and row.status == "finished"}
                    assert set(running) - over <= set(await in_flight(db))
                    assert {lease.host for lease in await storage.leases()} == {"first"}

            await wait_for(lambda: "game(s) taken over from stopped hosts"
                           in stderr[1].read_text(), 30,
                           "the second server takes the games over")
            await wait_for(lambda: set(running) <= announced_ids(clients), 60,
                           "every game that was running is over and announced")
            assert all(client.url == urls[1] for client in clients)
            await wait_for(lambda: len(announced_ids(clients)) >= len(announced) + 4, 60,
                           "the ladder goes on on the second server")
        finally:
            for client in clients:
                await client.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            for server in (first, second):
                if server.poll() is None:
                    server.send_signal(signal.SIGTERM)
                    await asyncio.to_thread(server.wait, 30)

        async with opened(db) as check:
            results = {r.game_id: r for c in clients for r in c.results}
            for game_id, told in running.items():  # none aborted: each finished normally
                row = await check.game(game_id)
                assert row is not None and row.status == "finished", (game_id, row)
                assert row.termination == "normal", row.reason
                record = read_jsonl(row.log.splitlines())  # type: ignore[union-attr]
                assert validate_record(record) is None
                assert len(record.turns) >= told
                assert results[game_id].result == row.result
                assert results[game_id].seed_verified
                for name, witness in witnesses.items():  # what each bot was told is logged
                    logged = {turn.turn: turn.move for turn in record.turns}
                    assert all(logged.get(t) == move
                               for t, move in witness.told.get(game_id, {}).items()), name
            for game_id, result in announced.items():  # nothing announced was lost
                row = await check.game(game_id)
                assert row is not None and row.status == "finished"
                assert row.result == result.result
            assert await check.games(limit=10_000, status="aborted") == []


async def test_a_client_given_several_urls_tries_the_next(arena: Any) -> None:
    dead = f"ws://127.0.0.1:{free_port()}/"  # nobody listens there
    token = await arena.add_bot("bob")
    client = ArenaClient(f"{dead}, {arena.url}", token, BuiltinBot("random"), reconnect_delay=0.01)
    task = asyncio.create_task(client.run())
    try:
        async with asyncio.timeout(10):
            await client.connected.wait()
        assert client.url == arena.url and "bob" in arena.server.sessions
    finally:
        await client.stop()
        await task
    with pytest.raises(ValueError, match="URL"):
        ArenaClient(" , ", token, BuiltinBot("random"))
    with pytest.raises(CannotConnect, match=f"cannot connect to {dead}, {dead}x"):
        await ArenaClient(dead, token, BuiltinBot("random"), urls=[dead + "x"], reconnect_delay=0.01,
                          connect_retries=2).run()
