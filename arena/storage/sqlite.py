"""SQLite storage: the embedded default, one file.

`SQLiteDatabase` is the database itself, synchronous and not thread-safe; `SQLiteStorage`
is the `Storage` interface over it, calling it from one worker thread so the event loop
never waits on the disk (one writer: games that end together are rated one after the
other). Durability is the point: WAL mode with ``synchronous=FULL``, and every write
that must survive together is one transaction (`finish_game`: result, log, ratings, and
the game's write-ahead turns dropped), on the disk before the call returns. Write-ahead
turns (`append_turns`), a game's start and the hosts' leases are committed with
``synchronous=NORMAL``: they survive the server's process (a crash, ``kill -9``), and
the next synced commit takes them to the disk (a start is no more durable than its
moves need; a lease outlives no power loss of the one process that holds it). A
result's flush (`sync_wal`) is the WAL file's ``fdatasync`` after its commit, which
`SQLiteStorage` runs in a thread of its own (`WalFlusher`): the moves committed meanwhile
do not wait behind the disk.

A failure of the database itself (a full or read-only disk, an I/O error, a corrupt
file: `is_storage_failure`) raises `StorageFailure` and makes the storage unhealthy.
Seeds are kept as decimal text (``seed_text``): a 128-bit seed fits no SQLite INTEGER;
the ``seed`` column holds the integer seeds of databases written before that.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from arena.bot_logs import utc_day
from arena.clock import TimeControl
from arena.game import Outcome, Termination
from arena.metrics import STORAGE_SECONDS
from arena.names import GUEST_PREFIX, check_account_name
from arena.record import MatchRecord, to_jsonl, without_notes
from arena.seasons import Standing
from arena.seeds import parse_seed, seed_to_text
from arena.storage.interface import (
    BOOLEAN_COLUMNS,
    CLAIM_LIMIT,
    COPIED_TABLES,
    PENDING_ENDS_SECONDS,
    PROBE_BYTES,
    RECOVERED,
    BotAccount,
    BuildRow,
    GameRow,
    Lease,
    PendingChallenge,
    RatingRow,
    RunningGame,
    SeasonRecord,
    Snapshot,
    Storage,
    StorageFailure,
    StorageVersionError,
    StoredGame,
    StoredTurn,
    check_bulk_names,
    hash_token,
    taken_error,
)
from arena.storage.migrations.sqlite import MIGRATIONS
from arena.storage.ratings import initial_rating, rate
from arena.storage.rows import (
    BUILD_COLUMNS,
    CHALLENGE_COLUMNS,
    GAME_COLUMNS,
    RATING_COLUMNS,
    RUNNING_COLUMNS,
    SEASON_COLUMNS,
    STANDING_COLUMNS,
    STANDING_ORDER,
    build_row,
    build_values,
    challenge_row,
    clocks_json,
    game_row,
    notes_bytes,
    pairings,
    running_game,
    season_record,
    standing,
    standing_values,
    stored_game,
    stored_ladder_name,
    stored_turn,
)
from arena.storage.sqlite_people import SQLitePeople, SQLitePeopleStorage

__all__ = ["SQLiteDatabase", "SQLiteStorage", "is_storage_failure"]

T = TypeVar("T")

_SEED = "COALESCE(seed_text, CAST(seed AS TEXT))"
"""A game's seed as decimal text: the text column, or the integer of an older database."""

_log = logging.getLogger("arena.storage")

_SECONDS = STORAGE_SECONDS.labels("sqlite")
"""Every call's time, as its caller waits for it (the database thread's queue included)."""

_CHUNK = 500
"""Names bound in one ``IN (...)`` at most (SQLite bounds a statement's variables)."""

TURNS_PER_STATEMENT = 200
"""Turns stored by one INSERT at most (five values each; fewer if this SQLite takes
fewer variables); more in one commit go in one transaction of several."""


@functools.lru_cache(maxsize=64)
def _insert_turns(count: int) -> str:
    """The INSERT of `count` turns (one text per count: SQLite's statement cache keeps
    it prepared)."""
    return "INSERT INTO game_turns(game_id, idx, line, clocks, ended) VALUES " + _rows(count, 5)


@functools.lru_cache(maxsize=64)
def _rows(count: int, columns: int) -> str:
    """``(?, ?), (?, ?)``: `count` rows of `columns` values, for one INSERT of them all
    (each statement is a hand-over of the GIL between the database thread and the
    event loop's, so a game's start and end are as few statements as they can be)."""
    return ", ".join(["(" + ", ".join(["?"] * columns) + ")"] * count)


def _flat(rows: Iterable[Sequence[Any]]) -> list[Any]:
    return [value for row in rows for value in row]


_GAMES = GAME_COLUMNS.format(seed=_SEED)
_RUNNING = RUNNING_COLUMNS.format(seed=_SEED)

_COLUMNS = {**COPIED_TABLES, "games": tuple(
    "seed_text" if column == "seed" else column for column in COPIED_TABLES["games"])}
"""`COPIED_TABLES` as this schema names the columns (the seed is ``seed_text``)."""


def is_storage_failure(error: BaseException) -> bool:
    """Whether `error` says the database itself fails, not the request (a constraint)."""
    if isinstance(error, sqlite3.OperationalError | OSError):
        return True
    return type(error) is sqlite3.DatabaseError  # a corrupt file, an unreadable page


