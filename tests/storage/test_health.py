"""PostgreSQL's health, with a real server: a connection the server terminates, or writes
it refuses, make the storage unhealthy; it heals when the database answers again.
(SQLite's full and read-only disks: tests/server/test_storage_failure.py.)"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import asyncpg
import pytest

from arena.storage import Storage, StorageFailure, open_storage
from arena.storage.urls import parse_url
from tests.waiting import wait_for

from .conftest import admin, postgres_database


async def terminate(application_name: str, *, waiting: bool = False) -> int:
    """Terminate the connections of the storage named `application_name` (only those
    waiting for a lock, if `waiting`); how many there were."""
    connection = await admin()
    try:
        return int(await connection.fetchval(
            "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = $1 AND (NOT $2 OR wait_event_type = 'Lock')",
            application_name, waiting))
    finally:
        await connection.close()


async def waiting_for_a_lock(application_name: str) -> bool:
    connection = await admin()
    try:
        return bool(await connection.fetchval(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1"
            " AND wait_event_type = 'Lock'", application_name))
    finally:
        await connection.close()


async def alter(database: str, setting: str) -> None:
    connection = await admin()
    try:
        await connection.execute(f"ALTER DATABASE {database} {setting}")
    finally:
        await connection.close()


@dataclass
class Watched:
    """A storage on a database of its own, and what its `on_change` heard."""

    name: str
    """The database's, and its connections' ``application_name``."""
    url: str
    storage: Storage
    heard: list[str | None] = field(default_factory=list)


@contextlib.asynccontextmanager
async def watched() -> AsyncIterator[Watched]:
    """A fresh database with the account ``alice``, opened, and dropped afterwards."""
    async with postgres_database() as url:
        storage = await open_storage(url)
        database = Watched(parse_url(url).target.rsplit("/", 1)[1].split("?")[0], url, storage)
        storage.on_change = database.heard.append
        try:
            await storage.add_bot("alice")
            yield database
        finally:
            await storage.close()


async def test_a_connection_lost_mid_call_fails_and_heals_at_once() -> None:
    async with watched() as db:
        storage = db.storage
        blocker = await asyncpg.connect(db.url, server_settings={"application_name": "blocker"})
        try:
            async with blocker.transaction():
                await blocker.execute("LOCK TABLE bots IN ACCESS EXCLUSIVE MODE")
                call = asyncio.create_task(storage.bots())  # waits for the lock
                await wait_for(lambda: waiting_for_a_lock(db.name), what="the call waits")
                assert await terminate(db.name, waiting=True) == 1
                with pytest.raises(StorageFailure, match="terminat|closed"):
                    await call
        finally:
            await blocker.close()
        assert storage.failure is not None and db.heard == [storage.failure]
        assert await storage.probe() and storage.failure is None and db.heard[-1] is None
        assert [b.name for b in await storage.bots()] == ["alice"]


async def test_a_database_that_refuses_connections_or_writes_is_unhealthy_until_it_takes_them(
) -> None:
    async with watched() as db:
        storage = db.storage
        await alter(db.name, "ALLOW_CONNECTIONS false")
        await terminate(db.name)
        with pytest.raises(StorageFailure):  # the lost connection, or the refused one
            await storage.bots()
        assert storage.failure is not None and not await storage.probe()
        with pytest.raises(StorageFailure, match="not currently accepting connections"):
            await storage.bots()  # no connection is made: still failing

        await alter(db.name, "ALLOW_CONNECTIONS true")
        await alter(db.name, "SET default_transaction_read_only = on")  # writes refused
        assert not await storage.probe() and storage.failure is not None
        assert [b.name for b in await storage.bots()] == ["alice"]  # reads work
        with pytest.raises(StorageFailure, match="read-only"):
            await storage.add_bot("bob")
        assert len(db.heard) == 1  # unhealthy all along

        watch = asyncio.create_task(storage.watch(0.01))
        try:
            await alter(db.name, "RESET default_transaction_read_only")  # writable again
            await wait_for(lambda: storage.failure is None, what="the watch heals it")
        finally:
            watch.cancel()
        assert db.heard[-1] is None and len(db.heard) == 2
        await storage.add_bot("bob")
        assert [b.name for b in await storage.bots()] == ["alice", "bob"]


async def test_a_database_that_cannot_be_reached_is_a_clear_failure() -> None:
    with pytest.raises(StorageFailure, match="cannot connect to postgresql://arena:\\*\\*\\*@"):
        await open_storage("postgresql://arena:secret@127.0.0.1:1/arena")


async def test_a_schema_that_does_not_exist_is_named() -> None:
    from .conftest import POSTGRES, with_settings

    with pytest.raises(StorageFailure, match="no schema of its search_path exists"):
        await open_storage(with_settings(POSTGRES, search_path="arena_test_nowhere"))
