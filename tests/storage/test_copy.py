"""``arena db copy``: a whole database into another of either kind, checked by the counts;
SQLite -> PostgreSQL -> SQLite gives back the same rows."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.record import Note
from arena.seasons import SeasonConfig, rank_standings
from arena.storage import BuildRow, Storage, open_storage
from arena.storage.copy import TargetNotEmpty, copy_database, row_counts
from arena.storage.interface import COPIED_TABLES
from arena.storage.migrations.sqlite import SCHEMA_VERSION

from .conftest import postgres_schema
from .games import ended, played, started, turns_of


async def fill(storage: Storage) -> None:
    """Some of everything: accounts (an operator, a revoked one, a guest), finished,
    rated, aborted and running games with their turns, ratings, presets, debug-line
    bytes, a person with a session, an invite, and a bot of theirs in its second version
    that played the aborted game."""
    await storage.add_person("ann", "hash")
    await storage.open_session("ann", 3600)
    await storage.add_invite(3600)
    await storage.add_owned_bot("ann", "ann-bot", max_bots=5)
    await storage.add_version("ann", "ann-bot", "second", per_day=5)
    await storage.add_bot("alice")
    await storage.add_bot("runner", operator=True)
    await storage.add_bot("gone")
    await storage.revoke_bot("gone")
    await storage.add_guest(3600)
    for number in range(5):
        record = replace(played(f"g{number}", ("alice", "bob") if number % 2 else ("bob", "alice")),
                         notes=(Note(0, 0, "thinking"),))  # a debug line: the day's bytes
        await storage.start_game(started(record), ladder=number < 3, pair="p" if number < 2 else None)
        await storage.finish_game(record, rated=number < 3)
    await storage.start_game(ended("aborted", ("ann-bot", "carol"), None), ladder=False, pair=None)
    await storage.recover()
    running = played("live", moves=4)
    await storage.start_game(started(running), ladder=True, pair=None)
    await storage.append_turns(turns_of(running))
    await storage.save_preset("substitution", "mine", "S->a\n")
    await storage.save_build(BuildRow("b1", "alice", "python", "ok", 1.0, 2.0, "ab" * 32,
                                      None, "compiled\n"))
    await storage.save_build(BuildRow("b2", "alice", "c", "failed", 3.0, 4.0, None,
                                      "the build took more than 60 s", "", "lines",
                                      "build-overtime", {"seconds": 60}))
    await storage.save_stderr("g1", "alice", "thinking hard\n")
    season = SeasonConfig("s1", "sim", datetime(2026, 1, 1, tzinfo=UTC),
                          datetime(2026, 2, 1, tzinfo=UTC), min_games=2)
    await storage.freeze_season("s1", "sim", rank_standings(season, await storage.leaderboard()),
                                1000.0)
    await storage.set_season_final("s1", "finished", {"ranking": ["alice"]}, 1001.0)


async def everything(storage: Storage) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every copied table, in the order stored (games) or sorted."""
    async with storage.snapshot() as snapshot:
        tables = {table: [row async for rows in snapshot.rows(table, 3) for row in rows]
                  for table in COPIED_TABLES}
    return {table: rows if table == "games" else sorted(rows, key=repr)
            for table, rows in tables.items()}


async def test_sqlite_to_postgresql_to_sqlite_gives_the_same_data(tmp_path: Path) -> None:
    first = await open_storage(str(tmp_path / "first.sqlite"))
    await fill(first)
    original = await everything(first)
    assert all(original.values()), {table: len(rows) for table, rows in original.items()}
    seen: list[tuple[str, int, int]] = []
    async with postgres_schema() as url:
        middle = await open_storage(url)
        last = await open_storage(str(tmp_path / "last.sqlite"))
        try:
            counts = await copy_database(first, middle, batch=2,
                                         progress=lambda *step: seen.append(step))
            assert counts == {table: len(rows) for table, rows in original.items()}
            assert await everything(middle) == original
            await copy_database(middle, last, batch=1000)
            assert await everything(last) == original
            # what the copy holds answers as the original does
            for storage in (middle, last):
                assert await storage.games(limit=100) == await first.games(limit=100)
                assert await storage.leaderboard() == await first.leaderboard()
                assert await storage.rating_history() == await first.rating_history()
                assert await storage.running_games() == await first.running_games()
                assert await storage.bots() == await first.bots()
                assert await storage.seasons() == await first.seasons()
                assert await storage.season_standings("s1") == await first.season_standings("s1")
        finally:
            await asyncio.gather(first.close(), middle.close(), last.close())
    assert ("games", 6, 7) in seen and ("games", 7, 7) in seen  # in batches of 2


