"""A host in process (`arena.cluster.host`) on NATS under a prefix of its own, the test
playing the gateways' part on the bus: whom it takes for connected, and where what it
says to a bot goes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from arena.bus import Message, open_bus
from arena.cluster.host import HostSide, RemoteSession
from arena.cluster.messages import (
    BotPresence,
    Handover,
    Presence,
    StartPairing,
    ToBot,
    bot_out,
    decode,
    encode,
    gateway_out,
)
from arena.server.app import Pairing
from tests.bus.conftest import nats_prefix, nats_url
from tests.storage.games import ended, started
from tests.waiting import wait_for


async def test_a_host_follows_the_gateways_presence(make_arena: Callable[..., Any]) -> None:
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        told: list[Message] = []

        async def hear(message: Message) -> None:
            told.append(message)

        try:
            host = await make_arena(role="host", bus=nats_url(prefix), presence_interval=1.0)
            sessions = host.server.sessions

            async def say(gateway: str, *online: BotPresence, gone: tuple[str, ...] = ()) -> None:
                await bus.publish("bots.presence", encode(Presence(gateway, online, gone)))

            alice = BotPresence("alice", conn="a2", gateway="g2", since=20.0, games=("sim",))
            await say("g2", alice)
            session = await wait_for(lambda: sessions.get("alice"), 10, "alice connected")
            assert isinstance(session, RemoteSession) and session.games_played == {"sim"}

            # an older connection of alice's, still in its gateway's snapshot: ignored
            await say("g1", BotPresence("alice", conn="a1", gateway="g1", since=10.0),
                      BotPresence("bob", conn="b1", gateway="g1", since=10.0))
            await wait_for(lambda: "bob" in sessions, 10, "bob connected")
            assert sessions["alice"] is session
            await say("g1", gone=("a1",))  # its end changes nothing either
            await say("g2", BotPresence("alice", conn="a2", gateway="g2", since=20.0,
                                        seeking=False))  # a pause: the same session
            await wait_for(lambda: not session.seeking, 10, "alice paused")
            assert sessions["alice"] is session

            # what a host's games say to alice goes to her gateway's subject for her
            await bus.subscribe(bot_out("alice"), hear)
            assert session.send("pong", id=3)
            assert session.rate is not None
            session.rate.credit()  # (a turn, or an aid within its limits: budgeted)
            assert session.send("legal_steps", game_id="g1")
            heard = await wait_for(lambda: len(told) == 2 and told, 10, "alice's messages")
            assert [decode(ToBot, message.data) for message in heard] == [
                ToBot("pong", {"id": 3}), ToBot("legal_steps", {"game_id": "g1"}, credit=1)]

            # alice connects to a gateway that routes (one subscription for its bots): what
            # is said to her goes there from now on, naming her
            told.clear()
            await bus.subscribe(gateway_out("g3"), hear)
            await say("g3", BotPresence("alice", conn="a3", gateway="g3", since=30.0,
                                        routed=True))
            session = await wait_for(lambda: (now := sessions["alice"]) is not session and now,
                                     10, "alice's newer connection followed")
            assert session.send("pong", id=4)
            heard = await wait_for(lambda: told, 10, "alice's message on her gateway's subject")
            assert [(message.subject, decode(ToBot, message.data)) for message in heard] == [
                (gateway_out("g3"), ToBot("pong", {"id": 4}, bot="alice"))]

            await say("g3", gone=("a3",))
            await wait_for(lambda: "alice" not in sessions, 10, "alice gone")
            assert "bob" in sessions
            await wait_for(lambda: "bob" not in sessions, 30,
                           "bob gone with his silent gateway")
            assert host.server.counts().connected_bots == 0  # a host's bots are not its own
        finally:
            await bus.close()


async def test_a_stopping_hosts_handover_is_claimed_at_once(make_arena: Callable[..., Any]) -> None:
    """A host that stops says so on ``hosts.handover`` once its games' leases are ended:
    a live host claims them then, not at its lease keeper's next round (a third of a
    lease: 20 s here, longer than the test waits)."""
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        try:
            host = await make_arena(role="host", bus=nats_url(prefix), lease_seconds=60.0,
                                    host_id="host-b")
            storage = host.server.storage
            await storage.start_game(started(ended("g1", ("alice", "bob"), 0)), ladder=False,
                                     pair=None, host="host-a", lease=600.0)
            assert await storage.release_leases("host-a") == ["g1"]
            await bus.publish("hosts.handover", encode(Handover("host-b", 1)))  # its own: no
            await bus.publish("hosts.handover", encode(Handover("host-a", 1)))

            async def taken() -> bool:
                return [(lease.game_id, lease.host) for lease in await storage.leases()] == [
                    ("g1", "host-b")]

            await wait_for(taken, 10, "the game handed over, claimed by the live host")
            await wait_for(lambda: "g1" in host.server.games.live, 10, "resumed there")
        finally:
            await bus.close()


async def test_a_pairing_forgotten_while_it_waits_to_be_queued_is_not_queued(
        make_arena: Callable[..., Any]) -> None:
    """The leader's puts on the queue fall behind its pairing under load: a pairing that
    waited so long that the games in flight no longer count it (its bots paired again)
    is not put; one still counted is."""
    async with nats_prefix() as prefix:
        arena = await make_arena(role="host", bus=nats_url(prefix))
        host = arena.app._role.side
        assert isinstance(host, HostSide)
        put: list[str] = []
        real = host.bus.put

        async def recording(queue: str, data: bytes) -> None:
            put.append(decode(StartPairing, data).pair)
            await real(queue, data)

        host.bus.put = recording
        release = asyncio.Event()
        for _ in range(host._puts.size):  # the puts before, waiting for the broker
            host._puts.call(release.wait)
        for pair, players in (("p1", ("alice", "bob")), ("p2", ("carol", "dave"))):
            host._put_pairing(Pairing("sim", *players, pair, {}, (None, None)))
        players, at = host._queued["p1"]
        host._queued["p1"] = (players, at - 100.0)  # queued 100 s ago
        await host._count_games()
        assert "p1" not in host._queued and "p2" in host._queued
        release.set()
        await wait_for(lambda: put == ["p2"] and host.stale_pairings == 1, 10,
                       "the pairing still counted put, the other not")
