"""A gateway in process (`arena.cluster.gateway`), on NATS under a prefix of its own,
the test playing the hosts' part on the bus: what it announces, relays and frames."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.bus import Message, open_bus
from arena.cluster.messages import FromBot, Presence, ToBot, bot_out, decode, encode
from tests.bus.conftest import nats_prefix, nats_url
from tests.waiting import wait_for


async def test_a_gateway_announces_relays_and_frames(make_arena: Callable[..., Any]) -> None:
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        heard: list[Message] = []

        async def hear(message: Message) -> None:
            heard.append(message)

        try:
            await bus.subscribe("bots.presence", hear)
            await bus.subscribe("game.*.in", hear)
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

            # a host's message for the bot is framed and sent to it
            await bus.publish(bot_out(name), encode(ToBot("pong", {"id": 7})))
            assert (await raw.expect("pong"))["id"] == 7

            # its move goes to the game's host, not played here
            await raw.send("move", game_id="g0123", turn=3, move="x")
            moves = await wait_for(lambda: [m for m in heard if m.subject == "game.g0123.in"],
                                   10, "the move on the bus")
            said = decode(FromBot, moves[0].data)
            assert (said.bot, said.conn, said.type) == (name, presence.conn, "move")
            assert said.body == {"game_id": "g0123", "turn": 3, "move": "x"}

            # a gateway starts no game itself: an operator's request is refused, saying why
            operator = await arena.raw()
            await operator.hello(await arena.add_bot("op", operator=True), role="operator")
            await operator.send("request_game", request_id="r1", game="substitution",
                                settings={}, players=["house:random", "house:random"],
                                seed=None)
            error = await operator.expect("error")
            assert error["code"] == "bad-request" and "gateway" in error["message"]
            assert arena.server.games.live == {}

            await raw.ws.close()
            await wait_for(lambda: any(presence.conn in decode(Presence, m.data).gone
                                       for m in heard if m.subject == "bots.presence"),
                           10, "the bot's leaving announced")
        finally:
            await bus.close()
