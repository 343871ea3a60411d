"""A person's bots end to end: signed up and made over HTTP, connected over the WebSocket
protocol with the tokens HTTP gave, paired by the ladder (never with each other), and
their games, versions and debug lines read back over HTTP by their person only."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import replace

from arena.server import LadderConfig
from arena.web.config import AccountsConfig
from clients.sdk import ArenaClient, BuiltinBot, Turn
from tests.server.conftest import SUBST
from tests.waiting import wait_for

from .test_accounts_api import PASSWORD, browser


class Thinker(BuiltinBot):
    """The random bot, writing a debug line before each move."""

    async def move(self, turn: Turn) -> str:  # type: ignore[override]
        assert self.arena_client is not None
        await self.arena_client.log(turn.game_id, f"{turn.info.seat}: thinking at {turn.turn}")
        move = super().move(turn)
        return await move if inspect.isawaitable(move) else move


async def test_a_person_s_bots_play_the_ladder_and_their_person_reads_it(make_arena) -> None:
    arena = await make_arena(
        ladder=LadderConfig(game="substitution", settings=SUBST, interval=0.02, seed=5),
        accounts=replace(AccountsConfig(), signup="open"))
    async with browser(arena) as ann, browser(arena) as bob:
        await ann.post("/api/account/signup", {"name": "ann", "password": PASSWORD})
        await bob.post("/api/account/signup", {"name": "bob", "password": PASSWORD})
        tokens = {}
        for who, bot in ((ann, "ann-1"), (ann, "ann-2"), (bob, "bob-1")):
            status, made = await who.post("/api/account/bots", {"name": bot})
            assert status == 200
            tokens[bot] = made["token"]
        assert (await ann.post("/api/account/bots/ann-2/versions", {"note": "v2"}))[0] == 200
        for bot, token in tokens.items():
            client = ArenaClient(arena.url, token,
                                 Thinker("random") if bot == "ann-1" else BuiltinBot("random"),
                                 reconnect_delay=0.05)
            arena.clients.append((client, asyncio.create_task(client.run())))
            await wait_for(client.connected.is_set)
        storage = arena.server.storage

        async def both_played() -> bool:
            return all([await storage.games(bot=bot, status="finished", limit=1)
                        for bot in ("ann-1", "ann-2")])

        await wait_for(both_played, what="a finished game of each of ann's bots")
        status, mine = await ann.get("/api/account/bots")
        assert {b["name"]: b["connected"] for b in mine["bots"]} == {"ann-1": True,
                                                                      "ann-2": True}
        games = {}
        for bot, version in (("ann-1", 1), ("ann-2", 2)):
            status, listed = await ann.get(f"/api/account/bots/{bot}/games")
            assert status == 200 and listed["games"]
            for game in listed["games"]:
                assert set(game["players"]) == {bot, "bob-1"}  # never ann-1 against ann-2
                assert game["version"] == version
            games[bot] = [g for g in listed["games"] if g["status"] == "finished"]
        finished = games["ann-1"][0]
        status, lines = await ann.get(f"/api/account/bots/ann-1/games/{finished['id']}/debug")
        seat = finished["players"].index("ann-1")
        assert status == 200 and lines["seats"] == [seat] and lines["lines"]
        assert all(line["seat"] == seat and line["text"].startswith(f"{seat}: thinking")
                   for line in lines["lines"])
        status, error = await bob.get(f"/api/account/bots/ann-1/games/{finished['id']}/debug")
        assert (status, error["code"]) == (404, "unknown-bot")
        status, versions = await ann.get("/api/account/bots/ann-2/versions")
        second = versions["versions"][1]
        assert second["version"] == 2 and second["games"] >= 1
        assert second["rated_games"] == len(second["history"]) >= 1
