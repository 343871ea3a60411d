"""The seasons' part of the shared suite: frozen standings and the final's state, on
SQLite and on PostgreSQL alike (`arena.seasons`)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from arena.seasons import SeasonConfig, rank_standings
from arena.storage import Storage

from .games import ended

SEASON = SeasonConfig("autumn", "sim", datetime(2026, 9, 1, tzinfo=UTC),
                      datetime(2026, 12, 1, tzinfo=UTC), min_games=2)


async def _rate(storage: Storage) -> None:
    """alice and bob play three rated games, carol one."""
    games = [ended("g1", ("alice", "bob"), winner=0), ended("g2", ("bob", "alice"), winner=1),
             ended("g3", ("alice", "bob"), winner=None), ended("g4", ("carol", "bob"), winner=0)]
    for record in games:
        await storage.start_game(record, ladder=True, pair=None)
        await storage.finish_game(record, rated=True)


async def test_standings_freeze_once_and_stay_as_they_froze(storage: Storage) -> None:
    await _rate(storage)
    board = await storage.leaderboard("sim")
    standings = rank_standings(SEASON, board)
    assert await storage.season("autumn") is None and await storage.seasons() == []
    assert await storage.freeze_season("autumn", "sim", standings, 1234.5, SEASON.to_json())
    # the ladder goes on: the frozen standings do not move, and a second freeze is a no-op
    later = ended("g5", ("carol", "alice"), winner=0)
    await storage.start_game(later, ladder=True, pair=None)
    await storage.finish_game(later, rated=True)
    assert not await storage.freeze_season("autumn", "sim", rank_standings(
        SEASON, await storage.leaderboard("sim")), 2000.0)
    stored = await storage.season_standings("autumn")
    assert stored == standings
    assert [(s.rank, s.bot, s.entered) for s in stored] == [
        (1, "alice", True), (2, "bob", True), (0, "carol", False)]  # carol: one game < 2
    assert stored[0].mu == board[0].mu and stored[0].games == 3
    season = await storage.season("autumn")
    assert season is not None and (season.ladder, season.frozen) == ("sim", 1234.5)
    assert season.settings == SEASON.to_json() and season.settings["end"] == "2026-12-01T00:00:00Z"
    assert season.final_status is None and season.final_report is None
    assert await storage.season_standings("spring") == []


async def test_the_final_s_state_and_report_are_kept(storage: Storage) -> None:
    await _rate(storage)
    with pytest.raises(ValueError, match="no season 'autumn'"):
        await storage.set_season_final("autumn", "running", None, 1.0)
    await storage.freeze_season("autumn", "sim", rank_standings(
        SEASON, await storage.leaderboard("sim")), 10.0)
    await storage.freeze_season("summer", "sim", [], 5.0)
    await storage.set_season_final("autumn", "running", {"tournament": "season-autumn"}, 11.0)
    await storage.set_season_final("autumn", "finished",
                                   {"ranking": [{"bot": "alice", "points": 3.5}]}, 12.0)
    season = await storage.season("autumn")
    assert season is not None and season.final_status == "finished"
    assert season.final_report == {"ranking": [{"bot": "alice", "points": 3.5}]}
    assert season.final_updated == 12.0
    assert [s.name for s in await storage.seasons()] == ["autumn", "summer"]  # latest first


async def test_one_claimant_plays_a_final_unless_it_went_stale(storage: Storage) -> None:
    await storage.freeze_season("autumn", "sim", [], 10.0)
    assert not await storage.claim_season_final("spring", 20.0, 0.0)  # not stored
    claims = await asyncio.gather(*(storage.claim_season_final("autumn", 20.0, 0.0)
                                    for _ in range(4)))
    assert sorted(claims) == [False, False, False, True]  # servers sharing a database
    season = await storage.season("autumn")
    assert season is not None and (season.final_status, season.final_updated) == ("running", 20.0)
    assert not await storage.claim_season_final("autumn", 30.0, 20.0)  # still fresh
    assert await storage.claim_season_final("autumn", 700.0, 100.0)  # its player died
    await storage.set_season_final("autumn", "finished", {"champion": "house:a"}, 710.0)
    assert not await storage.claim_season_final("autumn", 9999.0, 9999.0)  # over: never again
