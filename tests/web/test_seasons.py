"""Seasons over HTTP: the list with phases, standings live and frozen, the CSV and JSON
exports, and a final of three house bots played in a worker to its stored report."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arena.config import LadderConfig, ServerConfig
from arena.seasons import FinalConfig, SeasonConfig, Standing
from arena.storage import open_storage
from arena.storage.interface import SeasonRecord
from arena.storage.sqlite import SQLiteDatabase
from arena.web.seasons import SeasonKeeper, final_spec, ladder_of, season_view
from arena.web.tournaments import Run, TournamentRuns
from tests.storage.games import ended
from tests.waiting import wait_for

from .test_api import get

NOW = datetime.now(UTC)
DAY = timedelta(days=1)
HOUSE = ("house:sim-random", "house:sim-safe-random", "house:sim-perfect")


def seed_ratings(path: Path) -> None:
    """The three house bots play each other twice (rated); alice plays once."""
    database = SQLiteDatabase(path)
    number = 0
    for first in HOUSE:
        for second in HOUSE:
            if first != second:
                number += 1
                record = ended(f"g{number}", (first, second), winner=number % 2)
                database.start_game(record, ladder=True, pair=None)
                database.finish_game(record, rated=True)
    record = ended("alice1", ("alice", HOUSE[0]), winner=0)
    database.start_game(record, ladder=True, pair=None)
    database.finish_game(record, rated=True)
    database.close()


SEASONS = (
    SeasonConfig("spring", "sim", NOW - 30 * DAY, NOW - DAY, min_games=2,
                 final=FinalConfig("round-robin", top=3, games=1)),
    SeasonConfig("summer", "sim", NOW - DAY, NOW + 30 * DAY, min_games=2),
    SeasonConfig("autumn", "sim", NOW + 30 * DAY, NOW + 60 * DAY),
)


def _export(port: int, name: str, form: str) -> tuple[str, str, str]:
    """A season's standings as a download: its type, disposition and text."""
    url = f"http://127.0.0.1:{port}/api/seasons/{name}?format={form}"
    with urllib.request.urlopen(url, timeout=10) as response:
        return (response.headers["Content-Type"], response.headers["Content-Disposition"],
                response.read().decode("utf-8"))


async def test_a_season_ends_freezes_and_plays_its_final(make_arena: Any,
                                                         tmp_path: Path) -> None:
    seed_ratings(tmp_path / "arena.sqlite")
    results = tmp_path / "tournaments"
    results.mkdir()
    arena = await make_arena(ladder=LadderConfig("sim", {"vertices": 5}), seasons=SEASONS,
                             tournaments=str(results))

    async def final_over() -> Any:
        _, data = await get(arena, "/api/seasons/spring")
        state = data["final_state"]
        return data if state and state["status"] in ("finished", "failed") else None

    spring = await wait_for(final_over, what="the final of spring finished")
    assert spring["final_state"]["status"] == "finished", spring["final_state"]
    assert spring["phase"] == "over" and spring["live"] is False and spring["frozen"]
    standings = spring["standings"]
    assert [(s["rank"], s["entered"]) for s in standings] == [(1, True), (2, True), (3, True),
                                                              (0, False)]
    assert {s["bot"] for s in standings[:3]} == set(HOUSE) and standings[3]["bot"] == "alice"
    report = spring["final_state"]["report"]
    assert report["total"] == 6 and len(report["ranking"]) == 3  # 3 bots, each pair twice
    assert sum(line["games"] for line in report["ranking"]) == 12  # each game seen twice
    assert report["champion"] == report["ranking"][0]["bot"] in HOUSE
    points = [line["points"] for line in report["ranking"]]
    assert points == sorted(points, reverse=True) and sum(points) == 6
    # the final's own tables are a tournament like the others
    status, table = await get(arena, "/api/tournament", name=report["tournament"])
    assert status == 200 and table["bots"] == [b.removeprefix("house:") for b in
                                               (s["bot"] for s in standings[:3])]

    status, listing = await get(arena, "/api/seasons")
    assert status == 200
    assert [(s["name"], s["phase"]) for s in listing["seasons"]] == [
        ("spring", "over"), ("summer", "running"), ("autumn", "upcoming")]
    assert listing["seasons"][1]["final_state"] is None

    # a running season's standings are the ladder's now, not frozen
    status, summer = await get(arena, "/api/seasons/summer")
    assert summer["live"] is True and summer["frozen"] is None
    assert [s["bot"] for s in summer["standings"]] == [s["bot"] for s in standings]

    kind, disposition, text = await asyncio.to_thread(_export, arena.server.port, "spring", "csv")
    assert kind.startswith("text/csv") and 'filename="season-spring.csv"' in disposition
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:3] == ["rank", "bot", "rating"] and len(rows) == 5
    assert [row[1] for row in rows[1:]] == [s["bot"] for s in standings]
    assert rows[1][0] == "1" and rows[4][0] == "" and rows[4][-1] == "no"
    assert float(rows[1][2]) == standings[0]["rating"]
    kind, disposition, text = await asyncio.to_thread(_export, arena.server.port, "spring", "json")
    assert kind.startswith("application/json") and 'filename="season-spring.json"' in disposition
    exported = json.loads(text)
    assert exported["standings"] == standings and exported["final_state"]["report"] == report

    assert (await get(arena, "/api/seasons/winter"))[0] == 404
    document = (await get(arena, "/api/openapi.json"))[1]
    operation = document["paths"]["/api/seasons/{name}"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"name", "format"}
    assert document["paths"]["/api/seasons"]["get"]["tags"] == ["seasons"]
    status, error = await get(arena, "/api/seasons/spring", format="xml")
    assert status == 400 and "json or csv" in error["message"]


