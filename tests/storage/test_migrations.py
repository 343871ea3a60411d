"""Both backends' schemas are versioned (SQLite's ``PRAGMA user_version``, PostgreSQL's
``schema_version`` table): an older database is brought up to date, step by step, when
it is opened; a newer one is refused."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import asyncpg
import pytest

from arena.storage import (
    Lease,
    StorageFailure,
    StorageVersionError,
    StoredTurn,
    hash_token,
    open_storage,
)
from arena.storage.migrations import sqlite as sqlite_migrations
from arena.storage.migrations.postgres import MIGRATIONS as POSTGRES_MIGRATIONS
from arena.storage.migrations.postgres import SCHEMA_VERSION as POSTGRES_SCHEMA_VERSION
from arena.storage.migrations.sqlite import MIGRATIONS, SCHEMA_VERSION
from arena.storage.sqlite import SQLiteDatabase as Storage

from .conftest import postgres_schema
from .games import line


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def test_a_database_from_before_versions_keeps_its_accounts_and_grammars(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:  # what the arena wrote before schema versions
        db.executescript(MIGRATIONS[0])
        db.execute("INSERT INTO grammars(name, text, created) VALUES ('mine', 'S->a\n', 1.0)")
        db.execute("INSERT INTO bots(name, token_hash, created) VALUES ('alice', 'h', 1.0)")
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    storage = Storage(path)
    assert storage.version == SCHEMA_VERSION
    assert storage.presets("substitution") == [("mine", "S->a\n")]
    assert [bot.name for bot in storage.bots()] == ["alice"]
    storage.close()
    assert "grammars" not in _tables(path) and {"presets", "probe"} <= _tables(path)
    with sqlite3.connect(path) as db:  # step 3: guest expiry, 128-bit seeds and commitments
        columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        assert {"seed_text", "seed_commitment"} <= columns
        assert db.execute("SELECT expires FROM bots WHERE name = 'alice'").fetchone() == (None,)
        assert "notes_bytes" in columns and "log_bytes" in _tables(path)  # step 4
        assert "time_control" in columns and "game_turns" in _tables(path)  # step 5
        assert {"host", "lease_until"} <= columns  # step 6
        assert {"seasons", "season_standings"} <= _tables(path)  # step 7
        assert {"people", "person_sessions", "invites", "bot_versions"} <= _tables(path)  # step 8
        assert {"bot_builds", "hosted_stderr"} <= _tables(path)  # step 10
    Storage(path).close()  # opening an up-to-date database again changes nothing
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT game, name FROM presets").fetchall() == [("substitution", "mine")]


def test_a_new_database_is_made_at_the_latest_version(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "new.sqlite")
    assert storage.version == SCHEMA_VERSION
    storage.save_preset("sim", "small", "{}")
    assert storage.presets("sim") == [("small", "{}")] and storage.presets("substitution") == []
    assert storage.delete_preset("sim", "small") and not storage.delete_preset("sim", "small")
    storage.close()


def test_a_failed_step_leaves_the_database_at_the_version_before(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    path = tmp_path / "db.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(MIGRATIONS[0])
        db.execute("PRAGMA user_version = 1")
    import arena.storage.sqlite as storage_module

    monkeypatch.setattr(storage_module, "MIGRATIONS", (MIGRATIONS[0], MIGRATIONS[1] + "\nNOT SQL;"))
    with pytest.raises(sqlite3.OperationalError):
        Storage(path)
    assert "grammars" in _tables(path) and "presets" not in _tables(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1


def test_a_database_of_a_newer_arena_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StorageVersionError, match=f"schema version {SCHEMA_VERSION + 1}"):
        Storage(path)


def test_the_debug_lines_of_games_stored_before_step_4_expire_too(tmp_path: Path) -> None:
    """A game stored before debug lines had a retention period has no ``notes_bytes``
    yet: the first pass looks at its log once and drops its lines like anybody's."""
    from arena.game import Outcome, Termination
    from arena.record import MatchRecord, Note, read_jsonl, to_jsonl

    path = tmp_path / "v3.sqlite"
    with sqlite3.connect(path) as db:
        for step in MIGRATIONS[:3]:
            db.executescript(step)
        db.execute("PRAGMA user_version = 3")
        for game_id, notes in (("old", (Note(0, 0, "thinking"),)), ("quiet", ())):
            record = MatchRecord("sim", {}, ("a", "b"), (), Outcome(
                None, None, Termination.ABORTED, detail="x"), id=game_id, notes=notes)
            db.execute("INSERT INTO games(id, game, settings, players, status, started, finished,"
                       " log) VALUES (?, 'sim', '{}', '[\"a\", \"b\"]', 'aborted', 1.0, 2.0, ?)",
                       (game_id, to_jsonl(record)))
    storage = Storage(path)
    try:
        assert storage.drop_old_notes(before=3.0) == 2
        log = storage.game("old").log
        assert read_jsonl(log.splitlines()).notes == () and "thinking" not in log
        assert storage.drop_old_notes(before=3.0) == 0  # each looked at once
    finally:
        storage.close()


