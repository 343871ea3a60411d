"""Several ladders on one server: each pairs the bots entered in it, with its own ratings
and history; a bot narrows its ladders in ``hello.ladders``; the HTTP API lists them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena.errors import SettingsError
from arena.server import LadderConfig, TimeControl
from clients.sdk import Turn
from tests.waiting import wait_for

from .conftest import SUBST
from .test_ladder_and_http import get

SIM = LadderConfig(game="sim", settings={"vertices": 5}, house=("sim-random",), interval=0.05,
                   name="sim-small", seed=1,
                   time_control=TimeControl(move_ms=900, bank_ms=900, first_move_ms=900,
                                            retries=0, grace_ms=900))
PRACTICE = LadderConfig(game="substitution", settings={**SUBST, "moves": 4}, house=("random",),
                        interval=0.05, name="practice", rated=False, seed=2)


def any_game(turn: Turn) -> str:
    """A bot of every game: the first legal move its local rules list."""
    return turn.info.rules.legal_moves(turn.rules_state(), limit=1).moves[0]


async def finished(arena: Any) -> list[dict[str, Any]]:
    status, games = await asyncio.to_thread(get, arena, "/api/games?limit=500&status=finished")
    assert status == 200
    return list(games["games"])


async def test_each_ladder_pairs_its_own_bots_and_keeps_its_own_ratings(make_arena) -> None:
    arena = await make_arena(ladders=(SIM, PRACTICE))
    assert set(arena.server.ladders) == {"sim-small", "practice"}
    await arena.client("both", any_game)  # every ladder of its games
    await arena.client("simmer", any_game, ladders=["sim-small"])
    await arena.client("wordy", "random", games=["substitution"])

    async def played_everywhere() -> bool:
        games = await finished(arena)
        return ({g["ladder_name"] for g in games} == {"sim-small", "practice"}
                and any("simmer" in g["players"] for g in games)
                and any("wordy" in g["players"] for g in games)
                and any("both" in g["players"] for g in games))

    await wait_for(played_everywhere)
    games = await finished(arena)
    for game in games:
        name = game["ladder_name"]
        assert game["game"] == {"sim-small": "sim", "practice": "substitution"}[name]
        assert game["ladder"] == (name == "sim-small")  # the practice ladder is unrated
        assert "simmer" not in game["players"] or name == "sim-small"
        assert "wordy" not in game["players"] or name == "practice"

    status, practice_games = await asyncio.to_thread(get, arena, "/api/games?ladder=practice")
    assert status == 200 and practice_games["games"]
    assert {g["ladder_name"] for g in practice_games["games"]} == {"practice"}
    status, board = await asyncio.to_thread(get, arena, "/api/leaderboard?ladder=sim-small")
    assert status == 200 and board["ladder"] == "sim-small" and board["game"] == "sim"
    rows = board["leaderboard"]
    assert rows and {row["ladder"] for row in rows} == {"sim-small"}
    assert "wordy" not in {row["bot"] for row in rows}
    status, practice = await asyncio.to_thread(get, arena, "/api/leaderboard?ladder=practice")
    assert status == 200 and practice["leaderboard"] == []  # unrated: played, not rated
    status, history = await asyncio.to_thread(get, arena, "/api/ratings/history?ladder=sim-small")
    # (games go on meanwhile: the history may have more bots than the rows read before)
    assert status == 200 and set(history["history"]) >= {row["bot"] for row in rows}
    assert "wordy" not in history["history"]
    status, default = await asyncio.to_thread(get, arena, "/api/leaderboard")
    assert status == 200 and default["ladder"] == "sim-small"  # the first ladder

    status, missing = await asyncio.to_thread(get, arena, "/api/leaderboard?ladder=nope")
    assert status == 404 and missing["code"] == "unknown-ladder"
    assert "sim-small" in missing["message"] and "practice" in missing["message"]

    status, listed = await asyncio.to_thread(get, arena, "/api/ladders")
    assert status == 200
    assert [(entry["name"], entry["game"], entry["rated"]) for entry in listed["ladders"]] == [
        ("sim-small", "sim", True), ("practice", "substitution", False)]
    assert listed["ladders"][0]["settings"] == {"vertices": 5}
    assert listed["ladders"][0]["time_control"]["move_ms"] == 900
    assert listed["ladders"][1]["time_control"] is None
    assert listed["ladders"][0]["house"] == ["house:sim-random"]


async def test_a_ladder_s_games_run_on_its_time_control(make_arena) -> None:
    arena = await make_arena(ladders=(SIM,))
    await arena.client("alice", any_game)
    live = await wait_for(lambda: next(iter(arena.server.live.values()), None))
    assert live.control.move_ms == 900 and live.ladder_name == "sim-small"


async def test_welcome_lists_the_ladders_and_an_unknown_ladder_is_said(make_arena) -> None:
    arena = await make_arena(ladders=(SIM, PRACTICE))
    token = await arena.add_bot("carol")
    raw = await arena.raw()
    welcome = await raw.hello(token, ladders=["practice", "nope"])
    assert [entry["name"] for entry in welcome["ladders"]] == ["sim-small", "practice"]
    assert welcome["ladder"] == {"game": "sim", "settings": {"vertices": 5}}
    error = await raw.expect("error")
    assert error["code"] == "unknown-ladder" and not error["fatal"]
    assert "['nope']" in error["message"] and "practice" in error["message"]
    assert arena.server.sessions["carol"].ladders == {"practice", "nope"}
    assert "carol" not in arena.server._ladder_candidates("sim-small")
    assert "carol" in arena.server._ladder_candidates("practice")


async def test_a_bot_entered_in_no_ladder_of_its_games_is_told(make_arena) -> None:
    arena = await make_arena(ladders=(SIM, PRACTICE))
    token = await arena.add_bot("dave")
    raw = await arena.raw()
    await raw.hello(token, games=["heaps"], ladders=["practice"])  # practice plays substitution
    error = await raw.expect("error")
    assert error["code"] == "no-ladder-game" and not error["fatal"]
    assert "ladder plays 'substitution'" in error["message"]


@pytest.mark.parametrize("ladders, said", [
    ((SIM, LadderConfig(game="sim", name="sim-small")), "two ladders are named 'sim-small'"),
    ((LadderConfig(game="tiles", name="solo"),), "ladder 'solo': a ladder pairs two bots"),
    ((LadderConfig(game="sim", name="big", settings={"vertices": 99}),), "ladder 'big':"),
    ((LadderConfig(game="sim", name="a b"),), "a ladder's name is 1-64 letters"),
    ((LadderConfig(game="sim", name="x" * 65),), "a ladder's name is 1-64 letters"),
])
async def test_ladders_that_could_never_play_are_refused_by_name(make_arena, ladders,
                                                                 said) -> None:
    with pytest.raises(SettingsError, match=said):
        await make_arena(ladders=ladders)


async def test_a_generator_ladder_plays_each_pairing_on_a_start_drawn_from_a_committed_seed(
        make_arena) -> None:
    from arena.registry import default_registry
    from arena.starts import draw_settings

    params = {"start": [1, 25]}
    varied = LadderConfig(game="heaps", house=("heaps-random",), interval=0.05, seed=3,
                          name="heaps-varied", generator=params)
    arena = await make_arena(ladders=(varied,))
    await arena.client("alice", any_game)

    async def pairs() -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for game in await finished(arena):
            found.setdefault(game["pair"], []).append(game)
        complete = {pair: games for pair, games in found.items() if len(games) == 2}
        return complete if len(complete) >= 3 else {}

    complete = await wait_for(pairs)
    heaps = default_registry().game_class("heaps")
    starts = []
    for games in complete.values():
        stored = [(await asyncio.to_thread(get, arena, f"/api/games/{game['id']}"))[1]
                  for game in games]
        first, second = stored
        assert first["settings"] == second["settings"]  # both games of the pairing
        assert first["players"] == second["players"][::-1] and first["seed"] != second["seed"]
        # the stored settings are the drawn ones: the smaller of the pair's revealed
        # seeds draws them again, so anybody can check the start
        smaller = min(int(game["seed"]) for game in stored)
        assert draw_settings(heaps, params, smaller) == first["settings"]
        assert all(1 <= heap <= 25 for heap in first["settings"]["start"])
        starts.append(first["settings"]["start"])
    assert len({tuple(start) for start in starts}) > 1  # a fresh start every pairing
    status, listed = await asyncio.to_thread(get, arena, "/api/ladders")
    assert status == 200 and listed["ladders"][0]["settings"] is None
    assert listed["ladders"][0]["generator"] == params


async def test_a_ladder_whose_generator_parameters_are_wrong_is_refused(make_arena) -> None:
    with pytest.raises(SettingsError, match="ladder 'x': heaps generator: unknown parameters"):
        await make_arena(ladders=(LadderConfig(game="heaps", name="x", generator={"hepas": 2}),))


async def test_a_hello_naming_too_many_or_too_long_ladders_is_refused(make_arena) -> None:
    arena = await make_arena(ladders=(SIM,))
    token = await arena.add_bot("erin")
    raw = await arena.raw()
    for ladders in (["x"] * 65, ["x" * 65]):
        error = await raw.hello(token, ladders=ladders)
        assert error["type"] == "error" and error["code"] == "invalid-message"
        assert "at most 64 ladder names" in error["message"]
    welcome = await raw.hello(token, ladders=["x" * 64] * 64)  # the most it may send
    assert welcome["type"] == "welcome"


async def test_the_single_ladder_is_named_after_its_game(make_arena) -> None:
    """The single-ladder flags (ServerConfig.ladder) still run one ladder, named after its
    game: the name the ratings stored before ladders had names migrated to."""
    arena = await make_arena(ladder=LadderConfig(game="sim", settings={"vertices": 5},
                                                 house=("sim-random",), interval=0.05))
    assert list(arena.server.ladders) == ["sim"] and arena.server.ladder is not None
    await arena.client("alice", any_game)
    await wait_for(lambda: arena.server.games_finished >= 2)
    status, listed = await asyncio.to_thread(get, arena, "/api/ladders")
    assert status == 200 and [entry["name"] for entry in listed["ladders"]] == ["sim"]

    async def rated() -> Any:
        status, board = await asyncio.to_thread(get, arena, "/api/leaderboard?ladder=sim")
        return status == 200 and board["leaderboard"]

    rows = await wait_for(rated)
    assert {row["ladder"] for row in rows} == {"sim"}
    status, by_game = await asyncio.to_thread(get, arena, "/api/leaderboard?game=sim")
    assert status == 200 and by_game["ladder"] == "sim"
