"""A gateway in process (`arena.cluster.gateway`), on NATS under a prefix of its own,
the test playing the hosts' part on the bus: what it announces, relays and frames."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from arena.bus import Message, open_bus
from arena.cluster import gateway
from arena.cluster.messages import (
    BotPresence,
    FromBot,
    Presence,
    ToBot,
    bot_out,
    decode,
    encode,
    gateway_out,
)
from arena.service import PlayerUnavailable
from arena.storage import Storage, StorageFailure
from tests.bus.conftest import nats_prefix, nats_url
from tests.storage.games import played, started
from tests.waiting import wait_for


async def test_a_gateway_announces_relays_and_frames(make_arena: Callable[..., Any]) -> None:
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        heard: list[Message] = []

        async def hear(message: Message) -> None:
            heard.append(message)

        try:
            await bus.subscribe("bots.presence", hear)
            await bus.subscribe("game.g0123.in", hear)  # as the game's host would
            arena = await make_arena(role="gateway", bus=nats_url(prefix),
                                     presence_interval=60.0)
            name = "ann.e_x"  # a name with the characters a subject token lacks
            token = await arena.add_bot(name)
            raw = await arena.raw()
            welcome = await raw.hello(token)
            assert welcome["type"] == "welcome" and welcome["in_progress"] == []

            def online() -> list[Presence]:
                return [news for m in heard if m.subject == "bots.presence"
                        and (news := decode(Presence, m.data)).online
                        and news.online[0].name == name]

            news = (await wait_for(online, 10, "the bot announced"))[0]
            presence = news.online[0]
            assert news.gateway == arena.server.host and presence.gateway == news.gateway
            assert presence.routed  # the hosts send it what it is owed on the gateway's subject

            # a host's message for the bot, on the gateway's one subject, naming it, is
            # framed and sent to it; one naming a bot not connected here is dropped; one
            # on the bot's own subject (an operator's, a host's of the version before) too
            out = gateway_out(arena.server.host)
            await bus.publish(out, encode(ToBot("pong", {"id": 6}, bot="someone.else")))
            await bus.publish(out, encode(ToBot("pong", {"id": 7}, bot=name)))
            assert (await raw.expect("pong"))["id"] == 7
            await bus.publish(bot_out(name), encode(ToBot("pong", {"id": 8})))
            assert (await raw.expect("pong"))["id"] == 8

            # its moves go to their game's host, not played here: for a game its host
            # told it of, published; for another, asked (a host that plays it answers)
            turn = {"game_id": "g0123", "turn": 3, "move_number": 3, "seat": 0, "chance": None,
                    "state": {}, "clock": {"limit_ms": 1000, "bank_ms": 0, "left_ms": 1000},
                    "clocks": [0, 0], "retries_left": 0}
            await bus.publish(out, encode(ToBot("your_turn", turn, bot=name)))
            assert (await raw.expect("your_turn"))["turn"] == 3
            await raw.send("move", game_id="g0123", turn=3, move="x")
            await raw.send("legal", game_id="g0123", turn=3, steps="")
            moves = await wait_for(
                lambda: (found := [m for m in heard if m.subject == "game.g0123.in"])
                and len(found) == 2 and found, 10, "the move and the request on the bus")
            said = decode(FromBot, moves[0].data)
            assert (said.bot, said.conn, said.type) == (name, presence.conn, "move")
            assert said.body == {"game_id": "g0123", "turn": 3, "move": "x"}
            assert decode(FromBot, moves[1].data).type == "legal"

            # a game nobody plays: the bot is told at once, as by one process
            await raw.send("legal", game_id="g0404", turn=2, steps="a")
            error = await raw.expect("error")
            assert error["code"] == "unknown-game" and error["game_id"] == "g0404"
            assert (error["turn"], error["prefix"]) == (2, "a")

            # a gateway starts no game itself: an operator's request goes to a host (none
            # here: the operator is told so)
            operator = await arena.raw()
            await operator.hello(await arena.add_bot("op", operator=True), role="operator")
            await operator.send("request_game", request_id="r1", game="substitution",
                                settings={}, players=["house:random", "house:random"],
                                seed=None)
            error = await operator.expect("error")
            assert error["code"] == "bad-request" and "no game host" in error["message"]
            assert error["request_id"] == "r1" and arena.server.games.live == {}
            with pytest.raises(PlayerUnavailable, match="gateway"):  # none starts here
                arena.server.start_game("substitution", {}, ["house:random"] * 2)

            # the bot connects to another gateway: this older connection is closed, as
            # one process closes a bot's older connection, and its leaving announced
            newer = BotPresence(name, conn="elsewhere", gateway="gateway-b",
                                since=presence.since + 1)
            await bus.publish("bots.presence", encode(Presence("gateway-b", online=(newer,))))
            await raw.ws.wait_closed()
            assert raw.ws.close_code == 4004
            await wait_for(lambda: any(presence.conn in decode(Presence, m.data).gone
                                       for m in heard if m.subject == "bots.presence"),
                           10, "the bot's leaving announced")

            # a host that has not heard of the move yet sends to this gateway: forwarded
            # to the bot's new gateway, once (a forwarded one is not sent on again; one
            # for a bot connected nowhere is dropped): the gateway reads its subject in
            # order and forwards in order, so the last is heard last
            await bus.subscribe(gateway_out("gateway-b"), hear)
            await bus.publish(out, encode(ToBot("pong", {"id": 10}, bot=name, forwarded=True)))
            await bus.publish(out, encode(ToBot("pong", {"id": 11}, bot="nobody")))
            await bus.publish(out, encode(ToBot("pong", {"id": 9}, bot=name)))
            forwarded = await wait_for(
                lambda: [decode(ToBot, m.data) for m in heard
                         if m.subject == gateway_out("gateway-b")], 10, "the message forwarded")
            assert forwarded == [ToBot("pong", {"id": 9}, bot=name, forwarded=True)]
        finally:
            await bus.close()


async def alice_and_bob(make_arena: Callable[..., Any], prefix: str) -> tuple[Any, Storage, str]:
    """A gateway that sweeps every 0.1 s, its database, and the accounts of alice (her
    token) and bob."""
    arena = await make_arena(role="gateway", bus=nats_url(prefix), presence_interval=0.1)
    storage = arena.server.storage
    token = await arena.add_bot("alice")
    await storage.add_bot("bob")
    return arena, storage, token


async def test_a_game_over_its_host_never_announced_is_announced_from_the_database(
        make_arena: Callable[..., Any], monkeypatch: Any) -> None:
    """A bot's game stored as over by a host that died before telling it (or a game
    over while the bot moved between gateways): its gateway finds it quiet, reads the
    result from the database and sends the ``game_over`` its host would have sent."""
    monkeypatch.setattr(gateway, "QUIET", 0.0)
    async with nats_prefix() as prefix:
        arena, storage, token = await alice_and_bob(make_arena, prefix)
        record = played("g1", ("alice", "bob"))
        await storage.start_game(started(record), ladder=False, pair=None)
        raw = await arena.raw()
        welcome = await raw.hello(token)
        assert welcome["in_progress"] == ["g1"]  # from the database: the hosts play it
        await storage.finish_game(record)  # ... and its host died before announcing it
        over = await raw.expect("game_over")
        assert over["game_id"] == "g1" and over["log_id"] == "g1"
        assert over["result"] == record.outcome.result  # type: ignore[union-attr]
        assert over["seed"] == str(record.seed) and over["termination"] == "normal"


async def test_the_game_ends_the_database_keeps_are_sent_once_and_dropped(
        make_arena: Callable[..., Any], monkeypatch: Any) -> None:
    """A game's end kept for a bot (its host stored it so: `Storage.pending_ends`) is
    sent to it once it connects, though nobody on the bus announces it, and one kept
    for a connected bot that its host's ``game_over`` never reached is sent after
    `QUIET`; each once, and dropped from the database as heard."""
    monkeypatch.setattr(gateway, "QUIET", 0.5)
    async with nats_prefix() as prefix:
        arena, storage, token = await alice_and_bob(make_arena, prefix)
        away, lost = played("g1", ("alice", "bob")), played("g2", ("bob", "alice"), seed=7)
        await storage.start_game(started(away), ladder=False, pair=None)
        await storage.finish_game(away, pending=("alice", "bob"))  # over while she was away
        raw = await arena.raw()
        welcome = await raw.hello(token)
        assert welcome["in_progress"] == []
        over = await raw.expect("game_over")
        assert over["game_id"] == "g1" and over["seed"] == str(away.seed)
        assert over["result"] == away.outcome.result  # type: ignore[union-attr]
        # a game whose every message to her was lost (the gateway does not follow it)
        await storage.start_game(started(lost), ladder=False, pair=None)
        await storage.finish_game(lost, pending=("alice", "bob"))
        over = await raw.expect("game_over")
        assert over["game_id"] == "g2" and over["seed"] == "7"

        async def dropped() -> bool:
            kept = await storage.pending_ends(["alice", "bob"])
            return [(bot, row.id) for bot, row in kept] == [("bob", "g1"), ("bob", "g2")]

        await wait_for(dropped, 10, "alice's ends dropped as heard, bob's kept")
        await raw.send("ping", id=1)  # nothing more came before its answer
        assert (await raw.recv())["type"] == "pong"


async def test_the_bots_asked_about_their_kept_ends_take_turns(
        make_arena: Callable[..., Any], monkeypatch: Any) -> None:
    """A sweep asks the database about `MAX_PENDING_NAMES` of the bots connected at most
    (the query does not grow with them): in turn, so every bot's lost game end comes."""
    monkeypatch.setattr(gateway, "QUIET", 0.0)
    monkeypatch.setattr(gateway, "MAX_PENDING_NAMES", 1)
    async with nats_prefix() as prefix:
        arena, storage, token = await alice_and_bob(make_arena, prefix)
        raws = [await arena.raw() for _ in range(3)]
        names = ["alice", "carol", "dave"]
        tokens = [token, await arena.add_bot("carol"), await arena.add_bot("dave")]
        for raw, bot_token in zip(raws, tokens, strict=True):
            assert (await raw.hello(bot_token))["type"] == "welcome"
        relay = arena.server.clients.relay
        await wait_for(lambda: len(relay.bots) == 3 and not any(
            bot.fresh for bot in relay.bots.values()), 10, "the bots swept once")
        games = [played(f"g{i}", (name, "bob")) for i, name in enumerate(names)]
        for game, name in zip(games, names, strict=True):  # each end lost on the way
            await storage.start_game(started(game), ladder=False, pair=None)
            await storage.finish_game(game, pending=(name, "bob"))
        for i, raw in enumerate(raws):
            assert (await raw.expect("game_over"))["game_id"] == f"g{i}"


