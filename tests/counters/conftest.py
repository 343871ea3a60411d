"""The counters' fixtures: every test of the shared suite runs on both stores.

Redis (``$ARENA_TEST_REDIS``, by default the project machines'
``redis://127.0.0.1:6379/0``) gets a key prefix of its own (``arena_test_<random>``),
seen by no other test, and its keys are deleted afterwards. Time is a clock the test
drives (`Clock`), never slept through. A machine without Redis fails these tests with
the way to get it (``make services``), never skips them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import redis.asyncio as redis
from redis.exceptions import RedisError

from arena.counters import Counters, CountersFailure, LocalCounters
from arena.counters.redis_counters import RedisCounters

REDIS = os.environ.get("ARENA_TEST_REDIS", "redis://127.0.0.1:6379/0")
"""The Redis the tests use."""

BACKENDS = ("local", "redis")


class Clock:
    """Seconds since the epoch, as far as the counters know: moved by the test."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def delete_keys(prefix: str) -> None:
    """Delete every key under `prefix`."""
    client = redis.Redis.from_url(REDIS)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*", count=1000)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


@contextlib.asynccontextmanager
async def redis_prefix() -> AsyncIterator[str]:
    """A fresh prefix on `REDIS`, its keys deleted afterwards."""
    prefix = "arena_test_" + secrets.token_hex(6)
    try:
        yield prefix
    finally:
        with contextlib.suppress(RedisError, OSError):
            await delete_keys(prefix)


async def keys_under(prefix: str) -> list[str]:
    client = redis.Redis.from_url(REDIS, decode_responses=True)
    try:
        return sorted([key async for key in client.scan_iter(match=f"{prefix}:*")])
    finally:
        await client.aclose()


async def start(counters: RedisCounters) -> RedisCounters:
    """`counters` started, or a failure that says how to get a Redis."""
    try:
        await counters.start()
    except CountersFailure as error:
        pytest.fail(f"Redis does not answer at {REDIS} ({error}): run 'make services' "
                    "(or set ARENA_TEST_REDIS to a Redis the tests may use)")
    return counters


MakeCounters = Callable[[str], Awaitable[Counters]]
"""Counters for a process of the given name, all sharing one store."""


@pytest.fixture(params=BACKENDS)
async def make_counters(request: pytest.FixtureRequest,
                        clock: Clock) -> AsyncIterator[MakeCounters]:
    """Counters for processes of one arena on `request.param`'s store (local: the one
    process's memory, whatever the name)."""
    if request.param == "local":
        local = LocalCounters(clock=clock)

        async def make_local(process: str) -> Counters:
            return local

        yield make_local
        return
    started: list[RedisCounters] = []
    async with redis_prefix() as prefix:
        async def make_redis(process: str) -> Counters:
            counters = await start(RedisCounters(REDIS, prefix=prefix, process=process,
                                                 clock=clock, ttl=30.0))
            started.append(counters)
            return counters

        yield make_redis
        for counters in started:
            await counters.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()
