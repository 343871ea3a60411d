"""A person challenges a bot from the web: POST /api/challenges, GET /api/challenges/{id}."""

from __future__ import annotations

from arena.server import LadderConfig
from tests.server.conftest import SUBST
from tests.server.test_challenges import Answering
from tests.waiting import wait_for
from tests.web.test_api import get, new_guest, post

LADDER = LadderConfig(game="substitution", settings={**SUBST, "moves": 4}, interval=0.05,
                      max_games=2, seed=1)


async def test_a_guest_challenges_a_bot_and_plays_its_seat(make_arena) -> None:
    arena = await make_arena(ladder=LADDER)
    bob = Answering(True)
    await arena.client("bob", bob, challenges=True, seek=False)
    guest = await new_guest(arena)
    raw = await guest.connect("substitution")
    status, opened = await post(arena, "/api/challenges", {"bot": "bob", "seat": 1},
                                headers=guest.cookie)
    assert status == 200, opened
    assert (opened["status"], opened["challenger"], opened["rated"]) == ("pending", guest.name,
                                                                         False)

    async def settled():
        status, answer = await get(arena, f"/api/challenges/{opened['challenge_id']}")
        assert status == 200
        return answer if answer["status"] != "pending" else None

    answer = await wait_for(settled)
    assert answer["status"] == "accepted" and len(answer["game_ids"]) == 1
    assert bob.notices[0].challenger == guest.name and bob.notices[0].rated is False
    start = await raw.expect("game_start")
    assert start["game_id"] == answer["game_ids"][0] and start["seat"] == 1
    assert start["players"] == ["bob", guest.name] and start["ladder"] is False
    await raw.send("resign", game_id=start["game_id"])
    over = await raw.expect("game_over")
    assert over["termination"] == "resignation"
    stored = await arena.server.storage.game(start["game_id"])
    assert stored is not None and stored.ladder is False and stored.status == "finished"


async def test_web_challenges_are_refused_with_reasons(make_arena) -> None:
    arena = await make_arena(ladder=LADDER)
    await arena.client("carol", Answering(None), seek=False, accept={"mode": "decline"})
    status, error = await post(arena, "/api/challenges", {"bot": "carol"})
    assert status == 403 and error["code"] == "not-a-guest"
    guest = await new_guest(arena)
    status, error = await post(arena, "/api/challenges", {"bot": "carol"}, headers=guest.cookie)
    assert status == 409 and error["code"] == "not-connected" and "params" not in error
    await guest.connect("substitution")
    status, error = await post(arena, "/api/challenges", {"bot": "nobody"}, headers=guest.cookie)
    assert status == 409 and error["code"] == "bad-challenge" and "'nobody'" in error["message"]
    assert error["params"] == {"reason": "not-connected", "bot": "nobody"}  # for the page's words
    status, opened = await post(arena, "/api/challenges", {"bot": "carol"}, headers=guest.cookie)
    assert status == 200

    async def declined():
        _, answer = await get(arena, f"/api/challenges/{opened['challenge_id']}")
        return answer if answer["status"] == "declined" else None

    assert (await wait_for(declined))["reason"] == "the bot declines challenges"
    status, error = await get(arena, "/api/challenges/c-nothing")
    assert status == 404 and error["code"] == "unknown-challenge"


async def test_a_web_challenge_plays_on_the_ladder_it_names(make_arena) -> None:
    """``ladder`` picks the ladder whose settings the game plays; a name the server does
    not run is 404 ``unknown-ladder``."""
    other = LadderConfig(game="substitution", settings={**SUBST, "moves": 3}, interval=3600.0,
                         max_games=2, name="three")
    arena = await make_arena(ladders=(LADDER, other))
    await arena.client("bob", Answering(True), challenges=True, seek=False)
    guest = await new_guest(arena)
    raw = await guest.connect("substitution")
    status, error = await post(arena, "/api/challenges", {"bot": "bob", "ladder": "four"},
                               headers=guest.cookie)
    assert status == 404 and error["code"] == "unknown-ladder" and "'three'" in error["message"]
    status, error = await post(arena, "/api/challenges", {"bot": "bob", "ladder": "x" * 65},
                               headers=guest.cookie)
    assert status == 400
    status, opened = await post(arena, "/api/challenges", {"bot": "bob", "ladder": "three"},
                                headers=guest.cookie)
    assert status == 200, opened
    start = await raw.expect("game_start")
    assert start["settings"]["moves"] == 3


async def test_a_web_challenge_on_a_server_without_ladders_is_refused(make_arena) -> None:
    arena = await make_arena()
    await arena.client("bob", Answering(True), challenges=True, seek=False)
    guest = await new_guest(arena)
    await guest.connect("substitution")
    status, error = await post(arena, "/api/challenges", {"bot": "bob"}, headers=guest.cookie)
    assert status == 404 and error["code"] == "unknown-ladder"