async def test_an_idle_bot_costs_the_sweeps_nothing(
        make_arena: Callable[..., Any], monkeypatch: Any) -> None:
    """A sweep visits the bots with games in flight, and those that connected or saw a
    game end within `ACTIVE` seconds (0 here): an idle bot is visited once, as it
    connects (its game ends kept while it was away), then never while it stays idle;
    a game brings it back until the game ends."""
    monkeypatch.setattr(gateway, "ACTIVE", 0.0)
    async with nats_prefix() as prefix:
        arena, _, token = await alice_and_bob(make_arena, prefix)
        bus = await open_bus(nats_url(prefix))
        try:
            relay = arena.server.clients.relay
            visited: list[list[str]] = []
            real = relay._visited

            def recording(now: float) -> list[Any]:
                busy = real(now)
                visited.append(sorted(bot.session.name for bot in busy))
                return busy

            monkeypatch.setattr(relay, "_visited", recording)
            raws = [await arena.raw() for _ in range(3)]
            tokens = [token, await arena.add_bot("carol"), await arena.add_bot("dave")]
            for raw, bot_token in zip(raws, tokens, strict=True):
                assert (await raw.hello(bot_token))["type"] == "welcome"
            await wait_for(lambda: len(relay.bots) == 3 and visited[-3:] == [[], [], []],
                           10, "the idle bots visited no more")
            assert sorted(name for names in visited for name in names) == [
                "alice", "carol", "dave"]  # each once, as it connected
            visits = relay.visits

            out = gateway_out(arena.server.host)  # a host tells alice of a game
            turn = {"game_id": "g1", "turn": 1, "move_number": 1, "seat": 0, "chance": None,
                    "state": {}, "clock": {"limit_ms": 1000, "bank_ms": 0, "left_ms": 1000},
                    "clocks": [0, 0], "retries_left": 0}
            await bus.publish(out, encode(ToBot("your_turn", turn, bot="alice")))
            await raws[0].expect("your_turn")
            swept = len(visited)
            await wait_for(lambda: visited[swept:].count(["alice"]) >= 3, 10,
                           "alice visited while she plays")
            await bus.publish(out, encode(ToBot("game_over", {
                "game_id": "g1", "result": "first", "winner": 0, "scores": None,
                "termination": "normal", "reason": "the game ended", "log_id": "g1",
                "seed": None}, bot="alice")))
            await raws[0].expect("game_over")
            await wait_for(lambda: visited[-3:] == [[], [], []], 10, "alice idle again")
            assert {name for names in visited[swept:] for name in names} == {"alice"}
            assert relay.visits == visits + sum(map(len, visited[swept:]))
        finally:
            await bus.close()


