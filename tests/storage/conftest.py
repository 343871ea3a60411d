"""The storage fixtures: every test of the shared suite runs on both backends.

SQLite gets a file in the test's temporary directory; PostgreSQL (``$ARENA_TEST_POSTGRES``,
by default the project machines' ``postgresql://root@127.0.0.1:5432/test``) gets a schema
of its own, named after no other (``arena_test_<random>``), dropped afterwards with
everything in it: a run leaves nothing behind. A machine without PostgreSQL fails these
tests with the way to get it (``make services``), never skips them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from arena.storage import Storage, open_storage

POSTGRES = os.environ.get("ARENA_TEST_POSTGRES", "postgresql://root@127.0.0.1:5432/test")
"""The database the PostgreSQL tests make their schemas (and databases) in."""

BACKENDS = ("sqlite", "postgresql")


async def admin() -> asyncpg.Connection:
    """A connection to `POSTGRES`, or a failure that says how to get one."""
    try:
        return await asyncpg.connect(POSTGRES, timeout=10)
    except (OSError, asyncpg.PostgresError) as error:
        pytest.fail(f"PostgreSQL does not answer at {POSTGRES} ({error}): run 'make services' "
                    "(or set ARENA_TEST_POSTGRES to a database the tests may use)")


def with_settings(url: str, **settings: str) -> str:
    """`url` with server settings as query parameters (asyncpg passes them on)."""
    query = "&".join(f"{key}={value}" for key, value in settings.items())
    return f"{url}{'&' if '?' in url else '?'}{query}"


@contextlib.asynccontextmanager
async def postgres_schema() -> AsyncIterator[str]:
    """A fresh schema in `POSTGRES`, dropped afterwards; yields the URL that uses it
    (its connections are named after it too: ``application_name``)."""
    name = "arena_test_" + secrets.token_hex(6)
    connection = await admin()
    try:
        await connection.execute(f"CREATE SCHEMA {name}")
        try:
            yield with_settings(POSTGRES, search_path=name, application_name=name)
        finally:
            await connection.execute(f"DROP SCHEMA {name} CASCADE")
    finally:
        await connection.close()


@contextlib.asynccontextmanager
async def postgres_database() -> AsyncIterator[str]:
    """A fresh database on the `POSTGRES` server, dropped afterwards (for a test that
    changes database-wide settings); yields its URL."""
    name = "arena_test_" + secrets.token_hex(6)
    connection = await admin()
    try:
        await connection.execute(f"CREATE DATABASE {name}")
        try:
            base = POSTGRES.split("?")[0].rsplit("/", 1)[0]
            yield with_settings(f"{base}/{name}", application_name=name)
        finally:
            await connection.execute(f"DROP DATABASE {name} WITH (FORCE)")
    finally:
        await connection.close()


@contextlib.asynccontextmanager
async def database_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh, empty database of `backend` for one test: its ``--db`` URL."""
    if backend == "sqlite":
        yield str(tmp_path / f"arena-{secrets.token_hex(4)}.sqlite")
        return
    async with postgres_schema() as url:
        yield url


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh, empty database of each backend (its URL), removed afterwards."""
    async with database_url(backend, tmp_path) as url:
        yield url


@pytest.fixture
async def storage(url: str) -> AsyncIterator[Storage]:
    """A fresh storage of each backend, closed afterwards."""
    opened = await open_storage(url)
    try:
        yield opened
    finally:
        await opened.close()
