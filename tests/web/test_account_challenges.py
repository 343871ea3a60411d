"""A signed-in person challenges a named bot with one of their own connected bots:
POST /api/account/bots/{bot}/challenges, read back through GET /api/challenges/{id};
the same rules as a bot's ``challenge`` message (the opponent's policy, rated games
only on rated ladders and not between two bots of one person), and the owner only."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from arena.config import ChallengeLimits
from arena.server import LadderConfig
from arena.web.config import AccountsConfig
from clients import ArenaClient
from tests.server.conftest import SUBST, Arena
from tests.server.test_challenges import Answering
from tests.waiting import wait_for
from tests.web.test_accounts_api import PASSWORD, Browser, browser

LADDER = LadderConfig(game="substitution", settings={**SUBST, "moves": 4}, interval=3600.0,
                      max_games=4, seed=1)
PRACTICE = LadderConfig(game="substitution", settings={**SUBST, "moves": 3},
                        interval=3600.0, max_games=4, name="practice", rated=False)


async def _arena(make_arena, **options: Any) -> Arena:
    return await make_arena(ladders=(LADDER, PRACTICE),
                            accounts=replace(AccountsConfig(), signup="open"), **options)


async def _own_bot(arena: Arena, person: Browser, name: str, *, connect: bool = True,
                   **options: Any) -> None:
    """`person` makes the bot `name` and, if told, connects it (out of the pairing)."""
    status, made = await person.post("/api/account/bots", {"name": name})
    assert status == 200, made
    if connect:
        client = ArenaClient(arena.url, made["token"], Answering(None), seek=False,
                             reconnect_delay=0.05, **options)
        arena.clients.append((client, asyncio.create_task(client.run())))
        async with asyncio.timeout(5):
            await client.connected.wait()


async def _settled(person: Browser, opened: dict[str, Any]) -> dict[str, Any]:
    async def ended() -> dict[str, Any] | None:
        status, answer = await person.get(f"/api/challenges/{opened['challenge_id']}")
        assert status == 200, answer
        return answer if answer["status"] != "pending" else None

    return await wait_for(ended)


@pytest.mark.parametrize("rated", [True, False])
async def test_a_person_s_bot_challenges_a_bot_that_accepts(make_arena, rated: bool) -> None:
    arena = await _arena(make_arena)
    await arena.client("bob", Answering(None), seek=False, accept={"mode": "auto"})
    async with browser(arena) as ann:
        await ann.post("/api/account/signup", {"name": "ann", "password": PASSWORD})
        await _own_bot(arena, ann, "ann-bot")
        status, opened = await ann.post("/api/account/bots/ann-bot/challenges",
                                        {"opponent": "bob", "rated": rated})
        assert status == 200, opened
        assert (opened["challenger"], opened["opponent"], opened["rated"]) == (
            "ann-bot", "bob", rated)
        answer = await _settled(ann, opened)
    assert answer["status"] == "accepted" and len(answer["game_ids"]) == 2
    storage = arena.server.storage

    async def stored() -> list[Any] | None:
        games = [await storage.game(game_id) for game_id in answer["game_ids"]]
        return games if all(game is not None for game in games) else None

    games = await wait_for(stored)
    assert sorted(tuple(game.players) for game in games) == [("ann-bot", "bob"),
                                                             ("bob", "ann-bot")]
    assert [game.ladder for game in games] == [rated, rated]
    assert {game.settings["moves"] for game in games} == {4}  # the first ladder's settings


async def test_a_declined_challenge_and_one_on_the_ladder_it_names(make_arena) -> None:
    arena = await _arena(make_arena)
    await arena.client("carol", Answering(None), seek=False, accept={"mode": "decline"})
    await arena.client("bob", Answering(None), seek=False, accept={"mode": "auto"})
    async with browser(arena) as ann:
        await ann.post("/api/account/signup", {"name": "ann", "password": PASSWORD})
        await _own_bot(arena, ann, "ann-bot")
        status, opened = await ann.post("/api/account/bots/ann-bot/challenges",
                                        {"opponent": "carol"})
        assert status == 200, opened
        answer = await _settled(ann, opened)
        assert (answer["status"], answer["reason"]) == ("declined",
                                                        "the bot declines challenges")
        status, error = await ann.post("/api/account/bots/ann-bot/challenges",
                                       {"opponent": "bob", "ladder": "practice",
                                        "rated": True})
        assert (status, error["code"]) == (409, "bad-challenge")
        assert "'practice' is unrated" in error["message"]
        status, opened = await ann.post("/api/account/bots/ann-bot/challenges",
                                        {"opponent": "bob", "ladder": "practice"})
        answer = await _settled(ann, opened)
        assert answer["status"] == "accepted"
        game = await arena.server.storage.game(answer["game_ids"][0])
        assert game is not None and game.settings["moves"] == 3 and game.ladder is False


async def test_only_the_owner_challenges_with_a_connected_bot(make_arena) -> None:
    arena = await _arena(make_arena)
    await arena.client("bob", Answering(None), seek=False, accept={"mode": "auto"})
    async with browser(arena) as ann, browser(arena) as eve:
        status, error = await ann.post("/api/account/bots/ann-bot/challenges",
                                       {"opponent": "bob"})
        assert (status, error["code"]) == (401, "not-signed-in")
        await ann.post("/api/account/signup", {"name": "ann", "password": PASSWORD})
        await eve.post("/api/account/signup", {"name": "eve", "password": PASSWORD})
        await _own_bot(arena, ann, "ann-bot")
        await _own_bot(arena, ann, "ann-two")
        await _own_bot(arena, ann, "ann-off", connect=False)
        status, error = await eve.post("/api/account/bots/ann-bot/challenges",
                                       {"opponent": "bob"})
        assert (status, error["code"]) == (403, "not-your-bot")
        status, error = await ann.post("/api/account/bots/ann-bot/challenges",
                                       {"opponent": "bob"}, Origin="https://evil.example")
        assert (status, error["code"]) == (403, "cross-site")
        status, error = await ann.post("/api/account/bots/ann-off/challenges",
                                       {"opponent": "bob"})
        assert (status, error["code"]) == (409, "not-connected")
        assert error["params"] == {"reason": "own-bot", "bot": "ann-off"}
        status, error = await ann.post("/api/account/bots/ann-bot/challenges",
                                       {"opponent": "ann-two", "rated": True})
        assert (status, error["code"]) == (409, "bad-challenge")
        assert "bots of ann's" in error["message"]
        assert error["params"] == {"reason": "same-owner", "owner": "ann"}
        status, error = await ann.post("/api/account/bots/ann-bot/challenges",
                                       {"opponent": "bob", "ladder": "nine"})
        assert (status, error["code"]) == (404, "unknown-ladder")
        status, error = await ann.post("/api/account/bots/ann-bot/challenges",
                                       {"opponent": "bob", "games": 3})
        assert status == 400


async def test_a_bot_s_challenges_an_hour_bound_the_person_s_too(make_arena) -> None:
    arena = await _arena(make_arena, challenges=ChallengeLimits(per_hour=1))
    await arena.client("carol", Answering(None), seek=False, accept={"mode": "decline"})
    async with browser(arena) as ann:
        await ann.post("/api/account/signup", {"name": "ann", "password": PASSWORD})
        await _own_bot(arena, ann, "ann-bot")
        assert (await ann.post("/api/account/bots/ann-bot/challenges",
                               {"opponent": "carol"}))[0] == 200
        status, error = await ann.post("/api/account/bots/ann-bot/challenges",
                                       {"opponent": "carol"})
        assert (status, error["code"]) == (429, "challenge-limit")
