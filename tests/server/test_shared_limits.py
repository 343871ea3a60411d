"""Limits that hold for the arena, not for each process (issue 24, docs/cluster.md
"Limits across processes"): two servers on one PostgreSQL schema and one Redis prefix
(``--shared-limits``), in this test process, share the connections per address, the
guest quota per address, the sign-in attempts per name and a web game's place; a dead
process's connections do not count, a living one's do. (The counters themselves, with a
clock the tests drive: tests/counters.)"""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from arena.config import AccountsConfig, WebConfig
from arena.counters.redis_counters import RedisCounters
from tests.counters.conftest import REDIS, keys_under, redis_prefix, start
from tests.storage.conftest import postgres_schema
from tests.waiting import wait_for


@pytest.fixture
async def two(make_arena: Any) -> AsyncIterator[tuple[Any, Any, str]]:
    """Two servers of one arena (their limits in Redis under a prefix of the test's)."""
    async with postgres_schema() as db, redis_prefix() as prefix:
        options = {"db": db, "ladder": None, "max_connections_per_address": 3,
                   "shared_limits": f"{REDIS}?prefix={prefix}",
                   "web": WebConfig(guests_per_client_minute=2),
                   "accounts": AccountsConfig(signins_per_name_minute=1)}
        one = await make_arena(host_id="one", **options)
        other = await make_arena(host_id="other", **options)
        assert one.server.counters.kind == "redis"
        yield one, other, prefix
        await one.close()
        await other.close()


def post(port: int, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", path, body=json.dumps(body).encode(),
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


async def refused(arena: Any) -> str:
    """The reason a new connection to `arena` is closed with at once (1013)."""
    extra = await arena.raw()
    with pytest.raises(ConnectionClosed) as closed:
        await extra.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
    return closed.value.rcvd.reason


async def test_connections_per_address_are_counted_across_the_servers(two):
    one, other, prefix = two
    viewers = [await one.raw(), await one.raw(), await other.raw()]
    for viewer in viewers:
        assert (await viewer.hello(None, role="spectator"))["type"] == "welcome"
    for server in (one, other):  # the fourth from 127.0.0.1, wherever it goes
        assert "too many connections from 127.0.0.1 (at most 3)" in await refused(server)
    await viewers[0].ws.close()  # a place freed on one is free on the other
    await wait_for(lambda: one.server.counters.local.slots["connections"]["127.0.0.1"] == 1,
                   what="the closed connection released")
    again = await other.raw()
    assert (await again.hello(None, role="spectator"))["type"] == "welcome"
    assert await one.server.clients.addresses.count("127.0.0.1") == 3
    await one.close()  # a stopped server's connections stop counting at once
    assert await other.server.clients.addresses.count("127.0.0.1") == 2
    assert f"{prefix}:slots:one" not in await keys_under(prefix)


async def test_the_guest_quota_and_the_sign_in_attempts_are_counted_across_the_servers(two):
    one, other, _ = two
    ports = (one.server.port, other.server.port)
    statuses = [(await asyncio.to_thread(post, port, "/api/guest", {}))[0] for port in ports]
    assert statuses == [200, 200]
    for port in ports:
        status, error = await asyncio.to_thread(post, port, "/api/guest", {})
        assert status == 429 and "2 guest accounts a minute from your address" in error["message"]
    signin = {"name": "alice", "password": "wrong password"}
    status, error = await asyncio.to_thread(post, ports[0], "/api/account/signin", signin)
    assert status == 401 and error["code"] == "wrong-credentials"
    status, error = await asyncio.to_thread(post, ports[1], "/api/account/signin", signin)
    assert status == 429 and error["code"] == "rate-limited"  # the name's guess is spent
    assert "1 sign-in attempts for one name a minute" in error["message"]


SIM_MATCH = {"game": "sim", "settings": {"vertices": 5}, "bots": ["sim-random", "sim-random"]}
"""A short game of two house bots."""


async def test_a_web_match_gives_its_client_s_place_back_to_every_server_when_it_ends(two):
    """(Refused while it runs: `test_two_house_bots_play_a_game_started_from_the_web`.)"""
    one, other, _ = two
    status, started = await asyncio.to_thread(
        post, one.server.port, "/api/match", SIM_MATCH)
    assert status == 200, started
    counters = other.server.counters
    await wait_for(lambda: started["game_id"] not in one.server.live, what="the game's end")
    await wait_for(lambda: not one.server.counters.local.slots["matches-per-client"],
                   what="its place given back")
    assert await counters.count("matches-per-client", "127.0.0.1") == 0


async def test_a_dead_process_s_connections_do_not_count_a_living_one_s_do(two):
    """Two more processes of the arena, each with connections from 127.0.0.1: one last
    heard of a minute ago (dead: its 30 s are over), one just now."""
    one, _, prefix = two

    async def process(name: str, heard: float, connections: int) -> RedisCounters:
        counters = await start(RedisCounters(REDIS, prefix=prefix, process=name,
                                             clock=lambda: time.time() - heard))
        counters._heartbeat.cancel()  # type: ignore[union-attr]  # no more heartbeats
        for _ in range(connections):
            assert await counters.admit("connections", "127.0.0.1", 3)
        return counters

    dead = await process("dead", 60, 3)
    viewers = [await one.raw() for _ in range(3)]  # as if the dead one held none
    for viewer in viewers:
        assert (await viewer.hello(None, role="spectator"))["type"] == "welcome"
    await viewers[0].ws.close()
    await wait_for(lambda: one.server.counters.local.slots["connections"]["127.0.0.1"] == 2,
                   what="the closed connection released")
    living = await process("living", 0, 1)  # the last place
    assert "too many connections from 127.0.0.1" in await refused(one)
    for counters in (dead, living):
        await counters.close()
