"""Season finals of connected bots: played by the server through its games (each on its
own secret dice), a finalist that stays away forfeits, and a restarted server resumes a
final from its stored games instead of playing them again."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from arena.clock import TimeControl
from arena.config import LadderConfig, WebConfig
from arena.seasons import FinalConfig, SeasonConfig, rank_standings
from arena.storage.sqlite import SQLiteDatabase
from arena.web.seasons import SEASONS, SeasonKeeper
from clients.sdk import Turn
from tests.storage.games import ended
from tests.waiting import wait_for

from .test_api import get

NOW = datetime.now(UTC)
DAY = timedelta(days=1)
BOTS = ("ann", "bob", "cid")
FAST = TimeControl(move_ms=2000, bank_ms=2000, first_move_ms=2000, retries=0, grace_ms=2000)
LADDER = LadderConfig("sim", {"vertices": 5}, interval=3600.0, time_control=FAST)


def any_move(turn: Turn) -> str:
    """The first legal move its local rules list."""
    return turn.info.rules.legal_moves(turn.rules_state(), limit=1).moves[0]


def seed_ratings(path: Path) -> SQLiteDatabase:
    """The three bots play each other (rated), so all three enter the season."""
    database = SQLiteDatabase(path)
    number = 0
    for first in BOTS:
        for second in BOTS:
            if first != second:
                number += 1
                record = ended(f"g{number}", (first, second), winner=number % 2)
                database.start_game(record, ladder=True, pair=None)
                database.finish_game(record, rated=True)
    return database


def season(wait: float, form: str = "round-robin") -> SeasonConfig:
    rounds = 1 if form == "swiss" else 0
    return SeasonConfig("spring", "sim", NOW - 30 * DAY, NOW - DAY, min_games=2,
                        final=FinalConfig(form, top=3, games=1, rounds=rounds, wait=wait))


async def state_of(arena: Any) -> dict[str, Any] | None:
    _, data = await get(arena, "/api/seasons/spring")
    state: dict[str, Any] | None = data["final_state"]
    return state


async def final_over(arena: Any) -> dict[str, Any]:
    async def over() -> Any:
        state = await state_of(arena)
        return state if state and state["status"] in ("finished", "failed") else None

    state: dict[str, Any] = await wait_for(over, what="the final over")
    assert state["status"] == "finished", state
    return state


async def test_a_final_of_connected_bots_is_played_to_its_report(make_arena: Any,
                                                                 tmp_path: Path) -> None:
    seed_ratings(tmp_path / "arena.sqlite").close()
    arena = await make_arena(ladder=LADDER, seasons=(season(wait=600.0),),
                             season_interval=0.05)

    async def waiting() -> Any:  # no finalist connected yet: the final waits, showing so
        state = await state_of(arena)
        return state if state and "progress" in state else None

    state = await wait_for(waiting, what="the final waiting for its bots")
    assert state["status"] == "running"
    assert state["progress"] == {"done": 0, "total": 6, "status": "running"}
    for name in BOTS:
        await arena.client(name, any_move)
    state = await final_over(arena)
    report = state["report"]
    assert report["total"] == 6 and report["format"] == "round-robin"
    assert {line["bot"] for line in report["ranking"]} == set(BOTS)
    assert sum(line["games"] for line in report["ranking"]) == 12  # each game seen twice
    assert sum(line["points"] for line in report["ranking"]) == 6
    assert report["champion"] == report["ranking"][0]["bot"]
    assert len(report["pairings"]) == 3 and report["forfeits"] == {}
    for pairing in report["pairings"]:  # per pair: points and the engine's statistics
        assert sum(pairing["points"]) == 2 and sum(pairing["pentanomial"]) == 1
        assert "elo" in pairing
    # the results are the stored games: unrated, each on its own secret dice
    assert len(report["played"]) == 6
    seeds = set()
    for key, game_id in report["played"].items():
        status, game = await get(arena, f"/api/games/{game_id}")
        assert status == 200 and game["status"] == "finished" and game["ladder"] is False
        first, second, _ = (int(part) for part in key.split("-"))
        assert game["players"] == [report["bots"][first], report["bots"][second]]
        assert game["pair"].startswith("final:spring:")
        seeds.add(game["seed"])
    assert len(seeds) == 6


async def with_bots_first(make_arena: Any, monkeypatch: pytest.MonkeyPatch,
                          bots: dict[str, Any], **options: Any) -> Any:
    """A server whose seasons are looked at only once `bots` are connected (with no
    wait for absent finalists, one connecting late would forfeit)."""
    start = SeasonKeeper.start
    monkeypatch.setattr(SeasonKeeper, "start", lambda self: None)
    arena = await make_arena(**options)
    for name, (bot, extra) in bots.items():
        await arena.client(name, bot, **extra)
    start(arena.web.app[SEASONS])
    return arena


async def test_a_finalist_not_connected_forfeits_its_games(
        make_arena: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed_ratings(tmp_path / "arena.sqlite").close()
    arena = await with_bots_first(make_arena, monkeypatch,
                                  {name: (any_move, {}) for name in BOTS[:2]},
                                  ladder=LADDER, seasons=(season(wait=0.0),),
                                  season_interval=0.05)
    report = (await final_over(arena))["report"]
    lines = {line["bot"]: line for line in report["ranking"]}
    assert lines["cid"]["points"] == 0 and lines["cid"]["losses"] == 4
    assert report["ranking"][-1]["bot"] == "cid"
    assert len(report["forfeits"]) == 4 and len(report["played"]) == 2  # ann and bob played
    order = report["bots"]
    for key in report["forfeits"]:
        first, second, _ = (int(part) for part in key.split("-"))
        assert "cid" in (order[first], order[second])


async def test_a_finalist_that_cannot_play_the_game_forfeits_without_holding_up_the_final(
        make_arena: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed_ratings(tmp_path / "arena.sqlite").close()
    bots = {"ann": (any_move, {}), "bob": (any_move, {}),
            "cid": ("random", {"games": ["substitution"]})}  # connected, not for sim
    arena = await with_bots_first(make_arena, monkeypatch, bots, ladder=LADDER,
                                  seasons=(season(wait=0.0),), season_interval=0.05)
    report = (await final_over(arena))["report"]
    lines = {line["bot"]: line for line in report["ranking"]}
    assert lines["cid"]["losses"] == 4 and len(report["forfeits"]) == 4
    assert len(report["played"]) == 2


async def test_a_final_over_the_tournament_limits_fails_saying_so(make_arena: Any,
                                                                   tmp_path: Path) -> None:
    seed_ratings(tmp_path / "arena.sqlite").close()
    arena = await make_arena(ladder=LADDER, seasons=(season(wait=600.0),), season_interval=0.05,
                             web=WebConfig(tournament_games=5))

    async def failed() -> Any:
        state = await state_of(arena)
        return state if state and state["status"] == "failed" else None

    state = await wait_for(failed, what="the final refused")
    report = state["report"]
    assert "is 6 games; a final plays at most 5 (tournament_games)" in report["error"]
    assert report["error_code"] == "tournament-games"
    assert report["error_params"] == {"bots": 3, "games": 1, "total": 6, "limit": 5}


async def test_a_restarted_server_resumes_the_final_from_its_stored_games(
        make_arena: Any, tmp_path: Path) -> None:
    database = seed_ratings(tmp_path / "arena.sqlite")
    spring = season(wait=600.0)
    standings = rank_standings(spring, database.leaderboard("sim"))
    order = [s.bot for s in standings]
    database.freeze_season("spring", "sim", standings, time.time(), spring.to_json())
    # a server played the final's first game, then died an hour ago
    record = ended("played-before", (order[0], order[1]), winner=0)
    database.start_game(record, ladder=False, pair="final:spring:0-1-0")
    database.finish_game(record)
    database.claim_season_final("spring", time.time() - 3600, stale_before=time.time())
    database.set_season_final("spring", "running", {
        "mode": "connected", "bots": order, "done": 1, "total": 6, "status": "running",
        "played": {"0-1-0": "played-before"}, "forfeits": {}}, time.time() - 3600)
    database.close()
    arena = await make_arena(ladder=LADDER, seasons=(spring,), season_interval=0.05)
    for name in BOTS:
        await arena.client(name, any_move)
    report = (await final_over(arena))["report"]
    assert report["played"]["0-1-0"] == "played-before"  # read back, not played again
    assert len(report["played"]) == 6
    status, games = await get(arena, "/api/games", limit=100)
    assert status == 200
    finals = [g for g in games["games"] if (g["pair"] or "").startswith("final:spring:")]
    assert len(finals) == 6  # the five left, and the one stored before
    lines = {line["bot"]: line for line in report["ranking"]}
    assert lines[order[0]]["wins"] >= 1  # the stored game counts


async def test_a_swiss_final_of_connected_bots_plays_its_rounds(make_arena: Any,
                                                                tmp_path: Path) -> None:
    seed_ratings(tmp_path / "arena.sqlite").close()
    arena = await make_arena(ladder=LADDER, seasons=(season(wait=600.0, form="swiss"),),
                             season_interval=0.05)
    for name in BOTS:
        await arena.client(name, any_move)
    report = (await final_over(arena))["report"]
    assert report["format"] == "swiss" and report["total"] == 2  # 1 round, 1 pairing, a bye
    assert len(report["rounds"]) == 1 and report["rounds"][0]["bye"] is not None
    assert len(report["played"]) == 2
