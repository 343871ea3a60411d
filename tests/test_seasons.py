"""Seasons as pure logic (`arena.seasons`): the configuration file's tables, the phase
at a given time, the standings by the entry rules, their CSV."""

from __future__ import annotations

import csv
import io
import tomllib
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from arena.seasons import (
    FinalConfig,
    Phase,
    SeasonConfig,
    SeasonConfigError,
    phase,
    rank_standings,
    seasons_from_toml,
    standings_csv,
)
from arena.storage.interface import RatingRow

TOML = """
[[seasons]]
name = "autumn-2026"
ladder = "substitution"
start = 2026-09-01T00:00:00Z
end = "2026-11-30T18:00:00+03:00"
min_games = 10
min_rating = -5
final = { format = "swiss", top = 6, games = 3, rounds = 2, wait = 120 }

[[seasons]]
name = "winter"
ladder = "heaps"
start = 2026-12-01T00:00:00
end = 2027-03-01T00:00:00Z
"""

START = datetime(2026, 9, 1, tzinfo=UTC)
END = datetime(2026, 11, 30, 15, tzinfo=UTC)


def test_the_configuration_file_s_seasons_are_read() -> None:
    autumn, winter = seasons_from_toml(tomllib.loads(TOML)["seasons"])
    assert autumn == SeasonConfig("autumn-2026", "substitution", START, END, min_games=10,
                                  min_rating=-5.0, final=FinalConfig("swiss", 6, 3, 2, wait=120.0))
    assert winter.start == datetime(2026, 12, 1, tzinfo=UTC)  # no zone: UTC
    assert winter.final is None and winter.min_games == 0 and winter.min_rating is None
    assert autumn.to_json()["end"] == "2026-11-30T15:00:00Z"
    assert autumn.to_json()["final"]["wait"] == 120.0
    assert autumn.final_seed() == autumn.final_seed() != winter.final_seed()
    assert seasons_from_toml([]) == ()


@pytest.mark.parametrize(("table", "message"), [
    ({"ladder": "sim", "start": "2026-01-01", "end": "2026-02-01"}, "#1: the key 'name' is missing"),
    ({"name": "a", "ladder": "sim", "start": "2026-01-01"}, "season 'a': the key 'end' is missing"),
    ({"name": "a b", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01"}, "'name' must be"),
    ({"name": "a", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01", "top": 3},
     "season 'a': unknown key 'top'"),
    ({"name": "a", "ladder": "sim", "start": "soon", "end": "2026-02-01"},
     "season 'a': 'start' must be an ISO 8601 date"),
    ({"name": "a", "ladder": "sim", "start": "2026-02-01", "end": "2026-01-01"},
     "'end' .* must come after 'start'"),
    ({"name": "a", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01", "min_games": -1},
     "'min_games' must be an integer from 0"),
    ({"name": "a", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01",
      "final": {"format": "knockout"}}, "season 'a', final: 'format' must be one of round-robin, swiss"),
    ({"name": "a", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01",
      "final": {"top": 1}}, "final: 'top' must be an integer from 2 to 64, not 1"),
    ({"name": "a", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01",
      "final": {"format": "swiss", "top": 4, "rounds": 3}}, "'rounds' must be an integer from 1 to 2"),
    ({"name": "a", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01",
      "final": {"rounds": 2}}, "'rounds' is for a Swiss"),
    ({"name": "a", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01",
      "final": {"players": 2}}, "final: unknown key 'players'"),
    ({"name": "a", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01",
      "final": {"wait": 86401}}, "final: 'wait' must be a number of seconds from 0 to 86400"),
])
def test_a_bad_table_is_refused_naming_the_key(table: dict[str, object], message: str) -> None:
    with pytest.raises(SeasonConfigError, match=message):
        seasons_from_toml([table])


def test_two_seasons_of_one_name_are_refused() -> None:
    table = {"name": "a", "ladder": "sim", "start": "2026-01-01", "end": "2026-02-01"}
    with pytest.raises(SeasonConfigError, match="two seasons are named 'a'"):
        seasons_from_toml([table, table])


def test_the_phase_follows_the_clock_and_the_final() -> None:
    season = SeasonConfig("s", "sim", START, END, final=FinalConfig())
    second = timedelta(seconds=1)
    assert phase(season, START - second) is Phase.UPCOMING
    assert phase(season, START) is Phase.RUNNING
    assert phase(season, END - second) is Phase.RUNNING
    assert phase(season, END) is Phase.FINAL
    assert phase(season, END + timedelta(days=400)) is Phase.FINAL  # until its report
    assert phase(season, END, final_ended=True) is Phase.OVER
    moscow = END.astimezone(timezone(timedelta(hours=3)))  # any zone: the same moment
    assert phase(season, moscow) is Phase.FINAL and phase(season, moscow - second) is Phase.RUNNING
    no_final = SeasonConfig("s", "sim", START, END)
    assert phase(no_final, END) is Phase.OVER


def _row(bot: str, mu: float, games: int) -> RatingRow:
    return RatingRow(bot, "sim", mu, 1.0, games, games // 2, games - games // 2, 0, "sim")


def test_standings_rank_the_entrants_by_rating_and_export_as_csv() -> None:
    season = SeasonConfig("s", "sim", START, END, min_games=5, min_rating=0.0)
    ratings = [_row("low", 2.0, 9), _row("new", 40.0, 2), _row("best", 30.0, 6),
               _row("mid", 10.0, 5)]
    standings = rank_standings(season, ratings)
    assert [(s.rank, s.bot, s.entered) for s in standings] == [
        (1, "best", True), (2, "mid", True), (0, "new", False), (0, "low", False)]
    assert standings[0].rating == 27.0 and standings[0].to_json()["rating"] == 27.0
    rows = list(csv.reader(io.StringIO(standings_csv(standings))))
    assert rows[0] == ["rank", "bot", "rating", "mu", "sigma", "games", "wins", "losses",
                       "draws", "entered"]
    assert rows[1] == ["1", "best", "27.0", "30.0", "1.0", "6", "3", "3", "0", "yes"]
    assert rows[3][:2] == ["", "new"] and rows[3][-1] == "no" and len(rows) == 5


def test_arena_serve_refuses_a_bad_seasons_file_naming_the_key(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    path = tmp_path / "seasons.toml"
    runner = CliRunner()
    path.write_text('[[seasons]]\nname = "a"\nladder = "sim"\nstart = 2026-01-01T00:00:00Z\n'
                    'end = 2026-02-01T00:00:00Z\nfinal = { top = 100 }\n', encoding="utf-8")
    db = str(tmp_path / "arena.sqlite")
    result = runner.invoke(main, ["serve", "--db", db, "--game", "sim", "--seasons", str(path)])
    assert result.exit_code == 2 and "season 'a', final: 'top' must be an integer from 2 to 64" \
        in result.output
    path.write_text(path.read_text(encoding="utf-8").replace("final = { top = 100 }\n", ""),
                    encoding="utf-8")
    result = runner.invoke(main, ["serve", "--db", db, "--seasons", str(path)])
    assert result.exit_code == 2 and "season 'a' is on the ladder 'sim', but this server's " \
        "ladder is 'substitution'" in result.output.replace("\n", " ").replace("  ", " ")