async def test_a_hello_the_database_cannot_answer_is_told_so(
        make_arena: Callable[..., Any]) -> None:
    """A gateway whose database fails as it reads a bot's games in progress for its
    ``welcome`` says so and closes with 1013 (try later), as when the token cannot be
    checked (not a handler's failure, 1011)."""
    async with nats_prefix() as prefix:
        arena = await make_arena(role="gateway", bus=nats_url(prefix))
        token = await arena.add_bot("alice")

        async def fails(name: str) -> list[str]:
            raise StorageFailure("too many clients already")

        arena.server.clients.relay.running_games = fails
        raw = await arena.raw()
        error = await raw.hello(token)
        assert error["type"] == "error" and error["code"] == "storage-unavailable"
        await raw.ws.wait_closed()
        assert raw.ws.close_code == 1013


async def test_a_gateway_shows_the_web_a_game_as_its_moves_are_stored(
        make_arena: Callable[..., Any]) -> None:
    """The web on a gateway (which plays no game) sees a running game's state as of its
    last stored move, rebuilt from the database; never its seed."""
    import asyncio

    from tests.server.test_ladder_and_http import get
    from tests.storage.games import turns_of

    async with nats_prefix() as prefix:
        arena = await make_arena(role="gateway", bus=nats_url(prefix))
        storage = arena.server.storage
        record = played("g2", ("alice", "bob"), moves=3)
        await storage.start_game(started(record), ladder=False, pair=None)
        await storage.append_turns(turns_of(record)[:2])
        status, shown = await asyncio.to_thread(get, arena, "/api/games/g2")
        assert status == 200 and shown["status"] == "running"
        assert shown["live"]["turn"] == 2 and shown["live"]["players"] == ["alice", "bob"]
        assert str(record.seed) not in json.dumps(shown)
        await storage.append_turns(turns_of(record)[2:3])  # a move more: rebuilt again
        assert (await asyncio.to_thread(get, arena, "/api/games/g2"))[1]["live"]["turn"] == 3
        await storage.finish_game(record)
        assert "live" not in (await asyncio.to_thread(get, arena, "/api/games/g2"))[1]


