"""SQLite's commits and flushes: a game's start, its moves and the leases are committed
without the disk's flush (they survive the server's process); a result is flushed to the
disk before `finish_game` returns, by the WAL file's fdatasync in a thread of its own, so the
moves committed meanwhile do not wait behind the disk (arena/storage/sqlite.py)."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from arena.storage import StorageFailure
from arena.storage.sqlite import SQLiteDatabase, SQLiteStorage
from tests.waiting import wait_for

from .games import played, started, turns_of

FULL, NORMAL = 2, 1


def synchronous(database: SQLiteDatabase) -> int:
    """The connection's setting as it is now (not through `db`, which syncs again)."""
    return int(database._db.execute("PRAGMA synchronous").fetchone()[0])


def test_a_start_and_the_leases_are_committed_unsynced_a_result_synced(tmp_path) -> None:
    database = SQLiteDatabase(tmp_path / "arena.sqlite")
    try:
        record = played("g1", moves=4)
        database.db  # noqa: B018 - at FULL, as anything else leaves it
        database.start_game(started(record), ladder=True, pair="p", host="h", lease=10)
        assert synchronous(database) == NORMAL
        database.db  # noqa: B018
        assert database.lease_game("g1", "h", 10)
        assert synchronous(database) == NORMAL
        database.db  # noqa: B018
        assert database.renew_leases("h", 10) == ["g1"]
        assert synchronous(database) == NORMAL
        database.append_turns(turns_of(record))

        statements: list[str] = []
        database._db.set_trace_callback(statements.append)
        database.finish_game(record, rated=True)  # synced by default: FULL at its commit
        assert statements[:2] == ["PRAGMA synchronous=FULL", "BEGIN IMMEDIATE"]
        statements.clear()
        database.finish_game(played("g2", moves=2), synced=False)  # the caller flushes
        assert statements[:2] == ["PRAGMA synchronous=NORMAL", "BEGIN IMMEDIATE"]
        assert "PRAGMA synchronous=FULL" not in statements
    finally:
        database.close()


def test_sync_wal_flushes_the_wal_file_and_nothing_in_memory(tmp_path, monkeypatch) -> None:
    synced: list[str] = []
    real = os.fdatasync
    monkeypatch.setattr(os, "fdatasync", lambda fd: (synced.append(os.readlink(
        f"/proc/self/fd/{fd}")), real(fd)))
    database = SQLiteDatabase(tmp_path / "arena.sqlite")
    try:
        database.start_game(started(played("g1", moves=2)), ladder=False, pair=None)
        database.sync_wal()
        assert synced == [str(tmp_path / "arena.sqlite-wal")]
    finally:
        database.close()
    memory = SQLiteDatabase(":memory:")
    try:
        memory.sync_wal()  # nothing to flush, and no error
    finally:
        memory.close()
    assert len(synced) == 1


class GatedSync:
    """`sync_wal` held at a gate: the test says when the disk answers."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.real = database.sync_wal
        self.gate = threading.Event()
        self.calls = 0
        self.fail: OSError | None = None

    def __call__(self) -> None:
        self.calls += 1
        self.gate.wait()
        if self.fail is not None:
            error, self.fail = self.fail, None
            raise error
        self.real()


async def gated_storage(tmp_path) -> tuple[SQLiteStorage, GatedSync]:
    storage = await SQLiteStorage.open(tmp_path / "arena.sqlite")
    gate = GatedSync(storage.database)
    storage._flusher._sync = gate
    return storage, gate


async def test_moves_are_committed_while_a_result_waits_for_the_disk(tmp_path) -> None:
    storage, gate = await gated_storage(tmp_path)
    try:
        ended, going = played("g1", moves=4), played("g2", moves=4)
        for record in (ended, going):
            await storage.start_game(started(record), ladder=True, pair=None)
        finishing = asyncio.ensure_future(storage.finish_game(ended, rated=True))
        await wait_for(lambda: gate.calls == 1)
        # the result is committed, its flush waits for the disk: the moves go on
        await storage.append_turns(turns_of(going))
        [running] = await storage.running_games()
        assert running.id == "g2" and len(running.turns) == len(turns_of(going))
        assert not finishing.done()  # not announced before it is on the disk
        gate.gate.set()
        ratings = await finishing
        assert sorted(row.bot for row in ratings) == ["alice", "bob"]
    finally:
        gate.gate.set()
        await storage.close()


async def test_results_that_wait_together_share_one_flush(tmp_path) -> None:
    storage, gate = await gated_storage(tmp_path)
    try:
        records = [played(f"g{n}", moves=2) for n in range(4)]
        for record in records:
            await storage.start_game(started(record), ladder=False, pair=None)
        first = asyncio.ensure_future(storage.finish_game(records[0]))
        await wait_for(lambda: gate.calls == 1)
        # committed after the running flush began: it may not cover them, the next does
        rest = [asyncio.ensure_future(storage.finish_game(record)) for record in records[1:]]
        await wait_for(lambda: len(storage._unflushed) == 4)
        gate.gate.set()
        await asyncio.gather(first, *rest)
        assert gate.calls == 2
    finally:
        gate.gate.set()
        await storage.close()


async def test_a_failed_flush_is_a_storage_failure_and_its_retry_stores_nothing_twice(
        tmp_path) -> None:
    storage, gate = await gated_storage(tmp_path)
    try:
        record = played("g1", moves=4)
        await storage.start_game(started(record), ladder=True, pair=None)
        gate.fail = OSError(5, "Input/output error")
        gate.gate.set()
        with pytest.raises(StorageFailure, match="Input/output error"):
            await storage.finish_game(record, rated=True)
        assert storage.failure is not None  # unhealthy: no new game starts
        again = await storage.finish_game(record, rated=True)  # as the server retries
        assert [row.games for row in again] == [1, 1]
        assert [row.games for row in await storage.leaderboard()] == [1, 1]
        assert gate.calls == 2
    finally:
        await storage.close()