async def test_the_standings_stay_frozen_and_past_seasons_stay_listed(make_arena: Any,
                                                                     tmp_path: Path) -> None:
    seed_ratings(tmp_path / "arena.sqlite")
    ended_season = SeasonConfig("old", "sim", NOW - 30 * DAY, NOW - DAY, min_games=2)
    arena = await make_arena(ladder=LadderConfig("sim", {"vertices": 5}), seasons=(ended_season,))

    async def frozen() -> Any:
        return (await get(arena, "/api/seasons/old"))[1]["frozen"]

    await wait_for(frozen, what="the season old frozen")
    before = (await get(arena, "/api/seasons/old"))[1]["standings"]
    # the ladder goes on: a rated game moves the ratings, not the season's standings
    record = ended("later", ("alice", HOUSE[1]), winner=0)
    await arena.server.storage.start_game(record, ladder=True, pair=None)
    await arena.server.storage.finish_game(record, rated=True)
    _, data = await get(arena, "/api/seasons/old")
    assert data["standings"] == before and data["phase"] == "over" and data["final_state"] is None
    await arena.close()
    # a season no longer configured is still listed, from what was stored
    again = await make_arena(ladder=LadderConfig("sim", {"vertices": 5}))
    _, listing = await get(again, "/api/seasons")
    assert [(s["name"], s["phase"], s["ladder"]) for s in listing["seasons"]] == [
        ("old", "over", "sim")]
    assert listing["seasons"][0]["end"] == ended_season.to_json()["end"]  # as it was
    assert (await get(again, "/api/seasons/old"))[1]["standings"] == before


async def test_a_final_that_cannot_be_played_says_why(make_arena: Any, tmp_path: Path) -> None:
    seed_ratings(tmp_path / "arena.sqlite")
    final = FinalConfig("round-robin", top=4, games=1)
    seasons = (SeasonConfig("open", "sim", NOW - 30 * DAY, NOW - DAY, final=final),
               SeasonConfig("alone", "sim", NOW - 30 * DAY, NOW - DAY, min_games=99, final=final))
    arena = await make_arena(ladder=LadderConfig("sim", {"vertices": 5}), seasons=seasons)

    async def settled() -> Any:
        listing = (await get(arena, "/api/seasons"))[1]["seasons"]
        states = [s["final_state"] for s in listing]
        return listing if states[1] and states[1]["status"] == "failed" and states[0] and (
            "progress" in states[0]) else None

    listing = await wait_for(settled, what="one final failed, the other waiting")
    report = listing[1]["final_state"]["report"]
    assert "0 bots met the entry rules" in report["error"]
    assert (report["error_code"], report["error_params"]) == ("final-too-few", {"count": 0})
    assert listing[1]["phase"] == "over"
    # alice (one game, no entry rule) is among the top 4, and she is no house bot: the
    # server plays that final (tests/web/test_connected_finals.py), waiting for her
    assert listing[0]["phase"] == "final" and listing[0]["final_state"]["status"] == "running"
    assert listing[0]["final_state"]["report"]["mode"] == "connected"
    assert listing[0]["final_state"]["progress"]["total"] == 12  # 4 bots, both seat orders


async def test_a_final_needs_a_results_directory(make_arena: Any, tmp_path: Path) -> None:
    seed_ratings(tmp_path / "arena.sqlite")
    season = SeasonConfig("spring", "sim", NOW - 30 * DAY, NOW - DAY, min_games=2,
                          final=FinalConfig(top=3, games=1))
    arena = await make_arena(ladder=LadderConfig("sim", {"vertices": 5}), seasons=(season,))

    async def failed() -> Any:
        state = (await get(arena, "/api/seasons/spring"))[1]["final_state"]
        return state if state and state["status"] == "failed" else None

    state = await wait_for(failed, what="the final failed")
    assert "start it with --tournaments DIR" in state["report"]["error"]
    assert state["report"]["error_code"] == "no-directory"  # a page's words for it


