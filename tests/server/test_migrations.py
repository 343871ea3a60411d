"""The database's schema is versioned (``PRAGMA user_version``): an older database is
brought up to date, step by step, when the server opens it; a newer one is refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.server.storage import MIGRATIONS, SCHEMA_VERSION, Storage, StorageVersionError


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
        assert "notes_bytes" in columns and "log_bytes" in _tables(path)  # step 4
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
    import arena.server.storage as storage_module

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
        log = storage.game("old")["log"]
        assert read_jsonl(log.splitlines()).notes == () and "thinking" not in log
        assert storage.drop_old_notes(before=3.0) == 0  # each looked at once
    finally:
        storage.close()
