"""The budgets' counters (`arena.counters`), on both stores: slots (connections per
address) and rates (token buckets per key) hold for every process of one arena; with
Redis, a dead process's slots stop counting, a process writes back the slots Redis lost,
and a Redis that fails or hangs leaves each process its own counts, at once."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis
from prometheus_client import REGISTRY

from arena.counters import CountersFailure, LocalCounters, open_counters, parse_counters_url
from arena.counters.redis_counters import RedisCounters

from .conftest import REDIS, Clock, MakeCounters, delete_keys, keys_under, redis_prefix, start

S = "connections"


async def test_slots_are_taken_up_to_the_limit_and_given_back(make_counters: MakeCounters):
    counters = await make_counters("one")
    assert await counters.admit(S, "10.0.0.1", 2) and await counters.admit(S, "10.0.0.1", 2)
    assert not await counters.admit(S, "10.0.0.1", 2)
    assert await counters.admit(S, "10.0.0.2", 2)  # each address its own
    assert await counters.admit("other", "10.0.0.1", 2)  # each scope its own
    await counters.release(S, "10.0.0.1")
    assert await counters.admit(S, "10.0.0.1", 2)
    assert await counters.count(S, "10.0.0.1") == 2 and await counters.count(S, "nobody") == 0


async def test_the_processes_of_one_arena_share_their_slots(make_counters: MakeCounters):
    a, b = await make_counters("a"), await make_counters("b")
    assert await a.admit(S, "10.0.0.1", 3) and await a.admit(S, "10.0.0.1", 3)
    assert await b.admit(S, "10.0.0.1", 3)
    assert not await b.admit(S, "10.0.0.1", 3) and not await a.admit(S, "10.0.0.1", 3)
    assert await a.count(S, "10.0.0.1") == await b.count(S, "10.0.0.1") == 3
    await a.release(S, "10.0.0.1")  # one process's closed connection frees a place for all
    assert await b.admit(S, "10.0.0.1", 3)


async def test_slots_taken_at_once_never_pass_the_limit(make_counters: MakeCounters):
    """200 at once from two processes (more than a process's connections to Redis,
    `CONNECTIONS`: they wait their turn for one)."""
    a, b = await make_counters("a"), await make_counters("b")
    admitted = await asyncio.gather(*(process.admit(S, "10.0.0.9", 50)
                                      for _ in range(100) for process in (a, b)))
    assert sum(admitted) == 50 and await a.count(S, "10.0.0.9") == 50
    assert getattr(a, "failures", 0) == 0  # none timed out waiting for a connection


async def test_a_rate_is_a_bucket_per_key_forgotten_a_minute_after_its_last_use(
        make_counters: MakeCounters, clock: Clock):
    counters = await make_counters("one")
    start = clock.now
    assert await counters.wait("r", "a", 2) == 0.0 and await counters.wait("r", "a", 2) == 0.0
    assert await counters.wait("r", "a", 2) == pytest.approx(30.0)  # one back every 30 s
    assert await counters.wait("r", "b", 2) == 0.0  # each key its own
    assert await counters.wait("q", "a", 2) == 0.0  # each scope its own
    clock.now = start + 20
    assert await counters.wait("r", "a", 2) == pytest.approx(10.0)
    clock.now = start + 30
    assert await counters.wait("r", "a", 2) == 0.0
    assert await counters.wait("r", "a", 2) == pytest.approx(30.0)
    clock.now = start + 91  # a minute after its last event: full again
    assert await counters.wait("r", "a", 2) == 0.0 and await counters.wait("r", "a", 2) == 0.0
    assert await counters.wait("r", "a", 2) > 0
    assert await counters.wait("r", "a", 0) == math.inf


async def test_the_processes_of_one_arena_share_a_rate(make_counters: MakeCounters):
    a, b = await make_counters("a"), await make_counters("b")
    assert await a.wait("guests", "*", 2) == 0.0 and await b.wait("guests", "*", 2) == 0.0
    assert await a.wait("guests", "*", 2) > 0 and await b.wait("guests", "*", 2) > 0


def test_local_rates_remember_a_bounded_number_of_keys():
    counters = LocalCounters(keys=2)
    for key in "abc":
        assert counters.wait_now("r", key, 1) == 0.0
    assert counters.wait_now("r", "c", 1) > 0
    assert counters.wait_now("r", "a", 1) == 0.0  # forgotten: the cache holds two keys


# -- Redis ---------------------------------------------------------------------------------


@pytest.fixture
async def prefix() -> AsyncIterator[str]:
    async with redis_prefix() as name:
        yield name


@contextlib.asynccontextmanager
async def processes(prefix: str, clock: Clock, *names: str) -> AsyncIterator[list[RedisCounters]]:
    started = [RedisCounters(REDIS, prefix=prefix, process=name, clock=clock, ttl=30.0)
               for name in names]
    for counters in started:
        await start(counters)
    try:
        yield started
    finally:
        for counters in started:
            await counters.close()


async def test_a_dead_process_s_connections_stop_counting(prefix: str, clock: Clock):
    async with processes(prefix, clock, "a", "b") as (a, b):
        for _ in range(3):
            assert await a.admit(S, "10.0.0.1", 3)
        assert not await b.admit(S, "10.0.0.1", 3)
        clock.now += 20
        await a.beat()  # alive: its heartbeat keeps its connections counting
        clock.now += 20
        assert not await b.admit(S, "10.0.0.1", 3) and await b.count(S, "10.0.0.1") == 3
        assert a._heartbeat is not None
        a._heartbeat.cancel()  # a dies: no heartbeat any more
        clock.now += 31  # the ttl since its last heartbeat
        assert await b.count(S, "10.0.0.1") == 0
        assert all(await asyncio.gather(*(b.admit(S, "10.0.0.1", 3) for _ in range(3))))
        assert not await b.admit(S, "10.0.0.1", 3)


async def test_a_stopped_process_s_connections_stop_counting_at_once(prefix: str, clock: Clock):
    async with processes(prefix, clock, "a", "b") as (a, b):
        assert await a.admit(S, "10.0.0.1", 2) and await a.admit(S, "10.0.0.1", 2)
        await a.close()
        assert await b.count(S, "10.0.0.1") == 0
        assert f"{prefix}:slots:a" not in await keys_under(prefix)


async def test_a_process_writes_back_the_slots_redis_lost(prefix: str, clock: Clock):
    async with processes(prefix, clock, "a", "b") as (a, b):
        assert await a.admit(S, "10.0.0.1", 3) and await a.admit(S, "10.0.0.1", 3)
        await delete_keys(prefix)  # Redis restarted empty
        await a.beat()
        assert await b.count(S, "10.0.0.1") == 2
        assert await b.admit(S, "10.0.0.1", 3) and not await b.admit(S, "10.0.0.1", 3)


async def test_a_process_started_under_a_dead_one_s_name_does_not_inherit_its_slots(
        prefix: str, clock: Clock):
    async with processes(prefix, clock, "a", "b") as (a, b):
        assert await a.admit(S, "10.0.0.1", 2) and await a.admit(S, "10.0.0.1", 2)
        assert a._heartbeat is not None
        a._heartbeat.cancel()  # killed: no clean stop; restarted at once, same --host-id
        async with processes(prefix, clock, "a") as (again,):
            assert await b.count(S, "10.0.0.1") == 0
            assert await again.admit(S, "10.0.0.1", 2) and await b.admit(S, "10.0.0.1", 2)
            assert not await b.admit(S, "10.0.0.1", 2)


async def test_a_redis_that_is_down_at_start_is_an_error_naming_it():
    with pytest.raises(CountersFailure, match="127.0.0.1:1"):
        await open_counters("redis://127.0.0.1:1/0?prefix=x", process="p")


def failures() -> float:
    return REGISTRY.get_sample_value("arena_shared_limits_failures_total") or 0.0


@pytest.mark.parametrize("kind", ["refused", "silent"])
async def test_a_redis_that_fails_leaves_each_process_its_own_counts_at_once(kind: str):
    """Down (refused) or hung (it accepts and never answers): no call waits longer than
    the timeout, the limits hold on the process's own counts, and the failure is
    counted; Redis is tried again only after `RETRY_SECONDS`."""
    accepted: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)  # and never answered

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    if kind == "refused":
        server.close()
        await server.wait_closed()
    counters = RedisCounters(f"redis://127.0.0.1:{port}/0", prefix="x", process="p",
                             timeout=0.2)
    before = failures()
    try:
        async with asyncio.timeout(5):
            assert await counters.admit(S, "10.0.0.1", 2) and await counters.admit(S, "10.0.0.1", 2)
            assert not await counters.admit(S, "10.0.0.1", 2)
            assert await counters.count(S, "10.0.0.1") == 2
            assert await counters.wait("r", "a", 1) == 0.0 and await counters.wait("r", "a", 1) > 0
            await counters.release(S, "10.0.0.1")
            assert await counters.admit(S, "10.0.0.1", 2)
            await counters.beat()
        assert counters.failures == 1 and failures() == before + 1
    finally:
        await counters.close()
        server.close()
        for writer in accepted:
            writer.close()
        await server.wait_closed()


async def test_redis_coming_back_gets_the_slots_counted_meanwhile(prefix: str, clock: Clock):
    async with processes(prefix, clock, "a", "b") as (a, b):
        a.timeout = 0.2
        a._down_until = asyncio.get_running_loop().time() + 60  # as after a failure
        a._stale = True
        assert await a.admit(S, "10.0.0.1", 3)  # counted here only
        assert await b.count(S, "10.0.0.1") == 0
        a._down_until = 0.0  # Redis answers again
        await a.beat()
        assert await b.count(S, "10.0.0.1") == 1


def test_the_url_names_the_store_and_the_prefix():
    assert parse_counters_url("local").kind == "local"
    parsed = parse_counters_url("redis://h:6380/2?prefix=arena-2")
    assert (parsed.kind, parsed.url, parsed.prefix) == ("redis", "redis://h:6380/2", "arena-2")
    assert parse_counters_url("redis://h").prefix == "arena"
    for bad in ("nats://h", "redis://", "redis://h?prefix=a:b", "redis://h?db=2", "h:6379"):
        with pytest.raises(ValueError, match="--shared-limits"):
            parse_counters_url(bad)


async def test_a_process_s_keys_live_under_its_prefix(prefix: str, clock: Clock):
    async with processes(prefix, clock, "a") as (a,):
        await a.admit(S, "10.0.0.1", 1)
        await a.wait("guests", "*", 5)
        assert await keys_under(prefix) == [f"{prefix}:procs", f"{prefix}:rate:guests:*",
                                            f"{prefix}:slots:a"]
    client = redis.Redis.from_url(REDIS)
    try:
        assert 0 < await client.pttl(f"{prefix}:rate:guests:*") <= 60_000
    finally:
        await client.aclose()
