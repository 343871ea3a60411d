"""A full or read-only disk (issue 11, finding 8), with a real failing SQLite database:
a storage failure stops new games, makes /healthz answer 503 with the reason, tells
the connected bots, and no result is announced before it is stored."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import urllib.error
import urllib.request
from typing import Any

import pytest

from arena.app import Arena
from arena.game import Termination
from arena.server import ArenaServer, ServerConfig
from arena.server.durability import StorageUnavailable
from arena.storage.sqlite import SQLiteDatabase
from clients.operator import Operator
from clients.sdk import ArenaClient, BuiltinBot
from protocol import RemoteError

from .conftest import FAST, SUBST, stored_record


def healthz(port: int) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def pragma(server: ArenaServer, text: str) -> None:
    """Run a PRAGMA on the server's own database connection (in its database thread)."""
    storage = server.storage
    assert storage is not None
    await storage.run(lambda: storage.database.db.execute(text).fetchall())


def fill_the_disk(db: sqlite3.Connection) -> None:
    """Make the database as full as a full disk would: it may not grow by one page, and
    the free pages it has are filled."""
    db.execute("CREATE TABLE filler (data BLOB)")
    db.execute(f"PRAGMA max_page_count={db.execute('PRAGMA page_count').fetchone()[0]}")
    with contextlib.suppress(sqlite3.OperationalError):
        while True:
            db.execute("INSERT INTO filler VALUES (zeroblob(1000))")


def free_the_disk(db: sqlite3.Connection) -> None:
    db.execute("DROP TABLE filler")
    db.execute("PRAGMA max_page_count=1073741823")


async def test_a_full_disk_stops_games_and_announces_no_result_until_stored(make_arena):
    arena = await make_arena(storage_probe_interval=0.05)
    server = arena.server
    alice = await arena.client("alice", "random")
    bob = await arena.client("bob", "random")
    storage = server.storage
    await storage.run(fill_the_disk, storage.database.db)
    live = server.start_game("substitution", {**SUBST, "moves": 100}, ["alice", "bob"], seed=3)
    async with asyncio.timeout(30):  # the game is played; storing its long log fails
        while server.storage.failure is None:
            await asyncio.sleep(0.01)
    assert "full" in server.storage.failure
    status, health = await asyncio.to_thread(healthz, server.port)
    assert status == 503 and health["status"] == "unhealthy" and "full" in health["reason"]
    assert health["reason_code"] == "storage-failed"  # the operators' page's words for it
    async with asyncio.timeout(10):  # both bots are told, about the game and in general
        while not all(any(e.code == "storage-unavailable" for e in c.errors)
                      for c in (alice, bob)):
            await asyncio.sleep(0.01)
    assert not alice.results and not bob.results  # nothing announced: nothing stored
    assert live.record is None  # not stored
    with pytest.raises(StorageUnavailable, match="full"):
        server.start_game("substitution", SUBST, ["alice", "bob"], seed=4)

    await storage.run(free_the_disk, storage.database.db)
    record = await stored_record(live, 30)
    assert record.outcome.termination is Termination.NORMAL
    async with asyncio.timeout(10):
        while not (alice.results and bob.results):
            await asyncio.sleep(0.01)
    row = await storage.game(live.id)
    assert row.status == "finished" and row.result == alice.results[0].result
    status, health = await asyncio.to_thread(healthz, server.port)
    assert status == 200 and health["status"] == "ok"
    again = await server.play_game("substitution", SUBST, ["alice", "bob"], seed=5)
    assert again.outcome.termination is Termination.NORMAL


async def test_operators_are_refused_while_the_storage_fails(make_arena):
    # no test write heals the failure this test declares (the disk is not really full)
    arena = await make_arena(storage_probe_interval=3600)
    token = await arena.add_bot("runner", operator=True)
    await arena.client("alice", "random")
    arena.server.storage.fail("OperationalError: database or disk is full")
    async with Operator(arena.url, token) as operator:
        with pytest.raises(RemoteError) as refused:
            await operator.play("substitution", SUBST, ["alice", "house:random"])
    assert refused.value.code == "storage-unavailable" and "full" in refused.value.message