def test_version_5_adds_the_write_ahead_turns_to_a_database_of_version_4(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite"
    with sqlite3.connect(path) as db:
        for step in MIGRATIONS[:4]:
            db.executescript(step)
        db.execute("PRAGMA user_version = 4")
        db.execute("INSERT INTO games(id, game, settings, players, status, started, seed_text)"
                   " VALUES ('g1', 'sim', '{}', '[\"a\", \"b\"]', 'running', 1.0, '7')")
    storage = Storage(path)
    try:
        [running] = storage.running_games()
        assert running.id == "g1" and running.seed == 7 and running.turns == ()
        assert running.time_control is None  # not stored before version 5
    finally:
        storage.close()
    assert "game_turns" in _tables(path)


def test_the_people_step_keeps_a_database_s_bots_and_games(tmp_path: Path) -> None:
    step = next(i for i, sql in enumerate(MIGRATIONS) if "CREATE TABLE people" in sql)
    path = tmp_path / "before-people.sqlite"
    with sqlite3.connect(path) as db:
        for sql in MIGRATIONS[:step]:
            db.executescript(sql)
        db.execute(f"PRAGMA user_version = {step}")
        db.execute("INSERT INTO bots(name, token_hash, created) VALUES ('alice', 'h', 1.0)")
        db.execute("INSERT INTO game_players(game_id, seat, bot) VALUES ('g1', 0, 'alice')")
    storage = Storage(path)
    try:
        [alice] = storage.bots()
        assert alice.owner is None and storage.people() == []
        assert storage.versions_played("alice", ["g1"]) == {}  # no version recorded then
        storage.add_person("ann", "hash")
        storage.add_owned_bot("ann", "ann-bot", max_bots=1)
        assert [b.version for b in storage.owned_bots("ann")] == [1]
    finally:
        storage.close()


# -- PostgreSQL ------------------------------------------------------------------------------

POSTGRES_VERSION_1 = """
CREATE TABLE bots (name TEXT PRIMARY KEY, token_hash TEXT UNIQUE,
    created DOUBLE PRECISION NOT NULL, revoked DOUBLE PRECISION,
    operator BOOLEAN NOT NULL DEFAULT FALSE, house TEXT, expires DOUBLE PRECISION);
CREATE TABLE games (seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE, id TEXT PRIMARY KEY,
    game TEXT NOT NULL, settings TEXT NOT NULL, players TEXT NOT NULL, seed TEXT,
    seed_commitment TEXT, ladder BOOLEAN NOT NULL DEFAULT FALSE, pair TEXT,
    status TEXT NOT NULL, result TEXT, winner INTEGER, scores TEXT, termination TEXT,
    reason TEXT, turns INTEGER, started DOUBLE PRECISION NOT NULL,
    finished DOUBLE PRECISION, log TEXT, notes_bytes INTEGER);
CREATE INDEX games_started ON games(started);
CREATE INDEX games_with_notes ON games(finished) WHERE notes_bytes IS DISTINCT FROM 0;
CREATE INDEX games_running ON games(status) WHERE status = 'running';
CREATE TABLE game_players (game_id TEXT NOT NULL, seat INTEGER NOT NULL, bot TEXT NOT NULL,
    PRIMARY KEY (game_id, seat));
CREATE INDEX game_players_bot ON game_players(bot);
CREATE TABLE ratings (bot TEXT NOT NULL, game TEXT NOT NULL, mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL, games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0, losses INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0, updated DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (bot, game));
CREATE TABLE rating_updates (game_id TEXT NOT NULL, bot TEXT NOT NULL,
    mu_before DOUBLE PRECISION NOT NULL, sigma_before DOUBLE PRECISION NOT NULL,
    mu_after DOUBLE PRECISION NOT NULL, sigma_after DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, bot));
CREATE TABLE presets (game TEXT NOT NULL, name TEXT NOT NULL, text TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL, PRIMARY KEY (game, name));
CREATE TABLE log_bytes (bot TEXT NOT NULL, day INTEGER NOT NULL, bytes INTEGER NOT NULL,
    PRIMARY KEY (bot, day));
CREATE TABLE probe (data BYTEA);
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (1);
"""
"""The PostgreSQL schema as the first release that had one made it (version 1), kept
here as it was: later steps are tested on a database of that version with data in it."""


async def test_a_postgresql_database_of_version_1_is_upgraded_with_its_data() -> None:
    async with postgres_schema() as url:
        setup = await asyncpg.connect(url)
        try:
            await setup.execute(POSTGRES_VERSION_1)
            await setup.execute(
                "INSERT INTO bots(name, token_hash, created) VALUES ('alice', $1, 1.0)",
                hash_token("token"))
            await setup.execute(
                "INSERT INTO games(id, game, settings, players, seed, status, started)"
                " VALUES ('g1', 'sim', '{}', '[\"alice\", \"bob\"]', $1, 'running', 2.0)",
                str(2**100))
            await setup.execute("INSERT INTO presets VALUES ('substitution', 'mine', 'S->a', 3.0)")
        finally:
            await setup.close()
        storage = await open_storage(url)
        try:
            assert await storage.schema_version() == POSTGRES_SCHEMA_VERSION
            assert (await storage.authenticate("token")).name == "alice"  # type: ignore[union-attr]
            assert await storage.presets("substitution") == [("mine", "S->a")]
            [running] = await storage.running_games()
            assert running.id == "g1" and running.seed == 2**100 and running.time_control is None
            await storage.append_turns([StoredTurn("g1", 0, line(0), (0.0, 0.0), 0, 4.0)])
            assert [t.line for t in (await storage.running_games())[0].turns] == [line(0)]
            assert await storage.leases() == [Lease("g1", None, None)]  # version 3: any host
            assert await storage.claim_expired("host-a", 60) == ["g1"]  # may claim it
            assert await storage.seasons() == []  # version 4: the seasons' tables
            assert await storage.people() == []  # version 5: people and their bots
            assert await storage.versions_played("alice", ["g1"]) == {}  # no version then
            assert await storage.builds() == []  # version 7: the hosted bots' builds
        finally:
            await storage.close()
        again = await open_storage(url)  # up to date: opening changes nothing
        assert await again.schema_version() == POSTGRES_SCHEMA_VERSION
        await again.close()


async def test_postgresql_servers_starting_at_once_migrate_once() -> None:
    async with postgres_schema() as url:
        opened = await asyncio.gather(*(open_storage(url) for _ in range(4)))
        try:
            assert {await storage.schema_version() for storage in opened} == {POSTGRES_SCHEMA_VERSION}
            await opened[0].add_bot("alice")
            assert [b.name for b in await opened[3].bots()] == ["alice"]
        finally:
            await asyncio.gather(*(storage.close() for storage in opened))


async def test_a_postgresql_database_of_a_newer_arena_is_refused_by_name() -> None:
    async with postgres_schema() as url:
        setup = await asyncpg.connect(url)
        try:
            await setup.execute("CREATE TABLE schema_version (version INTEGER NOT NULL);"
                                f" INSERT INTO schema_version VALUES ({POSTGRES_SCHEMA_VERSION + 1})")
        finally:
            await setup.close()
        with pytest.raises(StorageVersionError, match=f"schema version {POSTGRES_SCHEMA_VERSION + 1}"):
            await open_storage(url)


async def test_a_failed_postgresql_step_leaves_the_version_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.storage.postgres as postgres_module

    monkeypatch.setattr(postgres_module, "MIGRATIONS",
                        (POSTGRES_MIGRATIONS[0], POSTGRES_MIGRATIONS[1] + "\nNOT SQL;"))
    async with postgres_schema() as url:
        with pytest.raises(StorageFailure, match="syntax error"):
            await open_storage(url)
        check = await asyncpg.connect(url)
        try:
            assert await check.fetchval("SELECT version FROM schema_version") == 1
            assert await check.fetchval("SELECT to_regclass('game_turns')") is None
        finally:
            await check.close()


# -- several ladders (the step after the seasons' on both backends) ----------------------

LADDERS_STEP = MIGRATIONS.index(sqlite_migrations._LADDERS)
"""The version of a SQLite database from just before ladders had names."""


def test_the_ladders_step_gives_the_ratings_stored_before_to_the_ladder_named_after_their_game(
        tmp_path: Path) -> None:
    path = tmp_path / "before.sqlite"
    with sqlite3.connect(path) as db:
        for step in MIGRATIONS[:LADDERS_STEP]:
            db.executescript(step)
        db.execute(f"PRAGMA user_version = {LADDERS_STEP}")
        db.execute("INSERT INTO games(id, game, settings, players, status, started, ladder)"
                   " VALUES ('g1', 'sim', '{}', '[\"a\", \"b\"]', 'finished', 1.0, 1)")
        db.execute("INSERT INTO games(id, game, settings, players, status, started, ladder)"
                   " VALUES ('g2', 'sim', '{}', '[\"a\", \"b\"]', 'finished', 2.0, 0)")
        db.execute("INSERT INTO ratings(bot, game, mu, sigma, games, updated)"
                   " VALUES ('a', 'sim', 30.0, 5.0, 1, 1.0)")
        db.execute("INSERT INTO rating_updates VALUES ('g1', 'a', 25.0, 8.0, 30.0, 5.0)")
    storage = Storage(path)
    try:
        assert storage.version == SCHEMA_VERSION
        rating = storage.rating("a", "sim")
        assert rating is not None and (rating.ladder, rating.mu, rating.games) == ("sim", 30.0, 1)
        assert [g.ladder_name for g in storage.games()] == [None, "sim"]
        assert storage.rating_history("sim") == {"a": [[None, 15.0]]}
    finally:
        storage.close()


async def test_a_postgresql_database_of_version_1_keeps_its_ratings_on_the_game_s_ladder() -> None:
    async with postgres_schema() as url:
        setup = await asyncpg.connect(url)
        try:
            await setup.execute(POSTGRES_VERSION_1)
            await setup.execute(
                "INSERT INTO games(id, game, settings, players, status, started, ladder)"
                " VALUES ('g1', 'sim', '{}', '[\"a\", \"b\"]', 'finished', 2.0, TRUE)")
            await setup.execute("INSERT INTO ratings(bot, game, mu, sigma, games, updated)"
                                " VALUES ('a', 'sim', 30.0, 5.0, 1, 1.0)")
        finally:
            await setup.close()
        storage = await open_storage(url)
        try:
            rating = await storage.rating("a", "sim")
            assert rating is not None and (rating.ladder, rating.mu) == ("sim", 30.0)
            assert [g.ladder_name for g in await storage.games()] == ["sim"]
        finally:
            await storage.close()
