"""A server's leases on its games, in-process on PostgreSQL (docs/cluster.md, "Hosts on
one database"): each game it starts is leased to it; a game another host took over
(its lease ran out during a pause) stops here without a word to anybody, whether the
lease keeper notices first or the game ends first; a clean stop ends its leases.
(`test_failover.py`: two ``arena serve`` processes, one killed.)"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from arena.clock import TimeControl
from arena.game import Termination
from arena.storage import Storage, open_storage
from clients.sdk import Turn
from protocol import Message
from tests.storage.conftest import postgres_schema
from tests.waiting import wait_for

from .conftest import SUBST

SLOW = TimeControl(move_ms=60_000, bank_ms=60_000, first_move_ms=60_000, retries=0,
                   grace_ms=60_000)
"""Nobody runs out of time during a test."""


@pytest.fixture
async def db() -> AsyncIterator[str]:
    async with postgres_schema() as url:
        yield url


@pytest.fixture
async def other(db: str) -> AsyncIterator[Storage]:
    """Another host's connection to the same database."""
    storage = await open_storage(db)
    yield storage
    await storage.close()


async def a_game(make_arena: Any, db: str, other: Storage) -> tuple[Any, Any, list[Message]]:
    """A server named ``here`` (a long lease: its keeper ticks when the test says), and
    a game between alice and bob that waits for alice's move for ever."""
    arena = await make_arena(db=db, host_id="here", lease_seconds=60, time_control=SLOW)
    seen: list[Message] = []

    async def never(turn: Turn) -> str:
        await asyncio.Event().wait()
        raise AssertionError

    for name in ("alice", "bob"):
        client = await arena.client(name, never)
        client.on_message = seen.append
    live = arena.server.start_game("substitution", SUBST, ["alice", "bob"])
    await wait_for(lambda: any(m.type == "your_turn" for m in seen), what="the first turn")
    assert [(lease.game_id, lease.host) for lease in await other.leases()] == [(live.id, "here")]
    return arena, live, seen


async def steal(other: Storage, game_id: str) -> None:
    """What another host does once this one's lease ran out: claim the game."""
    await other.release_leases("here")
    assert await other.claim_expired("thief", 60) == [game_id]


async def test_a_game_another_host_took_over_stops_without_a_word(db, other, make_arena):
    arena, live, seen = await a_game(make_arena, db, other)
    server = arena.server
    await steal(other, live.id)
    await server._leases.tick(asyncio.get_running_loop().time())  # the keeper's next round
    await wait_for(lambda: live.id not in server.live, what="the game stops here")
    assert not any(m.type == "game_over" for m in seen)
    row = await other.game(live.id)
    assert row is not None and row.status == "running"
    assert [(lease.game_id, lease.host) for lease in await other.leases()] == [(live.id, "thief")]


async def test_a_game_over_here_that_a_renewal_missed_is_not_stopped(db, other, make_arena,
                                                                       caplog):
    """A renewal whose answer was made after a game's end was stored, before the host
    forgot its lease, misses that game: it is not another host's, and nothing says so."""
    arena, live, seen = await a_game(make_arena, db, other)
    server = arena.server
    server.games.forfeit_player(live, "alice", Termination.RESIGNATION, "alice resigned")
    assert live.over
    with caplog.at_level(logging.WARNING):
        server.games.lose(frozenset({live.id}))  # what the keeper's renewal would say
    assert "another host" not in caplog.text
    await wait_for(lambda: any(m.type == "game_over" for m in seen), what="its end told")
    row = await other.game(live.id)
    assert row is not None and row.status == "finished"


async def test_a_lost_game_that_ends_first_stores_no_result(db, other, make_arena):
    arena, live, seen = await a_game(make_arena, db, other)
    server = arena.server
    await steal(other, live.id)  # the keeper has not noticed yet; the game ends first
    server.games.forfeit_player(live, "alice", Termination.RESIGNATION, "alice resigned")
    await wait_for(lambda: live.id not in server.live, what="the game stops here")
    assert not any(m.type == "game_over" for m in seen)
    row = await other.game(live.id)
    assert row is not None and row.status == "running"  # the thief plays it on


async def test_a_clean_stop_ends_the_leases(db, other, make_arena):
    arena, live, _ = await a_game(make_arena, db, other)
    await arena.close()
    assert [(lease.game_id, lease.host, lease.until) for lease in await other.leases()] == \
        [(live.id, "here", 0)]  # the game stays running, for anybody to claim at once
    assert await other.claim_expired("peer", 60) == [live.id]


async def test_a_game_lost_before_it_began_is_no_longer_live(db, make_arena, caplog):
    # a game lost at once (its task cancelled before it ran) stayed live with no run: a
    # gateway's next snapshot with one of its players failed on it (KeyError), and the
    # other bots of that snapshot were not taken as back (bench_rolling, 2 000 bots)
    arena = await make_arena(db=db, host_id="here", lease_seconds=60, time_control=SLOW)
    server = arena.server

    async def never(turn: Turn) -> str:
        await asyncio.Event().wait()
        raise AssertionError

    for name in ("alice", "bob"):
        await arena.client(name, never)
    live = server.start_game("substitution", SUBST, ["alice", "bob"])
    with caplog.at_level(logging.WARNING, logger="arena.server"):
        server.games.lose(frozenset({live.id}))  # before its task began
    assert f"game {live.id}: another host took it over" in caplog.text
    await wait_for(lambda: live.id not in server.games._runs, what="its task done")
    assert live.id not in server.live
    assert server.games.of("alice") == [] and server.games.of("bob") == []
