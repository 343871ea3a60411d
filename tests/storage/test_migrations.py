"""Both backends' schemas are versioned (SQLite's ``PRAGMA user_version``, PostgreSQL's
``schema_version`` table): an older database is brought up to date, step by step, when
it is opened; a newer one is refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.storage import StorageVersionError
from arena.storage.migrations.sqlite import MIGRATIONS, SCHEMA_VERSION
from arena.storage.sqlite import SQLiteDatabase as Storage


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
    assert storage.version == SCHEMA_VERSION == 4
    assert storage.presets("substitution") == [("mine", "S->a\n")]
    assert [bot.name for bot in storage.bots()] == ["alice"]
    storage.close()
    assert "grammars" not in _tables(path) and {"presets", "probe"} <= _tables(path)
    with sqlite3.connect(path) as db:  # step 3: guest expiry, 128-bit seeds and commitments
        columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        assert {"seed_text", "seed_commitment"} <= columns
        assert db.execute("SELECT expires FROM bots WHERE name = 'alice'").fetchone() == (None,)
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