async def test_a_read_only_database_starts_unhealthy_and_plays_once_writable(
    tmp_path, monkeypatch
):
    db = tmp_path / "arena.sqlite"
    setup = SQLiteDatabase(db)
    tokens = {name: setup.add_bot(name) for name in ("alice", "bob")}
    setup.close()

    class ReadOnlyDatabase(SQLiteDatabase):
        """The database as a read-only file behaves: every write fails in SQLite."""

        def __init__(self, path: Any) -> None:
            super().__init__(path)
            self.db.execute("PRAGMA query_only=1")

    monkeypatch.setattr("arena.storage.sqlite.SQLiteDatabase", ReadOnlyDatabase)
    app = Arena(ServerConfig(port=0, db=str(db), time_control=FAST, ping_interval=None,
                             storage_probe_interval=0.05))
    await app.start()
    server = app.server
    clients = [ArenaClient(server.url, token, BuiltinBot("random"), reconnect_delay=0.05)
               for token in tokens.values()]
    tasks = [asyncio.create_task(client.run()) for client in clients]
    try:
        status, health = await asyncio.to_thread(healthz, server.port)
        assert status == 503 and "readonly" in health["reason"]
        async with asyncio.timeout(5):  # tokens can still be checked: bots log in
            for client in clients:
                await client.connected.wait()
        with pytest.raises(StorageUnavailable, match="readonly"):
            server.start_game("substitution", SUBST, ["alice", "bob"])
        await pragma(server, "PRAGMA query_only=0")  # the disk is writable again
        async with asyncio.timeout(10):
            while server.health()["status"] != "ok":
                await asyncio.sleep(0.01)
        record = await server.play_game("substitution", SUBST, ["alice", "bob"], seed=1)
        assert record.outcome.termination is Termination.NORMAL
    finally:
        for client in clients:
            await client.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        await app.close()


async def test_a_game_whose_start_cannot_be_stored_never_starts(make_arena, monkeypatch):
    arena = await make_arena(storage_probe_interval=3600)
    token = await arena.add_bot("runner", operator=True)
    alice = await arena.client("alice", "random")

    def broken(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")  # as SQLite reports a dying disk

    monkeypatch.setattr(arena.server.storage.database, "start_game", broken)
    async with Operator(arena.url, token) as operator:
        with pytest.raises(RemoteError) as failed:
            await operator.play("substitution", SUBST, ["alice", "house:random"])
    assert failed.value.code == "storage-unavailable" and "disk I/O error" in failed.value.message
    assert not arena.server.live and not alice.results  # never started, nobody was told of it
    assert arena.server.health()["status"] == "unhealthy"


async def test_the_web_answers_503_while_the_storage_fails(make_arena):
    """A guest account or a game asked for over HTTP while the database cannot be
    written: 503 with the reason and Retry-After, not a 400 blaming the request."""
    from tests.web.test_api import post

    arena = await make_arena(storage_probe_interval=0.05)
    await pragma(arena.server, "PRAGMA query_only=1")  # the disk turns read-only
    status, error = await post(arena, "/api/guest")
    assert status == 503 and error["code"] == "storage-unavailable", error
    assert "readonly" in error["message"] or "read-only" in error["message"], error
    status, error = await post(arena, "/api/match", {
        "game": "sim", "settings": {"vertices": 5}, "bots": ["sim-random", "sim-random"]})
    assert status == 503 and error["code"] == "storage-unavailable", error
    status, health = await asyncio.to_thread(healthz, arena.server.port)
    assert status == 503 and health["status"] == "unhealthy"
    await pragma(arena.server, "PRAGMA query_only=0")
    async with asyncio.timeout(10):
        while (await post(arena, "/api/guest"))[0] != 200:
            await asyncio.sleep(0.05)