async def test_a_target_with_rows_is_refused_unless_overwritten(url: str, tmp_path: Path) -> None:
    source = await open_storage(str(tmp_path / "source.sqlite"))
    target = await open_storage(url)
    try:
        await fill(source)
        await target.add_bot("someone")
        with pytest.raises(TargetNotEmpty, match="bots 1"):
            await copy_database(source, target)
        assert [b.name for b in await target.bots()] == ["someone"]  # untouched
        await copy_database(source, target, overwrite=True)
        assert await row_counts(target) == await row_counts(source)
        assert "someone" not in {b.name for b in await target.bots()}
    finally:
        await asyncio.gather(source.close(), target.close())


def test_an_old_sqlite_database_s_integer_seeds_are_copied_as_text(tmp_path: Path) -> None:
    import sqlite3

    from arena.storage.migrations.sqlite import MIGRATIONS

    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as db:  # before 128-bit seeds: an integer column
        db.executescript(MIGRATIONS[0])
        db.execute("INSERT INTO games(id, game, settings, players, seed, status, started,"
                   " finished, log) VALUES ('g', 'sim', '{}', '[\"a\", \"b\"]', 42, 'finished',"
                   " 1.0, 2.0, 'x')")
    new = tmp_path / "new.sqlite"
    result = CliRunner().invoke(main, ["db", "copy", "--from", str(old), "--to", f"sqlite:///{new}"])
    assert result.exit_code == 0, result.output

    async def seed() -> str | None:
        storage = await open_storage(str(new))
        try:
            game = await storage.game("g")
            return None if game is None else game.seed
        finally:
            await storage.close()

    assert asyncio.run(seed()) == "42"


def test_the_db_commands(tmp_path: Path) -> None:
    runner = CliRunner()
    source, target = str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite")
    assert runner.invoke(main, ["bots", "add", "alice", "--db", source]).exit_code == 0
    info = runner.invoke(main, ["db", "info", "--db", source])
    assert info.exit_code == 0 and f"sqlite, schema version {SCHEMA_VERSION}" in info.output
    assert re.search(r"^  bots +1$", info.output, re.MULTILINE)
    assert re.search(r"^  season_standings 0$", info.output, re.MULTILINE)  # aligned
    copied = runner.invoke(main, ["db", "copy", "--from", source, "--to", target])
    assert copied.exit_code == 0 and "bots: 1/1 rows" in copied.output
    assert "every table's rows counted again in the target: the same" in copied.output
    again = runner.invoke(main, ["db", "copy", "--from", source, "--to", target])
    assert again.exit_code == 1 and "has rows already (bots 1)" in again.output
    assert runner.invoke(main, ["db", "copy", "--from", source, "--to", target,
                                "--overwrite"]).exit_code == 0
    same = runner.invoke(main, ["db", "copy", "--from", source, "--to", f"sqlite:///{source}"])
    assert same.exit_code == 2 and "the same database" in same.output
    bad = runner.invoke(main, ["db", "copy", "--from", source, "--to", "mysql://x/y"])
    assert bad.exit_code == 2 and "postgresql://USER@HOST/DATABASE" in bad.output
    migrated = runner.invoke(main, ["db", "migrate", "--db", target])
    assert migrated.output == f"{target}: schema version {SCHEMA_VERSION}\n"
    accounts = runner.invoke(main, ["bots", "accounts", "--db", target])
    assert accounts.output == "alice\n"
    unreachable = runner.invoke(main, ["bots", "accounts", "--db",
                                       "postgresql://arena:secret@127.0.0.1:1/arena"])
    assert unreachable.exit_code == 1 and "cannot connect to postgresql://arena:***@" in \
        unreachable.output and "secret" not in unreachable.output
