"""The lobby on a cluster, in process (docs/cluster.md, "The lobby on a cluster"): one
host (the leader: it keeps the challenges) and two gateways on one PostgreSQL schema and
a NATS prefix of their own. Challenges between bots on different gateways, the web's
challenges and games started on a gateway, all played to the end on the host, with the
same messages and errors as one process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import msgspec

from arena.bus import Message as BusMessage
from arena.cluster.messages import BotPresence, LobbyAsk, encode
from arena.server.challenges import ChallengeLimits
from tests.bus.conftest import nats_prefix, nats_url
from tests.server.conftest import Arena
from tests.server.test_challenges import LADDER, Answering
from tests.storage.conftest import postgres_schema
from tests.waiting import wait_for


@asynccontextmanager
async def lobby(make_arena: Callable[..., Any],
                **more: Any) -> AsyncIterator[tuple[Arena, Arena, Arena]]:
    """A leading host and two gateways (their bots' presence at 0.2 s), with `more`
    options."""
    async with postgres_schema() as db, nats_prefix() as prefix:
        options = {"db": db, "bus": nats_url(prefix), "presence_interval": 0.2,
                   "ladder": LADDER, **more}
        host = await make_arena(role="host", host_id="host-1", **options)
        gateways = [await make_arena(role="gateway", host_id=f"gateway-{n}", **options)
                    for n in (1, 2)]
        role = host.app.role
        assert role is not None
        await wait_for(lambda: getattr(role.side, "leading", False), 20, "the host leads")
        try:
            yield host, gateways[0], gateways[1]
        finally:
            for arena in (*gateways, host):
                await arena.close()


async def finished(host: Arena, game_ids: list[str]) -> list[Any]:
    storage = host.server.storage

    async def over() -> list[Any] | None:
        games = [await storage.game(game_id) for game_id in game_ids]
        return games if all(g is not None and g.status == "finished" for g in games) else None

    found: list[Any] = await wait_for(over, 30, "the games played to the end")
    return found


async def refusals(arena: Arena, name: str) -> list[dict[str, Any]]:
    """The errors a raw bot `name` gets for challenges refused at once."""
    raw = await arena.raw()
    await raw.hello(await arena.add_bot(name), capabilities=["challenges"], seek=False)
    errors = []
    for n, opponent in enumerate(["dave", name, "house:random"]):
        await raw.send("challenge", opponent=opponent, rated=False, request_id=f"q{n}")
        errors.append(await raw.expect("error"))
    return errors


async def running(host: Arena, name: str) -> bool:
    return len(await host.server.storage.games(bot=name, status="running")) == 2


async def test_a_challenge_between_gateways_is_played_and_refusals_read_as_one_process(
        make_arena: Callable[..., Any]) -> None:
    async with lobby(make_arena, challenges=ChallengeLimits(timeout=2.0)) as (
            host, first, second):
        alice = await first.client("alice", Answering(None), challenges=True, seek=False)
        bob_bot = Answering(True)
        bob = await second.client("bob", bob_bot, challenges=True, seek=False)
        carol = await second.client("carol", Answering(False), challenges=True, seek=False)
        silent = Answering(None)
        await second.client("sam", silent, challenges=True, seek=False)
        await wait_for(lambda: {"alice", "bob", "carol", "sam"} <= host.server.sessions.keys(),
                       10, "the host knows the bots of both gateways")

        status = await alice.challenge("bob")  # bob is asked (on his gateway) and accepts
        assert status["status"] == "accepted" and len(status["game_ids"]) == 2
        notice, = bob_bot.notices
        assert notice.challenger == "alice" and notice.rated is False
        games = await finished(host, status["game_ids"])
        assert [g.players for g in games] == [("alice", "bob"), ("bob", "alice")]
        assert all(g.termination == "normal" for g in games)
        await wait_for(lambda: len(alice.results) == len(bob.results) == 2, 10,
                       "both bots told of both results")

        declined = await alice.challenge("carol")
        assert declined["status"] == "declined" and declined["reason"] == "carol declined"
        # no answer: it expires on the host, and both bots hear it on their gateways
        expired = await alice.challenge("sam")
        assert expired["status"] == "expired" and expired["reason"] == "no answer within 2 s"
        assert [notice.challenger for notice in silent.notices] == ["alice"]

        # refusals: the very messages one process sends
        said = await refusals(first, "erin")
        alone = await make_arena(ladder=LADDER)
        await alone.client("alice", Answering(None), challenges=True, seek=False)
        await alone.client("bob", Answering(None), challenges=True, seek=False)
        assert said == await refusals(alone, "erin")
        assert [error["message"] for error in said] == [
            "bot 'dave' is not connected", "a bot cannot challenge itself",
            "'house:random': house bots take no challenges"]

        # a policy set on a gateway answers the challenges kept on the host
        await carol.set_policy("auto")
        await wait_for(lambda: host.server.challenges.policies["carol"].mode == "auto", 10,
                       "carol's policy on the host")
        accepted = await alice.challenge("carol", rated=False)
        assert accepted["status"] == "accepted"
        await finished(host, accepted["game_ids"])

        # the host that keeps the challenges stops: its pending ones end, heard by both
        waiting = asyncio.create_task(alice.challenge("sam"))
        await wait_for(lambda: len(silent.notices) == 2, 10, "sam asked again")
        await host.close()
        ended = await waiting
        assert ended["status"] == "cancelled"
        assert ended["reason"] == "the game host that kept it stopped: challenge again"


async def test_a_leader_that_stops_leading_tells_the_bots_only_of_the_cancels_it_stored(
        make_arena: Callable[..., Any]) -> None:
    """A leader that loses its lead while alive (its database failing, or another host
    leading in that instant) ends a pending challenge as ``cancelled``, both bots told,
    only once that end is stored as its own: one the next leader took over already is
    left to it, untold, and stays pending in the database."""
    async with lobby(make_arena) as (host, first, second):
        alice = await first.client("alice", Answering(None), challenges=True, seek=False)
        silent = Answering(None)
        await second.client("sam", silent, challenges=True, seek=False)
        await wait_for(lambda: {"alice", "sam"} <= host.server.sessions.keys(), 10,
                       "the host knows both bots")
        storage = host.server.storage

        async def asked(ids: list[str]) -> bool:
            return [c.id for c in await storage.pending_challenges() if c.asked] == ids

        taken = asyncio.create_task(alice.challenge("sam"))
        await wait_for(lambda: len(silent.notices) == 1, 10, "sam asked")
        taken_id = silent.notices[0].challenge_id
        await wait_for(lambda: asked([taken_id]), 10, "the challenge stored, sam asked")
        assert [c.id for c in await storage.take_challenges("host-2")] == [taken_id]

        kept = asyncio.create_task(alice.challenge("sam"))
        await wait_for(lambda: len(silent.notices) == 2, 10, "sam asked again")
        kept_id = silent.notices[1].challenge_id
        await wait_for(lambda: asked([taken_id, kept_id]), 10, "the second stored too")
        role = host.app.role
        assert role is not None
        await role.side.stop_pairing()  # the lead lost, the host alive
        ended = await asyncio.wait_for(kept, 10)
        assert (ended["challenge_id"], ended["status"]) == (kept_id, "cancelled")
        stored = await storage.challenge(kept_id)
        assert stored is not None and stored.ended is not None
        assert (stored.ended["status"], stored.keeper) == ("cancelled", "host-1")
        assert not taken.done()  # untold: the next leader keeps it
        assert [(c.id, c.keeper) for c in await storage.pending_challenges()] == [
            (taken_id, "host-2")]
        taken.cancel()


async def test_the_web_on_a_gateway_starts_games_and_challenges_on_a_host(
        make_arena: Callable[..., Any]) -> None:
    async with lobby(make_arena) as (host, first, second):
        await second.client("bob", Answering(None), seek=False, accept={"mode": "auto"})
        name, guest = await first.guest(Answering(None))
        await wait_for(lambda: {"bob", name} <= host.server.sessions.keys(), 10,
                       "the host knows the guest and bob")
        token = guest.token
        web = f"http://127.0.0.1:{first.app.port}"
        headers = {"Authorization": f"Bearer {token}"}
        await wait_for(lambda: second.server.connected(name), 10,
                       "the other gateway takes the guest for connected")
        async with aiohttp.ClientSession(headers=headers) as http:
            # a game against a house bot, started on a gateway (even one the guest's
            # socket is not connected to: a balancer may send its page elsewhere),
            # played on the host
            elsewhere = f"http://127.0.0.1:{second.app.port}"
            async with http.post(f"{elsewhere}/api/play", json={"game": "substitution",
                                                          "settings": LADDER.settings,
                                                          "seat": 1}) as answer:
                started = await answer.json()
                assert answer.status == 200, started
            assert started["players"][1] == name
            game_id = started["game_id"]
            game, = await finished(host, [game_id])
            assert game.players[1] == name and game.termination == "normal"
            await wait_for(lambda: any(r.game_id == game_id for r in guest.results), 10,
                           "the guest told of the result")

            # a challenge from the browser's guest on gateway 1 to bob on gateway 2
            async with http.post(f"{web}/api/challenges", json={"bot": "bob"}) as answer:
                opened = await answer.json()
                assert answer.status == 200, opened
            challenge_id = opened["challenge_id"]

            async def accepted() -> dict[str, Any] | None:
                async with http.get(f"{web}/api/challenges/{challenge_id}") as answer:
                    status: dict[str, Any] = await answer.json()
                return status if status["status"] == "accepted" else None

            status = await wait_for(accepted, 10, "the challenge accepted")
            game, = await finished(host, status["game_ids"])
            assert game.players == (name, "bob")

            # refused on the host as in one process: the same status and code
            async with http.post(f"{web}/api/challenges", json={"bot": "dave"}) as answer:
                refused = await answer.json()
                assert answer.status == 409
            assert refused["code"] == "bad-challenge"
            assert refused["message"] == "bot 'dave' is not connected"
            async with http.get(f"{web}/api/challenges/c000000000000") as answer:
                assert answer.status == 404


        # a guest that does not move (its games wait on its clock) plays 2 games at
        # most, wherever its page asks: here its socket's gateway, then the other
        slow, token = await host.server.storage.add_guest(3600.0)
        raw = await first.raw()
        await raw.hello(token)
        await wait_for(lambda: slow in host.server.sessions, 10, "the host knows the guest")
        game = {"game": "substitution", "settings": LADDER.settings}
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as http:
            for _ in range(2):
                async with http.post(f"{web}/api/play", json=game) as answer:
                    assert answer.status == 200, await answer.text()
            for url in (web, elsewhere):
                if url == elsewhere:  # what another gateway knows: the games stored
                    await wait_for(lambda: running(host, slow), 10, "both stored")
                async with http.post(f"{url}/api/play", json=game) as answer:
                    refused = await answer.json()
                    assert answer.status == 409 and refused["code"] == "too-many-games"

        # a gateway of the version before asks ``play`` (a guest's game on the host's web
        # time control): still answered, during a rolling upgrade
        idle, token = await host.server.storage.add_guest(3600.0)
        raw = await first.raw()
        await raw.hello(token)  # and never moves: its game waits on its clock
        await wait_for(lambda: idle in host.server.sessions, 10, "the host knows the guest")
        role = host.app.role
        assert role is not None
        older = LobbyAsk("play", {"game": "substitution", "settings": LADDER.settings,
                                  "players": [idle, "house:random"]})
        answer = msgspec.msgpack.decode(
            await role.side._play(BusMessage("lobby.play", encode(older))))
        assert answer["error"] == "", answer
        live = host.server.games.live[answer["fields"]["game_id"]]
        assert live.control == host.server.config.web_time_control


async def test_a_challenge_names_its_opponent_the_leader_has_not_heard_of_yet(
        make_arena: Callable[..., Any]) -> None:
    """A bot that challenges another just after both connected to one gateway is not
    refused because the news of the other's connection is still on its way: the gateway
    sends the opponent's presence along, and the leading host takes it for connected."""
    async with postgres_schema() as db, nats_prefix() as prefix:
        host = await make_arena(role="host", host_id="host-1", db=db, bus=nats_url(prefix),
                                ladder=LADDER)
        try:
            side = host.app.role.side
            await wait_for(lambda: getattr(side, "leading", False), 20, "the host leads")
            alice, zed = (BotPresence(name, conn=f"c-{name}", gateway="gateway-9", since=1.0,
                                      games=("substitution",), challenges=True)
                          for name in ("alice", "zed"))
            asked = LobbyAsk("challenge_status", {"challenge_id": "none"}, alice, (zed,))
            answer = msgspec.msgpack.decode(
                await side._challenges(BusMessage("lobby.challenges", encode(asked))))
            assert answer["error"] == ""  # answered (no such challenge)
            assert {"alice", "zed"} <= host.server.sessions.keys()
            assert host.server.sessions["zed"].presence.gateway == "gateway-9"
        finally:
            await host.close()
