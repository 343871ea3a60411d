"""A person's bots on the server: two of one person never play rated games against each
other (the ladder never pairs them; each plays somebody else's bot), the games the
ladder pairs record each bot's version, and a bot whose token its person replaced, or
whose person was removed, is dropped."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from arena.server import LadderConfig
from arena.server.ladder import Ladder
from clients.sdk import ArenaClient, BuiltinBot
from tests.waiting import wait_for

from .conftest import SUBST, Arena

T0 = 1_700_000_000.0
OWNERS = {"ann-1": "ann", "ann-2": "ann", "bob-1": "bob", "plain": None}


def ladder(names: list[str]) -> tuple[Ladder, list[frozenset[str]]]:
    started: list[frozenset[str]] = []
    return Ladder(replace(LadderConfig(seed=1), pairings_per_hour=0), lambda: names,
                  lambda a, b: started.append(frozenset((a, b))),
                  owner_of=OWNERS.get), started


def test_two_bots_of_one_person_are_never_paired() -> None:
    alone, started = ladder(["ann-1", "ann-2"])
    assert [alone.tick(T0 + second) for second in range(20)] == [0] * 20
    mixed, started = ladder(["ann-1", "ann-2", "bob-1", "plain"])
    for second in range(50):
        mixed.tick(T0 + second)
    assert started and frozenset(("ann-1", "ann-2")) not in started
    assert frozenset(("ann-1", "bob-1")) in started and frozenset(("ann-2", "plain")) in started


async def connect(arena: Arena, token: str) -> ArenaClient:
    client = ArenaClient(arena.url, token, BuiltinBot("random"), reconnect_delay=0.05)
    arena.clients.append((client, asyncio.create_task(client.run())))
    await wait_for(client.connected.is_set)
    return client


async def test_the_server_s_ladder_pairs_a_person_s_bots_only_with_others(make_arena) -> None:
    config = LadderConfig(game="substitution", settings=SUBST, interval=0.02, seed=3,
                          max_games=2)
    arena = await make_arena(ladder=config)
    server, storage = arena.server, arena.server.storage
    await storage.add_person("ann", "hash")
    first = await storage.add_owned_bot("ann", "ann-1", max_bots=5)
    second = await storage.add_owned_bot("ann", "ann-2", max_bots=5)
    await storage.add_version("ann", "ann-2", "better", per_day=5)
    await connect(arena, first)
    await connect(arena, second)
    assert server.ladder is not None
    await wait_for(lambda: sorted(server._ladder_candidates()) == ["ann-1", "ann-2"])
    assert server.ladder.tick(time.time()) == 0  # both free, and not paired
    await arena.client("bob", "random")
    await wait_for(lambda: server.games_finished >= 8)
    games = await storage.games(limit=100)
    pairs = {frozenset(game.players) for game in games}
    assert frozenset(("ann-1", "ann-2")) not in pairs
    assert pairs <= {frozenset(("ann-1", "bob")), frozenset(("ann-2", "bob"))}
    played = await storage.versions_played("ann-2", [g.id for g in games])
    assert played and set(played.values()) == {2}  # the version of the games' start


async def test_a_replaced_token_or_a_removed_person_drops_the_connected_bot(make_arena) -> None:
    arena = await make_arena(revocation_interval=0.05)
    server, storage = arena.server, arena.server.storage
    await storage.add_person("ann", "hash")
    first = await connect(arena, await storage.add_owned_bot("ann", "ann-1", max_bots=5))
    await connect(arena, await storage.add_owned_bot("ann", "ann-2", max_bots=5))
    assert server.sessions["ann-1"].owner == "ann"
    await storage.rotate_token("ann", "ann-1")
    await wait_for(lambda: "ann-1" not in server.sessions)
    assert "ann-2" in server.sessions and not first.connected.is_set()
    await storage.remove_person("ann")
    await wait_for(lambda: "ann-2" not in server.sessions)