def test_a_final_s_progress_shows_while_it_runs(tmp_path: Path) -> None:
    season = SEASONS[0]
    spec = final_spec(season, "sim", {}, [
        Standing(rank, bot, 25.0, 1.0, 4, 2, 2, 0, True) for rank, bot in enumerate(HOUSE, 1)])
    assert spec.bots == ("sim-random", "sim-safe-random", "sim-perfect")
    assert spec.total_games() == 6  # no self-play: 3 pairings, both seat orders
    run = Run("r1", "season:spring", spec, tmp_path, "season-spring-r1/tournament.json",
              status="running", done=2, total=6)
    stored = SeasonRecord("spring", "sim", 1.0, "running", {"total": 6}, 1.0)
    view = season_view(season, stored, NOW, run)
    assert view["phase"] == "final"
    assert view["final_state"]["progress"] == {"done": 2, "total": 6, "status": "running"}


@dataclass
class _Service:
    """What a `SeasonKeeper` asks of the arena: its settings and its records."""

    config: ServerConfig
    records: Any


async def test_servers_sharing_a_database_play_a_final_once(tmp_path: Path) -> None:
    seed_ratings(tmp_path / "arena.sqlite")
    storage = await open_storage(str(tmp_path / "arena.sqlite"))
    config = ServerConfig(ladder=LadderConfig("sim", {"vertices": 5}), seasons=SEASONS[:1])
    keepers = [SeasonKeeper(_Service(config, storage), TournamentRuns(config.web, tmp_path))
               for _ in range(2)]
    try:
        first, second = keepers
        await first.tick()
        await second.tick()  # the first claimed it: the second leaves it
        assert list(first.finals) == ["spring"] and second.finals == {}
        # the first server stops while it plays: the final is left running
        await first.close()
        first.runs.close()
        assert (await storage.season("spring")).final_status == "running"  # type: ignore[union-attr]
        await second.tick()
        assert second.finals == {}  # not stale yet: its server may be alive
        second.stale_after = lambda: -1.0  # type: ignore[method-assign]  # as if long after
        await second.tick()
        assert list(second.finals) == ["spring"]

        async def finished() -> Any:
            stored = await storage.season("spring")
            return stored if stored and stored.final_status == "finished" else None

        stored = await wait_for(finished, what="the second server finished the final")
        assert stored.final_report["champion"] in HOUSE
        assert stored.final_report["tournament"] == second.finals["spring"].name
    finally:
        for keeper in keepers:
            await keeper.close()
            keeper.runs.close()
        await storage.close()


def test_a_swiss_final_of_fewer_finalists_plays_the_rounds_they_allow() -> None:
    season = SeasonConfig("s", "sim", NOW - DAY, NOW, final=FinalConfig("swiss", 6, 2, 3, seed=7))
    four = [Standing(rank, f"house:bot{rank}", 25.0, 1.0, 4, 2, 2, 0, True)
            for rank in range(1, 5)]
    spec = final_spec(season, "sim", {"vertices": 5}, four)
    assert (spec.format, spec.rounds, spec.games, spec.seed, spec.pairs) == ("swiss", 2, 2, 7, None)
    assert spec.total_games() == 2 * 2 * 2 * 2  # rounds x pairings x pairs of dice x seats


async def test_a_season_ranks_the_ratings_of_its_own_ladder(make_arena: Any,
                                                            tmp_path: Path) -> None:
    """Each ladder has its own ratings: a season on one of two ladders of the same game
    ranks that ladder's alone, and its final plays that ladder's settings."""
    database = SQLiteDatabase(tmp_path / "arena.sqlite")
    for number, (players, ladder) in enumerate(((HOUSE[:2], "big"), (HOUSE[1:], "small"))):
        record = ended(f"g{number}", players, winner=0)
        database.start_game(record, ladder=True, pair=None, ladder_name=ladder)
        database.finish_game(record, rated=True)
    database.close()
    season = SeasonConfig("big-summer", "big", NOW - DAY, NOW + 30 * DAY)
    arena = await make_arena(ladders=(LadderConfig("sim", {"vertices": 5}, name="small"),
                                      LadderConfig("sim", {"vertices": 6}, name="big")),
                             seasons=(season,))
    standings = (await get(arena, "/api/seasons/big-summer"))[1]["standings"]
    assert sorted(row["bot"] for row in standings) == sorted(HOUSE[:2])
    assert ladder_of(arena.server, season) == ("sim", {"vertices": 6})