class SQLiteDatabase(SQLitePeople):
    """The arena database in one SQLite file (synchronous; `SQLiteStorage` is its async
    interface). Opening it brings its schema up to date (`migrate`).

    Args:
        path: the database file (made if missing), or ``:memory:``.

    Raises:
        StorageVersionError: the file was written by a newer arena (one of more
            `MIGRATIONS`).
        sqlite3.Error: the file cannot be opened or brought up to date (the database
            is then left at the last version it reached).

    Example:
        >>> database = SQLiteDatabase(":memory:")
        >>> token = database.add_bot("alice")
        >>> database.authenticate(token).name, database.authenticate("wrong")
        ('alice', None)
        >>> database.version == len(MIGRATIONS)
        True
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                   cached_statements=256)  # room for `_insert_turns`
        self._unsynced = False
        """The connection is at ``synchronous=NORMAL`` (`unsynced_db` left it so)."""
        self._wal: int | None = None
        """A descriptor of the WAL file, for `sync_wal`."""
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self.migrate()
        except BaseException:
            self._db.close()
            raise
        limit = self._db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        self._turns_per_statement = max(1, min(TURNS_PER_STATEMENT, limit // 5))

    @property
    def db(self) -> sqlite3.Connection:
        """The connection, at ``synchronous=FULL`` (every write through it is synced):
        `append_turns` leaves it at ``NORMAL`` for the turns that follow, and whatever
        else uses it puts ``FULL`` back first, so a run of turns' commits costs no
        statement for the setting."""
        if self._unsynced and not self._db.in_transaction:  # (a transaction keeps its own)
            self._db.execute("PRAGMA synchronous=FULL")
            self._unsynced = False
        return self._db

    @property
    def unsynced_db(self) -> sqlite3.Connection:
        """The connection at ``synchronous=NORMAL``: its commits survive the server's
        process, not a power loss (module docstring); `db` syncs again."""
        if not self._unsynced and not self._db.in_transaction:
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._unsynced = True
        return self._db

    def sync_wal(self) -> None:
        """Take every commit so far to the disk: the WAL file's ``fdatasync`` (what
        ``synchronous=FULL`` does at each commit; a checkpoint that empties the WAL
        syncs the database file first). Safe from any thread: a file descriptor of its
        own, no call into SQLite. Nothing to do for a database in memory.

        Raises:
            OSError: the disk failed.
        """
        if self._wal is None:
            if self.path == ":memory:" or self.path.startswith("file:"):
                return
            self._wal = os.open(self.path + "-wal", os.O_RDONLY | os.O_CLOEXEC)
        os.fdatasync(self._wal)  # as SQLite syncs on Linux

    @property
    def version(self) -> int:
        """The schema version of the database (``PRAGMA user_version``)."""
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> None:
        """Bring the database up to date, one step of `MIGRATIONS` at a time,
        each in its own transaction (with its new version number: a crash leaves the
        database at the step before or after, never between).

        Raises:
            StorageVersionError: the database is of a later version than this code.
        """
        version, latest = self.version, len(MIGRATIONS)
        if version > latest:
            raise StorageVersionError(
                f"{self.path} has schema version {version}; this arena reads up to "
                f"{latest} (it was written by a newer arena)")
        for step in range(version, latest):
            # executescript commits what is pending first; the step is its own transaction
            try:
                self.db.executescript(f"BEGIN IMMEDIATE;\n{MIGRATIONS[step]}\n"
                                      f"PRAGMA user_version = {step + 1};\nCOMMIT;")
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Close the database connection (unusable afterwards)."""
        self._db.close()
        if self._wal is not None:
            os.close(self._wal)
            self._wal = None

    def _tx(self, work: Callable[[sqlite3.Connection], T], *, synced: bool = True) -> T:
        """Run `work` in one transaction: committed, or rolled back if anything fails
        (the commit itself included, on a full disk); `synced` False: committed at
        ``synchronous=NORMAL`` (`unsynced_db`)."""
        db = self.db if synced else self.unsynced_db
        db.execute("BEGIN IMMEDIATE")
        try:
            result = work(db)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # SQLite may have rolled back by itself
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        return result

    def check_writable(self) -> None:
        """Write and remove `PROBE_BYTES` in a committed transaction."""

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO probe(data) VALUES (zeroblob(?))", (PROBE_BYTES,))
            db.execute("DELETE FROM probe")

        self._tx(work)

    # -- accounts --------------------------------------------------------------------

    def add_bot(self, name: str, *, operator: bool = False, replace: bool = False) -> str:
        check_account_name(name)
        return self._add_account(name, operator=operator, replace=replace)

    def add_bots(self, names: Sequence[str], *, operator: bool = False) -> dict[str, str]:
        names = check_bulk_names(names)
        tokens = {name: secrets.token_urlsafe(32) for name in names}
        now = time.time()

        def work(db: sqlite3.Connection) -> None:
            taken = []
            for start in range(0, len(names), _CHUNK):
                chunk = names[start:start + _CHUNK]
                taken += [row[0] for row in db.execute(
                    "SELECT name FROM bots WHERE revoked IS NULL AND name IN"
                    f" ({','.join('?' * len(chunk))})", chunk)]
            if taken:
                raise taken_error(taken)
            db.executemany(
                "INSERT OR REPLACE INTO bots(name, token_hash, created, revoked, operator, expires)"
                " VALUES (?, ?, ?, NULL, ?, NULL)",
                ((name, hash_token(token), now, int(operator)) for name, token in tokens.items()))

        self._tx(work)
        return tokens

    def add_guest(self, lifetime: float) -> tuple[str, str]:
        name = GUEST_PREFIX + secrets.token_hex(4)
        return name, self._add_account(name, expires=time.time() + lifetime)

    def _add_account(self, name: str, *, operator: bool = False, replace: bool = False,
                     expires: float | None = None) -> str:
        token = secrets.token_urlsafe(32)

        def work(db: sqlite3.Connection) -> None:
            row = db.execute("SELECT revoked FROM bots WHERE name = ?", (name,)).fetchone()
            if row is not None and row[0] is None and not replace:
                raise ValueError(f"bot {name!r} exists")
            db.execute(
                "INSERT OR REPLACE INTO bots(name, token_hash, created, revoked, operator, expires)"
                " VALUES (?, ?, ?, NULL, ?, ?)",
                (name, hash_token(token), time.time(), int(operator), expires),
            )

        self._tx(work)
        return token

    def revoke_bot(self, name: str) -> bool:
        cursor = self.db.execute(
            "UPDATE bots SET revoked = ?, token_hash = NULL WHERE name = ? AND revoked IS NULL",
            (time.time(), name),
        )
        return cursor.rowcount > 0

    def token_hashes(self, names: Iterable[str]) -> dict[str, str]:
        wanted = sorted(set(names))
        found: dict[str, str] = {}
        now = time.time()
        for start in range(0, len(wanted), 500):  # SQLite caps the number of parameters
            chunk = wanted[start:start + 500]
            rows = self.db.execute(
                f"SELECT name, token_hash FROM bots WHERE revoked IS NULL"
                f" AND (expires IS NULL OR expires > ?) AND name IN "
                f"({', '.join('?' * len(chunk))})", (now, *chunk)).fetchall()
            found.update((row[0], row[1]) for row in rows)
        return found

    def authenticate(self, token: str) -> BotAccount | None:
        row = self.db.execute(
            "SELECT name, operator, created, owner FROM bots WHERE token_hash = ?"
            " AND revoked IS NULL AND (expires IS NULL OR expires > ?)",
            (hash_token(token), time.time()),
        ).fetchone()
        return None if row is None else BotAccount(row[0], bool(row[1]), False, row[2], row[3])

    def purge_expired(self) -> int:
        now = time.time()
        self.purge_people(now)
        cursor = self.db.execute("DELETE FROM bots WHERE expires IS NOT NULL AND expires <= ?",
                                 (now,))
        count = cursor.rowcount
        self.db.execute("DELETE FROM pending_ends WHERE created <= ?",
                        (now - PENDING_ENDS_SECONDS,))
        return count

    def bots(self) -> list[BotAccount]:
        rows = self.db.execute(
            "SELECT name, operator, revoked, created, owner FROM bots ORDER BY name"
        ).fetchall()
        return [BotAccount(r[0], bool(r[1]), r[2] is not None, r[3], r[4]) for r in rows]

    # -- games -----------------------------------------------------------------------

    def start_game(self, record: MatchRecord, *, ladder: bool, pair: str | None,
                   time_control: TimeControl | None = None,
                   ladder_name: str | None = None, host: str | None = None,
                   lease: float = 0.0) -> None:
        def work(db: sqlite3.Connection) -> None:
            now = time.time()
            try:
                db.execute(
                    "INSERT INTO games(id, game, settings, players, seed_text, seed_commitment,"
                    " time_control, ladder, pair, status, started, ladder_name, host,"
                    " lease_until)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)",
                    (record.id, record.game, json.dumps(record.settings),
                     json.dumps(record.players),
                     None if record.seed is None else seed_to_text(record.seed),
                     record.seed_commitment,
                     None if time_control is None else json.dumps(time_control.to_json()),
                     int(ladder), pair, now, stored_ladder_name(record, ladder, ladder_name),
                     host, None if host is None else now + lease),
                )
            except sqlite3.IntegrityError:
                raise ValueError(f"a game {record.id!r} is stored already") from None
            db.execute(  # with each bot's current version (a person's bot has one)
                "INSERT INTO game_players(game_id, seat, bot, version) SELECT p.column1,"
                " p.column2, p.column3, (SELECT MAX(version) FROM bot_versions WHERE bot ="
                f" p.column3) FROM (VALUES {_rows(len(record.players), 3)}) AS p",
                _flat((record.id, seat, name) for seat, name in enumerate(record.players)))

        self._tx(work, synced=False)  # as durable as its moves (module docstring)

    def append_turns(self, turns: Sequence[StoredTurn]) -> None:
        def insert(db: sqlite3.Connection, some: Sequence[StoredTurn]) -> None:
            values: list[Any] = []
            for turn in some:
                values += (turn.game_id, turn.index, turn.line, clocks_json(turn), turn.ended)
            try:
                db.execute(_insert_turns(len(some)), values)
            except sqlite3.IntegrityError as error:
                raise ValueError(f"a turn is stored already ({error})") from None

        if not turns:
            return
        # the moves survive the server's process, not the machine's power: the WAL is
        # written, not synced (the next result's commit syncs it), so a move costs no
        # disk flush (docs/server.md "Restarts"); `db` syncs again for anything else
        db = self.unsynced_db
        size = self._turns_per_statement
        if len(turns) <= size:
            # one statement is one transaction: the database thread lets go of the GIL
            # once per commit (a statement a turn, BEGIN and COMMIT took it back each)
            insert(db, turns)
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            for start in range(0, len(turns), size):
                insert(db, turns[start:start + size])
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise

    def running_games(self, ids: Collection[str] | None = None) -> list[RunningGame]:
        # one read transaction: the turns belong to the games read
        chosen = "" if ids is None else " AND g.id IN (SELECT value FROM json_each(?))"
        args = () if ids is None else (json.dumps(list(ids)),)
        self.db.execute("BEGIN")
        try:
            games = self.db.execute(
                f"SELECT {_RUNNING} FROM games g WHERE status = 'running'{chosen}"
                " ORDER BY started, rowid", args).fetchall()
            turns: dict[str, list[StoredTurn]] = {row[0]: [] for row in games}
            for game_id, index, line, clocks, ended in self.db.execute(
                    "SELECT t.game_id, t.idx, t.line, t.clocks, t.ended FROM game_turns t"
                    f" JOIN games g ON g.id = t.game_id WHERE g.status = 'running'{chosen}"
                    " ORDER BY t.game_id, t.idx", args):
                turns[game_id].append(
                    stored_turn(game_id, index, line, clocks, ended))
        finally:
            self.db.execute("COMMIT")
        return [running_game(row, turns[row[0]]) for row in games]

    def finish_game(self, record: MatchRecord, *, rated: bool = False,
                    log: str | None = None, pending: Collection[str] = (),
                    synced: bool = True) -> list[RatingRow]:
        """`Storage.finish_game`; `synced` False commits without the disk's flush, which
        the caller then owes the result (`sync_wal`, module docstring)."""
        outcome = record.outcome
        assert outcome is not None
        if log is None:
            log = to_jsonl(record)
        log_bytes = notes_bytes(record)

        def work(db: sqlite3.Connection) -> list[RatingRow]:
            # few statements (`_rows`): one each for the game, the log's bytes, its
            # turns, the ends kept, the ratings read, written and their updates
            now = time.time()
            row = db.execute(
                "UPDATE games SET status = ?, result = ?, winner = ?, scores = ?, termination = ?,"
                " reason = ?, turns = ?, finished = ?, log = ?, notes_bytes = ? WHERE id = ?"
                " RETURNING ladder_name",
                ("aborted" if outcome.result == "aborted" else "finished", outcome.result,
                 outcome.winner, json.dumps(list(outcome.scores)) if outcome.scores else None,
                 outcome.termination.value, outcome.detail, len(record.turns), now,
                 log, sum(log_bytes.values()), record.id),
            ).fetchall()  # (to its end: the statement done before the next)
            if log_bytes:
                db.execute(
                    f"INSERT INTO log_bytes(bot, day, bytes) VALUES {_rows(len(log_bytes), 3)}"
                    " ON CONFLICT(bot, day) DO UPDATE SET bytes = bytes + excluded.bytes",
                    _flat((bot, utc_day(now), size) for bot, size in log_bytes.items()))
            db.execute("DELETE FROM game_turns WHERE game_id = ?", (record.id,))
            if waiting := sorted(set(pending)):
                db.execute(
                    "INSERT OR IGNORE INTO pending_ends(bot, game_id, created) VALUES "
                    + _rows(len(waiting), 3), _flat((bot, record.id, now) for bot in waiting))
            if not rated or outcome.result == "aborted":
                return []
            ladder = (row[0][0] if row else None) or record.game
            bots = sorted(set(record.players))
            known = {rating.bot: rating for rating in (RatingRow(*r) for r in db.execute(
                f"SELECT {RATING_COLUMNS} FROM ratings WHERE ladder = ? AND bot IN"
                f" ({', '.join(['?'] * len(bots))})", (ladder, *bots)))}
            before = [known.get(bot) or initial_rating(bot, record.game, ladder)
                      for bot in record.players]
            after = rate(before, outcome)
            db.execute(
                "INSERT OR REPLACE INTO ratings(bot, game, mu, sigma, games, wins, losses,"
                f" draws, updated, ladder) VALUES {_rows(len(after), 10)}",
                _flat((new.bot, new.game, new.mu, new.sigma, new.games, new.wins, new.losses,
                       new.draws, now, new.ladder) for new in after))
            db.execute(
                f"INSERT INTO rating_updates VALUES {_rows(len(after), 6)}",
                _flat((record.id, new.bot, old.mu, old.sigma, new.mu, new.sigma)
                      for old, new in zip(before, after, strict=True)))
            return after

        return self._tx(work, synced=synced)

    def recover(self, detail: str = RECOVERED) -> list[str]:
        rows = self.db.execute(
            f"SELECT id, game, settings, players, {_SEED}, seed_commitment FROM games"
            " WHERE status = 'running'"
        ).fetchall()
        for game_id, game, settings, players, seed, commitment in rows:
            self.finish_game(MatchRecord(
                game=game, settings=json.loads(settings), players=tuple(json.loads(players)),
                turns=(), outcome=Outcome(None, None, Termination.ABORTED, detail=detail),
                seed=parse_seed(seed), id=game_id, seed_commitment=commitment))
        return [row[0] for row in rows]

    def ladder_pairings(self, since: float,
                        ladder: str | None = None) -> list[tuple[float, str, str]]:
        sql = ("SELECT MIN(started), players FROM games WHERE started >= ?"
               " AND ladder_name IS NOT NULL AND pair IS NOT NULL")
        args: tuple[Any, ...] = (since,)
        if ladder is not None:
            sql += " AND ladder_name = ?"
            args += (ladder,)
        return pairings(self.db.execute(sql + " GROUP BY pair", args).fetchall())

    def log_bytes(self, bot: str, day: int) -> int:
        row = self.db.execute("SELECT bytes FROM log_bytes WHERE bot = ? AND day = ?",
                              (bot, day)).fetchone()
        return 0 if row is None else int(row[0])

    def drop_old_notes(self, before: float, limit: int = 100) -> int:
        def work(db: sqlite3.Connection) -> int:
            rows = db.execute(
                "SELECT id, log FROM games WHERE notes_bytes IS NOT 0 AND finished < ?"
                " ORDER BY finished LIMIT ?", (before, limit)).fetchall()
            for game_id, log in rows:
                kept = without_notes(log) if log else log
                if kept != log:
                    db.execute("UPDATE games SET log = ?, notes_bytes = 0 WHERE id = ?",
                               (kept, game_id))
                else:
                    db.execute("UPDATE games SET notes_bytes = 0 WHERE id = ?", (game_id,))
            db.execute("DELETE FROM log_bytes WHERE day < ?", (utc_day(before),))
            return len(rows)

        return self._tx(work)

    def games(self, *, bot: str | None = None, game: str | None = None,
              status: str | None = None, limit: int = 50,
              before: float | None = None, ladder: str | None = None) -> list[GameRow]:
        where: list[str] = []
        args: list[Any] = []
        if bot is not None:
            where.append("id IN (SELECT game_id FROM game_players WHERE bot = ?)")
            args.append(bot)
        if game is not None:
            where.append("game = ?")
            args.append(game)
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if ladder is not None:
            where.append("ladder_name = ?")
            args.append(ladder)
        if before is not None:
            where.append("started < ?")
            args.append(before)
        sql = f"SELECT {_GAMES} FROM games"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY started DESC, rowid DESC LIMIT ?"
        args.append(limit)
        return [game_row(row) for row in self.db.execute(sql, args).fetchall()]

    def game(self, game_id: str) -> StoredGame | None:
        row = self.db.execute(f"SELECT {_GAMES}, settings, log FROM games WHERE id = ?",
                              (game_id,)).fetchone()
        return None if row is None else stored_game(row)

    # -- ratings ---------------------------------------------------------------------

    def rating(self, bot: str, ladder: str) -> RatingRow | None:
        row = self.db.execute(f"SELECT {RATING_COLUMNS} FROM ratings WHERE bot = ? AND ladder = ?",
                              (bot, ladder)).fetchone()
        return None if row is None else RatingRow(*row)

    def leaderboard(self, ladder: str | None = None) -> list[RatingRow]:
        sql = f"SELECT {RATING_COLUMNS} FROM ratings"
        args: tuple[Any, ...] = ()
        if ladder is not None:
            sql += " WHERE ladder = ?"
            args = (ladder,)
        rows = [RatingRow(*row) for row in self.db.execute(sql, args).fetchall()]
        return sorted(rows, key=lambda r: (-r.conservative, r.bot))

    def rating_history(self, ladder: str | None = None) -> dict[str, list[list[float]]]:
        sql = ("SELECT u.bot, g.finished, u.mu_after, u.sigma_after FROM rating_updates u"
               " JOIN games g ON g.id = u.game_id")
        args: tuple[Any, ...] = ()
        if ladder is not None:
            sql += " WHERE COALESCE(g.ladder_name, g.game) = ?"
            args = (ladder,)
        sql += " ORDER BY g.finished, g.rowid"
        history: dict[str, list[list[float]]] = {}
        for bot, finished, mu, sigma in self.db.execute(sql, args).fetchall():
            history.setdefault(bot, []).append([finished, round(mu - 3 * sigma, 3)])
        return history

    # -- seasons ---------------------------------------------------------------------

    def freeze_season(self, name: str, ladder: str, standings: Sequence[Standing],
                      at: float, settings: Mapping[str, Any] | None = None) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            if db.execute("SELECT 1 FROM seasons WHERE name = ?", (name,)).fetchone():
                return False
            db.execute("INSERT INTO seasons(name, ladder, settings, frozen) VALUES (?, ?, ?, ?)",
                       (name, ladder, None if settings is None else json.dumps(settings), at))
            db.executemany(f"INSERT INTO season_standings(season, {STANDING_COLUMNS})"
                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [standing_values(name, row) for row in standings])
            return True

        return self._tx(work)

    def seasons(self) -> list[SeasonRecord]:
        rows = self.db.execute(f"SELECT {SEASON_COLUMNS} FROM seasons"
                               " ORDER BY frozen DESC, name").fetchall()
        return [season_record(row) for row in rows]

    def season(self, name: str) -> SeasonRecord | None:
        row = self.db.execute(f"SELECT {SEASON_COLUMNS} FROM seasons WHERE name = ?",
                              (name,)).fetchone()
        return None if row is None else season_record(row)

    def season_standings(self, name: str) -> list[Standing]:
        rows = self.db.execute(f"SELECT {STANDING_COLUMNS} FROM season_standings"
                               f" WHERE season = ?{STANDING_ORDER}", (name,)).fetchall()
        return [standing(row) for row in rows]

    def claim_season_final(self, name: str, at: float, stale_before: float) -> bool:
        return self.db.execute(
            "UPDATE seasons SET final_status = 'running', final_report = NULL,"
            " final_updated = ? WHERE name = ? AND (final_status IS NULL OR"
            " (final_status = 'running' AND final_updated < ?))",
            (at, name, stale_before)).rowcount > 0

    def set_season_final(self, name: str, status: str, report: Mapping[str, Any] | None,
                         at: float) -> None:
        changed = self.db.execute(
            "UPDATE seasons SET final_status = ?, final_report = ?, final_updated = ?"
            " WHERE name = ?",
            (status, None if report is None else json.dumps(report), at, name)).rowcount
        if not changed:
            raise ValueError(f"no season {name!r} is stored")

    # -- pending challenges ----------------------------------------------------------

    def pending_ends(self, bots: Collection[str], before: float | None,
                     limit: int) -> list[tuple[str, GameRow]]:
        names = sorted(set(bots))
        found: list[tuple[Any, ...]] = []
        for start in range(0, len(names), _CHUNK):
            chunk = names[start:start + _CHUNK]
            found += self.db.execute(
                f"SELECT p.created, p.bot, {_GAMES} FROM pending_ends p"
                " JOIN games ON games.id = p.game_id"
                f" WHERE p.bot IN ({', '.join('?' * len(chunk))}) AND p.created < ?"
                " ORDER BY p.created, p.bot, p.game_id LIMIT ?",
                (*chunk, float("inf") if before is None else before, limit)).fetchall()
        found.sort(key=lambda row: (row[0], row[1], row[2]))
        return [(str(row[1]), game_row(row[2:])) for row in found[:limit]]

    def drop_pending_ends(self, ends: Collection[tuple[str, str]]) -> None:
        self.db.executemany("DELETE FROM pending_ends WHERE bot = ? AND game_id = ?",
                            list(ends))

    def put_challenge(self, challenge: PendingChallenge) -> None:
        self.db.execute(
            "INSERT INTO pending_challenges(id, challenger, opponent, rated,"
            " ladder, expires, games, seat, request_id, asked, keeper)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (id) DO UPDATE SET asked = excluded.asked,"
            " expires = excluded.expires WHERE pending_challenges.keeper = excluded.keeper"
            " AND pending_challenges.ended IS NULL",
            (challenge.id, challenge.challenger, challenge.opponent, int(challenge.rated),
             challenge.ladder, challenge.expires, challenge.games, challenge.seat,
             challenge.request_id, int(challenge.asked), challenge.keeper))

    def end_challenge(self, challenge_id: str, keeper: str, fields: Mapping[str, Any],
                      at: float) -> bool:
        return self.db.execute(
            "UPDATE pending_challenges SET ended = ?, ended_at = ?"
            " WHERE id = ? AND keeper = ? AND ended IS NULL",
            (json.dumps(dict(fields)), at, challenge_id, keeper)).rowcount > 0

    def take_challenges(self, keeper: str) -> list[PendingChallenge]:
        def take(db: sqlite3.Connection) -> list[PendingChallenge]:  # taken and read at once
            db.execute("UPDATE pending_challenges SET keeper = ? WHERE ended IS NULL",
                       (keeper,))
            return self.pending_challenges()
        return self._tx(take)

    def pending_challenges(self) -> list[PendingChallenge]:
        rows = self.db.execute(
            f"SELECT {CHALLENGE_COLUMNS} FROM pending_challenges WHERE ended IS NULL"
            " ORDER BY expires, id").fetchall()
        return [challenge_row(row) for row in rows]

    def challenge(self, challenge_id: str) -> PendingChallenge | None:
        row = self.db.execute(
            f"SELECT {CHALLENGE_COLUMNS} FROM pending_challenges WHERE id = ?",
            (challenge_id,)).fetchone()
        return None if row is None else challenge_row(row)

    def charge_challenge(self, account: str, at: float) -> None:
        self.db.execute("INSERT INTO challenges_sent(account, sent) VALUES (?, ?)",
                        (account, at))

    def challenges_charged(self, since: float) -> list[tuple[str, float]]:
        rows = self.db.execute("SELECT account, sent FROM challenges_sent WHERE sent >= ?"
                               " ORDER BY sent", (since,)).fetchall()
        return [(str(row[0]), float(row[1])) for row in rows]

    def forget_challenges(self, before: float) -> None:
        def forget(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM pending_challenges WHERE ended_at < ?", (before,))
            db.execute("DELETE FROM challenges_sent WHERE sent < ?", (before,))
        self._tx(forget)

    # -- settings presets ------------------------------------------------------------

    def save_preset(self, game: str, name: str, text: str) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO presets(game, name, text, created) VALUES (?, ?, ?, ?)",
            (game, name, text, time.time()),
        )

    def presets(self, game: str) -> list[tuple[str, str]]:
        rows = self.db.execute("SELECT name, text FROM presets WHERE game = ? ORDER BY name",
                               (game,)).fetchall()
        return [(str(r[0]), str(r[1])) for r in rows]

    def preset_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM presets").fetchone()[0])

    def preset(self, game: str, name: str) -> str | None:
        row = self.db.execute("SELECT text FROM presets WHERE game = ? AND name = ?",
                              (game, name)).fetchone()
        return None if row is None else str(row[0])

    def delete_preset(self, game: str, name: str) -> bool:
        return self.db.execute("DELETE FROM presets WHERE game = ? AND name = ?",
                               (game, name)).rowcount > 0

    # -- hosted bots' builds -----------------------------------------------------------

    def save_build(self, build: BuildRow) -> None:
        self.db.execute(
            f"INSERT OR REPLACE INTO bot_builds({', '.join(BUILD_COLUMNS)}) "
            f"VALUES ({', '.join('?' * len(BUILD_COLUMNS))})", build_values(build))

    def build(self, build_id: str) -> BuildRow | None:
        row = self.db.execute(f"SELECT {', '.join(BUILD_COLUMNS)} FROM bot_builds WHERE id = ?",
                              (build_id,)).fetchone()
        return None if row is None else build_row(row)

    def builds(self, bot: str | None = None, *, status: str | None = None,
               limit: int = 50) -> list[BuildRow]:
        columns = ", ".join(BUILD_COLUMNS[:-1])
        rows = self.db.execute(
            f"SELECT {columns} FROM bot_builds WHERE (? IS NULL OR bot = ?)"
            " AND (? IS NULL OR status = ?) ORDER BY created DESC, rowid DESC LIMIT ?",
            (bot, bot, status, status, limit)).fetchall()
        return [build_row(row) for row in rows]

    def save_stderr(self, game_id: str, bot: str, text: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO hosted_stderr(game_id, bot, created, text)"
                        " VALUES (?, ?, ?, ?)", (game_id, bot, time.time(), text))

    def stderr(self, game_id: str, bot: str) -> str | None:
        row = self.db.execute("SELECT text FROM hosted_stderr WHERE game_id = ? AND bot = ?",
                              (game_id, bot)).fetchone()
        return None if row is None else str(row[0])

    def drop_old_stderr(self, before: float) -> int:
        return int(self.db.execute("DELETE FROM hosted_stderr WHERE created < ?",
                                   (before,)).rowcount)

    # -- copying ---------------------------------------------------------------------

    def insert_rows(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        columns = _COLUMNS[_table(table)]
        sql = (f"INSERT INTO {table}({', '.join(columns)}) "
               f"VALUES ({', '.join('?' * len(columns))})")
        self._tx(lambda db: db.executemany(sql, rows))

    def clear(self) -> None:
        def work(db: sqlite3.Connection) -> None:
            for table in COPIED_TABLES:
                db.execute(f"DELETE FROM {table}")

        self._tx(work)

    # -- host leases (Storage's; one writer, so each is atomic) ---------------------
    # committed unsynced: a lease is of the one process that holds it, which no power
    # loss outlives (module docstring)

    def lease_game(self, game_id: str, host: str, seconds: float) -> bool:
        now = time.time()
        cursor = self.unsynced_db.execute(
            "UPDATE games SET host = ?, lease_until = ? WHERE id = ? AND status = 'running'"
            " AND (host IS NULL OR host = ? OR lease_until <= ?)",
            (host, now + seconds, game_id, host, now))
        return cursor.rowcount > 0

    def renew_leases(self, host: str, seconds: float) -> list[str]:
        return [row[0] for row in self.unsynced_db.execute(
            "UPDATE games SET lease_until = ? WHERE host = ? AND status = 'running'"
            " RETURNING id", (time.time() + seconds, host)).fetchall()]

    def claim_expired(self, host: str, seconds: float, limit: int) -> list[str]:
        def work(db: sqlite3.Connection) -> list[str]:
            now = time.time()
            ids = [row[0] for row in db.execute(
                "SELECT id FROM games WHERE status = 'running'"
                " AND (host IS NULL OR lease_until <= ?) ORDER BY started, rowid LIMIT ?",
                (now, limit))]
            db.executemany("UPDATE games SET host = ?, lease_until = ? WHERE id = ?",
                           [(host, now + seconds, game_id) for game_id in ids])
            return ids

        return self._tx(work, synced=False)

    def release_leases(self, host: str) -> list[str]:
        return [row[0] for row in self.unsynced_db.execute(
            "UPDATE games SET lease_until = 0 WHERE host = ? AND status = 'running'"
            " RETURNING id", (host,)).fetchall()]

    def leases(self) -> list[Lease]:
        return [Lease(*row) for row in self.db.execute(
            "SELECT id, host, lease_until FROM games WHERE status = 'running'"
            " ORDER BY started, rowid")]




def _table(name: str) -> str:
    """`name` if it is a table of `COPIED_TABLES` (never an arbitrary text in SQL)."""
    if name not in COPIED_TABLES:
        raise ValueError(f"no table {name!r} (tables: {', '.join(COPIED_TABLES)})")
    return name


class DatabaseThread:
    """The one thread the database's calls run in, one after the other, in the order
    given: what a ``ThreadPoolExecutor(1)`` did, without its futures and semaphore
    (their locks, taken in Python on both threads for every call, cost each stored
    move's commit its thread more time holding the GIL the event loop waits for)."""

    def __init__(self, name: str = "arena-db") -> None:
        self._calls: queue.SimpleQueue[Callable[[], object] | None] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def _work(self) -> None:
        calls = self._calls
        while (call := calls.get()) is not None:
            _call(call)

    def submit(self, call: Callable[[], object]) -> None:
        """Run `call` in the thread after the calls given before (it must not raise).

        Raises:
            RuntimeError: the thread is shut down.
        """
        if self._closed:
            raise RuntimeError("the database thread is shut down")
        self._calls.put(call)

    async def run(self, call: Callable[[], T]) -> T:
        """``call()`` in the thread, its result (or what it raised) on the loop."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def calling() -> None:
            try:
                result = call()
            except BaseException as error:  # noqa: BLE001 - raised on the loop
                answer = functools.partial(_set_exception, future, error)
            else:
                answer = functools.partial(_set_result, future, result)
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(answer)

        self.submit(calling)
        return await future

    def shutdown(self, *, wait: bool = True) -> None:
        """Run no more calls once those given are done; `wait` for the thread's end."""
        if not self._closed:
            self._closed = True
            self._calls.put(None)
        if wait:
            self._thread.join()


def _call(call: Callable[[], object]) -> None:
    """Run a call of the database thread; one that raises (a bug: none should) is
    logged, and the thread goes on with the others."""
    try:
        call()
    except Exception:  # noqa: BLE001 - logged: the thread must outlive a bug
        _log.exception("a call in the database thread failed")


def _set_result(future: asyncio.Future[T], result: T) -> None:
    if not future.done():  # (its awaiter may have been cancelled meanwhile)
        future.set_result(result)


def _set_exception(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


class WalFlusher:
    """`SQLiteDatabase.sync_wal` in a thread of its own, so that the database thread goes
    on committing moves while a result's flush waits for the disk; one flush for every
    caller that asks while another runs (a group flush)."""

    def __init__(self, sync: Callable[[], None]) -> None:
        self._sync = sync
        self._thread = DatabaseThread("arena-db-flush")
        self._next: asyncio.Future[None] | None = None
        """The flush the callers since the running one began wait for."""
        self._busy = False

    async def flush(self) -> None:
        """Return once every commit made before this call is on the disk.

        Raises:
            OSError: the disk failed.
        """
        waiter = self._next
        if waiter is None:
            waiter = self._next = asyncio.get_running_loop().create_future()
            if not self._busy:
                self._begin()
        # (a running flush may have begun before the caller's commit: it waits for the next)
        await asyncio.shield(waiter)  # one caller cancelled cancels nobody else's wait

    def _begin(self) -> None:
        waiter, self._next = self._next, None
        assert waiter is not None
        self._busy = True
        flushing = asyncio.ensure_future(self._thread.run(self._sync))
        flushing.add_done_callback(functools.partial(self._flushed, waiter))

    def _flushed(self, waiter: asyncio.Future[None], flushing: asyncio.Future[None]) -> None:
        self._busy = False
        error = None if flushing.cancelled() else flushing.exception()
        if flushing.cancelled():
            waiter.cancel()
        elif error is not None:
            waiter.set_exception(error)
        else:
            waiter.set_result(None)
        if self._next is not None:
            self._begin()

    def shutdown(self) -> None:
        self._thread.shutdown(wait=True)


class SQLiteStorage(SQLitePeopleStorage, Storage):
    """`Storage` on one SQLite file, through `SQLiteDatabase` in one worker thread
    (`DatabaseThread`): every call is awaited, in order (open it with `open` or
    `arena.storage.open_storage`)."""

    kind = "sqlite"
    write_concurrency = 2  # one commit in the database thread, the next queued behind it

    def __init__(self, database: SQLiteDatabase, thread: DatabaseThread) -> None:
        super().__init__(database.path)
        self.database: SQLiteDatabase = database
        """The database itself: use it only through `run` (its thread)."""
        self._thread = thread
        self._flusher = WalFlusher(database.sync_wal)
        self._unflushed: dict[str, list[RatingRow]] = {}
        """Results committed whose flush failed: a retry flushes, never stores twice."""

    @classmethod
    async def open(cls, path: str | Path) -> SQLiteStorage:
        """Open (make, bring up to date) the database file `path` in its own thread.

        Raises:
            StorageVersionError: the file was written by a newer arena.
            StorageFailure: it cannot be opened or brought up to date.
        """
        thread = DatabaseThread()
        try:
            database = await thread.run(lambda: SQLiteDatabase(path))
        except BaseException as error:
            thread.shutdown(wait=False)
            if isinstance(error, sqlite3.Error | OSError):
                raise StorageFailure(f"cannot open the database {path}: {error}") from error
            raise
        return cls(database, thread)

    async def run(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``method(*args, **kwargs)`` in the database thread (tools and tests that
        need the connection itself, `database.db`, use this too).

        Raises:
            StorageFailure: the database itself failed (the storage is now unhealthy).
        """
        started = time.perf_counter()
        try:
            return await self._thread.run(lambda: method(*args, **kwargs))
        except Exception as error:
            if not is_storage_failure(error):
                raise
            raise self._failed(error) from error
        finally:
            _SECONDS.observe(time.perf_counter() - started)

    async def close(self) -> None:
        self._flusher.shutdown()
        try:
            await self._thread.run(self.database.close)
        finally:
            self._thread.shutdown(wait=True)

    async def schema_version(self) -> int:
        return await self.run(lambda: self.database.version)

    async def check_writable(self) -> None:
        await self.run(self.database.check_writable)

    async def add_bot(self, name: str, *, operator: bool = False, replace: bool = False) -> str:
        return await self.run(self.database.add_bot, name, operator=operator, replace=replace)

    async def add_bots(self, names: Sequence[str], *, operator: bool = False) -> dict[str, str]:
        return await self.run(self.database.add_bots, names, operator=operator)

    async def add_guest(self, lifetime: float) -> tuple[str, str]:
        return await self.run(self.database.add_guest, lifetime)

    async def revoke_bot(self, name: str) -> bool:
        return await self.run(self.database.revoke_bot, name)

    async def token_hashes(self, names: Iterable[str]) -> dict[str, str]:
        return await self.run(self.database.token_hashes, list(names))

    async def authenticate(self, token: str) -> BotAccount | None:
        return await self.run(self.database.authenticate, token)

    async def purge_expired(self) -> int:
        return await self.run(self.database.purge_expired)

    async def bots(self) -> list[BotAccount]:
        return await self.run(self.database.bots)

    async def start_game(self, record: MatchRecord, *, ladder: bool, pair: str | None,
                         time_control: TimeControl | None = None,
                         ladder_name: str | None = None, host: str | None = None,
                         lease: float = 0.0) -> None:
        await self.run(self.database.start_game, record, ladder=ladder, pair=pair,
                       ladder_name=ladder_name, time_control=time_control, host=host,
                       lease=lease)

    async def append_turns(self, turns: Sequence[StoredTurn]) -> None:
        await self.run(self.database.append_turns, list(turns))

    def commit_turns_soon(self, take: Callable[[], Sequence[StoredTurn]],
                          done: Callable[[BaseException | None], None]) -> None:
        """On the loop's next turn, hand the turns `take()` returns to the database
        thread, which calls `done` back on the loop as soon as they are committed: no
        task, no future between (each would cost the move another turn of the loop)."""
        loop = asyncio.get_running_loop()
        loop.call_soon(self._hand_turns, loop, take, done)

    def _hand_turns(self, loop: asyncio.AbstractEventLoop,
                    take: Callable[[], Sequence[StoredTurn]],
                    done: Callable[[BaseException | None], None]) -> None:
        turns = list(take())
        started = time.perf_counter()

        def committing() -> None:
            error: BaseException | None = None
            try:
                self.database.append_turns(turns)
            except BaseException as failure:  # noqa: BLE001 - raised on the loop, as by `run`
                error = failure
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(self._turns_committed, done, error, started)

        try:
            self._thread.submit(committing)
        except RuntimeError:  # the storage is closed: the server closes
            done(asyncio.CancelledError())

    def _turns_committed(self, done: Callable[[BaseException | None], None],
                         error: BaseException | None, started: float) -> None:
        _SECONDS.observe(time.perf_counter() - started)
        if error is not None and is_storage_failure(error):
            error = self._failed(error)
        done(error)

    async def running_games(self, ids: Collection[str] | None = None) -> list[RunningGame]:
        return await self.run(self.database.running_games, ids)

    async def finish_game(self, record: MatchRecord, *, rated: bool = False,
                          log: str | None = None,
                          pending: Collection[str] = ()) -> list[RatingRow]:
        """Committed in the database thread, then flushed to the disk in the flusher's
        (`WalFlusher`): returns once both are done, as a synced commit would."""
        after = self._unflushed.get(record.id)
        if after is None:
            after = await self.run(self.database.finish_game, record, rated=rated, log=log,
                                   pending=tuple(pending), synced=False)
            self._unflushed[record.id] = after
        started = time.perf_counter()
        try:
            await self._flusher.flush()
        except OSError as error:
            raise self._failed(error) from error
        finally:
            _SECONDS.observe(time.perf_counter() - started)
        del self._unflushed[record.id]
        return after

    async def recover(self, detail: str = RECOVERED) -> list[str]:
        return await self.run(self.database.recover, detail)

    async def ladder_pairings(self, since: float,
                              ladder: str | None = None) -> list[tuple[float, str, str]]:
        return await self.run(self.database.ladder_pairings, since, ladder)

    async def log_bytes(self, bot: str, day: int) -> int:
        return await self.run(self.database.log_bytes, bot, day)

    async def drop_old_notes(self, before: float, limit: int = 100) -> int:
        return await self.run(self.database.drop_old_notes, before, limit)

    async def games(self, *, bot: str | None = None, game: str | None = None,
                    status: str | None = None, limit: int = 50,
                    before: float | None = None, ladder: str | None = None) -> list[GameRow]:
        return await self.run(self.database.games, bot=bot, game=game, status=status,
                              limit=limit, before=before, ladder=ladder)

    async def game(self, game_id: str) -> StoredGame | None:
        return await self.run(self.database.game, game_id)

    async def rating(self, bot: str, ladder: str) -> RatingRow | None:
        return await self.run(self.database.rating, bot, ladder)

    async def leaderboard(self, ladder: str | None = None) -> list[RatingRow]:
        return await self.run(self.database.leaderboard, ladder)

    async def rating_history(self, ladder: str | None = None) -> dict[str, list[list[float]]]:
        return await self.run(self.database.rating_history, ladder)

    async def freeze_season(self, name: str, ladder: str, standings: Sequence[Standing],
                            at: float, settings: Mapping[str, Any] | None = None) -> bool:
        return await self.run(self.database.freeze_season, name, ladder, list(standings), at,
                              settings)

    async def seasons(self) -> list[SeasonRecord]:
        return await self.run(self.database.seasons)

    async def season(self, name: str) -> SeasonRecord | None:
        return await self.run(self.database.season, name)

    async def season_standings(self, name: str) -> list[Standing]:
        return await self.run(self.database.season_standings, name)

    async def claim_season_final(self, name: str, at: float, stale_before: float) -> bool:
        return await self.run(self.database.claim_season_final, name, at, stale_before)

    async def set_season_final(self, name: str, status: str,
                               report: Mapping[str, Any] | None, at: float) -> None:
        await self.run(self.database.set_season_final, name, status, report, at)

    async def pending_ends(self, bots: Collection[str], *, before: float | None = None,
                           limit: int = 1000) -> list[tuple[str, GameRow]]:
        return await self.run(self.database.pending_ends, tuple(bots), before, limit)

    async def drop_pending_ends(self, ends: Collection[tuple[str, str]]) -> None:
        if ends:
            await self.run(self.database.drop_pending_ends, tuple(ends))

    async def put_challenge(self, challenge: PendingChallenge) -> None:
        await self.run(self.database.put_challenge, challenge)

    async def end_challenge(self, challenge_id: str, keeper: str, fields: Mapping[str, Any],
                            at: float) -> bool:
        return await self.run(self.database.end_challenge, challenge_id, keeper, fields, at)

    async def take_challenges(self, keeper: str) -> list[PendingChallenge]:
        return await self.run(self.database.take_challenges, keeper)

    async def pending_challenges(self) -> list[PendingChallenge]:
        return await self.run(self.database.pending_challenges)

    async def challenge(self, challenge_id: str) -> PendingChallenge | None:
        return await self.run(self.database.challenge, challenge_id)

    async def charge_challenge(self, account: str, at: float) -> None:
        await self.run(self.database.charge_challenge, account, at)

    async def challenges_charged(self, since: float) -> list[tuple[str, float]]:
        return await self.run(self.database.challenges_charged, since)

    async def forget_challenges(self, before: float) -> None:
        await self.run(self.database.forget_challenges, before)

    async def save_preset(self, game: str, name: str, text: str) -> None:
        await self.run(self.database.save_preset, game, name, text)

    async def presets(self, game: str) -> list[tuple[str, str]]:
        return await self.run(self.database.presets, game)

    async def preset_count(self) -> int:
        return await self.run(self.database.preset_count)

    async def preset(self, game: str, name: str) -> str | None:
        return await self.run(self.database.preset, game, name)

    async def delete_preset(self, game: str, name: str) -> bool:
        return await self.run(self.database.delete_preset, game, name)

    async def save_build(self, build: BuildRow) -> None:
        await self.run(self.database.save_build, build)

    async def build(self, build_id: str) -> BuildRow | None:
        return await self.run(self.database.build, build_id)

    async def builds(self, bot: str | None = None, *, status: str | None = None,
                     limit: int = 50) -> list[BuildRow]:
        return await self.run(self.database.builds, bot, status=status, limit=limit)

    async def save_stderr(self, game_id: str, bot: str, text: str) -> None:
        await self.run(self.database.save_stderr, game_id, bot, text)

    async def stderr(self, game_id: str, bot: str) -> str | None:
        return await self.run(self.database.stderr, game_id, bot)

    async def drop_old_stderr(self, before: float) -> int:
        return await self.run(self.database.drop_old_stderr, before)

    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Snapshot]:
        # a read transaction on a connection of its own (WAL: a consistent view while
        # this storage, or a server, writes)
        reader = await self.run(_reader, self.database.path)
        try:
            yield _SQLiteSnapshot(self, reader)
        finally:
            await self.run(reader.close)

    async def insert_rows(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        await self.run(self.database.insert_rows, table, list(rows))

    async def clear(self) -> None:
        await self.run(self.database.clear)

    async def lease_game(self, game_id: str, host: str, seconds: float) -> bool:
        return await self.run(self.database.lease_game, game_id, host, seconds)

    async def renew_leases(self, host: str, seconds: float) -> list[str]:
        return await self.run(self.database.renew_leases, host, seconds)

    async def claim_expired(self, host: str, seconds: float,
                            limit: int = CLAIM_LIMIT) -> list[str]:
        return await self.run(self.database.claim_expired, host, seconds, limit)

    async def release_leases(self, host: str) -> list[str]:
        return await self.run(self.database.release_leases, host)

    async def leases(self) -> list[Lease]:
        return await self.run(self.database.leases)


def _reader(path: str) -> sqlite3.Connection:
    """A read-only connection to `path` in a transaction."""
    reader = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    reader.execute("PRAGMA query_only=1")
    reader.execute("BEGIN")
    return reader


class _SQLiteSnapshot(Snapshot):
    def __init__(self, storage: SQLiteStorage, reader: sqlite3.Connection) -> None:
        self._storage = storage
        self._reader = reader

    async def count(self, table: str) -> int:
        cursor = await self._storage.run(
            self._reader.execute, f"SELECT COUNT(*) FROM {_table(table)}")
        return int((await self._storage.run(cursor.fetchone))[0])

    async def rows(self, table: str, batch: int) -> AsyncIterator[list[tuple[Any, ...]]]:
        run = self._storage.run
        columns = ", ".join(_SEED if column == "seed_text" else column
                            for column in _COLUMNS[_table(table)])
        cursor = await run(self._reader.execute, f"SELECT {columns} FROM {table} ORDER BY rowid")
        booleans = [i for i, column in enumerate(COPIED_TABLES[table])
                    if (table, column) in BOOLEAN_COLUMNS]
        while rows := await run(cursor.fetchmany, batch):
            if booleans:
                rows = [tuple(bool(v) if i in booleans else v for i, v in enumerate(row))
                        for row in rows]
            yield rows