async def test_a_gateway_takes_the_bots_of_the_others_for_connected(
        make_arena: Callable[..., Any]) -> None:
    """The web's "connected" on a gateway is the arena's: a bot the other gateways
    announce is connected until they say it left, or fall silent."""
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        try:
            arena = await make_arena(role="gateway", bus=nats_url(prefix),
                                     presence_interval=0.5)  # silent: after 1.5 s
            server = arena.server

            async def say(gateway: str, *online: BotPresence, gone: tuple[str, ...] = ()) -> None:
                await bus.publish("bots.presence", encode(Presence(gateway, online, gone)))

            assert not server.connected("bob")
            await say("gateway-b", BotPresence("bob", conn="b1", gateway="gateway-b"),
                      BotPresence("carol", conn="c1", gateway="gateway-b"))
            await wait_for(lambda: server.connected("bob") and server.connected("carol"),
                           10, "bob and carol connected elsewhere")
            await say("gateway-b", BotPresence("bob", conn="b2", gateway="gateway-b"))
            await say("gateway-b", gone=("b1",))  # his older connection: still connected
            await say("gateway-b", gone=("c1",))
            await wait_for(lambda: not server.connected("carol"), 10, "carol left")
            assert server.connected("bob")
            await wait_for(lambda: not server.connected("bob"), 10,
                           "bob forgotten with his silent gateway")
        finally:
            await bus.close()


async def test_heartbeats_go_on_while_the_lookups_and_the_sender_wait(
        make_arena: Callable[..., Any], monkeypatch: Any) -> None:
    """Under load a gateway's lookups of quiet games waited for the database and its
    sender for the bus; the snapshots (the heartbeats now), behind them, came too late
    and the hosts took every bot of this live gateway for gone, over and over
    (bench_rolling, 2 000 bots)."""
    import asyncio

    monkeypatch.setattr(gateway, "QUIET", 0.0)  # every game quiet: looked up each round
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        beats: list[Presence] = []

        async def hear(message: Message) -> None:
            news = decode(Presence, message.data)
            if not (news.online or news.gone or news.snapshot) and news.count == 1:
                beats.append(news)  # a heartbeat, alice announced

        try:
            await bus.subscribe("bots.presence", hear)
            arena = await make_arena(role="gateway", bus=nats_url(prefix),
                                     presence_interval=0.1)
            storage = arena.server.storage
            token = await arena.add_bot("alice")
            await storage.add_bot("bob")
            await storage.start_game(started(played("g1", ("alice", "bob"))), ladder=False,
                                     pair=None)
            raw = await arena.raw()
            assert (await raw.hello(token))["in_progress"] == ["g1"]
            await wait_for(lambda: beats, 10, "a heartbeat counting alice")
            stuck = asyncio.Event()
            looked_up = asyncio.Event()

            async def slow_game(game_id: str) -> Any:
                looked_up.set()
                await stuck.wait()  # a database the loaded pool makes wait

            monkeypatch.setattr(storage, "game", slow_game)
            relay = arena.server.clients.relay
            relay.sender.call(stuck.wait)  # a sender held up (the bus slow to answer)
            await wait_for(looked_up.is_set, 10, "a lookup under way")
            before = len(beats)
            await wait_for(lambda: len(beats) >= before + 3, 10, "heartbeats go on")
            stuck.set()
        finally:
            await bus.close()
